/* tracking.h -- what the parts of flow-track share: the options as parsed
 * from the command line (main.c), the tracks file (rows.c), the trail
 * pictures (trails.c, pictures.c) and the tracking loop (run.c).  The
 * frame sources, the timer and the device option are those of every tool
 * (tools-common/).
 *
 * Conventions: functions that can fail print their own message on stderr
 * (through tools-common/cli.h) and return an exit code: CLI_EXIT_OK,
 * CLI_EXIT_USAGE, CLI_EXIT_IO or CLI_EXIT_COMPUTE. */
#ifndef FLOW_TRACKING_H
#define FLOW_TRACKING_H

#include "flow/flow.h"
#include "flow/track.h"

#include "cli.h"
#include "source.h"
#include "timer.h"

#define TRACK_USAGE "flow-track [options] FRAME1 FRAME2 [FRAME3 ...] -o TRACKS.csv"

/* ---- options (main.c) -------------------------------------------------- */

typedef struct track_options {
    flow_track_params params; /* flow_track_defaults, then the options */
    source_options input;     /* the frames, colour kept: the tracker takes the luminance */
    const char *output;       /* -o: the CSV file, "-" for stdout */
    long count;               /* at most this many frames; 0: all */
    const char *device;       /* --device [auto] */
    const char *draw_dir;     /* --draw DIR: trail pictures, or NULL */
    int trail;                /* frames of trail in the pictures */
    int timing;               /* --timing: print the report */
    const char *timing_file;  /* --timing-file */
    const char *progress;     /* --progress NAME: heads the progress line, shown with -q */
    int quiet, verbose;
} track_options;

/* ---- the tracks file (rows.c) ------------------------------------------ */

typedef struct track_rows track_rows;

/* Opens the CSV output and writes its header: a file is written under a
 * temporary name and appears whole at rows_commit, "-" streams to stdout
 * frame by frame. */
int rows_open(const char *path, track_rows **out);
/* The rows of one frame: the points as flow_tracker_points gives them. */
void rows_write(track_rows *r, long frame, const flow_track_point *pt, int n);
/* Renames the file into place (flushes stdout); frees r either way. */
int rows_commit(track_rows *r);
/* Removes the temporary file (nothing of it stays); frees r.  NULL is fine. */
void rows_abort(track_rows *r);

/* ---- trails (trails.c) ------------------------------------------------- */

/* The last positions of every live feature, followed by id from frame to
 * frame: what the pictures draw. */
typedef struct trails trails;

/* Trails of up to `length` segments (length + 1 positions). */
int trails_create(int length, trails **out);
void trails_destroy(trails *t);
/* Follows the rows of the next frame: tracked features gain a position,
 * new ones start a trail, lost ones are dropped. */
int trails_update(trails *t, const flow_track_point *pt, int n);
/* The number of live trails, and trail i: its id and its positions, oldest
 * first, as (x, y) pairs in xy (*n of them; valid until the next update). */
int trails_count(const trails *t);
long trails_get(const trails *t, int i, const float **xy, int *n);

/* ---- pictures (pictures.c) --------------------------------------------- */

typedef struct track_pictures track_pictures;

/* Pictures into dir (made when missing) with trails of `trail` frames. */
int pictures_open(const char *dir, int trail, int quiet, int verbose, track_pictures **out);
void pictures_close(track_pictures *p);
/* DIR/NNNNNN.png (.ppm where this build writes no PNG) for the frame
 * numbered `number`: the frame in RGB, each live track's trail and a dot
 * where it is now, in a colour of its own. */
int pictures_frame(track_pictures *p, long number, const flow_image *frame,
                   const flow_track_point *pt, int n);

/* ---- the tracking loop (run.c) ----------------------------------------- */

int run_track(const track_options *o);

#endif
