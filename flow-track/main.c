/* main.c -- flow-track: KLT feature tracking from the command line (issue
 * 12).  Good features are selected in the first frame and followed from
 * frame to frame by libflow's tracker (flow/track.h); every feature's
 * position in every frame goes to a CSV file, and on request a picture per
 * frame shows the tracks' trails.  This file owns the command line: the
 * options (the tracker's parameters from a table, so that parsing, checks
 * and --help agree), the checks for options that contradict each other,
 * --help and --version; run.c does the tracking.
 *
 *   flow-track 'seq/f%03d.png' -o tracks.csv --draw trails/
 *   flow-track --video clip.y4m -o - --features 300 --fb-check 1
 *
 * Exit codes: 0 ok, 1 usage, 2 input/output, 3 compute/device. */
#include "tracking.h"

#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

enum {
    OPT_COUNT = 300, OPT_HARRIS, OPT_AFFINE, OPT_NO_AFFINE, OPT_REPLACE, OPT_NO_REPLACE,
    OPT_DRAW, OPT_TRAIL, OPT_TIMING_FILE, OPT_PROGRESS
};
enum { OPT_PARAM_BASE = 1000 }; /* getopt value of parameter option i: base + i */

/* A number of flow_track_params as an option.  Its range is the library's
 * (flow_track_params_check); the help repeats it from flow/track.h. */
typedef struct param_option {
    const char *name;   /* the option without "--" */
    const char *value;  /* the value's name in --help */
    int is_int;
    size_t offset;      /* of the field in flow_track_params */
    const char *help;
    const char *before; /* --help lines that come before this option's, or NULL */
} param_option;

#define INT_PARAM(name, value, field, help, before)                                               \
    {name, value, 1, offsetof(flow_track_params, field), help, before}
#define REAL_PARAM(name, value, field, help, before)                                              \
    {name, value, 0, offsetof(flow_track_params, field), help, before}

static const param_option param_options[] = {
    INT_PARAM("features", "N", features, "the most features followed at once, 1..65536",
              "Selection (in the first frame, and with --replace where features were lost):\n"),
    REAL_PARAM("quality", "Q", quality, "a corner's response is at least Q times the\n"
                                        "frame's best, 0 < Q <= 1", NULL),
    REAL_PARAM("min-distance", "D", min_distance, "pixels between features, 1..1000", NULL),
    INT_PARAM("block", "B", block, "side of the structure tensor's block for the\n"
                                   "response, odd 3..15", NULL),
    REAL_PARAM("harris-k", "K", harris_k, "Harris's k, 0 < K < 0.25 (with --harris)",
               "      --harris         Harris's response det - k trace^2 instead of the\n"
               "                       smallest eigenvalue of the structure tensor [off]\n"),
    INT_PARAM("window", "W", window, "side of the tracking window, odd 3..63", "Tracking:\n"),
    INT_PARAM("levels", "L", levels, "pyramid levels, the frame itself counted, 1..8", NULL),
    INT_PARAM("iterations", "N", iterations, "Gauss-Newton iterations per level, 1..100", NULL),
    REAL_PARAM("epsilon", "E", epsilon, "an iteration moving less than E pixels ends a\n"
                                        "level, 0 < E <= 1", NULL),
    REAL_PARAM("min-eigen", "E", min_eigen, "lost below this smallest eigenvalue of the\n"
                                            "window's gradient matrix per pixel (grey\n"
                                            "levels^2 / px^2), 0..1e6", NULL),
    REAL_PARAM("max-error", "E", max_error, "lost above this residual (mean absolute\n"
                                            "difference over the window, grey levels),\n"
                                            "0..255; 0: no limit", NULL),
    REAL_PARAM("fb-check", "T", fb_check, "lost when tracking back lands farther than T\n"
                                          "pixels from the start, 0..1000; 0: no check",
               NULL),
};
#define NPARAM ((int)(sizeof param_options / sizeof param_options[0]))

/* The field of p that option po sets. */
static void *param_field(flow_track_params *p, const param_option *po)
{
    return (char *)p + po->offset;
}

static const struct option tool_options[] = {
    {"output", required_argument, 0, 'o'},
    SOURCE_LONG_OPTIONS,
    {"count", required_argument, 0, OPT_COUNT},
    {"harris", no_argument, 0, OPT_HARRIS},
    {"affine", no_argument, 0, OPT_AFFINE},
    {"no-affine", no_argument, 0, OPT_NO_AFFINE},
    {"replace", no_argument, 0, OPT_REPLACE},
    {"no-replace", no_argument, 0, OPT_NO_REPLACE},
    {"device", required_argument, 0, 'd'},
    {"draw", required_argument, 0, OPT_DRAW},
    {"trail", required_argument, 0, OPT_TRAIL},
    {"timing", no_argument, 0, 't'},
    {"timing-file", required_argument, 0, OPT_TIMING_FILE},
    {"quiet", no_argument, 0, 'q'},
    {"progress", required_argument, 0, OPT_PROGRESS},
    {"verbose", no_argument, 0, 'v'},
    {"help", no_argument, 0, 'h'},
    {"version", no_argument, 0, 'V'},
};
#define NTOOL ((int)(sizeof tool_options / sizeof tool_options[0]))

/* ---- help ---------------------------------------------------------------- */

/* The help lines of the parameters, each with the default of
 * flow_track_defaults. */
static void param_help(flow_track_params *defaults)
{
    for (int i = 0; i < NPARAM; i++) {
        const param_option *po = &param_options[i];
        if (po->before)
            fputs(po->before, stdout);
        char opt[64];
        snprintf(opt, sizeof opt, "%s %s", po->name, po->value);
        printf("      --%-14s ", opt);
        for (const char *c = po->help; *c; c++) /* continuation lines under the text */
            if (*c == '\n')
                fputs("\n                       ", stdout);
            else
                putchar(*c);
        if (po->is_int)
            printf(" [%d]\n", *(int *)param_field(defaults, po));
        else
            printf(" [%g]\n", *(double *)param_field(defaults, po));
    }
}

static void print_help(void)
{
    flow_track_params p;
    flow_track_defaults(&p);
    printf("Usage: " TRACK_USAGE "\n"
           "       flow-track [options] PATTERN|DIRECTORY -o TRACKS.csv\n"
           "       flow-track [options] --video FILE | --camera N -o TRACKS.csv\n"
           "Selects good features to track in the first frame and follows them from frame\n"
           "to frame by pyramidal Lucas-Kanade (KLT: Shi and Tomasi 1994, Bouguet 2000);\n"
           "writes every feature's position in every frame as CSV.  Colour frames are\n"
           "tracked on their luminance.\n"
           "\n"
           "Input:\n"
           "  FRAME1 FRAME2 ...    two frames or more, tracked in the given order\n");
    source_help(stdout);
    printf("      --count N        track at most N frames (N >= 2) [all]\n"
           "Output:\n"
           "  -o, --output FILE    the tracks as CSV, '-' for standard output (rows then\n"
           "                       stream frame by frame); a file appears whole at the end:\n"
           "                       frame,id,x,y,status,error with status tracked, lost or\n"
           "                       new, x, y in pixels (0, 0 the centre of the top-left\n"
           "                       pixel), error the residual in grey levels (nan: none)\n"
           "      --draw DIR       also write DIR/NNNNNN.png per frame (NNNNNN its number):\n"
           "                       the frame with each live track's trail and position\n"
           "      --trail N        frames of trail in the pictures, 0..1000 [10]\n");
    param_help(&p);
    printf("      --affine         refine each match at the finest level with a window that\n"
           "                       may rotate, scale and shear%s\n"
           "      --no-affine      windows that only move%s\n"
           "      --replace        replace lost features by new ones in the same frame%s\n"
           "      --no-replace     follow the first frame's features only%s\n"
           "Device:\n"
           "  -d, --device D       auto, cpu, cuda or cuda:N [auto: CUDA when a GPU is\n"
           "                       usable, else the CPU with a notice]\n"
           "Observing the tracking:\n"
           "  -t, --timing         print the hierarchical timer on stdout: per stage ms,\n"
           "                       %% of its parent, frames/s and megapixels/s, per frame:\n"
           "                       the tracker's stages (on CUDA without the graph replay,\n"
           "                       so that they show), then write, draw and read\n"
           "      --timing-file F  write the timings as CSV (docs/flow-compute.md)\n"
           "  -q, --quiet          no notices, progress or summary on stderr\n"
           "      --progress NAME  the progress line (on a terminal only) headed NAME,\n"
           "                       and shown with -q too, then erased when done: make\n"
           "                       flows names the sequence\n"
           "  -v, --verbose        a line per frame, and each file written\n"
           "  -h, --help           this help\n"
           "  -V, --version        version, backends and I/O built in\n"
           "\n"
           "Exit status: 0 ok, 1 usage (bad option, value or combination), 2 input/output\n"
           "(missing, unreadable or mismatched frames, a float frame holding NaN, an\n"
           "infinity or a value beyond 1e6, fewer than two frames, unwritable output),\n"
           "3 compute or device failure (no CUDA device, out of memory);\n"
           "130 when interrupted (the tracks of the frames done are written).\n"
           "\n"
           "Examples:\n"
           "  flow-track f0.png f1.png f2.png -o tracks.csv\n"
           "  flow-track 'seq/frame%%03d.png' -o tracks.csv --draw trails/ --trail 20\n"
           "  flow-track seq/ -o - --features 300 --min-distance 8 --no-replace\n"
           "  flow-track --video clip.y4m -o tracks.csv --fb-check 1 --timing\n",
           p.affine ? " [on]" : "", p.affine ? "" : " [on]", p.replace ? " [on]" : "",
           p.replace ? "" : " [on]");
}

/* ---- parsing ------------------------------------------------------------- */

/* Sets the parameter of option i from text: any number parses here, and
 * the library checks the value on its own (the defaults for the others),
 * so that the message names the option and the field. */
static int set_param(flow_track_params *p, int i, const char *text)
{
    const param_option *po = &param_options[i];
    char what[64];
    snprintf(what, sizeof what, "--%s", po->name);
    flow_track_params alone;
    flow_track_defaults(&alone);
    if (po->is_int) {
        int x;
        if (cli_parse_int(what, text, INT_MIN, INT_MAX, &x) != 0)
            return CLI_EXIT_USAGE;
        *(int *)param_field(p, po) = *(int *)param_field(&alone, po) = x;
    } else {
        double x;
        if (cli_parse_double(what, text, -INFINITY, INFINITY, &x) != 0)
            return CLI_EXIT_USAGE;
        *(double *)param_field(p, po) = *(double *)param_field(&alone, po) = x;
    }
    if (flow_track_params_check(&alone) != FLOW_OK)
        return cli_usage_error(TRACK_USAGE, "flow-track", "%s: %s", what, flow_last_error());
    return CLI_EXIT_OK;
}

/* Options of the tool that contradict each other or are missing. */
static int check_contradictions(const track_options *o, int harris_k_given, int trail_given)
{
#define CONTRADICTS(...) return cli_usage_error(TRACK_USAGE, "flow-track", __VA_ARGS__)
    const int rc = source_check_options(&o->input);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (o->quiet && o->verbose)
        CONTRADICTS("--quiet and --verbose contradict each other");
    if (!o->output)
        CONTRADICTS("no output: give -o FILE (- for standard output)");
    if (o->timing && strcmp(o->output, "-") == 0)
        CONTRADICTS("--timing prints on standard output, which -o - takes: use --timing-file");
    if (trail_given && !o->draw_dir)
        CONTRADICTS("--trail applies to the pictures: add --draw DIR");
    if (harris_k_given && !o->params.harris)
        CONTRADICTS("--harris-k applies to Harris's response: add --harris");
#undef CONTRADICTS
    return CLI_EXIT_OK;
}

static int parse_options(int argc, char **argv, track_options *o)
{
    static struct option longs[NTOOL + NPARAM + 1];
    memcpy(longs, tool_options, sizeof tool_options);
    for (int i = 0; i < NPARAM; i++)
        longs[NTOOL + i] = (struct option){param_options[i].name, required_argument, 0,
                                           OPT_PARAM_BASE + i};
    longs[NTOOL + NPARAM] = (struct option){0, 0, 0, 0};

    int c, harris_k_given = 0, trail_given = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:d:tqvhV", longs, NULL)) != -1) {
        if (c >= OPT_PARAM_BASE && c < OPT_PARAM_BASE + NPARAM) {
            const int rc = set_param(&o->params, c - OPT_PARAM_BASE, optarg);
            if (rc != CLI_EXIT_OK)
                return rc;
            harris_k_given |= param_options[c - OPT_PARAM_BASE].offset
                              == offsetof(flow_track_params, harris_k);
            continue;
        }
        const int input = source_parse_option(&o->input, c, optarg);
        if (input < 0)
            return CLI_EXIT_USAGE;
        if (input > 0)
            continue;
        switch (c) {
        case 'o': o->output = optarg; break;
        case OPT_COUNT:
            if (cli_parse_long("--count", optarg, 2, LONG_MAX, &o->count) != 0)
                return CLI_EXIT_USAGE;
            break;
        case OPT_HARRIS: o->params.harris = 1; break;
        case OPT_AFFINE: o->params.affine = 1; break;
        case OPT_NO_AFFINE: o->params.affine = 0; break;
        case OPT_REPLACE: o->params.replace = 1; break;
        case OPT_NO_REPLACE: o->params.replace = 0; break;
        case 'd': o->device = optarg; break;
        case OPT_DRAW: o->draw_dir = optarg; break;
        case OPT_TRAIL:
            if (cli_parse_int("--trail", optarg, 0, 1000, &o->trail) != 0)
                return CLI_EXIT_USAGE;
            trail_given = 1;
            break;
        case 't': o->timing = 1; break;
        case OPT_TIMING_FILE: o->timing_file = optarg; break;
        case 'q': o->quiet = 1; break;
        case OPT_PROGRESS: o->progress = optarg; break;
        case 'v': o->verbose = 1; break;
        case 'h': print_help(); exit(CLI_EXIT_OK);
        case 'V': cli_print_version(); exit(CLI_EXIT_OK);
        default: return cli_bad_option(c, argv, TRACK_USAGE, "flow-track", NULL);
        }
    }
    o->input.frames = argv + optind;
    o->input.nframes = argc - optind;
    int rc = check_contradictions(o, harris_k_given, trail_given);
    if (rc != CLI_EXIT_OK)
        return rc;
    /* Each value passed on its own; together they may still disagree. */
    if (flow_track_params_check(&o->params) != FLOW_OK)
        return cli_usage_error(TRACK_USAGE, "flow-track", "%s", flow_last_error());
    return CLI_EXIT_OK;
}

int main(int argc, char **argv)
{
    cli_start("flow-track");
    static track_options o;
    flow_track_defaults(&o.params);
    source_options_init(&o.input, TRACK_USAGE, "flow-track");
    o.input.channels = SOURCE_AS_READ;
    o.device = "auto";
    o.trail = 10;
    const int rc = parse_options(argc, argv, &o);
    o.input.quiet = o.quiet;
    return rc == CLI_EXIT_OK ? run_track(&o) : rc;
}
