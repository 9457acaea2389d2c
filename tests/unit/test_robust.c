/* test_robust.c -- method robust as a whole on the device under test
 * (FLOW_DEVICE): its accuracy on generated motion (smooth, a large
 * translation, the fine pyramid's depth, each of its levers off), the
 * solvers of its levels, the median after the last warp or every warp, the
 * luminance of a 3-channel context told `color 0`, three frames (previous,
 * previous_tol), the occlusion-aware data terms (a disc over a background)
 * and warp_levels 0 refused.  Its operations one by one: test_robust_ops.c. */
#include "harness.h"

#include <string.h>

/* test_occlusion_aware: the occluded pixels' error with the occlusion
 * weight at most this share of the error without it */
#define OCC_AWARE_GAIN 0.5

/* The flow of a generated pair by robust with the settings; AEE against
 * the exact flow, away from a margin of 8 pixels. */
static double robust_aee(const flow_synth *s, int w, int h, int channels, const char *settings)
{
    return harness_synth_aee("robust", s, w, h, channels, settings, 8, NULL);
}

/* The runs of test_accuracy: motion, settings, the largest AEE allowed
 * (with what was measured). */
typedef struct accuracy_run {
    int far; /* the 9 px translation, else the smooth 1.5 px motion */
    const char *settings, *what;
    double bound;
} accuracy_run;

static const accuracy_run accuracy_runs[] = {
    { 0, NULL, "smooth motion, 1.5 px", 0.2 }, /* 0.137 measured */
    /* 9 px: a single linearisation cannot follow it, the pyramid does */
    { 1, NULL, "translation (9, -6)", 0.1 },
    /* a fine scale ends the pyramid where a side stops shrinking (ceil(9 *
     * 0.9) = 9) instead of stacking rescaled 9x9 levels up to warp_levels */
    { 1, "warp_scale=0.9", "translation (9, -6), scale 0.9", 0.1 },
    /* two levels at 0.8, then halving: both kinds of level in one pyramid */
    { 1, "warp_fine=2", "translation (9, -6), 2 fine levels", 0.1 },
    /* each lever off still gives a flow (the parameters that switch them):
     * 0.13 .. 0.52 measured, gamma=0 the worst */
    { 0, "gamma=0", "smooth motion, gamma=0", 0.6 },
    { 0, "normalise=0 eps_data=1 alpha=20", "smooth motion, normalise=0 eps_data=1 alpha=20", 0.6 },
    { 0, "median=0", "smooth motion, median=0", 0.6 },
    { 0, "median_sigma_c=0", "smooth motion, median_sigma_c=0", 0.6 },
    { 0, "bicubic=0", "smooth motion, bicubic=0", 0.6 },
    { 0, "texture=0.9", "smooth motion, texture=0.9", 0.6 },
    { 0, "rho=1", "smooth motion, rho=1", 0.6 },
    { 0, "edge=0", "smooth motion, edge=0", 0.6 },
    { 0, "warps=1 warp_scale=0.5", "smooth motion, warps=1 warp_scale=0.5", 0.6 },
    /* 96x80 is below sor_below: SOR on every level unless sor_below 0 */
    { 0, "sor_below=0", "smooth motion, V-cycles on every level", 0.2 },
    { 1, "sor_below=0", "translation (9, -6), V-cycles on every level", 0.1 },
    { 0, "median_each=1", "smooth motion, median after every warp", 0.2 },
};
#define ACCURACY_RUNS ((int)(sizeof accuracy_runs / sizeof accuracy_runs[0]))

static void test_accuracy(void)
{
    if (!harness_device())
        return;
    const flow_synth smooth = { .motion = FLOW_SYNTH_SMOOTH, .amplitude = 1.5, .wavelength = 40,
                                .seed = 5 };
    const flow_synth far = { .motion = FLOW_SYNTH_TRANSLATE, .dx = 9.0, .dy = -6.0, .seed = 3 };
    for (int k = 0; k < ACCURACY_RUNS; k++) {
        const accuracy_run *r = &accuracy_runs[k];
        if (!harness_in_part(k))
            continue;
        const double e = robust_aee(r->far ? &far : &smooth, 96, 80, 1, r->settings);
        printf("    %s: AEE %.4f\n", r->what, e);
        CHECK(e < r->bound);
    }
}

/* max |a - b| over both components of two w x h fields. */
static double field_diff(const flow_field *a, const flow_field *b, int n)
{
    double m = 0;
    for (int i = 0; i < n; i++)
        m = fmax(m, fmax(fabs(a->u[i] - b->u[i]), fabs(a->v[i] - b->v[i])));
    return m;
}

/* The flow of the smooth motion at w x h with the settings (a NaN-free
 * field in *f, allocated here). */
static void smooth_flow(int w, int h, const char *settings, flow_field *f)
{
    const flow_synth s = { .motion = FLOW_SYNTH_SMOOTH, .amplitude = 1.5, .wavelength = 40,
                           .seed = 5 };
    CHECK(isfinite(harness_synth_aee("robust", &s, w, h, 1, settings, 8, f)));
}

/* The levels below sor_below are solved by sor_sweeps SOR sweeps of
 * sor_omega: with every level below it, the flow is the one of solver rbsor
 * with those sweeps, bit for bit; with none below it (sor_below 0) and with
 * some (the 96x80 finest level above it, the coarser ones below), each
 * level's solver changes the flow. */
static void test_level_solvers(void)
{
    if (!harness_device())
        return;
    const int w = 96, h = 80;
    flow_field sor_all = { 0 }, rbsor = { 0 }, cycles = { 0 }, mixed = { 0 };
    smooth_flow(w, h, "sor_below=1000000 sor_sweeps=9 sor_omega=1.6", &sor_all);
    smooth_flow(w, h, "sor_below=0 solver=rbsor iterations=9 omega=1.6", &rbsor);
    smooth_flow(w, h, "sor_below=0", &cycles);
    smooth_flow(w, h, "sor_below=7000", &mixed);
    const double same = field_diff(&sor_all, &rbsor, w * h);
    const double v = field_diff(&sor_all, &cycles, w * h), m = field_diff(&mixed, &cycles, w * h);
    printf("    sor_below above every level vs solver rbsor: max diff %.2e; vs V-cycles on "
           "every level %.2e; finest level by V-cycles only vs all %.2e\n", same, v, m);
    CHECK(same == 0.0);
    CHECK(v > 1e-4);
    CHECK(m > 1e-4);
    flow_field_free(&sor_all), flow_field_free(&rbsor), flow_field_free(&cycles);
    flow_field_free(&mixed);
}

/* median_each 0 filters after each level's last warp only: with one warp
 * per level the same flow as after every warp, bit for bit; with three, a
 * different one. */
static void test_median_each(void)
{
    if (!harness_device())
        return;
    const int w = 96, h = 80;
    flow_field a1 = { 0 }, e1 = { 0 }, a3 = { 0 }, e3 = { 0 };
    smooth_flow(w, h, "warps=1 median_each=0", &a1);
    smooth_flow(w, h, "warps=1 median_each=1", &e1);
    smooth_flow(w, h, "warps=3 median_each=0", &a3);
    smooth_flow(w, h, "warps=3 median_each=1", &e3);
    const double one = field_diff(&a1, &e1, w * h), three = field_diff(&a3, &e3, w * h);
    printf("    median after the last warp vs after every warp: max diff %.2e with one warp, "
           "%.2e with three\n", one, three);
    CHECK(one == 0.0);
    CHECK(three > 1e-4);
    flow_field_free(&a1), flow_field_free(&e1), flow_field_free(&a3), flow_field_free(&e3);
}

/* A 3-channel context told color 0 computes on the luminance: the same
 * flow as a 1-channel context on flow_image_to_gray's frames. */
static void test_luminance_context(void)
{
    flow_device *d = harness_device();
    if (!d)
        return;
    const int w = 64, h = 48;
    const flow_synth s = { .motion = FLOW_SYNTH_TRANSLATE, .dx = 1.2, .dy = 0.4, .seed = 8 };
    flow_image a, b, ga, gb;
    CHECK_OK(flow_synth_frame(&s, w, h, 3, 0, &a));
    CHECK_OK(flow_synth_frame(&s, w, h, 3, 1, &b));
    CHECK_OK(flow_image_to_gray(&a, &ga));
    CHECK_OK(flow_image_to_gray(&b, &gb));
    flow_field f3, f1, fc;
    CHECK_OK(flow_field_alloc(&f3, w, h));
    CHECK_OK(flow_field_alloc(&f1, w, h));
    CHECK_OK(flow_field_alloc(&fc, w, h));
    flow_params *p0 = harness_params("robust", "color=0"), *p1 = harness_params("robust", NULL);
    flow_context *c3 = NULL, *c1 = NULL, *cc = NULL;
    CHECK_OK(flow_context_create(d, w, h, 3, p0, &c3));
    CHECK_OK(flow_context_create(d, w, h, 1, p0, &c1));
    CHECK_OK(flow_context_create(d, w, h, 3, p1, &cc));
    if (c3 && c1 && cc) {
        CHECK_OK(flow_context_compute(c3, &a, &b, &f3));
        CHECK_OK(flow_context_compute(c1, &ga, &gb, &f1));
        CHECK_OK(flow_context_compute(cc, &a, &b, &fc));
        double diff = 0, colour_diff = 0;
        for (int i = 0; i < w * h; i++) {
            diff = fmax(diff, fmax(fabs(f3.u[i] - f1.u[i]), fabs(f3.v[i] - f1.v[i])));
            colour_diff = fmax(colour_diff, fabs(fc.u[i] - f1.u[i]));
        }
        printf("    luminance context vs gray frames: max diff %.2e; colour vs gray %.2e\n",
               diff, colour_diff);
        CHECK(diff < 1e-5);
        CHECK(colour_diff > 1e-3); /* colour 1 really uses the channels */
    }
    flow_context_destroy(c3), flow_context_destroy(c1), flow_context_destroy(cc);
    flow_params_destroy(p0), flow_params_destroy(p1);
    flow_image_free(&a), flow_image_free(&b), flow_image_free(&ga), flow_image_free(&gb);
    flow_field_free(&f3), flow_field_free(&f1), flow_field_free(&fc);
}

/* Frame k of the translation (dx, dy) over the texture of `seed`, plus
 * noise uniform in +-noise grey levels, independent per frame (`salt`). */
static void noisy_frame(double dx, double dy, unsigned seed, int w, int h, int k, double noise,
                        unsigned salt, flow_image *img)
{
    const flow_synth s = { .motion = FLOW_SYNTH_TRANSLATE, .dx = dx, .dy = dy, .seed = seed };
    CHECK_OK(flow_synth_frame(&s, w, h, 1, k, img));
    unsigned x = 12345u + 7919u * salt;
    for (int i = 0; img->data && i < w * h; i++) {
        x = x * 1664525u + 1013904223u;
        img->data[i] += (float)(noise * (2.0 * (double)(x >> 8) / 16777216.0 - 1.0));
    }
}

/* The AEE of a flow of the translation (dx, dy) everywhere. */
static double translation_aee(const flow_field *f, double dx, double dy)
{
    double e = 0;
    const int n = f->width * f->height;
    for (int i = 0; i < n; i++)
        e += hypot(f->u[i] - dx, f->v[i] - dy) / n;
    return e;
}

/* Three frames: a noisy sequence of constant velocity gives a better flow
 * from frame 1 to frame 2 when frame 0 is matched too (previous 1); where
 * the velocity changes between the pairs the frame before pulls the flow
 * off, less with previous_tol than without; a pair alone (compute) gives
 * the two-frame flow exactly. */
static void test_three_frames(void)
{
    flow_device *d = harness_device();
    if (!d)
        return;
    const int w = 96, h = 80, n = w * h;
    const double dx = 1.3, dy = -0.7, bx = 0.3, by = -1.2; /* (bx, by): frame 0 -> 1 when it changes */
    flow_image f0, f1, f2, g0;
    noisy_frame(dx, dy, 4, w, h, 0, 8.0, 0, &f0);
    noisy_frame(dx, dy, 4, w, h, 1, 8.0, 1, &f1);
    noisy_frame(dx, dy, 4, w, h, 2, 8.0, 2, &f2);
    /* frame 1 less (bx, by): the texture moved by (dx - bx, dy - by) */
    noisy_frame(dx - bx, dy - by, 4, w, h, 1, 8.0, 3, &g0);
    flow_field two, three, changed, ungated, pair;
    CHECK_OK(flow_field_alloc(&ungated, w, h));
    CHECK_OK(flow_field_alloc(&two, w, h));
    CHECK_OK(flow_field_alloc(&three, w, h));
    CHECK_OK(flow_field_alloc(&changed, w, h));
    CHECK_OK(flow_field_alloc(&pair, w, h));
    flow_params *p3 = harness_params("robust", "previous=1"), *p2 = harness_params("robust", NULL);
    flow_params *pu = harness_params("robust", "previous=1 previous_tol=0");
    flow_context *c3 = NULL, *c2 = NULL, *cu = NULL;
    CHECK_OK(flow_context_create(d, w, h, 1, p3, &c3));
    CHECK_OK(flow_context_create(d, w, h, 1, p2, &c2));
    CHECK_OK(flow_context_create(d, w, h, 1, pu, &cu));
    if (c3 && c2 && cu) {
        CHECK_OK(flow_context_compute(cu, &g0, &f1, &ungated));
        CHECK_OK(flow_context_compute_next(cu, &f2, &ungated));
        CHECK_OK(flow_context_compute(c2, &f1, &f2, &two));
        CHECK_OK(flow_context_compute(c3, &f0, &f1, &three));
        CHECK_OK(flow_context_compute_next(c3, &f2, &three));
        CHECK_OK(flow_context_compute(c3, &g0, &f1, &changed));
        CHECK_OK(flow_context_compute_next(c3, &f2, &changed));
        CHECK_OK(flow_context_compute(c3, &f1, &f2, &pair));
        const double e2 = translation_aee(&two, dx, dy), e3 = translation_aee(&three, dx, dy);
        const double ec = translation_aee(&changed, dx, dy);
        const double eu = translation_aee(&ungated, dx, dy);
        printf("    noisy translation: AEE two frames %.4f, three %.4f; the velocity changed "
               "by (%.1f, %.1f): three %.4f, without previous_tol %.4f\n",
               e2, e3, bx - dx, by - dy, ec, eu);
        CHECK(e3 < 0.8 * e2);
        CHECK(ec < 0.8 * eu);
        CHECK(field_diff(&pair, &two, n) == 0.0);
    }
    flow_context_destroy(c3), flow_context_destroy(c2), flow_context_destroy(cu);
    flow_params_destroy(p3), flow_params_destroy(p2), flow_params_destroy(pu);
    flow_field_free(&ungated);
    flow_image_free(&f0), flow_image_free(&f1), flow_image_free(&f2), flow_image_free(&g0);
    flow_field_free(&two), flow_field_free(&three), flow_field_free(&changed);
    flow_field_free(&pair);
}

/* Endpoint error of robust with the settings on a disc moving over a
 * moving background (both textured), over the background pixels of the
 * first frame that the disc covers in the second (*occ) and over the other
 * pixels (*vis), away from a margin of 8 pixels.  A background pixel x is
 * covered when x + (its integer motion) lies on the disc of the second
 * frame, where the flow of frame 1 is the disc's. */
static void disc_epe(const flow_synth *s, int w, int h, const char *settings, double *occ,
                     double *vis, long *nocc)
{
    flow_field out, gt1;
    *occ = *vis = INFINITY;
    *nocc = 0;
    if (!isfinite(harness_synth_aee("robust", s, w, h, 1, settings, 8, &out)))
        return;
    flow_field gt;
    CHECK_OK(flow_synth_flow(s, w, h, 0, &gt));
    CHECK_OK(flow_synth_flow(s, w, h, 1, &gt1));
    const int bx = (int)s->dx, by = (int)s->dy;
    double so = 0, sv = 0;
    long nv = 0;
    for (int y = 8; y < h - 8; y++)
        for (int x = 8; x < w - 8; x++) {
            const int i = y * w + x, j = (y + by) * w + x + bx;
            const double e = hypot(out.u[i] - gt.u[i], out.v[i] - gt.v[i]);
            const int background = gt.u[i] == (float)s->dx && gt.v[i] == (float)s->dy;
            if (background && gt1.u[j] == (float)s->odx && gt1.v[j] == (float)s->ody)
                so += e, (*nocc)++;
            else
                sv += e, nv++;
        }
    *occ = so / (double)*nocc;
    *vis = sv / (double)nv;
    flow_field_free(&out), flow_field_free(&gt), flow_field_free(&gt1);
}

/* The occlusion-aware data terms (occ_d): on a textured disc moving by
 * (4, 1) over a background moving by (-1, 0), the background the disc
 * covers has no match in the second frame; weighted by the divergence
 * factor of each warp's flow (occ_d 0.1), its data terms no longer pull it
 * after the disc and the smoothness carries the background's motion in.
 * The occluded pixels' error falls to OCC_AWARE_GAIN of the error without
 * the weight or less (measured: 2.21 -> 0.78 px); the visible pixels' may
 * grow by 0.02 px at most (measured: 0.034 -> 0.045 px, the disc's own
 * edge, where the flow converges too, losing some of its data). */
static void test_occlusion_aware(void)
{
    if (!harness_device())
        return;
    const flow_synth s = { .motion = FLOW_SYNTH_OBJECT, .dx = -1.0, .dy = 0.0, .odx = 4.0,
                           .ody = 1.0, .radius = 22, .seed = 7 };
    const int w = 128, h = 96;
    double occ0, vis0, occ1, vis1;
    long n0, n1;
    disc_epe(&s, w, h, "occ_d=0 occ_e=0", &occ0, &vis0, &n0);
    disc_epe(&s, w, h, "occ_d=0.1 occ_e=0", &occ1, &vis1, &n1);
    printf("    disc over background, %ld occluded px: EPE occluded %.4f -> %.4f, "
           "visible %.4f -> %.4f\n", n1, occ0, occ1, vis0, vis1);
    CHECK(n0 == n1 && n1 > 100);
    CHECK(occ1 <= OCC_AWARE_GAIN * occ0);
    CHECK(vis1 <= vis0 + 0.02);
}

/* robust warps: warp_levels 0 is refused, naming the parameter. */
static void test_needs_warping(void)
{
    flow_params *p = harness_params("robust", NULL);
    if (!p)
        return;
    CHECK(flow_params_set(p, "warp_levels", "0") == FLOW_ERR_INVALID);
    CHECK(strstr(flow_last_error(), "warp_levels") != NULL);
    flow_params_destroy(p);
}

int main(void)
{
    RUN_PARTS(test_accuracy, ACCURACY_RUNS);
    RUN(test_level_solvers);
    RUN(test_median_each);
    RUN(test_luminance_context);
    RUN(test_three_frames);
    RUN(test_occlusion_aware);
    RUN(test_needs_warping);
    return harness_report();
}
