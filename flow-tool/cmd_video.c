/* cmd_video.c -- `flow-tool video FLOW... OUT`: the colour codings of a
 * sequence of flow files as the frames of one video, all on one colour
 * scale so that the video does not flicker: .y4m is written natively,
 * other containers (.avi, .mp4) through OpenCV where the build has it
 * (flow_video_writer_open, flow/image.h).  The video appears whole or not
 * at all: it is written to a temporary name and renamed at the end. */
#include "tool.h"
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static const char video_usage[] =
    "flow-tool video [--max R] [--fps F] [--exact] [-v] FLOW... OUT.y4m";

static void video_help(void)
{
    printf("usage: %s\n"
           "\n"
           "Writes the Middlebury colour coding of each flow file, in the order given,\n"
           "as one frame of a video (as flow-tool color draws one).  Every frame has\n"
           "the same colour scale R, so that a motion has one colour throughout.\n"
           "OUT's extension picks the container: .y4m (YUV4MPEG2, 4:4:4,\n"
           "uncompressed) in every build; .avi (Motion JPEG) and .mp4 where the build\n"
           "has OpenCV (flow-tool --version says).  The flows must all have one size.\n"
           "\n"
           "Options:\n"
           "  -m, --max R      the colour scale in pixels [default: the largest\n"
           "                   known length over all the flows, 1 when all are 0]\n"
           "  -r, --fps F      frames per second, 0.1..1000 [default: 10]\n"
           "  -x, --exact      Middlebury's color_flow levels exactly (truncated,\n"
           "                   as flow-tool color --exact)\n"
           "  -v, --verbose    print the scale and the number of frames\n"
           "  -h, --help       this help\n"
           "\n"
           "Exit status: 0 ok, 1 usage, 2 input/output (a flow unreadable or of\n"
           "another size, a container this build cannot write), 3 out of memory.\n",
           video_usage);
}

/* The largest known length over the flows paths[0..n), each checked to
 * have the size of the first (*w x *h). */
static int common_scale(char **paths, int n, double *R, int *w, int *h)
{
    *R = 0;
    for (int i = 0; i < n; i++) {
        flow_field f;
        int rc = tool_read_field(paths[i], &f);
        if (rc)
            return rc;
        if (i == 0) {
            *w = f.width, *h = f.height;
        } else if (f.width != *w || f.height != *h) {
            cli_error("%s is %dx%d but %s is %dx%d: the frames of a video have one size",
                      paths[i], f.width, f.height, paths[0], *w, *h);
            flow_field_free(&f);
            return CLI_EXIT_IO;
        }
        const double m = flow_max_radius(&f);
        *R = m > *R ? m : *R;
        flow_field_free(&f);
    }
    *R = *R > 0 ? *R : 1.0;
    return CLI_EXIT_OK;
}

/* Appends the colour coding of each flow to the open writer. */
static int write_frames(char **paths, int n, double R, flow_coding coding, int w, int h,
                        flow_video_writer *out, const char *out_path)
{
    for (int i = 0; i < n; i++) {
        flow_field f;
        int rc = tool_read_field(paths[i], &f);
        if (rc)
            return rc;
        if (f.width != w || f.height != h) { /* changed since the first pass */
            cli_error("%s is now %dx%d, not %dx%d", paths[i], f.width, f.height, w, h);
            flow_field_free(&f);
            return CLI_EXIT_IO;
        }
        flow_image img;
        flow_status s = flow_render_color_coded(&f, R, coding, &img, NULL);
        flow_field_free(&f);
        if (s != FLOW_OK)
            return tool_fail(paths[i], s);
        s = flow_video_writer_write(out, &img);
        flow_image_free(&img);
        if (s != FLOW_OK)
            return tool_fail(out_path, s);
    }
    return CLI_EXIT_OK;
}

int cmd_video(int argc, char **argv)
{
    static const struct option opts[] = {
        {"max", required_argument, NULL, 'm'}, {"fps", required_argument, NULL, 'r'},
        {"exact", no_argument, NULL, 'x'},     {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},      {NULL, 0, NULL, 0}};
    double max_radius = 0, fps = 10;
    int exact = 0, verbose = 0, c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":m:r:xvh", opts, NULL)) != -1) {
        switch (c) {
        case 'm':
            if (cli_parse_double("video: --max", optarg, 1e-6, 1e9, &max_radius))
                return CLI_EXIT_USAGE;
            break;
        case 'r':
            if (cli_parse_double("video: --fps", optarg, 0.1, 1000, &fps))
                return CLI_EXIT_USAGE;
            break;
        case 'x': exact = 1; break;
        case 'v': verbose = 1; break;
        case 'h': video_help(); return CLI_EXIT_OK;
        default: return tool_bad_option(c, argv, video_usage, "video");
        }
    }
    if (argc - optind < 2)
        return cli_usage_error(video_usage, "flow-tool video",
                               "video: missing argument (at least one FLOW and OUT)");
    char **paths = argv + optind;
    const int n = argc - optind - 1;
    const char *out_path = argv[argc - 1];
    int w = 0, h = 0, rc;
    double R;
    if ((rc = common_scale(paths, n, &R, &w, &h)))
        return rc;
    if (max_radius > 0)
        R = max_radius;
    flow_video_writer *out;
    flow_status s = flow_video_writer_open(out_path, fps, w, h, 3, &out);
    if (s != FLOW_OK)
        return tool_fail(out_path, s);
    rc = write_frames(paths, n, R, exact ? FLOW_CODING_MIDDLEBURY : FLOW_CODING_ROUNDED, w, h,
                      out, out_path);
    if (rc) {
        flow_video_writer_discard(out);
        return rc;
    }
    if ((s = flow_video_writer_close(out)) != FLOW_OK)
        return tool_fail(out_path, s);
    if (verbose)
        printf("scale: %.6g px\nframes: %d of %dx%d\n", R, n, w, h);
    return CLI_EXIT_OK;
}
