/*
 * libscan.h -- the public C API of libscan, and its manual.
 *
 * libscan computes prefix scans (running sums, minima, maxima) over arrays in
 * GPU memory with a single pass: every element is read once and written once.
 * This header is plain C99 and can be included from C or C++. The device
 * layer (warp, block, tile look-back and device-wide scans with your own
 * operator) lives in the headers under <libscan/cuda/> and is documented there.
 *
 * ---------------------------------------------------------------------------
 * Conventions shared by every function
 * ---------------------------------------------------------------------------
 * Status   Every function returns a libscan_status_t. LIBSCAN_SUCCESS is 0.
 *          libscan_status_string() turns any value into a sentence; it never
 *          returns NULL. The library never prints, aborts or exits.
 * Checks   All arguments are checked before anything is launched. A call that
 *          returns an error other than LIBSCAN_ERROR_CUDA has launched
 *          nothing and written nothing.
 * Streams  Work is enqueued on the `stream` argument (0 = legacy default
 *          stream) and runs asynchronously. No function synchronises with the
 *          device; results are ready when the stream reaches that point.
 * Temp     Most calls need device scratch ("temp"). Each family has a
 *          *_temp_bytes() query of the same shape (the call's sizes and
 *          types, then a size_t * that receives the bytes) whose figure
 *          includes LIBSCAN_TEMP_ALIGNMENT bytes of slack, so any d_temp
 *          pointer works. A call takes temp in one of three ways:
 *          - Caller temp (opts->d_temp, opts->temp_bytes): nothing is
 *            allocated, and the call may be captured into a CUDA graph,
 *            which then uses that buffer on every replay. The buffer may be
 *            reused by the next call on the same stream (a stream runs its
 *            work in order), but not by concurrent work on other streams.
 *            It is checked for its size and its overlaps, and checked to be
 *            device memory where the call uses it (some arguments, such as
 *            small counts, need none of it).
 *          - None, on a stream that is not being captured: temp comes from
 *            libscan's temp cache (below), a stream-ordered memory pool of
 *            libscan's own per device that keeps one block per stream across
 *            calls, so a call without temp costs what a call with it costs.
 *            The application's own memory pools are never used or changed.
 *          - None, under stream capture: the temp becomes an allocation
 *            node and a free node of the graph (cudaMallocAsync and
 *            cudaFreeAsync captured: memory the graph owns, from no pool);
 *            the cache is neither used nor created.
 *          No call synchronises or calls cudaMalloc to get temp.
 * Counts   Element counts are size_t; more than 2^31 elements are supported
 *          (up to 2^40).
 * Pointers Data pointers must be device-accessible (cudaMalloc, managed or
 *          mapped pinned memory). Unregistered host memory is rejected with
 *          LIBSCAN_ERROR_INVALID_POINTER (unless the device can access
 *          pageable memory). Element pointers must be aligned to the element
 *          size; 16-byte alignment is fastest.
 * Determinism
 *          The same inputs give bitwise the same outputs on every run, floats
 *          included. The association used is fixed: the array is cut into
 *          tiles whose size depends only on the element size; inside a tile
 *          the combination tree is fixed by the code; tiles form groups of
 *          32 combined in a fixed warp-scan order, and group prefixes are a
 *          left fold in group order, whatever the timing of the look-back.
 *          The association depends on the element size and the count
 *          alone: not on the stream, on graph capture, on the temp given,
 *          on the GPU's load or on which kernel the library picks for the
 *          count, so a scan replayed from a CUDA graph gives the bits of the
 *          same scan called directly. (A device too small for the one-launch
 *          path of counts up to 65536 -- fewer than 64 of its blocks
 *          resident, e.g. a small MIG slice -- takes the look-back there, so
 *          its bits for such counts may differ from a full GPU's.)
 *          Float sums therefore equal a sequential loop only up to
 *          rounding, but never vary between runs on the same GPU
 *          architecture and library version.
 *
 * Operators (libscan_op_t) and their identities
 *   LIBSCAN_OP_SUM  a + b. Integers wrap (two's complement). Identity 0 for
 *                   integers and -0.0 for floats (so -0.0 survives a scan).
 *   LIBSCAN_OP_MIN  the smaller of a and b. For floats NaN propagates (a NaN
 *                   in the prefix makes the result a quiet NaN) and -0.0 is
 *                   taken as smaller than +0.0, which makes min exactly
 *                   associative and commutative. Identity: the type's
 *                   maximum, +inf for floats.
 *   LIBSCAN_OP_MAX  mirror image of MIN; identity: the type's minimum, -inf.
 */
#ifndef LIBSCAN_LIBSCAN_H
#define LIBSCAN_LIBSCAN_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#include "libscan/version.h" /* generated: LIBSCAN_VERSION_{MAJOR,MINOR,PATCH} */

#if defined(_WIN32)
#  define LIBSCAN_API
#elif defined(__GNUC__)
#  define LIBSCAN_API __attribute__((visibility("default")))
#else
#  define LIBSCAN_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* LIBSCAN_VERSION is MAJOR * 10000 + MINOR * 100 + PATCH. */
#define LIBSCAN_VERSION \
    (LIBSCAN_VERSION_MAJOR * 10000 + LIBSCAN_VERSION_MINOR * 100 + LIBSCAN_VERSION_PATCH)

/* ------------------------------------------------------------------------- */
/* Status codes. Values are explicit and only ever appended.                  */
/* ------------------------------------------------------------------------- */
typedef enum libscan_status {
    LIBSCAN_SUCCESS = 0,
    LIBSCAN_ERROR_NULL_POINTER = 1,     /* a required pointer is NULL */
    LIBSCAN_ERROR_INVALID_DTYPE = 2,    /* dtype is not a libscan_dtype_t value */
    LIBSCAN_ERROR_INVALID_OP = 3,       /* op is not a libscan_op_t value */
    LIBSCAN_ERROR_INVALID_ARGUMENT = 4, /* inconsistent arguments (see function) */
    LIBSCAN_ERROR_TEMP_TOO_SMALL = 5,   /* opts->temp_bytes < the call's *_temp_bytes() */
    LIBSCAN_ERROR_OVERLAP = 6,          /* input and output overlap but are not equal */
    LIBSCAN_ERROR_INVALID_POINTER = 7,  /* pointer is not device-accessible or misaligned */
    LIBSCAN_ERROR_TOO_LARGE = 8,        /* count exceeds LIBSCAN_MAX_COUNT */
    LIBSCAN_ERROR_OUT_OF_MEMORY = 9,    /* stream-ordered temp allocation failed */
    LIBSCAN_ERROR_CUDA = 10,            /* a CUDA call or launch failed (the library has already
                                           consumed it with cudaGetLastError(); sticky errors show
                                           again in the next CUDA call) */
    LIBSCAN_ERROR_NCCL = 11,            /* an NCCL call failed (<libscan/nccl.h> only) */
    LIBSCAN_ERROR_CAPACITY = 12         /* an output holds fewer elements than the call must write
                                           there (<libscan/nccl.h>: the sort's capacity) */
} libscan_status_t;

/* Element types. Values are explicit and only ever appended. Scans,
 * segmented scans and compaction take U32, I32, U64, I64, F32 and F64 (else
 * LIBSCAN_ERROR_INVALID_DTYPE); each family's header lists what it takes. */
typedef enum libscan_dtype {
    LIBSCAN_U32 = 0, /* uint32_t */
    LIBSCAN_I32 = 1, /* int32_t  */
    LIBSCAN_U64 = 2, /* uint64_t */
    LIBSCAN_I64 = 3, /* int64_t  */
    LIBSCAN_F32 = 4, /* float    */
    LIBSCAN_F64 = 5, /* double   */
    LIBSCAN_U8 = 6,  /* uint8_t: sort keys and SAT images only */
    LIBSCAN_U16 = 7  /* uint16_t: sort keys and SAT images only */
} libscan_dtype_t;

/* Operators (see the table at the top of this file). */
typedef enum libscan_op {
    LIBSCAN_OP_SUM = 0,
    LIBSCAN_OP_MIN = 1,
    LIBSCAN_OP_MAX = 2
} libscan_op_t;

/* The largest count any scan accepts (2^40 elements). */
#define LIBSCAN_MAX_COUNT ((size_t)1 << 40)

/*
 * Options for one scan call. Zero-initialise (or use LIBSCAN_SCAN_OPTS_INIT)
 * and set what you need; passing opts = NULL means all defaults.
 *
 * init      Host pointer to one element of the call's dtype: the initial value
 *           (carry-in) combined in front of the first element. NULL: the
 *           operator's identity. Read before the call returns.
 * d_init    Device pointer to one element: the same, read on the device when
 *           the scan runs, so the total of a previous call on the same stream
 *           can feed the next one without a host round trip. At most one of
 *           init and d_init may be set (else LIBSCAN_ERROR_INVALID_ARGUMENT).
 * d_total   Device pointer to one element that receives init (+) x[0] (+) ...
 *           (+) x[count-1], the carry-out. NULL: not written. It may equal
 *           d_init (the carry is then updated in place, ready for the next
 *           chunk). With count = 0 it receives the initial value.
 * d_temp    Device scratch of temp_bytes bytes, or NULL: the temp cache (see
 *           Temp above). Must not overlap any other argument. Checked to be
 *           device memory only where the call uses it (see Temp).
 * temp_bytes Size of d_temp; checked against libscan_scan_temp_bytes().
 */
typedef struct libscan_scan_opts {
    const void *init;
    const void *d_init;
    void *d_total;
    void *d_temp;
    size_t temp_bytes;
} libscan_scan_opts_t;

#define LIBSCAN_SCAN_OPTS_INIT {NULL, NULL, NULL, NULL, 0}

/* ------------------------------------------------------------------------- */
/* Scans                                                                      */
/* ------------------------------------------------------------------------- */

/*
 * libscan_inclusive_scan: d_out[i] = init (+) d_in[0] (+) ... (+) d_in[i].
 *
 * d_in, d_out  device arrays of `count` elements of `dtype`. d_in == d_out
 *              (in place) is allowed; any other overlap gives
 *              LIBSCAN_ERROR_OVERLAP. Both may be NULL when count == 0.
 * count        number of elements, 0 .. LIBSCAN_MAX_COUNT.
 * dtype, op    element type and operator.
 * opts         NULL or options (carry-in, carry-out, temp storage).
 * stream       the CUDA stream the work is enqueued on.
 *
 * Returns LIBSCAN_SUCCESS, or: NULL_POINTER (d_in/d_out NULL with count > 0),
 * INVALID_DTYPE, INVALID_OP, INVALID_ARGUMENT (init and d_init both set, or
 * d_temp NULL with temp_bytes != 0), TEMP_TOO_SMALL, OVERLAP (d_in/d_out
 * partly overlap; d_init inside d_out; d_total inside d_in or d_out; d_temp
 * overlapping any other buffer), INVALID_POINTER (host memory or misaligned),
 * TOO_LARGE, OUT_OF_MEMORY, CUDA. Asynchronous with respect to the host.
 */
LIBSCAN_API libscan_status_t libscan_inclusive_scan(const void *d_in, void *d_out, size_t count,
                                                    libscan_dtype_t dtype, libscan_op_t op,
                                                    const libscan_scan_opts_t *opts,
                                                    cudaStream_t stream);

/*
 * libscan_exclusive_scan: d_out[0] = init, d_out[i] = init (+) d_in[0] (+)
 * ... (+) d_in[i-1]. Same parameters, statuses, in-place rule and
 * synchronisation as libscan_inclusive_scan. The total (opts->d_total)
 * includes the last element, so chunks chain exactly as with the inclusive
 * scan.
 */
LIBSCAN_API libscan_status_t libscan_exclusive_scan(const void *d_in, void *d_out, size_t count,
                                                    libscan_dtype_t dtype, libscan_op_t op,
                                                    const libscan_scan_opts_t *opts,
                                                    cudaStream_t stream);

/*
 * libscan_scan_temp_bytes: *temp_bytes = the scratch bytes a scan of `count`
 * elements of `dtype` needs (the same for every operator and both scan
 * kinds; may be 0). Host-only, no CUDA call. Returns SUCCESS, NULL_POINTER,
 * INVALID_DTYPE or TOO_LARGE.
 */
LIBSCAN_API libscan_status_t libscan_scan_temp_bytes(size_t count, libscan_dtype_t dtype,
                                                     size_t *temp_bytes);

/* ------------------------------------------------------------------------- */
/* Segmented scans                                                            */
/* ------------------------------------------------------------------------- */
/*
 * A segmented scan restarts at the first element of every segment: each
 * segment is scanned as if it were an array of its own. Same dtypes,
 * operators, streams, temp, in-place (d_in == d_out allowed, partial overlap
 * is OVERLAP) and determinism rules as the plain scans. No carry-in or
 * carry-out.
 *
 * Association. A segmented scan is a scan of (head, value) pairs whose value
 * restarts at every head, so only elements of one segment are ever combined,
 * the earlier always on the left. The order is fixed by the dtype's element
 * size (and, for rows, the shape), so float results are bitwise the same on
 * every run:
 *   head flags  tiles of 8192 elements of 4 bytes (4096 of 8); thread t of a
 *               tile takes the 32 (16) consecutive elements from 32 t (16 t)
 *               and folds them left to right; the 32 thread totals of a warp
 *               are combined by a fixed Kogge-Stone tree (steps 1, 2, 4, 8,
 *               16), the warp totals of a tile likewise, and tiles by the
 *               plain scan's look-back order; an element is then ((tile
 *               prefix (+) warps before) (+) threads before in its warp)
 *               (+) its thread's elements before it, left to right;
 *   offsets     the plain scan's association over pairs (16-byte vectors
 *               striped over a warp), in tiles of 4096 elements of 4 bytes
 *               (2048 of 8);
 *   rows        see libscan_inclusive_scan_rows.
 * The tile sizes are tuning values (libscan/cuda/tuning.cuh) and may change
 * between versions; the rule that the result depends on nothing but the
 * element size and the segments does not.
 *
 * Segments are given one of three ways:
 *   head flags  one byte per element, non-zero starts a segment; element 0
 *               always starts one, flagged or not.
 *   offsets     num_segments + 1 non-decreasing 64-bit offsets (CSR):
 *               segment s is [offsets[s], offsets[s+1]); empty segments are
 *               allowed; elements before offsets[0] and from
 *               offsets[num_segments] on are outside every segment and are
 *               left untouched in d_out.
 *   rows        a matrix of `rows` rows of `row_len` elements, row r starting
 *               at element r * pitch (pitch >= row_len, in elements); every
 *               row is a segment; elements between rows are untouched.
 */

/*
 * Options for one segmented scan. Zero-initialise (or use
 * LIBSCAN_SEGSCAN_OPTS_INIT) for the defaults.
 *
 * d_seg_init     NULL, or device array of one initial value per segment
 *                (num_segments values; rows values; for head flags, one per
 *                segment in order). Element i of segment s then gets
 *                d_seg_init[s] (+) (the segment's scan up to i); an
 *                exclusive scan writes d_seg_init[s] at the segment start.
 *                Segment numbers travel in 31 bits: with d_seg_init, head
 *                flags need count < 2^31 and offsets/rows fewer than 2^31
 *                segments (else INVALID_ARGUMENT).
 * d_temp, temp_bytes  as for libscan_scan_opts_t; size with
 *                libscan_segmented_temp_bytes().
 * trust_offsets  Offsets mode only. 0 (default): the offsets are copied to
 *                the host and checked before anything is launched (this
 *                call then synchronises with `stream` and is not capturable);
 *                decreasing offsets or offsets beyond count give
 *                INVALID_ARGUMENT. 1: no device read and no sync; valid
 *                offsets are the caller's contract (invalid ones give
 *                unspecified values inside d_out, never writes outside it).
 */
typedef struct libscan_segscan_opts {
    const void *d_seg_init;
    void *d_temp;
    size_t temp_bytes;
    int trust_offsets;
} libscan_segscan_opts_t;

#define LIBSCAN_SEGSCAN_OPTS_INIT {NULL, NULL, 0, 0}

/* How segments are described, for libscan_segmented_temp_bytes(). */
typedef enum libscan_segments {
    LIBSCAN_SEGMENTS_FLAGS = 0,
    LIBSCAN_SEGMENTS_OFFSETS = 1,
    LIBSCAN_SEGMENTS_ROWS = 2
} libscan_segments_t;

/*
 * libscan_segmented_inclusive_scan / libscan_segmented_exclusive_scan:
 * segmented scan of `count` elements with one head-flag byte per element.
 *
 * d_in, d_out  device arrays of count elements (may be equal).
 * d_flags      device array of count bytes; must not overlap d_out.
 * Returns SUCCESS, NULL_POINTER (d_in, d_out or d_flags NULL with count > 0),
 * INVALID_DTYPE, INVALID_OP, INVALID_ARGUMENT, TEMP_TOO_SMALL, OVERLAP,
 * INVALID_POINTER, TOO_LARGE, OUT_OF_MEMORY or CUDA. Asynchronous.
 */
LIBSCAN_API libscan_status_t libscan_segmented_inclusive_scan(const void *d_in, void *d_out, size_t count,
                                                              const unsigned char *d_flags, libscan_dtype_t dtype,
                                                              libscan_op_t op, const libscan_segscan_opts_t *opts,
                                                              cudaStream_t stream);
LIBSCAN_API libscan_status_t libscan_segmented_exclusive_scan(const void *d_in, void *d_out, size_t count,
                                                              const unsigned char *d_flags, libscan_dtype_t dtype,
                                                              libscan_op_t op, const libscan_segscan_opts_t *opts,
                                                              cudaStream_t stream);

/*
 * libscan_segmented_inclusive_scan_offsets / ..._exclusive_scan_offsets:
 * segmented scan of the segments [d_offsets[s], d_offsets[s+1]) of an array
 * of `count` elements, s < num_segments.
 *
 * d_offsets    device array of num_segments + 1 uint64_t; must not overlap
 *              d_out.
 * num_segments 0 is allowed only with count == 0 (else INVALID_ARGUMENT).
 * Statuses as above; INVALID_ARGUMENT also for decreasing offsets or an
 * offset > count (checked unless opts->trust_offsets; see the options).
 */
LIBSCAN_API libscan_status_t libscan_segmented_inclusive_scan_offsets(const void *d_in, void *d_out, size_t count,
                                                                      const uint64_t *d_offsets, size_t num_segments,
                                                                      libscan_dtype_t dtype, libscan_op_t op,
                                                                      const libscan_segscan_opts_t *opts,
                                                                      cudaStream_t stream);
LIBSCAN_API libscan_status_t libscan_segmented_exclusive_scan_offsets(const void *d_in, void *d_out, size_t count,
                                                                      const uint64_t *d_offsets, size_t num_segments,
                                                                      libscan_dtype_t dtype, libscan_op_t op,
                                                                      const libscan_segscan_opts_t *opts,
                                                                      cudaStream_t stream);

/*
 * libscan_inclusive_scan_rows / libscan_exclusive_scan_rows: scan every row
 * of a matrix, rows of row_len elements starting pitch elements apart (the
 * batched scan that summed-area tables use). d_in and d_out share the pitch.
 * rows * pitch must not exceed LIBSCAN_MAX_COUNT (else TOO_LARGE); pitch <
 * row_len is INVALID_ARGUMENT. Statuses and rules as above.
 *
 * Rows need no look-back: when rows are short (row_len <= 4096 elements of
 * 4 bytes, 2048 of 8) or there are many of them (>= 512), the call enqueues
 * one kernel and nothing else, and uses no temp storage (opts->d_temp is
 * checked for its size and overlaps only, never touched, and nothing is
 * allocated). Fewer
 * longer rows take the segmented scan above. Which way is taken depends only
 * on (rows, row_len, dtype), and so does the association, so float results
 * are bitwise the same on every run (V = 16 / element size; the earlier
 * operand is always on the left):
 *   short rows  each lane of a warp takes V consecutive elements of a row
 *               and folds them left to right; the G lanes of a row (G = the
 *               smallest power of two >= row_len / V, rounded up, at most
 *               32) combine their totals by a fixed Kogge-Stone tree (steps
 *               1, 2, 4, .., G/2), giving each lane the total P of the lanes
 *               before it; rows longer than 32 V are walked by one warp in
 *               chunks of 32 V elements with a running carry, the left fold
 *               ((init (+) C0) (+) C1) (+) ... of the chunk totals (carry =
 *               init, or the identity, for shorter rows). A lane's elements
 *               are then (((carry (+) P) (+) x0) (+) x1) ...;
 *   many long   one block per row, in chunks of 8192 elements of 4 bytes
 *   rows        (4096 of 8): each element is (the row's running total before
 *               its chunk) (+) (its prefix inside the chunk, by the block
 *               scan's tree), the running total being the left fold
 *               ((init (+) C0) (+) C1) (+) ... of the chunk totals;
 *   otherwise   the segmented scan's association (pairs, look-back).
 * The sizes are tuning values (libscan/cuda/tuning.cuh) and may change
 * between versions; the rule that the result depends on nothing but the
 * shape does not.
 */
LIBSCAN_API libscan_status_t libscan_inclusive_scan_rows(const void *d_in, void *d_out, size_t rows, size_t row_len,
                                                         size_t pitch, libscan_dtype_t dtype, libscan_op_t op,
                                                         const libscan_segscan_opts_t *opts, cudaStream_t stream);
LIBSCAN_API libscan_status_t libscan_exclusive_scan_rows(const void *d_in, void *d_out, size_t rows, size_t row_len,
                                                         size_t pitch, libscan_dtype_t dtype, libscan_op_t op,
                                                         const libscan_segscan_opts_t *opts, cudaStream_t stream);

/*
 * libscan_segmented_temp_bytes: *temp_bytes = the scratch a segmented scan
 * of `count` logical elements needs (for rows: rows * row_len), described
 * the given way. Offsets need about 4 more bytes per element (a tag array).
 * Returns SUCCESS, NULL_POINTER, INVALID_DTYPE, INVALID_ARGUMENT (unknown
 * segments value) or TOO_LARGE. Host-only.
 */
LIBSCAN_API libscan_status_t libscan_segmented_temp_bytes(size_t count, libscan_dtype_t dtype,
                                                          libscan_segments_t segments, size_t *temp_bytes);

/* ------------------------------------------------------------------------- */
/* Helpers                                                                    */
/* ------------------------------------------------------------------------- */

/* A static English sentence for any status value, never NULL. */
LIBSCAN_API const char *libscan_status_string(libscan_status_t status);

/* Size in bytes of one element of dtype; 0 for an unknown dtype. */
LIBSCAN_API size_t libscan_dtype_size(libscan_dtype_t dtype);

/* Short name ("u32", "f64", ...) of dtype, or "unknown". Never NULL. */
LIBSCAN_API const char *libscan_dtype_name(libscan_dtype_t dtype);

/* Short name ("sum", "min", "max") of op, or "unknown". Never NULL. */
LIBSCAN_API const char *libscan_op_name(libscan_op_t op);

/* The version of the library actually linked, as LIBSCAN_VERSION encodes it. */
LIBSCAN_API int libscan_version(void);

/* The same as a string, "MAJOR.MINOR.PATCH". */
LIBSCAN_API const char *libscan_version_string(void);

/* The alignment libscan gives temp: a caller's d_temp is aligned up to this
 * many bytes, and every nonzero *_temp_bytes() result includes that much
 * slack, so any pointer works as d_temp. */
#define LIBSCAN_TEMP_ALIGNMENT 256

/* ------------------------------------------------------------------------- */
/* The temp cache (calls made without d_temp)                                 */
/* ------------------------------------------------------------------------- */
/*
 * For each device, libscan creates a stream-ordered memory pool of its own
 * (cudaMemPoolCreate) when a call first needs temp it was not given, and
 * keeps one block per stream: the next call on that stream reuses it, and a
 * call that needs more grows it (the old block is freed in stream order).
 * So after any number of calls on one stream the cache holds the largest temp
 * one of those calls needed (see *_temp_bytes()), no more. Streams are told
 * apart by their CUDA stream id, so a destroyed stream's handle reused for a
 * new stream never shares its block.
 *
 * Limit   The blocks of one device together stay under a limit, by default a
 *         quarter of the device's memory (libscan_temp_cache_set_limit()).
 *         A call whose block would pass it, a call on a stream whose block
 *         another thread is using at that moment, and calls on more than 64
 *         streams of one device take a block of the pool for that call alone,
 *         freed in stream order after it: correct, but slower, as new memory
 *         is then mapped each time.
 * Threads Every function here and every call that uses the cache is safe to
 *         call from several host threads and for several devices at once.
 * Memory  The pool returns memory the cache does not hold to the driver at
 *         the next synchronisation. Cached blocks stay until the release call
 *         below (or the process ends); a destroyed stream's block too.
 */

/*
 * libscan_temp_cache_release: returns every cached block of every device to
 * the driver and trims the pools to zero. Synchronises each device that has
 * a pool (cudaDeviceSynchronize), since a block's last user may be any
 * stream; so do not call it while a stream of this process is being captured.
 * A block that another thread's call is using at that moment stays cached.
 * Calls made afterwards build the cache again. Returns SUCCESS or CUDA.
 */
LIBSCAN_API libscan_status_t libscan_temp_cache_release(void);

/*
 * libscan_temp_cache_set_limit: the most bytes the current device's cached
 * blocks may hold together (default: a quarter of its memory). 0 turns the
 * cache off for that device (every call without temp then allocates and frees
 * from the pool). Blocks already cached stay until they grow or are released.
 * Returns SUCCESS or CUDA.
 */
LIBSCAN_API libscan_status_t libscan_temp_cache_set_limit(size_t bytes);

/*
 * libscan_temp_cache_info: for the current device, the bytes the cached
 * blocks hold (the temp the cache keeps: after calls on one stream, the
 * largest temp one of them needed), the bytes libscan's pool has reserved
 * from the driver (cudaMemPoolAttrReservedMemCurrent: the cached blocks
 * rounded up to the driver's granule, 32 MiB on an H100 with CUDA 13, plus
 * what a synchronisation has not yet returned), and the limit. Any pointer may be NULL. Creates the device's pool if there is none
 * yet. Returns SUCCESS or CUDA.
 */
LIBSCAN_API libscan_status_t libscan_temp_cache_info(size_t *cached_bytes, size_t *pool_bytes, size_t *limit_bytes);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* LIBSCAN_LIBSCAN_H */
