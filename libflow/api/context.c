/* context.c -- a flow computation for one image size: every buffer is
 * allocated in flow_context_create and reused frame after frame; a compute
 * is upload -> the method's device work -> download, with no allocation
 * and, on the GPU, no host round trip between the upload and the download
 * (unless a trace or workflow observer asks for values).  The method is
 * whatever the parameters name: this file knows none of them. */
#include "methods/method.h"
#include "base/fail.h"

#include <stdlib.h>
#include <string.h>

struct flow_context {
    flow_exec ex;
    const flow_method_desc *method;
    flow_params *params;
    void *state; /* the method's */
    int width, height, channels;
    flow_plane frame[2][3];    /* the uploaded frames, one plane per channel */
    /* colour frames of a method told `color 0`: it computes on their
     * luminance (one plane per frame), made on the device */
    int luminance;
    flow_plane gray[2];
    const flow_pair *result;   /* where the method leaves the flow */
    int computed;              /* a flow has been computed (residual is meaningful) */
    int has_frames;            /* frame[] holds the last pair uploaded whole */
    /* CUDA graph of the device work of a frame */
    int graphs;                /* capture and replay when the device can */
    int graph_failed;          /* a capture failed: run directly from now on */
    int last_graph;            /* the last compute replayed the graph */
    void *graph;
};

void flow_context_destroy(flow_context *ctx)
{
    if (!ctx)
        return;
    flow_device *d = ctx->ex.dev;
    if (ctx->graph)
        d->ops->graph_destroy(d, ctx->graph);
    if (ctx->method && ctx->state)
        ctx->method->destroy(ctx->state);
    for (int k = 0; k < 2; k++) {
        for (int c = 0; c < 3; c++)
            flow_plane_free(d, &ctx->frame[k][c]);
        flow_plane_free(d, &ctx->gray[k]);
    }
    flow_params_destroy(ctx->params);
    free(ctx->ex.host);
    free(ctx);
}

flow_status flow_context_create(flow_device *d, int width, int height, int channels,
                                const flow_params *p, flow_context **out)
{
    *out = NULL;
    if (!d || !p)
        return flow_fail(FLOW_ERR_INVALID, "flow_context_create: NULL device or parameters");
    if (width < 1 || height < 1 || (long)width * height > FLOW_IMAGE_MAX_PIXELS)
        return flow_fail(FLOW_ERR_SIZE, "context size %dx%d out of range", width, height);
    if (channels != 1 && channels != 3)
        return flow_fail(FLOW_ERR_INVALID, "frames have 1 or 3 channels, not %d", channels);
    FLOW_TRY(flow_params_validate(p));
    flow_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate a flow context");
    ctx->ex.dev = d;
    ctx->method = flow_params_desc(p);
    ctx->width = width;
    ctx->height = height;
    ctx->channels = channels;
    ctx->graphs = 1;
    double color = 1;
    ctx->luminance = channels == 3 && flow_params_get_number(p, "color", &color) == FLOW_OK
                     && color == 0;
    flow_status s = flow_params_clone(p, &ctx->params);
    for (int k = 0; k < 2 && s == FLOW_OK; k++) {
        for (int c = 0; c < channels && s == FLOW_OK; c++)
            s = flow_plane_alloc(d, &ctx->frame[k][c], width, height);
        if (s == FLOW_OK && ctx->luminance)
            s = flow_plane_alloc(d, &ctx->gray[k], width, height);
    }
    if (s == FLOW_OK)
        s = ctx->method->create(d, width, height, ctx->luminance ? 1 : channels,
                                flow_params_values(ctx->params), &ctx->state);
    if (s != FLOW_OK) {
        flow_context_destroy(ctx);
        return s;
    }
    *out = ctx;
    return FLOW_OK;
}

void flow_context_set_observer(flow_context *ctx, const flow_observer *obs)
{
    flow_exec_set_observer(&ctx->ex, obs);
}

void flow_context_set_graphs(flow_context *ctx, int enable)
{
    ctx->graphs = enable != 0;
    if (!ctx->graphs && ctx->graph) {
        ctx->ex.dev->ops->graph_destroy(ctx->ex.dev, ctx->graph);
        ctx->graph = NULL;
    }
    ctx->graph_failed = 0;
}

int flow_context_used_graph(const flow_context *ctx)
{
    return ctx->last_graph;
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

static flow_status upload_frame(flow_context *ctx, int k, const flow_image *f)
{
    const size_t n = (size_t)ctx->width * ctx->height;
    for (int c = 0; c < ctx->channels; c++)
        FLOW_TRY(flow_upload(ctx->ex.dev, &ctx->frame[k][c], f->data + c * n,
                             (size_t)ctx->width));
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
            FLOW_TRY(flow_copy(ctx->ex.dev, &ctx->frame[0][c], &ctx->frame[1][c]));
    return upload_frame(ctx, 1, f2);
}

/* The method's device work on the uploaded frames (ctx: the context). */
static flow_status device_work(void *user)
{
    flow_context *ctx = user;
    flow_frames in;
    memset(&in, 0, sizeof in);
    if (ctx->luminance) {
        for (int k = 0; k < 2; k++) {
            const flow_plane *f = ctx->frame[k];
            const flow_luminance_args a = { ctx->gray[k], f[0], f[1], f[2] };
            FLOW_TRY(flow_k_luminance(ctx->ex.dev, &a));
        }
        in.channels = 1;
        in.f1[0] = ctx->gray[0];
        in.f2[0] = ctx->gray[1];
        return ctx->method->run(ctx->state, &ctx->ex, &in, &ctx->result);
    }
    in.channels = ctx->channels;
    for (int c = 0; c < ctx->channels; c++) {
        in.f1[c] = ctx->frame[0][c];
        in.f2[c] = ctx->frame[1][c];
    }
    return ctx->method->run(ctx->state, &ctx->ex, &in, &ctx->result);
}

/* Records the device work into ctx->graph.  The operations keep their
 * results in place, so the recorded launches leave the flow where a direct
 * run leaves it.  A failed capture runs nothing; the context then works
 * directly. */
static void capture(flow_context *ctx)
{
    flow_exec_capture(&ctx->ex, device_work, ctx, &ctx->graph);
    if (!ctx->graph)
        ctx->graph_failed = 1;
}

static flow_status compute(flow_context *ctx, const flow_image *f1, const flow_image *f2,
                           flow_field *out)
{
    flow_exec *ex = &ctx->ex;
    flow_stage_begin(ex, "upload");
    flow_status s = upload(ctx, f1, f2);
    flow_stage_end(ex, "upload");
    FLOW_TRY(s);

    /* a trace reads the device between launches, a workflow hands planes
     * out between stages: both need the direct path */
    const int graphable = ctx->graphs && !ctx->graph_failed && !ex->obs.trace
                          && !ex->obs.workflow && ex->dev->ops->capture_begin;
    if (graphable && !ctx->graph)
        capture(ctx);
    ctx->last_graph = graphable && ctx->graph;
    FLOW_TRY(ctx->last_graph ? flow_exec_replay(ex, ctx->graph) : device_work(ctx));
    FLOW_TRY(flow_workflow(ex, "u", &ctx->result->u));
    FLOW_TRY(flow_workflow(ex, "v", &ctx->result->v));

    flow_stage_begin(ex, "download");
    s = flow_download(ex->dev, out->u, (size_t)ctx->width, &ctx->result->u);
    if (s == FLOW_OK)
        s = flow_download(ex->dev, out->v, (size_t)ctx->width, &ctx->result->v);
    flow_stage_end(ex, "download");
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
    if (!ctx->method->residual)
        return flow_fail(FLOW_ERR_INVALID, "method %s solves no global system: no residual",
                         ctx->method->name);
    if (!ctx->computed)
        return flow_fail(FLOW_ERR_INVALID, "no flow computed yet: no residual");
    return ctx->method->residual(ctx->state, &ctx->ex, rms);
}
