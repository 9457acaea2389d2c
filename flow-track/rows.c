/* rows.c -- the tracks file: one CSV row per feature per frame,
 *
 *     frame,id,x,y,status,error
 *     0,0,12.0000,31.0000,new,0.0000
 *     1,0,13.0012,31.4987,tracked,1.2031
 *
 * with the frame's number (as flow-compute numbers frames), the feature's
 * id, its position in pixels ((0, 0) the centre of the top-left pixel), its
 * state in words and the residual of its tracking (grey levels; nan where
 * none was made).  A file is written under a temporary name and renamed at
 * the end (libflow's atomic_file.h), so a failed run leaves none; "-"
 * streams the rows to stdout as each frame is tracked. */
#include "tracking.h"

#include "flow/atomic_file.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct track_rows {
    flow_atomic file; /* file.f is stdout for "-" */
    int is_stdout;
};

int rows_open(const char *path, track_rows **out)
{
    *out = NULL;
    track_rows *r = calloc(1, sizeof *r);
    if (!r) {
        cli_error("out of memory");
        return CLI_EXIT_COMPUTE;
    }
    if (strcmp(path, "-") == 0) {
        r->is_stdout = 1;
        r->file.f = stdout;
    } else {
        const flow_status s = flow_atomic_open(&r->file, path);
        if (s != FLOW_OK) {
            free(r);
            return cli_report_status(s);
        }
    }
    fputs("frame,id,x,y,status,error\n", r->file.f);
    *out = r;
    return CLI_EXIT_OK;
}

static const char *state_word(int state)
{
    switch (state) {
    case FLOW_TRACK_TRACKED: return "tracked";
    case FLOW_TRACK_LOST: return "lost";
    default: return "new";
    }
}

void rows_write(track_rows *r, long frame, const flow_track_point *pt, int n)
{
    FILE *f = r->file.f;
    for (int i = 0; i < n; i++) {
        fprintf(f, "%ld,%ld,%.4f,%.4f,%s,", frame, pt[i].id, pt[i].x, pt[i].y,
                state_word(pt[i].state));
        if (isnan(pt[i].error))
            fputs("nan\n", f);
        else
            fprintf(f, "%.4f\n", pt[i].error);
    }
    if (r->is_stdout)
        fflush(f); /* a reader of the stream sees every frame as it is tracked */
}

int rows_commit(track_rows *r)
{
    int rc = CLI_EXIT_OK;
    if (r->is_stdout) {
        rc = cli_flush_stdout();
    } else {
        const flow_status s = flow_atomic_commit(&r->file);
        if (s != FLOW_OK)
            rc = cli_report_status(s);
    }
    free(r);
    return rc;
}

void rows_abort(track_rows *r)
{
    if (!r)
        return;
    if (r->is_stdout)
        fflush(stdout);
    else
        flow_atomic_abort(&r->file);
    free(r);
}
