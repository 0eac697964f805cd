/*
 * compact.h -- stream compaction with libscan: select, partition and unique
 * on the GPU, and the same operations on the CPU with byte-identical results.
 *
 * Plain C99, usable from C and C++. Part of libscan (libscan::libscan,
 * libscan::libscan_static, pkg-config libscan). The device templates behind
 * it, which take any C++ device functor as the predicate, are in
 * <libscan/cuda/compact.cuh>.
 *
 * ---------------------------------------------------------------------------
 * Conventions: those of libscan.h, and these
 * ---------------------------------------------------------------------------
 * Status   Every function returns a libscan_status_t (libscan.h), except
 *          libscan_pred_name(). Arguments are checked before anything is
 *          launched; an error other than LIBSCAN_ERROR_CUDA means nothing was
 *          launched and nothing written.
 * Streams  GPU functions enqueue their work on `stream` and return without
 *          waiting. The number of elements selected is written to device
 *          memory (d_num_selected, one size_t), so it can feed later work on
 *          the stream without a round trip. libscan_count_to_host() is the
 *          one function that waits for the device.
 * Temp     As in libscan.h (Temp): the caller's (opts->d_temp, temp_bytes,
 *          sized with libscan_compact_temp_bytes()), or, with opts = NULL or
 *          d_temp NULL, libscan's temp cache. Every GPU call of this family
 *          on `count` elements of one dtype needs the same temp. Calls with
 *          caller temp can be captured into a CUDA graph; so can calls
 *          without it (the temp becomes graph-owned memory).
 * Types    LIBSCAN_U32, I32, U64, I64, F32 and F64. Any other value,
 *          LIBSCAN_U8 and LIBSCAN_U16 included, is LIBSCAN_ERROR_INVALID_DTYPE
 *          in every function of this header, the CPU ones too.
 * Counts   size_t, 0 .. LIBSCAN_MAX_COUNT (2^40) elements.
 * Pointers Device-accessible (libscan.h, Pointers), each aligned to its own
 *          element size: data to the dtype's size, index outputs and
 *          d_num_selected to 8 bytes, flags to 1. A buffer the call writes
 *          may share no byte with any other argument (LIBSCAN_ERROR_OVERLAP),
 *          except d_out == d_in (values, not indices), where said.
 * Order    Every operation is stable: kept elements keep their input order,
 *          and so do rejected ones (partition).
 * Output   Values of the input's dtype, or with opts->indices the positions
 *          in the input (uint64_t, from 0) of those elements.
 * Determinism
 *          Compaction computes nothing, it moves elements: the outputs and
 *          the count are a function of the input alone, the same bytes on
 *          every run, every stream, with either kind of temp, and on the CPU.
 *
 * Predicates (libscan_pred_t). The value(s) are given in the element type's
 * domain, in the union member named by the dtype: `.u` for U32/U64, `.i` for
 * I32/I64, `.f` for F32/F64. Comparisons are exact: an element is widened
 * to 64 bits (integers) or to double (floats; exact for f32) and compared
 * with the value as it is, so integers beyond 2^53 compare exactly and a
 * u32 element compared with 2^40 is simply smaller. Floats compare by value
 * (IEEE): -0.0 equals +0.0, and a NaN element satisfies only NE, NONZERO
 * and ISNAN.
 *   LIBSCAN_PRED_GT, GE, LT, LE, EQ, NE   x > v, x >= v, x < v, x <= v, x == v, x != v
 *   LIBSCAN_PRED_RANGE    lo <= x <= hi (both ends inclusive; lo = value, hi = hi)
 *   LIBSCAN_PRED_NONZERO  x != 0 (-0.0 is zero, NaN is not)
 *   LIBSCAN_PRED_FINITE   not NaN and not +-inf (every integer)
 *   LIBSCAN_PRED_ISNAN    NaN (no integer)
 * A NaN value or bound, or RANGE with lo > hi, is LIBSCAN_ERROR_INVALID_ARGUMENT
 * (use LIBSCAN_PRED_ISNAN to select NaNs); an unknown kind is
 * LIBSCAN_ERROR_INVALID_OP. Kinds that take no value ignore value and hi.
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
#include "libscan/libscan.h"

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
 * Options for one call. Zero-initialise (or use LIBSCAN_COMPACT_OPTS_INIT)
 * and set what you need; opts = NULL means all defaults.
 *
 * d_temp      Device scratch of temp_bytes bytes, or NULL: the temp cache
 *             (libscan.h, Temp). Must not overlap any other argument. GPU
 *             functions only; the CPU functions ignore it.
 * temp_bytes  Size of d_temp; checked against libscan_compact_temp_bytes().
 *             Non-zero with d_temp NULL is LIBSCAN_ERROR_INVALID_ARGUMENT.
 * indices     0: write the selected values. Non-zero: write their positions
 *             in the input as uint64_t instead (the output buffers then hold
 *             uint64_t elements and must not be the input).
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
 * libscan_compact_temp_bytes: *temp_bytes = the scratch bytes any GPU call
 * of this header on `count` elements of `dtype` needs (the same for every
 * operation, predicate and output kind; 0 when count is 0), with
 * LIBSCAN_TEMP_ALIGNMENT bytes of slack included. Host-only, no CUDA call.
 * Returns SUCCESS, NULL_POINTER, INVALID_DTYPE or TOO_LARGE.
 */
LIBSCAN_API libscan_status_t libscan_compact_temp_bytes(size_t count, libscan_dtype_t dtype, size_t *temp_bytes);

/*
 * libscan_select_if: copies the elements of d_in that satisfy *pred, in
 * order, to d_out, and writes their number to *d_num_selected (device).
 *
 * d_in            device array of `count` elements of `dtype`.
 * d_out           device array with room for `count` outputs (values of
 *                 dtype, or uint64_t with opts->indices); only the first
 *                 *d_num_selected are written. d_out == d_in is allowed for
 *                 values (in place); any other overlap is OVERLAP.
 * d_num_selected  device pointer to one size_t, 8-byte aligned; always
 *                 written (0 when count is 0).
 * count           number of elements; with 0, d_in and d_out may be NULL
 *                 and only *d_num_selected is written.
 * dtype           element type (see Types).
 * pred            host pointer, read before the call returns.
 * opts            NULL or options (temp, indices).
 * stream          the CUDA stream the work is enqueued on.
 *
 * Returns SUCCESS, or NULL_POINTER (pred or d_num_selected NULL; d_in or
 * d_out NULL with count > 0), INVALID_DTYPE, INVALID_OP (unknown predicate
 * kind), INVALID_ARGUMENT (NaN value or bound, lo > hi, d_temp NULL with
 * temp_bytes != 0), TEMP_TOO_SMALL, OVERLAP, INVALID_POINTER (not
 * device-accessible, or misaligned), TOO_LARGE, OUT_OF_MEMORY (the temp
 * cache could not get memory), CUDA. Asynchronous.
 */
LIBSCAN_API libscan_status_t libscan_select_if(const void *d_in, void *d_out, size_t *d_num_selected, size_t count,
                                               libscan_dtype_t dtype, const libscan_pred_t *pred,
                                               const libscan_compact_opts_t *opts, cudaStream_t stream);

/*
 * libscan_select_flagged: as libscan_select_if, keeping element i when
 * d_flags[i] != 0. d_flags: device array of `count` bytes, any alignment;
 * it may overlap d_in (both are only read) but not d_out. Statuses as for
 * libscan_select_if, without INVALID_OP and the predicate's
 * INVALID_ARGUMENT; NULL_POINTER also for d_flags NULL with count > 0.
 */
LIBSCAN_API libscan_status_t libscan_select_flagged(const void *d_in, const unsigned char *d_flags, void *d_out,
                                                    size_t *d_num_selected, size_t count, libscan_dtype_t dtype,
                                                    const libscan_compact_opts_t *opts, cudaStream_t stream);

/*
 * libscan_partition_if: splits d_in: the elements that satisfy *pred go to
 * d_out[0 .. k) and the others to d_rejected[0 .. count-k), both in input
 * order, and k goes to *d_num_selected. The rejected elements have a buffer
 * of their own so that they too stay in input order (one buffer filled from
 * both ends would hold them reversed). For "kept, then rejected" in one
 * array, read k and copy d_rejected after d_out[k-1].
 *
 * d_out, d_rejected  device arrays with room for `count` outputs each (values
 *                    or uint64_t indices). d_out may equal d_in (values only);
 *                    d_rejected must overlap no other argument.
 * Other parameters and statuses as libscan_select_if; NULL_POINTER also for
 * d_rejected NULL with count > 0.
 */
LIBSCAN_API libscan_status_t libscan_partition_if(const void *d_in, void *d_out, void *d_rejected,
                                                  size_t *d_num_selected, size_t count, libscan_dtype_t dtype,
                                                  const libscan_pred_t *pred, const libscan_compact_opts_t *opts,
                                                  cudaStream_t stream);

/*
 * libscan_partition_flagged: libscan_partition_if keeping element i when
 * d_flags[i] != 0 (d_flags as in libscan_select_flagged; it must not overlap
 * d_out or d_rejected). Statuses as libscan_select_flagged; NULL_POINTER
 * also for d_rejected NULL with count > 0.
 */
LIBSCAN_API libscan_status_t libscan_partition_flagged(const void *d_in, const unsigned char *d_flags, void *d_out,
                                                       void *d_rejected, size_t *d_num_selected, size_t count,
                                                       libscan_dtype_t dtype, const libscan_compact_opts_t *opts,
                                                       cudaStream_t stream);

/*
 * libscan_unique: drops consecutive duplicates (see "Unique" at the top):
 * d_out receives the first element of every run of equal elements, in order
 * (or its position, with opts->indices). In place (d_out == d_in, values)
 * is allowed. Parameters as libscan_select_if without the predicate;
 * statuses as libscan_select_flagged.
 */
LIBSCAN_API libscan_status_t libscan_unique(const void *d_in, void *d_out, size_t *d_num_selected, size_t count,
                                            libscan_dtype_t dtype, const libscan_compact_opts_t *opts,
                                            cudaStream_t stream);

/*
 * libscan_count_to_host: copies *d_num_selected (device, 8-byte aligned) to
 * *count (host). The one synchronising function of this header: it waits
 * for `stream` (cudaStreamSynchronize), so for the compaction enqueued
 * before it, and so it refuses a stream that is being captured
 * (INVALID_ARGUMENT; the capture is left intact). *count is written only on
 * SUCCESS. Returns SUCCESS, NULL_POINTER, INVALID_ARGUMENT, INVALID_POINTER
 * (not device-accessible, or misaligned) or CUDA (which includes any error
 * of the work before it on the stream).
 */
LIBSCAN_API libscan_status_t libscan_count_to_host(const size_t *d_num_selected, size_t *count, cudaStream_t stream);

/* ------------------------------------------------------------------------- */
/* CPU: the same operations on host memory, with identical results           */
/* ------------------------------------------------------------------------- */
/*
 * libscan_cpu_*: the GPU functions above on host pointers, with the count
 * returned in *num_selected (host). Output buffers need room for `count`
 * outputs. opts: only `indices` is read. Synchronous, no CUDA call. In
 * place (out == in, values) is allowed as on the GPU. They write exactly the
 * bytes the GPU functions write for the same input, and nothing past the
 * outputs they count, whatever the number of threads.
 *
 * Threads: large inputs are split over threads as "CPU threads" in sort.h
 * says (at most one per 2^16 elements; LIBSCAN_CPU_THREADS=N forces N).
 * The input is read once, in blocks of 8192 elements: a thread decides a
 * block into a staging area of its own (up to 2 x 8192 outputs, 128 KiB;
 * without memory for it, a small area on its stack), then copies it to its
 * place once the blocks before it have said how many they keep. They never
 * fail for memory.
 *
 * Statuses: SUCCESS, NULL_POINTER (as on the GPU), INVALID_DTYPE, INVALID_OP
 * and INVALID_ARGUMENT (the predicate, as on the GPU), TOO_LARGE, and
 * OVERLAP when out == in with indices, or rejected equals in or out. Other
 * overlaps are not detected on the CPU: the result is then undefined.
 */

/* libscan_cpu_select_if: libscan_select_if on the CPU. */
LIBSCAN_API libscan_status_t libscan_cpu_select_if(const void *in, void *out, size_t *num_selected, size_t count,
                                                   libscan_dtype_t dtype, const libscan_pred_t *pred,
                                                   const libscan_compact_opts_t *opts);

/* libscan_cpu_select_flagged: libscan_select_flagged on the CPU. */
LIBSCAN_API libscan_status_t libscan_cpu_select_flagged(const void *in, const unsigned char *flags, void *out,
                                                        size_t *num_selected, size_t count, libscan_dtype_t dtype,
                                                        const libscan_compact_opts_t *opts);

/* libscan_cpu_partition_if: libscan_partition_if on the CPU. */
LIBSCAN_API libscan_status_t libscan_cpu_partition_if(const void *in, void *out, void *rejected,
                                                      size_t *num_selected, size_t count, libscan_dtype_t dtype,
                                                      const libscan_pred_t *pred, const libscan_compact_opts_t *opts);

/* libscan_cpu_partition_flagged: libscan_partition_flagged on the CPU. */
LIBSCAN_API libscan_status_t libscan_cpu_partition_flagged(const void *in, const unsigned char *flags, void *out,
                                                           void *rejected, size_t *num_selected, size_t count,
                                                           libscan_dtype_t dtype, const libscan_compact_opts_t *opts);

/* libscan_cpu_unique: libscan_unique on the CPU. */
LIBSCAN_API libscan_status_t libscan_cpu_unique(const void *in, void *out, size_t *num_selected, size_t count,
                                                libscan_dtype_t dtype, const libscan_compact_opts_t *opts);

/* ------------------------------------------------------------------------- */
/* Helpers                                                                    */
/* ------------------------------------------------------------------------- */

/*
 * libscan_pred_check: checks *pred for dtype without running anything, as
 * every function taking a predicate does. Returns SUCCESS, INVALID_DTYPE,
 * NULL_POINTER, INVALID_OP or INVALID_ARGUMENT (NaN value or bound, lo > hi).
 * Host-only, no CUDA call.
 */
LIBSCAN_API libscan_status_t libscan_pred_check(const libscan_pred_t *pred, libscan_dtype_t dtype);

/* libscan_pred_name: the short name of a predicate kind ("gt", "range",
 * "isnan", ...), or "unknown". Never NULL. */
LIBSCAN_API const char *libscan_pred_name(libscan_pred_kind_t kind);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* LIBSCAN_COMPACT_H */
