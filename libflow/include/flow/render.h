/* render.h -- pictures of flow fields: the Middlebury colour coding, its
 * legend, blends with a frame, and vector (quiver) arrows and lines drawn
 * directly into an image (no gnuplot needed).
 *
 * Colour coding (Baker et al., IJCV 2011; seed 001 figure A.1): the hue is
 * the direction, from atan2(-v, -u) over a wheel of 55 colours built from
 * six segments (red-yellow 15, yellow-green 6, green-cyan 4, cyan-blue 11,
 * blue-magenta 13, magenta-red 6), interpolated linearly between the two
 * nearest wheel colours; the saturation is the radius r = |(u, v)| / R:
 * white at r = 0, the full wheel colour at r = 1, and the colour darkened
 * to 75 % beyond 1 (only when R is fixed below the field's largest radius).
 * R is the largest known radius of the field, or a fixed value so that the
 * frames of a video share one scale.  Unknown vectors are black.  Rightward
 * motion is red, downward yellow-orange, leftward cyan-blue, upward
 * blue-violet.  Channel values are rounded to integers 0..255 (Middlebury's
 * code truncates; the two differ by at most one level).
 *
 * Images are flow_image (image.h): planar float RGB on the 0..255 scale.
 * Functions that produce an image allocate it (flow_image_free releases
 * it); on failure it is left empty. */
#ifndef FLOW_RENDER_H
#define FLOW_RENDER_H

#include "flow/field.h"
#include "flow/image.h"
#include "flow/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Number of colours of the wheel. */
#define FLOW_COLORWHEEL_SIZE 55

/* The wheel colour k (0..54) as 0..255 integers, k = 0 being pure red. */
void flow_colorwheel(int k, int rgb[3]);

/* The colour of a vector already divided by the scale R (radius 1 = full
 * saturation), as rounded 0..255 values; black for NaN or infinity.  (A
 * vector's being unknown is a property of the raw vector, before the
 * division: flow_render_color tests it and paints it black.) */
void flow_color_of(double fu, double fv, float rgb[3]);

/* The largest radius |(u, v)| over the known vectors (0 when none is). */
double flow_max_radius(const flow_field *f);

/* The colour coding of f into a newly allocated RGB image of its size.
 * max_radius > 0 fixes R; max_radius <= 0 uses flow_max_radius(f) (and 1
 * when that is 0, so that zero flow is white).  Unknown vectors (NaN
 * included) are black.  *used (may be NULL) receives the R applied.
 * FLOW_ERR_INVALID for a missing field or a NaN/infinite max_radius. */
flow_status flow_render_color(const flow_field *f, double max_radius, flow_image *rgb,
                              double *used);

/* The colour coding with the key around it: a frame `border` pixels wide
 * (border <= 0: 8 % of the smaller side, at least 6 and at most 64) in
 * which every pixel has the full-saturation colour of the direction from
 * the picture's centre to it, so that an object moving towards an edge has
 * the colour of that edge.  Output size (w + 2 border) x (h + 2 border). */
flow_status flow_render_color_framed(const flow_field *f, double max_radius, int border,
                                     flow_image *rgb, double *used);

/* The colour wheel alone (seed 001 figure A.1): a size x size RGB image,
 * white outside a disc of radius 1 that shows the colour of every vector
 * of length up to R, with its outline and the two axes in grey.
 * size 32..4096. */
flow_status flow_render_legend(int size, flow_image *rgb);

/* out = (1 - alpha) frame + alpha color, channel by channel; a gray frame
 * is used for all three channels.  Sizes must match (FLOW_ERR_SIZE naming
 * both); alpha in [0, 1]. */
flow_status flow_render_blend(const flow_image *frame, const flow_image *color, double alpha,
                              flow_image *out);

/* A gray or RGB image as a newly allocated RGB image enlarged `zoom` times
 * (nearest neighbour; zoom 1..64). */
flow_status flow_render_zoom_rgb(const flow_image *src, int zoom, flow_image *out);

/* Vector (quiver) arrows drawn into an RGB image whose size is an integer
 * multiple `zoom` of the field's: one arrow every `step` flow pixels (at
 * the centres of step x step cells), from the pixel to pixel + scale *
 * (u, v), anti-aliased lines `zoom` pixels wide, in colour rgb (0..255).
 * Unknown vectors are skipped; an arrow shorter than half a pixel is a dot.  step >= 1,
 * scale > 0 and finite. */
flow_status flow_render_vectors(const flow_field *f, int step, double scale,
                                const float rgb[3], flow_image *img);

/* An anti-aliased polyline through the n points xy = (x0, y0, x1, y1, ...)
 * (pixels, (0, 0) the centre of the top-left pixel), `width` pixels wide,
 * laid in colour rgb (0..255) over the RGB image img; one point (n = 1) is
 * a dot of diameter `width`.  A pixel's coverage is 1 within half the
 * width of the line, falling to 0 one pixel further; it is gathered over
 * the whole line before the colour is laid, so the joints of the segments
 * are not laid twice.  What falls outside the image is left out.
 * FLOW_ERR_INVALID for a missing or non-RGB image, n < 1, a width outside
 * (0, 1000] or a coordinate that is not finite. */
flow_status flow_render_polyline(flow_image *img, const float *xy, int n, double width,
                                 const float rgb[3]);

#ifdef __cplusplus
}
#endif
#endif
