/* patches.c -- the frames and gradients of the patch methods (patches.h). */
#include "methods/patches.h"
#include "core/tensor.h"
#include "base/fail.h"

#include <string.h>

flow_status flow_patch_input_alloc(flow_device *d, flow_patch_input *in, int width, int height,
                                   int channels, const flow_kernel *k)
{
    memset(in, 0, sizeof *in);
    in->channels = channels;
    in->k = k;
    if (k->radius == 0)
        return FLOW_OK;
    FLOW_TRY(flow_plane_alloc(d, &in->scratch, width, height));
    for (int i = 0; i < 2; i++)
        for (int c = 0; c < channels; c++)
            FLOW_TRY(flow_plane_alloc(d, &in->frame[i][c], width, height));
    return FLOW_OK;
}

void flow_patch_input_free(flow_device *d, flow_patch_input *in)
{
    for (int k = 0; k < 2; k++)
        for (int c = 0; c < 3; c++)
            flow_plane_free(d, &in->frame[k][c]);
    flow_plane_free(d, &in->scratch);
}

flow_status flow_patch_input_smooth(flow_patch_input *in, flow_exec *ex, const flow_frames *f,
                                    const flow_plane **f1, const flow_plane **f2)
{
    const flow_kernel *k = in->k;
    if (k->radius == 0) {
        *f1 = f->f[0], *f2 = f->f[1];
        return FLOW_OK;
    }
    if (f->swapped) { /* the last run's smoothed frames, exchanged */
        flow_planes_swap(in->frame[0], in->frame[1], in->channels);
        *f1 = in->frame[0], *f2 = in->frame[1];
        return FLOW_OK;
    }
    *f1 = in->frame[0], *f2 = in->frame[1];
    flow_stage_begin(ex, "prepare");
    flow_status s = FLOW_OK;
    for (int c = 0; c < in->channels && s == FLOW_OK; c++) {
        s = flow_smooth(ex->dev, &in->frame[0][c], &f->f[0][c], &in->scratch, k);
        if (s == FLOW_OK)
            s = flow_smooth(ex->dev, &in->frame[1][c], &f->f[1][c], &in->scratch, k);
    }
    flow_stage_end(ex, "prepare");
    return s;
}

flow_status flow_patch_grad_alloc(flow_device *d, flow_patch_grad *g, int width, int height,
                                  int channels)
{
    for (int c = 0; c < channels; c++) {
        FLOW_TRY(flow_plane_alloc(d, &g->gx[c], width, height));
        FLOW_TRY(flow_plane_alloc(d, &g->gy[c], width, height));
    }
    return FLOW_OK;
}

void flow_patch_grad_free(flow_device *d, flow_patch_grad *g)
{
    for (int c = 0; c < 3; c++) {
        flow_plane_free(d, &g->gx[c]);
        flow_plane_free(d, &g->gy[c]);
    }
}

flow_status flow_patch_level_frames(flow_device *d, const flow_pyr_level *L, flow_patch_grad *g,
                                    int channels, flow_patch_frames *f)
{
    f->channels = channels;
    for (int c = 0; c < channels; c++) {
        f->f1[c] = L->frame[0][c];
        f->f2[c] = L->frame[1][c];
        f->gx[c] = g->gx[c];
        f->gy[c] = g->gy[c];
        const flow_gradient_args a = { g->gx[c], g->gy[c], L->frame[0][c] };
        FLOW_TRY(flow_k_gradient(d, &a));
    }
    return FLOW_OK;
}
