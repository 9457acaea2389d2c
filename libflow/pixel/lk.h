/* lk.h -- local Lucas-Kanade at one pixel: the 2x2 system of the windowed
 * motion tensor, its eigenvalues, the solvability test and the fill rule.
 *
 * Reference: Moussu 2010 (seed 001) eq. 2.16 (Gaussian window K_rho);
 * Pham 2019 (seed 002): box window of side s and a threshold tau on the
 * eigenvalues of the windowed tensor.  With the tensor
 *   T = [J11 J12; J12 J22],  b = -(J13, J23),
 * the flow is T^-1 b where T is well conditioned.  The window is applied by
 * the tensor pipeline (a normalised Gaussian or box kernel), so tau is a
 * threshold on the eigenvalues of the window-AVERAGED tensor (units of
 * squared grey values per pixel squared). */
#ifndef FLOW_PIXEL_LK_H
#define FLOW_PIXEL_LK_H

#include "qualifier.h"

#include <math.h>

/* The smallest eigenvalue accepted relative to the largest: below it the
 * float solve loses most of its digits, so the pixel counts as rank 1. */
#define FLOW_LK_COND_MIN 1e-5f

/* Eigenvalues l1 >= l2 of the symmetric [a b; b c]; l2 is computed as
 * det / l1, which keeps its relative accuracy when l2 << l1. */
FLOW_HD void flow_eig2_at(float a, float b, float c, float *l1, float *l2)
{
    const float m = 0.5f * (a + c), d = 0.5f * (a - c);
    *l1 = m + sqrtf(d * d + b * b);
    const float det = a * c - b * b;
    *l2 = *l1 > 0.0f ? det / *l1 : 0.0f;
}

/* A unit eigenvector (ex, ey) of [a b; b c] for its eigenvalue l. */
FLOW_HD void flow_eigvec2_at(float a, float b, float c, float l, float *ex, float *ey)
{
    /* (b, l - a) and (l - c, b) both solve (T - l) e = 0; take the longer. */
    float x1 = b, y1 = l - a, x2 = l - c, y2 = b;
    float n1 = x1 * x1 + y1 * y1, n2 = x2 * x2 + y2 * y2;
    if (n2 > n1) {
        x1 = x2, y1 = y2, n1 = n2;
    }
    if (n1 > 0.0f) {
        const float r = 1.0f / sqrtf(n1);
        *ex = x1 * r, *ey = y1 * r;
    } else { /* T = l I: every direction is an eigenvector */
        *ex = 1.0f, *ey = 0.0f;
    }
}

/* Lucas-Kanade at one pixel.  Returns the rank found (2: solved; 1: only
 * the dominant direction is reliable; 0: no information) and writes (u, v):
 * the solution for rank 2; otherwise the normal flow along the dominant
 * eigenvector (rank 1) or 0 (rank 0) when fill != 0, else `unknown` in both.
 * Rank 2 needs l2 >= tau and l2 > FLOW_LK_COND_MIN l1; rank 1 needs
 * l1 >= tau and l1 > 0. */
FLOW_HD int flow_lk_at(float j11, float j12, float j13, float j22, float j23, float tau, int fill,
                       float unknown, float *u, float *v)
{
    float l1, l2;
    flow_eig2_at(j11, j12, j22, &l1, &l2);
    if (l2 >= tau && l2 > FLOW_LK_COND_MIN * l1 && l1 > 0.0f) {
        const float det = j11 * j22 - j12 * j12;
        *u = (j12 * j23 - j22 * j13) / det;
        *v = (j12 * j13 - j11 * j23) / det;
        return 2;
    }
    const int rank = (l1 >= tau && l1 > 0.0f) ? 1 : 0;
    if (!fill) {
        *u = unknown, *v = unknown;
    } else if (rank == 1) {
        /* minimise w^T T w - 2 b.w over w = t e:  t = (b.e) / l1 */
        float ex, ey;
        flow_eigvec2_at(j11, j12, j22, l1, &ex, &ey);
        const float t = -(j13 * ex + j23 * ey) / l1;
        *u = t * ex, *v = t * ey;
    } else {
        *u = 0.0f, *v = 0.0f;
    }
    return rank;
}

/* Lucas-Kanade on a windowed tensor: x = -T^-1 (J13, J23) per pixel where
 * the system is solvable, elsewhere `unknown` (or the fill rule). */
typedef struct flow_lk_args {
    flow_tensor J;
    flow_pair x;
    float tau;
    int fill;
    float unknown;
} flow_lk_args;

FLOW_HD void flow_lk_px(const flow_lk_args *a, int x, int y)
{
    flow_lk_at(FLOW_PX(a->J.j11, x, y), FLOW_PX(a->J.j12, x, y), FLOW_PX(a->J.j13, x, y),
               FLOW_PX(a->J.j22, x, y), FLOW_PX(a->J.j23, x, y), a->tau, a->fill, a->unknown,
               &FLOW_PX(a->x.u, x, y), &FLOW_PX(a->x.v, x, y));
}

#endif
