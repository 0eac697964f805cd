/* png_unfilter.c -- see png_unfilter.h. */
#include "png_unfilter.h"

#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* One byte of each filter, as the specification writes it: the reference
   for every bpp without a vector version (and for the tests' reasoning).
   a: the byte bpp to the left (0 at the start of a row), b: the byte above
   (0 in the first row), c: the byte above a. */
static inline int paeth_pick(int a, int b, int c)
{
    const int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

static void row_scalar(int type, const uint8_t *in, const uint8_t *prev, uint8_t *out, size_t n, size_t bpp)
{
    for (size_t i = 0; i < n; ++i) {
        const int a = i >= bpp ? out[i - bpp] : 0, b = prev[i], c = i >= bpp ? prev[i - bpp] : 0;
        int p = 0;
        switch (type) {
        case 1: p = a; break;
        case 2: p = b; break;
        case 3: p = (a + b) >> 1; break;
        case 4: p = paeth_pick(a, b, c); break;
        default: break;
        }
        out[i] = (uint8_t)(in[i] + p);
    }
}

#if defined(__SSE2__)
/* A pixel's bpp bytes as 16-bit lanes, and back. memcpy with a constant bpp
   compiles to plain loads and stores; a store writes exactly bpp bytes. */
static inline __m128i load_px(const uint8_t *p, size_t bpp)
{
    uint64_t v = 0;
    memcpy(&v, p, bpp);
    return _mm_unpacklo_epi8(_mm_cvtsi64_si128((long long)v), _mm_setzero_si128());
}

static inline void store_px(uint8_t *p, __m128i x, size_t bpp)
{
    const uint64_t v = (uint64_t)_mm_cvtsi128_si64(_mm_packus_epi16(x, x));
    memcpy(p, &v, bpp);
}

static inline __m128i abs16(__m128i v)
{
    return _mm_max_epi16(v, _mm_sub_epi16(_mm_setzero_si128(), v));
}

/* paeth_pick on every lane: a unless pa > pb or pa > pc; then b unless pb > pc; then c. */
static inline __m128i paeth_px(__m128i a, __m128i b, __m128i c)
{
    const __m128i bc = _mm_sub_epi16(b, c), ac = _mm_sub_epi16(a, c);
    const __m128i pa = abs16(bc), pb = abs16(ac), pc = abs16(_mm_add_epi16(bc, ac));
    const __m128i not_a = _mm_or_si128(_mm_cmpgt_epi16(pa, pb), _mm_cmpgt_epi16(pa, pc));
    const __m128i not_b = _mm_cmpgt_epi16(pb, pc);
    const __m128i b_or_c = _mm_or_si128(_mm_and_si128(not_b, c), _mm_andnot_si128(not_b, b));
    return _mm_or_si128(_mm_and_si128(not_a, b_or_c), _mm_andnot_si128(not_a, a));
}

/* Sub (1), Average (3) and Paeth (4) chain from pixel to pixel; the lanes
   of one pixel are independent. n is a whole number of pixels. While 8
   bytes are left in the row, a pixel is loaded and stored as 8 bytes (the
   lanes past bpp compute garbage that the next pixel's store overwrites):
   composing bpp bytes through memory stalled every pixel on store
   forwarding, slower than libpng. The last pixels go exactly. */
#define PIXEL_STEP(LOAD, STORE)                                                                            \
    {                                                                                                      \
        const __m128i x = LOAD(in + i), b = LOAD(prev + i);                                                \
        const __m128i p = type == 1 ? a : type == 3 ? _mm_srli_epi16(_mm_add_epi16(a, b), 1)               \
                                                    : paeth_px(a, b, c);                                   \
        a = _mm_and_si128(_mm_add_epi16(x, p), low);                                                       \
        STORE(out + i, a);                                                                                 \
        c = b;                                                                                             \
    }
#define LOAD8(p) _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(p)), _mm_setzero_si128())
#define STORE8(p, v) _mm_storel_epi64((__m128i *)(p), _mm_packus_epi16((v), (v)))
#define DEFINE_ROW_SSE2(BPP)                                                                               \
    static void row_sse2_##BPP(int type, const uint8_t *in, const uint8_t *prev, uint8_t *out, size_t n)  \
    {                                                                                                      \
        const __m128i low = _mm_set1_epi16(0xff);                                                          \
        __m128i a = _mm_setzero_si128(), c = _mm_setzero_si128();                                          \
        size_t i = 0;                                                                                      \
        for (; i + 8 <= n; i += BPP)                                                                       \
            PIXEL_STEP(LOAD8, STORE8)                                                                      \
        for (; i < n; i += BPP)                                                                            \
            PIXEL_STEP(LOAD_EXACT_##BPP, STORE_EXACT_##BPP)                                                \
    }
#define EXACT(BPP)                                                                                         \
    static inline __m128i LOAD_EXACT_##BPP(const uint8_t *p) { return load_px(p, BPP); }                  \
    static inline void STORE_EXACT_##BPP(uint8_t *p, __m128i v) { store_px(p, v, BPP); }
EXACT(1)
EXACT(2)
EXACT(3)
EXACT(4)
EXACT(6)
EXACT(8)
DEFINE_ROW_SSE2(1)
DEFINE_ROW_SSE2(2)
DEFINE_ROW_SSE2(3)
DEFINE_ROW_SSE2(4)
DEFINE_ROW_SSE2(6)
DEFINE_ROW_SSE2(8)
#endif

static void row(int type, const uint8_t *in, const uint8_t *prev, uint8_t *out, size_t n, unsigned bpp)
{
    if (type == 0) {
        memcpy(out, in, n);
        return;
    }
    if (type == 2) { /* Up: no chain, the compiler vectorises it */
        for (size_t i = 0; i < n; ++i)
            out[i] = (uint8_t)(in[i] + prev[i]);
        return;
    }
#if defined(__SSE2__)
    if (n % bpp == 0) {
        switch (bpp) {
        case 1: row_sse2_1(type, in, prev, out, n); return;
        case 2: row_sse2_2(type, in, prev, out, n); return;
        case 3: row_sse2_3(type, in, prev, out, n); return;
        case 4: row_sse2_4(type, in, prev, out, n); return;
        case 6: row_sse2_6(type, in, prev, out, n); return;
        case 8: row_sse2_8(type, in, prev, out, n); return;
        default: break;
        }
    }
#endif
    row_scalar(type, in, prev, out, n, bpp);
}

/* 16-bit samples from the file's big-endian bytes to little-endian. */
static void swap_pairs(uint8_t *p, size_t n)
{
    for (size_t i = 0; i + 1 < n; i += 2) {
        const uint8_t t = p[i];
        p[i] = p[i + 1];
        p[i + 1] = t;
    }
}

int png_unfilter(const uint8_t *src, size_t h, size_t rowbytes, unsigned bpp, int swap16, uint8_t *dst)
{
    if (bpp < 1 || bpp > 8)
        return -1;
    const size_t stride = rowbytes + 1;
    for (size_t y = 0; y < h; ++y)
        if (src[y * stride] > 4)
            return -1;
    uint8_t *zero = (uint8_t *)calloc(rowbytes ? rowbytes : 1, 1); /* the row above the first */
    if (!zero)
        return -1;
    for (size_t y = 0; y < h; ++y) {
        const uint8_t *in = src + y * stride;
        uint8_t *out = dst + y * rowbytes;
        row(in[0], in + 1, y ? out - rowbytes : zero, out, rowbytes, bpp);
        /* A row is swapped only once the next one has used it as the row
           above: the filters work on the file's bytes. */
        if (swap16 && y)
            swap_pairs(out - rowbytes, rowbytes);
    }
    if (swap16 && h)
        swap_pairs(dst + (h - 1) * rowbytes, rowbytes);
    free(zero);
    return 0;
}
