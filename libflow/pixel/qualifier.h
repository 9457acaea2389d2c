/* qualifier.h -- the one macro that lets per-pixel code compile as C and CUDA.
 *
 * Every function in libflow/pixel/ is written once, marked FLOW_HD, and
 * called from the CPU backend's OpenMP loops and from the CUDA backend's
 * kernels.  CPU and GPU therefore compute the same function by construction.
 * No fast-math substitution happens here: that would be a visible build flag. */
#ifndef FLOW_PIXEL_QUALIFIER_H
#define FLOW_PIXEL_QUALIFIER_H

#ifdef __CUDACC__
#define FLOW_HD __host__ __device__ __forceinline__
#else
#define FLOW_HD static inline
#endif

FLOW_HD int flow_clampi(int i, int lo, int hi)
{
    return i < lo ? lo : (i > hi ? hi : i);
}

/* The value at (x, y) with coordinates clamped into the plane: the border
 * row or column is repeated outside (seed 001's clamped texture fetches). */
FLOW_HD float flow_at(const float *p, int pitch, int w, int h, int x, int y)
{
    return p[(long)flow_clampi(y, 0, h - 1) * pitch + flow_clampi(x, 0, w - 1)];
}

#endif
