/* pair.c -- the operations on a flow pair (u, v): each device operation
 * applied to both components. */
#include "core/pair.h"
#include "base/fail.h"

#include <math.h>

flow_status flow_pair_alloc(flow_device *d, flow_pair *x, int w, int h)
{
    FLOW_TRY(flow_plane_alloc(d, &x->u, w, h));
    return flow_plane_alloc(d, &x->v, w, h);
}

void flow_pair_free(flow_device *d, flow_pair *x)
{
    flow_plane_free(d, &x->u);
    flow_plane_free(d, &x->v);
}

flow_status flow_pair_fill(flow_device *d, flow_pair *x, float value)
{
    flow_fill_args a = {x->u, value};
    FLOW_TRY(flow_k_fill(d, &a));
    a.p = x->v;
    return flow_k_fill(d, &a);
}

flow_status flow_pair_copy(flow_device *d, flow_pair *dst, const flow_pair *src)
{
    const flow_copy_pair_args a = { *dst, *src };
    return flow_k_copy_pair(d, &a);
}

flow_status flow_pair_rms(flow_device *d, const flow_pair *p, double *rms)
{
    double su = 0, sv = 0;
    FLOW_TRY(flow_sum_squares(d, &p->u, &su));
    FLOW_TRY(flow_sum_squares(d, &p->v, &sv));
    *rms = sqrt((su + sv) / ((double)p->u.width * p->u.height));
    return FLOW_OK;
}
