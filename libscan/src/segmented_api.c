/* segmented_api.c -- the public segmented-scan entry points: check every
 * argument (reading the offsets back when the caller did not vouch for
 * them), find temp storage, then hand the call to segmented_launch.cu. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

#define SEG_ID_LIMIT ((size_t)1 << 31) /* segment numbers travel in 31 bits */

libscan_status_t libscan_segmented_temp_bytes(size_t count, libscan_dtype_t dtype, libscan_segments_t segments,
                                              size_t *temp_bytes) {
    if (!temp_bytes) return LIBSCAN_ERROR_NULL_POINTER;
    if (libscan_dtype_size(dtype) == 0) return LIBSCAN_ERROR_INVALID_DTYPE;
    if (segments != LIBSCAN_SEGMENTS_FLAGS && segments != LIBSCAN_SEGMENTS_OFFSETS && segments != LIBSCAN_SEGMENTS_ROWS)
        return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (count > LIBSCAN_MAX_COUNT) return LIBSCAN_ERROR_TOO_LARGE;
    size_t need = libscan__seg_temp_bytes(count, dtype, segments);
    *temp_bytes = need ? need + LIBSCAN_TEMP_ALIGNMENT : 0;
    return LIBSCAN_SUCCESS;
}

/* Copies the offsets to the host (synchronising with stream) and checks
 * that they do not decrease and stay within count. */
static libscan_status_t check_offsets(const uint64_t *d_offsets, size_t num_segments, size_t count,
                                      cudaStream_t stream) {
    const size_t chunk = (size_t)1 << 20;
    uint64_t *h = malloc(chunk * sizeof *h);
    if (!h) return LIBSCAN_ERROR_OUT_OF_MEMORY;
    libscan_status_t st = LIBSCAN_SUCCESS;
    uint64_t prev = 0;
    for (size_t done = 0; done <= num_segments && st == LIBSCAN_SUCCESS; done += chunk) {
        size_t k = num_segments + 1 - done < chunk ? num_segments + 1 - done : chunk;
        if (cudaMemcpyAsync(h, d_offsets + done, k * sizeof *h, cudaMemcpyDeviceToHost, stream) != cudaSuccess ||
            cudaStreamSynchronize(stream) != cudaSuccess) {
            (void)cudaGetLastError();
            st = LIBSCAN_ERROR_CUDA;
            break;
        }
        for (size_t i = 0; i < k; ++i) {
            if (h[i] > count || (done + i > 0 && h[i] < prev)) {
                st = LIBSCAN_ERROR_INVALID_ARGUMENT;
                break;
            }
            prev = h[i];
        }
    }
    free(h);
    return st;
}

static libscan_status_t segmented(libscan__seg_call_t *c, const libscan_segscan_opts_t *opts, cudaStream_t stream,
                                  size_t extent /* elements spanned by in/out */) {
    if (libscan_dtype_size(c->dtype) == 0) return LIBSCAN_ERROR_INVALID_DTYPE;
    if (c->op != LIBSCAN_OP_SUM && c->op != LIBSCAN_OP_MIN && c->op != LIBSCAN_OP_MAX) return LIBSCAN_ERROR_INVALID_OP;
    static const libscan_segscan_opts_t defaults = LIBSCAN_SEGSCAN_OPTS_INIT;
    if (!opts) opts = &defaults;
    const size_t n = c->count, esize = libscan_dtype_size(c->dtype);
    if (n > 0 && (!c->in || !c->out)) return LIBSCAN_ERROR_NULL_POINTER;
    if (c->mode == LIBSCAN_SEGMENTS_FLAGS && n > 0 && !c->flags) return LIBSCAN_ERROR_NULL_POINTER;
    if (c->mode == LIBSCAN_SEGMENTS_OFFSETS) {
        if (!c->offsets) return LIBSCAN_ERROR_NULL_POINTER;
        if (c->num_segments == 0 && n > 0) return LIBSCAN_ERROR_INVALID_ARGUMENT;
        if (c->num_segments >= LIBSCAN_MAX_COUNT) return LIBSCAN_ERROR_TOO_LARGE;
    }
    if (!opts->d_temp && opts->temp_bytes) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    /* Segment numbers are 31-bit: only per-segment initial values need them. */
    if (opts->d_seg_init) {
        size_t segs = c->mode == LIBSCAN_SEGMENTS_FLAGS ? n : c->mode == LIBSCAN_SEGMENTS_ROWS ? (c->row_len ? n / c->row_len : 0) : c->num_segments;
        if (segs >= SEG_ID_LIMIT) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    }
    const size_t bytes = extent * esize;
    const void *aligned_ptrs[3] = {n ? c->in : NULL, n ? c->out : NULL, opts->d_seg_init};
    for (int i = 0; i < 3; ++i)
        if (aligned_ptrs[i] && (uintptr_t)aligned_ptrs[i] % esize) return LIBSCAN_ERROR_INVALID_POINTER;
    if (c->offsets && (uintptr_t)c->offsets % sizeof(uint64_t)) return LIBSCAN_ERROR_INVALID_POINTER;

    const size_t flag_bytes = c->mode == LIBSCAN_SEGMENTS_FLAGS ? n : 0;
    const size_t off_bytes = c->mode == LIBSCAN_SEGMENTS_OFFSETS ? (c->num_segments + 1) * sizeof(uint64_t) : 0;
    /* With head flags the number of segments is not known here: only the
     * first value is checked for overlap (the rest is the caller's contract). */
    const size_t init_segs = c->mode == LIBSCAN_SEGMENTS_FLAGS ? (n ? 1 : 0) : c->mode == LIBSCAN_SEGMENTS_ROWS ? (c->row_len ? n / c->row_len : 0) : c->num_segments;
    const size_t init_bytes = opts->d_seg_init ? init_segs * esize : 0;
    if (c->in != c->out && libscan_ranges_overlap(c->in, bytes, c->out, bytes)) return LIBSCAN_ERROR_OVERLAP;
    if (libscan_ranges_overlap(c->flags, flag_bytes, c->out, bytes) || libscan_ranges_overlap(c->offsets, off_bytes, c->out, bytes) ||
        libscan_ranges_overlap(opts->d_seg_init, init_bytes, c->out, bytes))
        return LIBSCAN_ERROR_OVERLAP;

    size_t need = 0;
    (void)libscan_segmented_temp_bytes(n, c->dtype, c->mode, &need);
    if (opts->d_temp) {
        if (opts->temp_bytes < need) return LIBSCAN_ERROR_TEMP_TOO_SMALL;
        const void *others[5] = {c->in, c->out, c->flags, c->offsets, opts->d_seg_init};
        const size_t sizes[5] = {bytes, bytes, flag_bytes, off_bytes, init_bytes};
        for (int i = 0; i < 5; ++i)
            if (others[i] && libscan_ranges_overlap(opts->d_temp, opts->temp_bytes, others[i], sizes[i]))
                return LIBSCAN_ERROR_OVERLAP;
    }
    /* Rows that the row kernels take need no temp: caller temp is then
     * checked for size and overlaps only, and nothing is allocated. */
    const bool uses_temp = need && libscan__seg_uses_temp(c);
    const void *ptrs[6] = {n ? c->in : NULL, n && c->out != c->in ? c->out : NULL, n ? c->flags : NULL,
                           c->offsets, opts->d_seg_init, uses_temp ? opts->d_temp : NULL};
    for (int i = 0; i < 6; ++i) {
        if (!ptrs[i]) continue;
        libscan_status_t st = libscan_check_device_pointer(ptrs[i]);
        if (st != LIBSCAN_SUCCESS) return st;
    }
    if (c->mode == LIBSCAN_SEGMENTS_OFFSETS && !opts->trust_offsets) {
        libscan_status_t st = check_offsets(c->offsets, c->num_segments, n, stream);
        if (st != LIBSCAN_SUCCESS) return st;
    }
    if (n == 0) return LIBSCAN_SUCCESS;

    c->seg_init = opts->d_seg_init;
    libscan_temp_t t;
    libscan_status_t st = libscan_temp_acquire(opts->d_temp, opts->temp_bytes, uses_temp ? need : 0, stream, &t);
    if (st != LIBSCAN_SUCCESS) return st;
    c->temp = t.ptr;
    c->temp_bytes = t.bytes;
    cudaError_t e = libscan__seg_launch(c, stream);
    if (e != cudaSuccess) (void)cudaGetLastError();
    const libscan_status_t released = libscan_temp_release(&t, stream);
    return e != cudaSuccess ? LIBSCAN_ERROR_CUDA : released;
}

static libscan_status_t flags_scan(const void *d_in, void *d_out, size_t count, const unsigned char *d_flags,
                                   libscan_dtype_t dtype, libscan_op_t op, const libscan_segscan_opts_t *opts,
                                   cudaStream_t stream, bool exclusive) {
    if (count > LIBSCAN_MAX_COUNT) return LIBSCAN_ERROR_TOO_LARGE;
    libscan__seg_call_t c;
    memset(&c, 0, sizeof c);
    c.in = d_in, c.out = d_out, c.count = count, c.dtype = dtype, c.op = op, c.exclusive = exclusive;
    c.mode = LIBSCAN_SEGMENTS_FLAGS;
    c.flags = d_flags;
    return segmented(&c, opts, stream, count);
}

static libscan_status_t offsets_scan(const void *d_in, void *d_out, size_t count, const uint64_t *d_offsets,
                                     size_t num_segments, libscan_dtype_t dtype, libscan_op_t op,
                                     const libscan_segscan_opts_t *opts, cudaStream_t stream, bool exclusive) {
    if (count > LIBSCAN_MAX_COUNT) return LIBSCAN_ERROR_TOO_LARGE;
    libscan__seg_call_t c;
    memset(&c, 0, sizeof c);
    c.in = d_in, c.out = d_out, c.count = count, c.dtype = dtype, c.op = op, c.exclusive = exclusive;
    c.mode = LIBSCAN_SEGMENTS_OFFSETS;
    c.offsets = d_offsets;
    c.num_segments = num_segments;
    return segmented(&c, opts, stream, count);
}

static libscan_status_t rows_scan(const void *d_in, void *d_out, size_t rows, size_t row_len, size_t pitch,
                                  libscan_dtype_t dtype, libscan_op_t op, const libscan_segscan_opts_t *opts,
                                  cudaStream_t stream, bool exclusive) {
    if (pitch < row_len) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (rows && pitch > LIBSCAN_MAX_COUNT / rows) return LIBSCAN_ERROR_TOO_LARGE;
    libscan__seg_call_t c;
    memset(&c, 0, sizeof c);
    c.in = d_in, c.out = d_out, c.count = rows * row_len, c.dtype = dtype, c.op = op, c.exclusive = exclusive;
    c.mode = LIBSCAN_SEGMENTS_ROWS;
    c.row_len = row_len;
    c.pitch = pitch;
    return segmented(&c, opts, stream, rows && row_len ? (rows - 1) * pitch + row_len : 0);
}

libscan_status_t libscan_segmented_inclusive_scan(const void *d_in, void *d_out, size_t count,
                                                  const unsigned char *d_flags, libscan_dtype_t dtype, libscan_op_t op,
                                                  const libscan_segscan_opts_t *opts, cudaStream_t stream) {
    return flags_scan(d_in, d_out, count, d_flags, dtype, op, opts, stream, false);
}
libscan_status_t libscan_segmented_exclusive_scan(const void *d_in, void *d_out, size_t count,
                                                  const unsigned char *d_flags, libscan_dtype_t dtype, libscan_op_t op,
                                                  const libscan_segscan_opts_t *opts, cudaStream_t stream) {
    return flags_scan(d_in, d_out, count, d_flags, dtype, op, opts, stream, true);
}
libscan_status_t libscan_segmented_inclusive_scan_offsets(const void *d_in, void *d_out, size_t count,
                                                          const uint64_t *d_offsets, size_t num_segments,
                                                          libscan_dtype_t dtype, libscan_op_t op,
                                                          const libscan_segscan_opts_t *opts, cudaStream_t stream) {
    return offsets_scan(d_in, d_out, count, d_offsets, num_segments, dtype, op, opts, stream, false);
}
libscan_status_t libscan_segmented_exclusive_scan_offsets(const void *d_in, void *d_out, size_t count,
                                                          const uint64_t *d_offsets, size_t num_segments,
                                                          libscan_dtype_t dtype, libscan_op_t op,
                                                          const libscan_segscan_opts_t *opts, cudaStream_t stream) {
    return offsets_scan(d_in, d_out, count, d_offsets, num_segments, dtype, op, opts, stream, true);
}
libscan_status_t libscan_inclusive_scan_rows(const void *d_in, void *d_out, size_t rows, size_t row_len, size_t pitch,
                                             libscan_dtype_t dtype, libscan_op_t op,
                                             const libscan_segscan_opts_t *opts, cudaStream_t stream) {
    return rows_scan(d_in, d_out, rows, row_len, pitch, dtype, op, opts, stream, false);
}
libscan_status_t libscan_exclusive_scan_rows(const void *d_in, void *d_out, size_t rows, size_t row_len, size_t pitch,
                                             libscan_dtype_t dtype, libscan_op_t op,
                                             const libscan_segscan_opts_t *opts, cudaStream_t stream) {
    return rows_scan(d_in, d_out, rows, row_len, pitch, dtype, op, opts, stream, true);
}
