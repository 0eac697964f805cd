/* test_sort_identity_pass.c -- radix-sort passes whose digit is the same for
 * every key (label gpu; issue #23). Such a pass is the identity permutation
 * and its blocks only copy their tile (onesweep.cuh, holds_every_key()):
 * keys, values, or argsort's first indices. Here keys differ only in chosen
 * bytes (none, the top, the top without the sign, the low, a middle one, the
 * low and the top, the sign bit alone) on a base of random bits, all zeros or
 * all ones (so the one full bin is digit 0, digit 255 or any), for U8 (the
 * passes forced), U16, U32, I32, F32, U64, I64, F64 keys; ascending and
 * descending (the digit is of the mapped key: floats of both signs that
 * differ in the top byte differ in every mapped byte, so no pass is skipped
 * there); keys alone, pairs with 4- and 8-byte values, argsort with 4- and
 * 8-byte indices, the double buffer; input and output off the 16-byte
 * boundary (the element-wise copy); sizes 1..3 tiles of every tile shape
 * (5760, 6144, 7680 keys; 4096 and 7168 before), not multiples of a tile or of a
 * vector, and 2^20 + 3; bit ranges where some passes are the identity, all
 * of them are (the output is the input, stable), or the last, narrower pass
 * is. Keys in long runs of one value: whole tiles of one digit in every
 * pass beside tiles that straddle runs, every type and mode, argsort's
 * first indices included; runs drawn from 2, 32 and 33 values, so that the
 * passes hold at most or just more than kUniformTileDigits (32) digits: a
 * 4-byte pairs tile of one digit then skips the ranking (onesweep.cuh,
 * kUniformTiles) beside tiles that rank. Expected
 * outputs: the stable qsort reference of sort_reference.c, bitwise; the
 * element after the output stays poisoned. Every pass kernel runs only on the
 * GPU: without one every test skips. */
#include "support/harness.h"
#include "sort_reference.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* sort_internal.h's switch (libscan_static exports it): 1 makes U8/U16 keys
 * without values take the passes instead of the counting sort. */
void libscan__sort_force_path(int path);
enum { PATH_AUTO = 0, PATH_ONESWEEP = 1 };

enum { MODE_KEYS, MODE_PAIRS4, MODE_PAIRS8, MODE_ARGSORT4, MODE_ARGSORT8, MODE_DOUBLE_BUFFER, MODE_COUNT };
static const char *const kModeNames[MODE_COUNT] = {"keys", "pairs4", "pairs8", "argsort4", "argsort8", "double-buffer"};

enum { SHAPE_ALL_EQUAL, SHAPE_TOP_BYTE, SHAPE_TOP_NO_SIGN, SHAPE_LOW_BYTE, SHAPE_MIDDLE_BYTE, SHAPE_LOW_AND_TOP,
       SHAPE_SIGN_ONLY, SHAPE_COUNT };
static const char *const kShapeNames[SHAPE_COUNT] = {"all-equal",   "top-byte",    "top-byte-no-sign", "low-byte",
                                                     "middle-byte", "low-and-top", "sign-only"};

enum { BASE_RANDOM, BASE_ZEROS, BASE_ONES, BASE_COUNT };

static const libscan_dtype_t kKeys[8] = {LIBSCAN_U8,  LIBSCAN_U16, LIBSCAN_U32, LIBSCAN_I32,
                                         LIBSCAN_F32, LIBSCAN_U64, LIBSCAN_I64, LIBSCAN_F64};

/* Tile shapes of the passes are 5760, 6144 and 7680 keys (8-byte, 4-byte
 * pairs, 4-byte keys): one tile of each and a key either side, two and
 * three of the 4-byte shapes and a key (12288, 15361, 18431/18433,
 * 23039/23041), three 8-byte tiles and a key (17281), the tiles of before
 * (4096, 7168), sizes not a multiple of any vector, and the trivial
 * sizes. */
static const size_t kSizes[] = {1,     2,     3,     4096,  5759,  5760,  5761,  6143,  6144,  6145,  7167,
                                7168,  7169,  7679,  7680,  7681,  8193,  12288, 12289, 15361, 17281, 18431,
                                18433, 23039, 23041, 100003};

/* The bits in which keys of `shape` differ, for keys of width w bits. */
static uint64_t vary_bits(int shape, unsigned w) {
    const uint64_t all = w == 64 ? ~0ull : (1ull << w) - 1;
    const uint64_t top = 0xffull << (w - 8), sign = 1ull << (w - 1);
    switch (shape) {
    case SHAPE_TOP_BYTE: return top;
    case SHAPE_TOP_NO_SIGN: return top & ~sign; /* one sign for every key (the base's) */
    case SHAPE_LOW_BYTE: return 0xffull;
    case SHAPE_MIDDLE_BYTE: return w >= 32 ? (0xffull << (8 * (w / 16 - 1))) & all : 0xffull; /* byte 1 / byte 3 */
    case SHAPE_LOW_AND_TOP: return (top | 0xffull) & all;
    case SHAPE_SIGN_ONLY: return sign;
    default: return 0;
    }
}

/* n keys of width ks that equal base outside `vary` and are random inside. */
static void fill_keys(rng_t *r, unsigned char *keys, size_t n, size_t ks, uint64_t vary, int base_kind) {
    const unsigned w = (unsigned)ks * 8;
    const uint64_t all = w == 64 ? ~0ull : (1ull << w) - 1;
    const uint64_t base = base_kind == BASE_ZEROS ? 0 : base_kind == BASE_ONES ? all : rng_u64(r) & all;
    for (size_t i = 0; i < n; ++i) {
        const uint64_t v = (base & ~vary) | (rng_u64(r) & vary);
        memcpy(keys + i * ks, &v, ks); /* little-endian: the low bytes */
    }
}

/* n keys of width ks in runs of one random value, each run 1 to 3 x 7680
 * keys long: most tiles of every pass hold one digit, the others straddle
 * two or more runs. pool > 0: each run's value is one of `pool` random
 * values (at most `pool` digits in any pass); 0: a new value per run. */
static void fill_runs(rng_t *r, unsigned char *keys, size_t n, size_t ks, unsigned pool) {
    uint64_t values[64];
    assert_true(pool <= 64);
    for (unsigned j = 0; j < pool; ++j) values[j] = rng_u64(r);
    uint64_t v = 0;
    size_t left = 0;
    for (size_t i = 0; i < n; ++i, --left) {
        if (left == 0) {
            v = pool ? values[rng_u32(r) % pool] : rng_u64(r);
            left = 1 + rng_u32(r) % (3 * 7680);
        }
        memcpy(keys + i * ks, &v, ks);
    }
}

static void *dmalloc(size_t bytes) {
    void *p = NULL;
    CUDA_CHECK(cudaMalloc(&p, bytes ? bytes : 1));
    return p;
}

typedef struct sort_case {
    libscan_dtype_t key;
    uint64_t vary;
    int base_kind;
    int desc;
    int mode;
    size_t n;
    unsigned begin, end; /* end 0: the whole key */
    size_t off;          /* keys and values this far past cudaMalloc's alignment (keys, pairs) */
    const char *what;    /* the shape's name, for the failure line */
    int runs;            /* keys in runs of one value (fill_runs) instead of fill_keys' */
    unsigned pool;       /* runs: their values drawn from this many (0: a new one per run) */
} sort_case_t;

/* One sort on the GPU against the reference. */
static void run_case(const sort_case_t *c, uint64_t idx) {
    const size_t ks = libscan_dtype_size(c->key), n = c->n, off = c->off;
    const size_t vb = c->mode == MODE_PAIRS4 || c->mode == MODE_ARGSORT4 ? 4
                      : c->mode == MODE_PAIRS8 || c->mode == MODE_ARGSORT8 || c->mode == MODE_DOUBLE_BUFFER ? 8
                                                                                                             : 0;
    const int argsort = c->mode == MODE_ARGSORT4 || c->mode == MODE_ARGSORT8;
    rng_t r;
    rng_init(&r, "sort-identity-pass", idx);
    unsigned char *keys = malloc(n * ks + 1), *out = malloc(n * ks + 1);
    unsigned char *vals = malloc(n * 8 + 8), *vout = malloc(n * 8 + 8);
    assert_true(keys && out && vals && vout);
    if (c->runs) fill_runs(&r, keys, n, ks, c->pool);
    else fill_keys(&r, keys, n, ks, c->vary, c->base_kind);
    if (argsort) ref_iota(vals, n, vb);
    else
        for (size_t i = 0; i < n * vb; ++i) vals[i] = (unsigned char)rng_u32(&r); /* the payload moves with its key */

    /* One element of room either side of the offset arrays, poisoned. */
    unsigned char *dk0 = dmalloc((n + off + 1) * ks), *dk1 = dmalloc((n + off + 1) * ks);
    unsigned char *dv0 = dmalloc((n + off + 1) * 8), *dv1 = dmalloc((n + off + 1) * 8);
    CUDA_CHECK(cudaMemset(dk1, 0xAB, (n + off + 1) * ks));
    CUDA_CHECK(cudaMemset(dv1, 0xAB, (n + off + 1) * 8));
    CUDA_CHECK(cudaMemcpy(dk0 + off * ks, keys, n * ks, cudaMemcpyHostToDevice));
    if (vb && !argsort) CUDA_CHECK(cudaMemcpy(dv0 + off * vb, vals, n * vb, cudaMemcpyHostToDevice));
    CUDA_SYNC();

    libscan_sort_opts_t o = LIBSCAN_SORT_OPTS_INIT;
    o.descending = c->desc;
    o.begin_bit = c->begin;
    o.end_bit = c->end;
    void *temp = NULL;
    if (idx & 2) { /* caller temp half the time, the temp cache otherwise */
        const libscan_sort_mode_t m = argsort ? LIBSCAN_SORT_ARGSORT
                                      : c->mode == MODE_DOUBLE_BUFFER ? LIBSCAN_SORT_DOUBLE_BUFFER
                                                                      : LIBSCAN_SORT_OUT_OF_PLACE;
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort_temp_bytes(n, c->key, vb, m, &o.temp_bytes));
        temp = dmalloc(o.temp_bytes);
        o.d_temp = temp;
    }
    const unsigned char *res_k = dk1 + off * ks, *res_v = dv1 + off * vb;
    int guard = 1; /* the element after the output is poison */
    if (c->mode == MODE_DOUBLE_BUFFER) {
        libscan_double_buffer_t db = {{dk0, dk1}, {dv0, dv1}, 0};
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort_double_buffer(&db, n, c->key, vb, &o, 0));
        assert_int_equal(db.selector, libscan_sort_num_passes(c->key, c->begin, c->end) & 1);
        res_k = db.d_keys[db.selector];
        res_v = db.d_values[db.selector];
        guard = db.selector == 1;
    } else if (argsort) {
        const int keep_keys = !(idx & 1);
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_argsort(dk0 + off * ks, keep_keys ? dk1 + off * ks : NULL, dv1 + off * vb,
                                                   n, c->key, vb, &o, 0));
        if (!keep_keys) res_k = NULL;
    } else {
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_sort(dk0 + off * ks, dk1 + off * ks, vb ? dv0 + off * vb : NULL,
                                                vb ? dv1 + off * vb : NULL, n, c->key, vb, &o, 0));
    }
    CUDA_SYNC();
    if (res_k) CUDA_CHECK(cudaMemcpy(out, res_k, n * ks, cudaMemcpyDeviceToHost));
    if (vb) CUDA_CHECK(cudaMemcpy(vout, res_v, n * vb, cudaMemcpyDeviceToHost));

    size_t *perm = ref_order(c->key, keys, n, c->desc, c->begin, c->end);
    assert_non_null(perm);
    const size_t bad = ref_first_mismatch(perm, n, res_k ? ks : 0, keys, out, vb, vals, vout);
    if (bad != n)
        TFAIL("%s %s keys (%s base %d) %s %s n=%zu bits [%u,%u) offset %zu: first mismatch at %zu",
              libscan_dtype_name(c->key), c->what, c->desc ? "desc" : "asc", c->base_kind, kModeNames[c->mode],
              temp ? "caller temp" : "no temp", n, c->begin, c->end, off, bad);
    if (guard) {
        unsigned char after[8];
        if (res_k) {
            CUDA_CHECK(cudaMemcpy(after, res_k + n * ks, ks, cudaMemcpyDeviceToHost));
            for (size_t i = 0; i < ks; ++i)
                if (after[i] != 0xAB) TFAIL("%s %s n=%zu: key written past the output", libscan_dtype_name(c->key),
                                            kModeNames[c->mode], n);
        }
        if (vb) {
            CUDA_CHECK(cudaMemcpy(after, res_v + n * vb, vb, cudaMemcpyDeviceToHost));
            for (size_t i = 0; i < vb; ++i)
                if (after[i] != 0xAB) TFAIL("%s %s n=%zu: value written past the output", libscan_dtype_name(c->key),
                                            kModeNames[c->mode], n);
        }
    }
    free(perm);
    CUDA_CHECK(cudaFree(dk0));
    CUDA_CHECK(cudaFree(dk1));
    CUDA_CHECK(cudaFree(dv0));
    CUDA_CHECK(cudaFree(dv1));
    if (temp) CUDA_CHECK(cudaFree(temp));
    free(keys);
    free(out);
    free(vals);
    free(vout);
}

/* Every key type x shape x direction x mode over kSizes; the base and the
 * pointer offset (out-of-place modes) taken in turn. */
static void test_shapes_every_type_mode_size(void **state) {
    (void)state;
    test_require_gpu();
    libscan__sort_force_path(PATH_ONESWEEP);
    uint64_t idx = 0;
    for (int k = 0; k < 8; ++k)
        for (int shape = 0; shape < SHAPE_COUNT; ++shape)
            for (int desc = 0; desc < 2; ++desc)
                for (int mode = 0; mode < MODE_COUNT; ++mode)
                    for (size_t s = 0; s < sizeof kSizes / sizeof kSizes[0]; ++s, ++idx) {
                        if (!test_size_allowed(kSizes[s])) continue;
                        const size_t ks = libscan_dtype_size(kKeys[k]);
                        sort_case_t c = {kKeys[k], vary_bits(shape, (unsigned)ks * 8), (int)(idx % BASE_COUNT), desc,
                                         mode, kSizes[s], 0, 0, 0, kShapeNames[shape], 0, 0};
                        if (mode != MODE_DOUBLE_BUFFER) c.off = (idx / BASE_COUNT) % 3; /* 0, 1 or 2 elements */
                        run_case(&c, idx);
                    }
    libscan__sort_force_path(PATH_AUTO);
}

/* The distributions at ~2^20 keys (many tiles, the tile counter
 * handing tiles out of block order): all-equal, top-byte-only, low-byte-only
 * keys of every type, every base, both directions, modes in turn. */
static void test_shapes_2pow20(void **state) {
    (void)state;
    test_require_gpu();
    const size_t n = test_capped_n(((size_t)1 << 20) + 3, 1);
    const int shapes[3] = {SHAPE_ALL_EQUAL, SHAPE_TOP_BYTE, SHAPE_LOW_BYTE};
    uint64_t idx = 100000;
    libscan__sort_force_path(PATH_ONESWEEP);
    for (int k = 0; k < 8; ++k)
        for (int s = 0; s < 3; ++s)
            for (int base = 0; base < BASE_COUNT; ++base, ++idx) {
                const size_t ks = libscan_dtype_size(kKeys[k]);
                sort_case_t c = {kKeys[k], vary_bits(shapes[s], (unsigned)ks * 8), base, (int)(idx & 1),
                                 (int)(idx % MODE_COUNT), n, 0, 0, 0, kShapeNames[shapes[s]], 0, 0};
                run_case(&c, idx);
            }
    libscan__sort_force_path(PATH_AUTO);
}

/* Keys in long runs (fill_runs): every type, both directions and every mode
 * at 3 tiles and a few keys; at ~2^20 keys, every type and direction with
 * the modes in turn. */
static void test_long_runs(void **state) {
    (void)state;
    test_require_gpu();
    uint64_t idx = 150000;
    libscan__sort_force_path(PATH_ONESWEEP);
    for (int k = 0; k < 8; ++k)
        for (int desc = 0; desc < 2; ++desc) {
            for (int mode = 0; mode < MODE_COUNT; ++mode, ++idx) {
                sort_case_t c = {kKeys[k], 0, BASE_RANDOM, desc, mode, 3 * 7680 + 5, 0, 0, 0, "runs", 1, 0};
                run_case(&c, idx);
            }
            const size_t n = test_capped_n(((size_t)1 << 20) + 3, 1);
            sort_case_t c = {kKeys[k], 0, BASE_RANDOM, desc, (int)(idx % MODE_COUNT), n, 0, 0, 0, "runs", 1, 0};
            run_case(&c, idx++);
        }
    libscan__sort_force_path(PATH_AUTO);
}

/* Runs of few values (fill_runs' pool): every pass holds at most 2, 32 or 33
 * digits, around kUniformTileDigits, where 4-byte pairs tiles of one digit
 * skip the ranking (and their neighbours that straddle two runs rank); pairs
 * and argsort with 4-byte values for every key type that takes that kernel,
 * keys and 8-byte values for the others' sake, at 3 tiles and 2^18 + 3 keys
 * (43 tiles of 6144). */
static void test_runs_of_few_values(void **state) {
    (void)state;
    test_require_gpu();
    static const unsigned kPools[] = {2, 32, 33};
    static const int kModes[] = {MODE_PAIRS4, MODE_ARGSORT4, MODE_KEYS, MODE_PAIRS8};
    uint64_t idx = 160000;
    libscan__sort_force_path(PATH_ONESWEEP);
    for (int k = 0; k < 8; ++k)
        for (int desc = 0; desc < 2; ++desc)
            for (size_t pl = 0; pl < sizeof kPools / sizeof kPools[0]; ++pl)
                for (size_t m = 0; m < sizeof kModes / sizeof kModes[0]; ++m, ++idx) {
                    const size_t n = m < 2 || pl == 0 ? test_capped_n(((size_t)1 << 18) + 3, 1) : 3 * 7680 + 5;
                    sort_case_t c = {kKeys[k], 0, BASE_RANDOM, desc, kModes[m], n, 0, 0, 0, "runs of few values", 1,
                                     kPools[pl]};
                    run_case(&c, idx);
                }
    libscan__sort_force_path(PATH_AUTO);
}

/* Bit ranges: keys that vary only where some passes' digits do not look, in
 * every mode, both directions, three sizes. */
static void test_bit_ranges(void **state) {
    (void)state;
    test_require_gpu();
    static const struct {
        libscan_dtype_t key;
        unsigned begin, end;
        uint64_t vary;
        const char *what;
    } kRanges[] = {
        {LIBSCAN_U32, 16, 32, 0xffffull, "every pass identity (keys vary below the range)"},
        {LIBSCAN_U32, 0, 13, 0xffffe000ull, "every pass identity, the last one 5 bits"},
        {LIBSCAN_U32, 0, 13, 0x1f00ull, "first pass identity, the 5-bit last pass real"},
        {LIBSCAN_U32, 0, 13, 0x00ffull, "the 5-bit last pass identity"},
        {LIBSCAN_U32, 4, 28, 0xff00ull, "the third of three passes identity"},
        {LIBSCAN_U32, 4, 28, 0xf000000full, "every pass identity (keys vary outside the range)"},
        {LIBSCAN_I32, 0, 8, 0x80000000ull, "one pass, identity (only the sign varies)"},
        {LIBSCAN_I32, 8, 32, 0x800000ffull, "the top pass real (sign), the others identity"},
        {LIBSCAN_U64, 3, 61, 0x0000ff0000000000ull, "two of eight passes real, the 2-bit last identity"},
        {LIBSCAN_I64, 40, 64, 0xff00000000000000ull, "the top pass real, two identity"},
        {LIBSCAN_U16, 0, 12, 0x00f0ull, "two passes, the 4-bit last identity"},
    };
    const size_t sizes[3] = {7681, 23041, 100003};
    uint64_t idx = 200000;
    for (size_t i = 0; i < sizeof kRanges / sizeof kRanges[0]; ++i)
        for (int mode = 0; mode < MODE_COUNT; ++mode)
            for (int desc = 0; desc < 2; ++desc)
                for (int s = 0; s < 3; ++s, ++idx) {
                    if (!test_size_allowed(sizes[s])) continue;
                    sort_case_t c = {kRanges[i].key, kRanges[i].vary, BASE_RANDOM, desc, mode, sizes[s],
                                     kRanges[i].begin, kRanges[i].end, 0, kRanges[i].what, 0, 0};
                    run_case(&c, idx);
                }
}

int main(void) {
    test_begin("test_sort_identity_pass");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapes_every_type_mode_size),
        cmocka_unit_test(test_shapes_2pow20),
        cmocka_unit_test(test_long_runs),
        cmocka_unit_test(test_runs_of_few_values),
        cmocka_unit_test(test_bit_ranges),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    return test_exit_code(failed);
}
