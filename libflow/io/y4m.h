/* y4m.h -- native YUV4MPEG2 (.y4m) video reading and writing (internal).
 *
 * YUV4MPEG2 is the uncompressed stream format of mjpegtools, written and
 * read by ffmpeg (`-f yuv4mpegpipe`), x264, mpv and OpenCV.  A stream is one
 * text header line
 *     YUV4MPEG2 W1920 H1080 F30:1 Ip A1:1 C420jpeg XCOLORRANGE=FULL
 * then, per frame, a line starting with FRAME and the raw planes: Y, then
 * (unless mono) Cb and Cr, each row-major without padding.  Because it needs
 * no codec, libflow reads and writes it in every build, with or without
 * OpenCV, so a GPU machine without OpenCV development files still streams
 * video: flow_video_open() hands paths ending in .y4m (and "-", standard
 * input) to this reader.
 *
 * Reader: colour spaces mono, 420jpeg, 420paldv, 420mpeg2, 420 (no C tag
 * means 420jpeg), 411, 422, 444 and 444alpha (alpha ignored), 8 bits per
 * sample, and the 16-bit-container variants ffmpeg writes (mono16, 420p10,
 * 422p12, 444p16, ...: little-endian samples scaled to 0..255).  A mono
 * stream gives 1-channel frames (Y itself); any other gives 3-channel RGB
 * frames, converted with the BT.601 matrix and chroma upsampled by
 * replication.  Samples are taken as full range (0..255) unless the header
 * says XCOLORRANGE=LIMITED (Y 16..235, chroma 16..240), which is expanded.
 * Interlaced streams (It, Ib, Im) are read as progressive frames.
 *
 * Writer: 1-channel frames as "C mono", 3-channel frames as "C444" (full
 * range BT.601); 8 bits; XCOLORRANGE=FULL.  The file is written under a
 * temporary name and renamed by flow_y4m_writer_finish(): an interrupted or
 * failed write leaves no half video. */
#ifndef FLOW_IO_Y4M_H
#define FLOW_IO_Y4M_H

#include "flow/image.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct flow_y4m_reader flow_y4m_reader;
typedef struct flow_y4m_writer flow_y4m_writer;

/* Whether path names a stream this module reads: it ends in ".y4m" (any
 * case) or is "-" (a YUV4MPEG2 stream on standard input). */
int flow_y4m_match(const char *path);

/* Opens path and parses its stream header.  FLOW_ERR_IO when it cannot be
 * opened, FLOW_ERR_FORMAT for a header that is not YUV4MPEG2 or is
 * malformed (the message names the file and the offending field),
 * FLOW_ERR_UNSUPPORTED for a colour space this reader does not know,
 * FLOW_ERR_SIZE for absurd dimensions. */
flow_status flow_y4m_open(const char *path, flow_y4m_reader **out);

/* Reads the next frame into img: allocated on the first call (img->data ==
 * NULL), reused after (it must then have the stream's size and channels,
 * else FLOW_ERR_SIZE).  *got is 1 for a frame, 0 at the clean end of the
 * stream.  FLOW_ERR_FORMAT for a bad frame header or a truncated frame
 * (the message names the file and the frame number).  In a file nothing
 * is allocated for a frame before the file is seen to hold all of it: a
 * header announcing huge frames allocates nothing. */
flow_status flow_y4m_read(flow_y4m_reader *r, flow_image *img, int *got);
/* Reads the next frame's samples into img, as stored (flow_y4m_read's
 * rules for the buffer and *got), when they are the frame itself: 8-bit
 * full-range mono; FLOW_ERR_UNSUPPORTED, reading nothing, otherwise. */
flow_status flow_y4m_read8(flow_y4m_reader *r, flow_image8 *img, int *got);

/* Several threads reading one file (flow_video_claim in image.h): whether
 * the stream is a file (not standard input or a pipe); the next frame's
 * place, claimed in order (its header checked, its samples skipped); that
 * frame's samples read from its place, as floats or as stored (the rules of
 * flow_y4m_read and flow_y4m_read8), by any thread at any time. */
int flow_y4m_claims(const flow_y4m_reader *r);
flow_status flow_y4m_claim(flow_y4m_reader *r, flow_video_place *place, int *got);
flow_status flow_y4m_fetch(const flow_y4m_reader *r, const flow_video_place *place,
                           flow_image *img);
flow_status flow_y4m_fetch8(const flow_y4m_reader *r, const flow_video_place *place,
                            flow_image8 *img);

int flow_y4m_width(const flow_y4m_reader *r);
int flow_y4m_height(const flow_y4m_reader *r);
int flow_y4m_channels(const flow_y4m_reader *r); /* 1 for mono, else 3 */
int flow_y4m_gives8(const flow_y4m_reader *r);   /* whether flow_y4m_read8 reads its frames */
double flow_y4m_fps(const flow_y4m_reader *r);   /* 0 when the header has no F */
void flow_y4m_close(flow_y4m_reader *r);         /* accepts NULL */

/* Starts writing a stream of width x height frames with `channels` (1 or 3)
 * at fps_num/fps_den frames per second (both positive).  Nothing appears
 * at path until flow_y4m_writer_finish() succeeds. */
flow_status flow_y4m_writer_open(const char *path, int width, int height, int channels,
                                 int fps_num, int fps_den, flow_y4m_writer **out);
/* Appends one frame of the writer's size and channels (values rounded and
 * clamped to 0..255). */
flow_status flow_y4m_writer_write(flow_y4m_writer *w, const flow_image *img);
/* Completes the file (renames it into place) and frees w, whatever the
 * outcome; FLOW_ERR_IO when a write failed. */
flow_status flow_y4m_writer_finish(flow_y4m_writer *w);
/* Removes the partial file and frees w; accepts NULL. */
void flow_y4m_writer_abort(flow_y4m_writer *w);

#ifdef __cplusplus
}
#endif
#endif
