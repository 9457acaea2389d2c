/* probe.c -- an image file's size without decoding it, where the format
 * puts the size in a header read here (PGM/PPM through pnm.c's checked
 * header, PNG from its IHDR chunk); any other file is decoded.  For the
 * tools that sort files by size before reading them (a directory of
 * frames). */
#include "io/image_formats.h"
#include "base/fail.h"

#include <string.h>
#include <sys/stat.h>

static long be32(const unsigned char *b)
{
    return (long)((unsigned long)b[0] << 24 | (unsigned long)b[1] << 16 |
                  (unsigned long)b[2] << 8 | b[3]);
}

/* The size in a PNG's IHDR (the first chunk, 13 bytes, at byte 8). */
static flow_status png_size(const char *path, const unsigned char *h, size_t n, int *width,
                            int *height)
{
    if (n < 24 || be32(h + 8) != 13 || memcmp(h + 12, "IHDR", 4) != 0)
        return flow_fail(FLOW_ERR_FORMAT, "%s: corrupt PNG: the first chunk is not a 13-byte IHDR",
                         path);
    const long w = be32(h + 16), ht = be32(h + 20);
    if (w < 1 || ht < 1 || w > FLOW_IMAGE_MAX_PIXELS / ht)
        return flow_fail(FLOW_ERR_SIZE, "%s: PNG header claims %ldx%ld pixels (expected 1 to %ld)",
                         path, w, ht, (long)FLOW_IMAGE_MAX_PIXELS);
    *width = (int)w, *height = (int)ht;
    return FLOW_OK;
}

/* The size of the decoded image (flow_image_read's messages on failure). */
static flow_status decoded_size(const char *path, int *width, int *height)
{
    flow_image img;
    const flow_status s = flow_image_read(path, &img);
    if (s == FLOW_OK)
        *width = img.width, *height = img.height;
    flow_image_free(&img);
    return s;
}

flow_status flow_image_probe(const char *path, int *width, int *height)
{
    *width = *height = 0;
    struct stat st;
    FILE *f = NULL;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || !(f = fopen(path, "rb")))
        return decoded_size(path, width, height); /* which says what is wrong */
    unsigned char h[24];
    const size_t n = fread(h, 1, sizeof h, f);
    const flow_image_format fmt = flow_image_detect(h, n);
    flow_status s = FLOW_OK;
    if (fmt == FLOW_FMT_PNM) {
        flow_pnm_info info;
        rewind(f);
        s = flow_pnm_header(path, f, (long)st.st_size, &info);
        if (s == FLOW_OK)
            *width = info.width, *height = info.height;
    } else if (fmt == FLOW_FMT_PNG) {
        s = png_size(path, h, n, width, height);
    }
    fclose(f);
    return fmt == FLOW_FMT_PNM || fmt == FLOW_FMT_PNG ? s : decoded_size(path, width, height);
}
