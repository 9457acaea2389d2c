/* tvl1.h -- TV-L1 optical flow at one point (Zach, Pock, Bischof, DAGM 2007;
 * discretised as Sanchez, Meinhardt-Llopis, Facciolo, IPOL 2013).
 *
 * Around the flow u0 of a warp, with I1w the second frame and g its
 * gradient both warped along u0, the data term is |rho(u)|,
 *   rho(u) = rho_c + g . u,   rho_c = I1w - g . u0 - I0.
 * The energy couples u to an auxiliary v by (u - v)^2 / (2 theta), and each
 * iteration alternates
 *   v = u + lambda theta g    where rho(u) < -lambda theta |g|^2
 *       u - lambda theta g    where rho(u) >  lambda theta |g|^2
 *       u - rho(u) g / |g|^2  elsewhere              (thresholding)
 *   u = v + theta div p                              (primal)
 *   p = (p + tau / theta grad u) / (1 + tau / theta |grad u|)   (dual)
 * for each component of the flow, p its dual field (two planes).  grad is
 * the forward difference (0 on the last column or row), div its negative
 * adjoint: the backward difference, p at the first column, -p at the last.
 *
 * The stopping test (epsilon > 0): at a checked iteration the primal step
 * also writes |u^{n+1} - u^n|^2 (both components) into a plane, whose sum
 * the device adds into one value; once that sum is below
 * limit = epsilon^2 times the pixels (the mean squared update below
 * epsilon^2), every later step of the warp leaves its values as they are. */
#ifndef FLOW_PIXEL_TVL1_H
#define FLOW_PIXEL_TVL1_H

#include "qualifier.h"
#include "robust.h"

#include <math.h>

/* Whether the warp's iterations have stopped: sum(0, 0) holds the summed
 * squared update of the last checked iteration (the primal step writes
 * none once stopped, so the sum stays below the limit until the next warp
 * resets it).  No plane: never. */
FLOW_HD int flow_tvl1_stopped(const flow_plane *sum, float limit)
{
    return sum->data && FLOW_PX(*sum, 0, 0) < limit;
}

/* rho_c of a warp: f2w and its warped gradient (gx, gy) at the flow w.
 * Where x + w leaves the frame the data term is dropped (gx = gy = rho_c =
 * 0): the clamped frame no longer changes with the flow there, and its
 * linearisation would push the flow further out at every warp. */
typedef struct flow_tvl1_terms_args {
    flow_plane rho_c, f1, f2w, gx, gy;
    flow_pair w;
} flow_tvl1_terms_args;

FLOW_HD void flow_tvl1_terms_px(const flow_tvl1_terms_args *a, int x, int y)
{
    const float u = FLOW_PX(a->w.u, x, y), v = FLOW_PX(a->w.v, x, y);
    const float px = (float)x + u, py = (float)y + v;
    const int in = px >= 0.0f && px <= (float)(a->f1.width - 1) && py >= 0.0f
                   && py <= (float)(a->f1.height - 1);
    const float gx = in ? FLOW_PX(a->gx, x, y) : 0.0f, gy = in ? FLOW_PX(a->gy, x, y) : 0.0f;
    FLOW_PX(a->gx, x, y) = gx;
    FLOW_PX(a->gy, x, y) = gy;
    FLOW_PX(a->rho_c, x, y) = in ? FLOW_PX(a->f2w, x, y) - gx * u - gy * v - FLOW_PX(a->f1, x, y)
                                 : 0.0f;
}

/* The divergence of the field (p1, p2) at (x, y). */
FLOW_HD float flow_tvl1_div_at(const flow_plane *p1, const flow_plane *p2, int x, int y)
{
    const int w = p1->width, h = p1->height;
    const float a = x < w - 1 ? FLOW_PX(*p1, x, y) : 0.0f;
    const float b = x > 0 ? FLOW_PX(*p1, x - 1, y) : 0.0f;
    const float c = y < h - 1 ? FLOW_PX(*p2, x, y) : 0.0f;
    const float d = y > 0 ? FLOW_PX(*p2, x, y - 1) : 0.0f;
    return a - b + c - d;
}

/* Thresholding and primal step, u in place: p[0], p[1] are the dual field
 * of u, p[2], p[3] that of v.  With d2 (a checked iteration) the squared
 * update goes there; with sum, nothing is done once stopped. */
typedef struct flow_tvl1_primal_args {
    flow_pair u;
    flow_plane p[4];
    flow_plane rho_c, gx, gy;
    float lt;    /* lambda theta */
    float theta;
    flow_plane d2, sum;
    float limit;
} flow_tvl1_primal_args;

FLOW_HD void flow_tvl1_primal_px(const flow_tvl1_primal_args *a, int x, int y)
{
    if (flow_tvl1_stopped(&a->sum, a->limit))
        return;
    const float gx = FLOW_PX(a->gx, x, y), gy = FLOW_PX(a->gy, x, y);
    const float g2 = gx * gx + gy * gy;
    float u = FLOW_PX(a->u.u, x, y), v = FLOW_PX(a->u.v, x, y);
    const float rho = FLOW_PX(a->rho_c, x, y) + gx * u + gy * v;
    const float lg2 = a->lt * g2;
    float s = 0.0f; /* v = u + s g */
    if (rho < -lg2)
        s = a->lt;
    else if (rho > lg2)
        s = -a->lt;
    else if (g2 > 1e-10f)
        s = -rho / g2;
    const float un = u + (s * gx + a->theta * flow_tvl1_div_at(&a->p[0], &a->p[1], x, y));
    const float vn = v + (s * gy + a->theta * flow_tvl1_div_at(&a->p[2], &a->p[3], x, y));
    if (a->d2.data)
        FLOW_PX(a->d2, x, y) = (un - u) * (un - u) + (vn - v) * (vn - v);
    FLOW_PX(a->u.u, x, y) = un;
    FLOW_PX(a->u.v, x, y) = vn;
}

/* The dual step, p in place (taut = tau / theta); with sum, nothing once
 * stopped. */
typedef struct flow_tvl1_dual_args {
    flow_pair u;
    flow_plane p[4];
    float taut;
    flow_plane sum;
    float limit;
} flow_tvl1_dual_args;

FLOW_HD void flow_tvl1_dual_at(const flow_plane *f, flow_plane *p1, flow_plane *p2, float taut,
                               int x, int y)
{
    const float c = FLOW_PX(*f, x, y);
    const float fx = x < f->width - 1 ? FLOW_PX(*f, x + 1, y) - c : 0.0f;
    const float fy = y < f->height - 1 ? FLOW_PX(*f, x, y + 1) - c : 0.0f;
    const float n = 1.0f + taut * sqrtf(fx * fx + fy * fy);
    FLOW_PX(*p1, x, y) = (FLOW_PX(*p1, x, y) + taut * fx) / n;
    FLOW_PX(*p2, x, y) = (FLOW_PX(*p2, x, y) + taut * fy) / n;
}

FLOW_HD void flow_tvl1_dual_px(const flow_tvl1_dual_args *a, int x, int y)
{
    if (flow_tvl1_stopped(&a->sum, a->limit))
        return;
    flow_plane p[4] = { a->p[0], a->p[1], a->p[2], a->p[3] };
    flow_tvl1_dual_at(&a->u.u, &p[0], &p[1], a->taut, x, y);
    flow_tvl1_dual_at(&a->u.v, &p[2], &p[3], a->taut, x, y);
}

/* The median filter of the flow before a block of iterations (robust.h's,
 * unweighted); once stopped, dst = src, so that copying dst back changes
 * nothing. */
typedef struct flow_tvl1_median_args {
    flow_median_args m;
    flow_plane sum;
    float limit;
} flow_tvl1_median_args;

FLOW_HD void flow_tvl1_median_px(const flow_tvl1_median_args *a, int x, int y)
{
    if (!flow_tvl1_stopped(&a->sum, a->limit)) {
        flow_median_px(&a->m, x, y);
        return;
    }
    FLOW_PX(a->m.dst.u, x, y) = FLOW_PX(a->m.src.u, x, y);
    FLOW_PX(a->m.dst.v, x, y) = FLOW_PX(a->m.src.v, x, y);
}

#endif
