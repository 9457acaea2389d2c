/* pair.c -- the operations on a flow pair (u, v) that the solvers, the
 * multigrid cycles and the warping share: each backend operation applied to
 * both components. */
#include "solve.h"
#include "internal.h"

#include <math.h>

flow_status flow_pair_alloc(flow_backend *b, flow_pair *x, int w, int h)
{
    FLOW_TRY(flow_plane_alloc(b, &x->u, w, h));
    return flow_plane_alloc(b, &x->v, w, h);
}

void flow_pair_free(flow_backend *b, flow_pair *x)
{
    flow_plane_free(b, &x->u);
    flow_plane_free(b, &x->v);
}

flow_status flow_pair_fill(flow_backend *b, flow_pair *x, float value)
{
    FLOW_TRY(b->ops->fill(b, &x->u, value));
    return b->ops->fill(b, &x->v, value);
}

flow_status flow_pair_copy(flow_backend *b, flow_pair *dst, const flow_pair *src)
{
    FLOW_TRY(b->ops->copy(b, &dst->u, &src->u));
    return b->ops->copy(b, &dst->v, &src->v);
}

flow_status flow_pair_scale(flow_backend *b, flow_pair *x, float factor)
{
    FLOW_TRY(b->ops->scale(b, &x->u, factor));
    return b->ops->scale(b, &x->v, factor);
}

flow_status flow_pair_rms(flow_backend *b, const flow_pair *p, double *rms)
{
    double su = 0, sv = 0;
    FLOW_TRY(b->ops->sum_squares(b, &p->u, &su));
    FLOW_TRY(b->ops->sum_squares(b, &p->v, &sv));
    *rms = sqrt((su + sv) / ((double)p->u.width * p->u.height));
    return FLOW_OK;
}
