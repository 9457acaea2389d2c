/* run.c -- flow-track's loop: open the device, the frame source and the
 * tracks file, create ONE tracker for the frame size, then for each frame
 * select or follow the features (flow_tracker_next), write its rows, draw
 * its picture and take the next frame, which the source's reader thread has
 * been decoding meanwhile.  Each frame is one sample of the hierarchical
 * timer: the tracker's stages (through its observer) and the tool's own
 * ("write", "draw", "read"), so TOTAL is the whole cost of a frame.  On a
 * terminal a progress line shows the frames done, the rate and the time
 * left (tools-common/progress.h).  A summary at the end counts the features
 * selected, followed and lost (by reason). */
#include "tracking.h"
#include "progress.h"

#include <string.h>
#include <unistd.h>

/* The tracker's stages go to the timer. */
static void on_stage_begin(void *user, const char *name)
{
    ftimer_stage_begin(user, name);
}

static void on_stage_end(void *user, const char *name)
{
    ftimer_stage_end(user, name);
}

/* Stages below the total that are timed: the tracker's and their parts. */
#define TIMING_DEPTH 4

typedef struct totals {
    long frames, tracked, lost, selected;
    flow_track_losses why; /* the losses by reason, summed */
    double wall_start;
    double first_ms;     /* when the first frame was done */
    long expected;       /* frames to track, -1 when unknown (a stream) */
    int show_progress;
    double last_progress; /* when the progress line was drawn */
} totals;

static void count_frame(totals *t, const flow_tracker *tr, const flow_track_point *pt, int n)
{
    for (int i = 0; i < n; i++) {
        t->tracked += pt[i].state == FLOW_TRACK_TRACKED;
        t->lost += pt[i].state == FLOW_TRACK_LOST;
        t->selected += pt[i].state == FLOW_TRACK_NEW;
    }
    const flow_track_losses l = flow_tracker_losses(tr);
    t->why.texture += l.texture;
    t->why.outside += l.outside;
    t->why.residual += l.residual;
    t->why.fb += l.fb;
    if (++t->frames == 1)
        t->first_ms = ftimer_now_ms();
}

/* The progress line (progress.h), at most every 250 ms; the final call
 * draws it once more and ends it, or erases it under --quiet (shown there
 * by --progress only while the work goes on). */
static void progress(const track_options *o, totals *t, int final)
{
    if (!t->show_progress)
        return;
    const double now = ftimer_now_ms();
    if (!final && now - t->last_progress < 250)
        return;
    char line[160];
    /* frames are tracked one after the other, never handed on in a burst:
     * no ceiling */
    progress_text(line, sizeof line, "frames", t->frames, t->expected, t->wall_start, t->first_ms,
                  now, 0, final);
    cli_progress("%s", line);
    if (final && o->quiet)
        cli_progress_clear();
    else if (final)
        cli_progress_end();
    t->last_progress = now;
}

static void summary(const totals *t, const flow_tracker *tr, int w, int h)
{
    const double wall = ftimer_now_ms() - t->wall_start;
    fprintf(stderr, "flow-track: %ld frames of %dx%d in %.2f s: %.2f frames/s\n", t->frames, w,
            h, wall / 1e3, 1e3 * t->frames / wall);
    fprintf(stderr, "flow-track: %ld features selected, %ld positions tracked (%.1f per frame), "
                    "%ld lost (texture %d, left the frame %d, residual %d, fb-check %d); %d "
                    "alive at the end\n",
            t->selected, t->tracked, (double)t->tracked / (t->frames > 1 ? t->frames - 1 : 1),
            t->lost, t->why.texture, t->why.outside, t->why.residual, t->why.fb,
            flow_tracker_alive(tr));
}

static int write_timing(const track_options *o, const ftimer *tm, const flow_device *d, int w,
                        int h)
{
    const long pixels = (long)w * h;
    const flow_track_params *p = &o->params;
    char title[1024], meta[1024];
    snprintf(title, sizeof title, "timing: %ld frame%s of %dx%d on %s (%s); mean per frame",
             ftimer_samples(tm), ftimer_samples(tm) == 1 ? "" : "s", w, h, flow_device_kind(d),
             flow_device_name(d));
    snprintf(meta, sizeof meta,
             "flow-track timing: version=%s width=%d height=%d pixels=%ld samples=%ld "
             "features=%d window=%d levels=%d response=%s fb_check=%g backend=%s device=%s",
             flow_version(), w, h, pixels, ftimer_samples(tm), p->features, p->window, p->levels,
             p->harris ? "harris" : "min-eigen", p->fb_check, flow_device_kind(d),
             flow_device_name(d));
    return ftimer_output(tm, o->timing, o->timing_file, pixels, title, meta, o->verbose);
}

/* Exit code for a failed tracker call: a frame of another size is an input
 * error, the rest (memory, device) compute errors. */
static int tracker_failure(flow_status s, const char *frame)
{
    cli_error("%s: %s", frame, *flow_last_error() ? flow_last_error() : flow_status_str(s));
    /* a frame of another size, or one whose values the library refuses */
    return s == FLOW_ERR_SIZE || s == FLOW_ERR_INVALID ? CLI_EXIT_IO : CLI_EXIT_COMPUTE;
}

/* One frame: track, write its rows, draw it, read the next one into frame
 * (*got 0 at the end), as one sample of the timer. */
static int track_frame(const track_options *o, flow_tracker *tr, ftimer *tm, frame_source *src,
                       track_rows *rows, track_pictures *pics, flow_image *frame, totals *t,
                       int *got)
{
    int rc = ftimer_frame_begin(tm);
    if (rc != CLI_EXIT_OK)
        return rc;
    const long number = source_frame_number(src);
    const flow_status s = flow_tracker_next(tr, frame);
    if (s != FLOW_OK) {
        ftimer_frame_end(tm);
        return tracker_failure(s, source_frame_name(src));
    }
    int n = 0;
    const flow_track_point *pt = flow_tracker_points(tr, &n);
    ftimer_stage_begin(tm, "write");
    rows_write(rows, number, pt, n);
    ftimer_stage_end(tm, "write");
    if (pics) {
        ftimer_stage_begin(tm, "draw");
        rc = pictures_frame(pics, number, frame, pt, n);
        ftimer_stage_end(tm, "draw");
    }
    const totals before = *t;
    count_frame(t, tr, pt, n);
    if (o->verbose)
        fprintf(stderr, "flow-track: frame %ld (%s): %ld tracked, %ld lost, %ld new, %d alive\n",
                number, source_frame_name(src), t->tracked - before.tracked,
                t->lost - before.lost, t->selected - before.selected, flow_tracker_alive(tr));
    *got = 0;
    if (rc == CLI_EXIT_OK && !(o->count && t->frames >= o->count)) {
        ftimer_stage_begin(tm, "read");
        rc = source_next(src, frame, got);
        ftimer_stage_end(tm, "read");
    }
    const int trc = ftimer_frame_end(tm);
    progress(o, t, 0);
    return rc != CLI_EXIT_OK ? rc : trc;
}

int run_track(const track_options *o)
{
    flow_device *d = NULL;
    frame_source *src = NULL;
    flow_tracker *tr = NULL;
    ftimer *tm = NULL;
    track_rows *rows = NULL;
    track_pictures *pics = NULL;
    flow_image frame = {0};
    totals t = {0};
    int rc = cli_open_device(o->device, TRACK_USAGE, o->quiet, o->verbose, &d);
    if (rc != CLI_EXIT_OK)
        return rc;
    if ((rc = source_open(&o->input, &src)) != CLI_EXIT_OK)
        goto done;
    /* the pictures' directory first: -o may name a file inside it */
    if (o->draw_dir && (rc = pictures_open(o->draw_dir, o->trail, o->quiet, o->verbose, &pics))
                           != CLI_EXIT_OK)
        goto done;
    if ((rc = rows_open(o->output, &rows)) != CLI_EXIT_OK)
        goto done;
    const int timed = o->timing || o->timing_file;
    if ((rc = ftimer_create(d, timed ? TIMING_DEPTH : 0, timed, &tm)) != CLI_EXIT_OK)
        goto done;

    int got = 0;
    if ((rc = source_next(src, &frame, &got)) != CLI_EXIT_OK)
        goto done;
    if (!got) {
        cli_error("%s: no frame to read", o->input.video ? o->input.video : "input");
        rc = CLI_EXIT_IO;
        goto done;
    }
    const int width = frame.width, height = frame.height;
    flow_status s = flow_tracker_create(d, width, height, &o->params, &tr);
    if (s != FLOW_OK) {
        rc = tracker_failure(s, source_frame_name(src));
        goto done;
    }
    const flow_observer timing = {tm, on_stage_begin, on_stage_end, NULL, NULL};
    flow_tracker_set_observer(tr, &timing);
    /* The printed report shows the tracker's stages, which the replay of a
     * CUDA graph hides (one stage "graph"): --timing runs the launches
     * directly.  --timing-file alone times the frame as it runs in
     * production, graph and all (as flow-compute does). */
    if (o->timing)
        flow_tracker_set_graphs(tr, 0);
    cli_catch_interrupt();
    t.expected = source_frame_count(src);
    if (t.expected >= 0 && o->count > 0 && o->count < t.expected)
        t.expected = o->count;
    /* --verbose prints a line per frame instead */
    t.show_progress = (!o->quiet || o->progress) && !o->verbose && isatty(2)
                      && (t.expected < 0 || t.expected > 1);
    cli_progress_name(o->progress);
    t.wall_start = t.last_progress = ftimer_now_ms();
    char first_name[4200];
    snprintf(first_name, sizeof first_name, "%s", source_frame_name(src));
    while (got && !cli_interrupted())
        if ((rc = track_frame(o, tr, tm, src, rows, pics, &frame, &t, &got)) != CLI_EXIT_OK)
            goto done;
    progress(o, &t, 1);
    if (t.frames < 2 && !cli_interrupted()) {
        cli_error("%s: only one frame: nothing to track", o->input.video ? o->input.video
                                                                        : first_name);
        rc = CLI_EXIT_IO;
        goto done;
    }
    rc = rows_commit(rows);
    rows = NULL;
    if (rc != CLI_EXIT_OK)
        goto done;
    if (o->verbose && strcmp(o->output, "-") != 0)
        fprintf(stderr, "flow-track: wrote %s\n", o->output);
    if (!o->quiet)
        summary(&t, tr, width, height);
    rc = write_timing(o, tm, d, width, height);
    if (rc == CLI_EXIT_OK && cli_interrupted()) {
        if (!o->quiet)
            fprintf(stderr, "flow-track: interrupted after %ld frames\n", t.frames);
        rc = 130;
    }
done:
    cli_progress_end(); /* shown up to a failure */
    rows_abort(rows);
    pictures_close(pics);
    flow_tracker_destroy(tr);
    ftimer_destroy(tm);
    flow_image_free(&frame);
    source_close(src);
    flow_device_close(d);
    return rc;
}
