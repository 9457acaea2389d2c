/* method.h -- what a method of libflow declares: a descriptor with its name,
 * its parameter schema and its hooks.  One file per method in methods/
 * defines one `const flow_method_desc flow_method_<name>`, and
 * methods/list.h names it once; the registry, the parameter objects, the
 * .params files, the command-line options and --help all come from there.
 * Not installed. */
#ifndef FLOW_METHODS_METHOD_H
#define FLOW_METHODS_METHOD_H

#include "core/exec.h"
#include "core/multigrid.h"
#include "core/pyramid.h"
#include "flow/params.h"

#include <stddef.h>

/* One parameter of a schema: its public description, where its value lives
 * in the method's parameter struct (a double for REAL, an int otherwise),
 * and when it has an effect. */
typedef struct flow_param_def {
    flow_param_info info;
    size_t offset;
    /* NULL: always; else whether the parameter has an effect, given the
     * struct at `group` bytes into the method's parameters (its own group's
     * settings, or the whole struct at 0) */
    int (*applies)(const void *group);
    size_t group;
} flow_param_def;

/* The optional inputs a method may declare (flow_method_desc.inputs). */
#define FLOW_INPUT_INIT 1u    /* an initial flow, with a per-pixel confidence */
#define FLOW_INPUT_MATCHES 2u /* sparse matches with weights */
#define FLOW_INPUT_EDGES 4u   /* an edge map of the first frame */

/* The most extra output planes of a method. */
#define FLOW_OUTPUTS_MAX 4

typedef struct flow_method_desc {
    const char *name;  /* "clg-nl" */
    const char *title; /* one line with the reference */
    size_t params_size;
    const flow_param_def *params;
    int nparams;
    /* Rules between parameters beyond each one's range (NULL: none):
     * FLOW_ERR_INVALID naming the parameters. */
    flow_status (*check)(const void *params);
    /* Every buffer of a computation on w x h frames of `channels` planes. */
    flow_status (*create)(flow_device *d, int width, int height, int channels,
                          const void *params, void **state);
    /* The device work of a pair: the flow from in->f[0] to in->f[1], *flow
     * pointing at the result on the device (the same pair every time, so
     * that a recorded graph replays into it).  A method that reads more
     * frames (`frames`) leaves every plane in the role it had (the context
     * records a graph for each count of frames and inputs it meets, and
     * replays them in any order). */
    flow_status (*run)(void *state, flow_exec *ex, const flow_frames *in, const flow_pair **flow);
    void (*destroy)(void *state);
    /* The frames the parameters make run read where a sequence has them:
     * 2 (the pair; also when NULL) up to FLOW_FRAMES_MAX, the pair and the
     * frames before the first (flow_frames.f).  The context keeps that many
     * and gives run as many as the sequence has so far (at least the pair). */
    int (*frames)(const void *params);
    /* The optional inputs run honours (FLOW_INPUT_*; 0: none): the context
     * refuses to set an input the method does not declare. */
    unsigned inputs;
    /* The extra output planes beyond the flow that the parameters make run
     * leave on the device: their names into names[0 .. n-1] (n at most
     * FLOW_OUTPUTS_MAX), the count returned; NULL: none. */
    int (*outputs)(const void *params, const char **names);
    /* After run: output i's plane of the frames' size on the device (the
     * same plane every run, so that a recorded graph replays into it). */
    const flow_plane *(*output)(void *state, int i);
    /* RMS residual of the method's global system at the last flow; NULL for
     * a method without one. */
    flow_status (*residual)(void *state, flow_exec *ex, double *rms);
    /* Rewrites the parameters as a computation on w x h frames runs them:
     * level counts beyond what the frames allow (pyramid levels, multigrid
     * depths, a finest level) become the counts used, so that they say what
     * ran; create then gives the same computation with the result as with
     * the original.  NULL: nothing depends on the frame size. */
    void (*fit)(void *params, int width, int height);
} flow_method_desc;

/* The registry (registry.c), in the order of methods/list.h. */
const flow_method_desc *flow_method_lookup(const char *name);
const flow_method_desc *flow_method_entry(int i);

/* A parameter object's method and its parameter struct (api/params.c). */
const flow_method_desc *flow_params_desc(const flow_params *p);
const void *flow_params_values(const flow_params *p);
/* p rewritten by its method's fit hook for w x h frames (nothing without
 * one); the values stay in range. */
void flow_params_fit(flow_params *p, int width, int height);

/* ---- declaring parameters ------------------------------------------------
 * FLOW_P_REAL(struct, field, "name", default, min, max, flags, "help") and
 * the like make one flow_param_def; FLOW_P_WHEN adds the condition. */

#define FLOW_P_(T, field, name, type, def, min, max, flags, choices, help, when, fn, grp)       \
    {                                                                                            \
        {name, type, def, min, max, flags, choices, help, when, NULL},                           \
            offsetof(T, field), fn, grp                                                          \
    }
#define FLOW_P_REAL(T, field, name, def, min, max, flags, help)                                  \
    FLOW_P_(T, field, name, FLOW_PARAM_REAL, def, min, max, flags, NULL, help, NULL, NULL, 0)
#define FLOW_P_INT(T, field, name, def, min, max, flags, help)                                   \
    FLOW_P_(T, field, name, FLOW_PARAM_INT, def, min, max, flags, NULL, help, NULL, NULL, 0)
#define FLOW_P_BOOL(T, field, name, def, help)                                                   \
    FLOW_P_(T, field, name, FLOW_PARAM_BOOL, def, 0, 1, 0, NULL, help, NULL, NULL, 0)
#define FLOW_P_CHOICE(T, field, name, def, choices, help)                                        \
    FLOW_P_(T, field, name, FLOW_PARAM_CHOICE, def, 0, 0, 0, choices, help, NULL, NULL, 0)
/* Any of them with a condition: `when` in words, fn reading the method's
 * whole parameter struct. */
#define FLOW_P_WHEN(T, field, name, type, def, min, max, flags, choices, help, when, fn)        \
    FLOW_P_(T, field, name, type, def, min, max, flags, choices, help, when, fn, 0)
/* FLOW_P_WHEN under a new name, its former one still read (`alias`). */
#define FLOW_P_RENAMED(T, field, name, alias, type, def, min, max, flags, choices, help, when, \
                       fn)                                                                       \
    {                                                                                            \
        {name, type, def, min, max, flags, choices, help, when, alias}, offsetof(T, field), fn, 0 \
    }
/* The same inside a group of parameters at T.grp: fn reads the group. */
#define FLOW_P_GROUP(T, grp, field, name, type, def, min, max, flags, choices, help, when, fn)  \
    FLOW_P_(T, grp.field, name, type, def, min, max, flags, choices, help, when, fn,             \
            offsetof(T, grp))

/* The groups that several methods share, as schema entries: the solver of
 * a variational system (a flow_solver_params at T.field) and the
 * coarse-to-fine warping (a flow_warp_params at T.field).  Their
 * conditions are in registry.c. */
int flow_applies_multigrid(const void *solver_params);  /* v, w, cascadic, fmg */
int flow_applies_cycles(const void *solver_params);     /* v, w, fmg */
int flow_applies_sweeps(const void *solver_params);     /* jacobi, rbsor, cascadic */
int flow_applies_omega(const void *solver_params);      /* SOR alone or as smoother */
int flow_applies_jacobi(const void *solver_params);     /* Jacobi alone or as smoother */
int flow_applies_warping(const void *warp_params);      /* levels > 0 */

#define FLOW_SOLVER_SCHEMA(T, f)                                                                 \
    FLOW_SOLVER_SCHEMA_D(T, f, FLOW_SOLVER_FMG, FLOW_SOLVER_JACOBI, 500, 1.0, 1)
/* The same with a method's own defaults of solver, smoother, iterations,
 * omega and cycles. */
#define FLOW_SOLVER_SCHEMA_D(T, f, solver_d, smoother_d, iterations_d, omega_d, cycles_d)       \
    FLOW_SOLVER_SCHEMA_MG(T, f, solver_d, smoother_d, iterations_d, omega_d, cycles_d, 10, 2, 2, \
                          -1)
/* ... and of the sweeps on the coarsest grid and around each coarse-grid
 * correction, and the depth. */
#define FLOW_SOLVER_SCHEMA_MG(T, f, solver_d, smoother_d, iterations_d, omega_d, cycles_d, n0_d,  \
                              n1_d, n2_d, depth_d)                                              \
    FLOW_P_GROUP(T, f, solver, "solver", FLOW_PARAM_CHOICE, solver_d, 0, 0, 0,                   \
                 flow_solver_names, "the solver of the global system", NULL, NULL),             \
    FLOW_P_GROUP(T, f, smoother, "smoother", FLOW_PARAM_CHOICE, smoother_d, 0, 0, 0,             \
                 flow_smoother_names, "the smoother inside the multigrid solvers",              \
                 "solver v, w, cascadic or fmg", flow_applies_multigrid),                       \
    FLOW_P_GROUP(T, f, iterations, "iterations", FLOW_PARAM_INT, iterations_d, 1, 1e7, 0, NULL,  \
                 "sweeps of jacobi or rbsor alone; sweeps per level of cascadic",               \
                 "solver jacobi, rbsor or cascadic", flow_applies_sweeps),                      \
    FLOW_P_GROUP(T, f, omega, "omega", FLOW_PARAM_REAL, omega_d, 0, 2,                           \
                 FLOW_PARAM_MIN_OPEN | FLOW_PARAM_MAX_OPEN, NULL,                               \
                 "relaxation of red-black SOR (alone or as smoother); 1 is Gauss-Seidel",       \
                 "solver rbsor, or smoother rbsor in a multigrid solver", flow_applies_omega),  \
    FLOW_P_GROUP(T, f, jacobi_weight, "jacobi_weight", FLOW_PARAM_REAL, 0.8, 0, 1,               \
                 FLOW_PARAM_MIN_OPEN, NULL, "Jacobi damping w, 1 = plain Jacobi",               \
                 "solver jacobi, or smoother jacobi in a multigrid solver",                     \
                 flow_applies_jacobi),                                                          \
    FLOW_P_GROUP(T, f, n0, "n0", FLOW_PARAM_INT, n0_d, 1, 1e6, 0, NULL,                          \
                 "sweeps on the coarsest grid", "solver v, w or fmg", flow_applies_cycles),     \
    FLOW_P_GROUP(T, f, n1, "n1", FLOW_PARAM_INT, n1_d, 0, 1e4, 0, NULL,                          \
                 "presmoothing sweeps per level", "solver v, w or fmg", flow_applies_cycles),   \
    FLOW_P_GROUP(T, f, n2, "n2", FLOW_PARAM_INT, n2_d, 0, 1e4, 0, NULL,                          \
                 "postsmoothing sweeps per level", "solver v, w or fmg", flow_applies_cycles),  \
    FLOW_P_GROUP(T, f, cycles, "cycles", FLOW_PARAM_INT, cycles_d, 1, 1e4, 0, NULL,              \
                 "cycles per level (fmg) or in total (v, w)", "solver v, w or fmg",             \
                 flow_applies_cycles),                                                          \
    FLOW_P_GROUP(T, f, max_depth, "max_depth", FLOW_PARAM_INT, depth_d, -1, 30, 0, NULL,         \
                 "deepest multigrid level; -1: as deep as the grid allows",                     \
                 "solver v, w, cascadic or fmg", flow_applies_multigrid)

#define FLOW_WARP_SCHEMA(T, f) FLOW_WARP_SCHEMA_D(T, f, 0, 1, 0.5)
/* The same with a method's own defaults. */
#define FLOW_WARP_SCHEMA_D(T, f, levels_d, warps_d, scale_d)                                    \
    FLOW_P_GROUP(T, f, levels, "warp_levels", FLOW_PARAM_INT, levels_d, 0, 100, 0, NULL,         \
                 "coarse-to-fine warping over N coarser pyramid levels (as many as fit, "       \
                 "down to a side of 8 pixels); 0: none", NULL, NULL),                           \
    FLOW_P_GROUP(T, f, warps, "warps", FLOW_PARAM_INT, warps_d, 1, 100, 0, NULL,                 \
                 "passes of warp, motion tensor and solve per pyramid level",                   \
                 "warp_levels > 0", flow_applies_warping),                                      \
    FLOW_P_GROUP(T, f, scale, "warp_scale", FLOW_PARAM_REAL, scale_d, 0.5, 1, FLOW_PARAM_MAX_OPEN, \
                 NULL, "size of a pyramid level over the next finer one", "warp_levels > 0",    \
                 flow_applies_warping)

/* The scales and the weight that several methods share. */
#define FLOW_SIGMA_PARAM(T, field)                                                               \
    FLOW_P_REAL(T, field, "sigma", 1.5, 0, 16, 0, "presmoothing K_sigma of the frames, pixels")
#define FLOW_RHO_PARAM(T, field)                                                                 \
    FLOW_P_REAL(T, field, "rho", 1.0, 0, 16, 0,                                                  \
                "integration scale K_rho of the motion tensor, pixels")
#define FLOW_ALPHA_PARAM(T, field, def)                                                          \
    FLOW_P_REAL(T, field, "alpha", def, 0, 1e12, FLOW_PARAM_MIN_OPEN,                            \
                "weight of the smoothness term")

/* The input parameter of every method. */
#define FLOW_COLOR_PARAM(T, field)                                                               \
    FLOW_P_BOOL(T, field, "color", 0,                                                            \
                "input: 0 the luminance, 1 the R, G, B channels (their tensors summed)")

#define FLOW_NPARAMS(a) ((int)(sizeof(a) / sizeof((a)[0])))

#endif
