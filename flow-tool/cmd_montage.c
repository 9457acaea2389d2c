/* cmd_montage.c -- `flow-tool montage EST OUT.png`: one figure of an
 * estimate, its panels aligned and labelled (seed 001 figure 5.9).  With
 * ground truth: its colour coding | the estimate's, on the same scale | the
 * endpoint-error map with "AEE ... px  AAE ... deg" written on it (the
 * figures of `flow-tool error`, from the same library call) | the
 * estimate's vectors.  A frame goes first and carries the vectors and an
 * occlusion mask; a confidence map follows the mask (both as `flow-tool
 * occlusion` and `confidence` draw them); more pictures (flow-track's
 * trails) go last.  Everything is libflow's
 * drawing (flow/render.h): no ImageMagick, no font file. */
#include "tool.h"
#include "cli.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_EXTRA = 8, MAX_PANELS = MAX_EXTRA + 8, LABEL_MAX = 512 };

typedef struct montage_opts {
    const char *gt, *mask, *frame, *title, *label;
    const char *occlusion, *confidence; /* maps of EST's size */
    const char *extra[MAX_EXTRA]; /* --panel arguments, [LABEL=]PICTURE */
    int nextra;
    double max_radius, max_error; /* 0: automatic */
    int columns, verbose, kitti_error;
} montage_opts;

/* What the panels are drawn from, and the panels. */
typedef struct montage_work {
    flow_field est, gt;
    flow_image frame;
    unsigned char *mask;
    flow_image occlusion, confidence; /* values in [0, 1] (tool_read_map) */
    flow_image pic[MAX_PANELS];
    char label[MAX_PANELS][LABEL_MAX];
    int n;
} montage_work;

static const char usage_line[] =
    "flow-tool montage [--gt GT [--mask MASK] [--kitti-error]] [--frame FRAME] "
    "[--occlusion MASK] [--confidence MAP] [--panel [LABEL=]PICTURE]... "
    "[--title TEXT] [--label TEXT] EST OUT.png";

static void help(void)
{
    printf("usage: %s\n"
           "\n"
           "Lays out labelled pictures of the flow EST side by side in one PNG, on\n"
           "white, drawn by flow-tool itself (no ImageMagick), in this order:\n"
           "  frame          with --frame: the frame of the pair;\n"
           "  ground truth   with --gt: its colour coding, labelled with the scale\n"
           "                 (\"ground truth, max 4.62 px\"), the colour wheel in its\n"
           "                 top-right corner;\n"
           "  LABEL          EST's colour coding on the same scale (the wheel in its\n"
           "                 corner without --gt); where a flow is longer than the\n"
           "                 scale (--max) its colours are darker, and a note on\n"
           "                 its panel says so;\n"
           "  EPE            with --gt: the endpoint error of every pixel, black (0)\n"
           "                 through red and yellow to white (the largest error, or\n"
           "                 --error-max), pixels not scored blue-grey; labelled\n"
           "                 with its scale, its colour bar in the top-right corner\n"
           "                 and, written on it, \"AEE 0.214 px  AAE 3.41 deg\": the\n"
           "                 averages of `flow-tool error EST GT`;\n"
           "  KITTI error    with --kitti-error: KITTI's error picture (as flow-tool\n"
           "                 error --picture draws it: min(EE / 3, 20 EE / |gt|) on\n"
           "                 the devkit's log colours, black where not scored),\n"
           "                 labelled with Fl, the share of pixels with EE > 3 px\n"
           "                 and > 5%% of |gt|;\n"
           "  LABEL vectors  EST's arrows (as flow-tool vectors draws them) over the\n"
           "                 frame, or on white without --frame, scaled so that the\n"
           "                 colour scale's length is 0.9 grid step, with a\n"
           "                 reference arrow and the grid step in the corner;\n"
           "  occlusion      with --occlusion: the mask over the frame as flow-tool\n"
           "                 occlusion draws it (the frame grey at half brightness,\n"
           "                 occluded pixels red; mid-grey without --frame),\n"
           "                 labelled with the share of occluded pixels;\n"
           "  confidence     with --confidence: the map in grey, black 0 to white 1,\n"
           "                 its key in the top-right corner, as flow-tool\n"
           "                 confidence draws it, labelled with its mean;\n"
           "  then each --panel picture.\n"
           "Panels are centred in equal cells with their label above them, row by\n"
           "row, a shorter last row centred; the title above all; text is flow-tool's own bitmap font, sized to the\n"
           "panels.\n"
           "\n"
           "Options:\n"
           "  -g, --gt GT         ground truth (EST's size): adds its colour coding and\n"
           "                      the error map, and sets the colour scale\n"
           "  -m, --mask MASK     score only where MASK is nonzero (GT's size; needs\n"
           "                      --gt), as flow-tool error --mask\n"
           "  -k, --kitti-error   add KITTI's error picture beside the EPE map (needs\n"
           "                      --gt)\n"
           "  -f, --frame FRAME   the frame of the pair (EST's size): the first panel,\n"
           "                      and the background of the vectors\n"
           "  -O, --occlusion MASK  an occlusion mask of EST's size, nonzero = occluded:\n"
           "                      flow-compute --occlusion's, or a ground truth's such\n"
           "                      as Sintel's occlusions/ pictures\n"
           "  -C, --confidence MAP  a confidence map of EST's size, values in [0, 1]:\n"
           "                      flow-compute --confidence's .pfm or 16-bit .png\n"
           "  -p, --panel PICTURE one more panel, any size, labelled with the file's\n"
           "                      name, or LABEL with LABEL=PICTURE; up to %d, in order\n"
           "  -t, --title TEXT    a title above the panels [default: none]\n"
           "  -l, --label TEXT    what EST is, e.g. its method [default: EST's file\n"
           "                      name]\n"
           "  -M, --max R         the colour scale in pixels [default: the largest\n"
           "                      known length in GT, or in EST without --gt]\n"
           "  -e, --error-max E   the error map's scale in pixels (needs --gt), so that\n"
           "                      maps of several estimates compare [default: the\n"
           "                      largest endpoint error]\n"
           "  -c, --columns N     panels per row, 1..64 [default: one row of up to 4\n"
           "                      panels, else half the panels per row]\n"
           "  -v, --verbose       print the scales, the errors, the notes, the occluded\n"
           "                      share, the mean confidence and the layout\n"
           "  -h, --help          this help\n"
           "\n"
           "Text is printable ASCII (other bytes are drawn as '?').  OUT is written by\n"
           "extension (.png, .ppm).\n"
           "\n"
           "Exit status: 0 ok, 1 usage, 2 input/output (also: GT, a mask, FRAME or\n"
           "MAP of another size than EST or of more than one channel where one is\n"
           "expected, NaN in EST, nothing left to score), 3 out of memory.\n",
           usage_line, MAX_EXTRA);
}

static int parse(int argc, char **argv, montage_opts *o)
{
    static const struct option opts[] = {
        {"gt", required_argument, NULL, 'g'},        {"mask", required_argument, NULL, 'm'},
        {"frame", required_argument, NULL, 'f'},     {"panel", required_argument, NULL, 'p'},
        {"title", required_argument, NULL, 't'},     {"label", required_argument, NULL, 'l'},
        {"max", required_argument, NULL, 'M'},       {"error-max", required_argument, NULL, 'e'},
        {"columns", required_argument, NULL, 'c'},   {"verbose", no_argument, NULL, 'v'},
        {"kitti-error", no_argument, NULL, 'k'},
        {"occlusion", required_argument, NULL, 'O'}, {"confidence", required_argument, NULL, 'C'},
        {"help", no_argument, NULL, 'h'},            {NULL, 0, NULL, 0}};
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":g:m:f:p:t:l:M:e:c:O:C:kvh", opts, NULL)) != -1) {
        switch (c) {
        case 'g': o->gt = optarg; break;
        case 'm': o->mask = optarg; break;
        case 'f': o->frame = optarg; break;
        case 'O': o->occlusion = optarg; break;
        case 'C': o->confidence = optarg; break;
        case 'p':
            if (o->nextra == MAX_EXTRA)
                return cli_usage_error(usage_line, "flow-tool montage",
                                       "montage: more than %d --panel pictures", MAX_EXTRA);
            o->extra[o->nextra++] = optarg;
            break;
        case 't': o->title = optarg; break;
        case 'l': o->label = optarg; break;
        case 'M':
            if (cli_parse_double("montage: --max", optarg, 1e-6, 1e9, &o->max_radius))
                return CLI_EXIT_USAGE;
            break;
        case 'e':
            if (cli_parse_double("montage: --error-max", optarg, 1e-6, 1e9, &o->max_error))
                return CLI_EXIT_USAGE;
            break;
        case 'c':
            if (cli_parse_int("montage: --columns", optarg, 1, 64, &o->columns))
                return CLI_EXIT_USAGE;
            break;
        case 'v': o->verbose = 1; break;
        case 'k': o->kitti_error = 1; break;
        case 'h': help(); return -1;
        default: return tool_bad_option(c, argv, usage_line, "montage");
        }
    }
    int rc = tool_check_args(argc, 2, usage_line, "montage");
    if (rc)
        return rc;
    if (!o->gt && (o->mask || o->max_error > 0 || o->kitti_error))
        return cli_usage_error(usage_line, "flow-tool montage",
                               "montage: %s needs --gt (the errors are against ground truth)",
                               o->mask ? "--mask" : o->kitti_error ? "--kitti-error"
                                                                   : "--error-max");
    return CLI_EXIT_OK;
}

/* The file name of path without its directory (and, with strip, without
 * its extension), into buf. */
static void base_name(const char *path, int strip, char *buf, size_t size)
{
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    const char *dot = strip ? strrchr(name, '.') : NULL;
    const int len = dot && dot != name ? (int)(dot - name) : (int)strlen(name);
    snprintf(buf, size, "%.*s", len, name);
}

/* Reads EST, GT, the mask and the frame, each checked against EST's size. */
static int read_inputs(const montage_opts *o, const char *est_path, montage_work *w)
{
    int rc = tool_read_field(est_path, &w->est);
    if (!rc && o->gt && !(rc = tool_read_field(o->gt, &w->gt)) &&
        (w->gt.width != w->est.width || w->gt.height != w->est.height)) {
        cli_error("ground truth %s is %dx%d but the estimate %s is %dx%d: sizes must match",
                  o->gt, w->gt.width, w->gt.height, est_path, w->est.width, w->est.height);
        rc = CLI_EXIT_IO;
    }
    if (!rc && o->mask)
        rc = tool_read_mask(o->mask, o->gt, w->gt.width, w->gt.height, &w->mask);
    if (!rc && o->frame && !(rc = tool_read_image(o->frame, &w->frame)) &&
        (w->frame.width != w->est.width || w->frame.height != w->est.height)) {
        cli_error("frame %s is %dx%d but the estimate %s is %dx%d: sizes must match", o->frame,
                  w->frame.width, w->frame.height, est_path, w->est.width, w->est.height);
        rc = CLI_EXIT_IO;
    }
    if (!rc && o->occlusion)
        rc = tool_read_map(o->occlusion, "occlusion mask", w->est.width, w->est.height,
                           &w->occlusion);
    if (!rc && o->confidence)
        rc = tool_read_map(o->confidence, "confidence map", w->est.width, w->est.height,
                           &w->confidence);
    return rc;
}

/* The next panel: its picture (to fill), its label printf-style (cut at
 * LABEL_MAX bytes). */
static flow_image *add_panel(montage_work *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->label[w->n], LABEL_MAX, fmt, ap);
    va_end(ap);
    return &w->pic[w->n++];
}

/* Text on a white plate at the bottom left of a picture, as large as the
 * labels when it fits. */
static flow_status caption(flow_image *pic, const char *text)
{
    int f = flow_text_factor(pic->width), tw;
    flow_text_size(text, f, &tw, NULL);
    while (f > 1 && tw + 4 * f > pic->width)
        flow_text_size(text, --f, &tw, NULL);
    static const float black[3] = {0, 0, 0}, white[3] = {255, 255, 255};
    const int plate_h = (FLOW_GLYPH_HEIGHT + 2) * f;
    return flow_render_label(pic, f, pic->height - plate_h - f, text, f, black, white);
}

/* What the darker colours of an estimate mean: the coding darkens the
 * vectors longer than the scale (the ground truth's largest), which would
 * otherwise read as errors.  -v prints the note with the panel's label. */
static flow_status darker_note(flow_image *pic, const char *scale, const char *label, int verbose)
{
    char text[96];
    snprintf(text, sizeof text, "darker: longer than %s", scale + 4); /* less "max " */
    if (verbose)
        printf("%s: %s\n", label, text);
    return caption(pic, text);
}

/* The error panel: the map with its caption written at the bottom left. */
static int error_panel(const montage_opts *o, const char *est_path, montage_work *w)
{
    flow_error_stats st;
    flow_status s = flow_error_compute(&w->est, &w->gt, w->mask, &st);
    if (s != FLOW_OK)
        return tool_fail(est_path, s);
    if (st.scored == 0) { /* as flow-tool error says it */
        char outside[LABEL_MAX + 64] = "";
        if (o->mask)
            snprintf(outside, sizeof outside, "%ld are outside the mask %s, ", st.outside_mask,
                     o->mask);
        cli_error("no pixel to score: of the %ld pixels, %s%ld have unknown ground truth in %s "
                  "and %ld an unknown estimate in %s",
                  st.total, outside, st.unknown_gt, o->gt, st.unknown_est, est_path);
        return CLI_EXIT_IO;
    }
    double scale;
    flow_image *map = &w->pic[w->n];
    if ((s = flow_render_error_map(&w->est, &w->gt, w->mask, o->max_error, map, &scale)))
        return tool_fail(est_path, s);
    if ((s = flow_render_error_bar(map, scale)) != FLOW_OK && s != FLOW_ERR_SIZE)
        return tool_fail(est_path, s); /* too small a map: its label says the scale */
    char text[128], range[64];
    flow_error_caption(&st, text, sizeof text);
    flow_scale_text(scale, range, sizeof range);
    add_panel(w, "EPE, %s", range);
    if ((s = caption(map, text)))
        return tool_fail(est_path, s);
    if (o->verbose)
        printf("%s\nerror scale: %.6g px\n", text, scale);
    return CLI_EXIT_OK;
}

/* KITTI's error picture, labelled with Fl (error_panel has checked that
 * something is scored). */
static int kitti_error_panel(const char *est_path, montage_work *w)
{
    const flow_error_regions regions = {.mask = w->mask};
    flow_error_measures m;
    flow_status s = flow_error_measure(&w->est, &w->gt, &regions, &m);
    if (s == FLOW_OK)
        s = flow_render_kitti_error(&w->est, &w->gt, &regions,
                                    add_panel(w, "KITTI error, Fl %.2f%%", m.fl));
    return s == FLOW_OK ? CLI_EXIT_OK : tool_fail(est_path, s);
}

/* EST's arrows over the frame, or on white. */
static int vectors_panel(const char *est_path, double R, const char *label, montage_work *w)
{
    flow_image *img = add_panel(w, "%s vectors", label);
    flow_vector_style style = flow_vector_defaults(w->frame.data ? FLOW_BACKDROP_FRAME
                                                                 : FLOW_BACKDROP_WHITE);
    style.max_radius = R;
    flow_status s;
    if (w->frame.data) {
        s = flow_render_zoom_rgb(&w->frame, 1, img);
    } else if ((s = flow_image_alloc(img, w->est.width, w->est.height, 3)) == FLOW_OK) {
        for (size_t i = 0; i < 3 * (size_t)img->width * img->height; i++)
            img->data[i] = 255.0f;
    }
    flow_vector_style used;
    if (s == FLOW_OK)
        s = flow_render_vectors(&w->est, &style, img, &used);
    if (s == FLOW_OK && (s = flow_render_vector_key(img, &used, 1)) == FLOW_ERR_SIZE)
        s = FLOW_OK; /* too small a picture for the key: the arrows alone */
    return s == FLOW_OK ? CLI_EXIT_OK : tool_fail(est_path, s);
}

/* The occlusion mask over the frame, or over mid-grey (a white frame at
 * half brightness) without one. */
static int occlusion_panel(const char *mask_path, int verbose, montage_work *w)
{
    const size_t n = (size_t)w->est.width * w->est.height;
    size_t occluded = 0;
    for (size_t i = 0; i < n; i++)
        occluded += w->occlusion.data[i] != 0.0f;
    flow_image white = {0};
    const flow_image *under = &w->frame;
    flow_status s = FLOW_OK;
    if (!w->frame.data) {
        s = flow_image_alloc(&white, w->est.width, w->est.height, 1);
        for (size_t i = 0; s == FLOW_OK && i < n; i++)
            white.data[i] = 255.0f;
        under = &white;
    }
    if (s == FLOW_OK)
        s = flow_render_occlusion(under, w->occlusion.data,
                                  add_panel(w, "occlusion, %.1f%% of pixels",
                                            100.0 * (double)occluded / (double)n));
    flow_image_free(&white);
    if (s == FLOW_OK && verbose)
        printf("occlusion: %zu of %zu pixels (%.1f%%)\n", occluded, n,
               100.0 * (double)occluded / (double)n);
    return s == FLOW_OK ? CLI_EXIT_OK : tool_fail(mask_path, s);
}

/* The confidence map in grey with its key (left out where it does not fit),
 * labelled with its mean. */
static int confidence_panel(const char *map_path, int verbose, montage_work *w)
{
    const size_t n = (size_t)w->est.width * w->est.height;
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += w->confidence.data[i];
    if (verbose)
        printf("confidence: mean %.3f\n", sum / (double)n);
    flow_image *pic = add_panel(w, "confidence, mean %.3f", sum / (double)n);
    flow_status s = flow_render_confidence(w->confidence.data, w->est.width, w->est.height, 0,
                                           pic);
    if (s == FLOW_OK && (s = flow_render_confidence_key(pic, 0)) == FLOW_ERR_SIZE)
        s = FLOW_OK;
    return s == FLOW_OK ? CLI_EXIT_OK : tool_fail(map_path, s);
}

/* A --panel argument: LABEL=PICTURE, or PICTURE labelled by its name. */
static int extra_panel(const char *arg, montage_work *w)
{
    const char *eq = strchr(arg, '=');
    const char *path = eq ? eq + 1 : arg;
    if (!*path)
        return cli_usage_error(usage_line, "flow-tool montage",
                               "montage: --panel '%s' names no picture", arg);
    char name[LABEL_MAX];
    if (eq)
        snprintf(name, sizeof name, "%.*s", (int)(eq - arg), arg);
    else
        base_name(path, 1, name, sizeof name);
    return tool_read_image(path, add_panel(w, "%s", name));
}

static int build_panels(const montage_opts *o, const char *est_path, montage_work *w)
{
    char label[LABEL_MAX], scale[64];
    if (o->label)
        snprintf(label, sizeof label, "%s", o->label);
    else
        base_name(est_path, 0, label, sizeof label);
    double R = o->max_radius > 0 ? o->max_radius : flow_max_radius(o->gt ? &w->gt : &w->est);
    R = R > 0 ? R : 1.0; /* zero flow: white, as flow-tool color draws it */
    flow_scale_text(R, scale, sizeof scale);
    if (o->verbose)
        printf("colour scale: %.6g px\n", R);
    flow_status s;
    if (w->frame.data && (s = flow_render_zoom_rgb(&w->frame, 1, add_panel(w, "frame"))))
        return tool_fail(o->frame, s);
    if (o->gt && (s = flow_render_color(&w->gt, R, add_panel(w, "ground truth, %s", scale), NULL)))
        return tool_fail(o->gt, s);
    if (o->gt && (s = flow_render_wheel_inset(&w->pic[w->n - 1])) && s != FLOW_ERR_SIZE)
        return tool_fail(o->gt, s); /* too small a picture: the wheel is left out */
    if (o->gt && flow_max_radius(&w->gt) > R
        && (s = darker_note(&w->pic[w->n - 1], scale, "ground truth", o->verbose)))
        return tool_fail(o->gt, s);
    flow_image *est_pic = add_panel(w, "%s, %s", label, scale);
    if ((s = flow_render_color(&w->est, R, est_pic, NULL)))
        return tool_fail(est_path, s);
    if (!o->gt && (s = flow_render_wheel_inset(est_pic)) && s != FLOW_ERR_SIZE)
        return tool_fail(est_path, s);
    if (flow_max_radius(&w->est) > R && (s = darker_note(est_pic, scale, label, o->verbose)))
        return tool_fail(est_path, s);
    int rc = CLI_EXIT_OK;
    if (o->gt && (rc = error_panel(o, est_path, w)))
        return rc;
    if (o->kitti_error && (rc = kitti_error_panel(est_path, w)))
        return rc;
    if ((rc = vectors_panel(est_path, R, label, w)))
        return rc;
    if (o->occlusion && (rc = occlusion_panel(o->occlusion, o->verbose, w)))
        return rc;
    if (o->confidence && (rc = confidence_panel(o->confidence, o->verbose, w)))
        return rc;
    for (int i = 0; i < o->nextra && !rc; i++)
        rc = extra_panel(o->extra[i], w);
    return rc;
}

int cmd_montage(int argc, char **argv)
{
    montage_opts o;
    memset(&o, 0, sizeof o);
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc < 0 ? CLI_EXIT_OK : rc;
    const char *est_path = argv[optind], *out_path = argv[optind + 1];
    montage_work *w = calloc(1, sizeof *w);
    if (!w) {
        cli_error("montage: out of memory");
        return CLI_EXIT_COMPUTE;
    }
    if (!(rc = read_inputs(&o, est_path, w)) && !(rc = build_panels(&o, est_path, w))) {
        flow_panel panels[MAX_PANELS];
        for (int i = 0; i < w->n; i++)
            panels[i].image = &w->pic[i], panels[i].label = w->label[i];
        flow_image out;
        flow_montage_layout l;
        flow_status s = flow_render_montage(panels, w->n, o.columns, o.title, &out, &l);
        if (s != FLOW_OK) {
            rc = tool_fail(out_path, s);
        } else {
            if (o.verbose)
                printf("montage: %dx%d, %d panels in %d columns\n", l.width, l.height, w->n,
                       l.columns);
            rc = tool_write_image(out_path, &out);
            flow_image_free(&out);
        }
    }
    for (int i = 0; i < w->n; i++)
        flow_image_free(&w->pic[i]);
    flow_image_free(&w->frame);
    flow_image_free(&w->occlusion);
    flow_image_free(&w->confidence);
    flow_field_free(&w->est);
    flow_field_free(&w->gt);
    free(w->mask);
    free(w);
    return rc;
}
