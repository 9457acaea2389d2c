/* plk.c -- iterative, pyramidal patch Lucas-Kanade (seed 000, Ringaby 2008,
 * ch. 2.3 and 3.1; Bouguet's pyramidal tracker made dense): every pixel's patch is
 * tracked by inverse-compositional Gauss-Newton iterations
 * (libflow/pixel/patch.h), from the coarsest pyramid level down, each level
 * starting from the flow of the level below.  Large motions become small
 * ones at the coarse levels; the patch iterations follow them to sub-pixel
 * accuracy without a global system. */
#include "methods/patches.h"
#include "core/pair.h"
#include "core/tensor.h"
#include "base/fail.h"
#include "flow/field.h"

#include <math.h>
#include <stdlib.h>

typedef struct plk_params {
    double sigma;     /* presmoothing of the frames, pixels */
    flow_patch_opts patch;
    double tau;
    int fill_unknown; /* keep the coarser flow where a patch does not track */
    flow_warp_params pyr;
    int color;
} plk_params;

#define T plk_params
static const flow_param_def plk_schema[] = {
    FLOW_P_REAL(T, sigma, "sigma", 1.0, 0, 16, 0, "presmoothing K_sigma of the frames, pixels"),
    FLOW_P_INT(T, patch.size, "patch", 8, 2, 64, 0,
               "side of the square patch, pixels (even sides allowed)"),
    FLOW_P_INT(T, patch.iterations, "iterations", 10, 1, 1000, 0,
               "Gauss-Newton iterations per patch and level"),
    FLOW_P_BOOL(T, patch.affine, "affine", 1,
                "the patch may rotate, scale and shear (6 parameters; 0: it translates)"),
    FLOW_P_BOOL(T, patch.cubic, "bicubic", 1,
                "sample the second frame by bicubic interpolation (0: bilinear)"),
    FLOW_P_RENAMED(T, patch.normalise, "zero_mean", "normalise", FLOW_PARAM_BOOL, 0, 0, 1, 0,
                   NULL, "compare the patches less their means (blind to a brightness offset)",
                   NULL, NULL),
    FLOW_P_REAL(T, tau, "tau", 0.0, 0, 1e12, 0,
                "smallest eigenvalue of the patch's mean structure tensor accepted; 0: every "
                "regular patch"),
    FLOW_P_BOOL(T, fill_unknown, "fill_unknown", 1,
                "a patch that does not track keeps the coarser level's flow (0: unknown)"),
    FLOW_P_GROUP(T, pyr, levels, "levels", FLOW_PARAM_INT, 5, 0, 100, 0, NULL,
                 "coarser pyramid levels (as many as keep a side of two patches)", NULL,
                 NULL),
    FLOW_P_GROUP(T, pyr, scale, "scale", FLOW_PARAM_REAL, 0.5, 0.5, 1, FLOW_PARAM_MAX_OPEN, NULL,
                 "size of a pyramid level over the next finer one", "levels > 0",
                 flow_applies_warping),
    FLOW_COLOR_PARAM(T, color),
};
#undef T

typedef struct plk_state {
    flow_device *dev;
    plk_params p;
    int channels;
    flow_kernel k_sigma;
    flow_patch_input in;
    flow_pyramid *py;
} plk_state;

static flow_status level_create(void *user, flow_device *d, flow_pyr_level *L)
{
    plk_state *st = user;
    flow_patch_grad *g = calloc(1, sizeof *g);
    if (!g)
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate a pyramid level");
    L->state = g;
    L->x = &L->w;
    return flow_patch_grad_alloc(d, g, L->width, L->height, st->channels);
}

static void level_destroy(void *user, flow_device *d, flow_pyr_level *L)
{
    (void)user;
    flow_patch_grad *g = L->state;
    if (!g)
        return;
    flow_patch_grad_free(d, g);
    free(g);
    L->state = NULL;
}

static flow_status track(void *user, flow_exec *ex, flow_pyr_level *L)
{
    plk_state *st = user;
    flow_plk_args a = { .o = st->p.patch,
                        .w = L->w,
                        .mark = L->level == 0 && !st->p.fill_unknown,
                        .unknown = FLOW_UNKNOWN };
    /* coarser levels only give the finest a start: translation suffices */
    a.o.affine = st->p.patch.affine && L->level == 0;
    flow_stage_begin(ex, "patch lk");
    flow_status s = flow_patch_level_frames(ex->dev, L, L->state, st->channels, &a.f);
    if (s == FLOW_OK)
        s = flow_k_plk(ex->dev, &a);
    flow_stage_end(ex, "patch lk");
    return s;
}

/* The levels asked for, as far as the coarsest keeps a side of two patches
 * at least: on a smaller one most patches hang over the border and its
 * flow misleads every finer level. */
static int fit_levels(int width, int height, const plk_params *p)
{
    int n = 0;
    for (int side = width < height ? width : height; n < p->pyr.levels; n++) {
        side = (int)ceil(side * p->pyr.scale);
        if (side < 2 * p->patch.size)
            break;
    }
    return n;
}

/* The levels that fit both rules: fit_levels and the pyramid's own. */
static void plk_fit(void *params, int width, int height)
{
    plk_params *p = params;
    p->pyr.levels = fit_levels(width, height, p);
    p->pyr.levels = flow_pyramid_levels_for(&p->pyr, width, height) - 1;
}

static void plk_destroy(void *state)
{
    plk_state *st = state;
    if (!st)
        return;
    flow_pyramid_destroy(st->py);
    flow_patch_input_free(st->dev, &st->in);
    free(st);
}

static flow_status plk_create(flow_device *d, int width, int height, int channels,
                              const void *params, void **state)
{
    *state = NULL;
    plk_state *st = calloc(1, sizeof *st);
    if (!st)
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate method plk");
    st->dev = d;
    st->p = *(const plk_params *)params;
    st->p.patch.tau = (float)st->p.tau;
    st->p.pyr.warps = 1;
    st->p.pyr.levels = fit_levels(width, height, &st->p);
    st->channels = channels;
    static const flow_pyramid_hooks hooks = { .level_create = level_create,
                                               .level_destroy = level_destroy,
                                               .init = track };
    flow_status s = flow_gauss_kernel(st->p.sigma, &st->k_sigma);
    if (s == FLOW_OK)
        s = flow_patch_input_alloc(d, &st->in, width, height, channels, &st->k_sigma);
    if (s == FLOW_OK)
        s = flow_pyramid_create(d, width, height, channels, &st->p.pyr, &hooks, st, &st->py);
    if (s != FLOW_OK) {
        plk_destroy(st);
        return s;
    }
    *state = st;
    return FLOW_OK;
}

static flow_status plk_run(void *state, flow_exec *ex, const flow_frames *in,
                           const flow_pair **flow)
{
    plk_state *st = state;
    const flow_plane *f1, *f2;
    FLOW_TRY(flow_patch_input_smooth(&st->in, ex, in, &f1, &f2));
    flow_pyramid_swapped(st->py, in->swapped);
    FLOW_TRY(flow_pyramid_run(st->py, ex, NULL, f1, f2));
    *flow = st->py->lev[0].x;
    return FLOW_OK;
}

const flow_method_desc flow_method_plk = {
    .name = "plk",
    .title = "iterative pyramidal patch Lucas-Kanade, inverse compositional (Baker, Matthews "
             "2004; Bouguet 2000)",
    .params_size = sizeof(plk_params),
    .params = plk_schema,
    .nparams = FLOW_NPARAMS(plk_schema),
    .create = plk_create,
    .fit = plk_fit,
    .run = plk_run,
    .destroy = plk_destroy,
};
