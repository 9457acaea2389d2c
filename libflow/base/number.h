/* number.h -- numbers written as text by the library (.params files,
 * flow_params_get), not installed: the counterpart of flow/number.h's
 * rule for reading them. */
#ifndef FLOW_BASE_NUMBER_H
#define FLOW_BASE_NUMBER_H

#include "flow/number.h"

/* x as the shortest text that strtod (and so flow_parse_real) reads back as
 * the same double, bit for bit: %g with the fewest significant digits that
 * do (0.1 is "0.1", not %.17g's "0.10000000000000001"; -0 is "-0"), in
 * fixed form where %.17g's is (400, not 4e+02; 1e+20 stays).  FLOW_OK, or
 * FLOW_ERR_INVALID with buf empty when it does not fit in size bytes. */
flow_status flow_format_real(double x, char *buf, size_t size);

#endif
