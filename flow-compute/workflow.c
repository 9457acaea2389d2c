/* workflow.c -- workflow generation (seed 001 section 5.1.2, figure 5.2):
 * one image per step of the computation, so that a wrong result can be
 * followed back to the step that went wrong.
 *
 * The library hands each intermediate plane to the observer's workflow hook
 * (the motion tensor components J11..J33, the flow components u and v, and
 * whatever else its methods expose, such as multigrid levels); this file
 * downloads it, maps its finite values from [min, max] onto 0..255 and
 * writes an 8-bit gray PNG named by step order and name:
 *     DIR/00-frame1.png  DIR/01-frame2.png  DIR/02-J11.png ...  DIR/NN-flow.png
 * The input frames come first and the colour-coded flow last.  For more
 * than one pair each pair gets DIR/NNNN/ (the number of its first frame).
 * DIR/.../index.txt lists every step with its size and the [min, max] that
 * was mapped to black and white, so the images can be read quantitatively.
 * A pair's images are one group of outputs (tools-common/outputs.h) that
 * joins the pair's flow file: all of them appear, or none. */
#include "compute.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct workflow {
    char dir[4096];  /* DIR */
    char pair[4200]; /* where this pair's images go */
    int step;
    output_group *files; /* the pair's (a pair is open) */
    flow_atomic index;   /* index.txt of the pair, under index_tmp */
    char index_path[4300], index_tmp[OUTPUT_NAME_MAX];
    int error;           /* exit code of the first failure in this pair */
};

int workflow_open(const char *dir, workflow **out)
{
    *out = NULL;
    workflow *w = calloc(1, sizeof *w);
    if (!w) {
        cli_error("out of memory");
        return CLI_EXIT_COMPUTE;
    }
    snprintf(w->dir, sizeof w->dir, "%s", dir);
    size_t n = strlen(w->dir);
    while (n > 1 && w->dir[n - 1] == '/')
        w->dir[--n] = '\0';
    int rc = cli_make_dirs(w->dir);
    if (rc != CLI_EXIT_OK) {
        free(w);
        return rc;
    }
    *out = w;
    return CLI_EXIT_OK;
}

/* The pair given up: its files removed. */
static void drop_pair(workflow *w)
{
    if (w->index.f)
        flow_atomic_abort(&w->index);
    output_group_destroy(w->files);
    w->files = NULL;
}

void workflow_close(workflow *w)
{
    if (!w)
        return;
    drop_pair(w);
    free(w);
}

int workflow_begin_pair(workflow *w, long number, int single)
{
    drop_pair(w); /* a pair left open by a failure */
    if (single)
        snprintf(w->pair, sizeof w->pair, "%s", w->dir);
    else
        snprintf(w->pair, sizeof w->pair, "%s/%04ld", w->dir, number);
    struct stat st;
    const int made = stat(w->pair, &st) != 0;
    int rc = output_group_create(&w->files);
    if (rc == CLI_EXIT_OK)
        rc = cli_make_dirs(w->pair);
    if (rc == CLI_EXIT_OK && made)
        rc = output_group_add_dir(w->files, w->pair);
    w->step = 0;
    w->error = CLI_EXIT_OK;
    snprintf(w->index_path, sizeof w->index_path, "%s/index.txt", w->pair);
    if (rc == CLI_EXIT_OK)
        rc = output_group_add(w->files, w->index_path, w->index_tmp, sizeof w->index_tmp);
    if (rc == CLI_EXIT_OK) {
        const flow_status s = flow_atomic_open(&w->index, w->index_tmp);
        if (s != FLOW_OK)
            rc = output_report(s, w->index_tmp, w->index_path);
    }
    if (rc != CLI_EXIT_OK) {
        drop_pair(w);
        return rc;
    }
    fprintf(w->index.f, "# step name width height min max (the values mapped to 0 and 255)\n");
    return CLI_EXIT_OK;
}

/* File-name form of a step name: letters, digits, '-' and '.'; others '_'. */
static void clean_name(const char *name, char *buf, size_t size)
{
    size_t i = 0;
    for (; name[i] && i + 1 < size; i++) {
        char c = name[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                 || c == '-' || c == '.';
        buf[i] = ok ? c : '_';
    }
    buf[i] = '\0';
}

/* Writes w x h floats (row stride `stride`) as step `name`. */
static void write_step(workflow *w, const char *name, const float *v, int width, int height,
                       size_t stride)
{
    if (w->error != CLI_EXIT_OK)
        return;
    float lo = INFINITY, hi = -INFINITY;
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            float a = v[(size_t)y * stride + x];
            if (isfinite(a) && fabsf(a) <= FLOW_UNKNOWN_THRESHOLD) {
                lo = a < lo ? a : lo;
                hi = a > hi ? a : hi;
            }
        }
    flow_image img = {0};
    if (flow_image_alloc(&img, width, height, 1) != FLOW_OK) {
        cli_error("workflow: %s", flow_last_error());
        w->error = CLI_EXIT_COMPUTE;
        return;
    }
    const float scale = hi > lo ? 255.0f / (hi - lo) : 0.0f;
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            float a = v[(size_t)y * stride + x];
            int known = isfinite(a) && fabsf(a) <= FLOW_UNKNOWN_THRESHOLD;
            img.data[(size_t)y * width + x] = known ? (a - lo) * scale : 0.0f;
        }
    char clean[128], path[4400], tmp[OUTPUT_NAME_MAX];
    clean_name(name, clean, sizeof clean);
    snprintf(path, sizeof path, "%s/%02d-%s.png", w->pair, w->step, clean);
    w->error = output_group_add(w->files, path, tmp, sizeof tmp);
    if (w->error == CLI_EXIT_OK) {
        const flow_status s = flow_image_write(tmp, &img);
        if (s != FLOW_OK)
            w->error = output_report(s, tmp, path);
    }
    flow_image_free(&img);
    if (w->error != CLI_EXIT_OK)
        return;
    if (!(lo <= hi))
        lo = hi = 0; /* no finite value */
    fprintf(w->index.f, "%02d %s %d %d %.9g %.9g\n", w->step, clean, width, height, lo, hi);
    w->step++;
}

void workflow_plane(workflow *w, const char *name, const float *data, int width, int height)
{
    if (w->error != CLI_EXIT_OK)
        return;
    write_step(w, name, data, width, height, (size_t)width);
}

void workflow_image(workflow *w, const char *name, const flow_image *img)
{
    /* The first channel (the frame as computed on: the luminance unless --rgb). */
    write_step(w, name, img->data, img->width, img->height, (size_t)img->width);
}

int workflow_end_pair(workflow *w, const flow_field *f, output_group **files)
{
    *files = NULL;
    if (w->error == CLI_EXIT_OK) {
        flow_image rgb = {0};
        double used = 0;
        char path[4400], tmp[OUTPUT_NAME_MAX] = "";
        snprintf(path, sizeof path, "%s/%02d-flow.png", w->pair, w->step);
        flow_status s = flow_render_color(f, 0, &rgb, &used);
        if (s == FLOW_OK) {
            w->error = output_group_add(w->files, path, tmp, sizeof tmp);
            if (w->error == CLI_EXIT_OK && (s = flow_image_write(tmp, &rgb)) == FLOW_OK) {
                fprintf(w->index.f, "%02d flow %d %d 0 %.9g (colour coding, radius scale)\n",
                        w->step, f->width, f->height, used);
                w->step++;
            }
        }
        if (s != FLOW_OK)
            w->error = output_report(s, tmp, path);
        flow_image_free(&rgb);
    }
    if (w->error == CLI_EXIT_OK) {
        const flow_status s = flow_atomic_commit(&w->index);
        if (s != FLOW_OK)
            w->error = output_report(s, w->index_tmp, w->index_path);
    }
    const int rc = w->error;
    if (rc == CLI_EXIT_OK) {
        *files = w->files;
        w->files = NULL;
    }
    drop_pair(w);
    return rc;
}
