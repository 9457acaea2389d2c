/* number.c -- numbers from text and back, one rule for the library and the
 * tools (flow/number.h). */
#include "base/number.h"
#include "base/fail.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

flow_status flow_format_real(double x, char *buf, size_t size)
{
    /* 17 significant digits always read back (DBL_DECIMAL_DIG); fewer often
     * do, and the first that does is the shortest */
    char text[64];
    int digits = 1;
    for (;; digits++) {
        snprintf(text, sizeof text, "%.*e", digits - 1, x);
        const double back = strtod(text, NULL);
        if (memcmp(&back, &x, sizeof x) == 0 || digits == DBL_DECIMAL_DIG)
            break;
    }
    /* %g writes an integer with more digits than its precision in exponent
     * form (400 at 1 digit: 4e+02); up to 17 digits, as %.17g does, it is
     * written whole instead: the shortest digits, then zeros */
    const int exponent = atoi(strchr(text, 'e') + 1);
    int n;
    if (exponent >= digits && exponent < DBL_DECIMAL_DIG) {
        char whole[32];
        int k = 0;
        for (const char *c = text; *c != 'e'; c++)
            if (*c != '.')
                whole[k++] = *c;
        for (int z = digits; z <= exponent; z++)
            whole[k++] = '0';
        whole[k] = '\0';
        n = snprintf(buf, size, "%s", whole);
    } else
        n = snprintf(buf, size, "%.*g", digits, x);
    if (n < 0 || (size_t)n >= size) {
        if (size)
            buf[0] = '\0';
        return flow_fail(FLOW_ERR_INVALID, "%.17g does not fit in %zu bytes", x, size);
    }
    return FLOW_OK;
}
