/* internal.h -- private interface between the C API (scan_api.c) and the
 * kernels behind it (scan_launch.cu). Not installed. */
#ifndef LIBSCAN_INTERNAL_H
#define LIBSCAN_INTERNAL_H

#include <stdbool.h>
#include "libscan/libscan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One validated scan call. `init` is a host copy of the carry-in (used when
 * has_init), so the caller's host buffer is not needed after the call. */
typedef struct libscan__scan_call {
    const void *in;
    void *out;
    size_t count;
    libscan_dtype_t dtype;
    libscan_op_t op;
    bool exclusive;
    bool has_init;
    unsigned char init[8];
    const void *d_init;
    void *d_total;
    void *temp;
    size_t temp_bytes;
} libscan__scan_call_t;

/* Scratch bytes for count elements of dtype (dtype already validated). */
size_t libscan__scan_temp_bytes(size_t count, libscan_dtype_t dtype);

/* Whether the scan of `count` elements uses its temp storage on the current
 * device (false on the single-cluster path for small counts). */
bool libscan__scan_uses_temp(size_t count, libscan_dtype_t dtype, libscan_op_t op);

/* Enqueue the scan; returns the CUDA error of the memset or launch. */
cudaError_t libscan__scan_launch(const libscan__scan_call_t *call, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
