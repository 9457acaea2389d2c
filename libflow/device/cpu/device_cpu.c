/* device_cpu.c -- the CPU device: host planes, transfers that are row
 * copies, the host clock for timing.  Its operations (kernels_cpu.c) run the
 * per-pixel functions of libflow/pixel/ in loops over rows run by the
 * device's own thread pool (base/pool.h): slower than CUDA, but the very
 * same mathematics, and what CI tests. */
#include "device/cpu/cpu.h"
#include "base/fail.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void cpu_close(flow_device *d)
{
    flow_cpu *c = d->impl;
    if (c) {
        flow_pool_destroy(c->pool);
        free(c->sort_tmp);
        free(c->scratch);
    }
    free(c);
    d->impl = NULL;
}

static flow_status cpu_open(flow_device *d, int index)
{
    (void)index;
    flow_cpu *c = calloc(1, sizeof *c);
    if (!c)
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate the CPU device state");
    d->impl = c;
    int threads = 1;
    flow_status s = flow_pool_default_threads(&threads);
    if (s == FLOW_OK)
        s = flow_pool_create(threads, &c->pool);
    if (s != FLOW_OK) {
        cpu_close(d);
        return s;
    }
    snprintf(d->name, sizeof d->name, "CPU (%d thread%s)", threads, threads == 1 ? "" : "s");
    return FLOW_OK;
}

/* A queue of the CPU: the device's threads, a sort's scratch of its own.
 * Its operations run in the calling thread, which the device's threads help
 * one loop at a time (base/pool.h): the queues of two threads take turns at
 * the pool and never share a result. */
static flow_status cpu_queue_open(flow_device *q)
{
    flow_cpu *c = calloc(1, sizeof *c);
    if (!c)
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate a CPU queue");
    c->pool = ((flow_cpu *)q->owner->impl)->pool;
    q->impl = c;
    return FLOW_OK;
}

static void cpu_queue_close(flow_device *q)
{
    flow_cpu *c = q->impl;
    if (c) {
        free(c->sort_tmp);
        free(c->scratch);
    }
    free(c);
    q->impl = NULL;
}

static flow_status cpu_plane_alloc(flow_device *d, flow_plane *p, int width, int height)
{
    (void)d;
    memset(p, 0, sizeof *p);
    /* Rows padded to 16 floats (64 bytes) so that rows start cache-aligned. */
    const long pitch = ((long)width + 15) & ~15L;
    FLOW_TRY(flow_plane_size_check(width, height, pitch));
    p->data = aligned_alloc(64, (size_t)pitch * (size_t)height * sizeof(float));
    if (!p->data)
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate a %dx%d plane", width, height);
    p->width = width;
    p->height = height;
    p->pitch = (int)pitch;
    return FLOW_OK;
}

static void cpu_plane_free(flow_device *d, flow_plane *p)
{
    (void)d;
    free(p->data);
    memset(p, 0, sizeof *p);
}

flow_status cpu_upload(flow_device *d, flow_plane *dst, const float *src,
                              size_t src_stride)
{
    (void)d;
    for (int y = 0; y < dst->height; y++)
        memcpy(&FLOW_PX(*dst, 0, y), src + (size_t)y * src_stride,
               (size_t)dst->width * sizeof(float));
    return FLOW_OK;
}

flow_status cpu_download(flow_device *d, float *dst, size_t dst_stride,
                                const flow_plane *src)
{
    (void)d;
    for (int y = 0; y < src->height; y++)
        memcpy(dst + (size_t)y * dst_stride, &FLOW_PX(*src, 0, y),
               (size_t)src->width * sizeof(float));
    return FLOW_OK;
}

static flow_status cpu_copy(flow_device *d, flow_plane *dst, const flow_plane *src)
{
    return cpu_upload(d, dst, src->data, (size_t)src->pitch);
}

static flow_status cpu_synchronize(flow_device *d)
{
    (void)d;
    return FLOW_OK;
}

static flow_status cpu_event_create(flow_device *d, void **event)
{
    (void)d;
    *event = calloc(1, sizeof(struct timespec));
    return *event ? FLOW_OK : flow_fail(FLOW_ERR_NOMEM, "cannot allocate a timing event");
}

static void cpu_event_destroy(flow_device *d, void *event)
{
    (void)d;
    free(event);
}

flow_status cpu_event_record(flow_device *d, void *event)
{
    (void)d;
    clock_gettime(CLOCK_MONOTONIC, (struct timespec *)event);
    return FLOW_OK;
}

static flow_status cpu_event_elapsed(flow_device *d, void *start, void *end, float *ms)
{
    (void)d;
    const struct timespec *t0 = start, *t1 = end;
    *ms = (float)((t1->tv_sec - t0->tv_sec) * 1e3 + (t1->tv_nsec - t0->tv_nsec) * 1e-6);
    return FLOW_OK;
}

#define FLOW_CPU_ENTRY(stem, A, W, H, G, C) .stem = cpu_##stem,
const flow_device_ops flow_cpu_ops = {
    .kind = "cpu",
    .open = cpu_open,
    .close = cpu_close,
    .queue_open = cpu_queue_open,
    .queue_close = cpu_queue_close,
    .plane_alloc = cpu_plane_alloc,
    .plane_free = cpu_plane_free,
    .upload = cpu_upload,
    .download = cpu_download,
    .copy = cpu_copy,
    .synchronize = cpu_synchronize,
    .buffer_alloc = cpu_buffer_alloc,
    .buffer_free = cpu_buffer_free,
    .upload_bytes = cpu_upload_bytes,
    .upload_async = cpu_upload_async,
    .download_async = cpu_download_async,
    .lane_record = cpu_lane_record,
    .lane_wait = cpu_lane_wait,
    .event_wait = cpu_event_wait,
    .event_create = cpu_event_create,
    .event_destroy = cpu_event_destroy,
    .event_record = cpu_event_record,
    .event_elapsed = cpu_event_elapsed,
    .sum_squares = cpu_sum_squares,
    .plane_max = cpu_plane_max,
    .plane_sum = cpu_plane_sum,
    .sort_desc = cpu_sort_desc,
    FLOW_KERNELS(FLOW_CPU_ENTRY)
};
