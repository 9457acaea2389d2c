/* version.c -- the version of the library linked (flow.h's
 * flow_version), beside the headers' FLOW_VERSION_STRING. */
#include "flow/flow.h"

const char *flow_version(void)
{
    return FLOW_VERSION_STRING;
}
