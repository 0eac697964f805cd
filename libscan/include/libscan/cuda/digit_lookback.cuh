// digit_lookback.cuh -- decoupled look-back over per-tile digit counts, the
// sorting variant of libscan's tile-status protocol (lookback.cuh).
//
// Protocol. A sorting pass cuts the keys into tiles, numbered in the order
// blocks start (a global atomic counter, as in libscan's device scan, so a
// tile only waits for tiles of blocks already running). Each (tile, digit)
// has one status word: a 2-bit state from libscan::TileStatus in the top bits
// and a count below it (30 bits in a 32-bit word, 62 in a 64-bit one):
//
//   X (kTileInvalid)    nothing yet (the words are zeroed before the pass);
//   A (kTileAggregate)  count = keys of this digit in this tile;
//   P (kTilePrefix)     count = keys of this digit in tiles 0 .. this one.
//
// A word moves X -> A -> P. Thread d of a tile publishes A for digit d as
// soon as the tile is ranked (the first tile of a run publishes P directly:
// tile 0 of a sort, or a segment's first tile in the segmented sort, whose
// runs are independent chains that never read across), then walks back
// over the earlier tiles' words for digit d (a few per round trip), adding A
// counts until it meets a P, and publishes P = (that sum) + own count. Each
// word is one single-copy-atomic relaxed store/load at GPU scope: flag and
// count travel together, so no fence is needed (nothing else is shared
// through these words).
// Counts are integers, so the result does not depend on what the walk saw.
#pragma once

#include <cstdint>
#include "libscan/cuda/lookback.cuh"

namespace libscan::sort {

namespace detail {
__device__ __forceinline__ void st_relaxed(unsigned *p, unsigned v) {
    asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ unsigned ld_relaxed(const unsigned *p) {
    unsigned v;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ void st_relaxed(unsigned long long *p, unsigned long long v) {
    libscan::detail::st_relaxed(p, v);
}
__device__ __forceinline__ unsigned long long ld_relaxed(const unsigned long long *p) {
    return libscan::detail::ld_relaxed(p);
}
} // namespace detail

// W: unsigned (counts < 2^30) or unsigned long long. RADIX digits per tile.
template <typename W, int RADIX> struct DigitLookback {
    static constexpr int kShift = int(sizeof(W) * 8) - 2;
    static constexpr W kCountMask = (W(1) << kShift) - 1;
    W *words; // (tile, digit) at words[tile * RADIX + digit]

    static constexpr size_t bytes(size_t tiles) { return tiles * RADIX * sizeof(W); }

    __device__ __forceinline__ void publish(unsigned tile, int digit, unsigned state, W count) const {
        detail::st_relaxed(words + static_cast<size_t>(tile) * RADIX + digit, (W(state) << kShift) | count);
    }

    // Publishes this tile's count of `digit` (A, or P for the first tile of
    // a run). Call before exclusive() so later tiles can start their walk early.
    __device__ __forceinline__ void publish_count(unsigned tile, int digit, W count, bool first) const {
        publish(tile, digit, first ? libscan::kTilePrefix : libscan::kTileAggregate, count);
    }

    // The number of keys with `digit` in the tiles of this run before `tile`
    // (0 for the run's first tile); publishes P.
    // The walk reads WINDOW words per round trip (the next WINDOW earlier
    // tiles, independent loads), then takes them newest first: A counts add
    // up, a P ends the walk, an X stops the round and the walk resumes there.
    // A wider window costs registers (PassTuning picks it per kernel).
    template <int WINDOW> __device__ __forceinline__ W exclusive(unsigned tile, int digit, W count, bool first) const {
        if (first) return 0;
        W sum = 0;
        long long j = static_cast<long long>(tile) - 1; // newest tile not yet added
        for (;;) {
            W w[WINDOW];
#pragma unroll
            for (int q = 0; q < WINDOW; ++q) // a run's first tile is P: the walk never passes it
                w[q] = j - q >= 0 ? detail::ld_relaxed(words + static_cast<size_t>(j - q) * RADIX + digit) : W(0);
            bool done = false, stalled = false;
#pragma unroll
            for (int q = 0; q < WINDOW; ++q) {
                if (done || stalled) continue;
                const unsigned state = static_cast<unsigned>(w[q] >> kShift);
                if (state == libscan::kTileInvalid) {
                    stalled = true;
                    continue;
                }
                sum += w[q] & kCountMask;
                if (state == libscan::kTilePrefix) done = true;
                else --j;
            }
            if (done) break;
            if (stalled) __nanosleep(8);
        }
        publish(tile, digit, libscan::kTilePrefix, sum + count);
        return sum;
    }
};

} // namespace libscan::sort
