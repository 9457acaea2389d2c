/* device_nocuda.c -- linked instead of device/cuda/ when nvcc is absent:
 * the CUDA device exists as a name whose open() reports that this build has
 * no CUDA, so that callers need no #ifdef. */
#include "device/device.h"
#include "base/fail.h"

static flow_status nocuda_open(flow_device *d, int index)
{
    (void)d;
    (void)index;
    return flow_fail(FLOW_ERR_NO_DEVICE, "this libflow was built without CUDA (nvcc not found)");
}

static int nocuda_count(void)
{
    return 0;
}

const flow_device_ops flow_cuda_ops = {
    .kind = "cuda",
    .open = nocuda_open,
    .count = nocuda_count,
};
