// sat_gpu.cu -- the GPU half of the SAT library: libscan_sat_build (build_sat of
// sat_kernels.cuh: tile sums, two carry scans, the table), libscan_sat_box_sums
// and libscan_sat_box_filter.
#include <libscan/sat.h>
#include "core/entry.h"
#include "sat_internal.h"
#include "libscan/cuda/sat_kernels.cuh"
#include "filter_math.h"

#include <cuda_runtime.h>

using namespace libscan::sat;

namespace {

template <typename In, typename Acc, int C>
cudaError_t build_typed(const libscan_sat_image_t *in, const libscan_sat_image_t *out, unsigned char *temp,
                        cudaStream_t stream) {
    return build_sat<In, Acc, C>(static_cast<const unsigned char *>(in->data), in->pitch, in->width, in->height, temp,
                                 static_cast<unsigned char *>(out->data), out->pitch, stream);
}

template <typename In, typename Acc>
cudaError_t build_channels(const libscan_sat_image_t *in, const libscan_sat_image_t *out, unsigned char *temp,
                           cudaStream_t stream) {
    switch (in->channels) {
    case 1: return build_typed<In, Acc, 1>(in, out, temp, stream);
    case 2: return build_typed<In, Acc, 2>(in, out, temp, stream);
    case 3: return build_typed<In, Acc, 3>(in, out, temp, stream);
    case 4: return build_typed<In, Acc, 4>(in, out, temp, stream);
    }
    return cudaErrorInvalidValue; // refused before
}

struct Images {
    const libscan_sat_image_t *in, *out, *wtable;
    const uint16_t *radius;
    size_t radius_pitch;
    uint16_t uniform_q8;
    const libscan_box_t *boxes;
    size_t n;
    void *sums;
};

cudaError_t build_launch(void *ctx, void *temp_ptr, size_t, cudaStream_t stream) {
    const Images *c = static_cast<const Images *>(ctx);
    const libscan_sat_image_t *in = c->in, *out = c->out;
    unsigned char *temp = static_cast<unsigned char *>(temp_ptr);
    switch (in->dtype * 8 + out->dtype) {
    case LIBSCAN_U8 * 8 + LIBSCAN_U32: return build_channels<uint8_t, uint32_t>(in, out, temp, stream);
    case LIBSCAN_U16 * 8 + LIBSCAN_U32: return build_channels<uint16_t, uint32_t>(in, out, temp, stream);
    case LIBSCAN_U16 * 8 + LIBSCAN_U64: return build_channels<uint16_t, unsigned long long>(in, out, temp, stream);
    case LIBSCAN_U32 * 8 + LIBSCAN_U64: return build_channels<uint32_t, unsigned long long>(in, out, temp, stream);
    case LIBSCAN_U64 * 8 + LIBSCAN_U64:
        return build_channels<unsigned long long, unsigned long long>(in, out, temp, stream);
    case LIBSCAN_F32 * 8 + LIBSCAN_F32: return build_channels<float, float>(in, out, temp, stream);
    case LIBSCAN_F32 * 8 + LIBSCAN_F64: return build_channels<float, double>(in, out, temp, stream);
    }
    return cudaErrorInvalidValue; // refused before
}

void add_image(libscan__call_t *c, const libscan_sat_image_t *img, int writes) {
    const size_t es = libscan_dtype_size(img->dtype);
    libscan__call_buf(c, img->data, libscan__sat_image_span(img), es, writes, -1);
}

// One thread per column, looping down the rows. C and Wide (a uint64 table)
// are template parameters so the per-channel loops of filter_math.h unroll,
// the corners of a 4-channel table load as vectors and a uint32 table's
// kernel carries no 64-bit box arithmetic.
template <int C, bool Wide>
__global__ void filter_kernel(const unsigned char *__restrict__ t, size_t pitch, const unsigned char *__restrict__ wt,
                              size_t wpitch, size_t width, size_t height, const unsigned char *__restrict__ radius,
                              size_t rpitch, unsigned uniform_q8, unsigned char *__restrict__ out, size_t opitch,
                              int out_bytes) {
    const size_t x = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= width) return;
    for (size_t y = (size_t)blockIdx.y * blockDim.y + threadIdx.y; y < height; y += (size_t)gridDim.y * blockDim.y) {
        const unsigned r = radius ? __ldg(reinterpret_cast<const uint16_t *>(radius + y * rpitch) + x) : uniform_q8;
        uint64_t v[4];
        libscan__sat_filter_pixel(t, pitch, C, Wide, wt, wpitch, width, height, x, y, r, v, NULL);
        for (int c = 0; c < C; ++c) libscan__sat_store(out + y * opitch, x * C + c, out_bytes, v[c]);
    }
}

} // namespace

extern "C" libscan_status_t libscan_sat_temp_bytes(size_t width, size_t height, int channels, libscan_dtype_t table,
                                                  size_t *temp_bytes) {
    if (!temp_bytes) return LIBSCAN_ERROR_NULL_POINTER;
    if (table != LIBSCAN_U32 && table != LIBSCAN_U64 && table != LIBSCAN_F32 && table != LIBSCAN_F64)
        return LIBSCAN_ERROR_INVALID_DTYPE;
    if (width < 1 || height < 1 || width > LIBSCAN_SAT_MAX_DIM || height > LIBSCAN_SAT_MAX_DIM || channels < 1 ||
        channels > 4)
        return LIBSCAN_ERROR_INVALID_ARGUMENT;
    // build_sat's carries (sat_kernels.cuh, sat_carry_layout: a few percent
    // of the table), plus the slack that lets libscan__enter align any d_temp.
    const size_t bytes = sat_temp_bytes(width, height, channels, libscan_dtype_size(table));
    if (bytes == 0 || bytes > SIZE_MAX - LIBSCAN_TEMP_ALIGNMENT) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    *temp_bytes = libscan__with_slack(bytes);
    return LIBSCAN_SUCCESS;
}

extern "C" libscan_status_t libscan_sat_build(const libscan_sat_image_t *in, const libscan_sat_image_t *out,
                                             const libscan_sat_opts_t *opts, cudaStream_t stream) {
    static const libscan_sat_opts_t defaults = LIBSCAN_SAT_OPTS_INIT;
    if (!opts) opts = &defaults;
    libscan_status_t st = libscan__sat_check_build(in, out);
    if (st != LIBSCAN_SUCCESS) return st;
    size_t need = 0;
    if ((st = libscan_sat_temp_bytes(in->width, in->height, in->channels, out->dtype, &need)) != LIBSCAN_SUCCESS)
        return st;
    Images ctx{};
    ctx.in = in;
    ctx.out = out;
    libscan__call_t c;
    libscan__call_init(&c, opts->d_temp, opts->temp_bytes, need);
    add_image(&c, in, 0);
    add_image(&c, out, 1);
    c.launch = build_launch;
    c.ctx = &ctx;
    return libscan__enter(&c, stream);
}

namespace {

cudaError_t sums_launch(void *ctx, void *, size_t, cudaStream_t stream) {
    const Images *c = static_cast<const Images *>(ctx);
    const libscan_sat_image_t *table = c->in;
    const size_t n = c->n;
    const unsigned threads = 256;
    const size_t want = (n + threads - 1) / threads;
    const unsigned blocks = (unsigned)(want < 65536 ? want : 65536);
    const unsigned char *t = static_cast<const unsigned char *>(table->data);
    const int32_t *b = reinterpret_cast<const int32_t *>(c->boxes);
    auto launch = [&](auto zero) {
        using Acc = decltype(zero);
        box_sums_kernel<Acc><<<blocks, threads, 0, stream>>>(t, table->pitch, table->channels, table->width,
                                                              table->height, b, n, static_cast<Acc *>(c->sums));
    };
    switch (table->dtype) {
    case LIBSCAN_U32: launch(uint32_t()); break;
    case LIBSCAN_U64: launch((unsigned long long)0); break;
    case LIBSCAN_F32: launch(float()); break;
    case LIBSCAN_F64: launch(double()); break;
    default: return cudaErrorInvalidValue; // refused before
    }
    return cudaGetLastError();
}

cudaError_t filter_launch(void *ctx, void *, size_t, cudaStream_t stream) {
    const Images *c = static_cast<const Images *>(ctx);
    const libscan_sat_image_t *table = c->in, *wtable = c->wtable, *out = c->out;
    const dim3 block(32, 8);
    const size_t gx = (table->width + block.x - 1) / block.x, gy = (table->height + block.y - 1) / block.y;
    const dim3 grid((unsigned)gx, (unsigned)(gy < 65535 ? gy : 65535)); // y loops beyond 65535 blocks
    const unsigned char *t = static_cast<const unsigned char *>(table->data);
    const unsigned char *wt = wtable ? static_cast<const unsigned char *>(wtable->data) : nullptr;
    const unsigned char *r = reinterpret_cast<const unsigned char *>(c->radius);
    unsigned char *o = static_cast<unsigned char *>(out->data);
    const size_t wp = wtable ? wtable->pitch : 0, W = table->width, H = table->height;
    const int ob = (int)libscan_dtype_size(out->dtype);
    auto launch = [&](auto kernel) {
        kernel<<<grid, block, 0, stream>>>(t, table->pitch, wt, wp, W, H, r, c->radius_pitch, c->uniform_q8, o,
                                           out->pitch, ob);
    };
    const bool wide = table->dtype == LIBSCAN_U64;
    switch (table->channels * 2 + (wide ? 1 : 0)) {
    case 2: launch(filter_kernel<1, false>); break;
    case 3: launch(filter_kernel<1, true>); break;
    case 4: launch(filter_kernel<2, false>); break;
    case 5: launch(filter_kernel<2, true>); break;
    case 6: launch(filter_kernel<3, false>); break;
    case 7: launch(filter_kernel<3, true>); break;
    case 8: launch(filter_kernel<4, false>); break;
    case 9: launch(filter_kernel<4, true>); break;
    default: return cudaErrorInvalidValue; // refused before
    }
    return cudaGetLastError();
}

} // namespace

extern "C" libscan_status_t libscan_sat_box_sums(const libscan_sat_image_t *table, const libscan_box_t *d_boxes,
                                                size_t n, void *d_sums, cudaStream_t stream) {
    libscan_status_t st = libscan__sat_check_sums(table, d_boxes, n, d_sums);
    if (st != LIBSCAN_SUCCESS) return st;
    Images ctx{};
    ctx.in = table;
    ctx.boxes = d_boxes;
    ctx.n = n;
    ctx.sums = d_sums;
    const size_t es = libscan_dtype_size(table->dtype);
    libscan__call_t c;
    libscan__call_init(&c, nullptr, 0, 0);
    add_image(&c, table, 0);
    libscan__call_buf(&c, d_boxes, n * sizeof(libscan_box_t), alignof(libscan_box_t), 0, -1);
    libscan__call_buf(&c, d_sums, libscan__sat_sums_bytes(table, n), es, 1, -1);
    c.empty = n == 0;
    c.launch = sums_launch;
    c.ctx = &ctx;
    return libscan__enter(&c, stream);
}

extern "C" libscan_status_t libscan_sat_box_filter(const libscan_sat_image_t *table, const libscan_sat_image_t *wtable,
                                                  const uint16_t *d_radius_q8, size_t radius_pitch,
                                                  uint16_t uniform_radius_q8, const libscan_sat_image_t *out,
                                                  cudaStream_t stream) {
    libscan_status_t st = libscan__sat_check_filter(table, wtable, d_radius_q8, radius_pitch, out);
    if (st != LIBSCAN_SUCCESS) return st;
    if ((table->width + 31) / 32 > 0x7fffffffu) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    Images ctx{};
    ctx.in = table;
    ctx.wtable = wtable;
    ctx.out = out;
    ctx.radius = d_radius_q8;
    ctx.radius_pitch = radius_pitch;
    ctx.uniform_q8 = uniform_radius_q8;
    libscan__call_t c;
    libscan__call_init(&c, nullptr, 0, 0);
    add_image(&c, table, 0);
    if (wtable) add_image(&c, wtable, 0);
    libscan__call_buf(&c, d_radius_q8, d_radius_q8 ? radius_pitch * (table->height - 1) + table->width * 2 : 0, 2, 0,
                      -1);
    add_image(&c, out, 1);
    c.launch = filter_launch;
    c.ctx = &ctx;
    return libscan__enter(&c, stream);
}
