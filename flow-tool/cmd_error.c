/* cmd_error.c -- `flow-tool error EST GT`: average angular error (Barron's
 * angle between (u, v, 1) and (ug, vg, 1)) and average endpoint error with
 * their standard deviations, the shares of pixels over 1, 3 and 5 px,
 * KITTI's Fl, and the same split by occlusion, object, speed and distance
 * to occlusion where the maps are given, a confidence map's sparsification
 * (AUSE) and an estimated occlusion mask's F1, on the pixels the mask keeps and
 * the ground truth knows (flow/error.h has the rules, docs/EVALUATION.md
 * the definitions).  Human-readable output by default, CSV with --csv,
 * and bare numbers in .aae/.aee files for make. */
#include "tool.h"
#include "cli.h"
#include "outputs.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_line[] =
    "flow-tool error [--mask MASK] [--invalid MAP] [--occlusions MAP | --noc FLOW]\n"
    "                [--objmap MAP] [--confidence MAP [--steps N] [--curve FILE]]\n"
    "                [--occlusion-estimate MAP] [--csv] [--aae FILE] [--aee FILE]\n"
    "                [--picture OUT.png]\n"
    "                EST GT";

static void help(void)
{
    printf("usage: %s\n"
           "\n"
           "Compares an estimated flow EST with the ground truth GT (any flow format,\n"
           "KITTI's .png included; same size) and prints:\n"
           "  AAE  average angular error, degrees: the angle between (u, v, 1) and\n"
           "       (ug, vg, 1) (Barron et al. 1994), with its standard deviation;\n"
           "  AEE  average endpoint error |(u, v) - (ug, vg)|, pixels, with its\n"
           "       standard deviation;\n"
           "  the share of pixels whose endpoint error is over 1, 3 and 5 px\n"
           "  (px1, px3, px5) and KITTI's Fl: the share with an endpoint error\n"
           "  over 3 px and over 5%% of the true length;\n"
           "  the endpoint error by speed |gt| (Sintel's s0-10, s10-40, s40+);\n"
           "  with --occlusions or --noc: the endpoint error and Fl of the\n"
           "  non-occluded and the occluded pixels, and with --occlusions the\n"
           "  endpoint error by distance to the nearest occluded pixel (Sintel's\n"
           "  d0-10, d10-60, d60-140); with --objmap: Fl of the background and\n"
           "  the foreground;\n"
           "  with --confidence: the sparsification of the endpoint error by the\n"
           "  confidence map (remove the least confident share p of the scored\n"
           "  pixels, p = 0, 1/N, ..., (N-1)/N, and average the rest) against the\n"
           "  oracle's (remove the largest errors first), and the area between the\n"
           "  two curves, AUSE, in px and relative to the EPE;\n"
           "  with --occlusion-estimate (and --occlusions or --noc, the truth): the\n"
           "  estimated occlusion mask's precision, recall and F1 over the pixels\n"
           "  with known ground truth;\n"
           "  how many pixels were scored and why the others were not.\n"
           "A measure over no pixel is not defined: \"-\" in the human output (whose\n"
           "lines about maps not given are left out), an empty CSV field.\n"
           "docs/EVALUATION.md defines each measure and gives its source.\n"
           "Excluded from every measure: pixels outside the mask, pixels the\n"
           "invalid map marks, pixels whose ground truth is unknown (|component|\n"
           "> 1e9 or NaN; a KITTI .png flow's invalid pixels), and pixels the\n"
           "estimate marks unknown (finite |component| > 1e9; the density scored /\n"
           "(scored + those) is printed).  NaN or infinity in EST is an error:\n"
           "it means a computation failed.  Standard deviations divide by N.\n"
           "\n"
           "Options:\n"
           "  -m, --mask MASK  image of GT's size; pixels with a nonzero value (any\n"
           "                   channel) are scored [default: every pixel]\n"
           "  -i, --invalid MAP\n"
           "                   image of GT's size; pixels with a nonzero value are\n"
           "                   excluded (Sintel's invalid/) [default: none]\n"
           "  -o, --occlusions MAP\n"
           "                   image of GT's size; nonzero = occluded (Sintel's\n"
           "                   occlusions/) [default: none]\n"
           "  -n, --noc FLOW   KITTI's flow_noc when GT is flow_occ: a pixel known in\n"
           "                   GT but not in FLOW is occluded [default: none]\n"
           "  -b, --objmap MAP\n"
           "                   image of GT's size; nonzero = foreground (KITTI\n"
           "                   2015's obj_map) [default: none]\n"
           "  -C, --confidence MAP\n"
           "                   image of GT's size (16-bit PNG, or any image): higher =\n"
           "                   more trusted; only the order of the values counts,\n"
           "                   equal values count by the share of their group\n"
           "                   removed [default: none]\n"
           "      --steps N    points of the sparsification curve, 1 to %d [100]\n"
           "      --curve FILE also write the curve: a header line, then one line per\n"
           "                   step: removed share, EPE left, the oracle's EPE left\n"
           "  -e, --occlusion-estimate MAP\n"
           "                   image of GT's size; nonzero = estimated occluded\n"
           "                   (flow-compute's occlusion output) [default: none]\n"
           "  -c, --csv        one header line and one line of values:\n"
           "                   aae,aae_std,aee,aee_std,over1,over3,max_ee,scored,\n"
           "                   total,outside_mask,unknown_gt,unknown_est,px1,px3,\n"
           "                   px5,fl,epe_noc,epe_occ,scored_noc,scored_occ,fl_noc,\n"
           "                   fl_occ,fl_bg,fl_fg,s0_10,s10_40,s40,d0_10,d10_60,\n"
           "                   d60_140,invalid,ause,ause_relative,occ_precision,\n"
           "                   occ_recall,occ_f1 (over1 and over3 as fractions 0..1,\n"
           "                   px*, fl* as percentages) [default: human-readable]\n"
           "      --aae FILE   also write the AAE alone to FILE (\"%%.6f\\n\")\n"
           "      --aee FILE   also write the AEE alone to FILE\n"
           "  -p, --picture OUT.png\n"
           "                   also write KITTI's error picture: each scored\n"
           "                   pixel coloured by min(EE / 3, 20 EE / |gt|) on the\n"
           "                   devkit's log scale of ten colours (dark blue below\n"
           "                   0.0625, pale yellow up to 1 = Fl's threshold, dark red\n"
           "                   from 16 on), at half brightness where occluded\n"
           "                   (--occlusions, --noc), black where not scored\n"
           "  -h, --help       this help\n"
           "\n"
           "Exit status: 0 ok, 1 usage, 2 input/output (unreadable or mismatched\n"
           "files, NaN in EST, nothing left to score).\n",
           usage_line, FLOW_SPARSIFICATION_STEPS_MAX);
}

/* The files the measures were given, for the human output. */
typedef struct error_inputs {
    const char *mask, *invalid, *occlusions, *noc, *objmap, *confidence, *occlusion_estimate;
} error_inputs;

/* The measures of the optional estimates beside the flow. */
typedef struct estimate_scores {
    flow_sparsification_curve *sparsification; /* NULL without --confidence */
    flow_occlusion_scores occlusion;           /* with --occlusion-estimate */
} estimate_scores;

/* `before`, then "x.xxxx px", or "-" for a mean that is not defined. */
static void print_epe(const char *before, double epe)
{
    if (isnan(epe))
        printf("%s-", before);
    else
        printf("%s%.4f px", before, epe);
}

/* "x.xx%" or "-" for a share that is not defined. */
static void print_percent(double share)
{
    if (isnan(share))
        printf("-");
    else
        printf("%.2f%%", share);
}

static void print_human(const flow_error_measures *m, const estimate_scores *e,
                        const error_inputs *in)
{
    const flow_error_stats *st = &m->all;
    const long considered = st->scored + st->unknown_est;
    printf("scored: %ld of %ld pixels (excluded: ", st->scored, st->total);
    if (in->mask)
        printf("%ld outside the mask %s, ", st->outside_mask, in->mask);
    if (in->invalid)
        printf("%ld invalid in %s, ", m->invalid, in->invalid);
    printf("%ld unknown ground truth, %ld unknown estimate%s)\n", st->unknown_gt,
           st->unknown_est, in->mask ? "" : "; no mask");
    printf("density: %.2f%% of the pixels with known ground truth%s have an estimate\n",
           considered ? 100.0 * st->scored / considered : 0.0, in->mask ? " in the mask" : "");
    printf("AAE: %.4f deg (sd %.4f)\n", st->aae, st->aae_std);
    printf("AEE: %.4f px (sd %.4f, max %.4f)\n", st->aee, st->aee_std, st->max_ee);
    printf("EE > 1 px: %.2f%%\n", 100.0 * st->over1);
    printf("EE > 3 px: %.2f%%\n", 100.0 * st->over3);
    printf("EE > 5 px: %.2f%%\n", m->px5);
    printf("Fl (EE > 3 px and > 5%% of |gt|): %.2f%%\n", m->fl);
    if (in->occlusions || in->noc) {
        print_epe("EPE noc: ", m->epe_noc);
        printf(" over %ld pixels", m->scored_noc);
        print_epe("; occ: ", m->epe_occ);
        printf(" over %ld pixels (occlusions from %s)\n", m->scored_occ,
               in->occlusions ? in->occlusions : in->noc);
        printf("Fl noc: ");
        print_percent(m->fl_noc);
        printf("; occ: ");
        print_percent(m->fl_occ);
        printf("\n");
    }
    if (in->objmap) {
        printf("Fl bg: ");
        print_percent(m->fl_bg);
        printf("; fg: ");
        print_percent(m->fl_fg);
        printf("\n");
    }
    print_epe("EPE by speed |gt|: s0-10 ", m->s0_10);
    print_epe(", s10-40 ", m->s10_40);
    print_epe(", s40+ ", m->s40);
    printf("\n");
    if (in->occlusions) {
        print_epe("EPE by distance to occlusion: d0-10 ", m->d0_10);
        print_epe(", d10-60 ", m->d10_60);
        print_epe(", d60-140 ", m->d60_140);
        printf("\n");
    }
    if (e->sparsification) {
        const flow_sparsification_curve *sp = e->sparsification;
        printf("AUSE: %.4f px (%.2f%% of the EPE) over %d steps, confidence from %s\n",
               sp->ause, 100.0 * sp->ause_relative, sp->steps, in->confidence);
    }
    if (in->occlusion_estimate) {
        const flow_occlusion_scores *o = &e->occlusion;
        printf("occlusion estimate %s: precision ", in->occlusion_estimate);
        print_percent(100.0 * o->precision);
        printf(", recall ");
        print_percent(100.0 * o->recall);
        printf(", F1 ");
        if (isnan(o->f1))
            printf("-");
        else
            printf("%.4f", o->f1);
        printf(" (%ld true, %ld false positives, %ld missed)\n", o->true_pos, o->false_pos,
               o->false_neg);
    }
}

/* A CSV field: the value, or nothing where it is not defined. */
static void csv_field(double value)
{
    if (!isnan(value))
        printf("%.9g", value);
}

/* A count that is defined only with occlusion information. */
static void csv_count(long count, int defined)
{
    if (defined)
        printf("%ld", count);
}

static void print_csv(const flow_error_measures *m, const estimate_scores *e,
                      const error_inputs *in)
{
    const flow_error_stats *st = &m->all;
    printf("aae,aae_std,aee,aee_std,over1,over3,max_ee,scored,total,outside_mask,unknown_gt,"
           "unknown_est,px1,px3,px5,fl,epe_noc,epe_occ,scored_noc,scored_occ,fl_noc,fl_occ,"
           "fl_bg,fl_fg,s0_10,s10_40,s40,d0_10,d10_60,d60_140,invalid,ause,ause_relative,"
           "occ_precision,occ_recall,occ_f1\n");
    printf("%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%ld,%ld,%ld,%ld,%ld", st->aae, st->aae_std,
           st->aee, st->aee_std, st->over1, st->over3, st->max_ee, st->scored, st->total,
           st->outside_mask, st->unknown_gt, st->unknown_est);
    const double before_counts[] = {m->px1, m->px3, m->px5, m->fl, m->epe_noc, m->epe_occ};
    for (size_t k = 0; k < sizeof before_counts / sizeof *before_counts; k++) {
        printf(",");
        csv_field(before_counts[k]);
    }
    const int occlusion = in->occlusions || in->noc;
    printf(",");
    csv_count(m->scored_noc, occlusion);
    printf(",");
    csv_count(m->scored_occ, occlusion);
    const double after_counts[] = {m->fl_noc, m->fl_occ, m->fl_bg,  m->fl_fg,   m->s0_10,
                                   m->s10_40, m->s40,    m->d0_10, m->d10_60, m->d60_140};
    for (size_t k = 0; k < sizeof after_counts / sizeof *after_counts; k++) {
        printf(",");
        csv_field(after_counts[k]);
    }
    printf(",%ld", m->invalid);
    const flow_sparsification_curve *sp = e->sparsification;
    const double estimates[] = {sp ? sp->ause : NAN, sp ? sp->ause_relative : NAN,
                                e->occlusion.precision, e->occlusion.recall, e->occlusion.f1};
    for (size_t k = 0; k < sizeof estimates / sizeof *estimates; k++) {
        printf(",");
        csv_field(estimates[k]);
    }
    printf("\n");
}

/* The sparsification curve as text: a header, then per step the removed
 * share, the EPE left and the oracle's; NULL without memory. */
static char *curve_text(const flow_sparsification_curve *c)
{
    const size_t line = 96, size = line * ((size_t)c->steps + 1);
    char *text = malloc(size);
    if (!text)
        return NULL;
    size_t at = (size_t)snprintf(text, size, "removed epe oracle_epe\n");
    for (int k = 0; k < c->steps; k++)
        at += (size_t)snprintf(text + at, size - at, "%.6f %.9g %.9g\n", (double)k / c->steps,
                               c->curve[k], c->oracle[k]);
    return text;
}

/* The --aae and --aee files ("%.6f\n"; a NULL path: none) and the
 * --picture and --curve, one result: all appear or none (tools-common/outputs.h). */
static int write_outputs(const char *const path[2], const double value[2],
                         const char *picture_path, const flow_image *picture,
                         const char *curve_path, const flow_sparsification_curve *curve)
{
    output_group *g = NULL;
    int rc = output_group_create(&g);
    if (rc == CLI_EXIT_OK && curve_path) {
        char tmp[OUTPUT_NAME_MAX];
        char *text = curve_text(curve);
        if (!text) {
            cli_error("%s: out of memory for the curve", curve_path);
            rc = CLI_EXIT_COMPUTE;
        } else if ((rc = output_group_add(g, curve_path, tmp, sizeof tmp)) == CLI_EXIT_OK) {
            rc = tool_write_text(tmp, curve_path, text);
        }
        free(text);
    }
    for (int i = 0; i < 2 && rc == CLI_EXIT_OK; i++) {
        char tmp[OUTPUT_NAME_MAX], number[64];
        snprintf(number, sizeof number, "%.6f\n", value[i]);
        if (path[i] && (rc = output_group_add(g, path[i], tmp, sizeof tmp)) == CLI_EXIT_OK)
            rc = tool_write_text(tmp, path[i], number);
    }
    char tmp[OUTPUT_NAME_MAX];
    if (rc == CLI_EXIT_OK && picture_path &&
        (rc = output_group_add(g, picture_path, tmp, sizeof tmp)) == CLI_EXIT_OK) {
        const flow_status s = flow_image_write(tmp, picture);
        if (s != FLOW_OK)
            rc = output_report(s, tmp, picture_path);
    }
    if (rc == CLI_EXIT_OK)
        rc = output_group_commit(g);
    output_group_destroy(g);
    return rc;
}

/* The byte maps and the noc field of the regions, read and checked against
 * GT's size; each left NULL when not given.  Returns an exit code. */
static int read_regions(const error_inputs *in, const char *gt_path, const flow_field *gt,
                        flow_error_regions *r, flow_field *noc)
{
    const char *paths[4] = {in->mask, in->invalid, in->occlusions, in->objmap};
    unsigned char *map[4] = {NULL, NULL, NULL, NULL};
    int rc = CLI_EXIT_OK;
    for (int k = 0; k < 4 && !rc; k++)
        if (paths[k])
            rc = tool_read_mask(paths[k], gt_path, gt->width, gt->height, &map[k]);
    r->mask = map[0];
    r->invalid = map[1];
    r->occluded = map[2];
    r->foreground = map[3];
    if (rc || !in->noc)
        return rc;
    if ((rc = tool_read_field(in->noc, noc)))
        return rc;
    if (noc->width != gt->width || noc->height != gt->height) {
        cli_error("noc ground truth %s is %dx%d but the ground truth %s is %dx%d: sizes must "
                  "match",
                  in->noc, noc->width, noc->height, gt_path, gt->width, gt->height);
        return CLI_EXIT_IO;
    }
    r->noc = noc;
    return CLI_EXIT_OK;
}

/* The --confidence map as floats of GT's size (*out NULL when not given).
 * Returns an exit code. */
static int read_confidence(const char *path, const char *gt_path, const flow_field *gt,
                           float **out)
{
    *out = NULL;
    if (!path)
        return CLI_EXIT_OK;
    flow_image img;
    int rc = tool_read_image(path, &img);
    if (rc)
        return rc;
    if (img.width != gt->width || img.height != gt->height || img.channels != 1) {
        cli_error("confidence map %s is %dx%d with %d channels but the ground truth %s is "
                  "%dx%d: a confidence map is one gray channel of GT's size",
                  path, img.width, img.height, img.channels, gt_path, gt->width, gt->height);
        flow_image_free(&img);
        return CLI_EXIT_IO;
    }
    *out = img.data; /* the one plane, width * height floats */
    return CLI_EXIT_OK;
}

/* The estimated occlusion mask scored against the true one (the
 * --occlusions map, or the pixels known in GT but not in --noc) over the
 * pixels with known ground truth that the mask and the invalid map keep.
 * Returns an exit code. */
static int score_occlusion_estimate(const unsigned char *estimate, const flow_error_regions *r,
                                    const flow_field *gt, const flow_field *noc,
                                    const error_inputs *in, flow_occlusion_scores *out)
{
    const size_t n = (size_t)gt->width * gt->height;
    unsigned char *keep = malloc(n), *truth = r->occluded ? NULL : malloc(n);
    if (!keep || (!r->occluded && !truth)) {
        free(keep);
        free(truth);
        cli_error("%s: out of memory for the occlusion scores", in->occlusion_estimate);
        return CLI_EXIT_COMPUTE;
    }
    for (size_t i = 0; i < n; i++) {
        keep[i] = (!r->mask || r->mask[i]) && (!r->invalid || !r->invalid[i]) &&
                  !flow_is_unknown(gt->u[i], gt->v[i]);
        if (truth)
            truth[i] = keep[i] && flow_is_unknown(noc->u[i], noc->v[i]);
    }
    const flow_status s = flow_occlusion_score(estimate, r->occluded ? r->occluded : truth, keep,
                                               gt->width, gt->height, out);
    free(keep);
    free(truth);
    return s == FLOW_OK ? CLI_EXIT_OK : tool_fail(in->occlusion_estimate, s);
}

static void free_regions(flow_error_regions *r, flow_field *noc)
{
    free((void *)r->mask);
    free((void *)r->invalid);
    free((void *)r->occluded);
    free((void *)r->foreground);
    flow_field_free(noc);
}

/* "no pixel to score", each count beside the file it comes from. */
static void say_nothing_scored(const flow_error_measures *m, const error_inputs *in,
                               const char *est_path, const char *gt_path)
{
    const flow_error_stats *st = &m->all;
    char outside[4200] = "", invalid[4200] = "";
    if (in->mask)
        snprintf(outside, sizeof outside, "%ld are outside the mask %s, ", st->outside_mask,
                 in->mask);
    if (in->invalid)
        snprintf(invalid, sizeof invalid, "%ld invalid in %s, ", m->invalid, in->invalid);
    cli_error("no pixel to score: of the %ld pixels, %s%s%ld have unknown ground truth in %s "
              "and %ld an unknown estimate in %s",
              st->total, outside, invalid, st->unknown_gt, gt_path, st->unknown_est, est_path);
}

int cmd_error(int argc, char **argv)
{
    enum { OPT_AAE = 256, OPT_AEE, OPT_STEPS, OPT_CURVE };
    static const struct option opts[] = {{"mask", required_argument, NULL, 'm'},
                                         {"invalid", required_argument, NULL, 'i'},
                                         {"occlusions", required_argument, NULL, 'o'},
                                         {"noc", required_argument, NULL, 'n'},
                                         {"objmap", required_argument, NULL, 'b'},
                                         {"confidence", required_argument, NULL, 'C'},
                                         {"steps", required_argument, NULL, OPT_STEPS},
                                         {"curve", required_argument, NULL, OPT_CURVE},
                                         {"occlusion-estimate", required_argument, NULL, 'e'},
                                         {"csv", no_argument, NULL, 'c'},
                                         {"aae", required_argument, NULL, OPT_AAE},
                                         {"aee", required_argument, NULL, OPT_AEE},
                                         {"picture", required_argument, NULL, 'p'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    error_inputs in = {0};
    const char *aae_path = NULL, *aee_path = NULL, *picture_path = NULL, *curve_path = NULL;
    int csv = 0, steps = 100, c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":m:i:o:n:b:p:C:e:ch", opts, NULL)) != -1) {
        switch (c) {
        case 'm': in.mask = optarg; break;
        case 'i': in.invalid = optarg; break;
        case 'o': in.occlusions = optarg; break;
        case 'n': in.noc = optarg; break;
        case 'b': in.objmap = optarg; break;
        case 'C': in.confidence = optarg; break;
        case 'e': in.occlusion_estimate = optarg; break;
        case OPT_STEPS:
            if (cli_parse_int("error: --steps", optarg, 1, FLOW_SPARSIFICATION_STEPS_MAX,
                              &steps))
                return CLI_EXIT_USAGE;
            break;
        case OPT_CURVE: curve_path = optarg; break;
        case 'c': csv = 1; break;
        case OPT_AAE: aae_path = optarg; break;
        case OPT_AEE: aee_path = optarg; break;
        case 'p': picture_path = optarg; break;
        case 'h': help(); return CLI_EXIT_OK;
        default: return tool_bad_option(c, argv, usage_line, "error");
        }
    }
    if (in.occlusions && in.noc)
        return cli_usage_error(usage_line, "flow-tool error",
                               "error: --occlusions and --noc both say which pixels are "
                               "occluded: give one");
    if (in.occlusion_estimate && !in.occlusions && !in.noc)
        return cli_usage_error(usage_line, "flow-tool error",
                               "error: --occlusion-estimate is scored against the true "
                               "occlusions: give --occlusions MAP or --noc FLOW");
    if (curve_path && !in.confidence)
        return cli_usage_error(usage_line, "flow-tool error",
                               "error: --curve writes the sparsification by a confidence map: "
                               "give --confidence MAP");
    int rc = tool_check_args(argc, 2, usage_line, "error");
    if (rc)
        return rc;
    const char *est_path = argv[optind], *gt_path = argv[optind + 1];
    flow_field est, gt, noc = {0};
    flow_error_regions regions = {0};
    if ((rc = tool_read_field(est_path, &est)))
        return rc;
    if ((rc = tool_read_field(gt_path, &gt))) {
        flow_field_free(&est);
        return rc;
    }
    flow_error_measures m;
    memset(&m, 0, sizeof m);
    estimate_scores scores = {.sparsification = NULL,
                              .occlusion = {.precision = NAN, .recall = NAN, .f1 = NAN}};
    flow_image picture = {0};
    float *confidence = NULL;
    unsigned char *occlusion_estimate = NULL;
    if (est.width != gt.width || est.height != gt.height) {
        cli_error("estimate %s is %dx%d but the ground truth %s is %dx%d: sizes must match",
                  est_path, est.width, est.height, gt_path, gt.width, gt.height);
        rc = CLI_EXIT_IO;
    } else if ((rc = read_regions(&in, gt_path, &gt, &regions, &noc)) == 0 &&
               (rc = read_confidence(in.confidence, gt_path, &gt, &confidence)) == 0 &&
               (!in.occlusion_estimate ||
                (rc = tool_read_mask(in.occlusion_estimate, gt_path, gt.width, gt.height,
                                     &occlusion_estimate)) == 0)) {
        flow_status s = flow_error_measure(&est, &gt, &regions, &m);
        if (s != FLOW_OK) {
            rc = tool_fail(est_path, s);
        } else if (m.all.scored == 0) {
            say_nothing_scored(&m, &in, est_path, gt_path);
            rc = CLI_EXIT_IO;
        } else if (picture_path &&
                   (s = flow_render_kitti_error(&est, &gt, &regions, &picture)) != FLOW_OK) {
            rc = tool_fail(est_path, s);
        } else if (confidence) {
            if (!(scores.sparsification = malloc(sizeof *scores.sparsification))) {
                cli_error("%s: out of memory for the sparsification", in.confidence);
                rc = CLI_EXIT_COMPUTE;
            } else if ((s = flow_sparsification(&est, &gt, &regions, confidence, steps,
                                                scores.sparsification)) != FLOW_OK) {
                rc = tool_fail(in.confidence, s);
            }
        }
        if (rc == 0 && occlusion_estimate)
            rc = score_occlusion_estimate(occlusion_estimate, &regions, &gt, &noc, &in,
                                          &scores.occlusion);
    }
    free_regions(&regions, &noc);
    free(confidence);
    free(occlusion_estimate);
    flow_field_free(&est);
    flow_field_free(&gt);
    if (!rc) {
        if (csv)
            print_csv(&m, &scores, &in);
        else
            print_human(&m, &scores, &in);
        const char *const paths[2] = {aae_path, aee_path};
        const double values[2] = {m.all.aae, m.all.aee};
        rc = write_outputs(paths, values, picture_path, &picture, curve_path,
                           scores.sparsification);
    }
    flow_image_free(&picture);
    free(scores.sparsification);
    return rc;
}
