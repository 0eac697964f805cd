// bench_compact.cu -- libscan's compaction (<libscan/compact.h>, the C API)
// against CUB in one process, in two tables:
//
// 1. select-if u32 with 50% kept at 2^16, 2^20, 2^24 and 2^28 elements
//    (select_sizes.cu): libscan_select_if with opts = NULL (temp from the
//    temp cache) beside the same call with caller temp, and CUB's select-if
//    with int and with int64_t item counts, interleaved; before it, the
//    first opts = NULL call of each size after libscan_temp_cache_release().
// 2. every operation at 2^N (--log2n, default 28) with caller temp:
//    DeviceSelect::If, ::Flagged, ::Unique and DevicePartition::If, plus a
//    device memcpy of the input's bytes, with 1%, 50% and 99% kept.
//
//   bench_compact [--log2n N] [--reps R] [--warmup W]
//
// Table 1 takes the sizes up to 2^N. Table 2: each method W untimed calls,
// then R calls each timed alone with CUDA events (stream idle before it);
// the median is reported. Every libscan result is checked against CUB's
// (partition: CUB writes the rejected part reversed, libscan in input order,
// into its own buffer). Prints markdown with the GPU, date and commit, and a
// RESULT line. Exit: 0 ok, 1 usage, 2 CUDA error, 3 a result differed from
// CUB's (missed speed targets are reported, not an error).
#include <cub/device/device_partition.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include "../bench.h"
#include "../bench_timing.cuh"
#define BENCH_PROGRAM "bench_compact"
#include "../bench_check.cuh"
#include "bench_config.h"
#include "select_sizes.h"
#include <libscan/compact.h>

namespace {

__host__ __device__ inline uint32_t hash32(uint64_t x) { return static_cast<uint32_t>(bench::mix64(x) >> 32); }

// Uniform random keys; flags = (key < threshold), so both select the same.
__global__ void fill_kernel(uint32_t *keys, unsigned char *flags, size_t n, uint32_t threshold, uint64_t seed) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
        const uint32_t k = hash32(seed + i);
        keys[i] = k;
        flags[i] = k < threshold;
    }
}
// Run starts for unique: position i where a new run starts, else 0; a max
// scan then gives x[i] = start of i's run (about `rate` of them distinct).
__global__ void run_start_kernel(uint32_t *x, size_t n, uint32_t threshold, uint64_t seed) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        x[i] = (i == 0 || hash32(seed ^ (i * 0x2545f4914f6cdd1dull)) < threshold) ? static_cast<uint32_t>(i) : 0u;
}
struct MaxOp {
    __device__ uint32_t operator()(uint32_t a, uint32_t b) const { return a < b ? b : a; }
};
struct LessThan {
    uint32_t t;
    __device__ bool operator()(uint32_t x) const { return x < t; }
};

// Mismatches between a[0..n) and b[0..n) (b reversed from b_end when rev).
__global__ void diff_kernel(const uint32_t *a, const uint32_t *b, size_t n, bool rev, unsigned long long *bad) {
    unsigned long long c = 0;
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        c += a[i] != (rev ? b[-static_cast<long long>(i)] : b[i]);
    if (c) atomicAdd(bad, c);
}

struct Timing {
    double median_us = 0, min_us = 0;
};

Timing time_it(cudaStream_t s, int warmup, int reps, const std::function<void()> &enqueue) {
    bench::EventTimes t;
    CK(bench::time_events(s, warmup, reps, enqueue, &t));
    return Timing{t.upper_median() * 1000.0, t.min() * 1000.0};
}

} // namespace

int main(int argc, char **argv) {
    int log2n = 28, reps = 21, warmup = 3;
    for (int i = 1; i < argc; ++i) {
        const bool has = i + 1 < argc;
        if (!std::strcmp(argv[i], "--log2n") && has) log2n = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--reps") && has) reps = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--warmup") && has) warmup = std::atoi(argv[++i]);
        else {
            std::fprintf(stderr, "usage: bench_compact [--log2n N (10..31)] [--reps R (>= 20)] [--warmup W]\n");
            return 1;
        }
    }
    if (log2n < 10 || log2n > 31 || reps < 20 || warmup < 0) {
        std::fprintf(stderr, "bench_compact: --log2n 10..31, --reps >= 20, --warmup >= 0\n");
        return 1;
    }
    const size_t n = size_t(1) << log2n;
    int dev = 0;
    CK(cudaGetDevice(&dev));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, dev));
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
    int rt = 0;
    CK(cudaRuntimeGetVersion(&rt));
    std::printf("# bench_compact: libscan compact vs CUB\n\n");
    std::printf("%s (%d SMs), CUDA runtime %d.%d, CUB %d.%d.%d, commit %s (%s, sm %s), %s\n\n", prop.name,
                prop.multiProcessorCount, rt / 1000, rt % 1000 / 10, CUB_MAJOR_VERSION, CUB_MINOR_VERSION,
                CUB_SUBMINOR_VERSION, libscan_bench_commit(), LIBSCAN_BENCH_BUILD_TYPE, LIBSCAN_BENCH_CUDA_ARCHS, date);

    // Table 1 first, while nothing of this process has used the temp cache.
    std::vector<int> logs;
    for (int lg : {16, 20, 24, 28})
        if (lg <= log2n) logs.push_back(lg);
    uint64_t seed = static_cast<uint64_t>(now) * 0x9e3779b97f4a7c15ull;
    const bench_compact::SelectSizesResult sizes =
        bench_compact::run_select_sizes(logs, reps, warmup, s, prop, ++seed);

    uint32_t *in, *out_ls, *rej_ls, *out_cub, *tmp_keys;
    unsigned char *flags;
    size_t *num_ls;
    int64_t *num_cub; // CUB writes the count in the num_items type (int64_t here)
    unsigned long long *bad;
    CK(cudaMalloc(&in, n * 4));
    CK(cudaMalloc(&out_ls, n * 4));
    CK(cudaMalloc(&rej_ls, n * 4));
    CK(cudaMalloc(&out_cub, n * 4));
    CK(cudaMalloc(&tmp_keys, n * 4));
    CK(cudaMalloc(&flags, n));
    CK(cudaMalloc(&num_ls, sizeof(size_t)));
    CK(cudaMalloc(&num_cub, sizeof(int64_t)));
    CK(cudaMalloc(&bad, sizeof(unsigned long long)));

    libscan_compact_opts_t opts = LIBSCAN_COMPACT_OPTS_INIT;
    LS(libscan_compact_temp_bytes(n, LIBSCAN_U32, &opts.temp_bytes));
    CK(cudaMalloc(&opts.d_temp, opts.temp_bytes));
    // CUB's temp: the largest of the four (num_items as int64 so 2^31 works).
    const int64_t nn = static_cast<int64_t>(n);
    size_t cub_bytes = 0, b;
    CK(cub::DeviceSelect::If(nullptr, b = 0, in, out_cub, num_cub, nn, LessThan{0}, s)); cub_bytes = std::max(cub_bytes, b);
    CK(cub::DeviceSelect::Flagged(nullptr, b = 0, in, flags, out_cub, num_cub, nn, s)); cub_bytes = std::max(cub_bytes, b);
    CK(cub::DeviceSelect::Unique(nullptr, b = 0, in, out_cub, num_cub, nn, s)); cub_bytes = std::max(cub_bytes, b);
    CK(cub::DevicePartition::If(nullptr, b = 0, in, out_cub, num_cub, nn, LessThan{0}, s)); cub_bytes = std::max(cub_bytes, b);
    CK(cub::DeviceScan::InclusiveScan(nullptr, b = 0, tmp_keys, in, MaxOp{}, nn, s)); cub_bytes = std::max(cub_bytes, b);
    void *cub_temp;
    CK(cudaMalloc(&cub_temp, cub_bytes));

    std::printf("## every operation, %zu u32 (2^%d), caller temp; CUB with int64_t item counts\n\n", n, log2n);
    std::printf("Median of %d runs after %d warm-up, times in microseconds.\n\n", reps, warmup);
    std::printf("| operation | kept | libscan | CUB | memcpy | libscan / CUB | libscan / memcpy | check |\n");
    std::printf("| --- | --- | --- | --- | --- | --- | --- | --- |\n");

    const Timing copy = time_it(s, warmup, reps, [&] { CK(cudaMemcpyAsync(out_cub, in, n * 4, cudaMemcpyDeviceToDevice, s)); });
    bool all_ok = true;
    const double rates[3] = {0.01, 0.5, 0.99};
    const char *ops[4] = {"select-if", "select-flagged", "partition-if", "unique"};
    for (double rate : rates) {
        const uint32_t thr = static_cast<uint32_t>(rate * 4294967296.0);
        libscan_pred_t pred{};
        pred.kind = LIBSCAN_PRED_LT;
        pred.value.u = thr;
        for (int op = 0; op < 4; ++op) {
            if (op == 3) {
                run_start_kernel<<<prop.multiProcessorCount * 8, 256, 0, s>>>(tmp_keys, n, thr, ++seed);
                CK(cudaGetLastError());
                size_t tb = cub_bytes;
                CK(cub::DeviceScan::InclusiveScan(cub_temp, tb, tmp_keys, in, MaxOp{}, nn, s));
            } else if (op == 0) {
                fill_kernel<<<prop.multiProcessorCount * 8, 256, 0, s>>>(in, flags, n, thr, ++seed);
                CK(cudaGetLastError());
            }
            auto run_ls = [&] {
                switch (op) {
                case 0: LS(libscan_select_if(in, out_ls, num_ls, n, LIBSCAN_U32, &pred, &opts, s)); break;
                case 1: LS(libscan_select_flagged(in, flags, out_ls, num_ls, n, LIBSCAN_U32, &opts, s)); break;
                case 2: LS(libscan_partition_if(in, out_ls, rej_ls, num_ls, n, LIBSCAN_U32, &pred, &opts, s)); break;
                default: LS(libscan_unique(in, out_ls, num_ls, n, LIBSCAN_U32, &opts, s)); break;
                }
            };
            auto run_cub = [&] {
                size_t tb = cub_bytes;
                switch (op) {
                case 0: CK(cub::DeviceSelect::If(cub_temp, tb, in, out_cub, num_cub, nn, LessThan{thr}, s)); break;
                case 1: CK(cub::DeviceSelect::Flagged(cub_temp, tb, in, flags, out_cub, num_cub, nn, s)); break;
                case 2: CK(cub::DevicePartition::If(cub_temp, tb, in, out_cub, num_cub, nn, LessThan{thr}, s)); break;
                default: CK(cub::DeviceSelect::Unique(cub_temp, tb, in, out_cub, num_cub, nn, s)); break;
                }
            };
            // Check libscan against CUB once, on poisoned outputs.
            CK(cudaMemsetAsync(out_ls, 0xa5, n * 4, s));
            CK(cudaMemsetAsync(num_cub, 0, sizeof(int64_t), s));
            run_ls();
            run_cub();
            size_t k_ls = 0;
            int64_t k_cub = 0;
            LS(libscan_count_to_host(num_ls, &k_ls, s));
            CK(cudaMemcpy(&k_cub, num_cub, sizeof k_cub, cudaMemcpyDeviceToHost));
            unsigned long long mismatches = 0;
            CK(cudaMemset(bad, 0, sizeof *bad));
            diff_kernel<<<prop.multiProcessorCount * 8, 256>>>(out_ls, out_cub, k_ls, false, bad);
            if (op == 2) diff_kernel<<<prop.multiProcessorCount * 8, 256>>>(rej_ls, out_cub + n - 1, n - k_ls, true, bad);
            CK(cudaMemcpy(&mismatches, bad, sizeof mismatches, cudaMemcpyDeviceToHost));
            const bool ok = static_cast<int64_t>(k_ls) == k_cub && mismatches == 0;
            all_ok = all_ok && ok;
            char check[96];
            if (ok) std::snprintf(check, sizeof check, "ok (%zu kept)", k_ls);
            else std::snprintf(check, sizeof check, "WRONG: count %zu vs %lld, %llu differ", k_ls, (long long)k_cub, mismatches);

            const Timing t_ls = time_it(s, warmup, reps, run_ls);
            const Timing t_cub = time_it(s, warmup, reps, run_cub);
            std::printf("| %s | %.0f%% | %.1f | %.1f | %.1f | %.3f | %.3f | %s |\n", ops[op], rate * 100.0,
                        t_ls.median_us, t_cub.median_us, copy.median_us, t_ls.median_us / t_cub.median_us,
                        t_ls.median_us / copy.median_us, check);
            std::fflush(stdout);
        }
    }
    std::printf("\nTarget: libscan / CUB <= 1.0 for every row. memcpy = cudaMemcpyAsync of the input's %zu bytes.\n",
                n * 4);
    std::printf("RESULT select-if sizes: %llu mismatches, targets %s; every operation: %s\n", sizes.mismatches,
                sizes.targets_met ? "met" : "MISSED", all_ok ? "all results match CUB" : "SOME RESULTS DIFFER FROM CUB");
    return all_ok && sizes.mismatches == 0 ? 0 : 3;
}
