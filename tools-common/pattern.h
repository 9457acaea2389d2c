/* pattern.h -- printf-style file-name patterns with one integer field, as
 * the tools use them for sequences: "frame%04d.png" names frame 7
 * "frame0007.png".  A pattern is checked before use, so that a user's "%s"
 * or "%n" never reaches printf.
 *
 * Accepted: any text, "%%" for a literal percent sign, and exactly one
 * conversion %[flags][width]d (or i, u) with flags from "-+ 0" and a width
 * of at most 2 digits.  Nothing else follows a '%'. */
#ifndef FLOW_TOOLS_PATTERN_H
#define FLOW_TOOLS_PATTERN_H

#include <stddef.h>

/* The number of integer conversions in text (0, 1, ...), or -1 when text
 * has a '%' that is neither "%%" nor such a conversion. */
int cli_pattern_fields(const char *text);

/* Whether text is a valid pattern: exactly one integer conversion. */
int cli_pattern_valid(const char *text);

/* Writes pattern with its conversion replaced by index into buf[size]
 * (with "%%" turned into "%").  A text with no conversion is copied (with
 * "%%" turned into "%").  Returns 0, or -1 (buf then empty) when the
 * result does not fit or the text is not a valid pattern. */
int cli_pattern_format(char *buf, size_t size, const char *pattern, long index);

/* The index i >= 0 for which pattern gives exactly name ("f%02d.png" and
 * "f07.png": 7; "f7.png": none), or -1 when there is none or the pattern
 * is not valid. */
long cli_pattern_index(const char *pattern, const char *name);

#endif
