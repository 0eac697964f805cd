/* sort_reference.c -- see sort_reference.h. */
#include "sort_reference.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "libscan/libscan.h"

const libscan_dtype_t ref_all_keys[8] = {LIBSCAN_U8,  LIBSCAN_U16, LIBSCAN_U32, LIBSCAN_U64,
                                         LIBSCAN_I32, LIBSCAN_I64, LIBSCAN_F32, LIBSCAN_F64};

const char *ref_dist_name(ref_dist_t d) {
    static const char *names[DIST_COUNT] = {"uniform",      "sorted",      "reverse",   "all-equal", "2-distinct",
                                            "16-distinct", "high-byte",   "low-byte",  "float-specials"};
    return d < DIST_COUNT ? names[d] : "?";
}

static uint64_t get(const void *p, size_t i, size_t ks) {
    const unsigned char *b = (const unsigned char *)p + i * ks;
    uint64_t v = 0;
    if (ks == 1) v = b[0];
    else if (ks == 2) { uint16_t x; memcpy(&x, b, 2); v = x; }
    else if (ks == 4) { uint32_t x; memcpy(&x, b, 4); v = x; }
    else memcpy(&v, b, 8);
    return v;
}
static void put(void *p, size_t i, size_t ks, uint64_t v) {
    unsigned char *b = (unsigned char *)p + i * ks;
    if (ks == 1) b[0] = (unsigned char)v;
    else if (ks == 2) { uint16_t x = (uint16_t)v; memcpy(b, &x, 2); }
    else if (ks == 4) { uint32_t x = (uint32_t)v; memcpy(b, &x, 4); }
    else memcpy(b, &v, 8);
}

static uint64_t float_special(rng_t *r, size_t ks) {
    const int f32 = ks == 4;
    const uint64_t sign = f32 ? 0x80000000u : 0x8000000000000000ull;
    const uint64_t exp_all = f32 ? 0x7f800000u : 0x7ff0000000000000ull;
    const uint64_t mant = f32 ? 0x007fffffu : 0x000fffffffffffffull;
    const uint64_t s = (rng_u32(r) & 1) ? sign : 0;
    switch (rng_below(r, 6)) {
    case 0: return s | exp_all | ((rng_u64(r) & mant) | 1); /* NaN, any payload */
    case 1: return s | exp_all;                             /* inf */
    case 2: return s;                                       /* zero */
    case 3: return s | ((rng_u64(r) & mant) | 1);           /* denormal */
    case 4: return s | (rng_below(r, 3));                   /* smallest denormals and zero */
    default: {                                              /* a normal number */
        double d = (rng_unit(r) - 0.5) * 1e3;
        if (f32) { float f = (float)d; uint32_t u; memcpy(&u, &f, 4); return u; }
        uint64_t u; memcpy(&u, &d, 8); return u;
    }
    }
}

void ref_fill(rng_t *r, libscan_dtype_t key, ref_dist_t d, void *keys, size_t n) {
    const size_t ks = libscan_dtype_size(key);
    const unsigned width = (unsigned)ks * 8;
    const uint64_t wmask = width == 64 ? ~0ull : ((1ull << width) - 1);
    const uint64_t a = rng_u64(r) & wmask, b = rng_u64(r) & wmask;
    uint64_t pool[16];
    for (int i = 0; i < 16; ++i) pool[i] = rng_u64(r) & wmask;
    const int is_float = key == LIBSCAN_F32 || key == LIBSCAN_F64;
    for (size_t i = 0; i < n; ++i) {
        uint64_t v = rng_u64(r) & wmask;
        switch (d) {
        case DIST_ALL_EQUAL: v = a; break;
        case DIST_TWO_DISTINCT: v = (v & 1) ? a : b; break;
        case DIST_SIXTEEN_DISTINCT: v = pool[v & 15]; break;
        case DIST_HIGH_BYTE: v = (a & (wmask >> 8)) | (v & ~(wmask >> 8) & wmask); break;
        case DIST_LOW_BYTE: v = (a & ~0xffull & wmask) | (v & 0xff); break;
        case DIST_FLOAT_SPECIALS: if (is_float) v = float_special(r, ks); break;
        default: break;
        }
        put(keys, i, ks, v);
    }
    if (d == DIST_SORTED || d == DIST_REVERSE) {
        size_t *perm = ref_order(key, keys, n, d == DIST_REVERSE, 0, 0);
        unsigned char *copy = malloc(n * ks + 1);
        if (perm && copy) {
            memcpy(copy, keys, n * ks);
            for (size_t i = 0; i < n; ++i) put(keys, i, ks, get(copy, perm[i], ks));
        }
        free(perm);
        free(copy);
    }
}

/* Rank of a float's class: -NaN, negative numbers, +NaN come first/last; numbers compare by value
 * and -0.0 < +0.0 by sign; NaNs of one sign by payload (larger payload is further out). */
static int cmp_float(uint64_t x, uint64_t y, size_t ks) {
    double dx, dy;
    int nx, ny, sx, sy;
    if (ks == 4) {
        float fx, fy; uint32_t ux = (uint32_t)x, uy = (uint32_t)y;
        memcpy(&fx, &ux, 4); memcpy(&fy, &uy, 4);
        dx = fx; dy = fy;
        sx = (int)(ux >> 31); sy = (int)(uy >> 31);
        nx = isnan(fx); ny = isnan(fy);
        x = ux & 0x7fffffffu; y = uy & 0x7fffffffu;
    } else {
        memcpy(&dx, &x, 8); memcpy(&dy, &y, 8);
        sx = (int)(x >> 63); sy = (int)(y >> 63);
        nx = isnan(dx); ny = isnan(dy);
        x &= 0x7fffffffffffffffull; y &= 0x7fffffffffffffffull;
    }
    const int cx = nx ? (sx ? 0 : 2) : 1, cy = ny ? (sy ? 0 : 2) : 1;
    if (cx != cy) return cx < cy ? -1 : 1;
    if (cx == 0) return x == y ? 0 : (x > y ? -1 : 1); /* -NaN: bigger payload is smaller */
    if (cx == 2) return x == y ? 0 : (x < y ? -1 : 1);
    if (dx < dy) return -1;
    if (dx > dy) return 1;
    if (sx != sy) return sx ? -1 : 1; /* -0.0 < +0.0 */
    return 0;
}

int ref_compare(libscan_dtype_t key, const void *a, const void *b, unsigned begin_bit, unsigned end_bit) {
    const size_t ks = libscan_dtype_size(key);
    uint64_t x = get(a, 0, ks), y = get(b, 0, ks);
    if (key == LIBSCAN_F32 || key == LIBSCAN_F64) return cmp_float(x, y, ks);
    if (key == LIBSCAN_I32 || key == LIBSCAN_I64) {
        const uint64_t sign = 1ull << (ks * 8 - 1);
        if (begin_bit == 0 && end_bit == 0) {
            int64_t sx = ks == 4 ? (int64_t)(int32_t)(uint32_t)x : (int64_t)x;
            int64_t sy = ks == 4 ? (int64_t)(int32_t)(uint32_t)y : (int64_t)y;
            return sx < sy ? -1 : sx > sy;
        }
        x ^= sign; /* bit ranges are over the two's complement order's bits */
        y ^= sign;
    }
    if (end_bit) {
        const unsigned bits = end_bit - begin_bit;
        const uint64_t mask = bits >= 64 ? ~0ull : ((1ull << bits) - 1);
        x = (x >> begin_bit) & mask;
        y = (y >> begin_bit) & mask;
    }
    return x < y ? -1 : x > y;
}

static struct {
    libscan_dtype_t key;
    const unsigned char *keys;
    size_t ks;
    int desc;
    unsigned begin, end;
} g_ctx;

static int cmp_index(const void *pa, const void *pb) {
    const size_t ia = *(const size_t *)pa, ib = *(const size_t *)pb;
    int c = ref_compare(g_ctx.key, g_ctx.keys + ia * g_ctx.ks, g_ctx.keys + ib * g_ctx.ks, g_ctx.begin, g_ctx.end);
    if (g_ctx.desc) c = -c;
    if (c) return c;
    return ia < ib ? -1 : ia > ib; /* stable */
}

size_t *ref_order(libscan_dtype_t key, const void *keys, size_t n, int descending, unsigned begin_bit,
                  unsigned end_bit) {
    size_t *perm = malloc((n + 1) * sizeof(size_t));
    if (!perm) return NULL;
    for (size_t i = 0; i < n; ++i) perm[i] = i;
    g_ctx.key = key;
    g_ctx.keys = keys;
    g_ctx.ks = libscan_dtype_size(key);
    g_ctx.desc = descending;
    g_ctx.begin = begin_bit;
    g_ctx.end = end_bit;
    if (n > 1) qsort(perm, n, sizeof(size_t), cmp_index);
    return perm;
}

size_t ref_first_mismatch(const size_t *perm, size_t n, size_t ks, const void *keys, const void *out_keys,
                          size_t vb, const void *values, const void *out_values) {
    for (size_t i = 0; i < n; ++i) {
        if (memcmp((const char *)keys + perm[i] * ks, (const char *)out_keys + i * ks, ks)) return i;
        if (vb && memcmp((const char *)values + perm[i] * vb, (const char *)out_values + i * vb, vb)) return i;
    }
    return n;
}

void ref_iota(void *values, size_t n, size_t vb) {
    for (size_t i = 0; i < n; ++i) {
        if (vb == 4) ((uint32_t *)values)[i] = (uint32_t)i;
        else ((uint64_t *)values)[i] = i;
    }
}

int ref_split_sort_u32(uint32_t *keys, size_t n) {
    if (n <= 1) return 0;
    uint32_t *flags = malloc(n * 4), *scan = malloc(n * 4), *tmp = malloc(n * 4);
    void *d_flags = NULL, *d_scan = NULL;
    int rc = -1;
    if (!flags || !scan || !tmp) goto done;
    if (cudaMalloc(&d_flags, n * 4) != cudaSuccess || cudaMalloc(&d_scan, n * 4) != cudaSuccess) goto done;
    for (unsigned bit = 0; bit < 32; ++bit) {
        for (size_t i = 0; i < n; ++i) flags[i] = ((keys[i] >> bit) & 1u) == 0;
        if (cudaMemcpy(d_flags, flags, n * 4, cudaMemcpyHostToDevice) != cudaSuccess) goto done;
        if (libscan_exclusive_scan(d_flags, d_scan, n, LIBSCAN_U32, LIBSCAN_OP_SUM, NULL, 0) != LIBSCAN_SUCCESS)
            goto done;
        if (cudaMemcpy(scan, d_scan, n * 4, cudaMemcpyDeviceToHost) != cudaSuccess) goto done;
        const size_t zeros = scan[n - 1] + flags[n - 1];
        for (size_t i = 0; i < n; ++i) {
            const size_t at = flags[i] ? scan[i] : zeros + i - scan[i];
            tmp[at] = keys[i];
        }
        memcpy(keys, tmp, n * 4);
    }
    rc = 0;
done:
    cudaFree(d_flags);
    cudaFree(d_scan);
    free(flags);
    free(scan);
    free(tmp);
    return rc;
}
