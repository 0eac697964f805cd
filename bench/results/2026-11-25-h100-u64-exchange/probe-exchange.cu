// probe-exchange.cu -- why the grid scan's block exchange takes longer for
// 8-byte values than for 4-byte ones, and which shape/slot format is fastest
// (scratch probe, kept with its results). The kernel is grid_scan_kernel
// with %globaltimer stamps per block, with knobs:
//   MODE 0: the library's slots (one 64-bit word per 32 bits of value, each
//           word tagged; two 8-byte loads per u64 slot)
//   MODE 1: the same words read and written as one 16-byte vector
//   MODE 2: timing only, a u64 published as ONE tagged word (its low 32 bits:
//           results wrong for values >= 2^32; the check is skipped)
//   MODE 3: both words written and read, only word 0's tag checked (timing:
//           is it the second tag?)
//   MODE 4: both words written, only word 0 read (timing: is it the read?)
//   MODE 5: the library's slots, every load of a poll issued before any is
//           examined (the fix: grid_flags.cuh's try_load)
//   blocks x threads x items: 64 x 128 x 8, 64 x 256 x 4, 128 x 128 x 4
// Printed per variant: ns since the first block start (median over 180
// launches of the max over blocks) of publish / prefix received / stores
// issued, and device time per call with calls queued.
// Build: nvcc -std=c++17 -O3 -arch=sm_90 -I libscan/include -I bench probe-exchange.cu
#include <algorithm>
#include <cstring>
#include <cstdio>
#include <vector>
#include "libscan/cuda/device_scan.cuh"
#include "bench_timing.cuh"
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d: %s\n", #x, __LINE__, cudaGetErrorString(e_)); exit(2);} } while (0)

using namespace libscan;
using namespace libscan::detail;

__device__ __forceinline__ unsigned long long now() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

constexpr int kMaxBlocks = 128;
__device__ unsigned long long probe_table[256 * kMaxBlocks * 2];

template <typename T, int MODE> struct ProbeFlags {
    static constexpr int W = MODE == 2 ? 1 : Words<T>::N;
    static constexpr int WR = MODE == 4 ? 1 : W; // words read
    unsigned long long *slots;
    unsigned tag;
    static __device__ ProbeFlags current() {
        unsigned long long g;
        asm("mov.u64 %0, %%gridid;" : "=l"(g));
        return ProbeFlags{probe_table + (g & 255) * kMaxBlocks * 2, unsigned(g >> 8) + 1u};
    }
    __device__ void publish(unsigned b, const T &v) const {
        const Words<T> w = to_words(v);
        unsigned long long *s = slots + b * 2;
        if (MODE == 1 && W == 2) {
            unsigned long long a = (static_cast<unsigned long long>(w.w[0]) << 32) | tag;
            unsigned long long c = (static_cast<unsigned long long>(w.w[1]) << 32) | tag;
            asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" ::"l"(s), "l"(a), "l"(c) : "memory");
        } else {
            for (int i = 0; i < W; ++i) st_relaxed(s + i, (static_cast<unsigned long long>(w.w[i]) << 32) | tag);
        }
    }
    __device__ bool try_load(unsigned b, T &v) const {
        const unsigned long long *s = slots + b * 2;
        Words<T> w{};
        bool ok = true;
        if (MODE == 1 && W == 2) {
            unsigned long long a, c;
            asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];" : "=l"(a), "=l"(c) : "l"(s) : "memory");
            w.w[0] = unsigned(a >> 32);
            w.w[1] = unsigned(c >> 32);
            ok = unsigned(a) == tag && unsigned(c) == tag;
        } else {
            for (int i = 0; i < WR; ++i) {
                const unsigned long long raw = ld_relaxed(s + i);
                w.w[i] = unsigned(raw >> 32);
                if (MODE != 3 || i == 0) ok &= unsigned(raw) == tag;
            }
        }
        v = from_words<T>(w);
        return ok;
    }
};

// POLL 0: every round reloads all K slots of every lane (the library);
// 1: a lane reloads only the slots it has not yet seen published;
// 2: two rounds of loads in flight (round i+1 issued before round i is
//    checked), so a publication is seen up to half a round trip sooner.
// 3: loads first (MODE 5's loop), then a busy wait of D clock cycles after
//    each round that failed: does the phase of the polls against the moment
//    a publication lands matter?
// 4: two rounds staggered by D cycles: round A, wait D, round B; then each
//    round is re-issued as soon as it has been checked, so the stagger stays.
template <typename T, class Op, int MAXB, int MODE, int POLL, int D = 0> struct TimedPrefix {
    ProbeFlags<T, MODE> flags;
    unsigned block, blocks;
    T carry;
    Op op;
    unsigned long long *stamp;
    static constexpr int K = (MAXB + 31) / 32;
    static constexpr int W = ProbeFlags<T, MODE>::W;
    __device__ __forceinline__ void issue(const unsigned long long *s, int lane, unsigned long long (&r)[K][W]) const {
#pragma unroll
        for (int k = 0; k < K; ++k) {
            const unsigned j = lane * K + k;
#pragma unroll
            for (int i = 0; i < W; ++i) r[k][i] = j < block ? ld_relaxed(s + j * 2 + i) : static_cast<unsigned long long>(flags.tag);
        }
    }
    __device__ __forceinline__ bool check(const unsigned long long (&r)[K][W], T (&v)[K]) const {
        bool ok = true;
#pragma unroll
        for (int k = 0; k < K; ++k) {
            Words<T> w{};
#pragma unroll
            for (int i = 0; i < W; ++i) {
                w.w[i] = unsigned(r[k][i] >> 32);
                ok &= unsigned(r[k][i]) == flags.tag;
            }
            v[k] = (lane_id() * K + k) < block ? from_words<T>(w) : op.identity();
        }
        return ok;
    }
    __device__ __forceinline__ T operator()(T aggregate) {
        const int lane = lane_id();
        if (lane == 0 && block + 1 < blocks) flags.publish(block, block == 0 ? op(carry, aggregate) : aggregate);
        if (lane == 0) stamp[1] = now();
        T prefix = carry;
        if (block > 0) {
            T v[K];
            if (POLL == 3) {
                unsigned long long r[K][W];
                for (;;) {
                    issue(flags.slots, lane, r);
                    if (__all_sync(kFullMask, check(r, v))) break;
                    const long long t = clock64();
                    while (clock64() - t < D) {
                    }
                }
            } else if (POLL == 4) {
                unsigned long long ra[K][W], rb[K][W];
                issue(flags.slots, lane, ra);
                const long long t = clock64();
                while (clock64() - t < D) {
                }
                issue(flags.slots, lane, rb);
                for (;;) {
                    if (__all_sync(kFullMask, check(ra, v))) break;
                    issue(flags.slots, lane, ra);
                    if (__all_sync(kFullMask, check(rb, v))) break;
                    issue(flags.slots, lane, rb);
                }
            } else if (MODE == 5) {
                unsigned long long r[K][W];
                for (;;) {
                    issue(flags.slots, lane, r);
                    if (__all_sync(kFullMask, check(r, v))) break;
                }
            } else if (POLL == 2 && MODE == 0) {
                unsigned long long ra[K][W], rb[K][W];
                issue(flags.slots, lane, ra);
                for (;;) {
                    issue(flags.slots, lane, rb);
                    if (__all_sync(kFullMask, check(ra, v))) break;
                    issue(flags.slots, lane, ra);
                    if (__all_sync(kFullMask, check(rb, v))) break;
                }
            } else if (POLL == 1) {
                unsigned pending = 0;
#pragma unroll
                for (int k = 0; k < K; ++k) {
                    v[k] = op.identity();
                    if (unsigned(lane * K + k) < block) pending |= 1u << k;
                }
                for (;;) {
#pragma unroll
                    for (int k = 0; k < K; ++k)
                        if (pending >> k & 1)
                            if (flags.try_load(lane * K + k, v[k])) pending &= ~(1u << k);
                    if (__all_sync(kFullMask, pending == 0)) break;
                }
            } else {
                for (;;) {
                    bool ok = true;
#pragma unroll
                    for (int k = 0; k < K; ++k) {
                        const unsigned j = lane * K + k;
                        v[k] = op.identity();
                        if (j < block) ok &= flags.try_load(j, v[k]);
                    }
                    if (__all_sync(kFullMask, ok)) break;
                }
            }
            T x = v[0];
#pragma unroll
            for (int k = 1; k < K; ++k) x = op(x, v[k]);
            prefix = WarpScan<T>::Broadcast(WarpScan<T>::InclusiveScan(x, op), 31);
        }
        if (lane == 0) stamp[2] = now();
        return prefix;
    }
};

template <typename T, class Op, int BLOCK, int IPT, int MAXB, int MODE, int POLL, int D>
__global__ void __launch_bounds__(BLOCK) timed_kernel(const SmallScanArgs<T> a, const Op op, unsigned long long *stamps) {
    using Shape = TileShape<T, BLOCK, IPT>;
    __shared__ typename BlockScan<T, BLOCK>::TempStorage temp;
    unsigned long long *st = stamps + 4 * blockIdx.x;
    if (threadIdx.x == 0) st[0] = now();
    const unsigned block = blockIdx.x;
    const size_t base = size_t(block) * Shape::kTile;
    T items[Shape::K][Shape::V];
    load_striped<T, BLOCK, IPT>(a.in, a.n, a.vector_ok, base, op, items);
    TimedPrefix<T, Op, MAXB, MODE, POLL, D> prefix{ProbeFlags<T, MODE>::current(), block, gridDim.x, a.carry_in, op, st};
    T aggregate;
    BlockScan<T, BLOCK>(temp).template ScanWarpStriped<Shape::K, Shape::V>(items, a.exclusive, op, aggregate, prefix);
    store_striped<T, BLOCK, IPT>(a.out, a.n, a.vector_ok, base, items);
    __syncthreads();
    if (threadIdx.x == 0) st[3] = now();
}

template <typename T, int B, int I, int M, int MODE, int POLL = 0, int D = 0> void run(const char *name) {
    const size_t n = size_t(1) << 16;
    static_assert(size_t(M) * B * I == (size_t(1) << 16), "2^16");
    T *in, *out;
    unsigned long long *stamps;
    CK(cudaMalloc(&in, n * sizeof(T)));
    CK(cudaMalloc(&out, n * sizeof(T)));
    CK(cudaMalloc(&stamps, 4 * M * 8));
    CK(cudaMemset(in, 1, n * sizeof(T)));
    SmallScanArgs<T> a{in, out, n, false, T(0), nullptr, nullptr, true};
    auto k = timed_kernel<T, Sum<T>, B, I, M, MODE, POLL, D>;
    std::vector<double> ph[4];
    for (int rep = 0; rep < 200; ++rep) {
        Sum<T> op;
        void *params[] = {&a, &op, &stamps};
        CK(cudaLaunchCooperativeKernel((const void *)k, dim3(M), dim3(B), params, 0, 0));
        CK(cudaDeviceSynchronize());
        if (rep == 0 && (MODE < 2 || MODE == 5)) {
            std::vector<T> h(n);
            CK(cudaMemcpy(h.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost));
            T x;
            memset(&x, 1, sizeof x);
            size_t bad = 0;
            for (size_t i = 0; i < n; ++i) bad += h[i] != T(x * T(i + 1));
            if (bad) printf("%s: %zu WRONG elements\n", name, bad);
        }
        if (rep < 20) continue;
        std::vector<unsigned long long> h(4 * M);
        CK(cudaMemcpy(h.data(), stamps, 4 * M * 8, cudaMemcpyDeviceToHost));
        unsigned long long t0 = ~0ull;
        for (int b = 0; b < M; ++b) t0 = std::min(t0, h[4 * b]);
        for (int p = 1; p < 4; ++p) {
            unsigned long long mx = 0;
            for (int b = 0; b < M; ++b) mx = std::max(mx, h[4 * b + p] - t0);
            ph[p].push_back(double(mx));
        }
    }
    printf("%-30s D %3d  %3d x %3d x %d:", name, D, M, B, I);
    const char *names[4] = {"", "published", "received", "stored"};
    for (int p = 1; p < 4; ++p) {
        std::sort(ph[p].begin(), ph[p].end());
        printf(" %s %4.0f |", names[p], ph[p][ph[p].size() / 2]);
    }
    double us[3];
    Sum<T> op;
    void *params[] = {&a, &op, &stamps};
    for (double &u : us)
        CK(bench::time_queued_call(0, 30, [&] { CK(cudaLaunchCooperativeKernel((const void *)k, dim3(M), dim3(B), params, 0, 0)); }, &u));
    std::sort(us, us + 3);
    printf(" queued us/call %.3f (of 3: %.3f..%.3f)\n", us[1], us[0], us[2]);
    CK(cudaFree(in));
    CK(cudaFree(out));
    CK(cudaFree(stamps));
}

__global__ void empty() {}

int main() {
    double us = 0;
    CK(bench::time_queued_call(0, 30, [&] { empty<<<1, 32>>>(); }, &us));
    printf("empty kernel queued %.3f us\n", us);
    for (int round = 0; round < 2; ++round) {
        printf("-- round %d\n", round + 1);
        run<unsigned, 128, 8, 64, 0, 0>("u32 library");
        run<unsigned, 128, 8, 64, 5, 0>("u32 loads first");
        run<unsigned long long, 128, 8, 64, 0, 0>("u64 library (2 words, 2 tags)");
        run<unsigned long long, 128, 8, 64, 5, 0>("u64 loads first");
        run<unsigned long long, 256, 4, 64, 5, 0>("u64 loads first");
#define SWEEP(T, B, I, P, name) \
        run<T, B, I, 64, 5, P, 0>(name); run<T, B, I, 64, 5, P, 64>(name); run<T, B, I, 64, 5, P, 128>(name); \
        run<T, B, I, 64, 5, P, 192>(name); run<T, B, I, 64, 5, P, 256>(name); run<T, B, I, 64, 5, P, 384>(name); \
        run<T, B, I, 64, 5, P, 512>(name);
        SWEEP(unsigned, 128, 8, 3, "u32 wait after a miss")
        SWEEP(unsigned, 128, 8, 4, "u32 two rounds staggered")
        SWEEP(unsigned long long, 128, 8, 3, "u64 wait after a miss")
        SWEEP(unsigned long long, 128, 8, 4, "u64 two rounds staggered")
        SWEEP(unsigned long long, 256, 4, 4, "u64 two rounds staggered")
    }
    return 0;
}
