/* terms.h -- a variational system's data terms: a method lists its terms
 * (brightness and gradient constancy from the builders of pixel/terms.h,
 * the combined local-global term from the motion tensor pipeline of
 * core/tensor.c, ...), each with its weight and penaliser, and one call
 * builds all of them for a pair of frames (and the frame before, when the
 * method reads it).  Not installed. */
#ifndef FLOW_CORE_TERMS_H
#define FLOW_CORE_TERMS_H

#include "core/multigrid.h"
#include "core/tensor.h"

/* The list of a system's data terms and how they are built. */
typedef struct flow_terms {
    int nterms;
    int kind[FLOW_TERMS_MAX]; /* FLOW_TERM_* (pixel/terms.h) */
    int channels;
    int normalise; /* each term divided by its squared gradient + zeta^2 */
    float zeta2;
    float wprev; /* weight of the frame before's terms (flow_terms_build's f0) */
    float tol2;  /* their tolerance squared (0: none) */
    float occ_d2, occ_e2; /* the occlusion weight: 1 / (2 sigma^2) of each factor (0: off) */
    /* a FLOW_TERM_CLG term's presmoothing K_sigma and integration K_rho */
    flow_kernel k_sigma[FLOW_TERMS_MAX], k_rho[FLOW_TERMS_MAX];
} flow_terms;

/* An empty list for frames of `channels` planes, normalised (zeta > 0) or
 * not (normalise 0). */
flow_terms flow_terms_begin(int channels, int normalise, double zeta);
/* Appends a term of `kind`, weight `weight` and the Charbonnier penaliser
 * of epsilon eps (robust != 0, else quadratic) to t and to the model m
 * that the multigrid solver reads.  FLOW_ERR_INVALID past FLOW_TERMS_MAX. */
flow_status flow_terms_add(flow_terms *t, flow_mg_model *m, int kind, double weight,
                           int robust, double eps);
/* Appends the combined local-global term (FLOW_TERM_CLG, pixel/terms.h) of
 * presmoothing scale sigma and integration scale rho (pixels; 0: none) as
 * flow_terms_add does; FLOW_ERR_INVALID also for a sigma or rho that
 * flow_gauss_kernel rejects. */
flow_status flow_terms_add_clg(flow_terms *t, flow_mg_model *m, double sigma, double rho,
                               double weight, int robust, double eps);
/* Method robust's model, which dis and epic refine with too: brightness
 * constancy with weight 1 and gradient constancy with weight gamma (0:
 * none), each under Psi with eps_d, normalised by zeta (normalise 0: not),
 * into *t and *m; the smoothness term alpha Psi(|grad u|^2 + |grad v|^2)
 * with eps_s, its Psi' weighted per pixel when edge (FLOW_SYS_EDGE).
 * FLOW_ERR_INVALID as flow_terms_add. */
flow_status flow_terms_robust(flow_terms *t, flow_mg_model *m, int channels, int normalise,
                              double zeta, double gamma, double eps_d, double alpha,
                              double eps_s, int edge);
/* The frame before's terms: weight wprev, falling where they miss by more
 * than tol pixels (0: never). */
void flow_terms_previous(flow_terms *t, double wprev, double tol);
/* The second frame's terms weighted by the occlusion weight of the flow
 * they are built at (flow_occlusion_weight, pixel/occlusion.h): its
 * divergence factor of scale sigma_d, its matching factor of scale sigma_e
 * (0: that factor off; both 0, as flow_terms_begin leaves them: no
 * weight). */
void flow_terms_occlusion(flow_terms *t, double sigma_d, double sigma_e);

/* Every term of f1 and f2 (the second frame warped along w; w NULL: not
 * warped) into the tensors of mg, rewritten for the total flow; with f0
 * (NULL: none, the frame before warped along -w) its terms too, times
 * t->wprev.  The terms of pixel/terms.h's builders in one operation,
 * each FLOW_TERM_CLG term by the motion tensor pipeline
 * (flow_motion_tensor_watched: its pictures when ex's observer watches the
 * workflow) in `work`, its scratch at the frames' size (NULL for a list
 * without one: FLOW_ERR_INVALID if it has one). */
flow_status flow_terms_build(flow_exec *ex, flow_mg *mg, const flow_terms *t,
                             const flow_mg_model *m, flow_tensor_work *work,
                             const flow_plane *f0, const flow_plane *f1, const flow_plane *f2,
                             const flow_pair *w);

#endif
