/* ops.cuh -- the launchers of the CUDA backend's operations, one per entry
 * of flow_backend_ops, defined in the .cu file of their family. */
#ifndef FLOW_CUDA_OPS_CUH
#define FLOW_CUDA_OPS_CUH

#include "flow/backend.h"

/* stencil.cu */
flow_status cuda_fill(flow_backend *b, flow_plane *p, float value);
flow_status cuda_copy(flow_backend *b, flow_plane *dst, const flow_plane *src);
flow_status cuda_convolve_rows(flow_backend *b, flow_plane *const *dst,
                               const flow_plane *const *src, int n, const flow_kernel *k);
flow_status cuda_convolve_cols(flow_backend *b, flow_plane *const *dst,
                               const flow_plane *const *src, int n, const flow_kernel *k);
flow_status cuda_derivatives(flow_backend *b, flow_plane *fx, flow_plane *fy, flow_plane *ft,
                             const flow_plane *f1, const flow_plane *f2);
flow_status cuda_motion_products(flow_backend *b, flow_tensor *J, const flow_plane *f1,
                                 const flow_plane *f2, int accumulate);
flow_status cuda_warp(flow_backend *b, flow_plane *dst, const flow_plane *src, const flow_pair *w);
flow_status cuda_tensor_shift(flow_backend *b, flow_tensor *J, const flow_pair *w);
flow_status cuda_scale(flow_backend *b, flow_plane *p, float factor);
flow_status cuda_restriction(flow_backend *b, flow_plane *coarse, const flow_plane *fine);
flow_status cuda_prolongation(flow_backend *b, flow_plane *fine, const flow_plane *coarse,
                              int accumulate);

/* solver.cu */
flow_status cuda_jacobi(flow_backend *b, const flow_system *s, flow_pair *x, flow_pair *t,
                        const flow_pair *f, float weight, int n);
flow_status cuda_sor(flow_backend *b, const flow_system *s, flow_pair *x, flow_pair *t,
                     const flow_pair *f, float omega, int n);
flow_status cuda_residual(flow_backend *b, const flow_system *s, flow_pair *r, const flow_pair *x,
                          const flow_pair *f);
flow_status cuda_apply(flow_backend *b, const flow_system *s, flow_pair *out, const flow_pair *x,
                       int accumulate);
flow_status cuda_restrict_pair(flow_backend *b, flow_pair *coarse, flow_pair *copy,
                               const flow_pair *fine);
flow_status cuda_prolong_pair(flow_backend *b, flow_pair *fine, const flow_pair *coarse,
                              const flow_pair *ref, int accumulate);
flow_status cuda_restrict_tensor(flow_backend *b, flow_tensor *coarse, const flow_tensor *fine,
                                 int with_j33);
flow_status cuda_lk(flow_backend *b, const flow_tensor *J, flow_pair *x, float tau, int fill);
flow_status cuda_sum_squares(flow_backend *b, const flow_plane *p, double *sum);

/* graph.cu */
flow_status cuda_capture_begin(flow_backend *b);
flow_status cuda_capture_end(flow_backend *b, void **graph);
flow_status cuda_graph_launch(flow_backend *b, void *graph);
void cuda_graph_destroy(flow_backend *b, void *graph);

#endif
