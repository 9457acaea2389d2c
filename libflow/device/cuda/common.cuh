/* common.cuh -- what every file of the CUDA device shares: its state, the
 * guard that makes its GPU current, the launch geometry, the error checks
 * and the declarations of its operations. */
#ifndef FLOW_CUDA_COMMON_CUH
#define FLOW_CUDA_COMMON_CUH

#include "device/device.h"
#include "base/fail.h"

#include <cuda_runtime.h>
#include <pthread.h>

/* The state of a handle (device.h): a queue, with what every operation
 * reads of the device.  A device opened by name holds the first queue and
 * the list of the queues made from it. */
struct flow_cuda {
    cudaStream_t stream;        /* the computing lane */
    cudaStream_t lane[3];       /* by flow_lane: the computing lane, upload, download */
    cudaDeviceProp prop;        /* the device's (a copy in each queue) */
    double *scratch; /* one device double for reductions (sum_squares) */
    double *partial; /* plane_sum's block sums, then its count of finished blocks */
    void *sort_tmp;  /* sort_desc's scratch (points.cu), for up to sort_n values */
    size_t sort_tmp_bytes;
    float *sort_iota; /* 0, 1, ..., sort_n - 1 */
    int sort_n;
    /* queues.cu: the device's state (itself on a device), whether this
     * queue is recording a graph, the event by which a device-wide marker
     * or synchronisation joins it; on a device, the queues made from it
     * (linked by next) under lock, which also covers `capturing`, `stream`
     * and `lent` */
    flow_cuda *device;
    int capturing;
    cudaStream_t own; /* the stream it made: where it records graphs */
    flow_cuda *lent;  /* on a device: the queue that computes on its stream */
    cudaEvent_t mark;
    flow_cuda *queues, *next;
    pthread_mutex_t lock;
};

/* plane_sum's grid: a fixed number of blocks, so that each thread's share
 * of the values, and the order of the sums, depends only on the plane. */
#define FLOW_SUM_BLOCKS 128
#define FLOW_SUM_THREADS 256

static inline flow_cuda *cuda_of(flow_device *d)
{
    return (flow_cuda *)d->impl;
}

static inline cudaStream_t cuda_stream(flow_device *d)
{
    return cuda_of(d)->stream;
}

static inline cudaStream_t cuda_lane(flow_device *d, flow_lane lane)
{
    return cuda_of(d)->lane[lane];
}

/* Turns a CUDA error into a status with the call site in the detail. */
static inline flow_status flow_cuda_check(cudaError_t e, const char *what)
{
    if (e == cudaSuccess)
        return FLOW_OK;
    if (e == cudaErrorMemoryAllocation)
        return flow_fail(FLOW_ERR_NOMEM, "%s: %s", what, cudaGetErrorString(e));
    return flow_fail(FLOW_ERR_DEVICE, "%s: %s", what, cudaGetErrorString(e));
}

/* The result of a device allocation of `bytes` for `what`: out of memory is
 * reported with the device's name, the size asked for and what was free,
 * so that the message says why and where. */
static inline flow_status flow_cuda_alloc_check(flow_device *d, cudaError_t e, size_t bytes,
                                                const char *what)
{
    if (e != cudaErrorMemoryAllocation)
        return flow_cuda_check(e, what);
    cudaGetLastError(); /* not sticky, but do not let a later check report it again */
    size_t free_bytes = 0, total_bytes = 0;
    cudaMemGetInfo(&free_bytes, &total_bytes);
    const double mib = 1024.0 * 1024.0;
    return flow_fail(FLOW_ERR_NOMEM,
                     "out of device memory on %s: %s needs %.1f MiB, %.1f MiB free of %.1f MiB",
                     d->name, what, bytes / mib, free_bytes / mib, total_bytes / mib);
}

/* The device guard: every operation of the CUDA device starts here, so that
 * the allocations, transfers and launches of a device on cuda:1 go to that
 * GPU even from a thread that last worked on cuda:0.  Reading the current
 * device is a thread-local lookup; it is switched only when it differs. */
static inline flow_status cuda_enter(flow_device *d)
{
    int current = -1;
    if (cudaGetDevice(&current) == cudaSuccess && current == d->index)
        return FLOW_OK;
    return flow_cuda_check(cudaSetDevice(d->index), "cudaSetDevice");
}

/* 32x8 threads per block (a warp along x for coalesced rows), a grid that
 * covers width x height by round-up division. */
static const dim3 flow_block(32, 8);
static inline dim3 flow_grid(int width, int height)
{
    return dim3((unsigned)(width + 31) / 32, (unsigned)(height + 7) / 8);
}

/* Checks the launch just made (configuration errors surface here; faults in
 * the kernel surface at the next synchronising call). */
#define FLOW_CUDA_LAUNCHED(name) flow_cuda_check(cudaGetLastError(), name)

/* ---- the operations, by file -------------------------------------------- */

/* kernels.cu: the list of libflow/kernels/list.h, the small-grid smoother
 * and the sum of squares. */
#define FLOW_CUDA_DECLARE(stem, A, W, H, G, C) flow_status cuda_##stem(flow_device *d, const A *a);
FLOW_KERNELS(FLOW_CUDA_DECLARE)
#undef FLOW_CUDA_DECLARE
flow_status cuda_smooth_small(flow_device *d, const flow_smooth_small_args *a);
flow_status cuda_small_cycle(flow_device *d, const flow_small_cycle_args *a);
flow_status cuda_restrict_small(flow_device *d, const flow_restrict_small_args *a);
flow_status cuda_sum_squares(flow_device *d, const flow_plane *p, double *sum);

/* sweeps.cu: red-black SOR, a sweep per launch on tiles */
flow_status cuda_sor_sweeps(flow_device *d, const flow_sor_sweeps_args *a, int *passes);

/* jacobi.cu: Jacobi sweeps, two per launch on tiles where that is faster */
flow_status cuda_jacobi_sweeps(flow_device *d, const flow_jacobi_sweeps_args *a, int *passes);

/* lanes.cu: the overlapped transfers of a sequence */
flow_status cuda_lanes_open(flow_cuda *c);
void cuda_lanes_close(flow_cuda *c);
flow_status cuda_buffer_alloc(flow_device *d, void **p, size_t bytes);
void cuda_buffer_free(flow_device *d, void *p);
flow_status cuda_upload_bytes(flow_device *d, flow_lane lane, void *dst, const void *src,
                              size_t bytes);
flow_status cuda_upload_async(flow_device *d, flow_lane lane, flow_plane *dst, const float *src,
                              size_t src_stride);
flow_status cuda_download_async(flow_device *d, flow_lane lane, float *dst, size_t dst_stride,
                                const flow_plane *src);
flow_status cuda_lane_record(flow_device *d, flow_lane lane, void *event);
flow_status cuda_lane_wait(flow_device *d, flow_lane lane, void *event);
flow_status cuda_event_wait(flow_device *d, void *event);
/* the caller's GPU memory and streams (flow_device_alloc, submit_device) */
flow_status cuda_pointer_gpu(flow_device *d, const void *p, int *gpu);
flow_status cuda_stream_wait(flow_device *d, uintptr_t stream);

/* points.cu: KLT tracking's launcher is in the list above */
flow_status cuda_plane_max(flow_device *d, const flow_plane *src, flow_plane *dst);
flow_status cuda_plane_sum(flow_device *d, const flow_plane *src, flow_plane *dst);
flow_status cuda_sort_desc(flow_device *d, const flow_plane *keys, flow_plane *skeys,
                           flow_plane *sidx);

/* queues.cu: a queue's streams and scratch, the queues of a device */
flow_status cuda_queue_init(flow_cuda *c, cudaStream_t stream);
void cuda_queue_free(flow_cuda *c);
flow_status cuda_queue_open(flow_device *q);
void cuda_queue_close(flow_device *q);
flow_status cuda_join_queues(flow_device *d);
flow_status cuda_sync_queues(flow_device *d);

/* graph.cu */
flow_status cuda_capture_begin(flow_device *d);
flow_status cuda_capture_end(flow_device *d, void **graph);
flow_status cuda_graph_launch(flow_device *d, void *graph);
void cuda_graph_destroy(flow_device *d, void *graph);

#endif
