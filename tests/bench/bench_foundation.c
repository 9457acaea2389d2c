/* bench_foundation.c -- times the foundation operations on the device named
 * by FLOW_DEVICE (default cuda) at 316x252, 640x480, 1920x1080 and
 * 3840x2160, and prints each beside its memory-bandwidth floor.
 *
 * Method: warm-up, then R runs of each operation, each bracketed by device
 * events (flow_event_*: CUDA events on the GPU); the median is reported.
 * The floor is the bytes the operation must move (each input read once,
 * each output written once) over the bandwidth measured here by a large
 * device-to-device copy.  The operations are those of the private device
 * layer (device/device.h) and the core's tensor pipeline (core/tensor.h). */
#include "harness.h"
#include "core/tensor.h"
#include "device/device.h"

#include <stdlib.h>
#include <string.h>

#define RUNS 51

static flow_device *b;

static int cmp_float(const void *x, const void *y)
{
    float a = *(const float *)x, c = *(const float *)y;
    return (a > c) - (a < c);
}

typedef flow_status (*op_fn)(void *arg);

/* Median milliseconds of RUNS timed runs after 5 warm-up runs. */
static double time_op(op_fn fn, void *arg)
{
    flow_event *start[RUNS] = { NULL }, *end[RUNS] = { NULL };
    float ms[RUNS];
    for (int i = 0; i < 5; i++)
        if (fn(arg) != FLOW_OK)
            return NAN;
    int failed = 0;
    for (int i = 0; i < RUNS && !failed; i++) {
        failed = flow_event_create(b, &start[i]) != FLOW_OK
                 || flow_event_create(b, &end[i]) != FLOW_OK
                 || flow_event_record(start[i]) != FLOW_OK || fn(arg) != FLOW_OK
                 || flow_event_record(end[i]) != FLOW_OK;
    }
    for (int i = 0; i < RUNS; i++) {
        if (!failed && flow_event_elapsed(start[i], end[i], &ms[i]) != FLOW_OK)
            failed = 1;
        flow_event_destroy(start[i]);
        flow_event_destroy(end[i]);
    }
    if (failed)
        return NAN;
    qsort(ms, RUNS, sizeof *ms, cmp_float);
    return ms[RUNS / 2];
}

typedef struct state {
    flow_plane f1, f2, tmp, fx, fy, ft, coarse, big_a, big_b;
    flow_tensor J;
    flow_tensor_work work;
    flow_kernel k_sigma, k_rho;
} state;

static flow_status op_smooth(void *a)
{
    state *s = a;
    return flow_smooth(b, &s->fx, &s->f1, &s->tmp, &s->k_sigma);
}
static flow_status op_derivatives(void *a)
{
    state *s = a;
    const flow_derivatives_args d = { s->fx, s->fy, s->ft, s->f1, s->f2 };
    return flow_k_derivatives(b, &d);
}
static flow_status op_products(void *a)
{
    state *s = a;
    const flow_motion_products_args m = { s->J, s->f1, s->f2, 0 };
    return flow_k_motion_products(b, &m);
}
static flow_status op_smooth_tensor(void *a)
{
    state *s = a;
    const flow_plane j[6] = { s->J.j11, s->J.j12, s->J.j13, s->J.j22, s->J.j23, s->J.j33 };
    const flow_plane t[6] = { s->work.t.j11, s->work.t.j12, s->work.t.j13,
                              s->work.t.j22, s->work.t.j23, s->work.t.j33 };
    flow_convolve_args c;
    memset(&c, 0, sizeof c);
    c.n = 6;
    c.k = s->k_sigma;
    for (int i = 0; i < 6; i++)
        c.dst[i] = t[i], c.src[i] = j[i];
    flow_status st = flow_k_convolve_rows(b, &c);
    for (int i = 0; i < 6; i++)
        c.dst[i] = j[i], c.src[i] = t[i];
    return st == FLOW_OK ? flow_k_convolve_cols(b, &c) : st;
}
static flow_status op_tensor(void *a)
{
    state *s = a;
    return flow_motion_tensor(b, &s->J, &s->f1, &s->f2, 1, &s->k_sigma, &s->k_rho, &s->work);
}
static flow_status op_restrict(void *a)
{
    state *s = a;
    const flow_restriction_args r = { s->coarse, s->f1 };
    return flow_k_restriction(b, &r);
}
static flow_status op_prolong(void *a)
{
    state *s = a;
    const flow_pair none = { { 0 }, { 0 } };
    const flow_prolong_pair_args p = { { s->f1, s->f2 }, { s->coarse, s->coarse }, none, 0, 0,
                                       0.0f };
    return flow_k_prolong_pair(b, &p);
}
static flow_status op_copy_big(void *a)
{
    state *s = a;
    return flow_copy(b, &s->big_b, &s->big_a);
}

static void random_plane(flow_plane *p, unsigned seed)
{
    float *h = malloc(sizeof(float) * p->width * p->height);
    for (int i = 0; i < p->width * p->height; i++)
        h[i] = (float)(255.0 * harness_uniform(&seed));
    flow_upload(b, p, h, (size_t)p->width);
    free(h);
}

int main(void)
{
    const char *spec = getenv("FLOW_DEVICE");
    if (flow_device_open(spec ? spec : "cuda", &b) != FLOW_OK) {
        fprintf(stderr, "bench_foundation: %s\n", flow_last_error());
        return 1;
    }
    state s;
    memset(&s, 0, sizeof s);
    flow_gauss_kernel(1.0, &s.k_sigma);
    flow_gauss_kernel(3.0, &s.k_rho);

    /* Bandwidth: a 4096x8192 float copy (128 MiB each way), bytes read + written. */
    flow_plane_alloc(b, &s.big_a, 4096, 8192);
    flow_plane_alloc(b, &s.big_b, 4096, 8192);
    const flow_fill_args one = { s.big_a, 1.0f };
    flow_k_fill(b, &one);
    double copy_ms = time_op(op_copy_big, &s);
    double bw = 2.0 * 4096 * 8192 * 4 / (copy_ms * 1e-3) / 1e9; /* GB/s */
    flow_plane_free(b, &s.big_a), flow_plane_free(b, &s.big_b);
    printf("# foundation benchmark on %s\n", flow_device_name(b));
    printf("# measured device bandwidth: %.0f GB/s (128 MiB device-to-device copy, median of %d)\n",
           bw, RUNS);
    printf("# sigma = 1.0 (radius 3), rho = 3.0 (radius 9); times: median of %d runs, %s\n",
           RUNS, strcmp(flow_device_kind(b), "cuda") == 0 ? "CUDA events" : "host clock");
    printf("%-11s %-34s %10s %10s %8s\n", "size", "operation", "time ms", "floor ms",
           "B/px");

    static const int sizes[][2] = { { 316, 252 }, { 640, 480 }, { 1920, 1080 }, { 3840, 2160 } };
    struct {
        const char *name;
        op_fn fn;
        double bytes_per_px; /* fine-grid pixel */
    } ops[] = {
        { "gaussian smoothing (rows+cols)", op_smooth, 16 },
        { "derivatives fx fy ft", op_derivatives, 20 },
        { "derivatives + products (6 planes)", op_products, 32 },
        { "smoothing 6 planes (one batch)", op_smooth_tensor, 96 },
        { "motion tensor, gray (pipeline)", op_tensor, 160 },
        { "restriction", op_restrict, 5 },
        { "prolongation of a pair", op_prolong, 10 },
    };
    for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
        const int w = sizes[z][0], h = sizes[z][1];
        flow_plane *planes[] = { &s.f1, &s.f2, &s.tmp, &s.fx, &s.fy, &s.ft };
        for (int i = 0; i < 6; i++)
            if (flow_plane_alloc(b, planes[i], w, h) != FLOW_OK)
                return fprintf(stderr, "%s\n", flow_last_error()), 1;
        flow_plane_alloc(b, &s.coarse, (w + 1) / 2, (h + 1) / 2);
        flow_tensor_alloc(b, &s.J, w, h);
        flow_tensor_work_alloc(b, &s.work, w, h);
        random_plane(&s.f1, 1);
        random_plane(&s.f2, 2);
        for (size_t o = 0; o < sizeof ops / sizeof *ops; o++) {
            double ms = time_op(ops[o].fn, &s);
            double floor_ms = ops[o].bytes_per_px * w * h / (bw * 1e9) * 1e3;
            char size[16];
            snprintf(size, sizeof size, "%dx%d", w, h);
            printf("%-11s %-34s %10.4f %10.4f %8.0f\n", size, ops[o].name, ms, floor_ms,
                   ops[o].bytes_per_px);
        }
        for (int i = 0; i < 6; i++)
            flow_plane_free(b, planes[i]);
        flow_plane_free(b, &s.coarse);
        flow_tensor_free(b, &s.J);
        flow_tensor_work_free(b, &s.work);
    }
    flow_device_close(b);
    return 0;
}
