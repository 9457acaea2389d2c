/* cycle.h -- the multigrid cycle, described once: the order in which a V-
 * or W-cycle (seed 001 algorithms 2.8.4, 2.8.5 and 2.8.8) visits the
 * levels from `top` down to `bottom` and back.  The host multigrid
 * (core/multigrid.c, an operation per call) and the one-block small cycle
 * (pixel/coarse.h) both walk it step by step, each doing at a step the
 * operations of its kind: so both run one cycle, and the GPU runs one
 * copy of each operation's code for every level and visit. */
#ifndef FLOW_PIXEL_CYCLE_H
#define FLOW_PIXEL_CYCLE_H

#include "qualifier.h"

typedef struct flow_cycle_shape {
    int top, bottom; /* the levels of the cycle (0: the finest) */
    int gamma;       /* coarse-grid corrections per visit: 1 V-cycle, 2 W-cycle */
    int n0, n1, n2;  /* sweeps: at the bottom, before and after the corrections */
} flow_cycle_shape;

/* What the smoothing of a step is. */
enum { FLOW_CYCLE_PRE, FLOW_CYCLE_POST, FLOW_CYCLE_BOTTOM };

/* One step at level d: with up, first the correction from level d + 1
 * (x += P e, or FAS x += P (x2 - R x)); then `sweeps` sweeps of the
 * smoother (its role: presmoothing, postsmoothing, or the bottom solve);
 * then, with down, the residual restricted to level d + 1, whose first
 * step comes next; without, level d is done and the walk goes back up (or
 * ends at top).  Between the corrections of a W-cycle a step has up, down
 * and no sweeps. */
typedef struct flow_cycle_step {
    int d, up, sweeps, role, down;
} flow_cycle_step;

/* The step at level d, coming down (back 0) or back up from d + 1;
 * left[d]: the corrections level d still has to take. */
FLOW_HD void flow_cycle_visit(const flow_cycle_shape *c, int *left, int d, int back,
                              flow_cycle_step *s)
{
    s->d = d;
    s->up = back;
    if (back) {
        s->down = --left[d] > 0;
        s->sweeps = s->down ? 0 : c->n2;
        s->role = FLOW_CYCLE_POST;
    } else {
        left[d] = c->gamma;
        s->down = d < c->bottom;
        s->sweeps = s->down ? c->n1 : c->n0;
        s->role = s->down ? FLOW_CYCLE_PRE : FLOW_CYCLE_BOTTOM;
    }
}

/* The first step of the cycle; left holds an int per level. */
FLOW_HD void flow_cycle_first(const flow_cycle_shape *c, int *left, flow_cycle_step *s)
{
    flow_cycle_visit(c, left, c->top, 0, s);
}

/* The step after s, into s; 0 when s was the last. */
FLOW_HD int flow_cycle_next(const flow_cycle_shape *c, int *left, flow_cycle_step *s)
{
    if (s->down)
        flow_cycle_visit(c, left, s->d + 1, 0, s);
    else if (s->d == c->top)
        return 0;
    else
        flow_cycle_visit(c, left, s->d - 1, 1, s);
    return 1;
}

#endif
