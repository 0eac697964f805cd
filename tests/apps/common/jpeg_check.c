/* jpeg_check.c -- see jpeg_check.h. */
#include "jpeg_check.h"

#include <stb/stb_image.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Position in the 8 x 8 block (row-major) of the k-th value a JPEG stores
 * (the zig-zag order of the standard's Figure A.6). */
static const uint8_t kZigzag[64] = {0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,
                                    12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6,  7,  14, 21, 28,
                                    35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
                                    58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63};

/* The example tables of the JPEG standard, Annex K (K.1 luminance, K.2
 * chrominance), row-major. */
static const uint16_t kLuma[64] = {16, 11, 10, 16, 24,  40,  51,  61,  12, 12, 14, 19, 26,  58,  60,  55,
                                   14, 13, 16, 24, 40,  57,  69,  56,  14, 17, 22, 29, 51,  87,  80,  62,
                                   18, 22, 37, 56, 68,  109, 103, 77,  24, 35, 55, 64, 81,  104, 113, 92,
                                   49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99};
static const uint16_t kChroma[64] = {17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99,
                                     24, 26, 56, 99, 99, 99, 99, 99, 47, 66, 99, 99, 99, 99, 99, 99,
                                     99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
                                     99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99};

void jc_ijg_table(int quality, int chroma, uint16_t out[64])
{
    if (quality < 1)
        quality = 1;
    if (quality > 100)
        quality = 100;
    /* IJG: a percentage, 5000 / q below 50, 200 - 2q from 50 up. */
    const long scale = quality < 50 ? 5000 / quality : 200 - 2 * quality;
    for (int i = 0; i < 64; ++i) {
        long t = ((long)(chroma ? kChroma : kLuma)[i] * scale + 50) / 100;
        if (t < 1)
            t = 1;
        if (t > 255) /* baseline: 8-bit tables */
            t = 255;
        out[i] = (uint16_t)t;
    }
}

int jc_parse(const uint8_t *f, size_t len, jc_info *info)
{
    memset(info, 0, sizeof *info);
    if (len < 4 || f[0] != 0xff || f[1] != 0xd8)
        return -1;
    size_t pos = 2;
    while (pos + 4 <= len) {
        if (f[pos] != 0xff)
            return -1;
        const uint8_t m = f[pos + 1];
        if (m == 0xff) { /* fill byte */
            ++pos;
            continue;
        }
        const size_t seg = ((size_t)f[pos + 2] << 8) | f[pos + 3];
        if (seg < 2 || pos + 2 + seg > len)
            return -1;
        const uint8_t *p = f + pos + 4, *end = f + pos + 2 + seg;
        if (m == 0xda) /* SOS: the tables and the frame come before it */
            return info->sof ? 0 : -1;
        if (m == 0xdb) {
            while (p < end) {
                const int precision = p[0] >> 4, id = p[0] & 15;
                ++p;
                if (id > 3 || p + (precision ? 128 : 64) > end)
                    return -1;
                for (int k = 0; k < 64; ++k) {
                    info->table[id][kZigzag[k]] = precision ? (uint16_t)((p[2 * k] << 8) | p[2 * k + 1]) : p[k];
                }
                info->have_table[id] = 1;
                p += precision ? 128 : 64;
            }
        } else if (m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc) {
            if (end - p < 6)
                return -1;
            info->sof = m;
            info->height = (p[1] << 8) | p[2];
            info->width = (p[3] << 8) | p[4];
            info->components = p[5];
            if (info->components > 4 || end - p < 6 + 3 * info->components)
                return -1;
            for (int c = 0; c < info->components; ++c) {
                info->h[c] = p[7 + 3 * c] >> 4;
                info->v[c] = p[7 + 3 * c] & 15;
                info->tq[c] = p[8 + 3 * c];
            }
        }
        pos += 2 + seg;
    }
    return -1;
}

jc_diff jc_compare(const uint8_t *a, const uint8_t *b, size_t n)
{
    jc_diff d = {0, 999, 0};
    double sum = 0, sq = 0;
    for (size_t i = 0; i < n; ++i) {
        const int e = abs((int)a[i] - (int)b[i]);
        sum += e;
        sq += (double)e * e;
        if (e > d.max_abs)
            d.max_abs = e;
    }
    d.mean_abs = n ? sum / (double)n : 0;
    if (sq > 0)
        d.psnr = 10.0 * log10(255.0 * 255.0 / (sq / (double)n));
    return d;
}

uint8_t *jc_stb_decode(const uint8_t *f, size_t len, int *w, int *h, int *comps)
{
    uint8_t *px = stbi_load_from_memory(f, (int)len, w, h, comps, 0);
    if (!px)
        return NULL;
    /* stb's buffer goes back through free() like the rest of the tests' */
    const size_t n = (size_t)*w * (size_t)*h * (size_t)*comps;
    uint8_t *copy = (uint8_t *)malloc(n);
    if (copy)
        memcpy(copy, px, n);
    stbi_image_free(px);
    return copy;
}
