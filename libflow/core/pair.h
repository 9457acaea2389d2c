/* pair.h -- the device operations on a flow pair (u, v) that the solvers,
 * the multigrid cycles and the pyramid share.  Not installed. */
#ifndef FLOW_CORE_PAIR_H
#define FLOW_CORE_PAIR_H

#include "device/device.h"

flow_status flow_pair_alloc(flow_device *d, flow_pair *x, int w, int h);
void flow_pair_free(flow_device *d, flow_pair *x);
flow_status flow_pair_fill(flow_device *d, flow_pair *x, float value);
flow_status flow_pair_copy(flow_device *d, flow_pair *dst, const flow_pair *src);
/* RMS of a pair's values (waits for the device: traces and tests only). */
flow_status flow_pair_rms(flow_device *d, const flow_pair *p, double *rms);

#endif
