/* sort_cpu_radix.c -- the CPU sort (sort_cpu_internal.h): an LSD radix sort
 * on a team of threads (core/cpu_threads.h).
 *
 * Each thread owns one contiguous chunk of the input. A pass over one digit:
 *   1. every thread counts the digits of its chunk (its own histogram);
 *   2. barrier; every thread reads all histograms and computes where its
 *      keys of digit d start: the keys of all smaller digits, plus the keys
 *      of digit d in the chunks before its own -- so equal digits keep
 *      their input order across chunks as within one (stability), and the
 *      output does not depend on the number of threads;
 *   3. every thread scatters its chunk to the other buffer (through
 *      write-combining lines: see scatter_wc_body); barrier.
 * A pass whose digit is the same in every key changes nothing and is
 * skipped by every thread alike: the first pass's count also ORs and ANDs
 * the keys, which shows every digit that never varies, so those passes cost
 * not even their count. The order of equal keys never depends on the
 * threads, so the result is the same for any number of them.
 * The key map (sort_cpu_internal.h) is applied once: the first scatter of
 * several stores the keys mapped, the last stores them back as they were,
 * and the passes between (and every pass where the map is the identity)
 * carry none of it (see the MODE_ values). */
#include <stdlib.h>
#include <sys/mman.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#define LIBSCAN_STREAM_STORES 1
#else
#define LIBSCAN_STREAM_STORES 0
#endif

#include "core/cpu_threads.h"
#include "sort_cpu_internal.h"

/* 8-bit digits: a thread's 256 counters and write-combining lines (16 KiB
 * a lane) stay in L1. 11-bit digits (3 passes for u32 instead of 4, lines
 * in L2) measured within 5% of this on one core here, before the scatter
 * lost its stack reloads; worth a try on the 16-core machine. */
#define DIGIT_BITS 8u
#define RADIX ((size_t)1 << DIGIT_BITS)
/* Fewer keys than this per thread are not worth a thread's start. */
#define GRAIN ((size_t)1 << 16)
/* A cache line: each thread's rows of counters start on their own (no
 * false sharing), and the scatter gathers one per digit before it writes. */
#define LINE 64

#define ALWAYS_INLINE static inline __attribute__((always_inline))

typedef struct radix_job {
    const libscan__key_map_t *m;
    size_t n, ks, vb;
    int iota;
    unsigned char *k[2], *v[2]; /* [0] the caller's arrays, [1] the scratch copy */
    size_t *hist;               /* [2][threads][RADIX]: counts per counting pass parity, thread, digit */
    uint64_t *or_and;           /* [threads][LINE / 8]: OR and AND of the thread's mapped keys */
    size_t *offs;               /* [threads][2][RADIX]: the next output position per digit; the first */
    unsigned char *wc;          /* [threads][2][RADIX][LINE]: write-combining lines of keys, values */
} radix_job_t;

/* The mapped key with the key size known at compile time; `mapped` 0 when
 * the map is the identity (unsigned keys, ascending: the common case), so
 * those loops carry none of it. */
ALWAYS_INLINE uint64_t map_key(uint64_t x, uint64_t xor_all, uint64_t xor_neg, size_t ks, int mapped) {
    if (!mapped) return x;
    return x ^ xor_all ^ (xor_neg & (0 - ((x >> (ks * 8 - 1)) & 1)));
}

/* What a scatter does with the key map. A sort whose map is not the
 * identity (signed keys, floats, descending) maps its keys once: the first
 * of several scatters stores them mapped, the ones between need no map, and
 * the last stores them as they were (one scatter alone reads and stores
 * them as they are, mapping only its digits). */
enum { MODE_IDENT = 0, MODE_MAP = 1, MODE_MAP_IN = 2, MODE_UNMAP_OUT = 3 };

/* The inverse of map_key: xor_neg applies where the original key's sign bit
 * was set, which is the mapped key's top bit flipped by xor_all's. */
ALWAYS_INLINE uint64_t unmap_key(uint64_t y, uint64_t xor_all, uint64_t xor_neg, size_t ks) {
    const unsigned top = (unsigned)ks * 8 - 1;
    return y ^ xor_all ^ (xor_neg & (0 - (((y >> top) ^ (xor_all >> top)) & 1)));
}

/* The key a scatter in `mode` compares (digits) and the one it stores. */
ALWAYS_INLINE uint64_t digit_key(uint64_t x, uint64_t xa, uint64_t xn, size_t ks, int mode) {
    return map_key(x, xa, xn, ks, mode == MODE_MAP || mode == MODE_MAP_IN);
}
ALWAYS_INLINE uint64_t stored_key(uint64_t x, uint64_t mapped, uint64_t xa, uint64_t xn, size_t ks, int mode) {
    if (mode == MODE_MAP_IN) return mapped;
    if (mode == MODE_UNMAP_OUT) return unmap_key(x, xa, xn, ks);
    return x;
}

ALWAYS_INLINE void store_key(unsigned char *p, size_t i, size_t ks, uint64_t v) {
    switch (ks) {
    case 1: p[i] = (unsigned char)v; break;
    case 2: { uint16_t x = (uint16_t)v; memcpy(p + 2 * i, &x, 2); break; }
    case 4: { uint32_t x = (uint32_t)v; memcpy(p + 4 * i, &x, 4); break; }
    default: memcpy(p + 8 * i, &v, 8); break;
    }
}

/* Counts the digits of keys [b, e). With `track`, also ORs and ANDs the
 * mapped keys into or_and[0] and or_and[1]: the bits that vary between keys
 * are then known for every later pass from the first one's read. */
ALWAYS_INLINE void count_body(const radix_job_t *j, const unsigned char *src, size_t b, size_t e, unsigned shift,
                              uint64_t mask, size_t *h, uint64_t *or_and, size_t ks, int mapped, int track) {
    const uint64_t xa = j->m->xor_all, xn = j->m->xor_neg;
    uint64_t any = 0, all = ~(uint64_t)0;
    for (size_t i = b; i < e; ++i) {
        const uint64_t x = map_key(libscan__load_key(src, i, ks), xa, xn, ks, mapped);
        h[(x >> shift) & mask]++;
        if (track) {
            any |= x;
            all &= x;
        }
    }
    if (track) {
        or_and[0] = any;
        or_and[1] = all;
    }
}

static int is_mapped(const radix_job_t *j) { return (j->m->xor_all | j->m->xor_neg) != 0; }

#define COUNT_CASE(KS)                                                                                 \
    case KS * 4: count_body(j, src, b, e, shift, mask, h, or_and, KS, 0, 0); break;                   \
    case KS * 4 + 1: count_body(j, src, b, e, shift, mask, h, or_and, KS, 1, 0); break;               \
    case KS * 4 + 2: count_body(j, src, b, e, shift, mask, h, or_and, KS, 0, 1); break;               \
    case KS * 4 + 3: count_body(j, src, b, e, shift, mask, h, or_and, KS, 1, 1); break;

/* or_and NULL: no tracking. mapped: the keys in src are stored as the
 * caller gave them and the map is not the identity. */
static void count_chunk(const radix_job_t *j, const unsigned char *src, size_t b, size_t e, unsigned shift,
                        uint64_t mask, size_t *h, uint64_t *or_and, int mapped) {
    switch (j->ks * 4 + (size_t)mapped + (or_and ? 2u : 0u)) {
    COUNT_CASE(1)
    COUNT_CASE(2)
    COUNT_CASE(4)
    COUNT_CASE(8)
    default: break;
    }
}

ALWAYS_INLINE uint64_t value_at(const unsigned char *sv, size_t i, size_t vb, int iota) {
    if (iota) return (uint64_t)i;
    return libscan__load_key(sv, i, vb);
}

/* The plain scatter: every key (and value) straight to its place. Used
 * where the write-combining one below cannot be (an array not aligned to
 * its element size). */
ALWAYS_INLINE void scatter_body(const radix_job_t *j, int cur, size_t b, size_t e, unsigned shift, uint64_t mask,
                                size_t *off, int mode, size_t ks, size_t vb, int iota) {
    const unsigned char *sk = j->k[cur], *sv = j->v[cur];
    unsigned char *dk = j->k[cur ^ 1], *dv = j->v[cur ^ 1];
    const uint64_t xa = j->m->xor_all, xn = j->m->xor_neg;
    for (size_t i = b; i < e; ++i) {
        const uint64_t x = libscan__load_key(sk, i, ks);
        const uint64_t dkey = map_key(x, xa, xn, ks, mode == MODE_MAP || mode == MODE_MAP_IN);
        const size_t at = off[(dkey >> shift) & mask]++;
        store_key(dk, at, ks, mode == MODE_MAP_IN ? dkey : mode == MODE_UNMAP_OUT ? unmap_key(x, xa, xn, ks) : x);
        if (vb) store_key(dv, at, vb, value_at(sv, i, vb, iota));
    }
}

/* Copies one whole 64-byte line from the write-combining area to its
 * aligned place in memory, bypassing the caches where the CPU can: the line
 * is neither read first (no read-for-ownership) nor kept. */
ALWAYS_INLINE void put_line(unsigned char *dst, const unsigned char *line) {
#if LIBSCAN_STREAM_STORES
    for (int q = 0; q < 4; ++q)
        _mm_stream_si128((__m128i *)(void *)(dst + 16 * q), _mm_load_si128((const __m128i *)(const void *)(line + 16 * q)));
#else
    memcpy(dst, line, LINE);
#endif
}

/* One lane (keys or values) of the write-combining scatter: item p of
 * digit d goes to slot (a + p) mod L of d's line buffer, the slot it will
 * have in its 64-byte line of memory (a = the lane's address / size, mod
 * L). When the slot is the line's last, the line is complete: written whole
 * when all of it belongs to this thread's items of d (p - slot >= the first
 * position `first` this thread writes for d), else only from `first` on,
 * with ordinary stores (the start of d's range shares its line with other
 * writers). */
ALWAYS_INLINE void wc_put(unsigned char *dst, unsigned char *buf, size_t size, size_t a, size_t p, size_t first,
                          uint64_t v) {
    const size_t l = LINE / size, slot = (a + p) & (l - 1);
    store_key(buf, slot, size, v);
    if (slot != l - 1) return;
    if (slot <= p - first) put_line(dst + (p - slot) * size, buf);
    else memcpy(dst + first * size, buf + (slot - (p - first)) * size, (p + 1 - first) * size);
}

/* What is left in d's line buffer after the last item (position q - 1):
 * the items of the line q falls in, from max(line start, first). */
ALWAYS_INLINE void wc_drain(unsigned char *dst, const unsigned char *buf, size_t size, size_t a, size_t q,
                            size_t first) {
    const size_t l = LINE / size, pending = (a + q) & (l - 1);
    const size_t n = pending < q - first ? pending : q - first;
    if (n) memcpy(dst + (q - n) * size, buf + (pending - n) * size, n * size);
}

/* The scatter through write-combining line buffers (a thread's `wc` area:
 * RADIX lines for keys, then RADIX for values): a digit's keys are gathered
 * in one L1-resident line and leave as one whole-line store, instead of
 * each key missing the cache on its own. */
ALWAYS_INLINE void scatter_wc_body(const radix_job_t *j, int cur, size_t b, size_t e, unsigned shift, uint64_t mask,
                                   size_t *off, const size_t *first, unsigned char *wc, size_t ks, size_t vb,
                                   int iota, int mode) {
    const unsigned char *sk = j->k[cur], *sv = j->v[cur];
    unsigned char *dk = j->k[cur ^ 1], *dv = j->v[cur ^ 1];
    const uint64_t xa = j->m->xor_all, xn = j->m->xor_neg;
    const size_t ak = (uintptr_t)dk / ks, av = vb ? (uintptr_t)dv / vb : 0;
    unsigned char *wk = wc, *wv = wc + RADIX * LINE;
    for (size_t i = b; i < e; ++i) {
        const uint64_t x = libscan__load_key(sk, i, ks), dkey = digit_key(x, xa, xn, ks, mode);
        const size_t d = (dkey >> shift) & mask, p = off[d]++;
        wc_put(dk, wk + d * LINE, ks, ak, p, first[d], stored_key(x, dkey, xa, xn, ks, mode));
        if (vb) wc_put(dv, wv + d * LINE, vb, av, p, first[d], value_at(sv, i, vb, iota));
    }
    for (size_t d = 0; d <= mask; ++d) {
        wc_drain(dk, wk + d * LINE, ks, ak, off[d], first[d]);
        if (vb) wc_drain(dv, wv + d * LINE, vb, av, off[d], first[d]);
    }
#if LIBSCAN_STREAM_STORES
    _mm_sfence(); /* streaming stores are weakly ordered: make them visible before the barrier */
#endif
}

/* One function per variant (key size, value size, argsort's indices, map
 * mode): each loop gets the registers to itself, which a function holding
 * all of them inlined did not (8 reloads from the stack per key). The plain
 * scatter (misaligned arrays only) takes the mode at run time. */
typedef void (*wc_fn)(const radix_job_t *, int, size_t, size_t, unsigned, uint64_t, size_t *, const size_t *,
                      unsigned char *);
typedef void (*plain_fn)(const radix_job_t *, int, size_t, size_t, unsigned, uint64_t, size_t *, int);

#define DEFINE_WC(KS, VB, IOTA, MODE)                                                                       \
    static __attribute__((noinline)) void wc_##KS##_##VB##_##IOTA##_##MODE(const radix_job_t *j, int cur,    \
        size_t b, size_t e, unsigned shift, uint64_t mask, size_t *off, const size_t *first, unsigned char *wc) { \
        scatter_wc_body(j, cur, b, e, shift, mask, off, first, wc, KS, VB, IOTA, MODE);                      \
    }
#define DEFINE_SCATTERS(KS, VB, IOTA)                                                                      \
    DEFINE_WC(KS, VB, IOTA, 0) DEFINE_WC(KS, VB, IOTA, 1) DEFINE_WC(KS, VB, IOTA, 2) DEFINE_WC(KS, VB, IOTA, 3) \
    static __attribute__((noinline)) void plain_##KS##_##VB##_##IOTA(const radix_job_t *j, int cur, size_t b,  \
        size_t e, unsigned shift, uint64_t mask, size_t *off, int mode) {                                     \
        scatter_body(j, cur, b, e, shift, mask, off, mode, KS, VB, IOTA);                                     \
    }
#define DEFINE_SCATTERS_FOR_KEY(KS) \
    DEFINE_SCATTERS(KS, 0, 0) DEFINE_SCATTERS(KS, 4, 0) DEFINE_SCATTERS(KS, 4, 1) DEFINE_SCATTERS(KS, 8, 0) DEFINE_SCATTERS(KS, 8, 1)
DEFINE_SCATTERS_FOR_KEY(1)
DEFINE_SCATTERS_FOR_KEY(2)
DEFINE_SCATTERS_FOR_KEY(4)
DEFINE_SCATTERS_FOR_KEY(8)

/* [key size 1, 2, 4, 8][values: none, 4, 4 iota, 8, 8 iota][mode] */
#define WC_MODES(KS, VB, IOTA) {wc_##KS##_##VB##_##IOTA##_0, wc_##KS##_##VB##_##IOTA##_1, wc_##KS##_##VB##_##IOTA##_2, wc_##KS##_##VB##_##IOTA##_3}
#define WC_ROW(KS) {WC_MODES(KS, 0, 0), WC_MODES(KS, 4, 0), WC_MODES(KS, 4, 1), WC_MODES(KS, 8, 0), WC_MODES(KS, 8, 1)}
static const wc_fn wc_table[4][5][4] = {WC_ROW(1), WC_ROW(2), WC_ROW(4), WC_ROW(8)};
#define PLAIN_ROW(KS) {plain_##KS##_0_0, plain_##KS##_4_0, plain_##KS##_4_1, plain_##KS##_8_0, plain_##KS##_8_1}
static const plain_fn plain_table[4][5] = {PLAIN_ROW(1), PLAIN_ROW(2), PLAIN_ROW(4), PLAIN_ROW(8)};

/* Write-combining needs every destination element whole inside one line:
 * each output array aligned to its element size. */
static int wc_usable(const radix_job_t *j, int cur) {
    return (uintptr_t)j->k[cur ^ 1] % j->ks == 0 && (!j->vb || (uintptr_t)j->v[cur ^ 1] % j->vb == 0);
}

static void scatter_chunk(const radix_job_t *j, int cur, size_t b, size_t e, unsigned shift, uint64_t mask,
                          size_t *off, const size_t *first, unsigned char *wc, int iota, int mode) {
    const int k = j->ks == 1 ? 0 : j->ks == 2 ? 1 : j->ks == 4 ? 2 : 3;
    const int v = j->vb == 0 ? 0 : (j->vb == 4 ? 1 : 3) + iota;
    if (wc_usable(j, cur)) wc_table[k][v][mode](j, cur, b, e, shift, mask, off, first, wc);
    else plain_table[k][v](j, cur, b, e, shift, mask, off, mode);
}

static void fill_iota(unsigned char *v, size_t vb, size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) {
        if (vb == 4) {
            const uint32_t x = (uint32_t)i;
            memcpy(v + 4 * i, &x, 4);
        } else {
            const uint64_t x = (uint64_t)i;
            memcpy(v + 8 * i, &x, 8);
        }
    }
}

static void radix_thread(void *ctx, libscan__team_t *team, unsigned t) {
    radix_job_t *j = ctx;
    const libscan__key_map_t *m = j->m;
    const unsigned nt = libscan__team_size(team);
    size_t b, e;
    libscan__split(j->n, nt, t, &b, &e);
    size_t *off = j->offs + (size_t)t * 2 * RADIX, *first = off + RADIX;
    unsigned char *wc = j->wc + (size_t)t * 2 * RADIX * LINE;
    int cur = 0, iota = j->iota;
    unsigned counted = 0;            /* passes that counted: picks the histogram set */
    uint64_t varying = ~(uint64_t)0; /* mapped bits that differ between keys; all until known */
    const int mapped = is_mapped(j);
    int stored_mapped = 0;           /* the keys in k[cur] are stored mapped */
    unsigned scatters = 0, to_scatter = 0; /* scatters done; how many there will be, once known */
    for (unsigned shift = m->begin; shift < m->end; shift += DIGIT_BITS) {
        const unsigned bits = m->end - shift < DIGIT_BITS ? m->end - shift : DIGIT_BITS;
        const size_t radix = (size_t)1 << bits;
        const uint64_t mask = radix - 1;
        if (((varying >> shift) & mask) == 0) continue; /* one digit in every key: order unchanged */
        /* Two sets, alternating per counting pass: a thread that runs ahead
         * writes the other set, and can come back to this one only after the
         * next pass's barrier, which every thread reaches after it has read
         * this set. */
        size_t *set = j->hist + (size_t)(counted & 1) * nt * RADIX;
        size_t *mine = set + (size_t)t * RADIX;
        memset(mine, 0, radix * sizeof(size_t));
        uint64_t *or_and = counted == 0 ? j->or_and + (size_t)t * (LINE / 8) : NULL;
        count_chunk(j, j->k[cur], b, e, shift, mask, mine, or_and, mapped && !stored_mapped);
        libscan__team_barrier(team);
        if (counted++ == 0) {
            uint64_t any = 0, all = ~(uint64_t)0;
            for (unsigned s = 0; s < nt; ++s) {
                any |= j->or_and[(size_t)s * (LINE / 8)];
                all &= j->or_and[(size_t)s * (LINE / 8) + 1];
            }
            varying = any ^ all;
            for (unsigned sh = shift; sh < m->end; sh += DIGIT_BITS) {
                const unsigned bb = m->end - sh < DIGIT_BITS ? m->end - sh : DIGIT_BITS;
                if ((varying >> sh) & (((uint64_t)1 << bb) - 1)) ++to_scatter;
            }
            if (((varying >> shift) & mask) == 0) continue;
        }
        size_t run = 0;
        for (size_t d = 0; d < radix; ++d) {
            size_t total = 0, before_mine = 0;
            for (unsigned s = 0; s < nt; ++s) {
                const size_t c = set[(size_t)s * RADIX + d];
                if (s < t) before_mine += c;
                total += c;
            }
            off[d] = first[d] = run + before_mine;
            run += total;
        }
        int mode = MODE_IDENT;
        if (mapped) {
            if (to_scatter == 1) mode = MODE_MAP;
            else if (scatters == 0) mode = MODE_MAP_IN;
            else if (scatters + 1 == to_scatter) mode = MODE_UNMAP_OUT;
        }
        scatter_chunk(j, cur, b, e, shift, mask, off, first, wc, iota, mode);
        stored_mapped = mode == MODE_MAP_IN || (stored_mapped && mode == MODE_IDENT);
        ++scatters;
        iota = 0;
        libscan__team_barrier(team);
        cur ^= 1;
    }
    if (iota) fill_iota(j->v[cur], j->vb, b, e); /* no pass moved anything */
    if (cur) {
        memcpy(j->k[0] + b * j->ks, j->k[1] + b * j->ks, (e - b) * j->ks);
        if (j->vb) memcpy(j->v[0] + b * j->vb, j->v[1] + b * j->vb, (e - b) * j->vb);
    }
}

static size_t round_up_line(size_t bytes) { return (bytes + LINE - 1) / LINE * LINE; }

/* The scratch copy: line-aligned, so the write-combining scatter streams
 * whole lines from the first key on; from 2 MiB on also aligned to 2 MiB
 * and offered transparent huge pages (where the system leaves that to
 * madvise), which cuts the page faults of its first pass 512-fold and the
 * TLB misses of every pass (about 15% of a single-threaded u32 sort). */
static void *alloc_scratch(size_t bytes) {
#ifdef MADV_HUGEPAGE
    const size_t huge = (size_t)2 << 20;
    if (bytes >= huge) {
        const size_t rounded = (bytes + huge - 1) / huge * huge;
        void *p = aligned_alloc(huge, rounded);
        if (p) madvise(p, rounded, MADV_HUGEPAGE); /* advice only: failure changes nothing */
        return p;
    }
#endif
    return aligned_alloc(LINE, round_up_line(bytes));
}

libscan_status_t libscan__cpu_radix_sort(void *keys, void *values, size_t count, const libscan__key_map_t *m,
                                         size_t value_bytes, int iota_values) {
    const unsigned threads = libscan__cpu_threads(count, GRAIN);
    radix_job_t j;
    memset(&j, 0, sizeof j);
    j.m = m;
    j.n = count;
    j.ks = m->ks;
    j.vb = value_bytes;
    j.iota = iota_values;
    j.k[0] = keys;
    j.v[0] = values;
    j.k[1] = alloc_scratch(count * j.ks);
    j.v[1] = value_bytes ? alloc_scratch(count * value_bytes) : NULL;
    j.hist = aligned_alloc(LINE, round_up_line(2 * (size_t)threads * RADIX * sizeof(size_t)));
    j.offs = aligned_alloc(LINE, round_up_line((size_t)threads * 2 * RADIX * sizeof(size_t)));
    j.or_and = aligned_alloc(LINE, (size_t)threads * LINE);
    j.wc = aligned_alloc(LINE, (size_t)threads * 2 * RADIX * LINE);
    libscan_status_t st = LIBSCAN_ERROR_OUT_OF_MEMORY;
    if (j.k[1] && (!value_bytes || j.v[1]) && j.hist && j.offs && j.wc && j.or_and) {
        libscan__team_run(threads, radix_thread, &j);
        st = LIBSCAN_SUCCESS;
    }
    free(j.k[1]);
    free(j.v[1]);
    free(j.hist);
    free(j.offs);
    free(j.wc);
    free(j.or_and);
    return st;
}
