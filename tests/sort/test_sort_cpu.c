/* test_sort_cpu.c -- the sort family's host side (label cpu): the CPU
 * sort against the qsort reference for every key type x direction x keys/
 * pairs x distribution, stability, bit ranges, argsort, is_sorted, unique;
 * the threaded CPU path with 1, 2, 3 and 7 threads forced
 * (LIBSCAN_CPU_THREADS) at sizes around its chunk and line boundaries,
 * against the same reference; and every argument error of the GPU entry
 * points, all decided before any CUDA call (fake, never-dereferenced
 * pointers). */
#include "support/harness.h"
#include "sort_reference.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const size_t kSizes[] = {0, 1, 2, 31, 33, 6143, 6144, 6145, 4095, 4097, 70001};

/* Forces the CPU path's thread count (0: back to automatic). */
static void set_threads(unsigned t) {
    if (t == 0) {
        unsetenv("LIBSCAN_CPU_THREADS");
        return;
    }
    char v[16];
    snprintf(v, sizeof v, "%u", t);
    setenv("LIBSCAN_CPU_THREADS", v, 1);
}

static const unsigned kThreads[] = {1, 2, 3, 7};

/* Sorts a case in place at `skew` bytes past a 64-byte boundary (the
 * sort's output lines then start mid-array; a skew that is not a multiple
 * of the element size takes the plain scatter) and checks it against the
 * reference, then checks is_sorted on the result. */
static void check_sorted_case_at(libscan_dtype_t key, ref_dist_t dist, int desc, size_t vb, size_t n, unsigned begin,
                                 unsigned end, uint64_t idx, size_t skew) {
    const size_t ks = libscan_dtype_size(key);
    rng_t r;
    rng_init(&r, "cpu-sort", idx);
    unsigned char *keys = malloc(n * ks + 8), *out_base = aligned_alloc(64, (n * ks + 64 + skew + 63) / 64 * 64);
    unsigned char *vals = malloc(n * 8 + 8), *vout_base = aligned_alloc(64, (n * 8 + 64 + skew + 63) / 64 * 64);
    assert_non_null(keys);
    assert_non_null(out_base);
    assert_non_null(vals);
    assert_non_null(vout_base);
    unsigned char *out = out_base + skew, *vout = vout_base + skew;
    ref_fill(&r, key, dist, keys, n);
    if (vb) ref_iota(vals, n, vb);
    memcpy(out, keys, n * ks);
    if (vb) memcpy(vout, vals, n * vb);
    libscan_sort_opts_t o = LIBSCAN_SORT_OPTS_INIT;
    o.descending = desc;
    o.begin_bit = begin;
    o.end_bit = end;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_sort(out, vb ? vout : NULL, n, key, vb, &o));
    size_t *perm = ref_order(key, keys, n, desc, begin, end);
    size_t bad = ref_first_mismatch(perm, n, ks, keys, out, vb, vals, vout);
    if (bad != n)
        TFAIL("cpu sort %s %s %s values=%zu n=%zu bits [%u,%u) threads=%s skew=%zu: first mismatch at %zu",
              libscan_dtype_name(key), ref_dist_name(dist), desc ? "desc" : "asc", vb, n, begin, end,
              getenv("LIBSCAN_CPU_THREADS") ? getenv("LIBSCAN_CPU_THREADS") : "auto", skew, bad);
    size_t first_bad = 0;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_is_sorted(out, n, key, &o, &first_bad));
    assert_int_equal(first_bad, n);
    free(perm);
    free(keys);
    free(out_base);
    free(vals);
    free(vout_base);
}

static void check_sorted_case(libscan_dtype_t key, ref_dist_t dist, int desc, size_t vb, size_t n, unsigned begin,
                              unsigned end, uint64_t idx) {
    check_sorted_case_at(key, dist, desc, vb, n, begin, end, idx, 0);
}

static void test_every_type_direction_distribution(void **state) {
    (void)state;
    uint64_t idx = 0;
    for (int k = 0; k < 8; ++k)
        for (int d = 0; d < DIST_COUNT; ++d)
            for (int desc = 0; desc < 2; ++desc)
                for (size_t s = 0; s < sizeof kSizes / sizeof kSizes[0]; ++s) {
                    const size_t vbs[3] = {0, 4, 8};
                    check_sorted_case(ref_all_keys[k], (ref_dist_t)d, desc, vbs[idx % 3], kSizes[s], 0, 0, idx);
                    ++idx;
                }
}

static void test_stability_pairs_equal_keys(void **state) {
    (void)state;
    for (int k = 0; k < 8; ++k)
        for (int desc = 0; desc < 2; ++desc) {
            check_sorted_case(ref_all_keys[k], DIST_TWO_DISTINCT, desc, 4, 10007, 0, 0, 900 + k * 2 + desc);
            check_sorted_case(ref_all_keys[k], DIST_ALL_EQUAL, desc, 8, 5003, 0, 0, 950 + k * 2 + desc);
        }
}

static void test_bit_ranges(void **state) {
    (void)state;
    const unsigned ranges[][2] = {{4, 20}, {0, 1}, {31, 32}, {8, 8}, {0, 13}, {5, 32}};
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; ++i)
        for (int desc = 0; desc < 2; ++desc) {
            check_sorted_case(LIBSCAN_U32, DIST_UNIFORM, desc, 4, 20011, ranges[i][0], ranges[i][1], 1000 + i);
            check_sorted_case(LIBSCAN_I32, DIST_UNIFORM, desc, 0, 20011, ranges[i][0], ranges[i][1], 1100 + i);
        }
    check_sorted_case(LIBSCAN_U64, DIST_UNIFORM, 0, 8, 30011, 3, 61, 1200);
    check_sorted_case(LIBSCAN_I64, DIST_UNIFORM, 1, 4, 30011, 40, 64, 1201);
}

static void test_argsort(void **state) {
    (void)state;
    for (int k = 0; k < 8; ++k)
        for (size_t ib = 4; ib <= 8; ib += 4) {
            const size_t n = 12345, ks = libscan_dtype_size(ref_all_keys[k]);
            rng_t r;
            rng_init(&r, "cpu-argsort", (uint64_t)k * 2 + ib);
            unsigned char *keys = malloc(n * ks), *out = malloc(n * ks), *idx = malloc(n * 8);
            ref_fill(&r, ref_all_keys[k], DIST_SIXTEEN_DISTINCT, keys, n);
            memcpy(out, keys, n * ks);
            LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_argsort(out, idx, n, ref_all_keys[k], ib, NULL));
            size_t *perm = ref_order(ref_all_keys[k], keys, n, 0, 0, 0);
            for (size_t i = 0; i < n; ++i) {
                const uint64_t got = ib == 4 ? ((uint32_t *)idx)[i] : ((uint64_t *)idx)[i];
                if (got != perm[i]) TFAIL("argsort %s index bytes %zu: [%zu] = %llu, expected %zu",
                                          libscan_dtype_name(ref_all_keys[k]), ib, i, (unsigned long long)got, perm[i]);
            }
            free(perm);
            free(keys);
            free(out);
            free(idx);
        }
}

/* ---- the threaded CPU path ---------------------------------------------- */

/* Sizes around the threaded sort's boundaries for t threads: fewer keys
 * than threads, one key per thread, chunks one key apart, about a 64-byte
 * line of keys per chunk, ragged chunks past the 2^16-key grain. */
static size_t thread_sizes(unsigned t, size_t *sizes) {
    const size_t list[] = {2, t, t + 1, 3 * t + 2, 16 * t - 1, 16 * t + 1, 1000 * t + 7, 70001};
    size_t k = 0;
    for (size_t i = 0; i < sizeof list / sizeof list[0]; ++i)
        if (list[i] >= 2) sizes[k++] = list[i];
    return k;
}

static void test_threads_every_type_and_distribution(void **state) {
    (void)state;
    const ref_dist_t dists[] = {DIST_UNIFORM,  DIST_TWO_DISTINCT, DIST_FLOAT_SPECIALS, DIST_HIGH_BYTE,
                                DIST_LOW_BYTE, DIST_ALL_EQUAL,    DIST_SORTED,         DIST_REVERSE};
    uint64_t idx = 5000;
    for (size_t ti = 0; ti < sizeof kThreads / sizeof kThreads[0]; ++ti) {
        set_threads(kThreads[ti]);
        size_t sizes[8];
        const size_t ns = thread_sizes(kThreads[ti], sizes);
        for (int k = 0; k < 8; ++k)
            for (size_t d = 0; d < sizeof dists / sizeof dists[0]; ++d)
                for (int desc = 0; desc < 2; ++desc) {
                    const size_t vbs[3] = {0, 4, 8};
                    check_sorted_case(ref_all_keys[k], dists[d], desc, vbs[idx % 3], sizes[idx % ns], 0, 0, idx);
                    ++idx;
                }
        /* Every size with every value width, on the keys with most passes. */
        for (size_t si = 0; si < ns; ++si)
            for (size_t vb = 0; vb <= 8; vb += 4) {
                check_sorted_case(LIBSCAN_F64, DIST_FLOAT_SPECIALS, (int)(si & 1), vb, sizes[si], 0, 0, idx++);
                check_sorted_case(LIBSCAN_I32, DIST_TWO_DISTINCT, (int)(vb == 4), vb, sizes[si], 0, 0, idx++);
            }
    }
    set_threads(0);
}

static void test_threads_bit_ranges(void **state) {
    (void)state;
    const unsigned ranges[][2] = {{4, 20}, {0, 13}, {31, 32}, {8, 8}, {3, 11}, {0, 32}};
    for (size_t ti = 0; ti < sizeof kThreads / sizeof kThreads[0]; ++ti) {
        set_threads(kThreads[ti]);
        for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; ++i) {
            check_sorted_case(LIBSCAN_U32, DIST_UNIFORM, (int)(i & 1), 4, 20011, ranges[i][0], ranges[i][1], 6000 + i);
            check_sorted_case(LIBSCAN_I32, DIST_UNIFORM, (int)(~i & 1), 8, 3 * kThreads[ti] + 1, ranges[i][0],
                              ranges[i][1], 6100 + i);
        }
        check_sorted_case(LIBSCAN_U64, DIST_UNIFORM, 0, 8, 30011, 3, 61, 6200);
        check_sorted_case(LIBSCAN_I64, DIST_UNIFORM, 1, 0, 30011, 40, 64, 6201);
        check_sorted_case(LIBSCAN_U16, DIST_UNIFORM, 1, 4, 30011, 2, 9, 6202);
    }
    set_threads(0);
}

/* Output arrays that do not start on a 64-byte line (by whole elements: the
 * first and last lines of every digit's range are partial) or are not even
 * aligned to their element size (the plain scatter). */
static void test_threads_skewed_arrays(void **state) {
    (void)state;
    const unsigned threads[] = {1, 3};
    for (size_t ti = 0; ti < 2; ++ti) {
        set_threads(threads[ti]);
        for (int k = 0; k < 8; ++k) {
            const size_t ks = libscan_dtype_size(ref_all_keys[k]);
            for (size_t vb = 0; vb <= 8; vb += 4) {
                check_sorted_case_at(ref_all_keys[k], DIST_UNIFORM, 0, vb, 50001, 0, 0, 7000 + k, 8 * ks);
                check_sorted_case_at(ref_all_keys[k], DIST_LOW_BYTE, 1, vb, 4099, 0, 0, 7100 + k, ks + 8);
                check_sorted_case_at(ref_all_keys[k], DIST_UNIFORM, 1, vb, 50001, 0, 0, 7200 + k, 1);
            }
        }
    }
    set_threads(0);
}

static void test_threads_argsort(void **state) {
    (void)state;
    for (size_t ti = 0; ti < sizeof kThreads / sizeof kThreads[0]; ++ti) {
        set_threads(kThreads[ti]);
        for (int k = 0; k < 8; ++k)
            for (size_t ib = 4; ib <= 8; ib += 4)
                for (int variant = 0; variant < 3; ++variant) {
                    /* 0: random keys; 1: all equal (every pass skipped, the
                     * indices come from the fill); 2: no bits (begin == end). */
                    const libscan_dtype_t key = ref_all_keys[k];
                    const size_t n = variant == 1 ? 3 * kThreads[ti] + 1 : 20011, ks = libscan_dtype_size(key);
                    rng_t r;
                    rng_init(&r, "cpu-argsort-threads", (uint64_t)(k * 16 + (int)ib * 2 + variant));
                    unsigned char *keys = malloc(n * ks), *out = malloc(n * ks), *idx = malloc(n * 8);
                    assert_true(keys && out && idx);
                    ref_fill(&r, key, variant == 1 ? DIST_ALL_EQUAL : DIST_SIXTEEN_DISTINCT, keys, n);
                    memcpy(out, keys, n * ks);
                    memset(idx, 0xa5, n * 8);
                    libscan_sort_opts_t o = LIBSCAN_SORT_OPTS_INIT;
                    o.descending = k & 1;
                    if (variant == 2) o.begin_bit = o.end_bit = 3;
                    LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_argsort(out, idx, n, key, ib, &o));
                    /* begin == end compares nothing: the input order (sort.h). */
                    size_t *perm = ref_order(key, keys, n, o.descending, 0, variant == 2 ? 1 : 0);
                    assert_non_null(perm);
                    if (variant == 2)
                        for (size_t i = 0; i < n; ++i) perm[i] = i;
                    for (size_t i = 0; i < n; ++i) {
                        const uint64_t got = ib == 4 ? ((uint32_t *)idx)[i] : ((uint64_t *)idx)[i];
                        if (got != perm[i])
                            TFAIL("argsort %s index bytes %zu variant %d threads %u: [%zu] = %llu, expected %zu",
                                  libscan_dtype_name(key), ib, variant, kThreads[ti], i, (unsigned long long)got,
                                  perm[i]);
                    }
                    if (ref_first_mismatch(perm, n, ks, keys, out, 0, NULL, NULL) != n)
                        TFAIL("argsort %s variant %d threads %u: keys not sorted", libscan_dtype_name(key), variant,
                              kThreads[ti]);
                    free(perm);
                    free(keys);
                    free(out);
                    free(idx);
                }
    }
    set_threads(0);
}

/* The first key out of order, wherever it is: at the start, on and next to
 * the threads' chunk boundaries, at the end; with a second one after it in a
 * later chunk (which must not be the answer). */
static void test_threads_is_sorted(void **state) {
    (void)state;
    const size_t n = 100003;
    uint32_t *asc = malloc(n * 4), *k = malloc(n * 4);
    assert_true(asc && k);
    for (size_t i = 0; i < n; ++i) asc[i] = (uint32_t)(2 * i + 10);
    for (size_t ti = 0; ti < sizeof kThreads / sizeof kThreads[0]; ++ti) {
        const unsigned t = kThreads[ti];
        set_threads(t);
        size_t bad = 0;
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_is_sorted(asc, n, LIBSCAN_U32, NULL, &bad));
        assert_int_equal(bad, n);
        size_t where[3 * 8 + 2], nw = 0;
        where[nw++] = 1;
        where[nw++] = n - 1;
        for (unsigned s = 1; s < t; ++s)
            for (int dlt = -1; dlt <= 1; ++dlt) where[nw++] = (size_t)((long)(s * (n / t)) + dlt);
        for (size_t w = 0; w < nw; ++w)
            for (int second = 0; second < 2; ++second) {
                memcpy(k, asc, n * 4);
                k[where[w]] = k[where[w] - 1] - 1;
                if (second && where[w] + 2 < n) k[n - 2] = 0;
                LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_is_sorted(k, n, LIBSCAN_U32, NULL, &bad));
                if (bad != where[w]) TFAIL("is_sorted threads %u: first bad %zu, expected %zu", t, bad, where[w]);
            }
        /* Descending over a bit range: only bits [4, 12) compare. */
        libscan_sort_opts_t o = LIBSCAN_SORT_OPTS_INIT;
        o.descending = 1;
        o.begin_bit = 4;
        o.end_bit = 12;
        for (size_t i = 0; i < n; ++i) k[i] = (uint32_t)(((n - i) * 16 / n) << 4 | (i & 15) | (uint32_t)(i << 12));
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_is_sorted(k, n, LIBSCAN_U32, &o, &bad));
        assert_int_equal(bad, n);
    }
    set_threads(0);
    free(asc);
    free(k);
}

/* sort_unique against a reference written here: key i is kept when it is
 * the first or its bits over the range differ from key i - 1's. Runs cross
 * the compaction's 8192-key blocks; all distinct (nothing moves) and all
 * equal included. */
static void test_threads_sort_unique(void **state) {
    (void)state;
    const size_t n = 5 * 8192 + 3;
    for (size_t ti = 0; ti < sizeof kThreads / sizeof kThreads[0]; ++ti) {
        set_threads(kThreads[ti]);
        for (int k = 0; k < 8; ++k)
            for (int shape = 0; shape < 3; ++shape) {
                const libscan_dtype_t key = ref_all_keys[k];
                const size_t ks = libscan_dtype_size(key), vb = (size_t)(k % 3) * 4;
                rng_t r;
                rng_init(&r, "cpu-unique-threads", (uint64_t)(k * 4 + shape));
                unsigned char *in = malloc(n * ks), *keys = malloc(n * ks), *vals = malloc(n * 8 + 8);
                unsigned char *want_k = malloc(n * ks), *want_v = malloc(n * 8 + 8);
                assert_true(in && keys && vals && want_k && want_v);
                ref_fill(&r, key, DIST_FLOAT_SPECIALS, in, n);
                if (shape == 0) { /* runs of 1 .. 20000 keys */
                    for (size_t i = 1; i < n; ++i)
                        if (rng_below(&r, 2000) != 0) memcpy(in + i * ks, in + (i - 1) * ks, ks);
                } else if (shape == 1) {
                    for (size_t i = 1; i < n; ++i) memcpy(in + i * ks, in, ks);
                } else if (ks >= 2) { /* distinct: the index in the low bytes */
                    for (size_t i = 0; i < n; ++i) memcpy(in + i * ks, &i, ks < 4 ? 2 : 4);
                }
                memcpy(keys, in, n * ks);
                for (size_t i = 0; i < n; ++i) {
                    const uint64_t v = i * 3 + 1;
                    memcpy(vals + i * vb, &v, vb);
                }
                size_t want = 0;
                for (size_t i = 0; i < n; ++i)
                    if (i == 0 || memcmp(in + i * ks, in + (i - 1) * ks, ks) != 0) {
                        memcpy(want_k + want * ks, in + i * ks, ks);
                        memcpy(want_v + want * vb, vals + i * vb, vb);
                        ++want;
                    }
                size_t kept = 0;
                LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_sort_unique(keys, vb ? vals : NULL, n, key, vb, NULL, &kept));
                if (kept != want || memcmp(keys, want_k, kept * ks) != 0 || (vb && memcmp(vals, want_v, kept * vb) != 0))
                    TFAIL("sort_unique %s shape %d values %zu threads %u: kept %zu, expected %zu (or bytes differ)",
                          libscan_dtype_name(key), shape, vb, kThreads[ti], kept, want);
                free(in);
                free(keys);
                free(vals);
                free(want_k);
                free(want_v);
            }
        /* A bit range: u32 keys equal on bits [8, 16) are one key. */
        uint32_t *u = malloc(n * 4), *w = malloc(n * 4);
        assert_true(u && w);
        size_t want = 0;
        for (size_t i = 0; i < n; ++i) {
            u[i] = (uint32_t)((i / 3000) << 8) | (uint32_t)(i * 2654435761u & 0xff) | (uint32_t)(i << 16);
            if (i == 0 || ((u[i] >> 8) & 0xff) != ((u[i - 1] >> 8) & 0xff)) w[want++] = u[i];
        }
        libscan_sort_opts_t o = LIBSCAN_SORT_OPTS_INIT;
        o.begin_bit = 8;
        o.end_bit = 16;
        size_t kept = 0;
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_sort_unique(u, NULL, n, LIBSCAN_U32, 0, &o, &kept));
        assert_int_equal(kept, want);
        assert_memory_equal(u, w, want * 4);
        free(u);
        free(w);
    }
    set_threads(0);
}

/* A value of LIBSCAN_CPU_THREADS that is not a whole number >= 1 means the
 * automatic choice; huge ones are capped. The results never change. */
static void test_threads_env_values(void **state) {
    (void)state;
    const char *values[] = {"", "0", "abc", "-3", "2x", "99999999999999999999", "300"};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; ++i) {
        setenv("LIBSCAN_CPU_THREADS", values[i], 1);
        check_sorted_case(LIBSCAN_U32, DIST_UNIFORM, 0, 4, 70001, 0, 0, 8000 + i);
        check_sorted_case(LIBSCAN_F32, DIST_FLOAT_SPECIALS, 1, 0, 1001, 0, 0, 8100 + i);
    }
    set_threads(0);
}

static void test_is_sorted_and_unique(void **state) {
    (void)state;
    uint32_t k[] = {1, 2, 2, 3, 3, 3, 7};
    uint32_t v[] = {10, 20, 21, 30, 31, 32, 70};
    size_t bad = 0, kept = 0;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_is_sorted(k, 7, LIBSCAN_U32, NULL, &bad));
    assert_int_equal(bad, 7);
    libscan_sort_opts_t desc = LIBSCAN_SORT_OPTS_INIT;
    desc.descending = 1;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_is_sorted(k, 7, LIBSCAN_U32, &desc, &bad));
    assert_int_equal(bad, 1);
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_sort_unique(k, v, 7, LIBSCAN_U32, 4, NULL, &kept));
    assert_int_equal(kept, 4);
    const uint32_t ek[] = {1, 2, 3, 7}, ev[] = {10, 20, 30, 70};
    assert_memory_equal(k, ek, sizeof ek);
    assert_memory_equal(v, ev, sizeof ev);
    /* -0.0 and +0.0 are distinct keys; equal NaN bits are one key. */
    float f[] = {-0.0f, 0.0f, 0.0f, __builtin_nanf(""), __builtin_nanf("")};
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_is_sorted(f, 5, LIBSCAN_F32, NULL, &bad));
    assert_int_equal(bad, 5);
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_sort_unique(f, NULL, 5, LIBSCAN_F32, 0, NULL, &kept));
    assert_int_equal(kept, 3);
    float g[] = {1.0f, -0.0f};
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_is_sorted(g, 2, LIBSCAN_F32, NULL, &bad));
    assert_int_equal(bad, 1);
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_cpu_is_sorted(k, 7, LIBSCAN_U32, NULL, NULL));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_cpu_sort_unique(k, NULL, 7, (libscan_dtype_t)99, 0, NULL, &kept));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_cpu_sort_unique(k, v, 7, LIBSCAN_U32, 0, NULL, &kept));
}

static void test_cpu_errors(void **state) {
    (void)state;
    uint32_t k[4] = {0}, v[4] = {0};
    libscan_sort_opts_t o = LIBSCAN_SORT_OPTS_INIT;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_cpu_sort(k, NULL, 4, (libscan_dtype_t)8, 0, NULL));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_cpu_sort(k, v, 4, LIBSCAN_U32, 2, NULL));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_cpu_sort(k, v, 4, LIBSCAN_U32, 0, NULL));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_cpu_sort(NULL, NULL, 4, LIBSCAN_U32, 0, NULL));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_cpu_sort(k, NULL, 4, LIBSCAN_U32, 4, NULL));
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_sort(NULL, NULL, 0, LIBSCAN_U32, 0, NULL));
    o.end_bit = 33;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_cpu_sort(k, NULL, 4, LIBSCAN_U32, 0, &o));
    o.begin_bit = 9;
    o.end_bit = 8;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_cpu_sort(k, NULL, 4, LIBSCAN_U32, 0, &o));
    LS_EXPECT(LIBSCAN_ERROR_TOO_LARGE,
              libscan_cpu_sort(k, NULL, LIBSCAN_MAX_COUNT + 1, LIBSCAN_U32, 0, NULL));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_cpu_argsort(k, v, 4, LIBSCAN_U32, 0, NULL));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT,
              libscan_cpu_argsort(k, v, ((size_t)1 << 32) + 1, LIBSCAN_U32, 4, NULL));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_cpu_argsort(k, NULL, 4, LIBSCAN_U32, 4, NULL));
}

static void test_helpers_and_temp_bytes(void **state) {
    (void)state;
    assert_int_equal(libscan_dtype_size(LIBSCAN_U8), 1);
    assert_int_equal(libscan_dtype_size(LIBSCAN_U16), 2);
    assert_int_equal(libscan_dtype_size(LIBSCAN_F32), 4);
    assert_int_equal(libscan_dtype_size(LIBSCAN_I64), 8);
    assert_int_equal(libscan_dtype_size((libscan_dtype_t)8), 0);
    assert_string_equal(libscan_dtype_name(LIBSCAN_F64), "f64");
    assert_string_equal(libscan_dtype_name((libscan_dtype_t)-1), "unknown");
    assert_int_equal(libscan_sort_num_passes(LIBSCAN_U32, 0, 0), 4);
    assert_int_equal(libscan_sort_num_passes(LIBSCAN_U64, 0, 0), 8);
    assert_int_equal(libscan_sort_num_passes(LIBSCAN_U8, 0, 0), 1);
    assert_int_equal(libscan_sort_num_passes(LIBSCAN_U32, 4, 20), 2);
    assert_int_equal(libscan_sort_num_passes(LIBSCAN_U32, 8, 8), 0);
    assert_int_equal(libscan_sort_num_passes(LIBSCAN_U32, 0, 33), -1);
    assert_int_equal(libscan_sort_num_passes((libscan_dtype_t)9, 0, 0), -1);

    size_t b = 1;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort_temp_bytes(0, LIBSCAN_U32, 0, LIBSCAN_SORT_OUT_OF_PLACE, &b));
    assert_int_equal(b, 0);
    size_t db = 0, oop = 0, arg = 0, big = 0;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort_temp_bytes(1000000, LIBSCAN_U32, 4, LIBSCAN_SORT_DOUBLE_BUFFER, &db));
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort_temp_bytes(1000000, LIBSCAN_U32, 4, LIBSCAN_SORT_OUT_OF_PLACE, &oop));
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort_temp_bytes(1000000, LIBSCAN_U32, 4, LIBSCAN_SORT_ARGSORT, &arg));
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort_temp_bytes((size_t)1 << 31, LIBSCAN_U32, 0, LIBSCAN_SORT_OUT_OF_PLACE, &big));
    assert_true(db > 0 && db < 1000000);      /* no key/value buffers */
    assert_true(oop >= db + 8000000);         /* + alternate keys and values */
    assert_true(arg >= db + 12000000);        /* + two key buffers and indices */
    assert_true(big > ((size_t)1 << 33));
    /* Byte and 16-bit keys: the alternate keys cost 1 and 2 bytes a key (each
     * rounded up to the temp alignment). */
    size_t u8 = 0, u16 = 0;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort_temp_bytes(1000000, LIBSCAN_U8, 0, LIBSCAN_SORT_OUT_OF_PLACE, &u8));
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort_temp_bytes(1000000, LIBSCAN_U16, 0, LIBSCAN_SORT_OUT_OF_PLACE, &u16));
    assert_true(u8 >= 1000000 && u16 + LIBSCAN_TEMP_ALIGNMENT >= u8 + 1000000);
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_sort_temp_bytes(1, LIBSCAN_U32, 0, LIBSCAN_SORT_DOUBLE_BUFFER, NULL));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_sort_temp_bytes(1, (libscan_dtype_t)8, 0, LIBSCAN_SORT_DOUBLE_BUFFER, &b));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_sort_temp_bytes(1, LIBSCAN_U32, 0, (libscan_sort_mode_t)3, &b));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_sort_temp_bytes(1, LIBSCAN_U32, 3, LIBSCAN_SORT_DOUBLE_BUFFER, &b));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_sort_temp_bytes(1, LIBSCAN_U32, 0, LIBSCAN_SORT_ARGSORT, &b));
    LS_EXPECT(LIBSCAN_ERROR_TOO_LARGE,
              libscan_sort_temp_bytes(LIBSCAN_MAX_COUNT + 1, LIBSCAN_U32, 0, LIBSCAN_SORT_DOUBLE_BUFFER, &b));
}

/* Fake device pointers: never dereferenced, every error below is decided
 * before the first CUDA call. */
#define FAKE(a) ((void *)(uintptr_t)(a))

static void test_gpu_api_argument_errors(void **state) {
    (void)state;
    const size_t n = 1000;
    void *ki = FAKE(0x10000000), *ko = FAKE(0x20000000), *vi = FAKE(0x30000000), *vo = FAKE(0x40000000);
    libscan_sort_opts_t o = LIBSCAN_SORT_OPTS_INIT;
    /* libscan_sort */
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_sort(ki, ko, NULL, NULL, n, (libscan_dtype_t)8, 0, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_sort(ki, ko, vi, vo, n, LIBSCAN_U32, 2, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_sort(ki, ko, vi, vo, n, LIBSCAN_U32, 0, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_sort(NULL, ko, NULL, NULL, n, LIBSCAN_U32, 0, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_sort(ki, NULL, NULL, NULL, n, LIBSCAN_U32, 0, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_sort(ki, ko, vi, NULL, n, LIBSCAN_U32, 4, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_TOO_LARGE,
              libscan_sort(ki, ko, NULL, NULL, LIBSCAN_MAX_COUNT + 1, LIBSCAN_U32, 0, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP, libscan_sort(ki, ki, NULL, NULL, n, LIBSCAN_U32, 0, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP,
              libscan_sort(ki, (char *)ki + 400, NULL, NULL, n, LIBSCAN_U32, 0, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP, libscan_sort(ki, ko, ko, vo, n, LIBSCAN_U32, 4, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_POINTER,
              libscan_sort((char *)ki + 2, ko, NULL, NULL, n, LIBSCAN_U32, 0, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_POINTER, libscan_sort(ki, ko, vi, (char *)vo + 4, n, LIBSCAN_U32, 8, NULL, 0));
    o.end_bit = 40;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_sort(ki, ko, NULL, NULL, n, LIBSCAN_U32, 0, &o, 0));
    o.end_bit = 0;
    o.begin_bit = 33;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_sort(ki, ko, NULL, NULL, n, LIBSCAN_U32, 0, &o, 0));
    o.begin_bit = 0;
    o.temp_bytes = 10;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_sort(ki, ko, NULL, NULL, n, LIBSCAN_U32, 0, &o, 0));
    size_t need = 0;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort_temp_bytes(n, LIBSCAN_U32, 0, LIBSCAN_SORT_OUT_OF_PLACE, &need));
    o.d_temp = FAKE(0x50000000);
    o.temp_bytes = need - 1;
    LS_EXPECT(LIBSCAN_ERROR_TEMP_TOO_SMALL, libscan_sort(ki, ko, NULL, NULL, n, LIBSCAN_U32, 0, &o, 0));
    o.d_temp = (char *)ko + 64;
    o.temp_bytes = need;
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP, libscan_sort(ki, ko, NULL, NULL, n, LIBSCAN_U32, 0, &o, 0));
    /* One key needs no temp, but caller temp is still checked for its size
     * and its overlaps. */
    size_t need1 = 0;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort_temp_bytes(1, LIBSCAN_U32, 0, LIBSCAN_SORT_OUT_OF_PLACE, &need1));
    assert_true(need1 > 0);
    o.d_temp = FAKE(0x50000000);
    o.temp_bytes = need1 - 1;
    LS_EXPECT(LIBSCAN_ERROR_TEMP_TOO_SMALL, libscan_sort(ki, ko, NULL, NULL, 1, LIBSCAN_U32, 0, &o, 0));
    o.d_temp = ki;
    o.temp_bytes = need1;
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP, libscan_sort(ki, ko, NULL, NULL, 1, LIBSCAN_U32, 0, &o, 0));
    o.d_temp = NULL;
    o.temp_bytes = 0;
    /* A byte key may sit at any address, but 4-byte values may not; 16-bit
     * keys need 2-byte alignment. */
    LS_EXPECT(LIBSCAN_ERROR_INVALID_POINTER,
              libscan_sort((char *)ki + 1, ko, vi, (char *)vo + 2, n, LIBSCAN_U8, 4, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_POINTER,
              libscan_sort(ki, (char *)ko + 1, NULL, NULL, n, LIBSCAN_U16, 0, NULL, 0));
    /* Every value past the last key type is rejected, even with a known size. */
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_sort(ki, ko, NULL, NULL, n, (libscan_dtype_t)8, 0, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_sort(ki, ko, NULL, NULL, n, (libscan_dtype_t)-1, 0, NULL, 0));
    /* count 0: nothing to do, NULL pointers fine, no CUDA call. */
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort(NULL, NULL, NULL, NULL, 0, LIBSCAN_U32, 0, NULL, 0));

    /* libscan_sort_double_buffer */
    libscan_double_buffer_t db = {{ki, ko}, {NULL, NULL}, 0};
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_sort_double_buffer(NULL, n, LIBSCAN_U32, 0, NULL, 0));
    db.selector = 2;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_sort_double_buffer(&db, n, LIBSCAN_U32, 0, NULL, 0));
    db.selector = 0;
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_sort_double_buffer(&db, n, LIBSCAN_U32, 4, NULL, 0));
    db.d_values[0] = vi;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_sort_double_buffer(&db, n, LIBSCAN_U32, 0, NULL, 0));
    db.d_values[1] = vi;
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP, libscan_sort_double_buffer(&db, n, LIBSCAN_U32, 4, NULL, 0));
    db.d_values[1] = vo;
    db.d_keys[1] = NULL;
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_sort_double_buffer(&db, n, LIBSCAN_U32, 4, NULL, 0));
    db.d_keys[1] = (char *)ko + 1;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_POINTER, libscan_sort_double_buffer(&db, n, LIBSCAN_U32, 4, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_sort_double_buffer(&db, n, (libscan_dtype_t)-1, 4, NULL, 0));
    assert_int_equal(db.selector, 0); /* untouched on error */

    /* libscan_argsort */
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_argsort(ki, ko, vi, n, LIBSCAN_U32, 0, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_argsort(ki, ko, vi, n, LIBSCAN_U32, 2, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT,
              libscan_argsort(ki, ko, vi, ((size_t)1 << 32) + 1, LIBSCAN_U32, 4, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_argsort(ki, ko, NULL, n, LIBSCAN_U32, 4, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_argsort(NULL, ko, vi, n, LIBSCAN_U32, 4, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP, libscan_argsort(ki, ko, ki, n, LIBSCAN_U32, 4, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_POINTER, libscan_argsort(ki, ko, (char *)vi + 4, n, LIBSCAN_U32, 8, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_argsort(ki, ko, vi, n, (libscan_dtype_t)8, 4, NULL, 0));
}

int main(void) {
    test_begin("test_sort_cpu");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_type_direction_distribution),
        cmocka_unit_test(test_stability_pairs_equal_keys),
        cmocka_unit_test(test_bit_ranges),
        cmocka_unit_test(test_argsort),
        cmocka_unit_test(test_threads_every_type_and_distribution),
        cmocka_unit_test(test_threads_bit_ranges),
        cmocka_unit_test(test_threads_skewed_arrays),
        cmocka_unit_test(test_threads_argsort),
        cmocka_unit_test(test_threads_is_sorted),
        cmocka_unit_test(test_threads_sort_unique),
        cmocka_unit_test(test_threads_env_values),
        cmocka_unit_test(test_is_sorted_and_unique),
        cmocka_unit_test(test_cpu_errors),
        cmocka_unit_test(test_helpers_and_temp_bytes),
        cmocka_unit_test(test_gpu_api_argument_errors),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    return test_exit_code(failed);
}
