/* cmd_fbcheck.c -- `flow-tool fb-check FORWARD BACKWARD`: the
 * forward-backward validity check of libflow (flow_fb_check, flow/field.h)
 * on two existing flow files, the forward one (frame 1 -> frame 2) and the
 * backward one (frame 2 -> frame 1).  Prints how many forward vectors the
 * backward flow confirms (the density) and why the others were removed;
 * with -o writes the forward flow with those marked unknown. */
#include "tool.h"
#include "cli.h"

#include <getopt.h>
#include <stdio.h>

static const char usage_line[] = "flow-tool fb-check [-t T] [-o OUT] FORWARD BACKWARD";

static void help(void)
{
    printf("usage: %s\n"
           "\n"
           "Checks a forward flow (frame 1 -> frame 2) against the backward flow\n"
           "(frame 2 -> frame 1) of the same pair: the forward vector f(p) is kept\n"
           "when |f(p) + b(p + f(p))| <= T, the backward flow b sampled bilinearly\n"
           "where f(p) ends.  A vector is removed when p + f(p) leaves the frame,\n"
           "when a backward vector it needs is unknown, or when the two flows\n"
           "disagree by more than T (occlusions, errors of either flow).  Prints the\n"
           "density (kept / all pixels) and the count of each reason; forward\n"
           "vectors already unknown stay so and count as not kept.  Any flow\n"
           "format (flow-tool formats); both of one size.\n"
           "\n"
           "Options:\n"
           "  -t, --threshold T  largest disagreement kept, pixels, 1e-6..1e6\n"
           "                     [default: 1]\n"
           "  -o, --output OUT   write the checked forward flow to OUT (format by\n"
           "                     extension; removed vectors are unknown, drawn black\n"
           "                     by `flow-tool color`) [default: no file]\n"
           "  -h, --help         this help\n"
           "\n"
           "Exit status: 0 ok, 1 usage, 2 input/output (unreadable files, sizes\n"
           "that do not match), 3 out of memory.\n",
           usage_line);
}

static void report(const flow_fb_stats *st, double t)
{
    printf("threshold: %g px\n", t);
    printf("kept: %ld of %ld pixels\n", st->kept, st->total);
    printf("density: %.2f%%\n", 100.0 * st->density);
    printf("inconsistent: %ld (|f + b| > %g px)\n", st->inconsistent, t);
    printf("outside: %ld (p + f(p) leaves the frame)\n", st->outside);
    printf("unknown backward: %ld (a backward vector needed at p + f(p) is unknown)\n",
           st->unknown_bwd);
    printf("unknown forward: %ld (unknown before the check)\n", st->unknown_fwd);
}

int cmd_fbcheck(int argc, char **argv)
{
    static const struct option opts[] = {{"threshold", required_argument, NULL, 't'},
                                         {"output", required_argument, NULL, 'o'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *out_path = NULL;
    double t = 1.0;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":t:o:h", opts, NULL)) != -1) {
        switch (c) {
        case 't':
            if (cli_parse_double("fb-check: --threshold", optarg, 1e-6, 1e6, &t) != 0)
                return CLI_EXIT_USAGE;
            break;
        case 'o': out_path = optarg; break;
        case 'h': help(); return CLI_EXIT_OK;
        default: return tool_bad_option(c, argv, usage_line, "fb-check");
        }
    }
    int rc = tool_check_args(argc, 2, usage_line, "fb-check");
    if (rc)
        return rc;
    const char *fwd_path = argv[optind], *bwd_path = argv[optind + 1];
    flow_field fwd, bwd;
    if ((rc = tool_read_field(fwd_path, &fwd)))
        return rc;
    if ((rc = tool_read_field(bwd_path, &bwd))) {
        flow_field_free(&fwd);
        return rc;
    }
    flow_fb_stats st;
    if (fwd.width != bwd.width || fwd.height != bwd.height) {
        cli_error("forward flow %s is %dx%d but the backward flow %s is %dx%d: sizes must match",
                  fwd_path, fwd.width, fwd.height, bwd_path, bwd.width, bwd.height);
        rc = CLI_EXIT_IO;
    } else {
        flow_status s = flow_fb_check(&fwd, &bwd, t, &st);
        if (s != FLOW_OK)
            rc = tool_fail(fwd_path, s);
    }
    if (rc == CLI_EXIT_OK && out_path)
        rc = tool_write_field(out_path, &fwd);
    if (rc == CLI_EXIT_OK)
        report(&st, t);
    flow_field_free(&fwd);
    flow_field_free(&bwd);
    return rc;
}
