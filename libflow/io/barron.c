/* barron.c -- the .F format of Barron, Fleet and Beauchemin ("Performance
 * of optical flow techniques", IJCV 1994), written by their horn.c,
 * lucas.c, ... and used for the Yosemite ground truth:
 *
 *   six float32 header values: image width, image height, flow width, flow
 *   height, x offset, y offset; then flow-height rows (top row first) of
 *   flow-width (u, v) float32 pairs; u points right, v points UP; (100, 100)
 *   marks a missing vector.
 *
 * Byte order: the original files were written on Suns (big-endian).  The
 * reader detects the order from the header: it must be six non-negative
 * integral values describing a flow window inside the image in one order
 * and not in the other (a width of 316 read in the wrong order is a
 * denormal, not an integer).  The writer writes big-endian, like the
 * originals, with the flow window equal to the image (offsets 0).
 *
 * In memory v points down, so the reader and the writer negate v, never
 * the marker: reading maps (100, 100) to FLOW_UNKNOWN in both components,
 * writing maps any unknown vector to (100, 100).  A file whose flow window
 * is smaller than the image reads as a field of the image size with
 * unknown vectors outside the window.  What the header makes the reader
 * allocate is bounded by the file's size: the image may have at most
 * BARRON_MAX_SPREAD times the window's pixels, unless it has at most
 * BARRON_SMALL_IMAGE pixels (8 MiB of vectors) -- a 32-byte file cannot
 * make it fill a 16777216x16 field with unknown vectors. */
#include "flowfile_formats.h"
#include "base/fail.h"

#include <math.h>
#include <stdlib.h>

#define BARRON_HEADER 24
#define BARRON_MISSING 100.0f
/* The flow windows of Barron's programs leave a border of a few pixels
 * (their filters' support) around the image: a window under a quarter of
 * a large image is a corrupt header, not a border. */
#define BARRON_MAX_SPREAD 4
#define BARRON_SMALL_IMAGE (1L << 20)

/* The header decoded in one byte order. */
typedef struct barron_header {
    double iw, ih, fw, fh, xo, yo;
} barron_header;

static void decode_header(const unsigned char *h, int big_endian, barron_header *out)
{
    double v[6];
    for (int i = 0; i < 6; i++) {
        uint32_t b = big_endian ? flow_io_load_be32(h + 4 * i) : flow_io_load_le32(h + 4 * i);
        v[i] = flow_io_float_from_bits(b);
    }
    out->iw = v[0], out->ih = v[1], out->fw = v[2], out->fh = v[3], out->xo = v[4],
    out->yo = v[5];
}

static int integral(double x, double lo)
{
    return isfinite(x) && x == floor(x) && x >= lo && x <= (double)FLOW_IMAGE_MAX_PIXELS;
}

/* Whether a decoded header is self-consistent: integral sizes, a window of
 * at least one pixel inside an image of an accepted size. */
static int plausible(const barron_header *h)
{
    return integral(h->iw, 1) && integral(h->ih, 1) && integral(h->fw, 1) &&
           integral(h->fh, 1) && integral(h->xo, 0) && integral(h->yo, 0) &&
           flow_io_size_ok((long long)h->iw, (long long)h->ih) && h->xo + h->fw <= h->iw &&
           h->yo + h->fh <= h->ih;
}

static long long expected_size(const barron_header *h)
{
    return BARRON_HEADER + 8 * (long long)h->fw * (long long)h->fh;
}

flow_status flow_barron_read(FILE *f, const char *path, long long size, flow_field *out)
{
    if (size < BARRON_HEADER)
        return flow_fail(FLOW_ERR_FORMAT,
                         "%s: %lld bytes, too short for a .F file (24-byte header)", path, size);
    unsigned char raw[BARRON_HEADER];
    FLOW_TRY(flow_io_read_bytes(f, path, raw, sizeof raw));
    barron_header be, le;
    decode_header(raw, 1, &be);
    decode_header(raw, 0, &le);
    const int be_ok = plausible(&be), le_ok = plausible(&le);
    if (!be_ok && !le_ok)
        return flow_fail(FLOW_ERR_FORMAT,
                         "%s: not a .F file: the header (%g %g %g %g %g %g big-endian) is not "
                         "six integral sizes and offsets in either byte order",
                         path, be.iw, be.ih, be.fw, be.fh, be.xo, be.yo);
    /* Both orders plausible only for headers whose bytes read alike both
     * ways; then the file size decides, and big-endian (the original) wins
     * a tie. */
    int big = be_ok;
    if (be_ok && le_ok && expected_size(&be) != size && expected_size(&le) == size)
        big = 0;
    const barron_header *h = big ? &be : &le;
    const long long want = expected_size(h);
    if (size != want)
        return flow_fail(FLOW_ERR_FORMAT,
                         "%s: %s: header claims a %.0fx%.0f flow (in a %.0fx%.0f image), which needs "
                         "%lld bytes, but the file has %lld",
                         path, size < want ? "truncated" : "trailing data", h->fw, h->fh, h->iw,
                         h->ih, want, size);

    const double image = h->iw * h->ih, window = h->fw * h->fh;
    if (image > BARRON_SMALL_IMAGE && image > BARRON_MAX_SPREAD * window)
        return flow_fail(FLOW_ERR_SIZE,
                         "%s: header puts a %.0fx%.0f flow window in a %.0fx%.0f image: an image of "
                         "more than %ld pixels must be at most %d times the window (a "
                         "corrupt header?)",
                         path, h->fw, h->fh, h->iw, h->ih, (long)BARRON_SMALL_IMAGE,
                         BARRON_MAX_SPREAD);
    const int iw = (int)h->iw, ih = (int)h->ih, fw = (int)h->fw, fh = (int)h->fh;
    const int xo = (int)h->xo, yo = (int)h->yo;
    FLOW_TRY(flow_field_alloc(out, iw, ih));
    const size_t n = (size_t)iw * ih;
    for (size_t i = 0; i < n; i++)
        out->u[i] = out->v[i] = FLOW_UNKNOWN;
    for (int y = 0; y < fh; y++) {
        const size_t row = (size_t)(yo + y) * iw + xo;
        FLOW_TRY(flow_io_read_pairs(f, path, (size_t)fw, big, out->u + row, out->v + row));
        for (int x = 0; x < fw; x++) {
            float *u = out->u + row + x, *v = out->v + row + x;
            if (*u == BARRON_MISSING && *v == BARRON_MISSING)
                *u = *v = FLOW_UNKNOWN;
            else
                *v = -*v;
        }
    }
    return FLOW_OK;
}

flow_status flow_barron_write(FILE *f, const char *path, const flow_field *field)
{
    const int w = field->width, h = field->height;
    if (w > (1 << 24) || h > (1 << 24)) /* float32 holds integers exactly up to 2^24 */
        return flow_fail(FLOW_ERR_SIZE, "%s: a %dx%d field does not fit a .F header", path, w,
                         h);
    unsigned char raw[BARRON_HEADER];
    const float header[6] = {(float)w, (float)h, (float)w, (float)h, 0.0f, 0.0f};
    for (int i = 0; i < 6; i++)
        flow_io_store_be32(raw + 4 * i, flow_io_bits_from_float(header[i]));
    FLOW_TRY(flow_io_write_bytes(f, path, raw, sizeof raw));

    float *ru = malloc((size_t)w * sizeof *ru), *rv = malloc((size_t)w * sizeof *rv);
    flow_status s = FLOW_OK;
    if (!ru || !rv)
        s = flow_fail(FLOW_ERR_NOMEM, "%s: cannot allocate a row of %d vectors", path, w);
    for (int y = 0; y < h && s == FLOW_OK; y++) {
        const float *u = field->u + (size_t)y * w, *v = field->v + (size_t)y * w;
        for (int x = 0; x < w; x++) {
            if (flow_is_unknown(u[x], v[x])) {
                ru[x] = rv[x] = BARRON_MISSING;
            } else {
                ru[x] = u[x];
                rv[x] = -v[x];
            }
        }
        s = flow_io_write_pairs(f, path, (size_t)w, 1, ru, rv);
    }
    free(ru);
    free(rv);
    return s;
}
