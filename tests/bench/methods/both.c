/* both.c -- bench_methods' table of both directions (flow_context_set_backward)
 * against one. */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

/* Both directions against one: per method, the device time of a frame
 * (flow_context_compute, events around it, graphs as configured) with one
 * direction and with both plus the occlusion mask and the confidence
 * downloaded, each on a context of its own, the two taking turns run by
 * run (so that a busy host slows both alike), medians of 15 runs each (3
 * quick; FLOW_BENCH_RUNS=n: n), and the forward-backward operation's own
 * time (`consistency`, a launch on planes of the frame's size). */
int both_table(int quick)
{
    static const char *const methods[] = { "robust", "dis", "epic", "tvl1" };
    static const size sizes[2] = { { 640, 480, 1 }, { 1920, 1080, 1 } };
    const char *only = getenv("FLOW_BENCH_ONLY");
    const char *graphs = getenv("FLOW_BENCH_GRAPHS");
    const char *fixed = getenv("FLOW_BENCH_RUNS");
    const int nruns = fixed && atoi(fixed) > 0 ? (atoi(fixed) < MAX_RUNS ? atoi(fixed) : MAX_RUNS)
                                               : quick ? 3 : 15;
    int failed = 0;
    printf("\nboth directions: frame ms with flow_context_set_backward (backward flow, occlusion\n"
           "mask and confidence downloaded) against one direction, medians of %d runs taken\n"
           "in turns; test ms: the consistency operation alone\n\n"
           "| method | size | one ms | both ms | both / one | test ms | test / one |\n"
           "|---|---|---|---|---|---|---|\n", nruns);
    for (int m = 0; m < 4; m++) {
        if (only && !strstr(methods[m], only))
            continue;
        for (int z = 0; z < (quick ? 1 : 2); z++) {
            const int w = quick ? 316 : sizes[z].w, h = quick ? 252 : sizes[z].h;
            flow_synth sy = { .motion = FLOW_SYNTH_SMOOTH, .amplitude = 1.0, .wavelength = 60,
                              .seed = 9 };
            flow_image a = {0}, c = {0};
            flow_field out = {0};
            flow_params *p = NULL;
            flow_context *ctx[2] = { NULL, NULL }; /* one direction, both */
            float *occ = malloc(sizeof(float) * w * h), *conf = malloc(sizeof(float) * w * h);
            flow_event *e0 = NULL, *e1 = NULL;
            int ok = occ && conf && flow_synth_frame(&sy, w, h, 1, 0, &a) == FLOW_OK
                     && flow_synth_frame(&sy, w, h, 1, 1, &c) == FLOW_OK
                     && flow_field_alloc(&out, w, h) == FLOW_OK
                     && flow_params_create(methods[m], &p) == FLOW_OK
                     && flow_context_create(bench_dev, w, h, 1, p, &ctx[0]) == FLOW_OK
                     && flow_context_create(bench_dev, w, h, 1, p, &ctx[1]) == FLOW_OK
                     && flow_event_create(bench_dev, &e0) == FLOW_OK
                     && flow_event_create(bench_dev, &e1) == FLOW_OK;
            for (int k = 0; ok && k < 2; k++)
                flow_context_set_graphs(ctx[k], !(graphs && strcmp(graphs, "0") == 0));
            ok = ok
                 && flow_context_set_backward(ctx[1], 1, FLOW_OCCLUSION_A, FLOW_OCCLUSION_B)
                        == FLOW_OK
                 && flow_context_request_output(ctx[1], "occlusion", occ) == FLOW_OK
                 && flow_context_request_output(ctx[1], "confidence", conf) == FLOW_OK;
            double ms[2] = { 0, 0 };
            double times[2][MAX_RUNS];
            for (int i = 0; ok && i < 2 + nruns; i++)
                for (int both = 0; ok && both < 2; both++) {
                    float f = 0;
                    ok = flow_event_record(e0) == FLOW_OK
                         && flow_context_compute(ctx[both], &a, &c, &out) == FLOW_OK
                         && flow_event_record(e1) == FLOW_OK
                         && flow_event_elapsed(e0, e1, &f) == FLOW_OK;
                    if (i >= 2)
                        times[both][i - 2] = f;
                }
            for (int both = 0; ok && both < 2; both++) {
                ms[both] = median(times[both], nruns);
            }
            /* the operation alone, on planes of the frame's size */
            double test_ms = 0;
            flow_consistency_args k;
            memset(&k, 0, sizeof k);
            flow_plane *planes[] = { &k.fb.fwd.u, &k.fb.fwd.v, &k.fb.bwd.u, &k.fb.bwd.v,
                                     &k.verdict, &k.occluded, &k.confidence, &k.f1[0], &k.f2[0] };
            for (int i = 0; ok && i < 9; i++) {
                flow_fill_args fa;
                fa.value = 0.5f * (float)(i % 3);
                ok = flow_plane_alloc(bench_dev, planes[i], w, h) == FLOW_OK;
                fa.p = *planes[i];
                ok = ok && flow_k_fill(bench_dev, &fa) == FLOW_OK;
            }
            k.fb.a = FLOW_OCCLUSION_A;
            k.fb.b = FLOW_OCCLUSION_B;
            k.fb.unknown = FLOW_UNKNOWN_THRESHOLD;
            k.channels = 1;
            if (ok) {
                double t[MAX_RUNS];
                for (int i = 0; ok && i < 2 + nruns; i++) {
                    float f = 0;
                    ok = flow_event_record(e0) == FLOW_OK
                         && flow_k_consistency(bench_dev, &k) == FLOW_OK
                         && flow_event_record(e1) == FLOW_OK
                         && flow_event_elapsed(e0, e1, &f) == FLOW_OK;
                    if (i >= 2)
                        t[i - 2] = f;
                }
                if (ok) {
                    test_ms = median(t, nruns);
                }
            }
            for (int i = 0; i < 9; i++)
                flow_plane_free(bench_dev, planes[i]);
            if (ok)
                printf("| %s | %dx%d | %.3f | %.3f | %.2f | %.3f | %.1f%% |\n", methods[m], w, h,
                       ms[0], ms[1], ms[1] / ms[0], test_ms, 100.0 * test_ms / ms[0]);
            else
                fprintf(stderr, "bench: both directions, %s %dx%d: %s\n", methods[m], w, h,
                        flow_last_error());
            failed += !ok;
            flow_event_destroy(e0);
            flow_event_destroy(e1);
            flow_context_destroy(ctx[0]);
            flow_context_destroy(ctx[1]);
            flow_params_destroy(p);
            flow_image_free(&a), flow_image_free(&c);
            flow_field_free(&out);
            free(occ), free(conf);
        }
    }
    return failed;
}
