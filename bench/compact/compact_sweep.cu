// compact_sweep.cu -- tile shapes and minimum blocks per SM of the u32
// compaction kernel (compact.cuh's DeviceCompact template), against CUB in
// the same run; the run that picks CompactTuning<4> is named there.
//
//   compact_sweep [--log2n N] [--reps R]
//
// Cases: select-if at 1%, 50% and 99% kept, partition-if at 50%, unique with
// about 1% of positions starting a run. Each variant's output is checked
// against CUB's (count and values) before it is timed. Times: median of R
// calls, each alone between CUDA events. Exit: 0 ok, 1 usage, 2 CUDA error,
// 3 a variant differed from CUB.
#include <cub/device/device_partition.cuh>
#include <cub/device/device_select.cuh>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>

#include "../bench.h"
#include "../bench_timing.cuh"
#define BENCH_PROGRAM "compact_sweep"
#include "../bench_check.cuh"
#include "libscan/cuda/compact.cuh"

namespace {

__host__ __device__ inline uint32_t mix32(uint64_t x) { return static_cast<uint32_t>(bench::mix64(x) >> 32); }
__global__ void fill_random(uint32_t *x, size_t n, uint64_t seed) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        x[i] = mix32(seed + i);
}
// Runs: x[i] = index of the last position <= i whose hash is below thr
// (position 0 always), found by walking back (runs are short at 1%).
__global__ void fill_runs(uint32_t *x, size_t n, uint32_t thr, uint64_t seed) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
        size_t j = i;
        while (j > 0 && mix32(seed ^ (j * 0x2545f4914f6cdd1dull)) >= thr) --j;
        x[i] = static_cast<uint32_t>(j);
    }
}
__global__ void count_diff(const uint32_t *a, const uint32_t *b, size_t n, unsigned long long *bad) {
    unsigned long long c = 0;
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        c += a[i] != b[i];
    if (c) atomicAdd(bad, c);
}
struct Below {
    uint32_t t;
    __device__ bool operator()(uint32_t x) const { return x < t; }
};

struct Buffers {
    uint32_t *in, *out, *rej, *ref, *ref_rej;
    size_t *num;
    int64_t *ref_num;
    unsigned long long *bad;
    void *temp;
    size_t temp_bytes;
    size_t n;
    cudaStream_t s;
    int reps;
};

enum Op { kSelect, kPartition, kUnique };

bool same_as_cub(const Buffers &b, Op op) {
    size_t k = 0;
    int64_t kr = 0;
    CK(cudaStreamSynchronize(b.s));
    CK(cudaMemcpy(&k, b.num, sizeof k, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&kr, b.ref_num, sizeof kr, cudaMemcpyDeviceToHost));
    if (static_cast<int64_t>(k) != kr) return false;
    CK(cudaMemset(b.bad, 0, sizeof *b.bad));
    count_diff<<<1056, 256>>>(b.out, b.ref, k, b.bad);
    unsigned long long bad = 0;
    CK(cudaMemcpy(&bad, b.bad, sizeof bad, cudaMemcpyDeviceToHost));
    (void)op; // partition's rejected half: CUB writes it reversed; the kept half is checked
    return bad == 0;
}

double median_us(const Buffers &b, const std::function<void()> &f) {
    bench::EventTimes t;
    CK(bench::time_events(b.s, 2, b.reps, f, &t));
    return t.upper_median() * 1000.0;
}

template <int BLOCK, int IPT, int MINB>
bool variant(const Buffers &b, Op op, uint32_t thr, double cub_us, const char *what) {
    using DC = libscan::compact::DeviceCompact<uint32_t, BLOCK, IPT, MINB>;
    if (DC::temp_bytes(b.n) > b.temp_bytes) {
        std::fprintf(stderr, "compact_sweep: temp too small\n");
        std::exit(2);
    }
    auto call = [&] {
        switch (op) {
        case kSelect: CK(DC::select_if(b.in, b.out, b.num, b.n, Below{thr}, b.temp, b.temp_bytes, b.s)); break;
        case kPartition:
            CK(DC::partition_if(b.in, b.out, b.rej, b.num, b.n, Below{thr}, b.temp, b.temp_bytes, b.s));
            break;
        case kUnique: CK(DC::unique(b.in, b.out, b.num, b.n, b.temp, b.temp_bytes, b.s)); break;
        }
    };
    CK(cudaMemsetAsync(b.out, 0xa5, b.n * 4, b.s));
    call();
    const bool ok = same_as_cub(b, op);
    const double us = median_us(b, call);
    std::printf("  %-14s %3dx%-2d minB%d  %8.1f us  %.3fx CUB  %s\n", what, BLOCK, IPT, MINB, us, us / cub_us,
                ok ? "ok" : "DIFFERS");
    std::fflush(stdout);
    return ok;
}

} // namespace

int main(int argc, char **argv) {
    int log2n = 28, reps = 15;
    for (int i = 1; i < argc; ++i) {
        const bool has = i + 1 < argc;
        if (!std::strcmp(argv[i], "--log2n") && has) log2n = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--reps") && has) reps = std::atoi(argv[++i]);
        else {
            std::fprintf(stderr, "usage: compact_sweep [--log2n N (10..30)] [--reps R (>= 1)]\n");
            return 1;
        }
    }
    if (log2n < 10 || log2n > 30 || reps < 1) {
        std::fprintf(stderr, "compact_sweep: --log2n 10..30, --reps >= 1\n");
        return 1;
    }
    Buffers b{};
    b.n = size_t(1) << log2n;
    b.reps = reps;
    CK(cudaStreamCreateWithFlags(&b.s, cudaStreamNonBlocking));
    for (uint32_t **p : {&b.in, &b.out, &b.rej, &b.ref, &b.ref_rej}) CK(cudaMalloc(p, b.n * 4));
    CK(cudaMalloc(&b.num, sizeof(size_t)));
    CK(cudaMalloc(&b.ref_num, sizeof(int64_t)));
    CK(cudaMalloc(&b.bad, sizeof(unsigned long long)));
    // Scratch for every variant (the smallest tile needs the most tile states) and CUB.
    b.temp_bytes = libscan::compact::DeviceCompact<uint32_t, 256, 8, 1>::temp_bytes(b.n);
    const int64_t nn = static_cast<int64_t>(b.n);
    size_t cub_bytes = 0, t = 0;
    CK(cub::DeviceSelect::If(nullptr, t, b.in, b.ref, b.ref_num, nn, Below{0}, b.s));
    cub_bytes = t > cub_bytes ? t : cub_bytes;
    CK(cub::DevicePartition::If(nullptr, t = 0, b.in, b.ref, b.ref_num, nn, Below{0}, b.s));
    cub_bytes = t > cub_bytes ? t : cub_bytes;
    CK(cub::DeviceSelect::Unique(nullptr, t = 0, b.in, b.ref, b.ref_num, nn, b.s));
    cub_bytes = t > cub_bytes ? t : cub_bytes;
    if (cub_bytes > b.temp_bytes) b.temp_bytes = cub_bytes;
    CK(cudaMalloc(&b.temp, b.temp_bytes));

    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    std::printf("%s, u32 n = 2^%d, median of %d, look-back reads %d groups\n", prop.name, log2n, reps,
                libscan::kLookbackGroups);
    const double copy_us = median_us(b, [&] { CK(cudaMemcpyAsync(b.out, b.in, b.n * 4, cudaMemcpyDeviceToDevice, b.s)); });
    std::printf("memcpy %.1f us\n", copy_us);

    bool ok = true;
    struct Case {
        Op op;
        double rate;
        const char *name;
    };
    const Case cases[] = {{kSelect, 0.01, "select-if 1%"}, {kSelect, 0.5, "select-if 50%"},
                          {kSelect, 0.99, "select-if 99%"}, {kPartition, 0.5, "partition 50%"},
                          {kUnique, 0.01, "unique 1%"}};
    for (const Case &c : cases) {
        const uint32_t thr = static_cast<uint32_t>(c.rate * 4294967296.0);
        if (c.op == kUnique) fill_runs<<<1056, 256, 0, b.s>>>(b.in, b.n, thr, 12345);
        else fill_random<<<1056, 256, 0, b.s>>>(b.in, b.n, 777);
        CK(cudaGetLastError());
        auto cub_call = [&] {
            size_t tb = b.temp_bytes;
            switch (c.op) {
            case kSelect: CK(cub::DeviceSelect::If(b.temp, tb, b.in, b.ref, b.ref_num, nn, Below{thr}, b.s)); break;
            case kPartition: CK(cub::DevicePartition::If(b.temp, tb, b.in, b.ref, b.ref_num, nn, Below{thr}, b.s)); break;
            case kUnique: CK(cub::DeviceSelect::Unique(b.temp, tb, b.in, b.ref, b.ref_num, nn, b.s)); break;
            }
        };
        cub_call();
        CK(cudaStreamSynchronize(b.s));
        const double cub_us = median_us(b, cub_call);
        cub_call(); // the reference the variants are checked against
        std::printf("%s: CUB %.1f us\n", c.name, cub_us);
        ok &= variant<256, 32, 1>(b, c.op, thr, cub_us, c.name);
        ok &= variant<256, 32, 4>(b, c.op, thr, cub_us, c.name);
        ok &= variant<512, 32, 2>(b, c.op, thr, cub_us, c.name);
        ok &= variant<512, 32, 1>(b, c.op, thr, cub_us, c.name);
        ok &= variant<256, 16, 6>(b, c.op, thr, cub_us, c.name);
    }
    return ok ? 0 : 3;
}
