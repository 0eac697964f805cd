// mid_probe.cu -- the look-back path (memset of the tile states + one
// kernel) at 2^17 .. 2^22 elements, u32 and u64 sums, for the tuned tile and
// smaller ones, against CUB and a memcpy: events around one call and device
// time per call from 41- vs 1-call graphs.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cub/device/device_scan.cuh>
#include "libscan/cuda/block_scan.cuh"
#include "libscan/cuda/device_scan.cuh"
#include "libscan/cuda/ops.cuh"
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

template <typename T, int B, int I, int M>
void variant(const T *in, T *out, size_t n, void *temp, const std::vector<T> &h_in, cudaStream_t s, float tc, float tcg) {
    using DS = libscan::DeviceScan<T, B, I, M>;
    libscan::DeviceScanArgs<T> a; a.in = in; a.out = out; a.n = n;
    const size_t tb = DS::temp_bytes(n);
    // the look-back path only: call the large path directly
    auto call = [&] {
        char *base = static_cast<char *>(temp);
        CK(cudaMemsetAsync(base, 0, tb, s));
        libscan::detail::ScanKernelParams<T> p; p.a = a; p.vector_ok = true;
        p.tile_counter = reinterpret_cast<unsigned *>(base); p.num_tiles = unsigned(DS::num_tiles(n));
        auto st = DS::State::on(base + DS::kCounterBytes);
        libscan::detail::device_scan_kernel<T, libscan::Sum<T>, B, I, M, 132, typename DS::State>
            <<<p.num_tiles, B, 0, s>>>(p, libscan::Sum<T>(), st);
        CK(cudaGetLastError());
    };
    CK(cudaMemsetAsync(out, 0xff, n * sizeof(T), s));
    call();
    std::vector<T> h(n);
    CK(cudaMemcpyAsync(h.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    T acc = 0; size_t bad = 0;
    for (size_t i = 0; i < n; ++i) { acc += h_in[i]; bad += h[i] != acc; }
    const float te = time_events(call, s), tg = time_graph(call, s);
    printf("| %zu-byte | 2^%d | %d x %d min %d | %zu | %.2f | %.3f | %.3f | %.3f | %zu bad |\n", sizeof(T), __builtin_ctzll(n), B, I, M,
           size_t(DS::num_tiles(n)), te, tg, te / tc, tg / tcg, bad);
}

__global__ void empty_kernel() {}

template <typename T> void run(cudaStream_t s, T *in, T *out, void *temp) {
    const size_t nmax = size_t(1) << 22;
    std::vector<T> h_in(nmax);
    for (size_t i = 0; i < nmax; ++i) h_in[i] = T(((i * 2654435761u) >> 7) % 1000u);
    CK(cudaMemcpy(in, h_in.data(), nmax * sizeof(T), cudaMemcpyHostToDevice));
    printf("| type | n | tile | tiles | events us | graph us | events/CUB | graph/CUB | check |\n|---|---|---|---:|---:|---:|---:|---:|---|\n");
    for (int lg = 17; lg <= 22; ++lg) {
        const size_t n = size_t(1) << lg;
        size_t cub_bytes = 0;
        CK(cub::DeviceScan::InclusiveSum(nullptr, cub_bytes, in, out, int(n), s));
        void *cub_temp;
        CK(cudaMalloc(&cub_temp, cub_bytes));
        auto cub = [&] { CK(cub::DeviceScan::InclusiveSum(cub_temp, cub_bytes, in, out, int(n), s)); };
        auto cpy = [&] { CK(cudaMemcpyAsync(out, in, n * sizeof(T), cudaMemcpyDeviceToDevice, s)); };
        const float tc = time_events(cub, s), tcg = time_graph(cub, s);
        printf("| %zu-byte | 2^%d | CUB | | %.2f | %.3f | memcpy %.2f / %.3f | | |\n", sizeof(T), lg, tc, tcg, time_events(cpy, s), time_graph(cpy, s));
        if constexpr (sizeof(T) == 4) {
            variant<T, 256, 32, 5>(in, out, n, temp, h_in, s, tc, tcg);
            variant<T, 256, 16, 5>(in, out, n, temp, h_in, s, tc, tcg);
            variant<T, 256, 8, 8>(in, out, n, temp, h_in, s, tc, tcg);
            variant<T, 128, 16, 8>(in, out, n, temp, h_in, s, tc, tcg);
            variant<T, 128, 8, 8>(in, out, n, temp, h_in, s, tc, tcg);
        } else {
            variant<T, 256, 16, 4>(in, out, n, temp, h_in, s, tc, tcg);
            variant<T, 256, 8, 4>(in, out, n, temp, h_in, s, tc, tcg);
            variant<T, 256, 4, 8>(in, out, n, temp, h_in, s, tc, tcg);
            variant<T, 128, 8, 8>(in, out, n, temp, h_in, s, tc, tcg);
            variant<T, 128, 4, 8>(in, out, n, temp, h_in, s, tc, tcg);
        }
        CK(cudaFree(cub_temp));
    }
}

int main() {
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    void *in, *out, *temp;
    CK(cudaMalloc(&in, 32 << 20)); CK(cudaMalloc(&out, 32 << 20)); CK(cudaMalloc(&temp, 4 << 20));
    auto e = [&] { empty_kernel<<<1, 32, 0, s>>>(); };
    auto m = [&] { CK(cudaMemsetAsync(temp, 0, 4096, s)); };
    printf("empty kernel events %.2f graph %.3f | memset 4 KiB events %.2f graph %.3f\n\n", time_events(e, s), time_graph(e, s), time_events(m, s), time_graph(m, s));
    run<unsigned>(s, (unsigned *)in, (unsigned *)out, temp);
    run<unsigned long long>(s, (unsigned long long *)in, (unsigned long long *)out, temp);
    return 0;
}
