/* radixsort_chunked.c -- see radixsort_chunked.h. */
#include "radixsort_chunked.h"
#include "rs_gpus.h"
#include "common/host_mem.h"
#include "common/par_io.h"
#include "common/stream_io.h"
#include "rs_merge.h"
#include "rs_output.h"
#include "rs_runs.h"
#include "rs_segments.h"
#include "rs_threads.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>

void rs_widen(arr_dtype_t t, void *buf, size_t n) {
    int32_t *w = buf;
    if (t == ARR_I8)
        for (size_t i = n; i-- > 0;) w[i] = ((const int8_t *)buf)[i];
    else if (t == ARR_I16)
        for (size_t i = n; i-- > 0;) w[i] = ((const int16_t *)buf)[i];
}

void rs_narrow(arr_dtype_t t, void *buf, size_t n) {
    const int32_t *w = buf;
    if (t == ARR_I8)
        for (size_t i = 0; i < n; ++i) ((int8_t *)buf)[i] = (int8_t)w[i];
    else if (t == ARR_I16)
        for (size_t i = 0; i < n; ++i) ((int16_t *)buf)[i] = (int16_t)w[i];
}

static int gpu_fail(const char *prog, const char *what, libscan_status_t st, cudaError_t e) {
    if (st != LIBSCAN_SUCCESS) app_error(prog, "GPU sort failed: %s: %s", what, libscan_status_string(st));
    else app_error(prog, "GPU sort failed: %s: %s", what, cudaGetErrorString(e));
    return APP_EXIT_INTERNAL;
}

static int cpu_sort(const rs_job_t *job, void *keys, uint64_t *idx, size_t n) {
    libscan_sort_opts_t o = LIBSCAN_SORT_OPTS_INIT;
    o.descending = job->descending;
    libscan_status_t st = idx ? libscan_cpu_argsort(keys, idx, n, job->key, 8, &o)
                              : libscan_cpu_sort(keys, NULL, n, job->key, 0, &o);
    if (st == LIBSCAN_ERROR_OUT_OF_MEMORY) {
        app_error(job->prog, "out of host memory sorting %zu keys", n);
        return APP_EXIT_INTERNAL;
    }
    if (st != LIBSCAN_SUCCESS) {
        app_error(job->prog, "CPU sort failed: %s", libscan_status_string(st));
        return APP_EXIT_INTERNAL;
    }
    return APP_EXIT_OK;
}

void rs_dev_free(rs_dev_t *d) {
    app_device_free(d->d_in);
    app_device_free(d->d_out);
    app_device_free(d->d_idx);
    memset(d, 0, sizeof *d);
}

int rs_sort_host_dev(const rs_job_t *job, rs_dev_t *d, void *keys, uint64_t *idx, size_t n) {
    if (job->gpus > 0) return rs_gpus_sort_host(job, keys, idx, n);
    if (!job->use_gpu) return cpu_sort(job, keys, idx, n);
    if (n == 0) return APP_EXIT_OK;
    libscan_sort_opts_t o = LIBSCAN_SORT_OPTS_INIT;
    o.descending = job->descending;
    const size_t ks = libscan_dtype_size(job->key);
    cudaError_t e = cudaSuccess;
    /* Device buffers for the largest chunk, kept for the next ones: the
       chunks of an out-of-core sort all have the same size but the last. */
    if (n > d->cap || (idx && !d->d_idx)) {
        const size_t cap = n > d->cap ? n : d->cap;
        rs_dev_free(d);
        e = cudaMalloc(&d->d_in, cap * ks);
        if (e == cudaSuccess) e = cudaMalloc(&d->d_out, cap * ks);
        if (e == cudaSuccess && idx) e = cudaMalloc(&d->d_idx, cap * 8);
        if (e != cudaSuccess) {
            rs_dev_free(d);
            return gpu_fail(job->prog, "chunk", LIBSCAN_SUCCESS, e);
        }
        d->cap = cap;
    }
    libscan_status_t st = LIBSCAN_SUCCESS;
    e = cudaMemcpy(d->d_in, keys, n * ks, cudaMemcpyHostToDevice);
    if (e == cudaSuccess) {
        st = idx ? libscan_argsort(d->d_in, d->d_out, d->d_idx, n, job->key, 8, &o, 0)
                 : libscan_sort(d->d_in, d->d_out, NULL, NULL, n, job->key, 0, &o, 0);
        if (st == LIBSCAN_SUCCESS) e = cudaDeviceSynchronize();
    }
    if (st == LIBSCAN_SUCCESS && e == cudaSuccess) e = cudaMemcpy(keys, d->d_out, n * ks, cudaMemcpyDeviceToHost);
    if (st == LIBSCAN_SUCCESS && e == cudaSuccess && idx) e = cudaMemcpy(idx, d->d_idx, n * 8, cudaMemcpyDeviceToHost);
    if (st != LIBSCAN_SUCCESS || e != cudaSuccess) return gpu_fail(job->prog, "chunk", st, e);
    return APP_EXIT_OK;
}

int rs_sort_host(const rs_job_t *job, void *keys, uint64_t *idx, size_t n) {
    if (job->seg_offsets) return rs_segments_sort_host(job, keys, idx, n);
    rs_dev_t d;
    memset(&d, 0, sizeof d);
    const int rc = rs_sort_host_dev(job, &d, keys, idx, n);
    rs_dev_free(&d);
    return rc;
}

/* ---- 1. sorted runs -------------------------------------------------------
 * While the caller sorts chunk i, background steps spill run i - 1 and read
 * chunk i + 1. With three chunk buffers the two run side by side; with two
 * (when the permutation's buffers leave no room for a third) the read waits
 * for the spill to free the buffer it reads into. */

#define MIN_OVERLAP 1024 /* records a chunk for the chunk's I/O to run beside its sort */

typedef struct chunk_buf {
    unsigned char *keys; /* room for the chunk widened to the sort type */
    uint64_t *idx;       /* the sort's permutation (--argsort, values), else NULL */
    unsigned char *vals; /* the chunk's values in input order, else NULL */
    size_t got;          /* records in it */
    /* The memory of keys, idx and vals. keys and idx go to the GPU and
       back: page-locked in place (app_hostbuf_register) once for all the
       chunks, as the GPU copies pageable memory at a fraction of the bus. */
    app_hostbuf_t mem[3];
} chunk_buf_t;

typedef struct runs_ctx {
    const rs_job_t *job;
    app_src_t *src, *vsrc; /* the keys, the values (NULL without) */
    rs_spill_t *spill;
    chunk_buf_t buf[3]; /* chunk i in buf[i % nbuf] */
    unsigned nbuf;
    size_t chunk, n;
    int io_threads;
    size_t spill_run, read_run; /* this step's work; SIZE_MAX: none */
    double spill_done;          /* app_now() when the step's spill ended */
    int spill_rc, read_rc;      /* exit codes of failures, the messages in the errs */
    char spill_err[512], read_err[512];
} runs_ctx_t;

static void spill_part(void *p) {
    runs_ctx_t *x = p;
    if (x->spill_run != SIZE_MAX) {
        const size_t r = x->spill_run;
        const chunk_buf_t *b = &x->buf[r % x->nbuf];
        if (rs_spill_run(x->spill, r, b->keys, b->idx, (uint64_t)r * x->chunk, b->vals, b->got, x->spill_err,
                         sizeof x->spill_err))
            x->spill_rc = APP_EXIT_INTERNAL;
    }
    x->spill_done = app_now();
}

static void read_part(void *p) {
    runs_ctx_t *x = p;
    if (x->read_run == SIZE_MAX) return;
    chunk_buf_t *b = &x->buf[x->read_run % x->nbuf];
    const size_t first = x->read_run * x->chunk;
    b->got = x->n - first < x->chunk ? x->n - first : x->chunk;
    arr_status_t st = app_src_read(x->src, first, b->got, b->keys, x->io_threads, x->read_err, sizeof x->read_err);
    if (st == ARR_OK && x->vsrc)
        st = app_src_read(x->vsrc, first, b->got, b->vals, x->io_threads, x->read_err, sizeof x->read_err);
    if (st != ARR_OK) {
        x->read_rc = (int)st;
        return;
    }
    rs_widen(x->job->key_file_dtype, b->keys, b->got);
}

static void spill_then_read(void *p) {
    runs_ctx_t *x = p;
    spill_part(x);
    if (x->spill_rc == APP_EXIT_OK) read_part(x);
}

/* Waits for a background step that did `first` and then `second`, and
 * charges the time waited to each: only the part that did not overlap the
 * caller's own work shows in --timing. */
static void wait_step(rs_bg_t *bg, app_timing_t *tm, const double *first_done, const char *first,
                      const char *second) {
    app_timing_stop(tm);
    const double t0 = app_now();
    rs_bg_wait(bg);
    const double t1 = app_now();
    double a = first_done ? *first_done - t0 : 0;
    if (a < 0) a = 0;
    if (a > t1 - t0) a = t1 - t0;
    if (first) app_timing_add(tm, first, a);
    app_timing_add(tm, second, t1 - t0 - a);
}

/* ---- 2. the merge -----------------------------------------------------------
 * Windows of consecutive output ranks: while the caller merges window w on
 * every thread, one background step reads window w + 1 back from the runs
 * and another writes window w - 1 to the output(s). */

typedef struct read_step {
    rs_spill_t *spill;
    rs_window_t win[2]; /* window i in win[i % 2] */
    size_t *from, *to;  /* the runs' splits at the next window's start and end */
    size_t window, n;   /* ranks a window, in all */
    size_t next;        /* the window this step reads */
    bool unique;
    int rc;
    char err[512];
} read_step_t;

static void read_step(void *p) {
    read_step_t *x = p;
    const size_t end = x->n - x->next * x->window < x->window ? x->n : (x->next + 1) * x->window;
    if (rs_spill_split(x->spill, end, x->to, x->err, sizeof x->err) ||
        rs_spill_read_window(x->spill, x->from, x->to, x->unique, &x->win[x->next % 2], x->err, sizeof x->err)) {
        x->rc = APP_EXIT_INTERNAL;
        return;
    }
    size_t *t = x->from;
    x->from = x->to;
    x->to = t;
}

typedef struct write_step {
    app_sink_t *keys, *vals; /* vals NULL without values */
    const rs_merged_t *m;
    size_t out_ks, vsize;
    int io_threads;
    int rc;
    char err[512];
} write_step_t;

/* Writes the merged window's parts in order; parts that lie back to back
 * (all of them, but with --unique) go out as one range, which the sink
 * spreads over its threads. */
static void write_step(void *p) {
    write_step_t *x = p;
    const rs_merged_t *m = x->m;
    for (unsigned i = 0; i < m->parts && !x->rc;) {
        const size_t at = m->part_at[i];
        size_t n = 0;
        for (; i < m->parts && m->part_at[i] == at + n; ++i) n += m->part_n[i];
        arr_status_t st = app_sink_write(x->keys, m->keys + at * x->out_ks, n, x->io_threads, x->err, sizeof x->err);
        if (st == ARR_OK && x->vals)
            st = app_sink_write(x->vals, m->vals + at * x->vsize, n, x->io_threads, x->err, sizeof x->err);
        x->rc = (int)st;
    }
}

#define MAX_WINDOW ((size_t)1 << 24) /* ranks a window: a few dozen windows keep the pipeline full */
#define MIN_WINDOW ((size_t)4096)
/* Parts a merge thread: the window waits for its last part, so parts in
   excess let the others absorb a thread the system sets aside for a while
   (the I/O threads share the CPUs). */
#define PARTS_PER_THREAD 4

/* ---- the whole sort ---------------------------------------------------------
 * Values travel with their runs: each chunk's values are read beside its
 * keys and spilled after them in the run's sorted order (through the chunk
 * sort's permutation), so a window reads them beside its keys. */

typedef struct chunked {
    const rs_job_t *job;
    app_timing_t *tm;
    app_progress_t prog;
    app_src_t *src, *vsrc;
    /* The keys (or argsort's positions) and the values, written through
       their sinks and published together at the end (rs_output.h). */
    rs_outputs_t outs;
    rs_spill_t spill;
    rs_keymap_t map;
    size_t n, ks, vsize, chunk, nruns;
    bool need_idx; /* the chunk sort returns its permutation (--argsort, values) */
    unsigned threads; /* the merge's */
    int io_threads;   /* each file transfer's (app_io_threads) */
    rs_bg_t bg_spill, bg_read, bg_write;
    runs_ctx_t s1;
    read_step_t s2;
    write_step_t s3;
    rs_merged_t merged[2];
    size_t *splits;
    rs_dev_t dev; /* the chunk sort's device buffers (GPU) */
} chunked_t;

/* The chunk buffers and the chunk sort's device memory, no longer needed
 * once the runs are made (the merge takes their place). */
static void chunk_bufs_free(chunked_t *c) {
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) app_hostbuf_free(&c->s1.buf[i].mem[j]);
        memset(&c->s1.buf[i], 0, sizeof c->s1.buf[i]);
    }
    if (c->job->use_gpu) rs_dev_free(&c->dev);
}

/* Phase 1: every chunk sorted and spilled. Returns an exit code, the error
 * printed. */
static int make_runs(chunked_t *c) {
    const rs_job_t *job = c->job;
    runs_ctx_t *s1 = &c->s1;
    s1->job = job;
    s1->src = c->src;
    s1->vsrc = c->vsrc;
    s1->spill = &c->spill;
    s1->chunk = c->chunk;
    s1->n = c->n;
    s1->io_threads = c->io_threads;
    /* A third buffer for keys alone: three and the CPU sort's scratch copy
       are the four key copies main.c's memory budget counts a key. */
    s1->nbuf = c->need_idx ? 2 : 3;
    for (unsigned i = 0; i < s1->nbuf; ++i) {
        chunk_buf_t *b = &s1->buf[i];
        if (app_hostbuf_alloc(&b->mem[0], c->chunk * (c->ks > 4 ? c->ks : 4) + 8, false) ||
            (c->need_idx && app_hostbuf_alloc(&b->mem[1], c->chunk * 8 + 8, false)) ||
            (c->vsize && app_hostbuf_alloc(&b->mem[2], c->chunk * c->vsize + 8, false))) {
            app_error(job->prog, "out of host memory for chunks of %zu keys", c->chunk);
            return APP_EXIT_INTERNAL;
        }
        b->keys = b->mem[0].p;
        b->idx = b->mem[1].p;
        b->vals = b->mem[2].p;
        if (job->use_gpu) {
            (void)app_hostbuf_register(&b->mem[0]); /* without it, only slower */
            (void)app_hostbuf_register(&b->mem[1]);
        }
    }
    app_progress_begin(&c->prog, job->prog, "sorting chunks", c->n, job->quiet);
    app_timing_start(c->tm, "read");
    s1->spill_run = SIZE_MAX;
    s1->read_run = 0;
    read_part(s1);
    for (size_t r = 0; r < c->nruns && !s1->spill_rc && !s1->read_rc; ++r) {
        s1->spill_run = r ? r - 1 : SIZE_MAX;
        s1->read_run = r + 1 < c->nruns ? r + 1 : SIZE_MAX;
        if (c->chunk < MIN_OVERLAP) { /* runs this small: two threads a run cost more than they save */
            app_timing_start(c->tm, "spill");
            spill_then_read(s1);
        } else if (s1->nbuf == 3) {
            rs_bg_start(&c->bg_spill, spill_part, s1);
            rs_bg_start(&c->bg_read, read_part, s1);
        } else {
            rs_bg_start(&c->bg_spill, spill_then_read, s1);
        }
        app_timing_start(c->tm, "compute");
        const chunk_buf_t *b = &s1->buf[r % s1->nbuf];
        const int src = rs_sort_host_dev(job, &c->dev, b->keys, b->idx, b->got);
        if (s1->nbuf == 3) {
            wait_step(&c->bg_spill, c->tm, NULL, NULL, "spill");
            wait_step(&c->bg_read, c->tm, NULL, NULL, "read");
        } else {
            wait_step(&c->bg_spill, c->tm, &s1->spill_done, "spill", "read");
        }
        if (src != APP_EXIT_OK) return src;
        app_progress_update(&c->prog, (r + 1) * c->chunk < c->n ? (r + 1) * c->chunk : c->n);
    }
    if (!s1->spill_rc && !s1->read_rc) {
        s1->spill_run = c->nruns - 1;
        app_timing_start(c->tm, "spill");
        spill_part(s1);
    }
    app_progress_end(&c->prog);
    if (s1->spill_rc || s1->read_rc) {
        app_error(job->prog, "%s", s1->spill_rc ? s1->spill_err : s1->read_err);
        return s1->spill_rc ? s1->spill_rc : s1->read_rc;
    }
    chunk_bufs_free(c);
    return APP_EXIT_OK;
}

/* Phase 2: the runs merged into the outputs (not yet committed). Returns an
 * exit code, the error printed. */
static int merge_runs(chunked_t *c) {
    const rs_job_t *job = c->job;
    const size_t nruns = c->nruns, n = c->n;
    const arr_dtype_t out_dtype = job->argsort ? ARR_I64 : job->key_file_dtype;
    const size_t out_ks = arr_dtype_size(out_dtype);
    /* Two windows in, two out: about as much memory as the chunk buffers of
       phase 1, which are gone. But at least 64 records a run: every window
       and part pays a co-rank (binary searches in every run), which must
       stay small beside the merge of its records, also with a memory limit
       so small that there are thousands of runs. */
    size_t window = c->chunk / 2 < MAX_WINDOW ? c->chunk / 2 : MAX_WINDOW;
    if (window < MIN_WINDOW) window = MIN_WINDOW;
    if (window < 64 * nruns) window = 64 * nruns;
    if (window > n) window = n;
    read_step_t *s2 = &c->s2;
    write_step_t *s3 = &c->s3;
    c->splits = calloc(4 * nruns, sizeof *c->splits);
    bool oom = !c->splits;
    for (int i = 0; i < 2 && !oom; ++i) {
        rs_window_t *w = &s2->win[i];
        rs_merged_t *m = &c->merged[i];
        w->len = c->splits + (2 + (size_t)i) * nruns;
        w->at = malloc(nruns * sizeof *w->at);
        w->keys = malloc(window * c->ks);
        w->idx = job->argsort ? malloc(window * 8) : NULL;
        w->vals = c->vsize ? malloc(window * c->vsize) : NULL;
        m->keys = malloc(window * out_ks);
        m->vals = c->vsize ? malloc(window * c->vsize) : NULL;
        m->part_at = malloc(2 * (size_t)PARTS_PER_THREAD * c->threads * sizeof(size_t));
        m->part_n = m->part_at ? m->part_at + (size_t)PARTS_PER_THREAD * c->threads : NULL;
        oom = !w->at || !w->keys || (job->argsort && !w->idx) || (c->vsize && (!w->vals || !m->vals)) || !m->keys ||
              !m->part_at;
    }
    if (oom) {
        app_error(job->prog, "out of host memory for merge windows of %zu keys", window);
        return APP_EXIT_INTERNAL;
    }
    rs_merge_cfg_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.map = c->map;
    cfg.ks = c->ks;
    cfg.out_dtype = out_dtype;
    cfg.out_ks = out_ks;
    cfg.vsize = c->vsize;
    cfg.argsort = job->argsort;
    cfg.unique = job->unique;
    cfg.parts = PARTS_PER_THREAD * c->threads;
    s2->spill = &c->spill;
    s2->from = c->splits;
    s2->to = c->splits + nruns;
    s2->window = window;
    s2->n = n;
    s2->unique = job->unique;
    s3->keys = c->outs.k[0];
    s3->vals = c->outs.k[1];
    s3->out_ks = out_ks;
    s3->vsize = c->vsize;
    s3->io_threads = c->io_threads;
    const size_t nwin = (n + window - 1) / window;
    app_progress_begin(&c->prog, job->prog, "merging", n, job->quiet);
    rs_bg_start(&c->bg_read, read_step, s2);
    for (size_t w = 0; w < nwin; ++w) {
        wait_step(&c->bg_read, c->tm, NULL, NULL, "read back");
        if (s2->rc != APP_EXIT_OK) {
            app_error(job->prog, "%s", s2->err);
            return s2->rc;
        }
        s2->next = w + 1;
        if (w + 1 < nwin) rs_bg_start(&c->bg_read, read_step, s2);
        app_timing_start(c->tm, "merge");
        if (rs_merge_window(&cfg, &s2->win[w % 2], &c->merged[w % 2], c->threads)) {
            app_error(job->prog, "out of host memory for the merge of %zu runs", nruns);
            return APP_EXIT_INTERNAL;
        }
        wait_step(&c->bg_write, c->tm, NULL, NULL, "write");
        if (s3->rc != APP_EXIT_OK) break;
        s3->m = &c->merged[w % 2];
        rs_bg_start(&c->bg_write, write_step, s3);
        app_progress_update(&c->prog, (w + 1) * window < n ? (w + 1) * window : n);
    }
    wait_step(&c->bg_write, c->tm, NULL, NULL, "write");
    app_progress_end(&c->prog);
    if (s3->rc != APP_EXIT_OK) {
        app_error(job->prog, "%s", s3->err);
        return s3->rc;
    }
    return APP_EXIT_OK;
}

/* Opens the inputs and the outputs (before any work, so that a bad path is
 * reported at once; the outputs' room is reserved, so that a full disk is
 * too). Returns an exit code, the error printed. */
static int open_files(chunked_t *c) {
    const rs_job_t *job = c->job;
    char err[512];
    arr_status_t st = app_src_open(&c->src, job->in_path, job->in_format, job->raw_dtype, err, sizeof err);
    if (st != ARR_OK) {
        app_error(job->prog, "%s", err);
        return (int)st;
    }
    if (app_src_notice(c->src)[0] && !job->quiet) app_error(job->prog, "note: %s", app_src_notice(c->src));
    c->n = app_src_count(c->src);
    arr_dtype_t vdtype = ARR_NONE;
    if (job->values_path) {
        st = app_src_open(&c->vsrc, job->values_path, job->in_format, job->raw_dtype, err, sizeof err);
        if (st != ARR_OK) {
            app_error(job->prog, "%s", err);
            return (int)st;
        }
        if (app_src_count(c->vsrc) != c->n) {
            app_error(job->prog, "%s: has %zu values but %s has %zu keys", job->values_path, app_src_count(c->vsrc),
                      job->in_path, c->n);
            return APP_EXIT_USAGE;
        }
        vdtype = app_src_dtype(c->vsrc);
        c->vsize = arr_dtype_size(vdtype);
    }
    const char *const paths[2] = {job->out_path, job->values_out_path};
    const arr_dtype_t dtypes[2] = {job->argsort ? ARR_I64 : job->key_file_dtype, vdtype};
    /* Reserved, not mapped: an output larger than the memory limit must not
       be faulted into the page cache ahead of the merge. */
    st = rs_outputs_open(&c->outs, paths, job->out_format, dtypes, job->unique ? ARR_COUNT_UNKNOWN : c->n, RS_OUT_RESERVE,
                         err, sizeof err);
    if (st != ARR_OK) app_error(job->prog, "%s", err);
    return (int)st;
}

/* Completes both outputs in their stages before either replaces anything,
 * so a failure leaves the old keys and values files as they were. */
static int commit_outputs(chunked_t *c) {
    char err[512];
    const arr_status_t st = rs_outputs_commit(&c->outs, err, sizeof err);
    if (st != ARR_OK) app_error(c->job->prog, "%s", err);
    return (int)st;
}

static void chunked_free(chunked_t *c) {
    /* Every background step ends before anything it uses is freed. */
    rs_bg_wait(&c->bg_spill);
    rs_bg_wait(&c->bg_read);
    rs_bg_wait(&c->bg_write);
    app_progress_end(&c->prog);
    rs_outputs_abort(&c->outs);
    app_src_close(c->src);
    app_src_close(c->vsrc);
    rs_spill_close(&c->spill);
    chunk_bufs_free(c);
    for (int i = 0; i < 2; ++i) {
        free(c->s2.win[i].at);
        free(c->s2.win[i].keys);
        free(c->s2.win[i].idx);
        free(c->s2.win[i].vals);
        free(c->merged[i].keys);
        free(c->merged[i].vals);
        free(c->merged[i].part_at);
    }
    free(c->splits);
    free(c);
}

int rs_sort_chunked(const rs_job_t *job, app_timing_t *timing) {
    char err[512];
    unsigned threads = 1;
    if (rs_thread_count(&threads, err, sizeof err)) {
        app_error(job->prog, "%s", err);
        return APP_EXIT_USAGE;
    }
    chunked_t *c = calloc(1, sizeof *c);
    if (!c) {
        app_error(job->prog, "out of host memory");
        return APP_EXIT_INTERNAL;
    }
    c->job = job;
    c->tm = timing;
    rs_outputs_init(&c->outs);
    c->threads = threads;
    c->io_threads = app_io_threads();
    c->ks = libscan_dtype_size(job->key);
    c->need_idx = job->argsort || job->values_path;
    app_timing_start(timing, "read");
    int rc = open_files(c);
    if (rc == APP_EXIT_OK && c->n == 0) { /* nothing to sort (main.c sorts such inputs in memory) */
        rc = commit_outputs(c);
        chunked_free(c);
        return rc;
    }
    c->chunk = job->chunk ? job->chunk : 1;
    c->nruns = (c->n + c->chunk - 1) / c->chunk;
    rs_keymap_init(&c->map, job->key, job->descending);
    if (rc == APP_EXIT_OK && rs_spill_open(&c->spill, c->nruns, c->chunk, c->ks, job->argsort, c->vsize, &c->map,
                                           (unsigned)c->io_threads, err, sizeof err)) {
        app_error(job->prog, "%s", err);
        rc = APP_EXIT_INTERNAL;
    }
    if (rc == APP_EXIT_OK) rc = make_runs(c);
    if (rc == APP_EXIT_OK) rc = merge_runs(c);
    if (rc == APP_EXIT_OK) {
        app_timing_start(timing, "write");
        rc = commit_outputs(c);
    }
    app_timing_stop(timing);
    chunked_free(c);
    return rc;
}
