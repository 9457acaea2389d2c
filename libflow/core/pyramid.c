/* pyramid.c -- coarse-to-fine warping for large displacements (Brox et al.
 * 2004; libflow/pixel/warp.h has the mathematics of a warp).
 *
 * Level l + 1 is `scale` times the size of level l.  At scale 0.5 its frames
 * are the full-weighting restriction of seed 001 section 4.2.5 and a flow
 * goes up by bilinear prolongation (section 4.2.6), a coarse point sitting
 * on fine point 2x; at any other scale the finer frames are smoothed with a
 * Gaussian of sigma 0.6 sqrt(1 / scale^2 - 1) (the zoom of Sanchez, Meinhardt
 * and Facciolo, IPOL 2013) and resampled bilinearly, coarse point x sitting
 * on fine point x / scale; a flow is resampled at scale x and divided by
 * scale.  The method's hooks do the rest (pyramid.h). */
#include "core/pyramid.h"
#include "core/pair.h"
#include "core/tensor.h"
#include "base/fail.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The size of level l + 1 over that of level l. */
static double level_scale(const flow_warp_params *p, int l)
{
    return p->fine > 0 && l >= p->fine ? 0.5 : p->scale;
}

/* Whether level l is made from level l - 1 by halving (full-weighting
 * restriction of the frames, bilinear prolongation of the flow). */
static int halved(const flow_pyramid *py, int l)
{
    return level_scale(&py->p, l - 1) == 0.5;
}

/* Whether the levels run coarse to fine from a flow w (a pyramid, or a
 * method's own search), and whether they warp the second frame along it (a
 * method with data terms). */
static int from_w(const flow_pyramid *py)
{
    return py->p.levels > 0 || py->hooks.init;
}

static int warps(const flow_pyramid *py)
{
    return from_w(py) && py->hooks.terms;
}

/* Whether runs may bring the frame before the first (warping only). */
static int previous(const flow_pyramid *py)
{
    return warps(py) && py->hooks.previous;
}

static int coarse_size(int n, double scale)
{
    return (int)ceil(n * scale);
}

int flow_pyramid_levels_for(const flow_warp_params *p, int width, int height)
{
    int n = 1;
    for (int w = width, h = height; n <= p->levels; n++) {
        const double s = level_scale(p, n - 1);
        const int cw = coarse_size(w, s), ch = coarse_size(h, s);
        /* near the bottom a fine scale may round a side back to itself
         * (ceil(9 * 0.9) = 9): such a level adds nothing but a rescaled
         * flow, so the pyramid ends there too */
        if (cw < FLOW_PYRAMID_MIN_SIDE || ch < FLOW_PYRAMID_MIN_SIDE || cw == w || ch == h)
            break;
        w = cw, h = ch;
    }
    return n;
}

void flow_pyramid_level_size(const flow_warp_params *p, int width, int height, int level,
                             int *lw, int *lh)
{
    int w = width, h = height;
    for (int l = 0; l < level; l++)
        w = coarse_size(w, level_scale(p, l)), h = coarse_size(h, level_scale(p, l));
    if (lw)
        *lw = w;
    if (lh)
        *lh = h;
}

void flow_warp_fit(flow_warp_params *p, int width, int height)
{
    const int n = flow_pyramid_levels_for(p, width, height);
    /* levels 0 is no warping, any other count warps (from a zero flow on a
     * pyramid of the finest level alone): the fitted count keeps which */
    if (p->levels > 0)
        p->levels = n - 1 > 1 ? n - 1 : 1;
    if (p->finest > n - 1)
        p->finest = n - 1;
}

void flow_pyramid_destroy(flow_pyramid *py)
{
    if (!py)
        return;
    flow_device *d = py->dev;
    for (int l = 0; py->lev && l < py->nlevels; l++) {
        flow_pyr_level *L = &py->lev[l];
        if (py->hooks.level_destroy)
            py->hooks.level_destroy(py->user, d, L);
        for (int c = 0; c < 3; c++) {
            for (int k = 0; l > 0 && k < 3; k++)
                flow_plane_free(d, &L->frame[k][c]);
            flow_plane_free(d, &L->warped[c]);
            flow_plane_free(d, &L->warped_prev[c]);
        }
        flow_pair_free(d, &L->w);
    }
    for (int i = 0; i < FLOW_BATCH_MAX; i++) {
        flow_plane_free(d, &py->tmp[i]);
        flow_plane_free(d, &py->smooth[i]);
    }
    free(py->lev);
    free(py);
}

static flow_status level_alloc(flow_pyramid *py, int l, int w, int h)
{
    flow_device *d = py->dev;
    flow_pyr_level *L = &py->lev[l];
    L->level = l;
    L->active = l >= py->p.finest;
    L->width = w;
    L->height = h;
    const int frames = previous(py) ? 3 : 2;
    for (int c = 0; c < py->channels; c++) {
        for (int k = 0; l > 0 && k < frames; k++)
            FLOW_TRY(flow_plane_alloc(d, &L->frame[k][c], w, h));
        if (warps(py))
            FLOW_TRY(flow_plane_alloc(d, &L->warped[c], w, h));
        if (previous(py))
            FLOW_TRY(flow_plane_alloc(d, &L->warped_prev[c], w, h));
    }
    if (from_w(py))
        FLOW_TRY(flow_pair_alloc(d, &L->w, w, h));
    return py->hooks.level_create(py->user, d, L);
}

flow_status flow_pyramid_create(flow_device *d, int width, int height, int channels,
                                const flow_warp_params *p, const flow_pyramid_hooks *hooks,
                                void *user, flow_pyramid **out)
{
    *out = NULL;
    if (p->levels < 0 || p->warps < 1 || !(p->scale >= 0.5 && p->scale < 1.0) || p->finest < 0
        || p->fine < 0)
        return flow_fail(FLOW_ERR_INVALID,
                         "pyramid of %d levels, %d warps, scale %g, finest %d, fine %d", p->levels,
                         p->warps, p->scale, p->finest, p->fine);
    flow_pyramid *py = calloc(1, sizeof *py);
    if (!py)
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate a pyramid");
    py->dev = d;
    py->channels = channels;
    py->p = *p;
    py->hooks = *hooks;
    py->user = user;
    const int n = flow_pyramid_levels_for(p, width, height);
    flow_status s = FLOW_OK;
    py->lev = calloc((size_t)n, sizeof *py->lev);
    if (!py->lev)
        s = flow_fail(FLOW_ERR_NOMEM, "cannot allocate a pyramid of %d levels", n);
    else
        py->nlevels = n;
    if (py->p.finest > n - 1)
        py->p.finest = n - 1;
    for (int l = 0, w = width, h = height; s == FLOW_OK && l < n; l++) {
        s = level_alloc(py, l, w, h);
        w = coarse_size(w, level_scale(p, l)), h = coarse_size(h, level_scale(p, l));
    }
    if (s == FLOW_OK && n > 1 && !halved(py, 1)) {
        s = flow_gauss_kernel(0.6 * sqrt(1.0 / (p->scale * p->scale) - 1.0), &py->k_down);
        for (int i = 0; s == FLOW_OK && i < 2 * channels; i++) {
            s = flow_plane_alloc(d, &py->tmp[i], width, height);
            if (s == FLOW_OK)
                s = flow_plane_alloc(d, &py->smooth[i], width, height);
        }
    }
    if (s != FLOW_OK) {
        flow_pyramid_destroy(py);
        return s;
    }
    *out = py;
    return FLOW_OK;
}

/* A view of the top-left w x h corner of a plane. */
static flow_plane view(flow_plane p, int w, int h)
{
    p.width = w;
    p.height = h;
    return p;
}

/* The frames k0 .. py->frames - 1 of level l from those of level l - 1. */
static flow_status frames_down(flow_pyramid *py, int l, int k0)
{
    flow_device *d = py->dev;
    const flow_pyr_level *F = &py->lev[l - 1];
    flow_pyr_level *C = &py->lev[l];
    if (halved(py, l)) {
        for (int k = k0; k < py->frames; k++)
            for (int c = 0; c < py->channels; c++) {
                const flow_restriction_args a = { C->frame[k][c], F->frame[k][c] };
                FLOW_TRY(flow_k_restriction(d, &a));
            }
        return FLOW_OK;
    }
    /* the first two frames in one batch, the frame before in a second */
    for (; k0 < py->frames; k0 += 2) {
        const int k1 = k0 + 2 < py->frames ? k0 + 2 : py->frames;
        const int n = (k1 - k0) * py->channels;
        flow_plane src[FLOW_BATCH_MAX], tmp[FLOW_BATCH_MAX], smooth[FLOW_BATCH_MAX];
        const flow_plane *srcp[FLOW_BATCH_MAX] = {NULL};
        flow_plane *tmpp[FLOW_BATCH_MAX] = {NULL}, *smoothp[FLOW_BATCH_MAX] = {NULL};
        for (int i = 0; i < n; i++) {
            src[i] = F->frame[k0 + i / py->channels][i % py->channels];
            tmp[i] = view(py->tmp[i], F->width, F->height);
            smooth[i] = view(py->smooth[i], F->width, F->height);
            srcp[i] = &src[i], tmpp[i] = &tmp[i], smoothp[i] = &smooth[i];
        }
        FLOW_TRY(flow_smooth_planes(d, smoothp, srcp, tmpp, n, &py->k_down));
        const float up = (float)(1.0 / py->p.scale);
        for (int i = 0; i < n; i++) {
            const flow_resample_args a = { C->frame[k0 + i / py->channels][i % py->channels],
                                           smooth[i], up, up, 1.0f };
            FLOW_TRY(flow_k_resample(d, &a));
        }
    }
    return FLOW_OK;
}

/* *to = the flow of level l + 1 in level l's pixels. */
static flow_status flow_up(flow_pyramid *py, int l, flow_pair *to)
{
    flow_device *d = py->dev;
    const flow_pair *x = py->lev[l + 1].x;
    if (halved(py, l + 1)) {
        const flow_pair none = {{0}, {0}};
        const flow_prolong_pair_args a = { *to, *x, none, 0, 0, 2.0f };
        return flow_k_prolong_pair(d, &a);
    }
    const float s = (float)py->p.scale, gain = (float)(1.0 / py->p.scale);
    const flow_resample_args au = { to->u, x->u, s, s, gain };
    FLOW_TRY(flow_k_resample(d, &au));
    const flow_resample_args av = { to->v, x->v, s, s, gain };
    return flow_k_resample(d, &av);
}

static flow_status solve_and_filter(flow_pyramid *py, flow_exec *ex, flow_pyr_level *L, int last)
{
    FLOW_TRY(py->hooks.solve(py->user, ex, L));
    return py->hooks.filter ? py->hooks.filter(py->user, ex, L, last) : FLOW_OK;
}

/* Whether the flow from the level below goes straight into *L->x: a warm
 * start with no search of the method's own (which reads and writes w). */
static int up_into_x(const flow_pyramid *py)
{
    return py->hooks.warm && !py->hooks.init;
}

/* One level: `warps` passes of warp, data terms, solve and filter, starting
 * from the flow in L->w, or in *L->x (up_into_x); the total flow ends in
 * *L->x.  A warm-started method linearises each pass at the flow its solve
 * starts from, x itself; otherwise each pass takes a copy of x into w. */
static flow_status warp_level(flow_pyramid *py, flow_exec *ex, flow_pyr_level *L)
{
    flow_device *d = py->dev;
    const flow_pair *lin = py->hooks.warm ? L->x : &L->w;
    if (py->hooks.warm && !up_into_x(py) && L->x != &L->w)
        FLOW_TRY(flow_pair_copy(d, L->x, &L->w));
    for (int k = 0; k < py->p.warps; k++) {
        if (k > 0 && !py->hooks.warm)
            FLOW_TRY(flow_pair_copy(d, &L->w, L->x));
        flow_stage_begin(ex, "warp");
        flow_status s = FLOW_OK;
        for (int c = 0; c < py->channels && s == FLOW_OK; c++) {
            const flow_warp_args a = { L->warped[c], L->frame[1][c], *lin, py->p.bicubic, 0 };
            s = flow_k_warp(d, &a);
        }
        for (int c = 0; py->frames == 3 && c < py->channels && s == FLOW_OK; c++) {
            const flow_warp_args a = { L->warped_prev[c], L->frame[2][c], *lin, py->p.bicubic,
                                       1 };
            s = flow_k_warp(d, &a);
        }
        flow_stage_end(ex, "warp");
        FLOW_TRY(s);
        FLOW_TRY(py->hooks.terms(py->user, ex, L, L->frame[0], L->warped, lin));
        FLOW_TRY(solve_and_filter(py, ex, L, k == py->p.warps - 1));
    }
    return FLOW_OK;
}

/* x = w, unless the flow from below went to x already (up_into_x, or a
 * method that keeps its flow in w itself). */
static flow_status take_w(flow_pyramid *py, flow_pyr_level *L)
{
    return L->x == &L->w || up_into_x(py) ? FLOW_OK : flow_pair_copy(py->dev, L->x, &L->w);
}

/* The finest level's start from the caller's initial flow: the initial
 * flow itself (no confidence, or no level below), or blended by the
 * confidence with the flow from below already in *start. */
static flow_status start_from_init(flow_pyramid *py, flow_pair *start, int below)
{
    if (!py->init_confidence || !below)
        return flow_pair_copy(py->dev, start, py->init);
    const flow_start_blend_args a = { *start, *py->init, *py->init_confidence };
    return flow_k_start_blend(py->dev, &a);
}

/* Level l from the flow below it (0 on the coarsest, or the caller's
 * initial flow on the finest level), into x or w (up_into_x): the method's
 * own search, then its warps. */
static flow_status level_run(flow_pyramid *py, flow_exec *ex, int l, int top)
{
    flow_pyr_level *L = &py->lev[l];
    flow_pair *start = up_into_x(py) ? L->x : &L->w;
    if (l != top)
        FLOW_TRY(flow_up(py, l, start));
    else if (!py->init || py->init_confidence)
        FLOW_TRY(flow_pair_fill(py->dev, start, 0.0f));
    if (l == 0 && py->init)
        FLOW_TRY(start_from_init(py, start, l != top));
    if (!L->active)
        return take_w(py, L);
    if (py->hooks.prepare)
        FLOW_TRY(py->hooks.prepare(py->user, ex, L));
    if (py->hooks.init)
        FLOW_TRY(py->hooks.init(py->user, ex, L));
    return py->hooks.terms ? warp_level(py, ex, L) : take_w(py, L);
}

flow_status flow_pyramid_run(flow_pyramid *py, flow_exec *ex, const flow_plane *f0,
                             const flow_plane *f1, const flow_plane *f2)
{
    const int swapped = py->swapped;
    py->swapped = 0;
    if (f0 && !previous(py))
        return flow_fail(FLOW_ERR_INVALID, "a pyramid made for two frames was given three");
    py->frames = f0 ? 3 : 2;
    flow_pyr_level *L0 = &py->lev[0];
    for (int c = 0; c < py->channels; c++) {
        L0->frame[0][c] = f1[c];
        L0->frame[1][c] = f2[c];
        L0->frame[2][c] = f0 ? f0[c] : (flow_plane){ 0 };
    }
    if (!from_w(py)) {
        if (py->hooks.prepare)
            FLOW_TRY(py->hooks.prepare(py->user, ex, L0));
        flow_stage_begin(ex, "motion tensor");
        const flow_status s = py->hooks.terms(py->user, ex, L0, f1, f2, NULL);
        flow_stage_end(ex, "motion tensor");
        FLOW_TRY(s);
        return solve_and_filter(py, ex, L0, 1);
    }
    /* an initial flow without a confidence replaces the coarser levels */
    const int top = py->init && !py->init_confidence ? 0 : py->nlevels - 1;
    const int reuse = swapped && py->made > top;
    py->made = 0;
    for (int l = 1; reuse && l <= top; l++)
        flow_planes_swap(py->lev[l].frame[0], py->lev[l].frame[1], py->channels);
    flow_status s = FLOW_OK;
    flow_stage_begin(ex, "pyramid");
    for (int l = 1; s == FLOW_OK && l <= top; l++)
        s = frames_down(py, l, reuse ? 2 : 0);
    flow_stage_end(ex, "pyramid");
    FLOW_TRY(s);
    py->made = top + 1;
    flow_stage_begin(ex, "warping");
    for (int l = top; l >= 0 && s == FLOW_OK; l--)
        s = level_run(py, ex, l, top);
    flow_stage_end(ex, "warping");
    return s;
}

void flow_pyramid_start(flow_pyramid *py, const flow_pair *init, const flow_plane *confidence)
{
    py->init = init;
    py->init_confidence = init ? confidence : NULL;
}

void flow_pyramid_swapped(flow_pyramid *py, int swapped)
{
    py->swapped = swapped;
}
