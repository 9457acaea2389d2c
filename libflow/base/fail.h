/* fail.h -- how the library's own files report failure: a status code and a
 * one-line detail for flow_last_error(), and the early return that threads
 * a status up the call chain.  Not installed. */
#ifndef FLOW_BASE_FAIL_H
#define FLOW_BASE_FAIL_H

#include "flow/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Records a printf-style detail for flow_last_error() and returns s, so that
 * a failure reads `return flow_fail(FLOW_ERR_IO, "%s: %s", path, why);`. */
flow_status flow_fail(flow_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Evaluates a status expression and returns it from the caller on failure. */
#define FLOW_TRY(expr)                                                        \
    do {                                                                      \
        flow_status flow_try_s_ = (expr);                                     \
        if (flow_try_s_ != FLOW_OK)                                           \
            return flow_try_s_;                                               \
    } while (0)

/* The part of path after the last '.' of its last component ("" for none,
 * and for a name that only starts with a dot) (path.c). */
const char *flow_path_extension(const char *path);

#ifdef __cplusplus
}
#endif
#endif
