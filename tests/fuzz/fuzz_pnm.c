/* fuzz_pnm.c -- libFuzzer harness of the PGM/PPM reader (P2, P3, P5, P6;
 * 8- and 16-bit): the shared image checks (image_checks.h), with at most one
 * pixel per byte of input (every sample takes a byte or more).  Input that
 * starts like a PNG is left to fuzz_png.c, whose bound differs. */
#include "image_checks.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    if (n >= 8 && memcmp(data, "\x89PNG\r\n\x1a\n", 8) == 0)
        return 0;
    fuzz_image_reader(data, n, "in.pnm", "pnm", (double)n);
    return 0;
}
