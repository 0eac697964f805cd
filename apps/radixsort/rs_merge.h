/* rs_merge.h -- the k-way merge of sorted runs, split across threads.
 *
 * Keys compare through the order-preserving map of <libscan/sort.h>
 * ("Order": unsigned as is, signed with the sign bit flipped, floats in IEEE
 * total order, so -NaN < -inf < ... < -0.0 < +0.0 < ... < +NaN; descending
 * complements it), as unsigned 64-bit words. Records with equal mapped keys
 * go in run order, then in their order within the run: the runs are the
 * input's chunks in input order, each sorted stably, so this is the same
 * stable sort as in memory.
 *
 * Splitting: the t-th record of the merge (its co-rank) is found without
 * merging: the smallest mapped key v with more than t records <= v, counted
 * by binary searches in every run, gives each run's records < v; the
 * remaining records of rank < t are keys equal to v, taken from the earliest
 * runs first (ties go to the earlier run). The first t records of the merge
 * are then split[r] leading records of each run r, and the merge of two ranks
 * apart needs nothing outside those slices. So each thread merges its own
 * range of output ranks, from its own slice of every run, into its own place
 * in the output.
 *
 * Why on the CPU: the runs live in a file, and the merge reads and writes
 * each record once. A GPU merge would add two PCIe crossings of the same
 * bytes to save the comparisons, which with the threads of one machine
 * already run faster than the file I/O around them (reading the runs back
 * and writing the output), so the CPU merge is the faster whole. */
#ifndef RS_MERGE_H
#define RS_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "common/array_io.h"
#include <libscan/sort.h>

/* The map of one key type and direction, branch-free: x ^ (floats with the
 * sign bit set: every bit below it) ^ xorc. */
typedef struct rs_keymap {
    size_t size;    /* key bytes: 1, 2, 4 or 8 */
    unsigned shift; /* the sign bit's position */
    uint64_t fbit;  /* floats 1, others 0 */
    uint64_t low;   /* the bits below the sign bit */
    uint64_t xorc;  /* signed and floats: the sign bit; descending: then every bit flipped */
} rs_keymap_t;

void rs_keymap_init(rs_keymap_t *m, libscan_dtype_t key, bool descending);

/* The key of `size` bytes at p (native byte order), zero-extended. */
static inline uint64_t rs_load_key(const unsigned char *p, size_t size) {
    switch (size) {
    case 1: return p[0];
    case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
}

static inline uint64_t rs_map_bits(const rs_keymap_t *m, uint64_t x) {
    return x ^ ((0 - ((x >> m->shift) & m->fbit)) & m->low) ^ m->xorc;
}

/* The mapped key at p. */
static inline uint64_t rs_map_key(const rs_keymap_t *m, const unsigned char *p) {
    return rs_map_bits(m, rs_load_key(p, m->size));
}

/* How many of run r's records have a mapped key < v (inclusive false) or
 * <= v (inclusive true). */
typedef size_t (*rs_count_fn)(void *ctx, size_t r, uint64_t v, bool inclusive);

/* The co-rank of t: split[r] (r < k) = how many leading records of run r
 * are among the first t records of the stable merge of k runs of len[r]
 * records. vlo and vhi bound every mapped key; t <= the total. scratch has
 * room for k size_t. */
void rs_corank(size_t k, const size_t *len, size_t t, uint64_t vlo, uint64_t vhi, rs_count_fn count, void *ctx,
               size_t *split, size_t *scratch);

/* A window: consecutive ranks of the merge, as one slice of every run, the
 * slices back to back in memory (filled by rs_spill_read_window). */
typedef struct rs_window {
    size_t k;            /* runs */
    size_t *len;         /* records of run r in the window */
    size_t *at;          /* where run r's slice starts in the buffers (records) */
    unsigned char *keys; /* keys of the sort type */
    uint64_t *idx;       /* --argsort: input positions; else NULL */
    unsigned char *vals; /* values; NULL when none */
    size_t total;        /* records in the window */
    bool has_prev;       /* a record of the merge comes before the window */
    uint64_t prev;       /* its mapped key (for --unique) */
} rs_window_t;

/* What the merge writes, and how. */
typedef struct rs_merge_cfg {
    rs_keymap_t map;
    size_t ks;             /* key bytes in the runs (i8/i16 are widened to 4) */
    arr_dtype_t out_dtype; /* the keys' file dtype (narrowed back on output) */
    size_t out_ks;         /* bytes of one output key: 8 with --argsort */
    size_t vsize;          /* value bytes, 0 without values */
    bool argsort, unique;
    unsigned parts;        /* parts per window: several a thread, handed out in
                              turn, so a thread the system sets aside for a
                              while holds up no other */
} rs_merge_cfg_t;

/* A merged window: part p's records are at [part_at[p], part_at[p] +
 * part_n[p]) of keys (and vals); with --unique a part may keep fewer records
 * than its ranks, so the parts have gaps between them. */
typedef struct rs_merged {
    unsigned char *keys; /* out_ks bytes a record: the file dtype's keys, or int64 positions */
    unsigned char *vals; /* vsize bytes a record, NULL when none */
    size_t *part_at, *part_n;
    unsigned parts;
} rs_merged_t;

/* Merges window w into out (buffers of w->total records, part arrays of
 * cfg->parts entries) on up to `threads` threads. Returns 0, or -1 when out
 * of memory for the merge's bookkeeping. */
int rs_merge_window(const rs_merge_cfg_t *cfg, const rs_window_t *w, rs_merged_t *out, unsigned threads);

#endif
