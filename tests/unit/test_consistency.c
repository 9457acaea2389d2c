/* test_consistency.c -- a pair computed both ways in one call
 * (flow_context_set_backward, flow/context.h): the backward flow is the
 * method's flow of the pair the other way round computed alone, and the
 * forward flow is the one computed without it, bit for bit, for every
 * method, and in a sequence with the frame before; the verdicts applied (flow_fb_apply) are flow_fb_check's on the
 * host; the occlusion plane is the Sundaram-Brox-Keutzer test evaluated
 * here independently; on a textured disc moving over a textured
 * background, whose occlusion mask is exact, the mask's F1 and the
 * confidence's AUSE meet measured bounds (the confidence well below the
 * order of a random ranking); bad values are refused; maps are written
 * exactly (flow_map_write). */
#include "harness.h"
#include "flow/flow.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define W 96
#define H 72

static flow_context *context(const char *method)
{
    flow_device *d = harness_device();
    flow_params *p = harness_params(method, NULL);
    flow_context *ctx = NULL;
    if (d && p)
        CHECK_OK(flow_context_create(d, W, H, 1, p, &ctx));
    flow_params_destroy(p);
    return ctx;
}

static int same(const float *a, const float *b)
{
    return memcmp(a, b, sizeof(float) * W * H) == 0;
}

/* A disc of radius 16 moving by (-3, 2) over a background moving by
 * (1, 0): integer motions, so that the occlusion mask is exact at pixels. */
static const flow_synth disc = { .motion = FLOW_SYNTH_OBJECT, .dx = 1, .dy = 0, .odx = -3,
                                 .ody = 2, .radius = 16, .seed = 11 };

/* The planes of a context computing both directions. */
typedef struct both {
    flow_field fwd, bwd;
    float occ[W * H], conf[W * H], verdict[W * H];
} both;

static void compute_both(flow_context *ctx, const harness_pair *p, double a, double b, both *o)
{
    CHECK_OK(flow_field_alloc(&o->fwd, W, H));
    CHECK_OK(flow_field_alloc(&o->bwd, W, H));
    CHECK_OK(flow_context_set_backward(ctx, 1, a, b));
    CHECK_OK(flow_context_request_output(ctx, "backward_u", o->bwd.u));
    CHECK_OK(flow_context_request_output(ctx, "backward_v", o->bwd.v));
    CHECK_OK(flow_context_request_output(ctx, "occlusion", o->occ));
    CHECK_OK(flow_context_request_output(ctx, "confidence", o->conf));
    CHECK_OK(flow_context_request_output(ctx, "fb_verdict", o->verdict));
    CHECK_OK(flow_context_compute(ctx, &p->a, &p->b, &o->fwd));
}

static void free_both(both *o)
{
    flow_field_free(&o->fwd), flow_field_free(&o->bwd);
}

/* For every method: the backward flow equals the flow of (b, a) computed
 * by a context of its own, the forward flow the flow of (a, b) computed
 * without both directions, bit for bit; and again on a second pair, the
 * context reused. */
static void test_backward_is_reverse(void)
{
    const char *methods[] = { "lk", "hs", "clg-nl", "robust", "plk", "dis", "tvl1", "epic" };
    harness_pair p;
    harness_synth_pair(&disc, W, H, &p);
    for (size_t m = 0; m < sizeof methods / sizeof *methods; m++) {
        flow_context *ctx = context(methods[m]), *alone = context(methods[m]);
        if (!ctx || !alone)
            break;
        both o;
        flow_field f, b;
        CHECK_OK(flow_field_alloc(&f, W, H));
        CHECK_OK(flow_field_alloc(&b, W, H));
        for (int round = 0; round < 2; round++) {
            const flow_image *x = round ? &p.b : &p.a, *y = round ? &p.a : &p.b;
            if (round == 0) {
                compute_both(ctx, &p, FLOW_OCCLUSION_A, FLOW_OCCLUSION_B, &o);
            } else {
                CHECK_OK(flow_context_compute(ctx, x, y, &o.fwd));
            }
            CHECK_OK(flow_context_compute(alone, y, x, &b));
            CHECK_OK(flow_context_compute(alone, x, y, &f));
            const int ok = same(o.bwd.u, b.u) && same(o.bwd.v, b.v) && same(o.fwd.u, f.u)
                           && same(o.fwd.v, f.v);
            if (!ok)
                printf("  %s, pair %d: the flows differ from those computed alone\n",
                       methods[m], round);
            CHECK(ok);
        }
        free_both(&o);
        flow_field_free(&f), flow_field_free(&b);
        flow_context_destroy(ctx), flow_context_destroy(alone);
    }
    harness_pair_free(&p);
}

/* A sequence with robust reading the frame before (previous > 0, colour
 * frames): the forward flows of a context computing both directions, whose
 * forward runs take the pair's pyramids from the backward runs and make
 * only the frame before's, are bit for bit those of a context computing
 * one direction, from the third frame on as on the first pair. */
static void test_sequence_previous(void)
{
    const flow_synth s = { .motion = FLOW_SYNTH_SMOOTH, .amplitude = 1.5, .wavelength = 30,
                           .seed = 5 };
    flow_device *d = harness_device();
    flow_params *p = harness_params("robust", "previous=0.5");
    flow_context *both_ctx = NULL, *one = NULL;
    if (!d || !p)
        return;
    CHECK_OK(flow_context_create(d, W, H, 3, p, &both_ctx));
    CHECK_OK(flow_context_create(d, W, H, 3, p, &one));
    flow_params_destroy(p);
    if (!both_ctx || !one)
        return;
    CHECK_OK(flow_context_set_backward(both_ctx, 1, FLOW_OCCLUSION_A, FLOW_OCCLUSION_B));
    flow_field a, b, *got = NULL;
    CHECK_OK(flow_field_alloc(&a, W, H));
    CHECK_OK(flow_field_alloc(&b, W, H));
    for (int t = 0; t < 4; t++) {
        flow_image f = {0};
        CHECK_OK(flow_synth_frame(&s, W, H, 3, t, &f));
        CHECK_OK(flow_context_submit(both_ctx, &f, t ? &a : NULL));
        CHECK_OK(flow_context_submit(one, &f, t ? &b : NULL));
        if (t) {
            CHECK_OK(flow_context_collect(both_ctx, &got, NULL));
            CHECK_OK(flow_context_collect(one, &got, NULL));
            const int ok = same(a.u, b.u) && same(a.v, b.v);
            if (!ok)
                printf("  frame %d: the forward flows differ\n", t);
            CHECK(ok);
        }
        flow_image_free(&f);
    }
    flow_field_free(&a), flow_field_free(&b);
    flow_context_destroy(both_ctx), flow_context_destroy(one);
}

/* The verdicts with a = 0, b = t^2, applied, are flow_fb_check's with
 * threshold t on the downloaded fields, vector for vector and count for
 * count. */
static void test_verdicts_are_fb_check(void)
{
    harness_pair p;
    harness_synth_pair(&disc, W, H, &p);
    flow_context *ctx = context("dis");
    if (!ctx)
        return;
    both o;
    const double t = 0.75;
    compute_both(ctx, &p, 0, t * t, &o);
    flow_field host;
    CHECK_OK(flow_field_alloc(&host, W, H));
    memcpy(host.u, o.fwd.u, sizeof(float) * W * H);
    memcpy(host.v, o.fwd.v, sizeof(float) * W * H);
    flow_fb_stats a, b;
    CHECK_OK(flow_fb_check(&host, &o.bwd, t, &a));
    CHECK_OK(flow_fb_apply(&o.fwd, o.verdict, &b));
    CHECK(same(host.u, o.fwd.u) && same(host.v, o.fwd.v));
    CHECK(a.kept == b.kept && a.outside == b.outside && a.inconsistent == b.inconsistent
          && a.unknown_bwd == b.unknown_bwd && a.unknown_fwd == b.unknown_fwd);
    CHECK(a.kept < W * H && a.inconsistent > 0); /* the disc's edges fail it */
    float bad[W * H];
    memcpy(bad, o.verdict, sizeof bad);
    bad[7] = 5.0f;
    CHECK(flow_fb_apply(&o.fwd, bad, NULL) == FLOW_ERR_INVALID);
    bad[7] = 0.5f;
    CHECK(flow_fb_apply(&o.fwd, bad, NULL) == FLOW_ERR_INVALID);
    flow_field_free(&host);
    free_both(&o);
    flow_context_destroy(ctx);
    harness_pair_free(&p);
}

/* The backward flow at (qx, qy), bilinearly, in double; 0 outside. */
static int sample(const flow_field *b, double qx, double qy, double *u, double *v)
{
    if (qx < 0 || qy < 0 || qx > W - 1 || qy > H - 1)
        return 0;
    const int x0 = (int)floor(qx), y0 = (int)floor(qy);
    const int x1 = x0 + 1 < W ? x0 + 1 : x0, y1 = y0 + 1 < H ? y0 + 1 : y0;
    const double fx = qx - x0, fy = qy - y0;
    const int i00 = y0 * W + x0, i01 = y0 * W + x1, i10 = y1 * W + x0, i11 = y1 * W + x1;
    *u = (1 - fy) * ((1 - fx) * b->u[i00] + fx * b->u[i01]) + fy * ((1 - fx) * b->u[i10] + fx * b->u[i11]);
    *v = (1 - fy) * ((1 - fx) * b->v[i00] + fx * b->v[i01]) + fy * ((1 - fx) * b->v[i10] + fx * b->v[i11]);
    return 1;
}

/* The occlusion plane is the test |wf + wb|^2 > a (|wf|^2 + |wb|^2) + b
 * (or the end point outside the frame), evaluated here; the confidence
 * lies in [0, 1] and is higher, on average, where the test passes. */
static void test_occlusion_is_the_test(void)
{
    harness_pair p;
    harness_synth_pair(&disc, W, H, &p);
    flow_context *ctx = context("robust");
    if (!ctx)
        return;
    both o;
    const double a = 0.01, b = 0.5;
    compute_both(ctx, &p, a, b, &o);
    long wrong = 0, near_boundary = 0, out_of_range = 0;
    double conf_in = 0, conf_out = 0;
    long n_in = 0, n_out = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const int i = y * W + x;
            double bu, bv;
            const double fu = o.fwd.u[i], fv = o.fwd.v[i];
            int occluded = 1;
            if (sample(&o.bwd, x + fu, y + fv, &bu, &bv)) {
                const double d2 = (fu + bu) * (fu + bu) + (fv + bv) * (fv + bv);
                const double tol = a * (fu * fu + fv * fv + bu * bu + bv * bv) + b;
                occluded = d2 > tol;
                near_boundary += fabs(d2 - tol) < 1e-5;
            }
            wrong += (o.occ[i] != 0.0f) != occluded;
            out_of_range += !(o.conf[i] >= 0.0f && o.conf[i] <= 1.0f);
            if (occluded)
                conf_out += o.conf[i], n_out++;
            else
                conf_in += o.conf[i], n_in++;
        }
    CHECK(wrong <= near_boundary);
    CHECK(out_of_range == 0);
    CHECK(n_in > 0 && n_out > 0);
    if (n_in && n_out)
        CHECK(conf_in / n_in > 2 * conf_out / n_out);
    free_both(&o);
    flow_context_destroy(ctx);
    harness_pair_free(&p);
}

/* The exact mask of the disc pair: background pixels carried under the
 * disc of the second frame or out of the frame.  Integer motions: the
 * background pixel x lands on x + (1, 0), covered when the disc of frame
 * 1 (the disc of frame 0 moved by (-3, 2)) holds it. */
static void true_mask(const harness_pair *p, unsigned char *m)
{
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const int i = y * W + x;
            const int on_disc = p->gt.u[i] == (float)disc.odx;
            const int tx = x + (int)(on_disc ? disc.odx : disc.dx);
            const int ty = y + (int)(on_disc ? disc.ody : disc.dy);
            if (tx < 0 || ty < 0 || tx >= W || ty >= H) {
                m[i] = 1;
                continue;
            }
            /* the disc of frame 1 at (tx, ty): the disc of frame 0 at (tx, ty) - od */
            const int sx = tx - (int)disc.odx, sy = ty - (int)disc.ody;
            const int covered = !on_disc && sx >= 0 && sy >= 0 && sx < W && sy < H
                                && p->gt.u[sy * W + sx] == (float)disc.odx;
            m[i] = (unsigned char)covered;
        }
}

/* On the disc pair: the occlusion mask's F1 against the exact mask, and
 * the confidence's AUSE against the forward-backward miss alone and
 * against no order at all (the EPE itself, the curve minus the oracle at
 * every step), for robust and dis.  The bounds leave a margin below what
 * was measured (docs/EVALUATION.md). */
static void test_disc_scores(void)
{
    harness_pair p;
    harness_synth_pair(&disc, W, H, &p);
    unsigned char truth[W * H], est[W * H];
    true_mask(&p, truth);
    const char *methods[] = { "robust", "dis" };
    const double f1_min[] = { 0.6, 0.4 }, ause_max[] = { 0.08, 0.2 };
    for (int m = 0; m < 2; m++) {
        flow_context *ctx = context(methods[m]);
        if (!ctx)
            break;
        both o;
        compute_both(ctx, &p, FLOW_OCCLUSION_A, FLOW_OCCLUSION_B, &o);
        for (int i = 0; i < W * H; i++)
            est[i] = o.occ[i] != 0.0f;
        flow_occlusion_scores sc;
        CHECK_OK(flow_occlusion_score(est, truth, NULL, W, H, &sc));
        flow_sparsification_curve *c = malloc(sizeof *c);
        if (!c)
            break;
        CHECK_OK(flow_sparsification(&o.fwd, &p.gt, NULL, o.conf, 20, c));
        printf("  %s: occlusion F1 %.3f (precision %.3f, recall %.3f), AUSE %.4f px of EPE "
               "%.4f px\n",
               methods[m], sc.f1, sc.precision, sc.recall, c->ause, c->curve[0]);
        CHECK(sc.f1 >= f1_min[m]);
        CHECK(c->ause_relative <= ause_max[m]);
        free(c);
        free_both(&o);
        flow_context_destroy(ctx);
    }
    harness_pair_free(&p);
}

/* Bad values of a and b, a plane of both directions asked for while they
 * are off, and the planes' names while on. */
static void test_bad_values(void)
{
    flow_context *ctx = context("hs");
    if (!ctx)
        return;
    float plane[W * H];
    CHECK(flow_context_outputs(ctx) == 0);
    CHECK(flow_context_request_output(ctx, "occlusion", plane) == FLOW_ERR_INVALID);
    CHECK(flow_context_set_backward(ctx, 1, -0.1, 0.5) == FLOW_ERR_INVALID);
    CHECK(flow_context_set_backward(ctx, 1, NAN, 0.5) == FLOW_ERR_INVALID);
    CHECK(flow_context_set_backward(ctx, 1, 0.01, -1) == FLOW_ERR_INVALID);
    CHECK(flow_context_set_backward(ctx, 1, 0.01, INFINITY) == FLOW_ERR_INVALID);
    CHECK(strstr(flow_last_error(), "inf") != NULL);
    CHECK(!flow_context_backward(ctx));
    CHECK_OK(flow_context_set_backward(ctx, 1, 0.01, 0.5));
    CHECK(flow_context_backward(ctx));
    const char *names[] = { "backward_u", "backward_v", "occlusion", "confidence", "fb_verdict" };
    CHECK(flow_context_outputs(ctx) == 5);
    for (int i = 0; i < 5; i++)
        CHECK(strcmp(flow_context_output_name(ctx, i), names[i]) == 0);
    CHECK_OK(flow_context_set_backward(ctx, 0, 0, 0));
    CHECK(flow_context_outputs(ctx) == 0);
    flow_context_destroy(ctx);
}

/* flow_map_write: a .pfm holds the values exactly (rows from the bottom),
 * a .png their 16-bit codes; a value outside [0, 1] or another extension
 * is refused and writes nothing. */
static void test_map_write(void)
{
    const int w = 5, h = 3;
    float v[15];
    for (int i = 0; i < w * h; i++)
        v[i] = (float)i / 14.0f;
    char dir[] = "/tmp/flow-map-XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(0);
        return;
    }
    char pfm[64], png[64], bad[64];
    snprintf(pfm, sizeof pfm, "%s/c.pfm", dir);
    snprintf(png, sizeof png, "%s/c.png", dir);
    snprintf(bad, sizeof bad, "%s/c.txt", dir);
    CHECK_OK(flow_map_write(pfm, v, w, h));
    FILE *f = fopen(pfm, "rb");
    char header[32] = {0};
    float got[15];
    int ok = f && fread(header, 1, 12, f) == 12 && memcmp(header, "Pf\n5 3\n-1\n", 10) == 0;
    if (ok)
        fseek(f, 10, SEEK_SET);
    for (int y = h - 1; ok && y >= 0; y--)
        ok = fread(got + y * w, sizeof(float), (size_t)w, f) == (size_t)w;
    if (f)
        fclose(f);
    CHECK(ok && memcmp(got, v, sizeof v) == 0);
    const flow_status s = flow_map_write(png, v, w, h);
    CHECK(s == FLOW_OK || s == FLOW_ERR_UNSUPPORTED); /* a build without libpng */
    if (s == FLOW_OK) {
        flow_image img = {0};
        CHECK_OK(flow_image_read(png, &img));
        int exact = img.width == w && img.height == h && img.channels == 1;
        for (int i = 0; exact && i < w * h; i++)
            exact = fabsf(img.data[i] - (float)(lrintf(v[i] * 65535.0f) * (255.0 / 65535.0)))
                    < 1e-3f;
        CHECK(exact);
        flow_image_free(&img);
        unlink(png);
    }
    v[4] = 1.5f;
    CHECK(flow_map_write(bad, v, w, h) == FLOW_ERR_INVALID);
    CHECK(flow_map_write(pfm, v, w, h) == FLOW_ERR_INVALID);
    CHECK(strstr(flow_last_error(), "(4, 0)") != NULL);
    v[4] = 0.5f;
    CHECK(flow_map_write(bad, v, w, h) == FLOW_ERR_INVALID);
    CHECK(access(bad, F_OK) != 0);
    unlink(pfm);
    rmdir(dir);
}

int main(void)
{
    harness_run("backward flow = the reverse pair alone, every method", test_backward_is_reverse, 1);
    harness_run("sequence with the frame before: forward flow = one direction's",
                test_sequence_previous, 1);
    harness_run("verdicts applied = flow_fb_check", test_verdicts_are_fb_check, 1);
    harness_run("occlusion plane = the test", test_occlusion_is_the_test, 1);
    harness_run("disc pair: occlusion F1 and AUSE", test_disc_scores, 1);
    harness_run("bad values and plane names", test_bad_values, 1);
    harness_run("confidence maps written exactly", test_map_write, 1);
    return harness_report();
}
