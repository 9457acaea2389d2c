/* run.c -- flow-compute's computing loop: open the device and the frame
 * source, create ONE flow context for the frame size (every buffer is
 * allocated there, seed 001 section 5.1.5), then compute the flow of each
 * consecutive pair and hand it to the writers.  Frames are decoded ahead by
 * a pool of threads and outputs written behind by another
 * (tools-common/source.c, writer.c).
 *
 * Two loops.  The streaming loop (the usual case) keeps the device busy:
 * frames reach the context as 8-bit samples where the files have them,
 * from page-locked buffers, and each frame is submitted before the flow of
 * the one before is collected, so that the upload of a frame and the
 * download of a flow overlap the computation (flow_context_submit).  The
 * stepwise loop computes one pair at a time, for what looks inside a
 * computation or repeats it: --timing, --timing-file, --workflow, --trace,
 * --repeat and --fb-check (each pair computed both ways and the forward
 * flow checked against the backward one before it is written).  The
 * observer hooks feed the timer, the workflow images and the trace.  On a
 * terminal a progress line shows the live rate; a summary at the end says
 * where the time per flow went. */
#include "run.h"

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

int report_failure(flow_status s, const char *doing, const char *why)
{
    cli_error("%s: %s", doing, *why ? why : flow_status_str(s));
    /* a frame of another size, or one whose values the library refuses */
    return s == FLOW_ERR_SIZE || s == FLOW_ERR_INVALID ? CLI_EXIT_IO : CLI_EXIT_COMPUTE;
}

int compute_failure(flow_status s, const char *doing)
{
    return report_failure(s, doing, flow_last_error());
}

/* The progress line (cli.h: any message ends it first); the final call
 * draws it once more and ends it, or erases it under --quiet (shown there
 * by --progress only while the work goes on). */
static void progress(const compute_options *o, const totals *t, long expected, double *last_ms,
                     long *last_flows, int final)
{
    double now = ftimer_now_ms();
    if (!final && now - *last_ms < 250)
        return;
    double rate = now > *last_ms ? 1000.0 * (t->flows - *last_flows) / (now - *last_ms) : 0;
    if (expected > 0 && t->flows > 0 && !final) {
        /* the time left at the mean rate since the start */
        const double left_s = (now - t->wall_start) / 1000.0 * (expected - t->flows) / t->flows;
        const long secs = (long)(left_s + 0.5);
        if (secs >= 60)
            cli_progress("%ld/%ld flows, %.1f flows/s, %ld min %02ld s left", t->flows,
                         expected, rate, secs / 60, secs % 60);
        else
            cli_progress("%ld/%ld flows, %.1f flows/s, %ld s left", t->flows, expected, rate,
                         secs);
    } else if (expected > 0)
        cli_progress("%ld/%ld flows, %.1f flows/s", t->flows, expected, rate);
    else
        cli_progress("%ld flows, %.1f flows/s", t->flows, rate);
    if (final && o->quiet)
        cli_progress_clear();
    else if (final)
        cli_progress_end();
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
    cli_info("%ld flow%s of %dx%d from %ld frames in %.2f s: %.2f flows/s sustained", t->flows,
             t->flows == 1 ? "" : "s", w, h, t->frames, wall / 1e3, 1e3 * n / wall);
    cli_info("per flow: solver %.3f ms (compute %.3f ms less upload and download); outside the "
             "solver: decode %.3f ms, upload %.3f ms, download %.3f ms, write %.3f ms",
             compute - upload - download, compute, t->decode_ms / t->frames, upload, download,
             t->write_ms / n);
    cli_info("decode and write run in threads of their own, beside the computation, which "
             "waited %.3f ms per flow for frames and %.3f ms for writes",
             t->frame_wait_ms / n, t->write_wait_ms / n);
    if (o->fb_check > 0)
        cli_info("fb-check %g px: mean density %.2f%%; per flow: backward flow %.3f ms, check "
                 "%.3f ms (beside the solver figures above)",
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
                      const flow_fb_stats *st)
{
    if (o->quiet)
        return;
    cli_info("fb-check %s -> %s: density %.2f%% (%ld of %ld pixels kept; removed: %ld disagree "
             "by more than %g px, %ld leave the frame, %ld need an unknown backward vector, %ld "
             "were unknown)",
             f1, f2, 100.0 * st->density, st->kept, st->total, st->inconsistent, o->fb_check,
             st->outside, st->unknown_bwd, st->unknown_fwd);
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

int take_field(run *r, long k, flow_field **f)
{
    if (r->queue)
        return output_queue_field(r->queue, r->width, r->height, f);
    flow_field *own = &r->own[k % FLOW_CONTEXT_DEPTH];
    if (!own->u) {
        if (flow_field_alloc(own, r->width, r->height) != FLOW_OK)
            return compute_failure(FLOW_ERR_NOMEM, "flow field");
        field_pin(r->d, own);
    }
    *f = own;
    return CLI_EXIT_OK;
}

int pair_done(run *r, const flow_device *by, flow_field *field, const flow_image *frame1,
              long number, const char *name1, const char *name2, output_group *wf)
{
    if (r->queue) {
        char name[4200], header[8192];
        int rc = output_name(r->o, number, name, sizeof name);
        if (rc != CLI_EXIT_OK) {
            output_group_destroy(wf);
            output_queue_drop(r->queue, field);
            return rc;
        }
        params_header(r->o, by, name1, name2, header, sizeof header);
        rc = output_queue_put(r->queue, name, r->t.flows + 1, field, frame1, header,
                              flow_context_params(r->ctx), wf);
        if (rc != CLI_EXIT_OK)
            return rc;
    } else if (wf) {
        const int rc = output_group_commit(wf);
        output_group_destroy(wf);
        if (rc != CLI_EXIT_OK)
            return rc;
    }
    if (++r->t.flows == 1)
        r->t.first_flow_ms = ftimer_now_ms();
    if (r->show_progress)
        progress(r->o, &r->t, r->expected, &r->last_progress, &r->last_flows, 0);
    return CLI_EXIT_OK;
}

/* Says which parameters the frames reduced (a level count they do not
 * allow): the .params gives the values used.  A schema's default is an
 * "as many as fit" setting and passes without a word.  Said under --quiet
 * too: it is the only sign that a value asked for was changed. */
static void report_fitted(const flow_params *asked, const flow_params *used, int width,
                          int height)
{
    const char *method = flow_params_method(asked);
    const flow_param_info *info;
    for (int i = 0; (info = flow_method_param(method, i)) != NULL; i++) {
        double a = 0, u = 0;
        flow_params_get_number(asked, info->name, &a);
        flow_params_get_number(used, info->name, &u);
        if (a != u && a != info->def)
            cli_info("notice: %s %g does not fit %dx%d frames: %g is used (and written to the "
                     ".params)",
                     info->name, a, width, height, u);
    }
}

int create_context(run *r, int width, int height, int channels, const char *name)
{
    r->width = width, r->height = height;
    const flow_status s = flow_context_create(r->d, width, height, channels, r->o->params,
                                              &r->ctx);
    if (s != FLOW_OK)
        return compute_failure(s, name);
    report_fitted(r->o->params, flow_context_params(r->ctx), width, height);
    return CLI_EXIT_OK;
}

/* ---- the streaming loop ------------------------------------------------------ */

/* A flow in flight: its field and the frames of its pair (held until it is
 * collected: the first frame is written beside it, the second's upload
 * may still be reading it). */
typedef struct in_flight {
    flow_field *field;
    const source_frame *from, *to;
} in_flight;

flow_status submit_frame(flow_context *ctx, const source_frame *f, flow_field *out)
{
    return f->is8 ? flow_context_submit8(ctx, &f->bytes, out)
                  : flow_context_submit(ctx, &f->image, out);
}

/* Collects the oldest flow in flight and hands it on. */
static int collect_oldest(run *r, in_flight *q, int *n)
{
    flow_field *field;
    float device_ms = 0;
    const in_flight p = q[0];
    memmove(q, q + 1, sizeof *q * (size_t)--*n);
    const flow_status s = flow_context_collect(r->ctx, &field, &device_ms);
    if (s != FLOW_OK) {
        char what[8500];
        snprintf(what, sizeof what, "%s -> %s", p.from->name, p.to->name);
        source_give_back(r->src, p.from);
        return compute_failure(s, what);
    }
    r->t.compute_ms += device_ms;
    const int rc =
        pair_done(r, r->d, field, &p.from->image, p.from->number, p.from->name, p.to->name, NULL);
    source_give_back(r->src, p.from);
    return rc;
}

static int stream_loop(run *r)
{
    in_flight q[FLOW_CONTEXT_DEPTH];
    int n = 0, rc, got;
    const source_frame *prev = NULL, *next;
    double t0 = ftimer_now_ms();
    if ((rc = source_take(r->src, &prev, &got)) != CLI_EXIT_OK || !got)
        return rc;
    r->t.frame_wait_ms += ftimer_now_ms() - t0;
    r->t.frames++;
    const int channels = prev->is8 ? prev->bytes.channels : prev->image.channels;
    const int width = prev->is8 ? prev->bytes.width : prev->image.width;
    const int height = prev->is8 ? prev->bytes.height : prev->image.height;
    if ((rc = create_context(r, width, height, channels, prev->name)) != CLI_EXIT_OK)
        goto done;
    flow_status s = submit_frame(r->ctx, prev, NULL);
    if (s != FLOW_OK) {
        rc = compute_failure(s, prev->name);
        goto done;
    }
    long k = 0;
    int input_rc = CLI_EXIT_OK; /* a bad frame: the flows before it are still written */
    while (!cli_interrupted() && !(r->o->count && k >= r->o->count)) {
        t0 = ftimer_now_ms();
        if ((input_rc = source_take(r->src, &next, &got)) != CLI_EXIT_OK || !got)
            break;
        r->t.frame_wait_ms += ftimer_now_ms() - t0;
        r->t.frames++;
        flow_field *field;
        if (n == FLOW_CONTEXT_DEPTH && (rc = collect_oldest(r, q, &n)) != CLI_EXIT_OK)
            break;
        if ((rc = take_field(r, k, &field)) != CLI_EXIT_OK)
            break;
        if ((s = submit_frame(r->ctx, next, field)) != FLOW_OK) {
            char what[8500];
            snprintf(what, sizeof what, "%s -> %s", prev->name, next->name);
            source_give_back(r->src, next);
            if (r->queue)
                output_queue_drop(r->queue, field);
            rc = compute_failure(s, what);
            break;
        }
        q[n++] = (in_flight){field, prev, next};
        prev = next;
        k++;
    }
    while (n > 0 && rc == CLI_EXIT_OK)
        rc = collect_oldest(r, q, &n);
    if (rc == CLI_EXIT_OK)
        rc = input_rc;
done:
    /* a failure elsewhere leaves flows in flight: their transfers end
     * before the frames and fields go back */
    for (int i = 0; i < n; i++) {
        flow_context_collect(r->ctx, NULL, NULL);
        source_give_back(r->src, q[i].from);
        if (r->queue)
            output_queue_drop(r->queue, q[i].field);
    }
    source_give_back(r->src, prev);
    return rc;
}

static void stream_summary(const run *r)
{
    const totals *t = &r->t;
    const double now = ftimer_now_ms(), wall = now - t->wall_start, n = (double)t->flows;
    const double device = t->compute_ms / n;
    /* the rate of the flows after the first: opening the device, creating
     * the context and recording its graph are behind */
    const double rate = t->flows > 1 ? 1e3 * (n - 1) / (now - t->first_flow_ms) : 1e3 * n / wall;
    cli_info("%ld flow%s of %dx%d from %ld frames in %.2f s: %.2f flows/s sustained%s",
             t->flows, t->flows == 1 ? "" : "s", r->width, r->height, t->frames, wall / 1e3,
             rate, t->flows > 1 ? " after the first" : "");
    if (r->ndevices > 1)
        cli_info("per flow: device %.3f ms (%.1f flows/s on %d devices if they never waited): "
                 "the run kept them busy %.0f%% of the time",
                 device, 1e3 * r->ndevices / device, r->ndevices,
                 100.0 * t->compute_ms / wall / r->ndevices);
    else
        cli_info("per flow: device %.3f ms (%.1f flows/s if the device never waited): the run "
                 "kept it busy %.0f%% of the time",
                 device, 1e3 / device, 100.0 * t->compute_ms / wall);
    cli_info("beside it: decoding %.3f ms per frame on %d thread%s, writing %.3f ms per flow on "
             "%d thread%s; the computing thread waited %.3f ms per flow for frames and %.3f ms "
             "for writers",
             t->decode_ms / t->frames, source_readers(r->src),
             source_readers(r->src) == 1 ? "" : "s", t->write_ms / n, t->writers,
             t->writers == 1 ? "" : "s", t->frame_wait_ms / n, t->write_wait_ms / n);
}

/* ---- the stepwise loop ------------------------------------------------------- */

static int step_loop(run *r)
{
    const compute_options *o = r->o;
    totals *t = &r->t;
    flow_image frame[2] = {{0}, {0}};
    run_state rs = {r->tm, r->wf};
    int rc, cur = 0, got = 0;
    char prev_name[4200] = "";
    flow_field *field = NULL;

    double t0 = ftimer_now_ms();
    if ((rc = source_next(r->src, &frame[cur], &got)) != CLI_EXIT_OK || !got)
        goto done;
    t->frame_wait_ms += ftimer_now_ms() - t0;
    t->frames++;
    snprintf(prev_name, sizeof prev_name, "%s", source_frame_name(r->src));
    long prev_number = source_frame_number(r->src);
    if ((rc = create_context(r, frame[cur].width, frame[cur].height, frame[cur].channels,
                             prev_name)) != CLI_EXIT_OK)
        goto done;
    /* The printed report shows the stages inside the solve, which the
     * replay of a CUDA graph hides (one stage "graph"): --timing runs the
     * launches directly.  --timing-file alone times the frame as it runs in
     * production, graph and all. */
    if (o->timing)
        flow_context_set_graphs(r->ctx, 0);
    const int fb = o->fb_check > 0;
    if (fb) {
        if (flow_field_alloc(&r->back, r->width, r->height) != FLOW_OK) {
            rc = compute_failure(FLOW_ERR_NOMEM, "backward flow field");
            goto done;
        }
        field_pin(r->d, &r->back);
    }
    flow_fb_stats fb_stats;
    memset(&fb_stats, 0, sizeof fb_stats);
    const flow_observer timing_only = {&rs, on_stage_begin, on_stage_end, NULL, NULL};
    const flow_observer first_run = {&rs, on_stage_begin, on_stage_end, o->trace ? on_trace : NULL,
                                     r->wf ? on_workflow : NULL};

    while (!cli_interrupted() && !(o->count && t->flows >= o->count)) {
        const int nxt = 1 - cur;
        t0 = ftimer_now_ms();
        if ((rc = source_next(r->src, &frame[nxt], &got)) != CLI_EXIT_OK)
            goto done;
        t->frame_wait_ms += ftimer_now_ms() - t0;
        if (!got)
            break;
        t->frames++;
        const char *next_name = source_frame_name(r->src);
        if (o->trace && r->expected != 1)
            printf("# trace of pair %ld: %s -> %s\n", prev_number, prev_name, next_name);
        if (r->wf) {
            if ((rc = workflow_begin_pair(r->wf, prev_number, r->expected == 1)) != CLI_EXIT_OK)
                goto done;
            workflow_image(r->wf, "frame1", &frame[cur]);
            workflow_image(r->wf, "frame2", &frame[nxt]);
        }
        if ((rc = take_field(r, t->flows, &field)) != CLI_EXIT_OK)
            goto done;
        for (int k = 0; k < o->repeat; k++) {
            if ((rc = ftimer_frame_begin(r->tm)) != CLI_EXIT_OK)
                goto done;
            const char *failed = ""; /* which part of an --fb-check run failed */
            flow_status s = FLOW_OK;
            if (fb) {
                t0 = ftimer_now_ms();
                s = compute_backward(r->ctx, r->tm, &timing_only, &frame[cur], &frame[nxt],
                                     &r->back);
                t->backward_ms += ftimer_now_ms() - t0;
                failed = " (the backward flow)";
            }
            if (s == FLOW_OK) {
                failed = "";
                flow_context_set_observer(r->ctx, k == 0 ? &first_run : &timing_only);
                t0 = ftimer_now_ms();
                /* after the first pair (or the backward flow) the device
                 * keeps frame[cur] as its second frame: only the new frame
                 * crosses the bus */
                s = fb || (k == 0 && t->flows > 0)
                        ? flow_context_compute_next(r->ctx, &frame[nxt], field)
                        : flow_context_compute(r->ctx, &frame[cur], &frame[nxt], field);
                t->compute_ms += ftimer_now_ms() - t0;
            }
            if (s == FLOW_OK && fb) {
                t0 = ftimer_now_ms();
                s = check_forward(r->tm, field, &r->back, o->fb_check, &fb_stats);
                t->check_ms += ftimer_now_ms() - t0;
                failed = " (the forward-backward check)";
            }
            int trc = ftimer_frame_end(r->tm);
            if (s != FLOW_OK) {
                char what[8500];
                snprintf(what, sizeof what, "%s -> %s%s", prev_name, next_name, failed);
                rc = compute_failure(s, what);
                goto done;
            }
            if ((rc = trc) != CLI_EXIT_OK)
                goto done;
        }
        if (fb) {
            report_fb(o, prev_name, next_name, &fb_stats);
            t->density_sum += fb_stats.density;
        }
        if (o->trace)
            fflush(stdout);
        output_group *wf_files = NULL;
        if (r->wf && (rc = workflow_end_pair(r->wf, field, &wf_files)) != CLI_EXIT_OK)
            goto done;
        rc = pair_done(r, r->d, field, &frame[cur], prev_number, prev_name, next_name, wf_files);
        field = NULL;
        if (rc != CLI_EXIT_OK)
            goto done;
        snprintf(prev_name, sizeof prev_name, "%s", next_name);
        prev_number = source_frame_number(r->src);
        cur = nxt;
    }
done:
    if (field && r->queue)
        output_queue_drop(r->queue, field);
    flow_image_free(&frame[0]);
    flow_image_free(&frame[1]);
    return rc;
}

/* What needs the stepwise loop: looking inside a computation, repeating
 * it, or computing each pair both ways. */
static int stepwise(const compute_options *o)
{
    return o->timing || o->timing_file || o->workflow_dir || o->trace || o->repeat > 1
           || o->fb_check > 0;
}

int run_compute(const compute_options *o)
{
    run r;
    memset(&r, 0, sizeof r);
    r.o = o;
    int rc = cli_open_devices(o->device, COMPUTE_USAGE, o->quiet, o->verbose, r.devices,
                              CLI_DEVICES_MAX, &r.ndevices);
    if (rc != CLI_EXIT_OK)
        return rc;
    r.d = r.devices[0];
    const int stream = !stepwise(o);
    /* the pairs dealt out to the devices and not yet handed on */
    const long held = r.ndevices > 1 ? spread_pairs_held(r.ndevices) : FLOW_CONTEXT_DEPTH;
    source_options in = o->input;
    if (stream) {
        /* the vector pictures draw on the float frame */
        in.bytes = !o->vectors;
        in.pin = r.d;
        in.held = (int)held + 1;
    }
    if ((rc = source_open(&in, &r.src)) != CLI_EXIT_OK)
        goto done;
    const long nframes = source_frame_count(r.src);
    r.expected = nframes > 0 ? nframes - 1 : -1;
    if (o->count && (r.expected < 0 || o->count < r.expected))
        r.expected = o->count;
    if ((rc = output_check(o, source_is_stream(r.src) && !o->count ? -1 : r.expected))
        != CLI_EXIT_OK)
        goto done;
    /* where the outputs go is checked before anything is computed */
    if (output_wanted(o)
        && (rc = output_check_targets(o, source_first_number(r.src))) != CLI_EXIT_OK)
        goto done;
    if (o->timing_file && (rc = output_check_target(o->timing_file)) != CLI_EXIT_OK)
        goto done;
    if (o->workflow_dir && (rc = workflow_open(o->workflow_dir, &r.wf)) != CLI_EXIT_OK)
        goto done;
    if (output_wanted(o)
        && (rc = output_queue_start(o, r.d, (int)held + 1, &r.queue)) != CLI_EXIT_OK)
        goto done;
    const int timed = o->timing || o->timing_file;
    if ((rc = ftimer_create(r.d, timed ? o->timing_depth : 1, timed, &r.tm)) != CLI_EXIT_OK)
        goto done;
    if (r.wf && timed && !o->quiet)
        cli_info("notice: the timings include writing the workflow images");

    cli_catch_interrupt();
    r.show_progress = (!o->quiet || o->progress) && isatty(2)
                      && (r.expected < 0 || r.expected > 1);
    cli_progress_name(o->progress);
    r.last_progress = ftimer_now_ms();
    r.t.wall_start = ftimer_now_ms();
    rc = !stream ? step_loop(&r) : r.ndevices > 1 ? spread_loop(&r) : stream_loop(&r);
    if (rc != CLI_EXIT_OK)
        goto done;
    r.t.writers = r.queue ? output_queue_writers(r.queue) : 0;
    rc = output_queue_finish(r.queue, &r.t.write_ms, &r.t.write_wait_ms);
    r.queue = NULL;
    if (rc != CLI_EXIT_OK)
        goto done;
    r.t.decode_ms = source_read_ms(r.src);
    if (r.show_progress)
        progress(o, &r.t, r.expected, &r.last_progress, &r.last_flows, 1);
    if (!r.t.flows) {
        if (r.t.frames == 0)
            cli_error("%s: no frame to read", o->input.video ? o->input.video : "input");
        else
            cli_error("%s: only one frame: no pair to compute",
                      o->input.video ? o->input.video : source_frame_name(r.src));
        rc = CLI_EXIT_IO;
        goto done;
    }
    /* without outputs the summary is the result: the run measured the rate */
    const int measured = !o->output && !o->timing && !o->timing_file && !o->workflow_dir
                         && !o->trace;
    if (!o->quiet && (r.t.flows > 1 || source_is_stream(r.src) || o->verbose || measured)) {
        if (stream)
            stream_summary(&r);
        else
            summary(o, &r.t, r.tm, r.width, r.height);
    }
    if (!stream)
        rc = write_timing(o, r.tm, r.d, r.width, r.height, r.t.flows);
    if (rc == CLI_EXIT_OK && cli_interrupted()) {
        if (!o->quiet)
            cli_info("interrupted after %ld flows", r.t.flows);
        rc = 130;
    }
done:
    if (r.queue) {
        int wrc = output_queue_finish(r.queue, NULL, NULL);
        rc = rc == CLI_EXIT_OK ? wrc : rc;
    }
    cli_progress_end(); /* shown up to a failure */
    for (int k = 0; k < FLOW_CONTEXT_DEPTH; k++) {
        field_unpin(r.d, &r.own[k]);
        flow_field_free(&r.own[k]);
    }
    field_unpin(r.d, &r.back);
    flow_field_free(&r.back);
    flow_context_destroy(r.ctx);
    ftimer_destroy(r.tm);
    workflow_close(r.wf);
    source_close(r.src);
    for (int i = 0; i < r.ndevices; i++)
        flow_device_close(r.devices[i]);
    return rc;
}
