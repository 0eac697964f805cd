// segmented_launch.cu -- the explicit instantiations behind the segmented
// C API: one DeviceSegmentedScan per (dtype, op, way of giving segments).
#include "internal.h"
#include "libscan/cuda/segmented.cuh"

namespace {

template <typename T, class Op> cudaError_t launch(const libscan__seg_call_t &c, cudaStream_t stream) {
    using Scan = libscan::DeviceSegmentedScan<T>;
    constexpr size_t V = sizeof(T) < 16 ? 16 / sizeof(T) : 1;
    libscan::SegmentedArgs<T> a;
    a.in = static_cast<const T *>(c.in);
    a.out = static_cast<T *>(c.out);
    a.n = c.count;
    a.exclusive = c.exclusive;
    a.seg_init = static_cast<const T *>(c.seg_init);
    const bool aligned = reinterpret_cast<uintptr_t>(c.in) % 16 == 0 && reinterpret_cast<uintptr_t>(c.out) % 16 == 0;
    switch (c.mode) {
    case LIBSCAN_SEGMENTS_FLAGS: {
        libscan::FlagHeads src{c.flags, aligned && reinterpret_cast<uintptr_t>(c.flags) % 4 == 0};
        return Scan::template run<libscan::SegTags::kCount>(a, src, Op(), c.temp, c.temp_bytes, stream);
    }
    case LIBSCAN_SEGMENTS_ROWS: {
        libscan::RowHeads src{c.row_len, c.pitch, aligned && c.row_len % V == 0 && c.pitch % V == 0};
        return Scan::template run<libscan::SegTags::kLatest>(a, src, Op(), c.temp, c.temp_bytes, stream);
    }
    case LIBSCAN_SEGMENTS_OFFSETS:
        return Scan::run_offsets(a, c.offsets, c.num_segments, Op(), c.temp, c.temp_bytes, stream);
    }
    return cudaErrorInvalidValue;
}

template <typename T> cudaError_t launch_op(const libscan__seg_call_t &c, cudaStream_t stream) {
    switch (c.op) {
    case LIBSCAN_OP_SUM: return launch<T, libscan::Sum<T>>(c, stream);
    case LIBSCAN_OP_MIN: return launch<T, libscan::Min<T>>(c, stream);
    case LIBSCAN_OP_MAX: return launch<T, libscan::Max<T>>(c, stream);
    }
    return cudaErrorInvalidValue;
}

template <typename T> size_t temp_bytes(size_t count, libscan_segments_t mode) {
    using Scan = libscan::DeviceSegmentedScan<T>;
    if (count == 0) return 0;
    return Scan::state_bytes(count) + (mode == LIBSCAN_SEGMENTS_OFFSETS ? Scan::offsets_extra_bytes(count) : 0);
}

} // namespace

extern "C" size_t libscan__seg_temp_bytes(size_t count, libscan_dtype_t dtype, libscan_segments_t mode) {
    switch (dtype) {
    case LIBSCAN_U32: return temp_bytes<uint32_t>(count, mode);
    case LIBSCAN_I32: return temp_bytes<int32_t>(count, mode);
    case LIBSCAN_U64: return temp_bytes<uint64_t>(count, mode);
    case LIBSCAN_I64: return temp_bytes<int64_t>(count, mode);
    case LIBSCAN_F32: return temp_bytes<float>(count, mode);
    case LIBSCAN_F64: return temp_bytes<double>(count, mode);
    }
    return 0;
}

extern "C" cudaError_t libscan__seg_launch(const libscan__seg_call_t *c, cudaStream_t stream) {
    switch (c->dtype) {
    case LIBSCAN_U32: return launch_op<uint32_t>(*c, stream);
    case LIBSCAN_I32: return launch_op<int32_t>(*c, stream);
    case LIBSCAN_U64: return launch_op<uint64_t>(*c, stream);
    case LIBSCAN_I64: return launch_op<int64_t>(*c, stream);
    case LIBSCAN_F32: return launch_op<float>(*c, stream);
    case LIBSCAN_F64: return launch_op<double>(*c, stream);
    }
    return cudaErrorInvalidValue;
}
