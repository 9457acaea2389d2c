/* errormap.c -- pictures of an estimate's endpoint errors against ground
 * truth: each pixel's error on the "hot" ramp, the pixels the averages
 * leave out in a colour of their own, and the caption of the averages.
 * Which pixels are scored is flow_error_per_pixel's (eval/error.c), the
 * rule of flow_error_compute and `flow-tool error`.  Contracts in
 * flow/render.h. */
#include "flow/render.h"
#include "base/fail.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void flow_error_color(double t, float rgb[3])
{
    t = t > 0 ? t : 0; /* NaN too */
    for (int b = 0; b < 3; b++) {
        /* red rises over [0, 1/3], green over [1/3, 2/3], blue over [2/3, 1] */
        double c = 3.0 * t - b;
        c = c < 0 ? 0 : c > 1 ? 1 : c;
        rgb[b] = (float)lround(255.0 * c);
    }
}

flow_status flow_render_error_map(const flow_field *est, const flow_field *gt,
                                  const unsigned char *mask, double max_error, flow_image *rgb,
                                  double *used)
{
    memset(rgb, 0, sizeof *rgb);
    if (isnan(max_error) || isinf(max_error))
        return flow_fail(FLOW_ERR_INVALID, "error scale %g is not a finite number", max_error);
    if (!est || !gt)
        return flow_fail(FLOW_ERR_INVALID, "flow_render_error_map: missing field");
    const size_t n = (size_t)gt->width * gt->height;
    float *ee = malloc((n ? n : 1) * sizeof *ee);
    if (!ee)
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate the errors of a %dx%d field",
                         gt->width, gt->height);
    flow_status s = flow_error_per_pixel(est, gt, mask, ee);
    if (s == FLOW_OK)
        s = flow_image_alloc(rgb, gt->width, gt->height, 3);
    if (s != FLOW_OK) {
        free(ee);
        return s;
    }
    double scale = max_error;
    if (!(scale > 0)) {
        scale = 0;
        for (size_t i = 0; i < n; i++)
            if (ee[i] > scale) /* false for NaN: not scored */
                scale = ee[i];
        scale = scale > 0 ? scale : 1.0;
    }
    static const float unscored[3] = FLOW_UNSCORED_RGB;
    for (size_t i = 0; i < n; i++) {
        float c[3];
        if (isnan(ee[i]))
            memcpy(c, unscored, sizeof c);
        else
            flow_error_color(ee[i] / scale, c);
        for (int b = 0; b < 3; b++)
            rgb->data[b * n + i] = c[b];
    }
    free(ee);
    if (used)
        *used = scale;
    return FLOW_OK;
}

void flow_error_caption(const flow_error_stats *st, char *buf, size_t size)
{
    snprintf(buf, size, "AEE %.3f px  AAE %.2f deg", st->aee, st->aae);
}
