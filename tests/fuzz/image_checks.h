/* image_checks.h -- the part of the image harnesses (fuzz_pnm.c,
 * fuzz_png.c) that both readers share. */
#ifndef FLOW_FUZZ_IMAGE_H
#define FLOW_FUZZ_IMAGE_H

#include "common.h"

/* Reads data[0..n) (as the scratch file `name`) with flow_image_read and
 * flow_image8_read and checks:
 *   refused: FLOW_ERR_FORMAT, FLOW_ERR_SIZE or FLOW_ERR_UNSUPPORTED, a
 *     message naming the file, no image;
 *   accepted: 1 or 3 channels, each side at least 1, at most max_pixels
 *     pixels (what the input's size can announce), every value finite and
 *     on 0..255;
 *   flow_image8_read accepts only what flow_image_read accepts, and its
 *     bytes are the same values;
 *   written as out_ext ("pnm" or "png", 8-bit) and read back, each value
 *     is the original rounded and clamped to a byte. */
void fuzz_image_reader(const uint8_t *data, size_t n, const char *name, const char *out_ext,
                       double max_pixels);

#endif
