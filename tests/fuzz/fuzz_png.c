/* fuzz_png.c -- libFuzzer harness of the PNG reader (png_check in image.c,
 * then libpng through png/png_libpng.c): the shared image checks
 * (image_checks.h), with at most the pixels the input can hold at deflate's
 * best ratio (1032:1, one bit per pixel at least).  The input is the chunk
 * stream after the signature, with the CRCs made right (png_stream.h). */
#include "image_checks.h"
#include "png_stream.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    uint8_t *png = fuzz_png_from_chunks(data, n);
    fuzz_image_reader(png, n + 8, "in.png", "png", 8.0 * 1032 * (double)n);
    free(png);
    return 0;
}
