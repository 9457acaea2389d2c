/* tensor.c -- Gaussian kernels, separable smoothing and the motion tensor
 * pipeline of seed 001 section 4.3, over the device operations. */
#include "core/tensor.h"
#include "base/fail.h"

#include <math.h>
#include <string.h>

flow_status flow_gauss_kernel(double sigma, flow_kernel *k)
{
    memset(k, 0, sizeof *k);
    if (!(sigma >= 0.0) || !isfinite(sigma))
        return flow_fail(FLOW_ERR_INVALID, "Gaussian sigma %g is not a finite value >= 0", sigma);
    const int r = (int)ceil(3.0 * sigma);
    if (r > FLOW_KERNEL_RADIUS_MAX)
        return flow_fail(FLOW_ERR_INVALID, "Gaussian sigma %g too large (at most %g)", sigma,
                         FLOW_KERNEL_RADIUS_MAX / 3.0);
    k->radius = r;
    if (r == 0) {
        k->w[0] = 1.0f;
        return FLOW_OK;
    }
    double w[2 * FLOW_KERNEL_RADIUS_MAX + 1], sum = 0.0;
    for (int i = -r; i <= r; i++)
        sum += w[r + i] = exp(-0.5 * i * i / (sigma * sigma));
    for (int i = 0; i <= 2 * r; i++)
        k->w[i] = (float)(w[i] / sum);
    return FLOW_OK;
}

static flow_status check_batch(flow_plane *const *dst, const flow_plane *const *src, int n)
{
    if (n < 1 || n > FLOW_BATCH_MAX)
        return flow_fail(FLOW_ERR_INVALID, "convolution of %d planes (1 to %d)", n,
                         FLOW_BATCH_MAX);
    for (int i = 0; i < n; i++)
        if (dst[i]->width != dst[0]->width || dst[i]->height != dst[0]->height
            || src[i]->width != dst[0]->width || src[i]->height != dst[0]->height)
            return flow_fail(FLOW_ERR_INVALID, "convolution of planes of different sizes");
    return FLOW_OK;
}

flow_status flow_smooth_planes(flow_device *d, flow_plane *const *dst,
                               const flow_plane *const *src, flow_plane *const *tmp, int n,
                               const flow_kernel *k)
{
    FLOW_TRY(check_batch(dst, src, n));
    if (k->radius == 0) {
        for (int i = 0; i < n; i++)
            if (dst[i] != src[i])
                FLOW_TRY(flow_copy(d, dst[i], src[i]));
        return FLOW_OK;
    }
    FLOW_TRY(check_batch(tmp, src, n));
    flow_convolve_args a;
    memset(&a, 0, sizeof a);
    a.n = n;
    a.k = *k;
    for (int i = 0; i < n; i++) {
        a.dst[i] = *tmp[i];
        a.src[i] = *src[i];
    }
    FLOW_TRY(flow_k_convolve_rows(d, &a));
    for (int i = 0; i < n; i++) {
        a.dst[i] = *dst[i];
        a.src[i] = *tmp[i];
    }
    return flow_k_convolve_cols(d, &a);
}

flow_status flow_smooth(flow_device *d, flow_plane *dst, const flow_plane *src, flow_plane *tmp,
                        const flow_kernel *k)
{
    return flow_smooth_planes(d, &dst, &src, &tmp, 1, k);
}

flow_plane *flow_tensor_plane(flow_tensor *J, int c)
{
    flow_plane *p[6] = { &J->j11, &J->j12, &J->j13, &J->j22, &J->j23, &J->j33 };
    return p[c];
}

flow_status flow_smooth_tensor(flow_device *d, flow_tensor *J, flow_tensor *tmp,
                               const flow_kernel *k)
{
    flow_plane *comp[6], *scratch[6];
    for (int c = 0; c < 6; c++) {
        comp[c] = flow_tensor_plane(J, c);
        scratch[c] = flow_tensor_plane(tmp, c);
    }
    return flow_smooth_planes(d, comp, (const flow_plane *const *)comp, scratch, 6, k);
}

flow_status flow_tensor_alloc(flow_device *d, flow_tensor *J, int width, int height)
{
    memset(J, 0, sizeof *J);
    for (int c = 0; c < 6; c++) {
        flow_status s = flow_plane_alloc(d, flow_tensor_plane(J, c), width, height);
        if (s != FLOW_OK) {
            flow_tensor_free(d, J);
            return s;
        }
    }
    return FLOW_OK;
}

void flow_tensor_free(flow_device *d, flow_tensor *J)
{
    for (int c = 0; c < 6; c++)
        flow_plane_free(d, flow_tensor_plane(J, c));
}

flow_status flow_tensor_work_alloc(flow_device *d, flow_tensor_work *w, int width, int height)
{
    memset(w, 0, sizeof *w);
    flow_status s = flow_plane_alloc(d, &w->f1, width, height);
    if (s == FLOW_OK)
        s = flow_plane_alloc(d, &w->f2, width, height);
    if (s == FLOW_OK)
        s = flow_tensor_alloc(d, &w->t, width, height);
    if (s != FLOW_OK)
        flow_tensor_work_free(d, w);
    return s;
}

void flow_tensor_work_free(flow_device *d, flow_tensor_work *w)
{
    flow_plane_free(d, &w->f1);
    flow_plane_free(d, &w->f2);
    flow_tensor_free(d, &w->t);
}

flow_status flow_motion_tensor(flow_device *d, flow_tensor *J, const flow_plane *f1,
                               const flow_plane *f2, int channels, const flow_kernel *k_sigma,
                               const flow_kernel *k_rho, flow_tensor_work *w)
{
    if (channels < 1 || channels > 3)
        return flow_fail(FLOW_ERR_INVALID, "motion tensor of %d channels", channels);
    flow_plane *scratch[2] = { &w->t.j11, &w->t.j12 };
    flow_plane *smoothed[2] = { &w->f1, &w->f2 };
    for (int c = 0; c < channels; c++) {
        const flow_plane *frames[2] = { &f1[c], &f2[c] };
        FLOW_TRY(flow_smooth_planes(d, smoothed, frames, scratch, 2, k_sigma));
        const flow_motion_products_args a = { *J, w->f1, w->f2, c > 0 };
        FLOW_TRY(flow_k_motion_products(d, &a));
    }
    return flow_smooth_tensor(d, J, &w->t, k_rho);
}

flow_status flow_motion_tensor_watched(flow_exec *ex, flow_tensor *J, const flow_plane *f1,
                                       const flow_plane *f2, int channels,
                                       const flow_kernel *k_sigma, const flow_kernel *k_rho,
                                       flow_tensor_work *w)
{
    FLOW_TRY(flow_motion_tensor(ex->dev, J, f1, f2, channels, k_sigma, k_rho, w));
    if (!flow_watching(ex))
        return FLOW_OK;
    /* w->f1, f2 still hold the last channel's presmoothed frames; the
     * pipeline never stores the derivatives, so they are computed into the
     * free scratch planes for the picture */
    const flow_derivatives_args a = { w->t.j11, w->t.j12, w->t.j13, w->f1, w->f2 };
    FLOW_TRY(flow_k_derivatives(ex->dev, &a));
    const int colour = channels > 1;
    FLOW_TRY(flow_workflow(ex, colour ? "smoothed frame 1 (blue)" : "smoothed frame 1", &w->f1));
    FLOW_TRY(flow_workflow(ex, colour ? "smoothed frame 2 (blue)" : "smoothed frame 2", &w->f2));
    FLOW_TRY(flow_workflow(ex, colour ? "fx (blue)" : "fx", &w->t.j11));
    FLOW_TRY(flow_workflow(ex, colour ? "fy (blue)" : "fy", &w->t.j12));
    FLOW_TRY(flow_workflow(ex, colour ? "ft (blue)" : "ft", &w->t.j13));
    static const char *const names[6] = { "J11", "J12", "J13", "J22", "J23", "J33" };
    for (int k = 0; k < 6; k++)
        FLOW_TRY(flow_workflow(ex, names[k], flow_tensor_plane(J, k)));
    return FLOW_OK;
}
