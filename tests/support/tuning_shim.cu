// tuning_shim.cu -- the tile sizes of the device-wide scan, for choosing
// test sizes at tile boundaries (the tests' sizes follow the tuning table).
#include "libscan/cuda/tuning.cuh"
#include "support/shims.h"

extern "C" size_t shim_scan_tile_items(size_t element_bytes) {
    switch (element_bytes) {
    case 4: return size_t(libscan::ScanTuning<4>::kBlockThreads) * libscan::ScanTuning<4>::kItemsPerThread;
    case 8: return size_t(libscan::ScanTuning<8>::kBlockThreads) * libscan::ScanTuning<8>::kItemsPerThread;
    default: return 0;
    }
}
