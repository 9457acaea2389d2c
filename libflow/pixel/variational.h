/* variational.h -- the variational system of Horn-Schunck and CLG at one
 * pixel: a list of data terms with their lagged robust weights, the
 * smoothness term with its lagged diffusivity, the Jacobi and SOR updates,
 * the residual and the operator itself, and the smoother of small grids.
 * Shared by the CPU loops and the CUDA kernels.
 *
 * Reference: Moussu 2010 (seed 001) eqs. 2.24-2.29 (linear), 2.39-2.45
 * (nonlinear CLG with Psi(s^2) = sqrt(s^2 + eps^2)), 2.50 (Jacobi); red-black
 * SOR after seed 004; several data terms each with its own penaliser as in
 * Brox, Bruhn, Papenberg, Weickert (ECCV 2004).  At pixel (i, j) with
 * x = (u, v) and data terms k with motion tensors J^k:
 *
 *   N_u(x) = sum_k P_k (J11^k u + J12^k v [+ J13^k]) + sum_n w_n (u - u_n)
 *   N_v(x) = sum_k P_k (J12^k u + J22^k v [+ J23^k]) + sum_n w_n (v - v_n)
 *   P_k    = gamma_k Psi'_k((u, v, 1) J^k (u, v, 1)^T)     (gamma_k if quadratic)
 *   w_n    = alpha / h_d^2 * (Psi'_S,n + Psi'_S,ij) / 2      (1 when linear)
 *
 * over the four neighbours n inside the grid (Neumann boundaries: a
 * neighbour outside is dropped, as in the Laplacian of appendix A.5); the
 * bracketed j3 terms are present when the system is FLOW_SYS_AFFINE; with
 * FLOW_SYS_EDGE each pixel's Psi'_S is multiplied by its weight g; the
 * robust weights are evaluated from the iterate (lagged nonlinearity: from
 * the values a sweep starts from).  The system solved is N(x) = f, with
 * f = 0 when the system has no FLOW_SYS_RHS; on the finest grid the affine
 * operator with f = 0 is A x = -(sum P_k J13^k, sum P_k J23^k).
 *
 * Sums over the terms start from the first term's value (not from 0), so a
 * system of one term computes exactly what the one-term formulas give. */
#ifndef FLOW_PIXEL_VARIATIONAL_H
#define FLOW_PIXEL_VARIATIONAL_H

#include "qualifier.h"
#include "transfer.h"

#include <math.h>

/* The most data terms of a system (brightness and gradient constancy). */
#define FLOW_TERMS_MAX 2

/* Flags of a flow_system: which terms the operator has. */
#define FLOW_SYS_AFFINE 1u /* data terms include J13, J23: N(x) = P (J x + j3) - ... */
#define FLOW_SYS_RHS 2u    /* the right-hand side f is given (else f = 0, never read) */
#define FLOW_SYS_PSI_S 4u  /* robust smoothness term: Psi'_S of eq. 2.45 (else 1) */
#define FLOW_SYS_EDGE 8u   /* with PSI_S: Psi'_S of a pixel times g there (image-driven) */

/* One data term: the (restricted) motion tensor of a constancy assumption,
 * its weight gamma in the energy and its penaliser. */
typedef struct flow_data_term {
    flow_tensor J;
    float weight; /* gamma */
    float eps2;   /* eps^2 of the Charbonnier penaliser Psi (robust terms) */
    int robust;   /* Psi'(s^2) = 1 / (2 sqrt(s^2 + eps^2)), lagged; else quadratic */
} flow_data_term;

/* One grid level's system (seed 001 eqs. 2.28-2.29, 2.41-2.42) on a grid of
 * steps hx, hy. */
typedef struct flow_system {
    flow_data_term term[FLOW_TERMS_MAX];
    int nterms;      /* 1 .. FLOW_TERMS_MAX */
    float ax, ay;    /* alpha / hx^2, alpha / hy^2: the smoothness weight per axis */
    float dx, dy;    /* 1 / (2 hx), 1 / (2 hy): the central differences' factors */
    float eps_s2;    /* eps_S^2 of Psi_S */
    unsigned flags;  /* FLOW_SYS_* */
    flow_plane g;    /* FLOW_SYS_EDGE: the smoothness weight of each pixel, 0 < g <= 1 */
} flow_system;

/* The smoothness weight alpha on a grid of steps hx, hy, as the operator
 * reads it (computed once per level, not at every pixel). */
FLOW_HD void flow_system_grid(flow_system *s, float alpha, float hx, float hy)
{
    s->ax = alpha / (hx * hx);
    s->ay = alpha / (hy * hy);
    s->dx = 0.5f / hx;
    s->dy = 0.5f / hy;
}

/* Whether the system's weights depend on x (then multigrid needs the full
 * approximation scheme). */
FLOW_HD int flow_system_nonlinear(const flow_system *s)
{
    int nl = (s->flags & FLOW_SYS_PSI_S) != 0;
    for (int k = 0; k < s->nterms; k++)
        nl |= s->term[k].robust;
    return nl;
}

/* Psi'(s^2) = 1 / (2 sqrt(s^2 + eps^2)) (eq. 2.43); s2 below 0 (rounding)
 * counts as 0.  eps2 > 0 keeps it finite. */
FLOW_HD float flow_psi_prime(float s2, float eps2)
{
    return 0.5f * flow_rsqrt((s2 > 0.0f ? s2 : 0.0f) + eps2);
}

/* One data term's motion tensor at a pixel (J33 is read only for a robust
 * term, whose weight needs it). */
typedef struct flow_tensor_at {
    float j11, j12, j13, j22, j23, j33;
} flow_tensor_at;

/* P_k for the flow (u, v) at a pixel whose tensor values are J (eq. 2.44
 * with the weight): s^2 = (u, v, 1) J (u, v, 1)^T. */
FLOW_HD float flow_term_weight(const flow_data_term *t, const flow_tensor_at *J, float u,
                               float v)
{
    if (!t->robust)
        return t->weight;
    const float s2 = J->j11 * u * u + 2.0f * J->j12 * u * v + J->j22 * v * v
                     + 2.0f * (J->j13 * u + J->j23 * v) + J->j33;
    return t->weight * flow_psi_prime(s2, t->eps2);
}

/* The values of one plane around (x, y) that an operator at (x, y) needs:
 * the pixel, its four neighbours (e = x+1, w = x-1, s = y+1, n = y-1) and,
 * for Psi'_S at those neighbours, the diagonals and the pixels two steps
 * away.  Coordinates are clamped into the grid per axis, so a value across
 * the border repeats the border (what Psi'_S's differences want); the
 * smoothness sums only read neighbours inside the grid.  Loading the
 * stencil once keeps each value in a register instead of reloading it for
 * each of the five Psi'_S evaluations. */
typedef struct flow_stencil {
    float c, e, w, s, n;  /* the pixel and its neighbours */
    float ee, ww, ss, nn; /* two steps away */
    float ne, nw, se, sw; /* diagonals */
} flow_stencil;

FLOW_HD flow_stencil flow_stencil_load(const flow_plane *p, int x, int y, int full)
{
    const int w = p->width, h = p->height;
    const int xm = x > 0 ? x - 1 : 0, xp = x < w - 1 ? x + 1 : w - 1;
    const int ym = y > 0 ? y - 1 : 0, yp = y < h - 1 ? y + 1 : h - 1;
    const float *r = p->data + y * p->pitch;
    const float *rm = p->data + ym * p->pitch, *rp = p->data + yp * p->pitch;
    flow_stencil t;
    t.c = r[x], t.e = r[xp], t.w = r[xm], t.s = rp[x], t.n = rm[x];
    if (full) {
        const int xmm = x > 1 ? x - 2 : 0, xpp = x < w - 2 ? x + 2 : w - 1;
        const int ymm = y > 1 ? y - 2 : 0, ypp = y < h - 2 ? y + 2 : h - 1;
        t.ee = r[xpp], t.ww = r[xmm];
        t.ss = FLOW_PX(*p, x, ypp), t.nn = FLOW_PX(*p, x, ymm);
        t.ne = rm[xp], t.nw = rm[xm], t.se = rp[xp], t.sw = rp[xm];
    } else {
        t.ee = t.ww = t.ss = t.nn = t.ne = t.nw = t.se = t.sw = 0.0f;
    }
    return t;
}

/* Psi'_S (eq. 2.45) from the central differences (xp - xm) / 2hx and
 * (yp - ym) / 2hy of u and v at one point. */
FLOW_HD float flow_psi_s_diff(const flow_system *s, float uxp, float uxm, float uyp, float uym,
                              float vxp, float vxm, float vyp, float vym)
{
    const float ux = (uxp - uxm) * s->dx, uy = (uyp - uym) * s->dy;
    const float vx = (vxp - vxm) * s->dx, vy = (vyp - vym) * s->dy;
    return flow_psi_prime(ux * ux + uy * uy + vx * vx + vy * vy, s->eps_s2);
}

/* The image-driven factor of Psi'_S at (x, y), clamped into the grid (1
 * without FLOW_SYS_EDGE). */
FLOW_HD float flow_edge_at(const flow_system *s, int x, int y)
{
    return (s->flags & FLOW_SYS_EDGE) ? flow_at(&s->g, x, y) : 1.0f;
}

/* Psi'_S at (x, y) of the flow f, neighbours clamped into the grid (the
 * mirror image of the Neumann condition: a one-sided half difference at
 * the border), times the pixel's edge factor. */
FLOW_HD float flow_psi_s_px(const flow_system *s, const flow_pair *f, int x, int y)
{
    const flow_stencil u = flow_stencil_load(&f->u, x, y, 0);
    const flow_stencil v = flow_stencil_load(&f->v, x, y, 0);
    return flow_edge_at(s, x, y) * flow_psi_s_diff(s, u.e, u.w, u.s, u.n, v.e, v.w, v.s, v.n);
}

/* The operator's pieces at (x, y): the pixel's flow (u, v) and its data
 * terms' tensor values J[k] with their weights pd[k] = P_k (each value is
 * read from memory once per pixel, whichever update uses it), and the
 * smoothness part wsum = sum_n w_n, (nu, nv) = sum_n w_n x_n over the
 * neighbours inside the grid. */
typedef struct flow_var_terms {
    flow_tensor_at J[FLOW_TERMS_MAX];
    float pd[FLOW_TERMS_MAX];
    float u, v;
    float wsum, nu, nv;
} flow_var_terms;

/* The tensor values at (x, y) of data term d into J (J33 0 for a
 * quadratic term). */
FLOW_HD void flow_term_tensor(const flow_data_term *d, int x, int y, flow_tensor_at *J)
{
    J->j11 = FLOW_PX(d->J.j11, x, y);
    J->j12 = FLOW_PX(d->J.j12, x, y);
    J->j13 = FLOW_PX(d->J.j13, x, y);
    J->j22 = FLOW_PX(d->J.j22, x, y);
    J->j23 = FLOW_PX(d->J.j23, x, y);
    J->j33 = d->robust ? FLOW_PX(d->J.j33, x, y) : 0.0f;
}

/* The data terms at (x, y), weighted for the flow (u, v) there; their
 * tensor values from the planes, or from given[] when not NULL (values a
 * caller staged, as flow_term_tensor gives them). */
FLOW_HD void flow_data_weights(const flow_system *s, float u, float v, int x, int y,
                               const flow_tensor_at *given, flow_var_terms *t)
{
    const int n = s->nterms;
    FLOW_UNROLL
    for (int k = 0; k < FLOW_TERMS_MAX; k++) {
        flow_tensor_at *J = &t->J[k];
        if (k >= n) {
            J->j11 = J->j12 = J->j13 = J->j22 = J->j23 = J->j33 = t->pd[k] = 0.0f;
            continue;
        }
        const flow_data_term *d = &s->term[k];
        if (given)
            *J = given[k];
        else
            flow_term_tensor(d, x, y, J);
        t->pd[k] = flow_term_weight(d, J, u, v);
    }
}

FLOW_HD void flow_var_add(float wn, float un, float vn, flow_var_terms *t)
{
    t->wsum += wn;
    t->nu += wn * un;
    t->nv += wn * vn;
}

/* The terms at (x, y) of a w x h grid: the smoothness part from
 * diffusivities already evaluated (pc the pixel's Psi'_S and pw, pe, pn, ps
 * its neighbours', read only for neighbours inside the grid and a robust
 * smoothness term) and the neighbour values of the stencils vu, vv; the
 * data terms weighted for the flow (du, dv), their tensors from the planes
 * or from J (flow_data_weights); the pixel's flow from vu, vv. */
FLOW_HD flow_var_terms flow_var_terms_from(const flow_system *s, const flow_stencil *vu,
                                           const flow_stencil *vv, float du, float dv, int x,
                                           int y, int w, int h, float pc, float pw, float pe,
                                           float pn, float ps, const flow_tensor_at *J)
{
    const int psi_s = (s->flags & FLOW_SYS_PSI_S) != 0;
    const float ax = s->ax, ay = s->ay;
    /* a neighbour outside the grid adds weight 0 (exactly what leaving it
     * out gives): no branch, so the GPU issues every load at once instead
     * of waiting for memory inside each branch */
    const float ww = x > 0 ? ax * (psi_s ? 0.5f * (pw + pc) : 1.0f) : 0.0f;
    const float we = x < w - 1 ? ax * (psi_s ? 0.5f * (pe + pc) : 1.0f) : 0.0f;
    const float wn = y > 0 ? ay * (psi_s ? 0.5f * (pn + pc) : 1.0f) : 0.0f;
    const float ws = y < h - 1 ? ay * (psi_s ? 0.5f * (ps + pc) : 1.0f) : 0.0f;
    flow_var_terms t;
    t.wsum = 0.0f;
    t.nu = 0.0f;
    t.nv = 0.0f;
    flow_var_add(ww, vu->w, vv->w, &t);
    flow_var_add(we, vu->e, vv->e, &t);
    flow_var_add(wn, vu->n, vv->n, &t);
    flow_var_add(ws, vu->s, vv->s, &t);
    flow_data_weights(s, du, dv, x, y, J, &t);
    t.u = vu->c;
    t.v = vv->c;
    return t;
}

/* The terms at (x, y) of the flow xf, the weights lagged (taken from xf):
 * Jacobi, the residual and the operator. */
FLOW_HD flow_var_terms flow_var_terms_px(const flow_system *s, const flow_pair *xf, int x,
                                         int y)
{
    const int w = xf->u.width, h = xf->u.height;
    const int psi_s = (s->flags & FLOW_SYS_PSI_S) != 0;
    const flow_stencil du = flow_stencil_load(&xf->u, x, y, psi_s);
    const flow_stencil dv = flow_stencil_load(&xf->v, x, y, psi_s);
    float pc = 1.0f, pw = 0.0f, pe = 0.0f, pn = 0.0f, ps = 0.0f;
    if (psi_s) {
        /* at every pixel (the clamped stencil keeps them finite), used only
         * for neighbours inside the grid: no branch, as in flow_var_terms_from */
        pc = flow_edge_at(s, x, y)
             * flow_psi_s_diff(s, du.e, du.w, du.s, du.n, dv.e, dv.w, dv.s, dv.n);
        pw = flow_edge_at(s, x - 1, y)
             * flow_psi_s_diff(s, du.c, du.ww, du.sw, du.nw, dv.c, dv.ww, dv.sw, dv.nw);
        pe = flow_edge_at(s, x + 1, y)
             * flow_psi_s_diff(s, du.ee, du.c, du.se, du.ne, dv.ee, dv.c, dv.se, dv.ne);
        pn = flow_edge_at(s, x, y - 1)
             * flow_psi_s_diff(s, du.ne, du.nw, du.c, du.nn, dv.ne, dv.nw, dv.c, dv.nn);
        ps = flow_edge_at(s, x, y + 1)
             * flow_psi_s_diff(s, du.se, du.sw, du.ss, du.c, dv.se, dv.sw, dv.ss, dv.c);
    }
    return flow_var_terms_from(s, &du, &dv, du.c, dv.c, x, y, w, h, pc, pw, pe, pn, ps, NULL);
}

/* The terms at (x, y) of a w x h grid from the flow's stencils (pixel and
 * four neighbours) and Psi'_S at the pixel, ps (its row pitch pp; read only
 * for a robust smoothness term).  The data terms are weighted for the
 * pixel's own value: SOR reads it before its half sweep changes it, so with
 * Psi'_S taken from the sweep's start this gives the lagged weights of the
 * sweep's start at every update. */
FLOW_HD flow_var_terms flow_var_terms_ps(const flow_system *s, const flow_stencil *vu,
                                         const flow_stencil *vv, const float *ps, int pp, int x,
                                         int y, int w, int h, const flow_tensor_at *J)
{
    const int nl = (s->flags & FLOW_SYS_PSI_S) != 0;
    const float pc = nl ? ps[0] : 1.0f;
    const float pw = nl && x > 0 ? ps[-1] : 0.0f, pe = nl && x < w - 1 ? ps[1] : 0.0f;
    const float pn = nl && y > 0 ? ps[-pp] : 0.0f, pso = nl && y < h - 1 ? ps[pp] : 0.0f;
    return flow_var_terms_from(s, vu, vv, vu->c, vv->c, x, y, w, h, pc, pw, pe, pn, pso, J);
}

/* The same with the flow in the planes of vals and Psi'_S of every pixel
 * in ps (row i at ps + i * pitch). */
FLOW_HD flow_var_terms flow_var_terms_psi(const flow_system *s, const flow_pair *vals,
                                          const float *ps, int pitch, int x, int y)
{
    const flow_stencil vu = flow_stencil_load(&vals->u, x, y, 0);
    const flow_stencil vv = flow_stencil_load(&vals->v, x, y, 0);
    return flow_var_terms_ps(s, &vu, &vv, ps + y * pitch + x, pitch, x, y, vals->u.width,
                             vals->u.height, NULL);
}

/* The right-hand side at (x, y) (0 without FLOW_SYS_RHS). */
FLOW_HD void flow_rhs_at(const flow_system *s, const flow_pair *f, int x, int y, float *fu,
                         float *fv)
{
    if (s->flags & FLOW_SYS_RHS) {
        *fu = FLOW_PX(f->u, x, y);
        *fv = FLOW_PX(f->v, x, y);
    } else {
        *fu = 0.0f;
        *fv = 0.0f;
    }
}

/* N(x) at a pixel from its terms t into (*nu, *nv). */
FLOW_HD void flow_apply_terms(const flow_system *s, const flow_var_terms *t, float *nu, float *nv)
{
    const float u = t->u, v = t->v;
    const float aff = (s->flags & FLOW_SYS_AFFINE) ? 1.0f : 0.0f;
    const int n = s->nterms;
    float du = 0.0f, dv = 0.0f;
    FLOW_UNROLL
    for (int k = 0; k < FLOW_TERMS_MAX; k++) {
        if (k >= n)
            break;
        const flow_tensor_at *J = &t->J[k];
        const float tu = t->pd[k] * (J->j11 * u + J->j12 * v + aff * J->j13);
        const float tv = t->pd[k] * (J->j12 * u + J->j22 * v + aff * J->j23);
        du = k ? du + tu : tu;
        dv = k ? dv + tv : tv;
    }
    *nu = du + t->wsum * u - t->nu;
    *nv = dv + t->wsum * v - t->nv;
}

/* N(x) at (x, y) into (*nu, *nv). */
FLOW_HD void flow_apply_at(const flow_system *s, const flow_pair *xf, int x, int y, float *nu,
                           float *nv)
{
    const flow_var_terms t = flow_var_terms_px(s, xf, x, y);
    flow_apply_terms(s, &t, nu, nv);
}

/* f = R r + N(x) at (x, y) from the pixel's terms t, r a residual of the
 * finer grid: the right-hand side of a FAS coarse grid. */
FLOW_HD void flow_fas_rhs(const flow_system *s, const flow_var_terms *t, const flow_pair *r,
                          int x, int y, float *fu, float *fv)
{
    float nu, nv;
    flow_apply_terms(s, t, &nu, &nv);
    *fu = flow_restrict_at(&r->u, x, y) + nu;
    *fv = flow_restrict_at(&r->v, x, y) + nv;
}

/* r = f - N(x) at a pixel from its terms t and right-hand side (fu, fv). */
FLOW_HD void flow_residual_terms(const flow_system *s, const flow_var_terms *t, float fu,
                                 float fv, float *ru, float *rv)
{
    float nu, nv;
    flow_apply_terms(s, t, &nu, &nv);
    *ru = fu - nu;
    *rv = fv - nv;
}

/* r = f - N(x) at (x, y). */
FLOW_HD void flow_residual_at(const flow_system *s, const flow_pair *xf, const flow_pair *f,
                              int x, int y, float *ru, float *rv)
{
    const flow_var_terms t = flow_var_terms_px(s, xf, x, y);
    float fu, fv;
    flow_rhs_at(s, f, x, y, &fu, &fv);
    flow_residual_terms(s, &t, fu, fv, ru, rv);
}

/* x_new = (1 - omega) x + omega (f - off-diagonal part) / diagonal for one
 * component whose diagonal is den; a pixel with no equation (den == 0: no
 * neighbours and no data) keeps its value. */
FLOW_HD float flow_relax(float old, float num, float den, float omega)
{
    return den > 1e-30f ? old + omega * (flow_div(num, den) - old) : old;
}

/* The data part of one row of the 2x2 system at a pixel: for the u row
 * (comp 0) off = sum_k P_k (J12^k w [+ J13^k]) and diag = sum_k P_k J11^k,
 * w being v; for the v row (comp 1) J22^k, J23^k and w = u. */
FLOW_HD void flow_data_row(const flow_system *s, const flow_var_terms *t, int comp, float w,
                           float *off, float *diag)
{
    const float aff = (s->flags & FLOW_SYS_AFFINE) ? 1.0f : 0.0f;
    const int n = s->nterms;
    *off = 0.0f;
    *diag = 0.0f;
    FLOW_UNROLL
    for (int k = 0; k < FLOW_TERMS_MAX; k++) {
        if (k >= n)
            break;
        const flow_tensor_at *J = &t->J[k];
        const float o = t->pd[k] * (J->j12 * w + aff * (comp ? J->j23 : J->j13));
        const float d = t->pd[k] * (comp ? J->j22 : J->j11);
        *off = k ? *off + o : o;
        *diag = k ? *diag + d : d;
    }
}

/* The relaxed u of eq. 2.41 from the current (u, v), the right-hand side
 * fu and the terms t; and v of eq. 2.42 likewise.  Jacobi gives both the
 * old u, SOR gives v the new one. */
FLOW_HD float flow_update_u(const flow_system *s, const flow_var_terms *t, float u, float v,
                            float fu, float omega)
{
    float off, diag;
    flow_data_row(s, t, 0, v, &off, &diag);
    return flow_relax(u, fu - off + t->nu, diag + t->wsum, omega);
}

FLOW_HD float flow_update_v(const flow_system *s, const flow_var_terms *t, float u, float v,
                            float fv, float omega)
{
    float off, diag;
    flow_data_row(s, t, 1, u, &off, &diag);
    return flow_relax(v, fv - off + t->nv, diag + t->wsum, omega);
}

/* The Jacobi update (eq. 2.50 applied to eqs. 2.41/2.42) from the terms t
 * of the old iterate and the right-hand side (fu, fv). */
FLOW_HD void flow_jacobi_update(const flow_system *s, const flow_var_terms *t, float fu,
                                float fv, float omega, float *u_new, float *v_new)
{
    *u_new = flow_update_u(s, t, t->u, t->v, fu, omega);
    *v_new = flow_update_v(s, t, t->u, t->v, fv, omega);
}

/* The SOR update of a pixel: u first, then v with the new u (pointwise
 * Gauss-Seidel with over-relaxation omega); t holds the pixel's current
 * values. */
FLOW_HD void flow_sor_new(const flow_system *s, const flow_var_terms *t, float fu, float fv,
                          float omega, float *u, float *v)
{
    *u = flow_update_u(s, t, t->u, t->v, fu, omega);
    *v = flow_update_v(s, t, *u, t->v, fv, omega);
}

/* The same in place at (x, y) of xf. */
FLOW_HD void flow_sor_update(const flow_system *s, const flow_var_terms *t, const flow_pair *xf,
                             float fu, float fv, int x, int y, float omega)
{
    float u, v;
    flow_sor_new(s, t, fu, fv, omega, &u, &v);
    FLOW_PX(xf->v, x, y) = v;
    FLOW_PX(xf->u, x, y) = u;
}

/* ---- the operations ----------------------------------------------------- */

/* One damped Jacobi sweep from x into out: x <- (1 - w) x + w D^-1 (f - R x),
 * the weights lagged (taken from x). */
typedef struct flow_jacobi_sweep_args {
    flow_system s;
    flow_pair out, x, f;
    float weight;
} flow_jacobi_sweep_args;

FLOW_HD void flow_jacobi_sweep_px(const flow_jacobi_sweep_args *a, int x, int y)
{
    const flow_var_terms t = flow_var_terms_px(&a->s, &a->x, x, y);
    float fu, fv;
    flow_rhs_at(&a->s, &a->f, x, y, &fu, &fv);
    flow_jacobi_update(&a->s, &t, fu, fv, a->weight, &FLOW_PX(a->out.u, x, y),
                       &FLOW_PX(a->out.v, x, y));
}

/* n damped Jacobi sweeps of a grid of any size, x -> t -> x ... (t:
 * scratch of x's size): the device's jacobi_sweeps call.  A device runs
 * them in passes, each from one of x and t into the other: the CPU a
 * sweep per pass (flow_jacobi_sweep_px); the GPU two where that is faster
 * (device/cuda/jacobi.cu: the first sweep on a tile and two pixels around
 * it, the second on the tile, from flow_var_terms_tile), then one for an
 * odd count.  The result is in x, or in t after an odd number of passes
 * when odd_in_t is set.  With with_pre, the sweeps start from x after the
 * prolongation pre (pre.fine is x: a coarse-grid correction or FMG's
 * x = P x2), which the GPU's first pair computes as it stages the flow
 * instead of a launch of its own; x itself then holds either value when
 * the result is in t.  With with_entry (a system with FLOW_SYS_RHS), the
 * sweeps first set f = R entry + N(x) (flow_fas_rhs: the right-hand side
 * of a FAS coarse grid from the finer grid's residual entry, what an apply
 * with with_r writes), which the GPU's first pair computes from the terms
 * of its first sweep instead of a launch and a pass over the tensors of
 * its own. */
typedef struct flow_jacobi_sweeps_args {
    flow_system s;
    flow_pair x, t, f;
    float weight;
    int sweeps;
    int odd_in_t;
    int with_pre;
    flow_prolong_pair_args pre;
    int with_entry;
    flow_pair entry;
} flow_jacobi_sweeps_args;

/* Psi'_S of x at every pixel into ps: what the two colours of a nonlinear
 * SOR sweep read as the diffusivities of the sweep's start (evaluated once
 * per pixel, where each update would evaluate its own and its four
 * neighbours' from a snapshot of x). */
typedef struct flow_diffusivity_args {
    flow_system s;
    flow_pair x;
    flow_plane ps;
} flow_diffusivity_args;

FLOW_HD void flow_diffusivity_px(const flow_diffusivity_args *a, int x, int y)
{
    FLOW_PX(a->ps, x, y) = flow_psi_s_px(&a->s, &a->x, x, y);
}

/* One colour of a red-black SOR sweep in place (seed 004), the smoothness
 * weights from the sweep's diffusivities ps (read only for a robust
 * smoothness term).  Alternate indexing: point k of row y is pixel
 * 2k + ((y + colour) & 1), so every point of the grid (half the width)
 * works on the colour. */
typedef struct flow_sor_half_args {
    flow_system s;
    flow_pair x, f;
    flow_plane ps;
    int colour;
    float omega;
} flow_sor_half_args;

/* The pixel of point k of row y for a colour (-1 past the row's end). */
FLOW_HD int flow_colour_x(int k, int y, int colour, int width)
{
    const int x = 2 * k + ((y + colour) & 1);
    return x < width ? x : -1;
}

FLOW_HD void flow_sor_half_px(const flow_sor_half_args *a, int k, int y)
{
    const int x = flow_colour_x(k, y, a->colour, a->x.u.width);
    if (x < 0)
        return;
    const flow_var_terms t = flow_var_terms_psi(&a->s, &a->x, a->ps.data, a->ps.pitch, x, y);
    float fu, fv;
    flow_rhs_at(&a->s, &a->f, x, y, &fu, &fv);
    flow_sor_update(&a->s, &t, &a->x, fu, fv, x, y, a->omega);
}

/* ---- whole sweeps on tiles ---------------------------------------------- */

/* n red-black SOR sweeps on a grid of any size, the result in x (t: scratch
 * of x's size): the device's sor_sweeps call.  The CPU runs per sweep the
 * operations above (diffusivity, the two colours); the GPU runs a sweep as
 * one launch on tiles (device/cuda/sweeps.cu), x -> t -> x, each tile
 * holding the flow of its pixels and of a border three pixels wide, with
 * the values at coordinates clamped into the grid (what flow_stencil_load
 * reads).  The functions below are what the tiles compute at a pixel: the
 * values of flow_diffusivity_px and flow_sor_half_px from the tile
 * (pointers at the pixel, row pitches pu for the flow, pp for Psi'_S; g
 * the pixel's flow_edge_at; the tensors' values at the pixel in J, NULL:
 * read from the planes).  The GPU's Jacobi sweeps, residuals and
 * operator applications of a nonlinear system run on tiles as well, from
 * flow_var_terms_tile: Psi'_S evaluated once per pixel, where the per-pixel
 * functions evaluate it at the pixel and its four neighbours. */
typedef struct flow_sor_sweeps_args {
    flow_system s;
    flow_pair x, t, f;
    float omega;
    int sweeps;
    int odd_in_t; /* 1: the result may stay in t after an odd number of passes */
    int with_pre; /* the sweeps start from x after the prolongation pre (as the
                     Jacobi sweeps' pre: the GPU's first sweep stages it) */
    flow_prolong_pair_args pre;
} flow_sor_sweeps_args;

FLOW_HD float flow_psi_s_tile(const flow_system *s, const float *u, const float *v, int pu,
                              float g)
{
    return g * flow_psi_s_diff(s, u[1], u[-1], u[pu], u[-pu], v[1], v[-1], v[pu], v[-pu]);
}

/* The terms at (x, y) from a tile (see above): flow_var_terms_px's values
 * for the Jacobi sweep, the residual and N(x). */
FLOW_HD flow_var_terms flow_var_terms_tile(const flow_system *s, const float *u, const float *v,
                                           int pu, const float *ps, int pp,
                                           const flow_tensor_at *J, int x, int y, int w, int h)
{
    flow_stencil su, sv;
    su.c = u[0], su.e = u[1], su.w = u[-1], su.s = u[pu], su.n = u[-pu];
    sv.c = v[0], sv.e = v[1], sv.w = v[-1], sv.s = v[pu], sv.n = v[-pu];
    su.ee = su.ww = su.ss = su.nn = su.ne = su.nw = su.se = su.sw = 0.0f;
    sv.ee = sv.ww = sv.ss = sv.nn = sv.ne = sv.nw = sv.se = sv.sw = 0.0f;
    return flow_var_terms_ps(s, &su, &sv, ps, pp, x, y, w, h, J);
}

FLOW_HD void flow_sor_tile(const flow_system *s, const float *u, const float *v, int pu,
                           const float *ps, int pp, const flow_tensor_at *J, const flow_pair *f,
                           int x, int y, int w, int h, float omega, float *nu, float *nv)
{
    const flow_var_terms t = flow_var_terms_tile(s, u, v, pu, ps, pp, J, x, y, w, h);
    float fu, fv;
    flow_rhs_at(s, f, x, y, &fu, &fv);
    flow_sor_new(s, &t, fu, fv, omega, nu, nv);
}

/* r = f - N(x); with_rx, also the FAS restriction rx of x onto the coarser
 * grid (x2 = R x, its copy xr), which reads x as the residual does and
 * writes neither: done in the same pass, it saves a launch per level of a
 * cycle.  The fine grid's points cover the coarse grid's, coarse point
 * (x, y) being taken at fine point (x, y). */
typedef struct flow_residual_args {
    flow_system s;
    flow_pair r, x, f;
    int with_rx;
    flow_restrict_pair_args rx;
} flow_residual_args;

/* The restriction that rides along at (x, y), if any. */
FLOW_HD void flow_residual_rx_px(const flow_residual_args *a, int x, int y)
{
    if (a->with_rx && x < a->rx.coarse.u.width && y < a->rx.coarse.u.height)
        flow_restrict_pair_px(&a->rx, x, y);
}

FLOW_HD void flow_residual_px(const flow_residual_args *a, int x, int y)
{
    flow_residual_at(&a->s, &a->x, &a->f, x, y, &FLOW_PX(a->r.u, x, y), &FLOW_PX(a->r.v, x, y));
    flow_residual_rx_px(a, x, y);
}

/* out = N(x), or with_r: out = R r + N(x), r a residual of the finer grid
 * (the FAS right-hand side f_C = R r + N_C(x_C) in one pass). */
typedef struct flow_apply_args {
    flow_system s;
    flow_pair out, x, r;
    int with_r;
} flow_apply_args;

/* The restricted residual that N(x) is added to at (x, y) (0 without). */
FLOW_HD void flow_apply_base(const flow_apply_args *a, int x, int y, float *ru, float *rv)
{
    *ru = a->with_r ? flow_restrict_at(&a->r.u, x, y) : 0.0f;
    *rv = a->with_r ? flow_restrict_at(&a->r.v, x, y) : 0.0f;
}

/* out at (x, y) from the pixel's terms t and flow_apply_base's (ru, rv). */
FLOW_HD void flow_apply_write(const flow_apply_args *a, const flow_var_terms *t, float ru,
                              float rv, int x, int y)
{
    float nu, nv;
    flow_apply_terms(&a->s, t, &nu, &nv);
    FLOW_PX(a->out.u, x, y) = a->with_r ? ru + nu : nu;
    FLOW_PX(a->out.v, x, y) = a->with_r ? rv + nv : nv;
}

FLOW_HD void flow_apply_px(const flow_apply_args *a, int x, int y)
{
    float ru, rv;
    flow_apply_base(a, x, y, &ru, &rv);
    const flow_var_terms t = flow_var_terms_px(&a->s, &a->x, x, y);
    flow_apply_write(a, &t, ru, rv, x, y);
}

/* The apply that the entry of a (with_entry) stands for, which a device
 * that does not compute it in its first pass runs before the sweeps. */
FLOW_HD flow_apply_args flow_jacobi_entry_apply(const flow_jacobi_sweeps_args *a)
{
    const flow_apply_args ap = { a->s, a->f, a->x, a->entry, 1 };
    return ap;
}

/* ---- small grids: every sweep of a smoother in one call ---------------- */

/* A grid of at most FLOW_SMALL_GRID pixels (the coarse multigrid levels) is
 * smoothed by one call that runs all its sweeps: one CUDA block, with a
 * barrier between the phases, instead of a launch per sweep.  Each sweep
 * first evaluates every pixel's Psi'_S once into ps (a buffer of
 * FLOW_SMALL_GRID floats: shared memory on the GPU), then updates from
 * those values; the data weights are taken at the pixel itself.  These are
 * the values the per-pixel path computes (it evaluates Psi'_S at a pixel
 * and its four neighbours, five times the arithmetic; on grids this small,
 * latency is the cost), and a pixel's own (u, v) is still the sweep's
 * starting value when SOR updates it.  flow_jacobi_small and
 * flow_sor_small are the two smoothers (one kernel each on the GPU); the
 * CPU runs the same functions with one worker.  Grids above 1024 pixels
 * run faster as a launch per sweep on many multiprocessors than in one
 * block (BENCHMARKS.md, "Multigrid on small grids"). */
#define FLOW_SMALL_GRID 1024

typedef struct flow_smooth_small_args {
    flow_system s;
    flow_pair x, t, f; /* f: never read without FLOW_SYS_RHS */
    float omega;       /* Jacobi damping weight, or SOR relaxation */
    int sweeps;
    int sor; /* 1: red-black SOR in place; 0: Jacobi x -> t -> x ..., the result in x */
} flow_smooth_small_args;

/* Psi'_S of every pixel of src into ps, then a barrier (robust smoothness
 * only).  A worker handles pixels first, first + step, ... (a CUDA thread:
 * threadIdx.x, blockDim.x; the CPU: 0, 1). */
FLOW_HD void flow_small_psi(const flow_system *s, const flow_pair *src, float *ps, int first,
                            int step)
{
    if (!(s->flags & FLOW_SYS_PSI_S))
        return;
    const int w = src->u.width, np = w * src->u.height;
    const float iw = 1.0f / (float)w;
    for (int i = first; i < np; i += step) {
        int x, y;
        flow_grid_xy(i, w, iw, &x, &y);
        ps[i] = flow_psi_s_px(s, src, x, y);
    }
    FLOW_BARRIER();
}

/* The Jacobi smoother of system s on x: x -> t -> x ..., the result in x
 * (the last sweep of an odd count is copied back from t); f is read only
 * with FLOW_SYS_RHS.  The pieces come by pointer so that the coarse cycle
 * (pixel/coarse.h) runs it on its levels without copying a system. */
FLOW_HD void flow_jacobi_small_on(const flow_system *s, const flow_pair *x, const flow_pair *t,
                                  const flow_pair *f, float omega, int sweeps, float *ps,
                                  int first, int step)
{
    const int w = x->u.width, np = w * x->u.height;
    const float iw = 1.0f / (float)w;
    for (int k = 0; k < sweeps; k++) {
        /* pointers, not copies of the pairs at every sweep: faster in the
         * small cycle (arguments in shared memory) and in the smoother's own
         * kernel too, where they point into the parameter space (copies,
         * with integer indices, cost more time; the arguments copied to
         * shared memory, more still, its registers spilling) */
        const flow_pair *src = (k & 1) ? t : x, *dst = (k & 1) ? x : t;
        flow_small_psi(s, src, ps, first, step);
        for (int i = first; i < np; i += step) {
            int px, py;
            flow_grid_xy(i, w, iw, &px, &py);
            const flow_var_terms tm = flow_var_terms_psi(s, src, ps, w, px, py);
            float fu, fv, u, v;
            flow_rhs_at(s, f, px, py, &fu, &fv);
            flow_jacobi_update(s, &tm, fu, fv, omega, &u, &v);
            FLOW_PX(dst->u, px, py) = u;
            FLOW_PX(dst->v, px, py) = v;
        }
        FLOW_BARRIER();
    }
    if (sweeps & 1)
        for (int i = first; i < np; i += step) {
            int px, py;
            flow_grid_xy(i, w, iw, &px, &py);
            FLOW_PX(x->u, px, py) = FLOW_PX(t->u, px, py);
            FLOW_PX(x->v, px, py) = FLOW_PX(t->v, px, py);
        }
}

/* Red-black SOR of system s in place on x; each sweep's Psi'_S is that of
 * x at its start (as the per-pixel path's diffusivity pass gives it). */
FLOW_HD void flow_sor_small_on(const flow_system *s, const flow_pair *x, const flow_pair *f,
                               float omega, int sweeps, float *ps, int first, int step)
{
    /* each colour's points (hw per row), as flow_sor_half_px numbers them */
    const int w = x->u.width, hw = (w + 1) / 2, nc = hw * x->u.height;
    const float ihw = 1.0f / (float)hw;
    for (int k = 0; k < sweeps; k++) {
        flow_small_psi(s, x, ps, first, step);
        for (int colour = 0; colour < 2; colour++) {
            for (int i = first; i < nc; i += step) {
                int kx, py;
                flow_grid_xy(i, hw, ihw, &kx, &py);
                const int px = flow_colour_x(kx, py, colour, w);
                if (px < 0)
                    continue;
                const flow_var_terms tm = flow_var_terms_psi(s, x, ps, w, px, py);
                float fu, fv;
                flow_rhs_at(s, f, px, py, &fu, &fv);
                flow_sor_update(s, &tm, x, fu, fv, px, py, omega);
            }
            FLOW_BARRIER();
        }
    }
}

/* The two smoothers of the device's smooth_small call. */
FLOW_HD void flow_jacobi_small(const flow_smooth_small_args *a, float *ps, int first, int step)
{
    flow_jacobi_small_on(&a->s, &a->x, &a->t, &a->f, a->omega, a->sweeps, ps, first, step);
}

FLOW_HD void flow_sor_small(const flow_smooth_small_args *a, float *ps, int first, int step)
{
    flow_sor_small_on(&a->s, &a->x, &a->f, a->omega, a->sweeps, ps, first, step);
}

#endif
