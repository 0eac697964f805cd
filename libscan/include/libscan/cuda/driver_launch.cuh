// driver_launch.cuh -- enqueue the eager small scan (grid_scan.cuh) through
// the driver's cuLaunchCooperativeKernel rather than the runtime's
// cudaLaunchCooperativeKernel, and ask the driver whether a stream is being
// captured.
//
// Why: a scan of 2^16 elements is a few microseconds end to end, and the
// host's share is mostly the launch. On the H100 with CUDA 13 the driver
// calls take ~0.3-0.5 us less host time than the runtime's for the same
// kernel (bench/grid_sweep, host costs; bench/launch_overhead). The entry
// points come from the runtime (driver_entry.h), so nothing links against
// libcuda; where they are unavailable, callers fall back to the runtime's
// calls.
#pragma once

#include <atomic>

#include <cuda.h>
#include <cuda_runtime.h>
#include "libscan/cuda/driver_entry.h"

namespace libscan {
namespace detail {

using DriverCoopLaunchFn = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                        unsigned, CUstream, void **);

// The driver's cuLaunchCooperativeKernel, or null. Looked up once per
// process.
inline DriverCoopLaunchFn driver_coop_launch_fn() {
    static const DriverCoopLaunchFn fn = reinterpret_cast<DriverCoopLaunchFn>(libscan__driver_entry("cuLaunchCooperativeKernel"));
    return fn;
}

// Whether `stream` is being captured into a graph: false in *capturing when
// it is not (or the query itself failed, which returns false). Through the
// driver's cuStreamIsCapturing, about half the host time of the runtime's
// (0.07 against 0.16 us, bench/grid_sweep, host costs), which a
// small scan asks once per call; the runtime's where that is unavailable.
inline bool stream_capturing(cudaStream_t stream, bool *capturing) {
    using Fn = CUresult (*)(CUstream, CUstreamCaptureStatus *);
    static const Fn fn = reinterpret_cast<Fn>(libscan__driver_entry("cuStreamIsCapturing"));
    if (fn) {
        CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
        if (fn(reinterpret_cast<CUstream>(stream), &st) != CUDA_SUCCESS) return false;
        *capturing = st != CU_STREAM_CAPTURE_STATUS_NONE;
        return true;
    }
    cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(stream, &st) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    *capturing = st != cudaStreamCaptureStatusNone;
    return true;
}

// The driver handle of `kernel` in the current device's context, or null.
template <typename Kernel> cudaFunction_t driver_function(Kernel kernel) {
    cudaFunction_t f = nullptr;
    if (cudaGetFuncBySymbol(&f, reinterpret_cast<const void *>(kernel)) != cudaSuccess) f = nullptr;
    (void)cudaGetLastError();
    return f;
}

// What the current device offers one kernel: ok when it can run it; fn,
// the driver handle to launch it with (null: use the runtime's launch).
struct LaunchSupport {
    bool ok;
    cudaFunction_t fn;
};

// LaunchSupport for `kernel` on the current device, probed once per device
// and cached: probe(dev) says whether the kernel runs there; the handle is
// taken only where it runs and `driver` (its driver launch entry point
// exists) holds. Key is a type of the caller's, one per kernel: it keys the
// cache. One device query per call after the first.
template <class Key, class Probe, class Kernel>
LaunchSupport support_on_current_device(Probe probe, Kernel kernel, bool driver) {
    constexpr int kMaxDevices = 64;
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= kMaxDevices) {
        (void)cudaGetLastError();
        return LaunchSupport{false, nullptr};
    }
    // 0 unknown, 1 yes, -1 no; a race only probes twice, with one answer.
    static std::atomic<signed char> state[kMaxDevices];
    static std::atomic<cudaFunction_t> fn[kMaxDevices];
    signed char st = state[dev].load(std::memory_order_acquire);
    if (st == 0) {
        const bool ok = probe(dev);
        fn[dev].store(ok && driver ? driver_function(kernel) : nullptr, std::memory_order_relaxed);
        st = ok ? 1 : -1;
        state[dev].store(st, std::memory_order_release);
    }
    return LaunchSupport{st > 0, st > 0 ? fn[dev].load(std::memory_order_relaxed) : nullptr};
}

// Enqueues f cooperatively with the given arguments (an array of pointers
// to each, as for cuLaunchCooperativeKernel). The runtime's error codes
// equal the driver's for the errors a launch returns, hence the cast.
inline cudaError_t driver_coop_launch(DriverCoopLaunchFn launch, cudaFunction_t f, dim3 grid, dim3 block,
                                      void **args, cudaStream_t stream) {
    const CUresult r = launch(reinterpret_cast<CUfunction>(f), grid.x, grid.y, grid.z, block.x, block.y, block.z, 0,
                              reinterpret_cast<CUstream>(stream), args);
    return r == CUDA_SUCCESS ? cudaSuccess : static_cast<cudaError_t>(r);
}

} // namespace detail
} // namespace libscan
