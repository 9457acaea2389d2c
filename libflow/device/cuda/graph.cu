/* graph.cu -- CUDA graph capture for the CUDA device: a frame's motion
 * tensor and solve, a fixed sequence of launches on fixed planes, is
 * recorded once per context and replayed for every later frame, so that the
 * few hundred small kernels of a multigrid solve cost one launch from the
 * host instead of one each. */
#include "common.cuh"

flow_status cuda_capture_begin(flow_device *d)
{
    FLOW_TRY(cuda_enter(d));
    return flow_cuda_check(cudaStreamBeginCapture(cuda_stream(d),
                                                  cudaStreamCaptureModeThreadLocal),
                           "cudaStreamBeginCapture");
}

flow_status cuda_capture_end(flow_device *d, void **graph)
{
    *graph = NULL;
    FLOW_TRY(cuda_enter(d));
    cudaGraph_t g = NULL;
    cudaError_t e = cudaStreamEndCapture(cuda_stream(d), &g);
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
