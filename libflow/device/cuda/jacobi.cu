/* jacobi.cu -- damped Jacobi sweeps two per launch (the device's
 * jacobi_sweeps call; flow_jacobi_sweeps_args of libflow/pixel/variational.h).
 *
 * A sweep launched alone reads the motion tensors, the right-hand side and
 * the flow of the whole grid and writes the flow: a V-cycle's two pre- or
 * postsweeps read them twice, and on a coarse level, where a sweep is a
 * few tiles, each launch waits for memory at its start.  Here a block
 * takes a tile of 32 x 16 pixels and runs both sweeps of a pair:
 *   - it stages the flow of the tile and of a border four pixels wide
 *     (coordinates clamped into the grid, as flow_stencil_load reads; the
 *     first pair of a call with a prolongation to apply stages x after it,
 *     flow_prolong_pair_value at each position, which saves that
 *     prolongation its own launch and its pass over x), and
 *     the tensors, the right-hand side and the smoothness weight g of the
 *     pixels inside the grid that it updates or evaluates Psi'_S at;
 *   - the first sweep: Psi'_S three pixels around the tile, then the new
 *     flow two pixels around it (a position outside the grid takes the new
 *     value of its clamped pixel, what the second sweep's stencils read);
 *     the first pair of a call with an entry computes the right-hand side
 *     there, instead of staging it, from the terms this sweep evaluates
 *     (flow_fas_rhs), and writes it on the tile;
 *   - the second: Psi'_S one pixel around the tile, then the tile's new
 *     flow, written to the other buffer.
 * Every value is that of two launches of flow_jacobi_sweep_px: the same
 * per-pixel functions (flow_psi_s_tile, flow_var_terms_tile,
 * flow_jacobi_update) on the same inputs.  The tiles recompute what their
 * neighbours compute around them, so that no tile reads what another
 * writes; an odd count ends with one sweep of sweeps.cu, and so does every
 * sweep where pairs do not pay (use_pairs). */
#include "stage.cuh"

#define PAIR_X 32
#define PAIR_Y 16
/* The region of the tile and m pixels around it: its width, height and
 * size; position (lx, ly) of a region-m array is pixel (x0 + lx - m,
 * y0 + ly - m). */
#define RW(m) (PAIR_X + 2 * (m))
#define RH(m) (PAIR_Y + 2 * (m))
#define RA(m) (RW(m) * RH(m))
/* What is copied from memory is staged four columns at a time (stage.cuh):
 * rows of STAGE_W columns (region 4's width), so position (lx, ly) of a
 * staged array of region m is pixel (x0 + lx - 4, y0 + ly - m), at
 * lx + SW * ly. */
#define SW STAGE_W
#define SA(m) (SW * RH(m))
static_assert(PAIR_X == STAGE_TILE_X && RW(4) == SW, "region 4 is a staged array");
/* The threads of a tile on a grid of more tiles than the GPU holds at
 * once (four blocks per multiprocessor, which ran faster than 512 threads
 * and two blocks); a grid of fewer takes 512 or 1024 threads a tile
 * (cuda_tile_threads). */
#define PAIR_THREADS 256
#define PAIR_MIN_BLOCKS 4

/* The floats a tile stages for a system of nterms data terms: the flow on
 * region 4, after the first sweep on region 2, g and Psi'_S on region 3,
 * the right-hand side and six tensor planes a term on region 2 (all but
 * the new flow as staged arrays). */
static size_t pair_shared_bytes(int nterms)
{
    return sizeof(float) * (2 * RA(4) + 2 * RA(2) + 2 * SA(3) + (2 + 6 * nterms) * SA(2));
}

/* The terms at pixel (x, y) of a w x h grid: the flow at u, v (row pitch
 * pu), Psi'_S at ps (pitch pp), the tensors staged at j (region 2,
 * stage.cuh). */
static __device__ __forceinline__ flow_var_terms pair_terms(const flow_system *s, const float *u,
                                                            const float *v, int pu,
                                                            const float *ps, int pp,
                                                            const float *j, int x, int y, int w,
                                                            int h)
{
    flow_tensor_at J[FLOW_TERMS_MAX];
    staged_tensors(s, j, SA(2), J);
    return flow_var_terms_tile(s, u, v, pu, ps, pp, J, x, y, w, h);
}

template <int THREADS, int MIN_BLOCKS>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
    flow_jacobi_pair_kernel(const __grid_constant__ flow_jacobi_sweeps_args a, flow_pair src,
                            flow_pair dst, int pre, int entry)
{
    extern __shared__ __align__(16) float sm[];
    float *const u0 = sm, *const v0 = u0 + RA(4), *const u1 = v0 + RA(4), *const v1 = u1 + RA(2);
    float *const g = v1 + RA(2), *const ps = g + SA(3), *const fu = ps + SA(3);
    float *const fv = fu + SA(2), *const sj = fv + SA(2); /* each on 16 bytes */
    const flow_system *s = &a.s;
    const int w = src.u.width, h = src.u.height;
    const int x0 = blockIdx.x * PAIR_X, y0 = blockIdx.y * PAIR_Y, tid = threadIdx.x;
    const int psi = (s->flags & FLOW_SYS_PSI_S) != 0, edge = psi && (s->flags & FLOW_SYS_EDGE);
    const int rhs = (s->flags & FLOW_SYS_RHS) != 0;

    /* staged asynchronously, so that all of a thread's loads are in flight
     * at once; after the prolongation, computed, a value per thread (each
     * one's reads wait for memory).  Region 4 is as wide as a staged array. */
    stage_flow_rows(src, pre ? &a.pre : NULL, u0, v0, x0, y0 - 4, RH(4), tid, THREADS);
    if (edge)
        stage_plane(&s->g, g, x0, y0 - 3, RH(3), w, h, tid, THREADS);
    for (int i = tid; i < STAGE_CHUNKS * RH(2); i += THREADS) {
        const int lx = 4 * (i % STAGE_CHUNKS), ly = i / STAGE_CHUNKS;
        const int cx = x0 + lx - STAGE_OX, gy = y0 + ly - 2;
        if (!chunk_inside(cx, gy, w, h))
            continue;
        stage_tensors4(s, sj + ly * SW + lx, SA(2), cx, gy);
        if (rhs && !entry) {
            copy4_async(&fu[ly * SW + lx], &a.f.u, cx, gy);
            copy4_async(&fv[ly * SW + lx], &a.f.v, cx, gy);
        }
    }
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();

    /* the first sweep: Psi'_S on region 3, the new flow on region 2 */
    for (int i = tid; psi && i < RA(3); i += THREADS) {
        const int lx = i % RW(3), ly = i / RW(3), gx = x0 + lx - 3, gy = y0 + ly - 3;
        const int p = ly * SW + lx + 1;
        if (gx >= 0 && gx < w && gy >= 0 && gy < h) /* outside: never read */
            ps[p] = flow_psi_s_tile(s, &u0[(ly + 1) * RW(4) + lx + 1],
                                    &v0[(ly + 1) * RW(4) + lx + 1], RW(4), edge ? g[p] : 1.0f);
    }
    if (psi)
        __syncthreads();
    for (int i = tid; i < RA(2); i += THREADS) {
        /* the pixel this position holds: its coordinates clamped */
        const int px = x0 + i % RW(2) - 2, py = y0 + i / RW(2) - 2;
        const int gx = flow_clampi(px, 0, w - 1), gy = flow_clampi(py, 0, h - 1);
        const int qx = gx - x0 + 2, qy = gy - y0 + 2, q = qy * SW + qx + 2;
        const flow_var_terms t =
            pair_terms(s, &u0[(qy + 2) * RW(4) + qx + 2], &v0[(qy + 2) * RW(4) + qx + 2], RW(4),
                       &ps[(qy + 1) * SW + qx + 2], SW, sj + q, gx, gy, w, h);
        float f_u = 0.0f, f_v = 0.0f;
        if (entry) {
            flow_fas_rhs(s, &t, &a.entry, gx, gy, &f_u, &f_v);
            if (px == gx && py == gy) /* once per pixel: the second sweep reads it */
                fu[q] = f_u, fv[q] = f_v;
        } else if (rhs)
            f_u = fu[q], f_v = fv[q];
        flow_jacobi_update(s, &t, f_u, f_v, a.weight, &u1[i], &v1[i]);
    }
    __syncthreads();

    /* the second: Psi'_S on region 1 (in ps, at its region-3 positions),
     * the new flow on the tile */
    for (int i = tid; psi && i < RA(1); i += THREADS) {
        const int lx = i % RW(1), ly = i / RW(1), gx = x0 + lx - 1, gy = y0 + ly - 1;
        const int p = (ly + 2) * SW + lx + 3;
        if (gx >= 0 && gx < w && gy >= 0 && gy < h)
            ps[p] = flow_psi_s_tile(s, &u1[(ly + 1) * RW(2) + lx + 1],
                                    &v1[(ly + 1) * RW(2) + lx + 1], RW(2), edge ? g[p] : 1.0f);
    }
    if (psi)
        __syncthreads();
    for (int i = tid; i < PAIR_X * PAIR_Y; i += THREADS) {
        const int lx = i % PAIR_X, ly = i / PAIR_X, gx = x0 + lx, gy = y0 + ly;
        if (gx >= w || gy >= h)
            continue;
        const int q = (ly + 2) * RW(2) + lx + 2, qs = (ly + 2) * SW + lx + 4;
        const flow_var_terms t = pair_terms(s, &u1[q], &v1[q], RW(2),
                                            &ps[(ly + 3) * SW + lx + 4], SW, sj + qs, gx, gy, w, h);
        const float f_u = rhs || entry ? fu[qs] : 0.0f, f_v = rhs || entry ? fv[qs] : 0.0f;
        flow_jacobi_update(s, &t, f_u, f_v, a.weight, &FLOW_PX(dst.u, gx, gy),
                           &FLOW_PX(dst.v, gx, gy));
        if (entry)
            FLOW_PX(a.f.u, gx, gy) = f_u, FLOW_PX(a.f.v, gx, gy) = f_v;
    }
}

/* Pairs on a nonlinear system, whose single sweeps run on tiles as well
 * (sweeps.cu), and on a linear one of more than twice as many tiles as
 * multiprocessors: a linear system's single sweep is a per-pixel kernel
 * that reads its neighbours through the caches, which on a small grid
 * costs less than staging a tile's border (HS FMG(2,2): single sweeps
 * faster at 316x252, pairs at 1080p). */
static int use_pairs(flow_device *d, const flow_jacobi_sweeps_args *a, long tiles)
{
    return a->sweeps >= 2
           && ((a->s.flags & FLOW_SYS_PSI_S) || tiles > 2L * cuda_of(d)->prop.multiProcessorCount);
}

flow_status cuda_jacobi_sweeps(flow_device *d, const flow_jacobi_sweeps_args *a, int *passes)
{
    FLOW_TRY(cuda_enter(d));
    const int w = a->x.u.width, h = a->x.u.height;
    const dim3 grid((unsigned)(w + PAIR_X - 1) / PAIR_X, (unsigned)(h + PAIR_Y - 1) / PAIR_Y);
    const long tiles = (long)grid.x * grid.y;
    const int pairs = use_pairs(d, a, tiles) ? a->sweeps / 2 : 0;
    if (a->with_pre && !pairs)
        FLOW_TRY(cuda_prolong_pair(d, &a->pre));
    if (a->with_entry && !pairs) {
        const flow_apply_args rhs = flow_jacobi_entry_apply(a);
        FLOW_TRY(cuda_apply(d, &rhs));
    }
    if (pairs) {
        const int threads = cuda_tile_threads(d, tiles, PAIR_THREADS);
        void (*const kernel)(flow_jacobi_sweeps_args, flow_pair, flow_pair, int, int) =
            threads == 1024  ? flow_jacobi_pair_kernel<1024, 1>
            : threads == 512 ? flow_jacobi_pair_kernel<512, 2>
                             : flow_jacobi_pair_kernel<PAIR_THREADS, PAIR_MIN_BLOCKS>;
        const size_t shared = pair_shared_bytes(a->s.nterms);
        if (shared > 48 * 1024) /* two data terms: above the default limit */
            FLOW_TRY(flow_cuda_check(
                cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)shared),
                "jacobi_sweeps: shared memory"));
        for (int k = 0; k < pairs; k++) {
            const flow_pair &src = k % 2 ? a->t : a->x, &dst = k % 2 ? a->x : a->t;
            kernel<<<grid, threads, shared, cuda_stream(d)>>>(*a, src, dst, k == 0 && a->with_pre,
                                                              k == 0 && a->with_entry);
            FLOW_TRY(FLOW_CUDA_LAUNCHED("jacobi_sweeps"));
        }
    }
    *passes = pairs;
    for (int k = 2 * pairs; k < a->sweeps; k++, ++*passes) {
        const int back = *passes % 2;
        const flow_jacobi_sweep_args one = { a->s, back ? a->x : a->t, back ? a->t : a->x, a->f,
                                             a->weight };
        FLOW_TRY(cuda_jacobi_sweep(d, &one));
    }
    if (*passes % 2 && !a->odd_in_t) { /* the result back into x */
        const flow_copy_pair_args back = { a->x, a->t };
        return cuda_copy_pair(d, &back);
    }
    return FLOW_OK;
}
