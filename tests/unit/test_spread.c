/* test_spread.c -- flow/spread.h on the CPU: device lists opened with one
 * handle per device; a sequence spread over "cpu,cpu,cpu" (one device,
 * three contexts on queues of their own) gives the flows of one context bit
 * for bit, in order, every entry computing the pairs dealt to it; 8-bit
 * frames and separate pairs likewise; a method that reads the frame
 * before the pair starts each chunk as a sequence; a frame refused mid-sequence is
 * reported with its pair, its device and the library's message after the
 * flows before it, and the spread then holds nothing; a spread destroyed
 * with flows queued.  Run under SANITIZE=1 for leaks and races on the
 * frames. */
#include "harness.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define W 40
#define H 32
#define NFRAMES 24 /* 23 pairs: five chunks over three entries, the last short */
#define LIST "cpu,cpu,cpu"

static flow_image frames[NFRAMES];
static flow_image8 frames8[NFRAMES];
static flow_field ref[NFRAMES - 1]; /* one context's flows */

/* Frames of integer values (so that the 8-bit ones are the same), the
 * flows of one context over them. */
static void setup(const char *method, const char *settings)
{
    const flow_synth s = {.motion = FLOW_SYNTH_ROTATE, .angle = 0.03, .seed = 11};
    for (int k = 0; k < NFRAMES; k++) {
        CHECK_OK(flow_synth_frame(&s, W, H, 1, k, &frames[k]));
        CHECK_OK(flow_image8_alloc(&frames8[k], W, H, 1));
        for (int i = 0; i < W * H; i++) {
            const float v = frames[k].data[i];
            const unsigned char b = (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : v + 0.5f);
            frames[k].data[i] = b;
            frames8[k].data[i] = b;
        }
    }
    flow_device *d = NULL;
    flow_params *p = harness_params(method, settings);
    flow_context *ctx = NULL;
    CHECK_OK(flow_device_open("cpu", &d));
    CHECK_OK(flow_context_create(d, W, H, 1, p, &ctx));
    for (int k = 0; ctx && k < NFRAMES - 1; k++) {
        CHECK_OK(flow_field_alloc(&ref[k], W, H));
        CHECK_OK(k == 0 ? flow_context_compute(ctx, &frames[0], &frames[1], &ref[0])
                        : flow_context_compute_next(ctx, &frames[k + 1], &ref[k]));
    }
    flow_context_destroy(ctx);
    flow_params_destroy(p);
    flow_device_close(d);
}

static void teardown(void)
{
    for (int k = 0; k < NFRAMES; k++) {
        flow_image_free(&frames[k]);
        flow_image8_free(&frames8[k]);
    }
    for (int k = 0; k < NFRAMES - 1; k++)
        flow_field_free(&ref[k]);
}

static int same_flow(const flow_field *a, const flow_field *b)
{
    const size_t n = sizeof(float) * W * H;
    return a->width == b->width && a->height == b->height && memcmp(a->u, b->u, n) == 0
           && memcmp(a->v, b->v, n) == 0;
}

static void test_device_lists(void)
{
    flow_device *d[8] = {0};
    int n = -1;
    CHECK_OK(flow_devices_open(LIST, d, 8, &n));
    CHECK(n == 3 && d[0] && d[0] == d[1] && d[1] == d[2]);
    flow_devices_close(d, n);
    CHECK_OK(flow_devices_open("cpu", d, 8, &n));
    CHECK(n == 1 && d[0] && strcmp(flow_device_kind(d[0]), "cpu") == 0);
    flow_devices_close(d, n);
    CHECK_OK(flow_devices_open("auto", d, 8, &n)); /* a single name: auto too */
    CHECK(n == 1 && d[0]);
    flow_devices_close(d, n);
    n = -1;
    CHECK(flow_devices_open("cpu,tpu", d, 8, &n) == FLOW_ERR_INVALID && n == 0);
    CHECK(strstr(flow_last_error(), "unknown device 'tpu'"));
    CHECK(flow_devices_open("cpu,auto", d, 8, &n) == FLOW_ERR_INVALID);
    CHECK(flow_devices_open("cpu,,cpu", d, 8, &n) == FLOW_ERR_INVALID);
    CHECK(flow_devices_open(LIST, d, 2, &n) == FLOW_ERR_INVALID && n == 0);
    CHECK(strstr(flow_last_error(), "more than 2 devices"));
}

/* The sequence through a spread: the first frame alone, then a flow per
 * frame, collected whenever the spread is full and at the end. */
static void spread_sequence(flow_spread *sp, int bytes, flow_field *out, int *device_of)
{
    int collected = 0;
    flow_spread_flow f;
    for (int k = 0; k < NFRAMES; k++) {
        if (flow_spread_queued(sp) == flow_spread_depth(sp)) {
            CHECK_OK(flow_spread_collect(sp, &f));
            CHECK(f.index == collected && f.field == &out[collected]);
            device_of[collected++] = f.device;
        }
        flow_field *o = k ? &out[k - 1] : NULL;
        CHECK_OK(bytes ? flow_spread_submit8(sp, &frames8[k], o)
                       : flow_spread_submit(sp, &frames[k], o));
    }
    CHECK(flow_spread_queued(sp) == NFRAMES - 1 - collected);
    while (flow_spread_queued(sp)) {
        CHECK_OK(flow_spread_collect(sp, &f));
        CHECK(f.index == collected && f.field == &out[collected]);
        CHECK(f.device_ms >= 0);
        device_of[collected++] = f.device;
    }
    CHECK(collected == NFRAMES - 1);
    flow_spread_flow none;
    CHECK(flow_spread_collect(sp, &none) == FLOW_ERR_INVALID);
}

static void check_sequence(const char *method, const char *settings)
{
    setup(method, settings);
    flow_params *p = harness_params(method, settings);
    for (int bytes = 0; bytes < 2; bytes++) {
        flow_spread *sp = NULL;
        CHECK_OK(flow_spread_open(LIST, W, H, 1, p, &sp));
        if (!sp)
            break;
        CHECK(flow_spread_devices(sp) == 3);
        CHECK(flow_spread_device(sp, 0) == flow_spread_device(sp, 2));
        CHECK(flow_spread_depth(sp) == flow_spread_depth_of(3));
        CHECK(strcmp(flow_params_method(flow_spread_params(sp)), method) == 0);
        flow_field out[NFRAMES - 1];
        int device_of[NFRAMES - 1];
        for (int k = 0; k < NFRAMES - 1; k++)
            CHECK_OK(flow_field_alloc(&out[k], W, H));
        spread_sequence(sp, bytes, out, device_of);
        long count[3] = {0};
        for (int k = 0; k < NFRAMES - 1; k++) {
            if (!same_flow(&out[k], &ref[k])) {
                fprintf(stderr, "    %s %s: flow %d differs from one context's\n", method,
                        bytes ? "bytes" : "floats", k);
                CHECK(0);
            }
            CHECK(device_of[k] == k / FLOW_SPREAD_CHUNK % 3);
            count[device_of[k]]++;
        }
        for (int i = 0; i < 3; i++) {
            long flows;
            double ms;
            flow_spread_stats(sp, i, &flows, &ms);
            CHECK(flows == count[i] && flows > 0 && ms >= 0);
        }
        /* the 23 pairs: chunks 0-3, 12-15 to the first, 4-7, 16-19 to the
         * second, 8-11, 20-22 to the third */
        CHECK(count[0] == 8 && count[1] == 8 && count[2] == 7);
        flow_spread_destroy(sp);
        for (int k = 0; k < NFRAMES - 1; k++)
            flow_field_free(&out[k]);
    }
    flow_params_destroy(p);
    teardown();
}

static void test_sequence_lk(void)
{
    check_sequence("lk", NULL);
}

static void test_sequence_hs(void)
{
    check_sequence("hs", "iterations=20");
}

/* A method that reads the frame before the pair (robust, previous=1): the
 * first flow of each chunk is its pair's alone (flow_context_compute), the
 * others those of one context's sequence. */
static void test_frame_before(void)
{
    const char *settings = "previous=1 warp_levels=2";
    setup("robust", settings);
    flow_params *p = harness_params("robust", settings);
    flow_device *d = NULL;
    flow_context *ctx = NULL;
    flow_spread *sp = NULL;
    CHECK_OK(flow_device_open("cpu", &d));
    CHECK_OK(flow_context_create(d, W, H, 1, p, &ctx));
    CHECK(ctx && flow_context_frames(ctx) == 3);
    CHECK_OK(flow_spread_open("cpu,cpu", W, H, 1, p, &sp));
    enum { PAIRS = 11 };
    flow_field out[PAIRS], alone;
    CHECK_OK(flow_field_alloc(&alone, W, H));
    for (int k = 0; k < PAIRS; k++)
        CHECK_OK(flow_field_alloc(&out[k], W, H));
    for (int k = 0; sp && k <= PAIRS; k++)
        CHECK_OK(flow_spread_submit(sp, &frames[k], k ? &out[k - 1] : NULL));
    flow_spread_flow f;
    for (int k = 0; sp && k < PAIRS; k++) {
        CHECK_OK(flow_spread_collect(sp, &f));
        CHECK(f.index == k);
        if (k % FLOW_SPREAD_CHUNK) {
            CHECK(same_flow(&out[k], &ref[k]));
            continue;
        }
        CHECK_OK(flow_context_compute(ctx, &frames[k], &frames[k + 1], &alone));
        CHECK(same_flow(&out[k], &alone));
        CHECK(k == 0 || !same_flow(&out[k], &ref[k])); /* the frame before matters */
    }
    flow_spread_destroy(sp);
    flow_context_destroy(ctx);
    flow_device_close(d);
    flow_params_destroy(p);
    for (int k = 0; k < PAIRS; k++)
        flow_field_free(&out[k]);
    flow_field_free(&alone);
    teardown();
}

/* Separate pairs (k, k + 2): each the flow flow_context_compute gives. */
static void test_pairs(void)
{
    setup("lk", NULL);
    flow_params *p = harness_params("lk", NULL);
    flow_device *d = NULL;
    flow_context *ctx = NULL;
    CHECK_OK(flow_device_open("cpu", &d));
    CHECK_OK(flow_context_create(d, W, H, 1, p, &ctx));
    flow_spread *sp = NULL;
    CHECK_OK(flow_spread_open("cpu,cpu", W, H, 1, p, &sp));
    enum { PAIRS = NFRAMES - 2 };
    flow_field out[PAIRS], want;
    CHECK_OK(flow_field_alloc(&want, W, H));
    for (int k = 0; k < PAIRS; k++)
        CHECK_OK(flow_field_alloc(&out[k], W, H));
    int collected = 0;
    flow_spread_flow f;
    for (int k = 0; sp && k < PAIRS; k++) {
        if (flow_spread_queued(sp) == flow_spread_depth(sp)) {
            CHECK_OK(flow_spread_collect(sp, &f));
            CHECK(f.index == collected++);
        }
        CHECK_OK(flow_spread_submit_pair(sp, &frames[k], &frames[k + 2], &out[k]));
    }
    while (sp && flow_spread_queued(sp)) {
        CHECK_OK(flow_spread_collect(sp, &f));
        CHECK(f.index == collected++);
    }
    CHECK(collected == PAIRS);
    for (int k = 0; ctx && k < PAIRS; k++) {
        CHECK_OK(flow_context_compute(ctx, &frames[k], &frames[k + 2], &want));
        CHECK(same_flow(&out[k], &want));
    }
    /* a frame of another size: refused at once, nothing queued */
    flow_image small = {0};
    CHECK_OK(flow_image_alloc(&small, W - 1, H, 1));
    memset(small.data, 0, sizeof(float) * (W - 1) * H);
    CHECK(sp && flow_spread_submit(sp, &small, &out[0]) == FLOW_ERR_SIZE);
    CHECK(strstr(flow_last_error(), "39x32"));
    CHECK(flow_spread_queued(sp) == 0);
    flow_image_free(&small);
    flow_spread_destroy(sp);
    flow_context_destroy(ctx);
    flow_device_close(d);
    flow_params_destroy(p);
    for (int k = 0; k < PAIRS; k++)
        flow_field_free(&out[k]);
    flow_field_free(&want);
    teardown();
}

/* Frame 9 holds a NaN: pair 8 (9's pair as second frame, the first of the
 * third entry's chunk) fails; the flows 0-7 come first, the same as one
 * context's, then the failure names pair 8, the third entry and the
 * frame's value; the spread then holds nothing and takes nothing. */
static void test_failure(void)
{
    setup("lk", NULL);
    frames[9].data[5 * W + 7] = NAN;
    flow_params *p = harness_params("lk", NULL);
    flow_spread *sp = NULL;
    CHECK_OK(flow_spread_open(LIST, W, H, 1, p, &sp));
    flow_field out[NFRAMES - 1];
    for (int k = 0; k < NFRAMES - 1; k++)
        CHECK_OK(flow_field_alloc(&out[k], W, H));
    int collected = 0, failed = 0;
    flow_spread_flow f;
    for (int k = 0; sp && k < 14 && !failed; k++) {
        CHECK_OK(flow_spread_submit(sp, &frames[k], k ? &out[k - 1] : NULL));
        while (!failed && (flow_spread_queued(sp) == flow_spread_depth(sp) || k == 13)
               && flow_spread_queued(sp)) {
            const flow_status s = flow_spread_collect(sp, &f);
            if (s == FLOW_OK) {
                CHECK(f.index == collected && same_flow(f.field, &ref[collected]));
                collected++;
                continue;
            }
            failed = 1;
            CHECK(s == FLOW_ERR_INVALID);
            CHECK(f.index == 8 && f.device == 2);
            CHECK(strstr(flow_last_error(), "non-finite"));
            CHECK(strstr(flow_last_error(), "(7, 5)"));
        }
    }
    CHECK(failed && collected == 8);
    if (sp) {
        CHECK(flow_spread_queued(sp) == 0);
        CHECK(flow_spread_submit(sp, &frames[20], &out[20]) == FLOW_ERR_INVALID);
        CHECK(strstr(flow_last_error(), "stopped after a failure"));
        CHECK(flow_spread_collect(sp, &f) == FLOW_ERR_INVALID);
    }
    flow_spread_destroy(sp);
    for (int k = 0; k < NFRAMES - 1; k++)
        flow_field_free(&out[k]);
    flow_params_destroy(p);
    teardown();
}

/* Destroyed with a full spread queued: it waits for the work in flight and
 * frees everything (the sanitizer sees leaks and late writes). */
static void test_destroy_queued(void)
{
    setup("lk", NULL);
    flow_params *p = harness_params("lk", NULL);
    flow_spread *sp = NULL;
    CHECK_OK(flow_spread_open(LIST, W, H, 1, p, &sp));
    flow_field out[NFRAMES - 1];
    for (int k = 0; k < NFRAMES - 1; k++)
        CHECK_OK(flow_field_alloc(&out[k], W, H));
    int k = 0;
    for (; sp && k < NFRAMES && flow_spread_queued(sp) < flow_spread_depth(sp); k++)
        CHECK_OK(flow_spread_submit(sp, &frames[k], k ? &out[k - 1] : NULL));
    CHECK(sp && flow_spread_queued(sp) == flow_spread_depth(sp));
    if (sp) /* full: the next is refused */
        CHECK(flow_spread_submit(sp, &frames[k], &out[k - 1]) == FLOW_ERR_INVALID);
    flow_spread_destroy(sp);
    for (k = 0; k < NFRAMES - 1; k++)
        flow_field_free(&out[k]);
    flow_params_destroy(p);
    teardown();
}

/* Creation errors: no devices, a bad size, a list that names no device. */
static void test_create_errors(void)
{
    flow_params *p = harness_params("lk", NULL);
    flow_spread *sp = (flow_spread *)p; /* set to NULL on failure */
    CHECK(flow_spread_create(NULL, 0, W, H, 1, p, &sp) == FLOW_ERR_INVALID && !sp);
    CHECK(flow_spread_open("cpu,cpu", 0, H, 1, p, &sp) != FLOW_OK && !sp);
    CHECK(strstr(flow_last_error(), "CPU"));
    CHECK(flow_spread_open("cpu,tpu", W, H, 1, p, &sp) == FLOW_ERR_INVALID && !sp);
    flow_params_destroy(p);
}

int main(void)
{
    RUN(test_device_lists);
    RUN(test_sequence_lk);
    RUN(test_sequence_hs);
    RUN(test_frame_before);
    RUN(test_pairs);
    RUN(test_failure);
    RUN(test_destroy_queued);
    RUN(test_create_errors);
    return harness_report();
}
