/* seg_reference.c -- see seg_reference.h. */
#include "seg_reference.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t seg_esize(libscan_dtype_t dt) {
    switch (dt) {
    case LIBSCAN_U32: case LIBSCAN_I32: case LIBSCAN_F32: return 4;
    case LIBSCAN_U64: case LIBSCAN_I64: case LIBSCAN_F64: return 8;
    default: break; /* U8, U16: no scan type */
    }
    return 0;
}
int seg_is_float(libscan_dtype_t dt) { return dt == LIBSCAN_F32 || dt == LIBSCAN_F64; }
static int is_signed(libscan_dtype_t dt) { return dt == LIBSCAN_I32 || dt == LIBSCAN_I64; }

const char *seg_dtype_name(libscan_dtype_t dt) {
    static const char *names[] = {"u32", "i32", "u64", "i64", "f32", "f64"};
    return (unsigned)dt < 6 ? names[dt] : "?";
}
const char *seg_op_name(libscan_op_t op) {
    static const char *names[] = {"sum", "min", "max"};
    return (unsigned)op < 3 ? names[op] : "?";
}

/* ---- element access: integers as 64-bit patterns, floats as double ------ */

static uint64_t load_bits(libscan_dtype_t dt, const void *p) {
    if (seg_esize(dt) == 4) {
        uint32_t v;
        memcpy(&v, p, 4);
        if (dt == LIBSCAN_I32) return (uint64_t)(int64_t)(int32_t)v; /* sign-extended */
        return v;
    }
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}
static void store_bits(libscan_dtype_t dt, void *p, uint64_t v) {
    if (seg_esize(dt) == 4) {
        uint32_t w = (uint32_t)v;
        memcpy(p, &w, 4);
    } else {
        memcpy(p, &v, 8);
    }
}
static double load_f(libscan_dtype_t dt, const void *p) {
    if (dt == LIBSCAN_F32) {
        float f;
        memcpy(&f, p, 4);
        return f;
    }
    double d;
    memcpy(&d, p, 8);
    return d;
}
static void store_f(libscan_dtype_t dt, void *p, double v) {
    if (dt == LIBSCAN_F32) {
        float f = (float)v;
        memcpy(p, &f, 4);
    } else {
        memcpy(p, &v, 8);
    }
}

void seg_identity(libscan_dtype_t dt, libscan_op_t op, void *out) {
    if (seg_is_float(dt)) {
        store_f(dt, out, op == LIBSCAN_OP_SUM ? -0.0 : op == LIBSCAN_OP_MIN ? INFINITY : -INFINITY);
        return;
    }
    uint64_t v = 0;
    if (op == LIBSCAN_OP_MIN) {
        if (dt == LIBSCAN_U32) v = UINT32_MAX;
        else if (dt == LIBSCAN_U64) v = UINT64_MAX;
        else if (dt == LIBSCAN_I32) v = (uint64_t)(int64_t)INT32_MAX;
        else v = (uint64_t)INT64_MAX;
    } else if (op == LIBSCAN_OP_MAX) {
        if (dt == LIBSCAN_I32) v = (uint64_t)(int64_t)INT32_MIN;
        else if (dt == LIBSCAN_I64) v = (uint64_t)INT64_MIN;
    }
    store_bits(dt, out, v);
}

/* a < b in the type's order (integers). */
static int int_less(libscan_dtype_t dt, uint64_t a, uint64_t b) {
    return is_signed(dt) ? (int64_t)a < (int64_t)b : a < b;
}
/* Float min/max, exact: NaN propagates, -0.0 < +0.0. */
static double f_minmax(libscan_op_t op, double a, double b) {
    if (isnan(a) || isnan(b)) return NAN;
    int a_less = a < b || (a == b && signbit(a) && !signbit(b));
    if (op == LIBSCAN_OP_MIN) return a_less ? a : b;
    return a_less ? b : a;
}

int seg_ref_init(seg_ref_t *r, libscan_dtype_t dt, libscan_op_t op, int exclusive, size_t n) {
    memset(r, 0, sizeof *r);
    r->dtype = dt, r->op = op, r->exclusive = exclusive, r->n = n;
    size_t m = n ? n : 1;
    r->val = calloc(m, seg_esize(dt));
    r->written = calloc(m, 1);
    if (seg_is_float(dt) && op == LIBSCAN_OP_SUM) {
        r->fexp = calloc(m, sizeof(long double));
        r->ftol = calloc(m, sizeof(long double));
        if (!r->fexp || !r->ftol) {
            seg_ref_free(r);
            return -1;
        }
    }
    if (!r->val || !r->written) {
        seg_ref_free(r);
        return -1;
    }
    return 0;
}

void seg_ref_free(seg_ref_t *r) {
    free(r->val);
    free(r->fexp);
    free(r->ftol);
    free(r->written);
    memset(r, 0, sizeof *r);
}

void seg_ref_segment(seg_ref_t *r, const void *in_, size_t begin, size_t end, const void *init) {
    const unsigned char *in = in_;
    const libscan_dtype_t dt = r->dtype;
    const size_t es = seg_esize(dt);
    unsigned char start[8];
    if (init) memcpy(start, init, es);
    else seg_identity(dt, r->op, start);

    if (seg_is_float(dt) && r->op == LIBSCAN_OP_SUM) {
        const long double eps = dt == LIBSCAN_F32 ? FLT_EPSILON : DBL_EPSILON;
        long double acc = load_f(dt, start), mag = fabsl(acc);
        size_t terms = 0;
        for (size_t i = begin; i < end; ++i) {
            r->written[i] = 1;
            if (r->exclusive) {
                if (i == begin) {
                    memcpy(r->val + i * es, start, es);
                    r->ftol[i] = -1;
                } else {
                    r->fexp[i] = acc;
                    r->ftol[i] = (66.0L + (long double)terms / 1024.0L) * eps * mag;
                }
            }
            long double x = load_f(dt, in + i * es);
            acc += x;
            mag += fabsl(x);
            ++terms;
            if (!r->exclusive) {
                r->fexp[i] = acc;
                r->ftol[i] = (66.0L + (long double)terms / 1024.0L) * eps * mag;
            }
        }
        return;
    }
    if (seg_is_float(dt)) {
        double acc = load_f(dt, start);
        for (size_t i = begin; i < end; ++i) {
            r->written[i] = 1;
            double x = load_f(dt, in + i * es);
            if (r->exclusive) store_f(dt, r->val + i * es, acc);
            acc = f_minmax(r->op, acc, x);
            if (!r->exclusive) store_f(dt, r->val + i * es, acc);
        }
        return;
    }
    uint64_t acc = load_bits(dt, start);
    for (size_t i = begin; i < end; ++i) {
        r->written[i] = 1;
        uint64_t x = load_bits(dt, in + i * es);
        if (r->exclusive) store_bits(dt, r->val + i * es, acc);
        if (r->op == LIBSCAN_OP_SUM) acc += x;
        else if (r->op == LIBSCAN_OP_MIN) acc = int_less(dt, x, acc) ? x : acc;
        else acc = int_less(dt, acc, x) ? x : acc;
        if (!r->exclusive) store_bits(dt, r->val + i * es, acc);
    }
}

size_t seg_count_flags(const unsigned char *flags, size_t n) {
    size_t s = 0;
    for (size_t i = 0; i < n; ++i)
        if (i == 0 || flags[i]) ++s;
    return s;
}

void seg_ref_flags(seg_ref_t *r, const void *in, const unsigned char *flags, const void *seg_init) {
    const size_t es = seg_esize(r->dtype);
    size_t b = 0, s = 0;
    while (b < r->n) {
        size_t e = b + 1;
        while (e < r->n && !flags[e]) ++e;
        seg_ref_segment(r, in, b, e, seg_init ? (const unsigned char *)seg_init + s * es : NULL);
        ++s;
        b = e;
    }
}

void seg_ref_offsets(seg_ref_t *r, const void *in, const uint64_t *offsets, size_t num_segments,
                     const void *seg_init) {
    const size_t es = seg_esize(r->dtype);
    for (size_t s = 0; s < num_segments; ++s)
        seg_ref_segment(r, in, (size_t)offsets[s], (size_t)offsets[s + 1],
                        seg_init ? (const unsigned char *)seg_init + s * es : NULL);
}

void seg_ref_rows(seg_ref_t *r, const void *in, size_t rows, size_t row_len, size_t pitch, const void *seg_init) {
    const size_t es = seg_esize(r->dtype);
    for (size_t k = 0; k < rows; ++k)
        seg_ref_segment(r, in, k * pitch, k * pitch + row_len,
                        seg_init ? (const unsigned char *)seg_init + k * es : NULL);
}

static void fmt_elem(libscan_dtype_t dt, const void *p, char *buf, size_t cap) {
    if (seg_is_float(dt)) {
        snprintf(buf, cap, "%.17g", load_f(dt, p));
    } else if (is_signed(dt)) {
        snprintf(buf, cap, "%" PRId64, (int64_t)load_bits(dt, p));
    } else {
        snprintf(buf, cap, "%" PRIu64, load_bits(dt, p));
    }
}

int seg_ref_check(const seg_ref_t *r, const void *got_, const void *before_, char *msg, size_t cap) {
    const unsigned char *got = got_, *before = before_;
    const libscan_dtype_t dt = r->dtype;
    const size_t es = seg_esize(dt);
    char a[64], b[64];
    for (size_t i = 0; i < r->n; ++i) {
        const unsigned char *g = got + i * es;
        if (!r->written[i]) {
            static const unsigned char poison[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
            const unsigned char *was = before ? before + i * es : poison;
            if (memcmp(g, was, es) != 0) {
                fmt_elem(dt, g, a, sizeof a);
                fmt_elem(dt, was, b, sizeof b);
                snprintf(msg, cap, "element %zu lies outside every segment but was written: %s (was %s)", i, a, b);
                return 1;
            }
            continue;
        }
        if (r->fexp && r->ftol[i] >= 0) {
            long double v = load_f(dt, g);
            if (!(fabsl(v - r->fexp[i]) <= r->ftol[i])) {
                snprintf(msg, cap, "element %zu: got %.17Lg, expected %.17Lg within %.3Lg", i, v, r->fexp[i],
                         r->ftol[i]);
                return 1;
            }
            continue;
        }
        const unsigned char *w = r->val + i * es;
        int ok = memcmp(g, w, es) == 0;
        if (!ok && seg_is_float(dt) && isnan(load_f(dt, w))) {
            /* any quiet NaN will do */
            double v = load_f(dt, g);
            if (isnan(v)) {
                uint64_t bits = load_bits(dt, g);
                ok = es == 4 ? (bits & 0x00400000u) != 0 : (bits & ((uint64_t)1 << 51)) != 0;
            }
        }
        if (!ok) {
            fmt_elem(dt, g, a, sizeof a);
            fmt_elem(dt, w, b, sizeof b);
            snprintf(msg, cap, "element %zu: got %s, expected %s", i, a, b);
            return 1;
        }
    }
    return 0;
}
