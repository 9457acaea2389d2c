/* terms.h -- the data terms at one pixel, one small builder per constancy
 * assumption, composed by every method that fills a variational system's
 * list of terms (core/terms.c).  Each builder adds the motion tensor of its
 * constancy for one pair: the first frame f1 and a frame f2 warped along
 * s w (s = 1: the second frame at x + w; s = -1: the frame before the first
 * at x - w, under constant velocity, whose spatial derivatives then enter
 * negated).
 *
 * Builders (Brox, Bruhn, Papenberg, Weickert, ECCV 2004; normalisation
 * after Zimmer, Bruhn, Weickert, IJCV 2011).  With the derivatives averaged
 * over the two frames (f_x, f_y, and for gradient constancy f_xx, f_xy,
 * f_yy) and the temporal differences f_t = f2w - f1,
 * f_xt = (f2w)_x - (f1)_x, f_yt = (f2w)_y - (f1)_y:
 *
 *   brightness  J_B = theta_B grad3 f grad3 f^T,    grad3 f = (f_x, f_y, f_t),
 *               theta_B = 1 / (f_x^2 + f_y^2 + zeta^2)
 *   gradient    J_G = theta_X g_x g_x^T + theta_Y g_y g_y^T,
 *               g_x = (f_xx, f_xy, f_xt), g_y = (f_xy, f_yy, f_yt),
 *               theta_X = 1 / (f_xx^2 + f_xy^2 + zeta^2), theta_Y likewise
 *
 * (theta = 1 without normalisation).  (d, 1)^T J (d, 1) is then the squared
 * linearised constancy error of the increment d, divided by the squared
 * gradient: an error in pixels rather than grey levels.  Colour: the mean
 * of the channels' tensors.  A pixel whose warped position falls outside
 * the frame has no term from that pair (clamping would match it against the
 * border, a false match).
 *
 * The frame before (previous != 0): its pair adds the same builders' terms
 * where x - w is inside the frame, times wprev tol / sqrt(e^2 + tol^2),
 * e^2 its squared normalised miss at w (the terms' J33 summed with their
 * weights): a Charbonnier weight, lagged over the warp, that drops the
 * frame before where the velocity changes.  One penaliser then takes both
 * pairs' errors of a constancy.  The tensors are then rewritten for the
 * total flow (pixel/warp.h).
 *
 * The occlusion weight (occ_d2 or occ_e2 > 0): the second frame's terms
 * are multiplied by flow_occlusion_weight (pixel/occlusion.h) of the flow w
 * at the pixel (its divergence) and of the mean squared f2w - f1 over the
 * channels, so a pixel the second frame likely no longer shows pulls the
 * flow less; the frame before's terms are not weighted.
 *
 * A new constancy is a FLOW_TERM_ kind, its builder below and its case in
 * flow_term_add.
 *
 * One kind of the list has no builder here: the combined local-global
 * term (FLOW_TERM_CLG; Bruhn, Weickert, Schnorr, IJCV 2005), brightness
 * constancy of the frames presmoothed by K_sigma, its motion tensor
 * integrated over K_rho (seed 001 section 4.3; Horn-Schunck's with
 * rho = 0).  Its windows reach beyond the pixel before and after the
 * per-pixel products (flow_motion_products_px, pixel/tensor.h), so
 * core/terms.c builds it by the pipeline of core/tensor.c and rewrites the
 * integrated tensor for the total flow (flow_tensor_shift_px), while
 * flow_terms_px builds the list's other terms.  It is of the pair alone
 * (the frame before and the occlusion weight are the other terms'),
 * unnormalised, colour its channels' tensors summed, and a pixel whose
 * warped position falls outside keeps its term (against the clamped warped
 * frame). */
#ifndef FLOW_PIXEL_TERMS_H
#define FLOW_PIXEL_TERMS_H

#include "occlusion.h"
#include "qualifier.h"
#include "stencil.h"
#include "variational.h"
#include "warp.h"

#include <math.h>

/* The constancy assumptions a term can be built from. */
#define FLOW_TERM_BRIGHTNESS 0
#define FLOW_TERM_GRADIENT 1
#define FLOW_TERM_CLG 2 /* built by core/terms.c, never by flow_terms_px */

typedef struct flow_terms_args {
    flow_tensor J[FLOW_TERMS_MAX]; /* out: one tensor per term */
    int kind[FLOW_TERMS_MAX];      /* FLOW_TERM_BRIGHTNESS or FLOW_TERM_GRADIENT */
    float weight[FLOW_TERMS_MAX];  /* each term's weight (in the frame before's miss) */
    int nterms;
    flow_plane f1[3], f2w[3]; /* first frame, second warped along w */
    flow_plane f0w[3];        /* the frame before, warped along -w (previous) */
    flow_pair w;              /* the flow f2 was warped with */
    int channels;
    int normalise; /* divide each term by its squared gradient + zeta^2 */
    float zeta2;
    int previous;  /* add the terms of the frame before */
    float wprev;   /* their weight */
    float tol2;    /* tolerance^2 of their miss (0: none) */
    float occ_d2;  /* occlusion weight of the second frame's terms: 1 / (2 sigma_d^2), */
    float occ_e2;  /* 1 / (2 sigma_e^2); both 0: off */
} flow_terms_args;

/* j += theta (a, b, c)(a, b, c)^T */
FLOW_HD void flow_term_outer_add(float j[6], float a, float b, float c, float theta)
{
    j[0] += theta * a * a;
    j[1] += theta * a * b;
    j[2] += theta * a * c;
    j[3] += theta * b * b;
    j[4] += theta * b * c;
    j[5] += theta * c * c;
}

/* Second derivatives of f at (x, y): f_xx, f_xy, f_yy (central, h = 1). */
FLOW_HD void flow_hessian_at(const flow_plane *f, int x, int y, float *fxx, float *fxy,
                             float *fyy)
{
    const float c = FLOW_PX(*f, x, y);
    *fxx = flow_at(f, x + 1, y) - 2.0f * c + flow_at(f, x - 1, y);
    *fyy = flow_at(f, x, y + 1) - 2.0f * c + flow_at(f, x, y - 1);
    *fxy = 0.25f * (flow_at(f, x + 1, y + 1) - flow_at(f, x + 1, y - 1)
                    - flow_at(f, x - 1, y + 1) + flow_at(f, x - 1, y - 1));
}

FLOW_HD float flow_term_theta(int normalise, float g2, float zeta2)
{
    return normalise ? 1.0f / (g2 + zeta2) : 1.0f;
}

/* What the builders read of one frame at a pixel: its value, its first
 * derivatives (fourth-order stencil) and, when a builder needs them
 * (second != 0), its second derivatives (0 without). */
typedef struct flow_term_local {
    float f, fx, fy, fxx, fxy, fyy;
} flow_term_local;

FLOW_HD flow_term_local flow_term_local_at(const flow_plane *f, int x, int y, int second)
{
    flow_term_local l;
    l.f = FLOW_PX(*f, x, y);
    l.fx = flow_diff4_at(f, x, y, 1, 0);
    l.fy = flow_diff4_at(f, x, y, 0, 1);
    l.fxx = l.fxy = l.fyy = 0.0f;
    if (second)
        flow_hessian_at(f, x, y, &l.fxx, &l.fxy, &l.fyy);
    return l;
}

/* Whether any term needs second derivatives. */
FLOW_HD int flow_terms_second(const flow_terms_args *a)
{
    int second = 0;
    for (int k = 0; k < a->nterms; k++)
        second |= a->kind[k] == FLOW_TERM_GRADIENT;
    return second;
}

/* The brightness constancy builder: j += J_B of the pair (p1, p2). */
FLOW_HD void flow_term_brightness(const flow_term_local *p1, const flow_term_local *p2, float s,
                                  int normalise, float zeta2, float j[6])
{
    const float fx = 0.5f * (p1->fx + p2->fx), fy = 0.5f * (p1->fy + p2->fy);
    flow_term_outer_add(j, s * fx, s * fy, p2->f - p1->f,
                        flow_term_theta(normalise, fx * fx + fy * fy, zeta2));
}

/* The gradient constancy builder: j += J_G of the pair (p1, p2). */
FLOW_HD void flow_term_gradient(const flow_term_local *p1, const flow_term_local *p2, float s,
                                int normalise, float zeta2, float j[6])
{
    const float fxx = 0.5f * (p1->fxx + p2->fxx), fxy = 0.5f * (p1->fxy + p2->fxy);
    const float fyy = 0.5f * (p1->fyy + p2->fyy);
    flow_term_outer_add(j, s * fxx, s * fxy, p2->fx - p1->fx,
                        flow_term_theta(normalise, fxx * fxx + fxy * fxy, zeta2));
    flow_term_outer_add(j, s * fxy, s * fyy, p2->fy - p1->fy,
                        flow_term_theta(normalise, fxy * fxy + fyy * fyy, zeta2));
}

/* j += the term of `kind` for the pair. */
FLOW_HD void flow_term_add(int kind, const flow_term_local *p1, const flow_term_local *p2,
                           float s, int normalise, float zeta2, float j[6])
{
    switch (kind) {
    case FLOW_TERM_GRADIENT:
        flow_term_gradient(p1, p2, s, normalise, zeta2, j);
        break;
    default:
        flow_term_brightness(p1, p2, s, normalise, zeta2, j);
        break;
    }
}

/* Every term of one pair at (x, y) of f1 (its values p1) and f2 warped
 * along s w, into j[k]. */
FLOW_HD void flow_terms_pair_add(const flow_terms_args *a, const flow_term_local *p1,
                                 const flow_plane *f2, float s, int second, int x, int y,
                                 float j[FLOW_TERMS_MAX][6])
{
    const flow_term_local p2 = flow_term_local_at(f2, x, y, second);
    FLOW_UNROLL
    for (int k = 0; k < FLOW_TERMS_MAX; k++)
        if (k < a->nterms)
            flow_term_add(a->kind[k], p1, &p2, s, a->normalise, a->zeta2, j[k]);
}

FLOW_HD void flow_terms_px(const flow_terms_args *a, int x, int y)
{
    const float u0 = FLOW_PX(a->w.u, x, y), v0 = FLOW_PX(a->w.v, x, y);
    const int inside = flow_inside(&a->f1[0], (float)x + u0, (float)y + v0);
    const int before = a->previous && flow_inside(&a->f1[0], (float)x - u0, (float)y - v0);
    const int second = flow_terms_second(a);
    float j[FLOW_TERMS_MAX][6], p[FLOW_TERMS_MAX][6];
    FLOW_UNROLL
    for (int k = 0; k < FLOW_TERMS_MAX; k++)
        for (int i = 0; i < 6; i++)
            j[k][i] = p[k][i] = 0.0f;
    float m2 = 0.0f; /* the second frame's squared matching error, summed over the channels */
    for (int c = 0; (inside || before) && c < a->channels; c++) {
        const flow_term_local p1 = flow_term_local_at(&a->f1[c], x, y, second);
        if (inside) {
            flow_terms_pair_add(a, &p1, &a->f2w[c], 1.0f, second, x, y, j);
            const float e = FLOW_PX(a->f2w[c], x, y) - p1.f;
            m2 += e * e;
        }
        if (before)
            flow_terms_pair_add(a, &p1, &a->f0w[c], -1.0f, second, x, y, p);
    }
    if (inside && (a->occ_d2 > 0.0f || a->occ_e2 > 0.0f)) {
        const float o = flow_occlusion_weight(flow_divergence_at(&a->w, x, y),
                                              m2 / (float)a->channels, a->occ_d2, a->occ_e2);
        FLOW_UNROLL
        for (int k = 0; k < FLOW_TERMS_MAX; k++)
            for (int i = 0; i < 6; i++)
                j[k][i] *= o;
    }
    if (before) {
        float k0 = a->wprev;
        if (a->tol2 > 0.0f) {
            float e2 = 0.0f;
            FLOW_UNROLL
            for (int k = 0; k < FLOW_TERMS_MAX; k++)
                if (k < a->nterms)
                    e2 = e2 + a->weight[k] * p[k][5];
            e2 /= (float)a->channels;
            k0 *= sqrtf(a->tol2 / (e2 + a->tol2));
        }
        FLOW_UNROLL
        for (int k = 0; k < FLOW_TERMS_MAX; k++)
            for (int i = 0; i < 6; i++)
                j[k][i] += k0 * p[k][i];
    }
    const float mean = 1.0f / (float)a->channels;
    FLOW_UNROLL
    for (int k = 0; k < FLOW_TERMS_MAX; k++) {
        if (k >= a->nterms)
            continue;
        for (int i = 0; i < 6; i++)
            j[k][i] *= mean;
        flow_tensor_shift_at(j[k], u0, v0);
        flow_tensor_store(&a->J[k], x, y, j[k]);
    }
}

#endif
