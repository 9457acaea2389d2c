/* png_libpng.c -- PNG read and written through libpng (built when
 * pkg-config finds libpng; nopng/png_none.c otherwise).  Reading goes
 * through here in OpenCV builds too (image.c says why); writing only
 * without OpenCV.
 *
 * libpng's errors go through png_error.h's functions, which longjmp back
 * into the function that called libpng; that function frees what it
 * allocated and fails with libpng's message.  The KITTI flow PNG
 * (kitti_libpng.c) uses the same functions. */
#include "io/image_formats.h"
#include "io/png/png_error.h"
#include "base/fail.h"
#include "flow/atomic_file.h"

#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

void flow_png_on_error(png_structp png, png_const_charp msg)
{
    flow_png_ctx *ctx = png_get_error_ptr(png);
    snprintf(ctx->message, sizeof ctx->message, "%s", msg ? msg : "unknown libpng error");
    longjmp(ctx->jump, 1);
}

void flow_png_on_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

/* The decoding part of flow_png_read, apart so that the objects live in the
 * caller and survive the longjmp (no local of this function is read after
 * it). */
static flow_status decode(const char *path, FILE *f, png_structp png, png_infop info,
                          flow_png_ctx *ctx, png_bytep *volatile *rows_out, flow_image *img,
                          flow_image8 *bytes)
{
    if (setjmp(ctx->jump))
        return flow_fail(FLOW_ERR_FORMAT, "%s: corrupt or truncated PNG: %s", path, ctx->message);
    png_init_io(png, f);
    png_set_user_limits(png, 0x7fffffff, 0x7fffffff);
    png_read_info(png, info);
    const png_uint_32 w = png_get_image_width(png, info), h = png_get_image_height(png, info);
    if ((unsigned long long)w * h > (unsigned long long)FLOW_IMAGE_MAX_PIXELS)
        return flow_fail(FLOW_ERR_SIZE, "%s: PNG header claims %lux%lu pixels (limit %ld)", path,
                         (unsigned long)w, (unsigned long)h, (long)FLOW_IMAGE_MAX_PIXELS);
    /* To 8- or 16-bit gray or RGB, whatever was stored. */
    png_set_expand(png);
    png_set_strip_alpha(png);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    const int depth = png_get_bit_depth(png, info);
    const int ch = png_get_channels(png, info);
    if ((ch != 1 && ch != 3) || (depth != 8 && depth != 16))
        return flow_fail(FLOW_ERR_FORMAT, "%s: PNG decodes to %d channels of %d bits (expected "
                         "1 or 3 channels of 8 or 16 bits)", path, ch, depth);
    if (bytes && depth != 8)
        return flow_fail(FLOW_ERR_UNSUPPORTED, "%s: PNG of %d-bit samples, not 8-bit", path,
                         depth);
    if (bytes)
        FLOW_TRY(flow_io_fit8(path, bytes, (int)w, (int)h, ch));
    const size_t rowbytes = png_get_rowbytes(png, info);
    png_bytep *rows = calloc(h, sizeof *rows);
    *rows_out = rows;
    if (!rows)
        return flow_fail(FLOW_ERR_NOMEM, "%s: cannot allocate %lu row pointers", path,
                         (unsigned long)h);
    for (png_uint_32 y = 0; y < h; y++)
        if (!(rows[y] = malloc(rowbytes)))
            return flow_fail(FLOW_ERR_NOMEM, "%s: cannot allocate a row of %zu bytes", path,
                             rowbytes);
    png_read_image(png, rows);
    png_read_end(png, NULL);
    if (bytes) {
        for (png_uint_32 y = 0; y < h; y++)
            memcpy(bytes->data + (size_t)y * rowbytes, rows[y], rowbytes);
        return FLOW_OK;
    }

    FLOW_TRY(flow_io_alloc(path, img, (int)w, (int)h, ch));
    const size_t plane = (size_t)w * h;
    const float scale = depth == 16 ? (float)(255.0 / 65535.0) : 1.0f;
    for (png_uint_32 y = 0; y < h; y++)
        for (png_uint_32 x = 0; x < w; x++)
            for (int c = 0; c < ch; c++) {
                const png_bytep b = rows[y] + ((size_t)x * ch + c) * (depth / 8);
                const unsigned v = depth == 16 ? (unsigned)b[0] << 8 | b[1] : b[0];
                img->data[c * plane + (size_t)y * w + x] = (float)v * scale;
            }
    return FLOW_OK;
}

/* Into img (floats) or, when bytes is set, into bytes (8-bit samples). */
static flow_status png_read(const char *path, flow_image *img, flow_image8 *bytes)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return flow_fail(FLOW_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    flow_png_ctx ctx;
    ctx.message[0] = 0;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &ctx, flow_png_on_error,
                                             flow_png_on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    png_bytep *volatile rows = NULL;
    flow_status s;
    if (!info)
        s = flow_fail(FLOW_ERR_NOMEM, "%s: cannot create a PNG reader", path);
    else
        s = decode(path, f, png, info, &ctx, &rows, img, bytes);
    if (rows) {
        const png_uint_32 h = png_get_image_height(png, info);
        for (png_uint_32 y = 0; y < h; y++)
            free(rows[y]);
        free(rows);
    }
    png_destroy_read_struct(&png, &info, NULL);
    fclose(f);
    return s;
}

int flow_png_available(void)
{
    return 1;
}

flow_status flow_png_read(const char *path, flow_image *img)
{
    memset(img, 0, sizeof *img);
    const flow_status s = png_read(path, img, NULL);
    if (s != FLOW_OK)
        flow_image_free(img);
    return s;
}

flow_status flow_png_read8(const char *path, flow_image8 *img)
{
    return png_read(path, NULL, img);
}

/* What a PNG file is written from: its size and sample layout, and the
 * function that fills row y (bytes as PNG stores them) from the source. */
typedef struct png_source {
    int width, height, depth, color_type, bytes_per_pixel;
    void (*fill_row)(const struct png_source *src, int y, png_bytep row);
    const flow_image *img;   /* flow_png_write */
    const unsigned short *v; /* flow_png_write_gray16 */
} png_source;

static void fill_u8(const png_source *src, int y, png_bytep row)
{
    const flow_image *img = src->img;
    const int w = img->width, ch = img->channels;
    const size_t plane = (size_t)w * img->height;
    for (int x = 0; x < w; x++)
        for (int c = 0; c < ch; c++)
            row[(size_t)x * ch + c] = flow_quantize_u8(img->data[c * plane + (size_t)y * w + x]);
}

static void fill_gray16(const png_source *src, int y, png_bytep row)
{
    for (int x = 0; x < src->width; x++) {
        const unsigned short s = src->v[(size_t)y * src->width + x];
        row[2 * x] = (png_byte)(s >> 8); /* PNG stores 16-bit samples big-endian */
        row[2 * x + 1] = (png_byte)(s & 0xff);
    }
}

/* The encoding part of write_png; see decode() for why it stands apart. */
static flow_status encode(const char *path, FILE *f, png_structp png, png_infop info,
                          flow_png_ctx *ctx, png_bytep row, const png_source *src)
{
    if (setjmp(ctx->jump))
        return flow_fail(FLOW_ERR_IO, "%s: PNG encoding failed: %s", path, ctx->message);
    png_init_io(png, f);
    png_set_IHDR(png, info, (png_uint_32)src->width, (png_uint_32)src->height, src->depth,
                 src->color_type, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int y = 0; y < src->height; y++) {
        src->fill_row(src, y, row);
        png_write_row(png, row);
    }
    png_write_end(png, NULL);
    return FLOW_OK;
}

/* Writes src to path atomically (nothing is left at path on failure). */
static flow_status write_png(const char *path, const png_source *src)
{
    png_bytep row = malloc((size_t)src->width * src->bytes_per_pixel);
    if (!row)
        return flow_fail(FLOW_ERR_NOMEM, "%s: cannot allocate a row", path);
    flow_atomic a;
    flow_status s = flow_atomic_open(&a, path);
    if (s != FLOW_OK) {
        free(row);
        return s;
    }
    flow_png_ctx ctx;
    ctx.message[0] = 0;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &ctx, flow_png_on_error,
                                              flow_png_on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info)
        s = flow_fail(FLOW_ERR_NOMEM, "%s: cannot create a PNG writer", path);
    else
        s = encode(path, a.f, png, info, &ctx, row, src);
    png_destroy_write_struct(&png, &info);
    free(row);
    if (s != FLOW_OK) {
        flow_atomic_abort(&a);
        return s;
    }
    return flow_atomic_commit(&a);
}

flow_status flow_png_write(const char *path, const flow_image *img)
{
    const png_source src = { img->width, img->height, 8,
                             img->channels == 3 ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_GRAY,
                             img->channels, fill_u8, img, NULL };
    return write_png(path, &src);
}

flow_status flow_png_write_gray16(const char *path, const unsigned short *v, int w, int h)
{
    const png_source src = { w, h, 16, PNG_COLOR_TYPE_GRAY, 2, fill_gray16, NULL, v };
    return write_png(path, &src);
}
