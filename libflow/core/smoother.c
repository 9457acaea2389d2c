/* smoother.c -- the iterative solvers over the device operations: Jacobi
 * (seed 001 algorithm 2.8.1), Jacobi with lagged nonlinearities (algorithm
 * 2.8.2: the weights are taken from the iterate each sweep starts from)
 * and red-black SOR (seed 004: a red half sweep, then a black one, in place
 * on the checkerboard of the ordinary layout, with the alternate indexing
 * of its section 4.3; the colour-split layout of its section 4.2.1 is not
 * used; a robust smoothness term takes its diffusivities from the sweep's
 * start).  A smoothing's sweeps are one call of core/fused.h (sor_sweeps
 * and jacobi_sweeps: one device call where the backend fuses them, else
 * its per-pixel operations).  The same loops run alone (solver jacobi /
 * rbsor) and as the smoothers of every multigrid cycle.  A grid of at most
 * FLOW_SMALL_GRID pixels runs all its sweeps as smooth_small.
 *
 * Results stay in place: after n sweeps the iterate is in the level's x
 * whatever n is (the device copies it back from the partner t after an
 * odd number of passes from one to the other), so a recorded graph
 * replays onto the very planes it names.  A caller that can take the
 * iterate from t (a V-cycle's pre- and postsmoothing) passes in_t and
 * saves the copy back.
 *
 * Trace: residual norms need a read-back from the device, so they are
 * computed only while a trace observer is set. */
#include "core/multigrid.h"
#include "core/fused.h"
#include "core/pair.h"
#include "base/fail.h"

#include <string.h>

unsigned flow_mg_flags_full(const flow_mg *mg)
{
    const flow_system *s = &mg->lev[0].sys;
    return FLOW_SYS_AFFINE | (s->flags & (FLOW_SYS_PSI_S | FLOW_SYS_EDGE));
}

/* Coarse grids solve for a correction e with A e = R r (linear: the
 * correction scheme of algorithm 2.8.4) or for the full approximation with
 * N(x) = R r + N(R x) (nonlinear: algorithm 2.8.8). */
unsigned flow_mg_flags_coarse(const flow_mg *mg)
{
    return mg->nonlinear ? (flow_mg_flags_full(mg) | FLOW_SYS_RHS) : FLOW_SYS_RHS;
}

static flow_system level_system(const flow_mg *mg, int d, unsigned flags)
{
    flow_system s = mg->lev[d].sys;
    s.flags = flags;
    return s;
}

/* The right-hand side of a level's system, or zero planes (never read)
 * when the system has none. */
static flow_pair rhs(const flow_mg_level *L, unsigned flags)
{
    flow_pair none;
    memset(&none, 0, sizeof none);
    return (flags & FLOW_SYS_RHS) ? L->f : none;
}

flow_status flow_mg_level_residual_rms(flow_mg *mg, int d, unsigned flags, double *rms)
{
    flow_mg_level *L = &mg->lev[d];
    const flow_residual_args a = { .s = level_system(mg, d, flags), .r = L->t, .x = L->x,
                                   .f = rhs(L, flags) };
    FLOW_TRY(flow_k_residual(mg->dev, &a));
    return flow_pair_rms(mg->dev, &L->t, rms);
}

flow_status flow_mg_coarse_rhs(flow_mg *mg, int d, const flow_pair *r)
{
    flow_mg_level *C = &mg->lev[d];
    if (!mg->nonlinear) {
        const flow_pair none = { { 0 }, { 0 } };
        const flow_restrict_pair_args rf = { C->f, none, *r, 0 };
        FLOW_TRY(flow_k_restrict_pair(mg->dev, &rf));
        return flow_pair_fill(mg->dev, &C->x, 0.0f);
    }
    const flow_apply_args ap = { level_system(mg, d, flow_mg_flags_coarse(mg)), C->f, C->x, *r,
                                 1 };
    return flow_k_apply(mg->dev, &ap);
}

/* The device's SOR or Jacobi sweeps of a grid above FLOW_SMALL_GRID. */
static flow_status device_sweeps(flow_mg *mg, flow_mg_level *L, const flow_system *s, int n,
                                 int *in_t, const flow_prolong_pair_args *pre,
                                 const flow_pair *entry)
{
    const flow_pair no_entry = { { 0 }, { 0 } };
    flow_prolong_pair_args none;
    memset(&none, 0, sizeof none);
    const int odd_in_t = in_t != NULL, with_pre = pre != NULL;
    int passes = 0;
    if (mg->use_sor) {
        const flow_sor_sweeps_args a = { *s, L->x, L->t, rhs(L, s->flags), (float)mg->p.omega,
                                         n, odd_in_t, with_pre, pre ? *pre : none };
        FLOW_TRY(flow_sor_sweeps_run(mg->dev, &a, &passes));
    } else {
        const flow_jacobi_sweeps_args a = { *s, L->x, L->t, rhs(L, s->flags),
                                            (float)mg->p.jacobi_weight, n, odd_in_t, with_pre,
                                            pre ? *pre : none, entry != NULL,
                                            entry ? *entry : no_entry };
        FLOW_TRY(flow_jacobi_sweeps_run(mg->dev, &a, &passes));
    }
    if (in_t)
        *in_t = passes % 2;
    return FLOW_OK;
}

/* n sweeps of the smoother on level d after the prolongation pre and the
 * right-hand side from entry (when given), the result in x, or in t where
 * *in_t (0 on entry, when given) is set. */
static flow_status sweeps(flow_mg *mg, int d, const flow_system *s, int n, int *in_t,
                          const flow_prolong_pair_args *pre, const flow_pair *entry)
{
    flow_mg_level *L = &mg->lev[d];
    const int small = (long)L->width * L->height <= FLOW_SMALL_GRID;
    if (pre && (n <= 0 || small)) {
        FLOW_TRY(flow_k_prolong_pair(mg->dev, pre));
        pre = NULL;
    }
    if (entry && (n <= 0 || small || mg->use_sor || !mg->nonlinear)) {
        FLOW_TRY(flow_mg_coarse_rhs(mg, d, entry));
        entry = NULL;
    }
    if (n <= 0)
        return FLOW_OK;
    if (small) {
        const flow_smooth_small_args a = {
            *s, L->x, L->t, rhs(L, s->flags),
            (float)(mg->use_sor ? mg->p.omega : mg->p.jacobi_weight), n, mg->use_sor
        };
        return flow_smooth_small_run(mg->dev, &a);
    }
    return device_sweeps(mg, L, s, n, in_t, pre, entry);
}

flow_status flow_mg_smooth(flow_mg *mg, flow_exec *ex, int d, unsigned flags, int n,
                           const char *kind, const char *label, int *in_t,
                           const flow_prolong_pair_args *pre, const flow_pair *entry)
{
    const flow_system s = level_system(mg, d, flags);
    if (in_t)
        *in_t = 0;
    if (!flow_tracing(ex))
        return sweeps(mg, d, &s, n, in_t, pre, entry);
    if (pre)
        FLOW_TRY(flow_k_prolong_pair(mg->dev, pre));
    if (entry)
        FLOW_TRY(flow_mg_coarse_rhs(mg, d, entry));
    const char *nl = mg->nonlinear ? "_NL" : "";
    if (label)
        flow_tracef(ex, d, "%s%s[%s, depth: %d, n: %d] | A%d x%d = f%d", kind, nl, label, d, n, d,
                    d, d);
    else
        flow_tracef(ex, d, "%s%s[depth: %d, n: %d] | A%d x%d = f%d --- bottom", kind, nl, d, n,
                    d, d, d);
    /* one sweep at a time, with the residual norm after the first and the
     * last (as in appendix B) */
    for (int it = 0; it < n; it++) {
        FLOW_TRY(sweeps(mg, d, &s, 1, NULL, NULL, NULL));
        if (it == 0 || it == n - 1) {
            double rms;
            FLOW_TRY(flow_mg_level_residual_rms(mg, d, flags, &rms));
            flow_tracef(ex, d, "-> [%d] %.6e", it, rms);
        }
    }
    return FLOW_OK;
}
