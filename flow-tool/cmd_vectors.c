/* cmd_vectors.c -- vector (quiver) plots: `flow-tool vectors` (arrows on
 * white or over a frame of the sequence) and `flow-tool mix` (arrows over
 * the colour coding, seed 001 figure 5.10).  When gnuplot is on PATH the
 * plot goes through it: the background is handed over as a binary RGB
 * array, the arrows as "x y dx dy" lines, and a generated script renders a
 * PNG (pngcairo, or png where cairo is missing) that is read back and
 * written to OUT.  Otherwise, or with --direct, libflow draws the arrows
 * itself (flow_render_vectors): GPU hosts and pipelines often lack gnuplot. */
#include "tool.h"
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

typedef struct vec_opts {
    int step;       /* one arrow every `step` pixels; <= 0: automatic */
    double scale;   /* arrow = scale * (u, v); <= 0: automatic */
    int zoom;       /* output enlargement */
    int rgb[3];     /* arrow colour */
    int have_rgb;   /* rgb given on the command line */
    int direct;     /* never use gnuplot */
    int verbose;
} vec_opts;

/* The full path of `name` on PATH, into buf; 0 when absent. */
static int find_on_path(const char *name, char *buf, size_t size)
{
    const char *path = getenv("PATH");
    while (path && *path) {
        const char *colon = strchr(path, ':');
        size_t len = colon ? (size_t)(colon - path) : strlen(path);
        if (len > 0 && snprintf(buf, size, "%.*s/%s", (int)len, path, name) < (int)size &&
            access(buf, X_OK) == 0)
            return 1;
        path = colon ? colon + 1 : NULL;
    }
    return 0;
}

/* ---- gnuplot ---------------------------------------------------------------- */

typedef struct scratch {
    char dir[1024], bg[1100], vec[1100], script[1100], png[1100], log[1100];
} scratch;

static void scratch_remove(scratch *s)
{
    remove(s->bg), remove(s->vec), remove(s->script), remove(s->png), remove(s->log);
    rmdir(s->dir);
}

static int scratch_make(scratch *s)
{
    const char *base = getenv("TMPDIR");
    snprintf(s->dir, sizeof s->dir, "%s/flow-tool.XXXXXX", base && *base ? base : "/tmp");
    if (strchr(s->dir, '\'') || strchr(s->dir, '\n')) {
        cli_error("TMPDIR '%s' contains a quote or newline: gnuplot cannot be given it", base);
        return CLI_EXIT_IO;
    }
    if (!mkdtemp(s->dir)) {
        cli_error("cannot make a scratch directory %s: %s", s->dir, strerror(errno));
        return CLI_EXIT_IO;
    }
    snprintf(s->bg, sizeof s->bg, "%s/background.rgb", s->dir);
    snprintf(s->vec, sizeof s->vec, "%s/vectors.dat", s->dir);
    snprintf(s->script, sizeof s->script, "%s/plot.gp", s->dir);
    snprintf(s->png, sizeof s->png, "%s/plot.png", s->dir);
    snprintf(s->log, sizeof s->log, "%s/gnuplot.log", s->dir);
    return CLI_EXIT_OK;
}

/* Writes the background (RGB bytes, top row first), the arrows and the
 * script.  Returns an exit code. */
static int write_gnuplot_input(const scratch *s, const flow_field *f, const flow_image *canvas,
                               const vec_opts *o)
{
    const int W = f->width, H = f->height;
    const size_t n = (size_t)W * H;
    FILE *bg = fopen(s->bg, "wb"), *vec = fopen(s->vec, "w"), *gp = fopen(s->script, "w");
    int bad = !bg || !vec || !gp;
    for (size_t i = 0; i < n && !bad; i++)
        for (int b = 0; b < 3; b++) {
            float x = canvas->data[(canvas->channels == 3 ? b * n : 0) + i];
            x = x < 0 ? 0 : x > 255 ? 255 : x;
            bad |= fputc((int)lroundf(x), bg) == EOF;
        }
    for (int y = o->step / 2; y < H && !bad; y += o->step)
        for (int x = o->step / 2; x < W; x += o->step) {
            const size_t i = (size_t)y * W + x;
            if (!flow_is_unknown(f->u[i], f->v[i]))
                fprintf(vec, "%d %d %.6g %.6g\n", x, y, o->scale * f->u[i], o->scale * f->v[i]);
        }
    if (!bad) {
        fprintf(vec, "# end\n");
        fprintf(gp,
                "# flow-tool vectors: generated gnuplot script\n"
                "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
                "    set terminal pngcairo size %d,%d\n"
                "} else {\n"
                "    set terminal png size %d,%d\n"
                "}\n"
                "set output '%s'\n"
                "set lmargin at screen 0\nset rmargin at screen 1\n"
                "set bmargin at screen 0\nset tmargin at screen 1\n"
                "unset border\nunset tics\nunset key\n"
                "set xrange [-0.5:%d.5]\nset yrange [%d.5:-0.5]\n"
                "plot '%s' binary array=(%d,%d) format='%%uchar%%uchar%%uchar' with rgbimage, \\\n"
                "     '%s' using 1:2:3:4 with vectors head filled size first %.4g,25 "
                "lw %g lc rgb '#%02x%02x%02x'\n",
                W * o->zoom, H * o->zoom, W * o->zoom, H * o->zoom, s->png, W - 1, H - 1,
                s->bg, W, H, s->vec, 0.3 * o->step, (double)o->zoom, o->rgb[0],
                o->rgb[1], o->rgb[2]);
    }
    if (bg)
        bad |= fclose(bg) != 0;
    if (vec)
        bad |= fclose(vec) != 0;
    if (gp)
        bad |= fclose(gp) != 0;
    if (bad) {
        cli_error("cannot write gnuplot's input in %s: %s", s->dir, strerror(errno));
        return CLI_EXIT_IO;
    }
    return CLI_EXIT_OK;
}

/* Prints the last lines gnuplot wrote. */
static void show_log(const char *log)
{
    FILE *f = fopen(log, "r");
    char line[512];
    int shown = 0;
    while (f && fgets(line, sizeof line, f) && shown < 20) {
        if (line[0] != '\n') {
            fprintf(stderr, "  gnuplot: %s", line);
            shown++;
        }
    }
    if (f)
        fclose(f);
}

static int run_gnuplot(const char *gnuplot, const char *in, const scratch *s)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, s->log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    char *args[3] = {(char *)"gnuplot", (char *)s->script, NULL};
    pid_t pid;
    int err = posix_spawn(&pid, gnuplot, &fa, NULL, args, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (err) {
        cli_error("cannot run %s: %s", gnuplot, strerror(err));
        return CLI_EXIT_COMPUTE;
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            cli_error("waiting for gnuplot: %s", strerror(errno));
            return CLI_EXIT_COMPUTE;
        }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        cli_error("%s: gnuplot failed to draw it (%s %d); its messages:", in,
                  WIFEXITED(status) ? "exit status" : "signal",
                  WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
        show_log(s->log);
        return CLI_EXIT_COMPUTE;
    }
    return CLI_EXIT_OK;
}

static int plot_gnuplot(const char *gnuplot, const flow_field *f, const flow_image *canvas,
                        const vec_opts *o, const char *in, const char *out)
{
    scratch s;
    int rc = scratch_make(&s);
    if (rc)
        return rc;
    if (!(rc = write_gnuplot_input(&s, f, canvas, o)) && !(rc = run_gnuplot(gnuplot, in, &s))) {
        flow_image img;
        flow_status st = flow_image_read(s.png, &img);
        if (st != FLOW_OK) {
            cli_error("%s: cannot read gnuplot's picture of %s back: %s", out, in,
                      flow_last_error());
            show_log(s.log);
            rc = CLI_EXIT_COMPUTE;
        } else {
            rc = tool_write_image(out, &img);
            flow_image_free(&img);
        }
    }
    scratch_remove(&s);
    return rc;
}

/* ---- drawing ---------------------------------------------------------------- */

static int plot_direct(const flow_field *f, const flow_image *canvas, const vec_opts *o,
                       const char *in, const char *out)
{
    flow_image img;
    flow_status s = flow_render_zoom_rgb(canvas, o->zoom, &img);
    if (s == FLOW_OK) {
        const float rgb[3] = {(float)o->rgb[0], (float)o->rgb[1], (float)o->rgb[2]};
        s = flow_render_vectors(f, o->step, o->scale, rgb, &img);
        if (s != FLOW_OK)
            flow_image_free(&img);
    }
    if (s != FLOW_OK)
        return tool_fail(in, s);
    int rc = tool_write_image(out, &img);
    flow_image_free(&img);
    return rc;
}

/* Draws f's arrows (read from `in`) over canvas (RGB or gray, f's size)
 * into out. */
static int plot(const flow_field *f, const flow_image *canvas, vec_opts *o, const char *in,
                const char *out)
{
    if (o->step <= 0) { /* automatic: about 30 arrows across the smaller side */
        const int side = f->width < f->height ? f->width : f->height;
        o->step = (int)lround(side / 30.0);
        o->step = o->step < 4 ? 4 : o->step;
    }
    if (o->scale <= 0) { /* automatic: the longest known vector is 0.9 step */
        const double m = flow_max_radius(f);
        o->scale = m > 0 ? 0.9 * o->step / m : 1.0;
    }
    char gnuplot[4096];
    const int use_gnuplot = !o->direct && find_on_path("gnuplot", gnuplot, sizeof gnuplot);
    if (o->verbose)
        printf("step: %d px\nscale: %.6g (arrow length per pixel of motion)\ndrawn by: %s\n",
               o->step, o->scale, use_gnuplot ? gnuplot : "flow-tool (direct)");
    return use_gnuplot ? plot_gnuplot(gnuplot, f, canvas, o, in, out)
                       : plot_direct(f, canvas, o, in, out);
}

/* Parses the options common to vectors and mix; returns -1 when the option
 * is not one of them, else an exit code (0: parsed). */
static int common_option(int c, vec_opts *o, const char *cmd)
{
    char what[64];
    switch (c) {
    case 's':
        if (strcmp(optarg, "auto") == 0) {
            o->step = 0;
            return 0;
        }
        snprintf(what, sizeof what, "%s: --step", cmd);
        return cli_parse_int(what, optarg, 1, 4096, &o->step) ? CLI_EXIT_USAGE : 0;
    case 'k':
        if (strcmp(optarg, "auto") == 0) {
            o->scale = 0;
            return 0;
        }
        snprintf(what, sizeof what, "%s: --scale", cmd);
        return cli_parse_double(what, optarg, 1e-6, 1e6, &o->scale) ? CLI_EXIT_USAGE : 0;
    case 'z':
        snprintf(what, sizeof what, "%s: --zoom", cmd);
        return cli_parse_int(what, optarg, 1, 16, &o->zoom) ? CLI_EXIT_USAGE : 0;
    case 'c':
        snprintf(what, sizeof what, "%s: --arrow-color", cmd);
        o->have_rgb = 1;
        return cli_parse_int_list(what, optarg, 3, 0, 255, o->rgb) ? CLI_EXIT_USAGE : 0;
    case 'd': o->direct = 1; return 0;
    case 'v': o->verbose = 1; return 0;
    default: return -1;
    }
}

#define COMMON_HELP                                                                          \
    "  -s, --step N|auto     one arrow every N pixels, 1..4096; auto: the smaller\n"        \
    "                        side / 30, at least 4 [default: auto]\n"                      \
    "  -k, --scale S|auto    arrow length = S times the motion; auto makes the\n"          \
    "                        longest known vector 0.9 step long [default: auto]\n"         \
    "  -z, --zoom Z          enlarge the picture Z times, 1..16 [default: 1]\n"            \
    "  -c, --arrow-color R,G,B  arrow colour, 0..255 each\n"                              \
    "                        [default: %s]\n"                                              \
    "  -d, --direct          draw in flow-tool even when gnuplot is there\n"               \
    "  -v, --verbose         print the scale and what drew the arrows\n"                   \
    "  -h, --help            this help\n"                                                  \
    "\n"                                                                                   \
    "Drawing: through gnuplot when `gnuplot` is on PATH (a generated script,\n"            \
    "PNG terminal, read back and written to OUT); drawn directly by flow-tool\n"           \
    "(anti-aliased arrows) when it is not, or with --direct.  Unknown vectors\n"           \
    "get no arrow.  OUT is written by extension (.png, .ppm, .pgm).\n"                      \
    "\n"                                                                                   \
    "Exit status: 0 ok, 1 usage, 2 input/output (also: frame and flow of\n"                \
    "different sizes), 3 drawing failed (gnuplot, out of memory).\n"

#define COMMON_LONG                                                                          \
    {"step", required_argument, NULL, 's'}, {"scale", required_argument, NULL, 'k'},            \
        {"zoom", required_argument, NULL, 'z'}, {"arrow-color", required_argument, NULL, 'c'},  \
        {"direct", no_argument, NULL, 'd'}, {"verbose", no_argument, NULL, 'v'},                 \
        {"help", no_argument, NULL, 'h'}

static const struct option vectors_long[] = {
    COMMON_LONG, {"background", required_argument, NULL, 'b'}, {NULL, 0, NULL, 0}};
static const struct option mix_long[] = {
    COMMON_LONG, {"max", required_argument, NULL, 'm'}, {NULL, 0, NULL, 0}};

static const char vectors_usage[] =
    "flow-tool vectors [--step N] [--scale S] [--background FRAME] [--direct] IN OUT.png";

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
           "                        [default: white]\n" COMMON_HELP,
           vectors_usage, "0,0,0 on white, 255,255,0 over a frame");
}

int cmd_vectors(int argc, char **argv)
{
    vec_opts o = {0, 0, 1, {0, 0, 0}, 0, 0, 0};
    const char *background = NULL;
    int c, rc;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":s:k:z:c:dvb:h", vectors_long, NULL)) != -1) {
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
        if (!o.have_rgb)
            o.rgb[0] = 255, o.rgb[1] = 255, o.rgb[2] = 0;
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

static const char mix_usage[] =
    "flow-tool mix [--max R] [--step N] [--scale S] [--direct] IN OUT.png";

static void mix_help(void)
{
    printf("usage: %s\n"
           "\n"
           "Draws the vector plot of a flow file over its colour coding (seed 001\n"
           "figure 5.10): direction and length read from both at once.\n"
           "\n"
           "Options:\n"
           "  -m, --max R           fix the colour scale R in pixels [default: the\n"
           "                        largest known length in IN]\n" COMMON_HELP,
           mix_usage, "0,0,0");
}

int cmd_mix(int argc, char **argv)
{
    vec_opts o = {0, 0, 1, {0, 0, 0}, 0, 0, 0};
    double max_radius = 0;
    int c, rc;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":s:k:z:c:dvm:h", mix_long, NULL)) != -1) {
        if ((rc = common_option(c, &o, "mix")) >= 0) {
            if (rc)
                return rc;
        } else if (c == 'm') {
            if (cli_parse_double("mix: --max", optarg, 1e-6, 1e9, &max_radius))
                return CLI_EXIT_USAGE;
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
    flow_status s = flow_render_color(&f, max_radius, &canvas, NULL);
    if (s != FLOW_OK) {
        flow_field_free(&f);
        return tool_fail(argv[optind], s);
    }
    rc = plot(&f, &canvas, &o, argv[optind], argv[optind + 1]);
    flow_image_free(&canvas);
    flow_field_free(&f);
    return rc;
}
