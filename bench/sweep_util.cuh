// sweep_util.cuh -- what the tuning sweeps (tile_sweep,
// grid_sweep) share: CK(), which prints a failed CUDA call with its line and
// exits with status 2, and the sweeps' timing calls over bench_timing.cuh,
// in microseconds, exiting through CK() on any CUDA error:
//   time_events(f, s): events around one call on an idle stream, upper
//                      median of 200 after 5 warm-ups;
//   time_graph(f, s):  device time per call, 41- vs 1-call graphs, 50
//                      launches each;
//   time_queued(f, s): device time per call, calls queued behind a
//                      sleeping kernel, 30 reps each (no graph).
#pragma once

#include <cstdio>
#include <cstdlib>
#include "bench_timing.cuh"

#define CK(x)                                                                                                      \
    do {                                                                                                           \
        cudaError_t e_ = (x);                                                                                      \
        if (e_ != cudaSuccess) {                                                                                   \
            printf("CUDA %s at %d: %s\n", #x, __LINE__, cudaGetErrorString(e_));                                   \
            exit(2);                                                                                               \
        }                                                                                                          \
    } while (0)

template <typename F> float time_events(F f, cudaStream_t s) {
    bench::EventTimes t;
    CK(bench::time_events(s, 5, 200, f, &t));
    return float(t.upper_median() * 1000.0);
}
template <typename F> float time_graph(F f, cudaStream_t s) {
    double us = 0;
    CK(bench::time_graph_call(s, 50, f, &us));
    return float(us);
}
template <typename F> float time_queued(F f, cudaStream_t s) {
    double us = 0;
    CK(bench::time_queued_call(s, 30, f, &us));
    return float(us);
}

template <typename T> __global__ void sweep_fill(T *p, size_t n, unsigned seed) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
        unsigned h = unsigned(i) * 2654435761u ^ seed;
        h ^= h >> 15;
        h *= 2246822519u;
        h ^= h >> 13;
        p[i] = T(h % 1000);
    }
}
