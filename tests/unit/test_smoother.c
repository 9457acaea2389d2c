/* test_smoother.c -- the seams of the smoother (core/smoother.c) and of the
 * multigrid cycle, on the device of FLOW_DEVICE (default cpu): the small-grid
 * smoother (one device call for every sweep on a grid of at most
 * FLOW_SMALL_GRID pixels) and the device's SOR and Jacobi sweeps compute bit
 * for bit what the per-pixel sweeps compute; Jacobi leaves an odd number of
 * sweeps in the level's x; the cycles from small levels run as one
 * small_cycle call give the separate calls' result; a smoothness weight of
 * 1/2 equals halving alpha.  The solvers as numerical methods are tested in
 * test_solvers.c. */
#include "harness.h"
#include "core/fused.h"
#include "core/multigrid.h"
#include "core/pair.h"
#include "core/tensor.h"
#include "device/device.h"
#include "flow/flow.h"

#include <stdlib.h>
#include <string.h>

static void upload_random(flow_device *d, const flow_plane *p, unsigned seed, double lo,
                          double hi)
{
    const int n = p->width * p->height;
    float *h = malloc(sizeof(float) * (size_t)n);
    for (int i = 0; i < n; i++)
        h[i] = (float)(lo + (hi - lo) * harness_uniform(&seed));
    CHECK_OK(flow_upload(d, (flow_plane *)p, h, (size_t)p->width));
    free(h);
}

/* A random motion tensor: at each pixel g g^T of a random g = (fx, fy, ft)
 * (a tensor of one pixel's derivatives: positive semidefinite, so that the
 * robust weights see s^2 >= 0 as in a real system). */
static void random_tensor(flow_device *d, const flow_tensor *J, unsigned seed)
{
    const int w = J->j11.width, h = J->j11.height, n = w * h;
    float *c[6];
    for (int k = 0; k < 6; k++)
        c[k] = malloc(sizeof(float) * (size_t)n);
    for (int i = 0; i < n; i++) {
        const float g[3] = { (float)(20.0 * harness_uniform(&seed) - 10.0),
                             (float)(20.0 * harness_uniform(&seed) - 10.0),
                             (float)(20.0 * harness_uniform(&seed) - 10.0) };
        static const int row[6] = { 0, 0, 0, 1, 1, 2 }, col[6] = { 0, 1, 2, 1, 2, 2 };
        for (int k = 0; k < 6; k++)
            c[k][i] = g[row[k]] * g[col[k]];
    }
    const flow_plane *p[6] = { &J->j11, &J->j12, &J->j13, &J->j22, &J->j23, &J->j33 };
    for (int k = 0; k < 6; k++) {
        CHECK_OK(flow_upload(d, (flow_plane *)p[k], c[k], (size_t)w));
        free(c[k]);
    }
}

/* Both pairs' values downloaded: a's u and v, then b's (n = w h each). */
static float *download_two(flow_device *d, const flow_pair *a, const flow_pair *b, size_t *n)
{
    const int w = a->u.width, h = a->u.height;
    *n = (size_t)w * h;
    float *x = malloc(4 * *n * sizeof(float));
    CHECK_OK(flow_download(d, x, (size_t)w, &a->u));
    CHECK_OK(flow_download(d, x + *n, (size_t)w, &a->v));
    CHECK_OK(flow_download(d, x + 2 * *n, (size_t)w, &b->u));
    CHECK_OK(flow_download(d, x + 3 * *n, (size_t)w, &b->v));
    return x;
}

/* Whether the pairs a and b hold the same bits. */
static int same_pair(flow_device *d, const flow_pair *a, const flow_pair *b)
{
    size_t n;
    float *x = download_two(d, a, b, &n);
    int finite = 1;
    for (size_t i = 0; i < 2 * n; i++)
        finite &= isfinite(x[i]);
    CHECK(finite);
    const int same = memcmp(x, x + 2 * n, 2 * n * sizeof(float)) == 0;
    free(x);
    return same;
}

/* The largest difference between two pairs' values. */
static double max_diff(flow_device *d, const flow_pair *a, const flow_pair *b)
{
    size_t n;
    float *x = download_two(d, a, b, &n);
    double m = 0;
    for (size_t i = 0; i < 2 * n; i++)
        m = fmax(m, fabs((double)x[i] - x[i + 2 * n]));
    free(x);
    return m;
}

/* Random systems on a w x h grid for the smoother comparisons: two random
 * tensors, a smoothness weight g, a start x0 and a right-hand side f, and
 * two iterate/scratch pairs, one per path (xs, ts: the path under test; xp,
 * tp: the per-pixel operations). */
typedef struct sweep_case {
    flow_tensor J[2];
    flow_plane g;
    flow_pair x0, f, xs, ts, xp, tp;
} sweep_case;

static void sweep_case_open(flow_device *d, sweep_case *c, int w, int h, unsigned seed_j,
                            unsigned seed_x)
{
    for (int k = 0; k < 2; k++) {
        CHECK_OK(flow_tensor_alloc(d, &c->J[k], w, h));
        random_tensor(d, &c->J[k], seed_j + (unsigned)k);
    }
    CHECK_OK(flow_plane_alloc(d, &c->g, w, h));
    upload_random(d, &c->g, seed_j + 5u, 0.05, 1.0);
    flow_pair *pairs[6] = { &c->x0, &c->f, &c->xs, &c->ts, &c->xp, &c->tp };
    for (int i = 0; i < 6; i++)
        CHECK_OK(flow_pair_alloc(d, pairs[i], w, h));
    upload_random(d, &c->x0.u, seed_x + 1, -1.0, 1.0);
    upload_random(d, &c->x0.v, seed_x + 2, -1.0, 1.0);
    upload_random(d, &c->f.u, seed_x + 3, -50.0, 50.0);
    upload_random(d, &c->f.v, seed_x + 4, -50.0, 50.0);
}

static void sweep_case_close(flow_device *d, sweep_case *c)
{
    for (int k = 0; k < 2; k++)
        flow_tensor_free(d, &c->J[k]);
    flow_plane_free(d, &c->g);
    flow_pair *pairs[6] = { &c->x0, &c->f, &c->xs, &c->ts, &c->xp, &c->tp };
    for (int i = 0; i < 6; i++)
        flow_pair_free(d, pairs[i]);
}

/* A system of nterms of the case's tensors, robust (terms and smoothness,
 * the latter weighted by g when edge) or quadratic; with a right-hand side,
 * the grid steps (2, hy) of a coarse grid.  Both paths start from x0. */
static flow_system sweep_case_system(flow_device *d, const sweep_case *c, int nterms,
                                     int nonlinear, int edge, int rhs, float hy)
{
    flow_system s;
    memset(&s, 0, sizeof s);
    s.nterms = nterms;
    for (int k = 0; k < nterms; k++) {
        s.term[k].J = c->J[k];
        s.term[k].weight = k ? 0.6f : 1.0f;
        s.term[k].eps2 = k ? 0.25f : 1.0f;
        s.term[k].robust = nonlinear;
    }
    flow_system_grid(&s, nonlinear ? 10.0f : 400.0f, rhs ? 2.0f : 1.0f, rhs ? hy : 1.0f);
    s.eps_s2 = 1e-4f;
    s.flags = FLOW_SYS_AFFINE | (rhs ? FLOW_SYS_RHS : 0u) | (nonlinear ? FLOW_SYS_PSI_S : 0u);
    if (nonlinear && edge) {
        s.flags |= FLOW_SYS_EDGE;
        s.g = c->g;
    }
    const flow_copy_pair_args start_s = { c->xs, c->x0 }, start_p = { c->xp, c->x0 };
    CHECK_OK(flow_k_copy_pair(d, &start_s));
    CHECK_OK(flow_k_copy_pair(d, &start_p));
    return s;
}

/* The per-pixel red-black SOR: per sweep the diffusivities (a robust
 * smoothness term) into t.u, then each colour in place on x. */
static void per_pixel_sor(flow_device *d, const flow_system *s, const flow_pair *x,
                          const flow_pair *t, const flow_pair *f, float omega, int sweeps)
{
    flow_sor_half_args half = { *s, *x, *f, t->u, 0, omega };
    const flow_diffusivity_args diff = { *s, *x, t->u };
    for (int k = 0; k < sweeps; k++) {
        if (s->flags & FLOW_SYS_PSI_S)
            CHECK_OK(flow_k_diffusivity(d, &diff));
        for (half.colour = 0; half.colour < 2; half.colour++)
            CHECK_OK(flow_k_sor_half(d, &half));
    }
}

/* The small-grid fast paths (flow_jacobi_small and flow_sor_small of
 * pixel/variational.h, flow_small_cycle and flow_restrict_small of
 * pixel/coarse.h: what the CUDA backend runs in one block) run by one
 * worker on the CPU device's host planes, so that CI compares them with
 * the operations of the list that they stand for. */
static flow_status one_worker_smooth_small(flow_device *d, const flow_smooth_small_args *a)
{
    (void)d;
    float ps[FLOW_SMALL_GRID];
    if (a->sor)
        flow_sor_small(a, ps, 0, 1);
    else
        flow_jacobi_small(a, ps, 0, 1);
    return FLOW_OK;
}

static flow_status one_worker_small_cycle(flow_device *d, const flow_small_cycle_args *a)
{
    (void)d;
    float ps[FLOW_SMALL_GRID];
    flow_small_cycle_args own = *a; /* FMG changes its levels' flags */
    flow_small_cycle(&own, ps, 0, 1);
    return FLOW_OK;
}

static flow_status one_worker_restrict_small(flow_device *d, const flow_restrict_small_args *a)
{
    (void)d;
    flow_restrict_small(a, 0, 1);
    return FLOW_OK;
}

/* d's operations with the small-grid fast paths: the backend's own where it
 * has them, else (the CPU) the one-worker ones above. */
static const flow_device_ops *with_small_paths(const flow_device *d)
{
    static flow_device_ops ops;
    ops = *d->ops;
    const int host = strcmp(ops.kind, "cpu") == 0;
    CHECK(host || (ops.smooth_small && ops.small_cycle && ops.restrict_small));
    if (host) {
        ops.smooth_small = one_worker_smooth_small;
        ops.small_cycle = one_worker_small_cycle;
        ops.restrict_small = one_worker_restrict_small;
    }
    return &ops;
}

/* d's operations without the small cycle and the small levels' restriction:
 * the multigrid runs them an operation per call. */
static const flow_device_ops *without_small_cycle(const flow_device *d)
{
    static flow_device_ops ops;
    ops = *d->ops;
    ops.small_cycle = NULL;
    ops.restrict_small = NULL;
    return &ops;
}

/* The small-grid smoother (flow_jacobi_small and flow_sor_small of pixel/variational.h, the
 * device's smooth_small: every sweep in one call, each sweep's Psi'_S
 * evaluated once per pixel) against the per-pixel sweeps that larger grids
 * run (jacobi_sweep x -> t -> x ..., sor_half red then black after the
 * diffusivity pass of a robust smoothness term): bit for bit, on a random 37x23
 * system with one or two data terms, linear or nonlinear (with and without
 * a random smoothness weight), with or without a right-hand side, Jacobi and
 * SOR, odd and even sweep counts. */
static void test_small_smoother_matches_sweeps(void)
{
    flow_device *d = harness_device();
    if (!d)
        return;
    const int w = 37, h = 23;
    CHECK(w * h <= FLOW_SMALL_GRID);
    sweep_case c;
    sweep_case_open(d, &c, w, h, 70u, 0u);
    const flow_pair none = { { 0 }, { 0 } };
    int cases = 0, identical = 0;
    for (int combo = 0; combo < 64; combo++) {
        const int nonlinear = combo & 1, rhs = (combo >> 1) & 1, nterms = 1 + ((combo >> 2) & 1);
        const int sor = (combo >> 3) & 1, sweeps = (combo >> 4) & 1 ? 7 : 6, edge = combo >> 5;
        if (edge && !nonlinear) /* a weight of Psi'_S only */
            continue;
        /* with a right-hand side, as on a coarse grid: grid steps above 1 */
        const flow_system s =
            sweep_case_system(d, &c, nterms, nonlinear, edge, rhs, 23.0f / 12.0f);
        const float omega = sor ? 1.3f : 0.8f;
        const flow_pair fr = rhs ? c.f : none;
        /* the small smoother */
        const flow_smooth_small_args a = { s, c.xs, c.ts, fr, omega, sweeps, sor };
        const flow_device_ops *own = d->ops;
        d->ops = with_small_paths(d);
        CHECK_OK(flow_smooth_small_run(d, &a));
        d->ops = own;
        /* the per-pixel sweeps */
        const flow_pair *result = &c.xp;
        if (sor) {
            per_pixel_sor(d, &s, &c.xp, &c.tp, &fr, omega, sweeps);
        } else {
            flow_jacobi_sweep_args j = { s, c.tp, c.xp, fr, omega };
            for (int k = 0; k < sweeps; k++) {
                j.out = k % 2 ? c.xp : c.tp;
                j.x = k % 2 ? c.tp : c.xp;
                CHECK_OK(flow_k_jacobi_sweep(d, &j));
            }
            result = sweeps % 2 ? &c.tp : &c.xp;
        }
        const int same = same_pair(d, &c.xs, result);
        if (!same)
            fprintf(stderr, "    differs: %s, %d sweeps, %s%s, %d term(s), %s\n",
                    sor ? "rbsor" : "jacobi", sweeps, nonlinear ? "nonlinear" : "linear",
                    edge ? " with g" : "", nterms, rhs ? "with f" : "f = 0");
        cases++;
        identical += same;
        /* the smoother moved x: not a comparison of two untouched copies */
        if (combo == 0)
            CHECK(!same_pair(d, &c.xs, &c.x0));
    }
    printf("    %d of %d systems (jacobi/rbsor, 6/7 sweeps, linear/nonlinear/weighted, 1/2 "
           "terms, f/no f) bit-identical\n", identical, cases);
    CHECK(identical == cases);
    sweep_case_close(d, &c);
}

/* The device's SOR sweeps (on the GPU: a launch per sweep on tiles with
 * their borders, x -> t -> x) against the per-pixel operations they stand
 * for (the diffusivities, then each colour in place): bit for bit, on a
 * random 97x45 system (tiles cut at the right and bottom edges), one or
 * two data terms, linear or nonlinear (with and without a random
 * smoothness weight), with or without a right-hand side, odd and even
 * sweep counts, after no prolongation or one of the multigrid's three
 * kinds (the prolongation's own operation first); the result in x. */
static void test_sor_sweeps_match_halves(void)
{
    flow_device *d = harness_device();
    if (!d)
        return;
    sweep_case c;
    sweep_case_open(d, &c, 97, 45, 90u, 10u);
    const flow_pair none = { { 0 }, { 0 } };
    flow_pair cx, cr;
    CHECK_OK(flow_pair_alloc(d, &cx, 49, 23));
    CHECK_OK(flow_pair_alloc(d, &cr, 49, 23));
    upload_random(d, &cx.u, 41u, -2.0, 2.0);
    upload_random(d, &cx.v, 42u, -2.0, 2.0);
    upload_random(d, &cr.u, 43u, -2.0, 2.0);
    upload_random(d, &cr.v, 44u, -2.0, 2.0);
    int cases = 0, identical = 0;
    for (int combo = 0; combo < 32; combo++) {
        const int nonlinear = combo & 1, rhs = (combo >> 1) & 1, nterms = 1 + ((combo >> 2) & 1);
        const int sweeps = (combo >> 3) & 1 ? 5 : 4, edge = combo >> 4;
        if (edge && !nonlinear)
            continue;
        const flow_system s = sweep_case_system(d, &c, nterms, nonlinear, edge, rhs, 1.5f);
        const float omega = 1.4f;
        const flow_pair fr = rhs ? c.f : none;
        const int pre = combo % 4; /* none, x = P x2, x += P e, x += P (x2 - xr) */
        const flow_prolong_pair_args pp = { c.xp, cx, pre == 3 ? cr : none, pre == 3, pre > 1,
                                            0.0f };
        flow_sor_sweeps_args a = { .s = s, .x = c.xs, .t = c.ts, .f = fr, .omega = omega,
                                   .sweeps = sweeps, .with_pre = pre > 0, .pre = pp };
        a.pre.fine = c.xs;
        int passes = 0;
        CHECK_OK(flow_sor_sweeps_run(d, &a, &passes));
        if (pre)
            CHECK_OK(flow_k_prolong_pair(d, &pp));
        per_pixel_sor(d, &s, &c.xp, &c.tp, &fr, omega, sweeps);
        const int same = same_pair(d, &c.xs, &c.xp);
        if (!same)
            fprintf(stderr, "    differs by up to %.3g: %d sweeps, %s%s, %d term(s), %s, "
                    "prolongation %d\n", max_diff(d, &c.xs, &c.xp), sweeps,
                    nonlinear ? "nonlinear" : "linear", edge ? " with g" : "", nterms,
                    rhs ? "with f" : "f = 0", pre);
        cases++;
        identical += same;
        if (combo == 0) /* the sweeps moved x */
            CHECK(!same_pair(d, &c.xs, &c.x0));
    }
    printf("    %d of %d systems (4/5 sweeps, linear/nonlinear/weighted, 1/2 terms, f/no f, 4 "
           "prolongations) bit-identical\n", identical, cases);
    CHECK(identical == cases);
    flow_pair_free(d, &cx);
    flow_pair_free(d, &cr);
    sweep_case_close(d, &c);
}

/* The device's Jacobi sweeps (on the GPU: two sweeps per launch on tiles
 * with their borders, x -> t -> x, then one for an odd count) against the
 * per-pixel sweeps they stand for: bit for bit, on random systems of one
 * or two data terms, linear or nonlinear (with and without a random
 * smoothness weight), with or without a right-hand side, 2 to 5 sweeps,
 * the result in x or left in t, after no prolongation or after one of the
 * three kinds the multigrid hands them (x = P x2, x += P e, x += P (x2 -
 * xr); against the prolongation's own operation first), with a
 * right-hand side given or computed from an entry (f = R r + N(x) of a
 * random finer residual r; against an apply first, f itself compared
 * too); on grids whose
 * tiles are cut at the right and bottom edges, of fewer tiles than the
 * GPU's multiprocessors, of a few times more, and of a single tile
 * narrower than its border. */
static void test_jacobi_sweeps_match_sweeps(void)
{
    flow_device *d = harness_device();
    if (!d)
        return;
    static const int sizes[4][2] = { { 97, 45 }, { 7, 5 }, { 400, 300 }, { 650, 310 } };
    const flow_pair none = { { 0 }, { 0 } };
    int cases = 0, identical = 0;
    for (int z = 0; z < 4; z++) {
        sweep_case c;
        sweep_case_open(d, &c, sizes[z][0], sizes[z][1], 110u + (unsigned)z, 20u);
        const int cw = (sizes[z][0] + 1) / 2, ch = (sizes[z][1] + 1) / 2;
        flow_pair cx, cr, er, fe, fp; /* er: a residual of the finer grid; fe, fp: f from it */
        CHECK_OK(flow_pair_alloc(d, &cx, cw, ch));
        CHECK_OK(flow_pair_alloc(d, &cr, cw, ch));
        CHECK_OK(flow_pair_alloc(d, &er, 2 * sizes[z][0] - 1, 2 * sizes[z][1]));
        CHECK_OK(flow_pair_alloc(d, &fe, sizes[z][0], sizes[z][1]));
        CHECK_OK(flow_pair_alloc(d, &fp, sizes[z][0], sizes[z][1]));
        upload_random(d, &cx.u, 31u + (unsigned)z, -2.0, 2.0);
        upload_random(d, &cx.v, 32u + (unsigned)z, -2.0, 2.0);
        upload_random(d, &cr.u, 33u + (unsigned)z, -2.0, 2.0);
        upload_random(d, &cr.v, 34u + (unsigned)z, -2.0, 2.0);
        upload_random(d, &er.u, 35u + (unsigned)z, -1.0, 1.0);
        upload_random(d, &er.v, 36u + (unsigned)z, -1.0, 1.0);
        for (int combo = 0; combo < 64; combo++) {
            const int nonlinear = combo & 1, rhs = (combo >> 1) & 1;
            const int nterms = 1 + ((combo >> 2) & 1), edge = (combo >> 3) & 1;
            const int sweeps = 2 + ((combo >> 4) & 3), odd_in_t = (combo + z) % 3 == 0;
            if (edge && !nonlinear)
                continue;
            const flow_system s = sweep_case_system(d, &c, nterms, nonlinear, edge, rhs, 1.5f);
            const float weight = 0.8f;
            const flow_pair fr = rhs ? c.f : none;
            const int pre = (combo + z) % 4; /* none, x = P x2, x += P e, x += P (x2 - xr) */
            const int entry = rhs && (combo + z) % 3 == 1;
            flow_jacobi_sweeps_args a = { .s = s, .x = c.xs, .t = c.ts, .f = entry ? fe : fr,
                                          .weight = weight, .sweeps = sweeps,
                                          .odd_in_t = odd_in_t, .with_pre = pre > 0,
                                          .with_entry = entry, .entry = er };
            const flow_prolong_pair_args pp = { c.xp, cx, pre == 3 ? cr : none, pre == 3,
                                                pre > 1, 0.0f };
            a.pre = pp;
            a.pre.fine = c.xs;
            int passes = 0;
            CHECK_OK(flow_jacobi_sweeps_run(d, &a, &passes));
            CHECK(passes >= (sweeps + 1) / 2 && passes <= sweeps);
            if (pre)
                CHECK_OK(flow_k_prolong_pair(d, &pp));
            if (entry) {
                const flow_apply_args ap = { s, fp, c.xp, er, 1 };
                CHECK_OK(flow_k_apply(d, &ap));
            }
            flow_jacobi_sweep_args j = { s, c.tp, c.xp, entry ? fp : fr, weight };
            for (int k = 0; k < sweeps; k++) {
                j.out = k % 2 ? c.xp : c.tp;
                j.x = k % 2 ? c.tp : c.xp;
                CHECK_OK(flow_k_jacobi_sweep(d, &j));
            }
            const int in_t = odd_in_t && passes % 2;
            const flow_pair *got = in_t ? &c.ts : &c.xs, *want = sweeps % 2 ? &c.tp : &c.xp;
            const int same = same_pair(d, got, want) && (!entry || same_pair(d, &fe, &fp));
            if (!same)
                fprintf(stderr, "    %dx%d differs by up to %.3g: %d sweeps%s, %s%s, %d term(s), "
                        "%s, prolongation %d\n", sizes[z][0], sizes[z][1], max_diff(d, got, want),
                        sweeps, in_t ? " (in t)" : "", nonlinear ? "nonlinear" : "linear",
                        edge ? " with g" : "", nterms,
                        entry ? "f from an entry" : rhs ? "with f" : "f = 0", pre);
            cases++;
            identical += same;
            if (combo == 0) /* the sweeps moved x */
                CHECK(!same_pair(d, got, &c.x0));
        }
        flow_pair_free(d, &cx);
        flow_pair_free(d, &cr);
        flow_pair_free(d, &er);
        flow_pair_free(d, &fe);
        flow_pair_free(d, &fp);
        sweep_case_close(d, &c);
    }
    printf("    %d of %d systems (4 grids, 2-5 sweeps, in x or t, linear/nonlinear/weighted, "
           "1/2 terms, f/no f/f from an entry, 4 prolongations) bit-identical\n", identical,
           cases);
    CHECK(identical == cases);
}

static void ignore_line(void *user, const char *line)
{
    (void)user, (void)line;
}

/* Jacobi through flow_mg_smooth on a level larger than FLOW_SMALL_GRID (the
 * per-pixel path, x -> t -> x ...): after an odd number of sweeps the
 * result is back in the level's x, bit for bit what the sweeps compute
 * (there it is in the partner t); likewise an even number, and one sweep
 * at a time as under a trace observer. */
static void test_mg_smooth_odd_jacobi(void)
{
    flow_device *d = harness_device();
    if (!d)
        return;
    const int w = 80, h = 64;
    CHECK(w * h > FLOW_SMALL_GRID);
    flow_solver_params sp;
    memset(&sp, 0, sizeof sp);
    sp.solver = FLOW_SOLVER_JACOBI;
    sp.smoother = FLOW_SOLVER_JACOBI;
    sp.iterations = 1;
    sp.omega = 1.0;
    sp.jacobi_weight = 0.8;
    sp.n0 = 1, sp.n1 = sp.n2 = 2, sp.cycles = 1, sp.max_depth = -1;
    for (int nl = 0; nl < 2; nl++) {
        flow_mg_model m;
        memset(&m, 0, sizeof m);
        m.nterms = 1;
        m.term[0].weight = 1.0f, m.term[0].eps2 = 1.0f, m.term[0].robust = nl;
        m.alpha = nl ? 10.0f : 400.0f;
        m.eps_s2 = 1e-4f;
        m.robust_smooth = nl;
        flow_mg *mg = NULL;
        CHECK_OK(flow_mg_create(d, w, h, &sp, &m, &mg));
        if (!mg)
            return;
        CHECK(mg->nlevels == 1 && !mg->use_sor && mg->nonlinear == nl);
        flow_mg_level *L = &mg->lev[0];
        random_tensor(d, flow_mg_tensor(mg, 0), 90u + (unsigned)nl);
        flow_pair x0, x, t;
        CHECK_OK(flow_pair_alloc(d, &x0, w, h));
        CHECK_OK(flow_pair_alloc(d, &x, w, h));
        CHECK_OK(flow_pair_alloc(d, &t, w, h));
        upload_random(d, &x0.u, 11, -1.0, 1.0);
        upload_random(d, &x0.v, 12, -1.0, 1.0);
        const unsigned flags = flow_mg_flags_full(mg);
        flow_system s = L->sys;
        s.flags = flags;
        const flow_pair none = { { 0 }, { 0 } };
        for (int n = 3; n <= 4; n++)
            for (int traced = 0; traced < 2; traced++) {
                flow_exec ex;
                memset(&ex, 0, sizeof ex);
                ex.dev = d;
                if (traced)
                    ex.obs.trace = ignore_line;
                const flow_copy_pair_args start_l = { L->x, x0 }, start_m = { x, x0 };
                CHECK_OK(flow_k_copy_pair(d, &start_l));
                CHECK_OK(flow_k_copy_pair(d, &start_m));
                CHECK_OK(flow_mg_smooth(mg, &ex, 0, flags, n, "J", "test", NULL, NULL, NULL));
                flow_jacobi_sweep_args j = { s, t, x, none, (float)sp.jacobi_weight };
                for (int k = 0; k < n; k++) {
                    j.out = k % 2 ? x : t;
                    j.x = k % 2 ? t : x;
                    CHECK_OK(flow_k_jacobi_sweep(d, &j));
                }
                const int same = same_pair(d, &L->x, n % 2 ? &t : &x);
                printf("    %s, %d sweeps%s: level x %s the sweeps' result\n",
                       nl ? "nonlinear" : "linear", n, traced ? " (traced)" : "",
                       same ? "holds" : "does NOT hold");
                CHECK(same);
            }
        flow_pair_free(d, &x0), flow_pair_free(d, &x), flow_pair_free(d, &t);
        flow_mg_destroy(mg);
    }
}

/* The model of the multigrid comparisons: nterms data terms (weights 1 and
 * 0.6), robust (with a robust smoothness term) or quadratic. */
static flow_mg_model mg_test_model(int nterms, int nonlinear)
{
    flow_mg_model m;
    memset(&m, 0, sizeof m);
    m.nterms = nterms;
    for (int k = 0; k < nterms; k++) {
        m.term[k].weight = k ? 0.6f : 1.0f;
        m.term[k].eps2 = k ? 0.25f : 1.0f;
        m.term[k].robust = nonlinear;
    }
    m.alpha = nonlinear ? 10.0f : 400.0f;
    m.eps_s2 = 1e-4f;
    m.robust_smooth = nonlinear;
    return m;
}

/* A solve of mg warm-started from a random x (seeds seed, seed + 1). */
static void mg_solve_from_random(flow_device *d, flow_mg *mg, unsigned seed)
{
    upload_random(d, &mg->lev[0].x.u, seed, -1.0, 1.0);
    upload_random(d, &mg->lev[0].x.v, seed + 1, -1.0, 1.0);
    mg->warm = 1;
    flow_exec ex;
    memset(&ex, 0, sizeof ex);
    ex.dev = d;
    CHECK_OK(flow_mg_solve(mg, &ex));
}

/* The cycles from small levels run as one small_cycle call
 * (pixel/coarse.h: the backend's, or by one worker on the CPU) or as a call
 * per operation (the multigrid's own, on a backend without the small cycle,
 * the CPU's): the same solution bit for
 * bit, for V, W and FMG, linear (correction scheme) and nonlinear (FAS),
 * Jacobi and SOR smoothers, one and two data terms, on a grid small from
 * the top (57x41) and on one whose small levels start lower down (150x90:
 * 75x45 and below). */
static void test_small_cycle_matches_calls(void)
{
    flow_device *d = harness_device();
    if (!d)
        return;
    static const int sizes[2][2] = { { 57, 41 }, { 150, 90 } };
    static const int solvers[3] = { FLOW_SOLVER_VCYCLE, FLOW_SOLVER_WCYCLE, FLOW_SOLVER_FMG };
    int cases = 0, identical = 0;
    for (int combo = 0; combo < 96; combo++) {
        if (!harness_in_part(combo))
            continue;
        const int nl = combo & 1, sor = (combo >> 1) & 1, nterms = 1 + ((combo >> 2) & 1);
        const int solver = solvers[(combo >> 3) % 3], big = combo / 24 % 2, edge = combo / 48;
        if (edge && !nl) /* a weight of Psi'_S only */
            continue;
        const int w = sizes[big][0], h = sizes[big][1];
        flow_solver_params sp;
        memset(&sp, 0, sizeof sp);
        sp.solver = solver;
        sp.smoother = sor ? FLOW_SOLVER_RBSOR : FLOW_SOLVER_JACOBI;
        sp.omega = 1.2;
        sp.jacobi_weight = 0.8;
        sp.n0 = 3, sp.n1 = 2, sp.n2 = 1, sp.cycles = 2, sp.max_depth = -1;
        flow_mg_model m = mg_test_model(nterms, nl);
        m.edge = edge;
        flow_mg *mg[2] = { NULL, NULL };
        CHECK_OK(flow_mg_create(d, w, h, &sp, &m, &mg[0]));
        CHECK_OK(flow_mg_create(d, w, h, &sp, &m, &mg[1]));
        if (!mg[0] || !mg[1]) {
            flow_mg_destroy(mg[0]);
            flow_mg_destroy(mg[1]);
            return;
        }
        CHECK(mg[0]->nlevels > 3 && mg[0]->use_sor == sor && mg[0]->nonlinear == nl);
        const flow_device_ops *own = d->ops;
        for (int i = 0; i < 2; i++) {
            for (int k = 0; k < nterms; k++)
                random_tensor(d, flow_mg_tensor(mg[i], k), 300u + 7u * (unsigned)combo + k);
            if (edge)
                upload_random(d, flow_mg_edge(mg[i]), 23, 0.05, 1.0);
            d->ops = i ? without_small_cycle(d) : with_small_paths(d);
            mg_solve_from_random(d, mg[i], 21); /* V and W start from x */
            d->ops = own;
        }
        const int same = same_pair(d, &mg[0]->lev[0].x, &mg[1]->lev[0].x);
        if (!same)
            fprintf(stderr, "    differs: %dx%d %s, %s, %s%s, %d term(s)\n", w, h,
                    flow_solver_names[solver], sor ? "rbsor" : "jacobi",
                    nl ? "nonlinear" : "linear", edge ? " with g" : "", nterms);
        cases++;
        identical += same;
        flow_mg_destroy(mg[0]);
        flow_mg_destroy(mg[1]);
    }
    printf("    %d of %d solves (V/W/FMG, jacobi/rbsor, linear/nonlinear/weighted, 1/2 terms, "
           "57x41 and 150x90) bit-identical\n", identical, cases);
    CHECK(identical == cases);
}

/* A smoothness weight g = 1/2 at every pixel halves Psi'_S, which is what
 * halving alpha does: the same solution bit for bit (scaling by a power of
 * two is exact), for SOR alone (the GPU's tiles), V-cycles with an SOR
 * smoother and FMG with Jacobi (g restricted to the coarse grids; the
 * small-grid calls), on a nonlinear system of two robust terms. */
static void test_edge_weight_scales_alpha(void)
{
    flow_device *d = harness_device();
    if (!d)
        return;
    static const int solvers[3] = { FLOW_SOLVER_RBSOR, FLOW_SOLVER_VCYCLE, FLOW_SOLVER_FMG };
    int cases = 0, identical = 0;
    for (int k = 0; k < 3; k++) {
        flow_solver_params sp;
        memset(&sp, 0, sizeof sp);
        sp.solver = solvers[k];
        sp.smoother = solvers[k] == FLOW_SOLVER_FMG ? FLOW_SOLVER_JACOBI : FLOW_SOLVER_RBSOR;
        sp.omega = 1.2, sp.jacobi_weight = 0.8, sp.iterations = 6;
        sp.n0 = 3, sp.n1 = 2, sp.n2 = 1, sp.cycles = 2, sp.max_depth = -1;
        flow_mg_model m = mg_test_model(2, 1);
        flow_mg *mg[2] = { NULL, NULL };
        for (int i = 0; i < 2; i++) {
            m.edge = i == 0;
            m.alpha = i == 0 ? 10.0f : 5.0f;
            CHECK_OK(flow_mg_create(d, 150, 90, &sp, &m, &mg[i]));
            if (!mg[i])
                break;
            for (int t = 0; t < 2; t++)
                random_tensor(d, flow_mg_tensor(mg[i], t), 500u + 3u * (unsigned)k + t);
            if (i == 0) {
                const flow_fill_args half = { *flow_mg_edge(mg[0]), 0.5f };
                CHECK_OK(flow_k_fill(d, &half));
            }
            mg_solve_from_random(d, mg[i], 31);
        }
        if (mg[0] && mg[1]) {
            const int same = same_pair(d, &mg[0]->lev[0].x, &mg[1]->lev[0].x);
            if (!same)
                fprintf(stderr, "    differs by up to %.3g: %s\n",
                        max_diff(d, &mg[0]->lev[0].x, &mg[1]->lev[0].x),
                        flow_solver_names[solvers[k]]);
            cases++;
            identical += same;
        }
        flow_mg_destroy(mg[0]);
        flow_mg_destroy(mg[1]);
    }
    printf("    g = 1/2 against alpha / 2: %d of %d solves (rbsor, V, FMG) bit-identical\n",
           identical, cases);
    CHECK(cases == 3 && identical == cases);
}

int main(void)
{
    RUN(test_small_smoother_matches_sweeps);
    RUN(test_sor_sweeps_match_halves);
    RUN(test_jacobi_sweeps_match_sweeps);
    RUN(test_mg_smooth_odd_jacobi);
    RUN_PARTS(test_small_cycle_matches_calls, 12);
    RUN(test_edge_weight_scales_alpha);
    return harness_report();
}
