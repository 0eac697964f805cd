/* checks.c -- argument checks shared by the public entry points. */
#include <stdint.h>
#include "internal.h"

/* [a, a+na) and [b, b+nb) share a byte. */
int libscan__overlaps(const void *a, size_t na, const void *b, size_t nb) {
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return na && nb && x < y + nb && y < x + na;
}

/* SUCCESS if the device can dereference p. */
libscan_status_t libscan__check_accessible(const void *p) {
    struct cudaPointerAttributes attr;
    cudaError_t e = cudaPointerGetAttributes(&attr, p);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return e == cudaErrorInvalidValue ? LIBSCAN_ERROR_INVALID_POINTER : LIBSCAN_ERROR_CUDA;
    }
    if (attr.type != cudaMemoryTypeUnregistered) return LIBSCAN_SUCCESS;
    int device = 0, pageable = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, device) != cudaSuccess) {
        (void)cudaGetLastError();
        return LIBSCAN_ERROR_CUDA;
    }
    return pageable ? LIBSCAN_SUCCESS : LIBSCAN_ERROR_INVALID_POINTER;
}


libscan_status_t libscan__temp_acquire(void *d_temp, size_t temp_bytes, size_t need, cudaStream_t stream,
                                       libscan__temp_t *t) {
    t->owned = NULL;
    t->ptr = d_temp;
    t->bytes = temp_bytes;
    if (!d_temp) {
        if (!need) return LIBSCAN_SUCCESS;
        cudaError_t e = cudaMallocAsync(&t->owned, need, stream);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            return e == cudaErrorMemoryAllocation ? LIBSCAN_ERROR_OUT_OF_MEMORY : LIBSCAN_ERROR_CUDA;
        }
        t->ptr = t->owned;
        t->bytes = need;
    }
    uintptr_t p = (uintptr_t)t->ptr, aligned = (p + LIBSCAN__TEMP_ALIGN - 1) & ~(uintptr_t)(LIBSCAN__TEMP_ALIGN - 1);
    t->bytes = t->bytes > (size_t)(aligned - p) ? t->bytes - (size_t)(aligned - p) : 0;
    t->ptr = (void *)aligned;
    return LIBSCAN_SUCCESS;
}

cudaError_t libscan__temp_release(libscan__temp_t *t, cudaStream_t stream) {
    if (!t->owned) return cudaSuccess;
    cudaError_t e = cudaFreeAsync(t->owned, stream);
    t->owned = NULL;
    return e;
}
