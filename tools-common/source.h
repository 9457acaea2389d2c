/* source.h -- where a tool's frames come from (flow-compute, flow-track):
 * two or more frame files, a printf pattern, a directory, a video file or
 * a camera, read ahead by a pool of decoding threads.  The input options
 * (--video, --camera, --first, --last) are parsed, checked and listed in
 * --help here, so that every tool takes them alike.
 *
 * Conventions as in cli.h: functions that can fail print their own message
 * on stderr and return an exit code (CLI_EXIT_*). */
#ifndef FLOW_TOOLS_SOURCE_H
#define FLOW_TOOLS_SOURCE_H

#include "flow/device.h"
#include "flow/image.h"

#include <getopt.h>
#include <stdio.h>

/* What a source does with the channels of the frames it reads. */
typedef enum source_channels {
    SOURCE_LUMINANCE, /* colour frames reduced to their luminance */
    SOURCE_RGB,       /* as read; every frame has the first's channels (flow-compute --rgb) */
    SOURCE_AS_READ    /* as read, gray or colour frame by frame */
} source_channels;

typedef struct source_options {
    char **frames;            /* the positional arguments */
    int nframes;
    const char *video;        /* --video FILE */
    int camera;               /* --camera N, -1 when not given */
    long first, last;         /* pattern input range; -1: automatic */
    source_channels channels;
    const char *usage;        /* the tool's usage line and name, for usage errors */
    const char *program;
    int quiet;                /* the files of a directory left out unsaid */
    int bytes;                /* hand out 8-bit frames where the file is 8-bit (source_take) */
    flow_device *pin;         /* page-lock the frame buffers for this device (or NULL) */
    int held;                 /* frames the caller may hold at once (0: 4) */
} source_options;

/* The options before parsing: no input, automatic range, luminance. */
void source_options_init(source_options *o, const char *usage, const char *program);

/* getopt_long values and entries of the input options; a tool puts
 * SOURCE_LONG_OPTIONS in its table and hands every value to
 * source_parse_option. */
enum { SOURCE_OPT_VIDEO = 200, SOURCE_OPT_CAMERA, SOURCE_OPT_FIRST, SOURCE_OPT_LAST };
#define SOURCE_LONG_OPTIONS                                                                       \
    {"video", required_argument, 0, SOURCE_OPT_VIDEO},                                            \
        {"camera", required_argument, 0, SOURCE_OPT_CAMERA},                                      \
        {"first", required_argument, 0, SOURCE_OPT_FIRST},                                        \
        {"last", required_argument, 0, SOURCE_OPT_LAST}

/* 1 when c is an input option (its value taken), 0 when it is not, -1 for
 * a bad value (the message printed). */
int source_parse_option(source_options *o, int c, const char *arg);
/* The --help lines of PATTERN, DIRECTORY and the input options. */
void source_help(FILE *f);
/* Usage errors of the input, from the command line alone (the tools check
 * them before opening a device, so that no notice comes before a usage
 * error; source_open checks them again): none or several inputs, --first or
 * --last without a pattern, --last not after --first, one frame that is no
 * pattern, directory or video. */
int source_check_options(const source_options *o);

typedef struct frame_source frame_source;

/* Opens the source the options name: two or more frame files, a printf
 * pattern (one argument with an integer field), a directory, --video or
 * --camera.  Missing files, empty directories and patterns that match
 * fewer than two frames are input errors (exit 2). */
int source_open(const source_options *o, frame_source **out);
/* A frame handed out by source_take: 8-bit samples (is8: only with the
 * option `bytes`, from 8-bit files whose channels the tool takes as they
 * are) or a float image, already reduced as the options say. */
typedef struct source_frame {
    int is8;
    flow_image8 bytes;
    flow_image image;
    char name[4200];   /* "a.png", "clip.y4m frame 12" */
    long number;       /* as source_frame_number says */
    double read_ms;    /* reading and decoding it */
} source_frame;

/* The next frame, in order, decoded ahead by the source's threads; the
 * caller keeps it (at most 5 at a time, or options.held + 1) until
 * source_give_back.  *got is 0 at the end. */
int source_take(frame_source *s, const source_frame **f, int *got);
void source_give_back(frame_source *s, const source_frame *f);
/* The number of decoding threads. */
int source_readers(const frame_source *s);

/* Reads the next frame into img (allocated by the first call, then reused;
 * a frame of another size is an error naming both frames).  *got is 0 at
 * the end.  Channels as the options say. */
int source_next(frame_source *s, flow_image *img, int *got);
/* The name of the last frame read ("a.png", "clip.y4m frame 12"). */
const char *source_frame_name(const frame_source *s);
/* The number naming the last frame read in output names: the pattern's
 * own index for a pattern input, the number in the frame's name for a
 * directory whose frames' names have one number each (framedir.h), else
 * the position from 0. */
long source_frame_number(const frame_source *s);
/* Milliseconds the reader thread spent reading and decoding the frames
 * taken so far. */
double source_read_ms(const frame_source *s);
/* The number naming the first frame (as source_frame_number does). */
long source_first_number(const frame_source *s);
/* The number of frames when known in advance (files), else -1 (streams). */
long source_frame_count(const frame_source *s);
int source_is_stream(const frame_source *s);
void source_close(frame_source *s);

#endif
