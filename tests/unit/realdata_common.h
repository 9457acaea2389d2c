/* realdata_common.h -- what the tests on the evaluation data share
 * (test_realdata.c, test_sintel_kitti.c): a method's shipped parameters,
 * the Sintel and KITTI pairs and their measures.
 *
 * Sintel: EPE over the valid pixels (invalid/ left out), and over the
 * non-occluded and the occluded ones (occlusions/); KITTI: EPE and Fl (% of
 * pixels whose EPE is > 3 px and > 5% of the true vector's length) over the
 * pixels with ground truth.  Computed here, pixel by pixel. */
#ifndef TEST_REALDATA_COMMON_H
#define TEST_REALDATA_COMMON_H

#include "harness.h"
#include "flow/flow.h"

#include <stdio.h>
#include <string.h>

/* params/<seq>-<method>.params when present, else params/<method>.params,
 * else the built-in defaults of the method; *from names the source.  The
 * caller destroys the parameters (NULL when even the defaults failed). */
static inline flow_params *load_params(const char *seq, const char *method, const char **from)
{
    static char path[512];
    flow_params *p = harness_params(method, NULL);
    *from = "defaults";
    if (!p)
        return NULL;
    if (seq[0]) {
        snprintf(path, sizeof path, "params/%s-%s.params", seq, method);
        FILE *f = fopen(path, "r");
        if (f) {
            fclose(f);
            CHECK_OK(flow_params_read(path, &p));
            *from = path;
            return p;
        }
    }
    snprintf(path, sizeof path, "params/%s.params", method);
    FILE *f = fopen(path, "r");
    if (f) {
        fclose(f);
        CHECK_OK(flow_params_read(path, &p));
        *from = path;
    }
    CHECK(strcmp(flow_params_method(p), method) == 0);
    return p;
}

typedef struct field_pair {
    const char *name, *f1, *f2, *gt;
    const char *occ, *invalid; /* Sintel's masks; NULL for KITTI */
} field_pair;

#define SIN "sintel/training/"
#define SINTEL_PAIR(scene, pass, a, b)                                                          \
    { "Sintel " scene " " pass, SIN pass "/" scene "/frame_" a ".png",                          \
      SIN pass "/" scene "/frame_" b ".png", SIN "flow/" scene "/frame_" a ".flo",               \
      SIN "occlusions/" scene "/frame_" a ".png", SIN "invalid/" scene "/frame_" a ".png" }
#define KITTI_PAIR(id)                                                                          \
    { "KITTI 2012 " id, "kitti2012/training/colored_0/" id "_10.png",                           \
      "kitti2012/training/colored_0/" id "_11.png", "kitti2012/training/flow_noc/" id "_10.png", \
      NULL, NULL }
static const field_pair field_pairs[] = {
    SINTEL_PAIR("alley_1", "clean", "0002", "0003"),  SINTEL_PAIR("alley_1", "final", "0002", "0003"),
    SINTEL_PAIR("cave_2", "clean", "0002", "0003"),   SINTEL_PAIR("cave_2", "final", "0002", "0003"),
    SINTEL_PAIR("bandage_1", "final", "0035", "0036"), SINTEL_PAIR("ambush_4", "final", "0004", "0005"),
    KITTI_PAIR("000157"),                             KITTI_PAIR("000045"),
};
#define NFIELD ((int)(sizeof field_pairs / sizeof field_pairs[0]))
#define FIRST_KITTI 6

/* Reads the Sintel pair fp's masks (occlusions/ and invalid/ under dir)
 * into occ and invalid; a failed CHECK when one cannot be read. */
static inline void read_sintel_masks(const char *dir, const field_pair *fp, flow_image *occ,
                                     flow_image *invalid)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, fp->occ);
    CHECK_OK(flow_image_read(path, occ));
    snprintf(path, sizeof path, "%s/%s", dir, fp->invalid);
    CHECK_OK(flow_image_read(path, invalid));
}

/* Sintel: EPE all, noc, occ; KITTI: EPE, Fl (%), unused.  0: not run. */
typedef struct field_score {
    double a, b, c;
} field_score;

/* The measures of est against gt: Sintel's with its masks occ and invalid,
 * KITTI's when they are NULL. */
static inline field_score field_evaluate(const flow_field *est, const flow_field *gt,
                                         const flow_image *occ, const flow_image *invalid)
{
    double all = 0, noc = 0, occl = 0;
    long n = 0, n_occ = 0, outliers = 0;
    for (int i = 0; i < gt->width * gt->height; i++) {
        if ((invalid && invalid->data[i] != 0.0f) || flow_is_unknown(gt->u[i], gt->v[i]))
            continue;
        CHECK(!flow_is_unknown(est->u[i], est->v[i])); /* every method gives a dense flow */
        const double e = hypot(est->u[i] - gt->u[i], est->v[i] - gt->v[i]);
        all += e;
        n++;
        if (occ && occ->data[i] != 0.0f)
            occl += e, n_occ++;
        else
            noc += e;
        outliers += e > 3.0 && e > 0.05 * hypot(gt->u[i], gt->v[i]);
    }
    field_score s = { n ? all / n : NAN, 0, 0 };
    if (occ) {
        s.b = n > n_occ ? noc / (n - n_occ) : NAN;
        s.c = n_occ ? occl / n_occ : NAN;
    } else {
        s.b = n ? 100.0 * outliers / n : NAN;
    }
    return s;
}

#endif
