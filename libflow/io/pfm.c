/* pfm.c -- the Portable Float Map (.pfm) as a flow file, the format of
 * the ground truth of FlyingThings3D, Monkaa and Driving (Mayer et al.,
 * CVPR 2016):
 *
 *   "PF" (3 channels) or "Pf" (1 channel), whitespace, width, whitespace,
 *   height, whitespace, a scale (a decimal number whose SIGN is the byte
 *   order: negative little-endian, positive big-endian), exactly one
 *   whitespace character, then the float32 samples, rows from the BOTTOM
 *   of the picture, the channels of a pixel together.
 *
 * A flow is "PF": u, v and a third channel (0 in those data sets), which
 * the reader ignores and the writer writes as 0.  "Pf" holds one value per
 * pixel and is refused as a flow, saying so.  Values are kept bit for bit
 * both ways, so NaN (or a component above 1e9) is an unknown vector, as in
 * .flo.  The writer writes "PF\n<w> <h>\n-1\n" and little-endian samples.
 * The header is checked and the file size must be exactly the header plus
 * 12 bytes per pixel before anything is allocated. */
#include "flowfile_formats.h"
#include "base/fail.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>

/* Longest header accepted: the three numbers leave no room for more. */
#define PFM_MAX_HEADER 256

typedef struct pfm_parser {
    const unsigned char *buf;
    size_t len, pos;
} pfm_parser;

static int skip_space(pfm_parser *p)
{
    size_t start = p->pos;
    while (p->pos < p->len && isspace(p->buf[p->pos]))
        p->pos++;
    return p->pos > start;
}

/* The next token (up to whitespace) into tok; returns its length, 0 when
 * there is none or it does not end inside the header. */
static size_t token(pfm_parser *p, char *tok, size_t size)
{
    size_t n = 0;
    while (p->pos < p->len && !isspace(p->buf[p->pos]) && n + 1 < size)
        tok[n++] = (char)p->buf[p->pos++];
    tok[n] = '\0';
    return p->pos < p->len && isspace(p->buf[p->pos]) ? n : 0;
}

/* A decimal size of 1 to 10 digits, -1 when the token is not one. */
static long long size_of(const char *tok)
{
    long long x = 0;
    size_t i = 0;
    for (; tok[i] && i < 11; i++) {
        if (!isdigit((unsigned char)tok[i]))
            return -1;
        x = 10 * x + (tok[i] - '0');
    }
    return i >= 1 && i <= 10 && !tok[i] ? x : -1;
}

flow_status flow_pfm_read(FILE *f, const char *path, long long size, flow_field *out)
{
    unsigned char buf[PFM_MAX_HEADER];
    const size_t len = size < PFM_MAX_HEADER ? (size_t)size : PFM_MAX_HEADER;
    if (size < 3)
        return flow_fail(FLOW_ERR_FORMAT, "%s: %lld bytes, too short for a .pfm file", path,
                         size);
    FLOW_TRY(flow_io_read_bytes(f, path, buf, len));
    if (buf[0] != 'P' || (buf[1] != 'F' && buf[1] != 'f') || !isspace(buf[2]))
        return flow_fail(FLOW_ERR_FORMAT,
                         "%s: not a .pfm file (magic bytes %02x %02x, expected \"PF\" and a "
                         "blank)",
                         path, buf[0], buf[1]);
    if (buf[1] == 'f')
        return flow_fail(FLOW_ERR_FORMAT,
                         "%s: a one-channel PFM (\"Pf\"), not a flow: a PFM flow is \"PF\", "
                         "three channels (u, v and a third that is ignored)",
                         path);
    pfm_parser p = {buf, len, 2};
    char wt[16], ht[16], st[64];
    skip_space(&p);
    const size_t wn = token(&p, wt, sizeof wt);
    skip_space(&p);
    const size_t hn = token(&p, ht, sizeof ht);
    skip_space(&p);
    const size_t sn = token(&p, st, sizeof st);
    const long long w = wn ? size_of(wt) : -1, h = hn ? size_of(ht) : -1;
    char *end = NULL;
    const double scale = sn ? strtod(st, &end) : 0.0;
    if (w < 0 || h < 0 || !sn || !end || *end || !isfinite(scale) || scale == 0.0)
        return flow_fail(FLOW_ERR_FORMAT,
                         "%s: bad .pfm header: expected \"PF\", the width and the height as "
                         "decimal integers, then a nonzero scale (its sign is the byte "
                         "order), each after whitespace",
                         path);
    if (!flow_io_size_ok(w, h))
        return flow_fail(FLOW_ERR_SIZE,
                         "%s: header claims %lldx%lld pixels (each side at least 1, at most "
                         "2^28 pixels in all)",
                         path, w, h);
    /* exactly one whitespace character ends the header (token() left us on it) */
    const long long start = (long long)p.pos + 1;
    const long long data = 12 * w * h;
    if (size - start != data)
        return flow_fail(FLOW_ERR_FORMAT,
                         "%s: %s: header claims %lldx%lld, which needs %lld bytes of samples "
                         "(3 float32 per pixel) after the header, but the file has %lld",
                         path, size - start < data ? "truncated" : "trailing data", w, h, data,
                         size - start);
    const int big_endian = scale > 0;
    if (fseek(f, (long)start, SEEK_SET) != 0)
        return flow_fail(FLOW_ERR_IO, "%s: cannot seek to the samples", path);
    FLOW_TRY(flow_field_alloc(out, (int)w, (int)h));
    unsigned char *row = malloc((size_t)w * 12);
    if (!row)
        return flow_fail(FLOW_ERR_NOMEM, "%s: cannot allocate a row of %lld pixels", path, w);
    flow_status s = FLOW_OK;
    for (long long y = h - 1; y >= 0 && s == FLOW_OK; y--) {
        s = flow_io_read_bytes(f, path, row, (size_t)w * 12);
        for (long long x = 0; x < w && s == FLOW_OK; x++) {
            const unsigned char *q = row + 12 * x;
            const uint32_t bu = big_endian ? flow_io_load_be32(q) : flow_io_load_le32(q);
            const uint32_t bv = big_endian ? flow_io_load_be32(q + 4) : flow_io_load_le32(q + 4);
            out->u[y * w + x] = flow_io_float_from_bits(bu);
            out->v[y * w + x] = flow_io_float_from_bits(bv);
        }
    }
    free(row);
    return s;
}

flow_status flow_pfm_write(FILE *f, const char *path, const flow_field *field)
{
    char header[64];
    const int n = snprintf(header, sizeof header, "PF\n%d %d\n-1\n", field->width,
                           field->height);
    FLOW_TRY(flow_io_write_bytes(f, path, header, (size_t)n));
    const size_t w = (size_t)field->width;
    unsigned char *row = calloc(w, 12); /* the third channel stays 0 */
    if (!row)
        return flow_fail(FLOW_ERR_NOMEM, "%s: cannot allocate a row of %zu pixels", path, w);
    flow_status s = FLOW_OK;
    for (int y = field->height - 1; y >= 0 && s == FLOW_OK; y--) {
        for (size_t x = 0; x < w; x++) {
            flow_io_store_le32(row + 12 * x, flow_io_bits_from_float(field->u[y * w + x]));
            flow_io_store_le32(row + 12 * x + 4, flow_io_bits_from_float(field->v[y * w + x]));
        }
        s = flow_io_write_bytes(f, path, row, w * 12);
    }
    free(row);
    return s;
}
