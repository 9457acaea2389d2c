/* multigrid.c -- the solvers of the finest-grid system, written once in host
 * C over the backend operations: Jacobi and red-black SOR alone, V- and
 * W-cycles, the cascadic scheme and full multigrid (seed 001 section 2.8.3,
 * algorithms 2.8.4-2.8.7), and for nonlinear CLG the full approximation
 * scheme (section 2.8.4, algorithms 2.8.8 and 2.8.9).  Restriction is full
 * weighting, prolongation bilinear (sections 4.2.5, 4.2.6).
 *
 * Level d of the hierarchy has size ceil(W / 2^d) x ceil(H / 2^d) and grid
 * steps W / W_d, H / H_d; its tensor is the restriction of the finer one.
 * A cycle from level d solves that level's system as given by `flags`:
 *   linear:    coarse grids solve A e = R r for a correction, started at 0;
 *   nonlinear: coarse grids solve N(x) = R r + N(R x) for the full
 *              approximation, started at R x, and return e = x - R x.
 * The trace of appendix B (level, operation, residual norms, indented by
 * depth) is emitted through the observer when one is set; nothing here
 * reads device data otherwise, so a solve is a fixed sequence of launches. */
#include "solve.h"
#include "internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int flow_tracing(const flow_context *ctx)
{
    return ctx->obs.trace != NULL;
}

void flow_tracef(const flow_context *ctx, int depth, const char *fmt, ...)
{
    if (!ctx->obs.trace)
        return;
    char line[512];
    int n = 2 * (depth < 0 ? 0 : depth > 40 ? 40 : depth);
    memset(line, ' ', (size_t)n);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    ctx->obs.trace(ctx->obs.user, line);
}

void flow_stage_begin(const flow_context *ctx, const char *name)
{
    if (ctx->obs.stage_begin && !ctx->capturing)
        ctx->obs.stage_begin(ctx->obs.user, name);
}

void flow_stage_end(const flow_context *ctx, const char *name)
{
    if (ctx->obs.stage_end && !ctx->capturing)
        ctx->obs.stage_end(ctx->obs.user, name);
}

static flow_status cycle(flow_context *ctx, int d, unsigned flags, int gamma, const char *kind);

/* RMS of the FAS correction x2 - R x of level L, for the trace only: read
 * back to the host (a trace waits for the device anyway). */
static flow_status trace_diff_rms(flow_context *ctx, const flow_level *L, double *rms)
{
    const size_t n = (size_t)L->width * L->height;
    float *buf = malloc(4 * n * sizeof *buf);
    if (!buf)
        return flow_fail(FLOW_ERR_NOMEM, "trace: cannot allocate %zu floats", 4 * n);
    flow_backend *b = ctx->b;
    const size_t w = (size_t)L->width;
    flow_status s = b->ops->download(b, buf, w, &L->x.u);
    if (s == FLOW_OK)
        s = b->ops->download(b, buf + n, w, &L->x.v);
    if (s == FLOW_OK)
        s = b->ops->download(b, buf + 2 * n, w, &L->xr.u);
    if (s == FLOW_OK)
        s = b->ops->download(b, buf + 3 * n, w, &L->xr.v);
    double sum = 0;
    for (size_t i = 0; s == FLOW_OK && i < n; i++) {
        const double du = (double)buf[i] - buf[2 * n + i], dv = (double)buf[n + i] - buf[3 * n + i];
        sum += du * du + dv * dv;
    }
    free(buf);
    *rms = sqrt(sum / (double)n);
    return s;
}

/* The coarse-grid correction of level d from level d + 1 (the middle of
 * algorithms 2.8.4, 2.8.5 and 2.8.8). */
static flow_status coarse_correction(flow_context *ctx, int d, unsigned flags, int gamma,
                                     const char *kind)
{
    flow_backend *b = ctx->b;
    flow_level *L = &ctx->lev[d], *C = &ctx->lev[d + 1];
    const flow_system s = flow_level_system(ctx, d, flags);
    const unsigned cflags = flow_flags_coarse(ctx);
    const int fas = flow_uses_fas(ctx);
    const int c = d + 1;

    /* f2 = R (f - N(x)) */
    FLOW_TRY(b->ops->residual(b, &s, &L->t, &L->x, (flags & FLOW_SYS_RHS) ? &L->f : NULL));
    FLOW_TRY(b->ops->restrict_pair(b, &C->f, NULL, &L->t));
    flow_tracef(ctx, d, " \\ r%d = f%d - A%d x%d", d, d, d, d);
    if (fas) {
        /* f2 += N2(R x), started from x2 = R x (kept in xr for e = x2 - R x) */
        FLOW_TRY(b->ops->restrict_pair(b, &C->x, &C->xr, &L->x));
        const flow_system sc = flow_level_system(ctx, c, cflags);
        FLOW_TRY(b->ops->apply(b, &sc, &C->f, &C->x, 1));
        flow_tracef(ctx, d, "  \\ f%d = R[%d->%d] r%d + A%d( R[%d->%d] x%d )", c, d, c, d, c, d, c,
                    d);
    } else {
        /* A2 e2 = R r, started from e2 = 0 */
        FLOW_TRY(flow_pair_fill(b, &C->x, 0.0f));
        flow_tracef(ctx, d, "  \\ f%d = R[%d->%d] r%d", c, d, c, d);
    }
    FLOW_TRY(cycle(ctx, c, cflags, gamma, kind));
    if (flow_tracing(ctx)) {
        double rms;
        FLOW_TRY(fas ? trace_diff_rms(ctx, C, &rms) : flow_pair_rms(b, &C->x, &rms));
        if (fas)
            flow_tracef(ctx, d, " / e%d = P[%d->%d] ( x%d - R[%d->%d] x%d ), |e%d| = %.6e", d, c,
                        d, c, d, c, d, c, rms);
        else
            flow_tracef(ctx, d, " / x%d = x%d + P[%d->%d] e%d, |e%d| = %.6e", d, d, c, d, c, c,
                        rms);
    }
    /* x += P (x2 - R x) (FAS) or x += P e2 */
    return b->ops->prolong_pair(b, &L->x, &C->x, fas ? &C->xr : NULL, 1);
}

/* VCYCLE / WCYCLE (gamma 1 / 2) from level d, in place on lev[d].x; the
 * deepest level is smoothed n0 times ("bottom"). */
static flow_status cycle(flow_context *ctx, int d, unsigned flags, int gamma, const char *kind)
{
    const flow_params *p = &ctx->p;
    if (d == ctx->nlevels - 1)
        return flow_smooth_level(ctx, d, flags, p->n0, "S", NULL);
    FLOW_TRY(flow_smooth_level(ctx, d, flags, p->n1, kind, "presmooth"));
    for (int g = 0; g < gamma; g++)
        FLOW_TRY(coarse_correction(ctx, d, flags, gamma, kind));
    return flow_smooth_level(ctx, d, flags, p->n2, kind, "postsmooth");
}

/* FMG and cascadic: the solution of level d prolongated as the initial
 * guess of level d - 1. */
static flow_status to_finer(flow_context *ctx, int d)
{
    flow_tracef(ctx, d - 1, "[depth: %d] -> [depth: %d] | x%d = P[%d->%d] x%d", d, d - 1, d - 1,
                d, d - 1, d);
    return ctx->b->ops->prolong_pair(ctx->b, &ctx->lev[d - 1].x, &ctx->lev[d].x, NULL, 0);
}

/* FMG (algorithms 2.8.7, 2.8.9): from the coarsest level up, `cycles`
 * V-cycles on each level's full problem, the result prolongated as the next
 * finer level's initial guess. */
static flow_status fmg(flow_context *ctx)
{
    flow_backend *b = ctx->b;
    const int D = ctx->nlevels - 1;
    const unsigned full = flow_flags_full(ctx);
    FLOW_TRY(flow_pair_fill(b, &ctx->lev[D].x, 0.0f));
    for (int d = D; d >= 0; d--) {
        for (int c = 1; c <= ctx->p.cycles; c++) {
            flow_tracef(ctx, d, "{depth: %d, cycle: %d/%d}", d, c, ctx->p.cycles);
            FLOW_TRY(cycle(ctx, d, full, 1, "V"));
        }
        if (d > 0)
            FLOW_TRY(to_finer(ctx, d));
    }
    return FLOW_OK;
}

/* CASCADIC (algorithm 2.8.6): `iterations` smoothing sweeps per level from
 * the coarsest up, each result prolongated as the next initial guess. */
static flow_status cascadic(flow_context *ctx)
{
    flow_backend *b = ctx->b;
    const int D = ctx->nlevels - 1;
    const unsigned full = flow_flags_full(ctx);
    FLOW_TRY(flow_pair_fill(b, &ctx->lev[D].x, 0.0f));
    for (int d = D; d >= 0; d--) {
        FLOW_TRY(flow_smooth_level(ctx, d, full, ctx->p.iterations, "C", "cascadic"));
        if (d > 0)
            FLOW_TRY(to_finer(ctx, d));
    }
    return FLOW_OK;
}

flow_status flow_solve(flow_context *ctx)
{
    flow_backend *b = ctx->b;
    const flow_params *p = &ctx->p;
    const unsigned full = flow_flags_full(ctx);
    flow_status s = FLOW_OK;
    ctx->use_sor = p->solver == FLOW_SOLVER_RBSOR
                   || (p->solver != FLOW_SOLVER_JACOBI && p->smoother == FLOW_SOLVER_RBSOR);
    flow_stage_begin(ctx, flow_solver_name(p->solver));
    switch (p->solver) {
    case FLOW_SOLVER_JACOBI:
    case FLOW_SOLVER_RBSOR:
        s = flow_pair_fill(b, &ctx->lev[0].x, 0.0f);
        if (s == FLOW_OK)
            s = flow_smooth_level(ctx, 0, full, p->iterations,
                                  p->solver == FLOW_SOLVER_RBSOR ? "SOR" : "J", "solve");
        break;
    case FLOW_SOLVER_VCYCLE:
    case FLOW_SOLVER_WCYCLE:
        s = flow_pair_fill(b, &ctx->lev[0].x, 0.0f);
        for (int c = 1; s == FLOW_OK && c <= p->cycles; c++) {
            flow_tracef(ctx, 0, "{depth: 0, cycle: %d/%d}", c, p->cycles);
            if (p->solver == FLOW_SOLVER_VCYCLE)
                s = cycle(ctx, 0, full, 1, "V");
            else
                s = cycle(ctx, 0, full, 2, "W");
        }
        break;
    case FLOW_SOLVER_CASCADIC:
        s = cascadic(ctx);
        break;
    case FLOW_SOLVER_FMG:
        s = fmg(ctx);
        break;
    }
    flow_stage_end(ctx, flow_solver_name(p->solver));
    return s;
}
