/* stencil.cu -- CUDA kernels of the preprocessing and multigrid transfer
 * operations.  Each kernel computes (x, y), returns outside the plane and
 * calls the shared per-pixel function of libflow/pixel/; each launcher
 * checks its launch. */
#include "common.cuh"
#include "ops.cuh"
#include "../pixel/stencil.h"
#include "../pixel/tensor.h"
#include "../pixel/warp.h"

#include <string.h>

#define PX(p, x, y) ((p).data[(long)(y) * (p).pitch + (x)])


__global__ void fill_kernel(flow_plane p, float value)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= p.width || y >= p.height)
        return;
    PX(p, x, y) = value;
}

flow_status cuda_fill(flow_backend *b, flow_plane *p, float value)
{
    fill_kernel<<<flow_grid(p->width, p->height), flow_block, 0, cuda_of(b)->stream>>>(*p, value);
    return FLOW_CUDA_LAUNCHED("fill");
}

/* Copies 4 consecutive floats per thread (rows are 512-byte aligned by
 * cudaMallocPitch, so the vector loads are aligned); the row tail goes
 * element by element. */
__global__ void copy_kernel(flow_plane dst, flow_plane src)
{
    const int x = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= dst.width || y >= dst.height)
        return;
    const float *s = src.data + (long)y * src.pitch + x;
    float *d = dst.data + (long)y * dst.pitch + x;
    if (x + 3 < dst.width)
        *(float4 *)d = *(const float4 *)s;
    else
        for (int i = 0; x + i < dst.width; i++)
            d[i] = s[i];
}

flow_status cuda_copy(flow_backend *b, flow_plane *dst, const flow_plane *src)
{
    copy_kernel<<<flow_grid((dst->width + 3) / 4, dst->height), flow_block, 0,
                  cuda_of(b)->stream>>>(*dst, *src);
    return FLOW_CUDA_LAUNCHED("copy");
}

/* Up to FLOW_BATCH_MAX planes of one size, by value: blockIdx.z picks one. */
struct plane_batch {
    flow_plane p[FLOW_BATCH_MAX];
};

/* The convolutions work on tiles in shared memory: a block loads its
 * outputs' inputs with the kernel's halo once, clamped at the borders as
 * flow_at clamps, then each thread runs the shared per-pixel function on the
 * tile, where every index is inside: the same sums as the direct stencil,
 * with each input read from global memory about once instead of 2r + 1
 * times.  The kernel weights travel by value in the launch parameters (no
 * constant memory upload, so the launches can be captured in a CUDA graph). */
#define ROW_TILE_W 128 /* outputs of a block along x (block 32 x 8: 4 per thread) */
#define COL_TILE_H 64  /* outputs of a block along y (block 32 x 8: 8 per thread) */

__global__ void convolve_rows_kernel(plane_batch dst, plane_batch src, flow_kernel k)
{
    extern __shared__ float tile[]; /* blockDim.y rows of ROW_TILE_W + 2r */
    const flow_plane d = dst.p[blockIdx.z], s = src.p[blockIdx.z];
    const int r = k.radius, tw = ROW_TILE_W + 2 * r;
    const int x0 = blockIdx.x * ROW_TILE_W, y = blockIdx.y * blockDim.y + threadIdx.y;
    float *row = tile + threadIdx.y * tw;
    if (y < s.height)
        for (int i = threadIdx.x; i < tw; i += blockDim.x)
            row[i] = flow_at(s.data, s.pitch, s.width, s.height, x0 - r + i, y);
    __syncthreads();
    if (y >= d.height)
        return;
    for (int i = threadIdx.x; i < ROW_TILE_W && x0 + i < d.width; i += blockDim.x)
        PX(d, x0 + i, y) = flow_convolve_row_px(row, tw, tw, 1, i + r, 0, k.w, r);
}

__global__ void convolve_cols_kernel(plane_batch dst, plane_batch src, flow_kernel k)
{
    extern __shared__ float tile[]; /* COL_TILE_H + 2r rows of blockDim.x */
    const flow_plane d = dst.p[blockIdx.z], s = src.p[blockIdx.z];
    const int r = k.radius, th = COL_TILE_H + 2 * r, tx = threadIdx.x, bw = blockDim.x;
    const int x = blockIdx.x * bw + tx, y0 = blockIdx.y * COL_TILE_H;
    if (x < s.width)
        for (int i = threadIdx.y; i < th; i += blockDim.y)
            tile[i * bw + tx] = flow_at(s.data, s.pitch, s.width, s.height, x, y0 - r + i);
    __syncthreads();
    if (x >= d.width)
        return;
    for (int i = threadIdx.y; i < COL_TILE_H && y0 + i < d.height; i += blockDim.y)
        PX(d, x, y0 + i) = flow_convolve_col_px(tile + tx, bw, 1, th, 0, i + r, k.w, r);
}

static flow_status batch_of(flow_plane *const *dst, const flow_plane *const *src, int n,
                            plane_batch *d, plane_batch *s)
{
    FLOW_TRY(flow_check_batch(dst, src, n));
    memset(d, 0, sizeof *d);
    memset(s, 0, sizeof *s);
    for (int i = 0; i < n; i++) {
        d->p[i] = *dst[i];
        s->p[i] = *src[i];
    }
    return FLOW_OK;
}

flow_status cuda_convolve_rows(flow_backend *b, flow_plane *const *dst,
                               const flow_plane *const *src, int n, const flow_kernel *k)
{
    plane_batch d, s;
    FLOW_TRY(batch_of(dst, src, n, &d, &s));
    const dim3 grid((unsigned)(dst[0]->width + ROW_TILE_W - 1) / ROW_TILE_W,
                    (unsigned)(dst[0]->height + flow_block.y - 1) / flow_block.y, (unsigned)n);
    const size_t shared = sizeof(float) * flow_block.y * (ROW_TILE_W + 2 * k->radius);
    convolve_rows_kernel<<<grid, flow_block, shared, cuda_of(b)->stream>>>(d, s, *k);
    return FLOW_CUDA_LAUNCHED("convolve_rows");
}

flow_status cuda_convolve_cols(flow_backend *b, flow_plane *const *dst,
                               const flow_plane *const *src, int n, const flow_kernel *k)
{
    plane_batch d, s;
    FLOW_TRY(batch_of(dst, src, n, &d, &s));
    const dim3 grid((unsigned)(dst[0]->width + flow_block.x - 1) / flow_block.x,
                    (unsigned)(dst[0]->height + COL_TILE_H - 1) / COL_TILE_H, (unsigned)n);
    const size_t shared = sizeof(float) * flow_block.x * (COL_TILE_H + 2 * k->radius);
    convolve_cols_kernel<<<grid, flow_block, shared, cuda_of(b)->stream>>>(d, s, *k);
    return FLOW_CUDA_LAUNCHED("convolve_cols");
}

__global__ void derivatives_kernel(flow_plane fx, flow_plane fy, flow_plane ft, flow_plane f1,
                                   flow_plane f2)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= f1.width || y >= f1.height)
        return;
    flow_derivatives_px(f1.data, f2.data, f1.pitch, f1.width, f1.height, x, y, &PX(fx, x, y),
                        &PX(fy, x, y), &PX(ft, x, y));
}

flow_status cuda_derivatives(flow_backend *b, flow_plane *fx, flow_plane *fy, flow_plane *ft,
                             const flow_plane *f1, const flow_plane *f2)
{
    if (f1->pitch != f2->pitch)
        return flow_fail(FLOW_ERR_INVALID, "derivatives: frames of different pitch");
    derivatives_kernel<<<flow_grid(f1->width, f1->height), flow_block, 0, cuda_of(b)->stream>>>(
        *fx, *fy, *ft, *f1, *f2);
    return FLOW_CUDA_LAUNCHED("derivatives");
}

__global__ void motion_products_kernel(flow_tensor J, flow_plane f1, flow_plane f2,
                                       int accumulate)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= f1.width || y >= f1.height)
        return;
    float fx, fy, ft, j[6];
    flow_derivatives_px(f1.data, f2.data, f1.pitch, f1.width, f1.height, x, y, &fx, &fy, &ft);
    flow_tensor_products_px(fx, fy, ft, j);
    float *out[6] = { &PX(J.j11, x, y), &PX(J.j12, x, y), &PX(J.j13, x, y),
                      &PX(J.j22, x, y), &PX(J.j23, x, y), &PX(J.j33, x, y) };
    for (int c = 0; c < 6; c++)
        *out[c] = accumulate ? *out[c] + j[c] : j[c];
}

flow_status cuda_motion_products(flow_backend *b, flow_tensor *J, const flow_plane *f1,
                                 const flow_plane *f2, int accumulate)
{
    if (f1->pitch != f2->pitch)
        return flow_fail(FLOW_ERR_INVALID, "motion_products: frames of different pitch");
    motion_products_kernel<<<flow_grid(f1->width, f1->height), flow_block, 0,
                             cuda_of(b)->stream>>>(*J, *f1, *f2, accumulate);
    return FLOW_CUDA_LAUNCHED("motion_products");
}

__global__ void warp_kernel(flow_plane dst, flow_plane src, flow_plane u, flow_plane v)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= dst.width || y >= dst.height)
        return;
    PX(dst, x, y) = flow_warp_px(src.data, src.pitch, src.width, src.height, x, y, PX(u, x, y),
                                 PX(v, x, y));
}

flow_status cuda_warp(flow_backend *b, flow_plane *dst, const flow_plane *src, const flow_pair *w)
{
    warp_kernel<<<flow_grid(dst->width, dst->height), flow_block, 0, cuda_of(b)->stream>>>(
        *dst, *src, w->u, w->v);
    return FLOW_CUDA_LAUNCHED("warp");
}

__global__ void tensor_shift_kernel(flow_tensor J, flow_plane u, flow_plane v)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= J.j11.width || y >= J.j11.height)
        return;
    float *c[6] = { &PX(J.j11, x, y), &PX(J.j12, x, y), &PX(J.j13, x, y),
                    &PX(J.j22, x, y), &PX(J.j23, x, y), &PX(J.j33, x, y) };
    float j[6];
    for (int k = 0; k < 6; k++)
        j[k] = *c[k];
    flow_tensor_shift_px(j, PX(u, x, y), PX(v, x, y));
    for (int k = 0; k < 6; k++)
        *c[k] = j[k];
}

flow_status cuda_tensor_shift(flow_backend *b, flow_tensor *J, const flow_pair *w)
{
    tensor_shift_kernel<<<flow_grid(J->j11.width, J->j11.height), flow_block, 0,
                          cuda_of(b)->stream>>>(*J, w->u, w->v);
    return FLOW_CUDA_LAUNCHED("tensor_shift");
}

__global__ void scale_kernel(flow_plane p, float factor)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= p.width || y >= p.height)
        return;
    PX(p, x, y) *= factor;
}

flow_status cuda_scale(flow_backend *b, flow_plane *p, float factor)
{
    scale_kernel<<<flow_grid(p->width, p->height), flow_block, 0, cuda_of(b)->stream>>>(*p,
                                                                                         factor);
    return FLOW_CUDA_LAUNCHED("scale");
}

__global__ void restriction_kernel(flow_plane coarse, flow_plane fine)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= coarse.width || y >= coarse.height)
        return;
    PX(coarse, x, y) = flow_restriction_px(fine.data, fine.pitch, fine.width, fine.height, x, y);
}

flow_status cuda_restriction(flow_backend *b, flow_plane *coarse, const flow_plane *fine)
{
    restriction_kernel<<<flow_grid(coarse->width, coarse->height), flow_block, 0,
                         cuda_of(b)->stream>>>(*coarse, *fine);
    return FLOW_CUDA_LAUNCHED("restriction");
}

__global__ void prolongation_kernel(flow_plane fine, flow_plane coarse, int accumulate)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= fine.width || y >= fine.height)
        return;
    const float p = flow_prolongation_px(coarse.data, coarse.pitch, coarse.width, coarse.height,
                                         x, y);
    PX(fine, x, y) = accumulate ? PX(fine, x, y) + p : p;
}

flow_status cuda_prolongation(flow_backend *b, flow_plane *fine, const flow_plane *coarse,
                              int accumulate)
{
    prolongation_kernel<<<flow_grid(fine->width, fine->height), flow_block, 0,
                          cuda_of(b)->stream>>>(*fine, *coarse, accumulate);
    return FLOW_CUDA_LAUNCHED("prolongation");
}
