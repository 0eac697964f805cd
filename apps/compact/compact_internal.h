/* compact_internal.h -- private interface between the C API (compact_api.c),
 * the GPU launches (compact_launch_*.cu) and the CPU path (compact_cpu.c).
 * Not installed. */
#ifndef LIBSCAN_COMPACT_INTERNAL_H
#define LIBSCAN_COMPACT_INTERNAL_H

#include "compact.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where the keep decision comes from. */
typedef enum compact__source { COMPACT__FLAGS = 0, COMPACT__PRED = 1, COMPACT__UNIQUE = 2 } compact__source_t;

/* One validated call (GPU or CPU). rejected == NULL: select; else partition. */
typedef struct compact__call {
    const void *in;
    const unsigned char *flags; /* COMPACT__FLAGS */
    void *out;
    void *rejected;
    size_t *num;                /* device (GPU) or host (CPU) count */
    size_t count;
    libscan_dtype_t dtype;
    compact__source_t source;
    compact_pred_t pred;        /* COMPACT__PRED, already checked */
    int indices;
    void *temp;                 /* GPU: 256-byte aligned scratch */
    size_t temp_bytes;
} compact__call_t;

/* Per-dtype GPU entry points (compact_launch_<type>.cu). */
#define COMPACT__DECLARE(name)                                                        \
    size_t compact__temp_bytes_##name(size_t count);                                  \
    cudaError_t compact__launch_##name(const compact__call_t *call, cudaStream_t stream);
COMPACT__DECLARE(u32)
COMPACT__DECLARE(i32)
COMPACT__DECLARE(u64)
COMPACT__DECLARE(i64)
COMPACT__DECLARE(f32)
COMPACT__DECLARE(f64)
#undef COMPACT__DECLARE

/* The CPU path (compact_cpu.c): runs a validated call on host memory. */
void compact__cpu_run(const compact__call_t *call);

#ifdef __cplusplus
}
#endif
#endif
