// scan_launch.cu -- the explicit instantiations behind the C API: one
// DeviceScan per (dtype, op), chosen through dispatch.cuh. Nothing else is
// compiled from the templates, which keeps build times short.
#include <cstring>
#include "dispatch.cuh"
#include "internal.h"
#include "libscan/cuda/device_scan.cuh"

using libscan_dispatch::with_dtype;
using libscan_dispatch::with_op;

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

} // namespace

extern "C" size_t libscan__scan_temp_bytes(size_t count, libscan_dtype_t dtype) {
    return with_dtype(dtype, size_t(0), [&](auto t) { return libscan::DeviceScan<decltype(t)>::temp_bytes(count); });
}

extern "C" bool libscan__scan_uses_temp(size_t count, libscan_dtype_t dtype, libscan_op_t op, cudaStream_t stream) {
    if (count == 0) return false;
    return with_dtype(dtype, true, [&](auto t) {
        using T = decltype(t);
        return with_op<T>(op, true, [&](auto o) {
            return !libscan::DeviceScan<T>::template small_path<decltype(o)>(count, stream);
        });
    });
}

extern "C" cudaError_t libscan__scan_launch(const libscan__scan_call_t *c, cudaStream_t stream) {
    return with_dtype(c->dtype, cudaErrorInvalidValue, [&](auto t) {
        using T = decltype(t);
        return with_op<T>(c->op, cudaErrorInvalidValue, [&](auto o) { return launch<T, decltype(o)>(*c, stream); });
    });
}
