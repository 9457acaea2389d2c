/* test_numbers.c -- the one rule for numbers given as text
 * (flow/number.h: flow_parse_real, flow_parse_integer), shared by options,
 * parameters and .params files, and its counterpart for writing them
 * (base/number.h: flow_format_real, the shortest text that reads back as
 * the same double). */
#include "harness.h"
#include "base/number.h"
#include "flow/params.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- numbers from text: one rule for options, parameters and files ---- */

static void test_parse_numbers(void)
{
    /* want 0 with ok: the double strtod gives for the text (its own spelling) */
    static const struct {
        const char *text;
        int ok;
        double want;
    } reals[] = {
        { "1.5", 1, 1.5 }, { "-0", 1, 0 }, { "0e-400", 1, 0 }, { "+2e3", 1, 2000 },
        { "0x1p-3", 1, 0.125 }, { "1e-320", 1, 0 }, { "4.9406564584124654e-324", 1, 0 },
        { "1.7976931348623157e308", 1, 0 },
        { "1e-400", 0, 0 }, { "-1e-400", 0, 0 }, { "2.4703282292062327e-324", 0, 0 },
        { "1e400", 0, 0 }, { "inf", 0, 0 }, { "-infinity", 0, 0 }, { "nan", 0, 0 },
        { "", 0, 0 }, { " 1", 0, 0 }, { "1 ", 0, 0 }, { "1,5", 0, 0 }, { "abc", 0, 0 },
        { "1e", 0, 0 },
    };
    for (size_t i = 0; i < sizeof reals / sizeof reals[0]; i++) {
        double x = -7;
        const flow_status s = flow_parse_real(reals[i].text, &x);
        const double want = reals[i].want != 0 ? reals[i].want : strtod(reals[i].text, NULL);
        const int ok = reals[i].ok ? s == FLOW_OK && memcmp(&x, &want, sizeof x) == 0
                                   : s == FLOW_ERR_INVALID && x == -7 &&
                                         strstr(flow_last_error(), reals[i].text) != NULL;
        if (!ok)
            fprintf(stderr, "    real '%s': status %d, %.17g, '%s'\n", reals[i].text, (int)s, x,
                    flow_last_error());
        CHECK(ok);
    }
    double tiny = 0;
    CHECK_OK(flow_parse_real("4.9406564584124654e-324", &tiny));
    CHECK(tiny > 0 && tiny < 1e-323);
    CHECK(flow_parse_real(NULL, &tiny) == FLOW_ERR_INVALID);
    CHECK(flow_parse_real("1e-400", &tiny) == FLOW_ERR_INVALID &&
          strstr(flow_last_error(), "rounds to 0") != NULL);

    static const struct {
        const char *text;
        int ok;
        long want;
    } ints[] = {
        { "17", 1, 17 }, { "-1", 1, -1 }, { "+4", 1, 4 }, { "0", 1, 0 },
        { "9223372036854775807", 1, 9223372036854775807L },
        { "9223372036854775808", 0, 0 }, { "1.0", 0, 0 }, { "1e3", 0, 0 }, { "0x10", 0, 0 },
        { " 1", 0, 0 }, { "1 ", 0, 0 }, { "", 0, 0 }, { "-", 0, 0 },
    };
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        long n = -7;
        const flow_status s = flow_parse_integer(ints[i].text, &n);
        const int ok = ints[i].ok ? s == FLOW_OK && n == ints[i].want
                                  : s == FLOW_ERR_INVALID && n == -7 &&
                                        strstr(flow_last_error(), "is not an integer") != NULL;
        if (!ok)
            fprintf(stderr, "    integer '%s': status %d, %ld, '%s'\n", ints[i].text, (int)s, n,
                    flow_last_error());
        CHECK(ok);
    }
    /* a parameter follows the same rule: what flow_parse_real refuses,
     * flow_params_set refuses, naming the parameter */
    flow_params *p = harness_params("clg", NULL);
    if (!p)
        return;
    for (size_t i = 0; i < sizeof reals / sizeof reals[0]; i++) {
        double x;
        if (flow_parse_real(reals[i].text, &x) == FLOW_OK)
            continue;
        CHECK(flow_params_set(p, "sigma", reals[i].text) == FLOW_ERR_INVALID);
        CHECK(strncmp(flow_last_error(), "sigma: ", 7) == 0);
    }
    flow_params_destroy(p);
}

static int significant_digits(const char *text)
{
    char d[64];
    int n = 0;
    for (const char *c = text; *c && *c != 'e' && n < 63; c++)
        if (*c >= '0' && *c <= '9')
            d[n++] = *c;
    int first = 0;
    while (first < n && d[first] == '0')
        first++;
    while (n > first && d[n - 1] == '0')
        n--;
    return n > first ? n - first : 1;
}

/* Reals are written as the shortest text that reads back bit for bit: the
 * text reads back, and one significant digit fewer would not. */
static void test_format_real(void)
{
    static const struct {
        double x;
        const char *text;
    } known[] = {
        { 0.1, "0.1" }, { 1.0 / 3.0, "0.3333333333333333" }, { 0.1 + 0.2, "0.30000000000000004" },
        { -0.0, "-0" }, { 1e12, "1000000000000" }, { 1e20, "1e+20" }, { 1.5e-5, "1.5e-05" },
        { 1e-320, "1e-320" }, { 4.9406564584124654e-324, "5e-324" }, { 1.5, "1.5" }, { 400, "400" },
        { 1234567.5, "1234567.5" },
    };
    char text[64];
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        CHECK_OK(flow_format_real(known[i].x, text, sizeof text));
        if (strcmp(text, known[i].text) != 0)
            fprintf(stderr, "    %.17g written '%s', not '%s'\n", known[i].x, text, known[i].text);
        CHECK(strcmp(text, known[i].text) == 0);
    }
    /* doubles of every magnitude, from their bits (a fixed LCG) */
    unsigned long long bits = 88172645463325252ULL;
    int tried = 0, shortest = 0;
    for (int i = 0; i < 20000; i++) {
        bits = bits * 6364136223846793005ULL + 1442695040888963407ULL;
        double x;
        memcpy(&x, &bits, sizeof x);
        if (!isfinite(x))
            continue;
        tried++;
        CHECK_OK(flow_format_real(x, text, sizeof text));
        const double back = strtod(text, NULL);
        CHECK(memcmp(&back, &x, sizeof x) == 0);
        const int d = significant_digits(text);
        char fewer[400];
        snprintf(fewer, sizeof fewer, "%.*e", d - 2, x);
        const double short_back = strtod(fewer, NULL);
        const int is_shortest = d == 1 || memcmp(&short_back, &x, sizeof x) != 0;
        if (!is_shortest)
            fprintf(stderr, "    %.17g written '%s', but '%s' reads back\n", x, text, fewer);
        shortest += is_shortest;
    }
    CHECK(shortest == tried);
    printf("    %d doubles: each read back bit for bit from the shortest text\n", tried);
    /* too small a buffer: refused, nothing half written */
    CHECK(flow_format_real(1.0 / 3.0, text, 5) == FLOW_ERR_INVALID && text[0] == '\0');
    /* the .params text: 0.1 as "0.1" (%.17g wrote 0.10000000000000001) */
    flow_params *p = harness_params("hs", "alpha=0.1");
    if (p) {
        CHECK_OK(flow_params_get(p, "alpha", text, sizeof text));
        CHECK(strcmp(text, "0.1") == 0);
    }
    flow_params_destroy(p);
}

/* A parameter without effect under the file's other values is refused with
 * file:line, as flow-compute refuses its option; at its default (what the
 * writer writes for it) it is accepted, and so is the same value where the
 * file's other lines give it an effect, in any order. */
int main(void)
{
    RUN(test_parse_numbers);
    RUN(test_format_real);
    return harness_report();
}
