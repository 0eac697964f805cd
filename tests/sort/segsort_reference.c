/* segsort_reference.c -- see segsort_reference.h. */
#include "segsort_reference.h"

#include <math.h>
#include <stdlib.h>

const char *seg_shape_name(seg_shape_t s) {
    switch (s) {
    case SEG_ONE: return "one-segment";
    case SEG_EMPTY_MIX: return "empty-mix";
    case SEG_EQUAL_SMALL: return "equal-256";
    case SEG_POWER_LAW: return "power-law";
    case SEG_CLASS_EDGES: return "class-edges";
    case SEG_PASS_TILES: return "pass-tiles";
    default: return "?";
    }
}

/* Appends a segment of `size` keys (clipped to what is left). */
static int push(uint64_t **off, size_t *num, size_t *cap, size_t size, size_t n) {
    if (*num + 2 > *cap) {
        size_t c = *cap ? *cap * 2 : 64;
        uint64_t *p = realloc(*off, c * sizeof *p);
        if (!p) return -1;
        *off = p;
        *cap = c;
    }
    const uint64_t at = (*off)[*num];
    const uint64_t left = n - at;
    (*off)[*num + 1] = at + (size < left ? size : left);
    ++*num;
    return 0;
}

uint64_t *seg_make_offsets(rng_t *r, seg_shape_t s, size_t n, size_t *num) {
    static const size_t edges[] = {0,    1,    2,    255,  256,  257,  1023, 1024, 1025,  2047,
                                   2048, 2049, 4095, 4096, 4097, 8192, 12289, 3,   0,     20000};
    /* PassTuning's tiles (sort_tuning.cuh): 384 x 15 (8-byte keys or
       values), 384 x 16 (4-byte pairs; 448 x 16 before), 384 x 20 (4-byte
       keys); a segment of more than one block's share (4096 or 2048 keys)
       takes the passes. */
    static const size_t tiles[] = {6143,  6144,  6145,  7167,  7168,  7169,  4097,  7679,  7680,  7681,  0,
                                   8191,  8192,  8193,  2049,  5759,  5760,  5761,  12288, 12289, 14336, 14337,
                                   15360, 15361, 18431, 18433, 23041};
    uint64_t *off = malloc(64 * sizeof *off);
    size_t cap = 64;
    if (!off) return NULL;
    off[0] = 0;
    *num = 0;
    int bad = 0;
    if (s == SEG_EMPTY_MIX) bad |= push(&off, num, &cap, 0, n) | push(&off, num, &cap, 0, n);
    size_t e = 0;
    while (!bad && off[*num] < n) {
        size_t size = n;
        switch (s) {
        case SEG_ONE: size = n; break;
        case SEG_EMPTY_MIX: size = rng_below(r, 3) == 0 ? 0 : (size_t)rng_below(r, 41); break;
        case SEG_EQUAL_SMALL: size = 256; break;
        case SEG_POWER_LAW: {
            /* Inverse transform of a Pareto law with alpha 0.5: many short
               segments, a few very long ones. */
            const double u = ((double)rng_below(r, 1u << 30) + 1.0) / (double)(1u << 30);
            const double z = 1.0 / (u * u);
            size = z >= (double)n ? n : (size_t)z;
            break;
        }
        case SEG_CLASS_EDGES: size = edges[e++ % (sizeof edges / sizeof edges[0])]; break;
        case SEG_PASS_TILES: size = tiles[e++ % (sizeof tiles / sizeof tiles[0])]; break;
        default: break;
        }
        bad |= push(&off, num, &cap, size, n);
    }
    if (!bad && s == SEG_EMPTY_MIX) bad |= push(&off, num, &cap, 0, n) | push(&off, num, &cap, 0, n);
    if (bad) {
        free(off);
        return NULL;
    }
    return off;
}

size_t *seg_ref_order(libscan_dtype_t key, const void *keys, const uint64_t *off, size_t num, int descending,
                      unsigned begin_bit, unsigned end_bit) {
    const size_t n = num ? (size_t)off[num] : 0, ks = libscan_dtype_size(key);
    size_t *perm = malloc((n ? n : 1) * sizeof *perm);
    if (!perm) return NULL;
    for (size_t s = 0; s < num; ++s) {
        const size_t b = (size_t)off[s], z = (size_t)(off[s + 1] - off[s]);
        if (z == 0) continue;
        size_t *p = ref_order(key, (const unsigned char *)keys + b * ks, z, descending, begin_bit, end_bit);
        if (!p) {
            free(perm);
            return NULL;
        }
        for (size_t i = 0; i < z; ++i) perm[b + i] = b + p[i];
        free(p);
    }
    return perm;
}
