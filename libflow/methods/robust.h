/* robust.h -- the data terms of method robust (brightness and gradient
 * constancy, each under a Charbonnier penaliser, optionally normalised),
 * shared with the variational refinement of method dis.  Not installed. */
#ifndef FLOW_METHODS_ROBUST_H
#define FLOW_METHODS_ROBUST_H

#include "methods/method.h"

/* How the data terms are built from a pair of frames. */
typedef struct flow_robust_data {
    int channels;
    int gradient;  /* the gradient constancy term too */
    int normalise; /* each term divided by its squared gradient + zeta^2 */
    float zeta2;
    float gamma; /* the gradient term's weight (for the frame before's miss) */
    float wprev; /* weight of the frame before's terms (flow_robust_data_terms' f0) */
    float tol2;  /* their tolerance squared (0: none) */
} flow_robust_data;

/* The nonlinear model of the terms into *m: brightness with weight 1 and
 * gradient constancy with weight gamma (0: none), each under Psi with
 * eps_d, the smoothness term alpha Psi(|grad u|^2 + |grad v|^2) with eps_s,
 * its Psi' weighted per pixel when edge > 0 (FLOW_SYS_EDGE). */
flow_robust_data flow_robust_model(flow_mg_model *m, int channels, double alpha, double gamma,
                                   double eps_d, double eps_s, double edge, int normalise,
                                   double zeta);

/* The data terms of f1 and f2 (the second frame warped along w) into the
 * tensors of mg, rewritten for the total flow; with f0 (NULL: none, the
 * frame before warped along -w) its terms too, times t->wprev. */
flow_status flow_robust_data_terms(flow_device *d, flow_mg *mg, const flow_robust_data *t,
                                   const flow_plane *f0, const flow_plane *f1,
                                   const flow_plane *f2, const flow_pair *w);

#endif
