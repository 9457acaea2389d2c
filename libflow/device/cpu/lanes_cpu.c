/* lanes_cpu.c -- the overlapped transfers of the CPU device: there is
 * nothing to overlap (the planes are host memory and every operation has
 * finished when it returns), so each transfer is a copy done on the spot
 * and the lane events are already reached when recorded. */
#include "cpu.h"
#include "base/fail.h"

#include <stdlib.h>
#include <string.h>

flow_status cpu_buffer_alloc(flow_device *d, void **p, size_t bytes)
{
    (void)d;
    *p = malloc(bytes ? bytes : 1);
    return *p ? FLOW_OK : flow_fail(FLOW_ERR_NOMEM, "cannot allocate %zu bytes", bytes);
}

void cpu_buffer_free(flow_device *d, void *p)
{
    (void)d;
    free(p);
}

flow_status cpu_upload_bytes(flow_device *d, flow_lane lane, void *dst, const void *src,
                             size_t bytes)
{
    (void)d, (void)lane;
    memcpy(dst, src, bytes);
    return FLOW_OK;
}

flow_status cpu_lane_record(flow_device *d, flow_lane lane, void *event)
{
    (void)lane;
    return cpu_event_record(d, event);
}

flow_status cpu_lane_wait(flow_device *d, flow_lane lane, void *event)
{
    (void)d, (void)lane, (void)event;
    return FLOW_OK;
}

flow_status cpu_event_wait(flow_device *d, void *event)
{
    (void)d, (void)event;
    return FLOW_OK;
}

flow_status cpu_upload_async(flow_device *d, flow_lane lane, flow_plane *dst, const float *src,
                             size_t src_stride)
{
    (void)lane;
    return cpu_upload(d, dst, src, src_stride);
}

flow_status cpu_download_async(flow_device *d, flow_lane lane, float *dst, size_t dst_stride,
                               const flow_plane *src)
{
    (void)lane;
    return cpu_download(d, dst, dst_stride, src);
}
