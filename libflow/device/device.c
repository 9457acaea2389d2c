/* device.c -- the public face of the device layer: the backends of
 * device/backends.h, opening a device by name and lists of devices, its
 * queues, its names, page-locked memory, synchronisation and timing events
 * over the operations table of the device that was opened. */
#include "device/device.h"
#include "device/backends.h"
#include "base/fail.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FLOW_BACKEND_DECLARE(name) extern const flow_device_ops flow_##name##_ops;
FLOW_BACKENDS(FLOW_BACKEND_DECLARE)
#undef FLOW_BACKEND_DECLARE
#define FLOW_BACKEND_ENTRY(name) &flow_##name##_ops,
static const flow_device_ops *const backends[] = { FLOW_BACKENDS(FLOW_BACKEND_ENTRY) };
#undef FLOW_BACKEND_ENTRY
enum { NBACKENDS = (int)(sizeof backends / sizeof *backends) };

/* Whether ops is a backend this build contains (not a stand-in). */
static int built(const flow_device_ops *ops)
{
    return ops->plane_alloc != NULL;
}

/* The backend of kind name[0 .. len), or NULL. */
static const flow_device_ops *backend_named(const char *name, size_t len)
{
    for (int i = 0; i < NBACKENDS; i++)
        if (strlen(backends[i]->kind) == len && strncmp(backends[i]->kind, name, len) == 0)
            return backends[i];
    return NULL;
}

const char *flow_device_backend(int i)
{
    for (int k = 0; k < NBACKENDS; k++)
        if (built(backends[k]) && i-- == 0)
            return backends[k]->kind;
    return NULL;
}

int flow_device_has_backend(const char *kind)
{
    const flow_device_ops *ops = kind ? backend_named(kind, strlen(kind)) : NULL;
    return ops && built(ops);
}

int flow_device_has_cuda(void)
{
    return flow_device_has_backend("cuda");
}

int flow_device_count(const char *kind)
{
    const flow_device_ops *ops = kind ? backend_named(kind, strlen(kind)) : NULL;
    if (!ops)
        return 0;
    return ops->count ? ops->count() : 1;
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

/* The names a spec may take, for messages: "auto, cpu, cuda or cuda:N". */
static void spec_names(char *buf, size_t size)
{
    size_t at = (size_t)snprintf(buf, size, "auto");
    for (int i = 0; i < NBACKENDS && at < size; i++) {
        const char *k = backends[i]->kind, *sep = i + 1 < NBACKENDS ? ", " : " or ";
        at += (size_t)(backends[i]->count
                           ? snprintf(buf + at, size - at, ", %s%s%s:N", k, sep, k)
                           : snprintf(buf + at, size - at, "%s%s", sep, k));
    }
}

/* The backend and device index of "KIND" (index 0) or "KIND:N" (a backend
 * of several devices); NULL when spec names none. */
static const flow_device_ops *parse_spec(const char *spec, int *index)
{
    const char *colon = strchr(spec, ':');
    const flow_device_ops *ops = backend_named(spec, colon ? (size_t)(colon - spec) : strlen(spec));
    *index = 0;
    if (!ops || !colon)
        return ops;
    if (!ops->count || colon[1] < '0' || colon[1] > '9')
        return NULL;
    char *end;
    const long n = strtol(colon + 1, &end, 10);
    if (*end != '\0' || n < 0 || n > 1024)
        return NULL;
    *index = (int)n;
    return ops;
}

/* FLOW_ERR_INVALID naming spec (in the list `in`, when not NULL). */
static flow_status unknown_device(const char *in, const char *spec)
{
    char names[160];
    spec_names(names, sizeof names);
    return flow_fail(FLOW_ERR_INVALID, "%s%sunknown device '%s' (expected %s)", in ? in : "",
                     in ? ": " : "", spec, names);
}

flow_status flow_device_open(const char *spec, flow_device **out)
{
    *out = NULL;
    if (!spec || strcmp(spec, "auto") == 0) {
        char why[200] = "";
        for (int i = NBACKENDS - 1; i > 0; i--) {
            if (open_ops(backends[i], 0, out) == FLOW_OK)
                return FLOW_OK;
            if (!why[0])
                snprintf(why, sizeof why, "%s", flow_last_error());
        }
        FLOW_TRY(open_ops(backends[0], 0, out));
        if (why[0])
            snprintf((*out)->notice, sizeof (*out)->notice, "%s: using the CPU backend", why);
        return FLOW_OK;
    }
    int index;
    const flow_device_ops *ops = parse_spec(spec, &index);
    if (!ops)
        return unknown_device(NULL, spec);
    return open_ops(ops, index, out);
}

/* specs[*n] = name, unless max are there. */
static flow_status list_add(const char *list, char (*specs)[FLOW_DEVICE_SPEC_MAX], int max,
                            int *n, const char *name)
{
    if (*n == max)
        return flow_fail(FLOW_ERR_INVALID, "%s: more than %d devices", list, max);
    snprintf(specs[(*n)++], FLOW_DEVICE_SPEC_MAX, "%s", name);
    return FLOW_OK;
}

/* Every device of backend ops, or FLOW_ERR_NO_DEVICE with the backend's
 * reason when there is none. */
static flow_status list_all(const char *list, const char *entry, const flow_device_ops *ops,
                            char (*specs)[FLOW_DEVICE_SPEC_MAX], int max, int *n)
{
    const int count = ops->count ? ops->count() : 0;
    if (count == 0) {
        flow_device *probe = NULL;
        if (open_ops(ops, 0, &probe) == FLOW_OK) {
            ops->close(probe);
            free(probe);
            return flow_fail(FLOW_ERR_NO_DEVICE, "%s: no %s device found", entry, ops->kind);
        }
        char why[200];
        snprintf(why, sizeof why, "%s", flow_last_error());
        return flow_fail(FLOW_ERR_NO_DEVICE, "%s: %s", entry, why);
    }
    for (int g = 0; g < count; g++) {
        char name[FLOW_DEVICE_SPEC_MAX];
        snprintf(name, sizeof name, "%s:%d", ops->kind, g);
        FLOW_TRY(list_add(list, specs, max, n, name));
    }
    return FLOW_OK;
}

flow_status flow_device_list(const char *list, char (*specs)[FLOW_DEVICE_SPEC_MAX], int max,
                             int *n)
{
    *n = 0;
    char buf[256];
    const size_t len = strlen(list);
    if (len >= sizeof buf)
        return flow_fail(FLOW_ERR_INVALID, "'%s' is too long", list);
    if (len == 0 || list[0] == ',' || list[len - 1] == ',' || strstr(list, ",,"))
        return flow_fail(FLOW_ERR_INVALID, "'%s': an empty name in the list", list);
    snprintf(buf, sizeof buf, "%s", list);
    const flow_device_ops *last = NULL; /* the backend of the entry before, if "KIND:N" */
    for (char *save = NULL, *e = strtok_r(buf, ",", &save); e; e = strtok_r(NULL, ",", &save)) {
        if (strcmp(e, "auto") == 0)
            return flow_fail(FLOW_ERR_INVALID, "%s: auto cannot be part of a list", list);
        const char *colon = strchr(e, ':');
        const flow_device_ops *all =
            colon && strcmp(colon, ":all") == 0 ? backend_named(e, (size_t)(colon - e)) : NULL;
        if (all && all->count) {
            FLOW_TRY(list_all(list, e, all, specs, max, n));
            last = all;
            continue;
        }
        char name[FLOW_DEVICE_SPEC_MAX];
        if (last && strspn(e, "0123456789") == strlen(e) && strlen(e) < 5)
            snprintf(name, sizeof name, "%s:%s", last->kind, e);
        else if (strlen(e) < sizeof name)
            snprintf(name, sizeof name, "%s", e);
        else
            return unknown_device(list, e);
        int index;
        const flow_device_ops *ops = parse_spec(name, &index);
        if (!ops)
            return unknown_device(list, name);
        FLOW_TRY(list_add(list, specs, max, n, name));
        last = strchr(name, ':') ? ops : NULL;
    }
    return FLOW_OK;
}

/* Whether a list names several devices: a comma, or "KIND:all". */
static int is_list(const char *list)
{
    return strchr(list, ',') != NULL || strstr(list, ":all") != NULL;
}

flow_status flow_devices_open(const char *list, flow_device **out, int max, int *n)
{
    *n = 0;
    if (!list)
        return flow_fail(FLOW_ERR_INVALID, "flow_devices_open: no device list");
    if (!is_list(list)) {
        if (max < 1)
            return flow_fail(FLOW_ERR_INVALID, "%s: more than %d devices", list, max);
        FLOW_TRY(flow_device_open(list, &out[0]));
        *n = 1;
        return FLOW_OK;
    }
    char (*specs)[FLOW_DEVICE_SPEC_MAX] = malloc(sizeof *specs * (size_t)(max > 0 ? max : 1));
    if (!specs)
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate the list of devices");
    int count = 0;
    flow_status s = flow_device_list(list, specs, max, &count);
    for (int i = 0; s == FLOW_OK && i < count; i++) {
        int index, earlier;
        const flow_device_ops *ops = parse_spec(specs[i], &index);
        /* an entry that names a device opened already shares it */
        for (earlier = 0; earlier < i; earlier++)
            if (out[earlier]->ops == ops && out[earlier]->index == index)
                break;
        if (earlier < i) {
            out[i] = out[earlier];
            continue;
        }
        s = flow_device_open(specs[i], &out[i]);
        if (s != FLOW_OK) {
            char why[900];
            snprintf(why, sizeof why, "%s", flow_last_error());
            s = flow_fail(s, "%s: %s", specs[i], why);
            flow_devices_close(out, i);
        }
    }
    free(specs);
    if (s == FLOW_OK)
        *n = count;
    return s;
}

void flow_devices_close(flow_device **d, int n)
{
    for (int i = 0; i < n; i++) {
        int earlier = 0;
        while (earlier < i && d[earlier] != d[i])
            earlier++;
        if (earlier == i)
            flow_device_close(d[i]);
    }
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

/* What a device without memory of its own says to GPU memory. */
static flow_status no_gpu_memory(const flow_device *d, const char *what)
{
    return flow_fail(FLOW_ERR_UNSUPPORTED, "%s: GPU memory needs a CUDA device, and this one "
                                           "is %s (%s)",
                     what, d->ops->kind, d->name);
}

flow_status flow_device_alloc(flow_device *d, size_t bytes, void **p)
{
    *p = NULL;
    if (!d->ops->pointer_gpu)
        return no_gpu_memory(d, "flow_device_alloc");
    return d->ops->buffer_alloc(d, p, bytes);
}

void flow_device_free(flow_device *d, void *p)
{
    if (p && d->ops->pointer_gpu)
        d->ops->buffer_free(d, p);
}

int flow_device_index(const flow_device *d)
{
    return d->index;
}

flow_status flow_device_check_pointer(flow_device *d, const void *p, const char *what)
{
    if (!d->ops->pointer_gpu)
        return no_gpu_memory(d, what);
    int gpu = -1;
    FLOW_TRY(d->ops->pointer_gpu(d, p, &gpu));
    if (gpu == d->index)
        return FLOW_OK;
    if (gpu < 0)
        return flow_fail(FLOW_ERR_INVALID, "%s lies in host memory, not on the device %s", what,
                         d->name);
    return flow_fail(FLOW_ERR_INVALID, "%s lies on cuda:%d, the device is cuda:%d (%s)", what,
                     gpu, d->index, d->name);
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
