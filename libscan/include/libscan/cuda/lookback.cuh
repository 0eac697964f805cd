// lookback.cuh -- the decoupled look-back tile-status protocol.
//
// Protocol. A device-wide scan cuts the input into tiles, numbered in the
// order blocks *start* (a global atomic counter hands out tile ids, so a tile
// only ever waits for tiles owned by blocks that are already running: forward
// progress needs no assumption about block scheduling). Tiles form groups of
// 32 consecutive tiles. Each tile has one status slot holding a state and a
// value:
//
//   X (invalid)    nothing published yet (the slots are zeroed before launch);
//   A (aggregate)  value = fold of this tile's own elements;
//   P (prefix)     only the last tile of a group: value = G(g), the fold of
//                  everything up to the end of its group g, carry-in included.
//
// A slot only moves X -> A -> P, and each value is written once per state.
// Tile t (group m, position i) scans itself and publishes A. One warp then
// reads its own group and the kLookbackGroups-1 groups before it in one poll
// (lane l of row r holds one tile of one group; one round trip to L2 with
// LOADS_FIRST, up to one per row without: see TileLookback) and polls until it finds
// the newest earlier group whose end shows P (or reaches the carry-in), with
// every slot between that group end and t at least A.
//
// Association (what makes floats deterministic). With s(g) = the warp scan
// (fixed Kogge-Stone order) over the 32 aggregates of group g:
//
//   G(-1) = carry-in,   G(g) = G(g-1) (+) s(g)[31],
//   exclusive prefix of tile t = G(m-1) (+) s(m)[i-1]   (G(m-1) when i = 0).
//
// A tile that finds G(k) published folds s(k+1)[31], ..., s(m-1)[31] onto it
// in order; a P it reads was computed by the same formula, so both routes
// give the same bits whatever the look-back happened to see.
//
// Memory ordering. A slot is sizeof(T)/4 64-bit words; each word carries a
// 32-bit state tag and 32 bits of the value, and is written with one
// st.relaxed.gpu and read with one ld.relaxed.gpu (64-bit aligned accesses
// are single-copy atomic, so a word is never torn). The P words overwrite the
// A words. A reader takes a slot as A or P only when every word shows the
// same tag; a mix (a P store half done) reads as X and is polled again. No
// fences are needed: the protocol shares nothing but these words, and a slot
// costs one round trip to L2 whatever the size of T.
#pragma once

#include <cstdint>
#include "libscan/cuda/warp_scan.cuh"

namespace libscan {

enum TileStatus : unsigned { kTileInvalid = 0, kTileAggregate = 1, kTilePrefix = 2 };

constexpr int kTileGroup = 32;     // tiles per group (one warp lane each)
// Groups read per round trip: this one and 7 before. The groups' P values
// form a chain (a group end publishes P once it has found an earlier one),
// which advances at most kLookbackGroups-1 groups per round trip; with 4
// that chain, not DRAM, set the pace of every look-back kernel once tiles
// are short of work (H100, 2^28 u32: compaction at 1% kept ran at ~63 tiles
// per us whatever the tile size). 8 groups: u64 scan 1520 -> 1457 us, u32
// 742 -> 730 us, select-if 1% 522 -> 448 us (bench/tile_sweep,
// bench/tile_sweep --8byte and bench/compact/compact_sweep, 4 groups
// against 8).
constexpr int kLookbackGroups = 8;

namespace detail {
__device__ __forceinline__ void st_relaxed(unsigned long long *p, unsigned long long v) {
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ unsigned long long ld_relaxed(const unsigned long long *p) {
    unsigned long long v;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
} // namespace detail

// Tile-status storage: sizeof(T)/4 tagged words per tile. The host sizes it
// with bytes() and zeroes all of it before every launch.
template <typename T> struct TileState {
    static constexpr int kWords = detail::Words<T>::N;
    unsigned long long *words; // tile t uses words[t * kWords .. + kWords)

    static constexpr size_t bytes(size_t tiles) { return tiles * kWords * sizeof(unsigned long long); }
    static TileState on(void *base) { return TileState{static_cast<unsigned long long *>(base)}; }

    __device__ __forceinline__ void publish(unsigned tile, unsigned status, const T &value) const {
        detail::Words<T> w = detail::to_words(value);
        unsigned long long *slot = words + static_cast<size_t>(tile) * kWords;
#pragma unroll
        for (int i = 0; i < kWords; ++i)
            detail::st_relaxed(slot + i, (static_cast<unsigned long long>(w.w[i]) << 32) | status);
    }
    // A load is issue() then decode(), so that a poll of many slots can
    // issue every load before it examines any (TileLookback, LOADS_FIRST).
    __device__ __forceinline__ void issue(unsigned tile, unsigned long long (&raw)[kWords]) const {
        const unsigned long long *slot = words + static_cast<size_t>(tile) * kWords;
#pragma unroll
        for (int i = 0; i < kWords; ++i) raw[i] = detail::ld_relaxed(slot + i);
    }
    static __device__ __forceinline__ void decode(const unsigned long long (&raw)[kWords], unsigned &status, T &value) {
        detail::Words<T> w;
        status = static_cast<unsigned>(raw[0]);
#pragma unroll
        for (int i = 0; i < kWords; ++i) {
            w.w[i] = static_cast<unsigned>(raw[i] >> 32);
            if (static_cast<unsigned>(raw[i]) != status) status = kTileInvalid; // torn A->P: poll again
        }
        value = detail::from_words<T>(w);
    }
    __device__ __forceinline__ void load(unsigned tile, unsigned &status, T &value) const {
        unsigned long long raw[kWords];
        issue(tile, raw);
        decode(raw, status, value);
    }
};

// Prefix callback for BlockScan that runs the look-back for one tile. Warp 0
// calls it with the tile's aggregate; it returns the tile's exclusive prefix
// and keeps the inclusive one in `inclusive` (valid in every lane of warp 0).
// `carry_in` must hold the scan's initial value in every tile whose look-back
// can reach before tile 0 (tiles < kTileGroup * (kLookbackGroups - 1)).
//
// LOADS_FIRST: a poll issues the loads of all R rows before it examines any,
// so it costs one round trip to L2. Without it, ptxas (CUDA 13.0) places
// each row's decode before the next row's load: up to R round trips per
// poll. Loading first keeps R raw words per lane live at once, which the
// large scan kernels cannot afford (48 registers at 5 blocks of 256 per SM:
// 2^28 f32 spilled and ran 12 % slower, u64 11 %); the mid-size kernels
// (tuning.cuh, kMidMaxTiles) take it, where the group chain rather than
// bandwidth sets the pace. Either way the association is the same.
template <typename T, class Op, class State, bool LOADS_FIRST = false> struct TileLookback {
    State state;
    unsigned tile;
    Op op;
    T carry_in;
    T inclusive;

    __device__ __forceinline__ T operator()(T aggregate) {
        constexpr int R = kLookbackGroups;
        const int lane = lane_id();
        const long long group = tile / kTileGroup;
        const int pos = static_cast<int>(tile % kTileGroup);
        if (lane == 0) state.publish(tile, kTileAggregate, aggregate);

        // Row r holds group (group - R + 1 + r); row R-1 is this tile's group.
        T v[R];
        int found; // rows back (>= 1) of the group whose G is known; R = none
        // Every poll reads all R rows: a narrower first poll (own group and
        // the previous group's end only) was measured slower, because when
        // that end is not P yet it costs a second round trip.
        for (;;) {
            unsigned x_mask[R], p_end[R];
            unsigned long long raw[LOADS_FIRST ? R : 1][State::kWords];
            if constexpr (LOADS_FIRST) {
#pragma unroll
                for (int r = 0; r < R; ++r) {
                    const long long g = group - (R - 1) + r;
                    if (r == R - 1 ? lane < pos : g >= 0) state.issue(static_cast<unsigned>(g * kTileGroup + lane), raw[r]);
                }
            }
#pragma unroll
            for (int r = 0; r < R; ++r) {
                const long long g = group - (R - 1) + r;
                unsigned st = kTileAggregate;
                v[r] = op.identity();
                if constexpr (LOADS_FIRST) {
                    if (r == R - 1 && lane == pos) v[r] = aggregate;
                    if (r == R - 1 ? lane < pos : g >= 0) State::decode(raw[r], st, v[r]);
                } else if (r == R - 1) {
                    if (lane == pos) v[r] = aggregate;
                    else if (lane < pos) state.load(static_cast<unsigned>(g * kTileGroup + lane), st, v[r]);
                } else if (g >= 0) {
                    state.load(static_cast<unsigned>(g * kTileGroup + lane), st, v[r]);
                }
                x_mask[r] = __ballot_sync(kFullMask, st == kTileInvalid);
                p_end[r] = __ballot_sync(kFullMask, st == kTilePrefix) >> 31;
            }
            found = R;
            bool ready = x_mask[R - 1] == 0;
#pragma unroll
            for (int q = 1; q < R; ++q) {
                const int r = R - 1 - q;
                if (found < R) continue;
                if (group - q < 0 || p_end[r]) found = q; // G(group - q) known
                else if (x_mask[r]) ready = false;        // a group still being published
            }
            if (ready && found < R) break;
            __nanosleep(20); // measured: 0..100 ns all the same, 300+ slower
        }

        // G(group - found), then fold the group totals after it, in order.
        T acc;
        if (group - found < 0) acc = carry_in;
        else acc = WarpScan<T>::Broadcast(v[R - 1 - found], kWarpThreads - 1);
#pragma unroll
        for (int q = R - 1; q >= 1; --q) {
            if (q >= found) continue;
            T total;
            WarpScan<T>::InclusiveScan(v[R - 1 - q], op, total);
            acc = op(acc, total);
        }
        T mine = WarpScan<T>::InclusiveScan(v[R - 1], op);
        T before = WarpScan<T>::Broadcast(mine, pos > 0 ? pos - 1 : 0);
        T excl = pos > 0 ? op(acc, before) : acc;
        inclusive = op(acc, WarpScan<T>::Broadcast(mine, pos));
        if (pos == kTileGroup - 1 && lane == 0) state.publish(tile, kTilePrefix, inclusive);
        return excl;
    }
};

} // namespace libscan
