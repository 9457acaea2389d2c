/* terms.c -- a system's list of data terms (contract in core/terms.h). */
#include "core/terms.h"
#include "base/fail.h"

flow_terms flow_terms_begin(int channels, int normalise, double zeta)
{
    flow_terms t = { 0 };
    t.channels = channels;
    t.normalise = normalise;
    t.zeta2 = (float)(zeta * zeta);
    return t;
}

flow_status flow_terms_add(flow_terms *t, flow_mg_model *m, int kind, double weight,
                           int robust, double eps)
{
    if (t->nterms >= FLOW_TERMS_MAX)
        return flow_fail(FLOW_ERR_INVALID, "a system has at most %d data terms",
                         FLOW_TERMS_MAX);
    const int k = t->nterms++;
    t->kind[k] = kind;
    m->nterms = t->nterms;
    m->term[k].weight = (float)weight;
    m->term[k].eps2 = (float)(eps * eps);
    m->term[k].robust = robust;
    return FLOW_OK;
}

flow_status flow_terms_add_clg(flow_terms *t, flow_mg_model *m, double sigma, double rho,
                               double weight, int robust, double eps)
{
    flow_kernel k_sigma, k_rho;
    FLOW_TRY(flow_gauss_kernel(sigma, &k_sigma));
    FLOW_TRY(flow_gauss_kernel(rho, &k_rho));
    FLOW_TRY(flow_terms_add(t, m, FLOW_TERM_CLG, weight, robust, eps));
    t->k_sigma[t->nterms - 1] = k_sigma;
    t->k_rho[t->nterms - 1] = k_rho;
    return FLOW_OK;
}

flow_status flow_terms_robust(flow_terms *t, flow_mg_model *m, int channels, int normalise,
                              double zeta, double gamma, double eps_d, double alpha,
                              double eps_s, int edge)
{
    *t = flow_terms_begin(channels, normalise, zeta);
    FLOW_TRY(flow_terms_add(t, m, FLOW_TERM_BRIGHTNESS, 1.0, 1, eps_d));
    if (gamma > 0)
        FLOW_TRY(flow_terms_add(t, m, FLOW_TERM_GRADIENT, gamma, 1, eps_d));
    m->alpha = (float)alpha;
    m->eps_s2 = (float)(eps_s * eps_s);
    m->robust_smooth = 1;
    m->edge = edge;
    return FLOW_OK;
}

void flow_terms_previous(flow_terms *t, double wprev, double tol)
{
    t->wprev = (float)wprev;
    t->tol2 = (float)(tol * tol);
}

void flow_terms_occlusion(flow_terms *t, double sigma_d, double sigma_e)
{
    t->occ_d2 = sigma_d > 0 ? (float)(1.0 / (2.0 * sigma_d * sigma_d)) : 0.0f;
    t->occ_e2 = sigma_e > 0 ? (float)(1.0 / (2.0 * sigma_e * sigma_e)) : 0.0f;
}

/* Term k, a FLOW_TERM_CLG term, into J: the motion tensor of the pair,
 * rewritten for the total flow once integrated. */
static flow_status build_clg(flow_exec *ex, flow_tensor *J, const flow_terms *t, int k,
                             flow_tensor_work *work, const flow_plane *f1, const flow_plane *f2,
                             const flow_pair *w)
{
    if (!work)
        return flow_fail(FLOW_ERR_INVALID,
                         "a combined local-global data term needs the scratch of its tensor");
    FLOW_TRY(flow_motion_tensor_watched(ex, J, f1, f2, t->channels, &t->k_sigma[k], &t->k_rho[k],
                                        work));
    if (!w)
        return FLOW_OK;
    const flow_tensor_shift_args a = { *J, *w };
    return flow_k_tensor_shift(ex->dev, &a);
}

flow_status flow_terms_build(flow_exec *ex, flow_mg *mg, const flow_terms *t,
                             const flow_mg_model *m, flow_tensor_work *work,
                             const flow_plane *f0, const flow_plane *f1, const flow_plane *f2,
                             const flow_pair *w)
{
    /* the builders' terms go to one operation, in the list's order */
    flow_terms_args a = { .channels = t->channels,
                          .normalise = t->normalise,
                          .zeta2 = t->zeta2,
                          .previous = f0 != NULL,
                          .wprev = t->wprev,
                          .tol2 = t->tol2,
                          .occ_d2 = t->occ_d2,
                          .occ_e2 = t->occ_e2 };
    for (int k = 0; k < t->nterms; k++) {
        if (t->kind[k] == FLOW_TERM_CLG) {
            FLOW_TRY(build_clg(ex, flow_mg_tensor(mg, k), t, k, work, f1, f2, w));
            continue;
        }
        const int n = a.nterms++;
        a.J[n] = *flow_mg_tensor(mg, k);
        a.kind[n] = t->kind[k];
        a.weight[n] = m->term[k].weight;
    }
    if (a.nterms == 0)
        return FLOW_OK;
    if (!w)
        return flow_fail(FLOW_ERR_INVALID,
                         "data terms built at each pixel need the flow the second frame was "
                         "warped with (none given)");
    a.w = *w;
    for (int c = 0; c < t->channels; c++) {
        a.f1[c] = f1[c];
        a.f2w[c] = f2[c];
        if (f0)
            a.f0w[c] = f0[c];
    }
    return flow_k_terms(ex->dev, &a);
}
