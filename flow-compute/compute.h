/* compute.h -- what the parts of flow-compute share: the options as parsed
 * from the command line (main.c), the output names and files (output.c,
 * written by a thread: writer.c), the workflow images (workflow.c) and the
 * computing loop (run.c, with its modes and the steps of a pair: run.h).  The frame sources and the hierarchical timer are
 * shared with the other tools (tools-common/source.h, timer.h).
 *
 * Conventions: functions that can fail print their own message on stderr
 * (through tools-common/cli.h) and return an exit code: CLI_EXIT_OK,
 * CLI_EXIT_USAGE, CLI_EXIT_IO or CLI_EXIT_COMPUTE. */
#ifndef FLOW_COMPUTE_H
#define FLOW_COMPUTE_H

#include "flow/flow.h"
#include "flow/render.h"

#include "cli.h"
#include "outputs.h"
#include "source.h"
#include "timer.h"

#include <getopt.h>
#include <stdio.h>

#define COMPUTE_USAGE "flow-compute [options] FRAME1 FRAME2 [FRAME3 ...] -o OUT"

/* ---- options (main.c) -------------------------------------------------- */

typedef struct compute_options {
    flow_params *params;     /* effective parameters: defaults <- -p file <- options */
    const char *params_file; /* -p */
    const char *output;      /* -o: a name, or a pattern with one integer field */
    source_options input;    /* the frames */
    long count;              /* at most this many flows; 0: all */
    const char *device;      /* --device [auto] */
    int rgb;                 /* compute on the colour channels instead of the luminance */
    double fb_check;         /* --fb-check T: forward-backward threshold, px; 0: off */
    const char *init;        /* --init FLOW: the method refines this flow */
    const char *init_confidence; /* --init-confidence IMAGE: its confidence, 255 = 1 */
    const char *matches;     /* --matches FILE: the matches the method interpolated */
    const char *use_matches; /* --use-matches FILE: matches in place of the method's matcher */
    const char *edges;       /* --edges IMAGE: the first frame's edge map, full scale = 1 */
    const char *backward;    /* --backward OUT: the backward flow's name or pattern */
    const char *occlusion;   /* --occlusion OUT: the occlusion mask (8-bit PNG) */
    const char *confidence;  /* --confidence OUT: the confidence (.pfm or 16-bit .png) */
    double occlusion_a, occlusion_b; /* the forward-backward test's a and b */
    int occlusion_ab;        /* --occlusion-a or --occlusion-b given */
    int color, vectors;      /* pictures beside each flow file */
    double color_max;        /* fixed colour scale R; 0: per field */
    int legend;              /* colour picture with the direction key around it */
    int scale_label;         /* the colour scale written in that frame */
    int vector_step;         /* 0: automatic (flow_vector_step) */
    int vector_zoom;
    double vector_scale;     /* 0: automatic (the longest arrow 0.9 step) */
    int timing;              /* --timing: print the report */
    const char *timing_file; /* --timing-file */
    int timing_depth;        /* stages deeper than this are not timed */
    int repeat;              /* runs per pair */
    const char *workflow_dir;
    int trace;
    int quiet, verbose;
    const char *progress;    /* --progress NAME: the progress line's heading */
    char command_line[2048]; /* for the .params header */
    /* --flow-images DIR: each flow as two 8-bit images (tools-common/flowimages.h) */
    const char *images_dir;
    const char *images_x, *images_y; /* their name patterns in DIR */
    int images_named;                /* --flow-names given */
    double images_bound;             /* B, pixels */
} compute_options;

/* Whether --backward, --occlusion or --confidence is given (consistency.c). */
int consistency_wanted(const compute_options *o);

/* ---- parameter options (params_cli.c) ---------------------------------- */

#define PARAM_NAMES_MAX 128

/* The parameter options of the command line: one per parameter name of any
 * method, and what was given. */
typedef struct param_cli {
    int n;                              /* distinct parameter names */
    const char *name[PARAM_NAMES_MAX];  /* the key, as in .params files */
    char option[PARAM_NAMES_MAX][40];   /* the option without "--" */
    const char *value[PARAM_NAMES_MAX]; /* the text given, or NULL */
    const char *method;                 /* -m NAME, or NULL */
    const struct option *tool;          /* the tool's own options */
    int ntool;
} param_cli;

/* The parameter names of every method, less those whose option name is one
 * of the tool's options (color: the tool sets it with --rgb). */
void param_cli_init(param_cli *pc, const struct option *tool, int ntool);
/* Writes the n options into out[0 .. n-1], getopt values base + i; returns n. */
int param_cli_longopts(const param_cli *pc, struct option *out, int base);
/* The method lines of --help, from the schemas; with `method` (an existing
 * one) also that method's parameters, each with its default and the
 * setting under which it has an effect. */
void param_cli_help(const param_cli *pc, FILE *f, const char *method);
/* The parameters of a run: the defaults of -m (or the default method), then
 * the -p file (which may name its method: -m must then agree), then the
 * options, then --rgb as color 1.  An option the method does not have, a
 * bad value and an option that has no effect under the other values are
 * usage errors; a bad file an input error.  *out is the caller's. */
int param_cli_merge(const param_cli *pc, const char *file, int rgb, flow_params **out);

/* ---- outputs (output.c) ------------------------------------------------ */

/* Whether the run writes anything per flow: -o or --flow-images. */
int output_wanted(const compute_options *o);
/* Checks -o from the command line alone: a flow format's extension and at
 * most one integer field; a usage error otherwise. */
int output_check_name(const compute_options *o);
/* Checks -o (already through output_check_name) against the expected number
 * of flows (-1: unknown, a stream); a usage error otherwise. */
int output_check(const compute_options *o, long flows);
/* The flow file name for the pair whose first frame has number n (empty
 * without -o). */
int output_name(const compute_options *o, long n, char *buf, size_t size);
/* Before anything is computed: the files of the pair numbered n (the flow
 * file, its .params, the pictures) can be written (output_check_target);
 * the directory of --flow-images is made. */
int output_check_targets(const compute_options *o, long n);
/* Writes the flow file `name` (none when empty), its .params (`params`,
 * the header lines in `header`), the colour / vector pictures and the flow
 * images the options ask for (the images numbered `index`, the flow's
 * place in the run from 1; DIR/flow.params with the first), with the
 * files of `extra` (the pair's workflow images, or NULL; taken over), as
 * one group: all of them appear or none. */
int output_write(const compute_options *o, const char *name, long index, const flow_field *f,
                 const flow_image *frame1, const char *header, const flow_params *params,
                 output_group *extra);

/* The same writes by a pool of threads (writer.c), overlapping the
 * computation.  The queue owns the flow fields (page-locked for d, so that
 * downloads run at the bus's speed): output_queue_field waits for a free
 * one (`held`: how many the caller may hold at once besides those being
 * written), the caller computes into it and either puts it with its job or
 * drops it.  put and field return the exit code of an earlier failed write;
 * finish waits for the writes, stops the threads, gives the milliseconds
 * spent writing (summed over the writers) and waited for (either may be
 * NULL) and returns the first failure's exit code. */
typedef struct output_queue output_queue;
int output_queue_start(const compute_options *o, flow_device *d, int held, output_queue **out);
int output_queue_field(output_queue *q, int width, int height, flow_field **field);
int output_queue_put(output_queue *q, const char *name, long index, flow_field *field,
                     const flow_image *frame1, const char *header, const flow_params *params,
                     output_group *extra);
void output_queue_drop(output_queue *q, flow_field *field);
int output_queue_writers(const output_queue *q);
int output_queue_finish(output_queue *q, double *write_ms, double *wait_ms, double *last_ms);
/* A field the computation downloads into every pair: page-locked, its
 * download runs at the bus's speed (only an optimisation: a field that
 * cannot be pinned stays ordinary memory).  Unpin before freeing. */
void field_pin(flow_device *d, flow_field *f);
void field_unpin(flow_device *d, flow_field *f);

/* ---- workflow images (workflow.c) -------------------------------------- */

typedef struct workflow workflow;

int workflow_open(const char *dir, workflow **out);
void workflow_close(workflow *w);
/* Starts the images of one pair: in DIR itself when `single`, else in
 * DIR/NNNN (the pair's number). */
int workflow_begin_pair(workflow *w, long number, int single);
/* One step: a plane (downloaded by the library) normalised to 0..255 (the
 * observer's workflow hook). */
void workflow_plane(workflow *w, const char *name, const float *data, int width, int height);
/* A host image (the input frames) as one step. */
void workflow_image(workflow *w, const char *name, const flow_image *img);
/* The final flow, colour coded, as the last step; then writes the index
 * and returns the first error of the pair.  The pair's files (written under
 * temporary names) go to *files, for the caller to commit with the pair's
 * other outputs; after a failure they are removed and *files is NULL. */
int workflow_end_pair(workflow *w, const flow_field *f, output_group **files);

/* ---- the computation (run.c) ------------------------------------------- */

int run_compute(const compute_options *o);

#endif
