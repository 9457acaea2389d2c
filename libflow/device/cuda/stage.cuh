/* stage.cuh -- what the tile kernels of sweeps.cu (SOR) and jacobi.cu
 * (Jacobi pairs) share: the data terms' tensors of a tile's pixels in
 * shared memory, component c of term k of a pixel at q[(6k + c) * area]
 * from the pixel's own place q, and the threads a tile takes. */
#ifndef FLOW_CUDA_STAGE_CUH
#define FLOW_CUDA_STAGE_CUH

#include "common.cuh"

#include <cuda_pipeline_primitives.h>

/* The tensor values of pixel (x, y) for the system's terms into q, copied
 * asynchronously (J33 0 for a quadratic term): the caller commits and
 * waits.  Unrolled over the terms, so that each plane's address is read
 * from a fixed place in the parameters, not by an indexed load per value. */
static __device__ __forceinline__ void stage_tensors(const flow_system *s, float *q, int area,
                                                     int x, int y)
{
    FLOW_UNROLL
    for (int k = 0; k < FLOW_TERMS_MAX; k++) {
        if (k >= s->nterms)
            break;
        const flow_data_term *d = &s->term[k];
        float *p = q + 6 * k * area;
        __pipeline_memcpy_async(&p[0], &FLOW_PX(d->J.j11, x, y), sizeof(float));
        __pipeline_memcpy_async(&p[area], &FLOW_PX(d->J.j12, x, y), sizeof(float));
        __pipeline_memcpy_async(&p[2 * area], &FLOW_PX(d->J.j13, x, y), sizeof(float));
        __pipeline_memcpy_async(&p[3 * area], &FLOW_PX(d->J.j22, x, y), sizeof(float));
        __pipeline_memcpy_async(&p[4 * area], &FLOW_PX(d->J.j23, x, y), sizeof(float));
        if (d->robust)
            __pipeline_memcpy_async(&p[5 * area], &FLOW_PX(d->J.j33, x, y), sizeof(float));
        else
            p[5 * area] = 0.0f;
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
