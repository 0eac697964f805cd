// compact_shim.cu -- C-callable pieces of the device templates for
// test_compact_lib.c: tile sizes (to place sizes at tile +-1) and a select
// with a user functor through compact.cuh.
#include <cstdint>
#include "libscan/cuda/compact.cuh"
#include "compact_shim.h"

namespace {
// Keeps multiples of `m`: a user functor with state.
struct MultipleOf {
    uint32_t m;
    __device__ bool operator()(uint32_t x) const { return x % m == 0; }
};
} // namespace

extern "C" size_t compact_test_tile_items(libscan_dtype_t dtype) {
    switch (dtype) {
    case LIBSCAN_U32: return libscan::compact::DeviceCompact<uint32_t>::kTileItems;
    case LIBSCAN_I32: return libscan::compact::DeviceCompact<int32_t>::kTileItems;
    case LIBSCAN_U64: return libscan::compact::DeviceCompact<uint64_t>::kTileItems;
    case LIBSCAN_I64: return libscan::compact::DeviceCompact<int64_t>::kTileItems;
    case LIBSCAN_F32: return libscan::compact::DeviceCompact<float>::kTileItems;
    case LIBSCAN_F64: return libscan::compact::DeviceCompact<double>::kTileItems;
    case LIBSCAN_U8:
    case LIBSCAN_U16: return 0; // not a compaction dtype (INVALID_DTYPE)
    }
    return 0;
}

extern "C" int compact_test_functor_select(const uint32_t *d_in, uint32_t *d_out, uint32_t *d_rejected,
                                           size_t *d_num, size_t n, uint32_t m) {
    using DC = libscan::compact::DeviceCompact<uint32_t>;
    const size_t bytes = DC::temp_bytes(n);
    void *temp = nullptr;
    if (bytes && cudaMalloc(&temp, bytes) != cudaSuccess) return 1;
    cudaError_t e = d_rejected ? DC::partition_if(d_in, d_out, d_rejected, d_num, n, MultipleOf{m}, temp, bytes, 0)
                               : DC::select_if(d_in, d_out, d_num, n, MultipleOf{m}, temp, bytes, 0);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (temp) cudaFree(temp);
    return e == cudaSuccess ? 0 : 1;
}
