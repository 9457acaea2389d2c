/* timer.c -- the hierarchical timer of seed 001 section 5.1.3 (figures 5.3
 * and 5.4), built on the library's observer stage hooks and the device's
 * timing events (see timer.h).
 *
 * Non-intrusive: stage_begin/stage_end only record an event (a CUDA event
 * queued on the stream, or the host clock on the CPU) from a pool that is
 * grown on the first frame and reused after; nothing waits inside the
 * computation.  ftimer_frame_end() then reads the elapsed times once per
 * frame.  Stages nest into a tree (a stage reached by two paths is two
 * nodes, as in figure 5.4); stages deeper than the chosen depth record
 * nothing.  Each node keeps its time per frame (summed over its calls in
 * that frame), so the report gives the mean, and with samples kept the
 * median, over frames and --repeat runs. */
#include "timer.h"
#include "cli.h"

#include "flow/atomic_file.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define STACK_MAX 256

double ftimer_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

typedef struct tnode {
    char name[64];
    int parent, first_child, next_sibling, depth;
    double frame_ms;      /* this frame, summed over calls */
    int frame_calls;
    double sum_ms, sum_calls, min_ms, max_ms;
    double *samples;      /* per frame (when kept); zeros before the node existed */
    long filled, cap;     /* samples stored, room for */
} tnode;

typedef struct trecord {
    int node, begin, end; /* event indices */
} trecord;

struct ftimer {
    flow_device *d;
    int depth_limit, keep;
    tnode *nodes;
    int nnodes, node_cap;
    flow_event **events;
    int nevents, used;
    trecord *recs;
    int nrecs, rec_cap;
    int stack_node[STACK_MAX], stack_ev[STACK_MAX];
    int sp, cur, overflow;
    long samples;
    int unbalanced;
    flow_status error;
    char error_text[512];
};

static void fail(ftimer *t, flow_status s)
{
    if (t->error == FLOW_OK) {
        t->error = s;
        snprintf(t->error_text, sizeof t->error_text, "%s", flow_last_error());
    }
}

/* Index of a free event, creating one when the pool is exhausted; -1 on
 * failure (recorded). */
static int take_event(ftimer *t)
{
    if (t->used == t->nevents) {
        flow_event **grown = realloc(t->events, (size_t)(t->nevents + 64) * sizeof *grown);
        if (!grown) {
            fail(t, FLOW_ERR_NOMEM);
            return -1;
        }
        t->events = grown;
        for (int i = 0; i < 64; i++) {
            flow_status s = flow_event_create(t->d, &t->events[t->nevents]);
            if (s != FLOW_OK) {
                fail(t, s);
                return -1;
            }
            t->nevents++;
        }
    }
    int e = t->used++;
    flow_status s = flow_event_record(t->events[e]);
    if (s != FLOW_OK) {
        fail(t, s);
        return -1;
    }
    return e;
}

static int add_node(ftimer *t, int parent, const char *name)
{
    if (t->nnodes == t->node_cap) {
        int cap = t->node_cap ? 2 * t->node_cap : 32;
        tnode *grown = realloc(t->nodes, (size_t)cap * sizeof *grown);
        if (!grown) {
            fail(t, FLOW_ERR_NOMEM);
            return -1;
        }
        t->nodes = grown;
        t->node_cap = cap;
    }
    tnode *n = &t->nodes[t->nnodes];
    memset(n, 0, sizeof *n);
    snprintf(n->name, sizeof n->name, "%s", name);
    n->parent = parent;
    n->first_child = n->next_sibling = -1;
    n->depth = parent < 0 ? 0 : t->nodes[parent].depth + 1;
    n->min_ms = 1e300;
    if (parent >= 0) {
        /* Append, so the report keeps the order of first appearance. */
        int *link = &t->nodes[parent].first_child;
        while (*link >= 0)
            link = &t->nodes[*link].next_sibling;
        *link = t->nnodes;
    }
    return t->nnodes++;
}

static int child(ftimer *t, int parent, const char *name)
{
    for (int c = t->nodes[parent].first_child; c >= 0; c = t->nodes[c].next_sibling)
        if (strncmp(t->nodes[c].name, name, sizeof t->nodes[c].name - 1) == 0)
            return c;
    return add_node(t, parent, name);
}

int ftimer_create(flow_device *d, int depth, int keep_samples, ftimer **out)
{
    ftimer *t = calloc(1, sizeof *t);
    *out = NULL;
    if (!t) {
        cli_error("out of memory");
        return CLI_EXIT_COMPUTE;
    }
    t->d = d;
    t->depth_limit = depth;
    t->keep = keep_samples;
    if (add_node(t, -1, "TOTAL") != 0) {
        ftimer_destroy(t);
        cli_error("out of memory");
        return CLI_EXIT_COMPUTE;
    }
    *out = t;
    return CLI_EXIT_OK;
}

void ftimer_destroy(ftimer *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->nevents; i++)
        flow_event_destroy(t->events[i]);
    for (int i = 0; i < t->nnodes; i++)
        free(t->nodes[i].samples);
    free(t->events);
    free(t->nodes);
    free(t->recs);
    free(t);
}

static void push_record(ftimer *t, int node, int begin, int end)
{
    if (t->nrecs == t->rec_cap) {
        int cap = t->rec_cap ? 2 * t->rec_cap : 256;
        trecord *grown = realloc(t->recs, (size_t)cap * sizeof *grown);
        if (!grown) {
            fail(t, FLOW_ERR_NOMEM);
            return;
        }
        t->recs = grown;
        t->rec_cap = cap;
    }
    t->recs[t->nrecs++] = (trecord){node, begin, end};
}

void ftimer_stage_begin(ftimer *t, const char *name)
{
    int node = -1, ev = -1;
    if (t->cur >= 0 && t->nodes[t->cur].depth < t->depth_limit && t->error == FLOW_OK) {
        node = child(t, t->cur, name);
        if (node >= 0)
            ev = take_event(t);
    }
    if (t->sp == STACK_MAX) {
        t->overflow++;
        return;
    }
    t->stack_node[t->sp] = node;
    t->stack_ev[t->sp] = ev;
    t->sp++;
    t->cur = node;
}

void ftimer_stage_end(ftimer *t, const char *name)
{
    if (t->overflow) {
        t->overflow--;
        return;
    }
    if (t->sp <= 1) { /* only TOTAL is open: an end without a begin */
        t->unbalanced++;
        return;
    }
    t->sp--;
    const int node = t->stack_node[t->sp], begin = t->stack_ev[t->sp];
    if (node >= 0 && strncmp(t->nodes[node].name, name, sizeof t->nodes[node].name - 1) != 0)
        t->unbalanced++;
    t->cur = t->stack_node[t->sp - 1];
    if (node < 0 || begin < 0 || t->error != FLOW_OK)
        return;
    int end = take_event(t);
    if (end >= 0)
        push_record(t, node, begin, end);
}

int ftimer_frame_begin(ftimer *t)
{
    t->used = 0;
    t->nrecs = 0;
    t->sp = 0;
    t->overflow = 0;
    t->cur = -1;
    int ev = take_event(t);
    t->stack_node[0] = 0;
    t->stack_ev[0] = ev;
    t->sp = 1;
    t->cur = 0;
    if (t->error != FLOW_OK) {
        cli_error("timer: %s", t->error_text);
        return cli_exit_for_status(t->error);
    }
    return CLI_EXIT_OK;
}

/* Stores this frame's time of node n as sample number t->samples. */
static int keep_sample(ftimer *t, tnode *n)
{
    if (n->cap <= t->samples) {
        long cap = n->cap ? 2 * n->cap : 64;
        while (cap <= t->samples)
            cap *= 2;
        double *g = realloc(n->samples, (size_t)cap * sizeof *g);
        if (!g)
            return -1;
        n->samples = g;
        n->cap = cap;
    }
    while (n->filled < t->samples)
        n->samples[n->filled++] = 0; /* frames before the stage first appeared */
    n->samples[n->filled++] = n->frame_ms;
    return 0;
}

int ftimer_frame_end(ftimer *t)
{
    /* Close the stages a failed computation left open, then the total. */
    t->overflow = 0;
    while (t->sp > 1) {
        int node = t->stack_node[t->sp - 1];
        ftimer_stage_end(t, node >= 0 ? t->nodes[node].name : "");
    }
    if (t->error == FLOW_OK && t->sp == 1) {
        int end = take_event(t);
        if (end >= 0 && t->stack_ev[0] >= 0)
            push_record(t, 0, t->stack_ev[0], end);
    }
    t->sp = 0;
    t->cur = -1;
    for (int i = 0; i < t->nrecs && t->error == FLOW_OK; i++) {
        float ms = 0;
        flow_status s = flow_event_elapsed(t->events[t->recs[i].begin],
                                           t->events[t->recs[i].end], &ms);
        if (s != FLOW_OK) {
            fail(t, s);
            break;
        }
        t->nodes[t->recs[i].node].frame_ms += ms;
        t->nodes[t->recs[i].node].frame_calls++;
    }
    if (t->error != FLOW_OK) {
        cli_error("timer: %s", t->error_text);
        return cli_exit_for_status(t->error);
    }
    for (int i = 0; i < t->nnodes; i++) {
        tnode *n = &t->nodes[i];
        if (t->keep && keep_sample(t, n) != 0) {
            cli_error("timer: out of memory");
            return CLI_EXIT_COMPUTE;
        }
        n->sum_ms += n->frame_ms;
        n->sum_calls += n->frame_calls;
        if (n->frame_ms < n->min_ms)
            n->min_ms = n->frame_ms;
        if (n->frame_ms > n->max_ms)
            n->max_ms = n->frame_ms;
        n->frame_ms = 0;
        n->frame_calls = 0;
    }
    t->samples++;
    return CLI_EXIT_OK;
}

long ftimer_samples(const ftimer *t)
{
    return t->samples;
}

static double mean_ms(const ftimer *t, int i)
{
    return t->samples ? t->nodes[i].sum_ms / t->samples : 0;
}

double ftimer_stage_mean(const ftimer *t, const char *name)
{
    for (int c = t->nodes[0].first_child; c >= 0; c = t->nodes[c].next_sibling)
        if (strcmp(t->nodes[c].name, name) == 0)
            return mean_ms(t, c);
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median over the frames, or the mean when samples were not kept. */
static double median_ms(const ftimer *t, int i)
{
    if (!t->keep || !t->samples)
        return mean_ms(t, i);
    double *tmp = malloc((size_t)t->samples * sizeof *tmp);
    if (!tmp)
        return mean_ms(t, i);
    memcpy(tmp, t->nodes[i].samples, (size_t)t->samples * sizeof *tmp);
    qsort(tmp, (size_t)t->samples, sizeof *tmp, cmp_double);
    long n = t->samples;
    double m = n % 2 ? tmp[n / 2] : 0.5 * (tmp[n / 2 - 1] + tmp[n / 2]);
    free(tmp);
    return m;
}

static double percent(const ftimer *t, int i)
{
    int p = t->nodes[i].parent;
    double parent = p >= 0 ? mean_ms(t, p) : mean_ms(t, i);
    return parent > 0 ? 100.0 * mean_ms(t, i) / parent : 0;
}

static void report_node(const ftimer *t, FILE *f, int i, long pixels)
{
    const tnode *n = &t->nodes[i];
    const double ms = mean_ms(t, i);
    for (int d = 0; d < n->depth; d++)
        fputs("| ", f);
    fprintf(f, "%s (%.0f%%) : [%g ms, %.2f fps, %.2f MPx/s]", n->name, percent(t, i), ms,
            ms > 0 ? 1000.0 / ms : 0.0, ms > 0 ? pixels / (ms * 1000.0) : 0.0);
    if (t->samples > 1)
        fprintf(f, " median %g ms", median_ms(t, i));
    const double calls = n->sum_calls / (double)t->samples;
    if (calls > 1.0 + 1e-9)
        fprintf(f, ", %g calls", calls);
    fputc('\n', f);
    if (n->first_child >= 0) {
        for (int d = 0; d <= n->depth; d++)
            fputs(d ? " |" : "|", f);
        fputc('\n', f);
        for (int c = n->first_child; c >= 0; c = t->nodes[c].next_sibling)
            report_node(t, f, c, pixels);
    }
}

void ftimer_report(const ftimer *t, FILE *f, long pixels)
{
    if (!t->samples) {
        fprintf(f, "TOTAL: no computation was timed\n");
        return;
    }
    report_node(t, f, 0, pixels);
    if (t->unbalanced)
        fprintf(f, "(%d stage ends did not match their beginnings: figures may be off)\n",
                t->unbalanced);
}

/* The node's path "TOTAL/solve/fmg", with ',' and '/' in names replaced. */
static void node_path(const ftimer *t, int i, char *buf, size_t size)
{
    if (t->nodes[i].parent >= 0)
        node_path(t, t->nodes[i].parent, buf, size);
    else
        buf[0] = '\0';
    size_t n = strlen(buf);
    snprintf(buf + n, size - n, "%s%s", n ? "/" : "", t->nodes[i].name);
    for (char *p = buf + n + (n ? 1 : 0); *p; p++)
        if (*p == ',' || *p == '/' || *p == '"')
            *p = ';';
}

int ftimer_write_csv(const ftimer *t, const char *path, long pixels, const char *meta)
{
    flow_atomic a;
    flow_status s = flow_atomic_open(&a, path);
    if (s != FLOW_OK)
        return cli_report_status(s);
    FILE *f = a.f;
    fprintf(f, "# %s\n", meta);
    fprintf(f, "path,depth,name,samples,calls,mean_ms,median_ms,min_ms,max_ms,percent,fps,"
               "mpx_s\n");
    for (int i = 0; i < t->nnodes && t->samples; i++) {
        char p[2048], name[2048];
        node_path(t, i, p, sizeof p);
        const char *last = strrchr(p, '/');
        snprintf(name, sizeof name, "%s", last ? last + 1 : p);
        const double ms = mean_ms(t, i);
        fprintf(f, "%s,%d,%s,%ld,%g,%.6g,%.6g,%.6g,%.6g,%.3f,%.4g,%.4g\n", p, t->nodes[i].depth,
                name, t->samples, t->nodes[i].sum_calls / (double)t->samples, ms,
                median_ms(t, i), t->nodes[i].min_ms, t->nodes[i].max_ms, percent(t, i),
                ms > 0 ? 1000.0 / ms : 0.0, ms > 0 ? pixels / (ms * 1000.0) : 0.0);
    }
    s = flow_atomic_commit(&a);
    return s == FLOW_OK ? CLI_EXIT_OK : cli_report_status(s);
}

int ftimer_output(const ftimer *t, int print, const char *path, long pixels, const char *title,
                  const char *meta, int verbose)
{
    if (print) {
        printf("%s\n", title);
        ftimer_report(t, stdout, pixels);
        fflush(stdout);
    }
    if (path) {
        const int rc = ftimer_write_csv(t, path, pixels, meta);
        if (rc != CLI_EXIT_OK)
            return rc;
        if (verbose)
            cli_info("wrote %s", path);
    }
    return CLI_EXIT_OK;
}
