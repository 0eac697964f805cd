/* test_nccl_plan.c -- the host side of libscan_nccl_sort (label cpu: no GPU,
 * no NCCL): sample positions, the cut rule, the receive plan, the samples'
 * sort, the aligned receive slots, and the whole
 * partition simulated for 1 to 8 ranks on adversarial keys (all equal, two
 * or sixteen distinct, sorted, reversed, uniform; one rank holding
 * everything, empty ranks, counts that do not divide by the rank count).
 * The simulation sorts each shard and does the binary searches with its own
 * code (a qsort and a linear count), then checks what the library's plan
 * decided: the destinations are consecutive pieces of the stable order of
 * (key, rank, position), and no rank receives more than
 * libscan__np_capacity(total, N). */
#include "support/harness.h"
#include "nccl/nccl_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_sample_positions(void **state) {
    (void)state;
    const size_t ns[] = {1, 2, 3, 7, 2047, 2048, 2049, 100000, (size_t)1 << 40};
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; ++k) {
        const size_t n = ns[k], s = libscan__np_num_samples(n);
        assert_true(s == (n < LIBSCAN__NP_SAMPLES ? n : LIBSCAN__NP_SAMPLES));
        size_t prev = 0;
        for (size_t j = 0; j < s; ++j) {
            const size_t p = libscan__np_sample_pos(n, s, j);
            if (p >= n) TFAIL("n=%zu sample %zu at %zu: outside the keys", n, j, p);
            if (j > 0 && p <= prev) TFAIL("n=%zu sample %zu at %zu: not after %zu", n, j, p, prev);
            /* the midpoint of part j: within half a part of (j + 0.5) n / s */
            const double mid = ((double)j + 0.5) * (double)n / (double)s;
            if ((double)p > mid + 1e-9 || (double)p < mid - 1.0) TFAIL("n=%zu sample %zu at %zu, midpoint %.2f", n, j, p, mid);
            prev = p;
        }
    }
    assert_int_equal(libscan__np_num_samples(0), 0);
}

static void test_cut_rule(void **state) {
    (void)state;
    /* keys equal to the splitter's occupy [10, 20) on every rank */
    libscan__np_triple_t sp = {5, 2, 14};
    assert_int_equal(libscan__np_cut(&sp, 0, 10, 20), 20); /* lower ranks: all equal keys before */
    assert_int_equal(libscan__np_cut(&sp, 1, 10, 20), 20);
    assert_int_equal(libscan__np_cut(&sp, 2, 10, 20), 14); /* its own rank: its position */
    assert_int_equal(libscan__np_cut(&sp, 3, 10, 20), 10); /* higher ranks: none */
    libscan__np_triple_t inf = {UINT64_MAX, UINT64_MAX, UINT64_MAX};
    assert_int_equal(libscan__np_cut(&inf, 7, 30, 30), 30);
    libscan__np_triple_t a = {1, 0, 5}, b = {1, 1, 0}, c = {2, 0, 0};
    assert_true(libscan__np_cmp(&a, &b) < 0 && libscan__np_cmp(&b, &c) < 0 && libscan__np_cmp(&a, &a) == 0);
}

static void test_exchange_plan(void **state) {
    (void)state;
    /* 3 ranks; row q = {capacity, to 0, to 1, to 2} */
    const uint64_t rows[] = {10, 1, 2, 3, /* */ 10, 4, 0, 6, /* */ 10, 0, 7, 1};
    uint64_t off[3], total, need;
    assert_int_equal(libscan__np_exchange(rows, 3, 0, off, &total, &need), 0);
    assert_true(off[0] == 0 && off[1] == 1 && off[2] == 5 && total == 5 && need == 10);
    assert_int_equal(libscan__np_exchange(rows, 3, 1, off, &total, &need), 0);
    assert_true(off[0] == 0 && off[1] == 2 && off[2] == 2 && total == 9);
    assert_int_equal(libscan__np_exchange(rows, 3, 2, off, &total, &need), 0);
    assert_true(off[0] == 0 && off[1] == 3 && off[2] == 9 && total == 10);
    /* rank 2's capacity 9 < the 10 it would receive: every rank sees it */
    uint64_t t2[12];
    memcpy(t2, rows, sizeof t2);
    t2[8] = 9;
    for (int r = 0; r < 3; ++r) {
        assert_int_equal(libscan__np_exchange(t2, 3, r, off, &total, &need), 1);
        assert_true(need == 10);
    }
}

/* The splitter choice sorts its samples by merging the runs they hold: the
 * samples come out in the triple order whatever order they come in (the
 * ranks' runs, one run, reversed, random with many equal keys), and the
 * splitters equal those chosen from the same samples qsorted here. */
static int cmp_triple_ref(const void *a, const void *b) {
    const libscan__np_triple_t *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static void test_sample_sort(void **state) {
    (void)state;
    enum { N = 5, S = 300 };
    libscan__np_triple_t in[N * S], got[N * S], ref[N * S], sp_got[N], sp_ref[N];
    const uint64_t counts[N] = {3000, 300, 300, 9000, 300};
    for (int order = 0; order < 4; ++order) {
        rng_t r;
        rng_init(&r, "nccl-plan-samples", (uint64_t)order);
        for (int q = 0; q < N; ++q) {
            uint64_t k = 0;
            for (int j = 0; j < S; ++j) {
                k += rng_below(&r, 3); /* runs with equal keys across ranks */
                in[q * S + j] = (libscan__np_triple_t){k, (uint64_t)q, (uint64_t)j * 7};
            }
        }
        if (order == 1) /* reversed */
            for (int i = 0; i < N * S / 2; ++i) {
                libscan__np_triple_t t = in[i];
                in[i] = in[N * S - 1 - i];
                in[N * S - 1 - i] = t;
            }
        if (order == 2) /* shuffled */
            for (int i = N * S - 1; i > 0; --i) {
                const int j = (int)rng_below(&r, (uint64_t)i + 1);
                libscan__np_triple_t t = in[i];
                in[i] = in[j];
                in[j] = t;
            }
        const size_t n = order == 3 ? 1 : N * S; /* one sample */
        memcpy(got, in, sizeof in);
        memcpy(ref, in, sizeof in);
        qsort(ref, n, sizeof *ref, cmp_triple_ref);
        libscan__np_pick_splitters(got, n, counts, N, sp_got);
        for (size_t i = 0; i < n; ++i)
            if (cmp_triple_ref(&got[i], &ref[i]) != 0) TFAIL("order %d: sample %zu out of order", order, i);
        memcpy(ref, in, sizeof in);
        qsort(ref, n, sizeof *ref, cmp_triple_ref);
        libscan__np_pick_splitters(ref, n, counts, N, sp_ref); /* sorted input: a single run */
        for (int d = 0; d + 1 < N; ++d)
            if (cmp_triple_ref(&sp_got[d], &sp_ref[d]) != 0) TFAIL("order %d: splitter %d differs", order, d);
    }
}

/* The aligned receive slots: which rank receives into them, and where. */
static void test_receive_slots(void **state) {
    (void)state;
    /* 3 ranks; row q = {capacity, to 0, to 1, to 2} */
    uint64_t rows[] = {100, 5, 3, 9, /* */ 100, 7, 0, 2, /* */ 100, 1, 4, 6};
    assert_int_equal(libscan__np_piece_start(rows, 3, 0, 0), 0);
    assert_int_equal(libscan__np_piece_start(rows, 3, 0, 2), 8);
    assert_int_equal(libscan__np_piece_start(rows, 3, 2, 1), 1);
    assert_int_equal(libscan__np_runs(rows, 3, 0), 3);
    assert_int_equal(libscan__np_runs(rows, 3, 1), 2); /* rank 1 sends itself nothing */
    const int rounds[] = {0, 0, 1, 2, 2, 3, 3, 3, 3, 4};
    for (int k = 0; k < 10; ++k) assert_int_equal(libscan__np_rounds(k), rounds[k]);
    assert_int_equal(libscan__np_rounds(64), 6);
    assert_int_equal(libscan__np_rounds(65), 7);
    /* rank 1: two runs, one round: the alternate buffers, always room */
    assert_int_equal(libscan__np_slotted(rows, 3, 1, 4, 0, 1), 1);
    assert_int_equal(libscan__np_slotted(rows, 3, 1, 4, 0, 0), 0); /* sorted again: back to back */
    /* rank 0: three runs, two rounds: the outputs, 13 keys in a capacity of 100 */
    const size_t slack = libscan__np_slot_slack(3);
    assert_int_equal(slack, 96);
    assert_int_equal(libscan__np_slotted(rows, 3, 0, 4, 0, 1), (100 - 13) * 4 >= slack);
    assert_int_equal(libscan__np_slotted(rows, 3, 0, 1, 0, 1), 0); /* 87 one-byte keys: no room */
    assert_int_equal(libscan__np_slotted(rows, 3, 0, 4, 1, 1), 0); /* 87 one-byte values: no room */
    assert_int_equal(libscan__np_slotted(rows, 3, 0, 8, 8, 1), 1);
    rows[0] = 13; /* capacity == what it receives */
    assert_int_equal(libscan__np_slotted(rows, 3, 0, 8, 0, 1), 0);
    /* one run: nothing to merge, received in place */
    const uint64_t one[] = {10, 0, 0, /* */ 10, 4, 0};
    assert_int_equal(libscan__np_slotted(one, 2, 0, 4, 0, 1), 0);

    /* Slots of every rank, for element sizes 1 to 8: 16-byte aligned, each
     * piece's start congruent to its start in the sender modulo 16, in rank
     * order without overlap, within the pieces' bytes plus the slack. */
    rng_t r;
    rng_init(&r, "nccl-plan-slots", 0);
    for (int trial = 0; trial < 200; ++trial) {
        const int N = 1 + (int)rng_below(&r, 8);
        const size_t stride = (size_t)N + 1, es = (size_t)1 << rng_below(&r, 4);
        uint64_t big[8 * 9], at[8], skip[8];
        for (int q = 0; q < N; ++q) {
            big[(size_t)q * stride] = 1000;
            for (int d = 0; d < N; ++d) big[(size_t)q * stride + 1 + (size_t)d] = rng_below(&r, 4) ? rng_below(&r, 40) : 0;
        }
        for (int dst = 0; dst < N; ++dst) {
            const size_t used = libscan__np_slots(big, N, dst, es, at, skip);
            size_t end = 0, bytes = 0;
            for (int src = 0; src < N; ++src) {
                const uint64_t len = big[(size_t)src * stride + 1 + (size_t)dst];
                if (src == dst || len == 0) {
                    if (at[src] || skip[src]) TFAIL("trial %d: rank %d has a slot for nothing from %d", trial, dst, src);
                    continue;
                }
                const uint64_t start = libscan__np_piece_start(big, N, src, dst) * es;
                if (at[src] % 16) TFAIL("trial %d: slot from %d at %llu: not aligned", trial, src, (unsigned long long)at[src]);
                if (skip[src] != start % 16 || (at[src] + skip[src]) % 16 != start % 16)
                    TFAIL("trial %d: piece from %d starts %llu into its slot, %llu in the sender", trial, src,
                          (unsigned long long)skip[src], (unsigned long long)start);
                if (at[src] < end) TFAIL("trial %d: slot from %d overlaps the one before", trial, src);
                end = (size_t)(at[src] + skip[src] + len * es);
                bytes += (size_t)(len * es);
            }
            if (used < end || used > bytes + libscan__np_slot_slack(N))
                TFAIL("trial %d: %zu bytes used for %zu bytes of pieces ending at %zu", trial, used, bytes, end);
        }
    }
}

/* ---- the partition, simulated -------------------------------------------- */

typedef enum { K_UNIFORM, K_ALL_EQUAL, K_TWO, K_SIXTEEN, K_SORTED, K_REVERSED, K_COUNT } kdist_t;
static const char *kdist_name[K_COUNT] = {"uniform", "all-equal", "two-distinct", "sixteen-distinct", "sorted",
                                          "reversed"};

typedef enum { S_EVEN, S_RAGGED, S_ONE_HOLDS_ALL, S_EMPTY_FIRST_LAST, S_SKEWED, S_COUNT } sdist_t;
static const char *sdist_name[S_COUNT] = {"even", "ragged", "one-rank-holds-all", "empty-first-and-last", "skewed"};

static int cmp_u64(const void *a, const void *b) {
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The reference's triple order, written here (not the library's cmp). */
static int before(uint64_t ka, uint64_t ra, uint64_t pa, uint64_t kb, uint64_t rb, uint64_t pb) {
    if (ka != kb) return ka < kb;
    if (ra != rb) return ra < rb;
    return pa < pb;
}

static void simulate(int N, size_t total, kdist_t kd, sdist_t sd, uint64_t idx, double *worst_ratio) {
    rng_t r;
    rng_init(&r, "nccl-plan", idx);
    size_t *n = calloc((size_t)N, sizeof *n);
    /* shard sizes */
    size_t left = total;
    for (int q = 0; q < N; ++q) {
        size_t c;
        switch (sd) {
        case S_EVEN: c = total / (size_t)N + ((size_t)q < total % (size_t)N); break;
        case S_RAGGED: c = q == N - 1 ? left : (size_t)rng_below(&r, 2 * total / (size_t)N + 1); break;
        case S_ONE_HOLDS_ALL: c = q == N / 2 ? total : 0; break;
        case S_EMPTY_FIRST_LAST: c = (N > 2 && (q == 0 || q == N - 1)) ? 0 : total / (size_t)(N > 2 ? N - 2 : N); break;
        default: c = q == 0 ? total / 2 : total / (2 * (size_t)(N > 1 ? N - 1 : 1)); break;
        }
        if (c > left || q == N - 1) c = left;
        n[q] = c;
        left -= c;
    }
    /* keys, each shard sorted (the local sort) */
    uint64_t **keys = calloc((size_t)N, sizeof *keys);
    size_t running = 0;
    for (int q = 0; q < N; ++q) {
        keys[q] = malloc((n[q] + 1) * sizeof(uint64_t));
        for (size_t i = 0; i < n[q]; ++i, ++running) {
            uint64_t k;
            switch (kd) {
            case K_ALL_EQUAL: k = 42; break;
            case K_TWO: k = rng_below(&r, 2) ? UINT64_MAX : 0; break;
            case K_SIXTEEN: k = rng_below(&r, 16) << 60; break;
            case K_SORTED: k = running; break;
            case K_REVERSED: k = total - running; break;
            default: k = rng_u64(&r); break;
            }
            keys[q][i] = k;
        }
        qsort(keys[q], n[q], sizeof(uint64_t), cmp_u64); /* equal keys are identical: stability is moot */
    }
    /* samples -> splitters (the library) */
    libscan__np_triple_t *samples = malloc(((size_t)N * LIBSCAN__NP_SAMPLES + 1) * sizeof *samples);
    libscan__np_triple_t *sp = malloc((size_t)N * sizeof *sp);
    uint64_t *counts = malloc((size_t)N * sizeof *counts);
    size_t ns = 0;
    for (int q = 0; q < N; ++q) {
        counts[q] = n[q];
        const size_t s = libscan__np_num_samples(n[q]);
        for (size_t j = 0; j < s; ++j) {
            const size_t p = libscan__np_sample_pos(n[q], s, j);
            libscan__np_triple_t t = {keys[q][p], (uint64_t)q, p};
            samples[ns++] = t;
        }
    }
    libscan__np_pick_splitters(samples, ns, counts, N, sp);
    /* cuts: lower and upper bounds by counting (not a binary search) */
    const size_t stride = (size_t)N + 1;
    uint64_t *rows = calloc((size_t)N * stride, sizeof *rows);
    uint64_t **cut = calloc((size_t)N, sizeof *cut);
    const uint64_t cap = libscan__np_capacity(total, N);
    for (int q = 0; q < N; ++q) {
        cut[q] = malloc(stride * sizeof(uint64_t));
        cut[q][0] = 0;
        cut[q][N] = n[q];
        for (int d = 1; d < N; ++d) {
            size_t lo = 0, hi = 0;
            for (size_t i = 0; i < n[q]; ++i) {
                lo += keys[q][i] < sp[d - 1].key;
                hi += keys[q][i] <= sp[d - 1].key;
            }
            cut[q][d] = libscan__np_cut(&sp[d - 1], q, lo, hi);
            if (cut[q][d] < cut[q][d - 1]) TFAIL("rank %d: cut %d at %llu before cut %d", q, d,
                                                  (unsigned long long)cut[q][d], d - 1);
        }
        rows[(size_t)q * stride] = cap;
        for (int d = 0; d < N; ++d) rows[(size_t)q * stride + 1 + (size_t)d] = cut[q][d + 1] - cut[q][d];
    }
    /* every element of destination d comes after every element of d - 1, in
     * the reference order: check the boundary elements of adjacent pieces */
    for (int d = 0; d + 1 < N; ++d) {
        int have_max = 0, have_min = 0;
        uint64_t mk = 0, mr = 0, mp = 0, nk = 0, nr = 0, np = 0;
        for (int q = 0; q < N; ++q) {
            if (cut[q][d + 1] > cut[q][d]) { /* last element q sends to d */
                const uint64_t p = cut[q][d + 1] - 1;
                if (!have_max || before(mk, mr, mp, keys[q][p], (uint64_t)q, p)) mk = keys[q][p], mr = (uint64_t)q, mp = p;
                have_max = 1;
            }
        }
        for (int e = d + 1; e < N && !have_min; ++e) /* the first non-empty later destination */
            for (int q = 0; q < N; ++q)
                if (cut[q][e + 1] > cut[q][e]) {
                    const uint64_t p = cut[q][e];
                    if (!have_min || before(keys[q][p], (uint64_t)q, p, nk, nr, np)) nk = keys[q][p], nr = (uint64_t)q, np = p;
                    have_min = 1;
                }
        if (have_max && have_min && !before(mk, mr, mp, nk, nr, np))
            TFAIL("N=%d %s/%s total=%zu: destination %d ends with (%llu, %llu, %llu), not before a later one's "
                  "(%llu, %llu, %llu)", N, kdist_name[kd], sdist_name[sd], total, d, (unsigned long long)mk,
                  (unsigned long long)mr, (unsigned long long)mp, (unsigned long long)nk, (unsigned long long)nr,
                  (unsigned long long)np);
    }
    /* the receive plan: totals, and the capacity bound */
    uint64_t sum = 0, biggest = 0;
    for (int d = 0; d < N; ++d) {
        uint64_t off[64], got, need;
        if (libscan__np_exchange(rows, N, d, off, &got, &need) != 0)
            TFAIL("N=%d %s/%s total=%zu: some rank exceeds libscan__np_capacity = %llu (largest %llu)", N,
                  kdist_name[kd], sdist_name[sd], total, (unsigned long long)cap, (unsigned long long)need);
        sum += got;
        if (got > biggest) biggest = got;
    }
    if (sum != total) TFAIL("N=%d: %llu keys received, %zu sent", N, (unsigned long long)sum, total);
    const double even = (double)total / N;
    if (total >= (size_t)N * 1000 && (double)biggest / even > *worst_ratio) *worst_ratio = (double)biggest / even;
    for (int q = 0; q < N; ++q) {
        free(keys[q]);
        free(cut[q]);
    }
    free(keys);
    free(cut);
    free(rows);
    free(samples);
    free(sp);
    free(counts);
    free(n);
}

static void test_partition_simulated(void **state) {
    (void)state;
    const int ranks[] = {1, 2, 3, 4, 5, 8};
    const size_t totals[] = {0, 1, 7, 1000, 100003, 300007};
    uint64_t idx = 0;
    for (size_t a = 0; a < sizeof ranks / sizeof ranks[0]; ++a) {
        double worst = 0;
        for (int kd = 0; kd < K_COUNT; ++kd)
            for (int sd = 0; sd < S_COUNT; ++sd)
                for (size_t b = 0; b < sizeof totals / sizeof totals[0]; ++b)
                    simulate(ranks[a], totals[b], (kdist_t)kd, (sdist_t)sd, idx++, &worst);
        printf("  %d ranks: the largest share is %.4f x an even share (bound %.4f at 300007 keys)\n", ranks[a], worst,
               (double)libscan__np_capacity(300007, ranks[a]) / (300007.0 / ranks[a]));
    }
}

static void test_capacity_bound(void **state) {
    (void)state;
    assert_true(libscan__np_capacity(0, 4) == 0);
    assert_true(libscan__np_capacity(10, 4) == 10); /* never more than all of them */
    const uint64_t t = (uint64_t)1 << 31;
    const uint64_t c = libscan__np_capacity(t, 8);
    assert_true(c >= t / 8 && c <= t / 8 + 3 * (t / LIBSCAN__NP_SAMPLES) + 100);
}

int main(void) {
    test_begin("test_nccl_plan");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sample_positions), cmocka_unit_test(test_cut_rule),
        cmocka_unit_test(test_exchange_plan),    cmocka_unit_test(test_sample_sort),
        cmocka_unit_test(test_receive_slots),    cmocka_unit_test(test_partition_simulated),
        cmocka_unit_test(test_capacity_bound),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    return test_exit_code(failed);
}
