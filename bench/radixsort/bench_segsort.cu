// bench_segsort.cu -- libscan's segmented sort (libscan_segmented_sort)
// against cub::DeviceSegmentedSort, in one process and one run. Prints one
// markdown report (GPU, date, commit in its header); progress on stderr.
//
// Shapes (issue #23, item 3), at 2^log2n u32 keys (default 2^28), keys
// alone and u32/u32 pairs:
//   equal-256   2^(log2n-8) segments of 256 keys (2^20 at 2^28);
//   power-law   segment sizes from a Pareto law (alpha 1: most segments of a
//               few keys, a few of millions), fixed seed;
//   64-large    64 segments of 2^(log2n-6) keys (2^22 at 2^28).
// Contenders, timed interleaved (one call of each in turn, --reps rounds
// after --warmup untimed rounds; bench::time_interleaved), each call alone
// between two CUDA events:
//   no temp        libscan_segmented_sort, trust_offsets = 1, no d_temp (the
//                  temp cache);
//   caller temp    the same with d_temp sized by
//                  libscan_segmented_sort_temp_bytes();
//   checked        opts = NULL: the offsets are read back and checked first
//                  (a synchronising copy of 8 bytes per segment); shown, not
//                  the target's figure;
//   CUB int32      cub::DeviceSegmentedSort::StableSortKeys / StablePairs
//                  with `int` offsets (only below 2^31 keys);
//   CUB int64      the same with int64_t offsets.
// The faster CUB is the reference. Medians of the per-call times. Every
// output (libscan's three, CUB int32's) is compared after timing with CUB
// int64's, keys and values bitwise, on buffers poisoned before the timed
// rounds; the RESULT line counts the outputs that differ (exit status 3
// when any does).
//
// Target (issue #23): no temp / best CUB <= 0.8 in all three shapes.
#include "../bench_timing.cuh"
#define BENCH_PROGRAM "bench_segsort"
#include "../bench_check.cuh"
#include "bench_config.h"
#include <libscan/sort.h>

#include <cub/device/device_segmented_sort.cuh>
#include <cub/version.cuh>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

__host__ __device__ inline uint64_t mix64(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

__global__ void fill_u32(uint32_t *p, size_t n, uint64_t seed, bool iota) {
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        p[i] = iota ? uint32_t(i) : uint32_t(mix64(seed + i * 0x9e3779b97f4a7c15ull));
}

enum Shape { EQUAL_256, POWER_LAW, LARGE_64, NSHAPES };
const char *kShapeNames[NSHAPES] = {"equal-256", "power-law", "64-large"};

std::vector<int64_t> make_offsets(Shape s, size_t n) {
    std::vector<int64_t> off{0};
    if (s == EQUAL_256 || s == LARGE_64) {
        const size_t size = s == EQUAL_256 ? 256 : (n + 63) / 64;
        for (size_t at = 0; at < n;) off.push_back(int64_t(at = at + size < n ? at + size : n));
        return off;
    }
    std::mt19937_64 r(23);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    size_t at = 0;
    while (at < n) {
        const double z = 1.0 / (1.0 - u(r)); // Pareto, alpha 1, minimum 1
        const size_t size = z >= double(n - at) ? n - at : size_t(z);
        at += size;
        off.push_back(int64_t(at));
    }
    return off;
}

struct Args {
    int log2n = 28, reps = 20, warmup = 3;
    bool keys = true, pairs = true;
};

void usage() {
    std::printf("usage: bench_segsort [--log2n N] [--reps R] [--warmup W] [--keys-only | --pairs-only]\n"
                "Segmented sort of 2^N u32 keys (default 28) in three shapes, libscan against\n"
                "cub::DeviceSegmentedSort, interleaved; prints a markdown table.\n");
}

Args parse(int argc, char **argv) {
    Args a;
    for (int i = 1; i < argc; ++i) {
        std::string s = argv[i];
        auto next = [&]() -> int {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "bench_segsort: %s needs a value\n", s.c_str());
                std::exit(1);
            }
            return std::atoi(argv[++i]);
        };
        if (s == "--log2n") a.log2n = next();
        else if (s == "--reps") a.reps = next();
        else if (s == "--warmup") a.warmup = next();
        else if (s == "--keys-only") a.pairs = false;
        else if (s == "--pairs-only") a.keys = false;
        else if (s == "-h" || s == "--help") {
            usage();
            std::exit(0);
        } else {
            std::fprintf(stderr, "bench_segsort: unknown option %s\n", s.c_str());
            std::exit(1);
        }
    }
    if (a.log2n < 10 || a.log2n > 32 || a.reps < 1 || a.warmup < 0) {
        std::fprintf(stderr, "bench_segsort: --log2n 10..32, --reps >= 1, --warmup >= 0\n");
        std::exit(1);
    }
    return a;
}

struct Row {
    std::string shape, mode;
    size_t segments;
    double no_temp, caller, checked, cub32, cub64; // ms (cub32 < 0: not run)
    int mismatches;
};

template <typename Off>
size_t cub_temp(const uint32_t *ki, uint32_t *ko, const uint32_t *vi, uint32_t *vo, size_t n, size_t segs,
                const Off *off) {
    size_t bytes = 0;
    if (vi)
        CK(cub::DeviceSegmentedSort::StableSortPairs(nullptr, bytes, ki, ko, vi, vo, int64_t(n), int64_t(segs), off,
                                                     off + 1));
    else
        CK(cub::DeviceSegmentedSort::StableSortKeys(nullptr, bytes, ki, ko, int64_t(n), int64_t(segs), off, off + 1));
    return bytes;
}

template <typename Off>
void cub_sort(void *temp, size_t bytes, const uint32_t *ki, uint32_t *ko, const uint32_t *vi, uint32_t *vo, size_t n,
              size_t segs, const Off *off, cudaStream_t s) {
    if (vi)
        CK(cub::DeviceSegmentedSort::StableSortPairs(temp, bytes, ki, ko, vi, vo, int64_t(n), int64_t(segs), off,
                                                     off + 1, s));
    else
        CK(cub::DeviceSegmentedSort::StableSortKeys(temp, bytes, ki, ko, int64_t(n), int64_t(segs), off, off + 1, s));
}

Row run_case(const Args &a, Shape shape, bool pairs, cudaStream_t s) {
    const size_t n = size_t(1) << a.log2n;
    const std::vector<int64_t> off = make_offsets(shape, n);
    const size_t segs = off.size() - 1;
    const bool int32_ok = n < (size_t(1) << 31);
    std::vector<int> off32(int32_ok ? off.size() : 0);
    for (size_t i = 0; i < off32.size(); ++i) off32[i] = int(off[i]);

    // [0] libscan no temp, [1] caller temp, [2] checked, [3] CUB int32, [4] CUB int64
    constexpr int K = 5;
    uint32_t *ki = nullptr, *vi = nullptr, *ko[K] = {}, *vo[K] = {};
    int64_t *d_off = nullptr;
    int *d_off32 = nullptr;
    CK(cudaMalloc(&ki, n * 4));
    if (pairs) CK(cudaMalloc(&vi, n * 4));
    for (int k = 0; k < K; ++k) {
        CK(cudaMalloc(&ko[k], n * 4));
        if (pairs) CK(cudaMalloc(&vo[k], n * 4));
        CK(cudaMemset(ko[k], 0xAB, n * 4));
        if (pairs) CK(cudaMemset(vo[k], 0xAB, n * 4));
    }
    CK(cudaMalloc(&d_off, off.size() * 8));
    CK(cudaMemcpy(d_off, off.data(), off.size() * 8, cudaMemcpyHostToDevice));
    if (int32_ok) {
        CK(cudaMalloc(&d_off32, off32.size() * 4));
        CK(cudaMemcpy(d_off32, off32.data(), off32.size() * 4, cudaMemcpyHostToDevice));
    }
    fill_u32<<<1024, 256, 0, s>>>(ki, n, 0x5e95 + uint64_t(shape), false);
    if (pairs) fill_u32<<<1024, 256, 0, s>>>(vi, n, 0, true);
    CK(cudaGetLastError());

    size_t ls_bytes = 0;
    LS(libscan_segmented_sort_temp_bytes(n, segs, LIBSCAN_U32, pairs ? 4 : 0, &ls_bytes));
    const size_t cub32_bytes = int32_ok ? cub_temp(ki, ko[3], vi, vo[3], n, segs, d_off32) : 0;
    const size_t cub64_bytes = cub_temp(ki, ko[4], vi, vo[4], n, segs, d_off);
    void *ls_temp = nullptr, *cub32_temp = nullptr, *cub64_temp = nullptr;
    CK(cudaMalloc(&ls_temp, ls_bytes ? ls_bytes : 1));
    if (int32_ok) CK(cudaMalloc(&cub32_temp, cub32_bytes ? cub32_bytes : 1));
    CK(cudaMalloc(&cub64_temp, cub64_bytes ? cub64_bytes : 1));
    CK(cudaStreamSynchronize(s));
    CK(cudaDeviceSynchronize());

    const uint64_t *loff = reinterpret_cast<const uint64_t *>(d_off);
    const size_t vb = pairs ? 4 : 0;
    libscan_segsort_opts_t trusted = LIBSCAN_SEGSORT_OPTS_INIT, with_temp = LIBSCAN_SEGSORT_OPTS_INIT;
    trusted.trust_offsets = with_temp.trust_offsets = 1;
    with_temp.d_temp = ls_temp;
    with_temp.temp_bytes = ls_bytes;
    std::vector<std::function<void()>> calls = {
        [&] { LS(libscan_segmented_sort(ki, ko[0], vi, vo[0], n, loff, segs, LIBSCAN_U32, vb, &trusted, s)); },
        [&] { LS(libscan_segmented_sort(ki, ko[1], vi, vo[1], n, loff, segs, LIBSCAN_U32, vb, &with_temp, s)); },
        [&] { LS(libscan_segmented_sort(ki, ko[2], vi, vo[2], n, loff, segs, LIBSCAN_U32, vb, nullptr, s)); },
        [&] { cub_sort(cub64_temp, cub64_bytes, ki, ko[4], vi, vo[4], n, segs, d_off, s); },
    };
    if (int32_ok) calls.push_back([&] { cub_sort(cub32_temp, cub32_bytes, ki, ko[3], vi, vo[3], n, segs, d_off32, s); });
    std::vector<bench::EventTimes> t;
    CK(bench::time_interleaved(s, a.warmup, a.reps, calls, &t));

    // Compare every output with CUB int64's (k = 4).
    std::vector<uint32_t> ref(n), got(n), vref, vgot;
    CK(cudaMemcpy(ref.data(), ko[4], n * 4, cudaMemcpyDeviceToHost));
    if (pairs) {
        vref.resize(n);
        vgot.resize(n);
        CK(cudaMemcpy(vref.data(), vo[4], n * 4, cudaMemcpyDeviceToHost));
    }
    int mismatches = 0;
    for (int k = 0; k < 4; ++k) {
        if (k == 3 && !int32_ok) continue;
        CK(cudaMemcpy(got.data(), ko[k], n * 4, cudaMemcpyDeviceToHost));
        bool same = std::memcmp(got.data(), ref.data(), n * 4) == 0;
        if (pairs) {
            CK(cudaMemcpy(vgot.data(), vo[k], n * 4, cudaMemcpyDeviceToHost));
            same = same && std::memcmp(vgot.data(), vref.data(), n * 4) == 0;
        }
        if (!same) {
            ++mismatches;
            std::fprintf(stderr, "bench_segsort: %s %s: output %d differs from CUB int64's\n", kShapeNames[shape],
                         pairs ? "pairs" : "keys", k);
        }
    }
    Row row{kShapeNames[shape], pairs ? "u32/u32 pairs" : "u32 keys", segs, t[0].median(), t[1].median(),
            t[2].median(), int32_ok ? t[4].median() : -1.0, t[3].median(), mismatches};
    for (int k = 0; k < K; ++k) {
        CK(cudaFree(ko[k]));
        if (pairs) CK(cudaFree(vo[k]));
    }
    CK(cudaFree(ki));
    if (pairs) CK(cudaFree(vi));
    CK(cudaFree(d_off));
    if (d_off32) CK(cudaFree(d_off32));
    CK(cudaFree(ls_temp));
    if (cub32_temp) CK(cudaFree(cub32_temp));
    CK(cudaFree(cub64_temp));
    return row;
}

} // namespace

int main(int argc, char **argv) {
    const Args a = parse(argc, argv);
    int dev = 0;
    cudaDeviceProp prop;
    CK(cudaGetDevice(&dev));
    CK(cudaGetDeviceProperties(&prop, dev));
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    std::vector<Row> rows;
    for (int pairs = 0; pairs < 2; ++pairs) {
        if ((pairs && !a.pairs) || (!pairs && !a.keys)) continue;
        for (int sh = 0; sh < NSHAPES; ++sh) {
            std::fprintf(stderr, "bench_segsort: %s %s ...\n", kShapeNames[sh], pairs ? "pairs" : "keys");
            rows.push_back(run_case(a, Shape(sh), pairs != 0, s));
        }
    }
    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
    const char *commit = libscan_bench_commit();
    std::printf("# bench_segsort: segmented sort, 2^%d u32 keys\n\n", a.log2n);
    std::printf("GPU %s (%d SMs), %s, commit %s (%s, sm %s), CUB %d.%d.%d, %d reps after %d warm-up rounds, "
                "medians in ms.\n\n",
                prop.name, prop.multiProcessorCount, date, commit, LIBSCAN_BENCH_BUILD_TYPE,
                LIBSCAN_BENCH_CUDA_ARCHS, CUB_MAJOR_VERSION, CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION, a.reps,
                a.warmup);
    std::printf("| shape | data | segments | libscan no temp | caller temp | checked offsets | CUB int32 | CUB int64 "
                "| no temp / best CUB | target | met |\n");
    std::printf("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
    int mismatches = 0, missed = 0;
    for (const Row &r : rows) {
        const double best = r.cub32 > 0 && r.cub32 < r.cub64 ? r.cub32 : r.cub64;
        const double ratio = r.no_temp / best;
        const bool met = ratio <= 0.8;
        missed += !met;
        mismatches += r.mismatches;
        char c32[32];
        if (r.cub32 > 0) std::snprintf(c32, sizeof c32, "%.3f", r.cub32);
        else std::snprintf(c32, sizeof c32, "n/a");
        std::printf("| %s | %s | %zu | %.3f | %.3f | %.3f | %s | %.3f | %.3f | 0.8 | %s |\n", r.shape.c_str(),
                    r.mode.c_str(), r.segments, r.no_temp, r.caller, r.checked, c32, r.cub64, ratio,
                    met ? "yes" : "no");
    }
    std::printf("\nRESULT: %d output(s) differ from CUB's; %d row(s) miss the 0.8x target\n", mismatches, missed);
    CK(cudaStreamDestroy(s));
    return mismatches ? 3 : 0; // 3: wrong output (run_gpu.sh's convention)
}
