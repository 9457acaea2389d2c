/* bench_accuracy.c -- the accuracy and the time of a method on every pair
 * with ground truth that the targets name: Yosemite (AAE on the
 * terrain mask), the Middlebury pairs RubberWhale, Dimetrodon, Grove2 and
 * Urban2 (AEE, gray), FlyingChairs 0000000-0000003 (AEE, colour), from
 * ../shared/data (or FLOW_DATA); the device of FLOW_DEVICE.  A benchmark,
 * not a test: it prints a table and fails only when a computation fails.
 *
 *   bench_accuracy                       the ablation of method robust: its
 *                                        defaults, then each lever off in turn
 *   bench_accuracy METHOD ["k=v k=v"]... the method with each of these
 *                                        settings in turn (a row each)
 *
 * Time: the median wall time of flow_context_compute (upload, device work,
 * download) over FLOW_ACC_RUNS runs (default 3) after one warm-up (0: the
 * one compute alone), averaged over the pairs of a column group.
 * FLOW_ACC_PAIRS=name,name keeps the pairs whose names contain one of
 * them.
 *
 * A second table gives the same rows on the Sintel and KITTI pairs of the
 * data, in colour, in those benchmarks' measures (flow_error_measure):
 * Sintel clean and final, EPE over the valid pixels (invalid/ left out),
 * the non-occluded and the occluded ones (occlusions/); KITTI 2012, EPE and
 * Fl; each pooled over every scored pixel of the set's pairs. */
#include "harness.h"
#include "flow/flow.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct pair {
    const char *name, *f1, *f2, *gt, *mask;
    int colour;
} pair;

#define MB "middlebury/"
#define FC "flyingchairs/"
static const pair pairs[] = {
    { "Yosemite", "yosemite-clouds/yos09.png", "yosemite-clouds/yos10.png",
      "yosemite-clouds/yos09-yos10.flo", "yosemite-clouds/yos09-terrain-mask.png", 0 },
    { "RubberWhale", MB "RubberWhale/frame10.png", MB "RubberWhale/frame11.png",
      MB "RubberWhale/flow10.flo", NULL, 0 },
    { "Dimetrodon", MB "Dimetrodon/frame10.png", MB "Dimetrodon/frame11.png",
      MB "Dimetrodon/flow10.flo", NULL, 0 },
    { "Grove2", MB "Grove2/frame10.png", MB "Grove2/frame11.png", MB "Grove2/flow10.flo", NULL,
      0 },
    { "Urban2", MB "Urban2/frame10.png", MB "Urban2/frame11.png", MB "Urban2/flow10.flo", NULL,
      0 },
    { "chairs0", FC "0000000-img0.ppm", FC "0000000-img1.ppm", FC "0000000-gt.flo", NULL, 1 },
    { "chairs1", FC "0000001-img0.ppm", FC "0000001-img1.ppm", FC "0000001-gt.flo", NULL, 1 },
    { "chairs2", FC "0000002-img0.ppm", FC "0000002-img1.ppm", FC "0000002-gt.flo", NULL, 1 },
    { "chairs3", FC "0000003-img0.ppm", FC "0000003-img1.ppm", FC "0000003-gt.flo", NULL, 1 },
};
#define NPAIRS ((int)(sizeof pairs / sizeof pairs[0]))

/* The ablation: robust's defaults, then one lever changed at a time. */
static const char *const ablation[][2] = {
    { "defaults", "" },
    { "no gradient constancy", "gamma=0" },
    { "not normalised", "normalise=0 eps_data=1 alpha=10 gamma=1" },
    { "no image-driven smoothness", "edge=0" },
    { "no median filter", "median=0" },
    { "plain median (unweighted)", "median_sigma_c=0" },
    { "median without occlusion weight", "median_occ_d=0 median_occ_e=0" },
    { "pyramid scale 0.5", "warp_scale=0.5" },
    { "scale 0.8 to the coarsest level", "warp_fine=0" },
    { "7 levels at 0.8, then halving", "warp_fine=7" },
    { "former solve (7 levels, 14 / 10 sweeps)", "warp_fine=7 sor_sweeps=14 n0=10" },
    { "one warp per level", "warps=1" },
    { "median after every warp", "median_each=1" },
    { "V-cycles on every level", "sor_below=0" },
    { "20 SOR sweeps on every level", "sor_below=0 solver=rbsor iterations=20 omega=1.8" },
    { "luminance, not colour", "color=0" },
    { "structure-texture 0.9", "texture=0.9" },
};

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double angular_error(double u, double v, double gu, double gv)
{
    double c = (1.0 + u * gu + v * gv) / (sqrt(1.0 + u * u + v * v) * sqrt(1.0 + gu * gu + gv * gv));
    c = c > 1.0 ? 1.0 : c < -1.0 ? -1.0 : c;
    return acos(c) * (180.0 / M_PI);
}

/* AAE (Yosemite) or AEE (the others) of est against gt, over the known
 * pixels of the mask. */
static double score(const pair *pr, const flow_field *est, const flow_field *gt,
                    const flow_image *mask)
{
    double sum = 0;
    long n = 0;
    for (int i = 0; i < gt->width * gt->height; i++) {
        if ((mask && mask->data[i] < 128.0f) || flow_is_unknown(gt->u[i], gt->v[i]))
            continue;
        sum += pr->mask ? angular_error(est->u[i], est->v[i], gt->u[i], gt->v[i])
                        : hypot(est->u[i] - gt->u[i], est->v[i] - gt->v[i]);
        n++;
    }
    return n ? sum / n : NAN;
}

static harness_pair data[NPAIRS];
static int loaded[NPAIRS];

/* The Sintel and KITTI pairs; set: 0 Sintel clean, 1 Sintel final, 2 KITTI 2012. */
typedef struct field_pair {
    const char *name, *f1, *f2, *gt, *occ, *invalid;
    int set;
} field_pair;
#define SIN "sintel/training/"
#define SINTEL(scene, pass, a, b, set)                                                           \
    { "sintel " pass " " scene, SIN pass "/" scene "/frame_" a ".png",                            \
      SIN pass "/" scene "/frame_" b ".png", SIN "flow/" scene "/frame_" a ".flo",                 \
      SIN "occlusions/" scene "/frame_" a ".png", SIN "invalid/" scene "/frame_" a ".png", set }
#define KITTI(id)                                                                                \
    { "kitti " id, "kitti2012/training/colored_0/" id "_10.png",                                  \
      "kitti2012/training/colored_0/" id "_11.png", "kitti2012/training/flow_noc/" id "_10.png",  \
      NULL, NULL, 2 }
static const field_pair field_pairs[] = {
    SINTEL("alley_1", "clean", "0002", "0003", 0),  SINTEL("cave_2", "clean", "0002", "0003", 0),
    SINTEL("alley_1", "final", "0002", "0003", 1),  SINTEL("cave_2", "final", "0002", "0003", 1),
    SINTEL("bandage_1", "final", "0035", "0036", 1), SINTEL("ambush_4", "final", "0004", "0005", 1),
    KITTI("000157"),                                KITTI("000045"),
};
#define NFIELD ((int)(sizeof field_pairs / sizeof field_pairs[0]))
static harness_pair fdata[NFIELD];
static unsigned char *foccluded[NFIELD], *finvalid[NFIELD];
static int floaded[NFIELD];

/* FLOW_ACC_PAIRS: a comma-separated list of names (or parts of names):
 * only those pairs. */
static int wanted(const char *name)
{
    const char *list = getenv("FLOW_ACC_PAIRS");
    if (!list || !*list)
        return 1;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save))
        if (strstr(name, tok))
            return 1;
    return 0;
}

/* The nonzero pixels of image file dir/name as a byte map (allocated). */
static unsigned char *byte_map(const char *dir, const char *name)
{
    char path[1024];
    flow_image m;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (flow_image_read(path, &m) != FLOW_OK) {
        fprintf(stderr, "bench_accuracy: %s\n", flow_last_error());
        return NULL;
    }
    const long n = (long)m.width * m.height;
    unsigned char *b = malloc((size_t)n);
    for (long i = 0; b && i < n; i++)
        b[i] = m.data[i] != 0.0f;
    flow_image_free(&m);
    return b;
}

static void load_all(const char *dir)
{
    for (int k = 0; k < NFIELD; k++) {
        const field_pair *fp = &field_pairs[k];
        floaded[k] = wanted(fp->name)
                     && harness_read_pair(dir, fp->f1, fp->f2, fp->gt, NULL, 1, &fdata[k]);
        if (floaded[k] && fp->occ) {
            foccluded[k] = byte_map(dir, fp->occ);
            finvalid[k] = byte_map(dir, fp->invalid);
            if (!foccluded[k] || !finvalid[k]) {
                harness_pair_free(&fdata[k]);
                floaded[k] = 0;
            }
        }
    }
    for (int k = 0; k < NPAIRS; k++) {
        const pair *pr = &pairs[k];
        loaded[k] = wanted(pr->name)
                    && harness_read_pair(dir, pr->f1, pr->f2, pr->gt, pr->mask, pr->colour, &data[k]);
    }
}

/* One row: the method with the settings on every pair; returns 0 when a
 * computation failed. */
static int row(flow_device *d, const char *label, const char *method, const char *settings,
               int runs)
{
    double err[NPAIRS], ms[NPAIRS];
    for (int k = 0; k < NPAIRS; k++) {
        err[k] = NAN;
        ms[k] = NAN;
        if (!loaded[k])
            continue;
        const harness_pair *L = &data[k];
        flow_params *p = harness_params(method, settings);
        if (!p)
            return 0;
        flow_context *ctx = NULL;
        flow_field out;
        CHECK_OK(flow_field_alloc(&out, L->a.width, L->a.height));
        flow_status s = flow_context_create(d, L->a.width, L->a.height, L->a.channels, p, &ctx);
        flow_params_destroy(p);
        double t[16];
        /* runs 0: the one compute is the time (a quick look on a CPU) */
        for (int r = 0; s == FLOW_OK && r <= runs; r++) {
            const double t0 = now_ms();
            s = flow_context_compute(ctx, &L->a, &L->b, &out);
            if (r > 0 || runs == 0)
                t[r > 0 ? r - 1 : 0] = now_ms() - t0;
        }
        if (s != FLOW_OK) {
            fprintf(stderr, "bench_accuracy: %s on %s: %s\n", method, pairs[k].name,
                    flow_last_error());
            flow_context_destroy(ctx);
            flow_field_free(&out);
            return 0;
        }
        qsort(t, (size_t)(runs ? runs : 1), sizeof t[0], cmp_double);
        ms[k] = t[runs / 2];
        err[k] = score(&pairs[k], &out, &L->gt, L->has_mask ? &L->mask : NULL);
        flow_context_destroy(ctx);
        flow_field_free(&out);
    }
    double mid = 0, chairs = 0, tm = 0, tc = 0;
    for (int k = 1; k <= 4; k++)
        mid += err[k] / 4, tm += ms[k] / 4;
    for (int k = 5; k < 9; k++)
        chairs += err[k] / 4, tc += ms[k] / 4;
    printf("| %-32s |", label);
    for (int k = 0; k < NPAIRS; k++)
        printf(k == 0 ? " %.2f |" : " %.3f |", err[k]);
    printf(" **%.3f** | **%.3f** | %.0f | %.0f |\n", mid, chairs, tm, tc);
    fflush(stdout);
    return 1;
}

/* A measure of every set pooled over its scored pixels: [set][0..2] the
 * sums of EPE all, noc, occ (Sintel) or EPE, -, Fl (KITTI), times their
 * pixel counts, and those counts. */
typedef struct pooled {
    double sum[3][3], n[3][3];
} pooled;

static void pool(pooled *p, int set, int j, double value, double n)
{
    if (n > 0 && !isnan(value))
        p->sum[set][j] += value * n, p->n[set][j] += n;
}

static void print_pooled(const pooled *p, int set, int j)
{
    if (p->n[set][j] > 0)
        printf(j == 2 && set == 2 ? " %.2f%% |" : " %.3f |", p->sum[set][j] / p->n[set][j]);
    else
        printf(" - |");
}

/* One row of the Sintel and KITTI table; returns 0 when a computation failed. */
static int field_row(flow_device *d, const char *label, const char *method, const char *settings)
{
    pooled p;
    memset(&p, 0, sizeof p);
    for (int k = 0; k < NFIELD; k++) {
        if (!floaded[k])
            continue;
        const harness_pair *L = &fdata[k];
        flow_params *params = harness_params(method, settings);
        if (!params)
            return 0;
        flow_context *ctx = NULL;
        flow_field out;
        CHECK_OK(flow_field_alloc(&out, L->a.width, L->a.height));
        flow_status s = flow_context_create(d, L->a.width, L->a.height, L->a.channels, params, &ctx);
        flow_params_destroy(params);
        if (s == FLOW_OK)
            s = flow_context_compute(ctx, &L->a, &L->b, &out);
        flow_context_destroy(ctx);
        flow_error_measures m;
        const flow_error_regions r = { NULL, finvalid[k], foccluded[k], NULL, NULL };
        if (s == FLOW_OK)
            s = flow_error_measure(&out, &L->gt, &r, &m);
        flow_field_free(&out);
        if (s != FLOW_OK) {
            fprintf(stderr, "bench_accuracy: %s on %s: %s\n", method, field_pairs[k].name,
                    flow_last_error());
            return 0;
        }
        const int set = field_pairs[k].set;
        pool(&p, set, 0, m.all.aee, (double)m.all.scored);
        if (set < 2) {
            pool(&p, set, 1, m.epe_noc, (double)m.scored_noc);
            pool(&p, set, 2, m.epe_occ, (double)m.scored_occ);
        } else {
            pool(&p, set, 2, m.fl, (double)m.all.scored);
        }
    }
    printf("| %-32s |", label);
    for (int set = 0; set < 3; set++)
        for (int j = 0; j < 3; j++)
            if (set < 2 || j != 1)
                print_pooled(&p, set, j);
    printf("\n");
    fflush(stdout);
    return 1;
}

int main(int argc, char **argv)
{
    const char *dir = harness_data_dir();
    if (!dir) {
        printf("bench_accuracy: no evaluation data (../shared/data or FLOW_DATA): nothing to do\n");
        return 0;
    }
    flow_device *d = harness_device();
    if (!d)
        return 1;
    const char *r = getenv("FLOW_ACC_RUNS");
    int runs = r ? atoi(r) : 3;
    runs = runs < 0 ? 0 : runs > 16 ? 16 : runs;
    load_all(dir);
    printf("bench_accuracy on %s (%s): Yosemite AAE deg (terrain), others AEE px; "
           "time: median of %d computes, ms per pair\n\n",
           flow_device_name(d), dir, runs);
    printf("| run | Yosemite | RubberWhale | Dimetrodon | Grove2 | Urban2 | chairs 0 | chairs 1 "
           "| chairs 2 | chairs 3 | Middlebury mean | chairs mean | ms Middlebury | ms chairs "
           "|\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    int ok = 1;
    if (argc > 1) {
        for (int i = 2; ok && i < (argc > 2 ? argc : 3); i++) {
            char label[96];
            snprintf(label, sizeof label, "%s %s", argv[1], i < argc ? argv[i] : "");
            ok = row(d, label, argv[1], i < argc ? argv[i] : NULL, runs);
        }
    } else {
        for (int i = 0; ok && i < (int)(sizeof ablation / sizeof ablation[0]); i++)
            ok = row(d, ablation[i][0], "robust", ablation[i][1], runs);
    }
    printf("\nSintel (EPE px over the valid pixels, all / non-occluded / occluded) and KITTI 2012 "
           "(EPE px, Fl), colour, every scored pixel of the set's pairs pooled:\n\n"
           "| run | clean all | clean noc | clean occ | final all | final noc | final occ "
           "| KITTI EPE | KITTI Fl |\n|---|---|---|---|---|---|---|---|---|\n");
    if (argc > 1) {
        for (int i = 2; ok && i < (argc > 2 ? argc : 3); i++) {
            char label[96];
            snprintf(label, sizeof label, "%s %s", argv[1], i < argc ? argv[i] : "");
            ok = field_row(d, label, argv[1], i < argc ? argv[i] : NULL);
        }
    } else {
        for (int i = 0; ok && i < (int)(sizeof ablation / sizeof ablation[0]); i++)
            ok = field_row(d, ablation[i][0], "robust", ablation[i][1]);
    }
    for (int k = 0; k < NPAIRS; k++)
        if (loaded[k])
            harness_pair_free(&data[k]);
    for (int k = 0; k < NFIELD; k++) {
        if (floaded[k])
            harness_pair_free(&fdata[k]);
        free(foccluded[k]);
        free(finvalid[k]);
    }
    return ok && harness_failed_checks == 0 ? 0 : 1;
}
