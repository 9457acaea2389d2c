/* test_solvers.c -- the solvers as numerical methods, on the device of
 * FLOW_DEVICE (default cpu):
 *  - every solver reduces the residual of HS, CLG and nonlinear CLG when
 *    given more work, and the multigrid solvers converge to the solution the
 *    plain smoothers converge to;
 *  - a V(2,2)-cycle reduces the error of the linear HS system by at most
 *    VCYCLE_FACTOR_MAX per cycle (the measured factor is printed);
 *  - FMG(2,2), one cycle, is as accurate as thousands of Jacobi sweeps on the
 *    same system (seed 001 figure 6.6);
 *  - nonlinear CLG keeps a motion discontinuity sharper than linear CLG;
 *  - the multigrid trace (seed 001 appendix B) is well formed and switching
 *    it on does not change the result;
 *  - CUDA graph replays give the direct run's result.
 * The seams of the smoother are tested in test_smoother.c. */
#include "harness.h"
#include "core/fused.h"
#include "core/multigrid.h"
#include "core/pair.h"
#include "core/tensor.h"
#include "device/device.h"
#include "flow/flow.h"

#include <stdlib.h>
#include <string.h>

#define W 96
#define H 80

/* The largest error-reduction factor per V(2,2)-cycle accepted on the HS
 * system of the 96x80 test pair (measured on the CPU and CUDA devices:
 * 0.37 with the damped Jacobi smoother, 0.21 with red-black SOR; printed by
 * the test). */
#define VCYCLE_FACTOR_MAX 0.45

static flow_image f1, f2;
static flow_field gt;
static int have_frames;

static void make_frames(void)
{
    if (have_frames)
        return;
    flow_synth s = { .motion = FLOW_SYNTH_SMOOTH, .amplitude = 0.7, .wavelength = 40, .seed = 11 };
    CHECK_OK(flow_synth_frame(&s, W, H, 1, 0, &f1));
    CHECK_OK(flow_synth_frame(&s, W, H, 1, 1, &f2));
    CHECK_OK(flow_synth_flow(&s, W, H, 0, &gt));
    have_frames = 1;
}

/* Computes the flow of p into out (allocated by the caller) and returns the
 * RMS residual of the finest system, or -1 on failure. */
static double solve(const flow_params *p, const flow_image *a, const flow_image *c,
                    flow_field *out, const flow_observer *obs)
{
    flow_device *d = harness_device();
    if (!d || !p)
        return -1;
    flow_context *ctx = NULL;
    double rms = -1;
    CHECK_OK(flow_context_create(d, a->width, a->height, a->channels, p, &ctx));
    if (!ctx)
        return -1;
    flow_context_set_observer(ctx, obs);
    flow_status s = flow_context_compute(ctx, a, c, out);
    CHECK_OK(s);
    if (s == FLOW_OK)
        CHECK_OK(flow_context_residual(ctx, &rms));
    flow_context_destroy(ctx);
    return rms;
}

static double rms_diff(const flow_field *a, const flow_field *c)
{
    double s = 0;
    const int n = a->width * a->height;
    for (int i = 0; i < n; i++)
        s += (a->u[i] - c->u[i]) * (a->u[i] - c->u[i]) + (a->v[i] - c->v[i]) * (a->v[i] - c->v[i]);
    return sqrt(s / n);
}

static double aee(const flow_field *a, const flow_field *ref)
{
    double s = 0;
    const int n = a->width * a->height;
    for (int i = 0; i < n; i++)
        s += hypot(a->u[i] - ref->u[i], a->v[i] - ref->v[i]);
    return s / n;
}

typedef struct work {
    const char *solver;
    int less, more; /* iterations or cycles */
} work;

static int is(const char *a, const char *b)
{
    return strcmp(a, b) == 0;
}

/* The method's defaults with the solver of w doing `amount` iterations or
 * cycles (the caller destroys the parameters). */
static flow_params *work_params(const char *method, const work *w, int amount)
{
    flow_params *p = harness_params(method, NULL);
    if (!p)
        return NULL;
    CHECK_OK(flow_params_set(p, "solver", w->solver));
    const int cycles = is(w->solver, "v") || is(w->solver, "w") || is(w->solver, "fmg");
    CHECK_OK(flow_params_set_number(p, cycles ? "cycles" : "iterations", amount));
    if (is(w->solver, "rbsor"))
        CHECK_OK(flow_params_set(p, "omega", "1.7"));
    return p;
}

/* More work, smaller residual; and the converged multigrid solution is the
 * converged smoother solution (the cycles solve the same system). */
static void test_residual_decreases(void)
{
    make_frames();
    const char *const methods[3] = { "hs", "clg", "clg-nl" };
    const work works[6] = {
        { "jacobi", 10, 300 },  { "rbsor", 10, 200 }, { "v", 1, 6 },
        { "w", 1, 4 },          { "cascadic", 5, 60 }, { "fmg", 1, 4 },
    };
    flow_field out, ref;
    CHECK_OK(flow_field_alloc(&out, W, H));
    CHECK_OK(flow_field_alloc(&ref, W, H));
    for (int m = 0; m < 3; m++) {
        /* the reference: red-black SOR to the float floor */
        flow_params *p = work_params(methods[m], &works[1], 3000);
        const double r_ref = solve(p, &f1, &f2, &ref, NULL);
        flow_params_destroy(p);
        for (int k = 0; k < 6; k++) {
            p = work_params(methods[m], &works[k], works[k].less);
            const double r_less = solve(p, &f1, &f2, &out, NULL);
            flow_params_destroy(p);
            p = work_params(methods[m], &works[k], works[k].more);
            const double r_more = solve(p, &f1, &f2, &out, NULL);
            flow_params_destroy(p);
            const double dist = rms_diff(&out, &ref);
            printf("    %-6s %-8s residual %.3e (%d) -> %.3e (%d); |x - x_sor3000| %.2e\n",
                   methods[m], works[k].solver, r_less, works[k].less, r_more, works[k].more,
                   dist);
            CHECK(r_more >= 0 && r_less > 0);
            CHECK(r_more < 0.5 * r_less);
            if (!is(works[k].solver, "jacobi") && !is(works[k].solver, "cascadic"))
                CHECK(dist < 5e-3); /* converged to the same solution */
        }
        CHECK(r_ref >= 0 && r_ref < 1e-2);
    }
    flow_field_free(&out);
    flow_field_free(&ref);
}

/* Error of the V(2,2)-cycle iterates against the converged solution. */
static double vcycle_factor(const char *smoother)
{
    flow_params *p = harness_params("hs", "solver=v");
    if (!p)
        return -1;
    CHECK_OK(flow_params_set(p, "smoother", smoother));
    flow_field ref, x;
    CHECK_OK(flow_field_alloc(&ref, W, H));
    CHECK_OK(flow_field_alloc(&x, W, H));
    CHECK_OK(flow_params_set_number(p, "cycles", 40));
    solve(p, &f1, &f2, &ref, NULL);
    double e[6];
    for (int k = 1; k <= 5; k++) {
        CHECK_OK(flow_params_set_number(p, "cycles", k));
        solve(p, &f1, &f2, &x, NULL);
        e[k] = rms_diff(&x, &ref);
    }
    flow_params_destroy(p);
    /* the mean factor over cycles 2..5 (cycle 1 starts from 0) */
    const double factor = pow(e[5] / e[1], 1.0 / 4.0);
    printf("    V(2,2), %s smoother: |e| %.2e %.2e %.2e %.2e %.2e, factor %.3f per cycle\n",
           smoother, e[1], e[2], e[3], e[4], e[5], factor);
    flow_field_free(&ref);
    flow_field_free(&x);
    return factor;
}

static void test_vcycle_factor(void)
{
    make_frames();
    const double fj = vcycle_factor("jacobi");
    const double fs = vcycle_factor("rbsor");
    CHECK(fj > 0 && fj <= VCYCLE_FACTOR_MAX);
    CHECK(fs > 0 && fs <= VCYCLE_FACTOR_MAX);
}

/* Seed 001 figure 6.6: FMG(2,2) against Jacobi on the same CLG system of
 * the seed's image size, 316x252: the Jacobi sweep count FMG's error is
 * matched at is printed; FMG must beat J(1000) (and does J(3000), see
 * docs/BENCHMARKS.md). */
static void test_fmg_vs_jacobi(void)
{
    const int w = 316, h = 252;
    flow_synth s = { .motion = FLOW_SYNTH_SMOOTH, .amplitude = 0.7, .wavelength = 60, .seed = 21 };
    flow_image a, c;
    flow_field g, ref, fmg, jac;
    CHECK_OK(flow_synth_frame(&s, w, h, 1, 0, &a));
    CHECK_OK(flow_synth_frame(&s, w, h, 1, 1, &c));
    CHECK_OK(flow_synth_flow(&s, w, h, 0, &g));
    /* a low-contrast texture (a quarter of the range, like much of
     * Yosemite's terrain): the smoothness term dominates the system, which
     * is what makes plain Jacobi slow */
    for (int i = 0; i < w * h; i++) {
        a.data[i] = 96.0f + 0.25f * a.data[i];
        c.data[i] = 96.0f + 0.25f * c.data[i];
    }
    CHECK_OK(flow_field_alloc(&ref, w, h));
    CHECK_OK(flow_field_alloc(&fmg, w, h));
    CHECK_OK(flow_field_alloc(&jac, w, h));
    flow_params *p = harness_params("clg", "solver=fmg cycles=12");
    solve(p, &a, &c, &ref, NULL);
    flow_params_destroy(p);
    p = harness_params("clg", "solver=fmg cycles=1");
    const double r_fmg = solve(p, &a, &c, &fmg, NULL);
    flow_params_destroy(p);
    const double e_fmg = rms_diff(&fmg, &ref);
    printf("    316x252 FMG(2,2): |x - x*| %.2e residual %.2e AEE %.4f (x*: AEE %.4f)\n", e_fmg,
           r_fmg, aee(&fmg, &g), aee(&ref, &g));
    p = harness_params("clg", "solver=jacobi jacobi_weight=1"); /* the seed's plain Jacobi */
    const int sweeps[3] = { 300, 1000, 3000 };
    double e_jac[3];
    for (int k = 0; k < 3; k++) {
        if (p)
            CHECK_OK(flow_params_set_number(p, "iterations", sweeps[k]));
        const double r_jac = solve(p, &a, &c, &jac, NULL);
        e_jac[k] = rms_diff(&jac, &ref);
        printf("    316x252 J(%d):    |x - x*| %.2e residual %.2e AEE %.4f\n", sweeps[k],
               e_jac[k], r_jac, aee(&jac, &g));
    }
    flow_params_destroy(p);
    CHECK(e_fmg <= e_jac[1]);
    CHECK(fabs(aee(&fmg, &g) - aee(&ref, &g)) < 0.01);
    flow_image_free(&a), flow_image_free(&c);
    flow_field_free(&g), flow_field_free(&ref), flow_field_free(&fmg), flow_field_free(&jac);
}

/* A textured disc moving over a background moving otherwise: the AEE in a
 * band of 4 px around the disc's edge. */
static void test_nonlinear_discontinuity(void)
{
    flow_synth s = {
        .motion = FLOW_SYNTH_OBJECT, .dx = -0.5, .dy = 0.25, .odx = 0.8, .ody = -0.4,
        .radius = 22, .seed = 5
    };
    flow_image a, c;
    flow_field g, lin, nl;
    CHECK_OK(flow_synth_frame(&s, W, H, 1, 0, &a));
    CHECK_OK(flow_synth_frame(&s, W, H, 1, 1, &c));
    CHECK_OK(flow_synth_flow(&s, W, H, 0, &g));
    CHECK_OK(flow_field_alloc(&lin, W, H));
    CHECK_OK(flow_field_alloc(&nl, W, H));
    /* the same small scales for both (the integration scale rho blurs the
     * tensor across the edge whatever the penaliser) */
    flow_params *p = harness_params("clg", "sigma=0.5 rho=0.5");
    solve(p, &a, &c, &lin, NULL);
    flow_params_destroy(p);
    p = harness_params("clg-nl", "sigma=0.5 rho=0.5");
    solve(p, &a, &c, &nl, NULL);
    flow_params_destroy(p);
    double el = 0, en = 0;
    int n = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const double r = hypot(x - 0.5 * (W - 1), y - 0.5 * (H - 1));
            if (fabs(r - s.radius) > 4)
                continue;
            const int i = y * W + x;
            el += hypot(lin.u[i] - g.u[i], lin.v[i] - g.v[i]);
            en += hypot(nl.u[i] - g.u[i], nl.v[i] - g.v[i]);
            n++;
        }
    printf("    edge band (%d px): AEE linear CLG %.4f, nonlinear CLG %.4f; whole frame %.4f / %.4f\n",
           n, el / n, en / n, aee(&lin, &g), aee(&nl, &g));
    CHECK(en < 0.75 * el);
    flow_image_free(&a), flow_image_free(&c);
    flow_field_free(&g), flow_field_free(&lin), flow_field_free(&nl);
}

/* ---- the trace ---- */
typedef struct trace_log {
    char **lines;
    int n, cap, depth_stages, max_stages, balanced;
} trace_log;

static void on_trace(void *user, const char *line)
{
    trace_log *t = user;
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 256;
        t->lines = realloc(t->lines, (size_t)t->cap * sizeof *t->lines);
    }
    t->lines[t->n++] = strdup(line);
}

static void on_begin(void *user, const char *name)
{
    trace_log *t = user;
    (void)name;
    if (++t->depth_stages > t->max_stages)
        t->max_stages = t->depth_stages;
}

static void on_end(void *user, const char *name)
{
    trace_log *t = user;
    (void)name;
    if (--t->depth_stages < 0)
        t->balanced = 0;
}

static int indent_of(const char *s)
{
    int n = 0;
    while (s[n] == ' ')
        n++;
    return n;
}

static void test_trace(void)
{
    make_frames();
    flow_params *p = harness_params("clg-nl", "max_depth=2");
    trace_log t;
    memset(&t, 0, sizeof t);
    t.balanced = 1;
    flow_observer obs;
    memset(&obs, 0, sizeof obs);
    obs.user = &t;
    obs.trace = on_trace;
    obs.stage_begin = on_begin;
    obs.stage_end = on_end;
    flow_field with, without;
    CHECK_OK(flow_field_alloc(&with, W, H));
    CHECK_OK(flow_field_alloc(&without, W, H));
    solve(p, &f1, &f2, &with, &obs);
    solve(p, &f1, &f2, &without, NULL);
    flow_params_destroy(p);
    CHECK(memcmp(with.u, without.u, sizeof(float) * W * H) == 0);
    CHECK(memcmp(with.v, without.v, sizeof(float) * W * H) == 0);
    CHECK(t.balanced && t.depth_stages == 0 && t.max_stages >= 2);
    CHECK(t.n > 20);
    if (t.n > 0) {
        CHECK(strcmp(t.lines[0], "    {depth: 2, cycle: 1/1}") == 0);
        CHECK(strstr(t.lines[1], "S_NL[depth: 2, n: 10] | A2 x2 = f2 --- bottom") != NULL);
    }
    int bottoms = 0, norms = 0, bad = 0, down21 = -1, down10 = -1;
    for (int i = 0; i < t.n; i++) {
        const char *l = t.lines[i], *s = l + indent_of(l);
        int d;
        if (strstr(l, "--- bottom"))
            bottoms++;
        if (sscanf(s, "{depth: %d", &d) == 1 || sscanf(s, "V_NL[presmooth, depth: %d", &d) == 1
            || sscanf(s, "V_NL[postsmooth, depth: %d", &d) == 1
            || sscanf(s, "S_NL[depth: %d", &d) == 1)
            bad += indent_of(l) != 2 * d;
        if (strncmp(s, "-> [", 4) == 0) {
            double v = -1;
            const char *close = strchr(s, ']');
            bad += !close || sscanf(close + 1, "%lf", &v) != 1 || !(v >= 0 && isfinite(v));
            norms++;
        }
        if (strstr(l, "[depth: 2] -> [depth: 1]"))
            down21 = i;
        if (strstr(l, "[depth: 1] -> [depth: 0]"))
            down10 = i;
    }
    printf("    %d trace lines, %d bottom solves, %d residual norms\n", t.n, bottoms, norms);
    CHECK(bad == 0);
    CHECK(bottoms == 3); /* FMG over three levels: one V-cycle from each */
    CHECK(down21 > 0 && down10 > down21);
    CHECK(t.n > 0 && strncmp(t.lines[t.n - 1], "-> [1] ", 7) == 0); /* depth 0, no indent */
    for (int i = 0; i < t.n; i++)
        free(t.lines[i]);
    free(t.lines);
    flow_field_free(&with);
    flow_field_free(&without);
}

/* CUDA graphs (where the device captures): replays give the direct run's
 * flow bit for bit, follow new frames, and a trace observer set in between
 * (which runs directly) leaves the replays correct.  On the CPU device
 * every compute runs directly. */
static void test_graph_replay(void)
{
    flow_device *d = harness_device();
    if (!d)
        return;
    flow_synth s = { .motion = FLOW_SYNTH_ROTATE, .angle = 0.02, .seed = 8 };
    flow_image fr[3];
    for (int k = 0; k < 3; k++)
        CHECK_OK(flow_synth_frame(&s, W, H, 1, k, &fr[k]));
    flow_params *p = harness_params("clg-nl", NULL);
    flow_context *direct = NULL, *graphed = NULL;
    if (p) {
        CHECK_OK(flow_context_create(d, W, H, 1, p, &direct));
        CHECK_OK(flow_context_create(d, W, H, 1, p, &graphed));
    }
    flow_params_destroy(p);
    if (!direct || !graphed) {
        flow_context_destroy(direct);
        flow_context_destroy(graphed);
        for (int k = 0; k < 3; k++)
            flow_image_free(&fr[k]);
        return;
    }
    flow_context_set_graphs(direct, 0);
    flow_field a, g;
    CHECK_OK(flow_field_alloc(&a, W, H));
    CHECK_OK(flow_field_alloc(&g, W, H));
    trace_log t;
    memset(&t, 0, sizeof t);
    flow_observer obs;
    memset(&obs, 0, sizeof obs);
    obs.user = &t;
    obs.trace = on_trace;
    int same = 1, graphs = 0;
    /* frames 0-1, 1-2, 0-1 again with a trace, then 1-2 without */
    const int first[4] = { 0, 1, 0, 1 };
    for (int k = 0; k < 4; k++) {
        flow_context_set_observer(graphed, k == 2 ? &obs : NULL);
        CHECK_OK(flow_context_compute(direct, &fr[first[k]], &fr[first[k] + 1], &a));
        CHECK_OK(flow_context_compute(graphed, &fr[first[k]], &fr[first[k] + 1], &g));
        same &= memcmp(a.u, g.u, sizeof(float) * W * H) == 0
                && memcmp(a.v, g.v, sizeof(float) * W * H) == 0;
        graphs += flow_context_used_graph(graphed);
        CHECK(!flow_context_used_graph(direct));
        if (k == 2)
            CHECK(!flow_context_used_graph(graphed));
    }
    printf("    %d of 4 computes replayed a graph (%s device)\n", graphs, flow_device_kind(d));
    CHECK(same);
    if (d->ops->capture_begin)
        CHECK(graphs == 3);
    else
        CHECK(graphs == 0);
    for (int i = 0; i < t.n; i++)
        free(t.lines[i]);
    free(t.lines);
    flow_context_destroy(direct);
    flow_context_destroy(graphed);
    for (int k = 0; k < 3; k++)
        flow_image_free(&fr[k]);
    flow_field_free(&a), flow_field_free(&g);
}

int main(void)
{
    RUN(test_residual_decreases);
    RUN(test_vcycle_factor);
    RUN(test_fmg_vs_jacobi);
    RUN(test_nonlinear_discontinuity);
    RUN(test_trace);
    RUN(test_graph_replay);
    if (have_frames) {
        flow_image_free(&f1), flow_image_free(&f2);
        flow_field_free(&gt);
    }
    return harness_report();
}
