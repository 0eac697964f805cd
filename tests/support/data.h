/* data.h -- random inputs for scans (never all zeros).
 *
 * DATA_DEFAULT
 *   sum, integers:  full-range random bits (sums wrap);
 *   sum, floats:    random sign and mantissa, magnitudes 2^-6 .. 2^4, a few
 *                   exact zeros of either sign;
 *   min / max:      a trend (down for min, up for max) plus noise of about
 *                   three steps, so the running minimum/maximum changes at
 *                   about a third of the positions all along the array (a
 *                   uniform random array would saturate after a few elements
 *                   and hide most errors).
 * DATA_FLOAT_INTEGERS
 *   floats: nonzero integers in [-4, 4], so every prefix of up to 2^22
 *   elements is exact in f32 whatever the association (bitwise comparable);
 *   integers: as DATA_DEFAULT.
 * DATA_SPECIALS
 *   floats: drawn from {+-0, +-1, +-2.5, +-inf, +-denorm_min, +-max, random},
 *   no NaN (tests place NaNs themselves); integers: type extremes, 0, +-1
 *   and random values. */
#ifndef LIBSCAN_TEST_DATA_H
#define LIBSCAN_TEST_DATA_H

#include <stddef.h>
#include "libscan/libscan.h"
#include "support/monoids.h"
#include "support/rng.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum data_flavor { DATA_DEFAULT = 0, DATA_FLOAT_INTEGERS = 1, DATA_SPECIALS = 2 } data_flavor_t;

void data_fill(rng_t *r, libscan_dtype_t dtype, libscan_op_t op, data_flavor_t flavor, void *buf, size_t n);

/* A carry-in that matters: for sums a random value of the flavor; for
 * min/max the value at n/3 (so about the first third of the output is the
 * carry-in) or a random one when n == 0. */
void data_pick_init(rng_t *r, libscan_dtype_t dtype, libscan_op_t op, data_flavor_t flavor, const void *buf,
                    size_t n, void *init);

/* One element written into buf[i]. */
void data_set(libscan_dtype_t dtype, void *buf, size_t i, double value);

mat2_t data_random_mat2(rng_t *r);     /* odd determinant */
affine_t data_random_affine(rng_t *r); /* odd a */
tri_t data_random_tri(rng_t *r);       /* a, b odd (x.a*y.b never 0), c any */

#ifdef __cplusplus
}
#endif
#endif
