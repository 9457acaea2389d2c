/* registry.c -- the methods of methods/list.h by name, and the conditions
 * of the parameter groups they share. */
#include "methods/method.h"
#include "methods/list.h"

#include <string.h>

#define FLOW_METHOD_EXTERN(id) extern const flow_method_desc flow_method_##id;
FLOW_METHODS(FLOW_METHOD_EXTERN)

#define FLOW_METHOD_ADDRESS(id) &flow_method_##id,
static const flow_method_desc *const registry[] = { FLOW_METHODS(FLOW_METHOD_ADDRESS) NULL };

const flow_method_desc *flow_method_entry(int i)
{
    const int n = (int)(sizeof registry / sizeof registry[0]) - 1;
    return i >= 0 && i < n ? registry[i] : NULL;
}

const flow_method_desc *flow_method_lookup(const char *name)
{
    for (int i = 0; name && registry[i]; i++)
        if (strcmp(registry[i]->name, name) == 0)
            return registry[i];
    return NULL;
}

/* ---- the conditions of the shared groups ------------------------------- */

int flow_applies_multigrid(const void *g)
{
    const int s = ((const flow_solver_params *)g)->solver;
    return s != FLOW_SOLVER_JACOBI && s != FLOW_SOLVER_RBSOR;
}

int flow_applies_cycles(const void *g)
{
    const int s = ((const flow_solver_params *)g)->solver;
    return s == FLOW_SOLVER_VCYCLE || s == FLOW_SOLVER_WCYCLE || s == FLOW_SOLVER_FMG;
}

int flow_applies_sweeps(const void *g)
{
    const int s = ((const flow_solver_params *)g)->solver;
    return s == FLOW_SOLVER_JACOBI || s == FLOW_SOLVER_RBSOR || s == FLOW_SOLVER_CASCADIC;
}

int flow_applies_omega(const void *g)
{
    const flow_solver_params *p = g;
    return p->solver == FLOW_SOLVER_RBSOR
           || (flow_applies_multigrid(g) && p->smoother == FLOW_SOLVER_RBSOR);
}

int flow_applies_jacobi(const void *g)
{
    const flow_solver_params *p = g;
    return p->solver == FLOW_SOLVER_JACOBI
           || (flow_applies_multigrid(g) && p->smoother == FLOW_SOLVER_JACOBI);
}

int flow_applies_warping(const void *g)
{
    return ((const flow_warp_params *)g)->levels > 0;
}
