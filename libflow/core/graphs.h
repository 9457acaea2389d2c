/* graphs.h -- the CUDA-graph cache of a queue's work, written once for
 * the contexts and the trackers: a fixed sequence of launches on fixed
 * planes (a frame's device work) is recorded the first time it runs and
 * replayed after, one launch instead of hundreds.  A caller whose work
 * takes one of a few forms (two frames or three; one pyramid or the other)
 * keeps a graph per form, its `variant`.  Not installed. */
#ifndef FLOW_CORE_GRAPHS_H
#define FLOW_CORE_GRAPHS_H

#include "core/exec.h"

/* The most forms: a context's count of frames (2 .. FLOW_FRAMES_MAX) times
 * its set of optional inputs (three flags). */
#define FLOW_GRAPH_VARIANTS ((FLOW_FRAMES_MAX - 1) * 16)

typedef struct flow_graphs {
    void *graph[FLOW_GRAPH_VARIANTS]; /* NULL until recorded */
    int enabled; /* record and replay where the device can */
    int failed;  /* a recording failed: the work runs directly from then on */
    int used;    /* the last run replayed a graph */
} flow_graphs;

/* Enabled, nothing recorded. */
void flow_graphs_init(flow_graphs *g);
/* Runs work(user) on ex's queue as the graph of `variant`: replayed when
 * recorded, recorded first when not (the recording runs nothing: the
 * replay that follows does).  It runs directly when graphs are disabled, a
 * recording failed before or fails now, the device cannot record
 * (ops->capture_begin NULL), or `direct` (the caller's reason this time:
 * an observer that reads the device between launches, a first frame that
 * allocates).  Returns work's status or the replay's. */
flow_status flow_graphs_run(flow_graphs *g, flow_exec *ex, int variant, int direct,
                            flow_status (*work)(void *user), void *user);
/* Drops the recorded graphs, forgets a failed recording and enables or
 * disables graphs. */
void flow_graphs_set(flow_graphs *g, flow_device *d, int enable);
/* Frees the recorded graphs. */
void flow_graphs_free(flow_graphs *g, flow_device *d);

#endif
