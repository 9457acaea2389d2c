/* occlusion_score.c -- an estimated occlusion mask against the true one:
 * precision, recall and F1 over the pixels kept (contract in flow/error.h,
 * definitions in docs/EVALUATION.md). */
#include "flow/error.h"
#include "base/fail.h"

#include <math.h>

flow_status flow_occlusion_score(const unsigned char *estimate, const unsigned char *truth,
                                 const unsigned char *keep, int width, int height,
                                 flow_occlusion_scores *out)
{
    if (!estimate || !truth || !out)
        return flow_fail(FLOW_ERR_INVALID, "flow_occlusion_score: missing %s",
                         !estimate ? "estimated mask" : !truth ? "true mask" : "result");
    if (width < 1 || height < 1)
        return flow_fail(FLOW_ERR_INVALID, "flow_occlusion_score: size %dx%d", width, height);
    flow_occlusion_scores r = {0};
    const size_t n = (size_t)width * height;
    for (size_t i = 0; i < n; i++) {
        if (keep && !keep[i])
            continue;
        const int e = estimate[i] != 0, t = truth[i] != 0;
        r.true_pos += e && t;
        r.false_pos += e && !t;
        r.false_neg += !e && t;
        r.true_neg += !e && !t;
    }
    const long tp = r.true_pos, fp = r.false_pos, fn = r.false_neg;
    r.precision = tp + fp ? (double)tp / (double)(tp + fp) : NAN;
    r.recall = tp + fn ? (double)tp / (double)(tp + fn) : NAN;
    r.f1 = tp + fp + fn ? 2.0 * tp / (double)(2 * tp + fp + fn) : NAN;
    *out = r;
    return FLOW_OK;
}
