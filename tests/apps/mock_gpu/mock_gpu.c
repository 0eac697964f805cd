/* mock_gpu.c -- the stand-in GPU of mock_gpu.h, with the signatures of the
 * functions it stands in for. Built with MOCK_GPU_IMPL (no renaming): it
 * calls libscan's real CPU functions. Every "device" buffer is
 * filled with a poison byte when allocated, so a program that reads what it
 * never uploaded gets garbage, as on a real GPU. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include <libscan/compact.h>
#include <libscan/sort.h>
#include <stdio.h>

/* MOCK_GPU_FORBID=1: any call here is a defect of the caller -- a path that
   must not touch the GPU (--device cpu) did. On a real GPU machine even
   cudaFree(NULL) creates the CUDA context, 0.2-0.6 s (issue #21); on a
   machine without one such a call fails quietly, so only this can catch it. */
static void gpu_used(const char *fn) {
    if (getenv("MOCK_GPU_FORBID")) {
        fprintf(stderr, "mock_gpu: %s called with MOCK_GPU_FORBID set: this path must not use the GPU\n", fn);
        abort();
    }
}

cudaError_t mock_cudaGetDeviceCount(int *n) {
    gpu_used(__func__);
    *n = 1;
    return cudaSuccess;
}

cudaError_t mock_cudaFree(void *p) {
    gpu_used(__func__);
    free(p);
    return cudaSuccess;
}

cudaError_t mock_cudaMalloc(void **p, size_t bytes) {
    gpu_used(__func__);
    *p = malloc(bytes ? bytes : 1);
    if (!*p) return cudaErrorMemoryAllocation;
    memset(*p, 0xA7, bytes);
    return cudaSuccess;
}

cudaError_t mock_cudaHostAlloc(void **p, size_t bytes, unsigned int flags) {
    gpu_used(__func__);
    (void)flags;
    return mock_cudaMalloc(p, bytes);
}

cudaError_t mock_cudaFreeHost(void *p) { gpu_used(__func__); return mock_cudaFree(p); }

/* Registered memory is ordinary memory the GPU copies faster: nothing to do
   here, but the calls must pair (a count the programs cannot see). */
static long g_registered = 0;

cudaError_t mock_cudaHostRegister(void *p, size_t bytes, unsigned int flags) {
    gpu_used(__func__);
    (void)p;
    (void)bytes;
    (void)flags;
    __atomic_add_fetch(&g_registered, 1, __ATOMIC_SEQ_CST);
    return cudaSuccess;
}

cudaError_t mock_cudaHostUnregister(void *p) {
    gpu_used(__func__);
    (void)p;
    return __atomic_sub_fetch(&g_registered, 1, __ATOMIC_SEQ_CST) < 0 ? cudaErrorHostMemoryNotRegistered
                                                                         : cudaSuccess;
}

cudaError_t mock_cudaMemcpy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind) {
    gpu_used(__func__);
    (void)kind;
    memmove(dst, src, bytes);
    return cudaSuccess;
}

cudaError_t mock_cudaMemcpyAsync(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind, cudaStream_t s) {
    gpu_used(__func__);
    (void)s;
    return mock_cudaMemcpy(dst, src, bytes, kind);
}

cudaError_t mock_cudaMemGetInfo(size_t *free_bytes, size_t *total) {
    gpu_used(__func__);
    *free_bytes = (size_t)4 << 30;
    *total = (size_t)8 << 30;
    return cudaSuccess;
}

cudaError_t mock_cudaDeviceSynchronize(void) { gpu_used(__func__); return cudaSuccess; }
cudaError_t mock_cudaStreamSynchronize(cudaStream_t s) {
    gpu_used(__func__);
    (void)s;
    return cudaSuccess;
}

cudaError_t mock_cudaStreamCreateWithFlags(cudaStream_t *s, unsigned int flags) {
    gpu_used(__func__);
    (void)flags;
    *s = (cudaStream_t)(uintptr_t)0x5157;
    return cudaSuccess;
}

cudaError_t mock_cudaStreamDestroy(cudaStream_t s) {
    gpu_used(__func__);
    (void)s;
    return cudaSuccess;
}

libscan_status_t mock_libscan_sort(const void *d_keys_in, void *d_keys_out, const void *d_values_in, void *d_values_out,
                                   size_t count, libscan_dtype_t key, size_t value_bytes, const libscan_sort_opts_t *opts,
                                   cudaStream_t stream) {
    gpu_used(__func__);
    (void)stream;
    memmove(d_keys_out, d_keys_in, count * libscan_dtype_size(key));
    if (d_values_in) memmove(d_values_out, d_values_in, count * value_bytes);
    return libscan_cpu_sort(d_keys_out, d_values_in ? d_values_out : NULL, count, key, value_bytes, opts);
}

/* The result lands where the real call leaves it: in the other buffer after
   an odd number of passes, so a caller that ignores the selector reads the
   unsorted (here: poisoned) buffer. */
libscan_status_t mock_libscan_sort_double_buffer(libscan_double_buffer_t *buf, size_t count, libscan_dtype_t key,
                                                 size_t value_bytes, const libscan_sort_opts_t *opts,
                                                 cudaStream_t stream) {
    gpu_used(__func__);
    (void)stream;
    const int passes = libscan_sort_num_passes(key, opts ? opts->begin_bit : 0, opts ? opts->end_bit : 0);
    if (!buf || passes < 0) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    const int from = buf->selector, to = buf->selector ^ (passes & 1);
    const size_t ks = libscan_dtype_size(key);
    if (to != from) {
        memmove(buf->d_keys[to], buf->d_keys[from], count * ks);
        memset(buf->d_keys[from], 0xA7, count * ks);
        if (buf->d_values[from]) {
            memmove(buf->d_values[to], buf->d_values[from], count * value_bytes);
            memset(buf->d_values[from], 0xA7, count * value_bytes);
        }
    }
    libscan_status_t st = libscan_cpu_sort(buf->d_keys[to], buf->d_values[to], count, key, value_bytes, opts);
    if (st == LIBSCAN_SUCCESS) buf->selector = to;
    return st;
}

libscan_status_t mock_libscan_argsort(const void *d_keys_in, void *d_keys_out, void *d_indices, size_t count,
                                      libscan_dtype_t key, size_t index_bytes, const libscan_sort_opts_t *opts,
                                      cudaStream_t stream) {
    gpu_used(__func__);
    (void)stream;
    const size_t ks = libscan_dtype_size(key);
    void *keys = d_keys_out ? d_keys_out : malloc(count * ks + 1);
    if (!keys) return LIBSCAN_ERROR_OUT_OF_MEMORY;
    memmove(keys, d_keys_in, count * ks);
    libscan_status_t st = libscan_cpu_argsort(keys, d_indices, count, key, index_bytes, opts);
    if (!d_keys_out) free(keys);
    return st;
}

libscan_status_t mock_libscan_segmented_sort(const void *d_keys_in, void *d_keys_out, const void *d_values_in,
                                             void *d_values_out, size_t count, const uint64_t *d_offsets,
                                             size_t num_segments, libscan_dtype_t key, size_t value_bytes,
                                             const libscan_segsort_opts_t *opts, cudaStream_t stream) {
    gpu_used(__func__);
    (void)stream;
    memmove(d_keys_out, d_keys_in, count * libscan_dtype_size(key));
    if (d_values_in) memmove(d_values_out, d_values_in, count * value_bytes);
    return libscan_cpu_segmented_sort(d_keys_out, d_values_in ? d_values_out : NULL, count, d_offsets, num_segments,
                                      key, value_bytes, opts);
}

libscan_status_t mock_libscan_select_if(const void *d_in, void *d_out, size_t *d_num, size_t count,
                                        libscan_dtype_t dtype, const libscan_pred_t *pred,
                                        const libscan_compact_opts_t *opts, cudaStream_t stream) {
    gpu_used(__func__);
    (void)stream;
    return libscan_cpu_select_if(d_in, d_out, d_num, count, dtype, pred, opts);
}

libscan_status_t mock_libscan_select_flagged(const void *d_in, const unsigned char *d_flags, void *d_out, size_t *d_num,
                                             size_t count, libscan_dtype_t dtype, const libscan_compact_opts_t *opts,
                                             cudaStream_t stream) {
    gpu_used(__func__);
    (void)stream;
    return libscan_cpu_select_flagged(d_in, d_flags, d_out, d_num, count, dtype, opts);
}

libscan_status_t mock_libscan_partition_if(const void *d_in, void *d_out, void *d_rej, size_t *d_num, size_t count,
                                           libscan_dtype_t dtype, const libscan_pred_t *pred,
                                           const libscan_compact_opts_t *opts, cudaStream_t stream) {
    gpu_used(__func__);
    (void)stream;
    return libscan_cpu_partition_if(d_in, d_out, d_rej, d_num, count, dtype, pred, opts);
}

libscan_status_t mock_libscan_partition_flagged(const void *d_in, const unsigned char *d_flags, void *d_out,
                                                void *d_rej, size_t *d_num, size_t count, libscan_dtype_t dtype,
                                                const libscan_compact_opts_t *opts, cudaStream_t stream) {
    gpu_used(__func__);
    (void)stream;
    return libscan_cpu_partition_flagged(d_in, d_flags, d_out, d_rej, d_num, count, dtype, opts);
}

libscan_status_t mock_libscan_unique(const void *d_in, void *d_out, size_t *d_num, size_t count, libscan_dtype_t dtype,
                                     const libscan_compact_opts_t *opts, cudaStream_t stream) {
    gpu_used(__func__);
    (void)stream;
    return libscan_cpu_unique(d_in, d_out, d_num, count, dtype, opts);
}
