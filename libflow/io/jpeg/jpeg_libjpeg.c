/* jpeg_libjpeg.c -- JPEG read and written through libjpeg, in builds
 * without OpenCV (with it, OpenCV's codecs read and write JPEG: image.c).
 * The Makefile links this file when libjpeg's header is found, and
 * nojpeg/jpeg_none.c otherwise.  Written at quality 95, OpenCV's default,
 * with 8-bit gray or RGB samples.
 *
 * libjpeg reports errors through error_exit, which here longjmps back into
 * the function that called it; that function frees what it allocated and
 * fails with libjpeg's message. */
#include "io/image_formats.h"
#include "base/fail.h"
#include "flow/atomic_file.h"

#include <errno.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

#define JPEG_QUALITY 95

typedef struct jpeg_ctx {
    struct jpeg_error_mgr mgr; /* first: libjpeg hands back a pointer to it */
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
} jpeg_ctx;

static void on_error(j_common_ptr cinfo)
{
    jpeg_ctx *ctx = (jpeg_ctx *)cinfo->err;
    ctx->mgr.format_message(cinfo, ctx->message);
    longjmp(ctx->jump, 1);
}

static void on_message(j_common_ptr cinfo)
{
    (void)cinfo; /* warnings are not printed: the library never prints */
}

int flow_jpeg_available(void)
{
    return 1;
}

/* The decoding part of flow_jpeg_read, apart so that the objects live in
 * the caller and survive the longjmp. */
static flow_status decode(const char *path, FILE *f, struct jpeg_decompress_struct *cinfo,
                          jpeg_ctx *ctx, unsigned char *volatile *row_out, flow_image *img)
{
    if (setjmp(ctx->jump))
        return flow_fail(FLOW_ERR_FORMAT, "%s: corrupt or truncated JPEG: %s", path,
                         ctx->message);
    jpeg_stdio_src(cinfo, f);
    jpeg_read_header(cinfo, TRUE);
    cinfo->out_color_space = cinfo->num_components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_start_decompress(cinfo);
    const int w = (int)cinfo->output_width, h = (int)cinfo->output_height;
    const int ch = cinfo->output_components;
    if ((long long)w * h > FLOW_IMAGE_MAX_PIXELS)
        return flow_fail(FLOW_ERR_SIZE, "%s: JPEG header claims %dx%d pixels (limit %ld)", path,
                         w, h, (long)FLOW_IMAGE_MAX_PIXELS);
    unsigned char *row = malloc((size_t)w * ch);
    *row_out = row;
    if (!row)
        return flow_fail(FLOW_ERR_NOMEM, "%s: cannot allocate a row of %d pixels", path, w);
    FLOW_TRY(flow_io_alloc(path, img, w, h, ch));
    const size_t plane = (size_t)w * h;
    while ((int)cinfo->output_scanline < h) {
        const int y = (int)cinfo->output_scanline;
        JSAMPROW rows[1] = {row};
        jpeg_read_scanlines(cinfo, rows, 1);
        for (int x = 0; x < w; x++)
            for (int c = 0; c < ch; c++)
                img->data[c * plane + (size_t)y * w + x] = row[(size_t)x * ch + c];
    }
    jpeg_finish_decompress(cinfo);
    return FLOW_OK;
}

flow_status flow_jpeg_read(const char *path, flow_image *img)
{
    memset(img, 0, sizeof *img);
    FILE *f = fopen(path, "rb");
    if (!f)
        return flow_fail(FLOW_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct jpeg_decompress_struct cinfo;
    jpeg_ctx ctx;
    ctx.message[0] = 0;
    cinfo.err = jpeg_std_error(&ctx.mgr);
    ctx.mgr.error_exit = on_error;
    ctx.mgr.output_message = on_message;
    unsigned char *volatile row = NULL;
    flow_status s;
    if (setjmp(ctx.jump))
        s = flow_fail(FLOW_ERR_NOMEM, "%s: cannot create a JPEG reader: %s", path, ctx.message);
    else {
        jpeg_create_decompress(&cinfo);
        s = decode(path, f, &cinfo, &ctx, &row, img);
    }
    jpeg_destroy_decompress(&cinfo);
    free(row);
    fclose(f);
    if (s != FLOW_OK)
        flow_image_free(img);
    return s;
}

/* The encoding part of flow_jpeg_write; see decode() for why it stands
 * apart. */
static flow_status encode(const char *path, FILE *f, struct jpeg_compress_struct *cinfo,
                          jpeg_ctx *ctx, unsigned char *row, const flow_image *img)
{
    if (setjmp(ctx->jump))
        return flow_fail(FLOW_ERR_IO, "%s: JPEG encoding failed: %s", path, ctx->message);
    const int w = img->width, h = img->height, ch = img->channels;
    const size_t plane = (size_t)w * h;
    jpeg_stdio_dest(cinfo, f);
    cinfo->image_width = (JDIMENSION)w;
    cinfo->image_height = (JDIMENSION)h;
    cinfo->input_components = ch;
    cinfo->in_color_space = ch == 3 ? JCS_RGB : JCS_GRAYSCALE;
    jpeg_set_defaults(cinfo);
    jpeg_set_quality(cinfo, JPEG_QUALITY, TRUE);
    jpeg_start_compress(cinfo, TRUE);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++)
            for (int c = 0; c < ch; c++)
                row[(size_t)x * ch + c] = flow_quantize_u8(img->data[c * plane + (size_t)y * w + x]);
        JSAMPROW rows[1] = {row};
        jpeg_write_scanlines(cinfo, rows, 1);
    }
    jpeg_finish_compress(cinfo);
    return FLOW_OK;
}

flow_status flow_jpeg_write(const char *path, const flow_image *img)
{
    unsigned char *row = malloc((size_t)img->width * img->channels);
    if (!row)
        return flow_fail(FLOW_ERR_NOMEM, "%s: cannot allocate a row", path);
    flow_atomic a;
    flow_status s = flow_atomic_open(&a, path);
    if (s != FLOW_OK) {
        free(row);
        return s;
    }
    struct jpeg_compress_struct cinfo;
    jpeg_ctx ctx;
    ctx.message[0] = 0;
    cinfo.err = jpeg_std_error(&ctx.mgr);
    ctx.mgr.error_exit = on_error;
    ctx.mgr.output_message = on_message;
    if (setjmp(ctx.jump))
        s = flow_fail(FLOW_ERR_NOMEM, "%s: cannot create a JPEG writer: %s", path, ctx.message);
    else {
        jpeg_create_compress(&cinfo);
        s = encode(path, a.f, &cinfo, &ctx, row, img);
    }
    jpeg_destroy_compress(&cinfo);
    free(row);
    if (s != FLOW_OK) {
        flow_atomic_abort(&a);
        return s;
    }
    return flow_atomic_commit(&a);
}
