// bench_radixsort.cu -- libscan::radixsort against cub::DeviceRadixSort and a
// device memcpy of the same bytes, in one process and one run. Prints one
// markdown table (GPU, date, commit in its header); progress on stderr.
//
// For every case (u32/f32/u64 keys, u32/u32 pairs, u32 keys descending, u64
// pairs) and size, on uniform random keys; and for u32 keys (and f32 for the
// float specials) every distribution of the issue. Times are CUDA-event
// medians of --reps runs after --warmup untimed calls, caller temp for both
// libraries (no allocation inside the timed region). Every libscan result is
// compared with CUB's (bitwise; for floats CUB's order of -0.0/+0.0 is not
// ours, so positions where both hold a zero are not compared).
#include "../bench_timing.cuh"
#define BENCH_PROGRAM "bench_radixsort"
#include "../bench_check.cuh"
#include "bench_config.h"
#include <libscan/sort.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/version.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

namespace {

enum Dist { UNIFORM, SORTED, REVERSE, ALL_EQUAL, TWO, SIXTEEN, HIGH_BYTE, LOW_BYTE, FLOAT_SPECIALS, NDIST };
const char *kDistNames[NDIST] = {"uniform", "sorted", "reverse", "all-equal", "2-distinct",
                                 "16-distinct", "high-byte", "low-byte", "float-specials"};

__host__ __device__ inline uint64_t mix64(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

// Keys as raw bits of width sizeof(T).
template <typename T> __global__ void fill_kernel(T *p, size_t n, uint64_t seed, int dist, bool is_float) {
    const size_t stride = size_t(gridDim.x) * blockDim.x;
    const uint64_t a = mix64(seed ^ 0x1234), b = mix64(seed ^ 0x5678);
    constexpr int W = sizeof(T) * 8;
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        uint64_t h = mix64(seed + i * 0x9e3779b97f4a7c15ull), v = h;
        switch (dist) {
        case ALL_EQUAL: v = a; break;
        case TWO: v = (h & 1) ? a : b; break;
        case SIXTEEN: v = mix64(seed + (h & 15)); break;
        case HIGH_BYTE: v = (a & ~(uint64_t(0xff) << (W - 8))) | (h & (uint64_t(0xff) << (W - 8))); break;
        case LOW_BYTE: v = (a & ~uint64_t(0xff)) | (h & 0xff); break;
        case FLOAT_SPECIALS:
            if (is_float && W == 32) {
                const uint32_t sp[8] = {0x7fc00000u, 0xffc00000u, 0x7f800000u, 0xff800000u,
                                        0x00000000u, 0x80000000u, 0x00000001u, 0x80000007u};
                v = (h >> 40) % 4 == 0 ? sp[(h >> 8) & 7] : h;
            }
            break;
        default: break;
        }
        p[i] = static_cast<T>(v);
    }
}
__global__ void iota_u32(uint32_t *p, size_t n) {
    const size_t stride = size_t(gridDim.x) * blockDim.x;
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) p[i] = uint32_t(i * 2654435761u);
}

struct Row {
    std::string cas, dist;
    size_t n;
    double lib_ms, cub_ms, copy_ms;
    bool verified;
};

// Upper median (times[reps / 2]) of reps event-timed calls after warmup ones.
template <class F> double time_ms(F f, int warmup, int reps, cudaStream_t s) {
    bench::EventTimes t;
    CK(bench::time_events(s, warmup, reps, f, &t));
    return t.upper_median();
}

template <typename T> struct KeyOf;
template <> struct KeyOf<uint32_t> { static constexpr libscan_dtype_t k = LIBSCAN_U32; };
template <> struct KeyOf<uint64_t> { static constexpr libscan_dtype_t k = LIBSCAN_U64; };
template <> struct KeyOf<float> { static constexpr libscan_dtype_t k = LIBSCAN_F32; };

// One measurement: keys of T (with u32 values when PAIRS), ascending or not.
template <typename T, bool PAIRS>
Row measure(const char *name, size_t n, int dist, bool desc, int warmup, int reps, uint64_t seed, cudaStream_t s) {
    using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
    const bool is_float = std::is_same<T, float>::value;
    T *k_in, *k_lib, *k_cub;
    uint32_t *v_in = nullptr, *v_lib = nullptr, *v_cub = nullptr;
    CK(cudaMalloc(&k_in, n * sizeof(T)));
    CK(cudaMalloc(&k_lib, n * sizeof(T)));
    CK(cudaMalloc(&k_cub, n * sizeof(T)));
    if (PAIRS) {
        CK(cudaMalloc(&v_in, n * 4));
        CK(cudaMalloc(&v_lib, n * 4));
        CK(cudaMalloc(&v_cub, n * 4));
        iota_u32<<<1024, 256, 0, s>>>(v_in, n);
    }
    fill_kernel<Bits><<<4096, 256, 0, s>>>(reinterpret_cast<Bits *>(k_in), n, seed, dist, is_float);
    CK(cudaGetLastError());

    size_t cub_bytes = 0, lib_bytes = 0;
    void *cub_temp = nullptr, *lib_temp = nullptr;
    const int num = static_cast<int>(n);
    auto cub_call = [&](void *t, size_t &bytes, const T *in, T *out) {
        if (PAIRS) {
            if (desc) CK(cub::DeviceRadixSort::SortPairsDescending(t, bytes, in, out, v_in, v_cub, num, 0, sizeof(T) * 8, s));
            else CK(cub::DeviceRadixSort::SortPairs(t, bytes, in, out, v_in, v_cub, num, 0, sizeof(T) * 8, s));
        } else {
            if (desc) CK(cub::DeviceRadixSort::SortKeysDescending(t, bytes, in, out, num, 0, sizeof(T) * 8, s));
            else CK(cub::DeviceRadixSort::SortKeys(t, bytes, in, out, num, 0, sizeof(T) * 8, s));
        }
    };
    cub_call(nullptr, cub_bytes, k_in, k_cub);
    CK(cudaMalloc(&cub_temp, cub_bytes));
    // Sorted / reverse inputs: CUB sorts the random keys first.
    if (dist == SORTED || dist == REVERSE) {
        bool d0 = desc;
        desc = dist == REVERSE;
        cub_call(cub_temp, cub_bytes, k_in, k_cub);
        desc = d0;
        CK(cudaMemcpyAsync(k_in, k_cub, n * sizeof(T), cudaMemcpyDeviceToDevice, s));
    }
    LS(libscan_sort_temp_bytes(n, KeyOf<T>::k, PAIRS ? 4 : 0, LIBSCAN_SORT_OUT_OF_PLACE, &lib_bytes));
    CK(cudaMalloc(&lib_temp, lib_bytes));
    libscan_sort_opts_t o = LIBSCAN_SORT_OPTS_INIT;
    o.descending = desc;
    o.d_temp = lib_temp;
    o.temp_bytes = lib_bytes;
    auto lib_call = [&]() { LS(libscan_sort(k_in, k_lib, v_in, v_lib, n, KeyOf<T>::k, PAIRS ? 4 : 0, &o, s)); };
    void *copy_dst = nullptr;
    const size_t bytes = n * (sizeof(T) + (PAIRS ? 4 : 0));
    CK(cudaMalloc(&copy_dst, bytes));
    void *copy_src = lib_temp; // any buffer of >= bytes
    if (lib_bytes < bytes) CK(cudaMalloc(&copy_src, bytes));

    Row r{name, kDistNames[dist], n, 0, 0, 0, true};
    r.lib_ms = time_ms(lib_call, warmup, reps, s);
    r.cub_ms = time_ms([&]() { cub_call(cub_temp, cub_bytes, k_in, k_cub); }, warmup, reps, s);
    r.copy_ms = time_ms([&]() { CK(cudaMemcpyAsync(copy_dst, copy_src, bytes, cudaMemcpyDeviceToDevice, s)); }, warmup,
                        reps, s);

    // Verify on a poisoned output.
    CK(cudaMemsetAsync(k_lib, 0xAB, n * sizeof(T), s));
    if (PAIRS) CK(cudaMemsetAsync(v_lib, 0xAB, n * 4, s));
    lib_call();
    cub_call(cub_temp, cub_bytes, k_in, k_cub);
    CK(cudaStreamSynchronize(s));
    std::vector<Bits> a(n), b(n);
    CK(cudaMemcpy(a.data(), k_lib, n * sizeof(T), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(b.data(), k_cub, n * sizeof(T), cudaMemcpyDeviceToHost));
    const Bits abs_mask = Bits(~(Bits(1) << (sizeof(T) * 8 - 1)));
    bool zeros_differ = false;
    for (size_t i = 0; i < n && r.verified; ++i) {
        if (a[i] == b[i]) continue;
        if (is_float && (a[i] & abs_mask) == 0 && (b[i] & abs_mask) == 0) { zeros_differ = true; continue; }
        r.verified = false;
        std::fprintf(stderr, "bench_radixsort: %s %s n=%zu: keys differ from CUB at %zu\n", name, kDistNames[dist], n, i);
    }
    if (PAIRS && r.verified && !zeros_differ) {
        std::vector<uint32_t> va(n), vb(n);
        CK(cudaMemcpy(va.data(), v_lib, n * 4, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(vb.data(), v_cub, n * 4, cudaMemcpyDeviceToHost));
        if (va != vb) {
            r.verified = false;
            std::fprintf(stderr, "bench_radixsort: %s %s n=%zu: values differ from CUB\n", name, kDistNames[dist], n);
        }
    }
    if (copy_src != lib_temp) CK(cudaFree(copy_src));
    CK(cudaFree(copy_dst));
    CK(cudaFree(lib_temp));
    CK(cudaFree(cub_temp));
    CK(cudaFree(k_in));
    CK(cudaFree(k_lib));
    CK(cudaFree(k_cub));
    if (PAIRS) {
        CK(cudaFree(v_in));
        CK(cudaFree(v_lib));
        CK(cudaFree(v_cub));
    }
    std::fprintf(stderr, "  %-22s %-14s 2^%-2d lib %8.3f ms  cub %8.3f ms  %s\n", name, kDistNames[dist],
                 int(63 - __builtin_clzll(n)), r.lib_ms, r.cub_ms, r.verified ? "ok" : "WRONG");
    return r;
}

std::vector<int> parse_list(const char *s) {
    std::vector<int> v;
    for (const char *p = s; *p;) {
        v.push_back(std::atoi(p));
        while (*p && *p != ',') ++p;
        if (*p == ',') ++p;
    }
    return v;
}

} // namespace

int main(int argc, char **argv) {
    std::vector<int> logs{20, 24, 28};
    int reps = 21, warmup = 3, reps_2p28 = 21;
    bool dists = true;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto next = [&]() -> const char * {
            if (i + 1 >= argc) { std::fprintf(stderr, "bench_radixsort: %s needs a value\n", a.c_str()); std::exit(1); }
            return argv[++i];
        };
        if (a == "--logs") logs = parse_list(next());
        else if (a == "--reps") reps = reps_2p28 = std::atoi(next());
        else if (a == "--reps-2p28") reps_2p28 = std::atoi(next());
        else if (a == "--warmup") warmup = std::atoi(next());
        else if (a == "--no-dists") dists = false;
        else if (a == "--help") {
            std::printf("usage: bench_radixsort [--logs 20,24,28] [--reps 21] [--reps-2p28 N] [--warmup 3] [--no-dists]\n"
                        "Times libscan::radixsort, cub::DeviceRadixSort and a memcpy of the same bytes (median of\n"
                        "--reps CUDA-event timings), verifies every result against CUB, prints a markdown table.\n"
                        "Exit 0: all verified; 1: usage; 2: CUDA/library error; 3: a wrong result.\n");
            return 0;
        } else { std::fprintf(stderr, "bench_radixsort: unknown option %s\n", a.c_str()); return 1; }
    }
    if (reps < 1 || reps_2p28 < 1 || warmup < 0) { std::fprintf(stderr, "bench_radixsort: bad --reps/--warmup\n"); return 1; }
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        std::fprintf(stderr, "bench_radixsort: no CUDA device\n");
        return 2;
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    const char *commit = std::getenv("LIBSCAN_COMMIT") ? std::getenv("LIBSCAN_COMMIT") : LIBSCAN_BENCH_COMMIT;
    const uint64_t seed = uint64_t(std::time(nullptr));
    std::vector<Row> rows;
    for (int lg : logs) {
        const size_t n = size_t(1) << lg;
        const int r = lg >= 28 ? reps_2p28 : reps;
        rows.push_back(measure<uint32_t, false>("u32 keys", n, UNIFORM, false, warmup, r, seed, s));
        rows.push_back(measure<float, false>("f32 keys", n, UNIFORM, false, warmup, r, seed, s));
        rows.push_back(measure<uint32_t, true>("u32/u32 pairs", n, UNIFORM, false, warmup, r, seed, s));
        rows.push_back(measure<uint64_t, false>("u64 keys", n, UNIFORM, false, warmup, r, seed, s));
        rows.push_back(measure<uint32_t, false>("u32 keys descending", n, UNIFORM, true, warmup, r, seed, s));
        rows.push_back(measure<uint64_t, true>("u64/u32 pairs", n, UNIFORM, false, warmup, r, seed, s));
        if (dists) {
            for (int d = SORTED; d < FLOAT_SPECIALS; ++d)
                rows.push_back(measure<uint32_t, false>("u32 keys", n, d, false, warmup, r, seed, s));
            rows.push_back(measure<uint32_t, true>("u32/u32 pairs", n, TWO, false, warmup, r, seed, s));
            rows.push_back(measure<float, false>("f32 keys", n, FLOAT_SPECIALS, false, warmup, r, seed, s));
        }
    }
    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
    int rt = 0;
    cudaRuntimeGetVersion(&rt);
    std::printf("# radix sort: libscan::radixsort vs cub::DeviceRadixSort\n\n");
    std::printf("%s (%d SMs), CUDA runtime %d.%d, CUB %d.%d.%d, commit %s, %s, build %s, arch %s; "
                "median of %d runs (%d at 2^28) after %d warm-up calls; times in ms.\n\n",
                prop.name, prop.multiProcessorCount, rt / 1000, rt % 1000 / 10, CUB_MAJOR_VERSION, CUB_MINOR_VERSION,
                CUB_SUBMINOR_VERSION, commit, date, LIBSCAN_BENCH_BUILD_TYPE, LIBSCAN_BENCH_CUDA_ARCHS, reps, reps_2p28,
                warmup);
    std::printf("| case | distribution | n | libscan | CUB | memcpy | libscan / CUB | libscan / memcpy | libscan Gkeys/s | checked |\n");
    std::printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    bool all_ok = true;
    for (const Row &r : rows) {
        all_ok = all_ok && r.verified;
        std::printf("| %s | %s | 2^%d | %.3f | %.3f | %.3f | %.3f | %.2f | %.2f | %s |\n", r.cas.c_str(), r.dist.c_str(),
                    int(63 - __builtin_clzll(r.n)), r.lib_ms, r.cub_ms, r.copy_ms, r.lib_ms / r.cub_ms,
                    r.lib_ms / r.copy_ms, double(r.n) / r.lib_ms / 1e6, r.verified ? "= CUB" : "WRONG");
    }
    CK(cudaStreamDestroy(s));
    return all_ok ? 0 : 3;
}
