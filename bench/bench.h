// bench.h -- shared declarations of the benchmark harness (bench_scan).
//
// bench_scan.cu    options, device report, the table, CSV, targets, exit code
// bench_util.cu    timing (events, medians, CUDA graphs), the copy kernel, errors
// bench_driver.cuh one (type, size) measurement: fill, verify, time; the first
//                  opts = NULL call after the temp cache is emptied; a template
// bench_type_*.cu  one instantiation of the driver per element type (compiled in
//                  parallel: each pulls in CUB's scan for its type)
#pragma once

#include <cuda_runtime.h>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace bench {

// Exit codes of bench_scan.
enum ExitCode {
    kExitOk = 0,
    kExitUsage = 1,     // bad command line
    kExitCuda = 2,      // no device, or any CUDA/libscan error: the run stopped
    kExitWrong = 3,     // every measurement ran, but a result was wrong (or not capturable)
};

// The things timed for every (type, kind, n). Each round of the timing loop
// calls them in this order, rotated by one per round, so the two libscan
// calls (and the two CUB calls) run next to each other in every round but
// one: the comparison the benchmark is about is interleaved A B A B.
//   kLibscan      libscan_*_scan with caller temp (opts->d_temp)
//   kLibscanNull  the same call with opts = NULL: temp from libscan's temp cache
//   kCub          cub::DeviceScan with `int` item counts
//   kCub64        cub::DeviceScan with `int64_t` item counts (CUB's NumItemsT)
//   kMemcpy       cudaMemcpyAsync D2D of the same bytes
//   kCopy         the copy kernel (launch_copy_kernel)
enum Method { kLibscan = 0, kLibscanNull = 1, kCub = 2, kCub64 = 3, kMemcpy = 4, kCopy = 5, kMethods = 6 };
extern const char *const kMethodNames[kMethods];

struct Options {
    std::vector<std::string> types{"u32", "f32", "u64"};
    std::vector<bool> kinds{false, true}; // exclusive? (incl first)
    std::vector<int> logs;                // log2 of the sizes; filled by main
    int min_log = 10, max_log = 30, step = 2;
    bool logs_given = false;
    int reps = 21;
    bool reps_given = false;
    // Without --reps, sizes up to kFewBytes run at least kFewReps timed calls:
    // such a call is a few microseconds, mostly host time, and a median of
    // 21 moved by up to ~8 % between runs (u64 2^16 against CUB: 0.555 in a
    // 200-call run, 0.614 in a 21-call one, same machine).
    static constexpr size_t kFewBytes = size_t(8) << 20;
    static constexpr int kFewReps = 101;
    int reps_for(size_t bytes) const {
        return !reps_given && bytes <= kFewBytes && reps < kFewReps ? kFewReps : reps;
    }
    int warmup = 3;
    bool small = false; // latency mode
    bool graph = false; // also time 20 calls captured in a CUDA graph
    int graph_calls = 20;
    std::string csv;    // "" = no CSV
    uint64_t seed = 0;  // 0 = from the clock
    bool seed_given = false;
    int device = 0;
    int watchdog_s = 180; // per (type, n): exit 2 when a size takes longer (hung kernel)
    bool first_call = true; // report the first opts = NULL call after emptying the temp cache
};

struct Context {
    const Options *opt = nullptr;
    cudaStream_t stream = nullptr;
    cudaDeviceProp prop{};
    size_t l2_bytes = 0;
    uint64_t seed = 0; // base seed of this run
};

// Median and minimum of one method's timed runs, in microseconds.
struct Timing {
    bool valid = false;
    double median_us = 0, min_us = 0;
    double host_us = 0; // median host time spent inside the enqueueing call
};

// One row of the table: one element type, one kind, one size.
struct Row {
    std::string type;
    bool exclusive = false;
    int log2n = 0;
    size_t n = 0;
    size_t elem_bytes = 0;
    bool skipped = false;  // e.g. cudaMalloc failed; `note` says why
    bool wrong = false;    // libscan (either call) differs from CUB or is not deterministic
    bool cub64_wrong = false; // CUB with int64_t counts differs from libscan and CUB int (no timing kept)
    bool capture_failed = false; // libscan could not be captured in a graph (global mode)
    std::string check;     // "ok", "ok (max rel 1.2e-06)", "WRONG ..."
    double max_rel = 0;    // floats: largest relative difference to CUB
    double tolerance = 0;  // floats: the tolerance it was held to
    bool l2_resident = false;
    uint64_t seed = 0;
    Timing t[kMethods];    // one call, stream idle before it
    Timing g[kMethods];    // graph of graph_calls calls, per call
    // The reference CUB: the faster (median) of kCub and kCub64, per table.
    Method cub_ref = kCub, cub_ref_graph = kCub;
    std::string note;
};

// The first opts = NULL call of one (type, kind, n) after
// libscan_temp_cache_release(): the temp cache holds nothing, so the call
// maps a new block from libscan's pool (and, for the first such call of the
// process, creates the pool). Measured after a caller-temp call of the same
// size, so kernel loading is not in it.
struct FirstCall {
    std::string type;
    bool exclusive = false;
    int log2n = 0;
    size_t n = 0;
    bool skipped = false;      // cudaMalloc failed; `note` says why
    bool wrong = false;        // its output differs from CUB's
    std::string check, note;
    double first_us = 0;       // CUDA events around the call (host time included)
    double first_host_us = 0;  // host time inside the call
    Timing warm_null, warm_temp; // then: opts = NULL and caller temp, interleaved
    int reps = 0;              // timed calls of each behind those medians
    size_t temp_bytes = 0;     // libscan_scan_temp_bytes()
    size_t cached_bytes = 0, pool_bytes = 0; // libscan_temp_cache_info() after the call
};

using RowSink = std::function<void(const Row &)>;

// One type's whole sweep (every size in opt.logs, every kind), rows to sink.
using TypeBench = void (*)(const Context &, const RowSink &);
void bench_u32(const Context &, const RowSink &);
void bench_i32(const Context &, const RowSink &);
void bench_u64(const Context &, const RowSink &);
void bench_i64(const Context &, const RowSink &);
void bench_f32(const Context &, const RowSink &);
void bench_f64(const Context &, const RowSink &);

// One type's first opts = NULL call at 2^log2n (see FirstCall).
using FirstCallBench = FirstCall (*)(const Context &, int log2n, bool exclusive);
FirstCall first_call_u32(const Context &, int, bool);
FirstCall first_call_i32(const Context &, int, bool);
FirstCall first_call_u64(const Context &, int, bool);
FirstCall first_call_i64(const Context &, int, bool);
FirstCall first_call_f32(const Context &, int, bool);
FirstCall first_call_f64(const Context &, int, bool);

// ---- bench_util.cu -------------------------------------------------------

// Prints "bench_scan: <what>" on stderr (and a RESULT line on stdout, so
// that a captured table shows why it ends) and exits with kExitCuda.
[[noreturn]] void fatal(const std::string &what);
// fatal() unless e == cudaSuccess; `what` names the call.
void check_cuda(cudaError_t e, const char *what, const char *file, int line);
#define BENCH_CK(call) ::bench::check_cuda((call), #call, __FILE__, __LINE__)

// Enqueues one call of a method on the stream; returns "" or what failed.
using Enqueue = std::function<std::string(cudaStream_t)>;

// Times `reps` single calls of each enqueue (each with the stream idle
// before it, CUDA events around it), interleaving the methods round by
// round after `warmup` untimed calls each. An empty Enqueue is not timed.
void time_single_calls(const Context &ctx, const Enqueue (&enq)[kMethods], int warmup, int reps,
                       Timing (&out)[kMethods]);

// Captures `calls` back-to-back calls of each enqueue into one CUDA graph
// and times replays (per call = replay / calls). A method whose capture
// fails in cudaStreamCaptureModeGlobal is retried in relaxed mode; its
// name goes into `capture_errors` with the reason.
void time_graphs(const Context &ctx, const Enqueue (&enq)[kMethods], int calls, int warmup, int reps,
                 Timing (&out)[kMethods], std::string &capture_errors, bool (&capture_failed)[kMethods]);

// The copy-kernel floor: `bytes` from src to dst (both 16-byte aligned),
// one contiguous tile per block, 16-byte loads, 8 in flight per thread.
cudaError_t launch_copy_kernel(const void *src, void *dst, size_t bytes, cudaStream_t stream);

// Watchdog: arm(s, what) makes the process print "what" and exit with
// kExitCuda if it is not re-armed or disarmed (seconds = 0) within s seconds,
// so a hung kernel ends the run instead of blocking it forever.
void watchdog_arm(int seconds, const std::string &what);

// Seconds since the epoch -> "YYYY-MM-DD HH:MM:SS UTC".
std::string utc_now();
// splitmix64 (host and device versions agree).
__host__ __device__ inline uint64_t mix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

} // namespace bench
