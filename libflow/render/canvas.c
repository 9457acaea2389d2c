/* canvas.c -- anti-aliased strokes and triangles (canvas.h) and the
 * polylines drawn with them (flow_render_polyline, contract in
 * flow/render.h).  A stroke is sampled every half pixel along its length;
 * each sample covers the pixels around it by their distance to the whole
 * segment, so the coverage of a pixel is 1 at the line's centre falling
 * linearly to 0 one pixel away.  A triangle covers a pixel by its distance
 * inside the nearest edge, falling to 0 half a pixel outside. */
#include "render/canvas.h"
#include "flow/render.h"
#include "base/fail.h"

#include <math.h>
#include <stdlib.h>

flow_status flow_canvas_open(flow_canvas *c, int x0, int y0, int w, int h, double width)
{
    c->x0 = x0, c->y0 = y0, c->w = w, c->h = h;
    c->half = 0.5 * width;
    c->mask = calloc((size_t)w * h, sizeof *c->mask);
    if (!c->mask)
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate a %dx%d drawing mask", w, h);
    return FLOW_OK;
}

void flow_canvas_close(flow_canvas *c)
{
    free(c->mask);
    c->mask = NULL;
}

/* Distance from point (px, py) to the segment (ax, ay)-(bx, by). */
static double segment_distance(double px, double py, double ax, double ay, double bx, double by)
{
    const double dx = bx - ax, dy = by - ay, len2 = dx * dx + dy * dy;
    double t = len2 > 0 ? ((px - ax) * dx + (py - ay) * dy) / len2 : 0.0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    const double ex = ax + t * dx - px, ey = ay + t * dy - py;
    return sqrt(ex * ex + ey * ey);
}

void flow_canvas_stroke(const flow_canvas *c, double ax, double ay, double bx, double by)
{
    const double len = hypot(bx - ax, by - ay);
    const int steps = (int)ceil(len * 2.0) + 1; /* samples every half pixel */
    const int r = (int)ceil(c->half + 0.5);
    for (int s = 0; s <= steps; s++) {
        const double t = (double)s / steps;
        const int cx = (int)lround(ax + t * (bx - ax)), cy = (int)lround(ay + t * (by - ay));
        for (int y = cy - r; y <= cy + r; y++) {
            if (y < c->y0 || y >= c->y0 + c->h)
                continue;
            for (int x = cx - r; x <= cx + r; x++) {
                if (x < c->x0 || x >= c->x0 + c->w)
                    continue;
                double cov = c->half + 0.5 - segment_distance(x, y, ax, ay, bx, by);
                cov = cov > 1.0 ? 1.0 : cov;
                float *m = c->mask + (size_t)(y - c->y0) * c->w + (x - c->x0);
                if (cov > *m)
                    *m = (float)cov;
            }
        }
    }
}

/* The signed distance from (px, py) to the line through a and b, positive
 * on the side where the triangle's third corner lies (sign s). */
static double edge_distance(double px, double py, double ax, double ay, double bx, double by,
                            double s)
{
    const double dx = bx - ax, dy = by - ay, len = hypot(dx, dy);
    return len > 0 ? s * ((px - ax) * dy - (py - ay) * dx) / len : -INFINITY;
}

void flow_canvas_triangle(const flow_canvas *c, const double xy[6], double grow)
{
    /* the orientation: which side of each edge is inside */
    const double area = (xy[2] - xy[0]) * (xy[5] - xy[1]) - (xy[3] - xy[1]) * (xy[4] - xy[0]);
    if (area == 0)
        return; /* no inside */
    const double s = area > 0 ? -1.0 : 1.0;
    const double reach = grow + 1.0;
    const double lo_x = fmin(xy[0], fmin(xy[2], xy[4])) - reach;
    const double hi_x = fmax(xy[0], fmax(xy[2], xy[4])) + reach;
    const double lo_y = fmin(xy[1], fmin(xy[3], xy[5])) - reach;
    const double hi_y = fmax(xy[1], fmax(xy[3], xy[5])) + reach;
    const int x0 = (int)fmax(c->x0, ceil(lo_x)), x1 = (int)fmin(c->x0 + c->w - 1, floor(hi_x));
    const int y0 = (int)fmax(c->y0, ceil(lo_y)), y1 = (int)fmin(c->y0 + c->h - 1, floor(hi_y));
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++) {
            /* the distance inside the nearest edge (negative outside) */
            double d = edge_distance(x, y, xy[0], xy[1], xy[2], xy[3], s);
            d = fmin(d, edge_distance(x, y, xy[2], xy[3], xy[4], xy[5], s));
            d = fmin(d, edge_distance(x, y, xy[4], xy[5], xy[0], xy[1], s));
            double cov = d + 0.5 + grow;
            cov = cov > 1.0 ? 1.0 : cov;
            float *m = c->mask + (size_t)(y - c->y0) * c->w + (x - c->x0);
            if (cov > *m)
                *m = (float)cov;
        }
}

void flow_canvas_lay(const flow_canvas *c, flow_image *img, const float rgb[3])
{
    const size_t plane = (size_t)img->width * img->height;
    for (int y = 0; y < c->h; y++)
        for (int x = 0; x < c->w; x++) {
            const float m = c->mask[(size_t)y * c->w + x];
            if (!(m > 0))
                continue;
            const size_t i = (size_t)(c->y0 + y) * img->width + (c->x0 + x);
            for (int b = 0; b < 3; b++) {
                float *p = img->data + b * plane + i;
                *p = (1.0f - m) * *p + m * rgb[b];
            }
        }
}

/* Clips the segment a-b to the rectangle [x0, x1] x [y0, y1] (Liang and
 * Barsky): 0 when nothing of it is inside.  Keeps the work of a stroke
 * proportional to what it can cover, however far its ends lie. */
static int clip(double *ax, double *ay, double *bx, double *by, double x0, double y0, double x1,
                double y1)
{
    const double dx = *bx - *ax, dy = *by - *ay;
    const double p[4] = {-dx, dx, -dy, dy};
    const double q[4] = {*ax - x0, x1 - *ax, *ay - y0, y1 - *ay};
    double t0 = 0, t1 = 1;
    for (int i = 0; i < 4; i++) {
        if (p[i] == 0) {
            if (q[i] < 0)
                return 0; /* parallel to this edge and outside it */
            continue;
        }
        const double t = q[i] / p[i];
        if (p[i] < 0 && t > t0)
            t0 = t;
        else if (p[i] > 0 && t < t1)
            t1 = t;
    }
    if (t0 > t1)
        return 0;
    const double sx = *ax, sy = *ay;
    *ax = sx + t0 * dx, *ay = sy + t0 * dy;
    *bx = sx + t1 * dx, *by = sy + t1 * dy;
    return 1;
}

flow_status flow_render_polyline(flow_image *img, const float *xy, int n, double width,
                                 const float rgb[3])
{
    if (!img || !img->data || img->channels != 3 || !xy || !rgb)
        return flow_fail(FLOW_ERR_INVALID, "flow_render_polyline: missing points or RGB image");
    if (n < 1)
        return flow_fail(FLOW_ERR_INVALID, "polyline of %d points (at least 1)", n);
    if (!(width > 0 && width <= 1000))
        return flow_fail(FLOW_ERR_INVALID, "line width %g out of range (0 < width <= 1000)",
                         width);
    double lo_x = INFINITY, lo_y = INFINITY, hi_x = -INFINITY, hi_y = -INFINITY;
    for (int i = 0; i < n; i++) {
        const double x = xy[2 * i], y = xy[2 * i + 1];
        if (!isfinite(x) || !isfinite(y))
            return flow_fail(FLOW_ERR_INVALID, "polyline point %d (%g, %g) is not finite", i,
                             x, y);
        lo_x = fmin(lo_x, x), hi_x = fmax(hi_x, x);
        lo_y = fmin(lo_y, y), hi_y = fmax(hi_y, y);
    }
    /* The rectangle the line can cover: its points' box widened by the
     * reach of a stroke, inside the image. */
    const double reach = ceil(0.5 * width + 0.5) + 1;
    const double x0 = fmax(0, floor(lo_x - reach)), x1 = fmin(img->width - 1, ceil(hi_x + reach));
    const double y0 = fmax(0, floor(lo_y - reach)), y1 = fmin(img->height - 1, ceil(hi_y + reach));
    if (x0 > x1 || y0 > y1)
        return FLOW_OK; /* all of it outside the picture */
    flow_canvas c;
    FLOW_TRY(flow_canvas_open(&c, (int)x0, (int)y0, (int)(x1 - x0) + 1, (int)(y1 - y0) + 1,
                              width));
    for (int i = 0; i < (n > 1 ? n - 1 : 1); i++) {
        double ax = xy[2 * i], ay = xy[2 * i + 1];
        double bx = n > 1 ? xy[2 * i + 2] : ax, by = n > 1 ? xy[2 * i + 3] : ay;
        if (clip(&ax, &ay, &bx, &by, x0 - reach, y0 - reach, x1 + reach, y1 + reach))
            flow_canvas_stroke(&c, ax, ay, bx, by);
    }
    flow_canvas_lay(&c, img, rgb);
    flow_canvas_close(&c);
    return FLOW_OK;
}
