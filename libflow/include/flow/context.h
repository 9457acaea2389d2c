/* context.h -- computing dense flow fields.
 *
 * A context holds every buffer of one method for one frame size on one
 * device, and is reused frame after frame: nothing is allocated inside
 * flow_context_compute().  It queues its work on a queue of its own on the
 * device, so that several contexts of one device, each used from its own
 * thread, compute at the same time (one context serves one thread at a
 * time).
 *
 *   flow_device *d;  flow_params *p;  flow_context *ctx;
 *   flow_device_open("auto", &d);
 *   flow_params_create("clg-nl", &p);
 *   flow_context_create(d, w, h, 1, p, &ctx);
 *   flow_context_compute(ctx, &frame1, &frame2, &field);   // again and again
 *   flow_context_destroy(ctx); flow_params_destroy(p); flow_device_close(d); */
#ifndef FLOW_CONTEXT_H
#define FLOW_CONTEXT_H

#include "flow/device.h"
#include "flow/field.h"
#include "flow/image.h"
#include "flow/params.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Hooks through which a tool watches a computation; any may be NULL.  The
 * library brackets each stage (nested: "motion tensor", "solve" > "fmg" >
 * ..., "warping", ...) with stage_begin/stage_end, emits the multigrid trace
 * (in the form of Moussu 2010, appendix B) line by line through trace, and
 * hands each intermediate plane to workflow, downloaded to the host (width x
 * height floats, row-major; valid during the call), only when that is set. */
typedef struct flow_observer {
    void *user;
    void (*stage_begin)(void *user, const char *name);
    void (*stage_end)(void *user, const char *name);
    void (*trace)(void *user, const char *line);
    void (*workflow)(void *user, const char *name, const float *data, int width, int height);
} flow_observer;

typedef struct flow_context flow_context;

/* Allocates every buffer for frames of width x height with `channels`
 * channels (1 or 3) for the method of p on device d.  p is copied. */
flow_status flow_context_create(flow_device *d, int width, int height, int channels,
                                const flow_params *p, flow_context **out);
void flow_context_destroy(flow_context *ctx);
/* The parameters as the context runs them: p's, with the level counts the
 * frame size does not allow (warp_levels, levels, max_depth, finest)
 * reduced to those used.  Written to a .params file they reproduce the
 * computation exactly and say what it did.  Valid until the context is
 * destroyed. */
const flow_params *flow_context_params(const flow_context *ctx);
void flow_context_set_observer(flow_context *ctx, const flow_observer *obs);

/* The flow from f1 to f2 (both of the context's size and channels) into out
 * (of the context's size; allocate it once with flow_field_alloc).
 *
 * Every float frame given to a context (compute, compute_next, submit) must
 * hold finite values of magnitude at most FLOW_IMAGE_VALUE_MAX (image.h:
 * beyond it the methods' products overflow float).  A frame that does not
 * is refused with FLOW_ERR_INVALID before any device work, the detail
 * naming the frame (the pair's first or second), the first bad value and
 * its pixel: "second frame has a non-finite value (nan) at pixel (3, 4),
 * channel 0: ...".  A method has no notion of unknown pixels in its input:
 * give it finite values (fill the holes) instead.  The check is one read of
 * the host frame; 8-bit frames (submit8) need none.  A frame refused by a
 * check (size, channels, values) changes nothing in the context. */
flow_status flow_context_compute(flow_context *ctx, const flow_image *f1, const flow_image *f2,
                                 flow_field *out);
/* The next pair of a sequence: the flow from the second frame of the last
 * successful compute to `next`, with one frame uploaded instead of two (the
 * other is kept on the device).  It is exactly what flow_context_compute
 * (ctx, that frame, next, out) gives, except for a method that also reads
 * frames before the first (flow_context_frames > 2): in a sequence, from
 * its second flow on, that method also matches the frames before the pair
 * that the sequence has, which a pair alone does not have.
 * FLOW_ERR_INVALID before the first successful compute, or after one that
 * failed while it ran. */
flow_status flow_context_compute_next(flow_context *ctx, const flow_image *next,
                                      flow_field *out);

/* Sequences at the device's pace.  flow_context_submit queues the work of
 * a frame and returns without waiting for it: the frame's upload, the flow
 * from the frame before it (the kept frame) and the flow's download run on
 * the device while the caller reads the next frame and writes the last
 * flow; on a GPU the upload and download overlap the computation of the
 * flow before and after.  flow_context_collect waits for the oldest queued
 * flow.
 *   - out == NULL: `frame` only becomes the kept frame, the first of a
 *     sequence (frames kept before it no longer count); nothing is queued.
 *   - otherwise the flow from the kept frame to `frame` is queued into out
 *     and `frame` becomes the kept frame.  FLOW_ERR_INVALID with no kept
 *     frame or FLOW_CONTEXT_DEPTH flows already queued.  A method that
 *     reads frames before the first gets those before the kept one that
 *     the sequence has (from its second flow on).
 * Until collect hands out the flow, `out` and the frame submitted with it
 * belong to the context: the transfers read and write them later when they
 * lie in page-locked memory (flow_device_pin; ordinary memory works too,
 * its transfers just do not overlap).  *device_ms (when not NULL) is the
 * device time of the collected flow, from its frame's conversion to its
 * result, the upload and download overlapped around it not included.
 * flow_context_submit8 takes 8-bit frames, which cross the bus as bytes and
 * are converted on the device (four times fewer bytes than floats).
 * A failed submit or collect drops the flows still queued and the kept
 * frame.  flow_context_compute and compute_next are a submit and a collect
 * (FLOW_ERR_INVALID while flows are queued).  With an observer whose
 * stage hooks are set, the transfers run in order with the computation, so
 * that the stages "upload" and "download" time them.  Three in flight keep
 * one context's device busy while the host reads and writes, even when a
 * flow's download takes as long as its computation (a small flow computed
 * fast: the host collects the oldest while the next two compute); more
 * streams at once are more contexts, each on its own queue. */
#define FLOW_CONTEXT_DEPTH 3
flow_status flow_context_submit(flow_context *ctx, const flow_image *frame, flow_field *out);
flow_status flow_context_submit8(flow_context *ctx, const flow_image8 *frame, flow_field *out);
flow_status flow_context_collect(flow_context *ctx, flow_field **out, float *device_ms);
/* The number of flows queued and not collected. */
int flow_context_queued(const flow_context *ctx);

/* ---- frames and flows in the GPU's memory --------------------------------
 *
 * On a CUDA device, frames that are already on the GPU (a caller's own
 * kernels, CuPy or PyTorch arrays) are handed over without a host copy,
 * and the flows may be written into the GPU's memory instead of being
 * downloaded.  The memory must be the context's GPU's (flow_device_alloc,
 * or the caller's own allocations there): another GPU's or host memory is
 * refused with FLOW_ERR_INVALID (flow_device_check_pointer's detail); on
 * the CPU these calls are FLOW_ERR_UNSUPPORTED.
 *
 * A device frame is width x height pixels of `channels` samples (1 or 3),
 * uint8 (0..255) or float32, the samples of a pixel together and the rows
 * packed one after the other: an H x W x C array in C order. */
typedef struct flow_device_frame {
    const void *data;
    int width, height, channels;
    int bytes; /* 1: uint8 samples, 0: float32 */
} flow_device_frame;

/* flow_context_submit for a frame in the GPU's memory: the frame is read
 * on the device, in order with the context's queue (after what
 * flow_context_after_stream made it wait for), and converted there to the
 * context's planes exactly as an uploaded frame of the same samples is.  A
 * float frame's values are checked on the device as flow_context_submit
 * checks a host frame's, with the same detail when one fails (the check
 * waits for the device).  As with a host frame, the frame belongs to the
 * context until the flow submitted with it is collected (a first frame:
 * until the next submit, or flow_device_synchronize). */
flow_status flow_context_submit_device(flow_context *ctx, const flow_device_frame *frame,
                                       flow_field *out);

/* With `on` set, the out fields of the flows submitted from then on (by
 * every submit, compute and compute_next) lie in the GPU's memory: u and v
 * each width x height floats, rows packed.  The flow is copied into them
 * on the device, in order with the context's queue, instead of being
 * downloaded, and is there when collect hands it out.  The extra output
 * planes go where they were requested: to the host
 * (flow_context_request_output) or to the GPU's memory
 * (flow_context_request_output_device).  Set while no flow is queued
 * (FLOW_ERR_INVALID otherwise). */
flow_status flow_context_set_device_output(flow_context *ctx, int on);

/* The work the context queues from now on waits, on the device and not on
 * the host, for the work queued so far on the caller's CUDA stream
 * `stream` (a cudaStream_t as an integer of the context's GPU; 1 and 2 are
 * CUDA's legacy and per-thread default streams): frames that stream is
 * writing are read once written, and an output field it is still reading
 * is written after.  FLOW_ERR_DEVICE for a stream CUDA refuses. */
flow_status flow_context_after_stream(flow_context *ctx, uintptr_t stream);

/* The root-mean-square residual |f - N(x)| per pixel of the finest-grid
 * system at the flow of the last compute (the variational methods; for a
 * nonlinear one the weights are those of that flow).  Waits for the device.
 * FLOW_ERR_INVALID for a method without a global system (lk) or before the
 * first compute. */
flow_status flow_context_residual(flow_context *ctx, double *rms);

/* ---- what a method reads and returns beyond a pair and its flow ---------
 *
 * The frames: the number a method reads where a sequence has them (2: the
 * pair; more: the pair and the frames before the first, which the context
 * keeps as a sequence goes on).  It may depend on the parameters. */
int flow_context_frames(const flow_context *ctx);

/* Optional inputs, for the methods that declare them; each applies to the
 * flows computed after it is set, until it is set again or cleared, and is
 * set while no flow is queued (FLOW_ERR_INVALID otherwise, and for a method
 * that does not take it, the detail naming the method).
 *
 * An initial flow (flow_context_takes_init): the method refines `init` (of
 * the context's size, a finite vector at every pixel) instead of starting
 * from nothing; with `confidence` (NULL: trusted everywhere; else width x
 * height values in [0, 1]) it also computes its own flow and starts from
 * c init + (1 - c) own (docs/API.md says where each method applies it).
 * init NULL clears it.  FLOW_ERR_SIZE for a field of another size; FLOW_ERR_INVALID for an
 * unknown or non-finite vector or a confidence outside [0, 1], naming the
 * pixel.  The values are copied to the device before the call returns. */
int flow_context_takes_init(const flow_context *ctx);
flow_status flow_context_set_init(flow_context *ctx, const flow_field *init,
                                  const float *confidence);

/* Sparse matches (flow_context_takes_matches): n points of the first frame
 * (x, y in pixels, inside the frame), their displacements (u, v) to the
 * second and their weights in [0, 1]; n == 0 clears them.  FLOW_ERR_INVALID
 * for a point outside the frame, a non-finite vector or a weight outside
 * [0, 1], naming the match. */
typedef struct flow_match {
    float x, y, u, v, weight;
} flow_match;
int flow_context_takes_matches(const flow_context *ctx);
flow_status flow_context_set_matches(flow_context *ctx, const flow_match *m, int n);

/* An edge map of the first frame (flow_context_takes_edges): width x
 * height values in [0, 1], row-major, higher where an edge is stronger (a
 * structured-forest or learned edge detector's output), in place of the
 * method's own edges from the image gradient (docs/ALGORITHMS.md says how
 * epic uses it).  NULL clears it.  FLOW_ERR_INVALID for a value outside
 * [0, 1] or NaN, naming the pixel.  The values are copied to the device
 * before the call returns. */
int flow_context_takes_edges(const flow_context *ctx);
flow_status flow_context_set_edges(flow_context *ctx, const float *edges);

/* Extra output planes: the planes beyond the flow that the method leaves
 * with these parameters, each of the frames' size (docs/API.md lists each
 * method's).  None is
 * downloaded unless requested: flow_context_request_output sets dst (width x
 * height floats, row-major) to receive the plane `name` with each flow
 * computed from then on (dst NULL: no longer), written when the flow is
 * (at collect, for a submit).  The first request of a plane allocates its
 * staging buffers on the device (FLOW_ERR_NOMEM when they do not fit).
 * FLOW_ERR_INVALID for a name the method does not have. */
int flow_context_outputs(const flow_context *ctx);
const char *flow_context_output_name(const flow_context *ctx, int i);
flow_status flow_context_request_output(flow_context *ctx, const char *name, float *dst);
/* flow_context_request_output with dst in the GPU's memory (width x height
 * floats, rows packed): the plane is copied there on the device, in order
 * with the context's queue, instead of being downloaded, and is there when
 * the flow is (at collect, for a submit), whether the flow itself goes to
 * the host or to the GPU (flow_context_set_device_output).  dst NULL: no
 * longer.  dst must lie in the context's GPU's memory, as a device flow
 * does: another GPU's or host memory is FLOW_ERR_INVALID
 * (flow_device_check_pointer's detail, naming "output plane NAME"); on
 * the CPU FLOW_ERR_UNSUPPORTED.  A later request of the same plane, to
 * either side, replaces this one. */
flow_status flow_context_request_output_device(flow_context *ctx, const char *name, float *dst);

/* Both directions, occlusion and confidence.  With `enable` set, every
 * flow computed also has its backward flow (from the second frame to the
 * first: what the method computes for the pair the other way round on
 * its own, the frames before the first and the initial flow, matches or edge map
 * not used), computed on the device from the frames already there (the
 * backward run first; the forward run then takes what it made of each
 * frame alone, such as the presmoothed frames and their pyramids, instead
 * of making it again: the same values), and
 * the forward-backward test of Sundaram, Brox and Keutzer (ECCV 2010) at
 * each pixel of the first frame: the forward vector w_f fails it when
 *   |w_f + w_b(x + w_f)|^2 > a (|w_f|^2 + |w_b(x + w_f)|^2) + b,
 * w_b the backward flow sampled bilinearly at x + w_f (a relative, b in
 * pixels^2; FLOW_OCCLUSION_A and _B are the paper's values; a = 0,
 * b = t^2 is flow_fb_check with threshold t), or when x + w_f leaves the
 * frame or meets an unknown vector.  The context's output planes then
 * include, after the method's (flow_context_request_output):
 *   "backward_u", "backward_v"  the backward flow;
 *   "occlusion"   1 where the test fails (the pixel is taken for occluded
 *                 in the second frame), 0 where it passes;
 *   "confidence"  in [0, 1], higher where the vector is more likely right:
 *                 the forward-backward miss and the data residual
 *                 |I1(x + w_f) - I0(x)| combined (docs/ALGORITHMS.md);
 *   "fb_verdict"  the test's verdict (flow_fb_verdict, field.h).
 * The flow itself, the method's own output planes and the residual are
 * those of the forward flow, unchanged.  Set while no flow is queued;
 * FLOW_ERR_INVALID for a or b out of range (a in [0, 1000], b in
 * [0, 1e12]) or while flows are queued, FLOW_ERR_NOMEM when the planes do
 * not fit.  Turning it off or on forgets which planes were requested. */
#define FLOW_OCCLUSION_A 0.01
#define FLOW_OCCLUSION_B 0.5
flow_status flow_context_set_backward(flow_context *ctx, int enable, double a, double b);
/* Whether both directions are on. */
int flow_context_backward(const flow_context *ctx);

/* CUDA graphs (on by default): on a device that can capture, the first
 * compute records the device work of a frame and later computes replay it,
 * one launch instead of hundreds.  While a trace or workflow observer is set
 * the work runs directly; during a replay the observer sees one stage
 * "graph" instead of the stages inside it.  Disabling drops the recorded
 * graph. */
void flow_context_set_graphs(flow_context *ctx, int enable);
/* 1 when the last compute replayed a graph. */
int flow_context_used_graph(const flow_context *ctx);

#ifdef __cplusplus
}
#endif
#endif
