/* tracker.c -- KLT feature tracking (flow/track.h): the frame's pyramid,
 * tracking, the selection of new features, all queued on the tracker's own
 * queue of its device (the per-point mathematics is libflow/pixel/klt.h),
 * then one download of the point set, from which the rows of the frame are
 * made here: ids, states, loss counts. */
#include "flow/track.h"

#include "base/fail.h"
#include "core/exec.h"
#include "core/graphs.h"
#include "core/multigrid.h"
#include "device/device.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Rounds of the parallel thinning of candidates (klt_mis).  A candidate
 * still undecided after them (the tail of a chain of ever weaker
 * candidates, each too close to the next) is not taken. */
#define SELECT_ROUNDS 10

struct flow_tracker {
    flow_exec ex;
    flow_track_params p;
    int width, height, levels, frames;
    int cur, next; /* the pyramids of the last frame and of the one being taken */
    flow_klt_pyramid pyr[2];
    flow_plane rgb[3]; /* a colour frame's channels (allocated by the first one) */
    /* selection */
    flow_plane R, cv, cx, cy, state[2], keys, skeys, sidx, best, counts;
    int cell, reach;
    /* the point set and its host copy (page-locked when the device can) */
    flow_plane P;
    float *host;
    int pinned;
    long *ids;            /* the id in each slot, -1 when none */
    long next_id;
    flow_track_point *rows; /* at most two per slot: a loss and a birth */
    int nrows, alive;
    flow_track_losses losses;
    /* CUDA graphs of a frame's device work after the first: one per pyramid
     * the frame goes to (the work differs only by which is which) */
    flow_graphs graphs;
};

void flow_track_defaults(flow_track_params *p)
{
    memset(p, 0, sizeof *p);
    p->features = 1000;
    p->quality = 0.01;
    p->min_distance = 10.0;
    p->block = 3;
    p->harris = 0;
    p->harris_k = 0.04;
    p->window = 21;
    p->levels = 3;
    p->iterations = 30;
    p->epsilon = 0.01;
    p->affine = 1;
    p->min_eigen = 0.1;
    p->max_error = 0.0;
    p->fb_check = 0.0;
    p->replace = 1;
}

static flow_status bad(const char *name, double value, const char *range)
{
    return flow_fail(FLOW_ERR_INVALID, "tracking parameter %s = %g: expected %s", name, value,
                     range);
}

static flow_status bad_int(const char *name, int value, const char *range)
{
    return flow_fail(FLOW_ERR_INVALID, "tracking parameter %s = %d: expected %s", name, value,
                     range);
}

flow_status flow_track_params_check(const flow_track_params *p)
{
    if (!p)
        return flow_fail(FLOW_ERR_INVALID, "no tracking parameters");
    if (p->features < 1 || p->features > 65536)
        return bad_int("features", p->features, "1 .. 65536");
    if (!(p->quality > 0.0 && p->quality <= 1.0))
        return bad("quality", p->quality, "a value in (0, 1]");
    if (!(p->min_distance >= 1.0 && p->min_distance <= 1000.0))
        return bad("min_distance", p->min_distance, "1 .. 1000 pixels");
    if (p->block < 3 || p->block > 15 || p->block % 2 == 0)
        return bad_int("block", p->block, "an odd side 3 .. 15");
    if (p->harris != 0 && p->harris != 1)
        return bad_int("harris", p->harris, "0 or 1");
    if (!(p->harris_k > 0.0 && p->harris_k < 0.25))
        return bad("harris_k", p->harris_k, "a value in (0, 0.25)");
    if (p->window < 3 || p->window > 63 || p->window % 2 == 0)
        return bad_int("window", p->window, "an odd side 3 .. 63");
    if (p->levels < 1 || p->levels > FLOW_KLT_LEVELS_MAX)
        return bad_int("levels", p->levels, "1 .. 8");
    if (p->iterations < 1 || p->iterations > 100)
        return bad_int("iterations", p->iterations, "1 .. 100");
    if (!(p->epsilon > 0.0 && p->epsilon <= 1.0))
        return bad("epsilon", p->epsilon, "a value in (0, 1] pixels");
    if (p->affine != 0 && p->affine != 1)
        return bad_int("affine", p->affine, "0 or 1");
    if (!(p->min_eigen >= 0.0 && p->min_eigen <= 1e6))
        return bad("min_eigen", p->min_eigen, "0 .. 1e6");
    if (!(p->max_error >= 0.0 && p->max_error <= 255.0))
        return bad("max_error", p->max_error, "0 (no limit) .. 255");
    if (!(p->fb_check >= 0.0 && p->fb_check <= 1000.0))
        return bad("fb_check", p->fb_check, "0 (off) .. 1000 pixels");
    if (p->replace != 0 && p->replace != 1)
        return bad_int("replace", p->replace, "0 or 1");
    return FLOW_OK;
}

static flow_plane row_plane(flow_device *d, flow_plane *p, int n, flow_status *s)
{
    if (*s == FLOW_OK)
        *s = flow_plane_alloc(d, p, n, 1);
    return *p;
}

static flow_status alloc_planes(flow_tracker *t)
{
    flow_device *d = t->ex.dev;
    const int cw = (t->width + t->cell - 1) / t->cell, ch = (t->height + t->cell - 1) / t->cell;
    flow_status s = FLOW_OK;
    for (int k = 0; k < 2; k++) {
        int w = t->width, h = t->height;
        for (int L = 0; L < t->levels; L++) {
            flow_klt_pyramid *y = &t->pyr[k];
            if (s == FLOW_OK)
                s = flow_plane_alloc(d, &y->f[L], w, h);
            if (s == FLOW_OK)
                s = flow_plane_alloc(d, &y->gx[L], w, h);
            if (s == FLOW_OK)
                s = flow_plane_alloc(d, &y->gy[L], w, h);
            w = flow_mg_coarse_size(w), h = flow_mg_coarse_size(h);
        }
    }
    flow_plane *cells[] = { &t->cv, &t->cx, &t->cy, &t->state[0], &t->state[1] };
    for (size_t k = 0; k < sizeof cells / sizeof *cells; k++)
        if (s == FLOW_OK)
            s = flow_plane_alloc(d, cells[k], cw, ch);
    if (s == FLOW_OK)
        s = flow_plane_alloc(d, &t->R, t->width, t->height);
    row_plane(d, &t->keys, cw * ch, &s);
    row_plane(d, &t->skeys, cw * ch, &s);
    row_plane(d, &t->sidx, cw * ch, &s);
    row_plane(d, &t->best, 1, &s);
    row_plane(d, &t->counts, (t->p.features + FLOW_KLT_CHUNK - 1) / FLOW_KLT_CHUNK, &s);
    if (s == FLOW_OK)
        s = flow_plane_alloc(d, &t->P, t->p.features, FLOW_KLT_ROWS);
    return s;
}

flow_status flow_tracker_create(flow_device *d, int width, int height, const flow_track_params *p,
                                flow_tracker **out)
{
    if (!out)
        return flow_fail(FLOW_ERR_INVALID, "flow_tracker_create: no output");
    *out = NULL;
    if (!d)
        return flow_fail(FLOW_ERR_INVALID, "flow_tracker_create: no device");
    FLOW_TRY(flow_track_params_check(p));
    if (width < 1 || height < 1 || (long)width * height > FLOW_IMAGE_MAX_PIXELS)
        return flow_fail(FLOW_ERR_SIZE, "tracker for %dx%d frames: expected 1 .. 2^28 pixels",
                         width, height);
    flow_tracker *t = calloc(1, sizeof *t);
    if (!t)
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate a tracker");
    const flow_status q = flow_queue_open(d, &t->ex.dev);
    if (q != FLOW_OK) {
        free(t);
        return q;
    }
    d = t->ex.dev; /* everything below is queued on the tracker's own queue */
    flow_graphs_init(&t->graphs);
    t->p = *p;
    t->width = width, t->height = height, t->levels = p->levels;
    /* two pixels of a cell are closer than min_distance; the cells a
     * conflict can reach lie within `reach` cells */
    t->cell = (int)floor(p->min_distance / sqrt(2.0));
    if (t->cell < 1)
        t->cell = 1;
    while ((long)((width + t->cell - 1) / t->cell) * ((height + t->cell - 1) / t->cell)
           > FLOW_SORT_MAX)
        t->cell++;
    t->reach = (int)ceil(p->min_distance / t->cell);
    const size_t n = (size_t)p->features;
    t->host = malloc(n * FLOW_KLT_ROWS * sizeof *t->host);
    t->ids = malloc(n * sizeof *t->ids);
    t->rows = malloc(2 * n * sizeof *t->rows);
    flow_status s = t->host && t->ids && t->rows
                        ? alloc_planes(t)
                        : flow_fail(FLOW_ERR_NOMEM, "cannot allocate %zu tracked features", n);
    if (s == FLOW_OK) {
        const flow_fill_args empty = { t->P, 0.0f };
        s = flow_k_fill(d, &empty);
    }
    if (s != FLOW_OK) {
        flow_tracker_destroy(t);
        return s;
    }
    t->pinned = flow_device_pin(d, t->host, n * FLOW_KLT_ROWS * sizeof *t->host) == FLOW_OK;
    for (size_t i = 0; i < n; i++)
        t->ids[i] = -1;
    *out = t;
    return FLOW_OK;
}

void flow_tracker_destroy(flow_tracker *t)
{
    if (!t)
        return;
    flow_device *d = t->ex.dev;
    flow_graphs_free(&t->graphs, d);
    for (int k = 0; k < 2; k++)
        for (int L = 0; L < FLOW_KLT_LEVELS_MAX; L++) {
            flow_plane_free(d, &t->pyr[k].f[L]);
            flow_plane_free(d, &t->pyr[k].gx[L]);
            flow_plane_free(d, &t->pyr[k].gy[L]);
        }
    flow_plane *planes[] = { &t->rgb[0], &t->rgb[1], &t->rgb[2], &t->R, &t->cv, &t->cx,
                             &t->cy, &t->state[0], &t->state[1], &t->keys, &t->skeys,
                             &t->sidx, &t->best, &t->counts, &t->P };
    for (size_t k = 0; k < sizeof planes / sizeof *planes; k++)
        flow_plane_free(d, planes[k]);
    if (t->pinned)
        flow_device_unpin(d, t->host);
    free(t->host);
    free(t->ids);
    free(t->rows);
    flow_queue_close(d);
    free(t);
}

void flow_tracker_set_observer(flow_tracker *t, const flow_observer *obs)
{
    flow_exec_set_observer(&t->ex, obs);
}

void flow_tracker_set_graphs(flow_tracker *t, int enable)
{
    flow_graphs_set(&t->graphs, t->ex.dev, enable);
}

int flow_tracker_used_graph(const flow_tracker *t)
{
    return t->graphs.used;
}

/* The frame into level 0 of pyramid y (its luminance when in colour). */
static flow_status upload_frame(flow_tracker *t, flow_klt_pyramid *y, const flow_image *frame)
{
    flow_device *d = t->ex.dev;
    const size_t plane = (size_t)t->width * t->height;
    flow_stage_begin(&t->ex, "upload");
    if (frame->channels == 1) {
        FLOW_TRY(flow_upload(d, &y->f[0], frame->data, (size_t)t->width));
    } else {
        for (int c = 0; c < 3; c++) {
            if (!t->rgb[c].data)
                FLOW_TRY(flow_plane_alloc(d, &t->rgb[c], t->width, t->height));
            FLOW_TRY(flow_upload(d, &t->rgb[c], frame->data + c * plane, (size_t)t->width));
        }
        const flow_luminance_args lum = { y->f[0], t->rgb[0], t->rgb[1], t->rgb[2] };
        FLOW_TRY(flow_k_luminance(d, &lum));
    }
    flow_stage_end(&t->ex, "upload");
    return FLOW_OK;
}

/* The coarser levels of y by full-weighting restriction, every level's
 * gradient. */
static flow_status build_pyramid(flow_tracker *t, flow_klt_pyramid *y)
{
    flow_device *d = t->ex.dev;
    flow_stage_begin(&t->ex, "pyramid");
    for (int L = 0; L < t->levels; L++) {
        if (L > 0) {
            const flow_restriction_args r = { y->f[L], y->f[L - 1] };
            FLOW_TRY(flow_k_restriction(d, &r));
        }
        const flow_gradient_args g = { y->gx[L], y->gy[L], y->f[L] };
        FLOW_TRY(flow_k_gradient(d, &g));
    }
    flow_stage_end(&t->ex, "pyramid");
    return FLOW_OK;
}

static flow_status track(flow_tracker *t, const flow_klt_pyramid *prev,
                         const flow_klt_pyramid *next)
{
    const flow_track_params *p = &t->p;
    flow_klt_track_args a;
    memset(&a, 0, sizeof a);
    a.prev = *prev, a.next = *next, a.P = t->P;
    a.n = p->features, a.levels = t->levels, a.r = p->window / 2, a.iterations = p->iterations;
    a.affine = p->affine;
    a.eps2 = (float)(p->epsilon * p->epsilon);
    a.min_eigen = (float)p->min_eigen;
    a.max_error = (float)p->max_error;
    a.fb = (float)p->fb_check;
    flow_stage_begin(&t->ex, "track");
    FLOW_TRY(flow_k_klt_track(t->ex.dev, &a));
    flow_stage_end(&t->ex, "track");
    return FLOW_OK;
}

/* New features in the free slots: the strongest corners of the frame away
 * from the tracked features and from each other (pixel/klt.h). */
static flow_status select_features(flow_tracker *t, const flow_klt_pyramid *y)
{
    flow_device *d = t->ex.dev;
    const flow_track_params *p = &t->p;
    const float d2 = (float)(p->min_distance * p->min_distance);
    flow_stage_begin(&t->ex, "select");
    const flow_klt_response_args resp = { t->R, y->gx[0], y->gy[0], p->block / 2, p->window / 2,
                                          p->harris, (float)p->harris_k };
    FLOW_TRY(flow_k_klt_response(d, &resp));
    const flow_klt_cells_args cells = { t->cv, t->cx, t->cy, t->R, t->cell };
    FLOW_TRY(flow_k_klt_cells(d, &cells));
    FLOW_TRY(flow_plane_max(d, &t->cv, &t->best));
    if (t->frames > 0) {
        const flow_klt_suppress_args sup = { t->P, t->cv, t->cx, t->cy, p->features,
                                             t->cell, t->reach, d2 };
        FLOW_TRY(flow_k_klt_suppress(d, &sup));
    }
    for (int k = 0; k < SELECT_ROUNDS; k++) {
        const flow_klt_mis_args mis = { t->cv, t->cx, t->cy, t->best, t->state[k % 2],
                                        t->state[(k + 1) % 2], t->keys, t->reach, k == 0,
                                        k == SELECT_ROUNDS - 1, d2, (float)p->quality };
        FLOW_TRY(flow_k_klt_mis(d, &mis));
    }
    FLOW_TRY(flow_sort_desc(d, &t->keys, &t->skeys, &t->sidx));
    const flow_klt_free_count_args fc = { t->P, t->counts, p->features };
    FLOW_TRY(flow_k_klt_free_count(d, &fc));
    const flow_klt_spawn_args sp = { t->P, t->counts, t->skeys, t->sidx, t->cx, t->cy,
                                     p->features };
    FLOW_TRY(flow_k_klt_spawn(d, &sp));
    flow_stage_end(&t->ex, "select");
    return FLOW_OK;
}

/* The rows of the frame from the downloaded point set: the features
 * tracked into it or lost in it, slot by slot, then the new ones. */
static void make_rows(flow_tracker *t)
{
    const int n = t->p.features;
    const float *X = t->host + FLOW_KLT_X * n, *Y = t->host + FLOW_KLT_Y * n;
    const float *S = t->host + FLOW_KLT_STATE * n, *E = t->host + FLOW_KLT_ERR * n;
    const float *NX = t->host + FLOW_KLT_NX * n, *NY = t->host + FLOW_KLT_NY * n;
    const float *B = t->host + FLOW_KLT_BORN * n;
    memset(&t->losses, 0, sizeof t->losses);
    t->nrows = 0, t->alive = 0;
    for (int i = 0; i < n; i++) {
        if (S[i] == FLOW_KLT_EMPTY || t->ids[i] < 0)
            continue;
        flow_track_point *r = &t->rows[t->nrows++];
        r->id = t->ids[i], r->x = X[i], r->y = Y[i], r->error = E[i];
        if (S[i] == FLOW_KLT_TRACKED) {
            r->state = FLOW_TRACK_TRACKED;
            t->alive++;
            continue;
        }
        r->state = FLOW_TRACK_LOST;
        t->ids[i] = -1;
        if (S[i] == FLOW_KLT_LOST_TEXTURE)
            t->losses.texture++;
        else if (S[i] == FLOW_KLT_LOST_OUTSIDE)
            t->losses.outside++;
        else if (S[i] == FLOW_KLT_LOST_RESIDUAL)
            t->losses.residual++;
        else
            t->losses.fb++;
    }
    for (int i = 0; i < n; i++) {
        if (B[i] == 0.0f)
            continue;
        flow_track_point *r = &t->rows[t->nrows++];
        t->ids[i] = t->next_id++;
        r->id = t->ids[i], r->x = NX[i], r->y = NY[i], r->state = FLOW_TRACK_NEW, r->error = 0.0f;
        t->alive++;
    }
}

/* Everything a frame computes on the device, into pyramid t->next. */
static flow_status device_work(void *user)
{
    flow_tracker *t = user;
    const int next = t->next;
    FLOW_TRY(build_pyramid(t, &t->pyr[next]));
    if (t->frames > 0)
        FLOW_TRY(track(t, &t->pyr[t->cur], &t->pyr[next]));
    if (t->frames == 0 || t->p.replace)
        FLOW_TRY(select_features(t, &t->pyr[next]));
    return FLOW_OK;
}

flow_status flow_tracker_next(flow_tracker *t, const flow_image *frame)
{
    if (!t || !frame || !frame->data)
        return flow_fail(FLOW_ERR_INVALID, "flow_tracker_next: no tracker or no frame");
    if (frame->width != t->width || frame->height != t->height)
        return flow_fail(FLOW_ERR_SIZE, "frame of %dx%d for a tracker of %dx%d frames",
                         frame->width, frame->height, t->width, t->height);
    if (frame->channels != 1 && frame->channels != 3)
        return flow_fail(FLOW_ERR_INVALID, "frame with %d channels: expected 1 or 3",
                         frame->channels);
    FLOW_TRY(flow_image_check_values(frame, "frame"));
    const int next = t->frames == 0 ? 0 : 1 - t->cur;
    t->next = next;
    FLOW_TRY(upload_frame(t, &t->pyr[next], frame));
    /* after the first frame (which also makes the sort's scratch) the work
     * of a frame is one of two graphs */
    FLOW_TRY(flow_graphs_run(&t->graphs, &t->ex, next, t->frames == 0, device_work, t));
    flow_stage_begin(&t->ex, "download");
    FLOW_TRY(flow_download(t->ex.dev, t->host, (size_t)t->p.features, &t->P));
    flow_stage_end(&t->ex, "download");
    make_rows(t);
    t->cur = next;
    t->frames++;
    return FLOW_OK;
}

const flow_track_point *flow_tracker_points(const flow_tracker *t, int *n)
{
    *n = t->nrows;
    return t->rows;
}

int flow_tracker_alive(const flow_tracker *t)
{
    return t->alive;
}

flow_track_losses flow_tracker_losses(const flow_tracker *t)
{
    return t->losses;
}
