// msd_sort.cuh -- the device side of the radix sort's MSD path: 4- and
// 8-byte keys without values sorted over the whole key (sort.h), in three
// moves of the keys instead of the onesweep passes' four (eight), with
// ballots for one byte (five) where the passes rank three (seven); and its
// stable form for 4-byte keys with 4-byte values, three moves of keys and
// values instead of four (below, "The stable path").
//
// Keys without values sorted over the whole key may be ordered any way
// that ends sorted: keys that tie on all 32 bits are equal bit for bit (the
// codec is a bijection) and nothing travels with them. So:
//   1. msd_hist_kernel: one read of the keys counts the top 16 bits of each
//      mapped key (65536 buckets; two 16-bit counters a shared word, 128 KB
//      a block, a counter that reaches 2^15 hands 2^15 to the global count),
//      and, for 4-byte keys, the onesweep passes' digits (MsdState::lsd_hist:
//      the two low bytes counted, the two high ones summed from the
//      buckets), so that a path not taken does not read the keys again;
//   2. msd_row_scan_kernel, msd_rows_kernel, msd_offsets_kernel: where each
//      bucket starts (a scan of each top-byte row, then of the rows), where
//      pass B's tiles start, and the decision: the MSD path is taken when no
//      bucket holds more keys than the local sort sorts in one block
//      (*taken = 1); otherwise every later MSD kernel returns at once and
//      the onesweep passes, launched behind them, sort (they skip when
//      taken: HistogramParams::skip, digit_base_kernel's kSkipTile);
//   3. msd_partition_kernel<false> (pass A): keys -> alt by the top byte,
//      in any order: a tile ranks its keys with one shared atomic each,
//      each digit's run of the tile takes its place with one global atomic
//      on the digit's cursor (no look-back: the order of tiles inside a
//      digit does not matter here), and leaves through shared memory in
//      runs, as a onesweep pass;
//   4. msd_partition_kernel<true> (pass B): alt -> out by the second byte
//      inside each top-byte row (a tile never straddles two rows; cursors
//      per bucket);
//   5. msd_local_kernel: each bucket, now contiguous in out, is sorted in
//      place in shared memory by the bits below the top 16: the low byte in
//      any order (shared atomics), then each higher byte stably (one ballot
//      per digit bit, warp counters in item order, as onesweep.cuh's ranking).
// Three writes of the keys: in -> alt -> out -> out, so the result ends in
// keys_out as the four passes' does (sort_internal.h's plan), for the
// double buffer too.
// The kernels loop grid-stride, but are launched with a block per tile or
// bucket, which measured faster than grids of the resident blocks
// (sort_tuning.cuh, MsdTuning); a path not taken then costs the blocks'
// launches, ~0.03-0.08 ms a kernel at 2^28 keys (H200).
#pragma once

#include <cuda_runtime.h>
#include <cstddef>
#include <cstdint>

#include "libscan/cuda/block_scan.cuh"
#include "libscan/cuda/ops.cuh"
#include "libscan/cuda/onesweep.cuh" // Codec, warp_peers, peer_leader, rank_in_warp, warp offsets
#include "libscan/cuda/sort_tuning.cuh"

namespace libscan::sort {

constexpr int kMsdBuckets = 1 << 16;
constexpr int kMsdRows = 256;

// Exclusive sum of one value per thread over a block (libscan::BlockScan);
// *total (when given) gets the block's sum in every thread. Every thread of
// the block must call it; `temp` is free again when it returns.
template <int BLOCK> using MsdScan = libscan::BlockScan<unsigned, BLOCK>;
template <int BLOCK>
__device__ __forceinline__ unsigned msd_block_exclusive(unsigned v, typename MsdScan<BLOCK>::TempStorage &temp,
                                                        unsigned *total) {
    unsigned items[1] = {v}, sum;
    MsdScan<BLOCK>(temp).ExclusiveScan(items, libscan::Sum<unsigned>(), sum);
    if (total) *total = sum;
    __syncthreads(); // temp may be reused at once
    return items[0];
}

// The warps' counts of each digit (rank_in_warp's: a row a warp) become
// where each warp's items of the digit start in the block's order, by digit
// and then by warp; ends with a barrier. Every thread of the block calls it.
template <int WARPS, int BLOCK>
__device__ __forceinline__ void msd_warp_offsets(unsigned (*counts)[kRadix], typename MsdScan<BLOCK>::TempStorage &temp) {
    const int t = threadIdx.x;
    const unsigned c = t < kRadix ? warp_offsets_of_digit<WARPS>(counts, t) : 0u;
    const unsigned start = msd_block_exclusive<BLOCK>(c, temp, nullptr);
    if (t < kRadix) add_warp_offsets<WARPS>(counts, t, start);
    __syncthreads();
}

// The MSD path's state in the sort's scratch (all zeroed before launch but
// what the kernels write before reading).
struct MsdState {
    unsigned *hist;       // [65536] counts of the top 16 mapped bits
    unsigned *local;      // [65536] exclusive scan inside each row
    unsigned *offsets;    // [65537] where each bucket starts in the output
    unsigned *cursors;    // [65536 + 256] pass B's per bucket, then pass A's per row
    unsigned *row_total;  // [256]
    unsigned *tile_first; // [257] pass B's first tile of each row, and the total
    unsigned *too_big;    // a bucket holds more than the local sort's block: not taken
    unsigned *taken;      // written by msd_rows_kernel: 1 = the MSD path sorts
    // The stable path's (pairs), set by msd_pass_digits_kernel: the digit
    // shift of its launches of pass A and pass B, and pass A's digit starts
    // (where each row starts); the onesweep passes' first two when the path
    // is not taken.
    unsigned *pass_shift;          // [2]
    unsigned long long *row_start; // [256]
    // The stable path's local sort by bins (msd_local_pairs_kernel): the
    // buckets it leaves to msd_crowded_pairs_kernel, and their count.
    unsigned *crowded;       // [65536]
    unsigned *crowded_count;
    // Null, or (4-byte keys) the onesweep passes' histogram (onesweep.cuh's
    // HistogramParams::hist, [4][256], zeroed before launch), which the MSD
    // path then fills so that a path not taken reads the keys once:
    // msd_hist_kernel counts the two low bytes, and the two high ones come
    // from the top-16-bit counts (the second byte's summed over rows by
    // msd_row_scan_kernel, the top byte's are the rows' by msd_rows_kernel).
    unsigned long long *lsd_hist;
};

// Where MsdState's arrays lie in the sort's scratch, in 4-byte words.
struct MsdLayout {
    static constexpr size_t kHist = 0;
    static constexpr size_t kLocal = kHist + kMsdBuckets;
    static constexpr size_t kOffsets = kLocal + kMsdBuckets;
    static constexpr size_t kCursors = kOffsets + kMsdBuckets + 64;
    static constexpr size_t kRowTotal = kCursors + kMsdBuckets + kMsdRows;
    static constexpr size_t kTileFirst = kRowTotal + kMsdRows;
    static constexpr size_t kFlags = kTileFirst + kMsdRows + 64;
    static constexpr size_t kPassShift = kFlags + 2;
    static constexpr size_t kCrowdedCount = kFlags + 4;
    static constexpr size_t kRowStart = kFlags + 64; // 8-byte words: an even offset
    static constexpr size_t kCrowded = kRowStart + 2 * kMsdRows;
    static constexpr size_t kWords = kCrowded + kMsdBuckets;
    static constexpr size_t kBytes = kWords * 4;
    static_assert(kRowStart % 2 == 0, "libscan::sort: row starts are 8-byte words");
};
__host__ inline MsdState msd_state_at(void *scratch) {
    unsigned *w = static_cast<unsigned *>(scratch);
    return MsdState{w + MsdLayout::kHist,     w + MsdLayout::kLocal,     w + MsdLayout::kOffsets,
                    w + MsdLayout::kCursors,  w + MsdLayout::kRowTotal,  w + MsdLayout::kTileFirst,
                    w + MsdLayout::kFlags,    w + MsdLayout::kFlags + 1, w + MsdLayout::kPassShift,
                    reinterpret_cast<unsigned long long *>(w + MsdLayout::kRowStart),
                    w + MsdLayout::kCrowded,  w + MsdLayout::kCrowdedCount, nullptr};
}

// 1. Counts of the top 16 mapped bits, and (lsd_hist, 4-byte keys) of the
// passes' two low bytes. Dynamic shared memory: 128 KB.
template <typename K, class Tuning = MsdTuning<int(sizeof(K))>>
__global__ void __launch_bounds__(Tuning::kHistThreads) msd_hist_kernel(const K *keys, size_t n, Codec<K> codec,
                                                                            unsigned *hist,
                                                                            unsigned long long *lsd_hist) {
    static_assert(sizeof(K) == 4 || sizeof(K) == 8, "libscan::sort: the MSD path sorts 4- and 8-byte keys");
    constexpr int V = 16 / int(sizeof(K)); // keys per 16-byte vector
    constexpr bool kLow = sizeof(K) == 4;  // MsdState::lsd_hist: 4-byte keys only
    extern __shared__ unsigned s_pairs[]; // 32768 words: bucket b in half b & 1 of word b >> 1
    __shared__ unsigned s_low[kLow ? 2 : 1][kRadix]; // the passes' counts of the two low bytes
    const bool low = kLow && lsd_hist != nullptr;    // the same for the whole grid
    for (int i = threadIdx.x; i < kMsdBuckets / 2; i += blockDim.x) s_pairs[i] = 0;
    if (low)
        for (int i = threadIdx.x; i < 2 * kRadix; i += blockDim.x) (&s_low[0][0])[i] = 0;
    __syncthreads();
    // Adds c to bucket b's half. Exactly one add takes a half across 2^15:
    // it moves 2^15 to the global count, so that a half never carries into
    // the other (before that move lands, the other threads add at most
    // 1023 x 32 more: the half stays under 2^16).
    auto add = [&](unsigned b, unsigned c) {
        const unsigned sh = (b & 1u) * 16u;
        const unsigned old = (atomicAdd(&s_pairs[b >> 1], c << sh) >> sh) & 0xffffu;
        if (old < 0x8000u && old + c >= 0x8000u) {
            atomicSub(&s_pairs[b >> 1], 0x8000u << sh);
            atomicAdd(&hist[b], 0x8000u);
        }
    };
    auto bucket = [&](K m) { return unsigned(m >> (8 * sizeof(K) - 16)); }; // of a mapped key
    // The passes' low bytes (MsdState::lsd_hist) of c keys whose low 16 bits are lo.
    auto count_low = [&](unsigned lo, unsigned c) {
        atomicAdd(&s_low[0][lo & 0xffu], c);
        atomicAdd(&s_low[kLow ? 1 : 0][(lo >> 8) & 0xffu], c);
    };
    // Each add returns the old count (for the check above), so adds of one
    // warp on one word serialise. A warp whose lanes' keys fall in at most
    // 4 buckets (equal, few-distinct, sorted keys) therefore adds each
    // bucket's lanes at once, found by __match_any_sync. Whether it does is
    // probed every kProbeEvery vectors (a match of 32 distinct buckets stalls
    // the warp: probing every vector made the whole sort of 2^28 uniform u32
    // keys 4.18 -> 4.85 ms on the H200).
    // A lane without a vector votes with kNone and adds nothing. The low
    // bytes' counters (when counted) take one atomic a key: adding them by
    // matches too, probed the same way by the low 16 bits, cost 2-distinct
    // u32 pairs 0.66 -> 0.78 ms and uniform ones 0.54 -> 0.57 ms for this
    // kernel (H200, 2^28, ncu).
    constexpr unsigned kNone = kMsdBuckets;
    constexpr int kProbeEvery = 16;
    const int lane = threadIdx.x & 31;
    int probe_in = 0;
    bool few = false;
    auto count_vector = [&](bool valid, const K (&ks)[V]) {
        unsigned bs[V], lo[V];
#pragma unroll
        for (int j = 0; j < V; ++j) {
            const K m = codec.map(ks[j]);
            bs[j] = valid ? bucket(m) : kNone;
            lo[j] = unsigned(m) & 0xffffu;
        }
        if (probe_in == 0) {
            const unsigned peers = __match_any_sync(libscan::kFullMask, bs[0]);
            few = __popc(__ballot_sync(libscan::kFullMask, lane == peer_leader(peers))) <= 4;
            probe_in = kProbeEvery;
        }
        --probe_in;
        if (few) {
#pragma unroll
            for (int j = 0; j < V; ++j) {
                const unsigned pj = __match_any_sync(libscan::kFullMask, bs[j]);
                if (lane == peer_leader(pj) && bs[j] != kNone) add(bs[j], unsigned(__popc(pj)));
            }
        } else if (valid) {
#pragma unroll
            for (int j = 0; j < V; ++j) add(bs[j], 1u);
        }
        if (low && valid) {
#pragma unroll
            for (int j = 0; j < V; ++j) count_low(lo[j], 1u);
        }
    };
    const size_t stride = size_t(gridDim.x) * blockDim.x;
    size_t head = 0; // keys before the first 16-byte boundary, counted one by one
    if (reinterpret_cast<uintptr_t>(keys) % 16 != 0) head = (16 - reinterpret_cast<uintptr_t>(keys) % 16) / sizeof(K);
    if (head > n) head = n;
    const size_t vectors = (n - head) / V;
    const uint4 *vec = reinterpret_cast<const uint4 *>(keys + head);
    // Whole warps take the vectors (the matches need every lane): the
    // loop runs while the warp's first lane has one.
    const size_t warp_first = size_t(blockIdx.x) * blockDim.x + (threadIdx.x & ~31u);
    // Each lane loads its next vector before counting this one: two loads in
    // flight a lane, not one (H200, 2^28 keys, otherwise the same library:
    // the sort of u64 keys 0.17 ms faster, of u32 keys 0.01; bench/results/
    // 2026-11-29-h200-skip-waste).
    auto load = [&](size_t v) { return v < vectors ? vec[v] : make_uint4(0u, 0u, 0u, 0u); };
    uint4 r = load(warp_first + unsigned(lane));
    for (size_t v0 = warp_first; v0 < vectors; v0 += stride) {
        const size_t v = v0 + unsigned(lane);
        const uint4 next = load(v + stride);
        K ks[V];
        memcpy(ks, &r, 16);
        count_vector(v < vectors, ks);
        r = next;
    }
    const size_t tail = head + vectors * V;
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < head + (n - tail); i += stride) {
        const K m = codec.map(keys[i < head ? i : tail + (i - head)]);
        add(bucket(m), 1u);
        if (low) count_low(unsigned(m) & 0xffffu, 1u);
    }
    __syncthreads();
    if (low)
        for (int i = threadIdx.x; i < 2 * kRadix; i += blockDim.x) {
            const unsigned c = (&s_low[0][0])[i];
            if (c) atomicAdd(lsd_hist + i, static_cast<unsigned long long>(c));
        }
    for (int i = threadIdx.x; i < kMsdBuckets / 2; i += blockDim.x) {
        const unsigned w = s_pairs[i];
        if (w & 0xffffu) atomicAdd(&hist[2 * i], w & 0xffffu);
        if (w >> 16) atomicAdd(&hist[2 * i + 1], w >> 16);
    }
}

// 2a. Row r (top byte r) of 256 buckets: its exclusive scan and total, and
// whether a bucket is too large for msd_local_kernel.
template <int CAPACITY>
__global__ void __launch_bounds__(256) msd_row_scan_kernel(MsdState s) {
    __shared__ typename MsdScan<256>::TempStorage s_scan;
    const unsigned i = blockIdx.x * 256u + threadIdx.x;
    const unsigned c = s.hist[i];
    if (c > unsigned(CAPACITY)) *s.too_big = 1u;
    // The passes' second byte (MsdState::lsd_hist): the buckets' counts summed over rows.
    if (s.lsd_hist && c) atomicAdd(s.lsd_hist + 2 * kRadix + threadIdx.x, static_cast<unsigned long long>(c));
    unsigned total;
    s.local[i] = msd_block_exclusive<256>(c, s_scan, &total);
    if (threadIdx.x == 0) s.row_total[blockIdx.x] = total;
}

// 2b. One block of 256: row starts (pass A's cursors, and the stable
// path's digit starts), pass B's tile prefix over rows (TILE: pass B's
// tile), and the decision.
template <int TILE> __global__ void __launch_bounds__(256) msd_rows_kernel(MsdState s) {
    __shared__ typename MsdScan<256>::TempStorage s_scan;
    const int t = threadIdx.x;
    const unsigned size = s.row_total[t];
    const unsigned start = msd_block_exclusive<256>(size, s_scan, nullptr);
    s.cursors[kMsdBuckets + t] = start;
    s.row_start[t] = start;
    const unsigned tiles = (size + TILE - 1) / TILE;
    unsigned total;
    const unsigned first = msd_block_exclusive<256>(tiles, s_scan, &total);
    s.tile_first[t] = first;
    if (s.lsd_hist) s.lsd_hist[3 * kRadix + t] = size; // the passes' top byte: the rows' counts
    if (t == 0) {
        s.tile_first[kMsdRows] = total;
        *s.taken = *s.too_big == 0u ? 1u : 0u;
    }
}

// 2c. Bucket starts: row start + place inside the row; pass B's cursors.
__global__ void __launch_bounds__(256) msd_offsets_kernel(MsdState s, unsigned n) {
    const unsigned i = blockIdx.x * 256u + threadIdx.x;
    const unsigned o = s.cursors[kMsdBuckets + blockIdx.x] + s.local[i];
    s.offsets[i] = o;
    s.cursors[i] = o;
    if (i == 0) s.offsets[kMsdBuckets] = n;
}

// 3/4. Any-order partition by one byte (pass A: the top byte of the whole
// array; PASS_B: the second byte inside each top-byte row). Tiles are
// handed out grid-stride; a tile's digit runs take their places from the
// cursors with one global atomic per digit present.
template <typename K, bool PASS_B, class Tuning = MsdTuning<int(sizeof(K))>>
__global__ void __launch_bounds__(Tuning::kPartThreads, Tuning::kPartMinBlocks)
    msd_partition_kernel(const K *in, K *out, unsigned n, Codec<K> codec, MsdState s) {
    // Pass A maps each key as it loads it; from then on keys travel mapped
    // (alt and out hold mapped keys until msd_local_kernel unmaps them), so
    // a digit is a shift and a mask.
    constexpr int BLOCK = Tuning::kPartThreads, IPT = Tuning::kPartItems, TILE = BLOCK * IPT;
    constexpr unsigned kShift = unsigned(8 * sizeof(K)) - (PASS_B ? 16u : 8u);
    static_assert(BLOCK >= kRadix, "libscan::sort: a thread per digit");
    __shared__ K s_keys[TILE];
    __shared__ unsigned s_count[kRadix], s_start[kRadix], s_base[kRadix];
    __shared__ typename MsdScan<BLOCK>::TempStorage s_scan;
    if (*s.taken == 0u) return;
    const int t = threadIdx.x;
    const unsigned tiles = PASS_B ? s.tile_first[kMsdRows] : (n + TILE - 1) / TILE;
    for (unsigned tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        unsigned base, valid, row = 0;
        if constexpr (PASS_B) {
            // The row holding this tile: the last whose first tile is <= it.
            unsigned lo = 0, hi = kMsdRows;
            while (hi - lo > 1) {
                const unsigned mid = (lo + hi) / 2;
                if (s.tile_first[mid] <= tile) lo = mid;
                else hi = mid;
            }
            row = lo;
            const unsigned row_begin = s.offsets[row << 8], row_end = s.offsets[(row + 1) << 8];
            base = row_begin + (tile - s.tile_first[row]) * unsigned(TILE);
            valid = min(unsigned(TILE), row_end - base);
        } else {
            base = tile * unsigned(TILE);
            valid = min(unsigned(TILE), n - base);
        }
        if (t < kRadix) s_count[t] = 0;
        __syncthreads();
        K keys[IPT];
        unsigned short rank[IPT];
        // Every load before the first atomic: an atomic between two loads
        // would wait for the first load's latency.
#pragma unroll
        for (int k = 0; k < IPT; ++k) {
            const unsigned i = unsigned(k * BLOCK + t);
            keys[k] = i < valid ? in[base + i] : K(0);
        }
        if constexpr (!PASS_B) {
#pragma unroll
            for (int k = 0; k < IPT; ++k) keys[k] = codec.map(keys[k]);
        }
        auto digit = [&](K key) { return unsigned(key >> kShift) & 0xffu; };
        // A rank is one shared atomic, in any order. Adds of one warp on one
        // counter serialise, so a warp whose first items show at most
        // kFewDigits digits (sorted or few-distinct keys) adds each digit's
        // lanes at once, found by __match_any_sync (padding: digit kRadix,
        // never added).
        const int lane = t & 31;
        auto digit_at = [&](int k) { return unsigned(k * BLOCK + t) < valid ? digit(keys[k]) : unsigned(kRadix); };
        // The probe votes (ALU) rather than matches: a match's latency
        // stalls the warp where most warps see many digits.
        const bool leads = lane == peer_leader(warp_peers<kRadixBits + 1>(digit_at(0)));
        if (__popc(__ballot_sync(libscan::kFullMask, leads)) <= Tuning::kFewDigits) {
#pragma unroll
            for (int k = 0; k < IPT; ++k) {
                const unsigned d = digit_at(k);
                const unsigned peers = __match_any_sync(libscan::kFullMask, d);
                const int leader = peer_leader(peers);
                unsigned before = 0;
                if (lane == leader && d < unsigned(kRadix)) before = atomicAdd(&s_count[d], unsigned(__popc(peers)));
                before = __shfl_sync(libscan::kFullMask, before, leader);
                rank[k] = static_cast<unsigned short>(before + unsigned(__popc(peers & ((1u << lane) - 1u))));
            }
        } else {
#pragma unroll
            for (int k = 0; k < IPT; ++k)
                if (unsigned(k * BLOCK + t) < valid)
                    rank[k] = static_cast<unsigned short>(atomicAdd(&s_count[digit(keys[k])], 1u));
        }
        __syncthreads();
        const unsigned c = t < kRadix ? s_count[t] : 0u;
        const unsigned start = msd_block_exclusive<BLOCK>(c, s_scan, nullptr);
        if (t < kRadix) {
            s_start[t] = start;
            if (c) s_base[t] = atomicAdd(&s.cursors[PASS_B ? (row << 8) | unsigned(t) : kMsdBuckets + t], c) - start;
        }
        __syncthreads();
        unsigned place[IPT]; // every read of s_start before the first store
#pragma unroll
        for (int k = 0; k < IPT; ++k) place[k] = s_start[digit(keys[k])] + rank[k];
#pragma unroll
        for (int k = 0; k < IPT; ++k)
            if (unsigned(k * BLOCK + t) < valid) s_keys[place[k]] = keys[k];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < IPT; ++k) {
            const unsigned i = unsigned(k * BLOCK + t);
            if (i < valid) {
                const K key = s_keys[i];
                out[s_base[digit(key)] + i] = key;
            }
        }
        __syncthreads(); // s_keys and the counts are free for the next tile
    }
}

// 5. Each bucket sorted in place by the bits of its mapped keys below the
// top 16 (as pass B left them), one block a bucket (grid-stride over the
// 65536 buckets), and written back unmapped.
template <typename K, class Tuning = MsdTuning<int(sizeof(K))>>
__global__ void __launch_bounds__(Tuning::kLocalThreads, Tuning::kLocalMinBlocks)
    msd_local_kernel(K *keys, Codec<K> codec, MsdState s) {
    constexpr int BLOCK = Tuning::kLocalThreads, IPT = Tuning::kLocalItems, WARPS = BLOCK / 32;
    static_assert(BLOCK >= kRadix, "libscan::sort: a thread per digit");
    static_assert(32 * IPT < 65536, "libscan::sort: warp ranks are kept in 16 bits");
    __shared__ K s_keys[BLOCK * IPT];
    __shared__ unsigned s_count[kRadix];
    __shared__ unsigned s_warp_count[WARPS][kRadix];
    __shared__ typename MsdScan<BLOCK>::TempStorage s_scan;
    if (*s.taken == 0u) return;
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    for (unsigned b = blockIdx.x; b < unsigned(kMsdBuckets); b += gridDim.x) {
        const unsigned begin = s.offsets[b];
        const int m = int(s.offsets[b + 1] - begin); // at most BLOCK x IPT: msd_row_scan_kernel's check
        if (m == 0) continue;
        K *g = keys + begin;
        if (m == 1) { // nothing to order, but the key is still mapped
            if (t == 0) g[0] = codec.unmap(g[0]);
            continue;
        }
        if (t < kRadix) s_count[t] = 0;
        for (int i = t; i < WARPS * kRadix; i += BLOCK) (&s_warp_count[0][0])[i] = 0;
        __syncthreads();

        // The low byte, in any order.
        K k0[IPT];
        unsigned short r0[IPT];
#pragma unroll
        for (int k = 0; k < IPT; ++k)
            k0[k] = k * BLOCK + t < m ? g[k * BLOCK + t] : K(0);
#pragma unroll
        for (int k = 0; k < IPT; ++k)
            if (k * BLOCK + t < m)
                r0[k] = static_cast<unsigned short>(atomicAdd(&s_count[unsigned(k0[k]) & 0xffu], 1u));
        __syncthreads();
        {
            const unsigned c = t < kRadix ? s_count[t] : 0u;
            const unsigned start = msd_block_exclusive<BLOCK>(c, s_scan, nullptr);
            if (t < kRadix) s_count[t] = start;
            __syncthreads();
        }
        unsigned place[IPT];
#pragma unroll
        for (int k = 0; k < IPT; ++k) place[k] = s_count[unsigned(k0[k]) & 0xffu] + r0[k];
#pragma unroll
        for (int k = 0; k < IPT; ++k)
            if (k * BLOCK + t < m) s_keys[place[k]] = k0[k];
        __syncthreads();

        // Every higher byte below pass B's (the second byte of 4-byte keys,
        // bytes 1..5 of 8-byte ones), stably: warp-striped items in order,
        // peers by ballots, the warp's counters advanced by the highest peer.
        const int warp_base = warp * 32 * IPT;
        for (unsigned shift = 8; shift < unsigned(8 * sizeof(K)) - 16u; shift += 8) {
            if (shift > 8) { // the first byte's counters were zeroed with the low byte's
                for (int i = t; i < WARPS * kRadix; i += BLOCK) (&s_warp_count[0][0])[i] = 0;
                __syncthreads();
            }
            K k1[IPT];
            unsigned short r1[IPT];
            auto digit1 = [&](K key) { return unsigned(key >> shift) & 0xffu; };
            if (warp_base < m) {
#pragma unroll
                for (int k = 0; k < IPT; ++k) {
                    const int i = warp_base + k * 32 + lane;
                    // Padding ranks as digit 255 after every real key of the
                    // warp (later in item order), and is never stored.
                    k1[k] = i < m ? s_keys[i] : K(0);
                }
                auto digit_at = [&](int k) { return warp_base + k * 32 + lane < m ? digit1(k1[k]) : 0xffu; };
                rank_in_warp<kRadixBits, IPT, 0>(digit_at, s_warp_count[warp], lane, r1);
            }
            __syncthreads();
            msd_warp_offsets<WARPS, BLOCK>(s_warp_count, s_scan);
            if (warp_base < m) {
#pragma unroll
                for (int k = 0; k < IPT; ++k) place[k] = s_warp_count[warp][digit1(k1[k])] + r1[k];
#pragma unroll
                for (int k = 0; k < IPT; ++k)
                    if (warp_base + k * 32 + lane < m) s_keys[place[k]] = k1[k];
            }
            __syncthreads();
        }
        for (int i = t; i < m; i += BLOCK) g[i] = codec.unmap(s_keys[i]);
        __syncthreads(); // shared memory is free for the next bucket
    }
}

// ---- The stable path: 4-byte keys with 4-byte values ------------------
// Values make the order of equal keys visible, so each move keeps it:
// pass A and pass B are onesweep.cuh's pass_kernel (ranks in item order,
// look-back) over the tiles below, and the local sort orders each bucket
// by its 16 low bits and then by slot (5'), or ranks both bytes in item
// order (5''). The histogram, the scans and the decision are the keys
// path's. Keys travel as they are (pass_kernel maps a key to take its
// digit); the local sort maps them on load and unmaps them on store.
// Passes A and B are launched as the onesweep passes' first two, on their
// tile counters and look-back words: when the path is not taken, the same
// launches run those passes (msd_pass_digits_kernel sets their digits and
// starts on the device, digit_base_kernel leaves their counters unmarked),
// so that a path not taken launches nothing in vain but the local sorts,
// and a path taken skips two passes, not four.
// Pass A: FlatTiles (the whole array, one run) with the digit from the
// device: the top byte, whose keys start at MsdState::row_start.
struct MsdFlatTiles : FlatTiles {
    const unsigned *shift; // MsdState::pass_shift
    template <typename K> __device__ __forceinline__ Digit<K> digit(const Digit<K> &d) const {
        return Digit<K>{d.codec, *shift, d.mask};
    }
};

// Pass B's tiles: each top-byte row cut into tiles from its start
// (msd_rows_kernel's tile_first), each row a run of the look-back (its
// first tile publishes its prefix at once); digit d of row r starts where
// bucket (r, d) does.
// Not taken, msd_pass_digits_kernel makes it the passes' second: every
// tile in row 255, which starts at 0, ends at n, and whose buckets start
// where the second pass's digits do.
struct MsdBucketTiles {
    static constexpr bool kIdentityPasses = true; // the passes' second may be the identity
    const unsigned *offsets;    // MsdState::offsets
    const unsigned *tile_first; // MsdState::tile_first
    const unsigned *shift;      // MsdState::pass_shift + 1
    template <typename K> __device__ __forceinline__ Digit<K> digit(const Digit<K> &d) const {
        return Digit<K>{d.codec, *shift, d.mask};
    }
    template <int TILE> __device__ __forceinline__ TileAt at(unsigned tile) const {
        // The row: one less than the rows whose first tile is at most this
        // one (tile_first[0] = 0); each lane compares 8 rows, one round trip
        // where a binary search would take eight.
        const int lane = threadIdx.x & 31;
        unsigned c = 0;
#pragma unroll
        for (int j = 0; j < kMsdRows / 32; ++j) c += tile_first[lane * (kMsdRows / 32) + j] <= tile ? 1u : 0u;
        const unsigned row = __reduce_add_sync(libscan::kFullMask, c) - 1u;
        if (tile >= tile_first[kMsdRows]) return TileAt{0, 0, false, 0, 0};
        const unsigned row_begin = offsets[row << 8], row_end = offsets[(row + 1) << 8];
        const unsigned base = row_begin + (tile - tile_first[row]) * unsigned(TILE);
        const unsigned valid = min(unsigned(TILE), row_end - base);
        return TileAt{base, int(valid), tile == tile_first[row], row_begin, row};
    }
    __device__ __forceinline__ unsigned long long start(const TileAt &a, int digit) const {
        return offsets[(unsigned(a.slot) << 8) | unsigned(digit)];
    }
};

// 2d'. The stable path's launches of passes A and B: their digits (the top
// two bytes of K-byte keys) when it is taken; else the onesweep passes'
// first two, with their starts (hist: digit_base_kernel's, in place) and
// pass B's tiles made flat (MsdBucketTiles). One block of 256; TILE: the
// passes' tile.
template <typename K, int TILE>
__global__ void __launch_bounds__(256) msd_pass_digits_kernel(MsdState s, const unsigned long long *hist, unsigned n) {
    const int t = threadIdx.x;
    if (*s.taken) {
        if (t == 0) {
            s.pass_shift[0] = unsigned(8 * sizeof(K)) - 8u;
            s.pass_shift[1] = unsigned(8 * sizeof(K)) - 16u;
        }
        return;
    }
    s.row_start[t] = hist[t];
    s.offsets[((kMsdRows - 1) << 8) | t] = static_cast<unsigned>(hist[kRadix + t]);
    s.tile_first[t] = 0;
    if (t == 0) {
        s.tile_first[kMsdRows] = (n + TILE - 1) / TILE;
        s.pass_shift[0] = 0;
        s.pass_shift[1] = kRadixBits;
    }
}

// 5'. Each bucket sorted stably in place, keys and values, by the 16 bits
// of its mapped keys below the top 16 (4-byte keys), by bins, and buckets
// whose bins are crowded by bytes (5'').
// Buckets start anywhere; each block reads and writes whole 128-byte lines
// all the same (a warp's 32 keys spanning two lines cost 5 sectors for 4):
// item j of its window is key begin - lead + j, where lead puts the window
// on a line. Hence the capacity check's kLocalSlack: a bucket of m keys
// needs m + lead slots. (Alone on 2^28 pairs, buckets that start anywhere
// took 2.804 ms against 2.769 for buckets on 16-byte boundaries, bench/
// results/2026-11-29-h200x2-42d969e.)
template <typename K, typename V> struct MsdWindow {
    K *gk; // the window: keys begin - lead ...
    V *gv;
    int lead, end; // the bucket is window items [lead, end)
    __device__ __forceinline__ MsdWindow(K *keys, V *values, unsigned begin, int m) {
        constexpr int kLine = 128 / int(sizeof(K));
        lead = int((reinterpret_cast<uintptr_t>(keys + begin) / sizeof(K)) % unsigned(kLine));
        end = lead + m;
        gk = keys + begin - lead;
        gv = values + begin - lead;
    }
    __device__ __forceinline__ bool holds(int j) const { return j >= lead && j < end; }
};

// By bins. Ranking bytes in item order (5'') waits on shared memory, not
// on global memory (sort_tuning.cuh, MsdPairsTuning), so here each key
// takes as few scattered shared accesses as can order it. Its 16 low bits
// and its window slot make one word (bits << 16 | slot), unique in the
// bucket and ordered as the stable order is; the values wait in shared
// memory at their window slots. One shared atomic a key counts the top
// kLocalBinBits of those bits (4096 bins for ~4096 keys) and hands the key
// a slot in its bin; a scan of the bins places the words in their bins;
// each word's place is then its bin's start and the count of the bin's
// smaller words (most bins hold one or two), and its value is fetched by
// its slot on the way out. Four scattered shared accesses a key (the
// atomic, its bin's end, the word, the value) where ranking two bytes in
// item order takes ten or more. A bucket with a bin of more than
// kLocalMaxBin keys (keys whose low bits are few) is left to 5'': its
// number joins MsdState::crowded.
// Dynamic shared memory (msd_local_pairs_shared): the words, the values,
// the bins.
template <class Tuning> __host__ __device__ constexpr size_t msd_local_pairs_shared(size_t key_bytes, size_t value_bytes) {
    return size_t(Tuning::kLocalThreads) * Tuning::kLocalItems * (key_bytes + value_bytes) +
           (size_t(1) << Tuning::kLocalBinBits) * sizeof(unsigned);
}
template <typename K, typename V, class Tuning = MsdPairsTuning>
__global__ void __launch_bounds__(Tuning::kLocalThreads, Tuning::kLocalMinBlocks)
    msd_local_pairs_kernel(K *keys, V *values, Codec<K> codec, MsdState s) {
    constexpr int BLOCK = Tuning::kLocalThreads, IPT = Tuning::kLocalItems;
    constexpr int kBins = 1 << Tuning::kLocalBinBits, RUN = kBins / BLOCK;
    constexpr int kBinShift = 32 - Tuning::kLocalBinBits;
    static_assert(sizeof(K) == 4, "libscan::sort: a key's 16 low bits and its slot make one word");
    static_assert(BLOCK * IPT <= 65536, "libscan::sort: a slot fits the word's 16 low bits");
    static_assert(Tuning::kLocalSlack == 128 / int(sizeof(K)) - 1, "libscan::sort: the slack is a line's keys but one");
    static_assert(RUN % 4 == 0 && Tuning::kLocalBinBits <= 16, "libscan::sort: the bins scan in runs of 16-byte vectors");
    static_assert(BLOCK * IPT * sizeof(K) % sizeof(V) == 0 && BLOCK * IPT * sizeof(V) % sizeof(uint4) == 0,
                  "libscan::sort: the shared arrays stay aligned");
    extern __shared__ uint4 s_dyn[];
    K *s_words = reinterpret_cast<K *>(s_dyn);
    V *s_values = reinterpret_cast<V *>(s_words + BLOCK * IPT);
    unsigned *s_bins = reinterpret_cast<unsigned *>(s_values + BLOCK * IPT);
    __shared__ typename MsdScan<BLOCK>::TempStorage s_scan;
    if (*s.taken == 0u) return;
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const int warp_base = warp * 32 * IPT; // items warp-striped: item k of a lane is warp_base + k x 32 + lane
    uint4 *run = reinterpret_cast<uint4 *>(s_bins + t * RUN);
    for (unsigned b = blockIdx.x; b < unsigned(kMsdBuckets); b += gridDim.x) {
        const unsigned begin = s.offsets[b];
        const int m = int(s.offsets[b + 1] - begin); // m + lead <= BLOCK x IPT: msd_row_scan_kernel's check
        if (m <= 1) continue;                        // in place, as it is
        const MsdWindow<K, V> w(keys, values, begin, m);
#pragma unroll
        for (int i = 0; i < RUN / 4; ++i) run[i] = make_uint4(0, 0, 0, 0);
        __syncthreads();
        // Keys to registers (16 low mapped bits over the bin's slot), values
        // to their window slots, bins counted.
        K kk[IPT];
#pragma unroll
        for (int k = 0; k < IPT; ++k) {
            const int j = warp_base + k * 32 + lane;
            kk[k] = w.holds(j) ? codec.map(w.gk[j]) << 16 : K(0);
        }
#pragma unroll
        for (int k = 0; k < IPT; ++k) {
            const int j = warp_base + k * 32 + lane;
            if (w.holds(j)) s_values[j] = w.gv[j];
        }
#pragma unroll
        for (int k = 0; k < IPT; ++k) {
            const int j = warp_base + k * 32 + lane;
            if (w.holds(j)) kk[k] |= K(atomicAdd(&s_bins[unsigned(kk[k]) >> kBinShift], 1u)); // < 2^16 slots
        }
        __syncthreads();
        // The bins' inclusive ends, each thread's run of RUN bins at once.
        unsigned sum = 0, most = 0;
#pragma unroll
        for (int i = 0; i < RUN / 4; ++i) {
            uint4 v = run[i];
            most = max(max(most, max(v.x, v.y)), max(v.z, v.w));
            v.x += sum, v.y += v.x, v.z += v.y, v.w += v.z, sum = v.w;
            run[i] = v;
        }
        const unsigned start = msd_block_exclusive<BLOCK>(sum, s_scan, nullptr);
        if (__syncthreads_or(most > unsigned(Tuning::kLocalMaxBin))) {
            if (t == 0) s.crowded[atomicAdd(s.crowded_count, 1u)] = b;
            continue; // (nothing was written but the block's own shared memory)
        }
#pragma unroll
        for (int i = 0; i < RUN / 4; ++i) {
            const uint4 v = run[i];
            run[i] = make_uint4(v.x + start, v.y + start, v.z + start, v.w + start);
        }
        __syncthreads();
        // Each word (bits << 16 | window slot) into its bin, in the atomics' order.
#pragma unroll
        for (int k = 0; k < IPT; ++k) {
            const int j = warp_base + k * 32 + lane;
            if (w.holds(j))
                s_words[s_bins[unsigned(kk[k]) >> kBinShift] - 1u - (unsigned(kk[k]) & 0xffffu)] =
                    (kk[k] & K(0xffff0000u)) | K(j);
        }
        __syncthreads();
        // Each word's place moves it a few slots at most: a warp still
        // writes whole lines, as it read them.
        const K top = K(b) << 16; // the bucket's bits
        for (int j = w.lead + t; j < w.end; j += BLOCK) {
            const K word = s_words[j - w.lead];
            const unsigned bin = unsigned(word) >> kBinShift;
            const unsigned first = bin ? s_bins[bin - 1] : 0u, last = s_bins[bin];
            unsigned place = unsigned(j - w.lead);
            if (last - first > 1u) {
                place = first;
                for (unsigned q = first; q < last; ++q) place += s_words[q] < word ? 1u : 0u;
            }
            w.gk[w.lead + place] = codec.unmap(top | (word >> 16));
            w.gv[w.lead + place] = s_values[unsigned(word) & 0xffffu];
        }
        __syncthreads(); // shared memory is free for the next bucket
    }
}

// 5''. The buckets of MsdState::crowded sorted stably in place, keys and
// values, by the bits of their mapped keys below the top 16: every byte
// ranked in item order (peers through the warp's table of masks in shared
// memory, warp counters: onesweep.cuh's rank_in_warp_masks) from the
// lowest, items kept in registers between the bytes. The window's `lead`
// items before the bucket rank first (as digit 0, every byte: they come
// first in item order), the items after it last (digit 255), so that key i
// of the bucket lands at lead + its place and is never displaced by one
// outside. A kernel apart from 5' so that each keeps its own registers:
// inside one, this one's cost the other spills. Launched on the blocks the
// GPU holds at once, which find no bucket when none is crowded.
// Dynamic shared memory (msd_crowded_pairs_shared): the block's keys, its
// values, the warps' counters and their tables of masks.
template <class Tuning> __host__ __device__ constexpr size_t msd_crowded_pairs_shared(size_t key_bytes, size_t value_bytes) {
    return size_t(Tuning::kCrowdedThreads) * Tuning::kCrowdedItems * (key_bytes + value_bytes) +
           size_t(2) * (Tuning::kCrowdedThreads / 32) * kRadix * sizeof(unsigned);
}
template <typename K, typename V, class Tuning = MsdPairsTuning>
__global__ void __launch_bounds__(Tuning::kCrowdedThreads, Tuning::kCrowdedMinBlocks)
    msd_crowded_pairs_kernel(K *keys, V *values, Codec<K> codec, MsdState s) {
    constexpr int BLOCK = Tuning::kCrowdedThreads, IPT = Tuning::kCrowdedItems, WARPS = BLOCK / 32;
    constexpr unsigned kBits = unsigned(8 * sizeof(K)) - 16u; // below the buckets' bits
    static_assert(BLOCK * IPT == Tuning::kLocalThreads * Tuning::kLocalItems, "libscan::sort: both hold a bucket");
    static_assert(BLOCK >= kRadix, "libscan::sort: a thread per digit");
    static_assert(32 * IPT < 65536, "libscan::sort: warp ranks are kept in 16 bits");
    static_assert(BLOCK * IPT * sizeof(K) % sizeof(V) == 0 && BLOCK * IPT * sizeof(V) % sizeof(unsigned) == 0,
                  "libscan::sort: the shared arrays stay aligned");
    extern __shared__ uint4 s_dyn[];
    K *s_keys = reinterpret_cast<K *>(s_dyn);
    V *s_values = reinterpret_cast<V *>(s_keys + BLOCK * IPT);
    unsigned(*s_warp_count)[kRadix] = reinterpret_cast<unsigned(*)[kRadix]>(s_values + BLOCK * IPT);
    unsigned(*s_masks)[kRadix] = s_warp_count + WARPS;
    __shared__ typename MsdScan<BLOCK>::TempStorage s_scan;
    const unsigned crowded = *s.crowded_count; // final: 5' has run
    if (blockIdx.x >= crowded) return;
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const int warp_base = warp * 32 * IPT;
    for (int i = t; i < WARPS * kRadix; i += BLOCK) (&s_masks[0][0])[i] = 0; // and zero after every rank
    for (unsigned c = blockIdx.x; c < crowded; c += gridDim.x) {
        const unsigned b = s.crowded[c];
        const unsigned begin = s.offsets[b];
        const MsdWindow<K, V> w(keys, values, begin, int(s.offsets[b + 1] - begin));
        auto digit_at = [&](int j, K key, unsigned shift) {
            return j < w.lead ? 0u : j < w.end ? unsigned(key >> shift) & 0xffu : 0xffu;
        };
        K kk[IPT];
        V vv[IPT];
        unsigned short rank[IPT];
#pragma unroll
        for (int k = 0; k < IPT; ++k) {
            const int j = warp_base + k * 32 + lane;
            kk[k] = w.holds(j) ? codec.map(w.gk[j]) : K(0);
        }
#pragma unroll
        for (int k = 0; k < IPT; ++k) {
            const int j = warp_base + k * 32 + lane;
            vv[k] = w.holds(j) ? w.gv[j] : V(0);
        }
#pragma unroll 1
        for (unsigned shift = 0; shift < kBits; shift += kRadixBits) {
            for (int i = t; i < WARPS * kRadix; i += BLOCK) (&s_warp_count[0][0])[i] = 0;
            __syncthreads();
            auto digit_of = [&](int k) { return digit_at(warp_base + k * 32 + lane, kk[k], shift); };
            if (warp_base < w.end) rank_in_warp_masks<IPT>(digit_of, s_warp_count[warp], s_masks[warp], lane, rank);
            __syncthreads();
            msd_warp_offsets<WARPS, BLOCK>(s_warp_count, s_scan);
            if (warp_base < w.end) {
#pragma unroll
                for (int k = 0; k < IPT; ++k) {
                    const int j = warp_base + k * 32 + lane;
                    if (w.holds(j)) { // the window's others keep their slots: never read
                        const unsigned place = s_warp_count[warp][digit_of(k)] + rank[k];
                        s_keys[place] = kk[k];
                        s_values[place] = vv[k];
                    }
                }
            }
            __syncthreads();
            if (shift + kRadixBits < kBits) { // the next byte ranks the order this one left
#pragma unroll
                for (int k = 0; k < IPT; ++k) {
                    const int j = warp_base + k * 32 + lane;
                    kk[k] = w.holds(j) ? s_keys[j] : K(0);
                    vv[k] = w.holds(j) ? s_values[j] : V(0);
                }
            }
        }
        for (int j = t; j < w.end; j += BLOCK) {
            if (j < w.lead) continue;
            w.gk[j] = codec.unmap(s_keys[j]);
            w.gv[j] = s_values[j];
        }
        __syncthreads(); // shared memory is free for the next bucket
    }
}

} // namespace libscan::sort
