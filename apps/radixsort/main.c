/* main.c -- the `radixsort` program: sorts the keys of an array file (.npy,
 * raw with --dtype, text), optionally with a values file permuted alongside,
 * on the GPU or the CPU with libscan's sort family (<libscan/sort.h>).
 * Inputs larger than the memory limit are sorted in chunks and merged
 * (radixsort_chunked.c). See README.md and --help. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cuda_runtime_api.h>

#include "common/array_io.h"
#include "common/cli.h"
#include <libscan/sort.h>
#include "radixsort_chunked.h"
#include "rs_memory.h"
#include "rs_gpus.h"
#include "rs_segments.h"

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
            "      --segments F     sort each segment of IN on its own; F: offsets 0, ..., count (any array file)\n"
            "      --in-place       allow OUT to be IN (OUT defaults to IN), and --values-out to be --values\n"
            "      --dtype T        element type of raw files (%s)\n"
            "      --format F       auto|npy|raw|text for every file (default: from the extension)\n"
            "      --device D       auto|cpu|gpu (default auto: the GPU when usable)\n"
            "      --gpus N         sort across N GPUs of this machine over NCCL (the input in host\n"
            "                       memory, each GPU's share in its memory; --mem-limit does not apply)%s\n"
            "      --mem-limit B    bytes of memory a sort may use; larger inputs are sorted in chunks\n"
            "                       and merged (default: free GPU memory, or half the RAM on the CPU;\n"
            "                       the environment variable RADIXSORT_MEM_LIMIT sets it too)\n"
            "                       RADIXSORT_MERGE_THREADS=N: threads of that merge (default: all CPUs)\n"
            "      --timing         print where the time went on stderr\n"
            "      --quiet          no progress, no notes\n"
            "  -h, --help, --version\n"
            "Short options bundle (-ru), take their value attached or apart (-oOUT, -o OUT);\n"
            "long ones take --opt=V or --opt V; options may come before or after IN; '--' ends\n"
            "the options (for file names starting with '-'). Each output needs its own file,\n"
            "and no output may be an input (except with --in-place). With --values, both\n"
            "outputs replace their files together, only once both are complete.\n"
            "Key dtypes: uint8, uint16, uint32, uint64, int8, int16, int32, int64, float32, float64, bool.\n"
            "Exit status: 0 success, 1 bad usage or input (or --check: not sorted), 2 internal/GPU failure.\n",
            arr_dtype_list(), rs_gpus_built() ? "" : "\n                       (not in this build: it was built without NCCL)");
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

/* The folder part of path ("." when none) into dir (cap bytes). */
static void dir_of(const char *path, char *dir, size_t cap) {
    const char *slash = strrchr(path, '/');
    if (!slash) snprintf(dir, cap, ".");
    else if (slash == path) snprintf(dir, cap, "/");
    else snprintf(dir, cap, "%.*s", (int)(slash - path), path);
}

/* 1 when a and b name one file: the same st_dev/st_ino where both exist
 * (links, "./x" and "x"); where neither exists yet, the same name in the
 * same folder (by the folder's identity, so "d/./x" and "d/x" match); else
 * the same path string. */
static bool same_path(const char *a, const char *b) {
    if (!strcmp(a, b) || app_same_file(a, b)) return true;
    struct stat sa, sb;
    if (stat(a, &sa) == 0 || stat(b, &sb) == 0) return false;
    const char *ba = strrchr(a, '/'), *bb = strrchr(b, '/');
    ba = ba ? ba + 1 : a;
    bb = bb ? bb + 1 : b;
    if (strcmp(ba, bb) != 0) return false;
    char da[4096], db[4096];
    dir_of(a, da, sizeof da);
    dir_of(b, db, sizeof db);
    return app_same_file(da, db) != 0;
}

/* Refuses an output that is an input (unless --in-place allows it) and two
 * outputs on one file: `-o X --values-out X` would write the
 * values and then the keys over them, losing the values. "-" (standard
 * output) twice is the same clash. Returns 1 after printing the error. */
static bool same_paths(const rs_job_t *job, bool in_place) {
    const char *ins[2] = {job->in_path, job->values_path}, *outs[2] = {job->out_path, job->values_out_path};
    if (outs[0] && outs[1] && same_path(outs[0], outs[1])) {
        app_error(prog, "%s: given for both the keys (-o) and --values-out; each output needs its own file", outs[1]);
        return true;
    }
    for (int o = 0; o < 2; ++o)
        for (int i = 0; i < 2; ++i) {
            if (!ins[i] || !outs[o] || !strcmp(outs[o], "-") || !same_path(ins[i], outs[o])) continue;
            /* --in-place: the keys may go over IN and the values over the
               --values file (both are read whole before either is written);
               never one kind over the other. */
            if (in_place && o == i) continue;
            if (o == i)
                app_error(prog, "%s: refusing to overwrite %s (use --in-place)", outs[o],
                          i == 0 ? "the input" : "the --values file");
            else
                app_error(prog, "%s: refusing to overwrite %s with %s", outs[o], i == 0 ? "the input" : "the --values file",
                          o == 0 ? "the keys" : "the values");
            return true;
        }
    return false;
}

int main(int argc, char **argv) {
    rs_job_t job;
    memset(&job, 0, sizeof job);
    job.prog = prog;
    bool check = false, in_place = false, timing = false;
    const char *segments_path = NULL;
    app_device_t device = APP_DEVICE_AUTO;
    const char *mem_limit_s = getenv("RADIXSORT_MEM_LIMIT");
    const char *mem_limit_src = "RADIXSORT_MEM_LIMIT";
    char err[512];

    /* Long options without a short form, and the long forms of the short
     * ones, get values from 256 up, so that getopt_long's optopt tells a
     * long option's error from a short one's (app_bad_option). */
    enum { OPT_OUTPUT = 256, OPT_REVERSE, OPT_UNIQUE, OPT_CHECK, OPT_HELP, OPT_VERSION, OPT_VALUES, OPT_VALUES_OUT,
           OPT_ARGSORT, OPT_IN_PLACE, OPT_DTYPE, OPT_FORMAT, OPT_DEVICE, OPT_MEM_LIMIT, OPT_TIMING, OPT_QUIET, OPT_SEGMENTS,
           OPT_GPUS };
    static const struct option longs[] = {
        {"output", required_argument, NULL, OPT_OUTPUT},   {"reverse", no_argument, NULL, OPT_REVERSE},
        {"unique", no_argument, NULL, OPT_UNIQUE},         {"check", no_argument, NULL, OPT_CHECK},
        {"help", no_argument, NULL, OPT_HELP},             {"version", no_argument, NULL, OPT_VERSION},
        {"values", required_argument, NULL, OPT_VALUES},   {"values-out", required_argument, NULL, OPT_VALUES_OUT},
        {"argsort", no_argument, NULL, OPT_ARGSORT},       {"in-place", no_argument, NULL, OPT_IN_PLACE},
        {"dtype", required_argument, NULL, OPT_DTYPE},     {"format", required_argument, NULL, OPT_FORMAT},
        {"device", required_argument, NULL, OPT_DEVICE},   {"mem-limit", required_argument, NULL, OPT_MEM_LIMIT},
        {"timing", no_argument, NULL, OPT_TIMING},         {"quiet", no_argument, NULL, OPT_QUIET},
        {"segments", required_argument, NULL, OPT_SEGMENTS}, {"gpus", required_argument, NULL, OPT_GPUS},
        {NULL, 0, NULL, 0}};
    opterr = 0; /* our own one-line messages */
    int c;
    while ((c = getopt_long(argc, argv, ":o:ruch", longs, NULL)) != -1) {
        const char *v = optarg;
        switch (c) {
        case 'h': case OPT_HELP:
            usage(stdout);
            return APP_EXIT_OK;
        case OPT_VERSION:
            printf("radixsort (libscan %s)\n", libscan_version_string());
            return APP_EXIT_OK;
        case 'o': case OPT_OUTPUT: job.out_path = v; break;
        case 'r': case OPT_REVERSE: job.descending = true; break;
        case 'u': case OPT_UNIQUE: job.unique = true; break;
        case 'c': case OPT_CHECK: check = true; break;
        case OPT_ARGSORT: job.argsort = true; break;
        case OPT_IN_PLACE: in_place = true; break;
        case OPT_TIMING: timing = true; break;
        case OPT_QUIET: job.quiet = true; break;
        case OPT_VALUES: job.values_path = v; break;
        case OPT_VALUES_OUT: job.values_out_path = v; break;
        case OPT_SEGMENTS: segments_path = v; break;
        case OPT_DTYPE:
            if (arr_dtype_parse(v, &job.raw_dtype)) {
                app_error(prog, "--dtype: unknown type '%s' (one of %s)", v, arr_dtype_list());
                return APP_EXIT_USAGE;
            }
            break;
        case OPT_FORMAT:
            if (arr_format_parse(v, &job.in_format)) {
                app_error(prog, "--format: unknown format '%s' (auto, npy, raw, text)", v);
                return APP_EXIT_USAGE;
            }
            job.out_format = job.in_format;
            break;
        case OPT_DEVICE:
            if (app_parse_device(v, &device)) {
                app_error(prog, "--device: '%s' is not auto, cpu or gpu", v);
                return APP_EXIT_USAGE;
            }
            break;
        case OPT_MEM_LIMIT:
            mem_limit_s = v;
            mem_limit_src = "--mem-limit";
            break;
        case OPT_GPUS: {
            uint64_t g = 0;
            if (app_parse_u64(v, 1, 64, &g, err, sizeof err)) {
                app_error(prog, "--gpus: %s", err);
                return APP_EXIT_USAGE;
            }
            job.gpus = (int)g;
            break;
        }
        default:
            return app_bad_option(prog, c, longs, argv);
        }
    }
    for (int i = optind; i < argc; ++i) {
        if (job.in_path) {
            app_error(prog, "more than one input file ('%s' and '%s')", job.in_path, argv[i]);
            return APP_EXIT_USAGE;
        }
        job.in_path = argv[i];
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
    if (!check && same_paths(&job, in_place)) return APP_EXIT_USAGE;
    if (segments_path && rs_segments_check_options(&job, check) != APP_EXIT_OK) return APP_EXIT_USAGE;
    size_t mem_limit = 0;
    if (mem_limit_s) {
        uint64_t v = 0;
        if (app_parse_u64(mem_limit_s, 1, UINT64_MAX, &v, err, sizeof err)) {
            app_error(prog, "%s: %s", mem_limit_src, err);
            return APP_EXIT_USAGE;
        }
        mem_limit = (size_t)v;
    }

    /* The GPU's context is created on a thread while the inputs are
       checked and read (cli.h); --timing shows it as "gpu init". */
    app_timing_t tm;
    app_timing_init(&tm, timing);
    /* One stream sorts on one GPU; NCCL's --gpus keeps the driver's queues. */
    if (!job.gpus) app_gpu_streams(1);
    if (job.gpus && !check) {
        /* Decided from the options alone, before the GPUs are started. */
        if (device == APP_DEVICE_CPU) {
            app_error(prog, "--gpus and --device cpu contradict each other");
            return APP_EXIT_USAGE;
        }
        if (segments_path) {
            app_error(prog, "--gpus and --segments cannot be combined (the segmented sort runs on one GPU)");
            return APP_EXIT_USAGE;
        }
        if (rs_gpus_check_built(prog, job.gpus) != APP_EXIT_OK) return APP_EXIT_USAGE;
        rs_gpus_start(job.gpus); /* the GPUs and NCCL come up while the input is read */
    } else if (!check) {
        app_gpu_warm_start(device);
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
    if (job.gpus) {
        job.use_gpu = true;
        /* The host path; its sort goes through rs_gpus.c, which reports a
           missing GPU there (exit 2, nothing written). */
        const int rg = rs_sort_in_memory(&job, &tm);
        rs_gpus_finish(&tm);
        app_timing_print(&tm, prog);
        return rg;
    }
    uint64_t *seg_offsets = NULL;
    if (segments_path) {
        const int src = rs_segments_load(&job, segments_path, n, &seg_offsets, &job.seg_count);
        if (src != APP_EXIT_OK) return src;
        job.seg_offsets = seg_offsets;
    }

    app_device_t chosen = APP_DEVICE_CPU;
    int rc = app_choose_device(prog, device, &chosen);
    app_timing_gpu_init(&tm);
    if (rc != APP_EXIT_OK) {
        free(seg_offsets);
        return rc;
    }
    job.use_gpu = chosen == APP_DEVICE_GPU;
    if (!mem_limit) mem_limit = default_mem_limit(job.use_gpu);

    /* Bytes per key a sort in memory needs (the larger of device and host):
     * input, output and up to two alternate key buffers (argsort's temp), and
     * two u64 index buffers when values, argsort or unique need the
     * permutation; the look-back words add well under one byte per key. */
    const size_t ks = libscan_dtype_size(job.key);
    const bool need_idx = job.argsort || job.values_path || job.unique;
    const size_t per_key = 4 * ks + (need_idx ? 16 : 0) + 1;
    if (job.seg_offsets && n > mem_limit / per_key) {
        app_error(prog, "%s: %zu keys exceed the memory limit of %zu bytes, and --segments sorts in memory only",
                  job.in_path, n, mem_limit);
        rc = APP_EXIT_USAGE;
    } else if (n <= mem_limit / per_key) {
        rc = rs_sort_in_memory(&job, &tm);
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
    free(seg_offsets);
    return rc;
}
