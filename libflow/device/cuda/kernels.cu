/* kernels.cu -- the CUDA device's operations: the list of
 * libflow/kernels/list.h expanded into kernels and launchers, the
 * small-grid smoother in one block, the sum of squares and the sum of a
 * plane.  Every kernel
 * calls a per-pixel function of libflow/pixel/ and nothing else, so the CPU
 * device (device/cpu/kernels_cpu.c) computes the same function.  Each
 * launcher makes the device's GPU current, queues on its stream and checks
 * the launch; nothing here waits for the GPU but sum_squares, which serves
 * traces and tests. */
#include "common.cuh"

/* flow_<stem>_kernel and cuda_<stem>.  The arguments live in the launch's
 * parameter space (__grid_constant__: their address is taken, and without
 * the qualifier every thread would copy them to local memory). */
#define FLOW_CUDA_GRID(stem, A, W, H)                                                            \
    __global__ void flow_##stem##_kernel(const __grid_constant__ A args)                         \
    {                                                                                            \
        const A *a = &args;                                                                      \
        const int x = blockIdx.x * blockDim.x + threadIdx.x;                                     \
        const int y = blockIdx.y * blockDim.y + threadIdx.y;                                     \
        if (x >= (W) || y >= (H))                                                                \
            return;                                                                              \
        flow_##stem##_px(a, x, y);                                                               \
    }                                                                                            \
    flow_status cuda_##stem(flow_device *d, const A *a)                                          \
    {                                                                                            \
        FLOW_TRY(cuda_enter(d));                                                                 \
        flow_##stem##_kernel<<<flow_grid((W), (H)), flow_block, 0, cuda_stream(d)>>>(*a);        \
        return FLOW_CUDA_LAUNCHED(#stem);                                                        \
    }
#define FLOW_CUDA_OWN(stem, A, W, H) /* tiles.cu, sweeps.cu */
#define FLOW_CUDA_POINTS(stem, A, W, H) /* points.cu */
#define FLOW_CUDA_KERNEL(stem, A, W, H, G, C) FLOW_CUDA_##G(stem, A, W, H)
FLOW_KERNELS(FLOW_CUDA_KERNEL)

/* ---- small grids: one block runs every sweep ---------------------------- */

#define SMALL_THREADS 1024

__global__ void __launch_bounds__(SMALL_THREADS)
    flow_jacobi_small_kernel(const __grid_constant__ flow_smooth_small_args a)
{
    __shared__ float ps[FLOW_SMALL_GRID];
    flow_jacobi_small(&a, ps, threadIdx.x, blockDim.x);
}

/* SOR updates x in place: its planes are kept in shared memory over the
 * sweeps (dynamic, 2 w h floats), loaded first and stored last (faster
 * than x read and written through the caches). */
__global__ void __launch_bounds__(SMALL_THREADS)
    flow_sor_small_kernel(const __grid_constant__ flow_smooth_small_args a)
{
    __shared__ float ps[FLOW_SMALL_GRID];
    extern __shared__ float xs[];
    const int w = a.x.u.width, h = a.x.u.height, np = w * h;
    const flow_pair x = { { xs, w, h, w }, { xs + np, w, h, w } };
    for (int i = threadIdx.x; i < np; i += blockDim.x) {
        xs[i] = FLOW_PX(a.x.u, i % w, i / w);
        xs[np + i] = FLOW_PX(a.x.v, i % w, i / w);
    }
    __syncthreads();
    flow_sor_small_on(&a.s, &x, &a.f, a.omega, a.sweeps, ps, threadIdx.x, blockDim.x);
    for (int i = threadIdx.x; i < np; i += blockDim.x) {
        FLOW_PX(a.x.u, i % w, i / w) = xs[i];
        FLOW_PX(a.x.v, i % w, i / w) = xs[np + i];
    }
}

flow_status cuda_smooth_small(flow_device *d, const flow_smooth_small_args *a)
{
    if (a->sweeps <= 0)
        return FLOW_OK;
    FLOW_TRY(cuda_enter(d));
    if (a->sor)
        flow_sor_small_kernel<<<1, SMALL_THREADS,
                                2 * sizeof(float) * a->x.u.width * a->x.u.height,
                                cuda_stream(d)>>>(*a);
    else
        flow_jacobi_small_kernel<<<1, SMALL_THREADS, 0, cuda_stream(d)>>>(*a);
    return FLOW_CUDA_LAUNCHED("smooth_small");
}

/* A whole cycle on the small levels: one block, the levels' planes read
 * through L1 and L2.  The block first copies its arguments to shared
 * memory, a word per thread: the cycle picks levels by a run-time index,
 * which in the parameter space costs a generic load per field.  (Staging
 * the levels' planes there as well was slower: the phases wait on
 * arithmetic, not on memory.)  512 threads rather than the smoothers' 1024
 * leave each more registers for the longer code. */
#define SMALL_CYCLE_THREADS 512

/* b = a, a word per thread, then a barrier. */
template <class A> static __device__ __forceinline__ void args_to_shared(const A &a, A &b)
{
    static_assert(sizeof b % sizeof(int) == 0, "the arguments are copied by words");
    const int *from = (const int *)&a;
    for (unsigned i = threadIdx.x; i < sizeof b / sizeof(int); i += blockDim.x)
        ((int *)&b)[i] = from[i];
    __syncthreads();
}

__global__ void __launch_bounds__(SMALL_CYCLE_THREADS)
    flow_small_cycle_kernel(const __grid_constant__ flow_small_cycle_args a)
{
    __shared__ float ps[FLOW_SMALL_GRID];
    __shared__ flow_small_cycle_args b;
    args_to_shared(a, b);
    flow_small_cycle(&b, ps, threadIdx.x, blockDim.x);
}

flow_status cuda_small_cycle(flow_device *d, const flow_small_cycle_args *a)
{
    FLOW_TRY(cuda_enter(d));
    flow_small_cycle_kernel<<<1, SMALL_CYCLE_THREADS, 0, cuda_stream(d)>>>(*a);
    return FLOW_CUDA_LAUNCHED("small_cycle");
}

/* The small levels' restrictions: one block, a level per phase, the
 * arguments in shared memory as the cycle's (the planes of a level are
 * picked by a run-time index). */
__global__ void __launch_bounds__(SMALL_CYCLE_THREADS)
    flow_restrict_small_kernel(const __grid_constant__ flow_restrict_small_args a)
{
    __shared__ flow_restrict_small_args b;
    args_to_shared(a, b);
    flow_restrict_small(&b, threadIdx.x, blockDim.x);
}

flow_status cuda_restrict_small(flow_device *d, const flow_restrict_small_args *a)
{
    FLOW_TRY(cuda_enter(d));
    flow_restrict_small_kernel<<<1, SMALL_CYCLE_THREADS, 0, cuda_stream(d)>>>(*a);
    return FLOW_CUDA_LAUNCHED("restrict_small");
}

/* ---- sum of squares ----------------------------------------------------- */

/* Each block sums its squares in double (warp shuffles, then one value per
 * warp through shared memory) and adds the block total to *out. */
__global__ void flow_sum_squares_kernel(flow_plane p, double *out)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
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

flow_status cuda_sum_squares(flow_device *d, const flow_plane *p, double *sum)
{
    FLOW_TRY(cuda_enter(d));
    flow_cuda *c = cuda_of(d);
    FLOW_TRY(flow_cuda_check(cudaMemsetAsync(c->scratch, 0, sizeof(double), c->stream),
                             "sum_squares"));
    flow_sum_squares_kernel<<<flow_grid(p->width, p->height), flow_block, 0, c->stream>>>(
        *p, c->scratch);
    FLOW_TRY(FLOW_CUDA_LAUNCHED("sum_squares"));
    FLOW_TRY(flow_cuda_check(cudaMemcpyAsync(sum, c->scratch, sizeof(double),
                                             cudaMemcpyDeviceToHost, c->stream),
                             "sum_squares"));
    return flow_cuda_check(cudaStreamSynchronize(c->stream), "sum_squares");
}

/* ---- the sum of a plane, on the device ----------------------------------- */

/* The block's sum of each thread's v, in thread 0 (shuffles, then one
 * value per warp through shared memory): a fixed order. */
static __device__ double block_sum(double v)
{
    __shared__ double warp_sum[FLOW_SUM_THREADS / 32];
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, o);
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0)
        warp_sum[warp] = v;
    __syncthreads();
    v = 0.0;
    if (warp == 0) {
        v = lane < FLOW_SUM_THREADS / 32 ? warp_sum[lane] : 0.0;
        for (int o = 16; o > 0; o >>= 1)
            v += __shfl_down_sync(0xffffffffu, v, o);
    }
    __syncthreads(); /* warp_sum is free for the next call */
    return v;
}

/* Thread t of block b sums the values of index b * THREADS + t, step
 * BLOCKS * THREADS (row-major), in double; each block's sum goes to
 * partial[b]; the last block to finish (counted after the partials) adds
 * them in block order into dst(0, 0) and resets the count for the next
 * call.  No atomic addition of values: the same plane gives the same sum. */
static_assert(FLOW_SUM_BLOCKS <= FLOW_SUM_THREADS, "the last block reads a partial per thread");

__global__ void __launch_bounds__(FLOW_SUM_THREADS)
    flow_plane_sum_kernel(flow_plane p, flow_plane dst, double *partial)
{
    unsigned *done = (unsigned *)(partial + FLOW_SUM_BLOCKS);
    const long n = (long)p.width * p.height, step = (long)FLOW_SUM_BLOCKS * FLOW_SUM_THREADS;
    double v = 0.0;
    for (long i = (long)blockIdx.x * FLOW_SUM_THREADS + threadIdx.x; i < n; i += step)
        v += FLOW_PX(p, (int)(i % p.width), (int)(i / p.width));
    v = block_sum(v);
    __shared__ int last;
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = v;
        __threadfence();
        last = atomicAdd(done, 1u) == FLOW_SUM_BLOCKS - 1;
    }
    __syncthreads();
    if (!last)
        return;
    __threadfence();
    v = threadIdx.x < FLOW_SUM_BLOCKS ? ((volatile double *)partial)[threadIdx.x] : 0.0;
    v = block_sum(v);
    if (threadIdx.x == 0) {
        FLOW_PX(dst, 0, 0) = (float)v;
        *done = 0;
    }
}

flow_status cuda_plane_sum(flow_device *d, const flow_plane *src, flow_plane *dst)
{
    FLOW_TRY(cuda_enter(d));
    flow_cuda *c = cuda_of(d);
    flow_plane_sum_kernel<<<FLOW_SUM_BLOCKS, FLOW_SUM_THREADS, 0, c->stream>>>(*src, *dst,
                                                                              c->partial);
    return FLOW_CUDA_LAUNCHED("plane_sum");
}
