/* srgb.c -- sRGB <-> linear light (IEC 61966-2-1), per sample and for whole
 * images as floats. Tables are filled once (pthread_once) from the exact
 * formula, in double precision. */
#define _POSIX_C_SOURCE 200809L
#include "common/image_io.h"
#include "image_private.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>

double img_srgb_to_linear(double e)
{
    if (!(e > 0.0)) /* also NaN */
        return 0.0;
    if (e >= 1.0)
        return 1.0;
    return e <= 0.04045 ? e / 12.92 : pow((e + 0.055) / 1.055, 2.4);
}

double img_linear_to_srgb(double l)
{
    if (!(l > 0.0))
        return 0.0;
    if (l >= 1.0)
        return 1.0;
    return l <= 0.0031308 ? l * 12.92 : 1.055 * pow(l, 1.0 / 2.4) - 0.055;
}

static float g_lut8[256];         /* 8-bit sRGB -> linear */
static float g_split8[255];       /* linear value where the nearest 8-bit code goes from k to k+1 */
static float g_lut16[65536];      /* 16-bit sRGB -> linear */
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void fill_tables(void)
{
    for (int v = 0; v < 256; ++v)
        g_lut8[v] = (float)img_srgb_to_linear(v / 255.0);
    for (int k = 0; k < 255; ++k)
        g_split8[k] = (float)img_srgb_to_linear((k + 0.5) / 255.0);
    for (int v = 0; v < 65536; ++v)
        g_lut16[v] = (float)img_srgb_to_linear(v / 65535.0);
}

static void ensure_tables(void)
{
    pthread_once(&g_once, fill_tables);
}

const float *img_srgb8_table(void)
{
    ensure_tables();
    return g_lut8;
}

float img_srgb8_to_linear(uint8_t v)
{
    ensure_tables();
    return g_lut8[v];
}

/* Nearest 8-bit code in encoded space: the number of split points at or
 * below the value (binary search over the 255 monotonic splits). */
static uint8_t encode8(float l)
{
    if (!(l > 0.0f))
        return 0;
    int lo = 0, hi = 255; /* answer in [lo, hi] */
    while (lo < hi) {
        int mid = (lo + hi) / 2; /* is the answer > mid? */
        if (l >= g_split8[mid])
            lo = mid + 1;
        else
            hi = mid;
    }
    return (uint8_t)lo;
}

uint8_t img_linear_to_srgb8(float linear)
{
    ensure_tables();
    return encode8(linear);
}

float img_srgb16_to_linear(uint16_t v)
{
    ensure_tables();
    return g_lut16[v];
}

uint16_t img_linear_to_srgb16(float linear)
{
    return (uint16_t)lrint(img_linear_to_srgb((double)linear) * 65535.0);
}

static float clamp01(float v)
{
    if (!(v > 0.0f))
        return 0.0f; /* NaN too */
    return v < 1.0f ? v : 1.0f;
}

static int check_image(const img_t *img, const void *buf, const char *fn, char *err, size_t errlen)
{
    if (!img || !img->pixels || img->width < 1 || img->height < 1) {
        img__err(err, errlen, "%s: empty image", fn);
        return -1;
    }
    if (img->channels < 1 || img->channels > 4 || (img->bits != 8 && img->bits != 16)) {
        img__err(err, errlen, "%s: unsupported image (%d channels, %d bits)", fn, img->channels, img->bits);
        return -1;
    }
    if (!buf) {
        img__err(err, errlen, "%s: no float buffer given", fn);
        return -1;
    }
    return 0;
}

int img_to_linear_f32(const img_t *img, float *out, int linear, int premultiply_alpha, char *err, size_t errlen)
{
    if (check_image(img, out, "img_to_linear_f32", err, errlen) != 0)
        return -1;
    ensure_tables();
    const size_t n = img_pixel_count(img);
    const int ch = img->channels;
    const int alpha = (ch == 2 || ch == 4);
    const int colour = alpha ? ch - 1 : ch;
    const int premul = alpha && premultiply_alpha;
    for (size_t i = 0; i < n; ++i) {
        float *o = out + i * (size_t)ch;
        if (img->bits == 8) {
            const uint8_t *p = (const uint8_t *)img->pixels + i * (size_t)ch;
            for (int c = 0; c < colour; ++c)
                o[c] = linear ? g_lut8[p[c]] : p[c] / 255.0f;
            if (alpha)
                o[colour] = p[colour] / 255.0f;
        } else {
            const uint16_t *p = (const uint16_t *)img->pixels + i * (size_t)ch;
            for (int c = 0; c < colour; ++c)
                o[c] = linear ? g_lut16[p[c]] : p[c] / 65535.0f;
            if (alpha)
                o[colour] = p[colour] / 65535.0f;
        }
        if (premul)
            for (int c = 0; c < colour; ++c)
                o[c] *= o[colour];
    }
    return 0;
}

int img_from_linear_f32(const float *in, img_t *img, int linear, int premultiplied_alpha, char *err, size_t errlen)
{
    if (check_image(img, in, "img_from_linear_f32", err, errlen) != 0)
        return -1;
    ensure_tables();
    const size_t n = img_pixel_count(img);
    const int ch = img->channels;
    const int alpha = (ch == 2 || ch == 4);
    const int colour = alpha ? ch - 1 : ch;
    for (size_t i = 0; i < n; ++i) {
        const float *p = in + i * (size_t)ch;
        float a = alpha ? clamp01(p[colour]) : 1.0f;
        float v[4];
        for (int c = 0; c < colour; ++c) {
            float x = p[c];
            if (alpha && premultiplied_alpha)
                x = a > 0.0f ? x / a : 0.0f;
            v[c] = clamp01(x);
        }
        if (img->bits == 8) {
            uint8_t *o = (uint8_t *)img->pixels + i * (size_t)ch;
            for (int c = 0; c < colour; ++c)
                o[c] = linear ? encode8(v[c]) : (uint8_t)lrintf(v[c] * 255.0f);
            if (alpha)
                o[colour] = (uint8_t)lrintf(a * 255.0f);
        } else {
            uint16_t *o = (uint16_t *)img->pixels + i * (size_t)ch;
            for (int c = 0; c < colour; ++c)
                o[c] = linear ? img_linear_to_srgb16(v[c]) : (uint16_t)lrintf(v[c] * 65535.0f);
            if (alpha)
                o[colour] = (uint16_t)lrintf(a * 65535.0f);
        }
    }
    return 0;
}
