/* hs.c -- Horn and Schunck (1981): quadratic data and smoothness terms,
 * seed 001 eqs. 2.24-2.29; CLG with rho = 0 (section 2.7.1), so it runs on
 * the variational engine of core/variational.c with an identity window. */
#include "methods/method.h"
#include "core/variational.h"

typedef struct hs_params {
    double sigma; /* presmoothing K_sigma of the frames, pixels */
    double alpha; /* weight of the smoothness term */
    flow_solver_params solve;
    int color;
    flow_warp_params warp;
} hs_params;

#define T hs_params
static const flow_param_def hs_schema[] = {
    FLOW_SIGMA_PARAM(T, sigma),
    FLOW_ALPHA_PARAM(T, alpha, 400),
    FLOW_SOLVER_SCHEMA(T, solve),
    FLOW_COLOR_PARAM(T, color),
    FLOW_WARP_SCHEMA(T, warp),
};
#undef T

/* The pyramid and the multigrid depth the frames allow. */
static void hs_fit(void *params, int width, int height)
{
    hs_params *p = params;
    flow_warp_fit(&p->warp, width, height);
    flow_solver_fit(&p->solve, width, height);
}

static flow_status hs_create(flow_device *d, int width, int height, int channels,
                             const void *params, void **state)
{
    const hs_params *p = params;
    const flow_var_model m = { p->sigma, 0.0, p->alpha, 0, 0, 1.0, 1.0, p->solve, p->warp };
    return flow_var_create(d, width, height, channels, &m, state);
}

const flow_method_desc flow_method_hs = {
    .name = "hs",
    .title = "Horn-Schunck: quadratic data and smoothness terms (Horn, Schunck 1981)",
    .params_size = sizeof(hs_params),
    .params = hs_schema,
    .nparams = FLOW_NPARAMS(hs_schema),
    .create = hs_create,
    .fit = hs_fit,
    FLOW_VAR_HOOKS,
};
