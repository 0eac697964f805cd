/* reference.h -- the CPU oracle for libscan's scans: every libscan_dtype_t x
 * libscan_op_t, inclusive and exclusive, with carry-in and carry-out.
 *
 * Written from the manual (libscan.h), not from libscan's code:
 *  - integer sums wrap (computed in unsigned arithmetic of the type's width);
 *  - float sums are accumulated in long double and each output rounded
 *    once; compared either exactly (bitwise, for inputs whose every prefix
 *    is exactly representable, e.g. small integers) or within
 *    (64 + i/2048 + 2) * eps * (|init| + sum |x_j|), a bound on the rounding
 *    error of any summation tree of depth <= 64 + i/2048 (libscan's tiles
 *    are >= 2048 elements and chain left to right);
 *  - min/max are exact: a NaN anywhere in the prefix makes the result NaN
 *    (and the result must be a quiet NaN), -0.0 < +0.0;
 *  - identities: 0 / -0.0 for sum, the type's maximum / +inf for min, the
 *    type's minimum / -inf for max. */
#ifndef LIBSCAN_TEST_REFERENCE_H
#define LIBSCAN_TEST_REFERENCE_H

#include <stddef.h>
#include <stdint.h>
#include "libscan/libscan.h"

#ifdef __cplusplus
extern "C" {
#endif

#define REF_NUM_DTYPES 6
#define REF_NUM_OPS 3
extern const libscan_dtype_t ref_dtypes[REF_NUM_DTYPES];
extern const libscan_op_t ref_ops[REF_NUM_OPS];

/* One scan to check. */
typedef struct ref_case {
    libscan_dtype_t dtype;
    libscan_op_t op;
    int exclusive;
    const void *in;   /* n elements */
    size_t n;
    const void *init; /* carry-in, or NULL for the identity */
    int float_exact;  /* float sums: demand bitwise equality */
} ref_case_t;

size_t ref_dtype_size(libscan_dtype_t dtype); /* 0 for an unknown dtype */
const char *ref_dtype_name(libscan_dtype_t dtype);
const char *ref_op_name(libscan_op_t op);
int ref_is_float(libscan_dtype_t dtype);

/* The operator's identity. */
void ref_identity(libscan_dtype_t dtype, libscan_op_t op, void *out);
/* out = a (+) b in the type's own arithmetic (float sums rounded once). */
void ref_combine(libscan_dtype_t dtype, libscan_op_t op, const void *a, const void *b, void *out);

/* Expected outputs (out: n elements, may be NULL) and total (may be NULL). */
void ref_scan(const ref_case_t *c, void *out, void *total);

/* Checks libscan's outputs against the reference. got_total may be NULL
 * (not checked). Returns 0 when everything matches; otherwise 1 with a
 * description of the first mismatch in msg. */
int ref_check(const ref_case_t *c, const void *got, const void *got_total, char *msg, size_t cap);

/* Bitwise equality, except that any quiet NaN equals any NaN expectation. */
int ref_same(libscan_dtype_t dtype, const void *expected, const void *got);

/* Human-readable value. */
void ref_format(libscan_dtype_t dtype, const void *v, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
