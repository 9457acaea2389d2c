/* atomic_file.h -- whole-or-nothing file output, for the library's writers
 * and the tools' text files alike.
 *
 * flow_atomic_open opens a temporary file beside `path` (kept by pointer: it
 * must outlive the writer); flow_atomic_commit closes it and renames it over
 * `path`, or removes it and fails; flow_atomic_abort removes it.  A target
 * that exists and is not a regular file (a device, a pipe, a symbolic link
 * such as /dev/stdout) is written directly instead.  Writers that cannot take a FILE * (OpenCV) write to
 * flow_atomic_tmpname() and then call flow_atomic_rename(). */
#ifndef FLOW_ATOMIC_FILE_H
#define FLOW_ATOMIC_FILE_H

#include "flow/status.h"

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct flow_atomic {
    FILE *f;
    const char *path;
    char tmp[4096]; /* empty when the target is written directly */
} flow_atomic;

flow_status flow_atomic_open(flow_atomic *a, const char *path);
flow_status flow_atomic_commit(flow_atomic *a);
void flow_atomic_abort(flow_atomic *a);
flow_status flow_atomic_tmpname(const char *path, char *tmp, size_t size);
flow_status flow_atomic_rename(const char *tmp, const char *path);

#ifdef __cplusplus
}
#endif
#endif
