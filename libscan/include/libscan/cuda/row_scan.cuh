// row_scan.cuh -- the batched row scan: every row of a pitched matrix
// scanned on its own, in one kernel launch, with no look-back.
//
//   libscan::RowScanArgs<float> a;             // in, out, rows, row_len, pitch...
//   a.in = d_in; a.out = d_out; a.rows = h; a.row_len = w; a.pitch = w;
//   if (libscan::DeviceRowScan<float>::applies(a.rows, a.row_len))
//       e = libscan::DeviceRowScan<float>::run(a, libscan::Sum<float>(), stream);
//
// Design. Rows are independent and their length is known before launch, so
// no row ever waits for another: there is no tile-status array, no memset,
// no temp storage. run() enqueues one kernel and nothing else; it never
// synchronises and never allocates. Three kernels, chosen on the host by
// row_len (V = 16 / sizeof(T) elements make one 16-byte vector):
//
//  * rows of <= 32 V elements (sub-warp kernel): G = the smallest power of
//    two >= ceil(row_len / V) lanes per row, 32 / G rows per warp; lane l
//    takes V elements from (l % G) * V of row l / G. Each warp loads several
//    row groups before scanning any (memory-level parallelism), scans with
//    register shuffles only: no shared memory, no __syncthreads.
//  * rows of up to kShortTile elements (warp-per-row kernel): one warp per
//    row, walking it in chunks of 32 V elements, several chunks loaded
//    before any is scanned, with a running carry.
//  * longer rows: one block per row, walking the row in chunks of the plain
//    scan's tile (ScanTuning); BlockScan's prefix callback hands each chunk
//    the running carry (init or identity at the row start) and keeps
//    carry (+) chunk total for the next chunk.
//
// A lane's V elements are one 16-byte load/store when in and out are
// 16-byte aligned, pitch % V == 0 and all V lie inside the row; guarded
// scalar accesses otherwise (same association). Only the row elements are
// read or written: elements between rows (pitch > row_len) are untouched.
// in == out is allowed (every element is read by the thread that writes it,
// before it writes it, and no other thread touches it).
//
// Association (fixed by row_len and the element size, so float results are
// bitwise repeatable run to run; operators need not be commutative, the
// earlier operand is always on the left):
//  * short rows: inside a lane a left fold of its V items; across the G
//    lanes of a row (32 for the warp-per-row kernel) the Kogge-Stone tree
//    of lane totals, d = 1, 2, .., G/2 (warp_scan.cuh's, in segments of G
//    lanes), giving lane l its prefix P(l) (identity for the first lane);
//    across chunks a left fold of chunk totals, carry = (init (+) C0) (+)
//    C1 ...; element v of lane l = (((carry (+) P(l)) (+) x0) (+) ..) (+) xv
//    (carry = init or the identity for the sub-warp kernel);
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

// 16-byte vector width of T: elements per lane in the short-row kernels.
template <typename T> struct RowVector {
    static constexpr int V = (sizeof(T) < 16 && 16 % sizeof(T) == 0) ? int(16 / sizeof(T)) : 1;
};

// V elements at p[col ..) of a row of row_len: one 16-byte load when
// `aligned` (p 16-byte aligned for every multiple of V) and all V are in the
// row, guarded scalars otherwise; identity past the row end or when !live.
template <typename T, int V>
__device__ __forceinline__ void load_lane(const T *row, size_t col, size_t row_len, bool aligned, bool live, T ident,
                                          T (&x)[V]) {
    if (live && aligned && col + V <= row_len) {
        load_vector<T, V>(row + col, x);
    } else {
#pragma unroll
        for (int v = 0; v < V; ++v) x[v] = live && col + v < row_len ? row[col + v] : ident;
    }
}

template <typename T, int V>
__device__ __forceinline__ void store_lane(T *row, size_t col, size_t row_len, bool aligned, bool live,
                                           const T (&y)[V]) {
    if (!live) return;
    if (aligned && col + V <= row_len) {
        store_vector<T, V>(row + col, y);
    } else {
#pragma unroll
        for (int v = 0; v < V; ++v)
            if (col + v < row_len) row[col + v] = y[v];
    }
}

// One lane's outputs: a left fold from `run` (the row's value in front of
// the lane) over the lane's items; exclusive writes the value before each.
template <typename T, int V, class Op>
__device__ __forceinline__ void lane_outputs(T run, const T (&x)[V], const Op &op, bool exclusive, T (&y)[V]) {
#pragma unroll
    for (int v = 0; v < V; ++v) {
        const T next = op(run, x[v]);
        y[v] = exclusive ? run : next;
        run = next;
    }
}

template <typename T, int V, class Op> __device__ __forceinline__ T lane_fold(const T (&x)[V], const Op &op) {
    T t = x[0];
#pragma unroll
    for (int v = 1; v < V; ++v) t = op(t, x[v]);
    return t;
}

// Short rows of at most 32 V elements: G = 2^log_g lanes per row, 32 / G
// rows per warp ("a row group"). Lane l works on row (l / G) of the group,
// elements (l % G) * V ... Warp w of tile t takes the U groups from
// (t * W + w) * U on; it loads all U before scanning any, so U 16-byte loads
// per lane are in flight. No shared memory, no block synchronisation.
template <typename T, class Op, int BLOCK, int U, int MINB>
__global__ void __launch_bounds__(BLOCK, MINB)
    row_scan_subwarp_kernel(const RowScanArgs<T> a, const Op op, const int log_g, const size_t num_groups,
                            const bool aligned) {
    constexpr int V = RowVector<T>::V;
    constexpr size_t W = BLOCK / kWarpThreads;
    const int lane = lane_id();
    const int pos = lane & ((1 << log_g) - 1);
    const size_t sub = static_cast<size_t>(lane >> log_g);
    const size_t rows_per_group = static_cast<size_t>(kWarpThreads >> log_g);
    const size_t col = static_cast<size_t>(pos) * V;
    const size_t num_tiles = (num_groups + W * U - 1) / (W * U);
    for (size_t tile = blockIdx.x; tile < num_tiles; tile += gridDim.x) {
        const size_t g0 = (tile * W + threadIdx.x / kWarpThreads) * U;
        if (g0 >= num_groups) break; // warp-uniform: the warp's groups all lie beyond the last
        T x[U][V];
        T init[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const size_t row = (g0 + u) * rows_per_group + sub;
            const bool live = row < a.rows;
            const T *in = live ? a.in + row * a.pitch : a.in;
            load_lane<T, V>(in, col, a.row_len, aligned, live, op.identity(), x[u]);
            init[u] = live && a.seg_init ? a.seg_init[row] : op.identity();
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const size_t row = (g0 + u) * rows_per_group + sub;
            const bool live = row < a.rows;
            T incl;
            const T before = lane_prefix(lane_fold<T, V>(x[u], op), op, log_g, pos, &incl);
            T y[V];
            lane_outputs<T, V>(a.seg_init ? op(init[u], before) : before, x[u], op, a.exclusive, y);
            store_lane<T, V>(live ? a.out + row * a.pitch : a.out, col, a.row_len, aligned, live, y);
        }
    }
}

// Rows of more than 32 V elements (up to the long-row threshold): one warp
// per row, chunks of 32 V elements, K chunks loaded before any is scanned.
// Each chunk: lane fold, warp Kogge-Stone, element = ((carry (+) lane
// prefix) (+) x0) (+) ...; carry = carry (+) chunk total (a left fold).
template <typename T, class Op, int BLOCK, int K, int MINB>
__global__ void __launch_bounds__(BLOCK, MINB)
    row_scan_warp_kernel(const RowScanArgs<T> a, const Op op, const bool aligned) {
    constexpr int V = RowVector<T>::V;
    constexpr size_t W = BLOCK / kWarpThreads;
    constexpr size_t kChunk = size_t(kWarpThreads) * V;
    const int lane = lane_id();
    const size_t col = static_cast<size_t>(lane) * V;
    const size_t stride = static_cast<size_t>(gridDim.x) * W;
    for (size_t row = blockIdx.x * W + threadIdx.x / kWarpThreads; row < a.rows; row += stride) {
        const T *in = a.in + row * a.pitch;
        T *out = a.out + row * a.pitch;
        T carry = a.seg_init ? a.seg_init[row] : op.identity();
        for (size_t base = 0; base < a.row_len; base += K * kChunk) {
            T x[K][V];
#pragma unroll
            for (int k = 0; k < K; ++k)
                load_lane<T, V>(in, base + k * kChunk + col, a.row_len, aligned, true, op.identity(), x[k]);
#pragma unroll
            for (int k = 0; k < K; ++k) {
                if (base + k * kChunk >= a.row_len) break; // warp-uniform
                T incl;
                const T before = lane_prefix(lane_fold<T, V>(x[k], op), op, 5, lane, &incl);
                const T total = shfl(incl, kWarpThreads - 1); // the chunk's total, in every lane
                T y[V];
                lane_outputs<T, V>(op(carry, before), x[k], op, a.exclusive, y);
                store_lane<T, V>(out, base + k * kChunk + col, a.row_len, aligned, true, y);
                carry = op(carry, total);
            }
        }
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

// The batched row scan for element type T. Short rows (row_len <=
// kShortTile) take the sub-warp kernel (rows of <= 32 V elements, SU row
// groups per warp in flight) or the warp-per-row kernel (SK chunks in
// flight), both in blocks of SBLOCK threads with at least SMINB resident
// per SM; long rows take chunks of LBLOCK x LIPT items with at least LMINB
// (defaults from tuning.cuh).
template <typename T, int SBLOCK = RowScanTuning<sizeof(T)>::kShortBlockThreads,
          int SU = RowScanTuning<sizeof(T)>::kShortGroupsPerWarp,
          int SK = RowScanTuning<sizeof(T)>::kShortChunksPerWarp,
          int SMINB = RowScanTuning<sizeof(T)>::kShortMinBlocksPerSM, int LBLOCK = ScanTuning<sizeof(T)>::kBlockThreads,
          int LIPT = ScanTuning<sizeof(T)>::kItemsPerThread, int LMINB = row_long_min_blocks<T>()>
struct DeviceRowScan {
    static_assert(SBLOCK % kWarpThreads == 0 && SU >= 1 && SK >= 1, "libscan: bad short-row tuning");
    // Longest row of the short-row kernels.
    static constexpr size_t kShortTile = RowScanTuning<sizeof(T)>::kShortMaxRowBytes / sizeof(T);
    static constexpr size_t kChunk = size_t(LBLOCK) * LIPT; // chunk of the long-row kernel
    static constexpr size_t kMinRowsPerLaunch = RowScanTuning<sizeof(T)>::kMinRowsPerLaunch;
    static constexpr size_t V = size_t(detail::RowVector<T>::V);

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
        static_assert(V == size_t(detail::TileShape<T, LBLOCK, LIPT>::V), "libscan: one vector width per type");
        // Every lane's first element sits at a multiple of V inside its row,
        // so with these its 16-byte vector is aligned.
        const bool aligned = reinterpret_cast<uintptr_t>(a.in) % 16 == 0 &&
                             reinterpret_cast<uintptr_t>(a.out) % 16 == 0 && a.pitch % V == 0;
        constexpr size_t W = SBLOCK / kWarpThreads;
        const size_t lanes = (a.row_len + V - 1) / V;
        if (a.row_len <= kShortTile && lanes <= size_t(kWarpThreads)) {
            int log_g = 0;
            while ((size_t(1) << log_g) < lanes) ++log_g;
            const size_t rows_per_group = size_t(kWarpThreads) >> log_g;
            const size_t groups = (a.rows + rows_per_group - 1) / rows_per_group;
            const size_t tiles = (groups + W * SU - 1) / (W * SU);
            const size_t grid = tiles < detail::kRowScanMaxGrid ? tiles : detail::kRowScanMaxGrid;
            detail::row_scan_subwarp_kernel<T, Op, SBLOCK, SU, SMINB>
                <<<static_cast<unsigned>(grid), SBLOCK, 0, stream>>>(a, op, log_g, groups, aligned);
        } else if (a.row_len <= kShortTile) {
            const size_t blocks = (a.rows + W - 1) / W;
            const size_t grid = blocks < detail::kRowScanMaxGrid ? blocks : detail::kRowScanMaxGrid;
            detail::row_scan_warp_kernel<T, Op, SBLOCK, SK, SMINB>
                <<<static_cast<unsigned>(grid), SBLOCK, 0, stream>>>(a, op, aligned);
        } else {
            const size_t grid = a.rows < detail::kRowScanMaxGrid ? a.rows : detail::kRowScanMaxGrid;
            detail::row_scan_long_kernel<T, Op, LBLOCK, LIPT, LMINB>
                <<<static_cast<unsigned>(grid), LBLOCK, 0, stream>>>(a, op, aligned);
        }
        return cudaGetLastError();
    }
};

} // namespace libscan
