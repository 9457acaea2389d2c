/* matchfile.h -- a file of sparse matches (docs/FORMATS.md, "Matches"),
 * read by flow-compute --use-matches and flow-tool matches.
 *
 * Text, one match a line: "x y u v weight", a point of the first frame in
 * pixels (x right, y down, the top-left pixel's centre at 0 0), its
 * displacement to the second frame and a weight in [0, 1] (0: a match the
 * method dropped); blank lines and lines from '#' are comments.
 *
 * Conventions as in cli.h: the message is printed, an exit code returned. */
#ifndef FLOW_TOOLS_MATCHFILE_H
#define FLOW_TOOLS_MATCHFILE_H

#include "flow/context.h"

/* The matches of `path` into *out (malloc'd, the caller's to free) and
 * *count (at least 1); with `lines` not NULL, the line of each match in
 * *lines (malloc'd likewise), for messages about a match.  A line that is not five numbers, a non-finite
 * value or a weight outside [0, 1] is an input error naming `what` (the
 * option or command), the file and the line; so is a file without
 * matches. */
int matchfile_read(const char *path, const char *what, flow_match **out, int *count,
                   long **lines);

#endif
