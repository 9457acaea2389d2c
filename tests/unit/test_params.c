/* test_params.c -- the methods' parameter schemas (flow/params.h): the
 * registry, every method's defaults against docs/PARAMETERS.md, setting and
 * reading back by text and by number, range errors and their messages,
 * choices, unknown keys, the conditions under which a parameter applies,
 * and former names still read.  .params files: test_params_file.c;
 * numbers from text and back: test_numbers.c. */
#include "params_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the registry ---- */

static void test_registry(void)
{
    CHECK(nmethods > 0 && nmethods < METHODS_MAX);
    for (int i = 0; i < nmethods; i++) {
        CHECK(flow_method_exists(methods[i]));
        CHECK(flow_method_title(methods[i]) && flow_method_title(methods[i])[0]);
        for (int j = 0; j < i; j++)
            CHECK(strcmp(methods[i], methods[j]) != 0);
    }
    CHECK(flow_method_at(nmethods) == NULL);
    CHECK(flow_method_at(-1) == NULL);
    CHECK(strcmp(flow_method_default(), "robust") == 0);
    CHECK(!flow_method_exists("horn") && !flow_method_exists(NULL));
    CHECK(flow_method_title("horn") == NULL);
    CHECK(flow_method_param("horn", 0) == NULL);
    CHECK(flow_method_param_find("horn", "alpha") == NULL);
    CHECK(flow_method_param("clg", -1) == NULL);
    /* every parameter is described */
    for (int m = 0; m < nmethods; m++) {
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
    /* the message lists the registry's methods: "lk, hs, ... or tvl1" */
    char list[1024] = "";
    for (int i = 0; i < nmethods; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                 i == 0 ? "" : i == nmethods - 1 ? " or " : ", ", methods[i]);
    CHECK(strstr(flow_last_error(), list) != NULL);
    flow_params_destroy(NULL); /* harmless */
}

/* ---- defaults: docs/PARAMETERS.md, "The parameters" ---- */

/* The methods of the documentation's tables, in their order; every method
 * of the registry must be among them. */
#define NDOC_METHODS 9
static const char *const doc_methods[NDOC_METHODS] = { "lk", "hs", "clg", "clg-nl",
                                                       "robust", "plk", "dis", "tvl1",
                                                       "epic" };

/* One row of the table: the default per method, NULL where the method has
 * no such parameter ("-" in the table). */
typedef struct doc_row {
    const char *key;
    const char *def[NDOC_METHODS]; /* in the order of doc_methods */
} doc_row;

static const doc_row doc[] = {
    { "sigma", { "1.5", "1.5", "1.5", "1.5", "0.8", "1", "0", NULL, "0.8" } },
    { "rho", { "4", NULL, "1", "1", "0", NULL, NULL } },
    { "alpha", { NULL, "400", "400", "10", "4", NULL, "2.5", NULL, "4" } },
    { "nonlinear_data", { NULL, NULL, NULL, "1", NULL, NULL, NULL } },
    { "nonlinear_smooth", { NULL, NULL, NULL, "1", NULL, NULL, NULL } },
    { "eps_data", { NULL, NULL, NULL, "1", "0.1", NULL, "0.1", NULL, "0.1" } },
    { "eps_s", { NULL, NULL, NULL, "0.01", "0.01", NULL, "0.01", NULL, "0.01" } },
    { "edge", { NULL, NULL, NULL, NULL, "30", NULL, NULL, NULL, "2" } },
    { "window", { "gauss", NULL, NULL, NULL, NULL, NULL, NULL } },
    { "window_size", { "7", NULL, NULL, NULL, NULL, NULL, NULL } },
    { "tau", { "0", NULL, NULL, NULL, NULL, "0", NULL, "0.25" } },
    { "fill_unknown", { "0", NULL, NULL, NULL, NULL, "1", NULL } },
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
    { "warp_levels", { NULL, "0", "0", "0", "100", NULL, NULL } },
    { "warps", { NULL, "1", "1", "1", "3", NULL, NULL, "5", "3" } },
    { "warp_scale", { NULL, "0.5", "0.5", "0.5", "0.8", NULL, NULL } },
    { "warp_fine", { NULL, NULL, NULL, NULL, "3", NULL, NULL } },
    { "gamma", { NULL, NULL, NULL, NULL, "1", NULL, "1", NULL, "1" } },
    { "normalise", { NULL, NULL, NULL, NULL, "1", NULL, NULL } },
    { "zero_mean", { NULL, NULL, NULL, NULL, NULL, "0", "1" } },
    { "zeta", { NULL, NULL, NULL, NULL, "1", NULL, NULL } },
    { "texture", { NULL, NULL, NULL, NULL, "0", NULL, NULL } },
    { "texture_sigma", { NULL, NULL, NULL, NULL, "4", NULL, NULL } },
    { "median", { NULL, NULL, NULL, NULL, "2", NULL, NULL, NULL, "2" } },
    { "median_sigma_c", { NULL, NULL, NULL, NULL, "10", NULL, NULL } },
    { "median_sigma_s", { NULL, NULL, NULL, NULL, "2", NULL, NULL } },
    { "median_occ_d", { NULL, NULL, NULL, NULL, "0.3", NULL, NULL } },
    { "median_occ_e", { NULL, NULL, NULL, NULL, "20", NULL, NULL } },
    { "median_each", { NULL, NULL, NULL, NULL, "0", NULL, NULL } },
    { "occ_d", { NULL, NULL, NULL, NULL, "0", NULL, NULL } },
    { "occ_e", { NULL, NULL, NULL, NULL, "0", NULL, NULL } },
    { "previous", { NULL, NULL, NULL, NULL, "0", NULL, NULL } },
    { "previous_tol", { NULL, NULL, NULL, NULL, "0.3", NULL, NULL } },
    { "sor_below", { NULL, NULL, NULL, NULL, "60000", NULL, NULL } },
    { "sor_sweeps", { NULL, NULL, NULL, NULL, "10", NULL, NULL } },
    { "sor_omega", { NULL, NULL, NULL, NULL, "1.8", NULL, NULL } },
    { "bicubic", { NULL, NULL, NULL, NULL, "1", "1", NULL } },
    { "patch", { NULL, NULL, NULL, NULL, NULL, "8", "8" } },
    { "affine", { NULL, NULL, NULL, NULL, NULL, "1", NULL, NULL, "0" } },
    { "levels", { NULL, NULL, NULL, NULL, NULL, "5", NULL, NULL, "5" } },
    { "scale", { NULL, NULL, NULL, NULL, NULL, "0.5", NULL } },
    { "preset", { NULL, NULL, NULL, NULL, NULL, NULL, "medium" } },
    { "finest", { NULL, NULL, NULL, NULL, NULL, NULL, "-1" } },
    { "stride", { NULL, NULL, NULL, NULL, NULL, NULL, "-1" } },
    { "patch_iterations", { NULL, NULL, NULL, NULL, NULL, NULL, "-1" } },
    { "refine", { NULL, NULL, NULL, NULL, NULL, NULL, "-1" } },
    { "lambda", { NULL, NULL, NULL, NULL, NULL, NULL, NULL, "0.15" } },
    { "theta", { NULL, NULL, NULL, NULL, NULL, NULL, NULL, "0.3" } },
    { "nscales", { NULL, NULL, NULL, NULL, NULL, NULL, NULL, "5" } },
    { "scale_step", { NULL, NULL, NULL, NULL, NULL, NULL, NULL, "0.8" } },
    { "outer_iterations", { NULL, NULL, NULL, NULL, NULL, NULL, NULL, "10" } },
    { "median_filtering", { NULL, NULL, NULL, NULL, NULL, NULL, NULL, "5" } },
    { "epsilon", { NULL, NULL, NULL, NULL, NULL, NULL, NULL, "0.01" } },
    { "match_level", { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "1" } },
    { "step", { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "3" } },
    { "match_iterations", { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "4" } },
    { "match_radius", { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "4" } },
    { "subpixel", { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "1" } },
    { "census_thresh", { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "1" } },
    { "fb_tol", { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "2" } },
    { "min_texture", { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "1" } },
    { "edge_gain", { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "20" } },
    { "geo_sigma", { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "3" } },
    { "geo_passes", { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "8" } },
    { "gather", { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "2" } },
    { "smooth_edge", { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "30" } },
};
#define NDOC ((int)(sizeof doc / sizeof doc[0]))

/* The column of method `name` in the documentation's tables, or -1. */
static int doc_column(const char *name)
{
    for (int c = 0; c < NDOC_METHODS; c++)
        if (strcmp(doc_methods[c], name) == 0)
            return c;
    return -1;
}

static void test_defaults_documented(void)
{
    for (int m = 0; m < nmethods; m++) {
        const int c = doc_column(methods[m]);
        if (c < 0)
            fprintf(stderr, "    method %s has no column in docs/PARAMETERS.md's tables here\n",
                    methods[m]);
        CHECK(c >= 0);
        if (c < 0)
            continue;
        flow_params *p = NULL;
        CHECK_OK(flow_params_create(methods[m], &p));
        if (!p)
            continue;
        CHECK(strcmp(flow_params_method(p), methods[m]) == 0);
        CHECK_OK(flow_params_validate(p));
        int documented = 0;
        for (int r = 0; r < NDOC; r++) {
            const flow_param_info *in = flow_method_param_find(methods[m], doc[r].key);
            if (in && strcmp(in->name, doc[r].key) != 0)
                in = NULL; /* a former name (test_aliases) */
            const char *want = doc[r].def[c];
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
    const char *const keys[] = { "alpha", "alpha", "eps_s", "alpha", "alpha", "eps_data",
                                 "eps_data", "alpha" };
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
        { "clg-nl", "eps_data", "0", 0, "parameter eps_data = 0 out of range (0 < eps_data <= 1e+06)" },
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
    static const char *const only_nl[] = { "nonlinear_data", "nonlinear_smooth", "eps_data", "eps_s" };
    for (int i = 0; i < 4; i++) {
        CHECK(flow_method_param_find("clg-nl", only_nl[i]) != NULL);
        for (int m = 0; m < 3; m++) /* lk, hs, clg */
            CHECK(flow_method_param_find(doc_methods[m], only_nl[i]) == NULL);
    }
    /* the lists, as counted from the schemas */
    const int n[4] = { count_params("lk"), count_params("hs"), count_params("clg"),
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
    CHECK(!flow_params_applies(p, "eps_data")); /* clg-nl's */
    flow_params_destroy(p);
    p = harness_params("clg-nl", NULL);
    if (!p)
        return;
    CHECK(flow_params_applies(p, "eps_data") && flow_params_applies(p, "eps_s"));
    CHECK_OK(flow_params_set(p, "nonlinear_data", "0"));
    CHECK(!flow_params_applies(p, "eps_data") && flow_params_applies(p, "eps_s"));
    CHECK_OK(flow_params_set(p, "nonlinear_smooth", "0"));
    CHECK(!flow_params_applies(p, "eps_s"));
    CHECK(flow_params_applies(p, "alpha"));
    flow_params_destroy(p);
}

/* ---- former names (flow_param_info.alias) ---- */

/* A .params file holding `text` read over method's defaults: the number
 * that `key` then has (NAN when the file is refused). */
static double read_key(const char *method, const char *text, const char *key)
{
    flow_params *p = harness_params(method, NULL);
    double v = NAN;
    const char *path = harness_path("alias.params");
    write_text(path, text);
    if (p && flow_params_read(path, &p) == FLOW_OK)
        CHECK_OK(flow_params_get_number(p, key, &v));
    flow_params_destroy(p);
    return v;
}

static void test_aliases(void)
{
    /* clg-nl's eps_d is eps_data, as robust's and dis's are; plk's and
     * dis's normalise (patches less their means) is zero_mean, and robust's
     * normalise (data terms divided by their gradient) keeps its name */
    const struct { const char *method, *name, *alias; } renamed[] = {
        { "clg-nl", "eps_data", "eps_d" },
        { "plk", "zero_mean", "normalise" },
        { "dis", "zero_mean", "normalise" },
    };
    for (int i = 0; i < 3; i++) {
        const flow_param_info *in = flow_method_param_find(renamed[i].method, renamed[i].name);
        CHECK(in && in->alias && strcmp(in->alias, renamed[i].alias) == 0);
        CHECK(flow_method_param_find(renamed[i].method, renamed[i].alias) == in);
    }
    CHECK(flow_method_param_find("robust", "zero_mean") == NULL);
    const flow_param_info *rn = flow_method_param_find("robust", "normalise");
    CHECK(rn && strcmp(rn->name, "normalise") == 0 && rn->alias == NULL);
    /* set and get under either name: one value */
    flow_params *p = harness_params("clg-nl", NULL);
    double a = 0, b = 0;
    if (p) {
        CHECK_OK(flow_params_set(p, "eps_d", "2.5"));
        CHECK_OK(flow_params_get_number(p, "eps_data", &a));
        CHECK_OK(flow_params_get_number(p, "eps_d", &b));
        CHECK(a == 2.5 && b == 2.5);
        CHECK(flow_params_applies(p, "eps_d") == flow_params_applies(p, "eps_data"));
        /* written under the new name only */
        const char *path = harness_path("renamed.params");
        CHECK_OK(flow_params_write(path, p, NULL));
        char text[4096] = "";
        FILE *f = fopen(path, "r");
        if (f) {
            text[fread(text, 1, sizeof text - 1, f)] = '\0';
            fclose(f);
        }
        CHECK(strstr(text, "\neps_data,2.5\n") != NULL && strstr(text, "eps_d,") == NULL);
        flow_params_destroy(p);
    }
    /* old .params files read as before */
    CHECK(read_key("clg-nl", "method,clg-nl\neps_d,3\n", "eps_data") == 3.0);
    CHECK(read_key("plk", "method,plk\nnormalise,1\n", "zero_mean") == 1.0);
    CHECK(read_key("dis", "method,dis\nnormalise,0\n", "zero_mean") == 0.0);
    CHECK(read_key("robust", "method,robust\nnormalise,0\n", "normalise") == 0.0);
    /* one parameter under both names: refused, naming the lines */
    CHECK(isnan(read_key("clg-nl", "method,clg-nl\neps_d,3\neps_data,4\n", "eps_data")));
    CHECK(strstr(flow_last_error(), ":3: key 'eps_data' sets eps_data again (first as 'eps_d' "
                                    "on line 2)") != NULL);
}

int main(void)
{
    load_methods();
    RUN(test_registry);
    RUN(test_defaults_documented);
    RUN(test_set_get_round_trip);
    RUN(test_range_errors);
    RUN(test_range_edges);
    RUN(test_choices);
    RUN(test_method_lists);
    RUN(test_applies);
    RUN(test_aliases);
    return harness_report();
}
