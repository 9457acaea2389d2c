/* stencil.h -- per-pixel stencils of the preprocessing and of multigrid:
 * separable convolution, fourth-order derivatives, restriction, prolongation.
 *
 * Reference: Moussu, "GPU based real-time optical flow computation", 2010
 * (seed 001), sections 4.2.1-4.2.6 and appendix A.4.  Borders are clamped. */
#ifndef FLOW_PIXEL_STENCIL_H
#define FLOW_PIXEL_STENCIL_H

#include "qualifier.h"

/* (K * f)(x, y) along x for a kernel w[0 .. 2r] centred at w[r] (eq. 4.4). */
FLOW_HD float flow_convolve_row_px(const float *f, int pitch, int w, int h, int x, int y,
                                   const float *k, int r)
{
    float sum = 0.0f;
    for (int j = -r; j <= r; j++)
        sum += k[r + j] * flow_at(f, pitch, w, h, x + j, y);
    return sum;
}

/* (K * f)(x, y) along y. */
FLOW_HD float flow_convolve_col_px(const float *f, int pitch, int w, int h, int x, int y,
                                   const float *k, int r)
{
    float sum = 0.0f;
    for (int j = -r; j <= r; j++)
        sum += k[r + j] * flow_at(f, pitch, w, h, x, y + j);
    return sum;
}

/* Fourth-order central difference (1, -8, 0, 8, -1) / 12 of one frame at
 * (x, y) along (dx, dy) = (1, 0) or (0, 1) (eq. 4.7). */
FLOW_HD float flow_diff4_px(const float *f, int pitch, int w, int h, int x, int y, int dx,
                            int dy)
{
    return (flow_at(f, pitch, w, h, x - 2 * dx, y - 2 * dy)
            - 8.0f * flow_at(f, pitch, w, h, x - dx, y - dy)
            + 8.0f * flow_at(f, pitch, w, h, x + dx, y + dy)
            - flow_at(f, pitch, w, h, x + 2 * dx, y + 2 * dy))
           * (1.0f / 12.0f);
}

/* f_x, f_y averaged over the frames f1, f2 and f_t = f2 - f1 (eqs. 4.6-4.9,
 * A.9-A.11 with h = 1).  Both frames share one pitch. */
FLOW_HD void flow_derivatives_px(const float *f1, const float *f2, int pitch, int w, int h,
                                 int x, int y, float *fx, float *fy, float *ft)
{
    *fx = 0.5f * (flow_diff4_px(f1, pitch, w, h, x, y, 1, 0)
                  + flow_diff4_px(f2, pitch, w, h, x, y, 1, 0));
    *fy = 0.5f * (flow_diff4_px(f1, pitch, w, h, x, y, 0, 1)
                  + flow_diff4_px(f2, pitch, w, h, x, y, 0, 1));
    *ft = f2[(long)y * pitch + x] - f1[(long)y * pitch + x];
}

/* Coarse size of a grid: ceil(n / 2), so 79 -> 40 and 3 -> 2 (fig. 4.14). */
FLOW_HD int flow_coarse_size(int n)
{
    return (n + 1) / 2;
}

/* Full-weighting restriction at coarse (xc, yc) from the fine plane f
 * (w x h): weights (1 2 1)^T (1 2 1) / 16 around fine (2xc, 2yc), fine
 * coordinates clamped, which gives the border weights of eq. 4.13. */
FLOW_HD float flow_restriction_px(const float *f, int pitch, int w, int h, int xc, int yc)
{
    const int x = 2 * xc, y = 2 * yc;
    float rows[3];
    for (int k = -1; k <= 1; k++)
        rows[k + 1] = flow_at(f, pitch, w, h, x - 1, y + k)
                      + 2.0f * flow_at(f, pitch, w, h, x, y + k)
                      + flow_at(f, pitch, w, h, x + 1, y + k);
    return (rows[0] + 2.0f * rows[1] + rows[2]) * (1.0f / 16.0f);
}

/* Bilinear prolongation at fine (x, y) from the coarse plane c (cw x ch):
 * even fine points copy the coarse value, odd ones average their two (or
 * four) coarse neighbours, clamped at the right and bottom (eqs. 4.14-4.16). */
FLOW_HD float flow_prolongation_px(const float *c, int pitch, int cw, int ch, int x, int y)
{
    const int xc = x >> 1, yc = y >> 1;
    const int x1 = flow_clampi(xc + (x & 1), 0, cw - 1);
    const int y1 = flow_clampi(yc + (y & 1), 0, ch - 1);
    const float *r0 = c + (long)yc * pitch, *r1 = c + (long)y1 * pitch;
    return 0.25f * (r0[xc] + r0[x1] + r1[xc] + r1[x1]);
}

#endif
