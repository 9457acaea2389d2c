/* klt.h -- KLT feature tracking at one pixel, one cell or one point: the
 * corner response, the selection of good features to track (Shi, Tomasi,
 * CVPR 1994) with a minimum distance between them, and pyramidal
 * Lucas-Kanade tracking of a point set (Bouguet 2000; seed 003, Graves
 * 2016, ch. 2).
 *
 * Point sets.  The features live in one plane P of `capacity` columns, one
 * column per slot and one row per attribute (FLOW_KLT_*), so that one
 * transfer moves the whole set.  A slot is empty, holds a feature that was
 * tracked into the last frame, one lost in it (kept there for its row, with
 * its last position), and independently a feature born in the last frame
 * (rows NX, NY, BORN), which the next tracking step takes over.
 *
 * Selection, in parallel and deterministic, as one pass over cells of side
 * c <= min_distance / sqrt 2 (two pixels of a cell are always too close):
 *   1. the response R of each pixel (klt_response);
 *   2. each cell's strongest 3x3 local maximum of R (klt_cells);
 *   3. candidates within min_distance of a tracked feature dropped
 *      (klt_suppress);
 *   4. the candidates of at least quality x the best response thinned by
 *      rounds of klt_mis: a candidate is selected when no stronger
 *      undecided candidate is too close, rejected when a selected one is:
 *      the greedy choice of the strongest first, computed in parallel;
 *   5. the selected sorted, strongest first (the device's sort), and the
 *      r-th free slot given the r-th (klt_free_count, klt_spawn). */
#ifndef FLOW_PIXEL_KLT_H
#define FLOW_PIXEL_KLT_H

#include "patch.h"
#include "qualifier.h"
#include "transfer.h"

#include <math.h>

#define FLOW_KLT_LEVELS_MAX 8

/* The rows of the point plane. */
enum {
    FLOW_KLT_X,     /* position in the last frame */
    FLOW_KLT_Y,
    FLOW_KLT_STATE, /* FLOW_KLT_EMPTY, _TRACKED or a loss (>= FLOW_KLT_LOST_TEXTURE) */
    FLOW_KLT_ERR,   /* the residual of the last tracking step */
    FLOW_KLT_NX,    /* a feature born in the last frame */
    FLOW_KLT_NY,
    FLOW_KLT_BORN,  /* 1 when NX, NY hold one */
    FLOW_KLT_ROWS
};

/* States (floats in the STATE row); a loss says why. */
#define FLOW_KLT_EMPTY 0.0f
#define FLOW_KLT_TRACKED 1.0f
#define FLOW_KLT_LOST_TEXTURE 2.0f /* the window has too little texture */
#define FLOW_KLT_LOST_OUTSIDE 3.0f /* left the frame */
#define FLOW_KLT_LOST_RESIDUAL 4.0f
#define FLOW_KLT_LOST_FB 5.0f      /* tracking back lands too far away */

/* Candidate states during selection. */
#define FLOW_KLT_NONE 0.0f
#define FLOW_KLT_UNDECIDED 1.0f
#define FLOW_KLT_SELECTED 2.0f
#define FLOW_KLT_REJECTED 3.0f

/* Slots per count of free slots in klt_free_count. */
#define FLOW_KLT_CHUNK 256

/* ---- selection ------------------------------------------------------------ */

/* R = the smaller eigenvalue of the structure tensor of (gx, gy) averaged
 * over the (2 b + 1)^2 block around the pixel, or with harris the Harris
 * response det - k trace^2 of the same tensor; 0 where negative and within
 * `margin` pixels of the border (a feature's first window must fit). */
typedef struct flow_klt_response_args {
    flow_plane R, gx, gy;
    int b, margin, harris;
    float k;
} flow_klt_response_args;

FLOW_HD void flow_klt_response_px(const flow_klt_response_args *a, int x, int y)
{
    const int w = a->R.width, h = a->R.height, m = a->margin;
    float r = 0.0f;
    if (x >= m && y >= m && x < w - m && y < h - m) {
        float t11 = 0.0f, t12 = 0.0f, t22 = 0.0f;
        for (int j = -a->b; j <= a->b; j++)
            for (int i = -a->b; i <= a->b; i++) {
                const float gx = flow_at(&a->gx, x + i, y + j), gy = flow_at(&a->gy, x + i, y + j);
                t11 += gx * gx, t12 += gx * gy, t22 += gy * gy;
            }
        const float n = (float)((2 * a->b + 1) * (2 * a->b + 1));
        t11 /= n, t12 /= n, t22 /= n;
        r = a->harris ? t11 * t22 - t12 * t12 - a->k * (t11 + t22) * (t11 + t22)
                      : flow_eig_min2(t11, t12, t22);
    }
    FLOW_PX(a->R, x, y) = r > 0.0f ? r : 0.0f;
}

/* Whether R(x, y) is a 3x3 local maximum: above every neighbour, or equal
 * to one that comes later in raster order (of a plateau, the first pixel). */
FLOW_HD int flow_klt_local_max(const flow_plane *R, int x, int y)
{
    const float r = FLOW_PX(*R, x, y);
    for (int j = -1; j <= 1; j++)
        for (int i = -1; i <= 1; i++) {
            const int qx = x + i, qy = y + j;
            if ((i == 0 && j == 0) || qx < 0 || qy < 0 || qx >= R->width || qy >= R->height)
                continue;
            const float q = FLOW_PX(*R, qx, qy);
            if (q > r || (q == r && (j < 0 || (j == 0 && i < 0))))
                return 0;
        }
    return 1;
}

/* Cell (i, j) of side c: its strongest local maximum of R (the first of
 * equals) into cv, cx, cy; cv 0 when it has none. */
typedef struct flow_klt_cells_args {
    flow_plane cv, cx, cy, R;
    int c;
} flow_klt_cells_args;

FLOW_HD void flow_klt_cells_px(const flow_klt_cells_args *a, int i, int j)
{
    float best = 0.0f;
    int bx = 0, by = 0;
    for (int y = j * a->c; y < (j + 1) * a->c && y < a->R.height; y++)
        for (int x = i * a->c; x < (i + 1) * a->c && x < a->R.width; x++) {
            const float r = FLOW_PX(a->R, x, y);
            if (r > best && flow_klt_local_max(&a->R, x, y))
                best = r, bx = x, by = y;
        }
    FLOW_PX(a->cv, i, j) = best;
    FLOW_PX(a->cx, i, j) = (float)bx;
    FLOW_PX(a->cy, i, j) = (float)by;
}

/* Slot i's tracked feature drops the candidates closer than min_distance
 * (d2 its square) from the cells within `reach` cells of its own.  Slots
 * write only zeros: on the GPU two slots may clear one cell, harmlessly;
 * the CPU runs the slots in order (a grid of one row). */
typedef struct flow_klt_suppress_args {
    flow_plane P, cv, cx, cy;
    int n, c, reach;
    float d2;
} flow_klt_suppress_args;

FLOW_HD void flow_klt_suppress_px(const flow_klt_suppress_args *a, int i, int y0)
{
    (void)y0;
    if (FLOW_PX(a->P, i, FLOW_KLT_STATE) != FLOW_KLT_TRACKED)
        return;
    const float x = FLOW_PX(a->P, i, FLOW_KLT_X), y = FLOW_PX(a->P, i, FLOW_KLT_Y);
    const int ci = (int)floorf(x / (float)a->c), cj = (int)floorf(y / (float)a->c);
    for (int j = cj - a->reach; j <= cj + a->reach; j++)
        for (int k = ci - a->reach; k <= ci + a->reach; k++) {
            if (k < 0 || j < 0 || k >= a->cv.width || j >= a->cv.height
                || !(FLOW_PX(a->cv, k, j) > 0.0f))
                continue;
            const float dx = FLOW_PX(a->cx, k, j) - x, dy = FLOW_PX(a->cy, k, j) - y;
            if (dx * dx + dy * dy < a->d2)
                FLOW_PX(a->cv, k, j) = 0.0f;
        }
}

/* One round of the thinning.  With `first` the states come from the
 * candidates themselves (undecided when cv >= quality x best, else none);
 * otherwise from s_in.  With `last` the selected candidates' responses go
 * to keys (cell (i, j) at i + j * width, 0 for the others), which the sort
 * orders. */
typedef struct flow_klt_mis_args {
    flow_plane cv, cx, cy, best, s_in, s_out, keys;
    int reach, first, last;
    float d2, quality;
} flow_klt_mis_args;

FLOW_HD float flow_klt_mis_state(const flow_klt_mis_args *a, int i, int j)
{
    if (!a->first)
        return FLOW_PX(a->s_in, i, j);
    const float v = FLOW_PX(a->cv, i, j);
    return v > 0.0f && v >= a->quality * FLOW_PX(a->best, 0, 0) ? FLOW_KLT_UNDECIDED
                                                                : FLOW_KLT_NONE;
}

FLOW_HD void flow_klt_mis_px(const flow_klt_mis_args *a, int i, int j)
{
    const int w = a->cv.width, h = a->cv.height;
    float s = flow_klt_mis_state(a, i, j);
    if (s == FLOW_KLT_UNDECIDED) {
        const float v = FLOW_PX(a->cv, i, j), x = FLOW_PX(a->cx, i, j), y = FLOW_PX(a->cy, i, j);
        int rejected = 0, waits = 0;
        for (int l = j - a->reach; l <= j + a->reach && !rejected; l++)
            for (int k = i - a->reach; k <= i + a->reach; k++) {
                if (k < 0 || l < 0 || k >= w || l >= h || (k == i && l == j))
                    continue;
                const float q = flow_klt_mis_state(a, k, l);
                if (q != FLOW_KLT_UNDECIDED && q != FLOW_KLT_SELECTED)
                    continue;
                const float dx = FLOW_PX(a->cx, k, l) - x, dy = FLOW_PX(a->cy, k, l) - y;
                if (!(dx * dx + dy * dy < a->d2))
                    continue;
                if (q == FLOW_KLT_SELECTED) {
                    rejected = 1;
                    break;
                }
                const float qv = FLOW_PX(a->cv, k, l);
                if (qv > v || (qv == v && (l < j || (l == j && k < i))))
                    waits = 1;
            }
        s = rejected ? FLOW_KLT_REJECTED : waits ? FLOW_KLT_UNDECIDED : FLOW_KLT_SELECTED;
    }
    FLOW_PX(a->s_out, i, j) = s;
    if (a->last)
        a->keys.data[i + j * w] = s == FLOW_KLT_SELECTED ? FLOW_PX(a->cv, i, j) : 0.0f;
}

/* The free slots (not holding a tracked feature) of each chunk of
 * FLOW_KLT_CHUNK slots, counted into counts(chunk, 0). */
typedef struct flow_klt_free_count_args {
    flow_plane P, counts;
    int n;
} flow_klt_free_count_args;

FLOW_HD void flow_klt_free_count_px(const flow_klt_free_count_args *a, int chunk, int y0)
{
    (void)y0;
    int free = 0;
    for (int i = chunk * FLOW_KLT_CHUNK; i < (chunk + 1) * FLOW_KLT_CHUNK && i < a->n; i++)
        free += FLOW_PX(a->P, i, FLOW_KLT_STATE) != FLOW_KLT_TRACKED;
    FLOW_PX(a->counts, chunk, 0) = (float)free;
}

/* The r-th free slot gets the r-th candidate of the sorted list (keys
 * skeys, cell indices sidx, strongest first) if it has a response; every
 * other slot no new feature. */
typedef struct flow_klt_spawn_args {
    flow_plane P, counts, skeys, sidx, cx, cy;
    int n;
} flow_klt_spawn_args;

FLOW_HD void flow_klt_spawn_px(const flow_klt_spawn_args *a, int i, int y0)
{
    (void)y0;
    float born = 0.0f;
    if (FLOW_PX(a->P, i, FLOW_KLT_STATE) != FLOW_KLT_TRACKED) {
        const int chunk = i / FLOW_KLT_CHUNK;
        long r = 0;
        for (int c = 0; c < chunk; c++)
            r += (long)FLOW_PX(a->counts, c, 0);
        for (int k = chunk * FLOW_KLT_CHUNK; k < i; k++)
            r += FLOW_PX(a->P, k, FLOW_KLT_STATE) != FLOW_KLT_TRACKED;
        if (r < a->skeys.width && a->skeys.data[r] > 0.0f) {
            const long cell = (long)a->sidx.data[r];
            const int cw = a->cx.width;
            FLOW_PX(a->P, i, FLOW_KLT_NX) = FLOW_PX(a->cx, cell % cw, cell / cw);
            FLOW_PX(a->P, i, FLOW_KLT_NY) = FLOW_PX(a->cy, cell % cw, cell / cw);
            born = 1.0f;
        }
    }
    FLOW_PX(a->P, i, FLOW_KLT_BORN) = born;
}

/* ---- tracking ------------------------------------------------------------- */

/* One frame's pyramid as tracking reads it: the levels and the gradient of
 * each (level L is ceil(w / 2^L) wide; its pixel x sits on pixel 2^L x of
 * the frame). */
typedef struct flow_klt_pyramid {
    flow_plane f[FLOW_KLT_LEVELS_MAX], gx[FLOW_KLT_LEVELS_MAX], gy[FLOW_KLT_LEVELS_MAX];
} flow_klt_pyramid;

typedef struct flow_klt_track_args {
    flow_klt_pyramid prev, next;
    flow_plane P;
    int n, levels, r, iterations, affine;
    float eps2, min_eigen, max_error, fb;
} flow_klt_track_args;

/* The finest level once more with an affine window (Shi, Tomasi 1994):
 * offsets r of the window go to (x, y) + A r + t, the inverse-compositional
 * iterations of flow_patch_track_affine (pixel/patch.h) from the
 * translation (*u, *v) = t, which becomes the new t.  A rotating or zooming
 * window deforms; the translation fits the deformed window at its strongest
 * texture rather than at its centre, a bias of a few hundredths of a pixel
 * a frame that tracking accumulates.  The translation stays where the six
 * parameters are not determined or move it by more than a pixel. */
FLOW_HD void flow_klt_affine(const flow_klt_track_args *a, const flow_klt_pyramid *T,
                             const flow_klt_pyramid *I, float x, float y, int lane, int lanes,
                             float *u, float *v)
{
    const int side = 2 * a->r + 1, n = side * side;
    float H[6][6], L[6][6];
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++)
            H[i][j] = 0.0f;
    for (int k = lane; k < n; k += lanes) {
        const float ox = (float)(k % side - a->r), oy = (float)(k / side - a->r);
        if (!flow_inside(&T->f[0], x + ox, y + oy))
            continue;
        const float gx = flow_bilinear_at(&T->gx[0], x + ox, y + oy);
        const float gy = flow_bilinear_at(&T->gy[0], x + ox, y + oy);
        const float sd[6] = { gx, gy, ox * gx, oy * gx, ox * gy, oy * gy };
        for (int i = 0; i < 6; i++)
            for (int j = 0; j <= i; j++)
                H[i][j] += sd[i] * sd[j];
    }
    for (int i = 0; i < 6; i++)
        for (int j = 0; j <= i; j++)
            H[i][j] = flow_lanes_sum(H[i][j], lanes);
    float probe[6] = { 0, 0, 0, 0, 0, 0 };
    flow_sym6_fill(L, H);
    if (!flow_cholesky6(L, probe))
        return;
    flow_affine w = { 1.0f, 0.0f, 0.0f, 1.0f, *u, *v };
    for (int it = 0; it < a->iterations; it++) {
        float b[6] = { 0, 0, 0, 0, 0, 0 };
        for (int k = lane; k < n; k += lanes) {
            const float ox = (float)(k % side - a->r), oy = (float)(k / side - a->r);
            const float qx = x + w.a11 * ox + w.a12 * oy + w.tx;
            const float qy = y + w.a21 * ox + w.a22 * oy + w.ty;
            if (!flow_inside(&T->f[0], x + ox, y + oy) || !flow_inside(&I->f[0], qx, qy))
                continue;
            const float gx = flow_bilinear_at(&T->gx[0], x + ox, y + oy);
            const float gy = flow_bilinear_at(&T->gy[0], x + ox, y + oy);
            const float e = flow_bilinear_at(&I->f[0], qx, qy)
                            - flow_bilinear_at(&T->f[0], x + ox, y + oy);
            b[0] += gx * e, b[1] += gy * e;
            b[2] += ox * gx * e, b[3] += oy * gx * e, b[4] += ox * gy * e, b[5] += oy * gy * e;
        }
        for (int i = 0; i < 6; i++)
            b[i] = flow_lanes_sum(b[i], lanes);
        flow_sym6_fill(L, H);
        if (!flow_cholesky6(L, b) || !flow_affine_compose_inverse(&w, b))
            break;
        if (b[0] * b[0] + b[1] * b[1] < a->eps2)
            break;
    }
    if ((w.tx - *u) * (w.tx - *u) + (w.ty - *v) * (w.ty - *v) <= 1.0f)
        *u = w.tx, *v = w.ty;
}

/* Follows the window of side 2r + 1 around (x, y) of T's frame into I's
 * frame from the coarsest level to the finest: at level L the point is
 * (x, y) / 2^L and the guess g the coarser levels' result; Gauss-Newton
 * steps D = -G^-1 sum e grad T, e = I(p + g + d + w) - T(p + w), G =
 * sum grad T grad T^T (T's gradient, bilinear between pixels), until a
 * step is shorter than eps.  Window pixels outside either frame are left
 * out of the sums (a clamped border would pull the match towards it).
 * With `affine` the finest level is refined by flow_klt_affine.  Returns
 * the displacement in *u, *v and 0, or FLOW_KLT_LOST_TEXTURE when the
 * finest window's smallest eigenvalue per pixel is below min_eigen (a
 * coarser level with too little texture passes its guess on).
 * lane / lanes: the window's pixels this caller sums. */
FLOW_HD float flow_klt_follow(const flow_klt_track_args *a, const flow_klt_pyramid *T,
                              const flow_klt_pyramid *I, float x, float y, int lane, int lanes,
                              float *u, float *v)
{
    const int side = 2 * a->r + 1, n = side * side;
    float gu = 0.0f, gv = 0.0f;
    for (int L = a->levels - 1; L >= 0; L--) {
        const float s = 1.0f / (float)(1 << L), px = x * s, py = y * s;
        float g11 = 0.0f, g12 = 0.0f, g22 = 0.0f, count = 0.0f;
        for (int k = lane; k < n; k += lanes) {
            const float wx = px + (float)(k % side - a->r), wy = py + (float)(k / side - a->r);
            if (!flow_inside(&T->f[L], wx, wy))
                continue;
            const float gx = flow_bilinear_at(&T->gx[L], wx, wy);
            const float gy = flow_bilinear_at(&T->gy[L], wx, wy);
            g11 += gx * gx, g12 += gx * gy, g22 += gy * gy, count += 1.0f;
        }
        g11 = flow_lanes_sum(g11, lanes), g12 = flow_lanes_sum(g12, lanes), g22 = flow_lanes_sum(g22, lanes);
        count = flow_lanes_sum(count, lanes);
        float du = 0.0f, dv = 0.0f;
        if (count > 0.0f && flow_eig_min2(g11, g12, g22) / count >= a->min_eigen
            && g11 * g22 - g12 * g12 > 0.0f) {
            for (int it = 0; it < a->iterations; it++) {
                float h11 = 0.0f, h12 = 0.0f, h22 = 0.0f, bx = 0.0f, by = 0.0f;
                for (int k = lane; k < n; k += lanes) {
                    const float wx = px + (float)(k % side - a->r);
                    const float wy = py + (float)(k / side - a->r);
                    const float qx = wx + gu + du, qy = wy + gv + dv;
                    if (!flow_inside(&T->f[L], wx, wy) || !flow_inside(&I->f[L], qx, qy))
                        continue;
                    const float gx = flow_bilinear_at(&T->gx[L], wx, wy);
                    const float gy = flow_bilinear_at(&T->gy[L], wx, wy);
                    const float e = flow_bilinear_at(&I->f[L], qx, qy) - flow_bilinear_at(&T->f[L], wx, wy);
                    h11 += gx * gx, h12 += gx * gy, h22 += gy * gy;
                    bx += e * gx, by += e * gy;
                }
                h11 = flow_lanes_sum(h11, lanes), h12 = flow_lanes_sum(h12, lanes);
                h22 = flow_lanes_sum(h22, lanes);
                bx = flow_lanes_sum(bx, lanes), by = flow_lanes_sum(by, lanes);
                const float det = h11 * h22 - h12 * h12;
                if (!(det > 0.0f))
                    break;
                const float su = -(h22 * bx - h12 * by) / det, sv = -(h11 * by - h12 * bx) / det;
                du += su, dv += sv;
                if (su * su + sv * sv < a->eps2)
                    break;
            }
        } else if (L == 0) {
            return FLOW_KLT_LOST_TEXTURE;
        }
        gu += du, gv += dv;
        if (L > 0)
            gu *= 2.0f, gv *= 2.0f;
    }
    if (a->affine)
        flow_klt_affine(a, T, I, x, y, lane, lanes, &gu, &gv);
    *u = gu, *v = gv;
    return 0.0f;
}

/* The mean absolute difference between the window around (x, y) of frame
 * T and the window around (x + u, y + v) of frame I (finest levels). */
FLOW_HD float flow_klt_residual(const flow_klt_track_args *a, const flow_klt_pyramid *T,
                                const flow_klt_pyramid *I, float x, float y, float u, float v,
                                int lane, int lanes)
{
    const int side = 2 * a->r + 1, n = side * side;
    float sum = 0.0f;
    for (int k = lane; k < n; k += lanes) {
        const float wx = x + (float)(k % side - a->r), wy = y + (float)(k / side - a->r);
        sum += fabsf(flow_bilinear_at(&I->f[0], wx + u, wy + v) - flow_bilinear_at(&T->f[0], wx, wy));
    }
    return flow_lanes_sum(sum, lanes) / (float)n;
}

/* Slot i tracked from the previous frame into the next: a feature tracked
 * into the previous frame or born in it is followed; its new state is
 * tracked or the reason of its loss, with its position (the last known
 * when lost) and residual.  The lanes of a group run one slot together:
 * every branch depends on sums they share, so they stay together. */
FLOW_HD void flow_klt_track_point(const flow_klt_track_args *a, int i, int lane, int lanes)
{
    flow_plane P = a->P;
    const int born = FLOW_PX(P, i, FLOW_KLT_BORN) != 0.0f;
    const int alive = born || FLOW_PX(P, i, FLOW_KLT_STATE) == FLOW_KLT_TRACKED;
    if (!alive) {
        if (lane == 0)
            FLOW_PX(P, i, FLOW_KLT_STATE) = FLOW_KLT_EMPTY;
        return;
    }
    const float x = FLOW_PX(P, i, born ? FLOW_KLT_NX : FLOW_KLT_X);
    const float y = FLOW_PX(P, i, born ? FLOW_KLT_NY : FLOW_KLT_Y);
    float u = 0.0f, v = 0.0f, err = NAN;
    float state = flow_klt_follow(a, &a->prev, &a->next, x, y, lane, lanes, &u, &v);
    const int w = a->next.f[0].width, h = a->next.f[0].height;
    if (state == 0.0f && !(x + u >= 0.0f && y + v >= 0.0f && x + u <= (float)(w - 1)
                           && y + v <= (float)(h - 1)))
        state = FLOW_KLT_LOST_OUTSIDE;
    if (state == 0.0f) {
        err = flow_klt_residual(a, &a->prev, &a->next, x, y, u, v, lane, lanes);
        if (a->max_error > 0.0f && err > a->max_error)
            state = FLOW_KLT_LOST_RESIDUAL;
    }
    if (state == 0.0f && a->fb > 0.0f) {
        float bu = 0.0f, bv = 0.0f;
        const float back = flow_klt_follow(a, &a->next, &a->prev, x + u, y + v, lane, lanes, &bu, &bv);
        if (back != 0.0f || !((u + bu) * (u + bu) + (v + bv) * (v + bv) <= a->fb * a->fb))
            state = FLOW_KLT_LOST_FB;
    }
    if (lane != 0)
        return;
    const int tracked = state == 0.0f;
    FLOW_PX(P, i, FLOW_KLT_STATE) = tracked ? FLOW_KLT_TRACKED : state;
    FLOW_PX(P, i, FLOW_KLT_X) = tracked ? x + u : x;
    FLOW_PX(P, i, FLOW_KLT_Y) = tracked ? y + v : y;
    FLOW_PX(P, i, FLOW_KLT_ERR) = err;
    FLOW_PX(P, i, FLOW_KLT_BORN) = 0.0f;
}

/* The CPU runs the slots as a column (one lane each); the GPU gives each
 * slot a warp (device/cuda/points.cu). */
FLOW_HD void flow_klt_track_px(const flow_klt_track_args *a, int x0, int i)
{
    (void)x0;
    flow_klt_track_point(a, i, 0, 1);
}

#endif
