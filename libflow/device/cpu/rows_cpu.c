/* rows_cpu.c -- the CPU loops of the operations whose loops are written by
 * hand (OWN in libflow/kernels/list.h), in rows, calling the same per-point
 * functions as the generated loops and the CUDA tiles:
 *   - the convolutions: a row of the source copied once, clamped at the
 *     borders as flow_at clamps, and flow_convolve_row_at run on the copy,
 *     where no index is clamped (the sums of the direct stencil); along
 *     columns, a row of outputs from rows of the source;
 *   - the Jacobi sweep, the residual and N(x): with a robust smoothness
 *     term, a chunk's Psi'_S evaluated once per pixel into rows of the
 *     handle's scratch (its rows and the one above and below), where the
 *     per-pixel functions evaluate it at the pixel and its four neighbours;
 *     then every pixel's terms from those values (flow_var_terms_tile
 *     inside the grid, flow_var_terms_ps with the clamped stencil on its
 *     border rows and columns): the values of flow_var_terms_px, as the
 *     CUDA tiles give them (pixel/variational.h).
 * The interior loops are marked for the compiler to vectorise (omp simd);
 * FLOW_CPU_CLONES builds them for several vector widths. */
#include "device/cpu/cpu.h"

#include "base/fail.h"

#include <stdlib.h>

/* ---- systems of constant shape ------------------------------------------- */

/* The shapes of system that the methods solve (robust smoothness, affine
 * data terms, every term robust: clg-nl, robust, dis), by term count and
 * whether a right-hand side and edge weights are present; the row loops
 * have a copy for each, where the per-pixel functions' tests on the shape
 * are constants.  Any other system runs the general copy. */
#define CPU_SHAPE (FLOW_SYS_AFFINE | FLOW_SYS_PSI_S)
#define CPU_VARIANTS(X)                                                                          \
    X(1, CPU_SHAPE)                                                                              \
    X(1, CPU_SHAPE | FLOW_SYS_RHS)                                                               \
    X(1, CPU_SHAPE | FLOW_SYS_EDGE)                                                              \
    X(1, CPU_SHAPE | FLOW_SYS_RHS | FLOW_SYS_EDGE)                                               \
    X(2, CPU_SHAPE)                                                                              \
    X(2, CPU_SHAPE | FLOW_SYS_RHS)                                                               \
    X(2, CPU_SHAPE | FLOW_SYS_EDGE)                                                              \
    X(2, CPU_SHAPE | FLOW_SYS_RHS | FLOW_SYS_EDGE)
#define CPU_VARIANT(n, flags) ((int)(flags) * 4 + (n))

/* The variant of system s (CPU_VARIANT), or 0: the general copy. */
static int cpu_variant(const flow_system *s)
{
    if ((s->flags & CPU_SHAPE) != CPU_SHAPE || s->nterms < 1 || s->nterms > 2)
        return 0;
    for (int k = 0; k < s->nterms; k++)
        if (!s->term[k].robust)
            return 0;
    return CPU_VARIANT(s->nterms, s->flags);
}

/* s with the shape of a variant written as constants (n > 0; n == 0: s
 * unchanged), which the compiler then folds into the loop it is inlined
 * in.  The values are those s had (cpu_variant). */
FLOW_CPU_INLINE static void cpu_system_as(flow_system *s, unsigned flags, int n)
{
    if (n == 0)
        return;
    s->flags = flags;
    s->nterms = n;
    for (int k = 0; k < n; k++)
        s->term[k].robust = 1;
}

/* What the operator reads on row y besides the flow: each term's tensor
 * rows, the rows of Psi'_S around y (a robust smoothness term) and of the
 * right-hand side (FLOW_SYS_RHS); NULL where not read. */
typedef struct cpu_rows {
    const float *J[FLOW_TERMS_MAX][6]; /* j11 j12 j13 j22 j23 j33 */
    const float *pn, *pc, *ps;         /* Psi'_S at rows y - 1, y, y + 1 */
    const float *fu, *fv;
} cpu_rows;

static inline const float *cpu_row(const flow_plane *p, int y)
{
    return p->data ? p->data + (long)y * p->pitch : NULL;
}

/* psi: Psi'_S in a plane whose row y is the pixel's (pitch psi->pitch). */
FLOW_CPU_INLINE static void cpu_rows_at(const flow_system *s, const flow_plane *psi,
                                        const flow_pair *f, int y, cpu_rows *r)
{
    FLOW_UNROLL
    for (int k = 0; k < FLOW_TERMS_MAX; k++) {
        const flow_tensor *T = &s->term[k].J;
        const int in = k < s->nterms;
        r->J[k][0] = in ? cpu_row(&T->j11, y) : NULL;
        r->J[k][1] = in ? cpu_row(&T->j12, y) : NULL;
        r->J[k][2] = in ? cpu_row(&T->j13, y) : NULL;
        r->J[k][3] = in ? cpu_row(&T->j22, y) : NULL;
        r->J[k][4] = in ? cpu_row(&T->j23, y) : NULL;
        r->J[k][5] = in && s->term[k].robust ? cpu_row(&T->j33, y) : NULL;
    }
    const int nl = (s->flags & FLOW_SYS_PSI_S) != 0;
    r->pc = nl ? cpu_row(psi, y) : NULL;
    r->pn = nl ? r->pc - psi->pitch : NULL;
    r->ps = nl ? r->pc + psi->pitch : NULL;
    const int rhs = (s->flags & FLOW_SYS_RHS) != 0;
    r->fu = rhs ? cpu_row(&f->u, y) : NULL;
    r->fv = rhs ? cpu_row(&f->v, y) : NULL;
}

/* The terms at an interior pixel x of row y (every neighbour inside the
 * grid) whose flow is at u, v (row pitch pu): flow_var_terms_ps's values,
 * each read without a test. */
FLOW_CPU_INLINE static flow_var_terms cpu_terms_inside(const flow_system *s, const cpu_rows *r,
                                                       const float *u, const float *v, int pu,
                                                       int x, int y, int w, int h)
{
    flow_stencil su, sv;
    su.c = u[0], su.e = u[1], su.w = u[-1], su.s = u[pu], su.n = u[-pu];
    sv.c = v[0], sv.e = v[1], sv.w = v[-1], sv.s = v[pu], sv.n = v[-pu];
    su.ee = su.ww = su.ss = su.nn = su.ne = su.nw = su.se = su.sw = 0.0f;
    sv.ee = sv.ww = sv.ss = sv.nn = sv.ne = sv.nw = sv.se = sv.sw = 0.0f;
    flow_tensor_at J[FLOW_TERMS_MAX];
    FLOW_UNROLL
    for (int k = 0; k < FLOW_TERMS_MAX; k++) {
        const int in = k < s->nterms;
        J[k].j11 = in ? r->J[k][0][x] : 0.0f;
        J[k].j12 = in ? r->J[k][1][x] : 0.0f;
        J[k].j13 = in ? r->J[k][2][x] : 0.0f;
        J[k].j22 = in ? r->J[k][3][x] : 0.0f;
        J[k].j23 = in ? r->J[k][4][x] : 0.0f;
        J[k].j33 = in && s->term[k].robust ? r->J[k][5][x] : 0.0f;
    }
    const int nl = (s->flags & FLOW_SYS_PSI_S) != 0;
    const float pc = nl ? r->pc[x] : 1.0f, pw = nl ? r->pc[x - 1] : 0.0f;
    const float pe = nl ? r->pc[x + 1] : 0.0f, pn = nl ? r->pn[x] : 0.0f;
    const float ps = nl ? r->ps[x] : 0.0f;
    return flow_var_terms_from(s, &su, &sv, su.c, sv.c, x, y, w, h, pc, pw, pe, pn, ps, J);
}

/* The right-hand side at x of the row (flow_rhs_at's values). */
FLOW_CPU_INLINE static void cpu_rhs_inside(const flow_system *s, const cpu_rows *r, int x,
                                           float *fu, float *fv)
{
    const int rhs = (s->flags & FLOW_SYS_RHS) != 0;
    *fu = rhs ? r->fu[x] : 0.0f;
    *fv = rhs ? r->fv[x] : 0.0f;
}

/* ---- convolutions --------------------------------------------------------- */

/* outputs of a row computed from one copy of their inputs */
#define CPU_SEGMENT 1024

FLOW_CPU_CLONES static void cpu_convolve_rows_rows(void *ctx, int chunk, int y0, int y1)
{
    const flow_convolve_args *a = ctx;
    const int r = a->k.radius;
    float seg[CPU_SEGMENT + 2 * FLOW_KERNEL_RADIUS_MAX];
    for (int i = 0; i < a->n; i++) {
        const flow_plane src = a->src[i], dst = a->dst[i];
        for (int y = y0; y < y1; y++)
            for (int x0 = 0; x0 < dst.width; x0 += CPU_SEGMENT) {
                const int n = dst.width - x0 < CPU_SEGMENT ? dst.width - x0 : CPU_SEGMENT;
                const flow_plane row = { seg, n + 2 * r, 1, n + 2 * r };
                for (int j = 0; j < n + 2 * r; j++)
                    seg[j] = flow_at(&src, x0 - r + j, y);
                float *restrict out = dst.data + (long)y * dst.pitch + x0;
#pragma omp simd
                for (int j = 0; j < n; j++)
                    out[j] = flow_convolve_row_at(&row, j + r, 0, a->k.w, r);
            }
    }
}

flow_status cpu_convolve_rows(flow_device *d, const flow_convolve_args *a)
{
    cpu_for_rows(d, a->dst[0].width, a->dst[0].height, FLOW_CPU_GRAIN, cpu_convolve_rows_rows,
                 (void *)a);
    return FLOW_OK;
}

/* The 2r + 1 source rows of output row y, clamped into the plane, as a
 * plane of 2r + 1 rows whose pitch steps from one to the next: the column
 * sum at (x, r) then reads them as flow_convolve_col_at reads the source
 * at (x, y). */
FLOW_CPU_CLONES static void cpu_convolve_cols_rows(void *ctx, int chunk, int y0, int y1)
{
    const flow_convolve_args *a = ctx;
    const int r = a->k.radius;
    for (int i = 0; i < a->n; i++) {
        const flow_plane src = a->src[i], dst = a->dst[i];
        for (int y = y0; y < y1; y++) {
            float *restrict out = dst.data + (long)y * dst.pitch;
            if (y - r >= 0 && y + r < src.height) {
                /* every source row inside: the source itself, from row y - r */
                const flow_plane band = { src.data + (long)(y - r) * src.pitch, src.width,
                                          2 * r + 1, src.pitch };
#pragma omp simd
                for (int x = 0; x < dst.width; x++)
                    out[x] = flow_convolve_col_at(&band, x, r, a->k.w, r);
            } else {
                for (int x = 0; x < dst.width; x++)
                    out[x] = flow_convolve_col_at(&src, x, y, a->k.w, r);
            }
        }
    }
}

flow_status cpu_convolve_cols(flow_device *d, const flow_convolve_args *a)
{
    cpu_for_rows(d, a->dst[0].width, a->dst[0].height, FLOW_CPU_GRAIN, cpu_convolve_cols_rows,
                 (void *)a);
    return FLOW_OK;
}

/* ---- the operator's terms: Jacobi sweep, residual, N(x) ------------------- */

/* What each operation reads at a pixel besides the terms (own) and writes
 * from them (finish), as the per-pixel functions do. */
static inline void own_jacobi_sweep(const flow_jacobi_sweep_args *a, int x, int y, float *fu,
                                    float *fv)
{
    flow_rhs_at(&a->s, &a->f, x, y, fu, fv);
}

static inline void finish_jacobi_sweep(const flow_jacobi_sweep_args *a, const flow_var_terms *t,
                                       float fu, float fv, int x, int y)
{
    flow_jacobi_update(&a->s, t, fu, fv, a->weight, &FLOW_PX(a->out.u, x, y),
                       &FLOW_PX(a->out.v, x, y));
}

static inline void own_residual(const flow_residual_args *a, int x, int y, float *fu, float *fv)
{
    flow_rhs_at(&a->s, &a->f, x, y, fu, fv);
}

static inline void finish_residual(const flow_residual_args *a, const flow_var_terms *t,
                                   float fu, float fv, int x, int y)
{
    flow_residual_terms(&a->s, t, fu, fv, &FLOW_PX(a->r.u, x, y), &FLOW_PX(a->r.v, x, y));
    flow_residual_rx_px(a, x, y);
}

static inline void own_apply(const flow_apply_args *a, int x, int y, float *ru, float *rv)
{
    flow_apply_base(a, x, y, ru, rv);
}

static inline void finish_apply(const flow_apply_args *a, const flow_var_terms *t, float ru,
                                float rv, int x, int y)
{
    flow_apply_write(a, t, ru, rv, x, y);
}

/* A terms operation's loop: its arguments and the scratch rows of Psi'_S
 * (chunk c's rows start at row y0 + 2c: its rows and two more). */
typedef struct cpu_terms_job {
    const void *args;
    float *psi;
} cpu_terms_job;

/* Psi'_S of the flow x at the rows ya .. yb into ps (row pitch pp), row
 * ya first: flow_psi_s_px's values, from the flow's own rows inside the
 * grid (flow_psi_s_tile) and from the clamped stencil on its border. */
static inline void cpu_psi_rows(const flow_system *s, const flow_pair *xf, float *ps, long pp,
                                int ya, int yb)
{
    const int w = xf->u.width, h = xf->u.height, pu = xf->u.pitch;
    const int edge = (s->flags & FLOW_SYS_EDGE) != 0;
    for (int y = ya; y <= yb; y++) {
        float *restrict p = ps + (long)(y - ya) * pp;
        if (y == 0 || y == h - 1 || w < 3) {
            for (int x = 0; x < w; x++)
                p[x] = flow_psi_s_px(s, xf, x, y);
            continue;
        }
        const float *u = xf->u.data + (long)y * pu, *v = xf->v.data + (long)y * pu;
        const float *g = edge ? s->g.data + (long)y * s->g.pitch : NULL;
        p[0] = flow_psi_s_px(s, xf, 0, y);
#pragma omp simd
        for (int x = 1; x < w - 1; x++)
            p[x] = flow_psi_s_tile(s, u + x, v + x, pu, edge ? g[x] : 1.0f);
        p[w - 1] = flow_psi_s_px(s, xf, w - 1, y);
    }
}

/* The terms at a border pixel (x, y): the clamped stencil. */
static inline flow_var_terms cpu_terms_border(const flow_system *s, const flow_pair *xf,
                                              const float *ps, int pp, int x, int y)
{
    const flow_stencil vu = flow_stencil_load(&xf->u, x, y, 0);
    const flow_stencil vv = flow_stencil_load(&xf->v, x, y, 0);
    return flow_var_terms_ps(s, &vu, &vv, ps, pp, x, y, xf->u.width, xf->u.height, NULL);
}

/* cpu_terms_rows_<stem>: the rows [y0, y1) of a terms operation whose
 * arguments A have the system s and the flow x. */
#define CPU_TERMS_ROWS(stem, A)                                                                  \
    FLOW_CPU_CLONES static void cpu_terms_rows_##stem(void *ctx, int chunk, int y0, int y1)     \
    {                                                                                            \
        const cpu_terms_job *job = ctx;                                                          \
        const A local = *(const A *)job->args;                                                   \
        const A *a = &local;                                                                     \
        const flow_system *s = &a->s;                                                            \
        const int w = a->x.u.width, h = a->x.u.height, pu = a->x.u.pitch;                        \
        const int ya = y0 > 0 ? y0 - 1 : 0, yb = y1 < h ? y1 : h - 1;                            \
        /* unread without a robust smoothness term (flow_var_terms_ps) */                       \
        float *ps = job->psi ? job->psi + (long)(y0 + 2 * chunk) * w : NULL;                     \
        if (ps)                                                                                  \
            cpu_psi_rows(s, &a->x, ps, w, ya, yb);                                               \
        for (int y = y0; y < y1; y++) {                                                          \
            const float *pr = ps ? ps + (long)(y - ya) * w : NULL;                               \
            const int inner = y > 0 && y < h - 1 && w > 2;                                       \
            for (int x = 0; x < w; x += inner && x == 0 ? w - 1 : 1) {                           \
                float fu, fv;                                                                    \
                own_##stem(a, x, y, &fu, &fv);                                                   \
                const flow_var_terms t = cpu_terms_border(s, &a->x, pr ? pr + x : NULL, w, x, y); \
                finish_##stem(a, &t, fu, fv, x, y);                                              \
            }                                                                                    \
            if (!inner)                                                                          \
                continue;                                                                        \
            const float *u = a->x.u.data + (long)y * pu, *v = a->x.v.data + (long)y * pu;        \
            _Pragma("omp simd") for (int x = 1; x < w - 1; x++)                                  \
            {                                                                                    \
                float fu, fv;                                                                    \
                own_##stem(a, x, y, &fu, &fv);                                                   \
                const flow_var_terms t = flow_var_terms_tile(s, u + x, v + x, pu,                \
                                                             pr ? pr + x : NULL, w, NULL, x, y,  \
                                                             w, h);                              \
                finish_##stem(a, &t, fu, fv, x, y);                                              \
            }                                                                                    \
        }                                                                                        \
    }                                                                                            \
    flow_status cpu_##stem(flow_device *d, const A *a)                                           \
    {                                                                                            \
        const int w = a->x.u.width, h = a->x.u.height;                                           \
        const int chunks = cpu_chunks(w, h, FLOW_CPU_GRAIN);                                     \
        cpu_terms_job job = { a, NULL };                                                         \
        if (a->s.flags & FLOW_SYS_PSI_S)                                                         \
            FLOW_TRY(cpu_scratch(d, (size_t)w * (size_t)(h + 2 * chunks), &job.psi));           \
        cpu_for_rows(d, w, h, FLOW_CPU_GRAIN, cpu_terms_rows_##stem, &job);                      \
        return FLOW_OK;                                                                          \
    }

CPU_TERMS_ROWS(jacobi_sweep, flow_jacobi_sweep_args)
CPU_TERMS_ROWS(residual, flow_residual_args)
CPU_TERMS_ROWS(apply, flow_apply_args)

/* Psi'_S of a sweep's start, a row at a time (cpu_psi_rows).  One build,
 * not FLOW_CPU_CLONES: the loop is bound by square roots and divisions,
 * which its 256-bit build ran slower than the baseline 128-bit one on the
 * AMD EPYC (Zen 3) measured. */
static void cpu_diffusivity_rows(void *ctx, int chunk, int y0, int y1)
{
    (void)chunk;
    const flow_diffusivity_args *a = ctx;
    cpu_psi_rows(&a->s, &a->x, a->ps.data + (long)y0 * a->ps.pitch, a->ps.pitch, y0, y1 - 1);
}

flow_status cpu_diffusivity(flow_device *d, const flow_diffusivity_args *a)
{
    cpu_for_rows(d, a->ps.width, a->ps.height, FLOW_CPU_GRAIN, cpu_diffusivity_rows, (void *)a);
    return FLOW_OK;
}

/* ---- the colours of red-black SOR ----------------------------------------- */

/* The interior points k0 .. k1 - 1 of one colour of row y (pixels 2k +
 * first), the system's flags and term count taken as `flags` and `n`
 * (robust terms) when n > 0: inlined where these are constants, the
 * per-pixel functions' tests on them fold away and the loop vectorises.
 * Every value is read from the planes' rows without a test (each
 * neighbour is inside), and the per-pixel functions compute from them
 * what flow_sor_tile computes. */
FLOW_CPU_INLINE static void cpu_sor_interior(const flow_sor_half_args *a, int y, int first,
                                             int k0, int k1, unsigned flags, int n)
{
    flow_system sys = a->s;
    cpu_system_as(&sys, flags, n);
    const int w = a->x.u.width, h = a->x.u.height, pu = a->x.u.pitch;
    float *u = a->x.u.data + (long)y * pu, *v = a->x.v.data + (long)y * pu;
    cpu_rows in;
    cpu_rows_at(&sys, &a->ps, &a->f, y, &in);
    const float omega = a->omega;
    FLOW_CPU_INDEPENDENT
    for (int k = k0; k < k1; k++) {
        const int x = 2 * k + first;
        const flow_var_terms t = cpu_terms_inside(&sys, &in, u + x, v + x, pu, x, y, w, h);
        float fu, fv, nu, nv;
        cpu_rhs_inside(&sys, &in, x, &fu, &fv);
        flow_sor_new(&sys, &t, fu, fv, omega, &nu, &nv);
        v[x] = nv;
        u[x] = nu;
    }
}

#define CPU_SOR_VARIANT(n, flags)                                                                \
    case CPU_VARIANT(n, flags):                                                                  \
        cpu_sor_interior(a, y, first, k0, k1, flags, n);                                         \
        break;

/* The points of one colour in rows [y0, y1): on the grid's border the
 * per-pixel function; inside, flow_sor_tile from the flow's own rows (the
 * values of flow_sor_half_px there).  The points of a row read only the
 * other colour and the rows above and below, so they are independent. */
FLOW_CPU_CLONES FLOW_CPU_FLAT static void cpu_sor_half_rows(void *ctx, int chunk, int y0, int y1)
{
    const flow_sor_half_args local = *(const flow_sor_half_args *)ctx;
    const flow_sor_half_args *a = &local;
    const int w = a->x.u.width, h = a->x.u.height, hw = (w + 1) / 2;
    const int shared_pitch = a->x.v.pitch == a->x.u.pitch;
    const int variant = cpu_variant(&a->s);
    for (int y = y0; y < y1; y++) {
        const int first = (y + a->colour) & 1;
        /* points k whose pixel 2k + first lies in [1, w - 2] */
        const int k0 = first ? 0 : 1, k1 = (w - 2 - first) / 2 + 1;
        if (y == 0 || y == h - 1 || w < 3 || !shared_pitch) {
            for (int k = 0; k < hw; k++)
                flow_sor_half_px(a, k, y);
            continue;
        }
        for (int k = 0; k < k0; k++)
            flow_sor_half_px(a, k, y);
        switch (variant) {
            CPU_VARIANTS(CPU_SOR_VARIANT)
        default:
            cpu_sor_interior(a, y, first, k0, k1, 0, 0);
        }
        for (int k = k1; k < hw; k++)
            flow_sor_half_px(a, k, y);
    }
}

flow_status cpu_sor_half(flow_device *d, const flow_sor_half_args *a)
{
    cpu_for_rows(d, (a->x.u.width + 1) / 2, a->x.u.height, FLOW_CPU_GRAIN, cpu_sor_half_rows,
                 (void *)a);
    return FLOW_OK;
}
