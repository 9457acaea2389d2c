/* stream.c -- the stream mode of flow-compute's loop (run.h), the usual
 * case: the pairs on one device, kept busy.  Frames reach the context as
 * 8-bit samples where the files have them, from page-locked buffers, and
 * each frame is submitted before the flow of the one before is collected,
 * so that the upload of a frame and the download of a flow overlap the
 * computation (flow_context_submit). */
#include "run.h"

#include <stdlib.h>
#include <string.h>

/* A flow in flight: its field and the frames of its pair (held until it is
 * collected: the first frame is written beside it, the second's upload
 * may still be reading it). */
typedef struct in_flight {
    flow_field *field;
    const source_frame *from, *to;
} in_flight;

struct stream_state {
    in_flight q[FLOW_CONTEXT_DEPTH]; /* oldest first */
    int n;
};

static long held(int ndevices)
{
    return FLOW_CONTEXT_DEPTH;
}

static int start(run *r, const source_frame *first)
{
    r->stream = calloc(1, sizeof *r->stream);
    if (!r->stream)
        return compute_failure(FLOW_ERR_NOMEM, "the flows in flight");
    int rc = create_context(r, first);
    if (rc != CLI_EXIT_OK)
        return rc;
    const flow_status s = submit_frame(r->ctx, first, NULL);
    return s == FLOW_OK ? CLI_EXIT_OK : compute_failure(s, first->name);
}

/* Collects the oldest flow in flight and hands it on. */
static int collect_oldest(run *r)
{
    stream_state *st = r->stream;
    flow_field *field;
    float device_ms = 0;
    const in_flight p = st->q[0];
    memmove(st->q, st->q + 1, sizeof *st->q * (size_t)--st->n);
    const flow_status s = flow_context_collect(r->ctx, &field, &device_ms);
    if (s != FLOW_OK) {
        char what[8500];
        snprintf(what, sizeof what, "%s -> %s", p.from->name, p.to->name);
        source_give_back(r->src, p.from);
        return compute_failure(s, what);
    }
    r->t.compute_ms += device_ms;
    const int rc =
        pair_done(r, r->d, field, &p.from->image, p.from->number, p.from->name, p.to->name, NULL);
    source_give_back(r->src, p.from);
    return rc;
}

static int pair(run *r, long k, const source_frame *from, const source_frame *to, int *took)
{
    stream_state *st = r->stream;
    flow_field *field;
    int rc;
    if (st->n == FLOW_CONTEXT_DEPTH && (rc = collect_oldest(r)) != CLI_EXIT_OK)
        return rc;
    if ((rc = take_field(r, k, &field)) != CLI_EXIT_OK)
        return rc;
    const flow_status s = submit_frame(r->ctx, to, field);
    if (s != FLOW_OK) {
        char what[8500];
        snprintf(what, sizeof what, "%s -> %s", from->name, to->name);
        if (r->queue)
            output_queue_drop(r->queue, field);
        return compute_failure(s, what);
    }
    st->q[st->n++] = (in_flight){field, from, to};
    *took = 1;
    return CLI_EXIT_OK;
}

static int finish(run *r, int failed)
{
    stream_state *st = r->stream;
    int rc = CLI_EXIT_OK;
    if (!st)
        return rc;
    while (!failed && st->n > 0 && rc == CLI_EXIT_OK)
        rc = collect_oldest(r);
    /* a failure leaves flows in flight: their transfers end before the
     * frames and fields go back */
    for (int i = 0; i < st->n; i++) {
        flow_context_collect(r->ctx, NULL, NULL);
        source_give_back(r->src, st->q[i].from);
        if (r->queue)
            output_queue_drop(r->queue, st->q[i].field);
    }
    free(st);
    r->stream = NULL;
    return rc;
}

const run_mode run_mode_stream = {held, start, pair, finish};
