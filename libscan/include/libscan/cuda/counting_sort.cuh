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
//      of 8-bit keys, a copy per lane; half of 16-bit keys' 65536,
//      blockIdx.y picks which), each block over a grid-stride share of the
//      keys, added to the global counts at the end (only the non-zero ones);
//   2. starts_kernel: one block scans the counts in place into exclusive
//      starts and writes the total after them (starts[R] = n);
//   3. fill_kernel: each thread writes a run of consecutive outputs; it finds
//      the digit of its first output by binary search in a sample of the
//      starts in shared memory (then, for 16-bit keys, in the starts), then
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
// kLaneCopies: copies of the counters, one per lane (lane l's counter of
// digit d at d * 32 + l, in bank l), where they fit (8-bit keys: 32 KB), so
// that a warp's 32 adds never meet in a bank or on an address, whatever the
// keys; 16-bit keys keep one copy.
template <typename K> struct CountingShape {
    static constexpr int kBins = 1 << (8 * sizeof(K));
    static constexpr int kSliceBins = kBins <= CountingTuning::kMaxSliceBins ? kBins : CountingTuning::kMaxSliceBins;
    static constexpr int kSlices = kBins / kSliceBins;
    static constexpr int kLaneCopies = kSliceBins * 32 <= CountingTuning::kMaxLaneCopyCounters ? 32 : 1;
    static constexpr size_t kSharedBytes = size_t(kSliceBins) * kLaneCopies * sizeof(unsigned);
};

template <typename K>
__global__ void __launch_bounds__(CountingTuning::kCountThreads)
    count_kernel(const K *keys, size_t n, Codec<K> codec, unsigned long long *counts) {
    using Shape = CountingShape<K>;
    constexpr int BLOCK = CountingTuning::kCountThreads, VPT = CountingTuning::kCountVectors;
    constexpr int V = 16 / int(sizeof(K)); // keys per 16-byte vector
    constexpr int kCopies = Shape::kLaneCopies;
    extern __shared__ unsigned s_count[];  // kSliceBins x kCopies counters
    for (int i = threadIdx.x; i < Shape::kSliceBins * kCopies; i += BLOCK) s_count[i] = 0;
    __syncthreads();
    const unsigned lo = blockIdx.y * unsigned(Shape::kSliceBins);
    const unsigned copy = kCopies > 1 ? (threadIdx.x & 31u) : 0u;
    auto add = [&](K key) {
        const unsigned d = unsigned(codec.map(key)) - lo; // wraps high for digits below the slice
        if (d < unsigned(Shape::kSliceBins)) atomicAdd(&s_count[d * kCopies + copy], 1u);
    };
    // One step of a whole warp: V keys a lane. When more than kCrowdLanes
    // lanes, but not all, hold lane 0's first key (few distinct keys), equal
    // keys are counted once per group (match, then one atomic of the group's
    // size by its lowest lane): atomics on two counters from 32 lanes
    // serialise (2-distinct u16 keys took 6.5 ms against 1.0 ms for uniform
    // ones on an H200, bench/results/2026-11-28-h200x2-72983d6), where one
    // counter from a whole warp does not (all-equal keys 0.87 ms). Otherwise
    // it costs one shuffle and one vote a step.
    // (With a copy per lane, equal keys never meet: no vote, no match.)
    auto add_step = [&](const K (&k)[V]) {
        if constexpr (kCopies > 1) {
#pragma unroll
            for (int j = 0; j < V; ++j) add(k[j]);
            return;
        }
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
    for (int i = threadIdx.x; i < Shape::kSliceBins; i += BLOCK) {
        unsigned long long c = 0;
        // Copy (c + i) % 32 first: the 32 threads of a warp read 32 banks.
#pragma unroll 8
        for (int q = 0; q < kCopies; ++q) c += s_count[i * kCopies + ((q + i) & (kCopies - 1))];
        if (c) atomicAdd(counts + lo + i, c);
    }
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
// In rounds of BLOCK x ITEMS counts (ITEMS at most 8 a thread, so that they
// stay in registers: 64 a thread for 16-bit keys' 65536 counts spilled, and
// the scan took ~150 us under ncu on the H200), each round's total carried
// into the next.
template <int BINS> __global__ void __launch_bounds__(CountingTuning::kScanThreads) starts_kernel(unsigned long long *counts) {
    constexpr int BLOCK = CountingTuning::kScanThreads;
    constexpr int ITEMS = BINS / BLOCK >= 8 ? 8 : (BINS / BLOCK > 0 ? BINS / BLOCK : 1);
    constexpr int ROUND = BLOCK * ITEMS;
    constexpr int ROUNDS = (BINS + ROUND - 1) / ROUND;
    static_assert(BINS % ROUND == 0 || BINS < BLOCK, "libscan::sort: counting bins must fill the scan rounds");
    using Scan = libscan::BlockScan<unsigned long long, BLOCK>;
    __shared__ typename Scan::TempStorage temp;
    unsigned long long carried = 0;
    for (int r = 0; r < ROUNDS; ++r) {
        unsigned long long v[ITEMS];
        const int base = r * ROUND + int(threadIdx.x) * ITEMS;
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) v[i] = base + i < BINS ? counts[base + i] : 0ull;
        unsigned long long total = 0;
        Scan(temp).ExclusiveScan(v, libscan::Sum<unsigned long long>(), total);
#pragma unroll
        for (int i = 0; i < ITEMS; ++i)
            if (base + i < BINS) counts[base + i] = v[i] + carried;
        carried += total;
        __syncthreads(); // temp is taken again by the next round's scan
    }
    if (threadIdx.x == 0) counts[BINS] = carried;
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

// Where fill_kernel finds digits: every kStride-th start (all 257 of 8-bit
// keys, every 256th of 16-bit keys' 65537) in shared memory, read once per
// block; a search there gives the digit (8-bit keys) or its run of kStride
// digits, searched in global memory (16-bit keys: 8 dependent loads).
template <typename K> struct FillSample {
    static constexpr int kBins = CountingShape<K>::kBins;
    static constexpr int kSamples = kBins < 256 ? kBins : 256;
    static constexpr int kStride = kBins / kSamples;
};

// The digit of output position pos < n, at or after digit `from` (whose
// start is at most pos).
template <typename K>
__device__ __forceinline__ unsigned fill_digit(const unsigned long long *s_sample, const unsigned long long *starts,
                                               size_t pos, unsigned from) {
    using F = FillSample<K>;
    const unsigned i = digit_at(s_sample, pos, from / unsigned(F::kStride), unsigned(F::kSamples) - 1);
    if constexpr (F::kStride == 1) {
        (void)starts;
        return i;
    } else {
        const unsigned lo = i * unsigned(F::kStride) > from ? i * unsigned(F::kStride) : from;
        return digit_at(starts, pos, lo, (i + 1) * unsigned(F::kStride) - 1);
    }
}

// Thread t of a block's tile writes outputs [tile*TILE + t*KPT, +KPT): 32
// bytes, as two 16-byte stores where one digit covers them and they are
// whole and aligned, else one by one. A grid of resident blocks takes tiles
// tile += gridDim.x, so that each block reads the sample of starts once.
// Each thread finds its first digit by its own search (no block-wide search
// before a barrier), then walks forward, searching again only where a run
// ends inside its outputs (two distinct u16 keys far apart must not step
// through every empty digit between: 2^28 keys with values 56004 apart took
// 6.16 ms so, 1.07 ms searched, on an H200).
template <typename K>
__global__ void __launch_bounds__(CountingTuning::kFillThreads)
    fill_kernel(K *out, size_t n, K xor_all, const unsigned long long *starts) {
    using F = FillSample<K>;
    constexpr int BLOCK = CountingTuning::kFillThreads;
    constexpr int KPT = 32 / int(sizeof(K));
    constexpr size_t kTile = size_t(BLOCK) * KPT;
    __shared__ unsigned long long s_sample[F::kSamples + 1];
    for (int i = threadIdx.x; i <= F::kSamples; i += BLOCK) s_sample[i] = starts[size_t(i) * F::kStride];
    __syncthreads();
    const size_t tiles = (n + kTile - 1) / kTile;
    for (size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const size_t pos0 = tile * kTile + size_t(threadIdx.x) * KPT;
        if (pos0 >= n) continue;
        unsigned d = fill_digit<K>(s_sample, starts, pos0, 0);
        unsigned long long next = starts[d + 1];
        if (n - pos0 >= size_t(KPT) && next >= pos0 + KPT && reinterpret_cast<uintptr_t>(out + pos0) % 16 == 0) {
            // One digit over all KPT outputs (every thread but those where a
            // run of equal keys ends): two 16-byte stores of its value.
            const unsigned v = unsigned(static_cast<K>(K(d) ^ xor_all));
            const unsigned word = sizeof(K) == 1 ? v * 0x01010101u : v | (v << 16);
            const uint4 w = make_uint4(word, word, word, word);
            reinterpret_cast<uint4 *>(out + pos0)[0] = w;
            reinterpret_cast<uint4 *>(out + pos0)[1] = w;
            continue;
        }
#pragma unroll 1
        for (size_t pos = pos0; pos < pos0 + KPT && pos < n; ++pos) {
            if (pos >= next) {
                d = fill_digit<K>(s_sample, starts, pos, d + 1);
                next = starts[d + 1];
            }
            out[pos] = static_cast<K>(K(d) ^ xor_all);
        }
    }
}

// Blocks of fill_kernel<K> for n keys on `sms` SMs: the tiles, at most the
// resident blocks of the GPU.
template <typename K> inline unsigned fill_blocks(size_t n, int sms) {
    constexpr size_t kTile = size_t(CountingTuning::kFillThreads) * (32 / sizeof(K));
    const size_t tiles = (n + kTile - 1) / kTile;
    const size_t cap = size_t(sms > 0 ? sms : 1) * CountingTuning::kFillBlocksPerSm;
    return static_cast<unsigned>(tiles < cap ? (tiles > 0 ? tiles : 1) : cap);
}

} // namespace libscan::sort
