/* test_pipeline.c -- sequences at the device's pace (flow/context.h:
 * flow_context_submit, submit8, collect) and the 8-bit frames they take
 * (flow_image8_read): the pipelined flows equal those of compute and
 * compute_next bit for bit, 8-bit frames equal their float twins, from
 * page-locked and ordinary memory; every misuse gives its status; the
 * 8-bit reader gives the samples flow_image_read gives and refuses what
 * it does not read. */
#include "harness.h"

#include <stdlib.h>
#include <string.h>

#define W 67 /* odd sizes on purpose */
#define H 45
#define FRAMES 6

static int same_field(const flow_field *a, const flow_field *b)
{
    const size_t n = sizeof(float) * (size_t)a->width * a->height;
    return memcmp(a->u, b->u, n) == 0 && memcmp(a->v, b->v, n) == 0;
}

/* Synthetic frames quantised to 8 bits, as floats and as bytes. */
static void make_frames(flow_image *f, flow_image8 *f8, int channels)
{
    const flow_synth s = {.motion = FLOW_SYNTH_ROTATE, .angle = 0.02, .seed = 7};
    for (int k = 0; k < FRAMES; k++) {
        CHECK_OK(flow_synth_frame(&s, W, H, channels, k, &f[k]));
        CHECK_OK(flow_image8_alloc(&f8[k], W, H, channels));
        const size_t n = (size_t)W * H;
        for (int c = 0; c < channels; c++)
            for (size_t i = 0; i < n; i++) {
                float v = f[k].data[c * n + i];
                const unsigned char b = (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : v + 0.5f);
                f[k].data[c * n + i] = b;
                f8[k].data[i * channels + c] = b;
            }
    }
}

static void free_frames(flow_image *f, flow_image8 *f8)
{
    for (int k = 0; k < FRAMES; k++) {
        flow_image_free(&f[k]);
        flow_image8_free(&f8[k]);
    }
}

/* The flows of a sequence by compute / compute_next, the reference. */
static void reference(flow_context *ctx, const flow_image *f, flow_field *ref)
{
    for (int k = 0; k + 1 < FRAMES; k++) {
        CHECK_OK(flow_field_alloc(&ref[k], W, H));
        CHECK_OK(k == 0 ? flow_context_compute(ctx, &f[0], &f[1], &ref[0])
                        : flow_context_compute_next(ctx, &f[k + 1], &ref[k]));
    }
}

/* The same sequence pipelined (two flows in flight) from floats or bytes,
 * into fields page-locked or not; each collected flow must equal its
 * reference and come back in order. */
static void pipelined(flow_context *ctx, const flow_image *f, const flow_image8 *f8, int bytes,
                      int pinned, const flow_field *ref)
{
    flow_device *d = harness_device();
    flow_field out[FRAMES];
    memset(out, 0, sizeof out);
    int ok = 1;
    long next = 0;
    for (int k = 0; k < FRAMES; k++) {
        flow_field *o = NULL;
        if (k > 0) {
            CHECK_OK(flow_field_alloc(&out[k - 1], W, H));
            if (pinned) {
                CHECK_OK(flow_device_pin(d, out[k - 1].u, sizeof(float) * W * H));
                CHECK_OK(flow_device_pin(d, out[k - 1].v, sizeof(float) * W * H));
            }
            o = &out[k - 1];
        }
        if (flow_context_queued(ctx) == FLOW_CONTEXT_DEPTH) {
            flow_field *got = NULL;
            CHECK_OK(flow_context_collect(ctx, &got, NULL));
            ok &= got == &out[next] && same_field(got, &ref[next]);
            next++;
        }
        CHECK_OK(bytes ? flow_context_submit8(ctx, &f8[k], o) : flow_context_submit(ctx, &f[k], o));
    }
    while (flow_context_queued(ctx) > 0) {
        flow_field *got = NULL;
        float ms = -1;
        CHECK_OK(flow_context_collect(ctx, &got, &ms));
        CHECK(ms >= 0);
        ok &= got == &out[next] && same_field(got, &ref[next]);
        next++;
    }
    CHECK(next == FRAMES - 1);
    CHECK(ok);
    for (int k = 0; k + 1 < FRAMES; k++) {
        if (pinned) {
            flow_device_unpin(d, out[k].u);
            flow_device_unpin(d, out[k].v);
        }
        flow_field_free(&out[k]);
    }
}

static void sequence(const char *method, int channels)
{
    flow_device *d = harness_device();
    flow_params *p = harness_params(method, NULL);
    flow_context *ctx = NULL;
    if (!d || !p)
        return;
    flow_image f[FRAMES];
    flow_image8 f8[FRAMES];
    flow_field ref[FRAMES - 1];
    memset(ref, 0, sizeof ref);
    make_frames(f, f8, channels);
    CHECK_OK(flow_context_create(d, W, H, channels, p, &ctx));
    if (ctx) {
        reference(ctx, f, ref);
        pipelined(ctx, f, f8, 0, 0, ref);
        pipelined(ctx, f, f8, 1, 0, ref);
        pipelined(ctx, f, f8, 1, 1, ref);
        pipelined(ctx, f, f8, 0, 1, ref);
    }
    for (int k = 0; k + 1 < FRAMES; k++)
        flow_field_free(&ref[k]);
    free_frames(f, f8);
    flow_context_destroy(ctx);
    flow_params_destroy(p);
}

static void test_sequence_default(void)
{
    sequence(NULL, 1);
}

static void test_sequence_clg_nl(void)
{
    sequence("clg-nl", 1);
}

static void test_sequence_colour(void)
{
    sequence("lk", 3);
}

static void test_misuse(void)
{
    flow_device *d = harness_device();
    flow_params *p = harness_params("lk", NULL);
    flow_context *ctx = NULL;
    if (!d || !p)
        return;
    flow_image f[FRAMES];
    flow_image8 f8[FRAMES];
    make_frames(f, f8, 1);
    flow_field a = {0}, b = {0}, c = {0}, *got = NULL;
    CHECK_OK(flow_field_alloc(&a, W, H));
    CHECK_OK(flow_field_alloc(&b, W, H));
    CHECK_OK(flow_field_alloc(&c, W, H));
    CHECK_OK(flow_context_create(d, W, H, 1, p, &ctx));
    if (ctx) {
        /* a flow needs a kept frame */
        CHECK(flow_context_submit(ctx, &f[1], &a) == FLOW_ERR_INVALID);
        CHECK(strstr(flow_last_error(), "no kept frame"));
        CHECK(flow_context_collect(ctx, &got, NULL) == FLOW_ERR_INVALID);
        CHECK(flow_context_compute_next(ctx, &f[1], &a) == FLOW_ERR_INVALID);
        /* at most FLOW_CONTEXT_DEPTH in flight; compute waits for none */
        flow_field q[FLOW_CONTEXT_DEPTH] = {{0}};
        CHECK_OK(flow_context_submit8(ctx, &f8[0], NULL));
        for (int k = 0; k < FLOW_CONTEXT_DEPTH; k++) {
            CHECK_OK(flow_field_alloc(&q[k], W, H));
            CHECK_OK(k % 2 ? flow_context_submit(ctx, &f[k + 1], &q[k])
                           : flow_context_submit8(ctx, &f8[k + 1], &q[k]));
        }
        CHECK(flow_context_queued(ctx) == FLOW_CONTEXT_DEPTH);
        CHECK(flow_context_submit(ctx, &f[FLOW_CONTEXT_DEPTH + 1], &c) == FLOW_ERR_INVALID);
        CHECK(strstr(flow_last_error(), "queued already"));
        CHECK(flow_context_compute(ctx, &f[0], &f[1], &c) == FLOW_ERR_INVALID);
        CHECK(strstr(flow_last_error(), "not collected"));
        for (int k = 0; k < FLOW_CONTEXT_DEPTH; k++) {
            CHECK_OK(flow_context_collect(ctx, &got, NULL));
            CHECK(got == &q[k]);
            flow_field_free(&q[k]);
        }
        /* frames of another size or channel count; a missing output */
        flow_image8 small = {0};
        CHECK_OK(flow_image8_alloc(&small, W - 1, H, 1));
        memset(small.data, 0, (size_t)(W - 1) * H);
        CHECK(flow_context_submit8(ctx, &small, &a) == FLOW_ERR_SIZE);
        CHECK(strstr(flow_last_error(), "66x45"));
        flow_image8_free(&small);
        flow_image8 rgb = {0};
        CHECK_OK(flow_image8_alloc(&rgb, W, H, 3));
        memset(rgb.data, 0, (size_t)W * H * 3);
        CHECK(flow_context_submit8(ctx, &rgb, NULL) == FLOW_ERR_INVALID);
        flow_image8_free(&rgb);
        flow_field wrong = {0};
        CHECK_OK(flow_field_alloc(&wrong, W, H + 1));
        CHECK_OK(flow_context_submit8(ctx, &f8[3], NULL));
        CHECK(flow_context_submit8(ctx, &f8[4], &wrong) == FLOW_ERR_SIZE);
        flow_field_free(&wrong);
        /* compute still works after all of it */
        CHECK_OK(flow_context_compute(ctx, &f[0], &f[1], &a));
        CHECK_OK(flow_context_compute_next(ctx, &f[2], &b));
    }
    flow_field_free(&a);
    flow_field_free(&b);
    flow_field_free(&c);
    free_frames(f, f8);
    flow_context_destroy(ctx);
    flow_params_destroy(p);
}

/* Leaving flows in flight: destroy waits for their transfers. */
static void test_destroy_in_flight(void)
{
    flow_device *d = harness_device();
    flow_params *p = harness_params(NULL, NULL);
    flow_context *ctx = NULL;
    if (!d || !p)
        return;
    flow_image f[FRAMES];
    flow_image8 f8[FRAMES];
    make_frames(f, f8, 1);
    flow_field a = {0}, b = {0};
    CHECK_OK(flow_field_alloc(&a, W, H));
    CHECK_OK(flow_field_alloc(&b, W, H));
    CHECK_OK(flow_device_pin(d, a.u, sizeof(float) * W * H));
    CHECK_OK(flow_context_create(d, W, H, 1, p, &ctx));
    CHECK_OK(flow_context_submit8(ctx, &f8[0], NULL));
    CHECK_OK(flow_context_submit8(ctx, &f8[1], &a));
    CHECK_OK(flow_context_submit8(ctx, &f8[2], &b));
    flow_context_destroy(ctx);
    flow_device_unpin(d, a.u);
    flow_field_free(&a);
    flow_field_free(&b);
    free_frames(f, f8);
    flow_params_destroy(p);
}

/* ---- 8-bit reading ---------------------------------------------------------- */

static void test_read8_pgm_png(void)
{
    flow_image img = {0}, back = {0};
    flow_image8 b8 = {0};
    const flow_synth s = {.motion = FLOW_SYNTH_TRANSLATE, .dx = 1, .seed = 3};
    const char *ext[] = {"pgm", "ppm", "png"};
    for (int i = 0; i < 3; i++) {
        const int ch = i == 1 ? 3 : 1 + (i == 2) * 2;
        char name[32];
        snprintf(name, sizeof name, "r8.%s", ext[i]);
        const char *path = harness_path(name);
        CHECK_OK(flow_synth_frame(&s, W, H, ch, 0, &img));
        CHECK_OK(flow_image_write(path, &img));
        flow_image_free(&img);
        CHECK_OK(flow_image_read(path, &img));
        const flow_status st = flow_image8_read(path, &b8);
        if (i == 2 && st == FLOW_ERR_UNSUPPORTED) { /* a build without libpng */
            flow_image_free(&img);
            continue;
        }
        CHECK_OK(st);
        CHECK(b8.width == W && b8.height == H && b8.channels == ch);
        CHECK_OK(flow_image8_to_float(&b8, &back));
        CHECK(memcmp(back.data, img.data, sizeof(float) * W * H * ch) == 0);
        /* into the buffer it has: decoded again in place */
        unsigned char *buf = b8.data;
        CHECK_OK(flow_image8_read(path, &b8));
        CHECK(b8.data == buf);
        flow_image_free(&back);
        flow_image_free(&img);
        flow_image8_free(&b8);
    }
}

static void test_read8_refusals(void)
{
    /* 16-bit and ASCII PNM are not 8-bit samples as stored */
    const char *p16 = harness_path("r16.pgm"), *pa = harness_path("ascii.pgm");
    const unsigned char pgm16[] = "P5\n2 1\n65535\n\x01\x02\x03\x04";
    harness_write_file(p16, pgm16, sizeof pgm16 - 1);
    harness_write_file(pa, "P2\n2 1\n255\n1 2\n", 15);
    flow_image8 b = {0};
    CHECK(flow_image8_read(p16, &b) == FLOW_ERR_UNSUPPORTED && !b.data);
    CHECK(strstr(flow_last_error(), "r16.pgm"));
    CHECK(flow_image8_read(pa, &b) == FLOW_ERR_UNSUPPORTED && !b.data);
    /* a buffer of another size is left as it is */
    const char *p8 = harness_path("two.pgm");
    harness_write_file(p8, "P5\n2 1\n255\nab", 13);
    CHECK_OK(flow_image8_alloc(&b, 3, 1, 1));
    memset(b.data, 7, 3);
    CHECK(flow_image8_read(p8, &b) == FLOW_ERR_SIZE);
    CHECK(strstr(flow_last_error(), "2x1x1") && strstr(flow_last_error(), "3x1x1"));
    CHECK(b.width == 3 && b.data[0] == 7);
    flow_image8_free(&b);
    CHECK_OK(flow_image8_read(p8, &b));
    CHECK(b.width == 2 && b.data[0] == 'a' && b.data[1] == 'b');
    flow_image8_free(&b);
    /* truncated, missing, not an image */
    harness_write_file(p8, "P5\n4 4\n255\nab", 13);
    CHECK(flow_image8_read(p8, &b) == FLOW_ERR_FORMAT && !b.data);
    CHECK(flow_image8_read(harness_path("none.pgm"), &b) == FLOW_ERR_IO);
    harness_write_file(p8, "hello world, no image", 21);
    CHECK(flow_image8_read(p8, &b) == FLOW_ERR_UNSUPPORTED);
}

int main(void)
{
    RUN(test_sequence_default);
    RUN(test_sequence_clg_nl);
    RUN(test_sequence_colour);
    RUN(test_misuse);
    RUN(test_destroy_in_flight);
    RUN(test_read8_pgm_png);
    RUN(test_read8_refusals);
    return harness_report();
}
