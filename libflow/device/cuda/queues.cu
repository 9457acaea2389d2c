/* queues.cu -- the queues of the CUDA device (device.h): each has its own
 * computing stream, upload and download streams (lanes.cu) and the scratch
 * of the reductions and of a sort, so that the contexts and trackers of one GPU,
 * each on a queue of its own, run at the same time.  A device opened by name
 * is a queue itself and keeps the list of the queues made from it, so that a
 * timing marker or a synchronisation on the device covers their work too. */
#include "common.cuh"

#include <stdlib.h>

flow_status cuda_queue_init(flow_cuda *c)
{
    FLOW_TRY(flow_cuda_check(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking),
                             "cudaStreamCreate"));
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
    if (c->stream) {
        cudaStreamSynchronize(c->stream);
        cudaStreamDestroy(c->stream);
    }
    if (c->mark)
        cudaEventDestroy(c->mark);
    cudaFree(c->scratch);
    cudaFree(c->partial);
    cudaFree(c->sort_tmp);
    cudaFree(c->sort_iota);
    free(c);
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
    const flow_status s = cuda_queue_init(c);
    if (s != FLOW_OK) {
        cuda_queue_free(c);
        return s;
    }
    pthread_mutex_lock(&dev->lock);
    c->next = dev->queues;
    dev->queues = c;
    pthread_mutex_unlock(&dev->lock);
    q->impl = c;
    return FLOW_OK;
}

void cuda_queue_close(flow_device *q)
{
    flow_cuda *c = cuda_of(q);
    if (!c || cuda_enter(q) != FLOW_OK)
        return;
    flow_cuda *dev = c->device;
    pthread_mutex_lock(&dev->lock);
    for (flow_cuda **p = &dev->queues; *p; p = &(*p)->next)
        if (*p == c) {
            *p = c->next;
            break;
        }
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
            if (l == FLOW_LANE_COMPUTE && q->capturing)
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
