/* variational.h -- the combined local-global model (Horn-Schunck, CLG and
 * nonlinear CLG) on the coarse-to-fine pyramid, solved at every level by
 * the multigrid solvers: the engine that the methods hs, clg and clg-nl
 * configure.  Not installed. */
#ifndef FLOW_CORE_VARIATIONAL_H
#define FLOW_CORE_VARIATIONAL_H

#include "core/multigrid.h"
#include "core/pyramid.h"

/* The energy (seed 001 eqs. 2.24, 2.39): one data term, the motion tensor
 * J_rho of the frames presmoothed by K_sigma, under Psi_D; smoothness alpha
 * under Psi_S; Psi quadratic unless robust (Psi(s^2) = sqrt(s^2 + eps^2)). */
typedef struct flow_var_model {
    double sigma, rho, alpha;
    int robust_data, robust_smooth;
    double eps_d, eps_s;
    flow_solver_params solve;
    flow_warp_params warp;
} flow_var_model;

/* The engine's state for w x h frames of `channels` planes on device d. */
flow_status flow_var_create(flow_device *d, int width, int height, int channels,
                            const flow_var_model *m, void **state);
/* The flow of a pair; *flow points at the result (the same pair every
 * time). */
flow_status flow_var_run(void *state, flow_exec *ex, const flow_frames *in,
                         const flow_pair **flow);
void flow_var_destroy(void *state);
/* RMS residual of the finest system at the last flow (waits). */
flow_status flow_var_residual(void *state, flow_exec *ex, double *rms);

/* The hooks of a method descriptor that runs on this engine. */
#define FLOW_VAR_HOOKS                                                                           \
    .run = flow_var_run, .destroy = flow_var_destroy, .residual = flow_var_residual

#endif
