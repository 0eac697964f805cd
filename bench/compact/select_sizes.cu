// select_sizes.cu -- bench_compact's select-if table over sizes: the same
// libscan_select_if call with opts = NULL (temp from libscan's temp cache)
// and with caller temp, beside CUB's select-if with 32-bit and with 64-bit
// item counts, on u32 with 50% kept.
//
// CUB 3.0 (CUDA 13.0): cub::DeviceSelect::If takes num_items as
// ::cuda::std::int64_t (it has no NumItemsT template parameter), so an `int`
// count is widened and still runs the 64-bit-offset kernel. The 32-bit
// contender therefore calls the layer below it, cub::DispatchSelectIf, with
// OffsetT = int; DeviceSelect::If calls the same template with OffsetT =
// int64_t, the same policy hub and the same selection mode, so the two
// differ in the item-count type alone. The faster is the reference.
//
// Method: per size, the contenders run in rounds, each round one call of
// each (the first contender rotating from round to round), every call alone
// on an idle stream between two CUDA events, so host time spent inside the
// call (the temp lookup of opts = NULL) is counted; medians of the rounds.
// Before every timed call the count is poisoned, and so are the first and
// last 4 KiB of the expected output (all of it before the first round);
// after it the count and the whole output are compared with a reference
// from cub::DeviceSelect::If computed before the rounds.
#include <cub/device/device_select.cuh>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "../bench.h"
#define BENCH_PROGRAM "bench_compact"
#include "../bench_check.cuh"
#include "select_sizes.h"
#include <libscan/compact.h>

namespace bench_compact {
namespace {

constexpr unsigned char kPoison = 0xa5;
constexpr size_t kWindow = 1024; // elements poisoned at each end of the expected output

struct Below {
    uint32_t t;
    __device__ bool operator()(uint32_t x) const { return x < t; }
};

__global__ void fill_keys(uint32_t *keys, size_t n, uint64_t seed) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        keys[i] = static_cast<uint32_t>(bench::mix64(seed + i) >> 32);
}

__global__ void count_diff(const uint32_t *a, const uint32_t *b, size_t n, unsigned long long *bad) {
    unsigned long long c = 0;
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        c += a[i] != b[i];
    if (c) atomicAdd(bad, c);
}

// CUB with 32-bit item counts: DeviceSelect::If's own dispatch, OffsetT = int.
using Cub32 = cub::DispatchSelectIf<const uint32_t *, cub::NullType *, uint32_t *, int *, Below, cub::NullType, int,
                                    cub::SelectImpl::Select>;

enum Contender { kNull = 0, kTemp, kCub32, kCub64, kContenders };
const char *const kNames[kContenders] = {"libscan opts NULL", "libscan caller temp", "CUB int32", "CUB int64"};

struct Buffers {
    size_t cap = 0; // elements
    uint32_t *in = nullptr, *ref = nullptr, *out[kContenders] = {};
    size_t *num_ls[2] = {};
    int *num32 = nullptr;
    int64_t *num64 = nullptr, *ref_num = nullptr;
    void *ls_temp = nullptr, *cub32_temp = nullptr, *cub64_temp = nullptr;
    size_t ls_temp_cap = 0, cub32_cap = 0, cub64_cap = 0;
    unsigned long long *bad = nullptr;
};

size_t cub32_bytes(size_t n) {
    size_t b = 0;
    CK(Cub32::Dispatch(nullptr, b, nullptr, nullptr, nullptr, nullptr, Below{0}, cub::NullType(), static_cast<int>(n),
                       nullptr));
    return b;
}
size_t cub64_bytes(size_t n) {
    size_t b = 0;
    CK(cub::DeviceSelect::If(nullptr, b, static_cast<uint32_t *>(nullptr), static_cast<uint32_t *>(nullptr),
                             static_cast<int64_t *>(nullptr), static_cast<int64_t>(n), Below{0}));
    return b;
}

void allocate(Buffers &b, size_t cap) {
    b.cap = cap;
    CK(cudaMalloc(&b.in, cap * 4));
    CK(cudaMalloc(&b.ref, cap * 4));
    for (auto &o : b.out) CK(cudaMalloc(&o, cap * 4));
    for (auto &p : b.num_ls) CK(cudaMalloc(&p, sizeof(size_t)));
    CK(cudaMalloc(&b.num32, sizeof(int)));
    CK(cudaMalloc(&b.num64, sizeof(int64_t)));
    CK(cudaMalloc(&b.ref_num, sizeof(int64_t)));
    CK(cudaMalloc(&b.bad, sizeof(unsigned long long)));
    LS(libscan_compact_temp_bytes(cap, LIBSCAN_U32, &b.ls_temp_cap));
    b.cub32_cap = cub32_bytes(cap);
    b.cub64_cap = cub64_bytes(cap);
    CK(cudaMalloc(&b.ls_temp, b.ls_temp_cap));
    CK(cudaMalloc(&b.cub32_temp, b.cub32_cap));
    CK(cudaMalloc(&b.cub64_temp, b.cub64_cap));
}

void release(Buffers &b) {
    for (void *p : {static_cast<void *>(b.in), static_cast<void *>(b.ref), static_cast<void *>(b.num32),
                    static_cast<void *>(b.num64), static_cast<void *>(b.ref_num), static_cast<void *>(b.bad),
                    b.ls_temp, b.cub32_temp, b.cub64_temp})
        CK(cudaFree(p));
    for (auto o : b.out) CK(cudaFree(o));
    for (auto p : b.num_ls) CK(cudaFree(p));
}

// One size: the input, the reference and the four calls.
struct Size {
    const Buffers &b;
    size_t n;
    cudaStream_t s;
    libscan_pred_t pred{};
    libscan_compact_opts_t opts = LIBSCAN_COMPACT_OPTS_INIT;
    size_t cub32_bytes_n = 0, cub64_bytes_n = 0;
    int64_t k_ref = 0;

    Size(const Buffers &buf, size_t count, cudaStream_t stream, const cudaDeviceProp &prop, uint64_t seed)
        : b(buf), n(count), s(stream) {
        pred.kind = LIBSCAN_PRED_LT;
        pred.value.u = uint64_t(1) << 31; // half of uniform u32
        opts.d_temp = b.ls_temp;
        LS(libscan_compact_temp_bytes(n, LIBSCAN_U32, &opts.temp_bytes));
        cub32_bytes_n = cub32_bytes(n);
        cub64_bytes_n = cub64_bytes(n);
        fill_keys<<<prop.multiProcessorCount * 8, 256, 0, s>>>(b.in, n, seed);
        CK(cudaGetLastError());
        size_t tb = cub64_bytes_n;
        CK(cudaMemsetAsync(b.ref_num, 0xff, sizeof(int64_t), s));
        CK(cub::DeviceSelect::If(b.cub64_temp, tb, b.in, b.ref, b.ref_num, static_cast<int64_t>(n),
                                 Below{static_cast<uint32_t>(pred.value.u)}, s));
        CK(cudaMemcpyAsync(&k_ref, b.ref_num, sizeof k_ref, cudaMemcpyDeviceToHost, s));
        CK(cudaStreamSynchronize(s));
        if (k_ref < 0 || static_cast<size_t>(k_ref) > n) {
            std::fprintf(stderr, "bench_compact: CUB's reference count %lld is not in 0..%zu\n", (long long)k_ref, n);
            std::exit(2);
        }
    }

    void call(int c) const {
        const Below below{static_cast<uint32_t>(pred.value.u)};
        size_t tb;
        switch (c) {
        case kNull: LS(libscan_select_if(b.in, b.out[kNull], b.num_ls[0], n, LIBSCAN_U32, &pred, nullptr, s)); break;
        case kTemp: LS(libscan_select_if(b.in, b.out[kTemp], b.num_ls[1], n, LIBSCAN_U32, &pred, &opts, s)); break;
        case kCub32:
            tb = cub32_bytes_n;
            CK(Cub32::Dispatch(b.cub32_temp, tb, b.in, nullptr, b.out[kCub32], b.num32, below, cub::NullType(),
                               static_cast<int>(n), s));
            break;
        default:
            tb = cub64_bytes_n;
            CK(cub::DeviceSelect::If(b.cub64_temp, tb, b.in, b.out[kCub64], b.num64, static_cast<int64_t>(n), below,
                                     s));
            break;
        }
    }

    void *count_ptr(int c) const {
        switch (c) {
        case kNull: return b.num_ls[0];
        case kTemp: return b.num_ls[1];
        case kCub32: return b.num32;
        default: return b.num64;
        }
    }
    size_t count_bytes(int c) const { return c == kCub32 ? sizeof(int) : c == kCub64 ? sizeof(int64_t) : sizeof(size_t); }

    // Poisons contender c's count and output (all of it, or the windows at
    // both ends of the expected output), and waits, so the stream is idle.
    void poison(int c, bool all) const {
        CK(cudaMemsetAsync(count_ptr(c), kPoison, count_bytes(c), s));
        const size_t k = static_cast<size_t>(k_ref);
        if (all) {
            CK(cudaMemsetAsync(b.out[c], kPoison, n * 4, s));
        } else if (k) {
            const size_t w = std::min(k, kWindow);
            CK(cudaMemsetAsync(b.out[c], kPoison, w * 4, s));
            CK(cudaMemsetAsync(b.out[c] + (k - w), kPoison, w * 4, s));
        }
        CK(cudaStreamSynchronize(s));
    }

    // Mismatches of contender c's last call: 1 for a wrong count, plus the
    // output elements that differ from the reference.
    unsigned long long check(int c, const cudaDeviceProp &prop) const {
        int64_t k = -1;
        if (c == kCub32) {
            int v = -1;
            CK(cudaMemcpy(&v, b.num32, sizeof v, cudaMemcpyDeviceToHost));
            k = v;
        } else if (c == kCub64) {
            CK(cudaMemcpy(&k, b.num64, sizeof k, cudaMemcpyDeviceToHost));
        } else {
            size_t v = 0;
            LS(libscan_count_to_host(static_cast<const size_t *>(count_ptr(c)), &v, s));
            k = static_cast<int64_t>(v);
        }
        CK(cudaMemset(b.bad, 0, sizeof *b.bad));
        count_diff<<<prop.multiProcessorCount * 8, 256>>>(b.out[c], b.ref, static_cast<size_t>(k_ref), b.bad);
        CK(cudaGetLastError());
        unsigned long long bad = 0;
        CK(cudaMemcpy(&bad, b.bad, sizeof bad, cudaMemcpyDeviceToHost));
        return bad + (k != k_ref ? 1 : 0);
    }

    // One call of c alone between two events on the idle stream: device
    // microseconds, and the host microseconds spent inside the call.
    void time(int c, cudaEvent_t e0, cudaEvent_t e1, double *dev_us, double *host_us) const {
        CK(cudaEventRecord(e0, s));
        const auto t0 = std::chrono::steady_clock::now();
        call(c);
        const auto t1 = std::chrono::steady_clock::now();
        CK(cudaEventRecord(e1, s));
        CK(cudaEventSynchronize(e1));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        *dev_us = ms * 1000.0;
        *host_us = std::chrono::duration<double, std::micro>(t1 - t0).count();
    }
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

uint64_t size_seed(unsigned long long seed, int log2n) { return seed ^ (0x9e3779b97f4a7c15ull * (log2n + 1)); }

} // namespace

SelectSizesResult run_select_sizes(const std::vector<int> &logs, int reps, int warmup, cudaStream_t s,
                                   const cudaDeviceProp &prop, unsigned long long seed) {
    SelectSizesResult result;
    if (logs.empty()) return result;
    Buffers b;
    allocate(b, size_t(1) << logs.back());
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));

    std::printf("## select-if u32, 50%% kept: opts = NULL beside caller temp; CUB with int and int64_t item counts\n\n");
    std::printf("First opts = NULL call of each size after libscan_temp_cache_release(), on an idle stream: the "
                "call creates the stream's cache block from memory newly mapped into libscan's pool (the first "
                "row's call also creates the pool):\n\n");
    std::printf("| n | first call, device us | host us inside the call | check |\n| --- | --- | --- | --- |\n");
    for (int lg : logs) {
        const Size z(b, size_t(1) << lg, s, prop, size_seed(seed, lg));
        z.poison(kNull, true);
        LS(libscan_temp_cache_release());
        double dev = 0, host = 0;
        z.time(kNull, e0, e1, &dev, &host);
        const unsigned long long bad = z.check(kNull, prop);
        result.mismatches += bad;
        std::printf("| 2^%d | %.1f | %.1f | %s |\n", lg, dev, host, bad ? "WRONG" : "ok");
        std::fflush(stdout);
    }

    std::printf("\n| n | runs | opts NULL | caller temp | NULL / temp | CUB int32 | CUB int64 | best CUB | "
                "libscan / best CUB | host us NULL / temp | targets | mismatches |\n");
    std::printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    for (int lg : logs) {
        const size_t n = size_t(1) << lg;
        const Size z(b, n, s, prop, size_seed(seed, lg));
        // Small sizes are a few microseconds, mostly host time: more runs.
        const int runs = n <= (size_t(1) << 20) ? std::max(reps, 101) : reps;
        for (int w = 0; w < warmup; ++w)
            for (int c = 0; c < kContenders; ++c) z.call(c);
        CK(cudaStreamSynchronize(s));
        std::vector<double> dev[kContenders], host[kContenders];
        unsigned long long bad[kContenders] = {};
        for (int r = 0; r < runs; ++r)
            for (int j = 0; j < kContenders; ++j) {
                const int c = (r + j) % kContenders; // A B C D, then B C D A, ...
                z.poison(c, r == 0);
                double d = 0, h = 0;
                z.time(c, e0, e1, &d, &h);
                dev[c].push_back(d);
                host[c].push_back(h);
                bad[c] += z.check(c, prop);
            }
        double med[kContenders], host_med[kContenders];
        unsigned long long row_bad = 0;
        for (int c = 0; c < kContenders; ++c) {
            med[c] = median(dev[c]);
            host_med[c] = median(host[c]);
            row_bad += bad[c];
        }
        result.mismatches += row_bad;
        const double best = std::min(med[kCub32], med[kCub64]);
        const double ratio = med[kNull] / med[kTemp], diff = med[kNull] - med[kTemp];
        std::string targets;
        if (n <= (size_t(1) << 20) ? diff > 1.0 : ratio > 1.03)
            targets += n <= (size_t(1) << 20) ? "NULL > temp + 1 us; " : "NULL / temp > 1.03; ";
        if (lg >= 28 && med[kNull] / best > 1.0) targets += "libscan / best CUB > 1.0; ";
        if (!targets.empty()) {
            result.targets_met = false;
            targets = "MISSED: " + targets.substr(0, targets.size() - 2);
        } else {
            targets = "met";
        }
        char bad_text[96] = "0";
        if (row_bad)
            std::snprintf(bad_text, sizeof bad_text, "WRONG: NULL %llu, temp %llu, int32 %llu, int64 %llu", bad[kNull],
                          bad[kTemp], bad[kCub32], bad[kCub64]);
        std::printf("| 2^%d | %d | %.1f | %.1f | %.3f (%+.2f us) | %.1f | %.1f | %s | %.3f | %.2f / %.2f | %s | %s |\n",
                    lg, runs, med[kNull], med[kTemp], ratio, diff, med[kCub32], med[kCub64],
                    med[kCub32] <= med[kCub64] ? "int32" : "int64", med[kNull] / best, host_med[kNull],
                    host_med[kTemp], targets.c_str(), bad_text);
        std::fflush(stdout);
    }
    std::printf("\nTimes: device microseconds, medians; each call timed alone between CUDA events on an idle stream, "
                "the four contenders interleaved (%s, %s, %s, %s, rotating). libscan / best CUB uses opts NULL, "
                "the call as most code writes it. Targets: NULL / temp <= 1.03 at 2^24 and up, NULL <= temp + 1 us "
                "at 2^20 and below; libscan / best CUB <= 1.0 at 2^28. Every call's count and output are checked "
                "against cub::DeviceSelect::If's.\n\n",
                kNames[0], kNames[1], kNames[2], kNames[3]);
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    release(b);
    return result;
}

} // namespace bench_compact
