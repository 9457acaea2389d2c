/* png_stream.h -- what the PNG harnesses (fuzz_png.c, fuzz_kitti.c)
 * share: their input is the chunk stream after the 8-byte signature, which
 * the harness puts in front, and each whole chunk's CRC is rewritten:
 * libpng refuses a chunk whose CRC is wrong, so a mutation inside a chunk
 * would otherwise never reach the decoder. */
#ifndef FLOW_FUZZ_PNG_STREAM_H
#define FLOW_FUZZ_PNG_STREAM_H

#include <stddef.h>
#include <stdint.h>

/* The PNG signature, then data[0..n) with every whole chunk's CRC made
 * right: n + 8 bytes, malloc'd (the caller frees them). */
uint8_t *fuzz_png_from_chunks(const uint8_t *data, size_t n);

#endif
