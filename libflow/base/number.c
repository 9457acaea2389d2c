/* number.c -- numbers from text, one rule for the library and the tools
 * (flow/number.h). */
#include "flow/number.h"
#include "base/fail.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>

/* Empty text, or text starting with a blank, is refused: strtod and strtol
 * would skip the blanks silently. */
static int starts_badly(const char *text)
{
    return !text || !*text || isspace((unsigned char)text[0]);
}

flow_status flow_parse_real(const char *text, double *out)
{
    char *end = NULL;
    errno = 0;
    const double x = starts_badly(text) ? 0 : strtod(text, &end);
    if (starts_badly(text) || !end || *end || !isfinite(x))
        return flow_fail(FLOW_ERR_INVALID, "'%s' is not a finite number", text ? text : "");
    /* strtod reports ERANGE for every result below DBL_MIN: a subnormal is
     * a value, a zero from nonzero text is not */
    if (errno == ERANGE && x == 0)
        return flow_fail(FLOW_ERR_INVALID,
                         "'%s' is not zero but rounds to 0 (below the smallest double, %.2g)",
                         text, DBL_TRUE_MIN);
    *out = x;
    return FLOW_OK;
}

flow_status flow_parse_integer(const char *text, long *out)
{
    char *end = NULL;
    errno = 0;
    const long x = starts_badly(text) ? 0 : strtol(text, &end, 10);
    if (starts_badly(text) || !end || *end || errno == ERANGE)
        return flow_fail(FLOW_ERR_INVALID, "'%s' is not an integer", text ? text : "");
    *out = x;
    return FLOW_OK;
}
