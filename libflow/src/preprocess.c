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

flow_status flow_smooth(flow_backend *b, flow_plane *dst, const flow_plane *src, flow_plane *tmp,
                        const flow_kernel *k)
{
    if (k->radius == 0)
        return dst == src ? FLOW_OK : b->ops->copy(b, dst, src);
    FLOW_TRY(b->ops->convolve_rows(b, tmp, src, k));
    return b->ops->convolve_cols(b, dst, tmp, k);
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
    flow_plane *p[] = { &w->f1, &w->f2, &w->tmp, &w->fx, &w->fy, &w->ft };
    for (size_t i = 0; i < sizeof p / sizeof *p; i++) {
        flow_status s = flow_plane_alloc(b, p[i], width, height);
        if (s != FLOW_OK) {
            flow_tensor_work_free(b, w);
            return s;
        }
    }
    return FLOW_OK;
}

void flow_tensor_work_free(flow_backend *b, flow_tensor_work *w)
{
    flow_plane *p[] = { &w->f1, &w->f2, &w->tmp, &w->fx, &w->fy, &w->ft };
    for (size_t i = 0; i < sizeof p / sizeof *p; i++)
        flow_plane_free(b, p[i]);
}

flow_status flow_motion_tensor(flow_backend *b, flow_tensor *J, const flow_plane *const *frame1,
                               const flow_plane *const *frame2, int channels,
                               const flow_kernel *k_sigma, const flow_kernel *k_rho,
                               flow_tensor_work *w)
{
    if (channels < 1)
        return flow_fail(FLOW_ERR_INVALID, "motion tensor of %d channels", channels);
    for (int c = 0; c < channels; c++) {
        FLOW_TRY(flow_smooth(b, &w->f1, frame1[c], &w->tmp, k_sigma));
        FLOW_TRY(flow_smooth(b, &w->f2, frame2[c], &w->tmp, k_sigma));
        FLOW_TRY(b->ops->derivatives(b, &w->fx, &w->fy, &w->ft, &w->f1, &w->f2));
        FLOW_TRY(b->ops->tensor_products(b, J, &w->fx, &w->fy, &w->ft, c > 0));
    }
    for (int c = 0; c < 6; c++)
        FLOW_TRY(flow_smooth(b, tensor_planes(J, c), tensor_planes(J, c), &w->tmp, k_rho));
    return FLOW_OK;
}
