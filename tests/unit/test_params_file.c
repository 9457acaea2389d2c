/* test_params_file.c -- .params files (flow/params.h): an exact round trip
 * for every method of the registry, subnormal values, method lines and
 * defaults, every kind of bad line reported with file:line and nothing
 * changed, a value without effect refused, the files shipped in params/
 * valid. */
#include "params_common.h"
#include "base/number.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
    for (int m = 0; m < nmethods; m++) {
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
    flow_params *p = harness_params("clg-nl", "alpha=1e-320 eps_data=4.9406564584124654e-324");
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
        CHECK_OK(flow_params_get_number(q, "eps_data", &e));
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
    load_methods();
    RUN(test_file_round_trip);
    RUN(test_file_subnormal);
    RUN(test_file_defaults_and_syntax);
    RUN(test_file_errors);
    RUN(test_file_without_effect);
    RUN(test_shipped_params);
    return harness_report();
}
