/* cuda_runtime_api.h (stand-in) -- the fuzz build compiles apps/common's
 * cli.c, whose app_gpu_usable() asks the CUDA runtime for a device, without
 * the CUDA toolkit: this header declares the few runtime calls cli.c makes,
 * and no_cuda.c answers every one with "no device". The readers under test
 * never call them; they only share cli.c (app_escape) with the code that does.
 * Only this folder's targets put it on their include path. */
#ifndef LIBSCAN_FUZZ_NO_CUDA_RUNTIME_API_H
#define LIBSCAN_FUZZ_NO_CUDA_RUNTIME_API_H

typedef enum cudaError { cudaSuccess = 0, cudaErrorNoDevice = 100 } cudaError_t;

cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaFree(void *ptr);
cudaError_t cudaGetLastError(void);
const char *cudaGetErrorName(cudaError_t error);
const char *cudaGetErrorString(cudaError_t error);

#endif
