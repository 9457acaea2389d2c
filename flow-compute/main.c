/* main.c -- flow-compute: the computing command-line tool (seed 001 section
 * 5.1).  This file owns the command line: the tool's options, the checks
 * for options that contradict each other, --help and --version; the
 * parameter options come from the methods' schemas (params_cli.c); run.c
 * does the computation.
 *
 *   flow-compute -p params/clg-nl.params a.png b.png -o ab.flo --timing
 *   flow-compute --video clip.y4m -o flows/f%04d.flo --device cuda
 *
 * Exit codes: 0 ok, 1 usage, 2 input/output, 3 compute/device. */
#include "compute.h"
#include "flowimages.h"

#include <getopt.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

enum {
    OPT_COUNT = 300, OPT_RGB, OPT_COLOR, OPT_COLOR_MAX, OPT_LEGEND, OPT_SCALE_LABEL,
    OPT_VECTORS, OPT_VECTOR_STEP, OPT_VECTOR_SCALE, OPT_VECTOR_ZOOM,
    OPT_TIMING_DEPTH, OPT_TIMING_FILE, OPT_REPEAT, OPT_TRACE, OPT_FB_CHECK, OPT_PROGRESS,
    OPT_INIT, OPT_INIT_CONFIDENCE, OPT_MATCHES, OPT_USE_MATCHES, OPT_EDGES, OPT_BACKWARD, OPT_OCCLUSION,
    OPT_CONFIDENCE, OPT_OCCLUSION_A, OPT_OCCLUSION_B,
    OPT_FLOW_IMAGES, OPT_FLOW_NAMES, OPT_FLOW_BOUND
};
enum { OPT_PARAM_BASE = 1000 }; /* getopt value of parameter option i: base + i */

/* The options of the tool itself; those of the parameters come from the
 * schemas (params_cli.c). */
static const struct option tool_options[] = {
    {"method", required_argument, 0, 'm'},
    {"params", required_argument, 0, 'p'},
    {"output", required_argument, 0, 'o'},
    SOURCE_LONG_OPTIONS,
    {"count", required_argument, 0, OPT_COUNT},
    {"rgb", no_argument, 0, OPT_RGB},
    {"color", no_argument, 0, OPT_COLOR},
    {"color-max", required_argument, 0, OPT_COLOR_MAX},
    {"legend", no_argument, 0, OPT_LEGEND},
    {"scale-label", no_argument, 0, OPT_SCALE_LABEL},
    {"vectors", no_argument, 0, OPT_VECTORS},
    {"vector-step", required_argument, 0, OPT_VECTOR_STEP},
    {"vector-scale", required_argument, 0, OPT_VECTOR_SCALE},
    {"vector-zoom", required_argument, 0, OPT_VECTOR_ZOOM},
    {"fb-check", required_argument, 0, OPT_FB_CHECK},
    {"backward", required_argument, 0, OPT_BACKWARD},
    {"occlusion", required_argument, 0, OPT_OCCLUSION},
    {"confidence", required_argument, 0, OPT_CONFIDENCE},
    {"occlusion-a", required_argument, 0, OPT_OCCLUSION_A},
    {"occlusion-b", required_argument, 0, OPT_OCCLUSION_B},
    {"init", required_argument, 0, OPT_INIT},
    {"init-confidence", required_argument, 0, OPT_INIT_CONFIDENCE},
    {"matches", required_argument, 0, OPT_MATCHES},
    {"use-matches", required_argument, 0, OPT_USE_MATCHES},
    {"edges", required_argument, 0, OPT_EDGES},
    {"flow-images", required_argument, 0, OPT_FLOW_IMAGES},
    {"flow-names", required_argument, 0, OPT_FLOW_NAMES},
    {"flow-bound", required_argument, 0, OPT_FLOW_BOUND},
    {"device", required_argument, 0, 'd'},
    {"timing", no_argument, 0, 't'},
    {"timing-depth", required_argument, 0, OPT_TIMING_DEPTH},
    {"timing-file", required_argument, 0, OPT_TIMING_FILE},
    {"repeat", required_argument, 0, OPT_REPEAT},
    {"workflow", required_argument, 0, 'w'},
    {"trace", no_argument, 0, OPT_TRACE},
    {"progress", required_argument, 0, OPT_PROGRESS},
    {"quiet", no_argument, 0, 'q'},
    {"verbose", no_argument, 0, 'v'},
    {"help", no_argument, 0, 'h'},
    {"version", no_argument, 0, 'V'},
};
#define NTOOL ((int)(sizeof tool_options / sizeof tool_options[0]))

/* ---- help and version --------------------------------------------------- */

/* The help: the tool's options and the methods; with `method` also that
 * method's parameters. */
static void print_help(const param_cli *pc, const char *method)
{
    printf("Usage: " COMPUTE_USAGE "\n"
           "       flow-compute [options] PATTERN|DIRECTORY -o OUT_PATTERN\n"
           "       flow-compute [options] --video FILE | --camera N -o OUT_PATTERN\n"
           "Computes the optical flow from each frame to the next.\n"
           "\n"
           "Input:\n"
           "  FRAME1 FRAME2 ...    two frames, or a list: the flow of every consecutive pair\n");
    source_help(stdout);
    printf("      --count N        compute at most N flows [all]\n"
           "      --rgb            compute on the R, G, B channels (their motion tensors\n"
           "                       summed) instead of the luminance [luminance]\n"
           "Output:\n");
    char formats[128];
    printf("  -o, --output OUT     the flow file, in the format its extension names:\n"
           "                       %s (flow-tool formats).  For\n"
           "                       several pairs, a pattern with one integer field, filled\n"
           "                       with the number of the pair's first frame (its pattern\n"
           "                       index, else its position from 0).  OUT.params is written\n"
           "                       beside every flow file with every parameter used.\n"
           "                       Without -o (nor --timing, --workflow, --trace) the flows\n"
           "                       are computed and only the summary is printed: the rate.\n"
           "      --color          also write STEM-color.png (Middlebury colour coding)\n"
           "      --color-max R    fixed colour scale, pixels (same colours over a video)\n"
           "                       [the largest vector of each field]\n"
           "      --legend         colour picture framed by the direction key\n"
           "      --scale-label    write the colour scale in that frame, \"max 4.62 px\"\n"
           "                       (implies --legend)\n"
           "      --vectors        also write STEM-vectors.png: arrows over the first frame,\n"
           "                       as flow-tool vectors --background draws them\n"
           "      --vector-step N  one arrow every N pixels [auto: the smaller side / 18,\n"
           "                       at least 8]\n"
           "      --vector-scale S arrow length per pixel of flow (fixed over a video)\n"
           "                       [auto: each field's longest vector 0.9 step long]\n"
           "      --vector-zoom Z  picture enlarged Z times [1]\n"
           "      --fb-check T     forward-backward check: also compute the flow from each\n"
           "                       pair's second frame to its first and write as unknown\n"
           "                       (drawn black) every vector the two flows disagree on by\n"
           "                       more than T pixels (or that leaves the frame); prints\n"
           "                       the density kept per pair on stderr [off]\n"
           "      --backward OUT   also write the backward flow (second frame to first),\n"
           "                       computed in the same call from the frames already on\n"
           "                       the device; a name or a pattern as -o [off]\n"
           "      --occlusion OUT  also write the occlusion mask of the first frame as an\n"
           "                       8-bit PNG, 255 where the forward-backward test fails:\n"
           "                       |wf + wb(x+wf)|^2 > a (|wf|^2 + |wb(x+wf)|^2) + b\n"
           "                       (Sundaram, Brox, Keutzer 2010), computed on the\n"
           "                       device; a name or a pattern as -o [off]\n"
           "      --confidence OUT also write the confidence of each vector in [0, 1]\n"
           "                       (the forward-backward miss and the data residual\n"
           "                       combined): .pfm (float) or .png (16 bits, 65535 = 1);\n"
           "                       a name or a pattern as -o [off]\n"
           "      --occlusion-a A  the test's relative tolerance a [0.01]\n"
           "      --occlusion-b B  the test's absolute tolerance b, pixels^2 [0.5]\n"
           "      --init FLOW      refine this flow of the pair (any flow file of the\n"
           "                       frames' size, a vector at every pixel) instead of\n"
           "                       starting from nothing; for the methods that take an\n"
           "                       initial flow (robust: at its finest level)\n"
           "      --init-confidence IMAGE\n"
           "                       a grey image of the frames' size: how far to trust\n"
           "                       --init at each pixel (255 fully, 0 not: the method's\n"
           "                       own flow there) [255 everywhere]\n"
           "      --matches FILE   also write the sparse matches the method interpolated\n"
           "                       (epic), one \"x y u v weight\" a line (weight 0: dropped\n"
           "                       by its forward-backward check; docs/FORMATS.md)\n"
           "      --use-matches FILE\n"
           "                       interpolate and refine these matches (the same format,\n"
           "                       from any matcher) in place of the method's own\n"
           "                       matching (epic)\n"
           "      --edges IMAGE    an edge map of the first frame (a grey PNG or PGM of 8 or\n"
           "                       16 bits, full scale = 1, or a .pfm of values in [0, 1];\n"
           "                       the frames' size; higher: a stronger edge) in place of\n"
           "                       the method's edges from the image gradient (epic: its\n"
           "                       geodesic cost 1 + edge_gain E); two frames only\n"
           "      --flow-images DIR also (or instead of -o) write each flow as two 8-bit\n"
           "                       images in DIR (made when missing), x and y, each sample\n"
           "                       clamp(round(255 (v + B) / 2B), 0, 255), and\n"
           "                       DIR/flow.params; numbered from 1 in the order of the\n"
           "                       pairs as denseflow numbers them (1: frames 1 -> 2);\n"
           "                       format by extension (.jpg or .png); flow-tool\n"
           "                       from-images reads them back\n"
           "      --flow-names X,Y the images' name patterns in DIR, one integer field each\n"
           "                       [flow_x_%%05d.jpg,flow_y_%%05d.jpg]\n"
           "      --flow-bound B   the bound B, pixels: levels 2B/255 px apart [20]\n"
           "Method and parameters (the method's defaults, then a -p file, then the\n"
           "parameter options):\n",
           flow_field_format_list(formats, sizeof formats));
    param_cli_help(pc, stdout, method);
    printf("Device:\n"
           "  -d, --device D       auto, cpu, cuda or cuda:N [auto: CUDA when a GPU is\n"
           "                       usable, else the CPU with a notice]; several devices\n"
           "                       share the pairs of a sequence: cuda:all (every GPU),\n"
           "                       a list (cuda:0,1 or cuda:0,cuda:1; cpu,cpu too), each\n"
           "                       entry computing chunks of consecutive pairs in turn (a\n"
           "                       device named twice: two streams on it at once)\n"
           "Observing the computation:\n"
           "  -t, --timing         print the hierarchical timer on stdout: per stage ms,\n"
           "                       %% of its parent, frames/s and megapixels/s (on CUDA\n"
           "                       without the graph replay, so that the stages show)\n"
           "      --timing-depth N stage levels timed below the total [2]\n"
           "      --timing-file F  write the timings as CSV (docs/flow-compute.md)\n"
           "      --repeat N       compute each pair N times: mean and median [1]\n"
           "  -w, --workflow DIR   write one image per computation step into DIR\n"
           "      --trace          print the multigrid trace: each level's residual\n"
           "                       per cycle (docs/flow-compute.md)\n"
           "  -q, --quiet          no notices, progress or summary on stderr (but a\n"
           "                       value changed to fit the frames is said)\n"
           "      --progress NAME  the progress line (on a terminal only) headed NAME,\n"
           "                       and shown with -q too, then erased when done: make\n"
           "                       flows names the sequence and method\n"
           "  -v, --verbose        name each file written; summary even for one pair\n"
           "  -h, --help           this help; with -m NAME, also the method's parameters\n"
           "  -V, --version        version, backends and I/O built in\n"
           "\n"
           "Exit status: 0 ok, 1 usage (bad option, value or combination), 2 input/output\n"
           "(missing, unreadable or mismatched frames, a float frame holding NaN, an\n"
           "infinity or a value beyond 1e6, bad .params file, unwritable output),\n"
           "3 compute or device failure (no CUDA device, out of memory);\n"
           "130 when interrupted (after the summary).\n"
           "\n"
           "Examples:\n"
           "  flow-compute a.png b.png -o ab.flo --color --vectors\n"
           "  flow-compute -p ab.flo.params a.png b.png -o again.flo      # same flow\n"
           "  flow-compute -m clg --solver fmg --alpha 300 a.png b.png -o ab.F --timing\n"
           "  flow-compute 'seq/frame%%02d.png' -o 'out/flow%%02d.flo' --device cuda\n"
           "  flow-compute --video clip.y4m -o 'f/%%04d.flo' --color --color-max 8\n"
           "  flow-compute a.png b.png -o ab.flo --timing --timing-depth 4 --repeat 20\n"
           "  flow-compute a.png b.png -o ab.flo -w wf/ --trace --solver v\n");
}

static void print_version(void)
{
    char formats[128];
    cli_print_version();
    printf("flow formats: %s\n", flow_field_format_list(formats, sizeof formats));
}

/* ---- parsing ------------------------------------------------------------- */

/* Appends text to buf[size] at *n; 0 when it does not fit. */
static int append(char *buf, size_t size, size_t *n, const char *text)
{
    size_t len = strlen(text);
    if (*n + len >= size)
        return 0;
    memcpy(buf + *n, text, len + 1);
    *n += len;
    return 1;
}

/* The command line as a shell would take it back: arguments with special
 * characters in single quotes ('\'' for a quote inside). */
static void record_command_line(compute_options *o, int argc, char **argv)
{
    char *buf = o->command_line;
    const size_t size = sizeof o->command_line;
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < argc; i++) {
        const char *a = i == 0 ? "flow-compute" : argv[i];
        const int quote = a[0] == '\0' || strpbrk(a, " \t\n'\"\\$*?%;&|<>()#`~[]{}!") != NULL;
        int fits = append(buf, size, &n, i ? " " : "") && (!quote || append(buf, size, &n, "'"));
        for (const char *c = a; fits && *c; c++) {
            char one[2] = {*c, '\0'};
            fits = append(buf, size, &n, *c == '\'' ? "'\\''" : one);
        }
        if (!fits || (quote && !append(buf, size, &n, "'"))) {
            snprintf(buf + size - 5, 5, " ...");
            return;
        }
    }
}

/* Options of the tool that contradict each other (those of the parameters
 * are checked against the schemas by param_cli_merge). */
static int check_contradictions(const compute_options *o)
{
#define CONTRADICTS(...) return cli_usage_error(COMPUTE_USAGE, "flow-compute", __VA_ARGS__)
    int rc = source_check_options(&o->input);
    if (rc == CLI_EXIT_OK)
        rc = output_check_name(o);
    if (rc == CLI_EXIT_OK && o->input.nframes >= 2) {
        /* a list of frames: its number of flows is known before any file is read */
        const long flows = o->input.nframes - 1;
        rc = output_check(o, o->count && o->count < flows ? o->count : flows);
    }
    if (rc != CLI_EXIT_OK)
        return rc;
    if (o->quiet && o->verbose)
        CONTRADICTS("--quiet and --verbose contradict each other");
    if (!o->color && (o->color_max > 0 || o->legend))
        CONTRADICTS("%s applies to the colour picture: add --color",
                    o->scale_label ? "--scale-label" : o->legend ? "--legend" : "--color-max");
    if (!o->vectors && (o->vector_step || o->vector_zoom || o->vector_scale > 0))
        CONTRADICTS("--vector-step, --vector-scale and --vector-zoom apply to --vectors");
    if ((o->images_named || o->images_bound > 0) && !o->images_dir)
        CONTRADICTS("--flow-names and --flow-bound apply to --flow-images");
    if ((o->color || o->vectors) && !o->output)
        CONTRADICTS("--color and --vectors name their pictures after -o OUT: give -o");
    if (!o->timing && !o->timing_file && (o->timing_depth >= 0 || o->repeat > 0))
        CONTRADICTS("%s applies to timing: add --timing or --timing-file",
                    o->repeat > 0 ? "--repeat" : "--timing-depth");
    if (!output_wanted(o) && !consistency_wanted(o) && !o->timing && !o->timing_file && !o->workflow_dir && !o->trace
        && o->quiet)
        CONTRADICTS("nothing to do: give -o OUT (or --timing, --workflow, --trace); without "
                    "them flow-compute only measures, and --quiet silences the summary");
    if (o->device && cli_device_list(o->device) && (o->timing || o->timing_file || o->workflow_dir || o->trace || o->fb_check > 0))
        CONTRADICTS("--device %s: several devices stream the pairs; --timing, --timing-file, "
                    "--workflow, --trace and --fb-check look at one device's computation",
                    o->device);
    if (o->occlusion_ab && !o->occlusion && !o->confidence)
        CONTRADICTS("--occlusion-a and --occlusion-b set the test of --occlusion and "
                    "--confidence: add one of them");
    if (o->occlusion_ab && o->fb_check > 0)
        CONTRADICTS("--fb-check T is the test with a = 0, b = T^2: not with --occlusion-a or "
                    "--occlusion-b");
    if (o->device && cli_device_list(o->device) && consistency_wanted(o))
        CONTRADICTS("--device %s: several devices stream the pairs; --backward, --occlusion "
                    "and --confidence compute on one device",
                    o->device);
    if (o->init && consistency_wanted(o) && o->fb_check <= 0)
        CONTRADICTS("--init refines the forward flow alone: not with --backward, --occlusion "
                    "or --confidence");
    if (o->init_confidence && !o->init)
        CONTRADICTS("--init-confidence applies to --init: add --init FLOW");
    if (o->init && o->input.nframes != 2)
        CONTRADICTS("--init %s is the flow of one pair: give two frames", o->init);
    if (o->init && (o->fb_check > 0 || (o->device && cli_device_list(o->device))))
        CONTRADICTS("--init refines one flow on one device: not with %s",
                    o->fb_check > 0 ? "--fb-check" : "several devices");
    if (o->edges && o->input.nframes != 2)
        CONTRADICTS("--edges %s is the edge map of one pair's first frame: give two frames",
                    o->edges);
    if (o->edges && (o->fb_check > 0 || (o->device && cli_device_list(o->device))))
        CONTRADICTS("--edges applies to one pair on one device: not with %s",
                    o->fb_check > 0 ? "--fb-check" : "several devices");
    if ((o->matches || o->use_matches) && o->input.nframes != 2)
        CONTRADICTS("%s applies to one pair: give two frames",
                    o->matches ? "--matches" : "--use-matches");
    if ((o->matches || o->use_matches) && (o->fb_check > 0 || (o->device && cli_device_list(o->device))))
        CONTRADICTS("%s applies to one pair on one device: not with %s",
                    o->matches ? "--matches" : "--use-matches",
                    o->fb_check > 0 ? "--fb-check" : "several devices");
#undef CONTRADICTS
    return CLI_EXIT_OK;
}

static int parse_options(int argc, char **argv, compute_options *o)
{
    static param_cli pc;
    static struct option longs[64 + PARAM_NAMES_MAX];
    const int ntool = NTOOL;
    memcpy(longs, tool_options, sizeof tool_options);
    param_cli_init(&pc, tool_options, ntool);
    const int nparam = param_cli_longopts(&pc, longs + ntool, OPT_PARAM_BASE);
    longs[ntool + nparam] = (struct option){0, 0, 0, 0};

    int c, help = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":p:o:m:d:tw:qvhV", longs, NULL)) != -1) {
        if (c >= OPT_PARAM_BASE && c < OPT_PARAM_BASE + nparam) {
            pc.value[c - OPT_PARAM_BASE] = optarg; /* the last one given wins */
            continue;
        }
        const int input = source_parse_option(&o->input, c, optarg);
        if (input < 0)
            return CLI_EXIT_USAGE;
        if (input > 0)
            continue;
        switch (c) {
        case 'm': pc.method = optarg; break;
        case 'p': o->params_file = optarg; break;
        case 'o': o->output = optarg; break;
        case OPT_COUNT:
            if (cli_parse_long("--count", optarg, 1, LONG_MAX, &o->count) != 0)
                return CLI_EXIT_USAGE;
            break;
        case OPT_RGB: o->rgb = 1; break;
        case OPT_COLOR: o->color = 1; break;
        case OPT_COLOR_MAX:
            if (cli_parse_double("--color-max", optarg, 1e-6, 1e6, &o->color_max) != 0)
                return CLI_EXIT_USAGE;
            break;
        case OPT_LEGEND: o->legend = 1; break;
        case OPT_SCALE_LABEL: o->scale_label = o->legend = 1; break;
        case OPT_VECTORS: o->vectors = 1; break;
        case OPT_VECTOR_STEP:
            if (cli_parse_int("--vector-step", optarg, 1, 4096, &o->vector_step) != 0)
                return CLI_EXIT_USAGE;
            break;
        case OPT_VECTOR_SCALE:
            if (cli_parse_double("--vector-scale", optarg, 1e-6, 1e6, &o->vector_scale) != 0)
                return CLI_EXIT_USAGE;
            break;
        case OPT_FB_CHECK:
            if (cli_parse_double("--fb-check", optarg, 1e-6, 1e6, &o->fb_check) != 0)
                return CLI_EXIT_USAGE;
            break;
        case OPT_INIT: o->init = optarg; break;
        case OPT_INIT_CONFIDENCE: o->init_confidence = optarg; break;
        case OPT_MATCHES: o->matches = optarg; break;
        case OPT_USE_MATCHES: o->use_matches = optarg; break;
        case OPT_EDGES: o->edges = optarg; break;
        case OPT_BACKWARD: o->backward = optarg; break;
        case OPT_OCCLUSION: o->occlusion = optarg; break;
        case OPT_CONFIDENCE: o->confidence = optarg; break;
        case OPT_OCCLUSION_A:
            if (cli_parse_double("--occlusion-a", optarg, 0, 1e3, &o->occlusion_a) != 0)
                return CLI_EXIT_USAGE;
            o->occlusion_ab = 1;
            break;
        case OPT_OCCLUSION_B:
            if (cli_parse_double("--occlusion-b", optarg, 0, 1e12, &o->occlusion_b) != 0)
                return CLI_EXIT_USAGE;
            o->occlusion_ab = 1;
            break;
        case OPT_FLOW_IMAGES: o->images_dir = optarg; break;
        case OPT_FLOW_NAMES: {
            static char names[2][1024];
            const char *comma = strchr(optarg, ',');
            if (!comma || strchr(comma + 1, ',') || comma == optarg || !comma[1]
                || (size_t)(comma - optarg) >= sizeof names[0] || strlen(comma + 1) >= sizeof names[1])
                return cli_usage_error(COMPUTE_USAGE, "flow-compute",
                                       "--flow-names %s: expected two name patterns X,Y such as "
                                       "flow_x_%%05d.jpg,flow_y_%%05d.jpg",
                                       optarg);
            snprintf(names[0], sizeof names[0], "%.*s", (int)(comma - optarg), optarg);
            snprintf(names[1], sizeof names[1], "%s", comma + 1);
            o->images_x = names[0];
            o->images_y = names[1];
            o->images_named = 1;
            break;
        }
        case OPT_FLOW_BOUND:
            if (cli_parse_double("--flow-bound", optarg, 1e-6, FLOW_IMAGES_BOUND_MAX,
                                 &o->images_bound) != 0)
                return CLI_EXIT_USAGE;
            break;
        case OPT_VECTOR_ZOOM:
            if (cli_parse_int("--vector-zoom", optarg, 1, 64, &o->vector_zoom) != 0)
                return CLI_EXIT_USAGE;
            break;
        case 'd': o->device = optarg; break;
        case 't': o->timing = 1; break;
        case OPT_TIMING_DEPTH:
            if (cli_parse_int("--timing-depth", optarg, 0, 64, &o->timing_depth) != 0)
                return CLI_EXIT_USAGE;
            break;
        case OPT_TIMING_FILE: o->timing_file = optarg; break;
        case OPT_REPEAT:
            if (cli_parse_int("--repeat", optarg, 1, 1000000, &o->repeat) != 0)
                return CLI_EXIT_USAGE;
            break;
        case 'w': o->workflow_dir = optarg; break;
        case OPT_TRACE: o->trace = 1; break;
        case OPT_PROGRESS: o->progress = optarg; break;
        case 'q': o->quiet = 1; break;
        case 'v': o->verbose = 1; break;
        case 'h': help = 1; break;
        case 'V': print_version(); exit(CLI_EXIT_OK);
        default: return cli_bad_option(c, argv, COMPUTE_USAGE, "flow-compute", NULL);
        }
    }
    if (help) {
        if (pc.method && !flow_method_exists(pc.method))
            return cli_usage_error(COMPUTE_USAGE, "flow-compute", "--method: unknown method '%s'",
                                   pc.method);
        print_help(&pc, pc.method);
        exit(CLI_EXIT_OK);
    }
    o->input.frames = argv + optind;
    o->input.nframes = argc - optind;

    /* The tool's options first: a usage error comes before a file is read. */
    int rc = check_contradictions(o);
    if (rc == CLI_EXIT_OK)
        rc = param_cli_merge(&pc, o->params_file, o->rgb, &o->params);
    if (rc != CLI_EXIT_OK)
        return rc;
    double color = 0;
    flow_params_get_number(o->params, "color", &color);
    o->rgb = color != 0; /* a .params with color,1 reads colour too */
    o->input.channels = o->rgb ? SOURCE_RGB : SOURCE_LUMINANCE;
    o->input.quiet = o->quiet;
    /* Defaults of the tool options that were left unset. */
    if (o->timing_depth < 0)
        o->timing_depth = 2;
    if (o->repeat <= 0)
        o->repeat = 1;
    if (!o->vector_zoom)
        o->vector_zoom = 1;
    if (!o->device)
        o->device = "auto";
    if (o->images_bound <= 0)
        o->images_bound = FLOW_IMAGES_BOUND;
    return CLI_EXIT_OK;
}

int main(int argc, char **argv)
{
    cli_start("flow-compute");
    static compute_options o;
    source_options_init(&o.input, COMPUTE_USAGE, "flow-compute");
    o.timing_depth = -1;
    o.occlusion_a = FLOW_OCCLUSION_A;
    o.occlusion_b = FLOW_OCCLUSION_B;
    o.images_x = FLOW_IMAGES_X;
    o.images_y = FLOW_IMAGES_Y;
    record_command_line(&o, argc, argv);
    int rc = parse_options(argc, argv, &o);
    if (rc == CLI_EXIT_OK)
        rc = run_compute(&o);
    flow_params_destroy(o.params);
    return rc;
}
