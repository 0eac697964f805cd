/* jpeg_write.c -- JPEG out: the 8-bit samples an encoder takes, TurboJPEG's
 * encoder, and img_write's JPEG path (nvJPEG first when asked, TurboJPEG
 * otherwise or when nvJPEG fails). */
#define _POSIX_C_SOURCE 200809L
#include "common/jpeg_io.h"
#include "image_private.h"
#include "jpeg_private.h"

#include <turbojpeg.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- options ----------------------------------------------------------------- */

static int subsampling_writable(int s)
{
    return s == IMG_JPEG_SUB_DEFAULT || s == IMG_JPEG_SUB_420 || s == IMG_JPEG_SUB_422 || s == IMG_JPEG_SUB_444;
}

int img__jpeg_check_opts(const char *path, const img_write_opts_t *opts, char *err, size_t errlen)
{
    if (!opts)
        return 0;
    if (opts->jpeg_quality != 0 && (opts->jpeg_quality < 1 || opts->jpeg_quality > 100)) {
        img__err(err, errlen, "%s: JPEG quality %d out of range 1..100", path, opts->jpeg_quality);
        return -1;
    }
    if (!subsampling_writable(opts->jpeg_subsampling)) {
        img__err(err, errlen, "%s: JPEG subsampling %d is not 4:2:0, 4:2:2 or 4:4:4", path, opts->jpeg_subsampling);
        return -1;
    }
    return 0;
}

int img__jpeg_check_size(const char *path, const img_t *img, char *err, size_t errlen)
{
    if (img->width > IMG_JPEG_MAX_SIDE || img->height > IMG_JPEG_MAX_SIDE) {
        img__err(err, errlen, "%s: %dx%d is too large for the JPEG writer (at most %d pixels a side)", path,
                 img->width, img->height, IMG_JPEG_MAX_SIDE);
        return -1;
    }
    return 0;
}

const char *img_jpeg_subsampling_name(img_jpeg_subsampling_t s)
{
    switch (s) {
    case IMG_JPEG_SUB_DEFAULT: return "default";
    case IMG_JPEG_SUB_420: return "4:2:0";
    case IMG_JPEG_SUB_422: return "4:2:2";
    case IMG_JPEG_SUB_444: return "4:4:4";
    case IMG_JPEG_SUB_GRAY: return "gray";
    case IMG_JPEG_SUB_440: return "4:4:0";
    case IMG_JPEG_SUB_411: return "4:1:1";
    case IMG_JPEG_SUB_OTHER: break;
    }
    return "other";
}

int img_jpeg_parse_subsampling(const char *text, img_jpeg_subsampling_t *out)
{
    static const struct {
        const char *a, *b;
        img_jpeg_subsampling_t s;
    } names[] = {{"420", "4:2:0", IMG_JPEG_SUB_420},
                 {"422", "4:2:2", IMG_JPEG_SUB_422},
                 {"444", "4:4:4", IMG_JPEG_SUB_444}};
    if (!text || !out)
        return -1;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
        if (strcmp(text, names[i].a) == 0 || strcmp(text, names[i].b) == 0) {
            *out = names[i].s;
            return 0;
        }
    return -1;
}

/* ---- the samples --------------------------------------------------------------- */

uint8_t *img_jpeg_samples(const img_t *img, int *channels)
{
    if (!img || !img->pixels || img->width < 1 || img->height < 1 || img->channels < 1 || img->channels > 4 ||
        (img->bits != 8 && img->bits != 16) || !channels)
        return NULL;
    const int ch = img->channels;
    const int och = ch >= 3 ? 3 : 1; /* alpha, when present, is the last channel: dropped */
    const size_t n = img_pixel_count(img);
    uint8_t *buf = (uint8_t *)malloc(n * (size_t)och);
    if (!buf)
        return NULL;
    for (size_t i = 0; i < n; ++i)
        for (int c = 0; c < och; ++c)
            buf[i * (size_t)och + (size_t)c] = img__sample8(img, i * (size_t)ch + (size_t)c);
    *channels = och;
    return buf;
}

/* ---- TurboJPEG -------------------------------------------------------------------- */

static int tj_subsampling(img_jpeg_subsampling_t s, int channels)
{
    if (channels == 1)
        return TJSAMP_GRAY;
    switch (s) {
    case IMG_JPEG_SUB_422: return TJSAMP_422;
    case IMG_JPEG_SUB_444: return TJSAMP_444;
    default: return TJSAMP_420;
    }
}

int img_jpeg_encode_turbo(const uint8_t *px, int width, int height, int channels, int quality,
                          img_jpeg_subsampling_t subsampling, uint8_t **jpeg, size_t *len, char *err,
                          size_t errlen)
{
    if (!px || !jpeg || !len || width < 1 || height < 1 || width > IMG_JPEG_MAX_SIDE || height > IMG_JPEG_MAX_SIDE ||
        (channels != 1 && channels != 3 && channels != 4) || quality < 0 || quality > 100 ||
        !subsampling_writable((int)subsampling)) {
        img__err(err, errlen, "img_jpeg_encode_turbo: invalid arguments");
        return -1;
    }
    const int sub = tj_subsampling(subsampling, channels);
    /* The worst case for any content (tjBufSize), in our own buffer: with
       TJFLAG_NOREALLOC TurboJPEG writes into it and never reallocates, so
       the result is plain malloc'd memory for every encoder alike. */
    const unsigned long cap = tjBufSize(width, height, sub);
    if (cap == (unsigned long)-1) {
        img__err(err, errlen, "TurboJPEG: cannot size a %dx%d JPEG (%s)", width, height, tjGetErrorStr2(NULL));
        return -1;
    }
    unsigned char *buf = (unsigned char *)malloc(cap);
    tjhandle h = buf ? tjInitCompress() : NULL;
    if (!buf || !h) {
        img__err(err, errlen, "out of memory for a %dx%d JPEG", width, height);
        free(buf);
        return -1;
    }
    unsigned long size = cap;
    const int flags = TJFLAG_NOREALLOC | TJFLAG_ACCURATEDCT;
    /* TJPF_RGBX: TurboJPEG reads R, G, B and skips the fourth byte. */
    const int pf = channels == 1 ? TJPF_GRAY : channels == 3 ? TJPF_RGB : TJPF_RGBX;
    if (tjCompress2(h, px, width, 0, height, pf, &buf, &size, sub,
                    quality ? quality : 90, flags) != 0) {
        img__err(err, errlen, "the TurboJPEG encoder failed: %s", tjGetErrorStr2(h));
        tjDestroy(h);
        free(buf);
        return -1;
    }
    tjDestroy(h);
    *jpeg = buf;
    *len = (size_t)size;
    return 0;
}

/* ---- img_write's JPEG path ------------------------------------------------------- */

/* The samples an encoder takes for *img (gray, RGB, or for TurboJPEG also
 * RGB plus an ignored fourth byte): 8-bit gray, RGB and RGBA images are used
 * in place, everything else goes through img_jpeg_samples into *copy
 * (which the caller frees). NULL when out of memory. */
static const uint8_t *encoder_samples(const img_t *img, int rgbx_ok, int *channels, uint8_t **copy)
{
    *copy = NULL;
    if (img->bits == 8 && (img->channels == 1 || img->channels == 3 || (rgbx_ok && img->channels == 4))) {
        *channels = img->channels;
        return (const uint8_t *)img->pixels;
    }
    *copy = img_jpeg_samples(img, channels);
    return *copy;
}

int img__jpeg_write(FILE *fp, const img_t *img, const img_write_opts_t *opts, char *msg, size_t msglen, int *io)
{
    const int quality = opts && opts->jpeg_quality ? opts->jpeg_quality : 90;
    const img_jpeg_subsampling_t sub = opts ? (img_jpeg_subsampling_t)opts->jpeg_subsampling : IMG_JPEG_SUB_DEFAULT;
    img_write_report_t *report = opts ? opts->report : NULL;
    uint8_t *jpeg = NULL, *copy = NULL;
    size_t len = 0;
    int ch = 0, rc = -1;
    const char *encoder = "nvJPEG";
    if (opts && opts->jpeg_gpu && img_jpeg_gpu_built()) {
        char why[200];
        const uint8_t *px = encoder_samples(img, 0, &ch, &copy);
        if (!px)
            snprintf(why, sizeof why, "out of memory");
        else
            rc = img_jpeg_encode_nvjpeg(px, img->width, img->height, ch, quality, sub, &jpeg, &len, why, sizeof why);
        free(copy);
        if (rc != 0 && report)
            snprintf(report->note, sizeof report->note, "nvJPEG failed (%s); encoded with TurboJPEG instead", why);
    }
    if (rc != 0) {
        encoder = "TurboJPEG";
        const uint8_t *px = encoder_samples(img, 1, &ch, &copy);
        if (!px) {
            snprintf(msg, msglen, "out of memory");
            return -1;
        }
        rc = img_jpeg_encode_turbo(px, img->width, img->height, ch, quality, sub, &jpeg, &len, msg, msglen);
        free(copy);
        if (rc != 0)
            return -1;
    }
    if (fwrite(jpeg, 1, len, fp) != len) {
        snprintf(msg, msglen, "write error: %s", strerror(errno));
        *io = 1;
        free(jpeg);
        return -1;
    }
    free(jpeg);
    if (report)
        snprintf(report->jpeg_encoder, sizeof report->jpeg_encoder, "%s", encoder);
    return 0;
}
