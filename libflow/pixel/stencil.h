/* stencil.h -- per-pixel operations on planes: fill, scale, copy of a pair,
 * separable convolution and the fourth-order derivatives.
 *
 * Reference: Moussu, "GPU based real-time optical flow computation", 2010
 * (seed 001), sections 4.2.1-4.2.4 and appendix A.4.  Borders are clamped.
 *
 * Each operation of libflow/kernels/list.h has an argument struct
 * flow_<op>_args and a function flow_<op>_px(args, x, y) that does all of
 * its work at one point of its grid; the CPU loops and the CUDA kernels call
 * that function and nothing else. */
#ifndef FLOW_PIXEL_STENCIL_H
#define FLOW_PIXEL_STENCIL_H

#include "qualifier.h"

/* ---- fill, scale, copy -------------------------------------------------- */

typedef struct flow_fill_args {
    flow_plane p;
    float value;
} flow_fill_args;

FLOW_HD void flow_fill_px(const flow_fill_args *a, int x, int y)
{
    FLOW_PX(a->p, x, y) = a->value;
}

typedef struct flow_scale_args {
    flow_plane p;
    float factor;
} flow_scale_args;

FLOW_HD void flow_scale_px(const flow_scale_args *a, int x, int y)
{
    FLOW_PX(a->p, x, y) *= a->factor;
}

/* dst = src for both components (one pass for the two planes). */
typedef struct flow_copy_pair_args {
    flow_pair dst, src;
} flow_copy_pair_args;

FLOW_HD void flow_copy_pair_px(const flow_copy_pair_args *a, int x, int y)
{
    FLOW_PX(a->dst.u, x, y) = FLOW_PX(a->src.u, x, y);
    FLOW_PX(a->dst.v, x, y) = FLOW_PX(a->src.v, x, y);
}

/* dst = src at each point: a plane into memory of any pitch (a caller's
 * rows packed in the GPU's memory, whose rows the device's copy, four
 * floats at a time, could find misaligned). */
typedef struct flow_copy_plane_args {
    flow_plane dst, src;
} flow_copy_plane_args;

FLOW_HD void flow_copy_plane_px(const flow_copy_plane_args *a, int x, int y)
{
    FLOW_PX(a->dst, x, y) = FLOW_PX(a->src, x, y);
}

/* dst = 0.299 R + 0.587 G + 0.114 B: the luminance of a colour frame (the
 * weights of flow_image_to_gray). */
typedef struct flow_luminance_args {
    flow_plane dst, r, g, b;
} flow_luminance_args;

FLOW_HD void flow_luminance_px(const flow_luminance_args *a, int x, int y)
{
    FLOW_PX(a->dst, x, y) = 0.299f * FLOW_PX(a->r, x, y) + 0.587f * FLOW_PX(a->g, x, y)
                            + 0.114f * FLOW_PX(a->b, x, y);
}

/* dst[c] = sample c of an 8-bit frame as uploaded (flow_image8: channels
 * interleaved, rows of width * channels bytes), on the 0..255 scale of the
 * float frames. */
typedef struct flow_unpack8_args {
    flow_plane dst[3];
    const unsigned char *src;
    int channels;
} flow_unpack8_args;

FLOW_HD void flow_unpack8_px(const flow_unpack8_args *a, int x, int y)
{
    const unsigned char *p = a->src + ((long)y * a->dst[0].width + x) * a->channels;
    for (int c = 0; c < a->channels; c++)
        FLOW_PX(a->dst[c], x, y) = (float)p[c];
}

/* dst[c] = sample c of a float frame in the device's memory
 * (flow_device_frame: channels interleaved, rows of width * channels
 * floats), as it is: unpack8's counterpart for floats. */
typedef struct flow_unpack32_args {
    flow_plane dst[3];
    const float *src;
    int channels;
} flow_unpack32_args;

FLOW_HD void flow_unpack32_px(const flow_unpack32_args *a, int x, int y)
{
    const float *p = a->src + ((long)y * a->dst[0].width + x) * a->channels;
    for (int c = 0; c < a->channels; c++)
        FLOW_PX(a->dst[c], x, y) = p[c];
}

/* bad = 1 where a sample of the pixel (src read as unpack32 reads it) is
 * not a finite value of magnitude at most `max`, else 0: the test of
 * flow_image_check_values for a frame that stays on the device. */
typedef struct flow_bad_values_args {
    flow_plane bad;
    const float *src;
    int channels;
    float max;
} flow_bad_values_args;

FLOW_HD void flow_bad_values_px(const flow_bad_values_args *a, int x, int y)
{
    const float *p = a->src + ((long)y * a->bad.width + x) * a->channels;
    float bad = 0.0f;
    for (int c = 0; c < a->channels; c++)
        if (!(fabsf(p[c]) <= a->max)) /* NaN fails the comparison */
            bad = 1.0f;
    FLOW_PX(a->bad, x, y) = bad;
}

/* dst = a x + b y (dst may be x or y). */
typedef struct flow_blend_args {
    flow_plane dst, x, y;
    float a, b;
} flow_blend_args;

FLOW_HD void flow_blend_px(const flow_blend_args *a, int x, int y)
{
    FLOW_PX(a->dst, x, y) = a->a * FLOW_PX(a->x, x, y) + a->b * FLOW_PX(a->y, x, y);
}

/* ---- separable convolution (eq. 4.4) ------------------------------------ */

/* (K * f)(x, y) along x for a kernel w[0 .. 2r] centred at w[r]. */
FLOW_HD float flow_convolve_row_at(const flow_plane *f, int x, int y, const float *k, int r)
{
    float sum = 0.0f;
    for (int j = -r; j <= r; j++)
        sum += k[r + j] * flow_at(f, x + j, y);
    return sum;
}

/* (K * f)(x, y) along y. */
FLOW_HD float flow_convolve_col_at(const flow_plane *f, int x, int y, const float *k, int r)
{
    float sum = 0.0f;
    for (int j = -r; j <= r; j++)
        sum += k[r + j] * flow_at(f, x, y + j);
    return sum;
}

/* dst[i] = K * src[i] along x (rows) or y (cols) for n planes of one size
 * (1 <= n <= FLOW_BATCH_MAX): one pass smooths both frames, or the six
 * tensor components.  No dst[i] may be a src[j]. */
typedef struct flow_convolve_args {
    flow_plane dst[FLOW_BATCH_MAX], src[FLOW_BATCH_MAX];
    int n;
    flow_kernel k;
} flow_convolve_args;

FLOW_HD void flow_convolve_rows_px(const flow_convolve_args *a, int x, int y)
{
    for (int i = 0; i < a->n; i++)
        FLOW_PX(a->dst[i], x, y) = flow_convolve_row_at(&a->src[i], x, y, a->k.w, a->k.radius);
}

FLOW_HD void flow_convolve_cols_px(const flow_convolve_args *a, int x, int y)
{
    for (int i = 0; i < a->n; i++)
        FLOW_PX(a->dst[i], x, y) = flow_convolve_col_at(&a->src[i], x, y, a->k.w, a->k.radius);
}

/* ---- derivatives (eqs. 4.6-4.9, A.9-A.11 with h = 1) ------------------- */

/* Fourth-order central difference (1, -8, 0, 8, -1) / 12 of one frame at
 * (x, y) along (dx, dy) = (1, 0) or (0, 1) (eq. 4.7). */
FLOW_HD float flow_diff4_at(const flow_plane *f, int x, int y, int dx, int dy)
{
    return (flow_at(f, x - 2 * dx, y - 2 * dy) - 8.0f * flow_at(f, x - dx, y - dy)
            + 8.0f * flow_at(f, x + dx, y + dy) - flow_at(f, x + 2 * dx, y + 2 * dy))
           * (1.0f / 12.0f);
}

/* f_x, f_y averaged over the frames f1, f2 and f_t = f2 - f1. */
FLOW_HD void flow_derivatives_at(const flow_plane *f1, const flow_plane *f2, int x, int y,
                                 float *fx, float *fy, float *ft)
{
    *fx = 0.5f * (flow_diff4_at(f1, x, y, 1, 0) + flow_diff4_at(f2, x, y, 1, 0));
    *fy = 0.5f * (flow_diff4_at(f1, x, y, 0, 1) + flow_diff4_at(f2, x, y, 0, 1));
    *ft = FLOW_PX(*f2, x, y) - FLOW_PX(*f1, x, y);
}

/* The derivatives as planes (for the workflow pictures: the tensor pipeline
 * never stores them). */
typedef struct flow_derivatives_args {
    flow_plane fx, fy, ft, f1, f2;
} flow_derivatives_args;

FLOW_HD void flow_derivatives_px(const flow_derivatives_args *a, int x, int y)
{
    flow_derivatives_at(&a->f1, &a->f2, x, y, &FLOW_PX(a->fx, x, y), &FLOW_PX(a->fy, x, y),
                        &FLOW_PX(a->ft, x, y));
}

#endif
