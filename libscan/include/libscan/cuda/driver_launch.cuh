// driver_launch.cuh -- enqueue a kernel through the driver's cuLaunchKernel
// rather than the runtime's <<<>>>, for the one-launch small scan.
//
// Why: a scan of 2^16 elements is a few microseconds end to end, and the
// host's share is mostly the launch. On the H100 with CUDA 13 the driver call
// takes ~0.3 us less host time than <<<>>> for the same kernel
// (bench/results/2026-11-22-h100-small-scan/). The entry point comes from the
// runtime (cudaGetDriverEntryPointByVersion), so nothing links against libcuda;
// where it is unavailable, callers fall back to <<<>>>.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

namespace libscan {
namespace detail {

using DriverLaunchFn = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                    CUstream, void **, void **);
using DriverCoopLaunchFn = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                        unsigned, CUstream, void **);

// A driver entry point of the CUDA 12.0 ABI, through the runtime, or null.
inline void *driver_entry(const char *name) {
    void *p = nullptr;
#if CUDART_VERSION >= 12050
    cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
    if (cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess)
        p = nullptr;
    (void)cudaGetLastError();
#else
    (void)name;
#endif
    return p;
}

// The driver's cuLaunchKernel and cuLaunchCooperativeKernel, or null. Looked
// up once per process.
inline DriverLaunchFn driver_launch_fn() {
    static const DriverLaunchFn fn = reinterpret_cast<DriverLaunchFn>(driver_entry("cuLaunchKernel"));
    return fn;
}
inline DriverCoopLaunchFn driver_coop_launch_fn() {
    static const DriverCoopLaunchFn fn = reinterpret_cast<DriverCoopLaunchFn>(driver_entry("cuLaunchCooperativeKernel"));
    return fn;
}

// The driver handle of `kernel` in the current device's context, or null.
template <typename Kernel> cudaFunction_t driver_function(Kernel kernel) {
    cudaFunction_t f = nullptr;
    if (cudaGetFuncBySymbol(&f, reinterpret_cast<const void *>(kernel)) != cudaSuccess) f = nullptr;
    (void)cudaGetLastError();
    return f;
}

// Enqueues f with the given arguments (an array of pointers to each, as for
// cuLaunchKernel). The runtime's error codes equal the driver's for the
// errors a launch returns, hence the cast.
inline cudaError_t driver_launch(DriverLaunchFn launch, cudaFunction_t f, dim3 grid, dim3 block, void **args,
                                 cudaStream_t stream) {
    const CUresult r = launch(reinterpret_cast<CUfunction>(f), grid.x, grid.y, grid.z, block.x, block.y, block.z, 0,
                              reinterpret_cast<CUstream>(stream), args, nullptr);
    return r == CUDA_SUCCESS ? cudaSuccess : static_cast<cudaError_t>(r);
}

inline cudaError_t driver_coop_launch(DriverCoopLaunchFn launch, cudaFunction_t f, dim3 grid, dim3 block,
                                      void **args, cudaStream_t stream) {
    const CUresult r = launch(reinterpret_cast<CUfunction>(f), grid.x, grid.y, grid.z, block.x, block.y, block.z, 0,
                              reinterpret_cast<CUstream>(stream), args);
    return r == CUDA_SUCCESS ? cudaSuccess : static_cast<cudaError_t>(r);
}

} // namespace detail
} // namespace libscan
