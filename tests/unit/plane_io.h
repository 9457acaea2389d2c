/* plane_io.h -- what the tests of device operations share: a device
 * plane's values copied to the host and back, checked.  Internal types
 * (device/device.h), so not in the harness, which tests of the public API
 * use too. */
#ifndef TEST_PLANE_IO_H
#define TEST_PLANE_IO_H

#include "harness.h"
#include "device/device.h"

#include <stdio.h>
#include <stdlib.h>

/* p's values in a new host array of width x height floats (the caller
 * frees it). */
static inline float *plane_get(flow_device *d, const flow_plane *p)
{
    float *host = calloc((size_t)p->width * p->height, sizeof *host);
    if (!host) {
        fprintf(stderr, "out of memory for a %dx%d plane\n", p->width, p->height);
        exit(1);
    }
    CHECK_OK(flow_download(d, host, (size_t)p->width, p));
    return host;
}

/* host's width x height values into p. */
static inline void plane_put(flow_device *d, flow_plane *p, const float *host)
{
    CHECK_OK(flow_upload(d, p, host, (size_t)p->width));
}

#endif
