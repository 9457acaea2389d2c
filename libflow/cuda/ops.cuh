/* ops.cuh -- the launchers of the CUDA backend's operations, one per entry
 * of flow_backend_ops, defined in the .cu file of their family. */
#ifndef FLOW_CUDA_OPS_CUH
#define FLOW_CUDA_OPS_CUH

#include "flow/backend.h"

/* stencil.cu */
flow_status cuda_fill(flow_backend *b, flow_plane *p, float value);
flow_status cuda_copy(flow_backend *b, flow_plane *dst, const flow_plane *src);
flow_status cuda_convolve_rows(flow_backend *b, flow_plane *dst, const flow_plane *src,
                               const flow_kernel *k);
flow_status cuda_convolve_cols(flow_backend *b, flow_plane *dst, const flow_plane *src,
                               const flow_kernel *k);
flow_status cuda_derivatives(flow_backend *b, flow_plane *fx, flow_plane *fy, flow_plane *ft,
                             const flow_plane *f1, const flow_plane *f2);
flow_status cuda_tensor_products(flow_backend *b, flow_tensor *J, const flow_plane *fx,
                                 const flow_plane *fy, const flow_plane *ft, int accumulate);
flow_status cuda_restriction(flow_backend *b, flow_plane *coarse, const flow_plane *fine);
flow_status cuda_prolongation(flow_backend *b, flow_plane *fine, const flow_plane *coarse,
                              int accumulate);

#endif
