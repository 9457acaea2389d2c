/* bench_methods.c -- the time per frame of every method (Lucas-Kanade, HS,
 * CLG and nonlinear CLG with FMG(2,2), and CLG with 200 Jacobi sweeps for
 * reference) at 316x252, 640x480, 1920x1080 and 3840x2160 gray and at
 * 316x252 colour, on the backend of FLOW_DEVICE (default: cuda when this
 * build has it and a GPU is present, else cpu), beside its memory-bandwidth
 * floor.  A benchmark, not a test: it prints a table and fails only when a
 * computation fails.
 *
 * Timing: warm-up runs, then at least MIN_RUNS (and about a second of)
 * timed runs; medians of backend events (CUDA events on the GPU):
 *   device ms  from the start of the motion tensor to the start of the
 *              download (events recorded through the context's observer):
 *              everything the GPU computes for one frame;
 *   frame ms   the whole flow_context_compute: upload of the two frames,
 *              device work, download of the flow (pageable host memory);
 *   stream ms  a frame of a sequence as flow-compute runs it: the whole
 *              flow_context_compute_next (one frame uploaded, the other
 *              kept on the device) into a page-locked flow field.
 * Floor: every backend operation a frame issues is counted by a wrapper of
 * the operations table, with the bytes it must move: each plane it reads
 * once and each plane it writes once, at its level's size (the byte model
 * is printed with the table and documented in docs/BENCHMARKS.md).  The
 * floor is those bytes over the bandwidth FLOW_BW_GBS (GB/s), or, when that
 * is unset, over the bandwidth of a large device-to-device copy measured
 * here.  A context replays its CUDA graph (flow_context_set_graphs) unless
 * FLOW_BENCH_GRAPHS=0.  Environment: FLOW_BENCH_QUICK=1 runs only the
 * 316x252 sizes with few runs (for a CPU); FLOW_BENCH_ONLY=text keeps the
 * methods whose name contains text, FLOW_BENCH_SIZE=WxH[rgb] one size;
 * FLOW_BENCH_RUNS=n times exactly n runs
 * after the warm-up (for profilers). */
#include "harness.h"
#include "flow/flow.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MIN_RUNS 15
#define MAX_RUNS 400

/* ---- byte counting wrapper of the operations table ---- */
static const flow_backend_ops *real;
static flow_backend_ops counting;
static double dev_bytes, host_bytes, launches;

#define PX(p) ((double)(p)->width * (double)(p)->height * 4.0)

/* Bytes per pixel a system's operator reads besides x and f. */
static double sys_bytes_px(const flow_system *s)
{
    if (s->flags & FLOW_SYS_PSI_D)
        return 24.0; /* all six tensor components */
    return (s->flags & FLOW_SYS_AFFINE) ? 20.0 : 12.0;
}

static double rhs_px(const flow_system *s)
{
    return (s->flags & FLOW_SYS_RHS) ? 8.0 : 0.0;
}

static flow_status w_upload(flow_backend *b, flow_plane *d, const float *s, size_t st)
{
    host_bytes += PX(d);
    return real->upload(b, d, s, st);
}
static flow_status w_download(flow_backend *b, float *d, size_t st, const flow_plane *s)
{
    host_bytes += PX(s);
    return real->download(b, d, st, s);
}
static flow_status w_fill(flow_backend *b, flow_plane *p, float v)
{
    dev_bytes += PX(p), launches++;
    return real->fill(b, p, v);
}
static flow_status w_copy(flow_backend *b, flow_plane *d, const flow_plane *s)
{
    dev_bytes += 2 * PX(d), launches++;
    return real->copy(b, d, s);
}
static flow_status w_conv_rows(flow_backend *b, flow_plane *const *d, const flow_plane *const *s,
                               int n, const flow_kernel *k)
{
    dev_bytes += 2.0 * n * PX(d[0]), launches++;
    return real->convolve_rows(b, d, s, n, k);
}
static flow_status w_conv_cols(flow_backend *b, flow_plane *const *d, const flow_plane *const *s,
                               int n, const flow_kernel *k)
{
    dev_bytes += 2.0 * n * PX(d[0]), launches++;
    return real->convolve_cols(b, d, s, n, k);
}
static flow_status w_derivatives(flow_backend *b, flow_plane *fx, flow_plane *fy, flow_plane *ft,
                                 const flow_plane *f1, const flow_plane *f2)
{
    dev_bytes += 5 * PX(f1), launches++;
    return real->derivatives(b, fx, fy, ft, f1, f2);
}
static flow_status w_products(flow_backend *b, flow_tensor *J, const flow_plane *f1,
                              const flow_plane *f2, int acc)
{
    dev_bytes += (acc ? 14 : 8) * PX(f1), launches++;
    return real->motion_products(b, J, f1, f2, acc);
}
static flow_status w_restriction(flow_backend *b, flow_plane *c, const flow_plane *f)
{
    dev_bytes += PX(c) + PX(f), launches++;
    return real->restriction(b, c, f);
}
static flow_status w_prolongation(flow_backend *b, flow_plane *f, const flow_plane *c, int acc)
{
    dev_bytes += PX(c) + (acc ? 2 : 1) * PX(f), launches++;
    return real->prolongation(b, f, c, acc);
}
static flow_status w_jacobi(flow_backend *b, const flow_system *s, flow_pair *x, flow_pair *t,
                            const flow_pair *f, float w, int n)
{
    const double px = PX(&x->u) / 4.0;
    dev_bytes += n * px * (sys_bytes_px(s) + rhs_px(s) + 16.0);
    launches += (px <= 8192) ? 1 : n;
    return real->jacobi(b, s, x, t, f, w, n);
}
static flow_status w_sor(flow_backend *b, const flow_system *s, flow_pair *x, flow_pair *t,
                         const flow_pair *f, float omega, int n)
{
    const double px = PX(&x->u) / 4.0;
    const int nl = (s->flags & (FLOW_SYS_PSI_D | FLOW_SYS_PSI_S)) != 0;
    /* two half sweeps each read all of x and write half of it; the snapshot
     * of a nonlinear sweep copies x */
    dev_bytes += n * px * (sys_bytes_px(s) + rhs_px(s) + 16.0 + 8.0 + (nl ? 16.0 : 0.0));
    launches += (px <= 8192) ? 1 : n * (nl ? 3 : 2);
    return real->sor(b, s, x, t, f, omega, n);
}
static flow_status w_residual(flow_backend *b, const flow_system *s, flow_pair *r,
                              const flow_pair *x, const flow_pair *f)
{
    dev_bytes += PX(&x->u) / 4.0 * (sys_bytes_px(s) + rhs_px(s) + 16.0), launches++;
    return real->residual(b, s, r, x, f);
}
static flow_status w_apply(flow_backend *b, const flow_system *s, flow_pair *out,
                           const flow_pair *x, int acc)
{
    dev_bytes += PX(&x->u) / 4.0 * (sys_bytes_px(s) + (acc ? 24.0 : 16.0)), launches++;
    return real->apply(b, s, out, x, acc);
}
static flow_status w_restrict_pair(flow_backend *b, flow_pair *c, flow_pair *copy,
                                   const flow_pair *f)
{
    dev_bytes += 2 * PX(&f->u) + (copy ? 4 : 2) * PX(&c->u), launches++;
    return real->restrict_pair(b, c, copy, f);
}
static flow_status w_prolong_pair(flow_backend *b, flow_pair *f, const flow_pair *c,
                                  const flow_pair *ref, int acc)
{
    dev_bytes += (ref ? 4 : 2) * PX(&c->u) + (acc ? 4 : 2) * PX(&f->u), launches++;
    return real->prolong_pair(b, f, c, ref, acc);
}
static flow_status w_restrict_tensor(flow_backend *b, flow_tensor *c, const flow_tensor *f,
                                     int with_j33)
{
    dev_bytes += (with_j33 ? 6 : 5) * (PX(&c->j11) + PX(&f->j11)), launches++;
    return real->restrict_tensor(b, c, f, with_j33);
}
static flow_status w_lk(flow_backend *b, const flow_tensor *J, flow_pair *x, float tau, int fill)
{
    dev_bytes += 7 * PX(&x->u), launches++;
    return real->lk(b, J, x, tau, fill);
}

static void install_counting(flow_backend *b)
{
    real = b->ops;
    counting = *real;
    counting.upload = w_upload;
    counting.download = w_download;
    counting.fill = w_fill;
    counting.copy = w_copy;
    counting.convolve_rows = w_conv_rows;
    counting.convolve_cols = w_conv_cols;
    counting.derivatives = w_derivatives;
    counting.motion_products = w_products;
    counting.restriction = w_restriction;
    counting.prolongation = w_prolongation;
    counting.jacobi = w_jacobi;
    counting.sor = w_sor;
    counting.residual = w_residual;
    counting.apply = w_apply;
    counting.restrict_pair = w_restrict_pair;
    counting.prolong_pair = w_prolong_pair;
    counting.restrict_tensor = w_restrict_tensor;
    counting.lk = w_lk;
    b->ops = &counting;
}

/* ---- timing ---- */
static flow_backend *be;
static void *ev_tensor, *ev_download;

static void on_stage(void *user, const char *name)
{
    (void)user;
    if (strcmp(name, "motion tensor") == 0 || strcmp(name, "pyramid") == 0
        || strcmp(name, "graph") == 0) /* the first stage on the device */
        be->ops->event_record(be, ev_tensor);
    else if (strcmp(name, "download") == 0)
        be->ops->event_record(be, ev_download);
}

static int cmp_double(const void *x, const void *y)
{
    const double a = *(const double *)x, c = *(const double *)y;
    return (a > c) - (a < c);
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* Measures the device-to-device bandwidth (GB/s, bytes read plus written)
 * with a large copy, when FLOW_BW_GBS does not give it. */
static double bandwidth_gbs(int *measured)
{
    const char *env = getenv("FLOW_BW_GBS");
    *measured = 0;
    if (env && atof(env) > 0)
        return atof(env);
    *measured = 1;
    flow_plane a, c;
    const int w = 8192, h = 4096; /* 128 MiB per plane */
    if (flow_plane_alloc(be, &a, w, h) != FLOW_OK || flow_plane_alloc(be, &c, w, h) != FLOW_OK)
        return NAN;
    void *e0, *e1;
    be->ops->event_create(be, &e0);
    be->ops->event_create(be, &e1);
    be->ops->fill(be, &a, 1.0f);
    double best = 1e30;
    for (int i = 0; i < 10; i++) {
        float ms;
        be->ops->event_record(be, e0);
        real->copy(be, &c, &a);
        be->ops->event_record(be, e1);
        be->ops->event_elapsed(be, e0, e1, &ms);
        if (i > 1 && ms < best)
            best = ms;
    }
    be->ops->event_destroy(be, e0);
    be->ops->event_destroy(be, e1);
    flow_plane_free(be, &a);
    flow_plane_free(be, &c);
    return 2.0 * w * h * 4.0 / (best * 1e-3) / 1e9;
}

typedef struct method_run {
    const char *name;
    flow_method m;
    flow_solver solver;
    int iterations;
    int warp_levels;
} method_run;

static const method_run runs[] = {
    { "LK (gauss)", FLOW_METHOD_LK, FLOW_SOLVER_FMG, 0, 0 },
    { "HS FMG(2,2)", FLOW_METHOD_HS, FLOW_SOLVER_FMG, 0, 0 },
    { "CLG FMG(2,2)", FLOW_METHOD_CLG, FLOW_SOLVER_FMG, 0, 0 },
    { "CLG-NL FMG(2,2)", FLOW_METHOD_CLG_NL, FLOW_SOLVER_FMG, 0, 0 },
    { "CLG-NL warp 5", FLOW_METHOD_CLG_NL, FLOW_SOLVER_FMG, 0, 5 },
    { "CLG J(200)", FLOW_METHOD_CLG, FLOW_SOLVER_JACOBI, 200, 0 },
};

typedef struct size {
    int w, h, channels;
} size;

static int bench_one(const method_run *r, const size *sz, double bw, int quick)
{
    flow_params p;
    flow_params_default(&p, r->m);
    p.solver = r->solver;
    p.n1 = p.n2 = 2;
    p.cycles = 1;
    if (r->iterations)
        p.iterations = r->iterations;
    p.warp_levels = r->warp_levels;
    flow_synth s = { .motion = FLOW_SYNTH_SMOOTH, .amplitude = 1.0, .wavelength = 60, .seed = 9 };
    flow_image a, c;
    flow_field out;
    flow_context *ctx = NULL;
    if (flow_synth_frame(&s, sz->w, sz->h, sz->channels, 0, &a) != FLOW_OK
        || flow_synth_frame(&s, sz->w, sz->h, sz->channels, 1, &c) != FLOW_OK
        || flow_field_alloc(&out, sz->w, sz->h) != FLOW_OK
        || flow_context_create(be, sz->w, sz->h, sz->channels, &p, &ctx) != FLOW_OK) {
        fprintf(stderr, "bench: %s\n", flow_last_error());
        return 0;
    }
    flow_observer obs;
    memset(&obs, 0, sizeof obs);
    obs.stage_begin = on_stage;
    flow_context_set_observer(ctx, &obs);
    const char *graphs = getenv("FLOW_BENCH_GRAPHS");
    flow_context_set_graphs(ctx, !(graphs && strcmp(graphs, "0") == 0));
    const char *fixed = getenv("FLOW_BENCH_RUNS");
    const int exact = fixed ? atoi(fixed) : 0;
    int used_graph = 0;
    void *e0, *e1;
    be->ops->event_create(be, &e0);
    be->ops->event_create(be, &e1);
    double dev[MAX_RUNS], frame[MAX_RUNS], bytes = 0, hbytes = 0, nlaunch = 0;
    int n = 0, ok = 1;
    const int warm = quick ? 1 : 3, min_runs = quick ? 3 : MIN_RUNS;
    const double t_start = now_ms();
    for (int i = 0; ok && i < warm + MAX_RUNS; i++) {
        dev_bytes = host_bytes = launches = 0;
        be->ops->event_record(be, e0);
        ok = flow_context_compute(ctx, &a, &c, &out) == FLOW_OK;
        be->ops->event_record(be, e1);
        used_graph = flow_context_used_graph(ctx);
        /* a graph replay issues no operation from the host: the counts come
         * from the direct run or the capture (the first run) */
        if (i == 0)
            bytes = dev_bytes, nlaunch = launches;
        hbytes = host_bytes;
        float ms_dev = 0, ms_frame = 0;
        ok = ok && be->ops->event_elapsed(be, ev_tensor, ev_download, &ms_dev) == FLOW_OK;
        ok = ok && be->ops->event_elapsed(be, e0, e1, &ms_frame) == FLOW_OK;
        if (i < warm)
            continue;
        dev[n] = ms_dev;
        frame[n] = ms_frame;
        n++;
        if (exact ? n >= exact : (n >= min_runs && now_ms() - t_start > (quick ? 0 : 1000.0)))
            break;
    }
    /* the sequence case: the frames alternate a c a c ..., each pair with
     * one upload, the flow downloaded into page-locked memory */
    double stream[MAX_RUNS];
    int ns = 0;
    const size_t field_bytes = (size_t)sz->w * sz->h * sizeof(float);
    ok = ok && flow_backend_pin(be, out.u, field_bytes) == FLOW_OK
         && flow_backend_pin(be, out.v, field_bytes) == FLOW_OK;
    for (int i = 0; ok && ns < n && i < warm + n; i++) {
        be->ops->event_record(be, e0);
        ok = flow_context_compute_next(ctx, i % 2 ? &c : &a, &out) == FLOW_OK;
        be->ops->event_record(be, e1);
        float ms = 0;
        ok = ok && be->ops->event_elapsed(be, e0, e1, &ms) == FLOW_OK;
        if (i >= warm)
            stream[ns++] = ms;
    }
    flow_backend_unpin(be, out.u);
    flow_backend_unpin(be, out.v);
    if (!ok)
        fprintf(stderr, "bench: %s: %s\n", r->name, flow_last_error());
    be->ops->event_destroy(be, e0);
    be->ops->event_destroy(be, e1);
    flow_context_destroy(ctx);
    flow_image_free(&a), flow_image_free(&c);
    flow_field_free(&out);
    if (!ok || n == 0)
        return 0;
    qsort(dev, (size_t)n, sizeof *dev, cmp_double);
    qsort(frame, (size_t)n, sizeof *frame, cmp_double);
    qsort(stream, (size_t)ns, sizeof *stream, cmp_double);
    const double md = dev[n / 2], mf = frame[n / 2], ms = stream[ns / 2];
    const double floor_ms = bytes / (bw * 1e9) * 1e3;
    const double px = (double)sz->w * sz->h;
    printf("| %-16s | %4dx%-4d %s | %8.3f | %8.1f | %8.3f | %8.3f | %6.0f | %8.3f | %5.1f | %5.0f%s | %3d | %7.1f |\n",
           r->name, sz->w, sz->h, sz->channels == 3 ? "rgb " : "gray", md, 1e3 / md, mf, ms,
           bytes / px, floor_ms, md / floor_ms, nlaunch, used_graph ? " (graph)" : "", n,
           hbytes / 1e6);
    return 1;
}

int main(void)
{
    const char *dev = getenv("FLOW_DEVICE");
    if (!dev)
        dev = flow_backend_has_cuda() ? "auto" : "cpu";
    if (flow_backend_open(dev, &be) != FLOW_OK) {
        fprintf(stderr, "bench_methods: %s\n", flow_last_error());
        return 3;
    }
    if (be->notice[0])
        fprintf(stderr, "bench_methods: %s\n", be->notice);
    install_counting(be);
    be->ops->event_create(be, &ev_tensor);
    be->ops->event_create(be, &ev_download);
    const int quick = getenv("FLOW_BENCH_QUICK") != NULL;
    int measured;
    const double bw = bandwidth_gbs(&measured);
    printf("bench_methods on %s; bandwidth %.0f GB/s (%s)\n", be->device_name, bw,
           measured ? "measured: device-to-device copy" : "FLOW_BW_GBS");
    printf("device ms: motion tensor + solve, median; frame ms: with upload and download;\n"
           "stream ms: a frame of a sequence (compute_next: one frame uploaded; page-locked flow field);\n"
           "B/px: device bytes per pixel, each operation's planes read once and written once\n"
           "(jacobi sweep: tensor 12-24 B + x 8 + f 8 if given + x' 8); floor = bytes / bandwidth;\n"
           "launches: kernel launches per frame, (graph): replayed as one CUDA graph; H2D+D2H: MB through PCIe per frame\n\n");
    printf("| method | size | device ms | fps | frame ms | stream ms | B/px | floor ms | x floor | launches | runs | H2D+D2H MB |\n"
           "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    const size sizes[5] = { { 316, 252, 1 }, { 640, 480, 1 }, { 1920, 1080, 1 },
                            { 3840, 2160, 1 }, { 316, 252, 3 } };
    int failed = 0;
    const char *only = getenv("FLOW_BENCH_ONLY"), *only_size = getenv("FLOW_BENCH_SIZE");
    for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++)
        for (int z = 0; z < 5; z++) {
            char sz_name[32];
            snprintf(sz_name, sizeof sz_name, "%dx%d%s", sizes[z].w, sizes[z].h,
                     sizes[z].channels == 3 ? "rgb" : "");
            if ((quick && sizes[z].w != 316) || (only && !strstr(runs[k].name, only))
                || (only_size && strcmp(only_size, sz_name) != 0))
                continue;
            failed += !bench_one(&runs[k], &sizes[z], bw, quick);
        }
    printf("\nseed 001 figure 6.6 (316x252, GeForce of 2010): LK 15.4 ms, HS FMG 43.8 ms, "
           "CLG FMG 50.1 ms, CLG-NL FMG 88.6 ms, CLG J(3000) 3414 ms\n");
    be->ops->event_destroy(be, ev_tensor);
    be->ops->event_destroy(be, ev_download);
    be->ops = real;
    flow_backend_close(be);
    return failed ? 3 : 0;
}
