/* exec.c -- the reports of a computation to its observer: stages, the
 * multigrid trace, workflow pictures. */
#include "core/exec.h"
#include "base/fail.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void flow_exec_set_observer(flow_exec *ex, const flow_observer *obs)
{
    if (obs)
        ex->obs = *obs;
    else
        memset(&ex->obs, 0, sizeof ex->obs);
}

void flow_exec_capture(flow_exec *ex, flow_status (*work)(void *user), void *user, void **graph)
{
    flow_device *d = ex->dev;
    *graph = NULL;
    ex->capturing = 1;
    if (d->ops->capture_begin(d) == FLOW_OK) {
        const flow_status s = work(user);
        void *g = NULL;
        const flow_status e = d->ops->capture_end(d, &g);
        if (s == FLOW_OK && e == FLOW_OK && g)
            *graph = g;
        else if (g)
            d->ops->graph_destroy(d, g);
    }
    ex->capturing = 0;
}

flow_status flow_exec_replay(const flow_exec *ex, void *graph)
{
    flow_stage_begin(ex, "graph");
    const flow_status s = ex->dev->ops->graph_launch(ex->dev, graph);
    flow_stage_end(ex, "graph");
    return s;
}

void flow_stage_begin(const flow_exec *ex, const char *name)
{
    if (ex->obs.stage_begin && !ex->capturing)
        ex->obs.stage_begin(ex->obs.user, name);
}

void flow_stage_end(const flow_exec *ex, const char *name)
{
    if (ex->obs.stage_end && !ex->capturing)
        ex->obs.stage_end(ex->obs.user, name);
}

int flow_tracing(const flow_exec *ex)
{
    return ex->obs.trace != NULL;
}

void flow_tracef(const flow_exec *ex, int depth, const char *fmt, ...)
{
    if (!ex->obs.trace)
        return;
    char line[512];
    int n = 2 * (depth < 0 ? 0 : depth > 40 ? 40 : depth);
    memset(line, ' ', (size_t)n);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    ex->obs.trace(ex->obs.user, line);
}

int flow_watching(const flow_exec *ex)
{
    return ex->obs.workflow != NULL;
}

flow_status flow_workflow(flow_exec *ex, const char *name, const flow_plane *p)
{
    if (!ex->obs.workflow)
        return FLOW_OK;
    const size_t n = (size_t)p->width * p->height;
    if (n > ex->host_size) {
        float *h = realloc(ex->host, n * sizeof *h);
        if (!h)
            return flow_fail(FLOW_ERR_NOMEM, "workflow: cannot allocate a %dx%d picture",
                             p->width, p->height);
        ex->host = h;
        ex->host_size = n;
    }
    FLOW_TRY(flow_download(ex->dev, ex->host, (size_t)p->width, p));
    ex->obs.workflow(ex->obs.user, name, ex->host, p->width, p->height);
    return FLOW_OK;
}
