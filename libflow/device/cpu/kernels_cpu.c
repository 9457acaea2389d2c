/* kernels_cpu.c -- the CPU device's operations: the list of
 * libflow/kernels/list.h expanded into OpenMP loops over each operation's
 * grid, each point computed by the operation's per-pixel function; the
 * small-grid smoother run by one worker; the sum of squares. */
#include "device/cpu/cpu.h"

/* cpu_<stem>: every point of the grid.  The arguments are copied into a
 * local whose address does not escape, so that the compiler may keep them
 * in registers across the stores into the planes. */
#define FLOW_CPU_LOOP(stem, A, W, H, G)                                                          \
    flow_status cpu_##stem(flow_device *d, const A *args)                                        \
    {                                                                                            \
        (void)d;                                                                                 \
        const A local = *args;                                                                   \
        const A *a = &local;                                                                     \
        const int w = (W), h = (H);                                                              \
        _Pragma("omp parallel for schedule(static) if ((long)w * h >= FLOW_CPU_PAR_MIN)")       \
        for (int y = 0; y < h; y++)                                                              \
            for (int x = 0; x < w; x++)                                                          \
                flow_##stem##_px(a, x, y);                                                       \
        return FLOW_OK;                                                                          \
    }
FLOW_KERNELS(FLOW_CPU_LOOP)

flow_status cpu_smooth_small(flow_device *d, const flow_smooth_small_args *a)
{
    (void)d;
    float ps[FLOW_SMALL_GRID];
    if (a->sor)
        flow_sor_small(a, ps, 0, 1);
    else
        flow_jacobi_small(a, ps, 0, 1);
    return FLOW_OK;
}

flow_status cpu_sum_squares(flow_device *d, const flow_plane *p, double *sum)
{
    (void)d;
    const flow_plane q = *p;
    double s = 0.0;
#pragma omp parallel for schedule(static) if ((long)q.width * q.height >= FLOW_CPU_PAR_MIN) \
    reduction(+ : s)
    for (int y = 0; y < q.height; y++)
        for (int x = 0; x < q.width; x++) {
            const double v = FLOW_PX(q, x, y);
            s += v * v;
        }
    *sum = s;
    return FLOW_OK;
}
