/* cmd_images.c -- `flow-tool from-images X Y OUT`: a flow field back from
 * the two 8-bit images that flow-compute --flow-images (and denseflow)
 * write, each level l read as l 2B/255 - B (tools-common/flowimages.h). */
#include "tool.h"
#include "cli.h"
#include "flowimages.h"
#include "outputs.h"

#include <getopt.h>
#include <stdio.h>

static const char images_usage[] = "flow-tool from-images [OPTIONS] X_IMAGE Y_IMAGE OUT";

static void images_help(void)
{
    printf("usage: %s\n"
           "\n"
           "Reads a flow written as two 8-bit images, x (horizontal component u)\n"
           "and y (vertical v), as flow-compute --flow-images and denseflow write\n"
           "them, and writes it as a flow file (format by OUT's extension).  Each\n"
           "level l stands for l 2B/255 - B pixels: the images quantised the flow\n"
           "to steps of 2B/255 px (0.157 px for B = 20), so a component within\n"
           "[-B, B] comes back within B/255 px (half a step), one beyond it as -B\n"
           "or B; JPEG adds its own loss on top (PNG none).\n"
           "\n"
           "Options:\n"
           "  -b, --bound B   the bound the images were written with, pixels [20]\n"
           "  -h, --help      this help\n"
           "\n"
           "Exit status: 0 ok, 1 usage, 2 input/output (a missing or unreadable\n"
           "image, images of different sizes, an image that is not gray).\n",
           images_usage);
}

/* Reads one component image: one channel (gray), the size of `like` when
 * given. */
static int read_component(const char *path, const flow_image *like, const char *like_path,
                          flow_image *img)
{
    int rc = tool_read_image(path, img);
    if (rc)
        return rc;
    if (img->channels != 1) {
        cli_error("%s: %d channels: a flow image is gray (one channel)", path, img->channels);
        flow_image_free(img);
        return CLI_EXIT_IO;
    }
    if (like && (img->width != like->width || img->height != like->height)) {
        cli_error("%s is %dx%d but %s is %dx%d: the x and y images of a flow have one size",
                  path, img->width, img->height, like_path, like->width, like->height);
        flow_image_free(img);
        return CLI_EXIT_IO;
    }
    return CLI_EXIT_OK;
}

int cmd_from_images(int argc, char **argv)
{
    static const struct option opts[] = {
        {"bound", required_argument, NULL, 'b'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    double bound = FLOW_IMAGES_BOUND;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":b:h", opts, NULL)) != -1) {
        if (c == 'h') {
            images_help();
            return CLI_EXIT_OK;
        }
        if (c == 'b') {
            if (cli_parse_double("--bound", optarg, 1e-6, FLOW_IMAGES_BOUND_MAX, &bound) != 0)
                return CLI_EXIT_USAGE;
            continue;
        }
        return tool_bad_option(c, argv, images_usage, "from-images");
    }
    int rc = tool_check_args(argc, 3, images_usage, "from-images");
    if (rc)
        return rc;
    const char *xpath = argv[optind], *ypath = argv[optind + 1], *out = argv[optind + 2];
    if ((rc = output_check_target(out)) != CLI_EXIT_OK)
        return rc;
    flow_image x = {0}, y = {0};
    if ((rc = read_component(xpath, NULL, NULL, &x)) != CLI_EXIT_OK)
        return rc;
    if ((rc = read_component(ypath, &x, xpath, &y)) != CLI_EXIT_OK) {
        flow_image_free(&x);
        return rc;
    }
    flow_field f = {0};
    if (flow_field_alloc(&f, x.width, x.height) != FLOW_OK)
        rc = cli_report_status(FLOW_ERR_NOMEM);
    const size_t n = (size_t)x.width * x.height;
    for (size_t i = 0; i < n && rc == CLI_EXIT_OK; i++) {
        f.u[i] = flow_images_value((int)x.data[i], bound);
        f.v[i] = flow_images_value((int)y.data[i], bound);
    }
    if (rc == CLI_EXIT_OK)
        rc = tool_write_field(out, &f);
    flow_field_free(&f);
    flow_image_free(&x);
    flow_image_free(&y);
    return rc;
}
