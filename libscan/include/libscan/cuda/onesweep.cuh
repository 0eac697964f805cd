// onesweep.cuh -- the device side of the radix sort: key mapping, the upfront
// histogram of every pass, its scan, and the one-kernel-per-pass sort.
//
// One sort of P 8-bit passes is
//   1. histogram_kernel: one read of the keys counts, for every pass, how many
//      keys have each digit (P x 256 counters; a sort that tries the MSD path
//      with 4-byte keys gets them from its count instead, msd_sort.cuh);
//   2. digit_base_kernel: an exclusive scan of each pass's 256 counts with
//      libscan::BlockScan gives where each digit's keys start in the output;
//   3. per pass, pass_kernel: a block takes the next tile (atomic counter;
//      where the tile's keys lie and which run of tiles its look-back walks
//      come from a Tiles policy: FlatTiles below for the whole array, the
//      segmented sort's SegmentTiles for one segment each), loads its keys
//      warp-striped (key k of lane l of warp w is tile item
//      w*32*IPT + k*32 + l, so every load is coalesced), ranks each key among
//      the equal digits of its warp (peers found by one ballot per digit bit
//      or by __match_any_sync, PassTuning's mix; warp-private counters, in
//      item order: this is what makes the sort stable), turns
//      the per-warp counts into tile offsets (per digit over warps, then a
//      libscan::BlockScan over digits), publishes its digit counts and learns
//      each digit's offset from the earlier tiles by look-back
//      (digit_lookback.cuh), then scatters keys (and values) through shared
//      memory so that consecutive threads write consecutive outputs of one
//      digit (keys and values each through its own buffer, moved out by one
//      loop, where PassTuning's kSplitValues says so).
//      The first pass of a sort of keys without values over the whole key
//      (and of each large segment's sort, segmented_sort.cuh) ranks in any
//      order instead (ANY_ORDER: one shared atomic a key, no peers to find):
//      keys that tie on every pass there are equal bit for bit, so the
//      output is the stable sort's all the same.
//      A pass whose digit is the same for every key (one digit's bin holds
//      all n keys in the upfront histogram: all-equal keys, or keys that
//      differ only outside this pass's bits) is the identity permutation:
//      digit_base_kernel marks its tile counter, so every block of it learns
//      so from the atomic that gives it its tile, copies that tile from src
//      to dst in 16-byte vectors and returns, with no ranking, no look-back
//      and no status word (kIdentityTile).
//      A pass whose keys hold 2 to kUniformTileDigits digits is marked too
//      (kFewDigitsTile): there, in the kernels that take PassTuning's
//      kUniformTiles, a full tile whose keys all share one digit skips the
//      ranking and both exchanges, looks back as any tile and writes its
//      keys (and values) from registers in their order.
#pragma once

#include <cuda_runtime.h>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "libscan/cuda/block_scan.cuh"
#include "libscan/cuda/digit_lookback.cuh"
#include "libscan/cuda/dynamic_shared.cuh"
#include "libscan/cuda/sort_tuning.cuh"

namespace libscan::sort {

// Keys are handled as their raw unsigned bits K (uint8/16/32/64_t).
// mapped(x) = x ^ xor_all ^ (sign(x) ? xor_neg : 0), where
//   unsigned: xor_all = 0,        xor_neg = 0
//   signed:   xor_all = sign bit, xor_neg = 0
//   float:    xor_all = sign bit, xor_neg = ~sign bit (negative: all bits flip)
// and descending complements xor_all.
template <typename K> struct Codec {
    K xor_all;
    K xor_neg;
    __host__ __device__ __forceinline__ K map(K x) const {
        // All ones where x is negative, without a branch or a select.
        const K neg = static_cast<K>(static_cast<std::make_signed_t<K>>(x) >> (sizeof(K) * 8 - 1));
        return static_cast<K>(x ^ xor_all ^ (neg & xor_neg));
    }
    // The key whose map() is m: xor_neg never holds the sign bit, so x's
    // sign is that of m ^ xor_all.
    __host__ __device__ __forceinline__ K unmap(K m) const {
        const K y = static_cast<K>(m ^ xor_all);
        const K neg = static_cast<K>(static_cast<std::make_signed_t<K>>(y) >> (sizeof(K) * 8 - 1));
        return static_cast<K>(y ^ (neg & xor_neg));
    }
};

// One pass's digit: bits [shift, shift + 8) of the mapped key, masked.
template <typename K> struct Digit {
    Codec<K> codec;
    unsigned shift;
    unsigned mask;
    // Pass `pass` of a sort of bits [begin_bit, end_bit) (pass < its passes):
    // 8 bits from begin_bit + 8 x pass, fewer in a last pass that ends at end_bit.
    __host__ __device__ static Digit of_pass(const Codec<K> &codec, unsigned begin_bit, unsigned end_bit, int pass) {
        const unsigned shift = begin_bit + unsigned(pass) * kRadixBits;
        const unsigned bits = end_bit - shift < unsigned(kRadixBits) ? end_bit - shift : unsigned(kRadixBits);
        return Digit{codec, shift, (1u << bits) - 1u};
    }
    __device__ __forceinline__ unsigned operator()(K x) const { return of_mapped(codec.map(x)); }
    // The digit of a key already mapped (codec.map), for a kernel that maps
    // a key once for all of its passes (segmented_sort.cuh's histogram).
    __device__ __forceinline__ unsigned of_mapped(K m) const {
        return static_cast<unsigned>(static_cast<K>(m >> shift)) & mask;
    }
};

struct NoValues {};

// ---- 1. histogram of all passes ------------------------------------------

template <typename K> struct HistogramParams {
    const K *keys;
    size_t n;
    Codec<K> codec;
    unsigned first_shift; // begin_bit
    unsigned end_bit;
    int passes;
    unsigned long long *hist; // [passes][kRadix], zeroed before launch
    // Null, or a flag the MSD path sets on the device when it sorts
    // (msd_sort.cuh's MsdState::taken): then the kernel counts nothing.
    const unsigned *skip;
};

// Each block counts into shared histograms, PARTS copies per pass taken by
// lane % PARTS so that lanes with equal digits rarely hit one address, and
// adds them to the global counts at the end. A round loads IPT keys per
// thread with 16-byte vectors where aligned; the per-pass shifts and masks
// are fixed for the launch and the pass loop is unrolled, so a key costs a
// shift, a mask and one shared atomic per pass. Policy (HistogramTuning
// holds the one the sort uses; bench/radixsort/histogram_sweep times others):
//   kBlockThreads, kItemsPerThread, kParts;
//   kPartMinor:  copies of one digit side by side ([pass][digit][part]), else
//                whole histograms one after another ([pass][part][digit]);
//   kUniformVote: a warp whose 32 keys are equal adds 32 once instead of 32
//                atomics on one address (one shuffle and one vote per key).
template <typename K, class Policy>
__global__ void __launch_bounds__(Policy::kBlockThreads) histogram_kernel(const HistogramParams<K> p) {
    constexpr int BLOCK = Policy::kBlockThreads, IPT = Policy::kItemsPerThread, kParts = Policy::kParts;
    constexpr int kPasses = int(sizeof(K)) * 8 / kRadixBits < kMaxPasses ? int(sizeof(K)) * 8 / kRadixBits : kMaxPasses;
    constexpr int V = 16 / int(sizeof(K)); // keys per 16-byte vector
    static_assert(IPT % V == 0, "libscan::sort: histogram items per thread must fill whole vectors");
    if (p.skip && *p.skip) return;
    __shared__ unsigned s_hist[kPasses][kParts * kRadix];
    for (int i = threadIdx.x; i < kPasses * kParts * kRadix; i += BLOCK) (&s_hist[0][0])[i] = 0;
    __syncthreads();
    // Counter of digit d in this thread's copy: s_hist[pass][d * dstride + poff].
    const int lane = threadIdx.x & 31, part = lane % kParts;
    constexpr int dstride = Policy::kPartMinor ? kParts : 1;
    const int poff = Policy::kPartMinor ? part : part * kRadix;

    // Digit::of_pass's shifts and masks, written out: taken from of_pass
    // (or with its select in place of min), the u32 kernel took 49-52
    // registers instead of 42 (ptxas -v, sm_90, CUDA 13.0).
    unsigned shift[kPasses], mask[kPasses];
#pragma unroll
    for (int pass = 0; pass < kPasses; ++pass) {
        shift[pass] = p.first_shift + unsigned(pass) * kRadixBits;
        const unsigned bits = pass < p.passes ? min(unsigned(kRadixBits), p.end_bit - shift[pass]) : 0u;
        mask[pass] = (1u << bits) - 1u;
        if (pass >= p.passes) shift[pass] = 0;
    }
    const bool vec_ok = reinterpret_cast<uintptr_t>(p.keys) % 16 == 0;

    constexpr size_t kChunk = size_t(BLOCK) * IPT;
    for (size_t base = size_t(blockIdx.x) * kChunk; base < p.n; base += size_t(gridDim.x) * kChunk) {
        K keys[IPT];
        unsigned ok = 0; // bit k: keys[k] is an input key
        if (vec_ok && p.n - base >= kChunk) {
#pragma unroll
            for (int v = 0; v < IPT / V; ++v) {
                const uint4 r = reinterpret_cast<const uint4 *>(p.keys + base)[size_t(v) * BLOCK + threadIdx.x];
                memcpy(&keys[v * V], &r, 16);
            }
            ok = IPT == 32 ? ~0u : (1u << IPT) - 1u;
        } else {
#pragma unroll
            for (int k = 0; k < IPT; ++k) {
                // Same positions as the vector path: vector v of thread t.
                const size_t i = base + (size_t(k / V) * BLOCK + threadIdx.x) * V + k % V;
                keys[k] = i < p.n ? p.keys[i] : K(0);
                if (i < p.n) ok |= 1u << k;
            }
        }
#pragma unroll
        for (int k = 0; k < IPT; ++k) {
            const K m = p.codec.map(keys[k]);
            const bool valid = (ok >> k) & 1u;
            bool uniform = false;
            if constexpr (Policy::kUniformVote) {
                // Every lane takes part in the shuffle: no short-circuit around it.
                const K first = static_cast<K>(__shfl_sync(libscan::kFullMask, m, 0));
                uniform = __all_sync(libscan::kFullMask, valid && m == first);
            }
#pragma unroll
            for (int pass = 0; pass < kPasses; ++pass) {
                if (pass >= p.passes) break;
                const unsigned d = static_cast<unsigned>(m >> shift[pass]) & mask[pass];
                if (uniform) {
                    if (lane == 0) atomicAdd(&s_hist[pass][d * dstride], 32u);
                } else if (valid) {
                    atomicAdd(&s_hist[pass][d * dstride + poff], 1u);
                }
            }
        }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < p.passes * kRadix; i += BLOCK) {
        const int pass = i / kRadix, d = i % kRadix;
        unsigned c = 0;
#pragma unroll
        for (int q = 0; q < kParts; ++q) c += s_hist[pass][Policy::kPartMinor ? d * kParts + q : q * kRadix + d];
        if (c) atomicAdd(p.hist + i, static_cast<unsigned long long>(c));
    }
}

// Blocks of histogram_kernel<K, Policy> for n keys on `sms` SMs: enough to
// cover the keys once, at most Policy::kBlocksPerSm per SM (grid-stride).
template <class Policy> inline unsigned histogram_blocks(size_t n, int sms) {
    const size_t chunk = size_t(Policy::kBlockThreads) * Policy::kItemsPerThread;
    const size_t chunks = (n + chunk - 1) / chunk;
    const size_t cap = size_t(sms > 0 ? sms : 1) * Policy::kBlocksPerSm;
    return static_cast<unsigned>(chunks < cap ? chunks : cap);
}

// ---- 2. where each digit starts, per pass --------------------------------

// Set in a pass's tile counter before the pass runs when the pass is the
// identity permutation (one digit holds all n keys): every block of the pass
// learns it from the atomic that hands it its tile, at no extra latency.
// Tile numbers stay below it (the launch checks).
constexpr unsigned kIdentityTile = 0x80000000u;
// Set instead when the pass's keys hold more than one digit but at most
// kUniformTileDigits (sort_tuning.cuh): only then may a block look for a tile
// of one digit (PassTuning's kUniformTiles). Tile numbers stay below it too.
constexpr unsigned kFewDigitsTile = 0x40000000u;
// Set instead when the MSD path sorts (msd_sort.cuh): every block of the
// pass returns at once. Tile numbers stay below it too.
constexpr unsigned kSkipTile = 0x20000000u;
constexpr unsigned kTileMarks = kIdentityTile | kFewDigitsTile | kSkipTile;

// One block of kRadix threads per pass; in place over hist[pass][*]. The
// digit whose count is n marks the pass's tile counter (kIdentityTile), or
// thread 0 marks a pass of few digits (kFewDigitsTile; never both: a pass
// of one digit has no second); the counters were zeroed before the
// histogram. skip: null, or the MSD path's flag (HistogramParams::skip):
// when set, the pass is marked kSkipTile and nothing else is done, but for
// the first msd_passes passes, whose launches then run the MSD path's
// passes (msd_sort.cuh's stable path): their counters stay zero. A
// template (of nothing) so that every file including this header may
// instantiate it: a plain kernel would be defined once per file and not
// link.
template <int RADIX = kRadix>
__global__ void __launch_bounds__(RADIX) digit_base_kernel(unsigned long long *hist, unsigned *tile_counters,
                                                            size_t n, const unsigned *skip, int msd_passes) {
    if (skip && *skip) { // the same for the whole block: before any barrier
        if (threadIdx.x == 0 && int(blockIdx.x) >= msd_passes) tile_counters[blockIdx.x] = kSkipTile;
        return;
    }
    using Scan = libscan::BlockScan<unsigned long long, RADIX>;
    __shared__ typename Scan::TempStorage temp;
    unsigned long long *row = hist + size_t(blockIdx.x) * RADIX;
    unsigned long long v[1] = {row[threadIdx.x]};
    const int digits = __syncthreads_count(v[0] != 0);
    if (v[0] == static_cast<unsigned long long>(n)) tile_counters[blockIdx.x] = kIdentityTile;
    else if (threadIdx.x == 0 && digits > 1 && digits <= kUniformTileDigits) tile_counters[blockIdx.x] = kFewDigitsTile;
    Scan(temp).ExclusiveScan(v, libscan::Sum<unsigned long long>());
    row[threadIdx.x] = v[0];
}

// A pass's look-back words zeroed (`vectors` 16-byte words) unless *skip
// is set: the MSD path sorted, so the pass they are for returns at once
// (kSkipTile) and a memset would spend its time in vain (44.7 MB before
// each pass of 2^28 u32/u32 pairs). A template (of nothing), as
// digit_base_kernel.
template <int BLOCK = 256>
__global__ void __launch_bounds__(BLOCK) zero_unless_skipped_kernel(uint4 *words, size_t vectors, const unsigned *skip) {
    if (*skip) return;
    const size_t stride = size_t(gridDim.x) * BLOCK;
    for (size_t i = size_t(blockIdx.x) * BLOCK + threadIdx.x; i < vectors; i += stride)
        words[i] = make_uint4(0u, 0u, 0u, 0u);
}

// ---- 3. one pass -----------------------------------------------------------

// Where a pass's tile lies: keys [base, base + valid) (valid 0: no such
// tile, the block has nothing to do), whether it is the first tile of its
// run (the chain its look-back walks: the whole array, or one segment), and
// what the run's digit starts are found from (Tiles::start).
struct TileAt {
    size_t base;
    int valid;
    bool first;
    size_t run_base; // the run's first key
    size_t slot;     // the run's row of digit counts (segmented_sort.cuh)
};

// The plain sort's tiles: tile t holds keys [t * TILE, min(n, (t + 1) *
// TILE)), all of them one run.
struct FlatTiles {
    static constexpr bool kIdentityPasses = true; // digit_base_kernel may mark a pass as the identity
    size_t n;
    const unsigned long long *digit_base; // kRadix starts of this pass

    // The pass's digit: the launch's (a policy may take it from the device
    // instead: msd_sort.cuh's MsdFlatTiles).
    template <typename K> __device__ __forceinline__ Digit<K> digit(const Digit<K> &d) const { return d; }

    template <int TILE> __device__ __forceinline__ TileAt at(unsigned tile) const {
        const size_t base = size_t(tile) * TILE;
        const size_t left = base < n ? n - base : 0;
        return TileAt{base, int(left < size_t(TILE) ? left : size_t(TILE)), tile == 0, 0, 0};
    }
    // Where the keys of `digit` start in the pass's output.
    __device__ __forceinline__ unsigned long long start(const TileAt &, int digit) const { return digit_base[digit]; }
};

template <typename K, typename V, typename W, typename Tiles = FlatTiles> struct PassParams {
    const K *keys_in;
    K *keys_out;
    const V *values_in; // unused when V is NoValues or iota_values
    V *values_out;
    bool iota_values;   // value of key i = i (argsort's first pass)
    Tiles tiles;
    Digit<K> digit;
    unsigned *tile_counter;            // zeroed before launch
    DigitLookback<W, kRadix> lookback; // zeroed before launch
};

// The lanes of the warp whose d equals this lane's, for d < 2^BITS: one
// ballot per bit, each inverted where this lane's bit is clear. The votes
// and their masks run on the ALU pipe, where __match_any_sync goes through
// the MIO pipe that the shared-memory counters also use (ncu: with
// match.any alone, 40% of the pass kernel's stalls were MIO waits; with
// ballots alone, the ALU pipe was 83% busy): rank_in_warp mixes the two.
// Written in PTX so that one predicate serves both the vote and the
// inversion (the C++ form cost ~7 SASS per bit).
template <int BITS> __device__ __forceinline__ unsigned warp_peers(unsigned d) {
    unsigned peers = libscan::kFullMask;
#pragma unroll
    for (int b = 0; b < BITS; ++b) {
        unsigned votes;
        asm volatile("{\n\t.reg .pred p;\n\t.reg .b32 t;\n\t"
            "and.b32 t, %1, %2;\n\t"
            "setp.ne.u32 p, t, 0;\n\t"
            "vote.sync.ballot.b32 %0, p, 0xffffffff;\n\t"
            "@!p not.b32 %0, %0;\n\t}"
            : "=r"(votes)
            : "r"(d), "r"(1u << b));
        peers &= votes;
    }
    return peers;
}

// The peer that advances the warp's counter of their digit: the highest.
__device__ __forceinline__ int peer_leader(unsigned peers) { return 31 - __clz(peers); }

// One item's rank from its peers; the warp's counter of digit d advances.
__device__ __forceinline__ unsigned short rank_among(unsigned d, unsigned peers, unsigned *counts, int lane) {
    const int leader = peer_leader(peers);
    unsigned before = 0;
    if (lane == leader) {
        before = counts[d];
        counts[d] = before + unsigned(__popc(peers));
    }
    before = __shfl_sync(libscan::kFullMask, before, leader);
    const unsigned short r = static_cast<unsigned short>(before + unsigned(__popc(peers & ((1u << lane) - 1u))));
    __syncwarp();
    return r;
}

// Ranks each item among the warp's items of the same digit, in item order
// (item k of lane l comes before item k of lane l+1 and after item k-1 of
// every lane): peers share the warp's counter for their digit, which the
// highest peer advances after everyone has read it. counts[] starts at 0
// and ends holding the warp's count of each digit.
// digit_of(k): item k's digit (kept in a register or taken again from the
// key: PassTuning's kKeepDigits).
// How peers are found: ballots cost the same for any digits (BITS votes on
// the ALU pipe, which they fill); __match_any_sync is one instruction on the
// MIO pipe whose time grows with the number of distinct digits among the 32
// lanes (bench_radixsort, H200, 2^28 u32 keys, ballots for every item ->
// a match for every item: 16-distinct keys 5.40 -> 4.63 ms, 2-distinct
// 5.42 -> 4.36 ms, uniform 5.56 -> 9.27 ms). MATCH_EVERY > 0: every
// MATCH_EVERY-th item matches, the others vote, which shares the work
// between the two pipes. The ranks do not depend on the choice.
// Here for items FIRST.. of the warp.
template <int BITS, int IPT, int MATCH_EVERY, int FIRST = 0, typename DigitOf>
__device__ __forceinline__ void rank_in_warp(const DigitOf &digit_of, unsigned *counts, int lane,
                                             unsigned short (&rank)[IPT]) {
#pragma unroll
    for (int k = FIRST; k < IPT; ++k) {
        const unsigned d = digit_of(k);
        const unsigned peers = MATCH_EVERY > 0 && k % (MATCH_EVERY > 0 ? MATCH_EVERY : 1) == 0
                                   ? __match_any_sync(libscan::kFullMask, d)
                                   : warp_peers<BITS>(d);
        rank[k] = rank_among(d, peers, counts, lane);
    }
}

// rank_in_warp with the peers found through shared memory instead of
// votes: each lane sets its bit in its digit's word of the warp's table of
// masks (`masks`, kRadix words, zero before and after), reads the word back,
// and the peers' leader clears it once every peer has read it. Four
// shared-memory accesses an item and no votes. Where the votes' ALU work
// outweighs the shared-memory pipe's, it ranks faster: msd_sort.cuh's local
// sort of pairs, 2.81 -> 2.53 ms on 2^28 pairs (H200, kernel alone, both
// bytes; the sort 7.53 -> 7.26 ms). Where the shared-memory pipe is the
// busier one it ranks slower: in the onesweep passes of u32/u32 pairs the
// sort of 2^28 took 9.35-9.37 ms against 7.27-7.30 with votes, 2^27 6.05
// against 4.24 (bench/results/2026-11-29-h200x2-42d969e). Same ranks as
// rank_in_warp.
template <int IPT, typename DigitOf>
__device__ __forceinline__ void rank_in_warp_masks(const DigitOf &digit_of, unsigned *counts, unsigned *masks, int lane,
                                                   unsigned short (&rank)[IPT]) {
#pragma unroll
    for (int k = 0; k < IPT; ++k) {
        const unsigned d = digit_of(k);
        atomicOr(&masks[d], 1u << lane);
        __syncwarp();
        const unsigned peers = masks[d];
        const int leader = peer_leader(peers);
        __syncwarp(); // every peer has read the word before its leader clears it
        unsigned before = 0;
        if (lane == leader) {
            before = atomicAdd(&counts[d], unsigned(__popc(peers)));
            masks[d] = 0;
        }
        before = __shfl_sync(libscan::kFullMask, before, leader);
        __syncwarp(); // the next item's bits and counts come after these
        rank[k] = static_cast<unsigned short>(before + unsigned(__popc(peers & ((1u << lane) - 1u))));
    }
}

// The probe: ranks the warp's first item by ballots and returns how many
// distinct digits its lanes show (their peers' leaders).
template <int BITS, int IPT, typename DigitOf>
__device__ __forceinline__ int rank_first_item(const DigitOf &digit_of, unsigned *counts, int lane,
                                               unsigned short (&rank)[IPT]) {
    const unsigned d = digit_of(0);
    const unsigned peers = warp_peers<BITS>(d);
    const bool leads = lane == peer_leader(peers);
    rank[0] = rank_among(d, peers, counts, lane);
    return __popc(__ballot_sync(libscan::kFullMask, leads));
}

// rank_in_warp, choosing per warp: when the warp's first item (ranked by
// ballots, which tell its distinct digits at no latency a match would add)
// holds at most FEW distinct digits (FEW > 0), every later item matches
// (few digits make matching cheap: such keys are few-distinct, and the
// tile's other items likely are too); otherwise MATCH_EVERY as above. One
// branch per warp and tile, outside the unrolled loops.
template <int BITS, int IPT, int MATCH_EVERY, int FEW, typename DigitOf>
__device__ __forceinline__ void rank_tile_in_warp(const DigitOf &digit_of, unsigned *counts, int lane,
                                                  unsigned short (&rank)[IPT]) {
    if constexpr (FEW > 0) {
        if (rank_first_item<BITS, IPT>(digit_of, counts, lane, rank) <= FEW)
            rank_in_warp<BITS, IPT, 1, 1>(digit_of, counts, lane, rank);
        else
            rank_in_warp<BITS, IPT, MATCH_EVERY, 1>(digit_of, counts, lane, rank);
    } else {
        rank_in_warp<BITS, IPT, MATCH_EVERY>(digit_of, counts, lane, rank);
    }
}

// The warps' counts of digit d (per-warp counters, a row a warp, as
// rank_in_warp leaves them) become each warp's exclusive offset among the
// block's warps, in place; returns the block's count of d. Called by the
// thread of digit d; add_warp_offsets then adds where d starts in the tile.
template <int WARPS, int N> __device__ __forceinline__ unsigned warp_offsets_of_digit(unsigned (*counts)[N], int d) {
    unsigned total = 0;
#pragma unroll
    for (int w = 0; w < WARPS; ++w) {
        const unsigned c = counts[w][d];
        counts[w][d] = total;
        total += c;
    }
    return total;
}
template <int WARPS, int N> __device__ __forceinline__ void add_warp_offsets(unsigned (*counts)[N], int d, unsigned start) {
#pragma unroll
    for (int w = 0; w < WARPS; ++w) counts[w][d] += start;
}

// Ranks for a pass free to order the items of one digit as it likes
// (pass_kernel's ANY_ORDER: the first pass of a sort of whole keys without
// values). Every order of a digit's items there leads to the same output:
// two keys that tie on this digit and on every later pass's are equal over
// the whole key, bit for bit, and nothing travels with them. So a rank is
// one shared atomicAdd on the warp's counter of the item's digit, whatever
// order the lanes' adds land in: no peers to find, no ballots (the ballots'
// votes fill the ALU pipe, ~20% of a pass's time: bench/results/
// 2026-11-29-h200-f091273/ranking). A warp whose first item shows at most
// FEW distinct digits among its lanes (rank_first_item, the probe of
// rank_tile_in_warp) matches every later item instead: up to 32
// adds on one address serialise, where one match serves them all.
template <int BITS, int IPT, int FEW, typename DigitOf>
__device__ __forceinline__ void rank_tile_any_order(const DigitOf &digit_of, unsigned *counts, int lane,
                                                    unsigned short (&rank)[IPT]) {
    if constexpr (FEW > 0) {
        if (rank_first_item<BITS, IPT>(digit_of, counts, lane, rank) <= FEW) {
            rank_in_warp<BITS, IPT, 1, 1>(digit_of, counts, lane, rank);
            return;
        }
    }
#pragma unroll
    for (int k = FEW > 0 ? 1 : 0; k < IPT; ++k)
        rank[k] = static_cast<unsigned short>(atomicAdd(&counts[digit_of(k)], 1u));
}

// An identity pass's tile moves as a contiguous byte range: consecutive
// threads take consecutive 16-byte vectors, every load of the tile issued
// before the first store. (tile_io.cuh's warp-striped loader wants whole
// vectors per thread, which 20 items of 8- or 16-bit keys are not.) Vectors
// need both arrays 16-byte aligned and a full tile (a tile's byte offset is
// a multiple of 16 for every PassTuning shape: the static_assert); the
// last tile and misaligned arrays go element by element, still coalesced.
template <typename T, int BLOCK, int TILE> struct TileBytes {
    static_assert(size_t(TILE) * sizeof(T) % 16 == 0, "libscan::sort: a tile must be whole 16-byte vectors");
    static constexpr int kVectors = int(size_t(TILE) * sizeof(T) / 16);
    static constexpr int kPerThread = (kVectors + BLOCK - 1) / BLOCK;
    static constexpr int kPerVector = int(16 / sizeof(T));
    __device__ static bool vectors(const void *a, const void *b, size_t n, size_t tile_base) {
        return n - tile_base >= size_t(TILE) && reinterpret_cast<uintptr_t>(a) % 16 == 0 &&
               reinterpret_cast<uintptr_t>(b) % 16 == 0;
    }
    __device__ static size_t items(size_t n, size_t tile_base) {
        return n - tile_base < size_t(TILE) ? n - tile_base : size_t(TILE);
    }
};

// Tile `tile_base` of n items from in to out unchanged.
template <typename T, int BLOCK, int TILE>
__device__ __forceinline__ void copy_tile(const T *in, T *out, size_t n, size_t tile_base) {
    using Bytes = TileBytes<T, BLOCK, TILE>;
    if (Bytes::vectors(in, out, n, tile_base)) {
        const uint4 *src = reinterpret_cast<const uint4 *>(in + tile_base);
        uint4 *dst = reinterpret_cast<uint4 *>(out + tile_base);
        uint4 r[Bytes::kPerThread];
#pragma unroll
        for (int j = 0; j < Bytes::kPerThread; ++j) {
            const int q = int(threadIdx.x) + j * BLOCK;
            if (q < Bytes::kVectors) r[j] = src[q];
        }
#pragma unroll
        for (int j = 0; j < Bytes::kPerThread; ++j) {
            const int q = int(threadIdx.x) + j * BLOCK;
            if (q < Bytes::kVectors) dst[q] = r[j];
        }
    } else {
        const size_t items = Bytes::items(n, tile_base);
        for (size_t i = threadIdx.x; i < items; i += BLOCK) out[tile_base + i] = in[tile_base + i];
    }
}

// argsort's first pass when it is the identity: value i = i over the tile.
template <typename T, int BLOCK, int TILE> __device__ __forceinline__ void iota_tile(T *out, size_t n, size_t tile_base) {
    using Bytes = TileBytes<T, BLOCK, TILE>;
    if (Bytes::vectors(out, out, n, tile_base)) {
        uint4 *dst = reinterpret_cast<uint4 *>(out + tile_base);
#pragma unroll
        for (int j = 0; j < Bytes::kPerThread; ++j) {
            const int q = int(threadIdx.x) + j * BLOCK;
            if (q >= Bytes::kVectors) continue;
            T v[Bytes::kPerVector];
#pragma unroll
            for (int e = 0; e < Bytes::kPerVector; ++e)
                v[e] = static_cast<T>(tile_base + size_t(q) * Bytes::kPerVector + unsigned(e));
            uint4 r;
            memcpy(&r, v, 16);
            dst[q] = r;
        }
    } else {
        const size_t items = Bytes::items(n, tile_base);
        for (size_t i = threadIdx.x; i < items; i += BLOCK) out[tile_base + i] = static_cast<T>(tile_base + i);
    }
}

// An identity pass's whole work for one tile. Not inlined: ptxas -v (sm_90)
// showed the inlined copy costing the ranking path 8-16 bytes of spills in
// the u32/u32-pairs and u64-keys kernels (none before); as a call, the
// ranking path has no spill in any instantiation, and the call's cost falls
// on identity passes only.
template <typename K, typename V, int BLOCK, int TILE>
__device__ __noinline__ void copy_pass_tile(const K *keys_in, K *keys_out, const V *values_in, V *values_out,
                                             bool iota_values, size_t n, size_t tile_base) {
    copy_tile<K, BLOCK, TILE>(keys_in, keys_out, n, tile_base);
    if constexpr (!std::is_same<V, NoValues>::value) {
        if (iota_values) iota_tile<V, BLOCK, TILE>(values_out, n, tile_base);
        else copy_tile<V, BLOCK, TILE>(values_in, values_out, n, tile_base);
    }
}

// A store of a 4- or 8-byte word to a global address held as an integer
// (st.global: through a generic pointer the store would resolve the
// address space each time).
template <typename T> __device__ __forceinline__ void store_global(unsigned long long address, T v) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "libscan::sort: 4- and 8-byte words");
    if constexpr (sizeof(T) == 8) {
        unsigned long long b;
        memcpy(&b, &v, 8);
        asm volatile("st.global.b64 [%0], %1;" ::"l"(address), "l"(b) : "memory");
    } else {
        unsigned b;
        memcpy(&b, &v, 4);
        asm volatile("st.global.b32 [%0], %1;" ::"l"(address), "r"(b) : "memory");
    }
}

// pass_kernel's dynamic shared memory: none, or with Shape::kSplitValues
// and values, the keys' exchange buffer, the values' and the warp
// histograms, one after another.
template <typename K, typename V, class Shape> struct PassShared {
    static constexpr bool kSplit = !std::is_same<V, NoValues>::value && Shape::kSplitValues;
    static constexpr size_t kTile = size_t(Shape::kBlockThreads) * Shape::kItemsPerThread;
    static constexpr size_t align16(size_t b) { return (b + 15) / 16 * 16; }
    static constexpr size_t kValuesOffset = align16(kTile * sizeof(K));
    static constexpr size_t kHistOffset = kValuesOffset + align16(kTile * (kSplit ? sizeof(V) : 0));
    static constexpr size_t kBytes =
        kSplit ? kHistOffset + size_t(Shape::kBlockThreads / 32) * (kRadix + 1) * sizeof(unsigned) : 0;
};

// Shape (sort_tuning.cuh's PassTuning): kBlockThreads, kItemsPerThread,
// kLookbackWindow, kMinBlocks, kKeepDigits, kMatchEvery, kFewDigits,
// kShareHistogram, kUniformTiles, kAnyOrderFew, kSplitValues.
// ANY_ORDER: the pass may order the items of one digit as it likes
// (rank_tile_any_order says when that holds); else the items of a digit
// keep their order, which makes the sort stable.
template <typename K, typename V, typename W, class Shape, typename Tiles = FlatTiles, bool ANY_ORDER = false>
__global__ void __launch_bounds__(Shape::kBlockThreads, Shape::kMinBlocks) pass_kernel(const PassParams<K, V, W, Tiles> p) {
    constexpr int BLOCK = Shape::kBlockThreads, IPT = Shape::kItemsPerThread, WINDOW = Shape::kLookbackWindow;
    constexpr bool kValues = !std::is_same<V, NoValues>::value;
    constexpr int kWarps = BLOCK / 32;
    constexpr int kTile = BLOCK * IPT;
    constexpr int kWarpItems = 32 * IPT;
    constexpr size_t kValueBytes = kValues ? sizeof(V) : 0;
    constexpr size_t kExchangeBytes = size_t(kTile) * (sizeof(K) > kValueBytes ? sizeof(K) : kValueBytes);
    static_assert(BLOCK >= kRadix, "libscan::sort: a block needs a thread per digit");
    static_assert(kWarpItems < 65536, "libscan::sort: warp ranks are kept in 16 bits");
    using Scan = libscan::BlockScan<unsigned, BLOCK>;

    // s_warp_hist, per warp and digit: the warp's count, then where the
    // warp's keys of the digit start in the tile (+1: the padding items'
    // digit). Shape::kShareHistogram: it lies inside the exchange buffer (its
    // last read comes before the buffer's first write, one more barrier per
    // tile), which leaves the tile more of the 48 KB of static shared memory;
    // else after it.
    // Shape::kSplitValues (with values): keys and values each have their
    // own exchange buffer, in dynamic shared memory (PassShared), so that
    // both are in place before one barrier and one loop moves both out.
    using Layout = PassShared<K, V, Shape>;
    constexpr bool kSplit = Layout::kSplit;
    constexpr size_t kWarpHistBytes = size_t(kWarps) * (kRadix + 1) * sizeof(unsigned);
    static_assert(!(kSplit && Shape::kShareHistogram), "libscan::sort: split buffers keep the histograms apart");
    constexpr bool kShare = Shape::kShareHistogram;
    constexpr size_t kSharedBytes = kSplit ? 16
                                    : !kShare ? kExchangeBytes + kWarpHistBytes
                                    : kExchangeBytes > kWarpHistBytes ? kExchangeBytes : kWarpHistBytes;
    static_assert(kExchangeBytes % sizeof(unsigned) == 0, "libscan::sort: the warp histograms must stay aligned");
    __shared__ alignas(16) unsigned char s_static[kSharedBytes];
    extern __shared__ uint4 s_dynamic[];
    unsigned char *const s_exchange = kSplit ? reinterpret_cast<unsigned char *>(s_dynamic) : s_static;
    auto s_warp_hist = reinterpret_cast<unsigned (*)[kRadix + 1]>(
        s_exchange + (kSplit ? Layout::kHistOffset : kShare ? 0 : kExchangeBytes));
    __shared__ unsigned long long s_global[kRadix];
    __shared__ typename Scan::TempStorage s_scan;
    __shared__ unsigned s_tile;
    // kUniformTiles: each warp's digit (kMixed: none), and whether a thread
    // saw another digit among its keys.
    __shared__ unsigned s_first[kWarps];
    __shared__ unsigned s_mixed;

    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    if (t == 0) s_tile = atomicAdd(p.tile_counter, 1u);
    if (t == 0) s_mixed = 0u;
    for (int i = lane; i < kRadix + 1; i += 32) s_warp_hist[warp][i] = 0;
    __syncthreads();
    // The tile counter carries the identity mark (digit_base_kernel): every
    // block of a pass takes the same branch, so no block of an identity pass
    // publishes or waits for look-back words, and no block of another skips.
    if (s_tile & kSkipTile) return; // the MSD path sorted (msd_sort.cuh)
    const bool identity = (s_tile & kIdentityTile) != 0;
    [[maybe_unused]] const bool few_digits = (s_tile & kFewDigitsTile) != 0;
    const unsigned tile = s_tile & ~kTileMarks;
    const TileAt at = p.tiles.template at<kTile>(tile);
    const Digit<K> digit = p.tiles.digit(p.digit);
    const size_t tile_base = at.base;
    const int valid = at.valid;
    if (valid == 0) return; // a grid sized for the most tiles there can be
    if constexpr (Tiles::kIdentityPasses) {
        if (identity) {
            // The tile this block was given, in place of the one it would have
            // ranked; the pass's status words stay zero and nobody reads them.
            copy_pass_tile<K, V, BLOCK, kTile>(p.keys_in, p.keys_out, p.values_in, p.values_out, p.iota_values,
                                               tile_base + size_t(valid), tile_base);
            return;
        }
    }
    const int warp_base = warp * kWarpItems;

    // Load (warp-striped). A key's digit (padding's is kRadix) is kept, or
    // taken again where it is used (Shape::kKeepDigits: IPT registers against
    // a few instructions).
    K keys[IPT];
    [[maybe_unused]] unsigned kept[Shape::kKeepDigits ? IPT : 1];
    if (valid == kTile) {
#pragma unroll
        for (int k = 0; k < IPT; ++k) keys[k] = p.keys_in[tile_base + warp_base + k * 32 + lane];
        if constexpr (Shape::kKeepDigits) {
#pragma unroll
            for (int k = 0; k < IPT; ++k) kept[k] = digit(keys[k]);
        }
    } else {
#pragma unroll
        for (int k = 0; k < IPT; ++k) {
            const int i = warp_base + k * 32 + lane;
            keys[k] = i < valid ? p.keys_in[tile_base + i] : K(0);
            if constexpr (Shape::kKeepDigits) kept[k] = i < valid ? digit(keys[k]) : unsigned(kRadix);
        }
    }
    auto digit_of = [&](int k) {
        if constexpr (Shape::kKeepDigits) return kept[k];
        else return valid == kTile || warp_base + k * 32 + lane < valid ? digit(keys[k]) : unsigned(kRadix);
    };

    // A full tile whose keys all share one digit (after the first passes of
    // few-distinct keys, or keys already grouped) keeps its order: it skips
    // the ranking and both exchanges, publishes and looks back as any tile,
    // and moves keys (and values) straight from their registers to their
    // place. Each warp votes on its first items (one shuffle, one vote), its
    // lane 0 posts the warp's digit or kMixed, and after one barrier every
    // warp reads the posts; only when they all agree does every thread
    // compare its other keys (so that tiles of mixed digits, nearly all of
    // them, pay a few instructions and one barrier, and no global load).
    // The second vote goes through a flag in shared memory: with
    // __syncthreads_and here, ptxas (CUDA 13.0, sm_90) failed with C7600.
    bool uniform = false;
    if constexpr (Shape::kUniformTiles) {
        if (few_digits) { // the pass's mark: the same for every block of it
            constexpr unsigned kMixed = ~0u;
            const unsigned d0 = digit_of(0);
            const unsigned w0 = __shfl_sync(libscan::kFullMask, d0, 0);
            const bool warp_same = __all_sync(libscan::kFullMask, valid == kTile && d0 == w0);
            if (lane == 0) s_first[warp] = warp_same ? w0 : kMixed;
            __syncthreads();
            const unsigned first = s_first[0];
            const bool agree = __all_sync(libscan::kFullMask, lane >= kWarps || s_first[lane] == first);
            if (agree && first != kMixed) {
                bool same = true;
#pragma unroll
                for (int k = 1; k < IPT; ++k) same = same && digit_of(k) == first;
                if (!same) s_mixed = 1u;
                __syncthreads();
                uniform = s_mixed == 0u;
            }
            if (uniform) {
                if (t < kRadix) {
                    const unsigned count = unsigned(t) == first ? unsigned(kTile) : 0u;
                    p.lookback.publish_count(tile, t, count, at.first);
                    const W before = p.lookback.template exclusive<WINDOW>(tile, t, W(count), at.first);
                    if (unsigned(t) == first) s_global[0] = p.tiles.start(at, t) + static_cast<unsigned long long>(before);
                }
                __syncthreads();
                const unsigned long long out = s_global[0] + unsigned(warp_base + lane);
#pragma unroll
                for (int k = 0; k < IPT; ++k) p.keys_out[out + unsigned(k * 32)] = keys[k];
                if constexpr (kValues) {
                    // Every load before the first store (the compiler may not
                    // reorder them: the arrays could alias).
                    V values[IPT];
#pragma unroll
                    for (int k = 0; k < IPT; ++k) {
                        const size_t i = tile_base + unsigned(warp_base + k * 32 + lane);
                        values[k] = p.iota_values ? static_cast<V>(i) : p.values_in[i];
                    }
#pragma unroll
                    for (int k = 0; k < IPT; ++k) p.values_out[out + unsigned(k * 32)] = values[k];
                }
            }
        }
    }
    if (uniform) return;

    // Rank inside the warp: in item order (this is what makes the sort
    // stable), or in any order where ANY_ORDER allows it (full tiles only).
    unsigned short rank[IPT];
    constexpr int kMatch = Shape::kMatchEvery, kFew = Shape::kFewDigits;
    static_assert(!ANY_ORDER || !kValues, "libscan::sort: values make the order of equal keys visible");
    if (valid == kTile) {
        if constexpr (ANY_ORDER)
            rank_tile_any_order<kRadixBits, IPT, Shape::kAnyOrderFew>(digit_of, s_warp_hist[warp], lane, rank);
        else
            rank_tile_in_warp<kRadixBits, IPT, kMatch, kFew>(digit_of, s_warp_hist[warp], lane, rank);
    } else rank_in_warp<kRadixBits + 1, IPT, kMatch>(digit_of, s_warp_hist[warp], lane, rank); // padding: digit kRadix
    __syncthreads();

    // Thread d < kRadix: warp counts of digit d -> exclusive offsets over warps,
    // and the tile's count of d, published at once for later tiles.
    unsigned tile_count = 0;
    if (t < kRadix) {
        tile_count = warp_offsets_of_digit<kWarps>(s_warp_hist, t);
        p.lookback.publish_count(tile, t, tile_count, at.first);
    }
    unsigned start[1] = {tile_count};
    Scan(s_scan).ExclusiveScan(start, libscan::Sum<unsigned>()); // synchronises the block
    if (t < kRadix) add_warp_offsets<kWarps>(s_warp_hist, t, start[0]);
    __syncthreads();

    // Keys to their place in the tile sorted by digit (sharing the buffer
    // with the counters: every place is read before the first key lands).
    K *s_keys = reinterpret_cast<K *>(s_exchange);
    int local[IPT];
#pragma unroll
    for (int k = 0; k < IPT; ++k) {
        local[k] = -1;
        const unsigned d = digit_of(k);
        if (d < unsigned(kRadix)) {
            local[k] = int(s_warp_hist[warp][d] + rank[k]);
            if constexpr (!kShare) s_keys[local[k]] = keys[k];
        }
    }
    if constexpr (kShare) {
        __syncthreads();
#pragma unroll
        for (int k = 0; k < IPT; ++k)
            if (local[k] >= 0) s_keys[local[k]] = keys[k];
    }

    // Values are loaded now, so that their latency hides behind the
    // look-back and the key scatter (keys[] is dead here, values[] takes its
    // registers).
    [[maybe_unused]] V values[kValues ? IPT : 1];
    if constexpr (kValues) {
#pragma unroll
        for (int k = 0; k < IPT; ++k) {
            const int i = warp_base + k * 32 + lane;
            if (p.iota_values) values[k] = static_cast<V>(tile_base + unsigned(i));
            else values[k] = i < valid ? p.values_in[tile_base + i] : V(0);
        }
    }

    // Global start of each digit's run in this tile (wrapping arithmetic: the
    // tile position i of the run is added back when scattering). Split
    // buffers with keys and values of one size (4 or 8 bytes): the address
    // where key 0 of the run would be instead, and a value's is a constant
    // distance from its key's (three instructions a store pair where 64-bit
    // places take eight).
    constexpr bool kAddresses = kSplit && sizeof(K) == sizeof(V) && sizeof(K) >= 4;
    if (t < kRadix) {
        const W before = p.lookback.template exclusive<WINDOW>(tile, t, W(tile_count), at.first);
        s_global[t] = p.tiles.start(at, t) + static_cast<unsigned long long>(before) - start[0];
        if constexpr (kAddresses) s_global[t] = reinterpret_cast<uintptr_t>(p.keys_out) + sizeof(K) * s_global[t];
    }
    if constexpr (kSplit) {
        // Values to their places in their own buffer, then keys and values
        // out together: one barrier, one loop.
        V *s_values = reinterpret_cast<V *>(s_exchange + Layout::kValuesOffset);
#pragma unroll
        for (int k = 0; k < IPT; ++k)
            if (local[k] >= 0) s_values[local[k]] = values[k];
        __syncthreads();
        [[maybe_unused]] const unsigned long long apart =
            reinterpret_cast<uintptr_t>(p.values_out) - reinterpret_cast<uintptr_t>(p.keys_out);
        auto out = [&](int i) {
            const K key = s_keys[i];
            const unsigned long long run = s_global[digit(key)];
            if constexpr (kAddresses) {
                const unsigned long long at = run + sizeof(K) * unsigned(i);
                store_global(at, key);
                store_global(at + apart, s_values[i]);
            } else {
                p.keys_out[run + unsigned(i)] = key;
                p.values_out[run + unsigned(i)] = s_values[i];
            }
        };
        if (valid == kTile) {
#pragma unroll
            for (int j = 0; j < IPT; ++j) out(t + j * BLOCK);
        } else {
#pragma unroll
            for (int j = 0; j < IPT; ++j)
                if (t + j * BLOCK < valid) out(t + j * BLOCK);
        }
        return;
    }
    __syncthreads();

    // Keys out; with values, each scattered key's digit is kept (8 bits, four
    // to a register) to place its value the same way.
    [[maybe_unused]] unsigned packed[kValues ? (IPT + 3) / 4 : 1];
#pragma unroll
    for (int j = 0; j < IPT; ++j) {
        const int i = t + j * BLOCK;
        unsigned d = 0;
        if (i < valid) {
            const K key = s_keys[i];
            d = digit(key);
            p.keys_out[s_global[d] + unsigned(i)] = key;
        }
        if constexpr (kValues) {
            if (j % 4 == 0) packed[j / 4] = 0;
            packed[j / 4] |= d << (8 * (j % 4));
        }
    }

    if constexpr (kValues) {
        __syncthreads(); // every key has left the exchange buffer
        V *s_values = reinterpret_cast<V *>(s_exchange);
#pragma unroll
        for (int k = 0; k < IPT; ++k)
            if (local[k] >= 0) s_values[local[k]] = values[k];
        __syncthreads();
#pragma unroll
        for (int j = 0; j < IPT; ++j) {
            const int i = t + j * BLOCK;
            const unsigned d = (packed[j / 4] >> (8 * (j % 4))) & 0xffu;
            if (i < valid) p.values_out[s_global[d] + unsigned(i)] = s_values[i];
        }
    }
}

// Enqueues one pass over `grid` tiles on `stream` (after its allowance of
// dynamic shared memory, where it takes some): pass_kernel's ANY_ORDER form
// where any_order holds (for keys without values only; the caller asks the
// sort's rule, libscan__sort_any_order_first_pass), else the in-order one.
// Returns the launch's error.
template <typename K, typename V, typename W, class Shape, typename Tiles>
inline cudaError_t launch_pass(const PassParams<K, V, W, Tiles> &p, unsigned grid, bool any_order,
                               cudaStream_t stream) {
    constexpr size_t kShared = PassShared<K, V, Shape>::kBytes;
    if constexpr (std::is_same<V, NoValues>::value) {
        if (any_order)
            return libscan::detail::launch_dynamic<pass_kernel<K, V, W, Shape, Tiles, true>>(
                grid, Shape::kBlockThreads, kShared, stream, p);
    }
    (void)any_order;
    return libscan::detail::launch_dynamic<pass_kernel<K, V, W, Shape, Tiles>>(grid, Shape::kBlockThreads, kShared,
                                                                              stream, p);
}

// argsort with no passes: indices 0, 1, 2, ...
template <typename V> __global__ void iota_kernel(V *out, size_t n) {
    const size_t stride = size_t(gridDim.x) * blockDim.x;
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = static_cast<V>(i);
}

} // namespace libscan::sort
