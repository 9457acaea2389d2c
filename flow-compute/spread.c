/* spread.c -- the spread mode of flow-compute's loop (run.h), for several
 * devices (--device cuda:all, cuda:0,1, cpu,cpu, ...).  The library's
 * flow_spread (flow/spread.h) deals the pairs out to a context per entry of
 * the list, each on a thread of its own, and hands the flows back in pair
 * order; this mode submits each frame, hands each flow on as a one-device
 * run would (pair.c: named, counted, written) and gives a frame back to
 * the source when the pair it begins is handed on. */
#include "run.h"

#include <stdlib.h>

/* A pair dealt out and not handed on. */
typedef struct dealt_pair {
    const source_frame *from, *to;
    flow_field *field;
} dealt_pair;

struct spread {
    flow_spread *sp;
    dealt_pair *ring; /* pair k at k % size */
    long size;        /* flow_spread_depth */
    long dealt;       /* pairs dealt out */
    long handed;      /* pairs handed on (or dropped after a failure) */
    flow_field *own;  /* the fields computed into without -o, one per slot */
};

static long held(int n)
{
    return flow_spread_depth_of(n);
}

/* The pairs from handed on go back: their first frames to the source,
 * their fields to the writers. */
static void give_back(run *r, spread *s)
{
    for (; s->handed < s->dealt; s->handed++) {
        dealt_pair *p = &s->ring[s->handed % s->size];
        source_give_back(r->src, p->from);
        if (r->queue)
            output_queue_drop(r->queue, p->field);
    }
}

/* Collects the oldest pair (waiting for it) and hands it on; a failure is
 * reported with its pair and device, and drops every pair dealt out. */
static int hand_on(run *r, spread *s)
{
    flow_spread_flow f;
    const flow_status st = flow_spread_collect(s->sp, &f);
    if (st != FLOW_OK) {
        const dealt_pair *p = &s->ring[f.index % s->size];
        char what[9000];
        snprintf(what, sizeof what, "%s -> %s (%s)", p->from->name, p->to->name,
                 flow_device_name(r->devices[f.device]));
        const int rc = report_failure(st, what, flow_last_error()); /* the device thread's */
        give_back(r, s);
        return rc;
    }
    dealt_pair *p = &s->ring[s->handed++ % s->size];
    r->t.compute_ms += f.device_ms;
    const int rc = pair_done(r, r->devices[f.device], p->field, &p->from->image,
                             p->from->number, p->from->name, p->to->name, NULL);
    source_give_back(r->src, p->from);
    return rc;
}

/* The field of pair k: the writers' (-o), else the slot's own. */
static int field_for(run *r, spread *s, long k, flow_field **f)
{
    if (r->queue)
        return take_field(r, k, f);
    *f = &s->own[k % s->size];
    return CLI_EXIT_OK;
}

static flow_status submit(flow_spread *sp, const source_frame *f, flow_field *out)
{
    return f->is8 ? flow_spread_submit8(sp, &f->bytes, out)
                  : flow_spread_submit(sp, &f->image, out);
}

/* The spread for frames like `first` (the parameters it runs are those the
 * .params files record), and `first` as its kept frame.  What a failure
 * leaves, finish frees. */
static int start(run *r, const source_frame *first)
{
    spread *s = r->spread = calloc(1, sizeof *r->spread);
    if (!s)
        return compute_failure(FLOW_ERR_NOMEM, "the pairs in flight");
    s->size = flow_spread_depth_of(r->ndevices);
    s->ring = calloc((size_t)s->size, sizeof *s->ring);
    s->own = r->queue ? NULL : calloc((size_t)s->size, sizeof *s->own);
    if (!s->ring || (!r->queue && !s->own))
        return compute_failure(FLOW_ERR_NOMEM, "the pairs in flight");
    int channels;
    frame_shape(first, &r->width, &r->height, &channels);
    /* without -o, a field per pair in flight, page-locked before the first
     * pair: pinning locks every page and, done as the pairs come, would
     * hold the device threads up in the first pairs of every slot */
    int rc;
    if (s->own && (rc = own_fields_alloc(r, s->own, s->size)) != CLI_EXIT_OK)
        return rc;
    flow_status st = flow_spread_create(r->devices, r->ndevices, r->width, r->height, channels,
                                        r->o->params, &s->sp);
    if (st != FLOW_OK)
        return compute_failure(st, first->name);
    /* the writers read them after the spread is gone */
    if ((st = flow_params_clone(flow_spread_params(s->sp), &r->used_copy)) != FLOW_OK)
        return compute_failure(st, "parameters");
    r->used = r->used_copy;
    report_fitted(r->o->params, r->used, r->width, r->height);
    if ((st = submit(s->sp, first, NULL)) != FLOW_OK)
        return compute_failure(st, first->name);
    return CLI_EXIT_OK;
}

/* Deals pair k out once the spread has room (handing on the oldest), then
 * hands on the pairs done meanwhile. */
static int pair(run *r, long k, const source_frame *from, const source_frame *to, int *took)
{
    spread *s = r->spread;
    int rc = CLI_EXIT_OK;
    while (rc == CLI_EXIT_OK && flow_spread_queued(s->sp) == flow_spread_depth(s->sp))
        rc = hand_on(r, s);
    flow_field *field;
    if (rc != CLI_EXIT_OK || (rc = field_for(r, s, k, &field)) != CLI_EXIT_OK)
        return rc;
    const flow_status st = submit(s->sp, to, field);
    if (st != FLOW_OK) {
        char what[8500];
        snprintf(what, sizeof what, "%s -> %s", from->name, to->name);
        if (r->queue)
            output_queue_drop(r->queue, field);
        return compute_failure(st, what);
    }
    s->ring[k % s->size] = (dealt_pair){from, to, field};
    s->dealt = k + 1;
    *took = 1;
    while (rc == CLI_EXIT_OK && flow_spread_ready(s->sp))
        rc = hand_on(r, s);
    return rc;
}

static void report(const run *r, const spread *s)
{
    if (r->o->quiet || r->t.flows < 2)
        return;
    for (int i = 0; i < r->ndevices; i++) {
        long flows;
        double ms;
        flow_spread_stats(s->sp, i, &flows, &ms);
        cli_info("%s: %ld flows, device %.3f ms per flow", flow_device_name(r->devices[i]),
                 flows, flows ? ms / flows : 0.0);
    }
}

static int finish(run *r, int failed)
{
    spread *s = r->spread;
    int rc = CLI_EXIT_OK;
    if (!s)
        return rc;
    while (!failed && rc == CLI_EXIT_OK && s->handed < s->dealt)
        rc = hand_on(r, s);
    if (!failed && rc == CLI_EXIT_OK && s->sp)
        report(r, s);
    /* the work in flight ends before the frames and fields go back */
    flow_spread_destroy(s->sp);
    give_back(r, s);
    if (s->own)
        own_fields_free(r, s->own, s->size);
    free(s->own);
    free(s->ring);
    free(s);
    r->spread = NULL;
    return rc;
}

const run_mode run_mode_spread = {held, start, pair, finish};
