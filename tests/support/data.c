/* data.c -- see data.h. */
#include "support/data.h"

#include <float.h>
#include <math.h>
#include <string.h>
#include "support/reference.h"

void data_set(libscan_dtype_t dt, void *buf, size_t i, double v) {
    switch (dt) {
    case LIBSCAN_U32: ((uint32_t *)buf)[i] = (uint32_t)v; break;
    case LIBSCAN_I32: ((int32_t *)buf)[i] = (int32_t)v; break;
    case LIBSCAN_U64: ((uint64_t *)buf)[i] = (uint64_t)v; break;
    case LIBSCAN_I64: ((int64_t *)buf)[i] = (int64_t)v; break;
    case LIBSCAN_F32: ((float *)buf)[i] = (float)v; break;
    case LIBSCAN_F64: ((double *)buf)[i] = v; break;
    default: break; /* U8, U16: no scan type */
    }
}

/* Raw bits into element i (integers). */
static void set_bits(libscan_dtype_t dt, void *buf, size_t i, uint64_t bits) {
    if (ref_dtype_size(dt) == 4) ((uint32_t *)buf)[i] = (uint32_t)bits;
    else ((uint64_t *)buf)[i] = bits;
}

static double random_float_value(rng_t *r) {
    if (rng_below(r, 32) == 0) return (rng_u64(r) & 1) ? -0.0 : 0.0;
    double mant = 1.0 + rng_unit(r);
    int e = (int)rng_range(r, -6, 3);
    double v = ldexp(mant, e);
    return (rng_u64(r) & 1) ? -v : v;
}

static double special_float_value(rng_t *r, libscan_dtype_t dt) {
    const double big = dt == LIBSCAN_F32 ? (double)FLT_MAX : DBL_MAX;
    const double tiny = dt == LIBSCAN_F32 ? (double)0x1p-149f : 0x1p-1074;
    double v;
    switch (rng_below(r, 8)) {
    case 0: v = 0.0; break;
    case 1: v = 1.0; break;
    case 2: v = 2.5; break;
    case 3: v = rng_below(r, 4) == 0 ? INFINITY : 0.0; break;
    case 4: v = tiny; break;
    case 5: v = rng_below(r, 4) == 0 ? big : 1.0; break;
    default: v = (rng_unit(r) - 0.5) * 100.0; break;
    }
    return (rng_u64(r) & 1) ? -v : v;
}

/* Bits of an integer dtype: type extremes, 0, +-1, random. */
static uint64_t special_int_bits(rng_t *r, libscan_dtype_t dt) {
    const int wide = ref_dtype_size(dt) == 8;
    const int sgn = dt == LIBSCAN_I32 || dt == LIBSCAN_I64;
    const uint64_t all = wide ? UINT64_MAX : UINT32_MAX;
    const uint64_t smin = wide ? (uint64_t)1 << 63 : (uint64_t)1 << 31;
    switch (rng_below(r, 7)) {
    case 0: return 0;
    case 1: return 1;
    case 2: return all; /* -1 or the unsigned maximum */
    case 3: return sgn ? smin : 0;
    case 4: return sgn ? smin - 1 : all;
    default: return rng_u64(r) & all;
    }
}

/* Min/max trend: offset i*step + noise in the type's unsigned "offset
 * space", mapped to lo + off (max) or hi - off (min). */
static void fill_trend_int(rng_t *r, libscan_dtype_t dt, int down, void *buf, size_t n) {
    const int wide = ref_dtype_size(dt) == 8;
    const int sgn = dt == LIBSCAN_I32 || dt == LIBSCAN_I64;
    const uint64_t all = wide ? UINT64_MAX : UINT32_MAX;
    const uint64_t lo = sgn ? (wide ? (uint64_t)1 << 63 : (uint64_t)1 << 31) : 0; /* bits of the minimum */
    const uint64_t hi = (lo - 1) & all;                                            /* bits of the maximum */
    uint64_t step = all / (4 * ((uint64_t)n + 1));
    if (step == 0) step = 1;
    for (size_t i = 0; i < n; ++i) {
        uint64_t off = (uint64_t)i * step + rng_below(r, 3 * step);
        uint64_t bits = down ? (hi - off) & all : (lo + off) & all;
        set_bits(dt, buf, i, bits);
    }
}

static void fill_trend_float(rng_t *r, libscan_dtype_t dt, int down, void *buf, size_t n) {
    const double half = (double)n / 2.0;
    for (size_t i = 0; i < n; ++i) {
        double v = ((double)i - half + 3.0 * rng_unit(r)) * 0.75;
        /* Zeros of either sign, only past the zero crossing, where they are
         * never a new extreme (earlier they would dominate the prefix). */
        if (v > 1.0 && rng_below(r, 64) == 0) v = (rng_u64(r) & 1) ? -0.0 : 0.0;
        data_set(dt, buf, i, down ? -v : v);
    }
}

void data_fill(rng_t *r, libscan_dtype_t dt, libscan_op_t op, data_flavor_t fl, void *buf, size_t n) {
    const int fl_dt = ref_is_float(dt);
    if (fl == DATA_SPECIALS) {
        for (size_t i = 0; i < n; ++i) {
            if (fl_dt) data_set(dt, buf, i, special_float_value(r, dt));
            else set_bits(dt, buf, i, special_int_bits(r, dt));
        }
    } else if (op == LIBSCAN_OP_SUM) {
        for (size_t i = 0; i < n; ++i) {
            if (!fl_dt) set_bits(dt, buf, i, rng_u64(r));
            else if (fl == DATA_FLOAT_INTEGERS) {
                int64_t v = rng_range(r, 1, 4);
                data_set(dt, buf, i, (double)((rng_u64(r) & 1) ? -v : v));
            } else data_set(dt, buf, i, random_float_value(r));
        }
    } else {
        const int down = op == LIBSCAN_OP_MIN;
        if (fl_dt) fill_trend_float(r, dt, down, buf, n);
        else fill_trend_int(r, dt, down, buf, n);
    }
    /* never all zeros: make sure one element is nonzero */
    if (n > 0) {
        size_t es = ref_dtype_size(dt);
        static const unsigned char zero[8];
        int all_zero = 1;
        for (size_t i = 0; i < n && all_zero; ++i)
            if (memcmp((unsigned char *)buf + i * es, zero, es) != 0) all_zero = 0;
        if (all_zero) data_set(dt, buf, n - 1, 1.0);
    }
}

void data_pick_init(rng_t *r, libscan_dtype_t dt, libscan_op_t op, data_flavor_t fl, const void *buf, size_t n,
                    void *init) {
    const size_t es = ref_dtype_size(dt);
    if (op != LIBSCAN_OP_SUM && n > 0) {
        memcpy(init, (const unsigned char *)buf + (n / 3) * es, es);
        return;
    }
    unsigned char tmp[8];
    data_fill(r, dt, op, fl, tmp, 1);
    memcpy(init, tmp, es);
}

mat2_t data_random_mat2(rng_t *r) {
    for (;;) {
        mat2_t x;
        for (int i = 0; i < 4; ++i) x.m[i] = rng_u32(r);
        if ((x.m[0] * x.m[3] - x.m[1] * x.m[2]) & 1u) return x;
    }
}

affine_t data_random_affine(rng_t *r) {
    affine_t f;
    f.a = rng_u32(r) | 1u;
    f.b = rng_u32(r);
    return f;
}

tri_t data_random_tri(rng_t *r) {
    tri_t x;
    x.a = rng_u32(r) | 1u;
    x.b = rng_u32(r) | 1u;
    x.c = rng_u32(r);
    return x;
}
