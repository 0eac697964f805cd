// probe-host.cu -- host time of each call on a small scan's way to its launch,
// measured as bench_scan's event loop sees it: before each timed call a CUB
// scan runs and the stream drains (so caches and the CPU are as cold as in
// the benchmark), then steady_clock goes around the one call. Medians and
// quartiles over ROUNDS rounds, pieces taking turns, in microseconds.
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -Ilibscan/include -Ibuild/libscan/include
//        probe-host.cu build/libscan/libscan.a -lcuda -o probe-host
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>
#include <cuda.h>
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
    CUcontext ctx = nullptr;
    CUdevice cdev = 0;
    int dev = 0;
    auto cub_f = [&] { CK(cub::DeviceScan::InclusiveSum(cub_temp, cub_bytes, in, out, int(n), s)); };
    struct M {
        const char *name;
        std::function<void()> f;
        bool launches;
        std::vector<double> t;
    };
    std::vector<M> ms = {
        {"libscan_inclusive_scan (caller temp)",
         [&] {
             if (libscan_inclusive_scan(in, out, n, dt, LIBSCAN_OP_SUM, &opts, s) != LIBSCAN_SUCCESS) exit(2);
         },
         true, {}},
        {"DeviceScan::run", [&] { CK(DS::run(da, Op(), nullptr, 0, s)); }, true, {}},
        {"grid coop driver launch", [&] { CK(G::run_eager(a, Op(), s, gs)); }, true, {}},
        {"grid plain driver launch",
         [&] {
             Op op;
             libscan::SmallScanArgs<T> args = a;
             void *params[] = {&args, &op};
             CK(libscan::detail::driver_launch(libscan::detail::driver_launch_fn(), gs.fn, dim3(G::blocks(n)),
                                               dim3(G::kBlockThreads), params, s));
         },
         true, {}},
        {"libscan_check_device_pointer(in)", [&] { (void)libscan_check_device_pointer(in); }, false, {}},
        {"3 x libscan_check_device_pointer", [&] {
             (void)libscan_check_device_pointer(in);
             (void)libscan_check_device_pointer(out);
             (void)libscan_check_device_pointer(ltemp);
         }, false, {}},
        {"cuMemGetAddressRange(in)", [&] {
             CUdeviceptr b = 0;
             size_t sz = 0;
             (void)cuMemGetAddressRange(&b, &sz, (CUdeviceptr)in);
         }, false, {}},
        {"cuPointerGetAttribute(MEMORY_TYPE, in)", [&] {
             unsigned t = 0;
             (void)cuPointerGetAttribute(&t, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)in);
         }, false, {}},
        {"GridScan::eager (cuStreamIsCapturing)", [&] { (void)G::eager(s); }, false, {}},
        {"cudaGetDevice", [&] { (void)cudaGetDevice(&dev); }, false, {}},
        {"cuCtxGetCurrent", [&] { (void)cuCtxGetCurrent(&ctx); }, false, {}},
        {"cuCtxGetDevice", [&] { (void)cuCtxGetDevice(&cdev); }, false, {}},
        {"GridScan::on_current_device", [&] { (void)G::template on_current_device<Op>(); }, false, {}},
        {"cudaGetLastError", [&] { (void)cudaGetLastError(); }, false, {}},
    };
    for (int r = 0; r < rounds + 5; ++r)
        for (auto &m : ms) {
            cub_f();
            CK(cudaStreamSynchronize(s));
            const auto t0 = std::chrono::steady_clock::now();
            m.f();
            const auto t1 = std::chrono::steady_clock::now();
            if (m.launches) CK(cudaStreamSynchronize(s));
            if (r >= 5) m.t.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
        }
    printf("%s n = 65536, host us per call after a CUB scan and a stream sync, %d rounds\n\n| call | median | p25 | p75 "
           "|\n|---|---:|---:|---:|\n",
           sizeof(T) == 4 ? "u32" : "u64", rounds);
    for (auto &m : ms) {
        std::sort(m.t.begin(), m.t.end());
        const size_t k = m.t.size();
        printf("| %s | %.3f | %.3f | %.3f |\n", m.name, m.t[k / 2], m.t[k / 4], m.t[3 * k / 4]);
    }
    printf("\n");
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
    return 0;
}
