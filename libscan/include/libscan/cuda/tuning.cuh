// tuning.cuh -- every tuning constant of libscan, in one table.
//
// Each entry names the benchmark run that chose it (bench/results/). Tiles
// are chosen by element size only, so the association of a scan -- and
// therefore its floating-point result -- depends only on the element size.
#pragma once

#include <cstddef>

namespace libscan {

// Device-wide single-pass scan (device_scan.cuh): threads per block and items
// per thread. Each thread keeps 128 bytes (eight 16-byte loads) in flight:
// large tiles, because the look-back chain, not bandwidth, limits small ones.
// Chosen by: bench/results/2026-11-21-h100-tile-sweep.md (2^28 sums; u32 and
// f32: 256x32 beat 256x16, 512x16, 256x24, 384x16, 512x32; u64: 256x16 beat
// 256x8, 512x8, 256x12, 512x16).
template <size_t ELEMENT_BYTES> struct ScanTuning {
    static constexpr int kBlockThreads = 256;
    static constexpr int kItemsPerThread = ELEMENT_BYTES >= 128 ? 1 : int(128 / ELEMENT_BYTES);
};
template <> struct ScanTuning<4> {
    static constexpr int kBlockThreads = 256;
    static constexpr int kItemsPerThread = 32;
};
template <> struct ScanTuning<8> {
    static constexpr int kBlockThreads = 256;
    static constexpr int kItemsPerThread = 16;
};

} // namespace libscan
