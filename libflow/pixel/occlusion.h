/* occlusion.h -- where the flow of a pixel cannot be trusted, at one pixel:
 * the one home of the occlusion tests, shared by the CPU and CUDA kernels
 * (the weighted median's occlusion weight), the host's forward-backward
 * check (eval/fbcheck.c) and any output plane a method derives from them.
 *
 * The forward-backward test (Sundaram, Brox, Keutzer, "Dense point
 * trajectories by GPU-accelerated large displacement optical flow", ECCV
 * 2010, eq. 5): the forward vector w_f at x is consistent when the backward
 * flow w_b, sampled bilinearly at x + w_f, points back to x:
 *   |w_f + w_b(x + w_f)|^2 <= a (|w_f|^2 + |w_b(x + w_f)|^2) + b,
 * the tolerance growing with the motion (a = 0.01, b = 0.5 px^2 in the
 * paper; a = 0, b = t^2 is the plain check with a threshold of t px). */
#ifndef FLOW_PIXEL_OCCLUSION_H
#define FLOW_PIXEL_OCCLUSION_H

#include "qualifier.h"
#include "stencil.h"
#include "transfer.h"
#include "warp.h"

#include <math.h>

/* ---- the forward-backward test ------------------------------------------ */

/* Why a forward vector was not kept (or that it was). */
#define FLOW_FB_KEPT 0
#define FLOW_FB_UNKNOWN_FWD 1  /* the forward vector is unknown */
#define FLOW_FB_OUTSIDE 2      /* x + w_f leaves the frame */
#define FLOW_FB_UNKNOWN_BWD 3  /* a backward sample of nonzero weight is unknown */
#define FLOW_FB_INCONSISTENT 4 /* the round trip misses by more than t */
#define FLOW_FB_VERDICTS 5

typedef struct flow_fb_args {
    flow_pair fwd, bwd;
    double a;      /* the tolerance relative to the squared motion */
    double b;      /* the absolute tolerance, pixels^2 */
    float unknown; /* a component of larger magnitude (or NaN) is unknown */
} flow_fb_args;

FLOW_HD int flow_fb_unknown(const flow_fb_args *a, float u, float v)
{
    return !(fabsf(u) <= a->unknown) || !(fabsf(v) <= a->unknown);
}

/* The backward flow at the point (qx, qy), bilinearly (in double); samples
 * of weight zero are not read: a point on the last row or column, or on a
 * pixel exactly, needs no neighbour beyond. */
FLOW_HD int flow_fb_sample(const flow_fb_args *a, double qx, double qy, double *bu, double *bv)
{
    const int w = a->bwd.u.width, h = a->bwd.u.height;
    if (!(qx >= 0 && qx <= w - 1 && qy >= 0 && qy <= h - 1))
        return FLOW_FB_OUTSIDE;
    const int x0 = (int)qx, y0 = (int)qy; /* floor: both are >= 0 */
    const double fx = qx - x0, fy = qy - y0;
    const double weight[4] = { (1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy };
    double su = 0, sv = 0;
    for (int k = 0; k < 4; k++) {
        if (weight[k] == 0)
            continue;
        const int x = x0 + (k & 1), y = y0 + (k >> 1);
        const float u = FLOW_PX(a->bwd.u, x, y), v = FLOW_PX(a->bwd.v, x, y);
        if (flow_fb_unknown(a, u, v))
            return FLOW_FB_UNKNOWN_BWD;
        su += weight[k] * u;
        sv += weight[k] * v;
    }
    *bu = su;
    *bv = sv;
    return FLOW_FB_KEPT;
}

/* The verdict (FLOW_FB_*) on the forward vector at pixel (x, y), and
 * where the round trip was made (verdict KEPT or INCONSISTENT) its miss
 * |w_f + w_b(x + w_f)|^2 into *d2 (untouched otherwise). */
FLOW_HD int flow_fb_round_trip(const flow_fb_args *a, int x, int y, double *d2)
{
    const float u = FLOW_PX(a->fwd.u, x, y), v = FLOW_PX(a->fwd.v, x, y);
    if (flow_fb_unknown(a, u, v))
        return FLOW_FB_UNKNOWN_FWD;
    double bu = 0, bv = 0;
    const int s = flow_fb_sample(a, x + (double)u, y + (double)v, &bu, &bv);
    if (s != FLOW_FB_KEPT)
        return s;
    const double du = u + bu, dv = v + bv;
    const double m2 = (double)u * u + (double)v * v + bu * bu + bv * bv;
    *d2 = du * du + dv * dv;
    return *d2 <= a->a * m2 + a->b ? FLOW_FB_KEPT : FLOW_FB_INCONSISTENT;
}

/* The verdict (FLOW_FB_*) on the forward vector at pixel (x, y). */
FLOW_HD int flow_fb_verdict_at(const flow_fb_args *a, int x, int y)
{
    double d2 = 0;
    return flow_fb_round_trip(a, x, y, &d2);
}

/* ---- the weighted median's occlusion weight ----------------------------- */

/* The occlusion weight of the median (Sun, Roth, Black, IJCV 2014, the
 * occlusion-aware weighted median of Classic+NL):
 *   o = exp(-min(div w, 0)^2 inv_d2 - e^2 inv_e2),
 * div w the divergence of the flow (central differences, clamped into the
 * grid: negative where the flow converges, as it does where one surface
 * slides over another), e the difference of the second frame at x + w
 * (bilinear) and the first at x, the root mean square over the channels;
 * 0 where x + w leaves the frame (nothing to compare); o at least 1e-6.  A
 * pixel likely occluded then counts little in its neighbours' medians, so
 * the motion of the surface in front does not spread into it. */
typedef struct flow_occlusion_args {
    flow_plane o;
    flow_pair w;
    flow_plane f1[3], f2[3];
    int channels;
    float inv_d2, inv_e2; /* 1 / (2 sigma_d^2), 1 / (2 sigma_e^2) */
} flow_occlusion_args;

/* The divergence of the flow w at (x, y): central differences, the
 * neighbours clamped into the grid. */
FLOW_HD float flow_divergence_at(const flow_pair *w, int x, int y)
{
    return 0.5f * (flow_at(&w->u, x + 1, y) - flow_at(&w->u, x - 1, y)
                   + flow_at(&w->v, x, y + 1) - flow_at(&w->v, x, y - 1));
}

/* o from the divergence div and the mean squared matching error e2 (the
 * formula above); inv_d2 = 0 or inv_e2 = 0 leaves that factor out.  At
 * least 1e-6: a window of pixels all deemed occluded keeps a positive
 * total weight, its median then weighted by image and distance. */
FLOW_HD float flow_occlusion_weight(float div, float e2, float inv_d2, float inv_e2)
{
    const float d = div < 0.0f ? div : 0.0f;
    return fmaxf(expf(-d * d * inv_d2 - e2 * inv_e2), 1e-6f);
}

FLOW_HD void flow_occlusion_px(const flow_occlusion_args *a, int x, int y)
{
    const float u = FLOW_PX(a->w.u, x, y), v = FLOW_PX(a->w.v, x, y);
    const float px = (float)x + u, py = (float)y + v;
    float e2 = 0.0f;
    if (flow_inside(&a->o, px, py)) {
        for (int c = 0; c < a->channels; c++) {
            const float e = flow_bilinear_at(&a->f2[c], px, py) - FLOW_PX(a->f1[c], x, y);
            e2 += e * e;
        }
        e2 /= (float)a->channels;
    }
    FLOW_PX(a->o, x, y)
        = flow_occlusion_weight(flow_divergence_at(&a->w, x, y), e2, a->inv_d2, a->inv_e2);
}

/* ---- the planes of a pair computed both ways ---------------------------- */

/* The confidence of a forward vector:
 *   c = exp(-e / FB_SCALE - r / RESIDUAL_SCALE),
 *   e  the forward-backward miss |w_f + w_b(x + w_f)| (px; FB_UNSEEN where
 *      the round trip cannot be made: x + w_f outside the frame, an
 *      unknown backward vector);
 *   r  the data residual |I1(x + w_f) - I0(x)| (grey levels, the root mean
 *      square over the channels);
 * and c = 0 for an unknown forward vector.  The scales were chosen by the
 * area under the sparsification curve (AUSE, docs/ALGORITHMS.md says what
 * was measured, the structure tensor's smallest eigenvalue included, which
 * raised it). */
#define FLOW_CONFIDENCE_FB_SCALE 1.0f
#define FLOW_CONFIDENCE_FB_UNSEEN 2.0f
#define FLOW_CONFIDENCE_RESIDUAL_SCALE 200.0f

typedef struct flow_consistency_args {
    flow_fb_args fb;         /* the forward and backward flows, a and b */
    flow_plane verdict;      /* FLOW_FB_* of each forward vector */
    flow_plane occluded;     /* 1 where the test fails (any verdict but KEPT), else 0 */
    flow_plane confidence;   /* in [0, 1] */
    flow_plane f1[3], f2[3]; /* the frames the flows were computed from */
    int channels;
} flow_consistency_args;

FLOW_HD void flow_consistency_px(const flow_consistency_args *a, int x, int y)
{
    double d2 = 0;
    const int s = flow_fb_round_trip(&a->fb, x, y, &d2);
    FLOW_PX(a->verdict, x, y) = (float)s;
    FLOW_PX(a->occluded, x, y) = s == FLOW_FB_KEPT ? 0.0f : 1.0f;
    if (s == FLOW_FB_UNKNOWN_FWD) {
        FLOW_PX(a->confidence, x, y) = 0.0f;
        return;
    }
    const float e = s == FLOW_FB_KEPT || s == FLOW_FB_INCONSISTENT ? (float)sqrt(d2)
                                                                  : FLOW_CONFIDENCE_FB_UNSEEN;
    const float px = (float)x + FLOW_PX(a->fb.fwd.u, x, y);
    const float py = (float)y + FLOW_PX(a->fb.fwd.v, x, y);
    float r2 = 0.0f;
    for (int c = 0; c < a->channels; c++) {
        const float d = flow_bilinear_at(&a->f2[c], px, py) - FLOW_PX(a->f1[c], x, y);
        r2 += d * d;
    }
    const float r = sqrtf(r2 / (float)a->channels);
    FLOW_PX(a->confidence, x, y) =
        expf(-e / FLOW_CONFIDENCE_FB_SCALE - r / FLOW_CONFIDENCE_RESIDUAL_SCALE);
}

#endif
