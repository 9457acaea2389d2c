/* solve.h -- the flow context's state and the solver layers shared by
 * context.c, pair.c, lucas_kanade.c, variational.c, smoother.c, multigrid.c and
 * warping.c.
 * Not installed. */
#ifndef FLOW_SRC_SOLVE_H
#define FLOW_SRC_SOLVE_H

#include "flow/method.h"
#include "flow/preprocess.h"

/* One grid level of the multigrid hierarchy (level 0 is the image grid). */
typedef struct flow_level {
    int width, height;
    flow_system sys; /* J (level 0: the context's tensor), alpha, h, eps */
    flow_pair x;     /* the iterate: a solution, or a correction on coarse grids */
    flow_pair f;     /* right-hand side (coarse grids) */
    flow_pair t;     /* scratch: the Jacobi partner of x, SOR snapshot, residuals */
    flow_pair xr;    /* FAS: R x of the finer grid, kept for e = x - R x */
} flow_level;

struct flow_context {
    flow_backend *b;
    flow_params p;
    int width, height, channels;
    flow_observer obs;
    flow_plane frame[2][3];  /* the uploaded frames, one plane per channel */
    flow_tensor_work work;   /* tensor pipeline scratch */
    flow_kernel k_sigma, k_rho;
    int nlevels;             /* levels allocated (1 without multigrid) */
    flow_level *lev;
    unsigned nl_flags;       /* FLOW_SYS_PSI_D | FLOW_SYS_PSI_S of the method */
    int computed;            /* a flow has been computed (residual is meaningful) */
    int has_frames;          /* frame[] holds the last pair uploaded whole */
    int use_sor;             /* the smoother of the running solve is red-black SOR */
    /* CUDA graph of the device work of a frame (see context.c) */
    int graphs;              /* capture and replay when the backend can */
    int graph_failed;        /* a capture failed: run directly from now on */
    int capturing;           /* observer stages are muted while capturing */
    int last_graph;          /* the last compute replayed the graph */
    void *graph;
    flow_pair *graph_x, *graph_t; /* each level's (x, t) at the end of the capture */
    /* coarse-to-fine warping (warping.c): the coarser pyramid levels, each a
     * context of its own without warping, and at every level the second
     * frame warped along w, the flow it was warped with */
    int npyr;
    flow_context **pyr;
    flow_plane warped[3];
    flow_pair w;
};

/* ---- pair.c: a backend operation on both components of a pair ---- */
flow_status flow_pair_alloc(flow_backend *b, flow_pair *x, int w, int h);
void flow_pair_free(flow_backend *b, flow_pair *x);
flow_status flow_pair_fill(flow_backend *b, flow_pair *x, float value);
flow_status flow_pair_copy(flow_backend *b, flow_pair *dst, const flow_pair *src);
flow_status flow_pair_scale(flow_backend *b, flow_pair *x, float factor);
/* RMS of a pair's values (waits for the device: traces and tests only). */
flow_status flow_pair_rms(flow_backend *b, const flow_pair *p, double *rms);

/* ---- context.c ---- */
/* The motion tensor of frame[0] and second[0 .. channels-1] into
 * lev[0].sys.J (with the workflow pictures when an observer wants them),
 * and the solve of the method's system on it. */
flow_status flow_frame_tensor(flow_context *ctx, const flow_plane *second);
flow_status flow_frame_solve(flow_context *ctx);

/* ---- warping.c ---- */
flow_status flow_warping_alloc(flow_context *ctx);
void flow_warping_free(flow_context *ctx);
flow_status flow_warping_work(flow_context *ctx);

/* ---- variational.c ---- */
/* The levels the solver needs for a w x h grid (see multigrid.c for the
 * rule), and the hierarchy's allocation and release. */
int flow_levels_for(const flow_params *p, int w, int h);
flow_status flow_levels_alloc(flow_context *ctx);
void flow_levels_free(flow_context *ctx);
/* Restricts the finest tensor down the hierarchy (eq. 2.58). */
flow_status flow_levels_restrict_tensor(flow_context *ctx);
/* The flags of level d's system when it is solved as the full problem
 * (affine, no right-hand side) or as a coarse-grid problem (multigrid). */
unsigned flow_flags_full(const flow_context *ctx);
unsigned flow_flags_coarse(const flow_context *ctx);
/* Whether the solver uses the full approximation scheme (nonlinear). */
int flow_uses_fas(const flow_context *ctx);
/* A copy of level d's system with the given flags. */
flow_system flow_level_system(const flow_context *ctx, int d, unsigned flags);

/* ---- smoother.c ---- */
/* n iterations of the context's smoother (Jacobi, or red-black SOR) on level
 * d's system with the given flags, lagging the nonlinearities (each sweep
 * takes the diffusivities of the iterate it starts from).  `kind` and
 * `label` name the step in the trace ("V", "presmooth"; label NULL: the
 * bottom solve). */
flow_status flow_smooth_level(flow_context *ctx, int d, unsigned flags, int n, const char *kind,
                              const char *label);
/* RMS of r = f - N(x) on level d (into the level's scratch pair t). */
flow_status flow_level_residual_rms(flow_context *ctx, int d, unsigned flags, double *rms);

/* ---- multigrid.c ---- */
/* Solves the finest system with the context's solver into lev[0].x. */
flow_status flow_solve(flow_context *ctx);

/* ---- lucas_kanade.c ---- */
flow_status flow_lk_kernel(const flow_params *p, flow_kernel *k);
flow_status flow_lk_solve(flow_context *ctx);

/* ---- trace (multigrid.c) ---- */
int flow_tracing(const flow_context *ctx);
void flow_tracef(const flow_context *ctx, int depth, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void flow_stage_begin(const flow_context *ctx, const char *name);
void flow_stage_end(const flow_context *ctx, const char *name);

#endif
