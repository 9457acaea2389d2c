/* params_file.c -- reading and writing .params files (seed 001 section
 * 5.1.1): one `key,value` per line, `#` starts a comment, blank lines are
 * ignored.  Keys are the field names of flow_params; method, solver,
 * smoother and window take names (lk, fmg, rbsor, box, ...), the others
 * numbers.  Every error names file:line and the offending text; the caller's
 * parameters change only when the whole file is good. */
#include "flow/method.h"
#include "internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef enum key_kind { K_DOUBLE, K_INT, K_METHOD, K_SOLVER, K_SMOOTHER, K_WINDOW } key_kind;

typedef struct key_def {
    const char *key;
    key_kind kind;
    size_t offset;
} key_def;

#define KEY(name, kind) { #name, kind, offsetof(flow_params, name) }
static const key_def keys[] = {
    KEY(method, K_METHOD),
    KEY(sigma, K_DOUBLE),
    KEY(rho, K_DOUBLE),
    KEY(alpha, K_DOUBLE),
    KEY(nonlinear_data, K_INT),
    KEY(nonlinear_smooth, K_INT),
    KEY(eps_d, K_DOUBLE),
    KEY(eps_s, K_DOUBLE),
    KEY(window, K_WINDOW),
    KEY(window_size, K_INT),
    KEY(tau, K_DOUBLE),
    KEY(fill_unknown, K_INT),
    KEY(solver, K_SOLVER),
    KEY(smoother, K_SMOOTHER),
    KEY(iterations, K_INT),
    KEY(omega, K_DOUBLE),
    KEY(jacobi_weight, K_DOUBLE),
    KEY(n0, K_INT),
    KEY(n1, K_INT),
    KEY(n2, K_INT),
    KEY(cycles, K_INT),
    KEY(max_depth, K_INT),
    KEY(color, K_INT),
    KEY(warp_levels, K_INT),
    KEY(warps, K_INT),
};
#define NKEYS ((int)(sizeof keys / sizeof keys[0]))
#define LINE_MAX_LEN 1024

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

static int find_key(const char *key)
{
    for (int i = 0; i < NKEYS; i++)
        if (strcmp(keys[i].key, key) == 0)
            return i;
    return -1;
}

/* Sets field k of p from text v; FLOW_ERR_INVALID with a detail otherwise. */
static flow_status set_value(flow_params *p, const key_def *k, const char *v)
{
    char *base = (char *)p + k->offset, *end;
    switch (k->kind) {
    case K_DOUBLE: {
        errno = 0;
        double d = strtod(v, &end);
        if (end == v || *end || errno == ERANGE || !isfinite(d))
            return flow_fail(FLOW_ERR_INVALID, "%s: '%s' is not a finite number", k->key, v);
        *(double *)(void *)base = d;
        return FLOW_OK;
    }
    case K_INT: {
        errno = 0;
        long n = strtol(v, &end, 10);
        if (end == v || *end || errno == ERANGE || n < -2147483647L || n > 2147483647L)
            return flow_fail(FLOW_ERR_INVALID, "%s: '%s' is not an integer", k->key, v);
        *(int *)(void *)base = (int)n;
        return FLOW_OK;
    }
    case K_METHOD:
        return flow_method_parse(v, &p->method);
    case K_SOLVER:
        return flow_solver_parse(v, &p->solver);
    case K_SMOOTHER: {
        flow_solver s;
        FLOW_TRY(flow_solver_parse(v, &s));
        if (s != FLOW_SOLVER_JACOBI && s != FLOW_SOLVER_RBSOR)
            return flow_fail(FLOW_ERR_INVALID, "smoother: '%s' (expected jacobi or rbsor)", v);
        p->smoother = s;
        return FLOW_OK;
    }
    case K_WINDOW:
        return flow_window_parse(v, &p->window);
    }
    return flow_fail(FLOW_ERR_INVALID, "%s: internal: unknown key kind", k->key);
}

/* One parsed line: its number, key index and value (into the line buffer). */
typedef struct entry {
    int line, key;
    char *value;
} entry;

/* Re-raises the last error with file:line in front. */
static flow_status at_line(const char *path, int line)
{
    char why[512];
    snprintf(why, sizeof why, "%s", flow_last_error());
    return flow_fail(FLOW_ERR_INVALID, "%s:%d: %s", path, line, why);
}

static flow_status parse(const char *path, FILE *f, flow_params *p)
{
    char (*text)[LINE_MAX_LEN + 2] = NULL;
    entry *ent = NULL;
    int n = 0, cap = 0, line = 0, method_line = 0;
    int seen[NKEYS];
    memset(seen, 0, sizeof seen);
    flow_status s = FLOW_OK;
    char buf[LINE_MAX_LEN + 2];
    while (s == FLOW_OK && fgets(buf, sizeof buf, f)) {
        line++;
        size_t len = strlen(buf);
        if (len == sizeof buf - 1 && buf[len - 1] != '\n') {
            s = flow_fail(FLOW_ERR_INVALID, "%s:%d: line longer than %d characters", path, line,
                          LINE_MAX_LEN);
            break;
        }
        char *hash = strchr(buf, '#');
        if (hash)
            *hash = '\0';
        char *t = trim(buf);
        if (!*t)
            continue;
        char *comma = strchr(t, ',');
        if (!comma) {
            s = flow_fail(FLOW_ERR_INVALID, "%s:%d: '%s' is not a key,value line", path, line, t);
            break;
        }
        *comma = '\0';
        char *key = trim(t), *value = trim(comma + 1);
        int k = find_key(key);
        if (k < 0) {
            s = flow_fail(FLOW_ERR_INVALID, "%s:%d: unknown key '%s'", path, line, key);
            break;
        }
        if (!*value || strchr(value, ',')) {
            s = flow_fail(FLOW_ERR_INVALID, "%s:%d: key '%s' needs exactly one value, got '%s'",
                          path, line, key, value);
            break;
        }
        if (seen[k]) {
            s = flow_fail(FLOW_ERR_INVALID, "%s:%d: key '%s' repeated (first on line %d)", path,
                          line, key, seen[k]);
            break;
        }
        seen[k] = line;
        if (n == cap) {
            cap = cap ? 2 * cap : 32;
            void *nt = realloc(text, (size_t)cap * sizeof *text);
            void *ne = realloc(ent, (size_t)cap * sizeof *ent);
            if (nt)
                text = nt;
            if (ne)
                ent = ne;
            if (!nt || !ne) {
                s = flow_fail(FLOW_ERR_NOMEM, "%s: out of memory", path);
                break;
            }
        }
        snprintf(text[n], sizeof text[n], "%s", value);
        ent[n].line = line;
        ent[n].key = k;
        if (keys[k].kind == K_METHOD)
            method_line = n + 1;
        n++;
    }
    if (s == FLOW_OK && ferror(f))
        s = flow_fail(FLOW_ERR_IO, "%s: read error: %s", path, strerror(errno));

    flow_params q = *p;
    if (s == FLOW_OK && method_line) {
        /* a file naming its method starts from that method's defaults */
        flow_method m;
        if (flow_method_parse(text[method_line - 1], &m) != FLOW_OK)
            s = at_line(path, ent[method_line - 1].line);
        else
            flow_params_default(&q, m);
    }
    for (int i = 0; s == FLOW_OK && i < n; i++) {
        if (set_value(&q, &keys[ent[i].key], text[i]) != FLOW_OK
            || flow_params_validate(&q) != FLOW_OK)
            s = at_line(path, ent[i].line);
    }
    if (s == FLOW_OK && n == 0 && flow_params_validate(&q) != FLOW_OK)
        s = at_line(path, line);
    if (s == FLOW_OK)
        *p = q;
    free(text);
    free(ent);
    return s;
}

flow_status flow_params_read(const char *path, flow_params *p)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return flow_fail(FLOW_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    flow_status s = parse(path, f, p);
    fclose(f);
    return s;
}

flow_status flow_params_write(const char *path, const flow_params *p, const char *comment)
{
    flow_atomic a;
    FLOW_TRY(flow_atomic_open(&a, path));
    FILE *f = a.f;
    if (comment) {
        const char *c = comment;
        while (*c) {
            const char *nl = strchr(c, '\n');
            int len = nl ? (int)(nl - c) : (int)strlen(c);
            fprintf(f, "# %.*s\n", len, c);
            c += len + (nl ? 1 : 0);
        }
    }
    for (int i = 0; i < NKEYS; i++) {
        const char *base = (const char *)p + keys[i].offset;
        fprintf(f, "%s,", keys[i].key);
        switch (keys[i].kind) {
        case K_DOUBLE:
            fprintf(f, "%.17g\n", *(const double *)(const void *)base);
            break;
        case K_INT:
            fprintf(f, "%d\n", *(const int *)(const void *)base);
            break;
        case K_METHOD:
            fprintf(f, "%s\n", flow_method_name(p->method));
            break;
        case K_SOLVER:
            fprintf(f, "%s\n", flow_solver_name(p->solver));
            break;
        case K_SMOOTHER:
            fprintf(f, "%s\n", flow_solver_name(p->smoother));
            break;
        case K_WINDOW:
            fprintf(f, "%s\n", flow_window_name(p->window));
            break;
        }
    }
    return flow_atomic_commit(&a);
}
