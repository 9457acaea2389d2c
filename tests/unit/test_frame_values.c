/* test_frame_values.c -- the values a context and a tracker accept
 * (flow/image.h, FLOW_IMAGE_VALUE_MAX): a float frame holding NaN, an
 * infinity or a value beyond the bound is refused by every method, through
 * compute, compute_next and submit, with the frame, the value and its pixel
 * named, and refusing it changes nothing in the context; at the bound every
 * method still gives a finite flow.  Runs on the device of FLOW_DEVICE
 * (default cpu). */
#include "harness.h"
#include "flow/flow.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define W 40
#define H 32
#define C 3

/* The bad values, with what the detail calls them. */
static const struct {
    float value;
    const char *said;
} bad[] = {
    {NAN, "non-finite value (nan)"},
    {INFINITY, "non-finite value (inf)"},
    {-INFINITY, "non-finite value (-inf)"},
    {1e30f, "the value 1e+30"},
};
#define NBAD (int)(sizeof bad / sizeof bad[0])

static float *at(flow_image *img, int x, int y, int c)
{
    return &img->data[(size_t)c * img->width * img->height + (size_t)y * img->width + x];
}

/* Whether the last detail names `what`, `said` and the pixel. */
static int detail_names(const char *what, const char *said, int x, int y, int c)
{
    char pixel[64];
    snprintf(pixel, sizeof pixel, "at pixel (%d, %d), channel %d", x, y, c);
    const char *e = flow_last_error();
    const int ok = strncmp(e, what, strlen(what)) == 0 && strstr(e, said) && strstr(e, pixel);
    if (!ok)
        printf("    detail: %s\n    expected: %s ... %s ... %s\n", e, what, said, pixel);
    return ok;
}

static int all_finite(const flow_field *f)
{
    for (int i = 0; i < f->width * f->height; i++)
        if (!isfinite(f->u[i]) || !isfinite(f->v[i]))
            return 0;
    return 1;
}

/* Frames 0 and 1 of a translation, colour. */
static void make_pair(flow_image *a, flow_image *b)
{
    flow_synth s;
    memset(&s, 0, sizeof s);
    s.motion = FLOW_SYNTH_TRANSLATE, s.dx = 0.6, s.dy = -0.3, s.seed = 7;
    CHECK_OK(flow_synth_frame(&s, W, H, C, 0, a));
    CHECK_OK(flow_synth_frame(&s, W, H, C, 1, b));
}

/* The check itself: in-range values pass (the bound included), and the
 * first bad value in memory order is the one named, whether it lies among
 * a row's blocks of eight or in its tail (x 16..20 of 21). */
static void test_check_values(void)
{
    flow_image img;
    CHECK_OK(flow_image_alloc(&img, 21, 4, 3));
    for (int i = 0; i < 21 * 4 * 3; i++)
        img.data[i] = (float)(i % 7) * 30.0f;
    CHECK_OK(flow_image_check_values(&img, "frame"));
    *at(&img, 0, 0, 0) = (float)FLOW_IMAGE_VALUE_MAX;
    *at(&img, 20, 3, 2) = (float)-FLOW_IMAGE_VALUE_MAX;
    CHECK_OK(flow_image_check_values(&img, "frame"));
    const int xs[2] = {3, 19};
    for (int j = 0; j < 2; j++) {
        const int x = xs[j];
        const float keep = *at(&img, x, 2, 1);
        for (int k = 0; k < NBAD; k++) {
            *at(&img, x, 2, 1) = bad[k].value;
            CHECK(flow_image_check_values(&img, "some frame") == FLOW_ERR_INVALID);
            CHECK(detail_names("some frame has ", bad[k].said, x, 2, 1));
        }
        /* just beyond the bound */
        *at(&img, x, 2, 1) = nextafterf((float)FLOW_IMAGE_VALUE_MAX, INFINITY);
        CHECK(flow_image_check_values(&img, "frame") == FLOW_ERR_INVALID);
        CHECK(detail_names("frame has ", "the value 1e+06", x, 2, 1));
        /* two bad values: the one first in memory (channel 1 before channel 2) */
        *at(&img, 0, 0, 2) = NAN;
        CHECK(flow_image_check_values(&img, "frame") == FLOW_ERR_INVALID);
        CHECK(detail_names("frame has ", "the value 1e+06", x, 2, 1));
        *at(&img, 0, 0, 2) = 0;
        *at(&img, x, 2, 1) = keep;
    }
    CHECK_OK(flow_image_check_values(&img, "frame"));
    flow_image_free(&img);
}

/* One method: every bad value in either frame of compute, in the frame of
 * compute_next and of both kinds of submit is refused, naming it; after
 * each refusal the context computes the finite pair as before. */
static void refuses(const char *method, flow_device *d, flow_image *a, flow_image *b)
{
    flow_params *p = harness_params(method, NULL);
    flow_context *ctx = NULL;
    flow_field ref, out;
    if (!p || flow_context_create(d, W, H, C, p, &ctx) != FLOW_OK) {
        CHECK(!"context");
        flow_params_destroy(p);
        return;
    }
    CHECK_OK(flow_field_alloc(&ref, W, H));
    CHECK_OK(flow_field_alloc(&out, W, H));
    CHECK_OK(flow_context_compute(ctx, a, b, &ref));
    CHECK(all_finite(&ref));
    const int x = 11, y = 7, c = 2;
    for (int k = 0; k < NBAD; k++)
        for (int frame = 0; frame < 2; frame++) {
            flow_image *f = frame ? b : a;
            if (frame)
                CHECK_OK(flow_context_submit(ctx, a, NULL)); /* a is the kept frame */
            const float keep = *at(f, x, y, c);
            *at(f, x, y, c) = bad[k].value;
            const char *what = frame ? "second frame has " : "first frame has ";
            CHECK(flow_context_compute(ctx, a, b, &out) == FLOW_ERR_INVALID);
            CHECK(detail_names(what, bad[k].said, x, y, c));
            if (frame) {
                CHECK(flow_context_compute_next(ctx, b, &out) == FLOW_ERR_INVALID);
                CHECK(detail_names(what, bad[k].said, x, y, c));
                CHECK(flow_context_submit(ctx, b, &out) == FLOW_ERR_INVALID);
                CHECK(detail_names(what, bad[k].said, x, y, c));
                CHECK(flow_context_queued(ctx) == 0);
            } else {
                CHECK(flow_context_submit(ctx, a, NULL) == FLOW_ERR_INVALID);
                CHECK(detail_names(what, bad[k].said, x, y, c));
            }
            *at(f, x, y, c) = keep;
            /* nothing changed: the refusals left a as the kept frame */
            if (frame) {
                CHECK_OK(flow_context_submit(ctx, b, &out));
                CHECK_OK(flow_context_collect(ctx, NULL, NULL));
            } else
                CHECK_OK(flow_context_compute(ctx, a, b, &out));
            CHECK(memcmp(out.u, ref.u, sizeof(float) * W * H) == 0
                  && memcmp(out.v, ref.v, sizeof(float) * W * H) == 0);
        }
    flow_field_free(&ref), flow_field_free(&out);
    flow_context_destroy(ctx);
    flow_params_destroy(p);
}

static void test_every_method_refuses(void)
{
    flow_device *d = harness_device();
    if (!d)
        return;
    flow_image a, b;
    make_pair(&a, &b);
    for (int i = 0; flow_method_at(i); i++) {
        const int before = harness_failed_checks;
        refuses(flow_method_at(i), d, &a, &b);
        if (harness_failed_checks != before)
            printf("    (method %s)\n", flow_method_at(i));
    }
    flow_image_free(&a), flow_image_free(&b);
}

/* Values at the bound: the textures stretched to -1e6 .. 1e6 give every
 * method a finite flow (what FLOW_IMAGE_VALUE_MAX promises). */
static void test_bound_gives_finite_flow(void)
{
    flow_device *d = harness_device();
    if (!d)
        return;
    flow_image a, b;
    make_pair(&a, &b);
    const float m = (float)FLOW_IMAGE_VALUE_MAX;
    for (int i = 0; i < W * H * C; i++) {
        a.data[i] = fminf(fmaxf((a.data[i] - 127.5f) / 127.5f * m, -m), m);
        b.data[i] = fminf(fmaxf((b.data[i] - 127.5f) / 127.5f * m, -m), m);
    }
    *at(&a, 0, 0, 0) = m, *at(&b, 1, 0, 0) = -m;
    flow_field out;
    CHECK_OK(flow_field_alloc(&out, W, H));
    for (int i = 0; flow_method_at(i); i++) {
        flow_params *p = harness_params(flow_method_at(i), NULL);
        flow_context *ctx = NULL;
        if (p && flow_context_create(d, W, H, C, p, &ctx) == FLOW_OK) {
            const flow_status s = flow_context_compute(ctx, &a, &b, &out);
            CHECK(s == FLOW_OK && all_finite(&out));
            if (s != FLOW_OK || !all_finite(&out))
                printf("    method %s: %s\n", flow_method_at(i),
                       s == FLOW_OK ? "a non-finite flow" : flow_last_error());
        } else
            CHECK(!"context");
        flow_context_destroy(ctx);
        flow_params_destroy(p);
    }
    flow_field_free(&out);
    flow_image_free(&a), flow_image_free(&b);
}

/* The tracker refuses a bad frame the same way, and tracks on after it. */
static void test_tracker_refuses(void)
{
    flow_device *d = harness_device();
    if (!d)
        return;
    flow_track_params tp;
    flow_track_defaults(&tp);
    flow_tracker *t = NULL;
    CHECK_OK(flow_tracker_create(d, W, H, &tp, &t));
    if (!t)
        return;
    flow_image a, b;
    make_pair(&a, &b);
    CHECK_OK(flow_tracker_next(t, &a));
    const int alive = flow_tracker_alive(t);
    CHECK(alive > 0);
    for (int k = 0; k < NBAD; k++) {
        *at(&b, 5, 9, 1) = bad[k].value;
        CHECK(flow_tracker_next(t, &b) == FLOW_ERR_INVALID);
        CHECK(detail_names("frame has ", bad[k].said, 5, 9, 1));
        CHECK(flow_tracker_alive(t) == alive);
    }
    *at(&b, 5, 9, 1) = 100;
    CHECK_OK(flow_tracker_next(t, &b));
    flow_tracker_destroy(t);
    flow_image_free(&a), flow_image_free(&b);
}

int main(void)
{
    RUN(test_check_values);
    RUN(test_every_method_refuses);
    RUN(test_bound_gives_finite_flow);
    RUN(test_tracker_refuses);
    return harness_report();
}
