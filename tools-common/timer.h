/* timer.h -- the hierarchical timer of seed 001 section 5.1.3 (figures 5.3
 * and 5.4) that the tools share (flow-compute, flow-track): stages
 * bracketed by the library's observer hooks and by the tool itself, timed
 * with the device's events and read once per frame; a report on a stream
 * and a CSV file (the format is in docs/flow-compute.md).
 *
 * Conventions as in cli.h: functions that can fail print their own message
 * on stderr and return an exit code (CLI_EXIT_*). */
#ifndef FLOW_TOOLS_TIMER_H
#define FLOW_TOOLS_TIMER_H

#include "flow/device.h"

#include <stdio.h>

/* Milliseconds on the monotonic clock: the difference of two calls is the
 * wall time between them. */
double ftimer_now_ms(void);

typedef struct ftimer ftimer;

/* A timer on device d that times stages down to `depth` levels below the
 * total (0: the total only); keep_samples keeps every frame's figures for
 * medians. */
int ftimer_create(flow_device *d, int depth, int keep_samples, ftimer **out);
void ftimer_destroy(ftimer *t);
void ftimer_stage_begin(ftimer *t, const char *name);
void ftimer_stage_end(ftimer *t, const char *name);
/* Bracket one computation (the TOTAL node); frame_end resolves the events
 * recorded in between (this waits for the device, once per frame). */
int ftimer_frame_begin(ftimer *t);
int ftimer_frame_end(ftimer *t);
/* Mean milliseconds per frame of the top-level stage `name` (0 if none). */
double ftimer_stage_mean(const ftimer *t, const char *name);
long ftimer_samples(const ftimer *t);
/* The report of seed 001 figures 5.3 and 5.4 for frames of `pixels`. */
void ftimer_report(const ftimer *t, FILE *f, long pixels);
/* The same as CSV for scripts (docs/flow-compute.md); `meta` goes in a
 * leading '#' line. */
int ftimer_write_csv(const ftimer *t, const char *path, long pixels, const char *meta);
/* What --timing and --timing-file ask for: with `print`, the line `title`
 * and the report on stdout; with `path`, the CSV (and, when verbose, a
 * line on stderr saying it was written). */
int ftimer_output(const ftimer *t, int print, const char *path, long pixels, const char *title,
                  const char *meta, int verbose);

#endif
