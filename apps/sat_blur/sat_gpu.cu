// sat_gpu.cu -- the GPU half of the SAT library: sat_build (two launches of
// the fused scan-and-transpose kernel), sat_box_sums and sat_box_filter.
#include "sat.h"
#include "sat_internal.h"
#include "sat_kernels.cuh"
#include "filter_math.h"

#include <cuda_runtime.h>

using namespace sat_detail;

namespace {

sat_status_t cuda_status(cudaError_t e) {
    if (e == cudaSuccess) return SAT_SUCCESS;
    (void)cudaGetLastError(); // consume it: the caller's next call starts clean
    return e == cudaErrorMemoryAllocation ? SAT_ERROR_OUT_OF_MEMORY : SAT_ERROR_CUDA;
}

template <typename In, typename Acc, int C>
sat_status_t build_typed(const sat_image_t *in, const sat_image_t *out, unsigned char *temp, cudaStream_t stream) {
    return cuda_status(build_sat<In, Acc, C>(static_cast<const unsigned char *>(in->data), in->pitch, in->width,
                                             in->height, temp, static_cast<unsigned char *>(out->data), out->pitch,
                                             stream));
}

template <typename In, typename Acc>
sat_status_t build_channels(const sat_image_t *in, const sat_image_t *out, unsigned char *temp, cudaStream_t stream) {
    switch (in->channels) {
    case 1: return build_typed<In, Acc, 1>(in, out, temp, stream);
    case 2: return build_typed<In, Acc, 2>(in, out, temp, stream);
    case 3: return build_typed<In, Acc, 3>(in, out, temp, stream);
    case 4: return build_typed<In, Acc, 4>(in, out, temp, stream);
    }
    return SAT_ERROR_INVALID_ARGUMENT;
}

// One thread per column, looping down the rows. C is a template parameter so
// the per-channel loops of filter_math.h unroll and the corners of a
// 4-channel table load as vectors.
template <int C>
__global__ void filter_kernel(const unsigned char *__restrict__ t, size_t pitch, const unsigned char *__restrict__ wt,
                              size_t wpitch, size_t width, size_t height, const unsigned char *__restrict__ radius,
                              size_t rpitch, unsigned uniform_q8, unsigned char *__restrict__ out, size_t opitch,
                              int out16) {
    const size_t x = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= width) return;
    for (size_t y = (size_t)blockIdx.y * blockDim.y + threadIdx.y; y < height; y += (size_t)gridDim.y * blockDim.y) {
        const unsigned r = radius ? __ldg(reinterpret_cast<const uint16_t *>(radius + y * rpitch) + x) : uniform_q8;
        uint32_t v[4];
        sat__filter_pixel(t, pitch, C, wt, wpitch, width, height, x, y, r, v);
        if (out16) {
            uint16_t *o = reinterpret_cast<uint16_t *>(out + y * opitch) + x * C;
            for (int c = 0; c < C; ++c) o[c] = (uint16_t)(v[c] > 65535u ? 65535u : v[c]);
        } else {
            uint8_t *o = reinterpret_cast<uint8_t *>(out + y * opitch) + x * C;
            for (int c = 0; c < C; ++c) o[c] = (uint8_t)(v[c] > 255u ? 255u : v[c]);
        }
    }
}

} // namespace

extern "C" sat_status_t sat_temp_bytes(size_t width, size_t height, int channels, sat_type_t table, size_t *bytes) {
    if (!bytes) return SAT_ERROR_INVALID_ARGUMENT;
    if (table != SAT_U32 && table != SAT_U64 && table != SAT_F32 && table != SAT_F64) return SAT_ERROR_UNSUPPORTED;
    if (width < 1 || height < 1 || width > SAT_MAX_DIM || height > SAT_MAX_DIM || channels < 1 || channels > 4)
        return SAT_ERROR_INVALID_ARGUMENT;
    const size_t tp = temp_pitch(height, channels, sat_type_size(table));
    if (tp > SIZE_MAX / width) return SAT_ERROR_INVALID_ARGUMENT;
    *bytes = tp * width;
    return SAT_SUCCESS;
}

extern "C" sat_status_t sat_build(const sat_image_t *in, const sat_image_t *out, void *d_temp, size_t temp_bytes,
                                  cudaStream_t stream) {
    sat_status_t st = sat__check_build(in, out);
    if (st != SAT_SUCCESS) return st;
    size_t need = 0;
    if ((st = sat_temp_bytes(in->width, in->height, in->channels, out->type, &need)) != SAT_SUCCESS) return st;
    if (d_temp) {
        if (temp_bytes < need) return SAT_ERROR_TEMP_TOO_SMALL;
        if ((uintptr_t)d_temp % 16 != 0) return SAT_ERROR_INVALID_ARGUMENT;
        const sat_image_t t = {d_temp, SAT_U8, 1, need, 1, need};
        if (sat__images_overlap(&t, in) || sat__images_overlap(&t, out)) return SAT_ERROR_INVALID_ARGUMENT;
    } else if (temp_bytes != 0) {
        return SAT_ERROR_INVALID_ARGUMENT;
    }
    if ((in->height + kBand - 1) / kBand > 0x7fffffffu || (in->width + kBand - 1) / kBand > 0x7fffffffu)
        return SAT_ERROR_INVALID_ARGUMENT;

    unsigned char *temp = static_cast<unsigned char *>(d_temp);
    if (!temp) {
        void *p = nullptr;
        if ((st = cuda_status(cudaMallocAsync(&p, need, stream))) != SAT_SUCCESS) return st;
        temp = static_cast<unsigned char *>(p);
    }
    switch (in->type * 8 + out->type) {
    case SAT_U8 * 8 + SAT_U32: st = build_channels<uint8_t, uint32_t>(in, out, temp, stream); break;
    case SAT_U16 * 8 + SAT_U32: st = build_channels<uint16_t, uint32_t>(in, out, temp, stream); break;
    case SAT_U16 * 8 + SAT_U64: st = build_channels<uint16_t, unsigned long long>(in, out, temp, stream); break;
    case SAT_F32 * 8 + SAT_F32: st = build_channels<float, float>(in, out, temp, stream); break;
    case SAT_F32 * 8 + SAT_F64: st = build_channels<float, double>(in, out, temp, stream); break;
    default: st = SAT_ERROR_UNSUPPORTED; break;
    }
    if (!d_temp) {
        const sat_status_t fst = cuda_status(cudaFreeAsync(temp, stream));
        if (st == SAT_SUCCESS) st = fst;
    }
    return st;
}

extern "C" sat_status_t sat_box_sums(const sat_image_t *table, const sat_box_t *d_boxes, size_t n, void *d_sums,
                                     cudaStream_t stream) {
    sat_status_t st = sat__check_sums(table, d_boxes, n, d_sums);
    if (st != SAT_SUCCESS || n == 0) return st;
    const unsigned threads = 256;
    const size_t want = (n + threads - 1) / threads;
    const unsigned blocks = (unsigned)(want < 65536 ? want : 65536);
    const unsigned char *t = static_cast<const unsigned char *>(table->data);
    const int32_t *b = reinterpret_cast<const int32_t *>(d_boxes);
    switch (table->type) {
    case SAT_U32:
        box_sums_kernel<uint32_t><<<blocks, threads, 0, stream>>>(t, table->pitch, table->channels, table->width,
                                                                 table->height, b, n, static_cast<uint32_t *>(d_sums));
        break;
    case SAT_U64:
        box_sums_kernel<unsigned long long><<<blocks, threads, 0, stream>>>(
            t, table->pitch, table->channels, table->width, table->height, b, n,
            static_cast<unsigned long long *>(d_sums));
        break;
    case SAT_F32:
        box_sums_kernel<float><<<blocks, threads, 0, stream>>>(t, table->pitch, table->channels, table->width,
                                                              table->height, b, n, static_cast<float *>(d_sums));
        break;
    case SAT_F64:
        box_sums_kernel<double><<<blocks, threads, 0, stream>>>(t, table->pitch, table->channels, table->width,
                                                               table->height, b, n, static_cast<double *>(d_sums));
        break;
    default: return SAT_ERROR_UNSUPPORTED;
    }
    return cuda_status(cudaGetLastError());
}

extern "C" sat_status_t sat_box_filter(const sat_image_t *table, const sat_image_t *wtable, const uint16_t *d_radius_q8,
                                       size_t radius_pitch, uint16_t uniform_radius_q8, const sat_image_t *out,
                                       cudaStream_t stream) {
    sat_status_t st = sat__check_filter(table, wtable, d_radius_q8, radius_pitch, out);
    if (st != SAT_SUCCESS) return st;
    const dim3 block(32, 8);
    const size_t gx = (table->width + block.x - 1) / block.x, gy = (table->height + block.y - 1) / block.y;
    if (gx > 0x7fffffffu) return SAT_ERROR_INVALID_ARGUMENT;
    const dim3 grid((unsigned)gx, (unsigned)(gy < 65535 ? gy : 65535)); // y loops beyond 65535 blocks
    const unsigned char *t = static_cast<const unsigned char *>(table->data);
    const unsigned char *wt = wtable ? static_cast<const unsigned char *>(wtable->data) : nullptr;
    const unsigned char *r = reinterpret_cast<const unsigned char *>(d_radius_q8);
    unsigned char *o = static_cast<unsigned char *>(out->data);
    const size_t wp = wtable ? wtable->pitch : 0, W = table->width, H = table->height;
    const int o16 = out->type == SAT_U16;
    auto launch = [&](auto kernel) {
        kernel<<<grid, block, 0, stream>>>(t, table->pitch, wt, wp, W, H, r, radius_pitch, uniform_radius_q8, o,
                                           out->pitch, o16);
    };
    switch (table->channels) {
    case 1: launch(filter_kernel<1>); break;
    case 2: launch(filter_kernel<2>); break;
    case 3: launch(filter_kernel<3>); break;
    case 4: launch(filter_kernel<4>); break;
    default: return SAT_ERROR_INVALID_ARGUMENT;
    }
    return cuda_status(cudaGetLastError());
}
