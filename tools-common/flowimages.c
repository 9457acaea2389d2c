/* flowimages.c -- the quantisation of a flow field into two 8-bit images
 * (flowimages.h) and the checks of their names. */
#include "flowimages.h"
#include "cli.h"
#include "pattern.h"

#include <math.h>
#include <string.h>
#include <strings.h>

unsigned char flow_images_level(float v, double bound)
{
    if (flow_is_unknown(v, 0.0f))
        v = 0.0f;
    const double q = rint(255.0 * ((double)v + bound) / (2.0 * bound));
    return (unsigned char)(q < 0.0 ? 0.0 : q > 255.0 ? 255.0 : q);
}

float flow_images_value(int level, double bound)
{
    return (float)(level * 2.0 * bound / 255.0 - bound);
}

flow_status flow_images_from_field(const flow_field *f, double bound, flow_image *x,
                                   flow_image *y)
{
    memset(x, 0, sizeof *x);
    memset(y, 0, sizeof *y);
    if (flow_image_alloc(x, f->width, f->height, 1) != FLOW_OK
        || flow_image_alloc(y, f->width, f->height, 1) != FLOW_OK) {
        flow_image_free(x);
        return FLOW_ERR_NOMEM;
    }
    const size_t n = (size_t)f->width * f->height;
    for (size_t i = 0; i < n; i++) {
        /* a vector is known or unknown as a whole */
        const int unknown = flow_is_unknown(f->u[i], f->v[i]);
        x->data[i] = unknown ? flow_images_level(0.0f, bound) : flow_images_level(f->u[i], bound);
        y->data[i] = unknown ? flow_images_level(0.0f, bound) : flow_images_level(f->v[i], bound);
    }
    return FLOW_OK;
}

int flow_images_check_name(const char *what, const char *pattern, const char *usage,
                           const char *program)
{
    if (!cli_pattern_valid(pattern))
        return cli_usage_error(usage, program,
                               "%s %s: not a name pattern (one integer field such as %%05d; %%%% "
                               "for a percent sign)",
                               what, pattern);
    if (strchr(pattern, '/'))
        return cli_usage_error(usage, program,
                               "%s %s: a name inside the output directory, without '/'", what,
                               pattern);
    const char *dot = strrchr(pattern, '.');
    if (!dot || (strcasecmp(dot, ".jpg") && strcasecmp(dot, ".jpeg") && strcasecmp(dot, ".png")))
        return cli_usage_error(usage, program,
                               "%s %s: the extension must be .jpg, .jpeg or .png", what, pattern);
    return CLI_EXIT_OK;
}
