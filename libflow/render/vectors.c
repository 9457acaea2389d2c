/* render_vectors.c -- vector (quiver) plots drawn directly into an image,
 * for machines without gnuplot (GPU hosts, pipelines).  Each arrow is a
 * shaft and a two-stroke head, rasterised as anti-aliased lines on one
 * canvas over the whole picture (canvas.h), so that overlapping strokes do
 * not darken each other.  Lines are `zoom` pixels wide, so an enlarged
 * plot looks like the plain one scaled.  Contract in flow/render.h. */
#include "flow/render.h"
#include "base/fail.h"
#include "render/canvas.h"

#include <math.h>
#include <stddef.h>

/* One arrow from (x0, y0) to (x1, y1): the shaft and a head whose strokes
 * are a third of the shaft long (2 to 10 line widths) at 25 degrees.  A
 * shaft longer than twice the picture's perimeter is cut there (its end is
 * off the picture anyway), which bounds the work per arrow. */
static void arrow(const flow_canvas *c, double x0, double y0, double x1, double y1)
{
    const double dx = x1 - x0, dy = y1 - y0, len = hypot(dx, dy);
    if (len < 0.5) {
        flow_canvas_stroke(c, x0, y0, x0, y0);
        return;
    }
    const double limit = 2.0 * (c->w + c->h);
    if (len > limit) { /* the head is off the picture: draw the visible shaft */
        flow_canvas_stroke(c, x0, y0, x0 + dx / len * limit, y0 + dy / len * limit);
        return;
    }
    flow_canvas_stroke(c, x0, y0, x1, y1);
    const double width = 2.0 * c->half;
    double head = len / 3.0;
    head = head < 2.0 * width ? 2.0 * width : head > 10.0 * width ? 10.0 * width : head;
    const double ux = dx / len, uy = dy / len;
    const double cs = cos(25.0 * 3.14159265358979323846 / 180.0);
    const double sn = sin(25.0 * 3.14159265358979323846 / 180.0);
    /* the direction back along the shaft, rotated by +-25 degrees */
    const double lx = -(ux * cs - uy * sn), ly = -(ux * sn + uy * cs);
    const double rx = -(ux * cs + uy * sn), ry = -(-ux * sn + uy * cs);
    flow_canvas_stroke(c, x1, y1, x1 + head * lx, y1 + head * ly);
    flow_canvas_stroke(c, x1, y1, x1 + head * rx, y1 + head * ry);
}

flow_status flow_render_vectors(const flow_field *f, int step, double scale,
                                const float rgb[3], flow_image *img)
{
    if (!f || !f->u || !f->v || !img || !img->data || !rgb)
        return flow_fail(FLOW_ERR_INVALID, "flow_render_vectors: missing field or image");
    if (step < 1)
        return flow_fail(FLOW_ERR_INVALID, "vector grid step %d out of range (at least 1)",
                         step);
    if (!(scale > 0) || !isfinite(scale))
        return flow_fail(FLOW_ERR_INVALID, "vector scale %g out of range (positive, finite)",
                         scale);
    if (img->channels != 3 || img->width % f->width != 0 ||
        img->width / f->width != img->height / f->height ||
        img->height % f->height != 0)
        return flow_fail(FLOW_ERR_SIZE,
                         "a %dx%d picture is not an RGB enlargement of the %dx%d flow field",
                         img->width, img->height, f->width, f->height);
    const int zoom = img->width / f->width;
    flow_canvas cv;
    FLOW_TRY(flow_canvas_open(&cv, 0, 0, img->width, img->height, zoom)); /* lines zoom px wide */
    /* one arrow at the centre of every step x step cell */
    for (int y = step / 2; y < f->height; y += step)
        for (int x = step / 2; x < f->width; x += step) {
            const size_t i = (size_t)y * f->width + x;
            if (flow_is_unknown(f->u[i], f->v[i]))
                continue;
            const double x0 = (x + 0.5) * zoom - 0.5, y0 = (y + 0.5) * zoom - 0.5;
            const double x1 = x0 + scale * zoom * f->u[i], y1 = y0 + scale * zoom * f->v[i];
            if (!isfinite(x1) || !isfinite(y1))
                continue; /* scale * a huge known vector: no drawable end */
            arrow(&cv, x0, y0, x1, y1);
        }
    flow_canvas_lay(&cv, img, rgb);
    flow_canvas_close(&cv);
    return FLOW_OK;
}
