/* kitti_none.c -- the KITTI flow PNG in a build without libpng: both
 * directions fail with FLOW_ERR_UNSUPPORTED and say what to install (OpenCV
 * does not stand in: the format needs the 16-bit samples exactly as
 * stored).  The Makefile links this file in place of png/kitti_libpng.c
 * when pkg-config does not find libpng. */
#include "io/flowfile_formats.h"
#include "base/fail.h"

#define NEEDS_LIBPNG                                                                       \
    "%s: a KITTI flow PNG needs libpng (this libflow was built without it; install "      \
    "libpng-dev and rebuild)"

flow_status flow_kitti_read(FILE *f, const char *path, long long size, flow_field *out)
{
    (void)f;
    (void)size;
    (void)out;
    return flow_fail(FLOW_ERR_UNSUPPORTED, NEEDS_LIBPNG, path);
}

flow_status flow_kitti_write(FILE *f, const char *path, const flow_field *field)
{
    (void)f;
    (void)field;
    return flow_fail(FLOW_ERR_UNSUPPORTED, NEEDS_LIBPNG, path);
}
