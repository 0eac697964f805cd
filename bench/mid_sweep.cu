// mid_sweep.cu -- the mid-size kernel of the look-back scan (tuning.cuh,
// kMidMaxTiles): for 2^17 .. 2^24 elements (--min-log / --max-log), the
// library's choice, the large kernel and the mid-size kernel at two
// register budgets (minB = __launch_bounds__ minimum), each forced for every
// size. Each is checked against a CPU running sum, then timed two ways in
// the same run as CUB's InclusiveSum:
// device time per call from CUDA graphs (the memset of the tile states and
// the kernel; CUB's init and scan kernels) and events around one call on an
// idle stream (host enqueue included). Sum operator, inclusive.
// Run on the GPU: build/bench/mid_sweep [--8byte] [--min-log K] [--max-log K] (results:
// bench/results/*mid-sweep*).
#include <cub/device/device_scan.cuh>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#include "libscan/cuda/device_scan.cuh"
#include "sweep_util.cuh"

namespace {

struct Buffers {
    void *in, *out, *temp;
    size_t temp_bytes;
};

// Output of one run against the CPU: integers exact, floats within 1e-5.
template <typename T> bool check(const std::vector<T> &h_in, const T *d_out, size_t n) {
    std::vector<T> h(n);
    CK(cudaMemcpy(h.data(), d_out, n * sizeof(T), cudaMemcpyDeviceToHost));
    double acc = 0;
    T iacc = 0;
    for (size_t i = 0; i < n; ++i) {
        acc += double(h_in[i]);
        iacc = T(iacc + h_in[i]);
        const bool bad = std::is_floating_point_v<T> ? (double(h[i]) - acc > 1e-5 * acc + 1 || acc - double(h[i]) > 1e-5 * acc + 1)
                                                     : h[i] != iacc;
        if (bad) {
            printf("  mismatch at %zu of %zu: got %g want %g\n", i, n, double(h[i]), acc);
            return false;
        }
    }
    return true;
}

// One configuration of DeviceScan: the library's own choice (D = the
// default DeviceScan<T>), or one kernel forced for every size (MID_TILES 0:
// always the large kernel; huge: always the mid-size one).
template <typename T, class D>
void config(const char *what, const Buffers &b, size_t n, const std::vector<T> &h_in, cudaStream_t s, float cub_graph,
            float cub_events) {
    libscan::DeviceScanArgs<T> a;
    a.in = static_cast<const T *>(b.in);
    a.out = static_cast<T *>(b.out);
    a.n = n;
    if (D::temp_bytes(n) > b.temp_bytes) {
        printf("  temp too small\n");
        exit(2);
    }
    auto f = [&] { CK(D::run(a, libscan::Sum<T>(), b.temp, b.temp_bytes, s)); };
    CK(cudaMemsetAsync(b.out, 0xff, n * sizeof(T), s));
    f();
    CK(cudaStreamSynchronize(s));
    const bool ok = check(h_in, a.out, n);
    const float g = time_graph(f, s), e = time_events(f, s);
    printf("  %-3s %-22s (%5zu tiles): graph %7.2f us (%.3f CUB)  events %7.2f us (%.3f CUB)\n", ok ? "ok" : "BAD", what,
           D::num_tiles(n), g, g / cub_graph, e, e / cub_events);
}

template <typename T> void suite(const char *name, int log2n, cudaStream_t s) {
    const size_t n = size_t(1) << log2n;
    Buffers b;
    b.temp_bytes = size_t(64) << 20; // tile states of 2^28 elements and more
    CK(cudaMalloc(&b.in, n * sizeof(T)));
    CK(cudaMalloc(&b.out, n * sizeof(T)));
    CK(cudaMalloc(&b.temp, b.temp_bytes));
    T *in = static_cast<T *>(b.in), *out = static_cast<T *>(b.out);
    sweep_fill<T><<<1024, 256, 0, s>>>(in, n, 1234u + unsigned(log2n));
    std::vector<T> h_in(n);
    CK(cudaMemcpyAsync(h_in.data(), in, n * sizeof(T), cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));

    size_t cub_bytes = 0;
    CK(cub::DeviceScan::InclusiveSum(nullptr, cub_bytes, in, out, int64_t(n), s));
    void *cub_temp;
    CK(cudaMalloc(&cub_temp, cub_bytes));
    auto cub = [&] { CK(cub::DeviceScan::InclusiveSum(cub_temp, cub_bytes, in, out, int64_t(n), s)); };
    auto cpy = [&] { CK(cudaMemcpyAsync(out, in, n * sizeof(T), cudaMemcpyDeviceToDevice, s)); };
    const float cg = time_graph(cub, s), ce = time_events(cub, s);
    const float mg = time_graph(cpy, s), me = time_events(cpy, s);
    printf("%s 2^%d: CUB graph %.2f us events %.2f us | memcpy graph %.2f events %.2f\n", name, log2n, cg, ce, mg, me);
    using Tu = libscan::ScanTuning<sizeof(T)>;
    constexpr int B = Tu::kBlockThreads, I = Tu::kItemsPerThread, M = libscan::scan_min_blocks<T>(), P = Tu::kPrefetchTiles;
    constexpr size_t kAll = ~size_t(0);
    config<T, libscan::DeviceScan<T>>("library", b, n, h_in, s, cg, ce);
    config<T, libscan::DeviceScan<T, B, I, M, P, 0>>("large kernel", b, n, h_in, s, cg, ce);
    if constexpr (sizeof(T) == 4) {
        config<T, libscan::DeviceScan<T, B, I, M, P, kAll, 4>>("mid kernel, minB 4", b, n, h_in, s, cg, ce);
        config<T, libscan::DeviceScan<T, B, I, M, P, kAll, 5>>("mid kernel, minB 5", b, n, h_in, s, cg, ce);
    } else {
        config<T, libscan::DeviceScan<T, B, I, M, P, kAll, 3>>("mid kernel, minB 3", b, n, h_in, s, cg, ce);
        config<T, libscan::DeviceScan<T, B, I, M, P, kAll, 4>>("mid kernel, minB 4", b, n, h_in, s, cg, ce);
    }
    CK(cudaFree(b.in));
    CK(cudaFree(b.out));
    CK(cudaFree(b.temp));
    CK(cudaFree(cub_temp));
}

} // namespace

int main(int argc, char **argv) {
    bool wide_only = false;
    int lo = 17, hi = 24;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--8byte") wide_only = true;
        else if (a == "--min-log" && i + 1 < argc) lo = std::atoi(argv[++i]);
        else if (a == "--max-log" && i + 1 < argc) hi = std::atoi(argv[++i]);
    }
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    printf("%s, %d SMs; graph = device time per call (41- vs 1-call graphs), events = one call on an idle stream\n",
           p.name, p.multiProcessorCount);
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (int k = lo; k <= hi; ++k) {
        if (!wide_only) suite<unsigned>("u32", k, s);
        if (!wide_only && k % 2 == 0) suite<float>("f32", k, s);
        suite<unsigned long long>("u64", k, s);
    }
    CK(cudaStreamDestroy(s));
    return 0;
}
