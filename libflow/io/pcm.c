/* pcm.c -- the Otago "portable complex map" (.pcm) of McCane et al.
 * ("On benchmarking optical flow", CVIU 2001), written by their ray-tracer:
 * a PNM-like text header, then row-major (x, y) float32 pairs,
 * little-endian (the Otago sequences were made on Intel machines).
 *
 * The published description gives only "PC" and the dimensions, so these
 * are the assumptions (docs/FORMATS.md):
 *   - header: "PC", whitespace, width, whitespace, height, then ONE
 *     whitespace character and the data; '#' comments to the end of a line
 *     are allowed wherever whitespace is, as in PNM;
 *   - an optional third number after the height (a PPM-style "maxval" or a
 *     PFM-style scale some writers add) is accepted and ignored: the file
 *     size decides whether it is there (with it the data start after the
 *     one whitespace character that follows it);
 *   - rows from the top, x right and y DOWN (image coordinates, as PPM);
 *   - no unknown marker: values are kept bit for bit both ways, so libflow's
 *     unknown vectors (1e10 or NaN) survive a .pcm round trip.
 * The writer writes "PC\n<width> <height>\n" and the data. */
#include "flowfile_formats.h"
#include "base/fail.h"

#include <ctype.h>
#include <stdlib.h>

/* Longest header accepted (comments included). */
#define PCM_MAX_HEADER 4096

typedef struct pcm_parser {
    const unsigned char *buf;
    size_t len, pos;
} pcm_parser;

/* Skips whitespace and '#' comments; returns whether any was skipped. */
static int skip_blank(pcm_parser *p)
{
    size_t start = p->pos;
    while (p->pos < p->len) {
        unsigned char c = p->buf[p->pos];
        if (c == '#') {
            while (p->pos < p->len && p->buf[p->pos] != '\n')
                p->pos++;
        } else if (isspace(c)) {
            p->pos++;
        } else {
            break;
        }
    }
    return p->pos > start;
}

/* A decimal size: 1 to 10 digits; -1 when there is none. */
static long long parse_size(pcm_parser *p)
{
    long long x = 0;
    int digits = 0;
    while (p->pos < p->len && isdigit(p->buf[p->pos]) && digits < 11) {
        x = 10 * x + (p->buf[p->pos++] - '0');
        digits++;
    }
    if (digits == 0 || digits > 10 || (p->pos < p->len && !isspace(p->buf[p->pos]) &&
                                       p->buf[p->pos] != '#'))
        return -1;
    return x;
}

/* A number token (the optional third field): returns whether one was read. */
static int parse_number(pcm_parser *p)
{
    char tok[64];
    size_t n = 0;
    while (p->pos < p->len && !isspace(p->buf[p->pos]) && n + 1 < sizeof tok)
        tok[n++] = (char)p->buf[p->pos++];
    tok[n] = '\0';
    if (n == 0 || (p->pos < p->len && !isspace(p->buf[p->pos])))
        return 0;
    char *end = NULL;
    double v = strtod(tok, &end);
    return end && *end == '\0' && isfinite(v);
}

flow_status flow_pcm_read(FILE *f, const char *path, long long size, flow_field *out)
{
    unsigned char buf[PCM_MAX_HEADER];
    size_t len = size < PCM_MAX_HEADER ? (size_t)size : PCM_MAX_HEADER;
    if (size < 3)
        return flow_fail(FLOW_ERR_FORMAT, "%s: %lld bytes, too short for a .pcm file", path,
                         size);
    FLOW_TRY(flow_io_read_bytes(f, path, buf, len));
    if (buf[0] != 'P' || buf[1] != 'C' || !(isspace(buf[2]) || buf[2] == '#'))
        return flow_fail(FLOW_ERR_FORMAT,
                         "%s: not a .pcm file (magic bytes %02x %02x, expected \"PC\" and a "
                         "blank)",
                         path, buf[0], buf[1]);
    pcm_parser p = {buf, len, 2};
    skip_blank(&p);
    const long long w = parse_size(&p);
    skip_blank(&p);
    const long long h = parse_size(&p);
    if (w < 0 || h < 0)
        return flow_fail(FLOW_ERR_FORMAT,
                         "%s: bad .pcm header: expected \"PC\", then the width and the height "
                         "as decimal integers",
                         path);
    if (!flow_io_size_ok(w, h))
        return flow_fail(FLOW_ERR_SIZE,
                         "%s: header claims %lldx%lld pixels (each side at least 1, at most "
                         "2^28 pixels in all)",
                         path, w, h);
    const long long data = 8 * w * h;
    /* Either one whitespace character and the data follow the height, or a
     * third number, one whitespace character and the data: the size says
     * which. */
    const long long after_h = (long long)p.pos + 1;
    pcm_parser q = p;
    skip_blank(&q);
    const int third = q.pos < len && parse_number(&q) && q.pos < len;
    const long long after_third = (long long)q.pos + 1;
    long long start;
    if (p.pos < len && isspace(buf[p.pos]) && size - after_h == data)
        start = after_h;
    else if (third && size - after_third == data)
        start = after_third;
    else {
        const long long have = size - (third ? after_third : after_h);
        return flow_fail(FLOW_ERR_FORMAT,
                         "%s: %s: header claims %lldx%lld, which needs %lld bytes of vectors "
                         "after the header, but the file has %lld",
                         path, have < data ? "truncated" : "trailing data", w, h, data, have);
    }
    if (fseek(f, (long)start, SEEK_SET) != 0)
        return flow_fail(FLOW_ERR_IO, "%s: cannot seek to the data", path);
    FLOW_TRY(flow_field_alloc(out, (int)w, (int)h));
    return flow_io_read_pairs(f, path, (size_t)data / 8, 0, out->u, out->v);
}

flow_status flow_pcm_write(FILE *f, const char *path, const flow_field *field)
{
    char header[64];
    int n = snprintf(header, sizeof header, "PC\n%d %d\n", field->width, field->height);
    FLOW_TRY(flow_io_write_bytes(f, path, header, (size_t)n));
    return flow_io_write_pairs(f, path, (size_t)field->width * field->height, 0, field->u,
                               field->v);
}
