/* patch.h -- patch Lucas-Kanade at one point: the translation of a square
 * patch of the first frame into the second by inverse-compositional
 * Gauss-Newton iterations (Baker, Matthews, IJCV 2004; seed 000, Ringaby 2008,
 * ch. 2.3 and 3.1), and the two methods built on it: dense iterative LK (one patch per
 * pixel) and dense inverse search (a grid of patches, densified; Kroeger,
 * Timofte, Dai, Van Gool, ECCV 2016).
 *
 * A patch of side s has its top-left pixel at (x0, y0).  With g = grad f1
 * and e(d) = f2(x + d) - f1(x) over the patch (summed over the channels),
 * minimising sum (f1(x + D) - f2(x + d))^2 over the increment D gives
 *   H D = b,  H = sum g g^T,  b = sum g e(d),   d <- d - D
 * (inverse compositional: H belongs to the first frame and is built once).
 * Mean normalisation compares the patches less their means, which makes the
 * search blind to a brightness offset: g and e are then replaced by their
 * deviations from the patch mean, H = sum g g^T - (sum g)(sum g)^T / n and
 * b = sum g e - (sum g)(sum e) / n.  The iterate of least residual wins,
 * so an iteration that makes things worse is undone; a result that moved
 * more than s pixels from its start is no match and the start is kept. */
#ifndef FLOW_PIXEL_PATCH_H
#define FLOW_PIXEL_PATCH_H

#include "qualifier.h"
#include "stencil.h"
#include "transfer.h"
#include "warp.h"

#include <math.h>

/* The frames of one pyramid level as a patch search reads them: both
 * frames and the gradient of the first, per channel. */
typedef struct flow_patch_frames {
    flow_plane f1[3], f2[3], gx[3], gy[3];
    int channels;
} flow_patch_frames;

/* How a patch is matched. */
typedef struct flow_patch_opts {
    int size;       /* side s of the patch */
    int iterations; /* Gauss-Newton iterations */
    int normalise;  /* compare the patches less their means */
    float tau;      /* smallest eigenvalue of H / n accepted */
    int cubic;      /* sample the second frame bicubically (else bilinearly) */
    int affine;     /* the patch may rotate, scale and shear (else it translates) */
} flow_patch_opts;

/* f at a point between pixels, bilinear or bicubic. */
FLOW_HD float flow_sample_at(const flow_plane *f, float px, float py, int cubic)
{
    return cubic ? flow_bicubic_at(f, px, py) : flow_bilinear_at(f, px, py);
}

/* The smaller eigenvalue of the symmetric 2x2 matrix (a b; b c). */
FLOW_HD float flow_eig_min2(float a, float b, float c)
{
    const float m = 0.5f * (a + c), r = sqrtf(0.25f * (a - c) * (a - c) + b * b);
    return m - r;
}

/* A lane's pixels whose first frame and gradient stay in registers. */
#define FLOW_PATCH_KEPT 2

/* One pixel (px, py) of a patch in an iteration: e = f2(p + d) - f1(p)
 * (f1v, gx, gy: the first frame and its gradient at p) added to the sums
 * b += g e, se += e, see += e^2. */
FLOW_HD void flow_patch_residual(const flow_plane *f2, const flow_patch_opts *o, int px, int py,
                                 float du, float dv, float f1v, float gx, float gy, float *bx,
                                 float *by, float *se, float *see)
{
    const float e = flow_sample_at(f2, (float)px + du, (float)py + dv, o->cubic) - f1v;
    *bx += gx * e;
    *by += gy * e;
    *se += e, *see += e * e;
}

/* What the iterations of a patch keep of its first frame: H = sum g g^T
 * (less the means' part when normalising), its determinant, and each
 * channel's sum g. */
typedef struct flow_patch_hessian {
    float h11, h12, h22, det;
    float sgx[3], sgy[3];
} flow_patch_hessian;

/* H of the patch at (x0, y0) (lane / lanes, nc: as flow_patch_track).
 * Returns 0 where the patch has too little texture (eigenvalue below tau)
 * or H is singular. */
FLOW_HD int flow_patch_hessian_at(const flow_patch_frames *f, const flow_patch_opts *o, int x0,
                                  int y0, int lane, int lanes, int nc, flow_patch_hessian *H)
{
    const int s = o->size, np = s * s;
    const float n = (float)np; /* pixels per channel */
    float h11 = 0.0f, h12 = 0.0f, h22 = 0.0f;
    for (int c = 0; c < 3; c++)
        H->sgx[c] = H->sgy[c] = 0.0f;
    for (int c = 0; c < nc; c++) {
        /* lane 0 carries the earlier channels' totals: a single lane adds in
         * the order of the formulas */
        float p11 = lane ? 0.0f : h11, p12 = lane ? 0.0f : h12, p22 = lane ? 0.0f : h22;
        float pgx = 0.0f, pgy = 0.0f;
        for (int q = lane; q < np; q += lanes) {
            const int px = x0 + q % s, py = y0 + q / s;
            const float gx = flow_at(&f->gx[c], px, py);
            const float gy = flow_at(&f->gy[c], px, py);
            p11 += gx * gx, p12 += gx * gy, p22 += gy * gy;
            pgx += gx, pgy += gy;
        }
        h11 = flow_lanes_sum(p11, lanes), h12 = flow_lanes_sum(p12, lanes);
        h22 = flow_lanes_sum(p22, lanes);
        const float sgx = flow_lanes_sum(pgx, lanes), sgy = flow_lanes_sum(pgy, lanes);
        H->sgx[c] = sgx, H->sgy[c] = sgy;
        if (o->normalise)
            h11 -= sgx * sgx / n, h12 -= sgx * sgy / n, h22 -= sgy * sgy / n;
    }
    const float det = h11 * h22 - h12 * h12, tr = h11 + h22;
    H->h11 = h11, H->h12 = h12, H->h22 = h22, H->det = det;
    return flow_eig_min2(h11, h12, h22) / (n * (float)nc) >= o->tau && det > 1e-9f * tr * tr;
}

/* A channel's sums of an iteration made final: less the means' part when
 * normalising (se: the channel's sum of e). */
FLOW_HD void flow_patch_channel_end(const flow_patch_hessian *H, const flow_patch_opts *o, int c,
                                    float se, float *bx, float *by, float *see)
{
    const float n = (float)(o->size * o->size);
    if (o->normalise)
        *bx -= H->sgx[c] * se / n, *by -= H->sgy[c] * se / n, *see -= se * se / n;
}

/* Where the iterations stand: the displacement (du, dv), the best iterate
 * (bu, bv) with its residual best, iteration k, and whether the last step
 * was small enough to stop after scoring its result. */
typedef struct flow_patch_iterate {
    float du, dv, best, bu, bv;
    int k, converged;
} flow_patch_iterate;

FLOW_HD flow_patch_iterate flow_patch_iterate_start(float u0, float v0)
{
    flow_patch_iterate t;
    t.du = t.bu = u0, t.dv = t.bv = v0, t.best = INFINITY;
    t.k = 0, t.converged = 0;
    return t;
}

/* The end of an iteration whose sums are b = (bx, by) and see: the iterate
 * scored, then one Gauss-Newton step.  Returns 0 when the iterations are
 * over (the last iterate scored). */
FLOW_HD int flow_patch_step(const flow_patch_hessian *H, const flow_patch_opts *o,
                            flow_patch_iterate *t, float bx, float by, float see)
{
    if (see < t->best)
        t->best = see, t->bu = t->du, t->bv = t->dv;
    if (t->converged || t->k == o->iterations)
        return 0;
    const float Du = (H->h22 * bx - H->h12 * by) / H->det;
    const float Dv = (H->h11 * by - H->h12 * bx) / H->det;
    t->du -= Du, t->dv -= Dv;
    t->converged = Du * Du + Dv * Dv < 1e-6f; /* one more pass scores it */
    t->k++;
    return 1;
}

/* The result: the best iterate into (*u, *v), unless it lies more than s
 * pixels from the start (u0, v0): 0 then, (*u, *v) left alone. */
FLOW_HD int flow_patch_accept(const flow_patch_opts *o, const flow_patch_iterate *t, float u0,
                              float v0, float *u, float *v)
{
    const float n = (float)(o->size * o->size);
    if ((t->bu - u0) * (t->bu - u0) + (t->bv - v0) * (t->bv - v0) > n)
        return 0;
    *u = t->bu, *v = t->bv;
    return 1;
}

/* The patch at (x0, y0) of the first frame tracked into the second from the
 * displacement (*u, *v), which it replaces.  Returns 0, leaving (*u, *v)
 * alone, where the patch has too little texture (eigenvalue below tau) or
 * its best match lies more than s pixels from the start.  lane / lanes:
 * the patch's pixels this caller sums (pixel q = j s + i for q = lane,
 * lane + lanes, ...); the lanes of a group run the patch together and end
 * with the same result.  nc: f->channels, a constant where the caller
 * knows it (a GPU kernel per count keeps one channel's values in registers
 * rather than three). */
FLOW_HD int flow_patch_track(const flow_patch_frames *f, const flow_patch_opts *o, int x0,
                             int y0, int lane, int lanes, int nc, float *u, float *v)
{
    const int s = o->size, np = s * s;
    flow_patch_hessian H;
    if (!flow_patch_hessian_at(f, o, x0, y0, lane, lanes, nc, &H))
        return 0;
    /* lanes of a group: the first FLOW_PATCH_KEPT pixels of this lane (all
     * of them for a warp on an 8x8 patch) have their f1 and gradient kept
     * in registers over the iterations (a lone lane, one thread per patch
     * in a grid of them, reads them each time: registers spent on them
     * cost it more than the loads) */
    const int kept = lanes > 1 ? FLOW_PATCH_KEPT : 0;
    float kf[3][FLOW_PATCH_KEPT], kgx[3][FLOW_PATCH_KEPT], kgy[3][FLOW_PATCH_KEPT];
    FLOW_UNROLL
    for (int c = 0; c < 3; c++)
        FLOW_UNROLL
        for (int m = 0; m < FLOW_PATCH_KEPT; m++) {
            const int q = lane + m * lanes, px = x0 + q % s, py = y0 + q / s;
            const int keep = m < kept && c < nc && q < np;
            kf[c][m] = keep ? flow_at(&f->f1[c], px, py) : 0.0f;
            kgx[c][m] = keep ? flow_at(&f->gx[c], px, py) : 0.0f;
            kgy[c][m] = keep ? flow_at(&f->gy[c], px, py) : 0.0f;
        }
    const float u0 = *u, v0 = *v;
    flow_patch_iterate t = flow_patch_iterate_start(u0, v0);
    for (;;) {
        const float du = t.du, dv = t.dv;
        float bx = 0.0f, by = 0.0f, see = 0.0f;
        FLOW_UNROLL
        for (int c = 0; c < 3; c++) {
            if (c >= nc)
                break;
            float pbx = lane ? 0.0f : bx, pby = lane ? 0.0f : by, psee = lane ? 0.0f : see;
            float se = 0.0f;
            const flow_plane *f2 = &f->f2[c];
            FLOW_UNROLL
            for (int m = 0; m < FLOW_PATCH_KEPT; m++) {
                const int q = lane + m * lanes;
                if (m < kept && q < np)
                    flow_patch_residual(f2, o, x0 + q % s, y0 + q / s, du, dv, kf[c][m],
                                        kgx[c][m], kgy[c][m], &pbx, &pby, &se, &psee);
            }
            const int q0 = lane + kept * lanes;
            for (int q = q0, i = q0 % s, j = q0 / s; q < np; q += lanes) {
                const int px = x0 + i, py = y0 + j;
                flow_patch_residual(f2, o, px, py, du, dv, flow_at(&f->f1[c], px, py),
                                    flow_at(&f->gx[c], px, py), flow_at(&f->gy[c], px, py),
                                    &pbx, &pby, &se, &psee);
                for (i += lanes; i >= s; i -= s) /* the next pixel without a division */
                    j++;
            }
            bx = flow_lanes_sum(pbx, lanes), by = flow_lanes_sum(pby, lanes);
            see = flow_lanes_sum(psee, lanes), se = flow_lanes_sum(se, lanes);
            flow_patch_channel_end(&H, o, c, se, &bx, &by, &see);
        }
        if (!flow_patch_step(&H, o, &t, bx, by, see))
            break;
    }
    return flow_patch_accept(o, &t, u0, v0, u, v);
}

/* Solves H x = b in place (b becomes x) for a symmetric positive definite
 * 6x6 H, by Cholesky (H overwritten); 0 when H is not positive definite. */
FLOW_HD int flow_cholesky6(float H[6][6], float b[6])
{
    for (int j = 0; j < 6; j++) {
        float d = H[j][j];
        for (int k = 0; k < j; k++)
            d -= H[j][k] * H[j][k];
        if (!(d > 1e-9f * H[j][j]) || !(d > 0.0f))
            return 0;
        H[j][j] = sqrtf(d);
        for (int i = j + 1; i < 6; i++) {
            float t = H[i][j];
            for (int k = 0; k < j; k++)
                t -= H[i][k] * H[j][k];
            H[i][j] = t / H[j][j];
        }
    }
    for (int i = 0; i < 6; i++) { /* L y = b */
        for (int k = 0; k < i; k++)
            b[i] -= H[i][k] * b[k];
        b[i] /= H[i][i];
    }
    for (int i = 5; i >= 0; i--) { /* L^T x = y */
        for (int k = i + 1; k < 6; k++)
            b[i] -= H[k][i] * b[k];
        b[i] /= H[i][i];
    }
    return 1;
}

/* The full symmetric matrix L from the lower triangle of H (a >= b). */
FLOW_HD void flow_sym6_fill(float L[6][6], const float H[6][6])
{
    for (int a = 0; a < 6; a++)
        for (int b = 0; b < 6; b++)
            L[a][b] = a >= b ? H[a][b] : H[b][a];
}

/* An affine warp of a patch: its point r (relative to the centre) goes to
 * centre + A r + t. */
typedef struct flow_affine {
    float a11, a12, a21, a22, tx, ty;
} flow_affine;

/* The inverse-compositional update of the six parameters p = (t, A - I)
 * by the step b: warp <- warp o D^-1, D = [1 + b2, b3, b0; b4, 1 + b5, b1].
 * 0, the warp unchanged, when D is singular. */
FLOW_HD int flow_affine_compose_inverse(flow_affine *w, const float b[6])
{
    const float d11 = 1.0f + b[2], d12 = b[3], d21 = b[4], d22 = 1.0f + b[5];
    const float det = d11 * d22 - d12 * d21;
    if (!(fabsf(det) > 1e-6f))
        return 0;
    const float m11 = d22 / det, m12 = -d12 / det, m21 = -d21 / det, m22 = d11 / det;
    const float sx = -(m11 * b[0] + m12 * b[1]), sy = -(m21 * b[0] + m22 * b[1]);
    const float n11 = w->a11 * m11 + w->a12 * m21, n12 = w->a11 * m12 + w->a12 * m22;
    const float n21 = w->a21 * m11 + w->a22 * m21, n22 = w->a21 * m12 + w->a22 * m22;
    w->tx += w->a11 * sx + w->a12 * sy, w->ty += w->a21 * sx + w->a22 * sy;
    w->a11 = n11, w->a12 = n12, w->a21 = n21, w->a22 = n22;
    return 1;
}

/* The same patch (top-left (x0, y0)) under an affine warp: its point r
 * (relative to the patch centre) goes to centre + A r + t.  Six parameters
 * p = (t, A - I) with the steepest-descent images
 *   sd = (g_x, g_y, r_x g_x, r_y g_x, r_x g_y, r_y g_y),
 * the same inverse-compositional iterations (warp <- warp o D(dp)^-1), and
 * as result the displacement of pixel (x0 + s/2, y0 + s/2).  A translation
 * cannot describe a rotating or zooming patch: its estimate belongs to
 * wherever the patch's texture is strongest, not to its centre; the affine
 * warp removes that error.  Falls back to flow_patch_track where the six
 * parameters are not determined (a straight edge). */
FLOW_HD int flow_patch_track_affine(const flow_patch_frames *f, const flow_patch_opts *o,
                                    int x0, int y0, float *u, float *v)
{
    const int s = o->size;
    const float n = (float)(s * s), half = 0.5f * (float)(s - 1);
    float H[6][6], sd0[3][6];
    for (int a = 0; a < 6; a++)
        for (int b = 0; b < 6; b++)
            H[a][b] = 0.0f;
    for (int c = 0; c < f->channels; c++) {
        for (int k = 0; k < 6; k++)
            sd0[c][k] = 0.0f;
        for (int j = 0; j < s; j++)
            for (int i = 0; i < s; i++) {
                const float gx = flow_at(&f->gx[c], x0 + i, y0 + j);
                const float gy = flow_at(&f->gy[c], x0 + i, y0 + j);
                const float rx = (float)i - half, ry = (float)j - half;
                const float sd[6] = { gx, gy, rx * gx, ry * gx, rx * gy, ry * gy };
                for (int a = 0; a < 6; a++) {
                    sd0[c][a] += sd[a];
                    for (int b = 0; b <= a; b++)
                        H[a][b] += sd[a] * sd[b];
                }
            }
        if (o->normalise)
            for (int a = 0; a < 6; a++)
                for (int b = 0; b <= a; b++)
                    H[a][b] -= sd0[c][a] * sd0[c][b] / n;
    }
    const float h11 = H[0][0], h12 = H[1][0], h22 = H[1][1];
    if (!(flow_eig_min2(h11, h12, h22) / (n * (float)f->channels) >= o->tau))
        return 0;
    float L[6][6], probe[6] = { 0, 0, 0, 0, 0, 0 };
    flow_sym6_fill(L, H);
    if (!flow_cholesky6(L, probe))
        return flow_patch_track(f, o, x0, y0, 0, 1, f->channels, u, v);
    /* the pixel the flow belongs to, relative to the patch centre */
    const float px = (float)(s / 2) - half, py = px;
    const float cx = (float)x0 + half, cy = (float)y0 + half;
    const float u0 = *u, v0 = *v;
    flow_affine wp = { 1.0f, 0.0f, 0.0f, 1.0f, u0, v0 };
    float best = INFINITY, bu = u0, bv = v0;
    for (int k = 0, converged = 0;; k++) {
        float b[6] = { 0, 0, 0, 0, 0, 0 }, see = 0.0f;
        for (int c = 0; c < f->channels; c++) {
            float se = 0.0f;
            for (int j = 0; j < s; j++)
                for (int i = 0; i < s; i++) {
                    const float rx = (float)i - half, ry = (float)j - half;
                    const float qx = cx + wp.a11 * rx + wp.a12 * ry + wp.tx;
                    const float qy = cy + wp.a21 * rx + wp.a22 * ry + wp.ty;
                    const float gx = flow_at(&f->gx[c], x0 + i, y0 + j);
                    const float gy = flow_at(&f->gy[c], x0 + i, y0 + j);
                    const float e = flow_sample_at(&f->f2[c], qx, qy, o->cubic)
                                    - flow_at(&f->f1[c], x0 + i, y0 + j);
                    b[0] += gx * e, b[1] += gy * e;
                    b[2] += rx * gx * e, b[3] += ry * gx * e;
                    b[4] += rx * gy * e, b[5] += ry * gy * e;
                    se += e, see += e * e;
                }
            if (o->normalise) {
                for (int a = 0; a < 6; a++)
                    b[a] -= sd0[c][a] * se / n;
                see -= se * se / n;
            }
        }
        if (see < best) {
            best = see;
            bu = wp.a11 * px + wp.a12 * py + wp.tx - px;
            bv = wp.a21 * px + wp.a22 * py + wp.ty - py;
        }
        if (converged || k == o->iterations)
            break;
        flow_sym6_fill(L, H);
        flow_cholesky6(L, b);
        if (!flow_affine_compose_inverse(&wp, b))
            break;
        converged = b[0] * b[0] + b[1] * b[1] < 1e-6f;
    }
    if ((bu - u0) * (bu - u0) + (bv - v0) * (bv - v0) > n)
        return 0;
    *u = bu, *v = bv;
    return 1;
}

/* ---- the operations ----------------------------------------------------- */

/* gx, gy = the gradient of f: fourth-order central differences. */
typedef struct flow_gradient_args {
    flow_plane gx, gy, f;
} flow_gradient_args;

FLOW_HD void flow_gradient_px(const flow_gradient_args *a, int x, int y)
{
    FLOW_PX(a->gx, x, y) = flow_diff4_at(&a->f, x, y, 1, 0);
    FLOW_PX(a->gy, x, y) = flow_diff4_at(&a->f, x, y, 0, 1);
}

/* Dense iterative LK: the patch of side s around each pixel (its top-left
 * pixel s/2 up and left: even sides are allowed) tracked from the flow in
 * w, which it replaces.  A pixel whose patch does not track keeps its
 * start, or with mark != 0 gets the value `unknown`. */
typedef struct flow_plk_args {
    flow_patch_frames f;
    flow_patch_opts o;
    flow_pair w; /* in: the start, out: the result */
    int mark;
    float unknown;
} flow_plk_args;

FLOW_HD void flow_plk_px(const flow_plk_args *a, int x, int y)
{
    float u = FLOW_PX(a->w.u, x, y), v = FLOW_PX(a->w.v, x, y);
    const int r = a->o.size / 2;
    /* the affine iterations start from the translation's result: far from
     * the match, six parameters fitted at once go astray */
    int ok = flow_patch_track(&a->f, &a->o, x - r, y - r, 0, 1, a->f.channels, &u, &v);
    if (ok && a->o.affine)
        flow_patch_track_affine(&a->f, &a->o, x - r, y - r, &u, &v);
    if (!ok && a->mark)
        u = v = a->unknown;
    FLOW_PX(a->w.u, x, y) = u;
    FLOW_PX(a->w.v, x, y) = v;
}

/* Dense inverse search, step 1: patch (i, j) of the grid, its top-left
 * pixel at (i, j) * stride, tracked from the dense flow w at its centre;
 * its displacement goes to (p.u, p.v)(i, j).  The lanes of a group (a warp
 * on the GPU) run one patch together: a thread per patch would run its
 * iterations in a row, with a few hundred threads on the GPU at the coarse
 * levels. */
typedef struct flow_dis_search_args {
    flow_patch_frames f;
    flow_patch_opts o;
    flow_pair p; /* out: one displacement per patch */
    flow_pair w; /* the dense flow to start from */
    int stride;
} flow_dis_search_args;

FLOW_HD void flow_dis_search_point(const flow_dis_search_args *a, int i, int j, int lane,
                                   int lanes, int nc)
{
    const int x0 = i * a->stride, y0 = j * a->stride, r = a->o.size / 2;
    const int cx = flow_clampi(x0 + r, 0, a->w.u.width - 1);
    const int cy = flow_clampi(y0 + r, 0, a->w.u.height - 1);
    float u = FLOW_PX(a->w.u, cx, cy), v = FLOW_PX(a->w.v, cx, cy);
    flow_patch_track(&a->f, &a->o, x0, y0, lane, lanes, nc, &u, &v);
    if (lane == 0) {
        FLOW_PX(a->p.u, i, j) = u;
        FLOW_PX(a->p.v, i, j) = v;
    }
}

FLOW_HD void flow_dis_search_px(const flow_dis_search_args *a, int i, int j)
{
    flow_dis_search_point(a, i, j, 0, 1, a->f.channels);
}

/* The patches of a grid (side s, stride t, n of them along an axis) that
 * cover pixel x: indices lo..hi; past the last patch, the last one. */
FLOW_HD void flow_dis_cover(int x, int s, int t, int n, int *lo, int *hi)
{
    const int l = x - s + 1 > 0 ? (x - s + 1 + t - 1) / t : 0;
    const int h = x / t < n - 1 ? x / t : n - 1;
    *lo = l <= h ? l : h;
    *hi = h;
}

/* Step 2, densification: the flow at a pixel is the mean of the
 * displacements of the patches covering it, each weighted by
 * 1 / max(1, |f2(x + d) - f1(x)|) (the mean absolute difference over the
 * channels), so that a patch that does not fit this pixel counts little. */
typedef struct flow_dis_densify_args {
    flow_pair w;  /* out: the dense flow */
    flow_pair p;  /* the patches' displacements */
    flow_plane f1[3], f2[3];
    int channels, size, stride;
} flow_dis_densify_args;

FLOW_HD void flow_dis_densify_px(const flow_dis_densify_args *a, int x, int y)
{
    int i0, i1, j0, j1;
    flow_dis_cover(x, a->size, a->stride, a->p.u.width, &i0, &i1);
    flow_dis_cover(y, a->size, a->stride, a->p.u.height, &j0, &j1);
    float su = 0.0f, sv = 0.0f, sw = 0.0f;
    for (int j = j0; j <= j1; j++)
        for (int i = i0; i <= i1; i++) {
            const float u = FLOW_PX(a->p.u, i, j), v = FLOW_PX(a->p.v, i, j);
            float e = 0.0f;
            for (int c = 0; c < a->channels; c++)
                e += fabsf(flow_bilinear_at(&a->f2[c], (float)x + u, (float)y + v)
                           - FLOW_PX(a->f1[c], x, y));
            e /= (float)a->channels;
            const float wt = 1.0f / (e > 1.0f ? e : 1.0f);
            su += wt * u, sv += wt * v, sw += wt;
        }
    FLOW_PX(a->w.u, x, y) = su / sw;
    FLOW_PX(a->w.v, x, y) = sv / sw;
}

#endif
