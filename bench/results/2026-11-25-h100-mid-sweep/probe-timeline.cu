// probe-timeline.cu -- where a mid-size look-back scan spends its time.
// The kernel is device_scan_kernel's staged path (device_scan.cuh) with
// %globaltimer stamps per tile: t0 tile id known, t1 warp 0's loads landed
// (staged), t2 aggregate known (look-back entered), t3 prefix known, t4 tile
// stored (after the block's last __syncthreads). The results file came from
// two builds, one with each look-back poll (a compile-time switch then);
// this source takes it as the template parameter LF (lookback.cuh,
// LOADS_FIRST: every row load issued before any is examined) and runs both.
#include <algorithm>
#include <cstdio>
#include <vector>
#include "libscan/cuda/device_scan.cuh"
#include "sweep_util.cuh"

using namespace libscan;
using namespace libscan::detail;

__device__ __forceinline__ unsigned long long now() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

template <typename T, class LB> struct Timed {
    LB lb;
    unsigned long long *ts;
    __device__ __forceinline__ T operator()(T agg) {
        if (lane_id() == 0) ts[2] = now();
        T r = lb(agg);
        if (lane_id() == 0) ts[3] = now();
        return r;
    }
};

template <typename T, class Op, int BLOCK, int IPT, int MINB, bool LF>
__global__ void __launch_bounds__(BLOCK, MINB) timeline_kernel(const ScanKernelParams<T> p, const Op op,
                                                               const TileState<T> state, unsigned long long *stamps) {
    using Shape = TileShape<T, BLOCK, IPT>;
    using Stage = WarpStage<T, IPT>;
    constexpr int K = Shape::K, V = Shape::V;
    __shared__ typename BlockScan<T, BLOCK>::TempStorage temp;
    __shared__ unsigned s_tile;
    __shared__ uint4 stage[BLOCK / kWarpThreads][Stage::kWarpUnits];
    if (threadIdx.x == 0) {
        s_tile = atomicAdd(p.tile_counter, 1u);
        size_t first, count;
        prefetch_tile_l2<T, Shape::kTile, 132>(p.a.in, p.a.n, p.num_tiles, p.vector_ok, s_tile, first, count);
    }
    __syncthreads();
    const unsigned tile = s_tile;
    unsigned long long *ts = stamps + size_t(tile) * 5;
    if (threadIdx.x == 0) ts[0] = now();
    T items[K][V];
    load_tile<T, BLOCK, IPT>(p, tile, op, items);
    uint4 *ws = stage[threadIdx.x / kWarpThreads];
#pragma unroll
    for (int k = 0; k < K; ++k) store_vector<T, V>(Stage::striped(ws, k), items[k]);
    __syncwarp();
    if (threadIdx.x == 0) ts[1] = now();
    T item[1];
    {
        T x[V];
        load_vector<T, V>(Stage::unit(ws, 0), x);
        T t = x[0];
#pragma unroll
        for (int v = 1; v < V; ++v) t = op(t, x[v]);
#pragma unroll
        for (int j = 1; j < K; ++j) {
            load_vector<T, V>(Stage::unit(ws, j), x);
#pragma unroll
            for (int v = 0; v < V; ++v) t = op(t, x[v]);
        }
        item[0] = t;
    }
    Timed<T, TileLookback<T, Op, TileState<T>, LF>> lookback{tile_lookback<T, Op, TileState<T>, LF>(p, op, state, tile), ts};
    T aggregate;
    BlockScan<T, BLOCK>(temp).ExclusiveScan(item, op, aggregate, lookback);
    T run = item[0];
#pragma unroll
    for (int j = 0; j < K; ++j) {
        T x[V];
        load_vector<T, V>(Stage::unit(ws, j), x);
#pragma unroll
        for (int v = 0; v < V; ++v) {
            const T next = op(run, x[v]);
            x[v] = p.a.exclusive ? run : next;
            run = next;
        }
        store_vector<T, V>(Stage::unit(ws, j), x);
    }
    __syncwarp();
    T striped[K][V];
#pragma unroll
    for (int k = 0; k < K; ++k) load_vector<T, V>(Stage::striped(ws, k), striped[k]);
    store_tile<T, BLOCK, IPT>(p, tile, striped);
    __syncthreads();
    if (threadIdx.x == 0) ts[4] = now();
}

static double pct(std::vector<double> v, double q) {
    std::sort(v.begin(), v.end());
    return v[size_t(q * (v.size() - 1))];
}

template <typename T, int BLOCK, int IPT, int MINB, bool LF> void run(const char *name, int log2n) {
    const size_t n = size_t(1) << log2n;
    using Shape = TileShape<T, BLOCK, IPT>;
    const unsigned tiles = unsigned((n + Shape::kTile - 1) / Shape::kTile);
    T *in, *out;
    char *temp;
    unsigned long long *stamps;
    CK(cudaMalloc(&in, n * sizeof(T)));
    CK(cudaMalloc(&out, n * sizeof(T)));
    CK(cudaMemset(in, 1, n * sizeof(T)));
    const size_t tb = 256 + TileState<T>::bytes(tiles);
    CK(cudaMalloc(&temp, tb));
    CK(cudaMalloc(&stamps, size_t(tiles) * 5 * 8));
    ScanKernelParams<T> p;
    p.a.in = in;
    p.a.out = out;
    p.a.n = n;
    p.vector_ok = true;
    p.tile_counter = reinterpret_cast<unsigned *>(temp);
    p.num_tiles = tiles;
    TileState<T> st = TileState<T>::on(temp + 256);
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    float ms = 0;
    for (int rep = 0; rep < 6; ++rep) {
        CK(cudaMemsetAsync(temp, 0, tb));
        CK(cudaEventRecord(e0));
        timeline_kernel<T, Sum<T>, BLOCK, IPT, MINB, LF><<<tiles, BLOCK>>>(p, Sum<T>(), st, stamps);
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        CK(cudaEventElapsedTime(&ms, e0, e1));
    }
    std::vector<unsigned long long> h(size_t(tiles) * 5);
    CK(cudaMemcpy(h.data(), stamps, h.size() * 8, cudaMemcpyDeviceToHost));
    unsigned long long t_first = ~0ull, t_last = 0;
    for (unsigned t = 0; t < tiles; ++t) {
        t_first = std::min(t_first, h[t * 5]);
        t_last = std::max(t_last, h[t * 5 + 4]);
    }
    std::vector<double> start, load, agg, wait, store;
    for (unsigned t = 0; t < tiles; ++t) {
        const unsigned long long *x = &h[t * 5];
        start.push_back((x[0] - t_first) * 1e-3);
        load.push_back((x[1] - x[0]) * 1e-3);
        agg.push_back((x[2] - x[1]) * 1e-3);
        wait.push_back((x[3] - x[2]) * 1e-3);
        store.push_back((x[4] - x[3]) * 1e-3);
    }
    int regs = 0;
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, timeline_kernel<T, Sum<T>, BLOCK, IPT, MINB, LF>));
    regs = fa.numRegs;
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, timeline_kernel<T, Sum<T>, BLOCK, IPT, MINB, LF>, BLOCK, 0));
    printf("%s 2^%d, %d x %d minB %d (%u tiles, %d regs, %d blocks/SM): kernel %.2f us (events), first start -> last end %.2f us\n",
           name, log2n, BLOCK, IPT, MINB, tiles, regs, per_sm, ms * 1e3, (t_last - t_first) * 1e-3);
    printf("   us            p0      p50      p90     max\n");
    const char *names[5] = {"start", "load", "to agg", "lookback", "store"};
    std::vector<double> *cols[5] = {&start, &load, &agg, &wait, &store};
    for (int c = 0; c < 5; ++c)
        printf("   %-9s %8.2f %8.2f %8.2f %8.2f\n", names[c], pct(*cols[c], 0), pct(*cols[c], 0.5), pct(*cols[c], 0.9),
               pct(*cols[c], 1));
    // The P chain: when each group's last tile knew its prefix.
    printf("   group ends' prefix at (us after first start):");
    const unsigned groups = tiles / 32;
    for (unsigned g = 0; g < groups; g += std::max(1u, groups / 16)) printf(" g%u %.2f", g, (h[(g * 32 + 31) * 5 + 3] - t_first) * 1e-3);
    printf("\n");
    CK(cudaFree(in));
    CK(cudaFree(out));
    CK(cudaFree(temp));
    CK(cudaFree(stamps));
}

template <bool LF> void all() {
    printf("=== %s\n", LF ? "lf" : "ser");
    run<unsigned, 256, 32, 5, LF>("u32", 20);
    run<unsigned, 256, 32, 5, LF>("u32", 22);
    run<unsigned, 256, 32, 5, LF>("u32", 24);
    run<unsigned, 256, 8, 1, LF>("u32", 22);
    run<unsigned, 256, 32, 5, LF>("u32", 28);
    run<unsigned long long, 256, 16, 4, LF>("u64", 20);
    run<unsigned long long, 256, 16, 4, LF>("u64", 22);
}

int main() {
    all<false>();
    all<true>();
    return 0;
}
