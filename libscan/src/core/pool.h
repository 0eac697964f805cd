/* pool.h -- temp storage for calls that bring none: libscan's own
 * stream-ordered memory pool per device and a cache of one block per stream
 * on top of it (the public side: libscan_temp_cache_* in libscan.h). Not
 * installed.
 *
 * Why a cache and not just the pool: a cudaMallocFromPoolAsync and
 * cudaFreeAsync pair costs about 1.6 us of host time per call, more than a
 * 2^20-element scan's whole margin; a block kept for the stream costs a
 * lookup. Work on one stream runs in order, so the next call on the same
 * stream may reuse the block as soon as it is enqueued. Streams are told
 * apart by cudaStreamGetId, which CUDA never reuses, not by their handle. */
#ifndef LIBSCAN_CORE_POOL_H
#define LIBSCAN_CORE_POOL_H

#include <stddef.h>
#include "libscan/libscan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct libscan__temp {
    void *ptr;    /* need bytes, 256-byte aligned (pool blocks are) */
    size_t bytes;
    int device;   /* the device whose cache or pool it came from */
    int slot;     /* the cache slot it belongs to, or -1: freed on release */
} libscan__temp_t;

/* need > 0 bytes for a call on `stream` (the current device's stream):
 * the stream's cached block when it is large enough and not in use by another
 * thread; else a new block, kept in the stream's slot while the cache stays
 * under its limit; else (no slot, over the limit) a block of the pool that
 * libscan__temp_give() frees; on a stream being captured, an allocation node
 * of the graph (cudaMallocAsync), freed by a free node. SUCCESS, OUT_OF_MEMORY or CUDA. */
libscan_status_t libscan__temp_take(size_t need, cudaStream_t stream, libscan__temp_t *t);

/* Gives back what libscan__temp_take() returned, after the call's work was
 * enqueued on `stream`. SUCCESS or CUDA. */
libscan_status_t libscan__temp_give(libscan__temp_t *t, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
