// probe-order.cu -- at 2^16, how much of a small scan's event time depends on
// what ran just before it (cold instruction and constant caches after another
// kernel) and on the launch path (cooperative or plain driver launch).
// Each method is a pair (pre, timed): pre runs untimed and the stream drains,
// then CUDA events go around one timed call. Methods take turns for ROUNDS
// rounds; medians and quartiles in microseconds.
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -Ilibscan/include -Ibuild/libscan/include
//        probe-order.cu build/libscan/libscan.a -o probe-order
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>
#include <cub/device/device_scan.cuh>
#include "libscan/libscan.h"
#include "libscan/cuda/device_scan.cuh"

#define CK(x)                                                                                                      \
    do {                                                                                                           \
        cudaError_t e_ = (x);                                                                                      \
        if (e_ != cudaSuccess) {                                                                                   \
            printf("CUDA %s at %d: %s\n", #x, __LINE__, cudaGetErrorString(e_));                                   \
            exit(2);                                                                                               \
        }                                                                                                          \
    } while (0)

__global__ void empty_kernel() {}

template <typename T> void run(cudaStream_t s, int rounds) {
    using Op = libscan::Sum<T>;
    using DS = libscan::DeviceScan<T>;
    using G = typename DS::Grid;
    const size_t n = size_t(1) << 16;
    T *in, *out;
    CK(cudaMalloc(&in, n * sizeof(T)));
    CK(cudaMalloc(&out, n * sizeof(T)));
    CK(cudaMemset(in, 1, n * sizeof(T)));
    void *cub_temp = nullptr;
    size_t cub_bytes = 0;
    CK(cub::DeviceScan::InclusiveSum(nullptr, cub_bytes, in, out, int(n)));
    CK(cudaMalloc(&cub_temp, cub_bytes));
    size_t lt = 0;
    const libscan_dtype_t dt = sizeof(T) == 4 ? LIBSCAN_U32 : LIBSCAN_U64;
    if (libscan_scan_temp_bytes(n, dt, &lt) != LIBSCAN_SUCCESS) exit(2);
    void *ltemp = nullptr;
    CK(cudaMalloc(&ltemp, lt));
    libscan_scan_opts_t opts = LIBSCAN_SCAN_OPTS_INIT;
    opts.d_temp = ltemp;
    opts.temp_bytes = lt;
    libscan::SmallScanArgs<T> a{in, out, n, false, T(0), nullptr, nullptr, true};
    const auto gs = G::template on_current_device<Op>();
    if (!gs.ok || !gs.fn) exit(3);
    libscan::DeviceScanArgs<T> da;
    da.in = in;
    da.out = out;
    da.n = n;
    auto cub_f = [&] { CK(cub::DeviceScan::InclusiveSum(cub_temp, cub_bytes, in, out, int(n), s)); };
    auto api_f = [&] {
        if (libscan_inclusive_scan(in, out, n, dt, LIBSCAN_OP_SUM, &opts, s) != LIBSCAN_SUCCESS) exit(2);
    };
    auto api_notemp_f = [&] {
        if (libscan_inclusive_scan(in, out, n, dt, LIBSCAN_OP_SUM, nullptr, s) != LIBSCAN_SUCCESS) exit(2);
    };
    auto ds_f = [&] { CK(DS::run(da, Op(), nullptr, 0, s)); };
    auto coop_f = [&] { CK(G::run_eager(a, Op(), s, gs)); };
    auto plain_f = [&] {
        Op op;
        libscan::SmallScanArgs<T> args = a;
        void *params[] = {&args, &op};
        CK(libscan::detail::driver_launch(libscan::detail::driver_launch_fn(), gs.fn, dim3(G::blocks(n)),
                                          dim3(G::kBlockThreads), params, s));
    };
    auto memcpy_f = [&] { CK(cudaMemcpyAsync(out, in, n * sizeof(T), cudaMemcpyDeviceToDevice, s)); };
    auto empty_f = [&] { empty_kernel<<<1, 32, 0, s>>>(); };
    auto none = [] {};
    struct M {
        const char *name;
        std::function<void()> pre, f;
        std::vector<float> t;
    };
    std::vector<M> ms = {
        {"CUB after libscan API", api_f, cub_f, {}},
        {"CUB after CUB", cub_f, cub_f, {}},
        {"API (caller temp) after CUB", cub_f, api_f, {}},
        {"API (caller temp) after API", api_f, api_f, {}},
        {"API (no temp) after CUB", cub_f, api_notemp_f, {}},
        {"DeviceScan::run after CUB", cub_f, ds_f, {}},
        {"grid coop driver after CUB", cub_f, coop_f, {}},
        {"grid coop driver after itself", coop_f, coop_f, {}},
        {"grid coop driver after memcpy", memcpy_f, coop_f, {}},
        {"grid coop driver after empty", empty_f, coop_f, {}},
        {"grid plain driver after CUB", cub_f, plain_f, {}},
        {"grid plain driver after itself", plain_f, plain_f, {}},
        {"memcpy after CUB", cub_f, memcpy_f, {}},
        {"memcpy after itself", memcpy_f, memcpy_f, {}},
        {"empty after CUB", cub_f, empty_f, {}},
        {"empty after itself", empty_f, empty_f, {}},
        {"empty, nothing before", none, empty_f, {}},
    };
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int r = 0; r < rounds + 5; ++r)
        for (auto &m : ms) {
            m.pre();
            CK(cudaStreamSynchronize(s));
            CK(cudaEventRecord(e0, s));
            m.f();
            CK(cudaEventRecord(e1, s));
            CK(cudaEventSynchronize(e1));
            float x = 0;
            CK(cudaEventElapsedTime(&x, e0, e1));
            if (r >= 5) m.t.push_back(x * 1000.f);
        }
    for (auto &m : ms) std::sort(m.t.begin(), m.t.end());
    const float cub = ms[0].t[ms[0].t.size() / 2];
    printf("%s n = 65536, %d rounds: median | p25 | p75 | median / (CUB after libscan API)\n\n| method | median us | p25 | "
           "p75 | / CUB |\n|---|---:|---:|---:|---:|\n",
           sizeof(T) == 4 ? "u32" : "u64", rounds);
    for (auto &m : ms) {
        const size_t k = m.t.size();
        printf("| %s | %.2f | %.2f | %.2f | %.3f |\n", m.name, m.t[k / 2], m.t[k / 4], m.t[3 * k / 4], m.t[k / 2] / cub);
    }
    printf("\n");
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    CK(cudaFree(in));
    CK(cudaFree(out));
    CK(cudaFree(cub_temp));
    CK(cudaFree(ltemp));
}

int main(int argc, char **argv) {
    const int rounds = argc > 1 ? atoi(argv[1]) : 1000;
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("%s (%d SMs)\n\n", prop.name, prop.multiProcessorCount);
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    run<unsigned>(s, rounds);
    run<unsigned long long>(s, rounds);
    run<unsigned>(s, rounds);
    run<unsigned long long>(s, rounds);
    return 0;
}
