/* fuzz_flo.c -- libFuzzer harness of the Middlebury .flo reader: the
 * shared flow-reader checks (field_checks.h), and .flo -> .flo byte for
 * byte: the file the writer makes of an accepted input is the input. */
#include "field_checks.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    flow_field f;
    if (!fuzz_read_field(data, n, "flo", &f))
        return 0;
    if (!fuzz_round_trips(&f)) {
        flow_field_free(&f);
        return 0;
    }
    FUZZ_REQUIRE(flow_field_write(fuzz_path("out.flo"), &f) == FLOW_OK);
    size_t m = 0;
    uint8_t *out = fuzz_slurp(fuzz_path("out.flo"), &m);
    FUZZ_REQUIRE(m == n && memcmp(out, data, n) == 0);
    free(out);
    flow_field_free(&f);
    return 0;
}
