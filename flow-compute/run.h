/* run.h -- flow-compute's computing loop and its modes.  run.c owns the
 * one loop: open the device and the frame source, take the frames in
 * order and hand each consecutive pair to the run's mode, which computes
 * it; the mode hands the flows on (pair.c) in pair order.  The modes:
 *
 *   step.c    one pair at a time on one device, for what looks inside a
 *             computation or repeats it (--timing, --workflow, --trace,
 *             --repeat, --fb-check);
 *   stream.c  the pairs submitted to one device ahead of their collection,
 *             so that transfers overlap the computation;
 *   spread.c  the pairs dealt out to several devices (--device cuda:all)
 *             by the library's flow_spread (flow/spread.h),
 *             each streaming its share on a thread of its own.
 *
 * The modes use pair.c, run.c uses the modes: no file includes one that
 * uses it. */
#ifndef FLOW_COMPUTE_RUN_H
#define FLOW_COMPUTE_RUN_H

#include "compute.h"

typedef struct totals {
    long flows, frames;
    double frame_wait_ms;  /* the computing thread waiting for frames */
    double decode_ms;      /* reading and decoding, in the reader thread */
    double compute_ms;     /* the flows (with --fb-check, --backward, ... both ways) */
    double check_ms;       /* --fb-check: applying the verdicts */
    double density_sum;    /* --fb-check: over the flows */
    double write_ms;       /* writing, in the writer thread */
    double write_wait_ms;  /* the computing thread waiting for the writer */
    double wall_start;
    double first_flow_ms;  /* when the first flow was done (setup and warm-up behind) */
    double first_compute_ms; /* compute_ms then: the first flow's, with its warm-up */
    double last_flow_ms;   /* when the last flow was handed on */
    double end_ms;         /* when the last flow was done: handed on, or written with -o */
    int writers;           /* writing threads (-o) */
} totals;

typedef struct stream_state stream_state;
typedef struct spread spread;

/* What the loop and its modes work with. */
typedef struct run {
    const compute_options *o;
    flow_device *d;                        /* the device, or the first of --device's list */
    flow_device *devices[CLI_DEVICES_MAX]; /* --device's list */
    int ndevices;
    frame_source *src;
    flow_context *ctx;
    const flow_params *used;               /* the parameters as the context(s) run them */
    flow_params *used_copy;                /* the spread mode's copy, which outlives its contexts */
    workflow *wf;
    ftimer *tm;
    output_queue *queue;
    flow_field own[FLOW_CONTEXT_DEPTH]; /* the fields computed into without -o */
    flow_field back;                    /* the backward flow (--fb-check, --backward) */
    float *verdict, *occluded, *confidence; /* the planes asked for (consistency.c) */
    stream_state *stream;               /* the stream mode's flows in flight */
    spread *spread;                     /* the spread mode's pairs in flight */
    totals t;
    long expected;
    int width, height;
    int show_progress;
    double last_progress;
    float *match_planes[3];             /* --matches: match_u, match_v, match_weight */
} run;

/* ---- sparse matches in and out (matches.c) ------------------------------ */

/* --matches: the context's match planes requested (usage error for a
 * method without them). */
int matches_request(run *r);
/* --matches: the planes of the last flow written to the file. */
int matches_write(run *r);
void matches_free(run *r);
/* --use-matches: the file read and given to the context (usage error for a
 * method that takes none; input error for a bad line or match, named). */
int matches_give(run *r);

/* ---- a mode of the loop -------------------------------------------------- */

typedef struct run_mode {
    /* The pairs a mode may hold before the first is handed on (each holds
     * a flow field and its first frame), on n devices. */
    long (*held)(int ndevices);
    /* Before the first pair: the context(s) for frames like `first`. */
    int (*start)(run *r, const source_frame *first);
    /* Pair k, from -> to: computed, or queued to be.  *took is set to 1
     * when the mode took the pair: it gives `from` back to the source when
     * the pair is handed on, or in finish.  On a failure with *took 0 the
     * caller still holds both frames. */
    int (*pair)(run *r, long k, const source_frame *from, const source_frame *to, int *took);
    /* After the last pair (with `failed`, after a failure: nothing more is
     * handed on): the pairs in flight handed on or dropped, the frames and
     * fields they hold given back, the mode's state freed.  Returns the
     * first failure of the pairs handed on. */
    int (*finish)(run *r, int failed);
} run_mode;

extern const run_mode run_mode_step, run_mode_stream, run_mode_spread;

/* ---- the steps of a pair (pair.c) ---------------------------------------- */

/* Prints why a computation failed, "<doing>: <why>" (`doing`: the frames;
 * `why`: the library's message, or when it is empty the status's name),
 * and returns the exit code: mismatched or unsuitable frames
 * (FLOW_ERR_SIZE) are input errors, the rest (memory, device, the
 * computation) compute errors. */
int report_failure(flow_status s, const char *doing, const char *why);
/* report_failure with this thread's last library message. */
int compute_failure(flow_status s, const char *doing);
/* The width, height and channels of a frame from the source. */
void frame_shape(const source_frame *f, int *width, int *height, int *channels);
/* r->ctx for frames like `first` on r->d; says which parameters the size
 * reduced. */
int create_context(run *r, const source_frame *first);
/* Says which parameters asked for the frames of width x height reduced
 * (`used`: as the context runs them). */
void report_fitted(const flow_params *asked, const flow_params *used, int width, int height);
/* The field the flow of pair k is computed into: the writers' (-o), else
 * one of the run's own. */
int take_field(run *r, long k, flow_field **f);
/* n fields of the frames' size to compute into without -o, page-locked for
 * the run's device; own_fields_free unpins and frees them (those never
 * allocated too). */
int own_fields_alloc(run *r, flow_field *f, long n);
void own_fields_free(run *r, flow_field *f, long n);
/* Submits a frame from the source (8-bit or float) to a context. */
flow_status submit_frame(flow_context *ctx, const source_frame *f, flow_field *out);
/* The flow of a pair, computed on device `by`, is done: written (-o) with
 * the pair's workflow images (wf, or NULL; taken over), counted, shown. */
int pair_done(run *r, const flow_device *by, flow_field *field, const flow_image *frame1,
              long number, const char *name1, const char *name2, output_group *wf);
/* The flows per second the devices allow after the first (0: not known). */
double device_rate(const run *r);
/* The progress line; `final` draws it once more and ends it. */
void run_progress(run *r, int final);

/* ---- both directions (consistency.c) -------------------------------------- */

/* Their names against the number of flows (-1: a stream): usage errors. */
int consistency_check(const compute_options *o, long flows);
/* Their files for the pair numbered n can be written. */
int consistency_check_targets(const compute_options *o, long n);
/* Both directions on r->ctx for --fb-check and the options above, with the
 * planes they need requested into r's buffers. */
int consistency_start(run *r);
/* The files of the options above for the pair numbered n, written into a
 * new group *group (NULL when none is asked for) to commit with the flow. */
int consistency_write(run *r, long n, output_group **group);
void consistency_free(run *r);

#endif
