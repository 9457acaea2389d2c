/* test_kitti.c -- KITTI 16-bit flow PNG files (.png where a flow is
 * expected): the 1/64 px quantisation and its range, bad files, and the
 * evaluation data's KITTI ground truths read, converted and read back. */
#include "flowfile_common.h"

/* ---- KITTI .png ------------------------------------------------------------ */

/* Whether KITTI PNG is built in (libpng); marks the test skipped if not. */
static int kitti_built(void)
{
    flow_field f;
    CHECK_OK(flow_field_alloc(&f, 1, 1));
    f.u[0] = f.v[0] = 0.0f;
    const flow_status s = flow_field_write(harness_path("probe.png"), &f);
    flow_field_free(&f);
    if (s == FLOW_ERR_UNSUPPORTED) {
        CHECK(strstr(flow_last_error(), "needs libpng") != NULL);
        harness_skip("KITTI flow PNG: this libflow has no libpng");
        return 0;
    }
    CHECK_OK(s);
    return s == FLOW_OK;
}

/* round(64 c) / 64 with halves away from zero, computed apart from the
 * library: c scaled by 64 is exact in double; floor(|x| + 0.5) rounds it. */
static float nearest_64th(float c)
{
    const double x = (double)c * 64.0;
    const double r = x < 0 ? -floor(-x + 0.5) : floor(x + 0.5);
    return (float)(r / 64.0);
}

/* Known vectors come back as the nearest 1/64 px (ties away from zero),
 * exactly; unknown ones (FLOW_UNKNOWN, NaN, above 1e9) as invalid pixels
 * that read as FLOW_UNKNOWN; the range ends -512 and 511.984375 hold. */
static void test_kitti_round_trip(void)
{
    if (!kitti_built())
        return;
    flow_field f, g;
    CHECK_OK(flow_field_alloc(&f, 13, 7));
    unsigned seed = 11;
    for (int i = 0; i < 91; i++) {
        f.u[i] = (float)(1000.0 * harness_uniform(&seed) - 500.0);
        f.v[i] = (float)(20.0 * harness_uniform(&seed) - 10.0);
    }
    const float edge[][2] = {{-512.0f, 511.984375f}, {1.0f / 128, -1.0f / 128},
                             {3.0f / 128, -3.0f / 128}, {0.0078124f, -0.0078126f},
                             {-0.0f, 511.99216f}, {-512.0077f, 0.25f}};
    for (int k = 0; k < 6; k++)
        f.u[k] = edge[k][0], f.v[k] = edge[k][1];
    f.u[20] = f.v[20] = FLOW_UNKNOWN;
    f.u[21] = NAN, f.v[21] = 1.0f;
    f.u[22] = 3.0f, f.v[22] = -2e9f;
    const char *p = harness_path("rt.png");
    CHECK_OK(flow_field_write(p, &f));
    CHECK_OK(flow_field_read(p, &g));
    CHECK(g.width == 13 && g.height == 7);
    long wrong = 0;
    for (int i = 0; g.u && i < 91; i++) {
        if (flow_is_unknown(f.u[i], f.v[i]))
            wrong += g.u[i] != FLOW_UNKNOWN || g.v[i] != FLOW_UNKNOWN;
        else
            wrong += g.u[i] != nearest_64th(f.u[i]) || g.v[i] != nearest_64th(f.v[i]);
    }
    CHECK(wrong == 0);
    if (g.u) { /* the ends and the ties, by hand */
        CHECK(g.u[0] == -512.0f && g.v[0] == 511.984375f);
        CHECK(g.u[1] == 0.015625f && g.v[1] == -0.015625f);
        CHECK(g.u[2] == 0.03125f && g.v[2] == -0.03125f);
        CHECK(g.u[3] == 0.0f && g.v[3] == -0.015625f);
        CHECK(g.u[4] == 0.0f && g.v[4] == 511.984375f);
        CHECK(g.u[5] == -512.0f && g.v[5] == 0.25f);
    }
    /* what was read is on the 1/64 grid: written and read again, the same */
    flow_field h;
    CHECK_OK(flow_field_write(harness_path("rt2.png"), &g));
    CHECK_OK(flow_field_read(harness_path("rt2.png"), &h));
    CHECK(bit_differences(&g, &h) == 0);
    flow_field_free(&h);
    flow_field_free(&g);
    flow_field_free(&f);
}

/* A component outside what 16 bits hold is refused, naming the pixel and
 * the value, and leaves no file. */
static void test_kitti_range(void)
{
    if (!kitti_built())
        return;
    flow_field f;
    CHECK_OK(flow_field_alloc(&f, 4, 3));
    for (int i = 0; i < 12; i++)
        f.u[i] = f.v[i] = 1.0f;
    f.u[2 * 4 + 3] = 511.9922f; /* rounds to 512 */
    CHECK(flow_field_write(harness_path("range.png"), &f) == FLOW_ERR_INVALID);
    CHECK(strstr(flow_last_error(), "range.png: pixel (3, 2): u = 511.992188 is outside") != NULL);
    f.u[11] = 1.0f;
    f.v[1 * 4 + 0] = -600.0f;
    CHECK(flow_field_write(harness_path("range.png"), &f) == FLOW_ERR_INVALID);
    CHECK(strstr(flow_last_error(), "pixel (0, 1): v = -600") != NULL);
    CHECK(harness_count_files("range.png") == 0);
    flow_field_free(&f);
}

/* An 8-bit PNG (an image), a one-channel one, something not PNG at all, and
 * a KITTI file cut short: each refused as a flow, saying why. */
static void test_kitti_bad_files(void)
{
    if (!kitti_built())
        return;
    flow_image img;
    CHECK_OK(flow_image_alloc(&img, 5, 4, 3));
    for (int i = 0; i < 60; i++)
        img.data[i] = (float)(i * 4);
    CHECK_OK(flow_image_write(harness_path("rgb8.png"), &img));
    expect_bad(harness_path("rgb8.png"), FLOW_ERR_FORMAT, "not a KITTI flow PNG");
    flow_image_free(&img);
    CHECK_OK(flow_image_alloc(&img, 5, 4, 1));
    for (int i = 0; i < 20; i++)
        img.data[i] = (float)(i * 10);
    CHECK_OK(flow_image_write(harness_path("gray8.png"), &img));
    expect_bad(harness_path("gray8.png"), FLOW_ERR_FORMAT, "1 channel(s) of 8 bits");
    flow_image_free(&img);
    expect_bad_bytes("text.png", "PIEH and more text", 18, FLOW_ERR_FORMAT, "not a PNG file");
    expect_bad_bytes("tiny.png", "\x89PNG", 4, FLOW_ERR_FORMAT, "too short");

    flow_field f;
    awkward_field(&f, 0);
    f.u[4] = f.v[4] = 0.5f; /* in range */
    CHECK_OK(flow_field_write(harness_path("good.png"), &f));
    flow_field_free(&f);
    size_t n;
    unsigned char *b = harness_read_file(harness_path("good.png"), &n);
    if (!b)
        return;
    expect_bad_bytes("trunc.png", b, n - 20, FLOW_ERR_FORMAT, "truncated");
    expect_bad_bytes("half.png", b, n / 2, FLOW_ERR_FORMAT, "PNG");
    free(b);
}

/* KITTI 2012's flow_noc ground truths: the size, about a quarter of the
 * pixels valid (a laser scanner's points, README of the data), and the
 * field through .pfm and back to .png the same bit for bit (every value
 * is on the 1/64 grid and in range). */
static void test_real_kitti(void)
{
    const char *data = harness_need_data();
    if (!data || !kitti_built())
        return;
    const struct { const char *file; int w, h; } pairs[] = {
        {"kitti2012/training/flow_noc/000045_10.png", 1241, 376},
        {"kitti2012/training/flow_noc/000157_10.png", 1226, 370}};
    int tested = 0;
    for (int k = 0; k < 2; k++) {
        char src[1024];
        if (!harness_data_file(src, sizeof src, pairs[k].file))
            continue;
        tested++;
        flow_field gt, a, b;
        CHECK_OK(flow_field_read(src, &gt));
        CHECK(gt.width == pairs[k].w && gt.height == pairs[k].h);
        if (!gt.u)
            continue;
        size_t known = 0;
        const size_t n = (size_t)gt.width * gt.height;
        for (size_t i = 0; i < n; i++)
            known += !flow_is_unknown(gt.u[i], gt.v[i]);
        CHECK(known > n / 5 && known < n * 3 / 10);
        CHECK_OK(flow_field_write(harness_path("kitti.pfm"), &gt));
        CHECK_OK(flow_field_read(harness_path("kitti.pfm"), &a));
        CHECK_OK(flow_field_write(harness_path("kitti.png"), &a));
        CHECK_OK(flow_field_read(harness_path("kitti.png"), &b));
        CHECK(bit_differences(&gt, &b) == 0);
        flow_field_free(&gt);
        flow_field_free(&a);
        flow_field_free(&b);
    }
    CHECK(tested >= 1);
}

int main(void)
{
    RUN(test_kitti_round_trip);
    RUN(test_kitti_range);
    RUN(test_kitti_bad_files);
    RUN(test_real_kitti);
    return harness_report();
}
