/* warp.h -- coarse-to-fine warping at one pixel: the second frame sampled
 * along the current flow, and the motion tensor of the remaining increment
 * rewritten for the total flow.
 *
 * With the flow w = (u0, v0) of the coarser level, the tensor J is computed
 * from f1 and f2(x + w), so it describes the increment d = x - w.  The data
 * term (d, 1)^T J (d, 1) with d = x - w is a quadratic form in the total flow
 * x with the same J11, J12, J22 and
 *   J13' = J13 - (J11 u0 + J12 v0),   J23' = J23 - (J12 u0 + J22 v0),
 *   J33' = J33 - 2 (J13 u0 + J23 v0) + J11 u0^2 + 2 J12 u0 v0 + J22 v0^2,
 * so the unchanged solvers compute the total flow, with the smoothness term
 * on x itself (the warping of Brox et al. 2004 with the CLG data term). */
#ifndef FLOW_PIXEL_WARP_H
#define FLOW_PIXEL_WARP_H

#include "qualifier.h"

/* f at (x + u, y + v) by bilinear interpolation, the point clamped into the
 * image (the border is repeated outside, as flow_at does). */
FLOW_HD float flow_warp_px(const float *f, int pitch, int w, int h, int x, int y, float u,
                           float v)
{
    float px = (float)x + u, py = (float)y + v;
    px = px > 0.0f ? (px < (float)(w - 1) ? px : (float)(w - 1)) : 0.0f; /* NaN -> 0 */
    py = py > 0.0f ? (py < (float)(h - 1) ? py : (float)(h - 1)) : 0.0f;
    const int x0 = (int)px, y0 = (int)py;
    const int x1 = x0 + 1 < w ? x0 + 1 : x0, y1 = y0 + 1 < h ? y0 + 1 : y0;
    const float ax = px - (float)x0, ay = py - (float)y0;
    const float *r0 = f + (long)y0 * pitch, *r1 = f + (long)y1 * pitch;
    return (1.0f - ay) * ((1.0f - ax) * r0[x0] + ax * r0[x1])
           + ay * ((1.0f - ax) * r1[x0] + ax * r1[x1]);
}

/* j[0..5] = J11, J12, J13, J22, J23, J33 of the increment, rewritten in
 * place for the total flow around (u0, v0) (the formulas above). */
FLOW_HD void flow_tensor_shift_px(float j[6], float u0, float v0)
{
    const float j13 = j[2], j23 = j[4];
    j[2] = j13 - (j[0] * u0 + j[1] * v0);
    j[4] = j23 - (j[1] * u0 + j[3] * v0);
    j[5] = j[5] - 2.0f * (j13 * u0 + j23 * v0)
           + (j[0] * u0 * u0 + 2.0f * j[1] * u0 * v0 + j[3] * v0 * v0);
}

#endif
