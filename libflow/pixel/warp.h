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
#include "tensor.h"
#include "transfer.h"

/* The weights of the four taps x0 - 1 .. x0 + 2 of cubic convolution at
 * fraction t of [x0, x0 + 1] (Keys 1981, a = -1/2: exact on quadratics). */
FLOW_HD void flow_cubic_weights(float t, float k[4])
{
    const float t2 = t * t, t3 = t2 * t;
    k[0] = -0.5f * t3 + t2 - 0.5f * t;
    k[1] = 1.5f * t3 - 2.5f * t2 + 1.0f;
    k[2] = -1.5f * t3 + 2.0f * t2 + 0.5f * t;
    k[3] = 0.5f * t3 - 0.5f * t2;
}

/* f at (px, py) by bicubic convolution, the point clamped into the image
 * and each tap clamped into the grid. */
FLOW_HD float flow_bicubic_at(const flow_plane *f, float px, float py)
{
    const int w = f->width, h = f->height;
    px = px > 0.0f ? (px < (float)(w - 1) ? px : (float)(w - 1)) : 0.0f;
    py = py > 0.0f ? (py < (float)(h - 1) ? py : (float)(h - 1)) : 0.0f;
    const int x0 = (int)px, y0 = (int)py;
    float kx[4], ky[4];
    flow_cubic_weights(px - (float)x0, kx);
    flow_cubic_weights(py - (float)y0, ky);
    float sum = 0.0f;
    for (int j = 0; j < 4; j++) {
        const float *r = f->data + flow_clampi(y0 + j - 1, 0, h - 1) * f->pitch;
        float row = 0.0f;
        for (int i = 0; i < 4; i++)
            row += kx[i] * r[flow_clampi(x0 + i - 1, 0, w - 1)];
        sum += ky[j] * row;
    }
    return sum;
}

/* dst(x, y) = src(x + u, y + v) by bilinear (or, cubic != 0, bicubic)
 * interpolation, the point clamped into the image (dst must not be src);
 * backward != 0: src(x - u, y - v), the frame before under constant
 * velocity. */
typedef struct flow_warp_args {
    flow_plane dst, src;
    flow_pair w;
    int cubic;
    int backward;
} flow_warp_args;

FLOW_HD void flow_warp_px(const flow_warp_args *a, int x, int y)
{
    const float s = a->backward ? -1.0f : 1.0f;
    const float px = (float)x + s * FLOW_PX(a->w.u, x, y);
    const float py = (float)y + s * FLOW_PX(a->w.v, x, y);
    FLOW_PX(a->dst, x, y) = a->cubic ? flow_bicubic_at(&a->src, px, py)
                                     : flow_bilinear_at(&a->src, px, py);
}

/* j[0..5] of the increment, rewritten in place for the total flow around
 * (u0, v0) (the formulas above). */
FLOW_HD void flow_tensor_shift_at(float j[6], float u0, float v0)
{
    const float j13 = j[2], j23 = j[4];
    j[2] = j13 - (j[0] * u0 + j[1] * v0);
    j[4] = j23 - (j[1] * u0 + j[3] * v0);
    j[5] = j[5] - 2.0f * (j13 * u0 + j23 * v0)
           + (j[0] * u0 * u0 + 2.0f * j[1] * u0 * v0 + j[3] * v0 * v0);
}

typedef struct flow_tensor_shift_args {
    flow_tensor J;
    flow_pair w;
} flow_tensor_shift_args;

FLOW_HD void flow_tensor_shift_px(const flow_tensor_shift_args *a, int x, int y)
{
    float j[6];
    flow_tensor_load(&a->J, x, y, j);
    flow_tensor_shift_at(j, FLOW_PX(a->w.u, x, y), FLOW_PX(a->w.v, x, y));
    flow_tensor_store(&a->J, x, y, j);
}

#endif
