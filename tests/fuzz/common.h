/* common.h -- what the libFuzzer harnesses of tests/fuzz/ share: the
 * input written to a scratch file (every reader takes a path), property
 * checks that abort with a message (libFuzzer reports an abort as a crash
 * and keeps the input), and the checks every refused input must pass.
 *
 * A harness is one file, fuzz_<reader>.c, defining LLVMFuzzerTestOneInput;
 * it feeds the input to one reader of libflow and checks properties of
 * what comes back (docs/FUZZING.md lists them): a refusal has a valid
 * status and a message naming the file, and leaves nothing allocated; an
 * accepted file has sizes in bounds, and what the project's writer makes
 * of it reads back as the same data. */
#ifndef FLOW_FUZZ_COMMON_H
#define FLOW_FUZZ_COMMON_H

#include "flow/flow.h"

#include <stddef.h>
#include <stdint.h>

/* "<scratch directory>/<name>": one directory per process (in TMPDIR, else
 * /dev/shm, else /tmp), made on first use and removed at exit; the path is
 * valid until the next call. */
const char *fuzz_path(const char *name);
/* Writes data[0..n) as the scratch file `name` and returns its path. */
const char *fuzz_write(const char *name, const uint8_t *data, size_t n);
/* The whole file at path, malloc'd (the caller frees it), its length in
 * *n; aborts when it cannot be read. */
uint8_t *fuzz_slurp(const char *path, size_t *n);

/* Aborts, printing the property that failed and where, unless ok. */
void fuzz_require(int ok, const char *what, const char *file, int line);
#define FUZZ_REQUIRE(cond) fuzz_require(!!(cond), #cond, __FILE__, __LINE__)

/* The checks of a refusal: s is one of the statuses given (a 0-terminated
 * list of flow_status values other than FLOW_OK) and flow_last_error()
 * names `path`. */
void fuzz_refused(flow_status s, const char *path, const flow_status *allowed);

/* Whether two floats have the same bits (NaN payloads and -0 included). */
int fuzz_same_bits(float a, float b);

#endif
