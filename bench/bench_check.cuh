// bench_check.cuh -- the error checks of the app benchmarks, header-only.
//
//   #define BENCH_PROGRAM "bench_x"   // before the include
//   #include "../bench_check.cuh"
//   CK(cudaMalloc(&p, bytes));        // a CUDA call
//   LS(libscan_inclusive_scan(...));  // a libscan (or app library) call
//
// A failed call prints "<program>: <call> (line N): <error string>" on
// stderr and exits with status 2 (the benchmarks' "CUDA / internal error").
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#include "libscan/libscan.h"

#ifndef BENCH_PROGRAM
#error "define BENCH_PROGRAM (the benchmark's name, for error messages) before including bench_check.cuh"
#endif

namespace bench {

inline void check_cuda(cudaError_t e, const char *what, int line) {
    if (e != cudaSuccess) {
        std::fprintf(stderr, BENCH_PROGRAM ": %s (line %d): %s\n", what, line, cudaGetErrorString(e));
        std::exit(2);
    }
}
inline void check_libscan(libscan_status_t s, const char *what, int line) {
    if (s != LIBSCAN_SUCCESS) {
        std::fprintf(stderr, BENCH_PROGRAM ": %s (line %d): %s\n", what, line, libscan_status_string(s));
        std::exit(2);
    }
}

} // namespace bench

#define CK(call) bench::check_cuda((call), #call, __LINE__)
#define LS(call) bench::check_libscan((call), #call, __LINE__)
