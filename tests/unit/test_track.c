/* test_track.c -- KLT feature tracking on the device under test
 * (FLOW_DEVICE): the parameters' ranges; selection (quality, minimum
 * distance, local maxima of the response, the strongest first, no strong
 * corner left far from every feature); tracking generated sequences of
 * known motion (translation, rotation, zoom, a large translation) to the
 * truth after 10 frames; the four kinds of loss; replacement away from the
 * tracked features; colour frames; Yosemite against its ground truth. */
#include "harness.h"

#include <stdlib.h>
#include <string.h>

#define MAX_IDS 20000

static flow_track_params params(int features)
{
    flow_track_params p;
    flow_track_defaults(&p);
    p.features = features;
    return p;
}

/* ---- parameters ------------------------------------------------------------ */

static void expect_bad(const flow_track_params *p, const char *name)
{
    CHECK(flow_track_params_check(p) == FLOW_ERR_INVALID);
    CHECK(strstr(flow_last_error(), name) != NULL);
}

static void test_params(void)
{
    flow_track_params p = params(1000), q;
    CHECK_OK(flow_track_params_check(&p));
    q = p, q.features = 0, expect_bad(&q, "features");
    q = p, q.quality = 0.0, expect_bad(&q, "quality");
    q = p, q.quality = 1.5, expect_bad(&q, "quality");
    q = p, q.min_distance = 0.5, expect_bad(&q, "min_distance");
    q = p, q.block = 4, expect_bad(&q, "block");
    q = p, q.window = 2, expect_bad(&q, "window");
    q = p, q.window = 22, expect_bad(&q, "window");
    q = p, q.levels = 0, expect_bad(&q, "levels");
    q = p, q.levels = 9, expect_bad(&q, "levels");
    q = p, q.iterations = 0, expect_bad(&q, "iterations");
    q = p, q.epsilon = 0.0, expect_bad(&q, "epsilon");
    q = p, q.min_eigen = -1.0, expect_bad(&q, "min_eigen");
    q = p, q.max_error = NAN, expect_bad(&q, "max_error");
    q = p, q.fb_check = -0.5, expect_bad(&q, "fb_check");
    q = p, q.harris_k = 0.3, expect_bad(&q, "harris_k");
    flow_tracker *t = NULL;
    q = p, q.window = 2;
    CHECK(flow_tracker_create(harness_device(), 64, 64, &q, &t) == FLOW_ERR_INVALID && !t);
    CHECK(flow_tracker_create(harness_device(), 0, 64, &p, &t) == FLOW_ERR_SIZE && !t);
}

/* ---- selection ------------------------------------------------------------- */

/* The response by its definition, in double: fourth-order differences
 * (coordinates clamped), the tensor averaged over the 3x3 block, its
 * smaller eigenvalue; 0 within `margin` of the border. */
static double *reference_response(const flow_image *f, int margin)
{
    const int w = f->width, h = f->height;
    double *gx = calloc((size_t)w * h, sizeof *gx), *gy = calloc((size_t)w * h, sizeof *gy);
    double *R = calloc((size_t)w * h, sizeof *R);
#define AT(x, y) f->data[(y < 0 ? 0 : y >= h ? h - 1 : y) * w + (x < 0 ? 0 : x >= w ? w - 1 : x)]
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            gx[y * w + x] = (AT(x - 2, y) - 8.0 * AT(x - 1, y) + 8.0 * AT(x + 1, y) - AT(x + 2, y)) / 12;
            gy[y * w + x] = (AT(x, y - 2) - 8.0 * AT(x, y - 1) + 8.0 * AT(x, y + 1) - AT(x, y + 2)) / 12;
        }
#undef AT
    for (int y = margin; y < h - margin; y++)
        for (int x = margin; x < w - margin; x++) {
            double a = 0, b = 0, c = 0;
            for (int j = -1; j <= 1; j++)
                for (int i = -1; i <= 1; i++) {
                    const double u = gx[(y + j) * w + x + i], v = gy[(y + j) * w + x + i];
                    a += u * u / 9, b += u * v / 9, c += v * v / 9;
                }
            const double e = 0.5 * (a + c) - sqrt(0.25 * (a - c) * (a - c) + b * b);
            R[y * w + x] = e > 0 ? e : 0;
        }
    free(gx);
    free(gy);
    return R;
}

static int is_local_max(const double *R, int w, int h, int x, int y, double tol)
{
    for (int j = -1; j <= 1; j++)
        for (int i = -1; i <= 1; i++)
            if (x + i >= 0 && y + j >= 0 && x + i < w && y + j < h
                && R[(y + j) * w + x + i] > R[y * w + x] + tol)
                return 0;
    return 1;
}

/* The pairs of points closer than d. */
static int closer_pairs(const flow_track_point *pt, int n, double d)
{
    int close = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < i; k++)
            close += hypot(pt[i].x - pt[k].x, pt[i].y - pt[k].y) < d;
    return close;
}

/* The features selected in one frame (all new), copied out. */
static int select_in(const flow_image *f, const flow_track_params *p, flow_track_point *out,
                     int max)
{
    flow_tracker *t = NULL;
    CHECK_OK(flow_tracker_create(harness_device(), f->width, f->height, p, &t));
    if (!t)
        return 0;
    CHECK_OK(flow_tracker_next(t, f));
    int n = 0;
    const flow_track_point *r = flow_tracker_points(t, &n);
    CHECK(n <= p->features && n <= max && flow_tracker_alive(t) == n);
    for (int i = 0; i < n && i < max; i++) {
        CHECK(r[i].state == FLOW_TRACK_NEW && r[i].id == i);
        out[i] = r[i];
    }
    flow_tracker_destroy(t);
    return n;
}

static void test_select(void)
{
    if (!harness_device())
        return;
    const int w = 320, h = 240;
    const flow_synth s = { .motion = FLOW_SYNTH_TRANSLATE, .seed = 11 };
    flow_image f = { 0 };
    CHECK_OK(flow_synth_frame(&s, w, h, 1, 0, &f));
    flow_track_params p = params(1000);
    const int r = p.window / 2;
    double *R = reference_response(&f, r);
    double best = 0;
    for (int i = 0; i < w * h; i++)
        best = R[i] > best ? R[i] : best;
    static flow_track_point all[1000], top[20];
    const int n = select_in(&f, &p, all, 1000);
    printf("    %d features of at most 1000 at min_distance %g\n", n, p.min_distance);
    CHECK(n > 200);
    int weak = 0, notmax = 0, inside = 1, order = 1;
    for (int i = 0; i < n; i++) {
        const int x = (int)all[i].x, y = (int)all[i].y;
        inside &= x == all[i].x && y == all[i].y && x >= r && y >= r && x < w - r && y < h - r;
        weak += R[y * w + x] < p.quality * best * (1 - 1e-4);
        notmax += !is_local_max(R, w, h, x, y, 1e-4 * best);
        if (i > 0)
            order &= R[y * w + x] <= R[(int)all[i - 1].y * w + (int)all[i - 1].x] + 1e-4 * best;
    }
    CHECK(inside && weak == 0 && notmax == 0 && order);
    CHECK(closer_pairs(all, n, p.min_distance) == 0);
    /* every strong corner has a feature near it: its cell's candidate is
     * within min_distance, and that one is taken or has a taken stronger
     * one within min_distance */
    int far = 0;
    for (int y = r; y < h - r; y++)
        for (int x = r; x < w - r; x++) {
            if (R[y * w + x] < 2 * p.quality * best || !is_local_max(R, w, h, x, y, 0))
                continue;
            double dmin = INFINITY;
            for (int i = 0; i < n; i++)
                dmin = fmin(dmin, hypot(all[i].x - x, all[i].y - y));
            far += dmin >= 2 * p.min_distance;
        }
    CHECK(far == 0);
    /* top N: the 20 strongest are the first 20 of the long list */
    p.features = 20;
    CHECK(select_in(&f, &p, top, 20) == 20);
    int same = 1;
    for (int i = 0; i < 20; i++)
        same &= top[i].x == all[i].x && top[i].y == all[i].y;
    CHECK(same);
    /* a larger distance, fewer features, still apart */
    p.features = 1000, p.min_distance = 25;
    const int m = select_in(&f, &p, all, 1000);
    printf("    %d features at min_distance 25\n", m);
    CHECK(m > 20 && m < n && closer_pairs(all, m, 25) == 0);
    /* Harris: other corners, the same rules */
    p.min_distance = 10, p.harris = 1;
    const int hn = select_in(&f, &p, all, 1000);
    CHECK(hn > 200 && closer_pairs(all, hn, 10) == 0);
    /* a flat frame has no corner */
    for (int i = 0; i < w * h; i++)
        f.data[i] = 128.0f;
    p.harris = 0;
    CHECK(select_in(&f, &p, all, 1000) == 0);
    free(R);
    flow_image_free(&f);
}

/* ---- tracking generated sequences ------------------------------------------ */

typedef struct truth {
    double x[MAX_IDS], y[MAX_IDS]; /* where the feature really is */
    double ex[MAX_IDS], ey[MAX_IDS];
    int born[MAX_IDS], alive[MAX_IDS], lost_at[MAX_IDS], seen[MAX_IDS];
} truth;

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* (u, v) of f at (x, y), bilinear: exact for the affine fields of
 * translation, rotation and zoom. */
static void field_at(const flow_field *f, double x, double y, double *u, double *v)
{
    const int w = f->width, h = f->height;
    x = fmin(fmax(x, 0), w - 1.001), y = fmin(fmax(y, 0), h - 1.001);
    const int x0 = (int)x, y0 = (int)y;
    const double ax = x - x0, ay = y - y0;
    const long i = (long)y0 * w + x0;
    *u = (1 - ay) * ((1 - ax) * f->u[i] + ax * f->u[i + 1]) + ay * ((1 - ax) * f->u[i + w] + ax * f->u[i + w + 1]);
    *v = (1 - ay) * ((1 - ax) * f->v[i] + ax * f->v[i + 1]) + ay * ((1 - ax) * f->v[i + w] + ax * f->v[i + w + 1]);
}

/* Tracks frames 0 .. frames-1 of s, following each feature's true
 * position along the exact flow; checks the rows' bookkeeping (ids new
 * once, tracked only while alive, never after a loss).  Returns the
 * tracker's loss counts summed over the frames. */
static flow_track_losses run_synth(const flow_synth *s, int w, int h, int channels, int frames,
                                   const flow_track_params *p, truth *T)
{
    flow_track_losses sum = { 0, 0, 0, 0 };
    memset(T, 0, sizeof *T);
    flow_tracker *t = NULL;
    CHECK_OK(flow_tracker_create(harness_device(), w, h, p, &t));
    if (!t)
        return sum;
    int bad_rows = 0;
    for (int k = 0; k < frames; k++) {
        flow_image f = { 0 };
        CHECK_OK(flow_synth_frame(s, w, h, channels, k, &f));
        CHECK_OK(flow_tracker_next(t, &f));
        flow_image_free(&f);
        int n = 0;
        const flow_track_point *r = flow_tracker_points(t, &n);
        for (int i = 0; i < n; i++) {
            const long id = r[i].id;
            if (id < 0 || id >= MAX_IDS) {
                bad_rows++;
                continue;
            }
            if (r[i].state == FLOW_TRACK_NEW) {
                bad_rows += T->seen[id];
                T->seen[id] = T->alive[id] = 1, T->born[id] = k;
                T->x[id] = r[i].x, T->y[id] = r[i].y;
            } else {
                bad_rows += !T->alive[id];
                if (r[i].state == FLOW_TRACK_LOST)
                    T->alive[id] = 0, T->lost_at[id] = k;
            }
            T->ex[id] = r[i].x - T->x[id], T->ey[id] = r[i].y - T->y[id];
        }
        const flow_track_losses l = flow_tracker_losses(t);
        sum.texture += l.texture, sum.outside += l.outside;
        sum.residual += l.residual, sum.fb += l.fb;
        if (k + 1 == frames)
            break;
        flow_field gt = { 0 };
        CHECK_OK(flow_synth_flow(s, w, h, k, &gt));
        for (int id = 0; id < MAX_IDS; id++)
            if (T->alive[id]) {
                double u, v;
                field_at(&gt, T->x[id], T->y[id], &u, &v);
                T->x[id] += u, T->y[id] += v;
            }
        flow_field_free(&gt);
    }
    CHECK(bad_rows == 0);
    flow_tracker_destroy(t);
    return sum;
}

/* The features selected in frame 0 and tracked to the end: the share
 * within `tol` px of the truth, their median error and count. */
static double share_within(const truth *T, double tol, double *median, int *count)
{
    static double e[MAX_IDS];
    int n = 0, ok = 0;
    for (int id = 0; id < MAX_IDS; id++)
        if (T->seen[id] && T->alive[id] && T->born[id] == 0) {
            e[n] = hypot(T->ex[id], T->ey[id]);
            ok += e[n++] <= tol;
        }
    qsort(e, (size_t)n, sizeof *e, cmp_double);
    *median = n ? e[n / 2] : INFINITY;
    *count = n;
    return n ? (double)ok / n : 0;
}

static void expect_accurate(const char *what, const flow_synth *s, int w, int h,
                            const flow_track_params *p)
{
    static truth T;
    run_synth(s, w, h, 1, 11, p, &T);
    double median;
    int n;
    const double share = share_within(&T, 0.05, &median, &n);
    printf("    %s: %d features after 10 frames, %.1f%% within 0.05 px, median %.4f px\n", what,
           n, 100 * share, median);
    CHECK(n >= 100 && share >= 0.95);
}

static void test_track_motions(void)
{
    if (!harness_device())
        return;
    flow_track_params p = params(400);
    const flow_synth tr = { .motion = FLOW_SYNTH_TRANSLATE, .dx = 1.3, .dy = -0.7, .seed = 3 };
    expect_accurate("translation (1.3, -0.7) px/frame", &tr, 320, 240, &p);
    const flow_synth rot = { .motion = FLOW_SYNTH_ROTATE, .angle = 0.5 * M_PI / 180, .seed = 4 };
    expect_accurate("rotation 0.5 deg/frame", &rot, 320, 240, &p);
    const flow_synth zoom = { .motion = FLOW_SYNTH_ZOOM, .scale = 1.01, .seed = 5 };
    expect_accurate("zoom 1.01/frame", &zoom, 320, 240, &p);
    /* 20 px a frame, twice the window's half side: the pyramid's three
     * levels reach it */
    const flow_synth big = { .motion = FLOW_SYNTH_TRANSLATE, .dx = 16.0, .dy = -12.0, .seed = 6,
                             .coarse = 2 };
    expect_accurate("translation (16, -12) px/frame", &big, 640, 480, &p);
    /* one level cannot follow it */
    static truth T;
    p.levels = 1;
    run_synth(&big, 480, 360, 1, 3, &p, &T);
    double median;
    int n;
    share_within(&T, 0.05, &median, &n);
    printf("    one level: %d features followed, median error %.3f px\n", n, median);
    CHECK(n == 0 || median > 1.0);
}

/* ---- loss and replacement -------------------------------------------------- */

static void test_losses(void)
{
    if (!harness_device())
        return;
    static truth T;
    /* features leave on the right: lost at their last position, inside */
    const flow_synth right = { .motion = FLOW_SYNTH_TRANSLATE, .dx = 6.0, .seed = 8 };
    flow_track_params p = params(300);
    p.replace = 0;
    flow_track_losses l = run_synth(&right, 160, 120, 1, 8, &p, &T);
    printf("    leaving: %d outside, %d texture\n", l.outside, l.texture);
    CHECK(l.outside > 10);
    int late = 0;
    for (int id = 0; id < MAX_IDS; id++)
        late += T.seen[id] && T.born[id] > 0; /* no replacement */
    CHECK(late == 0);
    /* too little texture for a huge threshold: every feature lost at once */
    const flow_synth still = { .motion = FLOW_SYNTH_TRANSLATE, .dx = 0.5, .seed = 9 };
    p = params(100);
    p.min_eigen = 1e6, p.replace = 0;
    l = run_synth(&still, 128, 96, 1, 2, &p, &T);
    int alive = 0, seen = 0;
    for (int id = 0; id < MAX_IDS; id++)
        alive += T.alive[id], seen += T.seen[id];
    CHECK(seen > 20 && alive == 0 && l.texture == seen);
    /* frames of unrelated textures: the residual and the way back disagree */
    flow_image a = { 0 }, b = { 0 };
    const flow_synth s1 = { .motion = FLOW_SYNTH_TRANSLATE, .seed = 21 };
    const flow_synth s2 = { .motion = FLOW_SYNTH_TRANSLATE, .seed = 22 };
    CHECK_OK(flow_synth_frame(&s1, 160, 120, 1, 0, &a));
    CHECK_OK(flow_synth_frame(&s2, 160, 120, 1, 0, &b));
    for (int check = 0; check < 2; check++) {
        p = params(200);
        p.replace = 0;
        if (check == 0)
            p.max_error = 5.0;
        else
            p.fb_check = 0.5;
        flow_tracker *t = NULL;
        CHECK_OK(flow_tracker_create(harness_device(), 160, 120, &p, &t));
        if (!t)
            break;
        CHECK_OK(flow_tracker_next(t, &a));
        const int n0 = flow_tracker_alive(t);
        CHECK_OK(flow_tracker_next(t, &b));
        l = flow_tracker_losses(t);
        const int lost = check == 0 ? l.residual : l.fb;
        printf("    unrelated frames, %s: %d of %d lost (texture %d, outside %d)\n",
               check == 0 ? "max_error 5" : "fb_check 0.5", lost, n0, l.texture, l.outside);
        CHECK(lost + l.texture + l.outside >= 0.9 * n0 && lost > 0.5 * n0);
        flow_tracker_destroy(t);
    }
    /* the same frames translated: nothing lost by either check */
    p = params(200);
    p.max_error = 5.0, p.fb_check = 0.1, p.replace = 0;
    const flow_synth slow = { .motion = FLOW_SYNTH_TRANSLATE, .dx = 0.8, .dy = 0.3, .seed = 21 };
    l = run_synth(&slow, 160, 120, 1, 4, &p, &T);
    CHECK(l.residual == 0 && l.fb == 0);
    flow_image_free(&a);
    flow_image_free(&b);
}

/* Features leaving on the right are replaced, in the same frame, by new
 * ones at least min_distance from every tracked one. */
static void test_replace(void)
{
    if (!harness_device())
        return;
    const int w = 200, h = 150, frames = 10;
    const flow_synth s = { .motion = FLOW_SYNTH_TRANSLATE, .dx = 8.0, .dy = 1.0, .seed = 12 };
    flow_track_params p = params(60);
    flow_tracker *t = NULL;
    CHECK_OK(flow_tracker_create(harness_device(), w, h, &p, &t));
    if (!t)
        return;
    long last_id = -1;
    int lost_total = 0, new_total = 0, close = 0, full = 1, order = 1;
    for (int k = 0; k < frames; k++) {
        flow_image f = { 0 };
        CHECK_OK(flow_synth_frame(&s, w, h, 1, k, &f));
        CHECK_OK(flow_tracker_next(t, &f));
        flow_image_free(&f);
        int n = 0;
        const flow_track_point *r = flow_tracker_points(t, &n);
        int lost = 0, born = 0;
        for (int i = 0; i < n; i++) {
            if (r[i].state == FLOW_TRACK_LOST)
                lost++;
            if (r[i].state != FLOW_TRACK_NEW)
                continue;
            born++;
            order &= r[i].id > last_id;
            last_id = r[i].id;
            for (int j = 0; j < n; j++)
                if (r[j].state == FLOW_TRACK_TRACKED || (r[j].state == FLOW_TRACK_NEW && j != i))
                    close += hypot(r[i].x - r[j].x, r[i].y - r[j].y) < p.min_distance;
        }
        if (k > 0)
            lost_total += lost, new_total += born;
        full &= flow_tracker_alive(t) == p.features;
    }
    printf("    %d lost, %d new over %d frames; %d alive\n", lost_total, new_total, frames - 1,
           flow_tracker_alive(t));
    CHECK(lost_total > 10 && new_total >= lost_total && close == 0 && order && full);
    flow_tracker_destroy(t);
}

/* A colour frame is tracked on its luminance. */
static void test_colour(void)
{
    if (!harness_device())
        return;
    const flow_synth s = { .motion = FLOW_SYNTH_TRANSLATE, .dx = 1.5, .dy = 0.5, .seed = 14 };
    flow_track_params p = params(100);
    flow_tracker *tc = NULL, *tg = NULL;
    CHECK_OK(flow_tracker_create(harness_device(), 128, 96, &p, &tc));
    CHECK_OK(flow_tracker_create(harness_device(), 128, 96, &p, &tg));
    if (!tc || !tg)
        return;
    double worst = 0;
    int same = 1;
    for (int k = 0; k < 3; k++) {
        flow_image c = { 0 }, g = { 0 };
        CHECK_OK(flow_synth_frame(&s, 128, 96, 3, k, &c));
        CHECK_OK(flow_image_to_gray(&c, &g));
        CHECK_OK(flow_tracker_next(tc, &c));
        CHECK_OK(flow_tracker_next(tg, &g));
        int nc = 0, ng = 0;
        const flow_track_point *rc = flow_tracker_points(tc, &nc), *rg = flow_tracker_points(tg, &ng);
        same &= nc == ng;
        for (int i = 0; i < nc && i < ng; i++) {
            same &= rc[i].id == rg[i].id && rc[i].state == rg[i].state;
            worst = fmax(worst, hypot(rc[i].x - rg[i].x, rc[i].y - rg[i].y));
        }
        flow_image_free(&c);
        flow_image_free(&g);
    }
    CHECK(same && worst < 1e-3);
    flow_image gray = { 0 };
    CHECK_OK(flow_image_alloc(&gray, 100, 96, 1));
    CHECK(flow_tracker_next(tg, &gray) == FLOW_ERR_SIZE);
    CHECK(strstr(flow_last_error(), "100x96") != NULL);
    flow_image_free(&gray);
    flow_tracker_destroy(tc);
    flow_tracker_destroy(tg);
}

/* ---- real frames ----------------------------------------------------------- */

/* yos02 .. yos16 tracked; the displacement yos09 -> yos10 of the features
 * tracked through it, on the terrain, against the ground truth. */
static void test_yosemite(void)
{
    const char *dir = harness_need_data();
    if (!dir || !harness_device())
        return;
    char path[4096];
    flow_field gt = { 0 };
    flow_image mask = { 0 };
    if (!harness_data_file(path, sizeof path, "yosemite-clouds/yos09-yos10.flo")) {
        harness_skip("yosemite-clouds not in the evaluation data");
        return;
    }
    CHECK_OK(flow_field_read(path, &gt));
    harness_data_file(path, sizeof path, "yosemite-clouds/yos09-terrain-mask.png");
    CHECK_OK(flow_image_read(path, &mask));
    flow_track_params p = params(1000);
    flow_tracker *t = NULL;
    static double x9[MAX_IDS], y9[MAX_IDS], err[MAX_IDS];
    static int at9[MAX_IDS];
    memset(at9, 0, sizeof at9);
    int n10 = 0, tracked = 0;
    for (int k = 2; k <= 16; k++) {
        flow_image f = { 0 };
        snprintf(path, sizeof path, "%s/yosemite-clouds/yos%02d.png", dir, k);
        CHECK_OK(flow_image_read(path, &f));
        if (!t)
            CHECK_OK(flow_tracker_create(harness_device(), f.width, f.height, &p, &t));
        if (!t || !f.data) {
            flow_image_free(&f);
            break;
        }
        CHECK_OK(flow_tracker_next(t, &f));
        flow_image_free(&f);
        int n = 0;
        const flow_track_point *r = flow_tracker_points(t, &n);
        for (int i = 0; i < n; i++) {
            const long id = r[i].id;
            if (id >= MAX_IDS || r[i].state == FLOW_TRACK_LOST)
                continue;
            if (k == 9)
                at9[id] = 1, x9[id] = r[i].x, y9[id] = r[i].y;
            else if (k == 10 && r[i].state == FLOW_TRACK_TRACKED && at9[id]) {
                const int xi = (int)lround(x9[id]), yi = (int)lround(y9[id]);
                if (mask.data[yi * mask.width + xi] < 128)
                    continue;
                double u, v;
                field_at(&gt, x9[id], y9[id], &u, &v);
                err[n10++] = hypot(r[i].x - x9[id] - u, r[i].y - y9[id] - v);
            }
            tracked += k == 16 && r[i].state == FLOW_TRACK_TRACKED;
        }
    }
    qsort(err, (size_t)n10, sizeof *err, cmp_double);
    const double median = n10 ? err[n10 / 2] : INFINITY;
    printf("    yos09 -> yos10: %d terrain features, median error %.4f px, 90th percentile %.4f"
           " px; %d tracked into yos16\n", n10, median, n10 ? err[n10 * 9 / 10] : INFINITY,
           tracked);
    CHECK(n10 >= 200 && median <= 0.2);
    flow_tracker_destroy(t);
    flow_field_free(&gt);
    flow_image_free(&mask);
}

int main(void)
{
    RUN(test_params);
    RUN(test_select);
    RUN(test_track_motions);
    RUN(test_losses);
    RUN(test_replace);
    RUN(test_colour);
    RUN(test_yosemite);
    return harness_report();
}
