/* preprocess.c -- Gaussian kernels, separable smoothing and the motion tensor
 * pipeline of seed 001 section 4.3, over the backend operations. */
#include "flow/preprocess.h"
#include "internal.h"

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

/* dst[i] = K * src[i] for n planes at once, through tmp[0 .. n-1]. */
static flow_status smooth_planes(flow_backend *b, flow_plane *const *dst,
                                 const flow_plane *const *src, flow_plane *const *tmp, int n,
                                 const flow_kernel *k)
{
    if (k->radius == 0) {
        for (int i = 0; i < n; i++)
            if (dst[i] != src[i])
                FLOW_TRY(b->ops->copy(b, dst[i], src[i]));
        return FLOW_OK;
    }
    FLOW_TRY(b->ops->convolve_rows(b, tmp, src, n, k));
    return b->ops->convolve_cols(b, dst, (const flow_plane *const *)tmp, n, k);
}

flow_status flow_smooth(flow_backend *b, flow_plane *dst, const flow_plane *src, flow_plane *tmp,
                        const flow_kernel *k)
{
    return smooth_planes(b, &dst, &src, &tmp, 1, k);
}

static flow_plane *tensor_planes(flow_tensor *J, int c)
{
    flow_plane *p[6] = { &J->j11, &J->j12, &J->j13, &J->j22, &J->j23, &J->j33 };
    return p[c];
}

flow_status flow_tensor_alloc(flow_backend *b, flow_tensor *J, int width, int height)
{
    memset(J, 0, sizeof *J);
    for (int c = 0; c < 6; c++) {
        flow_status s = flow_plane_alloc(b, tensor_planes(J, c), width, height);
        if (s != FLOW_OK) {
            flow_tensor_free(b, J);
            return s;
        }
    }
    return FLOW_OK;
}

void flow_tensor_free(flow_backend *b, flow_tensor *J)
{
    for (int c = 0; c < 6; c++)
        flow_plane_free(b, tensor_planes(J, c));
}

flow_status flow_tensor_work_alloc(flow_backend *b, flow_tensor_work *w, int width, int height)
{
    memset(w, 0, sizeof *w);
    flow_status s = flow_plane_alloc(b, &w->f1, width, height);
    if (s == FLOW_OK)
        s = flow_plane_alloc(b, &w->f2, width, height);
    if (s == FLOW_OK)
        s = flow_tensor_alloc(b, &w->t, width, height);
    if (s != FLOW_OK)
        flow_tensor_work_free(b, w);
    return s;
}

void flow_tensor_work_free(flow_backend *b, flow_tensor_work *w)
{
    flow_plane_free(b, &w->f1);
    flow_plane_free(b, &w->f2);
    flow_tensor_free(b, &w->t);
}

flow_status flow_motion_tensor(flow_backend *b, flow_tensor *J, const flow_plane *const *frame1,
                               const flow_plane *const *frame2, int channels,
                               const flow_kernel *k_sigma, const flow_kernel *k_rho,
                               flow_tensor_work *w)
{
    if (channels < 1)
        return flow_fail(FLOW_ERR_INVALID, "motion tensor of %d channels", channels);
    flow_plane *scratch[6], *comp[6];
    for (int c = 0; c < 6; c++) {
        scratch[c] = tensor_planes(&w->t, c);
        comp[c] = tensor_planes(J, c);
    }
    flow_plane *smoothed[2] = { &w->f1, &w->f2 };
    for (int c = 0; c < channels; c++) {
        const flow_plane *frames[2] = { frame1[c], frame2[c] };
        FLOW_TRY(smooth_planes(b, smoothed, frames, scratch, 2, k_sigma));
        FLOW_TRY(b->ops->motion_products(b, J, &w->f1, &w->f2, c > 0));
    }
    return smooth_planes(b, comp, (const flow_plane *const *)comp, scratch, 6, k_rho);
}
