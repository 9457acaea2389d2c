/* internal.h -- helpers shared by the library's own files, not installed. */
#ifndef FLOW_INTERNAL_H
#define FLOW_INTERNAL_H

#include "flow/atomic_file.h"
#include "flow/backend.h"
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

/* Argument checks that every backend makes (backend.c): a system with a
 * right-hand side needs f; a convolution takes 1..FLOW_BATCH_MAX planes of
 * one size. */
flow_status flow_check_rhs(const flow_system *s, const flow_pair *f, const char *op);
flow_status flow_check_batch(flow_plane *const *dst, const flow_plane *const *src, int n);

#ifdef __cplusplus
}
#endif
#endif
