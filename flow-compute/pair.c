/* pair.c -- the steps of a pair that every mode of flow-compute's loop
 * takes (run.h): failures reported with their exit code, the context made
 * for the first frame, the field a flow is computed into, and the flow
 * handed on (written, counted, shown on the progress line). */
#include "run.h"
#include "progress.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The flows per second the devices allow after the first: their number
 * over the mean device time of those flows.  The flows still in flight at
 * the end of a run are collected in a burst, and the rate measured over
 * them would be more than that (progress.h). */
double device_rate(const run *r)
{
    const double ms = r->t.compute_ms - r->t.first_compute_ms;
    return r->t.flows >= 2 && ms > 0 ? 1e3 * r->ndevices * (double)(r->t.flows - 1) / ms : 0;
}

/* The progress line (cli.h: any message ends it first; progress.h: the
 * rate and time left); the final call draws it once more and ends it, or
 * erases it under --quiet (shown there by --progress only while the work
 * goes on). */
void run_progress(run *r, int final)
{
    const double now = ftimer_now_ms();
    if (!final && now - r->last_progress < 250)
        return;
    char line[160];
    /* the final update: the rate up to the run's last flow (run.h) */
    progress_text(line, sizeof line, "flows", r->t.flows, r->expected > 0 ? r->expected : -1,
                  r->t.wall_start, r->t.first_flow_ms, final ? r->t.end_ms : now, device_rate(r),
                  final);
    cli_progress("%s", line);
    if (final && r->o->quiet)
        cli_progress_clear();
    else if (final)
        cli_progress_end();
    r->last_progress = now;
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

/* ---- the fields computed into without -o ----------------------------------
 * A spread holds a field per pair in flight, allocated and page-locked
 * before the first pair.  Page-locking fresh memory faults in every page
 * inside the driver, one call at a time; the pages are faulted in first,
 * by several threads at once, each taking every `step`th field from
 * `first`, and page-locking what is already there is quick. */
#define OWN_THREADS_MAX 8

typedef struct own_share {
    run *r;
    flow_field *f;
    long n, first, step;
    int (*each)(run *r, flow_field *f); /* 0: done, else it failed */
    int failed;
} own_share;

static void *own_share_run(void *arg)
{
    own_share *s = arg;
    for (long k = s->first; k < s->n && !s->failed; k += s->step)
        s->failed = s->each(s->r, &s->f[k]);
    return NULL;
}

/* each() over f[0 .. n - 1] on up to OWN_THREADS_MAX threads (the calling
 * one among them); 1 when it failed on any field. */
static int own_fields_each(run *r, flow_field *f, long n, int (*each)(run *, flow_field *))
{
    own_share share[OWN_THREADS_MAX];
    pthread_t thread[OWN_THREADS_MAX];
    int started[OWN_THREADS_MAX] = { 0 };
    const int threads = n < OWN_THREADS_MAX ? (int)n : OWN_THREADS_MAX;
    for (int i = 0; i < threads; i++) {
        share[i] = (own_share){ r, f, n, i, threads, each, 0 };
        started[i] = i > 0 && pthread_create(&thread[i], NULL, own_share_run, &share[i]) == 0;
    }
    for (int i = 0; i < threads; i++)
        if (!started[i]) /* the calling thread's share, or one whose thread did not start */
            own_share_run(&share[i]);
    int failed = 0;
    for (int i = 0; i < threads; i++) {
        if (started[i])
            pthread_join(thread[i], NULL);
        failed |= share[i].failed;
    }
    return failed;
}

static int alloc_touch_pin(run *r, flow_field *f)
{
    if (flow_field_alloc(f, r->width, r->height) != FLOW_OK)
        return 1;
    const size_t bytes = (size_t)f->width * f->height * sizeof(float);
    memset(f->u, 0, bytes);
    memset(f->v, 0, bytes);
    field_pin(r->d, f);
    return 0;
}

static int unpin_free(run *r, flow_field *f)
{
    field_unpin(r->d, f);
    flow_field_free(f);
    return 0;
}

int own_fields_alloc(run *r, flow_field *f, long n)
{
    if (own_fields_each(r, f, n, alloc_touch_pin))
        return compute_failure(FLOW_ERR_NOMEM, "flow field");
    return CLI_EXIT_OK;
}

void own_fields_free(run *r, flow_field *f, long n)
{
    own_fields_each(r, f, n, unpin_free);
}

int take_field(run *r, long k, flow_field **f)
{
    if (r->queue)
        return output_queue_field(r->queue, r->width, r->height, f);
    flow_field *own = &r->own[k % FLOW_CONTEXT_DEPTH];
    if (!own->u) {
        const int rc = own_fields_alloc(r, own, 1);
        if (rc != CLI_EXIT_OK)
            return rc;
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
                              r->used, wf);
        if (rc != CLI_EXIT_OK)
            return rc;
    } else if (wf) {
        const int rc = output_group_commit(wf);
        output_group_destroy(wf);
        if (rc != CLI_EXIT_OK)
            return rc;
    }
    if (r->o->matches) {
        const int rc = matches_write(r);
        if (rc != CLI_EXIT_OK)
            return rc;
    }
    r->t.last_flow_ms = ftimer_now_ms();
    if (++r->t.flows == 1) {
        r->t.first_flow_ms = r->t.last_flow_ms;
        r->t.first_compute_ms = r->t.compute_ms;
    }
    if (r->show_progress)
        run_progress(r, 0);
    return CLI_EXIT_OK;
}

/* Says which parameters the frames reduced (a level count they do not
 * allow): the .params gives the values used.  A schema's default is an
 * "as many as fit" setting and passes without a word.  Said under --quiet
 * too: it is the only sign that a value asked for was changed. */
void report_fitted(const flow_params *asked, const flow_params *used, int width, int height)
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

void frame_shape(const source_frame *f, int *width, int *height, int *channels)
{
    *width = f->is8 ? f->bytes.width : f->image.width;
    *height = f->is8 ? f->bytes.height : f->image.height;
    *channels = f->is8 ? f->bytes.channels : f->image.channels;
}

/* The grey image at path for option opt (--init-confidence, --edges): of
 * the frames' size and one channel, on the 0..255 scale as every image is
 * read (flow/image.h), into *img as values in [0, 1]. */
static int read_grey_map(run *r, const char *opt, const char *path, flow_image *img)
{
    if (flow_image_read(path, img) != FLOW_OK) {
        cli_error("%s: %s", opt, flow_last_error());
        return CLI_EXIT_IO;
    }
    if (img->width != r->width || img->height != r->height || img->channels != 1) {
        cli_error("%s %s is %dx%d with %d channel%s: expected a grey image of %dx%d", opt, path,
                  img->width, img->height, img->channels, img->channels == 1 ? "" : "s",
                  r->width, r->height);
        return CLI_EXIT_IO;
    }
    const size_t n = (size_t)r->width * r->height;
    for (size_t i = 0; i < n; i++)
        img->data[i] /= 255.0f;
    return CLI_EXIT_OK;
}

/* --init and --init-confidence into the context: read, checked against the
 * frames' size, handed over. */
static int set_init(run *r)
{
    const compute_options *o = r->o;
    if (!flow_context_takes_init(r->ctx)) {
        cli_error("--init: method %s takes no initial flow", flow_params_method(o->params));
        return CLI_EXIT_USAGE;
    }
    flow_field init = {0};
    flow_image conf = {0};
    int rc = CLI_EXIT_OK;
    flow_status s = flow_field_read(o->init, &init);
    if (s != FLOW_OK) {
        cli_error("--init: %s", flow_last_error());
        rc = CLI_EXIT_IO;
    }
    if (rc == CLI_EXIT_OK && (init.width != r->width || init.height != r->height)) {
        cli_error("--init %s is %dx%d, the frames %dx%d", o->init, init.width, init.height,
                  r->width, r->height);
        rc = CLI_EXIT_IO;
    }
    if (rc == CLI_EXIT_OK && o->init_confidence)
        rc = read_grey_map(r, "--init-confidence", o->init_confidence, &conf);
    if (rc == CLI_EXIT_OK && (s = flow_context_set_init(r->ctx, &init, conf.data)) != FLOW_OK)
        rc = compute_failure(s, o->init);
    flow_image_free(&conf);
    flow_field_free(&init);
    return rc;
}

/* --edges into the context: a grey map of the frames' size (read_grey_map). */
static int set_edges(run *r)
{
    const char *path = r->o->edges;
    if (!flow_context_takes_edges(r->ctx)) {
        cli_error("--edges: method %s takes no edge map", flow_params_method(r->o->params));
        return CLI_EXIT_USAGE;
    }
    flow_image img = {0};
    int rc = read_grey_map(r, "--edges", path, &img);
    flow_status s;
    if (rc == CLI_EXIT_OK && (s = flow_context_set_edges(r->ctx, img.data)) != FLOW_OK) {
        cli_error("--edges %s: %s", path, flow_last_error());
        rc = s == FLOW_ERR_INVALID ? CLI_EXIT_IO : CLI_EXIT_COMPUTE;
    }
    flow_image_free(&img);
    return rc;
}

int create_context(run *r, const source_frame *first)
{
    int channels;
    frame_shape(first, &r->width, &r->height, &channels);
    const flow_status s = flow_context_create(r->d, r->width, r->height, channels, r->o->params,
                                              &r->ctx);
    if (s != FLOW_OK)
        return compute_failure(s, first->name);
    r->used = flow_context_params(r->ctx);
    report_fitted(r->o->params, r->used, r->width, r->height);
    int rc = r->o->init ? set_init(r) : CLI_EXIT_OK;
    if (rc == CLI_EXIT_OK && r->o->matches)
        rc = matches_request(r);
    if (rc == CLI_EXIT_OK && r->o->use_matches)
        rc = matches_give(r);
    if (rc == CLI_EXIT_OK && r->o->edges)
        rc = set_edges(r);
    return rc;
}

flow_status submit_frame(flow_context *ctx, const source_frame *f, flow_field *out)
{
    return f->is8 ? flow_context_submit8(ctx, &f->bytes, out)
                  : flow_context_submit(ctx, &f->image, out);
}

