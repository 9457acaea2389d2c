/* cmd_error.c -- `flow-tool error EST GT`: average angular error (Barron's
 * angle between (u, v, 1) and (ug, vg, 1)) and average endpoint error with
 * their standard deviations and the shares of pixels over 1 and 3 px, on
 * the pixels the mask keeps and the ground truth knows (flow/error.h has the
 * rules).  Human-readable output by default, CSV with --csv, and bare
 * numbers in .aae/.aee files for make. */
#include "tool.h"
#include "cli.h"
#include "outputs.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_line[] =
    "flow-tool error [--mask MASK] [--csv] [--aae FILE] [--aee FILE] EST GT";

static void help(void)
{
    printf("usage: %s\n"
           "\n"
           "Compares an estimated flow EST with the ground truth GT (any of .flo,\n"
           ".F, .pcm; same size) and prints:\n"
           "  AAE  average angular error, degrees: the angle between (u, v, 1) and\n"
           "       (ug, vg, 1) (Barron et al. 1994), with its standard deviation;\n"
           "  AEE  average endpoint error |(u, v) - (ug, vg)|, pixels, with its\n"
           "       standard deviation;\n"
           "  the share of pixels whose endpoint error is over 1 px and over 3 px;\n"
           "  how many pixels were scored and why the others were not.\n"
           "Excluded from every measure: pixels outside the mask, pixels whose\n"
           "ground truth is unknown (|component| > 1e9 or NaN), and pixels the\n"
           "estimate marks unknown (finite |component| > 1e9; the density scored /\n"
           "(scored + those) is printed).  NaN or infinity in EST is an error:\n"
           "it means a computation failed.  Standard deviations divide by N.\n"
           "\n"
           "Options:\n"
           "  -m, --mask MASK  image of GT's size; pixels with a nonzero value (any\n"
           "                   channel) are scored [default: every pixel]\n"
           "  -c, --csv        one header line and one line of values:\n"
           "                   aae,aae_std,aee,aee_std,over1,over3,max_ee,scored,\n"
           "                   total,outside_mask,unknown_gt,unknown_est (over1 and\n"
           "                   over3 as fractions 0..1) [default: human-readable]\n"
           "      --aae FILE   also write the AAE alone to FILE (\"%%.6f\\n\")\n"
           "      --aee FILE   also write the AEE alone to FILE\n"
           "  -h, --help       this help\n"
           "\n"
           "Exit status: 0 ok, 1 usage, 2 input/output (unreadable or mismatched\n"
           "files, NaN in EST, nothing left to score).\n",
           usage_line);
}

static void print_human(const flow_error_stats *st, const char *mask)
{
    const long considered = st->scored + st->unknown_est;
    printf("scored: %ld of %ld pixels (excluded: ", st->scored, st->total);
    if (mask)
        printf("%ld outside the mask %s, ", st->outside_mask, mask);
    printf("%ld unknown ground truth, %ld unknown estimate%s)\n", st->unknown_gt,
           st->unknown_est, mask ? "" : "; no mask");
    printf("density: %.2f%% of the pixels with known ground truth%s have an estimate\n",
           considered ? 100.0 * st->scored / considered : 0.0, mask ? " in the mask" : "");
    printf("AAE: %.4f deg (sd %.4f)\n", st->aae, st->aae_std);
    printf("AEE: %.4f px (sd %.4f, max %.4f)\n", st->aee, st->aee_std, st->max_ee);
    printf("EE > 1 px: %.2f%%\n", 100.0 * st->over1);
    printf("EE > 3 px: %.2f%%\n", 100.0 * st->over3);
}

static void print_csv(const flow_error_stats *st)
{
    printf("aae,aae_std,aee,aee_std,over1,over3,max_ee,scored,total,outside_mask,unknown_gt,"
           "unknown_est\n");
    printf("%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%ld,%ld,%ld,%ld,%ld\n", st->aae, st->aae_std,
           st->aee, st->aee_std, st->over1, st->over3, st->max_ee, st->scored, st->total,
           st->outside_mask, st->unknown_gt, st->unknown_est);
}

/* The --aae and --aee files ("%.6f\n"; a NULL path: none), one result:
 * both appear or neither (tools-common/outputs.h). */
static int write_numbers(const char *const path[2], const double value[2])
{
    output_group *g = NULL;
    int rc = output_group_create(&g);
    for (int i = 0; i < 2 && rc == CLI_EXIT_OK; i++) {
        char tmp[OUTPUT_NAME_MAX], number[64];
        snprintf(number, sizeof number, "%.6f\n", value[i]);
        if (path[i] && (rc = output_group_add(g, path[i], tmp, sizeof tmp)) == CLI_EXIT_OK)
            rc = tool_write_text(tmp, path[i], number);
    }
    if (rc == CLI_EXIT_OK)
        rc = output_group_commit(g);
    output_group_destroy(g);
    return rc;
}

int cmd_error(int argc, char **argv)
{
    enum { OPT_AAE = 256, OPT_AEE };
    static const struct option opts[] = {{"mask", required_argument, NULL, 'm'},
                                         {"csv", no_argument, NULL, 'c'},
                                         {"aae", required_argument, NULL, OPT_AAE},
                                         {"aee", required_argument, NULL, OPT_AEE},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *mask_path = NULL, *aae_path = NULL, *aee_path = NULL;
    int csv = 0, c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":m:ch", opts, NULL)) != -1) {
        switch (c) {
        case 'm': mask_path = optarg; break;
        case 'c': csv = 1; break;
        case OPT_AAE: aae_path = optarg; break;
        case OPT_AEE: aee_path = optarg; break;
        case 'h': help(); return CLI_EXIT_OK;
        default: return tool_bad_option(c, argv, usage_line, "error");
        }
    }
    int rc = tool_check_args(argc, 2, usage_line, "error");
    if (rc)
        return rc;
    const char *est_path = argv[optind], *gt_path = argv[optind + 1];
    flow_field est, gt;
    unsigned char *mask = NULL;
    if ((rc = tool_read_field(est_path, &est)))
        return rc;
    if ((rc = tool_read_field(gt_path, &gt))) {
        flow_field_free(&est);
        return rc;
    }
    flow_error_stats st;
    memset(&st, 0, sizeof st);
    if (est.width != gt.width || est.height != gt.height) {
        cli_error("estimate %s is %dx%d but the ground truth %s is %dx%d: sizes must match",
                  est_path, est.width, est.height, gt_path, gt.width, gt.height);
        rc = CLI_EXIT_IO;
    } else if (!mask_path ||
               (rc = tool_read_mask(mask_path, gt_path, gt.width, gt.height, &mask)) == 0) {
        flow_status s = flow_error_compute(&est, &gt, mask, &st);
        if (s != FLOW_OK) {
            rc = tool_fail(est_path, s);
        } else if (st.scored == 0) {
            /* each count beside the file it comes from */
            char outside[4200] = "";
            if (mask_path)
                snprintf(outside, sizeof outside, "%ld are outside the mask %s, ",
                         st.outside_mask, mask_path);
            cli_error("no pixel to score: of the %ld pixels, %s%ld have unknown ground truth in "
                      "%s and %ld an unknown estimate in %s",
                      st.total, outside, st.unknown_gt, gt_path, st.unknown_est, est_path);
            rc = CLI_EXIT_IO;
        }
    }
    free(mask);
    flow_field_free(&est);
    flow_field_free(&gt);
    if (rc)
        return rc;
    if (csv)
        print_csv(&st);
    else
        print_human(&st, mask_path);
    const char *const paths[2] = {aae_path, aee_path};
    const double values[2] = {st.aae, st.aee};
    return write_numbers(paths, values);
}
