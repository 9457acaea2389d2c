/* smoother.c -- the iterative solvers over the backend operations: Jacobi
 * (seed 001 algorithm 2.8.1), Jacobi with lagged nonlinearities (algorithm
 * 2.8.2: the diffusivities are recomputed from the iterate before every
 * sweep) and red-black SOR (seed 004: a red half sweep, then a black one, in
 * place on the checkerboard of the ordinary layout, with the alternate
 * indexing of its section 4.3; the colour-split layout of its section 4.2.1
 * is not used).  The same loops run alone (solver jacobi / rbsor) and as the
 * smoothers of every multigrid cycle.
 *
 * Trace: residual norms need a read-back from the device, so they are
 * computed only while a trace observer is set. */
#include "solve.h"
#include "internal.h"

flow_status flow_level_residual_rms(flow_context *ctx, int d, unsigned flags, double *rms)
{
    flow_backend *b = ctx->b;
    flow_level *L = &ctx->lev[d];
    const flow_system s = flow_level_system(ctx, d, flags);
    FLOW_TRY(b->ops->residual(b, &s, &L->t, &L->x, (flags & FLOW_SYS_RHS) ? &L->f : NULL));
    return flow_pair_rms(b, &L->t, rms);
}

/* n sweeps of the running solve's smoother on level d.  Jacobi alternates
 * between x and t; after an odd count the result is in t, and the two pair
 * descriptors are swapped (no copy). */
static flow_status sweeps(flow_context *ctx, int d, const flow_system *s, int n)
{
    flow_backend *b = ctx->b;
    flow_level *L = &ctx->lev[d];
    const flow_pair *f = (s->flags & FLOW_SYS_RHS) ? &L->f : NULL;
    if (ctx->use_sor)
        return b->ops->sor(b, s, &L->x, &L->t, f, (float)ctx->p.omega, n);
    FLOW_TRY(b->ops->jacobi(b, s, &L->x, &L->t, f, (float)ctx->p.jacobi_weight, n));
    if (n % 2) {
        const flow_pair tmp = L->x;
        L->x = L->t;
        L->t = tmp;
    }
    return FLOW_OK;
}

flow_status flow_smooth_level(flow_context *ctx, int d, unsigned flags, int n, const char *kind,
                              const char *label)
{
    const flow_system s = flow_level_system(ctx, d, flags);
    if (!flow_tracing(ctx))
        return n > 0 ? sweeps(ctx, d, &s, n) : FLOW_OK;
    const char *nl = ctx->nl_flags ? "_NL" : "";
    if (label)
        flow_tracef(ctx, d, "%s%s[%s, depth: %d, n: %d] | A%d x%d = f%d", kind, nl, label, d, n,
                    d, d, d);
    else
        flow_tracef(ctx, d, "%s%s[depth: %d, n: %d] | A%d x%d = f%d --- bottom", kind, nl, d, n,
                    d, d, d);
    /* one sweep at a time, with the residual norm after the first and the
     * last (as in appendix B) */
    for (int it = 0; it < n; it++) {
        FLOW_TRY(sweeps(ctx, d, &s, 1));
        if (it == 0 || it == n - 1) {
            double rms;
            FLOW_TRY(flow_level_residual_rms(ctx, d, flags, &rms));
            flow_tracef(ctx, d, "-> [%d] %.6e", it, rms);
        }
    }
    return FLOW_OK;
}
