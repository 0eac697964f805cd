/* rs_segments.c -- radixsort --segments (rs_segments.h). */
#include "rs_segments.h"
#include "common/host_mem.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>

int rs_segments_check_options(const rs_job_t *job, bool check) {
    if (check) {
        app_error(job->prog, "--check does not combine with --segments");
        return APP_EXIT_USAGE;
    }
    if (job->unique) {
        app_error(job->prog, "--unique does not combine with --segments");
        return APP_EXIT_USAGE;
    }
    return APP_EXIT_OK;
}

/* Entry i of an integer array of dtype t as a signed or unsigned 64-bit
 * number: *neg is set for a negative one. */
static uint64_t entry(const void *data, arr_dtype_t t, size_t i, bool *neg) {
    *neg = false;
    switch (t) {
    case ARR_I8: { int8_t v = ((const int8_t *)data)[i]; *neg = v < 0; return (uint64_t)(int64_t)v; }
    case ARR_U8: return ((const uint8_t *)data)[i];
    case ARR_I16: { int16_t v = ((const int16_t *)data)[i]; *neg = v < 0; return (uint64_t)(int64_t)v; }
    case ARR_U16: return ((const uint16_t *)data)[i];
    case ARR_I32: { int32_t v = ((const int32_t *)data)[i]; *neg = v < 0; return (uint64_t)(int64_t)v; }
    case ARR_U32: return ((const uint32_t *)data)[i];
    case ARR_I64: { int64_t v = ((const int64_t *)data)[i]; *neg = v < 0; return (uint64_t)v; }
    default: return ((const uint64_t *)data)[i];
    }
}

int rs_segments_load(const rs_job_t *job, const char *path, size_t n, uint64_t **offsets, size_t *num) {
    char err[512];
    arr_array_t a;
    arr_status_t st = arr_read(path, job->in_format, job->raw_dtype, &a, err, sizeof err);
    if (st != ARR_OK) {
        app_error(job->prog, "%s", err);
        return (int)st; /* arr_status_t values are the exit codes */
    }
    int rc = APP_EXIT_USAGE;
    uint64_t *off = NULL;
    if (!arr_dtype_is_integer(a.dtype) || a.dtype == ARR_BOOL) {
        app_error(job->prog, "%s: offsets must be integers, not %s", path, arr_dtype_name(a.dtype));
        goto done;
    }
    if (a.count == 0) {
        app_error(job->prog, "%s: no offsets (at least one, 0, is needed)", path);
        goto done;
    }
    off = malloc(a.count * sizeof *off);
    if (!off) {
        app_error(job->prog, "%s: out of host memory for %zu offsets", path, a.count);
        rc = APP_EXIT_INTERNAL;
        goto done;
    }
    for (size_t i = 0; i < a.count; ++i) {
        bool neg = false;
        off[i] = entry(a.data, a.dtype, i, &neg);
        if (neg) {
            app_error(job->prog, "%s: offset %zu is negative (%" PRId64 ")", path, i, (int64_t)off[i]);
            goto done;
        }
        if (i == 0 && off[0] != 0) {
            app_error(job->prog, "%s: the first offset is %" PRIu64 ", not 0", path, off[0]);
            goto done;
        }
        if (i > 0 && off[i] < off[i - 1]) {
            app_error(job->prog, "%s: offset %zu (%" PRIu64 ") is less than offset %zu (%" PRIu64 ")", path, i,
                      off[i], i - 1, off[i - 1]);
            goto done;
        }
    }
    if (off[a.count - 1] != n) {
        app_error(job->prog, "%s: the last offset is %" PRIu64 ", but %s has %zu keys", path, off[a.count - 1],
                  job->in_path, n);
        goto done;
    }
    *offsets = off;
    *num = a.count - 1;
    off = NULL;
    rc = APP_EXIT_OK;
done:
    free(off);
    arr_free(&a);
    return rc;
}

static int lib_fail(const rs_job_t *job, const char *where, libscan_status_t st, cudaError_t e) {
    if (st == LIBSCAN_ERROR_OUT_OF_MEMORY && !job->use_gpu)
        app_error(job->prog, "out of host memory for the segmented sort");
    else if (st != LIBSCAN_SUCCESS)
        app_error(job->prog, "%s segmented sort failed: %s", where, libscan_status_string(st));
    else
        app_error(job->prog, "GPU: segmented sort failed: %s", cudaGetErrorString(e));
    return APP_EXIT_INTERNAL;
}

int rs_segments_sort_host(const rs_job_t *job, void *keys, uint64_t *idx, size_t n) {
    libscan_segsort_opts_t o = LIBSCAN_SEGSORT_OPTS_INIT;
    o.descending = job->descending;
    /* The program checked the offsets when it read them. */
    o.trust_offsets = 1;
    const size_t ks = libscan_dtype_size(job->key), num = job->seg_count;
    const uint64_t *off = job->seg_offsets;
    if (idx)
        for (size_t i = 0; i < n; ++i) idx[i] = i;
    if (!job->use_gpu) {
        libscan_status_t st = libscan_cpu_segmented_sort(keys, idx, n, off, num, job->key, idx ? 8 : 0, &o);
        return st == LIBSCAN_SUCCESS ? APP_EXIT_OK : lib_fail(job, "CPU", st, cudaSuccess);
    }
    if (n == 0) return APP_EXIT_OK;
    void *d_in = NULL, *d_out = NULL, *d_idx = NULL, *d_idx_out = NULL, *d_off = NULL;
    cudaError_t e = cudaMalloc(&d_in, n * ks);
    if (e == cudaSuccess) e = cudaMalloc(&d_out, n * ks);
    if (e == cudaSuccess) e = cudaMalloc(&d_off, (num + 1) * sizeof(uint64_t));
    if (e == cudaSuccess && idx) e = cudaMalloc(&d_idx, n * 8);
    if (e == cudaSuccess && idx) e = cudaMalloc(&d_idx_out, n * 8);
    if (e == cudaSuccess) e = cudaMemcpy(d_in, keys, n * ks, cudaMemcpyHostToDevice);
    if (e == cudaSuccess) e = cudaMemcpy(d_off, off, (num + 1) * sizeof(uint64_t), cudaMemcpyHostToDevice);
    if (e == cudaSuccess && idx) e = cudaMemcpy(d_idx, idx, n * 8, cudaMemcpyHostToDevice);
    libscan_status_t st = LIBSCAN_SUCCESS;
    if (e == cudaSuccess) {
        st = libscan_segmented_sort(d_in, d_out, d_idx, d_idx_out, n, d_off, num, job->key, idx ? 8 : 0, &o, 0);
        if (st == LIBSCAN_SUCCESS) e = cudaDeviceSynchronize();
    }
    if (st == LIBSCAN_SUCCESS && e == cudaSuccess) e = cudaMemcpy(keys, d_out, n * ks, cudaMemcpyDeviceToHost);
    if (st == LIBSCAN_SUCCESS && e == cudaSuccess && idx) e = cudaMemcpy(idx, d_idx_out, n * 8, cudaMemcpyDeviceToHost);
    app_device_free(d_in);
    app_device_free(d_out);
    app_device_free(d_off);
    app_device_free(d_idx);
    app_device_free(d_idx_out);
    return st == LIBSCAN_SUCCESS && e == cudaSuccess ? APP_EXIT_OK : lib_fail(job, "GPU", st, e);
}
