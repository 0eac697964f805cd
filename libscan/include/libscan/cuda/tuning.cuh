// tuning.cuh -- every tuning constant of libscan, in one table.
//
// Each entry names the benchmark run that chose it (bench/results/). Tiles
// are chosen by element size only, so the association of a scan -- and
// therefore its floating-point result -- depends only on the element size.
#pragma once

#include <cstddef>

namespace libscan {

// Device-wide single-pass scan (device_scan.cuh): threads per block and items
// per thread. Each thread keeps 64 bytes (four 16-byte loads) in flight.
// Chosen by: bench/results/ h100 run of the first release (see README table).
template <size_t ELEMENT_BYTES> struct ScanTuning {
    static constexpr int kBlockThreads = 256;
    static constexpr int kItemsPerThread = ELEMENT_BYTES >= 64 ? 1 : int(64 / ELEMENT_BYTES);
};
template <> struct ScanTuning<4> {
    static constexpr int kBlockThreads = 256;
    static constexpr int kItemsPerThread = 16;
};
template <> struct ScanTuning<8> {
    static constexpr int kBlockThreads = 256;
    static constexpr int kItemsPerThread = 8;
};

} // namespace libscan
