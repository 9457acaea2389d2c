/* test_queues.c -- devices and queues (device/device.h): a queue made from
 * a device shares its operations, names and memory, and runs what is queued
 * on it in order; the graph cache that contexts and trackers share
 * (core/graphs.h), over a device whose capture and replay are counted:
 * recorded once per variant and replayed after, direct runs when asked, when
 * disabled or after a failed recording, graphs dropped and freed; contexts
 * and a tracker on one device, each on its own queue and driven from its own
 * thread at the same time, give bit for bit the results of each alone, and
 * markers and synchronisation on the device work meanwhile.  On the device
 * under test (FLOW_DEVICE). */
#include "harness.h"
#include "core/graphs.h"
#include "device/device.h"
#include "flow/flow.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static void test_queue_handle(void)
{
    flow_device *d = harness_device();
    if (!d)
        return;
    flow_device *q = NULL, *qq = NULL;
    CHECK_OK(flow_queue_open(d, &q));
    if (!q)
        return;
    CHECK(q->owner == d && q->ops == d->ops && q->index == d->index);
    CHECK(strcmp(flow_device_name(q), flow_device_name(d)) == 0);
    CHECK(strcmp(flow_device_kind(q), flow_device_kind(d)) == 0);
    CHECK(q->impl != NULL && q->impl != d->impl);
    /* a queue of a queue belongs to the device */
    CHECK_OK(flow_queue_open(q, &qq));
    CHECK(qq && qq->owner == d);
    /* in order on the queue: the fill, then the copy of it, then the sum */
    flow_plane a, b;
    CHECK_OK(flow_plane_alloc(d, &a, 37, 23));
    CHECK_OK(flow_plane_alloc(q, &b, 37, 23));
    const flow_fill_args fa = { a, 2.0f };
    CHECK_OK(flow_k_fill(q, &fa));
    CHECK_OK(flow_copy(q, &b, &a));
    double sum = 0;
    CHECK_OK(flow_sum_squares(q, &b, &sum));
    CHECK(sum == 4.0 * 37 * 23);
    /* memory is the device's: what one queue wrote, another reads once
     * the writer has synchronised */
    const flow_fill_args fb = { b, 3.0f };
    CHECK_OK(flow_k_fill(qq, &fb));
    CHECK_OK(qq->ops->synchronize(qq));
    CHECK_OK(flow_sum_squares(d, &b, &sum));
    CHECK(sum == 9.0 * 37 * 23);
    flow_plane_free(q, &a);
    flow_plane_free(d, &b);
    flow_queue_close(qq);
    flow_queue_close(q);
    flow_queue_close(NULL);
}

/* ---- the graph cache over a counting device ---- */
static struct {
    int begins, ends, launches, destroyed, fail_next;
    int runs, captured_runs; /* work() called, and while recording */
    int graph_stages;        /* "graph" stages reported */
    int tokens[64];
    int ntokens;
} g_count;

static flow_status count_begin(flow_device *d)
{
    (void)d;
    g_count.begins++;
    return FLOW_OK;
}

static flow_status count_end(flow_device *d, void **graph)
{
    (void)d;
    g_count.ends++;
    *graph = NULL;
    if (g_count.fail_next) {
        g_count.fail_next = 0;
        return FLOW_ERR_DEVICE;
    }
    *graph = &g_count.tokens[g_count.ntokens++ % 64];
    return FLOW_OK;
}

static flow_status count_launch(flow_device *d, void *graph)
{
    (void)d, (void)graph;
    g_count.launches++;
    return FLOW_OK;
}

static void count_destroy(flow_device *d, void *graph)
{
    (void)d, (void)graph;
    g_count.destroyed++;
}

static flow_exec *g_ex;
static flow_status work(void *user)
{
    (void)user;
    g_count.runs++;
    g_count.captured_runs += g_ex->capturing;
    return FLOW_OK;
}

static void on_stage(void *user, const char *name)
{
    (void)user;
    g_count.graph_stages += strcmp(name, "graph") == 0;
}

static void test_graph_cache(void)
{
    flow_device *d = harness_device();
    if (!d)
        return;
    flow_device_ops ops = *d->ops;
    ops.capture_begin = count_begin;
    ops.capture_end = count_end;
    ops.graph_launch = count_launch;
    ops.graph_destroy = count_destroy;
    flow_device fake = *d;
    fake.ops = &ops;
    flow_exec ex;
    memset(&ex, 0, sizeof ex);
    ex.dev = &fake;
    ex.obs.stage_begin = on_stage;
    g_ex = &ex;
    memset(&g_count, 0, sizeof g_count);
    flow_graphs g;
    flow_graphs_init(&g);

    /* the first run records (running nothing) and replays */
    CHECK_OK(flow_graphs_run(&g, &ex, 0, 0, work, NULL));
    CHECK(g.used == 1 && g_count.begins == 1 && g_count.ends == 1 && g_count.launches == 1);
    CHECK(g_count.runs == 1 && g_count.captured_runs == 1 && g_count.graph_stages == 1);
    CHECK(ex.capturing == 0);
    /* later runs replay */
    CHECK_OK(flow_graphs_run(&g, &ex, 0, 0, work, NULL));
    CHECK(g.used == 1 && g_count.begins == 1 && g_count.launches == 2 && g_count.runs == 1);
    /* another variant is recorded apart */
    CHECK_OK(flow_graphs_run(&g, &ex, 1, 0, work, NULL));
    CHECK(g.used == 1 && g_count.begins == 2 && g_count.launches == 3 && g_count.runs == 2);
    CHECK(g.graph[0] && g.graph[1] && g.graph[0] != g.graph[1]);
    /* direct when the caller asks, the graphs kept */
    CHECK_OK(flow_graphs_run(&g, &ex, 0, 1, work, NULL));
    CHECK(g.used == 0 && g_count.runs == 3 && g_count.captured_runs == 2);
    CHECK(g_count.launches == 3 && g.graph[0]);
    /* disabled: the graphs dropped, every run direct */
    flow_graphs_set(&g, &fake, 0);
    CHECK(g_count.destroyed == 2 && !g.graph[0] && !g.graph[1]);
    CHECK_OK(flow_graphs_run(&g, &ex, 0, 0, work, NULL));
    CHECK(g.used == 0 && g_count.begins == 2 && g_count.runs == 4);
    /* enabled again: recorded again */
    flow_graphs_set(&g, &fake, 1);
    CHECK_OK(flow_graphs_run(&g, &ex, 0, 0, work, NULL));
    CHECK(g.used == 1 && g_count.begins == 3 && g_count.launches == 4);
    /* a failed recording: the work runs directly, then and from then on */
    g_count.fail_next = 1;
    const int runs = g_count.runs;
    CHECK_OK(flow_graphs_run(&g, &ex, 1, 0, work, NULL));
    CHECK(g.used == 0 && g.failed == 1 && !g.graph[1]);
    CHECK(g_count.runs == runs + 2 && g_count.captured_runs == 4); /* recorded, then direct */
    CHECK_OK(flow_graphs_run(&g, &ex, 0, 0, work, NULL));
    CHECK(g.used == 0 && g_count.begins == 4 && g_count.launches == 4);
    /* set forgets the failure */
    flow_graphs_set(&g, &fake, 1);
    CHECK(g.failed == 0);
    CHECK_OK(flow_graphs_run(&g, &ex, 1, 0, work, NULL));
    CHECK(g.used == 1 && g_count.begins == 5);
    /* every recorded graph is freed once */
    flow_graphs_free(&g, &fake);
    CHECK(g_count.destroyed == g_count.ends - 1); /* all but the failed one */
    CHECK(!g.graph[0] && !g.graph[1]);

    /* a device that cannot record runs directly */
    ops.capture_begin = NULL;
    flow_graphs_init(&g);
    const int begins = g_count.begins;
    CHECK_OK(flow_graphs_run(&g, &ex, 0, 0, work, NULL));
    CHECK(g.used == 0 && g_count.begins == begins);
    flow_graphs_free(&g, &fake);
}

/* ---- contexts and a tracker in threads ---- */
#define W 83
#define H 61
#define FLOWS 4

static const char *const methods[] = { "robust", "clg-nl", "dis" };
#define NMETHODS 3

static flow_image frames[FLOWS + 1];
static flow_field alone[NMETHODS][FLOWS];
static flow_track_point alone_points[FLOWS + 1][400];
static int alone_npoints[FLOWS + 1];

typedef struct job {
    int method; /* index into methods, or -1: the tracker */
    int compare; /* against alone[][] (else fill it) */
    int mismatches;
    flow_status status;
} job;

static flow_status run_context(job *j)
{
    flow_params *p = NULL;
    flow_context *ctx = NULL;
    flow_field out = { 0 };
    flow_status s = flow_params_create(methods[j->method], &p);
    if (s == FLOW_OK)
        s = flow_context_create(harness_device(), W, H, 1, p, &ctx);
    if (s == FLOW_OK)
        s = flow_field_alloc(&out, W, H);
    for (int k = 0; k < FLOWS && s == FLOW_OK; k++) {
        s = k == 0 ? flow_context_compute(ctx, &frames[0], &frames[1], &out)
                   : flow_context_compute_next(ctx, &frames[k + 1], &out);
        if (s != FLOW_OK)
            break;
        flow_field *want = &alone[j->method][k];
        const size_t bytes = (size_t)W * H * sizeof(float);
        if (!j->compare) {
            s = flow_field_alloc(want, W, H);
            if (s == FLOW_OK)
                memcpy(want->u, out.u, bytes), memcpy(want->v, out.v, bytes);
        } else
            j->mismatches += memcmp(want->u, out.u, bytes) != 0 || memcmp(want->v, out.v, bytes) != 0;
    }
    flow_field_free(&out);
    flow_context_destroy(ctx);
    flow_params_destroy(p);
    return s;
}

static flow_status run_tracker(job *j)
{
    flow_track_params tp;
    flow_track_defaults(&tp);
    tp.features = 200;
    tp.min_distance = 4;
    flow_tracker *t = NULL;
    flow_status s = flow_tracker_create(harness_device(), W, H, &tp, &t);
    for (int k = 0; k <= FLOWS && s == FLOW_OK; k++) {
        s = flow_tracker_next(t, &frames[k]);
        if (s != FLOW_OK)
            break;
        int n = 0;
        const flow_track_point *pts = flow_tracker_points(t, &n);
        if (n > 400)
            n = 400;
        if (!j->compare) {
            alone_npoints[k] = n;
            memcpy(alone_points[k], pts, (size_t)n * sizeof *pts);
        } else
            j->mismatches += n != alone_npoints[k]
                             || memcmp(alone_points[k], pts, (size_t)n * sizeof *pts) != 0;
    }
    flow_tracker_destroy(t);
    return s;
}

static void *run_job(void *arg)
{
    job *j = arg;
    j->status = j->method < 0 ? run_tracker(j) : run_context(j);
    return NULL;
}

static void test_contexts_in_threads(void)
{
    flow_device *d = harness_device();
    if (!d)
        return;
    const flow_synth sy = { .motion = FLOW_SYNTH_SMOOTH, .amplitude = 1.2, .wavelength = 30,
                            .seed = 5 };
    for (int k = 0; k <= FLOWS; k++)
        CHECK_OK(flow_synth_frame(&sy, W, H, 1, k, &frames[k]));
    /* each alone, one after the other */
    job solo[NMETHODS + 1];
    for (int m = -1; m < NMETHODS; m++) {
        job *j = &solo[m + 1];
        memset(j, 0, sizeof *j);
        j->method = m;
        run_job(j);
        CHECK_OK(j->status);
    }
    /* all at once, twice each, a thread each, with device-wide markers and
     * synchronisation from this thread meanwhile */
    enum { COPIES = 2, NJOBS = COPIES * (NMETHODS + 1) };
    job jobs[NJOBS];
    pthread_t th[NJOBS];
    int started[NJOBS];
    flow_event *e0 = NULL, *e1 = NULL;
    CHECK_OK(flow_event_create(d, &e0));
    CHECK_OK(flow_event_create(d, &e1));
    if (e0)
        CHECK_OK(flow_event_record(e0));
    for (int i = 0; i < NJOBS; i++) {
        memset(&jobs[i], 0, sizeof jobs[i]);
        jobs[i].method = i % (NMETHODS + 1) - 1;
        jobs[i].compare = 1;
        started[i] = pthread_create(&th[i], NULL, run_job, &jobs[i]) == 0;
        CHECK(started[i]);
    }
    CHECK_OK(flow_device_synchronize(d));
    if (e1) {
        CHECK_OK(flow_event_record(e1));
        float ms = -1;
        CHECK_OK(flow_event_elapsed(e0, e1, &ms));
        CHECK(ms >= 0);
    }
    for (int i = 0; i < NJOBS; i++)
        if (started[i]) {
            pthread_join(th[i], NULL);
            CHECK_OK(jobs[i].status);
            CHECK(jobs[i].mismatches == 0);
            if (jobs[i].mismatches)
                printf("  %s in a thread: %d results differ from those alone\n",
                       jobs[i].method < 0 ? "tracker" : methods[jobs[i].method],
                       jobs[i].mismatches);
        }
    CHECK_OK(flow_device_synchronize(d));
    flow_event_destroy(e0);
    flow_event_destroy(e1);
    for (int m = 0; m < NMETHODS; m++)
        for (int k = 0; k < FLOWS; k++)
            flow_field_free(&alone[m][k]);
    for (int k = 0; k <= FLOWS; k++)
        flow_image_free(&frames[k]);
}

int main(void)
{
    RUN(test_queue_handle);
    RUN(test_graph_cache);
    RUN(test_contexts_in_threads);
    return harness_report();
}
