/* bench.h -- what the parts of bench_methods (tests/bench/bench_methods.c,
 * the per-method table and main, and the tables of this directory) share:
 * the device under benchmark with its counting operations table, the
 * events around a frame's device work, and the tables' entry points. */
#ifndef BENCH_METHODS_BENCH_H
#define BENCH_METHODS_BENCH_H

#include "harness.h"
#include "device/device.h"
#include "flow/flow.h"

#include <stddef.h>

#define MAX_RUNS 400 /* the most timed runs of a row */

typedef struct size {
    int w, h, channels;
} size;

/* A row of the per-method table: a method with its solver, sweeps,
 * warping levels or preset (NULL or 0: the method's default). */
typedef struct method_run {
    const char *name;
    const char *method;
    const char *solver; /* hs, clg, clg-nl */
    int iterations;
    int warp_levels;
    const char *preset; /* dis */
} method_run;

/* ---- common.c ---- */
extern flow_device *bench_dev; /* the device of FLOW_DEVICE, opened by main */
/* recorded at the first stage on the device and at the download */
extern flow_event *ev_tensor, *ev_download;
/* The observer's stage callbacks that record ev_tensor and ev_download and
 * mark the upload (in_upload). */
void on_stage(void *user, const char *name);
void on_stage_done(void *user, const char *name);
/* The median of v[0 .. n - 1] (the upper one of an even n); sorts v. */
double median(double *v, int n);
/* A monotonic clock in milliseconds. */
double now_ms(void);
/* f as 8-bit samples in *b (allocated here): 1, or 0 when the allocation
 * fails. */
int to_bytes(const flow_image *f, flow_image8 *b);

/* ---- counting.c ---- */
extern const flow_device_ops *real_ops; /* the device's own operations table */
/* what the operations since the last reset moved: device bytes, host
 * bytes through upload and download, launches */
extern double dev_bytes, host_bytes, launches;
/* inside the stage "upload": the device work of the transfers (the frames
 * unpacked and moved on the device) is not the frame's computation */
extern int in_upload;
/* Puts the counting table in d's place (real_ops keeps d's own). */
void install_counting(flow_device *d);
/* The device-to-device bandwidth in GB/s (bytes read plus written):
 * FLOW_BW_GBS, else measured with a large copy (*measured 1; NAN when that
 * fails). */
double bandwidth_gbs(int *measured);

/* ---- bench_methods.c ---- */
/* The parameters of run r (FLOW_BENCH_PARAMS applied); NULL, the error
 * printed, when one is refused.  The caller destroys them. */
flow_params *run_params(const method_run *r);

/* ---- the tables: each prints its table; those returning a number return
 * how many of its rows failed ---- */
void stage_table(int quick);                 /* stages.c: robust's and dis's stages */
int epic_stage_tables(int quick, double bw); /* stages.c: epic's stages one by one */
int klt_table(double bw, int quick);         /* klt.c */
int conc_table(int quick);                   /* concurrent.c */
int both_table(int quick);                   /* both.c */

#endif
