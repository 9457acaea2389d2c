/* method.h -- computing a dense flow field: methods, solvers, parameters.
 *
 * Methods (seed 001 chapter 2, seed 002): local Lucas-Kanade (Gaussian
 * window rho, or box window with a minimum-eigenvalue threshold tau),
 * Horn-Schunck, linear CLG, nonlinear CLG with Psi(s^2) = sqrt(s^2 + eps^2)
 * on the data and/or smoothness term.  Solvers (2.8, seed 004): Jacobi
 * (lagged nonlinearities for CLG-NL), red-black SOR, V- and W-cycles,
 * cascadic and full multigrid (FAS for the nonlinear case).
 *
 * A context holds every buffer for one image size and is reused frame after
 * frame: nothing is allocated inside flow_context_compute(). */
#ifndef FLOW_METHOD_H
#define FLOW_METHOD_H

#include "flow/backend.h"
#include "flow/field.h"
#include "flow/image.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum flow_method {
    FLOW_METHOD_LK,     /* local Lucas-Kanade */
    FLOW_METHOD_HS,     /* Horn-Schunck (CLG with rho = 0) */
    FLOW_METHOD_CLG,    /* linear combined local-global */
    FLOW_METHOD_CLG_NL, /* nonlinear CLG */
} flow_method;

typedef enum flow_solver {
    FLOW_SOLVER_JACOBI,
    FLOW_SOLVER_RBSOR,
    FLOW_SOLVER_VCYCLE,
    FLOW_SOLVER_WCYCLE,
    FLOW_SOLVER_CASCADIC,
    FLOW_SOLVER_FMG,
} flow_solver;

typedef enum flow_window {
    FLOW_WINDOW_GAUSS, /* K_rho (seed 001) */
    FLOW_WINDOW_BOX,   /* s x s box with eigenvalue threshold tau (seed 002) */
} flow_window;

typedef struct flow_params {
    flow_method method;
    double sigma;         /* presmoothing K_sigma, pixels */
    double rho;           /* postsmoothing K_rho of the motion tensor, pixels */
    double alpha;         /* weight of the smoothness term */
    int nonlinear_data;   /* CLG-NL: robust Psi on the data term */
    int nonlinear_smooth; /* CLG-NL: robust Psi on the smoothness term */
    double eps_d;         /* epsilon of Psi_D */
    double eps_s;         /* epsilon of Psi_S */
    flow_window window;   /* LK window */
    int window_size;      /* LK box side s (odd) */
    double tau;           /* LK minimum-eigenvalue threshold */
    int fill_unknown;     /* LK: fill unsolvable pixels instead of marking them unknown */
    flow_solver solver;
    flow_solver smoother; /* FLOW_SOLVER_JACOBI or FLOW_SOLVER_RBSOR inside cycles */
    int iterations;       /* Jacobi/SOR sweeps; cascadic sweeps per level */
    double omega;         /* SOR relaxation factor (red-black SOR, alone or as smoother) */
    double jacobi_weight; /* Jacobi damping w: x <- (1 - w) x + w x_Jacobi; 1 is plain
                             Jacobi, 0.8 damps the checkerboard mode that multigrid needs
                             smoothed (appended field) */
    int n0, n1, n2;       /* coarsest-grid, pre- and post-smoothing iterations */
    int cycles;           /* cycles per level (FMG) or in total (V/W) */
    int max_depth;        /* deepest multigrid level; -1: as deep as the grid allows */
    int color;            /* input: 0 the luminance, 1 the R, G, B channels (their motion
                             tensors summed); the tools read frames accordingly */
    int warp_levels;      /* coarse-to-fine warping over this many coarser pyramid levels
                             (each half the size; 0: no warping); hs, clg, clg-nl */
    int warps;            /* warps (motion tensor + solve) per pyramid level */
} flow_params;

/* Fills p with the documented defaults of method m (docs/PARAMETERS.md). */
void flow_params_default(flow_params *p, flow_method m);
/* FLOW_OK, or FLOW_ERR_INVALID naming the first parameter out of range. */
flow_status flow_params_validate(const flow_params *p);

const char *flow_method_name(flow_method m); /* "lk", "hs", "clg", "clg-nl" */
const char *flow_solver_name(flow_solver s); /* "jacobi", "rbsor", "v", "w", "cascadic", "fmg" */
const char *flow_window_name(flow_window w); /* "gauss", "box" */
/* Parse the names above; FLOW_ERR_INVALID for an unknown name. */
flow_status flow_method_parse(const char *name, flow_method *m);
flow_status flow_solver_parse(const char *name, flow_solver *s);
flow_status flow_window_parse(const char *name, flow_window *w);

/* .params files (seed 001 section 5.1.1): one `key,value` per line, `#`
 * starts a comment, blank lines are ignored; keys are the field names of
 * flow_params, method/solver/smoother/window take their names.  Reading
 * starts from p as given, except that a file naming a method first resets p
 * to that method's defaults (so a file need only list what differs); the
 * result is validated.  FLOW_ERR_IO when the file cannot be read,
 * FLOW_ERR_INVALID naming file:line for an unknown key, a malformed line, a
 * repeated key or a value out of range (p is then left unchanged). */
flow_status flow_params_read(const char *path, flow_params *p);
/* Writes every field (doubles with %.17g, so reading gives back exactly p),
 * after `comment` as '#' lines when it is not NULL.  Whole-or-nothing. */
flow_status flow_params_write(const char *path, const flow_params *p, const char *comment);

/* Hooks through which a tool watches a computation; any may be NULL.  The
 * library brackets each stage (nested: "motion tensor" > "presmoothing", ...,
 * "solve" > "FMG" > "V-cycle" > ...) with stage_begin/stage_end, emits the
 * multigrid trace of seed 001 appendix B line by line through trace, and
 * hands each intermediate plane to workflow (only when that is set). */
typedef struct flow_observer {
    void *user;
    void (*stage_begin)(void *user, const char *name);
    void (*stage_end)(void *user, const char *name);
    void (*trace)(void *user, const char *line);
    void (*workflow)(void *user, const char *name, flow_backend *b, const flow_plane *plane);
} flow_observer;

typedef struct flow_context flow_context;

/* Allocates every buffer for frames of width x height with `channels`
 * channels (1 or 3) on backend b.  p is copied and validated. */
flow_status flow_context_create(flow_backend *b, int width, int height, int channels,
                                const flow_params *p, flow_context **out);
void flow_context_destroy(flow_context *ctx);
void flow_context_set_observer(flow_context *ctx, const flow_observer *obs);

/* The flow from f1 to f2 (both of the context's size and channels) into out
 * (of the context's size; allocate it once with flow_field_alloc). */
flow_status flow_context_compute(flow_context *ctx, const flow_image *f1, const flow_image *f2,
                                 flow_field *out);
/* The next pair of a sequence: the flow from the second frame of the last
 * successful compute to `next`, exactly as flow_context_compute(ctx, that
 * frame, next, out) gives it, with one frame uploaded instead of two (the
 * other is kept on the device).  FLOW_ERR_INVALID before the first
 * successful compute, or after one that failed while it ran. */
flow_status flow_context_compute_next(flow_context *ctx, const flow_image *next,
                                      flow_field *out);

/* The root-mean-square residual |f - N(x)| per pixel of the finest-grid
 * system at the flow of the last compute (HS, CLG, CLG-NL; for CLG-NL the
 * diffusivities are those of that flow).  Waits for the device.
 * FLOW_ERR_INVALID for Lucas-Kanade or before the first compute. */
flow_status flow_context_residual(flow_context *ctx, double *rms);
/* The number of grid levels the context's solver uses (1 without
 * multigrid) and the size of level d. */
int flow_context_levels(const flow_context *ctx);
/* CUDA graphs (on by default): on a backend that can capture, the first
 * compute records the device work of a frame (motion tensor and solve) and
 * later computes replay it, one launch instead of hundreds.  While a trace
 * or workflow observer is set the work runs directly; during a replay the
 * observer sees one stage "graph" instead of the stages inside it.
 * Disabling drops the recorded graph. */
void flow_context_set_graphs(flow_context *ctx, int enable);
/* 1 when the last compute replayed a graph. */
int flow_context_used_graph(const flow_context *ctx);
void flow_context_level_size(const flow_context *ctx, int d, int *width, int *height);

#ifdef __cplusplus
}
#endif
#endif
