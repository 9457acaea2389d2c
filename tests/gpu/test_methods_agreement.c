/* test_methods_agreement.c -- CPU/GPU agreement of every method and solver:
 * the same generated pair (127x95, odd sizes on purpose) through a flow
 * context on the CPU device and on CUDA; the flows must agree to a relative
 * RMS error (|gpu - cpu| over |cpu|) of REL_BOUND, with no NaN and the same
 * unknown vectors (Lucas-Kanade), and the residual norms (a device
 * reduction) must agree too.  Differences come only from float rounding:
 * both devices run the same libflow/pixel code, but nvcc contracts a*b+c
 * into FMA and the solvers iterate on the rounded values.  Runs only under
 * `make test-gpu`. */
#include "harness.h"
#include "flow/flow.h"

#include <stdlib.h>
#include <string.h>

#define W 127
#define H 95
#define REL_BOUND 2e-4 /* flows of ~1 px: agreement to ~2e-4 px */
#define ROBUST_BOUND 2e-3

static flow_device *cpu, *gpu;

static int open_devices(void)
{
    if (!cpu && flow_device_open("cpu", &cpu) != FLOW_OK)
        return 0;
    if (!gpu && flow_device_open("cuda", &gpu) != FLOW_OK) {
        harness_skip(flow_last_error());
        return 0;
    }
    return 1;
}

typedef struct config {
    const char *name;
    const char *method;
    const char *solver;   /* the variational methods */
    const char *smoother;
    int amount; /* iterations or cycles */
    int box;    /* LK box window with fill */
    int channels;
    int warp_levels, warps; /* coarse-to-fine warping (0: off) */
    const char *settings;   /* "key=value ..." for the method's own parameters */
} config;

static const config configs[] = {
    { "lk gauss", "lk", NULL, NULL, 0, 0, 1, 0, 0, NULL },
    { "lk box 7 fill", "lk", NULL, NULL, 0, 1, 1, 0, 0, NULL },
    { "hs jacobi 200", "hs", "jacobi", "jacobi", 200, 0, 1, 0, 0, NULL },
    { "hs rbsor 100", "hs", "rbsor", "jacobi", 100, 0, 1, 0, 0, NULL },
    { "hs v x3", "hs", "v", "jacobi", 3, 0, 1, 0, 0, NULL },
    { "hs w x2", "hs", "w", "jacobi", 2, 0, 1, 0, 0, NULL },
    { "hs cascadic 20", "hs", "cascadic", "jacobi", 20, 0, 1, 0, 0, NULL },
    { "hs fmg", "hs", "fmg", "jacobi", 1, 0, 1, 0, 0, NULL },
    { "clg fmg", "clg", "fmg", "jacobi", 1, 0, 1, 0, 0, NULL },
    { "clg fmg rbsor", "clg", "fmg", "rbsor", 1, 0, 1, 0, 0, NULL },
    { "clg w rbsor x2", "clg", "w", "rbsor", 2, 0, 1, 0, 0, NULL },
    { "clg-nl jacobi 200", "clg-nl", "jacobi", "jacobi", 200, 0, 1, 0, 0, NULL },
    { "clg-nl rbsor 100", "clg-nl", "rbsor", "jacobi", 100, 0, 1, 0, 0, NULL },
    { "clg-nl v x3", "clg-nl", "v", "jacobi", 3, 0, 1, 0, 0, NULL },
    { "clg-nl w x2", "clg-nl", "w", "jacobi", 2, 0, 1, 0, 0, NULL },
    { "clg-nl cascadic 20", "clg-nl", "cascadic", "jacobi", 20, 0, 1, 0, 0, NULL },
    { "clg-nl fmg", "clg-nl", "fmg", "jacobi", 1, 0, 1, 0, 0, NULL },
    { "clg-nl fmg rbsor", "clg-nl", "fmg", "rbsor", 1, 0, 1, 0, 0, NULL },
    { "clg-nl fmg colour", "clg-nl", "fmg", "jacobi", 1, 0, 3, 0, 0, NULL },
    { "lk gauss colour", "lk", NULL, NULL, 0, 0, 3, 0, 0, NULL },
    { "clg-nl fmg warp 3", "clg-nl", "fmg", "jacobi", 1, 0, 1, 3, 1, NULL },
    { "hs v x2 warp 2x2", "hs", "v", "jacobi", 2, 0, 1, 2, 2, NULL },
    { "clg fmg warp colour", "clg", "fmg", "jacobi", 1, 0, 3, 2, 1, NULL },
    /* the default method: its own solver and pyramid; the median filter
     * picks one of its window's values, so a rounding difference can pick
     * a neighbour: robust has its own bound, ROBUST_BOUND */
    { "robust", "robust", NULL, NULL, 0, 0, 1, 0, 0, NULL },
    { "robust colour", "robust", NULL, NULL, 0, 0, 3, 0, 0, NULL },
    { "robust luminance", "robust", NULL, NULL, 0, 0, 3, 0, 0, "color=0" },
    { "robust plain", "robust", NULL, NULL, 0, 0, 1, 0, 0,
      "bicubic=0 median=1 median_sigma_c=0 gamma=0 normalise=0 eps_data=1 alpha=20 edge=0" },
    { "robust v rho texture", "robust", NULL, NULL, 0, 0, 1, 0, 0,
      "solver=v smoother=jacobi cycles=2 rho=1 texture=0.9 warp_scale=0.5 warps=2" },
    /* the occlusion-aware data terms (both factors), the median's weight
     * off so that the terms' weight alone differs from "robust colour" */
    { "robust occlusion-aware colour", "robust", NULL, NULL, 0, 0, 3, 0, 0,
      "occ_d=0.1 occ_e=20 median_occ_d=0 median_occ_e=0" },
    /* the patch methods: a patch's best iterate is chosen by its residual,
     * which rounding can tip: they share robust's bound */
    { "plk", "plk", NULL, NULL, 0, 0, 1, 0, 0, NULL },
    { "plk translation colour", "plk", NULL, NULL, 0, 0, 3, 0, 0,
      "affine=0 bicubic=0 zero_mean=1 color=1 patch=7 levels=2" },
    { "plk unknown", "plk", NULL, NULL, 0, 0, 1, 0, 0, "tau=50 fill_unknown=0" },
    { "dis medium", "dis", NULL, NULL, 0, 0, 1, 0, 0, NULL },
    { "dis ultrafast", "dis", NULL, NULL, 0, 0, 1, 0, 0, "preset=ultrafast" },
    { "dis fast colour", "dis", NULL, NULL, 0, 0, 3, 0, 0, "preset=fast color=1" },
    /* TV-L1: the thresholding's cases and the median can tip on rounding:
     * robust's bound; epsilon's test (every 10 iterations, the same on both
     * devices) is on by default */
    { "tvl1", "tvl1", NULL, NULL, 0, 0, 1, 0, 0, NULL },
    { "tvl1 epsilon 0", "tvl1", NULL, NULL, 0, 0, 1, 0, 0, "epsilon=0" },
    /* a smaller epsilon: the warps stop at other tests */
    { "tvl1 epsilon 0.001", "tvl1", NULL, NULL, 0, 0, 1, 0, 0, "epsilon=0.001" },
    { "tvl1 no median", "tvl1", NULL, NULL, 0, 0, 1, 0, 0,
      "median_filtering=1 outer_iterations=1 iterations=100 scale_step=0.5 nscales=3" },
    { "tvl1 luminance", "tvl1", NULL, NULL, 0, 0, 3, 0, 0, NULL },
    /* epic: a census bit or a geodesic tie can tip on rounding of the
     * presmoothed frames: robust's bound */
    { "epic", "epic", NULL, NULL, 0, 0, 1, 0, 0, NULL },
    { "epic colour", "epic", NULL, NULL, 0, 0, 3, 0, 0, NULL },
    { "epic full size mean", "epic", NULL, NULL, 0, 0, 1, 0, 0,
      "match_level=0 affine=0 subpixel=0 warps=1 median=0" },
};

static int is_lk(const config *c)
{
    return strcmp(c->method, "lk") == 0;
}

/* The configuration's parameters (the caller destroys them). */
static flow_params *config_params(const config *c)
{
    flow_params *p = harness_params(c->method, c->settings);
    if (!p)
        return NULL;
    if (c->solver) { /* hs, clg, clg-nl */
        CHECK_OK(flow_params_set(p, "solver", c->solver));
        CHECK_OK(flow_params_set(p, "smoother", c->smoother));
        const int cycles = strcmp(c->solver, "v") == 0 || strcmp(c->solver, "w") == 0
                           || strcmp(c->solver, "fmg") == 0;
        if (cycles)
            CHECK_OK(flow_params_set_number(p, "cycles", c->amount > 0 ? c->amount : 1));
        else if (c->amount > 0)
            CHECK_OK(flow_params_set_number(p, "iterations", c->amount));
        if (strcmp(c->solver, "rbsor") == 0)
            CHECK_OK(flow_params_set(p, "omega", "1.6"));
        CHECK_OK(flow_params_set_number(p, "warp_levels", c->warp_levels));
        CHECK_OK(flow_params_set_number(p, "warps", c->warps > 0 ? c->warps : 1));
    }
    if (c->box) {
        CHECK_OK(flow_params_set(p, "window", "box"));
        CHECK_OK(flow_params_set(p, "window_size", "7"));
        CHECK_OK(flow_params_set(p, "fill_unknown", "1"));
    }
    if (is_lk(c) && !c->box)
        CHECK_OK(flow_params_set(p, "tau", "50")); /* some unknown pixels, to compare where they fall */
    return p;
}

static flow_status run(flow_device *d, const flow_params *p, const flow_image *a,
                       const flow_image *c, flow_field *out, double *res)
{
    flow_context *ctx = NULL;
    *res = -1;
    flow_status s = flow_context_create(d, a->width, a->height, a->channels, p, &ctx);
    if (s != FLOW_OK)
        return s;
    s = flow_context_compute(ctx, a, c, out);
    /* the local and patch methods solve no global system */
    const char *m = flow_params_method(p);
    if (s == FLOW_OK && strcmp(m, "lk") != 0 && strcmp(m, "plk") != 0 && strcmp(m, "dis") != 0
        && strcmp(m, "tvl1") != 0 && strcmp(m, "epic") != 0)
        s = flow_context_residual(ctx, res);
    flow_context_destroy(ctx);
    return s;
}

static void test_methods_agree(void)
{
    if (!open_devices())
        return;
    flow_synth s = { .motion = FLOW_SYNTH_SMOOTH, .amplitude = 0.8, .wavelength = 40, .seed = 17 };
    for (size_t k = 0; k < sizeof configs / sizeof configs[0]; k++) {
        const config *c = &configs[k];
        flow_image a, b;
        flow_field fc, fg;
        CHECK_OK(flow_synth_frame(&s, W, H, c->channels, 0, &a));
        CHECK_OK(flow_synth_frame(&s, W, H, c->channels, 1, &b));
        CHECK_OK(flow_field_alloc(&fc, W, H));
        CHECK_OK(flow_field_alloc(&fg, W, H));
        flow_params *p = config_params(c);
        double rc = -1, rg = -1;
        if (p) {
            CHECK_OK(run(cpu, p, &a, &b, &fc, &rc));
            CHECK_OK(run(gpu, p, &a, &b, &fg, &rg));
        }
        flow_params_destroy(p);
        double diff = 0, norm = 0;
        int nan = 0, unknown_mismatch = 0, unknown = 0;
        for (int i = 0; i < W * H; i++) {
            nan |= isnan(fc.u[i]) || isnan(fc.v[i]) || isnan(fg.u[i]) || isnan(fg.v[i]);
            const int uc = flow_is_unknown(fc.u[i], fc.v[i]), ug = flow_is_unknown(fg.u[i], fg.v[i]);
            unknown += uc;
            if (uc || ug) {
                unknown_mismatch += uc != ug;
                continue;
            }
            diff += (fc.u[i] - fg.u[i]) * (fc.u[i] - fg.u[i]) + (fc.v[i] - fg.v[i]) * (fc.v[i] - fg.v[i]);
            norm += fc.u[i] * fc.u[i] + fc.v[i] * fc.v[i];
        }
        const double rel = nan ? INFINITY : sqrt(diff / (norm > 0 ? norm : 1));
        printf("    %-20s rel. error %.2e  unknown %d (mismatch %d)", c->name, rel, unknown,
               unknown_mismatch);
        if (rc >= 0)
            printf("  residual cpu %.4e gpu %.4e", rc, rg);
        printf("\n");
        CHECK(!nan);
        CHECK(rel <= (strcmp(c->method, "robust") == 0 || strcmp(c->method, "plk") == 0
                              || strcmp(c->method, "dis") == 0
                              || strcmp(c->method, "tvl1") == 0
                              || strcmp(c->method, "epic") == 0
                          ? ROBUST_BOUND
                          : REL_BOUND));
        /* an eigenvalue within rounding of tau may fall either way */
        CHECK(unknown_mismatch <= W * H / 1000);
        if (rc >= 0)
            CHECK(fabs(rc - rg) <= 1e-2 * fabs(rc) + 1e-4); /* 1e-4: the float floor */
        flow_image_free(&a), flow_image_free(&b);
        flow_field_free(&fc), flow_field_free(&fg);
    }
}

/* The trace of a GPU solve reads the same residual norms as the CPU's. */
typedef struct lines {
    char text[64][96];
    int n;
} lines;

static void keep_norms(void *user, const char *line)
{
    lines *l = user;
    const char *s = strstr(line, "-> [");
    if (s && l->n < 64)
        snprintf(l->text[l->n++], sizeof l->text[0], "%s", s);
}

static void test_trace_agrees(void)
{
    if (!open_devices())
        return;
    flow_synth s = { .motion = FLOW_SYNTH_TRANSLATE, .dx = 0.4, .dy = -0.3, .seed = 2 };
    flow_image a, b;
    flow_field out;
    CHECK_OK(flow_synth_frame(&s, 64, 48, 1, 0, &a));
    CHECK_OK(flow_synth_frame(&s, 64, 48, 1, 1, &b));
    CHECK_OK(flow_field_alloc(&out, 64, 48));
    flow_params *p = harness_params("clg-nl", "max_depth=2");
    lines lc, lg;
    memset(&lc, 0, sizeof lc);
    memset(&lg, 0, sizeof lg);
    flow_observer obs;
    memset(&obs, 0, sizeof obs);
    obs.trace = keep_norms;
    flow_device *dev[2] = { cpu, gpu };
    lines *ls[2] = { &lc, &lg };
    for (int k = 0; k < 2 && p; k++) {
        flow_context *ctx = NULL;
        CHECK_OK(flow_context_create(dev[k], 64, 48, 1, p, &ctx));
        if (!ctx)
            continue;
        obs.user = ls[k];
        flow_context_set_observer(ctx, &obs);
        CHECK_OK(flow_context_compute(ctx, &a, &b, &out));
        flow_context_destroy(ctx);
    }
    flow_params_destroy(p);
    CHECK(lc.n == lg.n && lc.n > 5);
    double worst = 0;
    for (int i = 0; i < lc.n && i < lg.n; i++) {
        double x = 0, y = 0;
        sscanf(strchr(lc.text[i], ']') + 1, "%lf", &x);
        sscanf(strchr(lg.text[i], ']') + 1, "%lf", &y);
        worst = fmax(worst, fabs(x - y) / fmax(fabs(x), 1e-12));
    }
    printf("    %d residual norms, worst relative difference %.2e\n", lc.n, worst);
    CHECK(worst < 1e-2);
    flow_image_free(&a), flow_image_free(&b);
    flow_field_free(&out);
}

/* The flows of frames 0 -> 1 -> 2 -> 3 of s by robust with the frame before
 * (previous 1) on device d into f[0..2]: the first from two frames, the
 * others from three; on the GPU the second captures the three-frame graph
 * and the third replays it.  Then f[3], the pair 2 -> 3 alone: the
 * two-frame graph replayed after the three-frame one ran. */
static void three_frame_flows(flow_device *d, const flow_synth *s, flow_field f[4])
{
    flow_params *p = harness_params("robust", "previous=1");
    flow_context *ctx = NULL;
    flow_image img[4];
    for (int k = 0; k < 4; k++)
        CHECK_OK(flow_synth_frame(s, W, H, 1, k, &img[k]));
    if (p)
        CHECK_OK(flow_context_create(d, W, H, 1, p, &ctx));
    if (ctx) {
        CHECK_OK(flow_context_compute(ctx, &img[0], &img[1], &f[0]));
        CHECK_OK(flow_context_compute_next(ctx, &img[2], &f[1]));
        CHECK_OK(flow_context_compute_next(ctx, &img[3], &f[2]));
        CHECK_OK(flow_context_compute(ctx, &img[2], &img[3], &f[3]));
    }
    flow_context_destroy(ctx);
    flow_params_destroy(p);
    for (int k = 0; k < 4; k++)
        flow_image_free(&img[k]);
}

/* Robust on three frames: the CPU's and the GPU's flows agree, graph
 * replays included. */
static void test_three_frames_agree(void)
{
    if (!open_devices())
        return;
    const flow_synth s = { .motion = FLOW_SYNTH_ROTATE, .angle = 0.01, .seed = 23 };
    flow_field fc[4], fg[4];
    for (int k = 0; k < 4; k++) {
        CHECK_OK(flow_field_alloc(&fc[k], W, H));
        CHECK_OK(flow_field_alloc(&fg[k], W, H));
    }
    three_frame_flows(cpu, &s, fc);
    three_frame_flows(gpu, &s, fg);
    for (int k = 0; k < 4; k++) {
        double diff = 0, norm = 0;
        for (int i = 0; i < W * H; i++) {
            diff += (fc[k].u[i] - fg[k].u[i]) * (fc[k].u[i] - fg[k].u[i])
                    + (fc[k].v[i] - fg[k].v[i]) * (fc[k].v[i] - fg[k].v[i]);
            norm += fc[k].u[i] * fc[k].u[i] + fc[k].v[i] * fc[k].v[i];
        }
        const double rel = sqrt(diff / (norm > 0 ? norm : 1));
        printf("    robust, flow %d (%s): rel. error %.2e\n", k,
               k == 0 ? "two frames" : k < 3 ? "three frames" : "the last pair alone", rel);
        CHECK(rel <= ROBUST_BOUND);
        flow_field_free(&fc[k]);
        flow_field_free(&fg[k]);
    }
}

/* epic given matches (epic_take) and returning them (epic_scatter): the
 * CPU's own matches of a translation given to both devices; the match
 * planes must be equal bit for bit (a seed takes a match by comparisons
 * and scales it by a power of two) and the flows agree as epic's do. */
static void test_epic_matches_agree(void)
{
    if (!open_devices())
        return;
    const flow_synth s = { .motion = FLOW_SYNTH_TRANSLATE, .dx = 6.5, .dy = -3.25, .seed = 19 };
    flow_image a, b;
    CHECK_OK(flow_synth_frame(&s, W, H, 1, 0, &a));
    CHECK_OK(flow_synth_frame(&s, W, H, 1, 1, &b));
    flow_params *p = NULL;
    CHECK_OK(flow_params_create("epic", &p));
    static const char *const names[3] = { "match_u", "match_v", "match_weight" };
    float *planes[2][3];
    flow_field f[2];
    flow_match *m = malloc(sizeof *m * W * H);
    int n = 0;
    for (int d = 0; d < 2; d++) {
        flow_context *ctx = NULL;
        CHECK_OK(flow_field_alloc(&f[d], W, H));
        for (int k = 0; k < 3; k++)
            planes[d][k] = calloc(W * H, sizeof(float));
        CHECK_OK(flow_context_create(d ? gpu : cpu, W, H, 1, p, &ctx));
        for (int k = 0; k < 3 && ctx; k++)
            CHECK_OK(flow_context_request_output(ctx, names[k], planes[d][k]));
        if (ctx && d == 0) {
            /* the CPU's own matches, then given back */
            CHECK_OK(flow_context_compute(ctx, &a, &b, &f[0]));
            for (int i = 0; i < W * H; i++)
                if (planes[0][2][i] > 0)
                    m[n++] = (flow_match){ (float)(i % W), (float)(i / W), planes[0][0][i],
                                           planes[0][1][i], planes[0][2][i] };
        }
        if (ctx) {
            CHECK_OK(flow_context_set_matches(ctx, m, n));
            CHECK_OK(flow_context_compute(ctx, &a, &b, &f[d]));
        }
        flow_context_destroy(ctx);
    }
    int differ = 0;
    double diff = 0, norm = 0;
    for (int i = 0; i < W * H; i++) {
        for (int k = 0; k < 3; k++)
            differ += planes[0][k][i] != planes[1][k][i];
        diff += (f[0].u[i] - f[1].u[i]) * (f[0].u[i] - f[1].u[i]) +
                (f[0].v[i] - f[1].v[i]) * (f[0].v[i] - f[1].v[i]);
        norm += f[0].u[i] * f[0].u[i] + f[0].v[i] * f[0].v[i];
    }
    const double rel = sqrt(diff / (norm > 0 ? norm : 1));
    printf("    epic given %d matches: match planes differing at %d values, flow rel. error %.2e\n",
           n, differ, rel);
    CHECK(n > 50);
    CHECK(differ == 0);
    CHECK(rel <= ROBUST_BOUND);
    for (int d = 0; d < 2; d++) {
        for (int k = 0; k < 3; k++)
            free(planes[d][k]);
        flow_field_free(&f[d]);
    }
    free(m);
    flow_params_destroy(p);
    flow_image_free(&a), flow_image_free(&b);
}

/* epic with a caller's edge map (a moving disc's outline) on both
 * devices: the flows agree as epic's do without one. */
static void test_epic_edges_agree(void)
{
    if (!open_devices())
        return;
    const flow_synth s = { .motion = FLOW_SYNTH_OBJECT, .dx = -3.0, .dy = 1.5, .odx = 7.0,
                           .ody = -4.0, .radius = 20, .seed = 23, .coarse = 0.5 };
    flow_image a, b;
    CHECK_OK(flow_synth_frame(&s, W, H, 1, 0, &a));
    CHECK_OK(flow_synth_frame(&s, W, H, 1, 1, &b));
    float *e = malloc(sizeof *e * W * H);
    for (int i = 0; i < W * H; i++)
        e[i] = fabs(hypot(i % W - 0.5 * (W - 1), i / W - 0.5 * (H - 1)) - s.radius) <= 1.0
                   ? 1.0f : 0.0f;
    flow_params *p = NULL;
    CHECK_OK(flow_params_create("epic", &p));
    flow_field f[2];
    for (int d = 0; d < 2; d++) {
        flow_context *ctx = NULL;
        CHECK_OK(flow_field_alloc(&f[d], W, H));
        CHECK_OK(flow_context_create(d ? gpu : cpu, W, H, 1, p, &ctx));
        if (ctx) {
            CHECK_OK(flow_context_set_edges(ctx, e));
            CHECK_OK(flow_context_compute(ctx, &a, &b, &f[d]));
        }
        flow_context_destroy(ctx);
    }
    double diff = 0, norm = 0;
    for (int i = 0; i < W * H; i++) {
        diff += (f[0].u[i] - f[1].u[i]) * (f[0].u[i] - f[1].u[i]) +
                (f[0].v[i] - f[1].v[i]) * (f[0].v[i] - f[1].v[i]);
        norm += f[0].u[i] * f[0].u[i] + f[0].v[i] * f[0].v[i];
    }
    const double rel = sqrt(diff / (norm > 0 ? norm : 1));
    printf("    epic with an edge map: flow rel. error %.2e\n", rel);
    CHECK(rel <= ROBUST_BOUND);
    for (int d = 0; d < 2; d++)
        flow_field_free(&f[d]);
    free(e);
    flow_params_destroy(p);
    flow_image_free(&a), flow_image_free(&b);
}

int main(void)
{
    RUN(test_methods_agree);
    RUN(test_trace_agrees);
    RUN(test_three_frames_agree);
    RUN(test_epic_matches_agree);
    RUN(test_epic_edges_agree);
    flow_device_close(cpu);
    flow_device_close(gpu);
    return harness_report();
}
