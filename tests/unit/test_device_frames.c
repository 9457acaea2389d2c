/* test_device_frames.c -- frames and flows in the GPU's memory
 * (flow_context_submit_device, flow_context_set_device_output,
 * flow_context_request_output_device, flow_context_after_stream,
 * flow_device_alloc, flow_device_check_pointer).  On the CPU every call is
 * refused as unsupported and the context computes on.  On CUDA a flow
 * written into the GPU's memory, handed back as two frames, gives the flow
 * of the same values handed over from the host, bit for bit (so both the
 * output and the input path carry the values exactly); the planes of both
 * directions requested into the GPU's memory are those downloaded to the
 * host, bit for bit (copy_plane, which writes them, is checked on its own
 * on every device); host memory, a wrong size and another GPU's memory are
 * refused naming what is wrong.  Runs on the device of FLOW_DEVICE
 * (default cpu). */
#include "harness.h"
#include "device/device.h"
#include "flow/flow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 48
#define H 40

static int on_cuda(flow_device *d)
{
    return strcmp(flow_device_kind(d), "cuda") == 0;
}

/* The test's CUDA device, or NULL (skipped on any other). */
static flow_device *cuda_device(void)
{
    flow_device *d = harness_device();
    if (d && !on_cuda(d)) {
        harness_skip("not a CUDA device (FLOW_DEVICE=cuda runs it)");
        return NULL;
    }
    return d;
}

static int detail_has(const char *text)
{
    const int ok = strstr(flow_last_error(), text) != NULL;
    if (!ok)
        printf("    detail: %s\n    expected: ...%s...\n", flow_last_error(), text);
    return ok;
}

static void make_pair_of(int w, int h, flow_image *a, flow_image *b)
{
    flow_synth s;
    memset(&s, 0, sizeof s);
    s.motion = FLOW_SYNTH_TRANSLATE, s.dx = 0.6, s.dy = -0.3, s.seed = 5;
    CHECK_OK(flow_synth_frame(&s, w, h, 1, 0, a));
    CHECK_OK(flow_synth_frame(&s, w, h, 1, 1, b));
}

static void make_pair(flow_image *a, flow_image *b)
{
    make_pair_of(W, H, a, b);
}

static int same(const flow_field *x, const flow_field *y)
{
    const size_t n = sizeof(float) * W * H;
    return memcmp(x->u, y->u, n) == 0 && memcmp(x->v, y->v, n) == 0;
}

static void test_cpu_refuses(void)
{
    flow_device *d = harness_device();
    if (!d)
        return;
    if (on_cuda(d)) {
        harness_skip("a CUDA device: test_gpu_round_trip covers it");
        return;
    }
    flow_image a, b;
    make_pair(&a, &b);
    flow_field out;
    CHECK_OK(flow_field_alloc(&out, W, H));
    flow_params *p = harness_params("hs", NULL);
    flow_context *ctx = NULL;
    CHECK_OK(flow_context_create(d, W, H, 1, p, &ctx));
    if (ctx) {
        void *mem = &mem;
        CHECK(flow_device_alloc(d, 64, &mem) == FLOW_ERR_UNSUPPORTED && mem == NULL);
        CHECK(detail_has("GPU memory needs a CUDA device"));
        CHECK(flow_device_check_pointer(d, a.data, "frame") == FLOW_ERR_UNSUPPORTED);
        const flow_device_frame f = { a.data, W, H, 1, 0 };
        CHECK(flow_context_submit_device(ctx, &f, NULL) == FLOW_ERR_UNSUPPORTED);
        CHECK(flow_context_set_device_output(ctx, 1) == FLOW_ERR_UNSUPPORTED);
        CHECK(detail_has("need a CUDA device"));
        CHECK_OK(flow_context_set_device_output(ctx, 0));
        CHECK(flow_context_after_stream(ctx, 1) == FLOW_ERR_UNSUPPORTED);
        /* an output plane into the GPU's memory: no GPU memory here; an
         * unknown plane is named first, and NULL clears on any device */
        float plane[W * H];
        CHECK_OK(flow_context_set_backward(ctx, 1, FLOW_OCCLUSION_A, FLOW_OCCLUSION_B));
        CHECK(flow_context_request_output_device(ctx, "occlusion", plane)
              == FLOW_ERR_UNSUPPORTED);
        CHECK(detail_has("output plane occlusion: GPU memory needs a CUDA device, and this "
                         "one is cpu"));
        CHECK(flow_context_request_output_device(ctx, "no_such_plane", plane)
              == FLOW_ERR_INVALID);
        CHECK(detail_has("method hs has no output plane no_such_plane"));
        CHECK_OK(flow_context_request_output_device(ctx, "occlusion", NULL));
        /* the refused request left the plane unrequested: a host request
         * of it downloads it as before */
        for (int i = 0; i < W * H; i++)
            plane[i] = -1.0f;
        CHECK_OK(flow_context_request_output(ctx, "occlusion", plane));
        CHECK_OK(flow_context_compute(ctx, &a, &b, &out));
        int mask = 1;
        for (int i = 0; i < W * H; i++)
            mask &= plane[i] == 0.0f || plane[i] == 1.0f;
        CHECK(mask);
        CHECK_OK(flow_context_set_backward(ctx, 0, 0, 0));
        CHECK_OK(flow_context_compute(ctx, &a, &b, &out));
    }
    flow_context_destroy(ctx);
    flow_params_destroy(p);
    flow_field_free(&out);
    flow_image_free(&a), flow_image_free(&b);
}

/* One method: its flow into the GPU's memory, those planes back in as the
 * frames of a second flow, against the same two computations on the host. */
static void round_trip(flow_device *d, const char *method, const flow_image *a,
                       const flow_image *b)
{
    flow_params *p = harness_params(method, NULL);
    flow_context *ctx = NULL;
    flow_field host, host2, got;
    CHECK_OK(flow_field_alloc(&host, W, H));
    CHECK_OK(flow_field_alloc(&host2, W, H));
    CHECK_OK(flow_field_alloc(&got, W, H));
    void *mem = NULL;
    CHECK_OK(flow_device_alloc(d, 2 * sizeof(float) * W * H, &mem));
    CHECK_OK(flow_context_create(d, W, H, 1, p, &ctx));
    if (ctx && mem) {
        CHECK_OK(flow_context_compute(ctx, a, b, &host));
        flow_field dev = { W, H, (float *)mem, (float *)mem + W * H };
        CHECK_OK(flow_context_set_device_output(ctx, 1));
        CHECK_OK(flow_context_compute(ctx, a, b, &dev));
        CHECK_OK(flow_context_set_device_output(ctx, 0));
        /* the device's u and v as the frames of the next flow, and the
         * host's copies of them through the host path */
        const flow_device_frame fu = { dev.u, W, H, 1, 0 }, fv = { dev.v, W, H, 1, 0 };
        CHECK_OK(flow_context_after_stream(ctx, 1));
        CHECK_OK(flow_context_submit_device(ctx, &fu, NULL));
        CHECK_OK(flow_context_submit_device(ctx, &fv, &got));
        CHECK_OK(flow_context_collect(ctx, NULL, NULL));
        const flow_image iu = { W, H, 1, host.u }, iv = { W, H, 1, host.v };
        CHECK_OK(flow_context_compute(ctx, &iu, &iv, &host2));
        CHECK(same(&got, &host2));
        /* refused: host memory, a frame of another size, a host output field */
        const flow_device_frame in_host = { host.u, W, H, 1, 0 };
        CHECK(flow_context_submit_device(ctx, &in_host, NULL) == FLOW_ERR_INVALID);
        CHECK(detail_has("first frame lies in host memory"));
        const flow_device_frame narrow = { dev.u, W - 1, H, 1, 0 };
        CHECK(flow_context_submit_device(ctx, &narrow, NULL) == FLOW_ERR_SIZE);
        CHECK_OK(flow_context_set_device_output(ctx, 1));
        CHECK(flow_context_compute(ctx, a, b, &host2) == FLOW_ERR_INVALID);
        CHECK(detail_has("output field's u lies in host memory"));
        CHECK_OK(flow_context_set_device_output(ctx, 0));
        /* and it computes on as before */
        CHECK_OK(flow_context_compute(ctx, a, b, &host2));
        CHECK(same(&host, &host2));
    }
    flow_context_destroy(ctx);
    flow_device_free(d, mem);
    flow_params_destroy(p);
    flow_field_free(&host), flow_field_free(&host2), flow_field_free(&got);
}

static void test_gpu_round_trip(void)
{
    flow_device *d = cuda_device();
    if (!d)
        return;
    flow_image a, b;
    make_pair(&a, &b);
    const char *methods[] = { "hs", "clg-nl", "robust", "dis" };
    for (int i = 0; i < 4; i++)
        round_trip(d, methods[i], &a, &b);
    flow_image_free(&a), flow_image_free(&b);
}

/* The planes of both directions of one method, requested into the GPU's
 * memory (with the flow on the host, then with the flow there too),
 * against the same planes downloaded to the host, bit for bit.  Frames of
 * BW x BH: an odd width, so that the rows of the planes, packed, are not
 * aligned as the device's own are. */
#define BW 45
#define BH 31

static void both_on_device(flow_device *d, const char *method, const flow_image *a,
                           const flow_image *b)
{
    static const char *const names[] = { "backward_u", "backward_v", "occlusion", "confidence",
                                          "fb_verdict" };
    enum { N = 5, PLANES = 2 + N }; /* the flow's u and v, then the N planes */
    const size_t plane = (size_t)BW * BH;
    flow_params *p = harness_params(method, NULL);
    flow_context *ctx = NULL;
    flow_field host, got;
    float *host_planes = malloc(sizeof(float) * plane * PLANES);
    float *got_planes = malloc(sizeof(float) * plane * PLANES);
    CHECK_OK(flow_field_alloc(&host, BW, BH));
    CHECK_OK(flow_field_alloc(&got, BW, BH));
    void *mem = NULL;
    CHECK_OK(flow_device_alloc(d, sizeof(float) * plane * PLANES, &mem));
    CHECK_OK(flow_context_create(d, BW, BH, 1, p, &ctx));
    if (ctx && mem && host_planes && got_planes) {
        float *dev = mem;
        CHECK_OK(flow_context_set_backward(ctx, 1, FLOW_OCCLUSION_A, FLOW_OCCLUSION_B));
        for (int k = 0; k < N; k++)
            CHECK_OK(flow_context_request_output(ctx, names[k], host_planes + (2 + k) * plane));
        CHECK_OK(flow_context_compute(ctx, a, b, &host));
        memcpy(host_planes, host.u, sizeof(float) * plane);
        memcpy(host_planes + plane, host.v, sizeof(float) * plane);
        for (int flow_there = 0; flow_there < 2; flow_there++) {
            /* zeros where the planes go, written before the compute */
            flow_plane all = { dev, BW, BH * PLANES, BW };
            memset(got_planes, 0, sizeof(float) * plane * PLANES);
            CHECK_OK(flow_upload(d, &all, got_planes, BW));
            CHECK_OK(flow_device_synchronize(d));
            for (int k = 0; k < N; k++)
                CHECK_OK(flow_context_request_output_device(ctx, names[k],
                                                            dev + (2 + k) * plane));
            flow_field dflow = { BW, BH, dev, dev + plane };
            CHECK_OK(flow_context_set_device_output(ctx, flow_there));
            CHECK_OK(flow_context_compute(ctx, a, b, flow_there ? &dflow : &got));
            CHECK_OK(flow_context_set_device_output(ctx, 0));
            /* complete when compute returns; the flow is on the host in
             * the first pass */
            CHECK_OK(flow_download(d, got_planes, BW, &all));
            const size_t from = flow_there ? 0 : 2 * plane;
            CHECK(memcmp(got_planes + from, host_planes + from,
                         sizeof(float) * (plane * PLANES - from)) == 0);
            if (!flow_there)
                CHECK(memcmp(got.u, host.u, sizeof(float) * plane) == 0
                      && memcmp(got.v, host.v, sizeof(float) * plane) == 0);
        }
        /* refused: a plane into host memory, naming it */
        CHECK(flow_context_request_output_device(ctx, "occlusion", host.u) == FLOW_ERR_INVALID);
        CHECK(detail_has("output plane occlusion lies in host memory"));
        /* NULL: no longer; and a host request after a device one downloads */
        CHECK_OK(flow_context_request_output_device(ctx, "occlusion", NULL));
        CHECK_OK(flow_context_request_output(ctx, "confidence", got_planes));
        CHECK_OK(flow_context_compute(ctx, a, b, &got));
        CHECK(memcmp(got_planes, host_planes + (2 + 3) * plane, sizeof(float) * plane) == 0);
    }
    flow_context_destroy(ctx);
    flow_device_free(d, mem);
    flow_params_destroy(p);
    free(host_planes), free(got_planes);
    flow_field_free(&host), flow_field_free(&got);
}

static void test_both_directions_on_device(void)
{
    flow_device *d = cuda_device();
    if (!d)
        return;
    flow_image a, b;
    make_pair_of(BW, BH, &a, &b);
    const char *methods[] = { "hs", "robust", "dis" };
    for (int i = 0; i < 3; i++)
        both_on_device(d, methods[i], &a, &b);
    flow_image_free(&a), flow_image_free(&b);
}

/* copy_plane, which writes a requested plane into the caller's memory: a
 * plane of the device's own (rows pitched) into rows packed, of an odd
 * width, exactly, on the device under test (the CPU runs the same
 * per-pixel function as the GPU). */
static void test_copy_plane_packed_rows(void)
{
    flow_device *d = harness_device();
    if (!d)
        return;
    enum { PW = 45, PH = 7 };
    float want[PW * PH], got[PW * PH], host_dst[PW * PH];
    for (int i = 0; i < PW * PH; i++)
        want[i] = 0.5f * (float)i - 3.0f;
    flow_plane src = { 0 };
    void *mem = host_dst;
    CHECK_OK(flow_plane_alloc(d, &src, PW, PH));
    if (on_cuda(d))
        CHECK_OK(flow_device_alloc(d, sizeof got, &mem));
    if (src.data && mem) {
        CHECK_OK(flow_upload(d, &src, want, PW));
        flow_plane dst = { mem, PW, PH, PW };
        const flow_copy_plane_args a = { dst, src };
        CHECK_OK(flow_k_copy_plane(d, &a));
        memset(got, 0, sizeof got);
        CHECK_OK(flow_download(d, got, PW, &dst));
        CHECK(memcmp(got, want, sizeof got) == 0);
    }
    if (on_cuda(d))
        flow_device_free(d, mem);
    flow_plane_free(d, &src);
}

/* Memory of another GPU is refused, naming both. */
static void test_other_gpu_refused(void)
{
    flow_device *d = harness_device();
    if (!d)
        return;
    if (!on_cuda(d) || flow_device_count("cuda") < 2 || flow_device_index(d) != 0) {
        harness_skip("needs FLOW_DEVICE=cuda:0 and a second GPU");
        return;
    }
    flow_device *other = NULL;
    CHECK_OK(flow_device_open("cuda:1", &other));
    void *mem = NULL;
    if (other)
        CHECK_OK(flow_device_alloc(other, sizeof(float) * W * H, &mem));
    flow_params *p = harness_params("hs", NULL);
    flow_context *ctx = NULL;
    CHECK_OK(flow_context_create(d, W, H, 1, p, &ctx));
    if (ctx && mem) {
        const flow_device_frame f = { mem, W, H, 1, 0 };
        CHECK(flow_context_submit_device(ctx, &f, NULL) == FLOW_ERR_INVALID);
        CHECK(detail_has("first frame lies on cuda:1, the device is cuda:0"));
    }
    flow_context_destroy(ctx);
    flow_params_destroy(p);
    if (other) {
        flow_device_free(other, mem);
        flow_device_close(other);
    }
}

int main(void)
{
    RUN(test_cpu_refuses);
    RUN(test_gpu_round_trip);
    RUN(test_both_directions_on_device);
    RUN(test_copy_plane_packed_rows);
    RUN(test_other_gpu_refused);
    return harness_report();
}
