// bench_timing.cuh -- the timing loops of the app benchmarks (bench_compact,
// bench_radixsort, bench_sat, bench_segmented) and of the sweeps;
// header-only.
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
// bench::time_graph_call(stream, reps, enqueue, &us): the device time of one
// call, in microseconds. One graph captures 41 calls of enqueue() and one
// graph a single call (global capture mode); each graph is launched through
// time_events (5 warm-ups, `reps` timed launches), and the difference of the
// two upper medians over 40 leaves out the cost of launching a graph.
// Returns the first CUDA error (capture, instantiation, launch or timing).
//
// bench::time_queued_call(stream, reps, enqueue, &us): the device time of one
// call without a graph, for kernels that must not run from one (the grid
// scan's flags are tagged per launch). Each rep enqueues a kernel that
// sleeps ~1 ms, then an event, `calls` calls and another event; the host
// enqueues them while the GPU sleeps, so the calls run back to back. With
// calls = 1 and 41, the difference of the two upper medians over 40 is the
// device time per call (launch gaps included, as with graphs).
//
// bench::time_interleaved(stream, warmup, reps, calls, &times): time_events
// for several calls at once, interleaved A B A B ...: `warmup` untimed rounds
// of every call, then `reps` rounds; each round times every call once, alone
// between two CUDA events with the stream idle before it, round r starting
// with call r % calls.size() so that no call always follows the same one.
// (*times)[i] receives call i's times, ascending, in ms. Same errors as
// time_events (also cudaErrorInvalidValue for no calls).
//
// Medians: median() is the middle time, or the mean of the two middle ones
// for an even count; upper_median() is always times[reps / 2] (the same for
// an odd count). Each benchmark keeps the one its published tables used.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <functional>
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

inline cudaError_t time_interleaved(cudaStream_t stream, int warmup, int reps,
                                    const std::vector<std::function<void()>> &calls, std::vector<EventTimes> *times) {
    const size_t k = calls.size();
    if (reps < 1 || warmup < 0 || !times || k == 0) return cudaErrorInvalidValue;
    cudaEvent_t ev[2] = {nullptr, nullptr};
    cudaError_t e = cudaEventCreate(&ev[0]);
    if (e == cudaSuccess) e = cudaEventCreate(&ev[1]);
    std::vector<std::vector<float>> t(k);
    if (e == cudaSuccess) {
        for (int i = 0; i < warmup; ++i)
            for (const auto &c : calls) c();
        e = cudaStreamSynchronize(stream);
    }
    for (int r = 0; r < reps && e == cudaSuccess; ++r) {
        for (size_t j = 0; j < k && e == cudaSuccess; ++j) {
            const size_t i = (static_cast<size_t>(r) + j) % k;
            e = cudaEventRecord(ev[0], stream);
            if (e != cudaSuccess) break;
            calls[i]();
            e = cudaEventRecord(ev[1], stream);
            if (e == cudaSuccess) e = cudaEventSynchronize(ev[1]);
            float ms = 0;
            if (e == cudaSuccess) e = cudaEventElapsedTime(&ms, ev[0], ev[1]);
            if (e == cudaSuccess) t[i].push_back(ms);
        }
    }
    for (cudaEvent_t x : ev) {
        if (!x) continue;
        const cudaError_t d = cudaEventDestroy(x);
        if (e == cudaSuccess) e = d;
    }
    if (e != cudaSuccess) return e;
    times->assign(k, EventTimes());
    for (size_t i = 0; i < k; ++i) {
        std::sort(t[i].begin(), t[i].end());
        (*times)[i].ms = std::move(t[i]);
    }
    return cudaSuccess;
}

template <class F> cudaError_t time_graph_call(cudaStream_t stream, int reps, F &&enqueue, double *us) {
    if (!us) return cudaErrorInvalidValue;
    constexpr int kCalls[2] = {1, 41};
    double t[2] = {0, 0};
    for (int k = 0; k < 2; ++k) {
        cudaGraph_t graph = nullptr;
        cudaGraphExec_t exec = nullptr;
        cudaError_t e = cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
        if (e != cudaSuccess) return e;
        for (int i = 0; i < kCalls[k]; ++i) enqueue();
        e = cudaStreamEndCapture(stream, &graph);
        if (e == cudaSuccess) e = cudaGraphInstantiate(&exec, graph, 0);
        if (graph) (void)cudaGraphDestroy(graph);
        cudaError_t launch = cudaSuccess;
        EventTimes times;
        if (e == cudaSuccess)
            e = time_events(
                stream, 5, reps,
                [&] {
                    const cudaError_t l = cudaGraphLaunch(exec, stream);
                    if (launch == cudaSuccess) launch = l;
                },
                &times);
        if (e == cudaSuccess) e = launch;
        if (exec) (void)cudaGraphExecDestroy(exec);
        if (e != cudaSuccess) return e;
        t[k] = times.upper_median() * 1000.0;
    }
    *us = (t[1] - t[0]) / (kCalls[1] - kCalls[0]);
    return cudaSuccess;
}

namespace detail {
static __global__ void sleep_kernel(unsigned ns) {
    for (unsigned t = 0; t < ns; t += 1000) __nanosleep(1000);
}
} // namespace detail

template <class F> cudaError_t time_queued_call(cudaStream_t stream, int reps, F &&enqueue, double *us) {
    if (!us || reps < 1) return cudaErrorInvalidValue;
    constexpr int kCalls[2] = {1, 41};
    double t[2] = {0, 0};
    cudaEvent_t ev[2] = {nullptr, nullptr};
    cudaError_t e = cudaEventCreate(&ev[0]);
    if (e == cudaSuccess) e = cudaEventCreate(&ev[1]);
    for (int k = 0; k < 2 && e == cudaSuccess; ++k) {
        std::vector<float> ms;
        for (int r = 0; r < reps && e == cudaSuccess; ++r) {
            detail::sleep_kernel<<<1, 1, 0, stream>>>(1000000u);
            e = cudaEventRecord(ev[0], stream);
            for (int i = 0; i < kCalls[k] && e == cudaSuccess; ++i) enqueue();
            if (e == cudaSuccess) e = cudaEventRecord(ev[1], stream);
            if (e == cudaSuccess) e = cudaEventSynchronize(ev[1]);
            float x = 0;
            if (e == cudaSuccess) e = cudaEventElapsedTime(&x, ev[0], ev[1]);
            if (e == cudaSuccess) ms.push_back(x);
        }
        if (e != cudaSuccess) break;
        std::sort(ms.begin(), ms.end());
        t[k] = ms[ms.size() / 2] * 1000.0;
    }
    for (cudaEvent_t x : ev)
        if (x) (void)cudaEventDestroy(x);
    if (e != cudaSuccess) return e;
    *us = (t[1] - t[0]) / (kCalls[1] - kCalls[0]);
    return cudaSuccess;
}

} // namespace bench
