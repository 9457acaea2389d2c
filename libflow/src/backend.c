/* backend.c -- choosing and opening a backend from a spec string. */
#include "flow/backend.h"
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const flow_backend_ops flow_cpu_ops;
extern const flow_backend_ops flow_cuda_ops; /* the stub in builds without nvcc */
extern const int flow_cuda_built;

int flow_backend_has_cuda(void)
{
    return flow_cuda_built;
}

static flow_status open_ops(const flow_backend_ops *ops, int device, flow_backend **out)
{
    flow_backend *b = calloc(1, sizeof *b);
    if (!b)
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate a backend");
    b->ops = ops;
    flow_status s = ops->open(b, device);
    if (s != FLOW_OK) {
        free(b);
        return s;
    }
    *out = b;
    return FLOW_OK;
}

/* Parses "cuda" or "cuda:N"; returns -1 when spec is neither. */
static int cuda_device_index(const char *spec)
{
    if (strcmp(spec, "cuda") == 0)
        return 0;
    if (strncmp(spec, "cuda:", 5) != 0 || spec[5] == '\0')
        return -1;
    char *end;
    long n = strtol(spec + 5, &end, 10);
    if (*end != '\0' || n < 0 || n > 1024)
        return -1;
    return (int)n;
}

flow_status flow_backend_open(const char *spec, flow_backend **out)
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
    int device = cuda_device_index(spec);
    if (device < 0)
        return flow_fail(FLOW_ERR_INVALID,
                         "unknown device '%s' (expected auto, cpu, cuda or cuda:N)", spec);
    return open_ops(&flow_cuda_ops, device, out);
}

flow_status flow_backend_pin(flow_backend *b, void *p, size_t bytes)
{
    if (!b || !p || bytes == 0)
        return flow_fail(FLOW_ERR_INVALID, "flow_backend_pin: nothing to pin");
    return b->ops->host_register ? b->ops->host_register(b, p, bytes) : FLOW_OK;
}

void flow_backend_unpin(flow_backend *b, void *p)
{
    if (b && p && b->ops->host_unregister)
        b->ops->host_unregister(b, p);
}

flow_status flow_check_rhs(const flow_system *s, const flow_pair *f, const char *op)
{
    if ((s->flags & FLOW_SYS_RHS) && !f)
        return flow_fail(FLOW_ERR_INVALID, "%s: the system has a right-hand side but f is NULL",
                         op);
    return FLOW_OK;
}

flow_status flow_check_batch(flow_plane *const *dst, const flow_plane *const *src, int n)
{
    if (n < 1 || n > FLOW_BATCH_MAX)
        return flow_fail(FLOW_ERR_INVALID, "convolution of %d planes (1 to %d)", n,
                         FLOW_BATCH_MAX);
    for (int i = 0; i < n; i++)
        if (dst[i]->width != dst[0]->width || dst[i]->height != dst[0]->height
            || src[i]->width != dst[0]->width || src[i]->height != dst[0]->height)
            return flow_fail(FLOW_ERR_INVALID, "convolution of planes of different sizes");
    return FLOW_OK;
}

void flow_backend_close(flow_backend *b)
{
    if (!b)
        return;
    b->ops->close(b);
    free(b);
}
