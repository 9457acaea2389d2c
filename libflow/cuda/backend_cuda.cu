/* backend_cuda.cu -- the CUDA backend: device selection, pitched memory,
 * transfers, and the operations table.  The stencil kernels are in
 * stencil.cu; everything runs in order on one stream. */
#include "common.cuh"
#include "ops.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" const int flow_cuda_built = 1;

static flow_status cuda_open(flow_backend *b, int device)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0)
        return flow_fail(FLOW_ERR_NO_DEVICE, "no usable CUDA device (%s)",
                         e != cudaSuccess ? cudaGetErrorString(e) : "none found");
    if (device >= count)
        return flow_fail(FLOW_ERR_NO_DEVICE, "CUDA device %d requested, %d present", device,
                         count);
    flow_cuda *c = (flow_cuda *)calloc(1, sizeof *c);
    if (!c)
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate the CUDA backend state");
    flow_status s = flow_cuda_check(cudaSetDevice(device), "cudaSetDevice");
    if (s == FLOW_OK)
        s = flow_cuda_check(cudaGetDeviceProperties(&c->prop, device), "cudaGetDeviceProperties");
    if (s == FLOW_OK)
        s = flow_cuda_check(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking),
                            "cudaStreamCreate");
    if (s == FLOW_OK)
        s = flow_cuda_check(cudaMalloc((void **)&c->scratch, sizeof(double)), "cudaMalloc");
    if (s != FLOW_OK) {
        if (c->stream)
            cudaStreamDestroy(c->stream);
        free(c);
        return s;
    }
    c->device = device;
    b->impl = c;
    snprintf(b->device_name, sizeof b->device_name, "%s (cuda:%d, sm_%d%d)", c->prop.name,
             device, c->prop.major, c->prop.minor);
    return FLOW_OK;
}

static void cuda_close(flow_backend *b)
{
    flow_cuda *c = cuda_of(b);
    if (!c)
        return;
    cudaStreamSynchronize(c->stream);
    cudaStreamDestroy(c->stream);
    cudaFree(c->scratch);
    free(c);
    b->impl = NULL;
}

static flow_status cuda_plane_alloc(flow_backend *b, flow_plane *p, int width, int height)
{
    (void)b;
    memset(p, 0, sizeof *p);
    if (width <= 0 || height <= 0)
        return flow_fail(FLOW_ERR_INVALID, "plane size %dx%d is not positive", width, height);
    size_t pitch_bytes = 0;
    void *ptr = NULL;
    FLOW_TRY(flow_cuda_check(cudaMallocPitch(&ptr, &pitch_bytes, (size_t)width * sizeof(float),
                                             (size_t)height),
                             "cudaMallocPitch"));
    p->data = (float *)ptr;
    p->width = width;
    p->height = height;
    p->pitch = (int)(pitch_bytes / sizeof(float));
    return FLOW_OK;
}

static void cuda_plane_free(flow_backend *b, flow_plane *p)
{
    (void)b;
    if (p->data)
        cudaFree(p->data);
    memset(p, 0, sizeof *p);
}

static flow_status cuda_upload(flow_backend *b, flow_plane *dst, const float *src,
                               size_t src_stride)
{
    return flow_cuda_check(cudaMemcpy2DAsync(dst->data, (size_t)dst->pitch * sizeof(float), src,
                                             src_stride * sizeof(float),
                                             (size_t)dst->width * sizeof(float),
                                             (size_t)dst->height, cudaMemcpyHostToDevice,
                                             cuda_of(b)->stream),
                           "upload");
}

static flow_status cuda_download(flow_backend *b, float *dst, size_t dst_stride,
                                 const flow_plane *src)
{
    cudaStream_t s = cuda_of(b)->stream;
    FLOW_TRY(flow_cuda_check(cudaMemcpy2DAsync(dst, dst_stride * sizeof(float), src->data,
                                               (size_t)src->pitch * sizeof(float),
                                               (size_t)src->width * sizeof(float),
                                               (size_t)src->height, cudaMemcpyDeviceToHost, s),
                             "download"));
    return flow_cuda_check(cudaStreamSynchronize(s), "download");
}

static flow_status cuda_host_register(flow_backend *b, void *p, size_t bytes)
{
    (void)b;
    return flow_cuda_check(cudaHostRegister(p, bytes, cudaHostRegisterDefault),
                           "cudaHostRegister");
}

static void cuda_host_unregister(flow_backend *b, void *p)
{
    (void)b;
    /* only what is registered: unregistering other memory is an API error
     * (harmless, but it would be reported by compute-sanitizer) */
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) == cudaSuccess && a.type == cudaMemoryTypeHost)
        cudaHostUnregister(p);
}

static flow_status cuda_synchronize(flow_backend *b)
{
    return flow_cuda_check(cudaStreamSynchronize(cuda_of(b)->stream), "synchronize");
}

static flow_status cuda_event_create(flow_backend *b, void **event)
{
    (void)b;
    cudaEvent_t e;
    FLOW_TRY(flow_cuda_check(cudaEventCreate(&e), "cudaEventCreate"));
    *event = (void *)e;
    return FLOW_OK;
}

static void cuda_event_destroy(flow_backend *b, void *event)
{
    (void)b;
    if (event)
        cudaEventDestroy((cudaEvent_t)event);
}

static flow_status cuda_event_record(flow_backend *b, void *event)
{
    return flow_cuda_check(cudaEventRecord((cudaEvent_t)event, cuda_of(b)->stream),
                           "cudaEventRecord");
}

static flow_status cuda_event_elapsed(flow_backend *b, void *start, void *end, float *ms)
{
    (void)b;
    FLOW_TRY(flow_cuda_check(cudaEventSynchronize((cudaEvent_t)end), "cudaEventSynchronize"));
    return flow_cuda_check(cudaEventElapsedTime(ms, (cudaEvent_t)start, (cudaEvent_t)end),
                           "cudaEventElapsedTime");
}

extern "C" const flow_backend_ops flow_cuda_ops = {
    .name = "cuda",
    .open = cuda_open,
    .close = cuda_close,
    .plane_alloc = cuda_plane_alloc,
    .plane_free = cuda_plane_free,
    .upload = cuda_upload,
    .download = cuda_download,
    .fill = cuda_fill,
    .copy = cuda_copy,
    .convolve_rows = cuda_convolve_rows,
    .convolve_cols = cuda_convolve_cols,
    .derivatives = cuda_derivatives,
    .motion_products = cuda_motion_products,
    .warp = cuda_warp,
    .tensor_shift = cuda_tensor_shift,
    .scale = cuda_scale,
    .restriction = cuda_restriction,
    .prolongation = cuda_prolongation,
    .synchronize = cuda_synchronize,
    .event_create = cuda_event_create,
    .event_destroy = cuda_event_destroy,
    .event_record = cuda_event_record,
    .event_elapsed = cuda_event_elapsed,
    .jacobi = cuda_jacobi,
    .sor = cuda_sor,
    .residual = cuda_residual,
    .apply = cuda_apply,
    .restrict_pair = cuda_restrict_pair,
    .prolong_pair = cuda_prolong_pair,
    .restrict_tensor = cuda_restrict_tensor,
    .lk = cuda_lk,
    .sum_squares = cuda_sum_squares,
    .capture_begin = cuda_capture_begin,
    .capture_end = cuda_capture_end,
    .graph_launch = cuda_graph_launch,
    .graph_destroy = cuda_graph_destroy,
    .host_register = cuda_host_register,
    .host_unregister = cuda_host_unregister,
};
