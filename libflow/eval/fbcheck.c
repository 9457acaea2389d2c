/* fbcheck.c -- the forward-backward validity check (contract in
 * flow/field.h): a forward vector is kept when the backward flow, sampled
 * bilinearly where the vector ends, points back to where it started (the
 * test itself is pixel/occlusion.h's, the home of every occlusion test).
 * Host C on host fields, so it serves every method and every backend; rows run
 * in parallel on a thread pool of the call (base/pool.h), each pixel reads
 * the backward field only. */
#include "flow/field.h"
#include "base/fail.h"
#include "base/pool.h"
#include "pixel/occlusion.h"

#include <math.h>
#include <stdatomic.h>
#include <stddef.h>

_Static_assert(FLOW_FB_VERDICT_KEPT == FLOW_FB_KEPT && FLOW_FB_VERDICT_UNKNOWN_FWD == FLOW_FB_UNKNOWN_FWD
                   && FLOW_FB_VERDICT_OUTSIDE == FLOW_FB_OUTSIDE
                   && FLOW_FB_VERDICT_UNKNOWN_BWD == FLOW_FB_UNKNOWN_BWD
                   && FLOW_FB_VERDICT_INCONSISTENT == FLOW_FB_INCONSISTENT,
               "the public verdicts are pixel/occlusion.h's");

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

/* A host field as the planes of the per-pixel test (rows of `width`). */
static flow_pair field_pair(const flow_field *f)
{
    const flow_pair p = {{f->u, f->width, f->height, f->width},
                         {f->v, f->width, f->height, f->width}};
    return p;
}

/* Pixels per chunk of rows: enough checking that starting and joining a
 * thread costs little beside it (docs/flow-compute.md has the measured
 * cost per pixel). */
#define FB_GRAIN 16384

typedef struct fb_loop {
    flow_field *fwd;
    flow_fb_args a;
    atomic_long count[FLOW_FB_VERDICTS]; /* pixels of each verdict */
} fb_loop;

static void check_rows(void *ctx, int chunk, int y0, int y1)
{
    fb_loop *l = ctx;
    flow_field *fwd = l->fwd;
    const int w = fwd->width;
    long count[FLOW_FB_VERDICTS] = {0};
    for (int y = y0; y < y1; y++) {
        for (int x = 0; x < w; x++) {
            const size_t i = (size_t)y * w + x;
            const int s = flow_fb_verdict_at(&l->a, x, y);
            count[s]++;
            if (s != FLOW_FB_KEPT && s != FLOW_FB_UNKNOWN_FWD)
                fwd->u[i] = fwd->v[i] = FLOW_UNKNOWN;
        }
    }
    for (int k = 0; k < FLOW_FB_VERDICTS; k++)
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
    fb_loop l = {.fwd = fwd,
                 .a = {.fwd = field_pair(fwd), .bwd = field_pair(bwd),
                       .a = 0, .b = threshold * threshold, .unknown = FLOW_UNKNOWN_THRESHOLD}};
    for (int k = 0; k < FLOW_FB_VERDICTS; k++)
        atomic_init(&l.count[k], 0);
    flow_pool_for(pool, h, chunks, check_rows, &l);
    flow_pool_destroy(pool);
    if (out) {
        out->total = (long)w * h;
        out->kept = atomic_load(&l.count[FLOW_FB_KEPT]);
        out->unknown_fwd = atomic_load(&l.count[FLOW_FB_UNKNOWN_FWD]);
        out->outside = atomic_load(&l.count[FLOW_FB_OUTSIDE]);
        out->unknown_bwd = atomic_load(&l.count[FLOW_FB_UNKNOWN_BWD]);
        out->inconsistent = atomic_load(&l.count[FLOW_FB_INCONSISTENT]);
        out->density = (double)out->kept / ((double)w * h);
    }
    return FLOW_OK;
}

flow_status flow_fb_apply(flow_field *fwd, const float *verdict, flow_fb_stats *out)
{
    if (!fwd || !fwd->u || !fwd->v || !verdict || fwd->width < 1 || fwd->height < 1)
        return flow_fail(FLOW_ERR_INVALID, "flow_fb_apply: missing field or verdicts");
    const size_t n = (size_t)fwd->width * fwd->height;
    for (size_t i = 0; i < n; i++)
        if (!(verdict[i] >= 0 && verdict[i] < FLOW_FB_VERDICTS && verdict[i] == (int)verdict[i]))
            return flow_fail(FLOW_ERR_INVALID, "flow_fb_apply: %g at pixel (%zu, %zu) is no "
                                               "verdict (0 .. %d)",
                             (double)verdict[i], i % fwd->width, i / fwd->width,
                             FLOW_FB_VERDICTS - 1);
    long count[FLOW_FB_VERDICTS] = {0};
    for (size_t i = 0; i < n; i++) {
        const int s = (int)verdict[i];
        count[s]++;
        if (s != FLOW_FB_KEPT && s != FLOW_FB_UNKNOWN_FWD)
            fwd->u[i] = fwd->v[i] = FLOW_UNKNOWN;
    }
    if (out) {
        out->total = (long)n;
        out->kept = count[FLOW_FB_KEPT];
        out->unknown_fwd = count[FLOW_FB_UNKNOWN_FWD];
        out->outside = count[FLOW_FB_OUTSIDE];
        out->unknown_bwd = count[FLOW_FB_UNKNOWN_BWD];
        out->inconsistent = count[FLOW_FB_INCONSISTENT];
        out->density = (double)out->kept / (double)n;
    }
    return FLOW_OK;
}
