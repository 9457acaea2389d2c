/* image.c -- flow_image_read and flow_image_write: format detection and
 * dispatch.
 *
 * Reading looks at the file's first bytes, not its name.  Before any decoder
 * runs, the checks that need no decoder are made here, so that every build
 * gives the same precise message: the file exists, is a regular file and is
 * not empty; a PGM/PPM header is sane and the file holds the samples it
 * announces; a PNG's IHDR dimensions are within FLOW_IMAGE_MAX_PIXELS and
 * its chunk structure runs whole to IEND.  Then PNG goes through libpng
 * (png/) where it is built in; with OpenCV every other format goes through
 * the OpenCV shim; without it PGM/PPM are read natively (pnm.c), and
 * anything else fails with FLOW_ERR_UNSUPPORTED naming the format and
 * saying it needs OpenCV.
 *
 * Writing picks the format from the extension; every writer, OpenCV's
 * included, goes through flow/atomic_file.h (a temporary name, checked
 * writes, a rename), so that a failure leaves no half file. */
#include "io/image_formats.h"
#include "io/opencv_shim.h"
#include "base/fail.h"

#include <errno.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

int flow_image_has_opencv(void)
{
    return flow_ocv_available();
}

static const char *const format_names[FLOW_FMT_COUNT] = {
    [FLOW_FMT_UNKNOWN] = "unrecognised",
    [FLOW_FMT_PNM] = "PGM/PPM",
    [FLOW_FMT_PBM] = "PBM/PAM",
    [FLOW_FMT_PNG] = "PNG",
    [FLOW_FMT_JPEG] = "JPEG",
    [FLOW_FMT_JP2] = "JPEG 2000",
    [FLOW_FMT_TIFF] = "TIFF",
    [FLOW_FMT_BMP] = "BMP",
    [FLOW_FMT_WEBP] = "WebP",
    [FLOW_FMT_EXR] = "OpenEXR",
    [FLOW_FMT_HDR] = "Radiance HDR",
    [FLOW_FMT_PFM] = "PFM",
    [FLOW_FMT_SUNRAS] = "Sun raster",
};

const char *flow_image_format_name(flow_image_format f)
{
    return (unsigned)f < FLOW_FMT_COUNT ? format_names[f] : format_names[0];
}

static int starts(const unsigned char *head, size_t n, const char *sig, size_t len)
{
    return n >= len && memcmp(head, sig, len) == 0;
}

flow_image_format flow_image_detect(const unsigned char *h, size_t n)
{
    if (n >= 3 && h[0] == 'P') {
        const int sep = h[2] == '#' || strchr(" \t\r\n\v\f", h[2]) != NULL;
        if (sep && strchr("2356", h[1]))
            return FLOW_FMT_PNM;
        if (sep && strchr("147", h[1]))
            return FLOW_FMT_PBM;
        if (sep && (h[1] == 'F' || h[1] == 'f'))
            return FLOW_FMT_PFM;
    }
    if (starts(h, n, "\x89PNG\r\n\x1a\n", 8))
        return FLOW_FMT_PNG;
    if (starts(h, n, "\xff\xd8\xff", 3))
        return FLOW_FMT_JPEG;
    if (starts(h, n, "\0\0\0\x0cjP  \r\n\x87\n", 12) || starts(h, n, "\xff\x4f\xff\x51", 4))
        return FLOW_FMT_JP2;
    if (starts(h, n, "II*\0", 4) || starts(h, n, "MM\0*", 4) || starts(h, n, "II+\0", 4) ||
        starts(h, n, "MM\0+", 4))
        return FLOW_FMT_TIFF;
    if (starts(h, n, "BM", 2))
        return FLOW_FMT_BMP;
    if (n >= 12 && starts(h, n, "RIFF", 4) && memcmp(h + 8, "WEBP", 4) == 0)
        return FLOW_FMT_WEBP;
    if (starts(h, n, "\x76\x2f\x31\x01", 4))
        return FLOW_FMT_EXR;
    if (starts(h, n, "#?", 2))
        return FLOW_FMT_HDR;
    if (starts(h, n, "\x59\xa6\x6a\x95", 4))
        return FLOW_FMT_SUNRAS;
    return FLOW_FMT_UNKNOWN;
}

static unsigned long be32(const unsigned char *b)
{
    return (unsigned long)b[0] << 24 | (unsigned long)b[1] << 16 | (unsigned long)b[2] << 8 | b[3];
}

/* The most bytes of deflate output one byte of compressed data can give:
 * a symbol takes at least a bit, and the longest match (258 bytes) two
 * symbols, a length and a distance. */
#define DEFLATE_MAX_RATIO 1032

/* The bits per pixel of a PNG's colour type and bit depth (IHDR), 0 for a
 * combination the format does not have. */
static int png_bits_per_pixel(int color_type, int depth)
{
    static const int channels[7] = {1, 0, 3, 1, 2, 0, 4};
    return color_type >= 0 && color_type <= 6 && channels[color_type] && depth >= 1 && depth <= 16
               ? channels[color_type] * depth
               : 0;
}

/* Checks a PNG's IHDR and walks its chunks to IEND without decoding them:
 * a truncated file or absurd dimensions are refused before any decoder
 * allocates, and so are dimensions whose pixels the pixel data (IDAT)
 * could not hold even at deflate's best ratio -- what a decoder allocates
 * is bounded by the file's size.  f is at the start of the file, `size`
 * bytes long. */
static flow_status png_check(const char *path, FILE *f, long size)
{
    unsigned char b[33];
    if (size < 33 || fread(b, 1, 33, f) != 33)
        return flow_fail(FLOW_ERR_FORMAT, "%s: truncated PNG: %ld bytes, too short for a header",
                         path, size);
    if (be32(b + 8) != 13 || memcmp(b + 12, "IHDR", 4) != 0)
        return flow_fail(FLOW_ERR_FORMAT, "%s: corrupt PNG: the first chunk is not a 13-byte IHDR",
                         path);
    const unsigned long w = be32(b + 16), h = be32(b + 20);
    if (w < 1 || h < 1 || w > 0x7fffffffUL || h > 0x7fffffffUL ||
        (unsigned long long)w * h > (unsigned long long)FLOW_IMAGE_MAX_PIXELS)
        return flow_fail(FLOW_ERR_SIZE, "%s: PNG header claims %lux%lu pixels (expected 1 to %ld)",
                         path, w, h, (long)FLOW_IMAGE_MAX_PIXELS);
    long pos = 8;
    int idat = 0;
    unsigned long long idat_bytes = 0;
    for (;;) {
        unsigned char c[8];
        if (pos + 8 > size || fseek(f, pos, SEEK_SET) != 0 || fread(c, 1, 8, f) != 8)
            return flow_fail(FLOW_ERR_FORMAT,
                             "%s: truncated PNG: the file ends at byte %ld, before the IEND chunk",
                             path, size);
        const unsigned long len = be32(c);
        for (int i = 4; i < 8; i++)
            if (!((c[i] >= 'A' && c[i] <= 'Z') || (c[i] >= 'a' && c[i] <= 'z')))
                return flow_fail(FLOW_ERR_FORMAT,
                                 "%s: corrupt PNG: the chunk at byte %ld has no valid type", path,
                                 pos);
        if (len > 0x7fffffffUL)
            return flow_fail(FLOW_ERR_FORMAT,
                             "%s: corrupt PNG: chunk %.4s at byte %ld claims %lu bytes", path,
                             (const char *)c + 4, pos, len);
        if (pos + 12 + (long)len > size)
            return flow_fail(FLOW_ERR_FORMAT,
                             "%s: truncated PNG: chunk %.4s at byte %ld needs %lu bytes, the file "
                             "ends %ld bytes later",
                             path, (const char *)c + 4, pos, len + 12, size - pos);
        if (memcmp(c + 4, "IDAT", 4) == 0)
            idat_bytes += len;
        if (memcmp(c + 4, "IDAT", 4) == 0 && !idat++ && len >= 2) {
            /* the pixel data opens with a zlib header: deflate, check bits */
            unsigned char z[2];
            if (fread(z, 1, 2, f) != 2 || (z[0] & 0x0f) != 8 || (z[0] << 8 | z[1]) % 31 != 0)
                return flow_fail(FLOW_ERR_FORMAT,
                                 "%s: corrupt PNG: the pixel data (IDAT at byte %ld) is not a "
                                 "zlib stream",
                                 path, pos);
        }
        if (memcmp(c + 4, "IEND", 4) == 0)
            break;
        pos += 12 + (long)len;
    }
    if (!idat)
        return flow_fail(FLOW_ERR_FORMAT, "%s: corrupt PNG: no IDAT chunk (no pixel data)", path);
    /* libpng checks the colour type and depth itself; an unknown pair gets
     * the bound of the smallest pixel, one bit */
    const int bpp = png_bits_per_pixel(b[25], b[24]);
    const unsigned long long need = ((unsigned long long)w * h * (bpp ? bpp : 1) + 7) / 8;
    if (need > DEFLATE_MAX_RATIO * idat_bytes)
        return flow_fail(FLOW_ERR_FORMAT,
                         "%s: corrupt PNG: %lux%lu pixels of %d bits need %llu bytes, more than "
                         "its %llu bytes of pixel data (IDAT) can hold",
                         path, w, h, bpp ? bpp : 1, need, idat_bytes);
    return fseek(f, 0, SEEK_SET) == 0
               ? FLOW_OK
               : flow_fail(FLOW_ERR_IO, "%s: cannot seek: %s", path, strerror(errno));
}

/* The checks of a path to read: it exists, is a regular file, not empty. */
static flow_status check_input(const char *path, long *size)
{
    struct stat st;
    if (!path || !*path)
        return flow_fail(FLOW_ERR_INVALID, "no image file name given");
    if (stat(path, &st) != 0)
        return flow_fail(FLOW_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return flow_fail(FLOW_ERR_IO, "%s: is a directory, not an image file", path);
    if (!S_ISREG(st.st_mode))
        return flow_fail(FLOW_ERR_IO, "%s: not a regular file", path);
    if (st.st_size == 0)
        return flow_fail(FLOW_ERR_FORMAT, "%s: empty file (0 bytes), not an image", path);
    *size = (long)st.st_size;
    return FLOW_OK;
}

static flow_status needs_opencv(const char *path, const char *what, const char *format)
{
    return flow_fail(FLOW_ERR_UNSUPPORTED,
                     "%s: %s %s needs OpenCV (this libflow was built without it; install "
                     "libopencv-dev and rebuild)",
                     path, what, format);
}

flow_status flow_image_read(const char *path, flow_image *img)
{
    memset(img, 0, sizeof *img);
    long size = 0;
    FLOW_TRY(check_input(path, &size));
    FILE *f = fopen(path, "rb");
    if (!f)
        return flow_fail(FLOW_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    unsigned char head[FLOW_IMAGE_MAGIC_BYTES];
    const size_t n = fread(head, 1, sizeof head, f);
    const flow_image_format fmt = flow_image_detect(head, n);
    rewind(f);

    flow_status s = FLOW_OK;
    flow_pnm_info pnm = {0};
    double full16 = 65535.0;
    if (fmt == FLOW_FMT_PNM) {
        s = flow_pnm_header(path, f, size, &pnm);
        full16 = pnm.maxval > 255 ? pnm.maxval : 65535.0;
    } else if (fmt == FLOW_FMT_PNG) {
        s = png_check(path, f, size);
    }
    /* PNG goes through libpng itself wherever it is built in, OpenCV or
     * not: OpenCV's PNG decoder leaves libpng's default error handler in
     * place, which prints "libpng error: ..." on stderr before the tool's
     * own message (ours keeps the message for the status). */
    const int native_png = fmt == FLOW_FMT_PNG && flow_png_available();
    if (s == FLOW_OK && flow_ocv_available() && !native_png) {
        fclose(f);
        s = flow_ocv_image_read(path, flow_image_format_name(fmt), full16, img);
        if (s != FLOW_OK && fmt == FLOW_FMT_UNKNOWN)
            s = flow_fail(FLOW_ERR_FORMAT,
                          "%s: not an image format libflow or OpenCV knows (first bytes %02x %02x "
                          "%02x %02x)",
                          path, head[0], n > 1 ? head[1] : 0, n > 2 ? head[2] : 0,
                          n > 3 ? head[3] : 0);
        return s;
    }
    if (s == FLOW_OK) {
        switch (fmt) {
        case FLOW_FMT_PNM:
            s = flow_pnm_read_samples(path, f, &pnm, img);
            break;
        case FLOW_FMT_PNG:
            s = flow_png_read(path, img);
            break;
        case FLOW_FMT_JPEG:
            s = flow_jpeg_available() ? flow_jpeg_read(path, img)
                                      : needs_opencv(path, "reading", "JPEG");
            break;
        case FLOW_FMT_UNKNOWN:
            s = flow_fail(FLOW_ERR_FORMAT,
                          "%s: not a PGM, PPM or PNG image (first bytes %02x %02x %02x %02x); "
                          "other formats need OpenCV",
                          path, head[0], n > 1 ? head[1] : 0, n > 2 ? head[2] : 0,
                          n > 3 ? head[3] : 0);
            break;
        default:
            s = needs_opencv(path, "reading", flow_image_format_name(fmt));
        }
    }
    fclose(f);
    return s;
}

flow_status flow_io_fit8(const char *path, flow_image8 *img, int width, int height,
                         int channels)
{
    if (!img->data) {
        flow_status s = flow_image8_alloc(img, width, height, channels);
        if (s != FLOW_OK) {
            char why[512];
            snprintf(why, sizeof why, "%s", flow_last_error());
            return flow_fail(s, "%s: %s", path, why);
        }
        return FLOW_OK;
    }
    if (img->width != width || img->height != height || img->channels != channels)
        return flow_fail(FLOW_ERR_SIZE, "%s: image is %dx%dx%d, the buffer %dx%dx%d", path, width,
                         height, channels, img->width, img->height, img->channels);
    return FLOW_OK;
}

/* The samples of a binary PNM of maxval 255, as stored. */
static flow_status pnm_read8(const char *path, FILE *f, long size, flow_image8 *img)
{
    flow_pnm_info pnm = {0};
    FLOW_TRY(flow_pnm_header(path, f, size, &pnm));
    if (pnm.kind < 5 || pnm.maxval != 255)
        return flow_fail(FLOW_ERR_UNSUPPORTED, "%s: %s PNM of maxval %d, not binary 8-bit",
                         path, pnm.kind < 5 ? "ASCII" : "binary", pnm.maxval);
    FLOW_TRY(flow_io_fit8(path, img, pnm.width, pnm.height, pnm.channels));
    const size_t n = (size_t)pnm.width * pnm.height * pnm.channels;
    if (fread(img->data, 1, n, f) != n)
        return flow_fail(FLOW_ERR_FORMAT, "%s: truncated: fewer than the %zu samples announced",
                         path, n);
    return FLOW_OK;
}

flow_status flow_image8_read(const char *path, flow_image8 *img)
{
    long size = 0;
    FLOW_TRY(check_input(path, &size));
    FILE *f = fopen(path, "rb");
    if (!f)
        return flow_fail(FLOW_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    unsigned char head[FLOW_IMAGE_MAGIC_BYTES];
    const size_t n = fread(head, 1, sizeof head, f);
    const flow_image_format fmt = flow_image_detect(head, n);
    rewind(f);
    const int owned = !img->data; /* allocated here: freed again on failure */
    flow_status s;
    if (fmt == FLOW_FMT_PNM)
        s = pnm_read8(path, f, size, img);
    else if (fmt == FLOW_FMT_PNG && (s = png_check(path, f, size)) == FLOW_OK)
        s = flow_png_read8(path, img);
    else if (fmt != FLOW_FMT_PNG)
        s = flow_fail(FLOW_ERR_UNSUPPORTED, "%s: %s is not read as 8-bit samples", path,
                      flow_image_format_name(fmt));
    fclose(f);
    if (s != FLOW_OK && owned)
        flow_image8_free(img);
    return s;
}

/* Write formats by extension: the native ones and those only OpenCV writes. */
typedef struct ext_format {
    const char *ext;
    flow_image_format fmt;
    int channels; /* 0: either */
} ext_format;

static const ext_format write_exts[] = {
    {"png", FLOW_FMT_PNG, 0},   {"pgm", FLOW_FMT_PNM, 1},    {"ppm", FLOW_FMT_PNM, 3},
    {"pnm", FLOW_FMT_PNM, 0},   {"jpg", FLOW_FMT_JPEG, 0},   {"jpeg", FLOW_FMT_JPEG, 0},
    {"jpe", FLOW_FMT_JPEG, 0},  {"jp2", FLOW_FMT_JP2, 0},    {"tif", FLOW_FMT_TIFF, 0},
    {"tiff", FLOW_FMT_TIFF, 0}, {"bmp", FLOW_FMT_BMP, 0},    {"dib", FLOW_FMT_BMP, 0},
    {"webp", FLOW_FMT_WEBP, 0}, {"exr", FLOW_FMT_EXR, 0},    {"hdr", FLOW_FMT_HDR, 0},
    {"pic", FLOW_FMT_HDR, 0},   {"pfm", FLOW_FMT_PFM, 0},    {"pbm", FLOW_FMT_PBM, 0},
    {"pam", FLOW_FMT_PBM, 0},   {"ras", FLOW_FMT_SUNRAS, 0}, {"sr", FLOW_FMT_SUNRAS, 0},
};


flow_status flow_io_alloc(const char *path, flow_image *img, int width, int height,
                          int channels)
{
    flow_status s = flow_image_alloc(img, width, height, channels);
    if (s != FLOW_OK) {
        char why[512];
        snprintf(why, sizeof why, "%s", flow_last_error());
        return flow_fail(s, "%s: %s", path, why);
    }
    return FLOW_OK;
}

flow_status flow_io_check_output(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return flow_fail(FLOW_ERR_IO, "%s: cannot write: is a directory", path);
    const char *slash = strrchr(path, '/');
    char dir[4096];
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else if ((size_t)(slash - path) < sizeof dir)
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    else
        return flow_fail(FLOW_ERR_IO, "%s: path too long", path);
    if (stat(dir, &st) != 0)
        return flow_fail(FLOW_ERR_IO, "%s: cannot write: directory %s: %s", path, dir,
                         strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return flow_fail(FLOW_ERR_IO, "%s: cannot write: %s is not a directory", path, dir);
    return FLOW_OK;
}

flow_status flow_image_write(const char *path, const flow_image *img)
{
    if (!path || !*path)
        return flow_fail(FLOW_ERR_INVALID, "no image file name given");
    if (!img || !img->data || img->width < 1 || img->height < 1 ||
        (img->channels != 1 && img->channels != 3))
        return flow_fail(FLOW_ERR_INVALID,
                         "%s: cannot write an image of %dx%d pixels and %d channels (expected at "
                         "least 1x1 and 1 or 3 channels)",
                         path, img ? img->width : 0, img ? img->height : 0,
                         img ? img->channels : 0);
    const char *ext = flow_path_extension(path);
    const ext_format *known = NULL;
    for (size_t i = 0; i < sizeof write_exts / sizeof *write_exts; i++)
        if (strcasecmp(ext, write_exts[i].ext) == 0)
            known = &write_exts[i];
    if (known && known->channels && known->channels != img->channels)
        return flow_fail(FLOW_ERR_INVALID,
                         "%s: .%s holds %s images, this one has %d channel%s (use .%s or .png)",
                         path, ext, known->channels == 1 ? "gray" : "colour", img->channels,
                         img->channels == 1 ? "" : "s", known->channels == 1 ? "ppm" : "pgm");
    FLOW_TRY(flow_io_check_output(path));

    if (flow_ocv_available()) {
        if (!flow_ocv_can_write(path))
            return flow_fail(FLOW_ERR_INVALID,
                             "%s: no image writer for the extension '%s' (expected .png, .pgm, "
                             ".ppm, .jpg, .tif, .bmp or another that OpenCV writes)",
                             path, ext);
        return flow_ocv_image_write(path, img);
    }
    if (!known)
        return flow_fail(FLOW_ERR_INVALID,
                         "%s: no image writer for the extension '%s' (expected .png, .pgm, .ppm, "
                         ".pnm%s)",
                         path, ext, flow_jpeg_available() ? " or .jpg" : " or another that OpenCV writes");
    switch (known->fmt) {
    case FLOW_FMT_PNM:
        return flow_pnm_write(path, img);
    case FLOW_FMT_PNG:
        return flow_png_write(path, img);
    case FLOW_FMT_JPEG:
        if (flow_jpeg_available())
            return flow_jpeg_write(path, img);
        return needs_opencv(path, "writing", "JPEG");
    default:
        return needs_opencv(path, "writing", flow_image_format_name(known->fmt));
    }
}
