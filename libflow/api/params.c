/* params.c -- parameter objects over the methods' schemas: defaults, typed
 * setting from text or a number with the range check, reading back, the
 * conditions under which a parameter has an effect, and the registry's
 * public face.  Nothing here knows a method by name: every rule comes from
 * the flow_param_def lists of methods/. */
#include "methods/method.h"
#include "methods/list.h"
#include "base/fail.h"
#include "base/number.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct flow_params {
    const flow_method_desc *m;
    void *values; /* the method's parameter struct */
};

/* ---- the registry -------------------------------------------------------- */

const char *flow_method_at(int i)
{
    const flow_method_desc *m = flow_method_entry(i);
    return m ? m->name : NULL;
}

const char *flow_method_default(void)
{
    return FLOW_METHOD_DEFAULT;
}

int flow_method_exists(const char *name)
{
    return flow_method_lookup(name) != NULL;
}

const char *flow_method_title(const char *method)
{
    const flow_method_desc *m = flow_method_lookup(method);
    return m ? m->title : NULL;
}

const flow_param_info *flow_method_param(const char *method, int i)
{
    const flow_method_desc *m = flow_method_lookup(method);
    return m && i >= 0 && i < m->nparams ? &m->params[i].info : NULL;
}

/* A parameter by its name, or else by its former name (info.alias). */
static const flow_param_def *find(const flow_method_desc *m, const char *key)
{
    for (int i = 0; key && i < m->nparams; i++)
        if (strcmp(m->params[i].info.name, key) == 0)
            return &m->params[i];
    for (int i = 0; key && i < m->nparams; i++)
        if (m->params[i].info.alias && strcmp(m->params[i].info.alias, key) == 0)
            return &m->params[i];
    return NULL;
}

const flow_param_info *flow_method_param_find(const char *method, const char *key)
{
    const flow_method_desc *m = flow_method_lookup(method);
    const flow_param_def *d = m ? find(m, key) : NULL;
    return d ? &d->info : NULL;
}

/* "lk, hs, clg or clg-nl" into buf. */
static const char *method_list(char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; flow_method_at(i) && n < size; i++)
        n += (size_t)snprintf(buf + n, size - n, "%s%s", i == 0 ? "" : !flow_method_at(i + 1) ? " or " : ", ",
                              flow_method_at(i));
    return buf;
}

/* ---- values ---------------------------------------------------------------- */

static double *real_at(void *values, const flow_param_def *d)
{
    return (double *)(void *)((char *)values + d->offset);
}

static int *int_at(void *values, const flow_param_def *d)
{
    return (int *)(void *)((char *)values + d->offset);
}

static double number_of(const void *values, const flow_param_def *d)
{
    return d->info.type == FLOW_PARAM_REAL ? *real_at((void *)values, d)
                                           : (double)*int_at((void *)values, d);
}

static int count_choices(const flow_param_info *in)
{
    int n = 0;
    while (in->choices && in->choices[n])
        n++;
    return n;
}

/* v as text: an integer in full ("1000000", not %g's "1e+06"), any other
 * number as %g. */
static const char *number_text(double v, char *buf, size_t size)
{
    if (v == floor(v) && fabs(v) < 1e15)
        snprintf(buf, size, "%.0f", v);
    else
        snprintf(buf, size, "%g", v);
    return buf;
}

/* The allowed values in words: "0 < alpha <= 1e+12", "odd, 1 <= window_size
 * <= 97", "jacobi or rbsor". */
static const char *range_text(const flow_param_info *in, char *buf, size_t size)
{
    if (in->type == FLOW_PARAM_CHOICE) {
        size_t n = 0;
        const int k = count_choices(in);
        buf[0] = '\0';
        for (int i = 0; i < k && n < size; i++)
            n += (size_t)snprintf(buf + n, size - n, "%s%s",
                                  i == 0 ? "" : i == k - 1 ? " or " : ", ", in->choices[i]);
        return buf;
    }
    if (in->type == FLOW_PARAM_BOOL) {
        snprintf(buf, size, "0 or 1");
        return buf;
    }
    char lo[32], hi[32];
    if (in->type == FLOW_PARAM_INT) {
        number_text(in->min, lo, sizeof lo);
        number_text(in->max, hi, sizeof hi);
    } else {
        snprintf(lo, sizeof lo, "%g", in->min);
        snprintf(hi, sizeof hi, "%g", in->max);
    }
    snprintf(buf, size, "%s%s %s %s %s %s", in->flags & FLOW_PARAM_ODD ? "odd, " : "", lo,
             in->flags & FLOW_PARAM_MIN_OPEN ? "<" : "<=", in->name,
             in->flags & FLOW_PARAM_MAX_OPEN ? "<" : "<=", hi);
    return buf;
}

/* Whether v is an allowed value of the parameter. */
static int in_range(const flow_param_info *in, double v)
{
    if (!isfinite(v))
        return 0;
    switch (in->type) {
    case FLOW_PARAM_CHOICE:
        return v == floor(v) && v >= 0 && v < count_choices(in);
    case FLOW_PARAM_BOOL:
        return v == 0 || v == 1;
    case FLOW_PARAM_INT:
        if (v != floor(v) || ((in->flags & FLOW_PARAM_ODD) && fmod(fabs(v), 2.0) != 1.0))
            return 0;
        break;
    case FLOW_PARAM_REAL:
        break;
    }
    const int lo = (in->flags & FLOW_PARAM_MIN_OPEN) ? v > in->min : v >= in->min;
    const int hi = (in->flags & FLOW_PARAM_MAX_OPEN) ? v < in->max : v <= in->max;
    return lo && hi;
}

static flow_status out_of_range(const flow_param_info *in, double v)
{
    char range[160], value[32];
    if (in->type == FLOW_PARAM_REAL)
        snprintf(value, sizeof value, "%g", v);
    else
        number_text(v, value, sizeof value);
    return flow_fail(FLOW_ERR_INVALID, "parameter %s = %s out of range (%s)", in->name, value,
                     range_text(in, range, sizeof range));
}

/* Stores v (already checked) into values. */
static void store(void *values, const flow_param_def *d, double v)
{
    if (d->info.type == FLOW_PARAM_REAL)
        *real_at(values, d) = v;
    else
        *int_at(values, d) = (int)v;
}

static flow_status no_such(const flow_method_desc *m, const char *key)
{
    return flow_fail(FLOW_ERR_INVALID, "method %s has no parameter '%s'", m->name,
                     key ? key : "");
}

/* The last error again with "<name>: " in front. */
static flow_status reraise(const char *name)
{
    char why[512];
    snprintf(why, sizeof why, "%s", flow_last_error());
    return flow_fail(FLOW_ERR_INVALID, "%s: %s", name, why);
}

/* Parses text into a number for parameter d: the number itself (by
 * flow/number.h's rule, which the tools' options share), or for CHOICE the
 * index of the name. */
static flow_status parse(const flow_param_def *d, const char *text, double *v)
{
    const flow_param_info *in = &d->info;
    if (in->type == FLOW_PARAM_CHOICE) {
        for (int i = 0; in->choices[i]; i++)
            if (strcmp(text, in->choices[i]) == 0) {
                *v = i;
                return FLOW_OK;
            }
        char range[160];
        return flow_fail(FLOW_ERR_INVALID, "unknown %s '%s' (expected %s)", in->name, text,
                         range_text(in, range, sizeof range));
    }
    if (in->type == FLOW_PARAM_REAL)
        return flow_parse_real(text, v) == FLOW_OK ? FLOW_OK : reraise(in->name);
    long n = 0;
    if (flow_parse_integer(text, &n) != FLOW_OK)
        return reraise(in->name);
    if (n < INT_MIN || n > INT_MAX) { /* in_range would see it, but not as the text given */
        char range[160];
        return flow_fail(FLOW_ERR_INVALID, "%s: '%s' is out of range (%s)", in->name, text,
                         range_text(in, range, sizeof range));
    }
    *v = (double)n;
    return FLOW_OK;
}

static flow_status set_checked(flow_params *p, const flow_param_def *d, double v)
{
    if (!in_range(&d->info, v))
        return out_of_range(&d->info, v);
    void *trial = malloc(p->m->params_size);
    if (!trial)
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate parameters");
    memcpy(trial, p->values, p->m->params_size);
    store(trial, d, v);
    const flow_status s = p->m->check ? p->m->check(trial) : FLOW_OK;
    if (s == FLOW_OK)
        memcpy(p->values, trial, p->m->params_size);
    free(trial);
    return s;
}

flow_status flow_params_create(const char *method, flow_params **out)
{
    *out = NULL;
    const flow_method_desc *m = flow_method_lookup(method ? method : FLOW_METHOD_DEFAULT);
    if (!m) {
        char list[160];
        return flow_fail(FLOW_ERR_INVALID, "unknown method '%s' (expected %s)", method,
                         method_list(list, sizeof list));
    }
    flow_params *p = calloc(1, sizeof *p);
    void *values = calloc(1, m->params_size);
    if (!p || !values) {
        free(p);
        free(values);
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate parameters");
    }
    p->m = m;
    p->values = values;
    for (int i = 0; i < m->nparams; i++)
        store(values, &m->params[i], m->params[i].info.def);
    *out = p;
    return FLOW_OK;
}

flow_status flow_params_clone(const flow_params *p, flow_params **out)
{
    FLOW_TRY(flow_params_create(p->m->name, out));
    memcpy((*out)->values, p->values, p->m->params_size);
    return FLOW_OK;
}

void flow_params_destroy(flow_params *p)
{
    if (!p)
        return;
    free(p->values);
    free(p);
}

const char *flow_params_method(const flow_params *p)
{
    return p->m->name;
}

flow_status flow_params_set(flow_params *p, const char *key, const char *value)
{
    const flow_param_def *d = find(p->m, key);
    if (!d)
        return no_such(p->m, key);
    if (!value)
        return flow_fail(FLOW_ERR_INVALID, "%s: no value", key);
    double v = 0;
    FLOW_TRY(parse(d, value, &v));
    return set_checked(p, d, v);
}

flow_status flow_params_set_number(flow_params *p, const char *key, double value)
{
    const flow_param_def *d = find(p->m, key);
    return d ? set_checked(p, d, value) : no_such(p->m, key);
}

flow_status flow_params_get_number(const flow_params *p, const char *key, double *value)
{
    const flow_param_def *d = find(p->m, key);
    if (!d)
        return no_such(p->m, key);
    *value = number_of(p->values, d);
    return FLOW_OK;
}

flow_status flow_params_get(const flow_params *p, const char *key, char *buf, size_t size)
{
    const flow_param_def *d = find(p->m, key);
    if (!d)
        return no_such(p->m, key);
    const double v = number_of(p->values, d);
    int n;
    switch (d->info.type) {
    case FLOW_PARAM_REAL:
        if (flow_format_real(v, buf, size) != FLOW_OK)
            return flow_fail(FLOW_ERR_INVALID, "%s: value does not fit in %zu bytes", key, size);
        return FLOW_OK;
    case FLOW_PARAM_CHOICE:
        n = snprintf(buf, size, "%s", d->info.choices[(int)v]);
        break;
    default:
        n = snprintf(buf, size, "%d", (int)v);
    }
    if (n < 0 || (size_t)n >= size)
        return flow_fail(FLOW_ERR_INVALID, "%s: value does not fit in %zu bytes", key, size);
    return FLOW_OK;
}

int flow_params_applies(const flow_params *p, const char *key)
{
    const flow_param_def *d = find(p->m, key);
    return d && (!d->applies || d->applies((const char *)p->values + d->group));
}

flow_status flow_params_validate(const flow_params *p)
{
    for (int i = 0; i < p->m->nparams; i++) {
        const flow_param_def *d = &p->m->params[i];
        const double v = number_of(p->values, d);
        if (!in_range(&d->info, v))
            return out_of_range(&d->info, v);
    }
    return p->m->check ? p->m->check(p->values) : FLOW_OK;
}

/* ---- for the library's own use (methods/method.h) ----------------------- */

const flow_method_desc *flow_params_desc(const flow_params *p)
{
    return p->m;
}

const void *flow_params_values(const flow_params *p)
{
    return p->values;
}

void flow_params_fit(flow_params *p, int width, int height)
{
    if (p->m->fit)
        p->m->fit(p->values, width, height);
}
