/* cmd_file.c -- `flow-tool convert` (between the flow formats, keeping
 * unknown vectors and each format's axes), `flow-tool info` (size,
 * format, ranges, magnitudes, unknown count) and `flow-tool formats` (the
 * table of flow formats, for people and scripts). */
#include "tool.h"
#include "cli.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char convert_usage[] = "flow-tool convert [OPTIONS] IN OUT";

static void convert_help(void)
{
    printf("usage: %s\n"
           "\n"
           "Converts a flow file to another format; the formats come from the\n"
           "extensions, any letter case:\n",
           convert_usage);
    for (int i = 0; i < flow_field_format_count(); i++) {
        const flow_field_format *f = flow_field_format_at(i);
        printf("  .%-4s %s: %s\n", f->extension, f->name, f->description);
    }
    printf("Known vectors are copied bit for bit, except into .png.  Unknown\n"
           "vectors stay unknown: .flo, .pcm and .pfm keep their values as they\n"
           "are, .F writes its missing marker (100, 100) and .png an invalid pixel\n"
           "(B = 0), and both read back as unknown.  .F stores v pointing up and\n"
           "is written big-endian; its byte order is detected on reading.  A\n"
           "known vector that coincides with the .F marker becomes unknown (a\n"
           "warning says how many).  .pfm is read in either byte order and\n"
           "written little-endian.  .png rounds each component to the nearest\n"
           "1/64 px (halves away from zero) and holds -512 .. 511.984375 px: a\n"
           "vector outside is an error naming the pixel.  docs/FORMATS.md has\n"
           "every detail.\n"
           "\n"
           "Options:\n"
           "  -h, --help      this help\n"
           "\n"
           "Exit status: 0 ok, 1 usage, 2 input/output.\n");
}

int cmd_convert(int argc, char **argv)
{
    static const struct option opts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        if (c == 'h') {
            convert_help();
            return CLI_EXIT_OK;
        }
        return tool_bad_option(c, argv, convert_usage, "convert");
    }
    int rc = tool_check_args(argc, 2, convert_usage, "convert");
    if (rc)
        return rc;
    const char *in = argv[optind], *out = argv[optind + 1];
    flow_field f;
    if ((rc = tool_read_field(in, &f)))
        return rc;
    if (cli_has_suffix(out, ".F")) {
        /* in .F axes (v up) the marker is (100, 100): in memory (100, -100) */
        long clash = 0;
        for (size_t i = 0; i < (size_t)f.width * f.height; i++)
            clash += f.u[i] == 100.0f && f.v[i] == -100.0f;
        if (clash)
            cli_warn("%s: %ld known vector(s) equal to (100, -100) become unknown: .F uses "
                     "(100, 100) with v up as its missing marker",
                     out, clash);
    }
    rc = tool_write_field(out, &f);
    flow_field_free(&f);
    return rc;
}

static const char info_usage[] = "flow-tool info [OPTIONS] IN";

static void info_help(void)
{
    printf("usage: %s\n"
           "\n"
           "Prints a flow file's format, size, the number of unknown vectors, the\n"
           "ranges of u (right) and v (down) and the mean and largest magnitude,\n"
           "all over the known vectors, one \"key: value\" per line.\n"
           "\n"
           "Options:\n"
           "  -h, --help      this help\n"
           "\n"
           "Exit status: 0 ok, 1 usage, 2 input/output.\n",
           info_usage);
}

int cmd_info(int argc, char **argv)
{
    static const struct option opts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        if (c == 'h') {
            info_help();
            return CLI_EXIT_OK;
        }
        return tool_bad_option(c, argv, info_usage, "info");
    }
    int rc = tool_check_args(argc, 1, info_usage, "info");
    if (rc)
        return rc;
    const char *in = argv[optind];
    flow_field f;
    if ((rc = tool_read_field(in, &f)))
        return rc;
    const size_t n = (size_t)f.width * f.height;
    size_t unknown = 0, known = 0;
    double umin = INFINITY, umax = -INFINITY, vmin = INFINITY, vmax = -INFINITY;
    double sum = 0, mmax = 0;
    for (size_t i = 0; i < n; i++) {
        if (flow_is_unknown(f.u[i], f.v[i])) {
            unknown++;
            continue;
        }
        known++;
        const double u = f.u[i], v = f.v[i], m = sqrt(u * u + v * v);
        umin = fmin(umin, u), umax = fmax(umax, u);
        vmin = fmin(vmin, v), vmax = fmax(vmax, v);
        sum += m;
        mmax = fmax(mmax, m);
    }
    printf("file: %s\n", in);
    char name[128];
    printf("format: %s\n", tool_format_name(in, name, sizeof name));
    printf("size: %d x %d (%zu vectors)\n", f.width, f.height, n);
    printf("unknown: %zu (%.2f%%)\n", unknown, 100.0 * unknown / n);
    if (known) {
        printf("u range: %.6g .. %.6g\n", umin, umax);
        printf("v range: %.6g .. %.6g\n", vmin, vmax);
        printf("magnitude: mean %.6g, max %.6g\n", sum / known, mmax);
    } else {
        printf("u range: none (every vector unknown)\n");
        printf("v range: none (every vector unknown)\n");
        printf("magnitude: none (every vector unknown)\n");
    }
    flow_field_free(&f);
    return CLI_EXIT_OK;
}

static const char formats_usage[] = "flow-tool formats [OPTIONS]";

static void formats_help(void)
{
    printf("usage: %s\n"
           "\n"
           "Lists the flow file formats that every tool reads and writes, one per\n"
           "line: the extension (without the dot; any letter case is accepted),\n"
           "the format's name and its layout, separated by tabs, for scripts such\n"
           "as `flow-tool formats | cut -f1`.\n"
           "\n"
           "Options:\n"
           "  -h, --help      this help\n"
           "\n"
           "Exit status: 0 ok, 1 usage.\n",
           formats_usage);
}

int cmd_formats(int argc, char **argv)
{
    static const struct option opts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        if (c == 'h') {
            formats_help();
            return CLI_EXIT_OK;
        }
        return tool_bad_option(c, argv, formats_usage, "formats");
    }
    int rc = tool_check_args(argc, 0, formats_usage, "formats");
    if (rc)
        return rc;
    for (int i = 0; i < flow_field_format_count(); i++) {
        const flow_field_format *f = flow_field_format_at(i);
        printf("%s\t%s\t%s\n", f->extension, f->name, f->description);
    }
    return CLI_EXIT_OK;
}
