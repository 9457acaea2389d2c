/* fused.h -- the solver operations that a backend may fuse: several
 * per-pixel operations of libflow/kernels/list.h in one call (the optional
 * entries of device/device.h: smooth_small, sor_sweeps, jacobi_sweeps,
 * restrict_small, small_cycle).  Each call below runs the backend's fast
 * path where it has one, else the operations of the list it stands for, in
 * the same order, so that both give the same values bit for bit
 * (tests/unit/test_solvers.c).  The CPU backend fuses nothing; CUDA all
 * five.  The small cycle has no composition here: where a backend lacks
 * it, core/multigrid.c runs that cycle's operations one call each, as it
 * does on every larger grid.  Not installed. */
#ifndef FLOW_CORE_FUSED_H
#define FLOW_CORE_FUSED_H

#include "device/device.h"

/* Every sweep of a smoother on a grid of at most FLOW_SMALL_GRID pixels
 * (flow_smooth_small_args of pixel/variational.h); composed: per sweep the
 * diffusivities (into t.u) and the two colours of SOR, or a Jacobi sweep
 * x -> t -> x ... and the copy back after an odd count. */
flow_status flow_smooth_small_run(flow_device *d, const flow_smooth_small_args *a);
/* n red-black SOR sweeps or n damped Jacobi sweeps on a grid of any size
 * (flow_sor_sweeps_args, flow_jacobi_sweeps_args), after the prolongation
 * pre and (Jacobi) the right-hand side from the entry when the arguments
 * say so; *passes as device/device.h says.  Composed: the prolongation and
 * the entry's apply first, then the sweeps of flow_smooth_small_run, SOR in
 * place (no passes), Jacobi a pass per sweep. */
flow_status flow_sor_sweeps_run(flow_device *d, const flow_sor_sweeps_args *a, int *passes);
flow_status flow_jacobi_sweeps_run(flow_device *d, const flow_jacobi_sweeps_args *a,
                                   int *passes);
/* Whether d restricts the small levels' coefficients in one call, and runs
 * a cycle from a small level in one call (else the multigrid runs them an
 * operation per call). */
static inline int flow_fuses_restrict_small(const flow_device *d)
{
    return d->ops->restrict_small != NULL;
}
static inline int flow_fuses_small_cycle(const flow_device *d)
{
    return d->ops->small_cycle != NULL;
}

#endif
