// bench_util.cu -- timing with CUDA events and graphs, the copy-kernel floor,
// error handling. Nothing here depends on the element type.
#include "bench.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <unistd.h>

namespace bench {

const char *const kMethodNames[kMethods] = {"libscan", "libscan NULL", "CUB int", "CUB int64", "memcpy", "copy-kernel"};

void fatal(const std::string &what) {
    std::fflush(stdout);
    std::fprintf(stderr, "bench_scan: %s\n", what.c_str());
    std::fflush(stderr);
    std::printf("\nRESULT: FAILED (bench_scan stopped: %s)\n", what.c_str());
    std::fflush(stdout);
    std::exit(kExitCuda);
}

void check_cuda(cudaError_t e, const char *what, const char *file, int line) {
    if (e == cudaSuccess) return;
    char buf[256];
    std::snprintf(buf, sizeof buf, "%s:%d: ", file, line);
    fatal(std::string("CUDA error at ") + buf + what + " -> " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
}

std::string utc_now() {
    std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[64];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
    return buf;
}

namespace {

void summarise(std::vector<double> &dev, std::vector<double> &host, Timing &t) {
    if (dev.empty()) return;
    auto median = [](std::vector<double> &v) {
        std::sort(v.begin(), v.end());
        const size_t m = v.size() / 2;
        return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
    };
    t.valid = true;
    t.median_us = median(dev);
    t.min_us = dev.front(); // sorted by median()
    t.host_us = host.empty() ? 0.0 : median(host);
}

void run_or_die(const Enqueue &e, Method m, cudaStream_t s) {
    const std::string err = e(s);
    if (!err.empty()) fatal(std::string(kMethodNames[m]) + " call failed: " + err);
}

// Times each round's calls: record start, enqueue, record stop, wait.
// `launch` enqueues method m once.
template <class Launch>
void timed_rounds(const Context &ctx, const bool (&active)[kMethods], int reps, double divide, Launch launch,
                  Timing (&out)[kMethods]) {
    cudaStream_t s = ctx.stream;
    cudaEvent_t start, stop;
    BENCH_CK(cudaEventCreate(&start));
    BENCH_CK(cudaEventCreate(&stop));
    std::vector<double> dev[kMethods], host[kMethods];
    for (int r = 0; r < reps; ++r) {
        // Rotate the order each round so no method always follows the same one.
        for (int j = 0; j < kMethods; ++j) {
            const Method m = static_cast<Method>((r + j) % kMethods);
            if (!active[m]) continue;
            BENCH_CK(cudaEventRecord(start, s));
            const auto h0 = std::chrono::steady_clock::now();
            launch(m);
            const auto h1 = std::chrono::steady_clock::now();
            BENCH_CK(cudaEventRecord(stop, s));
            BENCH_CK(cudaEventSynchronize(stop));
            float ms = 0;
            BENCH_CK(cudaEventElapsedTime(&ms, start, stop));
            dev[m].push_back(1000.0 * ms / divide);
            host[m].push_back(std::chrono::duration<double, std::micro>(h1 - h0).count());
        }
    }
    BENCH_CK(cudaEventDestroy(start));
    BENCH_CK(cudaEventDestroy(stop));
    for (int m = 0; m < kMethods; ++m) summarise(dev[m], host[m], out[m]);
}

// Captures `calls` calls of e into an instantiated graph. Returns "" or why not.
std::string capture(const Enqueue &e, int calls, cudaStream_t s, cudaStreamCaptureMode mode, cudaGraphExec_t *exec) {
    *exec = nullptr;
    cudaError_t err = cudaStreamBeginCapture(s, mode);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        return std::string("cudaStreamBeginCapture: ") + cudaGetErrorString(err);
    }
    std::string what;
    for (int i = 0; i < calls && what.empty(); ++i) what = e(s);
    cudaGraph_t graph = nullptr;
    err = cudaStreamEndCapture(s, &graph);
    if (what.empty() && err != cudaSuccess) what = std::string("cudaStreamEndCapture: ") + cudaGetErrorString(err);
    if (what.empty() && !graph) what = "cudaStreamEndCapture returned no graph";
    if (!what.empty()) {
        if (graph) (void)cudaGraphDestroy(graph);
        (void)cudaGetLastError();
        cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
        BENCH_CK(cudaStreamIsCapturing(s, &st));
        if (st != cudaStreamCaptureStatusNone) fatal("stream still capturing after a failed capture");
        return what;
    }
    err = cudaGraphInstantiate(exec, graph, 0);
    (void)cudaGraphDestroy(graph);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        *exec = nullptr;
        return std::string("cudaGraphInstantiate: ") + cudaGetErrorString(err);
    }
    BENCH_CK(cudaGraphUpload(*exec, s));
    return "";
}

} // namespace

void time_single_calls(const Context &ctx, const Enqueue (&enq)[kMethods], int warmup, int reps,
                       Timing (&out)[kMethods]) {
    bool active[kMethods];
    for (int m = 0; m < kMethods; ++m) active[m] = static_cast<bool>(enq[m]);
    for (int w = 0; w < warmup; ++w)
        for (int m = 0; m < kMethods; ++m)
            if (active[m]) run_or_die(enq[m], static_cast<Method>(m), ctx.stream);
    BENCH_CK(cudaStreamSynchronize(ctx.stream));
    timed_rounds(ctx, active, reps, 1.0, [&](Method m) { run_or_die(enq[m], m, ctx.stream); }, out);
    BENCH_CK(cudaGetLastError());
}

void time_graphs(const Context &ctx, const Enqueue (&enq)[kMethods], int calls, int warmup, int reps,
                 Timing (&out)[kMethods], std::string &capture_errors, bool (&capture_failed)[kMethods]) {
    cudaStream_t s = ctx.stream;
    cudaGraphExec_t exec[kMethods] = {};
    bool active[kMethods] = {};
    for (int m = 0; m < kMethods; ++m) {
        capture_failed[m] = false;
        if (!enq[m]) continue;
        std::string why = capture(enq[m], calls, s, cudaStreamCaptureModeGlobal, &exec[m]);
        if (!why.empty()) {
            // The documented promise is capture safety with caller temp; say
            // so loudly, then still measure in relaxed mode if that works.
            capture_failed[m] = true;
            capture_errors += std::string(capture_errors.empty() ? "" : "; ") + kMethodNames[m] +
                              " not capturable (global mode): " + why;
            why = capture(enq[m], calls, s, cudaStreamCaptureModeRelaxed, &exec[m]);
            if (!why.empty()) {
                capture_errors += " (relaxed mode too: " + why + ")";
                continue;
            }
        }
        active[m] = true;
    }
    for (int w = 0; w < warmup; ++w)
        for (int m = 0; m < kMethods; ++m)
            if (active[m]) BENCH_CK(cudaGraphLaunch(exec[m], s));
    BENCH_CK(cudaStreamSynchronize(s));
    timed_rounds(ctx, active, reps, static_cast<double>(calls),
                 [&](Method m) { BENCH_CK(cudaGraphLaunch(exec[m], s)); }, out);
    for (int m = 0; m < kMethods; ++m)
        if (exec[m]) BENCH_CK(cudaGraphExecDestroy(exec[m]));
    BENCH_CK(cudaGetLastError());
}

// ---- the copy kernel -----------------------------------------------------

namespace {

constexpr int kCopyBlock = 256;
constexpr int kCopyUnroll = 8; // 16-byte loads in flight per thread
constexpr size_t kCopyTileVecs = static_cast<size_t>(kCopyBlock) * kCopyUnroll; // 32 KiB per block

// Block b copies vectors [b * tile, (b + 1) * tile): each thread issues all
// its loads (warp-coalesced, kCopyBlock vectors apart) before any store.
// The last block also copies the tail bytes past the last whole vector.
__global__ void __launch_bounds__(kCopyBlock)
    copy_tiles_kernel(const uint4 *__restrict__ src, uint4 *__restrict__ dst, size_t nvec,
                      const unsigned char *__restrict__ src_tail, unsigned char *__restrict__ dst_tail,
                      unsigned tail_bytes) {
    const size_t base = static_cast<size_t>(blockIdx.x) * kCopyTileVecs + threadIdx.x;
    if (static_cast<size_t>(blockIdx.x + 1) * kCopyTileVecs <= nvec) {
        uint4 r[kCopyUnroll];
#pragma unroll
        for (int u = 0; u < kCopyUnroll; ++u) r[u] = src[base + static_cast<size_t>(u) * kCopyBlock];
#pragma unroll
        for (int u = 0; u < kCopyUnroll; ++u) dst[base + static_cast<size_t>(u) * kCopyBlock] = r[u];
    } else {
#pragma unroll
        for (int u = 0; u < kCopyUnroll; ++u) {
            const size_t i = base + static_cast<size_t>(u) * kCopyBlock;
            if (i < nvec) dst[i] = src[i];
        }
    }
    if (blockIdx.x == gridDim.x - 1 && threadIdx.x < tail_bytes) dst_tail[threadIdx.x] = src_tail[threadIdx.x];
}

} // namespace

cudaError_t launch_copy_kernel(const void *src, void *dst, size_t bytes, cudaStream_t stream) {
    if (bytes == 0) return cudaSuccess;
    if (reinterpret_cast<uintptr_t>(src) % 16 || reinterpret_cast<uintptr_t>(dst) % 16) return cudaErrorMisalignedAddress;
    const size_t nvec = bytes / 16;
    const unsigned tail = static_cast<unsigned>(bytes % 16);
    const size_t blocks = std::max<size_t>(1, (nvec + kCopyTileVecs - 1) / kCopyTileVecs);
    if (blocks > 0x7fffffffu) return cudaErrorInvalidValue;
    copy_tiles_kernel<<<static_cast<unsigned>(blocks), kCopyBlock, 0, stream>>>(
        static_cast<const uint4 *>(src), static_cast<uint4 *>(dst), nvec,
        static_cast<const unsigned char *>(src) + nvec * 16, static_cast<unsigned char *>(dst) + nvec * 16, tail);
    return cudaGetLastError();
}

} // namespace bench

// ---- watchdog --------------------------------------------------------------

namespace bench {
namespace {
char g_watchdog_msg[512];
size_t g_watchdog_len = 0;
void watchdog_fired(int) {
    // Only async-signal-safe calls here.
    ssize_t r = write(STDERR_FILENO, g_watchdog_msg, g_watchdog_len);
    r = write(STDOUT_FILENO, g_watchdog_msg, g_watchdog_len);
    (void)r;
    _exit(kExitCuda);
}
} // namespace

void watchdog_arm(int seconds, const std::string &what) {
    static bool installed = false;
    if (!installed) {
        std::signal(SIGALRM, watchdog_fired);
        installed = true;
    }
    alarm(0);
    if (seconds <= 0) return;
    std::snprintf(g_watchdog_msg, sizeof g_watchdog_msg,
                  "\nRESULT: FAILED (bench_scan watchdog: %s took more than %d s; a kernel may be hung)\n",
                  what.c_str(), seconds);
    g_watchdog_len = std::strlen(g_watchdog_msg);
    alarm(static_cast<unsigned>(seconds));
}

} // namespace bench
