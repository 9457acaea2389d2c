/* tiles.cu -- the launchers of the convolutions (gpu OWN in
 * libflow/kernels/list.h): separable convolution on shared-memory tiles.
 *
 * A block loads its outputs' inputs with the kernel's halo once, clamped at
 * the borders as flow_at clamps, then each thread runs the shared per-point
 * function (flow_convolve_row_at / _col_at of libflow/pixel/stencil.h) on
 * the tile, where every index is inside: the same sums as the direct
 * stencil, with each input read from global memory about once instead of
 * 2r + 1 times.  blockIdx.z picks the plane of the batch.  The weights
 * travel in the launch parameters (no constant memory upload, so the
 * launches can be captured in a CUDA graph).
 *
 * A block computes 4 outputs a thread along its rows, 8 along its columns
 * (tiles of 128 x 8 and 32 x 64: the halo is read a few percent more than
 * once).  A grid of fewer such blocks than the GPU holds several times over
 * is one wave whose time is one block's latency; there each thread computes
 * one output along rows and two along columns (tiles of 32 x 8 and 32 x
 * 16), the halo read more often and the wave four times shorter. */
#include "common.cuh"

#define ROW_TILE_W 128 /* outputs of a block along x (block 32 x 8: 4 per thread) */
#define COL_TILE_H 64  /* outputs of a block along y (block 32 x 8: 8 per thread) */
#define SHORT_ROW_TILE_W 32
#define SHORT_COL_TILE_H 16

template <int TW>
__global__ void flow_convolve_rows_kernel(const __grid_constant__ flow_convolve_args a)
{
    extern __shared__ float tile[]; /* blockDim.y rows of TW + 2r */
    const flow_plane d = a.dst[blockIdx.z], s = a.src[blockIdx.z];
    const int r = a.k.radius, tw = TW + 2 * r;
    const int x0 = blockIdx.x * TW, y = blockIdx.y * blockDim.y + threadIdx.y;
    const flow_plane row = {tile + threadIdx.y * tw, tw, 1, tw};
    if (y < s.height)
        for (int i = threadIdx.x; i < tw; i += blockDim.x)
            row.data[i] = flow_at(&s, x0 - r + i, y);
    __syncthreads();
    if (y >= d.height)
        return;
    for (int i = threadIdx.x; i < TW && x0 + i < d.width; i += blockDim.x)
        FLOW_PX(d, x0 + i, y) = flow_convolve_row_at(&row, i + r, 0, a.k.w, r);
}

template <int TH>
__global__ void flow_convolve_cols_kernel(const __grid_constant__ flow_convolve_args a)
{
    extern __shared__ float tile[]; /* TH + 2r rows of blockDim.x */
    const flow_plane d = a.dst[blockIdx.z], s = a.src[blockIdx.z];
    const int r = a.k.radius, th = TH + 2 * r, tx = threadIdx.x, bw = blockDim.x;
    const int x = blockIdx.x * bw + tx, y0 = blockIdx.y * TH;
    const flow_plane col = {tile + tx, 1, th, bw};
    if (x < s.width)
        for (int i = threadIdx.y; i < th; i += blockDim.y)
            tile[i * bw + tx] = flow_at(&s, x, y0 - r + i);
    __syncthreads();
    if (x >= d.width)
        return;
    for (int i = threadIdx.y; i < TH && y0 + i < d.height; i += blockDim.y)
        FLOW_PX(d, x, y0 + i) = flow_convolve_col_at(&col, 0, i + r, a.k.w, r);
}

/* The outputs a block computes along the convolution's axis (extent
 * points long, `lines` blocks across it, n planes): the long tile, or the
 * short one where blocks of the long would be fewer than four per
 * multiprocessor. */
static int tile_len(flow_device *d, int extent, int lines, int n, int long_len, int short_len)
{
    const long blocks = (long)(extent + long_len - 1) / long_len * lines * n;
    return blocks < 4L * cuda_of(d)->prop.multiProcessorCount ? short_len : long_len;
}

flow_status cuda_convolve_rows(flow_device *d, const flow_convolve_args *a)
{
    FLOW_TRY(cuda_enter(d));
    const int w = a->dst[0].width, rows = (a->dst[0].height + flow_block.y - 1) / flow_block.y;
    const int tw = tile_len(d, w, rows, a->n, ROW_TILE_W, SHORT_ROW_TILE_W);
    const dim3 grid((unsigned)(w + tw - 1) / tw, (unsigned)rows, (unsigned)a->n);
    const size_t shared = sizeof(float) * flow_block.y * (tw + 2 * a->k.radius);
    if (tw == ROW_TILE_W)
        flow_convolve_rows_kernel<ROW_TILE_W><<<grid, flow_block, shared, cuda_stream(d)>>>(*a);
    else
        flow_convolve_rows_kernel<SHORT_ROW_TILE_W>
            <<<grid, flow_block, shared, cuda_stream(d)>>>(*a);
    return FLOW_CUDA_LAUNCHED("convolve_rows");
}

flow_status cuda_convolve_cols(flow_device *d, const flow_convolve_args *a)
{
    FLOW_TRY(cuda_enter(d));
    const int h = a->dst[0].height, cols = (a->dst[0].width + flow_block.x - 1) / flow_block.x;
    const int th = tile_len(d, h, cols, a->n, COL_TILE_H, SHORT_COL_TILE_H);
    const dim3 grid((unsigned)cols, (unsigned)(h + th - 1) / th, (unsigned)a->n);
    const size_t shared = sizeof(float) * flow_block.x * (th + 2 * a->k.radius);
    if (th == COL_TILE_H)
        flow_convolve_cols_kernel<COL_TILE_H><<<grid, flow_block, shared, cuda_stream(d)>>>(*a);
    else
        flow_convolve_cols_kernel<SHORT_COL_TILE_H>
            <<<grid, flow_block, shared, cuda_stream(d)>>>(*a);
    return FLOW_CUDA_LAUNCHED("convolve_cols");
}
