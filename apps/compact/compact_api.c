/* compact_api.c -- the public entry points of compact.h: check every
 * argument, find temp storage, then hand one validated call to the GPU
 * launches (compact_launch_*.cu) or the CPU path (compact_cpu.c). Nothing is
 * launched unless every check passed. Conventions follow libscan's
 * scan_api.c. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "compact_internal.h"

static const compact_opts_t default_opts = COMPACT_OPTS_INIT;

static bool is_float(libscan_dtype_t d) { return d == LIBSCAN_F32 || d == LIBSCAN_F64; }
static bool is_signed_int(libscan_dtype_t d) { return d == LIBSCAN_I32 || d == LIBSCAN_I64; }

const char *compact_pred_name(compact_pred_kind_t kind) {
    switch (kind) {
    case COMPACT_GT: return "gt";
    case COMPACT_GE: return "ge";
    case COMPACT_LT: return "lt";
    case COMPACT_LE: return "le";
    case COMPACT_EQ: return "eq";
    case COMPACT_NE: return "ne";
    case COMPACT_RANGE: return "range";
    case COMPACT_NONZERO: return "nonzero";
    case COMPACT_FINITE: return "finite";
    case COMPACT_ISNAN: return "isnan";
    }
    return "unknown";
}

libscan_status_t compact_pred_check(const compact_pred_t *pred, libscan_dtype_t dtype) {
    if (libscan_dtype_size(dtype) == 0) return LIBSCAN_ERROR_INVALID_DTYPE;
    if (!pred) return LIBSCAN_ERROR_NULL_POINTER;
    const int kind = (int)pred->kind;
    if (kind < (int)COMPACT_GT || kind > (int)COMPACT_ISNAN) return LIBSCAN_ERROR_INVALID_OP;
    const bool uses_value = kind <= (int)COMPACT_RANGE;
    if (!uses_value) return LIBSCAN_SUCCESS;
    if (is_float(dtype)) {
        if (isnan(pred->value.f)) return LIBSCAN_ERROR_INVALID_ARGUMENT;
        if (kind == COMPACT_RANGE && (isnan(pred->hi.f) || pred->value.f > pred->hi.f))
            return LIBSCAN_ERROR_INVALID_ARGUMENT;
    } else if (kind == COMPACT_RANGE) {
        if (is_signed_int(dtype) ? pred->value.i > pred->hi.i : pred->value.u > pred->hi.u)
            return LIBSCAN_ERROR_INVALID_ARGUMENT;
    }
    return LIBSCAN_SUCCESS;
}

libscan_status_t compact_temp_bytes(size_t count, libscan_dtype_t dtype, size_t *temp_bytes) {
    if (!temp_bytes) return LIBSCAN_ERROR_NULL_POINTER;
    if (libscan_dtype_size(dtype) == 0) return LIBSCAN_ERROR_INVALID_DTYPE;
    if (count > LIBSCAN_MAX_COUNT) return LIBSCAN_ERROR_TOO_LARGE;
    size_t need = 0;
    switch (dtype) {
    case LIBSCAN_U32: need = compact__temp_bytes_u32(count); break;
    case LIBSCAN_I32: need = compact__temp_bytes_i32(count); break;
    case LIBSCAN_U64: need = compact__temp_bytes_u64(count); break;
    case LIBSCAN_I64: need = compact__temp_bytes_i64(count); break;
    case LIBSCAN_F32: need = compact__temp_bytes_f32(count); break;
    case LIBSCAN_F64: need = compact__temp_bytes_f64(count); break;
    }
    *temp_bytes = need ? need + LIBSCAN_TEMP_ALIGNMENT : 0; /* any caller pointer can be aligned up */
    return LIBSCAN_SUCCESS;
}

/* Checks shared by the GPU and CPU paths: enums, predicate, NULLs, count.
 * `partition` says whether `rejected` is required. */
static libscan_status_t check_common(const compact__call_t *c, bool partition, const compact_pred_t *pred) {
    if (libscan_dtype_size(c->dtype) == 0) return LIBSCAN_ERROR_INVALID_DTYPE;
    if (c->source == COMPACT__PRED) {
        libscan_status_t st = compact_pred_check(pred, c->dtype);
        if (st != LIBSCAN_SUCCESS) return st;
    }
    if (c->count > LIBSCAN_MAX_COUNT) return LIBSCAN_ERROR_TOO_LARGE;
    if (!c->num) return LIBSCAN_ERROR_NULL_POINTER;
    if (c->count > 0) {
        if (!c->in || !c->out) return LIBSCAN_ERROR_NULL_POINTER;
        if (partition && !c->rejected) return LIBSCAN_ERROR_NULL_POINTER;
        if (c->source == COMPACT__FLAGS && !c->flags) return LIBSCAN_ERROR_NULL_POINTER;
    }
    return LIBSCAN_SUCCESS;
}

static libscan_status_t run_gpu(compact__call_t c, bool partition, const compact_pred_t *pred,
                                const compact_opts_t *opts, cudaStream_t stream) {
    if (!opts) opts = &default_opts;
    libscan_status_t st = check_common(&c, partition, pred);
    if (st != LIBSCAN_SUCCESS) return st;
    if (!opts->d_temp && opts->temp_bytes) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (c.source == COMPACT__PRED) c.pred = *pred;
    c.indices = opts->indices != 0;
    if (!partition) c.rejected = NULL;
    if (c.source != COMPACT__FLAGS) c.flags = NULL;
    if (c.count == 0) { /* only the count is written */
        c.in = NULL;
        c.out = NULL;
        c.rejected = NULL;
        c.flags = NULL;
    }

    const size_t esize = libscan_dtype_size(c.dtype);
    const size_t osize = c.indices ? sizeof(uint64_t) : esize;
    const size_t in_bytes = c.count * esize, out_bytes = c.count * osize;
    if ((c.in && (uintptr_t)c.in % esize) || (c.out && (uintptr_t)c.out % osize) ||
        (c.rejected && (uintptr_t)c.rejected % osize) || (uintptr_t)c.num % sizeof(size_t))
        return LIBSCAN_ERROR_INVALID_POINTER;

    /* Only values may be compacted in place (d_out == d_in). */
    if (libscan_ranges_overlap(c.in, in_bytes, c.out, out_bytes) && (c.in != c.out || c.indices))
        return LIBSCAN_ERROR_OVERLAP;
    if (libscan_ranges_overlap(c.rejected, out_bytes, c.in, in_bytes) ||
        libscan_ranges_overlap(c.rejected, out_bytes, c.out, out_bytes) ||
        libscan_ranges_overlap(c.flags, c.count, c.out, out_bytes) ||
        libscan_ranges_overlap(c.flags, c.count, c.rejected, out_bytes))
        return LIBSCAN_ERROR_OVERLAP;
    const void *data[4] = {c.in, c.out, c.rejected, c.flags};
    const size_t sizes[4] = {in_bytes, out_bytes, out_bytes, c.count};
    for (int i = 0; i < 4; ++i)
        if (libscan_ranges_overlap(c.num, sizeof(size_t), data[i], sizes[i])) return LIBSCAN_ERROR_OVERLAP;

    size_t need = 0;
    (void)compact_temp_bytes(c.count, c.dtype, &need);
    if (opts->d_temp) {
        if (opts->temp_bytes < need) return LIBSCAN_ERROR_TEMP_TOO_SMALL;
        for (int i = 0; i < 4; ++i)
            if (libscan_ranges_overlap(opts->d_temp, opts->temp_bytes, data[i], sizes[i]))
                return LIBSCAN_ERROR_OVERLAP;
        if (libscan_ranges_overlap(opts->d_temp, opts->temp_bytes, c.num, sizeof(size_t)))
            return LIBSCAN_ERROR_OVERLAP;
    }

    for (int i = 0; i < 4; ++i) {
        if (!data[i]) continue;
        st = libscan_check_device_pointer(data[i]);
        if (st != LIBSCAN_SUCCESS) return st;
    }
    st = libscan_check_device_pointer(c.num);
    if (st != LIBSCAN_SUCCESS) return st;
    if (opts->d_temp && need) {
        st = libscan_check_device_pointer(opts->d_temp);
        if (st != LIBSCAN_SUCCESS) return st;
    }

    libscan_temp_t t;
    st = libscan_temp_acquire(opts->d_temp, opts->temp_bytes, need, stream, &t);
    if (st != LIBSCAN_SUCCESS) return st;
    c.temp = t.ptr;
    c.temp_bytes = t.bytes;
    cudaError_t e = cudaErrorInvalidValue;
    switch (c.dtype) {
    case LIBSCAN_U32: e = compact__launch_u32(&c, stream); break;
    case LIBSCAN_I32: e = compact__launch_i32(&c, stream); break;
    case LIBSCAN_U64: e = compact__launch_u64(&c, stream); break;
    case LIBSCAN_I64: e = compact__launch_i64(&c, stream); break;
    case LIBSCAN_F32: e = compact__launch_f32(&c, stream); break;
    case LIBSCAN_F64: e = compact__launch_f64(&c, stream); break;
    }
    if (e != cudaSuccess) (void)cudaGetLastError();
    const libscan_status_t released = libscan_temp_release(&t, stream);
    return e != cudaSuccess ? LIBSCAN_ERROR_CUDA : released;
}

static compact__call_t make_call(const void *in, const unsigned char *flags, void *out, void *rejected, size_t *num,
                                 size_t count, libscan_dtype_t dtype, compact__source_t source) {
    compact__call_t c;
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

libscan_status_t compact_select_if(const void *d_in, void *d_out, size_t *d_num_selected, size_t count,
                                   libscan_dtype_t dtype, const compact_pred_t *pred, const compact_opts_t *opts,
                                   cudaStream_t stream) {
    return run_gpu(make_call(d_in, NULL, d_out, NULL, d_num_selected, count, dtype, COMPACT__PRED), false, pred,
                   opts, stream);
}

libscan_status_t compact_select_flagged(const void *d_in, const unsigned char *d_flags, void *d_out,
                                        size_t *d_num_selected, size_t count, libscan_dtype_t dtype,
                                        const compact_opts_t *opts, cudaStream_t stream) {
    return run_gpu(make_call(d_in, d_flags, d_out, NULL, d_num_selected, count, dtype, COMPACT__FLAGS), false,
                   NULL, opts, stream);
}

libscan_status_t compact_partition_if(const void *d_in, void *d_out, void *d_rejected, size_t *d_num_selected,
                                      size_t count, libscan_dtype_t dtype, const compact_pred_t *pred,
                                      const compact_opts_t *opts, cudaStream_t stream) {
    return run_gpu(make_call(d_in, NULL, d_out, d_rejected, d_num_selected, count, dtype, COMPACT__PRED), true,
                   pred, opts, stream);
}

libscan_status_t compact_partition_flagged(const void *d_in, const unsigned char *d_flags, void *d_out,
                                           void *d_rejected, size_t *d_num_selected, size_t count,
                                           libscan_dtype_t dtype, const compact_opts_t *opts, cudaStream_t stream) {
    return run_gpu(make_call(d_in, d_flags, d_out, d_rejected, d_num_selected, count, dtype, COMPACT__FLAGS), true,
                   NULL, opts, stream);
}

libscan_status_t compact_unique(const void *d_in, void *d_out, size_t *d_num_selected, size_t count,
                                libscan_dtype_t dtype, const compact_opts_t *opts, cudaStream_t stream) {
    return run_gpu(make_call(d_in, NULL, d_out, NULL, d_num_selected, count, dtype, COMPACT__UNIQUE), false, NULL,
                   opts, stream);
}

libscan_status_t compact_count_to_host(const size_t *d_num_selected, size_t *count, cudaStream_t stream) {
    if (!d_num_selected || !count) return LIBSCAN_ERROR_NULL_POINTER;
    if ((uintptr_t)d_num_selected % sizeof(size_t)) return LIBSCAN_ERROR_INVALID_POINTER;
    libscan_status_t st = libscan_check_device_pointer(d_num_selected);
    if (st != LIBSCAN_SUCCESS) return st;
    size_t value = 0;
    cudaError_t e = cudaMemcpyAsync(&value, d_num_selected, sizeof value, cudaMemcpyDeviceToHost, stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return LIBSCAN_ERROR_CUDA;
    }
    *count = value;
    return LIBSCAN_SUCCESS;
}

/* ---- CPU ------------------------------------------------------------------ */

static libscan_status_t run_cpu(compact__call_t c, bool partition, const compact_pred_t *pred,
                                const compact_opts_t *opts) {
    if (!opts) opts = &default_opts;
    libscan_status_t st = check_common(&c, partition, pred);
    if (st != LIBSCAN_SUCCESS) return st;
    if (c.source == COMPACT__PRED) c.pred = *pred;
    c.indices = opts->indices != 0;
    if (!partition) c.rejected = NULL;
    if (c.count > 0) {
        /* In place only for values; the rejected buffer is always separate. */
        if ((c.indices && c.out == c.in) || (c.rejected && (c.rejected == c.in || c.rejected == c.out)))
            return LIBSCAN_ERROR_OVERLAP;
    }
    compact__cpu_run(&c);
    return LIBSCAN_SUCCESS;
}

libscan_status_t compact_cpu_select_if(const void *in, void *out, size_t *num_selected, size_t count,
                                       libscan_dtype_t dtype, const compact_pred_t *pred,
                                       const compact_opts_t *opts) {
    return run_cpu(make_call(in, NULL, out, NULL, num_selected, count, dtype, COMPACT__PRED), false, pred, opts);
}

libscan_status_t compact_cpu_select_flagged(const void *in, const unsigned char *flags, void *out,
                                            size_t *num_selected, size_t count, libscan_dtype_t dtype,
                                            const compact_opts_t *opts) {
    return run_cpu(make_call(in, flags, out, NULL, num_selected, count, dtype, COMPACT__FLAGS), false, NULL, opts);
}

libscan_status_t compact_cpu_partition_if(const void *in, void *out, void *rejected, size_t *num_selected,
                                          size_t count, libscan_dtype_t dtype, const compact_pred_t *pred,
                                          const compact_opts_t *opts) {
    return run_cpu(make_call(in, NULL, out, rejected, num_selected, count, dtype, COMPACT__PRED), true, pred, opts);
}

libscan_status_t compact_cpu_partition_flagged(const void *in, const unsigned char *flags, void *out,
                                               void *rejected, size_t *num_selected, size_t count,
                                               libscan_dtype_t dtype, const compact_opts_t *opts) {
    return run_cpu(make_call(in, flags, out, rejected, num_selected, count, dtype, COMPACT__FLAGS), true, NULL,
                   opts);
}

libscan_status_t compact_cpu_unique(const void *in, void *out, size_t *num_selected, size_t count,
                                    libscan_dtype_t dtype, const compact_opts_t *opts) {
    return run_cpu(make_call(in, NULL, out, NULL, num_selected, count, dtype, COMPACT__UNIQUE), false, NULL, opts);
}
