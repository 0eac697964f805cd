/* sort_cpu_internal.h -- what the CPU sort's files share: the key map of
 * sort.h's "Order" section on the host, and the radix sort
 * (sort_cpu_radix.c) that sort_cpu.c's entry points call. Not installed. */
#ifndef LIBSCAN_SORT_CPU_INTERNAL_H
#define LIBSCAN_SORT_CPU_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include <libscan/sort.h>
#include "core/sibling.h"

/* The map of sort.h's "Order" section, then the direction and the bit
 * range: map_bits(x) compares, as an unsigned number, as the sort orders. */
typedef struct libscan__key_map {
    size_t ks;         /* key bytes: 1, 2, 4 or 8 */
    unsigned top;      /* the sign bit's index: ks * 8 - 1 */
    uint64_t xor_all;  /* flipped in every key (sign bit; all bits when descending) */
    uint64_t xor_neg;  /* flipped also when the sign bit is set (floats) */
    unsigned begin, end; /* the bit range, end resolved (> 0 unless the key width is 0) */
} libscan__key_map_t;

LIBSCAN__SIBLING libscan__key_map_t libscan__key_map(libscan_dtype_t key, int descending, unsigned begin_bit, unsigned end_bit);

static inline uint64_t libscan__map_bits(const libscan__key_map_t *m, uint64_t x) {
    return x ^ m->xor_all ^ (m->xor_neg & (0 - ((x >> m->top) & 1)));
}

/* The mapped key restricted to [begin, end), shifted down. */
static inline uint64_t libscan__ranged(const libscan__key_map_t *m, uint64_t mapped) {
    const unsigned bits = m->end - m->begin;
    if (bits == 0) return 0;
    const uint64_t v = mapped >> m->begin;
    return bits >= 64 ? v : (v & (((uint64_t)1 << bits) - 1));
}

/* The raw bits of key i of p (ks bytes each), zero-extended. With a
 * constant ks the switch folds away. */
static inline uint64_t libscan__load_key(const unsigned char *p, size_t i, size_t ks) {
    switch (ks) {
    case 1: return p[i];
    case 2: { uint16_t v; memcpy(&v, p + 2 * i, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, p + 4 * i, 4); return v; }
    default: { uint64_t v; memcpy(&v, p + 8 * i, 8); return v; }
    }
}

/* Sorts keys[0..count) (count >= 2) and their values (value_bytes 0, 4 or
 * 8) stably by m. iota_values: the values are not read; value i is written
 * as the input position of the key that lands at i (argsort). Uses a
 * scratch copy of the keys and values (malloc) and libscan__cpu_threads()
 * threads. Returns SUCCESS or OUT_OF_MEMORY (then nothing was written). */
libscan_status_t libscan__cpu_radix_sort(void *keys, void *values, size_t count, const libscan__key_map_t *m,
                                         size_t value_bytes, int iota_values);

#endif
