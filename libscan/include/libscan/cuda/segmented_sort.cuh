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
//   * larger: the plain sort's device-wide LSD passes of 8 bits
//     (onesweep.cuh), one set over all large segments at once, with the
//     segments as independent runs. Each large segment is cut into
//     PassTuning's tiles (a tile never straddles two segments):
//       1. seg_histogram_kernel: one read of the large segments' keys counts
//          each segment's digits of every pass, counts[slot][pass][digit]
//          (slot: the segment's rank among the large ones);
//       2. seg_digit_starts_kernel: each row's exclusive scan, in place: where
//          each digit starts inside the segment;
//       3. per pass, pass_kernel with SegmentTiles: ranks a tile as in the
//          plain sort, looks back over the earlier tiles of its own segment
//          only (a segment's first tile starts its chain, digit_lookback.cuh),
//          and scatters inside the segment.
//     That moves a large segment's keys as the plain sort moves them (36
//     bytes a u32 key: one histogram read, then a read and a write a pass)
//     at its speed. Why not "sort everything globally, then stable passes
//     keyed by segment index": that moves every key of every segment (small
//     ones included) through 4 + ceil(log2(segments)/8) passes and needs a
//     segment-index array. One block per large segment (CUB's way) leaves
//     most SMs idle when there are fewer large segments than SMs (64
//     segments of 2^22).
//     The numbers of tiles and large segments are only known on the device:
//     the pass kernels get a grid for the most tiles there can be, and the
//     blocks past the last tile return at once; the other kernels run
//     grid-stride grids that read the counts.
//
// Stability: a block ranks keys by 4-bit digits in (digit, position) order
// (per-thread counters in item order, then an exclusive scan of the counters
// digit-major over threads with libscan::BlockScan), so equal keys keep
// their order inside a segment; the passes are the plain sort's, stable.
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
    uint64_t large;       // segments of more keys than this are "large" (one block's share)
    uint64_t tile;        // keys per tile of the passes (PassTuning's tile)
    uint64_t max_tiles;   // room in tile_seg and the look-back words (more only with invalid offsets)
    uint64_t max_slots;   // room in the digit counts: large segments (likewise)
    uint64_t *tile_start; // num_segments + 1: exclusive scan of tiles per segment
    uint64_t *slot;       // num_segments + 1: exclusive scan of "is large" = the segment's row of counts
    uint64_t *tile_seg;   // the segment of each tile
    uint64_t *partials;   // the scans' chunk totals

    __device__ __forceinline__ uint64_t total_tiles() const {
        const uint64_t t = tile_start[num_segments];
        return t < max_tiles ? t : max_tiles;
    }
    __device__ __forceinline__ uint64_t total_slots() const {
        const uint64_t t = slot[num_segments];
        return t < max_slots ? t : max_slots;
    }
};

// The length of an in-place scan (or a clear): fixed on the host, or `mult`
// x a count in device memory (the number of tiles or of large segments).
struct ScanLen {
    const uint64_t *dev;
    uint64_t mult;
    uint64_t host; // the length, or with dev the most there is room for
    __device__ __forceinline__ uint64_t get() const {
        if (!dev) return host;
        const uint64_t n = *dev; // below 2^40, so n * mult does not wrap
        return n < host / mult ? n * mult : host;
    }
};

// tile_start[s] = tiles of segment s and slot[s] = 1 when it is large (0 for
// one-block segments), s <= num_segments (the last entries 0: after the
// scans they are the totals).
template <int BLOCK> __global__ void __launch_bounds__(BLOCK) count_tiles_kernel(const LargeLayout L) {
    for (size_t s = size_t(blockIdx.x) * blockDim.x + threadIdx.x; s <= L.num_segments;
         s += size_t(gridDim.x) * blockDim.x) {
        uint64_t tiles = 0;
        if (s < L.num_segments) {
            const SegBounds sb = seg_bounds(L.offsets, s, L.count);
            const uint64_t size = sb.end - sb.begin;
            if (size > L.large) tiles = (size + L.tile - 1) / L.tile;
        }
        L.tile_start[s] = tiles;
        L.slot[s] = tiles ? 1 : 0;
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

// data[0 .. len) = 0 (grid-stride).
template <typename T> __global__ void clear_kernel(T *data, ScanLen len) {
    const uint64_t n = len.get();
    for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += uint64_t(gridDim.x) * blockDim.x)
        data[i] = T(0);
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

// Tile `tile` of the large segments, for onesweep.cuh's pass kernel: the
// tiles of a segment are one run (their own look-back chain), and a tile
// past the tiles there are, or of a segment past the counts' room (invalid
// offsets only), has no keys (valid 0), in every kernel alike.
__device__ __forceinline__ TileAt large_tile_at(const LargeLayout &L, uint64_t tile) {
    // Every field is computed from in-bounds reads (a tile past the end reads
    // tile 0's entry, a segment index clamped below num_segments) and only
    // `valid` says whether the tile exists: with an early return here,
    // ptxas (CUDA 13.0, sm_90) failed register allocation on pass_kernel.
    const bool exists = tile < L.total_tiles();
    const uint64_t t = exists ? tile : 0;
    uint64_t seg = L.tile_seg[t];
    seg = seg < L.num_segments ? seg : L.num_segments - 1;
    TileAt a;
    a.slot = L.slot[seg];
    const uint64_t index = t - L.tile_start[seg];
    const SegBounds sb = seg_bounds(L.offsets, seg, L.count);
    a.run_base = sb.begin;
    a.base = sb.begin + index * L.tile;
    const uint64_t left = sb.end > a.base ? sb.end - a.base : 0;
    a.valid = exists && a.slot < L.max_slots ? int(left < L.tile ? left : L.tile) : 0;
    a.first = index == 0;
    return a;
}

// The large segments as pass_kernel's Tiles: C counts, row `slot` of
// `counts` holds every pass's kRadix digit starts inside the segment
// ([slot][pass][digit], after seg_digit_starts_kernel).
template <typename C> struct SegmentTiles {
    static constexpr bool kIdentityPasses = false;
    LargeLayout L;
    const C *counts; // this pass's column: counts + pass * kRadix
    size_t row;      // passes * kRadix
    template <int TILE> __device__ __forceinline__ TileAt at(unsigned tile) const { return large_tile_at(L, tile); }
    template <typename K> __device__ __forceinline__ Digit<K> digit(const Digit<K> &d) const { return d; }
    __device__ __forceinline__ unsigned long long start(const TileAt &a, int digit) const {
        return a.run_base + static_cast<unsigned long long>(counts[a.slot * row + size_t(digit)]);
    }
};

// Every large segment's digit counts of every pass in one read of its keys
// (onesweep.cuh's histogram, per segment): block b takes a contiguous run of
// tiles and counts in shared memory while they belong to one segment,
// adding to counts[slot][pass][digit] when the segment changes (or 2^31
// keys have been counted), so that a segment's tiles cost a few global
// atomics, not a few per tile.
template <typename K, typename C, int BLOCK, int IPT>
__global__ void __launch_bounds__(BLOCK) seg_histogram_kernel(const LargeLayout L, const K *keys, Codec<K> codec,
                                                              unsigned first_shift, unsigned end_bit, int passes,
                                                              C *counts) {
    __shared__ unsigned s_hist[kMaxPasses * kRadix];
    const int cells = passes * kRadix;
    const uint64_t total = L.total_tiles();
    const uint64_t per_block = (total + gridDim.x - 1) / gridDim.x;
    const uint64_t first = uint64_t(blockIdx.x) * per_block;
    const uint64_t last = first + per_block < total ? first + per_block : total;
    for (int i = int(threadIdx.x); i < cells; i += BLOCK) s_hist[i] = 0;
    __syncthreads(); // zero before any thread counts
    uint64_t held = ~uint64_t(0), pending = 0; // the slot s_hist counts for, and its keys so far
    auto flush = [&]() {
        __syncthreads(); // every count of `held` is in
        for (int i = int(threadIdx.x); i < cells; i += BLOCK) {
            const unsigned c = s_hist[i];
            if (c) atomicAdd(counts + held * size_t(cells) + size_t(i), C(c));
            s_hist[i] = 0;
        }
        __syncthreads();
    };
    for (uint64_t tile = first; tile < last; ++tile) {
        const TileAt a = large_tile_at(L, tile);
        if (a.valid == 0) continue;
        if (a.slot != held || pending > (1ull << 31)) {
            if (held != ~uint64_t(0)) flush();
            held = a.slot;
            pending = 0;
        }
        pending += uint64_t(a.valid);
        for (int r = 0; r < a.valid; r += BLOCK * IPT) {
            K k[IPT];
#pragma unroll
            for (int j = 0; j < IPT; ++j) {
                const int i = r + j * BLOCK + int(threadIdx.x);
                k[j] = i < a.valid ? keys[a.base + size_t(i)] : K(0);
            }
#pragma unroll
            for (int j = 0; j < IPT; ++j) {
                if (r + j * BLOCK + int(threadIdx.x) >= a.valid) continue;
                const K m = codec.map(k[j]);
                // Each pass's digit taken again per key: the shifts and
                // masks kept in registers over an unrolled loop (f81c840)
                // took 2-5 more registers and 64 segments of 2^22 u32 keys
                // from 6.05 to 6.14 ms (H200,
                // bench/results/2026-11-29-h200-f81c840).
                for (int pass = 0; pass < passes; ++pass) {
                    const unsigned d = Digit<K>::of_pass(codec, first_shift, end_bit, pass).of_mapped(m);
                    atomicAdd(&s_hist[pass * kRadix + int(d)], 1u);
                }
            }
        }
    }
    if (held != ~uint64_t(0)) flush();
}

// counts[slot][pass][*] -> their exclusive scan over digits, in place: where
// each digit's keys start inside the segment. One block of kRadix threads
// per row, grid-stride over the rows of the large segments there are.
template <typename C>
__global__ void __launch_bounds__(kRadix) seg_digit_starts_kernel(const LargeLayout L, int passes, C *counts) {
    using Scan = libscan::BlockScan<C, kRadix>;
    __shared__ typename Scan::TempStorage tmp;
    const uint64_t rows = L.total_slots() * uint64_t(passes);
    for (uint64_t r = blockIdx.x; r < rows; r += gridDim.x) {
        C *row = counts + r * kRadix;
        C v[1] = {row[threadIdx.x]};
        Scan(tmp).ExclusiveScan(v, libscan::Sum<C>());
        row[threadIdx.x] = v[0];
        __syncthreads(); // tmp is reused by the next row
    }
}

} // namespace libscan::sort
