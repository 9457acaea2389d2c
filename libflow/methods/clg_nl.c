/* clg_nl.c -- nonlinear combined local-global flow (Bruhn, Weickert,
 * Schnorr 2005; seed 001 eqs. 2.39-2.45): CLG with the robust penaliser
 * Psi(s^2) = sqrt(s^2 + eps^2) on the data and/or the smoothness term, its
 * derivatives lagged from the iterate. */
#include "methods/method.h"
#include "core/variational.h"

typedef struct clg_nl_params {
    double sigma;         /* presmoothing K_sigma of the frames, pixels */
    double rho;           /* integration scale K_rho of the motion tensor, pixels */
    double alpha;         /* weight of the smoothness term */
    int nonlinear_data;   /* robust Psi_D on the data term */
    int nonlinear_smooth; /* robust Psi_S on the smoothness term */
    double eps_d;         /* epsilon of Psi_D, grey levels */
    double eps_s;         /* epsilon of Psi_S, pixels per pixel */
    flow_solver_params solve;
    int color;
    flow_warp_params warp;
} clg_nl_params;

static int applies_robust_data(const void *p)
{
    return ((const clg_nl_params *)p)->nonlinear_data;
}

static int applies_robust_smooth(const void *p)
{
    return ((const clg_nl_params *)p)->nonlinear_smooth;
}

#define T clg_nl_params
static const flow_param_def clg_nl_schema[] = {
    FLOW_SIGMA_PARAM(T, sigma),
    FLOW_RHO_PARAM(T, rho),
    FLOW_ALPHA_PARAM(T, alpha, 10),
    FLOW_P_BOOL(T, nonlinear_data, "nonlinear_data", 1, "robust Psi_D on the data term"),
    FLOW_P_BOOL(T, nonlinear_smooth, "nonlinear_smooth", 1,
                "robust Psi_S on the smoothness term"),
    FLOW_P_RENAMED(T, eps_d, "eps_data", "eps_d", FLOW_PARAM_REAL, 1.0, 0, 1e6,
                   FLOW_PARAM_MIN_OPEN, NULL, "epsilon of Psi_D, grey levels", "nonlinear_data 1",
                   applies_robust_data),
    FLOW_P_WHEN(T, eps_s, "eps_s", FLOW_PARAM_REAL, 0.01, 0, 1e6, FLOW_PARAM_MIN_OPEN, NULL,
                "epsilon of Psi_S, pixels per pixel", "nonlinear_smooth 1",
                applies_robust_smooth),
    FLOW_SOLVER_SCHEMA(T, solve),
    FLOW_COLOR_PARAM(T, color),
    FLOW_WARP_SCHEMA(T, warp),
};
#undef T

/* The pyramid and the multigrid depth the frames allow. */
static void clg_nl_fit(void *params, int width, int height)
{
    clg_nl_params *p = params;
    flow_warp_fit(&p->warp, width, height);
    flow_solver_fit(&p->solve, width, height);
}

static flow_status clg_nl_create(flow_device *d, int width, int height, int channels,
                                 const void *params, void **state)
{
    const clg_nl_params *p = params;
    const flow_var_model m = { p->sigma,          p->rho,           p->alpha,
                               p->nonlinear_data, p->nonlinear_smooth, p->eps_d,
                               p->eps_s,          p->solve,         p->warp };
    return flow_var_create(d, width, height, channels, &m, state);
}

const flow_method_desc flow_method_clg_nl = {
    .name = "clg-nl",
    .title = "nonlinear combined local-global, robust data and smoothness "
             "(Bruhn, Weickert, Schnorr 2005)",
    .params_size = sizeof(clg_nl_params),
    .params = clg_nl_schema,
    .nparams = FLOW_NPARAMS(clg_nl_schema),
    .create = clg_nl_create,
    .fit = clg_nl_fit,
    FLOW_VAR_HOOKS,
};
