/* main.c -- flow-compute: the computing command-line tool (seed 001 section
 * 5.1).  This file owns the command line: options, the parameters (the
 * method's defaults, then a .params file, then the options that name
 * parameters), the checks for options that contradict each other, --help
 * and --version.  run.c does the computation.
 *
 *   flow-compute -p params/clg-nl.params a.png b.png -o ab.flo --timing
 *   flow-compute --video clip.y4m -o flows/f%04d.flo --device cuda
 *
 * Exit codes: 0 ok, 1 usage, 2 input/output, 3 compute/device. */
#include "compute.h"

#include <getopt.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_METHOD FLOW_METHOD_CLG_NL

/* ---- the options that name parameters ---------------------------------- */

typedef enum pkind { P_DOUBLE, P_INT, P_BOOL, P_METHOD, P_SOLVER, P_SMOOTHER, P_WINDOW } pkind;

typedef struct param_option {
    const char *option; /* long option without "--" */
    const char *key;    /* .params key (the flow_params field) */
    pkind kind;
    size_t offset;
    const char *help;
} param_option;

#define POPT(opt, field, kind, help) { opt, #field, kind, offsetof(flow_params, field), help }
static const param_option param_options[] = {
    POPT("method", method, P_METHOD, "lk, hs, clg or clg-nl"),
    POPT("solver", solver, P_SOLVER, "jacobi, rbsor, v, w, cascadic or fmg"),
    POPT("smoother", smoother, P_SMOOTHER, "smoother inside cycles: jacobi or rbsor"),
    POPT("sigma", sigma, P_DOUBLE, "presmoothing K_sigma of the frames, pixels"),
    POPT("rho", rho, P_DOUBLE, "postsmoothing K_rho of the motion tensor, pixels"),
    POPT("alpha", alpha, P_DOUBLE, "weight of the smoothness term"),
    POPT("nonlinear-data", nonlinear_data, P_BOOL, "clg-nl: robust Psi on the data term (0/1)"),
    POPT("nonlinear-smooth", nonlinear_smooth, P_BOOL,
         "clg-nl: robust Psi on the smoothness term (0/1)"),
    POPT("eps-d", eps_d, P_DOUBLE, "clg-nl: epsilon of Psi_D"),
    POPT("eps-s", eps_s, P_DOUBLE, "clg-nl: epsilon of Psi_S"),
    POPT("window", window, P_WINDOW, "lk: gauss (K_rho) or box (s x s, threshold tau)"),
    POPT("window-size", window_size, P_INT, "lk box: side s, odd"),
    POPT("tau", tau, P_DOUBLE, "lk box: minimum-eigenvalue threshold"),
    POPT("fill-unknown", fill_unknown, P_BOOL, "lk: fill unsolvable pixels (0/1)"),
    POPT("iterations", iterations, P_INT, "jacobi/rbsor sweeps; cascadic sweeps per level"),
    POPT("omega", omega, P_DOUBLE, "SOR relaxation factor, 0 < omega < 2"),
    POPT("jacobi-weight", jacobi_weight, P_DOUBLE, "Jacobi damping w, 1 = plain Jacobi"),
    POPT("n0", n0, P_INT, "multigrid: iterations on the coarsest grid"),
    POPT("n1", n1, P_INT, "multigrid: presmoothing iterations"),
    POPT("n2", n2, P_INT, "multigrid: postsmoothing iterations"),
    POPT("cycles", cycles, P_INT, "multigrid: cycles per level (fmg) or in total (v, w)"),
    POPT("max-depth", max_depth, P_INT, "multigrid: deepest level, -1 as deep as possible"),
    POPT("warp-levels", warp_levels, P_INT, "coarse-to-fine warping over N coarser levels, 0 off"),
    POPT("warps", warps, P_INT, "warping: motion tensor + solve passes per level"),
};
#define NPARAMS ((int)(sizeof param_options / sizeof param_options[0]))
enum { OPT_PARAM_BASE = 1000 }; /* getopt value of param_options[i]: base + i */

enum {
    OPT_VIDEO = 300, OPT_CAMERA, OPT_FIRST, OPT_LAST, OPT_COUNT, OPT_RGB, OPT_COLOR,
    OPT_COLOR_MAX, OPT_LEGEND, OPT_VECTORS, OPT_VECTOR_STEP, OPT_VECTOR_SCALE, OPT_VECTOR_ZOOM,
    OPT_TIMING_DEPTH, OPT_TIMING_FILE, OPT_REPEAT, OPT_TRACE
};

static int param_index(const char *key)
{
    for (int i = 0; i < NPARAMS; i++)
        if (strcmp(param_options[i].key, key) == 0)
            return i;
    return -1;
}

/* The value of parameter i of p as text (for --help). */
static void param_text(const flow_params *p, int i, char *buf, size_t size)
{
    const param_option *po = &param_options[i];
    const char *base = (const char *)p + po->offset;
    switch (po->kind) {
    case P_DOUBLE: snprintf(buf, size, "%g", *(const double *)(const void *)base); break;
    case P_INT:
    case P_BOOL: snprintf(buf, size, "%d", *(const int *)(const void *)base); break;
    case P_METHOD: snprintf(buf, size, "%s", flow_method_name(p->method)); break;
    case P_SOLVER: snprintf(buf, size, "%s", flow_solver_name(p->solver)); break;
    case P_SMOOTHER: snprintf(buf, size, "%s", flow_solver_name(p->smoother)); break;
    case P_WINDOW: snprintf(buf, size, "%s", flow_window_name(p->window)); break;
    }
}

/* Parses the text of parameter option i into p (format only: the ranges
 * are checked by flow_params_validate once everything is merged). */
static int param_parse(int i, const char *text, flow_params *p)
{
    const param_option *po = &param_options[i];
    char what[48];
    snprintf(what, sizeof what, "--%s", po->option);
    char *base = (char *)p + po->offset;
    flow_status s = FLOW_OK;
    switch (po->kind) {
    case P_DOUBLE:
        return cli_parse_double(what, text, -1e300, 1e300, (double *)(void *)base);
    case P_INT:
        return cli_parse_int(what, text, INT_MIN + 1, INT_MAX, (int *)(void *)base);
    case P_BOOL:
        return cli_parse_int(what, text, 0, 1, (int *)(void *)base);
    case P_METHOD: s = flow_method_parse(text, &p->method); break;
    case P_SOLVER: s = flow_solver_parse(text, &p->solver); break;
    case P_SMOOTHER:
        s = flow_solver_parse(text, &p->smoother);
        if (s == FLOW_OK && p->smoother != FLOW_SOLVER_JACOBI && p->smoother != FLOW_SOLVER_RBSOR) {
            cli_error("%s: '%s' cannot smooth inside a cycle (expected jacobi or rbsor)", what,
                      text);
            return -1;
        }
        break;
    case P_WINDOW: s = flow_window_parse(text, &p->window); break;
    }
    if (s != FLOW_OK) {
        cli_error("%s: %s", what, flow_last_error());
        return -1;
    }
    return 0;
}

/* Copies parameter i from src to dst. */
static void param_copy(flow_params *dst, const flow_params *src, int i)
{
    const param_option *po = &param_options[i];
    const size_t n = po->kind == P_DOUBLE ? sizeof(double)
                     : po->kind == P_INT || po->kind == P_BOOL ? sizeof(int)
                     : po->kind == P_METHOD ? sizeof(flow_method)
                     : po->kind == P_WINDOW ? sizeof(flow_window)
                                            : sizeof(flow_solver);
    memcpy((char *)dst + po->offset, (const char *)src + po->offset, n);
}

/* ---- help and version --------------------------------------------------- */

static void print_help(void)
{
    flow_params d;
    flow_params_default(&d, DEFAULT_METHOD);
    printf("Usage: " COMPUTE_USAGE "\n"
           "       flow-compute [options] PATTERN|DIRECTORY -o OUT_PATTERN\n"
           "       flow-compute [options] --video FILE | --camera N -o OUT_PATTERN\n"
           "Computes the optical flow from each frame to the next (seed 001 chapter 5.1).\n"
           "\n"
           "Input:\n"
           "  FRAME1 FRAME2 ...    two frames, or a list: the flow of every consecutive pair\n"
           "  PATTERN              a printf pattern with one integer field (seq/f%%03d.png):\n"
           "                       frames --first, --first+1, ... up to --last or the first\n"
           "                       missing file\n"
           "  DIRECTORY            its image files in natural name order (f2 before f10)\n"
           "      --video FILE     a video: .y4m natively (\"-\" is a .y4m stream on stdin),\n"
           "                       other formats through OpenCV when built with it\n"
           "      --camera N       camera N (/dev/videoN) through OpenCV; stop with Ctrl-C\n"
           "      --first N        first index of a PATTERN [0, else 1 when 0 is missing]\n"
           "      --last N         last index of a PATTERN [until a file is missing]\n"
           "      --count N        compute at most N flows [all]\n"
           "      --rgb            compute on the R, G, B channels (their motion tensors\n"
           "                       summed) instead of the luminance [luminance]\n"
           "Output:\n"
           "  -o, --output OUT     the flow file; .flo, .F or .pcm picks the format.  For\n"
           "                       several pairs, a pattern with one integer field, filled\n"
           "                       with the number of the pair's first frame (its pattern\n"
           "                       index, else its position from 0).  OUT.params is written\n"
           "                       beside every flow file with every parameter used.\n"
           "      --color          also write STEM-color.png (Middlebury colour coding)\n"
           "      --color-max R    fixed colour scale, pixels (same colours over a video)\n"
           "                       [the largest vector of each field]\n"
           "      --legend         colour picture framed by the direction key\n"
           "      --vectors        also write STEM-vectors.png (arrows over the frame)\n"
           "      --vector-step N  one arrow every N pixels [8]\n"
           "      --vector-scale S arrow length per pixel of flow [2]\n"
           "      --vector-zoom Z  picture enlarged Z times [1]\n"
           "Parameters (a -p file overrides the defaults, options override the file):\n"
           "  -p, --params FILE    read parameters (key,value lines; # comments)\n");
    for (int i = 0; i < NPARAMS; i++) {
        char def[64], opt[40];
        param_text(&d, i, def, sizeof def);
        snprintf(opt, sizeof opt, "--%s %s", param_options[i].option,
                 param_options[i].kind == P_DOUBLE   ? "X"
                 : param_options[i].kind == P_BOOL ? "0|1"
                 : param_options[i].kind == P_INT  ? "N"
                                                   : "NAME");
        printf("  %s%-16s %s [%s]\n", i == 0 ? "-m, " : "    ", opt, param_options[i].help, def);
    }
    /* The other methods' defaults, where they differ from clg-nl's. */
    printf("                       [defaults] are those of %s; other methods differ in:\n",
           flow_method_name(DEFAULT_METHOD));
    for (int m = FLOW_METHOD_LK; m <= FLOW_METHOD_CLG_NL; m++) {
        flow_params pm;
        flow_params_default(&pm, (flow_method)m);
        if ((flow_method)m == DEFAULT_METHOD)
            continue;
        printf("                         %s:", flow_method_name((flow_method)m));
        for (int i = 1; i < NPARAMS; i++) {
            char a[64], b[64];
            param_text(&d, i, a, sizeof a);
            param_text(&pm, i, b, sizeof b);
            if (strcmp(a, b) != 0)
                printf(" %s %s", param_options[i].option, b);
        }
        printf("\n");
    }
    printf("Device:\n"
           "  -d, --device D       auto, cpu, cuda or cuda:N [auto: CUDA when a GPU is\n"
           "                       usable, else the CPU with a notice]\n"
           "Observing the computation:\n"
           "  -t, --timing         print the hierarchical timer on stdout: per stage ms,\n"
           "                       %% of its parent, frames/s and megapixels/s (on CUDA\n"
           "                       without the graph replay, so that the stages show)\n"
           "      --timing-depth N stage levels timed below the total [2]\n"
           "      --timing-file F  write the timings as CSV (docs/flow-compute.md)\n"
           "      --repeat N       compute each pair N times: mean and median [1]\n"
           "  -w, --workflow DIR   write one image per computation step into DIR\n"
           "      --trace          print the multigrid trace (seed 001 appendix B)\n"
           "  -q, --quiet          no notices, progress or summary on stderr\n"
           "  -v, --verbose        name each file written; summary even for one pair\n"
           "  -h, --help           this help\n"
           "  -V, --version        version, backends and I/O built in\n"
           "\n"
           "Exit status: 0 ok, 1 usage (bad option, value or combination), 2 input/output\n"
           "(missing, unreadable or mismatched frames, bad .params file, unwritable\n"
           "output), 3 compute or device failure (no CUDA device, out of memory);\n"
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
    printf("flow-compute %s (libflow %s)\n", flow_version(), flow_version());
    printf("backends: cpu%s\n", flow_backend_has_cuda() ? ", cuda" : "");
    printf("OpenCV: %s\n", flow_image_has_opencv()
                               ? "yes (all image formats, video files, cameras)"
                               : "no (PGM/PPM, PNG and .y4m video only; no cameras)");
    printf("flow formats: .flo, .F, .pcm\n");
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

/* Whether any of the named parameter options was given. */
static const char *given_any(const int *given, const char *const *keys)
{
    for (; *keys; keys++) {
        int i = param_index(*keys);
        if (i >= 0 && given[i])
            return param_options[i].option;
    }
    return NULL;
}

static int is_multigrid(flow_solver s)
{
    return s == FLOW_SOLVER_VCYCLE || s == FLOW_SOLVER_WCYCLE || s == FLOW_SOLVER_FMG;
}

/* Parameter options that do not apply to the effective parameters: an
 * option the method or solver ignores would silently do nothing. */
static int check_contradictions(const compute_options *o, const int *given)
{
    const flow_params *p = &o->params;
    const char *source = given[param_index("method")] ? "" : o->params_file ? " (from the -p file)"
                                                                           : " (the default)";
    static const char *const variational[] = {"alpha", "solver", "smoother", "iterations",
                                              "omega", "jacobi_weight", "n0", "n1", "n2", "cycles",
                                              "max_depth", "warp_levels", "warps", NULL};
    static const char *const lk_only[] = {"window", "window_size", "tau", "fill_unknown", NULL};
    static const char *const nonlinear[] = {"nonlinear_data", "nonlinear_smooth", "eps_d",
                                            "eps_s", NULL};
    static const char *const cycle_only[] = {"smoother", "n1", "n2", "cycles", NULL};
    static const char *const grid_only[] = {"max_depth", "n0", NULL};
    static const char *const box_only[] = {"window_size", "tau", NULL};
    static const char *const sweeps[] = {"iterations", NULL};
    const char *bad;
    const char *method = flow_method_name(p->method), *solver = flow_solver_name(p->solver);
#define CONTRADICTS(...) return cli_usage_error(COMPUTE_USAGE, "flow-compute", __VA_ARGS__)
    if (p->method == FLOW_METHOD_LK && (bad = given_any(given, variational)))
        CONTRADICTS("--%s contradicts method lk%s: Lucas-Kanade is local, with no smoothness "
                    "term and no solver",
                    bad, source);
    if (p->method != FLOW_METHOD_LK && (bad = given_any(given, lk_only)))
        CONTRADICTS("--%s applies to method lk only, not %s%s", bad, method, source);
    if (p->method != FLOW_METHOD_CLG_NL && (bad = given_any(given, nonlinear)))
        CONTRADICTS("--%s applies to method clg-nl only, not %s%s", bad, method, source);
    if (p->method == FLOW_METHOD_HS && given[param_index("rho")])
        CONTRADICTS("--rho contradicts method hs%s: Horn-Schunck is CLG with rho = 0 (use "
                    "--method clg for rho > 0)",
                    source);
    if (p->method == FLOW_METHOD_LK && p->window == FLOW_WINDOW_GAUSS
        && (bad = given_any(given, box_only)))
        CONTRADICTS("--%s applies to the box window (--window box), not gauss", bad);
    if (p->warp_levels == 0 && given[param_index("warps")])
        CONTRADICTS("--warps applies with warping only (--warp-levels N, N > 0)");
    if (p->method != FLOW_METHOD_LK) {
        if (!is_multigrid(p->solver) && (bad = given_any(given, cycle_only)))
            CONTRADICTS("--%s applies to the cycling solvers v, w and fmg, not --solver %s", bad,
                        solver);
        if ((p->solver == FLOW_SOLVER_JACOBI || p->solver == FLOW_SOLVER_RBSOR)
            && (bad = given_any(given, grid_only)))
            CONTRADICTS("--%s applies to multigrid solvers, not the single-grid --solver %s",
                        bad, solver);
        if (is_multigrid(p->solver) && (bad = given_any(given, sweeps)))
            CONTRADICTS("--iterations applies to jacobi, rbsor and cascadic; --solver %s uses "
                        "--n0, --n1, --n2 and --cycles",
                        solver);
        if (given[param_index("omega")] && p->solver != FLOW_SOLVER_RBSOR
            && !(p->solver != FLOW_SOLVER_JACOBI && p->smoother == FLOW_SOLVER_RBSOR))
            CONTRADICTS("--omega applies to red-black SOR (--solver rbsor, or --smoother rbsor "
                        "in a multigrid solver), not --solver %s with smoother %s",
                        solver, flow_solver_name(p->smoother));
    }
    /* Options of the tool itself. */
    int sources = (o->nframes > 0) + (o->video != NULL) + (o->camera >= 0);
    if (sources > 1)
        CONTRADICTS("give one input: frame arguments, --video or --camera");
    if (sources == 0)
        CONTRADICTS("no input: give two frames, a pattern, a directory, --video or --camera");
    if (o->quiet && o->verbose)
        CONTRADICTS("--quiet and --verbose contradict each other");
    if ((o->first >= 0 || o->last >= 0) && !(o->nframes == 1 && strchr(o->frames[0], '%')))
        CONTRADICTS("--first and --last apply to a PATTERN input (one argument with %%d)");
    if (o->first >= 0 && o->last >= 0 && o->last <= o->first)
        CONTRADICTS("--last %ld must be greater than --first %ld (a pair needs two frames)",
                    o->last, o->first);
    if (!o->color && (o->color_max > 0 || o->legend))
        CONTRADICTS("%s applies to the colour picture: add --color",
                    o->legend ? "--legend" : "--color-max");
    if (!o->vectors && (o->vector_step || o->vector_zoom || o->vector_scale > 0))
        CONTRADICTS("--vector-step, --vector-scale and --vector-zoom apply to --vectors");
    if ((o->color || o->vectors) && !o->output)
        CONTRADICTS("--color and --vectors name their pictures after -o OUT: give -o");
    if (!o->timing && !o->timing_file && (o->timing_depth >= 0 || o->repeat > 0))
        CONTRADICTS("%s applies to timing: add --timing or --timing-file",
                    o->repeat > 0 ? "--repeat" : "--timing-depth");
    if (!o->output && !o->timing && !o->timing_file && !o->workflow_dir && !o->trace)
        CONTRADICTS("nothing to do: give -o OUT (or --timing, --workflow, --trace)");
#undef CONTRADICTS
    return CLI_EXIT_OK;
}

/* Reads the -p file over p (a file naming a method starts from that
 * method's defaults); errors name the file and the line (exit 2). */
static int read_params_file(const char *path, flow_params *p)
{
    flow_status s = flow_params_read(path, p);
    if (s == FLOW_OK)
        return CLI_EXIT_OK;
    cli_error("%s", flow_last_error());
    return CLI_EXIT_IO;
}

/* Validates the merged parameters; a failure caused by an option names it. */
static int validate(const compute_options *o, const int *given)
{
    if (flow_params_validate(&o->params) == FLOW_OK)
        return CLI_EXIT_OK;
    const char *why = flow_last_error();
    char key[64] = "";
    if (strncmp(why, "parameter ", 10) == 0)
        sscanf(why + 10, "%63[a-z_0-9]", key);
    int i = param_index(key);
    if (i >= 0 && given[i])
        return cli_usage_error(COMPUTE_USAGE, "flow-compute", "--%s: %s", param_options[i].option,
                               why);
    return cli_usage_error(COMPUTE_USAGE, "flow-compute", "parameters%s%s: %s",
                           o->params_file ? " of " : "", o->params_file ? o->params_file : "",
                           why);
}

static int parse_options(int argc, char **argv, compute_options *o)
{
    static struct option longs[64 + NPARAMS];
    static const struct option tool_options[] = {
        {"params", required_argument, 0, 'p'},
        {"output", required_argument, 0, 'o'},
        {"video", required_argument, 0, OPT_VIDEO},
        {"camera", required_argument, 0, OPT_CAMERA},
        {"first", required_argument, 0, OPT_FIRST},
        {"last", required_argument, 0, OPT_LAST},
        {"count", required_argument, 0, OPT_COUNT},
        {"rgb", no_argument, 0, OPT_RGB},
        {"color", no_argument, 0, OPT_COLOR},
        {"color-max", required_argument, 0, OPT_COLOR_MAX},
        {"legend", no_argument, 0, OPT_LEGEND},
        {"vectors", no_argument, 0, OPT_VECTORS},
        {"vector-step", required_argument, 0, OPT_VECTOR_STEP},
        {"vector-scale", required_argument, 0, OPT_VECTOR_SCALE},
        {"vector-zoom", required_argument, 0, OPT_VECTOR_ZOOM},
        {"device", required_argument, 0, 'd'},
        {"timing", no_argument, 0, 't'},
        {"timing-depth", required_argument, 0, OPT_TIMING_DEPTH},
        {"timing-file", required_argument, 0, OPT_TIMING_FILE},
        {"repeat", required_argument, 0, OPT_REPEAT},
        {"workflow", required_argument, 0, 'w'},
        {"trace", no_argument, 0, OPT_TRACE},
        {"quiet", no_argument, 0, 'q'},
        {"verbose", no_argument, 0, 'v'},
        {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'},
    };
    const int ntool = (int)(sizeof tool_options / sizeof tool_options[0]);
    memcpy(longs, tool_options, sizeof tool_options);
    for (int i = 0; i < NPARAMS; i++)
        longs[ntool + i] = (struct option){param_options[i].option, required_argument, 0,
                                           OPT_PARAM_BASE + i};
    longs[ntool + NPARAMS] = (struct option){0, 0, 0, 0};

    flow_params cli;           /* values of the parameter options */
    int given[NPARAMS] = {0};  /* which were given */
    flow_params_default(&cli, DEFAULT_METHOD);
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":p:o:m:d:tw:qvhV", longs, NULL)) != -1) {
        if (c == 'm')
            c = OPT_PARAM_BASE + param_index("method");
        if (c >= OPT_PARAM_BASE && c < OPT_PARAM_BASE + NPARAMS) {
            if (param_parse(c - OPT_PARAM_BASE, optarg, &cli) != 0)
                return CLI_EXIT_USAGE;
            given[c - OPT_PARAM_BASE] = 1;
            continue;
        }
        switch (c) {
        case 'p': o->params_file = optarg; break;
        case 'o': o->output = optarg; break;
        case OPT_VIDEO: o->video = optarg; break;
        case OPT_CAMERA:
            if (cli_parse_int("--camera", optarg, 0, 9999, &o->camera) != 0)
                return CLI_EXIT_USAGE;
            break;
        case OPT_FIRST:
            if (cli_parse_long("--first", optarg, 0, 100000000, &o->first) != 0)
                return CLI_EXIT_USAGE;
            break;
        case OPT_LAST:
            if (cli_parse_long("--last", optarg, 0, 100000000, &o->last) != 0)
                return CLI_EXIT_USAGE;
            break;
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
        case OPT_VECTORS: o->vectors = 1; break;
        case OPT_VECTOR_STEP:
            if (cli_parse_int("--vector-step", optarg, 1, 4096, &o->vector_step) != 0)
                return CLI_EXIT_USAGE;
            break;
        case OPT_VECTOR_SCALE:
            if (cli_parse_double("--vector-scale", optarg, 1e-6, 1e6, &o->vector_scale) != 0)
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
        case 'q': o->quiet = 1; break;
        case 'v': o->verbose = 1; break;
        case 'h': print_help(); exit(CLI_EXIT_OK);
        case 'V': print_version(); exit(CLI_EXIT_OK);
        default: return cli_bad_option(c, argv, COMPUTE_USAGE, "flow-compute", NULL);
        }
    }
    o->frames = argv + optind;
    o->nframes = argc - optind;

    /* Parameters: the method's defaults, then the file, then the options. */
    flow_params_default(&o->params, given[param_index("method")] ? cli.method : DEFAULT_METHOD);
    if (o->params_file) {
        int rc = read_params_file(o->params_file, &o->params);
        if (rc != CLI_EXIT_OK)
            return rc;
    }
    for (int i = 0; i < NPARAMS; i++)
        if (given[i])
            param_copy(&o->params, &cli, i);
    if (o->rgb)
        o->params.color = 1;
    o->rgb = o->params.color; /* a .params with color,1 reads colour too */
    int rc = validate(o, given);
    if (rc == CLI_EXIT_OK)
        rc = check_contradictions(o, given);
    if (rc != CLI_EXIT_OK)
        return rc;
    /* Defaults of the tool options that were left unset. */
    if (o->timing_depth < 0)
        o->timing_depth = 2;
    if (o->repeat <= 0)
        o->repeat = 1;
    if (!o->vector_step)
        o->vector_step = 8;
    if (!o->vector_zoom)
        o->vector_zoom = 1;
    if (!(o->vector_scale > 0))
        o->vector_scale = 2;
    if (!o->device)
        o->device = "auto";
    return CLI_EXIT_OK;
}

int main(int argc, char **argv)
{
    cli_set_program("flow-compute");
    static compute_options o;
    o.camera = -1;
    o.first = o.last = -1;
    o.timing_depth = -1;
    record_command_line(&o, argc, argv);
    int rc = parse_options(argc, argv, &o);
    if (rc != CLI_EXIT_OK)
        return rc;
    return run_compute(&o);
}
