/* number.h -- the one rule for a number given as text.
 *
 * flow_params_set, .params files and the tools' numeric options all parse
 * numbers here, so that whatever one of them accepts the others accept
 * too, and a value a tool writes (a .params file beside its output) reads
 * back as the same double.
 *
 * flow_parse_real: the whole text is one number in strtod's syntax
 * (decimal, or hexadecimal such as 0x1p-3), without blanks around it.
 * Refused: infinities, NaN, a value too large for a double, and a value
 * that is not zero but too small for one (1e-400 would silently become 0).
 * A value in the subnormal range (1e-320) is accepted as the nearest
 * double: it is what flow_params_get and .params files write back, and
 * what the user asked for to the precision a double has there.
 *
 * flow_parse_integer: the whole text is decimal digits with an optional
 * sign, within a long, without blanks around it.
 *
 * Both return FLOW_OK and store the value, or FLOW_ERR_INVALID, leaving
 * *out alone, with a detail for flow_last_error() that quotes the text:
 * "'abc' is not a finite number", "'1e-400' is not zero but rounds to 0
 * (below the smallest double, 4.9e-324)", "'1.5' is not an integer". */
#ifndef FLOW_NUMBER_H
#define FLOW_NUMBER_H

#include "flow/status.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

flow_status flow_parse_real(const char *text, double *out);
flow_status flow_parse_integer(const char *text, long *out);

#ifdef __cplusplus
}
#endif
#endif
