/* video.c -- video input (files and cameras) and the video writer of
 * image.h, over the OpenCV shim (io/opencv_shim.h).
 *
 * What can be checked without OpenCV is checked here first, so that the
 * messages are precise rather than OpenCV's "cannot open": the path exists,
 * is not a directory, a regular file is not empty.  "/dev/videoN" is opened
 * as camera N (OpenCV's camera backends take an index); any other path,
 * other device nodes included, is passed to OpenCV as a path.  Without
 * OpenCV every entry point fails with FLOW_ERR_UNSUPPORTED (opencv_none.c).
 *
 * Exception: YUV4MPEG2 (a path ending in .y4m, or "-" for standard input)
 * is read and written natively by io/y4m.c in every build, so a machine
 * without OpenCV still streams video.  The handles given to callers are
 * therefore small wrappers (video_handle, writer_handle) holding either the
 * y4m object or the shim's; this file never sees the shim's structs. */
#include "io/image_formats.h"
#include "io/opencv_shim.h"
#include "io/y4m.h"
#include "base/fail.h"
#include "flow/atomic_file.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* What a flow_video * / flow_video_writer * points to (converted back and
 * forth; callers never dereference them). */
typedef struct video_handle {
    flow_y4m_reader *y4m; /* native .y4m input, or */
    flow_video *ocv;      /* the OpenCV shim's capture */
} video_handle;

typedef struct writer_handle {
    flow_y4m_writer *y4m; /* native .y4m output, or */
    flow_video_writer *ocv; /* the OpenCV shim's writer */
} writer_handle;

static flow_status wrap_video(flow_y4m_reader *y4m, flow_video *ocv, flow_video **out)
{
    video_handle *h = calloc(1, sizeof *h);
    if (!h) {
        flow_y4m_close(y4m);
        if (ocv)
            flow_ocv_video_close(ocv);
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate a video handle");
    }
    h->y4m = y4m;
    h->ocv = ocv;
    *out = (flow_video *)h;
    return FLOW_OK;
}

/* Opens through the shim and wraps the result. */
static flow_status open_ocv(const char *name, const char *path, int index, flow_video **out)
{
    flow_video *ocv = NULL;
    FLOW_TRY(flow_ocv_video_open(name, path, index, &ocv));
    return wrap_video(NULL, ocv, out);
}

/* N for a path "/dev/videoN" (N of 1 to 4 digits), else -1. */
static int camera_index(const char *path)
{
    static const char prefix[] = "/dev/video";
    const size_t len = sizeof prefix - 1;
    if (strncmp(path, prefix, len) != 0)
        return -1;
    const char *d = path + len;
    const size_t n = strlen(d);
    if (n < 1 || n > 4 || strspn(d, "0123456789") != n)
        return -1;
    return atoi(d);
}

flow_status flow_video_open(const char *path, flow_video **out)
{
    if (!out)
        return flow_fail(FLOW_ERR_INVALID, "flow_video_open: no output pointer given");
    *out = NULL;
    if (!path || !*path)
        return flow_fail(FLOW_ERR_INVALID, "no video file or camera name given");
    if (flow_y4m_match(path)) {
        flow_y4m_reader *r;
        FLOW_TRY(flow_y4m_open(path, &r));
        return wrap_video(r, NULL, out);
    }
    const int index = camera_index(path);
    if (flow_ocv_available()) {
        struct stat st;
        if (stat(path, &st) != 0)
            return flow_fail(FLOW_ERR_IO, "%s: cannot open %s: %s", path,
                             index >= 0 ? "camera" : "video", strerror(errno));
        if (S_ISDIR(st.st_mode))
            return flow_fail(FLOW_ERR_IO, "%s: is a directory, not a video file", path);
        if (S_ISREG(st.st_mode) && st.st_size == 0)
            return flow_fail(FLOW_ERR_FORMAT, "%s: empty file (0 bytes), not a video", path);
    }
    return open_ocv(path, path, index, out);
}

flow_status flow_video_open_camera(int index, flow_video **out)
{
    if (!out)
        return flow_fail(FLOW_ERR_INVALID, "flow_video_open_camera: no output pointer given");
    *out = NULL;
    char name[32];
    snprintf(name, sizeof name, "camera %d", index);
    if (index < 0)
        return flow_fail(FLOW_ERR_INVALID, "%s: camera indices start at 0", name);
    return open_ocv(name, NULL, index, out);
}

/* The checks of a read's arguments (fn names the call); *got = 0. */
static flow_status read_args(const char *fn, const flow_video *v, const void *img, int *got)
{
    if (!got || !img)
        return flow_fail(FLOW_ERR_INVALID, "%s: no image or flag pointer given", fn);
    *got = 0;
    if (!v)
        return flow_fail(FLOW_ERR_INVALID, "%s: no video given", fn);
    return FLOW_OK;
}

flow_status flow_video_read(flow_video *v, flow_image *img, int *got)
{
    FLOW_TRY(read_args("flow_video_read", v, img, got));
    video_handle *h = (video_handle *)v;
    return h->y4m ? flow_y4m_read(h->y4m, img, got) : flow_ocv_video_read(h->ocv, img, got);
}

flow_status flow_video_read8(flow_video *v, flow_image8 *img, int *got)
{
    FLOW_TRY(read_args("flow_video_read8", v, img, got));
    video_handle *h = (video_handle *)v;
    if (!h->y4m)
        return flow_fail(FLOW_ERR_UNSUPPORTED,
                         "flow_video_read8: only .y4m streams give their samples as they are");
    return flow_y4m_read8(h->y4m, img, got);
}

int flow_video_gives8(const flow_video *v)
{
    const video_handle *h = (const video_handle *)v;
    return h && h->y4m && flow_y4m_gives8(h->y4m);
}

int flow_video_claims(const flow_video *v)
{
    const video_handle *h = (const video_handle *)v;
    return h && h->y4m && flow_y4m_claims(h->y4m);
}

flow_status flow_video_claim(flow_video *v, flow_video_place *place, int *got)
{
    FLOW_TRY(read_args("flow_video_claim", v, place, got));
    video_handle *h = (video_handle *)v;
    if (!h->y4m)
        return flow_fail(FLOW_ERR_UNSUPPORTED, "flow_video_claim: only a .y4m file is read by "
                         "several threads: read this video with flow_video_read");
    return flow_y4m_claim(h->y4m, place, got);
}

/* The checks of a fetch's arguments (fn names the call). */
static flow_status fetch_args(const char *fn, const flow_video *v, const flow_video_place *place,
                              const void *img)
{
    if (!v || !place || !img)
        return flow_fail(FLOW_ERR_INVALID, "%s: no video, place or image given", fn);
    if (!((const video_handle *)v)->y4m)
        return flow_fail(FLOW_ERR_UNSUPPORTED, "%s: only a .y4m file has places", fn);
    return FLOW_OK;
}

flow_status flow_video_fetch(const flow_video *v, const flow_video_place *place, flow_image *img)
{
    FLOW_TRY(fetch_args("flow_video_fetch", v, place, img));
    return flow_y4m_fetch(((const video_handle *)v)->y4m, place, img);
}

flow_status flow_video_fetch8(const flow_video *v, const flow_video_place *place,
                              flow_image8 *img)
{
    FLOW_TRY(fetch_args("flow_video_fetch8", v, place, img));
    return flow_y4m_fetch8(((const video_handle *)v)->y4m, place, img);
}

double flow_video_fps(const flow_video *v)
{
    const video_handle *h = (const video_handle *)v;
    if (!h)
        return 0.0;
    return h->y4m ? flow_y4m_fps(h->y4m) : flow_ocv_video_fps(h->ocv);
}

void flow_video_close(flow_video *v)
{
    video_handle *h = (video_handle *)v;
    if (!h)
        return;
    if (h->y4m)
        flow_y4m_close(h->y4m);
    else
        flow_ocv_video_close(h->ocv);
    free(h);
}

/* Codecs the writer picks by extension: ones OpenCV has without extras
 * (Motion JPEG has a built-in AVI writer) or through FFmpeg. */
static const struct {
    const char *ext, *fourcc;
} codecs[] = {{"avi", "MJPG"}, {"mp4", "mp4v"}, {"m4v", "mp4v"}};

static flow_status writer_open(const char *path, double fps, int width, int height,
                               int channels, writer_handle *h);

flow_status flow_video_writer_open(const char *path, double fps, int width, int height,
                                   int channels, flow_video_writer **out)
{
    if (!out)
        return flow_fail(FLOW_ERR_INVALID, "flow_video_writer_open: no output pointer given");
    *out = NULL;
    if (!path || !*path)
        return flow_fail(FLOW_ERR_INVALID, "no video file name given");
    if (!(fps > 0 && fps <= 1000))
        return flow_fail(FLOW_ERR_INVALID, "%s: frame rate %g out of range (expected 0 to 1000)",
                         path, fps);
    if (width < 1 || height < 1 || (long)width * height > FLOW_IMAGE_MAX_PIXELS)
        return flow_fail(FLOW_ERR_SIZE, "%s: frame size %dx%d out of range", path, width, height);
    if (channels != 1 && channels != 3)
        return flow_fail(FLOW_ERR_INVALID, "%s: frames have 1 or 3 channels, not %d", path,
                         channels);
    writer_handle *h = calloc(1, sizeof *h);
    if (!h)
        return flow_fail(FLOW_ERR_NOMEM, "%s: cannot allocate a video writer", path);
    flow_status s = writer_open(path, fps, width, height, channels, h);
    if (s != FLOW_OK) {
        free(h);
        return s;
    }
    *out = (flow_video_writer *)h;
    return FLOW_OK;
}

/* Opens the native .y4m writer or the shim's into h (arguments checked). */
static flow_status writer_open(const char *path, double fps, int width, int height,
                               int channels, writer_handle *h)
{
    if (flow_y4m_match(path)) {
        /* The rate as a ratio: exact for integers and the NTSC 1000/1001 rates. */
        long num = lround(fps * 1000), den = 1000;
        if (fabs(fps * 1.001 - (double)lround(fps * 1.001)) < 1e-6)
            num = lround(fps * 1001), den = 1001; /* 30000/1001.0 -> 30000:1001 */
        long a = num, b = den; /* reduce by the greatest common divisor */
        while (b) {
            long t = a % b;
            a = b, b = t;
        }
        num /= a, den /= a;
        return flow_y4m_writer_open(path, width, height, channels, (int)num, (int)den,
                                    &h->y4m);
    }
    flow_video_writer **out = &h->ocv;
    if (!flow_ocv_available())
        return flow_ocv_writer_open(path, NULL, NULL, fps, width, height, channels, out);
    const char *ext = flow_path_extension(path);
    const char *fourcc = NULL;
    for (size_t i = 0; i < sizeof codecs / sizeof *codecs; i++)
        if (strcasecmp(ext, codecs[i].ext) == 0)
            fourcc = codecs[i].fourcc;
    if (!fourcc)
        return flow_fail(FLOW_ERR_INVALID,
                         "%s: no video writer for this extension (expected .y4m, .avi for "
                         "Motion JPEG or .mp4 for MPEG-4)",
                         path);
    FLOW_TRY(flow_io_check_output(path));
    char tmp[4096];
    FLOW_TRY(flow_atomic_tmpname(path, tmp, sizeof tmp));
    return flow_ocv_writer_open(path, tmp, fourcc, fps, width, height, channels, out);
}

flow_status flow_video_writer_write(flow_video_writer *w, const flow_image *frame)
{
    if (!w || !frame || !frame->data)
        return flow_fail(FLOW_ERR_INVALID, "flow_video_writer_write: no writer or frame given");
    writer_handle *h = (writer_handle *)w;
    return h->y4m ? flow_y4m_writer_write(h->y4m, frame) : flow_ocv_writer_write(h->ocv, frame);
}

flow_status flow_video_writer_close(flow_video_writer *w)
{
    if (!w)
        return flow_fail(FLOW_ERR_INVALID, "flow_video_writer_close: no writer given");
    writer_handle *h = (writer_handle *)w;
    flow_status s = h->y4m ? flow_y4m_writer_finish(h->y4m) : flow_ocv_writer_close(h->ocv, 1);
    free(h);
    return s;
}

void flow_video_writer_discard(flow_video_writer *w)
{
    writer_handle *h = (writer_handle *)w;
    if (!h)
        return;
    if (h->y4m)
        flow_y4m_writer_abort(h->y4m);
    else
        flow_ocv_writer_close(h->ocv, 0);
    free(h);
}
