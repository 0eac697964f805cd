// warp_block_shim.cu -- kernels that exercise WarpScan and BlockScan for the
// cmocka suite test_warp_block.c. Instantiated only for what is tested:
// Sum<uint32_t> and the 2x2 matrix product (non-commutative), block sizes
// 32 and 256.
#include <cstdint>
#include "libscan/cuda/block_scan.cuh"
#include "support/cuda_shim_util.cuh"
#include "support/monoids.h"
#include "support/shims.h"

namespace {

struct Mat2Mul {
    __host__ __device__ mat2_t operator()(const mat2_t &x, const mat2_t &y) const { return mat2_mul(x, y); }
    __host__ __device__ mat2_t identity() const { return mat2_identity(); }
};

// Items per thread: blocked N, warp-striped K x V.
template <class T> struct Shape;
template <> struct Shape<uint32_t> { // N odd on purpose; V=4 like 16-byte vectors
    static constexpr int N = 3, K = 2, V = 4;
};
template <> struct Shape<mat2_t> {
    static constexpr int N = 2, K = 2, V = 2;
};

// ---- WarpScan -----------------------------------------------------------

template <class T, class Op> __global__ void warp_kernel(const T *in, T *out, T *agg, int mode) {
    using WS = libscan::WarpScan<T>;
    const Op op{};
    const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    const int warp = int(i / 32);
    T x = in[i];
    T a;
    T r;
    switch (mode) {
    case SHIM_WARP_INCL: r = WS::InclusiveScan(x, op); break;
    case SHIM_WARP_INCL_AGG: r = WS::InclusiveScan(x, op, a); agg[i] = a; break;
    case SHIM_WARP_EXCL: r = WS::ExclusiveScan(x, op); break;
    case SHIM_WARP_EXCL_AGG: r = WS::ExclusiveScan(x, op, a); agg[i] = a; break;
    default: r = WS::Broadcast(x, warp % 32); break;
    }
    out[i] = r;
}

template <class T, class Op> int warp_run(int mode, int warps, const void *h_in, void *h_out, void *h_agg) {
    int status = 0;
    const size_t n = size_t(warps) * 32, bytes = n * sizeof(T);
    T *d_in = nullptr, *d_out = nullptr, *d_agg = nullptr;
    const int threads = 128; // 4 warps per block
    SHIM_TRY(cudaMalloc(&d_in, bytes));
    SHIM_TRY(cudaMalloc(&d_out, bytes));
    SHIM_TRY(cudaMalloc(&d_agg, bytes));
    SHIM_TRY(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));
    SHIM_TRY(cudaMemset(d_out, 0xFF, bytes));
    SHIM_TRY(cudaMemset(d_agg, 0xFF, bytes));
    if (warps % 4) { status = SHIM_UNSUPPORTED; goto done; }
    warp_kernel<T, Op><<<unsigned(warps / 4), threads>>>(d_in, d_out, d_agg, mode);
    SHIM_TRY(cudaGetLastError());
    SHIM_TRY(cudaDeviceSynchronize());
    SHIM_TRY(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost));
    SHIM_TRY(cudaMemcpy(h_agg, d_agg, bytes, cudaMemcpyDeviceToHost));
done:
    shim_free(d_in, status);
    shim_free(d_out, status);
    shim_free(d_agg, status);
    return status;
}

// ---- BlockScan ----------------------------------------------------------

// Prefix callback carrying a running total across the tiles of a loop:
// returns the total so far (the tile's carry-in) and adds the aggregate.
template <class T, class Op> struct RunningPrefix {
    T running;
    Op op;
    __device__ T operator()(T block_aggregate) {
        T before = running;
        running = op(running, block_aggregate);
        return before;
    }
};

template <class T, class Op, int BLOCK>
__global__ void block_kernel(const T *in, T *out, T *agg, int mode, int tiles, T prefix_init) {
    using BS = libscan::BlockScan<T, BLOCK>;
    constexpr int N = Shape<T>::N, K = Shape<T>::K, V = Shape<T>::V;
    __shared__ typename BS::TempStorage tmp;
    const Op op{};
    RunningPrefix<T, Op> prefix{prefix_init, op};
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const bool striped = mode >= SHIM_STRIPED_INCL;
    const size_t tile_items = size_t(BLOCK) * (striped ? K * V : N);

    for (int t = 0; t < tiles; ++t) {
        const size_t tile = size_t(blockIdx.x) * tiles + t;
        const T *tin = in + tile * tile_items;
        T *tout = out + tile * tile_items;
        T a = op.identity();
        bool has_agg = true;
        if (!striped) {
            T items[N];
            for (int i = 0; i < N; ++i) items[i] = tin[tid * N + i];
            BS bs(tmp);
            switch (mode) {
            case SHIM_BLOCK_INCL: bs.InclusiveScan(items, op); has_agg = false; break;
            case SHIM_BLOCK_INCL_AGG: bs.InclusiveScan(items, op, a); break;
            case SHIM_BLOCK_EXCL: bs.ExclusiveScan(items, op); has_agg = false; break;
            case SHIM_BLOCK_EXCL_AGG: bs.ExclusiveScan(items, op, a); break;
            case SHIM_BLOCK_REDUCE: a = bs.Reduce(items, op); break;
            case SHIM_BLOCK_INCL_PREFIX: bs.InclusiveScan(items, op, a, prefix); break;
            default: bs.ExclusiveScan(items, op, a, prefix); break;
            }
            for (int i = 0; i < N; ++i) tout[tid * N + i] = items[i];
        } else {
            T items[K][V];
            for (int k = 0; k < K; ++k)
                for (int v = 0; v < V; ++v) items[k][v] = tin[warp * 32 * K * V + k * 32 * V + lane * V + v];
            BS bs(tmp);
            libscan::NoBlockPrefix none;
            switch (mode) {
            case SHIM_STRIPED_INCL: bs.template ScanWarpStriped<K, V>(items, false, op, a, none); break;
            case SHIM_STRIPED_EXCL: bs.template ScanWarpStriped<K, V>(items, true, op, a, none); break;
            case SHIM_STRIPED_INCL_PREFIX: bs.template ScanWarpStriped<K, V>(items, false, op, a, prefix); break;
            default: bs.template ScanWarpStriped<K, V>(items, true, op, a, prefix); break;
            }
            for (int k = 0; k < K; ++k)
                for (int v = 0; v < V; ++v) tout[warp * 32 * K * V + k * 32 * V + lane * V + v] = items[k][v];
        }
        if (has_agg) agg[tile * BLOCK + tid] = a;
        __syncthreads(); // before the TempStorage is reused
    }
}

template <class T, class Op, int BLOCK>
int block_run(int mode, int blocks, int tiles, const void *prefix_init, const void *h_in, void *h_out, void *h_agg) {
    int status = 0;
    const bool striped = mode >= SHIM_STRIPED_INCL;
    const size_t ipt = striped ? size_t(Shape<T>::K) * Shape<T>::V : size_t(Shape<T>::N);
    const size_t ntiles = size_t(blocks) * tiles;
    const size_t n = ntiles * BLOCK * ipt, bytes = n * sizeof(T), agg_bytes = ntiles * BLOCK * sizeof(T);
    T *d_in = nullptr, *d_out = nullptr, *d_agg = nullptr;
    T init;
    std::memcpy(&init, prefix_init, sizeof(T));
    SHIM_TRY(cudaMalloc(&d_in, bytes));
    SHIM_TRY(cudaMalloc(&d_out, bytes));
    SHIM_TRY(cudaMalloc(&d_agg, agg_bytes));
    SHIM_TRY(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));
    SHIM_TRY(cudaMemset(d_out, 0xFF, bytes));
    SHIM_TRY(cudaMemset(d_agg, 0xFF, agg_bytes));
    block_kernel<T, Op, BLOCK><<<unsigned(blocks), BLOCK>>>(d_in, d_out, d_agg, mode, tiles, init);
    SHIM_TRY(cudaGetLastError());
    SHIM_TRY(cudaDeviceSynchronize());
    SHIM_TRY(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost));
    SHIM_TRY(cudaMemcpy(h_agg, d_agg, agg_bytes, cudaMemcpyDeviceToHost));
done:
    shim_free(d_in, status);
    shim_free(d_out, status);
    shim_free(d_agg, status);
    return status;
}

} // namespace

extern "C" int shim_warp_run(shim_type_t type, shim_warp_mode_t mode, int warps, const void *h_in, void *h_out,
                             void *h_agg) {
    switch (type) {
    case SHIM_U32_SUM: return warp_run<uint32_t, libscan::Sum<uint32_t>>(mode, warps, h_in, h_out, h_agg);
    case SHIM_MAT2: return warp_run<mat2_t, Mat2Mul>(mode, warps, h_in, h_out, h_agg);
    }
    return SHIM_UNSUPPORTED;
}

extern "C" int shim_block_items_per_thread(shim_type_t type, shim_block_mode_t mode) {
    const bool striped = mode >= SHIM_STRIPED_INCL;
    switch (type) {
    case SHIM_U32_SUM: return striped ? Shape<uint32_t>::K * Shape<uint32_t>::V : Shape<uint32_t>::N;
    case SHIM_MAT2: return striped ? Shape<mat2_t>::K * Shape<mat2_t>::V : Shape<mat2_t>::N;
    }
    return 0;
}

extern "C" int shim_block_run(shim_type_t type, int block_threads, shim_block_mode_t mode, int blocks, int tiles,
                              const void *prefix_init, const void *h_in, void *h_out, void *h_agg) {
    if (mode < 0 || mode >= SHIM_BLOCK_NUM_MODES) return SHIM_UNSUPPORTED;
    switch (type) {
    case SHIM_U32_SUM:
        if (block_threads == 32)
            return block_run<uint32_t, libscan::Sum<uint32_t>, 32>(mode, blocks, tiles, prefix_init, h_in, h_out, h_agg);
        if (block_threads == 256)
            return block_run<uint32_t, libscan::Sum<uint32_t>, 256>(mode, blocks, tiles, prefix_init, h_in, h_out, h_agg);
        break;
    case SHIM_MAT2:
        if (block_threads == 32) return block_run<mat2_t, Mat2Mul, 32>(mode, blocks, tiles, prefix_init, h_in, h_out, h_agg);
        if (block_threads == 256) return block_run<mat2_t, Mat2Mul, 256>(mode, blocks, tiles, prefix_init, h_in, h_out, h_agg);
        break;
    }
    return SHIM_UNSUPPORTED;
}
