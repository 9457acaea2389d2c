/* queues.cu -- the queues of the CUDA device (device.h): each has its own
 * computing stream, upload and download streams (lanes.cu) and the scratch
 * of the reductions and of a sort, so that the contexts and trackers of one GPU,
 * each on a queue of its own, run at the same time.  A device opened by name
 * is a queue itself and keeps the list of the queues made from it, so that a
 * timing marker or a synchronisation on the device covers their work too.
 *
 * The first queue opened on a device computes on the device's own stream:
 * on an H200 a graph replays each of its kernels faster there than on a
 * stream made for the queue (docs/BENCHMARKS.md, "Queues and the device's
 * stream"), and one context per GPU is the common case.  That queue records
 * its graphs on a stream of its own all the same, so that the device's
 * stream is never being recorded: a device-wide marker or synchronisation
 * from another thread can neither enter a graph nor break its recording. */
#include "common.cuh"

#include <stdlib.h>

/* stream: the computing stream to use, the device's (NULL: its own). */
flow_status cuda_queue_init(flow_cuda *c, cudaStream_t stream)
{
    FLOW_TRY(flow_cuda_check(cudaStreamCreateWithFlags(&c->own, cudaStreamNonBlocking),
                             "cudaStreamCreate"));
    c->stream = stream ? stream : c->own;
    FLOW_TRY(cuda_lanes_open(c));
    FLOW_TRY(flow_cuda_check(cudaEventCreateWithFlags(&c->mark, cudaEventDisableTiming),
                             "cudaEventCreate"));
    FLOW_TRY(flow_cuda_check(cudaMalloc((void **)&c->scratch, sizeof(double)), "cudaMalloc"));
    const size_t bytes = FLOW_SUM_BLOCKS * sizeof(double) + sizeof(unsigned);
    FLOW_TRY(flow_cuda_check(cudaMalloc((void **)&c->partial, bytes), "cudaMalloc"));
    return flow_cuda_check(cudaMemset(c->partial, 0, bytes), "cudaMemset");
}

/* Waits for the queue's work, then frees what cuda_queue_init made (any
 * part of it) and c. */
void cuda_queue_free(flow_cuda *c)
{
    cuda_lanes_close(c);
    if (c->stream)
        cudaStreamSynchronize(c->stream);
    if (c->own) {
        cudaStreamSynchronize(c->own);
        cudaStreamDestroy(c->own);
    }
    if (c->mark)
        cudaEventDestroy(c->mark);
    cudaFree(c->scratch);
    cudaFree(c->partial);
    cudaFree(c->sort_tmp);
    cudaFree(c->sort_iota);
    free(c);
}

/* Takes c off its device's list, and gives back the device's stream if it
 * computes on it; under the device's lock. */
static void queue_unlist(flow_cuda *c)
{
    flow_cuda *dev = c->device;
    for (flow_cuda **p = &dev->queues; *p; p = &(*p)->next)
        if (*p == c) {
            *p = c->next;
            break;
        }
    if (dev->lent == c)
        dev->lent = NULL;
}

flow_status cuda_queue_open(flow_device *q)
{
    FLOW_TRY(cuda_enter(q));
    flow_cuda *dev = cuda_of(q->owner);
    flow_cuda *c = (flow_cuda *)calloc(1, sizeof *c);
    if (!c)
        return flow_fail(FLOW_ERR_NOMEM, "cannot allocate a CUDA queue");
    c->prop = dev->prop;
    c->device = dev;
    pthread_mutex_lock(&dev->lock);
    c->next = dev->queues;
    dev->queues = c;
    if (!dev->lent)
        dev->lent = c;
    const flow_status s = cuda_queue_init(c, dev->lent == c ? dev->own : NULL);
    if (s != FLOW_OK)
        queue_unlist(c);
    pthread_mutex_unlock(&dev->lock);
    if (s != FLOW_OK) {
        cuda_queue_free(c);
        return s;
    }
    q->impl = c;
    return FLOW_OK;
}

void cuda_queue_close(flow_device *q)
{
    flow_cuda *c = cuda_of(q);
    if (!c || cuda_enter(q) != FLOW_OK)
        return;
    flow_cuda *dev = c->device;
    cudaStreamSynchronize(c->stream); /* before another queue computes on it */
    pthread_mutex_lock(&dev->lock);
    queue_unlist(c);
    pthread_mutex_unlock(&dev->lock);
    cuda_queue_free(c);
    q->impl = NULL;
}

/* On a device opened by name (nothing on a queue): its stream waits for
 * what every queue made from it has queued so far on each of its lanes.  A
 * computing lane that is recording a graph has nothing queued, and an event
 * of its capture would draw the device's stream into the graph: it is left
 * out, and so is everything while the device's own stream records one. */
flow_status cuda_join_queues(flow_device *d)
{
    if (d->owner)
        return FLOW_OK;
    flow_cuda *c = cuda_of(d);
    flow_status s = FLOW_OK;
    pthread_mutex_lock(&c->lock);
    for (flow_cuda *q = c->capturing ? NULL : c->queues; q && s == FLOW_OK; q = q->next)
        for (int l = 0; l < 3 && s == FLOW_OK; l++) {
            if (l == FLOW_LANE_COMPUTE && (q->capturing || q->stream == c->stream))
                continue;
            s = flow_cuda_check(cudaEventRecord(q->mark, q->lane[l]), "cudaEventRecord");
            if (s == FLOW_OK)
                s = flow_cuda_check(cudaStreamWaitEvent(c->stream, q->mark, 0),
                                    "cudaStreamWaitEvent");
        }
    pthread_mutex_unlock(&c->lock);
    return s;
}

/* On a device opened by name (nothing on a queue): waits for the lanes of
 * every queue made from it (a computing lane recording a graph has nothing
 * to wait for). */
flow_status cuda_sync_queues(flow_device *d)
{
    if (d->owner)
        return FLOW_OK;
    flow_cuda *c = cuda_of(d);
    flow_status s = FLOW_OK;
    pthread_mutex_lock(&c->lock);
    for (flow_cuda *q = c->queues; q && s == FLOW_OK; q = q->next)
        for (int l = 0; l < 3 && s == FLOW_OK; l++)
            if (l != FLOW_LANE_COMPUTE || !q->capturing)
                s = flow_cuda_check(cudaStreamSynchronize(q->lane[l]), "synchronize");
    pthread_mutex_unlock(&c->lock);
    return s;
}
