/* test_contract.c -- what a method declares beyond a pair and its flow,
 * through the public context API on the device under test (FLOW_DEVICE):
 * the frames it reads; an initial flow (robust refines the exact flow of a
 * generated pair without losing accuracy, converges from a shifted one at
 * least as close to the truth as from nothing, and gives exactly its own
 * flow for a confidence of 0 and exactly the unweighted refinement for a
 * confidence of 1); sparse matches refused by the methods that do not
 * declare them; an extra output plane downloaded only on request (robust's
 * occlusion weight, low where a moving disc covers the background); and
 * the refusals of bad inputs. */
#include "harness.h"
#include "flow/flow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define W 96
#define H 80
#define MARGIN 6

/* The AEE of f against g over the interior. */
static double aee(const flow_field *f, const flow_field *g)
{
    double sum = 0;
    long n = 0;
    for (int y = MARGIN; y < H - MARGIN; y++)
        for (int x = MARGIN; x < W - MARGIN; x++, n++) {
            const int i = y * W + x;
            sum += hypot(f->u[i] - g->u[i], f->v[i] - g->v[i]);
        }
    return sum / (double)n;
}

static int same_field(const flow_field *f, const flow_field *g)
{
    const size_t n = sizeof(float) * W * H;
    return memcmp(f->u, g->u, n) == 0 && memcmp(f->v, g->v, n) == 0;
}

static flow_context *context(const char *method, const char *settings)
{
    flow_device *d = harness_device();
    flow_params *p = harness_params(method, settings);
    flow_context *ctx = NULL;
    if (d && p)
        CHECK_OK(flow_context_create(d, W, H, 1, p, &ctx));
    flow_params_destroy(p);
    return ctx;
}

static void test_frames(void)
{
    flow_context *a = context("robust", NULL), *b = context("robust", "previous=1");
    flow_context *c = context("hs", NULL);
    if (!a || !b || !c)
        return;
    CHECK(flow_context_frames(a) == 2);
    CHECK(flow_context_frames(b) == 3);
    CHECK(flow_context_frames(c) == 2);
    flow_context_destroy(a), flow_context_destroy(b), flow_context_destroy(c);
}

/* A smooth field of about 2 px: robust alone, then from the exact flow,
 * then from the exact flow shifted by (0.5, -0.3). */
static void test_init(void)
{
    flow_synth s = { .motion = FLOW_SYNTH_SMOOTH, .amplitude = 2.0, .wavelength = 40, .seed = 7 };
    harness_pair p;
    harness_synth_pair(&s, W, H, &p);
    flow_context *ctx = context("robust", NULL);
    flow_field own, out, shifted;
    CHECK_OK(flow_field_alloc(&own, W, H));
    CHECK_OK(flow_field_alloc(&out, W, H));
    CHECK_OK(flow_field_alloc(&shifted, W, H));
    if (!ctx)
        return;
    CHECK(flow_context_takes_init(ctx));
    CHECK_OK(flow_context_compute(ctx, &p.a, &p.b, &own));
    const double e_own = aee(&own, &p.gt);

    CHECK_OK(flow_context_set_init(ctx, &p.gt, NULL));
    CHECK_OK(flow_context_compute(ctx, &p.a, &p.b, &out));
    const double e_true = aee(&out, &p.gt);
    printf("    robust alone %.4f px, from the exact flow %.4f px\n", e_own, e_true);
    CHECK(e_true <= e_own);

    for (int i = 0; i < W * H; i++) {
        shifted.u[i] = p.gt.u[i] + 0.5f;
        shifted.v[i] = p.gt.v[i] - 0.3f;
    }
    const double e_start = aee(&shifted, &p.gt);
    CHECK_OK(flow_context_set_init(ctx, &shifted, NULL));
    CHECK_OK(flow_context_compute(ctx, &p.a, &p.b, &out));
    const double e_shift = aee(&out, &p.gt);
    printf("    from the shifted flow (%.4f px) %.4f px\n", e_start, e_shift);
    CHECK(e_shift < 0.5 * e_start);
    CHECK(e_shift <= e_own);

    /* cleared: its own flow again, exactly */
    CHECK_OK(flow_context_set_init(ctx, NULL, NULL));
    CHECK_OK(flow_context_compute(ctx, &p.a, &p.b, &out));
    CHECK(same_field(&out, &own));
    flow_context_destroy(ctx);
    flow_field_free(&own), flow_field_free(&out), flow_field_free(&shifted);
    harness_pair_free(&p);
}

/* c = 0: the start is the method's own flow; c = 1: the initial flow, as
 * without a confidence. */
static void test_confidence(void)
{
    flow_synth s = { .motion = FLOW_SYNTH_TRANSLATE, .dx = 1.2, .dy = -0.7, .seed = 3 };
    harness_pair p;
    harness_synth_pair(&s, W, H, &p);
    flow_context *ctx = context("robust", NULL);
    flow_field own, plain, out, init;
    CHECK_OK(flow_field_alloc(&own, W, H));
    CHECK_OK(flow_field_alloc(&plain, W, H));
    CHECK_OK(flow_field_alloc(&out, W, H));
    CHECK_OK(flow_field_alloc(&init, W, H));
    float *c = malloc(sizeof *c * W * H);
    if (!ctx || !c)
        return;
    for (int i = 0; i < W * H; i++) {
        init.u[i] = 1.0f + 0.2f * sinf(0.1f * (float)i);
        init.v[i] = -0.5f;
    }
    CHECK_OK(flow_context_compute(ctx, &p.a, &p.b, &own));
    CHECK_OK(flow_context_set_init(ctx, &init, NULL));
    CHECK_OK(flow_context_compute(ctx, &p.a, &p.b, &plain));
    for (int i = 0; i < W * H; i++)
        c[i] = 0.0f;
    CHECK_OK(flow_context_set_init(ctx, &init, c));
    CHECK_OK(flow_context_compute(ctx, &p.a, &p.b, &out));
    CHECK(same_field(&out, &own));
    for (int i = 0; i < W * H; i++)
        c[i] = 1.0f;
    CHECK_OK(flow_context_set_init(ctx, &init, c));
    CHECK_OK(flow_context_compute(ctx, &p.a, &p.b, &out));
    CHECK(same_field(&out, &plain));
    CHECK(!same_field(&plain, &own));
    free(c);
    flow_context_destroy(ctx);
    flow_field_free(&own), flow_field_free(&plain), flow_field_free(&out);
    flow_field_free(&init);
    harness_pair_free(&p);
}

static void test_bad_inputs(void)
{
    flow_context *ctx = context("robust", NULL), *hs = context("hs", NULL);
    flow_field small, init;
    CHECK_OK(flow_field_alloc(&small, W - 1, H));
    CHECK_OK(flow_field_alloc(&init, W, H));
    float *c = calloc((size_t)W * H, sizeof *c);
    if (!ctx || !hs || !c)
        return;
    memset(init.u, 0, sizeof(float) * W * H);
    memset(init.v, 0, sizeof(float) * W * H);
    CHECK(flow_context_set_init(ctx, &small, NULL) == FLOW_ERR_SIZE);
    CHECK(strstr(flow_last_error(), "95x80") != NULL);
    init.u[5 * W + 7] = FLOW_UNKNOWN;
    CHECK(flow_context_set_init(ctx, &init, NULL) == FLOW_ERR_INVALID);
    CHECK(strstr(flow_last_error(), "(7, 5)") != NULL);
    init.u[5 * W + 7] = 0.0f;
    c[3] = 1.5f;
    CHECK(flow_context_set_init(ctx, &init, c) == FLOW_ERR_INVALID);
    CHECK(strstr(flow_last_error(), "confidence") != NULL);
    CHECK(!flow_context_takes_init(hs));
    CHECK(flow_context_set_init(hs, &init, NULL) == FLOW_ERR_INVALID);
    CHECK(strstr(flow_last_error(), "method hs takes no initial flow") != NULL);
    const flow_match m = { 3, 4, 1, 0, 1 };
    CHECK(!flow_context_takes_matches(ctx));
    CHECK(flow_context_set_matches(ctx, &m, 1) == FLOW_ERR_INVALID);
    CHECK(strstr(flow_last_error(), "method robust takes no sparse matches") != NULL);
    /* an edge map: epic's alone, every value in [0, 1] */
    CHECK(!flow_context_takes_edges(ctx));
    CHECK(flow_context_set_edges(ctx, c) == FLOW_ERR_INVALID);
    CHECK(strstr(flow_last_error(), "method robust takes no edge map") != NULL);
    flow_context *epic = context("epic", NULL);
    if (epic) {
        CHECK(flow_context_takes_edges(epic));
        c[3] = NAN;
        CHECK(flow_context_set_edges(epic, c) == FLOW_ERR_INVALID);
        CHECK(strstr(flow_last_error(), "value nan at pixel (3, 0)") != NULL);
        c[3] = 1.0f, c[W + 2] = -0.5f;
        CHECK(flow_context_set_edges(epic, c) == FLOW_ERR_INVALID);
        CHECK(strstr(flow_last_error(), "value -0.5 at pixel (2, 1)") != NULL);
        c[W + 2] = 0.0f;
        CHECK_OK(flow_context_set_edges(epic, c));
        CHECK_OK(flow_context_set_edges(epic, NULL));
        flow_context_destroy(epic);
    }
    free(c);
    flow_field_free(&small), flow_field_free(&init);
    flow_context_destroy(ctx), flow_context_destroy(hs);
}

/* A disc moving by (3, 0) over a still background: the background it
 * covers in the second frame gets a lower occlusion weight, on average,
 * than the background that stays visible.  The flow is the same with the
 * plane requested or not. */
static void test_output_plane(void)
{
    flow_synth s = { .motion = FLOW_SYNTH_OBJECT, .odx = 3.0, .ody = 0.0, .radius = 18,
                     .seed = 5 };
    harness_pair p;
    harness_synth_pair(&s, W, H, &p);
    flow_context *ctx = context("robust", NULL), *hs = context("hs", NULL);
    flow_field plain, out;
    CHECK_OK(flow_field_alloc(&plain, W, H));
    CHECK_OK(flow_field_alloc(&out, W, H));
    float *o = malloc(sizeof *o * W * H);
    if (!ctx || !hs || !o)
        return;
    CHECK(flow_context_outputs(hs) == 0);
    CHECK(flow_context_request_output(hs, "occlusion_weight", o) == FLOW_ERR_INVALID);
    CHECK(flow_context_outputs(ctx) == 1);
    CHECK(strcmp(flow_context_output_name(ctx, 0), "occlusion_weight") == 0);
    CHECK(flow_context_output_name(ctx, 1) == NULL);
    CHECK_OK(flow_context_compute(ctx, &p.a, &p.b, &plain));
    for (int i = 0; i < W * H; i++)
        o[i] = -1.0f;
    CHECK_OK(flow_context_request_output(ctx, "occlusion_weight", o));
    CHECK_OK(flow_context_compute(ctx, &p.a, &p.b, &out));
    CHECK(same_field(&out, &plain));
    double occ = 0, vis = 0;
    long nocc = 0, nvis = 0, out_of_range = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const int i = y * W + x;
            out_of_range += !(o[i] >= 1e-6f && o[i] <= 1.0f);
            if (y < MARGIN || y >= H - MARGIN || x < MARGIN || x >= W - MARGIN)
                continue;
            if (p.gt.u[i] != 0.0f) /* on the disc */
                continue;
            /* background x is covered when x - (3, 0) lies on the disc */
            const int covered = p.gt.u[i - 3] != 0.0f;
            if (covered)
                occ += o[i], nocc++;
            else
                vis += o[i], nvis++;
        }
    CHECK(out_of_range == 0);
    CHECK(nocc > 20 && nvis > 1000);
    if (nocc && nvis) {
        printf("    occlusion weight: covered background %.3f (%ld px), visible %.3f\n",
               occ / nocc, nocc, vis / nvis);
        CHECK(occ / nocc < 0.5 * (vis / nvis));
    }
    /* no longer requested: the buffer stays as it was */
    for (int i = 0; i < W * H; i++)
        o[i] = -1.0f;
    CHECK_OK(flow_context_request_output(ctx, "occlusion_weight", NULL));
    CHECK_OK(flow_context_compute(ctx, &p.a, &p.b, &out));
    CHECK(o[0] == -1.0f && o[W * H - 1] == -1.0f);
    free(o);
    flow_context_destroy(ctx), flow_context_destroy(hs);
    flow_field_free(&plain), flow_field_free(&out);
    harness_pair_free(&p);
}

int main(void)
{
    harness_run("frames a method reads", test_frames, 1);
    harness_run("initial flow: exact and shifted", test_init, 1);
    harness_run("initial flow: confidence 0 and 1", test_confidence, 1);
    harness_run("inputs: bad values and undeclared inputs", test_bad_inputs, 1);
    harness_run("output plane on request", test_output_plane, 1);
    return harness_report();
}
