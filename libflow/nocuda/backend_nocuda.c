/* backend_nocuda.c -- linked instead of libflow/cuda/ when nvcc is absent:
 * the CUDA backend exists as a name whose open() reports that this build has
 * no CUDA, so that callers need no #ifdef. */
#include "flow/backend.h"
#include "../src/internal.h"

const int flow_cuda_built = 0;

static flow_status nocuda_open(flow_backend *b, int device)
{
    (void)b;
    (void)device;
    return flow_fail(FLOW_ERR_NO_DEVICE, "this libflow was built without CUDA (nvcc not found)");
}

const flow_backend_ops flow_cuda_ops = {
    .name = "cuda",
    .open = nocuda_open,
};
