/* probe-api-steps.c -- scan_api.c's scan() at 2026-11-25 (aa0f31f) with a
 * clock stamp between its steps, to see where the C API's host time goes. */
#define _POSIX_C_SOURCE 199309L
#include <time.h>
double probe_stamps[8];
#define STAMP(i) do { struct timespec ts_; clock_gettime(CLOCK_MONOTONIC, &ts_); probe_stamps[i] = ts_.tv_sec * 1e6 + ts_.tv_nsec * 1e-3; } while (0)
#include <stdint.h>
#include <string.h>
#include "internal.h"


static libscan_status_t check_enums(libscan_dtype_t dtype, libscan_op_t op) {
    if (libscan_dtype_size(dtype) == 0) return LIBSCAN_ERROR_INVALID_DTYPE;
    if (op != LIBSCAN_OP_SUM && op != LIBSCAN_OP_MIN && op != LIBSCAN_OP_MAX) return LIBSCAN_ERROR_INVALID_OP;
    return LIBSCAN_SUCCESS;
}

libscan_status_t probe_temp_bytes(size_t count, libscan_dtype_t dtype, size_t *temp_bytes) {
    if (!temp_bytes) return LIBSCAN_ERROR_NULL_POINTER;
    if (libscan_dtype_size(dtype) == 0) return LIBSCAN_ERROR_INVALID_DTYPE;
    if (count > LIBSCAN_MAX_COUNT) return LIBSCAN_ERROR_TOO_LARGE;
    size_t need = libscan__scan_temp_bytes(count, dtype);
    *temp_bytes = need ? need + LIBSCAN_TEMP_ALIGNMENT : 0;
    return LIBSCAN_SUCCESS;
}

libscan_status_t probe_scan(const void *d_in, void *d_out, size_t count, libscan_dtype_t dtype, libscan_op_t op,
                             const libscan_scan_opts_t *opts, cudaStream_t stream, bool exclusive) {
    STAMP(0);
    libscan_status_t st = check_enums(dtype, op);
    if (st != LIBSCAN_SUCCESS) return st;
    if (count > LIBSCAN_MAX_COUNT) return LIBSCAN_ERROR_TOO_LARGE;
    static const libscan_scan_opts_t defaults = LIBSCAN_SCAN_OPTS_INIT;
    if (!opts) opts = &defaults;
    if (count > 0 && (!d_in || !d_out)) return LIBSCAN_ERROR_NULL_POINTER;
    if (opts->init && opts->d_init) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (!opts->d_temp && opts->temp_bytes) return LIBSCAN_ERROR_INVALID_ARGUMENT;

    const size_t esize = libscan_dtype_size(dtype);
    const size_t bytes = count * esize;
    const void *ptrs[4] = {count ? d_in : NULL, count ? d_out : NULL, opts->d_init, opts->d_total};
    for (int i = 0; i < 4; ++i)
        if (ptrs[i] && (uintptr_t)ptrs[i] % esize) return LIBSCAN_ERROR_INVALID_POINTER;

    if (d_in != d_out && libscan_ranges_overlap(d_in, bytes, d_out, bytes)) return LIBSCAN_ERROR_OVERLAP;
    if (opts->d_init && libscan_ranges_overlap(opts->d_init, esize, d_out, bytes)) return LIBSCAN_ERROR_OVERLAP;
    if (opts->d_total && (libscan_ranges_overlap(opts->d_total, esize, d_out, bytes) || libscan_ranges_overlap(opts->d_total, esize, d_in, bytes)))
        return LIBSCAN_ERROR_OVERLAP;

    STAMP(1);
    size_t need = 0;
    (void)probe_temp_bytes(count, dtype, &need);
    if (opts->d_temp) {
        if (opts->temp_bytes < need) return LIBSCAN_ERROR_TEMP_TOO_SMALL;
        const void *others[4] = {d_in, d_out, opts->d_init, opts->d_total};
        const size_t sizes[4] = {bytes, bytes, esize, esize};
        for (int i = 0; i < 4; ++i)
            if (others[i] && libscan_ranges_overlap(opts->d_temp, opts->temp_bytes, others[i], sizes[i])) return LIBSCAN_ERROR_OVERLAP;
    }

    STAMP(2);
    for (int i = 0; i < 4; ++i) {
        if (!ptrs[i] || (i == 1 && ptrs[1] == ptrs[0])) continue; /* in place: one query */
        st = libscan_check_device_pointer(ptrs[i]);
        if (st != LIBSCAN_SUCCESS) return st;
    }
    if (opts->d_temp && need) { /* checked even where the small path ignores it */
        st = libscan_check_device_pointer(opts->d_temp);
        if (st != LIBSCAN_SUCCESS) return st;
    }

    STAMP(3);
    libscan__scan_call_t call;
    memset(&call, 0, sizeof call);
    call.in = d_in;
    call.out = d_out;
    call.count = count;
    call.dtype = dtype;
    call.op = op;
    call.exclusive = exclusive;
    call.has_init = opts->init != NULL;
    if (opts->init) memcpy(call.init, opts->init, esize);
    call.d_init = opts->d_init;
    call.d_total = opts->d_total;
    if (count == 0 && !opts->d_total) return LIBSCAN_SUCCESS;

    /* Small scans run in one launch and never touch temp, so none is
     * allocated for them (asked only without caller temp: a capture and a
     * device query). */
    const bool uses_temp = need && !opts->d_temp && libscan__scan_uses_temp(count, dtype, op, stream);
    libscan_temp_t t;
    st = libscan_temp_acquire(opts->d_temp, opts->temp_bytes, uses_temp ? need : 0, stream, &t);
    if (st != LIBSCAN_SUCCESS) return st;
    call.temp = t.ptr;
    call.temp_bytes = t.bytes;
    STAMP(4);
    cudaError_t e = libscan__scan_launch(&call, stream);
    STAMP(5);
    if (e != cudaSuccess) (void)cudaGetLastError();
    const libscan_status_t released = libscan_temp_release(&t, stream);
    STAMP(6);
    return e != cudaSuccess ? LIBSCAN_ERROR_CUDA : released;
}

