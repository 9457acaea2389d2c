/* context.c -- a flow computation for one image size: every buffer is
 * allocated in flow_context_create and reused frame after frame; a flow is
 * upload -> the method's device work -> download, with no allocation and,
 * on the GPU, no host round trip in between (unless a trace or workflow
 * observer asks for values).  The method is whatever the parameters name:
 * this file knows none of them.
 *
 * A frame is uploaded into a staging buffer on the upload lane, then
 * converted into frame[1] on the computing lane once the frame before it
 * has moved to frame[0] (and, for a method that reads the frames before the
 * first, each of those one place further back); a flow's result (and each
 * extra output plane the caller asked for) is copied into one of
 * FLOW_CONTEXT_DEPTH staging pairs and downloaded from there on the
 * download lane, so that the next flow may overwrite the method's result
 * while the last one crosses the bus.  Events order the lanes: the upload
 * waits until the staged frame has been converted, a result copy until
 * its staging pair's previous download is done.
 *
 * A frame in the GPU's memory (flow_context_submit_device) skips the
 * upload: it is converted into frame[1] straight from the caller's memory;
 * a flow going to the GPU's memory (device_out) is copied there on the
 * computing lane instead of staged and downloaded, and so is an extra
 * output plane asked for there (flow_context_request_output_device).
 *
 * Every context works on a queue of its own (device.h: on CUDA its own
 * streams), so that the contexts of one device, driven from a thread each,
 * run at the same time. */
#include "methods/method.h"
#include "base/fail.h"
#include "core/device_frames.h"
#include "core/graphs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The planes both directions add to the method's outputs, in
 * output_plane's order. */
static const char *const context_outputs[] = { "backward_u", "backward_v", "occlusion",
                                               "confidence", "fb_verdict" };
#define CONTEXT_OUTPUTS 5
#define OUTPUTS_MAX (FLOW_OUTPUTS_MAX + CONTEXT_OUTPUTS)

/* A flow in flight, from its submit to its collect. */
typedef struct queued_flow {
    flow_field *out;
    flow_pair staged;  /* the result, copied for the download lane */
    flow_plane staged_out[OUTPUTS_MAX]; /* the requested output planes, likewise */
    float *out_dst[OUTPUTS_MAX];        /* where they go (NULL: not requested) */
    int out_device[OUTPUTS_MAX];        /* out_dst[k] lies in the GPU's memory */
    void *start;       /* computing lane: the flow's work begins */
    void *done;        /* computing lane: staged holds the result */
    void *downloaded;  /* download lane: out holds the flow */
} queued_flow;

struct flow_context {
    flow_exec ex;
    const flow_method_desc *method;
    flow_params *params;
    void *state; /* the method's */
    int width, height, channels;
    /* the frames on the device, one plane per channel, as flow_frames.f
     * orders them: the first, the second (the kept frame) and, for a method
     * that reads them, the ones before the first */
    flow_plane frame[FLOW_FRAMES_MAX][3];
    /* colour frames of a method told `color 0`: it computes on their
     * luminance (one plane per frame), made on the device */
    int luminance;
    flow_plane gray[FLOW_FRAMES_MAX];
    const flow_pair *result;   /* where the method leaves the flow */
    /* the planes it left it in when each graph was recorded, copied: a
     * replay does not call the method, the forms of its work may end in
     * different planes (an initial flow skips levels), and a method may
     * reassign its pairs' planes from run to run */
    flow_pair result_of[FLOW_GRAPH_VARIANTS];
    int computed;              /* a flow has been computed (residual is meaningful) */
    int nframes;               /* the frames the method reads (flow_method_desc.frames) */
    int held;                  /* frames held: frame[1], frame[0], frame[2], ... in turn */
    int has_frames;            /* frame[1] holds the kept frame (held > 0) */
    /* the optional inputs the caller set (flow_method_desc.inputs) */
    flow_pair init;
    flow_plane init_confidence;
    int has_init, has_confidence;
    flow_plane matches;        /* FLOW_MATCH_ROWS x nmatches */
    int nmatches;
    flow_plane edges;          /* the first frame's edge map */
    int has_edges;
    /* the method's extra output planes, then (both directions on) the
     * context's, and the buffers asked for them */
    int noutputs, method_outputs;
    const char *output_names[OUTPUTS_MAX];
    float *output_dst[OUTPUTS_MAX];
    int output_device[OUTPUTS_MAX]; /* output_dst[k] lies in the GPU's memory */
    /* the frame being uploaded: floats or bytes */
    flow_plane stage[3];
    void *stage8;
    /* frames and flows in the GPU's memory (flow_context_submit_device,
     * flow_context_set_device_output): the out fields lie there, and the
     * scratch of a float frame's value check */
    int device_out;
    flow_plane bad, peak;
    void *uploaded;            /* upload lane: the stage is written */
    void *converted;           /* computing lane: the stage is read */
    queued_flow q[FLOW_CONTEXT_DEPTH];
    int head, queued;          /* q[head] is the oldest flow in flight */
    int next_slot;             /* the staging pair the next flow uses */
    /* both directions (flow_context_set_backward): the backward flow and
     * the planes of the forward-backward test, the context's outputs */
    int backward;
    double occ_a, occ_b;
    flow_pair back;
    flow_plane verdict, occluded, confidence;
    /* CUDA graphs of the device work of a frame, one per count of frames
     * and set of inputs (graph_key) */
    flow_graphs graphs;
};

/* The frames kept so far no longer count: the next frame starts a sequence. */
static void forget_frames(flow_context *ctx)
{
    ctx->has_frames = ctx->held = 0;
}

/* The frames the next flow is computed from: the pair and as many before
 * it as the sequence has and the method reads. */
static int frames_given(const flow_context *ctx)
{
    return ctx->held < 2 ? 2 : ctx->held;
}

/* Which of ctx->graphs' variants records the work of the next flow. */
static int graph_key(const flow_context *ctx)
{
    const int inputs = ctx->has_init | ctx->has_confidence << 1 | (ctx->nmatches > 0) << 2
                       | ctx->has_edges << 3;
    return (frames_given(ctx) - 2) * 16 + inputs;
}

/* Drops every recorded graph (the work they hold changed). */
static void drop_graphs(flow_context *ctx)
{
    flow_graphs_free(&ctx->graphs, ctx->ex.dev);
}

/* Waits for every transfer still queued (a failure or the end: after it the
 * caller's frames and fields are no longer touched) and drops the flows. */
static void drain(flow_context *ctx)
{
    flow_device *d = ctx->ex.dev;
    for (int i = 0; i < ctx->queued; i++)
        d->ops->event_wait(d, ctx->q[(ctx->head + i) % FLOW_CONTEXT_DEPTH].downloaded);
    if (ctx->uploaded)
        d->ops->event_wait(d, ctx->uploaded);
    ctx->queued = 0;
    forget_frames(ctx);
}

void flow_context_destroy(flow_context *ctx)
{
    if (!ctx)
        return;
    flow_device *d = ctx->ex.dev;
    flow_graphs_free(&ctx->graphs, d);
    if (ctx->method && ctx->state)
        ctx->method->destroy(ctx->state);
    drain(ctx);
    for (int k = 0; k < FLOW_FRAMES_MAX; k++) {
        for (int c = 0; c < 3; c++)
            flow_plane_free(d, &ctx->frame[k][c]);
        flow_plane_free(d, &ctx->gray[k]);
    }
    flow_plane_free(d, &ctx->init.u);
    flow_plane_free(d, &ctx->init.v);
    flow_plane_free(d, &ctx->init_confidence);
    flow_plane_free(d, &ctx->matches);
    flow_plane_free(d, &ctx->edges);
    flow_plane_free(d, &ctx->back.u);
    flow_plane_free(d, &ctx->back.v);
    flow_plane_free(d, &ctx->verdict);
    flow_plane_free(d, &ctx->occluded);
    flow_plane_free(d, &ctx->confidence);
    for (int c = 0; c < 3; c++)
        flow_plane_free(d, &ctx->stage[c]);
    d->ops->buffer_free(d, ctx->stage8);
    flow_plane_free(d, &ctx->bad);
    flow_plane_free(d, &ctx->peak);
    d->ops->event_destroy(d, ctx->uploaded);
    d->ops->event_destroy(d, ctx->converted);
    for (int i = 0; i < FLOW_CONTEXT_DEPTH; i++) {
        queued_flow *q = &ctx->q[i];
        flow_plane_free(d, &q->staged.u);
        flow_plane_free(d, &q->staged.v);
        for (int k = 0; k < OUTPUTS_MAX; k++)
            flow_plane_free(d, &q->staged_out[k]);
        d->ops->event_destroy(d, q->start);
        d->ops->event_destroy(d, q->done);
        d->ops->event_destroy(d, q->downloaded);
    }
    flow_params_destroy(ctx->params);
    free(ctx->ex.host);
    flow_queue_close(d);
    free(ctx);
}

/* A context that did not fit: what it was for, then the allocation's own
 * detail (the device, what it asked for, what was free). */
static flow_status out_of_memory(int width, int height, int channels, const flow_params *p)
{
    char detail[512];
    snprintf(detail, sizeof detail, "%s", flow_last_error());
    return flow_fail(FLOW_ERR_NOMEM, "%dx%d%s frames, method %s: %s", width, height,
                     channels == 3 ? " colour" : "", flow_params_method(p), detail);
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
    flow_status s = flow_queue_open(d, &ctx->ex.dev);
    if (s != FLOW_OK) {
        free(ctx);
        return s;
    }
    d = ctx->ex.dev; /* everything below is queued on the context's own queue */
    ctx->method = flow_params_desc(p);
    ctx->width = width;
    ctx->height = height;
    ctx->channels = channels;
    flow_graphs_init(&ctx->graphs);
    double color = 1;
    ctx->luminance = channels == 3 && flow_params_get_number(p, "color", &color) == FLOW_OK
                     && color == 0;
    s = flow_params_clone(p, &ctx->params);
    if (s == FLOW_OK) {
        flow_params_fit(ctx->params, width, height);
        const void *values = flow_params_values(ctx->params);
        ctx->nframes = ctx->method->frames ? ctx->method->frames(values) : 2;
        if (ctx->method->outputs)
            ctx->method_outputs = ctx->method->outputs(values, ctx->output_names);
        ctx->noutputs = ctx->method_outputs;
    }
    for (int k = 0; k < ctx->nframes && s == FLOW_OK; k++) {
        for (int c = 0; c < channels && s == FLOW_OK; c++)
            s = flow_plane_alloc(d, &ctx->frame[k][c], width, height);
        if (s == FLOW_OK && ctx->luminance)
            s = flow_plane_alloc(d, &ctx->gray[k], width, height);
    }
    for (int c = 0; c < channels && s == FLOW_OK; c++)
        s = flow_plane_alloc(d, &ctx->stage[c], width, height);
    if (s == FLOW_OK)
        s = d->ops->buffer_alloc(d, &ctx->stage8, (size_t)width * height * channels);
    if (s == FLOW_OK)
        s = d->ops->event_create(d, &ctx->uploaded);
    if (s == FLOW_OK)
        s = d->ops->event_create(d, &ctx->converted);
    for (int i = 0; i < FLOW_CONTEXT_DEPTH && s == FLOW_OK; i++) {
        queued_flow *q = &ctx->q[i];
        s = flow_plane_alloc(d, &q->staged.u, width, height);
        if (s == FLOW_OK)
            s = flow_plane_alloc(d, &q->staged.v, width, height);
        if (s == FLOW_OK)
            s = d->ops->event_create(d, &q->start);
        if (s == FLOW_OK)
            s = d->ops->event_create(d, &q->done);
        if (s == FLOW_OK)
            s = d->ops->event_create(d, &q->downloaded);
    }
    if (s == FLOW_OK)
        s = ctx->method->create(d, width, height, ctx->luminance ? 1 : channels,
                                flow_params_values(ctx->params), &ctx->state);
    if (s != FLOW_OK) {
        flow_context_destroy(ctx);
        return s == FLOW_ERR_NOMEM ? out_of_memory(width, height, channels, p) : s;
    }
    *out = ctx;
    return FLOW_OK;
}

const flow_params *flow_context_params(const flow_context *ctx)
{
    return ctx->params;
}

void flow_context_set_observer(flow_context *ctx, const flow_observer *obs)
{
    flow_exec_set_observer(&ctx->ex, obs);
}

void flow_context_set_graphs(flow_context *ctx, int enable)
{
    flow_graphs_set(&ctx->graphs, ctx->ex.dev, enable);
}

int flow_context_used_graph(const flow_context *ctx)
{
    return ctx->graphs.used;
}

static flow_status check_size(const flow_context *ctx, int width, int height, int channels,
                              const char *which)
{
    if (width != ctx->width || height != ctx->height)
        return flow_fail(FLOW_ERR_SIZE, "%s frame is %dx%d, the context %dx%d", which, width,
                         height, ctx->width, ctx->height);
    if (channels != ctx->channels)
        return flow_fail(FLOW_ERR_INVALID, "%s frame has %d channels, the context %d", which,
                         channels, ctx->channels);
    return FLOW_OK;
}

static flow_status check_frame(const flow_context *ctx, const flow_image *f, const char *which)
{
    if (!f || !f->data)
        return flow_fail(FLOW_ERR_INVALID, "%s frame is missing", which);
    return check_size(ctx, f->width, f->height, f->channels, which);
}

static flow_status check_frame8(const flow_context *ctx, const flow_image8 *f,
                                const char *which)
{
    if (!f || !f->data)
        return flow_fail(FLOW_ERR_INVALID, "%s frame is missing", which);
    return check_size(ctx, f->width, f->height, f->channels, which);
}

static flow_status check_output(const flow_context *ctx, const flow_field *out)
{
    if (!out || !out->u || !out->v || out->width != ctx->width || out->height != ctx->height)
        return flow_fail(FLOW_ERR_SIZE, "output field is %dx%d, the context %dx%d",
                         out ? out->width : 0, out ? out->height : 0, ctx->width, ctx->height);
    return FLOW_OK;
}

/* A timed computation (stage hooks set) keeps its transfers on the
 * computing lane, where the stage events see them. */
static int timed(const flow_context *ctx)
{
    return ctx->ex.obs.stage_begin != NULL;
}

static flow_lane lane(const flow_context *ctx, flow_lane l)
{
    return timed(ctx) ? FLOW_LANE_COMPUTE : l;
}

/* The frame into the stage, on the upload lane, once the stage's last frame
 * has been converted.  One of f, f8 is set. */
static flow_status upload_stage(flow_context *ctx, const flow_image *f, const flow_image8 *f8)
{
    flow_device *d = ctx->ex.dev;
    const flow_lane up = lane(ctx, FLOW_LANE_UPLOAD);
    FLOW_TRY(d->ops->lane_wait(d, up, ctx->converted));
    if (f8) {
        const size_t bytes = (size_t)ctx->width * ctx->height * ctx->channels;
        FLOW_TRY(d->ops->upload_bytes(d, up, ctx->stage8, f8->data, bytes));
    } else {
        const size_t n = (size_t)ctx->width * ctx->height;
        for (int c = 0; c < ctx->channels; c++)
            FLOW_TRY(d->ops->upload_async(d, up, &ctx->stage[c], f->data + c * n,
                                          (size_t)ctx->width));
    }
    return d->ops->lane_record(d, up, ctx->uploaded);
}

/* On the computing lane: the kept frame moves to frame[0] (a copy on the
 * device: a few microseconds), and frame[0] to frame[2] when the method
 * reads the frame before; the staged one, or the caller's frame `dev` in
 * the GPU's memory, becomes frame[1]. */
static flow_status convert_stage(flow_context *ctx, int bytes, const flow_device_frame *dev)
{
    flow_device *d = ctx->ex.dev;
    FLOW_TRY(d->ops->lane_wait(d, FLOW_LANE_COMPUTE, ctx->uploaded));
    /* frame[k] takes frame[k - 1] (k >= 3), frame[2] frame[0], frame[0]
     * frame[1]: oldest first, each where its source holds a frame and the
     * method reads the place */
    for (int k = ctx->nframes - 1; k >= 0; k--) {
        if (k == 1)
            continue;
        const int from = k == 0 ? 1 : k == 2 ? 0 : k - 1;
        const int needs = k == 0 ? 1 : k; /* frames held for `from` to hold one */
        for (int c = 0; ctx->held >= needs && c < ctx->channels; c++)
            FLOW_TRY(flow_copy(d, &ctx->frame[k][c], &ctx->frame[from][c]));
    }
    ctx->held = ctx->held < ctx->nframes ? ctx->held + 1 : ctx->nframes;
    if (dev && !dev->bytes) {
        flow_unpack32_args a;
        memset(&a, 0, sizeof a);
        for (int c = 0; c < ctx->channels; c++)
            a.dst[c] = ctx->frame[1][c];
        a.src = (const float *)dev->data;
        a.channels = ctx->channels;
        FLOW_TRY(flow_k_unpack32(d, &a));
    } else if (bytes || dev) {
        flow_unpack8_args a;
        memset(&a, 0, sizeof a);
        for (int c = 0; c < ctx->channels; c++)
            a.dst[c] = ctx->frame[1][c];
        a.src = dev ? (const unsigned char *)dev->data : (const unsigned char *)ctx->stage8;
        a.channels = ctx->channels;
        FLOW_TRY(flow_k_unpack8(d, &a));
    } else
        for (int c = 0; c < ctx->channels; c++)
            FLOW_TRY(flow_copy(d, &ctx->frame[1][c], &ctx->stage[c]));
    return d->ops->lane_record(d, FLOW_LANE_COMPUTE, ctx->converted);
}

/* The backward flow of the pair of `fwd` into ctx->back: the method on
 * the same frames (as converted for the forward flow) the other way
 * round, the pair alone, without the forward flow's inputs: the flow the
 * method computes from the second frame to the first on its own. */
static flow_status backward_work(flow_context *ctx, const flow_frames *fwd)
{
    flow_frames in;
    memset(&in, 0, sizeof in);
    in.count = 2;
    in.channels = fwd->channels;
    for (int c = 0; c < in.channels; c++) {
        in.f[0][c] = fwd->f[1][c];
        in.f[1][c] = fwd->f[0][c];
    }
    const flow_pair *b = NULL;
    FLOW_TRY(ctx->method->run(ctx->state, &ctx->ex, &in, &b));
    const flow_copy_pair_args a = { ctx->back, *b };
    return flow_k_copy_pair(ctx->ex.dev, &a);
}

/* The forward-backward test, the occlusion mask and the confidence of the
 * forward flow (pixel/occlusion.h), on the device. */
static flow_status consistency_work(flow_context *ctx, const flow_frames *in)
{
    flow_consistency_args a;
    memset(&a, 0, sizeof a);
    a.fb.fwd = *ctx->result;
    a.fb.bwd = ctx->back;
    a.fb.a = ctx->occ_a;
    a.fb.b = ctx->occ_b;
    a.fb.unknown = FLOW_UNKNOWN_THRESHOLD;
    a.verdict = ctx->verdict;
    a.occluded = ctx->occluded;
    a.confidence = ctx->confidence;
    a.channels = in->channels;
    for (int c = 0; c < in->channels; c++) {
        a.f1[c] = in->f[0][c];
        a.f2[c] = in->f[1][c];
    }
    return flow_k_consistency(ctx->ex.dev, &a);
}

/* The method's device work on the frames (user: the context): the flow
 * and, with both directions on, the backward flow first (the method's
 * own output planes and residual then describe the forward flow; the
 * forward run takes the frames' preprocessing and pyramids from it,
 * flow_frames.swapped) and the forward-backward planes after. */
static flow_status device_work(void *user)
{
    flow_context *ctx = user;
    flow_frames in;
    memset(&in, 0, sizeof in);
    in.count = frames_given(ctx);
    in.init = ctx->has_init ? &ctx->init : NULL;
    in.init_confidence = ctx->has_confidence ? &ctx->init_confidence : NULL;
    in.matches = ctx->nmatches > 0 ? &ctx->matches : NULL;
    in.edges = ctx->has_edges ? &ctx->edges : NULL;
    if (ctx->luminance) {
        for (int k = 0; k < in.count; k++) {
            const flow_plane *f = ctx->frame[k];
            const flow_luminance_args a = { ctx->gray[k], f[0], f[1], f[2] };
            FLOW_TRY(flow_k_luminance(ctx->ex.dev, &a));
            in.f[k][0] = ctx->gray[k];
        }
        in.channels = 1;
    } else {
        in.channels = ctx->channels;
        for (int k = 0; k < in.count; k++)
            for (int c = 0; c < ctx->channels; c++)
                in.f[k][c] = ctx->frame[k][c];
    }
    if (ctx->backward) {
        flow_stage_begin(&ctx->ex, "backward");
        const flow_status s = backward_work(ctx, &in);
        flow_stage_end(&ctx->ex, "backward");
        FLOW_TRY(s);
        /* what the method made of each frame alone is shared */
        in.swapped = 1;
    }
    FLOW_TRY(ctx->method->run(ctx->state, &ctx->ex, &in, &ctx->result));
    if (!ctx->backward)
        return FLOW_OK;
    flow_stage_begin(&ctx->ex, "consistency");
    const flow_status s = consistency_work(ctx, &in);
    flow_stage_end(&ctx->ex, "consistency");
    return s;
}

static flow_status run_method(flow_context *ctx)
{
    flow_exec *ex = &ctx->ex;
    /* a trace reads the device between launches, a workflow hands planes
     * out between stages: both need the direct path */
    const int direct = ex->obs.trace || ex->obs.workflow;
    const int key = graph_key(ctx);
    ctx->result = NULL;
    FLOW_TRY(flow_graphs_run(&ctx->graphs, ex, key, direct, device_work, ctx));
    if (ctx->result) /* the method ran (directly or recorded) */
        ctx->result_of[key] = *ctx->result;
    ctx->result = &ctx->result_of[key];
    FLOW_TRY(flow_workflow(ex, "u", &ctx->result->u));
    return flow_workflow(ex, "v", &ctx->result->v);
}

/* Output plane k: the method's, then the context's (context_outputs). */
static const flow_plane *output_plane(flow_context *ctx, int k)
{
    if (k < ctx->method_outputs)
        return ctx->method->output(ctx->state, k);
    const flow_plane *own[] = { &ctx->back.u, &ctx->back.v, &ctx->occluded, &ctx->confidence,
                                &ctx->verdict };
    return own[k - ctx->method_outputs];
}

/* The result into q->out lying in the GPU's memory (device_out): a copy
 * on the computing lane. */
static flow_status to_device_out(flow_context *ctx, const queued_flow *q)
{
    const int w = ctx->width, h = ctx->height;
    const flow_pair dst = { { q->out->u, w, h, w }, { q->out->v, w, h, w } };
    const flow_copy_pair_args a = { dst, *ctx->result };
    return flow_k_copy_pair(ctx->ex.dev, &a);
}

/* Requested output plane k into the GPU's memory at q->out_dst[k]
 * (out_device): a copy on the computing lane, point by point (the
 * caller's rows are packed, not aligned as the device's planes are). */
static flow_status output_to_device(flow_context *ctx, const queued_flow *q, int k)
{
    const flow_plane dst = { q->out_dst[k], ctx->width, ctx->height, ctx->width };
    const flow_copy_plane_args a = { dst, *output_plane(ctx, k) };
    return flow_k_copy_plane(ctx->ex.dev, &a);
}

/* The result to the host into q->out (or into the GPU's memory, device_out),
 * and each requested output plane into its buffer: on the download lane
 * from staged copies, or (timed) straight from the method's planes on the
 * computing lane; what goes to the GPU's memory is copied there on the
 * computing lane before q->done. */
static flow_status download(flow_context *ctx, queued_flow *q)
{
    flow_device *d = ctx->ex.dev;
    const size_t w = (size_t)ctx->width;
    for (int k = 0; k < ctx->noutputs; k++) {
        q->out_dst[k] = ctx->output_dst[k];
        q->out_device[k] = ctx->output_device[k];
    }
    if (timed(ctx)) {
        if (ctx->device_out)
            FLOW_TRY(to_device_out(ctx, q));
        for (int k = 0; k < ctx->noutputs; k++)
            if (q->out_dst[k] && q->out_device[k])
                FLOW_TRY(output_to_device(ctx, q, k));
        FLOW_TRY(d->ops->lane_record(d, FLOW_LANE_COMPUTE, q->done));
        if (!ctx->device_out) {
            FLOW_TRY(d->ops->download_async(d, FLOW_LANE_COMPUTE, q->out->u, w,
                                            &ctx->result->u));
            FLOW_TRY(d->ops->download_async(d, FLOW_LANE_COMPUTE, q->out->v, w,
                                            &ctx->result->v));
        }
        for (int k = 0; k < ctx->noutputs; k++)
            if (q->out_dst[k] && !q->out_device[k])
                FLOW_TRY(d->ops->download_async(d, FLOW_LANE_COMPUTE, q->out_dst[k], w,
                                                output_plane(ctx, k)));
        return d->ops->lane_record(d, FLOW_LANE_COMPUTE, q->downloaded);
    }
    FLOW_TRY(d->ops->lane_wait(d, FLOW_LANE_COMPUTE, q->downloaded));
    if (ctx->device_out) {
        FLOW_TRY(to_device_out(ctx, q));
    } else {
        const flow_copy_pair_args a = { q->staged, *ctx->result };
        FLOW_TRY(flow_k_copy_pair(d, &a));
    }
    for (int k = 0; k < ctx->noutputs; k++)
        if (q->out_dst[k])
            FLOW_TRY(q->out_device[k] ? output_to_device(ctx, q, k)
                                      : flow_copy(d, &q->staged_out[k], output_plane(ctx, k)));
    FLOW_TRY(d->ops->lane_record(d, FLOW_LANE_COMPUTE, q->done));
    FLOW_TRY(d->ops->lane_wait(d, FLOW_LANE_DOWNLOAD, q->done));
    if (!ctx->device_out) {
        FLOW_TRY(d->ops->download_async(d, FLOW_LANE_DOWNLOAD, q->out->u, w, &q->staged.u));
        FLOW_TRY(d->ops->download_async(d, FLOW_LANE_DOWNLOAD, q->out->v, w, &q->staged.v));
    }
    for (int k = 0; k < ctx->noutputs; k++)
        if (q->out_dst[k] && !q->out_device[k])
            FLOW_TRY(d->ops->download_async(d, FLOW_LANE_DOWNLOAD, q->out_dst[k], w,
                                            &q->staged_out[k]));
    return d->ops->lane_record(d, FLOW_LANE_DOWNLOAD, q->downloaded);
}

/* One of f, f8, dev is the frame. */
static flow_status submit(flow_context *ctx, const flow_image *f, const flow_image8 *f8,
                          const flow_device_frame *dev, flow_field *out)
{
    flow_exec *ex = &ctx->ex;
    flow_device *d = ex->dev;
    queued_flow *q = out ? &ctx->q[ctx->next_slot] : NULL;
    flow_stage_begin(ex, "upload");
    flow_status s = dev ? FLOW_OK : upload_stage(ctx, f, f8);
    if (s == FLOW_OK && q)
        s = d->ops->lane_record(d, FLOW_LANE_COMPUTE, q->start);
    if (s == FLOW_OK)
        s = convert_stage(ctx, f8 != NULL, dev);
    flow_stage_end(ex, "upload");
    ctx->has_frames = s == FLOW_OK;
    if (s != FLOW_OK || !q)
        return s;
    ctx->computed = 0;
    FLOW_TRY(run_method(ctx));
    ctx->computed = 1;
    q->out = out;
    flow_stage_begin(ex, "download");
    s = download(ctx, q);
    flow_stage_end(ex, "download");
    FLOW_TRY(s);
    ctx->next_slot = (ctx->next_slot + 1) % FLOW_CONTEXT_DEPTH;
    ctx->queued++;
    return FLOW_OK;
}

/* The checks every submit makes (a device frame's are flow_context_submit_
 * device's); then the submit, draining on failure. */
static flow_status submit_checked(flow_context *ctx, const flow_image *f, const flow_image8 *f8,
                                  const flow_device_frame *dev, flow_field *out)
{
    if (!dev)
        FLOW_TRY(f8 ? check_frame8(ctx, f8, "submitted") : check_frame(ctx, f, "submitted"));
    if (out) {
        FLOW_TRY(check_output(ctx, out));
        if (ctx->device_out) {
            FLOW_TRY(flow_device_check_pointer(ctx->ex.dev, out->u, "output field's u"));
            FLOW_TRY(flow_device_check_pointer(ctx->ex.dev, out->v, "output field's v"));
        }
        if (!ctx->has_frames)
            return flow_fail(FLOW_ERR_INVALID, "flow_context_submit: no kept frame to compute "
                                               "the flow from (submit the first frame with no "
                                               "output field)");
        if (ctx->queued == FLOW_CONTEXT_DEPTH)
            return flow_fail(FLOW_ERR_INVALID, "flow_context_submit: %d flows queued already: "
                                               "collect one first",
                             FLOW_CONTEXT_DEPTH);
    }
    if (!out) /* the first frame of a sequence */
        forget_frames(ctx);
    const flow_status s = submit(ctx, f, f8, dev, out);
    if (s != FLOW_OK)
        drain(ctx);
    return s;
}

/* A float frame's values are checked before anything is queued: an 8-bit
 * frame needs no check (flow_context_submit8). */
flow_status flow_context_submit(flow_context *ctx, const flow_image *frame, flow_field *out)
{
    FLOW_TRY(check_frame(ctx, frame, "submitted"));
    FLOW_TRY(flow_image_check_values(frame, out ? "second frame" : "first frame"));
    return submit_checked(ctx, frame, NULL, NULL, out);
}

flow_status flow_context_submit8(flow_context *ctx, const flow_image8 *frame, flow_field *out)
{
    return submit_checked(ctx, NULL, frame, NULL, out);
}

flow_status flow_context_submit_device(flow_context *ctx, const flow_device_frame *frame,
                                       flow_field *out)
{
    if (!frame || !frame->data)
        return flow_fail(FLOW_ERR_INVALID, "submitted frame is missing");
    FLOW_TRY(check_size(ctx, frame->width, frame->height, frame->channels, "submitted"));
    flow_device *d = ctx->ex.dev;
    const char *which = out ? "second frame" : "first frame";
    FLOW_TRY(flow_device_check_pointer(d, frame->data, which));
    if (!frame->bytes)
        FLOW_TRY(flow_device_frame_values(d, frame, &ctx->bad, &ctx->peak, which));
    return submit_checked(ctx, NULL, NULL, frame, out);
}

flow_status flow_context_collect(flow_context *ctx, flow_field **out, float *device_ms)
{
    if (!ctx->queued)
        return flow_fail(FLOW_ERR_INVALID, "flow_context_collect: no flow queued");
    flow_device *d = ctx->ex.dev;
    queued_flow *q = &ctx->q[ctx->head];
    flow_status s = d->ops->event_wait(d, q->downloaded);
    if (s == FLOW_OK && device_ms)
        s = d->ops->event_elapsed(d, q->start, q->done, device_ms);
    if (s != FLOW_OK) {
        drain(ctx);
        return s;
    }
    ctx->head = (ctx->head + 1) % FLOW_CONTEXT_DEPTH;
    ctx->queued--;
    if (out)
        *out = q->out;
    return FLOW_OK;
}

int flow_context_queued(const flow_context *ctx)
{
    return ctx->queued;
}

static flow_status no_queue(const flow_context *ctx, const char *who)
{
    if (ctx->queued)
        return flow_fail(FLOW_ERR_INVALID, "%s: %d submitted flow%s not collected", who,
                         ctx->queued, ctx->queued == 1 ? "" : "s");
    return FLOW_OK;
}

flow_status flow_context_set_device_output(flow_context *ctx, int on)
{
    FLOW_TRY(no_queue(ctx, "flow_context_set_device_output"));
    flow_device *d = ctx->ex.dev;
    if (on && !d->ops->pointer_gpu)
        return flow_fail(FLOW_ERR_UNSUPPORTED, "flows in GPU memory need a CUDA device, and this "
                                               "one is %s (%s)",
                         d->ops->kind, d->name);
    ctx->device_out = on != 0;
    return FLOW_OK;
}

flow_status flow_context_after_stream(flow_context *ctx, uintptr_t stream)
{
    flow_device *d = ctx->ex.dev;
    if (!d->ops->stream_wait)
        return flow_fail(FLOW_ERR_UNSUPPORTED, "waiting for a CUDA stream needs a CUDA device, "
                                               "and this one is %s (%s)",
                         d->ops->kind, d->name);
    return d->ops->stream_wait(d, stream);
}

flow_status flow_context_compute(flow_context *ctx, const flow_image *f1, const flow_image *f2,
                                 flow_field *out)
{
    FLOW_TRY(no_queue(ctx, "flow_context_compute"));
    FLOW_TRY(check_frame(ctx, f1, "first"));
    FLOW_TRY(check_frame(ctx, f2, "second"));
    FLOW_TRY(check_output(ctx, out));
    FLOW_TRY(flow_image_check_values(f1, "first frame"));
    FLOW_TRY(flow_image_check_values(f2, "second frame"));
    forget_frames(ctx);
    FLOW_TRY(submit_checked(ctx, f1, NULL, NULL, NULL));
    FLOW_TRY(submit_checked(ctx, f2, NULL, NULL, out));
    return flow_context_collect(ctx, NULL, NULL);
}

flow_status flow_context_compute_next(flow_context *ctx, const flow_image *next, flow_field *out)
{
    FLOW_TRY(no_queue(ctx, "flow_context_compute_next"));
    if (!ctx->has_frames)
        return flow_fail(FLOW_ERR_INVALID, "flow_context_compute_next: no earlier successful "
                                           "compute holds a first frame");
    FLOW_TRY(check_frame(ctx, next, "next"));
    FLOW_TRY(check_output(ctx, out));
    FLOW_TRY(flow_image_check_values(next, "second frame"));
    FLOW_TRY(submit_checked(ctx, next, NULL, NULL, out));
    return flow_context_collect(ctx, NULL, NULL);
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

int flow_context_frames(const flow_context *ctx)
{
    return ctx->nframes;
}

/* An input of the method's, or FLOW_ERR_INVALID naming what it takes. */
static flow_status takes(const flow_context *ctx, unsigned input, const char *what)
{
    if (!(ctx->method->inputs & input))
        return flow_fail(FLOW_ERR_INVALID, "method %s takes no %s", ctx->method->name, what);
    return no_queue(ctx, "setting an input");
}

int flow_context_takes_init(const flow_context *ctx)
{
    return (ctx->method->inputs & FLOW_INPUT_INIT) != 0;
}

int flow_context_takes_matches(const flow_context *ctx)
{
    return (ctx->method->inputs & FLOW_INPUT_MATCHES) != 0;
}

int flow_context_takes_edges(const flow_context *ctx)
{
    return (ctx->method->inputs & FLOW_INPUT_EDGES) != 0;
}

/* Whether every vector of the field is known (flow_is_unknown: also
 * NaN); *bad the first pixel that is not. */
static int all_known(const flow_field *f, size_t *bad)
{
    const size_t n = (size_t)f->width * f->height;
    for (size_t i = 0; i < n; i++)
        if (flow_is_unknown(f->u[i], f->v[i])) {
            *bad = i;
            return 0;
        }
    return 1;
}

/* A plane of the context's size, allocated on first use. */
static flow_status put_plane(flow_context *ctx, flow_plane *p, const float *src)
{
    flow_device *d = ctx->ex.dev;
    if (!p->data)
        FLOW_TRY(flow_plane_alloc(d, p, ctx->width, ctx->height));
    return d->ops->upload(d, p, src, (size_t)ctx->width);
}

flow_status flow_context_set_init(flow_context *ctx, const flow_field *init,
                                  const float *confidence)
{
    FLOW_TRY(takes(ctx, FLOW_INPUT_INIT, "initial flow"));
    if (!init) {
        ctx->has_init = ctx->has_confidence = 0;
        return FLOW_OK;
    }
    if (!init->u || !init->v || init->width != ctx->width || init->height != ctx->height)
        return flow_fail(FLOW_ERR_SIZE, "initial flow is %dx%d, the context %dx%d",
                         init->width, init->height, ctx->width, ctx->height);
    const size_t n = (size_t)ctx->width * ctx->height;
    size_t bad = 0;
    if (!all_known(init, &bad))
        return flow_fail(FLOW_ERR_INVALID, "initial flow has an unknown vector at pixel (%zu, "
                                           "%zu): give every pixel a vector",
                         bad % ctx->width, bad / ctx->width);
    for (size_t i = 0; confidence && i < n; i++)
        if (!(confidence[i] >= 0.0f && confidence[i] <= 1.0f))
            return flow_fail(FLOW_ERR_INVALID, "initial flow's confidence %g at pixel (%zu, "
                                               "%zu) is not in [0, 1]",
                             (double)confidence[i], i % ctx->width, i / ctx->width);
    flow_status s = put_plane(ctx, &ctx->init.u, init->u);
    if (s == FLOW_OK)
        s = put_plane(ctx, &ctx->init.v, init->v);
    if (s == FLOW_OK && confidence)
        s = put_plane(ctx, &ctx->init_confidence, confidence);
    ctx->has_init = s == FLOW_OK;
    ctx->has_confidence = s == FLOW_OK && confidence;
    return s;
}

flow_status flow_context_set_matches(flow_context *ctx, const flow_match *m, int n)
{
    FLOW_TRY(takes(ctx, FLOW_INPUT_MATCHES, "sparse matches"));
    if (n < 0 || (n > 0 && !m))
        return flow_fail(FLOW_ERR_INVALID, "flow_context_set_matches: %d matches at %p", n,
                         (const void *)m);
    for (int i = 0; i < n; i++) {
        const flow_match *k = &m[i];
        if (!(k->x >= 0 && k->x <= ctx->width - 1 && k->y >= 0 && k->y <= ctx->height - 1)
            || !isfinite(k->u) || !isfinite(k->v) || !(k->weight >= 0 && k->weight <= 1))
            return flow_fail(FLOW_ERR_INVALID, "match %d at (%g, %g) of (%g, %g), weight %g: "
                                               "expected a point of the %dx%d frame, a finite "
                                               "vector and a weight in [0, 1]",
                             i, (double)k->x, (double)k->y, (double)k->u, (double)k->v,
                             (double)k->weight, ctx->width, ctx->height);
    }
    flow_device *d = ctx->ex.dev;
    /* the point set's width is the count: the method's launches change */
    drop_graphs(ctx);
    ctx->nmatches = 0;
    if (n == 0)
        return FLOW_OK;
    float *rows = malloc(sizeof *rows * FLOW_MATCH_ROWS * (size_t)n);
    if (!rows)
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate %d matches", n);
    for (int i = 0; i < n; i++) {
        rows[FLOW_MATCH_X * n + i] = m[i].x;
        rows[FLOW_MATCH_Y * n + i] = m[i].y;
        rows[FLOW_MATCH_U * n + i] = m[i].u;
        rows[FLOW_MATCH_V * n + i] = m[i].v;
        rows[FLOW_MATCH_WEIGHT * n + i] = m[i].weight;
    }
    flow_plane_free(d, &ctx->matches);
    flow_status s = flow_plane_alloc(d, &ctx->matches, n, FLOW_MATCH_ROWS);
    if (s == FLOW_OK)
        s = d->ops->upload(d, &ctx->matches, rows, (size_t)n);
    free(rows);
    if (s == FLOW_OK)
        ctx->nmatches = n;
    return s;
}

flow_status flow_context_set_edges(flow_context *ctx, const float *edges)
{
    FLOW_TRY(takes(ctx, FLOW_INPUT_EDGES, "edge map"));
    const size_t n = (size_t)ctx->width * ctx->height;
    for (size_t i = 0; edges && i < n; i++)
        if (!(edges[i] >= 0.0f && edges[i] <= 1.0f))
            return flow_fail(FLOW_ERR_INVALID, "edge map's value %g at pixel (%zu, %zu) is not "
                                               "in [0, 1]",
                             (double)edges[i], i % ctx->width, i / ctx->width);
    if (!edges) {
        ctx->has_edges = 0;
        return FLOW_OK;
    }
    const flow_status s = put_plane(ctx, &ctx->edges, edges);
    ctx->has_edges = s == FLOW_OK;
    return s;
}

flow_status flow_context_set_backward(flow_context *ctx, int enable, double a, double b)
{
    FLOW_TRY(no_queue(ctx, "flow_context_set_backward"));
    if (enable && !(isfinite(a) && a >= 0 && a <= 1e3))
        return flow_fail(FLOW_ERR_INVALID, "occlusion test's a = %g: expected a number in "
                                           "[0, 1000] (relative tolerance)",
                         a);
    if (enable && !(isfinite(b) && b >= 0 && b <= 1e12))
        return flow_fail(FLOW_ERR_INVALID, "occlusion test's b = %g px^2: expected a number "
                                           "in [0, 1e12]",
                         b);
    flow_device *d = ctx->ex.dev;
    flow_plane *own[] = { &ctx->back.u, &ctx->back.v, &ctx->verdict, &ctx->occluded,
                          &ctx->confidence };
    for (int i = 0; enable && i < 5; i++)
        if (!own[i]->data)
            FLOW_TRY(flow_plane_alloc(d, own[i], ctx->width, ctx->height));
    /* the device work changes (or its parameters do): record it anew */
    drop_graphs(ctx);
    ctx->backward = enable != 0;
    ctx->occ_a = a;
    ctx->occ_b = b;
    for (int k = ctx->method_outputs; k < ctx->method_outputs + CONTEXT_OUTPUTS; k++) {
        ctx->output_names[k] = enable ? context_outputs[k - ctx->method_outputs] : NULL;
        ctx->output_dst[k] = NULL;
        ctx->output_device[k] = 0;
    }
    ctx->noutputs = ctx->method_outputs + (enable ? CONTEXT_OUTPUTS : 0);
    return FLOW_OK;
}

int flow_context_backward(const flow_context *ctx)
{
    return ctx->backward;
}

int flow_context_outputs(const flow_context *ctx)
{
    return ctx->noutputs;
}

const char *flow_context_output_name(const flow_context *ctx, int i)
{
    return i >= 0 && i < ctx->noutputs ? ctx->output_names[i] : NULL;
}

/* *k: the index of the output plane `name`; FLOW_ERR_INVALID naming the
 * method when it has none of that name. */
static flow_status find_output(const flow_context *ctx, const char *name, int *k)
{
    for (*k = 0; name && *k < ctx->noutputs; ++*k)
        if (strcmp(name, ctx->output_names[*k]) == 0)
            return FLOW_OK;
    return flow_fail(FLOW_ERR_INVALID, "method %s has no output plane %s with these parameters "
                                       "(it has %d: flow_context_output_name)",
                     ctx->method->name, name ? name : "(null)", ctx->noutputs);
}

/* The staging planes of an output are allocated when it is first asked
 * for: a plane nobody downloads costs no memory beyond the method's own. */
flow_status flow_context_request_output(flow_context *ctx, const char *name, float *dst)
{
    int k;
    FLOW_TRY(find_output(ctx, name, &k));
    for (int i = 0; dst && i < FLOW_CONTEXT_DEPTH; i++)
        if (!ctx->q[i].staged_out[k].data)
            FLOW_TRY(flow_plane_alloc(ctx->ex.dev, &ctx->q[i].staged_out[k], ctx->width,
                                      ctx->height));
    ctx->output_dst[k] = dst;
    ctx->output_device[k] = 0;
    return FLOW_OK;
}

/* A plane going to the GPU's memory is copied there from the method's
 * plane: it needs no staging. */
flow_status flow_context_request_output_device(flow_context *ctx, const char *name, float *dst)
{
    int k;
    FLOW_TRY(find_output(ctx, name, &k));
    if (dst) {
        char what[96];
        snprintf(what, sizeof what, "output plane %s", name);
        FLOW_TRY(flow_device_check_pointer(ctx->ex.dev, dst, what));
    }
    ctx->output_dst[k] = dst;
    ctx->output_device[k] = dst != NULL;
    return FLOW_OK;
}
