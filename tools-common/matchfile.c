/* matchfile.c -- a file of sparse matches read (contract in matchfile.h). */
#include "matchfile.h"
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int matchfile_read(const char *path, const char *what, flow_match **out, int *count,
                   long **lines)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        cli_error("%s %s: %s", what, path, strerror(errno));
        return CLI_EXIT_IO;
    }
    flow_match *m = NULL;
    long *at = NULL;
    int n = 0, cap = 0, rc = CLI_EXIT_OK;
    char line[512];
    for (long no = 1; fgets(line, sizeof line, f); no++) {
        line[strcspn(line, "\r\n")] = '\0';
        const char *p = line + strspn(line, " \t");
        if (*p == '\0' || *p == '#')
            continue;
        flow_match k;
        char rest[2];
        if (sscanf(p, "%f %f %f %f %f %1s", &k.x, &k.y, &k.u, &k.v, &k.weight, rest) != 5) {
            cli_error("%s %s:%ld: expected \"x y u v weight\", got \"%.60s\"", what, path, no,
                      p);
            rc = CLI_EXIT_IO;
            break;
        }
        if (!isfinite(k.x) || !isfinite(k.y) || !isfinite(k.u) || !isfinite(k.v)
            || !(k.weight >= 0.0f && k.weight <= 1.0f)) {
            cli_error("%s %s:%ld: expected finite numbers and a weight in [0, 1], got "
                      "\"%.60s\"", what, path, no, p);
            rc = CLI_EXIT_IO;
            break;
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 1024;
            flow_match *g = cap < (1 << 26) ? realloc(m, sizeof *m * (size_t)cap) : NULL;
            if (g)
                m = g;
            long *l = g && lines ? realloc(at, sizeof *at * (size_t)cap) : NULL;
            if (l)
                at = l;
            if (!g || (lines && !l)) {
                cli_error("%s %s: out of memory at line %ld", what, path, no);
                rc = CLI_EXIT_COMPUTE;
                break;
            }
        }
        if (lines)
            at[n] = no;
        m[n++] = k;
    }
    if (rc == CLI_EXIT_OK && ferror(f)) {
        cli_error("%s %s: cannot read: %s", what, path, strerror(errno));
        rc = CLI_EXIT_IO;
    }
    if (rc == CLI_EXIT_OK && n == 0) {
        cli_error("%s %s: no matches in the file", what, path);
        rc = CLI_EXIT_IO;
    }
    fclose(f);
    if (rc != CLI_EXIT_OK) {
        free(m);
        free(at);
        return rc;
    }
    if (lines)
        *lines = at;
    *out = m;
    *count = n;
    return CLI_EXIT_OK;
}
