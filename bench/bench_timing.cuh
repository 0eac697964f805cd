// bench_timing.cuh -- the timing loop of the app benchmarks (bench_compact,
// bench_radixsort, bench_sat, bench_segmented), header-only.
//
// bench::time_events(stream, warmup, reps, enqueue, &times):
//   1. `warmup` untimed calls of enqueue() (first use, caches, lazy loading),
//      then cudaStreamSynchronize(stream), so the first timed call starts on
//      an idle stream;
//   2. `reps` calls, each alone between two CUDA events recorded on `stream`
//      (the host waits for the second event before the next call, so calls
//      never overlap and each time is one call's);
//   3. the times sorted ascending, in milliseconds.
// enqueue() must put its work on `stream` (and may exit on its own errors).
// Returns the first CUDA error of the loop itself (events are destroyed on
// every path; `times` is only written on success), cudaErrorInvalidValue for
// reps < 1 or warmup < 0.
//
// Medians: median() is the middle time, or the mean of the two middle ones
// for an even count; upper_median() is always times[reps / 2] (the same for
// an odd count). Each benchmark keeps the one its published tables used.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <utility>
#include <vector>

namespace bench {

struct EventTimes {
    std::vector<float> ms; // one per timed call, ascending

    double median() const {
        const size_t n = ms.size();
        return n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
    }
    double upper_median() const { return ms[ms.size() / 2]; }
    double min() const { return ms.front(); }
};

template <class F>
cudaError_t time_events(cudaStream_t stream, int warmup, int reps, F &&enqueue, EventTimes *times) {
    if (reps < 1 || warmup < 0 || !times) return cudaErrorInvalidValue;
    cudaEvent_t ev[2] = {nullptr, nullptr};
    cudaError_t e = cudaEventCreate(&ev[0]);
    if (e == cudaSuccess) e = cudaEventCreate(&ev[1]);
    std::vector<float> t;
    if (e == cudaSuccess) {
        for (int i = 0; i < warmup; ++i) enqueue();
        e = cudaStreamSynchronize(stream);
    }
    for (int i = 0; i < reps && e == cudaSuccess; ++i) {
        e = cudaEventRecord(ev[0], stream);
        if (e != cudaSuccess) break;
        enqueue();
        e = cudaEventRecord(ev[1], stream);
        if (e == cudaSuccess) e = cudaEventSynchronize(ev[1]);
        float ms = 0;
        if (e == cudaSuccess) e = cudaEventElapsedTime(&ms, ev[0], ev[1]);
        if (e == cudaSuccess) t.push_back(ms);
    }
    for (cudaEvent_t x : ev) {
        if (!x) continue;
        const cudaError_t d = cudaEventDestroy(x);
        if (e == cudaSuccess) e = d;
    }
    if (e != cudaSuccess) return e;
    std::sort(t.begin(), t.end());
    times->ms = std::move(t);
    return cudaSuccess;
}

} // namespace bench
