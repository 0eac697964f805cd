// flag_scan.cuh -- segmented scan with one head-flag byte per element, on
// tiles as large as the plain scan's (device_scan.cuh).
//
//   libscan::SegmentedArgs<float> a;            // in, out, n, exclusive, seg_init
//   a.in = d_in; a.out = d_out; a.n = n;
//   size_t bytes = libscan::DeviceFlagScan<float>::temp_bytes(n);
//   ... allocate d_temp of `bytes` (256-byte aligned) ...
//   cudaError_t e = libscan::DeviceFlagScan<float>::run(a, d_flags, libscan::Sum<float>(), d_temp, bytes, stream);
//
// Why a kernel of its own. The generic segmented kernel (segmented.cuh)
// keeps a (32-bit tag, value) pair per item in registers, which halves its
// tile, and with twice the tiles the look-back chain limits it. Here a
// thread holds only values (IPT of them, 128 bytes, as in the plain scan):
// in registers while they are loaded and stored, in a per-warp shared
// staging area across the look-back (so that it needs no IPT registers and
// 4 blocks of 256 fit an SM without spills); its heads are one bit each of a
// 32-bit mask, and pairs exist only at the thread level: one SegItem per
// thread goes through BlockScan and the unchanged look-back (lookback.cuh)
// with the pair operator SegmentedOp (segmented.cuh, SegTags::kCount) -- no
// second look-back protocol.
//
// Per tile of BLOCK x IPT elements (tile id from an atomic counter, so a
// tile only waits for tiles of blocks already running; its first thread
// also asks L2 for the values and flags of the tile AHEAD tiles on, as the
// plain scan does):
//  1. values are loaded warp-striped with 16-byte vectors by device_scan.cuh's
//     load_tile (guarded scalar loads for a partial tile or unaligned
//     pointers; identity past n), written to a per-warp staging area in
//     shared memory and read back blocked: lane l of warp w holds the IPT
//     consecutive elements from w*32*IPT + l*IPT. A warp's elements are
//     contiguous, so the transpose is warp-private (__syncwarp only);
//  2. each lane reads its own IPT flag bytes (16-byte loads when aligned)
//     into a mask; element 0 of the array is always a head, nothing past n is;
//  3. the lane folds its IPT (head, value) items left to right into one pair
//     (tag = kSegHead if any head | number of heads; value restarted at the
//     last head), reading them from the staging area one unit at a time;
//  4. BlockScan's blocked exclusive scan of that pair, the look-back as its
//     prefix callback, gives every thread the pair before its first element;
//  5. the thread rescans its items from there (inclusive or exclusive; an
//     exclusive head starts from the identity; seg_init[id] in front, id =
//     heads up to and including the element - 1, modulo 2^31), and the
//     results go back through the staging area to the striped arrangement
//     and out with 16-byte stores (guarded scalar stores otherwise).
// In place works: a block reads its whole tile before it writes any of it,
// and tiles do not overlap.
//
// The staging area and its bank-conflict-free swizzle: tile_stage.cuh.
//
// Association (fixed by the tile shape BLOCK x IPT alone, so float results
// are bitwise repeatable): pairs (head, value) with the pair operator; each
// thread folds its IPT consecutive elements left to right; the 32 thread
// totals of a warp are scanned by WarpScan's Kogge-Stone order, the warp
// totals likewise (block_scan.cuh), tiles by the look-back's fixed order
// (lookback.cuh); an element gets ((tile prefix (+) warps before) (+) lanes
// before) (+) the thread's elements before it, left to right, restarted at
// every head (the value part of a pair only ever combines elements of one
// segment). With per-segment initial values: seg_init[s] (+) that.
#pragma once

#include <cuda_runtime.h>
#include <cstddef>
#include <cstdint>
#include "libscan/cuda/block_scan.cuh"
#include "libscan/cuda/device_scan.cuh"
#include "libscan/cuda/lookback.cuh"
#include "libscan/cuda/segmented.cuh"
#include "libscan/cuda/tile_stage.cuh"
#include "libscan/cuda/tuning.cuh"

namespace libscan {

namespace detail {

template <typename T> struct FlagScanParams {
    ScanKernelParams<T> scan; // in, out, n, exclusive; vector_ok (in and out 16-byte aligned); tile counter
    const uint8_t *flags;
    bool flags_vector_ok; // flags aligned for the vector loads of load_heads
    const T *seg_init;    // null or one value per segment
};

// Bit i (i < 4) set for every non-zero byte i of w: the carry out of the
// low 7 bits or bit 7 itself marks a non-zero byte; the product moves bits
// 7, 15, 23, 31 to 28..31 (its partial products land on distinct bits, so
// nothing carries into them).
__host__ __device__ __forceinline__ uint32_t nonzero_byte_bits(uint32_t w) {
    const uint32_t t = ((((w & 0x7f7f7f7fu) + 0x7f7f7f7fu) | w) & 0x80808080u);
    return (t * 0x00204081u) >> 28;
}

// Vector width (bytes) of the flag loads for IPT flags per lane: the lane's
// first flag is at a multiple of IPT, so a flag pointer aligned to this
// keeps every vector aligned.
template <int IPT> struct FlagVector {
    static constexpr int kBytes = IPT % 16 == 0 ? 16 : (IPT % 4 == 0 ? 4 : 1);
};

// Head mask of the IPT elements from `first`: bit i = element first + i
// starts a segment. vec: all IPT are < n and the flags vector-aligned.
template <int IPT>
__device__ __forceinline__ uint32_t load_heads(const uint8_t *flags, size_t first, size_t n, bool vec) {
    static_assert(IPT <= 32, "libscan: the head mask holds at most 32 items per thread");
    constexpr int W = FlagVector<IPT>::kBytes;
    uint32_t m = 0;
    if (W > 1 && vec) {
        if constexpr (W == 16) {
#pragma unroll
            for (int q = 0; q < IPT / 16; ++q) {
                const uint4 w = *reinterpret_cast<const uint4 *>(flags + first + 16 * q);
                const uint32_t b = nonzero_byte_bits(w.x) | (nonzero_byte_bits(w.y) << 4) |
                                   (nonzero_byte_bits(w.z) << 8) | (nonzero_byte_bits(w.w) << 12);
                m |= b << (16 * q);
            }
        } else if constexpr (W == 4) {
#pragma unroll
            for (int q = 0; q < IPT / 4; ++q)
                m |= nonzero_byte_bits(*reinterpret_cast<const uint32_t *>(flags + first + 4 * q)) << (4 * q);
        }
    } else {
#pragma unroll
        for (int i = 0; i < IPT; ++i)
            if (first + i < n && flags[first + i] != 0) m |= 1u << i;
    }
    if (first == 0) m |= 1u; // element 0 always starts a segment
    return m;
}

template <typename T, class Op, int BLOCK, int IPT, int MINB, int AHEAD, class State>
__global__ void __launch_bounds__(BLOCK, MINB) flag_scan_kernel(const FlagScanParams<T> p, const Op op,
                                                          const State state) {
    using Shape = TileShape<T, BLOCK, IPT>;
    using Stage = WarpStage<T, IPT>;
    using Item = SegItem<T>;
    using PairOp = SegmentedOp<T, Op, SegTags::kCount>;
    constexpr int K = Shape::K, V = Shape::V;
    static_assert(V * sizeof(T) == 16, "libscan: the flag scan moves 16-byte vectors of whole elements");
    static_assert(K == Stage::U, "libscan: one striped vector per staging unit");
    static_assert(BLOCK * IPT * sizeof(T) <= 40960, "libscan: the staging area must fit static shared memory");

    __shared__ typename BlockScan<Item, BLOCK>::TempStorage temp;
    __shared__ uint4 stage[BLOCK / kWarpThreads][Stage::kWarpUnits];
    __shared__ unsigned s_tile;
    if (threadIdx.x == 0) {
        s_tile = atomicAdd(p.scan.tile_counter, 1u);
        size_t ahead_first, ahead_count; // the values, then the flags, of a tile AHEAD on (device_scan.cuh)
        prefetch_tile_l2<T, BLOCK * IPT, AHEAD>(p.scan.a.in, p.scan.a.n, p.scan.num_tiles, p.scan.vector_ok, s_tile,
                                                ahead_first, ahead_count);
        if (ahead_count && reinterpret_cast<uintptr_t>(p.flags) % 16 == 0) prefetch_l2(p.flags + ahead_first, ahead_count);
    }
    __syncthreads();
    const unsigned tile = s_tile;
    const int lane = lane_id();
    const int warp = threadIdx.x / kWarpThreads;
    uint4 *const ws = stage[warp];

    const size_t n = p.scan.a.n;
    const size_t tile_base = static_cast<size_t>(tile) * Shape::kTile;
    const bool full = n - tile_base >= static_cast<size_t>(Shape::kTile);
    const size_t first = tile_base + static_cast<size_t>(warp) * Shape::kWarpItems + static_cast<size_t>(lane) * IPT;

    // 1-2. Values striped into the staging area, heads straight into a mask.
    {
        T striped[K][V];
        load_tile<T, BLOCK, IPT>(p.scan, tile, op, striped);
#pragma unroll
        for (int k = 0; k < K; ++k)
            store_vector<T, V>(Stage::striped(ws, k), striped[k]);
    }
    const uint32_t heads = load_heads<IPT>(p.flags, first, n, full && p.flags_vector_ok);
    __syncwarp();

    // 3. The lane's pair: left fold, restarting at each head. The values are
    // read from the staging area one unit at a time here and again after the
    // look-back, so they hold no IPT registers across it (kept in registers,
    // 4-byte types spilled at the 64-register cap of 4 blocks per SM).
    const PairOp pop{op};
    Item items[1];
    {
        T v = op.identity();
#pragma unroll
        for (int j = 0; j < K; ++j) {
            T x[V];
            load_vector<T, V>(Stage::unit(ws, j), x);
#pragma unroll
            for (int u = 0; u < V; ++u) {
                const int i = j * V + u;
                v = (i == 0 || ((heads >> i) & 1u)) ? x[u] : op(v, x[u]);
            }
        }
        items[0].tag = (heads ? kSegHead : 0u) | static_cast<uint32_t>(__popc(heads));
        items[0].value = v;
    }

    // 4. The pair before this lane's first element.
    TileLookback<Item, PairOp, State> lookback{state, tile, pop, pop.identity(), pop.identity()};
    Item tile_aggregate;
    BlockScan<Item, BLOCK>(temp).ExclusiveScan(items, pop, tile_aggregate, lookback);

    // 5. Rescan from it. count: heads up to the current element (low 31 bits).
    const bool exclusive = p.scan.a.exclusive;
    const T *const seg_init = p.seg_init;
    T run = items[0].value;
    uint32_t count = items[0].tag;
    T init = op.identity();
    // The segment running into this lane (element 0 of the array is a head,
    // so count >= 1 here whenever the lane's first element is not one).
    if (seg_init && !(heads & 1u) && first < n) init = seg_init[(count - 1u) & kSegIdMask];
    // One staging unit at a time: each lane rewrites only the units it reads.
#pragma unroll
    for (int j = 0; j < K; ++j) {
        T *const unit = Stage::unit(ws, j);
        T x[V];
        load_vector<T, V>(unit, x);
#pragma unroll
        for (int v = 0; v < V; ++v) {
            const bool head = (heads >> (j * V + v)) & 1u; // never past n
            const T next = head ? x[v] : op(run, x[v]);
            T y = exclusive ? (head ? op.identity() : run) : next;
            run = next;
            if (seg_init) {
                if (head) {
                    count += 1u;
                    init = seg_init[(count - 1u) & kSegIdMask];
                }
                y = op(init, y);
            }
            x[v] = y;
        }
        store_vector<T, V>(unit, x);
    }

    // Back to the striped arrangement, and out.
    __syncwarp();
    {
        T striped[K][V];
#pragma unroll
        for (int k = 0; k < K; ++k)
            load_vector<T, V>(Stage::striped(ws, k), striped[k]);
        store_tile<T, BLOCK, IPT>(p.scan, tile, striped);
    }
}

} // namespace detail

// The head-flag segmented scan for element type T with tile shape BLOCK x
// IPT, at least MINB resident blocks per SM and an L2 prefetch AHEAD tiles
// ahead (defaults: FlagScanTuning).
template <typename T, int BLOCK = FlagScanTuning<sizeof(T)>::kBlockThreads,
          int IPT = FlagScanTuning<sizeof(T)>::kItemsPerThread,
          int MINB = FlagScanTuning<sizeof(T)>::kMinBlocksPerSM, int AHEAD = FlagScanTuning<sizeof(T)>::kPrefetchTiles>
struct DeviceFlagScan {
    using Shape = detail::TileShape<T, BLOCK, IPT>;
    using Item = SegItem<T>;
    using State = TileState<Item>;
    static constexpr int kTile = Shape::kTile;
    static constexpr size_t kCounterBytes = 256;

    static constexpr size_t num_tiles(size_t n) { return (n + kTile - 1) / kTile; }

    // Scratch bytes for a scan of n elements (0 when n == 0): the tile
    // counter and one tile-status slot of SegItem<T> per tile.
    static constexpr size_t temp_bytes(size_t n) { return n == 0 ? 0 : kCounterBytes + State::bytes(num_tiles(n)); }

    // Enqueues the scan of a.n elements on `stream`: one cudaMemsetAsync of
    // the counter and tile states, then one kernel. Never synchronises or
    // allocates. flags: a.n bytes, non-zero = head (element 0 always is one);
    // must not overlap a.out. a.in may equal a.out. a.seg_init: null or one
    // value per segment (then a.n < 2^31: segment numbers are counted modulo
    // 2^31). a.d_range must be null (offsets mode only). temp: temp_bytes(a.n)
    // bytes, 256-byte aligned. Returns cudaErrorInvalidValue for temp too
    // small or null, null flags or a set d_range (n > 0), else the first CUDA
    // error of the enqueueing. n == 0 enqueues nothing.
    template <class Op>
    static cudaError_t run(const SegmentedArgs<T> &a, const uint8_t *flags, Op op, void *temp, size_t temp_size,
                           cudaStream_t stream) {
        if (a.n == 0) return cudaSuccess;
        if (temp == nullptr || temp_size < temp_bytes(a.n) || flags == nullptr || a.d_range != nullptr)
            return cudaErrorInvalidValue;
        const size_t tiles = num_tiles(a.n);
        if (tiles > 0x7fffffffull) return cudaErrorInvalidValue; // grid limit
        char *base = static_cast<char *>(temp);
        cudaError_t e = cudaMemsetAsync(base, 0, temp_bytes(a.n), stream);
        if (e != cudaSuccess) return e;
        detail::FlagScanParams<T> p;
        p.scan.a.in = a.in;
        p.scan.a.out = a.out;
        p.scan.a.n = a.n;
        p.scan.a.exclusive = a.exclusive;
        p.scan.vector_ok = reinterpret_cast<uintptr_t>(a.in) % 16 == 0 && reinterpret_cast<uintptr_t>(a.out) % 16 == 0;
        p.scan.tile_counter = reinterpret_cast<unsigned *>(base);
        p.scan.num_tiles = static_cast<unsigned>(tiles);
        p.flags = flags;
        p.flags_vector_ok = reinterpret_cast<uintptr_t>(flags) % detail::FlagVector<IPT>::kBytes == 0;
        p.seg_init = a.seg_init;
        State state = State::on(base + kCounterBytes);
        detail::flag_scan_kernel<T, Op, BLOCK, IPT, MINB, AHEAD, State>
            <<<static_cast<unsigned>(tiles), BLOCK, 0, stream>>>(p, op, state);
        return cudaGetLastError();
    }
};

} // namespace libscan
