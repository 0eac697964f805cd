/* compact_stream.c -- compact's work, streamed in chunks (compact_stream.h). */
#define _POSIX_C_SOURCE 200809L
#include "compact_stream.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>
#include <cuda_runtime_api.h>

#include "common/host_mem.h"
#include "common/par_io.h"
#include "common/threads.h"

/* Room before each chunk in the read buffers for one element: the previous
 * chunk's last, which --unique compares the chunk's first with. */
#define HEADROOM 16

/* do_chunk's return when a queued write failed (reported by the pipe). */
#define WRITE_FAILED (-1)

#define LANES COMPACT_GPU_LANES

/* Buffers for what the chunks keep (and reject), fewer than for the input:
 * the writers keep up with fewer, and each costs its pinning. On the H100
 * machine 8 instead of 21 took about 30-55 ms off a 1 GiB compact. */
#define OUT_SLOTS 8

/* On the CPU, chunks are compacted side by side, one chunk per thread, by a
 * pool of workers: one select call at a time on 4 MiB chunks, each
 * spreading itself over every core, ran at ~1 GB/s (1.0 s for 1 GiB on the
 * H100 machine's 16 cores). Chunks of at most 2^16 elements keep each
 * library call on its calling thread (libscan's CPU calls take one thread
 * per 2^16 elements). */
#define CPU_CHUNK_MAX ((size_t)1 << 16)

/* A chunk in flight, on a GPU lane or a CPU job: chunk i goes to slot
 * i % (lanes or jobs) once that slot's chunk i - slots is finished, and
 * chunks are finished in order, so the oldest in flight is always in the
 * slot after the newest's. */
typedef struct flight {
    app_chunk_t c;  /* its read buffer, held until the chunk is finished */
    size_t m, skip; /* elements, the carried one included; 1 when in[0] is the carried one */
    uint64_t base;  /* position of in[0] in the file */
    bool busy;      /* queued (or tried) and not yet finished */
} flight_t;

/* One chunk on its way through a CPU worker. */
typedef struct cpu_job {
    flight_t f;
    size_t k;                     /* kept */
    unsigned char *kbuf, *jbuf;   /* from the write pipes (--count: the job's scratch) */
    int kslot, jslot;
    app_hostbuf_t fbytes, scratch; /* the flags as bytes; --count's output */
    libscan_status_t ls;
    double t0, t1; /* the select's start and end (app_now) */
    bool done;
} cpu_job_t;

typedef struct cpu_pool {
    pthread_mutex_t mu;
    pthread_cond_t work, finished;
    cpu_job_t *job; /* njobs, used in turn: chunk i in job[i % njobs] */
    int njobs, nthreads;
    size_t queued, taken; /* chunks handed to the pool, and taken by a worker */
    bool stop;
    pthread_t *tid;
} cpu_pool_t;

/* One chunk's trip through the GPU. */
typedef struct lane {
    cudaStream_t stream;
    unsigned char *d_in, *d_out, *d_rej, *d_flags;
    size_t *d_num;
    app_hostbuf_t h_num, fbytes; /* pinned: the count, and the flags as bytes */
    flight_t f;
    double t_queued;
} lane_t;

typedef struct run {
    const compact_job_t *job;
    app_src_t *src, *fsrc;
    size_t n, es, out_size, chunk, fes;
    int threads;
    arr_dtype_t out_dtype;
    /* output: kept elements go to ksink (the output, or a spill when the
       output must wait for its header), rejected ones to rej_spill */
    bool deferred;
    arr_writer_t *w;
    app_sink_t *out, *kept_spill, *rej_spill, *ksink;
    app_ring_t rring, kring, jring;
    app_wpipe_t *kpipe, *jpipe;
    /* flags as read (as one byte per element: each lane's and job's own) */
    app_hostbuf_t fraw;
    lane_t lane[LANES]; /* GPU */
    cpu_pool_t pool;    /* CPU */
    unsigned char carry[8]; /* the previous chunk's last element */
    size_t kept;
    app_span_t up, comp, down;
    char err[512];
} run_t;

static int fail_st(run_t *r, arr_status_t st) {
    app_error(r->job->prog, "%s", r->err);
    return (int)st; /* arr_status_t values are the exit codes */
}

static int fail_cuda(run_t *r, const char *what, cudaError_t e) {
    app_error(r->job->prog, "GPU: %s failed: %s", what, cudaGetErrorString(e));
    return APP_EXIT_INTERNAL;
}

static int fail_lib(run_t *r, libscan_status_t st) {
    app_error(r->job->prog, "%s compaction failed: %s", r->job->gpu ? "GPU" : "CPU", libscan_status_string(st));
    return APP_EXIT_INTERNAL;
}

static void add_base(void *pos, size_t count, uint64_t base) {
    uint64_t *p = pos;
    for (size_t i = 0; i < count; ++i) p[i] += base;
}

/* 1 when the output cannot be written at offsets: standard output, or an
 * existing FIFO or device (written in place by apps/common). */
static bool output_sequential(const char *path) {
    struct stat st;
    return strcmp(path, "-") == 0 || (stat(path, &st) == 0 && !S_ISREG(st.st_mode));
}

/* ---- setting up -------------------------------------------------------------------- */

static int open_outputs(run_t *r) {
    const compact_job_t *j = r->job;
    arr_status_t st;
    if (!j->out) return APP_EXIT_OK; /* --count */
    /* A .npy header comes first and holds the count: where the output cannot
       seek back to rewrite it, everything waits in a spill until the end. */
    r->deferred = output_sequential(j->out) && arr_format_resolve(j->out, j->out_format) == ARR_FMT_NPY;
    if (r->deferred) {
        st = app_sink_open_spill(&r->kept_spill, j->out, r->out_size, r->err, sizeof r->err);
        if (st != ARR_OK) return fail_st(r, st);
        r->ksink = r->kept_spill;
    } else {
        /* --partition writes every element: the count is known. */
        st = arr_writer_open(&r->w, j->out, j->out_format, r->out_dtype, j->partition ? r->n : ARR_COUNT_UNKNOWN,
                             r->err, sizeof r->err);
        if (st == ARR_OK) st = app_sink_open(&r->out, r->w, j->out, r->err, sizeof r->err);
        if (st == ARR_OK && j->partition) st = app_sink_reserve(r->out, r->n, r->err, sizeof r->err);
        if (st != ARR_OK) return fail_st(r, st);
        r->ksink = r->out;
    }
    if (j->partition) {
        st = app_sink_open_spill(&r->rej_spill, j->out, r->out_size, r->err, sizeof r->err);
        if (st != ARR_OK) return fail_st(r, st);
    }
    return APP_EXIT_OK;
}

static int cpu_pool_start(run_t *r);

static int alloc_buffers(run_t *r) {
    const compact_job_t *j = r->job;
    const bool pin = j->gpu;
    /* On the GPU, LANES read buffers more: the lanes hold theirs until their
       uploads are done. */
    const int want = r->threads + 2 + (j->gpu ? LANES : 0);
    int slots = want > 64 ? 64 : want;
    const size_t nchunks = r->n ? (r->n + r->chunk - 1) / r->chunk : 1;
    if ((size_t)slots > nchunks + 1) slots = (int)nchunks + 1;
    /* Outputs of one chunk: up to chunk + 1 (the carried element). */
    const size_t out_bytes = (r->chunk + 1) * r->out_size;
    /* The CPU's output buffers cost no pinning, and each job in flight holds
       one: as many as the input's. */
    const int out_slots = !j->gpu || slots < OUT_SLOTS ? slots : OUT_SLOTS;
    const char *in = app_src_path(r->src);
    arr_status_t st = app_ring_alloc(&r->rring, slots, HEADROOM + r->chunk * r->es, pin, in, r->err, sizeof r->err);
    if (st == ARR_OK && j->out) st = app_ring_alloc(&r->kring, out_slots, out_bytes, pin, j->out, r->err, sizeof r->err);
    if (st == ARR_OK && j->partition)
        st = app_ring_alloc(&r->jring, out_slots, out_bytes, pin, j->out, r->err, sizeof r->err);
    if (st != ARR_OK) return fail_st(r, st);
    bool oom = r->fsrc && app_hostbuf_alloc(&r->fraw, r->chunk * r->fes, false);
    /* CPU jobs in flight: at most slots - 2, so that the readers always
       have a buffer (a job holds its chunk's) while this thread waits for
       the next chunk. */
    cpu_pool_t *p = &r->pool;
    p->njobs = j->gpu ? 0 : r->threads < slots - 2 ? r->threads : slots - 2 > 1 ? slots - 2 : 1;
    if (p->njobs > 0) {
        p->job = calloc((size_t)p->njobs, sizeof *p->job);
        oom = oom || !p->job;
    }
    for (int i = 0; i < p->njobs && !oom; ++i)
        oom = (r->fsrc && app_hostbuf_alloc(&p->job[i].fbytes, r->chunk + 1, false)) ||
              (!j->out && app_hostbuf_alloc(&p->job[i].scratch, out_bytes, false));
    if (!oom && p->njobs > 0) oom = cpu_pool_start(r) != 0;
    /* A single chunk needs one lane. */
    const int lanes = !j->gpu ? 0 : nchunks < LANES ? (int)nchunks : LANES;
    for (int i = 0; i < lanes && !oom; ++i)
        oom = app_hostbuf_alloc(&r->lane[i].h_num, sizeof(size_t), true) ||
              (r->fsrc && app_hostbuf_alloc(&r->lane[i].fbytes, r->chunk + 1, true));
    if (oom) {
        app_error(j->prog, "out of host memory for chunks of %zu elements", r->chunk);
        return APP_EXIT_INTERNAL;
    }
    cudaError_t e = cudaSuccess;
    for (int i = 0; i < lanes && e == cudaSuccess; ++i) {
        lane_t *l = &r->lane[i];
        e = cudaStreamCreateWithFlags(&l->stream, cudaStreamNonBlocking);
        if (e == cudaSuccess) e = cudaMalloc((void **)&l->d_in, (r->chunk + 1) * r->es);
        if (e == cudaSuccess) e = cudaMalloc((void **)&l->d_out, out_bytes);
        if (e == cudaSuccess && j->partition) e = cudaMalloc((void **)&l->d_rej, out_bytes);
        if (e == cudaSuccess && r->fsrc) e = cudaMalloc((void **)&l->d_flags, r->chunk + 1);
        if (e == cudaSuccess) e = cudaMalloc((void **)&l->d_num, sizeof(size_t));
    }
    return e == cudaSuccess ? APP_EXIT_OK : fail_cuda(r, "allocating device memory", e);
}

/* ---- one chunk ------------------------------------------------------------------------ */

/* The chunk's flags as one byte per element (non-zero keeps) in f. */
static int read_flags(run_t *r, const app_chunk_t *c, unsigned char *f) {
    arr_status_t st = app_src_read(r->fsrc, c->first, c->count, r->fraw.p, r->threads, r->err, sizeof r->err);
    if (st != ARR_OK) return fail_st(r, st);
    const unsigned char *b = r->fraw.p;
    for (size_t i = 0; i < c->count; ++i) {
        unsigned char any = 0;
        for (size_t k = 0; k < r->fes; ++k) any |= b[i * r->fes + k];
        f[i] = any != 0;
    }
    return APP_EXIT_OK;
}

static libscan_status_t select_cpu(const run_t *r, const void *in, const unsigned char *fl, void *kout, void *rout,
                                   size_t m, size_t *k) {
    const compact_job_t *j = r->job;
    libscan_compact_opts_t o = LIBSCAN_COMPACT_OPTS_INIT;
    o.indices = j->indices;
    if (j->crit == CRIT_UNIQUE) return libscan_cpu_unique(in, kout, k, m, j->dtype, &o);
    if (j->crit == CRIT_FLAGS)
        return j->partition ? libscan_cpu_partition_flagged(in, fl, kout, rout, k, m, j->dtype, &o)
                            : libscan_cpu_select_flagged(in, fl, kout, k, m, j->dtype, &o);
    return j->partition ? libscan_cpu_partition_if(in, kout, rout, k, m, j->dtype, &j->pred, &o)
                        : libscan_cpu_select_if(in, kout, k, m, j->dtype, &j->pred, &o);
}

static libscan_status_t select_gpu(const run_t *r, const lane_t *l) {
    const compact_job_t *j = r->job;
    libscan_compact_opts_t o = LIBSCAN_COMPACT_OPTS_INIT;
    o.indices = j->indices;
    const size_t m = l->f.m;
    if (j->crit == CRIT_UNIQUE) return libscan_unique(l->d_in, l->d_out, l->d_num, m, j->dtype, &o, l->stream);
    if (j->crit == CRIT_FLAGS)
        return j->partition
                   ? libscan_partition_flagged(l->d_in, l->d_flags, l->d_out, l->d_rej, l->d_num, m, j->dtype, &o,
                                               l->stream)
                   : libscan_select_flagged(l->d_in, l->d_flags, l->d_out, l->d_num, m, j->dtype, &o, l->stream);
    return j->partition
               ? libscan_partition_if(l->d_in, l->d_out, l->d_rej, l->d_num, m, j->dtype, &j->pred, &o, l->stream)
               : libscan_select_if(l->d_in, l->d_out, l->d_num, m, j->dtype, &j->pred, &o, l->stream);
}

/* Chunk c taken into flight f (held until it is finished). --unique: the
 * previous chunk's last element goes in front of this one, so the first
 * element is compared with it; its own output is dropped (f->skip). */
static void flight_begin(run_t *r, flight_t *f, const app_chunk_t *c) {
    const size_t es = r->es;
    f->skip = r->job->crit == CRIT_UNIQUE && c->index > 0 ? 1 : 0;
    if (f->skip) memcpy((unsigned char *)c->data - es, r->carry, es);
    memcpy(r->carry, (unsigned char *)c->data + (c->count - 1) * es, es);
    f->c = *c;
    f->m = c->count + f->skip;
    f->base = (uint64_t)(c->first - f->skip);
    f->busy = true;
}

/* Buffers for what one chunk keeps (kbuf) and rejects (jbuf) from the write
 * pipes (--count: the scratch). false when a write failed: what was taken
 * is given back, and finishing the pipes reports the failure. */
static bool take_out_bufs(run_t *r, void *scratch, unsigned char **kbuf, int *kslot, unsigned char **jbuf,
                          int *jslot) {
    const compact_job_t *j = r->job;
    *kslot = *jslot = -1;
    *kbuf = j->out ? app_wpipe_acquire(r->kpipe, kslot) : (unsigned char *)scratch;
    *jbuf = j->partition ? app_wpipe_acquire(r->jpipe, jslot) : NULL;
    if ((j->out && !*kbuf) || (j->partition && !*jbuf)) {
        app_wpipe_submit(r->kpipe, *kslot, NULL, 0);
        app_wpipe_submit(r->jpipe, *jslot, NULL, 0);
        return false;
    }
    return true;
}

/* Queues the k - skip kept elements at `kept` and the m - k rejected ones at
 * jbuf, counting the kept; --indices: positions within the chunk made
 * positions in the file (the chunk's in[0] is element `base`). */
static void put_out(run_t *r, unsigned char *kept, int kslot, unsigned char *jbuf, int jslot, size_t m, size_t k,
                    size_t skip, uint64_t base) {
    const compact_job_t *j = r->job;
    if (j->indices) {
        if (j->out) add_base(kept, k - skip, base);
        if (j->partition) add_base(jbuf, m - k, base);
    }
    r->kept += k - skip;
    if (j->out) app_wpipe_submit(r->kpipe, kslot, kept, k - skip);
    if (j->partition) app_wpipe_submit(r->jpipe, jslot, jbuf, m - k);
}

/* One job's select, on the calling thread. */
static void cpu_run(const run_t *r, cpu_job_t *jb) {
    const unsigned char *in = (const unsigned char *)jb->f.c.data - jb->f.skip * r->es;
    jb->t0 = app_now();
    jb->ls = select_cpu(r, in, jb->fbytes.p, jb->kbuf, jb->jbuf, jb->f.m, &jb->k);
    jb->t1 = app_now();
}

static void *cpu_worker(void *arg) {
    run_t *r = arg;
    cpu_pool_t *p = &r->pool;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->stop && p->taken == p->queued) pthread_cond_wait(&p->work, &p->mu);
        if (p->taken == p->queued) break; /* stopped, and nothing left */
        cpu_job_t *jb = &p->job[p->taken++ % (size_t)p->njobs];
        pthread_mutex_unlock(&p->mu);
        cpu_run(r, jb);
        pthread_mutex_lock(&p->mu);
        jb->done = true;
        pthread_cond_broadcast(&p->finished);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* The workers, as many as the I/O threads (at least one; on this thread's
 * share if none can be started: cpu_finish then runs the job itself). */
static int cpu_pool_start(run_t *r) {
    cpu_pool_t *p = &r->pool;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->finished, NULL);
    p->tid = calloc((size_t)p->njobs, sizeof *p->tid);
    if (!p->tid) return -1;
    for (int i = 0; i < p->njobs; ++i) {
        if (app_thread_start(&p->tid[i], cpu_worker, r) != 0) break;
        p->nthreads++;
    }
    return 0;
}

/* Queues chunk c (held until its job is finished) on the next job. */
static int cpu_queue(run_t *r, size_t i, app_chunk_t *c) {
    cpu_pool_t *p = &r->pool;
    cpu_job_t *jb = &p->job[i % (size_t)p->njobs];
    flight_begin(r, &jb->f, c);
    jb->done = false;
    jb->k = 0;
    jb->ls = LIBSCAN_SUCCESS;
    jb->kbuf = jb->jbuf = NULL;
    int rc;
    if (r->fsrc && (rc = read_flags(r, c, jb->fbytes.p)) != APP_EXIT_OK) {
        jb->done = true; /* never queued */
        return rc;
    }
    if (!take_out_bufs(r, jb->scratch.p, &jb->kbuf, &jb->kslot, &jb->jbuf, &jb->jslot)) {
        jb->kbuf = jb->jbuf = NULL;
        jb->done = true;
        return WRITE_FAILED;
    }
    pthread_mutex_lock(&p->mu);
    p->queued++;
    pthread_cond_signal(&p->work);
    pthread_mutex_unlock(&p->mu);
    return APP_EXIT_OK;
}

/* Waits for job jb, gives its read buffer back and queues its output (or,
 * after an error elsewhere, just gives its buffers back). Jobs are finished
 * in the order they were queued, so the output stays in order. */
static int cpu_finish(run_t *r, app_rpipe_t *rp, cpu_job_t *jb, bool discard) {
    cpu_pool_t *p = &r->pool;
    pthread_mutex_lock(&p->mu);
    if (p->nthreads == 0 && !jb->done) { /* no worker could start: this thread works */
        p->taken++;
        pthread_mutex_unlock(&p->mu);
        cpu_run(r, jb);
        pthread_mutex_lock(&p->mu);
        jb->done = true;
    }
    while (!jb->done) pthread_cond_wait(&p->finished, &p->mu);
    pthread_mutex_unlock(&p->mu);
    jb->f.busy = false;
    app_rpipe_release(rp, &jb->f.c);
    if (!jb->kbuf && !jb->jbuf) return APP_EXIT_OK; /* failed before it was queued */
    app_span_add(&r->comp, jb->t0, jb->t1);
    if (discard || jb->ls != LIBSCAN_SUCCESS) {
        app_wpipe_submit(r->kpipe, jb->kslot, NULL, 0);
        app_wpipe_submit(r->jpipe, jb->jslot, NULL, 0);
        return discard ? APP_EXIT_OK : fail_lib(r, jb->ls);
    }
    /* The carried element's output (always kept) was written too: dropped. */
    const flight_t *f = &jb->f;
    put_out(r, jb->kbuf + f->skip * r->out_size, jb->kslot, jb->jbuf, jb->jslot, f->m, jb->k, f->skip, f->base);
    return APP_EXIT_OK;
}

/* The workers stopped and joined, once every queued job is done. */
static void cpu_pool_stop(run_t *r) {
    cpu_pool_t *p = &r->pool;
    if (!p->tid) return;
    pthread_mutex_lock(&p->mu);
    p->stop = true;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->nthreads; ++i) pthread_join(p->tid[i], NULL);
    free(p->tid);
    p->tid = NULL;
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->work);
    pthread_cond_destroy(&p->finished);
}

/* Queues chunk c on lane l: upload, select, and the count's download, all
 * on the lane's stream; nothing waits here. c is held until gpu_finish. */
static int gpu_queue(run_t *r, lane_t *l, app_chunk_t *c) {
    flight_begin(r, &l->f, c);
    l->t_queued = app_now();
    int rc;
    if (r->fsrc && (rc = read_flags(r, c, l->fbytes.p)) != APP_EXIT_OK) return rc;
    const unsigned char *in = (const unsigned char *)c->data - l->f.skip * r->es;
    cudaError_t e = cudaMemcpyAsync(l->d_in, in, l->f.m * r->es, cudaMemcpyHostToDevice, l->stream);
    if (e == cudaSuccess && r->fsrc)
        e = cudaMemcpyAsync(l->d_flags, l->fbytes.p, l->f.m, cudaMemcpyHostToDevice, l->stream);
    if (e != cudaSuccess) return fail_cuda(r, "uploading a chunk", e);
    libscan_status_t ls = select_gpu(r, l);
    if (ls != LIBSCAN_SUCCESS) return fail_lib(r, ls);
    e = cudaMemcpyAsync(l->h_num.p, l->d_num, sizeof(size_t), cudaMemcpyDeviceToHost, l->stream);
    return e == cudaSuccess ? APP_EXIT_OK : fail_cuda(r, "compacting a chunk", e);
}

/* Waits for lane l's chunk, gives its read buffer back, downloads what it
 * kept (and rejected) and queues that for writing (or, after an error
 * elsewhere, only gives the buffer back: the readers may wait for it).
 * Lanes are finished in the order their chunks were queued, so the output
 * stays in order. */
static int gpu_finish(run_t *r, app_rpipe_t *rp, lane_t *l, bool discard) {
    const compact_job_t *j = r->job;
    const size_t os = r->out_size, m = l->f.m, skip = l->f.skip;
    l->f.busy = false;
    cudaError_t e = cudaStreamSynchronize(l->stream);
    const double t1 = app_now();
    app_rpipe_release(rp, &l->f.c);
    if (discard) return APP_EXIT_OK;
    /* A chunk's upload and select run back to back on its lane's stream,
       unseen by the host: both stages get the lane's queue-to-count
       window (the windows of different chunks overlap). */
    app_span_add(&r->up, l->t_queued, t1);
    app_span_add(&r->comp, l->t_queued, t1);
    if (e != cudaSuccess) return fail_cuda(r, "compacting a chunk", e);
    const size_t k = *(const size_t *)l->h_num.p;
    unsigned char *kbuf, *jbuf;
    int kslot, jslot;
    if (!take_out_bufs(r, NULL, &kbuf, &kslot, &jbuf, &jslot)) return WRITE_FAILED;
    /* The carried element's output was never downloaded. */
    if (j->out && k > skip)
        e = cudaMemcpyAsync(kbuf, l->d_out + skip * os, (k - skip) * os, cudaMemcpyDeviceToHost, l->stream);
    if (e == cudaSuccess && j->partition && m > k)
        e = cudaMemcpyAsync(jbuf, l->d_rej, (m - k) * os, cudaMemcpyDeviceToHost, l->stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(l->stream);
    app_span_add(&r->down, t1, app_now());
    if (e != cudaSuccess) {
        app_wpipe_submit(r->kpipe, kslot, NULL, 0);
        app_wpipe_submit(r->jpipe, jslot, NULL, 0);
        return fail_cuda(r, "downloading a chunk", e);
    }
    put_out(r, kbuf, kslot, jbuf, jslot, m, k, skip, l->f.base);
    return APP_EXIT_OK;
}

/* Finishes the chunk in flight in `slot` (a lane or a CPU job), if any. */
static int finish(run_t *r, app_rpipe_t *rp, size_t slot, bool discard) {
    if (r->job->gpu) {
        lane_t *l = &r->lane[slot];
        return l->f.busy ? gpu_finish(r, rp, l, discard) : APP_EXIT_OK;
    }
    cpu_job_t *jb = &r->pool.job[slot];
    return jb->f.busy ? cpu_finish(r, rp, jb, discard) : APP_EXIT_OK;
}

/* ---- the end: header, rejected ones, commit ---------------------------------------------- */

static int finish_output(run_t *r) {
    const compact_job_t *j = r->job;
    arr_status_t st = ARR_OK;
    if (r->deferred) {
        /* Now that the count is known: header, the kept, the rejected. */
        const size_t total = j->partition ? r->n : r->kept;
        st = arr_writer_open(&r->w, j->out, j->out_format, r->out_dtype, total, r->err, sizeof r->err);
        if (st == ARR_OK) st = app_sink_open(&r->out, r->w, j->out, r->err, sizeof r->err);
        if (st == ARR_OK) {
            st = app_sink_append_spill(r->out, r->kept_spill, r->threads, r->err, sizeof r->err);
            r->kept_spill = NULL; /* closed by the append */
        }
    }
    if (st == ARR_OK && j->partition) {
        st = app_sink_append_spill(r->out, r->rej_spill, r->threads, r->err, sizeof r->err);
        r->rej_spill = NULL;
    }
    app_sink_close(r->out);
    r->out = NULL;
    if (st == ARR_OK) {
        arr_writer_t *w = r->w;
        r->w = NULL; /* commit frees it, on failure too */
        st = arr_writer_commit(w, r->err, sizeof r->err);
    }
    return st == ARR_OK ? APP_EXIT_OK : fail_st(r, st);
}

static void run_free(run_t *r) {
    app_sink_close(r->out);
    app_sink_close(r->kept_spill);
    app_sink_close(r->rej_spill);
    arr_writer_abort(r->w);
    app_ring_free(&r->rring);
    app_ring_free(&r->kring);
    app_ring_free(&r->jring);
    app_hostbuf_free(&r->fraw);
    cpu_pool_stop(r);
    for (int i = 0; i < r->pool.njobs && r->pool.job; ++i) {
        app_hostbuf_free(&r->pool.job[i].fbytes);
        app_hostbuf_free(&r->pool.job[i].scratch);
    }
    free(r->pool.job);
    for (int i = 0; i < LANES; ++i) {
        lane_t *l = &r->lane[i];
        app_hostbuf_free(&l->h_num);
        app_hostbuf_free(&l->fbytes);
        app_device_free(l->d_in);
        app_device_free(l->d_out);
        app_device_free(l->d_rej);
        app_device_free(l->d_flags);
        app_device_free(l->d_num);
        if (l->stream) cudaStreamDestroy(l->stream);
    }
}

int compact_stream_run(const compact_job_t *job, app_src_t *src, app_src_t *fsrc, size_t *kept, app_timing_t *tm) {
    run_t r;
    memset(&r, 0, sizeof r);
    r.job = job;
    r.src = src;
    r.fsrc = job->crit == CRIT_FLAGS ? fsrc : NULL;
    r.n = app_src_count(src);
    r.es = libscan_dtype_size(job->dtype);
    r.out_size = job->indices ? sizeof(uint64_t) : r.es;
    r.out_dtype = job->indices ? ARR_U64 : app_src_dtype(src);
    /* No bigger than the file: a small input pays for no buffers it cannot
       fill (pinning costs about 0.3 s per GiB). */
    r.chunk = app_stream_chunk_elems(r.es);
    if (!job->gpu && r.chunk > CPU_CHUNK_MAX) r.chunk = CPU_CHUNK_MAX;
    if (r.n > 0 && r.chunk > r.n) r.chunk = r.n;
    r.fes = r.fsrc ? arr_dtype_size(app_src_dtype(r.fsrc)) : 0;
    r.threads = app_io_threads();
    r.up = r.comp = r.down = (app_span_t)APP_SPAN_NONE;
    app_rpipe_t *rp = NULL;
    app_progress_t prog;
    app_progress_begin(&prog, job->prog, "compacting", r.n, job->quiet);
    arr_status_t st = ARR_OK;

    const double t_setup = app_now();
    int rc = open_outputs(&r);
    if (rc == APP_EXIT_OK) rc = alloc_buffers(&r);
    if (rc != APP_EXIT_OK) goto done;
    st = app_rpipe_start(&rp, src, 0, r.n, &r.rring, HEADROOM, r.chunk, r.threads, r.err, sizeof r.err);
    if (st == ARR_OK && job->out) st = app_wpipe_start(&r.kpipe, r.ksink, &r.kring, r.threads, r.err, sizeof r.err);
    if (st == ARR_OK && job->partition)
        st = app_wpipe_start(&r.jpipe, r.rej_spill, &r.jring, r.threads, r.err, sizeof r.err);
    if (st != ARR_OK) {
        rc = fail_st(&r, st);
        goto done;
    }
    app_timing_span(tm, "setup", t_setup, app_now());

    /* Chunk i goes to slot i % slots (flight_t) once that slot's chunk
       i - slots is finished: up to LANES chunks in flight on the GPU, one
       per CPU job. The slot is finished before the next chunk is asked
       for: its read buffer may be the one the readers wait for. */
    const size_t slots = job->gpu ? LANES : (size_t)r.pool.njobs;
    size_t i = 0;
    for (;; ++i) {
        if ((rc = finish(&r, rp, i % slots, false)) != APP_EXIT_OK) break;
        app_chunk_t c;
        st = app_rpipe_next(rp, &c, r.err, sizeof r.err);
        if (st != ARR_OK) {
            rc = fail_st(&r, st);
            break;
        }
        if (!c.data) break;
        rc = job->gpu ? gpu_queue(&r, &r.lane[i % slots], &c) : cpu_queue(&r, i, &c);
        if (rc != APP_EXIT_OK) break;
        app_progress_update(&prog, c.first + c.count);
    }
    /* The chunks still in flight, oldest first: the slots after i's, round
       to i's own. After an error their output is dropped. */
    for (size_t k = 1; k <= slots; ++k) {
        const int rk = finish(&r, rp, (i + k) % slots, rc != APP_EXIT_OK);
        if (rc == APP_EXIT_OK) rc = rk;
    }
    const app_span_t rd = app_rpipe_span(rp);
    app_rpipe_stop(rp);
    rp = NULL;
    /* Everything queued is written before the end is put together; a
       failed write (rc -1 above) is reported here. */
    app_span_t wk, wj;
    arr_status_t sk = app_wpipe_finish(r.kpipe, &wk, r.err, sizeof r.err);
    r.kpipe = NULL;
    if (sk == ARR_OK) sk = app_wpipe_finish(r.jpipe, &wj, r.err, sizeof r.err);
    else (void)app_wpipe_finish(r.jpipe, &wj, NULL, 0);
    r.jpipe = NULL;
    /* One line: a failure already reported stands alone. */
    if (sk != ARR_OK && (rc == APP_EXIT_OK || rc == WRITE_FAILED)) rc = fail_st(&r, sk);
    if (rc == WRITE_FAILED) { /* cannot happen: a failed pipe has its message */
        app_error(job->prog, "%s: write error", job->out);
        rc = APP_EXIT_INTERNAL;
    }
    if (rc != APP_EXIT_OK) goto done;
    app_timing_span(tm, "read", rd.first, rd.last);
    if (job->gpu) app_timing_span(tm, "upload", r.up.first, r.up.last);
    app_timing_span(tm, "compute", r.comp.first, r.comp.last);
    if (job->gpu) app_timing_span(tm, "download", r.down.first, r.down.last);
    app_span_t wr = wk;
    app_span_add(&wr, wj.first, wj.last);
    if (job->out) {
        const double t0 = app_now();
        rc = finish_output(&r);
        app_span_add(&wr, t0, app_now());
        app_timing_span(tm, "write", wr.first, wr.last);
    }
    *kept = r.kept;
done:
    app_progress_end(&prog);
    app_rpipe_stop(rp);
    (void)app_wpipe_finish(r.kpipe, NULL, NULL, 0);
    (void)app_wpipe_finish(r.jpipe, NULL, NULL, 0);
    run_free(&r);
    return rc;
}
