/* dlpack.h -- the structures of the DLPack exchange format (version 1.0 of
 * the specification, dmlc/dlpack), as the extension reads and writes them:
 * a tensor's description and the two ways a capsule holds one, the
 * versioned ("dltensor_versioned") and the older one ("dltensor").  Written
 * from the specification's field list; only what the extension uses. */
#ifndef FLOWPLATFORM_DLPACK_H
#define FLOWPLATFORM_DLPACK_H

#include <stdint.h>

/* DLDeviceType values */
#define FP_DL_CPU 1
#define FP_DL_CUDA 2
#define FP_DL_CUDA_HOST 3
#define FP_DL_CUDA_MANAGED 13
/* DLDataTypeCode values */
#define FP_DL_UINT 1
#define FP_DL_FLOAT 2
/* DLManagedTensorVersioned.flags */
#define FP_DL_READ_ONLY 1u

typedef struct fp_dl_device {
    int32_t device_type;
    int32_t device_id;
} fp_dl_device;

typedef struct fp_dl_dtype {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
} fp_dl_dtype;

typedef struct fp_dl_tensor {
    void *data;
    fp_dl_device device;
    int32_t ndim;
    fp_dl_dtype dtype;
    int64_t *shape;
    int64_t *strides; /* in elements; NULL: C order */
    uint64_t byte_offset;
} fp_dl_tensor;

typedef struct fp_dl_managed {
    fp_dl_tensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct fp_dl_managed *self);
} fp_dl_managed;

typedef struct fp_dl_version {
    uint32_t major;
    uint32_t minor;
} fp_dl_version;

typedef struct fp_dl_managed_versioned {
    fp_dl_version version;
    void *manager_ctx;
    void (*deleter)(struct fp_dl_managed_versioned *self);
    uint64_t flags;
    fp_dl_tensor dl_tensor;
} fp_dl_managed_versioned;

#endif
