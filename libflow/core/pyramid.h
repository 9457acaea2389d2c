/* pyramid.h -- the one coarse-to-fine driver: a pyramid of levels, each
 * with its frames, the second frame warped along the flow of the level
 * below, and a method's own buffers; per-level hooks build the data terms,
 * solve and filter.  Without warping the pyramid is its finest level alone,
 * so every variational method runs through here.  Not installed. */
#ifndef FLOW_CORE_PYRAMID_H
#define FLOW_CORE_PYRAMID_H

#include "core/exec.h"

/* The warping parameters (a method's schema includes them as a group). */
typedef struct flow_warp_params {
    int levels;   /* coarser pyramid levels (0: no warping) */
    int warps;    /* passes of warp, data terms, solve and filter per level */
    double scale; /* size of a level over the next finer one, 0.5 <= scale < 1 */
    int bicubic;  /* warp by bicubic interpolation (else bilinear) */
    int finest;   /* levels finer than this one take the coarser flow as it is
                     (at most the coarsest level) */
    int fine;     /* the first `fine` coarser levels are made at `scale`, the
                     ones below by halving; 0: every level at `scale` */
} flow_warp_params;

/* Coarser levels stop at a side of 8 pixels: below, a level has too little
 * texture to say anything about the motion. */
#define FLOW_PYRAMID_MIN_SIDE 8

typedef struct flow_pyr_level {
    int level;  /* 0: the finest */
    int active; /* level >= the finest level computed (the others upsample) */
    int width, height;
    /* the frames at this size (level 0: the caller's): the first, the
     * second and (hooks.previous) the one before the first */
    flow_plane frame[FLOW_FRAMES_MAX][3];
    flow_plane warped[3];      /* the second frame warped along w (warping only) */
    flow_plane warped_prev[3]; /* the frame before warped along -w (hooks.previous) */
    flow_pair w;            /* the flow it was warped with (warping only) */
    flow_pair *x;           /* the level's flow after a solve (set by level_create) */
    void *state;            /* the method's buffers for this level */
} flow_pyr_level;

/* The method's side.  prepare (may be NULL) computes what the level needs
 * from its frames alone, once per run; init (may be NULL) improves the
 * level's starting flow w; terms builds the data terms of the pair (f1, f2) at level L, f2 being
 * the second frame warped along w (w NULL: not warped; the terms then
 * describe the flow itself, else the increment, rewritten for the total
 * flow); solve leaves the total flow in *L->x; filter (may be NULL) cleans
 * it up after each solve (last: 1 after the level's last warp, and without
 * warping).  A method without terms (NULL) has no warps: the level's flow
 * is w after init (L->x may point at L->w). */
typedef struct flow_pyramid_hooks {
    flow_status (*level_create)(void *user, flow_device *d, flow_pyr_level *L);
    void (*level_destroy)(void *user, flow_device *d, flow_pyr_level *L);
    /* before the level's init and warps, from L->frame[] */
    flow_status (*prepare)(void *user, flow_exec *ex, flow_pyr_level *L);
    /* the level's own search before its warps: replaces L->w (the coarser
     * flow, 0 on the coarsest level), reading the unwarped frames */
    flow_status (*init)(void *user, flow_exec *ex, flow_pyr_level *L);
    flow_status (*terms)(void *user, flow_exec *ex, flow_pyr_level *L, const flow_plane *f1,
                         const flow_plane *f2, const flow_pair *w);
    flow_status (*solve)(void *user, flow_exec *ex, flow_pyr_level *L);
    flow_status (*filter)(void *user, flow_exec *ex, flow_pyr_level *L, int last);
    /* 1: solve starts from the flow of the level below (a warm start): the
     * driver puts it into *L->x before a level's first warp (straight there
     * without an init hook, else after init has made w), and every warp
     * linearises at *L->x (terms get L->x as w) */
    int warm;
    /* 1: runs may have the frame before the first (flow_pyramid_run's f0):
     * its levels, and its warps along -w, are made beside the second
     * frame's */
    int previous;
} flow_pyramid_hooks;

typedef struct flow_pyramid {
    flow_device *dev;
    int channels;
    flow_warp_params p;
    int nlevels; /* 1 + the coarser levels that fit */
    flow_pyr_level *lev;
    flow_pyramid_hooks hooks;
    void *user;
    /* scale != 0.5: the frames of a level are smoothed (k_down) before
     * they are resampled; views of these planes of the finest size */
    flow_kernel k_down;
    flow_plane tmp[FLOW_BATCH_MAX], smooth[FLOW_BATCH_MAX];
    int frames; /* the run's frames: 2, or 3 with the frame before */
    /* the next runs' start (flow_pyramid_start; NULL: none) */
    const flow_pair *init;
    const flow_plane *init_confidence;
    /* the next run's f1 and f2 are the last run's f2 and f1
     * (flow_pyramid_swapped); made: the levels whose first two frames the
     * last run made (its top + 1; 0 before a run and after a failed one) */
    int swapped, made;
} flow_pyramid;

/* The pyramid of w x h frames of `channels` planes: p->levels coarser
 * levels at most (0: the finest level alone, no warping), each made by
 * hooks->level_create. */
flow_status flow_pyramid_create(flow_device *d, int width, int height, int channels,
                                const flow_warp_params *p, const flow_pyramid_hooks *hooks,
                                void *user, flow_pyramid **out);
void flow_pyramid_destroy(flow_pyramid *py);

/* The levels (the finest counted) that flow_pyramid_create builds for
 * w x h frames: p->levels coarser ones at most, fewer where a side would
 * fall under FLOW_PYRAMID_MIN_SIDE or stop shrinking.  *lw, *lh (either
 * may be NULL) get the size of level `level` (0: the finest). */
int flow_pyramid_levels_for(const flow_warp_params *p, int width, int height);
void flow_pyramid_level_size(const flow_warp_params *p, int width, int height, int level,
                             int *lw, int *lh);
/* Rewrites p as a pyramid of w x h frames uses it: levels reduced to the
 * coarser levels that fit (at least 1 when warping), finest to the
 * coarsest level.  The pyramid is the same with the result as with p. */
void flow_warp_fit(flow_warp_params *p, int width, int height);

/* The flow from f1 to f2 (the finest frames, `channels` planes each) into
 * *lev[0].x.  With warping: the frames go down the pyramid ("pyramid"), then
 * from the coarsest level up ("warping"): w = the coarser flow in this
 * level's pixels (0 on the coarsest), and `warps` times: the second frame
 * warped along w, the data terms, the solve, the filter, w = x.  Without:
 * the data terms ("motion tensor"), the solve, the filter.  Everything stays
 * on the device: on CUDA the whole of it is one graph.  f0 (NULL: none;
 * only with hooks.previous and warping) is the frame before f1: it goes
 * down the pyramid too and every warp also warps it along -w
 * (L->warped_prev; py->frames is 3 during the run). */
flow_status flow_pyramid_run(flow_pyramid *py, flow_exec *ex, const flow_plane *f0,
                             const flow_plane *f1, const flow_plane *f2);

/* An initial flow of the finest size for the next runs (NULL: none), which
 * it refines at the finest level, as EpicFlow refines its interpolation
 * (Revaud et al., CVPR 2015): without a confidence the finest level starts
 * from it and the coarser levels are not computed; with one (c in [0, 1]
 * per pixel) they are, and the finest level starts from
 * c init + (1 - c) (the flow from below).  Only with warping and a warm
 * start (hooks.warm, no init hook). */
void flow_pyramid_start(flow_pyramid *py, const flow_pair *init, const flow_plane *confidence);

/* Whether the next run's f1 and f2 hold the last run's f2 and f1
 * (flow_frames.swapped): that run's levels of the two frames are then
 * exchanged instead of made again (the same values: each frame goes down
 * the pyramid on its own), where it made every level the next run reads.
 * The frame before, if any, goes down as usual.  One run only: the flag
 * is cleared by flow_pyramid_run. */
void flow_pyramid_swapped(flow_pyramid *py, int swapped);

#endif
