/* png_filter.c -- see png_filter.h. Each candidate is computed and costed in
 * one plain loop over the row (no branches on the data), which the compiler
 * vectorises: filtering is a small part of the encode even on one thread. */
#include "png_filter.h"

#include <string.h>

/* |v| with v read as a signed byte (128 counts 128), libpng's cost. */
static inline uint32_t cost8(uint8_t v)
{
    const uint8_t neg = (uint8_t)(0u - v);
    return v < neg ? v : neg;
}

/* The rows are costed in pieces of 2^16 bytes, so that the inner sums stay
 * 32-bit (2^16 * 128 < 2^32) whatever the row length. */
#define PIECE ((size_t)1 << 16)

static uint64_t sub_row(const uint8_t *cur, size_t n, size_t bpp, uint8_t *o)
{
    uint64_t total = 0;
    const size_t head = bpp < n ? bpp : n;
    for (size_t i = 0; i < head; ++i) {
        o[i] = cur[i];
        total += cost8(cur[i]);
    }
    for (size_t p = head; p < n; p += PIECE) {
        const size_t end = n - p < PIECE ? n : p + PIECE;
        uint32_t s = 0;
        for (size_t i = p; i < end; ++i) {
            const uint8_t v = (uint8_t)(cur[i] - cur[i - bpp]);
            o[i] = v;
            s += cost8(v);
        }
        total += s;
    }
    return total;
}

static uint64_t up_row(const uint8_t *prev, const uint8_t *cur, size_t n, uint8_t *o)
{
    uint64_t total = 0;
    for (size_t p = 0; p < n; p += PIECE) {
        const size_t end = n - p < PIECE ? n : p + PIECE;
        uint32_t s = 0;
        for (size_t i = p; i < end; ++i) {
            const uint8_t v = (uint8_t)(cur[i] - prev[i]);
            o[i] = v;
            s += cost8(v);
        }
        total += s;
    }
    return total;
}

/* floor((a + b) / 2) without leaving 8 bits: (a & b) + ((a ^ b) >> 1). */
static inline uint8_t avg8(uint8_t a, uint8_t b)
{
    return (uint8_t)((a & b) + ((a ^ b) >> 1));
}

static uint64_t avg_row(const uint8_t *prev, const uint8_t *cur, size_t n, size_t bpp, uint8_t *o)
{
    uint64_t total = 0;
    const size_t head = bpp < n ? bpp : n;
    for (size_t i = 0; i < head; ++i) {
        o[i] = (uint8_t)(cur[i] - (prev[i] >> 1));
        total += cost8(o[i]);
    }
    for (size_t p = head; p < n; p += PIECE) {
        const size_t end = n - p < PIECE ? n : p + PIECE;
        uint32_t s = 0;
        for (size_t i = p; i < end; ++i) {
            const uint8_t v = (uint8_t)(cur[i] - avg8(cur[i - bpp], prev[i]));
            o[i] = v;
            s += cost8(v);
        }
        total += s;
    }
    return total;
}

void png_filter_row(const uint8_t *prev, const uint8_t *cur, size_t n, size_t bpp, int adaptive, uint8_t *out,
                    uint8_t *scratch)
{
    if (!adaptive) {
        out[0] = PNG_FILTER_NONE_TYPE;
        memcpy(out + 1, cur, n);
        return;
    }
    /* Sub goes straight to out; Up and Average to scratch; the cheapest
       wins, ties to the first in the order Sub, Up, Average (as libpng). */
    uint8_t *up = scratch, *avg = scratch + n;
    const uint64_t c_sub = sub_row(cur, n, bpp, out + 1);
    const uint64_t c_up = up_row(prev, cur, n, up);
    const uint64_t c_avg = avg_row(prev, cur, n, bpp, avg);
    out[0] = PNG_FILTER_SUB_TYPE;
    if (c_up < c_sub && c_up <= c_avg) {
        out[0] = PNG_FILTER_UP_TYPE;
        memcpy(out + 1, up, n);
    } else if (c_avg < c_sub && c_avg < c_up) {
        out[0] = PNG_FILTER_AVG_TYPE;
        memcpy(out + 1, avg, n);
    }
}
