/* common.c -- what bench_methods' tables share: the device, the events
 * around a frame's device work (the observer's stages), medians' order, the
 * clock and frames as 8-bit samples. */
#include "bench.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

flow_device *bench_dev;
flow_event *ev_tensor, *ev_download;

void on_stage(void *user, const char *name)
{
    (void)user;
    if (strcmp(name, "upload") == 0)
        in_upload = 1;
    if (strcmp(name, "motion tensor") == 0 || strcmp(name, "pyramid") == 0
        || strcmp(name, "prepare") == 0 || strcmp(name, "graph") == 0) /* the first stage on the device */
        flow_event_record(ev_tensor);
    else if (strcmp(name, "download") == 0)
        flow_event_record(ev_download);
}

void on_stage_done(void *user, const char *name)
{
    (void)user;
    if (strcmp(name, "upload") == 0)
        in_upload = 0;
}

static int cmp_double(const void *x, const void *y)
{
    const double a = *(const double *)x, c = *(const double *)y;
    return (a > c) - (a < c);
}

double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* The frames as 8-bit samples (rounded: the timing does not depend on the
 * values). */
int to_bytes(const flow_image *f, flow_image8 *b)
{
    if (flow_image8_alloc(b, f->width, f->height, f->channels) != FLOW_OK)
        return 0;
    const size_t n = (size_t)f->width * f->height;
    for (int c = 0; c < f->channels; c++)
        for (size_t i = 0; i < n; i++) {
            const float v = f->data[c * n + i];
            b->data[i * f->channels + c] = (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : v + 0.5f);
        }
    return 1;
}
