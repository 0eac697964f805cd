// convert_gpu.h -- the pixel conversions and radius maps of convert.h and
// radius.h on the GPU (convert_gpu.cu): the same per-pixel functions as the
// CPU path, one thread per pixel, enqueued on a stream. Every pointer is
// device memory; the tables are copies of the host's (blur_luts_t, the
// plan's radius table). Each returns the launch error, if any. C++ (CUDA)
// only: called by blur_gpu.cu.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "blur.h"

// raw: n pixels of `channels` `bits`-bit samples -> fixed: n pixels of
// `precision` samples.
cudaError_t blur_gpu_to_fixed(const void *raw, int bits, int channels, size_t n, const uint64_t *decode,
                              blur_precision_t precision, void *fixed, cudaStream_t stream);

// fixed -> raw, the inverse.
cudaError_t blur_gpu_from_fixed(const void *fixed, blur_precision_t precision, int channels, size_t n,
                                const uint32_t *split, const uint16_t *index, int bits, void *raw,
                                cudaStream_t stream);

// radius[i] = lut[blur_depth_index(depth pixel i)] for n pixels.
cudaError_t blur_gpu_radius_from_depth(const void *depth, int bits, int channels, size_t n, const uint16_t *lut,
                                       uint16_t *radius, cudaStream_t stream);

// radius[y * width + x] = rows[y].
cudaError_t blur_gpu_radius_from_rows(const uint16_t *rows, size_t width, size_t height, uint16_t *radius,
                                      cudaStream_t stream);
