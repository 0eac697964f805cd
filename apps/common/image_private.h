/* image_private.h -- helpers shared by the image_io sources (not installed,
 * not for the programs). */
#ifndef LIBSCAN_APPS_IMAGE_PRIVATE_H
#define LIBSCAN_APPS_IMAGE_PRIVATE_H

#include <stddef.h>
#include <stdio.h>

#include "common/image_io.h"

/* Format one error line into err[errlen] (when err != NULL and errlen > 0). */
void img__err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* 1 on a little-endian machine: 16-bit samples then need swapping to and
 * from PNG's big-endian order. */
int img__little_endian(void);

/* Write img as a PNG to fp (png_write.c): zlib level 0..9, threads as
 * img_write_opts_t.threads. Returns 0, or -1 with the reason in msg and *io
 * set when writing the file failed (not the encoder). */
int img__write_png(FILE *fp, const img_t *img, int level, int threads, char *msg, size_t msglen, int *io);

#endif
