/* plane.h -- a 2-D float plane: the one data structure of the backends.
 *
 * A plane is width x height floats, row y starting at data + y * pitch
 * (pitch counted in floats, pitch >= width).  Its memory belongs to the
 * backend that allocated it: host memory for the CPU backend, pitched device
 * memory for the CUDA backend.  Planes are allocated once per image size and
 * reused frame after frame. */
#ifndef FLOW_PLANE_H
#define FLOW_PLANE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct flow_plane {
    float *data;  /* first element of row 0; host or device memory */
    int width;    /* columns */
    int height;   /* rows */
    int pitch;    /* floats from one row to the next */
} flow_plane;

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

#ifdef __cplusplus
}
#endif
#endif
