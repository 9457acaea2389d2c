/* params.c -- the parameters of a flow computation: documented defaults per
 * method, validation that names the bad parameter and its allowed range, and
 * the names of methods, solvers and windows (docs/PARAMETERS.md). */
#include "flow/method.h"
#include "internal.h"

#include <math.h>
#include <string.h>

/* Defaults tuned on yosemite-clouds (terrain mask) and the Middlebury pairs
 * RubberWhale, Dimetrodon and Grove2 (docs/BENCHMARKS.md, docs/PARAMETERS.md
 * have the figures).  Images are on the 0..255 scale. */
void flow_params_default(flow_params *p, flow_method m)
{
    memset(p, 0, sizeof *p);
    p->method = m;
    p->sigma = 1.5;
    p->rho = 1.0;
    p->alpha = 400.0;
    p->nonlinear_data = 0;
    p->nonlinear_smooth = 0;
    p->eps_d = 1.0;
    p->eps_s = 0.01;
    p->window = FLOW_WINDOW_GAUSS;
    p->window_size = 7;
    p->tau = 0.0;
    p->fill_unknown = 0;
    p->solver = FLOW_SOLVER_FMG;
    p->smoother = FLOW_SOLVER_JACOBI;
    p->iterations = 500;
    p->omega = 1.0;
    p->jacobi_weight = 0.8;
    p->n0 = 10;
    p->n1 = 2;
    p->n2 = 2;
    p->cycles = 1;
    p->max_depth = -1;
    p->color = 0;
    p->warp_levels = 0;
    p->warps = 1;
    switch (m) {
    case FLOW_METHOD_LK:
        p->rho = 4.0;
        break;
    case FLOW_METHOD_HS:
        p->rho = 0.0;
        break;
    case FLOW_METHOD_CLG:
        break;
    case FLOW_METHOD_CLG_NL:
        p->nonlinear_data = 1;
        p->nonlinear_smooth = 1;
        p->alpha = 10.0;
        break;
    }
}

static flow_status range(const char *name, double v, double lo, double hi, const char *what)
{
    if (!(v >= lo && v <= hi) || !isfinite(v))
        return flow_fail(FLOW_ERR_INVALID, "parameter %s = %g out of range (%s)", name, v, what);
    return FLOW_OK;
}

static flow_status irange(const char *name, long v, long lo, long hi, const char *what)
{
    if (v < lo || v > hi)
        return flow_fail(FLOW_ERR_INVALID, "parameter %s = %ld out of range (%s)", name, v, what);
    return FLOW_OK;
}

static flow_status positive(const char *name, double v, double hi)
{
    if (!(v > 0.0 && v <= hi) || !isfinite(v))
        return flow_fail(FLOW_ERR_INVALID, "parameter %s = %g out of range (0 < %s <= %g)", name,
                         v, name, hi);
    return FLOW_OK;
}

flow_status flow_params_validate(const flow_params *p)
{
    const double kmax = FLOW_KERNEL_RADIUS_MAX / 3.0; /* support 3 sigma */
    FLOW_TRY(irange("method", p->method, FLOW_METHOD_LK, FLOW_METHOD_CLG_NL,
                    "lk, hs, clg or clg-nl"));
    FLOW_TRY(range("sigma", p->sigma, 0.0, kmax, "0 <= sigma <= 16"));
    FLOW_TRY(range("rho", p->rho, 0.0, kmax, "0 <= rho <= 16"));
    if (p->method == FLOW_METHOD_HS && p->rho != 0.0)
        return flow_fail(FLOW_ERR_INVALID,
                         "parameter rho = %g: Horn-Schunck is CLG with rho = 0 (use method clg "
                         "for rho > 0)",
                         p->rho);
    if (p->method == FLOW_METHOD_LK)
        FLOW_TRY(range("alpha", p->alpha, 0.0, 1e12, "0 <= alpha <= 1e12; unused by lk"));
    else
        FLOW_TRY(positive("alpha", p->alpha, 1e12));
    FLOW_TRY(irange("nonlinear_data", p->nonlinear_data, 0, 1, "0 or 1"));
    FLOW_TRY(irange("nonlinear_smooth", p->nonlinear_smooth, 0, 1, "0 or 1"));
    FLOW_TRY(positive("eps_d", p->eps_d, 1e6));
    FLOW_TRY(positive("eps_s", p->eps_s, 1e6));
    FLOW_TRY(irange("window", p->window, FLOW_WINDOW_GAUSS, FLOW_WINDOW_BOX, "gauss or box"));
    if (p->window_size < 1 || p->window_size > 2 * FLOW_KERNEL_RADIUS_MAX + 1
        || p->window_size % 2 == 0)
        return flow_fail(FLOW_ERR_INVALID,
                         "parameter window_size = %d out of range (odd, 1 <= window_size <= %d)",
                         p->window_size, 2 * FLOW_KERNEL_RADIUS_MAX + 1);
    FLOW_TRY(range("tau", p->tau, 0.0, 1e12, "0 <= tau <= 1e12"));
    FLOW_TRY(irange("fill_unknown", p->fill_unknown, 0, 1, "0 or 1"));
    FLOW_TRY(irange("solver", p->solver, FLOW_SOLVER_JACOBI, FLOW_SOLVER_FMG,
                    "jacobi, rbsor, v, w, cascadic or fmg"));
    if (p->smoother != FLOW_SOLVER_JACOBI && p->smoother != FLOW_SOLVER_RBSOR)
        return flow_fail(FLOW_ERR_INVALID, "parameter smoother = %d out of range (jacobi or rbsor)",
                         (int)p->smoother);
    FLOW_TRY(irange("iterations", p->iterations, 1, 10000000, "1 <= iterations <= 10^7"));
    if (!(p->omega > 0.0 && p->omega < 2.0))
        return flow_fail(FLOW_ERR_INVALID, "parameter omega = %g out of range (0 < omega < 2)",
                         p->omega);
    if (!(p->jacobi_weight > 0.0 && p->jacobi_weight <= 1.0))
        return flow_fail(FLOW_ERR_INVALID,
                         "parameter jacobi_weight = %g out of range (0 < jacobi_weight <= 1)",
                         p->jacobi_weight);
    if (p->color != 0 && p->color != 1)
        return flow_fail(FLOW_ERR_INVALID, "parameter color = %d out of range (0 or 1)", p->color);
    FLOW_TRY(irange("n0", p->n0, 1, 1000000, "1 <= n0 <= 10^6"));
    FLOW_TRY(irange("n1", p->n1, 0, 10000, "0 <= n1 <= 10^4"));
    FLOW_TRY(irange("n2", p->n2, 0, 10000, "0 <= n2 <= 10^4"));
    FLOW_TRY(irange("cycles", p->cycles, 1, 10000, "1 <= cycles <= 10^4"));
    FLOW_TRY(irange("max_depth", p->max_depth, -1, 30, "-1 (as deep as the grid allows) to 30"));
    FLOW_TRY(irange("warp_levels", p->warp_levels, 0, 12, "0 (no warping) to 12"));
    if (p->warp_levels > 0 && p->method == FLOW_METHOD_LK)
        return flow_fail(FLOW_ERR_INVALID, "parameter warp_levels = %d: warping needs a "
                                           "variational method (hs, clg or clg-nl), not lk",
                         p->warp_levels);
    FLOW_TRY(irange("warps", p->warps, 1, 100, "1 <= warps <= 100"));
    return FLOW_OK;
}

static const char *const method_names[] = { "lk", "hs", "clg", "clg-nl" };
static const char *const solver_names[] = { "jacobi", "rbsor", "v", "w", "cascadic", "fmg" };
static const char *const window_names[] = { "gauss", "box" };
#define COUNT(a) ((int)(sizeof a / sizeof a[0]))

const char *flow_method_name(flow_method m)
{
    return (unsigned)m < (unsigned)COUNT(method_names) ? method_names[m] : "?";
}

const char *flow_solver_name(flow_solver s)
{
    return (unsigned)s < (unsigned)COUNT(solver_names) ? solver_names[s] : "?";
}

const char *flow_window_name(flow_window w)
{
    return (unsigned)w < (unsigned)COUNT(window_names) ? window_names[w] : "?";
}

static int lookup(const char *name, const char *const *names, int n)
{
    for (int i = 0; name && i < n; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

flow_status flow_method_parse(const char *name, flow_method *m)
{
    int i = lookup(name, method_names, COUNT(method_names));
    if (i < 0)
        return flow_fail(FLOW_ERR_INVALID, "unknown method '%s' (expected lk, hs, clg or clg-nl)",
                         name ? name : "");
    *m = (flow_method)i;
    return FLOW_OK;
}

flow_status flow_solver_parse(const char *name, flow_solver *s)
{
    int i = lookup(name, solver_names, COUNT(solver_names));
    if (i < 0)
        return flow_fail(FLOW_ERR_INVALID,
                         "unknown solver '%s' (expected jacobi, rbsor, v, w, cascadic or fmg)",
                         name ? name : "");
    *s = (flow_solver)i;
    return FLOW_OK;
}

flow_status flow_window_parse(const char *name, flow_window *w)
{
    int i = lookup(name, window_names, COUNT(window_names));
    if (i < 0)
        return flow_fail(FLOW_ERR_INVALID, "unknown window '%s' (expected gauss or box)",
                         name ? name : "");
    *w = (flow_window)i;
    return FLOW_OK;
}
