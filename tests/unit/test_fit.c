/* test_fit.c -- the parameters a context runs (flow_context_params): level
 * counts that the frame size does not allow (warp_levels, plk's levels,
 * max_depth, dis's finest) are reduced to the counts used, worked out here
 * by hand from the pyramid and multigrid rules; counts that fit and the
 * "as many as fit" settings stay; and the reduced parameters give the very
 * same flow as those asked for, bit for bit, so that a .params written from
 * them reproduces the run.  Runs on the device of FLOW_DEVICE (default cpu). */
#include "harness.h"

#include <string.h>

/* The value of key as the context of w x h frames runs p. */
static double used(const flow_params *p, int w, int h, const char *key)
{
    flow_device *d = harness_device();
    flow_context *ctx = NULL;
    double v = -1e9;
    if (!d || !p)
        return v;
    CHECK_OK(flow_context_create(d, w, h, 1, p, &ctx));
    if (ctx) {
        CHECK_OK(flow_params_get_number(flow_context_params(ctx), key, &v));
        CHECK_OK(flow_params_validate(flow_context_params(ctx)));
    }
    flow_context_destroy(ctx);
    return v;
}

/* The flow of p on a generated pair of w x h into out (allocated here). */
static void flow_of(const flow_params *p, int w, int h, flow_field *out)
{
    flow_device *d = harness_device();
    flow_synth s;
    memset(&s, 0, sizeof s);
    s.motion = FLOW_SYNTH_TRANSLATE, s.dx = 0.6, s.dy = -0.3, s.seed = 9;
    flow_image f1 = {0}, f2 = {0};
    flow_context *ctx = NULL;
    CHECK_OK(flow_field_alloc(out, w, h));
    CHECK_OK(flow_synth_frame(&s, w, h, 1, 0, &f1));
    CHECK_OK(flow_synth_frame(&s, w, h, 1, 1, &f2));
    if (d && p)
        CHECK_OK(flow_context_create(d, w, h, 1, p, &ctx));
    if (ctx)
        CHECK_OK(flow_context_compute(ctx, &f1, &f2, out));
    flow_context_destroy(ctx);
    flow_image_free(&f1);
    flow_image_free(&f2);
}

/* p and the parameters its context runs give the same flow, bit for bit. */
static void check_same_flow(const flow_params *p, int w, int h)
{
    flow_device *d = harness_device();
    flow_context *ctx = NULL;
    flow_params *fitted = NULL;
    if (d && p)
        CHECK_OK(flow_context_create(d, w, h, 1, p, &ctx));
    if (ctx)
        CHECK_OK(flow_params_clone(flow_context_params(ctx), &fitted));
    flow_context_destroy(ctx);
    flow_field a = {0}, b = {0};
    flow_of(p, w, h, &a);
    flow_of(fitted, w, h, &b);
    const size_t n = sizeof(float) * (size_t)w * h;
    CHECK(a.u && b.u && memcmp(a.u, b.u, n) == 0 && memcmp(a.v, b.v, n) == 0);
    flow_field_free(&a);
    flow_field_free(&b);
    flow_params_destroy(fitted);
}

/* 32x24 at scale 0.5: 16x12, then 8x6 is under 8 px a side: 1 coarser level. */
static void test_warp_levels(void)
{
    flow_params *p = harness_params("hs", "warp_levels=12");
    CHECK(used(p, 32, 24, "warp_levels") == 1);
    check_same_flow(p, 32, 24);
    flow_params_destroy(p);
    p = harness_params("clg-nl", "warp_levels=2");
    CHECK(used(p, 64, 48, "warp_levels") == 2); /* 32x24, 16x12: both fit */
    flow_params_destroy(p);
    p = harness_params("clg", "warp_levels=0");
    CHECK(used(p, 32, 24, "warp_levels") == 0); /* no warping stays no warping */
    flow_params_destroy(p);
    /* warping on frames with no coarser level: still 1 (warping from zero) */
    p = harness_params("clg", "warp_levels=5");
    CHECK(used(p, 12, 10, "warp_levels") == 1);
    check_same_flow(p, 12, 10);
    flow_params_destroy(p);
}

/* robust's default, 100 levels ("as many as fit"): 16x16 -> 13 -> 11 -> 9
 * at scale 0.8 (warp_fine 3), then a halving would give 5, under 8: 3
 * coarser levels. */
static void test_robust_default(void)
{
    flow_params *p = harness_params("robust", "");
    CHECK(used(p, 16, 16, "warp_levels") == 3);
    check_same_flow(p, 16, 16);
    flow_params_destroy(p);
}

/* warp_fine 2: two levels at 0.8 (64x48 -> 52x39 -> 42x32), then halving
 * (21x16 -> 11x8; 6x4 is under 8): 4 coarser levels, where all at 0.8 give
 * 9 (heights 39, 32, 26, 21, 17, 14, 12, 10, 8). */
static void test_robust_fine_levels(void)
{
    flow_params *p = harness_params("robust", "warp_fine=2");
    CHECK(used(p, 64, 48, "warp_levels") == 4);
    check_same_flow(p, 64, 48);
    flow_params_destroy(p);
    p = harness_params("robust", "warp_fine=0");
    CHECK(used(p, 64, 48, "warp_levels") == 9);
    flow_params_destroy(p);
}

/* 32x24 halves while both sides of the coarser grid are 4 or more: 16x12,
 * 8x6 (not 4x3): the deepest level is 2. */
static void test_max_depth(void)
{
    flow_params *p = harness_params("hs", "solver=v max_depth=30");
    CHECK(used(p, 32, 24, "max_depth") == 2);
    check_same_flow(p, 32, 24);
    flow_params_destroy(p);
    p = harness_params("hs", "solver=fmg max_depth=1");
    CHECK(used(p, 32, 24, "max_depth") == 1);
    flow_params_destroy(p);
    p = harness_params("hs", "solver=w");
    CHECK(used(p, 32, 24, "max_depth") == -1); /* as deep as allowed stays so */
    flow_params_destroy(p);
}

/* plk keeps a coarsest side of two patches (16 px for 8-px patches): the
 * shorter side of 40x30 halves to 15, under 16: no level; that of 80x64 to
 * 32 and 16, then 8: 2 levels. */
static void test_plk_levels(void)
{
    flow_params *p = harness_params("plk", "levels=6 patch=8");
    CHECK(used(p, 40, 30, "levels") == 0);
    CHECK(used(p, 80, 64, "levels") == 2);
    check_same_flow(p, 80, 64);
    flow_params_destroy(p);
}

/* dis on 64x48 with 8-px patches: round(log2(64 / 32)) = 1 coarser level,
 * so finest 10 is level 1, and the preset's finest (medium: 1) fits. */
static void test_dis_finest(void)
{
    flow_params *p = harness_params("dis", "finest=10");
    CHECK(used(p, 64, 48, "finest") == 1);
    check_same_flow(p, 64, 48);
    flow_params_destroy(p);
    p = harness_params("dis", "preset=medium");
    CHECK(used(p, 64, 48, "finest") == -1);
    CHECK(used(p, 16, 16, "finest") == 0); /* no coarser level: the preset's 1 does not fit */
    flow_params_destroy(p);
}

int main(void)
{
    RUN(test_warp_levels);
    RUN(test_robust_fine_levels);
    RUN(test_robust_default);
    RUN(test_max_depth);
    RUN(test_plk_levels);
    RUN(test_dis_finest);
    return harness_report();
}
