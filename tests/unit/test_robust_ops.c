/* test_robust_ops.c -- the operations of method robust on the device under
 * test (FLOW_DEVICE): bicubic warping exact on quadratics, the data terms
 * (out-of-frame pixels without data, normalisation invariant to contrast,
 * the occlusion weight), the smoothness weight, the median and weighted
 * median filters and the occlusion weight with them, and the median's keys
 * and weighted median of a window against their definitions.  The method
 * as a whole: test_robust.c. */
#include "plane_io.h"
#include "core/pair.h"
#include "core/tensor.h"
#include "device/device.h"
#include "pixel/robust.h"
#include "pixel/terms.h"

#include <stdlib.h>
#include <string.h>

static flow_device *dev(void)
{
    return harness_device();
}

static void fill(flow_device *d, const flow_plane *p, float value)
{
    const flow_fill_args a = { *p, value };
    CHECK_OK(flow_k_fill(d, &a));
}

/* Keys' cubic convolution reproduces quadratics: the warp of a quadratic
 * image by a constant sub-pixel shift is the quadratic at the shifted
 * point, away from the border. */
static void test_bicubic_quadratic(void)
{
    flow_device *d = dev();
    if (!d)
        return;
    const int w = 24, h = 20;
    flow_plane src, dst;
    flow_pair fl;
    CHECK_OK(flow_plane_alloc(d, &src, w, h));
    CHECK_OK(flow_plane_alloc(d, &dst, w, h));
    CHECK_OK(flow_pair_alloc(d, &fl, w, h));
    float *a = malloc(sizeof *a * w * h);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            a[y * w + x] = 0.3f * x * x - 0.2f * x * y + 0.15f * y * y + 2.0f * x + 7.0f;
    plane_put(d, &src, a);
    const float du = 0.37f, dv = -0.61f;
    fill(d, &fl.u, du);
    fill(d, &fl.v, dv);
    double worst_cubic = 0, worst_linear = 0;
    for (int cubic = 0; cubic < 2; cubic++) {
        const flow_warp_args wa = { dst, src, fl, cubic, 0 };
        CHECK_OK(flow_k_warp(d, &wa));
        float *got = plane_get(d, &dst);
        for (int y = 2; y < h - 2; y++)
            for (int x = 2; x < w - 2; x++) {
                const double px = x + du, py = y + dv;
                const double want = 0.3 * px * px - 0.2 * px * py + 0.15 * py * py + 2.0 * px + 7.0;
                const double e = fabs(got[y * w + x] - want);
                if (cubic)
                    worst_cubic = fmax(worst_cubic, e);
                else
                    worst_linear = fmax(worst_linear, e);
            }
        free(got);
    }
    CHECK(worst_cubic < 2e-3);
    CHECK(worst_linear > 0.05); /* bilinear is not exact there: the test can tell */
    free(a);
    flow_plane_free(d, &src), flow_plane_free(d, &dst);
    flow_pair_free(d, &fl);
}

static void tensor_planes_get(flow_device *d, const flow_tensor *J, float *out[6])
{
    const flow_plane *p[6] = { &J->j11, &J->j12, &J->j13, &J->j22, &J->j23, &J->j33 };
    for (int k = 0; k < 6; k++)
        out[k] = plane_get(d, p[k]);
}

/* Data terms: a pixel sent out of the frame by w has none (both tensors
 * 0); with normalisation and a tiny zeta the terms do not change when the
 * frames' contrast is multiplied by 4. */
static void test_terms(void)
{
    flow_device *d = dev();
    if (!d)
        return;
    const int w = 32, h = 24;
    flow_plane f1, f2, g1, g2;
    flow_pair fl;
    flow_tensor Jb, Jg;
    CHECK_OK(flow_plane_alloc(d, &f1, w, h));
    CHECK_OK(flow_plane_alloc(d, &f2, w, h));
    CHECK_OK(flow_plane_alloc(d, &g1, w, h));
    CHECK_OK(flow_plane_alloc(d, &g2, w, h));
    CHECK_OK(flow_pair_alloc(d, &fl, w, h));
    CHECK_OK(flow_tensor_alloc(d, &Jb, w, h));
    CHECK_OK(flow_tensor_alloc(d, &Jg, w, h));
    float *a = malloc(sizeof *a * w * h), *b = malloc(sizeof *b * w * h);
    for (int i = 0; i < w * h; i++) {
        const int x = i % w, y = i / w;
        a[i] = 100.0f + 40.0f * sinf(0.5f * x) * cosf(0.37f * y);
        b[i] = 100.0f + 40.0f * sinf(0.5f * (x - 0.3f)) * cosf(0.37f * (y + 0.2f));
    }
    plane_put(d, &f1, a), plane_put(d, &f2, b);
    for (int i = 0; i < w * h; i++)
        a[i] *= 4.0f, b[i] *= 4.0f;
    plane_put(d, &g1, a), plane_put(d, &g2, b);
    /* w = (10, 0): pixels x >= w - 10 look outside the frame */
    fill(d, &fl.u, 10.0f);
    fill(d, &fl.v, 0.0f);
    float *t[2][2][6];
    for (int contrast = 0; contrast < 2; contrast++) {
        flow_terms_args ta = { .J = { Jb, Jg }, .kind = { FLOW_TERM_BRIGHTNESS, FLOW_TERM_GRADIENT },
                               .nterms = 2, .w = fl, .channels = 1, .normalise = 1,
                               .zeta2 = 1e-6f };
        ta.f1[0] = contrast ? g1 : f1;
        ta.f2w[0] = contrast ? g2 : f2;
        CHECK_OK(flow_k_terms(d, &ta));
        tensor_planes_get(d, &Jb, t[contrast][0]);
        tensor_planes_get(d, &Jg, t[contrast][1]);
    }
    int outside_zero = 1, inside_some = 0;
    double worst = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const int i = y * w + x;
            for (int k = 0; k < 6; k++)
                for (int term = 0; term < 2; term++) {
                    const float v = t[0][term][k][i];
                    if (x + 10 > w - 1)
                        outside_zero &= v == 0.0f;
                    else
                        inside_some |= v != 0.0f;
                    worst = fmax(worst, fabs(v - t[1][term][k][i]) / (1.0 + fabs(v)));
                }
        }
    CHECK(outside_zero);
    CHECK(inside_some);
    CHECK(worst < 1e-3);
    for (int c = 0; c < 2; c++)
        for (int term = 0; term < 2; term++)
            for (int k = 0; k < 6; k++)
                free(t[c][term][k]);
    free(a), free(b);
    flow_plane_free(d, &f1), flow_plane_free(d, &f2);
    flow_plane_free(d, &g1), flow_plane_free(d, &g2);
    flow_pair_free(d, &fl);
    flow_tensor_free(d, &Jb), flow_tensor_free(d, &Jg);
}

/* The data terms' occlusion weight: with occ_d2 and occ_e2 set, every
 * tensor value of both terms is the unweighted one times
 * o = max(exp(-min(div w, 0)^2 occ_d2 - e^2 occ_e2), 1e-6), div w by
 * central differences (clamped at the border), e = f2w - f1, both computed
 * here on the host; a flow converging at slope -0.5 over a stretch gives
 * weights below 1 there, 1 where it is constant and the frames match. */
static void test_terms_occlusion(void)
{
    flow_device *d = dev();
    if (!d)
        return;
    const int w = 40, h = 12;
    flow_plane f1, f2;
    flow_pair fl;
    flow_tensor J[2][2];
    CHECK_OK(flow_plane_alloc(d, &f1, w, h));
    CHECK_OK(flow_plane_alloc(d, &f2, w, h));
    CHECK_OK(flow_pair_alloc(d, &fl, w, h));
    for (int k = 0; k < 4; k++)
        CHECK_OK(flow_tensor_alloc(d, &J[k / 2][k % 2], w, h));
    float *a = malloc(sizeof *a * w * h), *b = malloc(sizeof *b * w * h);
    float *u = malloc(sizeof *u * w * h), *v = malloc(sizeof *v * w * h);
    for (int i = 0; i < w * h; i++) {
        const int x = i % w, y = i / w;
        a[i] = 100.0f + 40.0f * sinf(0.5f * x) * cosf(0.37f * y);
        b[i] = x >= 28 ? a[i] + 15.0f : a[i];
        u[i] = 1.0f - 0.5f * (float)(x < 10 ? 0 : x < 14 ? x - 10 : 4);
        v[i] = 0.0f;
    }
    plane_put(d, &f1, a), plane_put(d, &f2, b), plane_put(d, &fl.u, u), plane_put(d, &fl.v, v);
    const float inv_d2 = 1.0f / (2.0f * 0.3f * 0.3f), inv_e2 = 1.0f / (2.0f * 20.0f * 20.0f);
    float *t[2][2][6];
    for (int on = 0; on < 2; on++) {
        flow_terms_args ta = { .J = { J[on][0], J[on][1] },
                               .kind = { FLOW_TERM_BRIGHTNESS, FLOW_TERM_GRADIENT },
                               .nterms = 2, .w = fl, .channels = 1, .normalise = 1,
                               .zeta2 = 1.0f, .occ_d2 = on ? inv_d2 : 0.0f,
                               .occ_e2 = on ? inv_e2 : 0.0f };
        ta.f1[0] = f1;
        ta.f2w[0] = f2;
        CHECK_OK(flow_k_terms(d, &ta));
        tensor_planes_get(d, &J[on][0], t[on][0]);
        tensor_planes_get(d, &J[on][1], t[on][1]);
    }
    double worst = 0, lowest = 1;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const int i = y * w + x;
            const double div = 0.5 * (u[y * w + (x < w - 1 ? x + 1 : x)] - u[y * w + (x > 0 ? x - 1 : x)]);
            const double dn = div < 0 ? div : 0, e = (double)b[i] - a[i];
            const double o = fmax(exp(-dn * dn * inv_d2 - e * e * inv_e2), 1e-6);
            lowest = fmin(lowest, o);
            for (int term = 0; term < 2; term++)
                for (int k = 0; k < 6; k++) {
                    const double off = t[0][term][k][i], got = t[1][term][k][i];
                    worst = fmax(worst, fabs(got - o * off) / (1.0 + fabs(off)));
                }
        }
    printf("    lowest weight %.4f, worst difference %.2g\n", lowest, worst);
    CHECK(lowest < 0.5);
    CHECK(worst < 1e-4);
    for (int on = 0; on < 2; on++)
        for (int term = 0; term < 2; term++)
            for (int k = 0; k < 6; k++)
                free(t[on][term][k]);
    free(a), free(b), free(u), free(v);
    flow_plane_free(d, &f1), flow_plane_free(d, &f2);
    flow_pair_free(d, &fl);
    for (int k = 0; k < 4; k++)
        flow_tensor_free(d, &J[k / 2][k % 2]);
}

/* The smoothness weight g = exp(-|grad f| / lambda): on planes of constant
 * gradient (the five-point derivative is exact on them away from the
 * border) the root mean square of the channels' gradient magnitudes sets
 * it; g is 1 on a flat frame and stays in (0, 1] at the border. */
static void test_edge_weight(void)
{
    flow_device *d = dev();
    if (!d)
        return;
    const int w = 24, h = 20;
    /* channel c: f = 50 + a_c x + b_c y */
    static const float slope[3][2] = { { 3.0f, 4.0f }, { 0.0f, 0.0f }, { 6.0f, -8.0f } };
    flow_edge_weight_args a = { .inv_lambda = 0.1f };
    flow_plane f[3];
    CHECK_OK(flow_plane_alloc(d, &a.g, w, h));
    float *buf = malloc(sizeof *buf * w * h);
    for (int c = 0; c < 3; c++) {
        CHECK_OK(flow_plane_alloc(d, &f[c], w, h));
        for (int i = 0; i < w * h; i++)
            buf[i] = 50.0f + slope[c][0] * (float)(i % w) + slope[c][1] * (float)(i / w);
        plane_put(d, &f[c], buf);
        a.f[c] = f[c];
    }
    /* grey: |grad f| = 5; colour: sqrt((25 + 0 + 100) / 3); flat: 0 */
    const double expect[3] = { exp(-0.5), exp(-0.1 * sqrt(125.0 / 3.0)), 1.0 };
    for (int run = 0; run < 3; run++) {
        a.channels = run == 1 ? 3 : 1;
        if (run == 2)
            a.f[0] = f[1];
        CHECK_OK(flow_k_edge_weight(d, &a));
        float *g = plane_get(d, &a.g);
        double worst = 0;
        int in_range = 1;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                const float v = g[y * w + x];
                in_range &= v > 0.0f && v <= 1.0f;
                if (x >= 2 && x < w - 2 && y >= 2 && y < h - 2)
                    worst = fmax(worst, fabs(v - expect[run]));
            }
        printf("    %s: g %.6f, largest deviation inside %.2g\n",
               run == 0 ? "grey ramp" : run == 1 ? "3 channels" : "flat", expect[run], worst);
        CHECK(in_range);
        CHECK(worst < 1e-5);
        free(g);
    }
    free(buf);
    flow_plane_free(d, &a.g);
    for (int c = 0; c < 3; c++)
        flow_plane_free(d, &f[c]);
}

/* The plain median removes an outlier and keeps a ramp; the weighted one
 * moves a motion edge one pixel off the image edge onto it, where the
 * plain median keeps it off. */
static void test_median(void)
{
    flow_device *d = dev();
    if (!d)
        return;
    const int w = 32, h = 16;
    flow_pair src, dst;
    flow_plane img;
    CHECK_OK(flow_pair_alloc(d, &src, w, h));
    CHECK_OK(flow_pair_alloc(d, &dst, w, h));
    CHECK_OK(flow_plane_alloc(d, &img, w, h));
    float *u = malloc(sizeof *u * w * h), *v = malloc(sizeof *v * w * h);
    float *im = malloc(sizeof *im * w * h);
    for (int i = 0; i < w * h; i++) {
        u[i] = 0.1f * (i % w);        /* a ramp along x */
        v[i] = i == 8 * w + 10 ? 50.0f : 1.0f; /* one outlier */
        im[i] = i % w < 16 ? 0.0f : 100.0f;
    }
    plane_put(d, &src.u, u), plane_put(d, &src.v, v), plane_put(d, &img, im);
    for (int radius = 1; radius <= 2; radius++) {
        flow_median_args a = { .dst = dst, .src = src, .radius = radius };
        CHECK_OK(flow_k_median(d, &a));
        float *gu = plane_get(d, &dst.u), *gv = plane_get(d, &dst.v);
        double worst = 0;
        for (int y = 0; y < h; y++)
            for (int x = radius; x < w - radius; x++)
                worst = fmax(worst, fabs(gu[y * w + x] - u[y * w + x]));
        CHECK(worst < 1e-6);
        CHECK(gv[8 * w + 10] == 1.0f);
        free(gu), free(gv);
    }
    /* flow edge at x = 17, image edge at x = 16 */
    for (int i = 0; i < w * h; i++)
        u[i] = i % w < 17 ? 1.0f : 5.0f;
    plane_put(d, &src.u, u);
    for (int weighted = 0; weighted < 2; weighted++) {
        flow_median_args a = { .dst = dst, .src = src, .radius = 2, .channels = 1 };
        a.img[0] = img;
        if (weighted) {
            a.inv_c2 = 1.0f / (2.0f * 10.0f * 10.0f);
            a.inv_s2 = 1.0f / (2.0f * 2.0f * 2.0f);
        }
        CHECK_OK(flow_k_median(d, &a));
        float *gu = plane_get(d, &dst.u);
        CHECK(gu[8 * w + 16] == (weighted ? 5.0f : 1.0f));
        CHECK(gu[8 * w + 15] == 1.0f);
        CHECK(gu[8 * w + 17] == 5.0f);
        free(gu);
    }
    free(u), free(v), free(im);
    flow_pair_free(d, &src), flow_pair_free(d, &dst);
    flow_plane_free(d, &img);
}

/* The occlusion weight: 1 where the flow translates the first frame onto
 * the second; exp(-div^2 / 2 sigma_d^2) where the flow converges, 1 where
 * it diverges; exp(-e^2 / 2 sigma_e^2) for a brightness difference e; no
 * difference term where the flow leaves the frame.  Then the median with
 * it: a flow edge the image does not show (a flat frame) follows the
 * occlusion weight, the pixels weighted down giving way. */
static void test_occlusion(void)
{
    flow_device *d = dev();
    if (!d)
        return;
    const int w = 40, h = 12;
    flow_pair fl, dst;
    flow_plane f1, f2, o;
    CHECK_OK(flow_pair_alloc(d, &fl, w, h));
    CHECK_OK(flow_pair_alloc(d, &dst, w, h));
    CHECK_OK(flow_plane_alloc(d, &f1, w, h));
    CHECK_OK(flow_plane_alloc(d, &f2, w, h));
    CHECK_OK(flow_plane_alloc(d, &o, w, h));
    float *u = calloc((size_t)(w * h), sizeof *u), *v = calloc((size_t)(w * h), sizeof *v);
    float *a1 = malloc(sizeof *a1 * w * h), *a2 = malloc(sizeof *a2 * w * h);
    /* f2 = f1 moved by 2 px along x, plus 10 grey levels at x >= 30; the
     * flow 2 px, converging (slope -0.5) over 10 <= x < 14 and diverging
     * (slope +0.5) over 20 <= x < 24 */
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const int i = y * w + x;
            a1[i] = 3.0f * x + 0.5f * y;
            a2[i] = 3.0f * (x - 2) + 0.5f * y + (x >= 30 ? 10.0f : 0.0f);
            u[i] = 2.0f - 0.5f * (float)(x < 10 ? 0 : x < 14 ? x - 10 : 4)
                   + 0.5f * (float)(x < 20 ? 0 : x < 24 ? x - 20 : 4);
        }
    /* there the flow moves f1 onto f2 only where it is 2: compare where it is */
    plane_put(d, &f1, a1), plane_put(d, &f2, a2), plane_put(d, &fl.u, u), plane_put(d, &fl.v, v);
    const float sd = 0.3f, se = 20.0f;
    flow_occlusion_args oa = { .o = o, .w = fl, .channels = 1,
                               .inv_d2 = 1.0f / (2 * sd * sd), .inv_e2 = 1.0f / (2 * se * se) };
    oa.f1[0] = f1, oa.f2[0] = f2;
    CHECK_OK(flow_k_occlusion(d, &oa));
    float *go = plane_get(d, &o);
    const int y = 5;
    const double conv = exp(-0.25 / (2.0 * sd * sd));
    printf("    translated %.6f, converging %.6f (expected %.6f), diverging %.6f\n",
           go[y * w + 5], go[y * w + 12], conv, go[y * w + 21]);
    CHECK(fabs(go[y * w + 5] - 1.0) < 1e-6);
    /* inside the converging stretch the flow is 1..2 px, not the motion:
     * compare the divergence factor alone where the frames still match
     * (x - 2 + u = x - 2 + 2 - 0.5 (x - 10) = x - 0.5 (x - 10)): the
     * difference of f2 at x + u and f1 at x is 3 (u - 2) */
    const double e12 = 3.0 * (u[y * w + 12] - 2.0);
    CHECK(fabs(go[y * w + 12] - conv * exp(-e12 * e12 / (2.0 * se * se))) < 1e-5);
    const double e21 = 3.0 * (u[y * w + 21] - 2.0);
    CHECK(fabs(go[y * w + 21] - exp(-e21 * e21 / (2.0 * se * se))) < 1e-5);
    CHECK(fabs(go[y * w + 33] - exp(-100.0 / (2.0 * se * se))) < 1e-5);
    /* x + u past the right border: no difference term */
    CHECK(fabs(go[y * w + w - 1] - 1.0) < 1e-6);
    free(go);

    /* the median: flat frame, flow 1 | 5 at x = 16, the side x >= 16
     * weighted down */
    for (int i = 0; i < w * h; i++) {
        u[i] = i % w < 16 ? 1.0f : 5.0f;
        a1[i] = 0.0f;
        a2[i] = i % w < 16 ? 1.0f : 1e-6f;
    }
    plane_put(d, &fl.u, u), plane_put(d, &f1, a1), plane_put(d, &o, a2);
    for (int occluded = 0; occluded < 2; occluded++) {
        flow_median_args a = { .dst = dst, .src = fl, .radius = 2, .channels = 1,
                               .inv_c2 = 1.0f / 200.0f, .inv_s2 = 1.0f / 8.0f,
                               .occlusion = occluded, .occ = o };
        a.img[0] = f1;
        CHECK_OK(flow_k_median(d, &a));
        float *gu = plane_get(d, &dst.u);
        printf("    median at the flow edge, %s occlusion weight: %g\n",
               occluded ? "with" : "without", gu[y * w + 16]);
        CHECK(gu[y * w + 16] == (occluded ? 1.0f : 5.0f));
        CHECK(gu[y * w + 15] == 1.0f);
        CHECK(gu[y * w + 25] == 5.0f);
        free(gu);
    }
    free(u), free(v), free(a1), free(a2);
    flow_pair_free(d, &fl), flow_pair_free(d, &dst);
    flow_plane_free(d, &f1), flow_plane_free(d, &f2), flow_plane_free(d, &o);
}

static int compare_floats(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* The median's keys: a float and its key in the same order (negative
 * values, zeros of both signs, tiny and huge magnitudes), the key turned
 * back into the same float bit for bit; the plain median of random windows
 * of 9 and 25 such values against a sort. */
static void test_median_keys(void)
{
    static const float special[] = { 0.0f, -0.0f, 1e-38f, -1e-38f, 1e-45f, -1e-45f, 3e38f,
                                     -3e38f, 1.0f, -1.0f, 0.5f, -0.5f };
    unsigned seed = 777u;
    int wrong = 0, pairs = 0;
    float pool[512];
    for (int i = 0; i < 512; i++) {
        const float r = (float)(harness_uniform(&seed) * 200.0 - 100.0);
        pool[i] = i < 12 ? special[i] : i % 3 ? r : r * 1e-6f;
    }
    for (int i = 0; i < 512; i++) {
        const float back = flow_key_float(flow_float_key(pool[i]));
        wrong += memcmp(&back, &pool[i], sizeof back) != 0;
        for (int j = 0; j < 512; j++, pairs++)
            wrong += pool[i] < pool[j] && !(flow_float_key(pool[i]) < flow_float_key(pool[j]));
    }
    for (int trial = 0; trial < 2000; trial++) {
        const int n = trial % 2 ? 25 : 9;
        float v[25], sorted[25];
        for (int k = 0; k < n; k++)
            v[k] = sorted[k] = pool[(int)(512.0 * harness_uniform(&seed))];
        qsort(sorted, (size_t)n, sizeof *sorted, compare_floats);
        const float got = flow_median_of(v, n);
        wrong += got != sorted[n / 2];
    }
    printf("    %d ordered pairs and 2000 windows, %d wrong\n", pairs, wrong);
    CHECK(wrong == 0);
}

/* The weighted median of a window against its definition, on random
 * windows of 9 and 25 values drawn from a few levels (so that values tie)
 * with small integer weights (so that every sum is exact and a cumulative
 * weight can be exactly half): the smallest value whose cumulative weight
 * reaches half the total.  Also the sort it uses: the keys ascending, a
 * permutation of the window, the values in order. */
static void test_weighted_median_of(void)
{
    unsigned seed = 12345u;
    int checked = 0, wrong = 0, ties = 0;
    for (int trial = 0; trial < 4000; trial++) {
        const int n = trial % 2 ? 25 : 9;
        float v[25], w[25];
        double total = 0, level_weight[6] = { 0 };
        for (int k = 0; k < n; k++) {
            const int level = (int)(6.0 * harness_uniform(&seed));
            v[k] = -1.5f + 0.75f * (float)level;
            w[k] = (float)(1 + (int)(8.0 * harness_uniform(&seed)));
            level_weight[level] += w[k];
            total += w[k];
        }
        /* the reference: levels in ascending order */
        double below = 0;
        float expect = 0;
        for (int level = 0; level < 6; level++) {
            below += level_weight[level];
            if (below >= 0.5 * total) {
                expect = -1.5f + 0.75f * (float)level;
                ties += below == 0.5 * total;
                break;
            }
        }
        int key[25], seen[25] = { 0 };
        for (int k = 0; k < n; k++)
            key[k] = (flow_float_key(v[k]) & ~31) | k;
        flow_sort_keys(key, n);
        double sorted_weight[6] = { 0 };
        for (int k = 0; k < n; k++) {
            const int at = key[k] & 31;
            wrong += k > 0 && (key[k] < key[k - 1] || v[at] < v[key[k - 1] & 31]);
            wrong += at >= n || seen[at]++;
            sorted_weight[(int)lround((v[at] + 1.5f) / 0.75f)] += w[at];
        }
        for (int level = 0; level < 6; level++)
            wrong += sorted_weight[level] != level_weight[level];
        const float got = flow_weighted_median_of(v, w, n, (float)total);
        wrong += got != expect;
        checked++;
    }
    printf("    %d windows (9 and 25 values, %d with a cumulative weight of exactly half), "
           "%d wrong\n", checked, ties, wrong);
    CHECK(wrong == 0);
    CHECK(ties > 0);
}

int main(void)
{
    RUN(test_bicubic_quadratic);
    RUN(test_terms);
    RUN(test_terms_occlusion);
    RUN(test_edge_weight);
    RUN(test_median);
    RUN(test_occlusion);
    RUN(test_median_keys);
    RUN(test_weighted_median_of);
    return harness_report();
}
