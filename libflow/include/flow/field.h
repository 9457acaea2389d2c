/* field.h -- flow fields in memory and in files (.flo, .F, .pcm).
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
 * Readers reject absurd sizes, wrong magic and truncation with a message
 * naming the file; writers go through a temporary file and rename. */
#ifndef FLOW_FIELD_H
#define FLOW_FIELD_H

#include "flow/status.h"

#include <math.h>

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

/* Reads a flow file; the format comes from the extension (.flo, .F, .pcm). */
flow_status flow_field_read(const char *path, flow_field *f);
/* Writes a flow file in the format of its extension. */
flow_status flow_field_write(const char *path, const flow_field *f);

#ifdef __cplusplus
}
#endif
#endif
