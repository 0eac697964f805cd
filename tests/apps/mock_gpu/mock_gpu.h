/* mock_gpu.h -- a stand-in GPU for the programs' GPU code paths on machines
 * without one. Force-included (-include) into copies of the programs' and
 * apps/common's sources built only for the tests (tests/apps/CMakeLists.txt):
 * every CUDA runtime call and every GPU function of libscan that they make is
 * renamed to a mock_* function of mock_gpu.c, where "device memory" is host
 * memory, copies are memcpy, and the library's GPU calls are its CPU calls
 * (byte-identical by libscan's contract). What this proves is the programs'
 * own logic on their GPU paths -- which chunk goes where, what is uploaded,
 * skipped, downloaded, carried, released -- not the GPU; the real GPU runs the
 * same scripts (the *_stream_gpu_cli tests). */
#ifndef MOCK_GPU_H
#define MOCK_GPU_H

/* Only names: no header is included here, so the sources' own feature
   macros (_GNU_SOURCE, ...) still come first. The real headers' declarations
   are renamed too, and so declare the mock_* functions of mock_gpu.c with
   the real signatures. mock_gpu.c itself is built with MOCK_GPU_IMPL. */
#ifndef MOCK_GPU_IMPL
#define cudaGetDeviceCount mock_cudaGetDeviceCount
#define cudaFree mock_cudaFree
#define cudaMalloc mock_cudaMalloc
#define cudaHostAlloc mock_cudaHostAlloc
#define cudaFreeHost mock_cudaFreeHost
#define cudaHostRegister mock_cudaHostRegister
#define cudaHostUnregister mock_cudaHostUnregister
#define cudaMemcpy mock_cudaMemcpy
#define cudaMemcpyAsync mock_cudaMemcpyAsync
#define cudaMemGetInfo mock_cudaMemGetInfo
#define cudaDeviceSynchronize mock_cudaDeviceSynchronize
#define cudaStreamSynchronize mock_cudaStreamSynchronize
#define cudaStreamCreateWithFlags mock_cudaStreamCreateWithFlags
#define cudaStreamDestroy mock_cudaStreamDestroy
#define libscan_sort mock_libscan_sort
#define libscan_sort_double_buffer mock_libscan_sort_double_buffer
#define libscan_argsort mock_libscan_argsort
#define libscan_segmented_sort mock_libscan_segmented_sort
#define libscan_select_if mock_libscan_select_if
#define libscan_select_flagged mock_libscan_select_flagged
#define libscan_partition_if mock_libscan_partition_if
#define libscan_partition_flagged mock_libscan_partition_flagged
#define libscan_unique mock_libscan_unique
#endif

#endif
