/* test_epic.c -- method epic stage by stage, on generated data: the
 * per-seed and per-pixel functions of pixel/epic_match.h and
 * pixel/epic_interp.h run here over host planes (the very code the devices
 * loop over): PatchMatch finds a large whole-pixel translation, the
 * forward-backward check drops inconsistent and textureless seeds, the
 * geodesic interpolation of exact affine matches reproduces the affine
 * field, and stops at an edge; then the whole method on the device under
 * test (FLOW_DEVICE) on generated large-motion pairs, and with a caller's
 * edge map (the built-in cost given as a map, a uniform map, a moving
 * disc's outline). */
#include "harness.h"
#include "device/device.h"
#include "pixel/epic_interp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static flow_plane plane(int w, int h)
{
    flow_plane p = { calloc((size_t)w * h, sizeof(float)), w, h, w };
    return p;
}

static flow_pair pair(int w, int h)
{
    flow_pair p = { plane(w, h), plane(w, h) };
    return p;
}

static void pair_free(flow_pair *p)
{
    free(p->u.data), free(p->v.data);
}

/* Frame k of a translation by (dx, dy) into a plane. */
static flow_plane synth_plane(const flow_synth *s, int w, int h, int k)
{
    flow_image img;
    flow_plane p = plane(w, h);
    CHECK_OK(flow_synth_frame(s, w, h, 1, k, &img));
    for (int i = 0; i < w * h; i++)
        p.data[i] = img.data[i];
    flow_image_free(&img);
    return p;
}

static flow_plane census(const flow_plane *f)
{
    flow_plane c = plane(f->width, f->height);
    flow_epic_census_args a = { .dst = c, .channels = 1, .thresh = 1.0f };
    a.f[0] = *f;
    for (int y = 0; y < c.height; y++)
        for (int x = 0; x < c.width; x++)
            flow_epic_census_px(&a, x, y);
    return c;
}

/* PatchMatch passes at one level from a zero flow (ping-pong as the
 * method runs them); the result in s[0]. */
static void match(const flow_plane *c1, const flow_plane *c2, flow_pair s[2], int step,
                  int passes, int radius)
{
    const int nx = s[0].u.width, ny = s[0].u.height;
    flow_plane cost = plane(nx, ny);
    int cur = 0;
    for (int k = 0; k < passes; k++) {
        const int jump = 1 << (passes - 2 - k > 0 ? passes - 2 - k : 0);
        const flow_epic_match_args a = { .c1 = *c1, .c2 = *c2, .src = s[cur], .dst = s[1 - cur],
                                         .cost = cost, .step = step, .jump = jump,
                                         .radius = radius, .pass = (unsigned)k };
        for (int y = 0; y < ny; y++)
            for (int x = 0; x < nx; x++)
                flow_epic_match_px(&a, x, y);
        cur = 1 - cur;
    }
    if (cur) {
        flow_pair t = s[0];
        s[0] = s[1], s[1] = t;
    }
    free(cost.data);
}

/* A 23 px translation at one level: the search finds it at almost every
 * seed whose patches stay in both frames; the backward search finds its
 * opposite, and the check keeps those seeds. */
static void test_match_translation(void)
{
    const int w = 128, h = 96, step = 3, dx = 23, dy = -9;
    const flow_synth s = { .motion = FLOW_SYNTH_TRANSLATE, .dx = dx, .dy = dy, .seed = 5,
                           .coarse = 0.5 };
    flow_plane f1 = synth_plane(&s, w, h, 0), f2 = synth_plane(&s, w, h, 1);
    flow_plane c1 = census(&f1), c2 = census(&f2);
    const int nx = (w - step / 2 + step - 1) / step, ny = (h - step / 2 + step - 1) / step;
    flow_pair fw[2] = { pair(nx, ny), pair(nx, ny) }, bw[2] = { pair(nx, ny), pair(nx, ny) };
    match(&c1, &c2, fw, step, 8, 64);
    match(&c2, &c1, bw, step, 8, 64);
    flow_plane valid = plane(nx, ny);
    flow_epic_check_args ck = { .valid = valid, .fw = fw[0], .bw = bw[0], .channels = 1,
                                .step = step, .tol2 = 1.0f, .min_texture = 1.0f };
    ck.f[0] = f1;
    int n = 0, right = 0, back = 0, kept = 0;
    for (int sy = 0; sy < ny; sy++)
        for (int sx = 0; sx < nx; sx++) {
            const int x = sx * step + step / 2, y = sy * step + step / 2;
            flow_epic_check_px(&ck, sx, sy);
            /* the patch (radius 4, census radius 2) inside both frames */
            if (x < 6 || y < 6 + -dy || x >= w - 6 - dx || y >= h - 6)
                continue;
            n++;
            right += FLOW_PX(fw[0].u, sx, sy) == dx && FLOW_PX(fw[0].v, sx, sy) == dy;
            kept += FLOW_PX(valid, sx, sy) == 1.0f;
        }
    int nb = 0;
    for (int sy = 0; sy < ny; sy++)
        for (int sx = 0; sx < nx; sx++) {
            const int x = sx * step + step / 2, y = sy * step + step / 2;
            if (x < 6 + dx || y < 6 || x >= w - 6 || y >= h - 6 + dy)
                continue;
            nb++;
            back += FLOW_PX(bw[0].u, sx, sy) == -dx && FLOW_PX(bw[0].v, sx, sy) == -dy;
        }
    printf("    %d seeds inside: %d matched (%d, %d), %d kept by the check; backward %d of %d\n",
           n, right, dx, dy, kept, back, nb);
    CHECK(n > 300);
    CHECK(right >= 0.97 * n);
    CHECK(kept >= 0.95 * n);
    CHECK(back >= 0.97 * nb);
    /* a backward flow that does not come back: every seed dropped */
    for (int i = 0; i < nx * ny; i++)
        bw[0].u.data[i] = 1000.0f;
    int dropped = 0;
    for (int sy = 0; sy < ny; sy++)
        for (int sx = 0; sx < nx; sx++) {
            flow_epic_check_px(&ck, sx, sy);
            dropped += FLOW_PX(valid, sx, sy) == 0.0f;
        }
    CHECK(dropped == nx * ny);
    free(f1.data), free(f2.data), free(c1.data), free(c2.data), free(valid.data);
    for (int k = 0; k < 2; k++)
        pair_free(&fw[k]), pair_free(&bw[k]);
}

/* A uniform frame has no texture: the check drops every seed, even with a
 * consistent flow; a sub-pixel parabola never moves a match by more than
 * half a pixel. */
static void test_check_textureless(void)
{
    const int w = 40, h = 30, step = 3, nx = 13, ny = 10;
    flow_plane f = plane(w, h), valid = plane(nx, ny);
    for (int i = 0; i < w * h; i++)
        f.data[i] = 100.0f;
    flow_pair fw = pair(nx, ny), bw = pair(nx, ny);
    flow_epic_check_args ck = { .valid = valid, .fw = fw, .bw = bw, .channels = 1, .step = step,
                                .tol2 = 4.0f, .min_texture = 1.0f };
    ck.f[0] = f;
    int kept = 0;
    for (int sy = 0; sy < ny; sy++)
        for (int sx = 0; sx < nx; sx++) {
            flow_epic_check_px(&ck, sx, sy);
            kept += FLOW_PX(valid, sx, sy) != 0.0f;
        }
    CHECK(kept == 0);
    CHECK(flow_epic_vertex(10, 4, 10) == 0.0f);
    CHECK(fabsf(flow_epic_vertex(10, 4, 6) - 0.25f) < 1e-6f);
    CHECK(flow_epic_vertex(3, 4, 6) == 0.0f); /* not a minimum: stays */
    free(f.data), free(valid.data), pair_free(&fw), pair_free(&bw);
}

/* The geodesic relaxation and the interpolation as the method runs them. */
static void interpolate(const flow_plane *f, const flow_pair *seeds, const flow_plane *valid,
                        int step, float edge, int affine, flow_pair *out)
{
    const int w = f->width, h = f->height;
    flow_plane cost = plane(w, h), d[2] = { plane(w, h), plane(w, h) },
               l[2] = { plane(w, h), plane(w, h) };
    flow_epic_cost_args e = { .cost = cost, .channels = 1, .inv_edge = 1.0f / edge };
    e.f[0] = *f;
    const flow_epic_geo_init_args gi = { d[0], l[0], *valid, step };
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            flow_epic_cost_px(&e, x, y);
            flow_epic_geo_init_px(&gi, x, y);
        }
    int jump = 1, cur = 0;
    while (jump * 4 <= (w > h ? w : h))
        jump *= 2;
    for (; jump >= 1; jump = jump > 1 ? jump / 2 : 0)
        for (int k = 0; k < (jump > 1 ? 1 : 8); k++) {
            const flow_epic_geo_step_args g = { d[1 - cur], l[1 - cur], d[cur], l[cur], cost,
                                                jump };
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++)
                    flow_epic_geo_step_px(&g, x, y);
            cur = 1 - cur;
        }
    const flow_epic_interp_args ia = { .w = *out, .dist = d[cur], .label = l[cur], .cost = cost,
                                       .seeds = *seeds, .step = step, .gather = 2,
                                       .inv_sigma = 1.0f / 3.0f, .affine = affine };
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            flow_epic_interp_px(&ia, x, y);
    free(cost.data);
    for (int k = 0; k < 2; k++)
        free(d[k].data), free(l[k].data);
}

/* Exact matches of an affine field, with a hole of dropped seeds: the
 * affine fit reproduces the field (inside, where seeds surround a pixel),
 * the hole included, up to the small ridge on its slopes; the weighted mean
 * does not. */
static void test_interp_affine(void)
{
    const int w = 90, h = 60, step = 3, nx = 30, ny = 20;
    flow_plane f = plane(w, h), valid = plane(nx, ny);
    flow_pair seeds = pair(nx, ny), out = pair(w, h);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            FLOW_PX(f, x, y) = (float)(40 + 20 * sin(0.3 * x) * cos(0.2 * y));
    for (int sy = 0; sy < ny; sy++)
        for (int sx = 0; sx < nx; sx++) {
            const float x = (float)(sx * step + 1), y = (float)(sy * step + 1);
            FLOW_PX(seeds.u, sx, sy) = 12.0f + 0.05f * x - 0.03f * y;
            FLOW_PX(seeds.v, sx, sy) = -7.0f + 0.02f * x + 0.04f * y;
            const int hole = sx >= 12 && sx < 16 && sy >= 8 && sy < 12;
            FLOW_PX(valid, sx, sy) = hole ? 0.0f : 1.0f;
        }
    double worst = 0, worst_mean = 0;
    for (int affine = 1; affine >= 0; affine--) {
        interpolate(&f, &seeds, &valid, step, 5.0f, affine, &out);
        double m = 0;
        for (int y = 8; y < h - 8; y++)
            for (int x = 8; x < w - 8; x++) {
                const double u = 12.0 + 0.05 * x - 0.03 * y, v = -7.0 + 0.02 * x + 0.04 * y;
                m = fmax(m, hypot(FLOW_PX(out.u, x, y) - u, FLOW_PX(out.v, x, y) - v));
            }
        *(affine ? &worst : &worst_mean) = m;
    }
    printf("    affine field: largest error %.2e px affine, %.3f px weighted mean\n", worst,
           worst_mean);
    CHECK(worst < 2e-3);
    CHECK(worst_mean > 10 * worst);
    free(f.data), free(valid.data), pair_free(&seeds), pair_free(&out);
}

/* Two regions split by a strong vertical edge, each with its own constant
 * flow, and no valid seed within 12 px of the edge on its left: every pixel
 * takes the flow of its own side, not the nearer seeds' across the edge
 * (but the two pixels of the edge itself). */
static void test_interp_edge(void)
{
    const int w = 60, h = 30, step = 3, nx = 20, ny = 10;
    flow_plane f = plane(w, h), valid = plane(nx, ny);
    flow_pair seeds = pair(nx, ny), out = pair(w, h);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            FLOW_PX(f, x, y) = x < 40 ? 50.0f : 200.0f;
    for (int sy = 0; sy < ny; sy++)
        for (int sx = 0; sx < nx; sx++) {
            const int x = sx * step + 1;
            FLOW_PX(seeds.u, sx, sy) = x < 40 ? 5.0f : -20.0f;
            /* left seeds stop 12 px before the edge, right ones start at it */
            FLOW_PX(valid, sx, sy) = x < 28 || x >= 40 ? 1.0f : 0.0f;
        }
    interpolate(&f, &seeds, &valid, step, 5.0f, 1, &out);
    int wrong = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            if (x != 39 && x != 40) /* the edge's own pixels have its gradient */
                wrong += fabsf(FLOW_PX(out.u, x, y) - (x < 40 ? 5.0f : -20.0f)) > 0.5f;
    printf("    edge: %d of %d pixels off the edge take the other side's flow\n", wrong, w * h);
    CHECK(wrong == 0);
    free(f.data), free(valid.data), pair_free(&seeds), pair_free(&out);
}

/* The whole method on the device under test: large translations and a
 * smooth field, sub-pixel accurate after the refinement. */
static void test_method(void)
{
    if (!harness_device())
        return;
    const flow_synth t = { .motion = FLOW_SYNTH_TRANSLATE, .dx = 17.3, .dy = -9.6, .seed = 7,
                           .coarse = 0.5 };
    const double e1 = harness_synth_aee("epic", &t, 160, 120, 1, NULL, 24, NULL);
    const flow_synth t3 = { .motion = FLOW_SYNTH_TRANSLATE, .dx = -31.5, .dy = 12.25, .seed = 8,
                            .coarse = 0.5 };
    const double e3 = harness_synth_aee("epic", &t3, 200, 150, 3, NULL, 40, NULL);
    const flow_synth sm = { .motion = FLOW_SYNTH_SMOOTH, .amplitude = 0.8, .wavelength = 60,
                            .seed = 9 };
    const double e2 = harness_synth_aee("epic", &sm, 128, 96, 1, NULL, 8, NULL);
    printf("    translate (17.3, -9.6): AEE %.4f; colour (-31.5, 12.25): AEE %.4f; smooth "
           "0.8 px: AEE %.4f\n", e1, e3, e2);
    CHECK(e1 < 0.05);
    CHECK(e3 < 0.05);
    CHECK(e2 < 0.1);
}

/* Given matches in place of the matcher (flow_epic_take_px): each seed
 * takes the match of the highest weight among those nearest to it, scaled
 * to the match level; a seed without one gets weight 0; then the matches
 * as full-size planes (flow_epic_scatter_px) put each seed's flow, scaled
 * back, at its full-size pixel, weight -1 elsewhere. */
static void test_take_scatter(void)
{
    enum { NX = 4, NY = 3, STEP = 3, W = 24, H = 18 };
    /* the full-size points of three matches near seed (1, 0) (match-level
     * pixel (4, 1), full size (8, 2)), one near seed (3, 2) */
    static const float rows[5][4] = {
        { 8.0f, 9.0f, 7.5f, 21.0f },   /* x */
        { 2.0f, 3.0f, 2.5f, 14.0f },   /* y */
        { 4.0f, 6.0f, 8.0f, -2.0f },   /* u */
        { -2.0f, 2.0f, 1.0f, 10.0f },  /* v */
        { 0.5f, 0.75f, 0.75f, 1.0f },  /* weight */
    };
    flow_plane m = plane(4, 5);
    for (int r = 0; r < 5; r++)
        for (int i = 0; i < 4; i++)
            m.data[r * 4 + i] = rows[r][i];
    flow_pair seeds = pair(NX, NY);
    flow_plane valid = plane(NX, NY);
    const flow_epic_take_args a = { seeds, valid, m, 4, STEP, 0.5f };
    for (int y = 0; y < NY; y++)
        for (int x = 0; x < NX; x++)
            flow_epic_take_px(&a, x, y);
    /* seed (1, 0): the first of the two of weight 0.75 */
    CHECK(valid.data[1] == 0.75f && seeds.u.data[1] == 3.0f && seeds.v.data[1] == 1.0f);
    CHECK(valid.data[2 * NX + 3] == 1.0f && seeds.u.data[2 * NX + 3] == -1.0f &&
          seeds.v.data[2 * NX + 3] == 5.0f);
    int none = 0;
    for (int i = 0; i < NX * NY; i++)
        none += valid.data[i] == 0.0f;
    CHECK(none == NX * NY - 2);
    flow_plane u = plane(W, H), v = plane(W, H), wt = plane(W, H);
    const flow_epic_scatter_args b = { u, v, wt, seeds, valid, STEP, 1 };
    int seeds_seen = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            flow_epic_scatter_px(&b, x, y);
            seeds_seen += wt.data[y * W + x] >= 0.0f;
        }
    CHECK(seeds_seen == NX * NY);
    CHECK(wt.data[2 * W + 8] == 0.75f && u.data[2 * W + 8] == 6.0f && v.data[2 * W + 8] == 2.0f);
    CHECK(wt.data[14 * W + 20] == 1.0f && u.data[14 * W + 20] == -2.0f);
    CHECK(wt.data[2 * W + 9] == -1.0f && u.data[2 * W + 9] == 0.0f);
    free(m.data), free(valid.data), free(u.data), free(v.data), free(wt.data);
    pair_free(&seeds);
}

/* ---- the caller's edge map (flow_context_set_edges) ---------------------- */

/* The flow of frames 0 -> 1 of s by epic with the settings and the edge
 * map `edges` (NULL: none) into *out (allocated here); 0 when it fails. */
static int edges_flow(const flow_synth *s, int w, int h, const char *settings,
                      const float *edges, flow_field *out)
{
    flow_device *d = harness_device();
    flow_image a, b;
    CHECK_OK(flow_synth_frame(s, w, h, 1, 0, &a));
    CHECK_OK(flow_synth_frame(s, w, h, 1, 1, &b));
    CHECK_OK(flow_field_alloc(out, w, h));
    flow_params *p = harness_params("epic", settings);
    flow_context *ctx = NULL;
    int ok = d && p && flow_context_create(d, w, h, 1, p, &ctx) == FLOW_OK
             && flow_context_takes_edges(ctx)
             && flow_context_set_edges(ctx, edges) == FLOW_OK
             && flow_context_compute(ctx, &a, &b, out) == FLOW_OK;
    if (!ok)
        fprintf(stderr, "    -> epic %s: %s\n", settings, flow_last_error());
    flow_context_destroy(ctx);
    flow_params_destroy(p);
    flow_image_free(&a), flow_image_free(&b);
    return ok;
}

static int same_field(const flow_field *f, const flow_field *g)
{
    const size_t n = sizeof(float) * (size_t)f->width * f->height;
    return memcmp(f->u, g->u, n) == 0 && memcmp(f->v, g->v, n) == 0;
}

/* The built-in edge cost as an edge map: with the match level at full size
 * and no presmoothing, E = (C - 1) / 128 of the first frame's cost C
 * (epic_cost, edge 2, run on the device under test as the method runs it)
 * and edge_gain 128 give the cost C again to the last bit (a power of two
 * scales exactly), so the flow is the one without an edge map, bit for bit;
 * with edge_gain 64 it is not. */
static void test_edges_builtin(void)
{
    flow_device *d = harness_device();
    if (!d)
        return;
    const int w = 96, h = 72;
    const flow_synth t = { .motion = FLOW_SYNTH_TRANSLATE, .dx = 7.4, .dy = -3.2, .seed = 5,
                           .coarse = 0.5 };
    flow_image a;
    CHECK_OK(flow_synth_frame(&t, w, h, 1, 0, &a));
    flow_plane f = { 0 }, cost = { 0 };
    CHECK_OK(flow_plane_alloc(d, &f, w, h));
    CHECK_OK(flow_plane_alloc(d, &cost, w, h));
    CHECK_OK(flow_upload(d, &f, a.data, (size_t)w));
    flow_epic_cost_args c = { .cost = cost, .channels = 1, .inv_edge = (float)(1.0 / 2.0) };
    c.f[0] = f;
    CHECK_OK(flow_k_epic_cost(d, &c));
    float *e = malloc(sizeof *e * (size_t)w * h);
    CHECK_OK(flow_download(d, e, (size_t)w, &cost));
    flow_plane_free(d, &f);
    flow_plane_free(d, &cost);
    float top = 0;
    for (int i = 0; i < w * h; i++) {
        e[i] = (e[i] - 1.0f) / 128.0f;
        top = fmaxf(top, e[i]);
    }
    CHECK(top > 0.05f && top <= 1.0f);
    flow_field own, given;
    const char *set = "sigma=0 match_level=0 edge=2";
    const int ok = edges_flow(&t, w, h, set, NULL, &own)
                   && edges_flow(&t, w, h, "sigma=0 match_level=0 edge=2 edge_gain=128", e,
                                 &given);
    CHECK(ok);
    printf("    built-in cost as a map (largest E %.3f): %s\n", (double)top,
           ok && same_field(&own, &given) ? "the same flow, bit for bit" : "a different flow");
    CHECK(ok && same_field(&own, &given));
    /* and the map is what was used: at half the gain the costs differ */
    flow_field half;
    CHECK(edges_flow(&t, w, h, "sigma=0 match_level=0 edge=2 edge_gain=64", e, &half));
    CHECK(!same_field(&own, &half));
    flow_field_free(&own), flow_field_free(&given), flow_field_free(&half);
    free(e);
    flow_image_free(&a);
}

/* A uniform map E = c is the uniform cost 1 + edge_gain c, which scales
 * every geodesic distance: the flow of E = 1 with edge_gain 1 (cost 2) is
 * that of E = 0 with geo_sigma halved, bit for bit (powers of two). */
static void test_edges_flat(void)
{
    if (!harness_device())
        return;
    const int w = 96, h = 72;
    const flow_synth t = { .motion = FLOW_SYNTH_SMOOTH, .amplitude = 2.0, .wavelength = 50,
                           .seed = 6 };
    float *one = malloc(sizeof *one * (size_t)w * h), *zero = calloc((size_t)w * h, sizeof *zero);
    for (int i = 0; i < w * h; i++)
        one[i] = 1.0f;
    flow_field f1, f0;
    const int ok = edges_flow(&t, w, h, "edge_gain=1 geo_sigma=3", one, &f1)
                   && edges_flow(&t, w, h, "edge_gain=1 geo_sigma=1.5", zero, &f0);
    CHECK(ok);
    CHECK(ok && same_field(&f1, &f0));
    flow_field_free(&f1), flow_field_free(&f0);
    free(one), free(zero);
}

/* A disc moving against the background, both textured: an edge map with
 * the disc's outline in the first frame keeps the matches of one motion
 * from spreading into the other, better than a flat map (no edges). */
static void test_edges_boundary(void)
{
    if (!harness_device())
        return;
    const int w = 160, h = 120;
    const flow_synth t = { .motion = FLOW_SYNTH_OBJECT, .dx = -4.0, .dy = 2.0, .odx = 9.0,
                           .ody = -6.0, .radius = 32, .seed = 11, .coarse = 0.5 };
    flow_field gt;
    CHECK_OK(flow_synth_flow(&t, w, h, 0, &gt));
    float *outline = malloc(sizeof *outline * (size_t)w * h);
    float *flat = calloc((size_t)w * h, sizeof *flat);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const double r = hypot(x - 0.5 * (w - 1), y - 0.5 * (h - 1));
            outline[y * w + x] = fabs(r - t.radius) <= 1.0 ? 1.0f : 0.0f;
        }
    flow_field fo, ff;
    const int ok = edges_flow(&t, w, h, NULL, outline, &fo)
                   && edges_flow(&t, w, h, NULL, flat, &ff);
    CHECK(ok);
    double eo = 0, ef = 0;
    long n = 0;
    for (int y = 8; ok && y < h - 8; y++)
        for (int x = 8; x < w - 8; x++, n++) {
            const int i = y * w + x;
            eo += hypot(fo.u[i] - gt.u[i], fo.v[i] - gt.v[i]);
            ef += hypot(ff.u[i] - gt.u[i], ff.v[i] - gt.v[i]);
        }
    if (ok) {
        eo /= (double)n, ef /= (double)n;
        printf("    disc over background: EPE %.4f with its outline as the edge map, %.4f with a "
               "flat map\n", eo, ef);
        CHECK(eo < 0.8 * ef);
        flow_field_free(&fo), flow_field_free(&ff);
    }
    flow_field_free(&gt);
    free(outline), free(flat);
}

int main(void)
{
    RUN(test_match_translation);
    RUN(test_check_textureless);
    RUN(test_interp_affine);
    RUN(test_interp_edge);
    RUN(test_take_scatter);
    RUN(test_method);
    RUN(test_edges_builtin);
    RUN(test_edges_flat);
    RUN(test_edges_boundary);
    return harness_report();
}
