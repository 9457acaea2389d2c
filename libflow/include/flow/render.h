/* render.h -- pictures of flow fields: the Middlebury colour coding, its
 * legend, blends with a frame, vector (quiver) arrows, endpoint-error
 * maps, text in the library's own bitmap font, and labelled montages of
 * several pictures, all drawn directly into an image (no gnuplot, no
 * ImageMagick needed).
 *
 * Colour coding (Baker et al., IJCV 2011): the hue is
 * the direction, from atan2(-v, -u) over a wheel of 55 colours built from
 * six segments (red-yellow 15, yellow-green 6, green-cyan 4, cyan-blue 11,
 * blue-magenta 13, magenta-red 6), interpolated linearly between the two
 * nearest wheel colours; the saturation is the radius r = |(u, v)| / R:
 * white at r = 0, the full wheel colour at r = 1, and the colour darkened
 * to 75 % beyond 1 (only when R is fixed below the field's largest radius).
 * R is the largest known radius of the field, or a fixed value so that the
 * frames of a video share one scale.  Unknown vectors are black.  Rightward
 * motion is red, downward yellow-orange, leftward cyan-blue, upward
 * blue-violet.  Channel values are rounded to integers 0..255; Middlebury's
 * color_flow truncates them (the two differ by at most one level), which
 * FLOW_CODING_MIDDLEBURY reproduces exactly.
 *
 * Images are flow_image (image.h): planar float RGB on the 0..255 scale.
 * Functions that produce an image allocate it (flow_image_free releases
 * it); on failure it is left empty. */
#ifndef FLOW_RENDER_H
#define FLOW_RENDER_H

#include "flow/error.h"
#include "flow/field.h"
#include "flow/image.h"
#include "flow/status.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Number of colours of the wheel. */
#define FLOW_COLORWHEEL_SIZE 55

/* How channel values are made integers. */
typedef enum flow_coding {
    FLOW_CODING_ROUNDED = 0,   /* rounded: the nearest level */
    FLOW_CODING_MIDDLEBURY = 1 /* Middlebury's color_flow, bit for bit: single
                                  precision, truncated */
} flow_coding;

/* The largest radius |(u, v)| over the known vectors (0 when none is). */
double flow_max_radius(const flow_field *f);

/* The colour coding of f into a newly allocated RGB image of its size.
 * max_radius > 0 fixes R; max_radius <= 0 uses flow_max_radius(f) (and 1
 * when that is 0, so that zero flow is white).  Unknown vectors (NaN
 * included) are black.  *used (may be NULL) receives the R applied.
 * FLOW_ERR_INVALID for a missing field or a NaN/infinite max_radius. */
flow_status flow_render_color(const flow_field *f, double max_radius, flow_image *rgb,
                              double *used);

/* flow_render_color with the given coding: FLOW_CODING_MIDDLEBURY gives
 * the picture of Middlebury's `color_flow IN OUT R` (R = max_radius, or
 * its automatic scale when max_radius <= 0) to the last level, the scale
 * held in single precision as there.  FLOW_ERR_INVALID also for an
 * unknown coding. */
flow_status flow_render_color_coded(const flow_field *f, double max_radius, flow_coding coding,
                                    flow_image *rgb, double *used);

/* The colour coding with the key around it: a frame `border` pixels wide
 * (border <= 0: 8 % of the smaller side, at least 6 and at most 64) in
 * which every pixel has the full-saturation colour of the direction from
 * the picture's centre to it, so that an object moving towards an edge has
 * the colour of that edge.  Output size (w + 2 border) x (h + 2 border). */
flow_status flow_render_color_framed(const flow_field *f, double max_radius, int border,
                                     flow_image *rgb, double *used);

/* The automatic frame width of flow_render_color_framed for a w x h field:
 * 8 % of the smaller side, at least 6 and at most 64 pixels. */
int flow_legend_border(int width, int height);

/* The narrowest frame that holds a scale label (flow_render_scale_label). */
#define FLOW_SCALE_LABEL_MIN_BORDER 11

/* The scale R as the text of a label, "max 4.62 px": three significant
 * digits, whole pixels from 100 px on. */
void flow_scale_text(double max_radius, char *buf, size_t size);

/* Writes flow_scale_text(max_radius) into the bottom frame of a picture of
 * flow_render_color_framed made with frame width `border`: black text on
 * a white plate, centred, in the largest text factor whose plate fits
 * the frame, at most flow_text_factor(picture width).
 * FLOW_ERR_INVALID for a missing or non-RGB picture, a border under
 * FLOW_SCALE_LABEL_MIN_BORDER or wider than half the picture, or a scale
 * that is not positive and finite. */
flow_status flow_render_scale_label(flow_image *framed, int border, double max_radius);

/* The colour wheel alone: a size x size RGB image,
 * white outside a disc of radius 1 that shows the colour of every vector
 * of length up to R, with its outline and the two axes in grey.
 * size 32..4096. */
flow_status flow_render_legend(int size, flow_image *rgb);

/* The colour wheel (flow_render_legend) drawn into the top-right corner of
 * an RGB picture, a quarter of its smaller side wide (at most 160 px), so
 * that a figure carries its key.  FLOW_ERR_INVALID for a missing or
 * non-RGB picture, FLOW_ERR_SIZE when that quarter is under 32 px. */
flow_status flow_render_wheel_inset(flow_image *rgb);

/* out = (1 - alpha) frame + alpha color, channel by channel; a gray frame
 * is used for all three channels.  Sizes must match (FLOW_ERR_SIZE naming
 * both); alpha in [0, 1]. */
flow_status flow_render_blend(const flow_image *frame, const flow_image *color, double alpha,
                              flow_image *out);

/* A gray or RGB image as a newly allocated RGB image enlarged `zoom` times
 * (nearest neighbour; zoom 1..64). */
flow_status flow_render_zoom_rgb(const flow_image *src, int zoom, flow_image *out);

/* ---- vector (quiver) plots ---------------------------------------------- */

/* What the arrows are drawn over; it chooses the default colours. */
typedef enum flow_backdrop {
    FLOW_BACKDROP_WHITE, /* a blank picture: black arrows */
    FLOW_BACKDROP_FRAME, /* a frame of the sequence: yellow arrows outlined in black */
    FLOW_BACKDROP_COLOR  /* the colour coding: black arrows outlined in white */
} flow_backdrop;

/* How the arrows of flow_render_vectors look. */
typedef struct flow_vector_style {
    int step;          /* one arrow every `step` flow pixels; 0: flow_vector_step */
    double scale;      /* arrow length per pixel of motion, in flow pixels; 0: the
                          motion max_radius is FLOW_VECTOR_REACH steps long */
    double max_radius; /* with scale 0: the motion drawn FLOW_VECTOR_REACH steps long;
                          0: the longest arrow's (the longest known vector at the
                          grid points; 1 when that is 0) */
    float rgb[3];      /* arrow colour, 0..255 */
    int outline;       /* 1: each arrow outlined one pixel wide in black or white,
                          whichever contrasts more with rgb, for any background */
} flow_vector_style;

/* With an automatic scale the longest arrow (or max_radius) spans 0.9 of
 * the grid step: arrows as long as the grid allows without overlapping. */
#define FLOW_VECTOR_REACH 0.9

/* The automatic grid step for a w x h field: the smaller side / 18,
 * rounded, at least 8 pixels (22 for Middlebury's 584 x 388, 60 for
 * 1920 x 1080): about 18 arrows across the smaller side at any size. */
int flow_vector_step(int width, int height);

/* The style of flow-tool's and flow-compute's plots over `backdrop`:
 * automatic step and scale, the backdrop's colours. */
flow_vector_style flow_vector_defaults(flow_backdrop backdrop);

/* Vector (quiver) arrows drawn into an RGB image whose size is an integer
 * multiple `zoom` of the field's: one arrow every `step` flow pixels on a
 * grid centred in the picture (equal margins left and right, top and
 * bottom), from the pixel to pixel + scale * (u, v), each a shaft and a
 * filled head.  Lines are zoom * max(1, step / 16) pixels wide, so that a
 * plot looks alike at every size and enlargement; a head is 35 % of its
 * arrow long, at most 0.3 step but at least 2.5 line widths, and 0.7
 * times as wide as long but at least 2.5 line widths wide; an arrow shorter than its head is the head alone,
 * one shorter than half a pixel a dot.  Unknown vectors get no arrow.  *used
 * (may be NULL) receives the style with the step and scale applied.
 * FLOW_ERR_INVALID for a missing argument, a negative step, a negative,
 * NaN or infinite scale or max_radius; FLOW_ERR_SIZE when img is not an
 * RGB enlargement of the field. */
flow_status flow_render_vectors(const flow_field *f, const flow_vector_style *style,
                                flow_image *img, flow_vector_style *used);

/* The roundest length not above r: 1, 2 or 5 times a power of ten (0 for
 * an r that is not positive and finite). */
double flow_round_length(double r);

/* The key of a vector plot drawn by flow_render_vectors into img at
 * enlargement `zoom`, with the style it applied (*used): in the bottom-left
 * corner, on a white plate, a reference arrow of the roundest motion M
 * (flow_round_length) whose arrow is at most FLOW_VECTOR_REACH steps long,
 * drawn as the plot's arrows are, and the note "M px, one per STEP px"
 * in the text factor of the picture's width.  FLOW_ERR_INVALID for a
 * missing or non-RGB picture or a style whose step and scale are not set;
 * FLOW_ERR_SIZE, drawing nothing, when the plate is wider than the
 * picture or taller than half of it. */
flow_status flow_render_vector_key(flow_image *img, const flow_vector_style *used, int zoom);

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

/* ---- endpoint-error maps --------------------------------------------------- */

/* The colour of the pixels an error map does not score: a blue grey that
 * is on no point of the ramp. */
#define FLOW_UNSCORED_RGB {64.0f, 96.0f, 160.0f}

/* The endpoint-error map of est against gt (same size) into a newly
 * allocated RGB image: each scored pixel coloured by t = EE / max_error on
 * the "hot" ramp (black at 0, red at 1/3, yellow at 2/3, white from 1 on,
 * brighter as the error grows, so that it reads in grey print too), the
 * others (flow_error_per_pixel) FLOW_UNSCORED_RGB.
 * max_error <= 0: the largest scored EE (1 when it is 0 or nothing is
 * scored); *used (may be NULL) receives the scale applied.  Fails as
 * flow_error_per_pixel does, and FLOW_ERR_INVALID for a NaN or infinite
 * max_error. */
flow_status flow_render_error_map(const flow_field *est, const flow_field *gt,
                                  const unsigned char *mask, double max_error, flow_image *rgb,
                                  double *used);

/* The colour bar of an error map drawn into its top-right corner on a
 * white plate: "0", the ramp of the error colours over a quarter of the
 * map's width, and the scale ("4.62 px", as flow_scale_text writes it), in
 * the text factor of the map's width.  FLOW_ERR_INVALID for a missing or
 * non-RGB map or a scale that is not positive and finite; FLOW_ERR_SIZE,
 * drawing nothing, when the plate does not fit the map's top half. */
flow_status flow_render_error_bar(flow_image *map, double scale);

/* KITTI's error picture of est against gt (same size) into a newly
 * allocated RGB image: scored pixels (flow_error_per_pixel_in with
 * regions, which may be NULL) coloured as the devkit's flowErrorImage with
 * log colours (by n = min(EE / 3, 20 EE / |gt|), so that n > 1 exactly at
 * Fl's outliers: dark blue below 0.0625 to dark red from 16 on), at half
 * brightness where regions says the pixel is occluded (occluded or noc),
 * as the devkit dims what only its flow_occ ground truth covers; pixels not
 * scored black.  Fails as flow_error_measure does, and FLOW_ERR_NOMEM. */
flow_status flow_render_kitti_error(const flow_field *est, const flow_field *gt,
                                    const flow_error_regions *regions, flow_image *rgb);

/* The caption of an estimate's errors, "AEE 0.214 px  AAE 3.41 deg": the
 * averages of flow_error_compute, to 3 and 2 decimals. */
void flow_error_caption(const flow_error_stats *st, char *buf, size_t size);

/* ---- occlusion and confidence ---------------------------------------------- */

/* The occlusion mask (width x height values of the frame's size, nonzero =
 * occluded, as a context computing both directions leaves it) over the
 * frame, into a newly allocated RGB image: the frame in grey at half
 * brightness, the occluded pixels red over it.  FLOW_ERR_INVALID for a
 * missing argument, FLOW_ERR_NOMEM. */
flow_status flow_render_occlusion(const flow_image *frame, const float *occluded, flow_image *rgb);
/* A confidence map (width x height values in [0, 1]) into a newly
 * allocated RGB image: grey (black 0, white 1), or with `colour` on the
 * error maps' "hot" ramp (black, red, yellow, white as it grows).
 * FLOW_ERR_INVALID for a missing argument or a value outside [0, 1]
 * (naming the pixel), FLOW_ERR_NOMEM. */
flow_status flow_render_confidence(const float *confidence, int width, int height, int colour,
                                   flow_image *rgb);
/* Its key drawn into the top-right corner on a white plate: "0", the ramp
 * over a quarter of the width, "1".  FLOW_ERR_SIZE, drawing nothing, when
 * the plate does not fit the picture's top half. */
flow_status flow_render_confidence_key(flow_image *map, int colour);

/* ---- text ------------------------------------------------------------------- */

/* The library's bitmap font: the printable ASCII characters (32..126), each
 * a glyph FLOW_GLYPH_WIDTH pixels wide and FLOW_GLYPH_HEIGHT rows tall (7
 * above the baseline, 2 of descenders), one every FLOW_GLYPH_ADVANCE
 * pixels.  Text is drawn `factor` times enlarged, each glyph pixel a
 * factor x factor block without smoothing, so that it stays sharp. */
#define FLOW_GLYPH_WIDTH 5
#define FLOW_GLYPH_HEIGHT 9
#define FLOW_GLYPH_ADVANCE 6

/* The size of text drawn at `factor`: (6 n - 1) factor wide for n
 * characters (0 for none), 9 factor tall. */
void flow_text_size(const char *text, int factor, int *width, int *height);

/* The text factor of labels on a picture `width` pixels wide: width / 320
 * rounded, at least 1 (2 for Middlebury's 584, 6 for 1920). */
int flow_text_factor(int width);

/* Text on a plate: a rectangle of colour bg reaching `factor` pixels
 * beyond the text on every side, its top-left corner at (x, y), the text
 * in colour fg.  The plate is the text's size plus 2 factor each way;
 * what falls outside the image is left out.  FLOW_ERR_INVALID for a
 * missing or non-RGB image, missing text or a factor outside 1..64. */
flow_status flow_render_label(flow_image *img, int x, int y, const char *text, int factor,
                              const float fg[3], const float bg[3]);

/* ---- montages ---------------------------------------------------------------- */

/* One picture of a montage and the label written above it (NULL or "":
 * none).  The picture is gray or RGB, of any size. */
typedef struct flow_panel {
    const flow_image *image;
    const char *label;
} flow_panel;

/* Where a montage puts things.  Panels fill `columns` columns row by row,
 * and a last row of fewer panels is centred (5 panels in 3 columns: 3, and
 * 2 centred under them), so that no row ends in an empty cell; every cell
 * is as large as the largest panel, with the panel centred in it and its
 * label centred on the strip above it; the title, when there
 * is one, is centred on a strip above all.  Gaps of `gap` pixels separate
 * the cells and surround the whole:
 *   width  = gap + columns (cell_width + gap)
 *   height = gap + title_height + rows (label_height + cell_height + gap). */
typedef struct flow_montage_layout {
    int columns, rows;
    int cell_width, cell_height; /* the largest panel's width and height */
    int factor;                  /* text factor of the labels */
    int title_factor;            /* text factor of the title */
    int label_height;            /* 11 factor when any panel has a label, else 0 */
    int title_height;            /* 11 title_factor with a title, else 0 */
    int gap;                     /* 4 factor */
    int width, height;
    int panels;                  /* how many panels */
} flow_montage_layout;

/* The montage of n panels (1..64) in `columns` columns (0: one row of up
 * to 4 panels, else ceil(n / 2) columns; more than n: n), on white, labels
 * and title in black, into a newly allocated RGB image; *layout (may be
 * NULL) receives where it put things.  The label factor is
 * flow_text_factor(cell_width), lowered (not under 1) until every label
 * fits its cell; a label that does not fit even then keeps the characters
 * that do, from its start.  The title's factor is factor + 1, lowered
 * likewise to fit the montage's width.  FLOW_ERR_INVALID for a missing or
 * empty panel, n or columns out of range; FLOW_ERR_SIZE for a montage over
 * FLOW_IMAGE_MAX_PIXELS; FLOW_ERR_NOMEM. */
flow_status flow_render_montage(const flow_panel *panels, int n, int columns, const char *title,
                                flow_image *out, flow_montage_layout *layout);

#ifdef __cplusplus
}
#endif
#endif
