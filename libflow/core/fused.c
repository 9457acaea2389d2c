/* fused.c -- the fused solver operations (core/fused.h): a backend's fast
 * path, or their composition from the per-pixel operations of the list. */
#include "core/fused.h"
#include "base/fail.h"

/* Per sweep: Psi'_S of the sweep's start into ps (a robust smoothness term
 * only), then the red and the black points in place on x. */
static flow_status sor_composed(flow_device *d, const flow_system *s, const flow_pair *x,
                                const flow_pair *f, const flow_plane *ps, float omega,
                                int sweeps)
{
    const flow_diffusivity_args diff = { *s, *x, *ps };
    flow_sor_half_args half = { *s, *x, *f, *ps, 0, omega };
    for (int k = 0; k < sweeps; k++) {
        if (s->flags & FLOW_SYS_PSI_S)
            FLOW_TRY(flow_k_diffusivity(d, &diff));
        for (half.colour = 0; half.colour < 2; half.colour++)
            FLOW_TRY(flow_k_sor_half(d, &half));
    }
    return FLOW_OK;
}

/* A Jacobi sweep per pass, x -> t -> x ...; after an odd count the result
 * is copied back into x unless it may stay in t. */
static flow_status jacobi_composed(flow_device *d, const flow_system *s, const flow_pair *x,
                                   const flow_pair *t, const flow_pair *f, float weight,
                                   int sweeps, int odd_in_t)
{
    flow_jacobi_sweep_args j = { *s, *t, *x, *f, weight };
    for (int k = 0; k < sweeps; k++) {
        j.out = k % 2 ? *x : *t;
        j.x = k % 2 ? *t : *x;
        FLOW_TRY(flow_k_jacobi_sweep(d, &j));
    }
    if (sweeps % 2 && !odd_in_t) {
        const flow_copy_pair_args back = { *x, *t };
        FLOW_TRY(flow_k_copy_pair(d, &back));
    }
    return FLOW_OK;
}

flow_status flow_smooth_small_run(flow_device *d, const flow_smooth_small_args *a)
{
    if (d->ops->smooth_small)
        return d->ops->smooth_small(d, a);
    if (a->sor)
        return sor_composed(d, &a->s, &a->x, &a->f, &a->t.u, a->omega, a->sweeps);
    return jacobi_composed(d, &a->s, &a->x, &a->t, &a->f, a->omega, a->sweeps, 0);
}

flow_status flow_sor_sweeps_run(flow_device *d, const flow_sor_sweeps_args *a, int *passes)
{
    if (d->ops->sor_sweeps)
        return d->ops->sor_sweeps(d, a, passes);
    *passes = 0;
    if (a->with_pre)
        FLOW_TRY(flow_k_prolong_pair(d, &a->pre));
    return sor_composed(d, &a->s, &a->x, &a->f, &a->t.u, a->omega, a->sweeps);
}

flow_status flow_jacobi_sweeps_run(flow_device *d, const flow_jacobi_sweeps_args *a,
                                   int *passes)
{
    if (d->ops->jacobi_sweeps)
        return d->ops->jacobi_sweeps(d, a, passes);
    *passes = a->sweeps;
    if (a->with_pre)
        FLOW_TRY(flow_k_prolong_pair(d, &a->pre));
    if (a->with_entry) {
        const flow_apply_args rhs = flow_jacobi_entry_apply(a);
        FLOW_TRY(flow_k_apply(d, &rhs));
    }
    return jacobi_composed(d, &a->s, &a->x, &a->t, &a->f, a->weight, a->sweeps, a->odd_in_t);
}
