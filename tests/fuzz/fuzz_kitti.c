/* fuzz_kitti.c -- libFuzzer harness of the KITTI flow PNG reader
 * (png/kitti_libpng.c): the shared flow-reader checks (field_checks.h,
 * with at most the vectors deflate's best ratio lets the input hold), every
 * vector unknown (FLOW_UNKNOWN in both components, from B = 0) or both
 * components on the 1/64 px grid within -512 .. 511.984375, and .png ->
 * .png bit for bit.  The input is the chunk stream after the signature,
 * with the CRCs made right (png_stream.h). */
#include "field_checks.h"
#include "png_stream.h"

#include <math.h>
#include <stdlib.h>

/* Whether c is k / 64 for an integer k in -32768 .. 32767. */
static int on_grid(float c)
{
    const double k = (double)c * 64.0;
    return k >= -32768.0 && k <= 32767.0 && k == floor(k);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    uint8_t *png = fuzz_png_from_chunks(data, n);
    flow_field f, g;
    const int accepted = fuzz_read_field(png, n + 8, "png", &f);
    free(png);
    if (!accepted)
        return 0;
    for (size_t i = 0; i < (size_t)f.width * f.height; i++)
        FUZZ_REQUIRE((f.u[i] == FLOW_UNKNOWN && f.v[i] == FLOW_UNKNOWN) ||
                     (on_grid(f.u[i]) && on_grid(f.v[i])));
    if (fuzz_round_trips(&f)) {
        fuzz_write_read(&f, "out.png", &g);
        for (size_t i = 0; i < (size_t)f.width * f.height; i++)
            FUZZ_REQUIRE(fuzz_same_bits(f.u[i], g.u[i]) && fuzz_same_bits(f.v[i], g.v[i]));
        flow_field_free(&g);
    }
    flow_field_free(&f);
    return 0;
}
