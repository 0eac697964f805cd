/* compact_cpu.c -- the libscan_cpu_* functions of compact.h: the rules of
 * compact.h (top) as one staging loop per element type and keep source, run
 * on the CPU's threads by the stable compaction of core/cpu_compact.h, so
 * the CPU and the GPU write the same bytes. Calls arrive validated from
 * compact_api.c. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "compact_internal.h"
#include "core/cpu_compact.h"

/* Unique's equality: ==, and two NaNs are equal. */
#define SAME_INT(a, b) ((a) == (b))
#define SAME_FLOAT(a, b) ((a) == (b) || (isnan(a) && isnan(b)))

/* Stages items [begin, end) for cpu_compact.h: every item is stored at the
 * next slot of the kept lane and (partition) of the rejected lane, and only
 * the count of its own side moves on, so the loop has no branch on the
 * decision. `prev` holds item i - 1 as read, for unique. */
#define STAGE_LOOP(T, KEEP)                                                                       \
    do {                                                                                          \
        for (size_t i = begin; i < end; ++i) {                                                    \
            const T x = in[i];                                                                    \
            const bool keep = (KEEP);                                                             \
            prev = x;                                                                             \
            if (c->indices) {                                                                     \
                kept_idx[k] = i;                                                                  \
                if (rej_idx) rej_idx[r] = i;                                                      \
            } else {                                                                              \
                kept_val[k] = x;                                                                  \
                if (rej_val) rej_val[r] = x;                                                      \
            }                                                                                     \
            k += keep;                                                                            \
            r += !keep;                                                                           \
        }                                                                                         \
    } while (0)

/* One staging function per type: the keep source and the predicate kind are
 * chosen once per range, outside the loop. WIDE is the exact 64-bit domain
 * of the type's comparisons (compact.h, Predicates), V the value's member. */
#define DEFINE_STAGE(name, T, WIDE, V, SAME, NONZERO, FINITE, ISNAN)                                      \
    static size_t stage_##name(void *ctx, size_t begin, size_t end, void *const lanes[2], size_t *rejected) { \
        const libscan__compact_call_t *c = ctx;                                                           \
        const T *in = (const T *)c->in;                                                                   \
        const unsigned char *flags = c->flags;                                                            \
        T *kept_val = lanes[0], *rej_val = c->rejected ? lanes[1] : NULL;                                 \
        uint64_t *kept_idx = lanes[0], *rej_idx = c->rejected ? lanes[1] : NULL;                          \
        const WIDE v = (WIDE)c->pred.value.V, hi = (WIDE)c->pred.hi.V;                                    \
        size_t k = 0, r = 0;                                                                              \
        T prev = begin > 0 ? in[begin - 1] : (T)0;                                                        \
        (void)v, (void)hi;                                                                                \
        if (c->source == LIBSCAN__COMPACT_FLAGS) {                                                        \
            STAGE_LOOP(T, flags[i] != 0);                                                                 \
        } else if (c->source == LIBSCAN__COMPACT_UNIQUE) {                                                \
            STAGE_LOOP(T, i == 0 || !SAME(prev, x));                                                      \
        } else {                                                                                          \
            switch (c->pred.kind) {                                                                       \
            case LIBSCAN_PRED_GT: STAGE_LOOP(T, (WIDE)x > v); break;                                      \
            case LIBSCAN_PRED_GE: STAGE_LOOP(T, (WIDE)x >= v); break;                                     \
            case LIBSCAN_PRED_LT: STAGE_LOOP(T, (WIDE)x < v); break;                                      \
            case LIBSCAN_PRED_LE: STAGE_LOOP(T, (WIDE)x <= v); break;                                     \
            case LIBSCAN_PRED_EQ: STAGE_LOOP(T, (WIDE)x == v); break;                                     \
            case LIBSCAN_PRED_NE: STAGE_LOOP(T, (WIDE)x != v); break;                                     \
            case LIBSCAN_PRED_RANGE: STAGE_LOOP(T, v <= (WIDE)x && (WIDE)x <= hi); break;                 \
            case LIBSCAN_PRED_NONZERO: STAGE_LOOP(T, NONZERO(x)); break;                                  \
            case LIBSCAN_PRED_FINITE: STAGE_LOOP(T, FINITE(x)); break;                                    \
            case LIBSCAN_PRED_ISNAN: STAGE_LOOP(T, ISNAN(x)); break;                                       \
            }                                                                                             \
        }                                                                                                 \
        (void)prev;                                                                                       \
        *rejected = r;                                                                                    \
        return k;                                                                                         \
    }

#define INT_NONZERO(x) ((x) != 0)
#define INT_FINITE(x) ((void)(x), true)
#define INT_ISNAN(x) ((void)(x), false)
#define FLT_NONZERO(x) ((double)(x) != 0.0)
#define FLT_FINITE(x) isfinite(x)
#define FLT_ISNAN(x) isnan(x)

DEFINE_STAGE(u32, uint32_t, uint64_t, u, SAME_INT, INT_NONZERO, INT_FINITE, INT_ISNAN)
DEFINE_STAGE(i32, int32_t, int64_t, i, SAME_INT, INT_NONZERO, INT_FINITE, INT_ISNAN)
DEFINE_STAGE(u64, uint64_t, uint64_t, u, SAME_INT, INT_NONZERO, INT_FINITE, INT_ISNAN)
DEFINE_STAGE(i64, int64_t, int64_t, i, SAME_INT, INT_NONZERO, INT_FINITE, INT_ISNAN)
DEFINE_STAGE(f32, float, double, f, SAME_FLOAT, FLT_NONZERO, FLT_FINITE, FLT_ISNAN)
DEFINE_STAGE(f64, double, double, f, SAME_FLOAT, FLT_NONZERO, FLT_FINITE, FLT_ISNAN)

void libscan__compact_cpu_run(const libscan__compact_call_t *c) {
    libscan__stage_fn stage = NULL;
    size_t es = 4;
    switch (c->dtype) {
    case LIBSCAN_U32: stage = stage_u32; break;
    case LIBSCAN_I32: stage = stage_i32; break;
    case LIBSCAN_U64: stage = stage_u64, es = 8; break;
    case LIBSCAN_I64: stage = stage_i64, es = 8; break;
    case LIBSCAN_F32: stage = stage_f32; break;
    case LIBSCAN_F64: stage = stage_f64, es = 8; break;
    default: return; /* refused by the entry points */
    }
    const size_t os = c->indices ? sizeof(uint64_t) : es;
    libscan__cpu_compact_job_t job = {
        .count = c->count,
        .lanes = c->rejected ? 2u : 1u,
        .lane_bytes = {os, os},
        .kind = {LIBSCAN__LANE_KEPT, LIBSCAN__LANE_REJECTED},
        .out = {c->out, c->rejected},
        .kept_in_place = c->out == c->in,
        .stage = stage,
        .ctx = (void *)c,
    };
    *c->num = libscan__cpu_compact(&job);
}
