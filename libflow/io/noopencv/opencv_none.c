/* opencv_none.c -- the OpenCV shim's interface (io/opencv_shim.h) in a build
 * without OpenCV: images still go through pnm.c and png/, but whatever only
 * OpenCV can do (other image formats, video files, cameras, the video
 * writer) fails with FLOW_ERR_UNSUPPORTED and a message naming the path and
 * saying how to get OpenCV.  The Makefile links this file in place of
 * opencv/opencv_shim.cpp when pkg-config finds no opencv4. */
#include "io/opencv_shim.h"
#include "base/fail.h"

#include <string.h>

#define REBUILD "(this libflow was built without it; install libopencv-dev and rebuild)"

int flow_ocv_available(void)
{
    return 0;
}

flow_status flow_ocv_image_read(const char *path, const char *format, double full16,
                                flow_image *img)
{
    (void)full16;
    memset(img, 0, sizeof *img);
    return flow_fail(FLOW_ERR_UNSUPPORTED, "%s: reading %s needs OpenCV " REBUILD, path, format);
}

int flow_ocv_can_write(const char *path)
{
    (void)path;
    return 0;
}

flow_status flow_ocv_image_write(const char *path, const flow_image *img)
{
    (void)img;
    return flow_fail(FLOW_ERR_UNSUPPORTED, "%s: this image format needs OpenCV " REBUILD, path);
}

flow_status flow_ocv_video_open(const char *name, const char *path, int index,
                                flow_video **out)
{
    (void)path;
    *out = NULL;
    return flow_fail(FLOW_ERR_UNSUPPORTED, "%s: %s needs OpenCV " REBUILD, name,
                     index >= 0 ? "camera input" : "video input");
}

flow_status flow_ocv_video_read(flow_video *v, flow_image *img, int *got)
{
    (void)v;
    (void)img;
    *got = 0;
    return flow_fail(FLOW_ERR_UNSUPPORTED, "video input needs OpenCV " REBUILD);
}

double flow_ocv_video_fps(const flow_video *v)
{
    (void)v;
    return 0.0;
}

void flow_ocv_video_close(flow_video *v)
{
    (void)v;
}

flow_status flow_ocv_writer_open(const char *path, const char *tmp, const char *fourcc,
                                 double fps, int width, int height, int channels,
                                 flow_video_writer **out)
{
    (void)tmp, (void)fourcc, (void)fps, (void)width, (void)height, (void)channels;
    *out = NULL;
    return flow_fail(FLOW_ERR_UNSUPPORTED, "%s: video output needs OpenCV " REBUILD, path);
}

flow_status flow_ocv_writer_write(flow_video_writer *w, const flow_image *frame)
{
    (void)w;
    (void)frame;
    return flow_fail(FLOW_ERR_UNSUPPORTED, "video output needs OpenCV " REBUILD);
}

flow_status flow_ocv_writer_close(flow_video_writer *w, int keep)
{
    (void)w;
    (void)keep;
    return flow_fail(FLOW_ERR_UNSUPPORTED, "video output needs OpenCV " REBUILD);
}

flow_status flow_ocv_video_verify(const char *path, const char *file, int riff, long frames)
{
    (void)file, (void)riff, (void)frames;
    return flow_fail(FLOW_ERR_UNSUPPORTED, "%s: video output needs OpenCV " REBUILD, path);
}
