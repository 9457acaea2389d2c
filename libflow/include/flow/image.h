/* image.h -- images and video frames in memory, and reading/writing them.
 *
 * Images are planar float: channel c of pixel (x, y) is
 * data[c * width * height + y * width + x], gray or RGB, values on the
 * 0..255 scale whatever the file's depth (16-bit samples are scaled by
 * 255/65535), so that one set of parameters fits 8- and 16-bit input.
 *
 * With OpenCV (imgcodecs/videoio, through a C++ shim) every format OpenCV
 * reads is accepted: PNG, PGM/PPM, JPEG, TIFF, video files, /dev/videoN
 * cameras.  Without it, PGM/PPM are read natively and PNG through libpng
 * where present; video then returns FLOW_ERR_UNSUPPORTED saying OpenCV is
 * needed.  Writers write to a temporary name and rename, so a failed write
 * leaves no half file. */
#ifndef FLOW_IMAGE_H
#define FLOW_IMAGE_H

#include "flow/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct flow_image {
    int width, height;
    int channels; /* 1 (gray) or 3 (R, G, B) */
    float *data;  /* channels * width * height floats, planar */
} flow_image;

/* The largest image accepted from a file: 2^28 pixels (a 16384x16384 frame). */
#define FLOW_IMAGE_MAX_PIXELS (1L << 28)

flow_status flow_image_alloc(flow_image *img, int width, int height, int channels);
void flow_image_free(flow_image *img);

/* The largest magnitude of a value in a frame that a context
 * (flow_context_compute, flow_context_submit, ...) or a tracker
 * (flow_tracker_next) computes on: a float frame holding NaN, an infinity
 * or a value beyond it is refused with FLOW_ERR_INVALID before any work
 * (8-bit frames always fit).  Why 1e6: the methods compute in float
 * (largest value 3.4e38) on products of the values.  For values of
 * magnitude B, a derivative is at most 1.5 B (the stencil (1, -8, 0, 8,
 * -1)/12), a second derivative 2.25 B, an entry of the motion tensor
 * (products summed over three channels, averaged over windows) at most
 * about 15 B^2, and the highest products are of the fourth degree (2x2
 * determinants, squared residuals): (15 B^2)^2, 2.3e26 at B = 1e6, which
 * leaves a factor 1e12 for sums over windows and frames; at B = 1e7 that
 * factor would be 1e8, less than the pixel count of a large frame.  Frames
 * on the 0..255 scale, and HDR frames, are far within it. */
#define FLOW_IMAGE_VALUE_MAX 1e6
/* FLOW_OK when every value of img is finite and of magnitude at most
 * FLOW_IMAGE_VALUE_MAX; else FLOW_ERR_INVALID with a detail naming `what`
 * ("second frame"), the first such value in memory order, its pixel (x, y)
 * and channel: "second frame has a non-finite value (nan) at pixel (3, 4),
 * channel 0: ...". */
flow_status flow_image_check_values(const flow_image *img, const char *what);

/* An image with 8-bit samples as 8-bit files store it: channels interleaved
 * (R, G, B of a pixel together), rows packed: sample c of pixel (x, y) is
 * data[(y * width + x) * channels + c].  A quarter of a float image's bytes:
 * the frames of a sequence decode and cross the bus in this form
 * (flow_context_submit8), and the device converts them. */
typedef struct flow_image8 {
    int width, height;
    int channels;        /* 1 or 3 */
    unsigned char *data; /* width * height * channels bytes */
} flow_image8;

flow_status flow_image8_alloc(flow_image8 *img, int width, int height, int channels);
void flow_image8_free(flow_image8 *img);
/* Reads an image file whose samples are 8-bit as they are: binary PGM and
 * PPM of maxval 255, and PNG that decodes to 8-bit gray or RGB (palettes
 * expanded, alpha dropped) where libpng is built in.  Other files (16-bit,
 * ASCII PNM, other formats) give FLOW_ERR_UNSUPPORTED: flow_image_read
 * reads them.  When img->data is set the image is decoded into it, and a
 * file of another size or channel count is FLOW_ERR_SIZE with img
 * untouched; otherwise img is allocated.  The samples are those
 * flow_image_read gives, as bytes. */
flow_status flow_image8_read(const char *path, flow_image8 *img);
/* dst (allocated here) = src as a float image. */
flow_status flow_image8_to_float(const flow_image8 *src, flow_image *dst);

/* Reads any supported image file.  Errors name the path and the problem:
 * missing, a directory, truncated, corrupt, unsupported format. */
flow_status flow_image_read(const char *path, flow_image *img);
/* The width and height of an image file, from its header for PGM/PPM and
 * PNG (without decoding the samples), else by decoding it.  Errors as
 * flow_image_read's. */
flow_status flow_image_probe(const char *path, int *width, int *height);

/* Writes by extension: .png (8-bit), .pgm/.ppm (binary, 8-bit); with OpenCV
 * also whatever it writes.  Values are rounded and clamped to 0..255. */
flow_status flow_image_write(const char *path, const flow_image *img);
/* A map of width x height values in [0, 1] (a confidence; row-major) by
 * extension: .pfm (a grey Portable Float Map, the values exactly) or .png
 * (16-bit grey, round(65535 v)).  FLOW_ERR_INVALID for another extension
 * or a value outside [0, 1] (naming the pixel), FLOW_ERR_UNSUPPORTED for
 * .png without libpng; written whole or not at all. */
flow_status flow_map_write(const char *path, const float *values, int width, int height);
/* (With OpenCV, the float formats .pfm, .exr and .hdr store value/255
 * unrounded instead, which flow_image_read scales back.) */

/* The luminance (0.299 R + 0.587 G + 0.114 B) of a colour image, or a copy
 * of a gray one, into a newly allocated dst; flow_image_gray_into writes it
 * into a gray dst of src's size that exists already (a frame buffer reused
 * frame after frame). */
flow_status flow_image_to_gray(const flow_image *src, flow_image *dst);
flow_status flow_image_gray_into(const flow_image *src, flow_image *dst);

/* Whether this build reads through OpenCV (and so has video and cameras). */
int flow_image_has_opencv(void);

/* A video stream: a file, or a camera "/dev/videoN". */
typedef struct flow_video flow_video;

flow_status flow_video_open(const char *path, flow_video **out);
flow_status flow_video_open_camera(int index, flow_video **out);
/* Reads the next frame into img (allocated on the first call, reused after:
 * the size must not change).  *got is 0 at the end of the stream. */
flow_status flow_video_read(flow_video *v, flow_image *img, int *got);
/* The same as 8-bit samples, copied as the stream stores them, for a .y4m
 * of 8-bit full-range mono frames (C mono without XCOLORRANGE=LIMITED);
 * FLOW_ERR_UNSUPPORTED, reading nothing, for any other stream (read it
 * with flow_video_read).  img follows flow_image8_read's buffer rules. */
flow_status flow_video_read8(flow_video *v, flow_image8 *img, int *got);
/* Whether flow_video_read8 gives this video's frames. */
int flow_video_gives8(const flow_video *v);

/* One video read by several threads: flow_video_claim takes the next
 * frame's place in the file, in order (the caller serialises its claims;
 * *got is 0 at the end), and flow_video_fetch / flow_video_fetch8 read the
 * frame at a place (flow_video_read's and flow_video_read8's rules for img),
 * several at once from any threads, while later frames are being claimed.
 * For a .y4m file (flow_video_claims answers 1); standard input, pipes and
 * OpenCV's videos are read in order with flow_video_read (claim answers
 * FLOW_ERR_UNSUPPORTED, reading nothing). */
typedef struct flow_video_place {
    long long offset; /* where the frame's samples start in the file */
    long frame;       /* its number, from 0 (for messages) */
} flow_video_place;

int flow_video_claims(const flow_video *v);
flow_status flow_video_claim(flow_video *v, flow_video_place *place, int *got);
flow_status flow_video_fetch(const flow_video *v, const flow_video_place *place,
                             flow_image *img);
flow_status flow_video_fetch8(const flow_video *v, const flow_video_place *place,
                              flow_image8 *img);
/* Frames per second the container announces (0 when unknown). */
double flow_video_fps(const flow_video *v);
void flow_video_close(flow_video *v);

/* A video file being written.  The format follows the extension: .y4m
 * (YUV4MPEG2, uncompressed) is written natively in every build; the others
 * need OpenCV (without it open returns FLOW_ERR_UNSUPPORTED): .avi is Motion
 * JPEG (lossy: expect differences of a few grey levels), .mp4 is MPEG-4
 * part 2.  Frames are width x height with `channels` (1 or 3) channels,
 * values 0..255 rounded and clamped; in .avi and .mp4 gray frames are
 * stored as equal R, G, B, so they read back with 3 channels.  The frames
 * go to a temporary name: flow_video_writer_close() renames it over `path`
 * (with OpenCV, a video with no frame is an error and leaves nothing),
 * flow_video_writer_discard() removes it.  Both free the writer. */
typedef struct flow_video_writer flow_video_writer;

flow_status flow_video_writer_open(const char *path, double fps, int width, int height,
                                   int channels, flow_video_writer **out);
/* Appends one frame; its size and channel count must be those given to open. */
flow_status flow_video_writer_write(flow_video_writer *w, const flow_image *frame);
flow_status flow_video_writer_close(flow_video_writer *w);
void flow_video_writer_discard(flow_video_writer *w);

#ifdef __cplusplus
}
#endif
#endif
