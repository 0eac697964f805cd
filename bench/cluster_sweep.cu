// cluster_sweep.cu -- chooses ClusterTuning in libscan/include/libscan/cuda/tuning.cuh:
// times the single-cluster small scan (cluster_scan.cuh) for several
// (cluster blocks, threads, items) shapes against CUB, a memcpy and an empty
// kernel, two ways: CUDA events around one call on an idle stream (what
// bench_scan reports, host enqueue included) and calls replayed from CUDA
// graphs (the device time of a call). Each shape's output is
// checked against a CPU running sum first. u32 and u64 sums, n = 2^10 and 2^16;
// the graph column is the device time per call.
// Run on the GPU: build/bench/cluster_sweep (results: bench/results/*cluster-sweep*).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cub/device/device_scan.cuh>
#include "libscan/cuda/cluster_scan.cuh"
#include "libscan/cuda/ops.cuh"
#include "sweep_util.cuh"

__global__ void empty_kernel() {}

template <typename T, int C, int B, int I>
void shape(const T *in, T *out, size_t n, const std::vector<T> &h_in, cudaStream_t s, float t_cub) {
    using S = libscan::ClusterScan<T, B, I, C>;
    const char *tn = sizeof(T) == 4 ? "u32" : "u64";
    if (n > S::kCapacity) return;
    if (!S::template supported<libscan::Sum<T>>()) { printf("| %s | %zu | %dx%dx%d | unsupported |\n", tn, n, C, B, I); return; }
    libscan::SmallScanArgs<T> a{in, out, n, false, T(0), nullptr, nullptr, true};
    auto call = [&] { CK(S::run(a, libscan::Sum<T>(), s)); };
    CK(cudaMemsetAsync(out, 0xff, n * sizeof(T), s));
    call();
    std::vector<T> h(n);
    CK(cudaMemcpyAsync(h.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    T acc = 0;
    for (size_t i = 0; i < n; ++i) {
        acc += h_in[i];
        if (h[i] != acc) { printf("| %s | %zu | %dx%dx%d | WRONG at %zu |\n", tn, n, C, B, I, i); return; }
    }
    const float te = time_events(call, s), tg = time_graph(call, s);
    printf("| %s | %zu | %d x %d x %d | %.2f | %.3f | %.3f |\n", tn, n, C, B, I, te, tg, te / t_cub);
}

template <typename T> void sweep(cudaStream_t s, T *in, T *out) {
    const size_t nmax = size_t(1) << 16;
    std::vector<T> h_in(nmax);
    for (size_t i = 0; i < nmax; ++i) h_in[i] = T(((i * 2654435761u) >> 7) % 1000u);
    CK(cudaMemcpy(in, h_in.data(), nmax * sizeof(T), cudaMemcpyHostToDevice));
    for (int lg = 10; lg <= 16; lg += 6) {
        const size_t n = size_t(1) << lg;
        size_t cub_bytes = 0;
        CK(cub::DeviceScan::InclusiveSum(nullptr, cub_bytes, in, out, int(n), s));
        void *cub_temp;
        CK(cudaMalloc(&cub_temp, cub_bytes));
        auto cub = [&] { CK(cub::DeviceScan::InclusiveSum(cub_temp, cub_bytes, in, out, int(n), s)); };
        auto cpy = [&] { CK(cudaMemcpyAsync(out, in, n * sizeof(T), cudaMemcpyDeviceToDevice, s)); };
        auto nop = [&] { empty_kernel<<<1, 32, 0, s>>>(); CK(cudaGetLastError()); };
        const float tc = time_events(cub, s);
        printf("%zu-byte elements, n = 2^%d: CUB events %.2f us, graph %.3f; memcpy %.2f / %.3f; empty kernel %.2f / %.3f\n\n",
               sizeof(T), lg, tc, time_graph(cub, s), time_events(cpy, s), time_graph(cpy, s), time_events(nop, s),
               time_graph(nop, s));
        printf("| type | n | cluster x threads x items | events us | graph us per call | events / CUB |\n"
               "| --- | --- | --- | ---: | ---: | ---: |\n");
        shape<T, 16, 64, 64>(in, out, n, h_in, s, tc);
        shape<T, 16, 128, 32>(in, out, n, h_in, s, tc);
        shape<T, 16, 256, 16>(in, out, n, h_in, s, tc);
        shape<T, 16, 512, 8>(in, out, n, h_in, s, tc);
        shape<T, 8, 512, 16>(in, out, n, h_in, s, tc);
        shape<T, 8, 256, 32>(in, out, n, h_in, s, tc);
        shape<T, 1, 256, 16>(in, out, n, h_in, s, tc);
        printf("\n");
        CK(cudaFree(cub_temp));
    }
}

int main() {
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("%s (%d SMs)\n\n", prop.name, prop.multiProcessorCount);
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    const size_t nmax = size_t(1) << 16;
    void *in, *out;
    CK(cudaMalloc(&in, nmax * 8));
    CK(cudaMalloc(&out, nmax * 8));
    sweep<unsigned>(s, static_cast<unsigned *>(in), static_cast<unsigned *>(out));
    sweep<unsigned long long>(s, static_cast<unsigned long long *>(in), static_cast<unsigned long long *>(out));
    return 0;
}
