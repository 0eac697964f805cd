/* sort_reference.h -- the sort tests' oracle and inputs: key
 * generators for every distribution of the issue, a comparator written from
 * the IEEE total-order rules (not from the sort's bit map), and a stable
 * qsort-based reference permutation (ties broken by input position). */
#ifndef LIBSCAN_TEST_SORT_REFERENCE_H
#define LIBSCAN_TEST_SORT_REFERENCE_H

#include <stddef.h>
#include <stdint.h>
#include <libscan/sort.h>
#include "support/rng.h"

typedef enum ref_dist {
    DIST_UNIFORM = 0,
    DIST_SORTED,
    DIST_REVERSE,
    DIST_ALL_EQUAL,
    DIST_TWO_DISTINCT,
    DIST_SIXTEEN_DISTINCT,
    DIST_HIGH_BYTE,  /* only the most significant byte varies */
    DIST_LOW_BYTE,   /* only the least significant byte varies */
    DIST_FLOAT_SPECIALS, /* NaN of both signs, +-inf, +-0.0, denormals, normals (ints: uniform) */
    DIST_COUNT
} ref_dist_t;

extern const libscan_dtype_t ref_all_keys[8];
const char *ref_dist_name(ref_dist_t d);

/* Fills n keys of `key` with distribution d. */
void ref_fill(rng_t *r, libscan_dtype_t key, ref_dist_t d, void *keys, size_t n);

/* -1, 0, 1: a before, equal to, after b in ascending total order, comparing
 * only bits [begin_bit, end_bit) of unsigned/signed keys when a range is
 * given (end_bit 0 = all bits; ranges are only used with integer keys). */
int ref_compare(libscan_dtype_t key, const void *a, const void *b, unsigned begin_bit, unsigned end_bit);

/* The stable sorted order: perm[i] = input position of the i-th key.
 * malloc'd; NULL when out of memory. */
size_t *ref_order(libscan_dtype_t key, const void *keys, size_t n, int descending, unsigned begin_bit,
                  unsigned end_bit);

/* Index of the first element where out_keys/out_values differ from
 * keys/values permuted by perm (bitwise), or n when they all match.
 * values/out_values may be NULL (value_bytes 0). */
size_t ref_first_mismatch(const size_t *perm, size_t n, size_t key_bytes, const void *keys, const void *out_keys,
                          size_t value_bytes, const void *values, const void *out_values);

/* values[i] = i (value_bytes 4 or 8), so a sorted pair shows stability. */
void ref_iota(void *values, size_t n, size_t value_bytes);

/* The plain GPU Gems 3 split sort (radix 2), the tests' second reference:
 * for each bit b in [begin, end) of the mapped key (taken from the order
 * rules above), flag the keys whose bit is 0, exclusive-scan the flags with
 * libscan's C API (libscan_exclusive_scan, u32 sum, on the GPU), and scatter:
 * zeros to scan[i], ones to zeros + i - scan[i]. Sorts u32 keys in host
 * memory in place (ascending, stable). Returns 0, or -1 on a CUDA/libscan
 * error. Needs a GPU. */
int ref_split_sort_u32(uint32_t *keys, size_t n);

#endif
