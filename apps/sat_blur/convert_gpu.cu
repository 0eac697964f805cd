// convert_gpu.cu -- the pixel conversions and radius maps on the GPU
// (convert_gpu.h): grid-stride loops over pixels around the per-pixel
// functions of convert.h and radius.h, so each pixel gets the CPU path's
// integers. Sample widths are runtime values (blur_load / blur_store):
// these kernels move a few bytes per pixel and are bound by memory, not by
// a switch.
#include "convert_gpu.h"
#include "convert.h"
#include "radius.h"

namespace {

constexpr unsigned kThreads = 256;

// Enough blocks to fill the GPU several times over; each thread then loops.
unsigned blocks_for(size_t n) {
    const size_t b = (n + kThreads - 1) / kThreads;
    return (unsigned)(b < 65536 ? (b ? b : 1) : 65536);
}

__global__ void to_fixed_kernel(const unsigned char *__restrict__ raw, int bits, int C, size_t n,
                                const uint64_t *__restrict__ decode, uint64_t one, int sample_bytes,
                                unsigned char *__restrict__ fixed) {
    const int in_bytes = bits / 8;
    for (size_t p = (size_t)blockIdx.x * blockDim.x + threadIdx.x; p < n; p += (size_t)gridDim.x * blockDim.x) {
        uint32_t in[4];
        uint64_t out[4];
        for (int c = 0; c < C; ++c) in[c] = (uint32_t)blur_load(raw, p * C + c, in_bytes);
        blur_pixel_to_fixed(decode, bits, one, C, in, out);
        for (int c = 0; c < C; ++c) blur_store(fixed, p * C + c, sample_bytes, out[c]);
    }
}

__global__ void from_fixed_kernel(const unsigned char *__restrict__ fixed, int sample_bytes, uint64_t one, int C,
                                  size_t n, const uint32_t *__restrict__ split, const uint16_t *__restrict__ index,
                                  int bits, unsigned char *__restrict__ raw) {
    const int out_bytes = bits / 8;
    for (size_t p = (size_t)blockIdx.x * blockDim.x + threadIdx.x; p < n; p += (size_t)gridDim.x * blockDim.x) {
        uint64_t in[4];
        uint32_t out[4];
        for (int c = 0; c < C; ++c) in[c] = blur_load(fixed, p * C + c, sample_bytes);
        blur_pixel_from_fixed(split, index, bits, one, C, in, out);
        for (int c = 0; c < C; ++c) blur_store(raw, p * C + c, out_bytes, out[c]);
    }
}

__global__ void radius_from_depth_kernel(const unsigned char *__restrict__ depth, int bits, int C, size_t n,
                                         const uint16_t *__restrict__ lut, uint16_t *__restrict__ radius) {
    const int bytes = bits / 8;
    for (size_t p = (size_t)blockIdx.x * blockDim.x + threadIdx.x; p < n; p += (size_t)gridDim.x * blockDim.x) {
        uint32_t px[4];
        for (int c = 0; c < C; ++c) px[c] = (uint32_t)blur_load(depth, p * C + c, bytes);
        radius[p] = lut[blur_depth_index(px, C)];
    }
}

__global__ void radius_from_rows_kernel(const uint16_t *__restrict__ rows, size_t width, size_t n,
                                        uint16_t *__restrict__ radius) {
    for (size_t p = (size_t)blockIdx.x * blockDim.x + threadIdx.x; p < n; p += (size_t)gridDim.x * blockDim.x)
        radius[p] = rows[p / width];
}

} // namespace

cudaError_t blur_gpu_to_fixed(const void *raw, int bits, int channels, size_t n, const uint64_t *decode,
                              blur_precision_t precision, void *fixed, cudaStream_t stream) {
    const blur_format_t f = blur_format(precision);
    to_fixed_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<const unsigned char *>(raw), bits, channels, n,
                                                            decode, f.one, f.sample_bytes,
                                                            static_cast<unsigned char *>(fixed));
    return cudaGetLastError();
}

cudaError_t blur_gpu_from_fixed(const void *fixed, blur_precision_t precision, int channels, size_t n,
                                const uint32_t *split, const uint16_t *index, int bits, void *raw,
                                cudaStream_t stream) {
    const blur_format_t f = blur_format(precision);
    from_fixed_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<const unsigned char *>(fixed),
                                                              f.sample_bytes, f.one, channels, n, split, index, bits,
                                                              static_cast<unsigned char *>(raw));
    return cudaGetLastError();
}

cudaError_t blur_gpu_radius_from_depth(const void *depth, int bits, int channels, size_t n, const uint16_t *lut,
                                       uint16_t *radius, cudaStream_t stream) {
    radius_from_depth_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<const unsigned char *>(depth), bits,
                                                                     channels, n, lut, radius);
    return cudaGetLastError();
}

cudaError_t blur_gpu_radius_from_rows(const uint16_t *rows, size_t width, size_t height, uint16_t *radius,
                                      cudaStream_t stream) {
    const size_t n = width * height;
    radius_from_rows_kernel<<<blocks_for(n), kThreads, 0, stream>>>(rows, width, n, radius);
    return cudaGetLastError();
}
