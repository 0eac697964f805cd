// bench_driver.cuh -- the measurement of one element type T over every size
// and kind: fill the input with fresh random non-zero values on the device,
// run each libscan call (caller temp, opts = NULL) and CUB once and compare
// their outputs, time the six methods (bench.h), then check both libscan
// calls again on a freshly poisoned output (against CUB, and bitwise against
// libscan's first output: the scan must be deterministic). Also the first
// opts = NULL call after the temp cache is emptied (first_call).
//
// Included by one bench_type_*.cu per type, which instantiates it.
#pragma once

#include "bench.h"

#include <cub/device/device_scan.cuh>
#include <libscan/libscan.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>

namespace bench {

template <typename T> struct TypeInfo;
template <> struct TypeInfo<uint32_t> { static constexpr libscan_dtype_t dtype = LIBSCAN_U32; };
template <> struct TypeInfo<int32_t> { static constexpr libscan_dtype_t dtype = LIBSCAN_I32; };
template <> struct TypeInfo<uint64_t> { static constexpr libscan_dtype_t dtype = LIBSCAN_U64; };
template <> struct TypeInfo<int64_t> { static constexpr libscan_dtype_t dtype = LIBSCAN_I64; };
template <> struct TypeInfo<float> { static constexpr libscan_dtype_t dtype = LIBSCAN_F32; };
template <> struct TypeInfo<double> { static constexpr libscan_dtype_t dtype = LIBSCAN_F64; };

// A non-zero value from 64 random bits: integers use the full range (sums
// wrap, as both libraries define), floats are uniform in [1, 2) so every
// prefix sum is positive and relative differences are meaningful.
template <typename T> __device__ __forceinline__ T random_value(uint64_t h) {
    if constexpr (std::is_same_v<T, float>) {
        return 1.0f + static_cast<float>(h >> 40) * (1.0f / 16777216.0f);
    } else if constexpr (std::is_same_v<T, double>) {
        return 1.0 + static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0);
    } else if constexpr (sizeof(T) == 4) {
        const uint32_t v = static_cast<uint32_t>(h >> 32);
        return static_cast<T>(v ? v : 1u);
    } else {
        return static_cast<T>(h ? h : 1u);
    }
}

template <typename T> __global__ void fill_kernel(T *p, size_t n, uint64_t seed) {
    const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
    for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
        p[i] = random_value<T>(mix64(seed + i * 0x9e3779b97f4a7c15ull));
}

struct CompareResult {
    unsigned long long mismatches;
    unsigned long long first_bad;   // smallest index that differs (ULLONG_MAX: none)
    unsigned long long max_rel_bits; // bits of the largest relative difference (a non-negative double)
    unsigned long long hash;        // order-independent hash of a's bits
};

template <typename T> __device__ __forceinline__ uint64_t bits_of(T x) {
    if constexpr (sizeof(T) == 4) {
        uint32_t b;
        memcpy(&b, &x, 4);
        return b;
    } else {
        uint64_t b;
        memcpy(&b, &x, 8);
        return b;
    }
}

// Compares a (libscan) with b (CUB): integers exactly; floats by
// |a-b| / max(|a|, |b|) <= tol (NaN never passes). Also hashes a.
template <typename T>
__global__ void compare_kernel(const T *a, const T *b, size_t n, double tol, CompareResult *r) {
    unsigned long long bad = 0, first = ULLONG_MAX, hash = 0;
    double max_rel = 0.0;
    const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
    for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        const T x = a[i], y = b[i];
        hash += mix64(bits_of(x) ^ mix64(i));
        bool ok;
        if constexpr (std::is_floating_point_v<T>) {
            const double dx = static_cast<double>(x), dy = static_cast<double>(y);
            const double diff = fabs(dx - dy);
            double rel = diff == 0.0 ? 0.0 : diff / fmax(fmax(fabs(dx), fabs(dy)), 1e-300);
            if (rel != rel) rel = __longlong_as_double(0x7ff0000000000000ll); // NaN -> +inf
            ok = rel <= tol;
            max_rel = fmax(max_rel, rel);
        } else {
            ok = x == y;
        }
        if (!ok) {
            ++bad;
            if (i < first) first = i;
        }
    }
    if (bad) {
        atomicAdd(&r->mismatches, bad);
        atomicMin(&r->first_bad, first);
    }
    if (max_rel > 0.0) atomicMax(&r->max_rel_bits, static_cast<unsigned long long>(__double_as_longlong(max_rel)));
    atomicAdd(&r->hash, hash);
}

template <typename T> std::string value_text(T v) {
    char buf[64];
    if constexpr (std::is_same_v<T, float>) std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
    else if constexpr (std::is_same_v<T, double>) std::snprintf(buf, sizeof buf, "%.17g", v);
    else if constexpr (std::is_signed_v<T>) std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
    else std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(v));
    return buf;
}

// Float tolerance for n elements. Both libraries add tile aggregates in a
// sequential chain, so rounding grows like sqrt(number of tiles): 1e-5 (f32)
// up to 2^20 elements, then scaled by sqrt(n / 2^20) (1.6e-4 at 2^28).
template <typename T> double tolerance(size_t n) {
    if constexpr (!std::is_floating_point_v<T>) return 0.0;
    const double base = sizeof(T) == 4 ? 1e-5 : 1e-12;
    return base * std::fmax(1.0, std::sqrt(static_cast<double>(n) / 1048576.0));
}

template <typename T> struct Buffers {
    T *in = nullptr, *out_ls = nullptr, *out_cub = nullptr;
    void *temp_ls = nullptr, *temp_cub = nullptr;
    size_t temp_ls_bytes = 0, temp_cub_bytes = 0;
    CompareResult *cmp = nullptr;
    void release() {
        void *all[] = {in, out_ls, out_cub, temp_ls, temp_cub, cmp};
        for (void *p : all)
            if (p) BENCH_CK(cudaFree(p));
        *this = Buffers();
    }
};

// cudaMalloc that reports running out of memory instead of dying.
inline bool try_malloc(void **p, size_t bytes) {
    const cudaError_t e = cudaMalloc(p, bytes ? bytes : 1);
    if (e == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        *p = nullptr;
        return false;
    }
    BENCH_CK(e);
    return true;
}

struct CompareOutcome {
    CompareResult r{};
    std::string text; // "" if ok, else what differs
};

template <typename T>
CompareOutcome compare(const Context &ctx, const Buffers<T> &b, size_t n, double tol) {
    cudaStream_t s = ctx.stream;
    CompareOutcome c;
    CompareResult init{0, ULLONG_MAX, 0, 0};
    BENCH_CK(cudaMemcpyAsync(b.cmp, &init, sizeof init, cudaMemcpyHostToDevice, s));
    const size_t want = (n + 255) / 256;
    const unsigned blocks = static_cast<unsigned>(
        std::max<size_t>(1, std::min<size_t>(want, static_cast<size_t>(ctx.prop.multiProcessorCount) * 8)));
    compare_kernel<T><<<blocks, 256, 0, s>>>(b.out_ls, b.out_cub, n, tol, b.cmp);
    BENCH_CK(cudaGetLastError());
    BENCH_CK(cudaMemcpyAsync(&c.r, b.cmp, sizeof c.r, cudaMemcpyDeviceToHost, s));
    BENCH_CK(cudaStreamSynchronize(s));
    if (c.r.mismatches) {
        T x{}, y{};
        BENCH_CK(cudaMemcpy(&x, b.out_ls + c.r.first_bad, sizeof(T), cudaMemcpyDeviceToHost));
        BENCH_CK(cudaMemcpy(&y, b.out_cub + c.r.first_bad, sizeof(T), cudaMemcpyDeviceToHost));
        char buf[128];
        std::snprintf(buf, sizeof buf, "%llu of %zu differ, first at [%llu]: ", c.r.mismatches, n, c.r.first_bad);
        c.text = buf + ("libscan " + value_text(x)) + " vs CUB " + value_text(y);
    }
    return c;
}

inline double bits_to_double(unsigned long long b) {
    double d;
    std::memcpy(&d, &b, sizeof d);
    return d;
}

// The methods' calls on buffers b (one enqueue per Method). Both libscan
// calls write out_ls; CUB, memcpy and the copy kernel write out_cub.
template <typename T> void make_enqueues(const Buffers<T> &b, size_t n, bool exclusive, Enqueue (&enq)[kMethods]) {
    const size_t bytes = n * sizeof(T);
    auto libscan_call = [&b, n, exclusive](bool caller_temp) {
        return [&b, n, exclusive, caller_temp](cudaStream_t st) -> std::string {
            libscan_scan_opts_t opts = LIBSCAN_SCAN_OPTS_INIT;
            opts.d_temp = b.temp_ls;
            opts.temp_bytes = b.temp_ls_bytes;
            const libscan_scan_opts_t *o = caller_temp ? &opts : nullptr; // NULL: the call users write
            const libscan_dtype_t dt = TypeInfo<T>::dtype;
            const libscan_status_t status = exclusive ? libscan_exclusive_scan(b.in, b.out_ls, n, dt, LIBSCAN_OP_SUM, o, st)
                                                      : libscan_inclusive_scan(b.in, b.out_ls, n, dt, LIBSCAN_OP_SUM, o, st);
            if (status == LIBSCAN_SUCCESS) return "";
            const cudaError_t e = cudaGetLastError();
            return std::string(exclusive ? "libscan_exclusive_scan" : "libscan_inclusive_scan") +
                   (caller_temp ? " (caller temp): " : " (opts = NULL): ") + libscan_status_string(status) +
                   " (cudaGetLastError: " + cudaGetErrorName(e) + ")";
        };
    };
    enq[kLibscan] = libscan_call(true);
    enq[kLibscanNull] = libscan_call(false);
    // CUB's NumItemsT is the type of the count argument: int, or int64_t.
    auto cub_call = [&b, n, exclusive](auto items) {
        return [&b, n, exclusive, items](cudaStream_t st) -> std::string {
            size_t temp = b.temp_cub_bytes;
            const T *in = b.in; // the same iterator types as the temp-size query
            const cudaError_t e = exclusive ? cub::DeviceScan::ExclusiveSum(b.temp_cub, temp, in, b.out_cub, items, st)
                                            : cub::DeviceScan::InclusiveSum(b.temp_cub, temp, in, b.out_cub, items, st);
            if (e == cudaSuccess) return "";
            return std::string(exclusive ? "cub::DeviceScan::ExclusiveSum" : "cub::DeviceScan::InclusiveSum") +
                   (sizeof(items) == 4 ? " (int items): " : " (int64_t items): ") + cudaGetErrorString(e);
        };
    };
    enq[kCub] = cub_call(static_cast<int>(n));
    enq[kCub64] = cub_call(static_cast<int64_t>(n));
    enq[kMemcpy] = [&b, bytes](cudaStream_t st) -> std::string {
        const cudaError_t e = cudaMemcpyAsync(b.out_cub, b.in, bytes, cudaMemcpyDeviceToDevice, st);
        return e == cudaSuccess ? "" : std::string("cudaMemcpyAsync: ") + cudaGetErrorString(e);
    };
    enq[kCopy] = [&b, bytes](cudaStream_t st) -> std::string {
        const cudaError_t e = launch_copy_kernel(b.in, b.out_cub, bytes, st);
        return e == cudaSuccess ? "" : std::string("copy kernel: ") + cudaGetErrorString(e);
    };
}

// Poisons both outputs (different bytes, so a region neither call writes
// still differs), runs method ls (a libscan call) and method cub (a CUB
// call) once each, and compares the outputs.
template <typename T>
CompareOutcome run_and_compare(const Context &ctx, const Buffers<T> &b, const Enqueue (&enq)[kMethods], size_t n,
                               double tol, Method ls, Method cub) {
    const size_t bytes = n * sizeof(T);
    BENCH_CK(cudaMemsetAsync(b.out_ls, 0xA5, bytes, ctx.stream));
    BENCH_CK(cudaMemsetAsync(b.out_cub, 0x5A, bytes, ctx.stream));
    for (Method m : {ls, cub}) {
        const std::string err = enq[m](ctx.stream);
        if (!err.empty()) fatal(err);
    }
    BENCH_CK(cudaStreamSynchronize(ctx.stream));
    return compare<T>(ctx, b, n, tol);
}

template <typename T> void fill_input(const Context &ctx, T *in, size_t n, uint64_t seed) {
    const unsigned blocks = static_cast<unsigned>(
        std::max<size_t>(1, std::min<size_t>((n + 255) / 256, static_cast<size_t>(ctx.prop.multiProcessorCount) * 16)));
    fill_kernel<T><<<blocks, 256, 0, ctx.stream>>>(in, n, seed);
    BENCH_CK(cudaGetLastError());
}

template <typename T>
Row measure(const Context &ctx, const Buffers<T> &b, const char *type, int log2n, bool exclusive) {
    const Options &o = *ctx.opt;
    const size_t n = size_t(1) << log2n;
    const size_t bytes = n * sizeof(T);
    constexpr libscan_dtype_t dtype = TypeInfo<T>::dtype;

    Row r;
    r.type = type;
    r.exclusive = exclusive;
    r.log2n = log2n;
    r.n = n;
    r.elem_bytes = sizeof(T);
    r.l2_resident = 2 * bytes <= ctx.l2_bytes;
    r.tolerance = tolerance<T>(n);
    r.seed = mix64(ctx.seed ^ (static_cast<uint64_t>(log2n) << 40) ^ (static_cast<uint64_t>(exclusive) << 39) ^
                   (static_cast<uint64_t>(dtype) << 32));
    fill_input<T>(ctx, b.in, n, r.seed); // fresh random input

    Enqueue enq[kMethods];
    make_enqueues<T>(b, n, exclusive, enq);
    auto check = [&](Method ls, Method cub) {
        const CompareOutcome c = run_and_compare<T>(ctx, b, enq, n, r.tolerance, ls, cub);
        r.max_rel = std::fmax(r.max_rel, bits_to_double(c.r.max_rel_bits));
        return c;
    };
    auto wrong = [&r](const std::string &what) {
        if (!r.wrong) r.check = what; // the first failure is the one to read
        r.wrong = true;
    };

    // 1. Each libscan call once against CUB (int counts); the two libscan
    //    calls must agree bitwise (the association does not depend on the
    //    temp given). Then CUB with int64_t counts against libscan.
    const CompareOutcome first = check(kLibscan, kCub);
    if (!first.text.empty()) wrong("WRONG (caller temp): " + first.text);
    const CompareOutcome first_null = check(kLibscanNull, kCub);
    if (!first_null.text.empty()) wrong("WRONG (opts = NULL): " + first_null.text);
    else if (!r.wrong && first_null.r.hash != first.r.hash)
        wrong("WRONG: the opts = NULL output differs bitwise from the caller-temp output");
    if (!r.wrong) {
        const CompareOutcome c64 = check(kLibscan, kCub64);
        if (!c64.text.empty()) {
            r.cub64_wrong = true;
            r.note = "CUB int64 output differs from libscan and CUB int: " + c64.text + "; no CUB int64 timing";
            enq[kCub64] = nullptr;
        }
    }
    if (r.wrong) {
        enq[kLibscan] = nullptr; // no speed for a wrong result
        enq[kLibscanNull] = nullptr;
    }

    // 2. Time.
    const int reps = o.reps_for(bytes);
    time_single_calls(ctx, enq, o.warmup, reps, r.t);
    if (o.graph) {
        std::string capture_errors;
        bool failed[kMethods];
        time_graphs(ctx, enq, o.graph_calls, o.warmup, reps, r.g, capture_errors, failed);
        if (!capture_errors.empty()) r.note += (r.note.empty() ? "" : "; ") + capture_errors;
        // Both libscan calls are documented as capturable (opts = NULL turns
        // its temp into the graph's allocation and free nodes).
        r.capture_failed = failed[kLibscan] || failed[kLibscanNull];
        if (failed[kCub] || failed[kCub64] || failed[kMemcpy] || failed[kCopy])
            std::fprintf(stderr, "bench_scan: note: %s\n", capture_errors.c_str());
    }

    // 3. After all those calls reused their temp (the caller's buffer, the
    //    cache's block): both libscan calls once more into a re-poisoned
    //    output, against CUB and bitwise against the first output
    //    (determinism).
    if (!r.wrong) {
        for (Method m : {kLibscan, kLibscanNull}) {
            const CompareOutcome last = check(m, kCub);
            const std::string which = m == kLibscan ? " (caller temp)" : " (opts = NULL)";
            if (!last.text.empty()) wrong("WRONG after the timed calls" + which + ": " + last.text);
            else if (last.r.hash != first.r.hash)
                wrong("WRONG: not deterministic" + which +
                      " (output after the timed calls differs bitwise from the first)");
        }
    }
    if (r.wrong) {
        std::fprintf(stderr, "bench_scan: %s %s 2^%d: %s (seed 0x%016llx)\n", type, exclusive ? "excl" : "incl",
                     log2n, r.check.c_str(), static_cast<unsigned long long>(r.seed));
        for (Method m : {kLibscan, kLibscanNull}) {
            r.t[m] = Timing();
            r.g[m] = Timing();
        }
    } else if (std::is_floating_point_v<T>) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "ok (max rel %.1e)", r.max_rel);
        r.check = buf;
    } else {
        r.check = "ok (exact)";
    }
    if (r.cub64_wrong) {
        std::fprintf(stderr, "bench_scan: %s %s 2^%d: %s\n", type, exclusive ? "excl" : "incl", log2n, r.note.c_str());
        r.t[kCub64] = Timing();
        r.g[kCub64] = Timing();
    }
    // The reference CUB of each table: the faster of the two count types.
    auto faster = [](const Timing (&t)[kMethods]) {
        return t[kCub64].valid && (!t[kCub].valid || t[kCub64].median_us < t[kCub].median_us) ? kCub64 : kCub;
    };
    r.cub_ref = faster(r.t);
    r.cub_ref_graph = faster(r.g);
    return r;
}

// The buffers of one (type, n): in, both outputs, both temps, the compare
// result. Returns false (nothing left allocated) when memory runs out.
template <typename T> bool allocate(Buffers<T> &b, size_t n) {
    const size_t bytes = n * sizeof(T);
    size_t need = 0;
    const libscan_status_t st = libscan_scan_temp_bytes(n, TypeInfo<T>::dtype, &need);
    if (st != LIBSCAN_SUCCESS) fatal(std::string("libscan_scan_temp_bytes: ") + libscan_status_string(st));
    b.temp_ls_bytes = need;
    // One CUB temp for both kinds and both count types.
    size_t cub = 0;
    for (int k = 0; k < 4; ++k) {
        size_t x = 0;
        const T *in = nullptr;
        T *out = nullptr;
        const bool excl = k & 1;
        if (k < 2) {
            const int items = static_cast<int>(n);
            BENCH_CK(excl ? cub::DeviceScan::ExclusiveSum(nullptr, x, in, out, items)
                          : cub::DeviceScan::InclusiveSum(nullptr, x, in, out, items));
        } else {
            const int64_t items = static_cast<int64_t>(n);
            BENCH_CK(excl ? cub::DeviceScan::ExclusiveSum(nullptr, x, in, out, items)
                          : cub::DeviceScan::InclusiveSum(nullptr, x, in, out, items));
        }
        cub = std::max(cub, x);
    }
    b.temp_cub_bytes = cub;
    const bool ok = try_malloc(reinterpret_cast<void **>(&b.in), bytes) &&
                    try_malloc(reinterpret_cast<void **>(&b.out_ls), bytes) &&
                    try_malloc(reinterpret_cast<void **>(&b.out_cub), bytes) &&
                    try_malloc(&b.temp_ls, b.temp_ls_bytes) && try_malloc(&b.temp_cub, b.temp_cub_bytes) &&
                    try_malloc(reinterpret_cast<void **>(&b.cmp), sizeof(CompareResult));
    if (!ok) b.release();
    return ok;
}

inline std::string oom_note(size_t bytes) {
    char note[160];
    std::snprintf(note, sizeof note, "skipped: cudaMalloc of 3 x %.2f GiB (+ temp) failed: out of memory",
                  static_cast<double>(bytes) / (1u << 30));
    return note;
}

template <typename T> void bench_type(const Context &ctx, const RowSink &sink, const char *type) {
    const Options &o = *ctx.opt;
    for (const int log2n : o.logs) {
        const size_t n = size_t(1) << log2n;
        const size_t bytes = n * sizeof(T);
        if (n > static_cast<size_t>(INT_MAX)) fatal("sizes above 2^30 are not supported (CUB is called with int counts)");
        char what[64];
        std::snprintf(what, sizeof what, "%s 2^%d", type, log2n);
        watchdog_arm(o.watchdog_s, what);

        Buffers<T> b;
        if (!allocate<T>(b, n)) {
            const std::string note = oom_note(bytes);
            std::fprintf(stderr, "bench_scan: %s %s\n", what, note.c_str());
            watchdog_arm(0, "");
            for (const bool exclusive : o.kinds) {
                Row r;
                r.type = type;
                r.exclusive = exclusive;
                r.log2n = log2n;
                r.n = n;
                r.elem_bytes = sizeof(T);
                r.skipped = true;
                r.check = "-";
                r.note = note;
                sink(r);
            }
            continue;
        }
        for (const bool exclusive : o.kinds) sink(measure<T>(ctx, b, type, log2n, exclusive));
        b.release();
        watchdog_arm(0, "");
    }
}

// FirstCall (bench.h): caller-temp and CUB calls first (kernels loaded, the
// reference output), then libscan_temp_cache_release(), then one opts = NULL
// call between CUDA events, checked against CUB; then both libscan calls
// interleaved, warm.
template <typename T> FirstCall first_call(const Context &ctx, const char *type, int log2n, bool exclusive) {
    const Options &o = *ctx.opt;
    const size_t n = size_t(1) << log2n;
    const size_t bytes = n * sizeof(T);
    cudaStream_t s = ctx.stream;
    FirstCall f;
    f.type = type;
    f.exclusive = exclusive;
    f.log2n = log2n;
    f.n = n;
    char what[80];
    std::snprintf(what, sizeof what, "first opts = NULL call, %s 2^%d", type, log2n);
    watchdog_arm(o.watchdog_s, what);
    Buffers<T> b;
    if (!allocate<T>(b, n)) {
        f.skipped = true;
        f.note = oom_note(bytes);
        watchdog_arm(0, "");
        return f;
    }
    f.temp_bytes = b.temp_ls_bytes;
    const double tol = tolerance<T>(n);
    fill_input<T>(ctx, b.in, n, mix64(ctx.seed ^ 0xf1257ull ^ (static_cast<uint64_t>(log2n) << 40)));
    Enqueue enq[kMethods];
    make_enqueues<T>(b, n, exclusive, enq);
    // The reference, and libscan's kernels loaded by a call that needs no cache.
    const CompareOutcome warm = run_and_compare<T>(ctx, b, enq, n, tol, kLibscan, kCub);

    const libscan_status_t rel = libscan_temp_cache_release();
    if (rel != LIBSCAN_SUCCESS) fatal(std::string("libscan_temp_cache_release: ") + libscan_status_string(rel));
    BENCH_CK(cudaMemsetAsync(b.out_ls, 0xA5, bytes, s));
    BENCH_CK(cudaStreamSynchronize(s));
    cudaEvent_t start, stop;
    BENCH_CK(cudaEventCreate(&start));
    BENCH_CK(cudaEventCreate(&stop));
    BENCH_CK(cudaEventRecord(start, s));
    const auto h0 = std::chrono::steady_clock::now();
    const std::string err = enq[kLibscanNull](s);
    const auto h1 = std::chrono::steady_clock::now();
    if (!err.empty()) fatal(err);
    BENCH_CK(cudaEventRecord(stop, s));
    BENCH_CK(cudaEventSynchronize(stop));
    float ms = 0;
    BENCH_CK(cudaEventElapsedTime(&ms, start, stop));
    BENCH_CK(cudaEventDestroy(start));
    BENCH_CK(cudaEventDestroy(stop));
    f.first_us = 1000.0 * ms;
    f.first_host_us = std::chrono::duration<double, std::micro>(h1 - h0).count();
    const libscan_status_t info = libscan_temp_cache_info(&f.cached_bytes, &f.pool_bytes, nullptr);
    if (info != LIBSCAN_SUCCESS) fatal(std::string("libscan_temp_cache_info: ") + libscan_status_string(info));

    // out_cub still holds CUB's output from the warm-up: compare the first call's.
    const CompareOutcome c = compare<T>(ctx, b, n, tol);
    if (!warm.text.empty()) {
        f.wrong = true;
        f.check = "WRONG (caller temp): " + warm.text;
    } else if (!c.text.empty()) {
        f.wrong = true;
        f.check = "WRONG: " + c.text;
    } else if (c.r.hash != warm.r.hash) {
        f.wrong = true;
        f.check = "WRONG: differs bitwise from the caller-temp output";
    } else {
        f.check = "ok";
    }

    Enqueue pair[kMethods];
    pair[kLibscan] = enq[kLibscan];
    pair[kLibscanNull] = enq[kLibscanNull];
    Timing t[kMethods];
    f.reps = o.reps_for(bytes);
    time_single_calls(ctx, pair, 0, f.reps, t);
    f.warm_temp = t[kLibscan];
    f.warm_null = t[kLibscanNull];
    b.release();
    watchdog_arm(0, "");
    return f;
}

} // namespace bench

// One line per type file: defines bench::bench_<name>.
#define BENCH_INSTANTIATE(T, name)                                                                            \
    void bench::bench_##name(const Context &ctx, const RowSink &sink) { bench_type<T>(ctx, sink, #name); }      \
    bench::FirstCall bench::first_call_##name(const Context &ctx, int log2n, bool exclusive) {                 \
        return first_call<T>(ctx, #name, log2n, exclusive);                                                     \
    }
