/* params_file.c -- reading and writing .params files (seed 001 section
 * 5.1.1): one `key,value` per line, `#` starts a comment, blank lines are
 * ignored.  The keys are `method` and the parameter names of the method's
 * schema; values are read by flow_params_set, so a file obeys exactly the
 * rules of every other way of setting a parameter.  A parameter that has
 * no effect under the file's other values is refused unless it is at its
 * default, as flow-compute refuses its option (what the writer writes for
 * such a parameter is its default, so a file written reads back).  Every
 * error names file:line and the offending text; the caller's parameters
 * change only when the whole file is good. */
#include "methods/method.h"
#include "base/fail.h"
#include "flow/atomic_file.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* One parsed line: its number, key and value. */
typedef struct entry {
    int line;
    char key[64];
    char value[LINE_MAX_LEN + 2];
} entry;

/* Re-raises the last error with file:line in front. */
static flow_status at_line(const char *path, int line)
{
    char why[512];
    snprintf(why, sizeof why, "%s", flow_last_error());
    return flow_fail(FLOW_ERR_INVALID, "%s:%d: %s", path, line, why);
}

/* The lines of the file into *out (n entries); syntax errors only. */
static flow_status read_lines(const char *path, FILE *f, entry **out, int *count)
{
    entry *ent = NULL;
    int n = 0, cap = 0, line = 0;
    flow_status s = FLOW_OK;
    char buf[LINE_MAX_LEN + 2];
    while (s == FLOW_OK && fgets(buf, sizeof buf, f)) {
        line++;
        const size_t len = strlen(buf);
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
        if (!*value || strchr(value, ',')) {
            s = flow_fail(FLOW_ERR_INVALID, "%s:%d: key '%s' needs exactly one value, got '%s'",
                          path, line, key, value);
            break;
        }
        if (strlen(key) >= sizeof ent->key) {
            s = flow_fail(FLOW_ERR_INVALID, "%s:%d: unknown key '%.40s...'", path, line, key);
            break;
        }
        for (int i = 0; i < n; i++)
            if (strcmp(ent[i].key, key) == 0) {
                s = flow_fail(FLOW_ERR_INVALID, "%s:%d: key '%s' repeated (first on line %d)",
                              path, line, key, ent[i].line);
                break;
            }
        if (s != FLOW_OK)
            break;
        if (n == cap) {
            cap = cap ? 2 * cap : 32;
            entry *ne = realloc(ent, (size_t)cap * sizeof *ent);
            if (!ne) {
                s = flow_fail(FLOW_ERR_NOMEM, "%s: out of memory", path);
                break;
            }
            ent = ne;
        }
        ent[n].line = line;
        snprintf(ent[n].key, sizeof ent[n].key, "%s", key);
        snprintf(ent[n].value, sizeof ent[n].value, "%s", value);
        n++;
    }
    if (s == FLOW_OK && ferror(f))
        s = flow_fail(FLOW_ERR_IO, "%s: read error: %s", path, strerror(errno));
    if (s != FLOW_OK) {
        free(ent);
        return s;
    }
    *out = ent;
    *count = n;
    return FLOW_OK;
}

/* An unknown key: say so, and whose parameter it is when another method has
 * it (a file written for another method). */
static flow_status unknown_key(const char *path, int line, const char *key, const char *method)
{
    for (int i = 0; flow_method_at(i); i++)
        if (flow_method_param_find(flow_method_at(i), key))
            return flow_fail(FLOW_ERR_INVALID,
                             "%s:%d: unknown key '%s' for method %s (a parameter of method %s)",
                             path, line, key, method, flow_method_at(i));
    return flow_fail(FLOW_ERR_INVALID, "%s:%d: unknown key '%s' for method %s", path, line, key,
                     method);
}

/* FLOW_OK when the line's parameter has an effect under q's values or is at
 * its default; else the refusal, worded as flow-compute's. */
static flow_status without_effect(const char *path, const entry *e, const flow_params *q)
{
    const flow_param_info *in = flow_method_param_find(flow_params_method(q), e->key);
    double v;
    if (flow_params_applies(q, e->key) || flow_params_get_number(q, e->key, &v) != FLOW_OK
        || v == in->def)
        return FLOW_OK;
    return flow_fail(FLOW_ERR_INVALID,
                     "%s:%d: %s,%s has no effect here: it applies with %s (other values leave "
                     "it out, or at its default)",
                     path, e->line, e->key, e->value, in->when);
}

static flow_status apply(const char *path, const entry *ent, int n, flow_params **p)
{
    flow_params *q = NULL;
    for (int i = 0; i < n; i++)
        if (strcmp(ent[i].key, "method") == 0) {
            /* a file naming its method starts from that method's defaults */
            if (flow_params_create(ent[i].value, &q) != FLOW_OK)
                return at_line(path, ent[i].line);
            break;
        }
    if (!q)
        FLOW_TRY(*p ? flow_params_clone(*p, &q) : flow_params_create(NULL, &q));
    flow_status s = FLOW_OK;
    for (int i = 0; s == FLOW_OK && i < n; i++) {
        if (strcmp(ent[i].key, "method") == 0)
            continue;
        const flow_param_info *in = flow_method_param_find(flow_params_method(q), ent[i].key);
        if (!in)
            s = unknown_key(path, ent[i].line, ent[i].key, flow_params_method(q));
        else if (flow_params_set(q, ent[i].key, ent[i].value) != FLOW_OK)
            s = at_line(path, ent[i].line);
        /* a parameter under its name and its former name (info.alias) */
        for (int j = 0; s == FLOW_OK && j < i; j++)
            if (flow_method_param_find(flow_params_method(q), ent[j].key) == in)
                s = flow_fail(FLOW_ERR_INVALID,
                              "%s:%d: key '%s' sets %s again (first as '%s' on line %d)", path,
                              ent[i].line, ent[i].key, in->name, ent[j].key, ent[j].line);
    }
    for (int i = 0; s == FLOW_OK && i < n; i++)
        if (strcmp(ent[i].key, "method") != 0)
            s = without_effect(path, &ent[i], q);
    if (s != FLOW_OK) {
        flow_params_destroy(q);
        return s;
    }
    flow_params_destroy(*p);
    *p = q;
    return FLOW_OK;
}

flow_status flow_params_read(const char *path, flow_params **p)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return flow_fail(FLOW_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    entry *ent = NULL;
    int n = 0;
    flow_status s = read_lines(path, f, &ent, &n);
    fclose(f);
    if (s == FLOW_OK)
        s = apply(path, ent, n, p);
    free(ent);
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
    const char *method = flow_params_method(p);
    fprintf(f, "method,%s\n", method);
    /* a parameter without effect is written at its default (the reader
     * refuses another value there) */
    flow_params *defaults = NULL;
    flow_status s = flow_params_create(method, &defaults);
    const flow_param_info *in;
    for (int i = 0; s == FLOW_OK && (in = flow_method_param(method, i)); i++) {
        char value[64];
        s = flow_params_get(flow_params_applies(p, in->name) ? p : defaults, in->name, value,
                            sizeof value);
        if (s == FLOW_OK)
            fprintf(f, "%s,%s\n", in->name, value);
    }
    flow_params_destroy(defaults);
    if (s != FLOW_OK) {
        flow_atomic_abort(&a);
        return s;
    }
    return flow_atomic_commit(&a);
}
