/* clg.c -- combined local-global flow (Bruhn, Weickert, Schnorr 2005; seed
 * 001 eqs. 2.24-2.29): the motion tensor averaged by K_rho in a quadratic
 * data term, with Horn-Schunck's quadratic smoothness term. */
#include "methods/method.h"
#include "core/variational.h"

typedef struct clg_params {
    double sigma; /* presmoothing K_sigma of the frames, pixels */
    double rho;   /* integration scale K_rho of the motion tensor, pixels */
    double alpha; /* weight of the smoothness term */
    flow_solver_params solve;
    int color;
    flow_warp_params warp;
} clg_params;

#define T clg_params
static const flow_param_def clg_schema[] = {
    FLOW_SIGMA_PARAM(T, sigma),
    FLOW_RHO_PARAM(T, rho),
    FLOW_ALPHA_PARAM(T, alpha, 400),
    FLOW_SOLVER_SCHEMA(T, solve),
    FLOW_COLOR_PARAM(T, color),
    FLOW_WARP_SCHEMA(T, warp),
};
#undef T

/* The pyramid and the multigrid depth the frames allow. */
static void clg_fit(void *params, int width, int height)
{
    clg_params *p = params;
    flow_warp_fit(&p->warp, width, height);
    flow_solver_fit(&p->solve, width, height);
}

static flow_status clg_create(flow_device *d, int width, int height, int channels,
                              const void *params, void **state)
{
    const clg_params *p = params;
    const flow_var_model m = { p->sigma, p->rho, p->alpha, 0, 0, 1.0, 1.0, p->solve, p->warp };
    return flow_var_create(d, width, height, channels, &m, state);
}

const flow_method_desc flow_method_clg = {
    .name = "clg",
    .title = "linear combined local-global (Bruhn, Weickert, Schnorr 2005)",
    .params_size = sizeof(clg_params),
    .params = clg_schema,
    .nparams = FLOW_NPARAMS(clg_schema),
    .create = clg_create,
    .fit = clg_fit,
    FLOW_VAR_HOOKS,
};
