/* sparsify.c -- how well a confidence map orders a flow's vectors by their
 * true error: the sparsification curve (the mean endpoint error of the
 * pixels left after removing the least confident share p) against the
 * oracle's (removing the largest true errors first), and the area between
 * them, AUSE (Ilg, Cicek, Galesso, Klein, Makansi, Hutter, Brox, ECCV 2018;
 * Aodha, Humayun, Pollefeys, Brostow, PAMI 2013 for the curve).  Contract
 * in flow/error.h, definitions in docs/EVALUATION.md.
 *
 * Pixels of equal confidence have no order among them: where a removal
 * boundary falls inside such a group, the group counts with the share of
 * it that is left (the expectation over the group's orders), so that the
 * curve does not depend on where the pixels lie in the frame. */
#include "flow/error.h"
#include "base/fail.h"

#include <math.h>
#include <stdlib.h>

/* A scored pixel: its confidence (the oracle's: its error) and its error. */
typedef struct ranked {
    float key;
    float ee;
} ranked;

static int by_key(const void *a, const void *b)
{
    const float x = ((const ranked *)a)->key, y = ((const ranked *)b)->key;
    return (x > y) - (x < y);
}

/* The first position of r[0..n-1] (sorted by key) whose key is not below
 * key (first_after: above it). */
static long first_at_least(const ranked *r, long n, float key)
{
    long lo = 0, hi = n;
    while (lo < hi) {
        const long mid = lo + (hi - lo) / 2;
        if (r[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static long first_after(const ranked *r, long n, float key)
{
    long lo = 0, hi = n;
    while (lo < hi) {
        const long mid = lo + (hi - lo) / 2;
        if (r[mid].key <= key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The mean error of the pixels from position `removed` on of r (sorted by
 * key, least trusted first), the group of keys equal to r[removed]'s
 * counted by the share of it that is left; prefix[i] is the sum of
 * r[0..i-1].ee.  NaN when nothing is left. */
static double mean_left(const ranked *r, const double *prefix, long n, long removed)
{
    if (removed >= n)
        return NAN;
    const long a = first_at_least(r, n, r[removed].key), b = first_after(r, n, r[removed].key);
    const double group = prefix[b] - prefix[a];
    const double after = prefix[n] - prefix[b];
    const double share = (double)(b - removed) / (double)(b - a);
    return (after + share * group) / (double)(n - removed);
}

/* r sorted by key ascending, then the curve's values at the steps. */
static void curve_of(ranked *r, double *prefix, long n, int steps, double *curve)
{
    qsort(r, (size_t)n, sizeof *r, by_key);
    prefix[0] = 0;
    for (long i = 0; i < n; i++)
        prefix[i + 1] = prefix[i] + r[i].ee;
    for (int k = 0; k < steps; k++)
        curve[k] = mean_left(r, prefix, n, (long)((double)k * n / steps));
}

flow_status flow_sparsification(const flow_field *est, const flow_field *gt,
                                const flow_error_regions *regions, const float *confidence,
                                int steps, flow_sparsification_curve *out)
{
    if (!confidence || !out)
        return flow_fail(FLOW_ERR_INVALID, "flow_sparsification: missing %s",
                         confidence ? "result" : "confidence map");
    if (steps < 1 || steps > FLOW_SPARSIFICATION_STEPS_MAX)
        return flow_fail(FLOW_ERR_INVALID,
                         "flow_sparsification: %d steps, expected 1 to %d", steps,
                         FLOW_SPARSIFICATION_STEPS_MAX);
    if (!est || !gt)
        return flow_fail(FLOW_ERR_INVALID, "flow_sparsification: missing flow field");
    const size_t n = (size_t)gt->width * gt->height;
    float *ee = malloc(n * sizeof *ee);
    ranked *by_conf = malloc(n * sizeof *by_conf);
    ranked *by_error = malloc(n * sizeof *by_error);
    double *prefix = malloc((n + 1) * sizeof *prefix);
    flow_status s = ee && by_conf && by_error && prefix
                        ? FLOW_OK
                        : flow_fail(FLOW_ERR_NOMEM, "flow_sparsification: no memory for %zu "
                                                    "pixels",
                                    n);
    if (s == FLOW_OK)
        s = flow_error_per_pixel_in(est, gt, regions, ee);
    long m = 0;
    for (size_t i = 0; s == FLOW_OK && i < n; i++) {
        if (isnan(ee[i]))
            continue;
        if (!isfinite(confidence[i])) {
            s = flow_fail(FLOW_ERR_INVALID,
                          "confidence map has a non-finite value at pixel (%zu, %zu): a "
                          "confidence must be a number",
                          i % (size_t)gt->width, i / (size_t)gt->width);
            break;
        }
        by_conf[m] = (ranked){confidence[i], ee[i]};
        by_error[m] = (ranked){-ee[i], ee[i]};
        m++;
    }
    if (s == FLOW_OK && m == 0)
        s = flow_fail(FLOW_ERR_INVALID, "flow_sparsification: no pixel is scored");
    if (s == FLOW_OK) {
        out->steps = steps;
        out->scored = m;
        curve_of(by_conf, prefix, m, steps, out->curve);
        curve_of(by_error, prefix, m, steps, out->oracle);
        double area = 0;
        for (int k = 0; k < steps; k++)
            area += out->curve[k] - out->oracle[k];
        out->ause = area / steps;
        out->ause_relative = out->curve[0] > 0 ? out->ause / out->curve[0] : NAN;
    }
    free(ee);
    free(by_conf);
    free(by_error);
    free(prefix);
    return s;
}
