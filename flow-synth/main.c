/* flow-synth -- generated image sequences with exact ground-truth flow.
 *
 *   flow-synth --motion rotate --angle 1 --size 640x480 --frames 10 \
 *              -o seq/frame%02d.png --gt seq/gt%02d.flo
 *   flow-synth --motion smooth --size 1920x1080 --frames 300 --video hd.y4m
 *
 * Frames come from flow_synth_frame() (libflow/src/synth.c: a smooth random
 * texture sampled analytically, so every warp of it is exact), the ground
 * truth of each consecutive pair from flow_synth_flow().  Frames are written
 * through flow_image_write (format by extension), flows through
 * flow_field_write (any flow format), videos through flow_video_writer
 * (.y4m natively in every build, .avi/.mp4 with OpenCV).  Frames are
 * generated in parallel, a batch at a time (batch.c), and written in order.
 *
 * Exit codes: 0 ok, 1 usage, 2 input/output, 3 out of memory. */
#include "flow/flow.h"

#include "batch.h"
#include "cli.h"
#include "pattern.h"

#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define USAGE "flow-synth [options] (-o PATTERN | --gt PATTERN | --video FILE)..."

/* Option values and which motion options were given explicitly. */
typedef struct synth_options {
    flow_synth s;
    const char *motion_name;
    int width, height, frames, first, channels;
    double fps;
    const char *frames_pattern, *gt_pattern, *video;
    int quiet, verbose;
    unsigned given; /* bit per motion option, see motion_options[] */
} synth_options;

/* The motion options and the motions they apply to. */
static const struct {
    const char *name;
    unsigned motions; /* bit per flow_synth_motion */
} motion_options[] = {
    {"--dx", 1u << FLOW_SYNTH_TRANSLATE | 1u << FLOW_SYNTH_OBJECT},
    {"--dy", 1u << FLOW_SYNTH_TRANSLATE | 1u << FLOW_SYNTH_OBJECT},
    {"--angle", 1u << FLOW_SYNTH_ROTATE | 1u << FLOW_SYNTH_ROTOZOOM},
    {"--scale", 1u << FLOW_SYNTH_ZOOM | 1u << FLOW_SYNTH_ROTOZOOM},
    {"--amplitude", 1u << FLOW_SYNTH_SMOOTH},
    {"--wavelength", 1u << FLOW_SYNTH_SMOOTH},
    {"--odx", 1u << FLOW_SYNTH_OBJECT},
    {"--ody", 1u << FLOW_SYNTH_OBJECT},
    {"--radius", 1u << FLOW_SYNTH_OBJECT},
};

enum {
    OPT_DX = 0, OPT_DY, OPT_ANGLE, OPT_SCALE, OPT_AMPLITUDE, OPT_WAVELENGTH, OPT_ODX, OPT_ODY,
    OPT_RADIUS, /* indices of motion_options */
    OPT_SEED = 256, OPT_COARSE, OPT_SIZE, OPT_FRAMES, OPT_FIRST, OPT_GT, OPT_VIDEO, OPT_FPS, OPT_VERSION
};

static const char *const motion_names[] = {"translate", "rotate", "zoom",
                                           "smooth",    "object", "rotozoom"};
#define NMOTIONS ((int)(sizeof motion_names / sizeof motion_names[0]))

static void print_help(void)
{
    printf("Usage: " USAGE "\n"
           "Generates an image sequence with exact ground-truth flow: a smooth random\n"
           "texture moved by a translation, rotation, zoom, both (rotozoom), smooth\n"
           "non-rigid field, or a textured disc moving over a moving background.\n"
           "\n"
           "Motion:\n"
           "  -m, --motion M       translate, rotate, zoom, rotozoom, smooth or object\n"
           "                       [translate]\n"
           "      --dx PX          horizontal motion per frame (translate; object's\n"
           "                       background) [1]\n"
           "      --dy PX          vertical motion per frame, positive down [0.5]\n"
           "      --angle DEG      rotation per frame about the centre, degrees,\n"
           "                       positive clockwise on screen (y down) [1]\n"
           "      --scale S        zoom factor per frame about the centre [1.02]\n"
           "      --amplitude PX   largest displacement of the smooth field [1.5]\n"
           "      --wavelength PX  wavelength of the smooth field [64]\n"
           "      --odx PX, --ody PX  the disc's motion per frame (object) [2, -1]\n"
           "      --radius PX      the disc's radius (object) [a quarter of the smaller side]\n"
           "      --seed N         texture seed [1]\n"
           "      --coarse F       texture wavelengths times F (1: 5..40 px): a coarser\n"
           "                       texture keeps detail at the coarse pyramid levels that\n"
           "                       motions of tens of pixels need [1]\n"
           "Frames:\n"
           "  -s, --size WxH       frame size [320x240]\n"
           "  -n, --frames N       number of frames [2]\n"
           "      --first N        number of the first frame in file names [0]\n"
           "  -c, --color          three independent colour textures instead of gray\n"
           "Outputs (at least one):\n"
           "  -o, --output PATTERN frame files, a printf pattern with one integer field\n"
           "                       (frame%%04d.png); .png, .pgm/.ppm, or whatever OpenCV writes\n"
           "      --gt PATTERN     ground truth of each pair k -> k+1, named by k, in the\n"
           "                       flow format of its extension (flow-tool formats)\n"
           "      --video FILE     the frames as one video: .y4m (YUV4MPEG2, every build),\n"
           "                       .avi/.mp4 (OpenCV builds)\n"
           "      --fps F          video frame rate [25]\n"
           "  -q, --quiet          no progress line\n"
           "  -v, --verbose        name every file written\n"
           "  -h, --help           this help;  -V, --version  version\n"
           "\n"
           "A pattern may be a plain name when it names one file only.  The flow from\n"
           "frame k to frame k+1 maps pixel x of frame k to x + (u, v), v pointing down.\n"
           "\n"
           "Exit status: 0 ok, 1 usage, 2 input/output, 3 out of memory.\n"
           "\n"
           "Examples:\n"
           "  flow-synth -m rotate --angle 2 -s 316x252 -n 2 -o rot%%d.png --gt rot%%d.flo\n"
           "  flow-synth -m smooth -s 1920x1080 -n 300 --video hd.y4m\n");
}

static int parse_size(const char *text, int *w, int *h)
{
    const char *x = strchr(text, 'x');
    char wtxt[32];
    if (!x || (size_t)(x - text) >= sizeof wtxt) {
        cli_error("--size: '%s' is not WIDTHxHEIGHT (for example 640x480)", text);
        return -1;
    }
    memcpy(wtxt, text, (size_t)(x - text));
    wtxt[x - text] = '\0';
    if (cli_parse_int("--size width", wtxt, 1, 16384, w) != 0
        || cli_parse_int("--size height", x + 1, 1, 16384, h) != 0)
        return -1;
    if ((long)*w * *h > FLOW_IMAGE_MAX_PIXELS) {
        cli_error("--size: %dx%d exceeds 2^28 pixels", *w, *h);
        return -1;
    }
    return 0;
}

/* Checks that `pattern` can name `count` files (a field, or a plain name
 * for one file). */
static int check_pattern(const char *opt, const char *pattern, int count)
{
    int fields = cli_pattern_fields(pattern);
    if (fields < 0 || fields > 1)
        return cli_usage_error(USAGE, "flow-synth",
                               "%s: '%s' is not a name pattern (one %%d field, %%%% for a "
                               "percent sign)",
                               opt, pattern);
    if (fields == 0 && count > 1)
        return cli_usage_error(USAGE, "flow-synth",
                               "%s: '%s' names one file but %d are written: add a field such "
                               "as %%04d",
                               opt, pattern, count);
    return 0;
}

static int parse_options(int argc, char **argv, synth_options *o)
{
    static const struct option longs[] = {
        {"motion", required_argument, 0, 'm'},
        {"dx", required_argument, 0, OPT_DX},
        {"dy", required_argument, 0, OPT_DY},
        {"angle", required_argument, 0, OPT_ANGLE},
        {"scale", required_argument, 0, OPT_SCALE},
        {"amplitude", required_argument, 0, OPT_AMPLITUDE},
        {"wavelength", required_argument, 0, OPT_WAVELENGTH},
        {"odx", required_argument, 0, OPT_ODX},
        {"ody", required_argument, 0, OPT_ODY},
        {"radius", required_argument, 0, OPT_RADIUS},
        {"seed", required_argument, 0, OPT_SEED},
        {"coarse", required_argument, 0, OPT_COARSE},
        {"size", required_argument, 0, 's'},
        {"frames", required_argument, 0, 'n'},
        {"first", required_argument, 0, OPT_FIRST},
        {"color", no_argument, 0, 'c'},
        {"output", required_argument, 0, 'o'},
        {"gt", required_argument, 0, OPT_GT},
        {"video", required_argument, 0, OPT_VIDEO},
        {"fps", required_argument, 0, OPT_FPS},
        {"quiet", no_argument, 0, 'q'},
        {"verbose", no_argument, 0, 'v'},
        {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'},
        {0, 0, 0, 0},
    };
    double angle_deg = 1.0;
    long seed = 1;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":m:s:n:co:qvhV", longs, NULL)) != -1) {
        double *dst = NULL;
        double lo = -1000, hi = 1000;
        switch (c) {
        case 'm': {
            int found = -1;
            for (int i = 0; i < NMOTIONS; i++)
                if (strcmp(optarg, motion_names[i]) == 0)
                    found = i;
            if (found < 0)
                return cli_usage_error(USAGE, "flow-synth",
                                       "--motion: unknown motion '%s' (expected translate, "
                                       "rotate, zoom, rotozoom, smooth or object)",
                                       optarg);
            o->s.motion = (flow_synth_motion)found;
            o->motion_name = motion_names[found];
            continue;
        }
        case OPT_DX: dst = &o->s.dx; break;
        case OPT_DY: dst = &o->s.dy; break;
        case OPT_ANGLE: dst = &angle_deg, lo = -180, hi = 180; break;
        case OPT_SCALE: dst = &o->s.scale, lo = 0.01, hi = 100; break;
        case OPT_AMPLITUDE: dst = &o->s.amplitude, lo = 0, hi = 1000; break;
        case OPT_WAVELENGTH: dst = &o->s.wavelength, lo = 1, hi = 1e6; break;
        case OPT_ODX: dst = &o->s.odx; break;
        case OPT_ODY: dst = &o->s.ody; break;
        case OPT_RADIUS: dst = &o->s.radius, lo = 1, hi = 1e6; break;
        case OPT_SEED:
            if (cli_parse_long("--seed", optarg, 0, (long)UINT_MAX, &seed) != 0)
                return CLI_EXIT_USAGE;
            continue;
        case OPT_COARSE:
            if (cli_parse_double("--coarse", optarg, 0.1, 1000, &o->s.coarse) != 0)
                return CLI_EXIT_USAGE;
            continue;
        case 's':
            if (parse_size(optarg, &o->width, &o->height) != 0)
                return CLI_EXIT_USAGE;
            continue;
        case 'n':
            if (cli_parse_int("--frames", optarg, 1, 1000000, &o->frames) != 0)
                return CLI_EXIT_USAGE;
            continue;
        case OPT_FIRST:
            if (cli_parse_int("--first", optarg, 0, 100000000, &o->first) != 0)
                return CLI_EXIT_USAGE;
            continue;
        case 'c': o->channels = 3; continue;
        case 'o': o->frames_pattern = optarg; continue;
        case OPT_GT: o->gt_pattern = optarg; continue;
        case OPT_VIDEO: o->video = optarg; continue;
        case OPT_FPS:
            if (cli_parse_double("--fps", optarg, 0.001, 1000, &o->fps) != 0)
                return CLI_EXIT_USAGE;
            continue;
        case 'q': o->quiet = 1; continue;
        case 'v': o->verbose = 1; continue;
        case 'h': print_help(); exit(CLI_EXIT_OK);
        case 'V': {
            char formats[128];
            cli_print_version();
            printf("flow formats: %s\n", flow_field_format_list(formats, sizeof formats));
            printf("video writers: y4m%s\n", flow_image_has_opencv() ? ", avi, mp4 (OpenCV)" : "");
            exit(CLI_EXIT_OK);
        }
        default: return cli_bad_option(c, argv, USAGE, "flow-synth", NULL);
        }
        /* A motion option: parse into dst, remember it was given. */
        if (cli_parse_double(motion_options[c].name, optarg, lo, hi, dst) != 0)
            return CLI_EXIT_USAGE;
        o->given |= 1u << c;
    }
    if (optind < argc)
        return cli_usage_error(USAGE, "flow-synth", "unexpected argument '%s'", argv[optind]);
    o->s.angle = angle_deg * M_PI / 180.0;
    o->s.seed = (unsigned)seed;
    if (o->quiet && o->verbose)
        return cli_usage_error(USAGE, "flow-synth", "--quiet and --verbose contradict each other");
    for (size_t i = 0; i < sizeof motion_options / sizeof *motion_options; i++)
        if ((o->given >> i & 1u) && !(motion_options[i].motions >> o->s.motion & 1u))
            return cli_usage_error(USAGE, "flow-synth",
                                   "%s does not apply to --motion %s", motion_options[i].name,
                                   o->motion_name);
    if (!o->frames_pattern && !o->gt_pattern && !o->video)
        return cli_usage_error(USAGE, "flow-synth",
                               "nothing to write: give -o PATTERN, --gt PATTERN or --video FILE");
    if (o->frames_pattern && check_pattern("-o", o->frames_pattern, o->frames))
        return CLI_EXIT_USAGE;
    if (o->gt_pattern) {
        if (o->frames < 2)
            return cli_usage_error(USAGE, "flow-synth",
                                   "--gt needs at least 2 frames (--frames %d gives no pair)",
                                   o->frames);
        if (check_pattern("--gt", o->gt_pattern, o->frames - 1))
            return CLI_EXIT_USAGE;
        char formats[128];
        if (!flow_field_format_of(o->gt_pattern))
            return cli_usage_error(USAGE, "flow-synth",
                                   "--gt: '%s' has no flow extension (expected %s)",
                                   o->gt_pattern,
                                   flow_field_format_list(formats, sizeof formats));
    }
    if (o->frames_pattern && o->channels == 3 && cli_has_suffix(o->frames_pattern, ".pgm"))
        return cli_usage_error(USAGE, "flow-synth",
                               "-o: PGM holds gray frames; use .ppm or .png with --color");
    if (o->s.motion == FLOW_SYNTH_OBJECT && !(o->given >> OPT_RADIUS & 1u))
        o->s.radius = 0.25 * (o->width < o->height ? o->width : o->height);
    return CLI_EXIT_OK;
}

/* The file name of frame or pair `index` of pattern. */
static int name_of(char *buf, size_t size, const char *pattern, long index)
{
    if (cli_pattern_format(buf, size, pattern, index) == 0)
        return CLI_EXIT_OK;
    cli_error("%s: the name of %ld is too long", pattern, index);
    return CLI_EXIT_IO;
}

int main(int argc, char **argv)
{
    cli_set_program("flow-synth");
    synth_options o = {
        .s = {.motion = FLOW_SYNTH_TRANSLATE, .dx = 1.0, .dy = 0.5, .scale = 1.02,
              .amplitude = 1.5, .wavelength = 64, .odx = 2, .ody = -1, .radius = 0, .seed = 1},
        .motion_name = "translate", .width = 320, .height = 240, .frames = 2, .channels = 1,
        .fps = 25,
    };
    int rc = parse_options(argc, argv, &o);
    if (rc != CLI_EXIT_OK)
        return rc;

    const int batch = synth_batch_size();
    synth_item *item = calloc((size_t)batch, sizeof *item);
    flow_video_writer *video = NULL;
    const int progress = !o.quiet && o.frames > 1 && isatty(2);
    char name[4096];
    if (!item) {
        cli_error("out of memory");
        rc = CLI_EXIT_COMPUTE;
        goto done;
    }
    if (o.video) {
        flow_status s =
            flow_video_writer_open(o.video, o.fps, o.width, o.height, o.channels, &video);
        if (s != FLOW_OK) {
            rc = cli_report_status(s);
            goto done;
        }
    }
    const synth_request req = {.s = &o.s, .width = o.width, .height = o.height,
                               .channels = o.channels,
                               .frames = o.frames_pattern || o.video,
                               .gt_until = o.gt_pattern ? o.frames - 1 : 0};
    for (int k0 = 0; k0 < o.frames; k0 += batch) {
        const int n = o.frames - k0 < batch ? o.frames - k0 : batch;
        synth_batch(&req, k0, n, item);
        for (int i = 0; i < n && rc == CLI_EXIT_OK; i++) {
            const int k = k0 + i;
            flow_status s = item[i].st;
            if (s != FLOW_OK) {
                cli_error("frame %d: %s", k, item[i].msg);
                rc = cli_exit_for_status(s);
                break;
            }
            if (o.frames_pattern) {
                if ((rc = name_of(name, sizeof name, o.frames_pattern, o.first + k)) != CLI_EXIT_OK)
                    break;
                if ((s = flow_image_write(name, &item[i].img)) != FLOW_OK) {
                    rc = cli_report_status(s);
                    break;
                }
                if (o.verbose)
                    cli_info("wrote %s", name);
            }
            if (o.gt_pattern && k < o.frames - 1) {
                if ((rc = name_of(name, sizeof name, o.gt_pattern, o.first + k)) != CLI_EXIT_OK)
                    break;
                if ((s = flow_field_write(name, &item[i].gt)) != FLOW_OK) {
                    rc = cli_report_status(s);
                    break;
                }
                if (o.verbose)
                    cli_info("wrote %s", name);
            }
            if (video && (s = flow_video_writer_write(video, &item[i].img)) != FLOW_OK) {
                rc = cli_report_status(s);
                break;
            }
        }
        for (int i = 0; i < n; i++) {
            flow_image_free(&item[i].img);
            flow_field_free(&item[i].gt);
        }
        if (rc != CLI_EXIT_OK)
            break;
        if (progress)
            cli_progress("%d/%d frames", k0 + n, o.frames);
    }
    cli_progress_end();
    if (video) {
        if (rc == CLI_EXIT_OK) {
            flow_status s = flow_video_writer_close(video);
            if (s != FLOW_OK)
                rc = cli_report_status(s);
            else if (o.verbose)
                cli_info("wrote %s", o.video);
        } else
            flow_video_writer_discard(video);
    }
done:
    free(item);
    return rc;
}
