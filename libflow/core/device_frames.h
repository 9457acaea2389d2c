/* device_frames.h -- frames handed to a context in the GPU's memory
 * (flow_context_submit_device): their values checked on the device as
 * flow_image_check_values checks a host frame's.  Not installed. */
#ifndef FLOW_CORE_DEVICE_FRAMES_H
#define FLOW_CORE_DEVICE_FRAMES_H

#include "device/device.h"
#include "flow/context.h"

/* FLOW_OK when every sample of the float frame f (in d's memory) is finite
 * and of magnitude at most FLOW_IMAGE_VALUE_MAX; else FLOW_ERR_INVALID with
 * flow_image_check_values' detail naming `what`, the value and its pixel.
 * `bad` (of f's size) and `peak` (1 x 1) are scratch planes of the
 * caller's, allocated here on first use.  Waits for d's queue. */
flow_status flow_device_frame_values(flow_device *d, const flow_device_frame *f, flow_plane *bad,
                                     flow_plane *peak, const char *what);

#endif
