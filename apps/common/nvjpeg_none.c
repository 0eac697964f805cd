/* nvjpeg_none.c -- the nvJPEG entry points of a build without nvJPEG (CMake
 * found no CUDA::nvjpeg or no nvjpeg.h): they fail, saying so, and img_write
 * encodes with TurboJPEG. nvjpeg_write.c is the real thing. */
#include "common/jpeg_io.h"
#include "image_private.h"

static const char kNotBuilt[] = "this build has no nvJPEG (the CUDA toolkit had no CUDA::nvjpeg or nvjpeg.h "
                                "at configure time)";

int img_jpeg_gpu_built(void)
{
    return 0;
}

int img_jpeg_encode_nvjpeg(const uint8_t *px, int width, int height, int channels, int quality,
                           img_jpeg_subsampling_t subsampling, uint8_t **jpeg, size_t *len, char *err,
                           size_t errlen)
{
    (void)px, (void)width, (void)height, (void)channels, (void)quality, (void)subsampling, (void)jpeg, (void)len;
    img__err(err, errlen, "%s", kNotBuilt);
    return -1;
}

int img_jpeg_encode_nvjpeg_device(const void *d_px, size_t pitch, int width, int height, int channels,
                                  int quality, img_jpeg_subsampling_t subsampling, void *cuda_stream,
                                  uint8_t **jpeg, size_t *len, char *err, size_t errlen)
{
    (void)d_px, (void)pitch, (void)width, (void)height, (void)channels, (void)quality, (void)subsampling;
    (void)cuda_stream, (void)jpeg, (void)len;
    img__err(err, errlen, "%s", kNotBuilt);
    return -1;
}
