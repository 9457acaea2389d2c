/* output.c -- what flow-compute writes for each pair: the flow file (format
 * by extension), OUT.params beside it with every parameter used, and on
 * request the colour and vector pictures (libflow/include/flow/render.h,
 * the code flow-tool uses).  Names: -o is a plain name for one flow, or a
 * pattern with one integer field filled with the number of the pair's
 * first frame; pictures are STEM-color.png and STEM-vectors.png. */
#include "compute.h"
#include "pattern.h"

#include <stdio.h>
#include <string.h>

int output_check(const compute_options *o, long flows)
{
    if (!o->output)
        return CLI_EXIT_OK;
    if (!cli_has_suffix(o->output, ".flo") && !cli_has_suffix(o->output, ".F")
        && !cli_has_suffix(o->output, ".pcm"))
        return cli_usage_error(COMPUTE_USAGE, "flow-compute",
                               "-o %s: unknown flow format (the extension must be .flo, .F or "
                               ".pcm)",
                               o->output);
    const int fields = cli_pattern_fields(o->output);
    if (fields < 0 || fields > 1)
        return cli_usage_error(COMPUTE_USAGE, "flow-compute",
                               "-o %s: not a name pattern (one integer field such as %%04d; %%%% "
                               "for a percent sign)",
                               o->output);
    if (o->count == 1)
        flows = 1;
    if (fields == 0 && flows != 1) {
        if (flows < 0)
            return cli_usage_error(COMPUTE_USAGE, "flow-compute",
                                   "-o %s names one file but a video gives a flow per frame: "
                                   "use a pattern such as flow%%04d.flo (or --count 1)",
                                   o->output);
        return cli_usage_error(COMPUTE_USAGE, "flow-compute",
                               "-o %s names one file but %ld flows are computed: use a pattern "
                               "such as flow%%04d.flo",
                               o->output, flows);
    }
    return CLI_EXIT_OK;
}

int output_name(const compute_options *o, long n, char *buf, size_t size)
{
    if (cli_pattern_format(buf, size, o->output, n) != 0) {
        cli_error("-o %s: the name for pair %ld is too long", o->output, n);
        return CLI_EXIT_IO;
    }
    return CLI_EXIT_OK;
}

/* "stem-suffix.png" from "stem.ext": the names of the pictures. */
static void picture_name(const char *flow_name, const char *suffix, char *buf, size_t size)
{
    const char *slash = strrchr(flow_name, '/');
    const char *dot = strrchr(slash ? slash + 1 : flow_name, '.');
    int stem = dot ? (int)(dot - flow_name) : (int)strlen(flow_name);
    snprintf(buf, size, "%.*s-%s.png", stem, flow_name, suffix);
}

static void wrote(const compute_options *o, const char *name)
{
    if (o->verbose)
        fprintf(stderr, "flow-compute: wrote %s\n", name);
}

static int write_color(const compute_options *o, const char *name, const flow_field *f)
{
    flow_image rgb = {0};
    flow_status s = o->legend ? flow_render_color_framed(f, o->color_max, 0, &rgb, NULL)
                              : flow_render_color(f, o->color_max, &rgb, NULL);
    if (s == FLOW_OK)
        s = flow_image_write(name, &rgb);
    flow_image_free(&rgb);
    if (s != FLOW_OK)
        return cli_report_status(s);
    wrote(o, name);
    return CLI_EXIT_OK;
}

static int write_vectors(const compute_options *o, const char *name, const flow_field *f,
                         const flow_image *frame1)
{
    static const float arrow[3] = {255.0f, 40.0f, 40.0f};
    flow_image img = {0};
    flow_status s = flow_render_zoom_rgb(frame1, o->vector_zoom, &img);
    if (s == FLOW_OK)
        s = flow_render_vectors(f, o->vector_step, o->vector_scale * o->vector_zoom, arrow, &img);
    if (s == FLOW_OK)
        s = flow_image_write(name, &img);
    flow_image_free(&img);
    if (s != FLOW_OK)
        return cli_report_status(s);
    wrote(o, name);
    return CLI_EXIT_OK;
}

int output_write(const compute_options *o, const char *name, const flow_field *f,
                 const flow_image *frame1, const char *header)
{
    flow_status s = flow_field_write(name, f);
    if (s != FLOW_OK)
        return cli_report_status(s);
    wrote(o, name);
    char path[4200];
    snprintf(path, sizeof path, "%s.params", name);
    s = flow_params_write(path, o->params, header);
    if (s != FLOW_OK) {
        /* A flow file without its parameters cannot be reproduced. */
        int rc = cli_report_status(s);
        remove(name);
        return rc;
    }
    wrote(o, path);
    if (o->color) {
        picture_name(name, "color", path, sizeof path);
        int rc = write_color(o, path, f);
        if (rc != CLI_EXIT_OK)
            return rc;
    }
    if (o->vectors) {
        picture_name(name, "vectors", path, sizeof path);
        int rc = write_vectors(o, path, f, frame1);
        if (rc != CLI_EXIT_OK)
            return rc;
    }
    return CLI_EXIT_OK;
}
