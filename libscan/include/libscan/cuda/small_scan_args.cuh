// small_scan_args.cuh -- the arguments of a one-launch small scan, shared by
// its two kernels: grid_scan.cuh (eager launches, every GPC) and
// cluster_scan.cuh (one thread-block cluster, also inside CUDA graphs).
#pragma once

#include <cstddef>

namespace libscan {

template <typename T> struct SmallScanArgs {
    const T *in;
    T *out;         // may equal in
    size_t n;       // 1 <= n <= the kernel's capacity
    bool exclusive;
    T carry_in;     // used when d_init is null
    const T *d_init;
    T *d_total;     // may equal d_init
    bool vector_ok; // in and out 16-byte aligned
};

} // namespace libscan
