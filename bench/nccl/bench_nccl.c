/* bench_nccl.c -- libscan_nccl across N GPUs of one machine against one GPU,
 * in one process (ncclCommInitAll, one thread per GPU as nccl.h asks).
 *
 *   bench_nccl [--ranks N] [--mode weak|strong|scan|all] [--per-gpu K]
 *              [--total T] [--scan-per-gpu S] [--reps R]
 *
 * weak    u32 keys, K per GPU (default 2^29): the sort across N GPUs of N*K
 *         keys against libscan_sort of K keys on GPU 0. Target (issue #24):
 *         <= 1.5x at 4 GPUs, <= 2x at 8.
 * strong  T u32 keys in all (default 2^31): across N GPUs (T/N each) against
 *         libscan_sort of all T on GPU 0. Target: >= 2.5x faster at 4, >= 4x
 *         at 8.
 * scan    u32 sums, S per GPU (default 2^28): libscan_nccl_inclusive_scan
 *         against libscan_inclusive_scan of one shard on GPU 0 plus a lone
 *         ncclAllGather of one element. Target: <= 1.1x.
 * The N-GPU sort runs twice a round: with the received runs merged (the
 * default) and sorted again (LIBSCAN_NCCL_MERGE=0), both outputs checked.
 * Beside the sort: the all-to-all's own time, an ncclSend/ncclRecv group
 * moving what the sort's exchange moves on uniform keys ((N-1)/N of every
 * rank's keys, in equal pieces), and the one-GPU sort of a rank's share
 * (the local sort each rank runs first).
 *
 * Rounds interleave the contenders (one-GPU, N-GPU, all-to-all), times are
 * the median of R rounds (default 10) after one warm-up round: CUDA events
 * on each rank's stream around its call, the slowest rank's time counting.
 * The distributed sort's output is checked after the rounds: each rank's keys
 * sorted, ranks in order, the count, and the sum of all keys equal
 * to the input's (the sum: a lost or doubled key shows). Uniform random keys (a fixed seed). NCCL_NVLS_ENABLE=0 is
 * set unless the environment sets it. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include <libscan/nccl.h>
#include <libscan/sort.h>

#define MAX_RANKS 8

static void die(const char *what) {
    fprintf(stderr, "bench_nccl: %s\n", what);
    exit(2);
}
#define CK(call)                                                                                             \
    do {                                                                                                     \
        cudaError_t e_ = (call);                                                                             \
        if (e_ != cudaSuccess) {                                                                             \
            fprintf(stderr, "bench_nccl: %s: %s (line %d)\n", #call, cudaGetErrorString(e_), __LINE__);      \
            exit(2);                                                                                         \
        }                                                                                                    \
    } while (0)
#define LS(call)                                                                                             \
    do {                                                                                                     \
        libscan_status_t s_ = (call);                                                                        \
        if (s_ != LIBSCAN_SUCCESS) {                                                                         \
            fprintf(stderr, "bench_nccl: %s: %s (line %d)\n", #call, libscan_status_string(s_), __LINE__);   \
            exit(2);                                                                                         \
        }                                                                                                    \
    } while (0)
#define NC(call)                                                                                             \
    do {                                                                                                     \
        ncclResult_t r_ = (call);                                                                            \
        if (r_ != ncclSuccess) {                                                                             \
            fprintf(stderr, "bench_nccl: %s: %s (line %d)\n", #call, ncclGetErrorString(r_), __LINE__);      \
            exit(2);                                                                                         \
        }                                                                                                    \
    } while (0)

static int g_n;
static ncclComm_t g_comm[MAX_RANKS];
static cudaStream_t g_stream[MAX_RANKS];
static pthread_barrier_t g_bar;

/* ---- per-rank state of a sort run ------------------------------------------ */
typedef struct rank_buf {
    uint32_t *in, *out;
    void *temp;
    size_t temp_bytes, count, capacity, got;
    uint32_t *a2a_send, *a2a_recv; /* the all-to-all alone */
} rank_buf_t;

static rank_buf_t g_rb[MAX_RANKS];
typedef enum { JOB_SORT, JOB_A2A, JOB_SCAN, JOB_GATHER } job_kind_t;
static job_kind_t g_job;
static float g_ms[MAX_RANKS];
static uint32_t *g_scan_buf[MAX_RANKS];
static void *g_scan_temp[MAX_RANKS];
static size_t g_scan_temp_bytes[MAX_RANKS], g_scan_n;
static void *g_gather[MAX_RANKS];

static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void) {
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return (uint32_t)(g_rng >> 11);
}

/* Fills a device array with random u32 keys through a host staging buffer. */
static void fill_random(uint32_t *d, size_t n) {
    const size_t chunk = (size_t)1 << 24;
    uint32_t *h = malloc(chunk * 4);
    if (!h) die("out of host memory");
    for (size_t at = 0; at < n; at += chunk) {
        const size_t k = n - at < chunk ? n - at : chunk;
        for (size_t i = 0; i < k; ++i) h[i] = rnd();
        CK(cudaMemcpy(d + at, h, k * 4, cudaMemcpyHostToDevice));
    }
    free(h);
}

static void *rank_main(void *p) {
    const int r = (int)(intptr_t)p;
    CK(cudaSetDevice(r));
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    rank_buf_t *rb = &g_rb[r];
    cudaStream_t s = g_stream[r];
    pthread_barrier_wait(&g_bar);
    CK(cudaEventRecord(a, s));
    switch (g_job) {
    case JOB_SORT: {
        libscan_nccl_sort_opts_t o = LIBSCAN_NCCL_SORT_OPTS_INIT;
        o.d_temp = rb->temp;
        o.temp_bytes = rb->temp_bytes;
        LS(libscan_nccl_sort(rb->in, rb->out, NULL, NULL, rb->count, rb->capacity, &rb->got, LIBSCAN_U32, 0, &o,
                             g_comm[r], s));
        break;
    }
    case JOB_A2A: {
        const size_t piece = rb->count / (size_t)g_n;
        NC(ncclGroupStart());
        for (int q = 0; q < g_n; ++q) {
            if (q == r) continue;
            NC(ncclSend(rb->a2a_send + (size_t)q * piece, piece * 4, ncclUint8, q, g_comm[r], s));
            NC(ncclRecv(rb->a2a_recv + (size_t)q * piece, piece * 4, ncclUint8, q, g_comm[r], s));
        }
        NC(ncclGroupEnd());
        CK(cudaMemcpyAsync(rb->a2a_recv + (size_t)r * piece, rb->a2a_send + (size_t)r * piece, piece * 4,
                           cudaMemcpyDeviceToDevice, s));
        break;
    }
    case JOB_SCAN: {
        libscan_nccl_scan_opts_t o = LIBSCAN_NCCL_SCAN_OPTS_INIT;
        o.d_temp = g_scan_temp[r];
        o.temp_bytes = g_scan_temp_bytes[r];
        LS(libscan_nccl_inclusive_scan(g_scan_buf[r], g_scan_buf[r], g_scan_n, LIBSCAN_U32, LIBSCAN_OP_SUM, &o,
                                       g_comm[r], s));
        break;
    }
    case JOB_GATHER:
        NC(ncclAllGather(g_gather[r], (char *)g_gather[r] + 256, 1, ncclUint32, g_comm[r], s));
        break;
    }
    CK(cudaEventRecord(b, s));
    CK(cudaEventSynchronize(b));
    CK(cudaEventElapsedTime(&g_ms[r], a, b));
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    return NULL;
}

/* Runs the current job on every rank; the slowest rank's milliseconds. */
static float run_all(job_kind_t job) {
    g_job = job;
    pthread_t th[MAX_RANKS];
    for (int r = 0; r < g_n; ++r)
        if (pthread_create(&th[r], NULL, rank_main, (void *)(intptr_t)r)) die("pthread_create failed");
    float worst = 0;
    for (int r = 0; r < g_n; ++r) {
        pthread_join(th[r], NULL);
        if (g_ms[r] > worst) worst = g_ms[r];
    }
    return worst;
}

/* One GPU (device 0): libscan_sort of n keys, or a scan of n, in ms. */
static float one_gpu_sort(const uint32_t *in, uint32_t *out, size_t n, void *temp, size_t tb) {
    CK(cudaSetDevice(0));
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    libscan_sort_opts_t o = LIBSCAN_SORT_OPTS_INIT;
    o.d_temp = temp;
    o.temp_bytes = tb;
    CK(cudaEventRecord(a, g_stream[0]));
    LS(libscan_sort(in, out, NULL, NULL, n, LIBSCAN_U32, 0, &o, g_stream[0]));
    CK(cudaEventRecord(b, g_stream[0]));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    return ms;
}

static int cmp_f(const void *a, const void *b) {
    const float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}
static float median(float *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_f);
    return n % 2 ? v[n / 2] : 0.5f * (v[n / 2 - 1] + v[n / 2]);
}

/* The sum of n device keys (host side, in chunks). */
static void digest(const uint32_t *d, size_t n, int dev, uint64_t *sum) {
    const size_t chunk = (size_t)1 << 24;
    uint32_t *h = malloc(chunk * 4);
    if (!h) die("out of host memory");
    CK(cudaSetDevice(dev));
    for (size_t at = 0; at < n; at += chunk) {
        const size_t k = n - at < chunk ? n - at : chunk;
        CK(cudaMemcpy(h, d + at, k * 4, cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < k; ++i) *sum += h[i];
    }
    free(h);
}

/* The distributed sort's output: sorted ranks in order, all keys there. */
static void check_sort(uint64_t in_sum, size_t total) {
    uint64_t sum = 0;
    size_t count = 0;
    uint32_t prev_last = 0;
    int have_prev = 0;
    for (int r = 0; r < g_n; ++r) {
        rank_buf_t *rb = &g_rb[r];
        const size_t n = rb->got;
        uint32_t *h = malloc(n * 4 + 4);
        if (!h) die("out of host memory");
        CK(cudaSetDevice(r));
        CK(cudaMemcpy(h, rb->out, n * 4, cudaMemcpyDeviceToHost));
        size_t bad = n;
        LS(libscan_cpu_is_sorted(h, n, LIBSCAN_U32, NULL, &bad));
        if (bad != n) die("check: a rank's keys are not sorted");
        if (n && have_prev && h[0] < prev_last) die("check: ranks out of order");
        if (n) prev_last = h[n - 1], have_prev = 1;
        for (size_t i = 0; i < n; ++i) sum += h[i];
        count += n;
        free(h);
    }
    if (count != total) die("check: the ranks hold a different number of keys");
    if (sum != in_sum) die("check: the keys' sum changed");
}

/* Sort runs: weak (per = keys per GPU, baseline: per keys on one GPU) or
 * strong (per = total / N, baseline: total on one GPU). */
static void bench_sort(const char *label, size_t per, size_t baseline_n, int reps) {
    const size_t total = per * (size_t)g_n;
    for (int r = 0; r < g_n; ++r) {
        rank_buf_t *rb = &g_rb[r];
        CK(cudaSetDevice(r));
        rb->count = per;
        rb->capacity = libscan_nccl_sort_capacity(total, g_n);
        LS(libscan_nccl_sort_temp_bytes(per, rb->capacity, g_n, LIBSCAN_U32, 0, &rb->temp_bytes));
        CK(cudaMalloc((void **)&rb->in, per * 4 + 16));
        CK(cudaMalloc((void **)&rb->out, rb->capacity * 4 + 16));
        CK(cudaMalloc(&rb->temp, rb->temp_bytes));
        CK(cudaMalloc((void **)&rb->a2a_send, per * 4 + 16));
        CK(cudaMalloc((void **)&rb->a2a_recv, per * 4 + 16));
        fill_random(rb->in, per);
        CK(cudaMemset(rb->a2a_send, 1, per * 4));
    }
    uint64_t in_sum = 0;
    for (int r = 0; r < g_n; ++r) digest(g_rb[r].in, per, r, &in_sum);
    /* one GPU: baseline_n keys (the first rank's input repeated where more) */
    CK(cudaSetDevice(0));
    uint32_t *b_in, *b_out;
    void *b_temp;
    size_t b_tb = 0;
    LS(libscan_sort_temp_bytes(baseline_n, LIBSCAN_U32, 0, LIBSCAN_SORT_OUT_OF_PLACE, &b_tb));
    CK(cudaMalloc((void **)&b_in, baseline_n * 4 + 16));
    CK(cudaMalloc((void **)&b_out, baseline_n * 4 + 16));
    CK(cudaMalloc(&b_temp, b_tb));
    fill_random(b_in, baseline_n);
    float *t1 = calloc((size_t)reps, sizeof(float)), *tn = calloc((size_t)reps, sizeof(float));
    float *ta = calloc((size_t)reps, sizeof(float)), *tl = calloc((size_t)reps, sizeof(float));
    float *tr = calloc((size_t)reps, sizeof(float));
    for (int i = -1; i < reps; ++i) { /* round -1: warm-up */
        const float a = one_gpu_sort(b_in, b_out, baseline_n, b_temp, b_tb);
        setenv("LIBSCAN_NCCL_MERGE", "0", 1); /* the received runs sorted again */
        const float e = run_all(JOB_SORT);
        if (i < 0) check_sort(in_sum, total); /* the re-sort's output, once; the merge's after the rounds */
        setenv("LIBSCAN_NCCL_MERGE", "1", 1); /* merged (the default) */
        const float b = run_all(JOB_SORT);
        const float c = g_n > 1 ? run_all(JOB_A2A) : 0.0f;
        const float d = one_gpu_sort(b_in, b_out, per < baseline_n ? per : baseline_n, b_temp, b_tb);
        if (i >= 0) t1[i] = a, tn[i] = b, ta[i] = c, tl[i] = d, tr[i] = e;
    }
    check_sort(in_sum, total);
    size_t biggest = 0;
    for (int r = 0; r < g_n; ++r) biggest = g_rb[r].got > biggest ? g_rb[r].got : biggest;
    const float m1 = median(t1, reps), mn = median(tn, reps), ma = median(ta, reps), ml = median(tl, reps);
    const float mr = median(tr, reps);
    printf("| %s | %d | %zu | %zu | %.3f ms | %.3f ms | %.3f ms | %.3f ms | %.3f ms | %.3f | %.3f | %.4f | checked |\n",
           label, g_n, per, baseline_n, m1, mn, mr, ma, ml, mn / m1, mr / m1, (double)biggest / ((double)total / g_n));
    fflush(stdout);
    CK(cudaSetDevice(0));
    CK(cudaFree(b_in));
    CK(cudaFree(b_out));
    CK(cudaFree(b_temp));
    for (int r = 0; r < g_n; ++r) {
        rank_buf_t *rb = &g_rb[r];
        CK(cudaSetDevice(r));
        CK(cudaFree(rb->in));
        CK(cudaFree(rb->out));
        CK(cudaFree(rb->temp));
        CK(cudaFree(rb->a2a_send));
        CK(cudaFree(rb->a2a_recv));
        memset(rb, 0, sizeof *rb);
    }
    free(t1);
    free(tn);
    free(ta);
    free(tl);
    free(tr);
}

static void bench_scan(size_t per, int reps) {
    g_scan_n = per;
    for (int r = 0; r < g_n; ++r) {
        CK(cudaSetDevice(r));
        CK(cudaMalloc((void **)&g_scan_buf[r], per * 4 + 16));
        LS(libscan_nccl_scan_temp_bytes(per, g_n, LIBSCAN_U32, &g_scan_temp_bytes[r]));
        CK(cudaMalloc(&g_scan_temp[r], g_scan_temp_bytes[r]));
        CK(cudaMalloc(&g_gather[r], 256 + 4 * MAX_RANKS));
        CK(cudaMemset(g_scan_buf[r], 0, per * 4)); /* zeros: the result stays checkable */
        CK(cudaMemset(g_gather[r], 0, 256 + 4 * MAX_RANKS));
    }
    CK(cudaSetDevice(0));
    uint32_t *one;
    void *one_temp;
    size_t one_tb = 0;
    LS(libscan_scan_temp_bytes(per, LIBSCAN_U32, &one_tb));
    CK(cudaMalloc((void **)&one, per * 4 + 16));
    CK(cudaMalloc(&one_temp, one_tb ? one_tb : 1));
    CK(cudaMemset(one, 0, per * 4));
    float *t1 = calloc((size_t)reps, sizeof(float)), *tn = calloc((size_t)reps, sizeof(float));
    float *tg = calloc((size_t)reps, sizeof(float));
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int i = -1; i < reps; ++i) {
        CK(cudaSetDevice(0));
        libscan_scan_opts_t o = LIBSCAN_SCAN_OPTS_INIT;
        o.d_temp = one_temp;
        o.temp_bytes = one_tb;
        CK(cudaEventRecord(a, g_stream[0]));
        LS(libscan_inclusive_scan(one, one, per, LIBSCAN_U32, LIBSCAN_OP_SUM, &o, g_stream[0]));
        CK(cudaEventRecord(b, g_stream[0]));
        CK(cudaEventSynchronize(b));
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        const float n = run_all(JOB_SCAN), g = run_all(JOB_GATHER);
        if (i >= 0) t1[i] = ms, tn[i] = n, tg[i] = g;
    }
    /* zeros scanned stay zeros on every rank */
    for (int r = 0; r < g_n; ++r) {
        uint32_t h[4];
        CK(cudaSetDevice(r));
        CK(cudaMemcpy(h, g_scan_buf[r] + per - 4, sizeof h, cudaMemcpyDeviceToHost));
        if (h[0] | h[1] | h[2] | h[3]) die("scan check failed");
    }
    const float m1 = median(t1, reps), mn = median(tn, reps), mg = median(tg, reps);
    printf("| scan u32 sum | %d | %zu | %.3f ms | %.3f ms | %.3f ms | %.3f |\n", g_n, per, m1, mg, mn, mn / (m1 + mg));
    CK(cudaSetDevice(0));
    CK(cudaFree(one));
    CK(cudaFree(one_temp));
    for (int r = 0; r < g_n; ++r) {
        CK(cudaSetDevice(r));
        CK(cudaFree(g_scan_buf[r]));
        CK(cudaFree(g_scan_temp[r]));
        CK(cudaFree(g_gather[r]));
    }
    free(t1);
    free(tn);
    free(tg);
}

static size_t parse_size(const char *s) {
    char *end = NULL;
    if (s[0] == '2' && s[1] == '^') return (size_t)1 << strtoul(s + 2, &end, 10);
    return (size_t)strtoull(s, &end, 10);
}

int main(int argc, char **argv) {
    int ranks = 0, reps = 10;
    const char *mode = "all";
    size_t per_gpu = (size_t)1 << 29, total = (size_t)1 << 31, scan_per = (size_t)1 << 28;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("usage: bench_nccl [--ranks N] [--mode weak|strong|scan|all] [--per-gpu K] [--total T]\n"
                   "                  [--scan-per-gpu S] [--reps R]   (sizes as numbers or 2^E)\n");
            return 0;
        }
        if (!v) die("an option lacks its value (--help)");
        if (!strcmp(a, "--ranks")) ranks = atoi(v);
        else if (!strcmp(a, "--mode")) mode = v;
        else if (!strcmp(a, "--per-gpu")) per_gpu = parse_size(v);
        else if (!strcmp(a, "--total")) total = parse_size(v);
        else if (!strcmp(a, "--scan-per-gpu")) scan_per = parse_size(v);
        else if (!strcmp(a, "--reps")) reps = atoi(v);
        else die("unknown option (--help)");
        ++i;
    }
    setenv("NCCL_NVLS_ENABLE", "0", 0);
    int devices = 0;
    CK(cudaGetDeviceCount(&devices));
    if (ranks <= 0) ranks = devices < MAX_RANKS ? devices : MAX_RANKS;
    if (ranks > devices || ranks > MAX_RANKS) die("--ranks exceeds the GPUs of this machine");
    if (reps < 1) reps = 1;
    g_n = ranks;
    int devs[MAX_RANKS];
    for (int i = 0; i < g_n; ++i) devs[i] = i;
    NC(ncclCommInitAll(g_comm, g_n, devs));
    for (int i = 0; i < g_n; ++i) {
        CK(cudaSetDevice(i));
        CK(cudaStreamCreateWithFlags(&g_stream[i], cudaStreamNonBlocking));
    }
    pthread_barrier_init(&g_bar, NULL, (unsigned)g_n);
    struct cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    int nv = 0;
    ncclGetVersion(&nv);
    printf("# bench_nccl: %d x %s, NCCL %d, libscan %s, NCCL_NVLS_ENABLE=%s, medians of %d rounds\n\n", g_n,
           prop.name, nv, libscan_version_string(), getenv("NCCL_NVLS_ENABLE"), reps);
    const int all = !strcmp(mode, "all");
    if (all || !strcmp(mode, "weak") || !strcmp(mode, "strong")) {
        printf("| sort (u32 keys) | GPUs | keys per GPU | one-GPU keys | one GPU | N GPUs (merge) | N GPUs (re-sort) | "
               "all-to-all alone | local sort of a share | merge / one GPU | re-sort / one GPU | largest share / even "
               "| output |\n");
        printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    }
    if (all || !strcmp(mode, "weak")) bench_sort("weak", per_gpu, per_gpu, reps);
    if (all || !strcmp(mode, "strong")) bench_sort("strong", total / (size_t)g_n, total, reps);
    if (all || !strcmp(mode, "scan")) {
        printf("\n| scan | GPUs | elements per GPU | one GPU, one shard | all-gather of one element | N GPUs | "
               "N GPUs / (one GPU + all-gather) |\n| --- | --- | --- | --- | --- | --- | --- |\n");
        bench_scan(scan_per, reps);
    }
    for (int i = 0; i < g_n; ++i) ncclCommDestroy(g_comm[i]);
    return 0;
}
