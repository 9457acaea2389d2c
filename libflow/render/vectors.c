/* vectors.c -- vector (quiver) plots drawn directly into an image: the one
 * arrow renderer of flow-tool vectors and mix, flow-compute --vectors and
 * the montages.  Each arrow is a shaft and a filled head, rasterised as
 * anti-aliased shapes on one canvas over the whole picture (canvas.h), so
 * that overlapping arrows do not darken each other; with an outline, a
 * second canvas of the same arrows one pixel fatter is laid first in the
 * contrasting colour.  The line width and the heads follow the grid step,
 * so that a plot looks alike at every size.  Contract in flow/render.h. */
#include "render/render_internal.h"
#include "base/fail.h"
#include "render/canvas.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>

int flow_vector_step(int width, int height)
{
    const int side = width < height ? width : height;
    const int step = (int)lround(side / 18.0);
    return step < 8 ? 8 : step;
}

flow_vector_style flow_vector_defaults(flow_backdrop backdrop)
{
    flow_vector_style s = {0, 0.0, 0.0, {0.0f, 0.0f, 0.0f}, 0};
    if (backdrop == FLOW_BACKDROP_FRAME) {
        s.rgb[0] = s.rgb[1] = 255.0f; /* yellow */
        s.outline = 1;
    } else if (backdrop == FLOW_BACKDROP_COLOR) {
        s.outline = 1;
    }
    return s;
}

/* The shape of every arrow of a plot, in picture pixels. */
typedef struct arrow_shape {
    double width;    /* line width */
    double head_max; /* the longest head: 0.3 step */
} arrow_shape;

/* One arrow from (x0, y0) to (x1, y1) on canvas c, its head grown by
 * `grow` pixels (the outline's canvas is also one pixel wider per side).
 * A shaft longer than twice the picture's perimeter is cut there (its end
 * is off the picture anyway), which bounds the work per arrow. */
static void arrow(const flow_canvas *c, double grow, const arrow_shape *a, double x0, double y0,
                  double x1, double y1)
{
    const double dx = x1 - x0, dy = y1 - y0, len = hypot(dx, dy);
    if (len < 0.5) {
        flow_canvas_stroke(c, x0, y0, x0, y0);
        return;
    }
    const double ux = dx / len, uy = dy / len;
    const double limit = 2.0 * (c->w + c->h);
    if (len > limit) { /* the head is off the picture: draw the visible shaft */
        flow_canvas_stroke(c, x0, y0, x0 + ux * limit, y0 + uy * limit);
        return;
    }
    /* 35 % of the arrow, at most head_max, but at least 2.5 line widths
     * (readable on a dense grid, yet short arrows keep a shaft), and never
     * longer than the arrow; at least 2.5 line widths wide, so that the
     * head stands out of the shaft */
    double head = fmax(fmin(0.35 * len, a->head_max), 2.5 * a->width);
    head = fmin(head, len);
    const double bx = x1 - head * ux, by = y1 - head * uy; /* the middle of the head's base */
    const double half = fmax(0.35 * head, 1.25 * a->width); /* half the head's width */
    if (len > head)
        flow_canvas_stroke(c, x0, y0, bx, by);
    const double tri[6] = {x1, y1, bx - half * uy, by + half * ux, bx + half * uy, by - half * ux};
    flow_canvas_triangle(c, tri, grow);
}

/* Black or white, whichever differs more in brightness from rgb. */
static void contrast_of(const float rgb[3], float out[3])
{
    const float luma = 0.299f * rgb[0] + 0.587f * rgb[1] + 0.114f * rgb[2];
    out[0] = out[1] = out[2] = luma > 127.5f ? 0.0f : 255.0f;
}

/* The first grid point of a side of n pixels: the grid centred, with
 * equal margins on both sides. */
static int grid_start(int n, int step)
{
    return ((n - 1) % step) / 2;
}

/* The longest known vector at the grid points: the longest arrow. */
static double longest_arrow(const flow_field *f, int step)
{
    double m = 0;
    for (int y = grid_start(f->height, step); y < f->height; y += step)
        for (int x = grid_start(f->width, step); x < f->width; x += step) {
            const size_t i = (size_t)y * f->width + x;
            if (!flow_is_unknown(f->u[i], f->v[i]))
                m = fmax(m, hypot(f->u[i], f->v[i]));
        }
    return m;
}

/* Every arrow of f onto canvas c (grown by `grow` for an outline). */
static void draw_arrows(const flow_field *f, const flow_vector_style *s, int zoom,
                        const arrow_shape *a, const flow_canvas *c, double grow)
{
    for (int y = grid_start(f->height, s->step); y < f->height; y += s->step)
        for (int x = grid_start(f->width, s->step); x < f->width; x += s->step) {
            const size_t i = (size_t)y * f->width + x;
            if (flow_is_unknown(f->u[i], f->v[i]))
                continue;
            const double x0 = (x + 0.5) * zoom - 0.5, y0 = (y + 0.5) * zoom - 0.5;
            const double x1 = x0 + s->scale * zoom * f->u[i];
            const double y1 = y0 + s->scale * zoom * f->v[i];
            if (!isfinite(x1) || !isfinite(y1))
                continue; /* scale * a huge known vector: no drawable end */
            arrow(c, grow, a, x0, y0, x1, y1);
        }
}

flow_status flow_render_vectors(const flow_field *f, const flow_vector_style *style,
                                flow_image *img, flow_vector_style *used)
{
    if (!f || !f->u || !f->v || !style || !img || !img->data)
        return flow_fail(FLOW_ERR_INVALID, "flow_render_vectors: missing field, style or image");
    if (style->step < 0)
        return flow_fail(FLOW_ERR_INVALID, "vector grid step %d out of range (at least 1; 0: "
                         "automatic)", style->step);
    if (!(style->scale >= 0) || !isfinite(style->scale))
        return flow_fail(FLOW_ERR_INVALID, "vector scale %g out of range (positive, finite; 0: "
                         "automatic)", style->scale);
    if (!(style->max_radius >= 0) || !isfinite(style->max_radius))
        return flow_fail(FLOW_ERR_INVALID, "vector length %g out of range (positive, finite; 0: "
                         "the longest vector)", style->max_radius);
    if (img->channels != 3 || img->width % f->width != 0 ||
        img->width / f->width != img->height / f->height ||
        img->height % f->height != 0)
        return flow_fail(FLOW_ERR_SIZE,
                         "a %dx%d picture is not an RGB enlargement of the %dx%d flow field",
                         img->width, img->height, f->width, f->height);
    flow_vector_style s = *style;
    if (s.step == 0)
        s.step = flow_vector_step(f->width, f->height);
    if (s.scale == 0) {
        double R = s.max_radius > 0 ? s.max_radius : longest_arrow(f, s.step);
        R = R > 0 ? R : 1.0;
        s.scale = FLOW_VECTOR_REACH * s.step / R;
    }
    const int zoom = img->width / f->width;
    const double width = zoom * fmax(1.0, s.step / 16.0);
    const arrow_shape a = {width, 0.3 * s.step * zoom};
    flow_canvas body, rim = {0};
    FLOW_TRY(flow_canvas_open(&body, 0, 0, img->width, img->height, width));
    if (s.outline) {
        const flow_status st = flow_canvas_open(&rim, 0, 0, img->width, img->height, width + 2);
        if (st != FLOW_OK) {
            flow_canvas_close(&body);
            return st;
        }
        float rgb[3];
        contrast_of(s.rgb, rgb);
        draw_arrows(f, &s, zoom, &a, &rim, 1.0);
        flow_canvas_lay(&rim, img, rgb);
        flow_canvas_close(&rim);
    }
    draw_arrows(f, &s, zoom, &a, &body, 0.0);
    flow_canvas_lay(&body, img, s.rgb);
    flow_canvas_close(&body);
    if (used)
        *used = s;
    return FLOW_OK;
}

double flow_round_length(double r)
{
    if (!(r > 0) || !isfinite(r))
        return 0;
    const double p = pow(10.0, floor(log10(r)));
    /* log10 may land a hair below an exact power of ten */
    const double m = r / p >= 10.0 ? 10.0 : r / p;
    return (m >= 5.0 ? 5.0 : m >= 2.0 ? 2.0 : 1.0) * p;
}

/* One arrow from (ax, ay) to (bx, by) in the style s, on canvases over the
 * rectangle (x0, y0, w, h) of img: its outline first when s has one. */
static flow_status lay_arrow(flow_image *img, const flow_vector_style *s, const arrow_shape *a,
                             int x0, int y0, int w, int h, double ax, double ay, double bx,
                             double by)
{
    flow_canvas c;
    if (s->outline) {
        float rgb[3];
        contrast_of(s->rgb, rgb);
        FLOW_TRY(flow_canvas_open(&c, x0, y0, w, h, a->width + 2));
        arrow(&c, 1.0, a, ax, ay, bx, by);
        flow_canvas_lay(&c, img, rgb);
        flow_canvas_close(&c);
    }
    FLOW_TRY(flow_canvas_open(&c, x0, y0, w, h, a->width));
    arrow(&c, 0.0, a, ax, ay, bx, by);
    flow_canvas_lay(&c, img, s->rgb);
    flow_canvas_close(&c);
    return FLOW_OK;
}

flow_status flow_render_vector_key(flow_image *img, const flow_vector_style *used, int zoom)
{
    if (!img || !img->data || img->channels != 3 || !used)
        return flow_fail(FLOW_ERR_INVALID, "flow_render_vector_key: missing RGB picture or style");
    if (used->step < 1 || !(used->scale > 0) || !isfinite(used->scale) || zoom < 1)
        return flow_fail(FLOW_ERR_INVALID, "flow_render_vector_key: the style of a drawn plot "
                         "(step and scale applied) and a zoom of at least 1 are needed");
    /* the reference: the roundest motion whose arrow spans the reach */
    const double motion = flow_round_length(FLOW_VECTOR_REACH * used->step / used->scale);
    const double length = motion * used->scale * zoom; /* picture pixels */
    char text[64];
    snprintf(text, sizeof text, "%.6g px, one per %d px", motion, used->step);
    const int factor = flow_text_factor(img->width);
    int tw, th;
    flow_text_size(text, factor, &tw, &th);
    const double width = zoom * fmax(1.0, used->step / 16.0);
    const int pad = 2 * factor;
    const int arrow_w = (int)ceil(length) + 2 * (int)ceil(width);
    const int plate_w = pad + arrow_w + pad + tw + pad, plate_h = th + 2 * pad;
    const int x0 = pad, y0 = img->height - plate_h - pad;
    if (x0 + plate_w > img->width - pad || y0 < img->height / 2)
        return flow_fail(FLOW_ERR_SIZE, "a %dx%d picture cannot hold the key of its arrows "
                         "(%dx%d)", img->width, img->height, plate_w, plate_h);
    static const float black[3] = {0, 0, 0};
    const size_t plane = (size_t)img->width * img->height;
    for (int y = y0; y < y0 + plate_h; y++)
        for (int x = x0; x < x0 + plate_w; x++)
            for (int b = 0; b < 3; b++)
                img->data[b * plane + (size_t)y * img->width + x] = 255.0f;
    const arrow_shape a = {width, 0.3 * used->step * zoom};
    const double ay = y0 + 0.5 * plate_h, ax = x0 + pad + ceil(width);
    FLOW_TRY(lay_arrow(img, used, &a, x0, y0, plate_w, plate_h, ax, ay, ax + length, ay));
    return flow_render_text(img, x0 + pad + arrow_w + pad, y0 + pad, text, factor, black);
}
