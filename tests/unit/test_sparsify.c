/* test_sparsify.c -- the measures of a confidence map and of an occlusion
 * estimate: the sparsification curve against a brute-force removal written
 * here (sort, drop, average), AUSE 0 for a confidence that orders the
 * pixels exactly as their errors, the flat curve of a constant confidence
 * (equal values count by their share), the exclusion rules shared with
 * flow_error_measure, bad input; occlusion precision, recall and F1 on
 * masks counted by hand. */
#include "harness.h"
#include "flow/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { W = 37, H = 11, N = W * H };

/* gt zero, est with endpoint error ee[i] = 0.01 * ((i * 7919) % N) + 0.5:
 * distinct errors in a scrambled spatial order. */
static void make_fields(flow_field *est, flow_field *gt, double *ee)
{
    CHECK_OK(flow_field_alloc(est, W, H));
    CHECK_OK(flow_field_alloc(gt, W, H));
    for (int i = 0; i < N; i++) {
        ee[i] = 0.01 * ((i * 7919L) % N) + 0.5;
        gt->u[i] = gt->v[i] = 0;
        est->u[i] = (float)(0.6 * ee[i]);
        est->v[i] = (float)(-0.8 * ee[i]);
        ee[i] = hypot((double)est->u[i], (double)est->v[i]);
    }
}

static int by_value(const void *a, const void *b)
{
    const double x = ((const double *)a)[0], y = ((const double *)b)[0];
    return (x > y) - (x < y);
}

/* The mean of the errors left after removing floor(k n / steps) pixels in
 * the order of increasing key (keys distinct): pairs (key, ee) sorted. */
static double brute_left(const double *ee, const double *key, int n, int steps, int k)
{
    double(*pairs)[2] = malloc(sizeof(double[2]) * n);
    for (int i = 0; i < n; i++) {
        pairs[i][0] = key[i];
        pairs[i][1] = ee[i];
    }
    qsort(pairs, n, sizeof *pairs, by_value);
    const int removed = (int)((double)k * n / steps);
    double sum = 0;
    for (int i = removed; i < n; i++)
        sum += pairs[i][1];
    free(pairs);
    return sum / (n - removed);
}

/* A confidence that is a decreasing function of the error orders like the
 * oracle: the curves agree and AUSE is 0.  The reverse order against the
 * brute-force removal, and AUSE = the mean gap. */
static void test_curves_against_brute_force(void)
{
    flow_field est, gt;
    double ee[N], key[N], neg[N];
    make_fields(&est, &gt, ee);
    float *conf = malloc(sizeof(float) * N);
    for (int i = 0; i < N; i++) {
        conf[i] = (float)(10.0 - ee[i]);
        neg[i] = -ee[i];
    }
    flow_sparsification_curve *c = malloc(sizeof *c);
    CHECK_OK(flow_sparsification(&est, &gt, NULL, conf, 20, c));
    CHECK(c->steps == 20 && c->scored == N);
    for (int k = 0; k < 20; k++) {
        CHECK_NEAR(c->curve[k], c->oracle[k], 1e-6);
        CHECK_NEAR(c->oracle[k], brute_left(ee, neg, N, 20, k), 1e-6);
    }
    CHECK_NEAR(c->ause, 0.0, 1e-12);

    for (int i = 0; i < N; i++) { /* the most wrong trusted most */
        conf[i] = (float)ee[i];
        key[i] = ee[i];
    }
    CHECK_OK(flow_sparsification(&est, &gt, NULL, conf, 50, c));
    double gap = 0;
    for (int k = 0; k < 50; k++) {
        CHECK_NEAR(c->curve[k], brute_left(ee, key, N, 50, k), 1e-6);
        gap += c->curve[k] - c->oracle[k];
    }
    CHECK_NEAR(c->ause, gap / 50, 1e-12);
    CHECK(c->ause > 0.5);
    CHECK_NEAR(c->ause_relative, c->ause / c->curve[0], 1e-15);
    double mean = 0;
    for (int i = 0; i < N; i++)
        mean += ee[i];
    CHECK_NEAR(c->curve[0], mean / N, 1e-6);
    free(conf);
    free(c);
    flow_field_free(&est);
    flow_field_free(&gt);
}

/* Equal confidences have no order: removing any share of them leaves the
 * mean, whatever the pixels' places.  Two groups: the low-confidence group
 * goes first, shared by what is left of it. */
static void test_ties(void)
{
    flow_field est, gt;
    double ee[N];
    make_fields(&est, &gt, ee);
    float *conf = malloc(sizeof(float) * N);
    for (int i = 0; i < N; i++)
        conf[i] = 0.25f;
    flow_sparsification_curve *c = malloc(sizeof *c);
    CHECK_OK(flow_sparsification(&est, &gt, NULL, conf, 10, c));
    for (int k = 0; k < 10; k++)
        CHECK_NEAR(c->curve[k], c->curve[0], 1e-6);

    /* the first 100 pixels (in memory order) low, the rest high */
    double low = 0, high = 0;
    for (int i = 0; i < N; i++) {
        conf[i] = i < 100 ? 0.0f : 1.0f;
        *(i < 100 ? &low : &high) += ee[i];
    }
    CHECK_OK(flow_sparsification(&est, &gt, NULL, conf, 10, c));
    /* step 1 removes floor(407 / 10) = 40 of the 100 low ones */
    CHECK_NEAR(c->curve[1], (high + 0.6 * low) / (N - 40), 1e-6);
    /* step 5 removes 203: all 100 low ones and 103 of the 307 high ones */
    CHECK_NEAR(c->curve[5], high * (307 - 103) / 307.0 / (N - 203), 1e-6);
    free(conf);
    free(c);
    flow_field_free(&est);
    flow_field_free(&gt);
}

/* Pixels that flow_error_measure does not score (outside the mask,
 * unknown ground truth or estimate) are not in the curve, and their
 * confidence is not read (NaN there is fine; on a scored pixel it is an
 * error naming the pixel). */
static void test_exclusions_and_errors(void)
{
    flow_field est, gt;
    double ee[N];
    make_fields(&est, &gt, ee);
    unsigned char mask[N];
    float *conf = malloc(sizeof(float) * N);
    for (int i = 0; i < N; i++) {
        mask[i] = i % 3 != 0;
        conf[i] = mask[i] ? (float)-ee[i] : NAN;
    }
    gt.u[1] = NAN; /* unknown ground truth */
    conf[1] = NAN;
    const flow_error_regions r = {.mask = mask};
    flow_sparsification_curve *c = malloc(sizeof *c);
    CHECK_OK(flow_sparsification(&est, &gt, &r, conf, 5, c));
    CHECK(c->scored == N - (N + 2) / 3 - 1);
    conf[2] = INFINITY;
    CHECK(flow_sparsification(&est, &gt, &r, conf, 5, c) == FLOW_ERR_INVALID);
    CHECK(strstr(flow_last_error(), "(2, 0)") != NULL);
    conf[2] = 0;
    CHECK(flow_sparsification(&est, &gt, &r, conf, 0, c) == FLOW_ERR_INVALID);
    CHECK(flow_sparsification(&est, &gt, &r, conf, FLOW_SPARSIFICATION_STEPS_MAX + 1, c) ==
          FLOW_ERR_INVALID);
    CHECK(flow_sparsification(&est, &gt, &r, NULL, 5, c) == FLOW_ERR_INVALID);
    memset(mask, 0, sizeof mask);
    CHECK(flow_sparsification(&est, &gt, &r, conf, 5, c) == FLOW_ERR_INVALID);
    flow_field small;
    CHECK_OK(flow_field_alloc(&small, 2, 2));
    CHECK(flow_sparsification(&small, &gt, NULL, conf, 5, c) == FLOW_ERR_SIZE);
    flow_field_free(&small);
    free(conf);
    free(c);
    flow_field_free(&est);
    flow_field_free(&gt);
}

/* 3x3: estimate {1,1,0, 1,0,0, 0,0,1}, truth {1,0,0, 1,1,0, 0,0,0}:
 * tp 2, fp 2, fn 1, tn 4; precision 1/2, recall 2/3, F1 4/7.  Keeping
 * only the first row: tp 1, fp 1, fn 0. */
static void test_occlusion_scores(void)
{
    const unsigned char est[9] = {1, 1, 0, 1, 0, 0, 0, 0, 255};
    const unsigned char truth[9] = {255, 0, 0, 1, 1, 0, 0, 0, 0};
    flow_occlusion_scores s;
    CHECK_OK(flow_occlusion_score(est, truth, NULL, 3, 3, &s));
    CHECK(s.true_pos == 2 && s.false_pos == 2 && s.false_neg == 1 && s.true_neg == 4);
    CHECK_NEAR(s.precision, 0.5, 1e-15);
    CHECK_NEAR(s.recall, 2.0 / 3, 1e-15);
    CHECK_NEAR(s.f1, 4.0 / 7, 1e-15);
    const unsigned char keep[9] = {1, 1, 1, 0, 0, 0, 0, 0, 0};
    CHECK_OK(flow_occlusion_score(est, truth, keep, 3, 3, &s));
    CHECK(s.true_pos == 1 && s.false_pos == 1 && s.false_neg == 0 && s.true_neg == 1);
    CHECK_NEAR(s.f1, 2.0 / 3, 1e-15);
    const unsigned char none[9] = {0};
    CHECK_OK(flow_occlusion_score(none, none, NULL, 3, 3, &s));
    CHECK(isnan(s.precision) && isnan(s.recall) && isnan(s.f1) && s.true_neg == 9);
    CHECK_OK(flow_occlusion_score(none, truth, NULL, 3, 3, &s));
    CHECK(isnan(s.precision) && s.recall == 0 && s.f1 == 0);
    CHECK(flow_occlusion_score(NULL, truth, NULL, 3, 3, &s) == FLOW_ERR_INVALID);
    CHECK(flow_occlusion_score(est, truth, NULL, 0, 3, &s) == FLOW_ERR_INVALID);
}

int main(void)
{
    RUN(test_curves_against_brute_force);
    RUN(test_ties);
    RUN(test_exclusions_and_errors);
    RUN(test_occlusion_scores);
    return harness_report();
}
