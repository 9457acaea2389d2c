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

/* The most planes one convolve_rows / convolve_cols call takes. */
#define FLOW_BATCH_MAX 6

/* A flow (u, v) or right-hand side held as two planes of one size. */
typedef struct flow_pair {
    flow_plane u, v;
} flow_pair;

/* Flags of a flow_system: which terms the operator has. */
#define FLOW_SYS_AFFINE 1u /* data term includes J13, J23: N(x) = Psi'_D (J x + j3) - ... */
#define FLOW_SYS_RHS 2u    /* the right-hand side f is given (else f = 0 and f may be NULL) */
#define FLOW_SYS_PSI_D 4u  /* robust data term: Psi'_D of eq. 2.44 (else 1: quadratic) */
#define FLOW_SYS_PSI_S 8u  /* robust smoothness term: Psi'_S of eq. 2.45 (else 1) */

/* One grid level's variational system (seed 001 eqs. 2.28-2.29, 2.41-2.42):
 *   N(x) = Psi'_D (J x [+ j3]) - alpha div(Psi'_S grad x) = f
 * on a grid of steps hx, hy with Neumann boundaries (neighbours outside the
 * grid are dropped).  J is the (restricted) motion tensor of the level.  The
 * lagged diffusivities Psi'_D, Psi'_S are evaluated from the iterate x given
 * to each operation (libflow/pixel/variational.h), so no pass writes them to
 * memory: a nonlinear Jacobi sweep is one kernel. */
typedef struct flow_system {
    flow_tensor J;
    float alpha;       /* smoothness weight */
    float hx, hy;      /* grid steps of this level */
    float eps_d2;      /* eps_D^2 of Psi_D */
    float eps_s2;      /* eps_S^2 of Psi_S */
    unsigned flags;    /* FLOW_SYS_* */
} flow_system;

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
     * rows convolves along x, cols along y, dst[i] = K * src[i] for n planes
     * of one size at once (1 <= n <= FLOW_BATCH_MAX: one launch on the GPU
     * smooths both frames, or the six tensor components).  No dst[i] may be
     * a src[j]. */
    flow_status (*convolve_rows)(flow_backend *b, flow_plane *const *dst,
                                 const flow_plane *const *src, int n, const flow_kernel *k);
    flow_status (*convolve_cols)(flow_backend *b, flow_plane *const *dst,
                                 const flow_plane *const *src, int n, const flow_kernel *k);

    /* Fourth-order spatial derivatives (1,-8,0,8,-1)/12 averaged over both
     * frames, and the temporal difference f2 - f1 (seed 001 eqs. 4.6-4.9). */
    flow_status (*derivatives)(flow_backend *b, flow_plane *fx, flow_plane *fy, flow_plane *ft,
                               const flow_plane *f1, const flow_plane *f2);

    /* J = grad3 grad3^T with grad3 = (fx, fy, ft) the derivatives above of
     * the (presmoothed) frames f1, f2, in one pass: the derivatives are not
     * stored.  accumulate != 0 adds to J instead of overwriting it (colour:
     * the channels' tensors summed). */
    flow_status (*motion_products)(flow_backend *b, flow_tensor *J, const flow_plane *f1,
                                   const flow_plane *f2, int accumulate);

    /* Coarse-to-fine warping (libflow/pixel/warp.h): dst(x, y) = src(x + u,
     * y + v) by bilinear interpolation, clamped at the borders (dst must not
     * be src); J rewritten in place from the increment's tensor to the total
     * flow's around w; p *= factor. */
    flow_status (*warp)(flow_backend *b, flow_plane *dst, const flow_plane *src,
                        const flow_pair *w);
    flow_status (*tensor_shift)(flow_backend *b, flow_tensor *J, const flow_pair *w);
    flow_status (*scale)(flow_backend *b, flow_plane *p, float factor);

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

    /* ---- solver operations (libflow/pixel/variational.h, lk.h) ----------
     * All planes of one call have the size of the system's level (coarse:
     * of level d + 1).  f may be NULL unless s->flags has FLOW_SYS_RHS. */

    /* n Jacobi sweeps (eq. 2.50 with damping: x <- (1 - w) x + w D^-1 (f -
     * R x), Psi' lagged: taken from the sweep's input), alternating x -> t,
     * t -> x, ...: the result is in x when n is even, in t when it is odd. */
    flow_status (*jacobi)(flow_backend *b, const flow_system *s, flow_pair *x, flow_pair *t,
                          const flow_pair *f, float weight, int n);
    /* n red-black SOR sweeps in place (seed 004): each sweep updates the
     * pixels with (x + y) even, then the odd ones, u then v at each pixel.
     * A nonlinear system takes its diffusivities from a snapshot of x made
     * in t at the start of each sweep (t is unused for a linear one). */
    flow_status (*sor)(flow_backend *b, const flow_system *s, flow_pair *x, flow_pair *t,
                       const flow_pair *f, float omega, int n);
    /* r = f - N(x). */
    flow_status (*residual)(flow_backend *b, const flow_system *s, flow_pair *r,
                            const flow_pair *x, const flow_pair *f);
    /* out = N(x), or out += N(x) when accumulate != 0 (FAS right-hand side). */
    flow_status (*apply)(flow_backend *b, const flow_system *s, flow_pair *out,
                         const flow_pair *x, int accumulate);
    /* coarse = R fine (both components); also into copy unless it is NULL. */
    flow_status (*restrict_pair)(flow_backend *b, flow_pair *coarse, flow_pair *copy,
                                 const flow_pair *fine);
    /* fine = P (coarse - ref), or fine += ... when accumulate != 0; ref may be
     * NULL (0): the coarse-grid correction x += P e, and FMG's x = P x2. */
    flow_status (*prolong_pair)(flow_backend *b, flow_pair *fine, const flow_pair *coarse,
                                const flow_pair *ref, int accumulate);
    /* The components J11, J12, J13, J22, J23 (and J33 when with_j33) of the
     * coarse tensor by full-weighting restriction of the fine one (eq. 2.58). */
    flow_status (*restrict_tensor)(flow_backend *b, flow_tensor *coarse, const flow_tensor *fine,
                                   int with_j33);
    /* Lucas-Kanade: x = -J^-1 (J13, J23) per pixel where the smaller
     * eigenvalue of the 2x2 tensor is >= tau (and the system is regular);
     * elsewhere FLOW_UNKNOWN, or with fill != 0 the normal flow along the
     * dominant eigenvector (rank 1) or 0 (rank 0). */
    flow_status (*lk)(flow_backend *b, const flow_tensor *J, flow_pair *x, float tau, int fill);
    /* *sum = sum of the squares of p's values (accumulated in double).  Waits
     * for the device: for traces and tests, never inside a timed solve. */
    flow_status (*sum_squares)(flow_backend *b, const flow_plane *p, double *sum);

    /* ---- graph capture (NULL where unsupported: the CPU backend) --------
     * capture_begin starts recording the operations queued on the backend
     * instead of running them (only asynchronous ones: no download,
     * synchronize or sum_squares until capture_end); capture_end stops and
     * makes *graph (NULL, with a status, when the capture failed: then
     * nothing recorded has run); graph_launch replays it, reading and
     * writing the very planes the recorded operations named. */
    flow_status (*capture_begin)(flow_backend *b);
    flow_status (*capture_end)(flow_backend *b, void **graph);
    flow_status (*graph_launch)(flow_backend *b, void *graph);
    void (*graph_destroy)(flow_backend *b, void *graph);
    /* ---- page-locked host memory (NULL where transfers need none: CPU) --
     * host_register page-locks [p, p + bytes) so that uploads from it and
     * downloads into it go by DMA without a staging copy; host_unregister
     * undoes it (before the memory is freed). */
    flow_status (*host_register)(flow_backend *b, void *p, size_t bytes);
    void (*host_unregister)(flow_backend *b, void *p);
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

/* Page-locks host memory that is transferred every frame (an output flow
 * field, say): on CUDA the transfers then run at the bus's speed instead of
 * through a staging copy.  A no-op on the CPU backend.  Unpin before freeing
 * the memory; unpinning memory never pinned is harmless. */
flow_status flow_backend_pin(flow_backend *b, void *p, size_t bytes);
void flow_backend_unpin(flow_backend *b, void *p);

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
