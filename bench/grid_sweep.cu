// grid_sweep.cu -- chooses GridTuning (libscan/include/libscan/cuda/tuning.cuh)
// for the small scan (grid_scan.cuh), times its captured form against CUB in
// graphs, and checks on the GPU the fact its eager flags rest on: every eager
// launch sees a grid id (%gridid) of its own.
//
// 1. Grid ids: 1000 launches alternating between two streams and 200
//    cooperative launches must all differ, and all blocks of one launch must
//    agree. 10 replays of a 20-launch graph are recorded too: they share the
//    ids of the graph's nodes (which is why a captured grid scan passes its
//    values through temp and a grid barrier instead of the flag table).
// 2. Events around one 2^16 call of each of CUB, DeviceScan::run, the grid
//    kernel (cooperative and plain launch), the barrier form of the grid
//    kernel launched eagerly, a memcpy and an empty kernel, taking turns for
//    600 rounds (interleaved()).
// 3. Host time per enqueue of the pieces of a small scan: the capture query,
//    a plain and a cooperative driver launch of the grid kernel, the
//    runtime's cooperative launch, and DeviceScan::run as a whole (median
//    over 2000 calls).
// 4. The captured small scan at 2^16 (captured()): DeviceScan::run under
//    capture (the grid scan, values in caller temp behind a grid barrier: one
//    cooperative kernel node) against CUB, whose item count is tried as
//    32-bit and 64-bit (the faster is the reference), two ways: device time
//    per call from 41- against 1-call graphs (bench::time_graph_call), and
//    events around one launch of a one-call graph, the graphs taking turns
//    for 600 rounds. Before that, f32 and f64 sums of random values at
//    sizes from 1 to 65536 are replayed from graphs and compared bit for bit
//    with the same calls made eagerly (a difference counts as a failure).
// 5. Each shape is checked against a CPU running sum (inclusive and
//    exclusive, carry-in and carry-out, several sizes; the eager kernel and
//    the barrier form), then timed: CUDA events around one call on an idle
//    stream (host enqueue included, as bench_scan reports it), device time
//    per call with the calls queued behind a sleeping kernel
//    (bench::time_queued_call; graphs would replay one launch's flag tag),
//    cooperative and plain launch; and the barrier form's device time per
//    call in graphs. Against CUB, a memcpy and an empty kernel.
// Run on the GPU: build/bench/grid_sweep (no arguments). Exit status 1 when
// a check failed.
#include <algorithm>
#include <chrono>
#include <functional>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <set>
#include <vector>
#include <cub/device/device_scan.cuh>
#include "libscan/cuda/device_scan.cuh"
#include "libscan/cuda/grid_scan.cuh"
#include "libscan/cuda/ops.cuh"
#include "libscan/cuda/tuning.cuh"
#include "sweep_util.cuh"

static int g_failures = 0;

__global__ void empty_kernel() {}

__global__ void grid_id_kernel(unsigned long long *out, int launch) {
    unsigned long long g;
    asm("mov.u64 %0, %%gridid;" : "=l"(g));
    if (threadIdx.x == 0) out[static_cast<size_t>(launch) * gridDim.x + blockIdx.x] = g;
}

static void check_grid_ids(cudaStream_t s1, cudaStream_t s2) {
    constexpr int kPlain = 1000, kCoop = 200, kGraph = 20, kReplays = 10, kBlocks = 64;
    constexpr int kLaunches = kPlain + kCoop + kGraph * kReplays;
    unsigned long long *d = nullptr;
    CK(cudaMalloc(&d, sizeof(unsigned long long) * kLaunches * kBlocks));
    for (int i = 0; i < kPlain; ++i) grid_id_kernel<<<kBlocks, 32, 0, i % 2 ? s2 : s1>>>(d, i);
    for (int i = 0; i < kCoop; ++i) {
        int launch = kPlain + i;
        void *args[] = {&d, &launch};
        CK(cudaLaunchCooperativeKernel(reinterpret_cast<const void *>(grid_id_kernel), dim3(kBlocks), dim3(32), args, 0, s1));
    }
    CK(cudaDeviceSynchronize());
    std::vector<unsigned long long> h(static_cast<size_t>(kLaunches) * kBlocks);
    CK(cudaMemcpy(h.data(), d, sizeof(unsigned long long) * (kPlain + kCoop) * kBlocks, cudaMemcpyDeviceToHost));
    // The graph writes the same 20 rows on every replay: copy them out after each.
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    for (int i = 0; i < kGraph; ++i) grid_id_kernel<<<kBlocks, 32, 0, s1>>>(d, kPlain + kCoop + i);
    CK(cudaStreamEndCapture(s1, &graph));
    CK(cudaGraphInstantiate(&exec, graph, 0));
    for (int r = 0; r < kReplays; ++r) {
        CK(cudaGraphLaunch(exec, s1));
        CK(cudaStreamSynchronize(s1));
        CK(cudaMemcpy(h.data() + static_cast<size_t>(kPlain + kCoop + r * kGraph) * kBlocks,
                      d + static_cast<size_t>(kPlain + kCoop) * kBlocks, sizeof(unsigned long long) * kGraph * kBlocks,
                      cudaMemcpyDeviceToHost));
    }
    CK(cudaGraphExecDestroy(exec));
    CK(cudaGraphDestroy(graph));
    CK(cudaFree(d));
    std::set<unsigned long long> eager, replayed;
    int disagree = 0;
    for (int i = 0; i < kLaunches; ++i) {
        const unsigned long long g = h[static_cast<size_t>(i) * kBlocks];
        for (int b = 1; b < kBlocks; ++b) disagree += h[static_cast<size_t>(i) * kBlocks + b] != g;
        (i < kPlain + kCoop ? eager : replayed).insert(g);
    }
    const bool ok = eager.size() == static_cast<size_t>(kPlain + kCoop) && disagree == 0;
    printf("grid ids: %d eager launches (%d plain on 2 streams, %d cooperative): %zu distinct, from %llu to %llu; "
           "blocks disagreeing within a launch: %d: %s. %d graph replays x %d nodes: %zu distinct ids (first "
           "node %llu in replays 1 and 2: %llu %llu)\n\n",
           kPlain + kCoop, kPlain, kCoop, eager.size(), *eager.begin(), *eager.rbegin(), disagree,
           ok ? "ok" : "FAILED", kReplays, kGraph, replayed.size(), h[static_cast<size_t>(kPlain + kCoop) * kBlocks],
           h[static_cast<size_t>(kPlain + kCoop) * kBlocks],
           h[static_cast<size_t>(kPlain + kCoop + kGraph) * kBlocks]);
    if (!ok) ++g_failures;
}

// Median host time of one f() in microseconds (2000 calls, the stream
// drained every 100 so that launches never wait for queue space).
template <typename F> float host_us(F f, cudaStream_t s) {
    std::vector<double> t;
    for (int i = 0; i < 2000; ++i) {
        if (i % 100 == 0) CK(cudaStreamSynchronize(s));
        const auto a = std::chrono::steady_clock::now();
        f();
        const auto b = std::chrono::steady_clock::now();
        t.push_back(std::chrono::duration<double, std::micro>(b - a).count());
    }
    CK(cudaStreamSynchronize(s));
    std::sort(t.begin(), t.end());
    return float(t[t.size() / 2]);
}

template <typename T> const char *type_name() { return sizeof(T) == 4 ? "u32" : "u64"; }

// Runs `call` with (n, exclusive, carry-in, d_total) and compares with a CPU
// running sum; returns false on the first difference.
template <typename T, class Call>
bool check_one(Call call, const T *in, T *out, T *d_total, size_t n, const std::vector<T> &h_in, bool exclusive,
               T carry, cudaStream_t s) {
    CK(cudaMemsetAsync(out, 0xa5, n * sizeof(T), s));
    CK(cudaMemsetAsync(d_total, 0xa5, sizeof(T), s));
    call(n, exclusive, carry);
    std::vector<T> h(n);
    T total = 0;
    CK(cudaMemcpyAsync(h.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost, s));
    CK(cudaMemcpyAsync(&total, d_total, sizeof(T), cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    T acc = carry;
    for (size_t i = 0; i < n; ++i) {
        const T want = exclusive ? acc : T(acc + h_in[i]);
        acc += h_in[i];
        if (h[i] != want) return false;
    }
    (void)in;
    return total == acc;
}

template <typename T, int B, int I, int MAXB>
void shape(const T *in, T *out, T *d_total, const std::vector<T> &h_in, cudaStream_t s, size_t n, float t_cub,
           float g_cub, float c_graph) {
    using S = libscan::GridScan<T, B, I, MAXB>;
    using Op = libscan::Sum<T>;
    if (n > S::kCapacity) return;
    if (!S::template supported<Op>()) {
        printf("| %s | %zu | %d x %d x %d | unsupported |\n", type_name<T>(), n, MAXB, B, I);
        return;
    }
    const auto sup = S::template on_current_device<Op>();
    void *temp = nullptr;
    const size_t temp_bytes = S::temp_bytes(S::kCapacity);
    CK(cudaMalloc(&temp, temp_bytes));
    auto run = [&](size_t m, bool excl, T carry) {
        libscan::SmallScanArgs<T> a{in, out, m, excl, carry, nullptr, d_total, true};
        CK(S::run(a, Op(), s));
    };
    auto run_barrier = [&](size_t m, bool excl, T carry) {
        libscan::SmallScanArgs<T> a{in, out, m, excl, carry, nullptr, d_total, true};
        CK(cudaMemsetAsync(temp, 0xff, temp_bytes, s)); // nothing in temp may be read before it is written
        CK(S::run_with_temp(a, Op(), temp, temp_bytes, s, sup));
    };
    const size_t sizes[] = {1, 33, size_t(S::kTile) - 1, size_t(S::kTile) + 1, 40000, S::kCapacity};
    for (size_t m : sizes)
        for (int e = 0; e < 4; ++e)
            if (m >= 1 && m <= S::kCapacity &&
                !(e < 2 ? check_one<T>(run, in, out, d_total, m, h_in, e == 1, T(e ? 7 : 0), s)
                        : check_one<T>(run_barrier, in, out, d_total, m, h_in, e == 3, T(e == 3 ? 7 : 0), s))) {
                printf("| %s | %zu | %d x %d x %d | WRONG (%s, excl %d) |\n", type_name<T>(), m, MAXB, B, I,
                       e < 2 ? "flags" : "barrier", e % 2);
                ++g_failures;
                CK(cudaFree(temp));
                return;
            }
    auto call = [&] { run(n, false, T(0)); };
    auto plain = [&] {
        libscan::SmallScanArgs<T> a{in, out, n, false, T(0), nullptr, d_total, true};
        S::template kernel<Op>()<<<S::blocks(n), B, 0, s>>>(a, Op());
    };
    auto barrier = [&] {
        libscan::SmallScanArgs<T> a{in, out, n, false, T(0), nullptr, d_total, true};
        CK(S::run_with_temp(a, Op(), temp, temp_bytes, s, sup));
    };
    const float te = time_events(call, s), tq = time_queued(call, s);
    const float pe = time_events(plain, s), pq = time_queued(plain, s);
    const float bg = time_graph(barrier, s);
    printf("| %s | %zu | %d x %d x %d | %u | %.2f | %.3f | %.2f | %.3f | %.3f | %.3f | %.3f | %.3f |\n", type_name<T>(),
           n, MAXB, B, I, S::blocks(n), te, tq, pe, pq, te / t_cub, tq / g_cub, bg, bg / c_graph);
    CK(cudaFree(temp));
}

// Host time of the pieces of one small scan's enqueue (2^16 elements).
template <typename T> void host_costs(cudaStream_t s, T *in, T *out) {
    using DS = libscan::DeviceScan<T>;
    using G = typename DS::Grid;
    using Op = libscan::Sum<T>;
    const size_t n = G::kCapacity;
    libscan::SmallScanArgs<T> a{in, out, n, false, T(0), nullptr, nullptr, true};
    Op op;
    void *params[] = {&a, &op};
    const auto sup = G::template on_current_device<Op>();
    cudaFunction_t f = libscan::detail::driver_function(G::template kernel<Op>());
    using PlainLaunchFn = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                       unsigned, CUstream, void **, void **);
    auto plain_fn = reinterpret_cast<PlainLaunchFn>(libscan__driver_entry("cuLaunchKernel"));
    auto coop_fn = libscan::detail::driver_coop_launch_fn();
    if (!plain_fn || !coop_fn || !f) {
        printf("%s host costs: driver entry points unavailable\n\n", type_name<T>());
        return;
    }
    libscan::DeviceScanArgs<T> da;
    da.in = in;
    da.out = out;
    da.n = n;
    const float capture = host_us([&] { cudaStreamCaptureStatus st; CK(cudaStreamIsCapturing(s, &st)); }, s);
    using DrvCapturing = CUresult (*)(CUstream, CUstreamCaptureStatus *);
    auto drv_capturing = reinterpret_cast<DrvCapturing>(libscan__driver_entry("cuStreamIsCapturing"));
    const float drv_capture = drv_capturing ? host_us([&] {
        CUstreamCaptureStatus st;
        if (drv_capturing(reinterpret_cast<CUstream>(s), &st) != CUDA_SUCCESS) exit(3);
    }, s) : -1.f;
    const float eager = host_us([&] { if (!G::eager(s)) exit(3); }, s);
    const float device_query = host_us([&] { if (!G::template on_current_device<Op>().ok) exit(3); }, s);
    const float plain = host_us([&] {
        if (plain_fn(reinterpret_cast<CUfunction>(f), G::blocks(n), 1, 1, G::kBlockThreads, 1, 1, 0,
                     reinterpret_cast<CUstream>(s), params, nullptr) != CUDA_SUCCESS)
            exit(3);
    }, s);
    const float coop = host_us([&] { CK(libscan::detail::driver_coop_launch(coop_fn, f, dim3(G::blocks(n)), dim3(G::kBlockThreads), params, s)); }, s);
    const float rt_coop = host_us([&] {
        CK(cudaLaunchCooperativeKernel(reinterpret_cast<const void *>(G::template kernel<Op>()), dim3(G::blocks(n)),
                                       dim3(G::kBlockThreads), params, 0, s));
    }, s);
    const float grid_run = host_us([&] { CK(G::run(a, op, s, sup)); }, s);
    const float ds_run = host_us([&] { CK(DS::run(da, op, nullptr, 0, s)); }, s);
    printf("%s host us per call, n = %zu: cudaStreamIsCapturing %.3f | cuStreamIsCapturing %.3f | GridScan::eager %.3f "
           "| on_current_device %.3f | cuLaunchKernel %.3f | cuLaunchCooperativeKernel %.3f | "
           "cudaLaunchCooperativeKernel %.3f | GridScan::run %.3f | DeviceScan::run %.3f\n\n",
           type_name<T>(), n, capture, drv_capture, eager, device_query, plain, coop, rt_coop, grid_run, ds_run);
}

// Events around one call for several methods taking turns (one call of
// each per round, 600 rounds, 5 warm-up rounds), so that drift in the
// machine's launch latency hits them all alike: the comparison that decides
// which small-scan kernel an eager 2^16 scan takes.
template <typename T> void interleaved(cudaStream_t s, T *in, T *out) {
    using Op = libscan::Sum<T>;
    using DS = libscan::DeviceScan<T>;
    using G = typename DS::Grid;
    const size_t n = size_t(1) << 16;
    void *cub_temp = nullptr;
    size_t cub_bytes = 0;
    CK(cub::DeviceScan::InclusiveSum(nullptr, cub_bytes, in, out, int(n)));
    CK(cudaMalloc(&cub_temp, cub_bytes));
    libscan::SmallScanArgs<T> a{in, out, n, false, T(0), nullptr, nullptr, true};
    const auto gs = G::template on_current_device<Op>();
    void *temp = nullptr;
    CK(cudaMalloc(&temp, G::temp_bytes(n)));
    libscan::DeviceScanArgs<T> da;
    da.in = in;
    da.out = out;
    da.n = n;
    struct M {
        const char *name;
        std::function<void()> f;
        std::vector<float> t;
    };
    std::vector<M> ms;
    ms.push_back({"CUB", [&] { CK(cub::DeviceScan::InclusiveSum(cub_temp, cub_bytes, in, out, int(n), s)); }, {}});
    ms.push_back({"DeviceScan::run (grid, eager)", [&] { CK(DS::run(da, Op(), nullptr, 0, s)); }, {}});
    ms.push_back({"grid, cooperative driver launch", [&] { CK(G::run(a, Op(), s, gs)); }, {}});
    ms.push_back({"grid, plain <<<>>>", [&] { G::template kernel<Op>()<<<G::blocks(n), G::kBlockThreads, 0, s>>>(a, Op()); }, {}});
    ms.push_back({"grid, barrier form (what graphs replay), eager launch",
                  [&] { CK(G::run_with_temp(a, Op(), temp, G::temp_bytes(n), s, gs)); }, {}});
    ms.push_back({"memcpy", [&] { CK(cudaMemcpyAsync(out, in, n * sizeof(T), cudaMemcpyDeviceToDevice, s)); }, {}});
    ms.push_back({"empty kernel", [&] { empty_kernel<<<1, 32, 0, s>>>(); }, {}});
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int round = 0; round < 605; ++round)
        for (auto &m : ms) {
            CK(cudaStreamSynchronize(s));
            CK(cudaEventRecord(e0, s));
            m.f();
            CK(cudaEventRecord(e1, s));
            CK(cudaEventSynchronize(e1));
            float ms_ = 0;
            CK(cudaEventElapsedTime(&ms_, e0, e1));
            if (round >= 5) m.t.push_back(ms_ * 1000.f);
        }
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    for (auto &m : ms) std::sort(m.t.begin(), m.t.end());
    const float cub = ms[0].t[ms[0].t.size() / 2];
    printf("%s n = 65536, events around one call, methods taking turns (600 rounds; median, 25th / 75th percentile, "
           "median / CUB's):\n\n| method | median us | p25 | p75 | / CUB |\n|---|---:|---:|---:|---:|\n", type_name<T>());
    for (auto &m : ms) {
        const size_t k = m.t.size();
        printf("| %s | %.2f | %.2f | %.2f | %.3f |\n", m.name, m.t[k / 2], m.t[k / 4], m.t[3 * k / 4], m.t[k / 2] / cub);
    }
    printf("\n");
    CK(cudaFree(cub_temp));
    CK(cudaFree(temp));
}

// Replays of captured f32/f64 sums (random values, so the association
// shows in the last bits) must give the bits of the same calls made eagerly.
template <typename T> void check_captured_bits(cudaStream_t s, void *in_v, void *out_v) {
    using DS = libscan::DeviceScan<T>;
    T *in = static_cast<T *>(in_v), *out = static_cast<T *>(out_v);
    const size_t nmax = size_t(1) << 16;
    std::vector<T> h(nmax), eager(nmax), replay(nmax);
    std::mt19937_64 rng(42);
    std::uniform_real_distribution<double> dist(-16.0, 16.0);
    for (auto &v : h) v = T(dist(rng));
    CK(cudaMemcpy(in, h.data(), nmax * sizeof(T), cudaMemcpyHostToDevice));
    void *temp = nullptr;
    CK(cudaMalloc(&temp, DS::temp_bytes(nmax)));
    int bad = 0;
    for (size_t n : {size_t(1), size_t(1000), size_t(1025), size_t(4097), size_t(30000), size_t(65535), nmax}) {
        libscan::DeviceScanArgs<T> a;
        a.in = in;
        a.out = out;
        a.n = n;
        CK(DS::run(a, libscan::Sum<T>(), temp, DS::temp_bytes(n), s));
        CK(cudaMemcpyAsync(eager.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost, s));
        CK(cudaStreamSynchronize(s));
        cudaGraph_t graph;
        cudaGraphExec_t exec;
        CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
        CK(DS::run(a, libscan::Sum<T>(), temp, DS::temp_bytes(n), s));
        CK(cudaStreamEndCapture(s, &graph));
        CK(cudaGraphInstantiate(&exec, graph, 0));
        CK(cudaMemsetAsync(out, 0xff, n * sizeof(T), s));
        CK(cudaMemsetAsync(temp, 0xff, DS::temp_bytes(n), s));
        CK(cudaGraphLaunch(exec, s));
        CK(cudaMemcpyAsync(replay.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost, s));
        CK(cudaStreamSynchronize(s));
        CK(cudaGraphExecDestroy(exec));
        CK(cudaGraphDestroy(graph));
        if (std::memcmp(eager.data(), replay.data(), n * sizeof(T)) != 0) {
            printf("%s sum, n = %zu: the graph replay's bits differ from the eager call's: FAILED\n",
                   sizeof(T) == 4 ? "f32" : "f64", n);
            ++bad;
        }
    }
    if (!bad) printf("%s sums, n = 1 .. 65536: graph replays bitwise equal to eager calls: ok\n", sizeof(T) == 4 ? "f32" : "f64");
    g_failures += bad;
    CK(cudaFree(temp));
}

// The captured small scan against CUB in graphs at 2^16 (see 4. at the top).
template <typename T> void captured(cudaStream_t s, T *in, T *out) {
    using Op = libscan::Sum<T>;
    using DS = libscan::DeviceScan<T>;
    const size_t n = size_t(1) << 16;
    sweep_fill<T><<<64, 256, 0, s>>>(in, n, 12345u);
    CK(cudaGetLastError());
    size_t b32 = 0, b64 = 0;
    CK(cub::DeviceScan::InclusiveSum(nullptr, b32, in, out, int(n)));
    CK(cub::DeviceScan::InclusiveSum(nullptr, b64, in, out, int64_t(n)));
    void *cub_temp = nullptr, *temp = nullptr;
    CK(cudaMalloc(&cub_temp, std::max(b32, b64)));
    CK(cudaMalloc(&temp, DS::temp_bytes(n)));
    libscan::DeviceScanArgs<T> da;
    da.in = in;
    da.out = out;
    da.n = n;
    // The path a captured call takes (capture of nothing but the query).
    cudaGraph_t empty;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    const auto path = DS::template plan<Op>(n, s).path;
    CK(cudaStreamEndCapture(s, &empty));
    CK(cudaGraphDestroy(empty));
    const char *path_name = path == DS::Plan::kGridCaptured ? "grid scan, values in temp behind a grid barrier"
                            : path == DS::Plan::kGrid       ? "grid scan with the flag table (WRONG under capture)"
                                                            : "look-back (the grid scan does not run here)";
    if (path == DS::Plan::kGrid) ++g_failures;
    struct M {
        const char *name;
        std::function<void()> f;
        float graph_us;
        cudaGraphExec_t exec;
        std::vector<float> t;
    };
    std::vector<M> ms;
    ms.push_back({"CUB, int count", [&] { CK(cub::DeviceScan::InclusiveSum(cub_temp, b32, in, out, int(n), s)); }, 0,
                  nullptr, {}});
    ms.push_back({"CUB, int64 count",
                  [&] { CK(cub::DeviceScan::InclusiveSum(cub_temp, b64, in, out, int64_t(n), s)); }, 0, nullptr, {}});
    ms.push_back({"DeviceScan::run captured, caller temp", [&] { CK(DS::run(da, Op(), temp, DS::temp_bytes(n), s)); },
                  0, nullptr, {}});
    for (auto &m : ms) {
        m.graph_us = time_graph(m.f, s);
        cudaGraph_t g;
        CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
        m.f();
        CK(cudaStreamEndCapture(s, &g));
        CK(cudaGraphInstantiate(&m.exec, g, 0));
        CK(cudaGraphDestroy(g));
    }
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int round = 0; round < 605; ++round)
        for (auto &m : ms) {
            CK(cudaStreamSynchronize(s));
            CK(cudaEventRecord(e0, s));
            CK(cudaGraphLaunch(m.exec, s));
            CK(cudaEventRecord(e1, s));
            CK(cudaEventSynchronize(e1));
            float ms_ = 0;
            CK(cudaEventElapsedTime(&ms_, e0, e1));
            if (round >= 5) m.t.push_back(ms_ * 1000.f);
        }
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    for (auto &m : ms) std::sort(m.t.begin(), m.t.end());
    auto med = [](const M &m) { return m.t[m.t.size() / 2]; };
    const bool first_faster = ms[0].graph_us <= ms[1].graph_us;
    const float ref_graph = first_faster ? ms[0].graph_us : ms[1].graph_us;
    const float ref_replay = std::min(med(ms[0]), med(ms[1]));
    printf("%s n = 65536 under stream capture: %s. Device time per call in graphs (41- vs 1-call graphs), and events "
           "around one launch of a one-call graph (600 rounds taking turns; median, p25, p75); reference: the faster "
           "CUB (%s in graphs):\n\n| method | graph us | / CUB | replay median us | p25 | p75 | / CUB |\n"
           "|---|---:|---:|---:|---:|---:|---:|\n",
           type_name<T>(), path_name, first_faster ? "int count" : "int64 count");
    for (auto &m : ms) {
        const size_t k = m.t.size();
        printf("| %s | %.3f | %.3f | %.2f | %.2f | %.2f | %.3f |\n", m.name, m.graph_us, m.graph_us / ref_graph,
               m.t[k / 2], m.t[k / 4], m.t[3 * k / 4], m.t[k / 2] / ref_replay);
    }
    printf("\n");
    for (auto &m : ms) CK(cudaGraphExecDestroy(m.exec));
    CK(cudaFree(cub_temp));
    CK(cudaFree(temp));
}

template <typename T> void sweep(cudaStream_t s, T *in, T *out, T *d_total) {
    const size_t nmax = size_t(1) << 16;
    std::vector<T> h_in(nmax);
    unsigned long long x = 0x9e3779b97f4a7c15ull;
    for (auto &v : h_in) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        v = T(x % 1000003);
    }
    CK(cudaMemcpy(in, h_in.data(), nmax * sizeof(T), cudaMemcpyHostToDevice));
    void *cub_temp = nullptr;
    size_t cub_bytes = 0;
    CK(cub::DeviceScan::InclusiveSum(nullptr, cub_bytes, in, out, int(nmax)));
    CK(cudaMalloc(&cub_temp, cub_bytes));
    for (size_t n : {size_t(1) << 10, size_t(1) << 13, size_t(1) << 16}) {
        size_t bytes = cub_bytes;
        auto cub_call = [&] { CK(cub::DeviceScan::InclusiveSum(cub_temp, bytes, in, out, int(n), s)); };
        auto memcpy_call = [&] { CK(cudaMemcpyAsync(out, in, n * sizeof(T), cudaMemcpyDeviceToDevice, s)); };
        auto empty_call = [&] { empty_kernel<<<1, 32, 0, s>>>(); };
        const float ce = time_events(cub_call, s), cg = time_graph(cub_call, s);
        const float me = time_events(memcpy_call, s), mg = time_graph(memcpy_call, s);
        const float ee = time_events(empty_call, s), eg = time_graph(empty_call, s);
        const float cq = time_queued(cub_call, s), mq = time_queued(memcpy_call, s), eq = time_queued(empty_call, s);
        printf("%s n = %zu (us: events / graph / queued): CUB %.2f / %.3f / %.3f; memcpy %.2f / %.3f / %.3f; empty "
               "kernel %.2f / %.3f / %.3f\n\n",
               type_name<T>(), n, ce, cg, cq, me, mg, mq, ee, eg, eq);
        printf("| type | n | max blocks x threads x items | blocks | coop events us | coop queued us | plain events us "
               "| plain queued us | events / CUB | queued / CUB | barrier graph us | barrier graph / CUB graph |\n"
               "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        if constexpr (sizeof(T) == 4) {
            shape<T, 256, 4, 64>(in, out, d_total, h_in, s, n, ce, cq, cg);
            shape<T, 128, 8, 64>(in, out, d_total, h_in, s, n, ce, cq, cg);
            shape<T, 256, 8, 32>(in, out, d_total, h_in, s, n, ce, cq, cg);
            shape<T, 128, 16, 32>(in, out, d_total, h_in, s, n, ce, cq, cg);
        } else {
            shape<T, 256, 4, 64>(in, out, d_total, h_in, s, n, ce, cq, cg);
            shape<T, 128, 8, 64>(in, out, d_total, h_in, s, n, ce, cq, cg);
            shape<T, 256, 8, 32>(in, out, d_total, h_in, s, n, ce, cq, cg);
            shape<T, 512, 4, 32>(in, out, d_total, h_in, s, n, ce, cq, cg);
        }
        printf("\n");
    }
    CK(cudaFree(cub_temp));
}

int main() {
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("%s (%d SMs)\n\n", prop.name, prop.multiProcessorCount);
    cudaStream_t s, s2;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    check_grid_ids(s, s2);
    void *in = nullptr, *out = nullptr, *total = nullptr;
    CK(cudaMalloc(&in, (size_t(1) << 16) * 8));
    CK(cudaMalloc(&out, (size_t(1) << 16) * 8));
    CK(cudaMalloc(&total, 8));
    interleaved<unsigned>(s, static_cast<unsigned *>(in), static_cast<unsigned *>(out));
    interleaved<unsigned long long>(s, static_cast<unsigned long long *>(in), static_cast<unsigned long long *>(out));
    host_costs<unsigned>(s, static_cast<unsigned *>(in), static_cast<unsigned *>(out));
    host_costs<unsigned long long>(s, static_cast<unsigned long long *>(in), static_cast<unsigned long long *>(out));
    check_captured_bits<float>(s, in, out);
    check_captured_bits<double>(s, in, out);
    printf("\n");
    captured<unsigned>(s, static_cast<unsigned *>(in), static_cast<unsigned *>(out));
    captured<unsigned long long>(s, static_cast<unsigned long long *>(in), static_cast<unsigned long long *>(out));
    sweep<unsigned>(s, static_cast<unsigned *>(in), static_cast<unsigned *>(out), static_cast<unsigned *>(total));
    sweep<unsigned long long>(s, static_cast<unsigned long long *>(in), static_cast<unsigned long long *>(out),
                              static_cast<unsigned long long *>(total));
    printf("failures: %d\n", g_failures);
    return g_failures ? 1 : 0;
}
