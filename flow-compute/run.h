/* run.h -- what flow-compute's computing loops share (run.c: the loop on
 * one device, stepwise or streaming; spread.c: the streaming loop over
 * several devices): the run's state, its totals, and the steps of a pair. */
#ifndef FLOW_COMPUTE_RUN_H
#define FLOW_COMPUTE_RUN_H

#include "compute.h"

typedef struct totals {
    long flows, frames;
    double frame_wait_ms;  /* the computing thread waiting for frames */
    double decode_ms;      /* reading and decoding, in the reader thread */
    double compute_ms;     /* the forward flows */
    double backward_ms;    /* --fb-check: the backward flows */
    double check_ms;       /* --fb-check: the checks */
    double density_sum;    /* --fb-check: over the flows */
    double write_ms;       /* writing, in the writer thread */
    double write_wait_ms;  /* the computing thread waiting for the writer */
    double wall_start;
    double first_flow_ms;  /* when the first flow was done (setup and warm-up behind) */
    int writers;           /* writing threads (-o) */
} totals;

/* What both loops work with. */
typedef struct run {
    const compute_options *o;
    flow_device *d;                        /* the device, or the first of --device's list */
    flow_device *devices[CLI_DEVICES_MAX]; /* --device's list */
    int ndevices;
    frame_source *src;
    flow_context *ctx;
    workflow *wf;
    ftimer *tm;
    output_queue *queue;
    flow_field own[FLOW_CONTEXT_DEPTH]; /* the fields computed into without -o */
    flow_field back;                    /* the backward flow of --fb-check */
    totals t;
    long expected;
    int width, height;
    int show_progress;
    double last_progress;
} run;

/* Prints why a computation failed, "<doing>: <why>" (`doing`: the frames;
 * `why`: the library's message, or when it is empty the status's name),
 * and returns the exit code: mismatched or unsuitable frames
 * (FLOW_ERR_SIZE) are input errors, the rest (memory, device, the
 * computation) compute errors. */
int report_failure(flow_status s, const char *doing, const char *why);
/* report_failure with this thread's last library message. */
int compute_failure(flow_status s, const char *doing);
/* The field the flow of pair k is computed into: the writers' (-o), else
 * one of the run's own. */
int take_field(run *r, long k, flow_field **f);
/* The flow of a pair, computed on device `by`, is done: written (-o) with
 * the pair's workflow images (wf, or NULL; taken over), counted, shown. */
int pair_done(run *r, const flow_device *by, flow_field *field, const flow_image *frame1,
              long number, const char *name1, const char *name2, output_group *wf);
/* r->ctx for w x h frames of `channels` on r->d (`name`: the first frame,
 * for the message of a failure); says which parameters the size reduced. */
int create_context(run *r, int width, int height, int channels, const char *name);
/* Submits a frame from the source (8-bit or float) to a context. */
flow_status submit_frame(flow_context *ctx, const source_frame *f, flow_field *out);

/* The streaming loop over r->devices: the pairs in chunks of consecutive
 * ones, the chunks in turn to a thread and context per device, the flows
 * handed on in order. */
int spread_loop(run *r);
/* The pairs spread_loop over n devices deals out at most before the
 * first is handed on (each holds a flow field and its first frame). */
long spread_pairs_held(int n);

#endif
