/* test_tvl1.c -- the TV-L1 method on generated pairs with exact flow
 * (flow/synth.h): the interior AEE of translations (subpixel, 1.5 px, and
 * 5.3 px, which needs the pyramid) and a rotation within bounds; the TV-L1
 * energy, evaluated here independently of the library, falls as the
 * iterations grow; the stopping criterion epsilon (a large one stops each
 * warp at the first test, after 10 iterations; one never reached changes no
 * bit); the parameter rules (an even median side, colour input).  Runs on
 * the device of FLOW_DEVICE (default cpu). */
#include "harness.h"
#include "flow/flow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define W 96
#define H 80
#define BORDER 8

/* The flow of tvl1 with `settings` on frames 0 -> 1 of s into out (allocated
 * here); the frames into f1, f2. */
static int compute(const char *settings, const flow_synth *s, flow_image *f1, flow_image *f2,
                   flow_field *out)
{
    flow_device *d = harness_device();
    flow_params *p = harness_params("tvl1", settings);
    flow_context *ctx = NULL;
    int ok = 0;
    CHECK_OK(flow_synth_frame(s, W, H, 1, 0, f1));
    CHECK_OK(flow_synth_frame(s, W, H, 1, 1, f2));
    CHECK_OK(flow_field_alloc(out, W, H));
    if (d && p && flow_context_create(d, W, H, 1, p, &ctx) == FLOW_OK)
        ok = flow_context_compute(ctx, f1, f2, out) == FLOW_OK;
    if (!ok)
        fprintf(stderr, "    -> %s\n", flow_last_error());
    CHECK(ok);
    flow_context_destroy(ctx);
    flow_params_destroy(p);
    return ok;
}

static double interior_aee(const flow_field *out, const flow_field *gt)
{
    double sum = 0;
    long n = 0;
    for (int y = BORDER; y < H - BORDER; y++)
        for (int x = BORDER; x < W - BORDER; x++, n++) {
            const int i = y * W + x;
            sum += hypot(out->u[i] - gt->u[i], out->v[i] - gt->v[i]);
        }
    return sum / (double)n;
}

static double aee_of(const char *settings, const flow_synth *s)
{
    flow_image f1, f2;
    flow_field gt, out;
    double aee = 1e30;
    CHECK_OK(flow_synth_flow(s, W, H, 0, &gt));
    if (compute(settings, s, &f1, &f2, &out))
        aee = interior_aee(&out, &gt);
    flow_image_free(&f1), flow_image_free(&f2);
    flow_field_free(&gt), flow_field_free(&out);
    return aee;
}

/* Bounds: about 1.5x the AEE measured on the CPU device with the default
 * parameters (the test prints them; a zero flow scores 0.4 px and more).
 * The 5.3 px translation needs a deeper pyramid than 5 scales at 0.8 give on
 * 96 x 80 frames (coarsest 39 x 33, where it is still 2.2 px): scale_step
 * 0.5 (12 x 10 at the coarsest). */
static void test_generated(void)
{
    static const struct {
        const char *name, *settings;
        flow_synth s;
        double bound;
    } cases[] = {
        { "translate (0.35, -0.2)", NULL, { .motion = FLOW_SYNTH_TRANSLATE, .dx = 0.35, .dy = -0.2,
                                      .seed = 3 }, 0.034 },
        { "translate (1.5, 1.0)", NULL, { .motion = FLOW_SYNTH_TRANSLATE, .dx = 1.5, .dy = 1.0,
                                    .seed = 4 }, 0.006 },
        { "translate (4.6, -2.7)", "scale_step=0.5", { .motion = FLOW_SYNTH_TRANSLATE, .dx = 4.6, .dy = -2.7,
                                     .seed = 21 }, 0.012 },
        { "rotate 0.02 rad", NULL, { .motion = FLOW_SYNTH_ROTATE, .angle = 0.02, .seed = 5 }, 0.018 },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const double aee = aee_of(cases[k].settings, &cases[k].s);
        printf("    %-24s AEE %.4f (bound %.3f)\n", cases[k].name, aee, cases[k].bound);
        CHECK(aee <= cases[k].bound);
    }
}

/* The TV-L1 energy of a flow: lambda |f2(x + w) - f1(x)| (bilinear, the
 * point clamped into the frame) plus the isotropic total variation of each
 * component (forward differences), over the whole frame. */
static double bilinear(const flow_image *f, double x, double y)
{
    x = x < 0 ? 0 : x > W - 1 ? W - 1 : x;
    y = y < 0 ? 0 : y > H - 1 ? H - 1 : y;
    const int x0 = x < W - 1 ? (int)x : W - 2, y0 = y < H - 1 ? (int)y : H - 2;
    const double a = x - x0, b = y - y0;
    const float *p = f->data + y0 * W + x0;
    return (1 - b) * ((1 - a) * p[0] + a * p[1]) + b * ((1 - a) * p[W] + a * p[W + 1]);
}

static double energy(const flow_image *f1, const flow_image *f2, const flow_field *w,
                     double lambda)
{
    double e = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const int i = y * W + x;
            e += lambda * fabs(bilinear(f2, x + w->u[i], y + w->v[i]) - f1->data[i]);
            const float *c[2] = { w->u, w->v };
            for (int k = 0; k < 2; k++) {
                const double dx = x < W - 1 ? c[k][i + 1] - c[k][i] : 0;
                const double dy = y < H - 1 ? c[k][i + W] - c[k][i] : 0;
                e += hypot(dx, dy);
            }
        }
    return e;
}

/* More primal-dual iterations, lower energy, on a subpixel translation
 * (where the linearisation holds), without the median filter. */
static void test_energy_falls(void)
{
    const flow_synth s = { .motion = FLOW_SYNTH_TRANSLATE, .dx = 0.35, .dy = -0.2, .seed = 3 };
    static const char *const its[] = { "1", "5", "25", "125" };
    double e[4];
    for (int k = 0; k < 4; k++) {
        char settings[160];
        snprintf(settings, sizeof settings,
                 "median_filtering=1 outer_iterations=1 iterations=%s epsilon=0",
                 its[k]);
        flow_image f1, f2;
        flow_field out;
        e[k] = compute(settings, &s, &f1, &f2, &out) ? energy(&f1, &f2, &out, 0.15) : 1e30;
        flow_image_free(&f1), flow_image_free(&f2);
        flow_field_free(&out);
        printf("    %4s iterations: energy %.2f\n", its[k], e[k]);
    }
    for (int k = 1; k < 4; k++)
        CHECK(e[k] < e[k - 1]);
}

/* Whether two settings give the same flow, bit for bit. */
static int same_flow(const char *a, const char *b, const flow_synth *s, double *aee_a,
                     double *aee_b)
{
    flow_image f1, f2;
    flow_field fa = { 0 }, fb = { 0 }, gt;
    int same = 0;
    CHECK_OK(flow_synth_flow(s, W, H, 0, &gt));
    if (compute(a, s, &f1, &f2, &fa)) {
        flow_image_free(&f1), flow_image_free(&f2);
        if (compute(b, s, &f1, &f2, &fb))
            same = memcmp(fa.u, fb.u, sizeof(float) * W * H) == 0
                   && memcmp(fa.v, fb.v, sizeof(float) * W * H) == 0;
        *aee_a = interior_aee(&fa, &gt);
        *aee_b = interior_aee(&fb, &gt);
    }
    flow_image_free(&f1), flow_image_free(&f2);
    flow_field_free(&fa), flow_field_free(&fb), flow_field_free(&gt);
    return same;
}

/* epsilon: the warp's iterations stop once the mean squared update, tested
 * every 10 iterations, falls below epsilon^2.  A huge epsilon stops every
 * warp at the first test: the flow of 10 iterations and one median per
 * warp.  An epsilon no update falls below changes nothing.  One in between
 * gives neither flow (on this pair OpenCV's 0.01 stops every warp at the
 * first test already). */
static void test_epsilon(void)
{
    const flow_synth s = { .motion = FLOW_SYNTH_ROTATE, .angle = 0.02, .seed = 5 };
    double a, b;
    int same = same_flow("epsilon=1e6", "epsilon=0 iterations=10 outer_iterations=1", &s, &a, &b);
    printf("    epsilon 1e6 = 10 iterations a warp: %s (AEE %.4f, %.4f)\n", same ? "yes" : "no",
           a, b);
    CHECK(same);
    same = same_flow("epsilon=1e-30", "epsilon=0", &s, &a, &b);
    printf("    epsilon 1e-30 = epsilon 0: %s (AEE %.4f, %.4f)\n", same ? "yes" : "no", a, b);
    CHECK(same);
    /* in between: some warps stop at a later test, none runs to the end */
    const int as_none = same_flow("epsilon=0.001", "epsilon=0", &s, &a, &b);
    const int as_first = same_flow("epsilon=0.001", "epsilon=1e6", &s, &a, &b);
    printf("    epsilon 0.001: AEE %.4f, = epsilon 0: %s, = epsilon 1e6: %s\n", a,
           as_none ? "yes" : "no", as_first ? "yes" : "no");
    CHECK(!as_none && !as_first);
    CHECK(a <= 0.018); /* test_generated's bound for this pair */
}

static void test_rules(void)
{
    flow_params *p = harness_params("tvl1", NULL);
    if (!p)
        return;
    CHECK(flow_params_set(p, "median_filtering", "4") == FLOW_ERR_INVALID);
    CHECK(strstr(flow_last_error(), "median_filtering 4") != NULL);
    CHECK_OK(flow_params_set(p, "median_filtering", "3"));
    CHECK_OK(flow_params_validate(p));
    CHECK(flow_params_set(p, "tau", "0.3") == FLOW_ERR_INVALID);
    CHECK(flow_params_set(p, "nscales", "1") == FLOW_ERR_INVALID);
    CHECK(flow_params_set(p, "epsilon", "-0.01") == FLOW_ERR_INVALID);
    /* colour frames with color 1: refused, naming the parameter */
    CHECK_OK(flow_params_set(p, "color", "1"));
    flow_context *ctx = NULL;
    flow_device *d = harness_device();
    if (d) {
        CHECK(flow_context_create(d, W, H, 3, p, &ctx) == FLOW_ERR_INVALID);
        CHECK(strstr(flow_last_error(), "color 0") != NULL);
        CHECK(ctx == NULL);
    }
    flow_params_destroy(p);
}

int main(void)
{
    RUN(test_generated);
    RUN(test_energy_falls);
    RUN(test_epsilon);
    RUN(test_rules);
    return harness_report();
}
