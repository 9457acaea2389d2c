/* epic_match.h -- the matching stage of method epic: census descriptors and
 * a coarse-to-fine PatchMatch over a grid of seeds (CPM: Hu, Song, Li,
 * CVPR 2016), and the forward-backward check of the matches.
 *
 * Seeds sit on a regular grid of the match level (every `step` pixels,
 * the first at step / 2); on a coarser level l their positions are those
 * divided by 2^(l - match level), so every level has the same seeds.  A
 * seed's flow is a whole number of pixels of its level.  One pass of the
 * search reads the flows of every seed (src) and writes new ones (dst):
 * each seed tries its own flow, its four neighbours' at distance 1 and at
 * distance `jump` (jump flooding: far-apart seeds agree in few passes),
 * then random flows around the best one in halving radii.  Reading one
 * buffer and writing another keeps the passes free of races and the same
 * on any device; the random offsets are a hash of (seed, pass, sample), no
 * generator with state. */
#ifndef FLOW_PIXEL_EPIC_MATCH_H
#define FLOW_PIXEL_EPIC_MATCH_H

#include "pixel/qualifier.h"

/* The number of bits set in v. */
FLOW_HD int flow_popcount(unsigned v)
{
#ifdef __CUDA_ARCH__
    return __popc(v);
#else
    v = v - ((v >> 1) & 0x55555555u);
    v = (v & 0x33333333u) + ((v >> 2) & 0x33333333u);
    return (int)((((v + (v >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24);
#endif
}

/* A well-mixed 32-bit hash (Wellons' lowbias32). */
FLOW_HD unsigned flow_hash32(unsigned x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

/* ---- census descriptors ----------------------------------------------------
 * dst = the 24 comparisons of the 5x5 neighbours with the centre (the mean
 * of the channels; a bit is set where the neighbour is brighter by more
 * than `thresh`), as an integer below 2^24, which a float holds exactly. */
typedef struct flow_epic_census_args {
    flow_plane dst;
    flow_plane f[3];
    int channels;
    float thresh;
} flow_epic_census_args;

FLOW_HD float flow_epic_mean_at(const flow_plane *f, int channels, int x, int y)
{
    float s = 0.0f;
    for (int c = 0; c < channels; c++)
        s += flow_at(&f[c], x, y);
    return s / (float)channels;
}

FLOW_HD void flow_epic_census_px(const flow_epic_census_args *a, int x, int y)
{
    const float c0 = flow_epic_mean_at(a->f, a->channels, x, y) + a->thresh;
    unsigned bits = 0;
    int k = 0;
    for (int dy = -2; dy <= 2; dy++)
        for (int dx = -2; dx <= 2; dx++) {
            if (dx == 0 && dy == 0)
                continue;
            if (flow_epic_mean_at(a->f, a->channels, x + dx, y + dy) > c0)
                bits |= 1u << k;
            k++;
        }
    FLOW_PX(a->dst, x, y) = (float)bits;
}

/* ---- the seed grid ---------------------------------------------------------- */

/* The pixel of seed (sx, sy) on a level `shift` halvings below the match
 * level, clamped into a w x h frame. */
FLOW_HD int flow_epic_seed_pos(int s, int step, int shift, int n)
{
    return flow_clampi((s * step + step / 2) >> shift, 0, n - 1);
}

/* The census distance of the patch around (x, y) in c1 and (x + u, y + v)
 * in c2: 5x5 samples two pixels apart. */
FLOW_HD int flow_epic_patch_cost(const flow_plane *c1, const flow_plane *c2, int x, int y, int u,
                                 int v)
{
    int d = 0;
    for (int dy = -4; dy <= 4; dy += 2)
        for (int dx = -4; dx <= 4; dx += 2) {
            const unsigned b1 = (unsigned)flow_at(c1, x + dx, y + dy);
            const unsigned b2 = (unsigned)flow_at(c2, x + u + dx, y + v + dy);
            d += flow_popcount(b1 ^ b2);
        }
    return d;
}

typedef struct flow_epic_match_args {
    flow_plane c1, c2; /* census of the frame the seeds sit on, of the other */
    flow_pair src, dst; /* seed flows (one per seed of the grid), pixels of the level */
    flow_plane cost;    /* dst's patch costs */
    int step, shift;    /* seed spacing at the match level, halvings below it */
    int jump;           /* the far neighbours, in seeds */
    int radius;         /* the first random radius, pixels (0: no random search) */
    unsigned pass;      /* the hash's pass number */
} flow_epic_match_args;

/* Tries flow (u, v) at seed position (x, y): clamped so that the patch
 * centre stays in the frame; kept when strictly cheaper. */
FLOW_HD void flow_epic_try(const flow_epic_match_args *a, int x, int y, int u, int v, int *bu,
                           int *bv, int *best)
{
    u = flow_clampi(x + u, 0, a->c2.width - 1) - x;
    v = flow_clampi(y + v, 0, a->c2.height - 1) - y;
    if (u == *bu && v == *bv)
        return;
    const int d = flow_epic_patch_cost(&a->c1, &a->c2, x, y, u, v);
    if (d < *best) {
        *best = d;
        *bu = u;
        *bv = v;
    }
}

FLOW_HD void flow_epic_match_px(const flow_epic_match_args *a, int sx, int sy)
{
    const int nx = a->src.u.width, ny = a->src.u.height;
    const int x = flow_epic_seed_pos(sx, a->step, a->shift, a->c1.width);
    const int y = flow_epic_seed_pos(sy, a->step, a->shift, a->c1.height);
    int bu = (int)FLOW_PX(a->src.u, sx, sy), bv = (int)FLOW_PX(a->src.v, sx, sy);
    bu = flow_clampi(x + bu, 0, a->c2.width - 1) - x;
    bv = flow_clampi(y + bv, 0, a->c2.height - 1) - y;
    int best = flow_epic_patch_cost(&a->c1, &a->c2, x, y, bu, bv);
    const int dist[2] = { 1, a->jump };
    for (int k = 0; k < (a->jump > 1 ? 2 : 1); k++) {
        const int j = dist[k];
        const int ox[4] = { -j, j, 0, 0 }, oy[4] = { 0, 0, -j, j };
        for (int n = 0; n < 4; n++) {
            const int qx = sx + ox[n], qy = sy + oy[n];
            if (qx < 0 || qy < 0 || qx >= nx || qy >= ny)
                continue;
            flow_epic_try(a, x, y, (int)FLOW_PX(a->src.u, qx, qy),
                          (int)FLOW_PX(a->src.v, qx, qy), &bu, &bv, &best);
        }
    }
    const unsigned id = (unsigned)(sy * nx + sx);
    int k = 0;
    for (int r = a->radius; r >= 1; r /= 2, k++) {
        const unsigned h = flow_hash32(id * 0x9e3779b9u ^ flow_hash32(a->pass * 64u + (unsigned)k));
        const int du = (int)(h & 0xffffu) % (2 * r + 1) - r;
        const int dv = (int)(h >> 16) % (2 * r + 1) - r;
        flow_epic_try(a, x, y, bu + du, bv + dv, &bu, &bv, &best);
    }
    FLOW_PX(a->dst.u, sx, sy) = (float)bu;
    FLOW_PX(a->dst.v, sx, sy) = (float)bv;
    FLOW_PX(a->cost, sx, sy) = (float)best;
}

/* The seed nearest to a point at coordinate p of the match level. */
FLOW_HD int flow_epic_nearest_seed(float p, int step, int n)
{
    return flow_clampi((int)floorf((p - (float)(step / 2)) / (float)step + 0.5f), 0, n - 1);
}

/* ---- sub-pixel matches -------------------------------------------------------
 * Each component of a seed's whole-pixel flow moves to the vertex of the
 * parabola through the patch costs one pixel to either side (at most half a
 * pixel), where the costs there are both higher. */
typedef struct flow_epic_subpixel_args {
    flow_plane c1, c2;
    flow_pair seeds; /* read and written, one seed per point */
    int step;
} flow_epic_subpixel_args;

FLOW_HD float flow_epic_vertex(int cm, int c0, int cp)
{
    const int curv = cm + cp - 2 * c0;
    if (cm <= c0 || cp <= c0 || curv <= 0)
        return 0.0f;
    return 0.5f * (float)(cm - cp) / (float)curv;
}

FLOW_HD void flow_epic_subpixel_px(const flow_epic_subpixel_args *a, int sx, int sy)
{
    const int x = flow_epic_seed_pos(sx, a->step, 0, a->c1.width);
    const int y = flow_epic_seed_pos(sy, a->step, 0, a->c1.height);
    const int u = (int)FLOW_PX(a->seeds.u, sx, sy), v = (int)FLOW_PX(a->seeds.v, sx, sy);
    const int c0 = flow_epic_patch_cost(&a->c1, &a->c2, x, y, u, v);
    const float du = flow_epic_vertex(flow_epic_patch_cost(&a->c1, &a->c2, x, y, u - 1, v), c0,
                                      flow_epic_patch_cost(&a->c1, &a->c2, x, y, u + 1, v));
    const float dv = flow_epic_vertex(flow_epic_patch_cost(&a->c1, &a->c2, x, y, u, v - 1), c0,
                                      flow_epic_patch_cost(&a->c1, &a->c2, x, y, u, v + 1));
    FLOW_PX(a->seeds.u, sx, sy) = (float)u + du;
    FLOW_PX(a->seeds.v, sx, sy) = (float)v + dv;
}

/* ---- the forward-backward check --------------------------------------------
 * valid = 1 where the forward match of a seed comes back, by the backward
 * match of the seed nearest to where it lands, within tol pixels, and the
 * first frame has texture around the seed (its mean gradient magnitude over
 * the patch at least min_texture, grey levels per pixel); else 0. */
typedef struct flow_epic_check_args {
    flow_plane valid;
    flow_pair fw, bw; /* seed flows of the match level */
    flow_plane f[3];  /* the first frame at the match level */
    int channels;
    int step;
    float tol2, min_texture;
} flow_epic_check_args;

FLOW_HD void flow_epic_check_px(const flow_epic_check_args *a, int sx, int sy)
{
    const int nx = a->fw.u.width, ny = a->fw.u.height;
    const int w = a->f[0].width, h = a->f[0].height;
    const int x = flow_epic_seed_pos(sx, a->step, 0, w), y = flow_epic_seed_pos(sy, a->step, 0, h);
    const float u = FLOW_PX(a->fw.u, sx, sy), v = FLOW_PX(a->fw.v, sx, sy);
    /* the seed of the second frame nearest to (x + u, y + v) */
    const int bx = flow_epic_nearest_seed((float)x + u, a->step, nx);
    const int by = flow_epic_nearest_seed((float)y + v, a->step, ny);
    const float eu = u + FLOW_PX(a->bw.u, bx, by), ev = v + FLOW_PX(a->bw.v, bx, by);
    float g = 0.0f;
    for (int dy = -4; dy <= 4; dy += 2)
        for (int dx = -4; dx <= 4; dx += 2) {
            const int px = x + dx, py = y + dy;
            const float gx = flow_epic_mean_at(a->f, a->channels, px + 1, py) -
                             flow_epic_mean_at(a->f, a->channels, px - 1, py);
            const float gy = flow_epic_mean_at(a->f, a->channels, px, py + 1) -
                             flow_epic_mean_at(a->f, a->channels, px, py - 1);
            g += 0.5f * sqrtf(gx * gx + gy * gy);
        }
    const int ok = eu * eu + ev * ev <= a->tol2 && g >= 25.0f * a->min_texture;
    FLOW_PX(a->valid, sx, sy) = ok ? 1.0f : 0.0f;
}

/* ---- matches given by the caller ---------------------------------------------
 * In place of the matcher: each seed takes, of the caller's matches (a point
 * set of the rows FLOW_MATCH_X .. FLOW_MATCH_WEIGHT, full-size pixels) whose
 * point lies nearest to it among the seeds, the one of the highest weight
 * (the first of equals); its flow scaled to the match level, valid = that
 * weight (0: none).  Every seed reads every match: the caller's matches are
 * few and the result is the same on any device. */
typedef struct flow_epic_take_args {
    flow_pair seeds;   /* written */
    flow_plane valid;  /* written */
    flow_plane matches;
    int n, step;
    float scale;       /* full size to the match level: 2^-level */
} flow_epic_take_args;

FLOW_HD void flow_epic_take_px(const flow_epic_take_args *a, int sx, int sy)
{
    const int nx = a->seeds.u.width, ny = a->seeds.u.height;
    float best = 0.0f, u = 0.0f, v = 0.0f;
    for (int i = 0; i < a->n; i++) {
        const float wt = flow_at(&a->matches, i, 4);
        if (wt <= best ||
            flow_epic_nearest_seed(flow_at(&a->matches, i, 0) * a->scale, a->step, nx) != sx ||
            flow_epic_nearest_seed(flow_at(&a->matches, i, 1) * a->scale, a->step, ny) != sy)
            continue;
        best = wt;
        u = flow_at(&a->matches, i, 2) * a->scale;
        v = flow_at(&a->matches, i, 3) * a->scale;
    }
    FLOW_PX(a->seeds.u, sx, sy) = u;
    FLOW_PX(a->seeds.v, sx, sy) = v;
    FLOW_PX(a->valid, sx, sy) = best;
}

/* ---- the matches as planes of the frames' size --------------------------------
 * At the full-size pixel of each seed its flow (scaled to full size) and its
 * weight (1 kept by the forward-backward check, 0 dropped); weight -1 and
 * flow 0 at every other pixel. */
typedef struct flow_epic_scatter_args {
    flow_plane u, v, weight; /* written, full size */
    flow_pair seeds;
    flow_plane valid;
    int step, level;
} flow_epic_scatter_args;

FLOW_HD void flow_epic_scatter_px(const flow_epic_scatter_args *a, int x, int y)
{
    const int m = 1 << a->level, h = a->step / 2;
    const int xm = x / m, ym = y / m;
    const int sx = (xm - h) / a->step, sy = (ym - h) / a->step;
    const int on = x % m == 0 && y % m == 0 && xm >= h && ym >= h && (xm - h) % a->step == 0 &&
                   (ym - h) % a->step == 0 && sx < a->valid.width && sy < a->valid.height;
    FLOW_PX(a->u, x, y) = on ? FLOW_PX(a->seeds.u, sx, sy) * (float)m : 0.0f;
    FLOW_PX(a->v, x, y) = on ? FLOW_PX(a->seeds.v, sx, sy) * (float)m : 0.0f;
    FLOW_PX(a->weight, x, y) = on ? FLOW_PX(a->valid, sx, sy) : -1.0f;
}

#endif
