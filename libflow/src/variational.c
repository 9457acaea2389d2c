/* variational.c -- the systems of Horn-Schunck, CLG and nonlinear CLG on
 * every grid level: the level hierarchy (sizes and grid steps of seed 001
 * fig. 4.14), its buffers (allocated once per context), the restricted
 * motion tensors (eq. 2.58) and the flags that say which terms a level's
 * operator has in each role.
 *
 * Horn-Schunck is CLG with rho = 0 (section 2.7.1): the two share every
 * line here; nonlinear CLG adds the lagged diffusivities Psi'_D, Psi'_S
 * (eqs. 2.43-2.45), each switchable. */
#include "solve.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>

static int is_multigrid(flow_solver s)
{
    return s == FLOW_SOLVER_VCYCLE || s == FLOW_SOLVER_WCYCLE || s == FLOW_SOLVER_CASCADIC
           || s == FLOW_SOLVER_FMG;
}

/* Level d + 1 exists while both sides of level d are at least 2 (a side of
 * 1 cannot be halved), so 316x252 goes down to 2x1 in 9 levels; max_depth
 * >= 0 stops earlier. */
int flow_levels_for(const flow_params *p, int w, int h)
{
    if (p->method == FLOW_METHOD_LK || !is_multigrid(p->solver))
        return 1;
    int n = 1;
    while (w >= 2 && h >= 2 && (p->max_depth < 0 || n - 1 < p->max_depth)) {
        w = (w + 1) / 2;
        h = (h + 1) / 2;
        n++;
    }
    return n;
}

unsigned flow_flags_full(const flow_context *ctx)
{
    return FLOW_SYS_AFFINE | ctx->nl_flags;
}

int flow_uses_fas(const flow_context *ctx)
{
    return ctx->nl_flags != 0;
}

/* Coarse grids solve for a correction e with A e = R r (linear: the
 * correction scheme of algorithm 2.8.4) or for the full approximation with
 * N(x) = R r + N(R x) (nonlinear: algorithm 2.8.8). */
unsigned flow_flags_coarse(const flow_context *ctx)
{
    return flow_uses_fas(ctx) ? (FLOW_SYS_AFFINE | FLOW_SYS_RHS | ctx->nl_flags) : FLOW_SYS_RHS;
}

flow_system flow_level_system(const flow_context *ctx, int d, unsigned flags)
{
    flow_system s = ctx->lev[d].sys;
    s.flags = flags;
    return s;
}

flow_status flow_levels_alloc(flow_context *ctx)
{
    flow_backend *b = ctx->b;
    const flow_params *p = &ctx->p;
    const int n = flow_levels_for(p, ctx->width, ctx->height);
    ctx->lev = calloc((size_t)n, sizeof *ctx->lev);
    if (!ctx->lev)
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate %d grid levels", n);
    ctx->nlevels = n;
    ctx->nl_flags = 0;
    if (p->method == FLOW_METHOD_CLG_NL)
        ctx->nl_flags = (p->nonlinear_data ? FLOW_SYS_PSI_D : 0u)
                        | (p->nonlinear_smooth ? FLOW_SYS_PSI_S : 0u);
    const int variational = p->method != FLOW_METHOD_LK;
    int w = ctx->width, h = ctx->height;
    for (int d = 0; d < n; d++) {
        flow_level *L = &ctx->lev[d];
        L->width = w;
        L->height = h;
        FLOW_TRY(flow_tensor_alloc(b, &L->sys.J, w, h));
        FLOW_TRY(flow_pair_alloc(b, &L->x, w, h));
        if (variational) {
            FLOW_TRY(flow_pair_alloc(b, &L->t, w, h));
            if (d > 0) {
                FLOW_TRY(flow_pair_alloc(b, &L->f, w, h));
                if (flow_uses_fas(ctx))
                    FLOW_TRY(flow_pair_alloc(b, &L->xr, w, h));
            }
        }
        L->sys.alpha = (float)p->alpha;
        L->sys.hx = (float)((double)ctx->width / w);
        L->sys.hy = (float)((double)ctx->height / h);
        L->sys.eps_d2 = (float)(p->eps_d * p->eps_d);
        L->sys.eps_s2 = (float)(p->eps_s * p->eps_s);
        L->sys.flags = 0;
        w = (w + 1) / 2;
        h = (h + 1) / 2;
    }
    return FLOW_OK;
}

void flow_levels_free(flow_context *ctx)
{
    if (!ctx->lev)
        return;
    for (int d = 0; d < ctx->nlevels; d++) {
        flow_level *L = &ctx->lev[d];
        flow_tensor_free(ctx->b, &L->sys.J);
        flow_pair_free(ctx->b, &L->x);
        flow_pair_free(ctx->b, &L->f);
        flow_pair_free(ctx->b, &L->t);
        flow_pair_free(ctx->b, &L->xr);
    }
    free(ctx->lev);
    ctx->lev = NULL;
    ctx->nlevels = 0;
}

flow_status flow_levels_restrict_tensor(flow_context *ctx)
{
    flow_backend *b = ctx->b;
    /* J33 only enters Psi'_D */
    const int with_j33 = (ctx->nl_flags & FLOW_SYS_PSI_D) != 0;
    for (int d = 1; d < ctx->nlevels; d++)
        FLOW_TRY(b->ops->restrict_tensor(b, &ctx->lev[d].sys.J, &ctx->lev[d - 1].sys.J, with_j33));
    return FLOW_OK;
}
