// tuning.cuh -- every tuning constant of libscan, in one table.
//
// Each entry names the benchmark (bench/ target and arguments) whose runs on
// an H100 chose it. Tiles are chosen by element size only, so the
// association of a scan -- and therefore its floating-point result --
// depends only on the element size (and, up to the grid scan's capacity, on
// the count).
#pragma once

#include <cstddef>
#include <type_traits>

namespace libscan {

// Device-wide single-pass scan (device_scan.cuh): threads per block and items
// per thread. Each thread keeps 128 bytes (eight 16-byte loads) in flight:
// large tiles, because the look-back chain, not bandwidth, limits small ones.
// Chosen by: bench/tile_sweep (2^28 sums; u32 and f32: 256x32 beat 256x16,
// 512x16, 256x24, 384x16, 512x32; u64: 256x16 beat 256x8, 512x8, 256x12,
// 512x16).
// kMinBlocksPerSM goes to __launch_bounds__ (1 leaves registers to the
// compiler, larger values cap them); kMinBlocksPerSMFloat is the same for
// float element types. Neither changes the association, which depends on the
// tile shape only. With the tile staged in shared memory across the
// look-back (device_scan.cuh, tile_stage.cuh) a thread needs 48 registers
// at 5 blocks of 256 x 32 (4-byte) and 54 at 4 blocks of 256 x 16 (8-byte),
// no spills. Chosen by: bench/tile_sweep, the staged kernel against the tile
// in registers (2^28 on the H100, prefetch 132): u32 staged 4/5/6 blocks
// 751/748/743 us against 764-769 us with the tile in registers (4 blocks, 64 registers,
// 16 bytes spilled); f32 749/746/758 (6 blocks spill) against 789-800;
// u64 3/4/5 blocks 1521/1523/1558 against 1582-1585; f64 1519/1517/1558
// against 1725-1730. Earlier register-path choices: bench/tile_sweep and
// bench/tile_sweep --8byte (minimum blocks per SM).
// With the look-back over 8 groups (lookback.cuh) the same shapes stayed
// best: bench/tile_sweep and bench/tile_sweep --8byte (u32 5 or 4
// blocks 730-731 us, 6 blocks 878; u64 256 x 16 1457 us against 1534-1721
// for 256 x 24, 256 x 32 and 512 x 16 in dynamic shared memory).
//
// kPrefetchTiles: each block asks L2 (sm_90 bulk prefetch) for the input of
// the tile this many tiles after its own, so DRAM keeps reading while
// resident blocks wait on their look-back; no effect on results. Chosen by:
// bench/tile_sweep --prefetch (2^28, tuned shapes, distance
// 0/66/132/264/528/792/1056 tiles): 132 (one tile per SM of the H100)
// gave u32 764 us against 795-802 without, f32 788 against 821, u64 1564
// against 1650, f64 1630 against 1722; 66 was within 1 %; 264 gained less
// and 528 or more lost 35-50 % (the prefetched tiles no longer wait in L2).
// An H200 run (same 132 SMs) agreed: 66-264 best, 528+ slower.
//
// Mid sizes: a scan of at most kMidMaxTiles tiles (2^23 4-byte elements,
// 2^22 8-byte) runs a second instantiation of the same kernel: the same
// tile (so the same association and bitwise the same results), a look-back
// poll that issues all its loads at once (lookback.cuh, LOADS_FIRST) and
// kMidMinBlocksPerSM for the registers that takes. There every tile is
// resident at once or nearly, the group chain sets the pace and bandwidth
// does not; past it the large kernel wins. 0: no mid kernel. Chosen by
// bench/mid_sweep (graph device time, H100, large
// kernel -> mid): u32 2^21 11.61 -> 10.42 us, 2^22 17.08 -> 14.23, 2^23
// 35.06 -> 33.38 (1024 tiles), 2^24 56.97 -> 56.98, 2^28 721 -> 757; f32
// 2^22 16.54 -> 14.03; u64 at 3 blocks 2^20 10.68 -> 9.15, 2^22 35.34 ->
// 33.88 (1024 tiles), 2^23 56.74 -> 58.65. Windows of 16 groups, smaller
// tiles and a longer poll back-off all measured slower.
template <size_t ELEMENT_BYTES> struct ScanTuning {
    static constexpr int kBlockThreads = 256;
    static constexpr int kItemsPerThread = ELEMENT_BYTES >= 128 ? 1 : int(128 / ELEMENT_BYTES);
    static constexpr int kMinBlocksPerSM = 1;
    static constexpr int kMinBlocksPerSMFloat = 1;
    static constexpr int kPrefetchTiles = 132;
    static constexpr size_t kMidMaxTiles = 0;
    static constexpr int kMidMinBlocksPerSM = 1;
};
template <> struct ScanTuning<4> {
    static constexpr int kBlockThreads = 256;
    static constexpr int kItemsPerThread = 32;
    static constexpr int kMinBlocksPerSM = 5;
    static constexpr int kMinBlocksPerSMFloat = 5;
    static constexpr int kPrefetchTiles = 132;
    static constexpr size_t kMidMaxTiles = 1024;
    static constexpr int kMidMinBlocksPerSM = 4;
};
template <> struct ScanTuning<8> {
    static constexpr int kBlockThreads = 256;
    static constexpr int kItemsPerThread = 16;
    static constexpr int kMinBlocksPerSM = 4;
    static constexpr int kMinBlocksPerSMFloat = 4;
    static constexpr int kPrefetchTiles = 132;
    static constexpr size_t kMidMaxTiles = 1024;
    static constexpr int kMidMinBlocksPerSM = 3;
};

// The launch-bounds minimum for element type T (see ScanTuning).
template <typename T> constexpr int scan_min_blocks() {
    return std::is_floating_point_v<T> ? ScanTuning<sizeof(T)>::kMinBlocksPerSMFloat
                                       : ScanTuning<sizeof(T)>::kMinBlocksPerSM;
}

// Small inputs: the grid scan (grid_scan.cuh), up to kMaxBlocks blocks of
// kBlockThreads x kItemsPerThread, one tile each, capacity 65536 elements
// for 4- and 8-byte types (larger types take the look-back). Eager streams
// and captured ones run the same shape (one association per count). Device
// time per 2^16 call with the calls queued behind a sleeping kernel (eager
// launches; graphs would replay one launch's flag tag), H100, bench/grid_sweep:
//  * 4-byte: 64 x 128 x 8, 3.28-3.49 us against 3.41-3.62 for 64 x 256 x 4,
//    3.73 for 32 x 256 x 8, the former single-cluster scan's 3.58 and CUB's 6.04;
//  * 8-byte: 64 x 256 x 4, 3.70 us against 3.82 for 64 x 128 x 8 and 4.38
//    for 128 x 128 x 4, once a flag poll is one round trip (grid_flags.cuh;
//    before that 3.98 for 64 x 128 x 8), the former single-cluster scan's 4.84
//    and CUB's 6.52.
// An empty kernel is ~1.7-2.0 us in the same measure. The shape fixes the
// association of a type's small scans.
template <size_t ELEMENT_BYTES> struct GridTuning {
    static constexpr int kMaxBlocks = 64; // at most GridFlagsLayout::kBlocks
    static constexpr int kBlockThreads = ELEMENT_BYTES <= 4 ? 128 : 256;
    static constexpr int kItemsPerThread = ELEMENT_BYTES <= 4 ? 8 : 4;
};

// Segmented scan (segmented.cuh): each item is a (32-bit tag, value) pair,
// so tiles hold half the elements of the plain scan's for the same registers.
// Provisional (not swept yet): 256 x 16 for 4-byte values, 256 x 8 above.
template <size_t ELEMENT_BYTES> struct SegScanTuning {
    static constexpr int kBlockThreads = 256;
    static constexpr int kItemsPerThread = ELEMENT_BYTES <= 4 ? 16 : (ELEMENT_BYTES <= 8 ? 8 : 1);
};

// Head-flag segmented scan (flag_scan.cuh): values in registers and a
// per-warp shared staging area (128 bytes per thread, 32 KB per block of
// 256), heads as a bit mask, so the tile is the plain scan's (at most 32
// items per thread, the width of the head mask). The tile shape fixes the
// association of the flags path; kMinBlocksPerSM goes to __launch_bounds__
// and does not. Provisional, to be measured by bench_segmented on the H100
// (2^28 u32 sums, mean segment length 1000 and lengths 1..32): 4-byte
// 256 x 32 with 4 blocks per SM (ptxas, CUDA 13.0: 48-54 registers, no
// spills), 8-byte 256 x 16 with the compiler's choice (69-74 registers, no
// spills: 3 blocks per SM; a min of 4 also compiles without spills, 48-64
// registers, which the measurement should try). kPrefetchTiles: the plain
// scan's distance (values and flags of that tile are prefetched).
template <size_t ELEMENT_BYTES> struct FlagScanTuning {
    static constexpr int kBlockThreads = 256;
    static constexpr int kItemsPerThread = ELEMENT_BYTES >= 128 ? 1 : (128 / ELEMENT_BYTES > 32 ? 32 : int(128 / ELEMENT_BYTES));
    static constexpr int kMinBlocksPerSM = 1;
    static constexpr int kPrefetchTiles = ScanTuning<ELEMENT_BYTES>::kPrefetchTiles;
};
template <> struct FlagScanTuning<4> {
    static constexpr int kBlockThreads = 256;
    static constexpr int kItemsPerThread = 32;
    static constexpr int kMinBlocksPerSM = 4;
    static constexpr int kPrefetchTiles = ScanTuning<4>::kPrefetchTiles;
};
template <> struct FlagScanTuning<8> {
    static constexpr int kBlockThreads = 256;
    static constexpr int kItemsPerThread = 16;
    static constexpr int kMinBlocksPerSM = 1;
    static constexpr int kPrefetchTiles = ScanTuning<8>::kPrefetchTiles;
};

// Batched row scan (row_scan.cuh). Rows need no look-back.
// kShortMaxRowBytes: rows of up to this many bytes (4096 elements of 4
// bytes, 2048 of 8) take the short-row kernels, which need no shared memory:
// rows of <= 32 x 16 bytes are scanned by 2^k lanes each, several rows per
// warp, kShortGroupsPerWarp row groups loaded before any is scanned; longer
// ones by one warp per row, kShortChunksPerWarp chunks of 32 x 16 bytes
// loaded before any is scanned. Blocks of kShortBlockThreads;
// kShortMinBlocksPerSM goes to __launch_bounds__ (4 x 256 threads caps the
// registers at 64). kMinRowsPerLaunch: longer rows take the one-block-per-row
// kernel (ScanTuning's tile as its chunk) only when there are at least this
// many, about the blocks an H100 keeps resident (132 SMs x 4 = 528); fewer
// long rows would leave SMs idle and keep the look-back path (segmented.cuh).
// None of these change the association except kShortMaxRowBytes (which
// kernel a row length takes).
// Provisional: the short-row values are not measured yet (bench_segmented,
// 2^22 rows x 64 u32, on the H100); kMinRowsPerLaunch and the row-length
// limit are the earlier kernels' values, kept.
template <size_t ELEMENT_BYTES> struct RowScanTuning {
    static constexpr size_t kMinRowsPerLaunch = 512;
    static constexpr size_t kShortMaxRowBytes = 16384;
    static constexpr int kShortBlockThreads = 256;
    static constexpr int kShortGroupsPerWarp = 4;
    static constexpr int kShortChunksPerWarp = 4;
    static constexpr int kShortMinBlocksPerSM = 4;
    // The long-row kernel keeps its chunk (ScanTuning's tile) in registers:
    // the register-path minima of the plain scan before it was staged
    // (bench/tile_sweep and bench/tile_sweep --8byte), ints and floats.
    static constexpr int kLongMinBlocksPerSM = ELEMENT_BYTES == 4 ? 4 : (ELEMENT_BYTES == 8 ? 3 : 1);
    static constexpr int kLongMinBlocksPerSMFloat = ELEMENT_BYTES == 4 ? 4 : 1;
};

// The long-row kernel's launch-bounds minimum for element type T.
template <typename T> constexpr int row_long_min_blocks() {
    return std::is_floating_point_v<T> ? RowScanTuning<sizeof(T)>::kLongMinBlocksPerSMFloat
                                       : RowScanTuning<sizeof(T)>::kLongMinBlocksPerSM;
}

} // namespace libscan
