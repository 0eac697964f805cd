// tuning_shim.cu -- the tile sizes of the device-wide scan and of the eager
// small scan, for choosing test sizes at tile boundaries (the tests' sizes
// follow the tuning table).
#include "libscan/cuda/tuning.cuh"
#include "support/shims.h"

extern "C" size_t shim_scan_tile_items(size_t element_bytes) {
    switch (element_bytes) {
    case 4: return size_t(libscan::ScanTuning<4>::kBlockThreads) * libscan::ScanTuning<4>::kItemsPerThread;
    case 8: return size_t(libscan::ScanTuning<8>::kBlockThreads) * libscan::ScanTuning<8>::kItemsPerThread;
    default: return 0;
    }
}

extern "C" size_t shim_scan_mid_max_tiles(size_t element_bytes) {
    switch (element_bytes) {
    case 4: return libscan::ScanTuning<4>::kMidMaxTiles;
    case 8: return libscan::ScanTuning<8>::kMidMaxTiles;
    default: return 0;
    }
}

extern "C" size_t shim_grid_tile_items(size_t element_bytes) {
    switch (element_bytes) {
    case 4: return size_t(libscan::GridTuning<4>::kBlockThreads) * libscan::GridTuning<4>::kItemsPerThread;
    case 8: return size_t(libscan::GridTuning<8>::kBlockThreads) * libscan::GridTuning<8>::kItemsPerThread;
    default: return 0;
    }
}

extern "C" size_t shim_grid_capacity(size_t element_bytes) {
    switch (element_bytes) {
    case 4: return shim_grid_tile_items(4) * size_t(libscan::GridTuning<4>::kMaxBlocks);
    case 8: return shim_grid_tile_items(8) * size_t(libscan::GridTuning<8>::kMaxBlocks);
    default: return 0;
    }
}
