/* track.h -- KLT feature tracking: good features selected in a frame and
 * followed from frame to frame by pyramidal Lucas-Kanade (Shi, Tomasi 1994;
 * Bouguet 2000; on GPUs: Graves 2016).
 *
 *   flow_track_params p;  flow_tracker *t;
 *   flow_track_defaults(&p);  p.features = 500;
 *   flow_tracker_create(d, w, h, &p, &t);
 *   for each frame:
 *       flow_tracker_next(t, &frame);          // select, or track + replace
 *       const flow_track_point *pt = flow_tracker_points(t, &n);
 *   flow_tracker_destroy(t);
 *
 * Selection: the corner response of every pixel (the smaller eigenvalue of
 * the structure tensor summed over a block, or Harris's det - k trace^2),
 * its 3x3 local maxima at least `quality` times the frame's best, at most
 * one per cell of side min_distance / sqrt 2, then the strongest of those
 * that lie min_distance or more from every tracked feature and from each
 * other, up to `features` in all.  Tracking: each feature's window followed
 * from the coarsest pyramid level to the finest by Gauss-Newton iterations
 * on bilinearly sampled frames, then (with `affine`) once more at the
 * finest level with a window that may rotate, scale and shear.  A feature is lost when its window has too
 * little texture, its residual is too large, it leaves the frame or (with
 * fb_check) tracking it back lands too far from where it started; with
 * `replace` the lost ones are replaced in the same frame by new features.
 * The whole frame's work runs on the tracker's device; one download per
 * frame brings the points back. */
#ifndef FLOW_TRACK_H
#define FLOW_TRACK_H

#include "flow/context.h"
#include "flow/device.h"
#include "flow/image.h"
#include "flow/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct flow_track_params {
    int features;        /* the most features followed at once, 1..65536 */
    double quality;      /* a corner's response >= quality x the frame's best, (0, 1] */
    double min_distance; /* pixels between features, >= 1 */
    int block;           /* side of the structure tensor's block for selection, odd 3..15 */
    int harris;          /* 1: Harris response, 0: smallest eigenvalue */
    double harris_k;     /* Harris's k, (0, 0.25) */
    int window;          /* side of the tracking window, 3..63 */
    int levels;          /* pyramid levels, the frame itself counted, 1..8 */
    int iterations;      /* Gauss-Newton iterations per level, 1..100 */
    double epsilon;      /* an iteration moving less than this (px) ends a level */
    int affine;          /* refine each match with an affine window (rotation,
                            zoom, shear) at the finest level */
    double min_eigen;    /* lost below this smallest eigenvalue of the window's
                            gradient matrix per pixel (grey levels^2 / px^2) */
    double max_error;    /* lost above this residual (mean absolute difference over
                            the window, grey levels); 0: no limit */
    double fb_check;     /* lost when tracking back lands farther than this (px)
                            from the start; 0: no check */
    int replace;         /* replace lost features by new ones in the same frame */
} flow_track_params;

/* features 1000, quality 0.01, min_distance 10, block 3, minimum eigenvalue
 * (harris_k 0.04), window 21, levels 3, iterations 30, epsilon 0.01,
 * affine 1, min_eigen 0.1, max_error 0, fb_check 0, replace 1. */
void flow_track_defaults(flow_track_params *p);
/* FLOW_OK, or FLOW_ERR_INVALID with a detail naming the first bad field
 * and its range. */
flow_status flow_track_params_check(const flow_track_params *p);

typedef enum flow_track_state {
    FLOW_TRACK_TRACKED = 1, /* followed into this frame */
    FLOW_TRACK_LOST = 2,    /* could not be followed: its position is the last known */
    FLOW_TRACK_NEW = 3      /* selected in this frame */
} flow_track_state;

/* One feature in one frame. */
typedef struct flow_track_point {
    long id;      /* 0, 1, 2, ... in order of selection; never reused */
    float x, y;   /* pixels, (0, 0) the centre of the top-left pixel */
    int state;    /* flow_track_state */
    float error;  /* tracked: the residual, mean absolute difference over the
                     window (grey levels); lost: that of the failed attempt, or
                     NaN where none was made; new: 0 */
} flow_track_point;

/* Why features were lost in the last frame, counted. */
typedef struct flow_track_losses {
    int texture;  /* the window's smallest eigenvalue below min_eigen */
    int outside;  /* left the frame */
    int residual; /* residual above max_error */
    int fb;       /* failed the forward-backward check */
} flow_track_losses;

typedef struct flow_tracker flow_tracker;

/* A tracker for frames of width x height (1 or 3 channels: colour frames
 * are tracked on their luminance) on device d.  p is copied. */
flow_status flow_tracker_create(flow_device *d, int width, int height, const flow_track_params *p,
                                flow_tracker **out);
void flow_tracker_destroy(flow_tracker *t);
/* Stages ("upload", "pyramid", "track", "select", "download") go to the
 * observer's stage hooks; the other hooks are not used. */
void flow_tracker_set_observer(flow_tracker *t, const flow_observer *obs);

/* CUDA graphs (on by default): after the first frame, a frame's device work
 * between the upload and the download is recorded once (for each of the two
 * pyramids it may go to) and replayed, one launch instead of some thirty;
 * the observer then sees one stage "graph" instead of "pyramid", "track"
 * and "select". */
void flow_tracker_set_graphs(flow_tracker *t, int enable);
/* 1 when the last frame replayed a graph. */
int flow_tracker_used_graph(const flow_tracker *t);

/* The next frame: the first call selects features in it (all new); every
 * later call tracks the live features into it, then (with replace) selects
 * new ones where features were lost.  FLOW_ERR_SIZE for a frame of another
 * size; FLOW_ERR_INVALID, before any work, for a frame holding NaN, an
 * infinity or a value beyond FLOW_IMAGE_VALUE_MAX (flow_image_check_values
 * names the first). */
flow_status flow_tracker_next(flow_tracker *t, const flow_image *frame);
/* The rows of the last frame, *n of them: every feature followed into it
 * or lost in it, then the new ones; by slot, so a feature keeps its place
 * from frame to frame.  Valid until the next call. */
const flow_track_point *flow_tracker_points(const flow_tracker *t, int *n);
/* The number of features alive after the last frame (tracked + new). */
int flow_tracker_alive(const flow_tracker *t);
/* The loss counts of the last frame. */
flow_track_losses flow_tracker_losses(const flow_tracker *t);

#ifdef __cplusplus
}
#endif
#endif
