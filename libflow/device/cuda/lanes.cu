/* lanes.cu -- the overlapped transfers of a sequence: an upload and a
 * download stream beside the computing one, ordered against it by events
 * (device.h).  Copies from and to page-locked memory return at once; from
 * pageable memory the runtime stages them and the call returns when the
 * host side is done.  Also the caller's side of frames that stay on the
 * GPU: where an address lies, and a wait for a stream of the caller's. */
#include "common.cuh"

flow_status cuda_lanes_open(flow_cuda *c)
{
    c->lane[FLOW_LANE_COMPUTE] = c->stream;
    for (int l = FLOW_LANE_UPLOAD; l <= FLOW_LANE_DOWNLOAD; l++)
        FLOW_TRY(flow_cuda_check(cudaStreamCreateWithFlags(&c->lane[l], cudaStreamNonBlocking),
                                 "cudaStreamCreate"));
    return FLOW_OK;
}

void cuda_lanes_close(flow_cuda *c)
{
    for (int l = FLOW_LANE_UPLOAD; l <= FLOW_LANE_DOWNLOAD; l++)
        if (c->lane[l]) {
            cudaStreamSynchronize(c->lane[l]);
            cudaStreamDestroy(c->lane[l]);
            c->lane[l] = NULL;
        }
}

flow_status cuda_buffer_alloc(flow_device *d, void **p, size_t bytes)
{
    *p = NULL;
    FLOW_TRY(cuda_enter(d));
    return flow_cuda_alloc_check(d, cudaMalloc(p, bytes ? bytes : 1), bytes, "a device buffer");
}

void cuda_buffer_free(flow_device *d, void *p)
{
    if (p && cuda_enter(d) == FLOW_OK)
        cudaFree(p);
}

flow_status cuda_upload_bytes(flow_device *d, flow_lane lane, void *dst, const void *src,
                              size_t bytes)
{
    FLOW_TRY(cuda_enter(d));
    return flow_cuda_check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice,
                                           cuda_lane(d, lane)),
                           "upload");
}

flow_status cuda_upload_async(flow_device *d, flow_lane lane, flow_plane *dst, const float *src,
                              size_t src_stride)
{
    FLOW_TRY(cuda_enter(d));
    return flow_cuda_check(cudaMemcpy2DAsync(dst->data, (size_t)dst->pitch * sizeof(float), src,
                                             src_stride * sizeof(float),
                                             (size_t)dst->width * sizeof(float),
                                             (size_t)dst->height, cudaMemcpyHostToDevice,
                                             cuda_lane(d, lane)),
                           "upload");
}

flow_status cuda_download_async(flow_device *d, flow_lane lane, float *dst, size_t dst_stride,
                                const flow_plane *src)
{
    FLOW_TRY(cuda_enter(d));
    return flow_cuda_check(cudaMemcpy2DAsync(dst, dst_stride * sizeof(float), src->data,
                                             (size_t)src->pitch * sizeof(float),
                                             (size_t)src->width * sizeof(float),
                                             (size_t)src->height, cudaMemcpyDeviceToHost,
                                             cuda_lane(d, lane)),
                           "download");
}

flow_status cuda_lane_record(flow_device *d, flow_lane lane, void *event)
{
    FLOW_TRY(cuda_enter(d));
    return flow_cuda_check(cudaEventRecord((cudaEvent_t)event, cuda_lane(d, lane)),
                           "cudaEventRecord");
}

flow_status cuda_lane_wait(flow_device *d, flow_lane lane, void *event)
{
    FLOW_TRY(cuda_enter(d));
    return flow_cuda_check(cudaStreamWaitEvent(cuda_lane(d, lane), (cudaEvent_t)event, 0),
                           "cudaStreamWaitEvent");
}

flow_status cuda_event_wait(flow_device *d, void *event)
{
    FLOW_TRY(cuda_enter(d));
    return flow_cuda_check(cudaEventSynchronize((cudaEvent_t)event), "cudaEventSynchronize");
}

flow_status cuda_pointer_gpu(flow_device *d, const void *p, int *gpu)
{
    FLOW_TRY(cuda_enter(d));
    cudaPointerAttributes a;
    const cudaError_t e = cudaPointerGetAttributes(&a, p);
    if (e != cudaSuccess) {
        cudaGetLastError(); /* not sticky, but do not let a later check report it again */
        return flow_fail(FLOW_ERR_INVALID, "address %p is unknown to CUDA (%s)", p,
                         cudaGetErrorString(e));
    }
    *gpu = a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged ? a.device : -1;
    return FLOW_OK;
}

/* An event of its own each time: recorded on the caller's stream, waited
 * for on the computing lane, released once that wait is queued (CUDA keeps
 * it until the wait is done). */
flow_status cuda_stream_wait(flow_device *d, uintptr_t stream)
{
    FLOW_TRY(cuda_enter(d));
    cudaEvent_t e;
    FLOW_TRY(flow_cuda_check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming),
                             "cudaEventCreate"));
    flow_status s = flow_cuda_check(cudaEventRecord(e, (cudaStream_t)stream),
                                    "the caller's stream (cudaEventRecord)");
    if (s == FLOW_OK)
        s = flow_cuda_check(cudaStreamWaitEvent(cuda_stream(d), e, 0), "cudaStreamWaitEvent");
    cudaEventDestroy(e);
    return s;
}
