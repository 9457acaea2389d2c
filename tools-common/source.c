/* source.c -- where a tool's frames come from: a list of frame files, a
 * printf pattern, a directory (its frames as framedir.h picks them), a video
 * file or a camera.  Every source hands out frames one at a time, in
 * order, reduced to the luminance or as read (source_channels); a frame
 * whose size differs from the first is an error that names both frames.
 *
 * Frames are read ahead by a pool of decoding threads (one for a video
 * read in order: standard input, a pipe, OpenCV's; a .y4m file's frames are
 * claimed in order and read by the whole pool) into a ring of slots: while the tool works on a
 * frame, the next ones are being read and decoded, several at a time.  A
 * reader claims the next frame and a free slot, decodes into the slot's
 * buffers (reused, and page-locked once when a device is given) and marks
 * it ready; source_take hands slots out in frame order and the caller gives
 * each back when done with it.  Errors are kept with their frame and
 * reported when that frame's turn comes, so that the frames before it are
 * still used. */
#include "source.h"
#include "cli.h"
#include "framedir.h"
#include "pattern.h"
#include "timer.h"

#include <stddef.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef enum source_kind { SRC_LIST, SRC_PATTERN, SRC_VIDEO } source_kind;

/* Frames may be held by the caller beyond the one it works on (flow-compute
 * keeps the frames of the flows in flight): the ring has this many slots
 * besides one per reader, unless the options ask for more. */
#define SOURCE_HELD_MAX 4
#define SOURCE_READERS_MAX 16

typedef enum slot_state { SLOT_FREE, SLOT_READING, SLOT_READY, SLOT_TAKEN } slot_state;

typedef struct slot {
    source_frame f;
    slot_state state;
    long index;          /* position in the input, from 0 */
    int got, rc;         /* rc != OK: error[] says why */
    char error[5400];
    flow_image raw;      /* a video's frame as decoded */
    flow_video_place place; /* a claimed video frame's place, when claim_status is */
    flow_status claim_status; /* FLOW_OK and claim_got 1 (0: the end of the video) */
    int claim_got;
    int pinned_image, pinned_bytes;
} slot;

struct frame_source {
    source_kind kind;
    char **names;       /* SRC_LIST: the frame files (owned when from a directory) */
    long nnames;
    int owns_names;
    long *numbers;      /* SRC_LIST from a directory: the numbers in the names, or NULL */
    const char *pattern; /* SRC_PATTERN */
    long first, last;    /* pattern indices, last inclusive */
    flow_video *video;   /* SRC_VIDEO */
    const char *video_name;
    source_channels channels;
    int bytes;           /* hand out 8-bit frames where the file has them */
    flow_device *pin;    /* page-lock the slots for this device */
    int held;            /* frames the caller may hold at once */
    /* checked in frame order, by source_take */
    char first_name[4200];
    int width, height, first_channels, have_first;
    /* the ring, under mu */
    pthread_t thread[SOURCE_READERS_MAX];
    int nthreads;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_mutex_t video_mu; /* a video read in order is read by one reader at a time */
    int video8;          /* the video gives its frames as 8-bit samples */
    int claims;          /* the video's frames are claimed in order, then read by any reader */
    slot *slots;
    int nslots;
    long claimed;        /* frames claimed by readers so far */
    long taken;          /* frames handed out so far */
    long end;            /* the first index past the input (a video: when found) */
    int stop;
    /* What the caller last took. */
    char name[4200];
    long number;
    double read_ms;      /* reading and decoding, summed over the frames taken */
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
          "  DIRECTORY            its frames in natural name order (f2 before f10): the\n"
          "                       images named alike (frame#.png) and of one size; the\n"
          "                       other files are left out and named on stderr\n"
          "      --video FILE     a video: .y4m natively (\"-\" is a .y4m stream on stdin),\n"
          "                       other formats through OpenCV when built with it\n"
          "      --camera N       camera N (/dev/videoN) through OpenCV; stop with Ctrl-C\n"
          "      --first N        first index of a PATTERN [the lowest index whose file\n"
          "                       exists]\n"
          "      --last N         last index of a PATTERN [until a file is missing]\n",
          f);
}

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
    if (o->nframes == 1 && !strchr(o->frames[0], '%') && !is_dir(o->frames[0]))
        CONTRADICTS("one frame '%s' gives no pair: give two frames, a pattern with %%d, a "
                    "directory, or --video for a video file",
                    o->frames[0]);
#undef CONTRADICTS
    return CLI_EXIT_OK;
}

/* ---- opening ---------------------------------------------------------------- */

static int open_directory(frame_source *s, const char *dir, int quiet)
{
    s->owns_names = 1;
    return framedir_list(dir, quiet, &s->names, &s->nnames, &s->numbers);
}

/* The lowest index of the pattern whose file exists, found among the names
 * in the pattern's directory; -1 when there is none.  When the number is
 * in a directory's name, only 0 and then 1 are tried. */
static long lowest_index(const char *pat)
{
    char head[4096], dir[4096], name[4200];
    const char *slash = strrchr(pat, '/');
    const size_t len = slash ? (size_t)(slash - pat) + (slash == pat) : 0;
    if (len >= sizeof head)
        return -1;
    memcpy(head, pat, len);
    head[len] = '\0';
    if (cli_pattern_fields(head) != 0) {
        for (long i = 0; i <= 1; i++)
            if (cli_pattern_format(name, sizeof name, pat, i) == 0 && exists(name))
                return i;
        return -1;
    }
    if (cli_pattern_format(dir, sizeof dir, len ? head : ".", 0) != 0)
        return -1;
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    long lowest = -1;
    const struct dirent *de;
    while ((de = readdir(d))) {
        const long i = cli_pattern_index(slash ? slash + 1 : pat, de->d_name);
        if (i >= 0 && (lowest < 0 || i < lowest)
            && cli_pattern_format(name, sizeof name, pat, i) == 0 && exists(name))
            lowest = i;
    }
    closedir(d);
    return lowest;
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
    else if ((s->first = lowest_index(pat)) < 0) {
        cli_error("'%s': no frame of the pattern exists, at any index", pat);
        return CLI_EXIT_IO;
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
    return CLI_EXIT_OK;
}

static void *reader(void *arg);

/* Decoding threads for the input: one for a video read in order, else
 * about one per core the computation leaves free, at most
 * SOURCE_READERS_MAX. */
static int reader_count(const frame_source *s)
{
    if (s->kind == SRC_VIDEO && !s->claims)
        return 1;
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    const long n = cores > 2 ? cores - 1 : 1;
    return (int)(n < SOURCE_READERS_MAX ? n : SOURCE_READERS_MAX);
}

static int start_readers(frame_source *s)
{
    s->nthreads = reader_count(s);
    s->nslots = s->nthreads + s->held + 1;
    s->slots = calloc((size_t)s->nslots, sizeof *s->slots);
    if (!s->slots) {
        cli_error("out of memory");
        return CLI_EXIT_COMPUTE;
    }
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    pthread_mutex_init(&s->video_mu, NULL);
    for (int i = 0; i < s->nthreads; i++)
        if (pthread_create(&s->thread[i], NULL, reader, s) != 0) {
            s->nthreads = i;
            cli_error("cannot start the frame reader threads");
            return CLI_EXIT_COMPUTE;
        }
    return CLI_EXIT_OK;
}

int source_open(const source_options *o, frame_source **out)
{
    *out = NULL;
    int rc = source_check_options(o);
    if (rc != CLI_EXIT_OK)
        return rc;
    frame_source *s = calloc(1, sizeof *s);
    if (!s) {
        cli_error("out of memory");
        return CLI_EXIT_COMPUTE;
    }
    s->channels = o->channels;
    s->bytes = o->bytes;
    s->pin = o->pin;
    s->held = o->held > SOURCE_HELD_MAX ? o->held : SOURCE_HELD_MAX;
    flow_status st = FLOW_OK;
    if (o->video || o->camera >= 0) {
        s->kind = SRC_VIDEO;
        s->video_name = o->video ? o->video : "camera";
        st = o->video ? flow_video_open(o->video, &s->video)
                      : flow_video_open_camera(o->camera, &s->video);
        if (st != FLOW_OK)
            rc = cli_report_status(st);
        else {
            s->video8 = flow_video_gives8(s->video);
            s->claims = flow_video_claims(s->video);
        }
    } else if (o->nframes == 1 && strchr(o->frames[0], '%')) {
        s->kind = SRC_PATTERN;
        rc = open_pattern(s, o);
    } else if (o->nframes == 1 && is_dir(o->frames[0])) {
        s->kind = SRC_LIST;
        rc = open_directory(s, o->frames[0], o->quiet);
    } else {
        s->kind = SRC_LIST;
        s->names = o->frames;
        s->nnames = o->nframes;
    }
    const long count = source_frame_count(s);
    s->end = count >= 0 ? count : -1; /* -1: a stream's end is found by reading */
    if (rc == CLI_EXIT_OK)
        rc = start_readers(s);
    if (rc != CLI_EXIT_OK) {
        source_close(s);
        return rc;
    }
    *out = s;
    return CLI_EXIT_OK;
}

/* ---- decoding (reader threads) --------------------------------------------- */

/* Page-locks a buffer of the slot once, for the device the caller named. */
static void pin(frame_source *s, void *p, size_t bytes, int *pinned)
{
    if (s->pin && p && !*pinned && flow_device_pin(s->pin, p, bytes) == FLOW_OK)
        *pinned = 1;
}

static void unpin(frame_source *s, void *p, int *pinned)
{
    if (*pinned)
        flow_device_unpin(s->pin, p);
    *pinned = 0;
}

/* The slot's 8-bit frame page-locked (once: pin skips a pinned buffer). */
static void pin_bytes(frame_source *s, slot *sl)
{
    const flow_image8 *b = &sl->f.bytes;
    pin(s, b->data, (size_t)b->width * b->height * b->channels, &sl->pinned_bytes);
}

/* The slot's float frame = raw reduced to what the tool takes: the
 * luminance, or the channels themselves.  Its buffer is reused while the
 * shape stays. */
static int take_raw(frame_source *s, slot *sl, const flow_image *raw)
{
    flow_image *img = &sl->f.image;
    const int channels = s->channels == SOURCE_LUMINANCE ? 1 : raw->channels;
    if (img->data
        && (img->width != raw->width || img->height != raw->height || img->channels != channels)) {
        unpin(s, img->data, &sl->pinned_image);
        flow_image_free(img);
    }
    if (!img->data) {
        if (flow_image_alloc(img, raw->width, raw->height, channels) != FLOW_OK)
            goto fail;
        pin(s, img->data, sizeof(float) * (size_t)raw->width * raw->height * channels,
            &sl->pinned_image);
    }
    if (channels == raw->channels)
        memcpy(img->data, raw->data, sizeof(float) * (size_t)raw->width * raw->height * channels);
    else if (flow_image_gray_into(raw, img) != FLOW_OK)
        goto fail;
    return CLI_EXIT_OK;
fail:
    snprintf(sl->error, sizeof sl->error, "%s: %s", sl->f.name, flow_last_error());
    return CLI_EXIT_COMPUTE;
}

static int fail_status(slot *sl, flow_status st)
{
    snprintf(sl->error, sizeof sl->error, "%s", flow_last_error());
    return cli_exit_for_status(st);
}

/* A file's 8-bit samples into the slot: 1 when they are the frame, 2 when
 * they are colour and the tool takes the luminance (made from them), 0 when
 * the file is not read as 8 bits (16-bit, other formats). */
static int read_bytes(frame_source *s, slot *sl, const char *path)
{
    const flow_image8 *b = &sl->f.bytes;
    if (flow_image8_read(path, &sl->f.bytes) != FLOW_OK)
        return 0;
    pin_bytes(s, sl);
    return b->channels == 1 || s->channels != SOURCE_LUMINANCE ? 1 : 2;
}

static int read_file(frame_source *s, slot *sl, long index)
{
    source_frame *f = &sl->f;
    const char *path;
    if (s->kind == SRC_LIST) {
        path = s->names[index];
        snprintf(f->name, sizeof f->name, "%s", path);
        f->number = s->numbers ? s->numbers[index] : index;
    } else {
        f->number = s->first + index;
        cli_pattern_format(f->name, sizeof f->name, s->pattern, f->number);
        path = f->name;
    }
    const int got8 = s->bytes ? read_bytes(s, sl, path) : 0;
    f->is8 = got8 == 1;
    if (f->is8)
        return CLI_EXIT_OK;
    flow_image raw = {0};
    const flow_status st = got8 == 2 ? flow_image8_to_float(&f->bytes, &raw)
                                     : flow_image_read(path, &raw);
    const int rc = st == FLOW_OK ? take_raw(s, sl, &raw) : fail_status(sl, st);
    flow_image_free(&raw);
    return rc;
}

/* A video's next frame: its 8-bit samples as they are stored when the
 * stream has them (a mono 8-bit .y4m) and 8-bit frames are wanted, else
 * decoded to floats.  A frame claimed by the reader (claims) is read from
 * its place beside the other readers; otherwise one reader at a time reads
 * the next frame. */
static int read_video(frame_source *s, slot *sl, long index, int *got)
{
    const int is8 = s->bytes && s->video8;
    int more = 0;
    flow_status st;
    if (s->claims) {
        st = sl->claim_status, more = sl->claim_got;
        if (st == FLOW_OK && more)
            st = is8 ? flow_video_fetch8(s->video, &sl->place, &sl->f.bytes)
                     : flow_video_fetch(s->video, &sl->place, &sl->raw);
    } else {
        pthread_mutex_lock(&s->video_mu);
        st = is8 ? flow_video_read8(s->video, &sl->f.bytes, &more)
                 : flow_video_read(s->video, &sl->raw, &more);
        pthread_mutex_unlock(&s->video_mu);
    }
    if (st != FLOW_OK)
        return fail_status(sl, st);
    *got = more;
    if (!more)
        return CLI_EXIT_OK;
    if (is8)
        pin_bytes(s, sl);
    sl->f.number = index;
    sl->f.is8 = is8;
    snprintf(sl->f.name, sizeof sl->f.name, "%s frame %ld", s->video_name, index);
    return is8 ? CLI_EXIT_OK : take_raw(s, sl, &sl->raw);
}

/* A reader: claims the next frame and a free slot, decodes, marks it ready;
 * until the end of the input, an error or stop. */
static void *reader(void *arg)
{
    frame_source *s = arg;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        slot *sl = NULL;
        while (!s->stop && (s->end < 0 || s->claimed < s->end)) {
            for (int i = 0; i < s->nslots && !sl; i++)
                if (s->slots[i].state == SLOT_FREE)
                    sl = &s->slots[i];
            if (sl)
                break;
            pthread_cond_wait(&s->cv, &s->mu);
        }
        if (!sl)
            break;
        const long index = s->claimed++;
        sl->state = SLOT_READING;
        sl->index = index;
        if (s->claims) { /* in frame order, as the indices are */
            sl->claim_status = flow_video_claim(s->video, &sl->place, &sl->claim_got);
            if (sl->claim_status != FLOW_OK || !sl->claim_got)
                s->end = index + 1; /* claim nothing after it */
        }
        pthread_mutex_unlock(&s->mu);

        int got = 1;
        sl->error[0] = 0;
        const double t0 = ftimer_now_ms();
        const int rc = s->kind == SRC_VIDEO ? read_video(s, sl, index, &got)
                                            : read_file(s, sl, index);
        sl->f.read_ms = ftimer_now_ms() - t0;

        pthread_mutex_lock(&s->mu);
        sl->got = got && rc == CLI_EXIT_OK;
        sl->rc = rc;
        sl->state = SLOT_READY;
        /* nothing past the end of a stream or past a frame that failed */
        if ((!got || rc != CLI_EXIT_OK) && (s->end < 0 || s->end > index + 1))
            s->end = index + 1;
        pthread_cond_broadcast(&s->cv);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* ---- handing out, in order --------------------------------------------------- */

/* The checks against the first frame, made in frame order. */
static int check_shape(frame_source *s, const source_frame *f)
{
    const int w = f->is8 ? f->bytes.width : f->image.width;
    const int h = f->is8 ? f->bytes.height : f->image.height;
    const int ch = f->is8 ? f->bytes.channels : f->image.channels;
    if (!s->have_first) {
        snprintf(s->first_name, sizeof s->first_name, "%s", f->name);
        s->width = w, s->height = h, s->first_channels = ch;
        s->have_first = 1;
        return CLI_EXIT_OK;
    }
    if (w != s->width || h != s->height) {
        cli_error("%s: frame is %dx%d but %s is %dx%d: all frames must have one size", f->name, w,
                  h, s->first_name, s->width, s->height);
        return CLI_EXIT_IO;
    }
    if (s->channels == SOURCE_RGB && ch != s->first_channels) {
        cli_error("%s: frame has %d channels but %s has %d (--rgb needs colour frames "
                  "throughout)",
                  f->name, ch, s->first_name, s->first_channels);
        return CLI_EXIT_IO;
    }
    return CLI_EXIT_OK;
}

int source_take(frame_source *s, const source_frame **out, int *got)
{
    *out = NULL;
    *got = 0;
    pthread_mutex_lock(&s->mu);
    slot *sl = NULL;
    for (;;) {
        for (int i = 0; i < s->nslots && !sl; i++)
            if (s->slots[i].state == SLOT_READY && s->slots[i].index == s->taken)
                sl = &s->slots[i];
        if (sl || (s->end >= 0 && s->taken >= s->end))
            break;
        pthread_cond_wait(&s->cv, &s->mu);
    }
    pthread_mutex_unlock(&s->mu);
    if (!sl)
        return CLI_EXIT_OK; /* the end, already reported */
    int rc = sl->rc;
    if (rc != CLI_EXIT_OK)
        cli_error("%s", sl->error);
    else if (sl->got)
        rc = check_shape(s, &sl->f);
    pthread_mutex_lock(&s->mu);
    s->taken++;
    if (rc == CLI_EXIT_OK && sl->got) {
        sl->state = SLOT_TAKEN;
        s->read_ms += sl->f.read_ms;
        snprintf(s->name, sizeof s->name, "%s", sl->f.name);
        s->number = sl->f.number;
        *out = &sl->f;
        *got = 1;
    } else {
        sl->state = SLOT_FREE;
        s->end = s->taken; /* nothing after an error or the end */
    }
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    return rc;
}

void source_give_back(frame_source *s, const source_frame *f)
{
    if (!f)
        return;
    pthread_mutex_lock(&s->mu);
    for (int i = 0; i < s->nslots; i++)
        if (&s->slots[i].f == f)
            s->slots[i].state = SLOT_FREE;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

int source_next(frame_source *s, flow_image *img, int *got)
{
    const source_frame *f;
    const int rc = source_take(s, &f, got);
    if (rc != CLI_EXIT_OK || !*got)
        return rc;
    /* the slot's buffer goes to the caller, the caller's to the slot (no
     * copy: sources opened without a device to pin for) */
    slot *sl = (slot *)((char *)f - offsetof(slot, f));
    flow_image t = *img;
    *img = sl->f.image;
    sl->f.image = t;
    source_give_back(s, f);
    return CLI_EXIT_OK;
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

long source_first_number(const frame_source *s)
{
    return s->kind == SRC_PATTERN ? s->first : s->numbers ? s->numbers[0] : 0;
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

int source_readers(const frame_source *s)
{
    return s->nthreads;
}

void source_close(frame_source *s)
{
    if (!s)
        return;
    if (s->slots) {
        /* A reader may be inside a read (a camera, a pipe): it stops after it. */
        pthread_mutex_lock(&s->mu);
        s->stop = 1;
        pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->mu);
        for (int i = 0; i < s->nthreads; i++)
            pthread_join(s->thread[i], NULL);
        pthread_mutex_destroy(&s->mu);
        pthread_cond_destroy(&s->cv);
        pthread_mutex_destroy(&s->video_mu);
        for (int i = 0; i < s->nslots; i++) {
            slot *sl = &s->slots[i];
            unpin(s, sl->f.image.data, &sl->pinned_image);
            unpin(s, sl->f.bytes.data, &sl->pinned_bytes);
            flow_image_free(&sl->f.image);
            flow_image8_free(&sl->f.bytes);
            flow_image_free(&sl->raw);
        }
        free(s->slots);
    }
    if (s->owns_names) {
        for (long i = 0; i < s->nnames; i++)
            free(s->names[i]);
        free(s->names);
    }
    free(s->numbers);
    flow_video_close(s->video);
    free(s);
}
