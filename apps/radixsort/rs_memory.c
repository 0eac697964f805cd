/* rs_memory.c -- radixsort of an input that fits in memory (rs_memory.h). */
#include "rs_memory.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cuda_runtime_api.h>

#include "common/host_mem.h"
#include "common/par_io.h"
#include "common/stream_io.h"
#include "rs_output.h"

/* Both outputs, their room taken now (rs_output.h's modes). */
static arr_status_t outputs_open(const rs_job_t *job, rs_outputs_t *x, arr_dtype_t kd, arr_dtype_t vd, size_t n,
                                 rs_out_mode_t mode, char *err, size_t errlen) {
    const char *const paths[2] = {job->out_path, job->values_out_path};
    const arr_dtype_t dt[2] = {kd, vd};
    return rs_outputs_open(x, paths, job->out_format, dt, n, mode, err, errlen);
}

static int report(const rs_job_t *job, arr_status_t st, const char *err) {
    app_error(job->prog, "%s", err);
    return (int)st; /* arr_status_t values are the exit codes */
}

static int cuda_fail(const rs_job_t *job, const char *what, cudaError_t e) {
    app_error(job->prog, "GPU: %s failed: %s", what, cudaGetErrorString(e));
    return APP_EXIT_INTERNAL;
}

/* ---- keys alone on the GPU: streamed in and out ----------------------------- */

static int sort_keys_gpu(const rs_job_t *job, app_src_t *src, app_timing_t *tm) {
    const size_t n = app_src_count(src), ks = libscan_dtype_size(job->key);
    const int threads = app_io_threads();
    /* No bigger than the file: pinning costs about 0.3 s per GiB, which a
       small input should not pay for buffers it cannot fill. */
    const size_t chunk = app_stream_chunk_elems(ks) < n ? app_stream_chunk_elems(ks) : n;
    const size_t nchunks = (n + chunk - 1) / chunk;
    char err[512];
    int rc = APP_EXIT_INTERNAL;
    app_ring_t ring;
    memset(&ring, 0, sizeof ring);
    app_rpipe_t *rp = NULL;
    app_wpipe_t *wp = NULL;
    rs_outputs_t outs;
    rs_outputs_init(&outs);
    unsigned char *d_keys = NULL, *d_sorted = NULL;
    void *d_temp = NULL;
    size_t temp_bytes = 0;
    cudaStream_t stream = NULL;
    cudaError_t e;
    app_progress_t prog;
    app_progress_begin(&prog, job->prog, "sorting", 2 * (uint64_t)n, job->quiet);

    /* Enough buffers for every reader (or writer) to have one while the
       caller uploads (or downloads) another. The same ring serves the
       reads and then the writes. */
    /* The output first: its pages are faulted in (out_map.h) while the
       keys are read, uploaded and sorted. */
    const double t_open = app_now();
    arr_status_t st = outputs_open(job, &outs, job->key_file_dtype, ARR_NONE, n, RS_OUT_MAP_PREFAULT, err, sizeof err);
    if (st != ARR_OK) {
        rc = report(job, st, err);
        goto done;
    }
    app_timing_span(tm, "open output", t_open, app_now());
    const double t_alloc = app_now();
    int nslots = threads + 2 > 64 ? 64 : threads + 2;
    if ((size_t)nslots > nchunks + 1) nslots = (int)nchunks + 1;
    st = app_ring_alloc(&ring, nslots, chunk * ks, true, job->in_path, err, sizeof err);
    if (st != ARR_OK) {
        rc = report(job, st, err);
        goto done;
    }
    if ((e = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking)) != cudaSuccess) {
        rc = cuda_fail(job, "creating a stream", e);
        goto done;
    }
    /* The readers start now, and the device memory is allocated while they
       read the first chunks. */
    st = app_rpipe_start(&rp, src, 0, n, &ring, 0, chunk, threads, err, sizeof err);
    if (st != ARR_OK) {
        rc = report(job, st, err);
        goto done;
    }
    /* The sort ping-pongs between the two key arrays, and its own (small)
       temp is allocated here too, while the readers run, instead of inside
       the sort's time (the temp cache's first call) after them. */
    libscan_status_t ls = libscan_sort_temp_bytes(n, job->key, 0, LIBSCAN_SORT_DOUBLE_BUFFER, &temp_bytes);
    if (ls != LIBSCAN_SUCCESS) {
        app_error(job->prog, "GPU sort failed: %s", libscan_status_string(ls));
        goto done;
    }
    if ((e = cudaMalloc((void **)&d_keys, n * ks)) != cudaSuccess ||
        (e = cudaMalloc((void **)&d_sorted, n * ks)) != cudaSuccess ||
        (e = cudaMalloc(&d_temp, temp_bytes)) != cudaSuccess) {
        rc = cuda_fail(job, "allocating device memory for the keys", e);
        goto done;
    }
    app_timing_span(tm, "alloc", t_alloc, app_now());

    /* 1. read (threads) + upload (here), overlapped */
    app_span_t up = APP_SPAN_NONE;
    for (;;) {
        app_chunk_t c;
        st = app_rpipe_next(rp, &c, err, sizeof err);
        if (st != ARR_OK) {
            rc = report(job, st, err);
            goto done;
        }
        if (!c.data) break;
        const double t0 = app_now();
        e = cudaMemcpyAsync(d_keys + c.first * ks, c.data, c.count * ks, cudaMemcpyHostToDevice, stream);
        /* The buffer goes back to the readers once its copy is done. */
        if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
        app_span_add(&up, t0, app_now());
        app_rpipe_release(rp, &c);
        if (e != cudaSuccess) {
            rc = cuda_fail(job, "uploading the keys", e);
            goto done;
        }
        app_progress_update(&prog, c.first + c.count);
    }
    const app_span_t rd = app_rpipe_span(rp);
    app_rpipe_stop(rp);
    rp = NULL;
    app_timing_span(tm, "read", rd.first, rd.last);
    app_timing_span(tm, "upload", up.first, up.last);

    /* 2. sort */
    const double t_sort = app_now();
    libscan_sort_opts_t o = LIBSCAN_SORT_OPTS_INIT;
    o.descending = job->descending;
    o.d_temp = d_temp;
    o.temp_bytes = temp_bytes;
    libscan_double_buffer_t db = {{d_keys, d_sorted}, {NULL, NULL}, 0};
    ls = libscan_sort_double_buffer(&db, n, job->key, 0, &o, stream);
    const unsigned char *d_result = db.d_keys[db.selector];
    if (ls != LIBSCAN_SUCCESS) {
        app_error(job->prog, "GPU sort failed: %s", libscan_status_string(ls));
        goto done;
    }
    if ((e = cudaStreamSynchronize(stream)) != cudaSuccess) {
        rc = cuda_fail(job, "sorting", e);
        goto done;
    }
    app_timing_span(tm, "sort", t_sort, app_now());

    /* 3. download (here) + write (threads), overlapped */
    st = app_wpipe_start(&wp, outs.k[0], &ring, threads, err, sizeof err);
    if (st != ARR_OK) {
        rc = report(job, st, err);
        goto done;
    }
    app_span_t down = APP_SPAN_NONE;
    for (size_t at = 0; at < n; at += chunk) {
        const size_t m = n - at < chunk ? n - at : chunk;
        int slot;
        void *buf = app_wpipe_acquire(wp, &slot);
        if (!buf) break; /* a write failed: finish says which */
        const double t0 = app_now();
        e = cudaMemcpyAsync(buf, d_result + at * ks, m * ks, cudaMemcpyDeviceToHost, stream);
        if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
        app_span_add(&down, t0, app_now());
        app_wpipe_submit(wp, slot, buf, e == cudaSuccess ? m : 0);
        if (e != cudaSuccess) {
            (void)app_wpipe_finish(wp, NULL, NULL, 0);
            wp = NULL;
            rc = cuda_fail(job, "downloading the keys", e);
            goto done;
        }
        app_progress_update(&prog, n + at + m);
    }
    app_span_t wr;
    st = app_wpipe_finish(wp, &wr, err, sizeof err);
    wp = NULL;
    app_timing_span(tm, "download", down.first, down.last);
    app_timing_span(tm, "write", wr.first, wr.last);
    if (st != ARR_OK) {
        rc = report(job, st, err);
        goto done;
    }
    const double t_commit = app_now();
    st = rs_outputs_commit(&outs, err, sizeof err);
    app_timing_span(tm, "commit", t_commit, app_now());
    rc = st == ARR_OK ? APP_EXIT_OK : report(job, st, err);
done:
    app_progress_end(&prog);
    app_rpipe_stop(rp);
    (void)app_wpipe_finish(wp, NULL, NULL, 0);
    rs_outputs_abort(&outs);
    app_device_free(d_keys);
    app_device_free(d_sorted);
    app_device_free(d_temp);
    if (stream) cudaStreamDestroy(stream);
    app_ring_free(&ring);
    return rc;
}

/* ---- everything else: whole arrays in host memory --------------------------- */

static int sort_host(const rs_job_t *job, app_src_t *src, app_src_t *vsrc, app_timing_t *tm) {
    const size_t n = app_src_count(src), ks = libscan_dtype_size(job->key);
    const int threads = app_io_threads();
    char err[512];
    int rc = APP_EXIT_INTERNAL;
    app_hostbuf_t keys, vals, idx, gathered;
    memset(&keys, 0, sizeof keys);
    vals = idx = gathered = keys;
    rs_outputs_t outs;
    rs_outputs_init(&outs);
    const bool need_idx = job->argsort || job->values_path || job->unique;
    const arr_dtype_t vdtype = vsrc ? app_src_dtype(vsrc) : ARR_NONE;
    const size_t vs = vsrc ? arr_dtype_size(vdtype) : 0;

    app_timing_start(tm, "read");
    /* ks >= the file's element size: int8/int16 keys are widened to int32 in place. */
    if (app_hostbuf_alloc(&keys, n * ks + 8, false) || (vsrc && app_hostbuf_alloc(&vals, n * vs + 8, false)) ||
        (need_idx && app_hostbuf_alloc(&idx, n * 8 + 8, false)))
        goto oom;
    arr_status_t st = app_src_read(src, 0, n, keys.p, threads, err, sizeof err);
    if (st == ARR_OK && vsrc) st = app_src_read(vsrc, 0, n, vals.p, threads, err, sizeof err);
    if (st != ARR_OK) {
        rc = report(job, st, err);
        goto done;
    }
    rs_widen(job->key_file_dtype, keys.p, n);

    app_timing_start(tm, "compute");
    /* Page-locked in place for the GPU's two copies each way: ~70 ms a GiB
       once, against ~100 ms a GiB lost on each copy from pageable memory. */
    if (job->use_gpu) {
        (void)app_hostbuf_register(&keys); /* without it, only slower */
        if (need_idx) (void)app_hostbuf_register(&idx);
    }
    rc = rs_sort_host(job, keys.p, need_idx ? idx.p : NULL, n);
    if (rc != APP_EXIT_OK) goto done;
    rc = APP_EXIT_INTERNAL;
    size_t kept = n;
    if (job->unique) {
        libscan_sort_opts_t o = LIBSCAN_SORT_OPTS_INIT;
        (void)libscan_cpu_sort_unique(keys.p, idx.p, n, job->key, 8, &o, &kept);
    }
    rs_narrow(job->key_file_dtype, keys.p, kept);
    if (vsrc) {
        if (app_hostbuf_alloc(&gathered, kept * vs + 8, false)) goto oom;
        const uint64_t *ix = idx.p;
        for (size_t i = 0; i < kept; ++i)
            memcpy((char *)gathered.p + i * vs, (const char *)vals.p + ix[i] * vs, vs);
    }

    app_timing_start(tm, "write");
    const arr_dtype_t kd = job->argsort ? ARR_I64 : job->key_file_dtype;
    /* Mapped without a prefault: nothing is left to overlap it with, and
       the parallel copy faults the pages in as it goes. */
    st = outputs_open(job, &outs, kd, vdtype, kept, RS_OUT_MAP, err, sizeof err);
    if (st == ARR_OK) st = app_sink_write(outs.k[0], job->argsort ? idx.p : keys.p, kept, threads, err, sizeof err);
    if (st == ARR_OK && vsrc) st = app_sink_write(outs.k[1], gathered.p, kept, threads, err, sizeof err);
    if (st == ARR_OK) st = rs_outputs_commit(&outs, err, sizeof err);
    rc = st == ARR_OK ? APP_EXIT_OK : report(job, st, err);
    goto done;
oom:
    app_error(job->prog, "out of host memory for %zu keys", n);
    rc = APP_EXIT_INTERNAL;
done:
    app_timing_stop(tm);
    rs_outputs_abort(&outs);
    app_hostbuf_free(&keys);
    app_hostbuf_free(&vals);
    app_hostbuf_free(&idx);
    app_hostbuf_free(&gathered);
    return rc;
}

int rs_sort_in_memory(const rs_job_t *job, app_timing_t *tm) {
    char err[512];
    app_src_t *src = NULL, *vsrc = NULL;
    int rc;
    arr_status_t st = app_src_open(&src, job->in_path, job->in_format, job->raw_dtype, err, sizeof err);
    if (st != ARR_OK) {
        rc = report(job, st, err);
        goto done;
    }
    if (app_src_notice(src)[0] && !job->quiet) app_error(job->prog, "note: %s", app_src_notice(src));
    if (job->values_path) {
        st = app_src_open(&vsrc, job->values_path, job->in_format, job->raw_dtype, err, sizeof err);
        if (st != ARR_OK) {
            rc = report(job, st, err);
            goto done;
        }
        if (app_src_count(vsrc) != app_src_count(src)) {
            app_error(job->prog, "%s: has %zu values but %s has %zu keys", job->values_path, app_src_count(vsrc),
                      job->in_path, app_src_count(src));
            rc = APP_EXIT_USAGE;
            goto done;
        }
    }
    /* Streamed through the GPU: keys alone, stored as the sort's key type
       (int8/int16 files are widened, which the host does). */
    const bool stream = job->use_gpu && job->gpus == 0 && !job->values_path && !job->argsort && !job->unique &&
                        !job->seg_offsets &&
                        arr_dtype_size(job->key_file_dtype) == libscan_dtype_size(job->key) &&
                        app_src_count(src) > 0;
    rc = stream ? sort_keys_gpu(job, src, tm) : sort_host(job, src, vsrc, tm);
done:
    app_src_close(src);
    app_src_close(vsrc);
    return rc;
}
