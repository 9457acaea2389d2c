/* distance.c -- the exact Euclidean distance transform of a binary map:
 * for every pixel, the squared distance to the nearest nonzero pixel.
 *
 * P. F. Felzenszwalb and D. P. Huttenlocher, "Distance Transforms of
 * Sampled Functions", Theory of Computing 8 (2012): the squared distance
 * separates, d2(x, y) = min_x' ((x - x')^2 + min_y' ((y - y')^2 + f(x', y'))),
 * so one pass over the columns and one over the rows of the 1-D transform
 * D(q) = min_p ((q - p)^2 + f(p)) give it exactly.  The 1-D transform is the
 * lower envelope of the parabolas rooted at the sites p with a finite f(p);
 * z[k] is where parabola k of the envelope starts to be the lowest.  Sites
 * with infinite f are left out of the envelope rather than carried as a
 * large number, so the arithmetic stays on exact integers in double.
 * Contract in flow/error.h. */
#include "flow/error.h"
#include "base/fail.h"

#include <math.h>
#include <stdlib.h>

/* D(q) for q in [0, n) from f (stride apart in memory) into d (same
 * stride); site[] and z[] hold n and n + 1 values. */
static void distance_1d(const double *f, double *d, int n, size_t stride, int *site, double *z)
{
    int k = -1; /* the envelope's last parabola */
    for (int q = 0; q < n; q++) {
        const double fq = f[q * stride];
        if (fq == HUGE_VAL)
            continue;
        double s = -HUGE_VAL;
        while (k >= 0) {
            const int p = site[k];
            const double fp = f[p * stride];
            /* where the parabolas of p and q cross */
            s = ((fq + (double)q * q) - (fp + (double)p * p)) / (2.0 * (q - p));
            if (s > z[k])
                break;
            k--;
            s = -HUGE_VAL;
        }
        k++;
        site[k] = q;
        z[k] = s;
        z[k + 1] = HUGE_VAL;
    }
    if (k < 0) { /* no finite site: nothing is near */
        for (int q = 0; q < n; q++)
            d[q * stride] = HUGE_VAL;
        return;
    }
    int j = 0;
    for (int q = 0; q < n; q++) {
        while (z[j + 1] < q)
            j++;
        const double dq = q - site[j];
        d[q * stride] = dq * dq + f[site[j] * stride];
    }
}

flow_status flow_distance_squared(const unsigned char *from, int width, int height, double *d2)
{
    if (!from || !d2)
        return flow_fail(FLOW_ERR_INVALID, "flow_distance_squared: missing map");
    if (width < 1 || height < 1)
        return flow_fail(FLOW_ERR_INVALID, "flow_distance_squared: size %dx%d", width, height);
    const int longest = width > height ? width : height;
    const size_t n = (size_t)width * height;
    int *site = malloc(sizeof *site * longest);
    double *z = malloc(sizeof *z * (longest + 1));
    double *column = malloc(sizeof *column * n);
    flow_status s = FLOW_OK;
    if (!site || !z || !column) {
        s = flow_fail(FLOW_ERR_NOMEM, "cannot allocate a distance transform of %dx%d", width,
                      height);
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        column[i] = from[i] ? 0.0 : HUGE_VAL;
    for (int x = 0; x < width; x++) /* down each column, in place through d2 */
        distance_1d(column + x, d2 + x, height, (size_t)width, site, z);
    for (int y = 0; y < height; y++) {
        double *row = d2 + (size_t)y * width;
        for (int x = 0; x < width; x++)
            column[x] = row[x];
        distance_1d(column, row, width, 1, site, z);
    }
done:
    free(site);
    free(z);
    free(column);
    return s;
}
