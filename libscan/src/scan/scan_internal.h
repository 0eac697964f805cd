/* scan_internal.h -- private interface between the scan entry points
 * (scan_api.c, segmented_api.c) and the kernels behind them (scan_launch.cu,
 * segmented_launch.cu). Not installed. */
#ifndef LIBSCAN_SCAN_INTERNAL_H
#define LIBSCAN_SCAN_INTERNAL_H

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

/* Whether scans take dtype (U32 .. F64) and op. */
libscan_status_t libscan__scan_check_enums(libscan_dtype_t dtype, libscan_op_t op);

/* Scratch bytes for count elements of dtype (dtype already validated). */
size_t libscan__scan_temp_bytes(size_t count, libscan_dtype_t dtype);

/* Which kernel a scan takes (DeviceScan::Plan in device_scan.cuh), decided
 * once per call by one capture query and one device query: `path` and
 * `support_*` are the plan's; uses_temp is false for count 0, for an eager
 * small scan (the grid scan with the library's flag table) and for a
 * captured one of a single block; the captured grid scan of more blocks and
 * the look-back use temp storage. */
typedef struct libscan__scan_plan {
    int path;
    bool support_ok;
    cudaFunction_t support_fn;
    bool uses_temp;
} libscan__scan_plan_t;

/* The plan of a scan of `count` elements on `stream` on the current device. */
libscan__scan_plan_t libscan__scan_plan(size_t count, libscan_dtype_t dtype, libscan_op_t op, cudaStream_t stream);

/* Enqueue the scan as `plan` (made for the same call) says; returns the CUDA
 * error of the memset or launch. */
cudaError_t libscan__scan_launch(const libscan__scan_call_t *call, const libscan__scan_plan_t *plan,
                                 cudaStream_t stream);

/* One validated segmented scan call; `count` is the logical element count
 * (rows * row_len for rows). */
typedef struct libscan__seg_call {
    const void *in;
    void *out;
    size_t count;
    libscan_dtype_t dtype;
    libscan_op_t op;
    bool exclusive;
    libscan_segments_t mode;
    const unsigned char *flags;
    const uint64_t *offsets;
    size_t num_segments;
    size_t row_len, pitch;
    const void *seg_init;
    void *temp;
    size_t temp_bytes;
} libscan__seg_call_t;

/* Scratch bytes of a segmented scan (dtype and mode already validated). */
size_t libscan__seg_temp_bytes(size_t count, libscan_dtype_t dtype, libscan_segments_t mode);

/* Whether the segmented scan of `call` uses its temp storage (false when
 * count is 0, and for rows that DeviceRowScan takes: row_scan.cuh). */
bool libscan__seg_uses_temp(const libscan__seg_call_t *call);

/* Enqueue the segmented scan; returns the first CUDA error. */
cudaError_t libscan__seg_launch(const libscan__seg_call_t *call, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
