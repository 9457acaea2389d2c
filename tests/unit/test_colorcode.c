/* test_colorcode.c -- the Middlebury colour coding pixel by pixel: the
 * wheel's segment colours, the four primary directions, the segment
 * boundaries, saturation (white centre, full colour at the scale, darker
 * beyond), unknown vectors, automatic and fixed scales; the legend frame,
 * the legend wheel, blending, enlargement, directly drawn arrows and
 * polylines.
 * Expected colours are worked out by hand from the wheel's definition
 * (segment lengths RY 15, YG 6, GC 4, CB 11, BM 13, MR 6; entry i of a
 * segment of n colours has its changing channel at floor(255 i / n)). */
#include "harness.h"
#include "flow/render.h"
#include "render/render_internal.h" /* the per-pixel colours, not public */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

static int color_is(const float c[3], int r, int g, int b)
{
    int ok = c[0] == r && c[1] == g && c[2] == b;
    if (!ok)
        fprintf(stderr, "    got (%g, %g, %g), expected (%d, %d, %d)\n", c[0], c[1], c[2], r, g,
                b);
    return ok;
}

static int wheel_is(int k, int r, int g, int b)
{
    int c[3];
    flow_colorwheel(k, c);
    return c[0] == r && c[1] == g && c[2] == b;
}

static void test_wheel(void)
{
    CHECK(wheel_is(0, 255, 0, 0));    /* red */
    CHECK(wheel_is(14, 255, 238, 0)); /* 255*14/15 = 238 */
    CHECK(wheel_is(15, 255, 255, 0)); /* yellow */
    CHECK(wheel_is(20, 43, 255, 0));  /* 255 - 255*5/6 = 255 - 212 */
    CHECK(wheel_is(21, 0, 255, 0));   /* green */
    CHECK(wheel_is(24, 0, 255, 191)); /* 255*3/4 = 191 */
    CHECK(wheel_is(25, 0, 255, 255)); /* cyan */
    CHECK(wheel_is(27, 0, 209, 255)); /* 255 - 255*2/11 = 255 - 46 */
    CHECK(wheel_is(36, 0, 0, 255));   /* blue */
    CHECK(wheel_is(40, 78, 0, 255));  /* 255*4/13 = 78 */
    CHECK(wheel_is(49, 255, 0, 255)); /* magenta */
    CHECK(wheel_is(54, 255, 0, 43));  /* 255 - 255*5/6 */
    CHECK(wheel_is(55, 255, 0, 0));   /* wraps */
}

/* The colour of the direction at wheel position fk (0..54) is the vector
 * (-cos t, -sin t) with t = (2 fk / 54 - 1) pi, since the hue is
 * atan2(-v, -u). */
static void direction(double fk, double r, double *u, double *v)
{
    const double t = (2.0 * fk / 54.0 - 1.0) * PI;
    *u = -r * cos(t);
    *v = -r * sin(t);
}

static void test_primary_directions(void)
{
    float c[3];
    /* right: atan2(-0, -1) = -pi, position 0: red */
    flow_color_of(1, 0, c);
    CHECK(color_is(c, 255, 0, 0));
    flow_color_of(1, -0.0, c); /* -0 is +0: still red, not the far side */
    CHECK(color_is(c, 255, 0, 0));
    /* down (v > 0): -pi/2, position 13.5: half-way between wheel 13
     * (255, 221, 0) and 14 (255, 238, 0): green 229.5, rounded 230 */
    flow_color_of(0, 1, c);
    CHECK(color_is(c, 255, 230, 0));
    /* left: atan2(-0, 1) = 0, position 27: wheel 27 */
    flow_color_of(-1, 0, c);
    CHECK(color_is(c, 0, 209, 255));
    /* up: pi/2, position 40.5: between wheel 40 (78, 0, 255) and 41
     * (98, 0, 255): red 88 */
    flow_color_of(0, -1, c);
    CHECK(color_is(c, 88, 0, 255));
}

static void test_segment_boundaries(void)
{
    const int k[6] = {0, 15, 21, 25, 36, 49};
    const int rgb[6][3] = {{255, 0, 0},   {255, 255, 0}, {0, 255, 0},
                           {0, 255, 255}, {0, 0, 255},   {255, 0, 255}};
    for (int i = 0; i < 6; i++) {
        double u, v;
        float c[3];
        direction(k[i], 1.0, &u, &v);
        flow_color_of(u, v, c);
        CHECK(color_is(c, rgb[i][0], rgb[i][1], rgb[i][2]));
        /* a quarter of the way into the next colour */
        direction(k[i] + 0.25, 1.0, &u, &v);
        flow_color_of(u, v, c);
        int next[3];
        flow_colorwheel(k[i] + 1, next);
        for (int b = 0; b < 3; b++)
            CHECK(c[b] == floor(0.75 * rgb[i][b] + 0.25 * next[b] + 0.5));
    }
}

static void test_saturation(void)
{
    float c[3];
    flow_color_of(0, 0, c); /* no motion: white */
    CHECK(color_is(c, 255, 255, 255));
    flow_color_of(0.5, 0, c); /* 255 - 0.5 * 255 = 127.5 -> 128 */
    CHECK(color_is(c, 255, 128, 128));
    flow_color_of(0.25, 0, c); /* 255 - 0.25 * 255 = 191.25 -> 191 */
    CHECK(color_is(c, 255, 191, 191));
    flow_color_of(-0.5, 0, c); /* left at half: (127.5, 232, 255) */
    CHECK(color_is(c, 128, 232, 255));
    flow_color_of(2, 0, c); /* beyond the scale: 0.75 * 255 = 191.25 */
    CHECK(color_is(c, 191, 0, 0));
    flow_color_of(0, -3, c); /* up, beyond: 0.75 * (88, 0, 255) = (66, 0, 191.25) */
    CHECK(color_is(c, 66, 0, 191));
}

/* Unknown vectors are black in pictures (test_render_field); here the
 * per-vector function: NaN and infinity are black, while a huge known
 * vector divided by a small scale is just far beyond it (darkened). */
static void test_unknown(void)
{
    float c[3];
    flow_color_of(NAN, 0, c);
    CHECK(color_is(c, 0, 0, 0));
    flow_color_of(0, INFINITY, c);
    CHECK(color_is(c, 0, 0, 0));
    flow_color_of(2e9, 0, c);
    CHECK(color_is(c, 191, 0, 0));
}

static float px(const flow_image *img, int x, int y, int b)
{
    return img->data[(size_t)b * img->width * img->height + (size_t)y * img->width + x];
}

static int pixel_is(const flow_image *img, int x, int y, int r, int g, int b)
{
    const float c[3] = {px(img, x, y, 0), px(img, x, y, 1), px(img, x, y, 2)};
    return color_is(c, r, g, b);
}

/* A 5x1 field: (2,0), (0,1), (0,0), unknown, NaN.  The largest known radius
 * is 2, so pixel 0 is full red and pixel 1 is "down" at half saturation:
 * (255, 255 - 0.5 (255 - 229.5), 127.5) = (255, 242.25, 127.5) -> (255, 242,
 * 128). */
static void test_render_field(void)
{
    flow_field f;
    CHECK_OK(flow_field_alloc(&f, 5, 1));
    const float u[5] = {2, 0, 0, FLOW_UNKNOWN, NAN}, v[5] = {0, 1, 0, 0, 0};
    memcpy(f.u, u, sizeof u);
    memcpy(f.v, v, sizeof v);
    CHECK_NEAR(flow_max_radius(&f), 2.0, 0);
    flow_image img;
    double used = 0;
    CHECK_OK(flow_render_color(&f, 0, &img, &used));
    CHECK(used == 2.0 && img.width == 5 && img.height == 1 && img.channels == 3);
    CHECK(pixel_is(&img, 0, 0, 255, 0, 0));
    CHECK(pixel_is(&img, 1, 0, 255, 242, 128));
    CHECK(pixel_is(&img, 2, 0, 255, 255, 255));
    CHECK(pixel_is(&img, 3, 0, 0, 0, 0));
    CHECK(pixel_is(&img, 4, 0, 0, 0, 0));
    flow_image_free(&img);
    /* a fixed scale of 1: pixel 0 is beyond it (darker), pixel 1 full */
    CHECK_OK(flow_render_color(&f, 1.0, &img, &used));
    CHECK(used == 1.0);
    CHECK(pixel_is(&img, 0, 0, 191, 0, 0));
    CHECK(pixel_is(&img, 1, 0, 255, 230, 0));
    flow_image_free(&img);
    CHECK(flow_render_color(&f, NAN, &img, NULL) == FLOW_ERR_INVALID);
    /* a tiny fixed scale: known vectors far beyond it, darkened, not black;
     * the unknown and NaN pixels still black */
    CHECK_OK(flow_render_color(&f, 1e-6, &img, NULL));
    CHECK(pixel_is(&img, 0, 0, 191, 0, 0));
    CHECK(pixel_is(&img, 3, 0, 0, 0, 0) && pixel_is(&img, 4, 0, 0, 0, 0));
    flow_image_free(&img);
    /* zero flow is white (scale 1, no division by zero) */
    memset(f.u, 0, sizeof u);
    memset(f.v, 0, sizeof v);
    CHECK_OK(flow_render_color(&f, 0, &img, &used));
    CHECK(used == 1.0 && pixel_is(&img, 2, 0, 255, 255, 255));
    flow_image_free(&img);
    flow_field_free(&f);
}

/* The key frame: 5x3 field, border 6 -> 17x15, centre (8, 7); the middle of
 * each side has the colour of the direction pointing to it. */
static void test_framed(void)
{
    flow_field f;
    CHECK_OK(flow_field_alloc(&f, 5, 3));
    for (int i = 0; i < 15; i++)
        f.u[i] = 0.1f * i, f.v[i] = -0.05f * i;
    flow_image img, plain;
    double used;
    CHECK_OK(flow_render_color_framed(&f, 0, 6, &img, &used));
    CHECK(img.width == 17 && img.height == 15);
    CHECK(pixel_is(&img, 16, 7, 255, 0, 0));   /* right edge: red */
    CHECK(pixel_is(&img, 0, 7, 0, 209, 255));  /* left edge */
    CHECK(pixel_is(&img, 8, 0, 88, 0, 255));   /* top edge: up */
    CHECK(pixel_is(&img, 8, 14, 255, 230, 0)); /* bottom edge: down */
    CHECK_OK(flow_render_color(&f, 0, &plain, NULL));
    int same = 1;
    for (int b = 0; b < 3; b++)
        for (int y = 0; y < 3; y++)
            for (int x = 0; x < 5; x++)
                same &= px(&img, x + 6, y + 6, b) == px(&plain, x, y, b);
    CHECK(same);
    flow_image_free(&img);
    flow_image_free(&plain);
    /* the default border: 8 % of the smaller side, at least 6 */
    CHECK_OK(flow_render_color_framed(&f, 0, 0, &img, NULL));
    CHECK(img.width == 17 && img.height == 15);
    flow_image_free(&img);
    flow_field_free(&f);
}

static void test_legend(void)
{
    flow_image img;
    CHECK_OK(flow_render_legend(101, &img));
    CHECK(img.width == 101 && img.height == 101 && img.channels == 3);
    CHECK(pixel_is(&img, 0, 0, 255, 255, 255));     /* outside the disc: white */
    CHECK(pixel_is(&img, 50, 20, 96, 96, 96));      /* the vertical axis */
    CHECK(pixel_is(&img, 20, 50, 96, 96, 96));      /* the horizontal axis */
    const double c = 50, R = 50.5 - 3.0;
    const int xs[3] = {80, 30, 62}, ys[3] = {60, 35, 90};
    for (int i = 0; i < 3; i++) {
        float col[3];
        flow_color_of((xs[i] - c) / R, (ys[i] - c) / R, col);
        CHECK(pixel_is(&img, xs[i], ys[i], (int)col[0], (int)col[1], (int)col[2]));
    }
    flow_image_free(&img);
    CHECK(flow_render_legend(8, &img) == FLOW_ERR_INVALID);
}

static void test_blend_and_zoom(void)
{
    flow_image frame, color, out;
    CHECK_OK(flow_image_alloc(&frame, 2, 1, 1));
    CHECK_OK(flow_image_alloc(&color, 2, 1, 3));
    frame.data[0] = 100, frame.data[1] = 0;
    const float c[6] = {255, 10, 0, 20, 0, 30}; /* (255,0,0) and (10,20,30) */
    memcpy(color.data, c, sizeof c);
    CHECK_OK(flow_render_blend(&frame, &color, 0.5, &out));
    CHECK(px(&out, 0, 0, 0) == 177.5f && px(&out, 0, 0, 1) == 50.0f && px(&out, 0, 0, 2) == 50.0f);
    CHECK(px(&out, 1, 0, 0) == 5.0f && px(&out, 1, 0, 1) == 10.0f && px(&out, 1, 0, 2) == 15.0f);
    flow_image_free(&out);
    CHECK(flow_render_blend(&frame, &color, 1.5, &out) == FLOW_ERR_INVALID);
    flow_image other;
    CHECK_OK(flow_image_alloc(&other, 3, 1, 1));
    CHECK(flow_render_blend(&other, &color, 0.5, &out) == FLOW_ERR_SIZE);
    CHECK(strstr(flow_last_error(), "3x1") && strstr(flow_last_error(), "2x1"));
    flow_image_free(&other);
    CHECK_OK(flow_render_zoom_rgb(&frame, 3, &out));
    CHECK(out.width == 6 && out.height == 3 && out.channels == 3);
    CHECK(pixel_is(&out, 2, 2, 100, 100, 100) && pixel_is(&out, 3, 0, 0, 0, 0));
    flow_image_free(&out);
    flow_image_free(&frame);
    flow_image_free(&color);
}

static void fill_gray(flow_image *img, float level)
{
    for (int i = 0; i < 3 * img->width * img->height; i++)
        img->data[i] = level;
}

/* A field of w x h with every vector unknown but (u, v) at (x, y). */
static void lone_vector(flow_field *f, int w, int h, int x, int y, float u, float v)
{
    CHECK_OK(flow_field_alloc(f, w, h));
    for (int i = 0; i < w * h; i++)
        f->u[i] = f->v[i] = FLOW_UNKNOWN;
    f->u[y * w + x] = u, f->v[y * w + x] = v;
}

static flow_vector_style black_style(int step, double scale)
{
    flow_vector_style s = flow_vector_defaults(FLOW_BACKDROP_WHITE);
    s.step = step, s.scale = scale;
    return s;
}

/* Is pixel (x, y) of a picture drawn in black on white darker than mid? */
static int dark(const flow_image *img, int x, int y)
{
    return px(img, x, y, 0) < 128;
}

/* The automatic grid: about 18 arrows across the smaller side, at least
 * every 8 pixels. */
static void test_vector_step(void)
{
    CHECK(flow_vector_step(584, 388) == 22); /* Middlebury: 388 / 18 = 21.6 */
    CHECK(flow_vector_step(388, 584) == 22);
    CHECK(flow_vector_step(1920, 1080) == 60);
    CHECK(flow_vector_step(160, 120) == 8); /* 6.7: the least, 8 */
    CHECK(flow_vector_step(2, 2) == 8);
    const flow_vector_style w = flow_vector_defaults(FLOW_BACKDROP_WHITE);
    const flow_vector_style f = flow_vector_defaults(FLOW_BACKDROP_FRAME);
    const flow_vector_style c = flow_vector_defaults(FLOW_BACKDROP_COLOR);
    CHECK(w.step == 0 && w.scale == 0 && w.max_radius == 0 && !w.outline && w.rgb[0] == 0);
    CHECK(f.outline && f.rgb[0] == 255 && f.rgb[1] == 255 && f.rgb[2] == 0);
    CHECK(c.outline && c.rgb[0] == 0 && c.rgb[1] == 0 && c.rgb[2] == 0);
}

/* One arrow on a white 32x32 picture, step 16 (lines max(1, 16 / 16) = 1
 * px wide): the grid points are ((31 % 16) / 2 = 7, 23) each way; the
 * field is (12, 0) at (7, 7), unknown elsewhere, scale 1.  The shaft runs
 * along row 7 from x = 7; the head is max(min(0.35 * 12, 0.3 * 16), 2.5) =
 * 4.2 long, base at x = 14.8, half-width max(0.35 * 4.2, 1.25) = 1.47, tip
 * at 19.  So
 * (16, 6) and (16, 8), a pixel from the shaft's centre line where a bare
 * line leaves white, are dark: the head; beside the middle of the shaft
 * (11, 6) and (11, 8) stay white, as does everything before the tail and
 * past the tip. */
static void test_vector_heads(void)
{
    flow_field f;
    lone_vector(&f, 32, 32, 7, 7, 12, 0);
    flow_image img;
    CHECK_OK(flow_image_alloc(&img, 32, 32, 3));
    fill_gray(&img, 255);
    const flow_vector_style s = black_style(16, 1.0);
    flow_vector_style used;
    CHECK_OK(flow_render_vectors(&f, &s, &img, &used));
    CHECK(used.step == 16 && used.scale == 1.0);
    int shaft = 1;
    for (int x = 7; x <= 14; x++)
        shaft &= pixel_is(&img, x, 7, 0, 0, 0);
    CHECK(shaft);
    CHECK(dark(&img, 16, 6) && dark(&img, 16, 8)); /* the head, beside the shaft's end */
    CHECK(dark(&img, 18, 7));                      /* near the tip */
    CHECK(px(&img, 11, 6, 0) == 255 && px(&img, 11, 8, 0) == 255); /* a bare shaft */
    CHECK(px(&img, 21, 7, 0) == 255 && px(&img, 5, 7, 0) == 255);  /* past the ends */
    CHECK(px(&img, 16, 4, 0) == 255 && px(&img, 16, 10, 0) == 255); /* the head's width */
    /* the same arrow pointing left: the head at the other end */
    f.u[7 * 32 + 7] = FLOW_UNKNOWN;
    f.u[7 * 32 + 23] = -12, f.v[7 * 32 + 23] = 0;
    fill_gray(&img, 255);
    CHECK_OK(flow_render_vectors(&f, &s, &img, NULL));
    CHECK(dark(&img, 14, 6) && dark(&img, 14, 8) && px(&img, 19, 6, 0) == 255);
    /* an unknown vector draws nothing */
    f.u[7 * 32 + 23] = FLOW_UNKNOWN;
    fill_gray(&img, 255);
    CHECK_OK(flow_render_vectors(&f, &s, &img, NULL));
    int white = 1;
    for (int i = 0; i < 3 * 32 * 32; i++)
        white &= img.data[i] == 255;
    CHECK(white);
    flow_image_free(&img);
    flow_field_free(&f);
}

/* The grid is centred (equal margins) and the automatic scale makes the
 * longest arrow 0.9 step: on a 20x10 field, step 8, the grid points are x
 * = 1, 9, 17 ((19 % 8) / 2 = 1) and y = 0, 8; zero vectors there are dots.
 * A long vector off the grid does not count for the scale. */
static void test_vector_grid(void)
{
    flow_field f;
    CHECK_OK(flow_field_alloc(&f, 20, 10));
    for (int i = 0; i < 200; i++)
        f.u[i] = f.v[i] = 0;
    flow_image img;
    CHECK_OK(flow_image_alloc(&img, 20, 10, 3));
    fill_gray(&img, 255);
    const flow_vector_style s = black_style(8, 1.0);
    CHECK_OK(flow_render_vectors(&f, &s, &img, NULL));
    int dots = 1, count = 0;
    const int xs[3] = {1, 9, 17}, ys[2] = {0, 8};
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 2; b++)
            dots &= pixel_is(&img, xs[a], ys[b], 0, 0, 0);
    for (int y = 0; y < 10; y++)
        for (int x = 0; x < 20; x++)
            count += px(&img, x, y, 0) == 0;
    CHECK(dots && count == 6);
    flow_image_free(&img);
    flow_field_free(&f);

    /* automatic: step flow_vector_step(32, 32) = 8, grid 3, 11, 19, 27; the
     * longest arrow (4, 0) at (11, 11): scale 0.9 * 8 / 4 = 1.8; the
     * (100, 0) at (5, 5) is not on the grid */
    CHECK_OK(flow_field_alloc(&f, 32, 32));
    for (int i = 0; i < 32 * 32; i++)
        f.u[i] = f.v[i] = 0;
    f.u[11 * 32 + 11] = 4;
    f.u[5 * 32 + 5] = 100;
    CHECK_OK(flow_image_alloc(&img, 32, 32, 3));
    flow_vector_style a = flow_vector_defaults(FLOW_BACKDROP_WHITE), used;
    CHECK_OK(flow_render_vectors(&f, &a, &img, &used));
    CHECK(used.step == 8);
    CHECK_NEAR(used.scale, 1.8, 1e-12);
    a.max_radius = 2; /* the length drawn 0.9 step: a ground truth's */
    CHECK_OK(flow_render_vectors(&f, &a, &img, &used));
    CHECK_NEAR(used.scale, 3.6, 1e-12);
    for (int i = 0; i < 32 * 32; i++) /* zero flow: scale as for length 1 */
        f.u[i] = 0;
    a.max_radius = 0;
    CHECK_OK(flow_render_vectors(&f, &a, &img, &used));
    CHECK_NEAR(used.scale, 7.2, 1e-12);
    flow_image_free(&img);
    flow_field_free(&f);
}

/* Over a picture the arrows are outlined: yellow on mid-grey, the pixel a
 * pixel off the shaft's centre line is black (the outline, a 1-px line
 * grown by 1 px each side), three pixels off the grey is untouched. */
static void test_vector_outline(void)
{
    flow_field f;
    lone_vector(&f, 32, 32, 7, 7, 12, 0);
    flow_image img;
    CHECK_OK(flow_image_alloc(&img, 32, 32, 3));
    fill_gray(&img, 128);
    flow_vector_style s = flow_vector_defaults(FLOW_BACKDROP_FRAME);
    s.step = 16, s.scale = 1;
    CHECK_OK(flow_render_vectors(&f, &s, &img, NULL));
    CHECK(pixel_is(&img, 11, 7, 255, 255, 0));
    CHECK(pixel_is(&img, 11, 8, 0, 0, 0) && pixel_is(&img, 11, 6, 0, 0, 0));
    CHECK(pixel_is(&img, 11, 10, 128, 128, 128));
    /* black arrows get a white outline */
    s = flow_vector_defaults(FLOW_BACKDROP_COLOR);
    s.step = 16, s.scale = 1;
    fill_gray(&img, 128);
    CHECK_OK(flow_render_vectors(&f, &s, &img, NULL));
    CHECK(pixel_is(&img, 11, 7, 0, 0, 0) && pixel_is(&img, 11, 8, 255, 255, 255));
    flow_image_free(&img);
    flow_field_free(&f);
}

static void test_vector_errors_and_zoom(void)
{
    flow_field f;
    lone_vector(&f, 32, 32, 7, 7, 12, 0);
    flow_image img;
    CHECK_OK(flow_image_alloc(&img, 32, 32, 3));
    flow_vector_style s = black_style(-1, 1.0);
    CHECK(flow_render_vectors(&f, &s, &img, NULL) == FLOW_ERR_INVALID);
    s = black_style(16, -1.0);
    CHECK(flow_render_vectors(&f, &s, &img, NULL) == FLOW_ERR_INVALID);
    s = black_style(16, NAN);
    CHECK(flow_render_vectors(&f, &s, &img, NULL) == FLOW_ERR_INVALID);
    s = black_style(16, 0);
    s.max_radius = INFINITY;
    CHECK(flow_render_vectors(&f, &s, &img, NULL) == FLOW_ERR_INVALID);
    CHECK(flow_render_vectors(&f, NULL, &img, NULL) == FLOW_ERR_INVALID);
    flow_image_free(&img);
    s = black_style(16, 1.0);
    CHECK_OK(flow_image_alloc(&img, 33, 32, 3));
    CHECK(flow_render_vectors(&f, &s, &img, NULL) == FLOW_ERR_SIZE);
    flow_image_free(&img);
    /* zoom 2: a 64x64 picture, everything twice as large: the shaft from
     * (14.5, 14.5) along rows 14-15, lines 2 px wide, the head beside it */
    CHECK_OK(flow_image_alloc(&img, 64, 64, 3));
    fill_gray(&img, 255);
    CHECK_OK(flow_render_vectors(&f, &s, &img, NULL));
    CHECK(pixel_is(&img, 22, 14, 0, 0, 0) && pixel_is(&img, 22, 15, 0, 0, 0));
    CHECK(dark(&img, 31, 12) && dark(&img, 31, 17));
    CHECK(px(&img, 22, 12, 0) == 255 && px(&img, 22, 17, 0) == 255);
    flow_image_free(&img);
    flow_field_free(&f);
}

static void fill_white(flow_image *img)
{
    for (int i = 0; i < 3 * img->width * img->height; i++)
        img->data[i] = 255;
}

/* Polylines on a white 9x9 picture.  Coverage is 1 - (d - width / 2) at
 * distance d from the line, clamped to [0, 1]: a 1-pixel line covers its
 * own row fully and leaves the next rows white; a dot 3 pixels wide covers
 * (d <= 1) fully and the diagonal neighbours (d = sqrt 2) by 2 - sqrt 2.
 * At the joint of a 2-pixel-wide V, (4, 5) lies at d = 1 from both
 * segments: laid once it is half covered (127.5), not 63.75. */
static void test_polyline(void)
{
    const float black[3] = {0, 0, 0}, red[3] = {255, 0, 0};
    flow_image img;
    CHECK_OK(flow_image_alloc(&img, 9, 9, 3));
    fill_white(&img);
    const float row[4] = {1, 4, 7, 4};
    CHECK_OK(flow_render_polyline(&img, row, 2, 1.0, black));
    int on = 1, off = 1;
    for (int x = 1; x <= 7; x++)
        on &= pixel_is(&img, x, 4, 0, 0, 0);
    for (int x = 0; x < 9; x++)
        off &= px(&img, x, 3, 0) == 255 && px(&img, x, 5, 0) == 255;
    CHECK(on && off);
    CHECK(px(&img, 0, 4, 0) == 255 && px(&img, 8, 4, 0) == 255); /* one pixel past the ends */

    fill_white(&img);
    const float dot[2] = {4, 4};
    CHECK_OK(flow_render_polyline(&img, dot, 1, 3.0, red));
    CHECK(pixel_is(&img, 4, 4, 255, 0, 0) && pixel_is(&img, 5, 4, 255, 0, 0) &&
          pixel_is(&img, 4, 3, 255, 0, 0));
    CHECK(fabsf(px(&img, 5, 5, 1) - 255.0f * (float)(sqrt(2.0) - 1.0)) < 0.01f);
    CHECK(pixel_is(&img, 6, 4, 255, 255, 255) && pixel_is(&img, 2, 2, 255, 255, 255));

    fill_white(&img);
    const float vee[6] = {1, 1, 4, 4, 7, 1};
    CHECK_OK(flow_render_polyline(&img, vee, 3, 2.0, black));
    CHECK(px(&img, 4, 4, 0) == 0);
    CHECK(fabsf(px(&img, 4, 5, 0) - 127.5f) < 1e-3f);

    /* ends far outside: clipped, the visible part drawn */
    fill_white(&img);
    const float far[4] = {-1e9f, 2, 1e9f, 2};
    CHECK_OK(flow_render_polyline(&img, far, 2, 1.0, black));
    on = 1;
    for (int x = 0; x < 9; x++)
        on &= px(&img, x, 2, 0) == 0 && px(&img, x, 3, 0) == 255;
    CHECK(on);
    fill_white(&img);
    const float outside[4] = {-20, -20, -10, 30};
    CHECK_OK(flow_render_polyline(&img, outside, 2, 1.0, black));
    int white = 1;
    for (int i = 0; i < 3 * 81; i++)
        white &= img.data[i] == 255;
    CHECK(white);

    const float nan_point[2] = {NAN, 1};
    CHECK(flow_render_polyline(&img, row, 0, 1.0, black) == FLOW_ERR_INVALID);
    CHECK(flow_render_polyline(&img, row, 2, 0.0, black) == FLOW_ERR_INVALID);
    CHECK(flow_render_polyline(&img, nan_point, 1, 1.0, black) == FLOW_ERR_INVALID);
    flow_image_free(&img);
    CHECK_OK(flow_image_alloc(&img, 9, 9, 1));
    CHECK(flow_render_polyline(&img, row, 2, 1.0, black) == FLOW_ERR_INVALID);
    flow_image_free(&img);
}

/* The roundest lengths: 1, 2 or 5 times a power of ten, not above r. */
static void test_round_length(void)
{
    CHECK(flow_round_length(3.3) == 2 && flow_round_length(0.07) == 0.05);
    CHECK(flow_round_length(10) == 10 && flow_round_length(99.99) == 50);
    CHECK(flow_round_length(1) == 1 && flow_round_length(5.5) == 5);
    CHECK(flow_round_length(0) == 0 && flow_round_length(-1) == 0);
}

/* The key of a plot of a uniform (3, 0) on a white 200x200 picture: step
 * round(200 / 18) = 11, scale 0.9 * 11 / 3 = 3.3, so the reference is the
 * roundest motion under 3: 2 px, an arrow 6.6 px long.  Factor 1, pad 2:
 * the plate is 13 px tall at the bottom-left, 2 px in; its middle row has
 * the arrow's dark run from x = 2 + 2 + 1 for about 6.6 px, then white,
 * then the text "2 px, one per 11 px" (19 characters, 113 px) from
 * x = 2 + 2 + 9 + 2 = 15.  A 24x24 picture has no room and is untouched. */
static void test_vector_key(void)
{
    flow_field f;
    CHECK_OK(flow_field_alloc(&f, 200, 200));
    for (int i = 0; i < 200 * 200; i++)
        f.u[i] = 3, f.v[i] = 0;
    flow_image img;
    CHECK_OK(flow_image_alloc(&img, 200, 200, 3));
    fill_gray(&img, 255);
    flow_vector_style used;
    const flow_vector_style s = flow_vector_defaults(FLOW_BACKDROP_WHITE);
    CHECK_OK(flow_render_vectors(&f, &s, &img, &used));
    CHECK(used.step == 11 && fabs(used.scale - 3.3) < 1e-12);
    CHECK_OK(flow_render_vector_key(&img, &used, 1));
    const int y0 = 200 - 13 - 2, mid = y0 + 6;
    int run = 0, first = -1;
    for (int x = 2; x < 15; x++)
        if (dark(&img, x, mid)) {
            run++;
            first = first < 0 ? x : first;
        }
    CHECK(first == 5 && run >= 6 && run <= 8);
    int plate_white = 1;
    for (int x = 2; x < 15 + 113 + 2; x++)
        plate_white &= px(&img, x, y0, 0) == 255 && px(&img, x, y0 + 12, 0) == 255;
    CHECK(plate_white);
    int text = 0;
    for (int y = y0 + 2; y < y0 + 11; y++)
        for (int x = 15; x < 15 + 113; x++)
            text += dark(&img, x, y);
    CHECK(text > 100);
    /* under the plate's right end, the plot's own arrows again */
    flow_image small;
    flow_field g;
    CHECK_OK(flow_field_alloc(&g, 24, 24));
    for (int i = 0; i < 24 * 24; i++)
        g.u[i] = 3, g.v[i] = 0;
    CHECK_OK(flow_image_alloc(&small, 24, 24, 3));
    fill_gray(&small, 255);
    CHECK_OK(flow_render_vectors(&g, &s, &small, &used));
    flow_image copy;
    CHECK_OK(flow_image_alloc(&copy, 24, 24, 3));
    memcpy(copy.data, small.data, 3 * 24 * 24 * sizeof *copy.data);
    CHECK(flow_render_vector_key(&small, &used, 1) == FLOW_ERR_SIZE);
    CHECK(memcmp(copy.data, small.data, 3 * 24 * 24 * sizeof *copy.data) == 0);
    flow_vector_style unset = flow_vector_defaults(FLOW_BACKDROP_WHITE);
    CHECK(flow_render_vector_key(&img, &unset, 1) == FLOW_ERR_INVALID);
    flow_image_free(&copy), flow_image_free(&small), flow_image_free(&img);
    flow_field_free(&g), flow_field_free(&f);
}

int main(void)
{
    RUN(test_wheel);
    RUN(test_primary_directions);
    RUN(test_segment_boundaries);
    RUN(test_saturation);
    RUN(test_unknown);
    RUN(test_render_field);
    RUN(test_framed);
    RUN(test_legend);
    RUN(test_blend_and_zoom);
    RUN(test_vector_step);
    RUN(test_vector_heads);
    RUN(test_round_length);
    RUN(test_vector_key);
    RUN(test_vector_grid);
    RUN(test_vector_outline);
    RUN(test_vector_errors_and_zoom);
    RUN(test_polyline);
    return harness_report();
}
