/* entry.c -- the one entry path (entry.h): buffer checks, caller temp or the
 * temp cache, plan, launch, release. Every public GPU call of every family
 * ends in libscan__enter(). */
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <cuda.h>
#include "entry.h"
#include "pool.h"
#include "libscan/cuda/driver_entry.h"

libscan_status_t libscan__cuda_status(cudaError_t e) {
    if (e == cudaSuccess) return LIBSCAN_SUCCESS;
    (void)cudaGetLastError(); /* consumed: the caller's next CUDA call starts clean */
    return e == cudaErrorMemoryAllocation ? LIBSCAN_ERROR_OUT_OF_MEMORY : LIBSCAN_ERROR_CUDA;
}

size_t libscan__with_slack(size_t bytes) { return bytes ? bytes + LIBSCAN_TEMP_ALIGNMENT : 0; }

int libscan__ranges_overlap(const void *a, size_t a_bytes, const void *b, size_t b_bytes) {
    if (!a || !b || !a_bytes || !b_bytes) return 0;
    const uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return x <= y ? y - x < a_bytes : x - y < b_bytes;
}

/* The driver's cuPointerGetAttributes, or NULL: a one-attribute query costs
 * ~0.12 us of host time against ~0.18 us for cudaPointerGetAttributes (H100,
 * CUDA 13), and a call checks up to eight pointers. Unlike the singular
 * cuPointerGetAttribute it succeeds on memory CUDA does not know (type 0), so
 * rejecting a host pointer leaves no failed API call for compute-sanitizer to
 * report. Looked up once; a race only looks it up twice. */
typedef CUresult (*pointer_query_fn)(unsigned int, CUpointer_attribute *, void **, CUdeviceptr);
static pointer_query_fn driver_pointer_query(void) {
    static _Atomic(void *) fn;
    static atomic_int looked_up;
    if (!atomic_load_explicit(&looked_up, memory_order_acquire)) {
        atomic_store_explicit(&fn, libscan__driver_entry("cuPointerGetAttributes"), memory_order_relaxed);
        atomic_store_explicit(&looked_up, 1, memory_order_release);
    }
    return (pointer_query_fn)atomic_load_explicit(&fn, memory_order_relaxed);
}

libscan_status_t libscan__check_device_pointer(const void *p) {
    if (!p) return LIBSCAN_ERROR_INVALID_POINTER;
    /* Fast path: memory CUDA knows (device, managed, registered host). Anything
     * else -- plain host memory, no context yet -- takes the runtime's answer. */
    const pointer_query_fn query = driver_pointer_query();
    if (query) {
        CUpointer_attribute what = CU_POINTER_ATTRIBUTE_MEMORY_TYPE;
        unsigned int type = 0;
        void *value = &type;
        if (query(1, &what, &value, (CUdeviceptr)(uintptr_t)p) == CUDA_SUCCESS && type != 0) return LIBSCAN_SUCCESS;
    }
    struct cudaPointerAttributes attr;
    cudaError_t e = cudaPointerGetAttributes(&attr, p);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return e == cudaErrorInvalidValue ? LIBSCAN_ERROR_INVALID_POINTER : LIBSCAN_ERROR_CUDA;
    }
    if (attr.type != cudaMemoryTypeUnregistered) return LIBSCAN_SUCCESS;
    /* Plain host memory: reachable only where the device walks the host's page tables. */
    int device = 0, pageable = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, device) != cudaSuccess) {
        (void)cudaGetLastError();
        return LIBSCAN_ERROR_CUDA;
    }
    return pageable ? LIBSCAN_SUCCESS : LIBSCAN_ERROR_INVALID_POINTER;
}

void libscan__call_init(libscan__call_t *c, void *d_temp, size_t temp_bytes, size_t need) {
    memset(c, 0, sizeof *c);
    c->d_temp = d_temp;
    c->temp_bytes = temp_bytes;
    c->need = need;
}

int libscan__call_buf(libscan__call_t *c, const void *p, size_t bytes, size_t align, int writes, int same_as) {
    const int i = c->nbuf++;
    libscan__buf_t *b = &c->buf[i];
    b->p = bytes ? p : NULL;
    b->bytes = p ? bytes : 0;
    b->align = align;
    b->writes = writes;
    b->same_as = same_as;
    return i;
}

static libscan_status_t check_buffers(const libscan__call_t *c) {
    const libscan__buf_t *b = c->buf;
    for (int i = 0; i < c->nbuf; ++i)
        if (b[i].p && b[i].align > 1 && (uintptr_t)b[i].p % b[i].align) return LIBSCAN_ERROR_INVALID_POINTER;
    for (int i = 0; i < c->nbuf; ++i)
        for (int j = i + 1; j < c->nbuf; ++j) {
            if (!b[i].writes && !b[j].writes) continue; /* two readers may share bytes */
            const int in_place = (b[i].same_as == j || b[j].same_as == i) && b[i].p == b[j].p;
            if (!in_place && libscan__ranges_overlap(b[i].p, b[i].bytes, b[j].p, b[j].bytes))
                return LIBSCAN_ERROR_OVERLAP;
        }
    if (c->d_temp) {
        if (c->temp_bytes < c->need) return LIBSCAN_ERROR_TEMP_TOO_SMALL;
        for (int i = 0; i < c->nbuf; ++i)
            if (libscan__ranges_overlap(c->d_temp, c->temp_bytes, b[i].p, b[i].bytes)) return LIBSCAN_ERROR_OVERLAP;
    }
    for (int i = 0; i < c->nbuf; ++i) {
        if (!b[i].p) continue;
        int seen = 0;
        for (int j = 0; j < i && !seen; ++j) seen = b[j].p == b[i].p;
        if (seen) continue; /* in place: asked once */
        libscan_status_t st = libscan__check_device_pointer(b[i].p);
        if (st != LIBSCAN_SUCCESS) return st;
    }
    return LIBSCAN_SUCCESS;
}

libscan_status_t libscan__enter(libscan__call_t *c, cudaStream_t stream) {
    if (!c->d_temp && c->temp_bytes) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    libscan_status_t st = check_buffers(c);
    if (st != LIBSCAN_SUCCESS) return st;

    int uses_temp = c->need > 0;
    if (c->plan) {
        st = c->plan(c->ctx, stream, &uses_temp);
        if (st != LIBSCAN_SUCCESS) return st;
        uses_temp = uses_temp && c->need > 0;
    }
    if (c->empty) return LIBSCAN_SUCCESS;

    void *temp = NULL;
    size_t temp_bytes = 0;
    libscan__temp_t cached = {NULL, 0, 0, -1};
    if (uses_temp && c->d_temp) {
        st = libscan__check_device_pointer(c->d_temp);
        if (st != LIBSCAN_SUCCESS) return st;
        const uintptr_t p = (uintptr_t)c->d_temp;
        const uintptr_t aligned = (p + LIBSCAN_TEMP_ALIGNMENT - 1) & ~(uintptr_t)(LIBSCAN_TEMP_ALIGNMENT - 1);
        temp = (void *)aligned;
        temp_bytes = c->temp_bytes - (size_t)(aligned - p); /* need includes the slack */
    } else if (uses_temp) {
        st = libscan__temp_take(c->need, stream, &cached);
        if (st != LIBSCAN_SUCCESS) return st;
        temp = cached.ptr;
        temp_bytes = cached.bytes;
    }
    const libscan_status_t launched = libscan__cuda_status(c->launch(c->ctx, temp, temp_bytes, stream));
    const libscan_status_t given = libscan__temp_give(&cached, stream);
    return launched != LIBSCAN_SUCCESS ? launched : given;
}
