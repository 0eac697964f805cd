/* reference.c -- see reference.h. */
#include "support/reference.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

const libscan_dtype_t ref_dtypes[REF_NUM_DTYPES] = {LIBSCAN_U32, LIBSCAN_I32, LIBSCAN_U64,
                                                    LIBSCAN_I64, LIBSCAN_F32, LIBSCAN_F64};
const libscan_op_t ref_ops[REF_NUM_OPS] = {LIBSCAN_OP_SUM, LIBSCAN_OP_MIN, LIBSCAN_OP_MAX};

size_t ref_dtype_size(libscan_dtype_t dtype) {
    switch ((int)dtype) {
    case LIBSCAN_U32: return 4;
    case LIBSCAN_I32: return 4;
    case LIBSCAN_U64: return 8;
    case LIBSCAN_I64: return 8;
    case LIBSCAN_F32: return 4;
    case LIBSCAN_F64: return 8;
    default: return 0;
    }
}

const char *ref_dtype_name(libscan_dtype_t dtype) {
    static const char *names[] = {"u32", "i32", "u64", "i64", "f32", "f64"};
    return (unsigned)dtype < 6u ? names[dtype] : "?";
}

const char *ref_op_name(libscan_op_t op) {
    static const char *names[] = {"sum", "min", "max"};
    return (unsigned)op < 3u ? names[op] : "?";
}

int ref_is_float(libscan_dtype_t dtype) { return dtype == LIBSCAN_F32 || dtype == LIBSCAN_F64; }

/* A value of any dtype. */
typedef union elem {
    uint32_t u32;
    int32_t i32;
    uint64_t u64;
    int64_t i64;
    float f32;
    double f64;
    unsigned char bytes[8];
} elem_t;

static elem_t load(libscan_dtype_t dt, const void *p) {
    elem_t e;
    memset(&e, 0, sizeof e);
    memcpy(&e, p, ref_dtype_size(dt));
    return e;
}

void ref_identity(libscan_dtype_t dt, libscan_op_t op, void *out) {
    elem_t e;
    memset(&e, 0, sizeof e);
    switch (op) {
    case LIBSCAN_OP_SUM:
        if (dt == LIBSCAN_F32) e.f32 = -0.0f;
        if (dt == LIBSCAN_F64) e.f64 = -0.0;
        break;
    case LIBSCAN_OP_MIN:
        switch (dt) {
        case LIBSCAN_U32: e.u32 = UINT32_MAX; break;
        case LIBSCAN_I32: e.i32 = INT32_MAX; break;
        case LIBSCAN_U64: e.u64 = UINT64_MAX; break;
        case LIBSCAN_I64: e.i64 = INT64_MAX; break;
        case LIBSCAN_F32: e.f32 = INFINITY; break;
        case LIBSCAN_F64: e.f64 = INFINITY; break;
        default: break; /* U8, U16: no scan type */
        }
        break;
    case LIBSCAN_OP_MAX:
        switch (dt) {
        case LIBSCAN_U32: e.u32 = 0; break;
        case LIBSCAN_I32: e.i32 = INT32_MIN; break;
        case LIBSCAN_U64: e.u64 = 0; break;
        case LIBSCAN_I64: e.i64 = INT64_MIN; break;
        case LIBSCAN_F32: e.f32 = -INFINITY; break;
        case LIBSCAN_F64: e.f64 = -INFINITY; break;
        default: break; /* U8, U16: no scan type */
        }
        break;
    }
    memcpy(out, &e, ref_dtype_size(dt));
}

/* Float min/max with libscan's documented total order: NaN wins, -0 < +0. */
static double fminmax(double a, double b, int want_min) {
    if (isnan(a) || isnan(b)) return NAN;
    if (a < b) return want_min ? a : b;
    if (b < a) return want_min ? b : a;
    /* equal: only the sign of zero can differ */
    if (signbit(a) == signbit(b)) return a;
    if (want_min) return signbit(a) ? a : b;
    return signbit(a) ? b : a;
}

#define INT_OPS(field, type)                                                                         \
    case LIBSCAN_OP_SUM: r.field = (type)(x.field + y.field); break;                               \
    case LIBSCAN_OP_MIN: r.field = x.field < y.field ? x.field : y.field; break;                   \
    case LIBSCAN_OP_MAX: r.field = x.field > y.field ? x.field : y.field; break;

void ref_combine(libscan_dtype_t dt, libscan_op_t op, const void *a, const void *b, void *out) {
    elem_t x = load(dt, a), y = load(dt, b), r;
    memset(&r, 0, sizeof r);
    switch (dt) {
    case LIBSCAN_U32:
        switch (op) { INT_OPS(u32, uint32_t) }
        break;
    case LIBSCAN_U64:
        switch (op) { INT_OPS(u64, uint64_t) }
        break;
    case LIBSCAN_I32:
        switch (op) {
        case LIBSCAN_OP_SUM: r.u32 = x.u32 + y.u32; break; /* two's complement wrap */
        case LIBSCAN_OP_MIN: r.i32 = x.i32 < y.i32 ? x.i32 : y.i32; break;
        case LIBSCAN_OP_MAX: r.i32 = x.i32 > y.i32 ? x.i32 : y.i32; break;
        }
        break;
    case LIBSCAN_I64:
        switch (op) {
        case LIBSCAN_OP_SUM: r.u64 = x.u64 + y.u64; break;
        case LIBSCAN_OP_MIN: r.i64 = x.i64 < y.i64 ? x.i64 : y.i64; break;
        case LIBSCAN_OP_MAX: r.i64 = x.i64 > y.i64 ? x.i64 : y.i64; break;
        }
        break;
    case LIBSCAN_F32:
        if (op == LIBSCAN_OP_SUM) r.f32 = x.f32 + y.f32;
        else r.f32 = (float)fminmax(x.f32, y.f32, op == LIBSCAN_OP_MIN);
        break;
    case LIBSCAN_F64:
        if (op == LIBSCAN_OP_SUM) r.f64 = x.f64 + y.f64;
        else r.f64 = fminmax(x.f64, y.f64, op == LIBSCAN_OP_MIN);
        break;
    default: break; /* U8, U16: no scan type */
    }
    memcpy(out, &r, ref_dtype_size(dt));
}

static int is_quiet_nan(libscan_dtype_t dt, const elem_t *v) {
    if (dt == LIBSCAN_F32) return isnan(v->f32) && (v->u32 & 0x00400000u);
    if (dt == LIBSCAN_F64) return isnan(v->f64) && (v->u64 & 0x0008000000000000ull);
    return 0;
}

int ref_same(libscan_dtype_t dt, const void *expected, const void *got) {
    elem_t e = load(dt, expected), g = load(dt, got);
    if (dt == LIBSCAN_F32 && isnan(e.f32)) return is_quiet_nan(dt, &g);
    if (dt == LIBSCAN_F64 && isnan(e.f64)) return is_quiet_nan(dt, &g);
    return memcmp(&e, &g, ref_dtype_size(dt)) == 0;
}

void ref_format(libscan_dtype_t dt, const void *v, char *buf, size_t cap) {
    elem_t e = load(dt, v);
    switch (dt) {
    case LIBSCAN_U32: snprintf(buf, cap, "%" PRIu32 " (0x%08" PRIx32 ")", e.u32, e.u32); break;
    case LIBSCAN_I32: snprintf(buf, cap, "%" PRId32, e.i32); break;
    case LIBSCAN_U64: snprintf(buf, cap, "%" PRIu64 " (0x%016" PRIx64 ")", e.u64, e.u64); break;
    case LIBSCAN_I64: snprintf(buf, cap, "%" PRId64, e.i64); break;
    case LIBSCAN_F32: snprintf(buf, cap, "%.9g (%a, bits 0x%08" PRIx32 ")", (double)e.f32, (double)e.f32, e.u32); break;
    case LIBSCAN_F64: snprintf(buf, cap, "%.17g (%a, bits 0x%016" PRIx64 ")", e.f64, e.f64, e.u64); break;
    default: snprintf(buf, cap, "<bad dtype %d>", (int)dt); break;
    }
}

/* ---- the scan itself ----------------------------------------------------- */

/* Running state of one reference scan. Float sums keep a long double sum and
 * a long double sum of magnitudes (for the tolerance); everything else keeps
 * the exact running value in the element type. */
typedef struct run {
    const ref_case_t *c;
    size_t esize;
    int fsum;
    elem_t acc;        /* exact types */
    long double lsum;  /* float sums */
    long double labs;  /* float sums: |init| + sum |x| */
    size_t terms;      /* elements folded so far */
} run_t;

static void run_start(run_t *r, const ref_case_t *c) {
    memset(r, 0, sizeof *r);
    r->c = c;
    r->esize = ref_dtype_size(c->dtype);
    r->fsum = ref_is_float(c->dtype) && c->op == LIBSCAN_OP_SUM;
    if (c->init) r->acc = load(c->dtype, c->init);
    else ref_identity(c->dtype, c->op, &r->acc);
    if (r->fsum) {
        r->lsum = c->dtype == LIBSCAN_F32 ? (long double)r->acc.f32 : (long double)r->acc.f64;
        r->labs = fabsl(r->lsum);
    }
}

static void run_add(run_t *r, const void *x) {
    if (r->fsum) {
        elem_t e = load(r->c->dtype, x);
        long double v = r->c->dtype == LIBSCAN_F32 ? (long double)e.f32 : (long double)e.f64;
        r->lsum += v; /* IEEE: the sign of an exact zero follows the same rules as in the type */
        r->labs += fabsl(v);
    } else {
        ref_combine(r->c->dtype, r->c->op, &r->acc, x, &r->acc);
    }
    ++r->terms;
}

/* The current prefix as an element. */
static elem_t run_value(const run_t *r) {
    elem_t e = r->acc;
    if (r->fsum) {
        memset(&e, 0, sizeof e);
        if (r->c->dtype == LIBSCAN_F32) e.f32 = (float)r->lsum;
        else e.f64 = (double)r->lsum;
    }
    return e;
}

/* Allowed |error| of a float sum at this point (0 when exact is required). */
static long double run_tolerance(const run_t *r) {
    if (!r->fsum || r->c->float_exact) return 0.0L;
    long double eps = r->c->dtype == LIBSCAN_F32 ? (long double)FLT_EPSILON : (long double)DBL_EPSILON;
    long double tiny = r->c->dtype == LIBSCAN_F32 ? (long double)FLT_MIN : (long double)DBL_MIN;
    long double depth = 66.0L + (long double)(r->terms / 2048u);
    return depth * eps * r->labs + tiny;
}

/* 1 if got matches the current prefix. */
static int run_matches(const run_t *r, const void *got_p, long double *err, long double *tol) {
    elem_t want = run_value(r);
    *err = 0;
    *tol = 0;
    if (!r->fsum || r->c->float_exact) return ref_same(r->c->dtype, &want, got_p);
    elem_t g = load(r->c->dtype, got_p);
    long double gv = r->c->dtype == LIBSCAN_F32 ? (long double)g.f32 : (long double)g.f64;
    *err = fabsl(gv - r->lsum);
    *tol = run_tolerance(r);
    return *err <= *tol; /* false for NaN */
}

void ref_scan(const ref_case_t *c, void *out, void *total) {
    run_t r;
    run_start(&r, c);
    const unsigned char *in = (const unsigned char *)c->in;
    unsigned char *o = (unsigned char *)out;
    for (size_t i = 0; i < c->n; ++i) {
        if (c->exclusive && o) {
            elem_t v = run_value(&r);
            memcpy(o + i * r.esize, &v, r.esize);
        }
        run_add(&r, in + i * r.esize);
        if (!c->exclusive && o) {
            elem_t v = run_value(&r);
            memcpy(o + i * r.esize, &v, r.esize);
        }
    }
    if (total) {
        elem_t v = run_value(&r);
        memcpy(total, &v, r.esize);
    }
}

static void describe(const run_t *r, const char *what, size_t i, const void *got, long double err, long double tol,
                     char *msg, size_t cap) {
    const ref_case_t *c = r->c;
    char want_s[96], got_s[96], in_s[96] = "-", init_s[96] = "identity";
    elem_t want = run_value(r);
    ref_format(c->dtype, &want, want_s, sizeof want_s);
    ref_format(c->dtype, got, got_s, sizeof got_s);
    if (i < c->n) ref_format(c->dtype, (const unsigned char *)c->in + i * r->esize, in_s, sizeof in_s);
    if (c->init) ref_format(c->dtype, c->init, init_s, sizeof init_s);
    int k = i < c->n ? snprintf(msg, cap, "%s %s %s scan, n=%zu, init=%s: %s[%zu] is %s, expected %s (input[%zu]=%s)",
                                c->exclusive ? "exclusive" : "inclusive", ref_dtype_name(c->dtype), ref_op_name(c->op),
                                c->n, init_s, what, i, got_s, want_s, i, in_s)
                     : snprintf(msg, cap, "%s %s %s scan, n=%zu, init=%s: %s is %s, expected %s",
                                c->exclusive ? "exclusive" : "inclusive", ref_dtype_name(c->dtype), ref_op_name(c->op),
                                c->n, init_s, what, got_s, want_s);
    if (tol > 0 && k > 0 && (size_t)k < cap)
        snprintf(msg + k, cap - (size_t)k, "; |error| %Lg > tolerance %Lg", err, tol);
}

/* ---- fast paths: typed loops for the exact cases (the generic loop below
 * is kept for the tolerant float sums and to describe a mismatch) ---------- */

static inline int f32_same(float want, float got) {
    uint32_t w, g;
    memcpy(&w, &want, 4);
    memcpy(&g, &got, 4);
    if (isnan(want)) return isnan(got) && (g & 0x00400000u);
    return w == g;
}
static inline int f64_same(double want, double got) {
    uint64_t w, g;
    memcpy(&w, &want, 8);
    memcpy(&g, &got, 8);
    if (isnan(want)) return isnan(got) && (g & 0x0008000000000000ull);
    return w == g;
}
static inline int int_same(uint64_t want, uint64_t got) { return want == got; }

/* One typed loop: T element type, A accumulator type, INIT the initial
 * value, COMBINE(acc, x) -> acc, OUT(acc) -> T, SAME(want, got). Returns 0
 * when all match. */
#define FAST_LOOP(T, A, INIT, COMBINE, OUT, SAME)                                             \
    do {                                                                                      \
        const unsigned char *in_ = (const unsigned char *)c->in;                              \
        const unsigned char *got_ = (const unsigned char *)got;                               \
        A acc_ = (A)(INIT);                                                                   \
        T x_, g_;                                                                             \
        for (size_t i_ = 0; i_ < c->n; ++i_) {                                                \
            memcpy(&g_, got_ + i_ * sizeof(T), sizeof(T));                                    \
            if (c->exclusive && !SAME(OUT(acc_), g_)) return 1;                               \
            memcpy(&x_, in_ + i_ * sizeof(T), sizeof(T));                                     \
            acc_ = COMBINE(acc_, x_);                                                         \
            if (!c->exclusive && !SAME(OUT(acc_), g_)) return 1;                              \
        }                                                                                     \
        if (got_total) {                                                                      \
            memcpy(&g_, got_total, sizeof(T));                                                \
            if (!SAME(OUT(acc_), g_)) return 1;                                               \
        }                                                                                     \
        return 0;                                                                             \
    } while (0)

#define ADD(a, x) ((a) + (x))
#define MINI(a, x) ((x) < (a) ? (x) : (a))
#define MAXI(a, x) ((x) > (a) ? (x) : (a))
#define F32MIN(a, x) ((float)fminmax((a), (x), 1))
#define F32MAX(a, x) ((float)fminmax((a), (x), 0))
#define F64MIN(a, x) fminmax((a), (x), 1)
#define F64MAX(a, x) fminmax((a), (x), 0)
#define ID(a) (a)
#define TO_F32(a) ((float)(a))
#define TO_F64(a) ((double)(a))
#define LADD(a, x) ((a) + (long double)(x))

/* The integer dtypes of width W (SIGNED is the signed one): sums wrap as
 * unsigned whatever the sign; min and max compare with the dtype's sign.
 * Every path returns. */
#define FAST_INT(W, SIGNED)                                                                                   \
    do {                                                                                                      \
        const uint##W##_t init_u_ = init_e.u##W;                                                              \
        const int##W##_t init_s_ = init_e.i##W;                                                               \
        if (c->op == LIBSCAN_OP_SUM) FAST_LOOP(uint##W##_t, uint##W##_t, init_u_, ADD, ID, int_same);          \
        if (c->dtype != (SIGNED)) {                                                                           \
            if (c->op == LIBSCAN_OP_MIN) FAST_LOOP(uint##W##_t, uint##W##_t, init_u_, MINI, ID, int_same);     \
            FAST_LOOP(uint##W##_t, uint##W##_t, init_u_, MAXI, ID, int_same);                                  \
        }                                                                                                     \
        if (c->op == LIBSCAN_OP_MIN) FAST_LOOP(int##W##_t, int##W##_t, init_s_, MINI, ID, int_same);           \
        FAST_LOOP(int##W##_t, int##W##_t, init_s_, MAXI, ID, int_same);                                        \
    } while (0)

/* 0: everything matches; 1: a mismatch somewhere (or no fast path). */
static int fast_mismatch(const ref_case_t *c, const void *got, const void *got_total) {
    elem_t init_e;
    if (c->init) init_e = load(c->dtype, c->init);
    else ref_identity(c->dtype, c->op, &init_e);
    switch (c->dtype) {
    case LIBSCAN_U32:
    case LIBSCAN_I32: FAST_INT(32, LIBSCAN_I32);
    case LIBSCAN_U64:
    case LIBSCAN_I64: FAST_INT(64, LIBSCAN_I64);
    case LIBSCAN_F32: {
        const float init_v = init_e.f32;
        if (c->op == LIBSCAN_OP_SUM) {
            if (!c->float_exact) return 1;
            FAST_LOOP(float, long double, init_v, LADD, TO_F32, f32_same);
        }
        if (c->op == LIBSCAN_OP_MIN) FAST_LOOP(float, float, init_v, F32MIN, ID, f32_same);
        FAST_LOOP(float, float, init_v, F32MAX, ID, f32_same);
    }
    case LIBSCAN_F64: {
        const double init_v = init_e.f64;
        if (c->op == LIBSCAN_OP_SUM) {
            if (!c->float_exact) return 1;
            FAST_LOOP(double, long double, init_v, LADD, TO_F64, f64_same);
        }
        if (c->op == LIBSCAN_OP_MIN) FAST_LOOP(double, double, init_v, F64MIN, ID, f64_same);
        FAST_LOOP(double, double, init_v, F64MAX, ID, f64_same);
    }
    default: break; /* U8, U16: no scan type */
    }
    return 1;
}

int ref_check(const ref_case_t *c, const void *got, const void *got_total, char *msg, size_t cap) {
    if (msg && cap) msg[0] = 0;
    if (!fast_mismatch(c, got, got_total)) return 0;
    /* the generic loop decides (tolerant float sums) and describes */
    run_t r;
    run_start(&r, c);
    const unsigned char *in = (const unsigned char *)c->in;
    const unsigned char *g = (const unsigned char *)got;
    long double err, tol;
    if (msg && cap) msg[0] = 0;
    for (size_t i = 0; i < c->n; ++i) {
        if (c->exclusive && !run_matches(&r, g + i * r.esize, &err, &tol)) {
            describe(&r, "out", i, g + i * r.esize, err, tol, msg, cap);
            return 1;
        }
        run_add(&r, in + i * r.esize);
        if (!c->exclusive && !run_matches(&r, g + i * r.esize, &err, &tol)) {
            describe(&r, "out", i, g + i * r.esize, err, tol, msg, cap);
            return 1;
        }
    }
    if (got_total && !run_matches(&r, got_total, &err, &tol)) {
        describe(&r, "total", c->n, got_total, err, tol, msg, cap);
        return 1;
    }
    return 0;
}
