/* test_version.c -- the version macros of flow/flow.h: FLOW_VERSION_STRING
 * is "MAJOR.MINOR.PATCH" of the three numbers, FLOW_VERSION_NUMBER orders
 * them, and the library linked (flow_version) is the version of the headers.
 * tests/cli/install.sh checks that libflow.pc, the soname and the tools name
 * the same version, which the Makefile reads from these macros. */
#include "harness.h"

#include <stdio.h>
#include <string.h>

static void test_string_of_numbers(void)
{
    char want[64];
    snprintf(want, sizeof want, "%d.%d.%d", FLOW_VERSION_MAJOR, FLOW_VERSION_MINOR, FLOW_VERSION_PATCH);
    CHECK(strcmp(FLOW_VERSION_STRING, want) == 0);
    CHECK(FLOW_VERSION_MAJOR >= 0 && FLOW_VERSION_MINOR >= 0 && FLOW_VERSION_PATCH >= 0);
    CHECK(FLOW_VERSION_MINOR < 100 && FLOW_VERSION_PATCH < 100);
}

static void test_number_orders(void)
{
    CHECK(FLOW_VERSION_NUMBER
          == FLOW_VERSION_MAJOR * 10000 + FLOW_VERSION_MINOR * 100 + FLOW_VERSION_PATCH);
#if FLOW_VERSION_NUMBER != FLOW_VERSION_MAJOR * 10000 + FLOW_VERSION_MINOR * 100 + FLOW_VERSION_PATCH
#error "FLOW_VERSION_NUMBER must be usable in #if"
#endif
}

static void test_runtime_is_header(void)
{
    CHECK(flow_version() != NULL && strcmp(flow_version(), FLOW_VERSION_STRING) == 0);
}

int main(void)
{
    RUN(test_string_of_numbers);
    RUN(test_number_orders);
    RUN(test_runtime_is_header);
    return harness_report();
}
