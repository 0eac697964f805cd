// segmented.cuh -- segmented scan: the same warp, block and look-back
// machinery run over (tag, value) pairs.
//
// A segment starts at every "head"; the scan restarts there. With the pair
//
//     (ta, a) (+) (tb, b) = (tag(ta, tb), head(tb) ? b : a (+) b)
//
// the segmented scan of values is the plain scan of pairs, and the pair
// operator is associative whenever (+) is (it need not commute), so
// WarpScan, BlockScan and TileLookback run unchanged: there is no second
// look-back. The tag's top bit says "this range contains a head"; the other
// 31 bits carry what a per-segment initial value needs:
//
//   SegTags::kCount    heads counted (31 bits, modular): the segment number
//                      of an element is (inclusive count - 1). Head flags,
//                      whose kernel is flag_scan.cuh's (pairs per thread only).
//   SegTags::kLatest   the id of the latest head wins: segment offsets and
//                      matrix rows, where a head knows its segment number.
//
// Determinism: the association is the plain scan's (lookback.cuh), so float
// results are bitwise repeatable. With per-segment initial values the result
// is init[s] (+) (the segment's own scan).
//
// Heads come from a source functor (see TagHeads, RowHeads) that also maps
// the scan's logical index to the element's address, which is what lets one
// kernel serve offsets and strided matrix rows. Head flags have a kernel of
// their own with larger tiles (flag_scan.cuh) over the same pairs.
#pragma once

#include <cuda_runtime.h>
#include <cstddef>
#include <cstdint>
#include "libscan/cuda/block_scan.cuh"
#include "libscan/cuda/lookback.cuh"
#include "libscan/cuda/tuning.cuh"

namespace libscan {

constexpr uint32_t kSegHead = 0x80000000u; // the range holds a head
constexpr uint32_t kSegIdMask = 0x7fffffffu;

template <typename T> struct SegItem {
    uint32_t tag;
    T value;
};

enum class SegTags { kCount, kLatest };

// The pair monoid over SegItem<T>, from any monoid Op over T.
template <typename T, class Op, SegTags TAGS> struct SegmentedOp {
    Op op;
    __host__ __device__ SegItem<T> operator()(const SegItem<T> &a, const SegItem<T> &b) const {
        SegItem<T> r;
        const bool head = (b.tag & kSegHead) != 0;
        if constexpr (TAGS == SegTags::kCount) r.tag = ((a.tag | b.tag) & kSegHead) | ((a.tag + b.tag) & kSegIdMask);
        else r.tag = head ? b.tag : a.tag;
        r.value = head ? b.value : op(a.value, b.value);
        return r;
    }
    __host__ __device__ SegItem<T> identity() const { return SegItem<T>{0u, op.identity()}; }
};

// ---- head sources ---------------------------------------------------------
// Each gives, for logical index j, the element's offset in the arrays
// (`at`), its tag (`tag`), and whether V consecutive indices from j are
// contiguous and 16-byte loadable (`vector_ok`).

// One 32-bit tag per element, prepared from segment offsets
// (kSegHead | segment id at the first element of each non-empty segment).
struct TagHeads {
    const uint32_t *tag_words;
    bool aligned;
    __device__ __forceinline__ size_t at(size_t j) const { return j; }
    template <int V> __device__ __forceinline__ void tags(size_t j, bool vec, uint32_t (&t)[V]) const {
        if constexpr (V == 4) {
            if (vec) {
                uint4 w = *reinterpret_cast<const uint4 *>(tag_words + j);
                t[0] = w.x, t[1] = w.y, t[2] = w.z, t[3] = w.w;
                return;
            }
        }
#pragma unroll
        for (int v = 0; v < V; ++v) t[v] = tag_words[j + v];
    }
    __device__ __forceinline__ bool vector_ok(size_t) const { return aligned; }
};

// Rows of `len` elements, `pitch` elements apart: logical index j is row
// j / len, column j % len; every row starts a segment whose id is the row.
struct RowHeads {
    size_t len, pitch;
    bool aligned; // in/out aligned and len, pitch multiples of the vector width
    __device__ __forceinline__ size_t at(size_t j) const { return len == pitch ? j : (j / len) * pitch + j % len; }
    template <int V> __device__ __forceinline__ void tags(size_t j, bool, uint32_t (&t)[V]) const {
        const size_t row = j / len, col = j % len;
#pragma unroll
        for (int v = 0; v < V; ++v) {
            // col + v < len always holds with vectors (len % V == 0); for
            // scalar access recompute across a row end.
            const bool head = (col + v) % len == 0;
            const size_t r = row + (col + v) / len;
            t[v] = head ? (kSegHead | static_cast<uint32_t>(r & kSegIdMask)) : 0u;
        }
    }
    __device__ __forceinline__ bool vector_ok(size_t) const { return aligned; }
};

template <typename T> struct SegmentedArgs {
    const T *in = nullptr; // element j is at in[src.at(j)]
    T *out = nullptr;      // may equal in
    size_t n = 0;          // logical elements
    bool exclusive = false;
    const T *seg_init = nullptr; // optional per-segment initial values (device)
    // Offsets mode: only logical indices in [d_range[0], d_range[1]) are
    // written (read on the device: the first and last segment offsets).
    const uint64_t *d_range = nullptr;
};

namespace detail {

template <typename T> struct SegKernelParams {
    SegmentedArgs<T> a;
    unsigned *tile_counter;
    unsigned num_tiles;
};

template <typename T, class Op, SegTags TAGS, class Src, int BLOCK, int IPT, class State>
__global__ void __launch_bounds__(BLOCK)
    segmented_scan_kernel(const SegKernelParams<T> p, const Src src, const Op op, const State state) {
    using Item = SegItem<T>;
    using PairOp = SegmentedOp<T, Op, TAGS>;
    constexpr int V = (sizeof(T) < 16 && 16 % sizeof(T) == 0) ? int(16 / sizeof(T)) : 1;
    static_assert(IPT % V == 0, "libscan: items per thread must be a multiple of the vector width");
    constexpr int K = IPT / V;
    constexpr int kTile = BLOCK * IPT;
    constexpr int kWarpItems = kWarpThreads * IPT;
    const PairOp pop{op};

    __shared__ typename BlockScan<Item, BLOCK>::TempStorage temp;
    __shared__ unsigned s_tile;
    if (threadIdx.x == 0) s_tile = atomicAdd(p.tile_counter, 1u);
    __syncthreads();
    const unsigned tile = s_tile;

    const size_t n = p.a.n;
    const size_t tile_base = static_cast<size_t>(tile) * kTile;
    const size_t first = tile_base + static_cast<size_t>(threadIdx.x / kWarpThreads) * kWarpItems + lane_id() * V;
    const bool full = n - tile_base >= static_cast<size_t>(kTile);
    const bool vec = full && src.vector_ok(tile_base);

    Item items[K][V];
    uint32_t head_mask = 0; // bit k * V + v: items[k][v] starts a segment
#pragma unroll
    for (int k = 0; k < K; ++k) {
        const size_t j = first + static_cast<size_t>(k) * kWarpThreads * V;
        uint32_t t[V];
        T x[V];
        if (vec) {
            src.template tags<V>(j, true, t);
            if constexpr (V * sizeof(T) == 16) {
                uint4 r = *reinterpret_cast<const uint4 *>(p.a.in + src.at(j));
                memcpy(x, &r, 16);
            } else {
#pragma unroll
                for (int v = 0; v < V; ++v) x[v] = p.a.in[src.at(j + v)];
            }
        } else {
            if (j + V <= n) src.template tags<V>(j, false, t);
#pragma unroll
            for (int v = 0; v < V; ++v) {
                if (j + V > n) {
                    uint32_t one[1] = {0u};
                    if (j + v < n) src.template tags<1>(j + v, false, one);
                    t[v] = one[0];
                }
                x[v] = j + v < n ? p.a.in[src.at(j + v)] : op.identity();
            }
        }
#pragma unroll
        for (int v = 0; v < V; ++v) {
            items[k][v] = Item{t[v], x[v]};
            if (t[v] & kSegHead) head_mask |= 1u << (k * V + v);
        }
    }

    TileLookback<Item, PairOp, State> lookback{state, tile, pop, pop.identity(), pop.identity()};
    Item aggregate;
    BlockScan<Item, BLOCK>(temp).template ScanWarpStriped<K, V>(items, p.a.exclusive, pop, aggregate, lookback);

    uint64_t lo = 0, hi = n;
    if (p.a.d_range) lo = p.a.d_range[0], hi = p.a.d_range[1];
#pragma unroll
    for (int k = 0; k < K; ++k) {
        const size_t j = first + static_cast<size_t>(k) * kWarpThreads * V;
        T y[V];
#pragma unroll
        for (int v = 0; v < V; ++v) {
            const bool head = (head_mask >> (k * V + v)) & 1u;
            const Item &it = items[k][v];
            // Exclusive: a head starts from the identity, others from the
            // pair prefix before them (which already restarted at the head).
            T val = (p.a.exclusive && head) ? op.identity() : it.value;
            if (p.a.seg_init) {
                uint32_t id;
                if constexpr (TAGS == SegTags::kCount) {
                    // inclusive count - 1; an exclusive prefix lacks this head
                    id = ((it.tag & kSegIdMask) + (p.a.exclusive && head ? 1u : 0u) - 1u) & kSegIdMask;
                } else {
                    if (p.a.exclusive && head) {
                        uint32_t own[1] = {0u};
                        src.template tags<1>(j + v, false, own);
                        id = own[0] & kSegIdMask;
                    } else {
                        id = it.tag & kSegIdMask;
                    }
                }
                if (j + v < n) val = op(p.a.seg_init[id], val);
            }
            y[v] = val;
        }
        const bool in_range = j >= lo && j + V <= hi;
        if (vec && in_range && V * sizeof(T) == 16) {
            uint4 r;
            memcpy(&r, y, 16);
            *reinterpret_cast<uint4 *>(p.a.out + src.at(j)) = r;
        } else {
#pragma unroll
            for (int v = 0; v < V; ++v)
                if (j + v < n && j + v >= lo && j + v < hi) p.a.out[src.at(j + v)] = y[v];
        }
    }
}

// Offsets -> tags: for each non-empty segment s, tag_words[offsets[s]] =
// kSegHead | s (an empty segment writes nothing). Also publishes the range.
template <typename OFF>
__global__ void offsets_to_tags_kernel(const OFF *offsets, size_t num_segments, size_t n, uint32_t *tag_words,
                                       uint64_t *range) {
    const size_t first = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (first == 0) {
        // Clamped, so that offsets the caller vouched for but got wrong can
        // never make the scan write outside d_out.
        const uint64_t lo = static_cast<uint64_t>(offsets[0]), hi = static_cast<uint64_t>(offsets[num_segments]);
        range[0] = lo < n ? lo : n;
        range[1] = hi < n ? hi : n;
    }
    for (size_t s = first; s < num_segments; s += static_cast<size_t>(gridDim.x) * blockDim.x) {
        const OFF b = offsets[s], e = offsets[s + 1];
        if (b < e && static_cast<size_t>(b) < n) tag_words[b] = kSegHead | static_cast<uint32_t>(s & kSegIdMask);
    }
}

} // namespace detail

// The device-wide segmented scan for element type T.
template <typename T, int BLOCK = SegScanTuning<sizeof(T)>::kBlockThreads,
          int IPT = SegScanTuning<sizeof(T)>::kItemsPerThread>
struct DeviceSegmentedScan {
    using Item = SegItem<T>;
    using State = TileState<Item>;
    static constexpr int kTile = BLOCK * IPT;
    static constexpr size_t kCounterBytes = 256;

    static constexpr size_t num_tiles(size_t n) { return (n + kTile - 1) / kTile; }
    static constexpr size_t state_bytes(size_t n) { return n == 0 ? 0 : kCounterBytes + State::bytes(num_tiles(n)); }
    // Offsets mode also keeps one 32-bit tag per element and the range.
    static constexpr size_t offsets_extra_bytes(size_t n) { return ((n * 4 + 255) / 256) * 256 + 256; }

    // Enqueues the scan of a.n logical elements whose heads come from src.
    template <SegTags TAGS, class Src, class Op>
    static cudaError_t run(const SegmentedArgs<T> &a, const Src &src, Op op, void *temp, size_t temp_size,
                           cudaStream_t stream) {
        if (a.n == 0) return cudaSuccess;
        if (temp == nullptr || temp_size < state_bytes(a.n)) return cudaErrorInvalidValue;
        const size_t tiles = num_tiles(a.n);
        if (tiles > 0xffffffffull) return cudaErrorInvalidValue;
        char *base = static_cast<char *>(temp);
        cudaError_t e = cudaMemsetAsync(base, 0, state_bytes(a.n), stream);
        if (e != cudaSuccess) return e;
        detail::SegKernelParams<T> p{a, reinterpret_cast<unsigned *>(base), static_cast<unsigned>(tiles)};
        State state = State::on(base + kCounterBytes);
        detail::segmented_scan_kernel<T, Op, TAGS, Src, BLOCK, IPT, State>
            <<<static_cast<unsigned>(tiles), BLOCK, 0, stream>>>(p, src, op, state);
        return cudaGetLastError();
    }

    // Offsets mode: num_segments + 1 offsets (OFF = uint64_t or size_t-like),
    // non-decreasing and <= a.n (the caller's contract). temp holds
    // state_bytes(n) + offsets_extra_bytes(n).
    template <typename OFF, class Op>
    static cudaError_t run_offsets(SegmentedArgs<T> a, const OFF *d_offsets, size_t num_segments, Op op, void *temp,
                                   size_t temp_size, cudaStream_t stream) {
        if (a.n == 0 || num_segments == 0) return cudaSuccess;
        if (temp == nullptr || temp_size < state_bytes(a.n) + offsets_extra_bytes(a.n)) return cudaErrorInvalidValue;
        char *base = static_cast<char *>(temp) + state_bytes(a.n);
        uint64_t *range = reinterpret_cast<uint64_t *>(base);
        uint32_t *tags = reinterpret_cast<uint32_t *>(base + 256);
        cudaError_t e = cudaMemsetAsync(tags, 0, a.n * 4, stream);
        if (e != cudaSuccess) return e;
        size_t blocks = (num_segments + 255) / 256;
        if (blocks > 65536) blocks = 65536; // the kernel strides over the rest
        detail::offsets_to_tags_kernel<OFF><<<static_cast<unsigned>(blocks), 256, 0, stream>>>(d_offsets, num_segments,
                                                                                               a.n, tags, range);
        if ((e = cudaGetLastError()) != cudaSuccess) return e;
        a.d_range = range;
        const bool aligned = reinterpret_cast<uintptr_t>(a.in) % 16 == 0 && reinterpret_cast<uintptr_t>(a.out) % 16 == 0;
        TagHeads src{tags, aligned};
        return run<SegTags::kLatest>(a, src, op, temp, temp_size, stream);
    }
};

} // namespace libscan
