/* confidence.c -- pictures of what the forward-backward test finds
 * (contracts in flow/render.h): the occlusion mask over the first frame,
 * and a confidence map in grey or on the error maps' "hot" ramp with its
 * key. */
#include "render_internal.h"
#include "base/fail.h"

#include <math.h>
#include <stdlib.h>

flow_status flow_render_occlusion(const flow_image *frame, const float *occluded, flow_image *rgb)
{
    if (!frame || !frame->data || !occluded || !rgb
        || (frame->channels != 1 && frame->channels != 3))
        return flow_fail(FLOW_ERR_INVALID, "flow_render_occlusion: missing frame or mask");
    const int w = frame->width, h = frame->height;
    const size_t plane = (size_t)w * h;
    flow_image out = { w, h, 3, malloc(sizeof(float) * 3 * plane) };
    if (!out.data)
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate a %dx%d picture", w, h);
    /* the frame in grey, dimmed to half where visible so that the red of
     * the occluded pixels stands out on any frame */
    static const float red[3] = { 255, 0, 0 };
    for (size_t i = 0; i < plane; i++) {
        float g = frame->data[i];
        if (frame->channels == 3)
            g = 0.299f * frame->data[i] + 0.587f * frame->data[plane + i]
                + 0.114f * frame->data[2 * plane + i];
        for (int c = 0; c < 3; c++)
            out.data[c * plane + i] = occluded[i] != 0.0f ? 0.35f * g + 0.65f * red[c] : 0.5f * g;
    }
    *rgb = out;
    return FLOW_OK;
}

flow_status flow_render_confidence(const float *confidence, int width, int height, int colour,
                                   flow_image *rgb)
{
    if (!confidence || !rgb || width < 1 || height < 1)
        return flow_fail(FLOW_ERR_INVALID, "flow_render_confidence: missing map");
    const size_t plane = (size_t)width * height;
    for (size_t i = 0; i < plane; i++)
        if (!(confidence[i] >= 0.0f && confidence[i] <= 1.0f))
            return flow_fail(FLOW_ERR_INVALID, "confidence %g at pixel (%zu, %zu) is not in "
                                               "[0, 1]",
                             (double)confidence[i], i % width, i / width);
    flow_image out = { width, height, 3, malloc(sizeof(float) * 3 * plane) };
    if (!out.data)
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate a %dx%d picture", width, height);
    for (size_t i = 0; i < plane; i++) {
        float c[3] = { 255 * confidence[i], 255 * confidence[i], 255 * confidence[i] };
        if (colour)
            flow_error_color(confidence[i], c);
        for (int k = 0; k < 3; k++)
            out.data[k * plane + i] = c[k];
    }
    *rgb = out;
    return FLOW_OK;
}

flow_status flow_render_confidence_key(flow_image *map, int colour)
{
    if (!map || !map->data || map->channels != 3)
        return flow_fail(FLOW_ERR_INVALID, "flow_render_confidence_key: missing RGB picture");
    const int factor = flow_text_factor(map->width), pad = 2 * factor;
    int zero_w, one_w, th;
    flow_text_size("0", factor, &zero_w, &th);
    flow_text_size("1", factor, &one_w, NULL);
    const int bar_w = map->width / 4, bar_h = th;
    const int plate_w = pad + zero_w + pad + bar_w + pad + one_w + pad, plate_h = th + 2 * pad;
    const int x0 = map->width - plate_w - pad, y0 = pad;
    if (x0 < pad || y0 + plate_h > map->height / 2)
        return flow_fail(FLOW_ERR_SIZE, "a %dx%d confidence map cannot hold its key (%dx%d)",
                         map->width, map->height, plate_w, plate_h);
    const size_t plane = (size_t)map->width * map->height;
    for (int y = y0; y < y0 + plate_h; y++)
        for (int x = x0; x < x0 + plate_w; x++) {
            float c[3] = { 255, 255, 255 };
            const int bx = x - (x0 + pad + zero_w + pad), by = y - (y0 + pad);
            if (bx >= 0 && bx < bar_w && by >= 0 && by < bar_h) {
                const double t = (bx + 0.5) / bar_w;
                c[0] = c[1] = c[2] = (float)(255 * t);
                if (colour)
                    flow_error_color(t, c);
            }
            for (int b = 0; b < 3; b++)
                map->data[b * plane + (size_t)y * map->width + x] = c[b];
        }
    static const float black[3] = { 0, 0, 0 };
    FLOW_TRY(flow_render_text(map, x0 + pad, y0 + pad, "0", factor, black));
    return flow_render_text(map, x0 + plate_w - pad - one_w, y0 + pad, "1", factor, black);
}
