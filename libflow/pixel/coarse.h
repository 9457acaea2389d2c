/* coarse.h -- a whole multigrid cycle on small grids in one call.
 *
 * Below FLOW_SMALL_GRID pixels a level's work is a few hundred points:
 * launched operation by operation (smooth, residual, two restrictions,
 * apply, prolongation per level and per visit) the GPU spends more time
 * starting kernels than computing.  flow_small_cycle runs the cycle of
 * core/multigrid.c (algorithms 2.8.4, 2.8.5 and 2.8.8 of seed 001: V or W,
 * correction scheme or FAS) from a small level down to the coarsest in one
 * call, walking the cycle of pixel/cycle.h as the host multigrid does,
 * with the step into that level from the one above (its right-hand
 * side), or the whole FMG of the small levels (algorithms 2.8.7, 2.8.9);
 * flow_restrict_small restricts their coefficients in one call.  Each is
 * one group of device threads (a CUDA block) whose threads share each
 * phase's points, with a barrier (FLOW_BARRIER) between phases; the
 * tests run the same functions with one worker on the CPU.
 * Every phase calls the functions the per-operation path calls at each
 * point (flow_residual_at, flow_restrict_at, flow_apply_at,
 * flow_prolong_at, the small smoothers), in the same order, so both paths
 * give the same values, bit for bit. */
#ifndef FLOW_PIXEL_COARSE_H
#define FLOW_PIXEL_COARSE_H

#include "cycle.h"
#include "transfer.h"
#include "variational.h"

/* Levels of one small cycle at most: a grid of FLOW_SMALL_GRID pixels has
 * a shorter side of at most 32, and coarse grids keep both sides at least 4
 * (FLOW_MG_MIN_SIDE of core/multigrid.h): 32, 16, 8, 4. */
#define FLOW_SMALL_LEVELS 4

/* One level: its system with the flags of its role (the top level's
 * flags, FLOW_SYS_RHS and the coarse flags below), its iterate x, its
 * right-hand side f (zero planes, never read, without FLOW_SYS_RHS), the
 * scratch t and, for FAS, xr = R x of the finer level. */
typedef struct flow_small_level {
    flow_system s;
    flow_pair x, f, t, xr;
} flow_small_level;

typedef struct flow_small_cycle_args {
    flow_small_level lev[FLOW_SMALL_LEVELS]; /* lev[0]: where the cycle starts */
    int nlevels;                             /* 1 .. FLOW_SMALL_LEVELS */
    int n0, n1, n2;                          /* sweeps: bottom, pre, post */
    int gamma;                               /* 1: V-cycle, 2: W-cycle */
    int fas;                                 /* 1: full approximation (nonlinear) */
    int sor;                                 /* smoother: 1 red-black SOR, 0 Jacobi */
    float omega;                             /* its relaxation or damping weight */
    int with_entry;                          /* lev[0].f from entry first (below) */
    flow_pair entry;                         /* the residual of the level above lev[0] */
    int fmg_cycles;     /* > 0: FMG from the bottom up to lev[0], that many cycles a level */
    unsigned coarse_flags; /* FMG: the flags of a level below the one it solves */
} flow_small_cycle_args;

/* The restrictions of the coefficients onto the small levels (the end of
 * restrict_tensors in core/multigrid.c) in one call: the n planes of the
 * first small level from fine, each next level's from the level before, a
 * phase each. */
typedef struct flow_restrict_small_args {
    flow_plane fine[FLOW_RESTRICT_PLANES];
    flow_plane coarse[FLOW_SMALL_LEVELS][FLOW_RESTRICT_PLANES];
    int n, nlevels;
} flow_restrict_small_args;

FLOW_HD void flow_restrict_small(const flow_restrict_small_args *a, int first, int step)
{
    for (int k = 0; k < a->nlevels; k++) {
        const flow_plane *c = a->coarse[k], *f = k ? a->coarse[k - 1] : a->fine;
        const int w = c[0].width, np = w * c[0].height;
        const float iw = 1.0f / (float)w;
        for (int i = first; i < np; i += step) {
            int x, y;
            flow_grid_xy(i, w, iw, &x, &y);
            flow_restrict_planes_at(c, f, a->n, x, y);
        }
        FLOW_BARRIER();
    }
}

/* n sweeps of the smoother on level L, then a barrier (Jacobi's copy back
 * after an odd count writes x). */
FLOW_HD void flow_small_smooth(const flow_small_cycle_args *a, const flow_small_level *L, int n,
                               float *ps, int first, int step)
{
    if (a->sor)
        flow_sor_small_on(&L->s, &L->x, &L->f, a->omega, n, ps, first, step);
    else
        flow_jacobi_small_on(&L->s, &L->x, &L->t, &L->f, a->omega, n, ps, first, step);
    FLOW_BARRIER();
}

/* f_C = R r (+ N_C(x_C) for FAS) on level C from r, the residual of the
 * level above; with zero_x, the correction scheme's x_C = 0 as well.  Then
 * a barrier. */
FLOW_HD void flow_small_rhs(const flow_small_cycle_args *a, const flow_small_level *C,
                            const flow_pair *r, int zero_x, int first, int step)
{
    const int cw = C->x.u.width, cn = cw * C->x.u.height;
    const float icw = 1.0f / (float)cw;
    for (int i = first; i < cn; i += step) {
        int x, y;
        flow_grid_xy(i, cw, icw, &x, &y);
        float fu, fv;
        if (a->fas) {
            const flow_var_terms t = flow_var_terms_px(&C->s, &C->x, x, y);
            flow_fas_rhs(&C->s, &t, r, x, y, &fu, &fv);
        } else {
            fu = flow_restrict_at(&r->u, x, y);
            fv = flow_restrict_at(&r->v, x, y);
            if (zero_x)
                FLOW_PX(C->x.u, x, y) = FLOW_PX(C->x.v, x, y) = 0.0f;
        }
        FLOW_PX(C->f.u, x, y) = fu;
        FLOW_PX(C->f.v, x, y) = fv;
    }
    FLOW_BARRIER();
}

/* Down from L to C in two phases: t = f - N(x) on L and, FAS, x_C = xr_C
 * = R x (else x_C = 0); then f_C = R t, plus N_C(x_C) for FAS. */
FLOW_HD void flow_small_down(const flow_small_cycle_args *a, const flow_small_level *L,
                             const flow_small_level *C, int first, int step)
{
    const int w = L->x.u.width, np = w * L->x.u.height;
    const float iw = 1.0f / (float)w, icw = 1.0f / (float)C->x.u.width;
    for (int i = first; i < np; i += step) {
        int x, y;
        flow_grid_xy(i, w, iw, &x, &y);
        flow_residual_at(&L->s, &L->x, &L->f, x, y, &FLOW_PX(L->t.u, x, y),
                         &FLOW_PX(L->t.v, x, y));
    }
    const int cw = C->x.u.width, cn = cw * C->x.u.height;
    for (int i = first; i < cn; i += step) {
        int x, y;
        flow_grid_xy(i, cw, icw, &x, &y);
        float u = 0.0f, v = 0.0f;
        if (a->fas) {
            u = flow_restrict_at(&L->x.u, x, y);
            v = flow_restrict_at(&L->x.v, x, y);
            FLOW_PX(C->xr.u, x, y) = u;
            FLOW_PX(C->xr.v, x, y) = v;
        }
        FLOW_PX(C->x.u, x, y) = u;
        FLOW_PX(C->x.v, x, y) = v;
    }
    FLOW_BARRIER();
    flow_small_rhs(a, C, &L->t, 0, first, step);
}

/* Up from C to L: x += P (x_C - xr_C) (FAS) or x += P x_C. */
FLOW_HD void flow_small_up(const flow_small_cycle_args *a, const flow_small_level *L,
                           const flow_small_level *C, int first, int step)
{
    const int w = L->x.u.width, np = w * L->x.u.height;
    const float iw = 1.0f / (float)w;
    for (int i = first; i < np; i += step) {
        int x, y;
        flow_grid_xy(i, w, iw, &x, &y);
        float u = flow_prolong_at(&C->x.u, x, y), v = flow_prolong_at(&C->x.v, x, y);
        if (a->fas) {
            u -= flow_prolong_at(&C->xr.u, x, y);
            v -= flow_prolong_at(&C->xr.v, x, y);
        }
        FLOW_PX(L->x.u, x, y) += u;
        FLOW_PX(L->x.v, x, y) += v;
    }
    FLOW_BARRIER();
}

/* The cycle from lev[top] (pixel/cycle.h), without recursion: at each
 * step the correction from the level below, the sweeps, the step down.
 * Each operation has one call site, so the GPU runs one copy of its code
 * for every level and visit: copies per site overflowed the instruction
 * cache.  ps holds FLOW_SMALL_GRID floats (shared memory on the GPU). */
FLOW_HD void flow_small_cycle_from(const flow_small_cycle_args *a, int top, float *ps, int first,
                                   int step)
{
    int left[FLOW_SMALL_LEVELS];
    const flow_cycle_shape c = { top, a->nlevels - 1, a->gamma, a->n0, a->n1, a->n2 };
    flow_cycle_step s;
    flow_cycle_first(&c, left, &s);
    do {
        const flow_small_level *L = &a->lev[s.d];
        if (s.up)
            flow_small_up(a, L, L + 1, first, step);
        if (s.sweeps > 0)
            flow_small_smooth(a, L, s.sweeps, ps, first, step);
        if (s.down)
            flow_small_down(a, L, L + 1, first, step);
    } while (flow_cycle_next(&c, left, &s));
}

/* The call: a cycle from lev[0] (after its right-hand side from the entry,
 * the residual of the level above, if any), or FMG (the
 * fmg of core/multigrid.c): the bottom level from x = 0, each level above
 * from the prolongation of the one below, each solved by fmg_cycles
 * cycles with the flags of lev[0]'s role while the levels below it take
 * coarse_flags.  a is the caller's copy, whose flags FMG changes (one
 * worker writes them in a phase that does not read them).  The cycle has
 * one call site, as its operations do. */
FLOW_HD void flow_small_cycle(flow_small_cycle_args *a, float *ps, int first, int step)
{
    const int fmg = a->fmg_cycles > 0, bottom = a->nlevels - 1;
    const unsigned top_flags = a->lev[0].s.flags;
    if (a->with_entry) /* FAS: x = R x, restricted with the residual entry */
        flow_small_rhs(a, &a->lev[0], &a->entry, 1, first, step);
    for (int top = fmg ? bottom : 0; top >= 0; top--) {
        if (fmg) {
            flow_small_level *L = &a->lev[top];
            const int w = L->x.u.width, np = w * L->x.u.height;
            const float iw = 1.0f / (float)w;
            const flow_pair none = { { 0 }, { 0 } };
            const flow_prolong_pair_args up = { L->x, top < bottom ? L[1].x : none, none, 0, 0,
                                                0.0f };
            for (int i = first; i < np; i += step) {
                int x, y;
                flow_grid_xy(i, w, iw, &x, &y);
                if (top < bottom)
                    flow_prolong_pair_px(&up, x, y);
                else
                    FLOW_PX(L->x.u, x, y) = FLOW_PX(L->x.v, x, y) = 0.0f;
            }
            if (first == 0) {
                L->s.flags = top_flags;
                if (top < bottom)
                    L[1].s.flags = a->coarse_flags;
            }
            FLOW_BARRIER();
        }
        for (int c = 0; c < (fmg ? a->fmg_cycles : 1); c++)
            flow_small_cycle_from(a, top, ps, first, step);
    }
}

#endif
