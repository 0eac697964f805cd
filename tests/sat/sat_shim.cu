// sat_shim.cu -- the SAT family's device layer for test_sat_lib.c: the tile
// shapes (to put sizes on tile edges) and build_sat with a load transform,
// which the C API cannot reach.
#include <cstdint>
#include <libscan/cuda/sat_kernels.cuh>
#include "sat_shim.h"

namespace {

// Every channel times 1 + (7 row + 3 col) mod 5, in the table's type.
struct WeightByPosition {
    template <typename V> __device__ V operator()(size_t row, size_t col, const V &v) const {
        const unsigned w = 1u + (unsigned)((7 * row + 3 * col) % 5);
        V r;
#pragma unroll
        for (int c = 0; c < (int)(sizeof(v.v) / sizeof(v.v[0])); ++c) r.v[c] = v.v[c] * w;
        return r;
    }
};

template <typename In, typename Acc, int C>
cudaError_t build(const libscan_sat_image_t *in, const libscan_sat_image_t *out) {
    const size_t bytes = libscan::sat::sat_temp_bytes(in->width, in->height, C, sizeof(Acc));
    if (bytes == 0) return cudaErrorInvalidValue;
    void *temp = nullptr;
    cudaError_t e = cudaMalloc(&temp, bytes);
    if (e != cudaSuccess) return e;
    e = libscan::sat::build_sat<In, Acc, C>(static_cast<const unsigned char *>(in->data), in->pitch, in->width,
                                            in->height, static_cast<unsigned char *>(temp),
                                            static_cast<unsigned char *>(out->data), out->pitch, 0,
                                            WeightByPosition());
    const cudaError_t s = cudaDeviceSynchronize();
    cudaFree(temp);
    return e != cudaSuccess ? e : s;
}

} // namespace

extern "C" void sat_test_tile(int channels, libscan_dtype_t table, size_t *tile_w, size_t *tile_h) {
    const size_t es = libscan_dtype_size(table);
    const bool ok = (table == LIBSCAN_U32 || table == LIBSCAN_U64 || table == LIBSCAN_F32 || table == LIBSCAN_F64) &&
                    channels >= 1 && channels <= 4;
    const libscan::sat::SatTile t = libscan::sat::sat_tile(ok ? channels * (int)es : 0);
    *tile_w = t.w;
    *tile_h = t.h;
}

extern "C" int sat_test_weighted_supported(libscan_dtype_t in, libscan_dtype_t table, int channels) {
    if (in == LIBSCAN_U16 && table == LIBSCAN_U32) return channels >= 1 && channels <= 4;
    if (in == LIBSCAN_U8 && table == LIBSCAN_U32) return channels == 4;
    if (in == LIBSCAN_U16 && table == LIBSCAN_U64) return channels == 3;
    if (in == LIBSCAN_F32 && table == LIBSCAN_F32) return channels == 1;
    if (in == LIBSCAN_F32 && table == LIBSCAN_F64) return channels == 2;
    return 0;
}

extern "C" int sat_test_build_weighted(const libscan_sat_image_t *in, const libscan_sat_image_t *out) {
    if (!sat_test_weighted_supported(in->dtype, out->dtype, in->channels)) return -1;
    if (in->dtype == LIBSCAN_U16 && out->dtype == LIBSCAN_U32) {
        switch (in->channels) {
        case 1: return (int)build<uint16_t, uint32_t, 1>(in, out);
        case 2: return (int)build<uint16_t, uint32_t, 2>(in, out);
        case 3: return (int)build<uint16_t, uint32_t, 3>(in, out);
        default: return (int)build<uint16_t, uint32_t, 4>(in, out);
        }
    }
    if (in->dtype == LIBSCAN_U8) return (int)build<uint8_t, uint32_t, 4>(in, out);
    if (in->dtype == LIBSCAN_U16) return (int)build<uint16_t, unsigned long long, 3>(in, out);
    if (out->dtype == LIBSCAN_F32) return (int)build<float, float, 1>(in, out);
    return (int)build<float, double, 2>(in, out);
}
