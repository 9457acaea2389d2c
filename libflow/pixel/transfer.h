/* transfer.h -- moving values between grids of different sizes: the
 * full-weighting restriction and bilinear prolongation of multigrid and of
 * the factor-0.5 pyramid, for planes, pairs and tensors, and the bilinear
 * resampling of a pyramid of any other scale factor.
 *
 * Reference: Moussu 2010 (seed 001), sections 4.2.5 and 4.2.6, eqs.
 * 4.13-4.16, fig. 4.14.  A coarse grid of a w x h grid has ceil(w / 2) x
 * ceil(h / 2) points, coarse point (xc, yc) sitting on fine point (2 xc,
 * 2 yc); fine coordinates are clamped at the borders. */
#ifndef FLOW_PIXEL_TRANSFER_H
#define FLOW_PIXEL_TRANSFER_H

#include "qualifier.h"

/* Full weighting at coarse (xc, yc) from the fine plane f: weights
 * (1 2 1)^T (1 2 1) / 16 around fine (2xc, 2yc), fine coordinates clamped,
 * which gives the border weights of eq. 4.13. */
FLOW_HD float flow_restrict_at(const flow_plane *f, int xc, int yc)
{
    const int x = 2 * xc, y = 2 * yc;
    float rows[3];
    for (int k = -1; k <= 1; k++)
        rows[k + 1] = flow_at(f, x - 1, y + k) + 2.0f * flow_at(f, x, y + k)
                      + flow_at(f, x + 1, y + k);
    return (rows[0] + 2.0f * rows[1] + rows[2]) * (1.0f / 16.0f);
}

/* Bilinear prolongation at fine (x, y) from the coarse plane c: even fine
 * points copy the coarse value, odd ones average their two (or four)
 * coarse neighbours, clamped at the right and bottom (eqs. 4.14-4.16). */
FLOW_HD float flow_prolong_at(const flow_plane *c, int x, int y)
{
    const int xc = x >> 1, yc = y >> 1;
    const int x1 = flow_clampi(xc + (x & 1), 0, c->width - 1);
    const int y1 = flow_clampi(yc + (y & 1), 0, c->height - 1);
    const float *r0 = c->data + yc * c->pitch, *r1 = c->data + y1 * c->pitch;
    return 0.25f * (r0[xc] + r0[x1] + r1[xc] + r1[x1]);
}

/* A coordinate clamped into [0, n - 1] (NaN -> 0). */
FLOW_HD float flow_coord_clamp(float p, int n)
{
    return p > 0.0f ? (p < (float)(n - 1) ? p : (float)(n - 1)) : 0.0f;
}

/* The bilinear blend of the values a00, a10 (row 0, columns 0 and 1) and
 * a01, a11 (row 1) at the fractions ax, ay. */
FLOW_HD float flow_bilinear_mix(float a00, float a10, float a01, float a11, float ax, float ay)
{
    return (1.0f - ay) * ((1.0f - ax) * a00 + ax * a10) + ay * ((1.0f - ax) * a01 + ax * a11);
}

/* f at the point (px, py) by bilinear interpolation, the point clamped into
 * the plane (the border is repeated outside, as flow_at does; NaN -> 0). */
FLOW_HD float flow_bilinear_at(const flow_plane *f, float px, float py)
{
    const int w = f->width, h = f->height;
    px = flow_coord_clamp(px, w);
    py = flow_coord_clamp(py, h);
    const int x0 = (int)px, y0 = (int)py;
    const int x1 = x0 + 1 < w ? x0 + 1 : x0, y1 = y0 + 1 < h ? y0 + 1 : y0;
    const float ax = px - (float)x0, ay = py - (float)y0;
    const float *r0 = f->data + y0 * f->pitch, *r1 = f->data + y1 * f->pitch;
    return flow_bilinear_mix(r0[x0], r0[x1], r1[x0], r1[x1], ax, ay);
}

/* ---- the operations ----------------------------------------------------- */

typedef struct flow_restriction_args {
    flow_plane coarse, fine;
} flow_restriction_args;

FLOW_HD void flow_restriction_px(const flow_restriction_args *a, int x, int y)
{
    FLOW_PX(a->coarse, x, y) = flow_restrict_at(&a->fine, x, y);
}

/* coarse = R fine for both components; also into copy when with_copy
 * (FAS keeps R x for e = x2 - R x). */
typedef struct flow_restrict_pair_args {
    flow_pair coarse, copy, fine;
    int with_copy;
} flow_restrict_pair_args;

FLOW_HD void flow_restrict_pair_px(const flow_restrict_pair_args *a, int x, int y)
{
    const float u = flow_restrict_at(&a->fine.u, x, y);
    const float v = flow_restrict_at(&a->fine.v, x, y);
    FLOW_PX(a->coarse.u, x, y) = u;
    FLOW_PX(a->coarse.v, x, y) = v;
    if (a->with_copy) {
        FLOW_PX(a->copy.u, x, y) = u;
        FLOW_PX(a->copy.v, x, y) = v;
    }
}

/* fine = P (coarse - ref) (ref only when with_ref), or fine += ... when
 * accumulate != 0: the coarse-grid correction x += P e (FAS: e = x2 - R x),
 * and FMG's x = P x2; times gain where it is not 0 (a flow passed down a
 * pyramid of halvings: its vectors doubled). */
typedef struct flow_prolong_pair_args {
    flow_pair fine, coarse, ref;
    int with_ref, accumulate;
    float gain;
} flow_prolong_pair_args;

/* The new fine values at (x, y) from the old ones (fu, fv), which are read
 * only when accumulating: what flow_prolong_pair_px stores, and what a
 * Jacobi pair that takes the prolongation with its staging computes
 * (device/cuda/jacobi.cu). */
FLOW_HD void flow_prolong_pair_value(const flow_prolong_pair_args *a, int x, int y, float fu,
                                     float fv, float *nu, float *nv)
{
    float u = flow_prolong_at(&a->coarse.u, x, y);
    float v = flow_prolong_at(&a->coarse.v, x, y);
    if (a->with_ref) {
        u -= flow_prolong_at(&a->ref.u, x, y);
        v -= flow_prolong_at(&a->ref.v, x, y);
    }
    if (a->gain != 0.0f)
        u *= a->gain, v *= a->gain;
    *nu = a->accumulate ? fu + u : u;
    *nv = a->accumulate ? fv + v : v;
}

FLOW_HD void flow_prolong_pair_px(const flow_prolong_pair_args *a, int x, int y)
{
    float *pu = &FLOW_PX(a->fine.u, x, y), *pv = &FLOW_PX(a->fine.v, x, y);
    const float fu = a->accumulate ? *pu : 0.0f, fv = a->accumulate ? *pv : 0.0f;
    flow_prolong_pair_value(a, x, y, fu, fv, pu, pv);
}

/* coarse[k] = R fine[k] for n planes of one grid (at most
 * FLOW_RESTRICT_PLANES): a multigrid level's coefficients in one pass (the
 * components of its data terms' tensors, eq. 2.58, and its smoothness
 * weight). */
#define FLOW_RESTRICT_PLANES 16

typedef struct flow_restrict_planes_args {
    flow_plane coarse[FLOW_RESTRICT_PLANES], fine[FLOW_RESTRICT_PLANES];
    int n;
} flow_restrict_planes_args;

/* coarse[k] = R fine[k] at (x, y) for the n planes. */
FLOW_HD void flow_restrict_planes_at(const flow_plane *coarse, const flow_plane *fine, int n,
                                     int x, int y)
{
    /* every value before the first store, so that the loads are in flight
     * together (a store could alias the planes read after it) */
    float r[FLOW_RESTRICT_PLANES];
    FLOW_UNROLL
    for (int k = 0; k < FLOW_RESTRICT_PLANES; k++)
        if (k < n)
            r[k] = flow_restrict_at(&fine[k], x, y);
    FLOW_UNROLL
    for (int k = 0; k < FLOW_RESTRICT_PLANES; k++)
        if (k < n)
            FLOW_PX(coarse[k], x, y) = r[k];
}

FLOW_HD void flow_restrict_planes_px(const flow_restrict_planes_args *a, int x, int y)
{
    flow_restrict_planes_at(a->coarse, a->fine, a->n, x, y);
}

/* dst(x, y) = gain * src(sx x, sy y), bilinear: a pyramid of scale factor
 * s samples the finer level at x / s for a coarse point (sx = 1 / s, gain
 * 1: frames, smoothed beforehand) and the coarser flow at s x for a fine
 * point (sx = s, gain 1 / s: the flow in the finer level's pixels). */
typedef struct flow_resample_args {
    flow_plane dst, src;
    float sx, sy, gain;
} flow_resample_args;

FLOW_HD void flow_resample_px(const flow_resample_args *a, int x, int y)
{
    FLOW_PX(a->dst, x, y) = a->gain * flow_bilinear_at(&a->src, a->sx * (float)x,
                                                       a->sy * (float)y);
}

#endif
