/* source.c -- where a tool's frames come from: a list of frame files, a
 * printf pattern, a directory (image files in natural name order), a video
 * file or a camera.  Every source hands out frames one at a time, reduced
 * to the luminance or as read (source_channels); a frame whose size
 * differs from the first is an error that names both frames.
 *
 * Frames are read ahead by a thread of their own: while the main thread
 * works on a frame (flow-compute computes the flow of a pair, flow-track
 * follows the features), the next frame is being read and decoded.
 * The reader fills one slot; source_next() swaps the slot's buffer with
 * the caller's (no copy, and no allocation once every buffer exists: the
 * two frames of the pair being computed, the slot and the decoder's buffer
 * circulate; image files are still decoded into a fresh buffer each). */
#include "source.h"
#include "cli.h"
#include "pattern.h"
#include "timer.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef enum source_kind { SRC_LIST, SRC_PATTERN, SRC_VIDEO } source_kind;

struct frame_source {
    source_kind kind;
    char **names;       /* SRC_LIST: the frame files (owned when from a directory) */
    long nnames;
    int owns_names;
    const char *pattern; /* SRC_PATTERN */
    long first, last;    /* pattern indices, last inclusive */
    flow_video *video;   /* SRC_VIDEO */
    const char *video_name;
    source_channels channels;
    /* Read by the reader thread only. */
    long next;           /* index of the next frame (position, or pattern index) */
    long tnumber;        /* number of the frame being read */
    flow_image raw;      /* a video's frame as decoded */
    char tname[4200];    /* the name of the frame being read */
    char first_name[4200];
    int width, height, first_channels; /* of the first frame */
    /* The hand-over between the reader and the main thread, under mu. */
    pthread_t thread;
    int started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int full;            /* the slot holds a result not yet taken */
    int stop;            /* the main thread wants no more frames */
    flow_image slot;     /* the frame read ahead */
    int slot_got, slot_rc;
    long slot_number;
    double slot_ms;
    char slot_name[4200];
    /* What the main thread last took. */
    long number;
    char name[4200];
    double read_ms;      /* reading and decoding, summed (reader thread) */
};

/* ---- options -------------------------------------------------------------- */

void source_options_init(source_options *o, const char *usage, const char *program)
{
    memset(o, 0, sizeof *o);
    o->camera = -1;
    o->first = o->last = -1;
    o->channels = SOURCE_LUMINANCE;
    o->usage = usage;
    o->program = program;
}

int source_parse_option(source_options *o, int c, const char *arg)
{
    switch (c) {
    case SOURCE_OPT_VIDEO: o->video = arg; return 1;
    case SOURCE_OPT_CAMERA: return cli_parse_int("--camera", arg, 0, 9999, &o->camera) ? -1 : 1;
    case SOURCE_OPT_FIRST:
        return cli_parse_long("--first", arg, 0, 100000000, &o->first) ? -1 : 1;
    case SOURCE_OPT_LAST: return cli_parse_long("--last", arg, 0, 100000000, &o->last) ? -1 : 1;
    default: return 0;
    }
}

void source_help(FILE *f)
{
    fputs("  PATTERN              a printf pattern with one integer field (seq/f%03d.png):\n"
          "                       frames --first, --first+1, ... up to --last or the first\n"
          "                       missing file\n"
          "  DIRECTORY            its image files in natural name order (f2 before f10)\n"
          "      --video FILE     a video: .y4m natively (\"-\" is a .y4m stream on stdin),\n"
          "                       other formats through OpenCV when built with it\n"
          "      --camera N       camera N (/dev/videoN) through OpenCV; stop with Ctrl-C\n"
          "      --first N        first index of a PATTERN [0, else 1 when 0 is missing]\n"
          "      --last N         last index of a PATTERN [until a file is missing]\n",
          f);
}

int source_check_options(const source_options *o)
{
#define CONTRADICTS(...) return cli_usage_error(o->usage, o->program, __VA_ARGS__)
    int sources = (o->nframes > 0) + (o->video != NULL) + (o->camera >= 0);
    if (sources > 1)
        CONTRADICTS("give one input: frame arguments, --video or --camera");
    if (sources == 0)
        CONTRADICTS("no input: give two frames, a pattern, a directory, --video or --camera");
    if ((o->first >= 0 || o->last >= 0) && !(o->nframes == 1 && strchr(o->frames[0], '%')))
        CONTRADICTS("--first and --last apply to a PATTERN input (one argument with %%d)");
    if (o->first >= 0 && o->last >= 0 && o->last <= o->first)
        CONTRADICTS("--last %ld must be greater than --first %ld (a pair needs two frames)",
                    o->last, o->first);
#undef CONTRADICTS
    return CLI_EXIT_OK;
}

/* ---- opening ---------------------------------------------------------------- */

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Natural order: runs of digits compare by value, so f2 < f10. */
static int natural_cmp(const char *a, const char *b)
{
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            while (*a == '0')
                a++;
            while (*b == '0')
                b++;
            size_t la = 0, lb = 0;
            while (isdigit((unsigned char)a[la]))
                la++;
            while (isdigit((unsigned char)b[lb]))
                lb++;
            if (la != lb)
                return la < lb ? -1 : 1;
            int c = strncmp(a, b, la);
            if (c)
                return c;
            a += la, b += lb;
        } else {
            if (*a != *b)
                return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
            a++, b++;
        }
    }
    return *a ? 1 : *b ? -1 : 0;
}

static int natural_qsort(const void *a, const void *b)
{
    int c = natural_cmp(*(char *const *)a, *(char *const *)b);
    return c ? c : strcmp(*(char *const *)a, *(char *const *)b);
}

static int is_image_name(const char *name)
{
    static const char *const ext[] = {".png", ".pgm", ".ppm", ".pnm", ".jpg", ".jpeg",
                                      ".tif", ".tiff", ".bmp", ".webp", NULL};
    for (int i = 0; ext[i]; i++)
        if (cli_has_suffix(name, ext[i]))
            return 1;
    return 0;
}

static int open_directory(frame_source *s, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        cli_error("%s: cannot read the directory: %s", dir, strerror(errno));
        return CLI_EXIT_IO;
    }
    long cap = 0;
    s->owns_names = 1;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || !is_image_name(e->d_name))
            continue;
        if (s->nnames == cap) {
            long ncap = cap ? 2 * cap : 64;
            char **grown = realloc(s->names, (size_t)ncap * sizeof *grown);
            if (!grown) {
                closedir(d);
                cli_error("out of memory");
                return CLI_EXIT_COMPUTE;
            }
            s->names = grown;
            cap = ncap;
        }
        size_t n = strlen(dir) + strlen(e->d_name) + 2;
        char *path = malloc(n);
        if (!path) {
            closedir(d);
            cli_error("out of memory");
            return CLI_EXIT_COMPUTE;
        }
        snprintf(path, n, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", e->d_name);
        if (!exists(path)) {
            free(path);
            continue;
        }
        s->names[s->nnames++] = path;
    }
    closedir(d);
    if (s->nnames < 2) {
        cli_error("%s: %s image file%s (need at least 2 frames: .png, .pgm, .ppm, .jpg, ...)",
                  dir, s->nnames ? "only one" : "no", s->nnames ? "" : "s");
        return CLI_EXIT_IO;
    }
    qsort(s->names, (size_t)s->nnames, sizeof *s->names, natural_qsort);
    return CLI_EXIT_OK;
}

static int open_pattern(frame_source *s, const source_options *o)
{
    const char *pat = o->frames[0];
    if (!cli_pattern_valid(pat))
        return cli_usage_error(o->usage, o->program,
                               "'%s' is not a frame pattern (one integer field such as %%04d; "
                               "%%%% for a percent sign)",
                               pat);
    char name[4096];
    s->pattern = pat;
    if (o->first >= 0)
        s->first = o->first;
    else {
        cli_pattern_format(name, sizeof name, pat, 0);
        s->first = exists(name) ? 0 : 1;
    }
    cli_pattern_format(name, sizeof name, pat, s->first);
    if (!exists(name)) {
        cli_error("%s: no such frame (first frame of the pattern '%s')", name, pat);
        return CLI_EXIT_IO;
    }
    long last = s->first;
    for (;;) {
        if (o->last >= 0 && last == o->last)
            break;
        cli_pattern_format(name, sizeof name, pat, last + 1);
        if (!exists(name)) {
            if (o->last >= 0) {
                cli_error("%s: no such frame (the pattern '%s' runs to --last %ld)", name, pat,
                          o->last);
                return CLI_EXIT_IO;
            }
            break;
        }
        last++;
    }
    if (last == s->first) {
        cli_pattern_format(name, sizeof name, pat, s->first + 1);
        cli_error("%s: no such frame (the pattern '%s' needs at least 2 frames)", name, pat);
        return CLI_EXIT_IO;
    }
    s->last = last;
    s->next = s->first;
    return CLI_EXIT_OK;
}

static void *reader(void *arg);

int source_open(const source_options *o, frame_source **out)
{
    *out = NULL;
    frame_source *s = calloc(1, sizeof *s);
    if (!s) {
        cli_error("out of memory");
        return CLI_EXIT_COMPUTE;
    }
    s->channels = o->channels;
    int rc = CLI_EXIT_OK;
    flow_status st = FLOW_OK;
    if (o->video || o->camera >= 0) {
        s->kind = SRC_VIDEO;
        s->video_name = o->video ? o->video : "camera";
        st = o->video ? flow_video_open(o->video, &s->video)
                      : flow_video_open_camera(o->camera, &s->video);
        if (st != FLOW_OK)
            rc = cli_report_status(st);
    } else if (o->nframes == 1 && strchr(o->frames[0], '%')) {
        s->kind = SRC_PATTERN;
        rc = open_pattern(s, o);
    } else if (o->nframes == 1 && is_dir(o->frames[0])) {
        s->kind = SRC_LIST;
        rc = open_directory(s, o->frames[0]);
    } else if (o->nframes == 1) {
        rc = cli_usage_error(o->usage, o->program,
                             "one frame '%s' gives no pair: give two frames, a pattern with "
                             "%%d, a directory, or --video for a video file",
                             o->frames[0]);
    } else {
        s->kind = SRC_LIST;
        s->names = o->frames;
        s->nnames = o->nframes;
    }
    if (rc == CLI_EXIT_OK) {
        pthread_mutex_init(&s->mu, NULL);
        pthread_cond_init(&s->cv, NULL);
        if (pthread_create(&s->thread, NULL, reader, s) != 0) {
            cli_error("cannot start the frame reader thread");
            rc = CLI_EXIT_COMPUTE;
        } else
            s->started = 1;
    }
    if (rc != CLI_EXIT_OK) {
        source_close(s);
        return rc;
    }
    *out = s;
    return CLI_EXIT_OK;
}

/* img = frame reduced to what the tool takes: the luminance, or the
 * channels themselves.  When no conversion is needed the buffers are
 * swapped instead of copied (frame then holds img's old buffer, or none). */
static int take_frame(frame_source *s, flow_image *frame, flow_image *img)
{
    const int channels = s->channels == SOURCE_LUMINANCE ? 1 : frame->channels;
    if (!s->first_name[0]) {
        snprintf(s->first_name, sizeof s->first_name, "%s", s->tname);
        s->width = frame->width, s->height = frame->height, s->first_channels = channels;
    }
    if (frame->width != s->width || frame->height != s->height) {
        cli_error("%s: frame is %dx%d but %s is %dx%d: all frames must have one size", s->tname,
                  frame->width, frame->height, s->first_name, s->width, s->height);
        return CLI_EXIT_IO;
    }
    if (s->channels == SOURCE_RGB && channels != s->first_channels) {
        cli_error("%s: frame has %d channels but %s has %d (--rgb needs colour frames "
                  "throughout)",
                  s->tname, channels, s->first_name, s->first_channels);
        return CLI_EXIT_IO;
    }
    if (channels == frame->channels) {
        flow_image t = *img;
        *img = *frame;
        *frame = t;
        return CLI_EXIT_OK;
    }
    if (!img->data && flow_image_alloc(img, frame->width, frame->height, channels) != FLOW_OK) {
        cli_error("%s: %s", s->tname, flow_last_error());
        return CLI_EXIT_COMPUTE;
    }
    if (flow_image_gray_into(frame, img) != FLOW_OK) {
        cli_error("%s: %s", s->tname, flow_last_error());
        return CLI_EXIT_COMPUTE;
    }
    return CLI_EXIT_OK;
}

/* Reads the next frame into img (reader thread). */
static int read_frame(frame_source *s, flow_image *img, int *got)
{
    *got = 0;
    if (s->kind == SRC_VIDEO) {
        int more = 0;
        flow_status st = flow_video_read(s->video, &s->raw, &more);
        if (st != FLOW_OK) {
            cli_error("%s", flow_last_error());
            return cli_exit_for_status(st);
        }
        if (!more)
            return CLI_EXIT_OK;
        s->tnumber = s->next++;
        snprintf(s->tname, sizeof s->tname, "%s frame %ld", s->video_name, s->tnumber);
        int rc = take_frame(s, &s->raw, img);
        *got = rc == CLI_EXIT_OK;
        return rc;
    }
    const char *path;
    if (s->kind == SRC_LIST) {
        if (s->next >= s->nnames)
            return CLI_EXIT_OK;
        path = s->names[s->next];
        snprintf(s->tname, sizeof s->tname, "%s", path);
    } else {
        if (s->next > s->last)
            return CLI_EXIT_OK;
        cli_pattern_format(s->tname, sizeof s->tname, s->pattern, s->next);
        path = s->tname;
    }
    s->tnumber = s->next++;
    flow_image frame = {0};
    flow_status st = flow_image_read(path, &frame);
    if (st != FLOW_OK) {
        cli_error("%s", flow_last_error());
        return cli_exit_for_status(st);
    }
    int rc = take_frame(s, &frame, img);
    flow_image_free(&frame);
    *got = rc == CLI_EXIT_OK;
    return rc;
}

/* The reader thread: one frame ahead of the main thread, until the end of
 * the input, an error, or stop. */
static void *reader(void *arg)
{
    frame_source *s = arg;
    for (;;) {
        pthread_mutex_lock(&s->mu);
        while (s->full && !s->stop)
            pthread_cond_wait(&s->cv, &s->mu);
        const int stop = s->stop;
        pthread_mutex_unlock(&s->mu);
        if (stop)
            break;
        int got = 0;
        const double t0 = ftimer_now_ms();
        const int rc = read_frame(s, &s->slot, &got);
        const double ms = ftimer_now_ms() - t0;
        pthread_mutex_lock(&s->mu);
        s->slot_got = got;
        s->slot_rc = rc;
        s->slot_ms = ms;
        s->slot_number = s->tnumber;
        snprintf(s->slot_name, sizeof s->slot_name, "%s", s->tname);
        s->full = 1;
        pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->mu);
        if (!got || rc != CLI_EXIT_OK)
            break;
    }
    return NULL;
}

int source_next(frame_source *s, flow_image *img, int *got)
{
    *got = 0;
    pthread_mutex_lock(&s->mu);
    while (!s->full)
        pthread_cond_wait(&s->cv, &s->mu);
    const int rc = s->slot_rc;
    if (rc == CLI_EXIT_OK && s->slot_got) {
        /* Hand over the buffer: the caller's becomes the next slot. */
        flow_image t = *img;
        *img = s->slot;
        s->slot = t;
        s->number = s->slot_number;
        snprintf(s->name, sizeof s->name, "%s", s->slot_name);
        s->read_ms += s->slot_ms;
        *got = 1;
        s->full = 0; /* the reader goes on */
        pthread_cond_broadcast(&s->cv);
    }
    /* At the end or after an error the slot stays full: the reader is done. */
    pthread_mutex_unlock(&s->mu);
    return rc;
}

double source_read_ms(const frame_source *s)
{
    return s->read_ms;
}

const char *source_frame_name(const frame_source *s)
{
    return s->name;
}

long source_frame_number(const frame_source *s)
{
    return s->number;
}

long source_frame_count(const frame_source *s)
{
    switch (s->kind) {
    case SRC_LIST: return s->nnames;
    case SRC_PATTERN: return s->last - s->first + 1;
    default: return -1;
    }
}

int source_is_stream(const frame_source *s)
{
    return s->kind == SRC_VIDEO;
}

void source_close(frame_source *s)
{
    if (!s)
        return;
    if (s->started) {
        /* The reader may be inside a read (a camera, a pipe): it stops after it. */
        pthread_mutex_lock(&s->mu);
        s->stop = 1;
        pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->mu);
        pthread_join(s->thread, NULL);
        pthread_mutex_destroy(&s->mu);
        pthread_cond_destroy(&s->cv);
    }
    flow_image_free(&s->slot);
    if (s->owns_names) {
        for (long i = 0; i < s->nnames; i++)
            free(s->names[i]);
        free(s->names);
    }
    flow_video_close(s->video);
    flow_image_free(&s->raw);
    free(s);
}
