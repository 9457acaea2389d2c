/* epic.c -- large displacements: matching, edge-aware sparse-to-dense
 * interpolation, variational refinement (EpicFlow: Revaud, Weinzaepfel,
 * Harchaoui, Schmid, CVPR 2015; the matching of CPM: Hu, Song, Li, CVPR
 * 2016).
 *
 * On a pyramid of halvings, from the coarsest level down to the match
 * level: census descriptors of both frames and PatchMatch passes over a
 * grid of seeds (pixel/epic_match.h), forward and backward, each level
 * starting from the flows of the level below.  At the match level the
 * forward-backward check keeps the consistent, textured matches, a
 * geodesic relaxation over an edge cost (from the first frame's gradient,
 * or from the caller's edge map) finds each pixel's nearest match
 * and locally weighted affine fits interpolate them densely
 * (pixel/epic_interp.h).  From the match level to the finest, warps of the
 * variational refinement (the data terms of method robust, its solvers and
 * weighted median) refine that flow. */
#include "methods/patches.h"
#include "core/terms.h"
#include "methods/method.h"
#include "core/pair.h"
#include "core/tensor.h"
#include "base/fail.h"

#include <math.h>
#include <stdlib.h>

typedef struct epic_params {
    double sigma;
    int levels, match_level, step, iterations, radius, subpixel;
    double census_thresh, fb_tol, min_texture;
    double edge, edge_gain, geo_sigma;
    int geo_passes, gather, affine;
    int warps;
    double alpha, gamma, eps_d, eps_s, smooth_edge;
    int median;
    flow_solver_params solve;
    int color;
} epic_params;

#define T epic_params
static const flow_param_def epic_schema[] = {
    FLOW_P_REAL(T, sigma, "sigma", 0.8, 0, 16, 0, "presmoothing K_sigma of the frames, pixels"),
    FLOW_P_INT(T, levels, "levels", 5, 1, 20, 0,
               "matching: pyramid levels of halvings below the finest (as many as fit, down "
               "to a side of 8 pixels)"),
    FLOW_P_INT(T, match_level, "match_level", 1, 0, 20, 0,
               "the level the matches are made and interpolated at (0: full size, 1: half, "
               "...); the refinement runs from there to the finest"),
    FLOW_P_INT(T, step, "step", 3, 1, 64, 0, "distance between seeds at the match level, pixels"),
    FLOW_P_INT(T, iterations, "match_iterations", 4, 1, 100, 0,
               "PatchMatch passes (propagation and random search) per level and direction"),
    FLOW_P_INT(T, radius, "match_radius", 4, 0, 1024, 0,
               "first random-search radius on levels below the coarsest, pixels (the "
               "coarsest searches half its size)"),
    FLOW_P_BOOL(T, subpixel, "subpixel", 1,
                "the forward matches to sub-pixel precision by a parabola through the costs "
                "of their neighbours"),
    FLOW_P_REAL(T, census_thresh, "census_thresh", 1.0, 0, 1e6, 0,
                "census: a neighbour counts as brighter by more than this, grey levels"),
    FLOW_P_REAL(T, fb_tol, "fb_tol", 2.0, 0, 1e6, FLOW_PARAM_MIN_OPEN,
                "matches whose backward match misses them by more are dropped, pixels of the "
                "match level"),
    FLOW_P_REAL(T, min_texture, "min_texture", 1.0, 0, 1e6, 0,
                "matches where the first frame's mean gradient around the seed is lower are "
                "dropped, grey levels per pixel"),
    FLOW_P_REAL(T, edge, "edge", 2.0, 0, 1e6, FLOW_PARAM_MIN_OPEN,
                "interpolation: the geodesic cost of a pixel is 1 + |grad f1| / edge, grey "
                "levels per pixel"),
    FLOW_P_REAL(T, edge_gain, "edge_gain", 20.0, 0, 1e6, 0,
                "interpolation with a caller's edge map E (values in [0, 1], flow-compute "
                "--edges): the geodesic cost of a pixel is 1 + edge_gain E"),
    FLOW_P_REAL(T, geo_sigma, "geo_sigma", 3.0, 0, 1e6, FLOW_PARAM_MIN_OPEN,
                "interpolation: a match weighs exp(-D / geo_sigma), D its geodesic distance"),
    FLOW_P_INT(T, geo_passes, "geo_passes", 8, 1, 1000, 0,
               "relaxation passes between neighbours after the jump-flooding passes"),
    FLOW_P_INT(T, gather, "gather", 2, 1, FLOW_EPIC_GATHER_MAX, 0,
               "interpolation: the matches of a (2 gather + 1)^2 grid of pixels a step apart"),
    FLOW_P_BOOL(T, affine, "affine", 0,
                "interpolation: locally weighted affine fits (0: weighted means)"),
    FLOW_P_INT(T, warps, "warps", 3, 0, 100, 0,
               "refinement: warps per level from the match level to the finest (0: none)"),
    FLOW_ALPHA_PARAM(T, alpha, 4.0),
    FLOW_P_REAL(T, gamma, "gamma", 1.0, 0, 1e6, 0,
                "refinement: weight of the gradient constancy term; 0: off"),
    FLOW_P_REAL(T, eps_d, "eps_data", 0.1, 0, 1e6, FLOW_PARAM_MIN_OPEN,
                "refinement: epsilon of the data penalisers, pixels"),
    FLOW_P_REAL(T, eps_s, "eps_s", 0.01, 0, 1e6, FLOW_PARAM_MIN_OPEN,
                "refinement: epsilon of the smoothness penaliser"),
    FLOW_P_REAL(T, smooth_edge, "smooth_edge", 30.0, 0, 1e6, 0,
                "refinement: Psi'_S times exp(-|grad f1| / smooth_edge); 0: off"),
    FLOW_P_INT(T, median, "median", 2, 0, 2, 0,
               "refinement: weighted median of the flow after each level, radius; 0: off"),
    FLOW_SOLVER_SCHEMA_MG(T, solve, FLOW_SOLVER_VCYCLE, FLOW_SOLVER_RBSOR, 20, 1.3, 1, 8, 1, 1,
                          2),
    FLOW_P_BOOL(T, color, "color", 1,
                "input: 1 the R, G, B channels of colour frames, 0 their luminance"),
};
#undef T

typedef struct epic_state {
    flow_device *dev;
    epic_params p;
    int channels;
    flow_warp_params pyr;
    int match; /* the match level, within the pyramid */
    flow_kernel k_sigma;
    flow_patch_input in;
    flow_mg_model model;
    flow_terms data;
    flow_pyramid *py;
    /* both frames' census descriptors at each level from the match level
     * down (the others unallocated); census_made: the last run made them
     * all (it took no matches), reuse: this run takes them exchanged */
    flow_plane (*census)[2];
    int ncensus, census_made, reuse;
    flow_pair seeds[2][2];  /* [direction][ping-pong] */
    flow_plane seed_cost, valid;
    flow_plane dist[2], label[2], cost; /* the match level */
    int nx, ny;             /* the seed grid */
    flow_plane out[3];      /* the matches at full size (outputs) */
    const flow_plane *given; /* the caller's matches of this run, or NULL */
    int ngiven;
    const flow_plane *edges; /* the caller's edge map of this run, or NULL */
} epic_state;

static flow_plane view(flow_plane p, int w, int h)
{
    p.width = w;
    p.height = h;
    return p;
}

/* Seeds every `step` pixels from step / 2 along a side of n pixels. */
static int seed_count(int n, int step)
{
    const int c = (n - step / 2 + step - 1) / step;
    return c > 1 ? c : 1;
}

static flow_status level_create(void *user, flow_device *d, flow_pyr_level *L)
{
    epic_state *st = user;
    L->x = &L->w;
    if (L->level > st->match || st->p.warps == 0)
        return FLOW_OK;
    flow_mg *mg;
    FLOW_TRY(flow_mg_create(d, L->width, L->height, &st->p.solve, &st->model, &mg));
    L->state = mg;
    flow_mg_set_warm(mg, 1);
    L->x = flow_mg_result(mg);
    return FLOW_OK;
}

static void level_destroy(void *user, flow_device *d, flow_pyr_level *L)
{
    (void)user, (void)d;
    flow_mg_destroy(L->state);
    L->state = NULL;
}

/* PatchMatch passes for one direction: seeds of frame c1 into c2, ending in
 * seeds[dir][0]. */
static flow_status match_passes(epic_state *st, flow_device *d, int dir, const flow_plane *c1,
                                const flow_plane *c2, int shift, int radius, int level)
{
    const int n = st->p.iterations;
    int cur = 0;
    for (int k = 0; k < n; k++) {
        int jump = 1 << (n - 2 - k > 0 ? n - 2 - k : 0);
        while (jump > 1 && jump >= (st->nx > st->ny ? st->nx : st->ny))
            jump /= 2;
        const flow_epic_match_args a = { .c1 = *c1, .c2 = *c2, .src = st->seeds[dir][cur],
                                         .dst = st->seeds[dir][1 - cur], .cost = st->seed_cost,
                                         .step = st->p.step, .shift = shift, .jump = jump,
                                         .radius = radius,
                                         .pass = (unsigned)((level * 2 + dir) * 128 + k) };
        FLOW_TRY(flow_k_epic_match(d, &a));
        cur = 1 - cur;
    }
    return cur ? flow_pair_copy(d, &st->seeds[dir][0], &st->seeds[dir][1]) : FLOW_OK;
}

/* The forward-backward check, the geodesic relaxation and the
 * interpolation at the match level, into L->w. */
static flow_status interpolate(epic_state *st, flow_exec *ex, flow_pyr_level *L)
{
    flow_device *d = ex->dev;
    const int w = L->width, h = L->height;
    flow_epic_check_args c = { .valid = st->valid, .fw = st->seeds[0][0], .bw = st->seeds[1][0],
                               .channels = st->channels, .step = st->p.step,
                               .tol2 = (float)(st->p.fb_tol * st->p.fb_tol),
                               .min_texture = (float)st->p.min_texture };
    flow_epic_cost_args e = { .cost = view(st->cost, w, h), .channels = st->channels,
                              .inv_edge = (float)(1.0 / st->p.edge) };
    for (int k = 0; k < st->channels; k++)
        c.f[k] = e.f[k] = L->frame[0][k];
    flow_status s = FLOW_OK;
    if (!st->given) {
        flow_stage_begin(ex, "consistency");
        s = flow_k_epic_check(d, &c);
        flow_stage_end(ex, "consistency");
        FLOW_TRY(s);
    }
    flow_stage_begin(ex, "geodesic");
    if (st->edges) {
        const flow_epic_edges_args ea = { .cost = e.cost, .edges = *st->edges,
                                          .block = 1 << st->match,
                                          .gain = (float)st->p.edge_gain };
        s = flow_k_epic_edges(d, &ea);
    } else {
        s = flow_k_epic_cost(d, &e);
    }
    const flow_epic_geo_init_args gi = { view(st->dist[0], w, h), view(st->label[0], w, h),
                                         st->valid, st->p.step };
    if (s == FLOW_OK)
        s = flow_k_epic_geo_init(d, &gi);
    int jump = 1;
    while (jump * 4 <= (w > h ? w : h))
        jump *= 2;
    int cur = 0;
    for (; s == FLOW_OK && jump >= 1; jump = jump > 1 ? jump / 2 : 0) {
        const int passes = jump > 1 ? 1 : st->p.geo_passes;
        for (int k = 0; k < passes && s == FLOW_OK; k++) {
            const flow_epic_geo_step_args g = { view(st->dist[1 - cur], w, h),
                                                view(st->label[1 - cur], w, h),
                                                view(st->dist[cur], w, h),
                                                view(st->label[cur], w, h), view(st->cost, w, h),
                                                jump };
            s = flow_k_epic_geo_step(d, &g);
            cur = 1 - cur;
        }
    }
    flow_stage_end(ex, "geodesic");
    FLOW_TRY(s);
    const flow_epic_interp_args ia = { .w = L->w, .dist = view(st->dist[cur], w, h),
                                       .label = view(st->label[cur], w, h),
                                       .cost = view(st->cost, w, h), .seeds = st->seeds[0][0],
                                       .step = st->p.step, .gather = st->p.gather,
                                       .inv_sigma = (float)(1.0 / st->p.geo_sigma),
                                       .affine = st->p.affine };
    flow_stage_begin(ex, "interpolation");
    s = flow_k_epic_interp(d, &ia);
    flow_stage_end(ex, "interpolation");
    return s;
}

/* The matching of a level at or below the match level (the coarser levels
 * first), and at the match level the dense flow from the matches. */
static flow_status init(void *user, flow_exec *ex, flow_pyr_level *L)
{
    epic_state *st = user;
    flow_device *d = ex->dev;
    const int shift = L->level - st->match;
    if (shift < 0)
        return FLOW_OK;
    if (st->given) {
        if (shift > 0)
            return FLOW_OK;
        const flow_epic_take_args a = { .seeds = st->seeds[0][0], .valid = st->valid,
                                        .matches = *st->given, .n = st->ngiven,
                                        .step = st->p.step,
                                        .scale = 1.0f / (float)(1 << st->match) };
        flow_stage_begin(ex, "matching");
        const flow_status s = flow_k_epic_take(d, &a);
        flow_stage_end(ex, "matching");
        FLOW_TRY(s);
        return interpolate(st, ex, L);
    }
    const flow_plane *c = st->census[L->level];
    flow_stage_begin(ex, "descriptors");
    flow_status s = FLOW_OK;
    for (int k = 0; !st->reuse && k < 2 && s == FLOW_OK; k++) {
        flow_epic_census_args a = { .dst = c[k], .channels = st->channels,
                                    .thresh = (float)st->p.census_thresh };
        for (int ch = 0; ch < st->channels; ch++)
            a.f[ch] = L->frame[k][ch];
        s = flow_k_epic_census(d, &a);
    }
    flow_stage_end(ex, "descriptors");
    FLOW_TRY(s);
    const int coarsest = L->level == st->py->nlevels - 1;
    int radius = st->p.radius;
    if (coarsest) {
        radius = 1;
        while (radius * 4 <= (L->width > L->height ? L->width : L->height))
            radius *= 2;
    }
    flow_stage_begin(ex, "matching");
    for (int dir = 0; dir < 2 && s == FLOW_OK; dir++) {
        flow_pair *p = &st->seeds[dir][0];
        if (coarsest) {
            s = flow_pair_fill(d, p, 0.0f);
        } else {
            const flow_scale_args au = { p->u, 2.0f }, av = { p->v, 2.0f };
            s = flow_k_scale(d, &au);
            if (s == FLOW_OK)
                s = flow_k_scale(d, &av);
        }
        if (s == FLOW_OK)
            s = match_passes(st, d, dir, &c[dir], &c[1 - dir], shift, radius, L->level);
    }
    if (s == FLOW_OK && shift == 0 && st->p.subpixel) {
        const flow_epic_subpixel_args a = { c[0], c[1], st->seeds[0][0], st->p.step };
        s = flow_k_epic_subpixel(d, &a);
    }

    flow_stage_end(ex, "matching");
    FLOW_TRY(s);
    return shift == 0 ? interpolate(st, ex, L) : FLOW_OK;
}

/* The smoothness weight of a refined level, from its first frame. */
static flow_status prepare(void *user, flow_exec *ex, flow_pyr_level *L)
{
    epic_state *st = user;
    if (!L->state || st->p.smooth_edge <= 0)
        return FLOW_OK;
    flow_edge_weight_args e = { .g = *flow_mg_edge(L->state), .channels = st->channels,
                                .inv_lambda = (float)(1.0 / st->p.smooth_edge) };
    for (int c = 0; c < st->channels; c++)
        e.f[c] = L->frame[0][c];
    return flow_k_edge_weight(ex->dev, &e);
}

/* The refinement's data terms and solve on the levels it runs on; the
 * levels below the match level only carry the matches' pyramid. */
static flow_status terms(void *user, flow_exec *ex, flow_pyr_level *L, const flow_plane *f1,
                         const flow_plane *f2, const flow_pair *w)
{
    epic_state *st = user;
    if (!L->state)
        return FLOW_OK;
    flow_stage_begin(ex, "data terms");
    const flow_status s = flow_terms_build(ex, L->state, &st->data, &st->model, NULL, NULL, f1,
                                              f2, w);
    flow_stage_end(ex, "data terms");
    return s;
}

static flow_status solve(void *user, flow_exec *ex, flow_pyr_level *L)
{
    (void)user;
    return L->state ? flow_mg_solve(L->state, ex) : FLOW_OK;
}

static flow_status filter(void *user, flow_exec *ex, flow_pyr_level *L, int last)
{
    epic_state *st = user;
    if (!L->state || !st->p.median || !last)
        return FLOW_OK;
    flow_stage_begin(ex, "median");
    flow_median_args a = { .dst = *flow_mg_scratch(L->state), .src = *L->x,
                           .radius = st->p.median, .channels = st->channels,
                           .inv_c2 = (float)(1.0 / (2.0 * 10.0 * 10.0 * st->channels)),
                           .inv_s2 = (float)(1.0 / (2.0 * 2.0 * 2.0)) };
    for (int c = 0; c < st->channels; c++)
        a.img[c] = L->frame[0][c];
    const flow_status s = flow_k_median(ex->dev, &a);
    if (s == FLOW_OK)
        flow_mg_take_scratch(L->state);
    flow_stage_end(ex, "median");
    return s;
}

static flow_warp_params epic_pyramid(const epic_params *p)
{
    return (flow_warp_params){ .levels = p->levels, .warps = p->warps > 0 ? p->warps : 1,
                               .scale = 0.5, .bicubic = 1 };
}

/* The levels the frames allow, the match level within them, the solver's
 * depth on the finest grid. */
static void epic_fit(void *params, int width, int height)
{
    epic_params *p = params;
    flow_warp_params pyr = epic_pyramid(p);
    flow_warp_fit(&pyr, width, height);
    p->levels = pyr.levels;
    if (p->match_level > p->levels)
        p->match_level = p->levels;
    flow_solver_fit(&p->solve, width, height);
}

static void epic_destroy(void *state)
{
    epic_state *st = state;
    if (!st)
        return;
    flow_device *d = st->dev;
    flow_pyramid_destroy(st->py);
    flow_patch_input_free(d, &st->in);
    for (int l = 0; st->census && l < st->ncensus; l++)
        for (int k = 0; k < 2; k++)
            flow_plane_free(d, &st->census[l][k]);
    free(st->census);
    for (int k = 0; k < 2; k++) {
        flow_plane_free(d, &st->out[k]);
        flow_plane_free(d, &st->dist[k]);
        flow_plane_free(d, &st->label[k]);
        for (int j = 0; j < 2; j++)
            flow_pair_free(d, &st->seeds[k][j]);
    }
    flow_plane_free(d, &st->seed_cost);
    flow_plane_free(d, &st->valid);
    flow_plane_free(d, &st->cost);
    flow_plane_free(d, &st->out[2]);
    free(st);
}

static flow_status epic_create(flow_device *d, int width, int height, int channels,
                               const void *params, void **state)
{
    *state = NULL;
    epic_state *st = calloc(1, sizeof *st);
    if (!st)
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate method epic");
    st->dev = d;
    st->p = *(const epic_params *)params;
    st->channels = channels;
    st->pyr = epic_pyramid(&st->p);
    flow_warp_fit(&st->pyr, width, height);
    st->match = st->p.match_level < st->pyr.levels ? st->p.match_level : st->pyr.levels;
    int mw, mh;
    flow_pyramid_level_size(&st->pyr, width, height, st->match, &mw, &mh);
    st->nx = seed_count(mw, st->p.step);
    st->ny = seed_count(mh, st->p.step);
    /* method robust's model, normalised, with edge-aware smoothness */
    const flow_status ts = flow_terms_robust(&st->data, &st->model, channels, 1, 1.0, st->p.gamma,
                                             st->p.eps_d, st->p.alpha, st->p.eps_s,
                                             st->p.smooth_edge > 0);
    static const flow_pyramid_hooks hooks = { .level_create = level_create,
                                              .level_destroy = level_destroy,
                                              .prepare = prepare,
                                              .init = init,
                                              .terms = terms,
                                              .solve = solve,
                                              .filter = filter,
                                              .warm = 1 };
    flow_status s = ts != FLOW_OK ? ts : flow_gauss_kernel(st->p.sigma, &st->k_sigma);
    if (s == FLOW_OK)
        s = flow_patch_input_alloc(d, &st->in, width, height, channels, &st->k_sigma);
    st->ncensus = flow_pyramid_levels_for(&st->pyr, width, height);
    if (s == FLOW_OK && !(st->census = calloc((size_t)st->ncensus, sizeof *st->census)))
        s = flow_fail(FLOW_ERR_NOMEM, "cannot allocate method epic");
    for (int l = st->match; l < st->ncensus && s == FLOW_OK; l++) {
        int lw, lh;
        flow_pyramid_level_size(&st->pyr, width, height, l, &lw, &lh);
        for (int k = 0; k < 2 && s == FLOW_OK; k++)
            s = flow_plane_alloc(d, &st->census[l][k], lw, lh);
    }
    for (int k = 0; k < 2 && s == FLOW_OK; k++) {
        s = flow_plane_alloc(d, &st->dist[k], mw, mh);
        if (s == FLOW_OK)
            s = flow_plane_alloc(d, &st->label[k], mw, mh);
        for (int j = 0; j < 2 && s == FLOW_OK; j++)
            s = flow_pair_alloc(d, &st->seeds[k][j], st->nx, st->ny);
    }
    if (s == FLOW_OK)
        s = flow_plane_alloc(d, &st->seed_cost, st->nx, st->ny);
    if (s == FLOW_OK)
        s = flow_plane_alloc(d, &st->valid, st->nx, st->ny);
    if (s == FLOW_OK)
        s = flow_plane_alloc(d, &st->cost, mw, mh);
    for (int k = 0; k < 3 && s == FLOW_OK; k++)
        s = flow_plane_alloc(d, &st->out[k], width, height);
    if (s == FLOW_OK)
        s = flow_pyramid_create(d, width, height, channels, &st->pyr, &hooks, st, &st->py);
    if (s != FLOW_OK) {
        epic_destroy(st);
        return s;
    }
    *state = st;
    return FLOW_OK;
}

static flow_status epic_run(void *state, flow_exec *ex, const flow_frames *in,
                            const flow_pair **flow)
{
    epic_state *st = state;
    const flow_plane *f1, *f2;
    FLOW_TRY(flow_patch_input_smooth(&st->in, ex, in, &f1, &f2));
    st->given = in->matches;
    st->ngiven = in->matches ? in->matches->width : 0;
    /* the pair the other way round: its descriptors are the last run's */
    st->reuse = in->swapped && st->census_made;
    for (int l = st->match; st->reuse && l < st->ncensus; l++)
        flow_planes_swap(&st->census[l][0], &st->census[l][1], 1);
    flow_pyramid_swapped(st->py, in->swapped);
    st->edges = in->edges;
    const flow_status s = flow_pyramid_run(st->py, ex, NULL, f1, f2);
    st->census_made = s == FLOW_OK && !st->given;
    st->given = NULL;
    st->edges = NULL;
    FLOW_TRY(s);
    const flow_epic_scatter_args a = { .u = st->out[0], .v = st->out[1], .weight = st->out[2],
                                       .seeds = st->seeds[0][0], .valid = st->valid,
                                       .step = st->p.step, .level = st->match };
    FLOW_TRY(flow_k_epic_scatter(ex->dev, &a));
    *flow = st->py->lev[0].x;
    return FLOW_OK;
}

/* The matches the flow was interpolated from, at the full-size pixel of
 * each seed (pixel/epic_match.h, flow_epic_scatter_px). */
static int epic_outputs(const void *params, const char **names)
{
    (void)params;
    names[0] = "match_u";
    names[1] = "match_v";
    names[2] = "match_weight";
    return 3;
}

static const flow_plane *epic_output(void *state, int i)
{
    return &((epic_state *)state)->out[i];
}

const flow_method_desc flow_method_epic = {
    .name = "epic",
    .title = "large displacements: census PatchMatch on seeds, edge-aware interpolation, "
             "variational refinement (Revaud et al. 2015, Hu et al. 2016)",
    .params_size = sizeof(epic_params),
    .params = epic_schema,
    .nparams = FLOW_NPARAMS(epic_schema),
    .create = epic_create,
    .fit = epic_fit,
    .run = epic_run,
    .destroy = epic_destroy,
    .inputs = FLOW_INPUT_MATCHES | FLOW_INPUT_EDGES,
    .outputs = epic_outputs,
    .output = epic_output,
};
