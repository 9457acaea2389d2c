/* status.h -- the status codes every libflow function returns.
 *
 * The library never prints and never exits.  A function that fails returns
 * one of these codes and records a one-line detail (which file, which value,
 * what was expected) that the caller may read with flow_last_error().  The
 * enum values are stable: tools map them to exit codes. */
#ifndef FLOW_STATUS_H
#define FLOW_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum flow_status {
    FLOW_OK = 0,
    FLOW_ERR_NOMEM,       /* host or device allocation failed */
    FLOW_ERR_INVALID,     /* an argument or parameter is out of range */
    FLOW_ERR_IO,          /* a file could not be opened, read or written */
    FLOW_ERR_FORMAT,      /* a file is corrupt, truncated or of the wrong kind */
    FLOW_ERR_SIZE,        /* dimensions are absurd or do not match */
    FLOW_ERR_UNSUPPORTED, /* the feature was not built in (OpenCV, video, ...) */
    FLOW_ERR_NO_DEVICE,   /* a GPU or other accelerator was asked for and none is usable */
    FLOW_ERR_DEVICE,      /* the device's runtime (CUDA, ...) reported an error */
    FLOW_STATUS_COUNT
} flow_status;

/* A short constant name for a status ("out of memory", ...); never NULL. */
const char *flow_status_str(flow_status s);

/* The detail recorded by the last failing libflow call of this thread, for
 * example "yos.flo: header claims 100000x100000 pixels (limit 2^28)".  Empty
 * when nothing failed yet.  Valid until the next libflow call of the thread. */
const char *flow_last_error(void);

#ifdef __cplusplus
}
#endif
#endif
