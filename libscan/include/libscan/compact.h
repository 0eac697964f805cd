/*
 * compact.h -- stream compaction on the GPU with libscan: select, partition
 * and unique, in one pass over the data (every element read once, every
 * output element written once), and the same operations on the CPU.
 *
 * Plain C99, usable from C and C++. Link `libscan::compact` (static). The
 * device templates behind it (any C++ functor as the predicate) are in
 * "libscan/cuda/compact.cuh".
 *
 * ---------------------------------------------------------------------------
 * Conventions (the same as libscan.h unless said here)
 * ---------------------------------------------------------------------------
 * Status   Every function returns a libscan_status_t (libscan.h).
 *          libscan_status_string() describes it. Arguments are checked
 *          before anything is launched; an error other than
 *          LIBSCAN_ERROR_CUDA means nothing was launched or written.
 * Streams  GPU functions enqueue their work on `stream` and return without
 *          waiting. The number of elements selected is written to device
 *          memory (d_num_selected, one size_t); only libscan_count_to_host()
 *          synchronises, and it says so.
 * Temp     Pass scratch memory through opts (size it with
 *          libscan_compact_temp_bytes()), or none and the library takes it with
 *          cudaMallocAsync/cudaFreeAsync on `stream`. With caller temp
 *          nothing is allocated (safe under CUDA graph capture).
 * Counts   size_t, up to LIBSCAN_MAX_COUNT (2^40) elements.
 * Pointers Device-accessible (see libscan.h), aligned to their element
 *          size; 16-byte aligned data is fastest.
 * Order    Every operation is stable: selected elements keep their input
 *          order, and so do rejected ones (partition).
 * Output   Values of the input's dtype, or with opts->indices the positions
 *          (uint64_t) of those elements in the input.
 * Types    Every libscan dtype: LIBSCAN_U32, I32, U64, I64, F32, F64.
 *
 * Predicates (libscan_pred_t). The value(s) are given in the element type's
 * domain, in the union member named by the dtype: `.u` for U32/U64, `.i` for
 * I32/I64, `.f` for F32/F64. Comparisons are exact: an element is widened
 * to 64 bits (integers) or to double (floats; exact for f32) and compared
 * with the value as it is, so integers beyond 2^53 compare exactly and a
 * u32 element compared with 2^40 is simply smaller. Floats compare by value
 * (IEEE): -0.0 equals +0.0, and a NaN element satisfies only NE and NONZERO
 * (and ISNAN).
 *   LIBSCAN_PRED_GT, GE, LT, LE, EQ, NE   x > v, x >= v, x < v, x <= v, x == v, x != v
 *   LIBSCAN_PRED_RANGE    lo <= x <= hi (both ends inclusive; lo = value, hi = hi)
 *   LIBSCAN_PRED_NONZERO  x != 0 (-0.0 is zero, NaN is not)
 *   LIBSCAN_PRED_FINITE   not NaN and not +-inf (every integer)
 *   LIBSCAN_PRED_ISNAN    NaN (no integer)
 * A NaN value or bound, or RANGE with lo > hi, is LIBSCAN_ERROR_INVALID_ARGUMENT
 * (use LIBSCAN_PRED_ISNAN to select NaNs); an unknown kind is
 * LIBSCAN_ERROR_INVALID_OP.
 *
 * Flags: one byte per element; non-zero keeps the element.
 *
 * Unique: element i is kept when i == 0 or x[i] differs from x[i-1]. Floats
 * compare by value with one exception: two NaNs count as equal, so a run of
 * NaNs (any payloads) collapses to its first. -0.0 and +0.0 are equal: a run
 * mixing them keeps its first element.
 */
#ifndef LIBSCAN_COMPACT_H
#define LIBSCAN_COMPACT_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include <libscan/libscan.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Predicate kinds. Values are explicit and only ever appended. */
typedef enum libscan_pred_kind {
    LIBSCAN_PRED_GT = 0,
    LIBSCAN_PRED_GE = 1,
    LIBSCAN_PRED_LT = 2,
    LIBSCAN_PRED_LE = 3,
    LIBSCAN_PRED_EQ = 4,
    LIBSCAN_PRED_NE = 5,
    LIBSCAN_PRED_RANGE = 6,
    LIBSCAN_PRED_NONZERO = 7,
    LIBSCAN_PRED_FINITE = 8,
    LIBSCAN_PRED_ISNAN = 9
} libscan_pred_kind_t;

/* A value in the element type's domain (see the top of this file). */
typedef union libscan_value {
    int64_t i;  /* LIBSCAN_I32, LIBSCAN_I64 */
    uint64_t u; /* LIBSCAN_U32, LIBSCAN_U64 */
    double f;   /* LIBSCAN_F32, LIBSCAN_F64 */
} libscan_value_t;

/* A built-in predicate: kind, the comparison value (or RANGE's lower end)
 * and RANGE's upper end (ignored by the other kinds). */
typedef struct libscan_pred {
    libscan_pred_kind_t kind;
    libscan_value_t value;
    libscan_value_t hi;
} libscan_pred_t;

/*
 * Options. Zero-initialise (or LIBSCAN_COMPACT_OPTS_INIT); opts = NULL means defaults.
 *
 * d_temp, temp_bytes  caller scratch (GPU functions only; ignored on the
 *                     CPU), sized with libscan_compact_temp_bytes(); NULL/0: the
 *                     library allocates stream-ordered.
 * indices             0: write the selected values. Non-zero: write their
 *                     positions in the input as uint64_t instead (the output
 *                     buffers then hold uint64_t elements).
 */
typedef struct libscan_compact_opts {
    void *d_temp;
    size_t temp_bytes;
    int indices;
} libscan_compact_opts_t;

#define LIBSCAN_COMPACT_OPTS_INIT {NULL, 0, 0}

/* ------------------------------------------------------------------------- */
/* GPU                                                                        */
/* ------------------------------------------------------------------------- */

/*
 * libscan_compact_temp_bytes: *temp_bytes = scratch bytes any compact_* GPU call on
 * `count` elements of `dtype` needs (the same for every operation; 0 when
 * count is 0). Host-only, no CUDA call. Returns SUCCESS, NULL_POINTER,
 * INVALID_DTYPE or TOO_LARGE.
 */
libscan_status_t libscan_compact_temp_bytes(size_t count, libscan_dtype_t dtype, size_t *temp_bytes);

/*
 * libscan_select_if: copies the elements of d_in that satisfy *pred, in
 * order, to d_out, and writes their number to *d_num_selected (device).
 *
 * d_in            device array of `count` elements of `dtype`.
 * d_out           device array with room for `count` outputs (values of
 *                 dtype, or uint64_t with opts->indices); only the first
 *                 *d_num_selected are written. d_out == d_in is allowed for
 *                 values (in place); any other overlap is OVERLAP.
 * d_num_selected  device pointer to one size_t; always written (0 when
 *                 count is 0). Must not overlap the data.
 * pred            host pointer, read before the call returns.
 *
 * Returns SUCCESS, or NULL_POINTER (pred or d_num_selected NULL; d_in/d_out
 * NULL with count > 0), INVALID_DTYPE, INVALID_OP (unknown predicate kind),
 * INVALID_ARGUMENT (NaN value, lo > hi, d_temp NULL with temp_bytes != 0),
 * TEMP_TOO_SMALL, OVERLAP, INVALID_POINTER (host memory or misaligned),
 * TOO_LARGE, OUT_OF_MEMORY, CUDA. Asynchronous.
 */
libscan_status_t libscan_select_if(const void *d_in, void *d_out, size_t *d_num_selected, size_t count,
                                   libscan_dtype_t dtype, const libscan_pred_t *pred,
                                   const libscan_compact_opts_t *opts, cudaStream_t stream);

/*
 * libscan_select_flagged: as libscan_select_if, keeping element i when
 * d_flags[i] != 0. d_flags: device array of `count` bytes, any alignment
 * (4-byte alignment is fastest); it must not overlap d_out. Statuses as for
 * libscan_select_if (no INVALID_OP).
 */
libscan_status_t libscan_select_flagged(const void *d_in, const unsigned char *d_flags, void *d_out,
                                        size_t *d_num_selected, size_t count, libscan_dtype_t dtype,
                                        const libscan_compact_opts_t *opts, cudaStream_t stream);

/*
 * libscan_partition_if: splits d_in in one pass: the elements that satisfy
 * *pred go to d_out[0 .. k) and the others to d_rejected[0 .. count-k),
 * both in input order, and k goes to *d_num_selected.
 *
 * Two output buffers because a single pass cannot know where the kept part
 * ends before the last tile: writing the rejected elements from the end of
 * one buffer would reverse them (as CUB does). To get "kept, then rejected"
 * in one array, copy d_rejected after d_out[k-1], or read k first.
 *
 * d_out, d_rejected  device arrays with room for `count` outputs each (values
 *                    or uint64_t indices). d_out may equal d_in (values only);
 *                    d_rejected must overlap neither d_in nor d_out.
 * Other parameters and statuses as libscan_select_if.
 */
libscan_status_t libscan_partition_if(const void *d_in, void *d_out, void *d_rejected, size_t *d_num_selected,
                                      size_t count, libscan_dtype_t dtype, const libscan_pred_t *pred,
                                      const libscan_compact_opts_t *opts, cudaStream_t stream);

/* libscan_partition_flagged: libscan_partition_if keeping element i when
 * d_flags[i] != 0 (d_flags as in libscan_select_flagged). */
libscan_status_t libscan_partition_flagged(const void *d_in, const unsigned char *d_flags, void *d_out,
                                           void *d_rejected, size_t *d_num_selected, size_t count,
                                           libscan_dtype_t dtype, const libscan_compact_opts_t *opts,
                                           cudaStream_t stream);

/*
 * libscan_unique: drops consecutive duplicates (see "Unique" at the top):
 * d_out receives the first element of every run of equal elements, in order.
 * In place (d_out == d_in, values) is allowed. Parameters and statuses as
 * libscan_select_if without the predicate.
 */
libscan_status_t libscan_unique(const void *d_in, void *d_out, size_t *d_num_selected, size_t count,
                                libscan_dtype_t dtype, const libscan_compact_opts_t *opts, cudaStream_t stream);

/*
 * libscan_count_to_host: copies *d_num_selected to *count. This is the one
 * synchronising call: it waits for `stream` (so for the compaction enqueued
 * before it) with cudaStreamSynchronize. Returns SUCCESS, NULL_POINTER,
 * INVALID_POINTER or CUDA (which includes any error of the work before it
 * on the stream).
 */
libscan_status_t libscan_count_to_host(const size_t *d_num_selected, size_t *count, cudaStream_t stream);

/* ------------------------------------------------------------------------- */
/* CPU: the same operations on host memory, with identical results           */
/* ------------------------------------------------------------------------- */

/*
 * compact_cpu_*: the same as the GPU functions, with host pointers and the
 * count returned in *num_selected (host). Output buffers need room for
 * `count` outputs. opts: only `indices` is used. Synchronous, single thread.
 * In place (out == in, values) is allowed as on the GPU. Statuses: SUCCESS,
 * NULL_POINTER, INVALID_DTYPE, INVALID_OP, INVALID_ARGUMENT, TOO_LARGE, and
 * OVERLAP when out == in with indices or rejected equals in or out (other
 * overlaps are not detected on the CPU).
 */
libscan_status_t libscan_cpu_select_if(const void *in, void *out, size_t *num_selected, size_t count,
                                       libscan_dtype_t dtype, const libscan_pred_t *pred,
                                       const libscan_compact_opts_t *opts);
libscan_status_t libscan_cpu_select_flagged(const void *in, const unsigned char *flags, void *out,
                                            size_t *num_selected, size_t count, libscan_dtype_t dtype,
                                            const libscan_compact_opts_t *opts);
libscan_status_t libscan_cpu_partition_if(const void *in, void *out, void *rejected, size_t *num_selected,
                                          size_t count, libscan_dtype_t dtype, const libscan_pred_t *pred,
                                          const libscan_compact_opts_t *opts);
libscan_status_t libscan_cpu_partition_flagged(const void *in, const unsigned char *flags, void *out,
                                               void *rejected, size_t *num_selected, size_t count,
                                               libscan_dtype_t dtype, const libscan_compact_opts_t *opts);
libscan_status_t libscan_cpu_unique(const void *in, void *out, size_t *num_selected, size_t count,
                                    libscan_dtype_t dtype, const libscan_compact_opts_t *opts);

/* ------------------------------------------------------------------------- */
/* Helpers                                                                    */
/* ------------------------------------------------------------------------- */

/* Checks a predicate for dtype without running anything: SUCCESS,
 * NULL_POINTER, INVALID_DTYPE, INVALID_OP or INVALID_ARGUMENT (as above). */
libscan_status_t libscan_pred_check(const libscan_pred_t *pred, libscan_dtype_t dtype);

/* Short name of a predicate kind ("gt", "range", "isnan", ...) or
 * "unknown". Never NULL. */
const char *libscan_pred_name(libscan_pred_kind_t kind);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* LIBSCAN_COMPACT_H */
