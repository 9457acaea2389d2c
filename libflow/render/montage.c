/* montage.c -- several pictures side by side in one figure, each with its
 * label above it and a title above all, on white (contract and layout in
 * flow/render.h): what ImageMagick's montage did for the pipeline, without
 * ImageMagick or a font file.  Every size is a multiple of the text
 * factor, so a figure looks alike at every frame size. */
#include "render/render_internal.h"
#include "base/fail.h"

#include <string.h>

/* The height of a strip of text: the glyphs and a factor above and below. */
static int strip_height(int factor)
{
    return (FLOW_GLYPH_HEIGHT + 2) * factor;
}

static int text_width(const char *text, int factor)
{
    int w;
    flow_text_size(text, factor, &w, NULL);
    return w;
}

/* The largest factor <= `factor`, and at least 1, at which text fits
 * `room` pixels. */
static int fitting_factor(const char *text, int factor, long room)
{
    while (factor > 1 && text_width(text, factor) > room)
        factor--;
    return factor;
}

flow_status flow_montage_plan(const flow_panel *panels, int n, int columns, const char *title,
                              flow_montage_layout *out)
{
    memset(out, 0, sizeof *out);
    if (!panels || n < 1 || n > 64)
        return flow_fail(FLOW_ERR_INVALID, "a montage of %d panels (1 to 64)", n);
    if (columns < 0 || columns > 64)
        return flow_fail(FLOW_ERR_INVALID, "a montage of %d columns (1 to 64; 0: automatic)",
                         columns);
    flow_montage_layout l = {0};
    int labelled = 0;
    for (int i = 0; i < n; i++) {
        const flow_image *im = panels[i].image;
        if (!im || !im->data || im->width < 1 || im->height < 1 ||
            (im->channels != 1 && im->channels != 3))
            return flow_fail(FLOW_ERR_INVALID, "montage panel %d has no gray or RGB picture",
                             i + 1);
        l.cell_width = im->width > l.cell_width ? im->width : l.cell_width;
        l.cell_height = im->height > l.cell_height ? im->height : l.cell_height;
        labelled |= panels[i].label && *panels[i].label;
    }
    l.columns = columns ? columns : n <= 4 ? n : (n + 1) / 2;
    l.columns = l.columns > n ? n : l.columns;
    l.rows = (n + l.columns - 1) / l.columns;
    l.panels = n;
    l.factor = flow_text_factor(l.cell_width);
    for (int i = 0; i < n; i++)
        if (panels[i].label)
            l.factor = fitting_factor(panels[i].label, l.factor, l.cell_width);
    l.gap = 4 * l.factor;
    l.label_height = labelled ? strip_height(l.factor) : 0;
    const long width = l.gap + (long)l.columns * (l.cell_width + l.gap);
    if (title && *title) {
        l.title_factor = fitting_factor(title, l.factor + 1, width - 2L * l.gap);
        l.title_height = strip_height(l.title_factor);
    }
    const long height =
        l.gap + l.title_height + (long)l.rows * (l.label_height + l.cell_height + l.gap);
    if (width > (1L << 30) || height > (1L << 30) || width * height > FLOW_IMAGE_MAX_PIXELS)
        return flow_fail(FLOW_ERR_SIZE,
                         "a montage of %d panels of up to %dx%d in %d columns is too large",
                         n, l.cell_width, l.cell_height, l.columns);
    l.width = (int)width, l.height = (int)height;
    *out = l;
    return FLOW_OK;
}

/* The top-left corner of cell i (its label strip, then its picture): row
 * after row, the last row, when it is shorter, centred. */
static void cell_origin(const flow_montage_layout *l, int i, int *x, int *y)
{
    const int c = i % l->columns, r = i / l->columns;
    const int in_row = r == l->rows - 1 ? l->panels - r * l->columns : l->columns;
    const int indent = (l->columns - in_row) * (l->cell_width + l->gap) / 2;
    *x = l->gap + indent + c * (l->cell_width + l->gap);
    *y = l->gap + l->title_height + r * (l->label_height + l->cell_height + l->gap);
}

void flow_montage_origin(const flow_montage_layout *l, const flow_panel *panels, int i, int *x,
                         int *y)
{
    const flow_image *im = panels[i].image;
    cell_origin(l, i, x, y);
    *x += (l->cell_width - im->width) / 2;
    *y += l->label_height + (l->cell_height - im->height) / 2;
}

/* Copies a gray or RGB picture into the RGB image out at (x0, y0). */
static void paste(flow_image *out, const flow_image *im, int x0, int y0)
{
    const size_t op = (size_t)out->width * out->height, ip = (size_t)im->width * im->height;
    for (int b = 0; b < 3; b++) {
        const float *src = im->data + (im->channels == 3 ? b * ip : 0);
        for (int y = 0; y < im->height; y++)
            memcpy(out->data + b * op + (size_t)(y0 + y) * out->width + x0,
                   src + (size_t)y * im->width, (size_t)im->width * sizeof *src);
    }
}

/* Text centred on [x0, x0 + room), top at y; when it is wider than that,
 * from x0 on, as many characters as fit whole. */
static flow_status centred_text(flow_image *img, int x0, int y, int room, const char *text,
                                int factor)
{
    static const float black[3] = {0, 0, 0};
    const int w = text_width(text, factor);
    if (w <= room)
        return flow_render_text(img, x0 + (room - w) / 2, y, text, factor, black);
    char one[2] = {0, 0};
    const int advance = FLOW_GLYPH_ADVANCE * factor;
    for (int k = 0; text[k] && (k + 1) * advance - factor <= room; k++) {
        one[0] = text[k];
        FLOW_TRY(flow_render_text(img, x0 + k * advance, y, one, factor, black));
    }
    return FLOW_OK;
}

flow_status flow_render_montage(const flow_panel *panels, int n, int columns, const char *title,
                                flow_image *out, flow_montage_layout *layout)
{
    memset(out, 0, sizeof *out);
    flow_montage_layout l;
    FLOW_TRY(flow_montage_plan(panels, n, columns, title, &l));
    FLOW_TRY(flow_image_alloc(out, l.width, l.height, 3));
    for (size_t i = 0; i < 3 * (size_t)l.width * l.height; i++)
        out->data[i] = 255.0f;
    flow_status s = FLOW_OK;
    if (l.title_height)
        s = centred_text(out, l.gap, l.gap + l.title_factor, l.width - 2 * l.gap, title,
                         l.title_factor);
    for (int i = 0; i < n && s == FLOW_OK; i++) {
        int x, y;
        flow_montage_origin(&l, panels, i, &x, &y);
        paste(out, panels[i].image, x, y);
        if (panels[i].label && *panels[i].label) {
            int cx, cy;
            cell_origin(&l, i, &cx, &cy);
            s = centred_text(out, cx, cy + l.factor, l.cell_width, panels[i].label, l.factor);
        }
    }
    if (s != FLOW_OK) {
        flow_image_free(out);
        return s;
    }
    if (layout)
        *layout = l;
    return FLOW_OK;
}
