/* backend.h -- the operations every compute backend provides.
 *
 * The algorithms above the pixel (motion tensor pipeline, solvers, multigrid
 * cycles) are written once in host C against this table.  Each backend fills
 * it in its own file: libflow/cpu/ (C11 + OpenMP) and libflow/cuda/ (CUDA);
 * a build without nvcc links libflow/nocuda/, whose open() reports
 * FLOW_ERR_NO_DEVICE.  All operations are asynchronous on the CUDA backend
 * (one stream, in order); download() and synchronize() wait.
 *
 * Every operation returns FLOW_OK or a status whose detail is available from
 * flow_last_error().  Plane arguments must come from the same backend. */
#ifndef FLOW_BACKEND_H
#define FLOW_BACKEND_H

#include "flow/plane.h"
#include "flow/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct flow_backend flow_backend;

typedef struct flow_backend_ops {
    const char *name; /* "cpu" or "cuda" */

    /* Opens device number `device` (ignored by the CPU backend), filling
     * b->impl and b->device_name.  FLOW_ERR_NO_DEVICE when it is unusable. */
    flow_status (*open)(flow_backend *b, int device);
    void (*close)(flow_backend *b);

    /* Memory.  plane_alloc leaves the contents undefined; plane_free accepts
     * a plane that was never allocated (data == NULL). */
    flow_status (*plane_alloc)(flow_backend *b, flow_plane *p, int width, int height);
    void (*plane_free)(flow_backend *b, flow_plane *p);
    flow_status (*upload)(flow_backend *b, flow_plane *dst, const float *src, size_t src_stride);
    flow_status (*download)(flow_backend *b, float *dst, size_t dst_stride, const flow_plane *src);
    flow_status (*fill)(flow_backend *b, flow_plane *p, float value);
    flow_status (*copy)(flow_backend *b, flow_plane *dst, const flow_plane *src);

    /* Separable convolution with a symmetric kernel, borders clamped:
     * rows convolves along x, cols along y.  dst and src must differ. */
    flow_status (*convolve_rows)(flow_backend *b, flow_plane *dst, const flow_plane *src,
                                 const flow_kernel *k);
    flow_status (*convolve_cols)(flow_backend *b, flow_plane *dst, const flow_plane *src,
                                 const flow_kernel *k);

    /* Fourth-order spatial derivatives (1,-8,0,8,-1)/12 averaged over both
     * frames, and the temporal difference f2 - f1 (seed 001 eqs. 4.6-4.9). */
    flow_status (*derivatives)(flow_backend *b, flow_plane *fx, flow_plane *fy, flow_plane *ft,
                               const flow_plane *f1, const flow_plane *f2);

    /* J = grad3 grad3^T from the derivative planes; accumulate != 0 adds to
     * J instead of overwriting it (colour: the channels' tensors summed). */
    flow_status (*tensor_products)(flow_backend *b, flow_tensor *J, const flow_plane *fx,
                                   const flow_plane *fy, const flow_plane *ft, int accumulate);

    /* Full-weighting restriction to a (w+1)/2 x (h+1)/2 plane, and bilinear
     * prolongation back; borders clamped (seed 001 sections 4.2.5, 4.2.6).
     * prolongation adds to `fine` when accumulate != 0 (coarse-grid
     * correction x += P e). */
    flow_status (*restriction)(flow_backend *b, flow_plane *coarse, const flow_plane *fine);
    flow_status (*prolongation)(flow_backend *b, flow_plane *fine, const flow_plane *coarse,
                                int accumulate);

    /* Waits for all queued work; reports an asynchronous device error. */
    flow_status (*synchronize)(flow_backend *b);

    /* Timing markers queued in order with the work (CUDA events on the GPU,
     * the host clock on the CPU); elapsed waits for `end` and gives the
     * milliseconds between the two recorded markers. */
    flow_status (*event_create)(flow_backend *b, void **event);
    void (*event_destroy)(flow_backend *b, void *event);
    flow_status (*event_record)(flow_backend *b, void *event);
    flow_status (*event_elapsed)(flow_backend *b, void *start, void *end, float *ms);
} flow_backend_ops;

struct flow_backend {
    const flow_backend_ops *ops;
    void *impl;             /* the backend's own state */
    char device_name[128];  /* "CPU (16 threads)", "NVIDIA H100 80GB HBM3", ... */
    char notice[256];       /* set when "auto" fell back to the CPU: print it once */
};

/* Opens a backend from a spec: "auto" (CUDA when a usable GPU is present,
 * else CPU with a notice in b->notice), "cpu", "cuda" or "cuda:N".  An
 * explicit "cuda" without a usable GPU is FLOW_ERR_NO_DEVICE.
 * Returns FLOW_OK and *out, or a status with *out == NULL. */
flow_status flow_backend_open(const char *spec, flow_backend **out);
void flow_backend_close(flow_backend *b);

/* Whether this build contains the CUDA backend. */
int flow_backend_has_cuda(void);

/* Plane helpers over the table, for readable host code. */
static inline flow_status flow_plane_alloc(flow_backend *b, flow_plane *p, int w, int h)
{
    return b->ops->plane_alloc(b, p, w, h);
}
static inline void flow_plane_free(flow_backend *b, flow_plane *p)
{
    b->ops->plane_free(b, p);
}

#ifdef __cplusplus
}
#endif
#endif
