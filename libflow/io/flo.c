/* flo.c -- the Middlebury .flo format (Baker et al., IJCV 2011):
 *
 *   bytes 0-3   "PIEH", the float 202021.25 in little-endian order
 *   bytes 4-11  int32 width, int32 height (little-endian)
 *   then        width*height (u, v) float32 pairs, little-endian, row-major
 *               from the top-left pixel; u right, v down.
 *
 * Values are kept bit for bit both ways: an unknown vector (a component
 * above 1e9 in magnitude, or NaN) reads as it was written, so .flo -> .flo
 * is exact.  The header is checked against FLOW_IMAGE_MAX_PIXELS and the
 * file size must be exactly 12 + 8*width*height before anything is
 * allocated. */
#include "flowfile_formats.h"
#include "base/fail.h"

#define FLO_MAGIC "PIEH"
#define FLO_HEADER 12

flow_status flow_flo_read(FILE *f, const char *path, long long size, flow_field *out)
{
    if (size < FLO_HEADER)
        return flow_fail(FLOW_ERR_FORMAT,
                         "%s: %lld bytes, too short for a .flo file (12-byte header)", path,
                         size);
    unsigned char h[FLO_HEADER];
    FLOW_TRY(flow_io_read_bytes(f, path, h, sizeof h));
    if (memcmp(h, FLO_MAGIC, 4) != 0)
        return flow_fail(FLOW_ERR_FORMAT,
                         "%s: not a .flo file (magic bytes %02x %02x %02x %02x, expected "
                         "\"PIEH\")",
                         path, h[0], h[1], h[2], h[3]);
    const long long w = (int32_t)flow_io_load_le32(h + 4);
    const long long ht = (int32_t)flow_io_load_le32(h + 8);
    if (!flow_io_size_ok(w, ht))
        return flow_fail(FLOW_ERR_SIZE,
                         "%s: header claims %lldx%lld pixels (each side at least 1, at most "
                         "2^28 pixels in all)",
                         path, w, ht);
    const long long want = FLO_HEADER + 8 * w * ht;
    if (size != want)
        return flow_fail(FLOW_ERR_FORMAT,
                         "%s: %s: header claims %lldx%lld, which needs %lld bytes, but the "
                         "file has %lld",
                         path, size < want ? "truncated" : "trailing data", w, ht, want, size);
    FLOW_TRY(flow_field_alloc(out, (int)w, (int)ht));
    /* u and v are interleaved in the file and planar in memory. */
    return flow_io_read_pairs(f, path, (size_t)(w * ht), 0, out->u, out->v);
}

flow_status flow_flo_write(FILE *f, const char *path, const flow_field *field)
{
    unsigned char h[FLO_HEADER];
    memcpy(h, FLO_MAGIC, 4);
    flow_io_store_le32(h + 4, (uint32_t)field->width);
    flow_io_store_le32(h + 8, (uint32_t)field->height);
    FLOW_TRY(flow_io_write_bytes(f, path, h, sizeof h));
    return flow_io_write_pairs(f, path, (size_t)field->width * field->height, 0, field->u,
                               field->v);
}
