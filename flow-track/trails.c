/* trails.c -- the last positions of every live feature, for the trail
 * pictures.  The tracker keeps a feature in its slot from frame to frame
 * but gives a freed slot to a new feature, so trails are followed by id:
 * the live trails are kept sorted by id (ids grow with selection, so new
 * ones come last) and each tracked row finds its trail by binary search.
 * A trail's positions lie in a row of a shared pool (a ring of length + 1
 * positions); rows of lost features are reused. */
#include "tracking.h"

#include <stdlib.h>
#include <string.h>

typedef struct trail {
    long id;
    int row;  /* its positions: pool row */
    int head; /* where the next position goes in the ring */
    int len;  /* positions held, up to the ring's size */
} trail;

struct trails {
    int ring;          /* positions per trail: length + 1 */
    float *pool;       /* rows of `ring` (x, y) pairs */
    int rows;          /* rows allocated */
    int *free_rows;    /* rows not in use */
    int nfree;
    trail *live, *next; /* sorted by id; next is the update's scratch */
    int nlive, cap;
    float *out;        /* one trail in order, for trails_get */
};

int trails_create(int length, trails **out)
{
    *out = NULL;
    trails *t = calloc(1, sizeof *t);
    if (!t) {
        cli_error("out of memory");
        return CLI_EXIT_COMPUTE;
    }
    t->ring = length + 1;
    t->out = malloc(2 * (size_t)t->ring * sizeof *t->out);
    if (!t->out) {
        free(t);
        cli_error("out of memory");
        return CLI_EXIT_COMPUTE;
    }
    *out = t;
    return CLI_EXIT_OK;
}

void trails_destroy(trails *t)
{
    if (!t)
        return;
    free(t->pool);
    free(t->free_rows);
    free(t->live);
    free(t->next);
    free(t->out);
    free(t);
}

/* Room for n live trails: the two lists and n pool rows, the new rows
 * free.  -1 when out of memory. */
static int reserve(trails *t, int n)
{
    if (n <= t->cap)
        return 0;
    int cap = t->cap ? t->cap : 64;
    while (cap < n)
        cap *= 2;
    trail *live = realloc(t->live, (size_t)cap * sizeof *live);
    if (live)
        t->live = live;
    trail *next = realloc(t->next, (size_t)cap * sizeof *next);
    if (next)
        t->next = next;
    float *pool = realloc(t->pool, (size_t)cap * t->ring * 2 * sizeof *pool);
    if (pool)
        t->pool = pool;
    int *free_rows = realloc(t->free_rows, (size_t)cap * sizeof *free_rows);
    if (free_rows)
        t->free_rows = free_rows;
    if (!live || !next || !pool || !free_rows)
        return -1;
    for (int r = t->rows; r < cap; r++)
        t->free_rows[t->nfree++] = r;
    t->rows = t->cap = cap;
    return 0;
}

static int by_id(const void *a, const void *b)
{
    const long x = ((const trail *)a)->id, y = ((const trail *)b)->id;
    return x < y ? -1 : x > y;
}

static trail *find(trails *t, long id)
{
    const trail key = {id, 0, 0, 0};
    return bsearch(&key, t->live, (size_t)t->nlive, sizeof key, by_id);
}

static void push(trails *t, trail *tr, float x, float y)
{
    float *p = t->pool + ((size_t)tr->row * t->ring + tr->head) * 2;
    p[0] = x, p[1] = y;
    tr->head = (tr->head + 1) % t->ring;
    if (tr->len < t->ring)
        tr->len++;
}

int trails_update(trails *t, const flow_track_point *pt, int n)
{
    /* every row may be a live trail after the update (rows <= features) */
    if (reserve(t, t->nlive + n) != 0) {
        cli_error("out of memory for the trails of %d features", t->nlive + n);
        return CLI_EXIT_COMPUTE;
    }
    int nnext = 0;
    for (int i = 0; i < n; i++) {
        trail *old = pt[i].state == FLOW_TRACK_NEW ? NULL : find(t, pt[i].id);
        if (pt[i].state == FLOW_TRACK_LOST || (!old && pt[i].state == FLOW_TRACK_TRACKED))
            continue; /* its row is freed below with the other trails not carried on */
        trail tr = {pt[i].id, -1, 0, 0};
        if (old) {
            tr = *old;
            old->row = -1; /* carried on */
        } else
            tr.row = t->free_rows[--t->nfree];
        push(t, &tr, pt[i].x, pt[i].y);
        t->next[nnext++] = tr;
    }
    for (int i = 0; i < t->nlive; i++)
        if (t->live[i].row >= 0)
            t->free_rows[t->nfree++] = t->live[i].row;
    qsort(t->next, (size_t)nnext, sizeof *t->next, by_id);
    trail *swap = t->live;
    t->live = t->next;
    t->next = swap;
    t->nlive = nnext;
    return CLI_EXIT_OK;
}

int trails_count(const trails *t)
{
    return t->nlive;
}

long trails_get(const trails *t, int i, const float **xy, int *n)
{
    const trail *tr = &t->live[i];
    const float *ring = t->pool + (size_t)tr->row * t->ring * 2;
    /* the oldest position is at head once the ring is full, else at 0 */
    const int start = tr->len == t->ring ? tr->head : 0;
    for (int k = 0; k < tr->len; k++)
        memcpy(t->out + 2 * k, ring + 2 * ((start + k) % t->ring), 2 * sizeof *t->out);
    *xy = t->out;
    *n = tr->len;
    return tr->id;
}
