/* variational.h -- the variational system of Horn-Schunck and CLG at one
 * pixel: the lagged diffusivities, the Jacobi and SOR updates, the residual
 * and the operator itself.  Shared by the CPU loops and the CUDA kernels.
 *
 * Reference: Moussu 2010 (seed 001) eqs. 2.24-2.29 (linear), 2.39-2.45
 * (nonlinear CLG with Psi(s^2) = sqrt(s^2 + eps^2)), 2.50 (Jacobi); red-black
 * SOR after seed 004.  At pixel (i, j) with x = (u, v):
 *
 *   N_u(x) = Psi'_D (J11 u + J12 v [+ J13]) + sum_n w_n (u - u_n)
 *   N_v(x) = Psi'_D (J12 u + J22 v [+ J23]) + sum_n w_n (v - v_n)
 *   w_n    = alpha / h_d^2 * (Psi'_S,n + Psi'_S,ij) / 2      (1 when linear)
 *
 * over the four neighbours n inside the grid (Neumann boundaries: a
 * neighbour outside is dropped, as in the Laplacian of appendix A.5); the
 * bracketed j3 terms are present when the system is FLOW_SYS_AFFINE;
 * Psi'_D and Psi'_S are evaluated from the iterate (lagged nonlinearity:
 * from the values a sweep starts from) when FLOW_SYS_PSI_D / _PSI_S.  The
 * system solved is N(x) = f, with f = 0 when the system has no FLOW_SYS_RHS;
 * on the finest grid the affine operator with f = 0 is A x = (-J13, -J23). */
#ifndef FLOW_PIXEL_VARIATIONAL_H
#define FLOW_PIXEL_VARIATIONAL_H

#include "qualifier.h"
#include "flow/backend.h"

#include <math.h>

#define FLOW_PX(p, x, y) ((p).data[(long)(y) * (p).pitch + (x)])

/* Psi'(s^2) = 1 / (2 sqrt(s^2 + eps^2)) (eq. 2.43); s2 below 0 (rounding)
 * counts as 0.  eps2 > 0 keeps it finite. */
FLOW_HD float flow_psi_prime(float s2, float eps2)
{
    return 0.5f / sqrtf((s2 > 0.0f ? s2 : 0.0f) + eps2);
}

/* Psi'_D at (x, y) for the flow (u, v) there (eq. 2.44):
 * s^2 = (u, v, 1) J (u, v, 1)^T; 1 for a quadratic data term. */
FLOW_HD float flow_psi_d_px(const flow_system *s, float u, float v, int x, int y)
{
    if (!(s->flags & FLOW_SYS_PSI_D))
        return 1.0f;
    const float j11 = FLOW_PX(s->J.j11, x, y), j12 = FLOW_PX(s->J.j12, x, y);
    const float j13 = FLOW_PX(s->J.j13, x, y), j22 = FLOW_PX(s->J.j22, x, y);
    const float j23 = FLOW_PX(s->J.j23, x, y), j33 = FLOW_PX(s->J.j33, x, y);
    const float s2 = j11 * u * u + 2.0f * j12 * u * v + j22 * v * v + 2.0f * (j13 * u + j23 * v)
                     + j33;
    return flow_psi_prime(s2, s->eps_d2);
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
    float c, e, w, s, n;          /* the pixel and its neighbours */
    float ee, ww, ss, nn;         /* two steps away */
    float ne, nw, se, sw;         /* diagonals */
} flow_stencil;

FLOW_HD flow_stencil flow_stencil_load(const flow_plane *p, int x, int y, int full)
{
    const int w = p->width, h = p->height;
    const int xm = x > 0 ? x - 1 : 0, xp = x < w - 1 ? x + 1 : w - 1;
    const int ym = y > 0 ? y - 1 : 0, yp = y < h - 1 ? y + 1 : h - 1;
    const float *r = p->data + (long)y * p->pitch;
    const float *rm = p->data + (long)ym * p->pitch, *rp = p->data + (long)yp * p->pitch;
    flow_stencil t;
    t.c = r[x], t.e = r[xp], t.w = r[xm], t.s = rp[x], t.n = rm[x];
    if (full) {
        const int xmm = x > 1 ? x - 2 : 0, xpp = x < w - 2 ? x + 2 : w - 1;
        const int ymm = y > 1 ? y - 2 : 0, ypp = y < h - 2 ? y + 2 : h - 1;
        t.ee = r[xpp], t.ww = r[xmm];
        t.ss = p->data[(long)ypp * p->pitch + x], t.nn = p->data[(long)ymm * p->pitch + x];
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
    const float ix = 0.5f / s->hx, iy = 0.5f / s->hy;
    const float ux = (uxp - uxm) * ix, uy = (uyp - uym) * iy;
    const float vx = (vxp - vxm) * ix, vy = (vyp - vym) * iy;
    return flow_psi_prime(ux * ux + uy * uy + vx * vx + vy * vy, s->eps_s2);
}

/* Psi'_S at (x, y) of the flow f, neighbours clamped into the grid (the
 * mirror image of the Neumann condition: a one-sided half difference at
 * the border). */
FLOW_HD float flow_psi_s_px(const flow_system *s, const flow_pair *f, int x, int y)
{
    const flow_stencil u = flow_stencil_load(&f->u, x, y, 0);
    const flow_stencil v = flow_stencil_load(&f->v, x, y, 0);
    return flow_psi_s_diff(s, u.e, u.w, u.s, u.n, v.e, v.w, v.s, v.n);
}

/* The operator's pieces at (x, y): the data weight pd = Psi'_D, and the
 * smoothness part wsum = sum_n w_n, (nu, nv) = sum_n w_n x_n over the
 * neighbours inside the grid, w_n = alpha / h^2 (times the mean of Psi'_S
 * at the pixel and at n).  The neighbour values come from xv, the
 * diffusivities from xd: the same field for Jacobi, the residual and the
 * operator; for in-place SOR, xd is the snapshot taken at the start of the
 * sweep (the values being updated must not feed the diffusivities of their
 * own half sweep). */
typedef struct flow_var_terms {
    float pd, wsum, nu, nv;
} flow_var_terms;

FLOW_HD void flow_var_add(float wn, float un, float vn, flow_var_terms *t)
{
    t->wsum += wn;
    t->nu += wn * un;
    t->nv += wn * vn;
}

/* The terms from diffusivities already evaluated: pd = Psi'_D at the pixel,
 * pc its Psi'_S and pw, pe, pn, ps those of its neighbours (read only for
 * neighbours inside the grid and a robust smoothness term); the neighbour
 * values from the stencils vu, vv. */
FLOW_HD flow_var_terms flow_var_terms_psi(const flow_system *s, const flow_stencil *vu,
                                          const flow_stencil *vv, int x, int y, int w, int h,
                                          float pd, float pc, float pw, float pe, float pn,
                                          float ps)
{
    const int psi_s = (s->flags & FLOW_SYS_PSI_S) != 0;
    const float ax = s->alpha / (s->hx * s->hx), ay = s->alpha / (s->hy * s->hy);
    flow_var_terms t;
    t.pd = pd;
    t.wsum = 0.0f;
    t.nu = 0.0f;
    t.nv = 0.0f;
    if (x > 0)
        flow_var_add(ax * (psi_s ? 0.5f * (pw + pc) : 1.0f), vu->w, vv->w, &t);
    if (x < w - 1)
        flow_var_add(ax * (psi_s ? 0.5f * (pe + pc) : 1.0f), vu->e, vv->e, &t);
    if (y > 0)
        flow_var_add(ay * (psi_s ? 0.5f * (pn + pc) : 1.0f), vu->n, vv->n, &t);
    if (y < h - 1)
        flow_var_add(ay * (psi_s ? 0.5f * (ps + pc) : 1.0f), vu->s, vv->s, &t);
    return t;
}

FLOW_HD flow_var_terms flow_var_terms_px(const flow_system *s, const flow_pair *xv,
                                         const flow_pair *xd, int x, int y)
{
    const int w = xv->u.width, h = xv->u.height;
    const int psi_s = (s->flags & FLOW_SYS_PSI_S) != 0;
    const flow_stencil du = flow_stencil_load(&xd->u, x, y, psi_s);
    const flow_stencil dv = flow_stencil_load(&xd->v, x, y, psi_s);
    flow_stencil vu = du, vv = dv;
    if (xv != xd) {
        vu = flow_stencil_load(&xv->u, x, y, 0);
        vv = flow_stencil_load(&xv->v, x, y, 0);
    }
    float pc = 1.0f, pw = 0.0f, pe = 0.0f, pn = 0.0f, ps = 0.0f;
    if (psi_s) {
        pc = flow_psi_s_diff(s, du.e, du.w, du.s, du.n, dv.e, dv.w, dv.s, dv.n);
        if (x > 0)
            pw = flow_psi_s_diff(s, du.c, du.ww, du.sw, du.nw, dv.c, dv.ww, dv.sw, dv.nw);
        if (x < w - 1)
            pe = flow_psi_s_diff(s, du.ee, du.c, du.se, du.ne, dv.ee, dv.c, dv.se, dv.ne);
        if (y > 0)
            pn = flow_psi_s_diff(s, du.ne, du.nw, du.c, du.nn, dv.ne, dv.nw, dv.c, dv.nn);
        if (y < h - 1)
            ps = flow_psi_s_diff(s, du.se, du.sw, du.ss, du.c, dv.se, dv.sw, dv.ss, dv.c);
    }
    return flow_var_terms_psi(s, &vu, &vv, x, y, w, h, flow_psi_d_px(s, du.c, dv.c, x, y), pc, pw,
                              pe, pn, ps);
}

/* The right-hand side at (x, y) (0 without FLOW_SYS_RHS). */
FLOW_HD void flow_rhs_px(const flow_system *s, const flow_pair *f, int x, int y, float *fu,
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

/* N(x) at (x, y) into (*nu, *nv). */
FLOW_HD void flow_apply_px(const flow_system *s, const flow_pair *xf, int x, int y, float *nu,
                           float *nv)
{
    const flow_var_terms t = flow_var_terms_px(s, xf, xf, x, y);
    const float u = FLOW_PX(xf->u, x, y), v = FLOW_PX(xf->v, x, y);
    const float aff = (s->flags & FLOW_SYS_AFFINE) ? 1.0f : 0.0f;
    const float j12 = FLOW_PX(s->J.j12, x, y);
    *nu = t.pd * (FLOW_PX(s->J.j11, x, y) * u + j12 * v + aff * FLOW_PX(s->J.j13, x, y))
          + t.wsum * u - t.nu;
    *nv = t.pd * (j12 * u + FLOW_PX(s->J.j22, x, y) * v + aff * FLOW_PX(s->J.j23, x, y))
          + t.wsum * v - t.nv;
}

/* r = f - N(x) at (x, y). */
FLOW_HD void flow_residual_px(const flow_system *s, const flow_pair *xf, const flow_pair *f,
                              int x, int y, float *ru, float *rv)
{
    float nu, nv, fu, fv;
    flow_apply_px(s, xf, x, y, &nu, &nv);
    flow_rhs_px(s, f, x, y, &fu, &fv);
    *ru = fu - nu;
    *rv = fv - nv;
}

/* x_new = (1 - omega) x + omega (f - off-diagonal part) / diagonal for one
 * component whose diagonal is den; a pixel with no equation (den == 0: no
 * neighbours and no data) keeps its value. */
FLOW_HD float flow_relax(float old, float num, float den, float omega)
{
    return den > 1e-30f ? old + omega * (num / den - old) : old;
}

/* The relaxed u of eq. 2.41 at (x, y) from the current (u, v), the
 * right-hand side fu and the terms t; and v of eq. 2.42 likewise.  Jacobi
 * gives both the old u, SOR gives v the new one. */
FLOW_HD float flow_update_u(const flow_system *s, const flow_var_terms *t, float u, float v,
                            float fu, int x, int y, float omega)
{
    const float aff = (s->flags & FLOW_SYS_AFFINE) ? 1.0f : 0.0f;
    const float off = FLOW_PX(s->J.j12, x, y) * v + aff * FLOW_PX(s->J.j13, x, y);
    return flow_relax(u, fu - t->pd * off + t->nu, t->pd * FLOW_PX(s->J.j11, x, y) + t->wsum,
                      omega);
}

FLOW_HD float flow_update_v(const flow_system *s, const flow_var_terms *t, float u, float v,
                            float fv, int x, int y, float omega)
{
    const float aff = (s->flags & FLOW_SYS_AFFINE) ? 1.0f : 0.0f;
    const float off = FLOW_PX(s->J.j12, x, y) * u + aff * FLOW_PX(s->J.j23, x, y);
    return flow_relax(v, fv - t->pd * off + t->nv, t->pd * FLOW_PX(s->J.j22, x, y) + t->wsum,
                      omega);
}

/* The Jacobi update at (x, y) (eq. 2.50 applied to eqs. 2.41/2.42) from
 * the old values (u, v) and the terms t of the old iterate. */
FLOW_HD void flow_jacobi_update(const flow_system *s, const flow_var_terms *t, float u, float v,
                                const flow_pair *f, int x, int y, float omega, float *u_new,
                                float *v_new)
{
    float fu, fv;
    flow_rhs_px(s, f, x, y, &fu, &fv);
    *u_new = flow_update_u(s, t, u, v, fu, x, y, omega);
    *v_new = flow_update_v(s, t, u, v, fv, x, y, omega);
}

/* One Jacobi update at (x, y) from the old iterate xf: both components from
 * the old values. */
FLOW_HD void flow_jacobi_px(const flow_system *s, const flow_pair *xf, const flow_pair *f, int x,
                            int y, float omega, float *u_new, float *v_new)
{
    const flow_var_terms t = flow_var_terms_px(s, xf, xf, x, y);
    flow_jacobi_update(s, &t, FLOW_PX(xf->u, x, y), FLOW_PX(xf->v, x, y), f, x, y, omega, u_new,
                       v_new);
}

/* The SOR update at (x, y) in place: u first, then v with the new u
 * (pointwise Gauss-Seidel with over-relaxation omega). */
FLOW_HD void flow_sor_update(const flow_system *s, const flow_var_terms *t, const flow_pair *xf,
                             const flow_pair *f, int x, int y, float omega)
{
    float *pu = &FLOW_PX(xf->u, x, y), *pv = &FLOW_PX(xf->v, x, y);
    float fu, fv;
    flow_rhs_px(s, f, x, y, &fu, &fv);
    const float u = flow_update_u(s, t, *pu, *pv, fu, x, y, omega);
    *pv = flow_update_v(s, t, u, *pv, fv, x, y, omega);
    *pu = u;
}

/* One SOR update at (x, y) in place; diffusivities from the sweep's
 * snapshot xd (xd may be xf for a linear system, which has none). */
FLOW_HD void flow_sor_px(const flow_system *s, const flow_pair *xf, const flow_pair *xd,
                         const flow_pair *f, int x, int y, float omega)
{
    const flow_var_terms t = flow_var_terms_px(s, xf, xd, x, y);
    flow_sor_update(s, &t, xf, f, x, y, omega);
}

/* Whether the system's diffusivities depend on x (then SOR needs the
 * snapshot of each sweep). */
FLOW_HD int flow_system_nonlinear(const flow_system *s)
{
    return (s->flags & (FLOW_SYS_PSI_D | FLOW_SYS_PSI_S)) != 0;
}

#endif
