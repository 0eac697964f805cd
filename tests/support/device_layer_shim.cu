// device_layer_shim.cu -- libscan::DeviceScan<T>::run with non-commutative
// monoids of the tests' own (2x2 matrix product: 16-byte elements, one item
// per vector; affine-map composition: 8-byte elements, two per vector;
// unitriangular 3x3 product: 12-byte elements, of which no 16-byte vector
// holds a whole number), for test_device_scan.c. These go through the C++
// device layer directly, not the C API, which only knows the built-in dtypes
// and operators.
#include <cstdint>
#include <vector>
#include "libscan/cuda/device_scan.cuh"
#include "support/cuda_shim_util.cuh"
#include "support/monoids.h"
#include "support/shims.h"

namespace {

struct Mat2Mul {
    __host__ __device__ mat2_t operator()(const mat2_t &x, const mat2_t &y) const { return mat2_mul(x, y); }
    __host__ __device__ mat2_t identity() const { return mat2_identity(); }
};

struct AffineThen {
    __host__ __device__ affine_t operator()(const affine_t &f, const affine_t &g) const { return affine_then(f, g); }
    __host__ __device__ affine_t identity() const { return affine_identity(); }
};

struct TriMul {
    __host__ __device__ tri_t operator()(const tri_t &x, const tri_t &y) const { return tri_mul(x, y); }
    __host__ __device__ tri_t identity() const { return tri_identity(); }
};

// The point of tri_t is its size: it must keep DeviceScan off the path for
// sizes that divide 16.
static_assert(sizeof(tri_t) == 12 && 16 % sizeof(tri_t) != 0, "tri_t must be 12 bytes");

constexpr size_t kGuard = 64; // poisoned elements on each side of the output

// A tile shape no tuning entry uses: 64 KiB of staging, above what static
// shared memory holds, so DeviceScan stages it in dynamic shared memory.
using AffineWide = libscan::DeviceScan<affine_t, 256, 32, 2>;
static_assert(AffineWide::Shape::kDynamicStage, "the wide affine shape must take the dynamic staging path");

// Stand-ins for DeviceScan in dl_scan, for sizes that fit one grid-scan
// launch: the eager grid scan with a launch handle that asks for the
// runtime's cudaLaunchCooperativeKernel rather than the driver's, and the
// barrier exchange (GridScan::run_with_temp, what a captured scan runs)
// launched eagerly, its temp filled with 0xFF bytes first (the kernel must
// never read a slot it did not write in this launch).
template <class T> struct GridRuntimeLaunch {
    using Grid = typename libscan::DeviceScan<T>::Grid;
    static size_t temp_bytes(size_t) { return 0; }
    template <class Op>
    static cudaError_t run(const libscan::DeviceScanArgs<T> &a, Op op, void *, size_t, cudaStream_t stream) {
        if (!Grid::template supported<Op>()) return cudaErrorNotSupported;
        return Grid::run(small_args(a, op), op, stream, typename Grid::Support{true, nullptr});
    }
    template <class Op> static libscan::SmallScanArgs<T> small_args(const libscan::DeviceScanArgs<T> &a, Op op) {
        libscan::SmallScanArgs<T> c{a.in, a.out, a.n, a.exclusive, a.has_init ? a.init : op.identity(), a.d_init,
                                    a.d_total, false};
        c.vector_ok = reinterpret_cast<uintptr_t>(a.in) % 16 == 0 && reinterpret_cast<uintptr_t>(a.out) % 16 == 0;
        return c;
    }
};
template <class T> struct GridBarrierLaunch {
    using Grid = typename libscan::DeviceScan<T>::Grid;
    static size_t temp_bytes(size_t n) { return Grid::temp_bytes(n); }
    template <class Op>
    static cudaError_t run(const libscan::DeviceScanArgs<T> &a, Op op, void *temp, size_t bytes, cudaStream_t stream) {
        const auto s = Grid::template on_current_device<Op>();
        if (!s.ok) return cudaErrorNotSupported;
        if (bytes) {
            const cudaError_t e = cudaMemsetAsync(temp, 0xFF, bytes, stream);
            if (e != cudaSuccess) return e;
        }
        return Grid::run_with_temp(GridRuntimeLaunch<T>::small_args(a, op), op, temp, bytes, stream, s);
    }
};

template <class T, class Op, class DS = libscan::DeviceScan<T>>
int dl_scan(const void *h_in, void *h_out, size_t n, int exclusive, const void *init, int init_on_device,
            void *h_total, int in_place) {
    int status = 0;
    const size_t bytes = n * sizeof(T), span = (n + 2 * kGuard) * sizeof(T);
    T *d_in = nullptr, *d_out_base = nullptr, *d_init = nullptr, *d_total = nullptr;
    void *d_temp = nullptr;
    T *d_out = nullptr;
    const size_t temp_bytes = DS::temp_bytes(n);
    libscan::DeviceScanArgs<T> a;
    std::vector<unsigned char> guard(kGuard * sizeof(T));

    SHIM_TRY(cudaMalloc(&d_out_base, span));
    SHIM_TRY(cudaMemset(d_out_base, 0xFF, span));
    SHIM_TRY(cudaDeviceSynchronize()); /* settle the legacy stream's memset before work on non-blocking streams */
    d_out = d_out_base + kGuard;
    if (in_place) {
        d_in = d_out;
    } else {
        SHIM_TRY(cudaMalloc(&d_in, bytes ? bytes : sizeof(T)));
    }
    if (bytes) SHIM_TRY(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));
    SHIM_TRY(cudaMalloc(&d_total, sizeof(T)));
    SHIM_TRY(cudaMemset(d_total, 0xFF, sizeof(T)));
    SHIM_TRY(cudaDeviceSynchronize()); /* settle the legacy stream's memset before work on non-blocking streams */
    if (temp_bytes) SHIM_TRY(cudaMalloc(&d_temp, temp_bytes));

    a.in = d_in;
    a.out = d_out;
    a.n = n;
    a.exclusive = exclusive != 0;
    if (init && init_on_device) {
        SHIM_TRY(cudaMalloc(&d_init, sizeof(T)));
        SHIM_TRY(cudaMemcpy(d_init, init, sizeof(T), cudaMemcpyHostToDevice));
        a.d_init = d_init;
    } else if (init) {
        a.has_init = true;
        std::memcpy(&a.init, init, sizeof(T));
    }
    a.d_total = h_total ? d_total : nullptr;
    SHIM_TRY(DS::run(a, Op(), d_temp, temp_bytes, 0));
    SHIM_TRY(cudaDeviceSynchronize());
    if (bytes) SHIM_TRY(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost));
    if (h_total) SHIM_TRY(cudaMemcpy(h_total, d_total, sizeof(T), cudaMemcpyDeviceToHost));
    for (int side = 0; side < 2; ++side) {
        const T *g = side == 0 ? d_out_base : d_out + n;
        SHIM_TRY(cudaMemcpy(guard.data(), g, guard.size(), cudaMemcpyDeviceToHost));
        for (unsigned char c : guard)
            if (c != 0xFF) {
                status = SHIM_GUARD_CORRUPTED;
                goto done;
            }
    }
done:
    if (!in_place) shim_free(d_in, status);
    shim_free(d_out_base, status);
    shim_free(d_init, status);
    shim_free(d_total, status);
    shim_free(d_temp, status);
    return status;
}

} // namespace

extern "C" size_t shim_dl_tile_items(shim_dl_type_t type) {
    switch (type) {
    case SHIM_DL_MAT2: return libscan::DeviceScan<mat2_t>::Shape::kTile;
    case SHIM_DL_AFFINE: return libscan::DeviceScan<affine_t>::Shape::kTile;
    case SHIM_DL_TRI: return libscan::DeviceScan<tri_t>::Shape::kTile;
    case SHIM_DL_AFFINE_WIDE: return AffineWide::Shape::kTile;
    }
    return 0;
}

extern "C" size_t shim_dl_mid_max_tiles(shim_dl_type_t type) {
    switch (type) {
    case SHIM_DL_MAT2: return libscan::DeviceScan<mat2_t>::kMidMaxTiles;
    case SHIM_DL_AFFINE: return libscan::DeviceScan<affine_t>::kMidMaxTiles;
    case SHIM_DL_TRI: return libscan::DeviceScan<tri_t>::kMidMaxTiles;
    case SHIM_DL_AFFINE_WIDE: return AffineWide::kMidMaxTiles;
    }
    return 0;
}

extern "C" int shim_dl_scan(shim_dl_type_t type, const void *h_in, void *h_out, size_t n, int exclusive,
                            const void *init, int init_on_device, void *h_total, int in_place) {
    switch (type) {
    case SHIM_DL_MAT2:
        return dl_scan<mat2_t, Mat2Mul>(h_in, h_out, n, exclusive, init, init_on_device, h_total, in_place);
    case SHIM_DL_AFFINE:
        return dl_scan<affine_t, AffineThen>(h_in, h_out, n, exclusive, init, init_on_device, h_total, in_place);
    case SHIM_DL_TRI:
        return dl_scan<tri_t, TriMul>(h_in, h_out, n, exclusive, init, init_on_device, h_total, in_place);
    case SHIM_DL_AFFINE_WIDE:
        return dl_scan<affine_t, AffineThen, AffineWide>(h_in, h_out, n, exclusive, init, init_on_device, h_total,
                                                         in_place);
    }
    return SHIM_UNSUPPORTED;
}

template <typename T> static int skips_temp(size_t n) {
    return libscan::DeviceScan<T>::template plan<libscan::Max<T>>(n, nullptr).uses_temp(n) ? 0 : 1;
}

extern "C" int shim_scan_skips_temp(size_t element_bytes, size_t n) {
    switch (element_bytes) {
    case 4: return skips_temp<uint32_t>(n);
    case 8: return skips_temp<uint64_t>(n);
    }
    return -1;
}

extern "C" int shim_grid_scan_runtime_launch(shim_dl_type_t type, const void *h_in, void *h_out, size_t n,
                                             int exclusive, const void *init, int init_on_device, void *h_total,
                                             int in_place) {
    using Grid = libscan::DeviceScan<affine_t>::Grid;
    if (type != SHIM_DL_AFFINE || !Grid::supported<AffineThen>()) return SHIM_UNSUPPORTED;
    return dl_scan<affine_t, AffineThen, GridRuntimeLaunch<affine_t>>(h_in, h_out, n, exclusive, init, init_on_device,
                                                                      h_total, in_place);
}

extern "C" int shim_grid_scan_with_temp(shim_dl_type_t type, const void *h_in, void *h_out, size_t n, int exclusive,
                                        const void *init, int init_on_device, void *h_total, int in_place) {
    using Grid = libscan::DeviceScan<affine_t>::Grid;
    if (type != SHIM_DL_AFFINE || !Grid::supported<AffineThen>()) return SHIM_UNSUPPORTED;
    return dl_scan<affine_t, AffineThen, GridBarrierLaunch<affine_t>>(h_in, h_out, n, exclusive, init, init_on_device,
                                                                      h_total, in_place);
}

extern "C" int shim_grid_scan_refuses_capture(void) {
    using Grid = libscan::DeviceScan<affine_t>::Grid;
    cudaStream_t s = nullptr;
    affine_t *d = nullptr;
    cudaGraph_t graph = nullptr;
    int status = 0;
    size_t nodes = 1;
    cudaError_t run = cudaSuccess;
    bool during = true;
    const bool before = Grid::eager(nullptr);
    SHIM_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    SHIM_TRY(cudaMalloc(&d, 1024 * sizeof(affine_t)));
    {
        const bool on_stream = Grid::eager(s);
        SHIM_TRY(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
        during = Grid::eager(s);
        const libscan::SmallScanArgs<affine_t> a{d, d, 1024, false, affine_identity(), nullptr, nullptr, true};
        run = Grid::run(a, AffineThen(), s);
        SHIM_TRY(cudaStreamEndCapture(s, &graph));
        SHIM_TRY(cudaGraphGetNodes(graph, nullptr, &nodes));
        if (!before || !on_stream || during || !Grid::eager(s)) status = -1;
        else if (run != cudaErrorStreamCaptureUnsupported) status = -2;
        else if (nodes != 0) status = -3;
    }
done:
    if (graph) cudaGraphDestroy(graph);
    if (d) cudaFree(d);
    if (s) cudaStreamDestroy(s);
    return status;
}

// ---- eager against captured -------------------------------------------------

namespace {

using Paths = libscan::DeviceScan<float>::Plan;
static_assert(Paths::kLookback == SHIM_PATH_LOOKBACK && Paths::kGrid == SHIM_PATH_GRID &&
                  Paths::kGridCaptured == SHIM_PATH_GRID_CAPTURED,
              "shims.h's path numbers must follow DeviceScan::Plan");

template <typename T>
int float_sum_eager_and_captured(const void *h_in, size_t n, int exclusive, const void *init, void *h_eager,
                                 void *h_captured, void *h_totals, size_t *nodes, int *paths) {
    using Scan = libscan::DeviceScan<T>;
    using Op = libscan::Sum<T>;
    int status = 0;
    const size_t bytes = n * sizeof(T), temp_bytes = Scan::temp_bytes(n);
    T *d_in = nullptr, *d_out = nullptr, *d_total = nullptr;
    void *d_temp = nullptr;
    cudaStream_t s = nullptr;
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    cudaError_t run = cudaSuccess;
    libscan::DeviceScanArgs<T> a;
    std::vector<T> other(n);
    for (size_t i = 0; i < n; ++i) other[i] = static_cast<const T *>(h_in)[n - 1 - i] * T(0.75); // another input

    SHIM_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    SHIM_TRY(cudaMalloc(&d_in, bytes ? bytes : sizeof(T)));
    SHIM_TRY(cudaMalloc(&d_out, bytes ? bytes : sizeof(T)));
    SHIM_TRY(cudaMalloc(&d_total, sizeof(T)));
    if (temp_bytes) SHIM_TRY(cudaMalloc(&d_temp, temp_bytes));
    if (bytes) SHIM_TRY(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));
    a.in = d_in;
    a.out = d_out;
    a.n = n;
    a.exclusive = exclusive != 0;
    a.has_init = init != nullptr;
    if (init) std::memcpy(&a.init, init, sizeof(T));
    a.d_total = d_total;

    // eager. cudaMemset runs on the legacy stream, which the non-blocking s
    // does not wait for: each is settled before anything is enqueued on s.
    SHIM_TRY(cudaMemset(d_out, 0xFF, bytes ? bytes : sizeof(T)));
    SHIM_TRY(cudaDeviceSynchronize()); /* settle the legacy stream's memset before work on non-blocking streams */
    SHIM_TRY(cudaMemset(d_total, 0xFF, sizeof(T)));
    SHIM_TRY(cudaDeviceSynchronize());
    SHIM_TRY(Scan::run(a, Op(), d_temp, temp_bytes, s));
    SHIM_TRY(cudaStreamSynchronize(s));
    if (bytes) SHIM_TRY(cudaMemcpy(h_eager, d_out, bytes, cudaMemcpyDeviceToHost));
    SHIM_TRY(cudaMemcpy(h_totals, d_total, sizeof(T), cudaMemcpyDeviceToHost));

    // captured, with the path the plan takes there (and eagerly, above)
    paths[0] = static_cast<int>(Scan::template plan<Op>(n, s).path);
    SHIM_TRY(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    paths[1] = static_cast<int>(Scan::template plan<Op>(n, s).path);
    run = Scan::run(a, Op(), d_temp, temp_bytes, s);
    SHIM_TRY(cudaStreamEndCapture(s, &graph)); // always end the capture
    SHIM_TRY(run);
    SHIM_TRY(cudaGraphGetNodes(graph, nullptr, nodes));
    SHIM_TRY(cudaGraphInstantiate(&exec, graph, 0));
    // Replay 1 on other data over temp full of 0xFF bytes; replay 2 on the
    // eager call's data: what replay 1 left behind must not matter.
    if (temp_bytes) SHIM_TRY(cudaMemset(d_temp, 0xFF, temp_bytes));
    if (bytes) SHIM_TRY(cudaMemcpy(d_in, other.data(), bytes, cudaMemcpyHostToDevice));
    SHIM_TRY(cudaDeviceSynchronize());
    SHIM_TRY(cudaGraphLaunch(exec, s));
    SHIM_TRY(cudaStreamSynchronize(s));
    if (bytes) SHIM_TRY(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));
    SHIM_TRY(cudaMemset(d_out, 0xFF, bytes ? bytes : sizeof(T)));
    SHIM_TRY(cudaDeviceSynchronize()); /* settle the legacy stream's memset before work on non-blocking streams */
    SHIM_TRY(cudaMemset(d_total, 0xFF, sizeof(T)));
    SHIM_TRY(cudaDeviceSynchronize());
    SHIM_TRY(cudaGraphLaunch(exec, s));
    SHIM_TRY(cudaStreamSynchronize(s));
    if (bytes) SHIM_TRY(cudaMemcpy(h_captured, d_out, bytes, cudaMemcpyDeviceToHost));
    SHIM_TRY(cudaMemcpy(static_cast<T *>(h_totals) + 1, d_total, sizeof(T), cudaMemcpyDeviceToHost));
done:
    if (exec) cudaGraphExecDestroy(exec);
    if (graph) cudaGraphDestroy(graph);
    shim_free(d_in, status);
    shim_free(d_out, status);
    shim_free(d_total, status);
    shim_free(d_temp, status);
    if (s) cudaStreamDestroy(s);
    return status;
}

} // namespace

extern "C" int shim_dl_float_sum_eager_and_captured(size_t element_bytes, const void *h_in, size_t n, int exclusive,
                                                    const void *init, void *h_eager, void *h_captured,
                                                    void *h_totals, size_t *nodes, int *paths) {
    switch (element_bytes) {
    case 4:
        return float_sum_eager_and_captured<float>(h_in, n, exclusive, init, h_eager, h_captured, h_totals, nodes,
                                                   paths);
    case 8:
        return float_sum_eager_and_captured<double>(h_in, n, exclusive, init, h_eager, h_captured, h_totals, nodes,
                                                    paths);
    }
    return SHIM_UNSUPPORTED;
}
