/* status.c -- status names and the per-thread error detail. */
#include "flow/status.h"
#include "base/fail.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char last_error[1024];

const char *flow_status_str(flow_status s)
{
    static const char *const names[FLOW_STATUS_COUNT] = {
        [FLOW_OK] = "ok",
        [FLOW_ERR_NOMEM] = "out of memory",
        [FLOW_ERR_INVALID] = "invalid argument",
        [FLOW_ERR_IO] = "input/output error",
        [FLOW_ERR_FORMAT] = "bad file format",
        [FLOW_ERR_SIZE] = "bad size",
        [FLOW_ERR_UNSUPPORTED] = "not supported by this build",
        [FLOW_ERR_NO_DEVICE] = "no usable device",
        [FLOW_ERR_DEVICE] = "device error",
    };
    if ((unsigned)s >= FLOW_STATUS_COUNT)
        return "unknown status";
    return names[s];
}

const char *flow_last_error(void)
{
    return last_error;
}

flow_status flow_fail(flow_status s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return s;
}
