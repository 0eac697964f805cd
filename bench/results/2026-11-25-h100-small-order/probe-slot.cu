// probe-slot.cu -- the grid scan (grid_scan.cuh) as built from whichever
// libscan headers are on the include path: checked against a CPU sum, then
// timed at 2^16 by events around one call after a CUB scan (as bench_scan
// sees it) and by device time per call queued behind a sleeping kernel
// (bench::time_queued_call). Built twice, from the headers before and after a
// change, and the two binaries run in turns on one machine.
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -I<headers> -Ibench probe-slot.cu -o probe-slot
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cub/device/device_scan.cuh>
#include "bench_timing.cuh"
#include "libscan/cuda/device_scan.cuh"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d: %s\n", #x, __LINE__, cudaGetErrorString(e_)); exit(2); } } while (0)

template <typename T> void run(cudaStream_t s, int rounds, const char *label) {
    using Op = libscan::Sum<T>;
    using G = typename libscan::DeviceScan<T>::Grid;
    const size_t n = size_t(1) << 16;
    T *in, *out, *tot;
    CK(cudaMalloc(&in, n * sizeof(T)));
    CK(cudaMalloc(&out, n * sizeof(T)));
    CK(cudaMalloc(&tot, sizeof(T)));
    std::vector<T> h(n), r(n);
    unsigned long long x = 0x9e3779b97f4a7c15ull;
    for (auto &v : h) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; v = T(x); }
    CK(cudaMemcpy(in, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    const auto gs = G::template on_current_device<Op>();
    if (!gs.ok) exit(3);
    int bad = 0;
    for (size_t m : {size_t(1), size_t(1000), size_t(4097), n})
        for (int excl = 0; excl < 2; ++excl) {
            const T carry = T(12345);
            libscan::SmallScanArgs<T> a{in, out, m, excl == 1, carry, nullptr, tot, true};
            CK(G::run_eager(a, Op(), s, gs));
            T t = 0;
            CK(cudaMemcpyAsync(r.data(), out, m * sizeof(T), cudaMemcpyDeviceToHost, s));
            CK(cudaMemcpyAsync(&t, tot, sizeof(T), cudaMemcpyDeviceToHost, s));
            CK(cudaStreamSynchronize(s));
            T acc = carry;
            for (size_t i = 0; i < m; ++i) {
                const T want = excl ? acc : T(acc + h[i]);
                acc = T(acc + h[i]);
                bad += r[i] != want;
            }
            bad += t != acc;
        }
    void *cub_temp = nullptr;
    size_t cub_bytes = 0;
    CK(cub::DeviceScan::InclusiveSum(nullptr, cub_bytes, in, out, int(n)));
    CK(cudaMalloc(&cub_temp, cub_bytes));
    libscan::SmallScanArgs<T> a{in, out, n, false, T(0), nullptr, nullptr, true};
    auto grid = [&] { CK(G::run_eager(a, Op(), s, gs)); };
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    std::vector<float> ev;
    for (int i = 0; i < rounds + 5; ++i) {
        CK(cub::DeviceScan::InclusiveSum(cub_temp, cub_bytes, in, out, int(n), s));
        CK(cudaStreamSynchronize(s));
        CK(cudaEventRecord(e0, s));
        grid();
        CK(cudaEventRecord(e1, s));
        CK(cudaEventSynchronize(e1));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (i >= 5) ev.push_back(ms * 1000.f);
    }
    std::sort(ev.begin(), ev.end());
    double q = 0;
    CK(bench::time_queued_call(s, 30, grid, &q));
    printf("%-5s %s: check %s | events after CUB median %.2f p25 %.2f p75 %.2f us | queued %.3f us/call\n", label,
           sizeof(T) == 4 ? "u32" : "u64", bad ? "FAILED" : "ok", ev[ev.size() / 2], ev[ev.size() / 4],
           ev[3 * ev.size() / 4], q);
    CK(cudaFree(in)); CK(cudaFree(out)); CK(cudaFree(tot)); CK(cudaFree(cub_temp));
    if (bad) exit(1);
}

int main(int argc, char **argv) {
    const char *label = argc > 1 ? argv[1] : "?";
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    run<unsigned>(s, 600, label);
    run<unsigned long long>(s, 600, label);
}
