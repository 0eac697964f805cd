// sat_kernels.cuh -- the device layer of the SAT family (namespace
// libscan::sat): the kernels behind libscan_sat_build and
// libscan_sat_box_sums (<libscan/sat.h>), for code that builds summed-area
// tables from its own kernels, e.g. with a per-pixel transform fused into the
// first read. Header-only; include it from CUDA C++ (C++17), link
// libscan::device.
//
// build_sat<In, Acc, C>(in, in_pitch, W, H, temp, out, out_pitch, stream,
//                        xform = NoTransform())
//   Enqueues on `stream` the summed-area table (sat.h, "The table") of a
//   W x H image of C interleaved channels of In (pitches in bytes), summed in
//   Acc (unsigned integers wrap), into `out`. Every pixel passes through
//   xform(row, column, pixel) as it is read (the pixel a Vec<Acc, C> of the
//   input converted to Acc; NoTransform leaves it as is). Two kernel
//   launches, nothing else: no allocation, no synchronisation, so it may be
//   captured into a graph. Returns the launch error, if any.
//   temp    device scratch of temp_pitch(H, C, sizeof(Acc)) * W bytes,
//           aligned to 256 bytes (libscan_sat_temp_bytes() gives these bytes
//           plus 256 of slack for aligning a pointer up).
//   Rules   in, out and temp must not overlap; in and out aligned to their
//           element sizes; W, H in 1 .. LIBSCAN_SAT_MAX_DIM. Nothing is
//           checked here: the C API checks, this layer trusts its caller.
//   Result  bitwise libscan_sat_build's for the same image and types (with
//           NoTransform); integer tables equal libscan_cpu_sat_build's. The
//           order in which float elements are added depends only on In, Acc,
//           C, W and H.
//
// scan_rows_transpose<In, Acc, C, Xform>: one pass of build_sat (scans the
// rows of a matrix and writes them transposed); box_sums_kernel<Acc>: the
// kernel of libscan_sat_box_sums (a thread per box, sums of 0 for invalid
// boxes). Their launch shapes are build_sat's and sat_gpu.cu's; the tile
// sizes below are tuning values that may change between versions.
//
// How a pass works: a block takes kBand rows, one warp per row, and walks
// the row in tiles of kTile = 32 * kItems columns; lane l scans the kItems
// consecutive pixels at tile_start + l * kItems in registers, the warp scans
// the lane totals (libscan::WarpScan over the channel vector), and each row's
// running total is carried from tile to tile. The scanned kBand x kTile tile
// is staged in shared memory and written out transposed, each output row
// receiving kBand consecutive pixels from kBand consecutive threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cuda_runtime.h>
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

// Load transform of scan_rows_transpose: the pixel as read (no change). A
// caller's transform maps (row, column, pixel) to the value to scan (build_sat
// applies it in the first pass only, where row and column are the image's y
// and x), which fuses e.g. a per-pixel weighting into the table's first read
// instead of a separate pass over the image.
struct NoTransform {
    template <typename V> __device__ __forceinline__ V operator()(size_t, size_t, const V &v) const { return v; }
};

constexpr int kBand = 8;           // rows per block (one warp each)
constexpr int kItems = 4;          // consecutive pixels per lane
constexpr int kTile = 32 * kItems; // columns per tile
constexpr int kThreads = kBand * 32;

template <typename In, typename Acc, int C, class Xform = NoTransform>
__global__ void __launch_bounds__(kThreads)
    scan_rows_transpose(const unsigned char *__restrict__ in, size_t in_pitch, size_t rows, size_t cols,
                        unsigned char *__restrict__ out, size_t out_pitch, const Xform xform) {
    using V = Vec<Acc, C>;
    using Op = VecSum<Acc, C>;
    // +1 pixel per row: consecutive bands rows land in different banks.
    __shared__ V tile[kBand][kTile + 1];

    const Op op;
    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    const size_t band0 = (size_t)blockIdx.x * kBand;
    const size_t row = band0 + warp;
    const bool row_ok = row < rows;
    const In *src_row = reinterpret_cast<const In *>(in + (row_ok ? row : 0) * in_pitch);

    V carry = op.identity();
    for (size_t c0 = 0; c0 < cols; c0 += kTile) {
        // ---- load K pixels per lane (identity past the row's end) ----
        V items[kItems];
        const size_t first = c0 + (size_t)lane * kItems;
        constexpr size_t kChunkBytes = sizeof(In) * C * kItems;
        bool loaded = false;
        if constexpr (kChunkBytes % 16 == 0) {
            const In *p = src_row + first * C;
            if (row_ok && first + kItems <= cols && (reinterpret_cast<uintptr_t>(p) & 15) == 0) {
                // Whole chunk in range and aligned: 16-byte loads.
                alignas(16) In raw[C * kItems];
#pragma unroll
                for (size_t q = 0; q < kChunkBytes / 16; ++q)
                    reinterpret_cast<uint4 *>(raw)[q] = __ldg(reinterpret_cast<const uint4 *>(p) + q);
#pragma unroll
                for (int k = 0; k < kItems; ++k)
#pragma unroll
                    for (int c = 0; c < C; ++c) items[k].v[c] = Acc(raw[k * C + c]);
                loaded = true;
            }
        }
        if (!loaded) {
#pragma unroll
            for (int k = 0; k < kItems; ++k) {
                const size_t col = first + k;
                if (row_ok && col < cols) {
#pragma unroll
                    for (int c = 0; c < C; ++c) items[k].v[c] = Acc(src_row[col * C + c]);
                } else {
                    items[k] = op.identity();
                }
            }
        }
        if constexpr (!std::is_same_v<Xform, NoTransform>) {
#pragma unroll
            for (int k = 0; k < kItems; ++k)
                if (row_ok && first + k < cols) items[k] = xform(row, first + k, items[k]);
        }
        // ---- scan: inside the thread, across the warp, then the row's carry ----
#pragma unroll
        for (int k = 1; k < kItems; ++k) items[k] = op(items[k - 1], items[k]);
        V warp_total;
        const V lane_prefix = libscan::WarpScan<V>::ExclusiveScan(items[kItems - 1], op, warp_total);
        const V prefix = op(carry, lane_prefix);
#pragma unroll
        for (int k = 0; k < kItems; ++k) items[k] = op(prefix, items[k]);
        carry = op(carry, warp_total);

        // ---- through shared memory, out transposed ----
        __syncthreads(); // the previous tile has been written out
#pragma unroll
        for (int k = 0; k < kItems; ++k) tile[warp][lane * kItems + k] = items[k];
        __syncthreads();
        for (int e = threadIdx.x; e < kBand * kTile; e += kThreads) {
            const int i = e % kBand; // which row of the band = position in the output row
            const int j = e / kBand; // which column of the tile = output row
            const size_t orow = c0 + j, ocol = band0 + i;
            if (orow < cols && ocol < rows) {
                Acc *dst = reinterpret_cast<Acc *>(out + orow * out_pitch) + ocol * C;
                const V v = tile[i][j];
#pragma unroll
                for (int c = 0; c < C; ++c) dst[c] = v.v[c];
            }
        }
    }
}

// Row pitch of the intermediate (transposed) table: `rows` pixels of
// C * elem bytes, rounded up to 256 bytes so every row starts aligned.
inline size_t temp_pitch(size_t rows, int channels, size_t elem) {
    const size_t row = rows * (size_t)channels * elem;
    return (row + 255) / 256 * 256;
}

// The SAT of a W x H image of C channels: rows -> temp (transposed, pitch
// temp_pitch(H, C, sizeof(Acc))), then temp's rows -> out, transposed back.
// `xform` applies to the pixels as the first pass reads them.
template <typename In, typename Acc, int C, class Xform = NoTransform>
cudaError_t build_sat(const unsigned char *in, size_t in_pitch, size_t W, size_t H, unsigned char *temp,
                      unsigned char *out, size_t out_pitch, cudaStream_t stream, Xform xform = Xform()) {
    const size_t tp = temp_pitch(H, C, sizeof(Acc));
    scan_rows_transpose<In, Acc, C, Xform>
        <<<dim3((unsigned)((H + kBand - 1) / kBand)), dim3(kThreads), 0, stream>>>(in, in_pitch, H, W, temp, tp, xform);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    scan_rows_transpose<Acc, Acc, C><<<dim3((unsigned)((W + kBand - 1) / kBand)), dim3(kThreads), 0, stream>>>(
        temp, tp, W, H, out, out_pitch, NoTransform());
    return cudaGetLastError();
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
