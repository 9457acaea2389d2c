/* variational.c -- the systems of Horn-Schunck, CLG and nonlinear CLG on
 * every level of the pyramid: each level's list of data terms holds the
 * combined local-global term (core/terms.h) of its frames (the second
 * warped along the coarser flow when warping: the tensor of the increment,
 * rewritten for the total flow, pixel/warp.h), solved by the multigrid
 * solvers of core/multigrid.c.
 *
 * Horn-Schunck is CLG with rho = 0 (seed 001 section 2.7.1): the two share
 * every line here; nonlinear CLG adds the lagged robust weights Psi'_D,
 * Psi'_S (eqs. 2.43-2.45), each switchable. */
#include "core/variational.h"
#include "core/terms.h"
#include "base/fail.h"

#include <stdlib.h>

typedef struct var_state {
    flow_device *dev;
    flow_var_model m;
    flow_mg_model mg_model;
    flow_terms data;
    flow_pyramid *py;
} var_state;

/* What each pyramid level holds: the scratch of its term's tensor and the
 * multigrid hierarchy of its system. */
typedef struct var_level {
    flow_tensor_work work;
    flow_mg *mg;
} var_level;

static flow_status level_create(void *user, flow_device *d, flow_pyr_level *L)
{
    var_state *v = user;
    var_level *vl = calloc(1, sizeof *vl);
    if (!vl)
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate a pyramid level");
    L->state = vl;
    FLOW_TRY(flow_tensor_work_alloc(d, &vl->work, L->width, L->height));
    FLOW_TRY(flow_mg_create(d, L->width, L->height, &v->m.solve, &v->mg_model, &vl->mg));
    L->x = flow_mg_result(vl->mg);
    return FLOW_OK;
}

static void level_destroy(void *user, flow_device *d, flow_pyr_level *L)
{
    (void)user;
    var_level *vl = L->state;
    if (!vl)
        return;
    flow_tensor_work_free(d, &vl->work);
    flow_mg_destroy(vl->mg);
    free(vl);
    L->state = NULL;
}

static flow_status terms(void *user, flow_exec *ex, flow_pyr_level *L, const flow_plane *f1,
                         const flow_plane *f2, const flow_pair *w)
{
    var_state *v = user;
    var_level *vl = L->state;
    return flow_terms_build(ex, vl->mg, &v->data, &v->mg_model, &vl->work, NULL, f1, f2, w);
}

static flow_status solve(void *user, flow_exec *ex, flow_pyr_level *L)
{
    (void)user;
    return flow_mg_solve(((var_level *)L->state)->mg, ex);
}

void flow_var_destroy(void *state)
{
    var_state *v = state;
    if (!v)
        return;
    flow_pyramid_destroy(v->py);
    free(v);
}

flow_status flow_var_create(flow_device *d, int width, int height, int channels,
                            const flow_var_model *m, void **state)
{
    *state = NULL;
    var_state *v = calloc(1, sizeof *v);
    if (!v)
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate a variational model");
    v->dev = d;
    v->m = *m;
    v->data = flow_terms_begin(channels, 0, 0.0);
    v->mg_model.alpha = (float)m->alpha;
    v->mg_model.eps_s2 = (float)(m->eps_s * m->eps_s);
    v->mg_model.robust_smooth = m->robust_smooth;
    static const flow_pyramid_hooks hooks = { .level_create = level_create,
                                               .level_destroy = level_destroy,
                                               .terms = terms,
                                               .solve = solve };
    flow_status s = flow_terms_add_clg(&v->data, &v->mg_model, m->sigma, m->rho, 1.0,
                                       m->robust_data, m->eps_d);
    if (s == FLOW_OK)
        s = flow_pyramid_create(d, width, height, channels, &m->warp, &hooks, v, &v->py);
    if (s != FLOW_OK) {
        flow_var_destroy(v);
        return s;
    }
    *state = v;
    return FLOW_OK;
}

flow_status flow_var_run(void *state, flow_exec *ex, const flow_frames *in,
                         const flow_pair **flow)
{
    var_state *v = state;
    flow_pyramid_swapped(v->py, in->swapped);
    FLOW_TRY(flow_pyramid_run(v->py, ex, NULL, in->f[0], in->f[1]));
    *flow = v->py->lev[0].x;
    return FLOW_OK;
}

flow_status flow_var_residual(void *state, flow_exec *ex, double *rms)
{
    (void)ex;
    var_state *v = state;
    return flow_mg_residual_rms(((var_level *)v->py->lev[0].state)->mg, rms);
}
