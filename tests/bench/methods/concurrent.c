/* concurrent.c -- bench_methods' concurrent streams: 1, 2, 4 and 8
 * contexts of robust and of dis (medium) at 640x480 on the one device, each
 * streamed from a host thread of its own as the seq column streams one
 * (submit8/collect, FLOW_CONTEXT_DEPTH flows in flight, page-locked): flows per second of
 * all streams together (wall time from a common start to the last collect)
 * against one stream alone. */
#include "bench.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- concurrent streams --------------------------------------------------
 * Each stream: a context on its own queue, driven by its own thread. */
#define CONC_MAX 8

typedef struct conc_stream {
    flow_context *ctx;
    flow_image8 f8[2];
    flow_field fld[FLOW_CONTEXT_DEPTH];
    int warm, flows;
    atomic_int *ready, *go; /* streams warmed up; all may start */
    double t0, t1;
    int ok;
} conc_stream;

/* n flows of the sequence a c a c ... (continuing it), FLOW_CONTEXT_DEPTH
 * in flight. */
static int stream_flows(conc_stream *c, int n, int *next)
{
    int ok = 1, done = 0;
    for (int i = 0; ok && done < n; i++) {
        if (i < n) {
            const int k = (*next)++;
            ok = flow_context_submit8(c->ctx, &c->f8[k % 2], &c->fld[k % FLOW_CONTEXT_DEPTH])
                 == FLOW_OK;
        }
        if (ok && (flow_context_queued(c->ctx) == FLOW_CONTEXT_DEPTH || i >= n - 1)) {
            ok = flow_context_collect(c->ctx, NULL, NULL) == FLOW_OK;
            done++;
        }
    }
    return ok;
}

static void *conc_run(void *arg)
{
    conc_stream *c = arg;
    int next = 1;
    c->ok = flow_context_submit8(c->ctx, &c->f8[0], NULL) == FLOW_OK
            && stream_flows(c, c->warm, &next);
    atomic_fetch_add(c->ready, 1);
    const struct timespec pause = { 0, 20000 };
    while (!atomic_load(c->go))
        nanosleep(&pause, NULL);
    c->t0 = now_ms();
    c->ok = c->ok && stream_flows(c, c->flows, &next);
    c->t1 = now_ms();
    return NULL;
}

static void conc_free(conc_stream *c)
{
    for (int k = 0; k < FLOW_CONTEXT_DEPTH; k++) {
        if (c->fld[k].u) {
            flow_device_unpin(bench_dev, c->fld[k].u);
            flow_device_unpin(bench_dev, c->fld[k].v);
        }
        flow_field_free(&c->fld[k]);
    }
    for (int k = 0; k < 2; k++) {
        if (c->f8[k].data)
            flow_device_unpin(bench_dev, c->f8[k].data);
        flow_image8_free(&c->f8[k]);
    }
    flow_context_destroy(c->ctx);
}

/* Flows per second of n streams of run at once (0 when one failed). */
static double conc_flows_per_s(const method_run *run, int n, const flow_image *a,
                               const flow_image *c, int flows)
{
    conc_stream st[CONC_MAX];
    pthread_t th[CONC_MAX];
    atomic_int ready, go;
    atomic_init(&ready, 0);
    atomic_init(&go, 0);
    memset(st, 0, sizeof st);
    flow_params *p = run_params(run);
    int ok = p != NULL;
    const size_t fbytes = (size_t)a->width * a->height * sizeof(float);
    const size_t ibytes = (size_t)a->width * a->height;
    for (int i = 0; ok && i < n; i++) {
        ok = flow_context_create(bench_dev, a->width, a->height, 1, p, &st[i].ctx) == FLOW_OK
             && to_bytes(a, &st[i].f8[0]) && to_bytes(c, &st[i].f8[1]);
        for (int k = 0; ok && k < 2; k++)
            ok = flow_device_pin(bench_dev, st[i].f8[k].data, ibytes) == FLOW_OK;
        for (int k = 0; ok && k < FLOW_CONTEXT_DEPTH; k++)
            ok = flow_field_alloc(&st[i].fld[k], a->width, a->height) == FLOW_OK
                 && flow_device_pin(bench_dev, st[i].fld[k].u, fbytes) == FLOW_OK
                 && flow_device_pin(bench_dev, st[i].fld[k].v, fbytes) == FLOW_OK;
        st[i].warm = 5, st[i].flows = flows, st[i].ready = &ready, st[i].go = &go;
    }
    flow_params_destroy(p);
    int started = 0;
    for (; ok && started < n; started++)
        if (pthread_create(&th[started], NULL, conc_run, &st[started]) != 0) {
            fprintf(stderr, "bench: cannot start %d threads\n", n);
            ok = 0;
            break;
        }
    /* a common start once every stream has warmed up */
    const struct timespec pause = { 0, 20000 };
    while (atomic_load(&ready) < started)
        nanosleep(&pause, NULL);
    atomic_store(&go, 1);
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    double t0 = 1e300, t1 = 0;
    for (int i = 0; i < n; i++) {
        ok = ok && i < started && st[i].ok;
        if (st[i].t0 < t0)
            t0 = st[i].t0;
        if (st[i].t1 > t1)
            t1 = st[i].t1;
        conc_free(&st[i]);
    }
    if (!ok)
        fprintf(stderr, "bench: concurrent streams: %s\n", flow_last_error());
    return ok ? n * flows / ((t1 - t0) * 1e-3) : 0;
}

int conc_table(int quick)
{
    static const method_run runs[] = { { "robust", "robust", NULL, 0, 0, NULL },
                                       { "dis medium", "dis", NULL, 0, 0, "medium" } };
    static const int counts[] = { 1, 2, 4, CONC_MAX };
    const char *only = getenv("FLOW_BENCH_ONLY");
    flow_synth s = { .motion = FLOW_SYNTH_SMOOTH, .amplitude = 1.0, .wavelength = 60, .seed = 9 };
    flow_image a, c;
    if (flow_synth_frame(&s, 640, 480, 1, 0, &a) != FLOW_OK
        || flow_synth_frame(&s, 640, 480, 1, 1, &c) != FLOW_OK) {
        fprintf(stderr, "bench: %s\n", flow_last_error());
        return 1;
    }
    /* the counting table is not for threads: the streams use the device's own */
    const flow_device_ops *counted = bench_dev->ops;
    bench_dev->ops = real_ops;
    const int flows = quick ? 4 : 300;
    int failed = 0, header = 0;
    for (size_t m = 0; m < sizeof runs / sizeof runs[0]; m++) {
        if (only && !strstr(runs[m].name, only))
            continue;
        if (!header++)
            printf("\nconcurrent streams (640x480 gray, a context and a host thread per stream, "
                   "each streamed as in seq ms; %d flows per stream):\n\n"
                   "| method | streams | flows/s | x one stream |\n|---|---|---|---|\n",
                   flows);
        double one = 0;
        for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
            const double rate = conc_flows_per_s(&runs[m], counts[k], &a, &c, flows);
            if (k == 0)
                one = rate;
            printf("| %s | %d | %.1f | %.2f |\n", runs[m].name, counts[k], rate,
                   one > 0 ? rate / one : 0);
            failed += rate <= 0;
        }
    }
    bench_dev->ops = counted;
    flow_image_free(&a), flow_image_free(&c);
    return failed != 0;
}
