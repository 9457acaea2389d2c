/* fbcheck.c -- the forward-backward validity check (contract in
 * flow/field.h): a forward vector is kept when the backward flow, sampled
 * bilinearly where the vector ends, points back to where it started.  Host
 * C on host fields, so it serves every method and every backend; rows run
 * in parallel on a thread pool of the call (base/pool.h), each pixel reads
 * the backward field only. */
#include "flow/field.h"
#include "base/fail.h"
#include "base/pool.h"

#include <math.h>
#include <stdatomic.h>
#include <stddef.h>

/* Why a forward vector was not kept (or that it was). */
typedef enum {
    FB_KEPT,
    FB_UNKNOWN_FWD,
    FB_OUTSIDE,
    FB_UNKNOWN_BWD,
    FB_INCONSISTENT,
    FB_VERDICTS
} fb_verdict;

/* b at the point (qx, qy) of the frame, bilinearly; 0 when the point lies
 * outside the frame (FB_OUTSIDE) or a sample of nonzero weight is unknown
 * (FB_UNKNOWN_BWD).  Samples of weight zero are not read: a point on the
 * last row or column, or on a pixel exactly, needs no neighbour beyond. */
static fb_verdict sample(const flow_field *b, double qx, double qy, double *bu, double *bv)
{
    const int w = b->width, h = b->height;
    if (!(qx >= 0 && qx <= w - 1 && qy >= 0 && qy <= h - 1))
        return FB_OUTSIDE;
    const int x0 = (int)qx, y0 = (int)qy; /* floor: both are >= 0 */
    const double fx = qx - x0, fy = qy - y0;
    const size_t i00 = (size_t)y0 * w + x0;
    const size_t at[4] = {i00, i00 + 1, i00 + w, i00 + w + 1};
    const double weight[4] = {(1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy};
    double su = 0, sv = 0;
    for (int k = 0; k < 4; k++) {
        if (weight[k] == 0)
            continue;
        const float u = b->u[at[k]], v = b->v[at[k]];
        if (flow_is_unknown(u, v))
            return FB_UNKNOWN_BWD;
        su += weight[k] * u;
        sv += weight[k] * v;
    }
    *bu = su;
    *bv = sv;
    return FB_KEPT;
}

/* The verdict on the forward vector (u, v) at pixel (x, y). */
static fb_verdict judge(const flow_field *b, int x, int y, float u, float v, double t2)
{
    if (flow_is_unknown(u, v))
        return FB_UNKNOWN_FWD;
    double bu = 0, bv = 0;
    const fb_verdict s = sample(b, x + (double)u, y + (double)v, &bu, &bv);
    if (s != FB_KEPT)
        return s;
    const double du = u + bu, dv = v + bv;
    return du * du + dv * dv <= t2 ? FB_KEPT : FB_INCONSISTENT;
}

static flow_status check_args(const flow_field *fwd, const flow_field *bwd, double threshold)
{
    if (!fwd || !bwd || !fwd->u || !fwd->v || !bwd->u || !bwd->v)
        return flow_fail(FLOW_ERR_INVALID, "flow_fb_check: missing forward or backward field");
    if (fwd->width != bwd->width || fwd->height != bwd->height)
        return flow_fail(FLOW_ERR_SIZE,
                         "forward flow is %dx%d but the backward flow is %dx%d: sizes must match",
                         fwd->width, fwd->height, bwd->width, bwd->height);
    if (fwd->width < 1 || fwd->height < 1)
        return flow_fail(FLOW_ERR_SIZE, "flow_fb_check: empty field (%dx%d)", fwd->width,
                         fwd->height);
    if (fwd->u == bwd->u || fwd->v == bwd->v || fwd->u == bwd->v || fwd->v == bwd->u)
        return flow_fail(FLOW_ERR_INVALID,
                         "flow_fb_check: the forward and backward fields share memory (the "
                         "forward one is overwritten while the backward one is read)");
    if (!(isfinite(threshold) && threshold > 0))
        return flow_fail(FLOW_ERR_INVALID,
                         "forward-backward threshold %g px: expected a finite number > 0",
                         threshold);
    return FLOW_OK;
}

/* Pixels per chunk of rows: enough checking that starting and joining a
 * thread costs little beside it (docs/flow-compute.md has the measured
 * cost per pixel). */
#define FB_GRAIN 16384

typedef struct fb_loop {
    flow_field *fwd;
    const flow_field *bwd;
    double t2;
    atomic_long count[FB_VERDICTS]; /* pixels of each verdict */
} fb_loop;

static void check_rows(void *ctx, int chunk, int y0, int y1)
{
    fb_loop *l = ctx;
    flow_field *fwd = l->fwd;
    const int w = fwd->width;
    long count[FB_VERDICTS] = {0};
    for (int y = y0; y < y1; y++) {
        for (int x = 0; x < w; x++) {
            const size_t i = (size_t)y * w + x;
            const fb_verdict s = judge(l->bwd, x, y, fwd->u[i], fwd->v[i], l->t2);
            count[s]++;
            if (s != FB_KEPT && s != FB_UNKNOWN_FWD)
                fwd->u[i] = fwd->v[i] = FLOW_UNKNOWN;
        }
    }
    for (int k = 0; k < FB_VERDICTS; k++)
        atomic_fetch_add_explicit(&l->count[k], count[k], memory_order_relaxed);
}

flow_status flow_fb_check(flow_field *fwd, const flow_field *bwd, double threshold,
                          flow_fb_stats *out)
{
    FLOW_TRY(check_args(fwd, bwd, threshold));
    const int w = fwd->width, h = fwd->height;
    int threads;
    FLOW_TRY(flow_pool_default_threads(&threads));
    const int chunks = flow_pool_chunks((long)w * h, h, FB_GRAIN);
    flow_pool *pool;
    FLOW_TRY(flow_pool_create(chunks < threads ? chunks : threads, &pool));
    /* compare squares: no sqrt per pixel */
    fb_loop l = {.fwd = fwd, .bwd = bwd, .t2 = threshold * threshold};
    for (int k = 0; k < FB_VERDICTS; k++)
        atomic_init(&l.count[k], 0);
    flow_pool_for(pool, h, chunks, check_rows, &l);
    flow_pool_destroy(pool);
    if (out) {
        out->total = (long)w * h;
        out->kept = atomic_load(&l.count[FB_KEPT]);
        out->unknown_fwd = atomic_load(&l.count[FB_UNKNOWN_FWD]);
        out->outside = atomic_load(&l.count[FB_OUTSIDE]);
        out->unknown_bwd = atomic_load(&l.count[FB_UNKNOWN_BWD]);
        out->inconsistent = atomic_load(&l.count[FB_INCONSISTENT]);
        out->density = (double)out->kept / ((double)w * h);
    }
    return FLOW_OK;
}
