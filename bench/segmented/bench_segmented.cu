// bench_segmented.cu -- libscan's segmented inclusive u32 sum against
// thrust::inclusive_scan_by_key and cudaMemcpyAsync, in one run (issue 3).
//
// Cases: (a) 2^28 elements, head flags, random segment lengths 1..1999
// (mean 1000); (b) the same with lengths 1..32; (c) rows: 16384 x 16384 and
// 2^22 rows x 64 (pitch = row_len). libscan is timed twice: the call users
// write (opts = NULL: temp from libscan's temp cache) and the same call with
// caller temp (opts->d_temp). Thrust gets u32 segment ids as keys (row ids
// for rows), allocated before timing, on the same stream. The memcpy floor
// copies the bytes a scan moves: for flags n*4 + n*1 bytes (two
// cudaMemcpyAsync in one timed region: values, then flags), for rows n*4
// bytes. The four are timed interleaved (bench::time_interleaved: one call
// of each per round, CUDA events around each), 3 warm-up rounds, median of
// --reps (>= 20). Both libscan outputs must equal thrust's (exit 3 if not).
//
//   bench_segmented [--reps N]        LIBSCAN_COMMIT overrides the commit
#include "../bench_timing.cuh"
#define BENCH_PROGRAM "bench_segmented"
#include "../bench_check.cuh"
#include "bench_config.h"
#include "libscan/libscan.h"

#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/scan.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <random>
#include <string>
#include <vector>


static __global__ void fill_values(uint32_t *v, size_t n, uint32_t salt) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint32_t x = (uint32_t)i * 2654435761u ^ salt;
        x ^= x >> 15;
        x *= 0x2c1b3c6du;
        x ^= x >> 12;
        v[i] = x & 0xffffu;
    }
}

static int g_reps = 20;

struct row_t {
    std::string name, floor;
    size_t n;
    double lib_null, lib, thr, cpy; // ms: opts = NULL, caller temp, thrust, memcpy
    bool same_null, same;           // each libscan call's output equal to thrust's
};

// The four calls of one case timed interleaved: 3 warm-up rounds, then
// g_reps rounds; medians in ms (the mean of the two middle ones for an even
// count) into r.lib_null, r.lib, r.thr, r.cpy.
static void time_case(cudaStream_t s, row_t &r, const std::function<void()> &lib_null,
                      const std::function<void()> &lib_temp, const std::function<void()> &thrust_call,
                      const std::function<void()> &copy) {
    std::vector<bench::EventTimes> t;
    CK(bench::time_interleaved(s, 3, g_reps, {lib_null, lib_temp, thrust_call, copy}, &t));
    r.lib_null = t[0].median();
    r.lib = t[1].median();
    r.thr = t[2].median();
    r.cpy = t[3].median();
}

// thrust::inclusive_scan_by_key over (keys, in) into out.
static std::function<void()> thrust_call(cudaStream_t s, const uint32_t *d_keys, const uint32_t *d_in, uint32_t *d_out,
                                         size_t n) {
    return [=] { thrust::inclusive_scan_by_key(thrust::cuda::par.on(s), d_keys, d_keys + n, d_in, d_out); };
}

// Whether `call` writes thrust's output d_tout into d_out, element for
// element: d_out is poisoned first, so an element the call skips differs.
static bool same_output(cudaStream_t s, const std::function<void()> &call, uint32_t *d_out, const uint32_t *d_tout,
                        size_t n) {
    CK(cudaMemsetAsync(d_out, 0xA5, n * 4, s));
    call();
    CK(cudaStreamSynchronize(s));
    std::vector<uint32_t> a(n), b(n);
    CK(cudaMemcpy(a.data(), d_out, n * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(b.data(), d_tout, n * 4, cudaMemcpyDeviceToHost));
    return a == b;
}

static row_t bench_flags(const char *name, size_t n, uint32_t max_len, cudaStream_t s) {
    std::vector<unsigned char> hf(n, 0);
    std::vector<uint32_t> hk(n);
    std::mt19937_64 rng(12345 + max_len);
    uint32_t seg = 0;
    for (size_t b = 0; b < n; ++seg) {
        size_t len = 1 + rng() % max_len;
        size_t e = std::min(n, b + len);
        hf[b] = 1;
        for (size_t i = b; i < e; ++i) hk[i] = seg;
        b = e;
    }
    uint32_t *d_in, *d_out, *d_tout, *d_keys, *d_copy;
    unsigned char *d_flags, *d_fcopy;
    void *d_temp = nullptr;
    size_t temp_bytes = 0;
    CK(cudaMalloc(&d_in, n * 4));
    CK(cudaMalloc(&d_out, n * 4));
    CK(cudaMalloc(&d_tout, n * 4));
    CK(cudaMalloc(&d_keys, n * 4));
    CK(cudaMalloc(&d_copy, n * 4));
    CK(cudaMalloc(&d_flags, n));
    CK(cudaMalloc(&d_fcopy, n));
    LS(libscan_segmented_temp_bytes(n, LIBSCAN_U32, LIBSCAN_SEGMENTS_FLAGS, &temp_bytes));
    if (temp_bytes) CK(cudaMalloc(&d_temp, temp_bytes));
    CK(cudaMemcpy(d_flags, hf.data(), n, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_keys, hk.data(), n * 4, cudaMemcpyHostToDevice));
    fill_values<<<1024, 256, 0, s>>>(d_in, n, 0x9e3779b9u);
    CK(cudaGetLastError());
    CK(cudaStreamSynchronize(s));

    libscan_segscan_opts_t o = LIBSCAN_SEGSCAN_OPTS_INIT;
    o.d_temp = d_temp;
    o.temp_bytes = temp_bytes;
    row_t r;
    r.name = name;
    r.n = n;
    r.floor = "memcpy n*4 + n*1 B";
    auto lib = [&](const libscan_segscan_opts_t *opts) {
        return [=] { LS(libscan_segmented_inclusive_scan(d_in, d_out, n, d_flags, LIBSCAN_U32, LIBSCAN_OP_SUM, opts, s)); };
    };
    time_case(s, r, lib(nullptr), lib(&o), thrust_call(s, d_keys, d_in, d_tout, n), [&] {
        CK(cudaMemcpyAsync(d_copy, d_in, n * 4, cudaMemcpyDeviceToDevice, s));
        CK(cudaMemcpyAsync(d_fcopy, d_flags, n, cudaMemcpyDeviceToDevice, s));
    });
    r.same = same_output(s, lib(&o), d_out, d_tout, n);
    r.same_null = same_output(s, lib(nullptr), d_out, d_tout, n);
    CK(cudaFree(d_in));
    CK(cudaFree(d_out));
    CK(cudaFree(d_tout));
    CK(cudaFree(d_keys));
    CK(cudaFree(d_copy));
    CK(cudaFree(d_flags));
    CK(cudaFree(d_fcopy));
    if (d_temp) CK(cudaFree(d_temp));
    return r;
}

static __global__ void fill_row_keys(uint32_t *k, size_t n, size_t row_len) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        k[i] = (uint32_t)(i / row_len);
}

static row_t bench_rows(const char *name, size_t rows, size_t row_len, cudaStream_t s) {
    const size_t n = rows * row_len;
    uint32_t *d_in, *d_out, *d_tout, *d_keys, *d_copy;
    void *d_temp = nullptr;
    size_t temp_bytes = 0;
    CK(cudaMalloc(&d_in, n * 4));
    CK(cudaMalloc(&d_out, n * 4));
    CK(cudaMalloc(&d_tout, n * 4));
    CK(cudaMalloc(&d_keys, n * 4));
    CK(cudaMalloc(&d_copy, n * 4));
    LS(libscan_segmented_temp_bytes(n, LIBSCAN_U32, LIBSCAN_SEGMENTS_ROWS, &temp_bytes));
    if (temp_bytes) CK(cudaMalloc(&d_temp, temp_bytes));
    fill_values<<<1024, 256, 0, s>>>(d_in, n, 0x7f4a7c15u);
    CK(cudaGetLastError());
    fill_row_keys<<<1024, 256, 0, s>>>(d_keys, n, row_len);
    CK(cudaGetLastError());
    CK(cudaStreamSynchronize(s));
    libscan_segscan_opts_t o = LIBSCAN_SEGSCAN_OPTS_INIT;
    o.d_temp = d_temp;
    o.temp_bytes = temp_bytes;
    row_t r;
    r.name = name;
    r.n = n;
    r.floor = "memcpy n*4 B";
    auto lib = [&](const libscan_segscan_opts_t *opts) {
        return [=] {
            LS(libscan_inclusive_scan_rows(d_in, d_out, rows, row_len, row_len, LIBSCAN_U32, LIBSCAN_OP_SUM, opts, s));
        };
    };
    time_case(s, r, lib(nullptr), lib(&o), thrust_call(s, d_keys, d_in, d_tout, n),
              [&] { CK(cudaMemcpyAsync(d_copy, d_in, n * 4, cudaMemcpyDeviceToDevice, s)); });
    r.same = same_output(s, lib(&o), d_out, d_tout, n);
    r.same_null = same_output(s, lib(nullptr), d_out, d_tout, n);
    CK(cudaFree(d_in));
    CK(cudaFree(d_out));
    CK(cudaFree(d_tout));
    CK(cudaFree(d_keys));
    CK(cudaFree(d_copy));
    if (d_temp) CK(cudaFree(d_temp));
    return r;
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) {
            g_reps = std::atoi(argv[++i]);
        } else if (!std::strcmp(argv[i], "--help")) {
            std::printf("usage: bench_segmented [--reps N]   (N >= 20, default 20)\n"
                        "Environment: LIBSCAN_COMMIT overrides the commit printed.\n");
            return 0;
        } else {
            std::fprintf(stderr, "bench_segmented: unknown argument '%s' (try --help)\n", argv[i]);
            return 1;
        }
    }
    if (g_reps < 20) {
        std::fprintf(stderr, "bench_segmented: --reps must be at least 20\n");
        return 1;
    }
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        std::fprintf(stderr, "bench_segmented: no CUDA device\n");
        return 2;
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    const std::string commit = libscan_bench_commit();
    char date[64];
    std::time_t now = std::time(nullptr);
    std::tm tm;
    gmtime_r(&now, &tm);
    std::strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", &tm);

    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    std::vector<row_t> rows;
    rows.push_back(bench_flags("flags, lengths 1..1999 (mean 1000)", (size_t)1 << 28, 1999, s));
    rows.push_back(bench_flags("flags, lengths 1..32", (size_t)1 << 28, 32, s));
    rows.push_back(bench_rows("rows 16384 x 16384", 16384, 16384, s));
    rows.push_back(bench_rows("rows 2^22 x 64", (size_t)1 << 22, 64, s));
    CK(cudaStreamDestroy(s));

    std::printf("## bench_segmented: segmented inclusive u32 sum\n\n");
    std::printf("- GPU: %s (sm_%d%d, %d SMs)\n", prop.name, prop.major, prop.minor, prop.multiProcessorCount);
    std::printf("- date: %s\n- commit: %s (libscan %s, build %s, archs %s)\n", date, commit.c_str(),
                libscan_version_string(), LIBSCAN_BENCH_BUILD_TYPE, LIBSCAN_BENCH_CUDA_ARCHS);
    std::printf("- CUDA events around each call, 3 warm-up rounds, median of %d rounds; each round calls the four "
                "interleaved (libscan opts = NULL, libscan caller temp, thrust, memcpy; the first one rotating); "
                "NULL: opts = NULL, temp from libscan's temp cache (the call users write); temp: opts->d_temp; thrust "
                "inclusive_scan_by_key with u32 segment (row) ids as keys, on the same stream\n",
                g_reps);
    std::printf("- memcpy floor: for flags, cudaMemcpyAsync of n*4 bytes plus one of n*1 bytes (the flags) "
                "in one timed region; for rows, one of n*4 bytes\n\n");
    std::printf("| case | n | NULL ms | temp ms | NULL/temp | NULL-temp us | thrust ms | memcpy ms | memcpy bytes | "
                "NULL/memcpy | temp/memcpy | NULL/thrust | equal to thrust (NULL, temp) |\n");
    std::printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | --- |\n");
    bool all_same = true;
    for (const row_t &r : rows) {
        std::printf("| %s | %zu | %.3f | %.3f | %.3f | %+.1f | %.3f | %.3f | %s | %.3f | %.3f | %.3f | %s, %s |\n",
                    r.name.c_str(), r.n, r.lib_null, r.lib, r.lib_null / r.lib, 1000.0 * (r.lib_null - r.lib), r.thr,
                    r.cpy, r.floor.c_str(), r.lib_null / r.cpy, r.lib / r.cpy, r.lib_null / r.thr,
                    r.same_null ? "yes" : "NO", r.same ? "yes" : "NO");
        all_same = all_same && r.same && r.same_null;
    }
    if (!all_same) {
        std::fprintf(stderr, "bench_segmented: libscan's output differs from thrust's\n");
        return 3;
    }
    return 0;
}
