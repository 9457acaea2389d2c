/* lk.c -- local Lucas-Kanade (seed 001 section 2.4, eq. 2.16; seed 002):
 * the motion tensor is averaged over a window -- the Gaussian K_rho, or a
 * normalised s x s box -- by the tensor pipeline, then the 2x2 system of
 * every pixel is solved (libflow/pixel/lk.h).  A pixel whose smaller
 * eigenvalue is below tau (or whose system is numerically singular) is
 * unknown (FLOW_UNKNOWN), or with fill_unknown gets the normal flow along
 * the dominant eigenvector (rank 1) or 0 (rank 0).  tau is a threshold on
 * the window-AVERAGED tensor, so one value suits every window size. */
#include "methods/method.h"
#include "core/pair.h"
#include "core/tensor.h"
#include "base/fail.h"
#include "flow/field.h"

#include <stdlib.h>
#include <string.h>

enum { WINDOW_GAUSS, WINDOW_BOX };
static const char *const window_names[] = { "gauss", "box", NULL };

typedef struct lk_params {
    double sigma;     /* presmoothing K_sigma of the frames, pixels */
    double rho;       /* Gaussian window K_rho, pixels */
    int window;       /* WINDOW_GAUSS (seed 001) or WINDOW_BOX (seed 002) */
    int window_size;  /* box side s (odd) */
    double tau;       /* smallest eigenvalue accepted */
    int fill_unknown; /* fill unsolvable pixels instead of marking them unknown */
    int color;        /* input: luminance, or R, G, B with their tensors summed */
} lk_params;

static int applies_box(const void *p)
{
    return ((const lk_params *)p)->window == WINDOW_BOX;
}

static int applies_gauss(const void *p)
{
    return ((const lk_params *)p)->window == WINDOW_GAUSS;
}

#define T lk_params
static const flow_param_def lk_schema[] = {
    FLOW_SIGMA_PARAM(T, sigma),
    FLOW_P_WHEN(T, rho, "rho", FLOW_PARAM_REAL, 4.0, 0, 16, 0, NULL,
                "integration scale K_rho of the motion tensor, pixels", "window gauss",
                applies_gauss),
    FLOW_P_CHOICE(T, window, "window", WINDOW_GAUSS, window_names,
                  "Gaussian window K_rho or s x s box"),
    FLOW_P_WHEN(T, window_size, "window_size", FLOW_PARAM_INT, 7, 1, 97, FLOW_PARAM_ODD, NULL,
                "the box side s", "window box", applies_box),
    FLOW_P_REAL(T, tau, "tau", 0.0, 0, 1e12, 0,
                "smallest eigenvalue accepted, of the window-averaged tensor; 0: every "
                "regular pixel"),
    FLOW_P_BOOL(T, fill_unknown, "fill_unknown", 0,
                "fill unsolvable pixels (normal flow, or 0) instead of marking them unknown"),
    FLOW_COLOR_PARAM(T, color),
};
#undef T

typedef struct lk_state {
    flow_device *dev;
    lk_params p;
    int channels;
    flow_kernel k_sigma, k_window;
    flow_tensor J;
    flow_tensor_work work;
    flow_pair x;
} lk_state;

/* The window as a kernel applied along x and along y: K_rho, or for the box
 * s equal weights 1/s. */
static flow_status window_kernel(const lk_params *p, flow_kernel *k)
{
    if (p->window == WINDOW_GAUSS)
        return flow_gauss_kernel(p->rho, k);
    memset(k, 0, sizeof *k);
    const int s = p->window_size;
    k->radius = s / 2;
    for (int i = 0; i < s; i++)
        k->w[i] = 1.0f / (float)s;
    return FLOW_OK;
}

static void lk_destroy(void *state)
{
    lk_state *st = state;
    if (!st)
        return;
    flow_tensor_free(st->dev, &st->J);
    flow_tensor_work_free(st->dev, &st->work);
    flow_pair_free(st->dev, &st->x);
    free(st);
}

static flow_status lk_create(flow_device *d, int width, int height, int channels,
                             const void *params, void **state)
{
    *state = NULL;
    lk_state *st = calloc(1, sizeof *st);
    if (!st)
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate a Lucas-Kanade context");
    st->dev = d;
    st->p = *(const lk_params *)params;
    st->channels = channels;
    flow_status s = flow_gauss_kernel(st->p.sigma, &st->k_sigma);
    if (s == FLOW_OK)
        s = window_kernel(&st->p, &st->k_window);
    if (s == FLOW_OK)
        s = flow_tensor_alloc(d, &st->J, width, height);
    if (s == FLOW_OK)
        s = flow_tensor_work_alloc(d, &st->work, width, height);
    if (s == FLOW_OK)
        s = flow_pair_alloc(d, &st->x, width, height);
    if (s != FLOW_OK) {
        lk_destroy(st);
        return s;
    }
    *state = st;
    return FLOW_OK;
}

static flow_status lk_run(void *state, flow_exec *ex, const flow_frames *in,
                          const flow_pair **flow)
{
    lk_state *st = state;
    flow_stage_begin(ex, "motion tensor");
    flow_status s = flow_motion_tensor_watched(ex, &st->J, in->f[0], in->f[1], st->channels,
                                               &st->k_sigma, &st->k_window, &st->work);
    flow_stage_end(ex, "motion tensor");
    FLOW_TRY(s);
    const flow_lk_args a = { st->J, st->x, (float)st->p.tau, st->p.fill_unknown, FLOW_UNKNOWN };
    flow_stage_begin(ex, "lucas-kanade");
    s = flow_k_lk(ex->dev, &a);
    flow_stage_end(ex, "lucas-kanade");
    *flow = &st->x;
    return s;
}

const flow_method_desc flow_method_lk = {
    .name = "lk",
    .title = "local Lucas-Kanade, Gaussian or box window (Lucas, Kanade 1981)",
    .params_size = sizeof(lk_params),
    .params = lk_schema,
    .nparams = FLOW_NPARAMS(lk_schema),
    .create = lk_create,
    .run = lk_run,
    .destroy = lk_destroy,
};
