/*
 * sort.h -- libscan's sort family: a stable sort of keys, of key/value pairs
 * and an argsort, in GPU memory; and the same sort on the CPU (host memory)
 * for machines without a GPU.
 *
 * Plain C99, usable from C and C++. Part of libscan (link libscan::libscan
 * or libscan::libscan_static, or `pkg-config libscan`); this header includes
 * libscan.h, whose conventions it follows.
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
 * Conventions (libscan.h's, with what a sort adds)
 * ---------------------------------------------------------------------------
 * Status   Every sort function returns a libscan_status_t (libscan.h; the
 *          helper libscan_sort_num_passes() returns a count). The library
 *          never prints, aborts or exits.
 * Checks   All arguments are checked before anything is launched: a call
 *          that returns an error other than LIBSCAN_ERROR_CUDA has launched
 *          nothing and written nothing.
 * Streams  The GPU calls enqueue their work on `stream` and never synchronise
 *          with the device; the results are ready when the stream reaches
 *          that point. The CPU calls (libscan_cpu_*) are synchronous and make
 *          no CUDA call: they return when the work is done, large inputs
 *          split over threads (see "CPU threads").
 * Temp     As in libscan.h ("Temp", "The temp cache"): size caller temp with
 *          libscan_sort_temp_bytes(count, key, value_bytes, mode, &bytes) and
 *          pass it in opts->d_temp / opts->temp_bytes, or pass none and the
 *          call takes it from libscan's temp cache (under stream capture: from
 *          the graph). The figure depends on the mode (which of the three
 *          calls), never on the direction or the bit range. A call with
 *          nothing to order (count <= 1, or begin_bit == end_bit) uses no
 *          temp: caller temp is then checked for its size and overlaps only.
 * Key types LIBSCAN_U8, U16, U32, U64, I32, I64, F32 and F64 (libscan.h's
 *          libscan_dtype_t; any other value is LIBSCAN_ERROR_INVALID_DTYPE).
 * Values   Opaque words of value_bytes = 4 or 8 bytes (any type of that size)
 *          that move with their keys; value_bytes = 0 sorts keys only.
 * Counts   size_t, 0 .. LIBSCAN_MAX_COUNT (2^40) keys; more is TOO_LARGE.
 * Pointers Device-accessible (libscan.h), each aligned to its element size
 *          (keys to the key size, values to value_bytes, indices to
 *          index_bytes; else INVALID_POINTER). Every buffer of a call is
 *          distinct: no two may share a byte (else OVERLAP), inputs
 *          included; there is no in-place form of libscan_sort() (the double
 *          buffer is the in-place sort). Any pointer may be NULL when
 *          count == 0.
 * Determinism A stable sort has exactly one result, so the output is a
 *          function of the input (and the options) alone: the same on every
 *          run, stream, temp and GPU, and equal to the CPU sort's whatever
 *          its number of threads.
 *
 * ---------------------------------------------------------------------------
 * CPU threads (the libscan_cpu_* calls of this header and of compact.h)
 * ---------------------------------------------------------------------------
 * A CPU call splits a large input over threads it creates and joins before
 * it returns; the calling thread takes a share, and nothing runs on after
 * the call. How many threads: the CPUs the process may run on (its affinity
 * mask; the online CPUs where that is unknown), but at most one per 2^16
 * keys or elements (libscan_cpu_is_sorted: per 2^18 keys), so small inputs
 * stay on the calling thread and create none. The environment variable
 * LIBSCAN_CPU_THREADS=N (a decimal whole number >= 1, read at every call)
 * sets the number instead, whatever the size (at most 256, and at most one
 * per key); unset, empty or any other value means the choice above. The
 * number of threads never changes a result, only the time. The threads
 * start with every signal blocked (a program's handlers run on its own
 * threads). CPU calls share no state: several may run at once from
 * different threads. If the system refuses a thread, the call goes on with
 * those it has.
 */
#ifndef LIBSCAN_SORT_H
#define LIBSCAN_SORT_H

#include <stddef.h>
#include <cuda_runtime_api.h>
#include "libscan/libscan.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Options of one sort. Zero-initialise (or use LIBSCAN_SORT_OPTS_INIT) and set
 * what you need; opts = NULL means all defaults.
 *
 * descending  nonzero: largest key first (still stable).
 * begin_bit, end_bit  sort on bits [begin_bit, end_bit) of the mapped key;
 *             end_bit = 0 means the key's width. begin_bit <= end_bit <=
 *             width, else INVALID_ARGUMENT. begin_bit == end_bit compares
 *             nothing: the output is the input, in input order.
 * d_temp      device scratch of temp_bytes bytes (libscan_sort_temp_bytes()
 *             for this call's mode), or NULL: the temp cache (libscan.h).
 *             Must not overlap any other buffer of the call.
 * temp_bytes  size of d_temp; 0 when d_temp is NULL (else INVALID_ARGUMENT).
 * The CPU calls read descending, begin_bit and end_bit, and ignore d_temp
 * and temp_bytes.
 */
typedef struct libscan_sort_opts {
    int descending;
    unsigned begin_bit;
    unsigned end_bit;
    void *d_temp;
    size_t temp_bytes;
} libscan_sort_opts_t;

#define LIBSCAN_SORT_OPTS_INIT {0, 0u, 0u, NULL, 0}

/* Which call a temp query is for (their temp differs). Values are explicit
 * and only ever appended. */
typedef enum libscan_sort_mode {
    LIBSCAN_SORT_DOUBLE_BUFFER = 0, /* libscan_sort_double_buffer() */
    LIBSCAN_SORT_OUT_OF_PLACE = 1,  /* libscan_sort() */
    LIBSCAN_SORT_ARGSORT = 2        /* libscan_argsort() */
} libscan_sort_mode_t;

/*
 * libscan_sort_temp_bytes: *temp_bytes = the scratch bytes the `mode` call
 * needs to sort `count` keys of `key` with value_bytes-byte values (0 = keys
 * only, 4 or 8; for LIBSCAN_SORT_ARGSORT the index size, 4 or 8). 0 for
 * count == 0; otherwise it includes LIBSCAN_TEMP_ALIGNMENT bytes of slack, so
 * any d_temp pointer works. The same for both directions and every bit range.
 *
 * Host-only: no CUDA call, nothing enqueued. Returns SUCCESS, or:
 * NULL_POINTER (temp_bytes NULL), INVALID_DTYPE (key), INVALID_ARGUMENT (mode
 * not a libscan_sort_mode_t value; value_bytes not 0, 4 or 8; 0 with
 * ARGSORT), TOO_LARGE (count > LIBSCAN_MAX_COUNT).
 */
LIBSCAN_API libscan_status_t libscan_sort_temp_bytes(size_t count, libscan_dtype_t key, size_t value_bytes,
                                                     libscan_sort_mode_t mode, size_t *temp_bytes);

/*
 * libscan_sort: out-of-place sort. d_keys_out receives the `count` keys of
 * d_keys_in in order; with values, d_values_out receives d_values_in
 * permuted the same way. The inputs are not modified.
 *
 * d_keys_in, d_keys_out      device arrays of `count` keys of `key`.
 * d_values_in, d_values_out  device arrays of `count` values of value_bytes
 *                            bytes, or both NULL with value_bytes = 0.
 * count, key, value_bytes    see Conventions.
 * opts                       NULL or options (direction, bit range, temp;
 *                            temp mode LIBSCAN_SORT_OUT_OF_PLACE).
 * stream                     the CUDA stream the work is enqueued on.
 * The four buffers must be distinct (see Pointers).
 *
 * Returns SUCCESS, or: NULL_POINTER (a key array NULL, or a value array NULL
 * with value_bytes 4 or 8, with count > 0), INVALID_DTYPE, INVALID_ARGUMENT
 * (value_bytes not 0, 4 or 8; a value array given with value_bytes 0; bit
 * range; d_temp NULL with temp_bytes != 0), TEMP_TOO_SMALL, OVERLAP (two
 * buffers share a byte, d_temp included), INVALID_POINTER (host memory or
 * misaligned), TOO_LARGE, OUT_OF_MEMORY (the temp cache could not get temp),
 * CUDA. Asynchronous with respect to the host.
 */
LIBSCAN_API libscan_status_t libscan_sort(const void *d_keys_in, void *d_keys_out, const void *d_values_in,
                                          void *d_values_out, size_t count, libscan_dtype_t key, size_t value_bytes,
                                          const libscan_sort_opts_t *opts, cudaStream_t stream);

/*
 * A pair of key buffers (and of value buffers) for the in-place sort:
 * d_keys[selector] holds the input; the sort ping-pongs between the two and
 * sets selector to the buffer that holds the result. Which one that is
 * depends only on libscan_sort_num_passes() for the key and bit range (odd:
 * the other buffer; even: the same), so it is known when the call returns.
 * The other buffer's content is unspecified afterwards. d_values: both NULL
 * for keys only.
 */
typedef struct libscan_double_buffer {
    void *d_keys[2];
    void *d_values[2];
    int selector;
} libscan_double_buffer_t;

/*
 * libscan_sort_double_buffer: sorts buf->d_keys[buf->selector] (and
 * buf->d_values[buf->selector]) using the other buffer of each pair as the
 * alternate: nothing is copied, and the temp (mode
 * LIBSCAN_SORT_DOUBLE_BUFFER) holds no keys or values, so it is the smallest
 * of the three calls'. Sets buf->selector on SUCCESS only (buf is left as it
 * was on any error).
 *
 * buf          the two key buffers (both needed with count > 0), the two
 *              value buffers (both NULL, or both given with value_bytes 4 or
 *              8), and selector 0 or 1. All four buffers must be distinct.
 * count, key, value_bytes, opts, stream  as for libscan_sort().
 *
 * Returns the statuses of libscan_sort() (NULL_POINTER also for buf NULL;
 * INVALID_ARGUMENT also for a selector other than 0 or 1). Asynchronous.
 */
LIBSCAN_API libscan_status_t libscan_sort_double_buffer(libscan_double_buffer_t *buf, size_t count,
                                                        libscan_dtype_t key, size_t value_bytes,
                                                        const libscan_sort_opts_t *opts, cudaStream_t stream);

/*
 * libscan_argsort: d_indices[i] = the input position of the i-th key in
 * sorted order (stable: equal keys in increasing position). d_keys_in is not
 * modified.
 *
 * d_keys_in    device array of `count` keys of `key`.
 * d_keys_out   device array that receives the sorted keys, or NULL (they are
 *              then not kept).
 * d_indices    device array of `count` indices of index_bytes bytes.
 * index_bytes  4 (uint32_t; needs count <= 2^32) or 8 (uint64_t).
 * opts, stream as for libscan_sort() (temp mode LIBSCAN_SORT_ARGSORT, sized
 *              with value_bytes = index_bytes).
 * The three buffers must be distinct.
 *
 * Returns the statuses of libscan_sort(): NULL_POINTER for d_keys_in or
 * d_indices NULL with count > 0; INVALID_ARGUMENT also for index_bytes not 4
 * or 8, or 4 with count > 2^32. Asynchronous.
 */
LIBSCAN_API libscan_status_t libscan_argsort(const void *d_keys_in, void *d_keys_out, void *d_indices, size_t count,
                                             libscan_dtype_t key, size_t index_bytes,
                                             const libscan_sort_opts_t *opts, cudaStream_t stream);

/* ------------------------------------------------------------------------- */
/* CPU path: host memory, synchronous, the same order, stability and result   */
/* ------------------------------------------------------------------------- */

/*
 * libscan_cpu_sort: sorts `count` keys in host memory in place (and their
 * values: value_bytes 0, 4 or 8; values NULL when 0), stably, in the order
 * of the top of this file; the result is the GPU sort's. opts as for the GPU
 * calls (d_temp and temp_bytes ignored; NULL: defaults). Threads: see "CPU
 * threads" above.
 *
 * Memory: one scratch buffer of the input's size, count * (key bytes +
 * value_bytes), from malloc (from 2 MiB on aligned to 2 MiB and advised to
 * use transparent huge pages), plus 40 KiB a thread of counters and
 * write-combining lines; all freed before the call returns. keys and values
 * may have any alignment (arrays aligned to their element size are faster).
 *
 * Returns SUCCESS, or: NULL_POINTER (keys NULL, or values NULL with
 * value_bytes 4 or 8, with count > 0), INVALID_DTYPE, INVALID_ARGUMENT
 * (value_bytes; values given with value_bytes 0; bit range), TOO_LARGE,
 * OUT_OF_MEMORY (host memory: malloc failed; keys and values untouched).
 */
LIBSCAN_API libscan_status_t libscan_cpu_sort(void *keys, void *values, size_t count, libscan_dtype_t key,
                                              size_t value_bytes, const libscan_sort_opts_t *opts);

/*
 * libscan_cpu_argsort: indices[i] (index_bytes 4 or 8) = the input position
 * of the i-th key in stable sorted order; the keys are sorted in place as
 * well. Threads and memory as libscan_cpu_sort() with value_bytes =
 * index_bytes (indices is only written, never read). Returns the statuses
 * of libscan_cpu_sort() (on OUT_OF_MEMORY keys and indices are untouched);
 * NULL_POINTER for indices NULL with count > 0, INVALID_ARGUMENT also for
 * index_bytes not 4 or 8, or 4 with count > 2^32.
 */
LIBSCAN_API libscan_status_t libscan_cpu_argsort(void *keys, void *indices, size_t count, libscan_dtype_t key,
                                                 size_t index_bytes, const libscan_sort_opts_t *opts);

/*
 * libscan_cpu_is_sorted: *first_bad = count when keys[0..count) are in the
 * order opts describes (non-decreasing, or non-increasing when descending,
 * over the bit range), else the smallest i with keys[i] out of order with
 * keys[i-1]. Host memory, read only; threads as above (each checks one
 * part, and stops once an earlier part has an answer), no allocation.
 * Returns SUCCESS, or: NULL_POINTER (first_bad NULL, or keys NULL with
 * count > 0), INVALID_DTYPE, INVALID_ARGUMENT (bit range).
 */
LIBSCAN_API libscan_status_t libscan_cpu_is_sorted(const void *keys, size_t count, libscan_dtype_t key,
                                                   const libscan_sort_opts_t *opts, size_t *first_bad);

/*
 * libscan_cpu_sort_unique: keeps the first key of every run of equal keys in
 * keys[0..count) (sorted, or at least with equal keys adjacent) and the
 * matching values, compacting both in place; *kept = the number kept. Keys
 * are equal when their mapped bits are equal over the bit range (so -0.0 and
 * +0.0 differ; NaNs with the same bits are equal); the direction does not
 * matter. Threads as above, with the compaction of compact.h's CPU calls
 * (each thread stages its output in up to 128 KiB of its own, or, without
 * memory, in a small area on its stack: the call never fails for memory).
 * Returns SUCCESS, or: NULL_POINTER (kept NULL; keys, or values with
 * value_bytes 4 or 8, NULL with count > 0), INVALID_DTYPE, INVALID_ARGUMENT
 * (value_bytes; values given with value_bytes 0; bit range).
 */
LIBSCAN_API libscan_status_t libscan_cpu_sort_unique(void *keys, void *values, size_t count, libscan_dtype_t key,
                                                     size_t value_bytes, const libscan_sort_opts_t *opts,
                                                     size_t *kept);

/* ------------------------------------------------------------------------- */
/* Helpers                                                                    */
/* ------------------------------------------------------------------------- */

/* The number of 8-bit passes a sort of `key` over [begin_bit, end_bit)
 * makes (end_bit 0 = the key's width): ceil((end_bit - begin_bit) / 8). It
 * decides where libscan_sort_double_buffer() leaves the result. -1 for an
 * invalid key or range. Host-only. */
LIBSCAN_API int libscan_sort_num_passes(libscan_dtype_t key, unsigned begin_bit, unsigned end_bit);

/* ------------------------------------------------------------------------- */
/* Segmented sort                                                             */
/* ------------------------------------------------------------------------- */
/*
 * Sorts every segment of an array on its own: segment s is [offsets[s],
 * offsets[s+1]) (CSR, as libscan_segmented_inclusive_scan_offsets), s <
 * num_segments. Keys or key/value pairs, either direction, a bit range, in
 * the order and with the stability of the top of this file: inside a
 * segment equal keys keep their input order; keys never leave their segment.
 *
 * Offsets  num_segments + 1 uint64_t: offsets[0] == 0, non-decreasing,
 *          offsets[num_segments] == count, so every key is in exactly one
 *          segment (empty segments are allowed). num_segments == 0 only with
 *          count == 0. A segment may hold any number of keys (more than 2^31
 *          included).
 * Checks   The GPU call reads the offsets back and checks them before
 *          anything is launched (it then synchronises with `stream` and
 *          cannot be captured), unless opts->trust_offsets is set: then
 *          nothing is read and valid offsets are the caller's duty (invalid
 *          ones give unspecified keys and values in the outputs, and may make
 *          the call write anywhere inside d_keys_out, d_values_out and its
 *          temp, never outside them). The CPU call always checks them (host
 *          memory, no cost worth saving). Bad offsets: INVALID_ARGUMENT.
 * Temp     libscan_segmented_sort_temp_bytes(count, num_segments, key,
 *          value_bytes, &bytes), or none (the temp cache). It holds one
 *          alternate copy of the keys and values for the segments larger than
 *          one block's share (2048 or 4096 keys), which take libscan_sort()'s
 *          passes; their bookkeeping (look-back words, and each such
 *          segment's digit counts) of at most 1.5 bytes per key when neither
 *          keys nor values exceed 4 bytes, 2.8 for 1- to 4-byte keys with
 *          8-byte values, 4.8 for 8-byte keys (twice that from 2^30 keys;
 *          far less when num_segments is small); and 16 bytes per segment.
 *          A call with nothing to order (count <= 1, or begin_bit ==
 *          end_bit) uses none.
 * Determinism A stable sort has one result: the output is a function of the
 *          input, the offsets and the options alone, on the GPU and the CPU.
 */

/* Options of one segmented sort: libscan_sort_opts_t's fields, then
 * trust_offsets (see "Checks" above; ignored by the CPU call).
 * Zero-initialise or use LIBSCAN_SEGSORT_OPTS_INIT; opts = NULL: defaults. */
typedef struct libscan_segsort_opts {
    int descending;
    unsigned begin_bit;
    unsigned end_bit;
    void *d_temp;
    size_t temp_bytes;
    int trust_offsets;
} libscan_segsort_opts_t;

#define LIBSCAN_SEGSORT_OPTS_INIT {0, 0u, 0u, NULL, 0, 0}

/*
 * libscan_segmented_sort_temp_bytes: *temp_bytes = the scratch bytes
 * libscan_segmented_sort() needs for `count` keys of `key` with value_bytes
 * values (0, 4 or 8) in num_segments segments, with LIBSCAN_TEMP_ALIGNMENT
 * bytes of slack; 0 when the call needs none: count <= 2048 (4096 when
 * neither keys nor values are 8 bytes), where every segment fits one
 * block. The same for both directions and every bit range. Host-only.
 * Returns SUCCESS, or NULL_POINTER (temp_bytes), INVALID_DTYPE,
 * INVALID_ARGUMENT (value_bytes), TOO_LARGE (count or num_segments >
 * LIBSCAN_MAX_COUNT).
 */
LIBSCAN_API libscan_status_t libscan_segmented_sort_temp_bytes(size_t count, size_t num_segments,
                                                               libscan_dtype_t key, size_t value_bytes,
                                                               size_t *temp_bytes);

/*
 * libscan_segmented_sort: out-of-place segmented sort. Segment s of
 * d_keys_out receives segment s of d_keys_in in order (and d_values_out the
 * values of d_values_in, permuted the same way). Inputs are not modified.
 *
 * d_keys_in, d_keys_out, d_values_in, d_values_out, count, key, value_bytes
 *              as for libscan_sort() (the four buffers distinct).
 * d_offsets    device array of num_segments + 1 uint64_t (see "Offsets");
 *              must not overlap any other buffer.
 * opts, stream as for libscan_sort() (libscan_segsort_opts_t).
 *
 * Returns libscan_sort()'s statuses; also NULL_POINTER (d_offsets NULL),
 * INVALID_ARGUMENT (num_segments 0 with count > 0; offsets that are not
 * valid, when checked), TOO_LARGE (num_segments > LIBSCAN_MAX_COUNT).
 * Asynchronous unless the offsets are checked (see "Checks").
 */
LIBSCAN_API libscan_status_t libscan_segmented_sort(const void *d_keys_in, void *d_keys_out, const void *d_values_in,
                                                    void *d_values_out, size_t count, const uint64_t *d_offsets,
                                                    size_t num_segments, libscan_dtype_t key, size_t value_bytes,
                                                    const libscan_segsort_opts_t *opts, cudaStream_t stream);

/*
 * libscan_cpu_segmented_sort: the same sort in host memory, in place
 * (keys, and values: value_bytes 0, 4 or 8, NULL when 0), synchronous; the
 * result is the GPU call's. Segments are spread over the threads ("CPU
 * threads" above, one per 2^16 keys): each thread sorts whole segments of
 * its share one after another; a segment of more than 2^20 keys is sorted
 * by libscan_cpu_sort's threaded sort instead. Memory: for each thread,
 * scratch of 32 bytes per key of the largest segment it sorts, and for a
 * large segment what libscan_cpu_sort() takes; all freed before returning.
 *
 * Returns SUCCESS, or libscan_cpu_sort()'s statuses, and NULL_POINTER
 * (offsets NULL), INVALID_ARGUMENT (num_segments 0 with count > 0; offsets
 * not valid: nothing is written), TOO_LARGE (num_segments). On
 * OUT_OF_MEMORY every key (and value) is still in its segment, each segment
 * either sorted or as it was.
 */
LIBSCAN_API libscan_status_t libscan_cpu_segmented_sort(void *keys, void *values, size_t count,
                                                        const uint64_t *offsets, size_t num_segments,
                                                        libscan_dtype_t key, size_t value_bytes,
                                                        const libscan_segsort_opts_t *opts);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* LIBSCAN_SORT_H */
