/* test_sintel_kitti.c -- every method on the Sintel and KITTI pairs of the
 * evaluation data (../shared/data, or FLOW_DATA) in those benchmarks'
 * measures (realdata_common.h), against regression bounds, and robust's
 * occlusion mask and occlusion-aware data terms on the Sintel pairs.
 * Every method runs with its params/<method>.params, else its defaults, in
 * colour as `make flows` computes colour frames.  plk takes 15-30 s a pair
 * on a CPU: it runs on the first Sintel and the first KITTI pair only.  The
 * figures must stay within the regression bounds of field_bounds: the
 * measured figure plus 3%, rounded up (docs/BENCHMARKS.md, "Sintel and
 * KITTI", has the measured ones).  Skipped when the data is absent. */
#include "realdata_common.h"

#include <stdlib.h>

#define NFMETHODS 7
static const char *const field_methods[NFMETHODS] = { "lk", "hs", "clg", "clg-nl", "robust", "plk", "dis" };
#define PLK 5

/* The regression bounds, per pair and method (lk, hs, clg, clg-nl, robust, plk, dis): the
 * figures measured on the CPU plus 3% (at least 0.01), rounded up to 3 digits; zeros: not run. */
static const field_score field_bounds[NFIELD][NFMETHODS] = {
    /* Sintel alley_1 clean */
    { { 1.59, 1.48, 6.61 }, { 1.31, 1.22, 5.48 }, { 1.31, 1.22, 5.31 }, { 1.23, 1.16, 4.57 },
      { 0.195, 0.152, 2.19 }, { 0.613, 0.547, 3.58 }, { 0.283, 0.233, 2.57 } },
    /* Sintel alley_1 final */
    { { 1.54, 1.43, 6.51 }, { 1.25, 1.16, 5.43 }, { 1.25, 1.16, 5.31 }, { 1.16, 1.08, 4.76 },
      { 0.228, 0.182, 2.34 }, { 0, 0, 0 }, { 0.287, 0.237, 2.57 } },
    /* Sintel cave_2 clean */
    { { 14.5, 14.4, 15.0 }, { 14.1, 14.1, 14.5 }, { 14.1, 14.1, 14.5 }, { 14.4, 14.4, 14.3 },
      { 3.74, 3.41, 7.77 }, { 0, 0, 0 }, { 1.56, 1.09, 7.22 } },
    /* Sintel cave_2 final */
    { { 13.8, 13.7, 15.2 }, { 13.2, 13.2, 14.0 }, { 13.2, 13.2, 14.0 }, { 13.5, 13.5, 13.9 },
      { 3.56, 3.13, 8.73 }, { 0, 0, 0 }, { 1.76, 1.17, 8.86 } },
    /* Sintel bandage_1 final */
    { { 1.01, 0.887, 6.38 }, { 0.906, 0.834, 4.26 }, { 0.906, 0.834, 4.23 }, { 0.717, 0.648, 3.93 },
      { 0.317, 0.239, 4.02 }, { 0, 0, 0 }, { 0.378, 0.298, 4.19 } },
    /* Sintel ambush_4 final */
    { { 142, 156, 115 }, { 74.8, 99.2, 30.2 }, { 74.8, 99.2, 30.1 }, { 72.7, 97.7, 26.9 },
      { 71.2, 93.3, 30.7 }, { 0, 0, 0 }, { 87.3, 102, 60.7 } },
    /* KITTI 2012 000157 */
    { { 1.32, 13.1, 0 }, { 0.872, 9.12, 0 }, { 0.876, 9.18, 0 }, { 0.823, 8.71, 0 },
      { 0.220, 0.0370, 0 }, { 0.685, 2.78, 0 }, { 0.220, 0.0270, 0 } },
    /* KITTI 2012 000045 */
    { { 9.00, 65.1, 0 }, { 7.54, 51.9, 0 }, { 7.54, 51.8, 0 }, { 7.55, 53.7, 0 },
      { 1.29, 10.5, 0 }, { 0, 0, 0 }, { 0.913, 6.55, 0 } },
};

/* Lower bounds of the occlusion mask's F1 against Sintel's occlusions/
 * (flow_context_set_backward with the paper's a and b, robust's defaults),
 * on the six Sintel pairs in field_pairs' order: the F1 measured on the
 * CPU less 10% and 0.02 (docs/EVALUATION.md has the figures). */
static const double robust_occlusion_f1[6] = { 0.25, 0.21, 0.22, 0.29, 0.13, 0.49 };
#define FIELD_ROBUST 4

/* The F1 of the occlusion plane against Sintel's mask over the valid pixels. */
static double occlusion_f1(const float *estimate, const flow_image *occ, const flow_image *invalid)
{
    const size_t n = (size_t)occ->width * occ->height;
    unsigned char *e = malloc(n), *t = malloc(n), *keep = malloc(n);
    double f1 = NAN;
    if (e && t && keep) {
        for (size_t i = 0; i < n; i++) {
            e[i] = estimate[i] != 0.0f;
            t[i] = occ->data[i] != 0.0f;
            keep[i] = invalid->data[i] == 0.0f;
        }
        flow_occlusion_scores sc;
        CHECK_OK(flow_occlusion_score(e, t, keep, occ->width, occ->height, &sc));
        f1 = sc.f1;
    }
    free(e), free(t), free(keep);
    return f1;
}

static void test_sintel_kitti(void)
{
    const char *dir = harness_need_data();
    flow_device *d = dir ? harness_device() : NULL;
    if (!d)
        return;
    for (int k = 0; k < NFIELD; k++) {
        const field_pair *fp = &field_pairs[k];
        harness_pair hp;
        flow_image occ = { 0 }, invalid = { 0 };
        if (!harness_in_part(k) || !harness_read_pair(dir, fp->f1, fp->f2, fp->gt, NULL, 1, &hp)) {
            if (harness_in_part(k))
                harness_skip("a Sintel or KITTI pair is not in the evaluation data");
            continue;
        }
        if (fp->occ)
            read_sintel_masks(dir, fp, &occ, &invalid);
        flow_field out;
        CHECK_OK(flow_field_alloc(&out, hp.a.width, hp.a.height));
        for (int m = 0; m < NFMETHODS; m++) {
            if (m == PLK && k != 0 && k != FIRST_KITTI)
                continue;
            const char *from;
            flow_params *p = load_params("", field_methods[m], &from);
            flow_context *ctx = NULL;
            if (p)
                CHECK_OK(flow_context_create(d, hp.a.width, hp.a.height, hp.a.channels, p, &ctx));
            flow_params_destroy(p);
            if (!ctx)
                continue;
            /* robust on Sintel: both directions, its flow unchanged, and the
             * occlusion mask scored */
            float *mask = NULL;
            if (m == FIELD_ROBUST && fp->occ && (mask = malloc(sizeof *mask * hp.a.width * hp.a.height))) {
                CHECK_OK(flow_context_set_backward(ctx, 1, FLOW_OCCLUSION_A, FLOW_OCCLUSION_B));
                CHECK_OK(flow_context_request_output(ctx, "occlusion", mask));
            }
            CHECK_OK(flow_context_compute(ctx, &hp.a, &hp.b, &out));
            flow_context_destroy(ctx);
            if (mask) {
                const double f1 = occlusion_f1(mask, &occ, &invalid);
                printf("    %-24s %-6s occlusion F1 %.3f (bound %g)\n", fp->name,
                       field_methods[m], f1, robust_occlusion_f1[k]);
                CHECK(f1 >= robust_occlusion_f1[k]);
                free(mask);
            }
            const field_score s
                = field_evaluate(&out, &hp.gt, fp->occ ? &occ : NULL, fp->occ ? &invalid : NULL);
            const field_score *b = &field_bounds[k][m];
            if (fp->occ)
                printf("    %-24s %-6s EPE all %8.4f  noc %8.4f  occ %8.4f  (bounds %g %g %g)\n",
                       fp->name, field_methods[m], s.a, s.b, s.c, b->a, b->b, b->c);
            else
                printf("    %-24s %-6s EPE %8.4f  Fl %7.3f%%  (bounds %g %g%%)\n", fp->name,
                       field_methods[m], s.a, s.b, b->a, b->b);
            CHECK(b->a > 0 && s.a <= b->a && s.b <= b->b); /* a run without a bound fails */
            if (fp->occ)
                CHECK(s.c <= b->c);
        }
        flow_field_free(&out);
        if (fp->occ) {
            flow_image_free(&occ);
            flow_image_free(&invalid);
        }
        harness_pair_free(&hp);
    }
}

/* robust's occlusion-aware data terms on the Sintel pairs: its parameters
 * (params/robust.params) with occ_d 0.1 against the same with occ_d 0 and
 * occ_e 0.  The mean over the pairs of the occluded pixels' EPE, relative
 * to the run without the weight, must fall to OCC_SINTEL_RATIO (measured
 * 0.916: alley_1 clean 2.118 -> 1.481 px), and no pair's visible-pixel EPE
 * may grow by more than OCC_SINTEL_NOC px (measured at most 0.172, cave_2
 * final: docs/PARAMETERS.md, "Occlusion-aware data terms"). */
#define OCC_SINTEL_RATIO 0.94
#define OCC_SINTEL_NOC 0.2
static void test_robust_occlusion_sintel(void)
{
    const char *dir = harness_need_data();
    flow_device *d = dir ? harness_device() : NULL;
    if (!d)
        return;
    double ratio = 0, noc[2] = { 0, 0 }, grown = -INFINITY;
    int n = 0;
    for (int k = 0; k < FIRST_KITTI; k++) {
        const field_pair *fp = &field_pairs[k];
        harness_pair hp;
        if (!harness_read_pair(dir, fp->f1, fp->f2, fp->gt, NULL, 1, &hp)) {
            harness_skip("a Sintel pair is not in the evaluation data");
            continue;
        }
        flow_image occ = { 0 }, invalid = { 0 };
        read_sintel_masks(dir, fp, &occ, &invalid);
        flow_field out;
        CHECK_OK(flow_field_alloc(&out, hp.a.width, hp.a.height));
        field_score s[2];
        for (int aware = 0; aware < 2; aware++) {
            const char *from;
            flow_params *p = load_params("", "robust", &from);
            if (p) {
                CHECK_OK(flow_params_set(p, "occ_d", aware ? "0.1" : "0"));
                CHECK_OK(flow_params_set(p, "occ_e", "0"));
            }
            flow_context *ctx = NULL;
            if (p)
                CHECK_OK(flow_context_create(d, hp.a.width, hp.a.height, hp.a.channels, p, &ctx));
            flow_params_destroy(p);
            if (ctx)
                CHECK_OK(flow_context_compute(ctx, &hp.a, &hp.b, &out));
            flow_context_destroy(ctx);
            s[aware] = field_evaluate(&out, &hp.gt, &occ, &invalid);
        }
        printf("    %-24s EPE noc %8.4f -> %8.4f  occ %8.4f -> %8.4f\n", fp->name, s[0].b, s[1].b,
               s[0].c, s[1].c);
        ratio += s[1].c / s[0].c;
        noc[0] += s[0].b, noc[1] += s[1].b;
        grown = fmax(grown, s[1].b - s[0].b);
        n++;
        flow_field_free(&out);
        flow_image_free(&occ), flow_image_free(&invalid);
        harness_pair_free(&hp);
    }
    if (n) {
        printf("    mean over %d pairs: occluded EPE x %.3f (bound %.3f), visible %.4f -> %.4f px, "
               "a pair's at most %+.3f px (bound +%.3f)\n", n, ratio / n, OCC_SINTEL_RATIO,
               noc[0] / n, noc[1] / n, grown, OCC_SINTEL_NOC);
        CHECK(ratio / n <= OCC_SINTEL_RATIO);
        CHECK(grown <= OCC_SINTEL_NOC);
    }
}

int main(void)
{
    RUN_PARTS(test_sintel_kitti, NFIELD);
    RUN(test_robust_occlusion_sintel);
    return harness_report();
}
