/* sort_cpu.c -- the CPU path of sort.h (libscan_cpu_*): an LSD radix sort with
 * 8-bit digits over the same order-preserving key map as the GPU sort, in
 * host memory. Each pass counts digits, turns the counts into starts and
 * scatters keys (and values) stably into a scratch copy; a pass whose keys
 * all share one digit is skipped. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "sort_internal.h"

/* The raw bits of key i, zero-extended. */
static inline uint64_t load_bits(const unsigned char *p, size_t i, size_t ks) {
    switch (ks) {
    case 1: return p[i];
    case 2: { uint16_t v; memcpy(&v, p + 2 * i, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, p + 4 * i, 4); return v; }
    default: { uint64_t v; memcpy(&v, p + 8 * i, 8); return v; }
    }
}

/* The map of sort.h's "Order" section, then the direction and the bit
 * range: the result compares as the sort orders. */
typedef struct mapper {
    size_t ks;
    uint64_t sign, xor_all, xor_neg, width_mask;
    unsigned begin, end;
} mapper_t;

static mapper_t make_mapper(libscan_dtype_t key, int descending, unsigned begin, unsigned end) {
    mapper_t m;
    m.ks = libscan__sort_key_bytes(key);
    const unsigned width = (unsigned)m.ks * 8u;
    m.width_mask = width == 64 ? ~(uint64_t)0 : (((uint64_t)1 << width) - 1);
    m.sign = (uint64_t)1 << (width - 1);
    m.xor_all = 0;
    m.xor_neg = 0;
    if (key == LIBSCAN_I32 || key == LIBSCAN_I64) m.xor_all = m.sign;
    if (key == LIBSCAN_F32 || key == LIBSCAN_F64) {
        m.xor_all = m.sign;
        m.xor_neg = m.width_mask & ~m.sign;
    }
    if (descending) m.xor_all ^= m.width_mask;
    m.begin = begin;
    m.end = end ? end : width;
    return m;
}

static inline uint64_t map_bits(const mapper_t *m, uint64_t x) {
    return x ^ m->xor_all ^ ((x & m->sign) ? m->xor_neg : 0);
}

/* Mapped key restricted to [begin, end), shifted down. */
static inline uint64_t ranged(const mapper_t *m, uint64_t mapped) {
    const unsigned bits = m->end - m->begin;
    if (bits == 0) return 0;
    uint64_t v = mapped >> m->begin;
    return bits >= 64 ? v : (v & (((uint64_t)1 << bits) - 1));
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

    const mapper_t m = make_mapper(key, opts->descending, opts->begin_bit, opts->end_bit);
    const size_t ks = m.ks, vb = value_bytes;
    unsigned char *k_tmp = malloc(count * ks);
    unsigned char *v_tmp = vb ? malloc(count * vb) : NULL;
    size_t *starts = malloc(256 * sizeof(size_t));
    if (!k_tmp || (vb && !v_tmp) || !starts) {
        free(k_tmp);
        free(v_tmp);
        free(starts);
        return LIBSCAN_ERROR_OUT_OF_MEMORY;
    }
    unsigned char *k_src = keys, *k_dst = k_tmp, *v_src = values, *v_dst = v_tmp;
    for (unsigned shift = m.begin; shift < m.end; shift += 8) {
        const unsigned bits = m.end - shift < 8 ? m.end - shift : 8;
        const uint64_t mask = ((uint64_t)1 << bits) - 1;
        memset(starts, 0, 256 * sizeof(size_t));
        for (size_t i = 0; i < count; ++i) starts[(map_bits(&m, load_bits(k_src, i, ks)) >> shift) & mask]++;
        int trivial = 0;
        size_t run = 0;
        for (int d = 0; d < 256; ++d) {
            if (starts[d] == count) trivial = 1;
            size_t c = starts[d];
            starts[d] = run;
            run += c;
        }
        if (trivial) continue; /* every key has the same digit: order unchanged */
        for (size_t i = 0; i < count; ++i) {
            const size_t at = starts[(map_bits(&m, load_bits(k_src, i, ks)) >> shift) & mask]++;
            memcpy(k_dst + at * ks, k_src + i * ks, ks);
            if (vb) memcpy(v_dst + at * vb, v_src + i * vb, vb);
        }
        unsigned char *t = k_src; k_src = k_dst; k_dst = t;
        t = v_src; v_src = v_dst; v_dst = t;
    }
    if (k_src != keys) {
        memcpy(keys, k_src, count * ks);
        if (vb) memcpy(values, v_src, count * vb);
    }
    free(k_tmp);
    free(v_tmp);
    free(starts);
    return LIBSCAN_SUCCESS;
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
    for (size_t i = 0; i < count; ++i) {
        if (index_bytes == 4) ((uint32_t *)indices)[i] = (uint32_t)i;
        else ((uint64_t *)indices)[i] = (uint64_t)i;
    }
    return libscan_cpu_sort(keys, indices, count, key, index_bytes, opts);
}

libscan_status_t libscan_cpu_is_sorted(const void *keys, size_t count, libscan_dtype_t key,
                                         const libscan_sort_opts_t *opts, size_t *first_bad) {
    if (!opts) opts = &default_opts;
    libscan_status_t st = check(key, 0, opts);
    if (st != LIBSCAN_SUCCESS) return st;
    if (!first_bad || (count > 0 && !keys)) return LIBSCAN_ERROR_NULL_POINTER;
    const mapper_t m = make_mapper(key, opts->descending, opts->begin_bit, opts->end_bit);
    uint64_t prev = 0;
    for (size_t i = 0; i < count; ++i) {
        const uint64_t cur = ranged(&m, map_bits(&m, load_bits(keys, i, m.ks)));
        if (i > 0 && cur < prev) {
            *first_bad = i;
            return LIBSCAN_SUCCESS;
        }
        prev = cur;
    }
    *first_bad = count;
    return LIBSCAN_SUCCESS;
}

libscan_status_t libscan_cpu_sort_unique(void *keys, void *values, size_t count, libscan_dtype_t key,
                                      size_t value_bytes, const libscan_sort_opts_t *opts, size_t *kept) {
    if (!opts) opts = &default_opts;
    libscan_status_t st = check(key, value_bytes, opts);
    if (st != LIBSCAN_SUCCESS) return st;
    if (value_bytes == 0 && values) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (!kept || (count > 0 && (!keys || (value_bytes && !values)))) return LIBSCAN_ERROR_NULL_POINTER;
    const mapper_t m = make_mapper(key, 0, opts->begin_bit, opts->end_bit);
    unsigned char *k = keys, *v = values;
    size_t out = 0;
    uint64_t prev = 0;
    for (size_t i = 0; i < count; ++i) {
        const uint64_t cur = ranged(&m, map_bits(&m, load_bits(k, i, m.ks)));
        if (i > 0 && cur == prev) continue;
        if (out != i) {
            memcpy(k + out * m.ks, k + i * m.ks, m.ks);
            if (value_bytes) memcpy(v + out * value_bytes, v + i * value_bytes, value_bytes);
        }
        ++out;
        prev = cur;
    }
    *kept = out;
    return LIBSCAN_SUCCESS;
}
