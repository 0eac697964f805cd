/* rs_gpus.c -- radixsort --gpus N (rs_gpus.h). */
#include "rs_gpus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>

#include "common/cli.h"
#include "common/host_mem.h"

#ifdef RADIXSORT_WITH_NCCL
#include <pthread.h>
#include <libscan/nccl.h>

#define RS_MAX_GPUS 64

int rs_gpus_built(void) { return 1; }

int rs_gpus_check(const char *prog, int gpus) {
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) count = 0;
    if (count < gpus) {
        app_error(prog, "--gpus %d: only %d GPU%s usable%s%s", gpus, count, count == 1 ? " is" : "s are",
                  e != cudaSuccess ? ": " : "", e != cudaSuccess ? cudaGetErrorString(e) : "");
        (void)cudaGetLastError();
        return APP_EXIT_INTERNAL;
    }
    return APP_EXIT_OK;
}

typedef struct gpus_run {
    const rs_job_t *job;
    unsigned char *keys;
    uint64_t *idx;
    size_t n, ks, capacity;
    int gpus;
    ncclComm_t comm[RS_MAX_GPUS];
    size_t got[RS_MAX_GPUS];
    int ready[RS_MAX_GPUS];   /* the rank has its buffers and its share uploaded */
    pthread_barrier_t before; /* every rank ready, or none enters the collective */
    pthread_barrier_t sorted; /* every rank knows its count: the pieces' offsets are known */
} gpus_run_t;

typedef struct rank_job {
    gpus_run_t *run;
    int rank;
    libscan_status_t st;
    cudaError_t e;
} rank_job_t;

/* Rank r: allocate everything (temp included) and upload its share, wait
 * until every rank has (so that a rank without memory stops them all before
 * the collective rather than leaving them waiting in NCCL), sort across the
 * GPUs, wait for every rank's count, download its piece at its offset. */
static void *rank_main(void *p) {
    rank_job_t *j = p;
    gpus_run_t *g = j->run;
    const int r = j->rank;
    const size_t lo = g->n * (size_t)r / (size_t)g->gpus, hi = g->n * (size_t)(r + 1) / (size_t)g->gpus;
    const size_t cnt = hi - lo, ks = g->ks, vb = g->idx ? 8 : 0;
    void *ki = NULL, *vi = NULL, *ko = NULL, *vo = NULL, *tmp = NULL;
    size_t tb = 0;
    cudaStream_t s = NULL;
    j->e = cudaSetDevice(r);
    if (!j->e) j->e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    if (!j->e) j->e = cudaMalloc(&ki, cnt * ks + 16);
    if (!j->e) j->e = cudaMalloc(&ko, g->capacity * ks + 16);
    if (!j->e && vb) j->e = cudaMalloc(&vi, cnt * vb + 16);
    if (!j->e && vb) j->e = cudaMalloc(&vo, g->capacity * vb + 16);
    if (!j->e) j->st = libscan_nccl_sort_temp_bytes(cnt, g->capacity, g->gpus, g->job->key, vb, &tb);
    if (!j->e && j->st == LIBSCAN_SUCCESS) j->e = cudaMalloc(&tmp, tb);
    if (!j->e) j->e = cudaMemcpyAsync(ki, g->keys + lo * ks, cnt * ks, cudaMemcpyHostToDevice, s);
    if (!j->e && vb) j->e = cudaMemcpyAsync(vi, g->idx + lo, cnt * vb, cudaMemcpyHostToDevice, s);
    if (!j->e) j->e = cudaStreamSynchronize(s);
    g->ready[r] = !j->e && j->st == LIBSCAN_SUCCESS;
    pthread_barrier_wait(&g->before);
    int all_ready = 1;
    for (int q = 0; q < g->gpus; ++q) all_ready &= g->ready[q];
    if (all_ready) {
        libscan_nccl_sort_opts_t o = LIBSCAN_NCCL_SORT_OPTS_INIT;
        o.descending = g->job->descending;
        o.d_temp = tmp;
        o.temp_bytes = tb;
        j->st = libscan_nccl_sort(ki, ko, vi, vo, cnt, g->capacity, &g->got[r], g->job->key, vb, &o, g->comm[r], s);
        if (j->st == LIBSCAN_SUCCESS) j->e = cudaStreamSynchronize(s);
        if (j->st != LIBSCAN_SUCCESS || j->e) g->got[r] = SIZE_MAX;
    }
    pthread_barrier_wait(&g->sorted);
    int all_ok = 1;
    for (int q = 0; q < g->gpus; ++q) all_ok &= g->got[q] != SIZE_MAX;
    if (!j->e && j->st == LIBSCAN_SUCCESS && all_ok) {
        size_t at = 0;
        for (int q = 0; q < r; ++q) at += g->got[q];
        j->e = cudaMemcpy(g->keys + at * ks, ko, g->got[r] * ks, cudaMemcpyDeviceToHost);
        if (!j->e && vb) j->e = cudaMemcpy(g->idx + at, vo, g->got[r] * vb, cudaMemcpyDeviceToHost);
    }
    app_device_free(ki);
    app_device_free(ko);
    app_device_free(vi);
    app_device_free(vo);
    app_device_free(tmp);
    if (s) cudaStreamDestroy(s);
    return NULL;
}

/* Page-locks p for every GPU while the ranks copy their shares in and their
 * pieces out: from pageable memory the driver stages each copy through its
 * own small pinned buffers, and 1 GiB of keys took about 0.8 s in and out on
 * two H200s; registering costs about 70 ms per GiB once (host_mem.h).
 * Returns 1 when this call registered p (unregister it after), 0 when p
 * stays pageable (still correct) or was page-locked already. */
static int pin_for_all_gpus(void *p, size_t bytes) {
    if (!p || !bytes) return 0;
    if (cudaHostRegister(p, bytes, cudaHostRegisterPortable) == cudaSuccess) return 1;
    (void)cudaGetLastError();
    return 0;
}

int rs_gpus_sort_host(const rs_job_t *job, void *keys, uint64_t *idx, size_t n) {
    const int gpus = job->gpus;
    if (gpus < 1 || gpus > RS_MAX_GPUS) {
        app_error(job->prog, "--gpus %d: must be 1 to %d", gpus, RS_MAX_GPUS);
        return APP_EXIT_USAGE;
    }
    /* NVLink multicast stays off unless the user's environment says otherwise. */
    setenv("NCCL_NVLS_ENABLE", "0", 0);
    gpus_run_t *g = calloc(1, sizeof *g);
    rank_job_t *jobs = calloc((size_t)gpus, sizeof *jobs);
    pthread_t *th = calloc((size_t)gpus, sizeof *th);
    if (!g || !jobs || !th) {
        free(g);
        free(jobs);
        free(th);
        app_error(job->prog, "out of host memory");
        return APP_EXIT_INTERNAL;
    }
    g->job = job;
    g->keys = keys;
    g->idx = idx;
    g->n = n;
    g->ks = libscan_dtype_size(job->key);
    g->gpus = gpus;
    g->capacity = libscan_nccl_sort_capacity(n, gpus);
    if (idx)
        for (size_t i = 0; i < n; ++i) idx[i] = i; /* input positions: the values' permutation */
    int devs[RS_MAX_GPUS];
    for (int i = 0; i < gpus; ++i) devs[i] = i;
    ncclResult_t nr = ncclCommInitAll(g->comm, gpus, devs);
    if (nr != ncclSuccess) {
        app_error(job->prog, "--gpus %d: NCCL could not connect the GPUs: %s", gpus, ncclGetErrorString(nr));
        free(g);
        free(jobs);
        free(th);
        return APP_EXIT_INTERNAL;
    }
    const int pinned_keys = pin_for_all_gpus(keys, n * g->ks), pinned_idx = pin_for_all_gpus(idx, n * sizeof *idx);
    pthread_barrier_init(&g->before, NULL, (unsigned)gpus);
    pthread_barrier_init(&g->sorted, NULL, (unsigned)gpus);
    for (int r = 0; r < gpus; ++r) g->got[r] = SIZE_MAX;
    int started = 0, rc = APP_EXIT_OK;
    for (; started < gpus; ++started) {
        jobs[started] = (rank_job_t){g, started, LIBSCAN_SUCCESS, cudaSuccess};
        if (pthread_create(&th[started], NULL, rank_main, &jobs[started]) != 0) break;
    }
    if (started < gpus) {
        /* Without every thread the collective cannot finish: say so and leave. */
        app_error(job->prog, "--gpus %d: could not start a thread per GPU", gpus);
        exit(APP_EXIT_INTERNAL);
    }
    for (int r = 0; r < gpus; ++r) pthread_join(th[r], NULL);
    for (int r = 0; r < gpus && rc == APP_EXIT_OK; ++r) {
        if (jobs[r].st != LIBSCAN_SUCCESS) {
            app_error(job->prog, "GPU %d: sort across %d GPUs failed: %s", r, gpus, libscan_status_string(jobs[r].st));
            rc = APP_EXIT_INTERNAL;
        } else if (jobs[r].e != cudaSuccess) {
            app_error(job->prog, "GPU %d: %s (sorting %zu keys across %d GPUs)", r, cudaGetErrorString(jobs[r].e), n,
                      gpus);
            rc = APP_EXIT_INTERNAL;
        }
    }
    if (pinned_keys) (void)cudaHostUnregister(keys);
    if (pinned_idx) (void)cudaHostUnregister(idx);
    for (int r = 0; r < gpus; ++r) ncclCommDestroy(g->comm[r]);
    pthread_barrier_destroy(&g->before);
    pthread_barrier_destroy(&g->sorted);
    free(g);
    free(jobs);
    free(th);
    return rc;
}

#else /* built without NCCL */

int rs_gpus_built(void) { return 0; }

int rs_gpus_check(const char *prog, int gpus) {
    app_error(prog, "--gpus %d: this radixsort was built without NCCL (configure with -DLIBSCAN_WITH_NCCL=ON; "
                    "README.md, \"NCCL\")", gpus);
    return APP_EXIT_USAGE;
}

int rs_gpus_sort_host(const rs_job_t *job, void *keys, uint64_t *idx, size_t n) {
    (void)keys;
    (void)idx;
    (void)n;
    return rs_gpus_check(job->prog, job->gpus);
}

#endif
