/* test_full_disk.c -- writes that the disk refuses: every image writer
 * (native or OpenCV's), the flow-file and .params writers fail with
 * FLOW_ERR_IO naming the file when the bytes cannot be stored, and the
 * video writer's check finds a video cut short.
 *
 * A full disk is /dev/full here: a name linked to it is written through
 * (flow/atomic_file.h writes devices and links in place), and every write
 * to it fails with ENOSPC, as on a full file system.  A temporary file
 * beside the target meets the same checks (the stream's error state and
 * fclose), so this also covers the renamed route.  A real full file system
 * needs a mount, which the tests do not make; the AVI check is tested on a
 * file cut short by hand, as a full disk leaves it. */
#include "harness.h"
#include "io/opencv_shim.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* "<tmp>/<name>" as a symbolic link to /dev/full; NULL (test skipped) where
 * there is no /dev/full or no link can be made. */
static const char *full_link(const char *name)
{
    struct stat st;
    if (stat("/dev/full", &st) != 0 || !S_ISCHR(st.st_mode)) {
        harness_skip("no /dev/full");
        return NULL;
    }
    const char *path = harness_path(name);
    unlink(path);
    if (symlink("/dev/full", path) != 0) {
        harness_skip("cannot link to /dev/full");
        return NULL;
    }
    return path;
}

/* A write to path failed as a full disk must: FLOW_ERR_IO naming the file
 * and the reason, and the link still in place (nothing renamed over it). */
static void check_refused(flow_status s, const char *path)
{
    CHECK(s == FLOW_ERR_IO);
    CHECK(strstr(flow_last_error(), path) != NULL);
    CHECK(strstr(flow_last_error(), "No space left") != NULL);
    struct stat st;
    CHECK(lstat(path, &st) == 0 && S_ISLNK(st.st_mode));
}

static void test_images(void)
{
    flow_image gray, rgb;
    CHECK_OK(flow_image_alloc(&gray, 40, 30, 1));
    CHECK_OK(flow_image_alloc(&rgb, 40, 30, 3));
    for (int i = 0; i < 40 * 30 * 3; i++) {
        if (i < 40 * 30)
            gray.data[i] = (float)(i % 256);
        rgb.data[i] = (float)(i * 7 % 256);
    }
    /* the formats every build writes, then (with OpenCV) some only it writes */
    static const char *const names[] = {"full.png", "full.ppm", "full-gray.pgm", "full.jpg",
                                        "full.bmp", "full.tif"};
    const int n = flow_image_has_opencv() ? 6 : 3;
    for (int i = 0; i < n; i++) {
        const char *path = full_link(names[i]);
        if (!path)
            break;
        check_refused(flow_image_write(path, strstr(path, "gray") ? &gray : &rgb), path);
        unlink(path);
    }
    flow_image_free(&gray);
    flow_image_free(&rgb);
}

static void test_flow_and_params(void)
{
    flow_field f;
    CHECK_OK(flow_field_alloc(&f, 8, 6));
    static const char *const names[] = {"full.flo", "full.F", "full.pcm"};
    for (int i = 0; i < 3; i++) {
        const char *path = full_link(names[i]);
        if (!path)
            break;
        check_refused(flow_field_write(path, &f), path);
        unlink(path);
    }
    flow_field_free(&f);
    flow_params *p = harness_params("hs", "");
    const char *path = full_link("full.params");
    if (p && path)
        check_refused(flow_params_write(path, p, "written to a full disk"), path);
    if (path)
        unlink(path);
    flow_params_destroy(p);
}

/* An AVI of OpenCV's own writer passes the check whole and fails it cut
 * short, the way a full disk leaves it (the sizes patched last missing). */
static void test_avi_cut_short(void)
{
    if (!flow_image_has_opencv()) {
        harness_skip("built without OpenCV");
        return;
    }
    const char *path = harness_path("whole.avi"), *cut = harness_path("cut.avi");
    flow_video_writer *w = NULL;
    flow_image frame;
    CHECK_OK(flow_image_alloc(&frame, 64, 48, 3));
    unsigned st = 3;
    CHECK_OK(flow_video_writer_open(path, 25, 64, 48, 3, &w));
    for (int k = 0; k < 10 && w; k++) {
        for (int i = 0; i < 64 * 48 * 3; i++)
            frame.data[i] = (float)(int)(256 * harness_uniform(&st));
        CHECK_OK(flow_video_writer_write(w, &frame));
    }
    if (w)
        CHECK_OK(flow_video_writer_close(w));
    flow_image_free(&frame);
    size_t n = 0;
    unsigned char *bytes = harness_read_file(path, &n);
    CHECK(bytes && n > 1000);
    if (!bytes)
        return;
    CHECK_OK(flow_ocv_video_verify(path, path, 1, 10));
    harness_write_file(cut, bytes, n / 2);
    CHECK(flow_ocv_video_verify("out.avi", cut, 1, 10) == FLOW_ERR_IO);
    CHECK(strstr(flow_last_error(), "out.avi: write failed") != NULL);
    memset(bytes + 4, 0, 4); /* the RIFF size never patched */
    harness_write_file(cut, bytes, n);
    CHECK(flow_ocv_video_verify("out.avi", cut, 1, 10) == FLOW_ERR_IO);
    free(bytes);
}

int main(void)
{
    RUN(test_images);
    RUN(test_flow_and_params);
    RUN(test_avi_cut_short);
    return harness_report();
}
