/* cmd_matches.c -- `flow-tool matches`: a file of sparse matches
 * (flow-compute --matches, docs/FORMATS.md) drawn over the first frame: a
 * line from each match's point to where it moves, a dot at the point,
 * coloured by the Middlebury coding of its displacement or by its
 * weight. */
#include "tool.h"
#include "cli.h"
#include "matchfile.h"
#include "outputs.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char matches_usage[] =
    "flow-tool matches [--colour flow|weight] [--all] [--every N] FRAME MATCHES OUT.png";

typedef struct match_opts {
    int by_weight;  /* colour by weight instead of by displacement */
    double max;     /* the colour coding's radius; 0: the longest drawn match's */
    int all;        /* the matches of weight 0 too */
    int every;      /* every N-th match drawn */
    double width;   /* line width, pixels */
    double scale;   /* line length per pixel of displacement */
} match_opts;

static void matches_help(void)
{
    printf("usage: %s\n"
           "\n"
           "Draws a file of sparse matches (flow-compute --matches, or any file of\n"
           "\"x y u v weight\" lines: docs/FORMATS.md) over FRAME, the first frame of\n"
           "the pair, shown in grey at half brightness: a line from each match's\n"
           "point (x, y) to (x + S u, y + S v) and a dot at (x, y).  OUT has FRAME's\n"
           "size; every match must lie within FRAME.\n"
           "\n"
           "Options:\n"
           "  -c, --colour flow|weight  flow: the Middlebury colour of the match's\n"
           "                        displacement (flow-tool color's coding); weight:\n"
           "                        the \"hot\" ramp of its weight, black 0, red,\n"
           "                        yellow, white 1 [flow]\n"
           "  -m, --max R           the displacement of full saturation, pixels\n"
           "                        [the longest drawn match's]\n"
           "  -a, --all             also draw the matches of weight 0 (those the\n"
           "                        method's check dropped) [the others only]\n"
           "  -e, --every N         draw every N-th match of the file, 1..1000000 [1]\n"
           "  -w, --width W         line width in pixels, 0.5..20; the dot is 2.5 W\n"
           "                        wide [1]\n"
           "  -k, --scale S         line length = S times the displacement, 0..1000 [1]\n"
           "  -h, --help            this help\n"
           "\n"
           "Exit status: 0 ok, 1 usage, 2 input/output (an unreadable frame or file,\n"
           "a bad line or a match outside the frame, named with its line), 3 out of\n"
           "memory.\n",
           matches_usage);
}

static int parse(int argc, char **argv, match_opts *o)
{
    static const struct option opts[] = {
        {"colour", required_argument, NULL, 'c'}, {"color", required_argument, NULL, 'c'},
        {"max", required_argument, NULL, 'm'},    {"all", no_argument, NULL, 'a'},
        {"every", required_argument, NULL, 'e'},  {"width", required_argument, NULL, 'w'},
        {"scale", required_argument, NULL, 'k'},  {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":c:m:ae:w:k:h", opts, NULL)) != -1) {
        switch (c) {
        case 'h': matches_help(); return -1;
        case 'c':
            if (strcmp(optarg, "flow") && strcmp(optarg, "weight"))
                return cli_usage_error(matches_usage, "flow-tool matches",
                                       "--colour '%s': flow or weight", optarg);
            o->by_weight = strcmp(optarg, "weight") == 0;
            break;
        case 'm':
            if (cli_parse_double("matches: --max", optarg, 1e-6, 1e9, &o->max))
                return CLI_EXIT_USAGE;
            break;
        case 'a': o->all = 1; break;
        case 'e':
            if (cli_parse_int("matches: --every", optarg, 1, 1000000, &o->every))
                return CLI_EXIT_USAGE;
            break;
        case 'w':
            if (cli_parse_double("matches: --width", optarg, 0.5, 20, &o->width))
                return CLI_EXIT_USAGE;
            break;
        case 'k':
            if (cli_parse_double("matches: --scale", optarg, 0, 1000, &o->scale))
                return CLI_EXIT_USAGE;
            break;
        default: return tool_bad_option(c, argv, matches_usage, "matches");
        }
    }
    return tool_check_args(argc, 3, matches_usage, "matches");
}

/* The frame's luminance at half brightness as an RGB picture. */
static flow_status dimmed(const flow_image *frame, flow_image *rgb)
{
    flow_image grey;
    flow_status s = flow_image_to_gray(frame, &grey);
    if (s != FLOW_OK)
        return s;
    s = flow_image_alloc(rgb, frame->width, frame->height, 3);
    const size_t n = (size_t)frame->width * frame->height;
    for (size_t i = 0; s == FLOW_OK && i < n; i++)
        for (int c = 0; c < 3; c++)
            rgb->data[c * n + i] = 0.5f * fminf(fmaxf(grey.data[i], 0.0f), 255.0f);
    flow_image_free(&grey);
    return s;
}

/* The colours of the n matches m as an n x 1 RGB image: their
 * displacements coded as a flow, or their weights on the hot ramp. */
static flow_status colours(const flow_match *m, int n, const match_opts *o, flow_image *rgb)
{
    if (o->by_weight) {
        flow_image w;
        flow_status s = flow_image_alloc(&w, n, 1, 1);
        for (int k = 0; s == FLOW_OK && k < n; k++)
            w.data[k] = m[k].weight;
        if (s == FLOW_OK)
            s = flow_render_confidence(w.data, n, 1, 1, rgb);
        flow_image_free(&w);
        return s;
    }
    flow_field f;
    flow_status s = flow_field_alloc(&f, n, 1);
    if (s != FLOW_OK)
        return s;
    for (int k = 0; k < n; k++)
        f.u[k] = m[k].u, f.v[k] = m[k].v;
    s = flow_render_color(&f, o->max, rgb, NULL);
    flow_field_free(&f);
    return s;
}

/* Each of the n matches' line and dot into img. */
static flow_status draw(flow_image *img, const flow_match *m, int n, const flow_image *col,
                        const match_opts *o)
{
    for (int k = 0; k < n; k++) {
        const flow_match *a = &m[k];
        const float rgb[3] = { col->data[k], col->data[n + k], col->data[2 * n + k] };
        const float line[4] = { a->x, a->y, (float)(a->x + o->scale * a->u),
                                (float)(a->y + o->scale * a->v) };
        flow_status s = flow_render_polyline(img, line, 2, o->width, rgb);
        if (s == FLOW_OK)
            s = flow_render_polyline(img, line, 1, 2.5 * o->width, rgb);
        if (s != FLOW_OK)
            return s;
    }
    return FLOW_OK;
}

int cmd_matches(int argc, char **argv)
{
    match_opts o = { .every = 1, .width = 1.0, .scale = 1.0 };
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc < 0 ? CLI_EXIT_OK : rc;
    const char *frame_path = argv[optind], *path = argv[optind + 1], *out = argv[optind + 2];
    if ((rc = output_check_target(out)) != CLI_EXIT_OK)
        return rc;
    flow_image frame = {0}, img = {0}, col = {0};
    flow_match *m = NULL;
    long *lines = NULL;
    int n = 0, drawn = 0;
    if ((rc = tool_read_image(frame_path, &frame)) != CLI_EXIT_OK)
        return rc;
    rc = matchfile_read(path, "matches:", &m, &n, &lines);
    for (int i = 0; rc == CLI_EXIT_OK && i < n; i++)
        if (!(m[i].x >= 0 && m[i].x <= frame.width - 1 && m[i].y >= 0
              && m[i].y <= frame.height - 1)) {
            cli_error("matches: %s:%ld: the point (%g, %g) is outside the %dx%d frame %s", path,
                      lines[i], (double)m[i].x, (double)m[i].y, frame.width, frame.height,
                      frame_path);
            rc = CLI_EXIT_IO;
        }
    /* the matches drawn, moved to the front in their order */
    for (int i = 0, seen = 0; rc == CLI_EXIT_OK && i < n; i++)
        if (o.all || m[i].weight > 0)
            if (seen++ % o.every == 0)
                m[drawn++] = m[i];
    flow_status s = FLOW_OK;
    if (rc == CLI_EXIT_OK) {
        s = dimmed(&frame, &img);
        if (s == FLOW_OK && drawn > 0)
            s = colours(m, drawn, &o, &col);
        if (s == FLOW_OK && drawn > 0)
            s = draw(&img, m, drawn, &col, &o);
        rc = s == FLOW_OK ? tool_write_image(out, &img) : tool_fail(path, s);
    }
    flow_image_free(&frame), flow_image_free(&img), flow_image_free(&col);
    free(m), free(lines);
    return rc;
}
