/* bench_methods.c -- the time per frame of every method (Lucas-Kanade, HS,
 * CLG and nonlinear CLG with FMG(2,2), and CLG with 200 Jacobi sweeps for
 * reference) at 316x252, 640x480, 1920x1080 and 3840x2160 gray and at
 * 316x252 colour, on the device of FLOW_DEVICE (default: cuda when this
 * build has it and a GPU is present, else cpu), beside its memory-bandwidth
 * floor.  A benchmark, not a test: it prints a table and fails only when a
 * computation fails.
 *
 * Timing: warm-up runs, then at least MIN_RUNS (and about a second of)
 * timed runs; medians of device events (flow_event_*: CUDA events on the
 * GPU):
 *   device ms  from the start of the motion tensor to the start of the
 *              download (events recorded through the context's observer):
 *              everything the GPU computes for one frame;
 *   frame ms   the whole flow_context_compute: upload of the two frames,
 *              device work, download of the flow (pageable host memory);
 *   stream ms  a frame of a sequence computed one at a time: the whole
 *              flow_context_compute_next (one frame uploaded, the other
 *              kept on the device) into a page-locked flow field;
 *   seq ms     a frame of a sequence as flow-compute streams one: wall
 *              time per flow of flow_context_submit8 / collect with two
 *              flows in flight, 8-bit frames and flow fields page-locked
 *              (the upload and download overlap the computation).
 * Floor: every device operation a frame issues is counted by a wrapper of
 * the operations table (device/device.h; one launch per operation, the
 * small-grid smoother's sweeps in one), with the bytes it must move: each
 * plane it reads once and each plane it writes once, at its level's size
 * (the byte model is printed with the table and documented in
 * docs/BENCHMARKS.md).  The
 * floor is those bytes over the bandwidth FLOW_BW_GBS (GB/s), or, when that
 * is unset, over the bandwidth of a large device-to-device copy measured
 * here.  A context replays its CUDA graph (flow_context_set_graphs) unless
 * FLOW_BENCH_GRAPHS=0.  Environment: FLOW_BENCH_QUICK=1 runs only the
 * 316x252 sizes with few runs (for a CPU); FLOW_BENCH_ONLY=text keeps the
 * methods whose name contains text, FLOW_BENCH_SIZE=WxH[rgb] one size
 * (and no other table); FLOW_BENCH_TABLE=methods, stages (with epic's
 * stage by stage at 1024x436 and 1920x1080: each with its floor), klt,
 * concurrent or both prints that table only; FLOW_BENCH_RUNS=n times exactly n runs after the warm-up (for
 * profilers); FLOW_BENCH_PARAMS="key=value ..." sets parameters on every
 * run (with FLOW_BENCH_ONLY, on one method's).
 *
 * Concurrent streams: CONC_STREAMS contexts of method robust at 640x480 on
 * the one device, each streamed from a host thread of its own as the seq
 * column streams one (submit8/collect, two flows in flight, page-locked),
 * against one such stream alone: flows per second of all streams together
 * (wall time from a common start to the last collect). */
#include "harness.h"
#include "device/device.h"
#include "flow/flow.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MIN_RUNS 15
#define MAX_RUNS 400

/* ---- byte counting wrapper of the operations table ---- */
static const flow_device_ops *real;
static flow_device_ops counting;
static double dev_bytes, host_bytes, launches;
/* inside the stage "upload": the device work of the transfers (the frames
 * unpacked and moved on the device) is not the frame's computation */
static int in_upload;

#define PX(p) ((double)(p)->width * (double)(p)->height * 4.0)
#define NPX(p) ((double)(p)->width * (double)(p)->height)

/* Bytes per pixel a system's operator reads besides x and f: per data term
 * all six tensor components when it is robust (its weight needs J33), else
 * five (affine) or three; the smoothness weight g when it has one. */
static double sys_bytes_px(const flow_system *s)
{
    double b = (s->flags & FLOW_SYS_EDGE) ? 4.0 : 0.0;
    for (int k = 0; k < s->nterms; k++)
        b += s->term[k].robust ? 24.0 : (s->flags & FLOW_SYS_AFFINE) ? 20.0 : 12.0;
    return b;
}

static double rhs_px(const flow_system *s)
{
    return (s->flags & FLOW_SYS_RHS) ? 8.0 : 0.0;
}

/* The bytes of one call of each operation of libflow/kernels/list.h. */
static double bytes_fill(const flow_fill_args *a)
{
    return PX(&a->p);
}
static double bytes_scale(const flow_scale_args *a)
{
    return 2 * PX(&a->p);
}
/* epic's operations: the planes each reads and writes once (the census
 * windows and the patch comparisons reread neighbours from cache). */
static double bytes_epic_census(const flow_epic_census_args *a)
{
    return (1 + a->channels) * PX(&a->dst);
}
static double bytes_epic_match(const flow_epic_match_args *a)
{
    return 5 * PX(&a->dst.u) + PX(&a->c1) + PX(&a->c2);
}
static double bytes_epic_subpixel(const flow_epic_subpixel_args *a)
{
    return 4 * PX(&a->seeds.u) + PX(&a->c1) + PX(&a->c2);
}
static double bytes_epic_check(const flow_epic_check_args *a)
{
    return 5 * PX(&a->valid);
}
static double bytes_epic_cost(const flow_epic_cost_args *a)
{
    return (1 + a->channels) * PX(&a->cost);
}
/* The edge map read (a block per pixel of the match level), the cost
 * written. */
static double bytes_epic_edges(const flow_epic_edges_args *a)
{
    return PX(&a->cost) + PX(&a->edges);
}
static double bytes_epic_geo_init(const flow_epic_geo_init_args *a)
{
    return 2 * PX(&a->dist) + PX(&a->valid);
}
static double bytes_epic_geo_step(const flow_epic_geo_step_args *a)
{
    return 5 * PX(&a->dist);
}
static double bytes_epic_interp(const flow_epic_interp_args *a)
{
    return 5 * PX(&a->w.u) + 2 * PX(&a->seeds.u);
}
static double bytes_epic_take(const flow_epic_take_args *a)
{
    return 3 * PX(&a->seeds.u) + 5.0 * a->n * 4;
}
static double bytes_epic_scatter(const flow_epic_scatter_args *a)
{
    return 3 * PX(&a->u) + 3 * PX(&a->seeds.u);
}
static double bytes_copy_pair(const flow_copy_pair_args *a)
{
    return 4 * PX(&a->dst.u);
}
static double bytes_convolve_rows(const flow_convolve_args *a)
{
    return 2.0 * a->n * PX(&a->dst[0]);
}
static double bytes_convolve_cols(const flow_convolve_args *a)
{
    return 2.0 * a->n * PX(&a->dst[0]);
}
static double bytes_derivatives(const flow_derivatives_args *a)
{
    return 5 * PX(&a->f1);
}
static double bytes_motion_products(const flow_motion_products_args *a)
{
    return (a->accumulate ? 14 : 8) * PX(&a->f1);
}
static double bytes_warp(const flow_warp_args *a)
{
    return PX(&a->src) + 3 * PX(&a->dst); /* src, w.u, w.v read; dst written */
}
static double bytes_tensor_shift(const flow_tensor_shift_args *a)
{
    return 14 * PX(&a->J.j11); /* six components and w read, six written */
}
static double bytes_resample(const flow_resample_args *a)
{
    return PX(&a->src) + PX(&a->dst);
}
static double bytes_restriction(const flow_restriction_args *a)
{
    return PX(&a->coarse) + PX(&a->fine);
}
static double bytes_restrict_pair(const flow_restrict_pair_args *a)
{
    return 2 * PX(&a->fine.u) + (a->with_copy ? 4 : 2) * PX(&a->coarse.u);
}
static double bytes_prolong_pair(const flow_prolong_pair_args *a)
{
    return (a->with_ref ? 4 : 2) * PX(&a->coarse.u) + (a->accumulate ? 4 : 2) * PX(&a->fine.u);
}
static double bytes_restrict_planes(const flow_restrict_planes_args *a)
{
    return a->n * (PX(&a->coarse[0]) + PX(&a->fine[0]));
}
/* A Jacobi sweep: the tensor, f if given, x read and x' written. */
static double bytes_jacobi_sweep(const flow_jacobi_sweep_args *a)
{
    return NPX(&a->x.u) * (sys_bytes_px(&a->s) + rhs_px(&a->s) + 16.0);
}
/* A red-black SOR sweep (two halves) reads the tensor and f once, all of x
 * twice, and writes x once: each half is one half of that; with a robust
 * smoothness term each half also reads the diffusivities. */
static double bytes_sor_half(const flow_sor_half_args *a)
{
    const double ps = (a->s.flags & FLOW_SYS_PSI_S) ? 4.0 : 0.0;
    return NPX(&a->x.u) * ((sys_bytes_px(&a->s) + rhs_px(&a->s) + 16.0 + 8.0) / 2.0 + ps);
}
/* x read, one diffusivity per pixel written. */
static double bytes_diffusivity(const flow_diffusivity_args *a)
{
    return 12.0 * NPX(&a->ps);
}
/* With the FAS restriction of x: counted as its own operation. */
static double bytes_residual(const flow_residual_args *a)
{
    return NPX(&a->x.u) * (sys_bytes_px(&a->s) + rhs_px(&a->s) + 16.0)
           + (a->with_rx ? bytes_restrict_pair(&a->rx) : 0.0);
}
static double bytes_apply(const flow_apply_args *a)
{
    return NPX(&a->x.u) * (sys_bytes_px(&a->s) + 16.0) + (a->with_r ? 2 * PX(&a->r.u) : 0.0);
}
static double bytes_lk(const flow_lk_args *a)
{
    return 7 * PX(&a->x.u);
}
static double bytes_luminance(const flow_luminance_args *a)
{
    return 4 * PX(&a->dst);
}
/* An 8-bit frame read, its float planes written. */
static double bytes_unpack8(const flow_unpack8_args *a)
{
    return 5.0 * a->channels * NPX(&a->dst[0]);
}
/* A float frame in the GPU's memory: each sample read, each plane written. */
static double bytes_unpack32(const flow_unpack32_args *a)
{
    return 8.0 * a->channels * NPX(&a->dst[0]);
}
/* Each sample read, the mark written. */
static double bytes_bad_values(const flow_bad_values_args *a)
{
    return 4.0 * (a->channels + 1) * NPX(&a->bad);
}
static double bytes_blend(const flow_blend_args *a)
{
    return 3 * PX(&a->dst);
}
/* The confidence and both flows read, the flow written. */
static double bytes_start_blend(const flow_start_blend_args *a)
{
    return 7 * PX(&a->x.u);
}
/* Both frames of every channel and w read, each tensor's six planes written. */
static double bytes_terms(const flow_terms_args *a)
{
    return (2.0 * a->channels + 2.0 + 6.0 * a->nterms) * PX(&a->f1[0]);
}
/* The flow read and written; weighted: each channel of the frame and the
 * occlusion weight read. */
static double bytes_median(const flow_median_args *a)
{
    const double weighted = a->inv_c2 > 0 ? a->channels + a->occlusion : 0;
    return (4 + weighted) * PX(&a->dst.u);
}
/* The flow and each channel of both frames read, the weight written. */
static double bytes_occlusion(const flow_occlusion_args *a)
{
    return (3.0 + 2.0 * a->channels) * PX(&a->o);
}
/* Both flows, the forward one's neighbours and each channel of both
 * frames read; verdict, mask and confidence written. */
static double bytes_consistency(const flow_consistency_args *a)
{
    return (4.0 + 2.0 * a->channels + 3.0) * 4.0 * PX(&a->verdict);
}
/* Each channel of the frame read, g written. */
static double bytes_edge_weight(const flow_edge_weight_args *a)
{
    return (a->channels + 1.0) * PX(&a->g);
}
static double bytes_gradient(const flow_gradient_args *a)
{
    return 3 * PX(&a->f);
}
/* Each pixel's patch: f1, f2 and the gradient of every channel, w read and
 * written. */
static double bytes_plk(const flow_plk_args *a)
{
    return (4.0 * a->f.channels + 4.0) * PX(&a->w.u);
}
/* TV-L1: rho_c from f1, f2w, the warped gradient and the flow, the gradient
 * rewritten; the primal step reads the flow, the four dual planes and the
 * terms and writes the flow; the dual step reads the flow and rewrites the
 * dual planes. */
static double bytes_tvl1_terms(const flow_tvl1_terms_args *a)
{
    return 9 * PX(&a->rho_c);
}
static double bytes_tvl1_primal(const flow_tvl1_primal_args *a)
{
    return 11 * PX(&a->u.u);
}
static double bytes_tvl1_dual(const flow_tvl1_dual_args *a)
{
    return 10 * PX(&a->u.u);
}
/* The median of the flow, skipped (nothing read) once the warp has stopped:
 * counted as run. */
static double bytes_tvl1_median(const flow_tvl1_median_args *a)
{
    return bytes_median(&a->m);
}
/* The patches of the grid cover the frame: f1, f2 and the gradient read
 * once; the start read and the result written per patch. */
static double bytes_dis_search(const flow_dis_search_args *a)
{
    return 4.0 * a->f.channels * PX(&a->f.f1[0]) + 4.0 * PX(&a->p.u);
}
static double bytes_dis_densify(const flow_dis_densify_args *a)
{
    return (2.0 * a->channels + 2.0) * PX(&a->w.u) + 2.0 * PX(&a->p.u);
}

/* KLT: the response reads the gradient and writes R; a cell reads its
 * pixels of R (and their neighbours: counted once); the point operations
 * read a few rows of a thousand points, next to nothing; tracking reads
 * every level of both frames' pyramids and gradients at most once (the
 * windows of a thousand features cover a fraction of a 1080p frame: an
 * upper bound of the minimum). */
static double bytes_klt_response(const flow_klt_response_args *a)
{
    return 3 * PX(&a->R);
}
static double bytes_klt_cells(const flow_klt_cells_args *a)
{
    return PX(&a->R) + 3 * PX(&a->cv);
}
static double bytes_klt_suppress(const flow_klt_suppress_args *a)
{
    return 12.0 * a->n;
}
static double bytes_klt_mis(const flow_klt_mis_args *a)
{
    return (a->first ? 4 : 5) * PX(&a->cv) + (a->last ? PX(&a->cv) : 0);
}
static double bytes_klt_free_count(const flow_klt_free_count_args *a)
{
    return 4.0 * a->n;
}
static double bytes_klt_spawn(const flow_klt_spawn_args *a)
{
    return 24.0 * a->n;
}
static double bytes_klt_track(const flow_klt_track_args *a)
{
    double b = 0;
    for (int L = 0; L < a->levels; L++)
        b += 3 * PX(&a->prev.f[L]) + PX(&a->next.f[L]) * (a->fb > 0 ? 3 : 1);
    return b + 4.0 * FLOW_KLT_ROWS * a->n;
}

/* w_<stem>: counts the call (one launch) and its bytes, then runs it. */
#define FLOW_COUNTED(stem, A, W, H, G, C)                                                           \
    static flow_status w_##stem(flow_device *d, const A *a)                                      \
    {                                                                                            \
        if (!in_upload)                                                                          \
            dev_bytes += bytes_##stem(a), launches++;                                            \
        return real->stem(d, a);                                                                 \
    }
FLOW_KERNELS(FLOW_COUNTED)
#undef FLOW_COUNTED

static flow_status w_upload(flow_device *d, flow_plane *dst, const float *s, size_t st)
{
    host_bytes += PX(dst);
    return real->upload(d, dst, s, st);
}
static flow_status w_download(flow_device *d, float *dst, size_t st, const flow_plane *s)
{
    host_bytes += PX(s);
    return real->download(d, dst, st, s);
}
static flow_status w_upload_async(flow_device *d, flow_lane l, flow_plane *dst, const float *s,
                                  size_t st)
{
    host_bytes += PX(dst);
    return real->upload_async(d, l, dst, s, st);
}
static flow_status w_upload_bytes(flow_device *d, flow_lane l, void *dst, const void *s, size_t n)
{
    host_bytes += (double)n;
    return real->upload_bytes(d, l, dst, s, n);
}
static flow_status w_download_async(flow_device *d, flow_lane l, float *dst, size_t st,
                                    const flow_plane *s)
{
    host_bytes += PX(s);
    return real->download_async(d, l, dst, st, s);
}
static flow_status w_copy(flow_device *d, flow_plane *dst, const flow_plane *s)
{
    if (!in_upload) /* the frames' moves on the device belong to the upload */
        dev_bytes += 2 * PX(dst), launches++;
    return real->copy(d, dst, s);
}
/* All the sweeps of a small grid in one launch, counted as the traffic of
 * the per-pixel path's sweeps (Jacobi: and the copy back after an odd
 * count), the same model as the floors of docs/BENCHMARKS.md. */
static double bytes_small_sweeps(const flow_system *s, const flow_plane *x, int sweeps, int sor)
{
    const double px = NPX(x), sys = sys_bytes_px(s) + rhs_px(s);
    const int psi = (s->flags & FLOW_SYS_PSI_S) != 0; /* the diffusivity pass, then read */
    if (sweeps <= 0)
        return 0;
    return sor ? sweeps * px * (sys + 16.0 + 8.0 + (psi ? 20.0 : 0.0))
               : sweeps * px * (sys + 16.0) + (sweeps % 2 ? 16.0 * px : 0.0);
}
static flow_status w_smooth_small(flow_device *d, const flow_smooth_small_args *a)
{
    if (a->sweeps > 0)
        dev_bytes += bytes_small_sweeps(&a->s, &a->x.u, a->sweeps, a->sor), launches++;
    return real->smooth_small(d, a);
}
/* n sweeps of system s on x, each reading the tensors, f and x once and
 * writing x once, plus the copy back after an odd number of passes unless
 * the caller takes the result from t; that copy's launch into *back. */
static double bytes_sweeps(const flow_system *s, const flow_plane *x, int n, int passes,
                           int odd_in_t, int *back)
{
    const double px = NPX(x);
    *back = passes % 2 && !odd_in_t;
    return n * px * (sys_bytes_px(s) + rhs_px(s) + 16.0) + (*back ? 16.0 * px : 0.0);
}
/* SOR sweeps on tiles, a launch per sweep (the GPU's tiles; the CPU runs
 * the per-pixel operations in place). */
static flow_status w_sor_sweeps(flow_device *d, const flow_sor_sweeps_args *a, int *passes)
{
    const flow_status s = real->sor_sweeps(d, a, passes);
    if (s == FLOW_OK && a->with_pre) /* counted as its own operation; a launch unless
                                        the device's first pass takes it */
        dev_bytes += bytes_prolong_pair(&a->pre), launches += *passes == 0;
    if (s == FLOW_OK && a->sweeps > 0) {
        int back;
        dev_bytes += bytes_sweeps(&a->s, &a->x.u, a->sweeps, *passes, a->odd_in_t, &back);
        launches += a->sweeps + back;
    }
    return s;
}
/* Jacobi sweeps, a launch per pass (the GPU's passes run two sweeps each
 * on tiles where that is faster): counted as the traffic of the sweeps
 * one by one, the same model as the floors. */
static flow_status w_jacobi_sweeps(flow_device *d, const flow_jacobi_sweeps_args *a, int *passes)
{
    const flow_status s = real->jacobi_sweeps(d, a, passes);
    if (s == FLOW_OK && a->with_pre) /* counted as its own operation; a launch unless
                                        the device ran pairs, which take it */
        dev_bytes += bytes_prolong_pair(&a->pre), launches += *passes == a->sweeps;
    if (s == FLOW_OK && a->with_entry) { /* likewise the entry's apply */
        const flow_apply_args ap = flow_jacobi_entry_apply(a);
        dev_bytes += bytes_apply(&ap), launches += *passes == a->sweeps;
    }
    if (s == FLOW_OK && a->sweeps > 0) {
        int back;
        dev_bytes += bytes_sweeps(&a->s, &a->x.u, a->sweeps, *passes, a->odd_in_t, &back);
        launches += *passes + back;
    }
    return s;
}
/* A coarse level C's right-hand side from r, the residual of the level
 * above: FAS an apply of R r, the correction scheme R r and x = 0. */
static double bytes_coarse_rhs(const flow_small_cycle_args *a, const flow_small_level *C,
                               const flow_pair *r)
{
    const flow_pair none = { { 0 }, { 0 } };
    const flow_apply_args ap = { C->s, C->f, C->x, *r, 1 };
    const flow_restrict_pair_args rf = { C->f, none, *r, 0 };
    const flow_fill_args fill = { C->x.u, 0.0f };
    return a->fas ? bytes_apply(&ap) : bytes_restrict_pair(&rf) + 2 * bytes_fill(&fill);
}
/* A cycle on the small levels in one launch, counted as the traffic of the
 * operations it runs (those of the call-per-operation path): from level
 * top, level k visited gamma^(k - top) times. */
static double bytes_small_cycle_from(const flow_small_cycle_args *a, int top)
{
    double b = 0, visits = 1;
    for (int k = top; k < a->nlevels; k++, visits *= a->gamma) {
        const flow_small_level *L = &a->lev[k];
        if (k == a->nlevels - 1) {
            b += visits * bytes_small_sweeps(&L->s, &L->x.u, a->n0, a->sor);
            break;
        }
        const flow_small_level *C = &a->lev[k + 1];
        double v = bytes_small_sweeps(&L->s, &L->x.u, a->n1, a->sor)
                   + bytes_small_sweeps(&L->s, &L->x.u, a->n2, a->sor);
        const flow_residual_args r = { .s = L->s, .r = L->t, .x = L->x, .f = L->f,
                                       .with_rx = a->fas, .rx = { C->x, C->xr, L->x, 1 } };
        const flow_prolong_pair_args pp = { L->x, C->x, C->xr, a->fas, 1, 0.0f };
        double g = bytes_residual(&r) + bytes_prolong_pair(&pp) + bytes_coarse_rhs(a, C, &L->t);
        b += visits * (v + a->gamma * g);
    }
    return b;
}
/* The call: the entry's right-hand side (an apply of R r, or R r and the
 * zero start), then one cycle, or FMG: the zero start at the bottom, a
 * prolongation onto each level above, fmg_cycles cycles from each. */
static double bytes_small_cycle(const flow_small_cycle_args *a)
{
    const flow_pair none = { { 0 }, { 0 } };
    double b = a->with_entry ? bytes_coarse_rhs(a, &a->lev[0], &a->entry) : 0.0;
    if (a->fmg_cycles <= 0)
        return b + bytes_small_cycle_from(a, 0);
    for (int k = a->nlevels - 1; k >= 0; k--) {
        const flow_small_level *L = &a->lev[k];
        const flow_fill_args fill = { L->x.u, 0.0f };
        const flow_prolong_pair_args up = { L->x, k < a->nlevels - 1 ? L[1].x : none, none, 0, 0,
                                            0.0f };
        b += k < a->nlevels - 1 ? bytes_prolong_pair(&up) : 2 * bytes_fill(&fill);
        b += a->fmg_cycles * bytes_small_cycle_from(a, k);
    }
    return b;
}
static flow_status w_small_cycle(flow_device *d, const flow_small_cycle_args *a)
{
    dev_bytes += bytes_small_cycle(a), launches++;
    return real->small_cycle(d, a);
}
/* The small levels' restrictions in one launch: each plane of each level
 * read and its restriction written, as restrict_planes counts them. */
static flow_status w_restrict_small(flow_device *d, const flow_restrict_small_args *a)
{
    for (int k = 0; k < a->nlevels; k++)
        dev_bytes += a->n * (PX(&a->coarse[k][0]) + PX(k ? &a->coarse[k - 1][0] : &a->fine[0]));
    launches++;
    return real->restrict_small(d, a);
}

static flow_status w_plane_max(flow_device *d, const flow_plane *src, flow_plane *dst)
{
    dev_bytes += PX(src), launches++;
    return real->plane_max(d, src, dst);
}
/* One launch: each block sums its part, the last one the blocks' sums. */
static flow_status w_plane_sum(flow_device *d, const flow_plane *src, flow_plane *dst)
{
    dev_bytes += PX(src), launches++;
    return real->plane_sum(d, src, dst);
}
/* A radix sort passes over keys and indices once per digit (4 of 8 bits). */
static flow_status w_sort_desc(flow_device *d, const flow_plane *k, flow_plane *sk, flow_plane *si)
{
    dev_bytes += 4 * 4 * PX(k), launches += 4;
    return real->sort_desc(d, k, sk, si);
}

static void install_counting(flow_device *d)
{
    real = d->ops;
    counting = *real;
    counting.upload = w_upload;
    counting.download = w_download;
    counting.upload_async = w_upload_async;
    counting.upload_bytes = w_upload_bytes;
    counting.download_async = w_download_async;
    counting.copy = w_copy;
    /* the fused operations a backend provides (the rest are counted as
     * the operations of the list that core/fused.c runs instead) */
    counting.smooth_small = real->smooth_small ? w_smooth_small : NULL;
    counting.small_cycle = real->small_cycle ? w_small_cycle : NULL;
    counting.restrict_small = real->restrict_small ? w_restrict_small : NULL;
    counting.sor_sweeps = real->sor_sweeps ? w_sor_sweeps : NULL;
    counting.jacobi_sweeps = real->jacobi_sweeps ? w_jacobi_sweeps : NULL;
    counting.plane_max = w_plane_max;
    counting.plane_sum = w_plane_sum;
    counting.sort_desc = w_sort_desc;
#define FLOW_INSTALL(stem, A, W, H, G, C) counting.stem = w_##stem;
    FLOW_KERNELS(FLOW_INSTALL)
#undef FLOW_INSTALL
    d->ops = &counting;
}

/* ---- timing ---- */
static flow_device *be;
static flow_event *ev_tensor, *ev_download;

static void on_stage(void *user, const char *name)
{
    (void)user;
    if (strcmp(name, "upload") == 0)
        in_upload = 1;
    if (strcmp(name, "motion tensor") == 0 || strcmp(name, "pyramid") == 0
        || strcmp(name, "prepare") == 0 || strcmp(name, "graph") == 0) /* the first stage on the device */
        flow_event_record(ev_tensor);
    else if (strcmp(name, "download") == 0)
        flow_event_record(ev_download);
}

static void on_stage_done(void *user, const char *name)
{
    (void)user;
    if (strcmp(name, "upload") == 0)
        in_upload = 0;
}

static int cmp_double(const void *x, const void *y)
{
    const double a = *(const double *)x, c = *(const double *)y;
    return (a > c) - (a < c);
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* Measures the device-to-device bandwidth (GB/s, bytes read plus written)
 * with a large copy, when FLOW_BW_GBS does not give it. */
static double bandwidth_gbs(int *measured)
{
    const char *env = getenv("FLOW_BW_GBS");
    *measured = 0;
    if (env && atof(env) > 0)
        return atof(env);
    *measured = 1;
    flow_plane a, c;
    const int w = 8192, h = 4096; /* 128 MiB per plane */
    if (flow_plane_alloc(be, &a, w, h) != FLOW_OK || flow_plane_alloc(be, &c, w, h) != FLOW_OK)
        return NAN;
    flow_event *e0 = NULL, *e1 = NULL;
    if (flow_event_create(be, &e0) != FLOW_OK || flow_event_create(be, &e1) != FLOW_OK) {
        flow_event_destroy(e0);
        return NAN;
    }
    const flow_fill_args one = { a, 1.0f };
    real->fill(be, &one);
    double best = 1e30;
    for (int i = 0; i < 10; i++) {
        float ms;
        flow_event_record(e0);
        real->copy(be, &c, &a);
        flow_event_record(e1);
        flow_event_elapsed(e0, e1, &ms);
        if (i > 1 && ms < best)
            best = ms;
    }
    flow_event_destroy(e0);
    flow_event_destroy(e1);
    flow_plane_free(be, &a);
    flow_plane_free(be, &c);
    return 2.0 * w * h * 4.0 / (best * 1e-3) / 1e9;
}

typedef struct method_run {
    const char *name;
    const char *method;
    const char *solver; /* hs, clg, clg-nl */
    int iterations;
    int warp_levels;
    const char *preset; /* dis */
} method_run;

static const method_run runs[] = {
    { "LK (gauss)", "lk", NULL, 0, 0, NULL },
    { "HS FMG(2,2)", "hs", "fmg", 0, 0, NULL },
    { "CLG FMG(2,2)", "clg", "fmg", 0, 0, NULL },
    { "CLG-NL FMG(2,2)", "clg-nl", "fmg", 0, 0, NULL },
    { "CLG-NL warp 5", "clg-nl", "fmg", 0, 5, NULL },
    { "CLG J(200)", "clg", "jacobi", 200, 0, NULL },
    { "robust (defaults)", "robust", NULL, 0, 0, NULL },
    { "plk (defaults)", "plk", NULL, 0, 0, NULL },
    { "dis medium", "dis", NULL, 0, 0, "medium" },
    { "dis fast", "dis", NULL, 0, 0, "fast" },
    { "dis ultrafast", "dis", NULL, 0, 0, "ultrafast" },
    { "epic (defaults)", "epic", NULL, 0, 0, NULL },
};

typedef struct size {
    int w, h, channels;
} size;

/* The frames as 8-bit samples (rounded: the timing does not depend on the
 * values). */
static int to_bytes(const flow_image *f, flow_image8 *b)
{
    if (flow_image8_alloc(b, f->width, f->height, f->channels) != FLOW_OK)
        return 0;
    const size_t n = (size_t)f->width * f->height;
    for (int c = 0; c < f->channels; c++)
        for (size_t i = 0; i < n; i++) {
            const float v = f->data[c * n + i];
            b->data[i * f->channels + c] = (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : v + 0.5f);
        }
    return 1;
}

/* seq ms: a streamed sequence a c a c ... of `flows` timed flows after
 * `warm`, two in flight, everything the transfers touch page-locked; wall
 * time per flow between the first and the last timed collect. */
static int pipelined_ms(flow_context *ctx, const flow_image *a,
                        const flow_image *c, int warm, int flows, double *ms)
{
    flow_image8 f8[2] = {{0}, {0}};
    flow_field fld[2] = {{0}, {0}};
    int ok = to_bytes(a, &f8[0]) && to_bytes(c, &f8[1]);
    const size_t fbytes = (size_t)a->width * a->height * sizeof(float);
    const size_t ibytes = (size_t)a->width * a->height * a->channels;
    for (int k = 0; ok && k < 2; k++)
        ok = flow_field_alloc(&fld[k], a->width, a->height) == FLOW_OK
             && flow_device_pin(be, fld[k].u, fbytes) == FLOW_OK
             && flow_device_pin(be, fld[k].v, fbytes) == FLOW_OK
             && flow_device_pin(be, f8[k].data, ibytes) == FLOW_OK;
    flow_context_set_observer(ctx, NULL);
    ok = ok && flow_context_submit8(ctx, &f8[0], NULL) == FLOW_OK;
    double t0 = 0;
    int done = 0;
    for (int i = 1; ok && done < warm + flows; i++) {
        if (i <= warm + flows)
            ok = flow_context_submit8(ctx, &f8[i % 2], &fld[i % 2]) == FLOW_OK;
        if (ok && (flow_context_queued(ctx) == 2 || i > warm + flows)) {
            ok = flow_context_collect(ctx, NULL, NULL) == FLOW_OK;
            if (++done == warm)
                t0 = now_ms();
        }
    }
    *ms = ok ? (now_ms() - t0) / flows : 0;
    for (int k = 0; k < 2; k++) {
        flow_device_unpin(be, fld[k].u);
        flow_device_unpin(be, fld[k].v);
        flow_device_unpin(be, f8[k].data);
        flow_field_free(&fld[k]);
        flow_image8_free(&f8[k]);
    }
    return ok;
}

/* The run's parameters: the method's defaults, and for the variational
 * methods the solver with 2 pre- and post-smoothing sweeps, one cycle, the
 * sweeps of the Jacobi reference and the warping levels. */
static flow_params *run_params(const method_run *r)
{
    flow_params *p = NULL;
    flow_status s = flow_params_create(r->method, &p);
    if (s == FLOW_OK && r->preset)
        s = flow_params_set(p, "preset", r->preset);
    if (s == FLOW_OK && r->solver) {
        s = flow_params_set(p, "solver", r->solver);
        if (s == FLOW_OK)
            s = flow_params_set_number(p, "n1", 2);
        if (s == FLOW_OK)
            s = flow_params_set_number(p, "n2", 2);
        if (s == FLOW_OK)
            s = flow_params_set_number(p, "cycles", 1);
        if (s == FLOW_OK && r->iterations)
            s = flow_params_set_number(p, "iterations", r->iterations);
        if (s == FLOW_OK)
            s = flow_params_set_number(p, "warp_levels", r->warp_levels);
    }
    const char *extra = getenv("FLOW_BENCH_PARAMS");
    if (s == FLOW_OK && extra && !harness_params_apply(p, extra))
        s = FLOW_ERR_INVALID;
    if (s != FLOW_OK) {
        fprintf(stderr, "bench: %s: %s\n", r->name, flow_last_error());
        flow_params_destroy(p);
        return NULL;
    }
    return p;
}

static int bench_one(const method_run *r, const size *sz, double bw, int quick)
{
    flow_params *p = run_params(r);
    if (!p)
        return 0;
    flow_synth s = { .motion = FLOW_SYNTH_SMOOTH, .amplitude = 1.0, .wavelength = 60, .seed = 9 };
    flow_image a, c;
    flow_field out;
    flow_context *ctx = NULL;
    if (flow_synth_frame(&s, sz->w, sz->h, sz->channels, 0, &a) != FLOW_OK
        || flow_synth_frame(&s, sz->w, sz->h, sz->channels, 1, &c) != FLOW_OK
        || flow_field_alloc(&out, sz->w, sz->h) != FLOW_OK
        || flow_context_create(be, sz->w, sz->h, sz->channels, p, &ctx) != FLOW_OK) {
        fprintf(stderr, "bench: %s\n", flow_last_error());
        flow_params_destroy(p);
        return 0;
    }
    flow_params_destroy(p);
    flow_observer obs;
    memset(&obs, 0, sizeof obs);
    obs.stage_begin = on_stage;
    obs.stage_end = on_stage_done;
    flow_context_set_observer(ctx, &obs);
    const char *graphs = getenv("FLOW_BENCH_GRAPHS");
    flow_context_set_graphs(ctx, !(graphs && strcmp(graphs, "0") == 0));
    const char *fixed = getenv("FLOW_BENCH_RUNS");
    const int exact = fixed ? atoi(fixed) : 0;
    int used_graph = 0;
    flow_event *e0 = NULL, *e1 = NULL;
    int ok = flow_event_create(be, &e0) == FLOW_OK && flow_event_create(be, &e1) == FLOW_OK;
    double dev[MAX_RUNS], frame[MAX_RUNS], bytes = 0, hbytes = 0, nlaunch = 0;
    int n = 0;
    const int warm = quick ? 1 : 3, min_runs = quick ? 3 : MIN_RUNS;
    const double t_start = now_ms();
    for (int i = 0; ok && i < warm + MAX_RUNS; i++) {
        dev_bytes = host_bytes = launches = 0;
        flow_event_record(e0);
        ok = flow_context_compute(ctx, &a, &c, &out) == FLOW_OK;
        flow_event_record(e1);
        used_graph = flow_context_used_graph(ctx);
        /* a graph replay issues no operation from the host: the counts come
         * from the direct run or the capture (the first run) */
        if (i == 0)
            bytes = dev_bytes, nlaunch = launches;
        hbytes = host_bytes;
        float ms_dev = 0, ms_frame = 0;
        ok = ok && flow_event_elapsed(ev_tensor, ev_download, &ms_dev) == FLOW_OK;
        ok = ok && flow_event_elapsed(e0, e1, &ms_frame) == FLOW_OK;
        if (i < warm)
            continue;
        dev[n] = ms_dev;
        frame[n] = ms_frame;
        n++;
        if (exact ? n >= exact : (n >= min_runs && now_ms() - t_start > (quick ? 0 : 1000.0)))
            break;
    }
    /* the sequence case: the frames alternate a c a c ..., each pair with
     * one upload, the flow downloaded into page-locked memory */
    double stream[MAX_RUNS];
    int ns = 0;
    const size_t field_bytes = (size_t)sz->w * sz->h * sizeof(float);
    ok = ok && flow_device_pin(be, out.u, field_bytes) == FLOW_OK
         && flow_device_pin(be, out.v, field_bytes) == FLOW_OK;
    for (int i = 0; ok && ns < n && i < warm + n; i++) {
        flow_event_record(e0);
        ok = flow_context_compute_next(ctx, i % 2 ? &c : &a, &out) == FLOW_OK;
        flow_event_record(e1);
        float ms = 0;
        ok = ok && flow_event_elapsed(e0, e1, &ms) == FLOW_OK;
        if (i >= warm)
            stream[ns++] = ms;
    }
    flow_device_unpin(be, out.u);
    flow_device_unpin(be, out.v);
    double seq = 0;
    if (ok)
        ok = pipelined_ms(ctx, &a, &c, warm, 2 * n, &seq);
    if (!ok)
        fprintf(stderr, "bench: %s: %s\n", r->name, flow_last_error());
    flow_event_destroy(e0);
    flow_event_destroy(e1);
    flow_context_destroy(ctx);
    flow_image_free(&a), flow_image_free(&c);
    flow_field_free(&out);
    if (!ok || n == 0)
        return 0;
    qsort(dev, (size_t)n, sizeof *dev, cmp_double);
    qsort(frame, (size_t)n, sizeof *frame, cmp_double);
    qsort(stream, (size_t)ns, sizeof *stream, cmp_double);
    const double md = dev[n / 2], mf = frame[n / 2], ms = stream[ns / 2];
    const double floor_ms = bytes / (bw * 1e9) * 1e3;
    const double px = (double)sz->w * sz->h;
    printf("| %-16s | %4dx%-4d %s | %8.3f | %8.1f | %8.3f | %8.3f | %8.3f | %6.0f | %8.3f | %5.1f | %5.0f%s | %3d | %7.1f |\n",
           r->name, sz->w, sz->h, sz->channels == 3 ? "rgb " : "gray", md, 1e3 / md, mf, ms, seq,
           bytes / px, floor_ms, md / floor_ms, nlaunch, used_graph ? " (graph)" : "", n,
           hbytes / 1e6);
    return 1;
}

/* ---- where a method's time goes: device time per stage -----------------
 * The context runs directly (no graph, so that the stages are reported);
 * an event is recorded at each begin and end of the stages below, and the
 * spans are summed per name over a frame.  The stages nest in "warping"
 * and do not overlap each other. */
static const char *const stage_names[] = { "prepare",    "pyramid",    "patch search",
                                           "densify",    "warp",       "data terms",
                                           "solve",      "median" };
#define NSTAGES ((int)(sizeof stage_names / sizeof stage_names[0]))
#define STAGE_EVENTS 16384
static flow_event *st_ev[STAGE_EVENTS];
/* per event: -1 for a begin; for an end, its stage k + NSTAGES * (the event
 * index of its begin) */
static int st_n, st_open[NSTAGES], st_kind[STAGE_EVENTS], st_overflow;

static int stage_index(const char *name)
{
    for (int k = 0; k < NSTAGES; k++)
        if (strcmp(name, stage_names[k]) == 0)
            return k;
    return -1;
}

static void stage_mark(const char *name, int end)
{
    const int k = stage_index(name);
    if (k < 0)
        return;
    if (st_n >= STAGE_EVENTS) {
        st_overflow = 1;
        return;
    }
    if (!st_ev[st_n] && flow_event_create(be, &st_ev[st_n]) != FLOW_OK)
        return;
    flow_event_record(st_ev[st_n]);
    if (end)
        st_kind[st_n] = k + NSTAGES * st_open[k];
    else
        st_kind[st_n] = -1, st_open[k] = st_n;
    st_n++;
}

static void on_stage_begin(void *user, const char *name)
{
    (void)user;
    on_stage(NULL, name);
    stage_mark(name, 0);
}

static void on_stage_end(void *user, const char *name)
{
    (void)user;
    stage_mark(name, 1);
}

/* Prints one row: the median over a few frames of each stage's time. */
/* The stage tables' pair (a smooth synthetic motion) of size sz, its flow
 * and a context of method's defaults on it; 0 when any fails. */
static int stage_setup(const char *method, const size *sz, flow_image *a, flow_image *c,
                       flow_field *out, flow_context **ctx)
{
    flow_params *p = NULL;
    *ctx = NULL;
    if (flow_params_create(method, &p) != FLOW_OK)
        return 0;
    flow_synth s = { .motion = FLOW_SYNTH_SMOOTH, .amplitude = 1.0, .wavelength = 60, .seed = 9 };
    const int ok = flow_synth_frame(&s, sz->w, sz->h, sz->channels, 0, a) == FLOW_OK
                   && flow_synth_frame(&s, sz->w, sz->h, sz->channels, 1, c) == FLOW_OK
                   && flow_field_alloc(out, sz->w, sz->h) == FLOW_OK
                   && flow_context_create(be, sz->w, sz->h, sz->channels, p, ctx) == FLOW_OK;
    flow_params_destroy(p);
    return ok;
}

static int stage_row(const char *method, const size *sz)
{
    flow_image a, c;
    flow_field out;
    flow_context *ctx;
    int ok = stage_setup(method, sz, &a, &c, &out, &ctx);
    if (!ok) {
        fprintf(stderr, "bench: stages of %s: %s\n", method, flow_last_error());
        return 0;
    }
    flow_context_set_graphs(ctx, 0);
    flow_observer obs;
    memset(&obs, 0, sizeof obs);
    obs.stage_begin = on_stage_begin;
    obs.stage_end = on_stage_end;
    flow_context_set_observer(ctx, &obs);
    enum { FRAMES = 5 };
    double t[NSTAGES][FRAMES], total[FRAMES];
    for (int f = 0; ok && f < FRAMES + 1; f++) {
        st_n = 0;
        ok = flow_context_compute(ctx, &a, &c, &out) == FLOW_OK;
        float dev_ms = 0;
        ok = ok && flow_event_elapsed(ev_tensor, ev_download, &dev_ms) == FLOW_OK;
        if (!ok || f == 0) /* the first frame warms up */
            continue;
        for (int k = 0; k < NSTAGES; k++)
            t[k][f - 1] = 0;
        for (int i = 0; i < st_n; i++)
            if (st_kind[i] >= 0) {
                float ms = 0;
                flow_event_elapsed(st_ev[st_kind[i] / NSTAGES], st_ev[i], &ms);
                t[st_kind[i] % NSTAGES][f - 1] += ms;
            }
        total[f - 1] = dev_ms;
    }
    flow_context_destroy(ctx);
    flow_image_free(&a), flow_image_free(&c);
    flow_field_free(&out);
    if (!ok || st_overflow) {
        fprintf(stderr, "bench: stages of %s: %s\n", method,
                st_overflow ? "too many stages to time" : flow_last_error());
        return 0;
    }
    printf("| %s | %dx%d%s |", method, sz->w, sz->h, sz->channels == 3 ? "rgb" : "");
    double sum = 0;
    for (int k = 0; k < NSTAGES; k++) {
        qsort(t[k], FRAMES, sizeof t[k][0], cmp_double);
        sum += t[k][FRAMES / 2];
        printf(" %.3f |", t[k][FRAMES / 2]);
    }
    qsort(total, FRAMES, sizeof total[0], cmp_double);
    printf(" %.3f | %.3f |\n", sum, total[FRAMES / 2]);
    return 1;
}

static void stage_table(int quick)
{
    static const char *const methods[] = { "robust", "dis" };
    const char *only = getenv("FLOW_BENCH_ONLY");
    printf("\ndevice ms per stage (direct launches, no graph: each stage timed by events; "
           "median of 5 frames):\n\n| method | size |");
    for (int k = 0; k < NSTAGES; k++)
        printf(" %s |", stage_names[k]);
    printf(" sum | device ms (no graph) |\n|---|---|");
    for (int k = 0; k < NSTAGES + 2; k++)
        printf("---|");
    printf("\n");
    const size sizes[3] = { { 640, 480, 1 }, { 1920, 1080, 1 }, { 316, 252, 3 } };
    for (int m = 0; m < 2; m++)
        for (int z = 0; z < 3; z++)
            if ((!only || strstr(methods[m], only) || strstr(only, methods[m])) && (!quick || sizes[z].w == 316))
                stage_row(methods[m], &sizes[z]);
    for (int i = 0; i < STAGE_EVENTS; i++)
        if (st_ev[i]) {
            flow_event_destroy(st_ev[i]);
            st_ev[i] = NULL;
        }
}

/* ---- epic stage by stage ------------------------------------------------
 * Every stage epic reports (but the container "warping"), in the order of
 * its first appearance in a frame, each pyramid level apart (L5 the
 * coarsest of the defaults, L1 the match level, L0 the finest): the
 * descriptors and the matching of each level, the consistency check, the
 * geodesic search (the edge cost and the relaxation passes), the
 * interpolation, and the refinement's warps, data terms, solve and median
 * (the pyramid runs `warps` warps on every level, the refinement's terms
 * and solves from the match level down); each with the bytes its
 * operations move (the model of the floors above), its floor and its
 * launches.  A stage inside another (the solver's coarse tensors and
 * cycles) is shown under it and not summed again.  The rest of the device
 * time (the flow carried up a level, the smoothness weights) is the row
 * "between stages". */
#define ES_ROWS 64
#define ES_EVENTS 4096
#define ES_DEPTH 8
typedef struct es_row {
    char name[48];
    int nested;
    double ms[5], bytes, launches;
} es_row;
static es_row es_rows[ES_ROWS];
static int es_nrows, es_overflow;
static flow_event *es_ev[ES_EVENTS];
static int es_nev, es_row_of[ES_EVENTS]; /* per end event: row * ES_EVENTS + its begin */
/* the stages open, innermost last */
static struct {
    int ev, row;
    double bytes, launches;
    char label[48];
} es_stack[ES_DEPTH];
static int es_depth;
/* the pyramid's shape and the occurrences of the per-level stages so far
 * in this frame */
static int es_top, es_match, es_warps;
static int es_n_desc, es_n_matching, es_n_warp, es_n_terms, es_n_solve, es_n_median;

static int es_row_index(const char *name, int nested)
{
    for (int k = 0; k < es_nrows; k++)
        if (strcmp(es_rows[k].name, name) == 0)
            return k;
    if (es_nrows == ES_ROWS) {
        es_overflow = 1;
        return -1;
    }
    memset(&es_rows[es_nrows], 0, sizeof es_rows[0]);
    snprintf(es_rows[es_nrows].name, sizeof es_rows[0].name, "%s", name);
    es_rows[es_nrows].nested = nested;
    return es_nrows++;
}

static int es_leaf(const char *name)
{
    return strcmp(name, "warping") && strcmp(name, "upload") && strcmp(name, "download")
           && strcmp(name, "graph");
}

static int es_record(void)
{
    if (es_nev >= ES_EVENTS) {
        es_overflow = 1;
        return -1;
    }
    if (!es_ev[es_nev] && flow_event_create(be, &es_ev[es_nev]) != FLOW_OK)
        return -1;
    flow_event_record(es_ev[es_nev]);
    return es_nev++;
}

/* The row of a stage beginning now: its pyramid level from the order of
 * the stages (pyramid.c runs the levels from the coarsest, `warps` warps
 * each; epic matches on every level from the coarsest to the match level
 * and refines from there), or the stage it is inside. */
static void es_label(const char *name, char *label, size_t n)
{
    if (es_depth > 0) {
        char parent[sizeof es_stack[0].label];
        memcpy(parent, es_stack[es_depth - 1].label, sizeof parent);
        snprintf(label, n, "%.24s: %.20s", parent, name);
    }
    else if (strcmp(name, "descriptors") == 0)
        snprintf(label, n, "descriptors L%d", es_top - es_n_desc++);
    else if (strcmp(name, "matching") == 0)
        snprintf(label, n, "matching L%d", es_top - es_n_matching++);
    else if (strcmp(name, "warp") == 0)
        snprintf(label, n, "warp L%d", es_top - es_n_warp++ / es_warps);
    else if (strcmp(name, "data terms") == 0)
        snprintf(label, n, "data terms L%d", es_match - es_n_terms++ / es_warps);
    else if (strcmp(name, "solve") == 0)
        snprintf(label, n, "solve L%d", es_match - es_n_solve++ / es_warps);
    else if (strcmp(name, "median") == 0)
        snprintf(label, n, "median L%d", es_match - es_n_median++);
    else
        snprintf(label, n, "%s", name);
}

static void es_begin(void *user, const char *name)
{
    (void)user;
    on_stage(NULL, name);
    if (!es_leaf(name))
        return;
    if (es_depth == ES_DEPTH) {
        es_overflow = 1;
        return;
    }
    es_label(name, es_stack[es_depth].label, sizeof es_stack[0].label);
    es_stack[es_depth].row = es_row_index(es_stack[es_depth].label, es_depth > 0);
    es_stack[es_depth].ev = es_record();
    es_stack[es_depth].bytes = dev_bytes;
    es_stack[es_depth].launches = launches;
    if (es_stack[es_depth].ev >= 0)
        es_row_of[es_stack[es_depth].ev] = -1;
    es_depth++;
}

static void es_end(void *user, const char *name)
{
    (void)user;
    on_stage_done(NULL, name);
    if (!es_leaf(name) || es_depth == 0)
        return;
    es_depth--;
    const int row = es_stack[es_depth].row;
    const int begin = es_stack[es_depth].ev, e = es_record();
    if (row < 0 || begin < 0 || e < 0)
        return;
    es_row_of[e] = row * ES_EVENTS + begin;
    es_rows[row].bytes += dev_bytes - es_stack[es_depth].bytes;
    es_rows[row].launches += launches - es_stack[es_depth].launches;
}

/* One table: epic's stages on a w x h pair, medians of 5 frames. */
static int epic_stage_detail(const size *sz, double bw)
{
    flow_image a, c;
    flow_field out;
    flow_context *ctx;
    int ok = stage_setup("epic", sz, &a, &c, &out, &ctx);
    double levels = 0, match = 0, warps = 0;
    const flow_params *used = ok ? flow_context_params(ctx) : NULL;
    ok = ok && flow_params_get_number(used, "levels", &levels) == FLOW_OK
         && flow_params_get_number(used, "match_level", &match) == FLOW_OK
         && flow_params_get_number(used, "warps", &warps) == FLOW_OK;
    if (!ok) {
        fprintf(stderr, "bench: stages of epic: %s\n", flow_last_error());
        flow_context_destroy(ctx);
        return 0;
    }
    flow_context_set_graphs(ctx, 0);
    flow_observer obs;
    memset(&obs, 0, sizeof obs);
    obs.stage_begin = es_begin;
    obs.stage_end = es_end;
    flow_context_set_observer(ctx, &obs);
    enum { FRAMES = 5 };
    double total[FRAMES];
    es_nrows = es_overflow = 0;
    for (int f = 0; ok && f < FRAMES + 1; f++) {
        es_nev = es_depth = 0;
        es_n_desc = es_n_matching = es_n_warp = es_n_terms = es_n_solve = es_n_median = 0;
        es_top = (int)levels, es_match = (int)match, es_warps = warps > 0 ? (int)warps : 1;
        ok = flow_context_compute(ctx, &a, &c, &out) == FLOW_OK;
        float dev_ms = 0;
        ok = ok && flow_event_elapsed(ev_tensor, ev_download, &dev_ms) == FLOW_OK;
        if (!ok || f == 0) { /* the first frame warms up; its counts are dropped */
            for (int k = 0; k < es_nrows; k++)
                es_rows[k].bytes = es_rows[k].launches = 0;
            continue;
        }
        for (int k = 0; k < es_nrows; k++)
            es_rows[k].ms[f - 1] = 0;
        for (int i = 0; i < es_nev; i++)
            if (es_row_of[i] >= 0) {
                float ms = 0;
                flow_event_elapsed(es_ev[es_row_of[i] % ES_EVENTS], es_ev[i], &ms);
                es_rows[es_row_of[i] / ES_EVENTS].ms[f - 1] += ms;
            }
        total[f - 1] = dev_ms;
    }
    flow_context_destroy(ctx);
    flow_image_free(&a), flow_image_free(&c);
    flow_field_free(&out);
    if (!ok || es_overflow) {
        fprintf(stderr, "bench: stages of epic: %s\n",
                es_overflow ? "too many stages to time" : flow_last_error());
        return 0;
    }
    printf("\nepic at %dx%d%s (levels %d, match level %d), device ms per stage (direct "
           "launches, no graph; median of %d frames):\n\n"
           "| stage | device ms | share | MB | floor ms | x floor | launches |\n"
           "|---|---|---|---|---|---|---|\n",
           sz->w, sz->h, sz->channels == 3 ? " rgb" : "", (int)levels, (int)match, FRAMES);
    qsort(total, FRAMES, sizeof total[0], cmp_double);
    const double whole = total[FRAMES / 2];
    double sum = 0, bytes = 0, nl = 0;
    for (int k = 0; k < es_nrows; k++) {
        es_row *r = &es_rows[k];
        qsort(r->ms, FRAMES, sizeof r->ms[0], cmp_double);
        const double ms = r->ms[FRAMES / 2], b = r->bytes / FRAMES;
        const double floor_ms = b / (bw * 1e9) * 1e3;
        if (!r->nested)
            sum += ms, bytes += b, nl += r->launches / FRAMES;
        printf("| %s%s | %.3f | %.1f%% | %.2f | %.4f | %.1f | %.0f |\n", r->nested ? "- " : "",
               r->name, ms,
               100.0 * ms / whole, b / 1e6, floor_ms, floor_ms > 0 ? ms / floor_ms : 0.0,
               r->launches / FRAMES);
    }
    printf("| between stages | %.3f | %.1f%% | | | | |\n", whole - sum, 100.0 * (whole - sum) / whole);
    printf("| **device ms (no graph)** | **%.3f** | 100%% | %.2f | %.4f | %.1f | %.0f |\n", whole,
           bytes / 1e6, bytes / (bw * 1e9) * 1e3, whole / (bytes / (bw * 1e9) * 1e3), nl);
    return 1;
}

static int epic_stage_tables(int quick, double bw)
{
    const char *only = getenv("FLOW_BENCH_ONLY");
    if (only && !strstr("epic", only) && !strstr(only, "epic"))
        return 0;
    const size sizes[2] = { { 1024, 436, 1 }, { 1920, 1080, 1 } };
    const size small = { 316, 252, 1 };
    int failed = 0;
    if (quick)
        failed += !epic_stage_detail(&small, bw);
    for (int z = 0; !quick && z < 2; z++)
        failed += !epic_stage_detail(&sizes[z], bw);
    for (int i = 0; i < ES_EVENTS; i++)
        if (es_ev[i]) {
            flow_event_destroy(es_ev[i]);
            es_ev[i] = NULL;
        }
    return failed;
}

/* ---- concurrent streams --------------------------------------------------
 * Each stream: a context on its own queue, driven by its own thread. */
#define CONC_STREAMS 4

typedef struct conc_stream {
    flow_context *ctx;
    flow_image8 f8[2];
    flow_field fld[2];
    int warm, flows;
    atomic_int *ready, *go; /* streams warmed up; all may start */
    double t0, t1;
    int ok;
} conc_stream;

/* n flows of the sequence a c a c ... (continuing it), two in flight. */
static int stream_flows(conc_stream *c, int n, int *next)
{
    int ok = 1, done = 0;
    for (int i = 0; ok && done < n; i++) {
        if (i < n) {
            const int k = (*next)++ % 2;
            ok = flow_context_submit8(c->ctx, &c->f8[k], &c->fld[k]) == FLOW_OK;
        }
        if (ok && (flow_context_queued(c->ctx) == 2 || i >= n - 1)) {
            ok = flow_context_collect(c->ctx, NULL, NULL) == FLOW_OK;
            done++;
        }
    }
    return ok;
}

static void *conc_run(void *arg)
{
    conc_stream *c = arg;
    int next = 1;
    c->ok = flow_context_submit8(c->ctx, &c->f8[0], NULL) == FLOW_OK
            && stream_flows(c, c->warm, &next);
    atomic_fetch_add(c->ready, 1);
    const struct timespec pause = { 0, 20000 };
    while (!atomic_load(c->go))
        nanosleep(&pause, NULL);
    c->t0 = now_ms();
    c->ok = c->ok && stream_flows(c, c->flows, &next);
    c->t1 = now_ms();
    return NULL;
}

static void conc_free(conc_stream *c)
{
    for (int k = 0; k < 2; k++) {
        if (c->fld[k].u) {
            flow_device_unpin(be, c->fld[k].u);
            flow_device_unpin(be, c->fld[k].v);
        }
        if (c->f8[k].data)
            flow_device_unpin(be, c->f8[k].data);
        flow_field_free(&c->fld[k]);
        flow_image8_free(&c->f8[k]);
    }
    flow_context_destroy(c->ctx);
}

/* Flows per second of n streams at once (0 when one failed). */
static double conc_flows_per_s(int n, const flow_image *a, const flow_image *c, int flows)
{
    conc_stream st[CONC_STREAMS];
    pthread_t th[CONC_STREAMS];
    atomic_int ready, go;
    atomic_init(&ready, 0);
    atomic_init(&go, 0);
    memset(st, 0, sizeof st);
    static const method_run robust = { "robust", "robust", NULL, 0, 0, NULL };
    flow_params *p = run_params(&robust);
    int ok = p != NULL;
    const size_t fbytes = (size_t)a->width * a->height * sizeof(float);
    const size_t ibytes = (size_t)a->width * a->height;
    for (int i = 0; ok && i < n; i++) {
        ok = flow_context_create(be, a->width, a->height, 1, p, &st[i].ctx) == FLOW_OK
             && to_bytes(a, &st[i].f8[0]) && to_bytes(c, &st[i].f8[1]);
        for (int k = 0; ok && k < 2; k++)
            ok = flow_field_alloc(&st[i].fld[k], a->width, a->height) == FLOW_OK
                 && flow_device_pin(be, st[i].fld[k].u, fbytes) == FLOW_OK
                 && flow_device_pin(be, st[i].fld[k].v, fbytes) == FLOW_OK
                 && flow_device_pin(be, st[i].f8[k].data, ibytes) == FLOW_OK;
        st[i].warm = 5, st[i].flows = flows, st[i].ready = &ready, st[i].go = &go;
    }
    flow_params_destroy(p);
    int started = 0;
    for (; ok && started < n; started++)
        if (pthread_create(&th[started], NULL, conc_run, &st[started]) != 0) {
            fprintf(stderr, "bench: cannot start %d threads\n", n);
            ok = 0;
            break;
        }
    /* a common start once every stream has warmed up */
    const struct timespec pause = { 0, 20000 };
    while (atomic_load(&ready) < started)
        nanosleep(&pause, NULL);
    atomic_store(&go, 1);
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    double t0 = 1e300, t1 = 0;
    for (int i = 0; i < n; i++) {
        ok = ok && i < started && st[i].ok;
        if (st[i].t0 < t0)
            t0 = st[i].t0;
        if (st[i].t1 > t1)
            t1 = st[i].t1;
        conc_free(&st[i]);
    }
    if (!ok)
        fprintf(stderr, "bench: concurrent streams: %s\n", flow_last_error());
    return ok ? n * flows / ((t1 - t0) * 1e-3) : 0;
}

/* Both directions against one: per method, the device time of a frame
 * (flow_context_compute, events around it, graphs as configured) with one
 * direction and with both plus the occlusion mask and the confidence
 * downloaded, each on a context of its own, the two taking turns run by
 * run (so that a busy host slows both alike), medians of 15 runs each (3
 * quick; FLOW_BENCH_RUNS=n: n), and the forward-backward operation's own
 * time (`consistency`, a launch on planes of the frame's size). */
static int both_table(int quick)
{
    static const char *const methods[] = { "robust", "dis", "epic", "tvl1" };
    static const size sizes[2] = { { 640, 480, 1 }, { 1920, 1080, 1 } };
    const char *only = getenv("FLOW_BENCH_ONLY");
    const char *graphs = getenv("FLOW_BENCH_GRAPHS");
    const char *fixed = getenv("FLOW_BENCH_RUNS");
    const int nruns = fixed && atoi(fixed) > 0 ? (atoi(fixed) < MAX_RUNS ? atoi(fixed) : MAX_RUNS)
                                               : quick ? 3 : 15;
    int failed = 0;
    printf("\nboth directions: frame ms with flow_context_set_backward (backward flow, occlusion\n"
           "mask and confidence downloaded) against one direction, medians of %d runs taken\n"
           "in turns; test ms: the consistency operation alone\n\n"
           "| method | size | one ms | both ms | both / one | test ms | test / one |\n"
           "|---|---|---|---|---|---|---|\n", nruns);
    for (int m = 0; m < 4; m++) {
        if (only && !strstr(methods[m], only))
            continue;
        for (int z = 0; z < (quick ? 1 : 2); z++) {
            const int w = quick ? 316 : sizes[z].w, h = quick ? 252 : sizes[z].h;
            flow_synth sy = { .motion = FLOW_SYNTH_SMOOTH, .amplitude = 1.0, .wavelength = 60,
                              .seed = 9 };
            flow_image a = {0}, c = {0};
            flow_field out = {0};
            flow_params *p = NULL;
            flow_context *ctx[2] = { NULL, NULL }; /* one direction, both */
            float *occ = malloc(sizeof(float) * w * h), *conf = malloc(sizeof(float) * w * h);
            flow_event *e0 = NULL, *e1 = NULL;
            int ok = occ && conf && flow_synth_frame(&sy, w, h, 1, 0, &a) == FLOW_OK
                     && flow_synth_frame(&sy, w, h, 1, 1, &c) == FLOW_OK
                     && flow_field_alloc(&out, w, h) == FLOW_OK
                     && flow_params_create(methods[m], &p) == FLOW_OK
                     && flow_context_create(be, w, h, 1, p, &ctx[0]) == FLOW_OK
                     && flow_context_create(be, w, h, 1, p, &ctx[1]) == FLOW_OK
                     && flow_event_create(be, &e0) == FLOW_OK
                     && flow_event_create(be, &e1) == FLOW_OK;
            for (int k = 0; ok && k < 2; k++)
                flow_context_set_graphs(ctx[k], !(graphs && strcmp(graphs, "0") == 0));
            ok = ok
                 && flow_context_set_backward(ctx[1], 1, FLOW_OCCLUSION_A, FLOW_OCCLUSION_B)
                        == FLOW_OK
                 && flow_context_request_output(ctx[1], "occlusion", occ) == FLOW_OK
                 && flow_context_request_output(ctx[1], "confidence", conf) == FLOW_OK;
            double ms[2] = { 0, 0 };
            double times[2][MAX_RUNS];
            for (int i = 0; ok && i < 2 + nruns; i++)
                for (int both = 0; ok && both < 2; both++) {
                    float f = 0;
                    ok = flow_event_record(e0) == FLOW_OK
                         && flow_context_compute(ctx[both], &a, &c, &out) == FLOW_OK
                         && flow_event_record(e1) == FLOW_OK
                         && flow_event_elapsed(e0, e1, &f) == FLOW_OK;
                    if (i >= 2)
                        times[both][i - 2] = f;
                }
            for (int both = 0; ok && both < 2; both++) {
                qsort(times[both], (size_t)nruns, sizeof times[both][0], cmp_double);
                ms[both] = times[both][nruns / 2];
            }
            /* the operation alone, on planes of the frame's size */
            double test_ms = 0;
            flow_consistency_args k;
            memset(&k, 0, sizeof k);
            flow_plane *planes[] = { &k.fb.fwd.u, &k.fb.fwd.v, &k.fb.bwd.u, &k.fb.bwd.v,
                                     &k.verdict, &k.occluded, &k.confidence, &k.f1[0], &k.f2[0] };
            for (int i = 0; ok && i < 9; i++) {
                flow_fill_args fa;
                fa.value = 0.5f * (float)(i % 3);
                ok = flow_plane_alloc(be, planes[i], w, h) == FLOW_OK;
                fa.p = *planes[i];
                ok = ok && flow_k_fill(be, &fa) == FLOW_OK;
            }
            k.fb.a = FLOW_OCCLUSION_A;
            k.fb.b = FLOW_OCCLUSION_B;
            k.fb.unknown = FLOW_UNKNOWN_THRESHOLD;
            k.channels = 1;
            if (ok) {
                double t[MAX_RUNS];
                for (int i = 0; ok && i < 2 + nruns; i++) {
                    float f = 0;
                    ok = flow_event_record(e0) == FLOW_OK && flow_k_consistency(be, &k) == FLOW_OK
                         && flow_event_record(e1) == FLOW_OK
                         && flow_event_elapsed(e0, e1, &f) == FLOW_OK;
                    if (i >= 2)
                        t[i - 2] = f;
                }
                if (ok) {
                    qsort(t, (size_t)nruns, sizeof t[0], cmp_double);
                    test_ms = t[nruns / 2];
                }
            }
            for (int i = 0; i < 9; i++)
                flow_plane_free(be, planes[i]);
            if (ok)
                printf("| %s | %dx%d | %.3f | %.3f | %.2f | %.3f | %.1f%% |\n", methods[m], w, h,
                       ms[0], ms[1], ms[1] / ms[0], test_ms, 100.0 * test_ms / ms[0]);
            else
                fprintf(stderr, "bench: both directions, %s %dx%d: %s\n", methods[m], w, h,
                        flow_last_error());
            failed += !ok;
            flow_event_destroy(e0);
            flow_event_destroy(e1);
            flow_context_destroy(ctx[0]);
            flow_context_destroy(ctx[1]);
            flow_params_destroy(p);
            flow_image_free(&a), flow_image_free(&c);
            flow_field_free(&out);
            free(occ), free(conf);
        }
    }
    return failed;
}

static int conc_table(int quick)
{
    const char *only = getenv("FLOW_BENCH_ONLY");
    if (only && !strstr("robust", only) && !strstr(only, "robust"))
        return 0;
    flow_synth s = { .motion = FLOW_SYNTH_SMOOTH, .amplitude = 1.0, .wavelength = 60, .seed = 9 };
    flow_image a, c;
    if (flow_synth_frame(&s, 640, 480, 1, 0, &a) != FLOW_OK
        || flow_synth_frame(&s, 640, 480, 1, 1, &c) != FLOW_OK) {
        fprintf(stderr, "bench: %s\n", flow_last_error());
        return 1;
    }
    /* the counting table is not for threads: the streams use the device's own */
    const flow_device_ops *counted = be->ops;
    be->ops = real;
    const int flows = quick ? 4 : 300;
    const double one = conc_flows_per_s(1, &a, &c, flows);
    const double many = conc_flows_per_s(CONC_STREAMS, &a, &c, flows);
    be->ops = counted;
    flow_image_free(&a), flow_image_free(&c);
    printf("\nconcurrent streams (robust 640x480 gray, a context and a host thread per stream, "
           "each streamed as in seq ms; %d flows per stream):\n\n"
           "| streams | flows/s | x one stream |\n|---|---|---|\n"
           "| 1 | %.1f | 1.00 |\n| %d | %.1f | %.2f |\n",
           flows, one, CONC_STREAMS, many, one > 0 ? many / one : 0);
    return one <= 0 || many <= 0;
}

/* ---- KLT tracking --------------------------------------------------------
 * flow_tracker_next over a generated sequence (a slow rotation-zoom of the
 * default texture, KLT_FRAMES frames, then backwards, and so on): events
 * before and after each call, so a frame's time is everything from its
 * upload to the download of the points, selection of replacements
 * included, and the host's gaps between the launches; per stage the same
 * events as the methods' stage table.  FLOW_BENCH_FRAMES=DIR also writes
 * the frames there as PGM (frame-NN.pgm) for tests/bench/peers_klt.py. */
#define KLT_FRAMES 16
static const char *const klt_stage_names[] = { "upload", "pyramid", "track", "select",
                                               "download", "graph" };
#define KLT_STAGES 6
#define KLT_RUNS (4 * KLT_FRAMES + 1)

static flow_event *klt_ev[KLT_STAGES][2];
static int klt_seen[KLT_STAGES];
static void klt_stage(void *user, const char *name, int end)
{
    (void)user;
    for (int k = 0; k < KLT_STAGES; k++)
        if (strcmp(name, klt_stage_names[k]) == 0) {
            flow_event_record(klt_ev[k][end]);
            klt_seen[k] = 1;
        }
}
static void klt_begin(void *user, const char *name)
{
    klt_stage(user, name, 0);
}
static void klt_end(void *user, const char *name)
{
    klt_stage(user, name, 1);
}

typedef struct klt_times {
    double total, stage[KLT_STAGES], bytes, launches, lost;
    int alive;
} klt_times;

/* Tracks the frames with graphs on or off: medians per frame. */
static int klt_measure(int w, int h, const flow_track_params *p, const flow_image *frames,
                       int graphs, int quick, klt_times *out)
{
    flow_tracker *t = NULL;
    int ok = flow_tracker_create(be, w, h, p, &t) == FLOW_OK;
    flow_observer obs;
    memset(&obs, 0, sizeof obs);
    obs.stage_begin = klt_begin, obs.stage_end = klt_end;
    if (t) {
        flow_tracker_set_observer(t, &obs);
        flow_tracker_set_graphs(t, graphs);
    }
    flow_event *e0 = NULL, *e1 = NULL;
    ok = ok && flow_event_create(be, &e0) == FLOW_OK && flow_event_create(be, &e1) == FLOW_OK;
    for (int k = 0; ok && k < KLT_STAGES; k++)
        ok = (klt_ev[k][0] || flow_event_create(be, &klt_ev[k][0]) == FLOW_OK)
             && (klt_ev[k][1] || flow_event_create(be, &klt_ev[k][1]) == FLOW_OK);
    const int nruns = quick ? 6 : KLT_RUNS;
    static double total[KLT_RUNS], stage[KLT_STAGES][KLT_RUNS];
    int n = 0;
    long lost = 0;
    memset(out, 0, sizeof *out);
    for (int i = 0; ok && i < nruns; i++) {
        /* 0 1 .. 15 14 .. 1 0 1 ..: a motion that turns back now and then */
        const int period = 2 * (KLT_FRAMES - 1), m = i % period;
        const int k = m < KLT_FRAMES ? m : period - m;
        dev_bytes = launches = 0;
        memset(klt_seen, 0, sizeof klt_seen);
        flow_event_record(e0);
        ok = flow_tracker_next(t, &frames[k]) == FLOW_OK;
        flow_event_record(e1);
        float ms = 0;
        ok = ok && flow_event_elapsed(e0, e1, &ms) == FLOW_OK;
        if (!ok || i == 0) /* the first frame selects only */
            continue;
        if (i == 1 || !graphs) /* a replay issues nothing from the host */
            out->bytes = dev_bytes, out->launches = launches;
        const flow_track_losses l = flow_tracker_losses(t);
        lost += l.texture + l.outside + l.residual + l.fb;
        out->alive = flow_tracker_alive(t);
        total[n] = ms;
        for (int st = 0; st < KLT_STAGES; st++) {
            float sms = 0;
            if (klt_seen[st])
                flow_event_elapsed(klt_ev[st][0], klt_ev[st][1], &sms);
            stage[st][n] = sms;
        }
        n++;
    }
    if (!ok)
        fprintf(stderr, "bench: klt %dx%d: %s\n", w, h, flow_last_error());
    if (ok && graphs && !flow_tracker_used_graph(t))
        out->launches = -out->launches; /* no graph after all */
    flow_event_destroy(e0), flow_event_destroy(e1);
    flow_tracker_destroy(t);
    if (!ok || n == 0)
        return 0;
    qsort(total, (size_t)n, sizeof total[0], cmp_double);
    out->total = total[n / 2];
    for (int st = 0; st < KLT_STAGES; st++) {
        qsort(stage[st], (size_t)n, sizeof stage[st][0], cmp_double);
        out->stage[st] = stage[st][n / 2];
    }
    out->lost = (double)lost / n;
    return 1;
}

static int klt_row(int w, int h, const flow_track_params *p, double bw, int quick)
{
    const flow_synth s = { .motion = FLOW_SYNTH_ROTOZOOM, .angle = 0.004, .scale = 1.004,
                           .seed = 31 };
    flow_image frames[KLT_FRAMES];
    memset(frames, 0, sizeof frames);
    const char *dir = getenv("FLOW_BENCH_FRAMES");
    int ok = 1;
    for (int k = 0; ok && k < KLT_FRAMES; k++) {
        ok = flow_synth_frame(&s, w, h, 1, k, &frames[k]) == FLOW_OK;
        if (ok && dir && w == 1920 && p->fb_check == 0 && p->features == 1000) {
            char path[4096];
            snprintf(path, sizeof path, "%s/frame-%02d.pgm", dir, k);
            ok = flow_image_write(path, &frames[k]) == FLOW_OK;
        }
    }
    klt_times g, d;
    ok = ok && klt_measure(w, h, p, frames, 1, quick, &g)
         && klt_measure(w, h, p, frames, 0, quick, &d);
    for (int k = 0; k < KLT_FRAMES; k++)
        flow_image_free(&frames[k]);
    if (!ok)
        return 0;
    const double work = g.stage[5] > 0 ? g.stage[5] : g.stage[1] + g.stage[2] + g.stage[3];
    const double floor_ms = d.bytes / (bw * 1e9) * 1e3;
    printf("| %4dx%-4d | %5d | %s | %7.3f | %6.0f | %.3f | %.3f | %.3f | %7.3f | %.3f | %.3f | "
           "%.3f | %6.3f | %5.1f | %3.0f%s | %5.1f | %4d |\n",
           w, h, p->features, p->fb_check > 0 ? "fb" : "  ", g.total, 1e3 / g.total, g.stage[0],
           work, g.stage[4], d.total, d.stage[1], d.stage[2], d.stage[3], floor_ms,
           work / floor_ms, d.launches, g.launches > 0 ? " (graph)" : "", g.lost, g.alive);
    return 1;
}

static int klt_table(double bw, int quick)
{
    const char *only = getenv("FLOW_BENCH_ONLY");
    if (only && !strstr("klt", only))
        return 0;
    printf("\nKLT tracking (flow_tracker_next; 3 levels, window 21x21), ms per frame, medians "
           "over %d frames of a rotation-zoom.\nms/frame: events before the upload and after the "
           "download (pageable float frame, 4 B/px); device work: the replayed graph (pyramid, "
           "tracking, selection of replacements);\ndirect: the same without graph, its stages "
           "(gaps between launches included); floor: device work's bytes / bandwidth\n\n"
           "| size | features | check | ms/frame | frames/s | upload | device work | download | "
           "direct | pyramid | track | select | floor ms | work x floor | launches | lost/frame | "
           "alive |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
           quick ? 5 : 4 * KLT_FRAMES);
    flow_track_params p;
    flow_track_defaults(&p);
    const int sizes[3][2] = { { 640, 480 }, { 1920, 1080 }, { 3840, 2160 } };
    int failed = 0;
    for (int z = 0; z < 3; z++)
        if (!quick || z == 0)
            failed += !klt_row(sizes[z][0], sizes[z][1], &p, bw, quick);
    if (!quick) {
        p.fb_check = 1.0;
        failed += !klt_row(1920, 1080, &p, bw, quick);
        p.fb_check = 0, p.features = 4000, p.min_distance = 5;
        failed += !klt_row(1920, 1080, &p, bw, quick);
    }
    for (int k = 0; k < KLT_STAGES; k++) {
        flow_event_destroy(klt_ev[k][0]), flow_event_destroy(klt_ev[k][1]);
        klt_ev[k][0] = klt_ev[k][1] = NULL;
    }
    return failed;
}

int main(void)
{
    const char *table = getenv("FLOW_BENCH_TABLE");
    if (table && strcmp(table, "methods") && strcmp(table, "stages") && strcmp(table, "klt")
        && strcmp(table, "concurrent") && strcmp(table, "both")) {
        fprintf(stderr, "bench_methods: FLOW_BENCH_TABLE=%s: not methods, stages, klt, "
                        "concurrent or both\n", table);
        return 1;
    }
    const char *dev = getenv("FLOW_DEVICE");
    if (!dev)
        dev = flow_device_has_cuda() ? "auto" : "cpu";
    if (flow_device_open(dev, &be) != FLOW_OK) {
        fprintf(stderr, "bench_methods: %s\n", flow_last_error());
        return 3;
    }
    if (flow_device_notice(be)[0])
        fprintf(stderr, "bench_methods: %s\n", flow_device_notice(be));
    install_counting(be);
    if (flow_event_create(be, &ev_tensor) != FLOW_OK
        || flow_event_create(be, &ev_download) != FLOW_OK) {
        fprintf(stderr, "bench_methods: %s\n", flow_last_error());
        return 3;
    }
#define WANTS(name) (!table || !strcmp(table, name))
    const int quick = getenv("FLOW_BENCH_QUICK") != NULL;
    int measured;
    const double bw = bandwidth_gbs(&measured);
    printf("bench_methods on %s; bandwidth %.0f GB/s (%s)\n", flow_device_name(be), bw,
           measured ? "measured: device-to-device copy" : "FLOW_BW_GBS");
    if (WANTS("methods")) {
        printf("device ms: motion tensor + solve, median; frame ms: with upload and download;\n"
               "stream ms: a frame of a sequence (compute_next: one frame uploaded; page-locked flow field);\n"
               "seq ms: a frame of a streamed sequence (submit8/collect, two flows in flight, 8-bit frames\n"
               "and flow fields page-locked; wall time per flow);\n"
               "B/px: device bytes per pixel, each operation's planes read once and written once\n"
               "(jacobi sweep: tensor 12-24 B + x 8 + f 8 if given + x' 8); floor = bytes / bandwidth;\n"
               "launches: kernel launches per frame, (graph): replayed as one CUDA graph; H2D+D2H: MB through PCIe per frame\n\n");
        printf("| method | size | device ms | fps | frame ms | stream ms | seq ms | B/px | floor ms | x floor | launches | runs | H2D+D2H MB |\n"
               "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    }
    const size sizes[5] = { { 316, 252, 1 }, { 640, 480, 1 }, { 1920, 1080, 1 },
                            { 3840, 2160, 1 }, { 316, 252, 3 } };
    int failed = 0;
    const char *only = getenv("FLOW_BENCH_ONLY"), *only_size = getenv("FLOW_BENCH_SIZE");
    for (size_t k = 0; WANTS("methods") && k < sizeof runs / sizeof runs[0]; k++)
        for (int z = 0; z < 5; z++) {
            char sz_name[32];
            snprintf(sz_name, sizeof sz_name, "%dx%d%s", sizes[z].w, sizes[z].h,
                     sizes[z].channels == 3 ? "rgb" : "");
            if ((quick && sizes[z].w != 316) || (only && !strstr(runs[k].name, only))
                || (only_size && strcmp(only_size, sz_name) != 0))
                continue;
            failed += !bench_one(&runs[k], &sizes[z], bw, quick);
        }
    if (!only_size) {
        if (WANTS("stages")) {
            stage_table(quick);
            failed += epic_stage_tables(quick, bw);
        }
        if (WANTS("klt"))
            failed += klt_table(bw, quick);
        if (WANTS("concurrent"))
            failed += conc_table(quick);
        if (WANTS("both"))
            failed += both_table(quick);
    }
#undef WANTS
    printf("\nseed 001 figure 6.6 (316x252, GeForce of 2010): LK 15.4 ms, HS FMG 43.8 ms, "
           "CLG FMG 50.1 ms, CLG-NL FMG 88.6 ms, CLG J(3000) 3414 ms\n");
    flow_event_destroy(ev_tensor);
    flow_event_destroy(ev_download);
    be->ops = real;
    flow_device_close(be);
    return failed ? 3 : 0;
}
