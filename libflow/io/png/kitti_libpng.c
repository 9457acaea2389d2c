/* kitti_libpng.c -- the KITTI flow PNG (Geiger, Lenz, Urtasun, CVPR 2012;
 * Menze, Geiger, CVPR 2015) through libpng: a 16-bit RGB PNG whose
 * samples R, G, B code the vector of each pixel as
 *
 *   u = (R - 2^15) / 64,  v = (G - 2^15) / 64,  known where B > 0.
 *
 * Reading: a pixel with B = 0 is unknown (FLOW_UNKNOWN in both
 * components); any PNG that is not 16-bit RGB is refused, saying what a
 * KITTI flow PNG is (an 8-bit PNG given as a flow is an image).
 * Writing: a known component is rounded to the nearest 1/64 px, halves away
 * from zero (R = round(64 u) + 2^15), with B = 1; an unknown vector is
 * R = G = B = 0, as the KITTI devkit writes it.  A known component whose
 * rounded value does not fit 16 bits (outside -512 .. 511.984375) is an
 * error naming the pixel and the value; nothing is written then.
 * Reading a written file gives back exactly round(64 u) / 64. */
#include "io/flowfile_formats.h"
#include "io/png/png_error.h"
#include "base/fail.h"

#include <math.h>
#include <png.h>
#include <setjmp.h>
#include <stdlib.h>

/* deflate's best ratio: at most this many bytes come out of one byte in. */
#define DEFLATE_MAX_RATIO 1032.0

/* The decoding part of flow_kitti_read, apart so that the buffers live in
 * the caller and survive the longjmp.  Decodes into *samples (big-endian
 * 16-bit R, G, B, row after row) and fills *rows; the field is allocated
 * only once libpng has read the whole image. */
static flow_status decode(FILE *f, const char *path, long long size, png_structp png,
                          png_infop info, flow_png_ctx *ctx, png_bytep volatile *samples,
                          png_bytep *volatile *rows, flow_field *out)
{
    if (setjmp(ctx->jump))
        return flow_fail(FLOW_ERR_FORMAT, "%s: corrupt or truncated PNG: %s", path,
                         ctx->message);
    png_init_io(png, f);
    png_set_sig_bytes(png, 8);
    png_set_user_limits(png, 0x7fffffff, 0x7fffffff);
    png_read_info(png, info);
    const png_uint_32 w = png_get_image_width(png, info), h = png_get_image_height(png, info);
    const int depth = png_get_bit_depth(png, info), type = png_get_color_type(png, info);
    if (depth != 16 || type != PNG_COLOR_TYPE_RGB)
        return flow_fail(FLOW_ERR_FORMAT,
                         "%s: a PNG of %d channel(s) of %d bits, not a KITTI flow PNG (3 "
                         "channels of 16 bits: u, v, valid); an 8-bit PNG is an image, not "
                         "a flow",
                         path, png_get_channels(png, info), depth);
    if (!flow_io_size_ok(w, h))
        return flow_fail(FLOW_ERR_SIZE,
                         "%s: header claims %lux%lu pixels (each side at least 1, at most "
                         "2^28 pixels in all)",
                         path, (unsigned long)w, (unsigned long)h);
    /* 6 bytes a pixel and a filter byte a row, decompressed from `size`
     * bytes at most: a small file cannot make us allocate much. */
    if ((6.0 * w + 1) * h > DEFLATE_MAX_RATIO * (double)size)
        return flow_fail(FLOW_ERR_FORMAT,
                         "%s: truncated: header claims %lux%lu pixels, more than %lld bytes "
                         "of PNG can hold",
                         path, (unsigned long)w, (unsigned long)h, size);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    const size_t rowbytes = png_get_rowbytes(png, info);
    if (rowbytes != (size_t)w * 6)
        return flow_fail(FLOW_ERR_FORMAT, "%s: PNG rows of %zu bytes, expected %lu", path,
                         rowbytes, (unsigned long)w * 6);
    *samples = malloc(rowbytes * h);
    *rows = malloc(sizeof(png_bytep) * h);
    if (!*samples || !*rows)
        return flow_fail(FLOW_ERR_NOMEM, "%s: cannot allocate %lux%lu pixels", path,
                         (unsigned long)w, (unsigned long)h);
    for (png_uint_32 y = 0; y < h; y++)
        (*rows)[y] = *samples + rowbytes * y;
    png_read_image(png, *rows);
    png_read_end(png, NULL);

    FLOW_TRY(flow_field_alloc(out, (int)w, (int)h));
    const png_bytep p = *samples;
    for (size_t i = 0; i < (size_t)w * h; i++) {
        const png_bytep s = p + 6 * i;
        const unsigned r = (unsigned)s[0] << 8 | s[1], g = (unsigned)s[2] << 8 | s[3];
        const unsigned b = (unsigned)s[4] << 8 | s[5];
        out->u[i] = b ? (float)((r - FLOW_KITTI_OFFSET) / FLOW_KITTI_SCALE) : FLOW_UNKNOWN;
        out->v[i] = b ? (float)((g - FLOW_KITTI_OFFSET) / FLOW_KITTI_SCALE) : FLOW_UNKNOWN;
    }
    return FLOW_OK;
}

flow_status flow_kitti_read(FILE *f, const char *path, long long size, flow_field *out)
{
    unsigned char sig[8];
    if (size < 8)
        return flow_fail(FLOW_ERR_FORMAT, "%s: %lld bytes, too short for a PNG", path, size);
    FLOW_TRY(flow_io_read_bytes(f, path, sig, sizeof sig));
    if (png_sig_cmp(sig, 0, sizeof sig) != 0)
        return flow_fail(FLOW_ERR_FORMAT,
                         "%s: not a PNG file (a KITTI flow PNG is a 16-bit RGB PNG)", path);
    flow_png_ctx ctx;
    ctx.message[0] = 0;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &ctx, flow_png_on_error,
                                             flow_png_on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    png_bytep volatile samples = NULL;
    png_bytep *volatile rows = NULL;
    flow_status s;
    if (!info)
        s = flow_fail(FLOW_ERR_NOMEM, "%s: cannot create a PNG reader", path);
    else
        s = decode(f, path, size, png, info, &ctx, &samples, &rows, out);
    free(rows);
    free(samples);
    png_destroy_read_struct(&png, &info, NULL);
    return s;
}

/* A known component as its 16-bit code, or -1 when it does not fit. */
static long kitti_code(float c)
{
    const double q = round((double)c * FLOW_KITTI_SCALE) + FLOW_KITTI_OFFSET;
    return q >= 0.0 && q <= 65535.0 ? (long)q : -1;
}

/* The encoding part of flow_kitti_write; see decode() for why it stands
 * apart. */
static flow_status encode(FILE *f, const char *path, png_structp png, png_infop info,
                          flow_png_ctx *ctx, png_bytep row, const flow_field *field)
{
    if (setjmp(ctx->jump))
        return flow_fail(FLOW_ERR_IO, "%s: PNG encoding failed: %s", path, ctx->message);
    const int w = field->width, h = field->height;
    png_init_io(png, f);
    png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 16, PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            const size_t i = (size_t)y * w + x;
            unsigned code[3] = {0, 0, 0};
            if (!flow_is_unknown(field->u[i], field->v[i])) {
                code[0] = (unsigned)kitti_code(field->u[i]);
                code[1] = (unsigned)kitti_code(field->v[i]);
                code[2] = 1;
            }
            for (int c = 0; c < 3; c++) {
                row[6 * x + 2 * c] = (png_byte)(code[c] >> 8);
                row[6 * x + 2 * c + 1] = (png_byte)code[c];
            }
        }
        png_write_row(png, row);
    }
    png_write_end(png, NULL);
    return FLOW_OK;
}

flow_status flow_kitti_write(FILE *f, const char *path, const flow_field *field)
{
    const int w = field->width, h = field->height;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const size_t i = (size_t)y * w + x;
            if (flow_is_unknown(field->u[i], field->v[i]))
                continue;
            const int bad_u = kitti_code(field->u[i]) < 0;
            if (bad_u || kitti_code(field->v[i]) < 0)
                return flow_fail(FLOW_ERR_INVALID,
                                 "%s: pixel (%d, %d): %s = %.9g is outside what a KITTI flow "
                                 "PNG holds (-512 .. 511.984375 px in steps of 1/64)",
                                 path, x, y, bad_u ? "u" : "v",
                                 bad_u ? field->u[i] : field->v[i]);
        }
    png_bytep row = malloc((size_t)w * 6);
    if (!row)
        return flow_fail(FLOW_ERR_NOMEM, "%s: cannot allocate a row of %d pixels", path, w);
    flow_png_ctx ctx;
    ctx.message[0] = 0;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &ctx, flow_png_on_error,
                                              flow_png_on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    flow_status s;
    if (!info)
        s = flow_fail(FLOW_ERR_NOMEM, "%s: cannot create a PNG writer", path);
    else
        s = encode(f, path, png, info, &ctx, row, field);
    png_destroy_write_struct(&png, &info);
    free(row);
    return s;
}
