/* device.h -- the private device layer: the table of operations each device
 * fills (device/cpu/, device/cuda/; a build without nvcc links
 * device/nocuda/), the device object behind the public flow_device, and
 * the calls the core makes.
 *
 * The algorithms above the pixel (the motion tensor, the solvers, multigrid,
 * the coarse-to-fine pyramid) are written once in host C against this
 * table.  Its per-pixel operations come from libflow/kernels/list.h; the
 * rest is memory, transfers, timing, graphs and the operations that are not
 * one function per point (two reductions and a sort), and the optional
 * fused solver operations (core/fused.h).  docs/ARCHITECTURE.md lists what
 * a backend must fill and what it may leave NULL.
 * Operations are called through a handle that names a queue: a device
 * opened by name (flow_device_open) has a queue of its own, and
 * flow_queue_open makes another handle onto the same device with a new
 * queue.  The handles of a device share its memory and capabilities; each
 * queue runs its operations in order (on CUDA its own streams), and two
 * queues run at the same time.  download(), synchronize() and
 * sum_squares() wait.  Operations trust their arguments: the core checks
 * what users can get wrong before calling.  Every CUDA operation first
 * makes its own GPU current. */
#ifndef FLOW_DEVICE_DEVICE_H
#define FLOW_DEVICE_DEVICE_H

#include "base/types.h"
#include "flow/device.h"
#include "kernels/list.h"
#include "pixel/coarse.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Where an operation is queued: the computing lane (every operation but
 * the overlapped transfers) or the transfer lanes. */
typedef enum flow_lane { FLOW_LANE_COMPUTE, FLOW_LANE_UPLOAD, FLOW_LANE_DOWNLOAD } flow_lane;

typedef struct flow_device_ops {
    const char *kind; /* "cpu" or "cuda" */

    /* Opens GPU number `index` (ignored by the CPU), filling d->impl and
     * d->name; FLOW_ERR_NO_DEVICE when it is unusable. */
    flow_status (*open)(flow_device *d, int index);
    void (*close)(flow_device *d);
    /* Fills q->impl with a queue of its own on the device q->owner (q's
     * other fields are the owner's); queue_close waits for the queue's work
     * and frees it. */
    flow_status (*queue_open)(flow_device *q);
    void (*queue_close)(flow_device *q);
    /* How many GPUs open() may be given (NULL: one device, the CPU's). */
    int (*count)(void);

    /* Memory.  plane_alloc leaves the contents undefined; plane_free accepts
     * a plane that was never allocated (data == NULL). */
    flow_status (*plane_alloc)(flow_device *d, flow_plane *p, int width, int height);
    void (*plane_free)(flow_device *d, flow_plane *p);
    flow_status (*upload)(flow_device *d, flow_plane *dst, const float *src, size_t src_stride);
    flow_status (*download)(flow_device *d, float *dst, size_t dst_stride, const flow_plane *src);
    flow_status (*copy)(flow_device *d, flow_plane *dst, const flow_plane *src);
    /* Waits for the queue's work; on a device opened by name, for the work
     * of every queue made from it too. */
    flow_status (*synchronize)(flow_device *d);

    /* The overlapped transfers of a sequence (flow_context_submit).  Besides
     * the computing lane where everything above runs, a device has an upload
     * and a download lane (CUDA: a stream each), so that the next frame's
     * upload and the last flow's download run while the GPU computes; an
     * event recorded on one lane and waited for on another orders them.
     * buffer_alloc gives raw device memory (a frame's 8-bit samples);
     * upload_bytes, upload_async and download_async are queued on the lane
     * named (a timed computation keeps them on the computing lane, where
     * its events see them) and return at once from page-locked host memory
     * (the CPU does them on the spot). */
    flow_status (*buffer_alloc)(flow_device *d, void **p, size_t bytes);
    void (*buffer_free)(flow_device *d, void *p);
    flow_status (*upload_bytes)(flow_device *d, flow_lane lane, void *dst, const void *src,
                                size_t bytes);
    flow_status (*upload_async)(flow_device *d, flow_lane lane, flow_plane *dst,
                                const float *src, size_t src_stride);
    flow_status (*download_async)(flow_device *d, flow_lane lane, float *dst,
                                  size_t dst_stride, const flow_plane *src);
    /* event on `lane` after what is queued there; `lane` waits for event
     * before what is queued next; the host waits for event. */
    flow_status (*lane_record)(flow_device *d, flow_lane lane, void *event);
    flow_status (*lane_wait)(flow_device *d, flow_lane lane, void *event);
    flow_status (*event_wait)(flow_device *d, void *event);

    /* Timing markers (the public flow_event wraps them).  event_record on
     * a device opened by name marks the end of the work queued so far on
     * every queue of the device; on a queue, of that queue's. */
    flow_status (*event_create)(flow_device *d, void **event);
    void (*event_destroy)(flow_device *d, void *event);
    flow_status (*event_record)(flow_device *d, void *event);
    flow_status (*event_elapsed)(flow_device *d, void *start, void *end, float *ms);

    /* Graph capture (NULL where unsupported: the CPU).  capture_begin starts
     * recording the queued operations instead of running them (only
     * asynchronous ones until capture_end); capture_end makes *graph (NULL,
     * with a status, when the capture failed: then nothing recorded has
     * run); graph_launch replays it on the very planes the operations
     * named. */
    flow_status (*capture_begin)(flow_device *d);
    flow_status (*capture_end)(flow_device *d, void **graph);
    flow_status (*graph_launch)(flow_device *d, void *graph);
    void (*graph_destroy)(flow_device *d, void *graph);

    /* Page-locked host memory (NULL where transfers need none: the CPU). */
    flow_status (*host_register)(flow_device *d, void *p, size_t bytes);
    void (*host_unregister)(flow_device *d, void *p);

    /* ---- optional: memory of the caller's on the GPU (NULL: none, the
     * CPU; flow_device_alloc, flow_context_submit_device) ----
     * *gpu = the index of the GPU whose memory holds p, -1 for host memory;
     * FLOW_ERR_INVALID for an address the runtime cannot place. */
    flow_status (*pointer_gpu)(flow_device *d, const void *p, int *gpu);
    /* The computing lane waits for the work queued so far on a stream of
     * the caller's (a cudaStream_t as an integer; 1 and 2 are CUDA's legacy
     * and per-thread default streams). */
    flow_status (*stream_wait)(flow_device *d, uintptr_t stream);

    /* ---- optional: the fused solver operations (NULL: not provided) ----
     * Each stands for a sequence of the per-pixel operations below and must
     * give their values bit for bit; core/fused.c runs that sequence where
     * an entry is NULL (the CPU provides none).  A backend fills them only
     * where one call is faster than the launches it saves. */
    /* Every sweep of a smoother on a grid of at most FLOW_SMALL_GRID pixels
     * (flow_jacobi_small or flow_sor_small of libflow/pixel/variational.h) in one call. */
    flow_status (*smooth_small)(flow_device *d, const flow_smooth_small_args *a);
    /* n red-black SOR sweeps (flow_sor_sweeps_args of
     * libflow/pixel/variational.h) and n damped Jacobi sweeps
     * (flow_jacobi_sweeps_args) on a grid of any size, in passes from one of
     * x and t into the other, their number into *passes (0: in place on
     * x): the result in x, in t after an odd number of passes with odd_in_t
     * set. */
    flow_status (*sor_sweeps)(flow_device *d, const flow_sor_sweeps_args *a, int *passes);
    flow_status (*jacobi_sweeps)(flow_device *d, const flow_jacobi_sweeps_args *a, int *passes);
    /* A whole multigrid cycle from a level of at most FLOW_SMALL_GRID pixels
     * down to the coarsest (flow_small_cycle of libflow/pixel/coarse.h) in one call. */
    flow_status (*small_cycle)(flow_device *d, const flow_small_cycle_args *a);
    /* The restrictions of a hierarchy's coefficients onto its small levels
     * (flow_restrict_small of libflow/pixel/coarse.h) in one call. */
    flow_status (*restrict_small)(flow_device *d, const flow_restrict_small_args *a);

    /* *sum = the sum of the squares of p's values, accumulated in double.
     * Waits for the device: for traces and tests, never inside a timed
     * solve. */
    flow_status (*sum_squares)(flow_device *d, const flow_plane *p, double *sum);
    /* dst(0, 0) = the largest value of src, or 0 when none is positive (NaN
     * counts as 0).  Queued like the per-pixel operations. */
    flow_status (*plane_max)(flow_device *d, const flow_plane *src, flow_plane *dst);
    /* dst(0, 0) = the sum of src's values, accumulated in double in an order
     * that depends only on the plane's size (the same from run to run),
     * rounded to float.  Queued like the per-pixel operations. */
    flow_status (*plane_sum)(flow_device *d, const flow_plane *src, flow_plane *dst);
    /* The n = keys->width values of the one-row plane keys sorted largest
     * first, equal ones in index order, into skeys, and their indices into
     * sidx (exact in floats: n <= FLOW_SORT_MAX).  Queued. */
    flow_status (*sort_desc)(flow_device *d, const flow_plane *keys, flow_plane *skeys,
                             flow_plane *sidx);

    /* The per-pixel operations of libflow/kernels/list.h. */
#define FLOW_KERNEL_ENTRY(stem, A, W, H, G, C) flow_status (*stem)(flow_device * d, const A *a);
    FLOW_KERNELS(FLOW_KERNEL_ENTRY)
#undef FLOW_KERNEL_ENTRY
} flow_device_ops;

/* A device opened by name, or a queue made from one (owner set). */
struct flow_device {
    const flow_device_ops *ops;
    void *impl;          /* the handle's own state: its queue, the device's capabilities */
    flow_device *owner;  /* a queue: the device it was made from; NULL on a device */
    int index;           /* N of cuda:N (0 on the CPU) */
    char name[128];    /* "CPU (16 threads)", "NVIDIA H100 80GB HBM3 (cuda:0, sm_90)" */
    char notice[256];  /* set when "auto" fell back to the CPU */
};

/* A queue of its own on device d (a device opened by name, or a queue of
 * one: then its device): a handle that shares d's memory, operations and
 * names, on which work runs in order and alongside the work of d's other
 * queues.  What one queue computes into a plane another may read only
 * after synchronising.  Close it before its device. */
flow_status flow_queue_open(flow_device *d, flow_device **q);
void flow_queue_close(flow_device *q);

/* The most values sort_desc orders: indices stay exact in a float. */
#define FLOW_SORT_MAX (1L << 24)

/* The devices' plane_alloc: FLOW_OK when a width x height plane with rows
 * of `pitch` floats may exist (positive sides, at most FLOW_PLANE_MAX
 * elements), else FLOW_ERR_INVALID naming the size. */
flow_status flow_plane_size_check(int width, int height, long pitch);

/* ---- the calls of the core ---------------------------------------------- */

static inline flow_status flow_plane_alloc(flow_device *d, flow_plane *p, int width, int height)
{
    return d->ops->plane_alloc(d, p, width, height);
}
static inline void flow_plane_free(flow_device *d, flow_plane *p)
{
    d->ops->plane_free(d, p);
}
static inline flow_status flow_upload(flow_device *d, flow_plane *dst, const float *src,
                                      size_t src_stride)
{
    return d->ops->upload(d, dst, src, src_stride);
}
static inline flow_status flow_download(flow_device *d, float *dst, size_t dst_stride,
                                        const flow_plane *src)
{
    return d->ops->download(d, dst, dst_stride, src);
}
static inline flow_status flow_copy(flow_device *d, flow_plane *dst, const flow_plane *src)
{
    return d->ops->copy(d, dst, src);
}
static inline flow_status flow_sum_squares(flow_device *d, const flow_plane *p, double *sum)
{
    return d->ops->sum_squares(d, p, sum);
}
static inline flow_status flow_plane_max(flow_device *d, const flow_plane *src, flow_plane *dst)
{
    return d->ops->plane_max(d, src, dst);
}
static inline flow_status flow_plane_sum(flow_device *d, const flow_plane *src, flow_plane *dst)
{
    return d->ops->plane_sum(d, src, dst);
}
static inline flow_status flow_sort_desc(flow_device *d, const flow_plane *keys, flow_plane *skeys,
                                         flow_plane *sidx)
{
    return d->ops->sort_desc(d, keys, skeys, sidx);
}
/* flow_k_<stem>(d, &args): the operation <stem> of the list on device d. */
#define FLOW_KERNEL_CALL(stem, A, W, H, G, C)                                                       \
    static inline flow_status flow_k_##stem(flow_device *d, const A *a)                          \
    {                                                                                            \
        return d->ops->stem(d, a);                                                               \
    }
FLOW_KERNELS(FLOW_KERNEL_CALL)
#undef FLOW_KERNEL_CALL

#ifdef __cplusplus
}
#endif
#endif
