/* segsort_internal.h -- what the segmented sort's C entry point
 * (segsort_api.c) hands to its CUDA launcher (segsort_launch.cu) once every
 * argument is checked. Not installed. */
#ifndef LIBSCAN_SEGSORT_INTERNAL_H
#define LIBSCAN_SEGSORT_INTERNAL_H

#include <libscan/sort.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct libscan__segsort_plan {
    libscan_dtype_t key;
    size_t value_bytes; /* 0, 4 or 8 */
    size_t count;
    const uint64_t *offsets;
    size_t num_segments;
    int descending;
    unsigned begin_bit, end_bit; /* resolved: end_bit > 0 */
    int passes;                  /* 8-bit passes over the range; 0: nothing to order */
    const void *keys_in;
    void *keys_out;
    const void *values_in;
    void *values_out;
    void *temp; /* 256-byte aligned, libscan__segsort_scratch_bytes(); NULL when nothing is ordered */
} libscan__segsort_plan_t;

/* Bytes of temp (without slack) a segmented sort of `count` keys of
 * key_bytes with value_bytes values in num_segments segments needs; 0 for
 * count 0. Host only. */
size_t libscan__segsort_scratch_bytes(size_t count, size_t num_segments, size_t key_bytes, size_t value_bytes);

/* Checks entries first .. first + k - 1 of a segmented sort's offsets (held
 * at h[0 .. k)): entry 0 is 0, none is below the one before (*prev, which it
 * updates) and entry num_segments is count. Returns nonzero when they are
 * valid. Both paths use it: the CPU call on the whole array, the GPU call on
 * each chunk it reads back. */
int libscan__segsort_offsets_ok(const uint64_t *h, size_t k, size_t first, uint64_t *prev, size_t count,
                                size_t num_segments);

/* Enqueues the sort. Returns the first CUDA error met. */
cudaError_t libscan__segsort_launch(const libscan__segsort_plan_t *plan, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
