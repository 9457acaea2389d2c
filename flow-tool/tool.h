/* tool.h -- what the subcommand files of flow-tool share: the subcommand
 * entry points (each gets argv with argv[0] = the subcommand's name and
 * returns an exit code), and helpers that read or write a file and print
 * the reason when they fail. */
#ifndef FLOW_TOOL_H
#define FLOW_TOOL_H

#include "flow/flow.h"

/* Subcommands: cmd_file.c, cmd_error.c, cmd_fbcheck.c, cmd_warp.c, cmd_picture.c, cmd_vectors.c,
 * cmd_montage.c, cmd_frames.c, cmd_video.c, cmd_images.c, cmd_matches.c (cmd_convert, cmd_info, cmd_formats:
 * cmd_file.c). */
int cmd_convert(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_error(int argc, char **argv);
int cmd_fbcheck(int argc, char **argv);
int cmd_warp(int argc, char **argv);
int cmd_photo_error(int argc, char **argv);
int cmd_color(int argc, char **argv);
int cmd_legend(int argc, char **argv);
int cmd_blend(int argc, char **argv);
int cmd_vectors(int argc, char **argv);
int cmd_mix(int argc, char **argv);
int cmd_montage(int argc, char **argv);
int cmd_frames(int argc, char **argv);
int cmd_video(int argc, char **argv);
int cmd_formats(int argc, char **argv);
int cmd_from_images(int argc, char **argv);
int cmd_occlusion(int argc, char **argv);
int cmd_confidence(int argc, char **argv);
int cmd_matches(int argc, char **argv);

/* Read/write with the failure printed; each returns an exit code (0 ok). */
int tool_read_field(const char *path, flow_field *f);
int tool_write_field(const char *path, const flow_field *f);
int tool_read_image(const char *path, flow_image *img);
int tool_write_image(const char *path, const flow_image *img);
/* Reads a mask (nonzero in any channel = scored) as width * height bytes
 * into *out (free() it), checked against the size of the ground truth
 * gt_path, which the error names. */
int tool_read_mask(const char *path, const char *gt_path, int width, int height,
                   unsigned char **out);
/* Reads a one-channel map (an occlusion mask, a confidence map) into img
 * as floats in [0, 1], the file's grey levels over 255, checked to be
 * width x height (width 0: any size); the error calls it `what`. */
int tool_read_map(const char *path, const char *what, int width, int height, flow_image *img);
/* Writes `text` to path through a temporary file and a rename; a failure
 * names `target` (path may be target's temporary name, outputs.h). */
int tool_write_text(const char *path, const char *target, const char *text);
/* Prints "<path>: <detail of the failed libflow call>" (the detail alone
 * when it already names path) and returns the exit code for s: a failure
 * while working on the file read from path. */
int tool_fail(const char *path, flow_status s);

/* The exit code for an unexpected option seen by getopt_long (c is '?' or
 * ':'), with the usage and a pointer to "flow-tool <cmd> --help". */
int tool_bad_option(int c, char **argv, const char *usage, const char *cmd);
/* Checks the positional argument count after the options. */
int tool_check_args(int argc, int want, const char *usage, const char *cmd);

/* The human name of a flow file's format, from its extension: ".flo
 * (Middlebury)" written into buf, or "unknown". */
const char *tool_format_name(const char *path, char *buf, size_t size);

#endif
