/* output.c -- what flow-compute writes for each pair: the flow file (format
 * by extension), OUT.params beside it with every parameter used, and on
 * request the colour and vector pictures (libflow/include/flow/render.h,
 * the code flow-tool uses).  Names: -o is a plain name for one flow, or a
 * pattern with one integer field filled with the number of the pair's
 * first frame; pictures are STEM-color.png and STEM-vectors.png.  With
 * --flow-images DIR each flow is also (or only) written as two 8-bit
 * images in DIR (tools-common/flowimages.h), numbered from 1 in the order
 * of the pairs as denseflow numbers them, and DIR/flow.params comes with
 * the first.  A pair's files are written as a group
 * (tools-common/outputs.h): all of them appear, or none. */
#include "compute.h"
#include "flowimages.h"
#include "pattern.h"

#include <stdio.h>
#include <string.h>

int output_wanted(const compute_options *o)
{
    return o->output || o->images_dir;
}

int output_check_name(const compute_options *o)
{
    if (o->images_dir) {
        int rc = flow_images_check_name("--flow-names", o->images_x, COMPUTE_USAGE,
                                        "flow-compute");
        if (rc == CLI_EXIT_OK)
            rc = flow_images_check_name("--flow-names", o->images_y, COMPUTE_USAGE,
                                        "flow-compute");
        if (rc == CLI_EXIT_OK && strcmp(o->images_x, o->images_y) == 0)
            rc = cli_usage_error(COMPUTE_USAGE, "flow-compute",
                                 "--flow-names: the x and y images need names of their own "
                                 "(both %s)",
                                 o->images_x);
        if (rc != CLI_EXIT_OK)
            return rc;
    }
    if (!o->output)
        return CLI_EXIT_OK;
    char formats[128];
    if (!flow_field_format_of(o->output))
        return cli_usage_error(COMPUTE_USAGE, "flow-compute",
                               "-o %s: unknown flow format (the extension must be %s)",
                               o->output, flow_field_format_list(formats, sizeof formats));
    const int fields = cli_pattern_fields(o->output);
    if (fields < 0 || fields > 1)
        return cli_usage_error(COMPUTE_USAGE, "flow-compute",
                               "-o %s: not a name pattern (one integer field such as %%04d; %%%% "
                               "for a percent sign)",
                               o->output);
    return CLI_EXIT_OK;
}

int output_check(const compute_options *o, long flows)
{
    if (!o->output)
        return CLI_EXIT_OK;
    if (o->count == 1)
        flows = 1;
    if (cli_pattern_fields(o->output) == 0 && flows != 1) {
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
    if (!o->output) {
        buf[0] = '\0';
        return CLI_EXIT_OK;
    }
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

static int write_color(const compute_options *o, const char *tmp, const char *target,
                       const flow_field *f)
{
    flow_image rgb = {0};
    int border = 0;
    if (o->scale_label) {
        border = flow_legend_border(f->width, f->height);
        border = border < FLOW_SCALE_LABEL_MIN_BORDER ? FLOW_SCALE_LABEL_MIN_BORDER : border;
    }
    double used;
    flow_status s = o->legend ? flow_render_color_framed(f, o->color_max, border, &rgb, &used)
                              : flow_render_color(f, o->color_max, &rgb, &used);
    if (s == FLOW_OK && o->scale_label)
        s = flow_render_scale_label(&rgb, border, used);
    if (s == FLOW_OK)
        s = flow_image_write(tmp, &rgb);
    flow_image_free(&rgb);
    return s == FLOW_OK ? CLI_EXIT_OK : output_report(s, tmp, target);
}

/* The arrows of flow-tool vectors --background: the same renderer and
 * defaults (flow_vector_defaults), over the pair's first frame, with the
 * same key (reference arrow and grid step) where the picture has room. */
static int write_vectors(const compute_options *o, const char *tmp, const char *target,
                         const flow_field *f, const flow_image *frame1)
{
    flow_vector_style style = flow_vector_defaults(FLOW_BACKDROP_FRAME);
    style.step = o->vector_step;
    style.scale = o->vector_scale;
    flow_image img = {0};
    flow_status s = flow_render_zoom_rgb(frame1, o->vector_zoom, &img);
    flow_vector_style used;
    if (s == FLOW_OK)
        s = flow_render_vectors(f, &style, &img, &used);
    if (s == FLOW_OK && (s = flow_render_vector_key(&img, &used, o->vector_zoom)) == FLOW_ERR_SIZE)
        s = FLOW_OK; /* too small a picture for the key: the arrows alone */
    if (s == FLOW_OK)
        s = flow_image_write(tmp, &img);
    flow_image_free(&img);
    return s == FLOW_OK ? CLI_EXIT_OK : output_report(s, tmp, target);
}

/* The names of a pair's files beside its flow file `name`: the .params,
 * then the pictures the options ask for; returns how many (at most 3). */
static int sidecar_names(const compute_options *o, const char *name,
                         char names[3][OUTPUT_NAME_MAX])
{
    int n = 0;
    snprintf(names[n++], OUTPUT_NAME_MAX, "%s.params", name);
    if (o->color)
        picture_name(name, "color", names[n++], OUTPUT_NAME_MAX);
    if (o->vectors)
        picture_name(name, "vectors", names[n++], OUTPUT_NAME_MAX);
    return n;
}

/* The three files of the flow images numbered `index`: x, y and (the
 * first only, else empty) DIR/flow.params. */
static int image_names(const compute_options *o, long index, char names[3][OUTPUT_NAME_MAX])
{
    char x[OUTPUT_NAME_MAX], y[OUTPUT_NAME_MAX];
    if (cli_pattern_format(x, sizeof x, o->images_x, index) != 0
        || cli_pattern_format(y, sizeof y, o->images_y, index) != 0
        || snprintf(names[0], OUTPUT_NAME_MAX, "%s/%s", o->images_dir, x) >= OUTPUT_NAME_MAX
        || snprintf(names[1], OUTPUT_NAME_MAX, "%s/%s", o->images_dir, y) >= OUTPUT_NAME_MAX) {
        cli_error("--flow-images %s: the names of flow %ld are too long", o->images_dir, index);
        return CLI_EXIT_IO;
    }
    names[2][0] = '\0';
    if (index == 1)
        snprintf(names[2], OUTPUT_NAME_MAX, "%s/flow.params", o->images_dir);
    return CLI_EXIT_OK;
}

int output_check_targets(const compute_options *o, long n)
{
    char name[OUTPUT_NAME_MAX], side[3][OUTPUT_NAME_MAX];
    int rc = CLI_EXIT_OK;
    if (o->images_dir && (rc = cli_make_dirs(o->images_dir)) == CLI_EXIT_OK
        && (rc = image_names(o, 1, side)) == CLI_EXIT_OK)
        for (int i = 0; i < 3 && rc == CLI_EXIT_OK; i++)
            rc = output_check_target(side[i]);
    if (rc != CLI_EXIT_OK || !o->output)
        return rc;
    rc = output_name(o, n, name, sizeof name);
    if (rc == CLI_EXIT_OK)
        rc = output_check_target(name);
    const int k = rc == CLI_EXIT_OK ? sidecar_names(o, name, side) : 0;
    for (int i = 0; i < k && rc == CLI_EXIT_OK; i++)
        rc = output_check_target(side[i]);
    return rc;
}

/* The flow images numbered `index` into the group (and DIR/flow.params
 * with the first). */
static int write_images(const compute_options *o, output_group *g, long index,
                        const flow_field *f, const char *header, const flow_params *params)
{
    char names[3][OUTPUT_NAME_MAX], tmp[OUTPUT_NAME_MAX];
    int rc = image_names(o, index, names);
    if (rc != CLI_EXIT_OK)
        return rc;
    flow_image img[2];
    if (flow_images_from_field(f, o->images_bound, &img[0], &img[1]) != FLOW_OK)
        return cli_report_status(FLOW_ERR_NOMEM);
    for (int i = 0; i < 2 && rc == CLI_EXIT_OK; i++)
        if ((rc = output_group_add(g, names[i], tmp, sizeof tmp)) == CLI_EXIT_OK) {
            const flow_status s = flow_image_write(tmp, &img[i]);
            rc = s == FLOW_OK ? CLI_EXIT_OK : output_report(s, tmp, names[i]);
        }
    flow_image_free(&img[0]);
    flow_image_free(&img[1]);
    if (rc == CLI_EXIT_OK && names[2][0]
        && (rc = output_group_add(g, names[2], tmp, sizeof tmp)) == CLI_EXIT_OK) {
        const flow_status s = flow_params_write(tmp, params, header);
        rc = s == FLOW_OK ? CLI_EXIT_OK : output_report(s, tmp, names[2]);
    }
    if (rc == CLI_EXIT_OK && o->verbose)
        cli_info("wrote %s and %s", names[0], names[1]);
    return rc;
}

int output_write(const compute_options *o, const char *name, long index, const flow_field *f,
                 const flow_image *frame1, const char *header, const flow_params *params,
                 output_group *extra)
{
    output_group *g = NULL;
    int rc = output_group_create(&g);
    if (rc != CLI_EXIT_OK) {
        output_group_destroy(extra);
        return rc;
    }
    rc = output_group_adopt(g, extra);
    if (rc == CLI_EXIT_OK && o->images_dir)
        rc = write_images(o, g, index, f, header, params);
    char tmp[OUTPUT_NAME_MAX], side[3][OUTPUT_NAME_MAX];
    const int n = name[0] ? sidecar_names(o, name, side) : 0;
    if (rc == CLI_EXIT_OK && name[0] && (rc = output_group_add(g, name, tmp, sizeof tmp)) == CLI_EXIT_OK) {
        const flow_status s = flow_field_write(tmp, f);
        rc = s == FLOW_OK ? CLI_EXIT_OK : output_report(s, tmp, name);
    }
    /* a flow file is not written without its parameters: it could not be
     * reproduced */
    if (rc == CLI_EXIT_OK && n && (rc = output_group_add(g, side[0], tmp, sizeof tmp)) == CLI_EXIT_OK) {
        const flow_status s = flow_params_write(tmp, params, header);
        rc = s == FLOW_OK ? CLI_EXIT_OK : output_report(s, tmp, side[0]);
    }
    for (int i = 1; i < n && rc == CLI_EXIT_OK; i++) {
        if ((rc = output_group_add(g, side[i], tmp, sizeof tmp)) != CLI_EXIT_OK)
            break;
        const int color = o->color && i == 1;
        rc = color ? write_color(o, tmp, side[i], f) : write_vectors(o, tmp, side[i], f, frame1);
    }
    if (rc == CLI_EXIT_OK)
        rc = output_group_commit(g);
    output_group_destroy(g);
    if (rc == CLI_EXIT_OK && o->verbose && n) {
        cli_info("wrote %s", name);
        for (int i = 0; i < n; i++)
            cli_info("wrote %s", side[i]);
    }
    return rc;
}
