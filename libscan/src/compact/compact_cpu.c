/* compact_cpu.c -- the libscan_cpu_* functions of compact.h: one sequential
 * loop per element type with the rules of compact.h (top), so the CPU and the
 * GPU write the same bytes. Calls arrive validated from compact_api.c. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "compact_internal.h"

/* The predicate on a value widened exactly to the 64-bit domain of its type. */
static bool keep_i64(const libscan_pred_t *p, int64_t x) {
    switch (p->kind) {
    case LIBSCAN_PRED_GT: return x > p->value.i;
    case LIBSCAN_PRED_GE: return x >= p->value.i;
    case LIBSCAN_PRED_LT: return x < p->value.i;
    case LIBSCAN_PRED_LE: return x <= p->value.i;
    case LIBSCAN_PRED_EQ: return x == p->value.i;
    case LIBSCAN_PRED_NE: return x != p->value.i;
    case LIBSCAN_PRED_RANGE: return p->value.i <= x && x <= p->hi.i;
    case LIBSCAN_PRED_NONZERO: return x != 0;
    case LIBSCAN_PRED_FINITE: return true;
    case LIBSCAN_PRED_ISNAN: return false;
    }
    return false;
}

static bool keep_u64(const libscan_pred_t *p, uint64_t x) {
    switch (p->kind) {
    case LIBSCAN_PRED_GT: return x > p->value.u;
    case LIBSCAN_PRED_GE: return x >= p->value.u;
    case LIBSCAN_PRED_LT: return x < p->value.u;
    case LIBSCAN_PRED_LE: return x <= p->value.u;
    case LIBSCAN_PRED_EQ: return x == p->value.u;
    case LIBSCAN_PRED_NE: return x != p->value.u;
    case LIBSCAN_PRED_RANGE: return p->value.u <= x && x <= p->hi.u;
    case LIBSCAN_PRED_NONZERO: return x != 0;
    case LIBSCAN_PRED_FINITE: return true;
    case LIBSCAN_PRED_ISNAN: return false;
    }
    return false;
}

static bool keep_f64(const libscan_pred_t *p, double x) {
    switch (p->kind) {
    case LIBSCAN_PRED_GT: return x > p->value.f;
    case LIBSCAN_PRED_GE: return x >= p->value.f;
    case LIBSCAN_PRED_LT: return x < p->value.f;
    case LIBSCAN_PRED_LE: return x <= p->value.f;
    case LIBSCAN_PRED_EQ: return x == p->value.f;
    case LIBSCAN_PRED_NE: return x != p->value.f;
    case LIBSCAN_PRED_RANGE: return p->value.f <= x && x <= p->hi.f;
    case LIBSCAN_PRED_NONZERO: return x != 0.0;
    case LIBSCAN_PRED_FINITE: return isfinite(x);
    case LIBSCAN_PRED_ISNAN: return isnan(x);
    }
    return false;
}

/* Unique's equality: ==, and two NaNs are equal. */
#define SAME_INT(a, b) ((a) == (b))
#define SAME_FLOAT(a, b) ((a) == (b) || (isnan(a) && isnan(b)))

/* One loop per type: decide, then append to out (kept) or rejected. In place
 * (out == in) works because output k is written only after input i >= k
 * was read, and `prev` keeps the original previous element. */
#define DEFINE_RUN(name, T, KEEP, WIDE, SAME)                                          \
    static void run_##name(const libscan__compact_call_t *c) {                                 \
        const T *in = (const T *)c->in;                                                \
        size_t kept = 0, rejected = 0;                                                 \
        T prev = 0;                                                                    \
        for (size_t i = 0; i < c->count; ++i) {                                        \
            const T x = in[i];                                                         \
            bool keep;                                                                 \
            if (c->source == LIBSCAN__COMPACT_FLAGS) keep = c->flags[i] != 0;                  \
            else if (c->source == LIBSCAN__COMPACT_PRED) keep = KEEP(&c->pred, (WIDE)x);       \
            else keep = i == 0 || !SAME(prev, x);                                      \
            prev = x;                                                                  \
            void *dst = keep ? c->out : c->rejected;                                   \
            if (!dst) continue;                                                        \
            const size_t at = keep ? kept++ : rejected++;                              \
            if (c->indices) ((uint64_t *)dst)[at] = (uint64_t)i;                       \
            else ((T *)dst)[at] = x;                                                   \
        }                                                                              \
        *c->num = kept;                                                                \
    }

DEFINE_RUN(u32, uint32_t, keep_u64, uint64_t, SAME_INT)
DEFINE_RUN(i32, int32_t, keep_i64, int64_t, SAME_INT)
DEFINE_RUN(u64, uint64_t, keep_u64, uint64_t, SAME_INT)
DEFINE_RUN(i64, int64_t, keep_i64, int64_t, SAME_INT)
DEFINE_RUN(f32, float, keep_f64, double, SAME_FLOAT)
DEFINE_RUN(f64, double, keep_f64, double, SAME_FLOAT)

void libscan__compact_cpu_run(const libscan__compact_call_t *c) {
    switch (c->dtype) {
    case LIBSCAN_U32: run_u32(c); break;
    case LIBSCAN_I32: run_i32(c); break;
    case LIBSCAN_U64: run_u64(c); break;
    case LIBSCAN_I64: run_i64(c); break;
    case LIBSCAN_F32: run_f32(c); break;
    case LIBSCAN_F64: run_f64(c); break;
    default: break; /* refused by the entry points */
    }
}
