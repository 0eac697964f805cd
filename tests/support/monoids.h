/* monoids.h -- three non-commutative monoids for testing the device layer,
 * usable from C (CPU reference) and CUDA (device operator), so the
 * operator's definition exists once. The earlier operand is on the left.
 *
 *  mat2_t    2x2 matrices over uint32_t (arithmetic mod 2^32), product
 *            x * y, identity I. 16 bytes.
 *  affine_t  maps x -> a*x + b over uint32_t; combine(f, g) = "f, then g"
 *            = (g.a*f.a, g.a*f.b + g.b), identity (1, 0). 8 bytes.
 *  tri_t     upper unitriangular 3x3 matrices [[1, a, c], [0, 1, b], [0, 0, 1]]
 *            over uint32_t (the Heisenberg group mod 2^32), product x * y =
 *            (x.a + y.a, x.b + y.b, x.c + y.c + x.a*y.b), identity (0, 0, 0).
 *            12 bytes: no whole number of them fills a 16-byte vector, so
 *            DeviceScan<T> takes its path for such sizes.
 *
 * Random mat2/affine elements are invertible (odd determinant, odd a), so
 * long products never collapse to 0 mod 2^32 and stay sensitive to every
 * factor; every tri_t is invertible (its inverse is (-a, -b, a*b - c)). */
#ifndef LIBSCAN_TEST_MONOIDS_H
#define LIBSCAN_TEST_MONOIDS_H

#include <stdint.h>

#ifdef __CUDACC__
#define TEST_HD __host__ __device__
#else
#define TEST_HD
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mat2 {
    uint32_t m[4]; /* row-major: [[m0, m1], [m2, m3]] */
} mat2_t;

typedef struct affine {
    uint32_t a, b; /* x -> a*x + b */
} affine_t;

typedef struct tri {
    uint32_t a, b, c; /* [[1, a, c], [0, 1, b], [0, 0, 1]]; no padding: 12 bytes */
} tri_t;

static inline TEST_HD mat2_t mat2_mul(mat2_t x, mat2_t y) {
    mat2_t r;
    r.m[0] = x.m[0] * y.m[0] + x.m[1] * y.m[2];
    r.m[1] = x.m[0] * y.m[1] + x.m[1] * y.m[3];
    r.m[2] = x.m[2] * y.m[0] + x.m[3] * y.m[2];
    r.m[3] = x.m[2] * y.m[1] + x.m[3] * y.m[3];
    return r;
}

static inline TEST_HD mat2_t mat2_identity(void) {
    mat2_t r;
    r.m[0] = 1u;
    r.m[1] = 0u;
    r.m[2] = 0u;
    r.m[3] = 1u;
    return r;
}

static inline TEST_HD affine_t affine_then(affine_t f, affine_t g) {
    affine_t r;
    r.a = g.a * f.a;
    r.b = g.a * f.b + g.b;
    return r;
}

static inline TEST_HD affine_t affine_identity(void) {
    affine_t r;
    r.a = 1u;
    r.b = 0u;
    return r;
}

/* The (1,3) entry of x * y picks up x.a * y.b, which is what makes the
 * product depend on the order of its operands. */
static inline TEST_HD tri_t tri_mul(tri_t x, tri_t y) {
    tri_t r;
    r.a = x.a + y.a;
    r.b = x.b + y.b;
    r.c = x.c + y.c + x.a * y.b;
    return r;
}

static inline TEST_HD tri_t tri_identity(void) {
    tri_t r;
    r.a = 0u;
    r.b = 0u;
    r.c = 0u;
    return r;
}

#ifdef __cplusplus
}
#endif
#endif
