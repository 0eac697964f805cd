// block_scan.cuh -- scans across a thread block, built on WarpScan.
//
// A collective in the CUB style: place a TempStorage in shared memory, build
// a BlockScan on it, call one method with every thread of the block. Call
// __syncthreads() before reusing the same TempStorage.
//
//   using BS = libscan::BlockScan<int, 256>;
//   __shared__ BS::TempStorage tmp;
//   int items[4];                       // blocked: thread t holds items 4t..4t+3
//   BS(tmp).InclusiveScan(items, libscan::Sum<int>());
//
// Two arrangements of the block's items:
//  * blocked: thread t holds N consecutive items starting at t * N;
//  * warp-striped vectors (what 16-byte coalesced loads give): warp w owns
//    the contiguous segment [w * 32*K*V, (w+1) * 32*K*V); inside it, chunk k
//    is 32*V consecutive items of which lane l holds the V at k*32*V + l*V.
//
// Prefix callback: an object with `T operator()(T block_aggregate)` that
// warp 0 calls (all 32 lanes, converged) once the block aggregate is known;
// lane 0's return value is combined in front of every item of the block.
// That is how a tile learns its prefix from preceding tiles (lookback.cuh)
// or how a loop over tiles carries a running total. A callback that declares
// `static constexpr bool kWholeBlock = true` is called by every thread of the
// block instead (it may then use block- or grid-wide barriers); the
// aggregate it is given is valid in warp 0 only, and only warp 0's return
// value is used (grid_scan.cuh's barrier exchange). Which way the callback
// is called changes no operation of the scan: the association below holds
// for both.
//
// Association (fixed): items inside a thread are folded left to right;
// threads (or chunks) of a warp with WarpScan; warps with a WarpScan over
// warp totals; then each item is ((block prefix (+) warp prefix) (+) thread
// prefix) (+) items before it in the thread.
#pragma once

#include <type_traits>

#include "libscan/cuda/warp_scan.cuh"

namespace libscan {

// A prefix callback that adds nothing (every block starts at the identity).
struct NoBlockPrefix {};

// Whether prefix callback P is called by the whole block (see the top).
template <class P, class = void> struct WholeBlockPrefix : std::false_type {};
template <class P>
struct WholeBlockPrefix<P, std::void_t<decltype(P::kWholeBlock)>> : std::bool_constant<P::kWholeBlock> {};

template <typename T, int BLOCK_THREADS> class BlockScan {
    static_assert(BLOCK_THREADS % kWarpThreads == 0 && BLOCK_THREADS <= 1024,
                  "libscan: BLOCK_THREADS must be a multiple of 32, at most 1024");
    static constexpr int kWarps = BLOCK_THREADS / kWarpThreads;

  public:
    struct TempStorage {
        T warp_prefix[kWarps]; // warp totals in, warp prefixes out
        T block_aggregate;
    };

    __device__ __forceinline__ explicit BlockScan(TempStorage &storage) : s_(storage) {}

    // ---- blocked arrangement ------------------------------------------------

    template <int N, class Op> __device__ __forceinline__ void InclusiveScan(T (&items)[N], Op op) {
        T agg;
        NoBlockPrefix none;
        ScanBlocked<false>(items, op, agg, none);
    }
    template <int N, class Op>
    __device__ __forceinline__ void InclusiveScan(T (&items)[N], Op op, T &block_aggregate) {
        NoBlockPrefix none;
        ScanBlocked<false>(items, op, block_aggregate, none);
    }
    // block_aggregate excludes the callback's prefix.
    template <int N, class Op, class PrefixOp>
    __device__ __forceinline__ void InclusiveScan(T (&items)[N], Op op, T &block_aggregate, PrefixOp &prefix_op) {
        ScanBlocked<false>(items, op, block_aggregate, prefix_op);
    }
    template <int N, class Op> __device__ __forceinline__ void ExclusiveScan(T (&items)[N], Op op) {
        T agg;
        NoBlockPrefix none;
        ScanBlocked<true>(items, op, agg, none);
    }
    template <int N, class Op>
    __device__ __forceinline__ void ExclusiveScan(T (&items)[N], Op op, T &block_aggregate) {
        NoBlockPrefix none;
        ScanBlocked<true>(items, op, block_aggregate, none);
    }
    template <int N, class Op, class PrefixOp>
    __device__ __forceinline__ void ExclusiveScan(T (&items)[N], Op op, T &block_aggregate, PrefixOp &prefix_op) {
        ScanBlocked<true>(items, op, block_aggregate, prefix_op);
    }

    // Fold of all items of the block (blocked arrangement), in every thread.
    template <int N, class Op> __device__ __forceinline__ T Reduce(const T (&items)[N], Op op) {
        T t = items[0];
#pragma unroll
        for (int i = 1; i < N; ++i) t = op(t, items[i]);
        T warp_total;
        WarpScan<T>::InclusiveScan(t, op, warp_total);
        T block_total;
        NoBlockPrefix none;
        CombineWarps(warp_total, op, block_total, none);
        return block_total;
    }

    // ---- warp-striped vector arrangement -----------------------------------

    // Scans items[K][V] in the warp-striped arrangement (see top of file).
    // `exclusive` is a run-time switch so one kernel serves both kinds.
    template <int K, int V, class Op, class PrefixOp>
    __device__ __forceinline__ void ScanWarpStriped(T (&items)[K][V], bool exclusive, Op op, T &block_aggregate,
                                                    PrefixOp &prefix_op) {
        T lane_prefix[K]; // exclusive prefix of this lane inside chunk k
        T chunk_total[K];
#pragma unroll
        for (int k = 0; k < K; ++k) {
            T t = items[k][0];
#pragma unroll
            for (int v = 1; v < V; ++v) t = op(t, items[k][v]);
            lane_prefix[k] = WarpScan<T>::ExclusiveScan(t, op, chunk_total[k]);
        }
        T warp_total = chunk_total[0];
#pragma unroll
        for (int k = 1; k < K; ++k) warp_total = op(warp_total, chunk_total[k]);

        T carry = CombineWarps(warp_total, op, block_aggregate, prefix_op);
#pragma unroll
        for (int k = 0; k < K; ++k) {
            T run = op(carry, lane_prefix[k]);
            carry = op(carry, chunk_total[k]);
            ScanThread(items[k], run, exclusive, op);
        }
    }

  private:
    TempStorage &s_;

    template <int N, class Op>
    static __device__ __forceinline__ void ScanThread(T (&items)[N], T run, bool exclusive, Op op) {
#pragma unroll
        for (int i = 0; i < N; ++i) {
            T x = items[i];
            T next = op(run, x);
            items[i] = exclusive ? run : next;
            run = next;
        }
    }

    template <bool EXCLUSIVE, int N, class Op, class PrefixOp>
    __device__ __forceinline__ void ScanBlocked(T (&items)[N], Op op, T &block_aggregate, PrefixOp &prefix_op) {
        T t = items[0];
#pragma unroll
        for (int i = 1; i < N; ++i) t = op(t, items[i]);
        T warp_total;
        T lane_prefix = WarpScan<T>::ExclusiveScan(t, op, warp_total);
        T warp_prefix = CombineWarps(warp_total, op, block_aggregate, prefix_op);
        ScanThread(items, op(warp_prefix, lane_prefix), EXCLUSIVE, op);
    }

    template <class Op> static __device__ __forceinline__ T CallPrefix(NoBlockPrefix &, T, Op op) {
        return op.identity();
    }
    template <class PrefixOp, class Op>
    static __device__ __forceinline__ T CallPrefix(PrefixOp &prefix_op, T aggregate, Op) {
        return prefix_op(aggregate);
    }

    // Exchanges warp totals through shared memory. Returns, in every lane of
    // warp w, (callback prefix) (+) (totals of warps before w); sets
    // block_aggregate (without the callback prefix) in every thread.
    template <class Op, class PrefixOp>
    __device__ __forceinline__ T CombineWarps(T warp_total, Op op, T &block_aggregate, PrefixOp &prefix_op) {
        const int warp = threadIdx.x / kWarpThreads;
        const int lane = lane_id();
        if (lane == 0) s_.warp_prefix[warp] = warp_total;
        __syncthreads();
        if constexpr (WholeBlockPrefix<PrefixOp>::value) {
            // The same operations as below; only the callback runs in every
            // thread (agg and excl are meaningful in warp 0 only).
            T agg = op.identity(), excl = op.identity();
            if (warp == 0) {
                T total = lane < kWarps ? s_.warp_prefix[lane] : op.identity();
                excl = WarpScan<T>::ExclusiveScan(total, op, agg);
            }
            T block_prefix = prefix_op(agg);
            if (warp == 0) {
                block_prefix = WarpScan<T>::Broadcast(block_prefix, 0);
                if (lane < kWarps) s_.warp_prefix[lane] = op(block_prefix, excl);
                if (lane == 0) s_.block_aggregate = agg;
            }
        } else if (warp == 0) {
            T total = lane < kWarps ? s_.warp_prefix[lane] : op.identity();
            T agg;
            T excl = WarpScan<T>::ExclusiveScan(total, op, agg);
            T block_prefix = CallPrefix(prefix_op, agg, op);
            block_prefix = WarpScan<T>::Broadcast(block_prefix, 0);
            if (lane < kWarps) s_.warp_prefix[lane] = op(block_prefix, excl);
            if (lane == 0) s_.block_aggregate = agg;
        }
        __syncthreads();
        block_aggregate = s_.block_aggregate;
        return s_.warp_prefix[warp];
    }
};

} // namespace libscan
