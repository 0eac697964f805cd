/* compact_stream.c -- compact's work, streamed in chunks (compact_stream.h). */
#define _POSIX_C_SOURCE 200809L
#include "compact_stream.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cuda_runtime_api.h>

#include "common/host_mem.h"
#include "common/par_io.h"

/* Room before each chunk in the read buffers for one element: the previous
 * chunk's last, which --unique compares the chunk's first with. */
#define HEADROOM 16

/* do_chunk's return when a queued write failed (reported by the pipe). */
#define WRITE_FAILED (-1)

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
    /* flags, as read (fraw) and as one byte per element (fbytes) */
    app_hostbuf_t fraw, fbytes, scratch;
    /* GPU */
    cudaStream_t stream;
    unsigned char *d_in, *d_out, *d_rej, *d_flags;
    size_t *d_num;
    app_hostbuf_t h_num;
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

static int alloc_buffers(run_t *r) {
    const compact_job_t *j = r->job;
    const bool pin = j->gpu;
    int slots = r->threads + 2 > 64 ? 64 : r->threads + 2;
    const size_t nchunks = r->n ? (r->n + r->chunk - 1) / r->chunk : 1;
    if ((size_t)slots > nchunks + 1) slots = (int)nchunks + 1;
    /* Outputs of one chunk: up to chunk + 1 (the carried element). */
    const size_t out_bytes = (r->chunk + 1) * r->out_size;
    const char *in = app_src_path(r->src);
    arr_status_t st = app_ring_alloc(&r->rring, slots, HEADROOM + r->chunk * r->es, pin, in, r->err, sizeof r->err);
    if (st == ARR_OK && j->out) st = app_ring_alloc(&r->kring, slots, out_bytes, pin, j->out, r->err, sizeof r->err);
    if (st == ARR_OK && j->partition)
        st = app_ring_alloc(&r->jring, slots, out_bytes, pin, j->out, r->err, sizeof r->err);
    if (st != ARR_OK) return fail_st(r, st);
    if ((r->fsrc && (app_hostbuf_alloc(&r->fraw, r->chunk * r->fes, false) ||
                     app_hostbuf_alloc(&r->fbytes, r->chunk + 1, pin))) ||
        (!j->out && !j->gpu && app_hostbuf_alloc(&r->scratch, out_bytes, false)) ||
        (j->gpu && app_hostbuf_alloc(&r->h_num, sizeof(size_t), true))) {
        app_error(j->prog, "out of host memory for chunks of %zu elements", r->chunk);
        return APP_EXIT_INTERNAL;
    }
    if (!j->gpu) return APP_EXIT_OK;
    cudaError_t e = cudaStreamCreateWithFlags(&r->stream, cudaStreamNonBlocking);
    if (e == cudaSuccess) e = cudaMalloc((void **)&r->d_in, (r->chunk + 1) * r->es);
    if (e == cudaSuccess) e = cudaMalloc((void **)&r->d_out, out_bytes);
    if (e == cudaSuccess && j->partition) e = cudaMalloc((void **)&r->d_rej, out_bytes);
    if (e == cudaSuccess && r->fsrc) e = cudaMalloc((void **)&r->d_flags, r->chunk + 1);
    if (e == cudaSuccess) e = cudaMalloc((void **)&r->d_num, sizeof(size_t));
    return e == cudaSuccess ? APP_EXIT_OK : fail_cuda(r, "allocating device memory", e);
}

/* ---- one chunk ------------------------------------------------------------------------ */

/* The chunk's flags as one byte per element (non-zero keeps) in fbytes. */
static int read_flags(run_t *r, const app_chunk_t *c) {
    arr_status_t st = app_src_read(r->fsrc, c->first, c->count, r->fraw.p, r->threads, r->err, sizeof r->err);
    if (st != ARR_OK) return fail_st(r, st);
    const unsigned char *b = r->fraw.p;
    unsigned char *f = r->fbytes.p;
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

static libscan_status_t select_gpu(const run_t *r, size_t m) {
    const compact_job_t *j = r->job;
    libscan_compact_opts_t o = LIBSCAN_COMPACT_OPTS_INIT;
    o.indices = j->indices;
    if (j->crit == CRIT_UNIQUE) return libscan_unique(r->d_in, r->d_out, r->d_num, m, j->dtype, &o, r->stream);
    if (j->crit == CRIT_FLAGS)
        return j->partition
                   ? libscan_partition_flagged(r->d_in, r->d_flags, r->d_out, r->d_rej, r->d_num, m, j->dtype, &o,
                                               r->stream)
                   : libscan_select_flagged(r->d_in, r->d_flags, r->d_out, r->d_num, m, j->dtype, &o, r->stream);
    return j->partition
               ? libscan_partition_if(r->d_in, r->d_out, r->d_rej, r->d_num, m, j->dtype, &j->pred, &o, r->stream)
               : libscan_select_if(r->d_in, r->d_out, r->d_num, m, j->dtype, &j->pred, &o, r->stream);
}

/* Compacts chunk c (released here, once its data is no longer needed) and
 * queues what it keeps and rejects. */
static int do_chunk(run_t *r, app_rpipe_t *rp, app_chunk_t *c) {
    const compact_job_t *j = r->job;
    const size_t es = r->es, os = r->out_size;
    /* --unique: the previous chunk's last element goes in front of this one,
       so the first element is compared with it; its own output is dropped. */
    const size_t skip = j->crit == CRIT_UNIQUE && c->index > 0 ? 1 : 0;
    unsigned char *in = (unsigned char *)c->data - skip * es;
    const size_t m = c->count + skip;
    const uint64_t base = (uint64_t)(c->first - skip); /* position of in[0] in the file */
    if (skip) memcpy(in, r->carry, es);
    memcpy(r->carry, (unsigned char *)c->data + (c->count - 1) * es, es);
    int rc;
    if (r->fsrc && (rc = read_flags(r, c)) != APP_EXIT_OK) {
        app_rpipe_release(rp, c);
        return rc;
    }
    int kslot = -1, jslot = -1;
    unsigned char *kbuf = j->out ? app_wpipe_acquire(r->kpipe, &kslot) : (unsigned char *)r->scratch.p;
    unsigned char *jbuf = j->partition ? app_wpipe_acquire(r->jpipe, &jslot) : NULL;
    if ((j->out && !kbuf) || (j->partition && !jbuf)) {
        /* A write failed: give back what was taken; finishing the pipes
           reports the failure. */
        app_wpipe_submit(r->kpipe, kslot, NULL, 0);
        app_wpipe_submit(r->jpipe, jslot, NULL, 0);
        app_rpipe_release(rp, c);
        return WRITE_FAILED;
    }
    size_t k = 0;
    if (!j->gpu) {
        const double t0 = app_now();
        libscan_status_t ls = select_cpu(r, in, r->fbytes.p, kbuf, jbuf, m, &k);
        app_span_add(&r->comp, t0, app_now());
        app_rpipe_release(rp, c);
        if (ls != LIBSCAN_SUCCESS) return fail_lib(r, ls);
    } else {
        double t0 = app_now();
        cudaError_t e = cudaMemcpyAsync(r->d_in, in, m * es, cudaMemcpyHostToDevice, r->stream);
        if (e == cudaSuccess && r->fsrc)
            e = cudaMemcpyAsync(r->d_flags, r->fbytes.p, m, cudaMemcpyHostToDevice, r->stream);
        if (e == cudaSuccess) e = cudaStreamSynchronize(r->stream);
        const double t1 = app_now();
        app_span_add(&r->up, t0, t1);
        app_rpipe_release(rp, c); /* uploaded */
        if (e != cudaSuccess) return fail_cuda(r, "uploading a chunk", e);
        libscan_status_t ls = select_gpu(r, m);
        if (ls != LIBSCAN_SUCCESS) return fail_lib(r, ls);
        e = cudaMemcpyAsync(r->h_num.p, r->d_num, sizeof(size_t), cudaMemcpyDeviceToHost, r->stream);
        if (e == cudaSuccess) e = cudaStreamSynchronize(r->stream);
        const double t2 = app_now();
        app_span_add(&r->comp, t1, t2);
        if (e != cudaSuccess) return fail_cuda(r, "compacting a chunk", e);
        k = *(const size_t *)r->h_num.p;
        if (j->out && k > skip)
            e = cudaMemcpyAsync(kbuf, r->d_out + skip * os, (k - skip) * os, cudaMemcpyDeviceToHost, r->stream);
        if (e == cudaSuccess && j->partition && m > k)
            e = cudaMemcpyAsync(jbuf, r->d_rej, (m - k) * os, cudaMemcpyDeviceToHost, r->stream);
        if (e == cudaSuccess) e = cudaStreamSynchronize(r->stream);
        app_span_add(&r->down, t2, app_now());
        if (e != cudaSuccess) return fail_cuda(r, "downloading a chunk", e);
    }
    /* The CPU wrote the carried element's output too: it is dropped here.
       On the GPU it was never downloaded. */
    unsigned char *kept = j->gpu ? kbuf : kbuf + skip * os;
    if (j->indices) {
        /* Positions within `in`, which starts at element `base` of the file. */
        if (j->out) add_base(kept, k - skip, base);
        if (j->partition) add_base(jbuf, m - k, base);
    }
    r->kept += k - skip;
    if (j->out) app_wpipe_submit(r->kpipe, kslot, kept, k - skip);
    if (j->partition) app_wpipe_submit(r->jpipe, jslot, jbuf, m - k);
    return APP_EXIT_OK;
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
    app_hostbuf_free(&r->fbytes);
    app_hostbuf_free(&r->scratch);
    app_hostbuf_free(&r->h_num);
    if (r->job->gpu) {
        app_device_free(r->d_in);
        app_device_free(r->d_out);
        app_device_free(r->d_rej);
        app_device_free(r->d_flags);
        app_device_free(r->d_num);
        if (r->stream) cudaStreamDestroy(r->stream);
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

    for (;;) {
        app_chunk_t c;
        st = app_rpipe_next(rp, &c, r.err, sizeof r.err);
        if (st != ARR_OK) {
            rc = fail_st(&r, st);
            goto done;
        }
        if (!c.data) break;
        rc = do_chunk(&r, rp, &c);
        if (rc != APP_EXIT_OK) break;
        app_progress_update(&prog, c.first + c.count);
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
