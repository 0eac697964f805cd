/* compact_api.c -- the public entry points of compact.h: check what only
 * compaction knows (dtype, predicate, NULLs, count), describe the call's
 * buffers, and hand it to the one entry path (core/entry.h), which checks
 * the rest, takes temp (the caller's or the temp cache's) and launches the
 * kernels of compact_launch_*.cu. The CPU functions share the same checks
 * and run compact_cpu.c. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/entry.h"
#include "compact_internal.h"

static const libscan_compact_opts_t default_opts = LIBSCAN_COMPACT_OPTS_INIT;

static bool is_float(libscan_dtype_t d) { return d == LIBSCAN_F32 || d == LIBSCAN_F64; }
static bool is_signed_int(libscan_dtype_t d) { return d == LIBSCAN_I32 || d == LIBSCAN_I64; }

const char *libscan_pred_name(libscan_pred_kind_t kind) {
    switch (kind) {
    case LIBSCAN_PRED_GT: return "gt";
    case LIBSCAN_PRED_GE: return "ge";
    case LIBSCAN_PRED_LT: return "lt";
    case LIBSCAN_PRED_LE: return "le";
    case LIBSCAN_PRED_EQ: return "eq";
    case LIBSCAN_PRED_NE: return "ne";
    case LIBSCAN_PRED_RANGE: return "range";
    case LIBSCAN_PRED_NONZERO: return "nonzero";
    case LIBSCAN_PRED_FINITE: return "finite";
    case LIBSCAN_PRED_ISNAN: return "isnan";
    }
    return "unknown";
}

libscan_status_t libscan_pred_check(const libscan_pred_t *pred, libscan_dtype_t dtype) {
    if ((unsigned)dtype > (unsigned)LIBSCAN_F64) return LIBSCAN_ERROR_INVALID_DTYPE;
    if (!pred) return LIBSCAN_ERROR_NULL_POINTER;
    const int kind = (int)pred->kind;
    if (kind < (int)LIBSCAN_PRED_GT || kind > (int)LIBSCAN_PRED_ISNAN) return LIBSCAN_ERROR_INVALID_OP;
    const bool uses_value = kind <= (int)LIBSCAN_PRED_RANGE;
    if (!uses_value) return LIBSCAN_SUCCESS;
    if (is_float(dtype)) {
        if (isnan(pred->value.f)) return LIBSCAN_ERROR_INVALID_ARGUMENT;
        if (kind == LIBSCAN_PRED_RANGE && (isnan(pred->hi.f) || pred->value.f > pred->hi.f))
            return LIBSCAN_ERROR_INVALID_ARGUMENT;
    } else if (kind == LIBSCAN_PRED_RANGE) {
        if (is_signed_int(dtype) ? pred->value.i > pred->hi.i : pred->value.u > pred->hi.u)
            return LIBSCAN_ERROR_INVALID_ARGUMENT;
    }
    return LIBSCAN_SUCCESS;
}

libscan_status_t libscan_compact_temp_bytes(size_t count, libscan_dtype_t dtype, size_t *temp_bytes) {
    if (!temp_bytes) return LIBSCAN_ERROR_NULL_POINTER;
    if ((unsigned)dtype > (unsigned)LIBSCAN_F64) return LIBSCAN_ERROR_INVALID_DTYPE;
    if (count > LIBSCAN_MAX_COUNT) return LIBSCAN_ERROR_TOO_LARGE;
    size_t need = 0;
    switch (dtype) {
    case LIBSCAN_U32: need = libscan__compact_temp_bytes_u32(count); break;
    case LIBSCAN_I32: need = libscan__compact_temp_bytes_i32(count); break;
    case LIBSCAN_U64: need = libscan__compact_temp_bytes_u64(count); break;
    case LIBSCAN_I64: need = libscan__compact_temp_bytes_i64(count); break;
    case LIBSCAN_F32: need = libscan__compact_temp_bytes_f32(count); break;
    case LIBSCAN_F64: need = libscan__compact_temp_bytes_f64(count); break;
    default: return LIBSCAN_ERROR_INVALID_DTYPE;
    }
    *temp_bytes = libscan__with_slack(need);
    return LIBSCAN_SUCCESS;
}

/* Checks shared by the GPU and CPU paths: enums, predicate, NULLs, count.
 * `partition` says whether `rejected` is required. */
static libscan_status_t check_common(const libscan__compact_call_t *c, bool partition, const libscan_pred_t *pred) {
    if ((unsigned)c->dtype > (unsigned)LIBSCAN_F64) return LIBSCAN_ERROR_INVALID_DTYPE;
    if (c->source == LIBSCAN__COMPACT_PRED) {
        libscan_status_t st = libscan_pred_check(pred, c->dtype);
        if (st != LIBSCAN_SUCCESS) return st;
    }
    if (c->count > LIBSCAN_MAX_COUNT) return LIBSCAN_ERROR_TOO_LARGE;
    if (!c->num) return LIBSCAN_ERROR_NULL_POINTER;
    if (c->count > 0) {
        if (!c->in || !c->out) return LIBSCAN_ERROR_NULL_POINTER;
        if (partition && !c->rejected) return LIBSCAN_ERROR_NULL_POINTER;
        if (c->source == LIBSCAN__COMPACT_FLAGS && !c->flags) return LIBSCAN_ERROR_NULL_POINTER;
    }
    return LIBSCAN_SUCCESS;
}

static cudaError_t launch(void *ctx, void *temp, size_t temp_bytes, cudaStream_t stream) {
    libscan__compact_call_t *c = ctx;
    c->temp = temp;
    c->temp_bytes = temp_bytes;
    switch (c->dtype) {
    case LIBSCAN_U32: return libscan__compact_launch_u32(c, stream);
    case LIBSCAN_I32: return libscan__compact_launch_i32(c, stream);
    case LIBSCAN_U64: return libscan__compact_launch_u64(c, stream);
    case LIBSCAN_I64: return libscan__compact_launch_i64(c, stream);
    case LIBSCAN_F32: return libscan__compact_launch_f32(c, stream);
    case LIBSCAN_F64: return libscan__compact_launch_f64(c, stream);
    default: return cudaErrorInvalidValue; /* refused before */
    }
}

static libscan_status_t run_gpu(libscan__compact_call_t c, bool partition, const libscan_pred_t *pred,
                                const libscan_compact_opts_t *opts, cudaStream_t stream) {
    if (!opts) opts = &default_opts;
    libscan_status_t st = check_common(&c, partition, pred);
    if (st != LIBSCAN_SUCCESS) return st;
    if (c.source == LIBSCAN__COMPACT_PRED) c.pred = *pred;
    c.indices = opts->indices != 0;
    if (!partition) c.rejected = NULL;
    if (c.source != LIBSCAN__COMPACT_FLAGS) c.flags = NULL;
    if (c.count == 0) { /* only the count is written */
        c.in = NULL;
        c.out = NULL;
        c.rejected = NULL;
        c.flags = NULL;
    }

    const size_t esize = libscan_dtype_size(c.dtype);
    const size_t osize = c.indices ? sizeof(uint64_t) : esize;
    size_t need = 0;
    (void)libscan_compact_temp_bytes(c.count, c.dtype, &need);
    libscan__call_t e;
    libscan__call_init(&e, opts->d_temp, opts->temp_bytes, need);
    const int in = libscan__call_buf(&e, c.in, c.count * esize, esize, 0, -1);
    libscan__call_buf(&e, c.out, c.count * osize, osize, 1, c.indices ? -1 : in); /* values in place */
    libscan__call_buf(&e, c.rejected, c.count * osize, osize, 1, -1);
    libscan__call_buf(&e, c.flags, c.count, 1, 0, -1);
    libscan__call_buf(&e, c.num, sizeof(size_t), sizeof(size_t), 1, -1);
    e.launch = launch;
    e.ctx = &c;
    return libscan__enter(&e, stream);
}

static libscan__compact_call_t make_call(const void *in, const unsigned char *flags, void *out, void *rejected, size_t *num,
                                 size_t count, libscan_dtype_t dtype, libscan__compact_source_t source) {
    libscan__compact_call_t c;
    memset(&c, 0, sizeof c);
    c.in = in;
    c.flags = flags;
    c.out = out;
    c.rejected = rejected;
    c.num = num;
    c.count = count;
    c.dtype = dtype;
    c.source = source;
    return c;
}

libscan_status_t libscan_select_if(const void *d_in, void *d_out, size_t *d_num_selected, size_t count,
                                   libscan_dtype_t dtype, const libscan_pred_t *pred, const libscan_compact_opts_t *opts,
                                   cudaStream_t stream) {
    return run_gpu(make_call(d_in, NULL, d_out, NULL, d_num_selected, count, dtype, LIBSCAN__COMPACT_PRED), false, pred,
                   opts, stream);
}

libscan_status_t libscan_select_flagged(const void *d_in, const unsigned char *d_flags, void *d_out,
                                        size_t *d_num_selected, size_t count, libscan_dtype_t dtype,
                                        const libscan_compact_opts_t *opts, cudaStream_t stream) {
    return run_gpu(make_call(d_in, d_flags, d_out, NULL, d_num_selected, count, dtype, LIBSCAN__COMPACT_FLAGS), false,
                   NULL, opts, stream);
}

libscan_status_t libscan_partition_if(const void *d_in, void *d_out, void *d_rejected, size_t *d_num_selected,
                                      size_t count, libscan_dtype_t dtype, const libscan_pred_t *pred,
                                      const libscan_compact_opts_t *opts, cudaStream_t stream) {
    return run_gpu(make_call(d_in, NULL, d_out, d_rejected, d_num_selected, count, dtype, LIBSCAN__COMPACT_PRED), true,
                   pred, opts, stream);
}

libscan_status_t libscan_partition_flagged(const void *d_in, const unsigned char *d_flags, void *d_out,
                                           void *d_rejected, size_t *d_num_selected, size_t count,
                                           libscan_dtype_t dtype, const libscan_compact_opts_t *opts, cudaStream_t stream) {
    return run_gpu(make_call(d_in, d_flags, d_out, d_rejected, d_num_selected, count, dtype, LIBSCAN__COMPACT_FLAGS), true,
                   NULL, opts, stream);
}

libscan_status_t libscan_unique(const void *d_in, void *d_out, size_t *d_num_selected, size_t count,
                                libscan_dtype_t dtype, const libscan_compact_opts_t *opts, cudaStream_t stream) {
    return run_gpu(make_call(d_in, NULL, d_out, NULL, d_num_selected, count, dtype, LIBSCAN__COMPACT_UNIQUE), false, NULL,
                   opts, stream);
}

typedef struct count_ctx {
    const size_t *d_num;
    size_t value;
} count_ctx_t;

/* Waiting for a stream that is being captured would end its capture with an
 * error: refuse it before anything is enqueued, and leave the capture as it
 * was. */
static libscan_status_t count_plan(void *ctx, cudaStream_t stream, int *uses_temp) {
    (void)ctx;
    *uses_temp = 0;
    enum cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    const cudaError_t e = cudaStreamIsCapturing(stream, &capture);
    if (e != cudaSuccess) return libscan__cuda_status(e);
    return capture == cudaStreamCaptureStatusNone ? LIBSCAN_SUCCESS : LIBSCAN_ERROR_INVALID_ARGUMENT;
}

/* cudaMemcpyDefault: the count may live in managed or mapped host memory as
 * well as in device memory; the runtime tells them apart by address. */
static cudaError_t copy_count(void *ctx, void *temp, size_t temp_bytes, cudaStream_t stream) {
    (void)temp, (void)temp_bytes;
    count_ctx_t *c = ctx;
    cudaError_t e = cudaMemcpyAsync(&c->value, c->d_num, sizeof c->value, cudaMemcpyDefault, stream);
    return e == cudaSuccess ? cudaStreamSynchronize(stream) : e;
}

libscan_status_t libscan_count_to_host(const size_t *d_num_selected, size_t *count, cudaStream_t stream) {
    if (!d_num_selected || !count) return LIBSCAN_ERROR_NULL_POINTER;
    count_ctx_t ctx = {d_num_selected, 0};
    libscan__call_t e;
    libscan__call_init(&e, NULL, 0, 0);
    libscan__call_buf(&e, d_num_selected, sizeof(size_t), sizeof(size_t), 0, -1);
    e.plan = count_plan;
    e.launch = copy_count;
    e.ctx = &ctx;
    libscan_status_t st = libscan__enter(&e, stream);
    if (st == LIBSCAN_SUCCESS) *count = ctx.value;
    return st;
}

/* ---- CPU ------------------------------------------------------------------ */

static libscan_status_t run_cpu(libscan__compact_call_t c, bool partition, const libscan_pred_t *pred,
                                const libscan_compact_opts_t *opts) {
    if (!opts) opts = &default_opts;
    libscan_status_t st = check_common(&c, partition, pred);
    if (st != LIBSCAN_SUCCESS) return st;
    if (c.source == LIBSCAN__COMPACT_PRED) c.pred = *pred;
    c.indices = opts->indices != 0;
    if (!partition) c.rejected = NULL;
    if (c.count > 0) {
        /* In place only for values; the rejected buffer is always separate. */
        if ((c.indices && c.out == c.in) || (c.rejected && (c.rejected == c.in || c.rejected == c.out)))
            return LIBSCAN_ERROR_OVERLAP;
    }
    libscan__compact_cpu_run(&c);
    return LIBSCAN_SUCCESS;
}

libscan_status_t libscan_cpu_select_if(const void *in, void *out, size_t *num_selected, size_t count,
                                       libscan_dtype_t dtype, const libscan_pred_t *pred,
                                       const libscan_compact_opts_t *opts) {
    return run_cpu(make_call(in, NULL, out, NULL, num_selected, count, dtype, LIBSCAN__COMPACT_PRED), false, pred, opts);
}

libscan_status_t libscan_cpu_select_flagged(const void *in, const unsigned char *flags, void *out,
                                            size_t *num_selected, size_t count, libscan_dtype_t dtype,
                                            const libscan_compact_opts_t *opts) {
    return run_cpu(make_call(in, flags, out, NULL, num_selected, count, dtype, LIBSCAN__COMPACT_FLAGS), false, NULL, opts);
}

libscan_status_t libscan_cpu_partition_if(const void *in, void *out, void *rejected, size_t *num_selected,
                                          size_t count, libscan_dtype_t dtype, const libscan_pred_t *pred,
                                          const libscan_compact_opts_t *opts) {
    return run_cpu(make_call(in, NULL, out, rejected, num_selected, count, dtype, LIBSCAN__COMPACT_PRED), true, pred, opts);
}

libscan_status_t libscan_cpu_partition_flagged(const void *in, const unsigned char *flags, void *out,
                                               void *rejected, size_t *num_selected, size_t count,
                                               libscan_dtype_t dtype, const libscan_compact_opts_t *opts) {
    return run_cpu(make_call(in, flags, out, rejected, num_selected, count, dtype, LIBSCAN__COMPACT_FLAGS), true, NULL,
                   opts);
}

libscan_status_t libscan_cpu_unique(const void *in, void *out, size_t *num_selected, size_t count,
                                    libscan_dtype_t dtype, const libscan_compact_opts_t *opts) {
    return run_cpu(make_call(in, NULL, out, NULL, num_selected, count, dtype, LIBSCAN__COMPACT_UNIQUE), false, NULL, opts);
}
