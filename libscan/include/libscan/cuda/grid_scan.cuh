// grid_scan.cuh -- device-wide scan of a small input (up to MAXB tiles) in a
// single cooperative launch over the whole GPU, with no temp storage, no
// memset and nothing to reset between calls.
//
// Why: below ~2^16 elements a scan is latency. The look-back scan needs its
// tile states zeroed before each launch (a memset node, ~0.8 us more); CUB
// launches two kernels. A single thread-block cluster (16 SMs of one GPC)
// needs neither, but moves all the data through those 16 SMs: a 2^16 u64
// scan spent two thirds of its 3.6 us there. Here each of up to MAXB blocks,
// spread over every GPC, scans one tile; block b publishes its aggregate in
// grid_flags.cuh (tagged with this launch's grid id, so no slot needs
// resetting) as soon as its block scan knows it, and warp 0 of block b reads
// the aggregates of blocks 0..b-1 in one round trip, polling until all have
// landed. There is no chain: every block waits only for the publications
// themselves, which happen at the same time in every block.
//
// Forward progress: a block waits only for blocks with smaller indices. The
// launch is cooperative, so every block is resident from the start (the
// host checks that MAXB blocks fit before it takes this path); this also
// bounds how long a launch holds its flag set (grid_flags.cuh).
//
// Eager launches only: a kernel node of a CUDA graph keeps one grid id for
// every replay, so flags tagged by it would read the previous replay's
// values. run() refuses a stream that is being captured (eager() says which
// streams are fine); DeviceScan then takes the cluster scan, which keeps no
// state outside the launch. Do not add this kernel to a graph by hand.
//
// Association (fixed for a given n, so floats are deterministic): with
// c = carry-in and a(j) the tile aggregates, block 0 publishes c (+) a(0)
// and block j > 0 publishes a(j). prefix(0) = c; for b > 0, lane l of warp
// 0 folds the published values of blocks lK .. lK+K-1 that are below b, left
// to right (K = MAXB / 32), and prefix(b) is the warp's inclusive scan of
// those folds (WarpScan's fixed order) at lane 31. Inside a block, prefix(b)
// enters as BlockScan's callback prefix (block_scan.cuh).
#pragma once

#include <cstddef>
#include <cstdint>

#include "libscan/cuda/block_scan.cuh"
#include "libscan/cuda/driver_launch.cuh"
#include "libscan/cuda/grid_flags.cuh"
#include "libscan/cuda/small_scan_args.cuh"
#include "libscan/cuda/tile_io.cuh"

namespace libscan {

namespace detail {

// The block scan's prefix callback (block_scan.cuh), run by warp 0 once the
// block aggregate is known: publish it for the later blocks, then fold what
// the earlier blocks published. Returns this block's prefix; the last block
// also writes the total.
template <typename T, class Op, int MAXB> struct GridPrefix {
    GridFlags<T> flags;
    unsigned block;
    unsigned blocks;
    T carry; // the carry-in, in block 0
    T *d_total;
    Op op;

    __device__ __forceinline__ T operator()(T aggregate) {
        constexpr int K = (MAXB + kWarpThreads - 1) / kWarpThreads;
        const int lane = lane_id();
        if (lane == 0 && block + 1 < blocks) flags.publish(block, block == 0 ? op(carry, aggregate) : aggregate);
        T prefix = carry;
        if (block > 0) {
            T v[K];
            while (!__all_sync(kFullMask, flags.try_load(static_cast<unsigned>(lane * K), block, v, op.identity()))) {
            }
            T x = v[0];
#pragma unroll
            for (int k = 1; k < K; ++k) x = op(x, v[k]);
            prefix = WarpScan<T>::Broadcast(WarpScan<T>::InclusiveScan(x, op), kWarpThreads - 1);
        }
        if (d_total && block + 1 == blocks && lane == 0) *d_total = op(prefix, aggregate);
        return prefix;
    }
};

template <typename T, class Op, int BLOCK, int IPT, int MAXB>
__global__ void __launch_bounds__(BLOCK) grid_scan_kernel(const SmallScanArgs<T> a, const Op op) {
    using Shape = TileShape<T, BLOCK, IPT>;
    __shared__ typename BlockScan<T, BLOCK>::TempStorage temp;
    const unsigned block = blockIdx.x;
    const size_t base = static_cast<size_t>(block) * Shape::kTile;
    T items[Shape::K][Shape::V];
    load_striped<T, BLOCK, IPT>(a.in, a.n, a.vector_ok, base, op, items);

    // Only block 0 reads the carry-in; it travels on inside c (+) a(0), so
    // the last block's write of d_total (which may alias d_init) depends on
    // the value read.
    const T carry = block == 0 ? (a.d_init ? *a.d_init : a.carry_in) : op.identity();
    GridPrefix<T, Op, MAXB> prefix{GridFlags<T>::current(), block, gridDim.x, carry, a.d_total, op};
    T aggregate;
    BlockScan<T, BLOCK>(temp).template ScanWarpStriped<Shape::K, Shape::V>(items, a.exclusive, op, aggregate, prefix);
    store_striped<T, BLOCK, IPT>(a.out, a.n, a.vector_ok, base, items);
}

} // namespace detail

// Small scan: up to MAXB blocks of BLOCK threads, IPT items each.
template <typename T, int BLOCK, int IPT, int MAXB> struct GridScan {
    static_assert(MAXB <= detail::GridFlagsLayout::kBlocks, "libscan: more blocks than grid flag slots");
    static constexpr int kBlockThreads = BLOCK;
    static constexpr int kTile = BLOCK * IPT;
    static constexpr size_t kCapacity = static_cast<size_t>(MAXB) * kTile;
    // Values travel in grid flags (up to 8 bytes); larger types take the
    // cluster scan or the look-back (device_scan.cuh).
    static constexpr bool kFits = sizeof(T) <= 4 * detail::GridFlagsLayout::kWords;

    // What the current device offers this kernel, probed once per device: ok
    // when it can run it (the kernel built for it, cooperative launches, and
    // MAXB blocks resident at once); fn, the driver handle to launch it with
    // (null: use the runtime's cooperative launch).
    using Support = detail::LaunchSupport;
    template <class Op> static Support on_current_device() {
        if constexpr (!kFits) {
            return Support{false, nullptr};
        } else {
            return detail::support_on_current_device<Key<Op>>([](int dev) { return probe<Op>(dev); }, kernel<Op>(),
                                                              detail::driver_coop_launch_fn() != nullptr);
        }
    }
    template <class Op> static bool supported() { return on_current_device<Op>().ok; }

    static constexpr unsigned blocks(size_t n) { return static_cast<unsigned>((n + kTile - 1) / kTile); }

    // True when a launch on `stream` runs eagerly: the stream is not being
    // captured into a graph (and the query worked; a legacy-stream query
    // during another thread's global capture fails, and counts as no).
    static bool eager(cudaStream_t stream) {
        bool capturing = true;
        return detail::stream_capturing(stream, &capturing) && !capturing;
    }

    // Enqueues the scan of 1 <= a.n <= kCapacity elements. No temp storage.
    // Call only where supported<Op>() and eager(stream) are true (else
    // cudaErrorInvalidValue, or cudaErrorStreamCaptureUnsupported under
    // capture); `s` from on_current_device() saves a second device query.
    template <class Op> static cudaError_t run(const SmallScanArgs<T> &a, Op op, cudaStream_t stream) {
        return run(a, op, stream, on_current_device<Op>());
    }
    template <class Op>
    static cudaError_t run(const SmallScanArgs<T> &a, Op op, cudaStream_t stream, const Support &s) {
        if (!eager(stream)) return cudaErrorStreamCaptureUnsupported;
        return run_eager(a, op, stream, s);
    }
    // run() for a caller that has just seen eager(stream) say yes (a second
    // capture query would cost host time on every call).
    template <class Op>
    static cudaError_t run_eager(const SmallScanArgs<T> &a, Op op, cudaStream_t stream, const Support &s) {
        if constexpr (!kFits) {
            (void)a, (void)op, (void)stream, (void)s;
            return cudaErrorInvalidValue;
        } else {
            if (a.n == 0 || a.n > kCapacity || !s.ok) return cudaErrorInvalidValue;
            SmallScanArgs<T> args = a;
            void *params[] = {&args, &op};
            if (s.fn)
                return detail::driver_coop_launch(detail::driver_coop_launch_fn(), s.fn, dim3(blocks(a.n)),
                                                  dim3(BLOCK), params, stream);
            return cudaLaunchCooperativeKernel(reinterpret_cast<const void *>(kernel<Op>()), dim3(blocks(a.n)),
                                               dim3(BLOCK), params, 0, stream);
        }
    }

    template <class Op> static auto kernel() { return detail::grid_scan_kernel<T, Op, BLOCK, IPT, MAXB>; }

  private:
    template <class Op> struct Key {}; // one support cache per kernel

    template <class Op> static bool probe(int dev) {
        auto k = kernel<Op>();
        int coop = 0, sms = 0, per_sm = 0;
        cudaFuncAttributes fa;
        const bool ok = cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev) == cudaSuccess && coop &&
                        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess &&
                        cudaFuncGetAttributes(&fa, k) == cudaSuccess &&
                        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, BLOCK, 0) == cudaSuccess &&
                        static_cast<long long>(per_sm) * sms >= MAXB;
        (void)cudaGetLastError();
        return ok;
    }
};

} // namespace libscan
