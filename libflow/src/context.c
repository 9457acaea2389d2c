/* context.c -- a flow computation for one image size: every buffer is
 * allocated in flow_context_create and reused frame after frame; compute is
 * upload -> motion tensor (flow_motion_tensor) -> method -> download, with
 * no allocation and, on the GPU, no host round trip between the upload and
 * the download (unless a trace observer asks for residual norms). */
#include "solve.h"
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void frames_free(flow_context *ctx)
{
    for (int k = 0; k < 2; k++)
        for (int c = 0; c < 3; c++)
            flow_plane_free(ctx->b, &ctx->frame[k][c]);
}

void flow_context_destroy(flow_context *ctx)
{
    if (!ctx)
        return;
    if (ctx->b) {
        if (ctx->graph)
            ctx->b->ops->graph_destroy(ctx->b, ctx->graph);
        flow_warping_free(ctx);
        flow_levels_free(ctx);
        frames_free(ctx);
        flow_tensor_work_free(ctx->b, &ctx->work);
    }
    free(ctx->graph_x);
    free(ctx->graph_t);
    free(ctx);
}

flow_status flow_context_create(flow_backend *b, int width, int height, int channels,
                                const flow_params *p, flow_context **out)
{
    *out = NULL;
    if (!b || !p)
        return flow_fail(FLOW_ERR_INVALID, "flow_context_create: NULL backend or parameters");
    if (width < 1 || height < 1 || (long)width * height > FLOW_IMAGE_MAX_PIXELS)
        return flow_fail(FLOW_ERR_SIZE, "context size %dx%d out of range", width, height);
    if (channels != 1 && channels != 3)
        return flow_fail(FLOW_ERR_INVALID, "frames have 1 or 3 channels, not %d", channels);
    FLOW_TRY(flow_params_validate(p));
    flow_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate a flow context");
    ctx->b = b;
    ctx->p = *p;
    ctx->width = width;
    ctx->height = height;
    ctx->channels = channels;
    flow_status s = flow_gauss_kernel(p->sigma, &ctx->k_sigma);
    if (s == FLOW_OK)
        s = flow_lk_kernel(p, &ctx->k_rho);
    for (int k = 0; k < 2 && s == FLOW_OK; k++)
        for (int c = 0; c < channels && s == FLOW_OK; c++)
            s = flow_plane_alloc(b, &ctx->frame[k][c], width, height);
    if (s == FLOW_OK)
        s = flow_tensor_work_alloc(b, &ctx->work, width, height);
    if (s == FLOW_OK)
        s = flow_levels_alloc(ctx);
    if (s == FLOW_OK && p->warp_levels > 0)
        s = flow_warping_alloc(ctx);
    if (s == FLOW_OK) {
        ctx->graph_x = calloc((size_t)ctx->nlevels, sizeof *ctx->graph_x);
        ctx->graph_t = calloc((size_t)ctx->nlevels, sizeof *ctx->graph_t);
        if (!ctx->graph_x || !ctx->graph_t)
            s = flow_fail(FLOW_ERR_NOMEM, "cannot allocate a flow context");
    }
    ctx->graphs = 1;
    if (s != FLOW_OK) {
        flow_context_destroy(ctx);
        return s;
    }
    *out = ctx;
    return FLOW_OK;
}

void flow_context_set_observer(flow_context *ctx, const flow_observer *obs)
{
    if (obs)
        ctx->obs = *obs;
    else
        memset(&ctx->obs, 0, sizeof ctx->obs);
}

void flow_context_set_graphs(flow_context *ctx, int enable)
{
    ctx->graphs = enable != 0;
    if (!ctx->graphs && ctx->graph) {
        ctx->b->ops->graph_destroy(ctx->b, ctx->graph);
        ctx->graph = NULL;
    }
    ctx->graph_failed = 0;
}

int flow_context_used_graph(const flow_context *ctx)
{
    return ctx->last_graph;
}

int flow_context_levels(const flow_context *ctx)
{
    return ctx->nlevels;
}

void flow_context_level_size(const flow_context *ctx, int d, int *width, int *height)
{
    if (d < 0 || d >= ctx->nlevels) {
        *width = *height = 0;
        return;
    }
    *width = ctx->lev[d].width;
    *height = ctx->lev[d].height;
}

static flow_status check_frame(const flow_context *ctx, const flow_image *f, const char *which)
{
    if (!f || !f->data)
        return flow_fail(FLOW_ERR_INVALID, "%s frame is missing", which);
    if (f->width != ctx->width || f->height != ctx->height)
        return flow_fail(FLOW_ERR_SIZE, "%s frame is %dx%d, the context %dx%d", which, f->width,
                         f->height, ctx->width, ctx->height);
    if (f->channels != ctx->channels)
        return flow_fail(FLOW_ERR_INVALID, "%s frame has %d channels, the context %d", which,
                         f->channels, ctx->channels);
    return FLOW_OK;
}

static void workflow(const flow_context *ctx, const char *name, const flow_plane *plane)
{
    if (ctx->obs.workflow)
        ctx->obs.workflow(ctx->obs.user, name, ctx->b, plane);
}

static flow_status upload_frame(flow_context *ctx, int k, const flow_image *f)
{
    flow_backend *b = ctx->b;
    const size_t n = (size_t)ctx->width * ctx->height;
    for (int c = 0; c < ctx->channels; c++)
        FLOW_TRY(b->ops->upload(b, &ctx->frame[k][c], f->data + c * n, (size_t)ctx->width));
    return FLOW_OK;
}

/* Both frames from the host, or (f1 == NULL) the next pair of a sequence:
 * the second frame already on the device becomes the first by a copy there,
 * which costs a few microseconds where the upload costs a millisecond. */
static flow_status upload(flow_context *ctx, const flow_image *f1, const flow_image *f2)
{
    if (f1)
        FLOW_TRY(upload_frame(ctx, 0, f1));
    else
        for (int c = 0; c < ctx->channels; c++)
            FLOW_TRY(ctx->b->ops->copy(ctx->b, &ctx->frame[0][c], &ctx->frame[1][c]));
    return upload_frame(ctx, 1, f2);
}

flow_status flow_frame_tensor(flow_context *ctx, const flow_plane *second)
{
    const flow_plane *p1[3], *p2[3];
    for (int c = 0; c < ctx->channels; c++) {
        p1[c] = &ctx->frame[0][c];
        p2[c] = &second[c];
    }
    flow_tensor *J = &ctx->lev[0].sys.J;
    FLOW_TRY(flow_motion_tensor(ctx->b, J, p1, p2, ctx->channels, &ctx->k_sigma, &ctx->k_rho,
                                &ctx->work));
    if (ctx->obs.workflow) {
        /* work.f1, f2 still hold the last channel's presmoothed frames; the
         * pipeline never stores the derivatives, so they are computed into
         * the free scratch planes for the picture */
        flow_tensor_work *w = &ctx->work;
        FLOW_TRY(ctx->b->ops->derivatives(ctx->b, &w->t.j11, &w->t.j12, &w->t.j13, &w->f1,
                                          &w->f2));
        const int colour = ctx->channels > 1;
        workflow(ctx, colour ? "smoothed frame 1 (blue)" : "smoothed frame 1", &w->f1);
        workflow(ctx, colour ? "smoothed frame 2 (blue)" : "smoothed frame 2", &w->f2);
        workflow(ctx, colour ? "fx (blue)" : "fx", &w->t.j11);
        workflow(ctx, colour ? "fy (blue)" : "fy", &w->t.j12);
        workflow(ctx, colour ? "ft (blue)" : "ft", &w->t.j13);
        static const char *const names[6] = { "J11", "J12", "J13", "J22", "J23", "J33" };
        const flow_plane *jp[6] = { &J->j11, &J->j12, &J->j13, &J->j22, &J->j23, &J->j33 };
        for (int k = 0; k < 6; k++)
            workflow(ctx, names[k], jp[k]);
    }
    return FLOW_OK;
}

flow_status flow_frame_solve(flow_context *ctx)
{
    flow_status s = FLOW_OK;
    flow_stage_begin(ctx, "solve");
    if (ctx->nlevels > 1) {
        flow_stage_begin(ctx, "coarse tensors");
        s = flow_levels_restrict_tensor(ctx);
        flow_stage_end(ctx, "coarse tensors");
    }
    if (s == FLOW_OK)
        s = flow_solve(ctx);
    flow_stage_end(ctx, "solve");
    if (s == FLOW_OK && ctx->obs.workflow)
        for (int d = 1; d < ctx->nlevels; d++) {
            /* each coarse grid: its restricted J11 (seed 001 fig. 4.15) and
             * the flow it holds after the solve */
            char name[48];
            snprintf(name, sizeof name, "level %d J11", d);
            workflow(ctx, name, &ctx->lev[d].sys.J.j11);
            snprintf(name, sizeof name, "level %d iterate u", d);
            workflow(ctx, name, &ctx->lev[d].x.u);
            snprintf(name, sizeof name, "level %d iterate v", d);
            workflow(ctx, name, &ctx->lev[d].x.v);
        }
    return s;
}

/* The device work of a frame: motion tensor, then the method (with
 * coarse-to-fine warping around both when it is on: warping.c). */
static flow_status device_work(flow_context *ctx)
{
    if (ctx->p.warp_levels > 0)
        return flow_warping_work(ctx);
    flow_stage_begin(ctx, "motion tensor");
    flow_status s = flow_frame_tensor(ctx, ctx->frame[1]);
    flow_stage_end(ctx, "motion tensor");
    FLOW_TRY(s);
    return ctx->p.method == FLOW_METHOD_LK ? flow_lk_solve(ctx) : flow_frame_solve(ctx);
}

/* Records the device work into ctx->graph.  The recorded launches name the
 * planes the host code chose while recording (Jacobi swaps each level's x
 * and t as it goes), so the descriptors at the end are kept and restored
 * after every replay: the flow is then in lev[0].x as after a direct run.
 * A failed capture runs nothing; the context then works directly. */
static void capture(flow_context *ctx)
{
    flow_backend *b = ctx->b;
    ctx->capturing = 1;
    flow_status s = b->ops->capture_begin(b);
    if (s == FLOW_OK) {
        s = device_work(ctx);
        void *g = NULL;
        const flow_status e = b->ops->capture_end(b, &g);
        if (s == FLOW_OK && e == FLOW_OK && g)
            ctx->graph = g;
        else if (g)
            b->ops->graph_destroy(b, g);
    }
    ctx->capturing = 0;
    if (!ctx->graph) {
        ctx->graph_failed = 1;
        return;
    }
    for (int d = 0; d < ctx->nlevels; d++) {
        ctx->graph_x[d] = ctx->lev[d].x;
        ctx->graph_t[d] = ctx->lev[d].t;
    }
}

static flow_status replay(flow_context *ctx)
{
    flow_stage_begin(ctx, "graph");
    const flow_status s = ctx->b->ops->graph_launch(ctx->b, ctx->graph);
    flow_stage_end(ctx, "graph");
    for (int d = 0; d < ctx->nlevels; d++) {
        ctx->lev[d].x = ctx->graph_x[d];
        ctx->lev[d].t = ctx->graph_t[d];
    }
    return s;
}

static flow_status compute(flow_context *ctx, const flow_image *f1, const flow_image *f2,
                           flow_field *out)
{
    flow_backend *b = ctx->b;
    flow_stage_begin(ctx, "upload");
    flow_status s = upload(ctx, f1, f2);
    flow_stage_end(ctx, "upload");
    FLOW_TRY(s);

    /* a trace reads the device between launches, a workflow hands planes
     * out between stages: both need the direct path */
    const int graphable = ctx->graphs && !ctx->graph_failed && !ctx->obs.trace
                          && !ctx->obs.workflow && b->ops->capture_begin;
    if (graphable && !ctx->graph)
        capture(ctx);
    ctx->last_graph = graphable && ctx->graph;
    FLOW_TRY(ctx->last_graph ? replay(ctx) : device_work(ctx));
    workflow(ctx, "u", &ctx->lev[0].x.u);
    workflow(ctx, "v", &ctx->lev[0].x.v);

    flow_stage_begin(ctx, "download");
    s = b->ops->download(b, out->u, (size_t)ctx->width, &ctx->lev[0].x.u);
    if (s == FLOW_OK)
        s = b->ops->download(b, out->v, (size_t)ctx->width, &ctx->lev[0].x.v);
    flow_stage_end(ctx, "download");
    return s;
}

static flow_status check_output(const flow_context *ctx, const flow_field *out)
{
    if (!out || !out->u || !out->v || out->width != ctx->width || out->height != ctx->height)
        return flow_fail(FLOW_ERR_SIZE, "output field is %dx%d, the context %dx%d",
                         out ? out->width : 0, out ? out->height : 0, ctx->width, ctx->height);
    return FLOW_OK;
}

/* f1 == NULL: the pair (second frame of the last compute, f2). */
static flow_status compute_checked(flow_context *ctx, const flow_image *f1, const flow_image *f2,
                                   flow_field *out)
{
    ctx->computed = 0;
    ctx->has_frames = 0;
    FLOW_TRY(compute(ctx, f1, f2, out));
    ctx->computed = 1;
    ctx->has_frames = 1;
    return FLOW_OK;
}

flow_status flow_context_compute(flow_context *ctx, const flow_image *f1, const flow_image *f2,
                                 flow_field *out)
{
    FLOW_TRY(check_frame(ctx, f1, "first"));
    FLOW_TRY(check_frame(ctx, f2, "second"));
    FLOW_TRY(check_output(ctx, out));
    return compute_checked(ctx, f1, f2, out);
}

flow_status flow_context_compute_next(flow_context *ctx, const flow_image *next, flow_field *out)
{
    if (!ctx->has_frames)
        return flow_fail(FLOW_ERR_INVALID, "flow_context_compute_next: no earlier successful "
                                           "compute holds a first frame");
    FLOW_TRY(check_frame(ctx, next, "next"));
    FLOW_TRY(check_output(ctx, out));
    return compute_checked(ctx, NULL, next, out);
}

flow_status flow_context_residual(flow_context *ctx, double *rms)
{
    if (ctx->p.method == FLOW_METHOD_LK)
        return flow_fail(FLOW_ERR_INVALID, "Lucas-Kanade solves no global system: no residual");
    if (!ctx->computed)
        return flow_fail(FLOW_ERR_INVALID, "no flow computed yet: no residual");
    return flow_level_residual_rms(ctx, 0, flow_flags_full(ctx), rms);
}
