/* flowfile.c -- flow_field_read and flow_field_write: the format comes from
 * the file name's extension (.flo, .F, .pcm, any letter case); this file
 * opens and checks the file (missing, a directory, not a regular file) and
 * hands it to the format's reader, or writes through a temporary file that
 * is renamed over the target only when the writer succeeded.
 * The formats themselves are in flo.c, barron.c and pcm.c;
 * docs/FORMATS.md documents every convention. */
#include "flowfile_formats.h"
#include "base/fail.h"
#include "flow/atomic_file.h"

#include <errno.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

typedef enum { FORMAT_NONE, FORMAT_FLO, FORMAT_BARRON, FORMAT_PCM } flow_format;

static flow_format format_of(const char *path)
{
    const char *ext = flow_path_extension(path);
    if (strcasecmp(ext, "flo") == 0)
        return FORMAT_FLO;
    if (strcasecmp(ext, "F") == 0)
        return FORMAT_BARRON;
    if (strcasecmp(ext, "pcm") == 0)
        return FORMAT_PCM;
    return FORMAT_NONE;
}

static flow_status unknown_extension(const char *path)
{
    return flow_fail(FLOW_ERR_FORMAT,
                     "%s: unknown flow file extension (expected .flo, .F or .pcm)", path);
}

flow_status flow_io_read_bytes(FILE *f, const char *path, void *buf, size_t n)
{
    if (fread(buf, 1, n, f) == n)
        return FLOW_OK;
    if (feof(f))
        return flow_fail(FLOW_ERR_FORMAT, "%s: truncated (file ended early)", path);
    return flow_fail(FLOW_ERR_IO, "%s: read failed: %s", path, strerror(errno));
}

flow_status flow_io_write_bytes(FILE *f, const char *path, const void *buf, size_t n)
{
    if (fwrite(buf, 1, n, f) == n)
        return FLOW_OK;
    return flow_fail(FLOW_ERR_IO, "%s: write failed: %s", path, strerror(errno));
}

enum { PAIRS_PER_CHUNK = 4096 };

flow_status flow_io_read_pairs(FILE *f, const char *path, size_t n, int big_endian, float *a,
                               float *b)
{
    unsigned char buf[PAIRS_PER_CHUNK * 8];
    for (size_t done = 0; done < n;) {
        size_t k = n - done < PAIRS_PER_CHUNK ? n - done : PAIRS_PER_CHUNK;
        FLOW_TRY(flow_io_read_bytes(f, path, buf, k * 8));
        for (size_t i = 0; i < k; i++) {
            const unsigned char *p = buf + 8 * i;
            uint32_t ba = big_endian ? flow_io_load_be32(p) : flow_io_load_le32(p);
            uint32_t bb = big_endian ? flow_io_load_be32(p + 4) : flow_io_load_le32(p + 4);
            a[done + i] = flow_io_float_from_bits(ba);
            b[done + i] = flow_io_float_from_bits(bb);
        }
        done += k;
    }
    return FLOW_OK;
}

flow_status flow_io_write_pairs(FILE *f, const char *path, size_t n, int big_endian,
                                const float *a, const float *b)
{
    unsigned char buf[PAIRS_PER_CHUNK * 8];
    for (size_t done = 0; done < n;) {
        size_t k = n - done < PAIRS_PER_CHUNK ? n - done : PAIRS_PER_CHUNK;
        for (size_t i = 0; i < k; i++) {
            unsigned char *p = buf + 8 * i;
            uint32_t ba = flow_io_bits_from_float(a[done + i]);
            uint32_t bb = flow_io_bits_from_float(b[done + i]);
            if (big_endian) {
                flow_io_store_be32(p, ba);
                flow_io_store_be32(p + 4, bb);
            } else {
                flow_io_store_le32(p, ba);
                flow_io_store_le32(p + 4, bb);
            }
        }
        FLOW_TRY(flow_io_write_bytes(f, path, buf, k * 8));
        done += k;
    }
    return FLOW_OK;
}

flow_status flow_field_read(const char *path, flow_field *f)
{
    if (!f)
        return flow_fail(FLOW_ERR_INVALID, "flow_field_read: no field given");
    memset(f, 0, sizeof *f);
    if (!path || !*path)
        return flow_fail(FLOW_ERR_INVALID, "flow_field_read: empty file name");
    const flow_format fmt = format_of(path);
    FILE *in = fopen(path, "rb");
    if (!in)
        return flow_fail(FLOW_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    flow_status s = FLOW_OK;
    if (fstat(fileno(in), &st) != 0)
        s = flow_fail(FLOW_ERR_IO, "%s: cannot stat: %s", path, strerror(errno));
    else if (S_ISDIR(st.st_mode))
        s = flow_fail(FLOW_ERR_IO, "%s: is a directory, not a flow file", path);
    else if (!S_ISREG(st.st_mode))
        s = flow_fail(FLOW_ERR_IO, "%s: not a regular file", path);
    else if (fmt == FORMAT_NONE)
        s = unknown_extension(path);
    else if (fmt == FORMAT_FLO)
        s = flow_flo_read(in, path, (long long)st.st_size, f);
    else if (fmt == FORMAT_BARRON)
        s = flow_barron_read(in, path, (long long)st.st_size, f);
    else
        s = flow_pcm_read(in, path, (long long)st.st_size, f);
    fclose(in);
    if (s != FLOW_OK)
        flow_field_free(f);
    return s;
}

flow_status flow_field_write(const char *path, const flow_field *f)
{
    if (!path || !*path)
        return flow_fail(FLOW_ERR_INVALID, "flow_field_write: empty file name");
    if (!f || !f->u || !f->v || !flow_io_size_ok(f->width, f->height))
        return flow_fail(FLOW_ERR_INVALID, "%s: no flow field to write (size %dx%d)", path,
                         f ? f->width : 0, f ? f->height : 0);
    const flow_format fmt = format_of(path);
    if (fmt == FORMAT_NONE)
        return unknown_extension(path);

    flow_atomic a;
    FLOW_TRY(flow_atomic_open(&a, path));
    flow_status s;
    if (fmt == FORMAT_FLO)
        s = flow_flo_write(a.f, path, f);
    else if (fmt == FORMAT_BARRON)
        s = flow_barron_write(a.f, path, f);
    else
        s = flow_pcm_write(a.f, path, f);
    if (s != FLOW_OK) {
        flow_atomic_abort(&a);
        return s;
    }
    return flow_atomic_commit(&a);
}
