/* test_concurrent.c -- two contexts on one GPU, each driven from a thread
 * of its own, run at the same time: each context queues its work on a queue
 * of its own (device/device.h: its own streams), so their work overlaps.
 *
 * Two contexts of method robust on 320x240 frames stream a sequence of
 * NFRAMES frames ROUNDS times (submit, then collect with the flow's device
 * time, measured by the context's own events on its own queue).  Shown:
 *   - every flow, alone or concurrent, equals bit for bit the flow of the
 *     same pair computed by a lone context before;
 *   - overlap on the GPU: run together, the device times of the two
 *     contexts' flows (each an interval on the GPU) add up to more than the
 *     wall time of the whole run, which intervals that never overlap cannot;
 *   - the point of it: the two together take clearly less wall time than
 *     each alone, one after the other (under 0.8 of the sum).
 * Skipped without a CUDA device; runs under `make test-gpu`. */
#include "harness.h"
#include "flow/flow.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define W 320
#define H 240
#define NFRAMES 9
#define ROUNDS 20

static flow_image frames[NFRAMES];
static flow_field ref[NFRAMES - 1];

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

typedef struct stream {
    flow_context *ctx;
    flow_field out;
    int rounds;
    double wall_ms, device_ms; /* host wall time of the run, sum of device times */
    int mismatches;
    flow_status status;
} stream;

static int same_flow(const flow_field *a, const flow_field *b)
{
    const size_t bytes = (size_t)W * H * sizeof(float);
    return memcmp(a->u, b->u, bytes) == 0 && memcmp(a->v, b->v, bytes) == 0;
}

/* The sequence, `rounds` times: each frame submitted, each flow collected
 * with its device time and compared with ref. */
static void *run_stream(void *arg)
{
    stream *s = arg;
    s->device_ms = 0;
    s->mismatches = 0;
    flow_status st = FLOW_OK;
    const double t0 = now_ms();
    for (int r = 0; r < s->rounds && st == FLOW_OK; r++)
        for (int k = 0; k < NFRAMES && st == FLOW_OK; k++) {
            st = flow_context_submit(s->ctx, &frames[k], k ? &s->out : NULL);
            float ms = 0;
            if (st == FLOW_OK && k)
                st = flow_context_collect(s->ctx, NULL, &ms);
            if (st == FLOW_OK && k) {
                s->device_ms += ms;
                s->mismatches += !same_flow(&s->out, &ref[k - 1]);
            }
        }
    s->wall_ms = now_ms() - t0;
    s->status = st;
    return NULL;
}

static flow_status open_stream(flow_device *d, const flow_params *p, stream *s)
{
    memset(s, 0, sizeof *s);
    const flow_status st = flow_context_create(d, W, H, 1, p, &s->ctx);
    return st != FLOW_OK ? st : flow_field_alloc(&s->out, W, H);
}

static void close_stream(stream *s)
{
    flow_context_destroy(s->ctx);
    flow_field_free(&s->out);
}

static void test_two_contexts_overlap(void)
{
    flow_device *d = harness_device();
    if (!d || strcmp(flow_device_kind(d), "cuda") != 0) {
        harness_skip("needs a CUDA device (FLOW_DEVICE=cuda)");
        return;
    }
    const flow_synth sy = { .motion = FLOW_SYNTH_SMOOTH, .amplitude = 1.5, .wavelength = 40,
                            .seed = 17 };
    for (int k = 0; k < NFRAMES; k++)
        CHECK_OK(flow_synth_frame(&sy, W, H, 1, k, &frames[k]));
    flow_params *p = harness_params("robust", NULL);
    if (!p)
        return;
    /* the reference: each pair by a lone context */
    flow_context *lone = NULL;
    CHECK_OK(flow_context_create(d, W, H, 1, p, &lone));
    for (int k = 0; lone && k + 1 < NFRAMES; k++) {
        CHECK_OK(flow_field_alloc(&ref[k], W, H));
        CHECK_OK(flow_context_compute(lone, &frames[k], &frames[k + 1], &ref[k]));
    }
    flow_context_destroy(lone);

    stream s[2];
    CHECK_OK(open_stream(d, p, &s[0]));
    CHECK_OK(open_stream(d, p, &s[1]));
    flow_params_destroy(p);
    if (!s[0].ctx || !s[1].ctx)
        return;
    /* warm up (graphs recorded), then each alone */
    double alone_ms[2], alone = 0;
    for (int i = 0; i < 2; i++) {
        s[i].rounds = 1;
        run_stream(&s[i]);
        CHECK_OK(s[i].status);
        s[i].rounds = ROUNDS;
        run_stream(&s[i]);
        CHECK_OK(s[i].status);
        CHECK(s[i].mismatches == 0);
        alone_ms[i] = s[i].wall_ms;
        alone += alone_ms[i];
    }
    /* together */
    pthread_t th[2];
    int started[2];
    const double t0 = now_ms();
    for (int i = 0; i < 2; i++)
        started[i] = pthread_create(&th[i], NULL, run_stream, &s[i]) == 0;
    for (int i = 0; i < 2; i++)
        if (started[i])
            pthread_join(th[i], NULL);
    const double together = now_ms() - t0;
    CHECK(started[0] && started[1]);
    double device = 0;
    for (int i = 0; i < 2; i++) {
        CHECK_OK(s[i].status);
        CHECK(s[i].mismatches == 0);
        device += s[i].device_ms;
    }
    printf("  %d flows per context: alone %.1f + %.1f ms, together %.1f ms (%.2f of the sum); "
           "device time of both together %.1f ms (%.2f x the wall time)\n",
           ROUNDS * (NFRAMES - 1), alone_ms[0], alone_ms[1], together,
           together / alone, device, device / together);
    CHECK(device > together);
    CHECK(together < 0.8 * alone);
    close_stream(&s[0]);
    close_stream(&s[1]);
    for (int k = 0; k + 1 < NFRAMES; k++)
        flow_field_free(&ref[k]);
    for (int k = 0; k < NFRAMES; k++)
        flow_image_free(&frames[k]);
}

int main(void)
{
    RUN(test_two_contexts_overlap);
    return harness_report();
}
