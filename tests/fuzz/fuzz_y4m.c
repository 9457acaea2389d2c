/* fuzz_y4m.c -- libFuzzer harness of the YUV4MPEG2 reader, both ways of
 * reading a stream: flow_video_read (every colour space and depth, to
 * floats) and flow_video_read8 (8-bit full-range mono samples as stored).
 *   - a refusal (at open or at a frame) has a valid status and names the
 *     file;
 *   - every frame has the stream's size and channels, values finite on
 *     0..255, and no more pixels than the input has bytes (a file must
 *     hold a frame before the reader allocates for it);
 *   - read8 either refuses the stream at its first frame
 *     (FLOW_ERR_UNSUPPORTED) or gives the same frames as bytes, as many;
 *   - frames claimed in order and fetched in reverse order (as several
 *     readers of one file do: flow_video_claim, flow_video_fetch and
 *     fetch8) are the frames read in order, and the claims end where the
 *     reads did;
 *   - 8-bit mono frames written by the project's .y4m writer read back
 *     with read8 byte for byte. */
#include "common.h"

#include <stdlib.h>
#include <string.h>

#define MAX_FRAMES 16 /* enough to see frames follow each other; keeps runs fast */

static const flow_status refusals[] = {FLOW_ERR_FORMAT, FLOW_ERR_SIZE, FLOW_ERR_UNSUPPORTED,
                                       FLOW_OK};

/* The frames of the stream as floats into frames[] (at most MAX_FRAMES);
 * returns how many, -1 (nothing left allocated) when the stream was
 * refused, at its header or at a frame. */
static int read_floats(const char *path, size_t n, flow_image *frames)
{
    flow_video *v = NULL;
    flow_status s = flow_video_open(path, &v);
    if (s != FLOW_OK) {
        fuzz_refused(s, path, refusals);
        FUZZ_REQUIRE(v == NULL);
        return -1;
    }
    int count = 0, got = 1;
    while (got && count < MAX_FRAMES) {
        flow_image *f = &frames[count];
        memset(f, 0, sizeof *f);
        s = flow_video_read(v, f, &got);
        if (s != FLOW_OK) {
            fuzz_refused(s, path, refusals);
            FUZZ_REQUIRE(!got && f->data == NULL);
            break;
        }
        if (!got)
            break;
        FUZZ_REQUIRE(f->data && f->width >= 1 && f->height >= 1);
        FUZZ_REQUIRE(f->channels == 1 || f->channels == 3);
        FUZZ_REQUIRE((double)f->width * f->height <= (double)n);
        FUZZ_REQUIRE(count == 0 || (f->width == frames[0].width &&
                                    f->height == frames[0].height &&
                                    f->channels == frames[0].channels));
        const size_t total = (size_t)f->width * f->height * f->channels;
        for (size_t i = 0; i < total; i++)
            FUZZ_REQUIRE(f->data[i] >= 0.0f && f->data[i] <= 255.0f); /* NaN fails too */
        count++;
    }
    flow_video_close(v);
    if (s != FLOW_OK) {
        for (int k = 0; k < count; k++)
            flow_image_free(&frames[k]);
        return -1;
    }
    return count;
}

/* The stream through read8 against the float frames (count of them). */
static void check_read8(const char *path, const flow_image *frames, int count)
{
    flow_video *v = NULL;
    FUZZ_REQUIRE(flow_video_open(path, &v) == FLOW_OK);
    flow_image8 b = {0};
    int k = 0, got = 1;
    for (; k <= count && k < MAX_FRAMES; k++) {
        const flow_status s = flow_video_read8(v, &b, &got);
        if (s == FLOW_ERR_UNSUPPORTED && k == 0)
            break; /* not 8-bit full-range mono: converted frames only */
        FUZZ_REQUIRE(s == FLOW_OK);
        if (!got)
            break;
        FUZZ_REQUIRE(k < count && frames[k].channels == 1);
        FUZZ_REQUIRE(b.width == frames[k].width && b.height == frames[k].height);
        for (size_t i = 0; i < (size_t)b.width * b.height; i++)
            FUZZ_REQUIRE(b.data[i] == frames[k].data[i]);
    }
    FUZZ_REQUIRE(k == 0 || k == count || k == MAX_FRAMES);
    flow_image8_free(&b);
    flow_video_close(v);
}

/* The stream's frames claimed, then fetched last first, against the float
 * frames (count of them). */
static void check_claims(const char *path, const flow_image *frames, int count)
{
    flow_video *v = NULL;
    FUZZ_REQUIRE(flow_video_open(path, &v) == FLOW_OK);
    FUZZ_REQUIRE(flow_video_claims(v));
    flow_video_place place[MAX_FRAMES];
    int got = 1;
    for (int k = 0; k < count; k++) {
        FUZZ_REQUIRE(flow_video_claim(v, &place[k], &got) == FLOW_OK && got);
        FUZZ_REQUIRE(place[k].frame == k && (k == 0 || place[k].offset > place[k - 1].offset));
    }
    if (count < MAX_FRAMES) {
        flow_video_place end;
        FUZZ_REQUIRE(flow_video_claim(v, &end, &got) == FLOW_OK && !got);
    }
    for (int k = count - 1; k >= 0; k--) {
        flow_image f = {0};
        FUZZ_REQUIRE(flow_video_fetch(v, &place[k], &f) == FLOW_OK);
        FUZZ_REQUIRE(f.width == frames[k].width && f.height == frames[k].height &&
                     f.channels == frames[k].channels);
        FUZZ_REQUIRE(memcmp(f.data, frames[k].data,
                            sizeof(float) * (size_t)f.width * f.height * f.channels) == 0);
        flow_image_free(&f);
        flow_image8 b = {0};
        const flow_status s = flow_video_fetch8(v, &place[k], &b);
        FUZZ_REQUIRE(flow_video_gives8(v) ? s == FLOW_OK : s == FLOW_ERR_UNSUPPORTED);
        for (size_t i = 0; s == FLOW_OK && i < (size_t)b.width * b.height; i++)
            FUZZ_REQUIRE(b.data[i] == frames[k].data[i]);
        flow_image8_free(&b);
    }
    flow_video_close(v);
}

/* 8-bit mono frames through the writer and back through read8. */
static void check_round_trip(const flow_image *frames, int count)
{
    const char *path = fuzz_path("out.y4m");
    char copy[512];
    snprintf(copy, sizeof copy, "%s", path);
    flow_video_writer *w = NULL;
    FUZZ_REQUIRE(flow_video_writer_open(copy, 25, frames[0].width, frames[0].height, 1, &w) ==
                 FLOW_OK);
    for (int k = 0; k < count; k++)
        FUZZ_REQUIRE(flow_video_writer_write(w, &frames[k]) == FLOW_OK);
    FUZZ_REQUIRE(flow_video_writer_close(w) == FLOW_OK);
    flow_video *v = NULL;
    FUZZ_REQUIRE(flow_video_open(copy, &v) == FLOW_OK);
    flow_image8 b = {0};
    int got = 1;
    for (int k = 0; k < count; k++) {
        FUZZ_REQUIRE(flow_video_read8(v, &b, &got) == FLOW_OK && got);
        for (size_t i = 0; i < (size_t)b.width * b.height; i++)
            FUZZ_REQUIRE(b.data[i] == frames[k].data[i]);
    }
    FUZZ_REQUIRE(flow_video_read8(v, &b, &got) == FLOW_OK && !got);
    flow_image8_free(&b);
    flow_video_close(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    const char *in = fuzz_write("in.y4m", data, n);
    char path[512];
    snprintf(path, sizeof path, "%s", in);
    flow_image frames[MAX_FRAMES];
    const int count = read_floats(path, n, frames);
    if (count < 0)
        return 0;
    check_read8(path, frames, count);
    check_claims(path, frames, count);
    if (count > 0 && frames[0].channels == 1) {
        /* bytes read8 gives back exactly: the mono frames that are whole
         * numbers (8-bit full range) */
        int bytes = 1;
        for (int k = 0; k < count && bytes; k++)
            for (size_t i = 0; i < (size_t)frames[k].width * frames[k].height && bytes; i++)
                bytes = frames[k].data[i] == (float)(int)frames[k].data[i];
        if (bytes)
            check_round_trip(frames, count);
    }
    for (int k = 0; k < count; k++)
        flow_image_free(&frames[k]);
    return 0;
}
