/* compact_internal.h -- private interface between the C API (compact_api.c),
 * the GPU launches (compact_launch_*.cu) and the CPU path (compact_cpu.c).
 * Not installed. */
#ifndef LIBSCAN_COMPACT_INTERNAL_H
#define LIBSCAN_COMPACT_INTERNAL_H

#include <libscan/compact.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Where the keep decision comes from. */
typedef enum libscan__compact_source { LIBSCAN__COMPACT_FLAGS = 0, LIBSCAN__COMPACT_PRED = 1, LIBSCAN__COMPACT_UNIQUE = 2 } libscan__compact_source_t;

/* One validated call (GPU or CPU). rejected == NULL: select; else partition. */
typedef struct libscan__compact_call {
    const void *in;
    const unsigned char *flags; /* LIBSCAN__COMPACT_FLAGS */
    void *out;
    void *rejected;
    size_t *num;                /* device (GPU) or host (CPU) count */
    size_t count;
    libscan_dtype_t dtype;
    libscan__compact_source_t source;
    libscan_pred_t pred;        /* LIBSCAN__COMPACT_PRED, already checked */
    int indices;
    void *temp;                 /* GPU: 256-byte aligned scratch */
    size_t temp_bytes;
} libscan__compact_call_t;

/* Per-dtype GPU entry points (compact_launch_<type>.cu). */
#define LIBSCAN__COMPACT_DECLARE(name)                                                        \
    size_t libscan__compact_temp_bytes_##name(size_t count);                                  \
    cudaError_t libscan__compact_launch_##name(const libscan__compact_call_t *call, cudaStream_t stream);
LIBSCAN__COMPACT_DECLARE(u32)
LIBSCAN__COMPACT_DECLARE(i32)
LIBSCAN__COMPACT_DECLARE(u64)
LIBSCAN__COMPACT_DECLARE(i64)
LIBSCAN__COMPACT_DECLARE(f32)
LIBSCAN__COMPACT_DECLARE(f64)
#undef LIBSCAN__COMPACT_DECLARE

/* The CPU path (compact_cpu.c): runs a validated call on host memory. */
void libscan__compact_cpu_run(const libscan__compact_call_t *call);

#ifdef __cplusplus
}
#endif
#endif
