// sat_kernels.cuh -- the device layer of the SAT family (namespace
// libscan::sat): the kernels behind libscan_sat_build and
// libscan_sat_box_sums (<libscan/sat.h>), for code that builds summed-area
// tables from its own kernels, e.g. with a per-pixel transform fused into the
// reads. Header-only; include it from CUDA C++ (C++17), link libscan::device.
//
// build_sat<In, Acc, C>(in, in_pitch, W, H, temp, out, out_pitch, stream,
//                        xform = NoTransform())
//   Enqueues on `stream` the summed-area table (sat.h, "The table") of a
//   W x H image of C interleaved channels of In (pitches in bytes), summed in
//   Acc (unsigned integers wrap), into `out`. Every pixel passes through
//   xform(row, column, pixel) each time it is read (the pixel a Vec<Acc, C>
//   of the input converted to Acc; NoTransform leaves it as is). The image is
//   read twice, so xform must be a pure function of its arguments. Four
//   kernel launches, nothing else: no allocation, no synchronisation, so it
//   may be captured into a graph. The last three are programmatic dependent
//   launches (sm_90+): each may start while the one before finishes, and
//   waits for its results. Returns the launch error, if any.
//   temp    device scratch of sat_temp_bytes(W, H, C, sizeof(Acc)) bytes,
//           aligned to 256 bytes (libscan_sat_temp_bytes() gives these bytes
//           plus 256 of slack for aligning a pointer up): the carries, about
//           (1 / tile width + 1 / tile height) of the table's bytes. Its
//           contents on entry do not matter.
//   Rules   in, out and temp must not overlap; in and out aligned to their
//           element sizes; W, H in 1 .. LIBSCAN_SAT_MAX_DIM. Nothing is
//           checked here: the C API checks, this layer trusts its caller.
//   Result  bitwise libscan_sat_build's for the same image and types (with
//           NoTransform); integer tables equal libscan_cpu_sat_build's. The
//           order in which float elements are added depends only on In, Acc,
//           C, W and H (below).
//
// How it works: three stages over tiles of TW x TH pixels (sat_tuning.cuh,
// by the table's pixel size), so the image is read twice, the table written
// once, and only per-tile carries go between the stages. For the tile (bx,
// by) whose first pixel is (x0, y0), S(x, y) = Top(by, x) + sum over the
// tile's rows y0..y of [Q(bx, y') + R(x, y')], where
//   R(x, y)   = the row's sum from x0 to x (the tile's own row prefix),
//   Q(bx, y)  = the row's sum left of the tile (x < x0),
//   Top(by,x) = S(x, y0 - 1), the table row just above the tile.
//  1. sat_tiles_kernel<..., false> reads each tile and writes, per tile, the
//     row totals (the tile's part of each row), the bottom row of R summed
//     down the tile ("Lb": sum over its rows of R(x, y)) and the tile total.
//  2. scan_carries, twice: (a) down the tile columns, an exclusive scan over
//     bx of the row totals gives Q(bx, y), and of the tile totals gives
//     T(bx, by) = the sum of the tiles left of (bx, by) in its tile row;
//     (b) down the tile rows, an exclusive scan over by of Lb(bx, by, x) +
//     T(bx, by) gives Top(by, x).
//  3. sat_tiles_kernel<..., true> reads each tile again, scans its rows from
//     Q, its columns from Top, and writes the table.
// Carries in temp: the row carries, tiles_x rows of (H + tiles_y) * C
// scalars (the row totals of image row y at y * C, the tile totals of tile
// row by at (H + by) * C), then the column carries, tiles_y rows of W * C
// scalars (sat_carry_layout).
//
// A tile pass, per tile: the row pass gives each thread kChunk consecutive
// pixels of a row (16-byte loads where the row allows; scalar loads
// otherwise), scans them in registers and across the row's threads with
// shuffles, and stores the scanned rows to shared memory in 16-byte units
// (swizzled so neither pass has bank conflicts); the column pass gives each
// thread one 16-byte unit of a row down TH / kColSegments rows, scans them,
// meets the other segments of its column through shared memory, and (stage
// 3) writes its rows of the table as 16-byte stores, coalesced along the
// row (scalar stores where the table's pitch or pointer is not 16-byte
// aligned, and at the end of a row).
//
// Float order (fixed by In, Acc, C, W and H; every fold is left to right):
//  * row pass: inside a chunk a left fold of its kChunk pixels; across the
//    tile row's chunks the Kogge-Stone prefix of chunk totals (warp_scan.cuh,
//    lane_prefix); pixel k of a chunk = (carry (+) chunk prefix) (+) (its
//    fold inside the chunk), with carry = Q(bx, y) in stage 3, none in
//    stage 1, where the row total is the last chunk's inclusive prefix;
//  * column pass: inside a segment a left fold down its rows; stage 3:
//    element = ((Top (+) seg_0) (+) .. (+) seg_{s-1}) (+) (its fold inside
//    segment s); stage 1: Lb = seg_0 (+) seg_1 (+) .., the tile total Lb at
//    the tile's last column (pixels past the image are 0);
//  * scan_carries: rows split into rounds of up to kCarryGroups x
//    kCarryRows, a round into kCarryGroups runs of ceil(rows / kCarryGroups)
//    (the last runs may be short or empty); run g's total is the left fold
//    of its values; the i-th value of run g gets (((carry (+) total_0) (+)
//    .. (+) total_{g-1}) (+) v_0) (+) .. (+) v_{i-1}, and the next round's
//    carry is ((carry (+) total_0) (+) ..) (+) total_last; in (b) each value
//    is Lb (+) T before it is scanned.
//
// sat_tiles_kernel, scan_carries and box_sums_kernel (the kernel of
// libscan_sat_box_sums: a thread per box, sums of 0 for invalid boxes) are
// the launches; their shapes are tuning values that may change between
// versions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <cuda_runtime.h>
#include <libscan/cuda/sat_tuning.cuh>
#include <libscan/cuda/warp_scan.cuh>

namespace libscan::sat {

// A pixel's channels as one value: libscan's collectives scan it whole.
template <typename T, int C> struct Vec {
    T v[C];
};

// Channel-wise sum with identity 0: the monoid of ops.cuh's requirements.
// Unsigned integers wrap (the wrap bound in sat.h makes box sums exact).
template <typename T, int C> struct VecSum {
    __host__ __device__ Vec<T, C> operator()(const Vec<T, C> &a, const Vec<T, C> &b) const {
        Vec<T, C> r; // (no #pragma unroll: the host compiler sees this too)
        for (int c = 0; c < C; ++c) r.v[c] = a.v[c] + b.v[c];
        return r;
    }
    __host__ __device__ Vec<T, C> identity() const {
        Vec<T, C> r;
        for (int c = 0; c < C; ++c) r.v[c] = T(0);
        return r;
    }
};

// Load transform of build_sat: the pixel as read (no change). A caller's
// transform maps (row, column, pixel) to the value to sum (row and column
// are the image's y and x), which fuses e.g. a per-pixel weighting into the
// table's reads instead of a separate pass over the image. It is applied
// every time a pixel is read (twice per build), so it must be pure.
struct NoTransform {
    template <typename V> __device__ __forceinline__ V operator()(size_t, size_t, const V &v) const { return v; }
};

// ---- the carries in temp ----------------------------------------------------------

// Where build_sat keeps its carries (see the top of this file).
struct CarryLayout {
    size_t tile_w, tile_h;   // pixels (sat_tuning.cuh)
    size_t tiles_x, tiles_y; // tiles across and down
    size_t row_lanes;        // scalars per row of the row carries: (H + tiles_y) * C
    size_t col_lanes;        // scalars per row of the column carries: W * C
    size_t col_offset;       // bytes from temp to the column carries (a multiple of 256)
    size_t bytes;            // temp bytes in all
};

// The layout for a W x H image of C channels summed in elements of `elem`
// bytes; false when the pixel size has no tile or a figure does not fit a
// size_t (the C API refuses such calls).
inline bool sat_carry_layout(size_t W, size_t H, int C, size_t elem, CarryLayout *out) {
    const SatTile t = sat_tile(C * (int)elem);
    if (t.w == 0 || W == 0 || H == 0) return false;
    CarryLayout L;
    L.tile_w = t.w;
    L.tile_h = t.h;
    L.tiles_x = (W + t.w - 1) / t.w;
    L.tiles_y = (H + t.h - 1) / t.h;
    const size_t cs = (size_t)C * elem; // bytes per pixel of carries
    auto mul = [](size_t a, size_t b, size_t *r) {
        if (a != 0 && b > SIZE_MAX / a) return false;
        *r = a * b;
        return true;
    };
    size_t rows = 0, row_bytes = 0, col_bytes = 0;
    if (H > SIZE_MAX - L.tiles_y || !mul(H + L.tiles_y, cs, &rows) || !mul(rows, L.tiles_x, &row_bytes)) return false;
    if (!mul(W, cs, &col_bytes) || !mul(col_bytes, L.tiles_y, &col_bytes)) return false;
    if (row_bytes > SIZE_MAX - 255) return false;
    L.row_lanes = (H + L.tiles_y) * (size_t)C;
    L.col_lanes = W * (size_t)C;
    L.col_offset = (row_bytes + 255) / 256 * 256;
    if (col_bytes > SIZE_MAX - L.col_offset) return false;
    L.bytes = L.col_offset + col_bytes;
    *out = L;
    return true;
}

// build_sat's temp bytes (0 when sat_carry_layout refuses the sizes).
inline size_t sat_temp_bytes(size_t W, size_t H, int C, size_t elem) {
    CarryLayout L;
    return sat_carry_layout(W, H, C, elem, &L) ? L.bytes : 0;
}

// ---- the tile passes -----------------------------------------------------------------

// Every derived figure of a tile pass, from the tuning entry of the pixel size.
template <typename In, typename Acc, int C> struct SatShape {
    static_assert(sizeof(Acc) == 4 || sizeof(Acc) == 8, "libscan: SAT tables hold 4- or 8-byte elements");
    static_assert(C >= 1 && C <= 4, "libscan: SAT images have 1 to 4 channels");
    static constexpr int kPixelBytes = C * (int)sizeof(Acc);
    using Tuning = SatTuning<kPixelBytes>;
    static constexpr int kTileW = Tuning::kTileW, kTileH = Tuning::kTileH, kChunk = Tuning::kChunk;
    static constexpr int kThreads = Tuning::kThreads, kMinBlocks = Tuning::kMinBlocksPerSM;
    static constexpr int kUnitScalars = 16 / (int)sizeof(Acc);       // scalars per 16-byte unit
    static constexpr int kRowScalars = kTileW * C;                    // scalars per tile row
    static constexpr int kUnits = kTileW * kPixelBytes / 16;          // units per tile row
    static constexpr int kChunkUnits = kChunk * kPixelBytes / 16;     // units per row-pass thread
    static constexpr int kRowThreads = kTileW / kChunk;               // row-pass threads per tile row
    static constexpr int kLogRowThreads = kRowThreads >= 32 ? 5 : kRowThreads >= 16 ? 4 : kRowThreads >= 8 ? 3
                                          : kRowThreads >= 4 ? 2 : kRowThreads >= 2 ? 1 : 0;
    static constexpr int kRowItems = kTileH * kRowThreads;            // (row, chunk) pairs
    static constexpr int kRowRounds = (kRowItems + kThreads - 1) / kThreads;
    static constexpr int kSegs = Tuning::kColSegments;                // column segments
    static constexpr int kSegRows = kTileH / kSegs;                   // rows per segment
    static constexpr int kColItems = kUnits * kSegs;                  // (unit, segment) pairs
    static constexpr int kColRounds = (kColItems + kThreads - 1) / kThreads;
    // A chunk of a power-of-two number of units goes to shared memory
    // through an XOR swizzle of the unit's place in its 128-byte line (by the
    // line's index in the row): the 8 threads of a quarter warp then store
    // to 8 different bank groups, and the column pass, reading 8 consecutive
    // units of one line, still hits 8 different ones. An odd number of units
    // per chunk needs no swizzle (the 8 chunk starts are already distinct
    // modulo 8 units).
    static constexpr bool kSwizzle = (kChunkUnits & (kChunkUnits - 1)) == 0 && kUnits % 8 == 0;
    static constexpr size_t kSmemBytes = size_t(kTileH + kSegs) * kUnits * 16;

    static_assert(kChunk * kPixelBytes % 16 == 0, "libscan: a row-pass chunk must be whole 16-byte units");
    static_assert(kTileW % kChunk == 0 && kRowThreads <= 32 && (kRowThreads & (kRowThreads - 1)) == 0,
                  "libscan: a tile row must be a power of two (<= 32) of chunks");
    static_assert(kSwizzle || kChunkUnits % 2 == 1, "libscan: chunk units must be odd or a power of two");
    static_assert(kThreads % 32 == 0 && kRowItems % 32 == 0 && kColItems % 32 == 0,
                  "libscan: whole warps in both passes");
    static_assert(kTileH % kSegs == 0 && kUnits <= kThreads, "libscan: column segments must divide the tile");
    static_assert(kSmemBytes <= 48 * 1024, "libscan: a SAT tile must fit static shared memory");

    // Shared-memory slot of unit u of a tile row (see kSwizzle).
    static __device__ __forceinline__ int slot(int u) { return kSwizzle ? (u & ~7) | ((u ^ (u >> 3)) & 7) : u; }
};

// What a tile pass reads and writes (one struct: the kernels take it by value).
template <typename Acc> struct SatArgs {
    const unsigned char *in;
    size_t in_pitch;
    size_t W, H;
    unsigned char *out; // the table (stage 3 only)
    size_t out_pitch;
    Acc *row_carry;     // tiles_x rows of row_lanes scalars
    Acc *col_carry;     // tiles_y rows of col_lanes scalars
    size_t tiles_x, tiles_y, row_lanes, col_lanes;
    bool out_vec; // out and out_pitch are 16-byte aligned: 16-byte stores
    bool col_vec; // col_lanes * sizeof(Acc) is a multiple of 16: 16-byte carry loads and stores
};

namespace detail {

// Programmatic dependent launch (sm_90+; no-ops elsewhere and for a grid
// launched without the attribute): `pdl_wait` holds a kernel until the
// kernel before it in the stream has finished and its writes are visible;
// `pdl_trigger` lets the next kernel's blocks start launching (they wait in
// pdl_wait). build_sat's stages are four short launches in a row, so the
// launch latency between them is a few percent of a 4K table's time.
__device__ __forceinline__ void pdl_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
__device__ __forceinline__ void pdl_trigger() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// The unsigned word of B bytes: the widest load a chunk allows.
template <int B> struct Word;
template <> struct Word<16> { using T = uint4; };
template <> struct Word<8> { using T = uint2; };
template <> struct Word<4> { using T = unsigned int; };
template <> struct Word<2> { using T = unsigned short; };
template <> struct Word<1> { using T = unsigned char; };

// One 16-byte unit between shared memory and U scalars.
template <typename Acc> __device__ __forceinline__ void put_unit(uint4 *dst, const Acc *src) {
    uint4 r;
    memcpy(&r, src, 16);
    *dst = r;
}
template <typename Acc> __device__ __forceinline__ void get_unit(const uint4 *src, Acc *dst) {
    const uint4 r = *src;
    memcpy(dst, &r, 16);
}

// U scalars of a carry or table row from scalar j on, of a row of n scalars:
// one 16-byte access when `vec` (16-byte aligned) and all U lie in the row,
// else guarded scalars (0 past the end on loads).
template <typename Acc, int U>
__device__ __forceinline__ void load_unit(const Acc *row, size_t j, size_t n, bool vec, Acc *dst) {
    if (vec && j + U <= n) {
        const uint4 r = __ldg(reinterpret_cast<const uint4 *>(row + j));
        memcpy(dst, &r, 16);
    } else {
#pragma unroll
        for (int i = 0; i < U; ++i) dst[i] = j + i < n ? row[j + i] : Acc(0);
    }
}
template <typename Acc, int U>
__device__ __forceinline__ void store_unit(Acc *row, size_t j, size_t n, bool vec, const Acc *src) {
    if (vec && j + U <= n) {
        uint4 r;
        memcpy(&r, src, 16);
        // Streaming store: the table is not read again here, so it should
        // not push the image (read a second time by stage 3) out of L2.
        __stcs(reinterpret_cast<uint4 *>(row + j), r);
    } else {
#pragma unroll
        for (int i = 0; i < U; ++i)
            if (j + i < n) row[j + i] = src[i];
    }
}

// K pixels of row y from column x on, converted to Acc and transformed, into
// v (pixel k's channel c at v[k * C + c]); pixels past the image are 0 and
// are not transformed. The whole chunk in one to K * C * sizeof(In) / 16
// loads of the widest word its size and the row's alignment allow, else
// scalar loads.
template <typename In, typename Acc, int C, int K, class Xform>
__device__ __forceinline__ void load_chunk(const SatArgs<Acc> &a, size_t y, size_t x, const Xform &xform,
                                           Acc (&v)[K * C]) {
    constexpr int kBytes = K * C * (int)sizeof(In);
    constexpr int kWord = kBytes % 16 == 0 ? 16 : kBytes % 8 == 0 ? 8 : kBytes % 4 == 0 ? 4 : kBytes % 2 == 0 ? 2 : 1;
    using W = typename Word<kWord>::T;
    const size_t nv = y < a.H && x < a.W ? (a.W - x < size_t(K) ? a.W - x : size_t(K)) : 0;
    In raw[K * C];
    if (nv != 0) {
        const unsigned char *p = a.in + y * a.in_pitch + x * C * sizeof(In);
        if (nv == size_t(K) && reinterpret_cast<uintptr_t>(p) % kWord == 0) {
            W w[kBytes / kWord];
#pragma unroll
            for (int i = 0; i < kBytes / kWord; ++i) w[i] = __ldg(reinterpret_cast<const W *>(p) + i);
            memcpy(raw, w, kBytes);
        } else {
            const In *q = reinterpret_cast<const In *>(p);
#pragma unroll
            for (int k = 0; k < K; ++k)
#pragma unroll
                for (int c = 0; c < C; ++c) raw[k * C + c] = size_t(k) < nv ? q[k * C + c] : In(0);
        }
    } else {
#pragma unroll
        for (int i = 0; i < K * C; ++i) raw[i] = In(0);
    }
#pragma unroll
    for (int k = 0; k < K; ++k) {
        Vec<Acc, C> px;
#pragma unroll
        for (int c = 0; c < C; ++c) px.v[c] = Acc(raw[k * C + c]);
        if constexpr (!std::is_same_v<Xform, NoTransform>) {
            if (size_t(k) < nv) px = xform(y, x + k, px);
        }
#pragma unroll
        for (int c = 0; c < C; ++c) v[k * C + c] = px.v[c];
    }
}

// The row pass of tile (bx, by) into `tile` (kTileH rows of kUnits units).
// FINAL (stage 3): each row starts from its carry Q(bx, y); else (stage 1)
// from 0, and the row's total goes to the row carries.
template <typename In, typename Acc, int C, bool FINAL, class Xform>
__device__ __forceinline__ void row_pass(const SatArgs<Acc> &a, size_t bx, size_t by, uint4 *tile, const Xform &xform) {
    using S = SatShape<In, Acc, C>;
    using V = Vec<Acc, C>;
    constexpr int K = S::kChunk, RT = S::kRowThreads, U = S::kUnitScalars;
    const VecSum<Acc, C> op;
    const size_t x0 = bx * S::kTileW, y0 = by * S::kTileH;
    Acc v[S::kRowRounds][K * C];
    // Every round's loads before any scan: more bytes in flight per thread.
#pragma unroll
    for (int rd = 0; rd < S::kRowRounds; ++rd) {
        const int item = rd * S::kThreads + (int)threadIdx.x;
        if (S::kRowItems % S::kThreads != 0 && item >= S::kRowItems) continue;
        load_chunk<In, Acc, C, K>(a, y0 + item / RT, x0 + (size_t)(item % RT) * K, xform, v[rd]);
    }
#pragma unroll
    for (int rd = 0; rd < S::kRowRounds; ++rd) {
        const int item = rd * S::kThreads + (int)threadIdx.x;
        if (S::kRowItems % S::kThreads != 0 && item >= S::kRowItems) continue; // whole warps
        const int r = item / RT, q = item % RT;
        const size_t y = y0 + r;
#pragma unroll
        for (int k = 1; k < K; ++k)
#pragma unroll
            for (int c = 0; c < C; ++c) v[rd][k * C + c] = v[rd][(k - 1) * C + c] + v[rd][k * C + c];
        V total, incl;
#pragma unroll
        for (int c = 0; c < C; ++c) total.v[c] = v[rd][(K - 1) * C + c];
        V pre = libscan::detail::lane_prefix(total, op, S::kLogRowThreads, q, &incl);
        Acc *carry = a.row_carry + bx * a.row_lanes + y * C;
        if constexpr (FINAL) {
            V q_left = op.identity();
            if (y < a.H) {
#pragma unroll
                for (int c = 0; c < C; ++c) q_left.v[c] = carry[c];
            }
            pre = op(q_left, pre);
        } else if (q == RT - 1 && y < a.H) {
#pragma unroll
            for (int c = 0; c < C; ++c) carry[c] = incl.v[c];
        }
#pragma unroll
        for (int k = 0; k < K; ++k)
#pragma unroll
            for (int c = 0; c < C; ++c) v[rd][k * C + c] = pre.v[c] + v[rd][k * C + c];
#pragma unroll
        for (int j = 0; j < S::kChunkUnits; ++j)
            put_unit<Acc>(tile + r * S::kUnits + S::slot(q * S::kChunkUnits + j), &v[rd][j * U]);
    }
}

// Stage 1's column pass: Lb (the tile's row-scanned values summed down its
// rows) to the column carries, the tile total to the row carries.
template <typename In, typename Acc, int C>
__device__ __forceinline__ void column_totals(const SatArgs<Acc> &a, size_t bx, size_t by, const uint4 *tile,
                                              uint4 *part) {
    using S = SatShape<In, Acc, C>;
    constexpr int U = S::kUnitScalars, KY = S::kSegRows;
#pragma unroll
    for (int rd = 0; rd < S::kColRounds; ++rd) {
        const int item = rd * S::kThreads + (int)threadIdx.x;
        if (S::kColItems % S::kThreads != 0 && item >= S::kColItems) continue;
        const int u = item % S::kUnits, s = item / S::kUnits;
        Acc sum[U], w[U];
        get_unit<Acc>(tile + (s * KY) * S::kUnits + S::slot(u), sum);
#pragma unroll
        for (int k = 1; k < KY; ++k) {
            get_unit<Acc>(tile + (s * KY + k) * S::kUnits + S::slot(u), w);
#pragma unroll
            for (int i = 0; i < U; ++i) sum[i] = sum[i] + w[i];
        }
        put_unit<Acc>(part + s * S::kUnits + u, sum);
    }
    __syncthreads();
    const int u = (int)threadIdx.x;
    if (u < S::kUnits) {
        Acc lb[U], w[U];
        get_unit<Acc>(part + u, lb);
#pragma unroll
        for (int s = 1; s < S::kSegs; ++s) {
            get_unit<Acc>(part + s * S::kUnits + u, w);
#pragma unroll
            for (int i = 0; i < U; ++i) lb[i] = lb[i] + w[i];
        }
        const size_t j = bx * S::kRowScalars + (size_t)u * U; // first scalar in the image row
        store_unit<Acc, U>(a.col_carry + by * a.col_lanes, j, a.col_lanes, a.col_vec, lb);
        // The tile total: Lb at the tile's last column (pixels past the image
        // are 0, so Lb is flat there), whether or not that column exists.
        Acc *tot = a.row_carry + bx * a.row_lanes + (a.H + by) * C;
#pragma unroll
        for (int i = 0; i < U; ++i) {
            const int t = u * U + i - (S::kTileW - 1) * C; // channel, when in the last column
            if (t >= 0) tot[t] = lb[i];
        }
    }
}

// Stage 3's column pass: the table rows of tile (bx, by).
template <typename In, typename Acc, int C>
__device__ __forceinline__ void column_table(const SatArgs<Acc> &a, size_t bx, size_t by, const uint4 *tile,
                                             uint4 *part) {
    using S = SatShape<In, Acc, C>;
    constexpr int U = S::kUnitScalars, KY = S::kSegRows;
    Acc w[S::kColRounds][KY][U];
#pragma unroll
    for (int rd = 0; rd < S::kColRounds; ++rd) {
        const int item = rd * S::kThreads + (int)threadIdx.x;
        if (S::kColItems % S::kThreads != 0 && item >= S::kColItems) continue;
        const int u = item % S::kUnits, s = item / S::kUnits;
#pragma unroll
        for (int k = 0; k < KY; ++k) get_unit<Acc>(tile + (s * KY + k) * S::kUnits + S::slot(u), w[rd][k]);
#pragma unroll
        for (int k = 1; k < KY; ++k)
#pragma unroll
            for (int i = 0; i < U; ++i) w[rd][k][i] = w[rd][k - 1][i] + w[rd][k][i];
        put_unit<Acc>(part + s * S::kUnits + u, w[rd][KY - 1]);
    }
    __syncthreads();
    const size_t y0 = by * S::kTileH;
#pragma unroll
    for (int rd = 0; rd < S::kColRounds; ++rd) {
        const int item = rd * S::kThreads + (int)threadIdx.x;
        if (S::kColItems % S::kThreads != 0 && item >= S::kColItems) continue;
        const int u = item % S::kUnits, s = item / S::kUnits;
        const size_t j = bx * S::kRowScalars + (size_t)u * U; // first scalar in the image row
        if (j >= a.col_lanes) continue;                        // past the image's right edge
        Acc pre[U], p[U];
        load_unit<Acc, U>(a.col_carry + by * a.col_lanes, j, a.col_lanes, a.col_vec, pre);
        for (int s2 = 0; s2 < s; ++s2) {
            get_unit<Acc>(part + s2 * S::kUnits + u, p);
#pragma unroll
            for (int i = 0; i < U; ++i) pre[i] = pre[i] + p[i];
        }
#pragma unroll
        for (int k = 0; k < KY; ++k) {
            const size_t y = y0 + (size_t)s * KY + k;
            if (y >= a.H) break;
            Acc o[U];
#pragma unroll
            for (int i = 0; i < U; ++i) o[i] = pre[i] + w[rd][k][i];
            store_unit<Acc, U>(reinterpret_cast<Acc *>(a.out + y * a.out_pitch), j, a.col_lanes, a.out_vec, o);
        }
    }
}

} // namespace detail

// Stages 1 (FINAL = false: carries) and 3 (FINAL = true: the table): blocks
// take tiles in row-major tile order (stage 3 from the last tile back),
// looping when there are more tiles than blocks.
template <typename In, typename Acc, int C, bool FINAL, class Xform>
__global__ void __launch_bounds__(SatShape<In, Acc, C>::kThreads, SatShape<In, Acc, C>::kMinBlocks)
    sat_tiles_kernel(const SatArgs<Acc> a, const Xform xform) {
    using S = SatShape<In, Acc, C>;
    __shared__ uint4 tile[S::kTileH * S::kUnits];
    __shared__ uint4 part[S::kSegs * S::kUnits];
    const size_t tiles = a.tiles_x * a.tiles_y;
    detail::pdl_wait(); // stage 3 reads the carries of stage 2
    for (size_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        // Stage 3 walks the tiles backwards: the tiles stage 1 read last are
        // the likeliest to be still in L2.
        const size_t tt = FINAL ? tiles - 1 - t : t;
        const size_t bx = tt % a.tiles_x, by = tt / a.tiles_x;
        // The next stage may start launching once every block is on its last
        // tile: by then no SM slot is still needed for this grid's blocks.
        if (t + gridDim.x >= tiles) detail::pdl_trigger();
        // The previous tile's column pass read `tile` before its second
        // barrier and `part` after it, so both are free here for every thread
        // that has left that pass; the first barrier below keeps `part` until
        // every thread has.
        detail::row_pass<In, Acc, C, FINAL>(a, bx, by, tile, xform);
        __syncthreads();
        if constexpr (FINAL)
            detail::column_table<In, Acc, C>(a, bx, by, tile, part);
        else
            detail::column_totals<In, Acc, C>(a, bx, by, tile, part);
    }
}

// Nothing added before a carry scan (stage 2a).
struct NoAddend {
    static constexpr bool kNone = true;
};

// Stage 2b's addend: T(bx, by), the tiles left of (bx, by) in its tile row,
// for column-carry lane l of tile row k (from the scanned row carries).
// The tile width is a template argument: a division by a constant per value.
template <typename Acc, int C, int TW> struct TilesLeft {
    static constexpr bool kNone = false;
    const Acc *row_carry;
    size_t row_lanes, H;
    __device__ __forceinline__ Acc operator()(size_t k, size_t l) const {
        const size_t bx = l / (size_t(C) * TW);
        return row_carry[bx * row_lanes + (H + k) * C + l % C];
    }
};

constexpr int kCarryThreads = SatCarryTuning::kCarryGroups * 32;

// In place, for every lane l < L of the K x L array a (row pitch L): a[k][l]
// = the sum over k' < k of (a[k'][l] + add(k', l)). Blocks take 32 lanes,
// looping when there are more lanes than blocks; the float order is in the
// file's header.
template <typename Acc, class Addend>
__global__ void __launch_bounds__(kCarryThreads) scan_carries(Acc *a, size_t K, size_t L, const Addend add) {
    constexpr int G = SatCarryTuning::kCarryGroups, R = SatCarryTuning::kCarryRows;
    __shared__ Acc part[G][32];
    const int lane = (int)threadIdx.x % 32, g = (int)threadIdx.x / 32;
    detail::pdl_wait();    // the carries come from the stage before
    detail::pdl_trigger(); // a small grid, resident at once: the next stage may queue behind it
    for (size_t l0 = (size_t)blockIdx.x * 32; l0 < L; l0 += (size_t)gridDim.x * 32) {
        const size_t l = l0 + lane;
        Acc carry = Acc(0);
        for (size_t k0 = 0; k0 < K; k0 += (size_t)G * R) {
            const size_t rows = K - k0 < (size_t)G * R ? K - k0 : (size_t)G * R;
            const size_t per = (rows + G - 1) / G; // <= R
            const size_t kb = k0 + (size_t)g * per, ke = k0 + rows;
            Acc v[R];
#pragma unroll
            for (int i = 0; i < R; ++i) {
                const size_t k = kb + i;
                v[i] = Acc(0);
                if (l < L && (size_t)i < per && k < ke) {
                    v[i] = a[k * L + l];
                    if constexpr (!Addend::kNone) v[i] = v[i] + add(k, l);
                }
            }
            Acc run = v[0];
#pragma unroll
            for (int i = 1; i < R; ++i) run = run + v[i];
            part[g][lane] = run;
            __syncthreads();
            Acc pre = carry, next = carry;
            for (int h = 0; h < G; ++h) {
                if (h < g) pre = pre + part[h][lane];
                next = next + part[h][lane];
            }
#pragma unroll
            for (int i = 0; i < R; ++i) {
                const size_t k = kb + i;
                if (l < L && (size_t)i < per && k < ke) {
                    a[k * L + l] = pre;
                    pre = pre + v[i];
                }
            }
            carry = next;
            __syncthreads(); // part is rewritten by the next round
        }
    }
}

// Blocks for n work items, capped at the grid's limit (kernels loop past it).
inline unsigned sat_grid(size_t n) { return (unsigned)(n < 0x7fffffffu ? (n ? n : 1) : 0x7fffffffu); }

// The SAT of a W x H image of C channels (see the top of this file).
template <typename In, typename Acc, int C, class Xform = NoTransform>
cudaError_t build_sat(const unsigned char *in, size_t in_pitch, size_t W, size_t H, unsigned char *temp,
                      unsigned char *out, size_t out_pitch, cudaStream_t stream, Xform xform = Xform()) {
    using S = SatShape<In, Acc, C>;
    CarryLayout L;
    if (!sat_carry_layout(W, H, C, sizeof(Acc), &L)) return cudaErrorInvalidValue;
    SatArgs<Acc> a;
    a.in = in;
    a.in_pitch = in_pitch;
    a.W = W;
    a.H = H;
    a.out = out;
    a.out_pitch = out_pitch;
    a.row_carry = reinterpret_cast<Acc *>(temp);
    a.col_carry = reinterpret_cast<Acc *>(temp + L.col_offset);
    a.tiles_x = L.tiles_x;
    a.tiles_y = L.tiles_y;
    a.row_lanes = L.row_lanes;
    a.col_lanes = L.col_lanes;
    a.out_vec = reinterpret_cast<uintptr_t>(out) % 16 == 0 && out_pitch % 16 == 0;
    a.col_vec = L.col_lanes * sizeof(Acc) % 16 == 0;
    const unsigned tiles = sat_grid(L.tiles_x * L.tiles_y);
    // Stage 1 starts as any launch does (after all earlier work in the
    // stream); stages 2a, 2b and 3 are programmatic dependents of the stage
    // before them (pdl_wait, pdl_trigger above).
    sat_tiles_kernel<In, Acc, C, false, Xform><<<tiles, S::kThreads, 0, stream>>>(a, xform);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    cudaLaunchAttribute pdl[1];
    pdl[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    pdl[0].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.blockDim = dim3(kCarryThreads);
    cfg.stream = stream;
    cfg.attrs = pdl;
    cfg.numAttrs = 1;
    cfg.gridDim = dim3(sat_grid((L.row_lanes + 31) / 32));
    if ((e = cudaLaunchKernelEx(&cfg, scan_carries<Acc, NoAddend>, a.row_carry, L.tiles_x, L.row_lanes, NoAddend())) !=
        cudaSuccess)
        return e;
    using Left = TilesLeft<Acc, C, S::kTileW>;
    cfg.gridDim = dim3(sat_grid((L.col_lanes + 31) / 32));
    if ((e = cudaLaunchKernelEx(&cfg, scan_carries<Acc, Left>, a.col_carry, L.tiles_y, L.col_lanes,
                                Left{a.row_carry, L.row_lanes, H})) != cudaSuccess)
        return e;
    cfg.gridDim = dim3(tiles);
    cfg.blockDim = dim3(S::kThreads);
    return cudaLaunchKernelEx(&cfg, sat_tiles_kernel<In, Acc, C, true, Xform>, a, xform);
}

// S at (x, y), 0 left of or above the image.
template <typename Acc>
__host__ __device__ inline Acc table_at(const unsigned char *table, size_t pitch, int channels, long long x,
                                        long long y, int c) {
    if (x < 0 || y < 0) return Acc(0);
    return reinterpret_cast<const Acc *>(table + (size_t)y * pitch)[(size_t)x * channels + c];
}

template <typename Acc>
__global__ void box_sums_kernel(const unsigned char *table, size_t pitch, int channels, size_t width, size_t height,
                                const int32_t *boxes, size_t n, Acc *sums) {
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const int32_t x0 = boxes[4 * i], y0 = boxes[4 * i + 1], x1 = boxes[4 * i + 2], y1 = boxes[4 * i + 3];
        const bool ok = x0 >= 0 && y0 >= 0 && x0 <= x1 && y0 <= y1 && (size_t)x1 < width && (size_t)y1 < height;
        for (int c = 0; c < channels; ++c) {
            Acc s = Acc(0);
            if (ok) {
                s = table_at<Acc>(table, pitch, channels, x1, y1, c) -
                    table_at<Acc>(table, pitch, channels, x0 - 1LL, y1, c) -
                    table_at<Acc>(table, pitch, channels, x1, y0 - 1LL, c) +
                    table_at<Acc>(table, pitch, channels, x0 - 1LL, y0 - 1LL, c);
            }
            sums[i * channels + c] = s;
        }
    }
}

} // namespace libscan::sat
