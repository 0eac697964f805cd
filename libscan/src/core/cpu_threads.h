/* cpu_threads.h -- the threads of the CPU path (libscan_cpu_* of sort.h and
 * compact.h): how many to use, and a team that runs one function on that
 * many threads with a barrier between its phases. Not installed.
 *
 * Why a team and not a pool: the CPU calls are synchronous and run for
 * milliseconds to seconds on inputs large enough to be split (small inputs
 * stay on the calling thread, which creates nothing), so creating the
 * threads per call costs a few tens of microseconds against that, and the
 * library keeps no threads alive between calls and needs no shutdown. */
#ifndef LIBSCAN_CORE_CPU_THREADS_H
#define LIBSCAN_CORE_CPU_THREADS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The most threads one call uses, whatever LIBSCAN_CPU_THREADS says. */
#define LIBSCAN__CPU_MAX_THREADS 256u

/* How many threads a call over `items` items should use:
 *   LIBSCAN_CPU_THREADS=N (a decimal whole number >= 1) in the environment:
 *     N, capped at LIBSCAN__CPU_MAX_THREADS and at `items` (at least 1), so a
 *     test can force several threads onto small inputs;
 *   otherwise (unset, empty or not such a number): the CPUs this process may
 *     run on (its affinity mask; the online CPUs where that is unknown), and
 *     no more than one per `grain` items, so inputs under 2 * grain stay on
 *     the calling thread.
 * Read on every call (tests change it between calls); always >= 1. */
unsigned libscan__cpu_threads(size_t items, size_t grain);

typedef struct libscan__team libscan__team_t;

/* The function a team runs: thread `t` of libscan__team_size(team) threads
 * (t = 0 is the calling thread). */
typedef void (*libscan__team_fn)(void *ctx, libscan__team_t *team, unsigned t);

/* Runs fn(ctx, team, t) on `threads` threads, t = 0 .. size-1, and returns
 * when all have returned. If the system refuses a thread, the team is
 * smaller (down to the calling thread alone): fn must read the team's size
 * from libscan__team_size(), never assume `threads`. Returns that size. */
unsigned libscan__team_run(unsigned threads, libscan__team_fn fn, void *ctx);

/* The number of threads running the team's function (fixed before any of
 * them starts). */
unsigned libscan__team_size(const libscan__team_t *team);

/* Waits until every thread of the team has called it; everything a thread
 * wrote before the barrier is visible to every thread after it. A no-op for
 * a team of one. */
void libscan__team_barrier(libscan__team_t *team);

/* Part `part` of `parts` equal, contiguous parts of [0, n): [*begin, *end).
 * The first n % parts parts hold one item more; a part may be empty. */
void libscan__split(size_t n, unsigned parts, unsigned part, size_t *begin, size_t *end);

#ifdef __cplusplus
}
#endif
#endif
