/* kernels_cpu.c -- the CPU device's operations: the list of
 * libflow/kernels/list.h expanded into loops over each operation's grid,
 * its rows cut into chunks that the device's thread pool runs, each point
 * computed by the operation's per-pixel function; the reductions and the
 * sort.  The CPU fuses no solver operation (core/fused.h composes them). */
#include "device/cpu/cpu.h"

#include "base/fail.h"

#include <stdlib.h>

void cpu_for_rows(flow_device *d, int w, int h, long grain, flow_pool_body rows, void *ctx)
{
    const flow_cpu *c = d->impl;
    flow_pool_for(c->pool, h, cpu_chunks(w, h, grain), rows, ctx);
}

int cpu_chunks(int w, int h, long grain)
{
    return flow_pool_chunks((long)w * h, h, grain);
}

flow_status cpu_scratch(flow_device *d, size_t floats, float **out)
{
    flow_cpu *c = d->impl;
    if (floats > c->scratch_floats) {
        free(c->scratch);
        c->scratch_floats = 0;
        c->scratch = malloc(floats * sizeof(float));
        if (!c->scratch)
            return flow_fail(FLOW_ERR_NOMEM, "a CPU scratch of %zu floats", floats);
        c->scratch_floats = floats;
    }
    *out = c->scratch;
    return FLOW_OK;
}

/* cpu_<stem> of a cpu PX operation: every point of the grid, the rows of
 * a chunk in cpu_rows_<stem> (ctx: the arguments, only read).  The
 * arguments are copied into a local whose address does not escape, so that
 * the compiler may keep them in registers across the stores into the
 * planes; the per-pixel function and everything it calls are inlined into
 * the loop (FLOW_CPU_FLAT), so that no helper is a call per pixel.  cpu
 * ROWS operations have loops written by hand (rows_cpu.c). */
#define FLOW_CPU_LOOP(stem, A, W, H, G, C) FLOW_CPU_LOOP_##C(stem, A, W, H, FLOW_CPU_GRAIN_##G)
#define FLOW_CPU_LOOP_ROWS(stem, A, W, H, grain)
#define FLOW_CPU_LOOP_PX(stem, A, W, H, grain)                                                  \
    FLOW_CPU_CLONES FLOW_CPU_FLAT static void cpu_rows_##stem(void *ctx, int chunk, int y0,     \
                                                              int y1)                           \
    {                                                                                            \
        const A local = *(const A *)ctx;                                                         \
        const A *a = &local;                                                                     \
        const int w = (W);                                                                       \
        for (int y = y0; y < y1; y++)                                                            \
            for (int x = 0; x < w; x++)                                                          \
                flow_##stem##_px(a, x, y);                                                       \
    }                                                                                            \
    flow_status cpu_##stem(flow_device *d, const A *a)                                           \
    {                                                                                            \
        cpu_for_rows(d, (W), (H), grain, cpu_rows_##stem, (void *)a);                            \
        return FLOW_OK;                                                                          \
    }
FLOW_KERNELS(FLOW_CPU_LOOP)

/* The sum of squares of each chunk's rows: partial sums at fixed
 * positions, added in chunk order, so that the total does not depend on
 * which thread ran which chunk, nor on how many threads there are. */
typedef struct cpu_squares {
    flow_plane q;
    double part[FLOW_POOL_MAX_CHUNKS];
} cpu_squares;

static void cpu_squares_rows(void *ctx, int chunk, int y0, int y1)
{
    cpu_squares *s = ctx;
    const flow_plane q = s->q;
    double sum = 0.0;
    for (int y = y0; y < y1; y++)
        for (int x = 0; x < q.width; x++) {
            const double v = FLOW_PX(q, x, y);
            sum += v * v;
        }
    s->part[chunk] = sum;
}

flow_status cpu_sum_squares(flow_device *d, const flow_plane *p, double *sum)
{
    const flow_cpu *c = d->impl;
    cpu_squares s;
    s.q = *p;
    const int chunks = cpu_chunks(p->width, p->height, FLOW_CPU_GRAIN);
    flow_pool_for(c->pool, p->height, chunks, cpu_squares_rows, &s);
    double total = 0.0;
    for (int k = 0; k < chunks; k++)
        total += s.part[k];
    *sum = total;
    return FLOW_OK;
}

flow_status cpu_plane_max(flow_device *d, const flow_plane *src, flow_plane *dst)
{
    (void)d;
    const flow_plane q = *src;
    float m = 0.0f;
    for (int y = 0; y < q.height; y++)
        for (int x = 0; x < q.width; x++) {
            const float v = FLOW_PX(q, x, y);
            if (v > m)
                m = v;
        }
    FLOW_PX(*dst, 0, 0) = m;
    return FLOW_OK;
}

flow_status cpu_plane_sum(flow_device *d, const flow_plane *src, flow_plane *dst)
{
    (void)d;
    const flow_plane q = *src;
    double sum = 0.0;
    for (int y = 0; y < q.height; y++)
        for (int x = 0; x < q.width; x++)
            sum += FLOW_PX(q, x, y);
    FLOW_PX(*dst, 0, 0) = (float)sum;
    return FLOW_OK;
}

typedef struct cpu_key {
    float key;
    int index;
} cpu_key;

/* Larger keys first, equal keys in index order: a total order, so qsort's
 * instability does not show. */
static int cpu_key_cmp(const void *pa, const void *pb)
{
    const cpu_key *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key > b->key ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

/* The pairs sorted live in the device's scratch, grown when n grows. */
flow_status cpu_sort_desc(flow_device *d, const flow_plane *keys, flow_plane *skeys,
                          flow_plane *sidx)
{
    flow_cpu *c = d->impl;
    const int n = keys->width;
    const size_t bytes = (size_t)(n > 0 ? n : 1) * sizeof(cpu_key);
    if (bytes > c->sort_bytes) {
        free(c->sort_tmp);
        c->sort_bytes = 0;
        c->sort_tmp = malloc(bytes);
        if (!c->sort_tmp)
            return flow_fail(FLOW_ERR_NOMEM, "sort of %d values", n);
        c->sort_bytes = bytes;
    }
    cpu_key *k = c->sort_tmp;
    for (int i = 0; i < n; i++)
        k[i].key = keys->data[i], k[i].index = i;
    qsort(k, (size_t)n, sizeof *k, cpu_key_cmp);
    for (int i = 0; i < n; i++)
        skeys->data[i] = k[i].key, sidx->data[i] = (float)k[i].index;
    return FLOW_OK;
}
