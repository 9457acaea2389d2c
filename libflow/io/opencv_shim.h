/* opencv_shim.h -- the C interface to OpenCV's imgcodecs and videoio, not
 * installed.  OpenCV 4 has only a C++ API, so opencv/opencv_shim.cpp (the
 * one C++ file of the project) implements these functions, catching every
 * C++ exception at the boundary and turning it into a status with a
 * message; noopencv/opencv_none.c implements the same functions for a build
 * without OpenCV, each returning FLOW_ERR_UNSUPPORTED with a message that
 * names the path and says how to get OpenCV.
 *
 * The callers (image.c, video.c) have already checked what can be checked
 * without OpenCV (the path exists, is not a directory or empty, a PNM or PNG
 * header is sane), so that a failure here means OpenCV itself refused. */
#ifndef FLOW_IO_OPENCV_SHIM_H
#define FLOW_IO_OPENCV_SHIM_H

#include "flow/image.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when this build has OpenCV, 0 otherwise. */
int flow_ocv_available(void);

/* Reads an image with imread(IMREAD_ANYDEPTH | IMREAD_ANYCOLOR), colour as
 * R, G, B.  16-bit samples are scaled by 255/full16 (65535, or the maxval
 * of a PNM file, which OpenCV leaves unscaled); float samples are taken to
 * be on 0..1 and scaled by 255.  `format` names the format in messages.
 * Returns FLOW_OK, FLOW_ERR_FORMAT (OpenCV cannot decode it), FLOW_ERR_SIZE,
 * FLOW_ERR_NOMEM or FLOW_ERR_UNSUPPORTED (a sample type libflow does not
 * take). */
flow_status flow_ocv_image_read(const char *path, const char *format, double full16,
                                flow_image *img);

/* Whether OpenCV has an encoder for the extension of path (1 or 0). */
int flow_ocv_can_write(const char *path);

/* Writes img as 8 bits per sample: encoded in memory by imencode (format
 * by path's extension), then written through flow_atomic_open, so that a
 * full disk or any other failed write is an error and leaves nothing.
 * Formats that store floats (.pfm, .exr, .hdr) get value/255 unrounded, so
 * that flow_ocv_image_read gives the values back.
 * Returns FLOW_OK, FLOW_ERR_IO or FLOW_ERR_UNSUPPORTED. */
flow_status flow_ocv_image_write(const char *path, const flow_image *img);

/* Opens a video file (index < 0) or the camera `index` with VideoCapture;
 * `name` (the path, or "/dev/videoN", or "camera N") is kept for messages.
 * Returns FLOW_OK, FLOW_ERR_IO (cannot open), FLOW_ERR_NOMEM. */
flow_status flow_ocv_video_open(const char *name, const char *path, int index,
                                flow_video **out);
/* Reads the next frame; see flow_video_read in image.h. */
flow_status flow_ocv_video_read(flow_video *v, flow_image *img, int *got);
double flow_ocv_video_fps(const flow_video *v);
void flow_ocv_video_close(flow_video *v);

/* The video writer of image.h; `fourcc` is the four-character codec code
 * chosen from the extension by video.c, `tmp` the temporary name. */
flow_status flow_ocv_writer_open(const char *path, const char *tmp, const char *fourcc,
                                 double fps, int width, int height, int channels,
                                 flow_video_writer **out);
flow_status flow_ocv_writer_write(flow_video_writer *w, const flow_image *frame);
flow_status flow_ocv_writer_close(flow_video_writer *w, int keep);
/* The check writer_close makes before renaming a video into place (a
 * VideoWriter reports no failed write): `file`, written for `path`, is
 * whole.  riff 1: an AVI of OpenCV's own writer, whose RIFF chunks must
 * cover the file exactly; 0: a backend's file, which must open and hold
 * `frames` frames.  FLOW_ERR_IO naming path when not (a full disk cut it
 * short). */
flow_status flow_ocv_video_verify(const char *path, const char *file, int riff, long frames);

#ifdef __cplusplus
}
#endif
#endif
