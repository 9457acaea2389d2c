/* harness.h -- the unit-test harness: CHECK macros, a runner that prints
 * "N passed, N failed", the device under test (FLOW_DEVICE=cpu|cuda),
 * where the evaluation data lives (FLOW_DATA, default ../shared/data), and
 * the scratch-file helpers the tests share (paths, whole-file write and
 * read).  harness.sh is the same for the CLI test scripts. */
#ifndef FLOW_TEST_HARNESS_H
#define FLOW_TEST_HARNESS_H

#include "flow/flow.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>

extern int harness_failed_checks; /* failed CHECKs of the running test */

void harness_check(int ok, const char *file, int line, const char *expr);
void harness_check_near(double got, double want, double tol, const char *file, int line,
                        const char *expr);
/* Runs fn as the test `name`, unless FLOW_TEST_ONLY is set and is not part
 * of the name ("=NAME": that name exactly), e.g. to run one test under
 * compute-sanitizer.  With FLOW_TEST_LIST set, prints "PARTS NAME" instead
 * of running it (and harness_report prints nothing).  `parts` > 1 says the
 * test is that many independent computations, its loop asking
 * harness_in_part(i) before each: FLOW_TEST_PART=K (0 <= K < parts) then
 * runs only those with i % parts == K, so that a slow test can be spread
 * over several processes (scripts/gpu-check.sh does under the sanitizer). */
void harness_run(const char *name, void (*fn)(void), int parts);
/* Whether computation i of the running test belongs to the part that
 * FLOW_TEST_PART selects (always, when it is unset). */
int harness_in_part(int i);
/* Marks the running test skipped (with the reason) instead of passed. */
void harness_skip(const char *why);
/* Prints "N passed, N failed[, N skipped]" and returns the exit status. */
int harness_report(void);

/* The device named by FLOW_DEVICE (default cpu), opened once; NULL after a
 * failed CHECK when it cannot be opened. */
flow_device *harness_device(void);
/* The parameters of `method` (NULL: the default method) with the settings
 * "key=value key=value ..." applied; a failed CHECK names what was refused.
 * The caller destroys the object. */
flow_params *harness_params(const char *method, const char *settings);
/* Sets "key=value key=value ..." on p; 0 (each refusal printed) when one
 * is refused, without a CHECK. */
int harness_params_apply(flow_params *p, const char *settings);
/* The evaluation data directory, or NULL when it is absent. */
const char *harness_data_dir(void);
/* The same for a test that needs the data: when it is absent, marks the
 * running test skipped (saying why) and returns NULL. */
const char *harness_need_data(void);
/* Writes "<harness_data_dir()>/<rel>" into buf[size]; returns 1 when that
 * file exists, 0 when it (or the data directory) does not. */
int harness_data_file(char *buf, size_t size, const char *rel);
/* A pair of the evaluation data with its ground truth (and a mask). */
typedef struct harness_pair {
    flow_image a, b; /* gray unless read with colour (then a colour file keeps its channels) */
    flow_field gt;
    flow_image mask; /* when has_mask */
    int has_mask;
} harness_pair;
/* Reads the files f1, f2, gt and mask (NULL: none), paths relative to dir;
 * returns 0 when f1 is absent (the pair is not in the data), else 1, a
 * failed CHECK naming any other file that cannot be read. */
int harness_read_pair(const char *dir, const char *f1, const char *f2, const char *gt,
                      const char *mask, int colour, harness_pair *out);
void harness_pair_free(harness_pair *p);
/* A generated pair: frames 0 and 1 of s at w x h, one channel, and its
 * flow (no mask), checked. */
void harness_synth_pair(const flow_synth *s, int w, int h, harness_pair *p);
/* The flow of a generated pair (frames 0 and 1 of s, w x h, `channels`)
 * by `method` with the settings: its AEE against the exact flow over the
 * pixels at least `margin` from the border, INFINITY (the error printed)
 * when the computation fails.  The flow goes to *keep (allocated here)
 * unless keep is NULL. */
double harness_synth_aee(const char *method, const flow_synth *s, int w, int h, int channels,
                         const char *settings, int margin, flow_field *keep);
/* A scratch directory for files a test writes (created once, per process). */
const char *harness_tmpdir(void);
/* "<harness_tmpdir()>/<name>", in one of 8 static buffers used in turn (so
 * a path stays valid for the next 7 calls). */
const char *harness_path(const char *name);
/* Writes n bytes of data as the file path; CHECKs that it opens and that
 * every byte is written. */
void harness_write_file(const char *path, const void *data, size_t n);
/* The whole file in a malloc'd buffer (the caller frees it) with a '\0'
 * after the last byte, its length in *n; NULL and *n = 0 when it cannot be
 * opened or read. */
unsigned char *harness_read_file(const char *path, size_t *n);
/* The size of path in bytes, or -1 when it does not exist. */
long harness_file_size(const char *path);
/* How many entries of harness_tmpdir() have `part` in their name. */
int harness_count_files(const char *part);
/* A copy of the environment variable `name` (NULL when it is unset), for
 * harness_env_restore, which puts that value back (or unsets it) and frees
 * the copy: around a test that sets the variable. */
char *harness_env_save(const char *name);
void harness_env_restore(const char *name, char *saved);
/* Uniform pseudo-random numbers in [0, 1) from a fixed seed (reproducible). */
double harness_uniform(unsigned *state);

#define CHECK(cond) harness_check(!!(cond), __FILE__, __LINE__, #cond)
#define CHECK_NEAR(got, want, tol)                                                           \
    harness_check_near((got), (want), (tol), __FILE__, __LINE__, #got " ~ " #want)
#define CHECK_OK(expr)                                                                       \
    do {                                                                                     \
        flow_status check_ok_s_ = (expr);                                                    \
        harness_check(check_ok_s_ == FLOW_OK, __FILE__, __LINE__, #expr);                    \
        if (check_ok_s_ != FLOW_OK)                                                          \
            fprintf(stderr, "    -> %s: %s\n", flow_status_str(check_ok_s_),                 \
                    flow_last_error());                                                      \
    } while (0)
#define RUN(fn) harness_run(#fn, fn, 1)
#define RUN_PARTS(fn, parts) harness_run(#fn, fn, parts)

#endif
