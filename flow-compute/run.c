/* run.c -- flow-compute's computing loop: open the device and the frame
 * source, create ONE flow context for the frame size (every buffer is
 * allocated there, seed 001 section 5.1.5), then for each consecutive pair
 * compute (--repeat times), hand the outputs to the writer thread and move
 * on, reusing the frame buffers and the flow fields.  Frames are read
 * ahead and outputs written behind by threads of their own
 * (tools-common/source.c, writer.c), so that decoding and writing overlap
 * the computation.  The observer hooks feed the timer, the workflow images
 * and the trace.  On a
 * terminal a progress line shows the live rate; a summary at the end splits
 * the time per flow into the solver and what lies outside it (decode,
 * upload, download, write) and says how long the computing thread waited.
 * With --fb-check each pair is computed both ways and the forward flow is
 * checked against the backward one (flow_fb_check) before it is written. */
#include "compute.h"

#include <string.h>
#include <unistd.h>

/* What the observer hooks reach. */
typedef struct run_state {
    ftimer *timer;
    workflow *wf;
} run_state;

static void on_stage_begin(void *user, const char *name)
{
    run_state *r = user;
    if (r->timer)
        ftimer_stage_begin(r->timer, name);
}

static void on_stage_end(void *user, const char *name)
{
    run_state *r = user;
    if (r->timer)
        ftimer_stage_end(r->timer, name);
}

static void on_trace(void *user, const char *line)
{
    (void)user;
    puts(line);
}

static void on_workflow(void *user, const char *name, const float *data, int width, int height)
{
    run_state *r = user;
    if (r->wf)
        workflow_plane(r->wf, name, data, width, height);
}

/* Exit code for a failed context call: mismatched or unsuitable frames are
 * input errors, the rest (memory, device, the computation) compute errors. */
static int compute_failure(flow_status s, const char *doing)
{
    cli_error("%s: %s", doing, *flow_last_error() ? flow_last_error() : flow_status_str(s));
    return s == FLOW_ERR_SIZE ? CLI_EXIT_IO : CLI_EXIT_COMPUTE;
}

typedef struct totals {
    long flows, frames;
    double frame_wait_ms;  /* the computing thread waiting for frames */
    double decode_ms;      /* reading and decoding, in the reader thread */
    double compute_ms;     /* the forward flows */
    double backward_ms;    /* --fb-check: the backward flows */
    double check_ms;       /* --fb-check: the checks */
    double density_sum;    /* --fb-check: over the flows */
    double write_ms;       /* writing, in the writer thread */
    double write_wait_ms;  /* the computing thread waiting for the writer */
    double wall_start;
} totals;

static void progress(const totals *t, long expected, double *last_ms, long *last_flows,
                     int final)
{
    double now = ftimer_now_ms();
    if (!final && now - *last_ms < 250)
        return;
    double rate = now > *last_ms ? 1000.0 * (t->flows - *last_flows) / (now - *last_ms) : 0;
    if (expected > 0)
        fprintf(stderr, "\rflow-compute: %ld/%ld flows, %.1f flows/s   ", t->flows, expected,
                rate);
    else
        fprintf(stderr, "\rflow-compute: %ld flows, %.1f flows/s   ", t->flows, rate);
    if (final)
        fputc('\n', stderr);
    fflush(stderr);
    *last_ms = now;
    *last_flows = t->flows;
}

static void summary(const compute_options *o, const totals *t, const ftimer *tm, int w, int h)
{
    if (!t->flows)
        return;
    const double wall = ftimer_now_ms() - t->wall_start, n = (double)t->flows;
    const double runs = n * o->repeat;
    const double upload = ftimer_stage_mean(tm, "upload"), download = ftimer_stage_mean(tm, "download");
    const double compute = t->compute_ms / runs;
    fprintf(stderr, "flow-compute: %ld flow%s of %dx%d from %ld frames in %.2f s: %.2f flows/s "
                    "sustained\n",
            t->flows, t->flows == 1 ? "" : "s", w, h, t->frames, wall / 1e3, 1e3 * n / wall);
    fprintf(stderr, "flow-compute: per flow: solver %.3f ms (compute %.3f ms less upload and "
                    "download); outside the solver: decode %.3f ms, upload %.3f ms, download "
                    "%.3f ms, write %.3f ms\n",
            compute - upload - download, compute, t->decode_ms / t->frames, upload, download,
            t->write_ms / n);
    fprintf(stderr, "flow-compute: decode and write run in threads of their own, beside the "
                    "computation, which waited %.3f ms per flow for frames and %.3f ms for "
                    "writes\n",
            t->frame_wait_ms / n, t->write_wait_ms / n);
    if (o->fb_check > 0)
        fprintf(stderr, "flow-compute: fb-check %g px: mean density %.2f%%; per flow: backward "
                        "flow %.3f ms, check %.3f ms (beside the solver figures above)\n",
                o->fb_check, 100.0 * t->density_sum / n, t->backward_ms / runs,
                t->check_ms / runs);
}

/* The backward flow f2 -> f1 into back, as the timer's stage "backward"
 * (the library's stages nest inside it), without the trace and workflow
 * hooks.  It leaves f1 on the device as the second frame: the forward flow
 * that follows is a compute_next, one upload instead of two. */
static flow_status compute_backward(flow_context *ctx, ftimer *tm, const flow_observer *obs,
                                    const flow_image *f1, const flow_image *f2, flow_field *back)
{
    flow_context_set_observer(ctx, obs);
    ftimer_stage_begin(tm, "backward");
    const flow_status s = flow_context_compute(ctx, f2, f1, back);
    ftimer_stage_end(tm, "backward");
    return s;
}

/* The check of the forward flow against the backward one, in place, as the
 * timer's stage "fb check". */
static flow_status check_forward(ftimer *tm, flow_field *field, const flow_field *back,
                                 double threshold, flow_fb_stats *st)
{
    ftimer_stage_begin(tm, "fb check");
    const flow_status s = flow_fb_check(field, back, threshold, st);
    ftimer_stage_end(tm, "fb check");
    return s;
}

static void report_fb(const compute_options *o, const char *f1, const char *f2,
                      const flow_fb_stats *st, int progress_shown)
{
    if (o->quiet)
        return;
    /* "\r": start over the progress line rather than after it */
    fprintf(stderr, "%sflow-compute: fb-check %s -> %s: density %.2f%% (%ld of %ld pixels "
                    "kept; removed: %ld disagree by more than %g px, %ld leave the frame, %ld "
                    "need an unknown backward vector, %ld were unknown)\n",
            progress_shown ? "\r" : "", f1, f2, 100.0 * st->density, st->kept, st->total,
            st->inconsistent, o->fb_check, st->outside, st->unknown_bwd, st->unknown_fwd);
}

static void params_header(const compute_options *o, const flow_device *d, const char *f1,
                          const char *f2, char *buf, size_t size)
{
    snprintf(buf, size,
             "flow-compute %s (libflow %s)\n"
             "backend: %s, device: %s\n"
             "command: %s\n"
             "frames: %s -> %s",
             flow_version(), flow_version(), flow_device_kind(d), flow_device_name(d), o->command_line, f1,
             f2);
}

static int write_timing(const compute_options *o, const ftimer *tm, const flow_device *d, int w,
                        int h, long pairs)
{
    const long pixels = (long)w * h;
    char title[1024], meta[1024], solver[32] = "-";
    snprintf(title, sizeof title,
             "timing: %ld computation%s (%ld pair%s x %d run%s) of %dx%d on %s (%s); mean per "
             "computation",
             ftimer_samples(tm), ftimer_samples(tm) == 1 ? "" : "s", pairs, pairs == 1 ? "" : "s",
             o->repeat, o->repeat == 1 ? "" : "s", w, h, flow_device_kind(d), flow_device_name(d));
    if (flow_params_get(o->params, "solver", solver, sizeof solver) != FLOW_OK)
        snprintf(solver, sizeof solver, "-");
    snprintf(meta, sizeof meta,
             "flow-compute timing: version=%s width=%d height=%d pixels=%ld samples=%ld "
             "pairs=%ld repeat=%d depth=%d backend=%s method=%s solver=%s device=%s",
             flow_version(), w, h, pixels, ftimer_samples(tm), pairs, o->repeat,
             o->timing_depth, flow_device_kind(d), flow_params_method(o->params), solver,
             flow_device_name(d));
    return ftimer_output(tm, o->timing, o->timing_file, pixels, title, meta, o->verbose);
}

int run_compute(const compute_options *o)
{
    flow_device *d = NULL;
    frame_source *src = NULL;
    flow_context *ctx = NULL;
    workflow *wf = NULL;
    ftimer *tm = NULL;
    flow_image frame[2] = {{0}, {0}};
    flow_field field = {0}, back = {0}; /* back: the backward flow of --fb-check */
    output_queue *queue = NULL;
    run_state rs = {0};
    totals t = {0};
    int rc = CLI_EXIT_OK, width = 0, height = 0;
    char prev_name[4200] = "", header[8192];

    rc = cli_open_device(o->device, COMPUTE_USAGE, o->quiet, o->verbose, &d);
    if (rc != CLI_EXIT_OK)
        return rc;
    flow_status s;
    if ((rc = source_open(&o->input, &src)) != CLI_EXIT_OK)
        goto done;
    const long nframes = source_frame_count(src);
    long expected = nframes > 0 ? nframes - 1 : -1;
    if (o->count && (expected < 0 || o->count < expected))
        expected = o->count;
    if ((rc = output_check(o, source_is_stream(src) && !o->count ? -1 : expected)) != CLI_EXIT_OK)
        goto done;
    if (o->workflow_dir && (rc = workflow_open(o->workflow_dir, &wf)) != CLI_EXIT_OK)
        goto done;
    if (o->output && (rc = output_queue_start(o, d, &queue)) != CLI_EXIT_OK)
        goto done;
    const int timed = o->timing || o->timing_file;
    if ((rc = ftimer_create(d, timed ? o->timing_depth : 1, timed, &tm)) != CLI_EXIT_OK)
        goto done;
    if (wf && timed && !o->quiet)
        fprintf(stderr, "flow-compute: notice: the timings include writing the workflow "
                        "images\n");

    cli_catch_interrupt();
    const int show_progress = !o->quiet && isatty(2) && (expected < 0 || expected > 1);
    double last_progress = ftimer_now_ms();
    long last_flows = 0;
    t.wall_start = ftimer_now_ms();

    int cur = 0, got = 0;
    double t0 = ftimer_now_ms();
    if ((rc = source_next(src, &frame[cur], &got)) != CLI_EXIT_OK)
        goto done;
    t.frame_wait_ms += ftimer_now_ms() - t0;
    if (!got) {
        cli_error("%s: no frame to read", o->input.video ? o->input.video : "input");
        rc = CLI_EXIT_IO;
        goto done;
    }
    t.frames++;
    width = frame[cur].width, height = frame[cur].height;
    snprintf(prev_name, sizeof prev_name, "%s", source_frame_name(src));
    long prev_number = source_frame_number(src);
    s = flow_context_create(d, width, height, frame[cur].channels, o->params, &ctx);
    if (s != FLOW_OK) {
        rc = compute_failure(s, prev_name);
        goto done;
    }
    /* The printed report shows the stages inside the solve, which the
     * replay of a CUDA graph hides (one stage "graph"): --timing runs the
     * launches directly.  --timing-file alone times the frame as it runs in
     * production, graph and all. */
    if (o->timing)
        flow_context_set_graphs(ctx, 0);
    if (flow_field_alloc(&field, width, height) != FLOW_OK) {
        rc = compute_failure(FLOW_ERR_NOMEM, "flow field");
        goto done;
    }
    field_pin(d, &field);
    const int fb = o->fb_check > 0;
    if (fb) {
        if (flow_field_alloc(&back, width, height) != FLOW_OK) {
            rc = compute_failure(FLOW_ERR_NOMEM, "backward flow field");
            goto done;
        }
        field_pin(d, &back);
    }
    flow_fb_stats fb_stats;
    memset(&fb_stats, 0, sizeof fb_stats);
    rs.timer = tm;
    rs.wf = wf;
    const flow_observer timing_only = {&rs, on_stage_begin, on_stage_end, NULL, NULL};
    const flow_observer first_run = {&rs, on_stage_begin, on_stage_end, o->trace ? on_trace : NULL,
                                     wf ? on_workflow : NULL};

    while (!cli_interrupted() && !(o->count && t.flows >= o->count)) {
        const int nxt = 1 - cur;
        t0 = ftimer_now_ms();
        if ((rc = source_next(src, &frame[nxt], &got)) != CLI_EXIT_OK)
            goto done;
        t.frame_wait_ms += ftimer_now_ms() - t0;
        if (!got)
            break;
        t.frames++;
        const char *next_name = source_frame_name(src);
        if (o->trace && expected != 1)
            printf("# trace of pair %ld: %s -> %s\n", prev_number, prev_name, next_name);
        if (wf) {
            if ((rc = workflow_begin_pair(wf, prev_number, expected == 1)) != CLI_EXIT_OK)
                goto done;
            workflow_image(wf, "frame1", &frame[cur]);
            workflow_image(wf, "frame2", &frame[nxt]);
        }
        for (int r = 0; r < o->repeat; r++) {
            if ((rc = ftimer_frame_begin(tm)) != CLI_EXIT_OK)
                goto done;
            const char *failed = ""; /* which part of an --fb-check run failed */
            s = FLOW_OK;
            if (fb) {
                t0 = ftimer_now_ms();
                s = compute_backward(ctx, tm, &timing_only, &frame[cur], &frame[nxt], &back);
                t.backward_ms += ftimer_now_ms() - t0;
                failed = " (the backward flow)";
            }
            if (s == FLOW_OK) {
                failed = "";
                flow_context_set_observer(ctx, r == 0 ? &first_run : &timing_only);
                t0 = ftimer_now_ms();
                /* after the first pair (or the backward flow) the device
                 * keeps frame[cur] as its second frame: only the new frame
                 * crosses the bus */
                s = fb || (r == 0 && t.flows > 0)
                        ? flow_context_compute_next(ctx, &frame[nxt], &field)
                        : flow_context_compute(ctx, &frame[cur], &frame[nxt], &field);
                t.compute_ms += ftimer_now_ms() - t0;
            }
            if (s == FLOW_OK && fb) {
                t0 = ftimer_now_ms();
                s = check_forward(tm, &field, &back, o->fb_check, &fb_stats);
                t.check_ms += ftimer_now_ms() - t0;
                failed = " (the forward-backward check)";
            }
            int trc = ftimer_frame_end(tm);
            if (s != FLOW_OK) {
                char what[4400];
                snprintf(what, sizeof what, "%s -> %s%s", prev_name, next_name, failed);
                rc = compute_failure(s, what);
                goto done;
            }
            if ((rc = trc) != CLI_EXIT_OK)
                goto done;
        }
        if (fb) {
            report_fb(o, prev_name, next_name, &fb_stats, show_progress);
            t.density_sum += fb_stats.density;
        }
        if (o->trace)
            fflush(stdout);
        if (wf && (rc = workflow_end_pair(wf, &field)) != CLI_EXIT_OK)
            goto done;
        if (o->output) {
            char name[4200];
            if ((rc = output_name(o, prev_number, name, sizeof name)) != CLI_EXIT_OK)
                goto done;
            params_header(o, d, prev_name, next_name, header, sizeof header);
            if ((rc = output_queue_put(queue, name, &field, &frame[cur], header)) != CLI_EXIT_OK)
                goto done;
        }
        t.flows++;
        if (show_progress)
            progress(&t, expected, &last_progress, &last_flows, 0);
        snprintf(prev_name, sizeof prev_name, "%s", next_name);
        prev_number = source_frame_number(src);
        cur = nxt;
    }
    if ((rc = output_queue_finish(queue, &t.write_ms, &t.write_wait_ms)) != CLI_EXIT_OK) {
        queue = NULL;
        goto done;
    }
    queue = NULL;
    t.decode_ms = source_read_ms(src);
    if (show_progress)
        progress(&t, expected, &last_progress, &last_flows, 1);
    if (!t.flows) {
        cli_error("%s: only one frame: no pair to compute",
                  o->input.video ? o->input.video : prev_name);
        rc = CLI_EXIT_IO;
        goto done;
    }
    if (!o->quiet && (t.flows > 1 || source_is_stream(src) || o->verbose))
        summary(o, &t, tm, width, height);
    rc = write_timing(o, tm, d, width, height, t.flows);
    if (rc == CLI_EXIT_OK && cli_interrupted()) {
        if (!o->quiet)
            fprintf(stderr, "flow-compute: interrupted after %ld flows\n", t.flows);
        rc = 130;
    }
done:
    if (queue) {
        int wrc = output_queue_finish(queue, NULL, NULL);
        rc = rc == CLI_EXIT_OK ? wrc : rc;
    }
    field_unpin(d, &field);
    flow_field_free(&field);
    field_unpin(d, &back);
    flow_field_free(&back);
    flow_image_free(&frame[0]);
    flow_image_free(&frame[1]);
    flow_context_destroy(ctx);
    ftimer_destroy(tm);
    workflow_close(wf);
    source_close(src);
    flow_device_close(d);
    return rc;
}
