/* device_frames.c -- the value check of a float frame that stays on the
 * GPU: one pass marks the pixels with a bad sample, a reduction says
 * whether there is one, and one float crosses the bus.  Only a frame that
 * fails is downloaded, to name its first bad value exactly as the host
 * check does. */
#include "core/device_frames.h"
#include "base/fail.h"

#include <stdlib.h>

/* The detail of flow_image_check_values for the frame, downloaded into a
 * host image (the failing case alone). */
static flow_status name_bad_value(flow_device *d, const flow_device_frame *f, const char *what)
{
    const int w = f->width, h = f->height, nc = f->channels;
    const size_t n = (size_t)w * h;
    flow_image img = { 0 };
    float *samples = malloc(sizeof *samples * n * nc);
    flow_status s = samples ? flow_image_alloc(&img, w, h, nc)
                            : flow_fail(FLOW_ERR_NOMEM, "cannot allocate a %dx%d frame", w, h);
    /* the interleaved rows as one plane of w * channels floats per row */
    const flow_plane rows = { (float *)f->data, w * nc, h, w * nc };
    if (s == FLOW_OK)
        s = flow_download(d, samples, (size_t)w * nc, &rows);
    if (s == FLOW_OK) {
        for (size_t i = 0; i < n; i++)
            for (int c = 0; c < nc; c++)
                img.data[c * n + i] = samples[i * nc + c];
        s = flow_image_check_values(&img, what);
        if (s == FLOW_OK) /* the device saw a bad value that the host copy does not have */
            s = flow_fail(FLOW_ERR_DEVICE, "%s: the device found a bad value that its host "
                                           "copy does not show",
                          what);
    }
    flow_image_free(&img);
    free(samples);
    return s;
}

flow_status flow_device_frame_values(flow_device *d, const flow_device_frame *f, flow_plane *bad,
                                     flow_plane *peak, const char *what)
{
    if (!bad->data)
        FLOW_TRY(flow_plane_alloc(d, bad, f->width, f->height));
    if (!peak->data)
        FLOW_TRY(flow_plane_alloc(d, peak, 1, 1));
    const flow_bad_values_args a = { *bad, (const float *)f->data, f->channels,
                                     (float)FLOW_IMAGE_VALUE_MAX };
    FLOW_TRY(flow_k_bad_values(d, &a));
    FLOW_TRY(flow_plane_max(d, bad, peak));
    float any = 0.0f;
    FLOW_TRY(flow_download(d, &any, 1, peak));
    return any == 0.0f ? FLOW_OK : name_bad_value(d, f, what);
}
