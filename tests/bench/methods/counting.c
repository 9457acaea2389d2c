/* counting.c -- bench_methods' floor: a wrapper of the device's operations
 * table that counts each operation's launches and the bytes it must move
 * (each plane it reads once and each plane it writes once, at its level's
 * size; docs/BENCHMARKS.md has the model), and the bandwidth the bytes are
 * divided by. */
#include "bench.h"

#include <math.h>
#include <stdlib.h>

const flow_device_ops *real_ops;
static flow_device_ops counting;
double dev_bytes, host_bytes, launches;
int in_upload;

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
static double bytes_copy_plane(const flow_copy_plane_args *a)
{
    return 2 * PX(&a->dst);
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
        return real_ops->stem(d, a);                                                             \
    }
FLOW_KERNELS(FLOW_COUNTED)
#undef FLOW_COUNTED

static flow_status w_upload(flow_device *d, flow_plane *dst, const float *s, size_t st)
{
    host_bytes += PX(dst);
    return real_ops->upload(d, dst, s, st);
}
static flow_status w_download(flow_device *d, float *dst, size_t st, const flow_plane *s)
{
    host_bytes += PX(s);
    return real_ops->download(d, dst, st, s);
}
static flow_status w_upload_async(flow_device *d, flow_lane l, flow_plane *dst, const float *s,
                                  size_t st)
{
    host_bytes += PX(dst);
    return real_ops->upload_async(d, l, dst, s, st);
}
static flow_status w_upload_bytes(flow_device *d, flow_lane l, void *dst, const void *s, size_t n)
{
    host_bytes += (double)n;
    return real_ops->upload_bytes(d, l, dst, s, n);
}
static flow_status w_download_async(flow_device *d, flow_lane l, float *dst, size_t st,
                                    const flow_plane *s)
{
    host_bytes += PX(s);
    return real_ops->download_async(d, l, dst, st, s);
}
static flow_status w_copy(flow_device *d, flow_plane *dst, const flow_plane *s)
{
    if (!in_upload) /* the frames' moves on the device belong to the upload */
        dev_bytes += 2 * PX(dst), launches++;
    return real_ops->copy(d, dst, s);
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
    return real_ops->smooth_small(d, a);
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
    const flow_status s = real_ops->sor_sweeps(d, a, passes);
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
    const flow_status s = real_ops->jacobi_sweeps(d, a, passes);
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
    return real_ops->small_cycle(d, a);
}
/* The small levels' restrictions in one launch: each plane of each level
 * read and its restriction written, as restrict_planes counts them. */
static flow_status w_restrict_small(flow_device *d, const flow_restrict_small_args *a)
{
    for (int k = 0; k < a->nlevels; k++)
        dev_bytes += a->n * (PX(&a->coarse[k][0]) + PX(k ? &a->coarse[k - 1][0] : &a->fine[0]));
    launches++;
    return real_ops->restrict_small(d, a);
}

static flow_status w_plane_max(flow_device *d, const flow_plane *src, flow_plane *dst)
{
    dev_bytes += PX(src), launches++;
    return real_ops->plane_max(d, src, dst);
}
/* One launch: each block sums its part, the last one the blocks' sums. */
static flow_status w_plane_sum(flow_device *d, const flow_plane *src, flow_plane *dst)
{
    dev_bytes += PX(src), launches++;
    return real_ops->plane_sum(d, src, dst);
}
/* A radix sort passes over keys and indices once per digit (4 of 8 bits). */
static flow_status w_sort_desc(flow_device *d, const flow_plane *k, flow_plane *sk, flow_plane *si)
{
    dev_bytes += 4 * 4 * PX(k), launches += 4;
    return real_ops->sort_desc(d, k, sk, si);
}

void install_counting(flow_device *d)
{
    real_ops = d->ops;
    counting = *real_ops;
    counting.upload = w_upload;
    counting.download = w_download;
    counting.upload_async = w_upload_async;
    counting.upload_bytes = w_upload_bytes;
    counting.download_async = w_download_async;
    counting.copy = w_copy;
    /* the fused operations a backend provides (the rest are counted as
     * the operations of the list that core/fused.c runs instead) */
    counting.smooth_small = real_ops->smooth_small ? w_smooth_small : NULL;
    counting.small_cycle = real_ops->small_cycle ? w_small_cycle : NULL;
    counting.restrict_small = real_ops->restrict_small ? w_restrict_small : NULL;
    counting.sor_sweeps = real_ops->sor_sweeps ? w_sor_sweeps : NULL;
    counting.jacobi_sweeps = real_ops->jacobi_sweeps ? w_jacobi_sweeps : NULL;
    counting.plane_max = w_plane_max;
    counting.plane_sum = w_plane_sum;
    counting.sort_desc = w_sort_desc;
#define FLOW_INSTALL(stem, A, W, H, G, C) counting.stem = w_##stem;
    FLOW_KERNELS(FLOW_INSTALL)
#undef FLOW_INSTALL
    d->ops = &counting;
}

/* Measures the device-to-device bandwidth (GB/s, bytes read plus written)
 * with a large copy, when FLOW_BW_GBS does not give it. */
double bandwidth_gbs(int *measured)
{
    const char *env = getenv("FLOW_BW_GBS");
    *measured = 0;
    if (env && atof(env) > 0)
        return atof(env);
    *measured = 1;
    flow_plane a, c;
    const int w = 8192, h = 4096; /* 128 MiB per plane */
    if (flow_plane_alloc(bench_dev, &a, w, h) != FLOW_OK
        || flow_plane_alloc(bench_dev, &c, w, h) != FLOW_OK)
        return NAN;
    flow_event *e0 = NULL, *e1 = NULL;
    if (flow_event_create(bench_dev, &e0) != FLOW_OK
        || flow_event_create(bench_dev, &e1) != FLOW_OK) {
        flow_event_destroy(e0);
        return NAN;
    }
    const flow_fill_args one = { a, 1.0f };
    real_ops->fill(bench_dev, &one);
    double best = 1e30;
    for (int i = 0; i < 10; i++) {
        float ms;
        flow_event_record(e0);
        real_ops->copy(bench_dev, &c, &a);
        flow_event_record(e1);
        flow_event_elapsed(e0, e1, &ms);
        if (i > 1 && ms < best)
            best = ms;
    }
    flow_event_destroy(e0);
    flow_event_destroy(e1);
    flow_plane_free(bench_dev, &a);
    flow_plane_free(bench_dev, &c);
    return 2.0 * w * h * 4.0 / (best * 1e-3) / 1e9;
}
