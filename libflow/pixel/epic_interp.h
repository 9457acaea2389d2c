/* epic_interp.h -- the edge-aware sparse-to-dense interpolation of method
 * epic (EPIC: Revaud, Weinzaepfel, Harchaoui, Schmid, CVPR 2015).
 *
 * An edge cost C = 1 + |grad f1| / edge makes distances long across the
 * first frame's edges (or C = 1 + gain * E from a caller's edge map E).  The geodesic distance D to the nearest valid seed
 * and that seed's index (the label) are found by relaxation over the
 * pixels: each pass reads D and the labels and writes new ones, every pixel
 * taking the cheapest of its 8 neighbours at distance `jump` plus the cost
 * of the step (jump flooding with halving jumps reaches seeds that lie far
 * away in a few passes; passes at distance 1 then make the distances exact
 * along 8-connected paths, where the edges matter).  Each pass is one
 * parallel, race-free read-then-write, the same on any device.  Each pixel
 * then gathers the labels of the pixels on a grid around it (the seeds
 * geodesically close to it and to its neighbours, each at the distance
 * through that pixel), weighs them exp(-D / sigma) (none beyond exp(-4) of
 * the nearest) and fits an affine
 * motion to their matches by weighted least squares (a weighted mean where
 * the fit is degenerate); the fitted flow is kept within the range of the
 * matches it used. */
#ifndef FLOW_PIXEL_EPIC_INTERP_H
#define FLOW_PIXEL_EPIC_INTERP_H

#include "pixel/epic_match.h"

#include <stdlib.h>

#define FLOW_EPIC_FAR 1e30f
/* The largest radius of the interpolation's gather grid, in seeds. */
#define FLOW_EPIC_GATHER_MAX 3

/* cost = 1 + |grad f| / edge (the mean of the channels, central
 * differences). */
typedef struct flow_epic_cost_args {
    flow_plane cost;
    flow_plane f[3];
    int channels;
    float inv_edge;
} flow_epic_cost_args;

FLOW_HD void flow_epic_cost_px(const flow_epic_cost_args *a, int x, int y)
{
    const float gx = flow_epic_mean_at(a->f, a->channels, x + 1, y) -
                     flow_epic_mean_at(a->f, a->channels, x - 1, y);
    const float gy = flow_epic_mean_at(a->f, a->channels, x, y + 1) -
                     flow_epic_mean_at(a->f, a->channels, x, y - 1);
    FLOW_PX(a->cost, x, y) = 1.0f + 0.5f * sqrtf(gx * gx + gy * gy) * a->inv_edge;
}

/* The cost from a caller's edge map instead: cost = 1 + gain * E, E the
 * largest value of the edge map (of the frames' size, values in [0, 1])
 * over the `block` x `block` pixels a pixel of the match level covers
 * (block = 2^match level), so that an edge one pixel thin still stops the
 * distances on a coarser grid. */
typedef struct flow_epic_edges_args {
    flow_plane cost;
    flow_plane edges;
    int block;
    float gain;
} flow_epic_edges_args;

FLOW_HD void flow_epic_edges_px(const flow_epic_edges_args *a, int x, int y)
{
    float e = 0.0f;
    for (int j = 0; j < a->block; j++)
        for (int i = 0; i < a->block; i++)
            e = fmaxf(e, flow_at(&a->edges, x * a->block + i, y * a->block + j));
    FLOW_PX(a->cost, x, y) = 1.0f + a->gain * e;
}

/* D = 0 and the label at the pixel of each valid seed, D far and label -1
 * elsewhere. */
typedef struct flow_epic_geo_init_args {
    flow_plane dist, label;
    flow_plane valid; /* one per seed: a seed counts where it is above 0 */
    int step;
} flow_epic_geo_init_args;

FLOW_HD void flow_epic_geo_init_px(const flow_epic_geo_init_args *a, int x, int y)
{
    const int h = a->step / 2;
    const int sx = (x - h) / a->step, sy = (y - h) / a->step;
    const int on = x >= h && y >= h && (x - h) % a->step == 0 && (y - h) % a->step == 0 &&
                   sx < a->valid.width && sy < a->valid.height &&
                   FLOW_PX(a->valid, sx, sy) > 0.0f;
    FLOW_PX(a->dist, x, y) = on ? 0.0f : FLOW_EPIC_FAR;
    FLOW_PX(a->label, x, y) = on ? (float)(sy * a->valid.width + sx) : -1.0f;
}

/* The cost of the straight path from (x0, y0) to (x1, y1): in n equal
 * steps (n the longer side), each its length times the mean cost at its
 * ends (rounded to pixels), so that no edge on the way is skipped. */
FLOW_HD float flow_epic_path(const flow_plane *c, int x0, int y0, int x1, int y1)
{
    const int dx = x1 - x0, dy = y1 - y0;
    const int n = abs(dx) > abs(dy) ? abs(dx) : abs(dy);
    if (n == 0)
        return 0.0f;
    const float len = sqrtf((float)(dx * dx + dy * dy)) / (float)n;
    float sum = 0.5f * (flow_at(c, x0, y0) + flow_at(c, x1, y1));
    for (int i = 1; i < n; i++) {
        const int x = x0 + (int)floorf((float)(dx * i) / (float)n + 0.5f);
        const int y = y0 + (int)floorf((float)(dy * i) / (float)n + 0.5f);
        sum += flow_at(c, x, y);
    }
    return len * sum;
}

typedef struct flow_epic_geo_step_args {
    flow_plane dist, label;         /* written */
    flow_plane dist_in, label_in;   /* read */
    flow_plane cost;
    int jump;
} flow_epic_geo_step_args;

FLOW_HD void flow_epic_geo_step_px(const flow_epic_geo_step_args *a, int x, int y)
{
    float best = FLOW_PX(a->dist_in, x, y);
    float lab = FLOW_PX(a->label_in, x, y);
    const int w = a->cost.width, h = a->cost.height, j = a->jump;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            const int qx = x + dx * j, qy = y + dy * j;
            if ((dx == 0 && dy == 0) || qx < 0 || qy < 0 || qx >= w || qy >= h)
                continue;
            const float dq = FLOW_PX(a->dist_in, qx, qy);
            if (dq >= FLOW_EPIC_FAR)
                continue;
            const float d = dq + flow_epic_path(&a->cost, x, y, qx, qy);
            if (d < best) {
                best = d;
                lab = FLOW_PX(a->label_in, qx, qy);
            }
        }
    FLOW_PX(a->dist, x, y) = best;
    FLOW_PX(a->label, x, y) = lab;
}

/* The dense flow at the match level from the valid seeds' matches. */
typedef struct flow_epic_interp_args {
    flow_pair w;       /* written */
    flow_plane dist, label, cost;
    flow_pair seeds;   /* the seeds' flows */
    int step;
    int gather;        /* radius of the gather grid, seeds (1 .. FLOW_EPIC_GATHER_MAX) */
    float inv_sigma;   /* weights exp(-D inv_sigma) */
    int affine;        /* 0: the weighted mean alone */
} flow_epic_interp_args;

FLOW_HD float flow_epic_det3(float a, float b, float c, float d, float e, float f, float g,
                             float h, float i)
{
    return a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
}

FLOW_HD void flow_epic_interp_px(const flow_epic_interp_args *a, int x, int y)
{
    enum { N = (2 * FLOW_EPIC_GATHER_MAX + 1) * (2 * FLOW_EPIC_GATHER_MAX + 1) };
    int lab[N];
    float dis[N];
    int n = 0;
    const int w = a->cost.width, h = a->cost.height, r = a->gather, g = a->step;
    for (int j = -r; j <= r; j++)
        for (int i = -r; i <= r; i++) {
            const int qx = flow_clampi(x + i * g, 0, w - 1), qy = flow_clampi(y + j * g, 0, h - 1);
            const int l = (int)FLOW_PX(a->label, qx, qy);
            if (l < 0)
                continue;
            const float d = FLOW_PX(a->dist, qx, qy) + flow_epic_path(&a->cost, x, y, qx, qy);
            int k = 0;
            while (k < n && lab[k] != l)
                k++;
            if (k == n) {
                lab[n] = l;
                dis[n++] = d;
            } else if (d < dis[k]) {
                dis[k] = d;
            }
        }
    if (n == 0) {
        FLOW_PX(a->w.u, x, y) = 0.0f;
        FLOW_PX(a->w.v, x, y) = 0.0f;
        return;
    }
    float dmin = dis[0];
    for (int k = 1; k < n; k++)
        dmin = fminf(dmin, dis[k]);
    const int nx = a->seeds.u.width;
    float s = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0;
    float su = 0, sxu = 0, syu = 0, sv = 0, sxv = 0, syv = 0;
    float umin = FLOW_EPIC_FAR, umax = -FLOW_EPIC_FAR, vmin = FLOW_EPIC_FAR, vmax = -FLOW_EPIC_FAR;
    for (int k = 0; k < n; k++) {
        /* the kernel cut at exp(-4): a far seed would still tilt the fit */
        if ((dis[k] - dmin) * a->inv_sigma > 4.0f)
            continue;
        const int ix = lab[k] % nx, iy = lab[k] / nx;
        const float u = FLOW_PX(a->seeds.u, ix, iy), v = FLOW_PX(a->seeds.v, ix, iy);
        const float px = (float)(ix * g + g / 2 - x) / (float)g;
        const float py = (float)(iy * g + g / 2 - y) / (float)g;
        const float wt = expf(-(dis[k] - dmin) * a->inv_sigma);
        s += wt, sx += wt * px, sy += wt * py;
        sxx += wt * px * px, sxy += wt * px * py, syy += wt * py * py;
        su += wt * u, sxu += wt * px * u, syu += wt * py * u;
        sv += wt * v, sxv += wt * px * v, syv += wt * py * v;
        umin = fminf(umin, u), umax = fmaxf(umax, u);
        vmin = fminf(vmin, v), vmax = fmaxf(vmax, v);
    }
    float u = su / s, v = sv / s;
    if (a->affine && n >= 3) {
        /* a small ridge on the slopes keeps nearly collinear seeds stable */
        const float rxx = sxx + 1e-3f * s, ryy = syy + 1e-3f * s;
        const float det = flow_epic_det3(rxx, sxy, sx, sxy, ryy, sy, sx, sy, s);
        if (fabsf(det) > 1e-6f * s * s * s) {
            /* the constant term of the fit by Cramer's rule */
            const float cu = flow_epic_det3(rxx, sxy, sxu, sxy, ryy, syu, sx, sy, su) / det;
            const float cv = flow_epic_det3(rxx, sxy, sxv, sxy, ryy, syv, sx, sy, sv) / det;
            u = fminf(fmaxf(cu, umin), umax);
            v = fminf(fmaxf(cv, vmin), vmax);
        }
    }
    FLOW_PX(a->w.u, x, y) = u;
    FLOW_PX(a->w.v, x, y) = v;
}

#endif
