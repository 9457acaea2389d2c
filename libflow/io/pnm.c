/* pnm.c -- PGM and PPM (Netpbm) read and written natively.
 *
 * Reads P2/P3 (ASCII) and P5/P6 (binary), maxval 1..255 (8-bit samples) and
 * 256..65535 (16-bit samples, most significant byte first), with '#'
 * comments anywhere whitespace may stand in the header.  Samples are scaled
 * by 255/maxval onto libflow's 0..255 scale.  The header is checked before
 * anything is allocated: dimensions within FLOW_IMAGE_MAX_PIXELS, a file
 * long enough for the samples it announces, and no sample above maxval
 * (ASCII or binary).  Writes binary 8-bit P5/P6.
 * Netpbm's own description of the format (netpbm.sourceforge.net, pgm(5),
 * ppm(5)) is the reference. */
#include "io/image_formats.h"
#include "base/fail.h"
#include "flow/atomic_file.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static int is_space(int c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Skips whitespace and '#' comments; returns the next character, left
 * unread, or EOF. */
static int skip_space(FILE *f)
{
    for (;;) {
        int c = getc(f);
        if (c == '#') {
            do
                c = getc(f);
            while (c != '\n' && c != '\r' && c != EOF);
        }
        if (c == EOF)
            return EOF;
        if (!is_space(c)) {
            ungetc(c, f);
            return c;
        }
    }
}

/* Reads a decimal number of at most 12 digits after skip_space().
 * Returns 1 and *v, 0 when the next character is no digit (*c holds it, EOF
 * included), -1 when the number has more than 12 digits. */
static int read_number(FILE *f, long long *v, int *c)
{
    *c = skip_space(f);
    if (*c < '0' || *c > '9')
        return 0;
    long long x = 0;
    int digits = 0, d;
    while ((d = getc(f)) >= '0' && d <= '9') {
        if (++digits > 12)
            return -1;
        x = 10 * x + (d - '0');
    }
    if (d != EOF)
        ungetc(d, f);
    *v = x;
    return 1;
}

/* One header field: width, height or maxval. */
static flow_status header_field(const char *path, FILE *f, const char *what, long long *v)
{
    int c;
    int r = read_number(f, v, &c);
    if (r < 0)
        return flow_fail(FLOW_ERR_SIZE, "%s: PNM header %s has more than 12 digits", path, what);
    if (r == 0 && c == EOF)
        return flow_fail(FLOW_ERR_FORMAT, "%s: truncated PNM header: the file ends before the %s",
                         path, what);
    if (r == 0)
        return flow_fail(FLOW_ERR_FORMAT,
                         "%s: bad PNM header: expected the %s (a decimal number), found '%c'",
                         path, what, c);
    return FLOW_OK;
}

/* The error for sample i (0-based, in file order) of value v above maxval. */
static flow_status above_maxval(const char *path, const flow_pnm_info *info, long long i,
                                long long v)
{
    static const char *const colour[3] = {", red", ", green", ", blue"};
    const long long pixel = i / info->channels;
    return flow_fail(FLOW_ERR_FORMAT, "%s: sample %lld (x %lld, y %lld%s) is %lld, above maxval %d",
                     path, i + 1, pixel % info->width, pixel / info->width,
                     info->channels == 3 ? colour[i % 3] : "", v, info->maxval);
}

/* Checks every binary sample against maxval, reading from f (at the
 * samples) in blocks. */
static flow_status binary_samples_check(const char *path, FILE *f, const flow_pnm_info *info)
{
    const int bps = info->maxval > 255 ? 2 : 1;
    const long long n = (long long)info->width * info->height * info->channels;
    unsigned char buf[8192];
    for (long long done = 0; done < n;) {
        const long long left = n - done, fit = (long long)sizeof buf / bps;
        const size_t k = (size_t)(left < fit ? left : fit);
        if (fread(buf, (size_t)bps, k, f) != k)
            return flow_fail(FLOW_ERR_IO, "%s: read failed in the samples: %s", path,
                             ferror(f) ? strerror(errno) : "the file shrank");
        for (size_t i = 0; i < k; i++) {
            const unsigned v = bps == 2 ? (unsigned)buf[2 * i] << 8 | buf[2 * i + 1] : buf[i];
            if (v > (unsigned)info->maxval)
                return above_maxval(path, info, done + (long long)i, v);
        }
        done += (long long)k;
    }
    return FLOW_OK;
}

flow_status flow_pnm_header(const char *path, FILE *f, long size, flow_pnm_info *info)
{
    memset(info, 0, sizeof *info);
    int m0 = getc(f), m1 = getc(f);
    if (m0 != 'P' || (m1 != '2' && m1 != '3' && m1 != '5' && m1 != '6'))
        return flow_fail(FLOW_ERR_FORMAT, "%s: not a PGM/PPM file (expected P2, P3, P5 or P6)",
                         path);
    info->kind = m1 - '0';
    info->channels = (m1 == '3' || m1 == '6') ? 3 : 1;
    long long w, h, maxval;
    FLOW_TRY(header_field(path, f, "width", &w));
    FLOW_TRY(header_field(path, f, "height", &h));
    FLOW_TRY(header_field(path, f, "maxval", &maxval));
    if (w < 1 || h < 1 || w > INT_MAX || h > INT_MAX || w * h > FLOW_IMAGE_MAX_PIXELS)
        return flow_fail(FLOW_ERR_SIZE,
                         "%s: PNM header claims %lldx%lld pixels (expected 1 to %ld pixels)", path,
                         w, h, (long)FLOW_IMAGE_MAX_PIXELS);
    if (maxval < 1 || maxval > 65535)
        return flow_fail(FLOW_ERR_FORMAT,
                         "%s: PNM maxval %lld not supported (expected 1..255 for 8-bit or "
                         "256..65535 for 16-bit samples)",
                         path, maxval);
    info->width = (int)w;
    info->height = (int)h;
    info->maxval = (int)maxval;
    /* Exactly one whitespace character separates the header from the samples. */
    int c = getc(f);
    if (c == EOF)
        return flow_fail(FLOW_ERR_FORMAT, "%s: truncated: the file ends after the PNM header",
                         path);
    if (!is_space(c))
        return flow_fail(FLOW_ERR_FORMAT,
                         "%s: bad PNM header: expected whitespace after maxval, found '%c'", path,
                         c);
    info->data_offset = ftell(f);
    if (info->data_offset < 0)
        return flow_fail(FLOW_ERR_IO, "%s: cannot tell position: %s", path, strerror(errno));

    const long long samples = w * h * info->channels;
    const long long have = size - info->data_offset;
    if (info->kind >= 5) {
        const long long need = samples * (maxval > 255 ? 2 : 1);
        if (have < need)
            return flow_fail(FLOW_ERR_FORMAT,
                             "%s: truncated: the header announces %lldx%lld %s %d-byte samples "
                             "(%lld bytes), the file holds %lld after the header",
                             path, w, h, info->channels == 3 ? "RGB" : "gray",
                             maxval > 255 ? 2 : 1, need, have);
        /* A sample can exceed maxval only when maxval is below its sample
         * size's full range: then every sample is checked, here, so that
         * no decoder (ours or OpenCV's) sees one. */
        if (maxval == 255 || maxval == 65535)
            return FLOW_OK;
        FLOW_TRY(binary_samples_check(path, f, info));
        if (fseek(f, info->data_offset, SEEK_SET) != 0)
            return flow_fail(FLOW_ERR_IO, "%s: cannot seek: %s", path, strerror(errno));
        return FLOW_OK;
    }
    /* ASCII: each sample takes a digit and a separator, the last one no
     * separator; then every sample is scanned so that a truncated or corrupt
     * file is refused here, before any decoder sees it. */
    if (have < 2 * samples - 1)
        return flow_fail(FLOW_ERR_FORMAT,
                         "%s: truncated: the header announces %lld ASCII samples, which need at "
                         "least %lld bytes, the file holds %lld",
                         path, samples, 2 * samples - 1, have);
    FLOW_TRY(flow_pnm_read_samples(path, f, info, NULL));
    if (fseek(f, info->data_offset, SEEK_SET) != 0)
        return flow_fail(FLOW_ERR_IO, "%s: cannot seek: %s", path, strerror(errno));
    return FLOW_OK;
}

/* Reads the ASCII samples into dst (planar, scaled) or, with dst NULL, only
 * checks them. */
static flow_status ascii_samples(const char *path, FILE *f, const flow_pnm_info *info,
                                 float *dst)
{
    const size_t plane = (size_t)info->width * info->height;
    const long long n = (long long)plane * info->channels;
    const double scale = 255.0 / info->maxval;
    for (long long i = 0; i < n; i++) {
        long long v;
        int c;
        int r = read_number(f, &v, &c);
        if (r == 0 && c == EOF)
            return flow_fail(FLOW_ERR_FORMAT,
                             "%s: truncated: the header announces %lld samples, the file holds "
                             "%lld",
                             path, n, i);
        if (r == 0)
            return flow_fail(FLOW_ERR_FORMAT, "%s: sample %lld: expected a number, found '%c'",
                             path, i + 1, c);
        if (r < 0)
            return flow_fail(FLOW_ERR_FORMAT, "%s: sample %lld has more than 12 digits, above "
                             "maxval %d", path, i + 1, info->maxval);
        if (v > info->maxval)
            return above_maxval(path, info, i, v);
        if (dst) {
            const size_t p = (size_t)(i / info->channels);
            const int ch = (int)(i % info->channels);
            dst[ch * plane + p] = (float)(v * scale);
        }
    }
    return FLOW_OK;
}

flow_status flow_pnm_read_samples(const char *path, FILE *f, const flow_pnm_info *info,
                                  flow_image *img)
{
    if (!img)
        return ascii_samples(path, f, info, NULL);
    FLOW_TRY(flow_io_alloc(path, img, info->width, info->height, info->channels));
    flow_status s = FLOW_OK;
    if (info->kind < 5) {
        s = ascii_samples(path, f, info, img->data);
    } else {
        const int bps = info->maxval > 255 ? 2 : 1;
        const int ch = info->channels, w = info->width;
        const size_t plane = (size_t)w * info->height, row = (size_t)w * ch * bps;
        const double scale = 255.0 / info->maxval;
        unsigned char *buf = malloc(row);
        if (!buf)
            s = flow_fail(FLOW_ERR_NOMEM, "%s: cannot allocate a row of %zu bytes", path, row);
        for (int y = 0; s == FLOW_OK && y < info->height; y++) {
            if (fread(buf, 1, row, f) != row) {
                s = flow_fail(FLOW_ERR_FORMAT, "%s: truncated: the file ends in row %d of %d",
                              path, y + 1, info->height);
                break;
            }
            for (int x = 0; x < w; x++)
                for (int c = 0; c < ch; c++) {
                    const unsigned char *b = buf + ((size_t)x * ch + c) * bps;
                    const unsigned v = bps == 2 ? (unsigned)b[0] << 8 | b[1] : b[0];
                    img->data[c * plane + (size_t)y * w + x] = (float)(v * scale);
                }
        }
        free(buf);
    }
    if (s != FLOW_OK)
        flow_image_free(img);
    return s;
}

flow_status flow_pnm_write(const char *path, const flow_image *img)
{
    const int w = img->width, h = img->height, ch = img->channels;
    const size_t plane = (size_t)w * h, row = (size_t)w * ch;
    unsigned char *buf = malloc(row);
    if (!buf)
        return flow_fail(FLOW_ERR_NOMEM, "%s: cannot allocate a row of %zu bytes", path, row);
    flow_atomic a;
    flow_status s = flow_atomic_open(&a, path);
    if (s != FLOW_OK) {
        free(buf);
        return s;
    }
    fprintf(a.f, "P%c\n%d %d\n255\n", ch == 3 ? '6' : '5', w, h);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++)
            for (int c = 0; c < ch; c++)
                buf[(size_t)x * ch + c] = flow_quantize_u8(img->data[c * plane + (size_t)y * w + x]);
        if (fwrite(buf, 1, row, a.f) != row)
            break; /* flow_atomic_commit sees the stream's error */
    }
    free(buf);
    return flow_atomic_commit(&a);
}
