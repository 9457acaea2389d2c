/* map.c -- a per-pixel map of values in [0, 1] (a confidence) to a file
 * (contract in flow/image.h): a grey Portable Float Map ("Pf", the values
 * bit for bit) or a 16-bit grey PNG (round(65535 v)). */
#include "flow/atomic_file.h"
#include "flow/image.h"
#include "base/fail.h"
#include "image_formats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int ends_with(const char *s, const char *ext)
{
    const size_t n = strlen(s), e = strlen(ext);
    return n > e && strcmp(s + n - e, ext) == 0;
}

static flow_status write_pfm(const char *path, const float *v, int w, int h)
{
    flow_atomic a;
    FLOW_TRY(flow_atomic_open(&a, path));
    int ok = fprintf(a.f, "Pf\n%d %d\n-1\n", w, h) > 0;
    /* rows from the bottom, little-endian floats */
    for (int y = h - 1; ok && y >= 0; y--)
        for (int x = 0; ok && x < w; x++) {
            unsigned char b[4];
            unsigned u;
            memcpy(&u, &v[(size_t)y * w + x], 4);
            for (int k = 0; k < 4; k++)
                b[k] = (unsigned char)(u >> (8 * k));
            ok = fwrite(b, 1, 4, a.f) == 4;
        }
    if (!ok) {
        flow_atomic_abort(&a);
        return flow_fail(FLOW_ERR_IO, "%s: write failed", path);
    }
    return flow_atomic_commit(&a);
}

flow_status flow_map_write(const char *path, const float *values, int width, int height)
{
    if (!path || !values || width < 1 || height < 1)
        return flow_fail(FLOW_ERR_INVALID, "flow_map_write: missing path or values");
    const size_t n = (size_t)width * height;
    for (size_t i = 0; i < n; i++)
        if (!(values[i] >= 0.0f && values[i] <= 1.0f))
            return flow_fail(FLOW_ERR_INVALID, "%s: value %g at pixel (%zu, %zu) is not in "
                                               "[0, 1]",
                             path, (double)values[i], i % width, i / width);
    if (ends_with(path, ".pfm"))
        return write_pfm(path, values, width, height);
    if (!ends_with(path, ".png"))
        return flow_fail(FLOW_ERR_INVALID, "%s: a map is written as .pfm or .png (16 bits)",
                         path);
    unsigned short *q = malloc(sizeof *q * n);
    if (!q)
        return flow_fail(FLOW_ERR_NOMEM, "%s: cannot allocate %dx%d samples", path, width,
                         height);
    for (size_t i = 0; i < n; i++)
        q[i] = (unsigned short)lrintf(values[i] * 65535.0f);
    const flow_status s = flow_png_write_gray16(path, q, width, height);
    free(q);
    return s;
}
