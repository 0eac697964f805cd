/* pixels.h -- an image as the file holds it (8- or 16-bit samples,
 * interleaved, straight alpha last), and sample access by width, shared by
 * the host code and the GPU kernels of sat_blur. C99-clean, header only. */
#ifndef LIBSCAN_SAT_BLUR_PIXELS_H
#define LIBSCAN_SAT_BLUR_PIXELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define BLUR_HD __host__ __device__
#else
#define BLUR_HD
#endif

/* Pixels as decoded: sample (x, y, c) is data[(y * width + x) * channels + c],
 * uint8_t when bits is 8, uint16_t (native byte order) when 16. Channels:
 * 1 gray, 2 gray + alpha, 3 RGB, 4 RGBA; colour sRGB-encoded, alpha linear
 * and straight (not premultiplied). The same layout as apps/common's img_t. */
typedef struct blur_pixels {
    void *data;
    int bits;     /* 8 or 16 */
    int channels; /* 1..4 */
    size_t width, height;
} blur_pixels_t;

/* 1 when the layout has an alpha channel (gray + alpha, RGBA). */
static inline BLUR_HD int blur_has_alpha(int channels) { return channels == 2 || channels == 4; }

/* Sample i of an array of `bytes`-byte unsigned integers (1, 2, 4 or 8). */
static inline BLUR_HD uint64_t blur_load(const void *p, size_t i, int bytes) {
    switch (bytes) {
    case 1: return ((const uint8_t *)p)[i];
    case 2: return ((const uint16_t *)p)[i];
    case 4: return ((const uint32_t *)p)[i];
    default: return ((const uint64_t *)p)[i];
    }
}

/* Stores v (which fits) as sample i of such an array. */
static inline BLUR_HD void blur_store(void *p, size_t i, int bytes, uint64_t v) {
    switch (bytes) {
    case 1: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case 2: ((uint16_t *)p)[i] = (uint16_t)v; break;
    case 4: ((uint32_t *)p)[i] = (uint32_t)v; break;
    default: ((uint64_t *)p)[i] = v; break;
    }
}

#endif
