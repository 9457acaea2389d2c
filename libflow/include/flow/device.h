/* device.h -- where a computation runs: the CPU, or a GPU (CUDA).
 *
 * A device is opened by name and handed to flow_context_create(); every
 * buffer of a context lives on its device.  The device itself is opaque: its
 * memory and operations are the library's business.  What a caller gets
 * here is its name, page-locked host memory for fast transfers, and timing
 * events that measure the device's own work.
 *
 * One device may serve several contexts and trackers, each driven from a
 * thread of its own: each queues its work on a queue of its own on the
 * device (on a GPU its own streams), so that their work runs at the same
 * time; a context or tracker serves one thread at a time.  Two devices
 * (cuda:0 and cuda:1, say) may be driven from one thread or from a thread
 * each: every call selects its own GPU first. */
#ifndef FLOW_DEVICE_H
#define FLOW_DEVICE_H

#include "flow/status.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct flow_device flow_device;

/* Opens a device from a spec: "auto" (CUDA when a usable GPU is present,
 * else the CPU, with a notice saying why), "cpu", "cuda" or "cuda:N".  An
 * explicit "cuda" without a usable GPU is FLOW_ERR_NO_DEVICE; an unknown
 * spec FLOW_ERR_INVALID.  Returns FLOW_OK and *out, or a status with
 * *out == NULL.
 * The CPU device has threads of its own: FLOW_THREADS from the environment
 * when it is set (1 to 1024; FLOW_ERR_INVALID otherwise), else one per CPU
 * the process may run on.  They sleep while the device is idle, and
 * operations on small grids run on the calling thread alone. */
flow_status flow_device_open(const char *spec, flow_device **out);
/* Waits for the device's work and frees it; contexts on it go first. */
void flow_device_close(flow_device *d);

/* Its backend: "cpu" or "cuda". */
const char *flow_device_kind(const flow_device *d);
/* "CPU (16 threads)", "NVIDIA H100 80GB HBM3 (cuda:0, sm_90)", ... */
const char *flow_device_name(const flow_device *d);
/* Empty, or (after "auto" fell back to the CPU) why: print it once. */
const char *flow_device_notice(const flow_device *d);
/* The backends this build contains: the i-th for i = 0, 1, ... ("cpu"
 * first, then "cuda" where built), NULL past the last. */
const char *flow_device_backend(int i);
/* Whether this build contains the backend `kind` ("cpu", "cuda"): 1 or 0. */
int flow_device_has_backend(const char *kind);
/* flow_device_has_backend("cuda"), kept for existing callers. */
int flow_device_has_cuda(void);
/* How many devices of a backend may be opened: "cuda" the GPUs the driver
 * shows (0 without a driver or in a build without CUDA, so "cuda:N" for N
 * below it), "cpu" 1, anything else 0. */
int flow_device_count(const char *kind);

/* The longest spec flow_device_list writes, its terminating 0 included. */
#define FLOW_DEVICE_SPEC_MAX 32
/* The devices a list names, for a caller that runs several (flow-compute's
 * --device): entries separated by commas, each a spec of flow_device_open
 * but "auto"; "KIND:all" is every device of a backend ("cuda:all": every
 * GPU), and a bare number after a "KIND:N" entry another device of that
 * backend ("cuda:0,1" is cuda:0 and cuda:1).  A single spec is a list of
 * one.  Writes their specs into specs[0 .. *n - 1] (at most max) and
 * returns FLOW_OK; FLOW_ERR_INVALID for an empty entry, "auto", an unknown
 * name or more than max devices; FLOW_ERR_NO_DEVICE for "KIND:all" when
 * none is present (the detail says why).  Opens nothing. */
flow_status flow_device_list(const char *list, char (*specs)[FLOW_DEVICE_SPEC_MAX], int max,
                             int *n);

/* Opens the devices a list names, for a caller that runs several (a
 * flow_spread, flow-compute's --device): a single name (no comma, no
 * "KIND:all") is opened as flow_device_open opens it, "auto" included;
 * a list is expanded by flow_device_list and each device it names is
 * opened once: entries naming one device share its handle ("cpu,cpu",
 * "cuda:0,0": one device twice, whose contexts work on queues of their
 * own).  Writes the handles into out[0 .. *n - 1] (at most max) and returns
 * FLOW_OK; otherwise the status of flow_device_list, or of the device that
 * could not be opened with a detail naming it ("cuda:1: ..."), and nothing
 * stays open. */
flow_status flow_devices_open(const char *list, flow_device **out, int max, int *n);
/* Closes the n handles of flow_devices_open, each device once. */
void flow_devices_close(flow_device **d, int n);

/* Page-locks host memory that is transferred every frame (an output flow
 * field, say): on CUDA the transfers then run at the bus's speed instead of
 * through a staging copy, on every GPU of the machine.  A no-op on the CPU.  Unpin before freeing the
 * memory; unpinning memory never pinned is harmless. */
flow_status flow_device_pin(flow_device *d, void *p, size_t bytes);
void flow_device_unpin(flow_device *d, void *p);

/* Memory of the GPU itself, for callers whose frames and flows stay there
 * (flow_context_submit_device, flow_context_set_device_output; GPU arrays
 * of CuPy or PyTorch).  flow_device_alloc gives `bytes` of the GPU's
 * memory (FLOW_ERR_NOMEM when they do not fit); flow_device_free frees it
 * (NULL is ignored) and may be called after the contexts on d are gone.
 * On a device without memory of its own (the CPU) flow_device_alloc is
 * FLOW_ERR_UNSUPPORTED. */
flow_status flow_device_alloc(flow_device *d, size_t bytes, void **p);
void flow_device_free(flow_device *d, void *p);
/* N of "cuda:N"; 0 on the CPU. */
int flow_device_index(const flow_device *d);
/* FLOW_OK when p lies in the memory of d's GPU; else FLOW_ERR_INVALID with
 * a detail naming `what` and where p lies instead ("frame1 lies on cuda:1,
 * the device is cuda:0"; "... lies in host memory"), or
 * FLOW_ERR_UNSUPPORTED on a device without memory of its own (the CPU). */
flow_status flow_device_check_pointer(flow_device *d, const void *p, const char *what);

/* Waits for all work queued on the device, by any of its contexts and
 * trackers; reports an asynchronous device error. */
flow_status flow_device_synchronize(flow_device *d);

/* Timing markers queued in order with the device's work (CUDA events on a
 * GPU, the host clock on the CPU).  On a GPU a marker is reached when the
 * work that every context and tracker of the device had queued when it was
 * recorded is done; on the CPU, whose operations are done when they return,
 * it is the time of the recording.  flow_event_elapsed waits for `end` and
 * gives the milliseconds between the two recorded markers. */
typedef struct flow_event flow_event;
flow_status flow_event_create(flow_device *d, flow_event **out);
void flow_event_destroy(flow_event *e);
flow_status flow_event_record(flow_event *e);
flow_status flow_event_elapsed(const flow_event *start, const flow_event *end, float *ms);

#ifdef __cplusplus
}
#endif
#endif
