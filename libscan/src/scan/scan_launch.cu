// scan_launch.cu -- the explicit instantiations behind the C API: one
// DeviceScan per (dtype, op), chosen through dispatch.cuh. Nothing else is
// compiled from the templates, which keeps build times short.
#include <cstring>
#include "core/dispatch.cuh"
#include "scan_internal.h"
#include "libscan/cuda/device_scan.cuh"

using libscan::detail::dispatch::with_dtype;
using libscan::detail::dispatch::with_op;

namespace {

template <typename T, class Op>
cudaError_t launch(const libscan__scan_call_t &c, const libscan__scan_plan_t &plan, cudaStream_t stream) {
    using Scan = libscan::DeviceScan<T>;
    libscan::DeviceScanArgs<T> a;
    a.in = static_cast<const T *>(c.in);
    a.out = static_cast<T *>(c.out);
    a.n = c.count;
    a.exclusive = c.exclusive;
    a.has_init = c.has_init;
    if (c.has_init) memcpy(&a.init, c.init, sizeof(T));
    a.d_init = static_cast<const T *>(c.d_init);
    a.d_total = static_cast<T *>(c.d_total);
    const typename Scan::Plan p{static_cast<typename Scan::Plan::Path>(plan.path),
                                libscan::detail::LaunchSupport{plan.support_ok, plan.support_fn}};
    return Scan::run(a, Op(), c.temp, c.temp_bytes, stream, p);
}

} // namespace

extern "C" size_t libscan__scan_temp_bytes(size_t count, libscan_dtype_t dtype) {
    return with_dtype(dtype, size_t(0), [&](auto t) { return libscan::DeviceScan<decltype(t)>::temp_bytes(count); });
}

extern "C" libscan__scan_plan_t libscan__scan_plan(size_t count, libscan_dtype_t dtype, libscan_op_t op,
                                                   cudaStream_t stream) {
    const libscan__scan_plan_t none = {0, false, nullptr, count > 0};
    return with_dtype(dtype, none, [&](auto t) {
        using T = decltype(t);
        return with_op<T>(op, none, [&](auto o) {
            const auto p = libscan::DeviceScan<T>::template plan<decltype(o)>(count, stream);
            return libscan__scan_plan_t{static_cast<int>(p.path), p.support.ok, p.support.fn, p.uses_temp(count)};
        });
    });
}

extern "C" cudaError_t libscan__scan_launch(const libscan__scan_call_t *c, const libscan__scan_plan_t *plan,
                                            cudaStream_t stream) {
    return with_dtype(c->dtype, cudaErrorInvalidValue, [&](auto t) {
        using T = decltype(t);
        return with_op<T>(c->op, cudaErrorInvalidValue,
                          [&](auto o) { return launch<T, decltype(o)>(*c, *plan, stream); });
    });
}
