/* compact_stream.h -- compact's work, streamed chunk by chunk in bounded
 * memory: read (threads, apps/common's read pipe) -> upload -> select
 * (libscan, GPU or CPU) -> download of what was kept -> append to the output
 * (threads, the write pipe), the stages overlapped, the running count and
 * position carried from chunk to chunk. A file of any size needs no buffer
 * of its size.
 *
 * Across chunk boundaries:
 *  - positions (--indices) are the chunk's own plus where the chunk starts;
 *  - --unique compares a chunk's first element with the previous chunk's
 *    last: that element is put in front of the chunk (the read pipe leaves
 *    room for it), and its own output, always kept, is dropped;
 *  - --partition's rejected elements go to an anonymous temporary file and
 *    are appended after the kept ones at the end;
 *  - a .npy output's header gives the count, known only at the end: it is
 *    written with room for any count and rewritten in place before the
 *    commit (array_io's ARR_COUNT_UNKNOWN); where the output cannot seek
 *    (standard output, a FIFO) the kept elements wait in a temporary file
 *    and the header goes first once the count is known.
 *
 * The chunk size is apps/common's (LIBSCAN_STREAM_CHUNK, stream_io.h). */
#ifndef COMPACT_STREAM_H
#define COMPACT_STREAM_H

#include <stdbool.h>
#include <stddef.h>

#include "common/array_io.h"
#include "common/cli.h"
#include "common/stream_io.h"
#include <libscan/compact.h>

typedef enum { CRIT_NONE, CRIT_PRED, CRIT_FLAGS, CRIT_UNIQUE } criterion_t;

typedef struct compact_job {
    const char *prog;
    const char *out;           /* NULL: --count, no output */
    arr_format_t out_format;
    criterion_t crit;
    libscan_pred_t pred;       /* CRIT_PRED */
    libscan_dtype_t dtype;     /* of the input */
    bool partition, indices, quiet, gpu;
} compact_job_t;

/* Chunks in flight on the GPU at once, each on its own stream with its own
 * buffers: chunk i's upload runs while chunk i-1 is selected and chunk i-2
 * downloaded, on the GPU's separate copy engines, instead of each chunk's
 * upload, select and download waiting on each other (measured on the H100:
 * 0.74 ms a 4 MiB chunk one at a time). Also the streams main.c tells
 * app_gpu_streams(). */
#define COMPACT_GPU_LANES 3

/* Compacts src (and, with CRIT_FLAGS, the flags file fsrc of the same
 * count, any integer dtype) into job->out. *kept: the number kept. Returns
 * an exit code; an error is printed as one line and leaves no output. */
int compact_stream_run(const compact_job_t *job, app_src_t *src, app_src_t *fsrc, size_t *kept, app_timing_t *tm);

#endif
