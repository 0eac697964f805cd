/* cpu_compact.c -- see cpu_compact.h. */
#include "cpu_compact.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu_threads.h"

/* Fewer items than this per thread are not worth a thread's start. */
#define GRAIN (8 * LIBSCAN__CPU_COMPACT_BLOCK)
/* Items per lane of the staging area on the stack, when malloc fails. */
#define STACK_ITEMS 256

typedef struct shared {
    const libscan__cpu_compact_job_t *job;
    size_t blocks;
    atomic_size_t next;  /* the next block to claim */
    atomic_size_t *done; /* per block: items kept through it, plus 1; 0 until published. NULL: one thread */
    size_t serial_kept;  /* one thread: items kept so far */
} shared_t;

static inline void cpu_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Items kept before block b: published by block b - 1, which was claimed
 * before b and so is being worked on. On cores of its own the wait is
 * short (that block was staged at the same time), so it spins first; then
 * it yields, and then sleeps 20 us at a time, so that on a machine with
 * more threads than free cores the thread it waits for gets the core and
 * the waiter burns no CPU while that thread is descheduled. */
static size_t kept_before(shared_t *s, size_t b) {
    if (b == 0) return 0;
    if (!s->done) return s->serial_kept;
    size_t v;
    unsigned tries = 0;
    while ((v = atomic_load_explicit(&s->done[b - 1], memory_order_acquire)) == 0) {
        ++tries;
        if (tries < 64) {
            cpu_pause();
        } else if (tries < 128) {
            sched_yield();
        } else {
            const struct timespec nap = {0, 20000};
            nanosleep(&nap, NULL);
        }
    }
    return v - 1;
}

/* Release: everything block b read happens before a successor's writes. */
static void publish(shared_t *s, size_t b, size_t kept_through) {
    if (s->done) atomic_store_explicit(&s->done[b], kept_through + 1, memory_order_release);
    else s->serial_kept = kept_through;
}

/* Copies the staged items of [begin, begin + items) to their places. */
static void emit(const libscan__cpu_compact_job_t *job, void *const stage[2], size_t begin, size_t items, size_t kept,
                 size_t rejected, size_t kept_at, size_t rejected_at) {
    for (unsigned l = 0; l < job->lanes; ++l) {
        const int kept_lane = job->kind[l] == LIBSCAN__LANE_KEPT;
        const size_t n = kept_lane ? kept : rejected, at = kept_lane ? kept_at : rejected_at;
        if (n == 0) continue;
        /* In place, all kept, at its own position: the copy would rewrite the
         * items with themselves (and could race with the next block's read
         * of item begin + items - 1; see cpu_compact.h). */
        if (kept_lane && job->kept_in_place && at == begin && n == items) continue;
        memcpy((unsigned char *)job->out[l] + at * job->lane_bytes[l], stage[l], n * job->lane_bytes[l]);
    }
}

/* One block, staged `cap` items at a time. The first piece waits for the
 * count before the block; the last publishes the count through it before
 * its copy, so the next block can start copying while this one does. */
static void run_block(shared_t *s, size_t b, void *const stage[2], size_t cap) {
    const libscan__cpu_compact_job_t *job = s->job;
    const size_t begin = b * LIBSCAN__CPU_COMPACT_BLOCK;
    const size_t end = job->count - begin < LIBSCAN__CPU_COMPACT_BLOCK ? job->count : begin + LIBSCAN__CPU_COMPACT_BLOCK;
    size_t before = 0, kept = 0, rejected = 0;
    for (size_t pb = begin; pb < end; pb += cap) {
        const size_t pe = end - pb < cap ? end : pb + cap;
        size_t r = 0;
        const size_t k = job->stage(job->ctx, pb, pe, stage, &r);
        if (pb == begin) before = kept_before(s, b);
        if (pe == end) publish(s, b, before + kept + k);
        emit(job, stage, pb, pe - pb, k, r, before + kept, (begin - before) + rejected);
        kept += k;
        rejected += r;
    }
}

static void worker(void *ctx, libscan__team_t *team, unsigned t) {
    (void)team, (void)t;
    shared_t *s = ctx;
    const libscan__cpu_compact_job_t *job = s->job;
    uint64_t small[2][STACK_ITEMS];
    size_t bytes = 0;
    for (unsigned l = 0; l < job->lanes; ++l) bytes += job->lane_bytes[l] * LIBSCAN__CPU_COMPACT_BLOCK;
    unsigned char *heap = malloc(bytes);
    void *stage[2] = {small[0], small[1]};
    size_t cap = STACK_ITEMS;
    if (heap) {
        stage[0] = heap;
        stage[1] = heap + job->lane_bytes[0] * LIBSCAN__CPU_COMPACT_BLOCK;
        cap = LIBSCAN__CPU_COMPACT_BLOCK;
    }
    for (;;) {
        const size_t b = atomic_fetch_add_explicit(&s->next, 1, memory_order_relaxed);
        if (b >= s->blocks) break;
        run_block(s, b, stage, cap);
    }
    free(heap);
}

size_t libscan__cpu_compact(const libscan__cpu_compact_job_t *job) {
    if (job->count == 0) return 0;
    shared_t s;
    s.job = job;
    s.blocks = (job->count + LIBSCAN__CPU_COMPACT_BLOCK - 1) / LIBSCAN__CPU_COMPACT_BLOCK;
    atomic_init(&s.next, 0);
    s.serial_kept = 0;
    s.done = NULL;
    unsigned threads = libscan__cpu_threads(job->count, GRAIN);
    if (threads > 1) {
        /* All-zero bytes are the value 0 of a lock-free atomic_size_t on every
         * platform libscan builds for, so calloc's (lazily zeroed) pages need
         * no atomic_init loop over up to 2^27 slots. */
        s.done = calloc(s.blocks, sizeof(atomic_size_t));
        if (!s.done) threads = 1;
    }
    libscan__team_run(threads, worker, &s);
    if (!s.done) return s.serial_kept;
    const size_t kept = atomic_load_explicit(&s.done[s.blocks - 1], memory_order_relaxed) - 1;
    free(s.done);
    return kept;
}
