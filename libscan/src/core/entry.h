/* entry.h -- the one entry path of every public GPU call, whatever its family
 * (scan, segmented scan, sort, compaction, SAT). Not installed.
 *
 * A public function checks what only it understands (enums, NULLs, counts,
 * its own option values), then describes the call in a libscan__call_t: the
 * buffers it reads and writes, the caller's temp, the temp it needs, and two
 * callbacks. libscan__enter() does the rest, always in this order:
 *
 *   1. validate  d_temp NULL with temp_bytes != 0; each buffer's alignment;
 *                overlaps (a written buffer may share no byte with any other
 *                buffer, except that it may equal exactly the one it names in
 *                same_as: in place); the caller's temp size, then its overlaps;
 *                then every buffer is device memory (the only check that asks
 *                CUDA; an exact duplicate is asked once).
 *   2. plan      the family's plan(): what the call will launch, and whether it
 *                touches its temp at all; caller temp is checked to be device
 *                memory only when it is used.
 *   3. temp      the caller's, aligned up to LIBSCAN_TEMP_ALIGNMENT, or the
 *                temp cache's (pool.h).
 *   4. launch    the family's launch(), then any launch error is consumed.
 *   5. release   the cache's temp goes back, stream-ordered.
 *
 * Nothing is launched unless every check passed, so an error other than
 * LIBSCAN_ERROR_CUDA (and OUT_OF_MEMORY from step 3) leaves every buffer as it
 * was. */
#ifndef LIBSCAN_CORE_ENTRY_H
#define LIBSCAN_CORE_ENTRY_H

#include <stddef.h>
#include "libscan/libscan.h"
#include "core/sibling.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LIBSCAN__MAX_BUFS 8

typedef struct libscan__buf {
    const void *p; /* NULL, or bytes == 0: no buffer (never checked) */
    size_t bytes;  /* the bytes the call may touch from p */
    size_t align;  /* p must be a multiple of this (1 or 0: any) */
    int writes;    /* the call writes it: it may overlap nothing else */
    int same_as;   /* index of a buffer p may equal exactly (in place), or -1 */
} libscan__buf_t;

typedef struct libscan__call {
    libscan__buf_t buf[LIBSCAN__MAX_BUFS];
    int nbuf;
    void *d_temp;      /* the caller's options */
    size_t temp_bytes;
    size_t need;       /* the family's *_temp_bytes() for this call, slack included */
    int empty;         /* nonzero: check (and plan) only, launch nothing */
    /* Optional (NULL: uses temp iff need > 0). Runs after the checks; sets
     * *uses_temp, or returns an error that ends the call before any launch. */
    libscan_status_t (*plan)(void *ctx, cudaStream_t stream, int *uses_temp);
    /* Enqueues the work. temp is 256-byte aligned with temp_bytes usable
     * bytes, or NULL/0 where plan() said temp is not used. */
    cudaError_t (*launch)(void *ctx, void *temp, size_t temp_bytes, cudaStream_t stream);
    void *ctx;
} libscan__call_t;

/* An empty call description with the caller's temp (opts may be NULL). */
LIBSCAN__SIBLING void libscan__call_init(libscan__call_t *c, void *d_temp, size_t temp_bytes, size_t need);

/* Appends a buffer; returns its index (for same_as). */
LIBSCAN__SIBLING int libscan__call_buf(libscan__call_t *c, const void *p, size_t bytes, size_t align, int writes, int same_as);

/* Steps 1-5 above. */
LIBSCAN__SIBLING libscan_status_t libscan__enter(libscan__call_t *c, cudaStream_t stream);

/* A temp size with the alignment slack every *_temp_bytes() adds (0 stays 0). */
LIBSCAN__SIBLING size_t libscan__with_slack(size_t bytes);

/* Whether the current device can dereference p (device, managed, mapped or
 * registered host memory; pageable host memory where the device walks the
 * host's page tables): SUCCESS, INVALID_POINTER or CUDA. */
libscan_status_t libscan__check_device_pointer(const void *p);

/* Whether [a, a + a_bytes) and [b, b + b_bytes) share a byte (NULL or empty
 * ranges never do). Differences, not sums, so nothing wraps. */
int libscan__ranges_overlap(const void *a, size_t a_bytes, const void *b, size_t b_bytes);

/* A CUDA error as a status, consumed with cudaGetLastError(). */
LIBSCAN__SIBLING libscan_status_t libscan__cuda_status(cudaError_t e);

#ifdef __cplusplus
}
#endif
#endif
