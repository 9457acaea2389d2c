/* sweeps.cu -- red-black SOR and Jacobi on grids above FLOW_SMALL_GRID
 * pixels, one launch per sweep, and the residual and N(x) (the device's
 * sor_sweeps call, and the launchers of jacobi_sweep, residual and apply:
 * gpu OWN in libflow/kernels/list.h).
 *
 * The per-pixel path takes three launches per sweep (the diffusivities,
 * then each colour), each reading the motion tensors of the whole grid: a
 * cache line holds both colours, so a half sweep reads all of it.  Here a
 * block takes a tile of 32 x 16 pixels and keeps in shared memory the flow
 * of the tile and of a border three pixels wide, as the sweep starts:
 * Psi'_S on the tile and two pixels around it, the first colour on the
 * tile and one pixel around it, the second colour on the tile.  The tiles
 * overlap in what they compute around themselves (the same values, as each
 * pixel's update depends only on the values the sweep starts from and on
 * its neighbours of the first colour), the tensors are read once per
 * sweep, and the sweep goes from one buffer to the other (x -> t -> x),
 * so that no tile reads what another has written.  The block stages the
 * tensors of the pixels it updates (the tile and one pixel around it), and
 * the smoothness weight g where Psi'_S is evaluated, in shared memory
 * while it loads the flow, so that a sweep waits for memory once rather
 * than at each colour: on a coarse level, where a sweep is a few tiles,
 * that wait is most of its time.
 *
 * A Jacobi sweep, a residual or N(x) of a nonlinear system needs less:
 * the flow of the tile and two pixels around it, and Psi'_S on the tile
 * and one pixel around it, evaluated once per pixel (the per-pixel kernels
 * evaluate it at the pixel and its four neighbours); each thread reads its
 * own pixel's tensors into registers.  Every value comes from
 * flow_psi_s_tile, flow_sor_tile and flow_var_terms_tile of
 * libflow/pixel/variational.h and the per-pixel path's updates. */
#include "stage.cuh"

#define TILE_X 32
#define TILE_Y 16
#define BORDER 3 /* the flow: Psi'_S two pixels around the tile needs its neighbours */
/* Every staged array holds STAGE_W columns of its rows, copied four at a
 * time (stage.cuh): column lx is pixel x0 + lx - STAGE_OX. */
#define FLOW_H (TILE_Y + 2 * BORDER) /* row ly: pixel y0 + ly - BORDER */
#define PSI_H (TILE_Y + 4)           /* g, then Psi'_S: row ly is y0 + ly - 2 */
#define J_H (TILE_Y + 2) /* the tensors: the tile and one pixel around it; y0 + ly - 1 */
#define J_AREA (J_H * STAGE_W)
static_assert(TILE_X == STAGE_TILE_X, "a tile is as wide as stage.cuh's rows assume");
/* A large grid: 256 threads a tile, five blocks per multiprocessor (48
 * registers, no spill; faster than 56 registers and four).  A grid of
 * fewer tiles than the GPU holds at once is one wave whose time is the
 * latency of one block: 8 warps, each issuing its instructions one every
 * few cycles.  There each tile takes 512 or 1024 threads, as
 * many as keep every tile resident, and the same work is spread over 2 or
 * 4 times the warps. */
#define SWEEP_THREADS 256
#define SWEEP_MIN_BLOCKS 5
/* Jacobi sweeps, residuals and N(x): tiles of 32 x 8, a thread per pixel,
 * at every size (48 registers, five blocks per multiprocessor), which ran
 * nonlinear CLG's FMG(2,2) faster than tiles of 32 x 16 at 1080p and than
 * the per-pixel kernel on small grids. */
#define TERMS_TILE_Y 8
#define TERMS_MIN_BLOCKS 5

/* The pixels of one colour ((x + y) % 2 == colour) on the tile and m
 * pixels around it, updated in shared memory: point k of row r of that
 * region is pixel 2k + parity (x0 and y0 are even). */
static __device__ __forceinline__ void colour_pass(const flow_sor_sweeps_args *a,
                                                   float (*su)[STAGE_W], float (*sv)[STAGE_W],
                                                   float (*sp)[STAGE_W],
                                                   float (*sj)[J_H][STAGE_W], int colour, int m,
                                                   int x0, int y0, int w, int h, int tid, int nt)
{
    const int per_row = TILE_X / 2 + m, rows = TILE_Y + 2 * m;
    for (int i = tid; i < per_row * rows; i += nt) {
        const int r = i / per_row, lx = 2 * (i % per_row) + ((r + colour) & 1);
        const int gx = x0 + lx - m, gy = y0 + r - m;
        if (gx < 0 || gx >= w || gy < 0 || gy >= h)
            continue;
        const int fx = lx - m + STAGE_OX, fy = r - m + BORDER; /* in every array */
        flow_tensor_at J[FLOW_TERMS_MAX];
        staged_tensors(&a->s, &sj[0][fy - BORDER + 1][fx], J_AREA, J);
        float nu, nv;
        flow_sor_tile(&a->s, &su[fy][fx], &sv[fy][fx], STAGE_W, &sp[fy - 1][fx], STAGE_W, J,
                      &a->f, gx, gy, w, h, a->omega, &nu, &nv);
        su[fy][fx] = nu;
        sv[fy][fx] = nv;
    }
}

/* The flow of src on the tile and `ring` pixels around it (ring <= BORDER;
 * whole chunks of columns), coordinates clamped into the grid, and the
 * smoothness weight g into sp where Psi'_S is evaluated (the tile and
 * ring - 1 pixels around it), copied asynchronously: the caller commits
 * and waits.  With pre (its fine pair is src), the flow after that
 * prolongation, computed (stage_flow_rows). */
static __device__ __forceinline__ void stage_flow(const flow_system *s, const flow_pair &src,
                                                  const flow_prolong_pair_args *pre,
                                                  float (*su)[STAGE_W], float (*sv)[STAGE_W],
                                                  float (*sp)[STAGE_W], int ring, int th,
                                                  int x0, int y0, int w, int h, int tid, int nt)
{
    const int top = BORDER - ring; /* su's row ly is grid row y0 + ly - BORDER */
    stage_flow_rows(src, pre, su[top], sv[top], x0, y0 - ring, th + 2 * ring, tid, nt);
    if (s->flags & FLOW_SYS_EDGE) /* sp's row ly is y0 + ly - 2 */
        stage_plane(&s->g, sp[3 - ring], x0, y0 - ring + 1, th + 2 * (ring - 1), w, h, tid, nt);
}

/* Psi'_S of the staged flow on the tile and m pixels around it (m <= 2)
 * into sp, in place of the weight g staged there, then a barrier (robust
 * smoothness only). */
static __device__ __forceinline__ void psi_pass(const flow_system *s, float (*su)[STAGE_W],
                                                float (*sv)[STAGE_W], float (*sp)[STAGE_W],
                                                int m, int th, int x0, int y0, int w, int h,
                                                int tid, int nt)
{
    if (!(s->flags & FLOW_SYS_PSI_S))
        return;
    const int edge = (s->flags & FLOW_SYS_EDGE) != 0;
    const int pw = TILE_X + 2 * m;
    for (int i = tid; i < pw * (th + 2 * m); i += nt) {
        const int gx = x0 + i % pw - m, gy = y0 + i / pw - m;
        const int lx = gx - x0 + STAGE_OX, ly = gy - y0 + 2; /* in sp; su's row ly + 1 */
        if (gx >= 0 && gx < w && gy >= 0 && gy < h) /* outside: never read */
            sp[ly][lx] = flow_psi_s_tile(s, &su[ly + 1][lx], &sv[ly + 1][lx], STAGE_W,
                                         edge ? sp[ly][lx] : 1.0f);
    }
    __syncthreads();
}

/* A sweep's shared memory: the flow (su, sv), g and Psi'_S (sp), then six
 * tensor planes for each of the system's nterms terms (sj), each array a
 * whole number of 16-byte rows. */
static size_t sweep_shared_bytes(int nterms)
{
    return sizeof(float) * STAGE_W * (2 * FLOW_H + PSI_H + 6 * nterms * J_H);
}

template <int THREADS, int MIN_BLOCKS>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
    flow_sor_sweep_kernel(const __grid_constant__ flow_sor_sweeps_args a, flow_pair src,
                          flow_pair dst, int pre)
{
    extern __shared__ __align__(16) float sm[];
    float(*const su)[STAGE_W] = (float(*)[STAGE_W])sm;
    float(*const sv)[STAGE_W] = su + FLOW_H;
    float(*const sp)[STAGE_W] = sv + FLOW_H;
    float(*const sj)[J_H][STAGE_W] = (float(*)[J_H][STAGE_W])(sp + PSI_H);
    const flow_system *s = &a.s;
    const int w = src.u.width, h = src.u.height;
    const int x0 = blockIdx.x * TILE_X, y0 = blockIdx.y * TILE_Y;
    const int tid = threadIdx.y * blockDim.x + threadIdx.x, nt = blockDim.x * blockDim.y;
    /* the flow as the sweep starts and the tensors of the pixels inside the
     * grid that the colours update (stage.cuh).  Asynchronous copies, so
     * that all of a thread's loads are in flight at once. */
    stage_flow(s, src, pre ? &a.pre : NULL, su, sv, sp, BORDER, TILE_Y, x0, y0, w, h, tid, nt);
    for (int i = tid; i < STAGE_CHUNKS * J_H; i += nt) {
        const int ly = i / STAGE_CHUNKS, lx = 4 * (i % STAGE_CHUNKS);
        const int cx = x0 + lx - STAGE_OX, gy = y0 + ly - 1;
        if (chunk_inside(cx, gy, w, h)) /* outside: never read */
            stage_tensors4(s, &sj[0][ly][lx], J_AREA, cx, gy);
    }
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    psi_pass(s, su, sv, sp, 2, TILE_Y, x0, y0, w, h, tid, nt);
    colour_pass(&a, su, sv, sp, sj, 0, 1, x0, y0, w, h, tid, nt);
    __syncthreads();
    colour_pass(&a, su, sv, sp, sj, 1, 0, x0, y0, w, h, tid, nt);
    __syncthreads();
    for (int i = tid; i < TILE_X * TILE_Y; i += nt) {
        const int lx = i % TILE_X, ly = i / TILE_X, gx = x0 + lx, gy = y0 + ly;
        if (gx < w && gy < h) {
            FLOW_PX(dst.u, gx, gy) = su[ly + BORDER][lx + STAGE_OX];
            FLOW_PX(dst.v, gx, gy) = sv[ly + BORDER][lx + STAGE_OX];
        }
    }
}

/* What a tile kernel does at a pixel besides the terms, for each of its
 * operations: load_own reads the pixel's own values before the block
 * stages the flow (the right-hand side of a Jacobi sweep or a residual,
 * or the restricted residual that N(x) is added to), finish writes the
 * result from the terms t. */
template <class A>
static __device__ __forceinline__ void load_own(const A &a, int x, int y, float *fu, float *fv)
{
    flow_rhs_at(&a.s, &a.f, x, y, fu, fv);
}

static __device__ __forceinline__ void load_own(const flow_apply_args &a, int x, int y,
                                                float *ru, float *rv)
{
    flow_apply_base(&a, x, y, ru, rv);
}

static __device__ __forceinline__ void finish(const flow_jacobi_sweep_args &a,
                                              const flow_var_terms *t, float fu, float fv, int x,
                                              int y)
{
    flow_jacobi_update(&a.s, t, fu, fv, a.weight, &FLOW_PX(a.out.u, x, y),
                       &FLOW_PX(a.out.v, x, y));
}

static __device__ __forceinline__ void finish(const flow_residual_args &a,
                                              const flow_var_terms *t, float fu, float fv, int x,
                                              int y)
{
    flow_residual_terms(&a.s, t, fu, fv, &FLOW_PX(a.r.u, x, y), &FLOW_PX(a.r.v, x, y));
    flow_residual_rx_px(&a, x, y);
}

static __device__ __forceinline__ void finish(const flow_apply_args &a, const flow_var_terms *t,
                                              float ru, float rv, int x, int y)
{
    flow_apply_write(&a, t, ru, rv, x, y);
}

/* A Jacobi sweep, residual or N(x) of a nonlinear system (args A) on
 * tiles of 32 x TY pixels, a thread per pixel: each thread's tensors and
 * own values are loaded into registers as the block stages the flow, so
 * that the kernel waits for memory once. */
template <class A, int TY, int MIN_BLOCKS>
__global__ void __launch_bounds__(TILE_X * TY, MIN_BLOCKS)
    flow_terms_tile_kernel(const __grid_constant__ A a)
{
    __shared__ __align__(16) float su[TY + 2 * BORDER][STAGE_W], sv[TY + 2 * BORDER][STAGE_W];
    __shared__ __align__(16) float sp[TY + 4][STAGE_W];
    const flow_system *s = &a.s;
    const int w = a.x.u.width, h = a.x.u.height;
    const int x0 = blockIdx.x * TILE_X, y0 = blockIdx.y * TY;
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * TILE_X + tx;
    const int gx = x0 + tx, gy = y0 + ty, inside = gx < w && gy < h;
    flow_tensor_at J[FLOW_TERMS_MAX];
    float fu = 0.0f, fv = 0.0f;
    if (inside) {
        FLOW_UNROLL
        for (int k = 0; k < FLOW_TERMS_MAX; k++)
            if (k < s->nterms)
                flow_term_tensor(&s->term[k], gx, gy, &J[k]);
        load_own(a, gx, gy, &fu, &fv);
    }
    stage_flow(s, a.x, NULL, su, sv, sp, 2, TY, x0, y0, w, h, tid, TILE_X * TY);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    psi_pass(s, su, sv, sp, 1, TY, x0, y0, w, h, tid, TILE_X * TY);
    if (inside) {
        const int lx = tx + STAGE_OX;
        const flow_var_terms t =
            flow_var_terms_tile(s, &su[ty + BORDER][lx], &sv[ty + BORDER][lx], STAGE_W,
                                &sp[ty + 2][lx], STAGE_W, J, gx, gy, w, h);
        finish(a, &t, fu, fv, gx, gy);
    }
}

/* A linear system's operation reads each neighbour's flow through the
 * caches: staging it costs more than it saves. */
template <class A, void (*PX)(const A *, int, int)>
__global__ void flow_terms_px_kernel(const __grid_constant__ A a)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < a.x.u.width && y < a.x.u.height)
        PX(&a, x, y);
}

template <class A, void (*PX)(const A *, int, int)>
static flow_status terms_launch(flow_device *d, const A *a, const char *name)
{
    FLOW_TRY(cuda_enter(d));
    const int w = a->x.u.width, h = a->x.u.height;
    if (!(a->s.flags & FLOW_SYS_PSI_S))
        flow_terms_px_kernel<A, PX><<<flow_grid(w, h), flow_block, 0, cuda_stream(d)>>>(*a);
    else
        flow_terms_tile_kernel<A, TERMS_TILE_Y, TERMS_MIN_BLOCKS>
            <<<dim3((unsigned)(w + TILE_X - 1) / TILE_X,
                    (unsigned)(h + TERMS_TILE_Y - 1) / TERMS_TILE_Y),
               dim3(TILE_X, TERMS_TILE_Y), 0, cuda_stream(d)>>>(*a);
    return FLOW_CUDA_LAUNCHED(name);
}

flow_status cuda_sor_sweeps(flow_device *d, const flow_sor_sweeps_args *a, int *passes)
{
    FLOW_TRY(cuda_enter(d));
    const int w = a->x.u.width, h = a->x.u.height;
    const dim3 grid((unsigned)(w + TILE_X - 1) / TILE_X, (unsigned)(h + TILE_Y - 1) / TILE_Y);
    const int threads = cuda_tile_threads(d, (long)grid.x * grid.y, SWEEP_THREADS);
    void (*const kernel)(flow_sor_sweeps_args, flow_pair, flow_pair, int) =
        threads == 1024  ? flow_sor_sweep_kernel<1024, 1>
        : threads == 512 ? flow_sor_sweep_kernel<512, 2>
                         : flow_sor_sweep_kernel<SWEEP_THREADS, SWEEP_MIN_BLOCKS>;
    const dim3 block(32, threads / 32);
    const size_t shared = sweep_shared_bytes(a->s.nterms);
    if (shared > 48 * 1024) /* three data terms or more: above the default limit */
        FLOW_TRY(flow_cuda_check(cudaFuncSetAttribute(kernel,
                                                      cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                      (int)shared),
                                 "sor_sweeps: shared memory"));
    if (a->with_pre && a->sweeps <= 0)
        FLOW_TRY(cuda_prolong_pair(d, &a->pre));
    for (int k = 0; k < a->sweeps; k++) {
        const flow_pair &src = k % 2 ? a->t : a->x, &dst = k % 2 ? a->x : a->t;
        kernel<<<grid, block, shared, cuda_stream(d)>>>(*a, src, dst, k == 0 && a->with_pre);
        FLOW_TRY(FLOW_CUDA_LAUNCHED("sor_sweeps"));
    }
    *passes = a->sweeps;
    if (a->sweeps % 2 && !a->odd_in_t) { /* the result back into x */
        const flow_copy_pair_args back = { a->x, a->t };
        return cuda_copy_pair(d, &back);
    }
    return FLOW_OK;
}

flow_status cuda_jacobi_sweep(flow_device *d, const flow_jacobi_sweep_args *a)
{
    return terms_launch<flow_jacobi_sweep_args, flow_jacobi_sweep_px>(d, a, "jacobi_sweep");
}

flow_status cuda_residual(flow_device *d, const flow_residual_args *a)
{
    return terms_launch<flow_residual_args, flow_residual_px>(d, a, "residual");
}

flow_status cuda_apply(flow_device *d, const flow_apply_args *a)
{
    return terms_launch<flow_apply_args, flow_apply_px>(d, a, "apply");
}
