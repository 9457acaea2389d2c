/* test_params.c -- flow_params: defaults, validation messages naming the
 * bad parameter, method/solver/window names, and .params files (exact
 * round trip, every kind of bad line reported with file:line, the .params
 * files shipped in params/ valid). */
#include "harness.h"
#include "flow/method.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

static void test_defaults_valid(void)
{
    for (int m = FLOW_METHOD_LK; m <= FLOW_METHOD_CLG_NL; m++) {
        flow_params p;
        flow_params_default(&p, (flow_method)m);
        CHECK(p.method == (flow_method)m);
        CHECK_OK(flow_params_validate(&p));
    }
    flow_params p;
    flow_params_default(&p, FLOW_METHOD_HS);
    CHECK(p.rho == 0.0);
    flow_params_default(&p, FLOW_METHOD_CLG_NL);
    CHECK(p.nonlinear_data == 1 && p.nonlinear_smooth == 1);
}

/* Each bad value is rejected with a message naming the parameter. */
static void test_validation_names(void)
{
    flow_params p;
#define EXPECT_BAD(method, stmt, name)                                                        \
    do {                                                                                      \
        flow_params_default(&p, method);                                                      \
        stmt;                                                                                 \
        CHECK(flow_params_validate(&p) == FLOW_ERR_INVALID);                                  \
        CHECK(strstr(flow_last_error(), name) != NULL);                                       \
    } while (0)
    EXPECT_BAD(FLOW_METHOD_HS, p.alpha = 0, "alpha");
    EXPECT_BAD(FLOW_METHOD_HS, p.rho = 1.5, "rho");
    EXPECT_BAD(FLOW_METHOD_CLG, p.sigma = -1, "sigma");
    EXPECT_BAD(FLOW_METHOD_CLG, p.sigma = NAN, "sigma");
    EXPECT_BAD(FLOW_METHOD_CLG, p.rho = 17, "rho");
    EXPECT_BAD(FLOW_METHOD_CLG_NL, p.eps_d = 0, "eps_d");
    EXPECT_BAD(FLOW_METHOD_CLG_NL, p.eps_s = -0.1, "eps_s");
    EXPECT_BAD(FLOW_METHOD_CLG_NL, p.nonlinear_data = 2, "nonlinear_data");
    EXPECT_BAD(FLOW_METHOD_LK, p.window_size = 8, "window_size");
    EXPECT_BAD(FLOW_METHOD_LK, p.window_size = 99, "window_size");
    EXPECT_BAD(FLOW_METHOD_LK, p.tau = -1, "tau");
    EXPECT_BAD(FLOW_METHOD_LK, p.window = (flow_window)7, "window");
    EXPECT_BAD(FLOW_METHOD_CLG, p.smoother = FLOW_SOLVER_FMG, "smoother");
    EXPECT_BAD(FLOW_METHOD_CLG, p.iterations = 0, "iterations");
    EXPECT_BAD(FLOW_METHOD_CLG, p.omega = 2.0, "omega");
    EXPECT_BAD(FLOW_METHOD_CLG, p.jacobi_weight = 1.5, "jacobi_weight");
    EXPECT_BAD(FLOW_METHOD_CLG, p.n0 = 0, "n0");
    EXPECT_BAD(FLOW_METHOD_CLG, p.n1 = -1, "n1");
    EXPECT_BAD(FLOW_METHOD_CLG, p.cycles = 0, "cycles");
    EXPECT_BAD(FLOW_METHOD_CLG, p.max_depth = -2, "max_depth");
    EXPECT_BAD(FLOW_METHOD_CLG, p.method = (flow_method)9, "method");
    /* LK ignores alpha but still wants it sane */
    flow_params_default(&p, FLOW_METHOD_LK);
    p.alpha = 0;
    CHECK_OK(flow_params_validate(&p));
}

static void test_names(void)
{
    for (int m = FLOW_METHOD_LK; m <= FLOW_METHOD_CLG_NL; m++) {
        flow_method back;
        CHECK_OK(flow_method_parse(flow_method_name((flow_method)m), &back));
        CHECK(back == (flow_method)m);
    }
    for (int s = FLOW_SOLVER_JACOBI; s <= FLOW_SOLVER_FMG; s++) {
        flow_solver back;
        CHECK_OK(flow_solver_parse(flow_solver_name((flow_solver)s), &back));
        CHECK(back == (flow_solver)s);
    }
    flow_window w;
    CHECK_OK(flow_window_parse("box", &w));
    CHECK(w == FLOW_WINDOW_BOX);
    CHECK(strcmp(flow_method_name(FLOW_METHOD_CLG_NL), "clg-nl") == 0);
    CHECK(strcmp(flow_solver_name(FLOW_SOLVER_VCYCLE), "v") == 0);
    flow_method m;
    CHECK(flow_method_parse("horn", &m) == FLOW_ERR_INVALID);
    CHECK(strstr(flow_last_error(), "horn") != NULL);
}

static void write_text(const char *path, const char *text)
{
    harness_write_file(path, text, strlen(text));
}

static void test_file_round_trip(void)
{
    flow_params p, q;
    flow_params_default(&p, FLOW_METHOD_CLG_NL);
    p.sigma = 1.0 / 3.0;
    p.alpha = 0.1 + 1e-17;
    p.eps_s = 1e-3 * 7.0 / 3.0;
    p.tau = 12345.678901234567;
    p.solver = FLOW_SOLVER_WCYCLE;
    p.smoother = FLOW_SOLVER_RBSOR;
    p.omega = 1.2345678901234567;
    p.window = FLOW_WINDOW_BOX;
    p.window_size = 11;
    p.max_depth = 3;
    p.n0 = 17;
    const char *path = harness_path("round.params");
    CHECK_OK(flow_params_write(path, &p, "written by test_params\nsecond line"));
    flow_params_default(&q, FLOW_METHOD_LK);
    CHECK_OK(flow_params_read(path, &q));
    CHECK(memcmp(&p, &q, sizeof p) == 0);
    /* the comment is there, as '#' lines */
    FILE *f = fopen(path, "r");
    char line[256] = "";
    CHECK(f && fgets(line, sizeof line, f));
    CHECK(strcmp(line, "# written by test_params\n") == 0);
    if (f)
        fclose(f);
}

/* A file naming its method starts from that method's defaults; comments,
 * blank lines and spaces are allowed. */
static void test_file_defaults_and_syntax(void)
{
    const char *path = harness_path("short.params");
    write_text(path, "# nonlinear CLG, a different alpha\n\n  method , clg-nl  # the method\n"
                     "alpha,7\r\nsolver,v\n");
    flow_params p, want;
    flow_params_default(&p, FLOW_METHOD_LK);
    p.sigma = 5; /* overridden by the method's defaults */
    CHECK_OK(flow_params_read(path, &p));
    flow_params_default(&want, FLOW_METHOD_CLG_NL);
    want.alpha = 7;
    want.solver = FLOW_SOLVER_VCYCLE;
    CHECK(memcmp(&p, &want, sizeof p) == 0);
    /* without a method line, keys apply on top of p */
    write_text(path, "sigma,2.5\n");
    CHECK_OK(flow_params_read(path, &p));
    CHECK(p.sigma == 2.5 && p.alpha == 7);
}

/* Every bad file fails with file:line and the offending text, and leaves p
 * as it was. */
static void test_file_errors(void)
{
    struct {
        const char *text, *expect1, *expect2;
    } cases[] = {
        { "method,hs\nalphaa,3\n", ":2:", "alphaa" },
        { "method,hs\nalpha 3\n", ":2:", "alpha 3" },
        { "alpha,abc\n", ":1:", "abc" },
        { "alpha,3x\n", ":1:", "3x" },
        { "alpha,-4\n", ":1:", "alpha" },
        { "# ok\nmethod,hs\nrho,2\n", ":3:", "rho" },
        { "sigma,1\nsigma,2\n", ":2:", "repeated" },
        { "method,foo\n", ":1:", "foo" },
        { "solver,fmg,v\n", ":1:", "fmg,v" },
        { "window_size,4\n", ":1:", "window_size" },
        { "smoother,fmg\n", ":1:", "smoother" },
        { "iterations,1e3\n", ":1:", "1e3" },
        { "alpha,\n", ":1:", "alpha" },
        { "max_depth,99999999999\n", ":1:", "99999999999" },
        { "omega,inf\n", ":1:", "inf" },
    };
    const char *path = harness_path("bad.params");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_text(path, cases[i].text);
        flow_params p, before;
        flow_params_default(&p, FLOW_METHOD_CLG);
        before = p;
        CHECK(flow_params_read(path, &p) == FLOW_ERR_INVALID);
        const char *e = flow_last_error();
        const int ok = strstr(e, "bad.params") && strstr(e, cases[i].expect1)
                       && strstr(e, cases[i].expect2);
        if (!ok)
            fprintf(stderr, "    case %zu: message '%s'\n", i, e);
        CHECK(ok);
        CHECK(memcmp(&p, &before, sizeof p) == 0);
    }
    flow_params p;
    flow_params_default(&p, FLOW_METHOD_CLG);
    CHECK(flow_params_read(harness_path("missing.params"), &p) == FLOW_ERR_IO);
    CHECK(strstr(flow_last_error(), "missing.params") != NULL);
    /* a line too long to be a parameter */
    char *big = malloc(5000);
    memset(big, 'a', 4999);
    big[4999] = '\0';
    write_text(path, big);
    CHECK(flow_params_read(path, &p) == FLOW_ERR_INVALID);
    CHECK(strstr(flow_last_error(), ":1:") != NULL);
    free(big);
}

/* The shipped parameter files (run from the repository root) are valid. */
static void test_shipped_params(void)
{
    DIR *d = opendir("params");
    if (!d) {
        harness_skip("no params/ directory here");
        return;
    }
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        const size_t len = strlen(e->d_name);
        if (len < 8 || strcmp(e->d_name + len - 7, ".params") != 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "params/%s", e->d_name);
        flow_params p;
        flow_params_default(&p, FLOW_METHOD_CLG);
        const flow_status s = flow_params_read(path, &p);
        if (s != FLOW_OK)
            fprintf(stderr, "    %s: %s\n", path, flow_last_error());
        CHECK(s == FLOW_OK);
        n++;
    }
    closedir(d);
    printf("    %d files in params/\n", n);
    CHECK(n >= 4);
}

int main(void)
{
    RUN(test_defaults_valid);
    RUN(test_validation_names);
    RUN(test_names);
    RUN(test_file_round_trip);
    RUN(test_file_defaults_and_syntax);
    RUN(test_file_errors);
    RUN(test_shipped_params);
    return harness_report();
}
