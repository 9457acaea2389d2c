/* test_error.c -- average angular and endpoint errors: values worked out by
 * hand on tiny fields, the exclusion rules (mask, unknown ground truth,
 * unknown estimate) and their counts, bad input (sizes, NaN); the
 * benchmarks' measures of flow_error_measure (px1/3/5, Fl, noc/occ, bg/fg,
 * speed and distance buckets, invalid) by hand; the distance transform
 * against a brute-force search; and on the
 * real ground truths of ../shared/data agreement with an independent
 * implementation written here (angle by atan2 of the cross and dot
 * products in long double, one-pass moments) to 1e-6. */
#include "harness.h"
#include "flow/error.h"
#include "flow/image.h"

#include <stdlib.h>
#include <string.h>

static void fill(flow_field *f, int w, int h, const float *u, const float *v)
{
    CHECK_OK(flow_field_alloc(f, w, h));
    memcpy(f->u, u, sizeof(float) * w * h);
    memcpy(f->v, v, sizeof(float) * w * h);
}

/* Single vectors: 45 degrees for (1,0) against (0,0) since cos = 1/sqrt(2);
 * acos(1/sqrt(26)) for (3,4) against (0,0); 90 degrees for opposite unit
 * vectors (dot product -1 + 1 = 0); acos(-0.6) for (2,0) against (-2,0). */
static void test_single_vectors(void)
{
    CHECK_NEAR(flow_angular_error(1, 0, 0, 0), 45.0, 1e-12);
    CHECK_NEAR(flow_angular_error(3, 4, 0, 0), 78.69006752597979, 1e-11);
    CHECK_NEAR(flow_angular_error(1, 0, -1, 0), 90.0, 1e-12);
    CHECK_NEAR(flow_angular_error(2, 0, -2, 0), 126.86989764584402, 1e-11);
    CHECK_NEAR(flow_angular_error(0.3, -0.2, 0.3, -0.2), 0.0, 1e-5);
    /* identical large vectors: the cosine rounds to 1 +- ulp, clamped, no NaN */
    for (double s = 1; s < 1e6; s *= 3.7) {
        double a = flow_angular_error(s, -0.7 * s, s, -0.7 * s);
        CHECK(a >= 0 && a < 1e-3);
    }
    CHECK_NEAR(flow_endpoint_error(3, 4, 0, 0), 5.0, 1e-15);
    CHECK_NEAR(flow_endpoint_error(1, 1, -2, -3), 5.0, 1e-15);
}

/* 2x2: AE 45, 0, 78.690..., 0; EE 1, 0, 5, 0.
 * AAE = 123.69006752597979 / 4 = 30.922516881494946, its standard deviation
 * sqrt(((45-m)^2 + 2 m^2 + (78.69-m)^2) / 4) = 33.13728461302276;
 * AEE = 6 / 4 = 1.5, standard deviation sqrt((0.25+2.25+12.25+2.25)/4) =
 * sqrt(4.25); one pixel of four has EE > 1 (EE = 1 is not over) and > 3. */
static void test_hand_field(void)
{
    const float eu[4] = {1, 0, 3, 1}, ev[4] = {0, 0, 4, 1};
    const float gu[4] = {0, 0, 0, 1}, gv[4] = {0, 0, 0, 1};
    flow_field est, gt;
    fill(&est, 2, 2, eu, ev);
    fill(&gt, 2, 2, gu, gv);
    flow_error_stats st;
    CHECK_OK(flow_error_compute(&est, &gt, NULL, &st));
    CHECK(st.total == 4 && st.scored == 4);
    CHECK(st.outside_mask == 0 && st.unknown_gt == 0 && st.unknown_est == 0);
    CHECK_NEAR(st.aae, 30.922516881494946, 1e-11);
    CHECK_NEAR(st.aae_std, 33.13728461302276, 1e-11);
    CHECK_NEAR(st.aee, 1.5, 1e-15);
    CHECK_NEAR(st.aee_std, sqrt(4.25), 1e-15);
    CHECK_NEAR(st.over1, 0.25, 0);
    CHECK_NEAR(st.over3, 0.25, 0);
    CHECK_NEAR(st.max_ee, 5.0, 0);
    flow_field_free(&est);
    flow_field_free(&gt);
}

/* 3x2 with every exclusion:
 *   0 scored: (1,0) vs (0,0)      AE 45,          EE 1
 *   1 outside the mask
 *   2 GT unknown (1e10)
 *   3 GT unknown (NaN)
 *   4 estimate unknown (FLOW_UNKNOWN)
 *   5 scored: (2,0) vs (-2,0)     AE 126.8698976, EE 4
 * AAE = 85.93494882292201, std 40.93494882292201; AEE 2.5, std 1.5;
 * half the scored pixels are over 1 px and over 3 px. */
static void test_exclusions(void)
{
    const float eu[6] = {1, 0, 0, 5, FLOW_UNKNOWN, 2}, ev[6] = {0, 2, 0, 5, FLOW_UNKNOWN, 0};
    const float gu[6] = {0, 0, 1e10f, NAN, 1, -2}, gv[6] = {0, 0, 0, 0, 1, 0};
    const unsigned char mask[6] = {1, 0, 255, 1, 1, 7};
    flow_field est, gt;
    fill(&est, 3, 2, eu, ev);
    fill(&gt, 3, 2, gu, gv);
    flow_error_stats st;
    CHECK_OK(flow_error_compute(&est, &gt, mask, &st));
    CHECK(st.total == 6 && st.scored == 2 && st.outside_mask == 1);
    CHECK(st.unknown_gt == 2 && st.unknown_est == 1);
    CHECK_NEAR(st.aae, 85.93494882292201, 1e-11);
    CHECK_NEAR(st.aae_std, 40.93494882292201, 1e-11);
    CHECK_NEAR(st.aee, 2.5, 1e-15);
    CHECK_NEAR(st.aee_std, 1.5, 1e-15);
    CHECK_NEAR(st.over1, 0.5, 0);
    CHECK_NEAR(st.over3, 0.5, 0);
    /* without the mask pixel 1 is scored too: AE acos(1/sqrt(5)), EE 2 */
    CHECK_OK(flow_error_compute(&est, &gt, NULL, &st));
    CHECK(st.scored == 3 && st.outside_mask == 0 && st.unknown_gt == 2);
    CHECK_NEAR(st.aae, (45.0 + 126.86989764584402 + 63.43494882292201) / 3, 1e-11);
    CHECK_NEAR(st.aee, 7.0 / 3, 1e-15);
    CHECK_NEAR(st.over1, 2.0 / 3, 1e-15);
    /* nothing scored: zero averages, the counts say why */
    const unsigned char none[6] = {0};
    CHECK_OK(flow_error_compute(&est, &gt, none, &st));
    CHECK(st.scored == 0 && st.outside_mask == 6 && st.aae == 0 && st.aee == 0);
    flow_field_free(&est);
    flow_field_free(&gt);
}

/* A 7x1 row, every measure by hand:
 *   x  gt        est       EE  |gt|  Fl outlier (EE > 3 and > 0.05 |gt|)
 *   0  (0,0)     (0.5,0)   0.5   0   no
 *   1  (20,0)    (22,0)    2    20   no
 *   2  (50,0)    (50,4)    4    50   yes (4 > 2.5)
 *   3  (100,0)   (104,0)   4   100   no  (4 < 5)
 *   4  (3,4)     (3,10)    6     5   yes
 *   5  unknown                        excluded: unknown ground truth
 *   6  (0,0)     (9,9)                excluded: invalid
 * Scored: EE 0.5, 2, 4, 4, 6.  px1 4/5, px3 3/5, px5 1/5, Fl 2/5.  Pixel 4
 * occluded: noc EPE 10.5/4 = 2.625, Fl 1/4; occ EPE 6, Fl 1/1.  Foreground
 * 2, 3: Fl 1/2; background 0, 1, 4: Fl 1/3.  Speeds: |gt| < 10 pixels 0, 4
 * (3.25); 10..40 pixel 1 (2); 40+ pixels 2, 3 (4).  Pixels 0..3 lie 4, 3,
 * 2, 1 px from the occluded pixel: all in d0-10 (2.625). */
static void test_measures_by_hand(void)
{
    const float gu[7] = {0, 20, 50, 100, 3, NAN, 0}, gv[7] = {0, 0, 0, 0, 4, 0, 0};
    const float eu[7] = {0.5f, 22, 50, 104, 3, 0, 9}, ev[7] = {0, 0, 4, 0, 10, 0, 9};
    const float nu[7] = {0, 20, 50, 100, FLOW_UNKNOWN, NAN, 0}, nv[7] = {0, 0, 0, 0, 0, 0, 0};
    const unsigned char occluded[7] = {0, 0, 0, 0, 1, 0, 0}, invalid[7] = {0, 0, 0, 0, 0, 0, 5};
    const unsigned char fg[7] = {0, 0, 1, 9, 0, 0, 0};
    flow_field est, gt, noc;
    fill(&est, 7, 1, eu, ev);
    fill(&gt, 7, 1, gu, gv);
    fill(&noc, 7, 1, nu, nv);
    flow_error_regions r = {NULL, invalid, occluded, NULL, fg};
    flow_error_measures m;
    CHECK_OK(flow_error_measure(&est, &gt, &r, &m));
    CHECK(m.all.total == 7 && m.all.scored == 5 && m.invalid == 1 && m.all.unknown_gt == 1);
    CHECK(m.all.outside_mask == 0 && m.all.unknown_est == 0);
    CHECK_NEAR(m.all.aee, 16.5 / 5, 1e-15);
    CHECK_NEAR(m.px1, 80, 1e-12);
    CHECK_NEAR(m.px3, 60, 1e-12);
    CHECK_NEAR(m.px5, 20, 1e-12);
    CHECK_NEAR(m.fl, 40, 1e-12);
    CHECK(m.scored_noc == 4 && m.scored_occ == 1);
    CHECK_NEAR(m.epe_noc, 2.625, 1e-15);
    CHECK_NEAR(m.epe_occ, 6, 1e-15);
    CHECK_NEAR(m.fl_noc, 25, 1e-12);
    CHECK_NEAR(m.fl_occ, 100, 1e-12);
    CHECK_NEAR(m.fl_fg, 50, 1e-12);
    CHECK_NEAR(m.fl_bg, 100.0 / 3, 1e-12);
    CHECK_NEAR(m.s0_10, 3.25, 1e-15);
    CHECK_NEAR(m.s10_40, 2, 1e-15);
    CHECK_NEAR(m.s40, 4, 1e-15);
    CHECK_NEAR(m.d0_10, 2.625, 1e-15);
    CHECK(isnan(m.d10_60) && isnan(m.d60_140));
    /* per pixel: the EE where scored, NaN for unknown ground truth and invalid */
    float ee[7];
    CHECK_OK(flow_error_per_pixel_in(&est, &gt, &r, ee));
    CHECK(ee[0] == 0.5f && ee[1] == 2 && ee[2] == 4 && ee[3] == 4 && ee[4] == 6);
    CHECK(isnan(ee[5]) && isnan(ee[6]));
    /* the same occlusion from KITTI's noc field: no distances without a mask */
    r.occluded = NULL;
    r.noc = &noc;
    CHECK_OK(flow_error_measure(&est, &gt, &r, &m));
    CHECK(m.scored_noc == 4 && m.scored_occ == 1);
    CHECK_NEAR(m.epe_noc, 2.625, 1e-15);
    CHECK_NEAR(m.fl_occ, 100, 1e-12);
    CHECK(isnan(m.d0_10) && isnan(m.d10_60) && isnan(m.d60_140));
    /* one source of occlusion */
    r.occluded = occluded;
    CHECK(flow_error_measure(&est, &gt, &r, &m) == FLOW_ERR_INVALID);
    /* without regions: the invalid pixel is scored (EE 9 sqrt 2, |gt| 0: an
     * outlier), nothing is split by occlusion or object */
    CHECK_OK(flow_error_measure(&est, &gt, NULL, &m));
    CHECK(m.all.scored == 6 && m.invalid == 0);
    CHECK_NEAR(m.fl, 50, 1e-12);
    CHECK(m.scored_noc == 0 && m.scored_occ == 0 && isnan(m.epe_noc) && isnan(m.epe_occ));
    CHECK(isnan(m.fl_noc) && isnan(m.fl_bg) && isnan(m.fl_fg) && isnan(m.d0_10));
    /* flow_error_compute gives the same figures as .all */
    flow_error_stats st;
    CHECK_OK(flow_error_compute(&est, &gt, NULL, &st));
    CHECK(memcmp(&st, &m.all, sizeof st) == 0);
    /* nothing scored: every new measure undefined */
    const unsigned char all[7] = {1, 1, 1, 1, 1, 1, 1};
    const flow_error_regions every = {NULL, all, NULL, NULL, NULL};
    CHECK_OK(flow_error_measure(&est, &gt, &every, &m));
    CHECK(m.all.scored == 0 && m.invalid == 7);
    CHECK(isnan(m.px1) && isnan(m.px3) && isnan(m.px5) && isnan(m.fl) && isnan(m.s0_10));
    /* a noc field of another size */
    flow_field small;
    fill(&small, 2, 1, nu, nv);
    const flow_error_regions wrong = {NULL, NULL, NULL, &small, NULL};
    CHECK(flow_error_measure(&est, &gt, &wrong, &m) == FLOW_ERR_SIZE);
    flow_field_free(&small);
    flow_field_free(&est);
    flow_field_free(&gt);
    flow_field_free(&noc);
}

/* The distance buckets' edges on a 150x1 row occluded at x = 0, every
 * other pixel's EE 0.01 x: d0-10 holds x = 1..9 (mean 0.05), d10-60
 * x = 10..59 (0.345), d60-140 x = 60..139 (0.995); 140..149 none (to the
 * float rounding of 0.01 x). */
static void test_distance_buckets(void)
{
    enum { W = 150 };
    float gu[W], gv[W], eu[W], ev[W];
    unsigned char occluded[W] = {1};
    for (int x = 0; x < W; x++) {
        gu[x] = gv[x] = ev[x] = 0;
        eu[x] = 0.01f * x;
    }
    flow_field est, gt;
    fill(&est, W, 1, eu, ev);
    fill(&gt, W, 1, gu, gv);
    const flow_error_regions r = {NULL, NULL, occluded, NULL, NULL};
    flow_error_measures m;
    CHECK_OK(flow_error_measure(&est, &gt, &r, &m));
    CHECK(m.scored_occ == 1 && m.scored_noc == W - 1);
    CHECK_NEAR(m.d0_10, 0.05, 1e-6);
    CHECK_NEAR(m.d10_60, 0.345, 1e-6);
    CHECK_NEAR(m.d60_140, 0.995, 1e-6);
    flow_field_free(&est);
    flow_field_free(&gt);
}

/* The exact squared distances against a brute-force search over the set
 * pixels, on maps with one, a few and no set pixel. */
static void test_distance_transform(void)
{
    enum { W = 23, H = 17 };
    unsigned char map[W * H];
    double d2[W * H];
    unsigned state = 12345;
    for (int trial = 0; trial < 6; trial++) {
        memset(map, 0, sizeof map);
        const int points = trial == 0 ? 0 : trial == 1 ? 1 : 3 * trial;
        for (int k = 0; k < points; k++) {
            state = state * 1103515245u + 12345u;
            map[(state >> 8) % (W * H)] = 1;
        }
        CHECK_OK(flow_distance_squared(map, W, H, d2));
        int same = 1;
        for (int i = 0; i < W * H; i++) {
            double best = HUGE_VAL;
            for (int j = 0; j < W * H; j++)
                if (map[j]) {
                    const double dx = i % W - j % W, dy = i / W - j / W;
                    if (dx * dx + dy * dy < best)
                        best = dx * dx + dy * dy;
                }
            same &= d2[i] == best;
        }
        CHECK(same);
    }
    CHECK(flow_distance_squared(map, 0, H, d2) == FLOW_ERR_INVALID);
    CHECK(flow_distance_squared(NULL, W, H, d2) == FLOW_ERR_INVALID);
}

static void test_bad_input(void)
{
    flow_field a, b;
    const float z[6] = {0};
    fill(&a, 3, 2, z, z);
    fill(&b, 2, 3, z, z);
    flow_error_stats st;
    CHECK(flow_error_compute(&a, &b, NULL, &st) == FLOW_ERR_SIZE);
    CHECK(strstr(flow_last_error(), "3x2") && strstr(flow_last_error(), "2x3"));
    flow_field_free(&b);
    fill(&b, 3, 2, z, z);
    a.v[4] = NAN; /* pixel (1, 1) */
    CHECK(flow_error_compute(&a, &b, NULL, &st) == FLOW_ERR_INVALID);
    CHECK(strstr(flow_last_error(), "(1, 1)") != NULL);
    a.v[4] = 0;
    a.u[2] = -INFINITY; /* pixel (2, 0) */
    CHECK(flow_error_compute(&a, &b, NULL, &st) == FLOW_ERR_INVALID);
    CHECK(strstr(flow_last_error(), "(2, 0)") != NULL);
    /* NaN in the ground truth is an unknown vector, not an error */
    a.u[2] = 0;
    b.u[2] = NAN;
    CHECK_OK(flow_error_compute(&a, &b, NULL, &st));
    CHECK(st.unknown_gt == 1 && st.scored == 5);
    CHECK(flow_error_compute(NULL, &b, NULL, &st) == FLOW_ERR_INVALID);
    CHECK(flow_error_compute(&a, &b, NULL, NULL) == FLOW_ERR_INVALID);
    flow_field_free(&a);
    flow_field_free(&b);
}

/* ---- the independent implementation ------------------------------------ */

typedef struct reference {
    long double aae, aae_std, aee, aee_std;
    long n, over1, over3;
} reference;

static reference reference_errors(const flow_field *e, const flow_field *g,
                                  const unsigned char *mask)
{
    long double s_ae = 0, s_ae2 = 0, s_ee = 0, s_ee2 = 0;
    reference r = {0, 0, 0, 0, 0, 0, 0};
    for (long i = 0; i < (long)g->width * g->height; i++) {
        const long double u = e->u[i], v = e->v[i], ug = g->u[i], vg = g->v[i];
        if ((mask && mask[i] == 0) || isnan(g->u[i]) || isnan(g->v[i]) || fabsl(ug) > 1e9L ||
            fabsl(vg) > 1e9L || fabsl(u) > 1e9L || fabsl(v) > 1e9L)
            continue;
        /* angle between a = (u, v, 1) and b = (ug, vg, 1): atan2(|a x b|, a.b) */
        const long double cx = v * 1 - 1 * vg, cy = 1 * ug - u * 1, cz = u * vg - v * ug;
        const long double dot = u * ug + v * vg + 1;
        const long double ae = atan2l(sqrtl(cx * cx + cy * cy + cz * cz), dot) * 180.0L /
                               3.141592653589793238462643383279502884L;
        const long double ee = hypotl(u - ug, v - vg);
        s_ae += ae, s_ae2 += ae * ae, s_ee += ee, s_ee2 += ee * ee;
        r.over1 += ee > 1, r.over3 += ee > 3;
        r.n++;
    }
    if (r.n) {
        r.aae = s_ae / r.n, r.aee = s_ee / r.n;
        r.aae_std = sqrtl(fmaxl(0, s_ae2 / r.n - r.aae * r.aae));
        r.aee_std = sqrtl(fmaxl(0, s_ee2 / r.n - r.aee * r.aee));
    }
    return r;
}

static void compare(const char *name, const flow_field *est, const flow_field *gt,
                    const unsigned char *mask)
{
    flow_error_stats st;
    CHECK_OK(flow_error_compute(est, gt, mask, &st));
    reference r = reference_errors(est, gt, mask);
    CHECK(st.scored == r.n && st.scored > 0);
    CHECK_NEAR(st.aae, (double)r.aae, 1e-6);
    CHECK_NEAR(st.aae_std, (double)r.aae_std, 1e-6);
    CHECK_NEAR(st.aee, (double)r.aee, 1e-6);
    CHECK_NEAR(st.aee_std, (double)r.aee_std, 1e-6);
    CHECK_NEAR(st.over1, (double)r.over1 / r.n, 1e-6);
    CHECK_NEAR(st.over3, (double)r.over3 / r.n, 1e-6);
    printf("    %-34s %7ld px  AAE %8.4f (sd %8.4f)  AEE %7.4f (sd %7.4f)  >1px %5.1f%%\n",
           name, st.scored, st.aae, st.aae_std, st.aee, st.aee_std, 100 * st.over1);
}

static void test_real_pairs(void)
{
    const char *data = harness_need_data();
    if (!data)
        return;
    const char *files[] = {"yosemite-clouds/yos09-yos10.flo", "middlebury/RubberWhale/flow10.flo",
                           "middlebury/Urban2/flow10.flo", "flyingchairs/0000001-gt.flo"};
    int tested = 0;
    for (size_t k = 0; k < sizeof files / sizeof *files; k++) {
        char path[1024];
        if (!harness_data_file(path, sizeof path, files[k]))
            continue;
        tested++;
        flow_field gt, est;
        CHECK_OK(flow_field_read(path, &gt));
        if (!gt.u)
            continue;
        CHECK_OK(flow_field_alloc(&est, gt.width, gt.height));
        /* the estimate: the truth scaled and shifted, plus uniform noise up
         * to +-4 px (so some pixels pass 1 and 3 px), and a few marked
         * unknown */
        unsigned seed = 12345u + (unsigned)k;
        for (int i = 0; i < gt.width * gt.height; i++) {
            const float gu = flow_is_unknown(gt.u[i], gt.v[i]) ? 0.0f : gt.u[i];
            const float gv = flow_is_unknown(gt.u[i], gt.v[i]) ? 0.0f : gt.v[i];
            est.u[i] = (float)(0.9 * gu + 0.2 + 8.0 * (harness_uniform(&seed) - 0.5));
            est.v[i] = (float)(1.1 * gv - 0.1 + 8.0 * (harness_uniform(&seed) - 0.5));
            if (i % 97 == 0)
                est.u[i] = FLOW_UNKNOWN;
        }
        compare(files[k], &est, &gt, NULL);
        /* the zero estimate */
        memset(est.u, 0, sizeof(float) * gt.width * gt.height);
        memset(est.v, 0, sizeof(float) * gt.width * gt.height);
        compare("  (zero flow)", &est, &gt, NULL);
        /* Yosemite on terrain, with the mask of the data set */
        if (k == 0) {
            char mpath[1024];
            snprintf(mpath, sizeof mpath, "%s/yosemite-clouds/yos09-terrain-mask.png", data);
            flow_image m;
            CHECK_OK(flow_image_read(mpath, &m));
            if (m.data && m.width == gt.width && m.height == gt.height) {
                unsigned char *mask = malloc((size_t)m.width * m.height);
                long on = 0;
                for (int i = 0; i < m.width * m.height; i++)
                    on += mask[i] = m.data[i] > 0;
                CHECK(on > 0 && on < m.width * m.height);
                compare("  (zero flow, terrain mask)", &est, &gt, mask);
                free(mask);
            }
            flow_image_free(&m);
        }
        flow_field_free(&est);
        flow_field_free(&gt);
    }
    CHECK(tested >= 1);
}

int main(void)
{
    RUN(test_single_vectors);
    RUN(test_hand_field);
    RUN(test_exclusions);
    RUN(test_measures_by_hand);
    RUN(test_distance_buckets);
    RUN(test_distance_transform);
    RUN(test_bad_input);
    RUN(test_real_pairs);
    return harness_report();
}
