// tile_io.cuh -- one tile between global memory and registers, in the
// warp-striped vector arrangement of block_scan.cuh, for every scan kernel.
//
// A tile is BLOCK threads x IPT items, loaded as K vectors of V elements per
// thread (16-byte vectors where V elements fill one). Warp w owns the
// contiguous segment [w * 32*IPT, (w+1) * 32*IPT) of the tile; chunk k of it
// is 32*V consecutive elements of which lane l holds the V at k*32*V + l*V.
// So every load and store instruction of a warp covers 512 contiguous bytes.
//
// load_striped / store_striped take the tile's first element, which may lie
// at or past n (a block with no elements: every load gives the identity,
// nothing is stored); a full tile with both pointers 16-byte aligned
// (vector_ok) moves in 16-byte vectors, anything else element by element,
// guarded by n (missing elements load as the identity, so they do not
// change any fold).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include "libscan/cuda/warp_scan.cuh"

namespace libscan {
namespace detail {

// Shape of one tile: BLOCK threads, IPT items each, loaded as K vectors of V.
template <typename T, int BLOCK, int IPT> struct TileShape {
    static constexpr int V = (sizeof(T) < 16 && 16 % sizeof(T) == 0) ? int(16 / sizeof(T)) : 1;
    static_assert(IPT % V == 0, "libscan: items per thread must be a multiple of the vector width");
    static constexpr int K = IPT / V;
    static constexpr int kTile = BLOCK * IPT;
    static constexpr int kWarpItems = kWarpThreads * IPT;
    // A 16-byte vector holds whole elements: the tile can go through the
    // warp staging area (tile_stage.cuh).
    static constexpr bool kStaged = V * sizeof(T) == 16;
    // A staging area above 40 KiB (leaving room for the block scan's own
    // static shared memory) lives in dynamic shared memory, which the host
    // opts into per kernel (cudaFuncAttributeMaxDynamicSharedMemorySize).
    static constexpr size_t kStageBytes = kStaged ? size_t(kTile) * sizeof(T) : 0;
    static constexpr bool kDynamicStage = kStageBytes > 40960;
};

template <typename T, int V> __device__ __forceinline__ void load_vector(const T *p, T (&dst)[V]) {
    if constexpr (V * sizeof(T) == 16) {
        uint4 r = *reinterpret_cast<const uint4 *>(p);
        memcpy(dst, &r, 16);
    } else {
#pragma unroll
        for (int v = 0; v < V; ++v) dst[v] = p[v];
    }
}
template <typename T, int V> __device__ __forceinline__ void store_vector(T *p, const T (&src)[V]) {
    if constexpr (V * sizeof(T) == 16) {
        uint4 r;
        memcpy(&r, src, 16);
        *reinterpret_cast<uint4 *>(p) = r;
    } else {
#pragma unroll
        for (int v = 0; v < V; ++v) p[v] = src[v];
    }
}

template <typename T, int BLOCK, int IPT, class Op>
__device__ __forceinline__ void load_striped(const T *in, size_t n, bool vector_ok, size_t tile_base, Op op,
                                             T (&items)[TileShape<T, BLOCK, IPT>::K][TileShape<T, BLOCK, IPT>::V]) {
    using Shape = TileShape<T, BLOCK, IPT>;
    constexpr int K = Shape::K, V = Shape::V;
    const size_t first = tile_base + static_cast<size_t>(threadIdx.x / kWarpThreads) * Shape::kWarpItems + lane_id() * V;
    if (tile_base <= n && n - tile_base >= static_cast<size_t>(Shape::kTile) && vector_ok) {
#pragma unroll
        for (int k = 0; k < K; ++k) load_vector<T, V>(in + first + k * kWarpThreads * V, items[k]);
    } else {
#pragma unroll
        for (int k = 0; k < K; ++k)
#pragma unroll
            for (int v = 0; v < V; ++v) {
                const size_t i = first + k * kWarpThreads * V + v;
                items[k][v] = i < n ? in[i] : op.identity();
            }
    }
}

template <typename T, int BLOCK, int IPT>
__device__ __forceinline__ void store_striped(T *out, size_t n, bool vector_ok, size_t tile_base,
                                              const T (&items)[TileShape<T, BLOCK, IPT>::K][TileShape<T, BLOCK, IPT>::V]) {
    using Shape = TileShape<T, BLOCK, IPT>;
    constexpr int K = Shape::K, V = Shape::V;
    const size_t first = tile_base + static_cast<size_t>(threadIdx.x / kWarpThreads) * Shape::kWarpItems + lane_id() * V;
    if (tile_base <= n && n - tile_base >= static_cast<size_t>(Shape::kTile) && vector_ok) {
#pragma unroll
        for (int k = 0; k < K; ++k) store_vector<T, V>(out + first + k * kWarpThreads * V, items[k]);
    } else {
#pragma unroll
        for (int k = 0; k < K; ++k)
#pragma unroll
            for (int v = 0; v < V; ++v) {
                const size_t i = first + k * kWarpThreads * V + v;
                if (i < n) out[i] = items[k][v];
            }
    }
}

} // namespace detail
} // namespace libscan
