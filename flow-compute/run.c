/* run.c -- flow-compute's computing loop: open the device and the frame
 * source, create ONE flow context for the frame size (every buffer is
 * allocated there, seed 001 section 5.1.5), then hand each consecutive
 * pair to the run's mode (run.h: step, stream or spread), which computes
 * it and hands the flow to the writers.  Frames are decoded ahead by a
 * pool of threads and outputs written behind by another
 * (tools-common/source.c, writer.c).  On a terminal a progress line shows
 * the sustained rate (tools-common/progress.h); a summary at the end says
 * where the time per flow went. */
#include "run.h"
#include "progress.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

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
        cli_info("fb-check %g px: mean density %.2f%%; per flow: both directions in the "
                 "solver figures above, applying the check %.3f ms",
                 o->fb_check, 100.0 * t->density_sum / n, t->check_ms / runs);
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

static void stream_summary(const run *r)
{
    const totals *t = &r->t;
    const double wall = ftimer_now_ms() - t->wall_start, n = (double)t->flows;
    const double device = t->compute_ms / n, window = t->end_ms - t->first_flow_ms;
    /* how busy the devices were: over the same time as the rate, or the
     * whole run for one flow (the second and third flows' computations
     * begin before the first is handed on: at most 100%) */
    const double busy_share = t->flows >= 2 && window > 0
                                  ? (t->compute_ms - t->first_compute_ms) / window
                                  : t->compute_ms / wall;
    const double busy = 100.0 * fmin(busy_share / r->ndevices, 1.0);
    /* the rate of the flows after the first up to the last: opening the
     * device, creating the context and recording its graph are behind
     * (progress.h), freeing what the run held is after */
    const double rate = progress_rate(t->flows, t->wall_start, t->first_flow_ms, t->end_ms, device_rate(r));
    cli_info("%ld flow%s of %dx%d from %ld frames in %.2f s: %.2f flows/s sustained%s",
             t->flows, t->flows == 1 ? "" : "s", r->width, r->height, t->frames, wall / 1e3,
             rate, t->flows > 1 ? " after the first" : "");
    if (r->ndevices > 1)
        cli_info("per flow: device %.3f ms (%.1f flows/s on %d devices if they never waited): "
                 "the run kept them busy %.0f%% of the time",
                 device, 1e3 * r->ndevices / device, r->ndevices, busy);
    else
        cli_info("per flow: device %.3f ms (%.1f flows/s if the device never waited): the run "
                 "kept it busy %.0f%% of the time",
                 device, 1e3 / device, busy);
    cli_info("beside it: decoding %.3f ms per frame on %d thread%s, writing %.3f ms per flow on "
             "%d thread%s; the computing thread waited %.3f ms per flow for frames and %.3f ms "
             "for writers",
             t->decode_ms / t->frames, source_readers(r->src),
             source_readers(r->src) == 1 ? "" : "s", t->write_ms / n, t->writers,
             t->writers == 1 ? "" : "s", t->frame_wait_ms / n, t->write_wait_ms / n);
}

/* Takes the next frame from the source, counting the wait. */
static int take_frame(run *r, const source_frame **f, int *got)
{
    const double t0 = ftimer_now_ms();
    const int rc = source_take(r->src, f, got);
    if (rc == CLI_EXIT_OK && *got) {
        r->t.frame_wait_ms += ftimer_now_ms() - t0;
        r->t.frames++;
    }
    return rc;
}

/* The loop: every consecutive pair of frames to the mode, up to --count
 * flows or an interruption.  A frame that cannot be read ends the pairs;
 * the flows before it are still handed on. */
static int run_pairs(run *r, const run_mode *m)
{
    const source_frame *prev = NULL, *next = NULL;
    int got, input_rc = CLI_EXIT_OK;
    int rc = take_frame(r, &prev, &got);
    if (rc == CLI_EXIT_OK && got)
        rc = m->start(r, prev);
    for (long k = 0; rc == CLI_EXIT_OK && got && !cli_interrupted()
                     && !(r->o->count && k >= r->o->count);
         k++) {
        if ((input_rc = take_frame(r, &next, &got)) != CLI_EXIT_OK || !got)
            break;
        int took = 0;
        if ((rc = m->pair(r, k, prev, next, &took)) != CLI_EXIT_OK) {
            if (took)
                prev = NULL;
            break;
        }
        prev = next;
        next = NULL;
    }
    const int frc = m->finish(r, rc != CLI_EXIT_OK);
    if (rc == CLI_EXIT_OK)
        rc = frc != CLI_EXIT_OK ? frc : input_rc;
    source_give_back(r->src, next);
    source_give_back(r->src, prev);
    return rc;
}

/* What needs the stepwise loop: looking inside a computation, repeating
 * it, or computing each pair both ways. */
static int stepwise(const compute_options *o)
{
    return o->timing || o->timing_file || o->workflow_dir || o->trace || o->repeat > 1
           || o->fb_check > 0 || consistency_wanted(o);
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
    const run_mode *mode =
        !stream ? &run_mode_step : r.ndevices > 1 ? &run_mode_spread : &run_mode_stream;
    /* the pairs dealt out to the devices and not yet handed on */
    const long held = mode->held(r.ndevices);
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
        != CLI_EXIT_OK
        || (rc = consistency_check(o, source_is_stream(r.src) && !o->count ? -1 : r.expected))
               != CLI_EXIT_OK)
        goto done;
    if (consistency_wanted(o)
        && (rc = consistency_check_targets(o, source_first_number(r.src))) != CLI_EXIT_OK)
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
    rc = run_pairs(&r, mode);
    if (rc != CLI_EXIT_OK)
        goto done;
    r.t.writers = r.queue ? output_queue_writers(r.queue) : 0;
    double written_ms = 0;
    rc = output_queue_finish(r.queue, &r.t.write_ms, &r.t.write_wait_ms, &written_ms);
    /* the run's work ends with its last flow, or its last write: freeing
     * what it held (fields, contexts, devices) comes after */
    r.t.end_ms = r.t.last_flow_ms > written_ms ? r.t.last_flow_ms : written_ms;
    r.queue = NULL;
    if (rc != CLI_EXIT_OK)
        goto done;
    r.t.decode_ms = source_read_ms(r.src);
    if (r.show_progress)
        run_progress(&r, 1);
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
    const int measured = !output_wanted(o) && !consistency_wanted(o) && !o->timing && !o->timing_file && !o->workflow_dir
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
        int wrc = output_queue_finish(r.queue, NULL, NULL, NULL);
        rc = rc == CLI_EXIT_OK ? wrc : rc;
    }
    cli_progress_end(); /* shown up to a failure */
    own_fields_free(&r, r.own, FLOW_CONTEXT_DEPTH);
    consistency_free(&r);
    flow_context_destroy(r.ctx);
    matches_free(&r);
    flow_params_destroy(r.used_copy);
    ftimer_destroy(r.tm);
    workflow_close(r.wf);
    source_close(r.src);
    flow_devices_close(r.devices, r.ndevices);
    return rc;
}
