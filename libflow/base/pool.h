/* pool.h -- a pool of host threads for parallel loops (the CPU device's
 * operations, the forward-backward check).  Not installed.
 *
 * A loop over the indices [0, n) is cut into contiguous chunks whose
 * bounds depend on n and the number of chunks alone.  The calling thread
 * and the workers that wake in time claim the chunks one at a time; the
 * caller waits only for chunks already started, never for a worker that
 * has not woken (one that a busy machine keeps asleep costs nothing; one
 * preempted in the middle of a chunk still holds it up).  Idle
 * workers sleep on a condition variable: they never spin.  A loop of one
 * chunk runs on the calling thread and wakes no worker.
 *
 * A pool belongs to one device (its queues call it from their threads) or
 * to one call.  Callers of several threads take turns: the workers help one
 * loop at a time, and a loop of one chunk runs on its caller without
 * waiting for anyone. */
#ifndef FLOW_BASE_POOL_H
#define FLOW_BASE_POOL_H

#include "flow/status.h"

/* The most threads a pool has, and the most chunks a loop is cut into (so
 * that a reduction keeps its partial results in a fixed array). */
#define FLOW_POOL_MAX_THREADS 1024
#define FLOW_POOL_MAX_CHUNKS 1024

typedef struct flow_pool flow_pool;

/* body(ctx, chunk, begin, end): the indices [begin, end), chunk number
 * `chunk` of the loop. */
typedef void (*flow_pool_body)(void *ctx, int chunk, int begin, int end);

/* The number of threads host loops use: FLOW_THREADS from the environment
 * when it is set (a whole number from 1 to FLOW_POOL_MAX_THREADS, else
 * FLOW_ERR_INVALID), otherwise the CPUs this process may run on. */
flow_status flow_pool_default_threads(int *threads);

/* A pool of `threads` threads (1 .. FLOW_POOL_MAX_THREADS) counting the
 * caller of flow_pool_for: threads - 1 workers are started here. */
flow_status flow_pool_create(int threads, flow_pool **out);
/* Stops and joins the workers and frees the pool; NULL is accepted. */
void flow_pool_destroy(flow_pool *p);
int flow_pool_threads(const flow_pool *p);

/* How many chunks a loop over `rows` rows of `points` points in all gets
 * for about `grain` points per chunk: between 1 and min(rows,
 * FLOW_POOL_MAX_CHUNKS); 1 below 2 grains, so small loops stay on the
 * calling thread. */
int flow_pool_chunks(long points, int rows, long grain);

/* Runs body on every chunk of [0, n) cut into `chunks` chunks (1 ..
 * FLOW_POOL_MAX_CHUNKS): chunk c is [c n / chunks, (c + 1) n / chunks).
 * Returns when every chunk is done, and the chunks' writes are visible to
 * the caller.  At most chunks - 1 workers are woken.  Safe to call from
 * several threads at once. */
void flow_pool_for(flow_pool *p, int n, int chunks, flow_pool_body body, void *ctx);

#endif
