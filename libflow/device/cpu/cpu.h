/* cpu.h -- the CPU device's operations (kernels_cpu.c), which device_cpu.c
 * puts in its table. */
#ifndef FLOW_DEVICE_CPU_H
#define FLOW_DEVICE_CPU_H

#include "base/pool.h"
#include "device/device.h"

/* Points per chunk of an operation's loop over its grid's rows
 * (base/pool.h): a grid of fewer than two grains runs on the calling
 * thread and wakes no worker -- the coarse multigrid levels are too small
 * to pay for a wake-up. */
#define FLOW_CPU_GRAIN 8192
/* by the gpu kind of the operation (libflow/kernels/list.h): a point of a
 * POINTS operation follows a whole window, one is worth a chunk */
#define FLOW_CPU_GRAIN_GRID FLOW_CPU_GRAIN
#define FLOW_CPU_GRAIN_OWN FLOW_CPU_GRAIN
#define FLOW_CPU_GRAIN_POINTS 1

/* The state of a CPU handle: the device's threads (a queue borrows its
 * device's), and the sort's scratch, kept from one call to the next. */
typedef struct flow_cpu {
    flow_pool *pool;
    void *sort_tmp;
    size_t sort_bytes;
} flow_cpu;

#define FLOW_CPU_DECLARE(stem, A, W, H, G) flow_status cpu_##stem(flow_device *d, const A *a);
FLOW_KERNELS(FLOW_CPU_DECLARE)
#undef FLOW_CPU_DECLARE

/* device_cpu.c: the transfers and events the lanes reuse */
flow_status cpu_upload(flow_device *d, flow_plane *dst, const float *src, size_t src_stride);
flow_status cpu_download(flow_device *d, float *dst, size_t dst_stride, const flow_plane *src);
flow_status cpu_event_record(flow_device *d, void *event);

/* lanes_cpu.c: the overlapped transfers, done on the spot */
flow_status cpu_buffer_alloc(flow_device *d, void **p, size_t bytes);
void cpu_buffer_free(flow_device *d, void *p);
flow_status cpu_upload_bytes(flow_device *d, flow_lane lane, void *dst, const void *src,
                             size_t bytes);
flow_status cpu_upload_async(flow_device *d, flow_lane lane, flow_plane *dst, const float *src,
                             size_t src_stride);
flow_status cpu_download_async(flow_device *d, flow_lane lane, float *dst, size_t dst_stride,
                               const flow_plane *src);
flow_status cpu_lane_record(flow_device *d, flow_lane lane, void *event);
flow_status cpu_lane_wait(flow_device *d, flow_lane lane, void *event);
flow_status cpu_event_wait(flow_device *d, void *event);

flow_status cpu_sum_squares(flow_device *d, const flow_plane *p, double *sum);
flow_status cpu_plane_max(flow_device *d, const flow_plane *src, flow_plane *dst);
flow_status cpu_sort_desc(flow_device *d, const flow_plane *keys, flow_plane *skeys,
                          flow_plane *sidx);

#endif
