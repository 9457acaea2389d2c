/* test_image.c -- image and video I/O (image.h), in both builds: with OpenCV
 * every format goes through the shim, without it PGM/PPM are native and
 * PNG goes through libpng; flow_image_has_opencv() picks the expectations
 * that differ (JPEG/TIFF/BMP and video only with OpenCV).
 *
 * Known answers come from files this test writes byte by byte (PGM/PPM
 * headers, and PNG with stored deflate blocks, CRC-32 and Adler-32 computed
 * here), so the readers are checked against the formats' definitions, not
 * against the library's own writers.  Every bad input must fail with the
 * expected status and a message naming the file, and leave no image.
 * Video files and cameras: test_video.c. */
#include "harness.h"
#include "io/image_formats.h"
#include "flow/image.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* ---- helpers ---------------------------------------------------------- */

/* Files in the scratch directory whose name contains ".tmp-": what a
 * writer leaves behind when whole-or-nothing writing is broken. */
static int leftover_temps(void)
{
    return harness_count_files(".tmp-");
}

/* A read that must fail with `want`, name the file, and leave no image. */
static void expect_read_fails(const char *path, flow_status want)
{
    flow_image img;
    memset(&img, 0xff, sizeof img);
    flow_status s = flow_image_read(path, &img);
    CHECK(s == want);
    CHECK(strstr(flow_last_error(), path) != NULL);
    CHECK(img.data == NULL);
    if (s != want)
        fprintf(stderr, "    %s: got '%s' (%s), want '%s'\n", path, flow_status_str(s),
                flow_last_error(), flow_status_str(want));
    if (s == FLOW_OK)
        flow_image_free(&img);
}

/* Writes n bytes of data as the scratch file `name`, then expects reading it
 * to fail as expect_read_fails() does. */
static void expect_bytes_fail(const char *name, const void *data, size_t n, flow_status want)
{
    const char *path = harness_path(name);
    harness_write_file(path, data, n);
    expect_read_fails(path, want);
}

static double max_diff(const flow_image *a, const flow_image *b)
{
    if (a->width != b->width || a->height != b->height || a->channels != b->channels)
        return INFINITY;
    double m = 0;
    const size_t n = (size_t)a->width * a->height * a->channels;
    for (size_t i = 0; i < n; i++) {
        double d = fabs(a->data[i] - b->data[i]);
        m = d > m ? d : m;
    }
    return m;
}

/* An image of whole values 0..255: a smooth pattern plus noise of the
 * given amplitude, channel c shifted so that swapped channels show. */
static void make_image_noise(flow_image *img, int w, int h, int ch, unsigned seed, double noise)
{
    CHECK_OK(flow_image_alloc(img, w, h, ch));
    for (int c = 0; c < ch; c++)
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                double v = 128 + 90 * sin(0.3 * x + 0.2 * y + 2.0 * c) +
                           noise * (harness_uniform(&seed) - 0.5);
                v = v < 0 ? 0 : v > 255 ? 255 : v;
                img->data[(size_t)c * w * h + (size_t)y * w + x] = (float)floor(v);
            }
}

static void make_image(flow_image *img, int w, int h, int ch, unsigned seed)
{
    make_image_noise(img, w, h, ch, seed, 30.0);
}

/* ---- a PNG writer from the specification (RFC 2083, RFC 1950/1951) ---- */

static uint32_t crc32_png(const unsigned char *p, size_t n, uint32_t crc)
{
    crc = ~crc;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

static void put32(unsigned char *b, uint32_t v)
{
    b[0] = (unsigned char)(v >> 24), b[1] = (unsigned char)(v >> 16);
    b[2] = (unsigned char)(v >> 8), b[3] = (unsigned char)v;
}

static void chunk(FILE *f, const char *type, const unsigned char *data, uint32_t len)
{
    unsigned char b[8];
    put32(b, len);
    memcpy(b + 4, type, 4);
    fwrite(b, 1, 8, f);
    if (len)
        fwrite(data, 1, len, f);
    uint32_t crc = crc32_png((const unsigned char *)type, 4, 0);
    crc = crc32_png(data, len, crc);
    put32(b, crc);
    fwrite(b, 1, 4, f);
}

/* A PNG of raw scanlines (each a filter byte 0 and the samples), the zlib
 * stream made of stored blocks.  width/height go into IHDR as given, so an
 * absurd header can be written too; `zlib` replaces the stream when set. */
static void write_png(const char *path, uint32_t w, uint32_t h, int depth, int color,
                      const unsigned char *raw, size_t n, const unsigned char *zlib, size_t zn)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f)
        return;
    fwrite("\x89PNG\r\n\x1a\n", 1, 8, f);
    unsigned char ihdr[13] = {0};
    put32(ihdr, w);
    put32(ihdr + 4, h);
    ihdr[8] = (unsigned char)depth, ihdr[9] = (unsigned char)color;
    chunk(f, "IHDR", ihdr, 13);
    unsigned char *z = malloc(n + 6 + 5 * (n / 65535 + 1));
    size_t zlen = 0;
    z[zlen++] = 0x78, z[zlen++] = 0x01;
    uint32_t a = 1, b = 0;
    for (size_t i = 0; i < n; i++)
        a = (a + raw[i]) % 65521, b = (b + a) % 65521;
    size_t off = 0;
    do {
        size_t len = n - off > 65535 ? 65535 : n - off;
        z[zlen++] = off + len == n ? 1 : 0; /* BFINAL, BTYPE 00 (stored) */
        z[zlen++] = (unsigned char)len, z[zlen++] = (unsigned char)(len >> 8);
        z[zlen++] = (unsigned char)~len, z[zlen++] = (unsigned char)(~len >> 8);
        memcpy(z + zlen, raw + off, len);
        zlen += len, off += len;
    } while (off < n);
    put32(z + zlen, b << 16 | a);
    zlen += 4;
    if (zlib)
        chunk(f, "IDAT", zlib, (uint32_t)zn);
    else
        chunk(f, "IDAT", z, (uint32_t)zlen);
    chunk(f, "IEND", NULL, 0);
    free(z);
    fclose(f);
}

/* ---- PNG support -------------------------------------------------------- */

/* Whether this build reads and writes PNG: always with OpenCV, else when
 * libpng was found.  A build with neither must say so for the file. */
static int have_png;

static void test_png_support(void)
{
    have_png = 1;
    if (flow_image_has_opencv())
        return;
    flow_image a;
    CHECK_OK(flow_image_alloc(&a, 1, 1, 1));
    a.data[0] = 7;
    const char *p = harness_path("probe.png");
    flow_status s = flow_image_write(p, &a);
    flow_image_free(&a);
    if (s == FLOW_OK)
        return;
    have_png = 0;
    CHECK(s == FLOW_ERR_UNSUPPORTED);
    CHECK(strstr(flow_last_error(), p) && strstr(flow_last_error(), "libpng"));
    CHECK(harness_file_size(p) < 0);
    printf("    no PNG in this build (no libpng, no OpenCV): PNG cases expect refusals\n");
}

/* A read of a valid PNG: FLOW_OK, or the refusal of a build without PNG. */
static int png_read_ok(const char *path, flow_image *img)
{
    if (have_png) {
        CHECK_OK(flow_image_read(path, img));
        return img->data != NULL;
    }
    expect_read_fails(path, FLOW_ERR_UNSUPPORTED);
    CHECK(strstr(flow_last_error(), "libpng") != NULL);
    memset(img, 0, sizeof *img);
    return 0;
}

/* ---- round trips ------------------------------------------------------ */

static void roundtrip(const char *name, int ch)
{
    flow_image a, b;
    make_image(&a, 37, 23, ch, 7u + (unsigned)ch);
    const char *path = harness_path(name);
    const size_t len = strlen(name);
    if (!have_png && len > 4 && strcasecmp(name + len - 4, ".png") == 0) {
        CHECK(flow_image_write(path, &a) == FLOW_ERR_UNSUPPORTED);
        CHECK(harness_file_size(path) < 0);
        flow_image_free(&a);
        return;
    }
    CHECK_OK(flow_image_write(path, &a));
    CHECK_OK(flow_image_read(path, &b));
    CHECK(b.width == 37 && b.height == 23 && b.channels == ch);
    CHECK(max_diff(&a, &b) == 0);
    flow_image_free(&a);
    flow_image_free(&b);
}

static void test_roundtrip_8bit(void)
{
    roundtrip("gray.pgm", 1);
    roundtrip("gray.png", 1);
    roundtrip("colour.ppm", 3);
    roundtrip("colour.png", 3);
    roundtrip("colour.PNG", 3); /* extensions are case-insensitive */
    roundtrip("gray.pnm", 1);
}

/* Values are rounded half up and clamped; NaN becomes 0. */
static void test_write_quantizes(void)
{
    flow_image a, b;
    CHECK_OK(flow_image_alloc(&a, 6, 1, 1));
    const float in[6] = {12.4f, 12.6f, -5.0f, 300.0f, NAN, 254.5f};
    const float want[6] = {12, 13, 0, 255, 0, 255};
    memcpy(a.data, in, sizeof in);
    CHECK_OK(flow_image_write(harness_path("q.pgm"), &a));
    CHECK_OK(flow_image_read(harness_path("q.pgm"), &b));
    for (int i = 0; b.data && i < 6; i++)
        CHECK_NEAR(b.data[i], want[i], 0);
    flow_image_free(&a);
    flow_image_free(&b);
}

/* Channel order and sample values from files written byte by byte. */
static void test_read_handmade_8bit(void)
{
    flow_image img;
    /* P6 2x1: red-ish then blue-ish pixel, comments inside the header */
    const unsigned char ppm[] = "P6 # a comment\n2 # width\n1\n# maxval next\n255\n"
                                "\xC8\x0A\x14\x05\x06\xFA";
    harness_write_file(harness_path("hand.ppm"), ppm, sizeof ppm - 1);
    CHECK_OK(flow_image_read(harness_path("hand.ppm"), &img));
    CHECK(img.width == 2 && img.height == 1 && img.channels == 3);
    if (img.data) {
        const float want[6] = {200, 5, 10, 6, 20, 250}; /* R plane, G plane, B plane */
        for (int i = 0; i < 6; i++)
            CHECK_NEAR(img.data[i], want[i], 0);
    }
    flow_image_free(&img);

    const char *p3 = "P3\n2 2\n255\n1 2 3  4 5 6\n7 8 9\n10 11 12\n";
    harness_write_file(harness_path("ascii.ppm"), p3, strlen(p3));
    CHECK_OK(flow_image_read(harness_path("ascii.ppm"), &img));
    if (img.data && img.channels == 3 && img.width == 2 && img.height == 2) {
        CHECK_NEAR(img.data[0], 1, 0);   /* R of (0,0) */
        CHECK_NEAR(img.data[3], 10, 0);  /* R of (1,1) */
        CHECK_NEAR(img.data[4], 2, 0);   /* G of (0,0) */
        CHECK_NEAR(img.data[11], 12, 0); /* B of (1,1) */
    } else {
        CHECK(0);
    }
    flow_image_free(&img);

    const char *p2 = "P2\n3 1\n255\n0 128 255\n";
    harness_write_file(harness_path("ascii.pgm"), p2, strlen(p2));
    CHECK_OK(flow_image_read(harness_path("ascii.pgm"), &img));
    CHECK(img.channels == 1 && img.width == 3);
    if (img.data)
        CHECK(img.data[0] == 0 && img.data[1] == 128 && img.data[2] == 255);
    flow_image_free(&img);

    /* maxval 100: scaled by 255/100 (OpenCV rounds to whole values) */
    const char *m100 = "P2\n3 1\n100\n0 50 100\n";
    harness_write_file(harness_path("m100.pgm"), m100, strlen(m100));
    CHECK_OK(flow_image_read(harness_path("m100.pgm"), &img));
    if (img.data) {
        CHECK_NEAR(img.data[0], 0, 0.5);
        CHECK_NEAR(img.data[1], 127.5, 0.5);
        CHECK_NEAR(img.data[2], 255, 0.5);
    }
    flow_image_free(&img);

    /* an RGB PNG: 2x1, bytes R G B per pixel */
    const unsigned char raw[] = {0, 200, 10, 20, 5, 6, 250};
    write_png(harness_path("hand.png"), 2, 1, 8, 2, raw, sizeof raw, NULL, 0);
    if (png_read_ok(harness_path("hand.png"), &img)) {
        CHECK(img.width == 2 && img.height == 1 && img.channels == 3);
        const float want[6] = {200, 5, 10, 6, 20, 250};
        for (int i = 0; img.channels == 3 && i < 6; i++)
            CHECK_NEAR(img.data[i], want[i], 0);
    }
    flow_image_free(&img);
}

/* 16-bit samples: PGM/PPM big-endian with maxval 65535 (and 1023), PNG
 * depth 16, all scaled onto 0..255. */
static void test_read_16bit(void)
{
    const unsigned v16[5] = {0, 257, 1000, 32768, 65535};
    unsigned char pgm[64];
    int n = snprintf((char *)pgm, sizeof pgm, "P5\n5 1\n65535\n");
    for (int i = 0; i < 5; i++)
        pgm[n++] = (unsigned char)(v16[i] >> 8), pgm[n++] = (unsigned char)v16[i];
    harness_write_file(harness_path("s16.pgm"), pgm, (size_t)n);

    unsigned char raw[1 + 10];
    raw[0] = 0;
    for (int i = 0; i < 5; i++)
        raw[1 + 2 * i] = (unsigned char)(v16[i] >> 8), raw[2 + 2 * i] = (unsigned char)v16[i];
    write_png(harness_path("s16.png"), 5, 1, 16, 0, raw, sizeof raw, NULL, 0);

    const char *names[2] = {"s16.pgm", "s16.png"};
    for (int k = 0; k < 2; k++) {
        flow_image img;
        if (k == 1 && !png_read_ok(harness_path(names[k]), &img))
            continue;
        if (k == 0)
            CHECK_OK(flow_image_read(harness_path(names[k]), &img));
        CHECK(img.width == 5 && img.height == 1 && img.channels == 1);
        for (int i = 0; img.data && i < 5; i++)
            CHECK_NEAR(img.data[i], v16[i] * 255.0 / 65535.0, 1e-3);
        flow_image_free(&img);
    }

    /* 16-bit RGB: PPM and PNG, one pixel (R, G, B) = (65535, 1000, 0) */
    const unsigned char ppm16[] = "P6\n1 1\n65535\n\xFF\xFF\x03\xE8\x00\x00";
    harness_write_file(harness_path("s16.ppm"), ppm16, sizeof ppm16 - 1);
    const unsigned char rgb16[] = {0, 0xFF, 0xFF, 0x03, 0xE8, 0x00, 0x00};
    write_png(harness_path("s16rgb.png"), 1, 1, 16, 2, rgb16, sizeof rgb16, NULL, 0);
    const char *rgb_names[2] = {"s16.ppm", "s16rgb.png"};
    for (int k = 0; k < 2; k++) {
        flow_image img;
        if (k == 1 && !png_read_ok(harness_path(rgb_names[k]), &img))
            continue;
        if (k == 0)
            CHECK_OK(flow_image_read(harness_path(rgb_names[k]), &img));
        CHECK(img.channels == 3 && img.width == 1);
        if (img.data && img.channels == 3) {
            CHECK_NEAR(img.data[0], 255.0, 1e-3);
            CHECK_NEAR(img.data[1], 1000 * 255.0 / 65535.0, 1e-3);
            CHECK_NEAR(img.data[2], 0.0, 1e-3);
        }
        flow_image_free(&img);
    }

    /* maxval 1023: 16-bit storage, full scale is the maxval, not 65535 */
    const unsigned char m1023[] = "P5\n2 1\n1023\n\x03\xFF\x02\x00";
    harness_write_file(harness_path("m1023.pgm"), m1023, sizeof m1023 - 1);
    const char *a16 = "P2\n2 1\n1023\n1023 512\n";
    harness_write_file(harness_path("m1023a.pgm"), a16, strlen(a16));
    const char *m_names[2] = {"m1023.pgm", "m1023a.pgm"};
    for (int k = 0; k < 2; k++) {
        flow_image img;
        CHECK_OK(flow_image_read(harness_path(m_names[k]), &img));
        if (img.data) {
            CHECK_NEAR(img.data[0], 255.0, 1e-3);
            CHECK_NEAR(img.data[1], 512 * 255.0 / 1023.0, 1e-3);
        }
        flow_image_free(&img);
    }
}

/* The format comes from the bytes, not the name. */
static void test_magic_over_extension(void)
{
    flow_image a, b;
    make_image(&a, 9, 7, 1, 3);
    CHECK_OK(flow_image_write(harness_path("really_pgm.pgm"), &a));
    CHECK(rename(harness_path("really_pgm.pgm"), harness_path("really_pgm.png")) == 0);
    CHECK_OK(flow_image_read(harness_path("really_pgm.png"), &b));
    CHECK(max_diff(&a, &b) == 0);
    flow_image_free(&b);
    if (have_png) {
        CHECK_OK(flow_image_write(harness_path("really_png.png"), &a));
        CHECK(rename(harness_path("really_png.png"), harness_path("really_png.ppm")) == 0);
        CHECK_OK(flow_image_read(harness_path("really_png.ppm"), &b));
        CHECK(max_diff(&a, &b) == 0);
        flow_image_free(&b);
    }
    flow_image_free(&a);
}

/* ---- bad input ---------------------------------------------------------- */

static void test_bad_files(void)
{
    expect_read_fails(harness_path("does-not-exist.png"), FLOW_ERR_IO);
    expect_read_fails(harness_tmpdir(), FLOW_ERR_IO); /* a directory */
    expect_bytes_fail("empty.png", "", 0, FLOW_ERR_FORMAT);

    /* wrong magic: text named .png / .pgm */
    expect_bytes_fail("text.png", "hello, world\n", 13, FLOW_ERR_FORMAT);
    expect_bytes_fail("p9.pgm", "P9\n1 1\n255\n\0", 12, FLOW_ERR_FORMAT);

    /* truncated PGM/PPM: binary 8-bit, binary 16-bit, ASCII, header only */
    expect_bytes_fail("trunc.pgm", "P5\n4 4\n255\nabcdef", 17, FLOW_ERR_FORMAT);
    expect_bytes_fail("trunc16.ppm", "P6\n2 2\n65535\n0123456789abcdef", 29, FLOW_ERR_FORMAT);
    const char *ascii15 = "P2\n4 4\n255\n1 2 3 4 5 6 7 8 9 10 11 12 13 14 15";
    expect_bytes_fail("trunca.pgm", ascii15, strlen(ascii15), FLOW_ERR_FORMAT);
    expect_bytes_fail("header.pgm", "P5\n4 4\n", 7, FLOW_ERR_FORMAT);
    expect_bytes_fail("garbled.pgm", "P5\n4 x4\n255\n0123456789abcdef", 28, FLOW_ERR_FORMAT);
    expect_bytes_fail("above.pgm", "P2\n2 1\n100\n50 101\n", 18, FLOW_ERR_FORMAT);

    /* absurd dimensions: refused before allocating */
    expect_bytes_fail("huge.pgm", "P5\n100000 100000\n255\n\0", 22, FLOW_ERR_SIZE);
    expect_bytes_fail("zero.pgm", "P5\n0 5\n255\n\0", 12, FLOW_ERR_SIZE);
    expect_bytes_fail("digits.pgm", "P5\n99999999999999999999 1\n255\n\0", 31, FLOW_ERR_SIZE);
    const unsigned char raw[] = {0, 1, 2, 3};
    write_png(harness_path("huge.png"), 100000, 100000, 8, 0, raw, sizeof raw, NULL, 0);
    expect_read_fails(harness_path("huge.png"), FLOW_ERR_SIZE);
    /* dimensions the pixel data cannot fill even at deflate's best ratio
     * (1032:1): refused before a decoder allocates for them */
    write_png(harness_path("bomb.png"), 8192, 8192, 8, 0, raw, sizeof raw, NULL, 0);
    expect_read_fails(harness_path("bomb.png"), FLOW_ERR_FORMAT);
    CHECK(strstr(flow_last_error(), "8192x8192 pixels of 8 bits need 67108864 bytes, more than "
                                    "its 15 bytes of pixel data") != NULL);

    /* unsupported maxval */
    expect_bytes_fail("m70000.pgm", "P5\n1 1\n70000\n\0\0", 15, FLOW_ERR_FORMAT);
    expect_bytes_fail("m0.pgm", "P5\n1 1\n0\n\0", 10, FLOW_ERR_FORMAT);

    /* truncated PNG: a valid one (40x30 RGB) cut in half, cut inside its
     * header, cut before IEND */
    {
        unsigned char *rows = malloc(30 * (1 + 40 * 3));
        for (int i = 0; i < 30 * (1 + 40 * 3); i++)
            rows[i] = i % (1 + 40 * 3) == 0 ? 0 : (unsigned char)(i * 7);
        write_png(harness_path("whole.png"), 40, 30, 8, 2, rows, 30 * (1 + 40 * 3), NULL, 0);
        free(rows);
        flow_image a;
        if (png_read_ok(harness_path("whole.png"), &a))
            CHECK(a.width == 40 && a.height == 30 && a.channels == 3);
        flow_image_free(&a);
    }
    size_t n;
    unsigned char *bytes = harness_read_file(harness_path("whole.png"), &n);
    CHECK(bytes != NULL && n > 100);
    if (bytes && n > 100) {
        expect_bytes_fail("half.png", bytes, n / 2, FLOW_ERR_FORMAT);
        expect_bytes_fail("short.png", bytes, 20, FLOW_ERR_FORMAT);
        expect_bytes_fail("noend.png", bytes, n - 12, FLOW_ERR_FORMAT); /* without IEND */
    }
    free(bytes);

    /* corrupt PNG: whole chunk structure, garbage compressed data */
    const unsigned char junk[] = "this is not a zlib stream at all";
    const unsigned char row[] = {0, 1, 2, 3};
    write_png(harness_path("junk.png"), 3, 1, 8, 0, row, sizeof row, junk, sizeof junk - 1);
    expect_read_fails(harness_path("junk.png"), FLOW_ERR_FORMAT);
    /* a valid zlib header, then a reserved block type (11): the decoder's
     * own error must come back as a status (and nothing on stderr:
     * flow_compute.sh checks that) */
    const unsigned char badz[] = {0x78, 0x01, 0x07, 0x00, 0x00, 0x00, 0x00};
    write_png(harness_path("badz.png"), 3, 1, 8, 0, row, sizeof row, badz, sizeof badz);
    expect_read_fails(harness_path("badz.png"), have_png ? FLOW_ERR_FORMAT : FLOW_ERR_UNSUPPORTED);
    CHECK(leftover_temps() == 0);
}

/* Samples above maxval are refused in binary files as in ASCII ones (a
 * binary reader that took them would scale 255 of maxval 1 to 65025),
 * with the value and where it is; a sample equal to maxval is fine. */
static void test_above_maxval(void)
{
    static const struct {
        const char *name;
        const char *bytes;
        size_t n;
        const char *message; /* after the path */
    } bad[] = {
        { "max1.pgm", "P5 1 1 1\n\xff", 10, ": sample 1 (x 0, y 0) is 255, above maxval 1" },
        { "max100.pgm", "P5\n3 1\n100\n\x32\x64\x65", 14,
          ": sample 3 (x 2, y 0) is 101, above maxval 100" },
        { "max1000.ppm", "P6\n2 1\n1000\n\x03\xe8\x00\x00\x00\x01\x00\x02\x03\xe9\x00\x00",
          24, ": sample 5 (x 1, y 0, green) is 1001, above maxval 1000" },
        { "max300.pgm", "P5\n1 2\n300\n\x01\x2c\xff\xff", 15,
          ": sample 2 (x 0, y 1) is 65535, above maxval 300" },
        { "ascii.ppm", "P3\n1 2\n9\n1 2 3 4 5 10\n", 23,
          ": sample 6 (x 0, y 1, blue) is 10, above maxval 9" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *path = harness_path(bad[i].name);
        expect_bytes_fail(bad[i].name, bad[i].bytes, bad[i].n, FLOW_ERR_FORMAT);
        char want[512];
        snprintf(want, sizeof want, "%s%s", path, bad[i].message);
        if (!strstr(flow_last_error(), want))
            fprintf(stderr, "    got '%s'\n    want '%s'\n", flow_last_error(), want);
        CHECK(strstr(flow_last_error(), want) != NULL);
    }
    /* at maxval: full scale */
    const char *path = harness_path("atmax.pgm");
    harness_write_file(path, "P5\n2 1\n300\n\x01\x2c\x00\x96", 15);
    flow_image img;
    CHECK_OK(flow_image_read(path, &img));
    CHECK(img.data && img.width == 2 && img.height == 1);
    if (img.data) {
        CHECK_NEAR(img.data[0], 255.0, 1e-3);
        CHECK_NEAR(img.data[1], 127.5, 0.51); /* OpenCV rounds to whole values */
    }
    flow_image_free(&img);
}

/* ---- writing ------------------------------------------------------------ */

static void test_write_whole_or_nothing(void)
{
    flow_image a, old, b;
    make_image(&a, 16, 12, 3, 5);
    make_image(&old, 8, 8, 1, 6);

    /* a missing directory: clear error, nothing created */
    const char *missing = harness_path("no-such-dir/out.png");
    CHECK(flow_image_write(missing, &a) == FLOW_ERR_IO);
    CHECK(strstr(flow_last_error(), missing) != NULL);
    CHECK(harness_file_size(missing) < 0);

    /* the target is a directory */
    CHECK(mkdir(harness_path("adir.png"), 0755) == 0);
    CHECK(flow_image_write(harness_path("adir.png"), &a) == FLOW_ERR_IO);
    CHECK(strstr(flow_last_error(), "adir.png") != NULL);

    /* failed writes over an existing file leave it as it was */
    const char *keep = harness_path("keep.pgm");
    CHECK_OK(flow_image_write(keep, &old));
    const long before = harness_file_size(keep);
    flow_image bad = a;
    bad.channels = 2;
    CHECK(flow_image_write(keep, &bad) == FLOW_ERR_INVALID);
    CHECK(strstr(flow_last_error(), keep) != NULL);
    CHECK(flow_image_write(keep, &a) == FLOW_ERR_INVALID); /* colour into .pgm */
    CHECK(strstr(flow_last_error(), keep) != NULL);
    CHECK(harness_file_size(keep) == before);
    CHECK_OK(flow_image_read(keep, &b));
    CHECK(max_diff(&old, &b) == 0);
    flow_image_free(&b);

    /* gray into .ppm, an unknown extension, no extension */
    CHECK(flow_image_write(harness_path("gray.ppm"), &old) == FLOW_ERR_INVALID);
    CHECK(harness_file_size(harness_path("gray.ppm")) < 0);
    CHECK(flow_image_write(harness_path("out.xyz"), &a) == FLOW_ERR_INVALID);
    CHECK(strstr(flow_last_error(), "out.xyz") != NULL);
    CHECK(harness_file_size(harness_path("out.xyz")) < 0);
    CHECK(flow_image_write(harness_path("noext"), &a) == FLOW_ERR_INVALID);
    CHECK(harness_file_size(harness_path("noext")) < 0);

    /* overwriting with a good image replaces the file */
    flow_image fresh;
    make_image(&fresh, 5, 4, 1, 8);
    CHECK_OK(flow_image_write(keep, &fresh));
    CHECK_OK(flow_image_read(keep, &b));
    CHECK(max_diff(&fresh, &b) == 0);
    flow_image_free(&b);
    flow_image_free(&fresh);
    CHECK(leftover_temps() == 0);
    flow_image_free(&a);
    flow_image_free(&old);
}

/* JPEG, TIFF and BMP: through OpenCV, or refused with a message saying so. */
/* JPEG is lossy: a bounded mean error on smooth images; colour loses more
 * (chroma at half resolution) but a swap of R and B would cost about 50
 * levels.  a is a scratch image. */
static void check_jpeg_round_trip(flow_image *a)
{
    flow_image b;
    for (int ch = 1; ch <= 3; ch += 2) {
        flow_image_free(a);
        make_image_noise(a, 48, 32, ch, 9, 0.0);
        CHECK_OK(flow_image_write(harness_path("c.jpg"), a));
        CHECK_OK(flow_image_read(harness_path("c.jpg"), &b));
        CHECK(b.width == 48 && b.height == 32 && b.channels == ch);
        if (b.data && b.channels == ch) {
            double sum = 0;
            const size_t n = (size_t)48 * 32 * ch;
            for (size_t i = 0; i < n; i++)
                sum += fabs(a->data[i] - b.data[i]);
            printf("    JPEG, %d channel(s): mean |difference| %.3f\n", ch, sum / n);
            CHECK(sum / n < (ch == 1 ? 1.5 : 8.0));
        }
        flow_image_free(&b);
    }
}

static void test_opencv_formats(void)
{
    flow_image a, b;
    make_image(&a, 48, 32, 3, 9);
    if (flow_image_has_opencv()) {
        const char *exact[2] = {"c.tif", "c.bmp"};
        for (int k = 0; k < 2; k++) {
            CHECK_OK(flow_image_write(harness_path(exact[k]), &a));
            CHECK_OK(flow_image_read(harness_path(exact[k]), &b));
            CHECK(max_diff(&a, &b) == 0);
            flow_image_free(&b);
        }
        /* PFM stores floats: fractional values come back (to float
         * rounding of the /255 and *255) */
        flow_image f;
        CHECK_OK(flow_image_alloc(&f, 5, 3, 3));
        for (int i = 0; i < 45; i++)
            f.data[i] = 3.25f * i + 0.125f;
        CHECK_OK(flow_image_write(harness_path("f.pfm"), &f));
        CHECK_OK(flow_image_read(harness_path("f.pfm"), &b));
        CHECK(max_diff(&f, &b) < 1e-4);
        flow_image_free(&b);
        flow_image_free(&f);
        check_jpeg_round_trip(&a);
    } else if (flow_jpeg_available()) { /* JPEG through libjpeg */
        check_jpeg_round_trip(&a);
        expect_bytes_fail("sig.tif", "II*\0\x08\0\0\0", 8, FLOW_ERR_UNSUPPORTED);
        CHECK(strstr(flow_last_error(), "TIFF") && strstr(flow_last_error(), "OpenCV"));
    } else {
        const char *jpg = harness_path("c.jpg");
        CHECK(flow_image_write(jpg, &a) == FLOW_ERR_UNSUPPORTED);
        CHECK(strstr(flow_last_error(), jpg) && strstr(flow_last_error(), "OpenCV"));
        CHECK(harness_file_size(jpg) < 0);
        /* a JPEG/TIFF signature is recognised and refused by name */
        expect_bytes_fail("sig.jpg", "\xFF\xD8\xFF\xE0\0\x10JFIF\0", 11, FLOW_ERR_UNSUPPORTED);
        CHECK(strstr(flow_last_error(), "JPEG") && strstr(flow_last_error(), "OpenCV"));
        expect_bytes_fail("sig.tif", "II*\0\x08\0\0\0", 8, FLOW_ERR_UNSUPPORTED);
        CHECK(strstr(flow_last_error(), "TIFF") && strstr(flow_last_error(), "OpenCV"));
    }
    flow_image_free(&a);
}

/* The luminance 0.299 R + 0.587 G + 0.114 B, into a new image or into one
 * that exists (of the right size only). */
static void test_gray(void)
{
    flow_image rgb, gray, into, wrong;
    CHECK_OK(flow_image_alloc(&rgb, 2, 1, 3));
    const float px[6] = { 100, 0, 50, 200, 10, 30 }; /* R R G G B B */
    memcpy(rgb.data, px, sizeof px);
    CHECK_OK(flow_image_to_gray(&rgb, &gray));
    CHECK(gray.channels == 1 && gray.width == 2);
    CHECK(gray.data[0] == 0.299f * 100 + 0.587f * 50 + 0.114f * 10);
    CHECK(gray.data[1] == 0.299f * 0 + 0.587f * 200 + 0.114f * 30);
    CHECK_OK(flow_image_alloc(&into, 2, 1, 1));
    CHECK_OK(flow_image_gray_into(&rgb, &into));
    CHECK(memcmp(into.data, gray.data, 2 * sizeof(float)) == 0);
    CHECK_OK(flow_image_alloc(&wrong, 3, 1, 1));
    CHECK(flow_image_gray_into(&rgb, &wrong) == FLOW_ERR_SIZE);
    flow_image_free(&rgb), flow_image_free(&gray), flow_image_free(&into), flow_image_free(&wrong);
}

int main(void)
{
    printf("  image I/O through %s\n",
           flow_image_has_opencv() ? "OpenCV" : "the native PGM/PPM and PNG readers");
    RUN(test_png_support);
    RUN(test_roundtrip_8bit);
    RUN(test_write_quantizes);
    RUN(test_read_handmade_8bit);
    RUN(test_read_16bit);
    RUN(test_magic_over_extension);
    RUN(test_bad_files);
    RUN(test_above_maxval);
    RUN(test_write_whole_or_nothing);
    RUN(test_opencv_formats);
    RUN(test_gray);
    return harness_report();
}
