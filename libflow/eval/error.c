/* error.c -- the accuracy of a flow field against ground truth: average
 * angular and endpoint errors with standard deviations, the outlier shares
 * px1/px3/px5 and KITTI's Fl, and the same over the regions of Sintel and
 * KITTI (occluded or not, foreground or background, speed, distance to
 * occlusion).  Contract and exclusion rules in flow/error.h, definitions
 * and sources in docs/EVALUATION.md.  Two passes in double: the means
 * first, then the squared deviations, which keeps the standard deviation
 * accurate where sum(x^2)/N - mean^2 would cancel. */
#include "flow/error.h"
#include "base/fail.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RAD_TO_DEG (180.0 / 3.14159265358979323846)

double flow_angular_error(double u, double v, double ug, double vg)
{
    const double num = u * ug + v * vg + 1.0;
    const double den = sqrt((u * u + v * v + 1.0) * (ug * ug + vg * vg + 1.0));
    double c = num / den;
    c = c > 1.0 ? 1.0 : c < -1.0 ? -1.0 : c;
    return acos(c) * RAD_TO_DEG;
}

double flow_endpoint_error(double u, double v, double ug, double vg)
{
    const double du = u - ug, dv = v - vg;
    return sqrt(du * du + dv * dv);
}

/* Why a pixel is or is not scored, in the order of the rules (flow/error.h). */
typedef enum { SCORED, OUTSIDE_MASK, INVALID, UNKNOWN_GT, UNKNOWN_EST } pixel_class;

static pixel_class classify(const flow_field *est, const flow_field *gt,
                            const flow_error_regions *r, size_t i)
{
    if (r->mask && !r->mask[i])
        return OUTSIDE_MASK;
    if (r->invalid && r->invalid[i])
        return INVALID;
    if (flow_is_unknown(gt->u[i], gt->v[i]))
        return UNKNOWN_GT;
    if (flow_is_unknown(est->u[i], est->v[i]))
        return UNKNOWN_EST;
    return SCORED;
}

/* The checks shared by flow_error_compute and flow_error_per_pixel: both
 * fields there and of one size, and no NaN or infinity in the estimate. */
static flow_status check_pair(const flow_field *est, const flow_field *gt, const char *who)
{
    if (!est || !gt || !est->u || !est->v || !gt->u || !gt->v)
        return flow_fail(FLOW_ERR_INVALID, "%s: missing field", who);
    if (est->width != gt->width || est->height != gt->height)
        return flow_fail(FLOW_ERR_SIZE,
                         "estimate is %dx%d but the ground truth is %dx%d: sizes must match",
                         est->width, est->height, gt->width, gt->height);
    const int w = gt->width;
    const size_t n = (size_t)w * gt->height;
    /* NaN or infinity in the estimate is a numerical failure, not a marker
     * (error.h): refuse it wherever it is, scored or not. */
    for (size_t i = 0; i < n; i++)
        if (!isfinite(est->u[i]) || !isfinite(est->v[i]))
            return flow_fail(FLOW_ERR_INVALID,
                             "estimate has a non-finite vector (%g, %g) at pixel (%d, %d): "
                             "a numerical failure, not an unknown marker (use a finite value "
                             "above 1e9 to mark unknown)",
                             est->u[i], est->v[i], (int)(i % w), (int)(i / w));
    return FLOW_OK;
}

static flow_status check_regions(const flow_field *gt, const flow_error_regions *r);

flow_status flow_error_per_pixel_in(const flow_field *est, const flow_field *gt,
                                    const flow_error_regions *regions, float *ee)
{
    if (!ee)
        return flow_fail(FLOW_ERR_INVALID, "flow_error_per_pixel: missing result");
    FLOW_TRY(check_pair(est, gt, "flow_error_per_pixel"));
    const flow_error_regions none = {0};
    const flow_error_regions *r = regions ? regions : &none;
    FLOW_TRY(check_regions(gt, r));
    const size_t n = (size_t)gt->width * gt->height;
    for (size_t i = 0; i < n; i++)
        ee[i] = classify(est, gt, r, i) == SCORED
                    ? (float)flow_endpoint_error(est->u[i], est->v[i], gt->u[i], gt->v[i])
                    : NAN;
    return FLOW_OK;
}

flow_status flow_error_per_pixel(const flow_field *est, const flow_field *gt,
                                 const unsigned char *mask, float *ee)
{
    const flow_error_regions r = {.mask = mask};
    return flow_error_per_pixel_in(est, gt, &r, ee);
}

flow_status flow_error_compute(const flow_field *est, const flow_field *gt,
                               const unsigned char *mask, flow_error_stats *out)
{
    if (!out)
        return flow_fail(FLOW_ERR_INVALID, "flow_error_compute: missing result");
    const flow_error_regions r = {.mask = mask};
    flow_error_measures m;
    FLOW_TRY(flow_error_measure(est, gt, &r, &m));
    *out = m.all;
    return FLOW_OK;
}

/* A set of scored pixels: how many, their summed EPE, their Fl outliers. */
typedef struct subset {
    long n, outliers;
    double sum_ee;
} subset;

static void subset_add(subset *s, double ee, int outlier)
{
    s->n++;
    s->sum_ee += ee;
    s->outliers += outlier;
}

static double subset_epe(const subset *s)
{
    return s->n ? s->sum_ee / s->n : NAN;
}

static double subset_fl(const subset *s)
{
    return s->n ? 100.0 * s->outliers / s->n : NAN;
}

/* KITTI's outlier (Menze and Geiger 2015): EPE > 3 px and EPE > 5% of |gt|. */
static int fl_outlier(double ee, double gt_length)
{
    return ee > 3.0 && ee > 0.05 * gt_length;
}

/* The regions' maps beside gt: noc of gt's size, one source of occlusion. */
static flow_status check_regions(const flow_field *gt, const flow_error_regions *r)
{
    if (r->occluded && r->noc)
        return flow_fail(FLOW_ERR_INVALID, "flow_error_measure: both an occlusion mask and a "
                                           "noc ground truth given: give one");
    if (r->noc && (!r->noc->u || !r->noc->v))
        return flow_fail(FLOW_ERR_INVALID, "flow_error_measure: missing noc field");
    if (r->noc && (r->noc->width != gt->width || r->noc->height != gt->height))
        return flow_fail(FLOW_ERR_SIZE,
                         "the noc ground truth is %dx%d but the ground truth is %dx%d: sizes "
                         "must match",
                         r->noc->width, r->noc->height, gt->width, gt->height);
    return FLOW_OK;
}

/* The squared distance to the nearest occluded pixel, or NULL without an
 * occlusion mask (*d2 NULL, FLOW_OK). */
static flow_status occlusion_distances(const flow_field *gt, const flow_error_regions *r,
                                       double **d2)
{
    *d2 = NULL;
    if (!r->occluded)
        return FLOW_OK;
    const size_t n = (size_t)gt->width * gt->height;
    double *d = malloc(sizeof *d * (n ? n : 1));
    if (!d)
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate the occlusion distances of %dx%d",
                         gt->width, gt->height);
    const flow_status s = n ? flow_distance_squared(r->occluded, gt->width, gt->height, d)
                            : FLOW_OK;
    if (s != FLOW_OK) {
        free(d);
        return s;
    }
    *d2 = d;
    return FLOW_OK;
}

enum { NOC, OCC, BG, FG, S0, S10, S40, D0, D10, D60, SUBSETS };

flow_status flow_error_measure(const flow_field *est, const flow_field *gt,
                               const flow_error_regions *regions, flow_error_measures *out)
{
    if (!out)
        return flow_fail(FLOW_ERR_INVALID, "flow_error_measure: missing result");
    FLOW_TRY(check_pair(est, gt, "flow_error_measure"));
    const flow_error_regions none = {0};
    const flow_error_regions *r = regions ? regions : &none;
    FLOW_TRY(check_regions(gt, r));
    double *d2;
    FLOW_TRY(occlusion_distances(gt, r, &d2));
    const size_t n = (size_t)gt->width * gt->height;

    flow_error_measures m;
    memset(&m, 0, sizeof m);
    flow_error_stats *st = &m.all;
    st->total = (long)n;
    subset all = {0}, part[SUBSETS];
    memset(part, 0, sizeof part);
    double sum_ae = 0;
    long over1 = 0, over3 = 0, over5 = 0;
    for (size_t i = 0; i < n; i++) {
        switch (classify(est, gt, r, i)) {
        case OUTSIDE_MASK: st->outside_mask++; continue;
        case INVALID: m.invalid++; continue;
        case UNKNOWN_GT: st->unknown_gt++; continue;
        case UNKNOWN_EST: st->unknown_est++; continue;
        case SCORED: break;
        }
        const double ae = flow_angular_error(est->u[i], est->v[i], gt->u[i], gt->v[i]);
        const double ee = flow_endpoint_error(est->u[i], est->v[i], gt->u[i], gt->v[i]);
        const double length = flow_endpoint_error(gt->u[i], gt->v[i], 0, 0);
        const int outlier = fl_outlier(ee, length);
        sum_ae += ae;
        subset_add(&all, ee, outlier);
        over1 += ee > 1.0;
        over3 += ee > 3.0;
        over5 += ee > 5.0;
        if (ee > st->max_ee)
            st->max_ee = ee;
        if (r->occluded || r->noc) {
            const int occluded = r->occluded ? r->occluded[i] != 0
                                             : flow_is_unknown(r->noc->u[i], r->noc->v[i]);
            subset_add(&part[occluded ? OCC : NOC], ee, outlier);
            if (d2 && !occluded && d2[i] < 140.0 * 140.0)
                subset_add(&part[d2[i] < 10.0 * 10.0   ? D0
                                     : d2[i] < 60.0 * 60.0 ? D10
                                                           : D60],
                               ee, outlier);
        }
        if (r->foreground)
            subset_add(&part[r->foreground[i] ? FG : BG], ee, outlier);
        subset_add(&part[length < 10.0 ? S0 : length < 40.0 ? S10 : S40], ee, outlier);
    }
    st->scored = all.n;
    if (st->scored > 0) {
        const double N = (double)st->scored;
        st->aae = sum_ae / N;
        st->aee = all.sum_ee / N;
        st->over1 = over1 / N;
        st->over3 = over3 / N;
        double dev_ae = 0, dev_ee = 0;
        for (size_t i = 0; i < n; i++) {
            if (classify(est, gt, r, i) != SCORED)
                continue;
            const double da =
                flow_angular_error(est->u[i], est->v[i], gt->u[i], gt->v[i]) - st->aae;
            const double de =
                flow_endpoint_error(est->u[i], est->v[i], gt->u[i], gt->v[i]) - st->aee;
            dev_ae += da * da;
            dev_ee += de * de;
        }
        st->aae_std = sqrt(dev_ae / N);
        st->aee_std = sqrt(dev_ee / N);
    }
    free(d2);
    m.px1 = st->scored ? 100.0 * over1 / st->scored : NAN;
    m.px3 = st->scored ? 100.0 * over3 / st->scored : NAN;
    m.px5 = st->scored ? 100.0 * over5 / st->scored : NAN;
    m.fl = subset_fl(&all);
    m.epe_noc = subset_epe(&part[NOC]);
    m.epe_occ = subset_epe(&part[OCC]);
    m.scored_noc = part[NOC].n;
    m.scored_occ = part[OCC].n;
    m.fl_noc = subset_fl(&part[NOC]);
    m.fl_occ = subset_fl(&part[OCC]);
    m.fl_bg = subset_fl(&part[BG]);
    m.fl_fg = subset_fl(&part[FG]);
    m.s0_10 = subset_epe(&part[S0]);
    m.s10_40 = subset_epe(&part[S10]);
    m.s40 = subset_epe(&part[S40]);
    m.d0_10 = subset_epe(&part[D0]);
    m.d10_60 = subset_epe(&part[D10]);
    m.d60_140 = subset_epe(&part[D60]);
    *out = m;
    return FLOW_OK;
}
