/*
 * radixsort.h -- stable LSD radix sort of keys and key/value pairs in GPU
 * memory, built on libscan's block scan and a per-digit decoupled look-back;
 * plus the same sort on the CPU (host memory) for machines without a GPU.
 *
 * Plain C99, usable from C and C++. Link `libscan::radixsort`.
 *
 * ---------------------------------------------------------------------------
 * Order
 * ---------------------------------------------------------------------------
 * Keys are ordered through an order-preserving map to unsigned bits:
 *   unsigned   as is;
 *   signed     the sign bit flipped (two's complement order);
 *   floats     IEEE 754 total order: negative numbers (sign bit set) have all
 *              bits flipped, the others only the sign bit, which gives
 *              -NaN < -inf < ... < -denormals < -0.0 < +0.0 < +denormals
 *              < ... < +inf < +NaN. NaNs with different payloads are ordered
 *              by their bits; -0.0 and +0.0 are distinct keys.
 * Descending order complements the mapped key. Both directions are stable:
 * keys that compare equal keep their input order (so do their values).
 * A bit range [begin_bit, end_bit) of the mapped key may be given: only those
 * bits are compared (keys equal on them keep their input order).
 *
 * ---------------------------------------------------------------------------
 * Conventions (as in libscan.h)
 * ---------------------------------------------------------------------------
 * Status   Every function returns a libscan_status_t; see libscan.h and
 *          libscan_status_string(). The library never prints, aborts or exits.
 * Checks   All arguments are checked before anything is launched; a call that
 *          fails with anything but LIBSCAN_ERROR_CUDA launched nothing.
 * Streams  Work is enqueued on `stream` and runs asynchronously; no function
 *          synchronises with the device.
 * Temp     A sort needs device scratch (see libscan_sort_temp_bytes()). Pass it in
 *          opts->d_temp / temp_bytes, or pass none and the library allocates
 *          it with cudaMallocAsync/cudaFreeAsync on `stream`. With caller temp
 *          nothing is allocated and the call is safe under graph capture.
 * Counts   size_t; more than 2^31 keys are supported (up to LIBSCAN_MAX_COUNT).
 * Pointers Device-accessible, aligned to their element size, no overlap
 *          between distinct buffers (LIBSCAN_ERROR_OVERLAP).
 * Determinism The output is a function of the input alone (a stable sort
 *          has exactly one result).
 */
#ifndef LIBSCAN_SORT_H
#define LIBSCAN_SORT_H

#include <stddef.h>
#include <cuda_runtime_api.h>
#include "libscan/libscan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Key types: LIBSCAN_U8, U16, U32, U64, I32, I64, F32 and F64 (libscan.h). */

/* The largest count a sort accepts (2^40 keys). */
#define LIBSCAN_MAX_COUNT ((size_t)1 << 40)

/*
 * Options; zero-initialise (or LIBSCAN_SORT_OPTS_INIT). opts = NULL: defaults.
 * descending  nonzero: largest key first (still stable).
 * begin_bit, end_bit  sort on bits [begin_bit, end_bit) of the mapped key;
 *             end_bit = 0 means the key's width. Need begin_bit <= end_bit <=
 *             width (else INVALID_ARGUMENT). begin_bit == end_bit sorts on
 *             nothing: the output is a copy of the input.
 * d_temp, temp_bytes  caller scratch (see libscan_sort_temp_bytes()), or NULL/0.
 */
typedef struct libscan_sort_opts {
    int descending;
    unsigned begin_bit;
    unsigned end_bit;
    void *d_temp;
    size_t temp_bytes;
} libscan_sort_opts_t;

#define LIBSCAN_SORT_OPTS_INIT {0, 0u, 0u, NULL, 0}

/* What a temp-storage query is for (the three entry points need different
 * scratch). */
typedef enum libscan_sort_mode {
    LIBSCAN_SORT_DOUBLE_BUFFER = 0, /* libscan_sort_double_buffer() */
    LIBSCAN_SORT_OUT_OF_PLACE = 1,  /* libscan_sort() */
    LIBSCAN_SORT_ARGSORT = 2        /* libscan_argsort() */
} libscan_sort_mode_t;

/*
 * libscan_sort_temp_bytes: *temp_bytes = the scratch a sort of `count` keys of
 * `key` with `value_bytes`-byte values (0 = keys only, 4 or 8; for ARGSORT the
 * index size, 4 or 8) needs in `mode`. It does not depend on the direction or
 * the bit range. Host only, no CUDA call. Returns SUCCESS, NULL_POINTER,
 * INVALID_DTYPE (key), INVALID_ARGUMENT (mode or value_bytes) or TOO_LARGE.
 */
LIBSCAN_API libscan_status_t libscan_sort_temp_bytes(size_t count, libscan_dtype_t key, size_t value_bytes, libscan_sort_mode_t mode, size_t *temp_bytes);

/*
 * libscan_sort: out-of-place sort. d_keys_out receives the keys of
 * d_keys_in in order; with values (value_bytes 4 or 8), d_values_out receives
 * d_values_in permuted the same way. Inputs are not modified (the alternate
 * buffer comes from temp storage).
 *
 * d_keys_in, d_keys_out      `count` keys; must not overlap (use the
 *                            double-buffer call to sort in place).
 * d_values_in, d_values_out  `count` values of value_bytes, or both NULL
 *                            with value_bytes = 0; must not overlap.
 * All pointers may be NULL when count == 0.
 *
 * Returns SUCCESS, or NULL_POINTER, INVALID_DTYPE, INVALID_ARGUMENT (value
 * size, values given with value_bytes 0 or missing with 4/8, bit range,
 * d_temp NULL with temp_bytes != 0), TEMP_TOO_SMALL, OVERLAP,
 * INVALID_POINTER, TOO_LARGE, OUT_OF_MEMORY, CUDA.
 */
LIBSCAN_API libscan_status_t libscan_sort(const void *d_keys_in, void *d_keys_out, const void *d_values_in,
                                            void *d_values_out, size_t count, libscan_dtype_t key,
                                            size_t value_bytes, const libscan_sort_opts_t *opts,
                                            cudaStream_t stream);

/*
 * A pair of key buffers (and of value buffers) for the in-place sort, like
 * cub::DoubleBuffer: d_keys[selector] holds the input; the sort ping-pongs
 * between the two and sets selector to the buffer that holds the result
 * (which one depends only on the number of 8-bit passes, i.e. on the bit
 * range, so it is known when the call returns). The other buffer's content
 * is undefined afterwards. d_values: both NULL for keys only.
 */
typedef struct libscan_double_buffer {
    void *d_keys[2];
    void *d_values[2];
    int selector;
} libscan_double_buffer_t;

/*
 * libscan_sort_double_buffer: sorts buf->d_keys[buf->selector] (and the
 * values) using the other buffer as the alternate; no copy is made. Updates
 * buf->selector before returning (only on SUCCESS). Same statuses as
 * libscan_sort(); INVALID_ARGUMENT also for a selector other than 0 or 1.
 * The two buffers of a pair must not overlap each other or the other pair.
 */
LIBSCAN_API libscan_status_t libscan_sort_double_buffer(libscan_double_buffer_t *buf, size_t count,
                                                          libscan_dtype_t key, size_t value_bytes,
                                                          const libscan_sort_opts_t *opts, cudaStream_t stream);

/*
 * libscan_argsort: d_indices[i] = the input position of the i-th key in
 * sorted order (stable: ties in increasing position). index_bytes is 4
 * (uint32_t, needs count <= 2^32) or 8 (uint64_t). d_keys_out receives the
 * sorted keys, or may be NULL (they then live in temp storage only).
 * Same statuses as libscan_sort(); INVALID_ARGUMENT for index_bytes or
 * 4-byte indices with count > 2^32.
 */
LIBSCAN_API libscan_status_t libscan_argsort(const void *d_keys_in, void *d_keys_out, void *d_indices,
                                               size_t count, libscan_dtype_t key, size_t index_bytes,
                                               const libscan_sort_opts_t *opts, cudaStream_t stream);

/* ------------------------------------------------------------------------- */
/* CPU path (host memory, synchronous, same order and stability)              */
/* ------------------------------------------------------------------------- */

/*
 * libscan_cpu_sort: sorts `count` keys in host memory in place (and their
 * values, value_bytes 0, 4 or 8; values NULL when 0), stable, in the order
 * defined at the top of this file; descending, begin_bit and end_bit as in
 * libscan_sort_opts_t (d_temp/temp_bytes are ignored; opts may be NULL).
 * Allocates a scratch copy with malloc. Returns SUCCESS, NULL_POINTER,
 * INVALID_DTYPE, INVALID_ARGUMENT, TOO_LARGE or OUT_OF_MEMORY.
 */
LIBSCAN_API libscan_status_t libscan_cpu_sort(void *keys, void *values, size_t count, libscan_dtype_t key,
                                                size_t value_bytes, const libscan_sort_opts_t *opts);

/*
 * libscan_cpu_argsort: indices[i] (index_bytes 4 or 8) = input position of
 * the i-th key in stable sorted order; keys are sorted in place as well.
 * Same statuses as libscan_cpu_sort().
 */
LIBSCAN_API libscan_status_t libscan_cpu_argsort(void *keys, void *indices, size_t count, libscan_dtype_t key,
                                                   size_t index_bytes, const libscan_sort_opts_t *opts);

/*
 * libscan_cpu_is_sorted: *first_bad = count if keys[0..count) are in order
 * (non-decreasing, or non-increasing when descending, over the bit range),
 * else the smallest i with keys[i] out of order with keys[i-1]. Host only.
 * Returns SUCCESS, NULL_POINTER, INVALID_DTYPE or INVALID_ARGUMENT.
 */
LIBSCAN_API libscan_status_t libscan_cpu_is_sorted(const void *keys, size_t count, libscan_dtype_t key,
                                                     const libscan_sort_opts_t *opts, size_t *first_bad);

/*
 * libscan_cpu_sort_unique: keeps the first key of every run of equal keys in
 * sorted keys[0..count) (and the matching values), compacting in place;
 * *kept = the number kept. Keys are equal when their mapped bits are equal
 * over the bit range (so -0.0 and +0.0 differ; NaNs with the same bits are
 * equal). Returns SUCCESS, NULL_POINTER, INVALID_DTYPE or INVALID_ARGUMENT.
 */
LIBSCAN_API libscan_status_t libscan_cpu_sort_unique(void *keys, void *values, size_t count, libscan_dtype_t key,
                                                  size_t value_bytes, const libscan_sort_opts_t *opts,
                                                  size_t *kept);

/* ------------------------------------------------------------------------- */
/* Helpers                                                                    */
/* ------------------------------------------------------------------------- */

/* Number of 8-bit passes a sort over [begin_bit, end_bit) makes (end_bit 0 =
 * the width); -1 for an invalid key or range. */
LIBSCAN_API int libscan_sort_num_passes(libscan_dtype_t key, unsigned begin_bit, unsigned end_bit);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* LIBSCAN_SORT_H */
