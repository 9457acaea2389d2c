/* framedir.h -- the frames of a directory given as a tool's input.
 *
 * A directory of frames often holds other files too: a mask, the ground
 * truth, a picture of another size, notes.  Its frames are taken to be
 * the image files (by extension) whose names share the most common
 * pattern -- the name with each run of digits standing for any number, so
 * that frame7.png and frame12.png share frame#.png while frame7-mask.png
 * does not; names without digits share one pattern per extension -- and,
 * among those, the most common size (read from the files' headers), in
 * natural name order (f2 before f10).  Hidden files and subdirectories are
 * passed over; every other file left out is named on stderr, on one line,
 * with the reason (and whether the frames are numbered by position).  An image whose size cannot be read stays a frame: its
 * error comes in its turn, after the frames before it were used.  Two
 * patterns, or two sizes, equally common are an input error: the message
 * asks for a pattern argument instead.
 *
 * Conventions as in cli.h: the message is printed, an exit code returned. */
#ifndef FLOW_TOOLS_FRAMEDIR_H
#define FLOW_TOOLS_FRAMEDIR_H

/* The frames of dir: *paths (n >= 2 of them, "dir/name") and the array are
 * malloc'd, the caller's to free.  *numbers: when every frame's name has
 * one run of digits and their values increase (yos02.png, yos03.png, ...),
 * those values (malloc'd, n of them), else NULL: the frames are numbered by
 * position, and the line on stderr says so.  quiet: that line unsaid. */
int framedir_list(const char *dir, int quiet, char ***paths, long *n, long **numbers);

#endif
