/* graphs.c -- the graph cache of graphs.h over the device's capture and
 * replay (flow_exec_capture, flow_exec_replay). */
#include "core/graphs.h"

void flow_graphs_init(flow_graphs *g)
{
    for (int k = 0; k < FLOW_GRAPH_VARIANTS; k++)
        g->graph[k] = NULL;
    g->enabled = 1;
    g->failed = g->used = 0;
}

flow_status flow_graphs_run(flow_graphs *g, flow_exec *ex, int variant, int direct,
                            flow_status (*work)(void *user), void *user)
{
    const int graphable = g->enabled && !g->failed && !direct && ex->dev->ops->capture_begin;
    void **slot = &g->graph[variant];
    if (graphable && !*slot) {
        flow_exec_capture(ex, work, user, slot);
        g->failed = !*slot;
    }
    g->used = graphable && *slot;
    return g->used ? flow_exec_replay(ex, *slot) : work(user);
}

void flow_graphs_free(flow_graphs *g, flow_device *d)
{
    for (int k = 0; k < FLOW_GRAPH_VARIANTS; k++)
        if (g->graph[k]) {
            d->ops->graph_destroy(d, g->graph[k]);
            g->graph[k] = NULL;
        }
}

void flow_graphs_set(flow_graphs *g, flow_device *d, int enable)
{
    flow_graphs_free(g, d);
    g->enabled = enable != 0;
    g->failed = 0;
}
