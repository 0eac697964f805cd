/* radixsort_chunked.c -- see radixsort_chunked.h. */
#include "radixsort_chunked.h"
#include "rs_output.h"

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

int rs_sort_host(const rs_job_t *job, void *keys, uint64_t *idx, size_t n) {
    libscan_sort_opts_t o = LIBSCAN_SORT_OPTS_INIT;
    o.descending = job->descending;
    const size_t ks = libscan_dtype_size(job->key);
    if (!job->use_gpu) {
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
    if (n == 0) return APP_EXIT_OK;
    void *d_in = NULL, *d_out = NULL, *d_idx = NULL;
    cudaError_t e = cudaMalloc(&d_in, n * ks);
    if (e == cudaSuccess) e = cudaMalloc(&d_out, n * ks);
    if (e == cudaSuccess && idx) e = cudaMalloc(&d_idx, n * 8);
    libscan_status_t st = LIBSCAN_SUCCESS;
    if (e == cudaSuccess) e = cudaMemcpy(d_in, keys, n * ks, cudaMemcpyHostToDevice);
    if (e == cudaSuccess) {
        st = idx ? libscan_argsort(d_in, d_out, d_idx, n, job->key, 8, &o, 0)
                 : libscan_sort(d_in, d_out, NULL, NULL, n, job->key, 0, &o, 0);
        if (st == LIBSCAN_SUCCESS) e = cudaDeviceSynchronize();
    }
    if (st == LIBSCAN_SUCCESS && e == cudaSuccess) e = cudaMemcpy(keys, d_out, n * ks, cudaMemcpyDeviceToHost);
    if (st == LIBSCAN_SUCCESS && e == cudaSuccess && idx) e = cudaMemcpy(idx, d_idx, n * 8, cudaMemcpyDeviceToHost);
    cudaFree(d_in);
    cudaFree(d_out);
    cudaFree(d_idx);
    if (st != LIBSCAN_SUCCESS || e != cudaSuccess) return gpu_fail(job->prog, "chunk", st, e);
    return APP_EXIT_OK;
}

/* ---- runs and the merge ---------------------------------------------------- */

/* The order-preserving map of sort.h ("Order"), descending included,
 * for comparing keys from different runs. */
static uint64_t mapped(libscan_dtype_t key, bool desc, const unsigned char *p) {
    uint64_t x = 0, sign = 0, m = 0;
    switch (libscan_dtype_size(key)) {
    case 1: x = p[0]; sign = 0x80; break;
    case 2: { uint16_t v; memcpy(&v, p, 2); x = v; sign = 0x8000; break; }
    case 4: { uint32_t v; memcpy(&v, p, 4); x = v; sign = 0x80000000u; break; }
    default: memcpy(&x, p, 8); sign = 0x8000000000000000ull; break;
    }
    const uint64_t all = sign | (sign - 1);
    if (key == LIBSCAN_I32 || key == LIBSCAN_I64) m = sign;
    if (key == LIBSCAN_F32 || key == LIBSCAN_F64) m = (x & sign) ? all : sign;
    x ^= m;
    return desc ? x ^ all : x;
}

typedef struct run {
    FILE *f;          /* keys, then u64 indices, then values: `len` records of each present */
    size_t len, next; /* records, next record to read */
    size_t buf_at, buf_n;
    unsigned char *keys;
    uint64_t *idx;       /* NULL: no indices (only --argsort keeps them) */
    unsigned char *vals; /* NULL: no values */
    long idx_offset;     /* file offset of the indices */
    long vals_offset;    /* file offset of the values (in the run's sorted order) */
} run_t;

#define RUN_BUF 8192

static int run_fill(run_t *r, size_t ks, size_t vsize) {
    size_t n = r->len - r->next < RUN_BUF ? r->len - r->next : RUN_BUF;
    if (fseek(r->f, (long)(r->next * ks), SEEK_SET) || fread(r->keys, ks, n, r->f) != n) return -1;
    if (r->idx && (fseek(r->f, r->idx_offset + (long)(r->next * 8), SEEK_SET) || fread(r->idx, 8, n, r->f) != n))
        return -1;
    if (r->vals &&
        (fseek(r->f, r->vals_offset + (long)(r->next * vsize), SEEK_SET) || fread(r->vals, vsize, n, r->f) != n))
        return -1;
    r->buf_at = 0;
    r->buf_n = n;
    return 0;
}

typedef struct heap_item {
    uint64_t key;
    size_t run;
} heap_item_t;

static bool before(const heap_item_t *a, const heap_item_t *b) {
    return a->key < b->key || (a->key == b->key && a->run < b->run);
}

static void sift_down(heap_item_t *h, size_t n, size_t i) {
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && before(&h[l], &h[m])) m = l;
        if (r < n && before(&h[r], &h[m])) m = r;
        if (m == i) return;
        heap_item_t t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

/* Values travel with their runs: each chunk's values are read beside its
 * keys, put in the chunk's sorted order through the chunk's permutation and
 * spilled after the keys, so the merge reads every file sequentially. */
int rs_sort_chunked(const rs_job_t *job, app_timing_t *timing) {
    char err[512];
    int rc = APP_EXIT_INTERNAL;
    arr_reader_t *rd = NULL, *vrd = NULL;
    /* outs[0]: the keys (or argsort's positions), outs[1]: the values;
       published together at the end (rs_output.h). */
    rs_output_t outs[2];
    memset(outs, 0, sizeof outs);
    outs[0].slot = outs[1].slot = -1;
    rs_output_t *w = NULL, *vw = NULL;
    run_t *runs = NULL;
    size_t nruns = 0;
    heap_item_t *heap = NULL;
    unsigned char *chunk = NULL, *vchunk = NULL, *vbuf = NULL;
    uint64_t *idx = NULL;
    app_progress_t prog;
    memset(&prog, 0, sizeof prog);
    const size_t ks = libscan_dtype_size(job->key);
    /* The chunk sort returns its permutation for --argsort (spilled with the
     * run) and for values (applied to the chunk's values before they spill). */
    const bool need_idx = job->argsort || job->values_path;
    size_t vsize = 0;

    app_timing_start(timing, "read");
    if (arr_reader_open(&rd, job->in_path, job->in_format, job->raw_dtype, err, sizeof err) != ARR_OK) {
        app_error(job->prog, "%s", err);
        rc = APP_EXIT_USAGE;
        goto done;
    }
    const size_t n = arr_reader_count(rd);
    arr_dtype_t vdtype = ARR_NONE;
    if (job->values_path) {
        if (arr_reader_open(&vrd, job->values_path, job->in_format, job->raw_dtype, err, sizeof err) != ARR_OK) {
            app_error(job->prog, "%s", err);
            rc = APP_EXIT_USAGE;
            goto done;
        }
        if (arr_reader_count(vrd) != n) {
            app_error(job->prog, "%s: has %zu values but %s has %zu keys", job->values_path, arr_reader_count(vrd),
                      job->in_path, n);
            rc = APP_EXIT_USAGE;
            goto done;
        }
        vdtype = arr_reader_dtype(vrd);
        vsize = arr_dtype_size(vdtype);
    }

    /* 1. sorted runs */
    const size_t chunk_n = job->chunk ? job->chunk : 1;
    nruns = n ? (n + chunk_n - 1) / chunk_n : 0;
    runs = calloc(nruns + 1, sizeof(run_t));
    chunk = malloc(chunk_n * (ks > 4 ? ks : 4) + 8);
    idx = need_idx ? malloc(chunk_n * 8 + 8) : NULL;
    if (vsize) {
        vchunk = malloc(chunk_n * vsize);
        vbuf = malloc(RUN_BUF * vsize);
    }
    if (!runs || !chunk || (need_idx && !idx) || (vsize && (!vchunk || !vbuf))) {
        app_error(job->prog, "out of host memory for chunks of %zu keys", chunk_n);
        goto done;
    }
    app_progress_begin(&prog, job->prog, "sorting chunks", n, job->quiet);
    size_t at = 0;
    for (size_t r = 0; r < nruns; ++r) {
        size_t got = 0;
        app_timing_start(timing, "read");
        if (arr_reader_read(rd, chunk, chunk_n, &got, err, sizeof err) != ARR_OK) {
            app_error(job->prog, "%s", err);
            rc = APP_EXIT_USAGE;
            goto done;
        }
        rs_widen(job->key_file_dtype, chunk, got);
        if (vsize) {
            size_t vgot = 0;
            if (arr_reader_read(vrd, vchunk, chunk_n, &vgot, err, sizeof err) != ARR_OK) {
                app_error(job->prog, "%s", err);
                rc = APP_EXIT_USAGE;
                goto done;
            }
            if (vgot != got) {
                app_error(job->prog, "%s: ended after %zu values, before the keys of %s", job->values_path, at + vgot,
                          job->in_path);
                rc = APP_EXIT_USAGE;
                goto done;
            }
        }
        app_timing_start(timing, "compute");
        int src = rs_sort_host(job, chunk, idx, got);
        if (src != APP_EXIT_OK) {
            rc = src;
            goto done;
        }
        app_timing_start(timing, "spill");
        runs[r].f = tmpfile();
        runs[r].len = got;
        runs[r].idx_offset = (long)(got * ks);
        runs[r].vals_offset = runs[r].idx_offset + (long)(job->argsort ? got * 8 : 0);
        runs[r].keys = malloc(RUN_BUF * ks);
        runs[r].idx = job->argsort ? malloc(RUN_BUF * 8) : NULL;
        runs[r].vals = vsize ? malloc(RUN_BUF * vsize) : NULL;
        bool spilled = runs[r].f && runs[r].keys && (!job->argsort || runs[r].idx) && (!vsize || runs[r].vals) &&
                       fwrite(chunk, ks, got, runs[r].f) == got;
        /* Values in sorted order: idx[i] is still the chunk-local position of
         * the i-th smallest key here. */
        for (size_t i = 0; spilled && vsize && i < got; i += RUN_BUF) {
            const size_t m = got - i < RUN_BUF ? got - i : RUN_BUF;
            for (size_t j = 0; j < m; ++j) memcpy(vbuf + j * vsize, vchunk + idx[i + j] * vsize, vsize);
            if (fseek(runs[r].f, runs[r].vals_offset + (long)(i * vsize), SEEK_SET) ||
                fwrite(vbuf, vsize, m, runs[r].f) != m)
                spilled = false;
        }
        if (job->argsort)
            for (size_t i = 0; i < got; ++i) idx[i] += at;
        if (spilled && job->argsort &&
            (fseek(runs[r].f, runs[r].idx_offset, SEEK_SET) || fwrite(idx, 8, got, runs[r].f) != got))
            spilled = false;
        if (!spilled) {
            app_error(job->prog, "cannot write sorted run %zu to a temporary file", r);
            goto done;
        }
        at += got;
        app_progress_update(&prog, at);
    }
    app_progress_end(&prog);
    free(chunk);
    chunk = NULL;

    /* 2. merge */
    app_timing_start(timing, "merge");
    const arr_dtype_t out_dtype = job->argsort ? ARR_I64 : job->key_file_dtype;
    const size_t out_count = job->unique ? ARR_COUNT_UNKNOWN : n;
    arr_status_t ost = rs_output_open(&outs[0], job->out_path, job->out_format, out_dtype, out_count, err, sizeof err);
    if (ost != ARR_OK) {
        app_error(job->prog, "%s", err);
        rc = (int)ost;
        goto done;
    }
    w = &outs[0];
    if (job->values_out_path) {
        ost = rs_output_open(&outs[1], job->values_out_path, job->out_format, vdtype, out_count, err, sizeof err);
        if (ost != ARR_OK) {
            app_error(job->prog, "%s", err);
            rc = (int)ost;
            goto done;
        }
        vw = &outs[1];
    }
    heap = malloc((nruns + 1) * sizeof(heap_item_t));
    if (!heap) goto done;
    size_t hn = 0;
    for (size_t r = 0; r < nruns; ++r) {
        if (runs[r].len == 0) continue;
        if (run_fill(&runs[r], ks, vsize)) goto io_fail;
        heap[hn].key = mapped(job->key, job->descending, runs[r].keys);
        heap[hn].run = r;
        ++hn;
    }
    for (size_t i = hn / 2; i-- > 0;) sift_down(heap, hn, i);
    app_progress_begin(&prog, job->prog, "merging", n, job->quiet);
    unsigned char outk[8];
    uint64_t last = 0;
    size_t done_n = 0, written = 0;
    while (hn) {
        run_t *r = &runs[heap[0].run];
        const uint64_t key = heap[0].key;
        const unsigned char *kp = r->keys + r->buf_at * ks;
        const uint64_t id = r->idx ? r->idx[r->buf_at] : 0;
        if (!job->unique || written == 0 || key != last) {
            arr_status_t st;
            if (job->argsort) {
                int64_t v = (int64_t)id;
                st = rs_output_write(w, &v, 1, err, sizeof err);
            } else {
                memcpy(outk, kp, ks);
                rs_narrow(job->key_file_dtype, outk, 1);
                st = rs_output_write(w, outk, 1, err, sizeof err);
            }
            if (st == ARR_OK && vw) st = rs_output_write(vw, r->vals + r->buf_at * vsize, 1, err, sizeof err);
            if (st != ARR_OK) {
                app_error(job->prog, "%s", err);
                rc = (int)st;
                goto done;
            }
            ++written;
            last = key;
        }
        ++r->next;
        if (++r->buf_at == r->buf_n) {
            if (r->next < r->len) {
                if (run_fill(r, ks, vsize)) goto io_fail;
            }
        }
        if (r->next < r->len) heap[0].key = mapped(job->key, job->descending, r->keys + r->buf_at * ks);
        else heap[0] = heap[--hn];
        sift_down(heap, hn, 0);
        if ((++done_n & 0xffff) == 0) app_progress_update(&prog, done_n);
    }
    app_progress_end(&prog);
    app_timing_start(timing, "write");
    /* Both files complete in their stages before either replaces anything,
       so a failure leaves the old keys and values files as they were. */
    for (int i = 0; i < 2; ++i) {
        if (!outs[i].path) continue;
        ost = rs_output_finish(&outs[i], err, sizeof err);
        if (ost != ARR_OK) {
            app_error(job->prog, "%s", err);
            rc = (int)ost;
            goto done;
        }
    }
    ost = rs_outputs_publish(outs, 2, err, sizeof err);
    if (ost != ARR_OK) {
        app_error(job->prog, "%s", err);
        rc = (int)ost;
        goto done;
    }
    rc = APP_EXIT_OK;
    goto done;
io_fail:
    app_error(job->prog, "cannot read back a temporary sorted run");
    rc = APP_EXIT_INTERNAL;
done:
    app_timing_stop(timing);
    app_progress_end(&prog);
    rs_output_abort(&outs[0]);
    rs_output_abort(&outs[1]);
    arr_reader_close(rd);
    arr_reader_close(vrd);
    for (size_t r = 0; runs && r < nruns; ++r) {
        if (runs[r].f) fclose(runs[r].f);
        free(runs[r].keys);
        free(runs[r].idx);
        free(runs[r].vals);
    }
    free(runs);
    free(heap);
    free(chunk);
    free(idx);
    free(vchunk);
    free(vbuf);
    return rc;
}
