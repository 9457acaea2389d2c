/* test_params.c -- the methods' parameter schemas (flow/params.h): the
 * registry, every method's defaults against docs/PARAMETERS.md, setting and
 * reading back by text and by number (reals exactly, through the shortest
 * text that reads back, flow_format_real), range errors and their
 * messages, choices, unknown keys, the conditions under which a parameter
 * applies, and .params files (exact round trip for every method, method
 * lines, every kind of bad line reported with file:line and nothing
 * changed, a value without effect refused, the files shipped in params/
 * valid). */
#include "harness.h"
#include "flow/number.h"
#include "flow/params.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ---- */

/* Every key of a parameter object with its value as text and as a number. */
#define SNAP_MAX 48
typedef struct snapshot {
    char method[16];
    int n;
    char key[SNAP_MAX][32];
    char text[SNAP_MAX][64];
    double num[SNAP_MAX];
} snapshot;

static void take(const flow_params *p, snapshot *s)
{
    memset(s, 0, sizeof *s);
    snprintf(s->method, sizeof s->method, "%s", flow_params_method(p));
    const flow_param_info *in;
    for (int i = 0; (in = flow_method_param(s->method, i)) && i < SNAP_MAX; i++) {
        snprintf(s->key[i], sizeof s->key[i], "%s", in->name);
        CHECK_OK(flow_params_get(p, in->name, s->text[i], sizeof s->text[i]));
        CHECK_OK(flow_params_get_number(p, in->name, &s->num[i]));
        s->n = i + 1;
    }
}

/* Whether two snapshots are of the same method with bit-identical values;
 * prints the first difference. */
static int same(const snapshot *a, const snapshot *b)
{
    if (strcmp(a->method, b->method) != 0 || a->n != b->n) {
        fprintf(stderr, "    method %s (%d keys) against %s (%d keys)\n", a->method, a->n,
                b->method, b->n);
        return 0;
    }
    for (int i = 0; i < a->n; i++)
        if (strcmp(a->key[i], b->key[i]) != 0 || strcmp(a->text[i], b->text[i]) != 0
            || memcmp(&a->num[i], &b->num[i], sizeof(double)) != 0) {
            fprintf(stderr, "    %s: %s = %s against %s = %s\n", a->method, a->key[i],
                    a->text[i], b->key[i], b->text[i]);
            return 0;
        }
    return 1;
}

static int count_params(const char *method)
{
    int n = 0;
    while (flow_method_param(method, n))
        n++;
    return n;
}

static void write_text(const char *path, const char *text)
{
    harness_write_file(path, text, strlen(text));
}

#define NMETHODS 9
static const char *const methods[NMETHODS] = { "lk", "hs", "clg", "clg-nl", "robust", "plk", "dis",
                                                "tvl1", "epic" };

/* ---- the registry ---- */

static void test_registry(void)
{
    for (int i = 0; i < NMETHODS; i++) {
        CHECK(flow_method_at(i) && strcmp(flow_method_at(i), methods[i]) == 0);
        CHECK(flow_method_exists(methods[i]));
        CHECK(flow_method_title(methods[i]) && flow_method_title(methods[i])[0]);
    }
    CHECK(flow_method_at(NMETHODS) == NULL);
    CHECK(flow_method_at(-1) == NULL);
    CHECK(strcmp(flow_method_default(), "robust") == 0);
    CHECK(!flow_method_exists("horn") && !flow_method_exists(NULL));
    CHECK(flow_method_title("horn") == NULL);
    CHECK(flow_method_param("horn", 0) == NULL);
    CHECK(flow_method_param_find("horn", "alpha") == NULL);
    CHECK(flow_method_param("clg", -1) == NULL);
    /* every parameter is described */
    for (int m = 0; m < NMETHODS; m++) {
        const flow_param_info *in;
        for (int i = 0; (in = flow_method_param(methods[m], i)); i++) {
            CHECK(in->name && in->name[0] && in->help && in->help[0]);
            CHECK(flow_method_param_find(methods[m], in->name) == in);
            if (in->type == FLOW_PARAM_CHOICE)
                CHECK(in->choices && in->choices[0] && in->choices[1]);
        }
    }
    /* the window of lk: a choice; its box side an odd integer, applying with
     * the box only */
    const flow_param_info *win = flow_method_param_find("lk", "window");
    const flow_param_info *ws = flow_method_param_find("lk", "window_size");
    CHECK(win && win->type == FLOW_PARAM_CHOICE && strcmp(win->choices[0], "gauss") == 0
          && strcmp(win->choices[1], "box") == 0 && win->choices[2] == NULL);
    CHECK(ws && ws->type == FLOW_PARAM_INT && (ws->flags & FLOW_PARAM_ODD) && ws->when
          && strcmp(ws->when, "window box") == 0);
    /* creating: the default method without a name, an unknown one refused */
    flow_params *p = NULL;
    CHECK_OK(flow_params_create(NULL, &p));
    CHECK(p && strcmp(flow_params_method(p), "robust") == 0);
    flow_params_destroy(p);
    p = (flow_params *)&p; /* not NULL: a failure must set it */
    CHECK(flow_params_create("horn", &p) == FLOW_ERR_INVALID && p == NULL);
    CHECK(strstr(flow_last_error(), "horn") != NULL);
    CHECK(strstr(flow_last_error(), "lk, hs, clg, clg-nl, robust, plk, dis, tvl1 or epic") != NULL);
    flow_params_destroy(NULL); /* harmless */
}

/* ---- defaults: docs/PARAMETERS.md, "The parameters" ---- */

/* One row of the table: the default per method, NULL where the method has
 * no such parameter ("-" in the table). */
typedef struct doc_row {
    const char *key;
    const char *def[NMETHODS]; /* lk, hs, clg, clg-nl, robust, plk, dis, tvl1, epic */
} doc_row;

static const doc_row doc[] = {
    { "sigma", { "1.5", "1.5", "1.5", "1.5", "0.8", "1", "0", NULL, "0.8" } },
    { "rho", { "4", NULL, "1", "1", "0", NULL, NULL, NULL, NULL } },
    { "alpha", { NULL, "400", "400", "10", "4", NULL, "2.5", NULL, "4" } },
    { "nonlinear_data", { NULL, NULL, NULL, "1", NULL, NULL, NULL, NULL, NULL } },
    { "nonlinear_smooth", { NULL, NULL, NULL, "1", NULL, NULL, NULL, NULL, NULL } },
    { "eps_d", { NULL, NULL, NULL, "1", NULL, NULL, NULL, NULL, NULL } },
    { "eps_data", { NULL, NULL, NULL, NULL, "0.1", NULL, "0.1", NULL, "0.1" } },
    { "eps_s", { NULL, NULL, NULL, "0.01", "0.01", NULL, "0.01", NULL, "0.01" } },
    { "edge", { NULL, NULL, NULL, NULL, "30", NULL, NULL, NULL, "5" } },
    { "window", { "gauss", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL } },
    { "window_size", { "7", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL } },
    { "tau", { "0", NULL, NULL, NULL, NULL, "0", NULL, "0.25", NULL } },
    { "fill_unknown", { "0", NULL, NULL, NULL, NULL, "1", NULL, NULL, NULL } },
    { "solver", { NULL, "fmg", "fmg", "fmg", "v", NULL, "rbsor", NULL, "v" } },
    { "smoother", { NULL, "jacobi", "jacobi", "jacobi", "rbsor", NULL, "rbsor", NULL, "rbsor" } },
    { "iterations", { NULL, "500", "500", "500", "20", "10", "5", "30", "20" } },
    { "omega", { NULL, "1", "1", "1", "1.3", NULL, "1.6", NULL, "1.3" } },
    { "jacobi_weight", { NULL, "0.8", "0.8", "0.8", "0.8", NULL, "0.8", NULL, "0.8" } },
    { "n0", { NULL, "10", "10", "10", "8", NULL, "10", NULL, "8" } },
    { "n1", { NULL, "2", "2", "2", "1", NULL, "2", NULL, "1" } },
    { "n2", { NULL, "2", "2", "2", "1", NULL, "2", NULL, "1" } },
    { "cycles", { NULL, "1", "1", "1", "1", NULL, "1", NULL, "1" } },
    { "max_depth", { NULL, "-1", "-1", "-1", "2", NULL, "-1", NULL, "2" } },
    { "color", { "0", "0", "0", "0", "1", "0", "0", "0", "1" } },
    { "warp_levels", { NULL, "0", "0", "0", "100", NULL, NULL, NULL, NULL } },
    { "warps", { NULL, "1", "1", "1", "3", NULL, NULL, "5", "3" } },
    { "warp_scale", { NULL, "0.5", "0.5", "0.5", "0.8", NULL, NULL, NULL, NULL } },
    { "warp_fine", { NULL, NULL, NULL, NULL, "3", NULL, NULL, NULL, NULL } },
    { "gamma", { NULL, NULL, NULL, NULL, "1", NULL, "1", NULL, "1" } },
    { "normalise", { NULL, NULL, NULL, NULL, "1", "0", "1", NULL, NULL } },
    { "zeta", { NULL, NULL, NULL, NULL, "1", NULL, NULL, NULL, NULL } },
    { "texture", { NULL, NULL, NULL, NULL, "0", NULL, NULL, NULL, NULL } },
    { "texture_sigma", { NULL, NULL, NULL, NULL, "4", NULL, NULL, NULL, NULL } },
    { "median", { NULL, NULL, NULL, NULL, "2", NULL, NULL, NULL, "2" } },
    { "median_sigma_c", { NULL, NULL, NULL, NULL, "10", NULL, NULL, NULL, NULL } },
    { "median_sigma_s", { NULL, NULL, NULL, NULL, "2", NULL, NULL, NULL, NULL } },
    { "median_occ_d", { NULL, NULL, NULL, NULL, "0.3", NULL, NULL, NULL, NULL } },
    { "median_occ_e", { NULL, NULL, NULL, NULL, "20", NULL, NULL, NULL, NULL } },
    { "median_each", { NULL, NULL, NULL, NULL, "0", NULL, NULL, NULL, NULL } },
    { "previous", { NULL, NULL, NULL, NULL, "0", NULL, NULL, NULL, NULL } },
    { "previous_tol", { NULL, NULL, NULL, NULL, "0.3", NULL, NULL, NULL, NULL } },
    { "sor_below", { NULL, NULL, NULL, NULL, "60000", NULL, NULL, NULL, NULL } },
    { "sor_sweeps", { NULL, NULL, NULL, NULL, "10", NULL, NULL, NULL, NULL } },
    { "sor_omega", { NULL, NULL, NULL, NULL, "1.8", NULL, NULL, NULL, NULL } },
    { "bicubic", { NULL, NULL, NULL, NULL, "1", "1", NULL, NULL, NULL } },
    { "patch", { NULL, NULL, NULL, NULL, NULL, "8", "8", NULL, NULL } },
    { "affine", { NULL, NULL, NULL, NULL, NULL, "1", NULL, NULL, "1" } },
    { "levels", { NULL, NULL, NULL, NULL, NULL, "5", NULL, NULL, "5" } },
    { "scale", { NULL, NULL, NULL, NULL, NULL, "0.5", NULL, NULL, NULL } },
    { "preset", { NULL, NULL, NULL, NULL, NULL, NULL, "medium", NULL, NULL } },
    { "finest", { NULL, NULL, NULL, NULL, NULL, NULL, "-1", NULL, NULL } },
    { "stride", { NULL, NULL, NULL, NULL, NULL, NULL, "-1", NULL, NULL } },
    { "patch_iterations", { NULL, NULL, NULL, NULL, NULL, NULL, "-1", NULL, NULL } },
    { "refine", { NULL, NULL, NULL, NULL, NULL, NULL, "-1", NULL, NULL } },
    { "lambda", { NULL, NULL, NULL, NULL, NULL, NULL, NULL, "0.15", NULL } },
    { "theta", { NULL, NULL, NULL, NULL, NULL, NULL, NULL, "0.3", NULL } },
    { "nscales", { NULL, NULL, NULL, NULL, NULL, NULL, NULL, "5", NULL } },
    { "scale_step", { NULL, NULL, NULL, NULL, NULL, NULL, NULL, "0.8", NULL } },
    { "outer_iterations", { NULL, NULL, NULL, NULL, NULL, NULL, NULL, "10", NULL } },
    { "median_filtering", { NULL, NULL, NULL, NULL, NULL, NULL, NULL, "5", NULL } },
    { "match_level", { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "1" } },
    { "step", { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "3" } },
    { "match_iterations", { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "4" } },
    { "match_radius", { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "4" } },
    { "subpixel", { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "1" } },
    { "census_thresh", { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "1" } },
    { "fb_tol", { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "2" } },
    { "min_texture", { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "1" } },
    { "geo_sigma", { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "3" } },
    { "geo_passes", { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "8" } },
    { "gather", { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "2" } },
    { "smooth_edge", { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "30" } },
};
#define NDOC ((int)(sizeof doc / sizeof doc[0]))

static void test_defaults_documented(void)
{
    for (int m = 0; m < NMETHODS; m++) {
        flow_params *p = NULL;
        CHECK_OK(flow_params_create(methods[m], &p));
        if (!p)
            continue;
        CHECK(strcmp(flow_params_method(p), methods[m]) == 0);
        CHECK_OK(flow_params_validate(p));
        int documented = 0;
        for (int r = 0; r < NDOC; r++) {
            const flow_param_info *in = flow_method_param_find(methods[m], doc[r].key);
            const char *want = doc[r].def[m];
            if (!want) { /* "-": the method has no such parameter */
                if (in)
                    fprintf(stderr, "    %s has an undocumented %s\n", methods[m], doc[r].key);
                CHECK(in == NULL);
                continue;
            }
            documented++;
            if (!in) {
                fprintf(stderr, "    %s lacks the documented %s\n", methods[m], doc[r].key);
                CHECK(in != NULL);
                continue;
            }
            char text[64] = "";
            double v = NAN;
            CHECK_OK(flow_params_get(p, doc[r].key, text, sizeof text));
            CHECK_OK(flow_params_get_number(p, doc[r].key, &v));
            const int ok = in->type == FLOW_PARAM_CHOICE ? strcmp(text, want) == 0
                                                         : v == strtod(want, NULL);
            if (!ok)
                fprintf(stderr, "    %s: %s = %s, documented %s\n", methods[m], doc[r].key,
                        text, want);
            CHECK(ok);
            CHECK(in->def == v); /* the schema's default is the object's */
        }
        /* nothing beyond the table */
        CHECK(count_params(methods[m]) == documented);
        flow_params_destroy(p);
    }
    /* the names of the documented method differences */
    CHECK(flow_method_param_find("hs", "rho") == NULL);   /* CLG with rho = 0 */
    CHECK(flow_method_param_find("lk", "alpha") == NULL); /* no smoothness term */
    CHECK(flow_method_param_find("lk", "solver") == NULL);
    CHECK(flow_method_param_find("lk", "warp_levels") == NULL);
}

/* ---- setting and reading back ---- */

static void test_set_get_round_trip(void)
{
    flow_params *p = harness_params("clg-nl", NULL), *q = harness_params("clg-nl", NULL);
    if (!p || !q) {
        flow_params_destroy(p), flow_params_destroy(q);
        return;
    }
    /* reals: the text written reads back bit for bit, whatever the value */
    const double reals[] = { 1.0 / 3.0, 0.1 + 1e-17, 2.0 / 3.0 * 1e-3, 12345.678901234567,
                             1e-320, 4.9406564584124654e-324, 999999.99999999988, 1e12 };
    const char *const keys[] = { "alpha", "alpha", "eps_s", "alpha", "alpha", "eps_d", "eps_d",
                                 "alpha" };
    for (size_t i = 0; i < sizeof reals / sizeof reals[0]; i++) {
        CHECK_OK(flow_params_set_number(p, keys[i], reals[i]));
        char text[64];
        double back = -1, again = -1;
        CHECK_OK(flow_params_get(p, keys[i], text, sizeof text));
        CHECK_OK(flow_params_get_number(p, keys[i], &back));
        CHECK(memcmp(&back, &reals[i], sizeof back) == 0);
        CHECK_OK(flow_params_set(q, keys[i], text));
        CHECK_OK(flow_params_get_number(q, keys[i], &again));
        if (memcmp(&again, &reals[i], sizeof again) != 0)
            fprintf(stderr, "    %s: %.17g -> '%s' -> %.17g\n", keys[i], reals[i], text, again);
        CHECK(memcmp(&again, &reals[i], sizeof again) == 0);
    }
    /* an underflowing real is a value like any other (strtod's ERANGE with a
     * subnormal result): accepted as text, and read back exactly */
    CHECK_OK(flow_params_set(p, "alpha", "1e-320"));
    double tiny = 0;
    CHECK_OK(flow_params_get_number(p, "alpha", &tiny));
    const double want_tiny = strtod("1e-320", NULL);
    CHECK(tiny > 0 && memcmp(&tiny, &want_tiny, sizeof tiny) == 0);
    /* one that underflows to 0 is refused, also where 0 is in range (sigma) */
    CHECK(flow_params_set(p, "alpha", "1e-400") == FLOW_ERR_INVALID);
    CHECK(flow_params_set(p, "sigma", "1e-400") == FLOW_ERR_INVALID);
    CHECK(strstr(flow_last_error(), "sigma: '1e-400' is not zero but rounds to 0") != NULL);
    CHECK_OK(flow_params_get_number(p, "alpha", &tiny));
    CHECK(memcmp(&tiny, &want_tiny, sizeof tiny) == 0);
    /* integers, booleans, choices: by text and by number */
    CHECK_OK(flow_params_set(p, "n0", "17"));
    double v = 0;
    char text[64];
    CHECK_OK(flow_params_get_number(p, "n0", &v));
    CHECK(v == 17);
    CHECK_OK(flow_params_set_number(p, "max_depth", -1));
    CHECK_OK(flow_params_get(p, "max_depth", text, sizeof text));
    CHECK(strcmp(text, "-1") == 0);
    CHECK_OK(flow_params_set(p, "nonlinear_smooth", "0"));
    CHECK_OK(flow_params_get(p, "nonlinear_smooth", text, sizeof text));
    CHECK(strcmp(text, "0") == 0);
    CHECK_OK(flow_params_set(p, "solver", "w"));
    CHECK_OK(flow_params_get_number(p, "solver", &v));
    CHECK(v == 3);
    CHECK_OK(flow_params_set_number(p, "smoother", 1));
    CHECK_OK(flow_params_get(p, "smoother", text, sizeof text));
    CHECK(strcmp(text, "rbsor") == 0);
    /* a buffer too small is an error, not a truncated value */
    char small[4];
    CHECK(flow_params_get(p, "eps_s", small, sizeof small) == FLOW_ERR_INVALID);
    /* a clone is equal and independent */
    flow_params *c = NULL;
    CHECK_OK(flow_params_clone(p, &c));
    if (c) {
        snapshot a, b;
        take(p, &a), take(c, &b);
        CHECK(same(&a, &b));
        CHECK_OK(flow_params_set(c, "alpha", "3"));
        CHECK_OK(flow_params_get_number(p, "alpha", &v));
        CHECK(memcmp(&v, &want_tiny, sizeof v) == 0);
    }
    flow_params_destroy(c);
    flow_params_destroy(p);
    flow_params_destroy(q);
}

/* Each bad value is refused with a message naming the parameter, and leaves
 * the parameters as they were. */
static void test_range_errors(void)
{
    static const struct {
        const char *method, *key, *text; /* text NULL: set_number(number) */
        double number;
        const char *message; /* the whole message, or a part of it (prefix '~') */
    } bad[] = {
        { "clg", "alpha", "-5", 0, "parameter alpha = -5 out of range (0 < alpha <= 1e+12)" },
        { "hs", "alpha", "0", 0, "parameter alpha = 0 out of range (0 < alpha <= 1e+12)" },
        { "clg", "alpha", "1e13", 0, "parameter alpha = 1e+13 out of range (0 < alpha <= 1e+12)" },
        { "clg", "sigma", "-1", 0, "parameter sigma = -1 out of range (0 <= sigma <= 16)" },
        { "clg", "sigma", NULL, NAN, "~sigma" },
        { "clg", "sigma", "nan", 0, "~sigma" },
        { "clg", "rho", "17", 0, "parameter rho = 17 out of range (0 <= rho <= 16)" },
        { "clg-nl", "eps_d", "0", 0, "parameter eps_d = 0 out of range (0 < eps_d <= 1e+06)" },
        { "clg-nl", "eps_s", "-0.1", 0, "~eps_s" },
        { "clg-nl", "nonlinear_data", "2", 0,
          "parameter nonlinear_data = 2 out of range (0 or 1)" },
        { "lk", "window_size", "8", 0,
          "parameter window_size = 8 out of range (odd, 1 <= window_size <= 97)" },
        { "lk", "window_size", "99", 0, "~window_size = 99" },
        { "lk", "window_size", "-1", 0, "~window_size = -1" },
        { "lk", "window_size", NULL, 7.5, "~window_size" },
        { "lk", "tau", "-1", 0, "parameter tau = -1 out of range (0 <= tau <= 1e+12)" },
        { "lk", "window", NULL, 7, "parameter window = 7 out of range (gauss or box)" },
        { "lk", "window", "hann", 0, "unknown window 'hann' (expected gauss or box)" },
        { "clg", "smoother", "fmg", 0, "unknown smoother 'fmg' (expected jacobi or rbsor)" },
        { "clg", "smoother", NULL, 5, "parameter smoother = 5 out of range (jacobi or rbsor)" },
        { "clg", "solver", "multigrid", 0,
          "unknown solver 'multigrid' (expected jacobi, rbsor, v, w, cascadic or fmg)" },
        { "clg", "iterations", "0", 0, "~iterations" },
        { "clg", "iterations", "1e3", 0, "~'1e3'" },
        { "clg", "iterations", NULL, 2.5, "~iterations = 2.5" },
        { "clg", "omega", "2.0", 0, "parameter omega = 2 out of range (0 < omega < 2)" },
        { "clg", "omega", "0", 0, "~omega" },
        { "clg", "omega", "inf", 0, "~'inf'" },
        { "clg", "jacobi_weight", "1.5", 0, "~jacobi_weight" },
        { "clg", "n0", "0", 0, "~n0" },
        { "clg", "n1", "-1", 0, "~n1" },
        { "clg", "cycles", "0", 0, "~cycles" },
        { "clg", "max_depth", "-2", 0,
          "parameter max_depth = -2 out of range (-1 <= max_depth <= 30)" },
        { "clg", "max_depth", "99999999999", 0, "~'99999999999'" },
        { "clg", "warp_levels", "101", 0, "~warp_levels" },
        { "clg", "warps", "0", 0, "~warps" },
        { "clg", "warp_scale", "1", 0, "parameter warp_scale = 1 out of range (0.5 <= warp_scale < 1)" },
        { "clg", "warp_scale", "0.3", 0, "~warp_scale = 0.3" },
        { "clg", "color", "2", 0, "~color" },
        { "clg", "alpha", "3x", 0, "~'3x'" },
        { "clg", "alpha", "abc", 0, "~'abc'" },
        { "clg", "alpha", "", 0, "~alpha" },
        /* unknown keys: a parameter of another method, or of none */
        { "clg", "tau", "1", 0, "method clg has no parameter 'tau'" },
        { "hs", "rho", "1.5", 0, "method hs has no parameter 'rho'" },
        { "lk", "alpha", "1", 0, "method lk has no parameter 'alpha'" },
        { "clg", "eps_d", "1", 0, "method clg has no parameter 'eps_d'" },
        { "lk", "solver", "v", 0, "method lk has no parameter 'solver'" },
        { "clg-nl", "method", "hs", 0, "method clg-nl has no parameter 'method'" },
        { "clg-nl", "alphaa", NULL, 1, "method clg-nl has no parameter 'alphaa'" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        flow_params *p = harness_params(bad[i].method, NULL);
        if (!p)
            continue;
        snapshot before, after;
        take(p, &before);
        const flow_status s = bad[i].text ? flow_params_set(p, bad[i].key, bad[i].text)
                                          : flow_params_set_number(p, bad[i].key, bad[i].number);
        const char *e = flow_last_error(), *m = bad[i].message;
        const int ok = s == FLOW_ERR_INVALID
                       && (m[0] == '~' ? strstr(e, m + 1) != NULL : strncmp(e, m, strlen(m)) == 0)
                       && strstr(e, bad[i].key) != NULL;
        if (!ok)
            fprintf(stderr, "    %s %s = %s: status %d, message '%s'\n", bad[i].method,
                    bad[i].key, bad[i].text ? bad[i].text : "(number)", (int)s, e);
        CHECK(ok);
        take(p, &after);
        CHECK(same(&before, &after));
        CHECK_OK(flow_params_validate(p));
        flow_params_destroy(p);
    }
    /* reading an unknown key fails too, and applies nowhere */
    flow_params *p = harness_params("clg", NULL);
    if (!p)
        return;
    char text[64];
    double v;
    CHECK(flow_params_get(p, "tau", text, sizeof text) == FLOW_ERR_INVALID);
    CHECK(strstr(flow_last_error(), "method clg has no parameter 'tau'") != NULL);
    CHECK(flow_params_get_number(p, "tau", &v) == FLOW_ERR_INVALID);
    CHECK(!flow_params_applies(p, "tau"));
    CHECK(flow_params_set(p, NULL, "1") == FLOW_ERR_INVALID);
    CHECK(flow_params_set(p, "alpha", NULL) == FLOW_ERR_INVALID);
    flow_params_destroy(p);
}

/* The accepted values at the edges of the ranges. */
static void test_range_edges(void)
{
    flow_params *lk = harness_params("lk", NULL), *clg = harness_params("clg", NULL);
    if (!lk || !clg) {
        flow_params_destroy(lk), flow_params_destroy(clg);
        return;
    }
    static const char *const odd[] = { "1", "3", "9", "97" };
    for (int i = 0; i < 4; i++)
        CHECK_OK(flow_params_set(lk, "window_size", odd[i]));
    CHECK_OK(flow_params_set(lk, "tau", "0"));
    CHECK_OK(flow_params_set(clg, "sigma", "0"));
    CHECK_OK(flow_params_set(clg, "sigma", "16"));
    CHECK_OK(flow_params_set(clg, "alpha", "1e12"));
    CHECK_OK(flow_params_set(clg, "omega", "1.9999999"));
    CHECK_OK(flow_params_set(clg, "jacobi_weight", "1"));
    CHECK_OK(flow_params_set(clg, "n1", "0"));
    CHECK_OK(flow_params_set(clg, "max_depth", "30"));
    CHECK_OK(flow_params_set(clg, "warp_levels", "12"));
    CHECK_OK(flow_params_set(clg, "warp_scale", "0.5"));
    CHECK_OK(flow_params_set(clg, "warp_scale", "0.75"));
    CHECK_OK(flow_params_set(clg, "warp_scale", "0.999"));
    CHECK_OK(flow_params_set(clg, "iterations", "10000000"));
    CHECK(flow_params_set(clg, "iterations", "10000001") == FLOW_ERR_INVALID);
    CHECK_OK(flow_params_validate(lk));
    CHECK_OK(flow_params_validate(clg));
    flow_params_destroy(lk), flow_params_destroy(clg);
}

/* The names of the choices, in the order of their numbers. */
static void test_choices(void)
{
    static const char *const solvers[] = { "jacobi", "rbsor", "v", "w", "cascadic", "fmg" };
    flow_params *p = harness_params("hs", NULL);
    if (!p)
        return;
    const flow_param_info *in = flow_method_param_find("hs", "solver");
    for (int i = 0; i < 6; i++) {
        CHECK(in && in->choices[i] && strcmp(in->choices[i], solvers[i]) == 0);
        double v = -1;
        char text[32];
        CHECK_OK(flow_params_set(p, "solver", solvers[i]));
        CHECK_OK(flow_params_get_number(p, "solver", &v));
        CHECK(v == i);
        CHECK_OK(flow_params_set_number(p, "solver", i));
        CHECK_OK(flow_params_get(p, "solver", text, sizeof text));
        CHECK(strcmp(text, solvers[i]) == 0);
    }
    CHECK(in && in->choices[6] == NULL);
    const flow_param_info *sm = flow_method_param_find("hs", "smoother");
    CHECK(sm && strcmp(sm->choices[0], "jacobi") == 0 && strcmp(sm->choices[1], "rbsor") == 0
          && sm->choices[2] == NULL);
    CHECK_OK(flow_params_set(p, "smoother", "rbsor"));
    CHECK(flow_params_set(p, "smoother", "v") == FLOW_ERR_INVALID);
    CHECK(flow_params_set(p, "solver", "V") == FLOW_ERR_INVALID); /* names are exact */
    flow_params_destroy(p);
    p = harness_params("lk", "window=box");
    if (!p)
        return;
    double v = -1;
    CHECK_OK(flow_params_get_number(p, "window", &v));
    CHECK(v == 1);
    flow_params_destroy(p);
}

/* Names belong to their method: two methods list different parameters. */
static void test_method_lists(void)
{
    CHECK(flow_method_param_find("lk", "tau") != NULL);
    CHECK(flow_method_param_find("clg", "tau") == NULL);
    CHECK(flow_method_param_find("clg", "rho") != NULL && flow_method_param_find("hs", "rho") == NULL);
    static const char *const only_nl[] = { "nonlinear_data", "nonlinear_smooth", "eps_d", "eps_s" };
    for (int i = 0; i < 4; i++) {
        CHECK(flow_method_param_find("clg-nl", only_nl[i]) != NULL);
        for (int m = 0; m < 3; m++)
            CHECK(flow_method_param_find(methods[m], only_nl[i]) == NULL);
    }
    /* the lists, as counted from the schemas */
    const int n[NMETHODS] = { count_params("lk"), count_params("hs"), count_params("clg"),
                              count_params("clg-nl") };
    printf("    parameters: lk %d, hs %d, clg %d, clg-nl %d\n", n[0], n[1], n[2], n[3]);
    CHECK(n[0] == 7 && n[1] == 16 && n[2] == 17 && n[3] == 21);
    /* a .params key of another method names that method */
    flow_params *p = harness_params("clg", NULL);
    if (!p)
        return;
    const char *path = harness_path("other.params");
    write_text(path, "tau,3\n");
    CHECK(flow_params_read(path, &p) == FLOW_ERR_INVALID);
    CHECK(strstr(flow_last_error(), "unknown key 'tau' for method clg") != NULL);
    CHECK(strstr(flow_last_error(), "a parameter of method lk") != NULL);
    flow_params_destroy(p);
}

/* flow_params_applies: whether a parameter has an effect under the others. */
static void test_applies(void)
{
    flow_params *p = harness_params("lk", NULL);
    if (p) {
        CHECK(!flow_params_applies(p, "window_size")); /* gauss */
        CHECK(flow_params_applies(p, "rho"));
        CHECK(flow_params_applies(p, "tau") && flow_params_applies(p, "sigma"));
        CHECK_OK(flow_params_set(p, "window", "box"));
        CHECK(flow_params_applies(p, "window_size"));
        CHECK(!flow_params_applies(p, "rho"));
        CHECK(!flow_params_applies(p, "alpha")); /* not lk's */
        flow_params_destroy(p);
    }
    p = harness_params("clg", NULL); /* fmg, smoother jacobi */
    if (!p)
        return;
    CHECK(!flow_params_applies(p, "omega"));
    CHECK(flow_params_applies(p, "jacobi_weight"));
    CHECK(!flow_params_applies(p, "iterations"));
    CHECK(flow_params_applies(p, "n0") && flow_params_applies(p, "cycles"));
    CHECK(flow_params_applies(p, "smoother") && flow_params_applies(p, "max_depth"));
    CHECK(!flow_params_applies(p, "warps") && !flow_params_applies(p, "warp_scale"));
    CHECK(flow_params_applies(p, "warp_levels"));
    CHECK_OK(flow_params_set(p, "smoother", "rbsor")); /* fmg with SOR as smoother */
    CHECK(flow_params_applies(p, "omega"));
    CHECK(!flow_params_applies(p, "jacobi_weight"));
    CHECK_OK(flow_params_set(p, "solver", "rbsor")); /* SOR alone */
    CHECK(flow_params_applies(p, "omega") && flow_params_applies(p, "iterations"));
    CHECK(!flow_params_applies(p, "smoother") && !flow_params_applies(p, "n0"));
    CHECK(!flow_params_applies(p, "cycles") && !flow_params_applies(p, "max_depth"));
    CHECK_OK(flow_params_set(p, "solver", "jacobi")); /* the smoother is no matter */
    CHECK(!flow_params_applies(p, "omega"));
    CHECK(flow_params_applies(p, "jacobi_weight") && flow_params_applies(p, "iterations"));
    CHECK_OK(flow_params_set(p, "solver", "cascadic"));
    CHECK(flow_params_applies(p, "iterations") && flow_params_applies(p, "omega"));
    CHECK(!flow_params_applies(p, "n0") && !flow_params_applies(p, "cycles"));
    CHECK(flow_params_applies(p, "max_depth"));
    CHECK_OK(flow_params_set(p, "solver", "v"));
    CHECK(flow_params_applies(p, "cycles") && !flow_params_applies(p, "iterations"));
    CHECK_OK(flow_params_set(p, "warp_levels", "2"));
    CHECK(flow_params_applies(p, "warps") && flow_params_applies(p, "warp_scale"));
    CHECK(!flow_params_applies(p, "eps_d")); /* clg-nl's */
    flow_params_destroy(p);
    p = harness_params("clg-nl", NULL);
    if (!p)
        return;
    CHECK(flow_params_applies(p, "eps_d") && flow_params_applies(p, "eps_s"));
    CHECK_OK(flow_params_set(p, "nonlinear_data", "0"));
    CHECK(!flow_params_applies(p, "eps_d") && flow_params_applies(p, "eps_s"));
    CHECK_OK(flow_params_set(p, "nonlinear_smooth", "0"));
    CHECK(!flow_params_applies(p, "eps_s"));
    CHECK(flow_params_applies(p, "alpha"));
    flow_params_destroy(p);
}

/* ---- numbers from text: one rule for options, parameters and files ---- */

static void test_parse_numbers(void)
{
    /* want 0 with ok: the double strtod gives for the text (its own spelling) */
    static const struct {
        const char *text;
        int ok;
        double want;
    } reals[] = {
        { "1.5", 1, 1.5 }, { "-0", 1, 0 }, { "0e-400", 1, 0 }, { "+2e3", 1, 2000 },
        { "0x1p-3", 1, 0.125 }, { "1e-320", 1, 0 }, { "4.9406564584124654e-324", 1, 0 },
        { "1.7976931348623157e308", 1, 0 },
        { "1e-400", 0, 0 }, { "-1e-400", 0, 0 }, { "2.4703282292062327e-324", 0, 0 },
        { "1e400", 0, 0 }, { "inf", 0, 0 }, { "-infinity", 0, 0 }, { "nan", 0, 0 },
        { "", 0, 0 }, { " 1", 0, 0 }, { "1 ", 0, 0 }, { "1,5", 0, 0 }, { "abc", 0, 0 },
        { "1e", 0, 0 },
    };
    for (size_t i = 0; i < sizeof reals / sizeof reals[0]; i++) {
        double x = -7;
        const flow_status s = flow_parse_real(reals[i].text, &x);
        const double want = reals[i].want != 0 ? reals[i].want : strtod(reals[i].text, NULL);
        const int ok = reals[i].ok ? s == FLOW_OK && memcmp(&x, &want, sizeof x) == 0
                                   : s == FLOW_ERR_INVALID && x == -7 &&
                                         strstr(flow_last_error(), reals[i].text) != NULL;
        if (!ok)
            fprintf(stderr, "    real '%s': status %d, %.17g, '%s'\n", reals[i].text, (int)s, x,
                    flow_last_error());
        CHECK(ok);
    }
    double tiny = 0;
    CHECK_OK(flow_parse_real("4.9406564584124654e-324", &tiny));
    CHECK(tiny > 0 && tiny < 1e-323);
    CHECK(flow_parse_real(NULL, &tiny) == FLOW_ERR_INVALID);
    CHECK(flow_parse_real("1e-400", &tiny) == FLOW_ERR_INVALID &&
          strstr(flow_last_error(), "rounds to 0") != NULL);

    static const struct {
        const char *text;
        int ok;
        long want;
    } ints[] = {
        { "17", 1, 17 }, { "-1", 1, -1 }, { "+4", 1, 4 }, { "0", 1, 0 },
        { "9223372036854775807", 1, 9223372036854775807L },
        { "9223372036854775808", 0, 0 }, { "1.0", 0, 0 }, { "1e3", 0, 0 }, { "0x10", 0, 0 },
        { " 1", 0, 0 }, { "1 ", 0, 0 }, { "", 0, 0 }, { "-", 0, 0 },
    };
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        long n = -7;
        const flow_status s = flow_parse_integer(ints[i].text, &n);
        const int ok = ints[i].ok ? s == FLOW_OK && n == ints[i].want
                                  : s == FLOW_ERR_INVALID && n == -7 &&
                                        strstr(flow_last_error(), "is not an integer") != NULL;
        if (!ok)
            fprintf(stderr, "    integer '%s': status %d, %ld, '%s'\n", ints[i].text, (int)s, n,
                    flow_last_error());
        CHECK(ok);
    }
    /* a parameter follows the same rule: what flow_parse_real refuses,
     * flow_params_set refuses, naming the parameter */
    flow_params *p = harness_params("clg", NULL);
    if (!p)
        return;
    for (size_t i = 0; i < sizeof reals / sizeof reals[0]; i++) {
        double x;
        if (flow_parse_real(reals[i].text, &x) == FLOW_OK)
            continue;
        CHECK(flow_params_set(p, "sigma", reals[i].text) == FLOW_ERR_INVALID);
        CHECK(strncmp(flow_last_error(), "sigma: ", 7) == 0);
    }
    flow_params_destroy(p);
}

/* ---- .params files ---- */

/* A value of parameter `in` other than its default, and in range: for
 * reals one whose decimal form needs all 17 digits where the range allows
 * (1/3, 1e-320, ...). */
static void odd_value(flow_params *p, const flow_param_info *in, int salt)
{
    const double reals[] = { 1.0 / 3.0, 1e-320, 0.1 + 1e-17, 12345.678901234567,
                             1.2345678901234567, 7.0 / 3.0 * 1e-3 };
    const int nreals = (int)(sizeof reals / sizeof reals[0]);
    switch (in->type) {
    case FLOW_PARAM_REAL:
        for (int k = 0; k < nreals; k++)
            if (reals[(k + salt) % nreals] != in->def
                && flow_params_set_number(p, in->name, reals[(k + salt) % nreals]) == FLOW_OK)
                return;
        /* a narrow range (warp_scale): the golden section of it */
        CHECK_OK(flow_params_set_number(p, in->name,
                                        in->min + (in->max - in->min) * 0.6180339887498949));
        return;
    case FLOW_PARAM_INT: {
        /* inside the range, however narrow (median: 0..2) */
        const int lo = (int)in->min, span = (int)fmin(in->max - in->min + 1, 1e6);
        int v = lo + (2 + salt % 5) % span;
        if ((in->flags & FLOW_PARAM_ODD) && v % 2 == 0)
            v++;
        if (v == (int)in->def)
            v = span > 2 ? lo + (v - lo + 2) % span : lo + (v - lo + 1) % span;
        CHECK_OK(flow_params_set_number(p, in->name, v));
        return;
    }
    case FLOW_PARAM_BOOL:
        CHECK_OK(flow_params_set_number(p, in->name, 1 - in->def));
        return;
    case FLOW_PARAM_CHOICE: {
        int n = 0;
        while (in->choices[n])
            n++;
        CHECK_OK(flow_params_set_number(p, in->name, in->def == n - 1 ? 0 : n - 1));
        return;
    }
    }
}

/* For every method: every parameter set off its default, written, read back
 * into parameters of another method: the same method and values, bit for
 * bit, but for the parameters without effect under the others, which come
 * back at their defaults (the reader refuses another value there); the
 * comment is there as '#' lines, then method and one line per parameter. */
static void test_file_round_trip(void)
{
    for (int m = 0; m < NMETHODS; m++) {
        flow_params *p = harness_params(methods[m], NULL);
        flow_params *q = harness_params(m ? "lk" : "hs", "sigma=5");
        if (!p || !q) {
            flow_params_destroy(p), flow_params_destroy(q);
            continue;
        }
        const flow_param_info *in;
        for (int i = 0; (in = flow_method_param(methods[m], i)); i++)
            odd_value(p, in, i);
        snapshot want, got, defaults;
        take(p, &want);
        flow_params *d = harness_params(methods[m], NULL);
        if (d)
            take(d, &defaults);
        flow_params_destroy(d);
        int changed = 0, idle = 0;
        for (int i = 0; i < want.n; i++)
            changed += strcmp(want.text[i], defaults.text[i]) != 0;
        CHECK(changed == want.n); /* every value off its default */
        const flow_params *const set = p;
        for (int i = 0; i < want.n; i++)
            if (!flow_params_applies(set, want.key[i])) {
                snprintf(want.text[i], sizeof want.text[i], "%s", defaults.text[i]);
                want.num[i] = defaults.num[i];
                idle++;
            }
        const char *path = harness_path("round.params");
        CHECK_OK(flow_params_write(path, p, "written by test_params\nsecond line"));
        CHECK_OK(flow_params_read(path, &q));
        take(q, &got);
        CHECK(same(&want, &got));
        printf("    %-6s %2d parameters written and read back%s (%d without effect: "
               "at their defaults)\n", methods[m], want.n,
               same(&want, &got) ? " bit for bit" : ": DIFFERENT", idle);
        /* the file: the comment, the method, one line per parameter */
        size_t n = 0;
        char *text = (char *)harness_read_file(path, &n);
        CHECK(text != NULL);
        if (text) {
            char first[64];
            snprintf(first, sizeof first, "# written by test_params\n# second line\nmethod,%s\n",
                     methods[m]);
            CHECK(strncmp(text, first, strlen(first)) == 0);
            int lines = 0;
            for (size_t i = 0; i < n; i++)
                lines += text[i] == '\n';
            CHECK(lines == 3 + want.n);
            /* sigma = 1/3 (the first value tried), in the 16 digits that
             * read back (%.17g wrote 0.33333333333333331); tvl1 has no sigma */
            if (flow_method_param_find(methods[m], "sigma"))
                CHECK(strstr(text, "\nsigma,0.3333333333333333\n") != NULL);
        }
        free(text);
        /* writing from the read object gives the same file */
        const char *path2 = harness_path("round2.params");
        CHECK_OK(flow_params_write(path2, q, "written by test_params\nsecond line"));
        size_t n2 = 0;
        char *text2 = (char *)harness_read_file(path2, &n2);
        text = (char *)harness_read_file(path, &n);
        CHECK(text && text2 && n == n2 && memcmp(text, text2, n) == 0);
        free(text), free(text2);
        flow_params_destroy(p);
        flow_params_destroy(q);
    }
}

/* Underflowing reals (subnormal doubles) go through a file unchanged. */
static void test_file_subnormal(void)
{
    flow_params *p = harness_params("clg-nl", "alpha=1e-320 eps_d=4.9406564584124654e-324");
    flow_params *q = NULL;
    if (!p)
        return;
    const char *path = harness_path("tiny.params");
    CHECK_OK(flow_params_write(path, p, NULL));
    CHECK_OK(flow_params_read(path, &q));
    double a = 0, e = 0;
    const double want_a = strtod("1e-320", NULL), want_e = strtod("4.9406564584124654e-324", NULL);
    if (q) {
        CHECK_OK(flow_params_get_number(q, "alpha", &a));
        CHECK_OK(flow_params_get_number(q, "eps_d", &e));
    }
    CHECK(a > 0 && memcmp(&a, &want_a, sizeof a) == 0);
    CHECK(e > 0 && memcmp(&e, &want_e, sizeof e) == 0);
    /* no comment given: the file starts with the method */
    size_t n = 0;
    char *text = (char *)harness_read_file(path, &n);
    CHECK(text && strncmp(text, "method,clg-nl\n", 14) == 0);
    free(text);
    flow_params_destroy(p);
    flow_params_destroy(q);
}

/* A file naming its method starts from that method's defaults; one without
 * a method line applies on top of the given parameters (of the default
 * method when none are given); comments, blank lines, spaces and CRLF are
 * allowed. */
static void test_file_defaults_and_syntax(void)
{
    const char *path = harness_path("short.params");
    write_text(path, "# nonlinear CLG, a different alpha\n\n  method , clg-nl  # the method\n"
                     "alpha,7\r\nsolver,v\n");
    flow_params *p = harness_params("lk", "sigma=5"); /* replaced by clg-nl's defaults */
    flow_params *want = harness_params("clg-nl", "alpha=7 solver=v");
    if (!p || !want) {
        flow_params_destroy(p), flow_params_destroy(want);
        return;
    }
    CHECK_OK(flow_params_read(path, &p));
    snapshot a, b;
    take(p, &a), take(want, &b);
    CHECK(same(&a, &b));
    /* without a method line, keys apply on top of p */
    write_text(path, "sigma,2.5\n");
    CHECK_OK(flow_params_read(path, &p));
    CHECK_OK(flow_params_set(want, "sigma", "2.5"));
    take(p, &a), take(want, &b);
    CHECK(same(&a, &b));
    /* ... of any method */
    flow_params *lk = harness_params("lk", "window=box");
    write_text(path, "window_size,11\ntau,0.5\n");
    if (lk) {
        CHECK_OK(flow_params_read(path, &lk));
        CHECK(strcmp(flow_params_method(lk), "lk") == 0);
        char text[32] = "";
        double ws = 0;
        CHECK_OK(flow_params_get(lk, "window", text, sizeof text));
        CHECK_OK(flow_params_get_number(lk, "window_size", &ws));
        CHECK(strcmp(text, "box") == 0 && ws == 11);
    }
    flow_params_destroy(lk);
    /* no parameters given: the default method's defaults */
    flow_params *none = NULL;
    write_text(path, "sigma,2.5\n");
    CHECK_OK(flow_params_read(path, &none));
    flow_params *def = harness_params(NULL, "sigma=2.5");
    if (none && def) {
        CHECK(strcmp(flow_params_method(none), flow_method_default()) == 0);
        take(none, &a), take(def, &b);
        CHECK(same(&a, &b));
    }
    flow_params_destroy(none), flow_params_destroy(def);
    /* an empty file (comments only) changes nothing */
    write_text(path, "# nothing\n\n   \n");
    take(p, &a);
    CHECK_OK(flow_params_read(path, &p));
    take(p, &b);
    CHECK(same(&a, &b));
    /* a method line resets even the method's own values */
    write_text(path, "method,clg-nl\n");
    CHECK_OK(flow_params_read(path, &p));
    flow_params *fresh = harness_params("clg-nl", NULL);
    if (fresh) {
        take(p, &a), take(fresh, &b);
        CHECK(same(&a, &b));
    }
    flow_params_destroy(fresh);
    flow_params_destroy(p);
    flow_params_destroy(want);
}

/* Every bad file fails with file:line and the offending text, and leaves *p
 * as it was (the same object, the same values). */
static void test_file_errors(void)
{
    static const struct {
        const char *text, *expect1, *expect2;
    } cases[] = {
        { "method,hs\nalphaa,3\n", ":2:", "alphaa" },
        { "method,hs\nalpha 3\n", ":2:", "alpha 3" },
        { "alpha,abc\n", ":1:", "abc" },
        { "alpha,3x\n", ":1:", "3x" },
        { "alpha,-4\n", ":1:", "parameter alpha = -4 out of range (0 < alpha <= 1e+12)" },
        { "# ok\nmethod,hs\nrho,2\n", ":3:", "unknown key 'rho' for method hs" },
        { "sigma,1\nsigma,2\n", ":2:", "repeated" },
        { "method,clg\nsigma,1\nmethod,hs\n", ":3:", "repeated" },
        { "method,foo\n", ":1:", "foo" },
        { "method,hs\nmethod_,hs\n", ":2:", "method_" },
        { "solver,fmg,v\n", ":1:", "fmg,v" },
        { "window_size,5\n", ":1:", "unknown key 'window_size' for method clg" },
        { "method,lk\n\nwindow_size,4\n", ":3:", "window_size = 4" },
        { "smoother,fmg\n", ":1:", "smoother" },
        { "iterations,1e3\n", ":1:", "1e3" },
        { "alpha,\n", ":1:", "alpha" },
        { ",3\n", ":1:", "''" },
        { "max_depth,99999999999\n", ":1:", "99999999999" },
        { "omega,inf\n", ":1:", "inf" },
        { "warp_scale,1\n", ":1:", "warp_scale" },
        { "tau,1\n", ":1:", "tau" },
        { "sigma,1\nsigma\n", ":2:", "sigma" },
        { "alpha,1e-400\n", ":1:", "alpha" },
    };
    const char *path = harness_path("bad.params");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_text(path, cases[i].text);
        flow_params *p = harness_params("clg", "alpha=123 solver=w");
        if (!p)
            continue;
        flow_params *const before_ptr = p;
        snapshot before, after;
        take(p, &before);
        CHECK(flow_params_read(path, &p) == FLOW_ERR_INVALID);
        const char *e = flow_last_error();
        const int ok = strstr(e, "bad.params") && strstr(e, cases[i].expect1)
                       && strstr(e, cases[i].expect2);
        if (!ok)
            fprintf(stderr, "    case %zu: message '%s'\n", i, e);
        CHECK(ok);
        CHECK(p == before_ptr);
        take(p, &after);
        CHECK(same(&before, &after));
        flow_params_destroy(p);
    }
    flow_params *p = harness_params("clg", NULL), *none = NULL;
    if (!p)
        return;
    CHECK(flow_params_read(harness_path("missing.params"), &p) == FLOW_ERR_IO);
    CHECK(strstr(flow_last_error(), "missing.params") != NULL);
    CHECK(flow_params_read(harness_path("missing.params"), &none) == FLOW_ERR_IO && !none);
    write_text(path, "alpha,-4\n");
    CHECK(flow_params_read(path, &none) == FLOW_ERR_INVALID && !none);
    /* a line too long to be a parameter */
    char *big = malloc(5000);
    memset(big, 'a', 4999);
    big[4999] = '\0';
    write_text(path, big);
    CHECK(flow_params_read(path, &p) == FLOW_ERR_INVALID);
    CHECK(strstr(flow_last_error(), ":1:") != NULL);
    free(big);
    /* a file that cannot be written: an error naming it, nothing left */
    CHECK(flow_params_write(harness_path("no/such/dir/x.params"), p, NULL) != FLOW_OK);
    CHECK(strstr(flow_last_error(), "x.params") != NULL);
    flow_params_destroy(p);
}

/* The shipped parameter files (run from the repository root) are valid, and
 * params/<method>.params hold the method's defaults (docs/PARAMETERS.md). */
static void test_shipped_params(void)
{
    DIR *dir = opendir("params");
    if (!dir) {
        harness_skip("no params/ directory here");
        return;
    }
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dir))) {
        const size_t len = strlen(e->d_name);
        if (len < 8 || strcmp(e->d_name + len - 7, ".params") != 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "params/%s", e->d_name);
        flow_params *p = harness_params("clg", NULL);
        if (!p)
            continue;
        const flow_status s = flow_params_read(path, &p);
        if (s != FLOW_OK)
            fprintf(stderr, "    %s: %s\n", path, flow_last_error());
        CHECK(s == FLOW_OK);
        CHECK_OK(flow_params_validate(p));
        /* <method>.params: the defaults, written out */
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(len - 7), e->d_name);
        if (s == FLOW_OK && flow_method_exists(name)) {
            flow_params *def = harness_params(name, NULL);
            snapshot a, b;
            take(p, &a);
            if (def) {
                take(def, &b);
                if (!same(&a, &b))
                    fprintf(stderr, "    %s is not the defaults of %s\n", path, name);
                CHECK(same(&a, &b));
            }
            flow_params_destroy(def);
        }
        flow_params_destroy(p);
        n++;
    }
    closedir(dir);
    printf("    %d files in params/\n", n);
    CHECK(n >= 4);
}

/* Significant digits of a %g text, its zeros at either end left out
 * ("0.0125" 3, "400" 1, "1e+20" 1, "-0" 1). */
static int significant_digits(const char *text)
{
    char d[64];
    int n = 0;
    for (const char *c = text; *c && *c != 'e' && n < 63; c++)
        if (*c >= '0' && *c <= '9')
            d[n++] = *c;
    int first = 0;
    while (first < n && d[first] == '0')
        first++;
    while (n > first && d[n - 1] == '0')
        n--;
    return n > first ? n - first : 1;
}

/* Reals are written as the shortest text that reads back bit for bit: the
 * text reads back, and one significant digit fewer would not. */
static void test_format_real(void)
{
    static const struct {
        double x;
        const char *text;
    } known[] = {
        { 0.1, "0.1" }, { 1.0 / 3.0, "0.3333333333333333" }, { 0.1 + 0.2, "0.30000000000000004" },
        { -0.0, "-0" }, { 1e12, "1000000000000" }, { 1e20, "1e+20" }, { 1.5e-5, "1.5e-05" },
        { 1e-320, "1e-320" }, { 4.9406564584124654e-324, "5e-324" }, { 1.5, "1.5" }, { 400, "400" },
        { 1234567.5, "1234567.5" },
    };
    char text[64];
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        CHECK_OK(flow_format_real(known[i].x, text, sizeof text));
        if (strcmp(text, known[i].text) != 0)
            fprintf(stderr, "    %.17g written '%s', not '%s'\n", known[i].x, text, known[i].text);
        CHECK(strcmp(text, known[i].text) == 0);
    }
    /* doubles of every magnitude, from their bits (a fixed LCG) */
    unsigned long long bits = 88172645463325252ULL;
    int tried = 0, shortest = 0;
    for (int i = 0; i < 20000; i++) {
        bits = bits * 6364136223846793005ULL + 1442695040888963407ULL;
        double x;
        memcpy(&x, &bits, sizeof x);
        if (!isfinite(x))
            continue;
        tried++;
        CHECK_OK(flow_format_real(x, text, sizeof text));
        const double back = strtod(text, NULL);
        CHECK(memcmp(&back, &x, sizeof x) == 0);
        const int d = significant_digits(text);
        char fewer[400];
        snprintf(fewer, sizeof fewer, "%.*e", d - 2, x);
        const double short_back = strtod(fewer, NULL);
        const int is_shortest = d == 1 || memcmp(&short_back, &x, sizeof x) != 0;
        if (!is_shortest)
            fprintf(stderr, "    %.17g written '%s', but '%s' reads back\n", x, text, fewer);
        shortest += is_shortest;
    }
    CHECK(shortest == tried);
    printf("    %d doubles: each read back bit for bit from the shortest text\n", tried);
    /* too small a buffer: refused, nothing half written */
    CHECK(flow_format_real(1.0 / 3.0, text, 5) == FLOW_ERR_INVALID && text[0] == '\0');
    /* the .params text: 0.1 as "0.1" (%.17g wrote 0.10000000000000001) */
    flow_params *p = harness_params("hs", "alpha=0.1");
    if (p) {
        CHECK_OK(flow_params_get(p, "alpha", text, sizeof text));
        CHECK(strcmp(text, "0.1") == 0);
    }
    flow_params_destroy(p);
}

/* A parameter without effect under the file's other values is refused with
 * file:line, as flow-compute refuses its option; at its default (what the
 * writer writes for it) it is accepted, and so is the same value where the
 * file's other lines give it an effect, in any order. */
static void test_file_without_effect(void)
{
    const char *path = harness_path("idle.params");
    flow_params *p = harness_params("hs", NULL);
    if (!p)
        return;
    flow_params *const before = p;
    write_text(path, "method,hs\n# SOR's relaxation, but the solver is hs's default\nomega,1.5\n");
    CHECK(flow_params_read(path, &p) == FLOW_ERR_INVALID && p == before);
    const char *e = flow_last_error();
    const int ok = strstr(e, "idle.params:3: omega,1.5 has no effect here: it applies with solver "
                             "rbsor") != NULL;
    if (!ok)
        fprintf(stderr, "    message '%s'\n", e);
    CHECK(ok);
    const flow_param_info *omega = flow_method_param_find("hs", "omega");
    char line[128], value[64];
    CHECK(omega && flow_format_real(omega->def, value, sizeof value) == FLOW_OK);
    snprintf(line, sizeof line, "method,hs\nomega,%s\n", value);
    write_text(path, line);
    CHECK_OK(flow_params_read(path, &p));
    write_text(path, "method,hs\nomega,1.5\nsolver,rbsor\n");
    CHECK_OK(flow_params_read(path, &p));
    double w = 0;
    CHECK_OK(flow_params_get_number(p, "omega", &w));
    CHECK(w == 1.5);
    /* a file over the caller's parameters: the caller's solver counts */
    write_text(path, "omega,1.25\n");
    CHECK_OK(flow_params_read(path, &p)); /* p's solver is rbsor */
    CHECK_OK(flow_params_set(p, "solver", "jacobi"));
    CHECK(flow_params_read(path, &p) == FLOW_ERR_INVALID);
    CHECK(strstr(flow_last_error(), "idle.params:1: omega,1.25 has no effect") != NULL);
    flow_params_destroy(p);
}

int main(void)
{
    RUN(test_registry);
    RUN(test_defaults_documented);
    RUN(test_set_get_round_trip);
    RUN(test_parse_numbers);
    RUN(test_range_errors);
    RUN(test_range_edges);
    RUN(test_choices);
    RUN(test_method_lists);
    RUN(test_applies);
    RUN(test_file_round_trip);
    RUN(test_file_subnormal);
    RUN(test_file_defaults_and_syntax);
    RUN(test_format_real);
    RUN(test_file_errors);
    RUN(test_file_without_effect);
    RUN(test_shipped_params);
    return harness_report();
}
