// counting_sort.cuh -- the short path of the radix sort for 8- and 16-bit
// keys without values, over the whole key: a counting sort.
//
// When the digit is the whole key, keys with one digit are equal, so a sort
// needs no permutation: count each key value, scan the counts into starts,
// and write every value's run of copies. One read of the keys (two for
// 16-bit keys: the 65536 counters take two 128 KB halves of shared memory,
// one per block), one write, against a histogram read plus a read and a
// write per 8-bit pass in the onesweep path. Equal keys cannot be told
// apart, so the result is the stable sort's, bit for bit.
//
//   1. count_kernel: shared counters for a slice of the key values (all 256
//      of 8-bit keys; half of 16-bit keys' 65536, blockIdx.y picks which),
//      each block over a grid-stride share of the keys, added to the global
//      counts at the end (only the non-zero ones);
//   2. starts_kernel: one block scans the counts in place into exclusive
//      starts and writes the total after them (starts[R] = n);
//   3. fill_kernel: each thread writes a run of consecutive outputs; it finds
//      the digit of its first output by binary search in the starts, inside
//      the range of digits its block covers (found once per block), then
//      walks forward.
// The codec is the sort's key map (onesweep.cuh); for unsigned keys it is an
// involution (x ^ xor_all), so digit d is written back as d ^ xor_all.
#pragma once

#include <cuda_runtime.h>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "libscan/cuda/block_scan.cuh"
#include "libscan/cuda/onesweep.cuh"
#include "libscan/cuda/sort_tuning.cuh"

namespace libscan::sort {

// Key values of K, and how many of them one block counts in shared memory.
template <typename K> struct CountingShape {
    static constexpr int kBins = 1 << (8 * sizeof(K));
    static constexpr int kSliceBins = kBins <= CountingTuning::kMaxSliceBins ? kBins : CountingTuning::kMaxSliceBins;
    static constexpr int kSlices = kBins / kSliceBins;
    static constexpr size_t kSharedBytes = size_t(kSliceBins) * sizeof(unsigned);
};

template <typename K>
__global__ void __launch_bounds__(CountingTuning::kCountThreads)
    count_kernel(const K *keys, size_t n, Codec<K> codec, unsigned long long *counts) {
    using Shape = CountingShape<K>;
    constexpr int BLOCK = CountingTuning::kCountThreads, VPT = CountingTuning::kCountVectors;
    constexpr int V = 16 / int(sizeof(K)); // keys per 16-byte vector
    extern __shared__ unsigned s_count[];  // kSliceBins counters
    for (int i = threadIdx.x; i < Shape::kSliceBins; i += BLOCK) s_count[i] = 0;
    __syncthreads();
    const unsigned lo = blockIdx.y * unsigned(Shape::kSliceBins);
    auto add = [&](K key) {
        const unsigned d = unsigned(codec.map(key)) - lo; // wraps high for digits below the slice
        if (d < unsigned(Shape::kSliceBins)) atomicAdd(&s_count[d], 1u);
    };
    // One step of a whole warp: V keys a lane. When more than kCrowdLanes
    // lanes, but not all, hold lane 0's first key (few distinct keys), equal
    // keys are counted once per group (match, then one atomic of the group's
    // size by its lowest lane): atomics on two counters from 32 lanes
    // serialise (2-distinct u16 keys took 6.5 ms against 1.0 ms for uniform
    // ones on an H200, bench/results/2026-11-28-h200x2-72983d6), where one
    // counter from a whole warp does not (all-equal keys 0.87 ms). Otherwise
    // it costs one shuffle and one vote a step.
    auto add_step = [&](const K (&k)[V]) {
        const unsigned m0 = unsigned(codec.map(k[0]));
        const unsigned first = __shfl_sync(libscan::kFullMask, m0, 0);
        const int crowd = __popc(__ballot_sync(libscan::kFullMask, m0 == first));
        if (crowd <= CountingTuning::kCrowdLanes || crowd == 32) {
#pragma unroll
            for (int j = 0; j < V; ++j) add(k[j]);
            return;
        }
#pragma unroll
        for (int j = 0; j < V; ++j) {
            const unsigned m = unsigned(codec.map(k[j]));
            const unsigned group = __match_any_sync(libscan::kFullMask, m);
            const unsigned d = m - lo;
            if ((threadIdx.x & 31u) == unsigned(__ffs(group) - 1) && d < unsigned(Shape::kSliceBins))
                atomicAdd(&s_count[d], unsigned(__popc(group)));
        }
    };
    // Whole vectors from the first 16-byte boundary; the keys before it and
    // after the last whole vector one by one (block 0 of the slice).
    const size_t head = (16 - reinterpret_cast<uintptr_t>(keys) % 16) % 16 / sizeof(K);
    const size_t first = head < n ? head : n;
    const size_t vectors = (n - first) / V;
    const uint4 *vec = reinterpret_cast<const uint4 *>(keys + first);
    constexpr size_t kChunk = size_t(BLOCK) * VPT;
    for (size_t base = size_t(blockIdx.x) * kChunk; base < vectors; base += size_t(gridDim.x) * kChunk) {
        uint4 r[VPT];
#pragma unroll
        for (int v = 0; v < VPT; ++v) {
            const size_t i = base + size_t(v) * BLOCK + threadIdx.x;
            r[v] = i < vectors ? vec[i] : make_uint4(0, 0, 0, 0);
        }
#pragma unroll
        for (int v = 0; v < VPT; ++v) {
            K k[V];
            memcpy(k, &r[v], 16);
            // Whole warps take the warp path (every lane in the shuffle, vote
            // and match); a warp with lanes past the end adds one by one.
            const size_t warp_last = base + size_t(v) * BLOCK + (threadIdx.x | 31u);
            if (warp_last < vectors) {
                add_step(k);
            } else if (base + size_t(v) * BLOCK + threadIdx.x < vectors) {
#pragma unroll
                for (int j = 0; j < V; ++j) add(k[j]);
            }
        }
    }
    if (blockIdx.x == 0) {
        for (size_t i = threadIdx.x; i < first; i += BLOCK) add(keys[i]);
        for (size_t i = first + vectors * V + threadIdx.x; i < n; i += BLOCK) add(keys[i]);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < Shape::kSliceBins; i += BLOCK)
        if (s_count[i]) atomicAdd(counts + lo + i, static_cast<unsigned long long>(s_count[i]));
}

// Blocks per slice of count_kernel<K> for n keys on `sms` SMs: enough that a
// block counts at least kMinKeysPerBlock keys (its zeroing and flush of the
// slice are paid per block), at most what fills the SMs, and enough that no
// block counts 2^31 keys or more (its 32-bit shared counters).
template <typename K> inline unsigned count_blocks(size_t n, int sms) {
    using Shape = CountingShape<K>;
    const size_t per_sm = CountingTuning::kCountBlocksPerSm<Shape::kSlices>();
    const size_t cap = (size_t(sms > 0 ? sms : 1) * per_sm + Shape::kSlices - 1) / Shape::kSlices;
    size_t blocks = (n + CountingTuning::kMinKeysPerBlock - 1) / CountingTuning::kMinKeysPerBlock;
    if (blocks > cap) blocks = cap;
    const size_t floor31 = (n >> 31) + 1;
    if (blocks < floor31) blocks = floor31;
    return static_cast<unsigned>(blocks < 1 ? 1 : blocks);
}

// One block: counts[0..R) -> exclusive starts in place, counts[R] = total.
template <int BINS> __global__ void __launch_bounds__(CountingTuning::kScanThreads) starts_kernel(unsigned long long *counts) {
    constexpr int BLOCK = CountingTuning::kScanThreads;
    constexpr int ITEMS = BINS / BLOCK > 0 ? BINS / BLOCK : 1;
    static_assert(BINS % BLOCK == 0 || BINS < BLOCK, "libscan::sort: counting bins must fill the scan block");
    using Scan = libscan::BlockScan<unsigned long long, BLOCK>;
    __shared__ typename Scan::TempStorage temp;
    unsigned long long v[ITEMS];
    const int base = threadIdx.x * ITEMS;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) v[i] = base + i < BINS ? counts[base + i] : 0ull;
    unsigned long long total = 0;
    Scan(temp).ExclusiveScan(v, libscan::Sum<unsigned long long>(), total);
#pragma unroll
    for (int i = 0; i < ITEMS; ++i)
        if (base + i < BINS) counts[base + i] = v[i];
    if (threadIdx.x == 0) counts[BINS] = total;
}

// The largest digit d in [lo, hi] with starts[d] <= pos (starts[lo] <= pos).
__device__ __forceinline__ unsigned digit_at(const unsigned long long *starts, size_t pos, unsigned lo,
                                             unsigned hi) {
    while (lo < hi) {
        const unsigned mid = (lo + hi + 1) / 2;
        if (starts[mid] <= pos) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

// Thread t of block b writes outputs [b*TILE + t*KPT, +KPT): 32 bytes, as two
// 16-byte stores where whole and aligned.
template <typename K>
__global__ void __launch_bounds__(CountingTuning::kFillThreads)
    fill_kernel(K *out, size_t n, K xor_all, const unsigned long long *starts) {
    constexpr int BLOCK = CountingTuning::kFillThreads;
    constexpr int KPT = 32 / int(sizeof(K));
    constexpr unsigned kLast = unsigned(CountingShape<K>::kBins) - 1;
    __shared__ unsigned s_range[2];
    const size_t tile_base = size_t(blockIdx.x) * BLOCK * KPT;
    if (threadIdx.x == 0) s_range[0] = digit_at(starts, tile_base, 0, kLast);
    if (threadIdx.x == 1) {
        const size_t last = tile_base + size_t(BLOCK) * KPT - 1;
        s_range[1] = digit_at(starts, last < n ? last : n - 1, 0, kLast);
    }
    __syncthreads();
    const size_t pos0 = tile_base + size_t(threadIdx.x) * KPT;
    if (pos0 >= n) return;
    unsigned d = digit_at(starts, pos0, s_range[0], s_range[1]);
    unsigned long long next = starts[d + 1];
    K k[KPT];
    // A run that ends inside this thread's outputs: the next digit is found
    // by binary search, not by stepping over the empty digits between (two
    // distinct u16 keys far apart had one thread step through up to 65535
    // starts, one dependent load each: 2^28 keys with values 56004 apart
    // took 6.16 ms, now 1.07 ms, on an H200).
#pragma unroll
    for (int j = 0; j < KPT; ++j) {
        if (pos0 + j < n && pos0 + j >= next) {
            d = digit_at(starts, pos0 + j, d + 1, s_range[1]);
            next = starts[d + 1];
        }
        k[j] = static_cast<K>(K(d) ^ xor_all);
    }
    if (n - pos0 >= size_t(KPT) && reinterpret_cast<uintptr_t>(out + pos0) % 16 == 0) {
        uint4 w[2];
        memcpy(w, k, 32);
        reinterpret_cast<uint4 *>(out + pos0)[0] = w[0];
        reinterpret_cast<uint4 *>(out + pos0)[1] = w[1];
    } else {
#pragma unroll
        for (int j = 0; j < KPT; ++j)
            if (pos0 + j < n) out[pos0 + j] = k[j];
    }
}

} // namespace libscan::sort
