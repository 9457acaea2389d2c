/* pattern.c -- checked printf-style name patterns (see pattern.h).  The
 * formatting is done here, one conversion at a time, so a pattern given on
 * the command line is never handed to printf as a format. */
#include "pattern.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Length of the conversion spec starting at s[0] == '%' (the '%' included)
 * when it is an accepted integer conversion, else 0. */
static size_t conversion_length(const char *s)
{
    size_t i = 1;
    while (s[i] && strchr("-+ 0", s[i]))
        i++;
    size_t digits = 0;
    while (s[i] >= '0' && s[i] <= '9') {
        i++;
        if (++digits > 2)
            return 0;
    }
    return s[i] && strchr("diu", s[i]) ? i + 1 : 0;
}

int cli_pattern_fields(const char *text)
{
    int fields = 0;
    for (const char *p = text; *p; p++) {
        if (*p != '%')
            continue;
        if (p[1] == '%') {
            p++;
            continue;
        }
        size_t n = conversion_length(p);
        if (!n)
            return -1;
        fields++;
        p += n - 1;
    }
    return fields;
}

int cli_pattern_valid(const char *text)
{
    return cli_pattern_fields(text) == 1;
}

static int format_into(char *buf, size_t size, const char *pattern, long index)
{
    const int fields = cli_pattern_fields(pattern);
    if (fields < 0 || fields > 1)
        return -1;
    size_t out = 0;
    for (const char *p = pattern; *p; p++) {
        char piece[64];
        size_t len;
        if (*p != '%') {
            piece[0] = *p;
            len = 1;
        } else if (p[1] == '%') {
            piece[0] = '%';
            len = 1;
            p++;
        } else {
            /* Rebuild the spec with the 'l' length modifier for a long. */
            size_t n = conversion_length(p);
            char spec[16];
            memcpy(spec, p, n - 1);
            spec[n - 1] = 'l';
            spec[n] = p[n - 1] == 'u' ? 'd' : p[n - 1];
            spec[n + 1] = '\0';
            int w = snprintf(piece, sizeof piece, spec, index);
            if (w < 0 || (size_t)w >= sizeof piece)
                return -1;
            len = (size_t)w;
            p += n - 1;
        }
        if (out + len >= size)
            return -1;
        memcpy(buf + out, piece, len);
        out += len;
    }
    buf[out] = '\0';
    return 0;
}

int cli_pattern_format(char *buf, size_t size, const char *pattern, long index)
{
    if (size == 0)
        return -1;
    if (format_into(buf, size, pattern, index) == 0)
        return 0;
    buf[0] = '\0'; /* never a half-made name */
    return -1;
}

/* The literal text of pattern from p up to its conversion or end, with
 * "%%" as '%', into buf[size]; returns where it stopped (the '%' of the
 * conversion, or the end), NULL when it does not fit. */
static const char *literal(const char *p, char *buf, size_t size)
{
    size_t n = 0;
    for (; *p && !(p[0] == '%' && p[1] != '%'); p++) {
        if (n + 1 >= size)
            return NULL;
        buf[n++] = *p;
        if (*p == '%')
            p++;
    }
    buf[n] = '\0';
    return p;
}

long cli_pattern_index(const char *pattern, const char *name)
{
    char prefix[4096], suffix[4096], again[4200];
    if (!cli_pattern_valid(pattern))
        return -1;
    const char *conv = literal(pattern, prefix, sizeof prefix);
    if (!conv || !literal(conv + conversion_length(conv), suffix, sizeof suffix))
        return -1;
    const size_t lp = strlen(prefix), ls = strlen(suffix), ln = strlen(name);
    if (ln <= lp + ls || strncmp(name, prefix, lp) != 0 || strcmp(name + ln - ls, suffix) != 0)
        return -1;
    /* the digits between, as the conversion wrote them: checked by
     * writing the index back (so "f7" is not index 7 of "f%02d") */
    char digits[64];
    if (ln - lp - ls >= sizeof digits)
        return -1;
    memcpy(digits, name + lp, ln - lp - ls);
    digits[ln - lp - ls] = '\0';
    char *end;
    errno = 0;
    const long index = strtol(digits, &end, 10);
    if (*end || errno || index < 0 || cli_pattern_format(again, sizeof again, pattern, index) != 0
        || strcmp(again, name) != 0)
        return -1;
    return index;
}
