// scan_launch.cu -- the explicit instantiations behind the C API: one
// DeviceScan per (dtype, op), chosen by a switch. Nothing else is compiled
// from the templates, which keeps build times short.
#include <cstring>
#include "internal.h"
#include "libscan/cuda/device_scan.cuh"

namespace {

template <typename T, class Op> cudaError_t launch(const libscan__scan_call_t &c, cudaStream_t stream) {
    libscan::DeviceScanArgs<T> a;
    a.in = static_cast<const T *>(c.in);
    a.out = static_cast<T *>(c.out);
    a.n = c.count;
    a.exclusive = c.exclusive;
    a.has_init = c.has_init;
    if (c.has_init) memcpy(&a.init, c.init, sizeof(T));
    a.d_init = static_cast<const T *>(c.d_init);
    a.d_total = static_cast<T *>(c.d_total);
    return libscan::DeviceScan<T>::run(a, Op(), c.temp, c.temp_bytes, stream);
}

template <typename T> cudaError_t launch_op(const libscan__scan_call_t &c, cudaStream_t stream) {
    switch (c.op) {
    case LIBSCAN_OP_SUM: return launch<T, libscan::Sum<T>>(c, stream);
    case LIBSCAN_OP_MIN: return launch<T, libscan::Min<T>>(c, stream);
    case LIBSCAN_OP_MAX: return launch<T, libscan::Max<T>>(c, stream);
    }
    return cudaErrorInvalidValue;
}

} // namespace

extern "C" size_t libscan__scan_temp_bytes(size_t count, libscan_dtype_t dtype) {
    switch (dtype) {
    case LIBSCAN_U32: return libscan::DeviceScan<uint32_t>::temp_bytes(count);
    case LIBSCAN_I32: return libscan::DeviceScan<int32_t>::temp_bytes(count);
    case LIBSCAN_U64: return libscan::DeviceScan<uint64_t>::temp_bytes(count);
    case LIBSCAN_I64: return libscan::DeviceScan<int64_t>::temp_bytes(count);
    case LIBSCAN_F32: return libscan::DeviceScan<float>::temp_bytes(count);
    case LIBSCAN_F64: return libscan::DeviceScan<double>::temp_bytes(count);
    }
    return 0;
}

namespace {
template <typename T> bool uses_temp(size_t count, libscan_op_t op) {
    switch (op) {
    case LIBSCAN_OP_SUM: return !libscan::DeviceScan<T>::template small_path<libscan::Sum<T>>(count);
    case LIBSCAN_OP_MIN: return !libscan::DeviceScan<T>::template small_path<libscan::Min<T>>(count);
    case LIBSCAN_OP_MAX: return !libscan::DeviceScan<T>::template small_path<libscan::Max<T>>(count);
    }
    return true;
}
} // namespace

extern "C" bool libscan__scan_uses_temp(size_t count, libscan_dtype_t dtype, libscan_op_t op) {
    if (count == 0) return false;
    switch (dtype) {
    case LIBSCAN_U32: return uses_temp<uint32_t>(count, op);
    case LIBSCAN_I32: return uses_temp<int32_t>(count, op);
    case LIBSCAN_U64: return uses_temp<uint64_t>(count, op);
    case LIBSCAN_I64: return uses_temp<int64_t>(count, op);
    case LIBSCAN_F32: return uses_temp<float>(count, op);
    case LIBSCAN_F64: return uses_temp<double>(count, op);
    }
    return true;
}

extern "C" cudaError_t libscan__scan_launch(const libscan__scan_call_t *c, cudaStream_t stream) {
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
