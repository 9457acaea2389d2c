/* warp.h -- the second frame of a pair warped back onto the first along a
 * flow, and the photometric error that shows where the flow is wrong.
 *
 * Backward warping: out(x) = frame2(x + w(x)), sampled bilinearly (the
 * per-pixel code the coarse-to-fine methods warp with, libflow/pixel/
 * warp.h), so that out equals frame 1 wherever the flow is right and the
 * pixel is visible in both frames.  A pixel of out is unknown where w(x)
 * is unknown (flow_is_unknown) or x + w(x) leaves the frame: outside
 * 0 <= x + u <= width - 1, 0 <= y + v <= height - 1 (the rule of the
 * forward-backward check, field.h). */
#ifndef FLOW_WARP_H
#define FLOW_WARP_H

#include "flow/field.h"
#include "flow/image.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct flow_warp_stats {
    long total;        /* width * height */
    long known;        /* pixels warped */
    long unknown_flow; /* w(x) unknown */
    long outside;      /* x + w(x) outside the frame */
} flow_warp_stats;

/* Allocates *out (frame2's size and channels) and fills it with
 * frame2(x + w(x)) in every channel; an unknown pixel gets `fill` in every
 * channel.  known, when not NULL, is width * height bytes that receive 1
 * for a warped pixel and 0 for an unknown one; st may be NULL.  Returns
 * FLOW_OK; FLOW_ERR_SIZE when the frame and the flow differ in size (the
 * detail names both) or are empty; FLOW_ERR_INVALID for a missing frame or
 * field, or a fill that is not finite; FLOW_ERR_NOMEM.  On failure *out is
 * left empty. */
flow_status flow_warp_image(const flow_image *frame2, const flow_field *w, float fill,
                            flow_image *out, unsigned char *known, flow_warp_stats *st);

/* The photometric error of a warp: err[i] = the mean over the channels of
 * |frame1 - warped| at pixel i, on the 0..255 scale of the frames, and NaN
 * where known[i] is 0 (known may be NULL: every pixel known).  err is
 * width * height floats; *mean (may be NULL) receives the mean over the
 * known pixels (0 when none is).  Returns FLOW_OK; FLOW_ERR_SIZE when the
 * two images differ in size or channels; FLOW_ERR_INVALID for a missing
 * image or err. */
flow_status flow_photometric_error(const flow_image *frame1, const flow_image *warped,
                                   const unsigned char *known, float *err, double *mean);

#ifdef __cplusplus
}
#endif
#endif
