/* text.c -- labels in the library's bitmap font (font.c): text drawn as
 * blocks of factor x factor pixels, plain or on a plate (contract in
 * flow/render.h).  Blocks rather than smoothed outlines: the labels of a
 * figure stay sharp when it is enlarged, and a test can name every pixel. */
#include "render/render_internal.h"
#include "base/fail.h"

#include <math.h>
#include <string.h>

void flow_text_size(const char *text, int factor, int *width, int *height)
{
    const size_t n = text ? strlen(text) : 0;
    if (width)
        *width = n ? (int)((FLOW_GLYPH_ADVANCE * n - 1) * (size_t)factor) : 0;
    if (height)
        *height = FLOW_GLYPH_HEIGHT * factor;
}

int flow_text_factor(int width)
{
    const int f = (int)lround(width / 320.0);
    return f < 1 ? 1 : f;
}

static flow_status check(const flow_image *img, const char *text, int factor, const char *who)
{
    if (!img || !img->data || img->channels != 3 || !text)
        return flow_fail(FLOW_ERR_INVALID, "%s: missing text or RGB image", who);
    if (factor < 1 || factor > 64)
        return flow_fail(FLOW_ERR_INVALID, "text factor %d out of range (1 to 64)", factor);
    return FLOW_OK;
}

/* Fills the rectangle [x0, x1) x [y0, y1), clipped to the image. */
static void fill(flow_image *img, long x0, long y0, long x1, long y1, const float rgb[3])
{
    x0 = x0 < 0 ? 0 : x0, y0 = y0 < 0 ? 0 : y0;
    x1 = x1 > img->width ? img->width : x1, y1 = y1 > img->height ? img->height : y1;
    const size_t plane = (size_t)img->width * img->height;
    for (long y = y0; y < y1; y++)
        for (long x = x0; x < x1; x++)
            for (int b = 0; b < 3; b++)
                img->data[b * plane + (size_t)y * img->width + x] = rgb[b];
}

flow_status flow_render_text(flow_image *img, int x, int y, const char *text, int factor,
                             const float rgb[3])
{
    FLOW_TRY(check(img, text, factor, "flow_render_text"));
    if (!rgb)
        return flow_fail(FLOW_ERR_INVALID, "flow_render_text: missing colour");
    const long advance = (long)FLOW_GLYPH_ADVANCE * factor;
    long gx = x; /* long: a long text may run far past the image */
    for (const char *c = text; *c && gx < img->width; c++, gx += advance) {
        if (gx + (long)FLOW_GLYPH_WIDTH * factor <= 0)
            continue; /* left of the image */
        const unsigned char *rows = flow_glyph((unsigned char)*c);
        for (int r = 0; r < FLOW_GLYPH_HEIGHT; r++)
            for (int col = 0; col < FLOW_GLYPH_WIDTH; col++)
                if (rows[r] & (0x10 >> col)) {
                    const long px = gx + (long)col * factor, py = (long)y + (long)r * factor;
                    fill(img, px, py, px + factor, py + factor, rgb);
                }
    }
    return FLOW_OK;
}

flow_status flow_render_label(flow_image *img, int x, int y, const char *text, int factor,
                              const float fg[3], const float bg[3])
{
    FLOW_TRY(check(img, text, factor, "flow_render_label"));
    if (!fg || !bg)
        return flow_fail(FLOW_ERR_INVALID, "flow_render_label: missing colour");
    int w, h;
    flow_text_size(text, factor, &w, &h);
    fill(img, x, y, (long)x + w + 2L * factor, (long)y + h + 2L * factor, bg);
    return flow_render_text(img, x + factor, y + factor, text, factor, fg);
}
