/* jpeg_io.h -- JPEG in memory for the libscan programs: encode with
 * TurboJPEG (libjpeg-turbo, on the CPU) or nvJPEG (on the GPU, when the
 * CUDA toolkit had it at configure time), decode with TurboJPEG. img_write
 * and img_read (image_io.h) use these for files; this header is for the
 * callers that want the bytes (a program that keeps its pixels on the GPU,
 * the tests that compare the two encoders).
 *
 * Conventions as image_io.h's: 0 on success, -1 on failure with one line
 * (no newline) in err[errlen] when err is not NULL and errlen > 0. These
 * work on memory, so the messages name no file: a caller that has one puts
 * its path in front. Encoded JPEGs are returned in a malloc'd buffer
 * (release it with free()). Nothing is printed; no global state except
 * nvJPEG's handle (below), so the functions are safe on several threads. */
#ifndef LIBSCAN_APPS_JPEG_IO_H
#define LIBSCAN_APPS_JPEG_IO_H

#include "common/image_io.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The largest width or height a JPEG can have (16-bit fields of its frame
 * header). */
#define IMG_JPEG_MAX_SIDE 65535

/* The 8-bit samples a JPEG encoder takes for *img, in a malloc'd buffer of
 * width * height * *channels bytes: gray (1 channel) for gray and gray +
 * alpha, RGB (3) for RGB and RGBA. The alpha channel is dropped and the
 * colour samples are kept as stored (straight alpha, not composited), as
 * ImageMagick's `convert in.png out.jpg` does; 16-bit samples are rounded
 * to 8 bits as img_write does for every 8-bit format. NULL for an invalid
 * image or out of memory. */
uint8_t *img_jpeg_samples(const img_t *img, int *channels);

/* Encode width x height 8-bit samples (channels 1 = gray, 3 = RGB, 4 = RGB
 * and a fourth byte that is skipped, e.g. alpha; interleaved, rows packed,
 * top row first) as a baseline JFIF JPEG with
 * TurboJPEG: IJG quality scaling of the standard tables (quality 1..100, 0 =
 * 90), the accurate forward DCT, standard Huffman tables, chroma
 * subsampling as asked (IMG_JPEG_SUB_DEFAULT = 4:2:0, 420, 422, 444; gray
 * input is always a one-component JPEG). On success *jpeg (malloc'd) and
 * *len receive the file's bytes. */
int img_jpeg_encode_turbo(const uint8_t *px, int width, int height, int channels, int quality,
                          img_jpeg_subsampling_t subsampling, uint8_t **jpeg, size_t *len, char *err,
                          size_t errlen);

/* 1 when this build has nvJPEG (CUDA::nvjpeg and nvjpeg.h were found at
 * configure time), else 0: then the img_jpeg_encode_nvjpeg* functions only
 * fail, saying so. */
int img_jpeg_gpu_built(void);

/* The same encoding with nvJPEG on the current CUDA device: same
 * arguments (but channels 1 or 3 only), the same subsampling (gray through
 * nvJPEG's one-component GRAY sampling), standard Huffman tables, and the
 * very quantisation tables TurboJPEG uses for that quality (copied from a
 * tiny JPEG TurboJPEG encodes, not left to nvJPEG's own quality scale). The
 * bytes differ from TurboJPEG's (another forward DCT, colour conversion and
 * chroma downsampling), the decoded pixels only by rounding. The samples are copied to the device first.
 * Fails (-1, the reason in err) without nvJPEG in the build, without a
 * usable GPU, or on any nvJPEG or CUDA error; the device is then left as it
 * was (nothing allocated stays behind). The first call in a process creates
 * nvJPEG's handle (kept for later calls; it takes some milliseconds). */
int img_jpeg_encode_nvjpeg(const uint8_t *px, int width, int height, int channels, int quality,
                           img_jpeg_subsampling_t subsampling, uint8_t **jpeg, size_t *len, char *err,
                           size_t errlen);

/* The same from samples already in device memory: d_px holds height rows of
 * width * channels bytes, pitch bytes apart (pitch >= width * channels).
 * cuda_stream is a cudaStream_t (NULL: a stream of the call's own); the
 * call returns when the bytes are in *jpeg. */
int img_jpeg_encode_nvjpeg_device(const void *d_px, size_t pitch, int width, int height, int channels,
                                  int quality, img_jpeg_subsampling_t subsampling, void *cuda_stream,
                                  uint8_t **jpeg, size_t *len, char *err, size_t errlen);

/* Decode a JPEG held in memory (len bytes) into *out, as img_read_jpeg
 * describes (which calls this); out is left empty (img_init) on failure.
 * Messages name no file ("truncated JPEG file (...)"). */
int img_jpeg_decode(const uint8_t *data, size_t len, uint64_t max_pixels, img_t *out, char *err,
                    size_t errlen);

/* "4:2:0", "4:2:2", "4:4:4", "gray", "4:4:0", "4:1:1", "other" or
 * "default"; never NULL. */
const char *img_jpeg_subsampling_name(img_jpeg_subsampling_t subsampling);

/* Parse a subsampling as a user writes it: "420", "4:2:0", "422", "4:2:2",
 * "444", "4:4:4". 0, or -1 for anything else (*out unchanged). */
int img_jpeg_parse_subsampling(const char *text, img_jpeg_subsampling_t *out);

#ifdef __cplusplus
}
#endif
#endif
