/* backend_cpu.c -- the CPU backend: the per-pixel functions of libflow/pixel/
 * in OpenMP loops over host planes.  Slower than CUDA, but the very same
 * mathematics, and what CI tests. */
#include "flow/backend.h"
#include "../pixel/stencil.h"
#include "../pixel/tensor.h"
#include "../pixel/warp.h"
#include "../src/internal.h"
#include "solver_cpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define ROW(p, y) ((p)->data + (long)(y) * (p)->pitch)

static flow_status cpu_open(flow_backend *b, int device)
{
    (void)device;
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    snprintf(b->device_name, sizeof b->device_name, "CPU (%d thread%s)", threads,
             threads == 1 ? "" : "s");
    return FLOW_OK;
}

static void cpu_close(flow_backend *b)
{
    (void)b;
}

static flow_status cpu_plane_alloc(flow_backend *b, flow_plane *p, int width, int height)
{
    (void)b;
    memset(p, 0, sizeof *p);
    if (width <= 0 || height <= 0)
        return flow_fail(FLOW_ERR_INVALID, "plane size %dx%d is not positive", width, height);
    /* Rows padded to 16 floats (64 bytes) so that rows start cache-aligned. */
    int pitch = (width + 15) & ~15;
    p->data = aligned_alloc(64, (size_t)pitch * (size_t)height * sizeof(float));
    if (!p->data)
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate a %dx%d plane", width, height);
    p->width = width;
    p->height = height;
    p->pitch = pitch;
    return FLOW_OK;
}

static void cpu_plane_free(flow_backend *b, flow_plane *p)
{
    (void)b;
    free(p->data);
    memset(p, 0, sizeof *p);
}

static flow_status cpu_upload(flow_backend *b, flow_plane *dst, const float *src,
                              size_t src_stride)
{
    (void)b;
    for (int y = 0; y < dst->height; y++)
        memcpy(ROW(dst, y), src + (size_t)y * src_stride, (size_t)dst->width * sizeof(float));
    return FLOW_OK;
}

static flow_status cpu_download(flow_backend *b, float *dst, size_t dst_stride,
                                const flow_plane *src)
{
    (void)b;
    for (int y = 0; y < src->height; y++)
        memcpy(dst + (size_t)y * dst_stride, ROW(src, y), (size_t)src->width * sizeof(float));
    return FLOW_OK;
}

static flow_status cpu_fill(flow_backend *b, flow_plane *p, float value)
{
    (void)b;
#pragma omp parallel for schedule(static) if (PAR(p->width, p->height))
    for (int y = 0; y < p->height; y++)
        for (int x = 0; x < p->width; x++)
            ROW(p, y)[x] = value;
    return FLOW_OK;
}

static flow_status cpu_copy(flow_backend *b, flow_plane *dst, const flow_plane *src)
{
    return cpu_upload(b, dst, src->data, (size_t)src->pitch);
}

static flow_status cpu_convolve_rows(flow_backend *b, flow_plane *const *dst,
                                     const flow_plane *const *src, int n, const flow_kernel *k)
{
    (void)b;
    FLOW_TRY(flow_check_batch(dst, src, n));
    for (int i = 0; i < n; i++) {
        flow_plane *d = dst[i];
        const flow_plane *s = src[i];
#pragma omp parallel for schedule(static) if (PAR(d->width, d->height))
        for (int y = 0; y < d->height; y++)
            for (int x = 0; x < d->width; x++)
                ROW(d, y)[x] = flow_convolve_row_px(s->data, s->pitch, s->width, s->height, x,
                                                    y, k->w, k->radius);
    }
    return FLOW_OK;
}

static flow_status cpu_convolve_cols(flow_backend *b, flow_plane *const *dst,
                                     const flow_plane *const *src, int n, const flow_kernel *k)
{
    (void)b;
    FLOW_TRY(flow_check_batch(dst, src, n));
    for (int i = 0; i < n; i++) {
        flow_plane *d = dst[i];
        const flow_plane *s = src[i];
#pragma omp parallel for schedule(static) if (PAR(d->width, d->height))
        for (int y = 0; y < d->height; y++)
            for (int x = 0; x < d->width; x++)
                ROW(d, y)[x] = flow_convolve_col_px(s->data, s->pitch, s->width, s->height, x,
                                                    y, k->w, k->radius);
    }
    return FLOW_OK;
}

static flow_status cpu_derivatives(flow_backend *b, flow_plane *fx, flow_plane *fy,
                                   flow_plane *ft, const flow_plane *f1, const flow_plane *f2)
{
    (void)b;
#pragma omp parallel for schedule(static) if (PAR(f1->width, f1->height))
    for (int y = 0; y < f1->height; y++)
        for (int x = 0; x < f1->width; x++)
            flow_derivatives_px(f1->data, f2->data, f1->pitch, f1->width, f1->height, x, y,
                                &ROW(fx, y)[x], &ROW(fy, y)[x], &ROW(ft, y)[x]);
    return FLOW_OK;
}

static flow_status cpu_motion_products(flow_backend *b, flow_tensor *J, const flow_plane *f1,
                                       const flow_plane *f2, int accumulate)
{
    (void)b;
    if (f1->pitch != f2->pitch)
        return flow_fail(FLOW_ERR_INVALID, "motion_products: frames of different pitch");
    flow_plane *out[6] = { &J->j11, &J->j12, &J->j13, &J->j22, &J->j23, &J->j33 };
#pragma omp parallel for schedule(static) if (PAR(f1->width, f1->height))
    for (int y = 0; y < f1->height; y++)
        for (int x = 0; x < f1->width; x++) {
            float fx, fy, ft, j[6];
            flow_derivatives_px(f1->data, f2->data, f1->pitch, f1->width, f1->height, x, y, &fx,
                                &fy, &ft);
            flow_tensor_products_px(fx, fy, ft, j);
            for (int c = 0; c < 6; c++)
                ROW(out[c], y)[x] = accumulate ? ROW(out[c], y)[x] + j[c] : j[c];
        }
    return FLOW_OK;
}

static flow_status cpu_warp(flow_backend *b, flow_plane *dst, const flow_plane *src,
                            const flow_pair *w)
{
    (void)b;
#pragma omp parallel for schedule(static) if (PAR(dst->width, dst->height))
    for (int y = 0; y < dst->height; y++)
        for (int x = 0; x < dst->width; x++)
            ROW(dst, y)[x] = flow_warp_px(src->data, src->pitch, src->width, src->height, x, y,
                                          ROW(&w->u, y)[x], ROW(&w->v, y)[x]);
    return FLOW_OK;
}

static flow_status cpu_tensor_shift(flow_backend *b, flow_tensor *J, const flow_pair *w)
{
    (void)b;
    flow_plane *c[6] = { &J->j11, &J->j12, &J->j13, &J->j22, &J->j23, &J->j33 };
#pragma omp parallel for schedule(static) if (PAR(J->j11.width, J->j11.height))
    for (int y = 0; y < J->j11.height; y++)
        for (int x = 0; x < J->j11.width; x++) {
            float j[6];
            for (int k = 0; k < 6; k++)
                j[k] = ROW(c[k], y)[x];
            flow_tensor_shift_px(j, ROW(&w->u, y)[x], ROW(&w->v, y)[x]);
            for (int k = 0; k < 6; k++)
                ROW(c[k], y)[x] = j[k];
        }
    return FLOW_OK;
}

static flow_status cpu_scale(flow_backend *b, flow_plane *p, float factor)
{
    (void)b;
#pragma omp parallel for schedule(static) if (PAR(p->width, p->height))
    for (int y = 0; y < p->height; y++)
        for (int x = 0; x < p->width; x++)
            ROW(p, y)[x] *= factor;
    return FLOW_OK;
}

static flow_status cpu_restriction(flow_backend *b, flow_plane *coarse, const flow_plane *fine)
{
    (void)b;
#pragma omp parallel for schedule(static) if (PAR(coarse->width, coarse->height))
    for (int y = 0; y < coarse->height; y++)
        for (int x = 0; x < coarse->width; x++)
            ROW(coarse, y)[x] = flow_restriction_px(fine->data, fine->pitch, fine->width,
                                                    fine->height, x, y);
    return FLOW_OK;
}

static flow_status cpu_prolongation(flow_backend *b, flow_plane *fine, const flow_plane *coarse,
                                    int accumulate)
{
    (void)b;
#pragma omp parallel for schedule(static) if (PAR(fine->width, fine->height))
    for (int y = 0; y < fine->height; y++)
        for (int x = 0; x < fine->width; x++) {
            float p = flow_prolongation_px(coarse->data, coarse->pitch, coarse->width,
                                           coarse->height, x, y);
            ROW(fine, y)[x] = accumulate ? ROW(fine, y)[x] + p : p;
        }
    return FLOW_OK;
}

static flow_status cpu_synchronize(flow_backend *b)
{
    (void)b;
    return FLOW_OK;
}

static flow_status cpu_event_create(flow_backend *b, void **event)
{
    (void)b;
    *event = calloc(1, sizeof(struct timespec));
    return *event ? FLOW_OK : flow_fail(FLOW_ERR_NOMEM, "cannot allocate a timing event");
}

static void cpu_event_destroy(flow_backend *b, void *event)
{
    (void)b;
    free(event);
}

static flow_status cpu_event_record(flow_backend *b, void *event)
{
    (void)b;
    clock_gettime(CLOCK_MONOTONIC, (struct timespec *)event);
    return FLOW_OK;
}

static flow_status cpu_event_elapsed(flow_backend *b, void *start, void *end, float *ms)
{
    (void)b;
    const struct timespec *t0 = start, *t1 = end;
    *ms = (float)((t1->tv_sec - t0->tv_sec) * 1e3 + (t1->tv_nsec - t0->tv_nsec) * 1e-6);
    return FLOW_OK;
}

const flow_backend_ops flow_cpu_ops = {
    .name = "cpu",
    .open = cpu_open,
    .close = cpu_close,
    .plane_alloc = cpu_plane_alloc,
    .plane_free = cpu_plane_free,
    .upload = cpu_upload,
    .download = cpu_download,
    .fill = cpu_fill,
    .copy = cpu_copy,
    .convolve_rows = cpu_convolve_rows,
    .convolve_cols = cpu_convolve_cols,
    .derivatives = cpu_derivatives,
    .motion_products = cpu_motion_products,
    .warp = cpu_warp,
    .tensor_shift = cpu_tensor_shift,
    .scale = cpu_scale,
    .restriction = cpu_restriction,
    .prolongation = cpu_prolongation,
    .synchronize = cpu_synchronize,
    .event_create = cpu_event_create,
    .event_destroy = cpu_event_destroy,
    .event_record = cpu_event_record,
    .event_elapsed = cpu_event_elapsed,
    .jacobi = cpu_jacobi,
    .sor = cpu_sor,
    .residual = cpu_residual,
    .apply = cpu_apply,
    .restrict_pair = cpu_restrict_pair,
    .prolong_pair = cpu_prolong_pair,
    .restrict_tensor = cpu_restrict_tensor,
    .lk = cpu_lk,
    .sum_squares = cpu_sum_squares,
};
