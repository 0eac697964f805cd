/* jpeg_private.h -- what image_write.c and image.c call in the JPEG sources
 * (not installed, not for the programs: they use image_io.h and jpeg_io.h). */
#ifndef LIBSCAN_APPS_JPEG_PRIVATE_H
#define LIBSCAN_APPS_JPEG_PRIVATE_H

#include "common/image_io.h"

#include <stddef.h>
#include <stdio.h>

/* img_write's check of its options (quality, subsampling), before anything
 * is created: 0, or -1 with "<path>: ..." in err. */
int img__jpeg_check_opts(const char *path, const img_write_opts_t *opts, char *err, size_t errlen);

/* img_write's check that *img fits a JPEG (sides up to IMG_JPEG_MAX_SIDE),
 * before anything is created: 0, or -1 with "<path>: ..." in err. */
int img__jpeg_check_size(const char *path, const img_t *img, char *err, size_t errlen);

/* Encode *img as opts say (nvJPEG first when opts->jpeg_gpu, else or on
 * its failure TurboJPEG) and write the bytes to fp; fill opts->report.
 * 0, or -1 with the reason in msg (no path) and *io = 1 when writing to fp
 * failed rather than the encoder. */
int img__jpeg_write(FILE *fp, const img_t *img, const img_write_opts_t *opts, char *msg, size_t msglen, int *io);

/* img_describe for an image read from a JPEG. */
const char *img__jpeg_describe(const img_t *img, char *buf, size_t buflen);

#endif
