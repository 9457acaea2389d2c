/* memory.c -- allocation of host images and flow fields. */
#include "flow/field.h"
#include "flow/image.h"
#include "base/fail.h"

#include <stdlib.h>
#include <string.h>

flow_status flow_image_alloc(flow_image *img, int width, int height, int channels)
{
    memset(img, 0, sizeof *img);
    if (width < 1 || height < 1 || (long)width * height > FLOW_IMAGE_MAX_PIXELS)
        return flow_fail(FLOW_ERR_SIZE, "image size %dx%d out of range", width, height);
    if (channels != 1 && channels != 3)
        return flow_fail(FLOW_ERR_INVALID, "images have 1 or 3 channels, not %d", channels);
    img->data = malloc((size_t)width * height * channels * sizeof(float));
    if (!img->data)
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate a %dx%dx%d image", width, height,
                         channels);
    img->width = width;
    img->height = height;
    img->channels = channels;
    return FLOW_OK;
}

void flow_image_free(flow_image *img)
{
    free(img->data);
    memset(img, 0, sizeof *img);
}

flow_status flow_image8_alloc(flow_image8 *img, int width, int height, int channels)
{
    memset(img, 0, sizeof *img);
    if (width < 1 || height < 1 || (long)width * height > FLOW_IMAGE_MAX_PIXELS)
        return flow_fail(FLOW_ERR_SIZE, "image size %dx%d out of range", width, height);
    if (channels != 1 && channels != 3)
        return flow_fail(FLOW_ERR_INVALID, "images have 1 or 3 channels, not %d", channels);
    img->data = malloc((size_t)width * height * channels);
    if (!img->data)
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate a %dx%dx%d 8-bit image", width, height,
                         channels);
    img->width = width;
    img->height = height;
    img->channels = channels;
    return FLOW_OK;
}

void flow_image8_free(flow_image8 *img)
{
    free(img->data);
    memset(img, 0, sizeof *img);
}

flow_status flow_image8_to_float(const flow_image8 *src, flow_image *dst)
{
    FLOW_TRY(flow_image_alloc(dst, src->width, src->height, src->channels));
    const size_t n = (size_t)src->width * src->height;
    const int ch = src->channels;
    for (int c = 0; c < ch; c++)
        for (size_t i = 0; i < n; i++)
            dst->data[c * n + i] = src->data[i * ch + c];
    return FLOW_OK;
}

flow_status flow_image_to_gray(const flow_image *src, flow_image *dst)
{
    FLOW_TRY(flow_image_alloc(dst, src->width, src->height, 1));
    return flow_image_gray_into(src, dst);
}

flow_status flow_image_gray_into(const flow_image *src, flow_image *dst)
{
    if (!dst->data || dst->width != src->width || dst->height != src->height
        || dst->channels != 1)
        return flow_fail(FLOW_ERR_SIZE, "gray image is %dx%dx%d, the source %dx%d",
                         dst->width, dst->height, dst->channels, src->width, src->height);
    const size_t n = (size_t)src->width * src->height;
    if (src->channels == 1) {
        memcpy(dst->data, src->data, n * sizeof(float));
        return FLOW_OK;
    }
    const float *r = src->data, *g = r + n, *b = g + n;
    for (size_t i = 0; i < n; i++)
        dst->data[i] = 0.299f * r[i] + 0.587f * g[i] + 0.114f * b[i];
    return FLOW_OK;
}

flow_status flow_field_alloc(flow_field *f, int width, int height)
{
    memset(f, 0, sizeof *f);
    if (width < 1 || height < 1 || (long)width * height > FLOW_IMAGE_MAX_PIXELS)
        return flow_fail(FLOW_ERR_SIZE, "flow field size %dx%d out of range", width, height);
    const size_t n = (size_t)width * height;
    f->u = malloc(n * sizeof(float));
    f->v = malloc(n * sizeof(float));
    if (!f->u || !f->v) {
        flow_field_free(f);
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate a %dx%d flow field", width, height);
    }
    f->width = width;
    f->height = height;
    return FLOW_OK;
}

void flow_field_free(flow_field *f)
{
    free(f->u);
    free(f->v);
    memset(f, 0, sizeof *f);
}
