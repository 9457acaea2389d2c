/* warping.c -- coarse-to-fine warping for large displacements (Brox et al.
 * 2004, with the CLG data term; libflow/pixel/warp.h has the mathematics).
 *
 * A context with warp_levels = L keeps L coarser contexts, each half the size
 * of the one above (restriction of seed 001 section 4.2.5), so every level
 * has its frames, motion tensor and multigrid hierarchy.  A frame's work:
 *   1. restrict both frames down the pyramid;
 *   2. from the coarsest level up: w = 2 P x of the level below (0 on the
 *      coarsest); then `warps` times: warp the second frame along w, take
 *      the motion tensor of (f1, f2(x + w)), rewrite it for the total flow
 *      around w, solve the method's system for the total flow x, w = x.
 * Everything stays on the device: the whole pyramid is one CUDA graph. */
#include "solve.h"
#include "internal.h"
#include "../pixel/stencil.h"

#include <stdlib.h>

/* Coarser levels stop at a side of 8 pixels: below, a level has too little
 * texture to say anything about the motion. */
#define WARP_MIN_SIDE 8

static flow_status warp_planes_alloc(flow_context *c)
{
    for (int ch = 0; ch < c->channels; ch++)
        FLOW_TRY(flow_plane_alloc(c->b, &c->warped[ch], c->width, c->height));
    return flow_pair_alloc(c->b, &c->w, c->width, c->height);
}

static void warp_planes_free(flow_context *c)
{
    for (int ch = 0; ch < 3; ch++)
        flow_plane_free(c->b, &c->warped[ch]);
    flow_pair_free(c->b, &c->w);
}

flow_status flow_warping_alloc(flow_context *ctx)
{
    FLOW_TRY(warp_planes_alloc(ctx));
    ctx->pyr = calloc((size_t)ctx->p.warp_levels, sizeof *ctx->pyr);
    if (!ctx->pyr)
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate the warping pyramid");
    flow_params p = ctx->p;
    p.warp_levels = 0;
    int w = ctx->width, h = ctx->height;
    while (ctx->npyr < ctx->p.warp_levels) {
        w = flow_coarse_size(w), h = flow_coarse_size(h);
        if (w < WARP_MIN_SIDE || h < WARP_MIN_SIDE)
            break;
        flow_context *c;
        FLOW_TRY(flow_context_create(ctx->b, w, h, ctx->channels, &p, &c));
        ctx->pyr[ctx->npyr++] = c;
        FLOW_TRY(warp_planes_alloc(c));
    }
    return FLOW_OK;
}

void flow_warping_free(flow_context *ctx)
{
    for (int l = 0; l < ctx->npyr; l++)
        flow_context_destroy(ctx->pyr[l]); /* its warp planes with it */
    free(ctx->pyr);
    ctx->pyr = NULL;
    ctx->npyr = 0;
    warp_planes_free(ctx);
}

/* One level: `warps` passes of warp, tensor, shift, solve, starting from
 * the w already in c->w; the total flow ends in c->lev[0].x. */
static flow_status warp_level(flow_context *c, int warps)
{
    flow_backend *b = c->b;
    for (int k = 0; k < warps; k++) {
        if (k > 0)
            FLOW_TRY(flow_pair_copy(b, &c->w, &c->lev[0].x));
        for (int ch = 0; ch < c->channels; ch++)
            FLOW_TRY(b->ops->warp(b, &c->warped[ch], &c->frame[1][ch], &c->w));
        FLOW_TRY(flow_frame_tensor(c, c->warped));
        FLOW_TRY(b->ops->tensor_shift(b, &c->lev[0].sys.J, &c->w));
        FLOW_TRY(flow_frame_solve(c));
    }
    return FLOW_OK;
}

flow_status flow_warping_work(flow_context *ctx)
{
    flow_backend *b = ctx->b;
    flow_context *fine = ctx;
    flow_stage_begin(ctx, "pyramid");
    for (int l = 0; l < ctx->npyr; l++) {
        flow_context *c = ctx->pyr[l];
        for (int k = 0; k < 2; k++)
            for (int ch = 0; ch < ctx->channels; ch++)
                FLOW_TRY(b->ops->restriction(b, &c->frame[k][ch], &fine->frame[k][ch]));
        fine = c;
    }
    flow_stage_end(ctx, "pyramid");
    flow_stage_begin(ctx, "warping");
    flow_status s = FLOW_OK;
    for (int l = ctx->npyr; l >= 0 && s == FLOW_OK; l--) {
        flow_context *c = l == 0 ? ctx : ctx->pyr[l - 1];
        if (l == ctx->npyr) {
            s = flow_pair_fill(b, &c->w, 0.0f);
        } else {
            /* the coarser level's flow, in this level's pixels */
            s = b->ops->prolong_pair(b, &c->w, &ctx->pyr[l]->lev[0].x, NULL, 0);
            if (s == FLOW_OK)
                s = flow_pair_scale(b, &c->w, 2.0f);
        }
        if (s == FLOW_OK)
            s = warp_level(c, ctx->p.warps);
    }
    flow_stage_end(ctx, "warping");
    return s;
}
