/* main.c -- flow-tool, the flow-file command-line tool (seed 001 section
 * 5.2): converts between the flow formats of libflow's table (flow-tool
 * formats lists them), measures errors against ground
 * truth, checks a forward flow against its backward flow, draws colour
 * codings, legends, vector plots, blends, mixes and montages, and splits
 * videos into frames.
 * This file dispatches to the subcommands and holds the read/write helpers
 * they share; each subcommand parses its own options with getopt_long.
 *
 * Exit codes: 0 ok, 1 usage, 2 input/output (missing, corrupt or
 * mismatched files), 3 computation (out of memory). */
#include "tool.h"
#include "cli.h"
#include "outputs.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    int (*run)(int, char **);
    const char *summary;
} commands[] = {
    {"convert", cmd_convert, "convert IN OUT          between flow formats (see formats)"},
    {"error", cmd_error, "error EST GT            angular and endpoint errors (AAE, AEE)"},
    {"fb-check", cmd_fbcheck,
     "fb-check FWD BWD        forward-backward check: density (-o: the checked flow)"},
    {"warp", cmd_warp, "warp FRAME2 FLOW OUT    the second frame warped back along the flow"},
    {"photo-error", cmd_photo_error,
     "photo-error F1 F2 W OUT  |frame 1 - warped frame 2| as a picture"},
    {"color", cmd_color, "color IN OUT.png        Middlebury colour coding (--legend: key frame)"},
    {"legend", cmd_legend, "legend OUT.png          the colour wheel alone"},
    {"vectors", cmd_vectors, "vectors IN OUT.png      vector (quiver) plot"},
    {"blend", cmd_blend, "blend FRAME IN OUT.png  frame blended with the colour coding"},
    {"mix", cmd_mix, "mix IN OUT.png          colour coding with vectors over it"},
    {"occlusion", cmd_occlusion,
     "occlusion F MASK OUT    an occlusion mask (flow-compute --occlusion) over frame F"},
    {"confidence", cmd_confidence,
     "confidence MAP OUT.png  a confidence map (flow-compute --confidence) with its key"},
    {"matches", cmd_matches,
     "matches F M OUT.png     sparse matches (flow-compute --matches) over frame F"},
    {"montage", cmd_montage,
     "montage EST OUT.png     labelled panels: colour, vectors, errors (--gt)"},
    {"info", cmd_info, "info IN                 size, ranges, magnitudes, unknown count"},
    {"video", cmd_video, "video FLOW... OUT.y4m   colour codings as a video (.avi, .mp4 with OpenCV)"},
    {"frames", cmd_frames, "frames VIDEO PATTERN    a video's frames as images (.y4m; more with OpenCV)"},
    {"from-images", cmd_from_images,
     "from-images X Y OUT     a flow from its two 8-bit images (flow-compute --flow-images)"},
    {"formats", cmd_formats, "formats                 the flow file formats, one per line"},
};
enum { NCOMMANDS = sizeof commands / sizeof commands[0] };

static void usage(FILE *out)
{
    fprintf(out,
            "usage: flow-tool COMMAND [OPTIONS] ARGS...\n"
            "       flow-tool COMMAND --help | flow-tool --help | flow-tool --version\n"
            "Converts, compares, checks and draws optical flow files; splits videos\n"
            "into frames.\n"
            "\n"
            "Commands:\n");
    for (int i = 0; i < NCOMMANDS; i++)
        fprintf(out, "  %s\n", commands[i].summary);
    fprintf(out, "\nFlow files, by extension (any case):\n");
    for (int i = 0; i < flow_field_format_count(); i++) {
        const flow_field_format *f = flow_field_format_at(i);
        fprintf(out, "  .%-4s %s\n", f->extension, f->name);
    }
    fprintf(out,
            "A .png given where a flow is expected is a KITTI flow PNG (16-bit);\n"
            "8-bit PNGs are images (frames, masks, pictures).\n"
            "\n"
            "Pictures are written by extension: .png, .ppm, .pgm (more with OpenCV).\n"
            "Exit status: 0 ok, 1 usage, 2 input/output (missing, corrupt or\n"
            "mismatched files, NaN in an estimate), 3 computation (out of\n"
            "memory).  docs/flow-tool.md has examples; docs/FORMATS.md the file\n"
            "formats.\n");
}

int main(int argc, char **argv)
{
    cli_start("flow-tool");
    if (argc < 2)
        return cli_usage_error("flow-tool COMMAND [OPTIONS] ARGS...", "flow-tool",
                               "no command given");
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
        char list[128];
        cli_print_version();
        printf("flow formats: %s\n", flow_field_format_list(list, sizeof list));
        return CLI_EXIT_OK;
    }
    for (int i = 0; i < NCOMMANDS; i++)
        if (strcmp(cmd, commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    return cli_usage_error("flow-tool COMMAND [OPTIONS] ARGS...", "flow-tool",
                           "unknown command '%s' (commands: convert, error, fb-check, warp, "
                           "photo-error, color, legend, vectors, blend, mix, occlusion, confidence, "
                           "matches, montage, info, "
                           "video, frames, from-images, formats)",
                           cmd);
}

/* ---- helpers shared by the subcommands ---------------------------------- */

int tool_read_field(const char *path, flow_field *f)
{
    flow_status s = flow_field_read(path, f);
    return s == FLOW_OK ? CLI_EXIT_OK : cli_report_status(s);
}

int tool_write_field(const char *path, const flow_field *f)
{
    flow_status s = flow_field_write(path, f);
    return s == FLOW_OK ? CLI_EXIT_OK : cli_report_status(s);
}

int tool_read_image(const char *path, flow_image *img)
{
    flow_status s = flow_image_read(path, img);
    return s == FLOW_OK ? CLI_EXIT_OK : cli_report_status(s);
}

int tool_write_image(const char *path, const flow_image *img)
{
    flow_status s = flow_image_write(path, img);
    return s == FLOW_OK ? CLI_EXIT_OK : cli_report_status(s);
}

int tool_read_map(const char *path, const char *what, int w, int h, flow_image *img)
{
    const flow_status s = flow_image_read(path, img);
    if (s != FLOW_OK)
        return tool_fail(path, s);
    if (img->channels != 1 || (w && (img->width != w || img->height != h))) {
        if (w)
            cli_error("%s %s is %dx%d with %d channel%s: expected one grey channel of %dx%d",
                      what, path, img->width, img->height, img->channels,
                      img->channels == 1 ? "" : "s", w, h);
        else
            cli_error("%s %s has %d channels: expected one grey channel", what, path,
                      img->channels);
        flow_image_free(img);
        return CLI_EXIT_IO;
    }
    for (size_t i = 0; i < (size_t)img->width * img->height; i++)
        img->data[i] /= 255.0f;
    return CLI_EXIT_OK;
}

int tool_read_mask(const char *path, const char *gt_path, int width, int height,
                   unsigned char **out)
{
    flow_image m;
    int rc = tool_read_image(path, &m);
    if (rc)
        return rc;
    if (m.width != width || m.height != height) {
        cli_error("mask %s is %dx%d but the ground truth %s is %dx%d: sizes must match", path,
                  m.width, m.height, gt_path, width, height);
        flow_image_free(&m);
        return CLI_EXIT_IO;
    }
    const size_t n = (size_t)m.width * m.height;
    unsigned char *mask = malloc(n);
    if (!mask) {
        flow_image_free(&m);
        cli_error("mask %s: out of memory for %dx%d pixels", path, m.width, m.height);
        return CLI_EXIT_COMPUTE;
    }
    for (size_t i = 0; i < n; i++) {
        int on = 0;
        for (int c = 0; c < m.channels; c++)
            on |= m.data[c * n + i] > 0.0f;
        mask[i] = (unsigned char)on;
    }
    flow_image_free(&m);
    *out = mask;
    return CLI_EXIT_OK;
}

int tool_write_text(const char *path, const char *target, const char *text)
{
    flow_atomic a;
    flow_status s = flow_atomic_open(&a, path);
    if (s == FLOW_OK) {
        fputs(text, a.f);
        s = flow_atomic_commit(&a);
    }
    return s == FLOW_OK ? CLI_EXIT_OK : output_report(s, path, target);
}

int tool_fail(const char *path, flow_status s)
{
    const char *detail = *flow_last_error() ? flow_last_error() : flow_status_str(s);
    if (strstr(detail, path))
        cli_error("%s", detail);
    else
        cli_error("%s: %s", path, detail);
    return cli_exit_for_status(s);
}

int tool_bad_option(int c, char **argv, const char *usage_line, const char *cmd)
{
    char help[64];
    snprintf(help, sizeof help, "flow-tool %s", cmd);
    return cli_bad_option(c, argv, usage_line, help, cmd);
}

int tool_check_args(int argc, int want, const char *usage_line, const char *cmd)
{
    char help[64];
    snprintf(help, sizeof help, "flow-tool %s", cmd);
    const int have = argc - optind;
    if (have < want)
        return cli_usage_error(usage_line, help, "%s: missing argument (%d given, %d expected)",
                               cmd, have, want);
    if (have > want)
        return cli_usage_error(usage_line, help, "%s: too many arguments (%d given, %d expected)",
                               cmd, have, want);
    return CLI_EXIT_OK;
}

const char *tool_format_name(const char *path, char *buf, size_t size)
{
    const flow_field_format *f = flow_field_format_of(path);
    if (!f)
        return "unknown";
    snprintf(buf, size, ".%s (%s)", f->extension, f->name);
    return buf;
}
