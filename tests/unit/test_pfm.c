/* test_pfm.c -- Portable Float Map flow files (.pfm): the layout checked
 * by hand, both byte orders read, every kind of bad file refused. */
#include "flowfile_common.h"

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

int main(void)
{
    RUN(test_pfm_layout);
    RUN(test_pfm_byte_orders);
    RUN(test_pfm_bad_files);
    return harness_report();
}
