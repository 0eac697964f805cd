// cluster_scan.cuh -- device-wide scan of a small input by one thread-block
// cluster (sm_90+), in a single launch with no global scratch.
//
// Why: below ~2^16 elements a scan is latency, not bandwidth. The look-back
// scan needs zeroed tile states (a memset before its kernel); CUB needs two
// kernels. Here the CLUSTER blocks of one cluster each scan a slice. As soon
// as a block knows its aggregate (inside the block scan, through its prefix
// callback), warp 0 sends it straight into the shared memory of every later
// block (cluster_mailbox.cuh: st.async, counted on the receiver's mbarrier)
// and waits on its own mailbox, a local wait, for the earlier blocks'. One
// launch, no temp storage, nothing to reset between calls, and no cluster
// barrier on the critical path: the one barrier, which makes the mailboxes'
// mbarriers visible, is crossed while the loads are in flight.
//
// Association (fixed for a given n, so floats are deterministic): with
// c = carry-in and a(.) the block aggregates, block 0 sends c (+) a(0) and
// block b > 0 sends a(b); prefix(0) = c and, for b > 0, prefix(b) is the
// warp scan's fixed fold of the b values block b received, in block order.
// Inside a block, prefix(b) enters as BlockScan's callback prefix (see the
// association in block_scan.cuh).
#pragma once

#include "libscan/cuda/block_scan.cuh"
#include "libscan/cuda/cluster_mailbox.cuh"
#include "libscan/cuda/driver_launch.cuh"
#include "libscan/cuda/small_scan_args.cuh"
#include "libscan/cuda/tile_io.cuh"

namespace libscan {

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

// The block scan's prefix callback (block_scan.cuh), run by warp 0 once the
// block aggregate is known: send it on to the later blocks, then fold what
// the earlier blocks sent. Returns this block's prefix; the last block also
// writes the total.
template <typename T, class Op, int CLUSTER> struct MailboxPrefix {
    ClusterMailbox<T, CLUSTER> &box;
    const unsigned rank;
    const T carry; // the carry-in, in block 0
    T *const d_total;
    const Op op;

    __device__ __forceinline__ T operator()(T aggregate) {
        ClusterMailbox<T, CLUSTER>::wait_all_opened(); // every mailbox in the cluster is open
        const int lane = lane_id();
        const T sent = rank == 0 ? op(carry, aggregate) : aggregate;
        if (lane > static_cast<int>(rank) && lane < CLUSTER) box.send(sent, static_cast<int>(rank), static_cast<unsigned>(lane));
        T prefix = carry;
        if (rank > 0) {
            box.wait();
            T x = op.identity();
            if (lane < static_cast<int>(rank)) x = box.take(lane);
            prefix = WarpScan<T>::Broadcast(WarpScan<T>::InclusiveScan(x, op), static_cast<int>(rank) - 1);
        }
        if (d_total && rank == CLUSTER - 1 && lane == 0) *d_total = op(prefix, aggregate);
        return prefix;
    }
};

template <typename T, class Op, int BLOCK, int IPT, int CLUSTER>
__global__ void LIBSCAN_CLUSTER_DIMS(CLUSTER) __launch_bounds__(BLOCK)
    cluster_scan_kernel(const SmallScanArgs<T> a, const Op op) {
#if LIBSCAN_CLUSTER_KERNEL
    static_assert(CLUSTER <= kWarpThreads, "libscan: one lane per cluster block");
    using Shape = TileShape<T, BLOCK, IPT>;
    constexpr int K = Shape::K, V = Shape::V;
    constexpr int kSlice = Shape::kTile;

    __shared__ typename BlockScan<T, BLOCK>::TempStorage temp;
    __shared__ ClusterMailbox<T, CLUSTER> box;

    unsigned rank;
    asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    if (threadIdx.x == 0) box.open(rank); // one value from each earlier block
    box.arrive_opened();                  // (warp 0 waits for all, in MailboxPrefix)

    // Only block 0 reads the carry-in; it travels on inside c (+) a(0). So
    // the last block's write of d_total (which may alias d_init) depends on
    // the value read.
    const T carry = rank == 0 ? (a.d_init ? *a.d_init : a.carry_in) : op.identity();

    const size_t base = static_cast<size_t>(rank) * kSlice;
    T items[K][V];
    load_striped<T, BLOCK, IPT>(a.in, a.n, a.vector_ok, base, op, items);

    T aggregate;
    MailboxPrefix<T, Op, CLUSTER> prefix{box, rank, carry, a.d_total, op};
    BlockScan<T, BLOCK>(temp).template ScanWarpStriped<K, V>(items, a.exclusive, op, aggregate, prefix);

    store_striped<T, BLOCK, IPT>(a.out, a.n, a.vector_ok, base, items);
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

    // What the current device offers this kernel, probed once per device:
    // ok when it can run it (compute capability 9.0+, the kernel built for
    // it, and a CLUSTER-block cluster schedulable -- not always so on
    // partitioned GPUs); fn, the driver handle to launch it with (null: use
    // <<<>>>).
    using Support = detail::LaunchSupport;
    template <class Op> static Support on_current_device() {
        return detail::support_on_current_device<Key<Op>>([](int dev) { return probe<Op>(dev); }, kernel<Op>(),
                                                          detail::driver_launch_fn() != nullptr);
    }
    template <class Op> static bool supported() { return on_current_device<Op>().ok; }

    // Enqueues the scan of a.n <= kCapacity elements. No temp storage.
    // Call only where supported<Op>() is true; `s` from on_current_device()
    // saves a second device query.
    template <class Op> static cudaError_t run(const SmallScanArgs<T> &a, Op op, cudaStream_t stream) {
        return run(a, op, stream, on_current_device<Op>());
    }
    template <class Op>
    static cudaError_t run(const SmallScanArgs<T> &a, Op op, cudaStream_t stream, const Support &s) {
        if (a.n > kCapacity || !s.ok) return cudaErrorInvalidValue;
        if (s.fn) {
            SmallScanArgs<T> args = a;
            void *params[] = {&args, &op};
            return detail::driver_launch(detail::driver_launch_fn(), s.fn, dim3(CLUSTER), dim3(BLOCK), params, stream);
        }
        kernel<Op>()<<<CLUSTER, BLOCK, 0, stream>>>(a, op);
        return cudaGetLastError();
    }

  private:
    template <class Op> struct Key {}; // one support cache per kernel

    template <class Op> static auto kernel() { return detail::cluster_scan_kernel<T, Op, BLOCK, IPT, CLUSTER>; }

    template <class Op> static bool probe(int dev) {
        auto kernel = ClusterScan::kernel<Op>();
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
