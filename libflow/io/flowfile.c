/* flowfile.c -- the table of flow file formats, and flow_field_read and
 * flow_field_write: the format comes from the file name's extension (any
 * letter case); this file opens and checks the file (missing, a directory,
 * not a regular file) and hands it to the format's reader, or writes
 * through a temporary file that is renamed over the target only when the
 * writer succeeded.
 * The formats themselves are in flo.c, barron.c, pcm.c, pfm.c and
 * png/kitti_libpng.c; docs/FORMATS.md documents every convention.  A new
 * format is one entry of FLOW_FIELD_FORMATS (flowfile_formats.h), from
 * which `formats` below is made, and its reader/writer file: the
 * tools, their help texts, the scripts (flow-tool formats) and the Python
 * module all list this table. */
#include "flowfile_formats.h"
#include "base/fail.h"
#include "flow/atomic_file.h"

#include <errno.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* A format: what the public table shows, and its reader and writer. */
typedef struct format_entry {
    flow_field_format about;
    flow_status (*read)(FILE *f, const char *path, long long size, flow_field *out);
    flow_status (*write)(FILE *f, const char *path, const flow_field *field);
} format_entry;

#define FORMAT_ENTRY(stem, extension, name, description)                                         \
    {{extension, name, description}, flow_##stem##_read, flow_##stem##_write},
static const format_entry formats[] = {FLOW_FIELD_FORMATS(FORMAT_ENTRY)};
#undef FORMAT_ENTRY
enum { NFORMATS = sizeof formats / sizeof formats[0] };

int flow_field_format_count(void)
{
    return NFORMATS;
}

const flow_field_format *flow_field_format_at(int i)
{
    return i >= 0 && i < NFORMATS ? &formats[i].about : NULL;
}

static const format_entry *entry_of(const char *path)
{
    const char *ext = flow_path_extension(path);
    for (int i = 0; i < NFORMATS; i++)
        if (strcasecmp(ext, formats[i].about.extension) == 0)
            return &formats[i];
    return NULL;
}

const flow_field_format *flow_field_format_of(const char *path)
{
    const format_entry *e = path ? entry_of(path) : NULL;
    return e ? &e->about : NULL;
}

const char *flow_field_format_list(char *buf, size_t size)
{
    size_t used = 0;
    if (size)
        buf[0] = '\0';
    for (int i = 0; i < NFORMATS && used < size; i++) {
        const char *sep = i == 0 ? "" : i == NFORMATS - 1 ? " or " : ", ";
        int n = snprintf(buf + used, size - used, "%s.%s", sep, formats[i].about.extension);
        used += n > 0 ? (size_t)n : 0;
    }
    return buf;
}

static flow_status unknown_extension(const char *path)
{
    char list[128];
    return flow_fail(FLOW_ERR_FORMAT, "%s: unknown flow file extension (expected %s)", path,
                     flow_field_format_list(list, sizeof list));
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
    const format_entry *fmt = entry_of(path);
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
    else if (!fmt)
        s = unknown_extension(path);
    else
        s = fmt->read(in, path, (long long)st.st_size, f);
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
    const format_entry *fmt = entry_of(path);
    if (!fmt)
        return unknown_extension(path);

    flow_atomic a;
    FLOW_TRY(flow_atomic_open(&a, path));
    const flow_status s = fmt->write(a.f, path, f);
    if (s != FLOW_OK) {
        flow_atomic_abort(&a);
        return s;
    }
    return flow_atomic_commit(&a);
}
