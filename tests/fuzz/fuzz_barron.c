/* fuzz_barron.c -- libFuzzer harness of the Barron .F reader: the shared
 * flow-reader checks (field_checks.h, where a .F may announce an image
 * larger than its flow window, within bounds), and .F -> .F: every vector
 * stays known or unknown, and a known one keeps its bits (the file's v
 * points up, memory's down: negated twice). */
#include "field_checks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    flow_field f, g;
    if (!fuzz_read_field(data, n, "F", &f))
        return 0;
    if (!fuzz_round_trips(&f)) {
        flow_field_free(&f);
        return 0;
    }
    fuzz_write_read(&f, "out.F", &g);
    for (size_t i = 0; i < (size_t)f.width * f.height; i++) {
        const int unknown = flow_is_unknown(f.u[i], f.v[i]);
        FUZZ_REQUIRE(unknown == flow_is_unknown(g.u[i], g.v[i]));
        FUZZ_REQUIRE(unknown ||
                     (fuzz_same_bits(f.u[i], g.u[i]) && fuzz_same_bits(f.v[i], g.v[i])));
    }
    flow_field_free(&f);
    flow_field_free(&g);
    return 0;
}
