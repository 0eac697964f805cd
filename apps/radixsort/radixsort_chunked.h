/* radixsort_chunked.h -- sorting an array file larger than the memory limit:
 * sort chunks that fit (GPU or CPU), spill each sorted run to anonymous
 * temporary files (rs_runs.h), then merge the runs on every CPU thread
 * (rs_merge.h), streaming into the output writer(s). Reading the next chunk
 * and spilling the last overlap the chunk sort; reading the runs back and
 * writing the output overlap the merge. Ties between runs go to the earlier
 * run, so the result is the same stable sort as in memory. */
#ifndef RADIXSORT_CHUNKED_H
#define RADIXSORT_CHUNKED_H

#include <stdbool.h>
#include <stddef.h>
#include "common/array_io.h"
#include "common/cli.h"
#include <libscan/sort.h>

typedef struct rs_job {
    const char *prog;
    const char *in_path, *values_path; /* values_path NULL: keys only */
    const char *out_path, *values_out_path;
    arr_format_t in_format, out_format;
    arr_dtype_t raw_dtype;
    libscan_dtype_t key;        /* sort type of the keys in memory */
    arr_dtype_t key_file_dtype; /* the file's dtype (i8/i16 are widened to i32) */
    bool descending, unique, argsort, use_gpu, quiet;
    size_t chunk;               /* keys per chunk */
    const uint64_t *seg_offsets; /* --segments: seg_count + 1 checked offsets (rs_segments.h), else NULL */
    size_t seg_count;
    int gpus;                   /* --gpus N: sort across N GPUs (rs_gpus.h); 0: one GPU or the CPU */
} rs_job_t;

/* Widening of narrow signed keys: i8/i16 -> i32 in place in buf (room for n
 * int32), and back. Other dtypes: no-op. */
void rs_widen(arr_dtype_t file_dtype, void *buf, size_t n);
void rs_narrow(arr_dtype_t file_dtype, void *buf, size_t n);

/* Sorts keys[0..n) in host memory (with u64 payload indices when idx is not
 * NULL) on the GPU or CPU. Returns 0, or an exit code with the error printed.
 * The copies to and from the GPU run at full speed where keys and idx are
 * page-locked (host_mem.h's app_hostbuf_register). */
int rs_sort_host(const rs_job_t *job, void *keys, uint64_t *idx, size_t n);

/* The GPU's buffers of rs_sort_host_dev, kept from one chunk to the next
 * (zeroed to start; rs_dev_free at the end). */
typedef struct rs_dev {
    void *d_in, *d_out, *d_idx;
    size_t cap; /* keys they hold */
} rs_dev_t;

/* rs_sort_host with device buffers reused across calls (grown when a call
 * needs more). */
int rs_sort_host_dev(const rs_job_t *job, rs_dev_t *d, void *keys, uint64_t *idx, size_t n);
void rs_dev_free(rs_dev_t *d);

/* Runs the chunk-and-merge sort of the job. Returns an exit code (errors
 * printed as one line). */
int rs_sort_chunked(const rs_job_t *job, app_timing_t *timing);

#endif
