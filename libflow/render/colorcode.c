/* colorcode.c -- the Middlebury colour coding of flow fields (Baker,
 * Scharstein, Lewis, Roth, Black, Szeliski, "A database and evaluation
 * methodology for optical flow", IJCV 2011), its legend (seed 001 figure
 * A.1), the key frame drawn around a picture and the scale written in it,
 * blends with a frame and nearest-neighbour enlargement.  Contracts in
 * flow/render.h. */
#include "render/render_internal.h"
#include "base/fail.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

/* The wheel's six segments: how many colours each has, and the channel
 * that changes along it (rising from 0 or falling from 255). */
enum { RY = 15, YG = 6, GC = 4, CB = 11, BM = 13, MR = 6 };

void flow_colorwheel(int k, int rgb[3])
{
    k = ((k % FLOW_COLORWHEEL_SIZE) + FLOW_COLORWHEEL_SIZE) % FLOW_COLORWHEEL_SIZE;
    int r = 0, g = 0, b = 0;
    if (k < RY) { /* red -> yellow: green rises */
        r = 255, g = 255 * k / RY;
    } else if ((k -= RY) < YG) { /* yellow -> green: red falls */
        r = 255 - 255 * k / YG, g = 255;
    } else if ((k -= YG) < GC) { /* green -> cyan: blue rises */
        g = 255, b = 255 * k / GC;
    } else if ((k -= GC) < CB) { /* cyan -> blue: green falls */
        g = 255 - 255 * k / CB, b = 255;
    } else if ((k -= CB) < BM) { /* blue -> magenta: red rises */
        r = 255 * k / BM, b = 255;
    } else { /* magenta -> red: blue falls */
        k -= BM;
        r = 255, b = 255 - 255 * k / MR;
    }
    rgb[0] = r, rgb[1] = g, rgb[2] = b;
}

void flow_color_of(double fu, double fv, float rgb[3])
{
    if (!isfinite(fu) || !isfinite(fv)) { /* callers test unknown-ness on raw vectors */
        rgb[0] = rgb[1] = rgb[2] = 0.0f;
        return;
    }
    /* -0 + 0 is +0: a vector (1, -0) is red like (1, 0), instead of taking
     * the far side of atan2's branch cut. */
    fu += 0.0;
    fv += 0.0;
    const double rad = sqrt(fu * fu + fv * fv);
    const double a = atan2(-fv, -fu) / PI; /* -1 .. 1 */
    const double fk = (a + 1.0) / 2.0 * (FLOW_COLORWHEEL_SIZE - 1);
    int k0 = (int)fk;
    if (k0 > FLOW_COLORWHEEL_SIZE - 1)
        k0 = FLOW_COLORWHEEL_SIZE - 1;
    const int k1 = (k0 + 1) % FLOW_COLORWHEEL_SIZE;
    const double f = fk - k0;
    int c0[3], c1[3];
    flow_colorwheel(k0, c0);
    flow_colorwheel(k1, c1);
    for (int b = 0; b < 3; b++) {
        /* on the 0..255 scale throughout, so that wheel colours and
         * half-way mixes come out exact */
        double col = (1.0 - f) * c0[b] + f * c1[b];
        if (rad <= 1.0)
            col = 255.0 - rad * (255.0 - col); /* towards white at the centre */
        else
            col *= 0.75; /* beyond the scale: darker */
        rgb[b] = (float)floor(col + 0.5);
    }
}

/* Middlebury's computeColor (colorcode.cpp of its flow-code, Baker et al.
 * 2011) step by step in its precisions: floats, with the steps that meet a
 * double constant (1.0, 255.0, .75, M_PI) in double and stored back in a
 * float; each channel 255 col truncated, where flow_color_of rounds. */
void flow_color_of_middlebury(double fu, double fv, float rgb[3])
{
    const float fx = (float)fu + 0.0f, fy = (float)fv + 0.0f;
    if (!isfinite(fx) || !isfinite(fy)) {
        rgb[0] = rgb[1] = rgb[2] = 0.0f;
        return;
    }
    const float rad = sqrtf(fx * fx + fy * fy);
    const float a = (float)(atan2f(-fy, -fx) / PI);
    const float fk = (float)((a + 1.0) / 2.0 * (FLOW_COLORWHEEL_SIZE - 1));
    int k0 = (int)fk;
    if (k0 > FLOW_COLORWHEEL_SIZE - 1)
        k0 = FLOW_COLORWHEEL_SIZE - 1;
    const int k1 = (k0 + 1) % FLOW_COLORWHEEL_SIZE;
    const float f = fk - (float)k0;
    int c0[3], c1[3];
    flow_colorwheel(k0, c0);
    flow_colorwheel(k1, c1);
    for (int b = 0; b < 3; b++) {
        const float col0 = (float)(c0[b] / 255.0), col1 = (float)(c1[b] / 255.0);
        float col = (1.0f - f) * col0 + f * col1;
        if (rad <= 1.0f)
            col = 1.0f - rad * (1.0f - col);
        else
            col = (float)(col * 0.75);
        rgb[b] = (float)(int)(255.0 * col);
    }
}

double flow_max_radius(const flow_field *f)
{
    double m = 0.0;
    const size_t n = (size_t)f->width * f->height;
    for (size_t i = 0; i < n; i++) {
        if (flow_is_unknown(f->u[i], f->v[i]))
            continue;
        const double r = sqrt((double)f->u[i] * f->u[i] + (double)f->v[i] * f->v[i]);
        if (r > m)
            m = r;
    }
    return m;
}

static flow_status check_field(const flow_field *f, double max_radius, const char *who)
{
    if (!f || !f->u || !f->v || f->width < 1 || f->height < 1)
        return flow_fail(FLOW_ERR_INVALID, "%s: no flow field given", who);
    if (!isfinite(max_radius))
        return flow_fail(FLOW_ERR_INVALID, "%s: maximum radius %g is not finite", who,
                         max_radius);
    return FLOW_OK;
}

static double scale_of(const flow_field *f, double max_radius)
{
    if (max_radius > 0)
        return max_radius;
    const double m = flow_max_radius(f);
    return m > 0 ? m : 1.0;
}

/* color_flow's scale: the given one, or the largest radius, each
 * sqrt(fx * fx + fy * fy) in single precision as there; 1 for zero flow. */
static double middlebury_scale(const flow_field *f, double max_radius)
{
    if (max_radius > 0)
        return (float)max_radius;
    float m = 0;
    for (size_t i = 0; i < (size_t)f->width * f->height; i++)
        if (!flow_is_unknown(f->u[i], f->v[i])) {
            const float r = sqrtf(f->u[i] * f->u[i] + f->v[i] * f->v[i]);
            m = r > m ? r : m;
        }
    return m > 0 ? m : 1.0;
}

/* Colours f into the RGB planes of img at offset (ox, oy), each vector
 * divided by R in the precision of the coding (Middlebury's divides in
 * single precision). */
static void paint(const flow_field *f, double R, flow_coding coding, flow_image *img, int ox,
                  int oy)
{
    const size_t plane = (size_t)img->width * img->height;
    for (int y = 0; y < f->height; y++)
        for (int x = 0; x < f->width; x++) {
            const size_t i = (size_t)y * f->width + x;
            float c[3];
            if (flow_is_unknown(f->u[i], f->v[i]))
                c[0] = c[1] = c[2] = 0.0f;
            else if (coding == FLOW_CODING_MIDDLEBURY)
                flow_color_of_middlebury(f->u[i] / (float)R, f->v[i] / (float)R, c);
            else
                flow_color_of(f->u[i] / R, f->v[i] / R, c);
            const size_t o = (size_t)(y + oy) * img->width + (x + ox);
            img->data[o] = c[0];
            img->data[plane + o] = c[1];
            img->data[2 * plane + o] = c[2];
        }
}

flow_status flow_render_color_coded(const flow_field *f, double max_radius, flow_coding coding,
                                    flow_image *rgb, double *used)
{
    memset(rgb, 0, sizeof *rgb);
    FLOW_TRY(check_field(f, max_radius, "flow_render_color"));
    if (coding != FLOW_CODING_ROUNDED && coding != FLOW_CODING_MIDDLEBURY)
        return flow_fail(FLOW_ERR_INVALID, "colour coding %d unknown (0 rounded, 1 Middlebury)",
                         (int)coding);
    double R = coding == FLOW_CODING_MIDDLEBURY ? middlebury_scale(f, max_radius)
                                                : scale_of(f, max_radius);
    FLOW_TRY(flow_image_alloc(rgb, f->width, f->height, 3));
    paint(f, R, coding, rgb, 0, 0);
    if (used)
        *used = R;
    return FLOW_OK;
}

flow_status flow_render_color(const flow_field *f, double max_radius, flow_image *rgb,
                              double *used)
{
    return flow_render_color_coded(f, max_radius, FLOW_CODING_ROUNDED, rgb, used);
}

int flow_legend_border(int width, int height)
{
    const int side = width < height ? width : height;
    const int border = (int)lround(0.08 * side);
    return border < 6 ? 6 : border > 64 ? 64 : border;
}

flow_status flow_render_color_framed(const flow_field *f, double max_radius, int border,
                                     flow_image *rgb, double *used)
{
    memset(rgb, 0, sizeof *rgb);
    FLOW_TRY(check_field(f, max_radius, "flow_render_color_framed"));
    if (border <= 0)
        border = flow_legend_border(f->width, f->height);
    if (border > 4096)
        return flow_fail(FLOW_ERR_INVALID, "legend frame of %d pixels is too wide (at most 4096)",
                         border);
    const double R = scale_of(f, max_radius);
    const int W = f->width + 2 * border, H = f->height + 2 * border;
    FLOW_TRY(flow_image_alloc(rgb, W, H, 3));
    const size_t plane = (size_t)W * H;
    const double cx = 0.5 * (W - 1), cy = 0.5 * (H - 1);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            if (x >= border && x < W - border && y >= border && y < H - border)
                continue;
            const double dx = x - cx, dy = y - cy, d = sqrt(dx * dx + dy * dy);
            float c[3];
            flow_color_of(dx / d, dy / d, c); /* full saturation */
            const size_t o = (size_t)y * W + x;
            rgb->data[o] = c[0];
            rgb->data[plane + o] = c[1];
            rgb->data[2 * plane + o] = c[2];
        }
    paint(f, R, FLOW_CODING_ROUNDED, rgb, border, border);
    if (used)
        *used = R;
    return FLOW_OK;
}

void flow_scale_text(double max_radius, char *buf, size_t size)
{
    if (max_radius >= 99.95) /* %.3g would write 1e+02 */
        snprintf(buf, size, "max %.0f px", max_radius);
    else
        snprintf(buf, size, "max %.3g px", max_radius);
}

flow_status flow_render_scale_label(flow_image *framed, int border, double max_radius)
{
    if (!framed || !framed->data || framed->channels != 3)
        return flow_fail(FLOW_ERR_INVALID, "flow_render_scale_label: missing RGB picture");
    if (border < FLOW_SCALE_LABEL_MIN_BORDER || 2 * border >= framed->width ||
        2 * border >= framed->height)
        return flow_fail(FLOW_ERR_INVALID,
                         "a frame %d px wide cannot hold a scale label on a %dx%d picture "
                         "(at least %d px, under half the picture)",
                         border, framed->width, framed->height, FLOW_SCALE_LABEL_MIN_BORDER);
    if (!(max_radius > 0) || !isfinite(max_radius))
        return flow_fail(FLOW_ERR_INVALID, "scale %g out of range (positive, finite)",
                         max_radius);
    char text[64];
    flow_scale_text(max_radius, text, sizeof text);
    /* the plate is 11 factor tall: the 9 rows of the glyphs and a factor
     * of white above and below */
    int factor = border / (FLOW_GLYPH_HEIGHT + 2);
    const int widest = flow_text_factor(framed->width);
    factor = factor > widest ? widest : factor;
    int w, h;
    flow_text_size(text, factor, &w, &h);
    const int plate_w = w + 2 * factor, plate_h = h + 2 * factor;
    static const float black[3] = {0, 0, 0}, white[3] = {255, 255, 255};
    return flow_render_label(framed, (framed->width - plate_w) / 2,
                             framed->height - border + (border - plate_h) / 2, text, factor,
                             black, white);
}

flow_status flow_render_legend(int size, flow_image *rgb)
{
    memset(rgb, 0, sizeof *rgb);
    if (size < 32 || size > 4096)
        return flow_fail(FLOW_ERR_INVALID, "legend size %d out of range (32 to 4096)", size);
    FLOW_TRY(flow_image_alloc(rgb, size, size, 3));
    const size_t plane = (size_t)size * size;
    const double c = 0.5 * (size - 1);
    const double R = 0.5 * size - 3.0; /* radius of the disc, pixels */
    for (int y = 0; y < size; y++)
        for (int x = 0; x < size; x++) {
            const double fu = (x - c) / R, fv = (y - c) / R;
            const double r = sqrt(fu * fu + fv * fv);
            float col[3] = {255.0f, 255.0f, 255.0f};
            if (r <= 1.0)
                flow_color_of(fu, fv, col);
            /* grey outline (1.5 px wide) and axes (1 px) */
            const double ring = fabs(r * R - R);
            const int axis = r <= 1.0 && (fabs(x - c) < 0.6 || fabs(y - c) < 0.6);
            if (ring < 0.75 || axis)
                col[0] = col[1] = col[2] = 96.0f;
            const size_t o = (size_t)y * size + x;
            rgb->data[o] = col[0];
            rgb->data[plane + o] = col[1];
            rgb->data[2 * plane + o] = col[2];
        }
    return FLOW_OK;
}

flow_status flow_render_blend(const flow_image *frame, const flow_image *color, double alpha,
                              flow_image *out)
{
    memset(out, 0, sizeof *out);
    if (!frame || !color || !frame->data || !color->data)
        return flow_fail(FLOW_ERR_INVALID, "flow_render_blend: missing image");
    if (!(alpha >= 0.0 && alpha <= 1.0))
        return flow_fail(FLOW_ERR_INVALID, "blend weight %g out of range (0 to 1)", alpha);
    if (frame->width != color->width || frame->height != color->height)
        return flow_fail(FLOW_ERR_SIZE, "frame is %dx%d but the flow picture is %dx%d",
                         frame->width, frame->height, color->width, color->height);
    if (color->channels != 3 || (frame->channels != 1 && frame->channels != 3))
        return flow_fail(FLOW_ERR_INVALID, "flow_render_blend: bad channel counts %d and %d",
                         frame->channels, color->channels);
    FLOW_TRY(flow_image_alloc(out, color->width, color->height, 3));
    const size_t plane = (size_t)color->width * color->height;
    for (int b = 0; b < 3; b++) {
        const float *fr = frame->data + (frame->channels == 3 ? b * plane : 0);
        const float *co = color->data + b * plane;
        float *o = out->data + b * plane;
        for (size_t i = 0; i < plane; i++)
            o[i] = (float)((1.0 - alpha) * fr[i] + alpha * co[i]);
    }
    return FLOW_OK;
}

flow_status flow_render_zoom_rgb(const flow_image *src, int zoom, flow_image *out)
{
    memset(out, 0, sizeof *out);
    if (!src || !src->data || (src->channels != 1 && src->channels != 3))
        return flow_fail(FLOW_ERR_INVALID, "flow_render_zoom_rgb: missing or bad image");
    if (zoom < 1 || zoom > 64)
        return flow_fail(FLOW_ERR_INVALID, "zoom %d out of range (1 to 64)", zoom);
    const long W = (long)src->width * zoom, H = (long)src->height * zoom;
    if (W > (1L << 30) || H > (1L << 30) || W * H > FLOW_IMAGE_MAX_PIXELS)
        return flow_fail(FLOW_ERR_SIZE, "a %dx%d image zoomed %d times is too large",
                         src->width, src->height, zoom);
    FLOW_TRY(flow_image_alloc(out, (int)W, (int)H, 3));
    const size_t sp = (size_t)src->width * src->height, op = (size_t)W * H;
    for (int b = 0; b < 3; b++) {
        const float *s = src->data + (src->channels == 3 ? b * sp : 0);
        float *o = out->data + b * op;
        for (long y = 0; y < H; y++)
            for (long x = 0; x < W; x++)
                o[(size_t)y * W + x] = s[(size_t)(y / zoom) * src->width + x / zoom];
    }
    return FLOW_OK;
}

flow_status flow_render_wheel_inset(flow_image *rgb)
{
    if (!rgb || !rgb->data || rgb->channels != 3)
        return flow_fail(FLOW_ERR_INVALID, "flow_render_wheel_inset: missing RGB picture");
    const int side = rgb->width < rgb->height ? rgb->width : rgb->height;
    const int size = side / 4 > 160 ? 160 : side / 4, margin = size / 16 + 1;
    if (size < 32)
        return flow_fail(FLOW_ERR_SIZE, "a %dx%d picture cannot hold the colour wheel (a "
                         "quarter of the smaller side is under 32 px)", rgb->width, rgb->height);
    flow_image wheel;
    FLOW_TRY(flow_render_legend(size, &wheel));
    const size_t plane = (size_t)rgb->width * rgb->height, wp = (size_t)size * size;
    const int x0 = rgb->width - size - margin, y0 = margin;
    for (int y = 0; y < size; y++)
        for (int x = 0; x < size; x++)
            for (int b = 0; b < 3; b++)
                rgb->data[b * plane + (size_t)(y0 + y) * rgb->width + x0 + x] =
                    wheel.data[b * wp + (size_t)y * size + x];
    flow_image_free(&wheel);
    return FLOW_OK;
}
