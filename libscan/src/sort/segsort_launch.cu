// segsort_launch.cu -- enqueues a checked segmented sort (segsort_internal.h):
// the one-block kernels of the three size classes, then the device-wide
// passes over the segments larger than a block's share (segmented_sort.cuh
// says why this split). No allocation, no synchronisation.
#include "segsort_internal.h"
#include "sort_internal.h"
#include "sort_codec.cuh"
#include "libscan/cuda/segmented_sort.cuh"

namespace libscan::sort {
namespace {

size_t round_up(size_t x) { return (x + 255) / 256 * 256; }

template <int W> constexpr uint64_t tile_keys() {
    return uint64_t(SegSortTuning<W>::kTileThreads) * SegSortTuning<W>::kTileItems;
}
uint64_t tile_keys_for(size_t key_bytes, size_t value_bytes) {
    return pass_width(key_bytes, value_bytes) == 8 ? tile_keys<8>() : tile_keys<4>();
}

constexpr uint64_t kScanChunk = uint64_t(SegSortTuning<4>::kScanThreads) * SegSortTuning<4>::kScanItems;

// Temp, in this order: alternate keys, alternate values, tile counters,
// tile_start, slot, tile_seg, look-back words, digit counts, partials. Only
// segments larger than one block's share use it, so a call of at most that
// many keys needs none.
struct Layout {
    size_t alt_keys, alt_values, counters, tile_start, slot, tile_seg, words, counts, partials;
    uint64_t large, tile, max_tiles, max_slots;
    size_t total() const {
        return alt_keys + alt_values + counters + tile_start + slot + tile_seg + words + counts + partials;
    }
};

Layout layout(size_t count, size_t segments, size_t key_bytes, size_t value_bytes) {
    Layout l{};
    l.large = tile_keys_for(key_bytes, value_bytes);
    if (count <= l.large) return l;
    l.tile = pass_tile(key_bytes, value_bytes);
    // At most count / (large + 1) segments are large; one of z keys has
    // ceil(z / tile) <= z / tile + 1 tiles.
    l.max_slots = count / (l.large + 1) < segments ? count / (l.large + 1) : segments;
    l.max_tiles = count / l.tile + l.max_slots + 1;
    const size_t passes = key_bytes; // 8-bit passes over the whole key: the most a bit range takes
    l.alt_keys = round_up(count * key_bytes);
    l.alt_values = round_up(count * value_bytes);
    l.counters = round_up(kMaxPasses * sizeof(unsigned));
    l.tile_start = round_up((segments + 1) * sizeof(uint64_t));
    l.slot = l.tile_start;
    l.tile_seg = round_up(l.max_tiles * sizeof(uint64_t));
    l.words = round_up(l.max_tiles * kRadix * status_word_bytes(count));
    l.counts = round_up(l.max_slots * passes * kRadix * status_word_bytes(count));
    l.partials = round_up((segments + 1 + kScanChunk - 1) / kScanChunk * sizeof(uint64_t));
    return l;
}

unsigned grid_for(uint64_t work, uint64_t cap) {
    const uint64_t g = work < cap ? work : cap;
    return unsigned(g > 0 ? g : 1);
}

// One size class: segments of (lo, BLOCK * IPT] keys, one block each.
template <typename K, typename V, int BLOCK, int IPT, int SEGS, int MINB>
cudaError_t launch_class(const SegSortParams<K, V> &p, uint64_t lo, int sms, cudaStream_t stream) {
    constexpr int kPerSm = 2048 / BLOCK < 32 ? 2048 / BLOCK : 32; // resident blocks an SM takes
    const unsigned grid = grid_for((p.num_segments + SEGS - 1) / SEGS, uint64_t(sms) * kPerSm);
    segment_block_kernel<K, V, BLOCK, IPT, SEGS, MINB><<<grid, BLOCK, 0, stream>>>(p, lo, uint64_t(BLOCK) * IPT);
    return cudaGetLastError();
}

// The in-place exclusive sum of data[0 .. len) (at most max_len entries).
cudaError_t scan_in_place(uint64_t *data, ScanLen len, uint64_t max_len, uint64_t *partials, int sms,
                          cudaStream_t stream) {
    using T = SegSortTuning<4>;
    const unsigned grid = grid_for((max_len + kScanChunk - 1) / kScanChunk, uint64_t(sms) * T::kBlocksPerSm);
    scan_totals_kernel<T::kScanThreads, T::kScanItems><<<grid, T::kScanThreads, 0, stream>>>(data, len, partials);
    scan_partials_kernel<1024, int(kScanChunk)><<<1, 1024, 0, stream>>>(partials, len);
    scan_chunks_kernel<T::kScanThreads, T::kScanItems><<<grid, T::kScanThreads, 0, stream>>>(data, len, partials);
    return cudaGetLastError();
}

template <typename K, typename V, typename C>
cudaError_t run_large(const libscan__segsort_plan_t &pl, const Codec<K> &codec, int sms, cudaStream_t stream) {
    using Pass = PassTuning<pass_width(sizeof(K), size_t(value_size<V>())), (value_size<V>() > 0)>;
    constexpr int BLOCK = Pass::kBlockThreads, IPT = Pass::kItemsPerThread;
    const Layout lay = layout(pl.count, pl.num_segments, sizeof(K), size_t(value_size<V>()));
    if (lay.tile != uint64_t(BLOCK) * IPT) return cudaErrorInvalidValue; // the layout's tiles are the kernel's
    char *base = static_cast<char *>(pl.temp);
    K *keys_alt = reinterpret_cast<K *>(base);
    V *values_alt = reinterpret_cast<V *>(base + lay.alt_keys);
    base += lay.alt_keys + lay.alt_values;
    unsigned *counters = reinterpret_cast<unsigned *>(base);
    base += lay.counters;
    LargeLayout L;
    L.offsets = pl.offsets;
    L.num_segments = pl.num_segments;
    L.count = pl.count;
    L.large = lay.large;
    L.tile = lay.tile;
    L.max_tiles = lay.max_tiles;
    L.max_slots = lay.max_slots;
    L.tile_start = reinterpret_cast<uint64_t *>(base);
    L.slot = reinterpret_cast<uint64_t *>(base + lay.tile_start);
    L.tile_seg = reinterpret_cast<uint64_t *>(base + lay.tile_start + lay.slot);
    base += lay.tile_start + lay.slot + lay.tile_seg;
    C *words = reinterpret_cast<C *>(base);
    C *counts = reinterpret_cast<C *>(base + lay.words);
    L.partials = reinterpret_cast<uint64_t *>(base + lay.words + lay.counts);

    const uint64_t segs = pl.num_segments;
    const int passes = pl.passes;
    const size_t row = size_t(passes) * kRadix;
    const unsigned small_grid = grid_for((segs + 1 + 255) / 256, uint64_t(sms) * 8);
    cudaError_t e = cudaMemsetAsync(counters, 0, lay.counters, stream);
    if (e != cudaSuccess) return e;
    count_tiles_kernel<256><<<small_grid, 256, 0, stream>>>(L);
    e = scan_in_place(L.tile_start, ScanLen{nullptr, 0, segs + 1}, segs + 1, L.partials, sms, stream);
    if (e == cudaSuccess) e = scan_in_place(L.slot, ScanLen{nullptr, 0, segs + 1}, segs + 1, L.partials, sms, stream);
    if (e != cudaSuccess) return e;
    map_tiles_kernel<256><<<grid_for((segs + 7) / 8, uint64_t(sms) * 8), 256, 0, stream>>>(L);
    const ScanLen count_cells{L.slot + segs, row, lay.max_slots * row};
    const ScanLen word_cells{L.tile_start + segs, uint64_t(kRadix), lay.max_tiles * kRadix};
    const unsigned clear_grid = unsigned(sms) * 8;
    clear_kernel<C><<<clear_grid, 256, 0, stream>>>(counts, count_cells);
    seg_histogram_kernel<K, C, 256, 8><<<unsigned(sms) * 8, 256, 0, stream>>>(L, static_cast<const K *>(pl.keys_in),
                                                                            codec, pl.begin_bit, pl.end_bit, passes,
                                                                            counts);
    seg_digit_starts_kernel<C><<<grid_for(lay.max_slots * uint64_t(passes), uint64_t(sms) * 16), kRadix, 0, stream>>>(
        L, passes, counts);
    if ((e = cudaGetLastError()) != cudaSuccess) return e;

    const K *src = static_cast<const K *>(pl.keys_in);
    const V *vsrc = static_cast<const V *>(pl.values_in);
    for (int pass = 0; pass < passes; ++pass) {
        const bool to_out = ((passes - 1 - pass) % 2) == 0; // the last pass ends in keys_out
        K *dst = to_out ? static_cast<K *>(pl.keys_out) : keys_alt;
        V *vdst = to_out ? static_cast<V *>(pl.values_out) : values_alt;
        clear_kernel<C><<<clear_grid, 256, 0, stream>>>(words, word_cells);
        PassParams<K, V, C, SegmentTiles<C>> p;
        p.keys_in = src;
        p.keys_out = dst;
        p.values_in = vsrc;
        p.values_out = vdst;
        p.iota_values = false;
        p.tiles = SegmentTiles<C>{L, counts + size_t(pass) * kRadix, row};
        p.digit = Digit<K>::of_pass(codec, pl.begin_bit, pl.end_bit, pass);
        p.tile_counter = counters + pass;
        p.lookback = DigitLookback<C, kRadix>{words};
        // Each segment's first pass in any order where the plain sort's would be.
        e = launch_pass<K, V, C, Pass>(
            p, static_cast<unsigned>(lay.max_tiles),
            pass == 0 && libscan__sort_any_order_first_pass(sizeof(K), size_t(value_size<V>()), pl.begin_bit, pl.end_bit),
            stream);
        if (e != cudaSuccess) return e;
        src = dst;
        vsrc = vdst;
    }
    return cudaSuccess;
}

template <typename K, typename V> cudaError_t run(const libscan__segsort_plan_t &pl, cudaStream_t stream) {
    const size_t n = pl.count;
    constexpr size_t vbytes = size_t(value_size<V>());
    if (n == 0) return cudaSuccess;
    // Nothing to order: the output is the input.
    if (n <= 1 || pl.passes == 0) {
        cudaError_t e = cudaMemcpyAsync(pl.keys_out, pl.keys_in, n * sizeof(K), cudaMemcpyDeviceToDevice, stream);
        if (e == cudaSuccess && vbytes)
            e = cudaMemcpyAsync(pl.values_out, pl.values_in, n * vbytes, cudaMemcpyDeviceToDevice, stream);
        return e;
    }
    int device = 0, sms = 0;
    cudaError_t e = cudaGetDevice(&device);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    if (e != cudaSuccess) return e;

    constexpr int W = pass_width(sizeof(K), vbytes);
    using T = SegSortTuning<W>;
    constexpr int SEGS = T::kSegmentsPerRound;
    SegSortParams<K, V> p;
    p.keys_in = static_cast<const K *>(pl.keys_in);
    p.keys_out = static_cast<K *>(pl.keys_out);
    p.values_in = static_cast<const V *>(pl.values_in);
    p.values_out = static_cast<V *>(pl.values_out);
    p.offsets = pl.offsets;
    p.num_segments = pl.num_segments;
    p.count = pl.count;
    p.codec = make_codec<K>(pl.key, pl.descending != 0);
    p.begin_bit = pl.begin_bit;
    p.end_bit = pl.end_bit;

    constexpr uint64_t kTinyMax = uint64_t(T::kTinyThreads) * T::kTinyItems;
    constexpr uint64_t kSmallMax = uint64_t(T::kSmallThreads) * T::kSmallItems;
    static_assert(kTinyMax < kSmallMax && kSmallMax < tile_keys<W>(), "libscan: size classes must grow");
    e = launch_class<K, V, T::kTinyThreads, T::kTinyItems, SEGS, 1>(p, 0, sms, stream);
    if (e == cudaSuccess) e = launch_class<K, V, T::kSmallThreads, T::kSmallItems, SEGS, 1>(p, kTinyMax, sms, stream);
    if (e == cudaSuccess)
        e = launch_class<K, V, T::kTileThreads, T::kTileItems, SEGS, T::kTileMinBlocks>(p, kSmallMax, sms, stream);
    if (e != cudaSuccess) return e;
    // No segment can exceed a tile unless the whole array does.
    if (n <= tile_keys<W>()) return cudaSuccess;
    if (status_word_bytes(n) == sizeof(unsigned)) return run_large<K, V, unsigned>(pl, p.codec, sms, stream);
    return run_large<K, V, unsigned long long>(pl, p.codec, sms, stream);
}

template <typename K> cudaError_t run_key(const libscan__segsort_plan_t &pl, cudaStream_t stream) {
    switch (pl.value_bytes) {
    case 0: return run<K, NoValues>(pl, stream);
    case 4: return run<K, uint32_t>(pl, stream);
    case 8: return run<K, uint64_t>(pl, stream);
    default: return cudaErrorInvalidValue;
    }
}

} // namespace
} // namespace libscan::sort

extern "C" size_t libscan__segsort_scratch_bytes(size_t count, size_t num_segments, size_t key_bytes,
                                                 size_t value_bytes) {
    return libscan::sort::layout(count, num_segments, key_bytes, value_bytes).total();
}

extern "C" cudaError_t libscan__segsort_launch(const libscan__segsort_plan_t *plan, cudaStream_t stream) {
    using namespace libscan::sort;
    switch (libscan__sort_key_bytes(plan->key)) {
    case 1: return run_key<uint8_t>(*plan, stream);
    case 2: return run_key<uint16_t>(*plan, stream);
    case 4: return run_key<uint32_t>(*plan, stream);
    case 8: return run_key<uint64_t>(*plan, stream);
    default: return cudaErrorInvalidValue;
    }
}
