/* cmd_frames.c -- `flow-tool frames`: the frames of a video as image files,
 * so that a video becomes an image sequence (sequences/src/NAME.y4m in the
 * make pipeline) without another program: .y4m is read natively, other
 * containers through OpenCV where the build has it.  The images are written
 * as one output group (outputs.h): all of them appear, or none. */
#include "tool.h"
#include "cli.h"
#include "outputs.h"
#include "pattern.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>

static const char frames_usage[] = "flow-tool frames [OPTIONS] VIDEO PATTERN";

static void frames_help(void)
{
    printf("usage: %s\n"
           "\n"
           "Writes the frames of VIDEO as images named by PATTERN, a printf pattern\n"
           "with one integer field (frame_%%03d.png) filled with 0, 1, 2, ... (from\n"
           "--first on); the extension picks the format: .png, .ppm, .pgm, more with\n"
           "OpenCV.  VIDEO is a .y4m (YUV4MPEG2) file in every build, \"-\" a .y4m\n"
           "stream on stdin, any other video (.mp4, .avi, ...) where the build has\n"
           "OpenCV (flow-tool --version says).  A gray video gives gray images, a\n"
           "colour one RGB images.  Prints \"VIDEO: N frames of WxH\" on stdout.  The\n"
           "images appear together at the end: after a failure, none is left.\n"
           "\n"
           "Options:\n"
           "  -n, --count N   the first N frames at most [all]\n"
           "      --first N   the number of the first image [0]\n"
           "  -h, --help      this help\n"
           "\n"
           "Exit status: 0 ok, 1 usage, 2 input/output (missing, unreadable or\n"
           "truncated video, no frame, unwritable image), 3 out of memory.\n",
           frames_usage);
}

enum { OPT_FIRST = 300 };

/* Reads the frames of `video` into the group g under the names of
 * `pattern`, numbered from `first`, at most `count` of them (0: all).
 * Returns an exit code; *written is the number of frames read. */
static int read_frames(flow_video *v, const char *video, const char *pattern, long first,
                       long count, output_group *g, long *written, flow_image *img)
{
    *written = 0;
    while (!count || *written < count) {
        int got = 0;
        flow_status s = flow_video_read(v, img, &got);
        if (s != FLOW_OK)
            return tool_fail(video, s);
        if (!got)
            break;
        char target[OUTPUT_NAME_MAX], tmp[OUTPUT_NAME_MAX];
        if (cli_pattern_format(target, sizeof target, pattern, first + *written) != 0) {
            cli_error("%s: the name of frame %ld is too long", pattern, first + *written);
            return CLI_EXIT_IO;
        }
        int rc = output_group_add(g, target, tmp, sizeof tmp);
        if (rc != CLI_EXIT_OK)
            return rc;
        if ((s = flow_image_write(tmp, img)) != FLOW_OK)
            return output_report(s, tmp, target);
        (*written)++;
    }
    if (*written == 0) {
        cli_error("%s: no frame to read", video);
        return CLI_EXIT_IO;
    }
    return CLI_EXIT_OK;
}

int cmd_frames(int argc, char **argv)
{
    static const struct option opts[] = {{"count", required_argument, NULL, 'n'},
                                         {"first", required_argument, NULL, OPT_FIRST},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    long count = 0, first = 0;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":n:h", opts, NULL)) != -1) {
        switch (c) {
        case 'n':
            if (cli_parse_long("--count", optarg, 1, LONG_MAX, &count) != 0)
                return CLI_EXIT_USAGE;
            break;
        case OPT_FIRST:
            if (cli_parse_long("--first", optarg, 0, INT_MAX, &first) != 0)
                return CLI_EXIT_USAGE;
            break;
        case 'h': frames_help(); return CLI_EXIT_OK;
        default: return tool_bad_option(c, argv, frames_usage, "frames");
        }
    }
    int rc = tool_check_args(argc, 2, frames_usage, "frames");
    if (rc)
        return rc;
    const char *video = argv[optind], *pattern = argv[optind + 1];
    if (!cli_pattern_valid(pattern))
        return cli_usage_error(frames_usage, "flow-tool frames",
                               "PATTERN '%s': expected one integer field such as %%03d "
                               "(frame_%%03d.png)",
                               pattern);
    /* where the images go is checked before the video is read */
    char name[OUTPUT_NAME_MAX];
    if (cli_pattern_format(name, sizeof name, pattern, first) != 0) {
        cli_error("%s: the name of frame %ld is too long", pattern, first);
        return CLI_EXIT_IO;
    }
    if ((rc = output_check_target(name)) != CLI_EXIT_OK)
        return rc;

    flow_video *v = NULL;
    flow_status s = flow_video_open(video, &v);
    if (s != FLOW_OK)
        return tool_fail(video, s);
    output_group *g = NULL;
    flow_image img = {0};
    long written = 0;
    rc = output_group_create(&g);
    if (rc == CLI_EXIT_OK)
        rc = read_frames(v, video, pattern, first, count, g, &written, &img);
    if (rc == CLI_EXIT_OK)
        rc = output_group_commit(g);
    if (rc == CLI_EXIT_OK)
        printf("%s: %ld frame%s of %dx%d\n", video, written, written == 1 ? "" : "s", img.width,
               img.height);
    output_group_destroy(g);
    flow_image_free(&img);
    flow_video_close(v);
    return rc;
}
