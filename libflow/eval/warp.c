/* warp.c -- backward warping of an image along a flow field and its
 * photometric error (contract in flow/warp.h).  Host C on host images; each
 * pixel is sampled by flow_warp_px, the per-pixel warp of the methods, over
 * planes that view the image's channels and the field's components. */
#include "flow/warp.h"
#include "base/fail.h"
#include "pixel/warp.h"

#include <math.h>
#include <stdlib.h>

/* A plane viewing a packed width x height host array. */
static flow_plane view(float *data, int width, int height)
{
    flow_plane p = {data, width, height, width};
    return p;
}

flow_status flow_warp_image(const flow_image *frame2, const flow_field *w, float fill,
                            flow_image *out, unsigned char *known, flow_warp_stats *st)
{
    if (!out)
        return flow_fail(FLOW_ERR_INVALID, "flow_warp_image: no output image");
    out->data = NULL;
    out->width = out->height = out->channels = 0;
    if (!frame2 || !frame2->data || !w || !w->u || !w->v)
        return flow_fail(FLOW_ERR_INVALID, "flow_warp_image: missing frame or flow field");
    if (frame2->width != w->width || frame2->height != w->height)
        return flow_fail(FLOW_ERR_SIZE, "the frame is %dx%d but the flow is %dx%d: sizes must match",
                         frame2->width, frame2->height, w->width, w->height);
    if (w->width < 1 || w->height < 1)
        return flow_fail(FLOW_ERR_SIZE, "flow_warp_image: empty flow (%dx%d)", w->width,
                         w->height);
    if (!isfinite(fill))
        return flow_fail(FLOW_ERR_INVALID, "warp fill value %g: expected a finite number",
                         (double)fill);
    FLOW_TRY(flow_image_alloc(out, frame2->width, frame2->height, frame2->channels));
    const int width = w->width, height = w->height;
    const size_t n = (size_t)width * height;
    flow_warp_args a = {.w = {view(w->u, width, height), view(w->v, width, height)}};
    flow_warp_stats s = {.total = (long)n};
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) {
            const size_t i = (size_t)y * width + x;
            int ok = !flow_is_unknown(w->u[i], w->v[i]);
            if (!ok)
                s.unknown_flow++;
            else {
                /* the point flow_warp_px samples, in its own arithmetic */
                const float px = (float)x + w->u[i], py = (float)y + w->v[i];
                ok = px >= 0.0f && px <= (float)(width - 1) && py >= 0.0f
                     && py <= (float)(height - 1);
                if (!ok)
                    s.outside++;
            }
            s.known += ok;
            if (known)
                known[i] = (unsigned char)ok;
            for (int c = 0; c < frame2->channels; c++) {
                a.dst = view(out->data + c * n, width, height);
                a.src = view(frame2->data + c * n, width, height);
                if (ok)
                    flow_warp_px(&a, x, y);
                else
                    out->data[c * n + i] = fill;
            }
        }
    }
    if (st)
        *st = s;
    return FLOW_OK;
}

flow_status flow_photometric_error(const flow_image *frame1, const flow_image *warped,
                                   const unsigned char *known, float *err, double *mean)
{
    if (!frame1 || !frame1->data || !warped || !warped->data || !err)
        return flow_fail(FLOW_ERR_INVALID, "flow_photometric_error: missing image or output");
    if (frame1->width != warped->width || frame1->height != warped->height
        || frame1->channels != warped->channels)
        return flow_fail(FLOW_ERR_SIZE,
                         "the first frame is %dx%d with %d channel%s but the warped frame is "
                         "%dx%d with %d channel%s: they must match",
                         frame1->width, frame1->height, frame1->channels,
                         frame1->channels == 1 ? "" : "s", warped->width, warped->height,
                         warped->channels, warped->channels == 1 ? "" : "s");
    const size_t n = (size_t)frame1->width * frame1->height;
    const int nc = frame1->channels;
    double sum = 0;
    long count = 0;
    for (size_t i = 0; i < n; i++) {
        if (known && !known[i]) {
            err[i] = NAN;
            continue;
        }
        double e = 0;
        for (int c = 0; c < nc; c++)
            e += fabs((double)frame1->data[c * n + i] - (double)warped->data[c * n + i]);
        err[i] = (float)(e / nc);
        sum += e / nc;
        count++;
    }
    if (mean)
        *mean = count ? sum / count : 0;
    return FLOW_OK;
}
