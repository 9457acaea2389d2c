/* robust.h -- the robust coarse-to-fine method at one pixel beside its data
 * terms (pixel/terms.h): the image-driven smoothness weight and the median
 * filter of the flow after each warp. */
#ifndef FLOW_PIXEL_ROBUST_H
#define FLOW_PIXEL_ROBUST_H

#include "qualifier.h"
#include "stencil.h"
#include "occlusion.h"
#include "warp.h"

#include <math.h>
#include <string.h>

/* ---- the image-driven smoothness weight --------------------------------- */

/* g = exp(-|grad f| inv_lambda) at every pixel of the first frame f (the
 * root mean square of its channels' gradients, grey levels per pixel): the
 * factor of Psi'_S there (FLOW_SYS_EDGE), so that the flow is smoothed less
 * across the image's edges, where motion edges lie (the local smoothness
 * weight of Weinzaepfel et al., DeepFlow, ICCV 2013). */
typedef struct flow_edge_weight_args {
    flow_plane g;
    flow_plane f[3];
    int channels;
    float inv_lambda;
} flow_edge_weight_args;

FLOW_HD void flow_edge_weight_px(const flow_edge_weight_args *a, int x, int y)
{
    float g2 = 0.0f;
    for (int c = 0; c < a->channels; c++) {
        const float gx = flow_diff4_at(&a->f[c], x, y, 1, 0);
        const float gy = flow_diff4_at(&a->f[c], x, y, 0, 1);
        g2 += gx * gx + gy * gy;
    }
    FLOW_PX(a->g, x, y) = expf(-sqrtf(g2 / (float)a->channels) * a->inv_lambda);
}

/* ---- the median filter of the flow -------------------------------------- */

/* A float as an int of the same order (signed comparison): the bits of a
 * negative float, magnitude flipped, so that larger magnitudes come first.
 * flow_key_float inverts it. */
FLOW_HD int flow_float_key(float f)
{
    int b;
    memcpy(&b, &f, sizeof b);
    return b ^ ((b >> 31) & 0x7fffffff);
}

FLOW_HD float flow_key_float(int k)
{
    const int b = k ^ ((k >> 31) & 0x7fffffff);
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

/* Sorts k[0 .. n-1] ascending (n <= 32): Batcher's odd-even merge sort of
 * the next power of two, less its comparators that touch an index past n
 * (the missing keys count as +infinity, which such a comparator leaves in
 * place).  Every loop has constant bounds once inlined with a constant n:
 * on the GPU the keys stay in registers, each comparator a min and a max. */
FLOW_HD void flow_sort_keys(int *k, int n)
{
    const int lg = n <= 2 ? 1 : n <= 4 ? 2 : n <= 8 ? 3 : n <= 16 ? 4 : 5, m = 1 << lg;
    /* stage (p, d): comparators (lo, lo + d) for lo = j + i, j = d % p,
     * d % p + 2d, ..., i < d, both ends in one block of 2p.  The loops run
     * over fixed ranges (the compiler unrolls inner loops first, so their
     * bounds must not depend on the outer ones) and skip what is not a
     * comparator. */
    FLOW_UNROLL_ALL
    for (int lp = 0; lp < lg; lp++) {
        FLOW_UNROLL_ALL
        for (int q = 0; q < lg; q++) {
            FLOW_UNROLL_ALL
            for (int lo = 0; lo < m; lo++) {
                const int p = 1 << lp, d = p >> q, hi = lo + d, j0 = d % p;
                if (q > lp || hi >= n || lo < j0 || (lo - j0) % (2 * d) >= d
                    || lo / (2 * p) != hi / (2 * p))
                    continue;
                const int a = k[lo], b = k[hi];
                k[lo] = a < b ? a : b;
                k[hi] = a < b ? b : a;
            }
        }
    }
}

/* The median of v[0 .. n-1] (n odd, at most 25). */
FLOW_HD float flow_median_of(const float *v, int n)
{
    int k[25];
    FLOW_UNROLL
    for (int i = 0; i < n; i++)
        k[i] = flow_float_key(v[i]);
    flow_sort_keys(k, n);
    return flow_key_float(k[n / 2]);
}

/* dst = the median of src over the (2 radius + 1)^2 window, each component
 * on its own (Sun, Roth, Black, CVPR 2010: the median filter after each
 * warp); coordinates are clamped into the grid.  radius 1 or 2.
 *
 * Weighted (inv_c2 > 0): the weighted median of the window (the "Classic+NL"
 * step of Sun, Roth, Black, IJCV 2014), neighbour j of pixel i weighing
 *   w_j = exp(-|j - i|^2 inv_s2 - |I(j) - I(i)|^2 inv_c2)
 * with I the first frame (all its channels): values across an edge of the
 * image count little, so motion edges stay where the image has its edges.
 * With an occlusion weight (occlusion != 0), w_j is multiplied by o at j
 * (flow_occlusion_px).  The weighted median is the smallest value of the
 * window with less than half of the total weight strictly below it and at
 * most half strictly above. */
typedef struct flow_median_args {
    flow_pair dst, src;
    int radius;
    flow_plane img[3]; /* the first frame (weighted only) */
    int channels;
    float inv_s2, inv_c2; /* 1 / (2 sigma_s^2), 1 / (2 sigma_c^2); inv_c2 0: unweighted */
    int occlusion;        /* weighted only: the weights times occ */
    flow_plane occ;
} flow_median_args;

/* The weighted median of v[0 .. n-1] (n <= 25) with weights w (total W):
 * the smallest value whose cumulative weight (all values up to it) reaches
 * W / 2.  Less than half the weight lies strictly below it and at most half
 * strictly above.  The values are sorted as keys that carry their index in
 * their 5 lowest bits, so that a comparator is a min and a max and the
 * weights are found by index: values closer than 2^-18 of their size
 * count as equal (taken in the order of their index).  The median's index
 * in v, or its value. */
FLOW_HD int flow_weighted_median_index(const float *v, const float *w, int n, float W)
{
    int k[25];
    FLOW_UNROLL
    for (int i = 0; i < n; i++)
        k[i] = (flow_float_key(v[i]) & ~31) | i;
    flow_sort_keys(k, n);
    float below = 0.0f;
    int at = k[n - 1] & 31, found = 0;
    FLOW_UNROLL
    for (int i = 0; i < n; i++) {
        below += w[k[i] & 31];
        const int here = !found && below >= 0.5f * W;
        at = here ? k[i] & 31 : at;
        found |= here;
    }
    return at;
}

FLOW_HD float flow_weighted_median_of(const float *v, const float *w, int n, float W)
{
    return v[flow_weighted_median_index(v, w, n, W)];
}

/* The (2 r + 1)^2 window of (x, y) in a w x h grid (r <= 2): its columns
 * and rows clamped into the grid once, for every plane read there. */
typedef struct flow_window {
    int xs[5], ys[5];
} flow_window;

FLOW_HD flow_window flow_window_at(int w, int h, int x, int y, int r)
{
    flow_window win;
    FLOW_UNROLL
    for (int i = 0; i < 2 * r + 1; i++) {
        win.xs[i] = flow_clampi(x + i - r, 0, w - 1);
        win.ys[i] = flow_clampi(y + i - r, 0, h - 1);
    }
    return win;
}

/* Value k (row by row) of p's window. */
FLOW_HD float flow_window_value(const flow_plane *p, const flow_window *win, int n, int k)
{
    return p->data[win->ys[k / n] * p->pitch + win->xs[k % n]];
}

/* The window's values of p, row by row, into v. */
FLOW_HD void flow_window_load(const flow_plane *p, const flow_window *win, int r, float *v)
{
    const int n = 2 * r + 1;
    FLOW_UNROLL
    for (int k = 0; k < n * n; k++)
        v[k] = flow_window_value(p, win, n, k);
}

/* The weights of the window into w, their sum returned. */
FLOW_HD float flow_median_weights(const flow_median_args *a, const flow_window *win, int r,
                                  float *w)
{
    const int n = 2 * r + 1;
    /* exp(-t) as exp2(-t log2 e): the scales carry the log2 e */
    const float ks = a->inv_s2 * 1.44269504f, kc = a->inv_c2 * 1.44269504f;
    FLOW_UNROLL
    for (int k = 0; k < n * n; k++) {
        const int dx = k % n - r, dy = k / n - r;
        w[k] = (float)(dx * dx + dy * dy) * ks;
    }
    for (int c = 0; c < a->channels; c++) {
        const float centre = flow_window_value(&a->img[c], win, n, n * n / 2);
        FLOW_UNROLL
        for (int k = 0; k < n * n; k++) {
            const float d = flow_window_value(&a->img[c], win, n, k) - centre;
            w[k] += d * d * kc;
        }
    }
    float sum = 0.0f;
    FLOW_UNROLL
    for (int k = 0; k < n * n; k++) {
        const float o = a->occlusion ? flow_window_value(&a->occ, win, n, k) : 1.0f;
        w[k] = exp2f(-w[k]) * o;
        sum += w[k];
    }
    return sum;
}

/* The median of p over the window win, weighted by w (total W) when
 * w is given. */
FLOW_HD float flow_median_window(const flow_plane *p, const flow_window *win, int r,
                                 const float *w, float W)
{
    const int n = 2 * r + 1;
    float v[25];
    flow_window_load(p, win, r, v);
    if (!w)
        return flow_median_of(v, n * n);
    /* the value read again rather than indexed: v stays in registers */
    return flow_window_value(p, win, n, flow_weighted_median_index(v, w, n * n, W));
}

/* Both components at (x, y) with the window's radius r a constant (each
 * call below): the window's arrays stay in registers on the GPU. */
FLOW_HD void flow_median_window_px(const flow_median_args *a, int x, int y, int r)
{
    const flow_window win = flow_window_at(a->src.u.width, a->src.u.height, x, y, r);
    float wt[25];
    const int weighted = a->inv_c2 > 0.0f;
    const float W = weighted ? flow_median_weights(a, &win, r, wt) : 0.0f;
    const float *w = weighted ? wt : NULL;
    FLOW_PX(a->dst.u, x, y) = flow_median_window(&a->src.u, &win, r, w, W);
    FLOW_PX(a->dst.v, x, y) = flow_median_window(&a->src.v, &win, r, w, W);
}

FLOW_HD void flow_median_px(const flow_median_args *a, int x, int y)
{
    if (a->radius == 1)
        flow_median_window_px(a, x, y, 1);
    else
        flow_median_window_px(a, x, y, 2);
}

#endif
