// compact_tuning.cuh -- every tuning constant of the compaction kernels, in
// one table (compact.cuh reads it).
//
// A tile is kBlockThreads x kItemsPerThread elements; each thread keeps its
// keep-flags in one 32-bit mask, so kItemsPerThread <= 32. The tile is staged
// in shared memory before the coalesced writes (tile x output-element bytes
// of dynamic shared memory: 32 KiB for values, 64 KiB for u32 indices).
//
// Chosen by: not yet measured. Start values follow libscan's scan table
// (tuning.cuh, bench/results/2026-11-21-h100-tile-sweep.md: large tiles,
// eight 16-byte loads in flight per thread, because the look-back chain
// limits small tiles); to be confirmed by bench/compact/bench_compact on the
// H100, and the run that confirms them named here.
#pragma once

#include <cstddef>

namespace compact {

// kMinBlocksPerSM: the __launch_bounds__ minimum of resident blocks per SM
// (1 = registers left to the compiler: 3 blocks of the 4-byte shape fit).
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
    static constexpr int kMinBlocksPerSM = 1;
    static constexpr int kPrefetchTiles = 132;
};
template <> struct CompactTuning<8> {
    static constexpr int kBlockThreads = 256;
    static constexpr int kItemsPerThread = 16;
    static constexpr int kMinBlocksPerSM = 1;
    static constexpr int kPrefetchTiles = 132;
};

} // namespace compact
