// device_scan.cuh -- single-pass device-wide scan (one read, one write of the
// data) with decoupled look-back, for any element type and monoid.
//
// From your own CUDA code:
//
//   libscan::DeviceScanArgs<float> a;          // in, out, n, exclusive, init...
//   a.in = d_in; a.out = d_out; a.n = n;
//   size_t bytes = libscan::DeviceScan<float>::temp_bytes(n);
//   ... allocate d_temp of `bytes` ...
//   cudaError_t e = libscan::DeviceScan<float>::run(a, libscan::Sum<float>(), d_temp, bytes, stream);
//
// run() enqueues a memset of the tile states and one kernel (a mid-size
// instantiation up to ScanTuning::kMidMaxTiles tiles) -- or, for up to
// 65536 elements of 8 bytes or less where the device runs it, one kernel and
// nothing else: the grid scan (grid_scan.cuh), with its block values in the
// library's flag table on an eager stream, and in temp behind a grid
// barrier on a stream being captured into a CUDA graph. Both are the same
// kernel body and fold, so a scan and its graph replay give the same bits;
// which kernel runs never depends on the stream otherwise. It never
// synchronises and never allocates. It does not validate pointers: that is
// the C API's job (libscan.h).
//
// Each block takes the next tile id from a counter, asks L2 to prefetch the
// tile kPrefetchTiles ahead (tuning.cuh), loads its tile with 16-byte
// coalesced loads (warp-striped vectors, see block_scan.cuh), scans it,
// learns its prefix by look-back (lookback.cuh) and stores the result.
//
// Where a 16-byte vector holds whole elements (sizeof(T) divides 16 or is
// 16: every C API type), the loaded tile waits in a per-warp shared staging
// area (tile_stage.cuh) rather than in registers: each lane folds its IPT
// consecutive elements from there, one BlockScan element per thread carries
// the look-back, and the lane rescans its elements from its prefix. That
// frees the IPT registers a thread would hold across the look-back, so more
// tiles are resident per SM (tuning.cuh: 2^28 u32 at 1.04x memcpy against
// 1.07x with the tile in registers). Other sizes keep the tile in registers
// and scan it warp-striped (BlockScan::ScanWarpStriped).
//
// Association (fixed by the tile shape, so floats are bitwise repeatable):
// staged, each lane folds its IPT consecutive elements left to right, lanes
// and warps combine by BlockScan's fixed orders (block_scan.cuh), tiles by
// the look-back's (lookback.cuh); an element is ((tile prefix (+) warps
// before) (+) lanes before) (+) the lane's elements before it, left to
// right. In registers: the same, but per 16-byte vector chunk of a warp.
// Up to the grid scan's capacity, its association (grid_scan.cuh) instead,
// eager or captured; on a device that cannot run the grid scan, this one
// for every size, eager or captured.
#pragma once

#include <cuda_runtime.h>
#include <cstddef>
#include <cstdint>
#include "libscan/cuda/block_scan.cuh"
#include "libscan/cuda/dynamic_shared.cuh"
#include "libscan/cuda/grid_scan.cuh"
#include "libscan/cuda/lookback.cuh"
#include "libscan/cuda/tile_io.cuh"
#include "libscan/cuda/tile_stage.cuh"
#include "libscan/cuda/tuning.cuh"

namespace libscan {

template <typename T> struct DeviceScanArgs {
    const T *in = nullptr;
    T *out = nullptr;          // may equal in
    size_t n = 0;
    bool exclusive = false;
    bool has_init = false;     // use `init` as carry-in (else the identity)
    T init{};
    const T *d_init = nullptr; // device carry-in, read when the kernel runs (wins over init)
    T *d_total = nullptr;      // device carry-out, may equal d_init
};

namespace detail {

template <typename T> struct ScanKernelParams {
    DeviceScanArgs<T> a;
    bool vector_ok;          // in and out are 16-byte aligned
    unsigned *tile_counter;  // zeroed before launch
    unsigned num_tiles;
};

// One tile's loads and stores (tile_io.cuh) for the look-back kernels.
template <typename T, int BLOCK, int IPT, class Op>
__device__ __forceinline__ void load_tile(const ScanKernelParams<T> &p, unsigned tile, Op op,
                                          T (&items)[TileShape<T, BLOCK, IPT>::K][TileShape<T, BLOCK, IPT>::V]) {
    load_striped<T, BLOCK, IPT>(p.a.in, p.a.n, p.vector_ok, static_cast<size_t>(tile) * TileShape<T, BLOCK, IPT>::kTile,
                                op, items);
}
template <typename T, int BLOCK, int IPT>
__device__ __forceinline__ void store_tile(const ScanKernelParams<T> &p, unsigned tile,
                                           const T (&items)[TileShape<T, BLOCK, IPT>::K][TileShape<T, BLOCK, IPT>::V]) {
    store_striped<T, BLOCK, IPT>(p.a.out, p.a.n, p.vector_ok,
                                 static_cast<size_t>(tile) * TileShape<T, BLOCK, IPT>::kTile, items);
}

// The look-back callback of one tile, with the scan's carry-in where the
// look-back can reach past tile 0.
template <typename T, class Op, class State, bool LF>
__device__ __forceinline__ TileLookback<T, Op, State, LF> tile_lookback(const ScanKernelParams<T> &p, const Op &op,
                                                                           const State &state, unsigned tile) {
    TileLookback<T, Op, State, LF> lookback{state, tile, op, p.a.has_init ? p.a.init : op.identity(), op.identity()};
    if (p.a.d_init && tile < kTileGroup * (kLookbackGroups - 1)) {
        lookback.carry_in = *p.a.d_init;
        // d_init may alias d_total, which the last tile writes once every tile
        // has published: order this read before this tile's publications.
        __threadfence();
    }
    return lookback;
}

// Register path (element sizes whose 16-byte vector does not hold whole
// elements): scans one loaded tile in place, warp-striped, and stores it.
template <typename T, class Op, int BLOCK, int IPT, class State, bool LF>
__device__ __forceinline__ void scan_store_tile(const ScanKernelParams<T> &p, const Op &op, const State &state,
                                                typename BlockScan<T, BLOCK>::TempStorage &temp, unsigned tile,
                                                T (&items)[TileShape<T, BLOCK, IPT>::K][TileShape<T, BLOCK, IPT>::V]) {
    using Shape = TileShape<T, BLOCK, IPT>;
    TileLookback<T, Op, State, LF> lookback = tile_lookback<T, Op, State, LF>(p, op, state, tile);
    T aggregate;
    BlockScan<T, BLOCK>(temp).template ScanWarpStriped<Shape::K, Shape::V>(items, p.a.exclusive, op, aggregate, lookback);
    store_tile<T, BLOCK, IPT>(p, tile, items);
    if (p.a.d_total && threadIdx.x == 0 && tile == p.num_tiles - 1) *p.a.d_total = lookback.inclusive;
}

// Staged path: the tile's values wait in the warp's staging area (ws, see
// tile_stage.cuh) in the blocked arrangement; each lane folds its IPT
// consecutive elements, one BlockScan element per thread learns the prefix
// (look-back included), and the lane rescans its elements from it. Then the
// results go back to the striped arrangement and out.
template <typename T, class Op, int BLOCK, int IPT, class State, bool LF>
__device__ __forceinline__ void scan_store_staged(const ScanKernelParams<T> &p, const Op &op, const State &state,
                                                  typename BlockScan<T, BLOCK>::TempStorage &temp, unsigned tile,
                                                  uint4 *ws) {
    using Shape = TileShape<T, BLOCK, IPT>;
    using Stage = WarpStage<T, IPT>;
    constexpr int K = Shape::K, V = Shape::V;
    T items[1];
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
        items[0] = t;
    }
    TileLookback<T, Op, State, LF> lookback = tile_lookback<T, Op, State, LF>(p, op, state, tile);
    T aggregate;
    BlockScan<T, BLOCK>(temp).ExclusiveScan(items, op, aggregate, lookback);
    T run = items[0];
    const bool exclusive = p.a.exclusive;
#pragma unroll
    for (int j = 0; j < K; ++j) { // each lane rewrites only the units it reads
        T x[V];
        load_vector<T, V>(Stage::unit(ws, j), x);
#pragma unroll
        for (int v = 0; v < V; ++v) {
            const T next = op(run, x[v]);
            x[v] = exclusive ? run : next;
            run = next;
        }
        store_vector<T, V>(Stage::unit(ws, j), x);
    }
    __syncwarp();
    T striped[K][V];
#pragma unroll
    for (int k = 0; k < K; ++k) load_vector<T, V>(Stage::striped(ws, k), striped[k]);
    store_tile<T, BLOCK, IPT>(p, tile, striped);
    if (p.a.d_total && threadIdx.x == 0 && tile == p.num_tiles - 1) *p.a.d_total = lookback.inclusive;
}

// Asks L2 to fetch `bytes` from `p` (sm_90 bulk prefetch: one instruction
// for a whole tile, p 16-byte aligned, bytes rounded down to 16). A hint:
// it never faults and changes no result; elsewhere it does nothing.
__device__ __forceinline__ void prefetch_l2(const void *p, size_t bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    const unsigned b = static_cast<unsigned>(bytes) & ~15u;
    if (b) asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(p), "r"(b) : "memory");
#else
    (void)p;
    (void)bytes;
#endif
}

// Prefetches the input of the tile AHEAD tiles after `tile` into L2. While
// a block waits on its look-back it issues no loads; these prefetches keep
// DRAM busy meanwhile, and the block that later takes that tile finds it in
// L2 (see ScanTuning::kPrefetchTiles for the distance). `in` holds n
// elements in num_tiles tiles of kTile; nothing is fetched unless vector_ok
// (in 16-byte aligned). Returns that tile's element range through
// first/count (count 0: nothing prefetched), so that callers can prefetch
// companion arrays of the same tile.
template <typename T, int kTile, int AHEAD>
__device__ __forceinline__ void prefetch_tile_l2(const T *in, size_t n, unsigned num_tiles, bool vector_ok,
                                                 unsigned tile, size_t &first, size_t &count) {
    first = static_cast<size_t>(tile) + AHEAD;
    count = 0;
    if (AHEAD <= 0 || !vector_ok || first >= num_tiles) return;
    first *= kTile;
    count = n - first < static_cast<size_t>(kTile) ? n - first : kTile;
    prefetch_l2(in + first, count * sizeof(T));
}

// One tile per block. MINB (blocks per SM the registers must allow) trades
// registers for resident tiles, which hide the look-back's waits.
template <typename T, class Op, int BLOCK, int IPT, int MINB, int AHEAD, class State, bool LF = false>
__global__ void __launch_bounds__(BLOCK, MINB) device_scan_kernel(const ScanKernelParams<T> p, const Op op,
                                                            const State state) {
    using Shape = TileShape<T, BLOCK, IPT>;
    __shared__ typename BlockScan<T, BLOCK>::TempStorage temp;
    __shared__ unsigned s_tile;
    if (threadIdx.x == 0) {
        s_tile = atomicAdd(p.tile_counter, 1u);
        size_t first, count;
        prefetch_tile_l2<T, Shape::kTile, AHEAD>(p.a.in, p.a.n, p.num_tiles, p.vector_ok, s_tile, first, count);
    }
    __syncthreads();
    const unsigned tile = s_tile;
    T items[Shape::K][Shape::V];
    load_tile<T, BLOCK, IPT>(p, tile, op, items);
    if constexpr (Shape::kStaged) {
        using Stage = WarpStage<T, IPT>;
        uint4 *ws;
        if constexpr (Shape::kDynamicStage) {
            extern __shared__ uint4 dynamic_stage[];
            ws = dynamic_stage + (threadIdx.x / kWarpThreads) * Stage::kWarpUnits;
        } else {
            __shared__ uint4 stage[BLOCK / kWarpThreads][Stage::kWarpUnits];
            ws = stage[threadIdx.x / kWarpThreads];
        }
#pragma unroll
        for (int k = 0; k < Shape::K; ++k) store_vector<T, Shape::V>(Stage::striped(ws, k), items[k]);
        __syncwarp();
        scan_store_staged<T, Op, BLOCK, IPT, State, LF>(p, op, state, temp, tile, ws);
    } else {
        scan_store_tile<T, Op, BLOCK, IPT, State, LF>(p, op, state, temp, tile, items);
    }
}

// n == 0: the total is just the carry-in.
template <typename T, class Op> __global__ void write_total_kernel(const DeviceScanArgs<T> a, const Op op) {
    *a.d_total = a.d_init ? *a.d_init : (a.has_init ? a.init : op.identity());
}

} // namespace detail

// The device-wide scan for element type T with tile shape BLOCK x IPT, at
// least MINB resident blocks per SM and an L2 prefetch AHEAD tiles ahead
// (0: none); scans of at most MID_TILES tiles take the mid-size kernel (the
// same tile, look-back polls in one round trip, MID_MINB blocks per SM;
// MID_TILES 0: none). Defaults from tuning.cuh.
template <typename T, int BLOCK = ScanTuning<sizeof(T)>::kBlockThreads,
          int IPT = ScanTuning<sizeof(T)>::kItemsPerThread, int MINB = scan_min_blocks<T>(),
          int AHEAD = ScanTuning<sizeof(T)>::kPrefetchTiles, size_t MID_TILES = ScanTuning<sizeof(T)>::kMidMaxTiles,
          int MID_MINB = ScanTuning<sizeof(T)>::kMidMinBlocksPerSM>
struct DeviceScan {
    using Shape = detail::TileShape<T, BLOCK, IPT>;
    using State = TileState<T>;
    static constexpr size_t kCounterBytes = 256;
    static constexpr size_t kMidMaxTiles = MID_TILES; // scans of at most this many tiles run the mid-size kernel

    using Grid = GridScan<T, GridTuning<sizeof(T)>::kBlockThreads, GridTuning<sizeof(T)>::kItemsPerThread,
                          GridTuning<sizeof(T)>::kMaxBlocks>;

    // Which kernel a scan of n elements on `stream` takes on the current
    // device, decided by one capture query and one device query. plan() then
    // run(..., plan) costs no more host time than run() alone; callers that
    // must know the path first (the C API checks temp storage only where it
    // is used) pay for the queries once. kGrid and kGridCaptured are the same
    // scan (one association); only where its block values travel differs.
    struct Plan {
        enum Path { kLookback, kGrid, kGridCaptured } path;
        detail::LaunchSupport support; // for kGrid and kGridCaptured
        // The look-back uses temp (not at n == 0); the captured grid scan
        // too, where it has more than one block; the eager grid scan never.
        bool uses_temp(size_t n) const {
            return n > 0 && (path == kLookback || (path == kGridCaptured && Grid::temp_bytes(n) > 0));
        }
    };
    template <class Op> static Plan plan(size_t n, cudaStream_t stream) {
        if (n > 0 && Grid::kFits && n <= Grid::kCapacity) {
            const auto g = Grid::template on_current_device<Op>();
            // A failed capture query (a legacy-stream call during another
            // thread's global capture) takes the captured form, which is
            // right either way; the launch then reports the stream's state.
            if (g.ok) return Plan{Grid::eager(stream) ? Plan::kGrid : Plan::kGridCaptured, g};
        }
        return Plan{Plan::kLookback, detail::LaunchSupport{false, nullptr}};
    }

    static constexpr size_t num_tiles(size_t n) { return (n + Shape::kTile - 1) / Shape::kTile; }

    // Scratch bytes for a scan of n elements (0 when n == 0), whichever path
    // it takes: the look-back's, or the captured grid scan's where that is
    // more. Eager small scans ignore it.
    static constexpr size_t temp_bytes(size_t n) {
        if (n == 0) return 0;
        const size_t lookback = kCounterBytes + State::bytes(num_tiles(n));
        const size_t grid = Grid::kFits && n <= Grid::kCapacity ? Grid::temp_bytes(n) : 0;
        return lookback > grid ? lookback : grid;
    }

    // Enqueues the scan on `stream`. temp must hold temp_bytes(a.n) bytes
    // (256-byte aligned) unless plan(a.n, stream) says it is not used, when
    // it may be null (so under capture, small scans need it too). Returns
    // the first CUDA error met, if any.
    template <class Op>
    static cudaError_t run(const DeviceScanArgs<T> &a, Op op, void *temp, size_t temp_size, cudaStream_t stream) {
        return run(a, op, temp, temp_size, stream, plan<Op>(a.n, stream));
    }
    // The same with the plan the caller made for this scan (same n, stream
    // and current device).
    template <class Op>
    static cudaError_t run(const DeviceScanArgs<T> &a, Op op, void *temp, size_t temp_size, cudaStream_t stream,
                           const Plan &plan) {
        if (a.n == 0) {
            if (a.d_total) detail::write_total_kernel<T, Op><<<1, 1, 0, stream>>>(a, op);
            return cudaGetLastError();
        }
        const bool vector_ok =
            (reinterpret_cast<uintptr_t>(a.in) % 16 == 0) && (reinterpret_cast<uintptr_t>(a.out) % 16 == 0);
        if (plan.path != Plan::kLookback) {
            const SmallScanArgs<T> small{a.in,     a.out,     a.n,      a.exclusive, a.has_init ? a.init : op.identity(),
                                         a.d_init, a.d_total, vector_ok};
            if (plan.path == Plan::kGrid) return Grid::run_eager(small, op, stream, plan.support);
            if (plan.uses_temp(a.n) && (temp == nullptr || temp_size < temp_bytes(a.n))) return cudaErrorInvalidValue;
            return Grid::run_with_temp(small, op, temp, temp_size, stream, plan.support);
        }
        if (temp_size < temp_bytes(a.n) || temp == nullptr) return cudaErrorInvalidValue;
        const size_t tiles = num_tiles(a.n);
        if (tiles > 0xffffffffull) return cudaErrorInvalidValue;
        char *base = static_cast<char *>(temp);
        cudaError_t e = cudaMemsetAsync(base, 0, kCounterBytes + State::bytes(tiles), stream);
        if (e != cudaSuccess) return e;
        detail::ScanKernelParams<T> p;
        p.a = a;
        p.vector_ok = vector_ok;
        p.tile_counter = reinterpret_cast<unsigned *>(base);
        p.num_tiles = static_cast<unsigned>(tiles);
        State state = State::on(base + kCounterBytes);
        // The allowance of dynamic shared memory: once per kernel and device
        // (dynamic_shared.cuh), not at every call.
        const size_t smem = Shape::kDynamicStage ? Shape::kStageBytes : 0;
        using detail::device_scan_kernel;
        if constexpr (MID_TILES > 0)
            if (tiles <= MID_TILES)
                return detail::launch_dynamic<device_scan_kernel<T, Op, BLOCK, IPT, MID_MINB, AHEAD, State, true>>(
                    static_cast<unsigned>(tiles), BLOCK, smem, stream, p, op, state);
        return detail::launch_dynamic<device_scan_kernel<T, Op, BLOCK, IPT, MINB, AHEAD, State, false>>(
            static_cast<unsigned>(tiles), BLOCK, smem, stream, p, op, state);
    }
};

} // namespace libscan
