/* rs_merge.c -- see rs_merge.h. */
#include "rs_merge.h"

#include <stdlib.h>
#include "rs_threads.h"

void rs_keymap_init(rs_keymap_t *m, libscan_dtype_t key, bool descending) {
    memset(m, 0, sizeof *m);
    m->size = libscan_dtype_size(key);
    m->shift = (unsigned)(8 * m->size - 1);
    const uint64_t sign = (uint64_t)1 << m->shift;
    m->low = sign - 1;
    if (key == LIBSCAN_F32 || key == LIBSCAN_F64) m->fbit = 1;
    if (key == LIBSCAN_F32 || key == LIBSCAN_F64 || key == LIBSCAN_I32 || key == LIBSCAN_I64) m->xorc = sign;
    if (descending) m->xorc ^= sign | m->low;
}

void rs_corank(size_t k, const size_t *len, size_t t, uint64_t vlo, uint64_t vhi, rs_count_fn count, void *ctx,
               size_t *split, size_t *scratch) {
    size_t total = 0;
    for (size_t r = 0; r < k; ++r) total += len[r];
    if (t >= total) {
        memcpy(split, len, k * sizeof *split);
        return;
    }
    /* The smallest v with more than t records <= v: the key of rank t. */
    while (vlo < vhi) {
        const uint64_t mid = vlo + (vhi - vlo) / 2;
        size_t le = 0;
        for (size_t r = 0; r < k && le <= t; ++r) le += count(ctx, r, mid, true);
        if (le > t) vhi = mid;
        else vlo = mid + 1;
    }
    /* Below v every record is in; of the keys equal to v, the earliest runs'
       come first. */
    size_t need = t;
    for (size_t r = 0; r < k; ++r) {
        scratch[r] = count(ctx, r, vlo, false);
        need -= scratch[r];
    }
    for (size_t r = 0; r < k; ++r) {
        size_t eq = need ? count(ctx, r, vlo, true) - scratch[r] : 0;
        if (eq > need) eq = need;
        split[r] = scratch[r] + eq;
        need -= eq;
    }
}

/* ---- one window ----------------------------------------------------------- */

typedef struct window_ctx {
    const rs_merge_cfg_t *cfg;
    const rs_window_t *w;
    rs_merged_t *out;
    uint64_t vlo, vhi;
    size_t *scratch;   /* per thread: start and end splits, co-rank scratch, the tree */
    size_t per_thread; /* size_t words of scratch a thread, whole cache lines */
} window_ctx_t;

typedef struct slices {
    const rs_window_t *w;
    const rs_keymap_t *map;
    size_t ks;
} slices_t;

/* rs_count_fn over the window's in-memory slices. */
static size_t count_slice(void *ctx, size_t r, uint64_t v, bool inclusive) {
    const slices_t *s = ctx;
    const unsigned char *keys = s->w->keys + s->w->at[r] * s->ks;
    size_t lo = 0, hi = s->w->len[r];
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        const uint64_t m = rs_map_key(s->map, keys + mid * s->ks);
        if (inclusive ? m <= v : m < v) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* A run's slice in a part: the next record, and where the slice ends. */
typedef struct leaf {
    const unsigned char *keys;
    const uint64_t *idx;
    const unsigned char *vals;
    size_t pos, end;
} leaf_t;

/* Inlined into each key width's copy of the merge, where ks is a constant. */
#if defined(__GNUC__) || defined(__clang__)
#define RS_INLINE static inline __attribute__((always_inline))
#else
#define RS_INLINE static inline
#endif

RS_INLINE void copy_bytes(unsigned char *d, const unsigned char *s, size_t n) {
    switch (n) {
    case 1: d[0] = s[0]; break;
    case 2: memcpy(d, s, 2); break;
    case 4: memcpy(d, s, 4); break;
    case 8: memcpy(d, s, 8); break;
    default: memcpy(d, s, n); break;
    }
}

/* Writes the leaf's current record at output slot o. */
RS_INLINE void emit(const rs_merge_cfg_t *c, const leaf_t *l, unsigned char *okeys, unsigned char *ovals, size_t o,
                    const size_t ks) {
    const unsigned char *k = l->keys + l->pos * ks;
    if (c->argsort) {
        const int64_t p = (int64_t)l->idx[l->pos];
        memcpy(okeys + o * 8, &p, 8);
    } else if (c->out_ks == ks) {
        copy_bytes(okeys + o * ks, k, ks);
    } else { /* int8/int16 keys, sorted widened to int32 */
        int32_t x;
        memcpy(&x, k, 4);
        if (c->out_ks == 1) {
            const int8_t y = (int8_t)x;
            memcpy(okeys + o, &y, 1);
        } else {
            const int16_t y = (int16_t)x;
            memcpy(okeys + o * 2, &y, 2);
        }
    }
    if (ovals) copy_bytes(ovals + o * c->vsize, l->vals + l->pos * c->vsize, c->vsize);
}

/* A loser tree over the leaves (the part's non-empty slices in run order,
 * padded to nleaf, a power of two): key[i] and tie[i] are leaf i's current
 * mapped key and tie rank (i; nleaf + i once exhausted, so an exhausted leaf
 * loses to every key, UINT64_MAX included), node[1..nleaf) the loser of
 * each match. With packed (keys of 4 bytes or less), key[i] holds the mapped
 * key above the tie rank, so one comparison decides a match. */
RS_INLINE bool wins(const uint64_t *key, const size_t *tie, size_t a, size_t b, const bool packed) {
    if (packed) return key[a] < key[b];
    return key[a] < key[b] || (key[a] == key[b] && tie[a] < tie[b]);
}

RS_INLINE uint64_t leaf_key(uint64_t mapped, size_t tie, const bool packed) {
    return packed ? mapped << 32 | tie : mapped;
}

/* Merges [st, en) of every run into output slots from o; returns the
 * records written (fewer than the ranks with --unique). */
RS_INLINE size_t merge_part_k(const rs_merge_cfg_t *c, const rs_window_t *w, const size_t *st, const size_t *en,
                              bool has_prev, uint64_t prev, unsigned char *okeys, unsigned char *ovals, size_t o,
                              size_t *words, const size_t ks, const bool packed) {
    size_t m = 0;
    for (size_t r = 0; r < w->k; ++r)
        if (en[r] > st[r]) ++m;
    if (m == 0) return 0;
    size_t nleaf = 1;
    while (nleaf < m) nleaf *= 2;
    leaf_t *leaves = (leaf_t *)words;
    uint64_t *key = (uint64_t *)(leaves + nleaf);
    size_t *tie = (size_t *)(key + nleaf);
    size_t *node = tie + nleaf; /* nleaf entries, [0] unused */
    size_t *win = node + nleaf; /* 2 * nleaf: winners while building */
    const rs_keymap_t map = c->map;
    size_t total = 0;
    m = 0;
    for (size_t r = 0; r < w->k; ++r) {
        if (en[r] <= st[r]) continue;
        leaf_t *l = &leaves[m];
        l->keys = w->keys + w->at[r] * ks;
        l->idx = w->idx ? w->idx + w->at[r] : NULL;
        l->vals = w->vals ? w->vals + w->at[r] * c->vsize : NULL;
        l->pos = st[r];
        l->end = en[r];
        key[m] = leaf_key(rs_map_bits(&map, rs_load_key(l->keys + l->pos * ks, ks)), m, packed);
        tie[m] = m;
        total += en[r] - st[r];
        ++m;
    }
    for (size_t i = m; i < nleaf; ++i) {
        key[i] = leaf_key(packed ? UINT32_MAX : UINT64_MAX, nleaf + i, packed);
        tie[i] = nleaf + i;
    }
    for (size_t i = 0; i < nleaf; ++i) win[nleaf + i] = i;
    for (size_t n = nleaf; n-- > 1;) {
        const size_t a = win[2 * n], b = win[2 * n + 1];
        const bool ab = wins(key, tie, a, b, packed);
        win[n] = ab ? a : b;
        node[n] = ab ? b : a;
    }
    size_t top = nleaf > 1 ? win[1] : 0, written = 0;
    const bool unique = c->unique;
    for (size_t i = 0; i < total; ++i) {
        leaf_t *l = &leaves[top];
        const uint64_t mk = packed ? key[top] >> 32 : key[top];
        if (!unique || !has_prev || mk != prev) {
            emit(c, l, okeys, ovals, o + written, ks);
            ++written;
            prev = mk;
            has_prev = true;
        }
        if (++l->pos < l->end) {
            key[top] = leaf_key(rs_map_bits(&map, rs_load_key(l->keys + l->pos * ks, ks)), top, packed);
        } else {
            key[top] = leaf_key(packed ? UINT32_MAX : UINT64_MAX, nleaf + top, packed);
            tie[top] = nleaf + top;
        }
        /* Replay without branches: on random keys each match is a coin
           toss, and a mispredicted branch costs more than the match. */
        size_t cur = top;
        uint64_t ck = key[cur];
        size_t ct = tie[cur];
        for (size_t n = (nleaf + top) / 2; n >= 1; n /= 2) {
            const size_t other = node[n];
            const uint64_t ok = key[other];
            const size_t ot = packed ? 0 : tie[other];
            const bool w = packed ? ok < ck : ok < ck || (ok == ck && ot < ct);
            const size_t mask = (size_t)0 - (size_t)w;
            const size_t swap = (cur ^ other) & mask;
            node[n] = other ^ swap;
            cur ^= swap;
            ck ^= (ck ^ ok) & (uint64_t)mask;
            if (!packed) ct ^= (ct ^ ot) & mask;
        }
        top = cur;
    }
    return written;
}

/* One copy of the merge a key width. */
static size_t merge_part(const rs_merge_cfg_t *c, const rs_window_t *w, const size_t *st, const size_t *en,
                         bool has_prev, uint64_t prev, unsigned char *okeys, unsigned char *ovals, size_t o,
                         size_t *words) {
    if (w->k >= (size_t)1 << 31) /* tie ranks too wide to pack beside a key */
        return merge_part_k(c, w, st, en, has_prev, prev, okeys, ovals, o, words, c->ks, false);
    switch (c->ks) {
    case 1: return merge_part_k(c, w, st, en, has_prev, prev, okeys, ovals, o, words, 1, true);
    case 2: return merge_part_k(c, w, st, en, has_prev, prev, okeys, ovals, o, words, 2, true);
    case 4: return merge_part_k(c, w, st, en, has_prev, prev, okeys, ovals, o, words, 4, true);
    default: return merge_part_k(c, w, st, en, has_prev, prev, okeys, ovals, o, words, 8, false);
    }
}

#define LINE_WORDS (64 / sizeof(size_t)) /* a cache line */

/* size_t words of scratch for merging one part over k runs: splits and
 * co-rank scratch (3k), and the loser tree over at most 2k leaves; rounded
 * up to whole cache lines, so that no two threads write one line. */
static size_t part_words(size_t k) {
    size_t nleaf = 1;
    while (nleaf < k) nleaf *= 2;
    const size_t leaf_words = (sizeof(leaf_t) + sizeof(size_t) - 1) / sizeof(size_t);
    const size_t words = 3 * k + nleaf * (leaf_words + 1 + 1 + 1 + 2);
    return (words + LINE_WORDS - 1) / LINE_WORDS * LINE_WORDS;
}

/* The first rank of part p of `parts` over `total` ranks (equal shares, the
 * first total % parts one larger). */
static size_t part_rank(size_t total, size_t parts, size_t p) {
    return p * (total / parts) + (p < total % parts ? p : total % parts);
}

static void window_task(void *p, size_t part, unsigned thread) {
    const window_ctx_t *x = p;
    const rs_window_t *w = x->w;
    const rs_merge_cfg_t *c = x->cfg;
    const unsigned parts = x->out->parts;
    size_t *st = x->scratch + thread * x->per_thread, *en = st + w->k, *tmp = en + w->k;
    const size_t t0 = part_rank(w->total, parts, part), t1 = part_rank(w->total, parts, part + 1);
    slices_t s = {w, &c->map, c->ks};
    rs_corank(w->k, w->len, t0, x->vlo, x->vhi, count_slice, &s, st, tmp);
    rs_corank(w->k, w->len, t1, x->vlo, x->vhi, count_slice, &s, en, tmp);
    /* --unique: the record before this part is the largest of the window's
       record before it and each run's record before its start. */
    bool has_prev = w->has_prev;
    uint64_t prev = w->prev;
    if (c->unique)
        for (size_t r = 0; r < w->k; ++r) {
            if (st[r] == 0) continue;
            const uint64_t m = rs_map_key(&c->map, w->keys + (w->at[r] + st[r] - 1) * c->ks);
            if (!has_prev || m > prev) prev = m;
            has_prev = true;
        }
    x->out->part_at[part] = t0;
    x->out->part_n[part] = merge_part(c, w, st, en, has_prev, prev, x->out->keys, x->out->vals, t0, tmp + w->k);
}

int rs_merge_window(const rs_merge_cfg_t *cfg, const rs_window_t *w, rs_merged_t *out, unsigned threads) {
    out->parts = cfg->parts ? cfg->parts : 1;
    if (w->total < out->parts) out->parts = w->total ? (unsigned)w->total : 1;
    window_ctx_t x = {cfg, w, out, UINT64_MAX, 0, NULL, part_words(w->k)};
    if (threads > out->parts) threads = out->parts;
    if (threads < 1) threads = 1;
    for (size_t r = 0; r < w->k; ++r) {
        if (!w->len[r]) continue;
        const unsigned char *keys = w->keys + w->at[r] * cfg->ks;
        const uint64_t first = rs_map_key(&cfg->map, keys), last = rs_map_key(&cfg->map, keys + (w->len[r] - 1) * cfg->ks);
        if (first < x.vlo) x.vlo = first;
        if (last > x.vhi) x.vhi = last;
    }
    if (w->total == 0) {
        for (unsigned p = 0; p < out->parts; ++p) out->part_at[p] = out->part_n[p] = 0;
        return 0;
    }
    x.scratch = aligned_alloc(64, (size_t)threads * x.per_thread * sizeof(size_t));
    if (!x.scratch) return -1;
    rs_parallel_for(out->parts, threads, window_task, &x);
    free(x.scratch);
    return 0;
}
