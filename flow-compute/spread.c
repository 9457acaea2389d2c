/* spread.c -- the spread mode of flow-compute's loop (run.h), for several
 * devices (--device cuda:all, cuda:0,1, ...).  The loop (the caller) takes
 * the frames in order and the mode deals the pairs out in chunks of
 * SPREAD_CHUNK consecutive ones, chunk after chunk to the next device; each
 * device has a thread and a context of its own that streams its pairs like
 * the one-device loop (submit, collect), uploading a chunk's first frame
 * besides one frame per flow.  Every flow is computed by the same code from
 * the same two frames as on one device, so the files are the same; the
 * caller hands the flows on in pair order, so they are named, counted and
 * written as a one-device run would.
 *
 * The pairs in flight live in a ring indexed by pair number: the reading
 * thread fills a slot and the device's thread marks it done, under one
 * mutex; a frame goes back to the source when the pair it starts is handed
 * on (the pair before it, which ends with it, is handed on before). */
#include "run.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Consecutive pairs per device in turn: each chunk uploads one frame more
 * than it has pairs, so longer chunks cost fewer uploads, shorter ones keep
 * the devices evenly busy at the end of a sequence. */
#define SPREAD_CHUNK 4
/* Pairs dealt out and not handed on, per device. */
#define SPREAD_AHEAD (SPREAD_CHUNK + FLOW_CONTEXT_DEPTH)

typedef enum job_state { JOB_QUEUED, JOB_DONE, JOB_FAILED } job_state;

typedef struct job {
    const source_frame *from, *to;
    flow_field *field;
    job_state state;
    float device_ms;
    flow_status status;
    char error[512]; /* flow_last_error() of the device's thread */
} job;

typedef struct worker {
    spread *sp;
    int index;
    flow_device *d;
    flow_context *ctx;
    pthread_t thread;
    int started;
    long flows;       /* computed here */
    double device_ms; /* their device time */
} worker;

struct spread {
    run *r;
    worker w[CLI_DEVICES_MAX];
    int n;
    job *ring;
    long size;       /* ring slots: every pair between the oldest not handed on and the newest */
    long dealt;      /* pairs dealt out */
    long handed;     /* pairs handed on */
    int end, stop;   /* no more pairs; a failure: stop computing */
    flow_field *own; /* the fields computed into without -o, one per slot */
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

static long held(int n)
{
    return (long)n * SPREAD_AHEAD + 1;
}

static int device_of(const spread *sp, long k)
{
    return (int)(k / SPREAD_CHUNK % sp->n);
}

/* The pair after k of the same device. */
static long next_of(const spread *sp, long k)
{
    return (k + 1) % SPREAD_CHUNK ? k + 1 : k + 1 + (long)(sp->n - 1) * SPREAD_CHUNK;
}

static void job_finish(spread *sp, job *j, flow_status s, float device_ms)
{
    pthread_mutex_lock(&sp->mu);
    j->status = s;
    j->device_ms = device_ms;
    if (s != FLOW_OK) {
        snprintf(j->error, sizeof j->error, "%s", flow_last_error());
        sp->stop = 1;
    }
    j->state = s == FLOW_OK ? JOB_DONE : JOB_FAILED;
    pthread_cond_broadcast(&sp->cv);
    pthread_mutex_unlock(&sp->mu);
}

/* A device's thread: its pairs in order, up to FLOW_CONTEXT_DEPTH in
 * flight; a flow is collected when the context is full or when no pair is
 * waiting. */
static void *work(void *arg)
{
    worker *w = arg;
    spread *sp = w->sp;
    job *flight[FLOW_CONTEXT_DEPTH];
    int n = 0;
    const source_frame *kept = NULL;
    for (long k = (long)w->index * SPREAD_CHUNK;;) {
        pthread_mutex_lock(&sp->mu);
        while (!sp->stop && k >= sp->dealt && !sp->end && n == 0)
            pthread_cond_wait(&sp->cv, &sp->mu);
        const int have = !sp->stop && k < sp->dealt;
        const int over = sp->stop || (sp->end && k >= sp->dealt);
        job *j = have ? &sp->ring[k % sp->size] : NULL;
        pthread_mutex_unlock(&sp->mu);
        if (over && n == 0)
            break;
        if (!j || n == FLOW_CONTEXT_DEPTH) { /* collect the oldest */
            float ms = 0;
            const flow_status s = flow_context_collect(w->ctx, NULL, &ms);
            if (s == FLOW_OK)
                w->flows++, w->device_ms += ms;
            job_finish(sp, flight[0], s, ms);
            memmove(flight, flight + 1, sizeof *flight * (size_t)--n);
            if (s != FLOW_OK) {
                for (int i = 0; i < n; i++)
                    job_finish(sp, flight[i], s, 0);
                n = 0, kept = NULL;
            }
            continue;
        }
        flow_status s = FLOW_OK;
        if (j->from != kept) /* the first pair of a chunk */
            s = submit_frame(w->ctx, j->from, NULL);
        if (s == FLOW_OK)
            s = submit_frame(w->ctx, j->to, j->field);
        if (s != FLOW_OK) { /* the context dropped what it had queued */
            for (int i = 0; i < n; i++)
                job_finish(sp, flight[i], s, 0);
            job_finish(sp, j, s, 0);
            n = 0, kept = NULL;
        } else {
            flight[n++] = j;
            kept = j->to;
        }
        k = next_of(sp, k);
    }
    return NULL;
}

/* After a failure the devices stop: the first failed pair's message, its
 * exit code. */
static int failure(spread *sp, long from)
{
    for (long k = from; k < sp->dealt; k++) {
        job *j = &sp->ring[k % sp->size];
        if (j->state == JOB_FAILED) {
            char what[9000];
            snprintf(what, sizeof what, "%s -> %s (%s)", j->from->name, j->to->name,
                     flow_device_name(sp->w[device_of(sp, k)].d));
            return report_failure(j->status, what, j->error); /* the device thread's message */
        }
    }
    return CLI_EXIT_COMPUTE; /* not reached: a stop follows a failed pair */
}

/* Hands on pair k (done): its flow, then its first frame back. */
static int hand_on(spread *sp, long k)
{
    run *r = sp->r;
    job *j = &sp->ring[k % sp->size];
    int rc;
    if (j->state == JOB_FAILED) {
        rc = failure(sp, k);
        if (r->queue)
            output_queue_drop(r->queue, j->field);
    } else {
        r->t.compute_ms += j->device_ms;
        rc = pair_done(r, sp->w[device_of(sp, k)].d, j->field, &j->from->image,
                       j->from->number, j->from->name, j->to->name, NULL);
    }
    source_give_back(r->src, j->from);
    return rc;
}

/* Hands on the pairs done, in order from *next; with `wait`, until pair
 * `until` is handed on (waiting for the devices). */
static int hand_on_done(spread *sp, long *next, long until, int wait)
{
    int rc = CLI_EXIT_OK;
    while (*next < sp->dealt && rc == CLI_EXIT_OK) {
        pthread_mutex_lock(&sp->mu);
        job *j = &sp->ring[*next % sp->size];
        while (wait && *next < until && j->state == JOB_QUEUED && !sp->stop)
            pthread_cond_wait(&sp->cv, &sp->mu);
        const int done = j->state == JOB_DONE || j->state == JOB_FAILED;
        const int stopped = sp->stop;
        pthread_mutex_unlock(&sp->mu);
        if (!done)
            return stopped ? failure(sp, *next) : CLI_EXIT_OK;
        rc = hand_on(sp, (*next)++);
    }
    return rc;
}

/* The field of pair k: the writers' (-o), else the slot's own. */
static int field_for(spread *sp, long k, flow_field **f)
{
    run *r = sp->r;
    if (r->queue)
        return take_field(r, k, f);
    flow_field *own = &sp->own[k % sp->size];
    if (!own->u) {
        if (flow_field_alloc(own, r->width, r->height) != FLOW_OK)
            return compute_failure(FLOW_ERR_NOMEM, "flow field");
        field_pin(r->d, own);
    }
    *f = own;
    return CLI_EXIT_OK;
}

/* The ring; a context per device, the first the run's own (r->ctx, whose
 * parameters the .params files record); then the threads.  What a failure
 * leaves, finish frees. */
static int start(run *r, const source_frame *first)
{
    spread *sp = r->spread = calloc(1, sizeof *r->spread);
    if (!sp)
        return compute_failure(FLOW_ERR_NOMEM, "the pairs in flight");
    sp->r = r;
    sp->n = r->ndevices;
    sp->size = held(sp->n);
    for (int i = 0; i < sp->n; i++)
        sp->w[i] = (worker){.sp = sp, .index = i, .d = r->devices[i]};
    pthread_mutex_init(&sp->mu, NULL);
    pthread_cond_init(&sp->cv, NULL);
    sp->ring = calloc((size_t)sp->size, sizeof *sp->ring);
    if (!sp->ring)
        return compute_failure(FLOW_ERR_NOMEM, "the pairs in flight");
    int rc = create_context(r, first);
    if (rc != CLI_EXIT_OK)
        return rc;
    int channels, width, height;
    frame_shape(first, &width, &height, &channels);
    sp->w[0].ctx = r->ctx;
    for (int i = 1; i < sp->n; i++) {
        const flow_status s = flow_context_create(sp->w[i].d, width, height, channels,
                                                  r->o->params, &sp->w[i].ctx);
        if (s != FLOW_OK) {
            char what[4300];
            snprintf(what, sizeof what, "%s (%s)", first->name, flow_device_name(sp->w[i].d));
            return compute_failure(s, what);
        }
    }
    sp->own = r->queue ? NULL : calloc((size_t)sp->size, sizeof *sp->own);
    if (!r->queue && !sp->own)
        return compute_failure(FLOW_ERR_NOMEM, "flow fields");
    for (int i = 0; i < sp->n; i++) {
        if (pthread_create(&sp->w[i].thread, NULL, work, &sp->w[i]) != 0) {
            cli_error("cannot start the thread of %s", flow_device_name(sp->w[i].d));
            return CLI_EXIT_COMPUTE;
        }
        sp->w[i].started = 1;
    }
    return CLI_EXIT_OK;
}

/* Stops the threads (after a failure, with `stop`), frees the contexts
 * but the run's and the fields; the frames and fields of pairs not handed
 * on go back. */
static void stop(spread *sp, long next, int failed)
{
    run *r = sp->r;
    pthread_mutex_lock(&sp->mu);
    sp->end = 1;
    sp->stop |= failed;
    pthread_cond_broadcast(&sp->cv);
    pthread_mutex_unlock(&sp->mu);
    for (int i = 0; i < sp->n; i++)
        if (sp->w[i].started)
            pthread_join(sp->w[i].thread, NULL);
    for (long k = next; k < sp->dealt; k++) {
        job *j = &sp->ring[k % sp->size];
        source_give_back(r->src, j->from);
        if (r->queue)
            output_queue_drop(r->queue, j->field);
    }
    for (int i = 1; i < sp->n; i++)
        flow_context_destroy(sp->w[i].ctx);
    if (sp->own)
        for (long k = 0; k < sp->size; k++) {
            field_unpin(r->d, &sp->own[k]);
            flow_field_free(&sp->own[k]);
        }
    free(sp->own);
}

static void report(const spread *sp)
{
    const run *r = sp->r;
    if (r->o->quiet || r->t.flows < 2)
        return;
    for (int i = 0; i < sp->n; i++)
        cli_info("%s: %ld flows, device %.3f ms per flow", flow_device_name(sp->w[i].d),
                 sp->w[i].flows, sp->w[i].flows ? sp->w[i].device_ms / sp->w[i].flows : 0.0);
}

/* Deals pair k out: after the pair k - size (whose slot it takes) is
 * handed on; then hands on the pairs done meanwhile. */
static int pair(run *r, long k, const source_frame *from, const source_frame *to, int *took)
{
    spread *sp = r->spread;
    int rc = hand_on_done(sp, &sp->handed, k - sp->size + 1, 1);
    if (rc != CLI_EXIT_OK)
        return rc;
    flow_field *field;
    if ((rc = field_for(sp, k, &field)) != CLI_EXIT_OK)
        return rc;
    pthread_mutex_lock(&sp->mu);
    sp->ring[k % sp->size] = (job){.from = from, .to = to, .field = field, .state = JOB_QUEUED};
    sp->dealt = k + 1;
    pthread_cond_broadcast(&sp->cv);
    pthread_mutex_unlock(&sp->mu);
    *took = 1;
    return hand_on_done(sp, &sp->handed, 0, 0);
}

static int finish(run *r, int failed)
{
    spread *sp = r->spread;
    int rc = CLI_EXIT_OK;
    if (!sp)
        return rc;
    if (!failed) {
        pthread_mutex_lock(&sp->mu);
        sp->end = 1;
        pthread_cond_broadcast(&sp->cv);
        pthread_mutex_unlock(&sp->mu);
        rc = hand_on_done(sp, &sp->handed, sp->dealt, 1);
    }
    stop(sp, sp->handed, failed || rc != CLI_EXIT_OK);
    if (!failed && rc == CLI_EXIT_OK)
        report(sp);
    pthread_cond_destroy(&sp->cv);
    pthread_mutex_destroy(&sp->mu);
    free(sp->ring);
    free(sp);
    r->spread = NULL;
    return rc;
}

const run_mode run_mode_spread = {held, start, pair, finish};
