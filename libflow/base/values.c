/* values.c -- the values a context or a tracker computes on: finite, of
 * magnitude at most FLOW_IMAGE_VALUE_MAX (flow/image.h says why). */
#include "flow/image.h"
#include "base/fail.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* 1 when the row holds a value out of range.  On the bits: a float's
 * magnitude orders as its bits without the sign, and NaN and the
 * infinities lie above every finite value; eight at a time with no early
 * exit, so that the loop vectorises and a frame costs one read. */
static int row_out_of_range(const float *row, int n)
{
    const float max = (float)FLOW_IMAGE_VALUE_MAX;
    int32_t limit;
    memcpy(&limit, &max, sizeof limit);
    int32_t out = 0;
    int x = 0;
    for (; x + 8 <= n; x += 8) {
        int32_t b[8];
        memcpy(b, row + x, sizeof b);
        for (int k = 0; k < 8; k++)
            out |= (b[k] & 0x7fffffff) > limit;
    }
    for (; x < n; x++)
        out |= !(fabsf(row[x]) <= max);
    return out != 0;
}

flow_status flow_image_check_values(const flow_image *img, const char *what)
{
    const size_t plane = (size_t)img->width * (size_t)img->height;
    for (int c = 0; c < img->channels; c++)
        for (int y = 0; y < img->height; y++) {
            const float *row = img->data + c * plane + (size_t)y * (size_t)img->width;
            if (!row_out_of_range(row, img->width))
                continue;
            int x = 0;
            while (fabsf(row[x]) <= (float)FLOW_IMAGE_VALUE_MAX)
                x++;
            const float v = row[x];
            if (isfinite(v))
                return flow_fail(FLOW_ERR_INVALID,
                                 "%s has the value %g at pixel (%d, %d), channel %d: expected "
                                 "values of magnitude at most %g",
                                 what, v, x, y, c, FLOW_IMAGE_VALUE_MAX);
            return flow_fail(FLOW_ERR_INVALID,
                             "%s has a non-finite value (%s) at pixel (%d, %d), channel %d: "
                             "expected finite values of magnitude at most %g",
                             what, isnan(v) ? "nan" : v > 0 ? "inf" : "-inf", x, y, c,
                             FLOW_IMAGE_VALUE_MAX);
        }
    return FLOW_OK;
}
