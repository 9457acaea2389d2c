/* flow_error.c -- average angular and endpoint errors of a flow field
 * against ground truth, with standard deviations and outlier shares
 * (contract and exclusion rules in flow/error.h).  Two passes in double:
 * the means first, then the squared deviations, which keeps the standard
 * deviation accurate where sum(x^2)/N - mean^2 would cancel. */
#include "flow/error.h"
#include "base/fail.h"

#include <math.h>
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

/* Whether pixel i is scored; counts it in the right excluded bucket if not. */
static int scored(const flow_field *est, const flow_field *gt, const unsigned char *mask,
                  size_t i, flow_error_stats *st)
{
    if (mask && !mask[i]) {
        st->outside_mask++;
        return 0;
    }
    if (flow_is_unknown(gt->u[i], gt->v[i])) {
        st->unknown_gt++;
        return 0;
    }
    if (flow_is_unknown(est->u[i], est->v[i])) {
        st->unknown_est++;
        return 0;
    }
    return 1;
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

flow_status flow_error_per_pixel(const flow_field *est, const flow_field *gt,
                                 const unsigned char *mask, float *ee)
{
    if (!ee)
        return flow_fail(FLOW_ERR_INVALID, "flow_error_per_pixel: missing result");
    FLOW_TRY(check_pair(est, gt, "flow_error_per_pixel"));
    const size_t n = (size_t)gt->width * gt->height;
    flow_error_stats st; /* the excluded counts, unused here */
    memset(&st, 0, sizeof st);
    for (size_t i = 0; i < n; i++)
        ee[i] = scored(est, gt, mask, i, &st)
                    ? (float)flow_endpoint_error(est->u[i], est->v[i], gt->u[i], gt->v[i])
                    : NAN;
    return FLOW_OK;
}

flow_status flow_error_compute(const flow_field *est, const flow_field *gt,
                               const unsigned char *mask, flow_error_stats *out)
{
    if (!out)
        return flow_fail(FLOW_ERR_INVALID, "flow_error_compute: missing result");
    FLOW_TRY(check_pair(est, gt, "flow_error_compute"));
    const size_t n = (size_t)gt->width * gt->height;

    flow_error_stats st;
    memset(&st, 0, sizeof st);
    st.total = (long)n;
    double sum_ae = 0, sum_ee = 0;
    long over1 = 0, over3 = 0;
    for (size_t i = 0; i < n; i++) {
        if (!scored(est, gt, mask, i, &st))
            continue;
        const double ae = flow_angular_error(est->u[i], est->v[i], gt->u[i], gt->v[i]);
        const double ee = flow_endpoint_error(est->u[i], est->v[i], gt->u[i], gt->v[i]);
        sum_ae += ae;
        sum_ee += ee;
        over1 += ee > 1.0;
        over3 += ee > 3.0;
        if (ee > st.max_ee)
            st.max_ee = ee;
        st.scored++;
    }
    if (st.scored > 0) {
        const double N = (double)st.scored;
        st.aae = sum_ae / N;
        st.aee = sum_ee / N;
        st.over1 = over1 / N;
        st.over3 = over3 / N;
        double dev_ae = 0, dev_ee = 0;
        flow_error_stats again; /* the second pass recounts nothing it keeps */
        memset(&again, 0, sizeof again);
        for (size_t i = 0; i < n; i++) {
            if (!scored(est, gt, mask, i, &again))
                continue;
            const double da =
                flow_angular_error(est->u[i], est->v[i], gt->u[i], gt->v[i]) - st.aae;
            const double de =
                flow_endpoint_error(est->u[i], est->v[i], gt->u[i], gt->v[i]) - st.aee;
            dev_ae += da * da;
            dev_ee += de * de;
        }
        st.aae_std = sqrt(dev_ae / N);
        st.aee_std = sqrt(dev_ee / N);
    }
    *out = st;
    return FLOW_OK;
}
