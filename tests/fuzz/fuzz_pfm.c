/* fuzz_pfm.c -- libFuzzer harness of the Portable Float Map reader
 * (pfm.c): the shared flow-reader checks (field_checks.h), and .pfm ->
 * .pfm keeps every float's bits (whatever the input's byte order; the
 * third channel is dropped, which the reader ignores anyway). */
#include "field_checks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    flow_field f, g;
    if (!fuzz_read_field(data, n, "pfm", &f))
        return 0;
    if (!fuzz_round_trips(&f)) {
        flow_field_free(&f);
        return 0;
    }
    fuzz_write_read(&f, "out.pfm", &g);
    for (size_t i = 0; i < (size_t)f.width * f.height; i++)
        FUZZ_REQUIRE(fuzz_same_bits(f.u[i], g.u[i]) && fuzz_same_bits(f.v[i], g.v[i]));
    flow_field_free(&f);
    flow_field_free(&g);
    return 0;
}
