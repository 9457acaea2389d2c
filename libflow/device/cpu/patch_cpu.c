/* patch_cpu.c -- the CPU loops of dense inverse search (cpu ROWS in
 * libflow/kernels/list.h).  The patch search: each patch of the grid
 * tracked by the functions of pixel/patch.h that flow_patch_track composes
 * (its Hessian, each channel's sums, the Gauss-Newton step), its residual
 * computed a row of the patch at a time in a loop the compiler vectorises.
 *
 * Within a row of a patch the second frame is read on one row pair (the
 * patch translates), and where every sample's left neighbour is column
 * xb + i (i: the pixel's column in the patch) and its right one inside the
 * frame, the samples are loads of consecutive columns: the loop computes
 * what flow_bilinear_at computes at each pixel (the same clamped point,
 * fractions and blend) without a gather.  Elsewhere, and for bicubic
 * sampling, flow_sample_at at each pixel.  The sums then add the row's
 * residuals in the pixels' order, as flow_patch_track adds them: the
 * result is flow_patch_track's to the bit. */
#include "device/cpu/cpu.h"

/* the widest patch row handled here (the schema's largest patch side) */
#define CPU_PATCH_ROW 64

/* e[i] = f2(x0 + i + du, y + dv) - r1[i] for the n pixels of a patch row
 * starting at (x0, y), r1 their values in the first frame. */
FLOW_CPU_INLINE static void cpu_patch_row_error(const flow_plane *f2, const flow_patch_opts *o,
                                                int x0, int y, int n, float du, float dv,
                                                const float *r1, float *restrict e)
{
    const int w = f2->width, h = f2->height;
    const float py = flow_coord_clamp((float)y + dv, h);
    const int ya = (int)py, yb = ya + 1 < h ? ya + 1 : ya;
    const float ay = py - (float)ya;
    const int xb = (int)flow_coord_clamp((float)x0 + du, w);
    int off = o->cubic || xb + n >= w;
#pragma omp simd reduction(| : off)
    for (int i = 0; i < n; i++)
        off |= (int)flow_coord_clamp((float)(x0 + i) + du, w) != xb + i;
    if (off) {
        for (int i = 0; i < n; i++)
            e[i] = flow_sample_at(f2, (float)(x0 + i) + du, (float)y + dv, o->cubic) - r1[i];
        return;
    }
    const float *restrict q0 = f2->data + (long)ya * f2->pitch + xb;
    const float *restrict q1 = f2->data + (long)yb * f2->pitch + xb;
#pragma omp simd
    for (int i = 0; i < n; i++) {
        const float ax = flow_coord_clamp((float)(x0 + i) + du, w) - (float)(xb + i);
        e[i] = flow_bilinear_mix(q0[i], q0[i + 1], q1[i], q1[i + 1], ax, ay) - r1[i];
    }
}

/* flow_patch_track (one lane) of the patch at (x0, y0), which lies inside
 * the first frame. */
FLOW_CPU_INLINE static int cpu_patch_track(const flow_patch_frames *f,
                                           const flow_patch_opts *opts, int x0, int y0, int nc,
                                           int s, float *u, float *v)
{
    flow_patch_opts local = *opts;
    local.size = s;
    const flow_patch_opts *o = &local;
    flow_patch_hessian H;
    if (!flow_patch_hessian_at(f, o, x0, y0, 0, 1, nc, &H))
        return 0;
    const float u0 = *u, v0 = *v;
    flow_patch_iterate t = flow_patch_iterate_start(u0, v0);
    float e[CPU_PATCH_ROW];
    for (;;) {
        float bx = 0.0f, by = 0.0f, see = 0.0f;
        for (int c = 0; c < nc; c++) {
            float se = 0.0f;
            for (int j = 0; j < s; j++) {
                const long row = (long)(y0 + j) * f->f1[c].pitch + x0;
                const float *r1 = f->f1[c].data + row;
                const float *gx = f->gx[c].data + row, *gy = f->gy[c].data + row;
                cpu_patch_row_error(&f->f2[c], o, x0, y0 + j, s, t.du, t.dv, r1, e);
                for (int i = 0; i < s; i++) {
                    bx += gx[i] * e[i];
                    by += gy[i] * e[i];
                    se += e[i], see += e[i] * e[i];
                }
            }
            flow_patch_channel_end(&H, o, c, se, &bx, &by, &see);
        }
        if (!flow_patch_step(&H, o, &t, bx, by, see))
            break;
    }
    return flow_patch_accept(o, &t, u0, v0, u, v);
}

/* flow_dis_search_px at (i, j), the patch tracked by cpu_patch_track where
 * it lies inside the frames (every patch of a grid wider and taller than a
 * patch) and is no wider than CPU_PATCH_ROW; nc and s: the channel count
 * and patch side, constants where the caller has them. */
FLOW_CPU_INLINE static void cpu_dis_search_at(const flow_dis_search_args *a, int i, int j, int nc,
                                              int s)
{
    const int x0 = i * a->stride, y0 = j * a->stride;
    const flow_plane *f1 = &a->f.f1[0];
    if (x0 + s > f1->width || y0 + s > f1->height || s > CPU_PATCH_ROW) {
        flow_dis_search_point(a, i, j, 0, 1, nc);
        return;
    }
    const int r = s / 2;
    const int cx = flow_clampi(x0 + r, 0, a->w.u.width - 1);
    const int cy = flow_clampi(y0 + r, 0, a->w.u.height - 1);
    float u = FLOW_PX(a->w.u, cx, cy), v = FLOW_PX(a->w.v, cx, cy);
    cpu_patch_track(&a->f, &a->o, x0, y0, nc, s, &u, &v);
    FLOW_PX(a->p.u, i, j) = u;
    FLOW_PX(a->p.v, i, j) = v;
}

/* The patches of rows [j0, j1) of the grid; one channel and the side of
 * the presets' patches (8) constants. */
FLOW_CPU_CLONES static void cpu_dis_search_rows(void *ctx, int chunk, int j0, int j1)
{
    (void)chunk;
    const flow_dis_search_args local = *(const flow_dis_search_args *)ctx;
    const flow_dis_search_args *a = &local;
    const int n = a->p.u.width, nc = a->f.channels, s = a->o.size;
    for (int j = j0; j < j1; j++)
        for (int i = 0; i < n; i++) {
            if (nc == 1 && s == 8)
                cpu_dis_search_at(a, i, j, 1, 8);
            else
                cpu_dis_search_at(a, i, j, nc, s);
        }
}

flow_status cpu_dis_search(flow_device *d, const flow_dis_search_args *a)
{
    cpu_for_rows(d, a->p.u.width, a->p.u.height, FLOW_CPU_GRAIN_POINTS, cpu_dis_search_rows,
                 (void *)a);
    return FLOW_OK;
}

/* The densification (flow_dis_densify_px) of rows [y0, y1) with the
 * channel count, patch side and stride nc, s, t (nc == 0: a's own):
 * constants where the caller has them, so that the covering patches'
 * indices are divisions by a constant and the loop over the channels
 * unrolls. */
static inline void cpu_dis_densify_run(const flow_dis_densify_args *args, int y0, int y1, int nc,
                                       int s, int t)
{
    flow_dis_densify_args local = *args;
    if (nc > 0)
        local.channels = nc, local.size = s, local.stride = t;
    const flow_dis_densify_args *a = &local;
    const int w = a->w.u.width;
    for (int y = y0; y < y1; y++)
        for (int x = 0; x < w; x++)
            flow_dis_densify_px(a, x, y);
}

/* One channel with the presets' patch side (8) and strides (3 medium, 4
 * fast and ultrafast) as constants. */
FLOW_CPU_CLONES FLOW_CPU_FLAT static void cpu_dis_densify_rows(void *ctx, int chunk, int y0,
                                                               int y1)
{
    (void)chunk;
    const flow_dis_densify_args *a = ctx;
    const int preset = a->channels == 1 && a->size == 8;
    if (preset && a->stride == 3)
        cpu_dis_densify_run(a, y0, y1, 1, 8, 3);
    else if (preset && a->stride == 4)
        cpu_dis_densify_run(a, y0, y1, 1, 8, 4);
    else
        cpu_dis_densify_run(a, y0, y1, 0, 0, 0);
}

flow_status cpu_dis_densify(flow_device *d, const flow_dis_densify_args *a)
{
    cpu_for_rows(d, a->w.u.width, a->w.u.height, FLOW_CPU_GRAIN, cpu_dis_densify_rows,
                 (void *)a);
    return FLOW_OK;
}
