/* exec.h -- what a computation runs with: its device, the observer the
 * caller set, and the reports to it (stages for the timer, the multigrid
 * trace of seed 001 appendix B, workflow pictures), written once here for
 * every driver and method.  Not installed. */
#ifndef FLOW_CORE_EXEC_H
#define FLOW_CORE_EXEC_H

#include "device/device.h"
#include "flow/context.h"

typedef struct flow_exec {
    flow_device *dev;
    flow_observer obs;
    int capturing; /* a graph is being recorded: stages are not reported */
    float *host;   /* workflow pictures are downloaded here (host_size floats) */
    size_t host_size;
} flow_exec;

/* The most frames a method may read (flow_method_desc.frames): the pair
 * and the frame before the first. */
#define FLOW_FRAMES_MAX 3

/* What a method's run is given on the device: its frames, `channels`
 * planes each, and the optional inputs it declares (flow_method_desc.
 * inputs), NULL where the caller gave none. */
typedef struct flow_frames {
    /* f[0] the first frame of the pair, f[1] the second, f[1 + k] the k-th
     * frame before the first (k = 1 .. count - 2) */
    flow_plane f[FLOW_FRAMES_MAX][3];
    int count; /* 2, or more where a sequence has the frames before */
    int channels;
    /* FLOW_INPUT_INIT: an initial flow of the frames' size, and its
     * per-pixel confidence in [0, 1] (NULL: trusted everywhere) */
    const flow_pair *init;
    const flow_plane *init_confidence;
    /* FLOW_INPUT_MATCHES: sparse matches, a point set (one column per match)
     * of the rows FLOW_MATCH_X .. FLOW_MATCH_WEIGHT */
    const flow_plane *matches;
    /* 1: f[0] and f[1] are the method's last run's f[1] and f[0] (both
     * directions: the forward flow right after the backward one), so what
     * that run made of each of the two frames alone (presmoothed frames,
     * their pyramids) may be taken from it, exchanged, instead of made again */
    int swapped;
    /* FLOW_INPUT_EDGES: an edge map of the first frame, of the frames'
     * size, values in [0, 1] (higher: a stronger edge) */
    const flow_plane *edges;
} flow_frames;

/* The rows of the matches' point set: where in the first frame, the
 * displacement to the second, and the weight (0 .. 1) of each match. */
enum { FLOW_MATCH_X, FLOW_MATCH_Y, FLOW_MATCH_U, FLOW_MATCH_V, FLOW_MATCH_WEIGHT, FLOW_MATCH_ROWS };

/* The caller's observer (NULL: none). */
void flow_exec_set_observer(flow_exec *ex, const flow_observer *obs);

/* Records the device work that work(user) queues as a graph into *graph:
 * NULL when the capture failed, and then nothing recorded has run.  Stages
 * are not reported while recording.  The device must capture
 * (ops->capture_begin). */
void flow_exec_capture(flow_exec *ex, flow_status (*work)(void *user), void *user, void **graph);
/* Replays a recorded graph, reported as the one stage "graph". */
flow_status flow_exec_replay(const flow_exec *ex, void *graph);

void flow_stage_begin(const flow_exec *ex, const char *name);
void flow_stage_end(const flow_exec *ex, const char *name);

/* Whether a trace observer is set (residual norms read the device back, so
 * the drivers compute them only then). */
int flow_tracing(const flow_exec *ex);
/* One trace line, indented by depth. */
void flow_tracef(const flow_exec *ex, int depth, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Whether a workflow observer is set, and one picture for it: the plane
 * downloaded to the host (this waits for the device). */
int flow_watching(const flow_exec *ex);
flow_status flow_workflow(flow_exec *ex, const char *name, const flow_plane *p);

#endif
