/* path.c -- the one rule for a file name's extension, which picks the
 * reader and writer of images, videos and flow files. */
#include "base/fail.h"

#include <string.h>

const char *flow_path_extension(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    return dot && dot != base ? dot + 1 : "";
}
