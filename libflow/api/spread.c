/* spread.c -- flow/spread.h: the pairs of a sequence dealt out to the
 * contexts of several devices, a thread each, the flows handed back in the
 * order of submission.
 *
 * The pairs in flight live in a ring indexed by pair number: the caller's
 * thread fills a slot (flow_spread_submit) and the thread of the entry the
 * pair is dealt to marks it done or failed, under one mutex.  Pair k goes
 * to entry k / FLOW_SPREAD_CHUNK mod n.  An entry's thread streams its
 * pairs through its context like a one-device loop (submit, collect, up to
 * FLOW_CONTEXT_DEPTH in flight), and submits a pair's first frame before
 * it when that is not the frame it kept (the first pair of a chunk, or a
 * pair of its own).  A failure stops every thread: each collects what its
 * context has in flight and ends, and the caller's collect reports the
 * failure once they all have. */
#include "flow/spread.h"
#include "base/fail.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A pair is queued, then done, failed (its context refused it or failed
 * on it) or dropped (in flight on a context that failed on a later one). */
typedef enum job_state { JOB_QUEUED, JOB_DONE, JOB_FAILED, JOB_DROPPED } job_state;

/* A frame given to the spread: floats or bytes, and its number among the
 * frames submitted (which tells a thread whether its context keeps it). */
typedef struct frame_ref {
    const flow_image *f;
    const flow_image8 *f8;
    long id;
} frame_ref;

typedef struct job {
    long index;
    frame_ref from, to;
    flow_field *field;
    job_state state;
    float device_ms;
    flow_status status;
    char error[512]; /* flow_last_error() of the entry's thread */
} job;

typedef struct worker {
    flow_spread *sp;
    int index;
    flow_device *d;
    flow_context *ctx;
    pthread_t thread;
    int started;
    long flows;       /* computed here (under the mutex) */
    double device_ms; /* their device time */
} worker;

struct flow_spread {
    worker w[FLOW_SPREAD_DEVICES_MAX];
    int n;
    flow_device *owned[FLOW_SPREAD_DEVICES_MAX]; /* flow_spread_open's devices */
    int nowned;
    int width, height, channels;
    job *ring;
    long size;          /* slots: flow_spread_depth */
    long dealt;         /* pairs submitted */
    long collected;     /* pairs handed back (or dropped after a failure) */
    frame_ref kept;     /* the frame the next pair begins with */
    int has_kept;
    long frames;        /* frames submitted: the next one's id */
    int end;            /* destroying: no pair comes any more */
    long stop_at;       /* the first pair not computed: failed, dropped, or (destroying) any */
    int failed;         /* a failure was collected: the spread takes nothing more */
    int running;        /* threads not ended */
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

int flow_spread_depth_of(int n)
{
    return n * (FLOW_SPREAD_CHUNK + FLOW_CONTEXT_DEPTH) + 1;
}

static int device_of(const flow_spread *sp, long k)
{
    return (int)(k / FLOW_SPREAD_CHUNK % sp->n);
}

/* The pair after k of the same entry. */
static long next_of(const flow_spread *sp, long k)
{
    return (k + 1) % FLOW_SPREAD_CHUNK ? k + 1 : k + 1 + (long)(sp->n - 1) * FLOW_SPREAD_CHUNK;
}

/* Pair j is done (s FLOW_OK), failed (s) or dropped (`dropped`). */
static void job_finish(worker *w, job *j, flow_status s, float device_ms, int dropped)
{
    flow_spread *sp = w->sp;
    pthread_mutex_lock(&sp->mu);
    j->status = s;
    j->device_ms = device_ms;
    if (s == FLOW_OK) {
        w->flows++;
        w->device_ms += device_ms;
        j->state = JOB_DONE;
    } else {
        snprintf(j->error, sizeof j->error, "%s", flow_last_error());
        j->state = dropped ? JOB_DROPPED : JOB_FAILED;
        if (j->index < sp->stop_at)
            sp->stop_at = j->index;
    }
    pthread_cond_broadcast(&sp->cv);
    pthread_mutex_unlock(&sp->mu);
}

static flow_status submit_frame(flow_context *ctx, const frame_ref *f, flow_field *out)
{
    return f->f8 ? flow_context_submit8(ctx, f->f8, out) : flow_context_submit(ctx, f->f, out);
}

/* An entry's thread: its pairs in order, up to FLOW_CONTEXT_DEPTH in
 * flight; a flow is collected when the context is full or when no pair is
 * waiting.  The pairs before the first that failed are still computed; at
 * that one (or at the destroy) it collects what is in flight and ends. */
static void *work(void *arg)
{
    worker *w = arg;
    flow_spread *sp = w->sp;
    job *flight[FLOW_CONTEXT_DEPTH];
    int n = 0;
    long kept = -1; /* the id of the frame the context keeps */
    for (long k = (long)w->index * FLOW_SPREAD_CHUNK;;) {
        pthread_mutex_lock(&sp->mu);
        while (k < sp->stop_at && k >= sp->dealt && !sp->end && n == 0)
            pthread_cond_wait(&sp->cv, &sp->mu);
        const int have = k < sp->stop_at && k < sp->dealt;
        const int over = k >= sp->stop_at || (sp->end && k >= sp->dealt);
        job *j = have ? &sp->ring[k % sp->size] : NULL;
        pthread_mutex_unlock(&sp->mu);
        if (over && n == 0)
            break;
        if (!j || n == FLOW_CONTEXT_DEPTH) { /* collect the oldest */
            float ms = 0;
            const flow_status s = flow_context_collect(w->ctx, NULL, &ms);
            job_finish(w, flight[0], s, ms, 0);
            memmove(flight, flight + 1, sizeof *flight * (size_t)--n);
            if (s != FLOW_OK) { /* the context dropped the rest */
                for (int i = 0; i < n; i++)
                    job_finish(w, flight[i], s, 0, 1);
                n = 0, kept = -1;
            }
            continue;
        }
        flow_status s = FLOW_OK;
        if (j->from.id != kept)
            s = submit_frame(w->ctx, &j->from, NULL);
        if (s == FLOW_OK)
            s = submit_frame(w->ctx, &j->to, j->field);
        if (s != FLOW_OK) { /* the context dropped what it had queued */
            for (int i = 0; i < n; i++)
                job_finish(w, flight[i], s, 0, 1);
            job_finish(w, j, s, 0, 0);
            n = 0, kept = -1;
        } else {
            flight[n++] = j;
            kept = j->to.id;
        }
        k = next_of(sp, k);
    }
    pthread_mutex_lock(&sp->mu);
    sp->running--;
    pthread_cond_broadcast(&sp->cv);
    pthread_mutex_unlock(&sp->mu);
    return NULL;
}

/* Stops the threads and waits for them. */
static void stop_all(flow_spread *sp)
{
    pthread_mutex_lock(&sp->mu);
    sp->end = 1;
    sp->stop_at = -1;
    pthread_cond_broadcast(&sp->cv);
    pthread_mutex_unlock(&sp->mu);
    for (int i = 0; i < sp->n; i++)
        if (sp->w[i].started)
            pthread_join(sp->w[i].thread, NULL);
    for (int i = 0; i < sp->n; i++)
        sp->w[i].started = 0;
}

void flow_spread_destroy(flow_spread *sp)
{
    if (!sp)
        return;
    stop_all(sp);
    for (int i = 0; i < sp->n; i++)
        flow_context_destroy(sp->w[i].ctx);
    flow_devices_close(sp->owned, sp->nowned);
    pthread_cond_destroy(&sp->cv);
    pthread_mutex_destroy(&sp->mu);
    free(sp->ring);
    free(sp);
}

flow_status flow_spread_create(flow_device *const *devices, int n, int width, int height,
                               int channels, const flow_params *p, flow_spread **out)
{
    *out = NULL;
    if (!devices || n < 1 || n > FLOW_SPREAD_DEVICES_MAX)
        return flow_fail(FLOW_ERR_INVALID, "flow_spread_create: %d devices (1 to %d)", n,
                         FLOW_SPREAD_DEVICES_MAX);
    flow_spread *sp = calloc(1, sizeof *sp);
    if (!sp)
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate a spread");
    sp->n = n;
    sp->width = width, sp->height = height, sp->channels = channels;
    sp->size = flow_spread_depth_of(n);
    sp->stop_at = LONG_MAX;
    pthread_mutex_init(&sp->mu, NULL);
    pthread_cond_init(&sp->cv, NULL);
    sp->ring = calloc((size_t)sp->size, sizeof *sp->ring);
    flow_status s = sp->ring ? FLOW_OK : flow_fail(FLOW_ERR_NOMEM, "cannot allocate a spread");
    for (int i = 0; s == FLOW_OK && i < n; i++) {
        sp->w[i] = (worker){.sp = sp, .index = i, .d = devices[i]};
        s = flow_context_create(devices[i], width, height, channels, p, &sp->w[i].ctx);
        if (s != FLOW_OK) {
            char why[900];
            snprintf(why, sizeof why, "%s", flow_last_error());
            s = flow_fail(s, "%s: %s", flow_device_name(devices[i]), why);
        }
    }
    for (int i = 0; s == FLOW_OK && i < n; i++) {
        if (pthread_create(&sp->w[i].thread, NULL, work, &sp->w[i]) != 0) {
            s = flow_fail(FLOW_ERR_NOMEM, "cannot start the thread of %s",
                          flow_device_name(devices[i]));
            break;
        }
        pthread_mutex_lock(&sp->mu);
        sp->running++;
        pthread_mutex_unlock(&sp->mu);
        sp->w[i].started = 1;
    }
    if (s != FLOW_OK) {
        flow_spread_destroy(sp);
        return s;
    }
    *out = sp;
    return FLOW_OK;
}

flow_status flow_spread_open(const char *devices, int width, int height, int channels,
                             const flow_params *p, flow_spread **out)
{
    *out = NULL;
    flow_device *d[FLOW_SPREAD_DEVICES_MAX];
    int n = 0;
    FLOW_TRY(flow_devices_open(devices, d, FLOW_SPREAD_DEVICES_MAX, &n));
    const flow_status s = flow_spread_create(d, n, width, height, channels, p, out);
    if (s != FLOW_OK) {
        flow_devices_close(d, n);
        return s;
    }
    memcpy((*out)->owned, d, sizeof *d * (size_t)n);
    (*out)->nowned = n;
    return FLOW_OK;
}

int flow_spread_devices(const flow_spread *sp)
{
    return sp->n;
}

flow_device *flow_spread_device(const flow_spread *sp, int i)
{
    return i >= 0 && i < sp->n ? sp->w[i].d : NULL;
}

const flow_params *flow_spread_params(const flow_spread *sp)
{
    return flow_context_params(sp->w[0].ctx);
}

int flow_spread_depth(const flow_spread *sp)
{
    return (int)sp->size;
}

int flow_spread_queued(const flow_spread *sp)
{
    return (int)(sp->dealt - sp->collected);
}

int flow_spread_ready(const flow_spread *sp)
{
    flow_spread *m = (flow_spread *)sp; /* the mutex, not the spread, changes */
    pthread_mutex_lock(&m->mu);
    const int ready = sp->collected < sp->dealt
                      && (sp->ring[sp->collected % sp->size].state != JOB_QUEUED
                          || sp->collected >= sp->stop_at);
    pthread_mutex_unlock(&m->mu);
    return ready;
}

void flow_spread_stats(const flow_spread *sp, int i, long *flows, double *device_ms)
{
    flow_spread *m = (flow_spread *)sp;
    pthread_mutex_lock(&m->mu);
    *flows = i >= 0 && i < sp->n ? sp->w[i].flows : 0;
    *device_ms = i >= 0 && i < sp->n ? sp->w[i].device_ms : 0;
    pthread_mutex_unlock(&m->mu);
}

static flow_status check_shape(const flow_spread *sp, int width, int height, int channels,
                               const char *which)
{
    if (width != sp->width || height != sp->height)
        return flow_fail(FLOW_ERR_SIZE, "%s is %dx%d, the spread's frames %dx%d", which, width,
                         height, sp->width, sp->height);
    if (channels >= 0 && channels != sp->channels)
        return flow_fail(FLOW_ERR_SIZE, "%s has %d channels, the spread's frames %d", which,
                         channels, sp->channels);
    return FLOW_OK;
}

/* Takes frame f: the kept frame (out NULL), else the end of a pair from
 * the kept frame into out, dealt out. */
static flow_status take(flow_spread *sp, frame_ref f, flow_field *out)
{
    if (sp->failed)
        return flow_fail(FLOW_ERR_INVALID, "flow_spread_submit: the spread stopped after a "
                                           "failure (destroy it)");
    if (out) {
        if (!out->u || !out->v)
            return flow_fail(FLOW_ERR_INVALID, "flow_spread_submit: the output field is not "
                                               "allocated");
        FLOW_TRY(check_shape(sp, out->width, out->height, -1, "the output field"));
        if (!sp->has_kept)
            return flow_fail(FLOW_ERR_INVALID, "flow_spread_submit: no kept frame to compute "
                                               "the flow from (submit the first frame with no "
                                               "output field)");
        if (flow_spread_queued(sp) == sp->size)
            return flow_fail(FLOW_ERR_INVALID, "flow_spread_submit: %ld flows queued already: "
                                               "collect one first", sp->size);
    }
    f.id = sp->frames++;
    if (out) {
        pthread_mutex_lock(&sp->mu);
        sp->ring[sp->dealt % sp->size] =
            (job){.index = sp->dealt, .from = sp->kept, .to = f, .field = out,
                  .state = JOB_QUEUED};
        sp->dealt++;
        pthread_cond_broadcast(&sp->cv);
        pthread_mutex_unlock(&sp->mu);
    }
    sp->kept = f;
    sp->has_kept = 1;
    return FLOW_OK;
}

flow_status flow_spread_submit(flow_spread *sp, const flow_image *frame, flow_field *out)
{
    if (!frame || !frame->data)
        return flow_fail(FLOW_ERR_INVALID, "flow_spread_submit: the frame is missing");
    FLOW_TRY(check_shape(sp, frame->width, frame->height, frame->channels, "the frame"));
    return take(sp, (frame_ref){.f = frame}, out);
}

flow_status flow_spread_submit8(flow_spread *sp, const flow_image8 *frame, flow_field *out)
{
    if (!frame || !frame->data)
        return flow_fail(FLOW_ERR_INVALID, "flow_spread_submit8: the frame is missing");
    FLOW_TRY(check_shape(sp, frame->width, frame->height, frame->channels, "the frame"));
    return take(sp, (frame_ref){.f8 = frame}, out);
}

flow_status flow_spread_submit_pair(flow_spread *sp, const flow_image *f1, const flow_image *f2,
                                    flow_field *out)
{
    if (!out)
        return flow_fail(FLOW_ERR_INVALID, "flow_spread_submit_pair: no output field");
    if (!f2 || !f2->data)
        return flow_fail(FLOW_ERR_INVALID, "flow_spread_submit_pair: the second frame is "
                                           "missing");
    FLOW_TRY(check_shape(sp, f2->width, f2->height, f2->channels, "the second frame"));
    if (flow_spread_queued(sp) == sp->size) /* before f1 replaces the kept frame */
        return flow_fail(FLOW_ERR_INVALID, "flow_spread_submit: %ld flows queued already: "
                                           "collect one first", sp->size);
    FLOW_TRY(flow_spread_submit(sp, f1, NULL));
    return flow_spread_submit(sp, f2, out);
}

/* The first failed pair from k on: the cause (a dropped pair comes before
 * the failure of its context). */
static long first_failed(const flow_spread *sp, long k)
{
    while (k < sp->dealt && sp->ring[k % sp->size].state != JOB_FAILED)
        k++;
    return k;
}

flow_status flow_spread_collect(flow_spread *sp, flow_spread_flow *out)
{
    memset(out, 0, sizeof *out);
    if (sp->failed)
        return flow_fail(FLOW_ERR_INVALID, "flow_spread_collect: the spread stopped after a "
                                           "failure (destroy it)");
    if (sp->collected == sp->dealt)
        return flow_fail(FLOW_ERR_INVALID, "flow_spread_collect: no flow queued");
    pthread_mutex_lock(&sp->mu);
    job *j = &sp->ring[sp->collected % sp->size];
    while (j->state == JOB_QUEUED && sp->collected < sp->stop_at)
        pthread_cond_wait(&sp->cv, &sp->mu);
    /* a pair not done: the failure is reported once every thread has
     * ended, so that none touches a frame or field any more */
    while (j->state != JOB_DONE && sp->running > 0)
        pthread_cond_wait(&sp->cv, &sp->mu);
    if (j->state == JOB_DONE) {
        *out = (flow_spread_flow){j->field, sp->collected, device_of(sp, sp->collected),
                                  j->device_ms};
        sp->collected++;
        pthread_mutex_unlock(&sp->mu);
        return FLOW_OK;
    }
    const long k = first_failed(sp, sp->collected);
    flow_status s = FLOW_ERR_INVALID;
    char error[sizeof j->error] = "flow_spread_collect: the spread stopped";
    if (k < sp->dealt) {
        const job *f = &sp->ring[k % sp->size];
        s = f->status;
        snprintf(error, sizeof error, "%s", f->error);
        *out = (flow_spread_flow){f->field, k, device_of(sp, k), 0};
    }
    sp->collected = sp->dealt;
    sp->failed = 1;
    pthread_mutex_unlock(&sp->mu);
    return flow_fail(s, "%s", error);
}
