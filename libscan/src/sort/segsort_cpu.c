/* segsort_cpu.c -- the CPU path of the segmented sort (sort.h,
 * libscan_cpu_segmented_sort) and the offsets check both paths share.
 *
 * The threads split the keys into equal ranges and each takes the segments
 * that start in its range, sorting them one after another with a
 * single-threaded stable LSD radix sort (insertion sort below 32 keys) in
 * scratch of its own: a segment never needs another thread, and 2^20 small
 * segments cost no thread start each. A segment larger than SEG_LARGE keys
 * would leave one thread working alone, so it is sorted afterwards by the
 * threaded sort of libscan_cpu_sort (sort_cpu_radix.c). */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu_threads.h"
#include "segsort_internal.h"
#include "sort_cpu_internal.h"
#include "sort_internal.h"

#define SEG_GRAIN ((size_t)1 << 16)  /* keys per thread, as libscan_cpu_sort */
#define SEG_LARGE ((size_t)1 << 20)  /* larger segments take the threaded sort */
#define SEG_INSERTION 32             /* smaller segments take insertion sort */
#define SEG_SCRATCH_PER_KEY 32       /* bytes: two key and two index arrays, one gather buffer */

int libscan__segsort_offsets_ok(const uint64_t *h, size_t k, size_t first, uint64_t *prev, size_t count,
                                size_t num_segments) {
    for (size_t i = 0; i < k; ++i) {
        const size_t at = first + i;
        const uint64_t v = h[i];
        if (at == 0 ? v != 0 : v < *prev) return 0;
        if (v > count || (at == num_segments && v != count)) return 0;
        *prev = v;
    }
    return 1;
}

typedef struct seg_job {
    unsigned char *keys, *values;
    size_t count, vs;
    const uint64_t *off;
    size_t num;
    const libscan__key_map_t *m;
    atomic_int oom;
} seg_job_t;

/* The compared bits of key i. */
static uint64_t ranged_key(const seg_job_t *j, const unsigned char *keys, size_t i) {
    return libscan__ranged(j->m, libscan__map_bits(j->m, libscan__load_key(keys, i, j->m->ks)));
}

/* Stable insertion sort of a short segment: keys and values move together. */
static void insertion_sort(const seg_job_t *j, unsigned char *keys, unsigned char *values, size_t z) {
    const size_t ks = j->m->ks, vs = j->vs;
    unsigned char kt[8], vt[8];
    for (size_t i = 1; i < z; ++i) {
        const uint64_t r = ranged_key(j, keys, i);
        size_t p = i;
        while (p > 0 && ranged_key(j, keys, p - 1) > r) --p;
        if (p == i) continue;
        memcpy(kt, keys + i * ks, ks);
        memmove(keys + (p + 1) * ks, keys + p * ks, (i - p) * ks);
        memcpy(keys + p * ks, kt, ks);
        if (vs) {
            memcpy(vt, values + i * vs, vs);
            memmove(values + (p + 1) * vs, values + p * vs, (i - p) * vs);
            memcpy(values + p * vs, vt, vs);
        }
    }
}

/* Stable LSD radix sort (8-bit digits) of one segment of z keys (z <=
 * SEG_LARGE, so positions fit 32 bits) through scratch of z *
 * SEG_SCRATCH_PER_KEY bytes: (ranged key, position) pairs are sorted, then
 * keys and values gathered by position. A digit that every key shares is
 * skipped. */
static void radix_sort(const seg_job_t *j, unsigned char *keys, unsigned char *values, size_t z,
                       unsigned char *scratch) {
    uint64_t *k0 = (uint64_t *)scratch, *k1 = k0 + z;
    uint32_t *i0 = (uint32_t *)(k1 + z), *i1 = i0 + z;
    unsigned char *gather = (unsigned char *)(i1 + z);
    for (size_t i = 0; i < z; ++i) {
        k0[i] = ranged_key(j, keys, i);
        i0[i] = (uint32_t)i;
    }
    const unsigned bits = j->m->end - j->m->begin;
    for (unsigned shift = 0; shift < bits; shift += 8) {
        size_t cnt[256] = {0};
        for (size_t i = 0; i < z; ++i) ++cnt[(k0[i] >> shift) & 255];
        if (cnt[(k0[0] >> shift) & 255] == z) continue;
        size_t sum = 0;
        for (int d = 0; d < 256; ++d) {
            const size_t c = cnt[d];
            cnt[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < z; ++i) {
            const size_t at = cnt[(k0[i] >> shift) & 255]++;
            k1[at] = k0[i];
            i1[at] = i0[i];
        }
        uint64_t *tk = k0;
        k0 = k1;
        k1 = tk;
        uint32_t *ti = i0;
        i0 = i1;
        i1 = ti;
    }
    const size_t ks = j->m->ks, vs = j->vs;
    for (size_t i = 0; i < z; ++i) memcpy(gather + i * ks, keys + (size_t)i0[i] * ks, ks);
    memcpy(keys, gather, z * ks);
    if (vs) {
        for (size_t i = 0; i < z; ++i) memcpy(gather + i * vs, values + (size_t)i0[i] * vs, vs);
        memcpy(values, gather, z * vs);
    }
}

/* The first segment s with off[s] >= x (num when none). */
static size_t first_segment_from(const seg_job_t *j, uint64_t x) {
    size_t lo = 0, hi = j->num;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (j->off[mid] < x) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static void seg_thread(void *ctx, libscan__team_t *team, unsigned t) {
    seg_job_t *j = ctx;
    size_t b, e;
    libscan__split(j->count, libscan__team_size(team), t, &b, &e);
    if (b == e) return;
    const size_t s0 = first_segment_from(j, b), s1 = first_segment_from(j, e);
    size_t longest = 0;
    for (size_t s = s0; s < s1; ++s) {
        const size_t z = (size_t)(j->off[s + 1] - j->off[s]);
        if (z <= SEG_LARGE && z > longest) longest = z;
    }
    unsigned char *scratch = NULL;
    if (longest >= SEG_INSERTION && !(scratch = malloc(longest * SEG_SCRATCH_PER_KEY))) {
        atomic_store(&j->oom, 1);
        return;
    }
    const size_t ks = j->m->ks, vs = j->vs;
    for (size_t s = s0; s < s1; ++s) {
        const size_t z = (size_t)(j->off[s + 1] - j->off[s]);
        if (z <= 1 || z > SEG_LARGE) continue;
        unsigned char *k = j->keys + j->off[s] * ks, *v = vs ? j->values + j->off[s] * vs : NULL;
        if (z < SEG_INSERTION) insertion_sort(j, k, v, z);
        else radix_sort(j, k, v, z, scratch);
    }
    free(scratch);
}

static const libscan_segsort_opts_t default_opts = LIBSCAN_SEGSORT_OPTS_INIT;

libscan_status_t libscan_cpu_segmented_sort(void *keys, void *values, size_t count, const uint64_t *offsets,
                                            size_t num_segments, libscan_dtype_t key, size_t value_bytes,
                                            const libscan_segsort_opts_t *opts) {
    if (!opts) opts = &default_opts;
    const size_t ks = libscan__sort_key_bytes(key);
    if (ks == 0) return LIBSCAN_ERROR_INVALID_DTYPE;
    if (value_bytes != 0 && value_bytes != 4 && value_bytes != 8) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (libscan_sort_num_passes(key, opts->begin_bit, opts->end_bit) < 0) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (value_bytes == 0 && values) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (count > LIBSCAN_MAX_COUNT || num_segments > LIBSCAN_MAX_COUNT) return LIBSCAN_ERROR_TOO_LARGE;
    if (!offsets) return LIBSCAN_ERROR_NULL_POINTER;
    if (count > 0 && (!keys || (value_bytes && !values))) return LIBSCAN_ERROR_NULL_POINTER;
    if (num_segments == 0 && count > 0) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    uint64_t prev = 0;
    if (!libscan__segsort_offsets_ok(offsets, num_segments + 1, 0, &prev, count, num_segments))
        return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (count <= 1 || libscan_sort_num_passes(key, opts->begin_bit, opts->end_bit) == 0) return LIBSCAN_SUCCESS;

    const libscan__key_map_t m = libscan__key_map(key, opts->descending, opts->begin_bit, opts->end_bit);
    seg_job_t j;
    j.keys = keys;
    j.values = values;
    j.count = count;
    j.vs = value_bytes;
    j.off = offsets;
    j.num = num_segments;
    j.m = &m;
    atomic_init(&j.oom, 0);
    (void)libscan__team_run(libscan__cpu_threads(count, SEG_GRAIN), seg_thread, &j);
    if (atomic_load(&j.oom)) return LIBSCAN_ERROR_OUT_OF_MEMORY;
    for (size_t s = 0; s < num_segments; ++s) {
        const size_t z = (size_t)(offsets[s + 1] - offsets[s]);
        if (z <= SEG_LARGE) continue;
        libscan_status_t st = libscan__cpu_radix_sort((unsigned char *)keys + offsets[s] * ks,
                                                      value_bytes ? (unsigned char *)values + offsets[s] * value_bytes
                                                                  : NULL,
                                                      z, &m, value_bytes, 0);
        if (st != LIBSCAN_SUCCESS) return st;
    }
    return LIBSCAN_SUCCESS;
}
