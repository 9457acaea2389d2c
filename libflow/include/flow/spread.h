/* spread.h -- the flows of a sequence (or of separate pairs) computed on
 * several devices at once, handed back in the order they were submitted.
 *
 * A spread holds a context per device of a list, each driven by a thread
 * of the library's own, and deals the pairs out to them: consecutive pairs
 * of a sequence go in chunks of FLOW_SPREAD_CHUNK to one device, chunk
 * after chunk to the next, so that a device uploads one frame per flow
 * besides each chunk's first.  A device may appear more than once
 * ("cpu,cpu", "cuda:0,0"): each entry is a context of its own, on a queue
 * of its own, so one GPU computes several flows at the same time.  Every
 * flow is computed by the same code from the same frames as one context
 * computes it, so the flows are those of one context, bit for bit.
 *
 *   flow_spread *sp;
 *   flow_spread_open("cuda:all", w, h, 1, params, &sp);
 *   for each frame:
 *       if (flow_spread_queued(sp) == flow_spread_depth(sp))
 *           flow_spread_collect(sp, &flow);       // the oldest, in order
 *       flow_spread_submit(sp, &frame, first ? NULL : &field[k]);
 *   while (flow_spread_queued(sp))
 *       flow_spread_collect(sp, &flow);
 *   flow_spread_destroy(sp);
 *
 * A spread serves one thread at a time, like a context; the threads it
 * runs are its own business (it never prints, never exits). */
#ifndef FLOW_SPREAD_H
#define FLOW_SPREAD_H

#include "flow/context.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct flow_spread flow_spread;

/* Consecutive pairs of a sequence dealt to one device in turn. */
#define FLOW_SPREAD_CHUNK 4
/* The most contexts (entries of the device list) of one spread. */
#define FLOW_SPREAD_DEVICES_MAX 64

/* A context for frames of width x height with `channels` channels and the
 * method and parameters of p (copied) on each of devices[0 .. n - 1],
 * which may repeat a device; the devices stay the caller's (close them
 * after the spread).  Returns FLOW_OK and *out, or the status of the
 * first context that could not be made (the detail names its device) or
 * FLOW_ERR_INVALID for n outside 1 .. FLOW_SPREAD_DEVICES_MAX, with *out
 * NULL. */
flow_status flow_spread_create(flow_device *const *devices, int n, int width, int height,
                               int channels, const flow_params *p, flow_spread **out);
/* The same on the devices of a list (flow_devices_open: "cpu", "auto",
 * "cuda:all", "cuda:0,1", "cpu,cpu,cpu"), which the spread opens, owns
 * and closes. */
flow_status flow_spread_open(const char *devices, int width, int height, int channels,
                             const flow_params *p, flow_spread **out);
/* Stops dealing, waits for the work in flight, frees the contexts (and the
 * devices of flow_spread_open).  Flows not collected are dropped; once it
 * returns, no frame or field given to the spread is touched again. */
void flow_spread_destroy(flow_spread *sp);

/* The number of contexts (entries of the list), the device of entry i and
 * the parameters as the contexts run them (flow_context_params). */
int flow_spread_devices(const flow_spread *sp);
flow_device *flow_spread_device(const flow_spread *sp, int i);
const flow_params *flow_spread_params(const flow_spread *sp);
/* The most flows a spread keeps queued (enough to keep every device busy
 * while the caller collects in order): flow_spread_depth(sp) for a
 * spread, flow_spread_depth_of(n) for one of n entries. */
int flow_spread_depth(const flow_spread *sp);
int flow_spread_depth_of(int n);
/* The flows submitted and not collected. */
int flow_spread_queued(const flow_spread *sp);
/* 1 when flow_spread_collect would return without waiting (the oldest
 * flow is done or failed), else 0. */
int flow_spread_ready(const flow_spread *sp);
/* How many flows entry i has computed and their device time (the sum of
 * flow_context_collect's device_ms). */
void flow_spread_stats(const flow_spread *sp, int i, long *flows, double *device_ms);

/* The frames of a sequence, as flow_context_submit takes them: with out ==
 * NULL `frame` becomes the kept frame, the first of a sequence; otherwise
 * the flow from the kept frame to `frame` is queued into out (of the
 * frames' size) and `frame` becomes the kept frame.  Returns at once:
 * FLOW_ERR_SIZE for a frame or field of another size or channel count
 * (nothing queued, the kept frame kept); FLOW_ERR_INVALID with no kept
 * frame, with flow_spread_depth flows queued already (collect one first)
 * or after a failure was collected.  A frame belongs to the spread until
 * the flows of the pairs it is part of (the one it ends, the one it
 * begins) are collected or the spread is destroyed: the kept frame at
 * least until the next frame comes; a field until its flow is collected.
 * A float frame's values are checked by the context that takes it (a
 * refused frame is a failure of its pair, as below).
 * For a method that reads frames before the pair (flow_context_frames >
 * 2), each device starts each of its chunks as a sequence: the first flow
 * of a chunk is computed from its pair alone.
 * flow_spread_submit8 takes 8-bit frames (flow_context_submit8). */
flow_status flow_spread_submit(flow_spread *sp, const flow_image *frame, flow_field *out);
flow_status flow_spread_submit8(flow_spread *sp, const flow_image8 *frame, flow_field *out);
/* A pair on its own: flow_spread_submit(f1, NULL) then (f2, out), the
 * flow flow_context_compute gives.  f2 becomes the kept frame. */
flow_status flow_spread_submit_pair(flow_spread *sp, const flow_image *f1, const flow_image *f2,
                                    flow_field *out);

/* A collected flow: the field it was submitted with, its number in the
 * order of submission (from 0), the entry of the list that computed it and
 * its device time. */
typedef struct flow_spread_flow {
    flow_field *field;
    long index;
    int device;
    float device_ms;
} flow_spread_flow;

/* Waits for the oldest flow submitted and returns it in *out: FLOW_OK, or
 * FLOW_ERR_INVALID with nothing queued.  When a device fails, every device
 * stops: the flows before the failed one are still collected, in order;
 * then collect returns the failure's status with out->index the failed
 * flow, out->device the entry whose context failed and flow_last_error()
 * the library's message from that device's thread.  By then every device
 * has stopped and every flow still queued is dropped (the spread holds no
 * frame or field); the spread takes nothing more: destroy it. */
flow_status flow_spread_collect(flow_spread *sp, flow_spread_flow *out);

#ifdef __cplusplus
}
#endif
#endif
