// sat_tuning.cuh -- every tuning constant of the summed-area-table build
// (sat_kernels.cuh, build_sat), in one table.
//
// The build cuts the image into tiles of kTileW x kTileH pixels (sat_kernels.cuh
// says what each stage does with them). A tile is chosen by the table's pixel
// size, PIXEL_BYTES = channels x sizeof(table element), and by nothing else,
// so the order in which a float table adds its elements depends only on the
// types, the channel count, the width and the height; and
// libscan_sat_temp_bytes(), which knows the channels and the table type but
// not the input type, knows the tile (the temp holds one carry per tile row
// and column, see sat_carry_layout in sat_kernels.cuh).
//
// Per tile, kThreads threads:
//  * row pass: a thread takes kChunk consecutive pixels of a row (their
//    kChunk x PIXEL_BYTES table bytes must be whole 16-byte units, and their
//    number of units odd or a power of two: then the row pass stores to
//    shared memory without bank conflicts), kTileW / kChunk threads per row
//    (a power of two, at most 32: one shuffle scan per row);
//  * column pass: a thread takes one 16-byte unit of a row (4 scalars of 4
//    bytes, 2 of 8) down kTileH / kColSegments consecutive rows, and the
//    kColSegments segments of a column meet in shared memory.
// The tile and the segment totals live in static shared memory:
// kTileW x kTileH x PIXEL_BYTES x (1 + 1 / rows per segment) <= 48 KiB
// (static_asserts in sat_kernels.cuh check every rule above).
// kMinBlocksPerSM goes to __launch_bounds__ (4 caps registers at 64, and 4
// blocks of 36 KiB fit the SM's shared memory).
//
// The RGBA8 -> uint32 entry (16-byte pixels) was swept on an H100 with
// bench/sat_blur/sat_tile_sweep.sh (3840x2160, 100 tiles that meet the
// rules, 2026-11-25, bench/results/2026-11-25-h100-sat-sweep): 64 x 32,
// chunk 8, 4 segments, 256 threads, 4 blocks per SM (the entry below) was
// the fastest, 103.8 us; 64 x 32 with chunk 4 103.9; 8 segments 104.4;
// 32 x 64 105.8; 128 x 16 110.3 and up. The other entries follow its shape
// by the traffic and register arithmetic and are not swept. What the choice
// trades: larger tiles mean less carry traffic (the temp is about
// (1 / kTileW + 1 / kTileH) of the table) but fewer tiles in flight; the
// carries of a 64 x 32 RGBA8 tiling of a 4K image are 6.3 MB against 166 MB
// of image and table.
#pragma once

#include <cstddef>

namespace libscan::sat {

template <int PIXEL_BYTES> struct SatTuning; // only the pixel sizes a table can have

// 1 channel of 4 bytes (u32, f32 tables): 128 x 64 px, 16 px per row thread.
template <> struct SatTuning<4> {
    static constexpr int kTileW = 128, kTileH = 64, kChunk = 16, kColSegments = 8;
    static constexpr int kThreads = 256, kMinBlocksPerSM = 4;
};
// 2 channels of 4 bytes, 1 of 8 (u64, f64): 64 x 64 px.
template <> struct SatTuning<8> {
    static constexpr int kTileW = 64, kTileH = 64, kChunk = 8, kColSegments = 8;
    static constexpr int kThreads = 256, kMinBlocksPerSM = 4;
};
// 3 channels of 4 bytes: 64 x 32 px, 4 px (3 units) per row thread; the
// column pass has 48 units x 4 segments for 256 threads (64 idle: with 8
// segments, two rounds per thread spilled registers).
template <> struct SatTuning<12> {
    static constexpr int kTileW = 64, kTileH = 32, kChunk = 4, kColSegments = 4;
    static constexpr int kThreads = 256, kMinBlocksPerSM = 4;
};
// 4 channels of 4 bytes (RGBA8 -> u32, the issue's case), 2 of 8: 64 x 32 px.
// LIBSCAN_SAT_TUNING_16, when defined, replaces this entry's body: only
// bench/sat_blur/sat_tile_sweep.cu defines it, to time candidate tiles in
// scratch binaries without editing this table.
template <> struct SatTuning<16> {
#ifdef LIBSCAN_SAT_TUNING_16
    LIBSCAN_SAT_TUNING_16
#else
    static constexpr int kTileW = 64, kTileH = 32, kChunk = 8, kColSegments = 4;
    static constexpr int kThreads = 256, kMinBlocksPerSM = 4;
#endif
};
// 3 channels of 8 bytes: 32 x 32 px, 2 px (3 units) per row thread; 48 x 4
// column items as for 12 bytes.
template <> struct SatTuning<24> {
    static constexpr int kTileW = 32, kTileH = 32, kChunk = 2, kColSegments = 4;
    static constexpr int kThreads = 256, kMinBlocksPerSM = 4;
};
// 4 channels of 8 bytes: 32 x 32 px.
template <> struct SatTuning<32> {
    static constexpr int kTileW = 32, kTileH = 32, kChunk = 4, kColSegments = 4;
    static constexpr int kThreads = 256, kMinBlocksPerSM = 4;
};

// The tile of a pixel size at run time (libscan_sat_temp_bytes); 0 x 0 for a
// size no table has.
struct SatTile {
    size_t w, h;
};
constexpr SatTile sat_tile(int pixel_bytes) {
    switch (pixel_bytes) {
    case 4: return {SatTuning<4>::kTileW, SatTuning<4>::kTileH};
    case 8: return {SatTuning<8>::kTileW, SatTuning<8>::kTileH};
    case 12: return {SatTuning<12>::kTileW, SatTuning<12>::kTileH};
    case 16: return {SatTuning<16>::kTileW, SatTuning<16>::kTileH};
    case 24: return {SatTuning<24>::kTileW, SatTuning<24>::kTileH};
    case 32: return {SatTuning<32>::kTileW, SatTuning<32>::kTileH};
    }
    return {0, 0};
}

// The carry scans between the tile passes (sat_kernels.cuh, scan_carries):
// a block takes 32 lanes (scalars) of a carry array and kCarryGroups warps
// split its rows, each warp up to kCarryRows rows per round in registers.
// Provisional as above (a 4K RGBA8 image has 60 and 68 carry rows).
struct SatCarryTuning {
    static constexpr int kCarryGroups = 8;
    static constexpr int kCarryRows = 16;
};

} // namespace libscan::sat
