/* png_stream.c -- a fuzz input as a PNG with right CRCs (png_stream.h). */
#include "png_stream.h"
#include "common.h"

#include <stdlib.h>
#include <string.h>

static uint32_t crc_table[256];

static uint32_t crc32_png(const uint8_t *p, size_t n)
{
    if (!crc_table[1])
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++)
                c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
            crc_table[i] = c;
        }
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++)
        c = crc_table[(c ^ p[i]) & 0xff] ^ (c >> 8);
    return c ^ 0xffffffffu;
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

uint8_t *fuzz_png_from_chunks(const uint8_t *data, size_t n)
{
    uint8_t *png = malloc(n + 8);
    FUZZ_REQUIRE(png != NULL);
    memcpy(png, "\x89PNG\r\n\x1a\n", 8);
    memcpy(png + 8, data, n);
    /* chunk: length, type, data, CRC of type and data */
    for (size_t pos = 8; pos + 12 <= n + 8;) {
        const uint32_t len = be32(png + pos);
        if (len > n + 8 - pos - 12)
            break;
        const uint32_t crc = crc32_png(png + pos + 4, 4 + (size_t)len);
        for (int k = 0; k < 4; k++)
            png[pos + 8 + len + k] = (uint8_t)(crc >> (24 - 8 * k));
        pos += 12 + (size_t)len;
    }
    return png;
}
