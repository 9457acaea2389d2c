/* test_warp.c -- backward warping and the photometric error (flow/warp.h)
 * against an independent double-precision computation, exact integer
 * shifts, the unknown rule (unknown flow, outside the frame) and bad
 * arguments. */
#include "harness.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A deterministic texture of values 0..255 in `channels` channels. */
static void texture(flow_image *img, int w, int h, int channels, unsigned seed)
{
    CHECK_OK(flow_image_alloc(img, w, h, channels));
    srand(seed);
    for (long i = 0; i < (long)w * h * channels; i++)
        img->data[i] = (float)(rand() % 256);
}

/* frame(px, py) by bilinear interpolation in double, the point inside. */
static double bilinear(const flow_image *f, int c, double px, double py)
{
    const int w = f->width, h = f->height;
    const float *p = f->data + (size_t)c * w * h;
    const int x0 = (int)floor(px), y0 = (int)floor(py);
    const int x1 = x0 + 1 < w ? x0 + 1 : x0, y1 = y0 + 1 < h ? y0 + 1 : y0;
    const double ax = px - x0, ay = py - y0;
    return (1 - ay) * ((1 - ax) * p[y0 * w + x0] + ax * p[y0 * w + x1])
           + ay * ((1 - ax) * p[y1 * w + x0] + ax * p[y1 * w + x1]);
}

/* A smooth flow of up to 6 px that carries points across every border,
 * with a few unknown vectors. */
static void flow_with_holes(flow_field *w, int width, int height)
{
    CHECK_OK(flow_field_alloc(w, width, height));
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            const size_t i = (size_t)y * width + x;
            w->u[i] = (float)(6.0 * sin(0.11 * x + 0.05 * y) - 1.3);
            w->v[i] = (float)(5.0 * cos(0.07 * x - 0.09 * y) + 0.7);
            if ((x * 7 + y * 13) % 97 == 0)
                w->u[i] = (x & 1) ? NAN : FLOW_UNKNOWN;
        }
}

static void test_against_independent(void)
{
    const int W = 61, H = 47;
    for (int channels = 1; channels <= 3; channels += 2) {
        flow_image f2, out;
        flow_field w;
        texture(&f2, W, H, channels, 7u + channels);
        flow_with_holes(&w, W, H);
        unsigned char *known = malloc((size_t)W * H);
        flow_warp_stats st;
        CHECK_OK(flow_warp_image(&f2, &w, 17.0f, &out, known, &st));
        CHECK(out.width == W && out.height == H && out.channels == channels);
        long nknown = 0, nunknown = 0, noutside = 0, bad = 0;
        double worst = 0;
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                const size_t i = (size_t)y * W + x;
                const double u = w.u[i], v = w.v[i];
                const int unknown_flow = !(fabs(u) <= 1e9 && fabs(v) <= 1e9);
                const double px = x + u, py = y + v;
                const int inside = !unknown_flow && px >= 0 && px <= W - 1 && py >= 0 && py <= H - 1;
                nunknown += unknown_flow;
                noutside += !unknown_flow && !inside;
                nknown += inside;
                if (known[i] != inside)
                    bad++;
                for (int c = 0; c < channels; c++) {
                    const double got = out.data[(size_t)c * W * H + i];
                    const double want = inside ? bilinear(&f2, c, px, py) : 17.0;
                    if (fabs(got - want) > worst)
                        worst = fabs(got - want);
                }
            }
        CHECK(bad == 0);
        CHECK(worst < 2e-3);
        CHECK(st.total == (long)W * H);
        CHECK(st.known == nknown && st.unknown_flow == nunknown && st.outside == noutside);
        /* the test means something: each kind of pixel occurs */
        CHECK(nknown > W * H / 2 && nunknown > 5 && noutside > 50);
        printf("  %d channel%s: %ld warped, %ld unknown flow, %ld outside, largest difference %.2g\n",
               channels, channels == 1 ? "" : "s", nknown, nunknown, noutside, worst);

        /* the photometric error of the warp against frame 1 = f2 itself */
        float *err = malloc((size_t)W * H * sizeof *err);
        double mean = -1;
        CHECK_OK(flow_photometric_error(&f2, &out, known, err, &mean));
        double sum = 0;
        long n = 0, mismatch = 0;
        for (size_t i = 0; i < (size_t)W * H; i++) {
            if (!known[i]) {
                mismatch += !isnan(err[i]);
                continue;
            }
            double e = 0;
            for (int c = 0; c < channels; c++)
                e += fabs((double)f2.data[c * (size_t)W * H + i] - out.data[c * (size_t)W * H + i]);
            e /= channels;
            mismatch += fabs(err[i] - e) > 1e-3;
            sum += e;
            n++;
        }
        CHECK(mismatch == 0);
        CHECK_NEAR(mean, sum / n, 1e-6);
        free(err);
        free(known);
        flow_image_free(&out);
        flow_image_free(&f2);
        flow_field_free(&w);
    }
}

/* An integer translation (3, -2) reproduces frame 1 exactly where the
 * points stay inside: the photometric error is 0 there. */
static void test_integer_shift(void)
{
    const int W = 40, H = 30;
    flow_image f1, f2, out;
    texture(&f1, W, H, 1, 3u);
    CHECK_OK(flow_image_alloc(&f2, W, H, 1));
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const int sx = x - 3, sy = y + 2; /* f2(x) = f1(x - (3, -2)) */
            f2.data[y * W + x] = sx >= 0 && sx < W && sy >= 0 && sy < H ? f1.data[sy * W + sx] : 0;
        }
    flow_field w;
    CHECK_OK(flow_field_alloc(&w, W, H));
    for (int i = 0; i < W * H; i++) {
        w.u[i] = 3;
        w.v[i] = -2;
    }
    unsigned char known[40 * 30];
    flow_warp_stats st;
    CHECK_OK(flow_warp_image(&f2, &w, 0, &out, known, &st));
    long exact = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const int inside = x + 3 <= W - 1 && y - 2 >= 0;
            CHECK(known[y * W + x] == inside);
            exact += inside && out.data[y * W + x] == f1.data[y * W + x];
        }
    CHECK(st.known == (long)(W - 3) * (H - 2));
    CHECK(exact == st.known);
    float err[40 * 30];
    double mean = -1;
    CHECK_OK(flow_photometric_error(&f1, &out, known, err, &mean));
    CHECK(mean == 0);
    flow_image_free(&out);
    flow_image_free(&f1);
    flow_image_free(&f2);
    flow_field_free(&w);
}

static void test_bad_arguments(void)
{
    flow_image f2, out, gray;
    flow_field w;
    texture(&f2, 10, 8, 3, 1u);
    texture(&gray, 10, 8, 1, 1u);
    CHECK_OK(flow_field_alloc(&w, 10, 9));
    memset(w.u, 0, 10 * 9 * sizeof(float));
    memset(w.v, 0, 10 * 9 * sizeof(float));
    CHECK(flow_warp_image(&f2, &w, 0, &out, NULL, NULL) == FLOW_ERR_SIZE);
    CHECK(strstr(flow_last_error(), "10x8") && strstr(flow_last_error(), "10x9"));
    CHECK(out.data == NULL);
    flow_field_free(&w);
    CHECK_OK(flow_field_alloc(&w, 10, 8));
    memset(w.u, 0, 10 * 8 * sizeof(float));
    memset(w.v, 0, 10 * 8 * sizeof(float));
    CHECK(flow_warp_image(&f2, &w, NAN, &out, NULL, NULL) == FLOW_ERR_INVALID);
    CHECK(flow_warp_image(NULL, &w, 0, &out, NULL, NULL) == FLOW_ERR_INVALID);
    CHECK_OK(flow_warp_image(&f2, &w, 0, &out, NULL, NULL));
    float err[80];
    CHECK(flow_photometric_error(&gray, &out, NULL, err, NULL) == FLOW_ERR_SIZE);
    CHECK(strstr(flow_last_error(), "1 channel") && strstr(flow_last_error(), "3 channels"));
    /* a zero flow warps a frame onto itself */
    double mean = -1;
    CHECK_OK(flow_photometric_error(&f2, &out, NULL, err, &mean));
    CHECK(mean == 0);
    flow_image_free(&out);
    flow_image_free(&f2);
    flow_image_free(&gray);
    flow_field_free(&w);
}

int main(void)
{
    harness_run("against_independent", test_against_independent, 1);
    harness_run("integer_shift", test_integer_shift, 1);
    harness_run("bad_arguments", test_bad_arguments, 1);
    return harness_report();
}
