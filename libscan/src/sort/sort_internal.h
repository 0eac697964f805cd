/* sort_internal.h -- what the C entry points (sort_api.c) hand to the CUDA
 * launcher (sort_launch.cu) once every argument is checked. Not installed. */
#ifndef LIBSCAN_SORT_INTERNAL_H
#define LIBSCAN_SORT_INTERNAL_H

#include <libscan/sort.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A checked sort. Pass i of P reads the previous pass's output (keys_in for
 * the first) and writes keys_out when P-1-i is even, else keys_alt; so the
 * last pass always ends in keys_out. keys_alt differs from keys_out; in the
 * double buffer keys_in equals keys_out when P is even and keys_alt when P
 * is odd (P >= 3 writes the input's buffer, which the caller gave up), so no
 * pass reads and writes one buffer. Same for values. */
typedef struct libscan__sort_plan {
    libscan_dtype_t key;
    size_t value_bytes; /* 0, 4 or 8 */
    size_t count;
    int descending;
    unsigned begin_bit, end_bit; /* resolved: end_bit > 0 */
    int passes;
    const void *keys_in;
    void *keys_out;
    void *keys_alt;
    const void *values_in; /* NULL with iota_values */
    void *values_out;
    void *values_alt;
    int iota_values;       /* argsort: the first pass makes value i = i */
    void *scratch;         /* 256-byte aligned, libscan__sort_scratch_bytes() */
} libscan__sort_plan_t;

/* The size of a key of `key`, or 0 when it is not one of sort.h's key
 * types (every check of the family goes through this). */
size_t libscan__sort_key_bytes(libscan_dtype_t key);

/* Bytes of counters, histograms and look-back words for a sort of `count`
 * keys of key_bytes with value_bytes values (0 when count is 0). Host only. */
size_t libscan__sort_scratch_bytes(size_t count, size_t key_bytes, size_t value_bytes);

/* Bench and tests only: the path of every later sort of the process.
 * AUTO: the library's choice (the counting sort for U8/U16 keys without
 * values over the whole key, U16 from CountingTuning's size on; else the
 * onesweep passes, whose first pass ranks keys without values over the
 * whole key in any order). ONESWEEP: always the passes. COUNTING: the
 * counting sort wherever it applies, whatever the size (test_sort_counting).
 * STABLE: always the passes, every one keeping the order of equal digits:
 * the path before the counting sort and the any-order first pass
 * (bench_radixsort --baseline). MSD: the MSD path (msd_sort.cuh) wherever
 * it applies (over the whole key: 4- and 8-byte keys without values, and
 * 4-byte keys with 4-byte values, its stable form), whatever the size;
 * AUTO takes it in MsdTuning's and MsdPairsTuning's sizes only (and the
 * temp holds its state only there: size a forced sort's temp after
 * forcing). Not for library callers:
 * the setting is process-wide. */
enum {
    LIBSCAN__SORT_PATH_AUTO = 0,
    LIBSCAN__SORT_PATH_ONESWEEP = 1,
    LIBSCAN__SORT_PATH_COUNTING = 2,
    LIBSCAN__SORT_PATH_STABLE = 3,
    LIBSCAN__SORT_PATH_MSD = 4
};
void libscan__sort_force_path(int path);

/* Tests only: the byte offset, inside the scratch of a sort of `count`
 * key_bytes-byte keys with value_bytes-byte values (4- or 8-byte keys
 * without values, 4-byte keys with 4-byte values), of the MSD path's
 * decision (msd_sort.cuh's MsdState::taken: 1 when it sorted, 0 when the
 * passes did), valid after a sort that launched it. */
size_t libscan__sort_msd_taken_offset(size_t count, size_t key_bytes, size_t value_bytes);
/* Tests only: likewise, of the count of buckets that the stable MSD path
 * (4-byte keys with 4-byte values) sorted by bytes, their bins crowded
 * (msd_sort.cuh's MsdState::crowded_count), valid after a sort that took it. */
size_t libscan__sort_msd_crowded_offset(size_t count, size_t key_bytes, size_t value_bytes);

/* Whether the first pass of a sort (or of each segment's sort) may order
 * the keys of one digit as it likes (onesweep.cuh's ANY_ORDER): keys without
 * values sorted over the whole key (begin_bit 0, end_bit 8 x key_bytes),
 * where keys that tie on every pass are equal bit for bit (the codec is a
 * bijection), so no order among them can show. A bit range keeps every
 * pass in order (keys that tie on the range may differ outside it), and so
 * do values (argsort's indices too). LIBSCAN__SORT_PATH_STABLE keeps every
 * pass in order (the bench's baseline). */
int libscan__sort_any_order_first_pass(size_t key_bytes, size_t value_bytes, unsigned begin_bit, unsigned end_bit);

/* Enqueues the sort. Returns the first CUDA error met. */
cudaError_t libscan__sort_launch(const libscan__sort_plan_t *plan, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
