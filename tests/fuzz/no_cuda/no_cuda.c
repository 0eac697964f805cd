/* no_cuda.c -- the stand-in CUDA runtime of the fuzz build (see
 * cuda_runtime_api.h in this folder): there is never a device. */
#include <cuda_runtime_api.h>

#include <stddef.h>

cudaError_t cudaGetDeviceCount(int *count) {
    if (count) *count = 0;
    return cudaErrorNoDevice;
}

cudaError_t cudaFree(void *ptr) {
    (void)ptr;
    return cudaErrorNoDevice;
}

cudaError_t cudaGetLastError(void) { return cudaSuccess; }

const char *cudaGetErrorName(cudaError_t error) {
    return error == cudaSuccess ? "cudaSuccess" : "cudaErrorNoDevice";
}

const char *cudaGetErrorString(cudaError_t error) {
    return error == cudaSuccess ? "no error" : "no CUDA runtime in this build (libscan's host-only fuzz build)";
}
