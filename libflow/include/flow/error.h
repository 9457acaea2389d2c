/* error.h -- accuracy of an estimated flow field against ground truth.
 *
 * Angular error (Barron, Fleet, Beauchemin 1994):
 * the angle between the space-time vectors (u, v, 1) and (ug, vg, 1),
 *     AE = acos( (u ug + v vg + 1) / sqrt((u^2 + v^2 + 1)(ug^2 + vg^2 + 1)) ),
 * in degrees, the cosine clamped to [-1, 1].  Endpoint error (Otte and
 * Nagel 1994, as Baker et al., IJCV 2011 use it): EE = sqrt((u - ug)^2 +
 * (v - vg)^2) in pixels.  Averages
 * and standard deviations are over the scored pixels, accumulated in double;
 * the standard deviation is the population one (divided by N).
 *
 * Which pixels are scored:
 *   - pixels outside the mask (when a mask is given) are excluded and
 *     counted in outside_mask;
 *   - of the others, pixels whose ground truth is unknown (a component NaN
 *     or above 1e9 in magnitude) are excluded and counted in unknown_gt;
 *   - of the others, pixels where the ESTIMATE is marked unknown (a finite
 *     component above 1e9 in magnitude, as FLOW_UNKNOWN and the .F marker
 *     read back are) are excluded and counted in unknown_est: methods that
 *     refuse a pixel (Lucas-Kanade below its eigenvalue threshold, a failed
 *     forward-backward check) say so, and the density scored/(scored +
 *     unknown_est) is reported beside the errors, as Barron et al. do;
 *   - a NaN or infinite component in the ESTIMATE is not a marker but a
 *     numerical failure: the call fails (FLOW_ERR_INVALID) naming the first
 *     such pixel, rather than hiding it.
 * The three excluded counts are disjoint: total = scored + outside_mask +
 * unknown_gt + unknown_est.
 *
 * flow_error_measure adds the benchmarks' measures (docs/EVALUATION.md has
 * their definitions and sources): an invalid map excludes pixels (after the
 * mask, before the ground truth test, counted in invalid), and occlusion,
 * object and speed regions split the scored pixels. */
#ifndef FLOW_ERROR_H
#define FLOW_ERROR_H

#include "flow/field.h"
#include "flow/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct flow_error_stats {
    double aae, aae_std; /* average angular error and its standard deviation, degrees */
    double aee, aee_std; /* average endpoint error and its standard deviation, pixels */
    double over1, over3; /* fraction (0..1) of scored pixels with EE > 1 px, > 3 px */
    double max_ee;       /* largest endpoint error among the scored pixels */
    long total;          /* width * height */
    long scored;         /* pixels that entered the averages */
    long outside_mask;   /* excluded: mask value zero */
    long unknown_gt;     /* excluded: ground truth unknown (inside the mask) */
    long unknown_est;    /* excluded: estimate marked unknown (GT known, inside the mask) */
} flow_error_stats;

/* Compares est with gt (same size).  mask is NULL (every pixel) or
 * width*height bytes, nonzero = scored.  Returns FLOW_OK and fills *out
 * (averages are 0 when nothing was scored: check out->scored);
 * FLOW_ERR_SIZE when the sizes differ; FLOW_ERR_INVALID for a missing
 * argument or a NaN/infinite estimate (the detail names the pixel). */
flow_status flow_error_compute(const flow_field *est, const flow_field *gt,
                               const unsigned char *mask, flow_error_stats *out);

/* The endpoint error of every pixel into ee (width * height floats, row
 * by row): the pixel's EE where flow_error_compute scores it, NaN where it
 * does not (outside the mask, unknown ground truth, unknown estimate), so
 * that a picture of the errors shows the pixels the averages are over.
 * Fails as flow_error_compute (FLOW_ERR_SIZE, FLOW_ERR_INVALID). */
flow_status flow_error_per_pixel(const flow_field *est, const flow_field *gt,
                                 const unsigned char *mask, float *ee);

/* The maps beside the two fields that flow_error_measure reads, each NULL
 * when not given; the byte maps are width * height, row by row. */
typedef struct flow_error_regions {
    const unsigned char *mask;       /* nonzero = scored */
    const unsigned char *invalid;    /* nonzero = excluded (Sintel's invalid/) */
    const unsigned char *occluded;   /* nonzero = occluded (Sintel's occlusions/) */
    const flow_field *noc;           /* KITTI's flow_noc beside flow_occ as gt: a pixel
                                      * known in gt but unknown in noc is occluded */
    const unsigned char *foreground; /* nonzero = foreground (KITTI 2015's obj_map) */
} flow_error_regions;

/* A measure that is not defined for a call (its set of pixels is empty,
 * or the region it needs was not given) is NaN.  Percentages are 0..100
 * of the pixels of their set. */
typedef struct flow_error_measures {
    flow_error_stats all; /* flow_error_compute's figures over the scored pixels */
    long invalid;         /* excluded: nonzero in the invalid map (inside the mask) */
    double px1, px3, px5; /* % of scored pixels with EPE > 1, 3, 5 px */
    double fl;            /* % outliers (KITTI): EPE > 3 px and EPE > 0.05 |gt| */
    double epe_noc, epe_occ; /* mean EPE over the non-occluded, the occluded pixels */
    long scored_noc, scored_occ; /* their counts (0 without occlusion information) */
    double fl_noc, fl_occ;       /* Fl over the non-occluded, the occluded pixels */
    double fl_bg, fl_fg;         /* Fl over background, foreground (needs foreground) */
    double s0_10, s10_40, s40;   /* mean EPE over |gt| in [0,10), [10,40), [40,inf) */
    double d0_10, d10_60, d60_140; /* mean EPE over non-occluded pixels whose Euclidean
                                    * distance to the nearest occluded pixel is in
                                    * [0,10), [10,60), [60,140) (needs occluded) */
} flow_error_measures;

/* Every measure of est against gt (same size) over the pixels regions
 * keeps (regions may be NULL: every pixel).  Returns FLOW_OK and fills
 * *out (out->all as flow_error_compute, total = scored + outside_mask +
 * invalid + unknown_gt + unknown_est); FLOW_ERR_SIZE when est or noc
 * differs from gt in size; FLOW_ERR_INVALID for a missing argument, a
 * NaN/infinite estimate (the detail names the pixel), or both occluded and
 * noc given (one source of occlusion); FLOW_ERR_NOMEM. */
flow_status flow_error_measure(const flow_field *est, const flow_field *gt,
                               const flow_error_regions *regions, flow_error_measures *out);

/* The endpoint error of every pixel into ee as flow_error_per_pixel, with
 * the exclusions of regions (mask and invalid; NULL: none).  Fails as
 * flow_error_measure. */
flow_status flow_error_per_pixel_in(const flow_field *est, const flow_field *gt,
                                    const flow_error_regions *regions, float *ee);

/* The squared Euclidean distance from every pixel of a width x height map
 * to the nearest nonzero pixel of `from` into d2 (exact integers; HUGE_VAL
 * everywhere when `from` has none), by Felzenszwalb and Huttenlocher's
 * lower envelope of parabolas, columns then rows.  FLOW_ERR_INVALID for a
 * missing argument or a size < 1, FLOW_ERR_NOMEM. */
flow_status flow_distance_squared(const unsigned char *from, int width, int height, double *d2);

/* ---- confidence and occlusion estimates ---------------------------------- */

/* The most steps of a sparsification curve. */
#define FLOW_SPARSIFICATION_STEPS_MAX 1000

/* A sparsification curve (docs/EVALUATION.md): at step k of `steps`, the
 * floor(k * scored / steps) least confident scored pixels are removed and
 * curve[k] is the mean endpoint error of the others; oracle[k] the same
 * removing the largest true errors first.  Pixels of equal confidence
 * count by the share of their group that is left (the mean over their
 * orders).  ause = the mean over the steps of curve - oracle, pixels (the
 * area between the curves over the removed share 0 .. 1); ause_relative =
 * ause / curve[0] (NaN when curve[0] is 0). */
typedef struct flow_sparsification_curve {
    int steps;
    long scored;
    double curve[FLOW_SPARSIFICATION_STEPS_MAX];
    double oracle[FLOW_SPARSIFICATION_STEPS_MAX];
    double ause, ause_relative;
} flow_sparsification_curve;

/* The sparsification curve of est against gt over the pixels regions
 * scores (its mask and invalid map; NULL: every pixel with known ground
 * truth and estimate), ordered by confidence (width * height floats,
 * higher = more trusted; only their order matters).  FLOW_ERR_INVALID for
 * a missing argument, steps outside 1 .. FLOW_SPARSIFICATION_STEPS_MAX, a
 * non-finite confidence on a scored pixel (the detail names it), no pixel
 * scored, or what flow_error_measure refuses; FLOW_ERR_SIZE, FLOW_ERR_NOMEM. */
flow_status flow_sparsification(const flow_field *est, const flow_field *gt,
                                const flow_error_regions *regions, const float *confidence,
                                int steps, flow_sparsification_curve *out);

/* An estimated occlusion mask against the true one, over the pixels keep
 * marks (NULL: all): the counts, precision tp / (tp + fp), recall
 * tp / (tp + fn) and F1 = 2 tp / (2 tp + fp + fn), each NaN where its
 * denominator is 0.  Masks are width * height bytes, nonzero = occluded. */
typedef struct flow_occlusion_scores {
    long true_pos, false_pos, false_neg, true_neg;
    double precision, recall, f1;
} flow_occlusion_scores;

flow_status flow_occlusion_score(const unsigned char *estimate, const unsigned char *truth,
                                 const unsigned char *keep, int width, int height,
                                 flow_occlusion_scores *out);

/* The angular error (degrees) and endpoint error (pixels) of one vector. */
double flow_angular_error(double u, double v, double ug, double vg);
double flow_endpoint_error(double u, double v, double ug, double vg);

#ifdef __cplusplus
}
#endif
#endif
