// segmented_launch.cu -- the explicit instantiations behind the segmented
// C API: DeviceFlagScan for head flags, DeviceSegmentedScan for offsets and
// for the rows that DeviceRowScan's applies() does not take (no temp there),
// per (dtype, op).
#include "core/dispatch.cuh"
#include "scan_internal.h"
#include "libscan/cuda/flag_scan.cuh"
#include "libscan/cuda/row_scan.cuh"
#include "libscan/cuda/segmented.cuh"

using libscan::detail::dispatch::with_dtype;
using libscan::detail::dispatch::with_op;

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
    case LIBSCAN_SEGMENTS_FLAGS:
        return libscan::DeviceFlagScan<T>::run(a, c.flags, Op(), c.temp, c.temp_bytes, stream);
    case LIBSCAN_SEGMENTS_ROWS: {
        const size_t rows = c.row_len ? c.count / c.row_len : 0;
        if (libscan::DeviceRowScan<T>::applies(rows, c.row_len)) {
            libscan::RowScanArgs<T> r;
            r.in = a.in, r.out = a.out, r.rows = rows, r.row_len = c.row_len, r.pitch = c.pitch;
            r.exclusive = c.exclusive, r.seg_init = a.seg_init;
            return libscan::DeviceRowScan<T>::run(r, Op(), stream);
        }
        libscan::RowHeads src{c.row_len, c.pitch, aligned && c.row_len % V == 0 && c.pitch % V == 0};
        return Scan::template run<libscan::SegTags::kLatest>(a, src, Op(), c.temp, c.temp_bytes, stream);
    }
    case LIBSCAN_SEGMENTS_OFFSETS:
        return Scan::run_offsets(a, c.offsets, c.num_segments, Op(), c.temp, c.temp_bytes, stream);
    }
    return cudaErrorInvalidValue;
}

template <typename T> size_t temp_bytes(size_t count, libscan_segments_t mode) {
    using Scan = libscan::DeviceSegmentedScan<T>;
    if (count == 0) return 0;
    if (mode == LIBSCAN_SEGMENTS_FLAGS) return libscan::DeviceFlagScan<T>::temp_bytes(count);
    return Scan::state_bytes(count) + (mode == LIBSCAN_SEGMENTS_OFFSETS ? Scan::offsets_extra_bytes(count) : 0);
}

} // namespace

extern "C" size_t libscan__seg_temp_bytes(size_t count, libscan_dtype_t dtype, libscan_segments_t mode) {
    return with_dtype(dtype, size_t(0), [&](auto t) { return temp_bytes<decltype(t)>(count, mode); });
}

extern "C" bool libscan__seg_uses_temp(const libscan__seg_call_t *c) {
    if (c->count == 0) return false;
    if (c->mode != LIBSCAN_SEGMENTS_ROWS) return true;
    return with_dtype(c->dtype, true, [&](auto t) {
        return !libscan::DeviceRowScan<decltype(t)>::applies(c->count / c->row_len, c->row_len);
    });
}

extern "C" cudaError_t libscan__seg_launch(const libscan__seg_call_t *c, cudaStream_t stream) {
    return with_dtype(c->dtype, cudaErrorInvalidValue, [&](auto t) {
        using T = decltype(t);
        return with_op<T>(c->op, cudaErrorInvalidValue, [&](auto o) { return launch<T, decltype(o)>(*c, stream); });
    });
}
