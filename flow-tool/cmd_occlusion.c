/* cmd_occlusion.c -- pictures of a pair computed both ways (flow-compute
 * --occlusion, --confidence): `flow-tool occlusion` draws the occlusion
 * mask over the first frame, `flow-tool confidence` a confidence map in
 * grey or colour with its key.  The drawing is libflow's (flow/render.h). */
#include "tool.h"
#include "cli.h"
#include "outputs.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char occlusion_usage[] = "flow-tool occlusion FRAME MASK OUT.png";
static const char confidence_usage[] = "flow-tool confidence [--colour] [--no-key] MAP OUT.png";

static int write_picture(const char *out, flow_image *rgb)
{
    const flow_status s = flow_image_write(out, rgb);
    flow_image_free(rgb);
    return s == FLOW_OK ? CLI_EXIT_OK : tool_fail(out, s);
}

int cmd_occlusion(int argc, char **argv)
{
    static const struct option opts[] = { {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0} };
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        if (c == 'h') {
            printf("usage: %s\n\n"
                   "Draws an occlusion mask (flow-compute --occlusion: nonzero = occluded)\n"
                   "over the first frame: the frame in grey at half brightness, the\n"
                   "occluded pixels red.  MASK must have FRAME's size.\n",
                   occlusion_usage);
            return CLI_EXIT_OK;
        }
        return tool_bad_option(c, argv, occlusion_usage, "occlusion");
    }
    int rc = tool_check_args(argc, 3, occlusion_usage, "occlusion");
    if (rc)
        return rc;
    const char *frame_path = argv[optind], *mask_path = argv[optind + 1], *out = argv[optind + 2];
    if ((rc = output_check_target(out)) != CLI_EXIT_OK)
        return rc;
    flow_image frame = {0}, mask = {0}, rgb = {0};
    flow_status s = flow_image_read(frame_path, &frame);
    if (s != FLOW_OK)
        return tool_fail(frame_path, s);
    rc = tool_read_map(mask_path, "mask", frame.width, frame.height, &mask);
    if (rc == CLI_EXIT_OK) {
        s = flow_render_occlusion(&frame, mask.data, &rgb);
        rc = s == FLOW_OK ? write_picture(out, &rgb) : tool_fail(out, s);
    }
    flow_image_free(&frame);
    flow_image_free(&mask);
    return rc;
}

int cmd_confidence(int argc, char **argv)
{
    static const struct option opts[] = {
        {"colour", no_argument, NULL, 'c'}, {"color", no_argument, NULL, 'c'},
        {"no-key", no_argument, NULL, 'n'}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c, colour = 0, key = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":cnh", opts, NULL)) != -1) {
        if (c == 'h') {
            printf("usage: %s\n\n"
                   "Draws a confidence map (flow-compute --confidence: a .pfm of values in\n"
                   "[0, 1] or a 16-bit .png, 65535 = 1) in grey, black 0 to white 1, with\n"
                   "its key in the top-right corner.\n\n"
                   "Options:\n"
                   "  -c, --colour     on the error maps' \"hot\" ramp instead: black, red,\n"
                   "                   yellow, white as the confidence grows\n"
                   "  -n, --no-key     without the key\n",
                   confidence_usage);
            return CLI_EXIT_OK;
        }
        if (c == 'c')
            colour = 1;
        else if (c == 'n')
            key = 0;
        else
            return tool_bad_option(c, argv, confidence_usage, "confidence");
    }
    int rc = tool_check_args(argc, 2, confidence_usage, "confidence");
    if (rc)
        return rc;
    const char *map_path = argv[optind], *out = argv[optind + 1];
    if ((rc = output_check_target(out)) != CLI_EXIT_OK)
        return rc;
    flow_image map = {0}, rgb = {0};
    if ((rc = tool_read_map(map_path, "confidence map", 0, 0, &map)) != CLI_EXIT_OK)
        return rc;
    flow_status s = flow_render_confidence(map.data, map.width, map.height, colour, &rgb);
    flow_image_free(&map);
    if (s != FLOW_OK)
        return tool_fail(map_path, s);
    if (key && (s = flow_render_confidence_key(&rgb, colour)) != FLOW_OK && s != FLOW_ERR_SIZE) {
        flow_image_free(&rgb);
        return tool_fail(out, s);
    }
    return write_picture(out, &rgb);
}
