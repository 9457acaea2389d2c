/* multigrid.c -- the solvers of a finest-grid system, written once in host
 * C over the device operations: Jacobi and red-black SOR alone, V- and
 * W-cycles, the cascadic scheme and full multigrid (seed 001 section 2.8.3,
 * algorithms 2.8.4-2.8.7), and for nonlinear systems the full
 * approximation scheme (section 2.8.4, algorithms 2.8.8 and 2.8.9).
 * Restriction is full weighting, prolongation bilinear (sections 4.2.5,
 * 4.2.6).
 *
 * Level d of the hierarchy has size ceil(W / 2^d) x ceil(H / 2^d) and grid
 * steps W / W_d, H / H_d; its tensors are the restrictions of the finer
 * ones.  A cycle from level d solves that level's system as given by
 * `flags`:
 *   linear:    coarse grids solve A e = R r for a correction, started at 0;
 *   nonlinear: coarse grids solve N(x) = R r + N(R x) for the full
 *              approximation, started at R x, and return e = x - R x.
 * The order of a cycle's steps is pixel/cycle.h's, which the one-call
 * small cycle (pixel/coarse.h) walks as well; here each step is device
 * calls, and what a step leaves for the smoothing after it (a
 * prolongation, a right-hand side's residual) rides with that smoothing
 * where the device can take it (cycle_pending).
 * The trace of appendix B (level, operation, residual norms, indented by
 * depth) is emitted through the observer when one is set; nothing here
 * reads device data otherwise, so a solve is a fixed sequence of launches. */
#include "core/multigrid.h"
#include "core/fused.h"
#include "core/pair.h"
#include "core/tensor.h"
#include "base/fail.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const flow_solver_names[] = { "jacobi", "rbsor", "v", "w", "cascadic", "fmg", NULL };
const char *const flow_smoother_names[] = { "jacobi", "rbsor", NULL };

static int is_multigrid(int solver)
{
    return solver == FLOW_SOLVER_VCYCLE || solver == FLOW_SOLVER_WCYCLE
           || solver == FLOW_SOLVER_CASCADIC || solver == FLOW_SOLVER_FMG;
}

int flow_mg_levels_for(const flow_solver_params *p, int w, int h)
{
    if (!is_multigrid(p->solver))
        return 1;
    int n = 1;
    while (flow_mg_coarse_size(w) >= FLOW_MG_MIN_SIDE && flow_mg_coarse_size(h) >= FLOW_MG_MIN_SIDE
           && (p->max_depth < 0 || n - 1 < p->max_depth)) {
        w = flow_mg_coarse_size(w);
        h = flow_mg_coarse_size(h);
        n++;
    }
    return n;
}

void flow_solver_fit(flow_solver_params *p, int w, int h)
{
    if (!is_multigrid(p->solver) || p->max_depth < 0)
        return;
    flow_solver_params deepest = *p;
    deepest.max_depth = -1;
    const int depth = flow_mg_levels_for(&deepest, w, h) - 1;
    if (p->max_depth > depth)
        p->max_depth = depth;
}

void flow_mg_destroy(flow_mg *mg)
{
    if (!mg)
        return;
    for (int d = 0; mg->lev && d < mg->nlevels; d++) {
        flow_mg_level *L = &mg->lev[d];
        for (int k = 0; k < L->sys.nterms; k++)
            flow_tensor_free(mg->dev, &L->sys.term[k].J);
        flow_pair_free(mg->dev, &L->x);
        flow_pair_free(mg->dev, &L->f);
        flow_pair_free(mg->dev, &L->t);
        flow_pair_free(mg->dev, &L->xr);
        flow_plane_free(mg->dev, &L->sys.g);
    }
    free(mg->lev);
    free(mg);
}

static flow_status level_alloc(flow_mg *mg, int d, const flow_mg_model *m, int w, int h)
{
    flow_mg_level *L = &mg->lev[d];
    L->width = w;
    L->height = h;
    L->sys.nterms = m->nterms;
    for (int k = 0; k < m->nterms; k++) {
        flow_data_term *t = &L->sys.term[k];
        FLOW_TRY(flow_tensor_alloc(mg->dev, &t->J, w, h));
        t->weight = m->term[k].weight;
        t->eps2 = m->term[k].eps2;
        t->robust = m->term[k].robust;
    }
    flow_system_grid(&L->sys, m->alpha, (float)((double)mg->lev[0].width / w),
                     (float)((double)mg->lev[0].height / h));
    L->sys.eps_s2 = m->eps_s2;
    L->sys.flags = m->robust_smooth ? FLOW_SYS_PSI_S : 0u;
    if (m->robust_smooth && m->edge) {
        L->sys.flags |= FLOW_SYS_EDGE;
        FLOW_TRY(flow_plane_alloc(mg->dev, &L->sys.g, w, h));
    }
    FLOW_TRY(flow_pair_alloc(mg->dev, &L->x, w, h));
    FLOW_TRY(flow_pair_alloc(mg->dev, &L->t, w, h));
    if (d > 0) {
        FLOW_TRY(flow_pair_alloc(mg->dev, &L->f, w, h));
        if (mg->nonlinear)
            FLOW_TRY(flow_pair_alloc(mg->dev, &L->xr, w, h));
    }
    return FLOW_OK;
}

flow_status flow_mg_create(flow_device *d, int width, int height, const flow_solver_params *p,
                           const flow_mg_model *m, flow_mg **out)
{
    *out = NULL;
    if (m->nterms < 1 || m->nterms > FLOW_TERMS_MAX)
        return flow_fail(FLOW_ERR_INVALID, "a system of %d data terms (1 to %d)", m->nterms,
                         FLOW_TERMS_MAX);
    flow_mg *mg = calloc(1, sizeof *mg);
    if (!mg)
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate a multigrid solver");
    mg->dev = d;
    mg->p = *p;
    mg->nonlinear = m->robust_smooth;
    for (int k = 0; k < m->nterms; k++)
        mg->nonlinear |= m->term[k].robust;
    mg->use_sor = p->solver == FLOW_SOLVER_RBSOR
                  || (p->solver != FLOW_SOLVER_JACOBI && p->smoother == FLOW_SOLVER_RBSOR);
    const int n = flow_mg_levels_for(p, width, height);
    if (n > FLOW_MG_LEVELS_MAX) {
        free(mg);
        return flow_fail(FLOW_ERR_SIZE, "a %dx%d grid of %d multigrid levels (at most %d)",
                         width, height, n, FLOW_MG_LEVELS_MAX);
    }
    mg->lev = calloc((size_t)n, sizeof *mg->lev);
    flow_status s = mg->lev ? FLOW_OK
                            : flow_fail(FLOW_ERR_NOMEM, "cannot allocate %d grid levels", n);
    if (s == FLOW_OK)
        mg->nlevels = n;
    for (int lv = 0, w = width, h = height; s == FLOW_OK && lv < n; lv++) {
        s = level_alloc(mg, lv, m, w, h);
        w = flow_mg_coarse_size(w);
        h = flow_mg_coarse_size(h);
    }
    if (s != FLOW_OK) {
        flow_mg_destroy(mg);
        return s;
    }
    *out = mg;
    return FLOW_OK;
}

/* Restricts the finest tensors down the hierarchy (eq. 2.58), and the
 * smoothness weight when it is new, a level in one pass; J33 only enters
 * the weight of a robust term. */
_Static_assert(6 * FLOW_TERMS_MAX + 1 <= FLOW_RESTRICT_PLANES,
               "a level's tensors and smoothness weight fit one restriction");

/* Level d is one of the small levels at the bottom of the hierarchy, whose
 * work a backend may fuse into one call per step (pixel/coarse.h). */
static int level_small(const flow_mg *mg, int d)
{
    return mg->nlevels - d <= FLOW_SMALL_LEVELS
           && (long)mg->lev[d].width * mg->lev[d].height <= FLOW_SMALL_GRID;
}

/* A cycle from level d runs as one small_cycle call where the backend has
 * it, unless traced (the trace reads every level between operations). */
static int small_cycle_fits(const flow_mg *mg, const flow_exec *ex, int d)
{
    return flow_fuses_small_cycle(mg->dev) && level_small(mg, d) && !flow_tracing(ex);
}

static flow_status restrict_tensors(flow_mg *mg)
{
    const int edge = mg->edge_stale;
    mg->edge_stale = 0;
    const int fuse = flow_fuses_restrict_small(mg->dev);
    flow_restrict_small_args chain; /* the small levels at the bottom, in one call */
    memset(&chain, 0, sizeof chain);
    for (int d = 1; d < mg->nlevels; d++) {
        flow_system *c = &mg->lev[d].sys, *f = &mg->lev[d - 1].sys;
        flow_restrict_planes_args a;
        memset(&a, 0, sizeof a);
        for (int k = 0; k < c->nterms; k++)
            for (int i = 0; i < (c->term[k].robust ? 6 : 5); i++) {
                a.coarse[a.n] = *flow_tensor_plane(&c->term[k].J, i);
                a.fine[a.n++] = *flow_tensor_plane(&f->term[k].J, i);
            }
        if (edge && (c->flags & FLOW_SYS_EDGE)) {
            a.coarse[a.n] = c->g;
            a.fine[a.n++] = f->g;
        }
        if (!fuse || !level_small(mg, d))
            FLOW_TRY(flow_k_restrict_planes(mg->dev, &a));
        else {
            if (chain.nlevels == 0)
                memcpy(chain.fine, a.fine, sizeof a.fine);
            memcpy(chain.coarse[chain.nlevels++], a.coarse, sizeof a.coarse);
            chain.n = a.n;
        }
    }
    return chain.nlevels ? mg->dev->ops->restrict_small(mg->dev, &chain) : FLOW_OK;
}

/* RMS of the FAS correction x2 - R x of level L, for the trace only: read
 * back to the host (a trace waits for the device anyway). */
static flow_status trace_diff_rms(flow_mg *mg, const flow_mg_level *L, double *rms)
{
    const size_t n = (size_t)L->width * L->height;
    float *buf = malloc(4 * n * sizeof *buf);
    if (!buf)
        return flow_fail(FLOW_ERR_NOMEM, "trace: cannot allocate %zu floats", 4 * n);
    const size_t w = (size_t)L->width;
    flow_status s = flow_download(mg->dev, buf, w, &L->x.u);
    if (s == FLOW_OK)
        s = flow_download(mg->dev, buf + n, w, &L->x.v);
    if (s == FLOW_OK)
        s = flow_download(mg->dev, buf + 2 * n, w, &L->xr.u);
    if (s == FLOW_OK)
        s = flow_download(mg->dev, buf + 3 * n, w, &L->xr.v);
    double sum = 0;
    for (size_t i = 0; s == FLOW_OK && i < n; i++) {
        const double du = (double)buf[i] - buf[2 * n + i], dv = (double)buf[n + i] - buf[3 * n + i];
        sum += du * du + dv * dv;
    }
    free(buf);
    *rms = sqrt(sum / (double)n);
    return s;
}

/* The step down from level d (flags: its system's) to d + 1 in a cycle:
 * r = f - N(x) into the level's t; FAS restricts x (x2 = R x, kept in xr
 * for e = x2 - R x) in the residual's pass.  The coarse right-hand side
 * comes with the first smoothing of level d + 1 (its entry, r), or with
 * the call that runs its whole cycle when it is small. */
static flow_status step_down(flow_mg *mg, flow_exec *ex, int d, unsigned flags)
{
    flow_mg_level *L = &mg->lev[d], *C = &mg->lev[d + 1];
    const int c = d + 1;
    flow_pair none = {{0}, {0}};
    flow_system s = L->sys;
    s.flags = flags;
    const flow_residual_args r = { .s = s, .r = L->t, .x = L->x,
                                   .f = (flags & FLOW_SYS_RHS) ? L->f : none,
                                   .with_rx = mg->nonlinear,
                                   .rx = { C->x, C->xr, L->x, 1 } };
    FLOW_TRY(flow_k_residual(mg->dev, &r));
    flow_tracef(ex, d, " \\ r%d = f%d - A%d x%d", d, d, d, d);
    if (mg->nonlinear) /* f2 = R r + N2(x2), started from x2 */
        flow_tracef(ex, d, "  \\ f%d = R[%d->%d] r%d + A%d( R[%d->%d] x%d )", c, d, c, d, c, d,
                    c, d);
    else /* A2 e2 = R r, started from e2 = 0 */
        flow_tracef(ex, d, "  \\ f%d = R[%d->%d] r%d", c, d, c, d);
    return FLOW_OK;
}

/* The step back up to level d from d + 1: the correction x += P (x2 - R x)
 * (FAS) or x += P e2, left in *corr for the caller, which hands it to the
 * smoothing after it (flow_mg_smooth takes it with its first sweeps). */
static flow_status step_up(flow_mg *mg, flow_exec *ex, int d, flow_prolong_pair_args *corr)
{
    flow_mg_level *L = &mg->lev[d], *C = &mg->lev[d + 1];
    const int c = d + 1;
    flow_pair none = {{0}, {0}};
    if (flow_tracing(ex)) {
        double rms;
        FLOW_TRY(mg->nonlinear ? trace_diff_rms(mg, C, &rms)
                               : flow_pair_rms(mg->dev, &C->x, &rms));
        if (mg->nonlinear)
            flow_tracef(ex, d, " / e%d = P[%d->%d] ( x%d - R[%d->%d] x%d ), |e%d| = %.6e", d, c,
                        d, c, d, c, d, c, rms);
        else
            flow_tracef(ex, d, " / x%d = x%d + P[%d->%d] e%d, |e%d| = %.6e", d, d, c, d, c, c,
                        rms);
    }
    const flow_prolong_pair_args pp = { L->x, C->x, mg->nonlinear ? C->xr : none,
                                        mg->nonlinear, 1, 0.0f };
    *corr = pp;
    return FLOW_OK;
}

/* The cycle from a level of at most FLOW_SMALL_GRID pixels in one device
 * call (pixel/coarse.h): the same operations as the recursion below, its
 * launches saved.  entry: the residual of the level above, from which the
 * call first computes level d's right-hand side (coarse_correction's
 * step); fmg_cycles > 0: FMG from the coarsest level up to d instead, that
 * many V-cycles a level (fmg below). */
static flow_status small_cycle(flow_mg *mg, int d, unsigned flags, int gamma,
                               const flow_pair *entry, int fmg_cycles)
{
    const flow_solver_params *p = &mg->p;
    flow_small_cycle_args a;
    memset(&a, 0, sizeof a);
    a.nlevels = mg->nlevels - d;
    for (int k = 0; k < a.nlevels; k++) {
        const flow_mg_level *L = &mg->lev[d + k];
        flow_small_level *S = &a.lev[k];
        S->s = L->sys;
        S->s.flags = k ? flow_mg_flags_coarse(mg) : flags;
        S->x = L->x, S->t = L->t, S->xr = L->xr;
        if (S->s.flags & FLOW_SYS_RHS)
            S->f = L->f;
    }
    a.n0 = p->n0, a.n1 = p->n1, a.n2 = p->n2;
    a.gamma = gamma;
    a.fas = mg->nonlinear;
    a.sor = mg->use_sor;
    a.omega = (float)(mg->use_sor ? p->omega : p->jacobi_weight);
    a.with_entry = entry != NULL;
    if (entry)
        a.entry = *entry;
    a.fmg_cycles = fmg_cycles;
    a.coarse_flags = flow_mg_flags_coarse(mg);
    return mg->dev->ops->small_cycle(mg->dev, &a);
}

/* What a cycle has pending for the smoothing to come, which takes it
 * with its first sweeps where the device can (flow_mg_smooth): a
 * prolongation onto the level's x, and the residual of the level above
 * that the level's right-hand side comes from.  Launch scheduling only:
 * the cycle's decisions are those of pixel/cycle.h. */
typedef struct cycle_pending {
    const flow_prolong_pair_args *pre;
    const flow_pair *entry;
    flow_prolong_pair_args corr; /* where pre points after a step up */
} cycle_pending;

/* Step s of a cycle (pixel/cycle.h) on the host: the operations of the
 * step, each a device call (or, at a small bottom level, the whole cycle
 * from there in one).  A smoothing that leaves the iterate in t (a pass
 * of SOR or Jacobi pairs after an odd count) swaps the level's x and t for
 * the rest of its visit, so that V(1,1) ends back in x with no copy;
 * swaps[d] counts them, and the level is put back when it is done. */
static flow_status cycle_step(flow_mg *mg, flow_exec *ex, const flow_cycle_shape *c,
                              const flow_cycle_step *s, unsigned top_flags, const char *kind,
                              cycle_pending *pend, int *swaps)
{
    const int d = s->d;
    flow_mg_level *L = &mg->lev[d];
    const unsigned flags = d == c->top ? top_flags : flow_mg_flags_coarse(mg);
    if (s->up) {
        FLOW_TRY(step_up(mg, ex, d, &pend->corr));
        pend->pre = &pend->corr;
    } else
        swaps[d] = 0;
    if (s->role == FLOW_CYCLE_BOTTOM && small_cycle_fits(mg, ex, d)) { /* one call */
        if (pend->pre)
            FLOW_TRY(flow_k_prolong_pair(mg->dev, pend->pre));
        FLOW_TRY(small_cycle(mg, d, flags, c->gamma, pend->entry, 0));
    } else if (s->up && s->down) { /* the next residual reads the corrected x */
        FLOW_TRY(flow_k_prolong_pair(mg->dev, pend->pre));
    } else {
        const int bottom = s->role == FLOW_CYCLE_BOTTOM;
        int in_t = 0;
        FLOW_TRY(flow_mg_smooth(mg, ex, d, flags, s->sweeps, bottom ? "S" : kind,
                                bottom ? NULL
                                       : s->role == FLOW_CYCLE_PRE ? "presmooth" : "postsmooth",
                                bottom ? NULL : &in_t, pend->pre, pend->entry));
        if (in_t)
            flow_mg_swap_xt(L), swaps[d]++;
    }
    pend->pre = NULL;
    pend->entry = NULL;
    if (s->down) {
        FLOW_TRY(step_down(mg, ex, d, flags));
        pend->entry = &L->t;
    } else if (swaps[d] % 2) {
        flow_mg_swap_xt(L);
        const flow_copy_pair_args back = { L->x, L->t };
        FLOW_TRY(flow_k_copy_pair(mg->dev, &back));
    }
    return FLOW_OK;
}

/* VCYCLE / WCYCLE (gamma 1 / 2) from level top, in place on its x after
 * the prolongation pre onto it (when given) and, for a coarse level, its
 * right-hand side from the residual entry of the level above (when
 * given): the walk of pixel/cycle.h down to the coarsest level, or to the
 * first level whose cycle the device runs in one call (small_cycle_fits),
 * where the walk's bottom solve is that call. */
static flow_status cycle(flow_mg *mg, flow_exec *ex, int top, unsigned flags, int gamma,
                         const char *kind, const flow_prolong_pair_args *pre,
                         const flow_pair *entry)
{
    const flow_solver_params *p = &mg->p;
    if (small_cycle_fits(mg, ex, top)) {
        if (pre)
            FLOW_TRY(flow_k_prolong_pair(mg->dev, pre));
        return small_cycle(mg, top, flags, gamma, entry, 0);
    }
    flow_cycle_shape c = { top, top, gamma, p->n0, p->n1, p->n2 };
    while (c.bottom < mg->nlevels - 1 && !small_cycle_fits(mg, ex, c.bottom))
        c.bottom++;
    int left[FLOW_MG_LEVELS_MAX], swaps[FLOW_MG_LEVELS_MAX];
    cycle_pending pend = { pre, entry, { { { 0 }, { 0 } }, { { 0 }, { 0 } }, { { 0 }, { 0 } },
                                         0, 0, 0.0f } };
    flow_cycle_step s;
    flow_cycle_first(&c, left, &s);
    do
        FLOW_TRY(cycle_step(mg, ex, &c, &s, flags, kind, &pend, swaps));
    while (flow_cycle_next(&c, left, &s));
    return FLOW_OK;
}

/* FMG and cascadic: the solution of level d prolongated as the initial
 * guess of level d - 1, applied by the smoothing that starts there. */
static flow_prolong_pair_args to_finer(flow_mg *mg, flow_exec *ex, int d)
{
    flow_tracef(ex, d - 1, "[depth: %d] -> [depth: %d] | x%d = P[%d->%d] x%d", d, d - 1, d - 1,
                d, d - 1, d);
    const flow_pair none = {{0}, {0}};
    const flow_prolong_pair_args a = { mg->lev[d - 1].x, mg->lev[d].x, none, 0, 0, 0.0f };
    return a;
}

/* FMG (algorithms 2.8.7, 2.8.9): from the coarsest level up, `cycles`
 * V-cycles on each level's full problem, the result prolongated as the next
 * finer level's initial guess.  The small levels at the bottom run their
 * part in one call. */
static flow_status fmg(flow_mg *mg, flow_exec *ex)
{
    const int D = mg->nlevels - 1;
    const unsigned full = flow_mg_flags_full(mg);
    int top = D + 1; /* levels top .. D: small */
    while (top > 0 && small_cycle_fits(mg, ex, top - 1))
        top--;
    flow_prolong_pair_args up;
    memset(&up, 0, sizeof up);
    if (top > D)
        FLOW_TRY(flow_pair_fill(mg->dev, &mg->lev[D].x, 0.0f));
    else {
        FLOW_TRY(small_cycle(mg, top, full, 1, NULL, mg->p.cycles));
        if (top > 0)
            up = to_finer(mg, ex, top);
    }
    for (int d = (top > D ? D : top - 1); d >= 0; d--) {
        for (int c = 1; c <= mg->p.cycles; c++) {
            flow_tracef(ex, d, "{depth: %d, cycle: %d/%d}", d, c, mg->p.cycles);
            FLOW_TRY(cycle(mg, ex, d, full, 1, "V", d < D && c == 1 ? &up : NULL, NULL));
        }
        if (d > 0)
            up = to_finer(mg, ex, d);
    }
    return FLOW_OK;
}

/* CASCADIC (algorithm 2.8.6): `iterations` smoothing sweeps per level from
 * the coarsest up, each result prolongated as the next initial guess. */
static flow_status cascadic(flow_mg *mg, flow_exec *ex)
{
    const int D = mg->nlevels - 1;
    const unsigned full = flow_mg_flags_full(mg);
    FLOW_TRY(flow_pair_fill(mg->dev, &mg->lev[D].x, 0.0f));
    flow_prolong_pair_args up;
    memset(&up, 0, sizeof up);
    for (int d = D; d >= 0; d--) {
        FLOW_TRY(flow_mg_smooth(mg, ex, d, full, mg->p.iterations, "C", "cascadic", NULL,
                                d < D ? &up : NULL, NULL));
        if (d > 0)
            up = to_finer(mg, ex, d);
    }
    return FLOW_OK;
}

static flow_status solve(flow_mg *mg, flow_exec *ex)
{
    const flow_solver_params *p = &mg->p;
    const unsigned full = flow_mg_flags_full(mg);
    flow_status s = FLOW_OK;
    switch (p->solver) {
    case FLOW_SOLVER_JACOBI:
    case FLOW_SOLVER_RBSOR:
        s = mg->warm ? FLOW_OK : flow_pair_fill(mg->dev, &mg->lev[0].x, 0.0f);
        if (s == FLOW_OK)
            s = flow_mg_smooth(mg, ex, 0, full, p->iterations,
                               p->solver == FLOW_SOLVER_RBSOR ? "SOR" : "J", "solve", NULL, NULL,
                               NULL);
        break;
    case FLOW_SOLVER_VCYCLE:
    case FLOW_SOLVER_WCYCLE:
        s = mg->warm ? FLOW_OK : flow_pair_fill(mg->dev, &mg->lev[0].x, 0.0f);
        for (int c = 1; s == FLOW_OK && c <= p->cycles; c++) {
            flow_tracef(ex, 0, "{depth: 0, cycle: %d/%d}", c, p->cycles);
            s = cycle(mg, ex, 0, full, p->solver == FLOW_SOLVER_VCYCLE ? 1 : 2,
                      p->solver == FLOW_SOLVER_VCYCLE ? "V" : "W", NULL, NULL);
        }
        break;
    case FLOW_SOLVER_CASCADIC:
        s = cascadic(mg, ex);
        break;
    case FLOW_SOLVER_FMG:
        s = fmg(mg, ex);
        break;
    default:
        s = flow_fail(FLOW_ERR_INVALID, "unknown solver %d", p->solver);
    }
    return s;
}

flow_status flow_mg_solve(flow_mg *mg, flow_exec *ex)
{
    flow_status s = FLOW_OK;
    flow_stage_begin(ex, "solve");
    if (mg->nlevels > 1) {
        flow_stage_begin(ex, "coarse tensors");
        s = restrict_tensors(mg);
        flow_stage_end(ex, "coarse tensors");
    }
    if (s == FLOW_OK) {
        const char *name = flow_solver_names[mg->p.solver];
        flow_stage_begin(ex, name);
        s = solve(mg, ex);
        flow_stage_end(ex, name);
    }
    flow_stage_end(ex, "solve");
    for (int d = 1; s == FLOW_OK && d < mg->nlevels && flow_watching(ex); d++) {
        /* each coarse grid: its restricted J11 (seed 001 fig. 4.15) and the
         * flow it holds after the solve */
        char name[48];
        snprintf(name, sizeof name, "level %d J11", d);
        s = flow_workflow(ex, name, &mg->lev[d].sys.term[0].J.j11);
        snprintf(name, sizeof name, "level %d iterate u", d);
        if (s == FLOW_OK)
            s = flow_workflow(ex, name, &mg->lev[d].x.u);
        snprintf(name, sizeof name, "level %d iterate v", d);
        if (s == FLOW_OK)
            s = flow_workflow(ex, name, &mg->lev[d].x.v);
    }
    return s;
}

flow_status flow_mg_residual_rms(flow_mg *mg, double *rms)
{
    return flow_mg_level_residual_rms(mg, 0, flow_mg_flags_full(mg), rms);
}
