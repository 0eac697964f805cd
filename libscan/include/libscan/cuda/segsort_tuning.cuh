// segsort_tuning.cuh -- every tuning constant of libscan's segmented sort
// (sort.h, "Segmented sort"; kernels in segmented_sort.cuh), in one table.
//
// All entries are provisional: first choices reasoned from shared memory
// and occupancy, still to be swept on an H100 (bench/radixsort's
// bench_segsort). A block sorts a whole segment in static shared memory
// (48 KB): 16 x threads digit counters (4 bytes) and an exchange buffer of
// threads x items elements of max(key, value) bytes.
#pragma once

namespace libscan::sort {

// WIDEST: the larger of the key and value sizes, in bytes (1, 2, 4 or 8).
template <int WIDEST> struct SegSortTuning {
    // Tiny segments (up to 32 x 8 = 256 keys): one warp per segment, so that
    // 2^20 segments of 256 keys keep every SM full with 32 blocks each.
    static constexpr int kTinyThreads = 32;
    static constexpr int kTinyItems = 8;
    // Small segments (up to 128 x 8 = 1024 keys): four warps.
    static constexpr int kSmallThreads = 128;
    static constexpr int kSmallItems = 8;
    // Tile: the largest segment one block sorts alone (256 x 16 = 4096 keys
    // of up to 4 bytes, 256 x 8 = 2048 of 8): 16 KB of exchange + 16 KB of
    // counters. Larger segments take the plain sort's passes (PassTuning).
    static constexpr int kTileThreads = 256;
    static constexpr int kTileItems = WIDEST >= 8 ? 8 : 16;
    // Resident blocks of 256 threads an SM must hold (__launch_bounds__): 2
    // caps a thread at 128 registers (ptxas gave the tile kernels 150-190
    // without it: one block, 8 warps, an SM).
    static constexpr int kTileMinBlocks = 2;
    // Segments a block of the one-block kernels examines per round (it sorts
    // those of its size class one after another).
    static constexpr int kSegmentsPerRound = 32;
    // Blocks per SM of the grid-stride scans of the device-wide passes' tile
    // and segment counts (only known on the device).
    static constexpr int kBlocksPerSm = 4;
    // Those in-place u64 scans: threads x items per chunk.
    static constexpr int kScanThreads = 256;
    static constexpr int kScanItems = 8;
};

} // namespace libscan::sort
