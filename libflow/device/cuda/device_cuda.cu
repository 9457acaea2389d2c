/* device_cuda.cu -- the CUDA device: GPU selection, pitched memory,
 * transfers, timing events, page-locked host memory, and its operations
 * table.  The operations are in kernels.cu and tiles.cu, the graphs in
 * graph.cu, the queues in queues.cu; a queue's operations run in order on
 * its own stream. */
#include "common.cuh"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Why no device can be used, in the words of someone who may not know what
 * a CUDA runtime is: the runtime says "driver version is insufficient" both
 * when the driver is too old and when there is none (no GPU, or no NVIDIA
 * driver installed); the driver's library tells the two apart. */
static flow_status no_device(cudaError_t e)
{
    if (e == cudaSuccess || e == cudaErrorNoDevice)
        return flow_fail(FLOW_ERR_NO_DEVICE, "no CUDA device found");
    if (e == cudaErrorInsufficientDriver) {
        void *driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
        if (!driver)
            driver = dlopen("libcuda.so.1", RTLD_LAZY);
        if (!driver)
            return flow_fail(FLOW_ERR_NO_DEVICE, "no CUDA device found (no NVIDIA driver)");
        dlclose(driver);
        return flow_fail(FLOW_ERR_NO_DEVICE,
                         "no usable CUDA device: the NVIDIA driver is older than CUDA %d.%d, "
                         "which this build needs",
                         CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
    }
    return flow_fail(FLOW_ERR_NO_DEVICE, "no usable CUDA device (%s)", cudaGetErrorString(e));
}

static int cuda_count(void)
{
    int count = 0;
    return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

static flow_status cuda_open(flow_device *d, int index)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0)
        return no_device(e);
    if (index >= count)
        return flow_fail(FLOW_ERR_NO_DEVICE, "CUDA device %d requested, %d present", index,
                         count);
    flow_cuda *c = (flow_cuda *)calloc(1, sizeof *c);
    if (!c)
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate the CUDA device state");
    c->device = c;
    pthread_mutex_init(&c->lock, NULL); /* with default attributes it does not fail */
    flow_status s = flow_cuda_check(cudaSetDevice(index), "cudaSetDevice");
    if (s == FLOW_OK)
        s = flow_cuda_check(cudaGetDeviceProperties(&c->prop, index), "cudaGetDeviceProperties");
    if (s == FLOW_OK)
        s = cuda_queue_init(c, NULL);
    if (s != FLOW_OK) {
        pthread_mutex_destroy(&c->lock);
        cuda_queue_free(c);
        return s;
    }
    d->impl = c;
    snprintf(d->name, sizeof d->name, "%s (cuda:%d, sm_%d%d)", c->prop.name, index,
             c->prop.major, c->prop.minor);
    return FLOW_OK;
}

static void cuda_close(flow_device *d)
{
    flow_cuda *c = cuda_of(d);
    if (!c || cuda_enter(d) != FLOW_OK)
        return;
    pthread_mutex_destroy(&c->lock);
    cuda_queue_free(c);
    d->impl = NULL;
}

static flow_status cuda_plane_alloc(flow_device *d, flow_plane *p, int width, int height)
{
    memset(p, 0, sizeof *p);
    FLOW_TRY(flow_plane_size_check(width, height, width)); /* before allocating */
    FLOW_TRY(cuda_enter(d));
    size_t pitch_bytes = 0;
    void *ptr = NULL;
    char what[64];
    snprintf(what, sizeof what, "a %dx%d plane", width, height);
    FLOW_TRY(flow_cuda_alloc_check(d, cudaMallocPitch(&ptr, &pitch_bytes,
                                                      (size_t)width * sizeof(float), (size_t)height),
                                   (size_t)width * height * sizeof(float), what));
    const flow_status padded =
        flow_plane_size_check(width, height, (long)(pitch_bytes / sizeof(float)));
    if (padded != FLOW_OK) {
        cudaFree(ptr);
        return padded;
    }
    p->data = (float *)ptr;
    p->width = width;
    p->height = height;
    p->pitch = (int)(pitch_bytes / sizeof(float));
    return FLOW_OK;
}

static void cuda_plane_free(flow_device *d, flow_plane *p)
{
    if (p->data && cuda_enter(d) == FLOW_OK)
        cudaFree(p->data);
    memset(p, 0, sizeof *p);
}

static flow_status cuda_upload(flow_device *d, flow_plane *dst, const float *src,
                               size_t src_stride)
{
    FLOW_TRY(cuda_enter(d));
    return flow_cuda_check(cudaMemcpy2DAsync(dst->data, (size_t)dst->pitch * sizeof(float), src,
                                             src_stride * sizeof(float),
                                             (size_t)dst->width * sizeof(float),
                                             (size_t)dst->height, cudaMemcpyHostToDevice,
                                             cuda_stream(d)),
                           "upload");
}

static flow_status cuda_download(flow_device *d, float *dst, size_t dst_stride,
                                 const flow_plane *src)
{
    FLOW_TRY(cuda_enter(d));
    cudaStream_t s = cuda_stream(d);
    FLOW_TRY(flow_cuda_check(cudaMemcpy2DAsync(dst, dst_stride * sizeof(float), src->data,
                                               (size_t)src->pitch * sizeof(float),
                                               (size_t)src->width * sizeof(float),
                                               (size_t)src->height, cudaMemcpyDeviceToHost, s),
                             "download"));
    return flow_cuda_check(cudaStreamSynchronize(s), "download");
}

/* Copies 4 consecutive floats per thread (rows are 512-byte aligned by
 * cudaMallocPitch, so the vector loads are aligned); the row tail goes
 * element by element. */
__global__ void copy_kernel(flow_plane dst, flow_plane src)
{
    const int x = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= dst.width || y >= dst.height)
        return;
    const float *s = &FLOW_PX(src, x, y);
    float *t = &FLOW_PX(dst, x, y);
    if (x + 3 < dst.width)
        *(float4 *)t = *(const float4 *)s;
    else
        for (int i = 0; x + i < dst.width; i++)
            t[i] = s[i];
}

static flow_status cuda_copy(flow_device *d, flow_plane *dst, const flow_plane *src)
{
    FLOW_TRY(cuda_enter(d));
    copy_kernel<<<flow_grid((dst->width + 3) / 4, dst->height), flow_block, 0,
                  cuda_stream(d)>>>(*dst, *src);
    return FLOW_CUDA_LAUNCHED("copy");
}

/* Portable: the frames and fields of a run over several GPUs are pinned
 * once, through the first device, and cross every GPU's bus. */
static flow_status cuda_host_register(flow_device *d, void *p, size_t bytes)
{
    FLOW_TRY(cuda_enter(d));
    return flow_cuda_check(cudaHostRegister(p, bytes, cudaHostRegisterPortable),
                           "cudaHostRegister");
}

static void cuda_host_unregister(flow_device *d, void *p)
{
    /* only what is registered: unregistering other memory is an API error
     * (harmless, but it would be reported by compute-sanitizer) */
    cudaPointerAttributes a;
    if (cuda_enter(d) == FLOW_OK && cudaPointerGetAttributes(&a, p) == cudaSuccess
        && a.type == cudaMemoryTypeHost)
        cudaHostUnregister(p);
}

static flow_status cuda_synchronize(flow_device *d)
{
    FLOW_TRY(cuda_enter(d));
    FLOW_TRY(cuda_sync_queues(d));
    return flow_cuda_check(cudaStreamSynchronize(cuda_stream(d)), "synchronize");
}

static flow_status cuda_event_create(flow_device *d, void **event)
{
    FLOW_TRY(cuda_enter(d));
    cudaEvent_t e;
    FLOW_TRY(flow_cuda_check(cudaEventCreate(&e), "cudaEventCreate"));
    *event = (void *)e;
    return FLOW_OK;
}

static void cuda_event_destroy(flow_device *d, void *event)
{
    if (event && cuda_enter(d) == FLOW_OK)
        cudaEventDestroy((cudaEvent_t)event);
}

static flow_status cuda_event_record(flow_device *d, void *event)
{
    FLOW_TRY(cuda_enter(d));
    FLOW_TRY(cuda_join_queues(d));
    return flow_cuda_check(cudaEventRecord((cudaEvent_t)event, cuda_stream(d)),
                           "cudaEventRecord");
}

static flow_status cuda_event_elapsed(flow_device *d, void *start, void *end, float *ms)
{
    FLOW_TRY(cuda_enter(d));
    FLOW_TRY(flow_cuda_check(cudaEventSynchronize((cudaEvent_t)end), "cudaEventSynchronize"));
    return flow_cuda_check(cudaEventElapsedTime(ms, (cudaEvent_t)start, (cudaEvent_t)end),
                           "cudaEventElapsedTime");
}

#define FLOW_CUDA_ENTRY(stem, A, W, H, G, C) .stem = cuda_##stem,
extern "C" const flow_device_ops flow_cuda_ops = {
    .kind = "cuda",
    .open = cuda_open,
    .close = cuda_close,
    .queue_open = cuda_queue_open,
    .queue_close = cuda_queue_close,
    .count = cuda_count,
    .plane_alloc = cuda_plane_alloc,
    .plane_free = cuda_plane_free,
    .upload = cuda_upload,
    .download = cuda_download,
    .copy = cuda_copy,
    .synchronize = cuda_synchronize,
    .buffer_alloc = cuda_buffer_alloc,
    .buffer_free = cuda_buffer_free,
    .upload_bytes = cuda_upload_bytes,
    .upload_async = cuda_upload_async,
    .download_async = cuda_download_async,
    .lane_record = cuda_lane_record,
    .lane_wait = cuda_lane_wait,
    .event_wait = cuda_event_wait,
    .event_create = cuda_event_create,
    .event_destroy = cuda_event_destroy,
    .event_record = cuda_event_record,
    .event_elapsed = cuda_event_elapsed,
    .capture_begin = cuda_capture_begin,
    .capture_end = cuda_capture_end,
    .graph_launch = cuda_graph_launch,
    .graph_destroy = cuda_graph_destroy,
    .host_register = cuda_host_register,
    .host_unregister = cuda_host_unregister,
    .pointer_gpu = cuda_pointer_gpu,
    .stream_wait = cuda_stream_wait,
    .smooth_small = cuda_smooth_small,
    .sor_sweeps = cuda_sor_sweeps,
    .jacobi_sweeps = cuda_jacobi_sweeps,
    .small_cycle = cuda_small_cycle,
    .restrict_small = cuda_restrict_small,
    .sum_squares = cuda_sum_squares,
    .plane_max = cuda_plane_max,
    .plane_sum = cuda_plane_sum,
    .sort_desc = cuda_sort_desc,
    FLOW_KERNELS(FLOW_CUDA_ENTRY)
};
