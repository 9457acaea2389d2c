/* qualifier.h -- the one macro that lets per-pixel code compile as C and CUDA.
 *
 * Every function in libflow/pixel/ is written once, marked FLOW_HD, and
 * called from the CPU loops and from the CUDA kernels that
 * libflow/kernels/list.h declares.  CPU and GPU therefore compute the same
 * function by construction, up to rounding: no fast-math flag is used, and
 * the two approximations below are named where they are used.  The headers
 * of pixel/ include only this one and libflow/base/types.h. */
#ifndef FLOW_PIXEL_QUALIFIER_H
#define FLOW_PIXEL_QUALIFIER_H

#include "base/types.h"

#include <math.h>

#ifdef __CUDACC__
#define FLOW_HD __host__ __device__ __forceinline__
#else
#define FLOW_HD static inline
#endif

/* Loops over a compile-time bound (the data terms of a system) are unrolled
 * on the GPU so that their per-term values stay in registers, and by GCC so
 * that a loop over pixels that calls them has no inner loop and can be
 * vectorised. */
#ifdef __CUDA_ARCH__
#define FLOW_UNROLL _Pragma("unroll")
#elif defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#define FLOW_UNROLL _Pragma("GCC unroll 8")
#else
#define FLOW_UNROLL
#endif

/* Loops that must vanish into straight-line code on both sides (a sorting
 * network whose comparators the unrolled loops enumerate). */
#if defined(__CUDA_ARCH__)
#define FLOW_UNROLL_ALL _Pragma("unroll")
#elif defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#define FLOW_UNROLL_ALL _Pragma("GCC unroll 32")
#else
#define FLOW_UNROLL_ALL
#endif

/* What per-pixel code run by groups of device threads needs of its
 * target, so that a backend of another width defines it here and no
 * pixel header changes:
 *   FLOW_BARRIER()        a barrier among the threads of the group that
 *                         runs a phased operation (pixel/coarse.h, the
 *                         small-grid smoothers: a CUDA block);
 *   FLOW_LANES_MAX        the most threads that compute one point together
 *                         in lock step (a CUDA warp: 32; a 64-wide
 *                         wavefront would say 64);
 *   FLOW_LANE_XOR(v, o)   the value v of the lane whose index differs from
 *                         the caller's by the bits o, within such a group.
 * On the host one worker runs the phases in order and a point alone. */
#ifdef __CUDACC__ /* both passes: the launchers size their blocks by it */
#define FLOW_LANES_MAX 32
#else
#define FLOW_LANES_MAX 1
#endif
#ifdef __CUDA_ARCH__
#define FLOW_BARRIER() __syncthreads()
#define FLOW_LANE_XOR(v, o) __shfl_xor_sync(0xffffffffu, (v), (o))
#else
#define FLOW_BARRIER() ((void)0)
#endif

/* The sum over the lanes of a group that computes one point together:
 * `lanes` threads of the device (a power of two up to FLOW_LANES_MAX;
 * every lane gets the same bits: a butterfly adds each pair in both lanes
 * in the same order), one lane on the CPU and in one-thread-per-point
 * kernels. */
FLOW_HD float flow_lanes_sum(float v, int lanes)
{
#ifdef FLOW_LANE_XOR
    for (int o = lanes / 2; o > 0; o >>= 1)
        v += FLOW_LANE_XOR(v, o);
#else
    (void)lanes;
#endif
    return v;
}

/* 1 / sqrt(x) and a / b for the solvers' weights and updates, which an
 * iteration corrects and which need no exact rounding: on the GPU the
 * hardware approximations (rsqrtf and __fdividef, within 2 ulp; b below
 * 2^126 in magnitude), a few instructions where the correctly rounded forms
 * take a dozen and a branch to a slow path (small grids wait on each
 * pixel's chain of instructions); on the CPU exact rounding. */
FLOW_HD float flow_rsqrt(float x)
{
#ifdef __CUDA_ARCH__
    return rsqrtf(x);
#else
    return 1.0f / sqrtf(x);
#endif
}

FLOW_HD float flow_div(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __fdividef(a, b);
#else
    return a / b;
#endif
}

/* Column x and row y of index i in a grid w wide, given iw = 1.0f / w:
 * y = floor((i + 1/2) iw) in float is exact for i below 2^22 (two
 * roundings move the quotient by less than its distance 1 / 2w from an
 * integer).  A few instructions where an integer division and modulo are
 * a dependent chain of a dozen, which the small grids' phases wait on. */
FLOW_HD void flow_grid_xy(int i, int w, float iw, int *x, int *y)
{
    *y = (int)(((float)i + 0.5f) * iw);
    *x = i - *y * w;
}

FLOW_HD int flow_clampi(int i, int lo, int hi)
{
    return i < lo ? lo : (i > hi ? hi : i);
}

/* The value at (x, y) with coordinates clamped into the plane: the border
 * row or column is repeated outside (seed 001's clamped texture fetches). */
FLOW_HD float flow_at(const flow_plane *p, int x, int y)
{
    return FLOW_PX(*p, flow_clampi(x, 0, p->width - 1), flow_clampi(y, 0, p->height - 1));
}

/* Whether the point (x, y) lies in plane p (between its first and last
 * pixels). */
FLOW_HD int flow_inside(const flow_plane *p, float x, float y)
{
    return x >= 0.0f && y >= 0.0f && x <= (float)(p->width - 1) && y <= (float)(p->height - 1);
}

#endif
