/* y4m.c -- native YUV4MPEG2 reader and writer (see y4m.h for the format and
 * the conventions).  Plain C, no codec: every build reads .y4m. */
#include "y4m.h"
#include "image_formats.h"
#include "base/fail.h"
#include "flow/atomic_file.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define HEADER_MAX 65536 /* longest stream header accepted (X comments included) */
#define FRAME_HEADER_MAX 4096

struct flow_y4m_reader {
    FILE *f;
    int is_stdin;
    char name[512]; /* for messages */
    int width, height;
    int cw, ch;        /* chroma plane size */
    int csx, csy;      /* chroma subsampling shifts */
    int planes;        /* 1 (mono), 3, or 4 (444alpha) */
    int depth;         /* bits per sample, 8..16 */
    int bytes;         /* 1 or 2 per sample */
    double y_scale, y_offset; /* sample -> 0..255 luma */
    double c_scale;           /* (sample - mid) -> chroma on the 0..255 scale */
    double c_mid;             /* chroma zero */
    double fps;
    long frame;        /* frames read so far */
    unsigned char *buf; /* allocated at the first frame flow_y4m_read converts */
    size_t frame_bytes;
    long long size;    /* the file's size, or -1 for a pipe or a terminal */
};

struct flow_y4m_writer {
    flow_atomic out;
    char path[4096];
    int width, height, channels;
    unsigned char *buf;
    size_t frame_bytes;
    long frames;
};

int flow_y4m_match(const char *path)
{
    if (!path)
        return 0;
    if (strcmp(path, "-") == 0)
        return 1;
    size_t n = strlen(path);
    return n > 4 && strcasecmp(path + n - 4, ".y4m") == 0;
}

/* Parses a decimal int in [lo, hi] spanning the whole of s; 0 on failure. */
static int parse_int(const char *s, long lo, long hi, int *out)
{
    if (!*s)
        return 0;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*end || errno || v < lo || v > hi)
        return 0;
    *out = (int)v;
    return 1;
}

/* Parses "num:den" with both positive. */
static int parse_ratio(const char *s, int *num, int *den)
{
    char tmp[64];
    const char *colon = strchr(s, ':');
    if (!colon || (size_t)(colon - s) >= sizeof tmp)
        return 0;
    memcpy(tmp, s, (size_t)(colon - s));
    tmp[colon - s] = '\0';
    return parse_int(tmp, 0, 0x7fffffff, num) && parse_int(colon + 1, 0, 0x7fffffff, den);
}

/* Fills the plane layout of reader r from a C tag value; 0 when unknown. */
static int parse_colourspace(flow_y4m_reader *r, const char *c)
{
    int depth = 8;
    const char *rest;
    if (strncmp(c, "mono", 4) == 0) {
        r->planes = 1;
        r->csx = r->csy = 0;
        rest = c + 4;
        if (*rest && !parse_int(rest, 9, 16, &depth))
            return 0;
    } else {
        if (strncmp(c, "420", 3) == 0)
            r->csx = 1, r->csy = 1;
        else if (strncmp(c, "422", 3) == 0)
            r->csx = 1, r->csy = 0;
        else if (strncmp(c, "411", 3) == 0)
            r->csx = 2, r->csy = 0;
        else if (strncmp(c, "444", 3) == 0)
            r->csx = 0, r->csy = 0;
        else
            return 0;
        r->planes = 3;
        rest = c + 3;
        if (*rest == '\0')
            ;
        else if (r->csx == 1 && r->csy == 1
                 && (strcmp(rest, "jpeg") == 0 || strcmp(rest, "paldv") == 0
                     || strcmp(rest, "mpeg2") == 0))
            ;
        else if (r->csx == 0 && strcmp(rest, "alpha") == 0)
            r->planes = 4;
        else if (rest[0] == 'p') {
            if (!parse_int(rest + 1, 9, 16, &depth))
                return 0;
        } else
            return 0;
    }
    r->depth = depth;
    r->bytes = depth > 8 ? 2 : 1;
    /* Samples of `depth` bits: full range maps 0..2^depth-1 onto 0..255. */
    const double maxval = (double)((1L << depth) - 1);
    r->y_scale = 255.0 / maxval;
    r->y_offset = 0;
    r->c_scale = 255.0 / maxval;
    r->c_mid = (double)(1L << (depth - 1));
    return 1;
}

/* Limited ("TV") range: Y 16..235 and chroma 16..240 at 8 bits, shifted
 * left by depth - 8 for deeper samples, expanded to full range. */
static void set_limited_range(flow_y4m_reader *r)
{
    const double shift = ldexp(1.0, r->depth - 8);
    r->y_scale = 255.0 / (219.0 * shift);
    r->y_offset = -16.0 * 255.0 / 219.0;
    r->c_scale = 255.0 / (224.0 * shift);
}

static flow_status reader_fail(flow_y4m_reader *r, flow_status s, const char *why)
{
    flow_status ret = flow_fail(s, "%s: %s", r->name, why);
    flow_y4m_close(r);
    return ret;
}

/* Reads one header line (without its '\n') into line[cap]; returns its
 * length, -1 at EOF before any byte, -2 when too long, -3 at EOF inside. */
static long read_line(FILE *f, char *line, size_t cap)
{
    size_t n = 0;
    for (;;) {
        int c = getc(f);
        if (c == EOF)
            return n == 0 ? -1 : -3;
        if (c == '\n')
            break;
        if (n + 1 >= cap)
            return -2;
        line[n++] = (char)c;
    }
    line[n] = '\0';
    return (long)n;
}

flow_status flow_y4m_open(const char *path, flow_y4m_reader **out)
{
    *out = NULL;
    flow_y4m_reader *r = calloc(1, sizeof *r);
    if (!r)
        return flow_fail(FLOW_ERR_NOMEM, "%s: cannot allocate a video reader", path);
    snprintf(r->name, sizeof r->name, "%s", strcmp(path, "-") == 0 ? "standard input" : path);
    if (strcmp(path, "-") == 0) {
        r->f = stdin;
        r->is_stdin = 1;
    } else {
        r->f = fopen(path, "rb");
        if (!r->f) {
            flow_status s = flow_fail(FLOW_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
            free(r);
            return s;
        }
    }
    char *line = malloc(HEADER_MAX);
    if (!line)
        return reader_fail(r, FLOW_ERR_NOMEM, "cannot allocate the header buffer");
    long n = read_line(r->f, line, HEADER_MAX);
    if (n == -1) {
        free(line);
        return reader_fail(r, FLOW_ERR_FORMAT, "empty file, expected a YUV4MPEG2 header");
    }
    if (n < 0 || strncmp(line, "YUV4MPEG2 ", 10) != 0) {
        free(line);
        return reader_fail(r, FLOW_ERR_FORMAT,
                           n == -2 ? "header line longer than 64 KiB: not a YUV4MPEG2 stream"
                                   : "not a YUV4MPEG2 stream (no 'YUV4MPEG2 ' signature line)");
    }
    int have_c = 0, limited = 0, fnum = 0, fden = 0;
    r->width = r->height = -1;
    char why[600];
    why[0] = '\0';
    for (char *save = NULL, *tok = strtok_r(line + 10, " ", &save); tok && !why[0];
         tok = strtok_r(NULL, " ", &save)) {
        const char *val = tok + 1;
        switch (tok[0]) {
        case 'W':
            if (!parse_int(val, 1, 1 << 20, &r->width))
                snprintf(why, sizeof why, "bad width field '%.40s'", tok);
            break;
        case 'H':
            if (!parse_int(val, 1, 1 << 20, &r->height))
                snprintf(why, sizeof why, "bad height field '%.40s'", tok);
            break;
        case 'F':
            if (!parse_ratio(val, &fnum, &fden))
                snprintf(why, sizeof why, "bad frame-rate field '%.40s' (expected Fnum:den)", tok);
            break;
        case 'I':
            if (strlen(val) != 1 || !strchr("ptbm?", val[0]))
                snprintf(why, sizeof why, "bad interlacing field '%.40s' (expected Ip, It, Ib, Im)",
                         tok);
            break;
        case 'A': {
            int an, ad;
            if (!parse_ratio(val, &an, &ad))
                snprintf(why, sizeof why, "bad aspect field '%.40s' (expected Anum:den)", tok);
            break;
        }
        case 'C':
            have_c = 1;
            if (!parse_colourspace(r, val)) {
                snprintf(why, sizeof why,
                         "colour space '%.40s' is not supported (expected mono, mono16, 420jpeg, "
                         "420paldv, 420mpeg2, 420, 411, 422, 444, 444alpha or 4xxpN)",
                         val);
                free(line);
                return reader_fail(r, FLOW_ERR_UNSUPPORTED, why);
            }
            break;
        case 'X':
            if (strcmp(val, "COLORRANGE=LIMITED") == 0)
                limited = 1;
            break;
        default:
            snprintf(why, sizeof why, "unknown header field '%.40s'", tok);
        }
    }
    free(line);
    if (why[0])
        return reader_fail(r, FLOW_ERR_FORMAT, why);
    if (r->width < 0 || r->height < 0)
        return reader_fail(r, FLOW_ERR_FORMAT, "header lacks the W (width) or H (height) field");
    if ((long)r->width * r->height > FLOW_IMAGE_MAX_PIXELS) {
        snprintf(why, sizeof why, "frame size %dx%d exceeds the limit of 2^28 pixels", r->width,
                 r->height);
        return reader_fail(r, FLOW_ERR_SIZE, why);
    }
    if (!have_c)
        parse_colourspace(r, "420jpeg");
    if (limited)
        set_limited_range(r);
    r->fps = fnum > 0 && fden > 0 ? (double)fnum / fden : 0;
    r->cw = (r->width + (1 << r->csx) - 1) >> r->csx;
    r->ch = (r->height + (1 << r->csy) - 1) >> r->csy;
    size_t luma = (size_t)r->width * r->height, chroma = (size_t)r->cw * r->ch;
    size_t samples = luma;
    if (r->planes >= 3)
        samples += 2 * chroma;
    if (r->planes == 4)
        samples += luma;
    r->frame_bytes = samples * (size_t)r->bytes;
    struct stat st;
    r->size = fstat(fileno(r->f), &st) == 0 && S_ISREG(st.st_mode) ? (long long)st.st_size : -1;
    *out = r;
    return FLOW_OK;
}

static inline double sample(const unsigned char *p, size_t i, int bytes)
{
    if (bytes == 1)
        return p[i];
    return (double)(p[2 * i] | (p[2 * i + 1] << 8));
}

static inline float clamp255(double v)
{
    return (float)(v < 0 ? 0 : v > 255 ? 255 : v);
}

/* The next frame's header; *more is 0 at the clean end of the stream.  In
 * a file the frame's samples must all be there before anything is
 * allocated for them: a header's frame size alone (up to 2 GiB) allocates
 * nothing. */
static flow_status frame_header(flow_y4m_reader *r, int *more)
{
    *more = 0;
    char line[FRAME_HEADER_MAX];
    long n = read_line(r->f, line, sizeof line);
    if (n == -1)
        return FLOW_OK;
    if (n < 0 || strncmp(line, "FRAME", 5) != 0 || (line[5] != '\0' && line[5] != ' '))
        return flow_fail(FLOW_ERR_FORMAT, "%s: frame %ld: bad frame header (expected 'FRAME')",
                         r->name, r->frame);
    const long pos = r->size >= 0 ? ftell(r->f) : -1;
    if (pos >= 0 && r->size - pos < (long long)r->frame_bytes)
        return flow_fail(FLOW_ERR_FORMAT, "%s: frame %ld is truncated (%lld of %zu bytes)",
                         r->name, r->frame, r->size - pos, r->frame_bytes);
    *more = 1;
    return FLOW_OK;
}

/* The frame_bytes samples after a frame header into dst. */
static flow_status frame_data(flow_y4m_reader *r, unsigned char *dst)
{
    size_t rd = fread(dst, 1, r->frame_bytes, r->f);
    if (rd != r->frame_bytes)
        return flow_fail(FLOW_ERR_FORMAT, "%s: frame %ld is truncated (%zu of %zu bytes)%s%s",
                         r->name, r->frame, rd, r->frame_bytes, ferror(r->f) ? ": " : "",
                         ferror(r->f) ? strerror(errno) : "");
    return FLOW_OK;
}

/* Whether the frames are 8-bit full-range mono samples, the frame itself. */
static int is8(const flow_y4m_reader *r)
{
    return r->planes == 1 && r->bytes == 1 && r->y_scale == 1.0 && r->y_offset == 0.0;
}

flow_status flow_y4m_read8(flow_y4m_reader *r, flow_image8 *img, int *got)
{
    *got = 0;
    if (!is8(r))
        return flow_fail(FLOW_ERR_UNSUPPORTED,
                         "%s: the frames are not 8-bit full-range mono samples: read them as "
                         "images", r->name);
    /* a buffer of another size is refused before anything is read; one is
     * allocated only for a frame that is there */
    if (img->data)
        FLOW_TRY(flow_io_fit8(r->name, img, r->width, r->height, 1));
    int more = 0;
    FLOW_TRY(frame_header(r, &more));
    if (!more)
        return FLOW_OK; /* clean end of the stream */
    if (!img->data)
        FLOW_TRY(flow_io_fit8(r->name, img, r->width, r->height, 1));
    FLOW_TRY(frame_data(r, img->data));
    r->frame++;
    *got = 1;
    return FLOW_OK;
}

/* The frame's samples raw, as stored, into img (of the stream's size and
 * channels, allocated when img->data is NULL) as floats: the luma, or RGB. */
static flow_status to_float(const flow_y4m_reader *r, const unsigned char *raw, flow_image *img)
{
    const int channels = flow_y4m_channels(r);
    if (img->data) {
        if (img->width != r->width || img->height != r->height || img->channels != channels)
            return flow_fail(FLOW_ERR_SIZE,
                             "%s: frame buffer is %dx%dx%d, the stream has %dx%dx%d frames",
                             r->name, img->width, img->height, img->channels, r->width,
                             r->height, channels);
    } else
        FLOW_TRY(flow_io_alloc(r->name, img, r->width, r->height, channels));

    const int w = r->width, h = r->height, bytes = r->bytes;
    const size_t luma = (size_t)w * h, chroma = (size_t)r->cw * r->ch;
    const unsigned char *yp = raw;
    /* 8-bit samples go through tables: the conversion runs at memory speed. */
    float ylut[256], clut[256];
    if (bytes == 1)
        for (int i = 0; i < 256; i++) {
            ylut[i] = (float)(r->y_scale * i + r->y_offset);
            clut[i] = (float)(r->c_scale * (i - r->c_mid));
        }
    if (channels == 1) {
        float *dst = img->data;
        if (bytes == 1) {
            float gray[256]; /* the table with the clamp applied once */
            for (int i = 0; i < 256; i++)
                gray[i] = clamp255(ylut[i]);
            for (size_t i = 0; i < luma; i++)
                dst[i] = gray[yp[i]];
        } else
            for (size_t i = 0; i < luma; i++)
                dst[i] = clamp255(r->y_scale * sample(yp, i, 2) + r->y_offset);
    } else {
        const unsigned char *cbp = raw + luma * bytes, *crp = cbp + chroma * bytes;
        float *R = img->data, *G = R + luma, *B = G + luma;
        for (int y = 0; y < h; y++) {
            const size_t crow = (size_t)(y >> r->csy) * r->cw;
            for (int x = 0; x < w; x++) {
                const size_t i = (size_t)y * w + x, c = crow + (size_t)(x >> r->csx);
                double Y, Cb, Cr;
                if (bytes == 1) {
                    Y = ylut[yp[i]], Cb = clut[cbp[c]], Cr = clut[crp[c]];
                } else {
                    Y = r->y_scale * sample(yp, i, 2) + r->y_offset;
                    Cb = r->c_scale * (sample(cbp, c, 2) - r->c_mid);
                    Cr = r->c_scale * (sample(crp, c, 2) - r->c_mid);
                }
                /* BT.601 (JFIF) YCbCr -> RGB. */
                R[i] = clamp255(Y + 1.402 * Cr);
                G[i] = clamp255(Y - 0.344136 * Cb - 0.714136 * Cr);
                B[i] = clamp255(Y + 1.772 * Cb);
            }
        }
    }
    return FLOW_OK;
}

flow_status flow_y4m_read(flow_y4m_reader *r, flow_image *img, int *got)
{
    *got = 0;
    int more = 0;
    FLOW_TRY(frame_header(r, &more));
    if (!more)
        return FLOW_OK; /* clean end of the stream */
    if (!r->buf && !(r->buf = malloc(r->frame_bytes)))
        return flow_fail(FLOW_ERR_NOMEM, "%s: cannot allocate a frame buffer of %zu bytes",
                         r->name, r->frame_bytes);
    FLOW_TRY(frame_data(r, r->buf));
    FLOW_TRY(to_float(r, r->buf, img));
    r->frame++;
    *got = 1;
    return FLOW_OK;
}

/* ---- frames read by several threads ---------------------------------------- */

int flow_y4m_claims(const flow_y4m_reader *r)
{
    return r->size >= 0;
}

flow_status flow_y4m_claim(flow_y4m_reader *r, flow_video_place *place, int *got)
{
    *got = 0;
    if (!flow_y4m_claims(r))
        return flow_fail(FLOW_ERR_UNSUPPORTED, "%s: a stream, not a file: its frames are read "
                         "in order (flow_video_read)", r->name);
    int more = 0;
    FLOW_TRY(frame_header(r, &more));
    if (!more)
        return FLOW_OK;
    const off_t at = ftello(r->f);
    if (at < 0 || fseeko(r->f, (off_t)r->frame_bytes, SEEK_CUR) != 0)
        return flow_fail(FLOW_ERR_IO, "%s: frame %ld: cannot seek: %s", r->name, r->frame,
                         strerror(errno));
    place->offset = (long long)at;
    place->frame = r->frame++;
    *got = 1;
    return FLOW_OK;
}

/* The frame_bytes samples at place into dst, with pread: the stream's own
 * position, which the claims move, is left alone. */
static flow_status fetch_raw(const flow_y4m_reader *r, const flow_video_place *place,
                             unsigned char *dst)
{
    size_t done = 0;
    while (done < r->frame_bytes) {
        const ssize_t n = pread(fileno(r->f), dst + done, r->frame_bytes - done,
                                (off_t)place->offset + (off_t)done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return flow_fail(FLOW_ERR_FORMAT, "%s: frame %ld is truncated (%zu of %zu bytes)%s%s",
                             r->name, place->frame, done, r->frame_bytes, n < 0 ? ": " : "",
                             n < 0 ? strerror(errno) : "");
        done += (size_t)n;
    }
    return FLOW_OK;
}

flow_status flow_y4m_fetch8(const flow_y4m_reader *r, const flow_video_place *place,
                            flow_image8 *img)
{
    if (!is8(r))
        return flow_fail(FLOW_ERR_UNSUPPORTED,
                         "%s: the frames are not 8-bit full-range mono samples: read them as "
                         "images", r->name);
    FLOW_TRY(flow_io_fit8(r->name, img, r->width, r->height, 1));
    return fetch_raw(r, place, img->data);
}

flow_status flow_y4m_fetch(const flow_y4m_reader *r, const flow_video_place *place,
                           flow_image *img)
{
    unsigned char *raw = malloc(r->frame_bytes);
    if (!raw)
        return flow_fail(FLOW_ERR_NOMEM, "%s: cannot allocate a frame buffer of %zu bytes",
                         r->name, r->frame_bytes);
    flow_status s = fetch_raw(r, place, raw);
    if (s == FLOW_OK)
        s = to_float(r, raw, img);
    free(raw);
    return s;
}

int flow_y4m_width(const flow_y4m_reader *r)
{
    return r->width;
}

int flow_y4m_height(const flow_y4m_reader *r)
{
    return r->height;
}

int flow_y4m_channels(const flow_y4m_reader *r)
{
    return r->planes == 1 ? 1 : 3;
}

int flow_y4m_gives8(const flow_y4m_reader *r)
{
    return is8(r);
}

double flow_y4m_fps(const flow_y4m_reader *r)
{
    return r->fps;
}

void flow_y4m_close(flow_y4m_reader *r)
{
    if (!r)
        return;
    if (r->f && !r->is_stdin)
        fclose(r->f);
    free(r->buf);
    free(r);
}

/* ---- writer --------------------------------------------------------------- */

flow_status flow_y4m_writer_open(const char *path, int width, int height, int channels,
                                 int fps_num, int fps_den, flow_y4m_writer **out)
{
    *out = NULL;
    if (width < 1 || height < 1 || (long)width * height > FLOW_IMAGE_MAX_PIXELS)
        return flow_fail(FLOW_ERR_SIZE, "%s: cannot write %dx%d frames", path, width, height);
    if (channels != 1 && channels != 3)
        return flow_fail(FLOW_ERR_INVALID, "%s: frames must have 1 or 3 channels, not %d", path,
                         channels);
    if (fps_num < 1 || fps_den < 1)
        return flow_fail(FLOW_ERR_INVALID, "%s: frame rate %d:%d must be positive", path, fps_num,
                         fps_den);
    flow_y4m_writer *w = calloc(1, sizeof *w);
    if (!w)
        return flow_fail(FLOW_ERR_NOMEM, "%s: cannot allocate a video writer", path);
    snprintf(w->path, sizeof w->path, "%s", path);
    w->width = width, w->height = height, w->channels = channels;
    w->frame_bytes = (size_t)width * height * (size_t)channels;
    w->buf = malloc(w->frame_bytes);
    if (!w->buf) {
        free(w);
        return flow_fail(FLOW_ERR_NOMEM, "%s: cannot allocate a frame buffer", path);
    }
    flow_status s = flow_atomic_open(&w->out, w->path);
    if (s != FLOW_OK) {
        free(w->buf);
        free(w);
        return s;
    }
    fprintf(w->out.f, "YUV4MPEG2 W%d H%d F%d:%d Ip A1:1 C%s XCOLORRANGE=FULL\n", width, height,
            fps_num, fps_den, channels == 1 ? "mono" : "444");
    *out = w;
    return FLOW_OK;
}

static inline unsigned char to_byte(double v)
{
    return (unsigned char)(v <= 0 ? 0 : v >= 255 ? 255 : lround(v));
}

flow_status flow_y4m_writer_write(flow_y4m_writer *w, const flow_image *img)
{
    if (img->width != w->width || img->height != w->height || img->channels != w->channels)
        return flow_fail(FLOW_ERR_SIZE, "%s: frame %ld is %dx%dx%d, the stream is %dx%dx%d",
                         w->path, w->frames, img->width, img->height, img->channels, w->width,
                         w->height, w->channels);
    const size_t n = (size_t)w->width * w->height;
    if (w->channels == 1) {
        for (size_t i = 0; i < n; i++)
            w->buf[i] = to_byte(img->data[i]);
    } else {
        const float *R = img->data, *G = R + n, *B = G + n;
        unsigned char *Y = w->buf, *Cb = Y + n, *Cr = Cb + n;
        for (size_t i = 0; i < n; i++) {
            /* BT.601 (JFIF) RGB -> YCbCr, full range. */
            const double r = R[i], g = G[i], b = B[i];
            Y[i] = to_byte(0.299 * r + 0.587 * g + 0.114 * b);
            Cb[i] = to_byte(128.0 - 0.168736 * r - 0.331264 * g + 0.5 * b);
            Cr[i] = to_byte(128.0 + 0.5 * r - 0.418688 * g - 0.081312 * b);
        }
    }
    if (fputs("FRAME\n", w->out.f) == EOF || fwrite(w->buf, 1, w->frame_bytes, w->out.f)
                                                 != w->frame_bytes)
        return flow_fail(FLOW_ERR_IO, "%s: cannot write frame %ld: %s", w->path, w->frames,
                         strerror(errno));
    w->frames++;
    return FLOW_OK;
}

flow_status flow_y4m_writer_finish(flow_y4m_writer *w)
{
    flow_status s = flow_atomic_commit(&w->out);
    free(w->buf);
    free(w);
    return s;
}

void flow_y4m_writer_abort(flow_y4m_writer *w)
{
    if (!w)
        return;
    flow_atomic_abort(&w->out);
    free(w->buf);
    free(w);
}
