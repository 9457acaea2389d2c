/* matches.c -- sparse matches in and out of flow-compute (docs/FORMATS.md,
 * "Matches"): --matches FILE writes the matches a method interpolated
 * (its output planes match_u, match_v and match_weight), --use-matches
 * FILE gives a method that takes matches (flow_context_takes_matches)
 * these in place of its own matcher (the format: tools-common/matchfile.h). */
#include "run.h"
#include "matchfile.h"
#include "flow/atomic_file.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const plane_names[3] = { "match_u", "match_v", "match_weight" };

int matches_request(run *r)
{
    const int n = flow_context_outputs(r->ctx);
    int found = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 3; k++)
            found += strcmp(flow_context_output_name(r->ctx, i), plane_names[k]) == 0;
    if (found != 3) {
        cli_error("--matches: method %s gives no matches", flow_params_method(r->o->params));
        return CLI_EXIT_USAGE;
    }
    const size_t size = (size_t)r->width * r->height;
    for (int k = 0; k < 3; k++) {
        r->match_planes[k] = malloc(sizeof(float) * size);
        if (!r->match_planes[k])
            return compute_failure(FLOW_ERR_NOMEM, "--matches");
        const flow_status s = flow_context_request_output(r->ctx, plane_names[k],
                                                          r->match_planes[k]);
        if (s != FLOW_OK)
            return compute_failure(s, "--matches");
    }
    return CLI_EXIT_OK;
}

int matches_write(run *r)
{
    const char *path = r->o->matches;
    flow_atomic a;
    flow_status s = flow_atomic_open(&a, path);
    if (s != FLOW_OK) {
        cli_error("--matches %s: %s", path, flow_last_error());
        return CLI_EXIT_IO;
    }
    fprintf(a.f, "# matches of %dx%d frames: x y u v weight (weight 0: dropped by the method's "
                 "check)\n",
            r->width, r->height);
    const float *u = r->match_planes[0], *v = r->match_planes[1], *w = r->match_planes[2];
    for (int y = 0; y < r->height; y++)
        for (int x = 0; x < r->width; x++) {
            const size_t i = (size_t)y * r->width + x;
            if (w[i] >= 0.0f)
                fprintf(a.f, "%d %d %.9g %.9g %g\n", x, y, (double)u[i], (double)v[i],
                        (double)w[i]);
        }
    s = ferror(a.f) ? FLOW_ERR_IO : FLOW_OK;
    if (s != FLOW_OK) {
        flow_atomic_abort(&a);
        cli_error("--matches %s: cannot write: %s", path, strerror(errno));
        return CLI_EXIT_IO;
    }
    s = flow_atomic_commit(&a);
    if (s != FLOW_OK) {
        cli_error("--matches %s: %s", path, flow_last_error());
        return CLI_EXIT_IO;
    }
    return CLI_EXIT_OK;
}

void matches_free(run *r)
{
    for (int k = 0; k < 3; k++) {
        free(r->match_planes[k]);
        r->match_planes[k] = NULL;
    }
}

int matches_give(run *r)
{
    const char *path = r->o->use_matches;
    if (!flow_context_takes_matches(r->ctx)) {
        cli_error("--use-matches: method %s takes no matches", flow_params_method(r->o->params));
        return CLI_EXIT_USAGE;
    }
    flow_match *m = NULL;
    int n = 0;
    int rc = matchfile_read(path, "--use-matches", &m, &n, NULL);
    if (rc != CLI_EXIT_OK)
        return rc;
    const flow_status s = flow_context_set_matches(r->ctx, m, n);
    if (s != FLOW_OK) {
        cli_error("--use-matches %s: %s", path, flow_last_error());
        rc = s == FLOW_ERR_INVALID ? CLI_EXIT_IO : CLI_EXIT_COMPUTE;
    }
    free(m);
    return rc;
}
