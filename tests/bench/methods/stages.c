/* stages.c -- bench_methods' stage tables: device time per stage of robust
 * and dis, and epic's stages one by one with the bytes they move. */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

/* ---- where a method's time goes: device time per stage -----------------
 * The context runs directly (no graph, so that the stages are reported);
 * an event is recorded at each begin and end of the stages below, and the
 * spans are summed per name over a frame.  The stages nest in "warping"
 * and do not overlap each other. */
static const char *const stage_names[] = { "prepare",    "pyramid",    "patch search",
                                           "densify",    "warp",       "data terms",
                                           "solve",      "median" };
#define NSTAGES ((int)(sizeof stage_names / sizeof stage_names[0]))
#define STAGE_EVENTS 16384
static flow_event *st_ev[STAGE_EVENTS];
/* per event: -1 for a begin; for an end, its stage k + NSTAGES * (the event
 * index of its begin) */
static int st_n, st_open[NSTAGES], st_kind[STAGE_EVENTS], st_overflow;

static int stage_index(const char *name)
{
    for (int k = 0; k < NSTAGES; k++)
        if (strcmp(name, stage_names[k]) == 0)
            return k;
    return -1;
}

static void stage_mark(const char *name, int end)
{
    const int k = stage_index(name);
    if (k < 0)
        return;
    if (st_n >= STAGE_EVENTS) {
        st_overflow = 1;
        return;
    }
    if (!st_ev[st_n] && flow_event_create(bench_dev, &st_ev[st_n]) != FLOW_OK)
        return;
    flow_event_record(st_ev[st_n]);
    if (end)
        st_kind[st_n] = k + NSTAGES * st_open[k];
    else
        st_kind[st_n] = -1, st_open[k] = st_n;
    st_n++;
}

static void on_stage_begin(void *user, const char *name)
{
    (void)user;
    on_stage(NULL, name);
    stage_mark(name, 0);
}

static void on_stage_end(void *user, const char *name)
{
    (void)user;
    stage_mark(name, 1);
}

/* The stage tables' pair (a smooth synthetic motion) of size sz, its flow
 * and a context of method's defaults on it, running directly (no graph, so
 * that the stages are reported) with the stage callbacks begin and end; 0
 * when any fails. */
static int stage_setup(const char *method, const size *sz, void (*begin)(void *, const char *),
                       void (*end)(void *, const char *), flow_image *a, flow_image *c,
                       flow_field *out, flow_context **ctx)
{
    flow_params *p = NULL;
    *ctx = NULL;
    if (flow_params_create(method, &p) != FLOW_OK)
        return 0;
    flow_synth s = { .motion = FLOW_SYNTH_SMOOTH, .amplitude = 1.0, .wavelength = 60, .seed = 9 };
    const int ok = flow_synth_frame(&s, sz->w, sz->h, sz->channels, 0, a) == FLOW_OK
                   && flow_synth_frame(&s, sz->w, sz->h, sz->channels, 1, c) == FLOW_OK
                   && flow_field_alloc(out, sz->w, sz->h) == FLOW_OK
                   && flow_context_create(bench_dev, sz->w, sz->h, sz->channels, p, ctx) == FLOW_OK;
    flow_params_destroy(p);
    if (ok) {
        flow_observer obs;
        memset(&obs, 0, sizeof obs);
        obs.stage_begin = begin;
        obs.stage_end = end;
        flow_context_set_graphs(*ctx, 0);
        flow_context_set_observer(*ctx, &obs);
    }
    return ok;
}

/* Prints one row: the median over a few frames of each stage's time. */
static int stage_row(const char *method, const size *sz)
{
    flow_image a, c;
    flow_field out;
    flow_context *ctx;
    int ok = stage_setup(method, sz, on_stage_begin, on_stage_end, &a, &c, &out, &ctx);
    if (!ok) {
        fprintf(stderr, "bench: stages of %s: %s\n", method, flow_last_error());
        return 0;
    }
    enum { FRAMES = 5 };
    double t[NSTAGES][FRAMES], total[FRAMES];
    for (int f = 0; ok && f < FRAMES + 1; f++) {
        st_n = 0;
        ok = flow_context_compute(ctx, &a, &c, &out) == FLOW_OK;
        float dev_ms = 0;
        ok = ok && flow_event_elapsed(ev_tensor, ev_download, &dev_ms) == FLOW_OK;
        if (!ok || f == 0) /* the first frame warms up */
            continue;
        for (int k = 0; k < NSTAGES; k++)
            t[k][f - 1] = 0;
        for (int i = 0; i < st_n; i++)
            if (st_kind[i] >= 0) {
                float ms = 0;
                flow_event_elapsed(st_ev[st_kind[i] / NSTAGES], st_ev[i], &ms);
                t[st_kind[i] % NSTAGES][f - 1] += ms;
            }
        total[f - 1] = dev_ms;
    }
    flow_context_destroy(ctx);
    flow_image_free(&a), flow_image_free(&c);
    flow_field_free(&out);
    if (!ok || st_overflow) {
        fprintf(stderr, "bench: stages of %s: %s\n", method,
                st_overflow ? "too many stages to time" : flow_last_error());
        return 0;
    }
    printf("| %s | %dx%d%s |", method, sz->w, sz->h, sz->channels == 3 ? "rgb" : "");
    double sum = 0;
    for (int k = 0; k < NSTAGES; k++) {
        const double m = median(t[k], FRAMES);
        sum += m;
        printf(" %.3f |", m);
    }
    printf(" %.3f | %.3f |\n", sum, median(total, FRAMES));
    return 1;
}

void stage_table(int quick)
{
    static const char *const methods[] = { "robust", "dis" };
    const char *only = getenv("FLOW_BENCH_ONLY");
    printf("\ndevice ms per stage (direct launches, no graph: each stage timed by events; "
           "median of 5 frames):\n\n| method | size |");
    for (int k = 0; k < NSTAGES; k++)
        printf(" %s |", stage_names[k]);
    printf(" sum | device ms (no graph) |\n|---|---|");
    for (int k = 0; k < NSTAGES + 2; k++)
        printf("---|");
    printf("\n");
    const size sizes[3] = { { 640, 480, 1 }, { 1920, 1080, 1 }, { 316, 252, 3 } };
    for (int m = 0; m < 2; m++)
        for (int z = 0; z < 3; z++)
            if ((!only || strstr(methods[m], only) || strstr(only, methods[m])) && (!quick || sizes[z].w == 316))
                stage_row(methods[m], &sizes[z]);
    for (int i = 0; i < STAGE_EVENTS; i++)
        if (st_ev[i]) {
            flow_event_destroy(st_ev[i]);
            st_ev[i] = NULL;
        }
}

/* ---- epic stage by stage ------------------------------------------------
 * Every stage epic reports (but the container "warping"), in the order of
 * its first appearance in a frame, each pyramid level apart (L5 the
 * coarsest of the defaults, L1 the match level, L0 the finest): the
 * descriptors and the matching of each level, the consistency check, the
 * geodesic search (the edge cost and the relaxation passes), the
 * interpolation, and the refinement's warps, data terms, solve and median
 * (the pyramid runs `warps` warps on every level, the refinement's terms
 * and solves from the match level down); each with the bytes its
 * operations move (counting.c's model), its floor and its
 * launches.  A stage inside another (the solver's coarse tensors and
 * cycles) is shown under it and not summed again.  The rest of the device
 * time (the flow carried up a level, the smoothness weights) is the row
 * "between stages". */
#define ES_ROWS 64
#define ES_EVENTS 4096
#define ES_DEPTH 8
typedef struct es_row {
    char name[48];
    int nested;
    double ms[5], bytes, launches;
} es_row;
static es_row es_rows[ES_ROWS];
static int es_nrows, es_overflow;
static flow_event *es_ev[ES_EVENTS];
static int es_nev, es_row_of[ES_EVENTS]; /* per end event: row * ES_EVENTS + its begin */
/* the stages open, innermost last */
static struct {
    int ev, row;
    double bytes, launches;
    char label[48];
} es_stack[ES_DEPTH];
static int es_depth;
/* the pyramid's shape and the occurrences of the per-level stages so far
 * in this frame */
static int es_top, es_match, es_warps;
static int es_n_desc, es_n_matching, es_n_warp, es_n_terms, es_n_solve, es_n_median;

static int es_row_index(const char *name, int nested)
{
    for (int k = 0; k < es_nrows; k++)
        if (strcmp(es_rows[k].name, name) == 0)
            return k;
    if (es_nrows == ES_ROWS) {
        es_overflow = 1;
        return -1;
    }
    memset(&es_rows[es_nrows], 0, sizeof es_rows[0]);
    snprintf(es_rows[es_nrows].name, sizeof es_rows[0].name, "%s", name);
    es_rows[es_nrows].nested = nested;
    return es_nrows++;
}

static int es_leaf(const char *name)
{
    return strcmp(name, "warping") && strcmp(name, "upload") && strcmp(name, "download")
           && strcmp(name, "graph");
}

static int es_record(void)
{
    if (es_nev >= ES_EVENTS) {
        es_overflow = 1;
        return -1;
    }
    if (!es_ev[es_nev] && flow_event_create(bench_dev, &es_ev[es_nev]) != FLOW_OK)
        return -1;
    flow_event_record(es_ev[es_nev]);
    return es_nev++;
}

/* The row of a stage beginning now: its pyramid level from the order of
 * the stages (pyramid.c runs the levels from the coarsest, `warps` warps
 * each; epic matches on every level from the coarsest to the match level
 * and refines from there), or the stage it is inside. */
static void es_label(const char *name, char *label, size_t n)
{
    if (es_depth > 0) {
        char parent[sizeof es_stack[0].label];
        memcpy(parent, es_stack[es_depth - 1].label, sizeof parent);
        snprintf(label, n, "%.24s: %.20s", parent, name);
    }
    else if (strcmp(name, "descriptors") == 0)
        snprintf(label, n, "descriptors L%d", es_top - es_n_desc++);
    else if (strcmp(name, "matching") == 0)
        snprintf(label, n, "matching L%d", es_top - es_n_matching++);
    else if (strcmp(name, "warp") == 0)
        snprintf(label, n, "warp L%d", es_top - es_n_warp++ / es_warps);
    else if (strcmp(name, "data terms") == 0)
        snprintf(label, n, "data terms L%d", es_match - es_n_terms++ / es_warps);
    else if (strcmp(name, "solve") == 0)
        snprintf(label, n, "solve L%d", es_match - es_n_solve++ / es_warps);
    else if (strcmp(name, "median") == 0)
        snprintf(label, n, "median L%d", es_match - es_n_median++);
    else
        snprintf(label, n, "%s", name);
}

static void es_begin(void *user, const char *name)
{
    (void)user;
    on_stage(NULL, name);
    if (!es_leaf(name))
        return;
    if (es_depth == ES_DEPTH) {
        es_overflow = 1;
        return;
    }
    es_label(name, es_stack[es_depth].label, sizeof es_stack[0].label);
    es_stack[es_depth].row = es_row_index(es_stack[es_depth].label, es_depth > 0);
    es_stack[es_depth].ev = es_record();
    es_stack[es_depth].bytes = dev_bytes;
    es_stack[es_depth].launches = launches;
    if (es_stack[es_depth].ev >= 0)
        es_row_of[es_stack[es_depth].ev] = -1;
    es_depth++;
}

static void es_end(void *user, const char *name)
{
    (void)user;
    on_stage_done(NULL, name);
    if (!es_leaf(name) || es_depth == 0)
        return;
    es_depth--;
    const int row = es_stack[es_depth].row;
    const int begin = es_stack[es_depth].ev, e = es_record();
    if (row < 0 || begin < 0 || e < 0)
        return;
    es_row_of[e] = row * ES_EVENTS + begin;
    es_rows[row].bytes += dev_bytes - es_stack[es_depth].bytes;
    es_rows[row].launches += launches - es_stack[es_depth].launches;
}

/* One table: epic's stages on a w x h pair, medians of 5 frames. */
static int epic_stage_detail(const size *sz, double bw)
{
    flow_image a, c;
    flow_field out;
    flow_context *ctx;
    int ok = stage_setup("epic", sz, es_begin, es_end, &a, &c, &out, &ctx);
    double levels = 0, match = 0, warps = 0;
    const flow_params *used = ok ? flow_context_params(ctx) : NULL;
    ok = ok && flow_params_get_number(used, "levels", &levels) == FLOW_OK
         && flow_params_get_number(used, "match_level", &match) == FLOW_OK
         && flow_params_get_number(used, "warps", &warps) == FLOW_OK;
    if (!ok) {
        fprintf(stderr, "bench: stages of epic: %s\n", flow_last_error());
        flow_context_destroy(ctx);
        return 0;
    }
    enum { FRAMES = 5 };
    double total[FRAMES];
    es_nrows = es_overflow = 0;
    for (int f = 0; ok && f < FRAMES + 1; f++) {
        es_nev = es_depth = 0;
        es_n_desc = es_n_matching = es_n_warp = es_n_terms = es_n_solve = es_n_median = 0;
        es_top = (int)levels, es_match = (int)match, es_warps = warps > 0 ? (int)warps : 1;
        ok = flow_context_compute(ctx, &a, &c, &out) == FLOW_OK;
        float dev_ms = 0;
        ok = ok && flow_event_elapsed(ev_tensor, ev_download, &dev_ms) == FLOW_OK;
        if (!ok || f == 0) { /* the first frame warms up; its counts are dropped */
            for (int k = 0; k < es_nrows; k++)
                es_rows[k].bytes = es_rows[k].launches = 0;
            continue;
        }
        for (int k = 0; k < es_nrows; k++)
            es_rows[k].ms[f - 1] = 0;
        for (int i = 0; i < es_nev; i++)
            if (es_row_of[i] >= 0) {
                float ms = 0;
                flow_event_elapsed(es_ev[es_row_of[i] % ES_EVENTS], es_ev[i], &ms);
                es_rows[es_row_of[i] / ES_EVENTS].ms[f - 1] += ms;
            }
        total[f - 1] = dev_ms;
    }
    flow_context_destroy(ctx);
    flow_image_free(&a), flow_image_free(&c);
    flow_field_free(&out);
    if (!ok || es_overflow) {
        fprintf(stderr, "bench: stages of epic: %s\n",
                es_overflow ? "too many stages to time" : flow_last_error());
        return 0;
    }
    printf("\nepic at %dx%d%s (levels %d, match level %d), device ms per stage (direct "
           "launches, no graph; median of %d frames):\n\n"
           "| stage | device ms | share | MB | floor ms | x floor | launches |\n"
           "|---|---|---|---|---|---|---|\n",
           sz->w, sz->h, sz->channels == 3 ? " rgb" : "", (int)levels, (int)match, FRAMES);
    const double whole = median(total, FRAMES);
    double sum = 0, bytes = 0, nl = 0;
    for (int k = 0; k < es_nrows; k++) {
        es_row *r = &es_rows[k];
        const double ms = median(r->ms, FRAMES), b = r->bytes / FRAMES;
        const double floor_ms = b / (bw * 1e9) * 1e3;
        if (!r->nested)
            sum += ms, bytes += b, nl += r->launches / FRAMES;
        printf("| %s%s | %.3f | %.1f%% | %.2f | %.4f | %.1f | %.0f |\n", r->nested ? "- " : "",
               r->name, ms,
               100.0 * ms / whole, b / 1e6, floor_ms, floor_ms > 0 ? ms / floor_ms : 0.0,
               r->launches / FRAMES);
    }
    printf("| between stages | %.3f | %.1f%% | | | | |\n", whole - sum, 100.0 * (whole - sum) / whole);
    printf("| **device ms (no graph)** | **%.3f** | 100%% | %.2f | %.4f | %.1f | %.0f |\n", whole,
           bytes / 1e6, bytes / (bw * 1e9) * 1e3, whole / (bytes / (bw * 1e9) * 1e3), nl);
    return 1;
}

int epic_stage_tables(int quick, double bw)
{
    const char *only = getenv("FLOW_BENCH_ONLY");
    if (only && !strstr("epic", only) && !strstr(only, "epic"))
        return 0;
    const size sizes[2] = { { 1024, 436, 1 }, { 1920, 1080, 1 } };
    const size small = { 316, 252, 1 };
    int failed = 0;
    if (quick)
        failed += !epic_stage_detail(&small, bw);
    for (int z = 0; !quick && z < 2; z++)
        failed += !epic_stage_detail(&sizes[z], bw);
    for (int i = 0; i < ES_EVENTS; i++)
        if (es_ev[i]) {
            flow_event_destroy(es_ev[i]);
            es_ev[i] = NULL;
        }
    return failed;
}
