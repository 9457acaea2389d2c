/* pictures.c -- --draw DIR: for each frame, DIR/NNNNNN.png (the frame's
 * number, as in the tracks file) showing the frame in RGB, each live
 * track's trail over the last --trail frames as a line and a dot where the
 * feature is now, all in the track's colour: a saturated hue fixed by its
 * id, so that a track keeps its colour from picture to picture and
 * neighbouring ids differ.  Lines are drawn by libflow
 * (flow_render_polyline).  A build that writes no PNG (neither libpng nor
 * OpenCV) writes .ppm instead, saying so once. */
#include "tracking.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct track_pictures {
    char dir[4096];
    const char *ext;  /* "png", or "ppm" once PNG turned out unsupported */
    int quiet, verbose;
    trails *trails;
    flow_image rgb;   /* the picture being drawn */
};

int pictures_open(const char *dir, int trail, int quiet, int verbose, track_pictures **out)
{
    *out = NULL;
    int rc = cli_make_dirs(dir);
    if (rc != CLI_EXIT_OK)
        return rc;
    track_pictures *p = calloc(1, sizeof *p);
    if (!p) {
        cli_error("out of memory");
        return CLI_EXIT_COMPUTE;
    }
    snprintf(p->dir, sizeof p->dir, "%s", dir);
    p->ext = "png";
    p->quiet = quiet;
    p->verbose = verbose;
    if ((rc = trails_create(trail, &p->trails)) != CLI_EXIT_OK) {
        free(p);
        return rc;
    }
    *out = p;
    return CLI_EXIT_OK;
}

void pictures_close(track_pictures *p)
{
    if (!p)
        return;
    trails_destroy(p->trails);
    flow_image_free(&p->rgb);
    free(p);
}

/* The colour of track id: its hue is the fractional part of id times the
 * golden ratio (Knuth's multiplicative hash), which spreads consecutive
 * ids around the wheel; full saturation and value. */
static void track_color(long id, float rgb[3])
{
    const double hue = 6.0 * fmod((double)id * 0.6180339887498949, 1.0); /* sextants */
    const int sextant = (int)hue;
    const float rise = (float)(255.0 * (hue - sextant)), fall = 255.0f - rise;
    const float table[6][3] = {{255, rise, 0}, {fall, 255, 0}, {0, 255, rise},
                               {0, fall, 255}, {rise, 0, 255}, {255, 0, fall}};
    for (int b = 0; b < 3; b++)
        rgb[b] = table[sextant % 6][b];
}

/* Lines 1 pixel wide up to 719 pixels on the smaller side, then one more
 * per 720, so that trails stay visible on large frames; dots three lines
 * across. */
static double line_width(const flow_image *img)
{
    const int side = img->width < img->height ? img->width : img->height;
    return 1.0 + side / 720;
}

static int draw(track_pictures *p, const flow_image *frame)
{
    flow_image_free(&p->rgb);
    flow_status s = flow_render_zoom_rgb(frame, 1, &p->rgb);
    const double width = line_width(frame);
    for (int i = 0; i < trails_count(p->trails) && s == FLOW_OK; i++) {
        const float *xy;
        int n;
        float rgb[3];
        track_color(trails_get(p->trails, i, &xy, &n), rgb);
        if (n > 1)
            s = flow_render_polyline(&p->rgb, xy, n, width, rgb);
        if (s == FLOW_OK)
            s = flow_render_polyline(&p->rgb, xy + 2 * (n - 1), 1, 3 * width, rgb);
    }
    return s == FLOW_OK ? CLI_EXIT_OK : cli_report_status(s);
}

int pictures_frame(track_pictures *p, long number, const flow_image *frame,
                   const flow_track_point *pt, int n)
{
    int rc = trails_update(p->trails, pt, n);
    if (rc == CLI_EXIT_OK)
        rc = draw(p, frame);
    if (rc != CLI_EXIT_OK)
        return rc;
    char name[4200];
    snprintf(name, sizeof name, "%s/%06ld.%s", p->dir, number, p->ext);
    flow_status s = flow_image_write(name, &p->rgb);
    if (s == FLOW_ERR_UNSUPPORTED && strcmp(p->ext, "png") == 0) {
        p->ext = "ppm";
        if (!p->quiet)
            cli_warn("this build writes no PNG: --draw writes .ppm pictures");
        snprintf(name, sizeof name, "%s/%06ld.%s", p->dir, number, p->ext);
        s = flow_image_write(name, &p->rgb);
    }
    if (s != FLOW_OK)
        return cli_report_status(s);
    if (p->verbose)
        fprintf(stderr, "flow-track: wrote %s\n", name);
    return CLI_EXIT_OK;
}
