/* solver_cpu.h -- the CPU backend's solver operations (solver_cpu.c), one
 * per solver entry of flow_backend_ops; backend_cpu.c puts them in the table. */
#ifndef FLOW_CPU_SOLVER_CPU_H
#define FLOW_CPU_SOLVER_CPU_H

#include "flow/backend.h"

/* Grids smaller than this run on one thread, in every loop of the backend:
 * the coarse multigrid levels are too small to pay for waking the team
 * (and a busy machine makes the team's barriers expensive). */
#define PAR_MIN 16384
#define PAR(w, h) ((long)(w) * (h) >= PAR_MIN)

flow_status cpu_jacobi(flow_backend *b, const flow_system *s, flow_pair *x, flow_pair *t,
                       const flow_pair *f, float weight, int n);
flow_status cpu_sor(flow_backend *b, const flow_system *s, flow_pair *x, flow_pair *t,
                    const flow_pair *f, float omega, int n);
flow_status cpu_residual(flow_backend *b, const flow_system *s, flow_pair *r, const flow_pair *x,
                         const flow_pair *f);
flow_status cpu_apply(flow_backend *b, const flow_system *s, flow_pair *out, const flow_pair *x,
                      int accumulate);
flow_status cpu_restrict_pair(flow_backend *b, flow_pair *coarse, flow_pair *copy,
                              const flow_pair *fine);
flow_status cpu_prolong_pair(flow_backend *b, flow_pair *fine, const flow_pair *coarse,
                             const flow_pair *ref, int accumulate);
flow_status cpu_restrict_tensor(flow_backend *b, flow_tensor *coarse, const flow_tensor *fine,
                                int with_j33);
flow_status cpu_lk(flow_backend *b, const flow_tensor *J, flow_pair *x, float tau, int fill);
flow_status cpu_sum_squares(flow_backend *b, const flow_plane *p, double *sum);

#endif
