// coop_probe.cu -- is a cooperative (grid-synchronised) one-launch scan
// faster than the one-cluster scan for small n? Device time per call from
// 41- vs 1-call graphs, and events around one call.
#include <algorithm>
#include <cooperative_groups.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cub/device/device_scan.cuh>
#include "libscan/cuda/block_scan.cuh"
#include "libscan/cuda/cluster_scan.cuh"
#include "libscan/cuda/ops.cuh"
namespace cg = cooperative_groups;
#include "../../bench_timing.cuh"
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d: %s\n", #x, __LINE__, cudaGetErrorString(e_)); exit(2);} } while (0)

// Timing loops of bench/bench_timing.cuh: events around one call (upper
// median of reps after 5 warm-ups) and device time per call (41- vs 1-call
// graphs), in microseconds.
template <typename F> float time_events(F f, cudaStream_t s, int reps = 200) {
    bench::EventTimes t; CK(bench::time_events(s, 5, reps, f, &t)); return float(t.upper_median() * 1000.0);
}
template <typename F> float time_graph(F f, cudaStream_t s, int reps = 50) {
    double us = 0; CK(bench::time_graph_call(s, reps, f, &us)); return float(us);
}

__global__ void empty_kernel() {}
__global__ void sync_kernel() { cg::this_grid().sync(); }

// One tile per block; aggregates through scratch, one grid sync.
template <typename T, int BLOCK, int IPT>
__global__ void __launch_bounds__(BLOCK) coop_scan(const T *in, T *out, size_t n, T *scratch) {
    constexpr int V = 16 / sizeof(T), K = IPT / V;
    using BS = libscan::BlockScan<T, BLOCK>;
    __shared__ typename BS::TempStorage temp;
    __shared__ T s_prefix;
    libscan::Sum<T> op;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const size_t first = size_t(blockIdx.x) * BLOCK * IPT + size_t(warp) * 32 * IPT + lane * V;
    T items[K][V];
#pragma unroll
    for (int k = 0; k < K; ++k) {
        uint4 q = *reinterpret_cast<const uint4 *>(in + first + k * 32 * V);
        memcpy(items[k], &q, 16);
    }
    T agg;
    libscan::NoBlockPrefix none;
    BS(temp).template ScanWarpStriped<K, V>(items, false, op, agg, none);
    if (threadIdx.x == 0) scratch[blockIdx.x] = agg;
    cg::this_grid().sync();
    if (warp == 0) {
        T x = op.identity();
        for (unsigned j = lane; j < blockIdx.x; j += 32) x = op(x, scratch[j]);
        T p = libscan::WarpScan<T>::Broadcast(libscan::WarpScan<T>::InclusiveScan(x, op), 31);
        if (lane == 0) s_prefix = p;
    }
    __syncthreads();
    const T p = s_prefix;
#pragma unroll
    for (int k = 0; k < K; ++k) {
#pragma unroll
        for (int v = 0; v < V; ++v) items[k][v] = op(p, items[k][v]);
        uint4 q;
        memcpy(&q, items[k], 16);
        *reinterpret_cast<uint4 *>(out + first + k * 32 * V) = q;
    }
    (void)n;
}

template <typename T, int BLOCK, int IPT>
void coop_shape(const T *in, T *out, size_t n, T *scratch, const std::vector<T> &h_in, cudaStream_t s, float tc) {
    const unsigned G = unsigned(n / (BLOCK * IPT));
    auto k = coop_scan<T, BLOCK, IPT>;
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, BLOCK, 0));
    auto call = [&] {
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = dim3(G); cfg.blockDim = dim3(BLOCK); cfg.stream = s;
        cudaLaunchAttribute at[1];
        at[0].id = cudaLaunchAttributeCooperative; at[0].val.cooperative = 1;
        cfg.attrs = at; cfg.numAttrs = 1;
        CK(cudaLaunchKernelEx(&cfg, k, in, out, n, scratch));
    };
    CK(cudaMemsetAsync(out, 0xff, n * sizeof(T), s));
    call();
    std::vector<T> h(n);
    CK(cudaMemcpyAsync(h.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    T acc = 0; size_t bad = 0;
    for (size_t i = 0; i < n; ++i) { acc += h_in[i]; bad += h[i] != acc; }
    const float te = time_events(call, s), tg = time_graph(call, s);
    printf("| coop %zu-byte | %zu | %u x %d x %d (%d/SM) | %.2f | %.3f | %.3f | %zu bad |\n", sizeof(T), n, G, BLOCK, IPT,
           per_sm, te, tg, te / tc, bad);
}

template <typename T> void run(cudaStream_t s, T *in, T *out, T *scratch) {
    const size_t n = size_t(1) << 16;
    std::vector<T> h_in(n);
    for (size_t i = 0; i < n; ++i) h_in[i] = T(((i * 2654435761u) >> 7) % 1000u);
    CK(cudaMemcpy(in, h_in.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    size_t cub_bytes = 0;
    CK(cub::DeviceScan::InclusiveSum(nullptr, cub_bytes, in, out, int(n), s));
    void *cub_temp;
    CK(cudaMalloc(&cub_temp, cub_bytes));
    auto cub = [&] { CK(cub::DeviceScan::InclusiveSum(cub_temp, cub_bytes, in, out, int(n), s)); };
    const float tc = time_events(cub, s);
    printf("\n%zu-byte, n=2^16: CUB events %.2f graph %.3f\n", sizeof(T), tc, time_graph(cub, s));
    printf("| kernel | n | shape | events us | graph us | events/CUB | check |\n|---|---|---|---:|---:|---:|---|\n");
    {
        using S = libscan::ClusterScan<T, sizeof(T) == 4 ? 128 : 256, sizeof(T) == 4 ? 32 : 16, 16>;
        libscan::ClusterScanArgs<T> a{in, out, n, false, T(0), nullptr, nullptr, true};
        auto call = [&] { CK(S::run(a, libscan::Sum<T>(), s)); };
        const float te = time_events(call, s), tg = time_graph(call, s);
        printf("| cluster | %zu | tuned | %.2f | %.3f | %.3f | |\n", n, te, tg, te / tc);
    }
    coop_shape<T, 256, 8>(in, out, n, scratch, h_in, s, tc);
    coop_shape<T, 256, 4>(in, out, n, scratch, h_in, s, tc);
    coop_shape<T, 128, 8>(in, out, n, scratch, h_in, s, tc);
    coop_shape<T, 128, 4>(in, out, n, scratch, h_in, s, tc);
    if (sizeof(T) == 4) coop_shape<T, 256, 16>(in, out, n, scratch, h_in, s, tc);
    if (sizeof(T) == 8) coop_shape<T, 64, 4>(in, out, n, scratch, h_in, s, tc);
    CK(cudaFree(cub_temp));
}

int main() {
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    void *in, *out, *scratch;
    CK(cudaMalloc(&in, 1 << 20)); CK(cudaMalloc(&out, 1 << 20)); CK(cudaMalloc(&scratch, 1 << 16));
    for (int G : {16, 32, 64, 128, 256}) {
        auto coop = [&](auto k) {
            cudaLaunchConfig_t cfg = {};
            cfg.gridDim = dim3(G); cfg.blockDim = dim3(256); cfg.stream = s;
            cudaLaunchAttribute at[1];
            at[0].id = cudaLaunchAttributeCooperative; at[0].val.cooperative = 1;
            cfg.attrs = at; cfg.numAttrs = 1;
            CK(cudaLaunchKernelEx(&cfg, k));
        };
        auto e = [&] { coop(empty_kernel); };
        auto y = [&] { coop(sync_kernel); };
        auto p = [&] { empty_kernel<<<G, 256, 0, s>>>(); };
        printf("G=%d: plain empty events %.2f graph %.3f | coop empty %.2f / %.3f | coop grid.sync %.2f / %.3f\n", G,
               time_events(p, s), time_graph(p, s), time_events(e, s), time_graph(e, s), time_events(y, s),
               time_graph(y, s));
    }
    run<unsigned>(s, (unsigned *)in, (unsigned *)out, (unsigned *)scratch);
    run<unsigned long long>(s, (unsigned long long *)in, (unsigned long long *)out, (unsigned long long *)scratch);
    return 0;
}
