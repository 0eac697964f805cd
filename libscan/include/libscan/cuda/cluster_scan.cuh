// cluster_scan.cuh -- device-wide scan of a small input by one thread-block
// cluster (sm_90+), in a single launch with no global scratch.
//
// Why: below ~2^16 elements a scan is latency, not bandwidth. The look-back
// scan needs zeroed tile states (a memset before its kernel); CUB needs two
// kernels. Here the CLUSTER blocks of one cluster each scan a slice, publish
// their aggregate in shared memory, and read the aggregates of the blocks
// before them through distributed shared memory (DSMEM): one launch, no
// temp storage, nothing to reset between calls.
//
// Association (fixed for a given n, so floats are deterministic):
//   prefix(b) = carry-in (+) a(0) (+) ... (+) a(b-1), folded by the warp
//   scan's fixed order over the block aggregates a(.), and each output is
//   prefix(b) (+) (the block's own scan of its slice).
#pragma once

#include <cooperative_groups.h>
#include "libscan/cuda/block_scan.cuh"

namespace libscan {

template <typename T> struct ClusterScanArgs {
    const T *in;
    T *out;        // may equal in
    size_t n;      // <= capacity
    bool exclusive;
    T carry_in;    // used when d_init is null
    const T *d_init;
    T *d_total;    // may equal d_init
    bool vector_ok; // in and out 16-byte aligned
};

namespace detail {

// Clusters exist from sm_90 on; older targets get an empty kernel that the
// host side never launches (ClusterScan::supported() says no there).
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
#define LIBSCAN_CLUSTER_KERNEL 1
#define LIBSCAN_CLUSTER_DIMS(n) __cluster_dims__(n, 1, 1)
#else
#define LIBSCAN_CLUSTER_KERNEL 0
#define LIBSCAN_CLUSTER_DIMS(n)
#endif

template <typename T, class Op, int BLOCK, int IPT, int CLUSTER>
__global__ void LIBSCAN_CLUSTER_DIMS(CLUSTER) __launch_bounds__(BLOCK)
    cluster_scan_kernel(const ClusterScanArgs<T> a, const Op op) {
#if LIBSCAN_CLUSTER_KERNEL
    static_assert(CLUSTER <= kWarpThreads, "libscan: one lane per cluster block");
    constexpr int V = (sizeof(T) < 16 && 16 % sizeof(T) == 0) ? int(16 / sizeof(T)) : 1;
    static_assert(IPT % V == 0, "libscan: items per thread must be a multiple of the vector width");
    constexpr int K = IPT / V;
    constexpr int kWarpItems = kWarpThreads * IPT;
    constexpr int kSlice = BLOCK * IPT;

    namespace cg = cooperative_groups;
    cg::cluster_group cluster = cg::this_cluster();
    __shared__ typename BlockScan<T, BLOCK>::TempStorage temp;
    __shared__ T s_aggregate;

    const unsigned rank = cluster.block_rank();
    // Read before the first cluster barrier: d_init may alias d_total, which
    // the last block writes after it.
    const T carry = a.d_init ? *a.d_init : a.carry_in;

    const size_t base = static_cast<size_t>(rank) * kSlice;
    const int warp = threadIdx.x / kWarpThreads;
    const size_t first = base + static_cast<size_t>(warp) * kWarpItems + lane_id() * V;
    const bool full = a.n >= base + kSlice;

    T items[K][V];
#pragma unroll
    for (int k = 0; k < K; ++k) {
        const size_t i0 = first + static_cast<size_t>(k) * kWarpThreads * V;
        if (full && a.vector_ok) {
            if constexpr (V * sizeof(T) == 16) {
                uint4 r = *reinterpret_cast<const uint4 *>(a.in + i0);
                memcpy(items[k], &r, 16);
            } else {
#pragma unroll
                for (int v = 0; v < V; ++v) items[k][v] = a.in[i0 + v];
            }
        } else {
#pragma unroll
            for (int v = 0; v < V; ++v) items[k][v] = i0 + v < a.n ? a.in[i0 + v] : op.identity();
        }
    }

    T aggregate;
    NoBlockPrefix none;
    BlockScan<T, BLOCK>(temp).template ScanWarpStriped<K, V>(items, a.exclusive, op, aggregate, none);
    if (threadIdx.x == 0) s_aggregate = aggregate;
    cluster.sync(); // every block's aggregate is visible cluster-wide

    // Every warp folds the aggregates before its block itself (no extra
    // block barrier): lane l reads block l's aggregate over DSMEM.
    const int lane = lane_id();
    T x = op.identity();
    if (lane < static_cast<int>(rank)) x = *cluster.map_shared_rank(&s_aggregate, static_cast<unsigned>(lane));
    T inc = WarpScan<T>::InclusiveScan(x, op);
    T before = WarpScan<T>::Broadcast(inc, rank > 0 ? static_cast<int>(rank) - 1 : 0);
    const T prefix = rank > 0 ? op(carry, before) : carry;
    // Done with remote shared memory: let the others leave once all arrive.
    asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");

#pragma unroll
    for (int k = 0; k < K; ++k)
#pragma unroll
        for (int v = 0; v < V; ++v) items[k][v] = op(prefix, items[k][v]);

#pragma unroll
    for (int k = 0; k < K; ++k) {
        const size_t i0 = first + static_cast<size_t>(k) * kWarpThreads * V;
        if (full && a.vector_ok) {
            if constexpr (V * sizeof(T) == 16) {
                uint4 r;
                memcpy(&r, items[k], 16);
                *reinterpret_cast<uint4 *>(a.out + i0) = r;
            } else {
#pragma unroll
                for (int v = 0; v < V; ++v) a.out[i0 + v] = items[k][v];
            }
        } else {
#pragma unroll
            for (int v = 0; v < V; ++v)
                if (i0 + v < a.n) a.out[i0 + v] = items[k][v];
        }
    }
    if (a.d_total && rank == CLUSTER - 1 && threadIdx.x == 0) *a.d_total = op(prefix, aggregate);
    // A block's shared memory must outlive the other blocks' DSMEM reads.
    asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
#else
    (void)a;
    (void)op;
    __trap();
#endif
}

} // namespace detail

// Single-cluster scan: CLUSTER blocks of BLOCK threads, IPT items each.
template <typename T, int BLOCK, int IPT, int CLUSTER> struct ClusterScan {
    static constexpr size_t kCapacity = static_cast<size_t>(CLUSTER) * BLOCK * IPT;

    // True when the current device can run this kernel: compute capability
    // 9.0+, the kernel built for it, and a CLUSTER-block cluster schedulable
    // (not always so on partitioned GPUs). Probed once per device.
    template <class Op> static bool supported() {
        int dev = 0;
        if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= kMaxDevices) {
            (void)cudaGetLastError();
            return false;
        }
        static signed char cache[kMaxDevices]; // 0 unknown, 1 yes, -1 no (benign race: same answer)
        if (cache[dev] == 0) cache[dev] = probe<Op>(dev) ? 1 : -1;
        return cache[dev] > 0;
    }

    // Enqueues the scan of a.n <= kCapacity elements. No temp storage.
    // Call only where supported<Op>() is true.
    template <class Op> static cudaError_t run(const ClusterScanArgs<T> &a, Op op, cudaStream_t stream) {
        if (a.n > kCapacity) return cudaErrorInvalidValue;
        detail::cluster_scan_kernel<T, Op, BLOCK, IPT, CLUSTER><<<CLUSTER, BLOCK, 0, stream>>>(a, op);
        return cudaGetLastError();
    }

  private:
    static constexpr int kMaxDevices = 64;

    template <class Op> static bool probe(int dev) {
        auto kernel = detail::cluster_scan_kernel<T, Op, BLOCK, IPT, CLUSTER>;
        int major = 0, clusters = 0;
        cudaFuncAttributes fa;
        bool ok = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) == cudaSuccess &&
                  major >= 9 && cudaFuncGetAttributes(&fa, kernel) == cudaSuccess && fa.binaryVersion >= 90;
        if (ok && CLUSTER > 8) // beyond the portable cluster size: opt in
            ok = cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) == cudaSuccess;
        if (ok) {
            cudaLaunchConfig_t cfg = {};
            cfg.gridDim = dim3(CLUSTER);
            cfg.blockDim = dim3(BLOCK);
            ok = cudaOccupancyMaxActiveClusters(&clusters, kernel, &cfg) == cudaSuccess && clusters >= 1;
        }
        (void)cudaGetLastError();
        return ok;
    }
};

} // namespace libscan
