/* driver_entry.h -- a driver API entry point looked up through the runtime,
 * for the few driver calls libscan makes (the small scan's launch,
 * driver_launch.cuh; the pointer checks of the C API, libscan/src/checks.c).
 * C and C++ alike.
 *
 * Why: cudaGetDriverEntryPointByVersion hands out the driver's functions
 * without linking libcuda, so a program that links libscan needs nothing but
 * the CUDA runtime. Entry points of the CUDA 12.0 ABI are asked for; NULL
 * where the runtime is older than 12.5 or the driver lacks the symbol, and
 * the callers then take the runtime's way. The query leaves no error behind. */
#ifndef LIBSCAN_CUDA_DRIVER_ENTRY_H
#define LIBSCAN_CUDA_DRIVER_ENTRY_H

#include <stddef.h>
#include <cuda_runtime_api.h>

static inline void *libscan__driver_entry(const char *name) {
    void *p = NULL;
#if CUDART_VERSION >= 12050
    enum cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
    if (cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess)
        p = NULL;
    (void)cudaGetLastError();
#else
    (void)name;
#endif
    return p;
}

#endif
