/* test_terms.c -- a variational system's list of data terms (core/terms.c)
 * on the device under test (FLOW_DEVICE): the combined local-global term
 * listed beside a builder's term, each built as it is alone, and each
 * term's weight in the frame before's miss. */
#include "plane_io.h"
#include "core/pair.h"
#include "core/terms.h"
#include "device/device.h"

#include <stdlib.h>
#include <string.h>

/* Whether the six components of A and B are equal bit for bit. */
static int same_tensor(flow_device *d, flow_tensor *A, flow_tensor *B)
{
    int same = 1;
    for (int c = 0; c < 6; c++) {
        const flow_plane *a = flow_tensor_plane(A, c), *b = flow_tensor_plane(B, c);
        float *ha = plane_get(d, a), *hb = plane_get(d, b);
        same &= memcmp(ha, hb, sizeof *ha * (size_t)a->width * a->height) == 0;
        free(ha), free(hb);
    }
    return same;
}

/* The frames of the tests: a textured first frame, the second and the
 * frame before shifted by about (0.6, -0.3) in opposite directions, and a
 * flow w near that motion (varying, so the rewriting for the total flow
 * differs from pixel to pixel). */
typedef struct scene {
    int w, h;
    flow_plane f0, f1, f2;
    flow_pair fl;
} scene;

static void scene_make(flow_device *d, scene *s)
{
    s->w = 40, s->h = 30;
    const int w = s->w, h = s->h;
    CHECK_OK(flow_plane_alloc(d, &s->f0, w, h));
    CHECK_OK(flow_plane_alloc(d, &s->f1, w, h));
    CHECK_OK(flow_plane_alloc(d, &s->f2, w, h));
    CHECK_OK(flow_pair_alloc(d, &s->fl, w, h));
    float *f[3], *u = malloc(sizeof *u * w * h), *v = malloc(sizeof *v * w * h);
    for (int k = 0; k < 3; k++)
        f[k] = malloc(sizeof *f[k] * w * h);
    for (int i = 0; i < w * h; i++) {
        const float x = (float)(i % w), y = (float)(i / w);
        for (int k = 0; k < 3; k++) {
            const float t = (float)(k - 1); /* f0, f1, f2 at times -1, 0, 1 */
            const float px = x - 0.6f * t, py = y + 0.3f * t;
            f[k][i] = 100.0f + 40.0f * sinf(0.45f * px) * cosf(0.31f * py) + 0.2f * px * py;
        }
        u[i] = 0.5f + 0.01f * x;
        v[i] = -0.2f - 0.005f * y;
    }
    plane_put(d, &s->f0, f[0]), plane_put(d, &s->f1, f[1]), plane_put(d, &s->f2, f[2]);
    plane_put(d, &s->fl.u, u), plane_put(d, &s->fl.v, v);
    for (int k = 0; k < 3; k++)
        free(f[k]);
    free(u), free(v);
}

static void scene_free(flow_device *d, scene *s)
{
    flow_plane_free(d, &s->f0), flow_plane_free(d, &s->f1), flow_plane_free(d, &s->f2);
    flow_pair_free(d, &s->fl);
}

/* A list of the combined local-global term (sigma 1, rho 2) and gradient
 * constancy (weight 0.5, normalised, with the frame before and its
 * tolerance): its CLG term is bit for bit the motion tensor pipeline's
 * tensor of the pair rewritten for the total flow, its gradient term bit
 * for bit the terms operation's for a list of that term alone; without
 * the scratch of its tensor the list is refused. */
static void test_clg_beside_gradient(void)
{
    flow_device *d = harness_device();
    if (!d)
        return;
    scene s;
    scene_make(d, &s);
    flow_terms t = flow_terms_begin(1, 1, 1.0);
    flow_mg_model m;
    memset(&m, 0, sizeof m);
    CHECK_OK(flow_terms_add_clg(&t, &m, 1.0, 2.0, 1.0, 1, 1.0));
    CHECK_OK(flow_terms_add(&t, &m, FLOW_TERM_GRADIENT, 0.5, 1, 1.0));
    flow_terms_previous(&t, 0.8, 2.0);
    m.alpha = 10.0f;
    flow_solver_params sp;
    memset(&sp, 0, sizeof sp);
    sp.solver = FLOW_SOLVER_JACOBI;
    sp.iterations = 1;
    sp.jacobi_weight = 1.0;
    flow_mg *mg = NULL;
    CHECK_OK(flow_mg_create(d, s.w, s.h, &sp, &m, &mg));
    flow_tensor_work work;
    CHECK_OK(flow_tensor_work_alloc(d, &work, s.w, s.h));
    flow_exec ex;
    memset(&ex, 0, sizeof ex);
    ex.dev = d;
    CHECK(flow_terms_build(&ex, mg, &t, &m, NULL, &s.f0, &s.f1, &s.f2, &s.fl)
          == FLOW_ERR_INVALID);
    CHECK_OK(flow_terms_build(&ex, mg, &t, &m, &work, &s.f0, &s.f1, &s.f2, &s.fl));

    flow_tensor clg, grad;
    CHECK_OK(flow_tensor_alloc(d, &clg, s.w, s.h));
    CHECK_OK(flow_tensor_alloc(d, &grad, s.w, s.h));
    flow_kernel ks, kr;
    CHECK_OK(flow_gauss_kernel(1.0, &ks));
    CHECK_OK(flow_gauss_kernel(2.0, &kr));
    CHECK_OK(flow_motion_tensor(d, &clg, &s.f1, &s.f2, 1, &ks, &kr, &work));
    const flow_tensor_shift_args sa = { clg, s.fl };
    CHECK_OK(flow_k_tensor_shift(d, &sa));
    flow_terms_args ga = { .J = { grad },
                           .kind = { FLOW_TERM_GRADIENT },
                           .weight = { 0.5f },
                           .nterms = 1,
                           .w = s.fl,
                           .channels = 1,
                           .normalise = 1,
                           .zeta2 = 1.0f,
                           .previous = 1,
                           .wprev = 0.8f,
                           .tol2 = 4.0f };
    ga.f1[0] = s.f1, ga.f2w[0] = s.f2, ga.f0w[0] = s.f0;
    CHECK_OK(flow_k_terms(d, &ga));
    const int clg_same = same_tensor(d, flow_mg_tensor(mg, 0), &clg);
    const int grad_same = same_tensor(d, flow_mg_tensor(mg, 1), &grad);
    printf("    CLG term %s the pipeline's, gradient term %s its own list's\n",
           clg_same ? "is" : "is NOT", grad_same ? "is" : "is NOT");
    CHECK(clg_same);
    CHECK(grad_same);
    flow_tensor_free(d, &clg), flow_tensor_free(d, &grad);
    flow_tensor_work_free(d, &work);
    flow_mg_destroy(mg);
    scene_free(d, &s);
}

/* The frame before's miss weighs each term's J33 by the term's weight, the
 * first term's too: a term of weight 4 with tolerance^2 T builds exactly
 * what it builds with weight 1 and tolerance^2 T / 4 (the same
 * tol^2 / (e^2 + tol^2), scaled by a power of 2), and differs from weight
 * 1 with T. */
static void test_miss_weights(void)
{
    flow_device *d = harness_device();
    if (!d)
        return;
    scene s;
    scene_make(d, &s);
    flow_tensor J[3];
    static const float weight[3] = { 4.0f, 1.0f, 1.0f }, tol2[3] = { 4.0f, 1.0f, 4.0f };
    for (int k = 0; k < 3; k++) {
        CHECK_OK(flow_tensor_alloc(d, &J[k], s.w, s.h));
        flow_terms_args a = { .J = { J[k] },
                              .kind = { FLOW_TERM_BRIGHTNESS },
                              .weight = { weight[k] },
                              .nterms = 1,
                              .w = s.fl,
                              .channels = 1,
                              .normalise = 1,
                              .zeta2 = 1.0f,
                              .previous = 1,
                              .wprev = 1.0f,
                              .tol2 = tol2[k] };
        a.f1[0] = s.f1, a.f2w[0] = s.f2, a.f0w[0] = s.f0;
        CHECK_OK(flow_k_terms(d, &a));
    }
    CHECK(same_tensor(d, &J[0], &J[1]));
    CHECK(!same_tensor(d, &J[0], &J[2]));
    for (int k = 0; k < 3; k++)
        flow_tensor_free(d, &J[k]);
    scene_free(d, &s);
}

int main(void)
{
    RUN(test_clg_beside_gradient);
    RUN(test_miss_weights);
    return harness_report();
}
