/* types.h -- the data every layer of libflow shares, at the bottom of the
 * library: 2-D float planes, flow pairs, motion tensors, convolution
 * kernels, and the one way a plane is indexed.  Valid C11 and C++ (the CUDA
 * files include it); nothing here allocates or calls anything.  Not
 * installed: the public API hands out host images and flow fields, never
 * device planes. */
#ifndef FLOW_BASE_TYPES_H
#define FLOW_BASE_TYPES_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A plane is width x height floats, row y starting at data + y * pitch
 * (pitch counted in floats, pitch >= width), fewer than 2^31 of them
 * (FLOW_PLANE_MAX: the allocators refuse more), so that an element's
 * offset is int arithmetic: on the GPU, 64-bit offsets took twice the
 * instructions of each load's address.  Its memory belongs to the device
 * that allocated it (host memory on the CPU, pitched device memory on
 * CUDA).  A copy of the struct with a smaller width and height is a view of
 * the top-left corner of the same memory. */
typedef struct flow_plane {
    float *data; /* first element of row 0 */
    int width;   /* columns */
    int height;  /* rows */
    int pitch;   /* floats from one row to the next */
} flow_plane;

/* The element (x, y) of a plane given as an lvalue (not a pointer). */
#define FLOW_PX(p, x, y) ((p).data[(y) * (p).pitch + (x)])
#define FLOW_PLANE_MAX 2147483647L /* elements of a plane, rows padded to the pitch */

/* Exchanges the first n planes of a and b: the structs, not the memory
 * (a method's planes of the first frame become those of the second). */
static inline void flow_planes_swap(flow_plane *a, flow_plane *b, int n)
{
    for (int i = 0; i < n; i++) {
        const flow_plane t = a[i];
        a[i] = b[i];
        b[i] = t;
    }
}

/* A flow (u, v), a right-hand side or a residual: two planes of one size. */
typedef struct flow_pair {
    flow_plane u, v;
} flow_pair;

/* The six distinct components of the symmetric 3x3 motion tensor
 * J = sum over channels of grad3(f) grad3(f)^T, grad3 = (f_x, f_y, f_t)
 * (seed 001, appendix A.2). */
typedef struct flow_tensor {
    flow_plane j11, j12, j13, j22, j23, j33;
} flow_tensor;

/* The largest radius of a convolution kernel (support 3 sigma: sigma <= 16). */
#define FLOW_KERNEL_RADIUS_MAX 48

/* A normalised, symmetric 1-D convolution kernel w[0 .. 2*radius]. */
typedef struct flow_kernel {
    int radius;
    float w[2 * FLOW_KERNEL_RADIUS_MAX + 1];
} flow_kernel;

/* The most planes one batched operation (a convolution) takes: both frames
 * of three channels, or the six tensor components. */
#define FLOW_BATCH_MAX 6

#ifdef __cplusplus
}
#endif
#endif
