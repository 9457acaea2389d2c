/* tensor.h -- Gaussian smoothing and the motion tensor pipeline (seed 001,
 * sections 2.3.1 and 4.3), written once over the device operations.  Not
 * installed. */
#ifndef FLOW_CORE_TENSOR_H
#define FLOW_CORE_TENSOR_H

#include "core/exec.h"

/* The discrete Gaussian K_sigma on [-ceil(3 sigma), ceil(3 sigma)],
 * normalised to sum 1 (eq. 4.5).  sigma == 0 gives the identity.
 * FLOW_ERR_INVALID when sigma < 0, is not finite, or needs a radius over
 * FLOW_KERNEL_RADIUS_MAX (sigma > 16). */
flow_status flow_gauss_kernel(double sigma, flow_kernel *k);

/* dst[i] = K * src[i] for n planes of one size at once (1 <= n <=
 * FLOW_BATCH_MAX; FLOW_ERR_INVALID otherwise), separably: rows into tmp[i],
 * then columns into dst[i].  dst[i] may be src[i]; tmp[i] must differ from
 * both. */
flow_status flow_smooth_planes(flow_device *d, flow_plane *const *dst,
                               const flow_plane *const *src, flow_plane *const *tmp, int n,
                               const flow_kernel *k);
/* The same for one plane. */
flow_status flow_smooth(flow_device *d, flow_plane *dst, const flow_plane *src, flow_plane *tmp,
                        const flow_kernel *k);

/* J = K * J for the six components at once, tmp a tensor of J's size for
 * the row pass. */
flow_status flow_smooth_tensor(flow_device *d, flow_tensor *J, flow_tensor *tmp,
                               const flow_kernel *k);

/* Scratch planes of the tensor pipeline for one image size: the presmoothed
 * frames of the last channel, and a tensor's worth of planes for the row
 * passes of the smoothing (after flow_motion_tensor they hold nothing of
 * use: the workflow pictures put the derivatives there). */
typedef struct flow_tensor_work {
    flow_plane f1, f2;
    flow_tensor t;
} flow_tensor_work;

flow_status flow_tensor_alloc(flow_device *d, flow_tensor *J, int width, int height);
/* Component c of J: 0 .. 5 for J11, J12, J13, J22, J23, J33. */
flow_plane *flow_tensor_plane(flow_tensor *J, int c);
void flow_tensor_free(flow_device *d, flow_tensor *J);
flow_status flow_tensor_work_alloc(flow_device *d, flow_tensor_work *w, int width, int height);
void flow_tensor_work_free(flow_device *d, flow_tensor_work *w);

/* The motion tensor J_rho of a frame pair with `channels` planes each
 * (1 gray, 3 colour), lk's tensor and the combined local-global data term
 * (FLOW_TERM_CLG, core/terms.c): per channel, presmooth both frames with K_sigma,
 * take derivatives, add grad3 grad3^T into J; then postsmooth every
 * component with K_rho (seed 001 fig. 4.12).  The frames are left
 * unchanged.  Five launches on the GPU for gray: the two frames smoothed
 * together (rows, columns), derivatives and products in one pass, the six
 * components smoothed together. */
flow_status flow_motion_tensor(flow_device *d, flow_tensor *J, const flow_plane *f1,
                               const flow_plane *f2, int channels, const flow_kernel *k_sigma,
                               const flow_kernel *k_rho, flow_tensor_work *w);

/* flow_motion_tensor, followed, when the observer watches the workflow, by
 * its pictures: the presmoothed frames, the derivatives and J11 .. J33. */
flow_status flow_motion_tensor_watched(flow_exec *ex, flow_tensor *J, const flow_plane *f1,
                                       const flow_plane *f2, int channels,
                                       const flow_kernel *k_sigma, const flow_kernel *k_rho,
                                       flow_tensor_work *w);

#endif
