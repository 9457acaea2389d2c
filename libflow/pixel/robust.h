/* robust.h -- the robust coarse-to-fine method at one pixel: its data terms
 * (brightness and gradient constancy, each normalised) from the first frame
 * and the second one warped along the current flow, and the median filter
 * of the flow after each warp.
 *
 * Data terms (Brox, Bruhn, Papenberg, Weickert, ECCV 2004; normalisation
 * after Zimmer, Bruhn, Weickert, IJCV 2011).  With f1 and the warped f2w,
 * the derivatives averaged over the two frames (f_x, f_y, and for gradient
 * constancy f_xx, f_xy, f_yy) and the temporal differences
 * f_t = f2w - f1, f_xt = (f2w)_x - (f1)_x, f_yt = (f2w)_y - (f1)_y:
 *
 *   brightness  J_B = theta_B grad3 f grad3 f^T,    grad3 f = (f_x, f_y, f_t),
 *               theta_B = 1 / (f_x^2 + f_y^2 + zeta^2)
 *   gradient    J_G = theta_X g_x g_x^T + theta_Y g_y g_y^T,
 *               g_x = (f_xx, f_xy, f_xt), g_y = (f_xy, f_yy, f_yt),
 *               theta_X = 1 / (f_xx^2 + f_xy^2 + zeta^2), theta_Y likewise
 *
 * (theta = 1 without normalisation).  (d, 1)^T J (d, 1) is then the squared
 * linearised constancy error of the increment d, divided by the squared
 * gradient: an error in pixels rather than grey levels, so that one eps
 * and one alpha fit dark and bright, flat and textured regions alike.
 * Colour: the mean of the channels' tensors.  A pixel whose warped position
 * x + w falls outside the frame has no data term (both tensors 0): clamping
 * would match it against the border, a false match.
 *
 * Three frames (previous != 0): under constant velocity the frame before,
 * f0, warped along -w (f0w), matches f1 too; its linearised error is
 * f0w - grad f0w . d - f1, so the same terms with (f_x, f_y) negated (and
 * f0w in place of f2w) are added where x - w is inside the frame, times
 * wprev tol / sqrt(e^2 + tol^2), e^2 their squared normalised miss at w
 * (brightness plus gamma gradient): a Charbonnier weight, lagged over the
 * warp, that drops the frame before where the velocity changes.  One
 * penaliser then takes both pairs' errors of a constancy.  The tensors are
 * then rewritten for the total flow (pixel/warp.h). */
#ifndef FLOW_PIXEL_ROBUST_H
#define FLOW_PIXEL_ROBUST_H

#include "qualifier.h"
#include "stencil.h"
#include "warp.h"

#include <math.h>
#include <string.h>

typedef struct flow_robust_terms_args {
    flow_tensor Jb, Jg;       /* out (Jg only when gradient != 0) */
    flow_plane f1[3], f2w[3]; /* first frame, second warped along w */
    flow_plane f0w[3];        /* the frame before, warped along -w (previous) */
    flow_pair w;              /* the flow f2 was warped with */
    int channels;
    int gradient;  /* compute the gradient constancy term */
    int normalise; /* divide each term by its squared gradient + zeta^2 */
    float zeta2;
    int previous;  /* add the terms of the frame before */
    float wprev;   /* their weight */
    float tol2;    /* tolerance^2 of their miss (0: none) */
    float gamma;   /* the gradient term's weight, in their miss */
} flow_robust_terms_args;

/* j += theta (a, b, c)(a, b, c)^T */
FLOW_HD void flow_robust_add(float j[6], float a, float b, float c, float theta)
{
    j[0] += theta * a * a;
    j[1] += theta * a * b;
    j[2] += theta * a * c;
    j[3] += theta * b * b;
    j[4] += theta * b * c;
    j[5] += theta * c * c;
}

/* Second derivatives of f at (x, y): f_xx, f_xy, f_yy (central, h = 1). */
FLOW_HD void flow_hessian_at(const flow_plane *f, int x, int y, float *fxx, float *fxy,
                             float *fyy)
{
    const float c = FLOW_PX(*f, x, y);
    *fxx = flow_at(f, x + 1, y) - 2.0f * c + flow_at(f, x - 1, y);
    *fyy = flow_at(f, x, y + 1) - 2.0f * c + flow_at(f, x, y - 1);
    *fxy = 0.25f * (flow_at(f, x + 1, y + 1) - flow_at(f, x + 1, y - 1)
                    - flow_at(f, x - 1, y + 1) + flow_at(f, x - 1, y - 1));
}

FLOW_HD float flow_robust_theta(int normalise, float g2, float zeta2)
{
    return normalise ? 1.0f / (g2 + zeta2) : 1.0f;
}

/* What the data terms read of one frame at a pixel: its value, its first
 * derivatives (fourth-order stencil) and, for gradient constancy, its
 * second (0 without). */
typedef struct flow_robust_local {
    float f, fx, fy, fxx, fxy, fyy;
} flow_robust_local;

FLOW_HD flow_robust_local flow_robust_local_at(const flow_plane *f, int x, int y, int gradient)
{
    flow_robust_local l;
    l.f = FLOW_PX(*f, x, y);
    l.fx = flow_diff4_at(f, x, y, 1, 0);
    l.fy = flow_diff4_at(f, x, y, 0, 1);
    l.fxx = l.fxy = l.fyy = 0.0f;
    if (gradient)
        flow_hessian_at(f, x, y, &l.fxx, &l.fxy, &l.fyy);
    return l;
}

/* jb, jg += the terms at (x, y) of the first frame (its values p1, read
 * once for both pairs) and f2 warped along s w (s = 1: the second frame;
 * s = -1: the frame before, whose spatial derivatives then enter
 * negated). */
FLOW_HD void flow_robust_pair_add(const flow_robust_terms_args *a, const flow_robust_local *p1,
                                  const flow_plane *f2, float s, int x, int y, float jb[6],
                                  float jg[6])
{
    const flow_robust_local p2 = flow_robust_local_at(f2, x, y, a->gradient);
    const float fx = 0.5f * (p1->fx + p2.fx), fy = 0.5f * (p1->fy + p2.fy);
    flow_robust_add(jb, s * fx, s * fy, p2.f - p1->f,
                    flow_robust_theta(a->normalise, fx * fx + fy * fy, a->zeta2));
    if (a->gradient) {
        const float fxx = 0.5f * (p1->fxx + p2.fxx), fxy = 0.5f * (p1->fxy + p2.fxy);
        const float fyy = 0.5f * (p1->fyy + p2.fyy);
        flow_robust_add(jg, s * fxx, s * fxy, p2.fx - p1->fx,
                        flow_robust_theta(a->normalise, fxx * fxx + fxy * fxy, a->zeta2));
        flow_robust_add(jg, s * fxy, s * fyy, p2.fy - p1->fy,
                        flow_robust_theta(a->normalise, fxy * fxy + fyy * fyy, a->zeta2));
    }
}

FLOW_HD void flow_robust_terms_px(const flow_robust_terms_args *a, int x, int y)
{
    const float u0 = FLOW_PX(a->w.u, x, y), v0 = FLOW_PX(a->w.v, x, y);
    const int inside = flow_inside(&a->f1[0], (float)x + u0, (float)y + v0);
    const int before = a->previous && flow_inside(&a->f1[0], (float)x - u0, (float)y - v0);
    float jb[6] = { 0, 0, 0, 0, 0, 0 }, jg[6] = { 0, 0, 0, 0, 0, 0 };
    float pb[6] = { 0, 0, 0, 0, 0, 0 }, pg[6] = { 0, 0, 0, 0, 0, 0 };
    for (int c = 0; (inside || before) && c < a->channels; c++) {
        const flow_robust_local p1 = flow_robust_local_at(&a->f1[c], x, y, a->gradient);
        if (inside)
            flow_robust_pair_add(a, &p1, &a->f2w[c], 1.0f, x, y, jb, jg);
        if (before)
            flow_robust_pair_add(a, &p1, &a->f0w[c], -1.0f, x, y, pb, pg);
    }
    if (before) {
        float k = a->wprev;
        if (a->tol2 > 0.0f) {
            const float e2 = (pb[5] + a->gamma * pg[5]) / (float)a->channels;
            k *= sqrtf(a->tol2 / (e2 + a->tol2));
        }
        for (int i = 0; i < 6; i++) {
            jb[i] += k * pb[i];
            jg[i] += k * pg[i];
        }
    }
    const float mean = 1.0f / (float)a->channels;
    for (int k = 0; k < 6; k++) {
        jb[k] *= mean;
        jg[k] *= mean;
    }
    flow_tensor_shift_at(jb, u0, v0);
    flow_tensor_store(&a->Jb, x, y, jb);
    if (a->gradient) {
        flow_tensor_shift_at(jg, u0, v0);
        flow_tensor_store(&a->Jg, x, y, jg);
    }
}

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

/* The occlusion weight of the median (Sun, Roth, Black, IJCV 2014, the
 * occlusion-aware weighted median of Classic+NL):
 *   o = exp(-min(div w, 0)^2 inv_d2 - e^2 inv_e2),
 * div w the divergence of the flow (central differences, clamped into the
 * grid: negative where the flow converges, as it does where one surface
 * slides over another), e the difference of the second frame at x + w
 * (bilinear) and the first at x, the root mean square over the channels;
 * 0 where x + w leaves the frame (nothing to compare); o at least 1e-6.  A
 * pixel likely occluded then counts little in its neighbours' medians, so
 * the motion of the surface in front does not spread into it. */
typedef struct flow_occlusion_args {
    flow_plane o;
    flow_pair w;
    flow_plane f1[3], f2[3];
    int channels;
    float inv_d2, inv_e2; /* 1 / (2 sigma_d^2), 1 / (2 sigma_e^2) */
} flow_occlusion_args;

FLOW_HD void flow_occlusion_px(const flow_occlusion_args *a, int x, int y)
{
    const float u = FLOW_PX(a->w.u, x, y), v = FLOW_PX(a->w.v, x, y);
    const float div = 0.5f * (flow_at(&a->w.u, x + 1, y) - flow_at(&a->w.u, x - 1, y)
                              + flow_at(&a->w.v, x, y + 1) - flow_at(&a->w.v, x, y - 1));
    const float d = div < 0.0f ? div : 0.0f;
    const float px = (float)x + u, py = (float)y + v;
    float e2 = 0.0f;
    if (flow_inside(&a->o, px, py)) {
        for (int c = 0; c < a->channels; c++) {
            const float e = flow_bilinear_at(&a->f2[c], px, py) - FLOW_PX(a->f1[c], x, y);
            e2 += e * e;
        }
        e2 /= (float)a->channels;
    }
    /* at least 1e-6: a window of pixels all deemed occluded keeps a
     * positive total weight, its median then weighted by image and distance */
    FLOW_PX(a->o, x, y) = fmaxf(expf(-d * d * a->inv_d2 - e2 * a->inv_e2), 1e-6f);
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
