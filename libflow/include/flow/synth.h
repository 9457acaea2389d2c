/* synth.h -- generated image sequences with exact ground-truth flow.
 *
 * The project ships no third-party images: its tests, demo sequences and
 * benchmarks use these.  A smooth random texture T (a sum of sinusoids of
 * random orientation, phase and wavelength 5..40 px, or `coarse` times
 * that, values in 0..255) is
 * sampled analytically, so any warp of it is exact.  Frame k of a sequence is
 * T moved by k steps of the chosen motion; the flow from frame k to k+1 maps
 * a pixel x of frame k to x + (u, v) in frame k+1. */
#ifndef FLOW_SYNTH_H
#define FLOW_SYNTH_H

#include "flow/field.h"
#include "flow/image.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum flow_synth_motion {
    FLOW_SYNTH_TRANSLATE, /* (dx, dy) pixels per frame */
    FLOW_SYNTH_ROTATE,    /* angle radians per frame about the image centre */
    FLOW_SYNTH_ZOOM,      /* scale factor per frame about the image centre */
    FLOW_SYNTH_SMOOTH,    /* smooth non-rigid field: amplitude px, wavelength px */
    FLOW_SYNTH_OBJECT,    /* a textured disc moving by (odx, ody) over a
                             background moving by (dx, dy) */
    FLOW_SYNTH_ROTOZOOM,  /* rotation by angle and zoom by scale together,
                             about the image centre */
} flow_synth_motion;

typedef struct flow_synth {
    flow_synth_motion motion;
    double dx, dy;       /* TRANSLATE, and the background of OBJECT */
    double angle;        /* ROTATE, ROTOZOOM */
    double scale;        /* ZOOM, ROTOZOOM */
    double amplitude;    /* SMOOTH */
    double wavelength;   /* SMOOTH */
    double odx, ody;     /* OBJECT: the disc's motion */
    double radius;       /* OBJECT: the disc's radius, pixels */
    unsigned seed;       /* texture seed */
    double coarse;       /* wavelengths times this (0: 1, i.e. 5..40 px): a
                            coarser texture, for motions of tens of pixels */
} flow_synth;

/* Frame k (k >= 0) into img, allocated here with `channels` (1 or 3; the
 * colour channels are independent textures). */
flow_status flow_synth_frame(const flow_synth *s, int width, int height, int channels, int k,
                             flow_image *img);

/* The exact flow from frame k to frame k+1 into gt, allocated here. */
flow_status flow_synth_flow(const flow_synth *s, int width, int height, int k, flow_field *gt);

#ifdef __cplusplus
}
#endif
#endif
