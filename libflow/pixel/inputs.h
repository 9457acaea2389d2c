/* inputs.h -- a method's optional inputs at one pixel: the start of a
 * refinement from a caller's initial flow weighted by its confidence. */
#ifndef FLOW_PIXEL_INPUTS_H
#define FLOW_PIXEL_INPUTS_H

#include "qualifier.h"

#include <math.h>

/* x = c init + (1 - c) x, c the confidence clamped into [0, 1]. */
typedef struct flow_start_blend_args {
    flow_pair x;
    flow_pair init;
    flow_plane c;
} flow_start_blend_args;

FLOW_HD void flow_start_blend_px(const flow_start_blend_args *a, int x, int y)
{
    const float c = fminf(fmaxf(FLOW_PX(a->c, x, y), 0.0f), 1.0f);
    FLOW_PX(a->x.u, x, y) = c * FLOW_PX(a->init.u, x, y) + (1.0f - c) * FLOW_PX(a->x.u, x, y);
    FLOW_PX(a->x.v, x, y) = c * FLOW_PX(a->init.v, x, y) + (1.0f - c) * FLOW_PX(a->x.v, x, y);
}

#endif
