// segmented_sort.cuh -- the device side of the segmented sort (sort.h,
// "Segmented sort"): every segment [offsets[s], offsets[s+1]) of an array is
// sorted on its own, stably, keys or key/value pairs.
//
// Segments are classed by size on the device (the host never reads the
// offsets):
//   * up to one tile (SegSortTuning: 4096 keys of <= 4 bytes, 2048 of 8): a
//     block sorts the whole segment in shared memory (BlockSegSort below),
//     reading it once and writing it once. Three block sizes (one warp, four
//     warps, a whole tile) so that a segment of 200 keys does not occupy a
//     block of 256 threads x 16 items. Each block looks at a run of
//     kSegmentsPerRound consecutive segments and sorts those of its class.
//   * larger: device-wide LSD passes of 8 bits, one set over all large
//     segments at once. Each large segment is cut into whole tiles (a tile
//     never straddles two segments). Per pass:
//       1. tile_hist_kernel: each tile counts its digits into counts[], laid
//          out segment by segment, digit-major inside a segment
//          ([segment][digit][tile of the segment]);
//       2. an exclusive scan of counts[] in place (scan_*_kernel): entry
//          (s, d, t) minus the entry of (s, 0, 0) is then where tile t's keys
//          of digit d start inside segment s -- one plain scan of the whole
//          array gives every segment's offsets, no segmented scan needed;
//       3. tile_scatter_kernel: each tile sorts itself by the digit in shared
//          memory (stable) and writes each key to its segment's start + that
//          offset + its rank among the tile's keys of its digit.
//     Why this and not "sort everything globally, then stable passes keyed
//     by segment index": that moves every key of every segment (small ones
//     included) through 4 + ceil(log2(segments)/8) passes; this moves only
//     the large segments' keys, through the key's passes alone (12 bytes per
//     4-byte key and pass: the histogram read, the scatter's read and
//     write; 48 bytes a u32 key, against about 36 for libscan_sort's passes
//     plus 16 for one pass keyed by segment index for 64 segments, which
//     also needs a segment-index array). One block per large segment (CUB's
//     way) leaves most SMs idle when there are fewer large segments than
//     SMs (64 segments of 2^22).
//     The number of tiles is only known on the device, so these kernels run
//     grid-stride grids that read it (an empty set costs one short wave).
//
// Stability: a block ranks keys by 4-bit digits in (digit, position) order
// (per-thread counters in item order, then an exclusive scan of the counters
// digit-major over threads with libscan::BlockScan), so equal keys keep
// their order inside a tile, and tiles of a segment are placed in order.
// Key order is onesweep.cuh's Codec (sort.h, "Order"). Offsets and positions
// are 64-bit: a segment may hold more than 2^31 keys.
#pragma once

#include <cuda_runtime.h>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "libscan/cuda/block_scan.cuh"
#include "libscan/cuda/ops.cuh"
#include "libscan/cuda/onesweep.cuh" // Codec, NoValues and the radix constants
#include "libscan/cuda/segsort_tuning.cuh"

namespace libscan::sort {

template <typename V> constexpr int value_size() { return std::is_same<V, NoValues>::value ? 0 : int(sizeof(V)); }

// Segment s as the kernels see it: [offsets[s], offsets[s+1]) clamped to
// [0, count) and never reversed. Valid offsets are unchanged; invalid ones
// (the caller's duty when trusted) then make every read and write stay
// inside the keys, the values and the temp, whatever they hold.
struct SegBounds {
    uint64_t begin, end;
};
__device__ __forceinline__ SegBounds seg_bounds(const uint64_t *offsets, size_t s, uint64_t count) {
    uint64_t b = offsets[s], e = offsets[s + 1];
    b = b < count ? b : count;
    e = e < count ? e : count;
    return SegBounds{b, e > b ? e : b};
}

// ---- block-level stable radix sort in shared memory ----------------------

// Sorts up to BLOCK x IPT keys (and values) held in registers. Items come in
// blocked (thread t holds positions t*IPT .. t*IPT+IPT-1) and leave striped
// (item k of thread t is position k*BLOCK + t, so stores coalesce).
// Positions >= `valid` are padding: they rank as the largest digit and, being
// last, stay last.
template <typename K, typename V, int BLOCK, int IPT> struct BlockSegSort {
    static constexpr int kItems = BLOCK * IPT;
    static constexpr int kDigitBits = 4;
    static constexpr int kDigits = 1 << kDigitBits;
    static constexpr bool kPairs = value_size<V>() > 0;
    static constexpr int kWidest = int(sizeof(K)) > value_size<V>() ? int(sizeof(K)) : value_size<V>();
    using Scan = libscan::BlockScan<unsigned, BLOCK>;

    // Shared arrays are indexed through Pad(): one spare word after every 32,
    // so that a warp reading 32 runs of IPT (or kDigits) consecutive entries,
    // one run a thread, hits 32 different banks instead of 32 / IPT.
    static __device__ __forceinline__ int Pad(int i) { return i + (i >> 5); }
    static constexpr int kPadded = kItems + kItems / 32;

    struct TempStorage {
        unsigned counters[kDigits * BLOCK + kDigits * BLOCK / 32]; // [digit][thread], padded
        typename Scan::TempStorage scan;
        alignas(16) unsigned char exchange[size_t(kPadded) * kWidest];
    };

    __device__ __forceinline__ explicit BlockSegSort(TempStorage &s) : s_(s) {}

    // items[k] = src[t*IPT + k] for positions < valid, loaded coalesced
    // (striped) through the exchange buffer.
    template <typename T> __device__ __forceinline__ void LoadBlocked(const T *src, int valid, T (&items)[IPT]) {
        T *buf = reinterpret_cast<T *>(s_.exchange);
        __syncthreads(); // earlier readers of the buffer are done
#pragma unroll
        for (int k = 0; k < IPT; ++k) {
            const int p = k * BLOCK + int(threadIdx.x);
            if (p < valid) buf[Pad(p)] = src[p];
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < IPT; ++k) {
            const int p = int(threadIdx.x) * IPT + k;
            items[k] = p < valid ? buf[Pad(p)] : T();
        }
    }

    // Stable sort of the block's items by bits [begin_bit, end_bit) of the
    // mapped key (begin_bit < end_bit). Leaves the items striped.
    __device__ __forceinline__ void Sort(K (&keys)[IPT], V (&vals)[IPT], int valid, const Codec<K> &codec,
                                         unsigned begin_bit, unsigned end_bit) {
        for (unsigned shift = begin_bit; shift < end_bit; shift += kDigitBits) {
            const unsigned bits = end_bit - shift < unsigned(kDigitBits) ? end_bit - shift : unsigned(kDigitBits);
            const bool last = shift + kDigitBits >= end_bit;
            int rank[IPT];
            Rank(keys, valid, codec, shift, (1u << bits) - 1u, rank);
            Exchange(keys, rank, last);
            if constexpr (kPairs) Exchange(vals, rank, last);
        }
    }

  private:
    TempStorage &s_;

    // The digit of blocked item k; padding takes the largest.
    static __device__ __forceinline__ int DigitOf(const K &key, int k, int valid, const Codec<K> &codec,
                                                  unsigned shift, unsigned mask) {
        return int(threadIdx.x) * IPT + k < valid ? int(unsigned(static_cast<K>(codec.map(key) >> shift)) & mask)
                                                  : kDigits - 1;
    }

    // rank[k] = the position of blocked item k after a stable sort by its
    // digit (bits [shift, shift + 4) of the mapped key, masked). Digits are
    // computed twice rather than kept, which saves IPT registers a thread.
    __device__ __forceinline__ void Rank(const K (&keys)[IPT], int valid, const Codec<K> &codec, unsigned shift,
                                         unsigned mask, int (&rank)[IPT]) {
        const int t = int(threadIdx.x);
#pragma unroll
        for (int d = 0; d < kDigits; ++d) s_.counters[Pad(d * BLOCK + t)] = 0; // this thread's column only
#pragma unroll
        for (int k = 0; k < IPT; ++k) {
            const int c = Pad(DigitOf(keys[k], k, valid, codec, shift, mask) * BLOCK + t);
            rank[k] = int(s_.counters[c]); // equal digits before it in this thread
            s_.counters[c] = unsigned(rank[k]) + 1;
        }
        __syncthreads();
        // Exclusive scan of the counters digit-major over threads: thread t
        // takes the kDigits consecutive counters from t * kDigits.
        unsigned v[kDigits];
#pragma unroll
        for (int j = 0; j < kDigits; ++j) v[j] = s_.counters[Pad(t * kDigits + j)];
        Scan(s_.scan).ExclusiveScan(v, libscan::Sum<unsigned>());
#pragma unroll
        for (int j = 0; j < kDigits; ++j) s_.counters[Pad(t * kDigits + j)] = v[j];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < IPT; ++k)
            rank[k] += int(s_.counters[Pad(DigitOf(keys[k], k, valid, codec, shift, mask) * BLOCK + t)]);
    }

    template <typename T>
    __device__ __forceinline__ void Exchange(T (&items)[IPT], const int (&rank)[IPT], bool striped_out) {
        T *buf = reinterpret_cast<T *>(s_.exchange);
        __syncthreads(); // earlier readers of the buffer are done
#pragma unroll
        for (int k = 0; k < IPT; ++k) buf[Pad(rank[k])] = items[k];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < IPT; ++k)
            items[k] = buf[Pad(striped_out ? k * BLOCK + int(threadIdx.x) : int(threadIdx.x) * IPT + k)];
    }
};

// ---- parameters ------------------------------------------------------------

template <typename K, typename V> struct SegSortParams {
    const K *keys_in;
    K *keys_out;
    const V *values_in; // NoValues: unused
    V *values_out;
    const uint64_t *offsets; // num_segments + 1
    size_t num_segments;
    uint64_t count;
    Codec<K> codec;
    unsigned begin_bit, end_bit; // end_bit > begin_bit
};

// ---- one block per segment ---------------------------------------------------

// Sorts, from keys_in to keys_out, every segment whose size is in (lo, hi]
// (hi <= BLOCK * IPT). Block b looks at segments [r, r + SEGS) for r =
// b * SEGS, b * SEGS + grid * SEGS, ...
template <typename K, typename V, int BLOCK, int IPT, int SEGS, int MINB>
__global__ void __launch_bounds__(BLOCK, MINB) segment_block_kernel(const SegSortParams<K, V> p, uint64_t lo, uint64_t hi) {
    using BS = BlockSegSort<K, V, BLOCK, IPT>;
    __shared__ typename BS::TempStorage tmp;
    __shared__ unsigned s_list[SEGS];
    __shared__ int s_n;
    for (size_t first = size_t(blockIdx.x) * SEGS; first < p.num_segments; first += size_t(gridDim.x) * SEGS) {
        if (threadIdx.x == 0) s_n = 0;
        __syncthreads();
        for (int i = int(threadIdx.x); i < SEGS; i += BLOCK) {
            const size_t s = first + size_t(i);
            if (s < p.num_segments) {
                const SegBounds sb = seg_bounds(p.offsets, s, p.count);
                const uint64_t size = sb.end - sb.begin;
                if (size > lo && size <= hi) s_list[atomicAdd(&s_n, 1)] = unsigned(i);
            }
        }
        __syncthreads();
        const int listed = s_n;
        for (int j = 0; j < listed; ++j) {
            const size_t s = first + s_list[j];
            const SegBounds sb = seg_bounds(p.offsets, s, p.count);
            const uint64_t begin = sb.begin;
            const int valid = int(sb.end - begin);
            K keys[IPT];
            V vals[IPT];
            BS sorter(tmp);
            sorter.LoadBlocked(p.keys_in + begin, valid, keys);
            if constexpr (BS::kPairs) sorter.LoadBlocked(p.values_in + begin, valid, vals);
            sorter.Sort(keys, vals, valid, p.codec, p.begin_bit, p.end_bit);
#pragma unroll
            for (int k = 0; k < IPT; ++k) {
                const int q = k * BLOCK + int(threadIdx.x);
                if (q < valid) {
                    p.keys_out[begin + q] = keys[k];
                    if constexpr (BS::kPairs) p.values_out[begin + q] = vals[k];
                }
            }
        }
        __syncthreads(); // s_n and s_list are rewritten next round
    }
}

// ---- the device-wide passes over the large segments ------------------------

// Where the large segments' tiles are (all in temp).
struct LargeLayout {
    const uint64_t *offsets;
    size_t num_segments;
    uint64_t count;       // keys in the array
    uint64_t tile;        // keys per tile; segments larger than one are "large"
    uint64_t max_tiles;   // room in tile_seg and counts (more only with invalid offsets)
    uint64_t *tile_start; // num_segments + 1: exclusive scan of tiles per segment
    uint64_t *tile_seg;   // the segment of each tile
    uint64_t *counts;     // kRadix per tile: [segment][digit][tile of the segment]
    uint64_t *partials;   // the scans' chunk totals

    __device__ __forceinline__ uint64_t total_tiles() const {
        const uint64_t t = tile_start[num_segments];
        return t < max_tiles ? t : max_tiles;
    }
};

// The length of an in-place scan: fixed on the host, or `mult` x a count in
// device memory (the number of tiles).
struct ScanLen {
    const uint64_t *dev;
    uint64_t mult;
    uint64_t host; // the length, or with dev the most there is room for
    __device__ __forceinline__ uint64_t get() const {
        if (!dev) return host;
        const uint64_t n = *dev; // below 2^40 / tile, so n * mult does not wrap
        return n < host / mult ? n * mult : host;
    }
};

// tile_start[s] = tiles of segment s (0 for one-block segments), s <=
// num_segments (the last entry 0: after the scan it is the total).
template <int BLOCK> __global__ void __launch_bounds__(BLOCK) count_tiles_kernel(const LargeLayout L) {
    for (size_t s = size_t(blockIdx.x) * blockDim.x + threadIdx.x; s <= L.num_segments;
         s += size_t(gridDim.x) * blockDim.x) {
        uint64_t tiles = 0;
        if (s < L.num_segments) {
            const SegBounds sb = seg_bounds(L.offsets, s, L.count);
            const uint64_t size = sb.end - sb.begin;
            if (size > L.tile) tiles = (size + L.tile - 1) / L.tile;
        }
        L.tile_start[s] = tiles;
    }
}

// tile_seg[i] = s for every tile i of segment s; one warp per segment.
template <int BLOCK> __global__ void __launch_bounds__(BLOCK) map_tiles_kernel(const LargeLayout L) {
    const size_t warps = size_t(gridDim.x) * (blockDim.x / 32);
    const unsigned lane = threadIdx.x % 32;
    for (size_t s = size_t(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32; s < L.num_segments; s += warps)
        for (uint64_t i = L.tile_start[s] + lane; i < L.tile_start[s + 1] && i < L.max_tiles; i += 32)
            L.tile_seg[i] = s;
}

// The in-place exclusive sum of data[0 .. len) in three kernels: chunk
// totals, their scan (one block), the chunks rescanned from their prefix.
template <int BLOCK, int IPT> __global__ void __launch_bounds__(BLOCK) scan_totals_kernel(const uint64_t *data, ScanLen len, uint64_t *partials) {
    using Scan = libscan::BlockScan<uint64_t, BLOCK>;
    __shared__ typename Scan::TempStorage tmp;
    constexpr uint64_t kChunk = uint64_t(BLOCK) * IPT;
    const uint64_t n = len.get(), chunks = (n + kChunk - 1) / kChunk;
    for (uint64_t c = blockIdx.x; c < chunks; c += gridDim.x) {
        uint64_t items[IPT];
#pragma unroll
        for (int k = 0; k < IPT; ++k) {
            const uint64_t i = c * kChunk + uint64_t(threadIdx.x) * IPT + k;
            items[k] = i < n ? data[i] : 0;
        }
        const uint64_t total = Scan(tmp).Reduce(items, libscan::Sum<uint64_t>());
        if (threadIdx.x == 0) partials[c] = total;
        __syncthreads();
    }
}

template <int BLOCK, int CHUNK> __global__ void __launch_bounds__(BLOCK) scan_partials_kernel(uint64_t *partials, ScanLen len) {
    using Scan = libscan::BlockScan<uint64_t, BLOCK>;
    __shared__ typename Scan::TempStorage tmp;
    const uint64_t n = len.get(), chunks = (n + CHUNK - 1) / CHUNK;
    uint64_t carry = 0;
    for (uint64_t base = 0; base < chunks; base += BLOCK) {
        const uint64_t i = base + threadIdx.x;
        uint64_t items[1] = {i < chunks ? partials[i] : 0};
        uint64_t agg;
        Scan(tmp).ExclusiveScan(items, libscan::Sum<uint64_t>(), agg);
        if (i < chunks) partials[i] = carry + items[0];
        carry += agg;
        __syncthreads();
    }
}

template <int BLOCK, int IPT>
__global__ void __launch_bounds__(BLOCK) scan_chunks_kernel(uint64_t *data, ScanLen len, const uint64_t *partials) {
    using Scan = libscan::BlockScan<uint64_t, BLOCK>;
    __shared__ typename Scan::TempStorage tmp;
    constexpr uint64_t kChunk = uint64_t(BLOCK) * IPT;
    const uint64_t n = len.get(), chunks = (n + kChunk - 1) / kChunk;
    for (uint64_t c = blockIdx.x; c < chunks; c += gridDim.x) {
        uint64_t items[IPT];
#pragma unroll
        for (int k = 0; k < IPT; ++k) {
            const uint64_t i = c * kChunk + uint64_t(threadIdx.x) * IPT + k;
            items[k] = i < n ? data[i] : 0;
        }
        Scan(tmp).ExclusiveScan(items, libscan::Sum<uint64_t>());
        const uint64_t prefix = partials[c];
#pragma unroll
        for (int k = 0; k < IPT; ++k) {
            const uint64_t i = c * kChunk + uint64_t(threadIdx.x) * IPT + k;
            if (i < n) data[i] = prefix + items[k];
        }
        __syncthreads();
    }
}

// Where tile `tile` of the large segments lies.
struct TileSpan {
    uint64_t seg, first_tile, tiles, index; // index: of the tile inside its segment
    uint64_t seg_begin, begin;               // its segment's first key, its own
    int valid;                               // its keys
};

__device__ __forceinline__ TileSpan tile_span(const LargeLayout &L, uint64_t tile) {
    TileSpan t;
    t.seg = L.tile_seg[tile];
    t.first_tile = L.tile_start[t.seg];
    t.tiles = L.tile_start[t.seg + 1] - t.first_tile;
    if (t.tiles > L.max_tiles - t.first_tile) t.tiles = L.max_tiles - t.first_tile; // invalid offsets only
    t.index = tile - t.first_tile;
    const SegBounds sb = seg_bounds(L.offsets, t.seg, L.count);
    t.seg_begin = sb.begin;
    t.begin = sb.begin + t.index * L.tile;
    const uint64_t left = sb.end - t.begin;
    t.valid = int(left < L.tile ? left : L.tile);
    return t;
}

// counts[] entry of (segment of t, digit d, tile of t).
__device__ __forceinline__ uint64_t count_index(const TileSpan &t, unsigned d) {
    return t.first_tile * kRadix + uint64_t(d) * t.tiles + t.index;
}

template <typename K> struct PassKeys {
    const K *src;
    Codec<K> codec;
    unsigned shift, bits; // this pass's digit: bits [shift, shift + bits), bits <= 8
};

// 1. every tile's digit counts.
template <typename K, int BLOCK>
__global__ void __launch_bounds__(BLOCK) tile_hist_kernel(const LargeLayout L, const PassKeys<K> pk) {
    __shared__ unsigned s_hist[kRadix];
    const unsigned mask = (1u << pk.bits) - 1u;
    const uint64_t total = L.total_tiles();
    for (uint64_t b = blockIdx.x; b < total; b += gridDim.x) {
        for (int d = int(threadIdx.x); d < kRadix; d += BLOCK) s_hist[d] = 0;
        __syncthreads();
        const TileSpan t = tile_span(L, b);
        for (int i = int(threadIdx.x); i < t.valid; i += BLOCK) {
            const unsigned d = unsigned(static_cast<K>(pk.codec.map(pk.src[t.begin + i]) >> pk.shift)) & mask;
            atomicAdd(&s_hist[d], 1u);
        }
        __syncthreads();
        for (int d = int(threadIdx.x); d < kRadix; d += BLOCK) L.counts[count_index(t, unsigned(d))] = s_hist[d];
        __syncthreads();
    }
}

// 3. every tile sorted by the digit and scattered into its segment: key q
// of the sorted tile, of digit d, goes to s_to[d] + q, where s_to[d] = the
// segment's first key + the keys of digit d that earlier tiles and smaller
// digits put before it - the tile's first position of digit d.
template <typename K, typename V, int BLOCK, int IPT, int MINB>
__global__ void __launch_bounds__(BLOCK, MINB) tile_scatter_kernel(const LargeLayout L, const PassKeys<K> pk, const V *vsrc,
                                                             K *dst, V *vdst) {
    using BS = BlockSegSort<K, V, BLOCK, IPT>;
    __shared__ typename BS::TempStorage tmp;
    __shared__ unsigned char s_digit[BLOCK * IPT];
    __shared__ int s_first[kRadix];
    __shared__ uint64_t s_to[kRadix];
    const unsigned mask = (1u << pk.bits) - 1u;
    const uint64_t total = L.total_tiles();
    auto digit_of = [&](const K &key) { return unsigned(static_cast<K>(pk.codec.map(key) >> pk.shift)) & mask; };
    for (uint64_t b = blockIdx.x; b < total; b += gridDim.x) {
        const TileSpan t = tile_span(L, b);
        K keys[IPT];
        V vals[IPT];
        BS sorter(tmp);
        sorter.LoadBlocked(pk.src + t.begin, t.valid, keys);
        if constexpr (BS::kPairs) sorter.LoadBlocked(vsrc + t.begin, t.valid, vals);
        sorter.Sort(keys, vals, t.valid, pk.codec, pk.shift, pk.shift + pk.bits);
#pragma unroll
        for (int k = 0; k < IPT; ++k) {
            const int q = k * BLOCK + int(threadIdx.x);
            if (q < t.valid) s_digit[q] = static_cast<unsigned char>(digit_of(keys[k]));
        }
        __syncthreads();
        // The first position of each digit present in the sorted tile.
        for (int q = int(threadIdx.x); q < t.valid; q += BLOCK)
            if (q == 0 || s_digit[q - 1] != s_digit[q]) s_first[s_digit[q]] = q;
        __syncthreads();
        // The scanned counts hold, at the segment's first entry, the keys of
        // the large segments before it: subtracted, the rest is in-segment.
        const uint64_t seg_from = t.seg_begin - L.counts[t.first_tile * kRadix];
        for (int d = int(threadIdx.x); d < kRadix; d += BLOCK)
            s_to[d] = seg_from + L.counts[count_index(t, unsigned(d))] - uint64_t(s_first[d]); // unused when absent
        __syncthreads();
#pragma unroll
        for (int k = 0; k < IPT; ++k) {
            const int q = k * BLOCK + int(threadIdx.x);
            if (q < t.valid) {
                const uint64_t at = s_to[s_digit[q]] + uint64_t(q);
                dst[at] = keys[k];
                if constexpr (BS::kPairs) vdst[at] = vals[k];
            }
        }
        __syncthreads(); // s_digit, s_first and s_to are rewritten by the next tile
    }
}

} // namespace libscan::sort
