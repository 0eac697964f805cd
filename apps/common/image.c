/* image.c -- img_t bookkeeping: init/alloc/free, sizes, format names and
 * the in-words description of where an image came from. */
#define _GNU_SOURCE /* MADV_HUGEPAGE */
#include "common/image_io.h"
#include "image_private.h"
#include "jpeg_private.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>

void img__err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

int img__little_endian(void)
{
    const uint16_t one = 1;
    unsigned char first;
    memcpy(&first, &one, 1);
    return first == 1;
}

void img_init(img_t *img)
{
    if (!img)
        return;
    memset(img, 0, sizeof *img);
    img->source_color_type = IMG_SOURCE_NONE;
}

int img_alloc(img_t *img, int width, int height, int channels, int bits, char *err, size_t errlen)
{
    if (!img) {
        img__err(err, errlen, "img_alloc: no image given");
        return -1;
    }
    img_init(img);
    if (width < 1 || height < 1 || channels < 1 || channels > 4 || (bits != 8 && bits != 16)) {
        img__err(err, errlen, "img_alloc: invalid image shape %dx%d, %d channels, %d bits", width, height,
                 channels, bits);
        return -1;
    }
    /* width, height < 2^31 and channels * bytes <= 8: the product fits 64 bits;
     * check it fits size_t on narrower machines. */
    uint64_t bytes = (uint64_t)width * (uint64_t)height * (uint64_t)channels * (uint64_t)(bits / 8);
    if (bytes > (uint64_t)SIZE_MAX) {
        img__err(err, errlen, "img_alloc: %dx%d image too large for this machine", width, height);
        return -1;
    }
    void *p = calloc((size_t)bytes, 1);
    if (!p) {
        img__err(err, errlen, "img_alloc: out of memory for a %dx%d image (%llu bytes)", width, height,
                 (unsigned long long)bytes);
        return -1;
    }
    img->width = width;
    img->height = height;
    img->channels = channels;
    img->bits = bits;
    img->pixels = p;
    img->has_alpha = (channels == 2 || channels == 4);
    return 0;
}

void img_free(img_t *img)
{
    if (!img)
        return;
    free(img->pixels);
    img_init(img);
}

size_t img_pixel_count(const img_t *img)
{
    if (!img || !img->pixels || img->width < 1 || img->height < 1)
        return 0;
    return (size_t)img->width * (size_t)img->height;
}

size_t img_byte_count(const img_t *img)
{
    return img_pixel_count(img) * (size_t)(img ? img->channels : 0) * (size_t)(img && img->bits == 16 ? 2 : 1);
}

img_format_t img_format_from_path(const char *path)
{
    if (!path)
        return IMG_FORMAT_UNKNOWN;
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    if (!dot || dot == base) /* no extension, or a hidden file's name only */
        return IMG_FORMAT_UNKNOWN;
    const char *ext = dot + 1;
    if (strcasecmp(ext, "png") == 0)
        return IMG_FORMAT_PNG;
    if (strcasecmp(ext, "jpg") == 0 || strcasecmp(ext, "jpeg") == 0)
        return IMG_FORMAT_JPEG;
    if (strcasecmp(ext, "bmp") == 0)
        return IMG_FORMAT_BMP;
    if (strcasecmp(ext, "tga") == 0)
        return IMG_FORMAT_TGA;
    return IMG_FORMAT_UNKNOWN;
}

const char *img_format_name(img_format_t format)
{
    switch (format) {
    case IMG_FORMAT_PNG: return "PNG";
    case IMG_FORMAT_JPEG: return "JPEG";
    case IMG_FORMAT_BMP: return "BMP";
    case IMG_FORMAT_TGA: return "TGA";
    case IMG_FORMAT_UNKNOWN: break;
    }
    return "unknown";
}

static const char *layout_name(int channels)
{
    switch (channels) {
    case 1: return "gray";
    case 2: return "gray+alpha";
    case 3: return "RGB";
    case 4: return "RGBA";
    }
    return "?";
}

static const char *source_type_name(int color_type)
{
    switch (color_type) {
    case IMG_SOURCE_GRAY: return "gray";
    case IMG_SOURCE_RGB: return "RGB";
    case IMG_SOURCE_PALETTE: return "palette";
    case IMG_SOURCE_GRAY_ALPHA: return "gray+alpha";
    case IMG_SOURCE_RGBA: return "RGBA";
    }
    return "unknown colour type";
}

const char *img_describe(const img_t *img, char *buf, size_t buflen)
{
    if (!buf || buflen == 0)
        return buf;
    if (!img || !img->pixels) {
        snprintf(buf, buflen, "empty image");
        return buf;
    }
    if (img->source_format == IMG_FORMAT_JPEG)
        return img__jpeg_describe(img, buf, buflen);
    if (img->source_color_type == IMG_SOURCE_NONE) {
        snprintf(buf, buflen, "%d-bit %s %dx%d", img->bits, layout_name(img->channels), img->width, img->height);
        return buf;
    }
    snprintf(buf, buflen, "PNG %d-bit %s%s%s, %dx%d -> %d-bit %s", img->source_bits,
             source_type_name(img->source_color_type), img->had_trns ? " with tRNS" : "",
             img->interlaced ? ", interlaced" : "", img->width, img->height, img->bits,
             layout_name(img->channels));
    return buf;
}
