// sort_tuning.cuh -- every tuning constant of libscan's radix sort (sort.h),
// in one table.
//
// Entries that name a run were chosen by it: the benchmark target of
// bench/radixsort and its arguments, on an H100, on scratch builds in which
// only the entry changed. The others are first choices, still to be swept.
// A tile must fit in static shared memory (48 KB) with the warp histograms
// (beside the exchange buffer, or inside it: kShareHistogram): the exchange
// buffer holds a tile of max(key, value) bytes.
#pragma once

#include <cstddef>

namespace libscan::sort {

constexpr int kRadixBits = 8;
constexpr int kRadix = 1 << kRadixBits;
constexpr int kMaxPasses = 8; // 64-bit keys

// The per-pass (onesweep) kernel, chosen by the widest of key and value and
// by whether values travel. 4-byte keys only: 384 threads x 20 keys = 7680
// keys per tile, 30 KB of exchange + 12 KB of warp histograms; with 4-byte
// values, 384 x 16 = 6144 at 3 blocks an SM, 24 KB of keys + 24 KB of
// values + 12 KB (kSplitValues, below). 8-byte: 384 x 15 = 5760, 45 KB of
// exchange holding the 12 KB of histograms.
// Chosen by `bench_radixsort --logs 28 --no-dists` (2^28 keys): u32 keys,
// ballot ranking, 384 x 20 8.56 ms against 8.98 ms for 384 x 16; u32/u32
// pairs, 448 x 16 9.49 ms = 1.082x CUB, 512 x 14 1.084x, 512 x 12 1.113x,
// 384 x 16 (the former entry) 1.119x, 384 x 12 1.219x, 256 x 20 1.208x,
// 256 x 16 1.295x, 640 x 10 1.432x.
// kLookbackWindow: earlier tiles' digit words read per round trip of the
// digit look-back (digit_lookback.cuh). 4 took u32 keys from 6.31 to 6.17 ms
// in `bench_radixsort --logs 28` (2^28 keys), but cost the other
// kernels spills or registers: u32/u32 pairs 9.85 -> 10.10 ms, u64/u32
// pairs 26.9 -> 30.4 ms; they keep 1.
// kMinBlocks: resident blocks an SM must hold (__launch_bounds__), which
// caps a thread's registers (0: no bound, ptxas' own choice; a bound of 1
// is not the same: ptxas then took 116-128 registers); kKeepDigits: each key's digit kept in a
// register from the load to the scatter, or taken again from the key.
// 4-byte keys: digits taken again and 3 blocks an SM, 56 registers without
// a spill (ptxas -v, sm_90), against 80 registers and 2 blocks: u32 keys
// 6.08 -> 5.57 ms (1.114 -> 1.021x CUB's best), f32 1.049 -> 0.962x, u32
// 2-distinct 1.344 -> 1.271x, in bench/results/2026-11-28-h200-c008d8d
// (`bench_radixsort --logs 28 --reps 7`, H200, one process each). The
// pairs and 8-byte kernels keep their digits: taken again they measured
// +0.3% and +1.1% there (100 registers for pairs without a bound).
// kMatchEvery, kFewDigits: how a warp finds the lanes of its digit
// (onesweep.cuh, rank_tile_in_warp): every kMatchEvery-th item by
// __match_any_sync, the others by ballots (0: ballots only); a warp whose
// first item shows at most kFewDigits distinct digits matches every item
// (0: never). ncu (H200, 2^28 u32 keys) put the ballot-only kernel at 83%
// of the ALU pipe. bench_radixsort --logs 28 --reps 7, H200, caller temp /
// best CUB, one process per variant (bench/results/2026-11-28-h200-b8f9cd5/ranking):
//   (keys / pairs)      u32 keys: uniform  2-distinct  16-distinct   pairs: uniform  2-distinct
//   ballots only                  1.020     1.258       1.215               1.112        1.348
//   every 4th / every 4th         1.002     1.203       1.161               1.194        1.314
//   every 4th + few 16 / few 16   0.999     1.038       1.064               1.115        1.243
//   all / all                     1.703     1.035       1.038               1.608        1.230
// (a first match as the probe instead of ballots cost ~2.5% on uniform keys:
// its latency stalls the warp.) 8-byte kernels: not measured, ballots only.
// Also measured and left out (bench/results/2026-11-29-h200-e531cf1, u32
// keys 1.002 with this table): a match of the digit's high 2 / 4 / 6 bits
// ANDed with ballots of the rest, 1.008 / 1.20 / 1.51; CUB's early counts
// (the tile's digit counts by one shared atomic a key, published before
// the ranking), 1.053.
// kSplitValues (with values): keys and values each take their own exchange
// buffer (dynamic shared memory, onesweep.cuh's PassShared), so that both
// are in place before one barrier and one loop writes both out, a key's
// address from its digit's and its value's a constant distance away (where
// they are of one size). ncu (H200, 2^28 u32/u32 pairs, MSD pass B, one
// buffer at 448 x 16, 2 blocks an SM, 72 registers): 1.13 G instructions
// against CUB's 0.71 G, 44 of them an item in the two loops out against
// CUB's 20, latency-bound (1.2 eligible warps of 6.9 a scheduler)
// (bench/results/2026-11-29-h200-split-pairs). bench_radixsort --logs 27,28
// --reps 7 --no-dists --seed 4, H200, caller temp, medians of 3
// interleaved processes each (the split 448 and 512 rows: an earlier
// run's, two processes at 2^28 and one at 2^27; same results folder):
//                                   u32/u32 pairs 2^27  2^28   u16/u32 2^27  2^28
//   one buffer, 448 x 16, 2 blocks (eb4b2bb)      4.216  7.302         2.152  4.267
//   split, 448 x 16, 2 blocks (72 registers)      4.210  7.338         2.070    -
//   split, 512 x 14, 2 blocks (64 registers)      4.265  7.377         2.059    -
//   one buffer, 384 x 16, 3 blocks, digits again 4.505  7.374         2.138  4.226
//   split, 384 x 16, 3 blocks, digits kept        4.104  7.178         1.961  3.873
//     (114 bytes of spills at 56 registers)
//   split, 384 x 16, 3 blocks, digits again       3.965  7.003         1.930  3.808
//   split, 384 x 18, 3 blocks, digits again       4.258  7.291         1.842  3.621
//   split, 320 x 20, 3 blocks, digits again       4.048    -             -      -
// (CUB's best: 3.73 7.44 1.83 3.63.) The last but two is this entry.
// kShareHistogram: the warp histograms live inside the exchange buffer, at
// the cost of one more barrier a tile, so that a larger tile fits. Tiles,
// bench_radixsort --logs 28 --reps 7, H200, caller temp / best CUB, one
// process per variant (bench/results/2026-11-29-h200-132974c/tiles):
//   8-byte, 256 x 16 -> 384 x 15 shared, 2 blocks an SM (80 registers):
//     u64/u32 pairs 24.61 -> 20.70 ms (1.225 -> 1.030), u64 keys 16.97 ->
//     16.69 ms (1.032 -> 1.018);
//   sharing alone costs: 256 x 16 u64 keys 1.032 -> 1.070, 448 x 16 u32/u32
//     pairs 1.114 -> 1.139;
//   4-byte pairs, 448 x 16 -> 384 x 23 shared, 2 blocks an SM: u32/u32 pairs
//     1.114 -> 1.090, u16/u32 pairs 1.164 -> 1.207 (220 bytes of spills);
//     digits taken again: 1.128 and 1.139. They keep 448 x 16.
// kUniformTiles: a full tile whose keys share one digit skips the ranking
// and the exchanges (onesweep.cuh), in passes whose keys hold at most
// kUniformTileDigits digits (below). ncu (H200, 2^28 u32/u32 pairs,
// 2-distinct, 132974c): CUB's passes after the first issued 198M
// instructions, libscan's 939M, as on uniform keys. bench_radixsort --logs 28
// --reps 7 --seed 4, H200, caller temp / best CUB, medians of interleaved
// processes (bench/results/2026-11-29-h200-f091273):
//                          u32/u32 pairs: uniform  2-distinct   u16/u32 pairs
//   never (5f4d674)                       1.124    1.251        1.171
//   looked for in every pass              1.147    1.132        1.191
//   in passes of few digits (f091273)     1.124    1.132        1.175
// (in every pass, the vote and its barrier cost every tile). It cost the
// 4-byte keys kernel 16 bytes of spills at its 56 registers and the 8-byte
// pairs kernels 8-12 more bytes (ptxas -v), so only the 4-byte pairs kernels
// take it (u32 2-distinct keys are at 1.04x).
// kAnyOrderFew: in the first pass of a sort of keys without values over
// the whole key, which ranks the keys of one digit in any order (onesweep.cuh,
// rank_tile_any_order: one shared atomicAdd a key), a warp whose first item
// shows at most this many distinct digits matches every later item instead
// (same-address atomics serialise). 16, as kFewDigits; not swept.
// bench_radixsort --logs 28 --reps 7 --seed 4 --baseline, H200, caller temp
// against the same call with every pass in order (LIBSCAN__SORT_PATH_STABLE),
// one process (bench/results/2026-11-29-h200-5baeda5): u32 keys 5.459 ->
// 5.204 ms (1.000 -> 0.953x best CUB), f32 5.446 -> 5.180 (0.898x), u64 keys
// 16.721 -> 16.514 (1.005x), low-byte u32 3.306 -> 3.043; 2- and 16-distinct
// u32 keys unchanged (4.447 / 4.662 ms: the matches).
template <int ELEMENT_BYTES, bool PAIRS> struct PassTuning {
    static constexpr int kBlockThreads = 384;
    static constexpr int kItemsPerThread = 16;
    static constexpr int kLookbackWindow = 1;
    static constexpr int kMinBlocks = 3;
    static constexpr bool kKeepDigits = false;
    static constexpr int kMatchEvery = 0;
    static constexpr int kFewDigits = 16;
    static constexpr bool kShareHistogram = false;
    static constexpr bool kUniformTiles = true;
    static constexpr int kAnyOrderFew = 16;
    static constexpr bool kSplitValues = true;
};
template <> struct PassTuning<4, false> {
    static constexpr int kBlockThreads = 384;
    static constexpr int kItemsPerThread = 20;
    static constexpr int kLookbackWindow = 4;
    static constexpr int kMinBlocks = 3;
    static constexpr bool kKeepDigits = false;
    static constexpr int kMatchEvery = 4;
    static constexpr int kFewDigits = 16;
    static constexpr bool kShareHistogram = false;
    static constexpr bool kUniformTiles = false;
    static constexpr int kAnyOrderFew = 16;
    static constexpr bool kSplitValues = false;
};
template <bool PAIRS> struct PassTuning<8, PAIRS> {
    static constexpr int kBlockThreads = 384;
    static constexpr int kItemsPerThread = 15;
    static constexpr int kLookbackWindow = 1;
    static constexpr int kMinBlocks = 2;
    static constexpr bool kKeepDigits = true;
    static constexpr int kMatchEvery = 0;
    static constexpr int kFewDigits = 0;
    static constexpr bool kShareHistogram = true;
    static constexpr bool kUniformTiles = false;
    static constexpr int kAnyOrderFew = 16;
    static constexpr bool kSplitValues = false;
};

// A pass whose keys hold more than one digit but at most this many may look
// for tiles of one digit (kUniformTiles); with more, no block looks, so
// uniform keys pay nothing. A pass of few digits is what few-distinct keys
// give, and keys grouped by earlier passes make their tiles uniform. First
// choice, not swept.
constexpr int kUniformTileDigits = 32;

// The PassTuning entry a sort takes: the width of the wider of key and value
// (8, or 4 for anything narrower), with or without values; and its tile.
constexpr int pass_width(size_t key_bytes, size_t value_bytes) {
    return (key_bytes > value_bytes ? key_bytes : value_bytes) >= 8 ? 8 : 4;
}
template <int WIDTH, bool PAIRS> constexpr size_t pass_tile_of() {
    return size_t(PassTuning<WIDTH, PAIRS>::kBlockThreads) * PassTuning<WIDTH, PAIRS>::kItemsPerThread;
}
constexpr size_t pass_tile(size_t key_bytes, size_t value_bytes) {
    return pass_width(key_bytes, value_bytes) == 8 ? (value_bytes ? pass_tile_of<8, true>() : pass_tile_of<8, false>())
                                                   : (value_bytes ? pass_tile_of<4, true>() : pass_tile_of<4, false>());
}

// The upfront histogram kernel (onesweep.cuh says what each field does):
// threads per block, keys per thread per round, blocks per SM of the
// grid-stride grid, shared copies and their layout, the equal-warp vote.
// Chosen by `histogram_sweep --log2n 28 --reps 11` (bench/radixsort; 2^28
// u32 keys, read floor 351 us): this one 522 / 513 / 512 us for
// uniform / sorted / all-equal keys, against 814 / 814 / 856 us for the
// former 4 copies with the equal-warp vote. The vote cost more than the
// same-address atomics it saves, and one copy is as fast as four. A 16-bit
// copy per lane (no bank conflict at all; 64 KB a block) was slower still:
// 664-760 us against 525 (bench/results/2026-11-29-h200-a2cb400).
struct HistogramTuning {
    static constexpr int kBlockThreads = 256;
    static constexpr int kItemsPerThread = 16; // four 16-byte loads of 4-byte keys per round
    static constexpr int kBlocksPerSm = 8;
    static constexpr int kParts = 1;           // shared histogram copies per pass (by lane % kParts)
    static constexpr bool kPartMinor = false;  // (copies one after another; moot with one)
    static constexpr bool kUniformVote = false;
};

// The MSD path of 4- and 8-byte keys without values over the whole key
// (msd_sort.cuh), by key width: the histogram's block (128 KB of shared counters, one
// block an SM), the partition passes' tile and resident blocks, the local
// sort's block (its capacity, kLocalThreads x kLocalItems keys, bounds a
// bucket: a larger one sends the sort down the onesweep passes), and the
// sizes that take it. Chosen by a sweep of the kernels alone (H200, 2^28
// uniform u32 keys, full grids, medians of 7; bench/results/
// 2026-11-29-h200-0620e1f): partition 512 x 15 (pass A / B 0.867 / 0.940 ms)
// against 384 x 20 (0.926 / 1.023), 768 x 10 (0.849 / 0.954), 512 x 15 at 3
// blocks an SM (0.995 / 0.920); local sort 256 x 18 at 3 blocks an SM
// (1.735 ms) against 2 blocks (1.954), 384 x 12 (1.781 / 1.914 at 3 / 2),
// 512 x 9 (1.940 / 2.004). Grids of one block a tile or bucket beat
// grid-stride grids of the resident blocks by 0.05-0.15 ms a kernel.
// kMinKeys: against the onesweep passes (any-order first pass), same
// process, u32 keys: 2^26 1.31-1.44x, 2^27 0.99-1.02x, 2^28 0.845x; so the
// path starts between the last two. kMaxKeys: a bucket of uniform keys then
// averages 4200 keys, 6 standard deviations under the capacity of 4608.
// What both widths share: the histogram's block, the partitions' few-digit
// probe (a warp whose first items show at most kFewDigits digits ranks by
// matches, as kAnyOrderFew; not swept), kMaxKeys (set by the local sort's
// capacity of 4608 keys, the same for both), and kScratchMinKeys: the
// fewest keys a forced MSD path sorts (tests); the scratch holds the path's
// state (1 MB) from there when forced, else from kMinKeys only, so that a
// smaller sort's temp stays small.
struct MsdTuningCommon {
    static constexpr int kHistThreads = 1024;
    static constexpr int kFewDigits = 16;
    static constexpr size_t kMaxKeys = size_t(65536) * 4200;
    static constexpr size_t kScratchMinKeys = 4096;
};
template <int KEY_BYTES> struct MsdTuning;
template <> struct MsdTuning<4> : MsdTuningCommon {
    static constexpr int kPartThreads = 512;
    static constexpr int kPartItems = 15;
    static constexpr int kPartMinBlocks = 2;
    static constexpr int kLocalThreads = 256;
    static constexpr int kLocalItems = 18;
    static constexpr int kLocalMinBlocks = 3;
    static constexpr size_t kMinKeys = size_t(3) << 26;
};
// 8-byte keys: shapes not swept. A tile and a bucket must fit the 48 KB of
// static shared memory as 8-byte keys: partition 512 x 8 (32 KB), local
// sort 256 x 18 (36 KB + 8 KB of warp counters) at 2 blocks an SM (128
// registers, 28 bytes of spills: 18 keys take 36). kMinKeys: against the
// onesweep passes, same process, u64 keys (bench/results/
// 2026-11-29-h200-61c254f): 2^26 1.59x, 2^27 0.996x, 2^28 0.761x.
template <> struct MsdTuning<8> : MsdTuningCommon {
    static constexpr int kPartThreads = 512;
    static constexpr int kPartItems = 8;
    static constexpr int kPartMinBlocks = 2;
    static constexpr int kLocalThreads = 256;
    static constexpr int kLocalItems = 18;
    static constexpr int kLocalMinBlocks = 2;
    static constexpr size_t kMinKeys = size_t(3) << 26;
};
// The stable MSD path of 4-byte keys with 4-byte values (msd_sort.cuh):
// its passes are pass_kernel with PassTuning<4, true>'s tile; the local
// sorts' blocks, which hold one bucket (4608 pairs, kLocalSlack of them the
// keys read before a bucket that starts off a 128-byte line).
// By bytes (msd_crowded_pairs_kernel, once the only local sort): 256 x 18 at
// 3 blocks an SM (52 KB of shared memory), ranked with tables of masks
// (rank_in_warp_masks). Alone on buckets of 3896-4295 pairs that start
// anywhere: 2.525 ms against 2.806 with votes; 384 x 12 2.541, 512 x 9 at 2
// blocks 2.899, 256 x 18 at 4 blocks 2.630; loading each next bucket with
// bulk copies while sorting the current one (2 blocks an SM, 74 KB each)
// 2.589: it waits on shared memory (88% busy under ncu), not on global
// memory (a copy of the keys and values: 1.020 ms; bench/results/
// 2026-11-29-h200x2-42d969e). In the sort it took 2.46-2.54 ms (ncu).
// By bins (msd_local_pairs_kernel): 2^kLocalBinBits bins of the 16 low
// bits, a bucket with a bin of more than kLocalMaxBin keys left to the sort
// by bytes (not swept). Shapes, bench_radixsort --logs 28 --reps 7
// --no-dists --only "u32/u32 pairs", H200, one process each, three rounds
// interleaved, no temp and caller temp, against 56e20b7's 6.95-6.99 ms
// (best CUB 7.42-7.47; bench/results/2026-11-29-h200-local-bins):
//   512 x 9, 3 blocks an SM (40 registers)   6.11-6.16 ms   (this entry)
//   512 x 9, 4 blocks (24 bytes of spills)   6.23-6.27
//   512 x 9, 2 blocks                        6.35-6.42
//   256 x 18, 4 / 3 blocks                   6.65 / 6.67-6.73
//   8192 bins, 512 x 9, 3 / 2 blocks         7.07-7.09 / 7.26-7.28 (68 KB a block)
// Both ways in one kernel, its registers went to the ranking by bytes: 256 x
// 18 spilled and took 6.88-6.92 ms. kMinKeys: the stable path forced against
// the passes in order, same process (bench/results/2026-11-29-h200-local-bins/
// msd_pairs_sizes.txt): 2^25 1.322x, 2^26 1.001x, 2^27 0.849x, 2^28 0.768x;
// so it starts halfway between 2^26 and 2^27 (it started at 3 x 2^26 with
// the ranking by bytes alone: 2^27 1.065x, 2^28 0.898x).
struct MsdPairsTuning : MsdTuningCommon {
    static constexpr int kLocalThreads = 512;
    static constexpr int kLocalItems = 9;
    static constexpr int kLocalMinBlocks = 3;
    static constexpr int kLocalSlack = 31;
    static constexpr int kLocalBinBits = 12;
    static constexpr int kLocalMaxBin = 16;
    static constexpr int kCrowdedThreads = 256;
    static constexpr int kCrowdedItems = 18;
    static constexpr int kCrowdedMinBlocks = 3;
    static constexpr size_t kMinKeys = size_t(3) << 25;
};

// The counting sort of 8- and 16-bit keys without values (counting_sort.cuh).
// First choices, still to be swept on the GPU: 16-byte loads, kCountVectors
// per thread per round; 16-bit keys count half their 65536 values per block
// (128 KB of dynamic shared memory, one block per SM), 8-bit keys all 256
// (1 KB, several blocks per SM); a block counts at least kMinKeysPerBlock keys
// so that zeroing and flushing its counters stays a fraction of its work.
// min_keys(): the automatic choice takes the counting sort from this many
// keys on. bench/results/2026-11-25-h100-sortfast run 1
// (`bench_radixsort --logs 16,20,24,28 --baseline --no-dists --only u8,u16`):
// u8 keys beat the passes at every size (2^16: 0.025 against 0.031 ms); u16
// keys pay ~0.1 ms of fixed cost (65536 counters flushed, scanned by one
// block, searched by the fill), 0.149 against 0.050 ms at 2^20 but 0.210
// against 0.242 at 2^24 and 1.05 against 3.17 at 2^28: linear between the
// two, they cross near 2^23.7, so 16-bit keys start at 2^24.
struct CountingTuning {
    static constexpr size_t min_keys(size_t key_bytes) { return key_bytes == 1 ? 0 : size_t(1) << 24; }
    static constexpr int kMaxSliceBins = 32768;
    static constexpr int kCountThreads = 1024;
    static constexpr int kCountVectors = 4;
    template <int SLICES> static constexpr int kCountBlocksPerSm() { return SLICES > 1 ? 1 : 2; }
    static constexpr size_t kMinKeysPerBlock = 65536;
    // A warp step with more lanes than this (but not all) holding lane 0's
    // first key counts equal keys once per group (count_kernel). At 4,
    // 16-distinct u16 keys went 1.65 -> 1.91 ms (some steps of 5-8 equal
    // lanes matched for nothing); 8 keeps them on plain atomics, while
    // 2-distinct steps hold ~16 (not swept further).
    static constexpr int kCrowdLanes = 8;
    static constexpr int kScanThreads = 1024;
    // kMaxLaneCopyCounters: count_kernel keeps a copy of its counters per
    // lane when the 32 copies fit this many counters (8-bit keys: 256 x 32,
    // 32 KB a block). kFillBlocksPerSm: fill_kernel's resident blocks, each
    // taking tiles until none is left, so that its sample of the starts is
    // read once per block. First choices, not swept, against what ncu showed
    // on the H200 (2^28 u8 keys: count 267 us and fill 388 us for 256 MB each
    // way, the fill's blocks each waiting on two 8-step searches of global
    // starts before a barrier; u16: the starts scan 147 us). With them and
    // the scan in rounds (bench/results/2026-11-29-h200-00c200f, interleaved
    // processes against 5baeda5, `bench_radixsort --logs 28 --reps 11
    // --baseline --only "u8 keys,u16 keys"`): 2^28 u8 keys 0.509 -> 0.341 ms,
    // u16 1.043 -> 0.794, u8 all-equal 0.495 -> 0.341 (the passes' identity
    // copies take 0.41); 2^24 u8 0.053 -> 0.041, u16 0.209 -> 0.175; 2^16
    // and 2^20 unchanged.
    static constexpr int kMaxLaneCopyCounters = 256 * 32;
    static constexpr int kFillThreads = 256;
    static constexpr int kFillBlocksPerSm = 8;
};

// Status words of the look-back: 32-bit (2-bit flag + 30-bit count) while
// counts fit 30 bits, else 64-bit (2-bit flag + 62-bit count). The segmented
// sort's per-segment digit counts take the same width.
constexpr unsigned long long kNarrowStatusLimit = 1ull << 30;
constexpr size_t status_word_bytes(size_t count) { return count < kNarrowStatusLimit ? 4 : 8; }

} // namespace libscan::sort
