// launch_overhead.cu -- where the host time of a small scan goes: the median
// host time of the CUDA calls libscan's C API makes on the way to a launch
// (pointer check, device query, error check), of empty launches (plain and
// cluster), and of libscan_inclusive_scan itself on 2^16 u32; then the same
// scan timed with CUDA events around each call, beside an empty launch.
// Run on the GPU: build/bench/launch_overhead (results:
// bench/results/*sweeps*/launch-overhead.txt). Host times are medians of
// 2000 calls, with a device sync every 64 so the queue never fills.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>
#include "libscan/libscan.h"

__global__ void empty_kernel() {}
__global__ void __cluster_dims__(8, 1, 1) empty_cluster() {}

template <class F> static double host_us(F f, int reps = 2000) {
    std::vector<double> t;
    for (int i = 0; i < 50; ++i) f();
    cudaDeviceSynchronize();
    for (int i = 0; i < reps; ++i) {
        const auto a = std::chrono::steady_clock::now();
        f();
        const auto b = std::chrono::steady_clock::now();
        t.push_back(std::chrono::duration<double, std::micro>(b - a).count());
        if (i % 64 == 63) cudaDeviceSynchronize();
    }
    cudaDeviceSynchronize();
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

int main() {
    const size_t n = size_t(1) << 16;
    unsigned *in, *out;
    void *temp;
    size_t tb = 0;
    if (cudaMalloc(&in, n * 4) != cudaSuccess || cudaMalloc(&out, n * 4) != cudaSuccess) {
        std::fprintf(stderr, "launch_overhead: no GPU memory\n");
        return 2;
    }
    cudaMemset(in, 1, n * 4);
    libscan_scan_temp_bytes(n, LIBSCAN_U32, &tb);
    cudaMalloc(&temp, tb);
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cudaPointerAttributes at;
    int dev = 0;
    libscan_scan_opts_t o = LIBSCAN_SCAN_OPTS_INIT;
    o.d_temp = temp;
    o.temp_bytes = tb;
    std::printf("host time per call (median):\n");
    std::printf("  cudaPointerGetAttributes %.3f us\n", host_us([&] { cudaPointerGetAttributes(&at, in); }));
    std::printf("  cudaGetDevice %.3f us\n", host_us([&] { cudaGetDevice(&dev); }));
    std::printf("  cudaGetLastError %.3f us\n", host_us([&] { (void)cudaGetLastError(); }));
    std::printf("  empty launch %.3f us\n", host_us([&] { empty_kernel<<<1, 32, 0, s>>>(); }));
    std::printf("  empty 16-block launch %.3f us\n", host_us([&] { empty_kernel<<<16, 1024, 0, s>>>(); }));
    std::printf("  empty cluster launch %.3f us\n", host_us([&] { empty_cluster<<<8, 256, 0, s>>>(); }));
    std::printf("  libscan 2^16 caller temp %.3f us\n",
                host_us([&] { libscan_inclusive_scan(in, out, n, LIBSCAN_U32, LIBSCAN_OP_SUM, &o, s); }));
    std::printf("  libscan 2^16 no temp %.3f us\n",
                host_us([&] { libscan_inclusive_scan(in, out, n, LIBSCAN_U32, LIBSCAN_OP_SUM, NULL, s); }));
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    auto events_us = [&](auto f) {
        std::vector<float> t;
        for (int i = 0; i < 200; ++i) {
            cudaEventRecord(a, s);
            f();
            cudaEventRecord(b, s);
            cudaEventSynchronize(b);
            float ms = 0;
            cudaEventElapsedTime(&ms, a, b);
            t.push_back(ms * 1000);
        }
        std::sort(t.begin(), t.end());
        return t[100];
    };
    std::printf("events around one call (median of 200): empty launch %.2f us, libscan 2^16 %.2f us\n",
                events_us([&] { empty_kernel<<<1, 32, 0, s>>>(); }),
                events_us([&] { libscan_inclusive_scan(in, out, n, LIBSCAN_U32, LIBSCAN_OP_SUM, &o, s); }));
    const cudaError_t e = cudaDeviceSynchronize();
    std::printf("status: %s\n", cudaGetErrorString(e));
    return e == cudaSuccess ? 0 : 2;
}
