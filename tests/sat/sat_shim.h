/* sat_shim.h -- C declarations of sat_shim.cu: what test_sat_lib.c needs from
 * the SAT family's device layer (<libscan/cuda/sat_kernels.cuh>). */
#ifndef SAT_TEST_SHIM_H
#define SAT_TEST_SHIM_H
#include <stddef.h>
#include <libscan/sat.h>
#ifdef __cplusplus
extern "C" {
#endif

/* The tile of libscan_sat_build for a table of `channels` elements of
 * `table` per pixel (sat_tuning.cuh), to place test sizes at tile edges;
 * 0 x 0 for a table type or channel count the build does not take. Host
 * only, no CUDA call. */
void sat_test_tile(int channels, libscan_dtype_t table, size_t *tile_w, size_t *tile_h);

/* 1 when sat_test_build_weighted takes this pair and channel count: u16 ->
 * u32 with 1..4 channels (the blur's tables), u8 -> u32 with 4, u16 -> u64
 * with 3, f32 -> f32 with 1, f32 -> f64 with 2 (every pair and every
 * channel count at least once). */
int sat_test_weighted_supported(libscan_dtype_t in, libscan_dtype_t table, int channels);

/* libscan::sat::build_sat with a transform that multiplies every channel of
 * the pixel (x, y) by 1 + (7 y + 3 x) mod 5 in the table's type (a pure
 * function of row and column; test_sat_lib.c computes its reference with
 * the same formula), from the device image `in` into
 * the device table `out` (descriptors as the C API's, already checked by the
 * caller), with temp from cudaMalloc, synchronised. Returns a cudaError_t
 * (as int), or -1 for an unsupported pair or channel count. */
int sat_test_build_weighted(const libscan_sat_image_t *in, const libscan_sat_image_t *out);

#ifdef __cplusplus
}
#endif
#endif
