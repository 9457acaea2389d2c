/* list.h -- every per-pixel operation of libflow, declared once.
 *
 *   X(stem, args, width, height, gpu, cpu)
 *
 * An operation is a function flow_<stem>_px(const args *a, int x, int y) in
 * libflow/pixel/ that does all of its work at one point of a width x height
 * grid (expressions of `a`).  This list is expanded
 *   - by the CPU device (device/cpu/kernels_cpu.c) into cpu_<stem>: a
 *     loop over the grid calling the function, its rows in chunks run by
 *     the device's thread pool (cpu PX); for cpu ROWS the loop over a
 *     chunk's rows is written by hand in device/cpu/rows_cpu.c,
 *     patch_cpu.c and terms_cpu.c, calling the same per-point functions in
 *     a form the compiler vectorises or specialises (the convolutions on a
 *     clamped copy of a row, the Jacobi sweep, the residual and N(x) from a
 *     chunk's Psi'_S evaluated once per pixel, Psi'_S and the SOR colours a
 *     row at a time, the patches of dense inverse search a patch row at a
 *     time, its densification and the data terms with their shape as
 *     constants);
 *   - by the CUDA device (device/cuda/kernels.cu) into flow_<stem>_kernel,
 *     a kernel that computes (x, y), returns outside the grid and calls the
 *     function, and its launcher cuda_<stem> (gpu GRID); for gpu OWN the
 *     launcher is written by hand in the CUDA device (the convolutions, the
 *     Jacobi sweep, the residual and N(x) run on shared-memory tiles,
 *     calling the same per-point functions); gpu
 *     POINTS is the same for operations whose every point does a window's
 *     work (KLT tracking, the patches of dense inverse search: a warp per
 *     point, its lanes sharing the window), which the CPU runs in parallel
 *     from two points on;
 *   - by device/device.h into an entry of the operations table and the call
 *     flow_k_<stem>(device, &args) that the core uses.
 * Adding an operation: its args struct and _px function in a pixel header,
 * and one line here. */
#ifndef FLOW_KERNELS_LIST_H
#define FLOW_KERNELS_LIST_H

#include "pixel/epic_interp.h"
#include "pixel/epic_match.h"
#include "pixel/inputs.h"
#include "pixel/klt.h"
#include "pixel/lk.h"
#include "pixel/occlusion.h"
#include "pixel/patch.h"
#include "pixel/robust.h"
#include "pixel/terms.h"
#include "pixel/stencil.h"
#include "pixel/tensor.h"
#include "pixel/transfer.h"
#include "pixel/tvl1.h"
#include "pixel/variational.h"
#include "pixel/warp.h"

#define FLOW_KERNELS(X)                                                                          \
    X(fill, flow_fill_args, a->p.width, a->p.height, GRID, PX)                                   \
    X(scale, flow_scale_args, a->p.width, a->p.height, GRID, PX)                                 \
    X(copy_pair, flow_copy_pair_args, a->src.u.width, a->src.u.height, GRID, PX)                 \
    X(copy_plane, flow_copy_plane_args, a->src.width, a->src.height, GRID, PX)                   \
    X(luminance, flow_luminance_args, a->dst.width, a->dst.height, GRID, PX)                     \
    X(unpack8, flow_unpack8_args, a->dst[0].width, a->dst[0].height, GRID, PX)                   \
    X(unpack32, flow_unpack32_args, a->dst[0].width, a->dst[0].height, GRID, PX)                 \
    X(bad_values, flow_bad_values_args, a->bad.width, a->bad.height, GRID, PX)                   \
    X(blend, flow_blend_args, a->dst.width, a->dst.height, GRID, PX)                             \
    X(convolve_rows, flow_convolve_args, a->dst[0].width, a->dst[0].height, OWN, ROWS)           \
    X(convolve_cols, flow_convolve_args, a->dst[0].width, a->dst[0].height, OWN, ROWS)           \
    X(derivatives, flow_derivatives_args, a->f1.width, a->f1.height, GRID, PX)                   \
    X(motion_products, flow_motion_products_args, a->f1.width, a->f1.height, GRID, PX)           \
    X(warp, flow_warp_args, a->dst.width, a->dst.height, GRID, PX)                               \
    X(tensor_shift, flow_tensor_shift_args, a->J.j11.width, a->J.j11.height, GRID, PX)           \
    X(resample, flow_resample_args, a->dst.width, a->dst.height, GRID, PX)                       \
    X(restriction, flow_restriction_args, a->coarse.width, a->coarse.height, GRID, PX)           \
    X(restrict_pair, flow_restrict_pair_args, a->coarse.u.width, a->coarse.u.height, GRID, PX)   \
    X(prolong_pair, flow_prolong_pair_args, a->fine.u.width, a->fine.u.height, GRID, PX)         \
    X(restrict_planes, flow_restrict_planes_args, a->coarse[0].width, a->coarse[0].height,       \
      GRID, PX)                                                                                  \
    X(jacobi_sweep, flow_jacobi_sweep_args, a->x.u.width, a->x.u.height, OWN, ROWS)              \
    X(diffusivity, flow_diffusivity_args, a->ps.width, a->ps.height, GRID, ROWS)                 \
    X(sor_half, flow_sor_half_args, (a->x.u.width + 1) / 2, a->x.u.height, GRID, ROWS)           \
    X(residual, flow_residual_args, a->x.u.width, a->x.u.height, OWN, ROWS)                      \
    X(apply, flow_apply_args, a->x.u.width, a->x.u.height, OWN, ROWS)                            \
    X(lk, flow_lk_args, a->x.u.width, a->x.u.height, GRID, PX)                                   \
    X(start_blend, flow_start_blend_args, a->x.u.width, a->x.u.height, GRID, PX)                 \
    X(terms, flow_terms_args, a->f1[0].width, a->f1[0].height, GRID, ROWS)                       \
    X(median, flow_median_args, a->dst.u.width, a->dst.u.height, GRID, PX)                       \
    X(occlusion, flow_occlusion_args, a->o.width, a->o.height, GRID, PX)                         \
    X(consistency, flow_consistency_args, a->verdict.width, a->verdict.height, GRID, PX)         \
    X(edge_weight, flow_edge_weight_args, a->g.width, a->g.height, GRID, PX)                     \
    X(gradient, flow_gradient_args, a->f.width, a->f.height, GRID, PX)                           \
    X(plk, flow_plk_args, a->w.u.width, a->w.u.height, GRID, PX)                                 \
    X(tvl1_terms, flow_tvl1_terms_args, a->rho_c.width, a->rho_c.height, GRID, PX)               \
    X(tvl1_primal, flow_tvl1_primal_args, a->u.u.width, a->u.u.height, GRID, PX)                 \
    X(tvl1_dual, flow_tvl1_dual_args, a->u.u.width, a->u.u.height, GRID, PX)                     \
    X(tvl1_median, flow_tvl1_median_args, a->m.dst.u.width, a->m.dst.u.height, GRID, PX)         \
    X(dis_search, flow_dis_search_args, a->p.u.width, a->p.u.height, POINTS, ROWS)               \
    X(dis_densify, flow_dis_densify_args, a->w.u.width, a->w.u.height, GRID, ROWS)               \
    X(epic_census, flow_epic_census_args, a->dst.width, a->dst.height, GRID, PX)                 \
    X(epic_match, flow_epic_match_args, a->src.u.width, a->src.u.height, GRID, PX)               \
    X(epic_subpixel, flow_epic_subpixel_args, a->seeds.u.width, a->seeds.u.height, GRID, PX)     \
    X(epic_check, flow_epic_check_args, a->valid.width, a->valid.height, GRID, PX)               \
    X(epic_cost, flow_epic_cost_args, a->cost.width, a->cost.height, GRID, PX)                   \
    X(epic_edges, flow_epic_edges_args, a->cost.width, a->cost.height, GRID, PX)                 \
    X(epic_geo_init, flow_epic_geo_init_args, a->dist.width, a->dist.height, GRID, PX)           \
    X(epic_geo_step, flow_epic_geo_step_args, a->dist.width, a->dist.height, GRID, PX)           \
    X(epic_interp, flow_epic_interp_args, a->w.u.width, a->w.u.height, GRID, PX)                 \
    X(epic_take, flow_epic_take_args, a->seeds.u.width, a->seeds.u.height, GRID, PX)             \
    X(epic_scatter, flow_epic_scatter_args, a->u.width, a->u.height, GRID, PX)                   \
    X(klt_response, flow_klt_response_args, a->R.width, a->R.height, GRID, PX)                   \
    X(klt_cells, flow_klt_cells_args, a->cv.width, a->cv.height, GRID, PX)                       \
    X(klt_suppress, flow_klt_suppress_args, a->n, 1, GRID, PX)                                   \
    X(klt_mis, flow_klt_mis_args, a->cv.width, a->cv.height, GRID, PX)                           \
    X(klt_free_count, flow_klt_free_count_args, a->counts.width, 1, GRID, PX)                    \
    X(klt_spawn, flow_klt_spawn_args, a->n, 1, GRID, PX)                                         \
    X(klt_track, flow_klt_track_args, 1, a->n, POINTS, PX)

#endif
