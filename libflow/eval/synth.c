/* synth.c -- generated sequences with exact ground truth (see synth.h). */
#include "flow/synth.h"
#include "base/fail.h"

#include <math.h>
#include <stdlib.h>

#define WAVES 24

typedef struct texture {
    double kx[WAVES], ky[WAVES], phase[WAVES], amp[WAVES];
    double norm;
} texture;

static double next_uniform(unsigned *state)
{
    *state = *state * 1664525u + 1013904223u;
    return (*state >> 8) * (1.0 / 16777216.0);
}

static void texture_init(texture *t, unsigned seed, double coarse)
{
    const double grain = coarse > 0 ? coarse : 1.0;
    unsigned st = seed * 2654435761u + 12345u;
    double total = 0;
    for (int i = 0; i < WAVES; i++) {
        double theta = 2 * M_PI * next_uniform(&st);
        double lambda = grain * (5.0 + 35.0 * next_uniform(&st));
        t->kx[i] = 2 * M_PI / lambda * cos(theta);
        t->ky[i] = 2 * M_PI / lambda * sin(theta);
        t->phase[i] = 2 * M_PI * next_uniform(&st);
        t->amp[i] = 0.5 + next_uniform(&st);
        total += t->amp[i];
    }
    /* Sums of many waves rarely reach their bound: scale by about 2.5
     * standard deviations so the texture uses most of 0..255. */
    t->norm = 127.5 / fmin(total, 2.5 * sqrt(WAVES * 0.6));
}

static double texture_at(const texture *t, double x, double y)
{
    double s = 0;
    for (int i = 0; i < WAVES; i++)
        s += t->amp[i] * sin(t->kx[i] * x + t->ky[i] * y + t->phase[i]);
    double v = 127.5 + t->norm * s;
    return v < 0 ? 0 : v > 255 ? 255 : v;
}

/* The smooth field of FLOW_SYNTH_SMOOTH at (x, y). */
static void smooth_field(const flow_synth *s, double x, double y, double *u, double *v)
{
    const double k = 2 * M_PI / s->wavelength;
    *u = s->amplitude * sin(k * x + 0.3) * cos(0.7 * k * y);
    *v = s->amplitude * cos(0.8 * k * x) * sin(k * y + 1.1);
}

/* The point of frame 0 that lands on (x, y) in frame k. */
static void source_point(const flow_synth *s, int width, int height, int k, double x, double y,
                         double *sx, double *sy)
{
    const double cx = 0.5 * (width - 1), cy = 0.5 * (height - 1);
    switch (s->motion) {
    default: /* FLOW_SYNTH_TRANSLATE, and the background of FLOW_SYNTH_OBJECT */
        *sx = x - k * s->dx;
        *sy = y - k * s->dy;
        return;
    case FLOW_SYNTH_ROTATE: {
        const double a = -k * s->angle, c = cos(a), n = sin(a);
        *sx = cx + c * (x - cx) - n * (y - cy);
        *sy = cy + n * (x - cx) + c * (y - cy);
        return;
    }
    case FLOW_SYNTH_ZOOM: {
        const double f = pow(s->scale, -k);
        *sx = cx + f * (x - cx);
        *sy = cy + f * (y - cy);
        return;
    }
    case FLOW_SYNTH_ROTOZOOM: {
        const double a = -k * s->angle, f = pow(s->scale, -k), c = f * cos(a), n = f * sin(a);
        *sx = cx + c * (x - cx) - n * (y - cy);
        *sy = cy + n * (x - cx) + c * (y - cy);
        return;
    }
    case FLOW_SYNTH_SMOOTH: {
        /* frame k(y) = T(y - k w(y)) */
        double u, v;
        smooth_field(s, x, y, &u, &v);
        *sx = x - k * u;
        *sy = y - k * v;
        return;
    }
    }
}

static int in_disc(const flow_synth *s, int width, int height, double x, double y)
{
    const double dx = x - 0.5 * (width - 1), dy = y - 0.5 * (height - 1);
    return dx * dx + dy * dy <= s->radius * s->radius;
}

static flow_status check_synth(const flow_synth *s, int width, int height)
{
    if (width < 1 || height < 1 || (long)width * height > FLOW_IMAGE_MAX_PIXELS)
        return flow_fail(FLOW_ERR_SIZE, "synthetic frame size %dx%d", width, height);
    if ((s->motion == FLOW_SYNTH_ZOOM || s->motion == FLOW_SYNTH_ROTOZOOM) && !(s->scale > 0))
        return flow_fail(FLOW_ERR_INVALID, "zoom scale %g must be positive", s->scale);
    if (!(s->coarse >= 0 && s->coarse <= 1000))
        return flow_fail(FLOW_ERR_INVALID, "texture coarseness %g: expected 0 .. 1000", s->coarse);
    if (s->motion == FLOW_SYNTH_SMOOTH && !(s->wavelength > 0))
        return flow_fail(FLOW_ERR_INVALID, "smooth wavelength %g must be positive", s->wavelength);
    return FLOW_OK;
}

flow_status flow_synth_frame(const flow_synth *s, int width, int height, int channels, int k,
                             flow_image *img)
{
    FLOW_TRY(check_synth(s, width, height));
    if (channels != 1 && channels != 3)
        return flow_fail(FLOW_ERR_INVALID, "synthetic frames have 1 or 3 channels, not %d",
                         channels);
    FLOW_TRY(flow_image_alloc(img, width, height, channels));
    for (int c = 0; c < channels; c++) {
        texture bg, obj;
        texture_init(&bg, s->seed + 101u * (unsigned)c, s->coarse);
        texture_init(&obj, s->seed + 7777u + 101u * (unsigned)c, s->coarse);
        float *plane = img->data + (size_t)c * width * height;
        for (int y = 0; y < height; y++)
            for (int x = 0; x < width; x++) {
                double sx, sy, val;
                if (s->motion == FLOW_SYNTH_OBJECT
                    && in_disc(s, width, height, x - k * s->odx, y - k * s->ody))
                    val = texture_at(&obj, x - k * s->odx, y - k * s->ody);
                else {
                    source_point(s, width, height, k, x, y, &sx, &sy);
                    val = texture_at(&bg, sx, sy);
                }
                plane[(size_t)y * width + x] = (float)val;
            }
    }
    return FLOW_OK;
}

flow_status flow_synth_flow(const flow_synth *s, int width, int height, int k, flow_field *gt)
{
    FLOW_TRY(check_synth(s, width, height));
    FLOW_TRY(flow_field_alloc(gt, width, height));
    const double cx = 0.5 * (width - 1), cy = 0.5 * (height - 1);
    const double c = cos(s->angle), n = sin(s->angle); /* ROTATE */
    const double sc = s->scale * c, sn = s->scale * n;   /* ROTOZOOM */
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            double u = 0, v = 0;
            switch (s->motion) {
            case FLOW_SYNTH_TRANSLATE:
                u = s->dx, v = s->dy;
                break;
            case FLOW_SYNTH_OBJECT:
                if (in_disc(s, width, height, x - k * s->odx, y - k * s->ody))
                    u = s->odx, v = s->ody;
                else
                    u = s->dx, v = s->dy;
                break;
            case FLOW_SYNTH_ROTATE:
                u = cx + c * (x - cx) - n * (y - cy) - x;
                v = cy + n * (x - cx) + c * (y - cy) - y;
                break;
            case FLOW_SYNTH_ZOOM:
                u = (s->scale - 1) * (x - cx);
                v = (s->scale - 1) * (y - cy);
                break;
            case FLOW_SYNTH_ROTOZOOM:
                u = cx + sc * (x - cx) - sn * (y - cy) - x;
                v = cy + sn * (x - cx) + sc * (y - cy) - y;
                break;
            case FLOW_SYNTH_SMOOTH: {
                /* The point p of frame k+1 with p - (k+1) w(p) = x - k w(x):
                 * fixed-point iteration, a contraction for small gradients. */
                double wx, wy, px = x, py = y;
                smooth_field(s, x, y, &wx, &wy);
                const double tx = x - k * wx, ty = y - k * wy;
                for (int it = 0; it < 100; it++) {
                    double pu, pv;
                    smooth_field(s, px, py, &pu, &pv);
                    px = tx + (k + 1) * pu;
                    py = ty + (k + 1) * pv;
                }
                u = px - x, v = py - y;
                break;
            }
            }
            gt->u[(size_t)y * width + x] = (float)u;
            gt->v[(size_t)y * width + x] = (float)v;
        }
    return FLOW_OK;
}
