/* segmented_api.c -- the public segmented-scan entry points: check every
 * argument (reading the offsets back when the caller did not vouch for
 * them), find temp storage, then hand the call to segmented_launch.cu. */
#include <stdlib.h>
#include <string.h>
#include "core/entry.h"
#include "scan_internal.h"

#define SEG_ID_LIMIT ((size_t)1 << 31) /* segment numbers travel in 31 bits */

libscan_status_t libscan_segmented_temp_bytes(size_t count, libscan_dtype_t dtype, libscan_segments_t segments,
                                              size_t *temp_bytes) {
    if (!temp_bytes) return LIBSCAN_ERROR_NULL_POINTER;
    if ((unsigned)dtype > (unsigned)LIBSCAN_F64) return LIBSCAN_ERROR_INVALID_DTYPE;
    if (segments != LIBSCAN_SEGMENTS_FLAGS && segments != LIBSCAN_SEGMENTS_OFFSETS && segments != LIBSCAN_SEGMENTS_ROWS)
        return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (count > LIBSCAN_MAX_COUNT) return LIBSCAN_ERROR_TOO_LARGE;
    *temp_bytes = libscan__with_slack(libscan__seg_temp_bytes(count, dtype, segments));
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

typedef struct seg_ctx {
    libscan__seg_call_t call;
    int check_offsets;
} seg_ctx_t;

/* Untrusted offsets are read back once the pointers are known to be device
 * memory; rows that the row kernels take need no temp. */
static libscan_status_t plan(void *ctx, cudaStream_t stream, int *uses_temp) {
    seg_ctx_t *s = ctx;
    if (s->check_offsets) {
        libscan_status_t st = check_offsets(s->call.offsets, s->call.num_segments, s->call.count, stream);
        if (st != LIBSCAN_SUCCESS) return st;
    }
    *uses_temp = libscan__seg_uses_temp(&s->call);
    return LIBSCAN_SUCCESS;
}

static cudaError_t launch(void *ctx, void *temp, size_t temp_bytes, cudaStream_t stream) {
    seg_ctx_t *s = ctx;
    s->call.temp = temp;
    s->call.temp_bytes = temp_bytes;
    return libscan__seg_launch(&s->call, stream);
}

static libscan_status_t segmented(libscan__seg_call_t *c, const libscan_segscan_opts_t *opts, cudaStream_t stream,
                                  size_t extent /* elements spanned by in/out */) {
    libscan_status_t st = libscan__scan_check_enums(c->dtype, c->op);
    if (st != LIBSCAN_SUCCESS) return st;
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
    /* Segment numbers are 31-bit: only per-segment initial values need them. */
    if (opts->d_seg_init) {
        size_t segs = c->mode == LIBSCAN_SEGMENTS_FLAGS ? n : c->mode == LIBSCAN_SEGMENTS_ROWS ? (c->row_len ? n / c->row_len : 0) : c->num_segments;
        if (segs >= SEG_ID_LIMIT) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    }
    const size_t bytes = extent * esize;
    const size_t flag_bytes = c->mode == LIBSCAN_SEGMENTS_FLAGS ? n : 0;
    const size_t off_bytes = c->mode == LIBSCAN_SEGMENTS_OFFSETS ? (c->num_segments + 1) * sizeof(uint64_t) : 0;
    /* With head flags the number of segments is not known here: only the
     * first value is checked for overlap (the rest is the caller's contract). */
    const size_t init_segs = c->mode == LIBSCAN_SEGMENTS_FLAGS ? (n ? 1 : 0) : c->mode == LIBSCAN_SEGMENTS_ROWS ? (c->row_len ? n / c->row_len : 0) : c->num_segments;

    size_t need = 0;
    (void)libscan_segmented_temp_bytes(n, c->dtype, c->mode, &need);
    seg_ctx_t s;
    s.call = *c;
    s.call.seg_init = opts->d_seg_init;
    s.check_offsets = c->mode == LIBSCAN_SEGMENTS_OFFSETS && !opts->trust_offsets;
    libscan__call_t e;
    libscan__call_init(&e, opts->d_temp, opts->temp_bytes, need);
    const int in = libscan__call_buf(&e, n ? c->in : NULL, bytes, esize, 0, -1);
    libscan__call_buf(&e, n ? c->out : NULL, bytes, esize, 1, in);
    libscan__call_buf(&e, n ? c->flags : NULL, flag_bytes, 1, 0, -1);
    /* The offsets are checked even when empty: a host pointer is still refused. */
    libscan__call_buf(&e, c->offsets, off_bytes, sizeof(uint64_t), 0, -1);
    libscan__call_buf(&e, opts->d_seg_init, init_segs * esize, esize, 0, -1);
    e.empty = n == 0;
    e.plan = plan;
    e.launch = launch;
    e.ctx = &s;
    return libscan__enter(&e, stream);
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
