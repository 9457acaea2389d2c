/* cmd_warp.c -- `flow-tool warp FRAME2 FLOW OUT` and `flow-tool photo-error
 * FRAME1 FRAME2 FLOW OUT.png`: the second frame of a pair warped back onto
 * the first along a flow (flow_warp_image, flow/warp.h), and the picture of
 * |frame1 - warped frame2|, the first check of a flow without ground truth:
 * where the flow is right, the warped frame is the first one. */
#include "tool.h"
#include "cli.h"
#include "outputs.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const char warp_usage[] = "flow-tool warp [--fill V] [--mask MASK.png] FRAME2 FLOW OUT";
static const char error_usage[] = "flow-tool photo-error [--max E] FRAME1 FRAME2 FLOW OUT.png";

/* The colour of a pixel the photometric error cannot be measured at. */
static const float unknown_rgb[3] = {0, 0, 255};

static void warp_help(void)
{
    printf("usage: %s\n"
           "\n"
           "Warps the second frame of a pair back onto the first along FLOW (frame 1\n"
           "-> frame 2, any flow format: flow-tool formats): OUT(x) = FRAME2(x + w(x)),\n"
           "bilinear, in every channel of FRAME2.  Where the flow is right, OUT is\n"
           "the first frame.  A pixel is unknown where w(x) is unknown or x + w(x)\n"
           "leaves the frame (0 <= x + u <= width - 1, 0 <= y + v <= height - 1);\n"
           "it gets the fill value.  Prints how many pixels were warped and why the\n"
           "others were not.  OUT is an image (.png, .ppm, .pgm; more with OpenCV),\n"
           "values rounded to 0..255.\n"
           "\n"
           "Options:\n"
           "  -f, --fill V       the value of unknown pixels, 0..255 [default: 0]\n"
           "  -m, --mask MASK    also write MASK, an 8-bit gray image: 255 where\n"
           "                     warped, 0 where unknown [default: no mask]\n"
           "  -h, --help         this help\n"
           "\n"
           "Exit status: 0 ok, 1 usage, 2 input/output (unreadable files, sizes\n"
           "that do not match), 3 out of memory.\n",
           warp_usage);
}

static void error_help(void)
{
    printf("usage: %s\n"
           "\n"
           "The photometric error of FLOW (frame 1 -> frame 2): FRAME2 warped back\n"
           "along it as `flow-tool warp` does, then e(x) = |FRAME1(x) - warped(x)|,\n"
           "the mean over the channels, on the frames' 0..255 scale.  The picture\n"
           "is gray from black (e = 0) to white (e >= E, the --max); pixels where\n"
           "the warp is unknown (unknown flow, or x + w(x) outside the frame) are\n"
           "blue.  Prints the mean error over the known pixels and the scale.  The\n"
           "error is also large where a pixel is occluded in frame 2 or the\n"
           "brightness changes, where the flow may be right.\n"
           "\n"
           "Options:\n"
           "  -x, --max E        the error drawn white, grey levels, 1e-6..1e6\n"
           "                     [default: 32]\n"
           "  -h, --help         this help\n"
           "\n"
           "Exit status: 0 ok, 1 usage, 2 input/output (unreadable files, frames\n"
           "or flow of different sizes), 3 out of memory.\n",
           error_usage);
}

/* Reads FRAME2 and FLOW and warps; on success *out and *known (width *
 * height bytes) are the caller's to free. */
static int warp_files(const char *frame_path, const char *flow_path, float fill,
                      flow_image *out, unsigned char **known, flow_warp_stats *st)
{
    flow_image frame;
    flow_field w;
    int rc = tool_read_image(frame_path, &frame);
    if (rc)
        return rc;
    if ((rc = tool_read_field(flow_path, &w))) {
        flow_image_free(&frame);
        return rc;
    }
    if (frame.width != w.width || frame.height != w.height) {
        cli_error("frame %s is %dx%d but the flow %s is %dx%d: sizes must match", frame_path,
                  frame.width, frame.height, flow_path, w.width, w.height);
        rc = CLI_EXIT_IO;
    } else if (!(*known = malloc((size_t)w.width * w.height))) {
        cli_error("out of memory for the mask of a %dx%d frame", w.width, w.height);
        rc = CLI_EXIT_COMPUTE;
    } else {
        const flow_status s = flow_warp_image(&frame, &w, fill, out, *known, st);
        if (s != FLOW_OK) {
            rc = tool_fail(flow_path, s);
            free(*known);
            *known = NULL;
        }
    }
    flow_image_free(&frame);
    flow_field_free(&w);
    return rc;
}

static void report(const flow_warp_stats *st)
{
    printf("warped: %ld of %ld pixels (%.2f%%)\n", st->known, st->total,
           st->total ? 100.0 * st->known / st->total : 0.0);
    printf("unknown flow: %ld\n", st->unknown_flow);
    printf("outside: %ld (x + w(x) leaves the frame)\n", st->outside);
}

/* Writes the images of one result, all or none (tools-common/outputs.h). */
static int write_images(const char *const path[2], const flow_image *const img[2])
{
    output_group *g = NULL;
    int rc = output_group_create(&g);
    for (int i = 0; i < 2 && rc == CLI_EXIT_OK; i++) {
        char tmp[OUTPUT_NAME_MAX];
        if (!path[i] || (rc = output_group_add(g, path[i], tmp, sizeof tmp)) != CLI_EXIT_OK)
            continue;
        const flow_status s = flow_image_write(tmp, img[i]);
        if (s != FLOW_OK)
            rc = output_report(s, tmp, path[i]);
    }
    if (rc == CLI_EXIT_OK)
        rc = output_group_commit(g);
    output_group_destroy(g);
    return rc;
}

int cmd_warp(int argc, char **argv)
{
    static const struct option opts[] = {{"fill", required_argument, NULL, 'f'},
                                         {"mask", required_argument, NULL, 'm'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *mask_path = NULL;
    double fill = 0;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":f:m:h", opts, NULL)) != -1) {
        switch (c) {
        case 'f':
            if (cli_parse_double("warp: --fill", optarg, 0, 255, &fill) != 0)
                return CLI_EXIT_USAGE;
            break;
        case 'm': mask_path = optarg; break;
        case 'h': warp_help(); return CLI_EXIT_OK;
        default: return tool_bad_option(c, argv, warp_usage, "warp");
        }
    }
    int rc = tool_check_args(argc, 3, warp_usage, "warp");
    if (rc)
        return rc;
    const char *out_path = argv[optind + 2];
    if ((rc = output_check_target(out_path)) || (mask_path && (rc = output_check_target(mask_path))))
        return rc;
    flow_image out, mask = {0};
    unsigned char *known = NULL;
    flow_warp_stats st;
    if ((rc = warp_files(argv[optind], argv[optind + 1], (float)fill, &out, &known, &st)))
        return rc;
    if (mask_path && flow_image_alloc(&mask, out.width, out.height, 1) != FLOW_OK)
        rc = cli_report_status(FLOW_ERR_NOMEM);
    if (rc == CLI_EXIT_OK && mask_path)
        for (long i = 0; i < st.total; i++)
            mask.data[i] = known[i] ? 255.0f : 0.0f;
    if (rc == CLI_EXIT_OK) {
        const char *const paths[2] = {out_path, mask_path};
        const flow_image *const imgs[2] = {&out, &mask};
        rc = write_images(paths, imgs);
    }
    if (rc == CLI_EXIT_OK) {
        report(&st);
        printf("fill: %g\n", fill);
    }
    flow_image_free(&out);
    flow_image_free(&mask);
    free(known);
    return rc;
}

int cmd_photo_error(int argc, char **argv)
{
    static const struct option opts[] = {{"max", required_argument, NULL, 'x'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    double max = 32;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":x:h", opts, NULL)) != -1) {
        switch (c) {
        case 'x':
            if (cli_parse_double("photo-error: --max", optarg, 1e-6, 1e6, &max) != 0)
                return CLI_EXIT_USAGE;
            break;
        case 'h': error_help(); return CLI_EXIT_OK;
        default: return tool_bad_option(c, argv, error_usage, "photo-error");
        }
    }
    int rc = tool_check_args(argc, 4, error_usage, "photo-error");
    if (rc)
        return rc;
    const char *frame1_path = argv[optind], *out_path = argv[optind + 3];
    if ((rc = output_check_target(out_path)))
        return rc;
    flow_image frame1, warped, picture = {0};
    if ((rc = tool_read_image(frame1_path, &frame1)))
        return rc;
    unsigned char *known = NULL;
    flow_warp_stats st;
    if ((rc = warp_files(argv[optind + 1], argv[optind + 2], 0, &warped, &known, &st))) {
        flow_image_free(&frame1);
        return rc;
    }
    const long n = st.total;
    float *err = NULL;
    double mean = 0;
    if (frame1.width != warped.width || frame1.height != warped.height
        || frame1.channels != warped.channels) {
        cli_error("first frame %s is %dx%d with %d channel%s but the second frame %s is %dx%d "
                  "with %d channel%s: they must match",
                  frame1_path, frame1.width, frame1.height, frame1.channels,
                  frame1.channels == 1 ? "" : "s", argv[optind + 1], warped.width, warped.height,
                  warped.channels, warped.channels == 1 ? "" : "s");
        rc = CLI_EXIT_IO;
    } else if (!(err = malloc((size_t)n * sizeof *err))
               || flow_image_alloc(&picture, frame1.width, frame1.height, 3) != FLOW_OK) {
        rc = cli_report_status(FLOW_ERR_NOMEM);
    } else {
        const flow_status s = flow_photometric_error(&frame1, &warped, known, err, &mean);
        if (s != FLOW_OK)
            rc = tool_fail(frame1_path, s);
    }
    if (rc == CLI_EXIT_OK) {
        for (long i = 0; i < n; i++) {
            for (int k = 0; k < 3; k++)
                picture.data[k * n + i] =
                    known[i] ? (float)(255.0 * fmin(err[i] / max, 1.0)) : unknown_rgb[k];
        }
        const char *const paths[2] = {out_path, NULL};
        const flow_image *const imgs[2] = {&picture, NULL};
        rc = write_images(paths, imgs);
    }
    if (rc == CLI_EXIT_OK) {
        printf("photometric error: mean %.4f grey levels (of 0..255) over %ld of %ld pixels\n",
               mean, st.known, n);
        printf("picture: black 0, white %g grey levels or more; blue: unknown (%ld unknown "
               "flow, %ld outside the frame)\n",
               max, st.unknown_flow, st.outside);
    }
    free(err);
    free(known);
    flow_image_free(&picture);
    flow_image_free(&warped);
    flow_image_free(&frame1);
    return rc;
}
