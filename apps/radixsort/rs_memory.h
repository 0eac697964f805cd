/* rs_memory.h -- radixsort of an input that fits in memory (the GPU's, or
 * the host's on the CPU path), with the file I/O of apps/common's
 * stream_io.h.
 *
 * Keys alone on the GPU (the common case): the file is read by several
 * threads into a ring of pinned buffers and each chunk is uploaded as soon as
 * it is in, so reading overlaps uploading; the keys are sorted on the device
 * (libscan_sort); then each chunk is downloaded into a pinned buffer and
 * written by several threads at its offset in the output, so downloading
 * overlaps writing. Host memory: the ring only, a few MiB per thread.
 *
 * Everything else (the CPU path, --values, --argsort, --unique, int8/int16
 * keys that are widened): the whole file is read by several threads into
 * host memory, sorted there (rs_sort_host, on the GPU or the CPU), and the
 * outputs are written by several threads. Text files take array_io's
 * sequential reader and writer in both cases. */
#ifndef RS_MEMORY_H
#define RS_MEMORY_H

#include "common/cli.h"
#include "radixsort_chunked.h"

/* Sorts job->in_path into the outputs. Returns an exit code (the error
 * printed as one line). */
int rs_sort_in_memory(const rs_job_t *job, app_timing_t *tm);

#endif
