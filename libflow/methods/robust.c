/* robust.c -- robust coarse-to-fine variational flow: brightness and
 * gradient constancy, each normalised and under its own Charbonnier
 * penaliser (Brox, Bruhn, Papenberg, Weickert, ECCV 2004; Zimmer, Bruhn,
 * Weickert, IJCV 2011), a robust smoothness term weighted down across the
 * first frame's edges (the local weight of DeepFlow, ICCV 2013), warping
 * over a fine pyramid (halving below its first levels) with several warps
 * per level, and a median filter of the flow after each warp (Sun, Roth,
 * Black, CVPR 2010); optionally (occ_d, occ_e) the data terms weighted at
 * each warp by the occlusion weight of the current flow (its divergence
 * and warped-frame difference: Sand, Teller 2008; Xiao et al. 2006).
 * docs/ALGORITHMS.md has the
 * energy and its discretisation, docs/PARAMETERS.md each lever's effect.
 *
 * The frames are presmoothed (and optionally reduced to their texture)
 * once; the pyramid driver (core/pyramid.c) warps the second frame along
 * the current flow at every level; the builders of pixel/terms.h turn the
 * pair into the two data terms of the total flow (core/terms.c); the
 * multigrid solvers relax the lagged nonlinear system from the current flow
 * (warm start).  An initial flow (flow_context_set_init) is refined at the
 * finest level (flow_pyramid_start). */
#include "methods/method.h"
#include "core/pair.h"
#include "core/terms.h"
#include "core/tensor.h"
#include "base/fail.h"

#include <math.h>
#include <stdlib.h>

typedef struct robust_params {
    double alpha;   /* weight of the smoothness term */
    double gamma;   /* weight of the gradient constancy term (0: brightness alone) */
    double eps_d;   /* epsilon of the data penalisers */
    double eps_s;   /* epsilon of the smoothness penaliser */
    double edge;    /* image-driven smoothness: Psi'_S times exp(-|grad f1| / edge); 0: off */
    int normalise;  /* normalised data terms */
    double zeta;    /* regularisation of the normalisation */
    double sigma;   /* presmoothing of the frames, pixels */
    double rho;     /* integration scale of the data terms' tensors, pixels */
    double texture; /* structure-texture: f - texture K_tex * f (0: off) */
    double texture_sigma;
    int median;     /* radius of the median filter after each warp (0: off) */
    double median_sigma_c; /* weighted median: image-difference scale (0: unweighted) */
    double median_sigma_s; /* weighted median: distance scale, pixels */
    int median_each;       /* the median after every warp (else after a level's last) */
    double median_occ_d;   /* occlusion weight: divergence scale (0: that factor off) */
    double median_occ_e;   /* occlusion weight: warped-frame difference scale */
    double occ_d;   /* data terms' occlusion weight: divergence scale (0: that factor off) */
    double occ_e;   /* data terms' occlusion weight: warped-frame difference scale */
    flow_solver_params solve;
    int sor_below;    /* pyramid levels of fewer pixels: sor_sweeps SOR sweeps instead */
    int sor_sweeps;
    double sor_omega;
    int color;
    double previous; /* weight of the frame before's data terms in sequences (0: off) */
    double previous_tol; /* their weight falls where they miss by more, pixels (0: never) */
    flow_warp_params warp;
} robust_params;

static int applies_normalise(const void *p)
{
    return ((const robust_params *)p)->normalise;
}

static int applies_median(const void *p)
{
    return ((const robust_params *)p)->median > 0;
}

static int applies_weighted(const void *p)
{
    return applies_median(p) && ((const robust_params *)p)->median_sigma_c > 0;
}

static int applies_occlusion(const robust_params *p)
{
    return applies_weighted(p) && (p->median_occ_d > 0 || p->median_occ_e > 0);
}

static int applies_sor_below(const void *p)
{
    return ((const robust_params *)p)->sor_below > 0;
}

static int applies_previous(const void *p)
{
    return ((const robust_params *)p)->previous > 0;
}

static int applies_texture(const void *p)
{
    return ((const robust_params *)p)->texture > 0;
}

#define T robust_params
static const flow_param_def robust_schema[] = {
    FLOW_ALPHA_PARAM(T, alpha, 4.0),
    FLOW_P_REAL(T, gamma, "gamma", 1.0, 0, 1e6, 0,
                "weight of the gradient constancy term (brightness has weight 1); 0: off"),
    FLOW_P_REAL(T, eps_d, "eps_data", 0.1, 0, 1e6, FLOW_PARAM_MIN_OPEN,
                "epsilon of the Charbonnier penaliser of each data term (normalised: pixels)"),
    FLOW_P_REAL(T, eps_s, "eps_s", 0.01, 0, 1e6, FLOW_PARAM_MIN_OPEN,
                "epsilon of Psi_S, pixels per pixel"),
    FLOW_P_BOOL(T, normalise, "normalise", 1,
                "divide each data term by its squared gradient (errors in pixels)"),
    FLOW_P_WHEN(T, zeta, "zeta", FLOW_PARAM_REAL, 1.0, 0, 1e6, FLOW_PARAM_MIN_OPEN, NULL,
                "regularisation of the normalisation, grey levels per pixel", "normalise 1",
                applies_normalise),
    FLOW_P_REAL(T, sigma, "sigma", 0.8, 0, 16, 0, "presmoothing K_sigma of the frames, pixels"),
    FLOW_P_REAL(T, rho, "rho", 0.0, 0, 16, 0,
                "integration scale K_rho of the motion tensor, pixels"),
    FLOW_P_REAL(T, edge, "edge", 30.0, 0, 1e6, 0,
                "image-driven smoothness: Psi'_S times exp(-|grad f1| / edge), grey levels "
                "per pixel; 0: off"),
    FLOW_P_REAL(T, texture, "texture", 0.0, 0, 1, FLOW_PARAM_MAX_OPEN,
                "structure-texture: compute on f - texture * K_t * f; 0: off"),
    FLOW_P_WHEN(T, texture_sigma, "texture_sigma", FLOW_PARAM_REAL, 4.0, 0, 16,
                FLOW_PARAM_MIN_OPEN, NULL, "scale of the structure K_t, pixels", "texture > 0",
                applies_texture),
    FLOW_P_INT(T, median, "median", 2, 0, 2, 0,
               "median filter of the flow after each warp, radius (1: 3x3, 2: 5x5); 0: off"),
    FLOW_P_WHEN(T, median_sigma_c, "median_sigma_c", FLOW_PARAM_REAL, 10.0, 0, 1e6, 0, NULL,
                "weighted median: neighbours weigh exp(-dI^2 / 2 sigma_c^2), dI their "
                "difference in the first frame, grey levels; 0: plain median",
                "median > 0", applies_median),
    FLOW_P_WHEN(T, median_sigma_s, "median_sigma_s", FLOW_PARAM_REAL, 2.0, 0, 1e6,
                FLOW_PARAM_MIN_OPEN, NULL,
                "weighted median: neighbours weigh exp(-d^2 / 2 sigma_s^2), d their distance",
                "median > 0 and median_sigma_c > 0", applies_weighted),
    FLOW_P_WHEN(T, median_occ_d, "median_occ_d", FLOW_PARAM_REAL, 0.3, 0, 1e6, 0, NULL,
                "weighted median, occlusion: neighbours also weigh exp(-div^2 / 2 sigma_d^2) "
                "where the flow converges (div < 0), pixels per pixel; 0: off",
                "median > 0 and median_sigma_c > 0", applies_weighted),
    FLOW_P_WHEN(T, median_occ_e, "median_occ_e", FLOW_PARAM_REAL, 20.0, 0, 1e6, 0, NULL,
                "weighted median, occlusion: neighbours also weigh exp(-e^2 / 2 sigma_e^2), e "
                "the second frame at their flow less the first, grey levels; 0: off",
                "median > 0 and median_sigma_c > 0", applies_weighted),
    FLOW_P_REAL(T, occ_d, "occ_d", 0.0, 0, 1e6, 0,
                "occlusion-aware data terms: at each warp a pixel's data terms weigh "
                "exp(-div^2 / 2 sigma_d^2) where the current flow converges (div < 0), pixels "
                "per pixel; 0: off"),
    FLOW_P_REAL(T, occ_e, "occ_e", 0.0, 0, 1e6, 0,
                "occlusion-aware data terms: they also weigh exp(-e^2 / 2 sigma_e^2), e the "
                "warped second frame less the first, grey levels; 0: off"),
    FLOW_P_WHEN(T, median_each, "median_each", FLOW_PARAM_BOOL, 0, 0, 1, 0, NULL,
                "1: the median after every warp; 0: after each level's last warp",
                "median > 0", applies_median),
    FLOW_SOLVER_SCHEMA_MG(T, solve, FLOW_SOLVER_VCYCLE, FLOW_SOLVER_RBSOR, 20, 1.3, 1, 8, 1, 1,
                          2),
    FLOW_P_INT(T, sor_below, "sor_below", 60000, 0, 1e9, 0,
               "pyramid levels of fewer pixels are solved by sor_sweeps red-black SOR sweeps "
               "instead of the solver (on small grids a cycle's launches cost more than its "
               "sweeps); 0: every level by the solver"),
    FLOW_P_WHEN(T, sor_sweeps, "sor_sweeps", FLOW_PARAM_INT, 10, 1, 1e7, 0, NULL,
                "red-black SOR sweeps per warp on the levels below sor_below", "sor_below > 0",
                applies_sor_below),
    FLOW_P_WHEN(T, sor_omega, "sor_omega", FLOW_PARAM_REAL, 1.8, 0, 2,
                FLOW_PARAM_MIN_OPEN | FLOW_PARAM_MAX_OPEN, NULL,
                "relaxation of the SOR sweeps on the levels below sor_below", "sor_below > 0",
                applies_sor_below),
    FLOW_P_BOOL(T, color, "color", 1,
                "input: 1 the R, G, B channels of colour frames, 0 their luminance"),
    FLOW_P_REAL(T, previous, "previous", 0.0, 0, 1e6, 0,
                "sequences: the frame before the first matches it too, at -w (constant "
                "velocity); the weight of its data terms beside the second frame's; 0: two "
                "frames only"),
    FLOW_P_WHEN(T, previous_tol, "previous_tol", FLOW_PARAM_REAL, 0.3, 0, 1e6, 0, NULL,
                "the frame before's terms weigh tol / sqrt(e^2 + tol^2) at a pixel where they "
                "miss by e (normalised, at each warp's flow): where the velocity changes, "
                "pixels; 0: full weight everywhere",
                "previous > 0", applies_previous),
    FLOW_WARP_SCHEMA_D(T, warp, 100, 3, 0.8),
    FLOW_P_INT(T, warp.fine, "warp_fine", 3, 0, 100, 0,
               "pyramid levels made at warp_scale below the finest; the coarser ones halve "
               "(0: all at warp_scale)"),
    FLOW_P_BOOL(T, warp.bicubic, "bicubic", 1,
                "warp the second frame by bicubic interpolation (0: bilinear)"),
};
#undef T

static flow_status robust_check(const void *params)
{
    const robust_params *p = params;
    if (p->warp.levels < 1)
        return flow_fail(FLOW_ERR_INVALID, "method robust: warp_levels %d, it warps (at least 1)",
                         p->warp.levels);
    return FLOW_OK;
}

typedef struct robust_state {
    flow_device *dev;
    robust_params p;
    int channels;
    flow_mg_model model;
    flow_terms data;
    flow_kernel k_sigma, k_rho, k_texture;
    flow_plane frame[3][3]; /* the prepared finest frames: first, second, the one before */
    flow_plane scratch[2];  /* the row pass and the structure of a preparation */
    flow_pyramid *py;
} robust_state;

typedef struct robust_level {
    flow_mg *mg;
    flow_tensor rows; /* the row pass of the tensors' integration (rho > 0) */
    flow_plane occ;   /* the median's occlusion weight (median_occ_d or _e > 0) */
} robust_level;

static flow_status level_create(void *user, flow_device *d, flow_pyr_level *L)
{
    robust_state *r = user;
    robust_level *rl = calloc(1, sizeof *rl);
    if (!rl)
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate a pyramid level");
    L->state = rl;
    flow_solver_params sp = r->p.solve;
    if ((long)L->width * L->height < r->p.sor_below) {
        sp.solver = FLOW_SOLVER_RBSOR;
        sp.iterations = r->p.sor_sweeps;
        sp.omega = r->p.sor_omega;
    }
    FLOW_TRY(flow_mg_create(d, L->width, L->height, &sp, &r->model, &rl->mg));
    flow_mg_set_warm(rl->mg, 1);
    L->x = flow_mg_result(rl->mg);
    if (r->p.rho > 0)
        FLOW_TRY(flow_tensor_alloc(d, &rl->rows, L->width, L->height));
    if (applies_occlusion(&r->p))
        FLOW_TRY(flow_plane_alloc(d, &rl->occ, L->width, L->height));
    return FLOW_OK;
}

static void level_destroy(void *user, flow_device *d, flow_pyr_level *L)
{
    (void)user;
    robust_level *rl = L->state;
    if (!rl)
        return;
    flow_mg_destroy(rl->mg);
    flow_tensor_free(d, &rl->rows);
    flow_plane_free(d, &rl->occ);
    free(rl);
    L->state = NULL;
}

/* The smoothness weight of the level, from its first frame (edge > 0). */
static flow_status prepare_level(void *user, flow_exec *ex, flow_pyr_level *L)
{
    robust_state *r = user;
    if (r->p.edge <= 0)
        return FLOW_OK;
    flow_edge_weight_args e = { .g = *flow_mg_edge(((robust_level *)L->state)->mg),
                                .channels = r->channels,
                                .inv_lambda = (float)(1.0 / r->p.edge) };
    for (int c = 0; c < r->channels; c++)
        e.f[c] = L->frame[0][c];
    flow_stage_begin(ex, "data terms");
    const flow_status s = flow_k_edge_weight(ex->dev, &e);
    flow_stage_end(ex, "data terms");
    return s;
}

static flow_status terms(void *user, flow_exec *ex, flow_pyr_level *L, const flow_plane *f1,
                         const flow_plane *f2, const flow_pair *w)
{
    robust_state *r = user;
    robust_level *rl = L->state;
    flow_stage_begin(ex, "data terms");
    const flow_plane *f0 = r->py->frames == 3 ? L->warped_prev : NULL;
    flow_status s = flow_terms_build(ex, rl->mg, &r->data, &r->model, NULL, f0, f1, f2, w);
    for (int k = 0; s == FLOW_OK && r->p.rho > 0 && k < r->model.nterms; k++)
        s = flow_smooth_tensor(ex->dev, flow_mg_tensor(rl->mg, k), &rl->rows, &r->k_rho);
    flow_stage_end(ex, "data terms");
    return s;
}

/* The solve starts from the flow the level was warped with (the pyramid's
 * warm start). */
static flow_status solve(void *user, flow_exec *ex, flow_pyr_level *L)
{
    (void)user;
    return flow_mg_solve(((robust_level *)L->state)->mg, ex);
}

/* The occlusion weight of the level's flow (flow_occlusion_px) into rl->occ. */
static flow_status occlusion(robust_state *r, flow_exec *ex, flow_pyr_level *L)
{
    const double sd = r->p.median_occ_d, se = r->p.median_occ_e;
    flow_occlusion_args a = { .o = ((robust_level *)L->state)->occ,
                              .w = *L->x,
                              .channels = r->channels,
                              .inv_d2 = sd > 0 ? (float)(1.0 / (2.0 * sd * sd)) : 0.0f,
                              .inv_e2 = se > 0 ? (float)(1.0 / (2.0 * se * se)) : 0.0f };
    for (int c = 0; c < r->channels; c++) {
        a.f1[c] = L->frame[0][c];
        a.f2[c] = L->frame[1][c];
    }
    return flow_k_occlusion(ex->dev, &a);
}

static flow_status filter(void *user, flow_exec *ex, flow_pyr_level *L, int last)
{
    robust_state *r = user;
    robust_level *rl = L->state;
    if (!r->p.median || !(last || r->p.median_each))
        return FLOW_OK;
    flow_stage_begin(ex, "median");
    flow_median_args a = { .dst = *flow_mg_scratch(rl->mg), .src = *L->x,
                           .radius = r->p.median, .channels = r->channels };
    for (int c = 0; c < r->channels; c++)
        a.img[c] = L->frame[0][c];
    if (r->p.median_sigma_c > 0) {
        const double sc = r->p.median_sigma_c, ss = r->p.median_sigma_s;
        a.inv_c2 = (float)(1.0 / (2.0 * sc * sc * r->channels));
        a.inv_s2 = (float)(1.0 / (2.0 * ss * ss));
    }
    flow_status s = FLOW_OK;
    if (applies_occlusion(&r->p)) {
        a.occlusion = 1;
        a.occ = rl->occ;
        s = occlusion(r, ex, L);
    }
    if (s == FLOW_OK)
        s = flow_k_median(ex->dev, &a);
    /* the filtered flow becomes the level's: swapped in, or copied back with
     * the frame before, whose context records two graphs (two and three
     * frames) that must each find the planes in the roles it recorded */
    if (s == FLOW_OK && applies_previous(&r->p))
        s = flow_pair_copy(ex->dev, L->x, flow_mg_scratch(rl->mg));
    else if (s == FLOW_OK)
        flow_mg_take_scratch(rl->mg);
    flow_stage_end(ex, "median");
    return s;
}

/* The model: brightness constancy with weight 1 and gradient constancy with
 * weight gamma (0: none), each under Psi with eps_d; the smoothness term
 * alpha Psi(|grad u|^2 + |grad v|^2) with eps_s, its Psi' weighted per pixel
 * when edge > 0 (FLOW_SYS_EDGE); the frame before's terms. */
static flow_status robust_model(robust_state *r)
{
    const robust_params *p = &r->p;
    FLOW_TRY(flow_terms_robust(&r->data, &r->model, r->channels, p->normalise, p->zeta, p->gamma,
                               p->eps_d, p->alpha, p->eps_s, p->edge > 0));
    flow_terms_previous(&r->data, p->previous, p->previous_tol);
    flow_terms_occlusion(&r->data, p->occ_d, p->occ_e);
    return FLOW_OK;
}

static void robust_destroy(void *state)
{
    robust_state *r = state;
    if (!r)
        return;
    flow_pyramid_destroy(r->py);
    for (int k = 0; k < 2; k++) {
        flow_plane_free(r->dev, &r->scratch[k]);
    }
    for (int k = 0; k < 3; k++)
        for (int c = 0; c < 3; c++)
            flow_plane_free(r->dev, &r->frame[k][c]);
    free(r);
}

/* The pyramid and the multigrid depth the frames allow. */
static void robust_fit(void *params, int width, int height)
{
    robust_params *p = params;
    flow_warp_fit(&p->warp, width, height);
    flow_solver_fit(&p->solve, width, height);
}

static flow_status robust_create(flow_device *d, int width, int height, int channels,
                                 const void *params, void **state)
{
    *state = NULL;
    robust_state *r = calloc(1, sizeof *r);
    if (!r)
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate method robust");
    r->dev = d;
    r->p = *(const robust_params *)params;
    r->channels = channels;
    const flow_pyramid_hooks hooks = { .level_create = level_create,
                                       .level_destroy = level_destroy,
                                       .prepare = prepare_level,
                                       .terms = terms,
                                       .solve = solve,
                                       .filter = filter,
                                       .warm = 1,
                                       .previous = applies_previous(&r->p) };
    flow_status s = robust_model(r);
    if (s == FLOW_OK)
        s = flow_gauss_kernel(r->p.sigma, &r->k_sigma);
    if (s == FLOW_OK)
        s = flow_gauss_kernel(r->p.rho, &r->k_rho);
    if (s == FLOW_OK && r->p.texture > 0)
        s = flow_gauss_kernel(r->p.texture_sigma, &r->k_texture);
    const int frames = applies_previous(&r->p) ? 3 : 2;
    for (int k = 0; k < 2 && s == FLOW_OK; k++)
        s = flow_plane_alloc(d, &r->scratch[k], width, height);
    for (int k = 0; k < frames && s == FLOW_OK; k++)
        for (int c = 0; c < channels && s == FLOW_OK; c++)
            s = flow_plane_alloc(d, &r->frame[k][c], width, height);
    if (s == FLOW_OK)
        s = flow_pyramid_create(d, width, height, channels, &r->p.warp, &hooks, r, &r->py);
    if (s != FLOW_OK) {
        robust_destroy(r);
        return s;
    }
    *state = r;
    return FLOW_OK;
}

/* dst = K_sigma * src, less `texture` times its structure K_t * src. */
static flow_status prepare(robust_state *r, flow_plane *dst, const flow_plane *src)
{
    flow_device *d = r->dev;
    FLOW_TRY(flow_smooth(d, dst, src, &r->scratch[0], &r->k_sigma));
    if (r->p.texture <= 0)
        return FLOW_OK;
    FLOW_TRY(flow_smooth(d, &r->scratch[1], src, &r->scratch[0], &r->k_texture));
    const flow_blend_args a = { *dst, *dst, r->scratch[1], 1.0f, (float)-r->p.texture };
    return flow_k_blend(d, &a);
}

static flow_status robust_run(void *state, flow_exec *ex, const flow_frames *in,
                              const flow_pair **flow)
{
    robust_state *r = state;
    const int previous = in->count > 2 && applies_previous(&r->p);
    /* the pair the other way round: its prepared frames are the last run's */
    if (in->swapped)
        flow_planes_swap(r->frame[0], r->frame[1], r->channels);
    flow_stage_begin(ex, "prepare");
    flow_status s = FLOW_OK;
    for (int k = in->swapped ? 2 : 0; k < (previous ? 3 : 2) && s == FLOW_OK; k++)
        for (int c = 0; c < r->channels && s == FLOW_OK; c++)
            s = prepare(r, &r->frame[k][c], &in->f[k][c]);
    flow_stage_end(ex, "prepare");
    FLOW_TRY(s);
    flow_pyramid_start(r->py, in->init, in->init_confidence);
    flow_pyramid_swapped(r->py, in->swapped);
    FLOW_TRY(flow_pyramid_run(r->py, ex, previous ? r->frame[2] : NULL, r->frame[0],
                              r->frame[1]));
    *flow = r->py->lev[0].x;
    return FLOW_OK;
}

/* The pair, and the frame before when its terms have a weight. */
static int robust_frames(const void *p)
{
    return applies_previous(p) ? 3 : 2;
}

/* The weighted median's occlusion weight at the finest level, as its last
 * median there used it (when the median has one). */
static int robust_outputs(const void *params, const char **names)
{
    if (!applies_occlusion(params))
        return 0;
    names[0] = "occlusion_weight";
    return 1;
}

static const flow_plane *robust_output(void *state, int i)
{
    (void)i;
    const robust_state *r = state;
    return &((const robust_level *)r->py->lev[0].state)->occ;
}

static flow_status robust_residual(void *state, flow_exec *ex, double *rms)
{
    (void)ex;
    robust_state *r = state;
    return flow_mg_residual_rms(((robust_level *)r->py->lev[0].state)->mg, rms);
}

const flow_method_desc flow_method_robust = {
    .name = "robust",
    .title = "robust coarse-to-fine: brightness + gradient constancy, fine pyramid, median "
             "filter (Brox et al. 2004, Sun et al. 2010)",
    .params_size = sizeof(robust_params),
    .params = robust_schema,
    .nparams = FLOW_NPARAMS(robust_schema),
    .check = robust_check,
    .create = robust_create,
    .fit = robust_fit,
    .run = robust_run,
    .destroy = robust_destroy,
    .residual = robust_residual,
    .frames = robust_frames,
    .inputs = FLOW_INPUT_INIT,
    .outputs = robust_outputs,
    .output = robust_output,
};
