/* png_error.h -- how the libpng codecs (png_libpng.c, kitti_libpng.c)
 * turn libpng's errors into a status.  libpng reports an error by calling
 * an error function that must not return: flow_png_on_error records
 * libpng's message in the flow_png_ctx given to png_create_*_struct and
 * longjmps to its `jump`, which the caller set with setjmp before calling
 * libpng.  Warnings are dropped (the library never prints). */
#ifndef FLOW_IO_PNG_ERROR_H
#define FLOW_IO_PNG_ERROR_H

#include <png.h>
#include <setjmp.h>

typedef struct flow_png_ctx {
    jmp_buf jump;
    char message[256];
} flow_png_ctx;

void flow_png_on_error(png_structp png, png_const_charp msg);
void flow_png_on_warning(png_structp png, png_const_charp msg);

#endif
