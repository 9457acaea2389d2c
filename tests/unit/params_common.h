/* params_common.h -- what the tests of parameters share (test_params.c,
 * test_params_file.c): a snapshot of a parameter object's every value, the
 * number of a method's parameters, a text file written whole, and the
 * methods of the registry. */
#ifndef TEST_PARAMS_COMMON_H
#define TEST_PARAMS_COMMON_H

#include "harness.h"
#include "flow/params.h"

#include <stdio.h>
#include <string.h>

/* Every key of a parameter object with its value as text and as a number. */
#define SNAP_MAX 48
typedef struct snapshot {
    char method[16];
    int n;
    char key[SNAP_MAX][32];
    char text[SNAP_MAX][64];
    double num[SNAP_MAX];
} snapshot;

static inline void take(const flow_params *p, snapshot *s)
{
    memset(s, 0, sizeof *s);
    snprintf(s->method, sizeof s->method, "%s", flow_params_method(p));
    const flow_param_info *in;
    for (int i = 0; (in = flow_method_param(s->method, i)) && i < SNAP_MAX; i++) {
        snprintf(s->key[i], sizeof s->key[i], "%s", in->name);
        CHECK_OK(flow_params_get(p, in->name, s->text[i], sizeof s->text[i]));
        CHECK_OK(flow_params_get_number(p, in->name, &s->num[i]));
        s->n = i + 1;
    }
}

/* Whether two snapshots are of the same method with bit-identical values;
 * prints the first difference. */
static inline int same(const snapshot *a, const snapshot *b)
{
    if (strcmp(a->method, b->method) != 0 || a->n != b->n) {
        fprintf(stderr, "    method %s (%d keys) against %s (%d keys)\n", a->method, a->n,
                b->method, b->n);
        return 0;
    }
    for (int i = 0; i < a->n; i++)
        if (strcmp(a->key[i], b->key[i]) != 0 || strcmp(a->text[i], b->text[i]) != 0
            || memcmp(&a->num[i], &b->num[i], sizeof(double)) != 0) {
            fprintf(stderr, "    %s: %s = %s against %s = %s\n", a->method, a->key[i],
                    a->text[i], b->key[i], b->text[i]);
            return 0;
        }
    return 1;
}

static inline int count_params(const char *method)
{
    int n = 0;
    while (flow_method_param(method, n))
        n++;
    return n;
}

static inline void write_text(const char *path, const char *text)
{
    harness_write_file(path, text, strlen(text));
}

/* The methods, from the registry (flow_method_at), in its order. */
#define METHODS_MAX 64
/* (each test binary has its own copy: the header is included once per binary) */
static const char *methods[METHODS_MAX];
static int nmethods;

static inline void load_methods(void)
{
    while (nmethods < METHODS_MAX && flow_method_at(nmethods))
        methods[nmethods] = flow_method_at(nmethods), nmethods++;
}

#endif
