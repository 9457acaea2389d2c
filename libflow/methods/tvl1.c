/* tvl1.c -- TV-L1 optical flow: an L1 data term and total variation,
 * minimised by primal-dual iterations with the flow coupled to an
 * auxiliary field (Zach, Pock, Bischof, DAGM 2007; Wedel, Pock, Zach,
 * Bischof, Cremers 2009), over a pyramid with several warps per level, as
 * Sanchez, Meinhardt-Llopis, Facciolo (IPOL 2013) discretise it and with
 * the parameters of OpenCV's DualTVL1 (its median filter of the flow before
 * each block of iterations included).  pixel/tvl1.h has the iteration.
 *
 * The pyramid driver (core/pyramid.c) makes the levels (Gaussian
 * presmoothing before each zoom) and warps the second frame; per level the
 * gradient of the second frame is computed once and warped with it, and the
 * dual field starts at 0; each warp runs `outer_iterations` times the
 * median filter and `iterations` pairs of primal and dual steps, or fewer
 * with epsilon > 0: every TVL1_CHECK_EVERY-th iteration of a warp (counted
 * across its blocks) sums its squared update on the device, and once the
 * mean falls below epsilon^2 the warp's remaining medians and iterations
 * leave the flow as it is.  The sequence of launches stays fixed (one graph
 * on CUDA) and nothing waits for the device. */
#include "methods/method.h"
#include "core/pair.h"
#include "base/fail.h"

#include <math.h>
#include <stdlib.h>

/* Iterations between two tests of the stopping criterion: each costs a
 * pass over the squared update and a sum, so not every iteration. */
#define TVL1_CHECK_EVERY 10

typedef struct tvl1_params {
    double tau;      /* time step of the dual */
    double lambda;   /* weight of the data term */
    double theta;    /* coupling of the flow and the auxiliary field */
    int nscales;     /* pyramid levels, the finest counted */
    int warps;       /* warps per level */
    double scale_step; /* size of a level over the next finer one */
    int iterations;  /* primal-dual iterations per block */
    int outer_iterations; /* blocks per warp, each after a median filter */
    int median_filtering; /* side of the median filter (1: none) */
    double epsilon;  /* stop a warp once the mean squared update is below epsilon^2 */
    int color;
} tvl1_params;

#define T tvl1_params
static const flow_param_def tvl1_schema[] = {
    FLOW_P_REAL(T, tau, "tau", 0.25, 0, 0.25, FLOW_PARAM_MIN_OPEN,
                "time step of the dual update (converges for tau <= 1/4)"),
    FLOW_P_REAL(T, lambda, "lambda", 0.15, 0, 1e6, FLOW_PARAM_MIN_OPEN,
                "weight of the data term (larger: closer to the data, less smooth)"),
    FLOW_P_REAL(T, theta, "theta", 0.3, 0, 1e6, FLOW_PARAM_MIN_OPEN,
                "coupling of the flow and its auxiliary field (smaller: tighter)"),
    FLOW_P_INT(T, nscales, "nscales", 5, 2, 100, 0,
               "pyramid levels, the finest counted (as many as fit, down to a side of 8 "
               "pixels)"),
    FLOW_P_INT(T, warps, "warps", 5, 1, 100, 0, "warps of the second frame per level"),
    FLOW_P_REAL(T, scale_step, "scale_step", 0.8, 0.5, 1, FLOW_PARAM_MAX_OPEN,
                "size of a pyramid level over the next finer one"),
    FLOW_P_INT(T, iterations, "iterations", 30, 1, 1e6, 0,
               "primal-dual iterations after each median filter (OpenCV's "
               "innerIterations)"),
    FLOW_P_INT(T, outer_iterations, "outer_iterations", 10, 1, 1e6, 0,
               "blocks of median filter and iterations per warp"),
    FLOW_P_INT(T, median_filtering, "median_filtering", 5, 1, 5, 0,
               "side of the median filter of the flow before each block: 1 (none), 3 or 5"),
    FLOW_P_REAL(T, epsilon, "epsilon", 0.01, 0, 1e6, 0,
                "stop a warp's iterations once the mean squared update of the flow, tested "
                "every 10 iterations, is below epsilon^2 (0: run them all)"),
    FLOW_P_BOOL(T, color, "color", 0,
                "input: 0 the luminance (tvl1 works on one channel: 1 is refused with colour "
                "frames)"),
};
#undef T

static flow_status tvl1_check(const void *params)
{
    const tvl1_params *p = params;
    if (p->median_filtering % 2 == 0)
        return flow_fail(FLOW_ERR_INVALID,
                         "method tvl1: median_filtering %d, a side is odd (1, 3 or 5)",
                         p->median_filtering);
    return FLOW_OK;
}

static flow_warp_params warp_of(const tvl1_params *p)
{
    return (flow_warp_params){ .levels = p->nscales - 1, .warps = p->warps,
                               .scale = p->scale_step, .bicubic = 1 };
}

typedef struct tvl1_state {
    tvl1_params p;
    flow_pyramid *py;
} tvl1_state;

typedef struct tvl1_level {
    flow_pair x;       /* the flow */
    flow_pair g, gw;   /* the gradient of the second frame, and warped */
    flow_plane rho_c;
    flow_pair dual[2]; /* the dual fields of u and of v */
    flow_pair scratch; /* the median's output */
    flow_plane d2, sum; /* epsilon > 0: the squared update, its sum */
} tvl1_level;

static void level_destroy(void *user, flow_device *d, flow_pyr_level *L)
{
    (void)user;
    tvl1_level *tl = L->state;
    if (!tl)
        return;
    flow_pair *pairs[] = { &tl->x, &tl->g, &tl->gw, &tl->dual[0], &tl->dual[1], &tl->scratch };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        flow_pair_free(d, pairs[i]);
    flow_plane_free(d, &tl->rho_c);
    flow_plane_free(d, &tl->d2);
    flow_plane_free(d, &tl->sum);
    free(tl);
    L->state = NULL;
}

static flow_status level_create(void *user, flow_device *d, flow_pyr_level *L)
{
    const tvl1_state *st = user;
    tvl1_level *tl = calloc(1, sizeof *tl);
    if (!tl)
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate a pyramid level");
    L->state = tl;
    L->x = &tl->x;
    const int w = L->width, h = L->height;
    FLOW_TRY(flow_pair_alloc(d, &tl->x, w, h));
    FLOW_TRY(flow_pair_alloc(d, &tl->g, w, h));
    FLOW_TRY(flow_pair_alloc(d, &tl->gw, w, h));
    FLOW_TRY(flow_pair_alloc(d, &tl->dual[0], w, h));
    FLOW_TRY(flow_pair_alloc(d, &tl->dual[1], w, h));
    FLOW_TRY(flow_plane_alloc(d, &tl->rho_c, w, h));
    if (st->p.median_filtering > 1)
        FLOW_TRY(flow_pair_alloc(d, &tl->scratch, w, h));
    if (st->p.epsilon > 0) {
        FLOW_TRY(flow_plane_alloc(d, &tl->d2, w, h));
        FLOW_TRY(flow_plane_alloc(d, &tl->sum, 1, 1));
    }
    return FLOW_OK;
}

/* The gradient of the level's second frame; the dual fields start at 0. */
static flow_status prepare_level(void *user, flow_exec *ex, flow_pyr_level *L)
{
    (void)user;
    tvl1_level *tl = L->state;
    flow_stage_begin(ex, "gradient");
    const flow_gradient_args a = { tl->g.u, tl->g.v, L->frame[1][0] };
    flow_status s = flow_k_gradient(ex->dev, &a);
    for (int k = 0; k < 2 && s == FLOW_OK; k++)
        s = flow_pair_fill(ex->dev, &tl->dual[k], 0.0f);
    flow_stage_end(ex, "gradient");
    return s;
}

static flow_status terms(void *user, flow_exec *ex, flow_pyr_level *L, const flow_plane *f1,
                         const flow_plane *f2, const flow_pair *w)
{
    (void)user;
    tvl1_level *tl = L->state;
    flow_stage_begin(ex, "data terms");
    const flow_warp_args wx = { tl->gw.u, tl->g.u, *w, 1, 0 };
    const flow_warp_args wy = { tl->gw.v, tl->g.v, *w, 1, 0 };
    const flow_tvl1_terms_args t = { tl->rho_c, f1[0], f2[0], tl->gw.u, tl->gw.v, *w };
    flow_status s = flow_k_warp(ex->dev, &wx);
    if (s == FLOW_OK)
        s = flow_k_warp(ex->dev, &wy);
    if (s == FLOW_OK)
        s = flow_k_tvl1_terms(ex->dev, &t);
    flow_stage_end(ex, "data terms");
    return s;
}

static flow_status median(const tvl1_state *st, flow_exec *ex, tvl1_level *tl, float limit)
{
    const flow_tvl1_median_args a = {
        .m = { .dst = tl->scratch, .src = tl->x, .radius = st->p.median_filtering / 2,
               .channels = 1 },
        .sum = tl->sum, .limit = limit
    };
    FLOW_TRY(flow_k_tvl1_median(ex->dev, &a));
    return flow_pair_copy(ex->dev, &tl->x, &tl->scratch);
}

/* The iterations of a warp, from the flow it was warped with. */
static flow_status solve(void *user, flow_exec *ex, flow_pyr_level *L)
{
    const tvl1_state *st = user;
    tvl1_level *tl = L->state;
    const double theta = st->p.theta;
    const int test = st->p.epsilon > 0;
    const float limit = (float)(st->p.epsilon * st->p.epsilon * L->width * L->height);
    const flow_tvl1_primal_args pa = {
        .u = tl->x,
        .p = { tl->dual[0].u, tl->dual[0].v, tl->dual[1].u, tl->dual[1].v },
        .rho_c = tl->rho_c, .gx = tl->gw.u, .gy = tl->gw.v,
        .lt = (float)(st->p.lambda * theta), .theta = (float)theta,
        .sum = tl->sum, .limit = limit
    };
    flow_tvl1_primal_args pa_test = pa;
    pa_test.d2 = tl->d2;
    const flow_tvl1_dual_args da = { .u = tl->x, .p = { pa.p[0], pa.p[1], pa.p[2], pa.p[3] },
                                     .taut = (float)(st->p.tau / theta), .sum = tl->sum,
                                     .limit = limit };
    flow_stage_begin(ex, "solve");
    /* not stopped: the sum starts above any limit */
    const flow_fill_args reset = { tl->sum, HUGE_VALF };
    flow_status s = test ? flow_k_fill(ex->dev, &reset) : FLOW_OK;
    for (int o = 0, n = 1; o < st->p.outer_iterations && s == FLOW_OK; o++) {
        if (st->p.median_filtering > 1)
            s = median(st, ex, tl, limit);
        for (int i = 0; i < st->p.iterations && s == FLOW_OK; i++, n++) {
            const int now = test && n % TVL1_CHECK_EVERY == 0;
            s = flow_k_tvl1_primal(ex->dev, now ? &pa_test : &pa);
            if (s == FLOW_OK)
                s = flow_k_tvl1_dual(ex->dev, &da);
            if (s == FLOW_OK && now)
                s = flow_plane_sum(ex->dev, &tl->d2, &tl->sum);
        }
    }
    flow_stage_end(ex, "solve");
    return s;
}

static void tvl1_destroy(void *state)
{
    tvl1_state *st = state;
    if (!st)
        return;
    flow_pyramid_destroy(st->py);
    free(st);
}

/* The levels the frames allow. */
static void tvl1_fit(void *params, int width, int height)
{
    tvl1_params *p = params;
    flow_warp_params w = warp_of(p);
    flow_warp_fit(&w, width, height);
    p->nscales = w.levels + 1;
}

static flow_status tvl1_create(flow_device *d, int width, int height, int channels,
                               const void *params, void **state)
{
    *state = NULL;
    if (channels != 1)
        return flow_fail(FLOW_ERR_INVALID, "method tvl1: %d channels, it works on one (color 0)",
                         channels);
    tvl1_state *st = calloc(1, sizeof *st);
    if (!st)
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate method tvl1");
    st->p = *(const tvl1_params *)params;
    const flow_pyramid_hooks hooks = { .level_create = level_create,
                                       .level_destroy = level_destroy,
                                       .prepare = prepare_level,
                                       .terms = terms,
                                       .solve = solve,
                                       .warm = 1 };
    const flow_warp_params w = warp_of(&st->p);
    const flow_status s = flow_pyramid_create(d, width, height, channels, &w, &hooks, st, &st->py);
    if (s != FLOW_OK) {
        tvl1_destroy(st);
        return s;
    }
    *state = st;
    return FLOW_OK;
}

static flow_status tvl1_run(void *state, flow_exec *ex, const flow_frames *in,
                            const flow_pair **flow)
{
    tvl1_state *st = state;
    flow_pyramid_swapped(st->py, in->swapped);
    FLOW_TRY(flow_pyramid_run(st->py, ex, NULL, in->f[0], in->f[1]));
    *flow = st->py->lev[0].x;
    return FLOW_OK;
}

const flow_method_desc flow_method_tvl1 = {
    .name = "tvl1",
    .title = "TV-L1: L1 data term, total variation, primal-dual iterations over a pyramid "
             "(Zach et al. 2007, Sanchez et al. 2013)",
    .params_size = sizeof(tvl1_params),
    .params = tvl1_schema,
    .nparams = FLOW_NPARAMS(tvl1_schema),
    .check = tvl1_check,
    .create = tvl1_create,
    .fit = tvl1_fit,
    .run = tvl1_run,
    .destroy = tvl1_destroy,
};
