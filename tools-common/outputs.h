/* outputs.h -- the files of one result written as a group, so that all of
 * them appear or none: flow-compute's flow file, its .params, its pictures
 * and workflow images; flow-tool error's --aae and --aee files.
 *
 *   output_group *g;
 *   output_group_create(&g);
 *   char tmp[OUTPUT_NAME_MAX];
 *   output_group_add(g, "out/x.flo", tmp, sizeof tmp);  // then write to tmp
 *   ...                                                  // more outputs
 *   rc = output_group_commit(g);                         // all into place
 *   output_group_destroy(g);     // removes whatever was not committed
 *
 * Each output is written under a temporary name beside its target (same
 * directory and extension: flow_atomic_tmpname).  Commit first checks that
 * no target is a directory, then renames them all; should a rename still
 * fail, the outputs already renamed are removed again with the remaining
 * temporaries.  A target that exists and is not a regular file (a device,
 * a pipe, a symbolic link such as /dev/stdout) is written in place, as
 * flow/atomic_file.h does, and cannot be taken back.
 *
 * Conventions as in cli.h: functions that can fail print their message and
 * return an exit code. */
#ifndef FLOW_TOOLS_OUTPUTS_H
#define FLOW_TOOLS_OUTPUTS_H

#include "flow/status.h"

#include <stddef.h>

#define OUTPUT_NAME_MAX 4400

typedef struct output_group output_group;

int output_group_create(output_group **out);
/* Removes the temporaries (and the directories made for the group, when
 * empty) unless the group was committed; NULL is accepted. */
void output_group_destroy(output_group *g);

/* Registers `target` and writes into write_to[size] the name to write it
 * under (a temporary, or target itself when it is written in place). */
int output_group_add(output_group *g, const char *target, char *write_to, size_t size);
/* A directory made for the group's files: removed with them when the group
 * is not committed (and only when empty). */
int output_group_add_dir(output_group *g, const char *dir);
/* Moves every output and directory of `from` into g (from is destroyed). */
int output_group_adopt(output_group *g, output_group *from);
/* Renames every temporary over its target; all or none (see above). */
int output_group_commit(output_group *g);

/* Prints the failure of a libflow call that wrote `written` (a temporary
 * name given by output_group_add) for `target`, the target named in its
 * place; returns the exit code for s. */
int output_report(flow_status s, const char *written, const char *target);

/* Before anything is computed: whether path can be written as an output
 * (it is not a directory; its directory exists, is one and is writable).
 * The message names path and what is wrong. */
int output_check_target(const char *path);

#endif
