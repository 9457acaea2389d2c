/* test_consistency_agreement.c -- CPU/GPU agreement of the forward-backward
 * planes (the operation `consistency`, pixel/occlusion.h) and of a context
 * computing both directions: the operation on the same random flows and
 * frames must give the same verdicts (the test runs in double on both)
 * and confidences within a relative 1e-5; a context on each device, on a
 * textured disc moving over a textured background, the same occlusion
 * mask at all but a few pixels and backward flows within the tolerance of
 * the methods' agreement (tests/gpu/test_methods_agreement.c). */
#include "harness.h"
#include "device/device.h"
#include "flow/flow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static flow_device *cpu, *gpu;

/* The same random plane on both devices, values in [lo, hi). */
static void random_planes(flow_plane *c, flow_plane *g, int w, int h, unsigned seed, float lo,
                          float hi)
{
    float *a = malloc(sizeof(float) * w * h);
    for (int i = 0; i < w * h; i++)
        a[i] = lo + (hi - lo) * (float)harness_uniform(&seed);
    CHECK_OK(flow_plane_alloc(cpu, c, w, h));
    CHECK_OK(flow_plane_alloc(gpu, g, w, h));
    CHECK_OK(flow_upload(cpu, c, a, (size_t)w));
    CHECK_OK(flow_upload(gpu, g, a, (size_t)w));
    free(a);
}

static float *download(flow_device *d, const flow_plane *p)
{
    float *a = malloc(sizeof(float) * p->width * p->height);
    CHECK_OK(flow_download(d, a, (size_t)p->width, p));
    return a;
}

/* Random flows of a few pixels (so that some round trips meet, some miss,
 * some leave the frame) and random frames, at several sizes and channel
 * counts. */
static void test_operation(void)
{
    const int sizes[][3] = { { 316, 252, 1 }, { 79, 63, 3 }, { 3, 2, 1 }, { 1, 1, 3 } };
    for (int s = 0; s < 4; s++) {
        const int w = sizes[s][0], h = sizes[s][1], ch = sizes[s][2];
        flow_consistency_args c, g;
        memset(&c, 0, sizeof c);
        memset(&g, 0, sizeof g);
        unsigned seed = 17 + s;
        random_planes(&c.fb.fwd.u, &g.fb.fwd.u, w, h, seed++, -3, 3);
        random_planes(&c.fb.fwd.v, &g.fb.fwd.v, w, h, seed++, -3, 3);
        random_planes(&c.fb.bwd.u, &g.fb.bwd.u, w, h, seed++, -3, 3);
        random_planes(&c.fb.bwd.v, &g.fb.bwd.v, w, h, seed++, -3, 3);
        for (int k = 0; k < ch; k++) {
            random_planes(&c.f1[k], &g.f1[k], w, h, seed++, 0, 255);
            random_planes(&c.f2[k], &g.f2[k], w, h, seed++, 0, 255);
        }
        random_planes(&c.verdict, &g.verdict, w, h, seed++, 0, 1);
        random_planes(&c.occluded, &g.occluded, w, h, seed++, 0, 1);
        random_planes(&c.confidence, &g.confidence, w, h, seed++, 0, 1);
        c.fb.a = g.fb.a = 0.01;
        c.fb.b = g.fb.b = 0.5;
        c.fb.unknown = g.fb.unknown = FLOW_UNKNOWN_THRESHOLD;
        c.channels = g.channels = ch;
        CHECK_OK(flow_k_consistency(cpu, &c));
        CHECK_OK(flow_k_consistency(gpu, &g));
        float *vc = download(cpu, &c.verdict), *vg = download(gpu, &g.verdict);
        float *oc = download(cpu, &c.occluded), *og = download(gpu, &g.occluded);
        float *cc = download(cpu, &c.confidence), *cg = download(gpu, &g.confidence);
        long differ = 0;
        double diff = 0, scale = 0;
        int nan = 0;
        for (int i = 0; i < w * h; i++) {
            differ += vc[i] != vg[i] || oc[i] != og[i];
            nan |= isnan(cc[i]) || isnan(cg[i]);
            diff = fmax(diff, fabs((double)cc[i] - cg[i]));
            scale = fmax(scale, fabs((double)cc[i]));
        }
        const double rel = nan ? INFINITY : diff / (scale > 0 ? scale : 1);
        printf("    consistency %dx%d, %d channel%s: %ld verdicts differ, confidence rel. error "
               "%.2e\n",
               w, h, ch, ch == 1 ? "" : "s", differ, rel);
        CHECK(differ == 0);
        CHECK(rel <= 1e-5);
        free(vc), free(vg), free(oc), free(og), free(cc), free(cg);
        flow_plane *pc[] = { &c.fb.fwd.u, &c.fb.fwd.v, &c.fb.bwd.u, &c.fb.bwd.v, &c.verdict,
                             &c.occluded, &c.confidence, &c.f1[0], &c.f1[1], &c.f1[2],
                             &c.f2[0], &c.f2[1], &c.f2[2] };
        flow_plane *pg[] = { &g.fb.fwd.u, &g.fb.fwd.v, &g.fb.bwd.u, &g.fb.bwd.v, &g.verdict,
                             &g.occluded, &g.confidence, &g.f1[0], &g.f1[1], &g.f1[2],
                             &g.f2[0], &g.f2[1], &g.f2[2] };
        for (int k = 0; k < 13; k++) {
            flow_plane_free(cpu, pc[k]);
            flow_plane_free(gpu, pg[k]);
        }
    }
}

#define W 160
#define H 120

/* A context computing both directions on each device: the occlusion masks
 * agree at 99% of the pixels at least, and the backward flows' mean
 * difference is below 0.05 px. */
static void test_context(void)
{
    const flow_synth s = { .motion = FLOW_SYNTH_OBJECT, .dx = 1, .dy = 0, .odx = -3, .ody = 2,
                           .radius = 24, .seed = 11 };
    flow_image a = {0}, b = {0};
    CHECK_OK(flow_synth_frame(&s, W, H, 1, 0, &a));
    CHECK_OK(flow_synth_frame(&s, W, H, 1, 1, &b));
    const char *methods[] = { "robust", "dis" };
    for (int m = 0; m < 2; m++) {
        flow_params *p = harness_params(methods[m], NULL);
        flow_context *ctx[2] = { NULL, NULL };
        flow_device *dev[2] = { cpu, gpu };
        flow_field f[2], bw[2];
        static float occ[2][W * H];
        for (int k = 0; k < 2; k++) {
            CHECK_OK(flow_field_alloc(&f[k], W, H));
            CHECK_OK(flow_field_alloc(&bw[k], W, H));
            CHECK_OK(flow_context_create(dev[k], W, H, 1, p, &ctx[k]));
            if (!ctx[k])
                return;
            CHECK_OK(flow_context_set_backward(ctx[k], 1, FLOW_OCCLUSION_A, FLOW_OCCLUSION_B));
            CHECK_OK(flow_context_request_output(ctx[k], "backward_u", bw[k].u));
            CHECK_OK(flow_context_request_output(ctx[k], "backward_v", bw[k].v));
            CHECK_OK(flow_context_request_output(ctx[k], "occlusion", occ[k]));
            CHECK_OK(flow_context_compute(ctx[k], &a, &b, &f[k]));
        }
        long differ = 0;
        double d = 0;
        for (int i = 0; i < W * H; i++) {
            differ += occ[0][i] != occ[1][i];
            d += hypot(bw[0].u[i] - bw[1].u[i], bw[0].v[i] - bw[1].v[i]);
        }
        printf("    %s: occlusion masks differ at %ld of %d pixels; backward flows by %.4f px on "
               "average\n",
               methods[m], differ, W * H, d / (W * H));
        CHECK(differ <= W * H / 100);
        CHECK(d / (W * H) < 0.05);
        for (int k = 0; k < 2; k++) {
            flow_context_destroy(ctx[k]);
            flow_field_free(&f[k]), flow_field_free(&bw[k]);
        }
        flow_params_destroy(p);
    }
    flow_image_free(&a), flow_image_free(&b);
}

int main(void)
{
    if (flow_device_open("cpu", &cpu) != FLOW_OK || flow_device_open("cuda", &gpu) != FLOW_OK) {
        printf("no CUDA device: %s\n0 passed, 1 failed\n", flow_last_error());
        flow_device_close(cpu);
        return 1;
    }
    printf("  comparing %s with %s\n", flow_device_name(cpu), flow_device_name(gpu));
    RUN(test_operation);
    RUN(test_context);
    flow_device_close(cpu);
    flow_device_close(gpu);
    return harness_report();
}
