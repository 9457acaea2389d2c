/* canvas.h -- anti-aliased strokes and triangles for the pictures of
 * render/ (vector arrows, polylines), not installed.  Shapes are first
 * gathered in a coverage mask over a rectangle of the image (maximum over
 * strokes and triangles), then the colour is laid over the image once, so that strokes
 * that overlap or meet do not darken each other. */
#ifndef FLOW_RENDER_CANVAS_H
#define FLOW_RENDER_CANVAS_H

#include "flow/image.h"
#include "flow/status.h"

typedef struct flow_canvas {
    float *mask;      /* coverage 0..1 of the rectangle, row by row */
    int x0, y0, w, h; /* the rectangle of the image: columns x0.., rows y0.. */
    double half;      /* half the line width, pixels */
} flow_canvas;

/* A canvas of lines `width` pixels wide over the rectangle (x0, y0, w, h)
 * of an image, with nothing drawn.  FLOW_ERR_NOMEM. */
flow_status flow_canvas_open(flow_canvas *c, int x0, int y0, int w, int h, double width);
void flow_canvas_close(flow_canvas *c);
/* Adds the coverage of the segment (ax, ay)-(bx, by) (image coordinates,
 * (0, 0) the centre of the top-left pixel): 1 within half the width of the
 * segment, falling to 0 one pixel further.  A segment of length 0 is a dot. */
void flow_canvas_stroke(const flow_canvas *c, double ax, double ay, double bx, double by);
/* Adds the coverage of the filled triangle xy = (x0, y0, x1, y1, x2, y2),
 * grown by `grow` pixels on every side (0: the triangle itself): 1 inside,
 * falling to 0 over one pixel across its edges. */
void flow_canvas_triangle(const flow_canvas *c, const double xy[6], double grow);
/* Lays colour rgb (0..255) over the RGB image img by the coverage. */
void flow_canvas_lay(const flow_canvas *c, flow_image *img, const float rgb[3]);

#endif
