/* bench_methods.c -- the time per frame of every method (Lucas-Kanade, HS,
 * CLG and nonlinear CLG with FMG(2,2), and CLG with 200 Jacobi sweeps for
 * reference) at 316x252, 640x480, 1920x1080 and 3840x2160 gray and at
 * 316x252 colour, on the device of FLOW_DEVICE (default: cuda when this
 * build has it and a GPU is present, else cpu), beside its memory-bandwidth
 * floor.  A benchmark, not a test: it prints a table and fails only when a
 * computation fails.
 *
 * Timing: warm-up runs, then at least MIN_RUNS (and about a second of)
 * timed runs; medians of device events (flow_event_*: CUDA events on the
 * GPU):
 *   device ms  from the start of the motion tensor to the start of the
 *              download (events recorded through the context's observer):
 *              everything the GPU computes for one frame;
 *   frame ms   the whole flow_context_compute: upload of the two frames,
 *              device work, download of the flow (pageable host memory);
 *   stream ms  a frame of a sequence computed one at a time: the whole
 *              flow_context_compute_next (one frame uploaded, the other
 *              kept on the device) into a page-locked flow field;
 *   seq ms     a frame of a sequence as flow-compute streams one: wall
 *              time per flow of flow_context_submit8 / collect with two
 *              flows in flight, 8-bit frames and flow fields page-locked
 *              (the upload and download overlap the computation).
 * Floor: every device operation a frame issues is counted by a wrapper of
 * the operations table (device/device.h; one launch per operation, the
 * small-grid smoother's sweeps in one), with the bytes it must move: each
 * plane it reads once and each plane it writes once, at its level's size
 * (the byte model is printed with the table and documented in
 * docs/BENCHMARKS.md).  The
 * floor is those bytes over the bandwidth FLOW_BW_GBS (GB/s), or, when that
 * is unset, over the bandwidth of a large device-to-device copy measured
 * here.  A context replays its CUDA graph (flow_context_set_graphs) unless
 * FLOW_BENCH_GRAPHS=0.  Environment: FLOW_BENCH_QUICK=1 runs only the
 * 316x252 sizes with few runs (for a CPU); FLOW_BENCH_ONLY=text keeps the
 * methods whose name contains text, FLOW_BENCH_SIZE=WxH[rgb] one size
 * (and no other table); FLOW_BENCH_TABLE=methods, stages (with epic's
 * stage by stage at 1024x436 and 1920x1080: each with its floor), klt,
 * concurrent or both prints that table only; FLOW_BENCH_RUNS=n times
 * exactly n runs after the warm-up (for profilers); FLOW_BENCH_PARAMS="key=value
 * ..." sets parameters on every run (with FLOW_BENCH_ONLY, on one method's).
 *
 * The tables: the time per frame of each method here; the stage tables in
 * methods/stages.c, KLT in methods/klt.c, concurrent streams in
 * methods/concurrent.c, both directions in methods/both.c; the byte counts
 * and the bandwidth in methods/counting.c. */
#include "methods/bench.h"

#include <stdlib.h>
#include <string.h>

#define MIN_RUNS 15

static const method_run runs[] = {
    { "LK (gauss)", "lk", NULL, 0, 0, NULL },
    { "HS FMG(2,2)", "hs", "fmg", 0, 0, NULL },
    { "CLG FMG(2,2)", "clg", "fmg", 0, 0, NULL },
    { "CLG-NL FMG(2,2)", "clg-nl", "fmg", 0, 0, NULL },
    { "CLG-NL warp 5", "clg-nl", "fmg", 0, 5, NULL },
    { "CLG J(200)", "clg", "jacobi", 200, 0, NULL },
    { "robust (defaults)", "robust", NULL, 0, 0, NULL },
    { "plk (defaults)", "plk", NULL, 0, 0, NULL },
    { "dis medium", "dis", NULL, 0, 0, "medium" },
    { "dis fast", "dis", NULL, 0, 0, "fast" },
    { "dis ultrafast", "dis", NULL, 0, 0, "ultrafast" },
    { "epic (defaults)", "epic", NULL, 0, 0, NULL },
};

/* seq ms: a streamed sequence a c a c ... of `flows` timed flows after
 * `warm`, FLOW_CONTEXT_DEPTH in flight (as flow-compute streams), a field
 * for each, everything the transfers touch page-locked; wall time per flow
 * between the first and the last timed collect. */
static int pipelined_ms(flow_context *ctx, const flow_image *a,
                        const flow_image *c, int warm, int flows, double *ms)
{
    flow_image8 f8[2] = {{0}, {0}};
    flow_field fld[FLOW_CONTEXT_DEPTH] = {{0}};
    int ok = to_bytes(a, &f8[0]) && to_bytes(c, &f8[1]);
    const size_t fbytes = (size_t)a->width * a->height * sizeof(float);
    const size_t ibytes = (size_t)a->width * a->height * a->channels;
    for (int k = 0; ok && k < 2; k++)
        ok = flow_device_pin(bench_dev, f8[k].data, ibytes) == FLOW_OK;
    for (int k = 0; ok && k < FLOW_CONTEXT_DEPTH; k++)
        ok = flow_field_alloc(&fld[k], a->width, a->height) == FLOW_OK
             && flow_device_pin(bench_dev, fld[k].u, fbytes) == FLOW_OK
             && flow_device_pin(bench_dev, fld[k].v, fbytes) == FLOW_OK;
    flow_context_set_observer(ctx, NULL);
    ok = ok && flow_context_submit8(ctx, &f8[0], NULL) == FLOW_OK;
    double t0 = 0;
    int done = 0;
    for (int i = 1; ok && done < warm + flows; i++) {
        if (i <= warm + flows)
            ok = flow_context_submit8(ctx, &f8[i % 2], &fld[i % FLOW_CONTEXT_DEPTH]) == FLOW_OK;
        if (ok && (flow_context_queued(ctx) == FLOW_CONTEXT_DEPTH || i > warm + flows)) {
            ok = flow_context_collect(ctx, NULL, NULL) == FLOW_OK;
            if (++done == warm)
                t0 = now_ms();
        }
    }
    *ms = ok ? (now_ms() - t0) / flows : 0;
    for (int k = 0; k < FLOW_CONTEXT_DEPTH; k++) {
        flow_device_unpin(bench_dev, fld[k].u);
        flow_device_unpin(bench_dev, fld[k].v);
        flow_field_free(&fld[k]);
    }
    for (int k = 0; k < 2; k++) {
        flow_device_unpin(bench_dev, f8[k].data);
        flow_image8_free(&f8[k]);
    }
    return ok;
}

/* The run's parameters: the method's defaults, and for the variational
 * methods the solver with 2 pre- and post-smoothing sweeps, one cycle, the
 * sweeps of the Jacobi reference and the warping levels. */
flow_params *run_params(const method_run *r)
{
    flow_params *p = NULL;
    flow_status s = flow_params_create(r->method, &p);
    if (s == FLOW_OK && r->preset)
        s = flow_params_set(p, "preset", r->preset);
    if (s == FLOW_OK && r->solver) {
        s = flow_params_set(p, "solver", r->solver);
        if (s == FLOW_OK)
            s = flow_params_set_number(p, "n1", 2);
        if (s == FLOW_OK)
            s = flow_params_set_number(p, "n2", 2);
        if (s == FLOW_OK)
            s = flow_params_set_number(p, "cycles", 1);
        if (s == FLOW_OK && r->iterations)
            s = flow_params_set_number(p, "iterations", r->iterations);
        if (s == FLOW_OK)
            s = flow_params_set_number(p, "warp_levels", r->warp_levels);
    }
    const char *extra = getenv("FLOW_BENCH_PARAMS");
    if (s == FLOW_OK && extra && !harness_params_apply(p, extra))
        s = FLOW_ERR_INVALID;
    if (s != FLOW_OK) {
        fprintf(stderr, "bench: %s: %s\n", r->name, flow_last_error());
        flow_params_destroy(p);
        return NULL;
    }
    return p;
}

static int bench_one(const method_run *r, const size *sz, double bw, int quick)
{
    flow_params *p = run_params(r);
    if (!p)
        return 0;
    flow_synth s = { .motion = FLOW_SYNTH_SMOOTH, .amplitude = 1.0, .wavelength = 60, .seed = 9 };
    flow_image a, c;
    flow_field out;
    flow_context *ctx = NULL;
    if (flow_synth_frame(&s, sz->w, sz->h, sz->channels, 0, &a) != FLOW_OK
        || flow_synth_frame(&s, sz->w, sz->h, sz->channels, 1, &c) != FLOW_OK
        || flow_field_alloc(&out, sz->w, sz->h) != FLOW_OK
        || flow_context_create(bench_dev, sz->w, sz->h, sz->channels, p, &ctx) != FLOW_OK) {
        fprintf(stderr, "bench: %s\n", flow_last_error());
        flow_params_destroy(p);
        return 0;
    }
    flow_params_destroy(p);
    flow_observer obs;
    memset(&obs, 0, sizeof obs);
    obs.stage_begin = on_stage;
    obs.stage_end = on_stage_done;
    flow_context_set_observer(ctx, &obs);
    const char *graphs = getenv("FLOW_BENCH_GRAPHS");
    flow_context_set_graphs(ctx, !(graphs && strcmp(graphs, "0") == 0));
    const char *fixed = getenv("FLOW_BENCH_RUNS");
    const int exact = fixed ? atoi(fixed) : 0;
    int used_graph = 0;
    flow_event *e0 = NULL, *e1 = NULL;
    int ok = flow_event_create(bench_dev, &e0) == FLOW_OK
             && flow_event_create(bench_dev, &e1) == FLOW_OK;
    double dev[MAX_RUNS], frame[MAX_RUNS], bytes = 0, hbytes = 0, nlaunch = 0;
    int n = 0;
    const int warm = quick ? 1 : 3, min_runs = quick ? 3 : MIN_RUNS;
    const double t_start = now_ms();
    for (int i = 0; ok && i < warm + MAX_RUNS; i++) {
        dev_bytes = host_bytes = launches = 0;
        flow_event_record(e0);
        ok = flow_context_compute(ctx, &a, &c, &out) == FLOW_OK;
        flow_event_record(e1);
        used_graph = flow_context_used_graph(ctx);
        /* a graph replay issues no operation from the host: the counts come
         * from the direct run or the capture (the first run) */
        if (i == 0)
            bytes = dev_bytes, nlaunch = launches;
        hbytes = host_bytes;
        float ms_dev = 0, ms_frame = 0;
        ok = ok && flow_event_elapsed(ev_tensor, ev_download, &ms_dev) == FLOW_OK;
        ok = ok && flow_event_elapsed(e0, e1, &ms_frame) == FLOW_OK;
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
    ok = ok && flow_device_pin(bench_dev, out.u, field_bytes) == FLOW_OK
         && flow_device_pin(bench_dev, out.v, field_bytes) == FLOW_OK;
    for (int i = 0; ok && ns < n && i < warm + n; i++) {
        flow_event_record(e0);
        ok = flow_context_compute_next(ctx, i % 2 ? &c : &a, &out) == FLOW_OK;
        flow_event_record(e1);
        float ms = 0;
        ok = ok && flow_event_elapsed(e0, e1, &ms) == FLOW_OK;
        if (i >= warm)
            stream[ns++] = ms;
    }
    flow_device_unpin(bench_dev, out.u);
    flow_device_unpin(bench_dev, out.v);
    double seq = 0;
    if (ok)
        ok = pipelined_ms(ctx, &a, &c, warm, 2 * n, &seq);
    if (!ok)
        fprintf(stderr, "bench: %s: %s\n", r->name, flow_last_error());
    flow_event_destroy(e0);
    flow_event_destroy(e1);
    flow_context_destroy(ctx);
    flow_image_free(&a), flow_image_free(&c);
    flow_field_free(&out);
    if (!ok || n == 0)
        return 0;
    const double md = median(dev, n), mf = median(frame, n), ms = median(stream, ns);
    const double floor_ms = bytes / (bw * 1e9) * 1e3;
    const double px = (double)sz->w * sz->h;
    printf("| %-16s | %4dx%-4d %s | %8.3f | %8.1f | %8.3f | %8.3f | %8.3f | %6.0f | %8.3f | %5.1f | %5.0f%s | %3d | %7.1f |\n",
           r->name, sz->w, sz->h, sz->channels == 3 ? "rgb " : "gray", md, 1e3 / md, mf, ms, seq,
           bytes / px, floor_ms, md / floor_ms, nlaunch, used_graph ? " (graph)" : "", n,
           hbytes / 1e6);
    return 1;
}

int main(void)
{
    const char *table = getenv("FLOW_BENCH_TABLE");
    if (table && strcmp(table, "methods") && strcmp(table, "stages") && strcmp(table, "klt")
        && strcmp(table, "concurrent") && strcmp(table, "both")) {
        fprintf(stderr, "bench_methods: FLOW_BENCH_TABLE=%s: not methods, stages, klt, "
                        "concurrent or both\n", table);
        return 1;
    }
    const char *dev = getenv("FLOW_DEVICE");
    if (!dev)
        dev = flow_device_has_cuda() ? "auto" : "cpu";
    if (flow_device_open(dev, &bench_dev) != FLOW_OK) {
        fprintf(stderr, "bench_methods: %s\n", flow_last_error());
        return 3;
    }
    if (flow_device_notice(bench_dev)[0])
        fprintf(stderr, "bench_methods: %s\n", flow_device_notice(bench_dev));
    install_counting(bench_dev);
    if (flow_event_create(bench_dev, &ev_tensor) != FLOW_OK
        || flow_event_create(bench_dev, &ev_download) != FLOW_OK) {
        fprintf(stderr, "bench_methods: %s\n", flow_last_error());
        return 3;
    }
#define WANTS(name) (!table || !strcmp(table, name))
    const int quick = getenv("FLOW_BENCH_QUICK") != NULL;
    int measured;
    const double bw = bandwidth_gbs(&measured);
    printf("bench_methods on %s; bandwidth %.0f GB/s (%s)\n", flow_device_name(bench_dev), bw,
           measured ? "measured: device-to-device copy" : "FLOW_BW_GBS");
    if (WANTS("methods")) {
        printf("device ms: motion tensor + solve, median; frame ms: with upload and download;\n"
               "stream ms: a frame of a sequence (compute_next: one frame uploaded; page-locked flow field);\n"
               "seq ms: a frame of a streamed sequence (submit8/collect, FLOW_CONTEXT_DEPTH flows in flight, 8-bit frames\n"
               "and flow fields page-locked; wall time per flow);\n"
               "B/px: device bytes per pixel, each operation's planes read once and written once\n"
               "(jacobi sweep: tensor 12-24 B + x 8 + f 8 if given + x' 8); floor = bytes / bandwidth;\n"
               "launches: kernel launches per frame, (graph): replayed as one CUDA graph; H2D+D2H: MB through PCIe per frame\n\n");
        printf("| method | size | device ms | fps | frame ms | stream ms | seq ms | B/px | floor ms | x floor | launches | runs | H2D+D2H MB |\n"
               "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    }
    const size sizes[5] = { { 316, 252, 1 }, { 640, 480, 1 }, { 1920, 1080, 1 },
                            { 3840, 2160, 1 }, { 316, 252, 3 } };
    int failed = 0;
    const char *only = getenv("FLOW_BENCH_ONLY"), *only_size = getenv("FLOW_BENCH_SIZE");
    for (size_t k = 0; WANTS("methods") && k < sizeof runs / sizeof runs[0]; k++)
        for (int z = 0; z < 5; z++) {
            char sz_name[32];
            snprintf(sz_name, sizeof sz_name, "%dx%d%s", sizes[z].w, sizes[z].h,
                     sizes[z].channels == 3 ? "rgb" : "");
            if ((quick && sizes[z].w != 316) || (only && !strstr(runs[k].name, only))
                || (only_size && strcmp(only_size, sz_name) != 0))
                continue;
            failed += !bench_one(&runs[k], &sizes[z], bw, quick);
        }
    if (!only_size) {
        if (WANTS("stages")) {
            stage_table(quick);
            failed += epic_stage_tables(quick, bw);
        }
        if (WANTS("klt"))
            failed += klt_table(bw, quick);
        if (WANTS("concurrent"))
            failed += conc_table(quick);
        if (WANTS("both"))
            failed += both_table(quick);
    }
#undef WANTS
    printf("\nseed 001 figure 6.6 (316x252, GeForce of 2010): LK 15.4 ms, HS FMG 43.8 ms, "
           "CLG FMG 50.1 ms, CLG-NL FMG 88.6 ms, CLG J(3000) 3414 ms\n");
    flow_event_destroy(ev_tensor);
    flow_event_destroy(ev_download);
    bench_dev->ops = real_ops;
    flow_device_close(bench_dev);
    return failed ? 3 : 0;
}
