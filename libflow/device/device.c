/* device.c -- the public face of the device layer: opening a device by
 * name, its queues, its names, page-locked memory, synchronisation and
 * timing events over the operations table of the device that was opened. */
#include "device/device.h"
#include "base/fail.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const flow_device_ops flow_cpu_ops;
extern const flow_device_ops flow_cuda_ops; /* the stub in builds without nvcc */
extern const int flow_cuda_built;

int flow_device_has_cuda(void)
{
    return flow_cuda_built;
}

int flow_device_count(const char *kind)
{
    if (kind && strcmp(kind, "cpu") == 0)
        return 1;
    if (kind && strcmp(kind, "cuda") == 0)
        return flow_cuda_ops.count ? flow_cuda_ops.count() : 0;
    return 0;
}

static flow_status open_ops(const flow_device_ops *ops, int index, flow_device **out)
{
    flow_device *d = calloc(1, sizeof *d);
    if (!d)
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate a device");
    d->ops = ops;
    d->index = index;
    flow_status s = ops->open(d, index);
    if (s != FLOW_OK) {
        free(d);
        return s;
    }
    *out = d;
    return FLOW_OK;
}

/* Parses "cuda" or "cuda:N"; returns -1 when spec is neither. */
static int cuda_index(const char *spec)
{
    if (strcmp(spec, "cuda") == 0)
        return 0;
    if (strncmp(spec, "cuda:", 5) != 0 || spec[5] < '0' || spec[5] > '9')
        return -1;
    char *end;
    long n = strtol(spec + 5, &end, 10);
    if (*end != '\0' || n < 0 || n > 1024)
        return -1;
    return (int)n;
}

flow_status flow_device_open(const char *spec, flow_device **out)
{
    *out = NULL;
    if (!spec || strcmp(spec, "auto") == 0) {
        if (open_ops(&flow_cuda_ops, 0, out) == FLOW_OK)
            return FLOW_OK;
        char why[200];
        snprintf(why, sizeof why, "%s", flow_last_error());
        FLOW_TRY(open_ops(&flow_cpu_ops, 0, out));
        snprintf((*out)->notice, sizeof (*out)->notice, "%s: using the CPU backend", why);
        return FLOW_OK;
    }
    if (strcmp(spec, "cpu") == 0)
        return open_ops(&flow_cpu_ops, 0, out);
    const int index = cuda_index(spec);
    if (index < 0)
        return flow_fail(FLOW_ERR_INVALID,
                         "unknown device '%s' (expected auto, cpu, cuda or cuda:N)", spec);
    return open_ops(&flow_cuda_ops, index, out);
}

flow_status flow_queue_open(flow_device *d, flow_device **q)
{
    *q = NULL;
    flow_device *h = malloc(sizeof *h);
    if (!h)
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate a queue");
    *h = *d; /* the same operations (a wrapped table too), index and names */
    h->owner = d->owner ? d->owner : d;
    h->impl = NULL;
    const flow_status s = h->ops->queue_open(h);
    if (s != FLOW_OK) {
        free(h);
        return s;
    }
    *q = h;
    return FLOW_OK;
}

void flow_queue_close(flow_device *q)
{
    if (!q)
        return;
    q->ops->queue_close(q);
    free(q);
}

void flow_device_close(flow_device *d)
{
    if (!d)
        return;
    d->ops->close(d);
    free(d);
}

const char *flow_device_kind(const flow_device *d)
{
    return d->ops->kind;
}

const char *flow_device_name(const flow_device *d)
{
    return d->name;
}

const char *flow_device_notice(const flow_device *d)
{
    return d->notice;
}

flow_status flow_device_pin(flow_device *d, void *p, size_t bytes)
{
    if (!d || !p || bytes == 0)
        return flow_fail(FLOW_ERR_INVALID, "flow_device_pin: nothing to pin");
    return d->ops->host_register ? d->ops->host_register(d, p, bytes) : FLOW_OK;
}

void flow_device_unpin(flow_device *d, void *p)
{
    if (d && p && d->ops->host_unregister)
        d->ops->host_unregister(d, p);
}

flow_status flow_device_synchronize(flow_device *d)
{
    return d->ops->synchronize(d);
}

struct flow_event {
    flow_device *d;
    void *impl;
};

flow_status flow_event_create(flow_device *d, flow_event **out)
{
    *out = NULL;
    flow_event *e = calloc(1, sizeof *e);
    if (!e)
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate a timing event");
    e->d = d;
    flow_status s = d->ops->event_create(d, &e->impl);
    if (s != FLOW_OK) {
        free(e);
        return s;
    }
    *out = e;
    return FLOW_OK;
}

void flow_event_destroy(flow_event *e)
{
    if (!e)
        return;
    e->d->ops->event_destroy(e->d, e->impl);
    free(e);
}

flow_status flow_event_record(flow_event *e)
{
    return e->d->ops->event_record(e->d, e->impl);
}

flow_status flow_event_elapsed(const flow_event *start, const flow_event *end, float *ms)
{
    if (start->d != end->d)
        return flow_fail(FLOW_ERR_INVALID, "flow_event_elapsed: events of two devices");
    return start->d->ops->event_elapsed(start->d, start->impl, end->impl, ms);
}

flow_status flow_plane_size_check(int width, int height, long pitch)
{
    if (width <= 0 || height <= 0)
        return flow_fail(FLOW_ERR_INVALID, "plane size %dx%d is not positive", width, height);
    if (pitch * height > FLOW_PLANE_MAX)
        return flow_fail(FLOW_ERR_INVALID, "plane size %dx%d: more than %ld elements", width,
                         height, FLOW_PLANE_MAX);
    return FLOW_OK;
}
