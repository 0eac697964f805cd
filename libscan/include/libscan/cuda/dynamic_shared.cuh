// dynamic_shared.cuh -- a kernel's allowance of dynamic shared memory,
// asked for once per kernel and device, and launches that ask for it.
#pragma once

#include <atomic>
#include <cstddef>

#include <cuda_runtime.h>

namespace libscan::detail {

// A kernel whose static and dynamic shared memory together pass 48 KB must
// be allowed its dynamic bytes (cudaFuncAttributeMaxDynamicSharedMemorySize)
// before it launches; any kernel with dynamic bytes asks, since its static
// arrays count too. Each KERNEL keeps a bit per device it was allowed on, so
// that the attribute is set once per kernel and device (beyond 64 devices,
// every call asks again). device < 0: the current one.
template <auto KERNEL> cudaError_t allow_dynamic_shared(size_t bytes, int device = -1) {
    static std::atomic<unsigned long long> done{0};
    if (bytes == 0) return cudaSuccess;
    if (device < 0) {
        const cudaError_t e = cudaGetDevice(&device);
        if (e != cudaSuccess) return e;
    }
    const unsigned long long bit = device < 64 ? 1ull << device : 0;
    if (bit && (done.load(std::memory_order_relaxed) & bit)) return cudaSuccess;
    const cudaError_t e = cudaFuncSetAttribute(KERNEL, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes));
    if (e == cudaSuccess && bit) done.fetch_or(bit, std::memory_order_relaxed);
    return e;
}

// KERNEL<<<grid, block, bytes, stream>>>(args...) after its allowance of
// `bytes` (allow_dynamic_shared); the first error, or the launch's.
template <auto KERNEL, typename... Args>
cudaError_t launch_dynamic(unsigned grid, int block, size_t bytes, cudaStream_t stream, const Args &...args) {
    const cudaError_t e = allow_dynamic_shared<KERNEL>(bytes);
    if (e != cudaSuccess) return e;
    KERNEL<<<grid, block, bytes, stream>>>(args...);
    return cudaGetLastError();
}

} // namespace libscan::detail
