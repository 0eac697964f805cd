/* rs_segments.h -- radixsort --segments OFFSETS_FILE: every segment
 * [offsets[s], offsets[s+1]) of the keys is sorted on its own (libscan's
 * segmented sort, libscan_segmented_sort on the GPU and
 * libscan_cpu_segmented_sort on the CPU).
 *
 * The offsets file is any array file the program reads (.npy, text, raw
 * with --dtype; --format applies to it as to every file) of an integer
 * dtype, num_segments + 1 entries: 0 first, never decreasing, the key count
 * last. Keys, --values and --argsort (positions in the whole input) work as
 * without --segments; --unique and --check are refused, and so is an input
 * over the memory limit (the segmented sort runs in memory only). */
#ifndef RS_SEGMENTS_H
#define RS_SEGMENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "radixsort_chunked.h"

/* Refuses what does not combine with --segments (one line naming the
 * option). Returns APP_EXIT_OK or APP_EXIT_USAGE. */
int rs_segments_check_options(const rs_job_t *job, bool check);

/* Reads and checks the offsets file `path` against n keys; on success
 * *offsets (malloc'd) holds *num + 1 entries. Returns an exit code (the
 * error printed as one line naming the file). */
int rs_segments_load(const rs_job_t *job, const char *path, size_t n, uint64_t **offsets, size_t *num);

/* rs_sort_host() for a job with segments: sorts keys[0..n) segment by
 * segment (with the u64 input positions in idx when idx is not NULL), on
 * the GPU or the CPU. Returns 0, or an exit code with the error printed. */
int rs_segments_sort_host(const rs_job_t *job, void *keys, uint64_t *idx, size_t n);

#endif
