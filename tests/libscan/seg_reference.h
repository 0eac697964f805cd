/* seg_reference.h -- an independent CPU oracle for libscan's segmented scans,
 * written from the manual (libscan.h, "Segmented scans") with plain loops:
 *  - integers: exact, sums computed in 64-bit unsigned arithmetic and
 *    truncated to the type's width (two's-complement wrap), min/max by
 *    signed or unsigned comparison;
 *  - float min/max: exact (NaN propagates as a quiet NaN, -0.0 < +0.0);
 *  - float sums: accumulated in long double; a result must lie within
 *    (66 + k/1024) * eps * (|init| + sum |x_j|) of it, k the number of terms
 *    (any summation tree of moderate depth stays inside); an exclusive
 *    scan's segment start (the initial value alone) must be bitwise exact.
 * Elements no segment covers must equal what the output held before. */
#ifndef LIBSCAN_TEST_SEG_REFERENCE_H
#define LIBSCAN_TEST_SEG_REFERENCE_H

#include <stddef.h>
#include <stdint.h>
#include "libscan/libscan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct seg_ref {
    libscan_dtype_t dtype;
    libscan_op_t op;
    int exclusive;
    size_t n;               /* elements of the output array */
    unsigned char *val;     /* n elements: expected value (exact cases) */
    long double *fexp;      /* float sums: expected value */
    long double *ftol;      /* float sums: allowed |error|; < 0: bitwise against val */
    unsigned char *written; /* 1 where some segment covers the element */
} seg_ref_t;

size_t seg_esize(libscan_dtype_t dtype);
int seg_is_float(libscan_dtype_t dtype);
const char *seg_dtype_name(libscan_dtype_t dtype);
const char *seg_op_name(libscan_op_t op);
/* The operator's identity, as one element of dtype. */
void seg_identity(libscan_dtype_t dtype, libscan_op_t op, void *out);

/* 0 on success, -1 when out of host memory. */
int seg_ref_init(seg_ref_t *r, libscan_dtype_t dtype, libscan_op_t op, int exclusive, size_t n);
void seg_ref_free(seg_ref_t *r);

/* Scan the segment [begin, end) of in; init: one element or NULL. */
void seg_ref_segment(seg_ref_t *r, const void *in, size_t begin, size_t end, const void *init);
/* Whole calls. seg_init: host array of one value per segment, or NULL.
 * flags: n bytes (element 0 always starts a segment). */
void seg_ref_flags(seg_ref_t *r, const void *in, const unsigned char *flags, const void *seg_init);
void seg_ref_offsets(seg_ref_t *r, const void *in, const uint64_t *offsets, size_t num_segments,
                     const void *seg_init);
void seg_ref_rows(seg_ref_t *r, const void *in, size_t rows, size_t row_len, size_t pitch, const void *seg_init);

/* Number of segments that head flags describe over n elements. */
size_t seg_count_flags(const unsigned char *flags, size_t n);

/* Compares got (n elements) with the expectation; untouched elements must
 * equal before (n elements: what the output held before the call; NULL:
 * every byte 0xFF, the poison).
 * Returns 0 when all match, else 1 with the first mismatch in msg. */
int seg_ref_check(const seg_ref_t *r, const void *got, const void *before, char *msg, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
