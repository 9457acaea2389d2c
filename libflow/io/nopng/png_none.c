/* png_none.c -- PNG in a build that has neither libpng nor OpenCV: both
 * directions fail with FLOW_ERR_UNSUPPORTED and say what to install.  The
 * Makefile links this file in place of png/png_libpng.c when pkg-config
 * does not find libpng. */
#include "io/image_formats.h"
#include "base/fail.h"

#include <string.h>

int flow_png_available(void)
{
    return 0;
}

flow_status flow_png_read(const char *path, flow_image *img)
{
    memset(img, 0, sizeof *img);
    return flow_fail(FLOW_ERR_UNSUPPORTED,
                     "%s: PNG needs libpng or OpenCV (this libflow was built with neither; "
                     "install libpng-dev or libopencv-dev and rebuild)",
                     path);
}

flow_status flow_png_write(const char *path, const flow_image *img)
{
    (void)img;
    return flow_fail(FLOW_ERR_UNSUPPORTED,
                     "%s: PNG needs libpng or OpenCV (this libflow was built with neither; "
                     "install libpng-dev or libopencv-dev and rebuild)",
                     path);
}

flow_status flow_png_read8(const char *path, flow_image8 *img)
{
    (void)img;
    return flow_fail(FLOW_ERR_UNSUPPORTED, "%s: PNG needs libpng (not built in)", path);
}

flow_status flow_png_write_gray16(const char *path, const unsigned short *v, int w, int h)
{
    (void)v;
    (void)w;
    (void)h;
    return flow_fail(FLOW_ERR_UNSUPPORTED, "%s: a 16-bit PNG needs libpng (not built in); "
                                           "write a .pfm instead",
                     path);
}
