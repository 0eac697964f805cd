// cluster_sweep.cu -- chooses ClusterTuning in libscan/include/libscan/cuda/tuning.cuh:
// times the single-cluster small scan (cluster_scan.cuh) for several
// (cluster blocks, threads, items) shapes against CUB, a memcpy and an empty
// kernel, two ways: CUDA events around one call on an idle stream (what
// bench_scan --small reports, host enqueue included) and 20 calls replayed
// from one CUDA graph (the device time of a call). Each shape's output is
// checked against a CPU running sum first. u32 sum, n = 2^10 .. 2^16.
// Run on the GPU: build/bench/cluster_sweep (results: bench/results/*cluster-sweep*).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cub/device/device_scan.cuh>
#include "libscan/cuda/cluster_scan.cuh"
#include "libscan/cuda/ops.cuh"
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d: %s\n", #x, __LINE__, cudaGetErrorString(e_)); exit(2);} } while (0)

static float median(std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }

__global__ void empty_kernel() {}

template <typename F> float time_events(F f, cudaStream_t s, int reps = 200) {
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
    for (int i = 0; i < 5; ++i) f();
    CK(cudaStreamSynchronize(s));
    std::vector<float> ts;
    for (int i = 0; i < reps; ++i) {
        CK(cudaEventRecord(a, s)); f(); CK(cudaEventRecord(b, s)); CK(cudaEventSynchronize(b));
        float ms; CK(cudaEventElapsedTime(&ms, a, b)); ts.push_back(ms * 1000);
    }
    CK(cudaEventDestroy(a)); CK(cudaEventDestroy(b));
    return median(ts);
}

template <typename F> float time_graph(F f, cudaStream_t s, int reps = 50) {
    constexpr int kCalls = 20;
    cudaGraph_t g; cudaGraphExec_t x;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    for (int i = 0; i < kCalls; ++i) f();
    CK(cudaStreamEndCapture(s, &g));
    CK(cudaGraphInstantiate(&x, g, 0));
    auto replay = [&] { CK(cudaGraphLaunch(x, s)); };
    float t = time_events(replay, s, reps) / kCalls;
    CK(cudaGraphExecDestroy(x)); CK(cudaGraphDestroy(g));
    return t;
}

template <int C, int B, int I>
void shape(const unsigned *in, unsigned *out, size_t n, const std::vector<unsigned> &h_in, cudaStream_t s, float t_cub) {
    using S = libscan::ClusterScan<unsigned, B, I, C>;
    if (n > S::kCapacity) return;
    if (!S::template supported<libscan::Sum<unsigned>>()) { printf("| %zu | %dx%dx%d | unsupported |\n", n, C, B, I); return; }
    libscan::ClusterScanArgs<unsigned> a{in, out, n, false, 0u, nullptr, nullptr, true};
    auto call = [&] { CK(S::run(a, libscan::Sum<unsigned>(), s)); };
    CK(cudaMemsetAsync(out, 0xff, n * 4, s));
    call();
    std::vector<unsigned> h(n);
    CK(cudaMemcpyAsync(h.data(), out, n * 4, cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    unsigned acc = 0;
    for (size_t i = 0; i < n; ++i) {
        acc += h_in[i];
        if (h[i] != acc) { printf("| %zu | %dx%dx%d | WRONG at %zu |\n", n, C, B, I, i); return; }
    }
    const float te = time_events(call, s), tg = time_graph(call, s);
    printf("| %zu | %d x %d x %d | %.2f | %.2f | %.3f |\n", n, C, B, I, te, tg, te / t_cub);
}

int main() {
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("%s (%d SMs)\n\n", prop.name, prop.multiProcessorCount);
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    const size_t nmax = size_t(1) << 16;
    unsigned *in, *out;
    CK(cudaMalloc(&in, nmax * 4)); CK(cudaMalloc(&out, nmax * 4));
    std::vector<unsigned> h_in(nmax);
    for (size_t i = 0; i < nmax; ++i) h_in[i] = unsigned((i * 2654435761u) >> 7) % 1000u;
    CK(cudaMemcpy(in, h_in.data(), nmax * 4, cudaMemcpyHostToDevice));
    for (int lg = 10; lg <= 16; lg += 2) {
        const size_t n = size_t(1) << lg;
        size_t cub_bytes = 0;
        CK(cub::DeviceScan::InclusiveSum(nullptr, cub_bytes, in, out, int(n), s));
        void *cub_temp;
        CK(cudaMalloc(&cub_temp, cub_bytes));
        auto cub = [&] { CK(cub::DeviceScan::InclusiveSum(cub_temp, cub_bytes, in, out, int(n), s)); };
        auto cpy = [&] { CK(cudaMemcpyAsync(out, in, n * 4, cudaMemcpyDeviceToDevice, s)); };
        auto nop = [&] { empty_kernel<<<1, 32, 0, s>>>(); CK(cudaGetLastError()); };
        const float tc = time_events(cub, s);
        printf("n = 2^%d: CUB events %.2f us, graph %.2f; memcpy %.2f / %.2f; empty kernel %.2f / %.2f\n\n", lg, tc,
               time_graph(cub, s), time_events(cpy, s), time_graph(cpy, s), time_events(nop, s), time_graph(nop, s));
        printf("| n | cluster x threads x items | events us | graph us | events / CUB |\n| --- | --- | ---: | ---: | ---: |\n");
        shape<16, 256, 16>(in, out, n, h_in, s, tc);
        shape<8, 512, 16>(in, out, n, h_in, s, tc);
        shape<8, 256, 32>(in, out, n, h_in, s, tc);
        shape<4, 512, 32>(in, out, n, h_in, s, tc);
        shape<4, 1024, 16>(in, out, n, h_in, s, tc);
        shape<2, 1024, 32>(in, out, n, h_in, s, tc);
        shape<2, 512, 16>(in, out, n, h_in, s, tc);
        shape<1, 1024, 16>(in, out, n, h_in, s, tc);
        shape<1, 256, 16>(in, out, n, h_in, s, tc);
        printf("\n");
        CK(cudaFree(cub_temp));
    }
    return 0;
}
