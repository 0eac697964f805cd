// probe-launch.cu -- the grid scan kernel (grid_scan.cuh) at 2^16 launched
// four ways: cuLaunchCooperativeKernel (the library's), cuLaunchKernelEx with
// the cooperative attribute, cuLaunchKernelEx without it, and cuLaunchKernel.
// Events around one call after a CUB scan (as bench_scan sees it) and host
// time per call in the same loop; methods take turns for ROUNDS rounds.
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -Ilibscan/include probe-launch.cu -lcuda -o probe-launch
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>
#include <cuda.h>
#include <cub/device/device_scan.cuh>
#include "libscan/cuda/device_scan.cuh"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d: %s\n", #x, __LINE__, cudaGetErrorString(e_)); exit(2); } } while (0)
#define CU(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { printf("CU %s at %d: %d\n", #x, __LINE__, int(r_)); exit(2); } } while (0)

template <typename T> void run(cudaStream_t s, int rounds) {
    using Op = libscan::Sum<T>;
    using G = typename libscan::DeviceScan<T>::Grid;
    const size_t n = size_t(1) << 16;
    T *in, *out;
    CK(cudaMalloc(&in, n * sizeof(T)));
    CK(cudaMalloc(&out, n * sizeof(T)));
    CK(cudaMemset(in, 1, n * sizeof(T)));
    void *cub_temp = nullptr;
    size_t cub_bytes = 0;
    CK(cub::DeviceScan::InclusiveSum(nullptr, cub_bytes, in, out, int(n)));
    CK(cudaMalloc(&cub_temp, cub_bytes));
    const auto gs = G::template on_current_device<Op>();
    if (!gs.ok || !gs.fn) exit(3);
    CUfunction f = reinterpret_cast<CUfunction>(gs.fn);
    libscan::SmallScanArgs<T> a{in, out, n, false, T(0), nullptr, nullptr, true};
    Op op;
    void *params[] = {&a, &op};
    const unsigned blocks = G::blocks(n), threads = G::kBlockThreads;
    CUstream cs = reinterpret_cast<CUstream>(s);
    CUlaunchAttribute coop_attr;
    coop_attr.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
    coop_attr.value.cooperative = 1;
    auto cfg = [&](bool coop) {
        CUlaunchConfig c = {};
        c.gridDimX = blocks; c.gridDimY = 1; c.gridDimZ = 1;
        c.blockDimX = threads; c.blockDimY = 1; c.blockDimZ = 1;
        c.sharedMemBytes = 0;
        c.hStream = cs;
        c.attrs = coop ? &coop_attr : nullptr;
        c.numAttrs = coop ? 1 : 0;
        return c;
    };
    struct M { const char *name; std::function<void()> f; std::vector<float> ev; std::vector<double> host; };
    std::vector<M> ms = {
        {"cuLaunchCooperativeKernel", [&] { CU(cuLaunchCooperativeKernel(f, blocks, 1, 1, threads, 1, 1, 0, cs, params)); }, {}, {}},
        {"cuLaunchKernelEx + cooperative", [&] { CUlaunchConfig c = cfg(true); CU(cuLaunchKernelEx(&c, f, params, nullptr)); }, {}, {}},
        {"cuLaunchKernelEx plain", [&] { CUlaunchConfig c = cfg(false); CU(cuLaunchKernelEx(&c, f, params, nullptr)); }, {}, {}},
        {"cuLaunchKernel", [&] { CU(cuLaunchKernel(f, blocks, 1, 1, threads, 1, 1, 0, cs, params, nullptr)); }, {}, {}},
    };
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int r = 0; r < rounds + 5; ++r)
        for (auto &m : ms) {
            CK(cub::DeviceScan::InclusiveSum(cub_temp, cub_bytes, in, out, int(n), s));
            CK(cudaStreamSynchronize(s));
            CK(cudaEventRecord(e0, s));
            const auto t0 = std::chrono::steady_clock::now();
            m.f();
            const auto t1 = std::chrono::steady_clock::now();
            CK(cudaEventRecord(e1, s));
            CK(cudaEventSynchronize(e1));
            float x = 0;
            CK(cudaEventElapsedTime(&x, e0, e1));
            if (r < 5) continue;
            m.ev.push_back(x * 1000.f);
            m.host.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
        }
    printf("%s n = 65536, %d rounds, after a CUB scan: events median | p25 | p75, host median (us)\n\n| launch | events | p25 | p75 | host |\n|---|---:|---:|---:|---:|\n",
           sizeof(T) == 4 ? "u32" : "u64", rounds);
    for (auto &m : ms) {
        std::sort(m.ev.begin(), m.ev.end());
        std::sort(m.host.begin(), m.host.end());
        const size_t k = m.ev.size();
        printf("| %s | %.2f | %.2f | %.2f | %.3f |\n", m.name, m.ev[k / 2], m.ev[k / 4], m.ev[3 * k / 4], m.host[k / 2]);
    }
    printf("\n");
    CK(cudaFree(in)); CK(cudaFree(out)); CK(cudaFree(cub_temp));
}

int main(int argc, char **argv) {
    const int rounds = argc > 1 ? atoi(argv[1]) : 1000;
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (int i = 0; i < 2; ++i) {
        run<unsigned>(s, rounds);
        run<unsigned long long>(s, rounds);
    }
}
