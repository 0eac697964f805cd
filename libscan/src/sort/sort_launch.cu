// sort_launch.cu -- enqueues a checked sort (sort_internal.h): the
// upfront histogram, its scan, then one pass kernel per 8 bits, ping-ponging
// between the plan's buffers; or, for 8- and 16-bit keys without values over
// the whole key, the counting sort (counting_sort.cuh); for 4- and 8-byte
// keys without values and 4-byte keys with 4-byte values over the whole
// key, the MSD path (msd_sort.cuh) ahead of the passes, one of the two
// sorting as the device decides. No allocation, no synchronisation.
#include "sort_internal.h"
#include "sort_codec.cuh"
#include "libscan/cuda/counting_sort.cuh"
#include "libscan/cuda/msd_sort.cuh"
#include "libscan/cuda/onesweep.cuh"

#include <atomic>
#include <climits>

namespace libscan::sort {
namespace {

constexpr size_t kCounterBytes = 256; // one tile counter per pass
constexpr size_t kHistBytes = size_t(kMaxPasses) * kRadix * sizeof(unsigned long long);

size_t round_up(size_t x) { return (x + 255) / 256 * 256; }

// libscan__sort_force_path(): the bench's and tests' choice of path for
// every later sort (sort_internal.h), so that one run can time the onesweep
// passes against the counting sort, and tests reach the counting sort at
// sizes where the automatic choice keeps the passes.
std::atomic<int> g_path{LIBSCAN__SORT_PATH_AUTO};

// Whether a sort of count keys may take the MSD path, by its sizes alone:
// 4- and 8-byte keys without values, 4-byte keys with 4-byte values (the
// stable path), from the form's kMinKeys on, or from
// MsdTuningCommon::kScratchMinKeys when the path is forced (tests). Such a
// sort's scratch holds the path's state (~1 MB), so that smaller sorts'
// temp stays small.
bool msd_scratch(size_t count, size_t key_bytes, size_t value_bytes) {
    const bool keys = (key_bytes == 4 || key_bytes == 8) && value_bytes == 0;
    const bool pairs = key_bytes == 4 && value_bytes == 4;
    if (!keys && !pairs) return false;
    const size_t from = g_path.load(std::memory_order_relaxed) == LIBSCAN__SORT_PATH_MSD ? MsdTuningCommon::kScratchMinKeys
                        : pairs                                                       ? MsdPairsTuning::kMinKeys
                        : key_bytes == 4                                              ? MsdTuning<4>::kMinKeys
                                                                                      : MsdTuning<8>::kMinKeys;
    return count >= from;
}

// The passes' scratch: tile counters, histograms, look-back words. The MSD
// path's state lies after it; the stable MSD path's pass B looks back over
// the same words, with up to one more tile per top-byte row.
size_t onesweep_bytes(size_t count, size_t key_bytes, size_t value_bytes) {
    const size_t tile = pass_tile(key_bytes, value_bytes);
    const size_t extra = value_bytes && msd_scratch(count, key_bytes, value_bytes) ? size_t(kMsdRows) : 0;
    const size_t tiles = (count + tile - 1) / tile + extra;
    return kCounterBytes + kHistBytes + round_up(tiles * kRadix * status_word_bytes(count));
}

// The counting sort's counts/starts: one per key value and the total.
size_t counting_bytes(size_t key_bytes) {
    return key_bytes <= 2 ? ((size_t(1) << (8 * key_bytes)) + 1) * sizeof(unsigned long long) : 0;
}

// Zeroes a pass's look-back words (`bytes` from `words`) on `stream`; skip:
// null, or the MSD path's flag, when set the pass is skipped and nothing is
// zeroed (zero_unless_skipped_kernel).
cudaError_t clear_lookback(void *words, size_t bytes, const unsigned *skip, int sms, cudaStream_t stream) {
    if (skip == nullptr || bytes % 16 != 0 || reinterpret_cast<uintptr_t>(words) % 16 != 0)
        return cudaMemsetAsync(words, 0, bytes, stream);
    constexpr int kBlock = 256;
    const size_t vectors = bytes / 16, cap = size_t(sms > 0 ? sms : 1) * 8;
    const size_t blocks = (vectors + kBlock - 1) / kBlock;
    zero_unless_skipped_kernel<kBlock><<<unsigned(blocks < cap ? blocks : cap), kBlock, 0, stream>>>(
        static_cast<uint4 *>(words), vectors, skip);
    return cudaGetLastError();
}

// Enqueues the passes from `first` on (the stable MSD path's launches,
// run_msd_pairs, stand for those before it). Every pass but the plan's
// first zeroes the look-back words before it starts. skip: null, or the
// MSD path's flag: when set on the device, every pass from `first` on is
// skipped (digit_base_kernel's kSkipTile) and zeroes nothing
// (clear_lookback).
template <typename K, typename V, typename W>
cudaError_t run_passes(const libscan__sort_plan_t &pl, const Codec<K> &codec, char *scratch, int first, int sms,
                       const unsigned *skip, cudaStream_t stream) {
    constexpr size_t kValueBytes = std::is_same<V, NoValues>::value ? 0 : sizeof(V);
    using Tuning = PassTuning<pass_width(sizeof(K), kValueBytes), (kValueBytes > 0)>;
    constexpr int BLOCK = Tuning::kBlockThreads;
    constexpr int IPT = Tuning::kItemsPerThread;
    constexpr int kTile = BLOCK * IPT;

    const size_t tiles = (pl.count + kTile - 1) / kTile;
    if (tiles >= kSkipTile) return cudaErrorInvalidValue; // the counter's top bits are the pass's marks
    unsigned *counters = reinterpret_cast<unsigned *>(scratch);
    unsigned long long *hist = reinterpret_cast<unsigned long long *>(scratch + kCounterBytes);
    W *status = reinterpret_cast<W *>(scratch + kCounterBytes + kHistBytes);
    const size_t status_bytes = DigitLookback<W, kRadix>::bytes(tiles);

    // Pass p writes out when passes - 1 - p is even, else alt.
    auto writes_out = [&](int pass) { return ((pl.passes - 1 - pass) % 2) == 0; };
    const K *src = static_cast<const K *>(first == 0 ? pl.keys_in : writes_out(first - 1) ? pl.keys_out : pl.keys_alt);
    const V *vsrc = static_cast<const V *>(first == 0      ? pl.values_in
                                           : writes_out(first - 1) ? pl.values_out
                                                                   : pl.values_alt);
    for (int pass = first; pass < pl.passes; ++pass) {
        const bool to_out = writes_out(pass);
        K *dst = static_cast<K *>(to_out ? pl.keys_out : pl.keys_alt);
        V *vdst = static_cast<V *>(to_out ? pl.values_out : pl.values_alt);
        if (pass > 0) {
            const cudaError_t e = clear_lookback(status, status_bytes, skip, sms, stream);
            if (e != cudaSuccess) return e;
        }
        PassParams<K, V, W> p;
        p.keys_in = src;
        p.keys_out = dst;
        p.values_in = vsrc;
        p.values_out = vdst;
        p.iota_values = pl.iota_values && pass == 0;
        p.tiles = FlatTiles{pl.count, hist + size_t(pass) * kRadix};
        p.digit = Digit<K>::of_pass(codec, pl.begin_bit, pl.end_bit, pass);
        p.tile_counter = counters + pass;
        p.lookback = DigitLookback<W, kRadix>{status};
        const cudaError_t e = launch_pass<K, V, W, Tuning>(
            p, static_cast<unsigned>(tiles),
            pass == 0 && libscan__sort_any_order_first_pass(sizeof(K), kValueBytes, pl.begin_bit, pl.end_bit), stream);
        if (e != cudaSuccess) return e;
        src = dst;
        vsrc = vdst;
    }
    return cudaSuccess;
}

// Whether the plan takes the counting sort: unsigned 8/16-bit keys, no
// values, the whole key as the digit (a partial range keeps keys that tie on
// the range but differ outside it in input order: that needs the passes).
// Automatically also from a size on (CountingTuning::min_keys(): below it the
// counting sort's fixed cost loses to the passes).
bool takes_counting_sort(const libscan__sort_plan_t &pl) {
    const size_t ks = libscan__sort_key_bytes(pl.key);
    const int path = g_path.load(std::memory_order_relaxed);
    const bool eligible = ks <= 2 && pl.value_bytes == 0 && pl.begin_bit == 0 && pl.end_bit == 8 * ks;
    if (!eligible || path == LIBSCAN__SORT_PATH_ONESWEEP || path == LIBSCAN__SORT_PATH_STABLE) return false;
    return path == LIBSCAN__SORT_PATH_COUNTING || pl.count >= CountingTuning::min_keys(ks);
}

// Whether the plan launches the MSD path (msd_sort.cuh) ahead of the
// passes: a sort over the whole key of 4- or 8-byte keys without values
// (the rule of libscan__sort_any_order_first_pass) or of 4-byte keys with
// 4-byte values (the stable path), fewer than 2^32 of them (its offsets
// are 32-bit) and with the path's state in the scratch (msd_scratch);
// automatically in its tuning's sizes, or wherever it applies when forced
// (tests). The device then decides which of the two sorts.
bool takes_msd(const libscan__sort_plan_t &pl) {
    const size_t ks = libscan__sort_key_bytes(pl.key);
    const int path = g_path.load(std::memory_order_relaxed);
    const bool eligible = pl.begin_bit == 0 && pl.end_bit == 8 * ks && msd_scratch(pl.count, ks, pl.value_bytes) &&
                          pl.count <= (size_t(1) << 32) - (size_t(1) << 16);
    if (!eligible || path == LIBSCAN__SORT_PATH_ONESWEEP || path == LIBSCAN__SORT_PATH_STABLE) return false;
    return path == LIBSCAN__SORT_PATH_MSD || pl.count <= MsdTuningCommon::kMaxKeys; // (from kMinKeys: msd_scratch)
}

// The MSD path's first steps, the same for both of its forms: the counts of
// the top 16 bits, where each bucket and row starts, pass B's tiles (TILE
// keys each) and the decision (a bucket over CAPACITY keys: not taken).
// The MSD count's 128 KB of dynamic shared memory; the stable path's local
// sorts' 52 KB each (msd_local_pairs_shared, msd_crowded_pairs_shared).
// Each allowed once per kernel and device (allow_dynamic_shared).
constexpr size_t kMsdHistShared = size_t(kMsdBuckets) / 2 * sizeof(unsigned);
template <typename K, typename V>
constexpr size_t kMsdLocalPairsShared = msd_local_pairs_shared<MsdPairsTuning>(sizeof(K), sizeof(V));
template <typename K, typename V>
constexpr size_t kMsdCrowdedPairsShared = msd_crowded_pairs_shared<MsdPairsTuning>(sizeof(K), sizeof(V));

template <typename K, int CAPACITY, int TILE>
cudaError_t msd_count(const libscan__sort_plan_t &pl, const Codec<K> &codec, const MsdState &st, int device, int sms,
                      cudaStream_t stream) {
    cudaError_t e = libscan::detail::allow_dynamic_shared<msd_hist_kernel<K>>(kMsdHistShared, device);
    if (e == cudaSuccess) e = cudaMemsetAsync(st.hist, 0, MsdLayout::kBytes, stream);
    if (e != cudaSuccess) return e;
    msd_hist_kernel<K><<<unsigned(sms), MsdTuningCommon::kHistThreads, kMsdHistShared, stream>>>(
        static_cast<const K *>(pl.keys_in), pl.count, codec, st.hist, st.lsd_hist);
    msd_row_scan_kernel<CAPACITY><<<kMsdRows, 256, 0, stream>>>(st);
    msd_rows_kernel<TILE><<<1, 256, 0, stream>>>(st);
    msd_offsets_kernel<<<kMsdRows, 256, 0, stream>>>(st, static_cast<unsigned>(pl.count));
    return cudaGetLastError();
}

// The MSD path's counts for a plan (msd_count with the form's capacity and
// pass B tile).
template <typename K, typename V>
cudaError_t msd_count_for(const libscan__sort_plan_t &pl, const Codec<K> &codec, const MsdState &st, int device,
                          int sms, cudaStream_t stream) {
    if constexpr (std::is_same<V, NoValues>::value) {
        using Tuning = MsdTuning<int(sizeof(K))>;
        return msd_count<K, Tuning::kLocalThreads * Tuning::kLocalItems, Tuning::kPartThreads * Tuning::kPartItems>(
            pl, codec, st, device, sms, stream);
    } else {
        using Tuning = MsdPairsTuning;
        using Shape = PassTuning<4, true>;
        return msd_count<K, Tuning::kLocalThreads * Tuning::kLocalItems - Tuning::kLocalSlack,
                         Shape::kBlockThreads * Shape::kItemsPerThread>(pl, codec, st, device, sms, stream);
    }
}

// Enqueues the MSD path's moves, after msd_count: keys_in -> keys_alt ->
// keys_out, then keys_out in place. Its kernels return at once where the
// device found a bucket too large (MsdState::taken stays 0), and the
// passes enqueued after them sort.
template <typename K>
cudaError_t run_msd(const libscan__sort_plan_t &pl, const Codec<K> &codec, const MsdState &st, cudaStream_t stream) {
    using Tuning = MsdTuning<int(sizeof(K))>;
    constexpr int kPartTile = Tuning::kPartThreads * Tuning::kPartItems;
    const unsigned n = static_cast<unsigned>(pl.count);
    const K *in = static_cast<const K *>(pl.keys_in);
    K *alt = static_cast<K *>(pl.keys_alt), *out = static_cast<K *>(pl.keys_out);
    const unsigned tiles = static_cast<unsigned>((pl.count + kPartTile - 1) / kPartTile);
    msd_partition_kernel<K, false><<<tiles, Tuning::kPartThreads, 0, stream>>>(in, alt, n, codec, st);
    // Pass B's tiles never straddle two rows: at most one more per row.
    msd_partition_kernel<K, true><<<tiles + kMsdRows, Tuning::kPartThreads, 0, stream>>>(alt, out, n, codec, st);
    msd_local_kernel<K><<<kMsdBuckets, Tuning::kLocalThreads, 0, stream>>>(out, codec, st);
    return cudaGetLastError();
}

// Enqueues the stable MSD path's moves (4-byte keys with 4-byte values),
// after msd_count and digit_base_kernel: keys and values in -> alt (pass
// A, by the top byte) -> out (pass B, by the second byte inside each row),
// then out in place, by bins, and the buckets whose bins are crowded by
// bytes (on the blocks the GPU holds at once: sms); the value of key i is
// i in an argsort. Passes A and B are launched as the onesweep passes'
// first two (msd_sort.cuh), on their tile counters and look-back words
// (`status`, zeroed before the call and again here before pass B, for one
// more tile per row); when the path is not taken they are those passes,
// and the passes from the third on follow.
template <typename K, typename V, typename W>
cudaError_t run_msd_pairs(const libscan__sort_plan_t &pl, const Codec<K> &codec, const MsdState &st,
                          const unsigned long long *hist, unsigned *counters, W *status, int sms, cudaStream_t stream) {
    using Shape = PassTuning<4, true>;
    constexpr int kTile = Shape::kBlockThreads * Shape::kItemsPerThread;
    const size_t tiles = (pl.count + kTile - 1) / kTile;
    K *alt = static_cast<K *>(pl.keys_alt), *out = static_cast<K *>(pl.keys_out);
    V *valt = static_cast<V *>(pl.values_alt), *vout = static_cast<V *>(pl.values_out);
    cudaError_t e;
    msd_pass_digits_kernel<K, kTile><<<1, 256, 0, stream>>>(st, hist, static_cast<unsigned>(pl.count));
    if ((e = cudaGetLastError()) != cudaSuccess) return e;

    PassParams<K, V, W, MsdFlatTiles> a;
    a.keys_in = static_cast<const K *>(pl.keys_in);
    a.keys_out = alt;
    a.values_in = static_cast<const V *>(pl.values_in);
    a.values_out = valt;
    a.iota_values = pl.iota_values != 0;
    a.tiles = MsdFlatTiles{{pl.count, st.row_start}, st.pass_shift};
    a.digit = Digit<K>{codec, 0u, 0xffu}; // the shift comes from the device
    a.tile_counter = counters;
    a.lookback = DigitLookback<W, kRadix>{status};
    if ((e = launch_pass<K, V, W, Shape>(a, static_cast<unsigned>(tiles), false, stream)) != cudaSuccess) return e;

    // Pass B's tiles never straddle two rows: at most one more per row.
    if ((e = cudaMemsetAsync(status, 0, DigitLookback<W, kRadix>::bytes(tiles + kMsdRows), stream)) != cudaSuccess)
        return e;
    PassParams<K, V, W, MsdBucketTiles> b;
    b.keys_in = alt;
    b.keys_out = out;
    b.values_in = valt;
    b.values_out = vout;
    b.iota_values = false;
    b.tiles = MsdBucketTiles{st.offsets, st.tile_first, st.pass_shift + 1};
    b.digit = Digit<K>{codec, 0u, 0xffu};
    b.tile_counter = counters + 1;
    b.lookback = DigitLookback<W, kRadix>{status};
    if ((e = launch_pass<K, V, W, Shape>(b, static_cast<unsigned>(tiles + kMsdRows), false, stream)) != cudaSuccess)
        return e;

    if ((e = libscan::detail::launch_dynamic<msd_local_pairs_kernel<K, V>>(kMsdBuckets, MsdPairsTuning::kLocalThreads,
                                                                           kMsdLocalPairsShared<K, V>, stream, out, vout,
                                                                           codec, st)) != cudaSuccess)
        return e;
    return libscan::detail::launch_dynamic<msd_crowded_pairs_kernel<K, V>>(
        unsigned(sms) * MsdPairsTuning::kCrowdedMinBlocks, MsdPairsTuning::kCrowdedThreads, kMsdCrowdedPairsShared<K, V>,
        stream, out, vout, codec, st);
}

template <typename K> cudaError_t run_counting(const libscan__sort_plan_t &pl, int device, int sms, cudaStream_t stream) {
    using Shape = CountingShape<K>;
    unsigned long long *counts = static_cast<unsigned long long *>(pl.scratch);
    // 16-bit keys count into 128 KB of dynamic shared memory.
    cudaError_t e = libscan::detail::allow_dynamic_shared<count_kernel<K>>(CountingShape<K>::kSharedBytes, device);
    if (e == cudaSuccess) e = cudaMemsetAsync(counts, 0, size_t(Shape::kBins) * sizeof(unsigned long long), stream);
    if (e != cudaSuccess) return e;
    const Codec<K> codec = make_codec<K>(pl.key, pl.descending != 0);
    const dim3 grid(count_blocks<K>(pl.count, sms), unsigned(Shape::kSlices));
    count_kernel<K><<<grid, CountingTuning::kCountThreads, Shape::kSharedBytes, stream>>>(
        static_cast<const K *>(pl.keys_in), pl.count, codec, counts);
    if ((e = cudaGetLastError()) != cudaSuccess) return e;
    starts_kernel<Shape::kBins><<<1, CountingTuning::kScanThreads, 0, stream>>>(counts);
    if ((e = cudaGetLastError()) != cudaSuccess) return e;
    fill_kernel<K><<<fill_blocks<K>(pl.count, sms), CountingTuning::kFillThreads, 0, stream>>>(
        static_cast<K *>(pl.keys_out), pl.count, codec.xor_all, counts);
    return cudaGetLastError();
}

template <typename K, typename V> cudaError_t run(const libscan__sort_plan_t &pl, cudaStream_t stream) {
    const size_t n = pl.count;
    const size_t vbytes = std::is_same<V, NoValues>::value ? 0 : sizeof(V);
    // Nothing to order: the result is the input (copied when it must move).
    if (n <= 1 || pl.passes == 0) {
        if (n == 0) return cudaSuccess;
        cudaError_t e = cudaSuccess;
        if (pl.keys_out != pl.keys_in)
            e = cudaMemcpyAsync(pl.keys_out, pl.keys_in, n * sizeof(K), cudaMemcpyDeviceToDevice, stream);
        if constexpr (!std::is_same<V, NoValues>::value) {
            if (e != cudaSuccess) return e;
            if (pl.iota_values) {
                const unsigned blocks = static_cast<unsigned>(n / 256 + 1 < 65536 ? n / 256 + 1 : 65536);
                iota_kernel<V><<<blocks, 256, 0, stream>>>(static_cast<V *>(pl.values_out), n);
                e = cudaGetLastError();
            } else if (pl.values_out != pl.values_in) {
                e = cudaMemcpyAsync(pl.values_out, pl.values_in, n * vbytes, cudaMemcpyDeviceToDevice, stream);
            }
        }
        return e;
    }

    int device = 0, sms = 0;
    cudaError_t e = cudaGetDevice(&device);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    if (e != cudaSuccess) return e;
    if constexpr (sizeof(K) <= 2 && std::is_same<V, NoValues>::value)
        if (takes_counting_sort(pl)) return run_counting<K>(pl, device, sms, stream);

    char *scratch = static_cast<char *>(pl.scratch);
    const size_t tiles = (n + pass_tile(sizeof(K), vbytes) - 1) / pass_tile(sizeof(K), vbytes);
    const size_t wbytes = status_word_bytes(n);
    const Codec<K> codec = make_codec<K>(pl.key, pl.descending != 0);
    // Counters, histograms and the first pass's look-back words in one
    // memset, before the MSD path: with 4-byte keys, its histogram kernel
    // counts the passes' digits too (MsdState::lsd_hist), so that the keys
    // are read once to count whichever path sorts.
    e = cudaMemsetAsync(scratch, 0, kCounterBytes + kHistBytes + tiles * kRadix * wbytes, stream);
    if (e != cudaSuccess) return e;
    unsigned *counters = reinterpret_cast<unsigned *>(scratch);
    unsigned long long *hist = reinterpret_cast<unsigned long long *>(scratch + kCounterBytes);
    void *status = scratch + kCounterBytes + kHistBytes;
    constexpr bool kMsdKeys = (sizeof(K) == 4 || sizeof(K) == 8) && std::is_same<V, NoValues>::value;
    constexpr bool kMsdPairs = sizeof(K) == 4 && sizeof(V) == 4;
    bool msd = false;
    MsdState st{};
    if constexpr (kMsdKeys || kMsdPairs) {
        if ((msd = takes_msd(pl))) {
            st = msd_state_at(scratch + onesweep_bytes(n, sizeof(K), vbytes));
            if constexpr (sizeof(K) == 4) st.lsd_hist = hist;
            if ((e = msd_count_for<K, V>(pl, codec, st, device, sms, stream)) != cudaSuccess) return e;
        }
    }
    const unsigned *msd_taken = msd ? st.taken : nullptr; // the passes' skip flag
    // The passes the stable MSD path's launches run when it is not taken.
    const int msd_passes = msd && kMsdPairs ? 2 : 0;

    if (st.lsd_hist == nullptr) { // (st is zeroed where the MSD path is not launched)
        HistogramParams<K> hp;
        hp.keys = static_cast<const K *>(pl.keys_in);
        hp.n = n;
        hp.codec = codec;
        hp.first_shift = pl.begin_bit;
        hp.end_bit = pl.end_bit;
        hp.passes = pl.passes;
        hp.hist = hist;
        hp.skip = msd_taken;
        histogram_kernel<K, HistogramTuning>
            <<<histogram_blocks<HistogramTuning>(n, sms), HistogramTuning::kBlockThreads, 0, stream>>>(hp);
        if ((e = cudaGetLastError()) != cudaSuccess) return e;
    }
    digit_base_kernel<><<<static_cast<unsigned>(pl.passes), kRadix, 0, stream>>>(hist, counters, n, msd_taken,
                                                                                 msd_passes);
    if ((e = cudaGetLastError()) != cudaSuccess) return e;

    if (msd) { // (not for other key and value widths: kMsdKeys, kMsdPairs)
        if constexpr (kMsdPairs) {
            e = wbytes == sizeof(unsigned)
                    ? run_msd_pairs<K, V>(pl, codec, st, hist, counters, static_cast<unsigned *>(status), sms, stream)
                    : run_msd_pairs<K, V>(pl, codec, st, hist, counters, static_cast<unsigned long long *>(status),
                                          sms, stream);
        } else if constexpr (kMsdKeys) {
            e = run_msd<K>(pl, codec, st, stream);
        }
        if (e != cudaSuccess) return e;
    }

    if (wbytes == sizeof(unsigned))
        return run_passes<K, V, unsigned>(pl, codec, scratch, msd_passes, sms, msd_taken, stream);
    return run_passes<K, V, unsigned long long>(pl, codec, scratch, msd_passes, sms, msd_taken, stream);
}

template <typename K> cudaError_t run_key(const libscan__sort_plan_t &pl, cudaStream_t stream) {
    switch (pl.value_bytes) {
    case 0: return run<K, NoValues>(pl, stream);
    case 4: return run<K, uint32_t>(pl, stream);
    case 8: return run<K, uint64_t>(pl, stream);
    default: return cudaErrorInvalidValue;
    }
}

} // namespace
} // namespace libscan::sort

extern "C" size_t libscan__sort_scratch_bytes(size_t count, size_t key_bytes, size_t value_bytes) {
    using namespace libscan::sort;
    if (count == 0) return 0;
    const size_t msd = msd_scratch(count, key_bytes, value_bytes) ? round_up(MsdLayout::kBytes) : 0;
    const size_t onesweep = onesweep_bytes(count, key_bytes, value_bytes) + msd;
    const size_t counting = value_bytes == 0 ? round_up(counting_bytes(key_bytes)) : 0;
    return onesweep > counting ? onesweep : counting;
}

extern "C" void libscan__sort_force_path(int path) { libscan::sort::g_path.store(path); }

extern "C" size_t libscan__sort_msd_taken_offset(size_t count, size_t key_bytes, size_t value_bytes) {
    using namespace libscan::sort;
    return onesweep_bytes(count, key_bytes, value_bytes) + (MsdLayout::kFlags + 1) * sizeof(unsigned);
}

extern "C" size_t libscan__sort_msd_crowded_offset(size_t count, size_t key_bytes, size_t value_bytes) {
    using namespace libscan::sort;
    return onesweep_bytes(count, key_bytes, value_bytes) + MsdLayout::kCrowdedCount * sizeof(unsigned);
}

extern "C" int libscan__sort_any_order_first_pass(size_t key_bytes, size_t value_bytes, unsigned begin_bit,
                                                  unsigned end_bit) {
    return value_bytes == 0 && begin_bit == 0 && end_bit == 8 * key_bytes &&
           libscan::sort::g_path.load(std::memory_order_relaxed) != LIBSCAN__SORT_PATH_STABLE;
}

extern "C" cudaError_t libscan__sort_launch(const libscan__sort_plan_t *plan, cudaStream_t stream) {
    using namespace libscan::sort;
    switch (libscan__sort_key_bytes(plan->key)) {
    case 1: return run_key<uint8_t>(*plan, stream);
    case 2: return run_key<uint16_t>(*plan, stream);
    case 4: return run_key<uint32_t>(*plan, stream);
    case 8: return run_key<uint64_t>(*plan, stream);
    default: return cudaErrorInvalidValue;
    }
}
