/* main.c -- the `radixsort` program: sorts the keys of an array file (.npy,
 * raw with --dtype, text), optionally with a values file permuted alongside,
 * on the GPU or the CPU with libscan's sort family (<libscan/sort.h>).
 * Inputs larger than the memory limit are sorted in chunks and merged
 * (radixsort_chunked.c). See README.md and --help. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cuda_runtime_api.h>

#include "common/array_io.h"
#include "common/cli.h"
#include <libscan/sort.h>
#include "radixsort_chunked.h"

static const char *prog = "radixsort";

static void usage(FILE *f) {
    fprintf(f,
            "usage: radixsort IN [-o OUT] [options]\n"
            "Sorts the keys of IN (stable; floats in IEEE total order, -NaN < -inf < ... < -0.0 < +0.0 < ... < +NaN).\n"
            "  -o, --output OUT     where the sorted keys go (required unless --in-place or --check; '-' = stdout)\n"
            "  -r, --reverse        descending order (still stable)\n"
            "      --values FILE    values to permute with their keys (same count as IN, any dtype)\n"
            "      --values-out F   where the permuted values go (required with --values)\n"
            "      --argsort        write the sorting permutation (int64 positions) to OUT instead of the keys\n"
            "  -u, --unique         keep only the first of equal keys (and its value)\n"
            "  -c, --check          only report whether IN is sorted (exit 0: sorted, 1: not)\n"
            "      --in-place       allow OUT to be IN (OUT defaults to IN)\n"
            "      --dtype T        element type of raw files (%s)\n"
            "      --format F       auto|npy|raw|text for every file (default: from the extension)\n"
            "      --device D       auto|cpu|gpu (default auto: the GPU when usable)\n"
            "      --mem-limit B    bytes of memory a sort may use; larger inputs are sorted in chunks\n"
            "                       and merged (default: free GPU memory, or half the RAM on the CPU;\n"
            "                       the environment variable RADIXSORT_MEM_LIMIT sets it too)\n"
            "      --timing         print where the time went on stderr\n"
            "      --quiet          no progress, no notes\n"
            "      --help, --version\n"
            "Key dtypes: uint8, uint16, uint32, uint64, int8, int16, int32, int64, float32, float64, bool.\n"
            "Exit status: 0 success, 1 bad usage or input (or --check: not sorted), 2 internal/GPU failure.\n",
            arr_dtype_list());
}

/* The sort type for a file dtype; -1 when the dtype cannot be sorted. */
static int key_for(arr_dtype_t t, libscan_dtype_t *k) {
    switch (t) {
    case ARR_BOOL: case ARR_U8: *k = LIBSCAN_U8; return 0;
    case ARR_U16: *k = LIBSCAN_U16; return 0;
    case ARR_U32: *k = LIBSCAN_U32; return 0;
    case ARR_U64: *k = LIBSCAN_U64; return 0;
    case ARR_I8: case ARR_I16: case ARR_I32: *k = LIBSCAN_I32; return 0;
    case ARR_I64: *k = LIBSCAN_I64; return 0;
    case ARR_F32: *k = LIBSCAN_F32; return 0;
    case ARR_F64: *k = LIBSCAN_F64; return 0;
    default: return -1;
    }
}

static size_t default_mem_limit(bool gpu) {
    if (gpu) {
        size_t free_b = 0, total_b = 0;
        if (cudaMemGetInfo(&free_b, &total_b) == cudaSuccess) return free_b / 10 * 9;
        (void)cudaGetLastError();
    }
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    if (pages > 0 && psize > 0) return (size_t)pages * (size_t)psize / 2;
    return (size_t)1 << 30;
}

/* -c: streams IN and reports the first key out of order. */
static int check_sorted(const rs_job_t *job) {
    char err[512];
    arr_reader_t *rd = NULL;
    if (arr_reader_open(&rd, job->in_path, job->in_format, job->raw_dtype, err, sizeof err) != ARR_OK) {
        app_error(prog, "%s", err);
        return APP_EXIT_USAGE;
    }
    const size_t block = (size_t)1 << 20, ks = libscan_dtype_size(job->key);
    unsigned char *buf = malloc((block + 1) * 8);
    if (!buf) {
        arr_reader_close(rd);
        app_error(prog, "out of host memory");
        return APP_EXIT_INTERNAL;
    }
    libscan_sort_opts_t o = LIBSCAN_SORT_OPTS_INIT;
    o.descending = job->descending;
    size_t at = 0, got = 0, bad = 0;
    int rc = APP_EXIT_OK, have_prev = 0;
    for (;;) {
        /* slot 0 holds the previous block's last key, so the boundary is checked too */
        if (arr_reader_read(rd, buf + 8, block, &got, err, sizeof err) != ARR_OK) {
            app_error(prog, "%s", err);
            rc = APP_EXIT_USAGE;
            break;
        }
        if (got == 0) break;
        rs_widen(job->key_file_dtype, buf + 8, got);
        unsigned char *start = have_prev ? buf + 8 - ks : buf + 8;
        const size_t m = got + (have_prev ? 1 : 0);
        (void)libscan_cpu_is_sorted(start, m, job->key, &o, &bad);
        if (bad != m) {
            const size_t pos = at + bad - (have_prev ? 1 : 0);
            if (!job->quiet) printf("%s: not sorted: key %zu is out of order with key %zu\n", job->in_path, pos, pos - 1);
            rc = APP_EXIT_USAGE;
            break;
        }
        memcpy(buf + 8 - ks, buf + 8 + (got - 1) * ks, ks);
        have_prev = 1;
        at += got;
    }
    if (rc == APP_EXIT_OK && !job->quiet)
        printf("%s: sorted (%zu keys, %s)\n", job->in_path, at, job->descending ? "descending" : "ascending");
    free(buf);
    arr_reader_close(rd);
    return rc;
}

/* The whole input fits: read, sort, write. */
static int sort_in_memory(const rs_job_t *job, app_timing_t *tm) {
    char err[512];
    arr_array_t keys, vals;
    memset(&keys, 0, sizeof keys);
    memset(&vals, 0, sizeof vals);
    uint64_t *idx = NULL;
    void *gathered = NULL;
    int rc = APP_EXIT_USAGE;
    app_timing_start(tm, "read");
    if (arr_read(job->in_path, job->in_format, job->raw_dtype, &keys, err, sizeof err) != ARR_OK) {
        app_error(prog, "%s", err);
        goto done;
    }
    if (keys.notice[0] && !job->quiet) app_error(prog, "note: %s", keys.notice);
    if (job->values_path) {
        if (arr_read(job->values_path, job->in_format, job->raw_dtype, &vals, err, sizeof err) != ARR_OK) {
            app_error(prog, "%s", err);
            goto done;
        }
        if (vals.count != keys.count) {
            app_error(prog, "%s: has %zu values but %s has %zu keys", job->values_path, vals.count, job->in_path,
                      keys.count);
            goto done;
        }
    }
    const size_t n = keys.count;
    if (job->key_file_dtype == ARR_I8 || job->key_file_dtype == ARR_I16) {
        void *wide = realloc(keys.data, n * 4 + 4);
        if (!wide) goto oom;
        keys.data = wide;
        rs_widen(job->key_file_dtype, keys.data, n);
    }
    const bool need_idx = job->argsort || job->values_path || job->unique;
    if (need_idx && !(idx = malloc(n * 8 + 8))) goto oom;
    app_timing_start(tm, "compute");
    rc = rs_sort_host(job, keys.data, need_idx ? idx : NULL, n);
    if (rc != APP_EXIT_OK) goto done;
    size_t kept = n;
    if (job->unique) {
        libscan_sort_opts_t o = LIBSCAN_SORT_OPTS_INIT;
        (void)libscan_cpu_sort_unique(keys.data, idx, n, job->key, 8, &o, &kept);
    }
    rs_narrow(job->key_file_dtype, keys.data, kept);
    if (job->values_path) {
        const size_t vs = arr_dtype_size(vals.dtype);
        if (!(gathered = malloc(kept * vs + 1))) goto oom;
        for (size_t i = 0; i < kept; ++i)
            memcpy((char *)gathered + i * vs, (const char *)vals.data + idx[i] * vs, vs);
    }
    app_timing_start(tm, "write");
    if (job->values_out_path &&
        arr_write(job->values_out_path, job->out_format, vals.dtype, gathered, kept, err, sizeof err) != ARR_OK) {
        app_error(prog, "%s", err);
        rc = APP_EXIT_USAGE;
        goto done;
    }
    arr_status_t st = job->argsort
                          ? arr_write(job->out_path, job->out_format, ARR_I64, idx, kept, err, sizeof err)
                          : arr_write(job->out_path, job->out_format, job->key_file_dtype, keys.data, kept, err, sizeof err);
    if (st != ARR_OK) {
        app_error(prog, "%s", err);
        if (job->values_out_path) unlink(job->values_out_path); /* keep the pair consistent: neither file */
        rc = (int)st;
        goto done;
    }
    rc = APP_EXIT_OK;
    goto done;
oom:
    app_error(prog, "out of host memory for %zu keys", keys.count);
    rc = APP_EXIT_INTERNAL;
done:
    app_timing_stop(tm);
    arr_free(&keys);
    arr_free(&vals);
    free(idx);
    free(gathered);
    return rc;
}

int main(int argc, char **argv) {
    rs_job_t job;
    memset(&job, 0, sizeof job);
    job.prog = prog;
    bool check = false, in_place = false, timing = false;
    app_device_t device = APP_DEVICE_AUTO;
    const char *mem_limit_s = getenv("RADIXSORT_MEM_LIMIT");
    const char *mem_limit_src = "RADIXSORT_MEM_LIMIT";
    char err[512];

    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *v;
        bool missing = false;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return APP_EXIT_OK;
        } else if (!strcmp(a, "--version")) {
            printf("radixsort (libscan %s)\n", libscan_version_string());
            return APP_EXIT_OK;
        } else if (!strcmp(a, "-o")) {
            if (++i >= argc) { app_error(prog, "option -o needs a value"); return APP_EXIT_USAGE; }
            job.out_path = argv[i];
        } else if ((v = app_option_value(argc, argv, &i, "--output", &missing))) {
            job.out_path = v;
        } else if (!strcmp(a, "-r") || !strcmp(a, "--reverse")) {
            job.descending = true;
        } else if (!strcmp(a, "-u") || !strcmp(a, "--unique")) {
            job.unique = true;
        } else if (!strcmp(a, "-c") || !strcmp(a, "--check")) {
            check = true;
        } else if (!strcmp(a, "--argsort")) {
            job.argsort = true;
        } else if (!strcmp(a, "--in-place")) {
            in_place = true;
        } else if (!strcmp(a, "--timing")) {
            timing = true;
        } else if (!strcmp(a, "--quiet")) {
            job.quiet = true;
        } else if ((v = app_option_value(argc, argv, &i, "--values", &missing))) {
            job.values_path = v;
        } else if (!missing && (v = app_option_value(argc, argv, &i, "--values-out", &missing))) {
            job.values_out_path = v;
        } else if (!missing && (v = app_option_value(argc, argv, &i, "--dtype", &missing))) {
            if (arr_dtype_parse(v, &job.raw_dtype)) {
                app_error(prog, "--dtype: unknown type '%s' (one of %s)", v, arr_dtype_list());
                return APP_EXIT_USAGE;
            }
        } else if (!missing && (v = app_option_value(argc, argv, &i, "--format", &missing))) {
            if (arr_format_parse(v, &job.in_format)) {
                app_error(prog, "--format: unknown format '%s' (auto, npy, raw, text)", v);
                return APP_EXIT_USAGE;
            }
            job.out_format = job.in_format;
        } else if (!missing && (v = app_option_value(argc, argv, &i, "--device", &missing))) {
            if (app_parse_device(v, &device)) {
                app_error(prog, "--device: '%s' is not auto, cpu or gpu", v);
                return APP_EXIT_USAGE;
            }
        } else if (!missing && (v = app_option_value(argc, argv, &i, "--mem-limit", &missing))) {
            mem_limit_s = v;
            mem_limit_src = "--mem-limit";
        } else if (missing) {
            app_error(prog, "option %s needs a value", a);
            return APP_EXIT_USAGE;
        } else if (a[0] == '-' && a[1] != '\0') {
            app_error(prog, "unknown option '%s' (see --help)", a);
            return APP_EXIT_USAGE;
        } else if (job.in_path) {
            app_error(prog, "more than one input file ('%s' and '%s')", job.in_path, a);
            return APP_EXIT_USAGE;
        } else {
            job.in_path = a;
        }
    }
    if (!job.in_path) {
        app_error(prog, "no input file (see --help)");
        return APP_EXIT_USAGE;
    }
    if (job.values_path && !job.values_out_path && !check) {
        app_error(prog, "--values needs --values-out");
        return APP_EXIT_USAGE;
    }
    if (job.values_out_path && !job.values_path) {
        app_error(prog, "--values-out needs --values");
        return APP_EXIT_USAGE;
    }
    if (!check && !job.out_path) {
        if (!in_place) {
            app_error(prog, "no output: give -o OUT (or --in-place to sort IN itself)");
            return APP_EXIT_USAGE;
        }
        job.out_path = job.in_path;
    }
    if (!check && !in_place) {
        const char *ins[2] = {job.in_path, job.values_path}, *outs[2] = {job.out_path, job.values_out_path};
        for (int a = 0; a < 2; ++a)
            for (int b = 0; b < 2; ++b)
                if (ins[a] && outs[b] && (app_same_file(ins[a], outs[b]) || !strcmp(ins[a], outs[b]))) {
                    app_error(prog, "%s: refusing to overwrite the input (use --in-place)", outs[b]);
                    return APP_EXIT_USAGE;
                }
    }
    size_t mem_limit = 0;
    if (mem_limit_s) {
        uint64_t v = 0;
        if (app_parse_u64(mem_limit_s, 1, UINT64_MAX, &v, err, sizeof err)) {
            app_error(prog, "%s: %s", mem_limit_src, err);
            return APP_EXIT_USAGE;
        }
        mem_limit = (size_t)v;
    }

    /* The header decides the key type and whether the input fits. */
    arr_reader_t *rd = NULL;
    if (arr_reader_open(&rd, job.in_path, job.in_format, job.raw_dtype, err, sizeof err) != ARR_OK) {
        app_error(prog, "%s", err);
        return APP_EXIT_USAGE;
    }
    job.key_file_dtype = arr_reader_dtype(rd);
    const size_t n = arr_reader_count(rd);
    arr_reader_close(rd);
    if (key_for(job.key_file_dtype, &job.key)) {
        app_error(prog, "%s: cannot sort keys of dtype %s (integers and float32/float64 only)", job.in_path,
                  arr_dtype_name(job.key_file_dtype));
        return APP_EXIT_USAGE;
    }
    if (check) return check_sorted(&job);

    app_device_t chosen = APP_DEVICE_CPU;
    int rc = app_choose_device(prog, device, &chosen);
    if (rc != APP_EXIT_OK) return rc;
    job.use_gpu = chosen == APP_DEVICE_GPU;
    if (!mem_limit) mem_limit = default_mem_limit(job.use_gpu);

    /* Bytes per key a sort in memory needs (the larger of device and host):
     * input, output and up to two alternate key buffers (argsort's temp), and
     * two u64 index buffers when values, argsort or unique need the
     * permutation; the look-back words add well under one byte per key. */
    const size_t ks = libscan_dtype_size(job.key);
    const bool need_idx = job.argsort || job.values_path || job.unique;
    const size_t per_key = 4 * ks + (need_idx ? 16 : 0) + 1;
    app_timing_t tm;
    app_timing_init(&tm, timing);
    if (n <= mem_limit / per_key) {
        rc = sort_in_memory(&job, &tm);
    } else {
        job.chunk = mem_limit / per_key;
        if (job.chunk < 1) job.chunk = 1;
        rc = rs_sort_chunked(&job, &tm);
        /* Said after the fact, so that a failure stays one line. */
        if (rc == APP_EXIT_OK && !job.quiet)
            app_error(prog, "note: %zu keys exceeded the memory limit of %zu bytes: sorted %zu chunks and merged them",
                      n, mem_limit, (n + job.chunk - 1) / job.chunk);
    }
    app_timing_print(&tm, prog);
    return rc;
}
