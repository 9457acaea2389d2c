/* solver_cpu.c -- the CPU backend's solver operations: the per-pixel
 * functions of libflow/pixel/variational.h, stencil.h and lk.h in OpenMP
 * loops.  The table entries are in backend_cpu.c; the CUDA twins, calling
 * the same functions, are in libflow/cuda/solver.cu. */
#include "solver_cpu.h"
#include "../pixel/lk.h"
#include "../pixel/stencil.h"
#include "../pixel/variational.h"
#include "../src/internal.h"
#include "flow/field.h"

/* One Jacobi sweep from x into out. */
static void jacobi_sweep(const flow_system *s, flow_pair *out, const flow_pair *x,
                         const flow_pair *f, float weight)
{
    const int w = x->u.width, h = x->u.height;
#pragma omp parallel for schedule(static) if (PAR(w, h))
    for (int y = 0; y < h; y++)
        for (int i = 0; i < w; i++)
            flow_jacobi_px(s, x, f, i, y, weight, &FLOW_PX(out->u, i, y), &FLOW_PX(out->v, i, y));
}

flow_status cpu_jacobi(flow_backend *b, const flow_system *s, flow_pair *x, flow_pair *t,
                       const flow_pair *f, float weight, int n)
{
    (void)b;
    FLOW_TRY(flow_check_rhs(s, f, "jacobi"));
    for (int k = 0; k < n; k++) {
        if (k % 2 == 0)
            jacobi_sweep(s, t, x, f, weight);
        else
            jacobi_sweep(s, x, t, f, weight);
    }
    return FLOW_OK;
}

flow_status cpu_sor(flow_backend *b, const flow_system *s, flow_pair *x, flow_pair *t,
                    const flow_pair *f, float omega, int n)
{
    FLOW_TRY(flow_check_rhs(s, f, "sor"));
    const int nonlinear = flow_system_nonlinear(s);
    if (nonlinear && !t)
        return flow_fail(FLOW_ERR_INVALID, "sor: a nonlinear system needs the snapshot pair t");
    const flow_pair *xd = nonlinear ? t : x;
    const int w = x->u.width, h = x->u.height;
    for (int k = 0; k < n; k++) {
        if (nonlinear) {
            FLOW_TRY(b->ops->copy(b, &t->u, &x->u));
            FLOW_TRY(b->ops->copy(b, &t->v, &x->v));
        }
        for (int colour = 0; colour < 2; colour++) {
            /* alternate indexing (seed 004): row y holds its colour at columns
             * ((y + colour) & 1) + 2k, so no iteration is spent on the other */
#pragma omp parallel for schedule(static) if (PAR(w, h))
            for (int y = 0; y < h; y++)
                for (int i = (y + colour) & 1; i < w; i += 2)
                    flow_sor_px(s, x, xd, f, i, y, omega);
        }
    }
    return FLOW_OK;
}

flow_status cpu_residual(flow_backend *b, const flow_system *s, flow_pair *r, const flow_pair *x,
                         const flow_pair *f)
{
    (void)b;
    FLOW_TRY(flow_check_rhs(s, f, "residual"));
    const int w = x->u.width, h = x->u.height;
#pragma omp parallel for schedule(static) if (PAR(w, h))
    for (int y = 0; y < h; y++)
        for (int i = 0; i < w; i++)
            flow_residual_px(s, x, f, i, y, &FLOW_PX(r->u, i, y), &FLOW_PX(r->v, i, y));
    return FLOW_OK;
}

flow_status cpu_apply(flow_backend *b, const flow_system *s, flow_pair *out, const flow_pair *x,
                      int accumulate)
{
    (void)b;
    const int w = x->u.width, h = x->u.height;
#pragma omp parallel for schedule(static) if (PAR(w, h))
    for (int y = 0; y < h; y++)
        for (int i = 0; i < w; i++) {
            float nu, nv;
            flow_apply_px(s, x, i, y, &nu, &nv);
            float *pu = &FLOW_PX(out->u, i, y), *pv = &FLOW_PX(out->v, i, y);
            *pu = accumulate ? *pu + nu : nu;
            *pv = accumulate ? *pv + nv : nv;
        }
    return FLOW_OK;
}

flow_status cpu_restrict_pair(flow_backend *b, flow_pair *coarse, flow_pair *copy,
                              const flow_pair *fine)
{
    (void)b;
    const flow_plane *fu = &fine->u, *fv = &fine->v;
    const int w = coarse->u.width, h = coarse->u.height;
#pragma omp parallel for schedule(static) if (PAR(w, h))
    for (int y = 0; y < h; y++)
        for (int i = 0; i < w; i++) {
            const float u = flow_restriction_px(fu->data, fu->pitch, fu->width, fu->height, i, y);
            const float v = flow_restriction_px(fv->data, fv->pitch, fv->width, fv->height, i, y);
            FLOW_PX(coarse->u, i, y) = u;
            FLOW_PX(coarse->v, i, y) = v;
            if (copy) {
                FLOW_PX(copy->u, i, y) = u;
                FLOW_PX(copy->v, i, y) = v;
            }
        }
    return FLOW_OK;
}

flow_status cpu_prolong_pair(flow_backend *b, flow_pair *fine, const flow_pair *coarse,
                             const flow_pair *ref, int accumulate)
{
    (void)b;
    const flow_plane *cu = &coarse->u, *cv = &coarse->v;
    const int w = fine->u.width, h = fine->u.height;
#pragma omp parallel for schedule(static) if (PAR(w, h))
    for (int y = 0; y < h; y++)
        for (int i = 0; i < w; i++) {
            float u = flow_prolongation_px(cu->data, cu->pitch, cu->width, cu->height, i, y);
            float v = flow_prolongation_px(cv->data, cv->pitch, cv->width, cv->height, i, y);
            if (ref) {
                u -= flow_prolongation_px(ref->u.data, ref->u.pitch, cu->width, cu->height, i, y);
                v -= flow_prolongation_px(ref->v.data, ref->v.pitch, cv->width, cv->height, i, y);
            }
            float *pu = &FLOW_PX(fine->u, i, y), *pv = &FLOW_PX(fine->v, i, y);
            *pu = accumulate ? *pu + u : u;
            *pv = accumulate ? *pv + v : v;
        }
    return FLOW_OK;
}

flow_status cpu_restrict_tensor(flow_backend *b, flow_tensor *coarse, const flow_tensor *fine,
                                int with_j33)
{
    (void)b;
    flow_plane *cp[6] = { &coarse->j11, &coarse->j12, &coarse->j13,
                          &coarse->j22, &coarse->j23, &coarse->j33 };
    const flow_plane *fp[6] = { &fine->j11, &fine->j12, &fine->j13,
                                &fine->j22, &fine->j23, &fine->j33 };
    const int comps = with_j33 ? 6 : 5, w = coarse->j11.width, h = coarse->j11.height;
#pragma omp parallel for schedule(static) if (PAR(w, h))
    for (int y = 0; y < h; y++)
        for (int k = 0; k < comps; k++)
            for (int i = 0; i < w; i++)
                FLOW_PX(*cp[k], i, y) = flow_restriction_px(fp[k]->data, fp[k]->pitch,
                                                            fp[k]->width, fp[k]->height, i, y);
    return FLOW_OK;
}

flow_status cpu_lk(flow_backend *b, const flow_tensor *J, flow_pair *x, float tau, int fill)
{
    (void)b;
    const int w = x->u.width, h = x->u.height;
#pragma omp parallel for schedule(static) if (PAR(w, h))
    for (int y = 0; y < h; y++)
        for (int i = 0; i < w; i++)
            flow_lk_px(FLOW_PX(J->j11, i, y), FLOW_PX(J->j12, i, y), FLOW_PX(J->j13, i, y),
                       FLOW_PX(J->j22, i, y), FLOW_PX(J->j23, i, y), tau, fill, FLOW_UNKNOWN,
                       &FLOW_PX(x->u, i, y), &FLOW_PX(x->v, i, y));
    return FLOW_OK;
}

flow_status cpu_sum_squares(flow_backend *b, const flow_plane *p, double *sum)
{
    (void)b;
    double s = 0.0;
#pragma omp parallel for schedule(static) if (PAR(p->width, p->height)) reduction(+ : s)
    for (int j = 0; j < p->height; j++)
        for (int i = 0; i < p->width; i++) {
            const double v = FLOW_PX(*p, i, j);
            s += v * v;
        }
    *sum = s;
    return FLOW_OK;
}
