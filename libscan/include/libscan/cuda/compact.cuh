// compact.cuh -- single-pass stream compaction (select, partition, unique)
// for your own CUDA code, with any device functor as the predicate.
//
//   struct Odd { __device__ bool operator()(uint32_t x) const { return x & 1; } };
//   using DC = libscan::compact::DeviceCompact<uint32_t>;
//   size_t bytes = DC::temp_bytes(n);                 // allocate d_temp of `bytes`
//   DC::select_if(d_in, d_out, d_num, n, Odd(), d_temp, bytes, stream);
//
// Every call enqueues one memset (tile states) and one kernel on `stream`
// (n = 0: only a memset of *d_num); it never allocates, never synchronises,
// and does not validate pointers (the C API in <libscan/compact.h> does).
// The number selected is written to the device size_t *d_num. Like the C
// API, the result is a function of the input alone (elements are moved,
// never combined), and every operation is stable.
//
// How a tile works (one block per tile; tile ids come from an atomic counter
// in start order, as in libscan's device scan, so a tile only waits for
// tiles already running; its first thread also asks L2 for the input, and
// the flags of select-flagged, of the tile kPrefetchTiles on):
//  1. load the tile once, 16-byte vectors in libscan's warp-striped layout
//     (block_scan.cuh), and evaluate the selector into a 32-bit keep mask;
//  2. rank each kept element inside its warp (warp scans of per-chunk
//     counts, four 8-bit counts to a word) and stage it at that rank in the
//     warp's own slice of shared memory (rejected ones after the kept, for
//     partition), so no element stays in registers past this point;
//  3. sum the warps' counts (32-bit: a tile holds < 2^32 elements); warp 0
//     learns the number kept before the tile by decoupled look-back
//     (libscan::TileLookback over a 64-bit Sum, so counts beyond 2^32 work);
//  4. each warp writes its staged elements to consecutive addresses
//     (coalesced); the last tile writes the total to *d_num.
// Stability: ranks follow element order, so kept elements keep input order;
// a rejected element's rank is (its index) - (kept before it), which keeps
// rejected elements in input order too (in their own buffer: see partition).
//
// In place (out == in, values): safe, because an element is only ever
// written at or before its own position, and a tile writes only after every
// earlier tile has loaded its input (a tile publishes its count after
// loading). Unique reads the element before the tile from global memory;
// an earlier tile can only write that same value there.
#pragma once

#include <cuda_runtime.h>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "libscan/cuda/block_scan.cuh"
#include "libscan/cuda/device_scan.cuh"
#include "libscan/cuda/dynamic_shared.cuh"
#include "libscan/cuda/lookback.cuh"
#include "libscan/cuda/compact_tuning.cuh"

namespace libscan::compact {

// ---- selectors ------------------------------------------------------------
// A selector turns a thread's items (items[k][v] is element
// first + k*32*V + v, see compact_kernel) into a keep mask, bit k*V + v. The
// kernel clears bits of elements past the end; all lanes call it converged.
// prefetch_l2(first, count) asks L2 for whatever else the selector will read
// of elements [first, first + count) (one thread calls it; may do nothing).

// Keeps x when pred(x) is true (any copyable device functor).
template <class Pred> struct PredicateSelect {
    Pred pred;
    __device__ __forceinline__ void prefetch_l2(size_t, size_t) const {} // reads only the input
    template <typename T, int K, int V>
    __device__ __forceinline__ unsigned keep_mask(const T (&x)[K][V], const T *, size_t, size_t, bool) const {
        unsigned m = 0;
#pragma unroll
        for (int k = 0; k < K; ++k)
#pragma unroll
            for (int v = 0; v < V; ++v)
                if (pred(x[k][v])) m |= 1u << (k * V + v);
        return m;
    }
};

// Keeps element i when flags[i] != 0.
struct FlagSelect {
    const unsigned char *flags;
    bool flags_vector_ok; // flags is aligned to the vector width V
    // The flags of elements [first, first + count), into L2 (see compact_kernel).
    __device__ __forceinline__ void prefetch_l2(size_t first, size_t count) const {
        if (reinterpret_cast<uintptr_t>(flags + first) % 16 == 0) libscan::detail::prefetch_l2(flags + first, count);
    }
    template <typename T, int K, int V>
    __device__ __forceinline__ unsigned keep_mask(const T (&)[K][V], const T *, size_t first, size_t n,
                                                  bool full) const {
        unsigned m = 0;
#pragma unroll
        for (int k = 0; k < K; ++k) {
            const size_t i = first + static_cast<size_t>(k) * libscan::kWarpThreads * V;
            bool done = false;
            if constexpr (V == 4 || V == 2) {
                if (full && flags_vector_ok) { // one 4- or 2-byte load per chunk, a byte per element
                    unsigned bytes;
                    if constexpr (V == 4) bytes = *reinterpret_cast<const unsigned *>(flags + i);
                    else bytes = *reinterpret_cast<const unsigned short *>(flags + i);
#pragma unroll
                    for (int v = 0; v < V; ++v)
                        if ((bytes >> (8 * v)) & 0xffu) m |= 1u << (k * V + v);
                    done = true;
                }
            }
            if (!done) {
#pragma unroll
                for (int v = 0; v < V; ++v)
                    if (i + v < n && flags[i + v]) m |= 1u << (k * V + v);
            }
        }
        return m;
    }
};

// Equality for unique: ==, except that two NaNs are equal (a run of NaNs
// collapses) and, by ==, -0.0 equals +0.0.
template <typename T> struct UniqueEqual {
    __host__ __device__ bool operator()(const T &a, const T &b) const {
        if constexpr (std::is_floating_point_v<T>) {
            if (a != a && b != b) return true;
        }
        return a == b;
    }
};

// Keeps element i when i == 0 or !eq(x[i-1], x[i]).
template <class Eq> struct UniqueSelect {
    __device__ __forceinline__ void prefetch_l2(size_t, size_t) const {} // reads only the input
    Eq eq;
    template <typename T, int K, int V>
    __device__ __forceinline__ unsigned keep_mask(const T (&x)[K][V], const T *in, size_t first, size_t n,
                                                  bool) const {
        const int lane = libscan::lane_id();
        unsigned m = 0;
#pragma unroll
        for (int k = 0; k < K; ++k) {
            // Element before this lane's chunk: the previous lane's last item,
            // for lane 0 the previous chunk's last lane, for chunk 0 memory.
            const T up = libscan::detail::shfl_up(x[k][V - 1], 1);
            const T wrap = libscan::detail::shfl(x[k > 0 ? k - 1 : 0][V - 1], libscan::kWarpThreads - 1);
            const size_t i = first + static_cast<size_t>(k) * libscan::kWarpThreads * V;
            T prev = x[k][0];
            bool has_prev = true;
            if (lane > 0) prev = up;
            else if (k > 0) prev = wrap;
            else if (i > 0 && i < n) prev = in[i - 1];
            else has_prev = false; // i == 0 (always kept) or past the end (masked later)
            if (!has_prev || !eq(prev, x[k][0])) m |= 1u << (k * V);
#pragma unroll
            for (int v = 1; v < V; ++v)
                if (!eq(x[k][v - 1], x[k][v])) m |= 1u << (k * V + v);
        }
        return m;
    }
};

namespace detail {

template <typename T, typename OutT> struct CompactParams {
    const T *in;
    OutT *out;
    OutT *rejected;         // nullptr: select only; else partition
    size_t *d_num;
    size_t n;
    unsigned *tile_counter; // zeroed before launch
    unsigned num_tiles;
    bool vector_ok;         // in is 16-byte aligned
};

template <typename T, typename OutT, bool INDICES>
__device__ __forceinline__ OutT out_value(const T &x, size_t index) {
    if constexpr (INDICES) return static_cast<OutT>(index);
    else return x;
}

template <typename T, typename OutT, bool INDICES, class Sel, int BLOCK, int IPT, int MINB, int AHEAD>
__global__ void __launch_bounds__(BLOCK, MINB)
    compact_kernel(const CompactParams<T, OutT> p, const Sel sel, const libscan::TileState<unsigned long long> state) {
    using Shape = libscan::detail::TileShape<T, BLOCK, IPT>;
    constexpr int K = Shape::K, V = Shape::V, kTile = Shape::kTile;
    static_assert(IPT <= 32, "compact: the keep mask holds at most 32 items per thread");
    static_assert(!INDICES || std::is_same_v<OutT, uint64_t>, "compact: indices are uint64_t");
    constexpr int kWarps = BLOCK / libscan::kWarpThreads;
    using Count = unsigned long long;
    __shared__ unsigned s_warp_kept[kWarps];
    __shared__ unsigned s_tile;
    __shared__ Count s_prefix, s_total;
    extern __shared__ __align__(16) unsigned char s_raw[];
    OutT *stage = reinterpret_cast<OutT *>(s_raw); // kTile outputs

    if (threadIdx.x == 0) {
        s_tile = atomicAdd(p.tile_counter, 1u);
        // As libscan's scan does (device_scan.cuh): the input of the tile
        // AHEAD tiles on into L2, so DRAM keeps reading during look-backs.
        size_t first, count;
        libscan::detail::prefetch_tile_l2<T, kTile, AHEAD>(p.in, p.n, p.num_tiles, p.vector_ok, s_tile, first, count);
        if (count) sel.prefetch_l2(first, count);
    }
    __syncthreads();
    const unsigned tile = s_tile;
    const size_t tile_base = static_cast<size_t>(tile) * kTile;
    const int warp = threadIdx.x / libscan::kWarpThreads;
    const int lane = libscan::lane_id();
    const int local0 = warp * Shape::kWarpItems + lane * V; // tile index of items[0][0]
    const size_t first = tile_base + local0;
    const bool full = p.n - tile_base >= static_cast<size_t>(kTile);
    const int valid = full ? kTile : static_cast<int>(p.n - tile_base);

    // 1. Load once and select.
    T items[K][V];
    if (full && p.vector_ok) {
#pragma unroll
        for (int k = 0; k < K; ++k)
            libscan::detail::load_vector<T, V>(p.in + first + k * libscan::kWarpThreads * V, items[k]);
    } else {
#pragma unroll
        for (int k = 0; k < K; ++k)
#pragma unroll
            for (int v = 0; v < V; ++v) {
                const size_t i = first + k * libscan::kWarpThreads * V + v;
                items[k][v] = i < p.n ? p.in[i] : T(); // padding is masked out below
            }
    }
    unsigned keep = sel.template keep_mask<T, K, V>(items, p.in, first, p.n, full);
    if (!full) {
#pragma unroll
        for (int k = 0; k < K; ++k)
#pragma unroll
            for (int v = 0; v < V; ++v)
                if (local0 + k * libscan::kWarpThreads * V + v >= valid) keep &= ~(1u << (k * V + v));
    }

    // 2. Rank in the warp. The warp's items run chunk by chunk (all lanes'
    // chunk 0, then chunk 1, ...), so an item's rank is the warp's kept count
    // of the earlier chunks, plus the lower lanes' count in its chunk, plus
    // the kept items before it in its vector. Per-chunk counts travel four to
    // a word, 8 bits each (a warp keeps at most 32 x V <= 128 per chunk), so
    // one warp scan serves four chunks.
    constexpr int kWords = (K + 3) / 4;
    unsigned packed[kWords];
#pragma unroll
    for (int w = 0; w < kWords; ++w) packed[w] = 0;
#pragma unroll
    for (int k = 0; k < K; ++k)
        packed[k / 4] |= static_cast<unsigned>(__popc((keep >> (k * V)) & ((1u << V) - 1u))) << (8 * (k % 4));
    unsigned warp_kept = 0; // kept in this warp so far, chunk by chunk
    unsigned chunk_rank[K];
#pragma unroll
    for (int w = 0; w < kWords; ++w) {
        unsigned totals;
        const unsigned excl =
            libscan::WarpScan<unsigned>::ExclusiveScan(packed[w], libscan::Sum<unsigned>(), totals);
#pragma unroll
        for (int k = 4 * w; k < K && k < 4 * w + 4; ++k) {
            chunk_rank[k] = warp_kept + ((excl >> (8 * (k % 4))) & 0xffu);
            warp_kept += (totals >> (8 * (k % 4))) & 0xffu;
        }
    }

    // 3. Stage the warp's kept items at their rank in the warp's own region
    // (rejected ones after them, for partition). No item stays live past
    // this point, so the look-back below does not add to the kernel's
    // register peak, which sets how many blocks share an SM.
    OutT *region = stage + warp * Shape::kWarpItems;
    const int warp_first = warp * Shape::kWarpItems; // tile index of the warp's first item
#pragma unroll
    for (int k = 0; k < K; ++k) {
        unsigned rank = chunk_rank[k];
#pragma unroll
        for (int v = 0; v < V; ++v) {
            const int local = local0 + k * libscan::kWarpThreads * V + v;
            const OutT o = out_value<T, OutT, INDICES>(items[k][v], tile_base + local);
            if (keep & (1u << (k * V + v))) {
                region[rank] = o;
                ++rank;
            } else if (p.rejected && local < valid) {
                region[warp_kept + ((local - warp_first) - rank)] = o; // rank = kept before this element
            }
        }
    }

    // 4. Kept per warp -> kept before each warp in the tile; warp 0 then learns
    // the number kept before the tile (look-back).
    if (lane == 0) s_warp_kept[warp] = warp_kept;
    __syncthreads();
    unsigned kept_before_warp = 0, tile_kept = 0;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
        const unsigned c = s_warp_kept[w];
        kept_before_warp += w < warp ? c : 0u;
        tile_kept += c;
    }
    if (warp == 0) {
        libscan::TileLookback<Count, libscan::Sum<Count>, libscan::TileState<Count>> lookback{
            state, tile, libscan::Sum<Count>(), Count(0), Count(0)};
        const Count excl = lookback(static_cast<Count>(tile_kept));
        if (lane == 0) {
            s_prefix = excl;
            s_total = lookback.inclusive;
        }
    }
    __syncthreads();

    // 5. Each warp writes its region to consecutive addresses (coalesced).
    const size_t prefix = s_prefix;
    OutT *dst = p.out + prefix + kept_before_warp;
    for (int j = lane; j < static_cast<int>(warp_kept); j += libscan::kWarpThreads) dst[j] = region[j];
    if (p.rejected && warp_first < valid) {
        const int warp_valid = min(valid - warp_first, Shape::kWarpItems);
        // Rejected before this warp: everything before the tile and before
        // the warp in it that was not kept.
        OutT *rdst = p.rejected + (tile_base - prefix) + (warp_first - kept_before_warp);
        const int warp_rejected = warp_valid - static_cast<int>(warp_kept);
        for (int j = lane; j < warp_rejected; j += libscan::kWarpThreads) rdst[j] = region[warp_kept + j];
    }
    if (threadIdx.x == 0 && tile == p.num_tiles - 1) *p.d_num = static_cast<size_t>(s_total);
}

} // namespace detail

// Device-wide compaction of elements of type T with tile BLOCK x IPT and at
// least MINB resident blocks per SM (defaults from compact_tuning.cuh).
// sizeof(T) must be a multiple of 4.
template <typename T, int BLOCK = CompactTuning<sizeof(T)>::kBlockThreads,
          int IPT = CompactTuning<sizeof(T)>::kItemsPerThread, int MINB = CompactTuning<sizeof(T)>::kMinBlocksPerSM,
          int AHEAD = CompactTuning<sizeof(T)>::kPrefetchTiles>
struct DeviceCompact {
    using Shape = libscan::detail::TileShape<T, BLOCK, IPT>;
    using State = libscan::TileState<unsigned long long>;
    static constexpr size_t kCounterBytes = 256;
    static constexpr int kTileItems = Shape::kTile;

    static constexpr size_t num_tiles(size_t n) { return (n + Shape::kTile - 1) / Shape::kTile; }

    // Scratch bytes for n elements (0 when n == 0); the same for every call.
    static constexpr size_t temp_bytes(size_t n) {
        return n == 0 ? 0 : kCounterBytes + State::bytes(num_tiles(n));
    }

    // The general entry: elements of `in` whose bit `sel` sets go to out (in
    // order); with rejected != nullptr the others go to rejected (in order).
    // INDICES: write uint64_t positions instead of values (OutT = uint64_t).
    // temp: temp_bytes(n) bytes, 256-byte aligned. Returns the first CUDA
    // error met, or cudaErrorInvalidValue for missing temp / too many tiles.
    template <bool INDICES, class Sel, typename OutT>
    static cudaError_t run(const T *in, Sel sel, OutT *out, OutT *rejected, size_t *d_num, size_t n, void *temp,
                           size_t temp_size, cudaStream_t stream) {
        if (n == 0) return cudaMemsetAsync(d_num, 0, sizeof(size_t), stream);
        if (temp == nullptr || temp_size < temp_bytes(n)) return cudaErrorInvalidValue;
        const size_t tiles = num_tiles(n);
        if (tiles > 0x7fffffffull) return cudaErrorInvalidValue;
        char *base = static_cast<char *>(temp);
        cudaError_t e = cudaMemsetAsync(base, 0, temp_bytes(n), stream);
        if (e != cudaSuccess) return e;
        detail::CompactParams<T, OutT> p;
        p.in = in;
        p.out = out;
        p.rejected = rejected;
        p.d_num = d_num;
        p.n = n;
        p.tile_counter = reinterpret_cast<unsigned *>(base);
        p.num_tiles = static_cast<unsigned>(tiles);
        p.vector_ok = reinterpret_cast<uintptr_t>(in) % 16 == 0;
        // Asked for at every size (not only past 48 KB): the kernel's static
        // arrays count against the same 48 KB.
        const size_t smem = sizeof(OutT) * Shape::kTile;
        return libscan::detail::launch_dynamic<detail::compact_kernel<T, OutT, INDICES, Sel, BLOCK, IPT, MINB, AHEAD>>(
            static_cast<unsigned>(tiles), BLOCK, smem, stream, p, sel, State::on(base + kCounterBytes));
    }

    // Flag selector for this tile shape (vector flag loads when aligned).
    static FlagSelect flag_select(const unsigned char *flags) {
        return FlagSelect{flags, reinterpret_cast<uintptr_t>(flags) % Shape::V == 0};
    }

    // ---- convenience ----------------------------------------------------------
    template <class Pred>
    static cudaError_t select_if(const T *in, T *out, size_t *d_num, size_t n, Pred pred, void *temp,
                                 size_t temp_size, cudaStream_t stream) {
        return run<false>(in, PredicateSelect<Pred>{pred}, out, static_cast<T *>(nullptr), d_num, n, temp,
                          temp_size, stream);
    }
    template <class Pred>
    static cudaError_t partition_if(const T *in, T *out, T *rejected, size_t *d_num, size_t n, Pred pred,
                                    void *temp, size_t temp_size, cudaStream_t stream) {
        return run<false>(in, PredicateSelect<Pred>{pred}, out, rejected, d_num, n, temp, temp_size, stream);
    }
    static cudaError_t select_flagged(const T *in, const unsigned char *flags, T *out, size_t *d_num, size_t n,
                                      void *temp, size_t temp_size, cudaStream_t stream) {
        return run<false>(in, flag_select(flags), out, static_cast<T *>(nullptr), d_num, n, temp, temp_size,
                          stream);
    }
    template <class Eq = UniqueEqual<T>>
    static cudaError_t unique(const T *in, T *out, size_t *d_num, size_t n, void *temp, size_t temp_size,
                              cudaStream_t stream, Eq eq = Eq()) {
        return run<false>(in, UniqueSelect<Eq>{eq}, out, static_cast<T *>(nullptr), d_num, n, temp, temp_size,
                          stream);
    }
};

} // namespace libscan::compact
