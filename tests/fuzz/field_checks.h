/* field_checks.h -- the part of the flow-file harnesses (fuzz_flo.c,
 * fuzz_barron.c, fuzz_pcm.c, fuzz_pfm.c, fuzz_kitti.c) that every flow
 * reader shares. */
#ifndef FLOW_FUZZ_FIELD_H
#define FLOW_FUZZ_FIELD_H

#include "common.h"

/* Reads data[0..n) as a flow file with the extension ext ("flo", "F",
 * "pcm", "pfm", "png") and checks what holds for every flow reader.  Refused: the status
 * is FLOW_ERR_FORMAT or FLOW_ERR_SIZE, the message names the file, the
 * field is left empty.  Accepted: each side at least 1, at most
 * FLOW_IMAGE_MAX_PIXELS in all, and no more vectors than the input's size
 * pays for (8 bytes each, or for .F, whose reader fills the image around a
 * smaller window, 4 times that or 2^20 vectors, or for a KITTI .png 6
 * bytes each at deflate's best ratio, 1032:1); written as .flo and read
 * back, every float keeps its bits.  Returns 1 with the field in *f (the
 * caller checks its own format's round trip, when fuzz_round_trips(f), and
 * frees it), 0 when refused. */
int fuzz_read_field(const uint8_t *data, size_t n, const char *ext, flow_field *f);

/* Whether f is small enough for round trips through files: a .F of a few
 * bytes may announce 2^20 vectors, and writing and reading 8 MiB takes a
 * hundred times as long as the rest, through the same code as a small
 * field. */
int fuzz_round_trips(const flow_field *f);

/* Writes f as the scratch file `name` (its extension picks the format) and
 * reads it back into *back; both must succeed and keep f's size. */
void fuzz_write_read(const flow_field *f, const char *name, flow_field *back);

#endif
