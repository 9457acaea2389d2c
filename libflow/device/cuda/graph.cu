/* graph.cu -- CUDA graph capture for the CUDA device: a frame's motion
 * tensor and solve, a fixed sequence of launches on fixed planes, is
 * recorded once per context and replayed for every later frame, so that the
 * few hundred small kernels of a multigrid solve cost one launch from the
 * host instead of one each. */
#include "common.cuh"

/* The computing lane: the queue's own stream while it records, else the
 * stream it computes on (queues.cu); under the device's lock. */
static void set_computing(flow_cuda *c, cudaStream_t s)
{
    c->stream = c->lane[FLOW_LANE_COMPUTE] = s;
}

/* A queue records on its own stream, in thread-local mode: other threads
 * go on working on their own queues meanwhile.  Whether it records is kept
 * under the device's lock, which a device-wide marker takes (queues.cu). */
flow_status cuda_capture_begin(flow_device *d)
{
    FLOW_TRY(cuda_enter(d));
    flow_cuda *c = cuda_of(d);
    pthread_mutex_lock(&c->device->lock);
    const cudaError_t e = cudaStreamBeginCapture(c->own, cudaStreamCaptureModeThreadLocal);
    c->capturing = e == cudaSuccess;
    if (c->capturing)
        set_computing(c, c->own);
    pthread_mutex_unlock(&c->device->lock);
    return flow_cuda_check(e, "cudaStreamBeginCapture");
}

flow_status cuda_capture_end(flow_device *d, void **graph)
{
    *graph = NULL;
    FLOW_TRY(cuda_enter(d));
    flow_cuda *c = cuda_of(d);
    cudaGraph_t g = NULL;
    pthread_mutex_lock(&c->device->lock);
    cudaError_t e = cudaStreamEndCapture(c->own, &g);
    c->capturing = 0;
    set_computing(c, c->device->lent == c ? c->device->own : c->own);
    pthread_mutex_unlock(&c->device->lock);
    if (e != cudaSuccess || !g) {
        (void)cudaGetLastError(); /* a failed capture leaves a non-sticky error */
        if (g)
            cudaGraphDestroy(g);
        return flow_cuda_check(e != cudaSuccess ? e : cudaErrorStreamCaptureInvalidated,
                               "cudaStreamEndCapture");
    }
    cudaGraphExec_t exec = NULL;
    e = cudaGraphInstantiate(&exec, g, 0);
    cudaGraphDestroy(g);
    FLOW_TRY(flow_cuda_check(e, "cudaGraphInstantiate"));
    *graph = (void *)exec;
    return FLOW_OK;
}

flow_status cuda_graph_launch(flow_device *d, void *graph)
{
    FLOW_TRY(cuda_enter(d));
    return flow_cuda_check(cudaGraphLaunch((cudaGraphExec_t)graph, cuda_stream(d)),
                           "cudaGraphLaunch");
}

void cuda_graph_destroy(flow_device *d, void *graph)
{
    if (graph && cuda_enter(d) == FLOW_OK)
        cudaGraphExecDestroy((cudaGraphExec_t)graph);
}
