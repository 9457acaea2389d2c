/* klt.c -- bench_methods' KLT tracking table. */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

/* ---- KLT tracking --------------------------------------------------------
 * flow_tracker_next over a generated sequence (a slow rotation-zoom of the
 * default texture, KLT_FRAMES frames, then backwards, and so on): events
 * before and after each call, so a frame's time is everything from its
 * upload to the download of the points, selection of replacements
 * included, and the host's gaps between the launches; per stage the same
 * events as the methods' stage table.  FLOW_BENCH_FRAMES=DIR also writes
 * the frames there as PGM (frame-NN.pgm) for tests/bench/peers_klt.py. */
#define KLT_FRAMES 16
static const char *const klt_stage_names[] = { "upload", "pyramid", "track", "select",
                                               "download", "graph" };
#define KLT_STAGES 6
#define KLT_RUNS (4 * KLT_FRAMES + 1)

static flow_event *klt_ev[KLT_STAGES][2];
static int klt_seen[KLT_STAGES];
static void klt_stage(void *user, const char *name, int end)
{
    (void)user;
    for (int k = 0; k < KLT_STAGES; k++)
        if (strcmp(name, klt_stage_names[k]) == 0) {
            flow_event_record(klt_ev[k][end]);
            klt_seen[k] = 1;
        }
}
static void klt_begin(void *user, const char *name)
{
    klt_stage(user, name, 0);
}
static void klt_end(void *user, const char *name)
{
    klt_stage(user, name, 1);
}

typedef struct klt_times {
    double total, stage[KLT_STAGES], bytes, launches, lost;
    int alive;
} klt_times;

/* Tracks the frames with graphs on or off: medians per frame. */
static int klt_measure(int w, int h, const flow_track_params *p, const flow_image *frames,
                       int graphs, int quick, klt_times *out)
{
    flow_tracker *t = NULL;
    int ok = flow_tracker_create(bench_dev, w, h, p, &t) == FLOW_OK;
    flow_observer obs;
    memset(&obs, 0, sizeof obs);
    obs.stage_begin = klt_begin, obs.stage_end = klt_end;
    if (t) {
        flow_tracker_set_observer(t, &obs);
        flow_tracker_set_graphs(t, graphs);
    }
    flow_event *e0 = NULL, *e1 = NULL;
    ok = ok && flow_event_create(bench_dev, &e0) == FLOW_OK
         && flow_event_create(bench_dev, &e1) == FLOW_OK;
    for (int k = 0; ok && k < KLT_STAGES; k++)
        ok = (klt_ev[k][0] || flow_event_create(bench_dev, &klt_ev[k][0]) == FLOW_OK)
             && (klt_ev[k][1] || flow_event_create(bench_dev, &klt_ev[k][1]) == FLOW_OK);
    const int nruns = quick ? 6 : KLT_RUNS;
    static double total[KLT_RUNS], stage[KLT_STAGES][KLT_RUNS];
    int n = 0;
    long lost = 0;
    memset(out, 0, sizeof *out);
    for (int i = 0; ok && i < nruns; i++) {
        /* 0 1 .. 15 14 .. 1 0 1 ..: a motion that turns back now and then */
        const int period = 2 * (KLT_FRAMES - 1), m = i % period;
        const int k = m < KLT_FRAMES ? m : period - m;
        dev_bytes = launches = 0;
        memset(klt_seen, 0, sizeof klt_seen);
        flow_event_record(e0);
        ok = flow_tracker_next(t, &frames[k]) == FLOW_OK;
        flow_event_record(e1);
        float ms = 0;
        ok = ok && flow_event_elapsed(e0, e1, &ms) == FLOW_OK;
        if (!ok || i == 0) /* the first frame selects only */
            continue;
        if (i == 1 || !graphs) /* a replay issues nothing from the host */
            out->bytes = dev_bytes, out->launches = launches;
        const flow_track_losses l = flow_tracker_losses(t);
        lost += l.texture + l.outside + l.residual + l.fb;
        out->alive = flow_tracker_alive(t);
        total[n] = ms;
        for (int st = 0; st < KLT_STAGES; st++) {
            float sms = 0;
            if (klt_seen[st])
                flow_event_elapsed(klt_ev[st][0], klt_ev[st][1], &sms);
            stage[st][n] = sms;
        }
        n++;
    }
    if (!ok)
        fprintf(stderr, "bench: klt %dx%d: %s\n", w, h, flow_last_error());
    if (ok && graphs && !flow_tracker_used_graph(t))
        out->launches = -out->launches; /* no graph after all */
    flow_event_destroy(e0), flow_event_destroy(e1);
    flow_tracker_destroy(t);
    if (!ok || n == 0)
        return 0;
    out->total = median(total, n);
    for (int st = 0; st < KLT_STAGES; st++)
        out->stage[st] = median(stage[st], n);
    out->lost = (double)lost / n;
    return 1;
}

static int klt_row(int w, int h, const flow_track_params *p, double bw, int quick)
{
    const flow_synth s = { .motion = FLOW_SYNTH_ROTOZOOM, .angle = 0.004, .scale = 1.004,
                           .seed = 31 };
    flow_image frames[KLT_FRAMES];
    memset(frames, 0, sizeof frames);
    const char *dir = getenv("FLOW_BENCH_FRAMES");
    int ok = 1;
    for (int k = 0; ok && k < KLT_FRAMES; k++) {
        ok = flow_synth_frame(&s, w, h, 1, k, &frames[k]) == FLOW_OK;
        if (ok && dir && w == 1920 && p->fb_check == 0 && p->features == 1000) {
            char path[4096];
            snprintf(path, sizeof path, "%s/frame-%02d.pgm", dir, k);
            ok = flow_image_write(path, &frames[k]) == FLOW_OK;
        }
    }
    klt_times g, d;
    ok = ok && klt_measure(w, h, p, frames, 1, quick, &g)
         && klt_measure(w, h, p, frames, 0, quick, &d);
    for (int k = 0; k < KLT_FRAMES; k++)
        flow_image_free(&frames[k]);
    if (!ok)
        return 0;
    const double work = g.stage[5] > 0 ? g.stage[5] : g.stage[1] + g.stage[2] + g.stage[3];
    const double floor_ms = d.bytes / (bw * 1e9) * 1e3;
    printf("| %4dx%-4d | %5d | %s | %7.3f | %6.0f | %.3f | %.3f | %.3f | %7.3f | %.3f | %.3f | "
           "%.3f | %6.3f | %5.1f | %3.0f%s | %5.1f | %4d |\n",
           w, h, p->features, p->fb_check > 0 ? "fb" : "  ", g.total, 1e3 / g.total, g.stage[0],
           work, g.stage[4], d.total, d.stage[1], d.stage[2], d.stage[3], floor_ms,
           work / floor_ms, d.launches, g.launches > 0 ? " (graph)" : "", g.lost, g.alive);
    return 1;
}

int klt_table(double bw, int quick)
{
    const char *only = getenv("FLOW_BENCH_ONLY");
    if (only && !strstr("klt", only))
        return 0;
    printf("\nKLT tracking (flow_tracker_next; 3 levels, window 21x21), ms per frame, medians "
           "over %d frames of a rotation-zoom.\nms/frame: events before the upload and after the "
           "download (pageable float frame, 4 B/px); device work: the replayed graph (pyramid, "
           "tracking, selection of replacements);\ndirect: the same without graph, its stages "
           "(gaps between launches included); floor: device work's bytes / bandwidth\n\n"
           "| size | features | check | ms/frame | frames/s | upload | device work | download | "
           "direct | pyramid | track | select | floor ms | work x floor | launches | lost/frame | "
           "alive |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
           quick ? 5 : 4 * KLT_FRAMES);
    flow_track_params p;
    flow_track_defaults(&p);
    const int sizes[3][2] = { { 640, 480 }, { 1920, 1080 }, { 3840, 2160 } };
    int failed = 0;
    for (int z = 0; z < 3; z++)
        if (!quick || z == 0)
            failed += !klt_row(sizes[z][0], sizes[z][1], &p, bw, quick);
    if (!quick) {
        p.fb_check = 1.0;
        failed += !klt_row(1920, 1080, &p, bw, quick);
        p.fb_check = 0, p.features = 4000, p.min_distance = 5;
        failed += !klt_row(1920, 1080, &p, bw, quick);
    }
    for (int k = 0; k < KLT_STAGES; k++) {
        flow_event_destroy(klt_ev[k][0]), flow_event_destroy(klt_ev[k][1]);
        klt_ev[k][0] = klt_ev[k][1] = NULL;
    }
    return failed;
}
