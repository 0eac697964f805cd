/* cpu_compact.h -- a stable compaction on the CPU's threads, written once for
 * compact.h's libscan_cpu_* functions and sort.h's libscan_cpu_sort_unique.
 * Not installed.
 *
 * The family says how to decide and copy a range of items (stage); this
 * file cuts the input into blocks, runs them on a team of threads
 * (cpu_threads.h) and puts every block's output at its place. The scheme is
 * the GPU's single-pass look-back on the CPU: a thread claims the next
 * block, stages its kept (and rejected) items into a buffer of its own that
 * stays in cache, waits for the block before it to publish how many items
 * were kept before it, publishes its own running total, and copies its
 * items out. The input is read once, nothing waits at a barrier, and the
 * output is in input order whatever the threads' timing.
 *
 * In place (kept output == input): a block publishes only after it has read
 * all its input, and a block writes only after its predecessor published, so
 * no write reaches input a block has yet to read; the one item a block reads
 * before its range (item begin - 1, for unique) can only be rewritten by the
 * block before it, with itself, and such a copy -- every item kept, output
 * at its own input position -- is skipped. */
#ifndef LIBSCAN_CORE_CPU_COMPACT_H
#define LIBSCAN_CORE_CPU_COMPACT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Items per block: a thread's staging area (lanes x block x item bytes, at
 * most 2 x 8192 x 8 = 128 KiB) stays in its core's L2. */
#define LIBSCAN__CPU_COMPACT_BLOCK ((size_t)8192)

/* What a lane of output receives. */
typedef enum libscan__lane_kind { LIBSCAN__LANE_KEPT = 0, LIBSCAN__LANE_REJECTED = 1 } libscan__lane_kind_t;

/* Decides items [begin, end) of the input and writes them to the lanes:
 * the j-th kept item of the range to each kept lane at lanes[l] + j *
 * lane_bytes[l], the j-th rejected one to each rejected lane likewise.
 * It may write the slot after the last item of a lane (up to end - begin
 * items per lane), so a branch-free loop can store every item. Returns the
 * number kept; *rejected = the number rejected. With begin > 0 it may read
 * item begin - 1 of the input (never anything else outside the range). */
typedef size_t (*libscan__stage_fn)(void *ctx, size_t begin, size_t end, void *const lanes[2], size_t *rejected);

typedef struct libscan__cpu_compact_job {
    size_t count;                   /* items */
    unsigned lanes;                 /* 1 or 2 */
    size_t lane_bytes[2];           /* bytes of one item in each lane */
    libscan__lane_kind_t kind[2];
    void *out[2];                   /* each lane's output array */
    int kept_in_place;              /* the kept lanes' outputs are the arrays stage() reads */
    libscan__stage_fn stage;
    void *ctx;
} libscan__cpu_compact_job_t;

/* Runs the job on libscan__cpu_threads(count, ...) threads and returns the
 * number of items kept. Never fails: without memory for staging areas or
 * threads it runs on the calling thread with a small staging area on its
 * stack. */
size_t libscan__cpu_compact(const libscan__cpu_compact_job_t *job);

#ifdef __cplusplus
}
#endif
#endif
