/* test_video.c -- video files and cameras through OpenCV (image.h): a video
 * written frame by frame and read back, and bad videos, paths and calls
 * refused with a message naming them; without OpenCV, every call refused
 * as unsupported.  Image files: test_image.c; the .y4m reader: test_y4m.c. */
#include "harness.h"
#include "flow/image.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Files in the scratch directory whose name contains ".tmp-": what a
 * writer leaves behind when whole-or-nothing writing is broken. */
static int leftover_temps(void)
{
    return harness_count_files(".tmp-");
}

/* Frame k of the test video: a smooth pattern moving one pixel per frame,
 * R 40 above G and B 40 below, so that swapped channels show while the
 * codec's halved chroma resolution loses nothing. */
static void video_frame(flow_image *img, int k)
{
    const int w = img->width, h = img->height;
    for (int c = 0; c < img->channels; c++)
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                img->data[(size_t)c * w * h + (size_t)y * w + x] =
                    (float)(128 + 70 * sin(0.15 * (x - k) + 0.1 * y) + 40 * (1 - c));
}

static void test_video_roundtrip(void)
{
    const char *path = harness_path("clip.avi");
    flow_video_writer *w = NULL;
    flow_status s = flow_video_writer_open(path, 10.0, 64, 48, 3, &w);
    if (!flow_image_has_opencv()) {
        CHECK(s == FLOW_ERR_UNSUPPORTED && w == NULL);
        CHECK(strstr(flow_last_error(), path) && strstr(flow_last_error(), "OpenCV"));
        CHECK(harness_file_size(path) < 0);
        return;
    }
    CHECK_OK(s);
    if (!w)
        return;
    enum { FRAMES = 12 };
    flow_image frame;
    CHECK_OK(flow_image_alloc(&frame, 64, 48, 3));
    for (int k = 0; k < FRAMES; k++) {
        video_frame(&frame, k);
        CHECK_OK(flow_video_writer_write(w, &frame));
    }
    CHECK(harness_file_size(path) < 0); /* nothing at the final name before close */
    CHECK_OK(flow_video_writer_close(w));
    CHECK(harness_file_size(path) > 0);
    CHECK(leftover_temps() == 0);

    flow_video *v = NULL;
    CHECK_OK(flow_video_open(path, &v));
    if (!v) {
        flow_image_free(&frame);
        return;
    }
    CHECK_NEAR(flow_video_fps(v), 10.0, 0.01);
    flow_image got;
    memset(&got, 0, sizeof got);
    int count = 0, more = 1;
    double worst_mean = 0;
    while (more) {
        CHECK_OK(flow_video_read(v, &got, &more));
        if (!more)
            break;
        CHECK(got.width == 64 && got.height == 48 && got.channels == 3);
        video_frame(&frame, count);
        double sum = 0;
        const size_t n = (size_t)64 * 48 * 3;
        for (size_t i = 0; got.data && i < n; i++)
            sum += fabs(frame.data[i] - got.data[i]);
        worst_mean = sum / n > worst_mean ? sum / n : worst_mean;
        if (++count > 2 * FRAMES)
            break;
    }
    CHECK(count == FRAMES);
    /* Motion JPEG is lossy; a smooth pattern comes back within a few levels */
    CHECK(worst_mean < 4.0);
    printf("    %d frames read back, worst mean |difference| %.3f\n", count, worst_mean);
    flow_video_close(v);
    flow_image_free(&got);
    flow_image_free(&frame);
}

static void test_video_errors(void)
{
    flow_video *v = NULL;
    flow_video_writer *w = NULL;
    if (!flow_image_has_opencv()) {
        const char *p = harness_path("any.avi");
        harness_write_file(p, "RIFF", 4);
        CHECK(flow_video_open(p, &v) == FLOW_ERR_UNSUPPORTED && v == NULL);
        CHECK(strstr(flow_last_error(), p) &&
              strstr(flow_last_error(), "video input needs OpenCV"));
        CHECK(flow_video_open_camera(0, &v) == FLOW_ERR_UNSUPPORTED && v == NULL);
        CHECK(strstr(flow_last_error(), "OpenCV") != NULL);
        CHECK(flow_video_open("/dev/video0", &v) == FLOW_ERR_UNSUPPORTED);
        CHECK(strstr(flow_last_error(), "/dev/video0") != NULL);
        return;
    }
    const char *missing = harness_path("missing.avi");
    CHECK(flow_video_open(missing, &v) == FLOW_ERR_IO && v == NULL);
    CHECK(strstr(flow_last_error(), missing) != NULL);
    CHECK(flow_video_open(harness_tmpdir(), &v) == FLOW_ERR_IO);
    CHECK(strstr(flow_last_error(), harness_tmpdir()) != NULL);
    harness_write_file(harness_path("empty.avi"), "", 0);
    CHECK(flow_video_open(harness_path("empty.avi"), &v) == FLOW_ERR_FORMAT);
    CHECK(strstr(flow_last_error(), "empty.avi") != NULL);
    harness_write_file(harness_path("notvideo.avi"), "this is text, not a video\n", 26);
    CHECK(flow_video_open(harness_path("notvideo.avi"), &v) == FLOW_ERR_IO && v == NULL);
    CHECK(strstr(flow_last_error(), "notvideo.avi") != NULL);
    /* FFmpeg "opens" any name ending in .png as a one-image stream */
    harness_write_file(harness_path("text.png"), "hello, world\n", 13);
    CHECK(flow_video_open(harness_path("text.png"), &v) == FLOW_ERR_IO && v == NULL);
    CHECK(strstr(flow_last_error(), "text.png") != NULL);
    CHECK(flow_video_open("/dev/video987", &v) == FLOW_ERR_IO);
    CHECK(strstr(flow_last_error(), "/dev/video987") != NULL);
    CHECK(flow_video_open_camera(-1, &v) == FLOW_ERR_INVALID);

    /* writer: bad arguments, wrong frame size, no frame, discard */
    const char *p = harness_path("w.avi");
    CHECK(flow_video_writer_open(p, 0.0, 8, 8, 3, &w) == FLOW_ERR_INVALID && !w);
    CHECK(flow_video_writer_open(p, 10.0, 8, 8, 2, &w) == FLOW_ERR_INVALID && !w);
    CHECK(flow_video_writer_open(harness_path("w.xyz"), 10.0, 8, 8, 3, &w) == FLOW_ERR_INVALID);
    CHECK(strstr(flow_last_error(), "w.xyz") != NULL);
    CHECK(flow_video_writer_open(harness_path("nodir/w.avi"), 10.0, 8, 8, 3, &w) == FLOW_ERR_IO);
    CHECK(strstr(flow_last_error(), "nodir/w.avi") != NULL);

    flow_image f16, f8;
    CHECK_OK(flow_image_alloc(&f16, 16, 16, 3));
    CHECK_OK(flow_image_alloc(&f8, 8, 8, 3));
    video_frame(&f16, 0);
    video_frame(&f8, 0);
    CHECK_OK(flow_video_writer_open(p, 10.0, 16, 16, 3, &w));
    if (w) {
        CHECK(flow_video_writer_write(w, &f8) == FLOW_ERR_SIZE);
        CHECK(strstr(flow_last_error(), p) != NULL);
        CHECK(flow_video_writer_close(w) == FLOW_ERR_INVALID); /* no frame written */
        CHECK(strstr(flow_last_error(), p) != NULL);
        CHECK(harness_file_size(p) < 0);
    }
    w = NULL;
    CHECK_OK(flow_video_writer_open(p, 10.0, 16, 16, 3, &w));
    if (w) {
        CHECK_OK(flow_video_writer_write(w, &f16));
        flow_video_writer_discard(w);
        CHECK(harness_file_size(p) < 0);
    }
    /* a gray writer: frames come back with three equal-ish channels */
    w = NULL;
    flow_image g;
    CHECK_OK(flow_image_alloc(&g, 16, 16, 1));
    video_frame(&g, 0);
    CHECK_OK(flow_video_writer_open(harness_path("gray.avi"), 5.0, 16, 16, 1, &w));
    if (w) {
        CHECK_OK(flow_video_writer_write(w, &g));
        CHECK_OK(flow_video_writer_close(w));
        v = NULL;
        CHECK_OK(flow_video_open(harness_path("gray.avi"), &v));
        flow_image got;
        memset(&got, 0, sizeof got);
        int more = 0;
        if (v)
            CHECK_OK(flow_video_read(v, &got, &more));
        CHECK(more == 1 && got.channels == 3);
        if (more && got.channels == 3) {
            double sum = 0;
            for (int i = 0; i < 256; i++)
                sum += fabs(got.data[256 + i] - g.data[i]); /* G plane vs gray */
            CHECK(sum / 256 < 4.0);
        }
        flow_video_close(v);
        flow_image_free(&got);
    }
    CHECK(leftover_temps() == 0);
    flow_image_free(&g);
    flow_image_free(&f8);
    flow_image_free(&f16);
}

int main(void)
{
    printf("  video %s\n", flow_image_has_opencv() ? "through OpenCV" : "without OpenCV: unsupported");
    RUN(test_video_roundtrip);
    RUN(test_video_errors);
    return harness_report();
}
