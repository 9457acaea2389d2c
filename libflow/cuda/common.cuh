/* common.cuh -- what every file of the CUDA backend shares: its state, the
 * launch geometry and the error checks. */
#ifndef FLOW_CUDA_COMMON_CUH
#define FLOW_CUDA_COMMON_CUH

#include "flow/backend.h"
#include "../src/internal.h"

#include <cuda_runtime.h>

struct flow_cuda {
    int device;
    cudaStream_t stream;
    cudaDeviceProp prop;
    double *scratch; /* one device double for reductions (sum_squares) */
};

static inline flow_cuda *cuda_of(flow_backend *b)
{
    return (flow_cuda *)b->impl;
}

/* 32x8 threads per block (a warp along x for coalesced rows), a grid that
 * covers width x height by round-up division. */
static const dim3 flow_block(32, 8);
static inline dim3 flow_grid(int width, int height)
{
    return dim3((unsigned)(width + 31) / 32, (unsigned)(height + 7) / 8);
}

/* Turns a CUDA error into a status with the call site in the detail. */
static inline flow_status flow_cuda_check(cudaError_t e, const char *what)
{
    if (e == cudaSuccess)
        return FLOW_OK;
    if (e == cudaErrorMemoryAllocation)
        return flow_fail(FLOW_ERR_NOMEM, "%s: %s", what, cudaGetErrorString(e));
    return flow_fail(FLOW_ERR_DEVICE, "%s: %s", what, cudaGetErrorString(e));
}

/* Checks the launch just made (configuration errors surface here; faults in
 * the kernel surface at the next synchronising call). */
#define FLOW_CUDA_LAUNCHED(name) flow_cuda_check(cudaGetLastError(), name)

#endif
