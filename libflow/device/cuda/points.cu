/* points.cu -- the CUDA device's operations on point sets and on whole
 * planes: the operations whose every point does a window's work (gpu POINTS
 * in libflow/kernels/list.h: KLT tracking, the patches of dense inverse
 * search) with a warp per point, the largest value of a plane, and the
 * descending sort of a row.
 *
 * A window of 21 x 21 pixels is 441 samples per Gauss-Newton step: a warp
 * shares them out (14 per lane) and adds its sums by shuffles
 * (flow_lanes_sum), where a thread per point would run 441 in a row with a
 * thousand threads on the whole GPU. */
#include "common.cuh"

#include <cub/device/device_radix_sort.cuh>

#define TRACK_WARPS 4 /* points per block */

__global__ void __launch_bounds__(FLOW_LANES_MAX * TRACK_WARPS)
    flow_klt_track_kernel(const __grid_constant__ flow_klt_track_args a)
{
    const int i = blockIdx.x * TRACK_WARPS + threadIdx.y;
    if (i < a.n) /* the same for the whole warp */
        flow_klt_track_point(&a, i, threadIdx.x, FLOW_LANES_MAX);
}

flow_status cuda_klt_track(flow_device *d, const flow_klt_track_args *a)
{
    if (a->n <= 0)
        return FLOW_OK;
    FLOW_TRY(cuda_enter(d));
    const dim3 block(FLOW_LANES_MAX, TRACK_WARPS), grid((unsigned)(a->n + TRACK_WARPS - 1) / TRACK_WARPS);
    flow_klt_track_kernel<<<grid, block, 0, cuda_stream(d)>>>(*a);
    return FLOW_CUDA_LAUNCHED("klt_track");
}

#define SEARCH_WARPS 8 /* patches per block */

/* A kernel per channel count (1 or 3): with the count a constant, a grey
 * search keeps one channel's values in registers (a kernel for any count
 * needs many more registers, and fewer blocks fit a multiprocessor). */
template <int NC>
__global__ void __launch_bounds__(FLOW_LANES_MAX * SEARCH_WARPS)
    flow_dis_search_kernel(const __grid_constant__ flow_dis_search_args a)
{
    const int w = a.p.u.width, k = blockIdx.x * SEARCH_WARPS + threadIdx.y;
    if (k < w * a.p.u.height) /* the same for the whole warp */
        flow_dis_search_point(&a, k % w, k / w, threadIdx.x, FLOW_LANES_MAX, NC);
}

flow_status cuda_dis_search(flow_device *d, const flow_dis_search_args *a)
{
    const int n = a->p.u.width * a->p.u.height;
    if (n <= 0)
        return FLOW_OK;
    FLOW_TRY(cuda_enter(d));
    const dim3 block(FLOW_LANES_MAX, SEARCH_WARPS), grid((unsigned)(n + SEARCH_WARPS - 1) / SEARCH_WARPS);
    if (a->f.channels == 1)
        flow_dis_search_kernel<1><<<grid, block, 0, cuda_stream(d)>>>(*a);
    else
        flow_dis_search_kernel<3><<<grid, block, 0, cuda_stream(d)>>>(*a);
    return FLOW_CUDA_LAUNCHED("dis_search");
}

/* ---- the largest value ------------------------------------------------- */

/* Each warp's maximum by shuffles, then one atomicMax per warp on the bits:
 * for floats >= 0 the order of the bits as integers is that of the values. */
__global__ void flow_plane_max_kernel(flow_plane p, int *out)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    float v = 0.0f;
    if (x < p.width && y < p.height) {
        const float a = FLOW_PX(p, x, y);
        v = a > 0.0f ? a : 0.0f;
    }
    for (int o = 16; o > 0; o >>= 1)
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    if (threadIdx.x == 0)
        atomicMax(out, __float_as_int(v));
}

flow_status cuda_plane_max(flow_device *d, const flow_plane *src, flow_plane *dst)
{
    FLOW_TRY(cuda_enter(d));
    cudaStream_t s = cuda_stream(d);
    FLOW_TRY(flow_cuda_check(cudaMemsetAsync(dst->data, 0, sizeof(float), s), "plane_max"));
    flow_plane_max_kernel<<<flow_grid(src->width, src->height), flow_block, 0, s>>>(
        *src, (int *)dst->data);
    return FLOW_CUDA_LAUNCHED("plane_max");
}

/* ---- the sort ------------------------------------------------------------ */

__global__ void flow_iota_kernel(float *out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = (float)i;
}

/* CUB's radix sort is stable: equal keys keep their index order, as the
 * CPU's comparison sort orders them.  Its scratch and the indices 0..n-1
 * are kept from one call to the next (remade when n grows). */
flow_status cuda_sort_desc(flow_device *d, const flow_plane *keys, flow_plane *skeys,
                           flow_plane *sidx)
{
    FLOW_TRY(cuda_enter(d));
    flow_cuda *c = cuda_of(d);
    const int n = keys->width;
    if (n <= 0)
        return FLOW_OK;
    if (n > c->sort_n) {
        cudaFree(c->sort_iota);
        cudaFree(c->sort_tmp);
        c->sort_iota = NULL, c->sort_tmp = NULL, c->sort_n = 0, c->sort_tmp_bytes = 0;
        size_t bytes = 0;
        FLOW_TRY(flow_cuda_check(cub::DeviceRadixSort::SortPairsDescending(
                                     NULL, bytes, keys->data, skeys->data, (float *)NULL,
                                     sidx->data, n, 0, 32, c->stream),
                                 "sort_desc"));
        FLOW_TRY(flow_cuda_alloc_check(d, cudaMalloc(&c->sort_tmp, bytes), bytes,
                                       "the sort's scratch"));
        c->sort_tmp_bytes = bytes;
        FLOW_TRY(flow_cuda_alloc_check(d, cudaMalloc((void **)&c->sort_iota,
                                                     (size_t)n * sizeof(float)),
                                       (size_t)n * sizeof(float), "the sort's indices"));
        flow_iota_kernel<<<(n + 255) / 256, 256, 0, c->stream>>>(c->sort_iota, n);
        FLOW_TRY(FLOW_CUDA_LAUNCHED("sort_desc"));
        c->sort_n = n;
    }
    size_t bytes = c->sort_tmp_bytes;
    return flow_cuda_check(cub::DeviceRadixSort::SortPairsDescending(
                               c->sort_tmp, bytes, keys->data, skeys->data, c->sort_iota,
                               sidx->data, n, 0, 32, c->stream),
                           "sort_desc");
}
