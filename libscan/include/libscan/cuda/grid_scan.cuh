// grid_scan.cuh -- device-wide scan of a small input (up to MAXB tiles) in a
// single cooperative launch over the whole GPU.
//
// Why: below ~2^16 elements a scan is latency. The look-back scan needs its
// tile states zeroed before each launch (a memset node, ~0.8 us more); CUB
// launches two kernels. Here each of up to MAXB blocks, spread over every
// GPC, scans one tile, and a block learns the aggregates of the blocks
// before it in one exchange: there is no chain, every block waits only for
// the publications themselves, which happen at the same time in every block.
//
// One kernel body (grid_scan_tile) and one fold (GridFold), two ways for the
// block aggregates to travel:
//  * Eager launches (run, run_eager): block b publishes its aggregate in
//    grid_flags.cuh (a table the library owns, tagged with this launch's
//    grid id, so no slot needs resetting) as soon as its block scan knows
//    it, and warp 0 of block b polls the aggregates of blocks 0..b-1 in one
//    round trip until all have landed. No temp storage, nothing but the
//    kernel. A kernel node of a CUDA graph keeps one grid id for every
//    replay, so flags tagged by it would read the previous replay's values:
//    run() refuses a stream that is being captured (eager() says which
//    streams are fine). Do not add this kernel to a graph by hand.
//  * Any launch, captured ones included (run_with_temp): block b stores its
//    aggregate in caller temp (temp_bytes(n)), every block waits at the
//    grid barrier of cooperative groups (this_grid().sync(), on the
//    workspace the driver gives every cooperative launch, kernel nodes
//    included), then warp 0 of block b reads blocks 0..b-1. Nothing in temp
//    needs to be zero: the barrier, not a tag, says that every value is this
//    launch's, so there is no memset node (zeroing tagged slots in temp
//    before each launch measured 5.56 us per 2^16 u32 call in graphs on the
//    H100, against CUB's 3.79: a memset node alone costs ~1.5 us). The
//    barrier costs the critical path about one more round trip to L2 than
//    the eager exchange. A launch of one block neither touches temp nor
//    waits.
// DeviceScan (device_scan.cuh) takes the first on an eager stream and the
// second on a capturing one, so an eager scan and its graph replay run the
// same tiles, the same block scans and the same fold: the same bits.
//
// Forward progress: a block waits only for blocks with smaller indices (or,
// at the barrier, for every block of the launch). Both launches are
// cooperative, so every block is resident from the start (the host checks
// that MAXB blocks of either kernel fit before it takes this path); this also
// bounds how long a launch holds its flag set (grid_flags.cuh).
//
// Association (fixed for a given n, so floats are deterministic, and the
// same for both launches): with c = carry-in and a(j) the tile aggregates,
// block 0 publishes c (+) a(0) and block j > 0 publishes a(j). prefix(0) = c;
// for b > 0, lane l of warp 0 folds the published values of blocks
// lK .. lK+K-1 that are below b, left to right (K = MAXB / 32), and
// prefix(b) is the warp's inclusive scan of those folds (WarpScan's fixed
// order) at lane 31. Inside a block, prefix(b) enters as BlockScan's
// callback prefix (block_scan.cuh), called by warp 0 alone or by the whole
// block, which changes no operation.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cooperative_groups.h>

#include "libscan/cuda/block_scan.cuh"
#include "libscan/cuda/driver_launch.cuh"
#include "libscan/cuda/grid_flags.cuh"
#include "libscan/cuda/small_scan_args.cuh"
#include "libscan/cuda/tile_io.cuh"

namespace libscan {

namespace detail {

// What both exchanges share: the value block `block` publishes, and the fold
// of the published values of blocks 0..b-1 into prefix(b) (warp 0, all
// lanes; v[k] holds block lane * K + k's value, the identity from b on).
template <typename T, class Op, int MAXB> struct GridFold {
    static constexpr int K = (MAXB + kWarpThreads - 1) / kWarpThreads;

    static __device__ __forceinline__ T published(unsigned block, const T &carry, const T &aggregate, const Op &op) {
        return block == 0 ? op(carry, aggregate) : aggregate;
    }
    static __device__ __forceinline__ T prefix(const T (&v)[K], const Op &op) {
        T x = v[0];
#pragma unroll
        for (int k = 1; k < K; ++k) x = op(x, v[k]);
        return WarpScan<T>::Broadcast(WarpScan<T>::InclusiveScan(x, op), kWarpThreads - 1);
    }
};

// The eager exchange, as the block scan's prefix callback (block_scan.cuh),
// run by warp 0 once the block aggregate is known: publish it for the later
// blocks, then poll for what the earlier blocks published. Returns this
// block's prefix; the last block also writes the total.
template <typename T, class Op, int MAXB> struct GridPrefix {
    using Fold = GridFold<T, Op, MAXB>;
    GridFlags<T> flags;
    unsigned block;
    unsigned blocks;
    T carry; // the carry-in, in block 0
    T *d_total;
    Op op;

    __device__ __forceinline__ T operator()(T aggregate) {
        const int lane = lane_id();
        if (lane == 0 && block + 1 < blocks) flags.publish(block, Fold::published(block, carry, aggregate, op));
        T prefix = carry;
        if (block > 0) {
            T v[Fold::K];
            while (!__all_sync(kFullMask, flags.try_load(static_cast<unsigned>(lane * Fold::K), block, v,
                                                         op.identity()))) {
            }
            prefix = Fold::prefix(v, op);
        }
        if (d_total && block + 1 == blocks && lane == 0) *d_total = op(prefix, aggregate);
        return prefix;
    }
};

// The barrier exchange, as a whole-block prefix callback (block_scan.cuh):
// every thread of the block calls it; aggregate is valid in warp 0. Block
// b < blocks - 1 stores its value in slots[b] (temp of this launch alone),
// the grid barrier orders every store before every read, and warp 0 reads
// slots 0..b-1. Returns this block's prefix in warp 0; the last block also
// writes the total.
template <typename T, class Op, int MAXB> struct GridBarrierPrefix {
    static constexpr bool kWholeBlock = true;
    using Fold = GridFold<T, Op, MAXB>;
    T *slots;
    unsigned block;
    unsigned blocks;
    T carry;
    T *d_total;
    Op op;

    __device__ __forceinline__ T operator()(T aggregate) {
        if (threadIdx.x == 0 && block + 1 < blocks) slots[block] = Fold::published(block, carry, aggregate, op);
        if (blocks > 1) cooperative_groups::this_grid().sync(); // uniform: every block or none
        T prefix = carry;
        if (threadIdx.x < kWarpThreads && block > 0) {
            const unsigned first = static_cast<unsigned>(lane_id() * Fold::K);
            T v[Fold::K];
#pragma unroll
            for (int k = 0; k < Fold::K; ++k) v[k] = first + k < block ? slots[first + k] : op.identity();
            prefix = Fold::prefix(v, op);
        }
        if (d_total && block + 1 == blocks && threadIdx.x == 0) *d_total = op(prefix, aggregate);
        return prefix;
    }
};

// One block's tile: load, scan with the prefix callback that
// make(block, carry) returns, store. Only block 0 reads the carry-in; it
// travels on inside c (+) a(0), so the last block's write of d_total (which
// may alias d_init) depends on the value read. Both kernels are this body.
template <typename T, class Op, int BLOCK, int IPT, class MakePrefix>
__device__ __forceinline__ void grid_scan_tile(const SmallScanArgs<T> &a, const Op &op, MakePrefix make) {
    using Shape = TileShape<T, BLOCK, IPT>;
    __shared__ typename BlockScan<T, BLOCK>::TempStorage temp;
    const unsigned block = blockIdx.x;
    const size_t base = static_cast<size_t>(block) * Shape::kTile;
    T items[Shape::K][Shape::V];
    load_striped<T, BLOCK, IPT>(a.in, a.n, a.vector_ok, base, op, items);
    const T carry = block == 0 ? (a.d_init ? *a.d_init : a.carry_in) : op.identity();
    auto prefix = make(block, carry);
    T aggregate;
    BlockScan<T, BLOCK>(temp).template ScanWarpStriped<Shape::K, Shape::V>(items, a.exclusive, op, aggregate, prefix);
    store_striped<T, BLOCK, IPT>(a.out, a.n, a.vector_ok, base, items);
}

template <typename T, class Op, int BLOCK, int IPT, int MAXB>
__global__ void __launch_bounds__(BLOCK) grid_scan_kernel(const SmallScanArgs<T> a, const Op op) {
    grid_scan_tile<T, Op, BLOCK, IPT>(a, op, [&](unsigned block, const T &carry) {
        return GridPrefix<T, Op, MAXB>{GridFlags<T>::current(), block, gridDim.x, carry, a.d_total, op};
    });
}

template <typename T, class Op, int BLOCK, int IPT, int MAXB>
__global__ void __launch_bounds__(BLOCK) grid_scan_barrier_kernel(const SmallScanArgs<T> a, const Op op, T *slots) {
    grid_scan_tile<T, Op, BLOCK, IPT>(a, op, [&](unsigned block, const T &carry) {
        return GridBarrierPrefix<T, Op, MAXB>{slots, block, gridDim.x, carry, a.d_total, op};
    });
}

} // namespace detail

// Small scan: up to MAXB blocks of BLOCK threads, IPT items each.
template <typename T, int BLOCK, int IPT, int MAXB> struct GridScan {
    static_assert(MAXB <= detail::GridFlagsLayout::kBlocks, "libscan: more blocks than grid flag slots");
    static constexpr int kBlockThreads = BLOCK;
    static constexpr int kTile = BLOCK * IPT;
    static constexpr size_t kCapacity = static_cast<size_t>(MAXB) * kTile;
    // Values travel in grid flags (up to 8 bytes); larger types take the
    // look-back (device_scan.cuh), eager or captured alike.
    static constexpr bool kFits = sizeof(T) <= 4 * detail::GridFlagsLayout::kWords;

    // What the current device offers these kernels, probed once per device:
    // ok when it can run both (the kernels built for it, cooperative
    // launches, and MAXB blocks of each resident at once), so that eager and
    // captured scans take this path together or not at all; fn, the driver
    // handle to launch the eager kernel with (null: use the runtime's
    // cooperative launch).
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

    // Temp bytes run_with_temp() needs for n elements: one value per block
    // that publishes (all but the last); 0 for one block.
    static constexpr size_t temp_bytes(size_t n) {
        return n == 0 || blocks(n) < 2 ? 0 : static_cast<size_t>(blocks(n) - 1) * sizeof(T);
    }

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

    // Enqueues the same scan through the barrier exchange: one cooperative
    // kernel (a cooperative kernel node when `stream` is being captured),
    // its block values in `temp` (temp_bytes(a.n) bytes, aligned to
    // alignof(T); may be null when that is 0). Valid eager or captured, and
    // replayable: nothing in temp is read before this launch wrote it. Call
    // only where supported<Op>() is true (else cudaErrorInvalidValue).
    template <class Op>
    static cudaError_t run_with_temp(const SmallScanArgs<T> &a, Op op, void *temp, size_t temp_size,
                                     cudaStream_t stream, const Support &s) {
        if constexpr (!kFits) {
            (void)a, (void)op, (void)temp, (void)temp_size, (void)stream, (void)s;
            return cudaErrorInvalidValue;
        } else {
            if (a.n == 0 || a.n > kCapacity || !s.ok) return cudaErrorInvalidValue;
            const size_t need = temp_bytes(a.n);
            if (need && (temp == nullptr || temp_size < need || reinterpret_cast<uintptr_t>(temp) % alignof(T)))
                return cudaErrorInvalidValue;
            cudaLaunchAttribute coop[1];
            coop[0].id = cudaLaunchAttributeCooperative;
            coop[0].val.cooperative = 1;
            cudaLaunchConfig_t cfg = {};
            cfg.gridDim = dim3(blocks(a.n));
            cfg.blockDim = dim3(BLOCK);
            cfg.dynamicSmemBytes = 0;
            cfg.stream = stream;
            cfg.attrs = coop;
            cfg.numAttrs = 1;
            return cudaLaunchKernelEx(&cfg, barrier_kernel<Op>(), a, op, need ? static_cast<T *>(temp) : nullptr);
        }
    }

    template <class Op> static auto kernel() { return detail::grid_scan_kernel<T, Op, BLOCK, IPT, MAXB>; }
    template <class Op> static auto barrier_kernel() { return detail::grid_scan_barrier_kernel<T, Op, BLOCK, IPT, MAXB>; }

  private:
    template <class Op> struct Key {}; // one support cache per kernel pair

    template <class Kernel> static bool fits(Kernel k, int sms) {
        int per_sm = 0;
        cudaFuncAttributes fa;
        return cudaFuncGetAttributes(&fa, k) == cudaSuccess &&
               cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, BLOCK, 0) == cudaSuccess &&
               static_cast<long long>(per_sm) * sms >= MAXB;
    }
    template <class Op> static bool probe(int dev) {
        int coop = 0, sms = 0;
        const bool ok = cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev) == cudaSuccess && coop &&
                        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess &&
                        fits(kernel<Op>(), sms) && fits(barrier_kernel<Op>(), sms);
        (void)cudaGetLastError();
        return ok;
    }
};

} // namespace libscan
