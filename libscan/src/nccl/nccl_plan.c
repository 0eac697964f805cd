/* nccl_plan.c -- the sort's host-side decisions (nccl_plan.h says what each
 * is for).
 *
 * Why the capacity bound holds. Let B(t) be the number of keys, over all
 * ranks, below triple t, and E(t) the estimate the splitter choice uses: the
 * weights of the samples before t plus half t's own weight, rank q's samples
 * weighing w_q = n_q / s_q. Rank q's samples sit at the midpoints of s_q
 * equal parts, so q's keys below t differ from (its samples below t) * w_q
 * by at most w_q / 2 + 1, and B(t) differs from E(t) by at most
 * D = sum_q (w_q / 2 + 1). A splitter is the first sample with E >= d
 * total / N, and consecutive samples' estimates differ by at most max_q w_q,
 * so B(splitter d) lies in [d total / N - D, d total / N + max w + D], and a
 * destination receives at most ceil(total / N) + max w + 2 D <= ceil(total /
 * N) + 2 sum_q w_q + 2 N keys. w_q is 1 when n_q <= S (every key is a
 * sample) and n_q / S otherwise, so sum_q w_q <= total / S + N: the bound is
 * below ceil(total / N) + 2 ceil(total / S) + 4 N, and libscan__np_capacity()
 * adds a third ceil(total / S) and 2 for the rounding of the float
 * estimates. tests/nccl/test_nccl_plan.c checks it on adversarial inputs. */
#include "nccl/nccl_plan.h"

#include <stdlib.h>

int libscan__np_cmp(const libscan__np_triple_t *a, const libscan__np_triple_t *b) {
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
    if (a->pos != b->pos) return a->pos < b->pos ? -1 : 1;
    return 0;
}

static int cmp_void(const void *a, const void *b) { return libscan__np_cmp(a, b); }

/* Sorts the samples by merging the ascending runs they already hold: each
 * rank's samples come from its sorted keys in order, so N ranks give N runs
 * and the sort costs log2(N) passes. (qsort took 0.8 ms of the sort's
 * critical path for 4 x 2048 samples, every rank at once.) Any order is
 * sorted, only slower; without scratch memory, qsort. */
static void sort_samples(libscan__np_triple_t *a, size_t n) {
    libscan__np_triple_t *b = n > 1 ? malloc(n * sizeof *b) : NULL;
    if (!b) {
        if (n > 1) qsort(a, n, sizeof *a, cmp_void);
        return;
    }
    libscan__np_triple_t *src = a, *dst = b;
    for (;;) {
        /* One pass: merge each pair of adjacent ascending runs of src into dst. */
        size_t runs = 0, i = 0;
        while (i < n) {
            size_t mid = i + 1;
            while (mid < n && libscan__np_cmp(&src[mid - 1], &src[mid]) <= 0) ++mid;
            size_t end = mid;
            if (end < n)
                for (++end; end < n && libscan__np_cmp(&src[end - 1], &src[end]) <= 0;) ++end;
            size_t x = i, y = mid, o = i;
            while (x < mid && y < end) dst[o++] = libscan__np_cmp(&src[y], &src[x]) < 0 ? src[y++] : src[x++];
            while (x < mid) dst[o++] = src[x++];
            while (y < end) dst[o++] = src[y++];
            ++runs;
            i = end;
        }
        libscan__np_triple_t *t = src;
        src = dst;
        dst = t;
        if (runs <= 1) break;
    }
    if (src != a)
        for (size_t i = 0; i < n; ++i) a[i] = src[i];
    free(b);
}

void libscan__np_pick_splitters(libscan__np_triple_t *samples, size_t nsamples, const uint64_t *counts, int nranks,
                                libscan__np_triple_t *splitters) {
    sort_samples(samples, nsamples);
    double total = 0;
    for (int q = 0; q < nranks; ++q) total += (double)counts[q];
    size_t i = 0;
    double before = 0; /* the weights of samples[0..i) */
    for (int d = 1; d < nranks; ++d) {
        const double target = (double)d * total / (double)nranks;
        libscan__np_triple_t sp = {UINT64_MAX, UINT64_MAX, UINT64_MAX};
        while (i < nsamples) {
            const uint64_t q = samples[i].rank;
            const double w = (double)counts[q] / (double)libscan__np_num_samples((size_t)counts[q]);
            if (before + w / 2 >= target) {
                sp = samples[i];
                break;
            }
            before += w;
            ++i;
        }
        splitters[d - 1] = sp;
    }
}

size_t libscan__np_cut(const libscan__np_triple_t *sp, int rank, size_t lo, size_t hi) {
    if ((uint64_t)rank < sp->rank) return hi;
    if ((uint64_t)rank > sp->rank) return lo;
    /* The splitter's own rank: its position lies in [lo, hi) there; clamped
     * so that a caller's inconsistent input can never cut outside them. */
    const uint64_t p = sp->pos;
    return p < lo ? lo : p > hi ? hi : (size_t)p;
}

int libscan__np_exchange(const uint64_t *rows, int nranks, int rank, uint64_t *recv_off, uint64_t *recv_total,
                         uint64_t *need_max) {
    const size_t stride = (size_t)nranks + 1;
    int over = 0;
    *need_max = 0;
    for (int dst = 0; dst < nranks; ++dst) {
        uint64_t sum = 0;
        for (int src = 0; src < nranks; ++src) {
            if (dst == rank) recv_off[src] = sum;
            sum += rows[(size_t)src * stride + 1 + (size_t)dst];
        }
        if (dst == rank) *recv_total = sum;
        if (sum > rows[(size_t)dst * stride]) over = 1;
        if (sum > *need_max) *need_max = sum;
    }
    return over;
}

uint64_t libscan__np_capacity(uint64_t total, int nranks) {
    const uint64_t n = (uint64_t)(nranks > 0 ? nranks : 1);
    const uint64_t s = LIBSCAN__NP_SAMPLES;
    const uint64_t cap = (total + n - 1) / n + 3 * ((total + s - 1) / s) + 4 * n + 2;
    return cap < total ? cap : total;
}

uint64_t libscan__np_piece_start(const uint64_t *rows, int nranks, int src, int dst) {
    const size_t stride = (size_t)nranks + 1;
    uint64_t start = 0;
    for (int d = 0; d < dst; ++d) start += rows[(size_t)src * stride + 1 + (size_t)d];
    return start;
}

int libscan__np_runs(const uint64_t *rows, int nranks, int dst) {
    const size_t stride = (size_t)nranks + 1;
    int runs = 0;
    for (int src = 0; src < nranks; ++src) runs += rows[(size_t)src * stride + 1 + (size_t)dst] != 0;
    return runs;
}

int libscan__np_rounds(int runs) {
    int rounds = 0;
    while (rounds < 31 && (1 << rounds) < runs) ++rounds;
    return rounds;
}

int libscan__np_slotted(const uint64_t *rows, int nranks, int dst, size_t key_bytes, size_t value_bytes, int merge) {
    const int runs = libscan__np_runs(rows, nranks, dst);
    if (!merge || runs < 2 || runs > LIBSCAN__NP_MAX_MERGE_RUNS) return 0;
    if (libscan__np_rounds(runs) & 1) return 1; /* the alternate buffers: sized with the slack */
    const size_t stride = (size_t)nranks + 1;
    uint64_t m = 0;
    for (int src = 0; src < nranks; ++src) m += rows[(size_t)src * stride + 1 + (size_t)dst];
    const uint64_t cap = rows[(size_t)dst * stride], slack = libscan__np_slot_slack(nranks);
    if (cap < m) return 0;
    /* capacity * es >= m * es + slack, without overflow */
    if ((cap - m) * key_bytes < slack) return 0;
    if (value_bytes && (cap - m) * value_bytes < slack) return 0;
    return 1;
}

size_t libscan__np_slots(const uint64_t *rows, int nranks, int dst, size_t es, uint64_t *at, uint64_t *skip) {
    const size_t stride = (size_t)nranks + 1, align = LIBSCAN__NP_ALIGN;
    size_t off = 0;
    for (int src = 0; src < nranks; ++src) {
        at[src] = skip[src] = 0;
        const uint64_t len = rows[(size_t)src * stride + 1 + (size_t)dst];
        if (src == dst || len == 0) continue;
        at[src] = off;
        skip[src] = (libscan__np_piece_start(rows, nranks, src, dst) * es) % align;
        off += (size_t)(skip[src] + len * es);
        off = (off + align - 1) / align * align;
    }
    return off;
}
