/* dis.c -- dense inverse search (Kroeger, Timofte, Dai, Van Gool, ECCV
 * 2016).  On a pyramid of halvings, from the coarsest level to the finest
 * one computed: a grid of patches (side s, stride t) is tracked by
 * inverse-compositional LK from the flow of the level below, the patches'
 * displacements are averaged into a dense flow, each pixel weighing a patch
 * by how well it fits there (libflow/pixel/patch.h), and a few warps of a
 * variational refinement (the data terms of method robust, red-black SOR)
 * clean it up.  Levels finer than `finest` take the flow upsampled.  The
 * presets mirror OpenCV's DIS: -1 in a parameter means the preset's value. */
#include "methods/patches.h"
#include "methods/method.h"
#include "core/terms.h"
#include "core/pair.h"
#include "core/tensor.h"
#include "base/fail.h"

#include <math.h>
#include <stdlib.h>

enum { PRESET_ULTRAFAST, PRESET_FAST, PRESET_MEDIUM };
static const char *const preset_names[] = { "ultrafast", "fast", "medium", NULL };

/* finest level, stride, patch iterations, refinement warps (OpenCV's). */
static const int presets[3][4] = { { 2, 4, 12, 0 }, { 2, 4, 16, 5 }, { 1, 3, 25, 5 } };

typedef struct dis_params {
    int preset;
    int finest;
    int size, stride, iterations;
    int normalise;
    int refine; /* warps of the variational refinement per level (0: none) */
    double alpha, gamma, eps_d, eps_s;
    flow_solver_params solve;
    double sigma;
    int color;
} dis_params;

static int applies_refine(const void *p)
{
    return ((const dis_params *)p)->refine != 0;
}

#define T dis_params
static const flow_param_def dis_schema[] = {
    FLOW_P_REAL(T, sigma, "sigma", 0.0, 0, 16, 0, "presmoothing K_sigma of the frames, pixels"),
    FLOW_P_CHOICE(T, preset, "preset", PRESET_MEDIUM, preset_names,
                  "OpenCV's presets: finest level, stride, iterations and refinement"),
    FLOW_P_INT(T, finest, "finest", -1, -1, 10, 0,
               "finest pyramid level computed (0: full size, 1: half, ...); the flow is "
               "upsampled from there; -1: the preset's (ultrafast 2, fast 2, medium 1)"),
    FLOW_P_INT(T, size, "patch", 8, 2, 64, 0, "side of the square patches, pixels"),
    FLOW_P_INT(T, stride, "stride", -1, -1, 64, 0,
               "distance between neighbouring patches, pixels; -1: the preset's (4, 4, 3)"),
    FLOW_P_INT(T, iterations, "patch_iterations", -1, -1, 1000, 0,
               "Gauss-Newton iterations per patch; -1: the preset's (12, 16, 25)"),
    FLOW_P_RENAMED(T, normalise, "zero_mean", "normalise", FLOW_PARAM_BOOL, 1, 0, 1, 0, NULL,
                   "compare the patches less their means (blind to a brightness offset)", NULL,
                   NULL),
    FLOW_P_INT(T, refine, "refine", -1, -1, 100, 0,
               "warps of the variational refinement per level, 0: none; -1: the preset's "
               "(0, 5, 5)"),
    FLOW_P_WHEN(T, alpha, "alpha", FLOW_PARAM_REAL, 2.5, 0, 1e12, FLOW_PARAM_MIN_OPEN, NULL,
                "refinement: weight of the smoothness term", "refine != 0", applies_refine),
    FLOW_P_WHEN(T, gamma, "gamma", FLOW_PARAM_REAL, 1.0, 0, 1e6, 0, NULL,
                "refinement: weight of the gradient constancy term; 0: off", "refine != 0",
                applies_refine),
    FLOW_P_WHEN(T, eps_d, "eps_data", FLOW_PARAM_REAL, 0.1, 0, 1e6, FLOW_PARAM_MIN_OPEN, NULL,
                "refinement: epsilon of the data penalisers, pixels", "refine != 0",
                applies_refine),
    FLOW_P_WHEN(T, eps_s, "eps_s", FLOW_PARAM_REAL, 0.01, 0, 1e6, FLOW_PARAM_MIN_OPEN, NULL,
                "refinement: epsilon of the smoothness penaliser", "refine != 0",
                applies_refine),
    FLOW_SOLVER_SCHEMA_D(T, solve, FLOW_SOLVER_RBSOR, FLOW_SOLVER_RBSOR, 5, 1.6, 1),
    FLOW_COLOR_PARAM(T, color),
};
#undef T

typedef struct dis_state {
    flow_device *dev;
    dis_params p; /* the preset's values in place of -1 */
    int channels;
    flow_patch_opts patch;
    flow_mg_model model;
    flow_terms data;
    flow_warp_params pyr;
    flow_kernel k_sigma;
    flow_patch_input in;
    flow_pyramid *py;
} dis_state;

typedef struct dis_level {
    flow_patch_grad grad;
    flow_pair patches; /* one displacement per patch of the grid */
    flow_mg *mg;       /* the refinement (levels >= finest, refine > 0) */
} dis_level;

/* Patches of side s at stride t along a side of n pixels. */
static int grid_count(int n, int s, int t)
{
    return n <= s ? 1 : (n - s) / t + 1;
}

static flow_status level_create(void *user, flow_device *d, flow_pyr_level *L)
{
    dis_state *st = user;
    dis_level *dl = calloc(1, sizeof *dl);
    if (!dl)
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate a pyramid level");
    L->state = dl;
    L->x = &L->w;
    if (!L->active)
        return FLOW_OK;
    FLOW_TRY(flow_patch_grad_alloc(d, &dl->grad, L->width, L->height, st->channels));
    const int s = st->p.size, t = st->p.stride;
    FLOW_TRY(flow_pair_alloc(d, &dl->patches, grid_count(L->width, s, t),
                             grid_count(L->height, s, t)));
    if (st->p.refine > 0) {
        FLOW_TRY(flow_mg_create(d, L->width, L->height, &st->p.solve, &st->model, &dl->mg));
        flow_mg_set_warm(dl->mg, 1);
        L->x = flow_mg_result(dl->mg);
    }
    return FLOW_OK;
}

static void level_destroy(void *user, flow_device *d, flow_pyr_level *L)
{
    (void)user;
    dis_level *dl = L->state;
    if (!dl)
        return;
    flow_patch_grad_free(d, &dl->grad);
    flow_pair_free(d, &dl->patches);
    flow_mg_destroy(dl->mg);
    free(dl);
    L->state = NULL;
}

/* The patch search and the densification: L->w from the coarser flow in
 * L->w. */
static flow_status search(void *user, flow_exec *ex, flow_pyr_level *L)
{
    dis_state *st = user;
    dis_level *dl = L->state;
    flow_dis_search_args a = { .o = st->patch, .p = dl->patches, .w = L->w,
                               .stride = st->p.stride };
    flow_dis_densify_args b = { .w = L->w, .p = dl->patches, .channels = st->channels,
                                .size = st->p.size, .stride = st->p.stride };
    for (int c = 0; c < st->channels; c++) {
        b.f1[c] = L->frame[0][c];
        b.f2[c] = L->frame[1][c];
    }
    flow_stage_begin(ex, "patch search");
    flow_status s = flow_patch_level_frames(ex->dev, L, &dl->grad, st->channels, &a.f);
    if (s == FLOW_OK)
        s = flow_k_dis_search(ex->dev, &a);
    flow_stage_end(ex, "patch search");
    FLOW_TRY(s);
    flow_stage_begin(ex, "densify");
    s = flow_k_dis_densify(ex->dev, &b);
    flow_stage_end(ex, "densify");
    return s;
}

static flow_status terms(void *user, flow_exec *ex, flow_pyr_level *L, const flow_plane *f1,
                         const flow_plane *f2, const flow_pair *w)
{
    dis_state *st = user;
    flow_stage_begin(ex, "data terms");
    const flow_status s = flow_terms_build(ex, ((dis_level *)L->state)->mg, &st->data,
                                           &st->model, NULL, NULL, f1, f2, w);
    flow_stage_end(ex, "data terms");
    return s;
}

static flow_status solve(void *user, flow_exec *ex, flow_pyr_level *L)
{
    (void)user;
    return flow_mg_solve(((dis_level *)L->state)->mg, ex);
}

static void dis_destroy(void *state)
{
    dis_state *st = state;
    if (!st)
        return;
    flow_pyramid_destroy(st->py);
    flow_patch_input_free(st->dev, &st->in);
    free(st);
}

/* The parameters with the preset's values in place of -1. */
static dis_params resolve(const dis_params *given)
{
    dis_params p = *given;
    const int *v = presets[p.preset];
    if (p.finest < 0)
        p.finest = v[0];
    if (p.stride < 0)
        p.stride = v[1];
    if (p.iterations < 0)
        p.iterations = v[2];
    if (p.refine < 0)
        p.refine = v[3];
    return p;
}

static flow_status dis_check(const void *params)
{
    const dis_params p = resolve(params);
    if (p.stride < 1 || p.stride > p.size)
        return flow_fail(FLOW_ERR_INVALID,
                         "method dis: stride %d, it must be 1 .. patch (%d) so that the patches "
                         "cover the frame",
                         p.stride, p.size);
    if (p.iterations < 1)
        return flow_fail(FLOW_ERR_INVALID, "method dis: patch_iterations %d, at least 1",
                         p.iterations);
    return FLOW_OK;
}

/* The pyramid of w x h frames: halvings down to a coarsest level with a
 * side of about 4 patches (Kroeger et al.). */
static flow_warp_params dis_pyramid(const dis_params *p, int width, int height)
{
    const double side = width > height ? width : height;
    const int levels = (int)fmax(0.0, floor(log2(side / (4.0 * p->size)) + 0.5));
    return (flow_warp_params){ .levels = levels, .warps = p->refine > 0 ? p->refine : 1,
                               .scale = 0.5, .finest = p->finest };
}

/* A finest level beyond the coarsest becomes the coarsest (also when it is
 * the preset's), and the refinement's multigrid depth what the grid of
 * that level allows. */
static void dis_fit(void *params, int width, int height)
{
    dis_params *given = params;
    const dis_params p = resolve(given);
    flow_warp_params pyr = dis_pyramid(&p, width, height);
    flow_warp_fit(&pyr, width, height);
    if (pyr.finest != p.finest)
        given->finest = pyr.finest;
    int w, h;
    flow_pyramid_level_size(&pyr, width, height, pyr.finest, &w, &h);
    flow_solver_fit(&given->solve, w, h);
}

static flow_status dis_create(flow_device *d, int width, int height, int channels,
                              const void *params, void **state)
{
    *state = NULL;
    dis_state *st = calloc(1, sizeof *st);
    if (!st)
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate method dis");
    st->dev = d;
    st->p = resolve(params);
    st->channels = channels;
    st->patch = (flow_patch_opts){ st->p.size, st->p.iterations, st->p.normalise, 0.0f, 0, 0 };
    /* method robust's model, normalised */
    const flow_status ts = flow_terms_robust(&st->data, &st->model, channels, 1, 1.0, st->p.gamma,
                                             st->p.eps_d, st->p.alpha, st->p.eps_s, 0);
    st->pyr = dis_pyramid(&st->p, width, height);
    static const flow_pyramid_hooks refined = { .level_create = level_create,
                                                .level_destroy = level_destroy,
                                                .init = search,
                                                .terms = terms,
                                                .solve = solve,
                                                .warm = 1 };
    static const flow_pyramid_hooks plain = { .level_create = level_create,
                                              .level_destroy = level_destroy,
                                              .init = search };
    flow_status s = ts;
    if (s == FLOW_OK)
        s = flow_gauss_kernel(st->p.sigma, &st->k_sigma);
    if (s == FLOW_OK)
        s = flow_patch_input_alloc(d, &st->in, width, height, channels, &st->k_sigma);
    if (s == FLOW_OK)
        s = flow_pyramid_create(d, width, height, channels, &st->pyr,
                                st->p.refine > 0 ? &refined : &plain, st, &st->py);
    if (s != FLOW_OK) {
        dis_destroy(st);
        return s;
    }
    *state = st;
    return FLOW_OK;
}

static flow_status dis_run(void *state, flow_exec *ex, const flow_frames *in,
                           const flow_pair **flow)
{
    dis_state *st = state;
    const flow_plane *f1, *f2;
    FLOW_TRY(flow_patch_input_smooth(&st->in, ex, in, &f1, &f2));
    flow_pyramid_swapped(st->py, in->swapped);
    FLOW_TRY(flow_pyramid_run(st->py, ex, NULL, f1, f2));
    *flow = st->py->lev[0].x;
    return FLOW_OK;
}

const flow_method_desc flow_method_dis = {
    .name = "dis",
    .title = "dense inverse search: patch LK on a grid, densified, variationally refined "
             "(Kroeger et al. 2016)",
    .params_size = sizeof(dis_params),
    .params = dis_schema,
    .nparams = FLOW_NPARAMS(dis_schema),
    .check = dis_check,
    .create = dis_create,
    .fit = dis_fit,
    .run = dis_run,
    .destroy = dis_destroy,
};
