/* flowfile_formats.h -- what flowfile.c (dispatch by extension, opening and
 * checking files) shares with the one-file-per-format readers and writers
 * flo.c (Middlebury), barron.c (Barron .F), pcm.c (Otago .pcm), pfm.c
 * (Portable Float Map) and png/kitti_libpng.c (KITTI 16-bit PNG; nopng/
 * kitti_none.c in a build without libpng).
 *
 * A reader gets a file already opened and known to be a regular file of
 * `size` bytes; it checks the magic, the header and that the size matches
 * the header exactly BEFORE allocating, then fills a newly allocated field
 * (freed again on any failure).  A writer gets the temporary FILE * of an
 * atomic write and only writes: flowfile.c commits or aborts. */
#ifndef FLOW_IO_FLOWFILE_FORMATS_H
#define FLOW_IO_FLOWFILE_FORMATS_H

#include "flow/field.h"
#include "flow/image.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The table of flow file formats, in the order help texts list them: one
 * X(stem, extension, name, description) each, the extension without the
 * dot as the docs write it.  Format `stem` is read by flow_<stem>_read and
 * written by flow_<stem>_write, in a file of its own; this list declares
 * them and flowfile.c's table of formats is made from it, so that a new
 * format is one entry here and its reader/writer file. */
#define FLOW_FIELD_FORMATS(X)                                                                    \
    X(flo, "flo", "Middlebury", "float32 (u, v), little-endian, bit for bit")                    \
    X(barron, "F", "Barron, Fleet, Beauchemin", "float32 (u, v), v up, (100, 100) missing")       \
    X(pcm, "pcm", "Otago portable complex map", "float32 (x, y), little-endian, bit for bit")   \
    X(pfm, "pfm", "Portable Float Map", "\"PF\" float32 (u, v, 0), rows from the bottom")        \
    X(kitti, "png", "KITTI 16-bit flow PNG", "uint16 (u, v, valid), 1/64 px, |u|, |v| < 512")

#define FLOW_FORMAT_DECLARE(stem, extension, name, description)                                  \
    flow_status flow_##stem##_read(FILE *f, const char *path, long long size, flow_field *out);  \
    flow_status flow_##stem##_write(FILE *f, const char *path, const flow_field *field);
FLOW_FIELD_FORMATS(FLOW_FORMAT_DECLARE)
#undef FLOW_FORMAT_DECLARE

/* KITTI's coding of a component: c = 64 u + 2^15 in 0 .. 65535, so u in
 * -512 .. 511.984375 in steps of 1/64 px. */
#define FLOW_KITTI_SCALE 64.0
#define FLOW_KITTI_OFFSET 32768.0

/* Reads exactly n bytes or fails naming the file ("truncated" at end of
 * file, the system error otherwise). */
flow_status flow_io_read_bytes(FILE *f, const char *path, void *buf, size_t n);
/* Writes n bytes or fails naming the file. */
flow_status flow_io_write_bytes(FILE *f, const char *path, const void *buf, size_t n);

/* Reads n (a, b) float32 pairs, little- or big-endian, into a[0..n) and
 * b[0..n), bit for bit (NaN payloads and -0 kept); fails like
 * flow_io_read_bytes. */
flow_status flow_io_read_pairs(FILE *f, const char *path, size_t n, int big_endian, float *a,
                               float *b);
/* Writes n (a[i], b[i]) float32 pairs in the given byte order. */
flow_status flow_io_write_pairs(FILE *f, const char *path, size_t n, int big_endian,
                                const float *a, const float *b);

/* Whether w x h is a size a flow file may declare: both at least 1 and at
 * most FLOW_IMAGE_MAX_PIXELS pixels in all (computed without overflow). */
static inline int flow_io_size_ok(long long w, long long h)
{
    return w >= 1 && h >= 1 && w <= FLOW_IMAGE_MAX_PIXELS && h <= FLOW_IMAGE_MAX_PIXELS &&
           w * h <= FLOW_IMAGE_MAX_PIXELS;
}

/* Byte-exact float32 and int32 coding, independent of the host's order. */
static inline float flow_io_float_from_bits(uint32_t b)
{
    float x;
    memcpy(&x, &b, sizeof x);
    return x;
}

static inline uint32_t flow_io_bits_from_float(float x)
{
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

static inline uint32_t flow_io_load_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint32_t flow_io_load_be32(const unsigned char *p)
{
    return (uint32_t)p[3] | (uint32_t)p[2] << 8 | (uint32_t)p[1] << 16 | (uint32_t)p[0] << 24;
}

static inline void flow_io_store_le32(unsigned char *p, uint32_t b)
{
    p[0] = (unsigned char)b;
    p[1] = (unsigned char)(b >> 8);
    p[2] = (unsigned char)(b >> 16);
    p[3] = (unsigned char)(b >> 24);
}

static inline void flow_io_store_be32(unsigned char *p, uint32_t b)
{
    p[3] = (unsigned char)b;
    p[2] = (unsigned char)(b >> 8);
    p[1] = (unsigned char)(b >> 16);
    p[0] = (unsigned char)(b >> 24);
}

#endif
