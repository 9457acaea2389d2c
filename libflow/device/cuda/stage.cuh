/* stage.cuh -- what the tile kernels of sweeps.cu (SOR) and jacobi.cu
 * (Jacobi pairs) share: the data terms' tensors of a tile's pixels in
 * shared memory, component c of term k of a pixel at q[(6k + c) * area]
 * from the pixel's own place q, and the threads a tile takes. */
#ifndef FLOW_CUDA_STAGE_CUH
#define FLOW_CUDA_STAGE_CUH

#include "common.cuh"

#include <cuda_pipeline_primitives.h>

/* Four floats at a time.  A plane of the CUDA device starts every row on
 * 16 bytes (cudaMallocPitch) and its pitch is at least its width rounded
 * up to 4, so from a column x that is a multiple of 4 with 0 <= x < width,
 * columns x .. x + 3 are one 16-byte copy (those past the width are copied
 * and never read).  A tile kernel whose staged rows start 4 columns left
 * of its tile (STAGE_OX; tiles STAGE_TILE_X pixels wide) thus stages them
 * in a quarter of the copies, each with a quarter of the addressing: a
 * staged row holds the STAGE_W columns x0 - STAGE_OX .. x0 + STAGE_TILE_X +
 * STAGE_OX - 1 (x0 the tile's first column). */
#define STAGE_OX 4
#define STAGE_TILE_X 32
#define STAGE_W (STAGE_TILE_X + 2 * STAGE_OX)
#define STAGE_CHUNKS (STAGE_W / 4)

/* Whether the chunk of columns x .. x + 3 (x a multiple of 4) of row y is
 * one copy: it starts inside the w x h grid. */
static __device__ __forceinline__ int chunk_inside(int x, int y, int w, int h)
{
    return x >= 0 && x < w && y >= 0 && y < h;
}

static __device__ __forceinline__ void copy4_async(float *dst, const flow_plane *p, int x, int y)
{
    __pipeline_memcpy_async(dst, &FLOW_PX(*p, x, y), 4 * sizeof(float));
}

/* The tensor values of the chunk of columns x .. x + 3 of row y for the
 * system's terms into q (16-byte aligned, as every plane of the staged
 * tensors), copied asynchronously (J33 0 for a quadratic term): the caller
 * commits and waits.  Unrolled over the terms, so that each plane's
 * address is read from a fixed place in the parameters, not by an indexed
 * load per value. */
static __device__ __forceinline__ void stage_tensors4(const flow_system *s, float *q, int area,
                                                      int x, int y)
{
    FLOW_UNROLL
    for (int k = 0; k < FLOW_TERMS_MAX; k++) {
        if (k >= s->nterms)
            break;
        const flow_data_term *d = &s->term[k];
        float *p = q + 6 * k * area;
        copy4_async(&p[0], &d->J.j11, x, y);
        copy4_async(&p[area], &d->J.j12, x, y);
        copy4_async(&p[2 * area], &d->J.j13, x, y);
        copy4_async(&p[3 * area], &d->J.j22, x, y);
        copy4_async(&p[4 * area], &d->J.j23, x, y);
        if (d->robust)
            copy4_async(&p[5 * area], &d->J.j33, x, y);
        else
            p[5 * area] = p[5 * area + 1] = p[5 * area + 2] = p[5 * area + 3] = 0.0f;
    }
}

/* Staged rows ly = 0 .. rows - 1 of plane p into dst (STAGE_W floats a
 * row), row ly from grid row y + ly, the chunks that start inside the w x h
 * grid (the others are never read), copied asynchronously: the caller
 * commits and waits. */
static __device__ __forceinline__ void stage_plane(const flow_plane *p, float *dst, int x0, int y,
                                                   int rows, int w, int h, int tid, int nt)
{
    for (int i = tid; i < STAGE_CHUNKS * rows; i += nt) {
        const int ly = i / STAGE_CHUNKS, lx = 4 * (i % STAGE_CHUNKS);
        const int cx = x0 + lx - STAGE_OX, gy = y + ly;
        if (chunk_inside(cx, gy, w, h))
            copy4_async(&dst[ly * STAGE_W + lx], p, cx, gy);
    }
}

/* Staged rows ly = 0 .. rows - 1 of the flow src into u, v (STAGE_W floats
 * a row), row ly from grid row y + ly, every coordinate clamped into the
 * grid (what flow_stencil_load reads), copied asynchronously: the caller
 * commits and waits.  Only at the grid's sides is a chunk copied a float at
 * a time.  With pre (its fine pair is src), the flow after that
 * prolongation, computed a value per thread (each one's reads wait for
 * memory; flow_prolong_pair_value). */
static __device__ __forceinline__ void stage_flow_rows(const flow_pair &src,
                                                       const flow_prolong_pair_args *pre,
                                                       float *u, float *v, int x0, int y,
                                                       int rows, int tid, int nt)
{
    const int w = src.u.width, h = src.u.height;
    if (pre) {
        for (int i = tid; i < STAGE_W * rows; i += nt) {
            const int gx = flow_clampi(x0 + i % STAGE_W - STAGE_OX, 0, w - 1);
            const int gy = flow_clampi(y + i / STAGE_W, 0, h - 1), old = pre->accumulate;
            flow_prolong_pair_value(pre, gx, gy, old ? FLOW_PX(src.u, gx, gy) : 0.0f,
                                    old ? FLOW_PX(src.v, gx, gy) : 0.0f, &u[i], &v[i]);
        }
        return;
    }
    for (int i = tid; i < STAGE_CHUNKS * rows; i += nt) {
        const int ly = i / STAGE_CHUNKS, lx = 4 * (i % STAGE_CHUNKS), q = ly * STAGE_W + lx;
        const int gy = flow_clampi(y + ly, 0, h - 1), cx = x0 + lx - STAGE_OX;
        if (cx >= 0 && cx + 4 <= w) {
            copy4_async(&u[q], &src.u, cx, gy);
            copy4_async(&v[q], &src.v, cx, gy);
            continue;
        }
        for (int e = 0; e < 4; e++) {
            const int gx = flow_clampi(cx + e, 0, w - 1);
            __pipeline_memcpy_async(&u[q + e], &FLOW_PX(src.u, gx, gy), sizeof(float));
            __pipeline_memcpy_async(&v[q + e], &FLOW_PX(src.v, gx, gy), sizeof(float));
        }
    }
}

/* The staged values at q, as flow_term_tensor gives them, for the
 * system's terms (the others are never read). */
static __device__ __forceinline__ void staged_tensors(const flow_system *s, const float *q,
                                                      int area, flow_tensor_at *J)
{
    FLOW_UNROLL
    for (int k = 0; k < FLOW_TERMS_MAX; k++)
        if (k < s->nterms) {
            const float *p = q + 6 * k * area;
            J[k].j11 = p[0], J[k].j12 = p[area], J[k].j13 = p[2 * area];
            J[k].j22 = p[3 * area], J[k].j23 = p[4 * area], J[k].j33 = p[5 * area];
        }
}

/* The threads of a tile on a grid of `tiles` tiles: on a grid of at most
 * one or two tiles per multiprocessor, 1024 or 512, as many as keep every
 * tile resident (a grid of fewer tiles than the GPU holds at once is one
 * wave, whose time is the latency of one block: more warps share its
 * work); `large` on a larger grid. */
static inline int cuda_tile_threads(flow_device *d, long tiles, int large)
{
    const long sms = cuda_of(d)->prop.multiProcessorCount;
    return tiles <= sms ? 1024 : tiles <= 2 * sms ? 512 : large;
}

#endif
