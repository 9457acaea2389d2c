/* test_fbcheck.c -- the forward-backward validity check (flow_fb_check,
 * flow/field.h) on fields whose outcome is known pixel by pixel: a
 * translation and its inverse keep every pixel except those carried out of
 * the frame; a disturbed block of the backward flow removes exactly the
 * pixels that land on it; bilinear sampling between a good and a bad
 * backward vector; the threshold's boundary (|f + b| = T is kept); unknown
 * forward vectors left alone and unknown backward samples propagated, but
 * only where their bilinear weight is nonzero; a rotation and its inverse
 * from flow_synth (bilinear sampling of an affine field is exact), and the
 * rotation checked against itself, which keeps only a disc about the
 * centre; one thread and three agree on a larger field; and every bad
 * argument, with the forward field left unchanged. */
#include "harness.h"
#include "flow/field.h"
#include "flow/synth.h"

#include <stdlib.h>
#include <string.h>

/* A w x h field of the constant vector (u, v). */
static void constant(flow_field *f, int w, int h, float u, float v)
{
    CHECK_OK(flow_field_alloc(f, w, h));
    for (int i = 0; i < w * h; i++) {
        f->u[i] = u;
        f->v[i] = v;
    }
}

static int is_marker(const flow_field *f, int i)
{
    return f->u[i] == FLOW_UNKNOWN && f->v[i] == FLOW_UNKNOWN;
}

/* The counts add up to the pixels, and the density is kept / total. */
static void check_counts(const flow_fb_stats *st, const flow_field *f)
{
    CHECK(st->total == (long)f->width * f->height);
    CHECK(st->kept + st->unknown_fwd + st->outside + st->unknown_bwd + st->inconsistent ==
          st->total);
    CHECK_NEAR(st->density, (double)st->kept / st->total, 1e-15);
}

/* f = (2, -1), b = (-2, 1) on 8x5: p + f(p) stays inside for x <= 5 and
 * y >= 1, 6 x 4 = 24 pixels, kept with their values; the 16 others leave
 * the frame and become the unknown marker.  Then a fractional translation
 * (0.5, 0.25) and its inverse: inside for x <= 6 and y <= 3, 28 pixels. */
static void test_translation_pair(void)
{
    flow_field f, b;
    constant(&f, 8, 5, 2.0f, -1.0f);
    constant(&b, 8, 5, -2.0f, 1.0f);
    flow_fb_stats st;
    CHECK_OK(flow_fb_check(&f, &b, 0.01, &st));
    check_counts(&st, &f);
    CHECK(st.kept == 24 && st.outside == 16 && st.inconsistent == 0 && st.unknown_bwd == 0);
    CHECK_NEAR(st.density, 24.0 / 40.0, 1e-15);
    int right = 1;
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 8; x++) {
            const int i = y * 8 + x, inside = x <= 5 && y >= 1;
            right &= inside ? f.u[i] == 2.0f && f.v[i] == -1.0f : is_marker(&f, i);
        }
    CHECK(right);
    flow_field_free(&f);
    flow_field_free(&b);

    constant(&f, 8, 5, 0.5f, 0.25f);
    constant(&b, 8, 5, -0.5f, -0.25f);
    CHECK_OK(flow_fb_check(&f, &b, 1e-6, &st));
    check_counts(&st, &f);
    CHECK(st.kept == 28 && st.outside == 12);
    right = 1;
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 8; x++)
            right &= (x <= 6 && y <= 3) == !is_marker(&f, y * 8 + x);
    CHECK(right);
    flow_field_free(&f);
    flow_field_free(&b);
}

/* f = (1, 0) on 8x6 and b = (-1, 0) except on the block x 3..4, y 1..2,
 * where b = (3, 3): the pixels landing there (x 2..3, y 1..2) are
 * inconsistent, the last column leaves the frame, everything else stays. */
static void test_inconsistent_block(void)
{
    flow_field f, b;
    constant(&f, 8, 6, 1.0f, 0.0f);
    constant(&b, 8, 6, -1.0f, 0.0f);
    for (int y = 1; y <= 2; y++)
        for (int x = 3; x <= 4; x++)
            b.u[y * 8 + x] = b.v[y * 8 + x] = 3.0f;
    flow_fb_stats st;
    CHECK_OK(flow_fb_check(&f, &b, 1.0, &st));
    check_counts(&st, &f);
    CHECK(st.inconsistent == 4 && st.outside == 6 && st.kept == 38);
    int right = 1;
    for (int y = 0; y < 6; y++)
        for (int x = 0; x < 8; x++) {
            const int removed = x == 7 || (x >= 2 && x <= 3 && y >= 1 && y <= 2);
            right &= removed == is_marker(&f, y * 8 + x);
        }
    CHECK(right);
    flow_field_free(&f);
    flow_field_free(&b);
}

/* f = (0.5, 0): pixels (3, 2) and (4, 2) sample b halfway between columns
 * 3-4 and 4-5.  b = -0.5 everywhere but b(4, 2) = -0.5 + d: both sample
 * -0.5 + d/2, so |f + b| = d/2 there and 0 elsewhere.  d = 2 gives exactly
 * T = 1 (kept), d = 3 gives 1.5 (both removed, nothing else). */
static void test_bilinear_sample(void)
{
    for (int pass = 0; pass < 2; pass++) {
        const float d = pass ? 3.0f : 2.0f;
        flow_field f, b;
        constant(&f, 7, 4, 0.5f, 0.0f);
        constant(&b, 7, 4, -0.5f, 0.0f);
        b.u[2 * 7 + 4] = -0.5f + d;
        flow_fb_stats st;
        CHECK_OK(flow_fb_check(&f, &b, 1.0, &st));
        check_counts(&st, &f);
        CHECK(st.outside == 4); /* column 6: 6.5 > 6 */
        CHECK(st.inconsistent == (pass ? 2 : 0));
        CHECK(is_marker(&f, 2 * 7 + 3) == pass && is_marker(&f, 2 * 7 + 4) == pass);
        CHECK(!is_marker(&f, 2 * 7 + 2) && !is_marker(&f, 2 * 7 + 5));
        flow_field_free(&f);
        flow_field_free(&b);
    }
}

/* |f + b| exactly at T is kept, just above is not; a diagonal difference
 * (3, 4) has length 5. */
static void test_threshold_boundary(void)
{
    const struct {
        float fu, fv, bu, bv;
        double t;
        int kept;
    } cases[] = {
        {2, 0, -1, 0, 1.0, 1},           {2, 0, -1, 0, nextafter(1.0, 0.0), 0},
        {0, 0, 3, 4, 5.0, 1},            {0, 0, 3, 4, 4.999, 0},
        {0, 0, -3, -4, 5.0, 1},          {1.5f, -2, -1, 2, 0.5, 1},
        {1.5f, -2, -1, 2, 0.4999999, 0}, {0, 0, 0, 0, 1e-9, 1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        /* 9x9 so that every endpoint of the centre pixel (4, 4) is inside */
        flow_field f, b;
        constant(&f, 9, 9, cases[k].fu, cases[k].fv);
        constant(&b, 9, 9, cases[k].bu, cases[k].bv);
        flow_fb_stats st;
        CHECK_OK(flow_fb_check(&f, &b, cases[k].t, &st));
        const int kept = !is_marker(&f, 4 * 9 + 4);
        if (kept != cases[k].kept)
            fprintf(stderr, "    case %zu: kept %d, expected %d\n", k, kept, cases[k].kept);
        CHECK(kept == cases[k].kept);
        CHECK(cases[k].kept ? st.inconsistent == 0 : st.kept == 0);
        flow_field_free(&f);
        flow_field_free(&b);
    }
}

/* Unknown forward vectors stay exactly as they were (the marker, NaN, a
 * .F marker read back) and are counted apart; an unknown backward sample
 * removes the pixels that need it with a nonzero weight, and only those. */
static void test_unknown_propagation(void)
{
    flow_field f, b;
    constant(&f, 6, 4, 1.0f, 0.0f);
    constant(&b, 6, 4, -1.0f, 0.0f);
    f.u[0] = FLOW_UNKNOWN;
    f.v[1] = NAN;
    f.u[2] = 5e9f;
    b.u[1 * 6 + 3] = FLOW_UNKNOWN; /* needed by (2, 1) only: integer steps */
    flow_fb_stats st;
    CHECK_OK(flow_fb_check(&f, &b, 0.5, &st));
    check_counts(&st, &f);
    CHECK(st.unknown_fwd == 3 && st.unknown_bwd == 1 && st.outside == 4 && st.kept == 16);
    CHECK(f.u[0] == FLOW_UNKNOWN && f.v[0] == 0.0f);
    CHECK(isnan(f.v[1]) && f.u[1] == 1.0f);
    CHECK(f.u[2] == 5e9f && f.v[2] == 0.0f);
    CHECK(is_marker(&f, 1 * 6 + 2));
    CHECK(!is_marker(&f, 1 * 6 + 1) && !is_marker(&f, 1 * 6 + 3) && !is_marker(&f, 2 * 6 + 2));
    flow_field_free(&f);
    flow_field_free(&b);

    /* f = (0.5, 0.5): each endpoint needs four samples; an unknown b at
     * (3, 2) removes the four pixels around it: (2..3, 1..2).  NaN in b
     * counts as unknown as well. */
    constant(&f, 6, 4, 0.5f, 0.5f);
    constant(&b, 6, 4, -0.5f, -0.5f);
    b.v[2 * 6 + 3] = NAN;
    CHECK_OK(flow_fb_check(&f, &b, 0.5, &st));
    check_counts(&st, &f);
    CHECK(st.unknown_bwd == 4 && st.outside == 9 && st.kept == 11);
    int right = 1;
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 6; x++) {
            const int removed = x == 5 || y == 3 || ((x == 2 || x == 3) && (y == 1 || y == 2));
            right &= removed == is_marker(&f, y * 6 + x);
        }
    CHECK(right);
    flow_field_free(&f);
    flow_field_free(&b);

    /* an endpoint exactly on the last column and row needs no sample beyond */
    constant(&f, 3, 3, 2.0f, 2.0f);
    constant(&b, 3, 3, -2.0f, -2.0f);
    CHECK_OK(flow_fb_check(&f, &b, 0.5, &st));
    CHECK(st.kept == 1 && !is_marker(&f, 0) && st.outside == 8);
    flow_field_free(&f);
    flow_field_free(&b);
}

/* The w x h field of flow_synth's rotation by `angle` about the centre. */
static void rotation(int w, int h, double angle, flow_field *f)
{
    flow_synth s;
    memset(&s, 0, sizeof s);
    s.motion = FLOW_SYNTH_ROTATE;
    s.angle = angle;
    CHECK_OK(flow_synth_flow(&s, w, h, 0, f));
}

/* A rotation by 0.1 rad and its inverse (flow_synth, angle -0.1): exactly
 * consistent, so with T = 1e-3 a pixel is kept iff its endpoint stays in
 * the frame.  The rotation against itself: |f + b| = 2 sin(0.1) r at
 * distance r from the centre, so with T = 1 the kept pixels are the disc
 * r <= 1 / (2 sin 0.1) = 5.0 px (a margin of 0.05 px for rounding). */
static void test_rotation(void)
{
    const int w = 40, h = 30;
    flow_field f = {0}, b = {0}, self = {0};
    rotation(w, h, 0.1, &f);
    rotation(w, h, 0.1, &self);
    rotation(w, h, -0.1, &b);
    long inside = 0;
    for (int y = 0; f.u && y < h; y++)
        for (int x = 0; x < w; x++) {
            const int i = y * w + x;
            const double ex = x + (double)f.u[i], ey = y + (double)f.v[i];
            inside += ex >= 0 && ex <= w - 1 && ey >= 0 && ey <= h - 1;
        }
    flow_fb_stats st;
    CHECK_OK(flow_fb_check(&f, &b, 1e-3, &st));
    check_counts(&st, &f);
    CHECK(st.kept == inside && st.inconsistent == 0 && st.outside == w * h - inside);
    CHECK(inside > w * h / 2 && inside < w * h);

    /* the rotation as its own backward flow (a fresh copy of it) */
    flow_field_free(&b);
    rotation(w, h, 0.1, &b);
    CHECK_OK(flow_fb_check(&self, &b, 1.0, &st));
    const double radius = 1.0 / (2.0 * sin(0.1));
    int right = self.u != NULL;
    long disc = 0;
    for (int y = 0; self.u && y < h; y++)
        for (int x = 0; x < w; x++) {
            const double r = hypot(x - 0.5 * (w - 1), y - 0.5 * (h - 1));
            const int kept = !is_marker(&self, y * w + x);
            if (r < radius - 0.05)
                right &= kept, disc++;
            else if (r > radius + 0.05)
                right &= !kept;
        }
    CHECK(right && disc > 50 && st.kept >= disc && st.kept < disc + 8);
    CHECK(st.inconsistent == w * h - st.kept - st.outside);
    flow_field_free(&f);
    flow_field_free(&b);
    flow_field_free(&self);
}

/* A field large enough for several chunks of rows: one thread and three
 * (FLOW_THREADS) give the same field and counts; a FLOW_THREADS that is
 * not a number is refused before the field is touched. */
static void test_threads_agree(void)
{
    const int w = 400, h = 300;
    flow_field f1 = {0}, f3 = {0}, b = {0};
    rotation(w, h, 0.05, &f1);
    rotation(w, h, 0.05, &f3);
    rotation(w, h, -0.04, &b); /* not quite the inverse: a ring is inconsistent */
    if (!f1.u || !f3.u || !b.u)
        return;
    char *saved = harness_env_save("FLOW_THREADS");
    flow_fb_stats st1, st3;
    setenv("FLOW_THREADS", "1", 1);
    CHECK_OK(flow_fb_check(&f1, &b, 0.5, &st1));
    setenv("FLOW_THREADS", "3", 1);
    CHECK_OK(flow_fb_check(&f3, &b, 0.5, &st3));
    CHECK(st1.kept > 0 && st1.inconsistent > 0 && st1.outside > 0);
    CHECK(memcmp(&st1, &st3, sizeof st1) == 0);
    const size_t bytes = (size_t)w * h * sizeof(float);
    CHECK(memcmp(f1.u, f3.u, bytes) == 0 && memcmp(f1.v, f3.v, bytes) == 0);
    setenv("FLOW_THREADS", "many", 1);
    CHECK(flow_fb_check(&f1, &b, 0.5, &st1) == FLOW_ERR_INVALID);
    CHECK(strstr(flow_last_error(), "FLOW_THREADS") != NULL);
    CHECK(memcmp(f1.u, f3.u, bytes) == 0);
    harness_env_restore("FLOW_THREADS", saved);
    flow_field_free(&f1);
    flow_field_free(&f3);
    flow_field_free(&b);
}

/* Sizes, thresholds, missing and shared fields: errors that name the
 * problem, and the forward field untouched. */
static void test_bad_input(void)
{
    flow_field f, b;
    constant(&f, 3, 2, 7.0f, 0.0f);
    constant(&b, 2, 3, 0.0f, 0.0f);
    flow_fb_stats st;
    memset(&st, 0, sizeof st);
    CHECK(flow_fb_check(&f, &b, 1.0, &st) == FLOW_ERR_SIZE);
    CHECK(strstr(flow_last_error(), "3x2") && strstr(flow_last_error(), "2x3"));
    flow_field_free(&b);
    constant(&b, 3, 2, 0.0f, 0.0f);
    const double bad[] = {0.0, -1.0, NAN, INFINITY, -INFINITY};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        CHECK(flow_fb_check(&f, &b, bad[k], &st) == FLOW_ERR_INVALID);
        CHECK(strstr(flow_last_error(), "threshold") != NULL);
    }
    CHECK(strstr(flow_last_error(), "-inf") != NULL);
    CHECK(flow_fb_check(&f, &f, 1.0, &st) == FLOW_ERR_INVALID);
    CHECK(strstr(flow_last_error(), "share memory") != NULL);
    CHECK(flow_fb_check(NULL, &b, 1.0, &st) == FLOW_ERR_INVALID);
    CHECK(flow_fb_check(&f, NULL, 1.0, &st) == FLOW_ERR_INVALID);
    int untouched = st.total == 0;
    for (int i = 0; i < 6; i++)
        untouched &= f.u[i] == 7.0f && f.v[i] == 0.0f;
    CHECK(untouched);
    /* no stats wanted: the check still runs (7 px away: every pixel out) */
    CHECK_OK(flow_fb_check(&f, &b, 1.0, NULL));
    CHECK(is_marker(&f, 0) && is_marker(&f, 5));
    flow_field_free(&f);
    flow_field_free(&b);
}

int main(void)
{
    RUN(test_translation_pair);
    RUN(test_inconsistent_block);
    RUN(test_bilinear_sample);
    RUN(test_threshold_boundary);
    RUN(test_unknown_propagation);
    RUN(test_rotation);
    RUN(test_threads_agree);
    RUN(test_bad_input);
    return harness_report();
}
