/* test_track_agreement.c -- CPU/GPU agreement of KLT tracking: the same
 * generated sequence (a rotation-zoom, 331x247) tracked on the CPU device
 * and on CUDA.  The features selected must be the same (a corner whose
 * response differs in the last bits between the devices may rank
 * differently: at most 2 % of them may differ), and every feature both
 * devices follow must be at the same place to TRACK_BOUND px with the same
 * state.  Differences come only from float rounding (nvcc contracts a*b+c
 * into FMA; a warp adds a window's sums in another order than one CPU
 * thread).  Runs only under `make test-gpu`. */
#include "harness.h"
#include "flow/flow.h"

#include <stdlib.h>
#include <string.h>

#define W 331
#define H 247
#define FRAMES 6
#define TRACK_BOUND 1e-3

static int same_point(const flow_track_point *a, const flow_track_point *b)
{
    return a->state == b->state && fabsf(a->x - b->x) <= TRACK_BOUND
           && fabsf(a->y - b->y) <= TRACK_BOUND;
}

/* The rows of one frame on both devices, matched by id: ids are given in
 * the same order on both as long as the selections agree. */
static void compare(const flow_track_point *c, int nc, const flow_track_point *g, int ng,
                    int *common, int *differ)
{
    for (int i = 0; i < nc; i++)
        for (int j = 0; j < ng; j++)
            if (c[i].id == g[j].id && c[i].state == g[j].state) {
                (*common)++;
                *differ += !same_point(&c[i], &g[j]);
                break;
            }
}

static void run(const char *what, const flow_track_params *p)
{
    flow_device *cpu = NULL, *gpu = NULL;
    CHECK_OK(flow_device_open("cpu", &cpu));
    if (flow_device_open("cuda", &gpu) != FLOW_OK) {
        harness_skip(flow_last_error());
        flow_device_close(cpu);
        return;
    }
    const flow_synth s = { .motion = FLOW_SYNTH_ROTOZOOM, .angle = 0.01, .scale = 1.01, .seed = 17 };
    flow_tracker *tc = NULL, *tg = NULL;
    CHECK_OK(flow_tracker_create(cpu, W, H, p, &tc));
    CHECK_OK(flow_tracker_create(gpu, W, H, p, &tg));
    int rows = 0, common = 0, differ = 0, alive_c = 0, alive_g = 0;
    for (int k = 0; k < FRAMES && tc && tg; k++) {
        flow_image f = { 0 };
        CHECK_OK(flow_synth_frame(&s, W, H, 1, k, &f));
        CHECK_OK(flow_tracker_next(tc, &f));
        CHECK_OK(flow_tracker_next(tg, &f));
        flow_image_free(&f);
        int nc = 0, ng = 0;
        const flow_track_point *c = flow_tracker_points(tc, &nc), *g = flow_tracker_points(tg, &ng);
        rows += nc;
        compare(c, nc, g, ng, &common, &differ);
        alive_c = flow_tracker_alive(tc), alive_g = flow_tracker_alive(tg);
    }
    printf("    %s: %d rows on the CPU, %d matched on the GPU, %d of them apart or in another "
           "state; alive %d / %d\n", what, rows, common, differ, alive_c, alive_g);
    CHECK(rows > 100 && common >= 0.98 * rows && differ <= 0.01 * rows);
    flow_tracker_destroy(tc);
    flow_tracker_destroy(tg);
    flow_device_close(cpu);
    flow_device_close(gpu);
}

static void test_defaults(void)
{
    flow_track_params p;
    flow_track_defaults(&p);
    p.features = 300;
    run("defaults", &p);
}

static void test_checks(void)
{
    flow_track_params p;
    flow_track_defaults(&p);
    p.features = 300, p.fb_check = 0.1, p.max_error = 3, p.harris = 1, p.affine = 0;
    p.levels = 4, p.window = 15;
    run("harris, fb-check, max-error, translation only", &p);
}

/* A replayed graph computes what the direct launches compute, bit for bit. */
static void test_graphs(void)
{
    flow_device *gpu = NULL;
    if (flow_device_open("cuda", &gpu) != FLOW_OK) {
        harness_skip(flow_last_error());
        return;
    }
    flow_track_params p;
    flow_track_defaults(&p);
    p.features = 300;
    const flow_synth s = { .motion = FLOW_SYNTH_ROTOZOOM, .angle = 0.01, .scale = 1.01, .seed = 18 };
    flow_tracker *tg = NULL, *td = NULL;
    CHECK_OK(flow_tracker_create(gpu, W, H, &p, &tg));
    CHECK_OK(flow_tracker_create(gpu, W, H, &p, &td));
    if (td)
        flow_tracker_set_graphs(td, 0);
    int same = 1, replayed = 0;
    for (int k = 0; k < FRAMES && tg && td; k++) {
        flow_image f = { 0 };
        CHECK_OK(flow_synth_frame(&s, W, H, 1, k, &f));
        CHECK_OK(flow_tracker_next(tg, &f));
        CHECK_OK(flow_tracker_next(td, &f));
        flow_image_free(&f);
        replayed += flow_tracker_used_graph(tg);
        CHECK(!flow_tracker_used_graph(td));
        int ng = 0, nd = 0;
        const flow_track_point *g = flow_tracker_points(tg, &ng), *d = flow_tracker_points(td, &nd);
        same &= ng == nd;
        for (int i = 0; i < ng && i < nd; i++)
            same &= g[i].id == d[i].id && g[i].state == d[i].state && g[i].x == d[i].x
                    && g[i].y == d[i].y;
    }
    printf("    %d of %d frames replayed a graph\n", replayed, FRAMES);
    CHECK(same && replayed == FRAMES - 1);
    flow_tracker_destroy(tg);
    flow_tracker_destroy(td);
    flow_device_close(gpu);
}

int main(void)
{
    RUN(test_graphs);
    RUN(test_defaults);
    RUN(test_checks);
    return harness_report();
}
