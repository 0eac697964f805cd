// lookback.cuh -- the decoupled look-back tile-status protocol.
//
// Protocol. A device-wide scan cuts the input into tiles, numbered in the
// order blocks *start* (a global atomic counter hands out tile ids, so a tile
// only ever waits for tiles owned by blocks that are already running: forward
// progress needs no assumption about block scheduling). Each tile has one
// status slot holding a state and a value:
//
//   X (invalid)    nothing published yet (the slots are zeroed before launch);
//   A (aggregate)  value = fold of this tile's own elements;
//   P (prefix)     value = fold of every element up to and including this tile
//                  (the carry-in of the scan included).
//
// A slot only moves X -> A -> P or X -> P, and each value is written once.
// Tile t: scans itself, publishes A(aggregate) (tile 0 publishes P at once),
// then one warp inspects the 32 predecessors t-32 .. t-1 at a time, waiting
// while any slot above the newest P is still X. When a window holds a P it
// folds forward from the newest P; when it holds only A's, it steps 32 tiles
// further back. Then t publishes P(exclusive prefix (+) aggregate).
//
// Determinism. The exclusive prefix is always computed as a strict left fold
// walking *forward* from the P found: acc = P_p, then acc = acc (+) A_j for
// j = p+1 .. t-1, and acc = P_j whenever slot j already shows P. Because every
// P_j is itself that same left fold (by induction from tile 0), both give
// bitwise the same value, so float results do not depend on which state the
// look-back happened to see.
//
// Memory ordering. Two layouts:
//  * packed (4-byte values): state and value share one 64-bit word written
//    with st.relaxed.gpu and read with ld.relaxed.gpu; a single-copy-atomic
//    64-bit access needs no further ordering.
//  * split (other sizes): values live in two arrays (aggregates, prefixes)
//    and the state in a 32-bit word. The writer stores the value, then the
//    state with st.release.gpu; the reader loads the state with
//    ld.acquire.gpu and only then the value slot named by that state, so it
//    sees the value the release published. Separate A and P slots mean a
//    reader never sees a value overwritten under it.
#pragma once

#include <cstdint>
#include "libscan/cuda/warp_scan.cuh"

namespace libscan {

enum TileStatus : unsigned { kTileInvalid = 0, kTileAggregate = 1, kTilePrefix = 2 };

namespace detail {
__device__ __forceinline__ void st_relaxed(unsigned long long *p, unsigned long long v) {
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ unsigned long long ld_relaxed(const unsigned long long *p) {
    unsigned long long v;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ void st_relaxed(unsigned *p, unsigned v) {
    asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ unsigned ld_relaxed(const unsigned *p) {
    unsigned v;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ void st_release(unsigned *p, unsigned v) {
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ unsigned ld_acquire(const unsigned *p) {
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
// Values of any size, one relaxed 32-bit word at a time.
template <typename T> __device__ __forceinline__ void st_value(T *p, const T &v) {
    Words<T> w = to_words(v);
#pragma unroll
    for (int i = 0; i < Words<T>::N; ++i) st_relaxed(reinterpret_cast<unsigned *>(p) + i, w.w[i]);
}
template <typename T> __device__ __forceinline__ T ld_value(const T *p) {
    Words<T> w;
#pragma unroll
    for (int i = 0; i < Words<T>::N; ++i) w.w[i] = ld_relaxed(reinterpret_cast<const unsigned *>(p) + i);
    return from_words<T>(w);
}
} // namespace detail

// Tile-status storage. Device code sees it through publish() and load(); the
// host sizes it with bytes() and zeroes the first zero_bytes() of it (the
// tile counter and the states) before every launch.
template <typename T, bool PACKED = (sizeof(T) == 4)> struct TileState;

template <typename T> struct TileState<T, true> {
    unsigned long long *words;

    static constexpr size_t bytes(size_t tiles) { return tiles * sizeof(unsigned long long); }
    static constexpr size_t zero_bytes(size_t tiles) { return bytes(tiles); }
    static TileState on(void *base, size_t) { return TileState{static_cast<unsigned long long *>(base)}; }

    __device__ __forceinline__ void publish(unsigned tile, unsigned status, const T &value) const {
        unsigned bits;
        memcpy(&bits, &value, 4);
        detail::st_relaxed(words + tile, (static_cast<unsigned long long>(bits) << 32) | status);
    }
    __device__ __forceinline__ void load(unsigned tile, unsigned &status, T &value) const {
        unsigned long long w = detail::ld_relaxed(words + tile);
        status = static_cast<unsigned>(w);
        unsigned bits = static_cast<unsigned>(w >> 32);
        memcpy(&value, &bits, 4);
    }
};

template <typename T> struct TileState<T, false> {
    unsigned *status;
    T *aggregates;
    T *prefixes;

    static constexpr size_t align_up(size_t b) { return (b + 255) & ~size_t(255); }
    static constexpr size_t bytes(size_t tiles) { return align_up(tiles * 4) + 2 * align_up(tiles * sizeof(T)); }
    static constexpr size_t zero_bytes(size_t tiles) { return tiles * 4; }
    static TileState on(void *base, size_t tiles) {
        char *b = static_cast<char *>(base);
        TileState s;
        s.status = reinterpret_cast<unsigned *>(b);
        s.aggregates = reinterpret_cast<T *>(b + align_up(tiles * 4));
        s.prefixes = reinterpret_cast<T *>(b + align_up(tiles * 4) + align_up(tiles * sizeof(T)));
        return s;
    }

    __device__ __forceinline__ void publish(unsigned tile, unsigned st, const T &value) const {
        detail::st_value(st == kTilePrefix ? prefixes + tile : aggregates + tile, value);
        detail::st_release(status + tile, st);
    }
    __device__ __forceinline__ void load(unsigned tile, unsigned &st, T &value) const {
        st = detail::ld_acquire(status + tile);
        if (st == kTilePrefix) value = detail::ld_value(prefixes + tile);
        else if (st == kTileAggregate) value = detail::ld_value(aggregates + tile);
    }
};

// Prefix callback for BlockScan that runs the look-back for one tile. Warp 0
// calls it with the tile's aggregate; it returns the tile's exclusive prefix
// (the carry-in for tile 0) and publishes the tile's inclusive prefix, which
// it also keeps in `inclusive` (valid in lane 0 of warp 0).
template <typename T, class Op, class State> struct TileLookback {
    State state;
    unsigned tile;
    Op op;
    T carry_in; // used by tile 0 only
    T inclusive;

    __device__ __forceinline__ T operator()(T aggregate) {
        const int lane = lane_id();
        T excl;
        if (tile == 0) {
            excl = carry_in;
        } else {
            if (lane == 0) state.publish(tile, kTileAggregate, aggregate);
            excl = ExclusivePrefix();
        }
        inclusive = op(excl, aggregate);
        if (lane == 0) state.publish(tile, kTilePrefix, inclusive);
        return excl;
    }

    // Warp-wide: the left fold of everything before `tile` (see the top).
    __device__ __forceinline__ T ExclusivePrefix() const {
        const int lane = lane_id();
        long long base = static_cast<long long>(tile) - kWarpThreads;
        unsigned st;
        T v;
        int newest_p;
        for (;;) {
            // Wait until no slot above the newest P of this window is X.
            for (;;) {
                long long idx = base + lane;
                if (idx >= 0) {
                    state.load(static_cast<unsigned>(idx), st, v);
                } else { // before tile 0: an empty prefix
                    st = kTilePrefix;
                    v = op.identity();
                }
                unsigned p_mask = __ballot_sync(kFullMask, st == kTilePrefix);
                unsigned x_mask = __ballot_sync(kFullMask, st == kTileInvalid);
                newest_p = p_mask ? 31 - __clz(p_mask) : -1;
                unsigned above = newest_p >= 0 ? (x_mask >> newest_p) : x_mask;
                if (above == 0) break;
            }
            if (newest_p >= 0) break;
            base -= kWarpThreads; // all 32 were A: look further back
        }
        // Fold forward from the newest P in this window ...
        T acc = WarpScan<T>::Broadcast(v, newest_p);
        for (int j = newest_p + 1; j < kWarpThreads; ++j) acc = op(acc, WarpScan<T>::Broadcast(v, j));
        // ... then through the later windows, which held only A's when seen.
        for (base += kWarpThreads; base < static_cast<long long>(tile); base += kWarpThreads) {
            state.load(static_cast<unsigned>(base + lane), st, v);
            unsigned p_mask = __ballot_sync(kFullMask, st == kTilePrefix);
            for (int j = 0; j < kWarpThreads; ++j) {
                T x = WarpScan<T>::Broadcast(v, j);
                acc = ((p_mask >> j) & 1u) ? x : op(acc, x);
            }
        }
        return acc;
    }
};

} // namespace libscan
