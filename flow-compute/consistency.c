/* consistency.c -- flow-compute's outputs of a pair computed both ways
 * (--backward, --occlusion, --confidence) and its --fb-check: the context
 * computes the backward flow and the forward-backward planes on the device
 * (flow_context_set_backward), downloads the planes asked for with the
 * flow, and this file writes them beside it.  Each option is a name, or a
 * pattern with one integer field as -o is (the number of the pair's first
 * frame), checked before anything is computed. */
#include "run.h"
#include "pattern.h"

#include <stdlib.h>
#include <string.h>

int consistency_wanted(const compute_options *o)
{
    return o->backward || o->occlusion || o->confidence;
}

/* The option's file name for pair n. */
static int name_of(const char *option, const char *pattern, long n, char *buf, size_t size)
{
    if (cli_pattern_format(buf, size, pattern, n) != 0) {
        cli_error("%s %s: the name for pair %ld is too long", option, pattern, n);
        return CLI_EXIT_IO;
    }
    return CLI_EXIT_OK;
}

static int has_ext(const char *s, const char *ext)
{
    const size_t n = strlen(s), e = strlen(ext);
    return n > e && strcmp(s + n - e, ext) == 0;
}

/* One option's name against the number of flows (-1: a stream). */
static int check_one(const char *option, const char *pattern, const char *why_ext, int ext_ok,
                     long flows)
{
    if (!pattern)
        return CLI_EXIT_OK;
    if (!ext_ok)
        return cli_usage_error(COMPUTE_USAGE, "flow-compute", "%s %s: %s", option, pattern,
                               why_ext);
    const int fields = cli_pattern_fields(pattern);
    if (fields < 0 || fields > 1)
        return cli_usage_error(COMPUTE_USAGE, "flow-compute",
                               "%s %s: not a name pattern (one integer field such as %%04d; "
                               "%%%% for a percent sign)",
                               option, pattern);
    if (fields == 0 && flows != 1)
        return cli_usage_error(COMPUTE_USAGE, "flow-compute",
                               "%s %s names one file but %s: use a pattern such as "
                               "name%%04d",
                               option, pattern,
                               flows < 0 ? "a video gives a flow per frame"
                                         : "several flows are computed");
    return CLI_EXIT_OK;
}

int consistency_check(const compute_options *o, long flows)
{
    char formats[128];
    char why[256];
    snprintf(why, sizeof why, "unknown flow format (the extension must be %s)",
             flow_field_format_list(formats, sizeof formats));
    if (o->count == 1)
        flows = 1;
    int rc = check_one("--backward", o->backward, why,
                       o->backward && flow_field_format_of(o->backward) != NULL, flows);
    if (rc == CLI_EXIT_OK)
        rc = check_one("--occlusion", o->occlusion, "the mask is an 8-bit .png",
                       o->occlusion && has_ext(o->occlusion, ".png"), flows);
    if (rc == CLI_EXIT_OK)
        rc = check_one("--confidence", o->confidence,
                       "the confidence is a .pfm (float) or a .png (16 bits)",
                       o->confidence
                           && (has_ext(o->confidence, ".pfm") || has_ext(o->confidence, ".png")),
                       flows);
    return rc;
}

int consistency_check_targets(const compute_options *o, long n)
{
    const char *opt[3] = { "--backward", "--occlusion", "--confidence" };
    const char *pat[3] = { o->backward, o->occlusion, o->confidence };
    char name[OUTPUT_NAME_MAX];
    for (int i = 0; i < 3; i++) {
        if (!pat[i])
            continue;
        int rc = name_of(opt[i], pat[i], n, name, sizeof name);
        if (rc == CLI_EXIT_OK)
            rc = output_check_target(name);
        if (rc != CLI_EXIT_OK)
            return rc;
    }
    return CLI_EXIT_OK;
}

/* A plane of the context downloaded into *dst (allocated here) with each flow. */
static int request(run *r, const char *plane, float **dst)
{
    const size_t n = (size_t)r->width * r->height;
    if (!(*dst = malloc(sizeof **dst * n)))
        return compute_failure(FLOW_ERR_NOMEM, plane);
    const flow_status s = flow_context_request_output(r->ctx, plane, *dst);
    return s == FLOW_OK ? CLI_EXIT_OK : compute_failure(s, plane);
}

int consistency_start(run *r)
{
    const compute_options *o = r->o;
    const int fb = o->fb_check > 0;
    if (!fb && !consistency_wanted(o))
        return CLI_EXIT_OK;
    /* --fb-check T is the test with a = 0, b = T^2 */
    const double a = fb ? 0.0 : o->occlusion_a, b = fb ? o->fb_check * o->fb_check : o->occlusion_b;
    flow_status s = flow_context_set_backward(r->ctx, 1, a, b);
    if (s != FLOW_OK)
        return compute_failure(s, "both directions");
    int rc = CLI_EXIT_OK;
    if (fb || o->backward) {
        if (flow_field_alloc(&r->back, r->width, r->height) != FLOW_OK)
            return compute_failure(FLOW_ERR_NOMEM, "backward flow field");
        if ((s = flow_context_request_output(r->ctx, "backward_u", r->back.u)) != FLOW_OK
            || (s = flow_context_request_output(r->ctx, "backward_v", r->back.v)) != FLOW_OK)
            return compute_failure(s, "backward flow");
    }
    if (rc == CLI_EXIT_OK && fb)
        rc = request(r, "fb_verdict", &r->verdict);
    if (rc == CLI_EXIT_OK && o->occlusion)
        rc = request(r, "occlusion", &r->occluded);
    if (rc == CLI_EXIT_OK && o->confidence)
        rc = request(r, "confidence", &r->confidence);
    return rc;
}

void consistency_free(run *r)
{
    flow_field_free(&r->back);
    free(r->verdict);
    free(r->occluded);
    free(r->confidence);
    r->verdict = r->occluded = r->confidence = NULL;
}

/* The occlusion mask, 255 where occluded, as an 8-bit grey PNG. */
static flow_status write_mask(const char *path, const float *occluded, int w, int h)
{
    flow_image img = { w, h, 1, NULL };
    const size_t n = (size_t)w * h;
    if (!(img.data = malloc(sizeof *img.data * n)))
        return FLOW_ERR_NOMEM;
    for (size_t i = 0; i < n; i++)
        img.data[i] = occluded[i] != 0.0f ? 255.0f : 0.0f;
    const flow_status s = flow_image_write(path, &img);
    free(img.data);
    return s;
}

int consistency_write(run *r, long n, output_group **group)
{
    const compute_options *o = r->o;
    *group = NULL;
    if (!consistency_wanted(o))
        return CLI_EXIT_OK;
    int rc = output_group_create(group);
    const char *opt[3] = { "--backward", "--occlusion", "--confidence" };
    const char *pat[3] = { o->backward, o->occlusion, o->confidence };
    char name[OUTPUT_NAME_MAX], tmp[OUTPUT_NAME_MAX];
    for (int i = 0; i < 3 && rc == CLI_EXIT_OK; i++) {
        if (!pat[i])
            continue;
        if ((rc = name_of(opt[i], pat[i], n, name, sizeof name)) != CLI_EXIT_OK
            || (rc = output_group_add(*group, name, tmp, sizeof tmp)) != CLI_EXIT_OK)
            break;
        const flow_status s = i == 0   ? flow_field_write(tmp, &r->back)
                              : i == 1 ? write_mask(tmp, r->occluded, r->width, r->height)
                                       : flow_map_write(tmp, r->confidence, r->width, r->height);
        if (s != FLOW_OK)
            rc = output_report(s, tmp, name);
        else if (o->verbose)
            cli_info("wrote %s", name);
    }
    if (rc != CLI_EXIT_OK) {
        output_group_destroy(*group);
        *group = NULL;
    }
    return rc;
}
