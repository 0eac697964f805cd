// row_scan.cuh -- the batched row scan: every row of a pitched matrix
// scanned on its own, in one kernel launch, with no look-back.
//
//   libscan::RowScanArgs<float> a;             // in, out, rows, row_len, pitch...
//   a.in = d_in; a.out = d_out; a.rows = h; a.row_len = w; a.pitch = w;
//   if (libscan::DeviceRowScan<float>::applies(a.rows, a.row_len))
//       e = libscan::DeviceRowScan<float>::run(a, libscan::Sum<float>(), stream);
//
// Design. Rows are independent and their length is known before launch, so
// no tile ever waits for another: there is no tile-status array, no memset,
// no temp storage. run() enqueues one kernel and nothing else; it never
// synchronises and never allocates. Two kernels, chosen on the host by
// row_len:
//
//  * short rows (row_len <= kShortTile, the segmented scan's tile): block b
//    takes R = kShortTile / row_len whole rows (the last block fewer) and
//    scans them as one tile of (tag, value) pairs (SegItem, SegmentedOp with
//    SegTags::kLatest, heads from RowHeads; segmented.cuh) with BlockScan and
//    no block prefix: a tile starts at a row start, so nothing comes in.
//  * long rows: one block per row, walking the row in chunks of the plain
//    scan's tile (ScanTuning); BlockScan's prefix callback hands each chunk
//    the running carry (init or identity at the row start) and keeps
//    carry (+) chunk total for the next chunk.
//
// Loads and stores are warp-striped 16-byte vectors wherever the V elements
// of a vector lie inside the block's range and are 16-byte aligned (in and
// out aligned, pitch % V == 0, and for short rows row_len % V == 0 so that
// no vector straddles a row end); guarded scalar accesses otherwise. Only
// the row elements are read or written: elements between rows (pitch >
// row_len) are untouched. in == out is allowed (a block reads a range
// before it writes it, and no other block touches that range).
//
// Association (fixed by rows, row_len and the element size, so float
// results are bitwise repeatable run to run):
//  * short rows: the pair block scan's fixed tree (block_scan.cuh) over the
//    tile that holds the row; which tile, and where the row sits in it,
//    depend only on (row_len, element size);
//  * long rows: a left fold of chunk totals in chunk order,
//    ((init (+) C0) (+) C1) (+) ..., each element = (carry before its chunk)
//    (+) (its prefix inside the chunk by the block scan's tree).
// With per-row initial values element i of row r is init[r] (+) (the row's
// scan up to i); an exclusive scan writes init[r] at the row start.
//
// applies(rows, row_len) says when this path is the one to take (the C API
// takes it then, else the look-back segmented scan): every shape with short
// rows, and long rows only when there are enough of them to fill the GPU
// (RowScanTuning::kMinRowsPerLaunch). run() is correct for every shape.
#pragma once

#include <cuda_runtime.h>
#include <cstddef>
#include <cstdint>
#include "libscan/cuda/block_scan.cuh"
#include "libscan/cuda/device_scan.cuh"
#include "libscan/cuda/segmented.cuh"
#include "libscan/cuda/tuning.cuh"

namespace libscan {

template <typename T> struct RowScanArgs {
    const T *in = nullptr; // row r starts at in + r * pitch
    T *out = nullptr;      // same pitch; may equal in
    size_t rows = 0;
    size_t row_len = 0;
    size_t pitch = 0;      // elements, >= row_len
    bool exclusive = false;
    const T *seg_init = nullptr; // optional device array, one initial value per row
};

namespace detail {

// Grid size cap: blocks loop over the rest (gridDim.x <= 2^31 - 1).
constexpr size_t kRowScanMaxGrid = 0x7fffffffu;

// Short rows: each tile is R = rows_per_tile whole rows; tile t starts at
// row t * R. Item j of a tile (its local logical index) is row j / row_len,
// column j % row_len of the tile's rows, addressed through RowHeads from the
// tile's first row; tags carry the row number inside the tile.
template <typename T, class Op, int BLOCK, int IPT, int MINB>
__global__ void __launch_bounds__(BLOCK, MINB)
    row_scan_short_kernel(const RowScanArgs<T> a, const Op op, const size_t rows_per_tile, const size_t num_tiles,
                          const bool vector_ok) {
    using Item = SegItem<T>;
    using PairOp = SegmentedOp<T, Op, SegTags::kLatest>;
    using Shape = TileShape<T, BLOCK, IPT>;
    constexpr int K = Shape::K, V = Shape::V;
    const PairOp pop{op};
    const RowHeads src{a.row_len, a.pitch, vector_ok};
    const size_t first = static_cast<size_t>(threadIdx.x / kWarpThreads) * Shape::kWarpItems + lane_id() * V;

    __shared__ typename BlockScan<Item, BLOCK>::TempStorage temp;
    for (size_t tile = blockIdx.x; tile < num_tiles; tile += gridDim.x) {
        const size_t row0 = tile * rows_per_tile;
        const size_t nrows = a.rows - row0 < rows_per_tile ? a.rows - row0 : rows_per_tile;
        const size_t nb = nrows * a.row_len; // items of this tile, <= the tile size
        const T *in = a.in + row0 * a.pitch;
        T *out = a.out + row0 * a.pitch;

        Item items[K][V];
        uint32_t head_mask = 0; // bit k * V + v: items[k][v] starts a row
#pragma unroll
        for (int k = 0; k < K; ++k) {
            const size_t j = first + static_cast<size_t>(k) * kWarpThreads * V;
            uint32_t t[V];
            T x[V];
            if (vector_ok && j + V <= nb) {
                src.template tags<V>(j, true, t);
                load_vector<T, V>(in + src.at(j), x);
            } else if (j + V <= nb) {
                src.template tags<V>(j, false, t);
#pragma unroll
                for (int v = 0; v < V; ++v) x[v] = in[src.at(j + v)];
            } else {
#pragma unroll
                for (int v = 0; v < V; ++v) {
                    uint32_t one[1] = {0u};
                    if (j + v < nb) src.template tags<1>(j + v, false, one);
                    t[v] = one[0];
                    x[v] = j + v < nb ? in[src.at(j + v)] : op.identity();
                }
            }
#pragma unroll
            for (int v = 0; v < V; ++v) {
                items[k][v] = Item{t[v], x[v]};
                if (t[v] & kSegHead) head_mask |= 1u << (k * V + v);
            }
        }

        // Item 0 is a head, so every item has its row's head at or before
        // it inside the tile: nothing flows in from outside.
        Item aggregate;
        NoBlockPrefix none;
        BlockScan<Item, BLOCK>(temp).template ScanWarpStriped<K, V>(items, a.exclusive, pop, aggregate, none);

#pragma unroll
        for (int k = 0; k < K; ++k) {
            const size_t j = first + static_cast<size_t>(k) * kWarpThreads * V;
            T y[V];
#pragma unroll
            for (int v = 0; v < V; ++v) {
                const bool head = (head_mask >> (k * V + v)) & 1u;
                const Item &it = items[k][v];
                // Exclusive: a head starts from the identity (its pair prefix
                // is the previous row's); others carry their row's prefix.
                T val = (a.exclusive && head) ? op.identity() : it.value;
                if (a.seg_init && j + v < nb) {
                    uint32_t local;
                    if (a.exclusive && head) {
                        uint32_t own[1] = {0u};
                        src.template tags<1>(j + v, false, own);
                        local = own[0] & kSegIdMask;
                    } else {
                        local = it.tag & kSegIdMask;
                    }
                    val = op(a.seg_init[row0 + local], val);
                }
                y[v] = val;
            }
            if (vector_ok && j + V <= nb) {
                store_vector<T, V>(out + src.at(j), y);
            } else {
#pragma unroll
                for (int v = 0; v < V; ++v)
                    if (j + v < nb) out[src.at(j + v)] = y[v];
            }
        }
        __syncthreads(); // the next tile reuses temp
    }
}

// The running total of a long row, as BlockScan's prefix callback: returns
// the carry in front of this chunk, keeps carry (+) chunk total. Only warp 0
// calls it, so only warp 0's copy is ever read or updated.
template <typename T, class Op> struct RowCarry {
    Op op;
    T carry;
    __device__ __forceinline__ T operator()(const T &chunk_total) {
        const T before = carry;
        carry = op(carry, chunk_total);
        return before;
    }
};

// items of one chunk from p[0, len): vectors when `full` (len covers the
// whole chunk and p is aligned), else a vector where all V are in range and
// vector_ok, element by element (identity beyond len) otherwise.
template <typename T, int K, int V>
__device__ __forceinline__ void load_chunk(const T *p, size_t first, size_t len, bool full, bool vector_ok, T ident,
                                           T (&items)[K][V]) {
    if (full) {
#pragma unroll
        for (int k = 0; k < K; ++k) load_vector<T, V>(p + first + k * kWarpThreads * V, items[k]);
        return;
    }
#pragma unroll
    for (int k = 0; k < K; ++k) {
        const size_t j = first + static_cast<size_t>(k) * kWarpThreads * V;
        if (vector_ok && j + V <= len) {
            load_vector<T, V>(p + j, items[k]);
        } else {
#pragma unroll
            for (int v = 0; v < V; ++v) items[k][v] = j + v < len ? p[j + v] : ident;
        }
    }
}

template <typename T, int K, int V>
__device__ __forceinline__ void store_chunk(T *p, size_t first, size_t len, bool full, bool vector_ok,
                                            const T (&items)[K][V]) {
    if (full) {
#pragma unroll
        for (int k = 0; k < K; ++k) store_vector<T, V>(p + first + k * kWarpThreads * V, items[k]);
        return;
    }
#pragma unroll
    for (int k = 0; k < K; ++k) {
        const size_t j = first + static_cast<size_t>(k) * kWarpThreads * V;
        if (vector_ok && j + V <= len) {
            store_vector<T, V>(p + j, items[k]);
        } else {
#pragma unroll
            for (int v = 0; v < V; ++v)
                if (j + v < len) p[j + v] = items[k][v];
        }
    }
}

// Long rows: block b scans rows b, b + gridDim.x, ..., each chunk by chunk.
template <typename T, class Op, int BLOCK, int IPT, int MINB>
__global__ void __launch_bounds__(BLOCK, MINB)
    row_scan_long_kernel(const RowScanArgs<T> a, const Op op, const bool vector_ok) {
    using Shape = TileShape<T, BLOCK, IPT>;
    constexpr int K = Shape::K, V = Shape::V;
    constexpr size_t kChunk = Shape::kTile;
    const size_t first = static_cast<size_t>(threadIdx.x / kWarpThreads) * Shape::kWarpItems + lane_id() * V;

    __shared__ typename BlockScan<T, BLOCK>::TempStorage temp;
    for (size_t row = blockIdx.x; row < a.rows; row += gridDim.x) {
        const T *in = a.in + row * a.pitch;
        T *out = a.out + row * a.pitch;
        RowCarry<T, Op> carry{op, a.seg_init ? a.seg_init[row] : op.identity()};
        for (size_t base = 0; base < a.row_len; base += kChunk) {
            const size_t len = a.row_len - base; // what is left of the row
            const bool full = vector_ok && len >= kChunk;
            T items[K][V];
            load_chunk<T, K, V>(in + base, first, len, full, vector_ok, op.identity(), items);
            T aggregate;
            BlockScan<T, BLOCK>(temp).template ScanWarpStriped<K, V>(items, a.exclusive, op, aggregate, carry);
            store_chunk<T, K, V>(out + base, first, len, full, vector_ok, items);
            __syncthreads(); // the next chunk reuses temp
        }
    }
}

} // namespace detail

// The batched row scan for element type T. Short rows use tiles of
// SBLOCK x SIPT (pair) items with at least SMINB resident blocks per SM,
// long rows chunks of LBLOCK x LIPT items with at least LMINB (defaults from
// tuning.cuh).
template <typename T, int SBLOCK = SegScanTuning<sizeof(T)>::kBlockThreads,
          int SIPT = SegScanTuning<sizeof(T)>::kItemsPerThread,
          int SMINB = RowScanTuning<sizeof(T)>::kShortMinBlocksPerSM, int LBLOCK = ScanTuning<sizeof(T)>::kBlockThreads,
          int LIPT = ScanTuning<sizeof(T)>::kItemsPerThread, int LMINB = scan_min_blocks<T>()>
struct DeviceRowScan {
    static constexpr size_t kShortTile = size_t(SBLOCK) * SIPT; // longest row of the short-row kernel
    static constexpr size_t kChunk = size_t(LBLOCK) * LIPT;     // chunk of the long-row kernel
    static constexpr size_t kMinRowsPerLaunch = RowScanTuning<sizeof(T)>::kMinRowsPerLaunch;

    // True when rows x row_len should take this path rather than the
    // look-back segmented scan: any number of short rows, or at least
    // kMinRowsPerLaunch long ones. Host-only, no CUDA call.
    static bool applies(size_t rows, size_t row_len) {
        return rows >= 1 && row_len >= 1 && (row_len <= kShortTile || rows >= kMinRowsPerLaunch);
    }

    // Enqueues the scan of every row on `stream`: one kernel launch (none
    // for 0 rows or row_len 0). Returns cudaErrorInvalidValue for pitch <
    // row_len or a NULL in/out, else the launch's error. The pointers are
    // not validated further (the C API's job, libscan.h).
    template <class Op> static cudaError_t run(const RowScanArgs<T> &a, Op op, cudaStream_t stream) {
        if (a.rows == 0 || a.row_len == 0) return cudaSuccess;
        if (a.pitch < a.row_len || a.in == nullptr || a.out == nullptr) return cudaErrorInvalidValue;
        constexpr size_t V = detail::TileShape<T, LBLOCK, LIPT>::V;
        static_assert(V == size_t(detail::TileShape<T, SBLOCK, SIPT>::V), "libscan: one vector width per type");
        const bool aligned = reinterpret_cast<uintptr_t>(a.in) % 16 == 0 &&
                             reinterpret_cast<uintptr_t>(a.out) % 16 == 0 && a.pitch % V == 0;
        if (a.row_len <= kShortTile) {
            const size_t per_tile = kShortTile / a.row_len;
            const size_t tiles = (a.rows + per_tile - 1) / per_tile;
            const size_t grid = tiles < detail::kRowScanMaxGrid ? tiles : detail::kRowScanMaxGrid;
            detail::row_scan_short_kernel<T, Op, SBLOCK, SIPT, SMINB><<<static_cast<unsigned>(grid), SBLOCK, 0, stream>>>(
                a, op, per_tile, tiles, aligned && a.row_len % V == 0);
        } else {
            const size_t grid = a.rows < detail::kRowScanMaxGrid ? a.rows : detail::kRowScanMaxGrid;
            detail::row_scan_long_kernel<T, Op, LBLOCK, LIPT, LMINB>
                <<<static_cast<unsigned>(grid), LBLOCK, 0, stream>>>(a, op, aligned);
        }
        return cudaGetLastError();
    }
};

} // namespace libscan
