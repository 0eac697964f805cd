/* pool.c -- libscan's temp cache (pool.h; public calls in libscan.h, "The temp
 * cache"). One process-wide lock guards every device's slots: the hit path
 * holds it for a table lookup only, and only growth, eviction-free misses and
 * the release call allocate or free under it. */
#include <pthread.h>
#include <stdint.h>
#include "entry.h"
#include "pool.h"

#define MAX_DEVICES 64
#define SLOTS 64 /* streams per device whose blocks are kept */

typedef struct slot {
    unsigned long long stream_id;
    void *block;
    size_t bytes;
    int used; /* holds a stream's block */
    int busy; /* handed to a call that has not given it back yet */
} slot_t;

typedef struct cache {
    int ready;
    cudaMemPool_t pool;
    size_t limit;  /* most bytes the slots may hold together */
    size_t cached; /* bytes the slots hold */
    slot_t slot[SLOTS];
} cache_t;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static cache_t caches[MAX_DEVICES];

/* The device's cache, its pool created on first use (lock held). The pool's
 * release threshold stays at CUDA's default of 0: memory the slots do not
 * hold goes back to the driver at the next synchronisation, so the pool never
 * keeps more than the cache. */
static libscan_status_t cache_for(int device, cache_t **out) {
    if (device < 0 || device >= MAX_DEVICES) return LIBSCAN_ERROR_CUDA;
    cache_t *c = &caches[device];
    if (!c->ready) {
        struct cudaMemPoolProps props = {0};
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = device;
        size_t free_bytes = 0, total = 0;
        cudaError_t e = cudaMemPoolCreate(&c->pool, &props);
        /* cudaMemGetInfo, not cudaGetDeviceProperties: the latter costs
         * milliseconds, all of it in the first call without temp. */
        if (e == cudaSuccess) e = cudaMemGetInfo(&free_bytes, &total);
        if (e != cudaSuccess) return libscan__cuda_status(e);
        c->limit = total / 4;
        c->ready = 1;
    }
    *out = c;
    return LIBSCAN_SUCCESS;
}

static libscan_status_t pool_alloc(cache_t *c, size_t bytes, cudaStream_t stream, void **p) {
    cudaError_t e = cudaMallocFromPoolAsync(p, bytes, c->pool, stream);
    if (e == cudaSuccess) return LIBSCAN_SUCCESS;
    *p = NULL;
    return libscan__cuda_status(e);
}

libscan_status_t libscan__temp_take(size_t need, cudaStream_t stream, libscan__temp_t *t) {
    t->ptr = NULL;
    t->bytes = 0;
    t->slot = -1;
    enum cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    unsigned long long id = 0;
    cudaError_t e = cudaGetDevice(&t->device);
    if (e == cudaSuccess) e = cudaStreamIsCapturing(stream, &capture);
    if (e == cudaSuccess && capture == cudaStreamCaptureStatusNone) e = cudaStreamGetId(stream, &id);
    if (e != cudaSuccess) return libscan__cuda_status(e);

    /* A graph must own its temp: a cached block could be released while the
     * graph still refers to it. cudaMallocAsync under capture adds an
     * allocation node whose memory the graph owns (no pool's memory, and no
     * pool is created or changed: creating one is not allowed in every
     * capture mode). */
    if (capture != cudaStreamCaptureStatusNone) {
        e = cudaMallocAsync(&t->ptr, need, stream);
        if (e != cudaSuccess) {
            t->ptr = NULL;
            return libscan__cuda_status(e);
        }
        t->bytes = need;
        return LIBSCAN_SUCCESS;
    }

    pthread_mutex_lock(&lock);
    cache_t *c = NULL;
    libscan_status_t st = cache_for(t->device, &c);
    if (st != LIBSCAN_SUCCESS) goto done;

    slot_t *mine = NULL, *free_slot = NULL;
    for (int i = 0; i < SLOTS && !mine; ++i) {
        slot_t *s = &c->slot[i];
        if (s->used && s->stream_id == id) mine = s;
        else if (!s->used && !free_slot) free_slot = s;
    }
    if (mine && mine->busy) goto transient; /* the same stream from two threads at once */
    if (mine && mine->bytes >= need) {
        mine->busy = 1;
        t->ptr = mine->block;
        t->slot = (int)(mine - c->slot);
        goto done;
    }
    slot_t *s = mine ? mine : free_slot;
    const size_t others = c->cached - (mine ? mine->bytes : 0);
    if (!s || others > c->limit || need > c->limit - others) goto transient;
    if (mine) { /* grow: the old block is freed in stream order, behind its last use */
        e = cudaFreeAsync(mine->block, stream);
        c->cached -= mine->bytes;
        mine->used = 0;
        mine->block = NULL;
        mine->bytes = 0;
        if (e != cudaSuccess) {
            st = libscan__cuda_status(e);
            goto done;
        }
    }
    st = pool_alloc(c, need, stream, &s->block);
    if (st != LIBSCAN_SUCCESS) goto done;
    s->stream_id = id;
    s->bytes = need;
    s->used = 1;
    s->busy = 1;
    c->cached += need;
    t->ptr = s->block;
    t->slot = (int)(s - c->slot);
    goto done;

transient:
    st = pool_alloc(c, need, stream, &t->ptr);
done:
    pthread_mutex_unlock(&lock);
    if (st == LIBSCAN_SUCCESS) t->bytes = need;
    return st;
}

libscan_status_t libscan__temp_give(libscan__temp_t *t, cudaStream_t stream) {
    if (!t->ptr) return LIBSCAN_SUCCESS;
    if (t->slot >= 0) {
        pthread_mutex_lock(&lock);
        caches[t->device].slot[t->slot].busy = 0;
        pthread_mutex_unlock(&lock);
    } else {
        cudaError_t e = cudaFreeAsync(t->ptr, stream);
        if (e != cudaSuccess) return libscan__cuda_status(e);
    }
    t->ptr = NULL;
    return LIBSCAN_SUCCESS;
}

/* ---- public (libscan.h) ------------------------------------------------------ */

libscan_status_t libscan_temp_cache_release(void) {
    int current = 0;
    cudaError_t e = cudaGetDevice(&current);
    if (e != cudaSuccess) return libscan__cuda_status(e);
    libscan_status_t st = LIBSCAN_SUCCESS;
    pthread_mutex_lock(&lock);
    for (int d = 0; d < MAX_DEVICES && st == LIBSCAN_SUCCESS; ++d) {
        cache_t *c = &caches[d];
        if (!c->ready) continue;
        /* The blocks' last users may be on any stream, some since destroyed:
         * only a device-wide wait makes them free to go. */
        e = cudaSetDevice(d);
        if (e == cudaSuccess) e = cudaDeviceSynchronize();
        for (int i = 0; i < SLOTS && e == cudaSuccess; ++i) {
            slot_t *s = &c->slot[i];
            if (!s->used || s->busy) continue; /* a call in flight keeps its block */
            e = cudaFreeAsync(s->block, 0);
            c->cached -= s->bytes;
            s->used = 0;
            s->block = NULL;
            s->bytes = 0;
        }
        if (e == cudaSuccess) e = cudaStreamSynchronize(0);
        if (e == cudaSuccess) e = cudaMemPoolTrimTo(c->pool, 0);
        if (e != cudaSuccess) st = libscan__cuda_status(e);
    }
    pthread_mutex_unlock(&lock);
    e = cudaSetDevice(current);
    if (e != cudaSuccess && st == LIBSCAN_SUCCESS) st = libscan__cuda_status(e);
    return st;
}

libscan_status_t libscan_temp_cache_set_limit(size_t bytes) {
    int device = 0;
    cudaError_t e = cudaGetDevice(&device);
    if (e != cudaSuccess) return libscan__cuda_status(e);
    pthread_mutex_lock(&lock);
    cache_t *c = NULL;
    libscan_status_t st = cache_for(device, &c);
    if (st == LIBSCAN_SUCCESS) c->limit = bytes;
    pthread_mutex_unlock(&lock);
    return st;
}

libscan_status_t libscan_temp_cache_info(size_t *cached_bytes, size_t *pool_bytes, size_t *limit_bytes) {
    int device = 0;
    cudaError_t e = cudaGetDevice(&device);
    if (e != cudaSuccess) return libscan__cuda_status(e);
    pthread_mutex_lock(&lock);
    cache_t *c = NULL;
    libscan_status_t st = cache_for(device, &c);
    uint64_t reserved = 0;
    if (st == LIBSCAN_SUCCESS) {
        e = cudaMemPoolGetAttribute(c->pool, cudaMemPoolAttrReservedMemCurrent, &reserved);
        if (e != cudaSuccess) st = libscan__cuda_status(e);
    }
    if (st == LIBSCAN_SUCCESS) {
        if (cached_bytes) *cached_bytes = c->cached;
        if (pool_bytes) *pool_bytes = (size_t)reserved;
        if (limit_bytes) *limit_bytes = c->limit;
    }
    pthread_mutex_unlock(&lock);
    return st;
}
