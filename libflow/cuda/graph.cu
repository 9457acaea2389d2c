/* graph.cu -- CUDA graph capture for the CUDA backend: a frame's motion
 * tensor and solve, a fixed sequence of launches on fixed planes, is
 * recorded once per context and replayed for every later frame, so that the
 * few hundred small kernels of a multigrid solve cost one launch from the
 * host instead of one each. */
#include "common.cuh"
#include "ops.cuh"

flow_status cuda_capture_begin(flow_backend *b)
{
    return flow_cuda_check(cudaStreamBeginCapture(cuda_of(b)->stream,
                                                  cudaStreamCaptureModeThreadLocal),
                           "cudaStreamBeginCapture");
}

flow_status cuda_capture_end(flow_backend *b, void **graph)
{
    *graph = NULL;
    cudaGraph_t g = NULL;
    cudaError_t e = cudaStreamEndCapture(cuda_of(b)->stream, &g);
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

flow_status cuda_graph_launch(flow_backend *b, void *graph)
{
    return flow_cuda_check(cudaGraphLaunch((cudaGraphExec_t)graph, cuda_of(b)->stream),
                           "cudaGraphLaunch");
}

void cuda_graph_destroy(flow_backend *b, void *graph)
{
    (void)b;
    if (graph)
        cudaGraphExecDestroy((cudaGraphExec_t)graph);
}
