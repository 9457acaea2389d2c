/* test_preprocess.c -- the foundation operations on the device under test
 * (FLOW_DEVICE): memory, Gaussian convolution, derivatives, motion tensor,
 * restriction and prolongation, warping and the resampling of pyramids of
 * any scale, each against a direct double-precision evaluation of its
 * definition in seed 001.  The operations are reached through the private
 * device layer (device/device.h: flow_k_<op>(device, &args)) and the core's
 * tensor pipeline (core/tensor.h). */
#include "plane_io.h"
#include "core/tensor.h"
#include "device/device.h"

#include <stdlib.h>
#include <string.h>

/* Host-side helpers: a plane filled from / read into a dense w*h array. */
static float *host_alloc(int w, int h)
{
    return calloc((size_t)w * h, sizeof(float));
}

/* p = value everywhere (the device operation fill). */
static void fill(flow_device *d, const flow_plane *p, float value)
{
    const flow_fill_args a = { *p, value };
    CHECK_OK(flow_k_fill(d, &a));
}

static void random_fill(float *a, int n, unsigned seed)
{
    for (int i = 0; i < n; i++)
        a[i] = (float)(255.0 * harness_uniform(&seed));
}

static double clamped(const float *a, int w, int h, int x, int y)
{
    x = x < 0 ? 0 : x >= w ? w - 1 : x;
    y = y < 0 ? 0 : y >= h ? h - 1 : y;
    return a[(size_t)y * w + x];
}

static double max_abs_diff(const float *a, const double *ref, int n)
{
    double m = 0;
    for (int i = 0; i < n; i++) {
        double d = fabs(a[i] - ref[i]);
        if (!(d <= m))
            m = isnan(d) ? INFINITY : d;
    }
    return m;
}

static void test_gauss_kernel(void)
{
    flow_kernel k;
    CHECK_OK(flow_gauss_kernel(1.5, &k));
    CHECK(k.radius == 5); /* ceil(3 * 1.5) */
    double sum = 0;
    for (int i = 0; i <= 2 * k.radius; i++)
        sum += k.w[i];
    CHECK_NEAR(sum, 1.0, 1e-6);
    CHECK_NEAR(k.w[k.radius - 2], k.w[k.radius + 2], 0);
    CHECK_NEAR(k.w[k.radius + 1] / k.w[k.radius], exp(-0.5 / (1.5 * 1.5)), 1e-6);
    CHECK_OK(flow_gauss_kernel(0.0, &k));
    CHECK(k.radius == 0 && k.w[0] == 1.0f);
    CHECK(flow_gauss_kernel(-1.0, &k) == FLOW_ERR_INVALID);
    CHECK(flow_gauss_kernel(NAN, &k) == FLOW_ERR_INVALID);
    CHECK(flow_gauss_kernel(17.0, &k) == FLOW_ERR_INVALID);
}

static void test_upload_download_fill(void)
{
    flow_device *d = harness_device();
    if (!d)
        return;
    const int w = 37, h = 23;
    flow_plane p, q;
    CHECK_OK(flow_plane_alloc(d, &p, w, h));
    CHECK_OK(flow_plane_alloc(d, &q, w, h));
    CHECK(p.pitch >= w);
    float *a = host_alloc(w, h);
    random_fill(a, w * h, 7);
    plane_put(d, &p, a);
    CHECK_OK(flow_copy(d, &q, &p));
    float *back = plane_get(d, &q);
    CHECK(memcmp(a, back, sizeof(float) * w * h) == 0);
    fill(d, &p, -2.5f);
    free(back);
    back = plane_get(d, &p);
    int all = 1;
    for (int i = 0; i < w * h; i++)
        all &= back[i] == -2.5f;
    CHECK(all);
    flow_plane_free(d, &p);
    flow_plane_free(d, &q);
    CHECK(flow_plane_alloc(d, &q, 0, 5) == FLOW_ERR_INVALID);
    CHECK(q.data == NULL);
    /* 2^31 elements: offsets are int arithmetic (FLOW_PX), refused before allocating */
    CHECK(flow_plane_alloc(d, &q, 65536, 32768) == FLOW_ERR_INVALID);
    CHECK(q.data == NULL);
    free(a);
    free(back);
}

/* Gaussian smoothing of random data against the 2-D sum with clamping. */
static void test_smooth(void)
{
    flow_device *d = harness_device();
    if (!d)
        return;
    const int w = 41, h = 29;
    flow_kernel k;
    CHECK_OK(flow_gauss_kernel(1.2, &k));
    flow_plane src, dst, tmp;
    CHECK_OK(flow_plane_alloc(d, &src, w, h));
    CHECK_OK(flow_plane_alloc(d, &dst, w, h));
    CHECK_OK(flow_plane_alloc(d, &tmp, w, h));
    float *a = host_alloc(w, h);
    random_fill(a, w * h, 11);
    plane_put(d, &src, a);
    CHECK_OK(flow_smooth(d, &dst, &src, &tmp, &k));
    float *got = plane_get(d, &dst);
    double *ref = calloc((size_t)w * h, sizeof(double));
    const int r = k.radius;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double s = 0;
            for (int j = -r; j <= r; j++)
                for (int i = -r; i <= r; i++)
                    s += (double)k.w[r + i] * k.w[r + j] * clamped(a, w, h, x + i, y + j);
            ref[y * w + x] = s;
        }
    CHECK(max_abs_diff(got, ref, w * h) < 1e-3); /* values up to 255 */
    /* In place: dst == src. */
    CHECK_OK(flow_smooth(d, &src, &src, &tmp, &k));
    free(got);
    got = plane_get(d, &src);
    CHECK(max_abs_diff(got, ref, w * h) < 1e-3);
    /* A batch of three planes in one call (the device operations, and the
     * core's flow_smooth_planes): each as smoothed alone, bit for bit;
     * batches of 0 or more than FLOW_BATCH_MAX planes are refused (by
     * flow_smooth_planes: the device operations trust their arguments). */
    flow_plane in[3], mid[3], out[3], out2[3];
    flow_plane *pin[3], *pmid[3], *pout2[3];
    for (int i = 0; i < 3; i++) {
        CHECK_OK(flow_plane_alloc(d, &in[i], w, h));
        CHECK_OK(flow_plane_alloc(d, &mid[i], w, h));
        CHECK_OK(flow_plane_alloc(d, &out[i], w, h));
        CHECK_OK(flow_plane_alloc(d, &out2[i], w, h));
        random_fill(a, w * h, 20 + i);
        plane_put(d, &in[i], a);
        pin[i] = &in[i], pmid[i] = &mid[i], pout2[i] = &out2[i];
    }
    flow_convolve_args ca;
    memset(&ca, 0, sizeof ca);
    ca.n = 3;
    ca.k = k;
    for (int i = 0; i < 3; i++)
        ca.dst[i] = mid[i], ca.src[i] = in[i];
    CHECK_OK(flow_k_convolve_rows(d, &ca));
    for (int i = 0; i < 3; i++)
        ca.dst[i] = out[i], ca.src[i] = mid[i];
    CHECK_OK(flow_k_convolve_cols(d, &ca));
    CHECK_OK(flow_smooth_planes(d, pout2, (const flow_plane *const *)pin, pmid, 3, &k));
    for (int i = 0; i < 3; i++) {
        CHECK_OK(flow_smooth(d, &dst, &in[i], &tmp, &k));
        float *one = plane_get(d, &dst), *batch = plane_get(d, &out[i]), *core = plane_get(d, &out2[i]);
        CHECK(memcmp(one, batch, sizeof(float) * w * h) == 0);
        CHECK(memcmp(one, core, sizeof(float) * w * h) == 0);
        free(one), free(batch), free(core);
    }
    CHECK(flow_smooth_planes(d, pout2, (const flow_plane *const *)pin, pmid, 0, &k)
          == FLOW_ERR_INVALID);
    flow_plane *many[FLOW_BATCH_MAX + 1], *many_tmp[FLOW_BATCH_MAX + 1];
    for (int i = 0; i <= FLOW_BATCH_MAX; i++)
        many[i] = &out2[i % 3], many_tmp[i] = &mid[i % 3];
    CHECK(flow_smooth_planes(d, many, (const flow_plane *const *)many, many_tmp,
                             FLOW_BATCH_MAX + 1, &k)
          == FLOW_ERR_INVALID);
    for (int i = 0; i < 3; i++) {
        flow_plane_free(d, &in[i]);
        flow_plane_free(d, &mid[i]);
        flow_plane_free(d, &out[i]);
        flow_plane_free(d, &out2[i]);
    }
    flow_plane_free(d, &src);
    flow_plane_free(d, &dst);
    flow_plane_free(d, &tmp);
    free(a);
    free(got);
    free(ref);
}

/* The fourth-order stencil differentiates cubics exactly away from borders;
 * at borders it matches the clamped definition. */
static void test_derivatives(void)
{
    flow_device *d = harness_device();
    if (!d)
        return;
    const int w = 19, h = 14;
    flow_plane f1, f2, fx, fy, ft;
    flow_plane *all[] = { &f1, &f2, &fx, &fy, &ft };
    for (int i = 0; i < 5; i++)
        CHECK_OK(flow_plane_alloc(d, all[i], w, h));
    float *a = host_alloc(w, h), *c = host_alloc(w, h);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double X = (x - 9) / 4.0, Y = (y - 7) / 4.0;
            a[y * w + x] = (float)(X * X * X + 2 * X * Y - Y * Y);
            c[y * w + x] = (float)(X * X * X + 2 * X * Y - Y * Y + 0.5 * X + 1);
        }
    plane_put(d, &f1, a);
    plane_put(d, &f2, c);
    const flow_derivatives_args da = { fx, fy, ft, f1, f2 };
    CHECK_OK(flow_k_derivatives(d, &da));
    float *gx = plane_get(d, &fx), *gy = plane_get(d, &fy), *gt = plane_get(d, &ft);
    double ex = 0, ey = 0, et = 0, eb = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double X = (x - 9) / 4.0, Y = (y - 7) / 4.0;
            int i = y * w + x;
            if (x >= 2 && x < w - 2 && y >= 2 && y < h - 2) {
                /* d/dx per pixel = (d/dX) / 4 */
                ex = fmax(ex, fabs(gx[i] - (3 * X * X + 2 * Y + 0.25) / 4.0));
                ey = fmax(ey, fabs(gy[i] - (2 * X - 2 * Y) / 4.0));
            } else {
                double d1 = (clamped(a, w, h, x - 2, y) - 8 * clamped(a, w, h, x - 1, y)
                             + 8 * clamped(a, w, h, x + 1, y) - clamped(a, w, h, x + 2, y)) / 12;
                double d2 = (clamped(c, w, h, x - 2, y) - 8 * clamped(c, w, h, x - 1, y)
                             + 8 * clamped(c, w, h, x + 1, y) - clamped(c, w, h, x + 2, y)) / 12;
                eb = fmax(eb, fabs(gx[i] - 0.5 * (d1 + d2)));
            }
            et = fmax(et, fabs(gt[i] - (c[i] - a[i])));
        }
    CHECK(ex < 1e-5);
    CHECK(ey < 1e-5);
    CHECK(et < 1e-6);
    CHECK(eb < 1e-5);
    for (int i = 0; i < 5; i++)
        flow_plane_free(d, all[i]);
    free(a), free(c), free(gx), free(gy), free(gt);
}

/* Gray: J = K_rho * (grad3 grad3^T) of the presmoothed pair, against a
 * reference built from the already-tested smoothing and derivatives.
 * Colour: the tensor of three channels is the sum of their tensors. */
static void test_motion_tensor(void)
{
    flow_device *d = harness_device();
    if (!d)
        return;
    const int w = 33, h = 21;
    flow_kernel ks, kr;
    CHECK_OK(flow_gauss_kernel(0.8, &ks));
    CHECK_OK(flow_gauss_kernel(2.0, &kr));
    flow_plane ch1[3], ch2[3];
    float *a = host_alloc(w, h);
    for (int c = 0; c < 3; c++) {
        CHECK_OK(flow_plane_alloc(d, &ch1[c], w, h));
        CHECK_OK(flow_plane_alloc(d, &ch2[c], w, h));
        random_fill(a, w * h, 100 + c);
        plane_put(d, &ch1[c], a);
        random_fill(a, w * h, 200 + c);
        plane_put(d, &ch2[c], a);
    }
    flow_tensor J, Jc;
    flow_tensor_work work;
    CHECK_OK(flow_tensor_alloc(d, &J, w, h));
    CHECK_OK(flow_tensor_alloc(d, &Jc, w, h));
    CHECK_OK(flow_tensor_work_alloc(d, &work, w, h));
    const flow_plane *p1 = ch1, *p2 = ch2; /* the frames: one plane per channel */

    /* colour */
    CHECK_OK(flow_motion_tensor(d, &Jc, p1, p2, 3, &ks, &kr, &work));
    flow_plane *jc[6] = { &Jc.j11, &Jc.j12, &Jc.j13, &Jc.j22, &Jc.j23, &Jc.j33 };
    flow_plane *jg[6] = { &J.j11, &J.j12, &J.j13, &J.j22, &J.j23, &J.j33 };
    double *sum[6];
    for (int k = 0; k < 6; k++)
        sum[k] = calloc((size_t)w * h, sizeof(double));
    double worst_gray = 0;
    for (int c = 0; c < 3; c++) {
        CHECK_OK(flow_motion_tensor(d, &J, &p1[c], &p2[c], 1, &ks, &kr, &work));
        /* reference for this channel from the separately tested pieces */
        flow_plane s1, s2, fx, fy, ft, tmp;
        flow_plane *all[] = { &s1, &s2, &fx, &fy, &ft, &tmp };
        for (int i = 0; i < 6; i++)
            CHECK_OK(flow_plane_alloc(d, all[i], w, h));
        CHECK_OK(flow_smooth(d, &s1, &p1[c], &tmp, &ks));
        CHECK_OK(flow_smooth(d, &s2, &p2[c], &tmp, &ks));
        const flow_derivatives_args da = { fx, fy, ft, s1, s2 };
        CHECK_OK(flow_k_derivatives(d, &da));
        float *gx = plane_get(d, &fx), *gy = plane_get(d, &fy), *gt = plane_get(d, &ft);
        for (int k = 0; k < 6; k++) {
            float *prod = host_alloc(w, h);
            for (int i = 0; i < w * h; i++) {
                double g[3] = { gx[i], gy[i], gt[i] };
                static const int row[6] = { 0, 0, 0, 1, 1, 2 }, col[6] = { 0, 1, 2, 1, 2, 2 };
                prod[i] = (float)(g[row[k]] * g[col[k]]);
            }
            double *ref = calloc((size_t)w * h, sizeof(double));
            const int r = kr.radius;
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++) {
                    double s = 0;
                    for (int j = -r; j <= r; j++)
                        for (int i = -r; i <= r; i++)
                            s += (double)kr.w[r + i] * kr.w[r + j] * clamped(prod, w, h, x + i, y + j);
                    ref[y * w + x] = s;
                    sum[k][y * w + x] += s;
                }
            float *got = plane_get(d, jg[k]);
            double scale = 0;
            for (int i = 0; i < w * h; i++)
                scale = fmax(scale, fabs(ref[i]));
            worst_gray = fmax(worst_gray, max_abs_diff(got, ref, w * h) / scale);
            free(got), free(ref), free(prod);
        }
        free(gx), free(gy), free(gt);
        for (int i = 0; i < 6; i++)
            flow_plane_free(d, all[i]);
    }
    CHECK(worst_gray < 1e-5);
    double worst_colour = 0;
    for (int k = 0; k < 6; k++) {
        float *got = plane_get(d, jc[k]);
        double scale = 0;
        for (int i = 0; i < w * h; i++)
            scale = fmax(scale, fabs(sum[k][i]));
        worst_colour = fmax(worst_colour, max_abs_diff(got, sum[k], w * h) / scale);
        free(got);
        free(sum[k]);
    }
    CHECK(worst_colour < 1e-5);
    flow_tensor_free(d, &J);
    flow_tensor_free(d, &Jc);
    flow_tensor_work_free(d, &work);
    for (int c = 0; c < 3; c++)
        flow_plane_free(d, &ch1[c]), flow_plane_free(d, &ch2[c]);
    free(a);
}

/* Restriction: sizes ceil(n/2); full weighting (1 2 1)x(1 2 1)/16 with
 * clamped fine coordinates; constants and (in the interior) linear
 * functions are preserved.  Odd and even sizes, down to 1x1. */
static void check_restriction(int w, int h)
{
    flow_device *d = harness_device();
    if (!d)
        return;
    const int cw = (w + 1) / 2, ch = (h + 1) / 2;
    flow_plane f, c;
    CHECK_OK(flow_plane_alloc(d, &f, w, h));
    CHECK_OK(flow_plane_alloc(d, &c, cw, ch));
    float *a = host_alloc(w, h);
    random_fill(a, w * h, (unsigned)(w * 31 + h));
    plane_put(d, &f, a);
    const flow_restriction_args ra = { c, f };
    CHECK_OK(flow_k_restriction(d, &ra));
    float *got = plane_get(d, &c);
    double *ref = calloc((size_t)cw * ch, sizeof(double));
    static const double wt[3] = { 0.25, 0.5, 0.25 };
    for (int y = 0; y < ch; y++)
        for (int x = 0; x < cw; x++)
            for (int j = -1; j <= 1; j++)
                for (int i = -1; i <= 1; i++)
                    ref[y * cw + x] += wt[i + 1] * wt[j + 1] * clamped(a, w, h, 2 * x + i, 2 * y + j);
    CHECK(max_abs_diff(got, ref, cw * ch) < 1e-4);
    /* a constant stays constant */
    fill(d, &f, 3.0f);
    CHECK_OK(flow_k_restriction(d, &ra));
    free(got);
    got = plane_get(d, &c);
    double e = 0;
    for (int i = 0; i < cw * ch; i++)
        e = fmax(e, fabs(got[i] - 3.0));
    CHECK(e < 1e-6);
    flow_plane_free(d, &f), flow_plane_free(d, &c);
    free(a), free(got), free(ref);
}

static void test_restriction(void)
{
    check_restriction(316, 252);
    check_restriction(79, 63);
    check_restriction(5, 4);
    check_restriction(3, 2);
    check_restriction(2, 1);
    check_restriction(1, 1);
}

/* Prolongation (prolong_pair, u and v from one coarse plane): even fine
 * points copy, odd ones average (eqs. 4.14-4.16), clamped at the right and
 * bottom; a bilinear function is reproduced exactly where no clamping
 * happens; accumulate adds; both components the same. */
static void check_prolongation(int w, int h)
{
    flow_device *d = harness_device();
    if (!d)
        return;
    const int cw = (w + 1) / 2, ch = (h + 1) / 2;
    flow_plane f, g, c;
    CHECK_OK(flow_plane_alloc(d, &f, w, h));
    CHECK_OK(flow_plane_alloc(d, &g, w, h));
    CHECK_OK(flow_plane_alloc(d, &c, cw, ch));
    float *a = host_alloc(cw, ch);
    for (int y = 0; y < ch; y++)
        for (int x = 0; x < cw; x++)
            a[y * cw + x] = (float)(2.0 * x - 3.0 * y + 0.5 * x * y + 1.0);
    plane_put(d, &c, a);
    const flow_pair none = { { 0 }, { 0 } };
    flow_prolong_pair_args pa = { { f, g }, { c, c }, none, 0, 0, 0.0f };
    CHECK_OK(flow_k_prolong_pair(d, &pa));
    float *got = plane_get(d, &f), *got_v = plane_get(d, &g);
    CHECK(memcmp(got, got_v, sizeof(float) * (size_t)w * h) == 0);
    double e_interior = 0, e_def = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int x0 = x / 2, y0 = y / 2, x1 = x0 + (x & 1), y1 = y0 + (y & 1);
            double def = 0.25 * (clamped(a, cw, ch, x0, y0) + clamped(a, cw, ch, x1, y0)
                                 + clamped(a, cw, ch, x0, y1) + clamped(a, cw, ch, x1, y1));
            e_def = fmax(e_def, fabs(got[y * w + x] - def));
            if (x1 < cw && y1 < ch) {
                double X = x / 2.0, Y = y / 2.0;
                e_interior = fmax(e_interior, fabs(got[y * w + x] - (2 * X - 3 * Y + 0.5 * X * Y + 1)));
            }
        }
    CHECK(e_def < 1e-5);
    CHECK(e_interior < 1e-4);
    /* accumulate: fine += P coarse, so twice the value */
    pa.accumulate = 1;
    CHECK_OK(flow_k_prolong_pair(d, &pa));
    float *twice = plane_get(d, &f);
    double e2 = 0;
    for (int i = 0; i < w * h; i++)
        e2 = fmax(e2, fabs(twice[i] - 2.0 * got[i]));
    CHECK(e2 < 1e-4);
    flow_plane_free(d, &f), flow_plane_free(d, &g), flow_plane_free(d, &c);
    free(a), free(got), free(got_v), free(twice);
}

static void test_prolongation(void)
{
    check_prolongation(316, 252);
    check_prolongation(79, 63);
    check_prolongation(5, 4);
    check_prolongation(3, 2);
    check_prolongation(2, 1);
}

/* Warping: an integer flow shifts the image exactly (the border repeated
 * outside), a half-pixel one averages two neighbours. */
static void test_warp(void)
{
    flow_device *d = harness_device();
    if (!d)
        return;
    const int w = 23, h = 17;
    flow_plane src, dst;
    flow_pair fl;
    CHECK_OK(flow_plane_alloc(d, &src, w, h));
    CHECK_OK(flow_plane_alloc(d, &dst, w, h));
    CHECK_OK(flow_plane_alloc(d, &fl.u, w, h));
    CHECK_OK(flow_plane_alloc(d, &fl.v, w, h));
    float *a = host_alloc(w, h);
    random_fill(a, w * h, 31);
    plane_put(d, &src, a);
    const float shifts[3][2] = { { 2.0f, -1.0f }, { 0.5f, 0.0f }, { -30.0f, 40.0f } };
    for (int k = 0; k < 3; k++) {
        const float du = shifts[k][0], dv = shifts[k][1];
        fill(d, &fl.u, du);
        fill(d, &fl.v, dv);
        const flow_warp_args wa = { dst, src, fl, 0, 0 };
        CHECK_OK(flow_k_warp(d, &wa));
        float *got = plane_get(d, &dst);
        double worst = 0;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                double want;
                if (k == 1) /* between x and x + 1 (clamped) */
                    want = 0.5 * (clamped(a, w, h, x, y) + clamped(a, w, h, x + 1, y));
                else
                    want = clamped(a, w, h, x + (int)du, y + (int)dv);
                worst = fmax(worst, fabs(got[y * w + x] - want));
            }
        CHECK(worst < 1e-4);
        free(got);
    }
    flow_plane_free(d, &src), flow_plane_free(d, &dst);
    flow_plane_free(d, &fl.u), flow_plane_free(d, &fl.v);
    free(a);
}

/* The tensor of the increment d = x - w rewritten for the total flow x:
 * (x, 1)^T J' (x, 1) = (x - w, 1)^T J (x - w, 1) at any x. */
static void test_tensor_shift(void)
{
    flow_device *d = harness_device();
    if (!d)
        return;
    const int w = 9, h = 7, n = w * h;
    flow_tensor J;
    flow_pair fl;
    CHECK_OK(flow_tensor_alloc(d, &J, w, h));
    CHECK_OK(flow_plane_alloc(d, &fl.u, w, h));
    CHECK_OK(flow_plane_alloc(d, &fl.v, w, h));
    flow_plane *jp[6] = { &J.j11, &J.j12, &J.j13, &J.j22, &J.j23, &J.j33 };
    float *j0[6], *u0 = host_alloc(w, h), *v0 = host_alloc(w, h);
    unsigned seed = 5;
    for (int i = 0; i < n; i++) {
        u0[i] = (float)(8.0 * harness_uniform(&seed) - 4.0);
        v0[i] = (float)(8.0 * harness_uniform(&seed) - 4.0);
    }
    for (int k = 0; k < 6; k++) {
        j0[k] = host_alloc(w, h);
        random_fill(j0[k], n, 40 + k);
        plane_put(d, jp[k], j0[k]);
    }
    plane_put(d, &fl.u, u0), plane_put(d, &fl.v, v0);
    const flow_tensor_shift_args ta = { J, fl };
    CHECK_OK(flow_k_tensor_shift(d, &ta));
    float *j1[6];
    for (int k = 0; k < 6; k++)
        j1[k] = plane_get(d, jp[k]);
    double worst = 0;
    for (int i = 0; i < n; i++) {
        const double x = 1.7 - 0.01 * i, y = -0.6 + 0.02 * i, dx = x - u0[i], dy = y - v0[i];
#define QUAD(j, a, c) (j[0][i] * (a) * (a) + 2 * j[1][i] * (a) * (c) + 2 * j[2][i] * (a) \
                       + j[3][i] * (c) * (c) + 2 * j[4][i] * (c) + j[5][i])
        const double want = QUAD(j0, dx, dy), got = QUAD(j1, x, y);
#undef QUAD
        worst = fmax(worst, fabs(got - want) / (fabs(want) + 255.0 * 255.0));
    }
    CHECK(worst < 1e-5);
    for (int k = 0; k < 6; k++)
        free(j0[k]), free(j1[k]);
    free(u0), free(v0);
    flow_tensor_free(d, &J);
    flow_plane_free(d, &fl.u), flow_plane_free(d, &fl.v);
}

/* Resampling (the pyramids of a scale other than 0.5): dst(x, y) = gain *
 * src(sx x, sy y), bilinear, the sample point clamped into src.  A linear
 * ramp f = a x + b y + c is reproduced: gain (a sx x + b sy y + c) where
 * the sample point is inside, the ramp at the clamped point outside.  With
 * dyadic scales, gain and ramp every step is exact in float, so the check
 * is equality; with the scale of a 0.8 pyramid it is to float rounding. */
static void check_resample(int sw, int sh, int dw, int dh, float sx, float sy, float gain,
                           double a, double b, double c, double tol, int clamps)
{
    flow_device *d = harness_device();
    if (!d)
        return;
    flow_plane src, dst;
    CHECK_OK(flow_plane_alloc(d, &src, sw, sh));
    CHECK_OK(flow_plane_alloc(d, &dst, dw, dh));
    float *ramp = host_alloc(sw, sh);
    for (int y = 0; y < sh; y++)
        for (int x = 0; x < sw; x++)
            ramp[y * sw + x] = (float)(a * x + b * y + c);
    plane_put(d, &src, ramp);
    const flow_resample_args ra = { dst, src, sx, sy, gain };
    CHECK_OK(flow_k_resample(d, &ra));
    float *got = plane_get(d, &dst);
    double worst = 0;
    int inside = 0, outside = 0;
    for (int y = 0; y < dh; y++)
        for (int x = 0; x < dw; x++) {
            /* the sample point in float, as the operation forms it */
            const double px = (float)(sx * (float)x), py = (float)(sy * (float)y);
            const int in = px <= sw - 1 && py <= sh - 1;
            inside += in, outside += !in;
            const double want = gain * (a * fmin(px, sw - 1) + b * fmin(py, sh - 1) + c);
            const double e = fabs(got[y * dw + x] - want);
            worst = isnan(e) ? INFINITY : fmax(worst, e);
        }
    printf("    %dx%d -> %dx%d, s = (%g, %g), gain %g: %d points inside, %d clamped, "
           "max error %.3g\n", sw, sh, dw, dh, sx, sy, gain, inside, outside, worst);
    CHECK(inside > 0 && (outside > 0) == clamps);
    CHECK(worst <= tol);
    flow_plane_free(d, &src), flow_plane_free(d, &dst);
    free(ramp), free(got);
}

static void test_resample(void)
{
    /* exact: scales, gain and ramp dyadic */
    check_resample(23, 17, 35, 15, 0.75f, 1.25f, 1.5f, 3.0, -2.0, 5.0, 0.0, 1);
    check_resample(23, 17, 14, 36, 2.0f, 0.5f, 0.5f, -1.5, 0.25, 100.0, 0.0, 1);
    /* a 0.8 pyramid: frames down (s = 1 / 0.8, gain 1: every point inside)
     * and a flow up (s = 0.8, gain 1 / 0.8: the last fine rows and columns
     * clamped), to the float rounding of values up to ~100 */
    check_resample(40, 30, 32, 24, 1.25f, 1.25f, 1.0f, 0.37, -1.3, 60.0, 1e-4, 0);
    check_resample(32, 24, 40, 30, 0.8f, 0.8f, 1.25f, 0.37, -1.3, 60.0, 1e-4, 1);
}

int main(void)
{
    RUN(test_gauss_kernel);
    RUN(test_upload_download_fill);
    RUN(test_smooth);
    RUN(test_derivatives);
    RUN(test_motion_tensor);
    RUN(test_restriction);
    RUN(test_prolongation);
    RUN(test_warp);
    RUN(test_tensor_shift);
    RUN(test_resample);
    return harness_report();
}
