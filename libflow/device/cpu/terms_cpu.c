/* terms_cpu.c -- the CPU loop of the data terms (cpu ROWS in
 * libflow/kernels/list.h): flow_terms_px at every pixel, its arguments'
 * shape written as constants for the shapes the methods build (brightness
 * constancy, then gradient constancy, of one or three channels, without
 * the frame before and the occlusion weight: robust, dis, epic), so that
 * the compiler folds the function's tests on the shape and unrolls its
 * loops over the terms and channels.  Any other shape runs the function
 * as it is. */
#include "device/cpu/cpu.h"

/* A shape: term count (1: brightness; 2: brightness, gradient) and
 * channel count. */
#define CPU_TERMS_SHAPES(X)                                                                      \
    X(1, 1)                                                                                      \
    X(2, 1)                                                                                      \
    X(1, 3)                                                                                      \
    X(2, 3)
#define CPU_TERMS_SHAPE(n, nc) ((n) * 4 + (nc))

/* The shape of a (CPU_TERMS_SHAPE), or 0: none of the list. */
static int cpu_terms_shape(const flow_terms_args *a)
{
    if (a->previous || a->occ_d2 > 0.0f || a->occ_e2 > 0.0f)
        return 0;
    if (a->channels != 1 && a->channels != 3)
        return 0;
    if (a->nterms < 1 || a->nterms > 2 || a->kind[0] != FLOW_TERM_BRIGHTNESS
        || (a->nterms == 2 && a->kind[1] != FLOW_TERM_GRADIENT))
        return 0;
    return CPU_TERMS_SHAPE(a->nterms, a->channels);
}

/* The rows [y0, y1) with the shape (n terms, nc channels; n == 0: a's
 * own), the values a had (cpu_terms_shape). */
static inline void cpu_terms_run(const flow_terms_args *args, int y0, int y1, int n, int nc)
{
    flow_terms_args local = *args;
    if (n > 0) {
        local.previous = 0;
        local.occ_d2 = local.occ_e2 = 0.0f;
        local.channels = nc;
        local.nterms = n;
        local.kind[0] = FLOW_TERM_BRIGHTNESS;
        local.kind[1] = FLOW_TERM_GRADIENT;
    }
    const flow_terms_args *a = &local;
    const int w = a->f1[0].width;
    for (int y = y0; y < y1; y++)
        for (int x = 0; x < w; x++)
            flow_terms_px(a, x, y);
}

#define CPU_TERMS_CASE(n, nc)                                                                    \
    case CPU_TERMS_SHAPE(n, nc):                                                                 \
        cpu_terms_run(a, y0, y1, n, nc);                                                         \
        break;

FLOW_CPU_CLONES FLOW_CPU_FLAT static void cpu_terms_rows(void *ctx, int chunk, int y0, int y1)
{
    (void)chunk;
    const flow_terms_args *a = ctx;
    switch (cpu_terms_shape(a)) {
        CPU_TERMS_SHAPES(CPU_TERMS_CASE)
    default:
        cpu_terms_run(a, y0, y1, 0, 0);
    }
}

flow_status cpu_terms(flow_device *d, const flow_terms_args *a)
{
    cpu_for_rows(d, a->f1[0].width, a->f1[0].height, FLOW_CPU_GRAIN, cpu_terms_rows, (void *)a);
    return FLOW_OK;
}
