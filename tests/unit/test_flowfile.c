/* test_flowfile.c -- flow files (.flo, .F, .pcm): byte layouts checked by
 * hand, bitwise round trips (NaN payloads, -0, subnormals) through every
 * format, unknown vectors through each, .F byte-order detection and flow
 * windows, the .pcm header variants, the table of formats, every kind of
 * bad file, and the ground truths of the evaluation data (../shared/data)
 * converted and read back.  PFM: test_pfm.c; KITTI PNG: test_kitti.c. */
#include "flowfile_common.h"

#include <sys/stat.h>

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
    RUN(test_format_table);
    RUN(test_real_ground_truths);
    return harness_report();
}
