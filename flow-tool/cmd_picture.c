/* cmd_picture.c -- colour pictures of a flow field: `flow-tool color` (the
 * Middlebury colour coding, optionally framed by its key), `flow-tool
 * legend` (the colour wheel alone, seed 001 figure A.1) and `flow-tool
 * blend` (a frame of the sequence blended with the colour coding, seed 001
 * figure 5.11).  The drawing itself is libflow's (flow/render.h). */
#include "tool.h"
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static const char color_usage[] =
    "flow-tool color [--max R] [--legend [--border N] [--scale-label] | --exact] [-v] IN OUT.png";

static void color_help(void)
{
    printf("usage: %s\n"
           "\n"
           "Writes the Middlebury colour coding of a flow file: the hue is the\n"
           "direction (right red, down yellow, left cyan-blue, up blue-violet; 55\n"
           "colours RY 15, YG 6, GC 4, CB 11, BM 13, MR 6, from atan2(-v, -u)), the\n"
           "saturation the length divided by the scale R: white for no motion, the\n"
           "full colour at R, darker beyond R.  Unknown vectors are black.\n"
           "\n"
           "Options:\n"
           "  -m, --max R      fix the scale R in pixels, so that the frames of a\n"
           "                   video share one scale [default: the largest known\n"
           "                   length in IN, or 1 when all are 0]\n"
           "  -l, --legend     frame the picture with the key: each frame pixel has\n"
           "                   the colour of the direction from the centre to it\n"
           "  -b, --border N   width of that frame in pixels, 1..4096 [default: 8%%\n"
           "                   of the smaller side, 6 to 64; with --scale-label at\n"
           "                   least %d]\n"
           "  -L, --scale-label  write the scale in the bottom of that frame, \"max\n"
           "                   4.62 px\" (implies --legend; a frame of at least %d px)\n"
           "  -x, --exact      Middlebury's color_flow output level for level: its\n"
           "                   single-precision arithmetic, each channel truncated\n"
           "                   [default: rounded to the nearest level, which differs\n"
           "                   from color_flow by one level on many pixels]\n"
           "  -v, --verbose    print the scale R used\n"
           "  -h, --help       this help\n"
           "\n"
           "Exit status: 0 ok, 1 usage, 2 input/output, 3 out of memory.\n",
           color_usage, FLOW_SCALE_LABEL_MIN_BORDER, FLOW_SCALE_LABEL_MIN_BORDER);
}

int cmd_color(int argc, char **argv)
{
    static const struct option opts[] = {
        {"max", required_argument, NULL, 'm'}, {"legend", no_argument, NULL, 'l'},
        {"border", required_argument, NULL, 'b'}, {"scale-label", no_argument, NULL, 'L'},
        {"exact", no_argument, NULL, 'x'},
        {"verbose", no_argument, NULL, 'v'}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    double max_radius = 0;
    int legend = 0, border = 0, scale_label = 0, exact = 0, verbose = 0, c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":m:lb:Lxvh", opts, NULL)) != -1) {
        switch (c) {
        case 'm':
            if (cli_parse_double("color: --max", optarg, 1e-6, 1e9, &max_radius))
                return CLI_EXIT_USAGE;
            break;
        case 'l': legend = 1; break;
        case 'b':
            if (cli_parse_int("color: --border", optarg, 1, 4096, &border))
                return CLI_EXIT_USAGE;
            break;
        case 'L': scale_label = legend = 1; break;
        case 'x': exact = 1; break;
        case 'v': verbose = 1; break;
        case 'h': color_help(); return CLI_EXIT_OK;
        default: return tool_bad_option(c, argv, color_usage, "color");
        }
    }
    int rc = tool_check_args(argc, 2, color_usage, "color");
    if (rc)
        return rc;
    if (border && !legend)
        return cli_usage_error(color_usage, "flow-tool color",
                               "color: --border needs --legend");
    if (exact && legend)
        return cli_usage_error(color_usage, "flow-tool color",
                               "color: --exact is color_flow's picture, which has no key "
                               "frame: give one of --exact and --legend");
    if (scale_label && border && border < FLOW_SCALE_LABEL_MIN_BORDER)
        return cli_usage_error(color_usage, "flow-tool color",
                               "color: --border %d is too narrow for --scale-label (at least %d)",
                               border, FLOW_SCALE_LABEL_MIN_BORDER);
    flow_field f;
    if ((rc = tool_read_field(argv[optind], &f)))
        return rc;
    if (scale_label && !border) {
        border = flow_legend_border(f.width, f.height);
        border = border < FLOW_SCALE_LABEL_MIN_BORDER ? FLOW_SCALE_LABEL_MIN_BORDER : border;
    }
    flow_image img;
    double used = 0;
    flow_status s = legend ? flow_render_color_framed(&f, max_radius, border, &img, &used)
                           : flow_render_color_coded(&f, max_radius,
                                                     exact ? FLOW_CODING_MIDDLEBURY
                                                           : FLOW_CODING_ROUNDED,
                                                     &img, &used);
    if (s == FLOW_OK && scale_label && (s = flow_render_scale_label(&img, border, used)) != FLOW_OK)
        flow_image_free(&img);
    flow_field_free(&f);
    if (s != FLOW_OK)
        return tool_fail(argv[optind], s);
    if (verbose)
        printf("scale: %.6g px\n", used);
    rc = tool_write_image(argv[optind + 1], &img);
    flow_image_free(&img);
    return rc;
}

static const char legend_usage[] = "flow-tool legend [--size N] OUT.png";

static void legend_help(void)
{
    printf("usage: %s\n"
           "\n"
           "Writes the colour wheel of the Middlebury coding alone (Baker et al., IJCV\n"
           "2011): a disc whose pixel at offset (x, y) from the centre has the colour\n"
           "of the flow vector (x, y) / radius, so the rim is the full colour at the\n"
           "scale R and the centre white; grey outline and axes, white outside.\n"
           "\n"
           "Options:\n"
           "  -s, --size N     width and height in pixels, 32..4096 [default: 256]\n"
           "  -h, --help       this help\n"
           "\n"
           "Exit status: 0 ok, 1 usage, 2 output.\n",
           legend_usage);
}

int cmd_legend(int argc, char **argv)
{
    static const struct option opts[] = {{"size", required_argument, NULL, 's'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    int size = 256, c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":s:h", opts, NULL)) != -1) {
        switch (c) {
        case 's':
            if (cli_parse_int("legend: --size", optarg, 32, 4096, &size))
                return CLI_EXIT_USAGE;
            break;
        case 'h': legend_help(); return CLI_EXIT_OK;
        default: return tool_bad_option(c, argv, legend_usage, "legend");
        }
    }
    int rc = tool_check_args(argc, 1, legend_usage, "legend");
    if (rc)
        return rc;
    flow_image img;
    flow_status s = flow_render_legend(size, &img);
    if (s != FLOW_OK)
        return cli_report_status(s);
    rc = tool_write_image(argv[optind], &img);
    flow_image_free(&img);
    return rc;
}

static const char blend_usage[] = "flow-tool blend [--alpha A] [--max R] FRAME IN OUT.png";

static void blend_help(void)
{
    printf("usage: %s\n"
           "\n"
           "Blends a frame of the sequence (gray or colour, the flow's size) with\n"
           "the colour coding of IN: out = (1 - A) frame + A colour, so moving objects\n"
           "take the colour of their motion.\n"
           "\n"
           "Options:\n"
           "  -a, --alpha A    weight of the colour coding, 0..1 [default: 0.5]\n"
           "  -m, --max R      fix the colour scale R in pixels [default: the\n"
           "                   largest known length in IN]\n"
           "  -h, --help       this help\n"
           "\n"
           "Exit status: 0 ok, 1 usage, 2 input/output (also: frame and flow of\n"
           "different sizes), 3 out of memory.\n",
           blend_usage);
}

int cmd_blend(int argc, char **argv)
{
    static const struct option opts[] = {{"alpha", required_argument, NULL, 'a'},
                                         {"max", required_argument, NULL, 'm'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    double alpha = 0.5, max_radius = 0;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":a:m:h", opts, NULL)) != -1) {
        switch (c) {
        case 'a':
            if (cli_parse_double("blend: --alpha", optarg, 0, 1, &alpha))
                return CLI_EXIT_USAGE;
            break;
        case 'm':
            if (cli_parse_double("blend: --max", optarg, 1e-6, 1e9, &max_radius))
                return CLI_EXIT_USAGE;
            break;
        case 'h': blend_help(); return CLI_EXIT_OK;
        default: return tool_bad_option(c, argv, blend_usage, "blend");
        }
    }
    int rc = tool_check_args(argc, 3, blend_usage, "blend");
    if (rc)
        return rc;
    const char *frame_path = argv[optind], *in = argv[optind + 1], *out = argv[optind + 2];
    flow_image frame, color, img;
    flow_field f;
    if ((rc = tool_read_image(frame_path, &frame)))
        return rc;
    if ((rc = tool_read_field(in, &f))) {
        flow_image_free(&frame);
        return rc;
    }
    if (frame.width != f.width || frame.height != f.height) {
        cli_error("frame %s is %dx%d but the flow %s is %dx%d: sizes must match", frame_path,
                  frame.width, frame.height, in, f.width, f.height);
        rc = CLI_EXIT_IO;
    } else {
        flow_status s = flow_render_color(&f, max_radius, &color, NULL);
        if (s == FLOW_OK) {
            s = flow_render_blend(&frame, &color, alpha, &img);
            flow_image_free(&color);
        }
        if (s != FLOW_OK) {
            rc = tool_fail(in, s);
        } else {
            rc = tool_write_image(out, &img);
            flow_image_free(&img);
        }
    }
    flow_image_free(&frame);
    flow_field_free(&f);
    return rc;
}
