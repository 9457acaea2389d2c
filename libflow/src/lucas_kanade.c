/* lucas_kanade.c -- local Lucas-Kanade (seed 001 section 2.4, eq. 2.16;
 * seed 002): the motion tensor is averaged over a window -- the Gaussian
 * K_rho, or a normalised s x s box -- by the tensor pipeline, then the 2x2
 * system of every pixel is solved by the backend's lk operation
 * (libflow/pixel/lk.h).  A pixel whose smaller eigenvalue is below tau (or
 * whose system is numerically singular) is unknown (FLOW_UNKNOWN), or with
 * fill_unknown gets the normal flow along the dominant eigenvector (rank 1)
 * or 0 (rank 0).  tau is a threshold on the window-AVERAGED tensor, so one
 * value suits every window size. */
#include "solve.h"
#include "internal.h"

#include <string.h>

/* The postsmoothing window of method p: K_rho, or for Lucas-Kanade with a
 * box window s equal weights 1/s (applied along x and along y). */
flow_status flow_lk_kernel(const flow_params *p, flow_kernel *k)
{
    if (p->method != FLOW_METHOD_LK || p->window == FLOW_WINDOW_GAUSS)
        return flow_gauss_kernel(p->rho, k);
    memset(k, 0, sizeof *k);
    const int s = p->window_size;
    if (s < 1 || s % 2 == 0 || s / 2 > FLOW_KERNEL_RADIUS_MAX)
        return flow_fail(FLOW_ERR_INVALID, "box window size %d is not an odd number in 1..%d", s,
                         2 * FLOW_KERNEL_RADIUS_MAX + 1);
    k->radius = s / 2;
    for (int i = 0; i < s; i++)
        k->w[i] = 1.0f / (float)s;
    return FLOW_OK;
}

flow_status flow_lk_solve(flow_context *ctx)
{
    flow_level *L = &ctx->lev[0];
    flow_stage_begin(ctx, "lucas-kanade");
    flow_status s = ctx->b->ops->lk(ctx->b, &L->sys.J, &L->x, (float)ctx->p.tau,
                                    ctx->p.fill_unknown);
    flow_stage_end(ctx, "lucas-kanade");
    return s;
}
