/* solver.cu -- CUDA kernels of the solver operations: Jacobi and red-black
 * SOR sweeps, the residual (plain and restricted), the operator, the pair
 * transfers of multigrid, the tensor restriction, Lucas-Kanade and the sum
 * of squares.  Each kernel computes (x, y), returns outside the plane and
 * calls the shared per-pixel function of libflow/pixel/, so the CPU backend
 * (libflow/cpu/solver_cpu.c) computes the same function.  Each launcher
 * checks its launch; all work is queued on the backend's stream with no host
 * synchronisation (sum_squares excepted: it returns a host value and serves
 * traces and tests only).
 *
 * Grids of at most SMALL_GRID pixels (the coarse multigrid levels) run all n
 * sweeps of a smoother in one launch of one block, with a block barrier
 * between sweeps: a coarse level costs one launch instead of n.  Such a
 * sweep first evaluates each pixel's diffusivities once into shared memory
 * (flow_psi_s_px, flow_psi_d_px) and then updates from them
 * (flow_var_terms_psi): the same values as the per-pixel path, which
 * evaluates Psi'_S at a pixel and its four neighbours, with a fifth of the
 * dependent arithmetic -- on grids this small, latency is the cost. */
#include "common.cuh"
#include "ops.cuh"
#include "../pixel/lk.h"
#include "../pixel/stencil.h"
#include "../pixel/variational.h"
#include "flow/field.h"

#include <string.h>

#define XY                                                                                    \
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y

#define SMALL_GRID 4096
#define SMALL_THREADS 1024

/* A stand-in for an absent right-hand side (never read: no FLOW_SYS_RHS). */
static flow_pair rhs_or_empty(const flow_system *s, const flow_pair *f)
{
    flow_pair none;
    memset(&none, 0, sizeof none);
    return (f && (s->flags & FLOW_SYS_RHS)) ? *f : none;
}

static int small_grid(const flow_pair *x)
{
    return (long)x->u.width * x->u.height <= SMALL_GRID;
}

/* ---- Jacobi ---- */

__global__ void jacobi_kernel(flow_system s, flow_pair out, flow_pair xf, flow_pair f,
                              float weight)
{
    XY;
    if (x >= xf.u.width || y >= xf.u.height)
        return;
    float u, v;
    flow_jacobi_px(&s, &xf, &f, x, y, weight, &u, &v);
    FLOW_PX(out.u, x, y) = u;
    FLOW_PX(out.v, x, y) = v;
}

/* Psi'_S and Psi'_D of every pixel of src into ps, pd (shared memory). */
__device__ void small_psi(const flow_system &s, const flow_pair &src, float *ps, float *pd)
{
    const int w = src.u.width, np = w * src.u.height;
    for (int i = threadIdx.x; i < np; i += blockDim.x) {
        const int x = i % w, y = i / w;
        if (s.flags & FLOW_SYS_PSI_S)
            ps[i] = flow_psi_s_px(&s, &src, x, y);
        if (s.flags & FLOW_SYS_PSI_D)
            pd[i] = flow_psi_d_px(&s, FLOW_PX(src.u, x, y), FLOW_PX(src.v, x, y), x, y);
    }
}

/* The terms at (x, y) from the values of vals and the diffusivities in
 * ps, pd. */
__device__ flow_var_terms small_terms(const flow_system &s, const flow_pair &vals,
                                      const float *ps, const float *pd, int x, int y)
{
    const int w = vals.u.width, h = vals.u.height, i = y * w + x;
    const flow_stencil vu = flow_stencil_load(&vals.u, x, y, 0);
    const flow_stencil vv = flow_stencil_load(&vals.v, x, y, 0);
    const int nl = (s.flags & FLOW_SYS_PSI_S) != 0;
    const float pc = nl ? ps[i] : 1.0f;
    const float pw = nl && x > 0 ? ps[i - 1] : 0.0f, pe = nl && x < w - 1 ? ps[i + 1] : 0.0f;
    const float pn = nl && y > 0 ? ps[i - w] : 0.0f, pso = nl && y < h - 1 ? ps[i + w] : 0.0f;
    const float pdc = (s.flags & FLOW_SYS_PSI_D) ? pd[i] : 1.0f;
    return flow_var_terms_psi(&s, &vu, &vv, x, y, w, h, pdc, pc, pw, pe, pn, pso);
}

__global__ void __launch_bounds__(SMALL_THREADS) jacobi_small_kernel(flow_system s, flow_pair xf,
                                                                     flow_pair tf, flow_pair f,
                                                                     float weight, int n)
{
    __shared__ float ps[SMALL_GRID], pd[SMALL_GRID];
    const int w = xf.u.width, np = w * xf.u.height;
    const int nl = flow_system_nonlinear(&s);
    for (int k = 0; k < n; k++) {
        const flow_pair src = (k & 1) ? tf : xf;
        const flow_pair dst = (k & 1) ? xf : tf;
        if (nl) {
            small_psi(s, src, ps, pd);
            __syncthreads();
        }
        for (int i = threadIdx.x; i < np; i += blockDim.x) {
            const int x = i % w, y = i / w;
            const flow_var_terms t = small_terms(s, src, ps, pd, x, y);
            float u, v;
            flow_jacobi_update(&s, &t, FLOW_PX(src.u, x, y), FLOW_PX(src.v, x, y), &f, x, y,
                               weight, &u, &v);
            FLOW_PX(dst.u, x, y) = u;
            FLOW_PX(dst.v, x, y) = v;
        }
        __syncthreads();
    }
}

flow_status cuda_jacobi(flow_backend *b, const flow_system *s, flow_pair *x, flow_pair *t,
                        const flow_pair *f, float weight, int n)
{
    FLOW_TRY(flow_check_rhs(s, f, "jacobi"));
    if (n <= 0)
        return FLOW_OK;
    cudaStream_t st = cuda_of(b)->stream;
    const flow_pair rhs = rhs_or_empty(s, f);
    if (small_grid(x)) {
        jacobi_small_kernel<<<1, SMALL_THREADS, 0, st>>>(*s, *x, *t, rhs, weight, n);
        return FLOW_CUDA_LAUNCHED("jacobi");
    }
    const dim3 grid = flow_grid(x->u.width, x->u.height);
    for (int k = 0; k < n; k++) {
        if (k % 2 == 0)
            jacobi_kernel<<<grid, flow_block, 0, st>>>(*s, *t, *x, rhs, weight);
        else
            jacobi_kernel<<<grid, flow_block, 0, st>>>(*s, *x, *t, rhs, weight);
        FLOW_TRY(FLOW_CUDA_LAUNCHED("jacobi"));
    }
    return FLOW_OK;
}

/* ---- red-black SOR ---- */

/* Alternate indexing (seed 004): thread column k of row y updates pixel
 * 2k + ((y + colour) & 1), so every thread works on the colour. */
__global__ void sor_kernel(flow_system s, flow_pair xf, flow_pair xd, flow_pair f, int colour,
                           float omega)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    const int x = 2 * k + ((y + colour) & 1);
    if (x >= xf.u.width || y >= xf.u.height)
        return;
    flow_sor_px(&s, &xf, &xd, &f, x, y, omega);
}

__global__ void copy_pair_kernel(flow_pair dst, flow_pair src)
{
    XY;
    if (x >= src.u.width || y >= src.u.height)
        return;
    FLOW_PX(dst.u, x, y) = FLOW_PX(src.u, x, y);
    FLOW_PX(dst.v, x, y) = FLOW_PX(src.v, x, y);
}

/* The diffusivities of each sweep are those of x at its start (what the
 * snapshot t gives the per-pixel path). */
__global__ void __launch_bounds__(SMALL_THREADS) sor_small_kernel(flow_system s, flow_pair xf,
                                                                  flow_pair f, float omega, int n)
{
    __shared__ float ps[SMALL_GRID], pd[SMALL_GRID];
    const int w = xf.u.width, np = w * xf.u.height;
    const int nl = flow_system_nonlinear(&s);
    for (int k = 0; k < n; k++) {
        if (nl) {
            small_psi(s, xf, ps, pd);
            __syncthreads();
        }
        for (int colour = 0; colour < 2; colour++) {
            for (int i = threadIdx.x; i < np; i += blockDim.x) {
                const int x = i % w, y = i / w;
                if (((x + y) & 1) != colour)
                    continue;
                const flow_var_terms t = small_terms(s, xf, ps, pd, x, y);
                flow_sor_update(&s, &t, &xf, &f, x, y, omega);
            }
            __syncthreads();
        }
    }
}

flow_status cuda_sor(flow_backend *b, const flow_system *s, flow_pair *x, flow_pair *t,
                     const flow_pair *f, float omega, int n)
{
    FLOW_TRY(flow_check_rhs(s, f, "sor"));
    const int nonlinear = flow_system_nonlinear(s);
    if (nonlinear && !t)
        return flow_fail(FLOW_ERR_INVALID, "sor: a nonlinear system needs the snapshot pair t");
    if (n <= 0)
        return FLOW_OK;
    cudaStream_t st = cuda_of(b)->stream;
    const flow_pair rhs = rhs_or_empty(s, f);
    const flow_pair snap = nonlinear ? *t : *x;
    if (small_grid(x)) {
        sor_small_kernel<<<1, SMALL_THREADS, 0, st>>>(*s, *x, rhs, omega, n);
        return FLOW_CUDA_LAUNCHED("sor");
    }
    const dim3 half = flow_grid((x->u.width + 1) / 2, x->u.height);
    for (int k = 0; k < n; k++) {
        if (nonlinear) {
            copy_pair_kernel<<<flow_grid(x->u.width, x->u.height), flow_block, 0, st>>>(*t, *x);
            FLOW_TRY(FLOW_CUDA_LAUNCHED("sor snapshot"));
        }
        for (int colour = 0; colour < 2; colour++) {
            sor_kernel<<<half, flow_block, 0, st>>>(*s, *x, snap, rhs, colour, omega);
            FLOW_TRY(FLOW_CUDA_LAUNCHED("sor"));
        }
    }
    return FLOW_OK;
}

/* ---- residual and operator ---- */

__global__ void residual_kernel(flow_system s, flow_pair r, flow_pair xf, flow_pair f)
{
    XY;
    if (x >= xf.u.width || y >= xf.u.height)
        return;
    float ru, rv;
    flow_residual_px(&s, &xf, &f, x, y, &ru, &rv);
    FLOW_PX(r.u, x, y) = ru;
    FLOW_PX(r.v, x, y) = rv;
}

flow_status cuda_residual(flow_backend *b, const flow_system *s, flow_pair *r, const flow_pair *x,
                          const flow_pair *f)
{
    FLOW_TRY(flow_check_rhs(s, f, "residual"));
    residual_kernel<<<flow_grid(x->u.width, x->u.height), flow_block, 0, cuda_of(b)->stream>>>(
        *s, *r, *x, rhs_or_empty(s, f));
    return FLOW_CUDA_LAUNCHED("residual");
}

__global__ void apply_kernel(flow_system s, flow_pair out, flow_pair xf, int accumulate)
{
    XY;
    if (x >= xf.u.width || y >= xf.u.height)
        return;
    float nu, nv;
    flow_apply_px(&s, &xf, x, y, &nu, &nv);
    float *pu = &FLOW_PX(out.u, x, y), *pv = &FLOW_PX(out.v, x, y);
    *pu = accumulate ? *pu + nu : nu;
    *pv = accumulate ? *pv + nv : nv;
}

flow_status cuda_apply(flow_backend *b, const flow_system *s, flow_pair *out, const flow_pair *x,
                       int accumulate)
{
    apply_kernel<<<flow_grid(x->u.width, x->u.height), flow_block, 0, cuda_of(b)->stream>>>(
        *s, *out, *x, accumulate);
    return FLOW_CUDA_LAUNCHED("apply");
}

/* ---- multigrid transfers ---- */

__global__ void restrict_pair_kernel(flow_pair c, flow_pair copy, int with_copy, flow_pair fine)
{
    XY;
    if (x >= c.u.width || y >= c.u.height)
        return;
    const float u = flow_restriction_px(fine.u.data, fine.u.pitch, fine.u.width, fine.u.height,
                                        x, y);
    const float v = flow_restriction_px(fine.v.data, fine.v.pitch, fine.v.width, fine.v.height,
                                        x, y);
    FLOW_PX(c.u, x, y) = u;
    FLOW_PX(c.v, x, y) = v;
    if (with_copy) {
        FLOW_PX(copy.u, x, y) = u;
        FLOW_PX(copy.v, x, y) = v;
    }
}

flow_status cuda_restrict_pair(flow_backend *b, flow_pair *coarse, flow_pair *copy,
                               const flow_pair *fine)
{
    restrict_pair_kernel<<<flow_grid(coarse->u.width, coarse->u.height), flow_block, 0,
                           cuda_of(b)->stream>>>(*coarse, copy ? *copy : *coarse, copy != NULL,
                                                 *fine);
    return FLOW_CUDA_LAUNCHED("restrict_pair");
}

__global__ void prolong_pair_kernel(flow_pair fine, flow_pair c, flow_pair ref, int with_ref,
                                    int accumulate)
{
    XY;
    if (x >= fine.u.width || y >= fine.u.height)
        return;
    const int cw = c.u.width, ch = c.u.height;
    float u = flow_prolongation_px(c.u.data, c.u.pitch, cw, ch, x, y);
    float v = flow_prolongation_px(c.v.data, c.v.pitch, cw, ch, x, y);
    if (with_ref) {
        u -= flow_prolongation_px(ref.u.data, ref.u.pitch, cw, ch, x, y);
        v -= flow_prolongation_px(ref.v.data, ref.v.pitch, cw, ch, x, y);
    }
    float *pu = &FLOW_PX(fine.u, x, y), *pv = &FLOW_PX(fine.v, x, y);
    *pu = accumulate ? *pu + u : u;
    *pv = accumulate ? *pv + v : v;
}

flow_status cuda_prolong_pair(flow_backend *b, flow_pair *fine, const flow_pair *coarse,
                              const flow_pair *ref, int accumulate)
{
    prolong_pair_kernel<<<flow_grid(fine->u.width, fine->u.height), flow_block, 0,
                          cuda_of(b)->stream>>>(*fine, *coarse, ref ? *ref : *coarse,
                                                ref != NULL, accumulate);
    return FLOW_CUDA_LAUNCHED("prolong_pair");
}

__device__ __forceinline__ void restrict_one(flow_plane c, const flow_plane &f, int x, int y)
{
    FLOW_PX(c, x, y) = flow_restriction_px(f.data, f.pitch, f.width, f.height, x, y);
}

__global__ void restrict_tensor_kernel(flow_tensor c, flow_tensor fine, int with_j33)
{
    XY;
    if (x >= c.j11.width || y >= c.j11.height)
        return;
    restrict_one(c.j11, fine.j11, x, y);
    restrict_one(c.j12, fine.j12, x, y);
    restrict_one(c.j13, fine.j13, x, y);
    restrict_one(c.j22, fine.j22, x, y);
    restrict_one(c.j23, fine.j23, x, y);
    if (with_j33)
        restrict_one(c.j33, fine.j33, x, y);
}

flow_status cuda_restrict_tensor(flow_backend *b, flow_tensor *coarse, const flow_tensor *fine,
                                 int with_j33)
{
    restrict_tensor_kernel<<<flow_grid(coarse->j11.width, coarse->j11.height), flow_block, 0,
                             cuda_of(b)->stream>>>(*coarse, *fine, with_j33);
    return FLOW_CUDA_LAUNCHED("restrict_tensor");
}

/* ---- Lucas-Kanade ---- */

__global__ void lk_kernel(flow_tensor J, flow_pair xf, float tau, int fill)
{
    XY;
    if (x >= xf.u.width || y >= xf.u.height)
        return;
    flow_lk_px(FLOW_PX(J.j11, x, y), FLOW_PX(J.j12, x, y), FLOW_PX(J.j13, x, y),
               FLOW_PX(J.j22, x, y), FLOW_PX(J.j23, x, y), tau, fill, FLOW_UNKNOWN,
               &FLOW_PX(xf.u, x, y), &FLOW_PX(xf.v, x, y));
}

flow_status cuda_lk(flow_backend *b, const flow_tensor *J, flow_pair *x, float tau, int fill)
{
    lk_kernel<<<flow_grid(x->u.width, x->u.height), flow_block, 0, cuda_of(b)->stream>>>(
        *J, *x, tau, fill);
    return FLOW_CUDA_LAUNCHED("lk");
}

/* ---- sum of squares ---- */

/* Each block sums its squares in double (warp shuffles, then one value per
 * warp through shared memory) and adds the block total to *out. */
__global__ void sum_squares_kernel(flow_plane p, double *out)
{
    XY;
    double v = 0.0;
    if (x < p.width && y < p.height) {
        const double a = FLOW_PX(p, x, y);
        v = a * a;
    }
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, o);
    __shared__ double warp_sum[8];
    const int lane = threadIdx.x, warp = threadIdx.y; /* blockDim is 32 x 8 */
    if (lane == 0)
        warp_sum[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < (int)blockDim.y ? warp_sum[lane] : 0.0;
        for (int o = 4; o > 0; o >>= 1)
            v += __shfl_down_sync(0xffffffffu, v, o);
        if (lane == 0)
            atomicAdd(out, v);
    }
}

flow_status cuda_sum_squares(flow_backend *b, const flow_plane *p, double *sum)
{
    flow_cuda *c = cuda_of(b);
    FLOW_TRY(flow_cuda_check(cudaMemsetAsync(c->scratch, 0, sizeof(double), c->stream),
                             "sum_squares"));
    sum_squares_kernel<<<flow_grid(p->width, p->height), flow_block, 0, c->stream>>>(*p,
                                                                                    c->scratch);
    FLOW_TRY(FLOW_CUDA_LAUNCHED("sum_squares"));
    FLOW_TRY(flow_cuda_check(cudaMemcpyAsync(sum, c->scratch, sizeof(double),
                                             cudaMemcpyDeviceToHost, c->stream),
                             "sum_squares"));
    return flow_cuda_check(cudaStreamSynchronize(c->stream), "sum_squares");
}
