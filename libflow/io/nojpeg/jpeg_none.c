/* jpeg_none.c -- JPEG in a build without libjpeg: with OpenCV, OpenCV's
 * codecs read and write it (image.c never comes here); without either,
 * both directions fail with FLOW_ERR_UNSUPPORTED and say what to install.
 * The Makefile links this file in place of jpeg/jpeg_libjpeg.c when
 * libjpeg's header is not found. */
#include "io/image_formats.h"
#include "base/fail.h"

#include <string.h>

int flow_jpeg_available(void)
{
    return 0;
}

flow_status flow_jpeg_read(const char *path, flow_image *img)
{
    memset(img, 0, sizeof *img);
    return flow_fail(FLOW_ERR_UNSUPPORTED,
                     "%s: JPEG needs libjpeg or OpenCV (this libflow was built with neither; "
                     "install libjpeg-dev or libopencv-dev and rebuild)",
                     path);
}

flow_status flow_jpeg_write(const char *path, const flow_image *img)
{
    (void)img;
    return flow_fail(FLOW_ERR_UNSUPPORTED,
                     "%s: JPEG needs libjpeg or OpenCV (this libflow was built with neither; "
                     "install libjpeg-dev or libopencv-dev and rebuild)",
                     path);
}
