/* test_agreement.c -- CPU/GPU agreement of the foundation operations: each
 * operation runs on both devices over the same random input and the
 * results must agree to a relative error of 1e-5 (max |gpu - cpu| over
 * max |cpu|; 1e-4 after SOR sweeps, which compound it), with no NaN.
 * Differences come only from float rounding (nvcc contracts a*b+c into
 * FMA), since both run the same libflow/pixel code.
 * The operations are those of the private device layer (device/device.h)
 * and the core's tensor pipeline (core/tensor.h). */
#include "harness.h"
#include "core/fused.h"
#include "core/tensor.h"
#include "device/device.h"

#include <stdlib.h>
#include <string.h>

#define REL_BOUND 1e-5
#define SWEEPS_BOUND 1e-4 /* SOR sweeps compound the rounding of each update */

static flow_device *cpu, *gpu;

typedef struct pair {
    flow_plane c, g; /* the same plane on the CPU and on the GPU */
} pair;

static void pair_alloc(pair *p, int w, int h)
{
    CHECK_OK(flow_plane_alloc(cpu, &p->c, w, h));
    CHECK_OK(flow_plane_alloc(gpu, &p->g, w, h));
}

static void pair_free(pair *p)
{
    flow_plane_free(cpu, &p->c);
    flow_plane_free(gpu, &p->g);
}

/* Values drawn uniformly from [lo, hi). */
static void pair_random_in(pair *p, unsigned seed, float lo, float hi)
{
    const int w = p->c.width, h = p->c.height;
    float *a = malloc(sizeof(float) * w * h);
    for (int i = 0; i < w * h; i++)
        a[i] = lo + (hi - lo) * (float)harness_uniform(&seed);
    CHECK_OK(flow_upload(cpu, &p->c, a, (size_t)w));
    CHECK_OK(flow_upload(gpu, &p->g, a, (size_t)w));
    free(a);
}

static void pair_random(pair *p, unsigned seed, float scale)
{
    pair_random_in(p, seed, 0.0f, scale);
}

/* Relative disagreement of the two copies; +inf if any value is NaN. */
static double pair_rel_error(const pair *p, const char *what)
{
    const int w = p->c.width, h = p->c.height;
    float *a = malloc(sizeof(float) * w * h), *b = malloc(sizeof(float) * w * h);
    CHECK_OK(flow_download(cpu, a, (size_t)w, &p->c));
    CHECK_OK(flow_download(gpu, b, (size_t)w, &p->g));
    double diff = 0, scale = 0;
    int nan = 0;
    for (int i = 0; i < w * h; i++) {
        nan |= isnan(a[i]) || isnan(b[i]);
        diff = fmax(diff, fabs((double)a[i] - b[i]));
        scale = fmax(scale, fabs((double)a[i]));
    }
    free(a), free(b);
    double rel = nan ? INFINITY : diff / (scale > 0 ? scale : 1);
    printf("    %-28s %dx%d  rel. error %.2e\n", what, w, h, rel);
    return rel;
}

static const int sizes[][2] = { { 316, 252 }, { 79, 63 }, { 640, 480 }, { 3, 2 }, { 1, 1 } };
#define NSIZES (int)(sizeof sizes / sizeof *sizes)

/* At every size, and at one whose grids of tiles are long enough for the
 * GPU's larger tiles (device/cuda/tiles.cu; the others take the short
 * ones). */
static void test_convolution(void)
{
    flow_kernel k;
    CHECK_OK(flow_gauss_kernel(2.3, &k));
    for (int s = 0; s <= NSIZES; s++) {
        const int w = s < NSIZES ? sizes[s][0] : 1500, h = s < NSIZES ? sizes[s][1] : 1100;
        pair src, dst, tmp;
        pair_alloc(&src, w, h);
        pair_alloc(&dst, w, h);
        pair_alloc(&tmp, w, h);
        pair_random(&src, 1 + s, 255.0f);
        CHECK_OK(flow_smooth(cpu, &dst.c, &src.c, &tmp.c, &k));
        CHECK_OK(flow_smooth(gpu, &dst.g, &src.g, &tmp.g, &k));
        CHECK(pair_rel_error(&dst, "gaussian smoothing") < REL_BOUND);
        pair_free(&src), pair_free(&dst), pair_free(&tmp);
    }
}

static void test_derivatives_and_tensor(void)
{
    flow_kernel ks, kr;
    CHECK_OK(flow_gauss_kernel(1.0, &ks));
    CHECK_OK(flow_gauss_kernel(3.0, &kr));
    for (int s = 0; s < NSIZES; s++) {
        const int w = sizes[s][0], h = sizes[s][1];
        pair f1, f2, fx, fy, ft;
        pair_alloc(&f1, w, h), pair_alloc(&f2, w, h);
        pair_alloc(&fx, w, h), pair_alloc(&fy, w, h), pair_alloc(&ft, w, h);
        pair_random(&f1, 10 + s, 255.0f);
        pair_random(&f2, 20 + s, 255.0f);
        const flow_derivatives_args dc = { fx.c, fy.c, ft.c, f1.c, f2.c };
        const flow_derivatives_args dg = { fx.g, fy.g, ft.g, f1.g, f2.g };
        CHECK_OK(flow_k_derivatives(cpu, &dc));
        CHECK_OK(flow_k_derivatives(gpu, &dg));
        CHECK(pair_rel_error(&fx, "derivative f_x") < REL_BOUND);
        CHECK(pair_rel_error(&fy, "derivative f_y") < REL_BOUND);
        CHECK(pair_rel_error(&ft, "derivative f_t") < REL_BOUND);

        /* the whole motion tensor of a colour pair (3 channels summed) */
        pair ch1[3], ch2[3];
        flow_plane c1[3], c2[3], g1[3], g2[3]; /* the frames: one plane per channel */
        for (int c = 0; c < 3; c++) {
            pair_alloc(&ch1[c], w, h), pair_alloc(&ch2[c], w, h);
            pair_random(&ch1[c], 100 + c, 255.0f), pair_random(&ch2[c], 200 + c, 255.0f);
            c1[c] = ch1[c].c, c2[c] = ch2[c].c, g1[c] = ch1[c].g, g2[c] = ch2[c].g;
        }
        flow_tensor Jc, Jg;
        flow_tensor_work wc, wg;
        CHECK_OK(flow_tensor_alloc(cpu, &Jc, w, h));
        CHECK_OK(flow_tensor_alloc(gpu, &Jg, w, h));
        CHECK_OK(flow_tensor_work_alloc(cpu, &wc, w, h));
        CHECK_OK(flow_tensor_work_alloc(gpu, &wg, w, h));
        CHECK_OK(flow_motion_tensor(cpu, &Jc, c1, c2, 3, &ks, &kr, &wc));
        CHECK_OK(flow_motion_tensor(gpu, &Jg, g1, g2, 3, &ks, &kr, &wg));
        const char *names[6] = { "tensor J11", "tensor J12", "tensor J13",
                                 "tensor J22", "tensor J23", "tensor J33" };
        flow_plane *pc[6] = { &Jc.j11, &Jc.j12, &Jc.j13, &Jc.j22, &Jc.j23, &Jc.j33 };
        flow_plane *pg[6] = { &Jg.j11, &Jg.j12, &Jg.j13, &Jg.j22, &Jg.j23, &Jg.j33 };
        for (int k = 0; k < 6; k++) {
            pair t = { *pc[k], *pg[k] };
            CHECK(pair_rel_error(&t, names[k]) < REL_BOUND);
        }
        flow_tensor_free(cpu, &Jc), flow_tensor_free(gpu, &Jg);
        flow_tensor_work_free(cpu, &wc), flow_tensor_work_free(gpu, &wg);
        for (int c = 0; c < 3; c++)
            pair_free(&ch1[c]), pair_free(&ch2[c]);
        pair_free(&f1), pair_free(&f2), pair_free(&fx), pair_free(&fy), pair_free(&ft);
    }
}

static void test_transfer(void)
{
    for (int s = 0; s < NSIZES; s++) {
        const int w = sizes[s][0], h = sizes[s][1];
        pair fine, coarse;
        pair_alloc(&fine, w, h);
        pair_alloc(&coarse, (w + 1) / 2, (h + 1) / 2);
        pair_random(&fine, 300 + s, 10.0f);
        const flow_restriction_args rc = { coarse.c, fine.c }, rg = { coarse.g, fine.g };
        CHECK_OK(flow_k_restriction(cpu, &rc));
        CHECK_OK(flow_k_restriction(gpu, &rg));
        CHECK(pair_rel_error(&coarse, "restriction") < REL_BOUND);
        /* x += P e for a flow pair: e = (coarse, coarse), x = (fine, fine2) */
        pair fine2;
        pair_alloc(&fine2, w, h);
        pair_random(&fine2, 400 + s, 10.0f);
        const flow_pair none = { { 0 }, { 0 } };
        const flow_prolong_pair_args pc = { { fine.c, fine2.c }, { coarse.c, coarse.c }, none, 0,
                                            1, 0.0f };
        const flow_prolong_pair_args pg = { { fine.g, fine2.g }, { coarse.g, coarse.g }, none, 0,
                                            1, 0.0f };
        CHECK_OK(flow_k_prolong_pair(cpu, &pc));
        CHECK_OK(flow_k_prolong_pair(gpu, &pg));
        CHECK(pair_rel_error(&fine, "prolongation (accumulate), u") < REL_BOUND);
        CHECK(pair_rel_error(&fine2, "prolongation (accumulate), v") < REL_BOUND);
        pair_free(&fine2);
        /* the resampling of a 0.8 pyramid: a level down, and back up */
        pair down;
        const int dw = (int)ceil(0.8 * w), dh = (int)ceil(0.8 * h);
        pair_alloc(&down, dw, dh);
        const flow_resample_args sc = { down.c, fine.c, 1.25f, 1.25f, 1.0f };
        const flow_resample_args sg = { down.g, fine.g, 1.25f, 1.25f, 1.0f };
        CHECK_OK(flow_k_resample(cpu, &sc));
        CHECK_OK(flow_k_resample(gpu, &sg));
        CHECK(pair_rel_error(&down, "resample (s = 1.25)") < REL_BOUND);
        const flow_resample_args uc = { fine.c, down.c, 0.8f, 0.8f, 1.25f };
        const flow_resample_args ug = { fine.g, down.g, 0.8f, 0.8f, 1.25f };
        CHECK_OK(flow_k_resample(cpu, &uc));
        CHECK_OK(flow_k_resample(gpu, &ug));
        CHECK(pair_rel_error(&fine, "resample (s = 0.8, gain)") < REL_BOUND);
        pair_free(&fine), pair_free(&coarse), pair_free(&down);
    }
}

/* Red-black SOR sweeps of a robust system with two data terms, an edge
 * weight and a right-hand side, on grids of 24, 247 and 3750 tiles (on a
 * GPU of 132 multiprocessors, 1024, 512 and 256 threads a tile): the CUDA
 * device runs a launch per sweep on tiles, x -> t -> x; it must give
 * the CPU's values (in place) after an even count, an odd one copied back
 * into x, and an odd one left in t (odd_in_t, the V-cycle's single
 * sweeps). */
static void test_sor_sweeps(void)
{
    static const int grids[][2] = { { 127, 95 }, { 400, 300 }, { 1600, 1200 } };
    for (int s = 0; s < 3; s++) {
        const int w = grids[s][0], h = grids[s][1];
        pair J[2][6], g, x[2], t[2], f[2];
        for (int k = 0; k < 2; k++)
            for (int c = 0; c < 6; c++) {
                pair_alloc(&J[k][c], w, h); /* J11, J22 and J33 of at least 0.5 */
                const int square = c == 0 || c == 3 || c == 5;
                pair_random_in(&J[k][c], 500 + 10 * k + c, square ? 0.5f : -0.2f, 1.0f);
            }
        pair_alloc(&g, w, h);
        pair_random_in(&g, 520, 0.2f, 1.0f);
        for (int k = 0; k < 2; k++) {
            pair_alloc(&x[k], w, h), pair_alloc(&t[k], w, h), pair_alloc(&f[k], w, h);
            pair_random(&f[k], 530 + k, 0.1f);
        }
        flow_system sys[2]; /* [0]: the CPU's planes, [1]: the GPU's */
        for (int d = 0; d < 2; d++) {
            memset(&sys[d], 0, sizeof sys[d]);
            sys[d].nterms = 2;
            for (int k = 0; k < 2; k++) {
                flow_data_term *term = &sys[d].term[k];
                flow_plane *q[6] = { &term->J.j11, &term->J.j12, &term->J.j13,
                                     &term->J.j22, &term->J.j23, &term->J.j33 };
                for (int c = 0; c < 6; c++)
                    *q[c] = d ? J[k][c].g : J[k][c].c;
                term->weight = k ? 0.5f : 1.0f;
                term->eps2 = 0.01f;
                term->robust = 1;
            }
            flow_system_grid(&sys[d], 4.0f, 1.0f, 1.0f);
            sys[d].eps_s2 = 1e-4f;
            sys[d].flags = FLOW_SYS_AFFINE | FLOW_SYS_RHS | FLOW_SYS_PSI_S | FLOW_SYS_EDGE;
            sys[d].g = d ? g.g : g.c;
        }
        static const int counts[] = { 1, 2, 3, 3 };
        for (int n = 0; n < 4; n++) {
            const int in_t = n == 3;
            char what[48];
            for (int k = 0; k < 2; k++)
                pair_random(&x[k], 540 + k, 2.0f);
            const flow_sor_sweeps_args ac = { .s = sys[0], .x = { x[0].c, x[1].c },
                                              .t = { t[0].c, t[1].c }, .f = { f[0].c, f[1].c },
                                              .omega = 1.6f, .sweeps = counts[n],
                                              .odd_in_t = in_t };
            const flow_sor_sweeps_args ag = { .s = sys[1], .x = { x[0].g, x[1].g },
                                              .t = { t[0].g, t[1].g }, .f = { f[0].g, f[1].g },
                                              .omega = 1.6f, .sweeps = counts[n],
                                              .odd_in_t = in_t };
            int passes_c = 0, passes_g = 0;
            CHECK_OK(flow_sor_sweeps_run(cpu, &ac, &passes_c));
            CHECK_OK(flow_sor_sweeps_run(gpu, &ag, &passes_g));
            CHECK(passes_c == 0 && passes_g == counts[n]); /* in place; x -> t -> x ... */
            for (int k = 0; k < 2; k++) {
                pair result = { x[k].c, in_t && passes_g % 2 ? t[k].g : x[k].g };
                snprintf(what, sizeof what, "sor_sweeps %d%s, %s", counts[n],
                         in_t ? " left in t" : "", k ? "v" : "u");
                CHECK(pair_rel_error(&result, what) < SWEEPS_BOUND);
            }
        }
        for (int k = 0; k < 2; k++) {
            for (int c = 0; c < 6; c++)
                pair_free(&J[k][c]);
            pair_free(&x[k]), pair_free(&t[k]), pair_free(&f[k]);
        }
        pair_free(&g);
    }
}

/* The largest value and the descending sort (KLT selection): equal on
 * both devices, ties included (values drawn from a few levels). */
static void test_max_and_sort(void)
{
    const int n = 70001;
    pair keys, sk, si;
    pair_alloc(&keys, n, 1), pair_alloc(&sk, n, 1), pair_alloc(&si, n, 1);
    float *a = malloc(sizeof(float) * n);
    unsigned seed = 5;
    for (int i = 0; i < n; i++)
        a[i] = i % 7 == 0 ? 0.0f : (float)(int)(50 * harness_uniform(&seed)) * 0.25f;
    CHECK_OK(flow_upload(cpu, &keys.c, a, (size_t)n));
    CHECK_OK(flow_upload(gpu, &keys.g, a, (size_t)n));
    CHECK_OK(flow_sort_desc(cpu, &keys.c, &sk.c, &si.c));
    CHECK_OK(flow_sort_desc(gpu, &keys.g, &sk.g, &si.g));
    CHECK(pair_rel_error(&sk, "sort_desc keys") == 0);
    CHECK(pair_rel_error(&si, "sort_desc indices") == 0);
    pair m;
    pair_alloc(&m, 1, 1);
    CHECK_OK(flow_plane_max(cpu, &keys.c, &m.c));
    CHECK_OK(flow_plane_max(gpu, &keys.g, &m.g));
    CHECK(pair_rel_error(&m, "plane_max") == 0);
    free(a);
    pair_free(&keys), pair_free(&sk), pair_free(&si), pair_free(&m);
}

int main(void)
{
    if (flow_device_open("cpu", &cpu) != FLOW_OK || flow_device_open("cuda", &gpu) != FLOW_OK) {
        printf("no CUDA device: %s\n0 passed, 1 failed\n", flow_last_error());
        flow_device_close(cpu);
        return 1;
    }
    printf("  comparing %s with %s\n", flow_device_name(cpu), flow_device_name(gpu));
    RUN(test_convolution);
    RUN(test_derivatives_and_tensor);
    RUN(test_transfer);
    RUN(test_sor_sweeps);
    RUN(test_max_and_sort);
    flow_device_close(cpu);
    flow_device_close(gpu);
    return harness_report();
}
