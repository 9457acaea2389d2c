/* errormap.c -- pictures of an estimate's endpoint errors against ground
 * truth: each pixel's error on the "hot" ramp, the pixels the averages
 * leave out in a colour of their own, and the caption of the averages;
 * and KITTI's error picture on its log colour scale (Menze and Geiger
 * 2015, the KITTI devkit's flowErrorImage; docs/EVALUATION.md).
 * Which pixels are scored is flow_error_per_pixel's (eval/error.c), the
 * rule of flow_error_compute and `flow-tool error`.  Contracts in
 * flow/render.h. */
#include "render/render_internal.h"
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

/* The devkit's ten colours (R, G, B), one for each interval of the
 * normalised error: [0, 0.0625), [0.0625, 0.125), ..., [8, 16), [16, inf). */
static const unsigned char kitti_colors[10][3] = {
    {49, 54, 149},   {69, 117, 180}, {116, 173, 209}, {171, 217, 233}, {224, 243, 248},
    {254, 224, 144}, {253, 174, 97}, {244, 109, 67},  {215, 48, 39},   {165, 0, 38}};

void flow_kitti_error_color(double n, float rgb[3])
{
    int k = 0;
    for (double bound = 0.0625; k < 9 && !(n < bound); bound *= 2)
        k++;
    for (int b = 0; b < 3; b++)
        rgb[b] = kitti_colors[k][b];
}

flow_status flow_render_kitti_error(const flow_field *est, const flow_field *gt,
                                    const flow_error_regions *regions, flow_image *rgb)
{
    memset(rgb, 0, sizeof *rgb);
    if (!est || !gt)
        return flow_fail(FLOW_ERR_INVALID, "flow_render_kitti_error: missing field");
    const size_t n = (size_t)gt->width * gt->height;
    float *ee = malloc((n ? n : 1) * sizeof *ee);
    if (!ee)
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate the errors of a %dx%d field",
                         gt->width, gt->height);
    flow_status s = flow_error_per_pixel_in(est, gt, regions, ee);
    if (s == FLOW_OK)
        s = flow_image_alloc(rgb, gt->width, gt->height, 3);
    if (s != FLOW_OK) {
        free(ee);
        return s;
    }
    const unsigned char *occluded = regions ? regions->occluded : NULL;
    const flow_field *noc = regions ? regions->noc : NULL;
    for (size_t i = 0; i < n; i++) {
        float c[3] = {0, 0, 0};
        if (!isnan(ee[i])) {
            const double length = flow_endpoint_error(gt->u[i], gt->v[i], 0, 0);
            const double by_length = length > 0 ? 20.0 * ee[i] / length : ee[i] > 0 ? HUGE_VAL : 0;
            const double by_pixels = ee[i] / 3.0;
            flow_kitti_error_color(by_pixels < by_length ? by_pixels : by_length, c);
            const int dim = (occluded && occluded[i]) ||
                            (noc && flow_is_unknown(noc->u[i], noc->v[i]));
            for (int b = 0; b < 3 && dim; b++)
                c[b] = floorf(0.5f * c[b]);
        }
        for (int b = 0; b < 3; b++)
            rgb->data[b * n + i] = c[b];
    }
    free(ee);
    return FLOW_OK;
}

void flow_error_caption(const flow_error_stats *st, char *buf, size_t size)
{
    snprintf(buf, size, "AEE %.3f px  AAE %.2f deg", st->aee, st->aae);
}

flow_status flow_render_error_bar(flow_image *map, double scale)
{
    if (!map || !map->data || map->channels != 3)
        return flow_fail(FLOW_ERR_INVALID, "flow_render_error_bar: missing RGB picture");
    if (!(scale > 0) || !isfinite(scale))
        return flow_fail(FLOW_ERR_INVALID, "error scale %g out of range (positive, finite)",
                         scale);
    const int factor = flow_text_factor(map->width), pad = 2 * factor;
    char top[64];
    flow_scale_text(scale, top, sizeof top);
    const char *value = top + 4; /* "max 4.62 px" less "max " */
    int zero_w, value_w, th;
    flow_text_size("0", factor, &zero_w, &th);
    flow_text_size(value, factor, &value_w, NULL);
    const int bar_w = map->width / 4, bar_h = th;
    const int plate_w = pad + zero_w + pad + bar_w + pad + value_w + pad, plate_h = th + 2 * pad;
    const int x0 = map->width - plate_w - pad, y0 = pad;
    if (x0 < pad || y0 + plate_h > map->height / 2)
        return flow_fail(FLOW_ERR_SIZE, "a %dx%d error map cannot hold its colour bar (%dx%d)",
                         map->width, map->height, plate_w, plate_h);
    const size_t plane = (size_t)map->width * map->height;
    for (int y = y0; y < y0 + plate_h; y++)
        for (int x = x0; x < x0 + plate_w; x++) {
            float c[3] = {255, 255, 255};
            const int bx = x - (x0 + pad + zero_w + pad), by = y - (y0 + pad);
            if (bx >= 0 && bx < bar_w && by >= 0 && by < bar_h)
                flow_error_color((bx + 0.5) / bar_w, c);
            for (int b = 0; b < 3; b++)
                map->data[b * plane + (size_t)y * map->width + x] = c[b];
        }
    static const float black[3] = {0, 0, 0};
    FLOW_TRY(flow_render_text(map, x0 + pad, y0 + pad, "0", factor, black));
    return flow_render_text(map, x0 + plate_w - pad - value_w, y0 + pad, value, factor, black);
}
