// histogram_sweep.cu -- policies of the radix sort's upfront histogram kernel
// (onesweep.cuh, histogram_kernel<K, Policy>) on 2^N u32 keys, each timed
// alone; the run that picks HistogramTuning is named there.
//
//   histogram_sweep [--log2n N] [--reps R]
//
// Distributions: uniform, sorted (a warp's high digits are equal), all equal.
// Every variant's 4 x 256 counts are checked against a plain global-atomic
// reference kernel. Also times a device read of the keys' bytes (the floor).
// Exit: 0 ok, 1 usage, 2 CUDA error, 3 counts differ.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include "../bench_timing.cuh"
#define BENCH_PROGRAM "histogram_sweep"
#include "../bench_check.cuh"
#include "libscan/cuda/onesweep.cuh"

namespace {

using libscan::sort::kRadix;

template <int B, int I, int P, bool MINOR, bool VOTE> struct Pol {
    static constexpr int kBlockThreads = B, kItemsPerThread = I, kParts = P; // blocks per SM: given at launch
    static constexpr bool kPartMinor = MINOR, kUniformVote = VOTE;
};

__global__ void fill(uint32_t *x, size_t n, int dist) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
        uint64_t h = (i + 1) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
        h *= 0xbf58476d1ce4e5b9ull;
        x[i] = dist == 0 ? uint32_t(h >> 32) : dist == 1 ? uint32_t(i * 7) : 0x12345678u;
    }
}
__global__ void reference(const uint32_t *x, size_t n, unsigned long long *h) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        for (int p = 0; p < 4; ++p) atomicAdd(h + p * kRadix + ((x[i] >> (8 * p)) & 0xff), 1ull);
}
__global__ void read_all(const uint4 *x, size_t n4, unsigned *sink) {
    unsigned a = 0;
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n4; i += size_t(gridDim.x) * blockDim.x)
        a ^= x[i].x ^ x[i].y ^ x[i].z ^ x[i].w;
    if (a == 0x9e3779b9u) *sink = a; // keeps the loads
}

struct Ctx {
    uint32_t *keys;
    size_t n;
    unsigned long long *hist;
    std::vector<unsigned long long> ref;
    cudaStream_t s;
    int reps, sms;
};

double time_us(const Ctx &c, const std::function<void()> &f) {
    bench::EventTimes t;
    CK(bench::time_events(c.s, 2, c.reps, f, &t));
    return t.upper_median() * 1000.0;
}

template <class P> bool variant(const Ctx &c, const char *name, int bps) {
    libscan::sort::HistogramParams<uint32_t> hp{};
    hp.keys = c.keys;
    hp.n = c.n;
    hp.codec = libscan::sort::Codec<uint32_t>{0u, 0u};
    hp.first_shift = 0;
    hp.end_bit = 32;
    hp.passes = 4;
    hp.hist = c.hist;
    const unsigned blocks = unsigned(c.sms * bps);
    auto call = [&] {
        CK(cudaMemsetAsync(c.hist, 0, 4 * kRadix * 8, c.s));
        libscan::sort::histogram_kernel<uint32_t, P><<<blocks, P::kBlockThreads, 0, c.s>>>(hp);
        CK(cudaGetLastError());
    };
    call();
    std::vector<unsigned long long> got(4 * kRadix);
    CK(cudaStreamSynchronize(c.s));
    CK(cudaMemcpy(got.data(), c.hist, got.size() * 8, cudaMemcpyDeviceToHost));
    const bool ok = got == c.ref;
    const double us = time_us(c, call);
    std::printf("  %-34s bps %2d  %7.1f us  %s\n", name, bps, us, ok ? "ok" : "DIFFERS");
    std::fflush(stdout);
    return ok;
}

} // namespace

int main(int argc, char **argv) {
    int log2n = 28, reps = 11;
    for (int i = 1; i < argc; ++i) {
        const bool has = i + 1 < argc;
        if (!std::strcmp(argv[i], "--log2n") && has) log2n = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--reps") && has) reps = std::atoi(argv[++i]);
        else {
            std::fprintf(stderr, "usage: histogram_sweep [--log2n N (12..30)] [--reps R (>= 1)]\n");
            return 1;
        }
    }
    if (log2n < 12 || log2n > 30 || reps < 1) {
        std::fprintf(stderr, "histogram_sweep: --log2n 12..30, --reps >= 1\n");
        return 1;
    }
    Ctx c{};
    c.n = size_t(1) << log2n;
    c.reps = reps;
    CK(cudaStreamCreateWithFlags(&c.s, cudaStreamNonBlocking));
    CK(cudaMalloc(&c.keys, c.n * 4));
    CK(cudaMalloc(&c.hist, 4 * kRadix * 8));
    unsigned *sink;
    CK(cudaMalloc(&sink, 4));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    c.sms = prop.multiProcessorCount;
    std::printf("%s, u32 keys n = 2^%d, median of %d\n", prop.name, log2n, reps);
    bool ok = true;
    const char *dists[3] = {"uniform", "sorted", "all-equal"};
    for (int d = 0; d < 3; ++d) {
        fill<<<c.sms * 8, 256, 0, c.s>>>(c.keys, c.n, d);
        CK(cudaMemsetAsync(c.hist, 0, 4 * kRadix * 8, c.s));
        reference<<<c.sms * 8, 256, 0, c.s>>>(c.keys, c.n, c.hist);
        CK(cudaGetLastError());
        CK(cudaStreamSynchronize(c.s));
        c.ref.assign(4 * kRadix, 0);
        CK(cudaMemcpy(c.ref.data(), c.hist, c.ref.size() * 8, cudaMemcpyDeviceToHost));
        std::printf("%s: read floor %.1f us\n", dists[d], time_us(c, [&] {
                        read_all<<<c.sms * 8, 512, 0, c.s>>>(reinterpret_cast<const uint4 *>(c.keys), c.n / 4, sink);
                    }));
        ok &= variant<libscan::sort::HistogramTuning>(c, "tuning table", libscan::sort::HistogramTuning::kBlocksPerSm);
        ok &= variant<Pol<256, 16, 4, false, true>>(c, "256x16 parts4 major vote", 4);
        ok &= variant<Pol<256, 16, 4, false, false>>(c, "256x16 parts4 major", 4);
        ok &= variant<Pol<256, 16, 4, false, false>>(c, "256x16 parts4 major", 8);
        ok &= variant<Pol<256, 16, 4, true, false>>(c, "256x16 parts4 minor", 8);
        ok &= variant<Pol<256, 16, 2, true, false>>(c, "256x16 parts2 minor", 8);
        ok &= variant<Pol<256, 16, 1, false, false>>(c, "256x16 parts1", 4);
        ok &= variant<Pol<256, 16, 1, false, false>>(c, "256x16 parts1", 8);
        ok &= variant<Pol<128, 16, 1, false, false>>(c, "128x16 parts1", 12);
        ok &= variant<Pol<128, 16, 1, false, false>>(c, "128x16 parts1", 16);
        ok &= variant<Pol<256, 32, 1, false, false>>(c, "256x32 parts1", 8);
        ok &= variant<Pol<256, 8, 1, false, false>>(c, "256x8 parts1", 8);
        ok &= variant<Pol<256, 16, 2, true, true>>(c, "256x16 parts2 minor vote", 8);
        ok &= variant<Pol<128, 16, 1, false, true>>(c, "128x16 parts1 vote", 16);
    }
    return ok ? 0 : 3;
}
