// compact_tuning.cuh -- every tuning constant of the compaction kernels, in
// one table (compact.cuh reads it).
//
// A tile is kBlockThreads x kItemsPerThread elements; each thread keeps its
// keep-flags in one 32-bit mask, so kItemsPerThread <= 32. The tile is staged
// in shared memory before the coalesced writes (tile x output-element bytes
// of dynamic shared memory: 32 KiB for values, 64 KiB for u32 indices).
//
// Chosen by the bench target compact_sweep (bench/compact), run as
// `compact_sweep --log2n 28 --reps 15` on an H100 80GB HBM3 with
// libscan::kLookbackGroups = 8 (the sweep prints it): 256 x 32 with 4 blocks
// per SM (64 registers, no spills) was fastest or within 3% at every rate:
// select-if 1% / 50% / 99% 448 / 592 / 826 us (CUB 526 / 712 / 945),
// partition 50% 808 (CUB 1013), unique 1% 453 (CUB 544). 512 x 32 with 2
// blocks was 4% faster at 1% and slower elsewhere; 256 x 16 (twice the
// tiles) lost everywhere. Other element sizes: first choices, not swept.
#pragma once

#include <cstddef>

namespace libscan::compact {

// kMinBlocksPerSM: the __launch_bounds__ minimum of resident blocks per SM
// (1 = registers left to the compiler).
// kPrefetchTiles: L2 prefetch distance in tiles, libscan's scan value
// (ScanTuning::kPrefetchTiles, measured for the scan), not swept here.
template <size_t ELEMENT_BYTES> struct CompactTuning {
    static constexpr int kBlockThreads = 256;
    static constexpr int kItemsPerThread = ELEMENT_BYTES >= 16 ? 4 : 16;
    static constexpr int kMinBlocksPerSM = 1;
    static constexpr int kPrefetchTiles = 132;
};
template <> struct CompactTuning<4> {
    static constexpr int kBlockThreads = 256;
    static constexpr int kItemsPerThread = 32;
    static constexpr int kMinBlocksPerSM = 4;
    static constexpr int kPrefetchTiles = 132;
};
template <> struct CompactTuning<8> {
    static constexpr int kBlockThreads = 256;
    static constexpr int kItemsPerThread = 16;
    static constexpr int kMinBlocksPerSM = 1;
    static constexpr int kPrefetchTiles = 132;
};

} // namespace libscan::compact
