/* test_pool.c -- the host thread pool (base/pool.h): every index of a loop
 * visited exactly once and every chunk run once with the bounds the header
 * gives, for many ranges, chunk counts and pool sizes (ranges smaller than
 * the pool included); thousands of consecutive loops; a pool of one thread
 * and loops of one chunk on the calling thread; reductions in chunk order
 * equal bit for bit whatever the threads; two pools driven from two threads
 * at once, and one pool from three; workers that do take chunks; pools
 * destroyed without work; the chunk count by size; the thread count from
 * FLOW_THREADS. */
#include "harness.h"
#include "base/pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_N 5000

/* What a loop saw: visits per index, runs per chunk, bounds that disagreed
 * with the header's, and which threads ran chunks. */
typedef struct visits {
    int n, chunks;
    atomic_int index[MAX_N];
    atomic_int chunk[FLOW_POOL_MAX_CHUNKS];
    atomic_int wrong_bounds;
    atomic_int off_caller; /* chunks run by a thread other than `caller` */
    pthread_t caller;
} visits;

static void visit(void *ctx, int chunk, int begin, int end)
{
    visits *v = ctx;
    if (begin != (int)((long)chunk * v->n / v->chunks)
        || end != (int)((long)(chunk + 1) * v->n / v->chunks))
        atomic_fetch_add(&v->wrong_bounds, 1);
    if (!pthread_equal(pthread_self(), v->caller))
        atomic_fetch_add(&v->off_caller, 1);
    atomic_fetch_add(&v->chunk[chunk], 1);
    for (int i = begin; i < end; i++)
        atomic_fetch_add(&v->index[i], 1);
}

/* Runs a loop of n indices in `chunks` chunks on p; 1 when every index
 * was visited once and every chunk run once with the right bounds. */
static int loop_once(flow_pool *p, visits *v, int n, int chunks)
{
    memset(v, 0, sizeof *v);
    v->n = n;
    v->chunks = chunks;
    v->caller = pthread_self();
    flow_pool_for(p, n, chunks, visit, v);
    int ok = atomic_load(&v->wrong_bounds) == 0;
    for (int i = 0; i < n; i++)
        ok &= atomic_load(&v->index[i]) == 1;
    for (int c = 0; c < chunks; c++)
        ok &= atomic_load(&v->chunk[c]) == 1;
    return ok;
}

static visits shared_visits; /* large: not on a stack */

static void test_every_index_once(void)
{
    const int threads[] = {1, 2, 3, 4, 8, 17};
    const int sizes[] = {1, 2, 3, 5, 7, 16, 100, 1023, 4999};
    const int chunk_counts[] = {1, 2, 3, 7, 16, 64, 1000, FLOW_POOL_MAX_CHUNKS};
    for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
        flow_pool *p = NULL;
        CHECK_OK(flow_pool_create(threads[t], &p));
        if (!p)
            return;
        CHECK(flow_pool_threads(p) == threads[t]);
        int ok = 1;
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
            for (size_t c = 0; c < sizeof chunk_counts / sizeof *chunk_counts; c++) {
                const int n = sizes[s];
                const int chunks = chunk_counts[c] < n ? chunk_counts[c] : n;
                if (!loop_once(p, &shared_visits, n, chunks)) {
                    ok = 0;
                    fprintf(stderr, "    %d threads, n %d, %d chunks\n", threads[t], n, chunks);
                }
            }
        CHECK(ok);
        flow_pool_destroy(p);
    }
}

/* More chunks than indices are cut down to one index each; an empty range
 * runs nothing. */
static void test_small_ranges(void)
{
    flow_pool *p = NULL;
    CHECK_OK(flow_pool_create(8, &p));
    if (!p)
        return;
    for (int n = 1; n < 8; n++) {
        CHECK(loop_once(p, &shared_visits, n, n));
        memset(&shared_visits, 0, sizeof shared_visits);
        shared_visits.n = shared_visits.chunks = n; /* the bounds of n chunks */
        shared_visits.caller = pthread_self();
        flow_pool_for(p, n, 50, visit, &shared_visits);
        int once = atomic_load(&shared_visits.wrong_bounds) == 0;
        for (int i = 0; i < n; i++)
            once &= atomic_load(&shared_visits.index[i]) == 1;
        CHECK(once);
    }
    memset(&shared_visits, 0, sizeof shared_visits);
    flow_pool_for(p, 0, 4, visit, &shared_visits);
    CHECK(atomic_load(&shared_visits.chunk[0]) == 0);
    flow_pool_destroy(p);
}

typedef struct counter {
    atomic_long sum;
} counter;

static void add_indices(void *ctx, int chunk, int begin, int end)
{
    counter *c = ctx;
    long s = 0;
    for (int i = begin; i < end; i++)
        s += i + 1;
    atomic_fetch_add(&c->sum, s);
}

/* Thousands of loops in a row (each posting, waking and closing), of
 * sizes that vary, so that latecomers of one loop meet the next. */
static long many_loops(flow_pool *p, int loops)
{
    long wrong = 0;
    for (int k = 0; k < loops; k++) {
        const int n = 1 + k % 97, chunks = 1 + k % 13;
        counter c;
        atomic_init(&c.sum, 0);
        flow_pool_for(p, n, chunks < n ? chunks : n, add_indices, &c);
        wrong += atomic_load(&c.sum) != (long)n * (n + 1) / 2;
    }
    return wrong;
}

static void test_consecutive_loops(void)
{
    for (int threads = 2; threads <= 4; threads++) {
        flow_pool *p = NULL;
        CHECK_OK(flow_pool_create(threads, &p));
        if (!p)
            return;
        CHECK(many_loops(p, 5000) == 0);
        flow_pool_destroy(p);
    }
}

/* One thread: everything on the caller.  One chunk: the caller too, in a
 * pool of several. */
static void test_caller_only(void)
{
    flow_pool *one = NULL, *four = NULL;
    CHECK_OK(flow_pool_create(1, &one));
    CHECK_OK(flow_pool_create(4, &four));
    if (!one || !four)
        return;
    CHECK(loop_once(one, &shared_visits, 4999, 64));
    CHECK(atomic_load(&shared_visits.off_caller) == 0);
    CHECK(many_loops(one, 1000) == 0);
    CHECK(loop_once(four, &shared_visits, 4999, 1));
    CHECK(atomic_load(&shared_visits.off_caller) == 0);
    flow_pool_destroy(one);
    flow_pool_destroy(four);
}

typedef struct partials {
    const double *x;
    double part[FLOW_POOL_MAX_CHUNKS];
} partials;

static void sum_rows(void *ctx, int chunk, int begin, int end)
{
    partials *p = ctx;
    double s = 0;
    for (int i = begin; i < end; i++)
        s += p->x[i] * p->x[i];
    p->part[chunk] = s;
}

/* Partial sums kept per chunk and added in chunk order: the same bits
 * from pools of 1 to 8 threads, loop after loop. */
static void test_reduction_in_order(void)
{
    enum { N = 4999, CHUNKS = 37 };
    static double x[N];
    unsigned seed = 7;
    for (int i = 0; i < N; i++)
        x[i] = harness_uniform(&seed) * 1e3 - 500;
    double first = 0;
    int same = 1;
    for (int threads = 1; threads <= 8; threads++) {
        flow_pool *p = NULL;
        CHECK_OK(flow_pool_create(threads, &p));
        if (!p)
            return;
        for (int k = 0; k < 50; k++) {
            partials s = {.x = x};
            flow_pool_for(p, N, CHUNKS, sum_rows, &s);
            double total = 0;
            for (int c = 0; c < CHUNKS; c++)
                total += s.part[c];
            if (threads == 1 && k == 0)
                first = total;
            same &= memcmp(&total, &first, sizeof total) == 0;
        }
        flow_pool_destroy(p);
    }
    CHECK(same);
}

typedef struct slow {
    pthread_t caller;
    atomic_int off_caller;
} slow;

/* About 50 microseconds of work per chunk, noting who ran it. */
static void slow_chunk(void *ctx, int chunk, int begin, int end)
{
    slow *s = ctx;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 50000);
    if (!pthread_equal(pthread_self(), s->caller))
        atomic_fetch_add(&s->off_caller, 1);
}

/* The workers do take chunks (the loops above could all have run on the
 * caller): loops of slow chunks until one ran elsewhere, for at most about
 * 4000 loops (some seconds) on a busy machine. */
static void test_workers_take_part(void)
{
    flow_pool *p = NULL;
    CHECK_OK(flow_pool_create(2, &p));
    if (!p)
        return;
    slow s = {.caller = pthread_self()};
    atomic_init(&s.off_caller, 0);
    for (int k = 0; k < 4000 && atomic_load(&s.off_caller) == 0; k++)
        flow_pool_for(p, 8, 8, slow_chunk, &s);
    CHECK(atomic_load(&s.off_caller) > 0);
    flow_pool_destroy(p);
}

typedef struct driver {
    flow_pool *pool;
    long wrong;
} driver;

static void *drive(void *arg)
{
    driver *d = arg;
    d->wrong = many_loops(d->pool, 3000);
    return NULL;
}

/* Two pools, each driven by a thread of its own at the same time. */
static void test_two_pools_two_threads(void)
{
    driver d[2] = {{NULL, -1}, {NULL, -1}};
    CHECK_OK(flow_pool_create(3, &d[0].pool));
    CHECK_OK(flow_pool_create(2, &d[1].pool));
    if (!d[0].pool || !d[1].pool)
        return;
    pthread_t t[2];
    int started[2];
    for (int i = 0; i < 2; i++)
        started[i] = pthread_create(&t[i], NULL, drive, &d[i]) == 0;
    CHECK(started[0] && started[1]);
    for (int i = 0; i < 2; i++)
        if (started[i])
            pthread_join(t[i], NULL);
    CHECK(d[0].wrong == 0 && d[1].wrong == 0);
    flow_pool_destroy(d[0].pool);
    flow_pool_destroy(d[1].pool);
}

/* One pool driven by three threads at once (the queues of one CPU device,
 * each in its own thread): every loop of each still sums right. */
static void test_one_pool_three_threads(void)
{
    flow_pool *pool = NULL;
    CHECK_OK(flow_pool_create(3, &pool));
    if (!pool)
        return;
    driver d[3] = {{pool, -1}, {pool, -1}, {pool, -1}};
    pthread_t t[3];
    int started[3];
    for (int i = 0; i < 3; i++)
        started[i] = pthread_create(&t[i], NULL, drive, &d[i]) == 0;
    CHECK(started[0] && started[1] && started[2]);
    for (int i = 0; i < 3; i++)
        if (started[i])
            pthread_join(t[i], NULL);
    CHECK(d[0].wrong == 0 && d[1].wrong == 0 && d[2].wrong == 0);
    flow_pool_destroy(pool);
}

static void test_create_destroy(void)
{
    for (int threads = 1; threads <= 16; threads *= 2) {
        flow_pool *p = NULL;
        CHECK_OK(flow_pool_create(threads, &p));
        flow_pool_destroy(p);
    }
    flow_pool_destroy(NULL);
    flow_pool *p = (flow_pool *)&p;
    CHECK(flow_pool_create(0, &p) == FLOW_ERR_INVALID && p == NULL);
    CHECK(flow_pool_create(FLOW_POOL_MAX_THREADS + 1, &p) == FLOW_ERR_INVALID);
    CHECK(strstr(flow_last_error(), "threads") != NULL);
}

static void test_chunk_count(void)
{
    CHECK(flow_pool_chunks(0, 1, 100) == 1);
    CHECK(flow_pool_chunks(199, 20, 100) == 1); /* under two grains: one */
    CHECK(flow_pool_chunks(200, 20, 100) == 2);
    CHECK(flow_pool_chunks(100000, 20, 100) == 20); /* at most a chunk per row */
    CHECK(flow_pool_chunks(1L << 40, 1 << 30, 1) == FLOW_POOL_MAX_CHUNKS);
    CHECK(flow_pool_chunks(5, 5, 1) == 5); /* points of a window each */
}

static void test_threads_from_environment(void)
{
    char *saved = harness_env_save("FLOW_THREADS");
    int n = 0;
    unsetenv("FLOW_THREADS");
    CHECK_OK(flow_pool_default_threads(&n));
    CHECK(n >= 1 && n <= FLOW_POOL_MAX_THREADS);
    setenv("FLOW_THREADS", "3", 1);
    CHECK_OK(flow_pool_default_threads(&n));
    CHECK(n == 3);
    const char *bad[] = {"0", "-2", "abc", "2x", "", "1025", "99999999999999999999"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        setenv("FLOW_THREADS", bad[k], 1);
        CHECK(flow_pool_default_threads(&n) == FLOW_ERR_INVALID);
        CHECK(strstr(flow_last_error(), "FLOW_THREADS") != NULL);
    }
    harness_env_restore("FLOW_THREADS", saved);
}

int main(void)
{
    RUN(test_every_index_once);
    RUN(test_small_ranges);
    RUN(test_consecutive_loops);
    RUN(test_caller_only);
    RUN(test_reduction_in_order);
    RUN(test_workers_take_part);
    RUN(test_two_pools_two_threads);
    RUN(test_one_pool_three_threads);
    RUN(test_create_destroy);
    RUN(test_chunk_count);
    RUN(test_threads_from_environment);
    return harness_report();
}
