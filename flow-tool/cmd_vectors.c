/* cmd_vectors.c -- vector (quiver) plots: `flow-tool vectors` (arrows on
 * white or over a frame of the sequence) and `flow-tool mix` (arrows over
 * the colour coding, seed 001 figure 5.10).  The arrows are libflow's
 * (flow_render_vectors with flow_vector_defaults), the renderer that
 * flow-compute --vectors and flow-tool montage use too, so that the same
 * flow gives the same arrows whichever tool draws them. */
#include "tool.h"
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

typedef struct vec_opts {
    flow_vector_style style; /* step and scale 0: automatic */
    int zoom;                /* output enlargement */
    int have_rgb;            /* an arrow colour given on the command line */
    int verbose;
    int key; /* the reference arrow and the scale note (flow_render_vector_key) */
} vec_opts;

/* Draws f's arrows (read from `in`) over canvas (RGB or gray, f's size)
 * into out. */
static int plot(const flow_field *f, const flow_image *canvas, const vec_opts *o, const char *in,
                const char *out)
{
    flow_image img;
    flow_vector_style used;
    flow_status s = flow_render_zoom_rgb(canvas, o->zoom, &img);
    if (s == FLOW_OK) {
        s = flow_render_vectors(f, &o->style, &img, &used);
        if (s != FLOW_OK)
            flow_image_free(&img);
    }
    if (s == FLOW_OK && o->key) {
        s = flow_render_vector_key(&img, &used, o->zoom);
        if (s == FLOW_ERR_SIZE) /* a picture too small for it: the plot alone */
            s = FLOW_OK;
        if (s != FLOW_OK)
            flow_image_free(&img);
    }
    if (s != FLOW_OK)
        return tool_fail(in, s);
    if (o->verbose)
        printf("step: %d px\nscale: %.6g (arrow length per pixel of motion)\n", used.step,
               used.scale);
    int rc = tool_write_image(out, &img);
    flow_image_free(&img);
    return rc;
}

/* Parses the options common to vectors and mix; returns -1 when the option
 * is not one of them, else an exit code (0: parsed). */
static int common_option(int c, vec_opts *o, const char *cmd)
{
    char what[64];
    int rgb[3];
    switch (c) {
    case 's':
        if (strcmp(optarg, "auto") == 0) {
            o->style.step = 0;
            return 0;
        }
        snprintf(what, sizeof what, "%s: --step", cmd);
        return cli_parse_int(what, optarg, 1, 4096, &o->style.step) ? CLI_EXIT_USAGE : 0;
    case 'k':
        if (strcmp(optarg, "auto") == 0) {
            o->style.scale = 0;
            return 0;
        }
        snprintf(what, sizeof what, "%s: --scale", cmd);
        return cli_parse_double(what, optarg, 1e-6, 1e6, &o->style.scale) ? CLI_EXIT_USAGE : 0;
    case 'm':
        snprintf(what, sizeof what, "%s: --max", cmd);
        return cli_parse_double(what, optarg, 1e-6, 1e9, &o->style.max_radius) ? CLI_EXIT_USAGE
                                                                                : 0;
    case 'z':
        snprintf(what, sizeof what, "%s: --zoom", cmd);
        return cli_parse_int(what, optarg, 1, 16, &o->zoom) ? CLI_EXIT_USAGE : 0;
    case 'c':
        snprintf(what, sizeof what, "%s: --arrow-color", cmd);
        if (cli_parse_int_list(what, optarg, 3, 0, 255, rgb))
            return CLI_EXIT_USAGE;
        for (int b = 0; b < 3; b++)
            o->style.rgb[b] = (float)rgb[b];
        o->have_rgb = 1;
        return 0;
    case 'd': return 0; /* --direct: what every plot is now */
    case 'v': o->verbose = 1; return 0;
    case 'K': o->key = 0; return 0;
    default: return -1;
    }
}

#define COMMON_HELP                                                                          \
    "  -s, --step N|auto     one arrow every N pixels, 1..4096; auto: the smaller\n"        \
    "                        side / 18, at least 8 (22 for 584x388) [default: auto]\n"     \
    "  -k, --scale S|auto    arrow length = S times the motion; auto: the longest\n"       \
    "                        arrow (or --max R) is 0.9 step long\n"                        \
    "                        [default: auto]\n"                                           \
    "  -z, --zoom Z          enlarge the picture Z times, 1..16 [default: 1]\n"            \
    "  -c, --arrow-color R,G,B  arrow colour, 0..255 each\n"                              \
    "                        [default: %s]\n"                                              \
    "  -d, --direct          no effect (flow-tool always draws the arrows itself);\n"     \
    "                        accepted for older scripts\n"                                 \
    "  -K, --no-key          no key: without it, the bottom-left corner holds a\n"       \
    "                        reference arrow of a round motion and the note \"2 px,\n"   \
    "                        one per 22 px\" (its length, the grid step), when the\n"     \
    "                        picture has room for them\n"                               \
    "  -v, --verbose         print the step and scale used\n"                              \
    "  -h, --help            this help\n"                                                  \
    "\n"                                                                                   \
    "Arrows have filled heads and lines that thicken with the step, so that a\n"          \
    "plot reads alike at any size; over a picture they are outlined in black\n"           \
    "or white, whichever contrasts with their colour.  flow-compute --vectors\n"          \
    "and flow-tool montage draw the same arrows.  Unknown vectors get none.\n"            \
    "OUT is written by extension (.png, .ppm, .pgm).\n"                                    \
    "\n"                                                                                   \
    "Exit status: 0 ok, 1 usage, 2 input/output (also: frame and flow of\n"                \
    "different sizes), 3 out of memory.\n"

#define COMMON_LONG                                                                          \
    {"step", required_argument, NULL, 's'}, {"scale", required_argument, NULL, 'k'},            \
        {"max", required_argument, NULL, 'm'}, {"zoom", required_argument, NULL, 'z'},          \
        {"arrow-color", required_argument, NULL, 'c'}, {"direct", no_argument, NULL, 'd'},      \
        {"verbose", no_argument, NULL, 'v'}, {"no-key", no_argument, NULL, 'K'},                \
        {"help", no_argument, NULL, 'h'}

static const struct option vectors_long[] = {
    COMMON_LONG, {"background", required_argument, NULL, 'b'}, {NULL, 0, NULL, 0}};
static const struct option mix_long[] = {COMMON_LONG, {NULL, 0, NULL, 0}};

static const char vectors_usage[] =
    "flow-tool vectors [--step N] [--scale S | --max R] [--background FRAME] IN OUT.png";

static void vectors_help(void)
{
    printf("usage: %s\n"
           "\n"
           "Draws a vector (quiver) plot of a flow file: an arrow from the centre of\n"
           "every step x step cell to where its pixel moves, on white or over a\n"
           "frame of the sequence.\n"
           "\n"
           "Options:\n"
           "  -b, --background FRAME  draw over this image (the flow's size)\n"
           "                        [default: white]\n"
           "  -m, --max R           with --scale auto, draw a motion of R pixels 0.9\n"
           "                        step long (the ground truth's largest, so that\n"
           "                        estimates compare with it) [default: the longest\n"
           "                        arrow's]\n" COMMON_HELP,
           vectors_usage, "0,0,0 on white, 255,255,0 over a frame");
}

int cmd_vectors(int argc, char **argv)
{
    vec_opts o = {flow_vector_defaults(FLOW_BACKDROP_WHITE), 1, 0, 0, 1};
    const char *background = NULL;
    int c, rc;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":s:k:m:z:c:dvKb:h", vectors_long, NULL)) != -1) {
        if ((rc = common_option(c, &o, "vectors")) >= 0) {
            if (rc)
                return rc;
        } else if (c == 'b') {
            background = optarg;
        } else if (c == 'h') {
            vectors_help();
            return CLI_EXIT_OK;
        } else {
            return tool_bad_option(c, argv, vectors_usage, "vectors");
        }
    }
    if ((rc = tool_check_args(argc, 2, vectors_usage, "vectors")))
        return rc;
    if (o.style.scale > 0 && o.style.max_radius > 0)
        return cli_usage_error(vectors_usage, "flow-tool vectors",
                               "vectors: --max sets the length of the arrows with --scale auto; "
                               "give one of --scale and --max");
    const char *in = argv[optind], *out = argv[optind + 1];
    flow_field f;
    flow_image canvas;
    if ((rc = tool_read_field(in, &f)))
        return rc;
    if (background) {
        if ((rc = tool_read_image(background, &canvas))) {
            flow_field_free(&f);
            return rc;
        }
        if (canvas.width != f.width || canvas.height != f.height) {
            cli_error("background %s is %dx%d but the flow %s is %dx%d: sizes must match",
                      background, canvas.width, canvas.height, in, f.width, f.height);
            flow_image_free(&canvas);
            flow_field_free(&f);
            return CLI_EXIT_IO;
        }
        const flow_vector_style frame = flow_vector_defaults(FLOW_BACKDROP_FRAME);
        o.style.outline = frame.outline;
        if (!o.have_rgb)
            memcpy(o.style.rgb, frame.rgb, sizeof o.style.rgb);
    } else {
        flow_status s = flow_image_alloc(&canvas, f.width, f.height, 1);
        if (s != FLOW_OK) {
            flow_field_free(&f);
            return tool_fail(in, s);
        }
        for (size_t i = 0; i < (size_t)f.width * f.height; i++)
            canvas.data[i] = 255.0f;
    }
    rc = plot(&f, &canvas, &o, in, out);
    flow_image_free(&canvas);
    flow_field_free(&f);
    return rc;
}

static const char mix_usage[] = "flow-tool mix [--max R] [--step N] [--scale S] IN OUT.png";

static void mix_help(void)
{
    printf("usage: %s\n"
           "\n"
           "Draws the vector plot of a flow file over its colour coding: direction and\n"
           "length read from both at once.\n"
           "\n"
           "Options:\n"
           "  -m, --max R           fix the colour scale R in pixels, and with --scale\n"
           "                        auto draw a motion of R pixels 0.9 step long\n"
           "                        [default: the largest known length in IN]\n" COMMON_HELP,
           mix_usage, "0,0,0, outlined in white");
}

int cmd_mix(int argc, char **argv)
{
    vec_opts o = {flow_vector_defaults(FLOW_BACKDROP_COLOR), 1, 0, 0, 1};
    int c, rc;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":s:k:m:z:c:dvKh", mix_long, NULL)) != -1) {
        if ((rc = common_option(c, &o, "mix")) >= 0) {
            if (rc)
                return rc;
        } else if (c == 'h') {
            mix_help();
            return CLI_EXIT_OK;
        } else {
            return tool_bad_option(c, argv, mix_usage, "mix");
        }
    }
    if ((rc = tool_check_args(argc, 2, mix_usage, "mix")))
        return rc;
    flow_field f;
    if ((rc = tool_read_field(argv[optind], &f)))
        return rc;
    flow_image canvas;
    double used; /* the colour scale, the arrows' too */
    flow_status s = flow_render_color(&f, o.style.max_radius, &canvas, &used);
    if (s != FLOW_OK) {
        flow_field_free(&f);
        return tool_fail(argv[optind], s);
    }
    o.style.max_radius = used;
    rc = plot(&f, &canvas, &o, argv[optind], argv[optind + 1]);
    flow_image_free(&canvas);
    flow_field_free(&f);
    return rc;
}
