// small_scan_args.cuh -- the arguments of the one-launch small scan
// (grid_scan.cuh), shared by its two kernels: the eager one (flags in the
// library's table) and the barrier one (values in temp, also inside CUDA
// graphs).
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
