/* rs_gpus.c -- radixsort --gpus N (rs_gpus.h). */
#include "rs_gpus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>

#include "common/cli.h"
#include "common/host_mem.h"
#include "common/threads.h"

#ifdef RADIXSORT_WITH_NCCL
#include <pthread.h>
#include <libscan/nccl.h>

#define RS_MAX_GPUS 64

int rs_gpus_built(void) { return 1; }

int rs_gpus_check_built(const char *prog, int gpus) {
    (void)prog;
    (void)gpus;
    return APP_EXIT_OK;
}

/* The start and the teardown (rs_gpus.h), one of each per run: written by
 * their threads, read after joining them. */
static struct {
    pthread_t start_th, end_th;
    int start_running, end_running;
    int gpus, devices, have_comm;
    ncclComm_t comm[RS_MAX_GPUS];
    cudaError_t cuda_err; /* cudaGetDeviceCount's, or cudaSuccess */
    ncclResult_t nccl_err;
    double init_from, init_to, end_from, end_to;
} g_st;

static void *context_main(void *p) {
    if (cudaSetDevice((int)(intptr_t)p) == cudaSuccess) (void)cudaFree(0);
    (void)cudaGetLastError();
    return NULL;
}

/* The communicator's first collective and first send/recv set up its
 * connections (about 60 ms on two H200s): a one-word all-gather and
 * all-to-all here, before the keys are read, keep that out of the sort.
 * Failures are left for the sort to meet and report. */
static void warm_connections(int gpus) {
    uint32_t *buf[RS_MAX_GPUS] = {NULL};
    cudaStream_t st[RS_MAX_GPUS] = {NULL};
    const size_t words = 2 * (size_t)gpus;
    int ok = 1;
    for (int d = 0; d < gpus && ok; ++d)
        ok = cudaSetDevice(d) == cudaSuccess && cudaStreamCreateWithFlags(&st[d], cudaStreamNonBlocking) == cudaSuccess &&
             cudaMalloc((void **)&buf[d], words * sizeof(uint32_t)) == cudaSuccess &&
             cudaMemsetAsync(buf[d], 0, words * sizeof(uint32_t), st[d]) == cudaSuccess;
    if (ok && ncclGroupStart() == ncclSuccess) {
        for (int r = 0; r < gpus; ++r) (void)ncclAllGather(buf[r], buf[r] + gpus, 1, ncclUint32, g_st.comm[r], st[r]);
        (void)ncclGroupEnd();
    }
    if (ok && ncclGroupStart() == ncclSuccess) {
        for (int r = 0; r < gpus; ++r)
            for (int q = 0; q < gpus; ++q) {
                if (q == r) continue;
                (void)ncclSend(buf[r], sizeof(uint32_t), ncclUint8, q, g_st.comm[r], st[r]);
                (void)ncclRecv(buf[r] + gpus + q, sizeof(uint32_t), ncclUint8, q, g_st.comm[r], st[r]);
            }
        (void)ncclGroupEnd();
    }
    for (int d = 0; d < gpus; ++d) {
        if (cudaSetDevice(d) != cudaSuccess) continue;
        if (st[d]) (void)cudaStreamSynchronize(st[d]);
        app_device_free(buf[d]);
        if (st[d]) (void)cudaStreamDestroy(st[d]);
    }
    (void)cudaGetLastError();
}

static void *start_main(void *arg) {
    (void)arg;
    g_st.init_from = app_now();
    g_st.cuda_err = cudaGetDeviceCount(&g_st.devices);
    if (g_st.cuda_err != cudaSuccess) {
        g_st.devices = 0;
        (void)cudaGetLastError();
    }
    if (g_st.devices >= g_st.gpus) {
        /* Each GPU's context on a thread of its own: the driver creates
           them in parallel, and ncclCommInitAll then finds them made. */
        pthread_t th[RS_MAX_GPUS];
        int started = 0;
        for (; started < g_st.gpus; ++started)
            if (app_thread_start(&th[started], context_main, (void *)(intptr_t)started) != 0) break;
        for (int d = 0; d < started; ++d) pthread_join(th[d], NULL);
        int devs[RS_MAX_GPUS];
        for (int d = 0; d < g_st.gpus; ++d) devs[d] = d;
        g_st.nccl_err = ncclCommInitAll(g_st.comm, g_st.gpus, devs);
        g_st.have_comm = g_st.nccl_err == ncclSuccess;
        if (g_st.have_comm) warm_connections(g_st.gpus);
    }
    g_st.init_to = app_now();
    return NULL;
}

static void *end_main(void *arg) {
    (void)arg;
    g_st.end_from = app_now();
    for (int r = 0; r < g_st.gpus; ++r) (void)ncclCommDestroy(g_st.comm[r]);
    g_st.have_comm = 0;
    g_st.end_to = app_now();
    return NULL;
}

static void join_start(void) {
    if (!g_st.start_running) return;
    pthread_join(g_st.start_th, NULL);
    g_st.start_running = 0;
}

static void join_end(void) {
    if (!g_st.end_running) return;
    pthread_join(g_st.end_th, NULL);
    g_st.end_running = 0;
}

/* exit() must not tear the CUDA runtime down under either thread: a program
 * that stops early (a bad input found while the start runs) waits for it.
 * Registered before the first CUDA call of this run, after the runtime's
 * own handlers (a program with kernels registers those before main), so it
 * runs before them. */
static void join_at_exit(void) {
    join_start();
    join_end();
    if (g_st.have_comm) (void)end_main(NULL); /* stopped before the sort: the communicator goes too */
}

void rs_gpus_start(int gpus) {
    if (g_st.start_running || g_st.gpus || gpus < 1 || gpus > RS_MAX_GPUS) return;
    /* NVLink multicast stays off unless the user's environment says otherwise. */
    setenv("NCCL_NVLS_ENABLE", "0", 0);
    g_st.gpus = gpus;
    static int registered = 0;
    if (!registered) registered = atexit(join_at_exit) == 0;
    if (registered && app_thread_start(&g_st.start_th, start_main, NULL) == 0)
        g_st.start_running = 1;
    else
        (void)start_main(NULL); /* inline: nothing overlaps it, nothing is lost */
}

void rs_gpus_finish(app_timing_t *t) {
    join_start();
    join_end();
    if (!t) return;
    if (g_st.init_to > 0) app_timing_span(t, "gpu init", g_st.init_from, g_st.init_to);
    if (g_st.end_to > 0) app_timing_span(t, "gpu release", g_st.end_from, g_st.end_to);
}

typedef struct gpus_run {
    const rs_job_t *job;
    unsigned char *keys;
    uint64_t *idx;
    size_t n, ks, capacity;
    int gpus;
    ncclComm_t *comm; /* g_st.comm */
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

int rs_gpus_sort_host(const rs_job_t *job, void *keys, uint64_t *idx, size_t n) {
    const int gpus = job->gpus;
    if (gpus < 1 || gpus > RS_MAX_GPUS) {
        app_error(job->prog, "--gpus %d: must be 1 to %d", gpus, RS_MAX_GPUS);
        return APP_EXIT_USAGE;
    }
    if (!g_st.gpus) rs_gpus_start(gpus); /* main starts it from the options; inline for any other caller */
    join_start();
    if (g_st.devices < gpus) {
        const cudaError_t e = g_st.cuda_err;
        app_error(job->prog, "--gpus %d: only %d GPU%s usable%s%s", gpus, g_st.devices,
                  g_st.devices == 1 ? " is" : "s are", e != cudaSuccess ? ": " : "",
                  e != cudaSuccess ? cudaGetErrorString(e) : "");
        return APP_EXIT_INTERNAL;
    }
    if (!g_st.have_comm) {
        app_error(job->prog, "--gpus %d: NCCL could not connect the GPUs: %s", gpus, ncclGetErrorString(g_st.nccl_err));
        return APP_EXIT_INTERNAL;
    }
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
    g->comm = g_st.comm;
    g->capacity = libscan_nccl_sort_capacity(n, gpus);
    if (idx)
        for (size_t i = 0; i < n; ++i) idx[i] = i; /* input positions: the values' permutation */
    pthread_barrier_init(&g->before, NULL, (unsigned)gpus);
    pthread_barrier_init(&g->sorted, NULL, (unsigned)gpus);
    for (int r = 0; r < gpus; ++r) g->got[r] = SIZE_MAX;
    int started = 0, rc = APP_EXIT_OK;
    for (; started < gpus; ++started) {
        jobs[started] = (rank_job_t){g, started, LIBSCAN_SUCCESS, cudaSuccess};
        if (app_thread_start(&th[started], rank_main, &jobs[started]) != 0) break;
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
    /* The teardown (0.4 s on two H200s) overlaps writing the output. */
    if (app_thread_start(&g_st.end_th, end_main, NULL) == 0)
        g_st.end_running = 1;
    else
        (void)end_main(NULL);
    pthread_barrier_destroy(&g->before);
    pthread_barrier_destroy(&g->sorted);
    free(g);
    free(jobs);
    free(th);
    return rc;
}

#else /* built without NCCL */

int rs_gpus_built(void) { return 0; }

int rs_gpus_check_built(const char *prog, int gpus) {
    app_error(prog, "--gpus %d: this radixsort was built without NCCL (configure with -DLIBSCAN_WITH_NCCL=ON; "
                    "README.md, \"NCCL\")", gpus);
    return APP_EXIT_USAGE;
}

void rs_gpus_start(int gpus) { (void)gpus; }

int rs_gpus_sort_host(const rs_job_t *job, void *keys, uint64_t *idx, size_t n) {
    (void)keys;
    (void)idx;
    (void)n;
    return rs_gpus_check_built(job->prog, job->gpus);
}

void rs_gpus_finish(app_timing_t *t) { (void)t; }

#endif
