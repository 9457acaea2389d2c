/* fuzz_params.c -- libFuzzer harness of the .params reader
 * (flow_params_read) and of the rule that a run reproduces from its own
 * .params file:
 *   - the input as a .params file, read over a method's defaults: refused
 *     with FLOW_ERR_INVALID naming the file and the parameters unchanged;
 *     accepted, the parameters are valid, and written then read back they
 *     are the same bit for bit, and written again the same file;
 *   - the input's key,value lines set one by one, twice: as text with
 *     flow_params_set, as flow-compute's options set them, and as numbers
 *     with flow_params_set_number after flow_parse_real, as a program
 *     (or flow-track, through cli_parse_double) sets them (a `method`
 *     line starts from that method's defaults, as -m does): a refusal
 *     leaves the parameters unchanged, and whatever was accepted, written
 *     to a .params file and read back, is the same bit for bit (a
 *     subnormal that a setter took and the reader refused broke this);
 *   - every value accepted, read as text (flow_params_get) and set from
 *     that text on the method's defaults, is the same number bit for
 *     bit. */
#include "common.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PARAMS 128

/* The values of a parameter object, to compare bit for bit. */
typedef struct values {
    const char *method;
    int n;
    double v[MAX_PARAMS];
} values;

static void take(const flow_params *p, values *out)
{
    out->method = flow_params_method(p);
    out->n = 0;
    const flow_param_info *in;
    while ((in = flow_method_param(out->method, out->n))) {
        FUZZ_REQUIRE(out->n < MAX_PARAMS);
        FUZZ_REQUIRE(flow_params_get_number(p, in->name, &out->v[out->n]) == FLOW_OK);
        out->n++;
    }
}

static int same(const values *a, const values *b)
{
    return strcmp(a->method, b->method) == 0 && a->n == b->n &&
           memcmp(a->v, b->v, sizeof a->v[0] * (size_t)a->n) == 0;
}

/* Each value of p as text (flow_params_get: what .params files, the
 * studio and the Python schema show), set from that text on the method's
 * defaults: the same number, bit for bit. */
static void text_round_trip(const flow_params *p)
{
    const char *method = flow_params_method(p);
    flow_params *q = NULL;
    FUZZ_REQUIRE(flow_params_create(method, &q) == FLOW_OK);
    const flow_param_info *in;
    for (int i = 0; (in = flow_method_param(method, i)); i++) {
        char text[128];
        double a = 0, b = 0;
        FUZZ_REQUIRE(flow_params_get(p, in->name, text, sizeof text) == FLOW_OK);
        FUZZ_REQUIRE(flow_params_set(q, in->name, text) == FLOW_OK);
        FUZZ_REQUIRE(flow_params_get_number(p, in->name, &a) == FLOW_OK);
        FUZZ_REQUIRE(flow_params_get_number(q, in->name, &b) == FLOW_OK);
        FUZZ_REQUIRE(memcmp(&a, &b, sizeof a) == 0);
    }
    flow_params_destroy(q);
}

/* p written, read back (from no parameters: the file names its method)
 * and written again: the same bytes, so the same values bit for bit (the
 * writer's %.17g gives every double, -0 included, text of its own). */
static void round_trip(const flow_params *p)
{
    char first[512], second[512];
    snprintf(first, sizeof first, "%s", fuzz_path("written.params"));
    snprintf(second, sizeof second, "%s", fuzz_path("rewritten.params"));
    FUZZ_REQUIRE(flow_params_write(first, p, "written by fuzz_params") == FLOW_OK);
    flow_params *q = NULL;
    FUZZ_REQUIRE(flow_params_read(first, &q) == FLOW_OK);
    FUZZ_REQUIRE(flow_params_write(second, q, "written by fuzz_params") == FLOW_OK);
    size_t n1 = 0, n2 = 0;
    uint8_t *t1 = fuzz_slurp(first, &n1), *t2 = fuzz_slurp(second, &n2);
    FUZZ_REQUIRE(n1 == n2 && memcmp(t1, t2, n1) == 0);
    free(t1);
    free(t2);
    flow_params_destroy(q);
    text_round_trip(p);
}

/* The input as a file over the defaults of the method `start`. */
static void as_file(const uint8_t *data, size_t n, const char *start)
{
    const char *in = fuzz_write("in.params", data, n);
    char path[512];
    snprintf(path, sizeof path, "%s", in);
    flow_params *p = NULL;
    FUZZ_REQUIRE(flow_params_create(start, &p) == FLOW_OK);
    flow_params *const before_ptr = p;
    values before, after;
    take(p, &before);
    const flow_status s = flow_params_read(path, &p);
    if (s != FLOW_OK) {
        static const flow_status allowed[] = {FLOW_ERR_INVALID, FLOW_OK};
        fuzz_refused(s, path, allowed);
        take(p, &after);
        FUZZ_REQUIRE(p == before_ptr && same(&before, &after));
    } else {
        FUZZ_REQUIRE(flow_params_validate(p) == FLOW_OK);
        round_trip(p);
    }
    flow_params_destroy(p);
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

/* Sets key to value in p, as text or (by_number) as the number
 * flow_parse_real reads; a refusal must leave p unchanged. */
static void set_one(flow_params *p, const char *key, const char *value, int by_number)
{
    double x = 0;
    if (by_number && flow_parse_real(value, &x) != FLOW_OK)
        return;
    flow_params *kept = NULL;
    FUZZ_REQUIRE(flow_params_clone(p, &kept) == FLOW_OK);
    const flow_status s =
        by_number ? flow_params_set_number(p, key, x) : flow_params_set(p, key, value);
    if (s != FLOW_OK) {
        FUZZ_REQUIRE(s == FLOW_ERR_INVALID);
        values before, after;
        take(kept, &before);
        take(p, &after);
        FUZZ_REQUIRE(same(&before, &after));
    }
    flow_params_destroy(kept);
}

/* The input's lines as options: key,value set one by one. */
static void as_options(const uint8_t *data, size_t n, int by_number)
{
    char *text = malloc(n + 1);
    FUZZ_REQUIRE(text != NULL);
    memcpy(text, data, n);
    text[n] = '\0';
    flow_params *p = NULL;
    FUZZ_REQUIRE(flow_params_create(NULL, &p) == FLOW_OK);
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        char *hash = strchr(line, '#'), *comma = strchr(line, ',');
        if (hash)
            *hash = '\0';
        if (!comma || (hash && hash < comma))
            continue;
        *comma = '\0';
        const char *key = trim(line), *value = trim(comma + 1);
        if (strcmp(key, "method") == 0) {
            flow_params *m = NULL;
            if (flow_params_create(value, &m) == FLOW_OK) {
                flow_params_destroy(p);
                p = m;
            }
            continue;
        }
        set_one(p, key, value, by_number);
    }
    round_trip(p);
    flow_params_destroy(p);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    int methods = 0;
    while (flow_method_at(methods))
        methods++;
    as_file(data, n, flow_method_at((int)(n % (size_t)methods)));
    as_options(data, n, 0);
    as_options(data, n, 1);
    return 0;
}
