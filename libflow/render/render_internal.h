/* render_internal.h -- the pieces of render/ that its own files and the
 * tests share but that are no part of the public API (not installed): the
 * per-pixel colours behind the colour coding and the error maps, the bitmap
 * font and unplated text, and the montage's layout computation.  Callers
 * of the library draw with flow/render.h's whole pictures, labels and
 * montages (docs/API.md says why those are public). */
#ifndef FLOW_RENDER_INTERNAL_H
#define FLOW_RENDER_INTERNAL_H

#include "flow/render.h"

/* The wheel colour k (0..54) as 0..255 integers, k = 0 being pure red. */
void flow_colorwheel(int k, int rgb[3]);

/* The colour of a vector already divided by the scale R (radius 1 = full
 * saturation), as rounded 0..255 values; black for NaN or infinity.  (A
 * vector's being unknown is a property of the raw vector, before the
 * division: flow_render_color tests it and paints it black.) */
void flow_color_of(double fu, double fv, float rgb[3]);

/* The colour of flow_color_of as Middlebury's color_flow computes it: in
 * single precision, each channel 255 col truncated instead of rounded. */
void flow_color_of_middlebury(double fu, double fv, float rgb[3]);

/* The colour of an endpoint error t = EE / scale on the "hot" ramp: black
 * at 0, red at 1/3, yellow at 2/3, white from 1 on, each channel rounded;
 * its brightness grows with the error, so it reads in grey print too. */
void flow_error_color(double t, float rgb[3]);

/* KITTI's error picture (the devkit's flowErrorImage with log colours):
 * each pixel's normalised error n = min(EE / 3, 20 EE / |gt|), the smaller
 * of its ratios to Fl's two thresholds (3 px, 5% of |gt|), so that n > 1
 * exactly at Fl's outliers; the colour of n's interval of ten, bounded at
 * 0.0625 * 2^k (k = 0..8), from dark blue below 0.0625 through pale yellow
 * to dark red from 16 on.  flow_kitti_error_color gives the colour of n
 * (n = 0 with EE = 0 and |gt| = 0). */
void flow_kitti_error_color(double n, float rgb[3]);

/* The glyph of character c, FLOW_GLYPH_HEIGHT rows top first, bit 4 of a
 * row the leftmost pixel; the glyph of '?' for a byte outside 32..126. */
const unsigned char *flow_glyph(int c);

/* Draws text into the RGB image img in colour rgb, the top-left corner of
 * its first glyph at (x, y); what falls outside the image is left out.
 * FLOW_ERR_INVALID for a missing or non-RGB image, missing text or a
 * factor outside 1..64. */
flow_status flow_render_text(flow_image *img, int x, int y, const char *text, int factor,
                             const float rgb[3]);

/* The layout of n panels (1..64) in `columns` columns (0: one row of up to
 * 4 panels, else ceil(n / 2) columns; more than n: n).  The label factor
 * is flow_text_factor(cell_width), lowered (not under 1) until every label
 * fits its cell; a label that does not fit even then keeps the characters
 * that do, from its start.  The title's factor is factor + 1, lowered
 * likewise to fit the montage's width.  FLOW_ERR_INVALID for a missing or
 * empty panel, n or columns out of range; FLOW_ERR_SIZE for a montage over
 * FLOW_IMAGE_MAX_PIXELS. */
flow_status flow_montage_plan(const flow_panel *panels, int n, int columns, const char *title,
                              flow_montage_layout *out);

/* The top-left corner of panel i's picture in a montage of layout l. */
void flow_montage_origin(const flow_montage_layout *l, const flow_panel *panels, int i, int *x,
                         int *y);

#endif
