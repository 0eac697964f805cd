/* jpeg_read.c -- JPEG in: the whole file into memory, decoded by TurboJPEG
 * into an img_t (gray or RGB, 8-bit), every libjpeg-turbo error or warning
 * turned into one message naming the file. */
#define _POSIX_C_SOURCE 200809L
#include "common/jpeg_io.h"
#include "image_private.h"
#include "jpeg_private.h"

#include <turbojpeg.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static img_jpeg_subsampling_t from_tj_subsampling(int tj, int colorspace)
{
    if (colorspace == TJCS_CMYK || colorspace == TJCS_YCCK)
        return IMG_JPEG_SUB_OTHER;
    switch (tj) {
    case TJSAMP_444: return IMG_JPEG_SUB_444;
    case TJSAMP_422: return IMG_JPEG_SUB_422;
    case TJSAMP_420: return IMG_JPEG_SUB_420;
    case TJSAMP_GRAY: return IMG_JPEG_SUB_GRAY;
    case TJSAMP_440: return IMG_JPEG_SUB_440;
    case TJSAMP_411: return IMG_JPEG_SUB_411;
    default: return IMG_JPEG_SUB_OTHER;
    }
}

/* libjpeg-turbo's words for the failure, made into ours: running out of
 * data is a truncated file, everything else a corrupt one with its reason. */
static void decode_error(tjhandle h, char *err, size_t errlen)
{
    const char *why = tjGetErrorStr2(h);
    if (!why || !why[0])
        why = "unknown error";
    if (strstr(why, "Premature end"))
        img__err(err, errlen, "truncated JPEG file (ends before the image is complete)");
    else
        img__err(err, errlen, "corrupt JPEG file (libjpeg-turbo: %s)", why);
}

/* Adobe-style CMYK (stored inverted: 255 = no ink) to RGB, in place: the
 * 4-byte pixels become 3-byte ones, front to back (pixel i's output never
 * overtakes its input). */
static void cmyk_to_rgb(uint8_t *px, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        const uint8_t *s = px + i * 4;
        const unsigned k = s[3];
        uint8_t rgb[3];
        for (int c = 0; c < 3; ++c)
            rgb[c] = (uint8_t)((s[c] * k + 127u) / 255u);
        memcpy(px + i * 3, rgb, 3);
    }
}

int img_jpeg_decode(const uint8_t *data, size_t len, uint64_t max_pixels, img_t *out, char *err, size_t errlen)
{
    if (!out) {
        img__err(err, errlen, "img_jpeg_decode: no output image given");
        return -1;
    }
    img_init(out);
    if (!data || len == 0) {
        img__err(err, errlen, "empty file, not a JPEG file");
        return -1;
    }
    if (len < 2 || data[0] != 0xff || data[1] != 0xd8) {
        img__err(err, errlen, len < 2 && data[0] == 0xff ? "truncated JPEG file (ends inside its first marker)"
                                                         : "not a JPEG file (bad signature)");
        return -1;
    }
    if (len > (size_t)(unsigned long)-1) {
        img__err(err, errlen, "file too large for the JPEG decoder");
        return -1;
    }
    if (!max_pixels)
        max_pixels = IMG_DEFAULT_MAX_PIXELS;
    tjhandle h = tjInitDecompress();
    if (!h) {
        img__err(err, errlen, "out of memory (TurboJPEG)");
        return -1;
    }
    int w = 0, ht = 0, sub = -1, cs = -1;
    if (tjDecompressHeader3(h, data, (unsigned long)len, &w, &ht, &sub, &cs) != 0) {
        decode_error(h, err, errlen);
        tjDestroy(h);
        return -1;
    }
    if (w < 1 || ht < 1) {
        /* libjpeg-turbo ends a stream that runs out inside the headers with
           a made-up EOI, so a missing frame header reads as a 0x0 one. */
        img__err(err, errlen, "corrupt or truncated JPEG file (no frame header with a size: %dx%d)", w, ht);
        tjDestroy(h);
        return -1;
    }
    if ((uint64_t)w * (uint64_t)ht > max_pixels) {
        img__err(err, errlen, "image too large: %dx%d = %llu pixels, the limit is %llu", w, ht,
                 (unsigned long long)((uint64_t)w * (uint64_t)ht), (unsigned long long)max_pixels);
        tjDestroy(h);
        return -1;
    }
    const int cmyk = (cs == TJCS_CMYK || cs == TJCS_YCCK);
    const int gray = (cs == TJCS_GRAY);
    const int pf = gray ? TJPF_GRAY : cmyk ? TJPF_CMYK : TJPF_RGB;
    const size_t dec_ch = gray ? 1 : cmyk ? 4 : 3;
    uint8_t *px = (uint8_t *)malloc((size_t)w * (size_t)ht * dec_ch);
    if (!px) {
        img__err(err, errlen, "out of memory for a %dx%d image", w, ht);
        tjDestroy(h);
        return -1;
    }
    /* Warnings are errors: libjpeg-turbo would otherwise fill what it could
       not decode with gray and report success. LIMITSCANS refuses a
       progressive file of more than 500 scans (each scan re-reads the whole
       image: a small file could keep the decoder busy for hours). */
    const int flags = TJFLAG_STOPONWARNING | TJFLAG_LIMITSCANS | TJFLAG_ACCURATEDCT;
    if (tjDecompress2(h, data, (unsigned long)len, px, w, 0, ht, pf, flags) != 0) {
        decode_error(h, err, errlen);
        tjDestroy(h);
        free(px);
        return -1;
    }
    tjDestroy(h);
    if (cmyk) {
        cmyk_to_rgb(px, (size_t)w * (size_t)ht);
        uint8_t *smaller = (uint8_t *)realloc(px, (size_t)w * (size_t)ht * 3);
        if (smaller)
            px = smaller;
    }
    out->width = w;
    out->height = ht;
    out->channels = gray ? 1 : 3;
    out->bits = 8;
    out->pixels = px;
    out->has_alpha = 0;
    out->source_bits = 8;
    out->source_color_type = IMG_SOURCE_NONE;
    out->source_format = IMG_FORMAT_JPEG;
    out->source_subsampling = (int)from_tj_subsampling(sub, cs);
    return 0;
}

/* The whole file in a malloc'd buffer: its size from fstat for a regular
 * file, else read until the end (a pipe). 0, or -1 with the reason. */
static int read_all(FILE *f, const struct stat *st, uint8_t **data, size_t *len, char *why, size_t whylen)
{
    size_t cap = S_ISREG(st->st_mode) && st->st_size > 0 ? (size_t)st->st_size + 1 : 65536, n = 0;
    uint8_t *buf = (uint8_t *)malloc(cap);
    for (;;) {
        if (!buf) {
            snprintf(why, whylen, "out of memory reading the file");
            return -1;
        }
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        uint8_t *bigger = cap > SIZE_MAX / 2 ? NULL : (uint8_t *)realloc(buf, cap * 2);
        if (!bigger)
            free(buf);
        buf = bigger;
        cap *= 2;
    }
    if (ferror(f)) {
        snprintf(why, whylen, "read error: %s", strerror(errno));
        free(buf);
        return -1;
    }
    *data = buf;
    *len = n;
    return 0;
}

int img_read_jpeg(const char *path, uint64_t max_pixels, img_t *out, char *err, size_t errlen)
{
    if (!out) {
        img__err(err, errlen, "img_read_jpeg: no output image given");
        return -1;
    }
    img_init(out);
    if (!path || !path[0]) {
        img__err(err, errlen, "img_read_jpeg: no file name given");
        return -1;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        img__err(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0) {
        img__err(err, errlen, "%s: cannot read: %s", path, strerror(errno));
        fclose(f);
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        img__err(err, errlen, "%s: is a directory, not a JPEG file", path);
        fclose(f);
        return -1;
    }
    uint8_t *data = NULL;
    size_t len = 0;
    char why[256];
    if (read_all(f, &st, &data, &len, why, sizeof why) != 0) {
        img__err(err, errlen, "%s: %s", path, why);
        fclose(f);
        return -1;
    }
    fclose(f);
    const int rc = img_jpeg_decode(data, len, max_pixels, out, why, sizeof why);
    free(data);
    if (rc != 0)
        img__err(err, errlen, "%s: %s", path, why);
    return rc;
}

const char *img__jpeg_describe(const img_t *img, char *buf, size_t buflen)
{
    const char *sub = img_jpeg_subsampling_name((img_jpeg_subsampling_t)img->source_subsampling);
    snprintf(buf, buflen, "JPEG %s, %dx%d -> 8-bit %s", sub, img->width, img->height,
             img->channels == 1 ? "gray" : "RGB");
    return buf;
}
