/* field.h -- flow fields in memory and in files (.flo, .F, .pcm, .pfm,
 * KITTI .png).
 *
 * A field is planar float on the host: u (right) and v (DOWN), the flow
 * mapping pixel x of the first frame to x + (u, v) in the second.  A vector
 * is unknown when a component is NaN or larger than 1e9 in magnitude (the
 * Middlebury convention); FLOW_UNKNOWN is what libflow writes for one.
 *
 * File formats (docs/FORMATS.md has every detail):
 *   .flo  Middlebury: "PIEH" (202021.25f), int32 w, h, then (u, v) rows.
 *   .F    Barron-Fleet-Beauchemin: six float32 header values, (u, v) rows,
 *         v pointing UP, (100, 100) missing; byte order detected on read.
 *   .pcm  Otago "portable complex map": text header "PC", then w h, then
 *         little-endian float32 (x, y) pairs.
 *   .pfm  Portable Float Map (FlyingThings3D, Monkaa, Driving): text header
 *         "PF", w h, scale (negative: little-endian), then float32
 *         (u, v, third) rows from the BOTTOM; the third channel is ignored
 *         on reading and 0 when written (little-endian).  "Pf" (one
 *         channel) is not a flow and is refused.  NaN = unknown.
 *   .png  KITTI 16-bit flow PNG: 3 channels of uint16, u = (R - 2^15)/64,
 *         v = (G - 2^15)/64, known where B > 0; invalid pixels read as
 *         FLOW_UNKNOWN.  Writing rounds to the nearest 1/64 px (half away
 *         from zero), so a known vector reads back as round(64 u)/64; a
 *         component outside -512 .. 511.984375 is refused, naming the
 *         pixel.  Needs libpng (FLOW_ERR_UNSUPPORTED without it).  Where a
 *         flow is expected .png is always this format: images go through
 *         flow_image_read (image.h).
 * Readers reject absurd sizes, wrong magic and truncation with a message
 * naming the file; writers go through a temporary file and rename.
 * flow_field_format_at lists the formats (one table, io/flowfile.c) for
 * tools, help texts, scripts and the Python module.
 *
 * flow_fb_check marks unknown the vectors that the flow computed the other
 * way (second frame to first) does not confirm. */
#ifndef FLOW_FIELD_H
#define FLOW_FIELD_H

#include "flow/status.h"

#include <math.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct flow_field {
    int width, height;
    float *u, *v; /* width * height each, row-major from the top-left */
} flow_field;

#define FLOW_UNKNOWN 1e10f
#define FLOW_UNKNOWN_THRESHOLD 1e9f

static inline int flow_is_unknown(float u, float v)
{
    return !(fabsf(u) <= FLOW_UNKNOWN_THRESHOLD) || !(fabsf(v) <= FLOW_UNKNOWN_THRESHOLD);
}

flow_status flow_field_alloc(flow_field *f, int width, int height);
void flow_field_free(flow_field *f);

/* Reads a flow file; the format comes from the extension (any letter
 * case).  Returns FLOW_OK; FLOW_ERR_IO (missing, unreadable, a directory);
 * FLOW_ERR_FORMAT (unknown extension, bad magic or header, truncated,
 * trailing data, a PNG or PFM that is not a flow); FLOW_ERR_SIZE (absurd
 * dimensions); FLOW_ERR_UNSUPPORTED (.png without libpng); FLOW_ERR_NOMEM.
 * On failure *f is left empty. */
flow_status flow_field_read(const char *path, flow_field *f);
/* Writes a flow file in the format of its extension, whole or not at all.
 * Returns FLOW_OK; FLOW_ERR_FORMAT (unknown extension); FLOW_ERR_INVALID
 * (no field, or a value the format cannot hold, such as a KITTI component
 * outside -512 .. 511.984375: the detail names the pixel and the value);
 * FLOW_ERR_UNSUPPORTED (.png without libpng); FLOW_ERR_IO. */
flow_status flow_field_write(const char *path, const flow_field *f);

/* ---- the flow file formats (one table, io/flowfile.c) ------------------ */
typedef struct flow_field_format {
    const char *extension;   /* without the dot, as the docs write it: "flo", "F" */
    const char *name;        /* "Middlebury", "KITTI 16-bit flow PNG", ... */
    const char *description; /* one line: layout and conventions */
} flow_field_format;

/* The number of formats, and format i of them (NULL outside
 * 0 .. count - 1), in the order help texts list them. */
int flow_field_format_count(void);
const flow_field_format *flow_field_format_at(int i);
/* The format path's extension names (any case), NULL when none. */
const flow_field_format *flow_field_format_of(const char *path);
/* The extensions as ".flo, .F, .pcm, .pfm or .png" in buf (truncated to
 * size bytes); returns buf. */
const char *flow_field_format_list(char *buf, size_t size);

/* ---- forward-backward check (eval/fbcheck.c) ----------------------------
 * A forward vector f(p) is kept when the backward flow b (computed from the
 * second frame to the first) brings its end point back to p:
 *     |f(p) + b(p + f(p))| <= threshold   (pixels),
 * b sampled bilinearly at p + f(p).  The point must lie inside the frame
 * (0 <= x <= width - 1, 0 <= y <= height - 1) and every backward sample
 * with a nonzero bilinear weight must be known; otherwise the vector is
 * not kept.  Occlusions, and errors of one flow that the other does not
 * share, fail the check; errors both flows make alike pass it. */
typedef struct flow_fb_stats {
    long total;        /* width * height */
    long kept;         /* forward vectors that passed */
    long unknown_fwd;  /* the forward vector was already unknown (left as it was) */
    long outside;      /* p + f(p) outside the frame */
    long unknown_bwd;  /* a backward sample needed at p + f(p) is unknown */
    long inconsistent; /* |f(p) + b(p + f(p))| > threshold */
    double density;    /* kept / total, 0..1 */
} flow_fb_stats;

/* Applies the check to fwd in place: every known vector that is not kept
 * becomes (FLOW_UNKNOWN, FLOW_UNKNOWN); vectors already unknown stay as
 * they are.  The four removal counts and kept add up to total.  out may be
 * NULL.  Returns FLOW_OK; FLOW_ERR_SIZE when the sizes differ (the detail
 * names both) or are empty; FLOW_ERR_INVALID for a missing field, fwd and
 * bwd sharing memory, a threshold that is not a finite number > 0, or a
 * FLOW_THREADS that is not a number of threads (device.h); FLOW_ERR_NOMEM
 * when its threads cannot be started.  On failure fwd is unchanged.  Rows
 * are checked in parallel, with the same result on any number of
 * threads. */
flow_status flow_fb_check(flow_field *fwd, const flow_field *bwd, double threshold,
                          flow_fb_stats *out);

/* The verdicts of the check, per pixel, as a context computing both
 * directions leaves them in its output plane "fb_verdict"
 * (flow_context_set_backward, context.h). */
typedef enum flow_fb_verdict {
    FLOW_FB_VERDICT_KEPT = 0,
    FLOW_FB_VERDICT_UNKNOWN_FWD = 1,  /* the forward vector was unknown */
    FLOW_FB_VERDICT_OUTSIDE = 2,      /* p + f(p) outside the frame */
    FLOW_FB_VERDICT_UNKNOWN_BWD = 3,  /* a backward sample needed is unknown */
    FLOW_FB_VERDICT_INCONSISTENT = 4  /* the round trip misses by more than the tolerance */
} flow_fb_verdict;

/* flow_fb_check's result from verdicts computed elsewhere (the plane
 * "fb_verdict" of a context computing both directions, width * height
 * values, row-major): every known vector of fwd whose verdict is not KEPT
 * becomes unknown, and out (may be NULL) counts the verdicts.  With the
 * context's test set to a = 0, b = threshold^2 the result is
 * flow_fb_check's exactly.  FLOW_ERR_INVALID for a missing argument or a
 * value that is no verdict (the detail names the pixel; fwd unchanged). */
flow_status flow_fb_apply(flow_field *fwd, const float *verdict, flow_fb_stats *out);

#ifdef __cplusplus
}
#endif
#endif
