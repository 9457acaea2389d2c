/* image_formats.h -- what the image readers and writers of libflow/io share,
 * not installed: format detection from magic bytes, the PNM header, the
 * native PNM and PNG codecs, and the sample conversions.  Valid C11 and C++
 * (the OpenCV shim includes it). */
#ifndef FLOW_IO_IMAGE_FORMATS_H
#define FLOW_IO_IMAGE_FORMATS_H

#include "flow/image.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Image formats recognised by their first bytes. */
typedef enum flow_image_format {
    FLOW_FMT_UNKNOWN = 0,
    FLOW_FMT_PNM,  /* P2/P3 (ASCII) and P5/P6 (binary) PGM/PPM */
    FLOW_FMT_PBM,  /* P1/P4 bitmaps and P7 PAM: OpenCV only */
    FLOW_FMT_PNG,
    FLOW_FMT_JPEG,
    FLOW_FMT_JP2,
    FLOW_FMT_TIFF,
    FLOW_FMT_BMP,
    FLOW_FMT_WEBP,
    FLOW_FMT_EXR,
    FLOW_FMT_HDR,
    FLOW_FMT_PFM,
    FLOW_FMT_SUNRAS,
    FLOW_FMT_COUNT
} flow_image_format;

/* The number of leading bytes flow_image_detect looks at. */
#define FLOW_IMAGE_MAGIC_BYTES 16

/* The format whose signature starts head[0..n), FLOW_FMT_UNKNOWN if none. */
flow_image_format flow_image_detect(const unsigned char *head, size_t n);
/* A short name for messages ("PNG", "JPEG", ...). */
const char *flow_image_format_name(flow_image_format f);

/* A PNM header as read by flow_pnm_header(). */
typedef struct flow_pnm_info {
    int kind;     /* 2, 3 (ASCII gray, colour), 5, 6 (binary gray, colour) */
    int width, height;
    int channels; /* 1 or 3 */
    int maxval;   /* 1..65535; above 255 the samples are 16-bit */
    long data_offset; /* where the samples start */
} flow_pnm_info;

/* Parses and checks the header of the PNM file f (at its start, `size`
 * bytes long): magic, comments, width, height, maxval in 1..65535, width x
 * height within FLOW_IMAGE_MAX_PIXELS, and that the file is long enough for
 * the samples the header announces, and every sample against maxval (ASCII
 * always; binary when maxval is below 255 or between 256 and 65534, the
 * only cases where a sample can exceed it).  Leaves f positioned at the
 * samples.
 * Returns FLOW_OK, FLOW_ERR_FORMAT (bad magic or header, truncated, sample
 * above maxval), FLOW_ERR_SIZE (absurd dimensions) or FLOW_ERR_IO. */
flow_status flow_pnm_header(const char *path, FILE *f, long size, flow_pnm_info *info);

/* Reads the samples of a file whose header flow_pnm_header() accepted (f
 * positioned after it) into img, scaled by 255/maxval.  Returns FLOW_OK,
 * FLOW_ERR_FORMAT, FLOW_ERR_NOMEM or FLOW_ERR_IO. */
flow_status flow_pnm_read_samples(const char *path, FILE *f, const flow_pnm_info *info,
                                  flow_image *img);

/* Writes img as binary 8-bit P5 (1 channel) or P6 (3 channels), whole or
 * not at all.  Returns FLOW_OK or FLOW_ERR_IO. */
flow_status flow_pnm_write(const char *path, const flow_image *img);

/* PNG through libpng (png/png_libpng.c), or FLOW_ERR_UNSUPPORTED saying PNG
 * needs libpng or OpenCV (nopng/png_none.c).  The reader expands palettes
 * and low bit depths, drops alpha and scales 16-bit samples by 255/65535;
 * the writer writes 8-bit gray or RGB. */
flow_status flow_png_read(const char *path, flow_image *img);
/* 1 when libpng is built in (png/), 0 with nopng/. */
int flow_png_available(void);
/* The same into 8-bit samples (flow_image8_read's rules); a PNG that
 * decodes to 16 bits is FLOW_ERR_UNSUPPORTED. */
flow_status flow_png_read8(const char *path, flow_image8 *img);
flow_status flow_png_write(const char *path, const flow_image *img);
/* A 16-bit gray PNG of w x h samples (flow_map_write). */
flow_status flow_png_write_gray16(const char *path, const unsigned short *v, int w, int h);

/* JPEG through libjpeg (jpeg/jpeg_libjpeg.c), used in builds without
 * OpenCV, or FLOW_ERR_UNSUPPORTED saying JPEG needs libjpeg or OpenCV
 * (nojpeg/jpeg_none.c).  The reader gives gray or RGB; the writer writes
 * 8-bit gray or RGB at quality 95 (OpenCV's default). */
int flow_jpeg_available(void);
flow_status flow_jpeg_read(const char *path, flow_image *img);
flow_status flow_jpeg_write(const char *path, const flow_image *img);

/* The checks of a path about to be written (image.c): it is not a
 * directory and the directory it names exists.  Returns FLOW_OK or
 * FLOW_ERR_IO with a message naming the path. */
flow_status flow_io_check_output(const char *path);

/* flow_image_alloc for a decoder of `path`: the same, but a failure's
 * message starts with the path. */
flow_status flow_io_alloc(const char *path, flow_image *img, int width, int height,
                          int channels);

/* The buffer an 8-bit decoder of `path` writes width x height x channels
 * samples into: img's own when it has one of that size (FLOW_ERR_SIZE
 * naming both sizes when not), else newly allocated. */
flow_status flow_io_fit8(const char *path, flow_image8 *img, int width, int height,
                         int channels);

/* A value on the 0..255 scale as an 8-bit sample: rounded half up, clamped,
 * NaN as 0. */
static inline unsigned char flow_quantize_u8(float v)
{
    if (!(v > 0.0f))
        return 0;
    if (v >= 255.0f)
        return 255;
    return (unsigned char)(v + 0.5f);
}

#ifdef __cplusplus
}
#endif
#endif
