/* test_multi_gpu.c -- two GPUs driven from one thread.  Every CUDA entry
 * point of the device layer makes its own GPU current (device/device.h), so
 * a context on cuda:0 and one on cuda:1, used alternately from the same
 * thread (compute and compute_next interleaved; CUDA graphs recorded and
 * replayed on each, then every operation run directly), must each give bit for bit the flows of the same
 * computation on a lone cuda:0 context.  (The two GPUs of a host are
 * assumed to be of one model: the same kernels then round the same way.)
 * Skipped with fewer than two CUDA devices; runs under `make test-gpu`.
 * First, flow_device_count against what flow_device_open accepts.  Then
 * flow_spread (flow/spread.h) on "cuda:0,cuda:0" (two contexts on queues
 * of one GPU, each driven by a library thread; one GPU suffices) and on
 * "cuda:all": a sequence's flows bit for bit those of a lone cuda:0
 * context, in order, every entry computing its chunks. */
#include "harness.h"
#include "flow/flow.h"

#include <stdlib.h>
#include <string.h>

#define W 97
#define H 71
#define NSTEPS 6 /* pairs (f[k], f[k + 1]); odd steps through compute_next */

static flow_device *gpu0, *gpu1;
static int tried;

/* Both GPUs, or a skip saying why not. */
static int open_two(void)
{
    if (!tried) {
        tried = 1;
        if (!gpu0 && flow_device_open("cuda:0", &gpu0) != FLOW_OK)
            gpu0 = NULL;
        else if (gpu0 && flow_device_open("cuda:1", &gpu1) != FLOW_OK)
            gpu1 = NULL;
    }
    if (!gpu0 || !gpu1) {
        harness_skip("fewer than two CUDA devices");
        return 0;
    }
    return 1;
}

typedef struct config {
    const char *name, *method, *settings;
} config;

static const config configs[] = {
    { "clg-nl fmg", "clg-nl", NULL },
    { "hs v x2, warping at scale 0.75", "hs", "solver=v cycles=2 warp_levels=2 warp_scale=0.75" },
    { "lk box 7", "lk", "window=box window_size=7 fill_unknown=1" },
};
#define NCONFIGS ((int)(sizeof configs / sizeof configs[0]))

static flow_image frames[NSTEPS + 1];

static void make_frames(void)
{
    static int made;
    if (made)
        return;
    made = 1;
    flow_synth s = { .motion = FLOW_SYNTH_SMOOTH, .amplitude = 1.3, .wavelength = 35, .seed = 12 };
    for (int k = 0; k <= NSTEPS; k++)
        CHECK_OK(flow_synth_frame(&s, W, H, 1, k, &frames[k]));
}

/* Step k of a context: the flow of (f[k], f[k + 1]) into out. */
static flow_status step(flow_context *ctx, int k, flow_field *out)
{
    return k % 2 ? flow_context_compute_next(ctx, &frames[k + 1], out)
                 : flow_context_compute(ctx, &frames[k], &frames[k + 1], out);
}

static int same_field(const flow_field *a, const flow_field *b)
{
    const size_t bytes = (size_t)a->width * a->height * sizeof(float);
    return memcmp(a->u, b->u, bytes) == 0 && memcmp(a->v, b->v, bytes) == 0;
}

static void test_two_gpus_one_thread(void)
{
    if (!open_two())
        return;
    make_frames();
    printf("  %s and %s\n", flow_device_name(gpu0), flow_device_name(gpu1));
    CHECK(strstr(flow_device_name(gpu1), "cuda:1") != NULL);
    for (int c = 0; c < NCONFIGS; c++) {
        flow_params *p = harness_params(configs[c].method, configs[c].settings);
        if (!p)
            continue;
        flow_field ref[NSTEPS], out0, out1;
        for (int k = 0; k < NSTEPS; k++)
            CHECK_OK(flow_field_alloc(&ref[k], W, H));
        CHECK_OK(flow_field_alloc(&out0, W, H));
        CHECK_OK(flow_field_alloc(&out1, W, H));

        /* the reference: a lone context on cuda:0 */
        flow_context *lone = NULL;
        CHECK_OK(flow_context_create(gpu0, W, H, 1, p, &lone));
        for (int k = 0; lone && k < NSTEPS; k++)
            CHECK_OK(step(lone, k, &ref[k]));
        flow_context_destroy(lone);

        /* a context on each GPU, created and used alternately from here:
         * replaying their CUDA graphs, then running every operation directly
         * (each launch, transfer and copy selecting its GPU) */
        for (int direct = 0; direct < 2; direct++) {
            flow_context *c0 = NULL, *c1 = NULL;
            CHECK_OK(flow_context_create(gpu0, W, H, 1, p, &c0));
            CHECK_OK(flow_context_create(gpu1, W, H, 1, p, &c1));
            if (direct && c0 && c1) {
                flow_context_set_graphs(c0, 0);
                flow_context_set_graphs(c1, 0);
            }
            flow_event *e0 = NULL, *e1 = NULL;
            CHECK_OK(flow_event_create(gpu1, &e0));
            CHECK_OK(flow_event_create(gpu1, &e1));
            int same0 = 0, same1 = 0, graphs0 = 0, graphs1 = 0;
            for (int k = 0; c0 && c1 && e0 && e1 && k < NSTEPS; k++) {
                /* cuda:1 first on odd steps: neither always follows the other */
                flow_context *first = k % 2 ? c1 : c0, *second = k % 2 ? c0 : c1;
                flow_field *of = k % 2 ? &out1 : &out0, *os = k % 2 ? &out0 : &out1;
                CHECK_OK(flow_event_record(e0));
                CHECK_OK(step(first, k, of));
                CHECK_OK(step(second, k, os));
                CHECK_OK(flow_event_record(e1));
                float ms = -1;
                CHECK_OK(flow_event_elapsed(e0, e1, &ms));
                CHECK(ms >= 0);
                same0 += same_field(&out0, &ref[k]);
                same1 += same_field(&out1, &ref[k]);
                graphs0 += flow_context_used_graph(c0);
                graphs1 += flow_context_used_graph(c1);
            }
            CHECK_OK(flow_device_synchronize(gpu0));
            CHECK_OK(flow_device_synchronize(gpu1));
            printf("    %-32s %s: cuda:0 %d/%d, cuda:1 %d/%d steps bit-identical to the lone "
                   "cuda:0 context (graph replays %d, %d)\n", configs[c].name,
                   direct ? "direct" : "graphs", same0, NSTEPS, same1, NSTEPS, graphs0, graphs1);
            CHECK(same0 == NSTEPS);
            CHECK(same1 == NSTEPS);
            if (direct)
                CHECK(graphs0 == 0 && graphs1 == 0);
            flow_event_destroy(e0), flow_event_destroy(e1);
            flow_context_destroy(c0), flow_context_destroy(c1);
        }
        double length = 0;
        for (int i = 0; i < W * H; i++)
            if (!flow_is_unknown(ref[NSTEPS - 1].u[i], ref[NSTEPS - 1].v[i]))
                length += hypot(ref[NSTEPS - 1].u[i], ref[NSTEPS - 1].v[i]);
        CHECK(length > 0); /* a real flow */
        for (int k = 0; k < NSTEPS; k++)
            flow_field_free(&ref[k]);
        flow_field_free(&out0), flow_field_free(&out1);
        flow_params_destroy(p);
    }
}

/* Page-locked output on each GPU's device, the flows downloaded into it
 * alternately: the transfers too run on the right GPU. */
static void test_two_gpus_pinned(void)
{
    if (!open_two())
        return;
    make_frames();
    flow_params *p = harness_params("clg-nl", NULL);
    if (!p)
        return;
    flow_field a, b, ref;
    CHECK_OK(flow_field_alloc(&a, W, H));
    CHECK_OK(flow_field_alloc(&b, W, H));
    CHECK_OK(flow_field_alloc(&ref, W, H));
    const size_t bytes = (size_t)W * H * sizeof(float);
    CHECK_OK(flow_device_pin(gpu0, a.u, bytes));
    CHECK_OK(flow_device_pin(gpu0, a.v, bytes));
    CHECK_OK(flow_device_pin(gpu1, b.u, bytes));
    CHECK_OK(flow_device_pin(gpu1, b.v, bytes));
    flow_context *c0 = NULL, *c1 = NULL, *lone = NULL;
    CHECK_OK(flow_context_create(gpu0, W, H, 1, p, &lone));
    if (lone)
        CHECK_OK(flow_context_compute(lone, &frames[0], &frames[1], &ref));
    flow_context_destroy(lone);
    CHECK_OK(flow_context_create(gpu1, W, H, 1, p, &c1));
    CHECK_OK(flow_context_create(gpu0, W, H, 1, p, &c0));
    if (c0 && c1) {
        for (int r = 0; r < 3; r++) {
            CHECK_OK(flow_context_compute(c1, &frames[0], &frames[1], &b));
            CHECK_OK(flow_context_compute(c0, &frames[0], &frames[1], &a));
        }
        CHECK(same_field(&a, &ref));
        CHECK(same_field(&b, &ref));
    }
    flow_context_destroy(c0), flow_context_destroy(c1);
    flow_device_unpin(gpu0, a.u), flow_device_unpin(gpu0, a.v);
    flow_device_unpin(gpu1, b.u), flow_device_unpin(gpu1, b.v);
    flow_field_free(&a), flow_field_free(&b), flow_field_free(&ref);
    flow_params_destroy(p);
}

/* flow_device_count: the GPUs "cuda:N" opens for N below it, and not at
 * it; one CPU; nothing of an unknown kind. */
static void test_device_count(void)
{
    const int n = flow_device_count("cuda");
    printf("    %d CUDA device%s\n", n, n == 1 ? "" : "s");
    CHECK(flow_device_count("cpu") == 1 && flow_device_count("tpu") == 0);
    CHECK(flow_device_has_cuda() || n == 0);
    char spec[32];
    flow_device *d = NULL;
    if (n > 0) {
        snprintf(spec, sizeof spec, "cuda:%d", n - 1);
        CHECK_OK(flow_device_open(spec, &d));
        flow_device_close(d);
    }
    snprintf(spec, sizeof spec, "cuda:%d", n);
    CHECK(flow_device_open(spec, &d) == FLOW_ERR_NO_DEVICE && d == NULL);
}

#define SEQ 14 /* frames: 13 pairs, chunks of FLOW_SPREAD_CHUNK to each entry in turn */

/* The sequence's flows through a spread on `list` against a lone cuda:0
 * context's, for each configuration. */
static void spread_against_lone(const char *list)
{
    flow_image seq[SEQ];
    flow_synth s = { .motion = FLOW_SYNTH_SMOOTH, .amplitude = 1.3, .wavelength = 35, .seed = 12 };
    for (int k = 0; k < SEQ; k++)
        CHECK_OK(flow_synth_frame(&s, W, H, 1, k, &seq[k]));
    for (int c = 0; c < NCONFIGS; c++) {
        flow_params *p = harness_params(configs[c].method, configs[c].settings);
        if (!p)
            continue;
        flow_field ref[SEQ - 1], out[SEQ - 1];
        for (int k = 0; k < SEQ - 1; k++) {
            CHECK_OK(flow_field_alloc(&ref[k], W, H));
            CHECK_OK(flow_field_alloc(&out[k], W, H));
        }
        flow_context *lone = NULL;
        CHECK_OK(flow_context_create(gpu0, W, H, 1, p, &lone));
        for (int k = 0; lone && k < SEQ - 1; k++)
            CHECK_OK(k ? flow_context_compute_next(lone, &seq[k + 1], &ref[k])
                       : flow_context_compute(lone, &seq[0], &seq[1], &ref[0]));
        flow_context_destroy(lone);
        flow_spread *sp = NULL;
        CHECK_OK(flow_spread_open(list, W, H, 1, p, &sp));
        int same = 0, in_order = 0, n = sp ? flow_spread_devices(sp) : 0;
        flow_spread_flow f;
        for (int k = 0; sp && k < SEQ; k++) /* the depth holds them all */
            CHECK_OK(flow_spread_submit(sp, &seq[k], k ? &out[k - 1] : NULL));
        for (int k = 0; sp && k < SEQ - 1; k++) {
            CHECK_OK(flow_spread_collect(sp, &f));
            in_order += f.index == k && f.field == &out[k] && f.device == k / FLOW_SPREAD_CHUNK % n;
            same += same_field(&out[k], &ref[k]);
        }
        long flows = 0, total = 0;
        double ms = 0;
        for (int i = 0; i < n; i++) {
            flow_spread_stats(sp, i, &flows, &ms);
            CHECK(flows > 0 && ms > 0);
            total += flows;
        }
        printf("    %-32s %s (%d entries): %d/%d flows bit-identical to the lone cuda:0 "
               "context, %d in order\n", configs[c].name, list, n, same, SEQ - 1, in_order);
        CHECK(same == SEQ - 1 && in_order == SEQ - 1 && total == SEQ - 1);
        flow_spread_destroy(sp);
        for (int k = 0; k < SEQ - 1; k++) {
            flow_field_free(&ref[k]);
            flow_field_free(&out[k]);
        }
        flow_params_destroy(p);
    }
    for (int k = 0; k < SEQ; k++)
        flow_image_free(&seq[k]);
}

/* Two contexts on queues of one GPU: "cuda:0,cuda:0" opens the GPU once. */
static void test_spread_one_gpu_two_queues(void)
{
    if (!gpu0 && flow_device_open("cuda:0", &gpu0) != FLOW_OK) {
        gpu0 = NULL;
        harness_skip("no CUDA device");
        return;
    }
    flow_device *d[4] = {0};
    int n = 0;
    CHECK_OK(flow_devices_open("cuda:0,cuda:0", d, 4, &n));
    CHECK(n == 2 && d[0] == d[1]);
    flow_devices_close(d, n);
    spread_against_lone("cuda:0,cuda:0");
}

static void test_spread_all_gpus(void)
{
    if (!open_two())
        return;
    spread_against_lone("cuda:all");
}

int main(void)
{
    RUN(test_device_count);
    RUN(test_two_gpus_one_thread);
    RUN(test_two_gpus_pinned);
    RUN(test_spread_one_gpu_two_queues);
    RUN(test_spread_all_gpus);
    for (int k = 0; k <= NSTEPS; k++)
        flow_image_free(&frames[k]);
    flow_device_close(gpu1);
    flow_device_close(gpu0);
    return harness_report();
}
