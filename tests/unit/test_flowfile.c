/* test_flowfile.c -- flow files (.flo, .F, .pcm, .pfm, KITTI .png): byte
 * layouts checked by hand, bitwise round trips (NaN payloads, -0,
 * subnormals), unknown vectors through each format, .F byte-order
 * detection and flow windows, the .pcm header variants, PFM in both byte
 * orders, KITTI's 1/64 px quantisation and range, the table of formats,
 * every kind of bad file, and the ground truths of the evaluation data
 * (../shared/data) converted and read back. */
#include "harness.h"
#include "flow/field.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static uint32_t bits(float x)
{
    uint32_t b;
    memcpy(&b, &x, 4);
    return b;
}

static float from_bits(uint32_t b)
{
    float x;
    memcpy(&x, &b, 4);
    return x;
}

static void put_le(unsigned char *p, uint32_t b)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(b >> (8 * i));
}

static void put_be(unsigned char *p, uint32_t b)
{
    for (int i = 0; i < 4; i++)
        p[3 - i] = (unsigned char)(b >> (8 * i));
}

static uint32_t get_le(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint32_t get_be(const unsigned char *p)
{
    return (uint32_t)p[3] | (uint32_t)p[2] << 8 | (uint32_t)p[1] << 16 | (uint32_t)p[0] << 24;
}

/* Number of vectors whose u or v bits differ. */
static long bit_differences(const flow_field *a, const flow_field *b)
{
    if (a->width != b->width || a->height != b->height)
        return -1;
    long d = 0;
    for (size_t i = 0; i < (size_t)a->width * a->height; i++)
        d += bits(a->u[i]) != bits(b->u[i]) || bits(a->v[i]) != bits(b->v[i]);
    return d;
}

/* Vectors that differ, treating any two unknown vectors as equal and known
 * ones bit for bit. */
static long known_differences(const flow_field *a, const flow_field *b)
{
    if (a->width != b->width || a->height != b->height)
        return -1;
    long d = 0;
    for (size_t i = 0; i < (size_t)a->width * a->height; i++) {
        int ua = flow_is_unknown(a->u[i], a->v[i]), ub = flow_is_unknown(b->u[i], b->v[i]);
        if (ua != ub)
            d++;
        else if (!ua && (bits(a->u[i]) != bits(b->u[i]) || bits(a->v[i]) != bits(b->v[i])))
            d++;
    }
    return d;
}

/* A 7x5 field of awkward values: -0, subnormals, huge, NaN with a payload,
 * FLOW_UNKNOWN, and ordinary fractions. */
static void awkward_field(flow_field *f, int with_raw_unknowns)
{
    CHECK_OK(flow_field_alloc(f, 7, 5));
    unsigned seed = 7;
    for (int i = 0; i < 35; i++) {
        f->u[i] = (float)(20.0 * harness_uniform(&seed) - 10.0);
        f->v[i] = (float)(20.0 * harness_uniform(&seed) - 10.0);
    }
    f->u[1] = -0.0f;
    f->v[2] = -0.0f;
    f->u[3] = from_bits(0x00000001u); /* smallest subnormal */
    f->v[3] = -from_bits(0x00400000u);
    f->u[4] = 3.0e8f, f->v[4] = -9.9e8f; /* large but known */
    f->u[10] = f->v[10] = FLOW_UNKNOWN;
    if (with_raw_unknowns) {
        f->u[11] = from_bits(0x7fc01234u); /* NaN with a payload */
        f->v[11] = 1.5f;
        f->u[12] = 2.0f;
        f->v[12] = 1666666752.0f; /* the unknown value Middlebury's files use */
    }
}

static void test_flo_layout(void)
{
    flow_field f;
    CHECK_OK(flow_field_alloc(&f, 3, 2));
    for (int i = 0; i < 6; i++)
        f.u[i] = 0.5f * i, f.v[i] = -1.25f * i;
    const char *p = harness_path("layout.flo");
    CHECK_OK(flow_field_write(p, &f));
    size_t n;
    unsigned char *b = harness_read_file(p, &n);
    CHECK(n == 12 + 6 * 8);
    if (b && n == 60) {
        CHECK(memcmp(b, "PIEH", 4) == 0);
        CHECK(get_le(b) == bits(202021.25f));
        CHECK(get_le(b + 4) == 3 && get_le(b + 8) == 2);
        for (int i = 0; i < 6; i++) { /* interleaved, little-endian, row-major */
            CHECK(get_le(b + 12 + 8 * i) == bits(0.5f * i));
            CHECK(get_le(b + 16 + 8 * i) == bits(-1.25f * i));
        }
    }
    free(b);
    flow_field_free(&f);
}

static void test_barron_layout(void)
{
    flow_field f;
    CHECK_OK(flow_field_alloc(&f, 2, 2));
    const float u[4] = {1.5f, -2.0f, 0.25f, 0.0f}, v[4] = {0.5f, 3.0f, -4.0f, 0.0f};
    memcpy(f.u, u, sizeof u);
    memcpy(f.v, v, sizeof v);
    f.u[3] = FLOW_UNKNOWN;
    const char *p = harness_path("layout.F");
    CHECK_OK(flow_field_write(p, &f));
    size_t n;
    unsigned char *b = harness_read_file(p, &n);
    CHECK(n == 24 + 4 * 8);
    if (b && n == 56) {
        const float header[6] = {2, 2, 2, 2, 0, 0};
        for (int i = 0; i < 6; i++) /* big-endian header: image size, flow size, offsets */
            CHECK(get_be(b + 4 * i) == bits(header[i]));
        for (int i = 0; i < 3; i++) { /* v stored pointing up */
            CHECK(get_be(b + 24 + 8 * i) == bits(u[i]));
            CHECK(get_be(b + 28 + 8 * i) == bits(-v[i]));
        }
        CHECK(get_be(b + 48) == bits(100.0f) && get_be(b + 52) == bits(100.0f));
    }
    free(b);
    flow_field g;
    CHECK_OK(flow_field_read(p, &g));
    CHECK(g.width == 2 && g.height == 2);
    if (g.u) {
        for (int i = 0; i < 3; i++)
            CHECK(bits(g.u[i]) == bits(u[i]) && bits(g.v[i]) == bits(v[i]));
        CHECK(g.u[3] == FLOW_UNKNOWN && g.v[3] == FLOW_UNKNOWN);
    }
    flow_field_free(&g);
    flow_field_free(&f);
}

static void test_pcm_layout(void)
{
    flow_field f;
    CHECK_OK(flow_field_alloc(&f, 3, 1));
    for (int i = 0; i < 3; i++)
        f.u[i] = 1.0f + i, f.v[i] = -0.5f * i;
    const char *p = harness_path("layout.pcm");
    CHECK_OK(flow_field_write(p, &f));
    size_t n;
    unsigned char *b = harness_read_file(p, &n);
    const char *hdr = "PC\n3 1\n";
    CHECK(n == strlen(hdr) + 24);
    if (b && n == strlen(hdr) + 24) {
        CHECK(memcmp(b, hdr, strlen(hdr)) == 0);
        for (int i = 0; i < 3; i++) {
            CHECK(get_le(b + 7 + 8 * i) == bits(1.0f + i));
            CHECK(get_le(b + 11 + 8 * i) == bits(-0.5f * i));
        }
    }
    free(b);
    flow_field_free(&f);
}

/* Every float format keeps known values bit for bit; .flo, .pcm and .pfm
 * keep unknown ones bit for bit too; .F maps them to FLOW_UNKNOWN. */
static void test_roundtrip_each_format(void)
{
    flow_field f, g;
    awkward_field(&f, 1);
    const char *names[4] = {"rt.flo", "rt.pcm", "rt.pfm", "rt.F"};
    for (int k = 0; k < 4; k++) {
        const char *p = harness_path(names[k]);
        CHECK_OK(flow_field_write(p, &f));
        CHECK_OK(flow_field_read(p, &g));
        if (k < 3) {
            CHECK(bit_differences(&f, &g) == 0);
        } else {
            CHECK(known_differences(&f, &g) == 0);
            CHECK(g.u[11] == FLOW_UNKNOWN && g.v[11] == FLOW_UNKNOWN);
            CHECK(g.u[12] == FLOW_UNKNOWN && g.v[12] == FLOW_UNKNOWN);
            CHECK(bits(g.u[1]) == bits(-0.0f) && bits(g.v[2]) == bits(-0.0f));
        }
        flow_field_free(&g);
    }
    flow_field_free(&f);
}

/* .flo -> .F -> .pcm -> .flo, with unknowns written as FLOW_UNKNOWN: the
 * final file is byte for byte the first. */
static void test_chain_bitwise(void)
{
    flow_field f, a, b, c;
    awkward_field(&f, 0);
    const char *p0 = harness_path("chain0.flo"), *p1 = harness_path("chain1.F");
    const char *p2 = harness_path("chain2.pcm"), *p3 = harness_path("chain3.flo");
    CHECK_OK(flow_field_write(p0, &f));
    CHECK_OK(flow_field_read(p0, &a));
    CHECK_OK(flow_field_write(p1, &a));
    CHECK_OK(flow_field_read(p1, &b));
    CHECK_OK(flow_field_write(p2, &b));
    CHECK_OK(flow_field_read(p2, &c));
    CHECK_OK(flow_field_write(p3, &c));
    CHECK(bit_differences(&f, &c) == 0);
    size_t n0, n3;
    unsigned char *b0 = harness_read_file(p0, &n0), *b3 = harness_read_file(p3, &n3);
    CHECK(b0 && b3 && n0 == n3 && n0 > 12 && memcmp(b0, b3, n0) == 0);
    free(b0);
    free(b3);
    flow_field_free(&f);
    flow_field_free(&a);
    flow_field_free(&b);
    flow_field_free(&c);
}

/* A .F of a 6x5 image whose flow window is 3x2 at (2, 1), written by hand
 * in either byte order, with one missing vector. */
static void write_barron_window(const char *path, int big)
{
    unsigned char b[24 + 6 * 8];
    const float header[6] = {6, 5, 3, 2, 2, 1};
    void (*put)(unsigned char *, uint32_t) = big ? put_be : put_le;
    for (int i = 0; i < 6; i++)
        put(b + 4 * i, bits(header[i]));
    for (int i = 0; i < 6; i++) {
        float u = 0.25f * (i + 1), v_up = -0.75f * i + 0.5f;
        if (i == 4)
            u = v_up = 100.0f;
        put(b + 24 + 8 * i, bits(u));
        put(b + 28 + 8 * i, bits(v_up));
    }
    harness_write_file(path, b, sizeof b);
}

static void test_barron_byte_order_and_window(void)
{
    for (int big = 0; big <= 1; big++) {
        const char *p = harness_path(big ? "window-be.F" : "window-le.F");
        write_barron_window(p, big);
        flow_field f;
        CHECK_OK(flow_field_read(p, &f));
        CHECK(f.width == 6 && f.height == 5);
        if (!f.u)
            continue;
        int outside_unknown = 1;
        for (int y = 0; y < 5; y++)
            for (int x = 0; x < 6; x++) {
                const int i = y * 6 + x;
                const int inside = x >= 2 && x < 5 && y >= 1 && y < 3;
                if (!inside) {
                    outside_unknown &= f.u[i] == FLOW_UNKNOWN && f.v[i] == FLOW_UNKNOWN;
                    continue;
                }
                const int k = (y - 1) * 3 + (x - 2);
                if (k == 4) {
                    CHECK(f.u[i] == FLOW_UNKNOWN && f.v[i] == FLOW_UNKNOWN);
                } else {
                    CHECK(f.u[i] == 0.25f * (k + 1));
                    CHECK(f.v[i] == -(-0.75f * k + 0.5f)); /* v down in memory */
                }
            }
        CHECK(outside_unknown);
        flow_field_free(&f);
    }
}

/* .pcm headers: comments, the optional third number, blanks, and data whose
 * first byte is itself a newline. */
static void test_pcm_header_variants(void)
{
    const float u0 = from_bits(0x3f80000au); /* little-endian bytes 0a 00 80 3f */
    const char *headers[4] = {"PC\n2 1\n", "PC\n# made by hand\n2 1\n1.5\n", "PC 2 1 255\n",
                              "PC\n2\n1\n"};
    for (int k = 0; k < 4; k++) {
        unsigned char b[128];
        size_t h = strlen(headers[k]);
        memcpy(b, headers[k], h);
        const float vals[4] = {u0, -2.0f, 3.5f, 0.125f};
        for (int i = 0; i < 4; i++)
            put_le(b + h + 4 * i, bits(vals[i]));
        const char *p = harness_path("variant.pcm");
        harness_write_file(p, b, h + 16);
        flow_field f;
        CHECK_OK(flow_field_read(p, &f));
        CHECK(f.width == 2 && f.height == 1);
        if (f.u)
            CHECK(bits(f.u[0]) == bits(u0) && f.v[0] == -2.0f && f.u[1] == 3.5f &&
                  f.v[1] == 0.125f);
        flow_field_free(&f);
    }
}

static void test_extension_case(void)
{
    flow_field f, g;
    awkward_field(&f, 0);
    const char *names[5] = {"case.FLO", "case.f", "case.Pcm", "case.PFM",
                            "dir.d/../case2.flo"};
    mkdir(harness_path("dir.d"), 0755);
    for (int k = 0; k < 5; k++) {
        CHECK_OK(flow_field_write(harness_path(names[k]), &f));
        CHECK_OK(flow_field_read(harness_path(names[k]), &g));
        CHECK(known_differences(&f, &g) == 0);
        flow_field_free(&g);
    }
    flow_field_free(&f);
}

/* Reads p expecting status s and a detail containing p and `words`. */
static void expect_bad(const char *p, flow_status s, const char *words)
{
    flow_field f;
    memset(&f, 0x55, sizeof f);
    flow_status got = flow_field_read(p, &f);
    CHECK(got == s);
    CHECK(strstr(flow_last_error(), p) != NULL);
    CHECK(strstr(flow_last_error(), words) != NULL);
    if (got != s || !strstr(flow_last_error(), words))
        fprintf(stderr, "    %s: got %s: %s\n", p, flow_status_str(got), flow_last_error());
    CHECK(f.u == NULL && f.v == NULL && f.width == 0); /* left empty */
}

/* Writes n bytes of data as the scratch file `name`, then expect_bad() on it. */
static void expect_bad_bytes(const char *name, const void *data, size_t n, flow_status s,
                             const char *words)
{
    const char *path = harness_path(name);
    harness_write_file(path, data, n);
    expect_bad(path, s, words);
}

static void test_bad_files(void)
{
    expect_bad(harness_path("missing.flo"), FLOW_ERR_IO, "No such file");
    mkdir(harness_path("adir.flo"), 0755);
    expect_bad(harness_path("adir.flo"), FLOW_ERR_IO, "directory");
    expect_bad_bytes("flow.xyz", "PIEH", 4, FLOW_ERR_FORMAT, "unknown flow file extension");
    expect_bad_bytes("noext", "PIEH", 4, FLOW_ERR_FORMAT, "expected .flo, .F, .pcm, .pfm or .png");
    expect_bad_bytes("empty.flo", "", 0, FLOW_ERR_FORMAT, "too short");
    expect_bad_bytes("empty.F", "", 0, FLOW_ERR_FORMAT, "too short");
    expect_bad_bytes("empty.pcm", "", 0, FLOW_ERR_FORMAT, "too short");

    /* .flo: wrong magic, absurd and negative sizes, truncated, trailing */
    flow_field f;
    awkward_field(&f, 0);
    CHECK_OK(flow_field_write(harness_path("good.flo"), &f));
    CHECK_OK(flow_field_write(harness_path("good.F"), &f));
    CHECK_OK(flow_field_write(harness_path("good.pcm"), &f));
    flow_field_free(&f);
    size_t n;
    unsigned char *b = harness_read_file(harness_path("good.flo"), &n);
    if (!b)
        return;
    b[3] = 'X';
    expect_bad_bytes("magic.flo", b, n, FLOW_ERR_FORMAT, "not a .flo file");
    b[3] = 'H';
    put_le(b + 4, 100000), put_le(b + 8, 100000);
    expect_bad_bytes("huge.flo", b, n, FLOW_ERR_SIZE, "100000x100000");
    put_le(b + 4, (uint32_t)-7), put_le(b + 8, 5);
    expect_bad_bytes("negative.flo", b, n, FLOW_ERR_SIZE, "-7x5");
    put_le(b + 4, 7);
    expect_bad_bytes("trunc.flo", b, n - 1, FLOW_ERR_FORMAT, "truncated");
    expect_bad_bytes("mismatch.flo", b, n / 2, FLOW_ERR_FORMAT, "needs 292 bytes");
    unsigned char *longer = calloc(n + 8, 1);
    memcpy(longer, b, n);
    expect_bad_bytes("trailing.flo", longer, n + 8, FLOW_ERR_FORMAT, "trailing data");
    free(longer);
    free(b);

    /* .F: a header of no sizes in either order, truncated, huge */
    b = harness_read_file(harness_path("good.F"), &n);
    if (!b)
        return;
    expect_bad_bytes("trunc.F", b, n - 3, FLOW_ERR_FORMAT, "truncated");
    const char garbage[] = "this is text, not a flow field, with some words in it.........";
    expect_bad_bytes("text.F", garbage, strlen(garbage), FLOW_ERR_FORMAT, "not a .F file");
    const float big_header[6] = {100000, 100000, 100000, 100000, 0, 0};
    for (int i = 0; i < 6; i++)
        put_be(b + 4 * i, bits(big_header[i]));
    expect_bad_bytes("huge.F", b, n, FLOW_ERR_FORMAT, "not a .F file");
    const float outside[6] = {7, 5, 7, 5, 1, 0}; /* window sticks out of the image */
    for (int i = 0; i < 6; i++)
        put_be(b + 4 * i, bits(outside[i]));
    expect_bad_bytes("window.F", b, n, FLOW_ERR_FORMAT, "not a .F file");
    free(b);

    /* .pcm: magic, sizes, truncation, trailing bytes, a bad header */
    b = harness_read_file(harness_path("good.pcm"), &n);
    if (!b)
        return;
    expect_bad_bytes("trunc.pcm", b, n - 1, FLOW_ERR_FORMAT, "truncated");
    b[1] = 'F';
    expect_bad_bytes("magic.pcm", b, n, FLOW_ERR_FORMAT, "not a .pcm file");
    const char *huge = "PC\n100000 100000\n";
    expect_bad_bytes("huge.pcm", huge, strlen(huge), FLOW_ERR_SIZE, "100000x100000");
    const char *words = "PC\nseven five\n";
    expect_bad_bytes("words.pcm", words, strlen(words), FLOW_ERR_FORMAT, "bad .pcm header");
    unsigned char *longer2 = calloc(n + 5, 1);
    memcpy(longer2, b, n);
    longer2[1] = 'C';
    expect_bad_bytes("trailing.pcm", longer2, n + 5, FLOW_ERR_FORMAT, "trailing data");
    free(longer2);
    free(b);
}

/* A big-endian .F of an iw x ih image with an fw x fh window at (0, 0),
 * every vector (1, -2) in the file's axes, as the scratch file `name`. */
static const char *write_barron_sized(const char *name, int iw, int ih, int fw, int fh)
{
    const size_t n = 24 + 8 * (size_t)fw * fh;
    unsigned char *b = malloc(n);
    if (!b)
        return NULL;
    const float header[6] = {(float)iw, (float)ih, (float)fw, (float)fh, 0, 0};
    for (int i = 0; i < 6; i++)
        put_be(b + 4 * i, bits(header[i]));
    for (size_t i = 0; i < (size_t)fw * fh; i++) {
        put_be(b + 24 + 8 * i, bits(1.0f));
        put_be(b + 28 + 8 * i, bits(-2.0f));
    }
    const char *path = harness_path(name);
    harness_write_file(path, b, n);
    free(b);
    return path;
}

/* What a .F header makes the reader allocate is bounded by the file: a
 * 32-byte file with a 1x1 window in a 16777216x16 image once took 2 GiB
 * and seconds; an image over 2^20 pixels must be at most 4 times its
 * window, a smaller one may have any window. */
static void test_barron_window_bound(void)
{
    const char *p = write_barron_sized("spread.F", 16777216, 16, 1, 1);
    expect_bad(p, FLOW_ERR_SIZE, "1x1 flow window in a 16777216x16 image");
    p = write_barron_sized("spread-edge.F", 1100, 1000, 549, 500);
    expect_bad(p, FLOW_ERR_SIZE, "549x500 flow window in a 1100x1000 image");
    static const int fine[][4] = {{1024, 1024, 1, 1}, {1100, 1000, 550, 500}};
    for (int k = 0; k < 2; k++) {
        p = write_barron_sized(k ? "quarter.F" : "small-image.F", fine[k][0], fine[k][1],
                               fine[k][2], fine[k][3]);
        flow_field f;
        CHECK_OK(flow_field_read(p, &f));
        CHECK(f.width == fine[k][0] && f.height == fine[k][1]);
        if (f.u) {
            CHECK(f.u[0] == 1.0f && f.v[0] == 2.0f); /* v down in memory */
            CHECK(f.u[fine[k][2]] == FLOW_UNKNOWN); /* right of the window */
        }
        flow_field_free(&f);
    }
}

static void test_bad_writes(void)
{
    flow_field f;
    awkward_field(&f, 0);
    CHECK(flow_field_write(harness_path("nodir/x.flo"), &f) == FLOW_ERR_IO);
    CHECK(strstr(flow_last_error(), "nodir/x.flo") != NULL);
    CHECK(flow_field_write(harness_path("x.xyz"), &f) == FLOW_ERR_FORMAT);
    CHECK(strstr(flow_last_error(), "x.xyz") != NULL);
    CHECK(harness_count_files("x.xyz") == 0);
    flow_field empty = {0, 0, NULL, NULL};
    CHECK(flow_field_write(harness_path("empty-out.flo"), &empty) == FLOW_ERR_INVALID);
    CHECK(harness_count_files("empty-out") == 0);
    /* writing over a directory fails and leaves no temporary file */
    mkdir(harness_path("target.flo"), 0755);
    CHECK(flow_field_write(harness_path("target.flo"), &f) == FLOW_ERR_IO);
    CHECK(harness_count_files(".tmp-") == 0);
    flow_field_free(&f);
}

/* ---- .pfm ---------------------------------------------------------------- */

/* The writer's layout: "PF\n<w> <h>\n-1\n", rows from the bottom, (u, v, 0)
 * little-endian float32. */
static void test_pfm_layout(void)
{
    flow_field f;
    CHECK_OK(flow_field_alloc(&f, 3, 2));
    for (int i = 0; i < 6; i++)
        f.u[i] = 0.5f * i, f.v[i] = -1.25f * i - 1;
    const char *p = harness_path("layout.pfm");
    CHECK_OK(flow_field_write(p, &f));
    size_t n;
    unsigned char *b = harness_read_file(p, &n);
    const char *hdr = "PF\n3 2\n-1\n";
    const size_t h = strlen(hdr);
    CHECK(n == h + 6 * 12);
    if (b && n == h + 72) {
        CHECK(memcmp(b, hdr, h) == 0);
        for (int k = 0; k < 6; k++) { /* file pixel k is memory row 1 - k / 3 */
            const int i = (1 - k / 3) * 3 + k % 3;
            CHECK(get_le(b + h + 12 * k) == bits(f.u[i]));
            CHECK(get_le(b + h + 12 * k + 4) == bits(f.v[i]));
            CHECK(get_le(b + h + 12 * k + 8) == 0);
        }
    }
    free(b);
    flow_field_free(&f);
}

/* A 2x2 PFM written by hand in either byte order (the scale's sign), with
 * a NaN payload, -0, FLOW_UNKNOWN and a nonzero third channel, and header
 * whitespace other than newlines: every value read bit for bit, rows from
 * the bottom, and written back (little-endian) the same field. */
static void test_pfm_byte_orders(void)
{
    const uint32_t u[4] = {bits(1.5f), 0x7fc01234u, bits(-0.0f), bits(FLOW_UNKNOWN)};
    const uint32_t v[4] = {bits(-2.25f), bits(3.0f), bits(1e-40f), bits(7.0f)};
    const char *hdrs[2] = {"PF\n2 2\n-1.0\n", "PF 2\t2\r\n0.5 "};
    for (int big = 0; big < 2; big++) {
        unsigned char b[64];
        const size_t h = strlen(hdrs[big]);
        memcpy(b, hdrs[big], h);
        for (int k = 0; k < 4; k++) { /* file pixel k is memory pixel (1 - k/2)*2 + k%2 */
            const int i = (1 - k / 2) * 2 + k % 2;
            (big ? put_be : put_le)(b + h + 12 * k, u[i]);
            (big ? put_be : put_le)(b + h + 12 * k + 4, v[i]);
            (big ? put_be : put_le)(b + h + 12 * k + 8, bits(9.0f));
        }
        const char *p = harness_path(big ? "big.pfm" : "little.pfm");
        harness_write_file(p, b, h + 48);
        flow_field f, g;
        CHECK_OK(flow_field_read(p, &f));
        CHECK(f.width == 2 && f.height == 2);
        if (!f.u)
            continue;
        for (int i = 0; i < 4; i++)
            CHECK(bits(f.u[i]) == u[i] && bits(f.v[i]) == v[i]);
        CHECK(flow_is_unknown(f.u[1], f.v[1]) && flow_is_unknown(f.u[3], f.v[3]));
        CHECK_OK(flow_field_write(harness_path("back.pfm"), &f));
        CHECK_OK(flow_field_read(harness_path("back.pfm"), &g));
        CHECK(bit_differences(&f, &g) == 0);
        flow_field_free(&f);
        flow_field_free(&g);
    }
}

static void test_pfm_bad_files(void)
{
    expect_bad_bytes("empty.pfm", "", 0, FLOW_ERR_FORMAT, "too short");
    const char gray[] = "Pf\n1 1\n-1\n\0\0\0\0";
    expect_bad_bytes("gray.pfm", gray, sizeof gray - 1, FLOW_ERR_FORMAT, "one-channel PFM");
    const char *text = "P6\n1 1\n255\nabc";
    expect_bad_bytes("ppm.pfm", text, strlen(text), FLOW_ERR_FORMAT, "not a .pfm file");
    const char *no_scale = "PF\n2 2\n";
    expect_bad_bytes("noscale.pfm", no_scale, strlen(no_scale), FLOW_ERR_FORMAT,
                     "bad .pfm header");
    const char *zero = "PF\n1 1\n0\n\0\0\0\0\0\0\0\0\0\0\0\0";
    expect_bad_bytes("zero.pfm", zero, 21, FLOW_ERR_FORMAT, "nonzero scale");
    const char *words = "PF\nseven 1\n-1\n";
    expect_bad_bytes("words.pfm", words, strlen(words), FLOW_ERR_FORMAT, "bad .pfm header");
    const char *huge = "PF\n100000 100000\n-1\n";
    expect_bad_bytes("huge.pfm", huge, strlen(huge), FLOW_ERR_SIZE, "100000x100000");

    flow_field f;
    awkward_field(&f, 0);
    CHECK_OK(flow_field_write(harness_path("good.pfm"), &f));
    flow_field_free(&f);
    size_t n;
    unsigned char *b = harness_read_file(harness_path("good.pfm"), &n);
    if (!b)
        return;
    expect_bad_bytes("trunc.pfm", b, n - 1, FLOW_ERR_FORMAT, "truncated");
    unsigned char *longer = calloc(n + 4, 1);
    memcpy(longer, b, n);
    expect_bad_bytes("trailing.pfm", longer, n + 4, FLOW_ERR_FORMAT, "trailing data");
    /* a two-channel layout (8 bytes a pixel) is not a PFM flow */
    expect_bad_bytes("twochannel.pfm", b, strlen("PF\n7 5\n-1\n") + 8 * 35, FLOW_ERR_FORMAT,
                     "3 float32 per pixel");
    free(longer);
    free(b);
}

/* ---- KITTI .png ------------------------------------------------------------ */

/* Whether KITTI PNG is built in (libpng); marks the test skipped if not. */
static int kitti_built(void)
{
    flow_field f;
    CHECK_OK(flow_field_alloc(&f, 1, 1));
    f.u[0] = f.v[0] = 0.0f;
    const flow_status s = flow_field_write(harness_path("probe.png"), &f);
    flow_field_free(&f);
    if (s == FLOW_ERR_UNSUPPORTED) {
        CHECK(strstr(flow_last_error(), "needs libpng") != NULL);
        harness_skip("KITTI flow PNG: this libflow has no libpng");
        return 0;
    }
    CHECK_OK(s);
    return s == FLOW_OK;
}

/* round(64 c) / 64 with halves away from zero, computed apart from the
 * library: c scaled by 64 is exact in double; floor(|x| + 0.5) rounds it. */
static float nearest_64th(float c)
{
    const double x = (double)c * 64.0;
    const double r = x < 0 ? -floor(-x + 0.5) : floor(x + 0.5);
    return (float)(r / 64.0);
}

/* Known vectors come back as the nearest 1/64 px (ties away from zero),
 * exactly; unknown ones (FLOW_UNKNOWN, NaN, above 1e9) as invalid pixels
 * that read as FLOW_UNKNOWN; the range ends -512 and 511.984375 hold. */
static void test_kitti_round_trip(void)
{
    if (!kitti_built())
        return;
    flow_field f, g;
    CHECK_OK(flow_field_alloc(&f, 13, 7));
    unsigned seed = 11;
    for (int i = 0; i < 91; i++) {
        f.u[i] = (float)(1000.0 * harness_uniform(&seed) - 500.0);
        f.v[i] = (float)(20.0 * harness_uniform(&seed) - 10.0);
    }
    const float edge[][2] = {{-512.0f, 511.984375f}, {1.0f / 128, -1.0f / 128},
                             {3.0f / 128, -3.0f / 128}, {0.0078124f, -0.0078126f},
                             {-0.0f, 511.99216f}, {-512.0077f, 0.25f}};
    for (int k = 0; k < 6; k++)
        f.u[k] = edge[k][0], f.v[k] = edge[k][1];
    f.u[20] = f.v[20] = FLOW_UNKNOWN;
    f.u[21] = NAN, f.v[21] = 1.0f;
    f.u[22] = 3.0f, f.v[22] = -2e9f;
    const char *p = harness_path("rt.png");
    CHECK_OK(flow_field_write(p, &f));
    CHECK_OK(flow_field_read(p, &g));
    CHECK(g.width == 13 && g.height == 7);
    long wrong = 0;
    for (int i = 0; g.u && i < 91; i++) {
        if (flow_is_unknown(f.u[i], f.v[i]))
            wrong += g.u[i] != FLOW_UNKNOWN || g.v[i] != FLOW_UNKNOWN;
        else
            wrong += g.u[i] != nearest_64th(f.u[i]) || g.v[i] != nearest_64th(f.v[i]);
    }
    CHECK(wrong == 0);
    if (g.u) { /* the ends and the ties, by hand */
        CHECK(g.u[0] == -512.0f && g.v[0] == 511.984375f);
        CHECK(g.u[1] == 0.015625f && g.v[1] == -0.015625f);
        CHECK(g.u[2] == 0.03125f && g.v[2] == -0.03125f);
        CHECK(g.u[3] == 0.0f && g.v[3] == -0.015625f);
        CHECK(g.u[4] == 0.0f && g.v[4] == 511.984375f);
        CHECK(g.u[5] == -512.0f && g.v[5] == 0.25f);
    }
    /* what was read is on the 1/64 grid: written and read again, the same */
    flow_field h;
    CHECK_OK(flow_field_write(harness_path("rt2.png"), &g));
    CHECK_OK(flow_field_read(harness_path("rt2.png"), &h));
    CHECK(bit_differences(&g, &h) == 0);
    flow_field_free(&h);
    flow_field_free(&g);
    flow_field_free(&f);
}

/* A component outside what 16 bits hold is refused, naming the pixel and
 * the value, and leaves no file. */
static void test_kitti_range(void)
{
    if (!kitti_built())
        return;
    flow_field f;
    CHECK_OK(flow_field_alloc(&f, 4, 3));
    for (int i = 0; i < 12; i++)
        f.u[i] = f.v[i] = 1.0f;
    f.u[2 * 4 + 3] = 511.9922f; /* rounds to 512 */
    CHECK(flow_field_write(harness_path("range.png"), &f) == FLOW_ERR_INVALID);
    CHECK(strstr(flow_last_error(), "range.png: pixel (3, 2): u = 511.992188 is outside") != NULL);
    f.u[11] = 1.0f;
    f.v[1 * 4 + 0] = -600.0f;
    CHECK(flow_field_write(harness_path("range.png"), &f) == FLOW_ERR_INVALID);
    CHECK(strstr(flow_last_error(), "pixel (0, 1): v = -600") != NULL);
    CHECK(harness_count_files("range.png") == 0);
    flow_field_free(&f);
}

/* An 8-bit PNG (an image), a one-channel one, something not PNG at all, and
 * a KITTI file cut short: each refused as a flow, saying why. */
static void test_kitti_bad_files(void)
{
    if (!kitti_built())
        return;
    flow_image img;
    CHECK_OK(flow_image_alloc(&img, 5, 4, 3));
    for (int i = 0; i < 60; i++)
        img.data[i] = (float)(i * 4);
    CHECK_OK(flow_image_write(harness_path("rgb8.png"), &img));
    expect_bad(harness_path("rgb8.png"), FLOW_ERR_FORMAT, "not a KITTI flow PNG");
    flow_image_free(&img);
    CHECK_OK(flow_image_alloc(&img, 5, 4, 1));
    for (int i = 0; i < 20; i++)
        img.data[i] = (float)(i * 10);
    CHECK_OK(flow_image_write(harness_path("gray8.png"), &img));
    expect_bad(harness_path("gray8.png"), FLOW_ERR_FORMAT, "1 channel(s) of 8 bits");
    flow_image_free(&img);
    expect_bad_bytes("text.png", "PIEH and more text", 18, FLOW_ERR_FORMAT, "not a PNG file");
    expect_bad_bytes("tiny.png", "\x89PNG", 4, FLOW_ERR_FORMAT, "too short");

    flow_field f;
    awkward_field(&f, 0);
    f.u[4] = f.v[4] = 0.5f; /* in range */
    CHECK_OK(flow_field_write(harness_path("good.png"), &f));
    flow_field_free(&f);
    size_t n;
    unsigned char *b = harness_read_file(harness_path("good.png"), &n);
    if (!b)
        return;
    expect_bad_bytes("trunc.png", b, n - 20, FLOW_ERR_FORMAT, "truncated");
    expect_bad_bytes("half.png", b, n / 2, FLOW_ERR_FORMAT, "PNG");
    free(b);
}

/* The table: every format once, each extension its own, the lookup by
 * extension in any case, and the list that messages quote. */
static void test_format_table(void)
{
    const int n = flow_field_format_count();
    CHECK(n == 5);
    for (int i = 0; i < n; i++) {
        const flow_field_format *f = flow_field_format_at(i);
        CHECK(f && f->extension[0] && f->name[0] && f->description[0]);
        for (int j = 0; f && j < i; j++)
            CHECK(strcmp(f->extension, flow_field_format_at(j)->extension) != 0);
        char path[32];
        snprintf(path, sizeof path, "dir.x/a.%s", f ? f->extension : "");
        CHECK(flow_field_format_of(path) == f);
    }
    CHECK(flow_field_format_at(n) == NULL && flow_field_format_at(-1) == NULL);
    CHECK(flow_field_format_of("A.PFM") && strcmp(flow_field_format_of("A.PFM")->extension,
                                                  "pfm") == 0);
    CHECK(flow_field_format_of("a.flo.txt") == NULL && flow_field_format_of("png") == NULL);
    char list[128];
    CHECK(strcmp(flow_field_format_list(list, sizeof list), ".flo, .F, .pcm, .pfm or .png") ==
          0);
    char small[8];
    CHECK(strcmp(flow_field_format_list(small, sizeof small), ".flo, .") == 0);
}

/* KITTI 2012's flow_noc ground truths: the size, about a quarter of the
 * pixels valid (a laser scanner's points, README of the data), and the
 * field through .pfm and back to .png the same bit for bit (every value
 * is on the 1/64 grid and in range). */
static void test_real_kitti(void)
{
    const char *data = harness_need_data();
    if (!data || !kitti_built())
        return;
    const struct { const char *file; int w, h; } pairs[] = {
        {"kitti2012/training/flow_noc/000045_10.png", 1241, 376},
        {"kitti2012/training/flow_noc/000157_10.png", 1226, 370}};
    int tested = 0;
    for (int k = 0; k < 2; k++) {
        char src[1024];
        if (!harness_data_file(src, sizeof src, pairs[k].file))
            continue;
        tested++;
        flow_field gt, a, b;
        CHECK_OK(flow_field_read(src, &gt));
        CHECK(gt.width == pairs[k].w && gt.height == pairs[k].h);
        if (!gt.u)
            continue;
        size_t known = 0;
        const size_t n = (size_t)gt.width * gt.height;
        for (size_t i = 0; i < n; i++)
            known += !flow_is_unknown(gt.u[i], gt.v[i]);
        CHECK(known > n / 5 && known < n * 3 / 10);
        CHECK_OK(flow_field_write(harness_path("kitti.pfm"), &gt));
        CHECK_OK(flow_field_read(harness_path("kitti.pfm"), &a));
        CHECK_OK(flow_field_write(harness_path("kitti.png"), &a));
        CHECK_OK(flow_field_read(harness_path("kitti.png"), &b));
        CHECK(bit_differences(&gt, &b) == 0);
        flow_field_free(&gt);
        flow_field_free(&a);
        flow_field_free(&b);
    }
    CHECK(tested >= 1);
}

/* Every ground truth of the evaluation data: .flo -> .flo is byte for byte
 * the same file, .flo -> .pcm -> .flo bit for bit the same field, and the
 * chain .flo -> .F -> .pcm -> .flo keeps every known vector bit for bit
 * and every unknown one unknown. */
static void test_real_ground_truths(void)
{
    const char *data = harness_need_data();
    if (!data)
        return;
    const char *files[] = {"yosemite-clouds/yos09-yos10.flo",
                           "middlebury/RubberWhale/flow10.flo",
                           "middlebury/Dimetrodon/flow10.flo",
                           "middlebury/Grove2/flow10.flo",
                           "middlebury/Urban2/flow10.flo",
                           "barron-synthetic/correct_square.flo",
                           "barron-synthetic/correct_mysine.flo",
                           "flyingchairs/0000000-gt.flo",
                           "mmflow-crop/00001_flow.flo"};
    int tested = 0;
    for (size_t k = 0; k < sizeof files / sizeof *files; k++) {
        char src[1024];
        if (!harness_data_file(src, sizeof src, files[k]))
            continue;
        tested++;
        flow_field gt, a, b, c;
        CHECK_OK(flow_field_read(src, &gt));
        const char *p0 = harness_path("gt.flo"), *p1 = harness_path("gt.F");
        const char *p2 = harness_path("gt.pcm");
        CHECK_OK(flow_field_write(p0, &gt));
        size_t n0, n1;
        unsigned char *b0 = harness_read_file(src, &n0), *b1 = harness_read_file(p0, &n1);
        CHECK(b0 && b1 && n0 == n1 && memcmp(b0, b1, n0) == 0);
        free(b0);
        free(b1);

        CHECK_OK(flow_field_write(p2, &gt));
        CHECK_OK(flow_field_read(p2, &a));
        CHECK(bit_differences(&gt, &a) == 0);
        flow_field_free(&a);

        CHECK_OK(flow_field_write(p1, &gt));
        CHECK_OK(flow_field_read(p1, &b));
        CHECK_OK(flow_field_write(p2, &b));
        CHECK_OK(flow_field_read(p2, &c));
        CHECK_OK(flow_field_write(p0, &c));
        flow_field_free(&c);
        CHECK_OK(flow_field_read(p0, &c));
        const long d = known_differences(&gt, &c);
        CHECK(d == 0);
        if (d != 0)
            fprintf(stderr, "    %s: %ld vectors changed\n", files[k], d);
        flow_field_free(&gt);
        flow_field_free(&b);
        flow_field_free(&c);
    }
    CHECK(tested >= 1);
}

int main(void)
{
    RUN(test_flo_layout);
    RUN(test_barron_layout);
    RUN(test_pcm_layout);
    RUN(test_roundtrip_each_format);
    RUN(test_chain_bitwise);
    RUN(test_barron_byte_order_and_window);
    RUN(test_pcm_header_variants);
    RUN(test_extension_case);
    RUN(test_bad_files);
    RUN(test_barron_window_bound);
    RUN(test_bad_writes);
    RUN(test_pfm_layout);
    RUN(test_pfm_byte_orders);
    RUN(test_pfm_bad_files);
    RUN(test_kitti_round_trip);
    RUN(test_kitti_range);
    RUN(test_kitti_bad_files);
    RUN(test_format_table);
    RUN(test_real_ground_truths);
    RUN(test_real_kitti);
    return harness_report();
}
