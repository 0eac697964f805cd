// dynamic_shared.cuh -- a kernel's allowance of dynamic shared memory,
// asked for once per kernel and device.
#pragma once

#include <atomic>
#include <cstddef>

#include <cuda_runtime.h>

namespace libscan::detail {

// A kernel whose static and dynamic shared memory together pass 48 KB must
// be allowed its dynamic bytes (cudaFuncAttributeMaxDynamicSharedMemorySize)
// before it launches; any kernel with dynamic bytes asks, since its static
// arrays count too. `done` (one per kernel) holds a bit per device, so that
// the attribute is set once per device (beyond 64 devices, every call asks
// again). device < 0: the current one.
template <typename Kernel>
cudaError_t allow_dynamic_shared(Kernel kernel, size_t bytes, std::atomic<unsigned long long> &done, int device = -1) {
    if (bytes == 0) return cudaSuccess;
    if (device < 0) {
        const cudaError_t e = cudaGetDevice(&device);
        if (e != cudaSuccess) return e;
    }
    const unsigned long long bit = device < 64 ? 1ull << device : 0;
    if (bit && (done.load(std::memory_order_relaxed) & bit)) return cudaSuccess;
    const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes));
    if (e == cudaSuccess && bit) done.fetch_or(bit, std::memory_order_relaxed);
    return e;
}

} // namespace libscan::detail
