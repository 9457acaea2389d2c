/* test_y4m.c -- the native YUV4MPEG2 reader and writer (libflow/io/y4m.c):
 * round trips (mono exactly, colour within the quantisation bound of the
 * BT.601 matrix), hand-made streams of each layout decoded against values
 * computed here from the format's definition, each malformed-input case
 * with the status and the message it must give, and the public video API
 * (image.h) handing .y4m paths to this reader and writer. */
#include "harness.h"
#include "io/y4m.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void test_match(void)
{
    CHECK(flow_y4m_match("a.y4m"));
    CHECK(flow_y4m_match("dir/CLIP.Y4M"));
    CHECK(flow_y4m_match("-"));
    CHECK(!flow_y4m_match(".y4m"));
    CHECK(!flow_y4m_match("a.y4m.avi"));
    CHECK(!flow_y4m_match("a.avi"));
    CHECK(!flow_y4m_match(NULL));
}

static void test_mono_round_trip(void)
{
    const char *path = harness_path("mono.y4m");
    const int w = 37, h = 23, frames = 3; /* odd sizes on purpose */
    flow_image img[3];
    unsigned st = 5;
    flow_y4m_writer *wr;
    CHECK_OK(flow_y4m_writer_open(path, w, h, 1, 30000, 1001, &wr));
    CHECK(harness_file_size(path) < 0); /* nothing appears before finish */
    for (int k = 0; k < frames; k++) {
        CHECK_OK(flow_image_alloc(&img[k], w, h, 1));
        for (int i = 0; i < w * h; i++)
            img[k].data[i] = (float)(int)(256 * harness_uniform(&st));
        CHECK_OK(flow_y4m_writer_write(wr, &img[k]));
    }
    CHECK_OK(flow_y4m_writer_finish(wr));
    CHECK(harness_file_size(path) >= 0);

    flow_y4m_reader *r;
    CHECK_OK(flow_y4m_open(path, &r));
    if (!r)
        return;
    CHECK(flow_y4m_width(r) == w && flow_y4m_height(r) == h && flow_y4m_channels(r) == 1);
    CHECK_NEAR(flow_y4m_fps(r), 30000.0 / 1001.0, 1e-9);
    flow_image got = {0};
    int n = 0, more = 1, same = 1;
    while (more) {
        CHECK_OK(flow_y4m_read(r, &got, &more));
        if (!more)
            break;
        CHECK(got.channels == 1 && got.width == w && got.height == h);
        if (n < frames)
            same &= memcmp(got.data, img[n].data, sizeof(float) * w * h) == 0;
        n++;
    }
    CHECK(n == frames);
    CHECK(same);
    /* Reading past the end keeps answering "no frame". */
    CHECK_OK(flow_y4m_read(r, &got, &more));
    CHECK(more == 0);
    flow_y4m_close(r);
    flow_image_free(&got);
    for (int k = 0; k < frames; k++)
        flow_image_free(&img[k]);
}

static void test_colour_round_trip(void)
{
    const char *path = harness_path("rgb.y4m");
    const int w = 16, h = 9;
    flow_image img;
    CHECK_OK(flow_image_alloc(&img, w, h, 3));
    unsigned st = 11;
    const int n = w * h;
    for (int i = 0; i < n; i++) {
        if (i < 8) { /* grays must come back exactly */
            float g = (float)(i * 36);
            img.data[i] = img.data[n + i] = img.data[2 * n + i] = g;
        } else
            for (int c = 0; c < 3; c++)
                img.data[c * n + i] = (float)(int)(256 * harness_uniform(&st));
    }
    flow_y4m_writer *wr;
    CHECK_OK(flow_y4m_writer_open(path, w, h, 3, 25, 1, &wr));
    CHECK_OK(flow_y4m_writer_write(wr, &img));
    CHECK_OK(flow_y4m_writer_finish(wr));

    flow_y4m_reader *r;
    CHECK_OK(flow_y4m_open(path, &r));
    if (!r)
        return;
    CHECK(flow_y4m_channels(r) == 3);
    flow_image got = {0};
    int more;
    CHECK_OK(flow_y4m_read(r, &got, &more));
    CHECK(more == 1 && got.channels == 3);
    /* Y, Cb, Cr are each rounded (error <= 0.5): the inverse matrix bounds
     * the RGB error by 0.5 (1 + 1.772) = 1.386 on B, the worst channel. */
    double worst = 0;
    int gray_exact = 1;
    for (int c = 0; c < 3; c++)
        for (int i = 0; i < n; i++) {
            double d = fabs(got.data[c * n + i] - img.data[c * n + i]);
            worst = d > worst ? d : worst;
            if (i < 8 && d > 1e-3)
                gray_exact = 0;
        }
    CHECK(worst <= 1.386 + 1e-6);
    CHECK(gray_exact);
    flow_y4m_close(r);
    flow_image_free(&got);
    flow_image_free(&img);
}

/* A 4x2 420jpeg frame written by hand: Y = 10..80, one Cb and one Cr sample
 * per 2x2 block, decoded against the BT.601 equations evaluated here. */
static void test_420_decode(void)
{
    const char *path = harness_path("hand420.y4m");
    const char head[] = "YUV4MPEG2 W4 H2 F30:1 Ip A0:0 C420jpeg XYSCSS=420JPEG\nFRAME\n";
    unsigned char planes[12] = {10, 20, 30, 40, 50, 60, 70, 80, /* Y */
                                128, 100,                       /* Cb per block */
                                228, 128};                      /* Cr per block */
    char file[128];
    memcpy(file, head, sizeof head - 1);
    memcpy(file + sizeof head - 1, planes, sizeof planes);
    harness_write_file(path, file, sizeof head - 1 + sizeof planes);
    flow_y4m_reader *r;
    CHECK_OK(flow_y4m_open(path, &r));
    if (!r)
        return;
    flow_image got = {0};
    int more;
    CHECK_OK(flow_y4m_read(r, &got, &more));
    CHECK(more == 1 && got.channels == 3 && got.width == 4 && got.height == 2);
    const float *R = got.data, *G = R + 8, *B = G + 8;
    /* Block 0 (x 0..1): Cb 0, Cr +100 -> R = Y + 140.2, G = Y - 71.4136, B = Y. */
    CHECK_NEAR(R[1], 20 + 140.2, 1e-3);
    CHECK_NEAR(G[4], 0.0, 1e-6); /* 50 - 71.41 clamps at 0 */
    CHECK_NEAR(B[5], 60, 1e-3);
    /* Block 1 (x 2..3): Cb -28, Cr 0 -> R = Y, G = Y + 9.6358, B = Y - 49.616. */
    CHECK_NEAR(R[3], 40, 1e-3);
    CHECK_NEAR(G[6], 70 + 0.344136 * 28, 1e-3);
    CHECK_NEAR(B[7], 80 - 1.772 * 28, 1e-3);
    CHECK_OK(flow_y4m_read(r, &got, &more));
    CHECK(more == 0);
    flow_y4m_close(r);
    flow_image_free(&got);
}

/* Limited range and 16-bit samples, mono. */
static void test_ranges(void)
{
    const char *path = harness_path("limited.y4m");
    const char head[] = "YUV4MPEG2 W3 H1 Cmono XCOLORRANGE=LIMITED\nFRAME\n";
    char file[96];
    unsigned char y[3] = {16, 235, 126};
    memcpy(file, head, sizeof head - 1);
    memcpy(file + sizeof head - 1, y, 3);
    harness_write_file(path, file, sizeof head - 1 + 3);
    flow_y4m_reader *r;
    flow_image got = {0};
    int more;
    CHECK_OK(flow_y4m_open(path, &r));
    if (r) {
        CHECK_NEAR(flow_y4m_fps(r), 0, 0); /* no F field: unknown */
        CHECK_OK(flow_y4m_read(r, &got, &more));
        CHECK(more == 1 && got.channels == 1);
        CHECK_NEAR(got.data[0], 0, 1e-4);
        CHECK_NEAR(got.data[1], 255, 1e-3);
        CHECK_NEAR(got.data[2], 110.0 * 255 / 219, 1e-3);
        flow_y4m_close(r);
    }
    flow_image_free(&got);

    path = harness_path("deep.y4m");
    const char head16[] = "YUV4MPEG2 W2 H1 F1:1 Cmono16\nFRAME\n";
    unsigned char s16[4] = {0xff, 0xff, 0x00, 0x80}; /* 65535, 32768 little-endian */
    memcpy(file, head16, sizeof head16 - 1);
    memcpy(file + sizeof head16 - 1, s16, 4);
    harness_write_file(path, file, sizeof head16 - 1 + 4);
    CHECK_OK(flow_y4m_open(path, &r));
    if (r) {
        CHECK_OK(flow_y4m_read(r, &got, &more));
        CHECK(more == 1);
        CHECK_NEAR(got.data[0], 255, 1e-4);
        CHECK_NEAR(got.data[1], 32768.0 * 255 / 65535, 1e-3);
        flow_y4m_close(r);
    }
    flow_image_free(&got);
}

/* Opens a file with the given bytes and expects status s with `needle` and
 * the file name in the message. */
static void expect_open_error(const char *name, const char *bytes, flow_status s,
                              const char *needle)
{
    const char *path = harness_path(name);
    harness_write_file(path, bytes, strlen(bytes));
    flow_y4m_reader *r = NULL;
    flow_status got = flow_y4m_open(path, &r);
    CHECK(got == s);
    CHECK(r == NULL);
    CHECK(strstr(flow_last_error(), name) != NULL);
    CHECK(strstr(flow_last_error(), needle) != NULL);
    if (got != s || !strstr(flow_last_error(), needle))
        fprintf(stderr, "    %s: got '%s'\n", name, flow_last_error());
    flow_y4m_close(r);
}

static void test_bad_headers(void)
{
    expect_open_error("empty.y4m", "", FLOW_ERR_FORMAT, "empty");
    expect_open_error("png.y4m", "\x89PNG\r\n\x1a\n", FLOW_ERR_FORMAT, "not a YUV4MPEG2");
    expect_open_error("nowidth.y4m", "YUV4MPEG2 H10 Cmono\n", FLOW_ERR_FORMAT, "W (width)");
    expect_open_error("badwidth.y4m", "YUV4MPEG2 W-3 H10\n", FLOW_ERR_FORMAT, "W-3");
    expect_open_error("badfps.y4m", "YUV4MPEG2 W3 H10 F30\n", FLOW_ERR_FORMAT, "F30");
    expect_open_error("badcs.y4m", "YUV4MPEG2 W3 H10 Cxyz\n", FLOW_ERR_UNSUPPORTED, "xyz");
    expect_open_error("huge.y4m", "YUV4MPEG2 W1000000 H1000000\n", FLOW_ERR_SIZE, "2^28");
    expect_open_error("field.y4m", "YUV4MPEG2 W3 H3 Q7\n", FLOW_ERR_FORMAT, "Q7");

    flow_y4m_reader *r = NULL;
    const char *path = harness_path("does-not-exist.y4m");
    CHECK(flow_y4m_open(path, &r) == FLOW_ERR_IO);
    CHECK(strstr(flow_last_error(), "does-not-exist.y4m") != NULL);
}

static void test_bad_frames(void)
{
    const char *path;
    flow_y4m_reader *r;
    flow_image got = {0};
    int more = 1;
    /* The second frame stops after 5 of its 6 bytes. */
    path = harness_path("trunc.y4m");
    const char trunc[] = "YUV4MPEG2 W3 H2 Cmono\nFRAME\nabcdefFRAME\nabcde";
    harness_write_file(path, trunc, sizeof trunc - 1);
    CHECK_OK(flow_y4m_open(path, &r));
    if (r) {
        CHECK_OK(flow_y4m_read(r, &got, &more));
        CHECK(more == 1 && got.data[0] == 'a');
        CHECK(flow_y4m_read(r, &got, &more) == FLOW_ERR_FORMAT);
        CHECK(more == 0);
        CHECK(strstr(flow_last_error(), "frame 1 is truncated") != NULL);
        CHECK(strstr(flow_last_error(), "trunc.y4m") != NULL);
        flow_y4m_close(r);
    }
    flow_image_free(&got);

    path = harness_path("badframe.y4m");
    const char badframe[] = "YUV4MPEG2 W3 H2 Cmono\nFRAMX\nabcdef";
    harness_write_file(path, badframe, sizeof badframe - 1);
    CHECK_OK(flow_y4m_open(path, &r));
    if (r) {
        CHECK(flow_y4m_read(r, &got, &more) == FLOW_ERR_FORMAT);
        CHECK(strstr(flow_last_error(), "frame 0: bad frame header") != NULL);
        flow_y4m_close(r);
    }

    /* A reused buffer of another size is refused, not overrun. */
    path = harness_path("size.y4m");
    const char ok[] = "YUV4MPEG2 W3 H2 Cmono\nFRAME\nabcdef";
    harness_write_file(path, ok, sizeof ok - 1);
    flow_image small;
    CHECK_OK(flow_image_alloc(&small, 2, 2, 1));
    CHECK_OK(flow_y4m_open(path, &r));
    if (r) {
        CHECK(flow_y4m_read(r, &small, &more) == FLOW_ERR_SIZE);
        flow_y4m_close(r);
    }
    flow_image_free(&small);
}

static void test_writer_errors(void)
{
    const char *path = harness_path("aborted.y4m");
    flow_y4m_writer *wr;
    CHECK_OK(flow_y4m_writer_open(path, 4, 4, 1, 25, 1, &wr));
    flow_image wrong;
    CHECK_OK(flow_image_alloc(&wrong, 5, 4, 1));
    memset(wrong.data, 0, sizeof(float) * 20);
    CHECK(flow_y4m_writer_write(wr, &wrong) == FLOW_ERR_SIZE);
    flow_y4m_writer_abort(wr);
    CHECK(harness_file_size(path) < 0); /* no half file left behind */
    flow_image_free(&wrong);
    CHECK(flow_y4m_writer_open(path, 4, 4, 2, 25, 1, &wr) == FLOW_ERR_INVALID);
    CHECK(flow_y4m_writer_open(path, 4, 4, 1, 0, 1, &wr) == FLOW_ERR_INVALID);
    CHECK(flow_y4m_writer_open("/nonexistent-dir/x.y4m", 4, 4, 1, 25, 1, &wr) == FLOW_ERR_IO);
    CHECK(strstr(flow_last_error(), "/nonexistent-dir/x.y4m") != NULL);
}

/* n random gray frames of whole values (img[0 .. n-1], allocated here)
 * written to path through flow_video_writer, which is returned open (NULL,
 * with the images unallocated, when it cannot be opened). */
static flow_video_writer *write_gray_frames(const char *path, double fps, int w, int h, int n,
                                            flow_image *img, unsigned seed)
{
    flow_video_writer *vw = NULL;
    CHECK_OK(flow_video_writer_open(path, fps, w, h, 1, &vw));
    if (!vw)
        return NULL;
    for (int k = 0; k < n; k++) {
        CHECK_OK(flow_image_alloc(&img[k], w, h, 1));
        for (int i = 0; i < w * h; i++)
            img[k].data[i] = (float)(int)(256 * harness_uniform(&seed));
        CHECK_OK(flow_video_writer_write(vw, &img[k]));
    }
    return vw;
}

/* The public video API hands .y4m paths to the native module in every
 * build: write through flow_video_writer, read back through flow_video. */
static void test_public_video_api(void)
{
    const char *path = harness_path("public.y4m");
    const int w = 9, h = 7;
    flow_image img[2];
    flow_video_writer *vw = write_gray_frames(path, 30000.0 / 1001.0, w, h, 2, img, 3);
    if (!vw)
        return;
    CHECK(harness_file_size(path) < 0);
    CHECK_OK(flow_video_writer_close(vw));
    flow_video *v = NULL;
    CHECK_OK(flow_video_open(path, &v));
    if (v) {
        CHECK_NEAR(flow_video_fps(v), 30000.0 / 1001.0, 1e-9); /* stored as 30000:1001 */
        flow_image got = {0};
        int more = 0, n = 0, same = 1;
        for (;;) {
            CHECK_OK(flow_video_read(v, &got, &more));
            if (!more)
                break;
            if (n < 2)
                same &= memcmp(got.data, img[n].data, sizeof(float) * w * h) == 0;
            n++;
        }
        CHECK(n == 2 && same);
        flow_video_close(v);
        flow_image_free(&got);
    }
    /* A discarded writer leaves nothing. */
    path = harness_path("discarded.y4m");
    CHECK_OK(flow_video_writer_open(path, 25, w, h, 1, &vw));
    if (vw) {
        CHECK_OK(flow_video_writer_write(vw, &img[0]));
        flow_video_writer_discard(vw);
    }
    CHECK(harness_file_size(path) < 0);
    /* Errors from the native reader come through with the file's name. */
    path = harness_path("missing.y4m");
    CHECK(flow_video_open(path, &v) == FLOW_ERR_IO);
    CHECK(v == NULL);
    CHECK(strstr(flow_last_error(), "missing.y4m") != NULL);
    for (int k = 0; k < 2; k++)
        flow_image_free(&img[k]);
}

/* flow_video_read8: a mono 8-bit full-range stream gives its samples as
 * they are (those flow_video_read gives, as bytes), mixing with
 * flow_video_read frame by frame; any other stream is refused before
 * anything is read, and a short frame is reported with its number. */
static void test_read8(void)
{
    const char *path = harness_path("bytes.y4m");
    const int w = 5, h = 3;
    flow_image img[3];
    flow_video_writer *vw = write_gray_frames(path, 25, w, h, 3, img, 11);
    if (!vw)
        return;
    CHECK_OK(flow_video_writer_close(vw));
    flow_video *v = NULL;
    CHECK_OK(flow_video_open(path, &v));
    if (v) {
        flow_image8 b = {0};
        flow_image f = {0};
        int more = 0, same = 1;
        CHECK_OK(flow_video_read8(v, &b, &more));
        CHECK(more == 1 && b.width == w && b.height == h && b.channels == 1);
        for (int i = 0; more && i < w * h; i++)
            same &= b.data[i] == img[0].data[i];
        CHECK_OK(flow_video_read(v, &f, &more)); /* the second frame, as floats */
        CHECK(more == 1 && memcmp(f.data, img[1].data, sizeof(float) * w * h) == 0);
        unsigned char *kept = b.data;
        CHECK_OK(flow_video_read8(v, &b, &more)); /* into the same buffer */
        CHECK(more == 1 && b.data == kept);
        for (int i = 0; more && i < w * h; i++)
            same &= b.data[i] == img[2].data[i];
        CHECK(same);
        CHECK_OK(flow_video_read8(v, &b, &more));
        CHECK(more == 0);
        flow_video_close(v);
        flow_image8_free(&b);
        flow_image_free(&f);
    }
    /* A buffer of another size: FLOW_ERR_SIZE, nothing read. */
    CHECK_OK(flow_video_open(path, &v));
    if (v) {
        flow_image8 b = {0};
        int more = 1;
        CHECK_OK(flow_image8_alloc(&b, w + 1, h, 1));
        CHECK(flow_video_read8(v, &b, &more) == FLOW_ERR_SIZE && more == 0);
        CHECK(strstr(flow_last_error(), "bytes.y4m") != NULL);
        flow_image8_free(&b);
        CHECK_OK(flow_video_read8(v, &b, &more));
        CHECK(more == 1 && b.data[0] == img[0].data[0]);
        flow_video_close(v);
        flow_image8_free(&b);
    }
    /* Limited range, colour and 16-bit samples are converted: refused. */
    static const char *const refused[] = {
        "YUV4MPEG2 W3 H1 Cmono XCOLORRANGE=LIMITED\nFRAME\nabc",
        "YUV4MPEG2 W2 H2 C444\nFRAME\n0123456789ab",
        "YUV4MPEG2 W2 H1 Cmono16\nFRAME\nabcd",
    };
    for (int k = 0; k < 3; k++) {
        path = harness_path("refused.y4m");
        harness_write_file(path, refused[k], strlen(refused[k]));
        CHECK_OK(flow_video_open(path, &v));
        if (!v)
            continue;
        flow_image8 b = {0};
        flow_image f = {0};
        int more = 1;
        CHECK(flow_video_read8(v, &b, &more) == FLOW_ERR_UNSUPPORTED && more == 0 && !b.data);
        CHECK_OK(flow_video_read(v, &f, &more)); /* the frame is still there */
        CHECK(more == 1);
        flow_video_close(v);
        flow_image_free(&f);
    }
    /* A truncated frame names the file and the frame. */
    path = harness_path("short8.y4m");
    const char shortf[] = "YUV4MPEG2 W4 H2 Cmono\nFRAME\n01234567FRAME\n0123";
    harness_write_file(path, shortf, sizeof shortf - 1);
    CHECK_OK(flow_video_open(path, &v));
    if (v) {
        flow_image8 b = {0};
        int more = 0;
        CHECK_OK(flow_video_read8(v, &b, &more));
        CHECK(more == 1 && memcmp(b.data, "01234567", 8) == 0);
        CHECK(flow_video_read8(v, &b, &more) == FLOW_ERR_FORMAT && more == 0);
        CHECK(strstr(flow_last_error(), "short8.y4m: frame 1 is truncated") != NULL);
        flow_video_close(v);
        flow_image8_free(&b);
    }
    /* No video: refused with the function's name. */
    int more = 1;
    flow_image8 none = {0};
    CHECK(flow_video_read8(NULL, &none, &more) == FLOW_ERR_INVALID && more == 0);
    for (int k = 0; k < 3; k++)
        flow_image_free(&img[k]);
}

/* Frames claimed in order and fetched out of order, as several readers do:
 * each equals the frame read in order, as floats and as stored, and the
 * claims follow a FRAME line with parameters; the end answers "no frame"
 * again; a truncated frame is refused at its claim, naming it; a pipe is
 * read in order only. */
static void test_claims(void)
{
    /* 3 frames of 4x2 420: Y 8, Cb 2, Cr 2 bytes each; the second FRAME
     * line carries a parameter. */
    const char *path = harness_path("claims.y4m");
    static const char file[] = "YUV4MPEG2 W4 H2 F25:1 C420jpeg\n"
                               "FRAME\n\x0a\x14\x1e\x28\x32\x3c\x46\x50\x80\x64\xe4\x80"
                               "FRAME Ixyz\n\x01\x02\x03\x04\x05\x06\x07\x08\x90\x70\x60\x88"
                               "FRAME\n\xf0\xe0\xd0\xc0\xb0\xa0\x90\x80\x10\x20\x30\x40";
    harness_write_file(path, file, sizeof file - 1);
    flow_video *seq = NULL, *v = NULL;
    CHECK_OK(flow_video_open(path, &seq));
    CHECK_OK(flow_video_open(path, &v));
    if (!seq || !v)
        goto done;
    CHECK(flow_video_claims(v) && !flow_video_gives8(v));
    flow_image want[3] = {{0}}, got[3] = {{0}};
    flow_video_place place[4];
    int more = 0;
    for (int k = 0; k < 3; k++) {
        CHECK_OK(flow_video_read(seq, &want[k], &more));
        CHECK(more == 1);
        CHECK_OK(flow_video_claim(v, &place[k], &more));
        CHECK(more == 1 && place[k].frame == k);
    }
    CHECK(place[0].offset == 37 && place[1].offset == 37 + 12 + 11 && place[2].offset == 37 + 24 + 17);
    CHECK_OK(flow_video_claim(v, &place[3], &more));
    CHECK(more == 0);
    CHECK_OK(flow_video_claim(v, &place[3], &more));
    CHECK(more == 0);
    for (int k = 2; k >= 0; k--) {
        CHECK_OK(flow_video_fetch(v, &place[k], &got[k]));
        CHECK(got[k].data && memcmp(got[k].data, want[k].data, sizeof(float) * 8 * 3) == 0);
    }
    flow_image8 b = {0};
    CHECK(flow_video_fetch8(v, &place[0], &b) == FLOW_ERR_UNSUPPORTED && !b.data);
    for (int k = 0; k < 3; k++)
        flow_image_free(&want[k]), flow_image_free(&got[k]);
done:
    flow_video_close(seq);
    flow_video_close(v);

    /* Mono 8-bit: the samples as stored, into a buffer reused. */
    path = harness_path("claims8.y4m");
    static const char mono[] = "YUV4MPEG2 W3 H1 Cmono\nFRAME\nabcFRAME\ndefFRAME\ngh";
    harness_write_file(path, mono, sizeof mono - 1);
    CHECK_OK(flow_video_open(path, &v));
    if (v) {
        CHECK(flow_video_claims(v) && flow_video_gives8(v));
        flow_video_place p0, p1;
        flow_image8 m = {0};
        CHECK_OK(flow_video_claim(v, &p0, &more));
        CHECK_OK(flow_video_claim(v, &p1, &more));
        CHECK_OK(flow_video_fetch8(v, &p1, &m));
        CHECK(m.data && m.width == 3 && memcmp(m.data, "def", 3) == 0);
        const unsigned char *kept = m.data;
        CHECK_OK(flow_video_fetch8(v, &p0, &m));
        CHECK(m.data == kept && memcmp(m.data, "abc", 3) == 0);
        flow_video_place p2;
        CHECK(flow_video_claim(v, &p2, &more) == FLOW_ERR_FORMAT && more == 0);
        CHECK(strstr(flow_last_error(), "claims8.y4m: frame 2 is truncated") != NULL);
        flow_image8 small = {0};
        CHECK_OK(flow_image8_alloc(&small, 2, 1, 1));
        CHECK(flow_video_fetch8(v, &p0, &small) == FLOW_ERR_SIZE);
        flow_image8_free(&small);
        flow_image8_free(&m);
        flow_video_close(v);
    }

    /* A pipe (a FIFO named .y4m): read in order, never claimed. */
    path = harness_path("pipe.y4m");
    unlink(path);
    if (mkfifo(path, 0600) != 0) {
        CHECK(!"mkfifo");
        return;
    }
    const pid_t child = fork();
    if (child == 0) {
        FILE *f = fopen(path, "wb");
        _exit(f && fwrite(mono, 1, 31, f) == 31 && fclose(f) == 0 ? 0 : 1);
    }
    CHECK_OK(flow_video_open(path, &v));
    if (v) {
        flow_video_place p;
        CHECK(!flow_video_claims(v));
        CHECK(flow_video_claim(v, &p, &more) == FLOW_ERR_UNSUPPORTED && more == 0);
        flow_image8 m = {0};
        CHECK_OK(flow_video_read8(v, &m, &more));
        CHECK(more == 1 && memcmp(m.data, "abc", 3) == 0);
        flow_image8_free(&m);
        flow_video_close(v);
    }
    int status = -1;
    CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    unlink(path);
}

int main(void)
{
    RUN(test_match);
    RUN(test_mono_round_trip);
    RUN(test_colour_round_trip);
    RUN(test_420_decode);
    RUN(test_ranges);
    RUN(test_bad_headers);
    RUN(test_bad_frames);
    RUN(test_writer_errors);
    RUN(test_public_video_api);
    RUN(test_read8);
    RUN(test_claims);
    return harness_report();
}
