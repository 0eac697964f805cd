/* segsort_reference.h -- the segmented sort tests' segments and oracle:
 * offsets of every shape the issue names (one segment, empty segments,
 * many tiny ones, power-law sizes, sizes around every size class and tile
 * of the GPU kernels), and the expected order, segment by segment, from the
 * stable qsort reference of sort_reference.h (never from the code under
 * test). */
#ifndef LIBSCAN_TEST_SEGSORT_REFERENCE_H
#define LIBSCAN_TEST_SEGSORT_REFERENCE_H

#include <stddef.h>
#include <stdint.h>
#include "sort_reference.h"

typedef enum seg_shape {
    SEG_ONE = 0,       /* one segment holding everything */
    SEG_EMPTY_MIX,     /* random sizes 0 .. 40, a third of them empty, empty ones first and last */
    SEG_EQUAL_SMALL,   /* all of 256 keys (the last one shorter) */
    SEG_POWER_LAW,     /* sizes ~ 1 / size^1.5 from 1 up to the whole array */
    SEG_CLASS_EDGES,   /* sizes around 256, 1024, 2048 and 4096 (one block's share) and several tiles */
    SEG_PASS_TILES,    /* sizes around 1, 2 and 3 tiles of the device-wide passes (4096, 7168, 7680 keys) */
    SEG_SHAPE_COUNT
} seg_shape_t;

const char *seg_shape_name(seg_shape_t s);

/* Offsets (malloc'd, *num + 1 entries, 0 .. n) of shape s over n keys.
 * NULL when out of memory. */
uint64_t *seg_make_offsets(rng_t *r, seg_shape_t s, size_t n, size_t *num);

/* The expected order: perm[i] = the input position of the key that lands at
 * i, each segment sorted on its own by ref_order(). malloc'd; NULL when out
 * of memory. */
size_t *seg_ref_order(libscan_dtype_t key, const void *keys, const uint64_t *off, size_t num, int descending,
                      unsigned begin_bit, unsigned end_bit);

#endif
