/* pool.c -- the host thread pool of pool.h: workers asleep on a condition
 * variable, loops posted under a mutex, chunks claimed through an atomic
 * counter. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "base/pool.h"
#include "base/fail.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct flow_pool {
    pthread_mutex_t caller; /* held by the caller whose loop the workers help */
    pthread_mutex_t lock;
    pthread_cond_t wake; /* a loop was posted, or the pool stops */
    pthread_cond_t idle; /* the last worker inside a loop left it */
    int threads;         /* the caller and the workers */
    int started;         /* workers running */
    pthread_t *workers;
    /* under lock: the loop posted last and who may still join it */
    unsigned long loop; /* how many loops were posted */
    int seats;          /* workers the loop may still take */
    int busy;           /* workers inside the loop */
    int stop;
    flow_pool_body body;
    void *ctx;
    int n, chunks;
    /* claimed without the lock; reset before a loop is posted */
    atomic_int next_chunk;
};

flow_status flow_pool_default_threads(int *threads)
{
    const char *env = getenv("FLOW_THREADS");
    if (env) {
        char *end;
        errno = 0;
        const long n = strtol(env, &end, 10);
        if (errno || end == env || *end != '\0' || n < 1 || n > FLOW_POOL_MAX_THREADS)
            return flow_fail(FLOW_ERR_INVALID,
                             "FLOW_THREADS='%s': expected a whole number from 1 to %d", env,
                             FLOW_POOL_MAX_THREADS);
        *threads = (int)n;
        return FLOW_OK;
    }
    /* the affinity mask, so that taskset and cpusets are respected */
    cpu_set_t set;
    long n = 0;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        n = CPU_COUNT(&set);
    if (n < 1)
        n = sysconf(_SC_NPROCESSORS_ONLN);
    *threads = n < 1 ? 1 : n > FLOW_POOL_MAX_THREADS ? FLOW_POOL_MAX_THREADS : (int)n;
    return FLOW_OK;
}

int flow_pool_chunks(long points, int rows, long grain)
{
    long k = points / grain;
    if (k > rows)
        k = rows;
    if (k > FLOW_POOL_MAX_CHUNKS)
        k = FLOW_POOL_MAX_CHUNKS;
    return k < 2 ? 1 : (int)k;
}

static int chunk_begin(int n, int chunks, int c)
{
    return (int)((long)c * n / chunks);
}

/* Claims chunks of the loop until none is left. */
static void run_chunks(flow_pool *p, flow_pool_body body, void *ctx, int n, int chunks)
{
    int c;
    while ((c = atomic_fetch_add_explicit(&p->next_chunk, 1, memory_order_relaxed)) < chunks)
        body(ctx, c, chunk_begin(n, chunks, c), chunk_begin(n, chunks, c + 1));
}

static void *worker(void *arg)
{
    flow_pool *p = arg;
    unsigned long seen = 0; /* the last loop this worker joined */
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->stop && (p->loop == seen || p->seats == 0))
            pthread_cond_wait(&p->wake, &p->lock);
        if (p->stop)
            break;
        seen = p->loop;
        p->seats--;
        p->busy++;
        const flow_pool_body body = p->body;
        void *const ctx = p->ctx;
        const int n = p->n, chunks = p->chunks;
        pthread_mutex_unlock(&p->lock);
        run_chunks(p, body, ctx, n, chunks);
        pthread_mutex_lock(&p->lock);
        if (--p->busy == 0)
            pthread_cond_signal(&p->idle);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

void flow_pool_for(flow_pool *p, int n, int chunks, flow_pool_body body, void *ctx)
{
    if (n <= 0)
        return;
    if (chunks > n)
        chunks = n;
    if (chunks < 1)
        chunks = 1;
    const int workers = p->threads - 1;
    const int helpers = chunks - 1 < workers ? chunks - 1 : workers;
    if (helpers <= 0) { /* the calling thread alone: nothing of the pool is touched */
        for (int c = 0; c < chunks; c++)
            body(ctx, c, chunk_begin(n, chunks, c), chunk_begin(n, chunks, c + 1));
        return;
    }
    /* the workers help one loop at a time: a caller of another thread waits */
    pthread_mutex_lock(&p->caller);
    atomic_store_explicit(&p->next_chunk, 0, memory_order_relaxed);
    pthread_mutex_lock(&p->lock);
    p->body = body;
    p->ctx = ctx;
    p->n = n;
    p->chunks = chunks;
    p->loop++;
    p->seats = helpers;
    pthread_mutex_unlock(&p->lock);
    if (helpers == workers)
        pthread_cond_broadcast(&p->wake);
    else
        for (int i = 0; i < helpers; i++)
            pthread_cond_signal(&p->wake);
    run_chunks(p, body, ctx, n, chunks);
    /* Every chunk is claimed: close the loop to latecomers and wait for
     * the workers still in it. */
    pthread_mutex_lock(&p->lock);
    p->seats = 0;
    while (p->busy > 0)
        pthread_cond_wait(&p->idle, &p->lock);
    pthread_mutex_unlock(&p->lock);
    pthread_mutex_unlock(&p->caller);
}

int flow_pool_threads(const flow_pool *p)
{
    return p->threads;
}

void flow_pool_destroy(flow_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->stop = 1;
    pthread_mutex_unlock(&p->lock);
    pthread_cond_broadcast(&p->wake);
    for (int i = 0; i < p->started; i++)
        pthread_join(p->workers[i], NULL);
    pthread_cond_destroy(&p->idle);
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->lock);
    pthread_mutex_destroy(&p->caller);
    free(p->workers);
    free(p);
}

flow_status flow_pool_create(int threads, flow_pool **out)
{
    *out = NULL;
    if (threads < 1 || threads > FLOW_POOL_MAX_THREADS)
        return flow_fail(FLOW_ERR_INVALID, "a pool of %d threads: expected 1 to %d", threads,
                         FLOW_POOL_MAX_THREADS);
    flow_pool *p = calloc(1, sizeof *p);
    pthread_t *workers = calloc((size_t)threads, sizeof *workers);
    if (!p || !workers) {
        free(p);
        free(workers);
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate a pool of %d threads", threads);
    }
    p->threads = threads;
    p->workers = workers;
    atomic_init(&p->next_chunk, 0);
    /* with default attributes these do not fail (glibc, musl) */
    pthread_mutex_init(&p->caller, NULL);
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->idle, NULL);
    for (; p->started < threads - 1; p->started++) {
        const int err = pthread_create(&p->workers[p->started], NULL, worker, p);
        if (err) {
            const int started = p->started;
            flow_pool_destroy(p);
            return flow_fail(FLOW_ERR_NOMEM, "cannot start thread %d of a pool of %d: %s",
                             started + 1, threads, strerror(err));
        }
    }
    *out = p;
    return FLOW_OK;
}
