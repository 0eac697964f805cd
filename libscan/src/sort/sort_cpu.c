/* sort_cpu.c -- the CPU path of sort.h (libscan_cpu_*): argument checks,
 * the key map, and the calls on the CPU's threads: the radix sort
 * (sort_cpu_radix.c), a split is-sorted scan, and unique through the stable
 * compaction of core/cpu_compact.h. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu_compact.h"
#include "core/cpu_threads.h"
#include "sort_cpu_internal.h"
#include "sort_internal.h"

/* is_sorted reads a key and compares: a thread pays for its start only on
 * a few hundred thousand keys. */
#define IS_SORTED_GRAIN ((size_t)1 << 18)
/* How often an is_sorted thread looks whether an earlier chunk already
 * failed (then nothing it finds can be the first). */
#define IS_SORTED_POLL ((size_t)1 << 14)

libscan__key_map_t libscan__key_map(libscan_dtype_t key, int descending, unsigned begin, unsigned end) {
    libscan__key_map_t m;
    m.ks = libscan__sort_key_bytes(key);
    const unsigned width = (unsigned)m.ks * 8u;
    const uint64_t width_mask = width == 64 ? ~(uint64_t)0 : (((uint64_t)1 << width) - 1);
    const uint64_t sign = (uint64_t)1 << (width - 1);
    m.top = width - 1;
    m.xor_all = 0;
    m.xor_neg = 0;
    if (key == LIBSCAN_I32 || key == LIBSCAN_I64) m.xor_all = sign;
    if (key == LIBSCAN_F32 || key == LIBSCAN_F64) {
        m.xor_all = sign;
        m.xor_neg = width_mask & ~sign;
    }
    if (descending) m.xor_all ^= width_mask;
    m.begin = begin;
    m.end = end ? end : width;
    return m;
}

static libscan_status_t check(libscan_dtype_t key, size_t value_bytes, const libscan_sort_opts_t *opts) {
    if (libscan__sort_key_bytes(key) == 0) return LIBSCAN_ERROR_INVALID_DTYPE;
    if (value_bytes != 0 && value_bytes != 4 && value_bytes != 8) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (libscan_sort_num_passes(key, opts->begin_bit, opts->end_bit) < 0) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    return LIBSCAN_SUCCESS;
}

static const libscan_sort_opts_t default_opts = LIBSCAN_SORT_OPTS_INIT;

libscan_status_t libscan_cpu_sort(void *keys, void *values, size_t count, libscan_dtype_t key,
                                    size_t value_bytes, const libscan_sort_opts_t *opts) {
    if (!opts) opts = &default_opts;
    libscan_status_t st = check(key, value_bytes, opts);
    if (st != LIBSCAN_SUCCESS) return st;
    if (value_bytes == 0 && values) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (count > LIBSCAN_MAX_COUNT) return LIBSCAN_ERROR_TOO_LARGE;
    if (count > 0 && (!keys || (value_bytes && !values))) return LIBSCAN_ERROR_NULL_POINTER;
    if (count <= 1) return LIBSCAN_SUCCESS;
    const libscan__key_map_t m = libscan__key_map(key, opts->descending, opts->begin_bit, opts->end_bit);
    return libscan__cpu_radix_sort(keys, values, count, &m, value_bytes, 0);
}

libscan_status_t libscan_cpu_argsort(void *keys, void *indices, size_t count, libscan_dtype_t key,
                                       size_t index_bytes, const libscan_sort_opts_t *opts) {
    if (!opts) opts = &default_opts;
    libscan_status_t st = check(key, index_bytes, opts);
    if (st != LIBSCAN_SUCCESS) return st;
    if (index_bytes != 4 && index_bytes != 8) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (index_bytes == 4 && count > ((size_t)1 << 32)) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (count > 0 && (!keys || !indices)) return LIBSCAN_ERROR_NULL_POINTER;
    if (count > LIBSCAN_MAX_COUNT) return LIBSCAN_ERROR_TOO_LARGE;
    if (count == 0) return LIBSCAN_SUCCESS;
    if (count == 1) {
        memset(indices, 0, index_bytes);
        return LIBSCAN_SUCCESS;
    }
    const libscan__key_map_t m = libscan__key_map(key, opts->descending, opts->begin_bit, opts->end_bit);
    /* The indices are written by the sort's first pass, not filled first. */
    return libscan__cpu_radix_sort(keys, indices, count, &m, index_bytes, 1);
}

/* ---- is_sorted ------------------------------------------------------------ */

typedef struct sorted_job {
    const unsigned char *keys;
    size_t count;
    libscan__key_map_t m;
    atomic_uint first_failed; /* the lowest thread that found a bad key so far */
    size_t found[LIBSCAN__CPU_MAX_THREADS];
} sorted_job_t;

/* The first i in [b, e) whose key is below key i - 1 (b >= 1), or e. The
 * map and range are read into registers once; with a constant ks the load
 * folds (one loop per key size). */
static inline __attribute__((always_inline)) size_t first_descent(const unsigned char *keys, size_t b, size_t e,
                                                                 libscan__key_map_t m, size_t ks) {
    uint64_t prev = libscan__ranged(&m, libscan__map_bits(&m, libscan__load_key(keys, b - 1, ks)));
    for (size_t i = b; i < e; ++i) {
        const uint64_t cur = libscan__ranged(&m, libscan__map_bits(&m, libscan__load_key(keys, i, ks)));
        if (cur < prev) return i;
        prev = cur;
    }
    return e;
}

static size_t first_descent_any(const unsigned char *keys, size_t b, size_t e, const libscan__key_map_t *m) {
    switch (m->ks) {
    case 1: return first_descent(keys, b, e, *m, 1);
    case 2: return first_descent(keys, b, e, *m, 2);
    case 4: return first_descent(keys, b, e, *m, 4);
    default: return first_descent(keys, b, e, *m, 8);
    }
}

static void sorted_thread(void *ctx, libscan__team_t *team, unsigned t) {
    sorted_job_t *j = ctx;
    size_t b, e;
    libscan__split(j->count, libscan__team_size(team), t, &b, &e);
    j->found[t] = j->count;
    if (b == 0) b = 1; /* key 0 has no predecessor */
    for (size_t p = b; p < e; p += IS_SORTED_POLL) {
        if (atomic_load_explicit(&j->first_failed, memory_order_relaxed) < t) return; /* an earlier chunk holds the answer */
        const size_t pe = e - p < IS_SORTED_POLL ? e : p + IS_SORTED_POLL;
        const size_t bad = first_descent_any(j->keys, p, pe, &j->m);
        if (bad < pe) {
            j->found[t] = bad;
            unsigned seen = atomic_load_explicit(&j->first_failed, memory_order_relaxed);
            while (t < seen && !atomic_compare_exchange_weak_explicit(&j->first_failed, &seen, t,
                                                                      memory_order_relaxed, memory_order_relaxed)) {
            }
            return;
        }
    }
}

libscan_status_t libscan_cpu_is_sorted(const void *keys, size_t count, libscan_dtype_t key,
                                         const libscan_sort_opts_t *opts, size_t *first_bad) {
    if (!opts) opts = &default_opts;
    libscan_status_t st = check(key, 0, opts);
    if (st != LIBSCAN_SUCCESS) return st;
    if (!first_bad || (count > 0 && !keys)) return LIBSCAN_ERROR_NULL_POINTER;
    sorted_job_t job, *j = &job;
    j->keys = keys;
    j->count = count;
    j->m = libscan__key_map(key, opts->descending, opts->begin_bit, opts->end_bit);
    atomic_init(&j->first_failed, LIBSCAN__CPU_MAX_THREADS);
    const unsigned ran = libscan__team_run(libscan__cpu_threads(count, IS_SORTED_GRAIN), sorted_thread, j);
    /* Chunks are in input order, so the first chunk with a bad key has the
     * smallest one; a chunk that stopped early did so behind that one. */
    size_t bad = count;
    for (unsigned t = 0; t < ran && bad == count; ++t) bad = j->found[t];
    *first_bad = bad;
    return LIBSCAN_SUCCESS;
}

/* ---- sort_unique ---------------------------------------------------------- */

typedef struct unique_job {
    const unsigned char *keys, *values;
    size_t vb;
    libscan__key_map_t m;
} unique_job_t;

/* cpu_compact.h's stage for unique: keeps key i when its mapped, ranged bits
 * differ from key i - 1's (i == 0 always), with its value. */
#define UNIQUE_LOOP(KS, VB)                                                                     \
    for (size_t i = begin; i < end; ++i) {                                                      \
        const uint64_t x = libscan__load_key(j->keys, i, KS);                                   \
        const uint64_t cur = libscan__ranged(&j->m, libscan__map_bits(&j->m, x));               \
        const size_t keep = i == 0 || cur != prev;                                              \
        prev = cur;                                                                             \
        memcpy(lk + k * (KS), j->keys + i * (KS), KS);                                          \
        if (VB) memcpy(lv + k * (VB), j->values + i * (VB), VB);                                \
        k += keep;                                                                              \
    }

static size_t unique_stage(void *ctx, size_t begin, size_t end, void *const lanes[2], size_t *rejected) {
    const unique_job_t *j = ctx;
    unsigned char *lk = lanes[0], *lv = lanes[1];
    uint64_t prev = begin > 0 ? libscan__ranged(&j->m, libscan__map_bits(&j->m, libscan__load_key(j->keys, begin - 1, j->m.ks))) : 0;
    size_t k = 0;
    switch (j->m.ks * 16 + j->vb) {
    case 16: UNIQUE_LOOP(1, 0) break;
    case 20: UNIQUE_LOOP(1, 4) break;
    case 24: UNIQUE_LOOP(1, 8) break;
    case 32: UNIQUE_LOOP(2, 0) break;
    case 36: UNIQUE_LOOP(2, 4) break;
    case 40: UNIQUE_LOOP(2, 8) break;
    case 64: UNIQUE_LOOP(4, 0) break;
    case 68: UNIQUE_LOOP(4, 4) break;
    case 72: UNIQUE_LOOP(4, 8) break;
    case 128: UNIQUE_LOOP(8, 0) break;
    case 132: UNIQUE_LOOP(8, 4) break;
    default: UNIQUE_LOOP(8, 8) break;
    }
    *rejected = (end - begin) - k;
    return k;
}

libscan_status_t libscan_cpu_sort_unique(void *keys, void *values, size_t count, libscan_dtype_t key,
                                      size_t value_bytes, const libscan_sort_opts_t *opts, size_t *kept) {
    if (!opts) opts = &default_opts;
    libscan_status_t st = check(key, value_bytes, opts);
    if (st != LIBSCAN_SUCCESS) return st;
    if (value_bytes == 0 && values) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (!kept || (count > 0 && (!keys || (value_bytes && !values)))) return LIBSCAN_ERROR_NULL_POINTER;
    /* Equality ignores the direction: map ascending. */
    unique_job_t j = {keys, values, value_bytes, libscan__key_map(key, 0, opts->begin_bit, opts->end_bit)};
    libscan__cpu_compact_job_t job = {
        .count = count,
        .lanes = value_bytes ? 2u : 1u,
        .lane_bytes = {j.m.ks, value_bytes},
        .kind = {LIBSCAN__LANE_KEPT, LIBSCAN__LANE_KEPT},
        .out = {keys, values},
        .kept_in_place = 1,
        .stage = unique_stage,
        .ctx = &j,
    };
    *kept = libscan__cpu_compact(&job);
    return LIBSCAN_SUCCESS;
}
