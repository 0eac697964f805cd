/* image_private.h -- helpers shared by the image_io sources (not installed,
 * not for the programs). */
#ifndef LIBSCAN_APPS_IMAGE_PRIVATE_H
#define LIBSCAN_APPS_IMAGE_PRIVATE_H

#include "common/image_io.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Format one error line into err[errlen] (when err != NULL and errlen > 0). */
void img__err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* 1 on a little-endian machine: 16-bit samples then need swapping to and
 * from PNG's big-endian order. */
int img__little_endian(void);

/* Sample i (an index into the interleaved samples) of *img as 8 bits: an
 * 8-bit sample as it is, a 16-bit one rounded, (v * 255 + 32767) / 65535,
 * for the 8-bit formats (JPEG, BMP, TGA). */
static inline uint8_t img__sample8(const img_t *img, size_t i)
{
    if (img->bits == 8)
        return ((const uint8_t *)img->pixels)[i];
    const uint32_t v = ((const uint16_t *)img->pixels)[i];
    return (uint8_t)((v * 255u + 32767u) / 65535u);
}

/* Check the PNG options of opts (NULL: the defaults) before anything is
 * created (png_write.c): 0 with *level the zlib level 0..9 to use, or -1
 * with one line naming path in err. */
int img__png_check_opts(const char *path, const img_write_opts_t *opts, int *level, char *err, size_t errlen);

/* Write img as a PNG to fp (png_write.c): zlib level 0..9, threads as
 * img_write_opts_t.threads. Returns 0, or -1 with the reason in msg and *io
 * set when writing the file failed (not the encoder). */
int img__write_png(FILE *fp, const img_t *img, int level, int threads, char *msg, size_t msglen, int *io);

#endif
