/* test_pictures.c -- the pictures that carry words and figures: the bitmap
 * font and text drawing (each pixel of a glyph against its drawing here),
 * the scale label of the colour key, the endpoint-error colour ramp and
 * map (colours worked out by hand), the error caption against
 * flow_error_compute's figures, and montage layouts (sizes and positions
 * from the rule in flow/render.h, worked out by hand). */
#include "harness.h"
#include "flow/render.h"
#include "render/render_internal.h" /* the font, text and montage layout, not public */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static float px(const flow_image *img, int x, int y, int b)
{
    return img->data[(size_t)b * img->width * img->height + (size_t)y * img->width + x];
}

static int pixel_is(const flow_image *img, int x, int y, float r, float g, float b)
{
    const int ok = px(img, x, y, 0) == r && px(img, x, y, 1) == g && px(img, x, y, 2) == b;
    if (!ok)
        fprintf(stderr, "    (%d, %d) is (%g, %g, %g), expected (%g, %g, %g)\n", x, y,
                px(img, x, y, 0), px(img, x, y, 1), px(img, x, y, 2), r, g, b);
    return ok;
}

static void fill(flow_image *img, float level)
{
    for (int i = 0; i < img->channels * img->width * img->height; i++)
        img->data[i] = level;
}

static const float black[3] = {0, 0, 0}, white[3] = {255, 255, 255};

/* ---- the font ------------------------------------------------------------ */

static const char *const glyph_A[9] = {".###.", "#...#", "#...#", "#####", "#...#",
                                       "#...#", "#...#", ".....", "....."};
static const char *const glyph_g[9] = {".....", ".....", ".####", "#...#", "#...#",
                                       "#...#", ".####", "....#", ".###."};

static int glyph_matches(int c, const char *const art[9])
{
    const unsigned char *rows = flow_glyph(c);
    int ok = 1;
    for (int r = 0; r < 9; r++)
        for (int col = 0; col < 5; col++)
            ok &= !!(rows[r] & (0x10 >> col)) == (art[r][col] == '#');
    return ok;
}

static void test_font(void)
{
    CHECK(glyph_matches('A', glyph_A));
    CHECK(glyph_matches('g', glyph_g)); /* a descender in rows 7-8 */
    CHECK(flow_glyph(200) == flow_glyph('?') && flow_glyph(10) == flow_glyph('?'));
    int blank = 1;
    for (int r = 0; r < 9; r++)
        blank &= flow_glyph(' ')[r] == 0;
    CHECK(blank);
    /* every other glyph draws something, within 5 columns, and no two
     * printable characters look alike */
    int drawn = 1, narrow = 1, distinct = 1;
    for (int c = 33; c < 127; c++) {
        int any = 0;
        for (int r = 0; r < 9; r++)
            any |= flow_glyph(c)[r], narrow &= flow_glyph(c)[r] < 0x20;
        drawn &= any != 0;
        for (int d = 32; d < c; d++)
            distinct &= memcmp(flow_glyph(c), flow_glyph(d), 9) != 0;
    }
    CHECK(drawn && narrow && distinct);
}

/* "A" at factor 2 with its corner at (1, 1): each glyph pixel a 2x2 block,
 * every other pixel of the picture untouched. */
static void test_text(void)
{
    flow_image img;
    CHECK_OK(flow_image_alloc(&img, 14, 22, 3));
    fill(&img, 255);
    CHECK_OK(flow_render_text(&img, 1, 1, "A", 2, black));
    int ok = 1;
    for (int y = 0; y < 22; y++)
        for (int x = 0; x < 14; x++) {
            const int gx = (x - 1) / 2, gy = (y - 1) / 2;
            const int on = x >= 1 && y >= 1 && gx < 5 && gy < 9 && glyph_A[gy][gx] == '#';
            ok &= px(&img, x, y, 0) == (on ? 0 : 255) && px(&img, x, y, 2) == (on ? 0 : 255);
        }
    CHECK(ok);
    int w, h;
    flow_text_size("abc", 2, &w, &h);
    CHECK(w == 34 && h == 18); /* (6 * 3 - 1) * 2, 9 * 2 */
    flow_text_size("", 3, &w, &h);
    CHECK(w == 0 && h == 27);
    CHECK(flow_text_factor(584) == 2 && flow_text_factor(160) == 1 &&
          flow_text_factor(1920) == 6 && flow_text_factor(1) == 1);
    /* clipped at the edges: "AA" from x = -3 in a 6x9 picture shows the
     * last two columns of the first A and the first three of the second */
    flow_image small;
    CHECK_OK(flow_image_alloc(&small, 6, 9, 3));
    fill(&small, 255);
    CHECK_OK(flow_render_text(&small, -3, 0, "AA", 1, black));
    CHECK(px(&small, 0, 1, 0) == 255 && px(&small, 1, 1, 0) == 0); /* row 1: #...# */
    CHECK(px(&small, 3, 1, 0) == 0 && px(&small, 4, 1, 0) == 255);
    CHECK(px(&small, 2, 3, 0) == 255 && px(&small, 5, 0, 0) == 0); /* the gap; .###. */
    CHECK_OK(flow_render_text(&small, 4000, -4000, "far away", 3, black));
    /* a label: the plate is the text plus a factor on every side */
    fill(&small, 128);
    CHECK_OK(flow_render_label(&small, 0, 0, "", 2, black, white));
    CHECK(pixel_is(&small, 3, 3, 255, 255, 255) && pixel_is(&small, 4, 4, 128, 128, 128));
    flow_image_free(&img);
    CHECK_OK(flow_image_alloc(&img, 20, 20, 3));
    fill(&img, 128);
    CHECK_OK(flow_render_label(&img, 2, 3, "A", 1, black, white));
    CHECK(pixel_is(&img, 2, 3, 255, 255, 255) && pixel_is(&img, 8, 13, 255, 255, 255));
    CHECK(pixel_is(&img, 9, 13, 128, 128, 128) && pixel_is(&img, 8, 14, 128, 128, 128));
    CHECK(pixel_is(&img, 3, 5, 0, 0, 0)); /* A's row 1, column 0 at (2 + 1, 3 + 1 + 1) */
    CHECK(flow_render_text(&img, 0, 0, "A", 0, black) == FLOW_ERR_INVALID);
    CHECK(flow_render_text(&img, 0, 0, NULL, 1, black) == FLOW_ERR_INVALID);
    flow_image gray;
    CHECK_OK(flow_image_alloc(&gray, 4, 4, 1));
    CHECK(flow_render_text(&gray, 0, 0, "A", 1, black) == FLOW_ERR_INVALID);
    flow_image_free(&gray);
    flow_image_free(&img);
    flow_image_free(&small);
}

/* ---- the scale label --------------------------------------------------------- */

/* A 40x30 field of zero flow (scale 1) framed 12 px wide: 64x54.  The
 * label "max 1 px" (8 characters: 47 x 9 at factor 12 / 11 = 1) sits on a
 * 49x11 white plate at ((64 - 49) / 2, 54 - 12 + (12 - 11) / 2) = (7, 42). */
static void test_scale_label(void)
{
    char text[64];
    flow_scale_text(4.61568, text, sizeof text);
    CHECK(strcmp(text, "max 4.62 px") == 0);
    flow_scale_text(2.8, text, sizeof text);
    CHECK(strcmp(text, "max 2.8 px") == 0);
    flow_scale_text(0.05, text, sizeof text);
    CHECK(strcmp(text, "max 0.05 px") == 0);
    flow_scale_text(99.97, text, sizeof text);
    CHECK(strcmp(text, "max 100 px") == 0);
    flow_scale_text(1234.4, text, sizeof text);
    CHECK(strcmp(text, "max 1234 px") == 0);
    CHECK(flow_legend_border(584, 388) == 31 && flow_legend_border(50, 50) == 6 &&
          flow_legend_border(2000, 2000) == 64);

    flow_field f;
    CHECK_OK(flow_field_alloc(&f, 40, 30));
    memset(f.u, 0, 40 * 30 * sizeof *f.u);
    memset(f.v, 0, 40 * 30 * sizeof *f.v);
    flow_image img, plain;
    double used;
    CHECK_OK(flow_render_color_framed(&f, 0, 12, &img, &used));
    CHECK_OK(flow_render_color_framed(&f, 0, 12, &plain, NULL));
    CHECK_OK(flow_render_scale_label(&img, 12, used));
    CHECK(pixel_is(&img, 7, 42, 255, 255, 255) && pixel_is(&img, 55, 52, 255, 255, 255));
    CHECK(pixel_is(&img, 8, 45, 0, 0, 0)); /* 'm', row 2: ##.#. */
    int same_outside = 1, changed = 0;
    for (int y = 0; y < 54; y++)
        for (int x = 0; x < 64; x++) {
            const int on_plate = x >= 7 && x < 56 && y >= 42 && y < 53;
            for (int b = 0; b < 3; b++)
                if (px(&img, x, y, b) != px(&plain, x, y, b)) {
                    same_outside &= on_plate;
                    changed++;
                }
        }
    CHECK(same_outside && changed > 0);
    CHECK(flow_render_scale_label(&img, 10, 1.0) == FLOW_ERR_INVALID); /* too narrow */
    CHECK(flow_render_scale_label(&img, 12, NAN) == FLOW_ERR_INVALID);
    CHECK(flow_render_scale_label(&img, 12, 0) == FLOW_ERR_INVALID);
    CHECK(flow_render_scale_label(&img, 27, 1.0) == FLOW_ERR_INVALID); /* half the picture */
    flow_image_free(&img);
    flow_image_free(&plain);
    flow_field_free(&f);
}

/* ---- endpoint errors --------------------------------------------------------- */

static void test_error_colors(void)
{
    float c[3];
    flow_error_color(0, c);
    CHECK(c[0] == 0 && c[1] == 0 && c[2] == 0);
    flow_error_color(1.0 / 3.0, c);
    CHECK(c[0] == 255 && c[1] == 0 && c[2] == 0);
    flow_error_color(0.5, c); /* green 3 * 0.5 - 1 = 0.5: 127.5, rounded */
    CHECK(c[0] == 255 && c[1] == 128 && c[2] == 0);
    flow_error_color(2.0 / 3.0, c);
    CHECK(c[0] == 255 && c[1] == 255 && c[2] == 0);
    flow_error_color(1, c);
    CHECK(c[0] == 255 && c[1] == 255 && c[2] == 255);
    flow_error_color(7, c); /* beyond the scale: white */
    CHECK(c[0] == 255 && c[1] == 255 && c[2] == 255);
    flow_error_color(NAN, c);
    CHECK(c[0] == 0 && c[1] == 0 && c[2] == 0);
    /* brighter with the error at every step */
    float prev = -1;
    int rising = 1;
    for (int i = 0; i <= 30; i++) {
        flow_error_color(i / 30.0, c);
        const float luma = c[0] + c[1] + c[2];
        rising &= luma > prev;
        prev = luma;
    }
    CHECK(rising);
}

/* est (1,0) (0,0) (3,4) (unknown); gt (0,0) (0,0) (0,0) (1,1): endpoint
 * errors 1, 0, 5 and an unscored pixel; angular errors 45, 0,
 * acos(1 / sqrt 26) = 78.690068: AEE 2, AAE 41.230023. */
static void error_pair(flow_field *est, flow_field *gt)
{
    CHECK_OK(flow_field_alloc(est, 4, 1));
    CHECK_OK(flow_field_alloc(gt, 4, 1));
    const float eu[4] = {1, 0, 3, FLOW_UNKNOWN}, ev[4] = {0, 0, 4, 0};
    const float gu[4] = {0, 0, 0, 1}, gv[4] = {0, 0, 0, 1};
    memcpy(est->u, eu, sizeof eu), memcpy(est->v, ev, sizeof ev);
    memcpy(gt->u, gu, sizeof gu), memcpy(gt->v, gv, sizeof gv);
}

static void test_error_map(void)
{
    flow_field est, gt;
    error_pair(&est, &gt);
    float ee[4];
    CHECK_OK(flow_error_per_pixel(&est, &gt, NULL, ee));
    CHECK(ee[0] == 1 && ee[1] == 0 && ee[2] == 5 && isnan(ee[3]));
    const float grey[3] = FLOW_UNSCORED_RGB;
    flow_image img;
    double used;
    CHECK_OK(flow_render_error_map(&est, &gt, NULL, 0, &img, &used));
    CHECK(used == 5 && img.width == 4 && img.height == 1 && img.channels == 3);
    CHECK(pixel_is(&img, 0, 0, 153, 0, 0)); /* t = 0.2: red 0.6 * 255 */
    CHECK(pixel_is(&img, 1, 0, 0, 0, 0) && pixel_is(&img, 2, 0, 255, 255, 255));
    CHECK(pixel_is(&img, 3, 0, grey[0], grey[1], grey[2]));
    flow_image_free(&img);
    /* a mask leaving out pixel 2: the scale is pixel 0's error */
    const unsigned char mask[4] = {1, 1, 0, 1};
    CHECK_OK(flow_render_error_map(&est, &gt, mask, 0, &img, &used));
    CHECK(used == 1 && pixel_is(&img, 0, 0, 255, 255, 255));
    CHECK(pixel_is(&img, 2, 0, grey[0], grey[1], grey[2]));
    flow_image_free(&img);
    CHECK_OK(flow_render_error_map(&est, &gt, NULL, 10, &img, &used)); /* a fixed scale */
    CHECK(used == 10 && pixel_is(&img, 2, 0, 255, 128, 0));
    flow_image_free(&img);
    CHECK(flow_render_error_map(&est, &gt, NULL, NAN, &img, NULL) == FLOW_ERR_INVALID);
    est.v[1] = NAN; /* a failed computation, as flow_error_compute refuses it */
    CHECK(flow_render_error_map(&est, &gt, NULL, 0, &img, NULL) == FLOW_ERR_INVALID);
    CHECK(img.data == NULL);
    flow_field other;
    CHECK_OK(flow_field_alloc(&other, 2, 2));
    CHECK(flow_render_error_map(&other, &gt, NULL, 0, &img, NULL) == FLOW_ERR_SIZE);
    flow_field_free(&other);
    flow_field_free(&est);
    flow_field_free(&gt);
}

/* KITTI's log colours: the interval edges 0.0625 * 2^k belong to the
 * interval above them; the devkit's first, sixth and last colours. */
static void test_kitti_error_colors(void)
{
    float c[3];
    flow_kitti_error_color(0, c);
    CHECK(c[0] == 49 && c[1] == 54 && c[2] == 149);
    flow_kitti_error_color(0.0624, c);
    CHECK(c[0] == 49 && c[1] == 54 && c[2] == 149);
    flow_kitti_error_color(0.0625, c);
    CHECK(c[0] == 69 && c[1] == 117 && c[2] == 180);
    flow_kitti_error_color(0.999, c);
    CHECK(c[0] == 224 && c[1] == 243 && c[2] == 248);
    flow_kitti_error_color(1, c); /* Fl's threshold: the first warm colour */
    CHECK(c[0] == 254 && c[1] == 224 && c[2] == 144);
    flow_kitti_error_color(15.9, c);
    CHECK(c[0] == 215 && c[1] == 48 && c[2] == 39);
    flow_kitti_error_color(16, c);
    CHECK(c[0] == 165 && c[1] == 0 && c[2] == 38);
    flow_kitti_error_color(1e30, c);
    CHECK(c[0] == 165 && c[1] == 0 && c[2] == 38);
}

/* The picture of error_pair: pixel 0 EE 1 with |gt| 0 -> n = 1/3 (the
 * relative term infinite): [0.25, 0.5) (171, 217, 233); pixel 1 EE 0 -> n 0;
 * pixel 2 EE 5, |gt| 0 -> n 5/3: [1, 2) (254, 224, 144); pixel 3 unknown
 * ground truth: black.  Occluded, pixel 2 is at half brightness, rounded
 * down as the devkit's byte arithmetic does: (127, 112, 72). */
static void test_kitti_error_picture(void)
{
    flow_field est, gt;
    error_pair(&est, &gt);
    flow_image img;
    CHECK_OK(flow_render_kitti_error(&est, &gt, NULL, &img));
    CHECK(img.width == 4 && img.height == 1 && img.channels == 3);
    CHECK(pixel_is(&img, 0, 0, 171, 217, 233) && pixel_is(&img, 1, 0, 49, 54, 149));
    CHECK(pixel_is(&img, 2, 0, 254, 224, 144) && pixel_is(&img, 3, 0, 0, 0, 0));
    flow_image_free(&img);
    const unsigned char occluded[4] = {0, 0, 1, 0}, invalid[4] = {1, 0, 0, 0};
    const flow_error_regions r = {NULL, invalid, occluded, NULL, NULL};
    CHECK_OK(flow_render_kitti_error(&est, &gt, &r, &img));
    CHECK(pixel_is(&img, 0, 0, 0, 0, 0) && pixel_is(&img, 2, 0, 127, 112, 72));
    flow_image_free(&img);
    /* |gt| 20, EE 1.5: n = min(0.5, 1.5) = 0.5 -> [0.5, 1) (224, 243, 248) */
    gt.u[0] = 20, est.u[0] = 21.5f, est.v[0] = 0;
    CHECK_OK(flow_render_kitti_error(&est, &gt, NULL, &img));
    CHECK(pixel_is(&img, 0, 0, 224, 243, 248));
    flow_image_free(&img);
    const flow_error_regions both = {NULL, NULL, occluded, &gt, NULL};
    CHECK(flow_render_kitti_error(&est, &gt, &both, &img) == FLOW_ERR_INVALID);
    flow_field_free(&est);
    flow_field_free(&gt);
}

/* The caption's figures are flow_error_compute's, rounded. */
static void test_error_caption(void)
{
    flow_field est, gt;
    error_pair(&est, &gt);
    flow_error_stats st;
    CHECK_OK(flow_error_compute(&est, &gt, NULL, &st));
    char caption[96];
    flow_error_caption(&st, caption, sizeof caption);
    CHECK(strcmp(caption, "AEE 2.000 px  AAE 41.23 deg") == 0);
    double aee, aae;
    CHECK(sscanf(caption, "AEE %lf px  AAE %lf deg", &aee, &aae) == 2);
    CHECK(fabs(aee - st.aee) <= 0.0005 && fabs(aae - st.aae) <= 0.005);
    flow_field_free(&est);
    flow_field_free(&gt);
}

/* ---- montages ------------------------------------------------------------------ */

/* Panels 100x50 (red), 80x60 (gray 100) and 30x30 (blue), labels "a", "bb"
 * and none, 2 columns, title "T".  Cells 100x60; factor
 * flow_text_factor(100) = 1: gap 4, labels 11 high; the title at factor 2,
 * 22 high.  Width 4 + 2 (100 + 4) = 212; height 4 + 22 + 2 (11 + 60 + 4)
 * = 176.  Panel 0 at (4, 4 + 22 + 11 + (60 - 50) / 2) = (4, 42); panel 1
 * at (4 + 104 + 10, 37) = (118, 37); panel 2, alone in the last row and
 * so centred, half a cell and gap (52) in: at (4 + 52 + 35, 37 + 75 + 15)
 * = (91, 127). */
static void test_montage(void)
{
    flow_image a, b, c;
    CHECK_OK(flow_image_alloc(&a, 100, 50, 3));
    CHECK_OK(flow_image_alloc(&b, 80, 60, 1));
    CHECK_OK(flow_image_alloc(&c, 30, 30, 3));
    fill(&a, 0), fill(&b, 100), fill(&c, 0);
    for (int i = 0; i < 100 * 50; i++)
        a.data[i] = 255; /* red */
    for (int i = 0; i < 30 * 30; i++)
        c.data[2 * 30 * 30 + i] = 255; /* blue */
    const flow_panel panels[3] = {{&a, "a"}, {&b, "bb"}, {&c, NULL}};
    flow_montage_layout l;
    CHECK_OK(flow_montage_plan(panels, 3, 2, "T", &l));
    CHECK(l.columns == 2 && l.rows == 2 && l.cell_width == 100 && l.cell_height == 60);
    CHECK(l.factor == 1 && l.title_factor == 2 && l.gap == 4);
    CHECK(l.label_height == 11 && l.title_height == 22);
    CHECK(l.width == 212 && l.height == 176);
    int x, y;
    flow_montage_origin(&l, panels, 0, &x, &y);
    CHECK(x == 4 && y == 42);
    flow_montage_origin(&l, panels, 1, &x, &y);
    CHECK(x == 118 && y == 37);
    flow_montage_origin(&l, panels, 2, &x, &y);
    CHECK(x == 91 && y == 127);

    flow_image out;
    flow_montage_layout got;
    CHECK_OK(flow_render_montage(panels, 3, 2, "T", &out, &got));
    CHECK(out.width == 212 && out.height == 176 && got.height == 176);
    CHECK(pixel_is(&out, 4, 42, 255, 0, 0) && pixel_is(&out, 103, 91, 255, 0, 0));
    CHECK(pixel_is(&out, 3, 42, 255, 255, 255) && pixel_is(&out, 4, 41, 255, 255, 255));
    CHECK(pixel_is(&out, 118, 37, 100, 100, 100) && pixel_is(&out, 197, 96, 100, 100, 100));
    CHECK(pixel_is(&out, 91, 127, 0, 0, 255) && pixel_is(&out, 120, 156, 0, 0, 255));
    CHECK(pixel_is(&out, 121, 127, 255, 255, 255) && pixel_is(&out, 39, 127, 255, 255, 255));
    /* "a" centred over cell 0: x = 4 + (100 - 5) / 2 = 51, y = 26 + 1;
     * its row 2 is .###.; "T" at factor 2 centred on 204 px from x = 4:
     * 4 + (204 - 10) / 2 = 101, y = 4 + 2, its row 0 all on */
    CHECK(pixel_is(&out, 52, 29, 0, 0, 0) && pixel_is(&out, 51, 29, 255, 255, 255));
    CHECK(pixel_is(&out, 101, 6, 0, 0, 0) && pixel_is(&out, 110, 7, 0, 0, 0));
    CHECK(pixel_is(&out, 100, 6, 255, 255, 255));
    flow_image_free(&out);

    /* default columns: one row up to 4 panels, else half the panels */
    const flow_panel four[5] = {{&a, NULL}, {&a, NULL}, {&a, NULL}, {&a, NULL}, {&a, NULL}};
    CHECK_OK(flow_montage_plan(four, 4, 0, NULL, &l));
    CHECK(l.columns == 4 && l.rows == 1 && l.title_height == 0 && l.label_height == 0);
    CHECK(l.width == 4 + 4 * 104 && l.height == 4 + 50 + 4);
    CHECK_OK(flow_montage_plan(four, 5, 0, NULL, &l));
    CHECK(l.columns == 3 && l.rows == 2);
    CHECK_OK(flow_montage_plan(four, 2, 9, NULL, &l));
    CHECK(l.columns == 2);

    /* a label too long for its cell lowers the factor of all; one too long
     * even at factor 1 keeps the characters that fit: "abcdefgh" over 30
     * px, 5 of them (6 * 5 - 1 = 29 px), nothing past the cell */
    flow_image wide;
    CHECK_OK(flow_image_alloc(&wide, 700, 10, 1));
    fill(&wide, 0);
    const flow_panel lng[1] = {
        {&wide, "a label of seventy characters, which does not fit at factor 2 ...."}};
    CHECK_OK(flow_montage_plan(lng, 1, 0, NULL, &l));
    CHECK(flow_text_factor(700) == 2 && l.factor == 1);
    const flow_panel cut[2] = {{&c, "abcdefgh"}, {&c, NULL}};
    CHECK_OK(flow_render_montage(cut, 2, 0, NULL, &out, &l));
    int beyond = 1, drawn = 0;
    for (int yy = 0; yy < l.label_height + l.gap; yy++) {
        for (int xx = l.gap + 30; xx < out.width; xx++)
            beyond &= px(&out, xx, yy, 0) == 255;
        for (int xx = l.gap; xx < l.gap + 30; xx++)
            drawn += px(&out, xx, yy, 0) == 0;
    }
    CHECK(beyond && drawn > 0);
    flow_image_free(&out);

    /* refused */
    CHECK(flow_montage_plan(panels, 0, 0, NULL, &l) == FLOW_ERR_INVALID);
    CHECK(flow_montage_plan(panels, 3, 65, NULL, &l) == FLOW_ERR_INVALID);
    const flow_panel none[1] = {{NULL, "x"}};
    CHECK(flow_montage_plan(none, 1, 0, NULL, &l) == FLOW_ERR_INVALID);
    float dummy = 0;
    flow_image huge = {30000, 30000, 1, &dummy};
    const flow_panel big[2] = {{&huge, NULL}, {&huge, NULL}};
    CHECK(flow_montage_plan(big, 2, 0, NULL, &l) == FLOW_ERR_SIZE);
    flow_image_free(&wide);
    flow_image_free(&a), flow_image_free(&b), flow_image_free(&c);
}

/* Montages of 1..8 panels in the default columns and in 1..n columns have
 * no hole: every row but the last is full, each row's cells are side by
 * side one gap apart, and each row is centred (its margins left and right
 * differ by at most a pixel, from the halving); cells stay inside. */
static void test_montage_rows(void)
{
    flow_image a;
    CHECK_OK(flow_image_alloc(&a, 40, 30, 1));
    fill(&a, 0);
    flow_panel panels[8];
    for (int i = 0; i < 8; i++)
        panels[i].image = &a, panels[i].label = "p";
    int holes = 0, cases = 0;
    for (int n = 1; n <= 8; n++)
        for (int columns = 0; columns <= n; columns++) {
            flow_montage_layout l;
            CHECK_OK(flow_montage_plan(panels, n, columns, NULL, &l));
            cases++;
            for (int r = 0; r < l.rows; r++) {
                const int first = r * l.columns;
                const int last = first + l.columns - 1 < n - 1 ? first + l.columns - 1 : n - 1;
                int x0, y0, x1, y1;
                flow_montage_origin(&l, panels, first, &x0, &y0);
                flow_montage_origin(&l, panels, last, &x1, &y1);
                const int left = x0 - l.gap, right = l.width - (x1 + a.width) - l.gap;
                int ok = y0 == y1 && abs(left - right) <= 1 && left >= 0;
                ok &= r == l.rows - 1 || last - first + 1 == l.columns;
                for (int i = first + 1; i <= last; i++) {
                    int xa, ya, xb, yb;
                    flow_montage_origin(&l, panels, i - 1, &xa, &ya);
                    flow_montage_origin(&l, panels, i, &xb, &yb);
                    ok &= xb - xa == l.cell_width + l.gap && yb == ya;
                }
                ok &= y1 + a.height <= l.height;
                if (!ok) {
                    fprintf(stderr, "    %d panels in %d columns: row %d is not full and "
                            "centred (margins %d and %d)\n", n, columns, r, left, right);
                    holes++;
                }
            }
        }
    CHECK(holes == 0 && cases == 44);
    /* the default for 5 panels: 3 over 2; 7: 4 over 3 */
    flow_montage_layout l;
    CHECK_OK(flow_montage_plan(panels, 5, 0, NULL, &l));
    CHECK(l.columns == 3 && l.rows == 2 && l.panels == 5);
    CHECK_OK(flow_montage_plan(panels, 7, 0, NULL, &l));
    CHECK(l.columns == 4 && l.rows == 2);
    flow_image_free(&a);
}

/* The error map's colour bar, top right of a 640x480 map (factor 2, pad
 * 4): "0" (10 px wide), a bar 160 px wide on the ramp, "4.62 px"; the plate is white;
 * the bar's ends are the ramp's (black, white) and its middle red-yellow;
 * a map too small for it is left as it was. */
static void test_error_bar(void)
{
    flow_image map;
    CHECK_OK(flow_image_alloc(&map, 640, 480, 3));
    fill(&map, 50);
    CHECK_OK(flow_render_error_bar(&map, 4.62));
    int tw, th;
    flow_text_size("4.62 px", 2, &tw, &th);
    const int plate_w = 4 + 10 + 4 + 160 + 4 + tw + 4;
    const int x0 = 640 - plate_w - 4, y0 = 4, bx = x0 + 4 + 10 + 4, by = y0 + 4 + 8;
    CHECK(pixel_is(&map, x0, y0, 255, 255, 255) && pixel_is(&map, x0 + plate_w - 1, y0, 255, 255, 255));
    CHECK(pixel_is(&map, x0 - 1, y0, 50, 50, 50) && pixel_is(&map, 639, 479, 50, 50, 50));
    float lo[3], mid[3], hi[3];
    flow_error_color(0.5 / 160, lo);
    flow_error_color(80.5 / 160, mid);
    flow_error_color(159.5 / 160, hi);
    CHECK(pixel_is(&map, bx, by, lo[0], lo[1], lo[2]));
    CHECK(pixel_is(&map, bx + 80, by, mid[0], mid[1], mid[2]));
    CHECK(pixel_is(&map, bx + 159, by, hi[0], hi[1], hi[2]));
    CHECK(lo[0] < 10 && hi[2] > 245 && mid[0] == 255 && mid[2] == 0);
    /* "0" at (x0 + 4, y0 + 4): row 0 of its glyph is .###. at factor 2 */
    CHECK(pixel_is(&map, x0 + 4 + 2, y0 + 4, 0, 0, 0) && pixel_is(&map, x0 + 4, y0 + 4, 255, 255, 255));
    flow_image small;
    CHECK_OK(flow_image_alloc(&small, 40, 40, 3));
    fill(&small, 50);
    CHECK(flow_render_error_bar(&small, 1.0) == FLOW_ERR_SIZE);
    int untouched = 1;
    for (int i = 0; i < 3 * 40 * 40; i++)
        untouched &= small.data[i] == 50;
    CHECK(untouched);
    CHECK(flow_render_error_bar(&map, 0) == FLOW_ERR_INVALID);
    flow_image_free(&small);
    flow_image_free(&map);
}

/* The colour wheel in the corner: a 400x300 picture gets the legend of
 * size 75 at (400 - 75 - 5, 5), pixel for pixel; the rest is untouched; a
 * picture under 128 px on its smaller side gets none. */
static void test_wheel_inset(void)
{
    flow_image pic, wheel;
    CHECK_OK(flow_image_alloc(&pic, 400, 300, 3));
    fill(&pic, 50);
    CHECK_OK(flow_render_wheel_inset(&pic));
    CHECK_OK(flow_render_legend(75, &wheel));
    int same = 1;
    for (int y = 0; y < 75; y++)
        for (int x = 0; x < 75; x++)
            for (int b = 0; b < 3; b++)
                same &= px(&pic, 320 + x, 5 + y, b) == px(&wheel, x, y, b);
    CHECK(same);
    CHECK(pixel_is(&pic, 319, 5, 50, 50, 50) && pixel_is(&pic, 395, 5, 50, 50, 50));
    CHECK(pixel_is(&pic, 320, 4, 50, 50, 50) && pixel_is(&pic, 320, 80, 50, 50, 50));
    flow_image small;
    CHECK_OK(flow_image_alloc(&small, 200, 127, 3));
    CHECK(flow_render_wheel_inset(&small) == FLOW_ERR_SIZE);
    flow_image_free(&small);
    flow_image_free(&wheel);
    flow_image_free(&pic);
}

int main(void)
{
    RUN(test_font);
    RUN(test_text);
    RUN(test_scale_label);
    RUN(test_error_colors);
    RUN(test_error_map);
    RUN(test_kitti_error_colors);
    RUN(test_kitti_error_picture);
    RUN(test_error_caption);
    RUN(test_montage);
    RUN(test_montage_rows);
    RUN(test_error_bar);
    RUN(test_wheel_inset);
    return harness_report();
}
