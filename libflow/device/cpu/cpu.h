/* cpu.h -- the CPU device's operations (kernels_cpu.c), which device_cpu.c
 * puts in its table. */
#ifndef FLOW_DEVICE_CPU_H
#define FLOW_DEVICE_CPU_H

#include "base/pool.h"
#include "device/device.h"

/* Points per chunk of an operation's loop over its grid's rows
 * (base/pool.h): a grid of fewer than two grains runs on the calling
 * thread and wakes no worker -- the coarse multigrid levels are too small
 * to pay for a wake-up. */
#define FLOW_CPU_GRAIN 8192
/* by the gpu kind of the operation (libflow/kernels/list.h): a point of a
 * POINTS operation follows a whole window, one is worth a chunk */
#define FLOW_CPU_GRAIN_GRID FLOW_CPU_GRAIN
#define FLOW_CPU_GRAIN_OWN FLOW_CPU_GRAIN
#define FLOW_CPU_GRAIN_POINTS 1

/* The state of a CPU handle: the device's threads (a queue borrows its
 * device's), and the scratch of the sort and of the row loops
 * (rows_cpu.c), kept from one call to the next. */
typedef struct flow_cpu {
    flow_pool *pool;
    void *sort_tmp;
    size_t sort_bytes;
    float *scratch;
    size_t scratch_floats;
} flow_cpu;

/* The hot loops built for several vector widths and chosen when the
 * library is loaded (GCC's function multi-versioning through an ifunc):
 * a build for any x86-64 runs AVX2 or AVX-512 code where the processor
 * has it.  Elsewhere (arm64: NEON is the baseline) one build.  The
 * arithmetic is the same in every version: ISO C mode does not contract
 * a * b + c into a fused multiply-add (-ffp-contract=off), so every
 * version gives the same bits. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11 \
    && defined(__has_attribute)
#if __has_attribute(target_clones)
#define FLOW_CPU_CLONES \
    __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
#endif
#ifndef FLOW_CPU_CLONES
#define FLOW_CPU_CLONES
#endif

/* A row loop with every per-pixel function it calls inlined into it (GCC
 * leaves the larger ones as calls otherwise, and a loop with a call in it
 * is not vectorised).  Not in a sanitizer build, which checks the same
 * code for its errors, not its speed: there the inlining would make the
 * compilation of the loops several times longer. */
#if defined(__SANITIZE_ADDRESS__)
#define FLOW_CPU_SANITIZED
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FLOW_CPU_SANITIZED
#endif
#endif
#if defined(__GNUC__) && !defined(FLOW_CPU_SANITIZED)
#define FLOW_CPU_FLAT __attribute__((flatten))
#else
#define FLOW_CPU_FLAT
#endif

/* A loop whose iterations are independent, for loops whose body holds
 * addressable temporaries (a flow_var_terms passed by pointer to the
 * per-pixel functions): `omp simd` makes each such temporary an array
 * with one element per vector lane, which GCC then cannot keep in
 * registers, and the loop is not vectorised; `GCC ivdep` asserts the same
 * independence without privatising anything. */
#if defined(__GNUC__) && !defined(__clang__)
#define FLOW_CPU_INDEPENDENT _Pragma("GCC ivdep")
#else
#define FLOW_CPU_INDEPENDENT _Pragma("omp simd")
#endif

/* A function inlined at every call, so that arguments constant there are
 * constants in its body. */
#if defined(__GNUC__)
#define FLOW_CPU_INLINE inline __attribute__((always_inline))
#else
#define FLOW_CPU_INLINE inline
#endif

/* The rows [0, h) of a w x h grid in chunks of about `grain` points on
 * the handle's pool (kernels_cpu.c); cpu_chunks: how many. */
void cpu_for_rows(flow_device *d, int w, int h, long grain, flow_pool_body rows, void *ctx);
int cpu_chunks(int w, int h, long grain);
/* The handle's scratch of at least `floats` floats, grown if needed:
 * FLOW_ERR_NOMEM when it cannot be. */
flow_status cpu_scratch(flow_device *d, size_t floats, float **out);

#define FLOW_CPU_DECLARE(stem, A, W, H, G, C) flow_status cpu_##stem(flow_device *d, const A *a);
FLOW_KERNELS(FLOW_CPU_DECLARE)
#undef FLOW_CPU_DECLARE

/* device_cpu.c: the transfers and events the lanes reuse */
flow_status cpu_upload(flow_device *d, flow_plane *dst, const float *src, size_t src_stride);
flow_status cpu_download(flow_device *d, float *dst, size_t dst_stride, const flow_plane *src);
flow_status cpu_event_record(flow_device *d, void *event);

/* lanes_cpu.c: the overlapped transfers, done on the spot */
flow_status cpu_buffer_alloc(flow_device *d, void **p, size_t bytes);
void cpu_buffer_free(flow_device *d, void *p);
flow_status cpu_upload_bytes(flow_device *d, flow_lane lane, void *dst, const void *src,
                             size_t bytes);
flow_status cpu_upload_async(flow_device *d, flow_lane lane, flow_plane *dst, const float *src,
                             size_t src_stride);
flow_status cpu_download_async(flow_device *d, flow_lane lane, float *dst, size_t dst_stride,
                               const flow_plane *src);
flow_status cpu_lane_record(flow_device *d, flow_lane lane, void *event);
flow_status cpu_lane_wait(flow_device *d, flow_lane lane, void *event);
flow_status cpu_event_wait(flow_device *d, void *event);

flow_status cpu_sum_squares(flow_device *d, const flow_plane *p, double *sum);
flow_status cpu_plane_max(flow_device *d, const flow_plane *src, flow_plane *dst);
flow_status cpu_plane_sum(flow_device *d, const flow_plane *src, flow_plane *dst);
flow_status cpu_sort_desc(flow_device *d, const flow_plane *keys, flow_plane *skeys,
                          flow_plane *sidx);

#endif
