/* step.c -- the step mode of flow-compute's loop (run.h): one pair at a
 * time on one device, for what looks inside a computation or repeats it:
 * --timing, --timing-file, --workflow, --trace, --repeat and --fb-check
 * (each pair computed both ways and the forward flow checked against the
 * backward one before it is written).  The observer hooks feed the timer,
 * the workflow images and the trace. */
#include "run.h"

#include <string.h>

static void on_stage_begin(void *user, const char *name)
{
    run *r = user;
    if (r->tm)
        ftimer_stage_begin(r->tm, name);
}

static void on_stage_end(void *user, const char *name)
{
    run *r = user;
    if (r->tm)
        ftimer_stage_end(r->tm, name);
}

static void on_trace(void *user, const char *line)
{
    (void)user;
    puts(line);
}

static void on_workflow(void *user, const char *name, const float *data, int width, int height)
{
    run *r = user;
    if (r->wf)
        workflow_plane(r->wf, name, data, width, height);
}

/* The check's verdicts, made on the device with the flow (the context
 * computes both directions), applied to the forward flow in place, as the
 * timer's stage "fb check". */
static flow_status check_forward(ftimer *tm, flow_field *field, const float *verdict,
                                 flow_fb_stats *st)
{
    ftimer_stage_begin(tm, "fb check");
    const flow_status s = flow_fb_apply(field, verdict, st);
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

static long held(int ndevices)
{
    return FLOW_CONTEXT_DEPTH;
}

static int start(run *r, const source_frame *first)
{
    int rc = create_context(r, first);
    if (rc != CLI_EXIT_OK)
        return rc;
    /* The printed report shows the stages inside the solve, which the
     * replay of a CUDA graph hides (one stage "graph"): --timing runs the
     * launches directly.  --timing-file alone times the frame as it runs in
     * production, graph and all. */
    if (r->o->timing)
        flow_context_set_graphs(r->ctx, 0);
    return consistency_start(r);
}

/* Computes the flow f1 -> f2 (`names`, for a failure's message) into
 * field, --repeat times, each run timed as one frame. */
static int compute_pair(run *r, const flow_image *f1, const flow_image *f2, flow_field *field,
                        flow_fb_stats *fb_stats, const char *names)
{
    const compute_options *o = r->o;
    totals *t = &r->t;
    const int fb = o->fb_check > 0;
    const flow_observer timing_only = {r, on_stage_begin, on_stage_end, NULL, NULL};
    const flow_observer first_run = {r, on_stage_begin, on_stage_end, o->trace ? on_trace : NULL,
                                     r->wf ? on_workflow : NULL};
    for (int k = 0; k < o->repeat; k++) {
        int rc = ftimer_frame_begin(r->tm);
        if (rc != CLI_EXIT_OK)
            return rc;
        const char *failed = ""; /* which part of an --fb-check run failed */
        flow_context_set_observer(r->ctx, k == 0 ? &first_run : &timing_only);
        double t0 = ftimer_now_ms();
        /* after the first pair the device keeps f1 as its second frame:
         * only the new frame crosses the bus */
        flow_status s = k == 0 && t->flows > 0 ? flow_context_compute_next(r->ctx, f2, field)
                                               : flow_context_compute(r->ctx, f1, f2, field);
        t->compute_ms += ftimer_now_ms() - t0;
        if (s == FLOW_OK && fb) {
            t0 = ftimer_now_ms();
            s = check_forward(r->tm, field, r->verdict, fb_stats);
            t->check_ms += ftimer_now_ms() - t0;
            failed = " (the forward-backward check)";
        }
        const int trc = ftimer_frame_end(r->tm);
        if (s != FLOW_OK) {
            char what[8600];
            snprintf(what, sizeof what, "%s%s", names, failed);
            return compute_failure(s, what);
        }
        if (trc != CLI_EXIT_OK)
            return trc;
    }
    return CLI_EXIT_OK;
}

static int pair(run *r, long k, const source_frame *from, const source_frame *to, int *took)
{
    const compute_options *o = r->o;
    const flow_image *f1 = &from->image, *f2 = &to->image;
    flow_fb_stats fb_stats;
    memset(&fb_stats, 0, sizeof fb_stats);
    flow_field *field = NULL;
    char names[8500];
    snprintf(names, sizeof names, "%s -> %s", from->name, to->name);
    int rc;
    if (o->trace && r->expected != 1)
        printf("# trace of pair %ld: %s\n", from->number, names);
    if (r->wf) {
        if ((rc = workflow_begin_pair(r->wf, from->number, r->expected == 1)) != CLI_EXIT_OK)
            return rc;
        workflow_image(r->wf, "frame1", f1);
        workflow_image(r->wf, "frame2", f2);
    }
    if ((rc = take_field(r, k, &field)) != CLI_EXIT_OK)
        return rc;
    if ((rc = compute_pair(r, f1, f2, field, &fb_stats, names)) != CLI_EXIT_OK)
        goto failed;
    if (o->fb_check > 0) {
        report_fb(o, from->name, to->name, &fb_stats);
        r->t.density_sum += fb_stats.density;
    }
    if (o->trace)
        fflush(stdout);
    output_group *wf_files = NULL;
    if (r->wf && (rc = workflow_end_pair(r->wf, field, &wf_files)) != CLI_EXIT_OK)
        goto failed;
    output_group *both = NULL;
    if ((rc = consistency_write(r, from->number, &both)) != CLI_EXIT_OK) {
        output_group_destroy(wf_files);
        goto failed;
    }
    if (both && wf_files && (rc = output_group_adopt(both, wf_files)) != CLI_EXIT_OK) {
        output_group_destroy(both);
        goto failed;
    }
    if (both)
        wf_files = both;
    rc = pair_done(r, r->d, field, f1, from->number, from->name, to->name, wf_files);
    if (rc == CLI_EXIT_OK) {
        source_give_back(r->src, from);
        *took = 1;
    }
    return rc;
failed:
    if (r->queue)
        output_queue_drop(r->queue, field);
    return rc;
}

static int finish(run *r, int failed)
{
    return CLI_EXIT_OK; /* nothing in flight */
}

const run_mode run_mode_step = {held, start, pair, finish};
