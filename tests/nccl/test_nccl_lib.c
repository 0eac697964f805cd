/* test_nccl_lib.c -- libscan_nccl on GPUs (label gpu): the distributed scans
 * (every dtype x op, inclusive and exclusive) and sort (every key type, keys
 * and pairs, ascending and descending, adversarial distributions) across one
 * rank on one GPU, and across min(devices, LIBSCAN_TEST_RANKS) ranks (default
 * 8) through ncclCommInitAll in this process, one thread per GPU as nccl.h
 * asks. Shard sizes do not divide by the rank count, and one rank is empty.
 * Expected values: the scan reference of tests/support (over the
 * concatenation of the shards) and the stable qsort order of tests/sort;
 * the ranks' outputs are concatenated in rank order and compared whole;
 * the received runs are merged or sorted again (LIBSCAN_NCCL_MERGE) by
 * turns. The
 * sort's capacity refusal is checked on every rank. Without a GPU (or with
 * one GPU, for the multi-rank cases) the tests skip with the reason. */
#include "support/harness.h"
#include "support/data.h"
#include "support/reference.h"
#include "../sort/sort_reference.h"

#include <libscan/nccl.h>
#include <libscan/sort.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RANKS 8

typedef struct world {
    int n;
    ncclComm_t comm[MAX_RANKS];
    cudaStream_t stream[MAX_RANKS];
} world_t;

static world_t g_worlds[2]; /* [0]: one rank; [1]: several (n = 0 when fewer than 2 GPUs) */
static int g_ready;

static int wanted_ranks(void) {
    const char *v = getenv("LIBSCAN_TEST_RANKS");
    int n = v && *v ? atoi(v) : MAX_RANKS;
    return n < 1 ? 1 : n > MAX_RANKS ? MAX_RANKS : n;
}

static void world_init(world_t *w, int n) {
    int devs[MAX_RANKS];
    for (int i = 0; i < n; ++i) devs[i] = i;
    ncclResult_t r = ncclCommInitAll(w->comm, n, devs);
    if (r != ncclSuccess) TFAIL("ncclCommInitAll(%d): %s", n, ncclGetErrorString(r));
    for (int i = 0; i < n; ++i) {
        CUDA_CHECK(cudaSetDevice(i));
        CUDA_CHECK(cudaStreamCreateWithFlags(&w->stream[i], cudaStreamNonBlocking));
    }
    w->n = n;
}

/* The worlds, made once (after the GPU check, so a machine without a GPU
 * only skips). Returns the world for `many` or skips. */
static world_t *world(int many) {
    test_require_gpu();
    if (!g_ready) {
        int devices = 0;
        CUDA_CHECK(cudaGetDeviceCount(&devices));
        world_init(&g_worlds[0], 1);
        int n = wanted_ranks() < devices ? wanted_ranks() : devices;
        if (n >= 2) world_init(&g_worlds[1], n);
        g_ready = 1;
        printf("  ranks: 1, and %d of %d GPUs (LIBSCAN_TEST_RANKS=%d)\n", g_worlds[1].n, devices, wanted_ranks());
    }
    if (many && g_worlds[1].n < 2) test_skip("needs at least 2 GPUs for a multi-rank communicator");
    return &g_worlds[many ? 1 : 0];
}

/* ---- one thread per rank ---------------------------------------------------- */

typedef struct job {
    world_t *w;
    int rank;
    void *(*fn)(struct job *);
    void *ctx;
    libscan_status_t status;
} job_t;

static void *job_main(void *p) {
    job_t *j = p;
    if (cudaSetDevice(j->rank) != cudaSuccess) {
        j->status = LIBSCAN_ERROR_CUDA;
        return NULL;
    }
    return j->fn(j);
}

static void run_ranks(world_t *w, void *(*fn)(job_t *), void *ctx, job_t *jobs) {
    pthread_t th[MAX_RANKS];
    for (int r = 0; r < w->n; ++r) {
        jobs[r] = (job_t){w, r, fn, ctx, LIBSCAN_SUCCESS};
        if (pthread_create(&th[r], NULL, job_main, &jobs[r]) != 0) TFAIL("pthread_create failed");
    }
    for (int r = 0; r < w->n; ++r) pthread_join(th[r], NULL);
}

/* Shard sizes for `total` over n ranks: ragged (not total / n each), with
 * an empty rank when there are several: rank 0 for odd variants, else rank
 * 1 (unless it is the last, which takes what is left: then the shares are
 * just ragged). */
static void shard_sizes(size_t total, int n, uint64_t variant, size_t *count, size_t *start) {
    size_t left = total;
    const int empty = n < 2 ? -1 : (variant & 1) ? 0 : 1;
    for (int r = 0; r < n; ++r) {
        size_t c = r == n - 1 ? left : r == empty ? 0 : (total / (size_t)n) * (size_t)(r % 3 + 1) / 2 + 7;
        if (c > left) c = left;
        start[r] = total - left;
        count[r] = c;
        left -= c;
    }
}

/* ---- scans ----------------------------------------------------------------- */

typedef struct scan_job {
    libscan_dtype_t dtype;
    libscan_op_t op;
    int exclusive;
    const unsigned char *in; /* the whole array (host) */
    unsigned char *out;      /* the whole result (host) */
    size_t count[MAX_RANKS], start[MAX_RANKS];
    int caller_temp;
} scan_job_t;

static void *scan_rank(job_t *j) {
    scan_job_t *s = j->ctx;
    const size_t es = ref_dtype_size(s->dtype), n = s->count[j->rank];
    cudaStream_t st = j->w->stream[j->rank];
    void *d = NULL, *t = NULL;
    libscan_nccl_scan_opts_t o = LIBSCAN_NCCL_SCAN_OPTS_INIT;
    if (cudaMalloc(&d, n * es + 16) != cudaSuccess ||
        cudaMemcpy(d, s->in + s->start[j->rank] * es, n * es, cudaMemcpyHostToDevice) != cudaSuccess) {
        j->status = LIBSCAN_ERROR_CUDA;
        return NULL;
    }
    /* cudaMemcpy from pageable memory may return before the copy lands, and
       the rank's stream does not wait for the legacy stream: settle it. */
    if (cudaDeviceSynchronize() != cudaSuccess) j->status = LIBSCAN_ERROR_CUDA;
    if (s->caller_temp) {
        size_t tb = 0;
        (void)libscan_nccl_scan_temp_bytes(n, j->w->n, s->dtype, &tb);
        if (cudaMalloc(&t, tb) != cudaSuccess) j->status = LIBSCAN_ERROR_CUDA;
        o.d_temp = t;
        o.temp_bytes = tb;
    }
    if (j->status == LIBSCAN_SUCCESS)
        j->status = s->exclusive ? libscan_nccl_exclusive_scan(d, d, n, s->dtype, s->op, &o, j->w->comm[j->rank], st)
                                 : libscan_nccl_inclusive_scan(d, d, n, s->dtype, s->op, &o, j->w->comm[j->rank], st);
    if (cudaStreamSynchronize(st) != cudaSuccess ||
        cudaMemcpy(s->out + s->start[j->rank] * es, d, n * es, cudaMemcpyDeviceToHost) != cudaSuccess)
        j->status = LIBSCAN_ERROR_CUDA;
    cudaFree(d);
    cudaFree(t);
    return NULL;
}

static void check_scans(int many) {
    world_t *w = world(many);
    const size_t totals[] = {0, 1, 1000, 70001, 1000003};
    uint64_t idx = 0;
    for (size_t ti = 0; ti < sizeof totals / sizeof totals[0]; ++ti)
        for (int di = 0; di < REF_NUM_DTYPES; ++di)
            for (int oi = 0; oi < REF_NUM_OPS; ++oi)
                for (int ex = 0; ex < 2; ++ex) {
                    scan_job_t s;
                    memset(&s, 0, sizeof s);
                    s.dtype = ref_dtypes[di];
                    s.op = ref_ops[oi];
                    s.exclusive = ex;
                    s.caller_temp = (int)(idx & 1);
                    const size_t total = totals[ti], es = ref_dtype_size(s.dtype);
                    unsigned char *in = malloc(total * es + 8), *out = malloc(total * es + 8);
                    rng_t r;
                    rng_init(&r, "nccl-scan", idx++);
                    data_fill(&r, s.dtype, s.op, DATA_FLOAT_INTEGERS, in, total);
                    memset(out, 0xA5, total * es); /* poisoned */
                    s.in = in;
                    s.out = out;
                    shard_sizes(total, w->n, idx, s.count, s.start);
                    job_t jobs[MAX_RANKS];
                    run_ranks(w, scan_rank, &s, jobs);
                    for (int q = 0; q < w->n; ++q)
                        if (jobs[q].status != LIBSCAN_SUCCESS)
                            TFAIL("%d ranks, %s %s %s n=%zu: rank %d returned %s", w->n, ref_dtype_name(s.dtype),
                                  ref_op_name(s.op), ex ? "exclusive" : "inclusive", total, q,
                                  libscan_status_string(jobs[q].status));
                    ref_case_t c = {s.dtype, s.op, ex, in, total, NULL, 1};
                    char msg[512];
                    if (ref_check(&c, out, NULL, msg, sizeof msg))
                        TFAIL("%d ranks, %s %s %s n=%zu (shards %zu, %zu, ...): %s", w->n, ref_dtype_name(s.dtype),
                              ref_op_name(s.op), ex ? "exclusive" : "inclusive", total, s.count[0], s.count[1], msg);
                    free(in);
                    free(out);
                }
}

static void test_scan_one_rank(void **state) {
    (void)state;
    check_scans(0);
}
static void test_scan_many_ranks(void **state) {
    (void)state;
    check_scans(1);
}

/* ---- sorts ----------------------------------------------------------------- */

typedef struct sort_job {
    libscan_dtype_t key;
    size_t vb;
    int descending;
    const unsigned char *keys, *vals;    /* the whole input (host) */
    unsigned char *out_keys, *out_vals;  /* rank outputs, each at its rank's offset of `capacity` slots */
    size_t count[MAX_RANKS], start[MAX_RANKS], capacity[MAX_RANKS], got[MAX_RANKS];
    int caller_temp;
} sort_job_t;

static void *sort_rank(job_t *j) {
    sort_job_t *s = j->ctx;
    const int r = j->rank;
    const size_t ks = libscan_dtype_size(s->key), vb = s->vb, n = s->count[r], cap = s->capacity[r];
    size_t slot = 0; /* where this rank's output lands in out_keys: after the lower ranks' capacities */
    for (int q = 0; q < r; ++q) slot += s->capacity[q];
    cudaStream_t st = j->w->stream[r];
    void *ki = NULL, *vi = NULL, *ko = NULL, *vo = NULL, *t = NULL;
    int ok = cudaMalloc(&ki, n * ks + 8) == cudaSuccess && cudaMalloc(&ko, cap * ks + 8) == cudaSuccess &&
             (!vb || (cudaMalloc(&vi, n * vb + 8) == cudaSuccess && cudaMalloc(&vo, cap * vb + 8) == cudaSuccess));
    ok = ok && cudaMemcpy(ki, s->keys + s->start[r] * ks, n * ks, cudaMemcpyHostToDevice) == cudaSuccess;
    ok = ok && (!vb || cudaMemcpy(vi, s->vals + s->start[r] * vb, n * vb, cudaMemcpyHostToDevice) == cudaSuccess);
    ok = ok && cudaMemset(ko, 0xA5, cap * ks + 8) == cudaSuccess && (!vb || cudaMemset(vo, 0xA5, cap * vb + 8) == cudaSuccess);
    /* The legacy stream's copies and memsets (cudaMemset returns before it
       runs) land before the sort runs on the rank's own stream. */
    ok = ok && cudaDeviceSynchronize() == cudaSuccess;
    libscan_nccl_sort_opts_t o = LIBSCAN_NCCL_SORT_OPTS_INIT;
    o.descending = s->descending;
    if (ok && s->caller_temp) {
        size_t tb = 0;
        (void)libscan_nccl_sort_temp_bytes(n, cap, j->w->n, s->key, vb, &tb);
        ok = cudaMalloc(&t, tb) == cudaSuccess;
        o.d_temp = t;
        o.temp_bytes = tb;
    }
    if (!ok) {
        j->status = LIBSCAN_ERROR_CUDA;
    } else {
        j->status = libscan_nccl_sort(ki, ko, vb ? vi : NULL, vb ? vo : NULL, n, cap, &s->got[r], s->key, vb, &o,
                                      j->w->comm[r], st);
        if (cudaStreamSynchronize(st) != cudaSuccess ||
            cudaMemcpy(s->out_keys + slot * ks, ko, cap * ks, cudaMemcpyDeviceToHost) != cudaSuccess ||
            (vb && cudaMemcpy(s->out_vals + slot * vb, vo, cap * vb, cudaMemcpyDeviceToHost) != cudaSuccess))
            j->status = LIBSCAN_ERROR_CUDA;
    }
    cudaFree(ki);
    cudaFree(vi);
    cudaFree(ko);
    cudaFree(vo);
    cudaFree(t);
    return NULL;
}

/* One sort case; cap_override > 0 gives rank n-1 that capacity instead
 * (expecting CAPACITY everywhere). */
static void sort_case(world_t *w, libscan_dtype_t key, ref_dist_t dist, size_t vb, int desc, size_t total,
                      size_t cap_override, uint64_t idx) {
    sort_job_t s;
    memset(&s, 0, sizeof s);
    s.key = key;
    s.vb = vb;
    s.descending = desc;
    s.caller_temp = (int)(idx & 1);
    /* the final step both ways: the merge of the received runs, and the re-sort */
    setenv("LIBSCAN_NCCL_MERGE", (idx >> 1) & 1 ? "0" : "1", 1);
    const size_t ks = libscan_dtype_size(key);
    unsigned char *keys = malloc(total * ks + 8), *vals = malloc(total * 8 + 8);
    rng_t r;
    rng_init(&r, "nccl-sort", idx);
    ref_fill(&r, key, dist, keys, total);
    if (vb) ref_iota(vals, total, vb);
    shard_sizes(total, w->n, idx, s.count, s.start);
    size_t slots = 0;
    for (int q = 0; q < w->n; ++q) {
        s.capacity[q] = libscan_nccl_sort_capacity(total, w->n);
        if (cap_override && q == w->n - 1) s.capacity[q] = cap_override;
        slots += s.capacity[q];
    }
    s.keys = keys;
    s.vals = vals;
    s.out_keys = malloc(slots * ks + 8);
    s.out_vals = malloc(slots * 8 + 8);
    job_t jobs[MAX_RANKS];
    run_ranks(w, sort_rank, &s, jobs);
    const char *what = libscan_dtype_name(key);
    if (cap_override) {
        for (int q = 0; q < w->n; ++q) {
            if (jobs[q].status != LIBSCAN_ERROR_CAPACITY)
                TFAIL("%d ranks, %s n=%zu, rank %d capacity %zu: rank %d returned %s, expected CAPACITY", w->n, what,
                      total, w->n - 1, cap_override, q, libscan_status_string(jobs[q].status));
            /* nothing written: the poison is intact */
            size_t slot = 0;
            for (int p = 0; p < q; ++p) slot += s.capacity[p];
            for (size_t i = 0; i < s.capacity[q] * ks; ++i)
                if (s.out_keys[slot * ks + i] != 0xA5) TFAIL("CAPACITY: rank %d's output was written", q);
        }
        if (s.got[w->n - 1] <= cap_override) TFAIL("CAPACITY: the needed count %zu is not above the capacity %zu",
                                                   s.got[w->n - 1], cap_override);
    } else {
        /* the ranks' pieces, concatenated in rank order */
        unsigned char *ck = malloc(total * ks + 8), *cv = malloc(total * 8 + 8);
        size_t at = 0, slot = 0, biggest = 0;
        for (int q = 0; q < w->n; ++q) {
            if (jobs[q].status != LIBSCAN_SUCCESS)
                TFAIL("%d ranks, %s %s %s values=%zu n=%zu: rank %d returned %s", w->n, what, ref_dist_name(dist),
                      desc ? "desc" : "asc", vb, total, q, libscan_status_string(jobs[q].status));
            if (s.got[q] > s.capacity[q] || at + s.got[q] > total)
                TFAIL("rank %d holds %zu keys, capacity %zu", q, s.got[q], s.capacity[q]);
            memcpy(ck + at * ks, s.out_keys + slot * ks, s.got[q] * ks);
            if (vb) memcpy(cv + at * vb, s.out_vals + slot * vb, s.got[q] * vb);
            at += s.got[q];
            slot += s.capacity[q];
            if (s.got[q] > biggest) biggest = s.got[q];
        }
        if (at != total) TFAIL("%d ranks, %s: the ranks hold %zu keys of %zu", w->n, what, at, total);
        size_t *perm = ref_order(key, keys, total, desc, 0, 0);
        assert_non_null(perm);
        const size_t bad = ref_first_mismatch(perm, total, ks, keys, ck, vb, vb ? vals : NULL, vb ? cv : NULL);
        if (bad != total)
            TFAIL("%d ranks, %s %s %s values=%zu n=%zu: first mismatch at %zu of the concatenated outputs", w->n,
                  what, ref_dist_name(dist), desc ? "desc" : "asc", vb, total, bad);
        if (total >= 100000 && (double)biggest > 1.05 * (double)total / w->n)
            TFAIL("%d ranks, %s %s n=%zu: the largest share is %zu keys, > 1.05 x an even share", w->n, what,
                  ref_dist_name(dist), total, biggest);
        free(perm);
        free(ck);
        free(cv);
    }
    free(keys);
    free(vals);
    free(s.out_keys);
    free(s.out_vals);
}

static void check_sorts(int many) {
    world_t *w = world(many);
    const size_t totals[] = {0, 1, 5, 4099, 300007};
    uint64_t idx = 0;
    for (int k = 0; k < 8; ++k)
        for (int d = 0; d < DIST_COUNT; ++d)
            for (size_t ti = 0; ti < sizeof totals / sizeof totals[0]; ++ti) {
                const size_t vb = (idx % 3 == 0) ? 0 : (idx % 3 == 1) ? 4 : 8;
                sort_case(w, ref_all_keys[k], (ref_dist_t)d, vb, (int)(idx % 4 == 3), totals[ti], 0, idx);
                ++idx;
            }
    /* 2^24 u32 keys once, uniform and all equal */
    sort_case(w, LIBSCAN_U32, DIST_UNIFORM, 4, 0, (size_t)1 << 24, 0, idx++);
    sort_case(w, LIBSCAN_U32, DIST_ALL_EQUAL, 4, 0, (size_t)1 << 24, 0, idx++);
}

static void test_sort_one_rank(void **state) {
    (void)state;
    check_sorts(0);
}
static void test_sort_many_ranks(void **state) {
    (void)state;
    check_sorts(1);
}

static void test_sort_capacity_refused(void **state) {
    (void)state;
    world_t *w = world(1);
    const size_t total = 100003;
    sort_case(w, LIBSCAN_U32, DIST_UNIFORM, 4, 0, total, total / (size_t)w->n / 2, 7777);
    sort_case(w, LIBSCAN_F64, DIST_ALL_EQUAL, 0, 0, total, 1, 7778);
}

/* Argument errors: decided before any CUDA or NCCL call (no GPU needed). */
static void test_arguments(void **state) {
    (void)state;
    size_t tb = 0, got = 0;
    void *fake = (void *)(uintptr_t)0x10000;
    ncclComm_t no_comm = NULL;
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_nccl_scan_temp_bytes(10, 2, LIBSCAN_U32, NULL));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_nccl_scan_temp_bytes(10, 2, LIBSCAN_U8, &tb));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_nccl_scan_temp_bytes(10, 0, LIBSCAN_U32, &tb));
    LS_EXPECT(LIBSCAN_ERROR_TOO_LARGE, libscan_nccl_scan_temp_bytes(LIBSCAN_MAX_COUNT + 1, 2, LIBSCAN_U32, &tb));
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_nccl_scan_temp_bytes(0, 2, LIBSCAN_F64, &tb));
    assert_true(tb > 0); /* even an empty shard gathers its total */
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE,
              libscan_nccl_inclusive_scan(fake, fake, 10, LIBSCAN_U16, LIBSCAN_OP_SUM, NULL, no_comm, 0));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_OP,
              libscan_nccl_exclusive_scan(fake, fake, 10, LIBSCAN_U32, (libscan_op_t)7, NULL, no_comm, 0));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER,
              libscan_nccl_inclusive_scan(NULL, fake, 10, LIBSCAN_U32, LIBSCAN_OP_SUM, NULL, no_comm, 0));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER,
              libscan_nccl_inclusive_scan(fake, fake, 10, LIBSCAN_U32, LIBSCAN_OP_SUM, NULL, no_comm, 0));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_nccl_sort_temp_bytes(10, 10, 2, (libscan_dtype_t)42, 0, &tb));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_nccl_sort_temp_bytes(10, 10, 2, LIBSCAN_U32, 3, &tb));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_nccl_sort_temp_bytes(10, 10, 0, LIBSCAN_U32, 0, &tb));
    LS_EXPECT(LIBSCAN_ERROR_TOO_LARGE,
              libscan_nccl_sort_temp_bytes(10, LIBSCAN_MAX_COUNT + 1, 2, LIBSCAN_U32, 0, &tb));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER,
              libscan_nccl_sort(fake, fake, NULL, NULL, 10, 10, NULL, LIBSCAN_U32, 0, NULL, no_comm, 0));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT,
              libscan_nccl_sort(fake, fake, fake, fake, 10, 10, &got, LIBSCAN_U32, 0, NULL, no_comm, 0));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER,
              libscan_nccl_sort(fake, NULL, NULL, NULL, 10, 10, &got, LIBSCAN_U32, 0, NULL, no_comm, 0));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER,
              libscan_nccl_sort(fake, fake, NULL, NULL, 10, 10, &got, LIBSCAN_U32, 0, NULL, no_comm, 0));
    assert_true(libscan_nccl_sort_capacity(1000, 0) == 0);
    assert_true(libscan_nccl_sort_capacity(1000, 1) == 1000);
}

int main(void) {
    /* NVLink multicast stays off (never enabled on the lent machines). */
    setenv("NCCL_NVLS_ENABLE", "0", 1);
    test_begin("test_nccl_lib");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arguments),          cmocka_unit_test(test_scan_one_rank),
        cmocka_unit_test(test_scan_many_ranks),    cmocka_unit_test(test_sort_one_rank),
        cmocka_unit_test(test_sort_many_ranks),    cmocka_unit_test(test_sort_capacity_refused),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    for (int i = 0; i < 2; ++i)
        for (int r = 0; r < g_worlds[i].n; ++r) ncclCommDestroy(g_worlds[i].comm[r]);
    return test_exit_code(failed);
}
