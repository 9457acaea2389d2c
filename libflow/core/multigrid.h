/* multigrid.h -- the solvers of a variational system on one grid: Jacobi
 * and red-black SOR alone, V- and W-cycles, the cascadic scheme and full
 * multigrid, with the full approximation scheme for nonlinear systems
 * (seed 001 section 2.8, appendix B).  A flow_mg owns the hierarchy of
 * grid levels of one w x h grid (sizes of fig. 4.14) and every buffer its
 * solver needs; its finest level's data terms are filled by the caller
 * before each solve.  Not installed. */
#ifndef FLOW_CORE_MULTIGRID_H
#define FLOW_CORE_MULTIGRID_H

#include "core/exec.h"

/* The solvers (the choice indices of the `solver` parameter; `smoother`
 * takes the first two). */
typedef enum flow_solver {
    FLOW_SOLVER_JACOBI,
    FLOW_SOLVER_RBSOR,
    FLOW_SOLVER_VCYCLE,
    FLOW_SOLVER_WCYCLE,
    FLOW_SOLVER_CASCADIC,
    FLOW_SOLVER_FMG,
} flow_solver;

/* Their names, NULL-terminated: "jacobi", "rbsor", "v", "w", "cascadic",
 * "fmg"; the smoothers: "jacobi", "rbsor". */
extern const char *const flow_solver_names[];
extern const char *const flow_smoother_names[];

/* The solver's parameters (a method's schema includes them as a group). */
typedef struct flow_solver_params {
    int solver;           /* flow_solver */
    int smoother;         /* FLOW_SOLVER_JACOBI or FLOW_SOLVER_RBSOR inside cycles */
    int iterations;       /* Jacobi/SOR sweeps; cascadic sweeps per level */
    double omega;         /* SOR relaxation factor */
    double jacobi_weight; /* Jacobi damping w: x <- (1 - w) x + w x_Jacobi */
    int n0, n1, n2;       /* coarsest-grid, pre- and post-smoothing sweeps */
    int cycles;           /* cycles per level (FMG) or in total (V/W) */
    int max_depth;        /* deepest multigrid level; -1: as deep as the grid allows */
} flow_solver_params;

/* The penalisers and weights of a system, the same on every level. */
typedef struct flow_mg_model {
    int nterms;
    struct {
        float weight, eps2;
        int robust;
    } term[FLOW_TERMS_MAX];
    float alpha;
    float eps_s2;
    int robust_smooth;
    int edge; /* with robust_smooth: Psi'_S times a per-pixel weight (FLOW_SYS_EDGE) */
} flow_mg_model;

/* One grid level (level 0 is the finest grid). */
typedef struct flow_mg_level {
    int width, height;
    flow_system sys; /* its data terms (restricted), alpha, h, penalisers */
    flow_pair x;     /* the iterate: a solution, or a correction on coarse grids */
    flow_pair f;     /* right-hand side (coarse grids) */
    flow_pair t;     /* scratch: the Jacobi partner of x, SOR snapshot, residuals */
    flow_pair xr;    /* FAS: R x of the finer grid, kept for e = x - R x */
} flow_mg_level;

typedef struct flow_mg {
    flow_device *dev;
    flow_solver_params p;
    int nlevels;
    flow_mg_level *lev;
    int nonlinear; /* a robust term: lagged weights, and FAS on coarse grids */
    int use_sor;   /* the smoother is red-black SOR */
    int warm;      /* Jacobi, SOR, V and W start from the x already there (else 0) */
    int edge_stale; /* the finest smoothness weight was handed out: the next solve
                       restricts it (once, not at every solve of the same weight) */
} flow_mg;

/* The size of the grid one level coarser than n: ceil(n / 2), so 79 -> 40
 * and 3 -> 2 (fig. 4.14). */
static inline int flow_mg_coarse_size(int n)
{
    return (n + 1) / 2;
}

/* The shortest side a coarse grid may have.  On a grid of 3 or fewer
 * pixels across nearly every pixel is a border pixel; such grids added
 * the time of their sweeps and nothing measurable to the accuracy of HS,
 * CLG or nonlinear CLG (docs/ALGORITHMS.md, Multigrid). */
#define FLOW_MG_MIN_SIDE 4
/* The most levels a hierarchy has: halving a side of at most
 * FLOW_PLANE_MAX pixels while it stays at least FLOW_MG_MIN_SIDE. */
#define FLOW_MG_LEVELS_MAX 32

/* The levels the solver of p uses on a w x h grid: halved while both sides
 * of the coarser grid are at least FLOW_MG_MIN_SIDE, so 316x252 goes down
 * to 5x4 in 7 levels; max_depth >= 0 stops earlier; 1 for the single-grid
 * solvers. */
int flow_mg_levels_for(const flow_solver_params *p, int w, int h);
/* Rewrites p as a multigrid solver on grids of at most w x h uses it: a
 * max_depth beyond the deepest level such a grid has becomes that level
 * (-1, as deep as the grid allows, stays).  The solver is the same with the
 * result as with p on every grid up to w x h. */
void flow_solver_fit(flow_solver_params *p, int w, int h);

flow_status flow_mg_create(flow_device *d, int width, int height, const flow_solver_params *p,
                           const flow_mg_model *m, flow_mg **out);
void flow_mg_destroy(flow_mg *mg);

/* Data term k of the finest level: its tensor is the caller's to fill. */
static inline flow_tensor *flow_mg_tensor(flow_mg *mg, int k)
{
    return &mg->lev[0].sys.term[k].J;
}
/* The finest level's smoothness weight (a model with edge): the caller's to
 * fill; the next solve restricts it to the coarse levels, and the solves
 * after it reuse those restrictions (a warping method's warps share it). */
static inline flow_plane *flow_mg_edge(flow_mg *mg)
{
    mg->edge_stale = 1;
    return &mg->lev[0].sys.g;
}
/* Whether the single-grid solvers and the V- and W-cycles start from the
 * flow already in flow_mg_result() (a warm start: a warping method's
 * current flow) rather than from 0; FMG and cascadic build their own. */
static inline void flow_mg_set_warm(flow_mg *mg, int warm)
{
    mg->warm = warm != 0;
}
/* The solution of the last solve (always this pair). */
static inline flow_pair *flow_mg_result(flow_mg *mg)
{
    return &mg->lev[0].x;
}
/* The planes of a level's x and t trade places (no data moves). */
static inline void flow_mg_swap_xt(flow_mg_level *L)
{
    const flow_pair x = L->x;
    L->x = L->t;
    L->t = x;
}
/* The finest level's scratch pair, free between solves: a filter of the
 * result writes there, then flow_mg_take_scratch makes it the result
 * instead of copying it back. */
static inline flow_pair *flow_mg_scratch(flow_mg *mg)
{
    return &mg->lev[0].t;
}
static inline void flow_mg_take_scratch(flow_mg *mg)
{
    flow_mg_swap_xt(&mg->lev[0]);
}

/* Restricts the finest tensors down the hierarchy (eq. 2.58) and solves the
 * finest system into flow_mg_result() (stage "solve" > "coarse tensors",
 * the solver; trace and workflow pictures when the observer asks). */
flow_status flow_mg_solve(flow_mg *mg, flow_exec *ex);
/* RMS of f - N(x) on the finest grid at the current x (waits). */
flow_status flow_mg_residual_rms(flow_mg *mg, double *rms);

/* ---- smoother.c: the smoothing of one level --------------------------- */

/* The flags of level d's system when it is solved as the full problem
 * (affine, no right-hand side) or as a coarse-grid problem. */
unsigned flow_mg_flags_full(const flow_mg *mg);
unsigned flow_mg_flags_coarse(const flow_mg *mg);
/* n sweeps of the solver's smoother (Jacobi, or red-black SOR) on level d's
 * system with the given flags, the result in the level's x, lagging the
 * nonlinearities.  `kind` and `label` name the step in the trace ("V",
 * "presmooth"; label NULL: the bottom solve).  With in_t, the result may be
 * left in the level's t instead (SOR on the GPU after an odd count): *in_t
 * says so.  With pre, the prolongation pre (onto the level's x) comes
 * first: the sweeps of a grid above FLOW_SMALL_GRID take it with their first
 * pass where the device can (flow_jacobi_sweeps_args, flow_sor_sweeps_args),
 * a small grid's after its own launch.  With entry (a coarse level's first
 * smoothing of a cycle), the level's right-hand side comes next, from the
 * residual entry of the level above (flow_mg_coarse_rhs): FAS Jacobi sweeps
 * of a grid above FLOW_SMALL_GRID take it with their first pass. */
flow_status flow_mg_smooth(flow_mg *mg, flow_exec *ex, int d, unsigned flags, int n,
                           const char *kind, const char *label, int *in_t,
                           const flow_prolong_pair_args *pre, const flow_pair *entry);
/* Level d's right-hand side from the residual r of level d - 1: f = R r +
 * N(x) for FAS (x = R x, restricted with that residual), f = R r and x = 0
 * for the correction scheme. */
flow_status flow_mg_coarse_rhs(flow_mg *mg, int d, const flow_pair *r);
/* RMS of r = f - N(x) on level d (into the level's scratch pair t). */
flow_status flow_mg_level_residual_rms(flow_mg *mg, int d, unsigned flags, double *rms);

#endif
