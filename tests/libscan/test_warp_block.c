/* test_warp_block.c -- the warp and block collectives of the device layer
 * (label gpu): libscan::WarpScan and libscan::BlockScan, for Sum<uint32_t>
 * and a non-commutative monoid (2x2 matrix product mod 2^32, earlier operand
 * on the left), block sizes 32 and 256, against a CPU left fold. The kernels
 * live in support/warp_block_shim.cu. */
#include "support/harness.h"
#include "support/data.h"
#include "support/monoids.h"
#include "support/shims.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the two monoids on the CPU ----------------------------------------- */

typedef struct monoid {
    shim_type_t type;
    const char *name;
    size_t size;
    void (*combine)(const void *a, const void *b, void *out); /* a earlier */
    void (*identity)(void *out);
    void (*random)(rng_t *r, void *out);
    void (*format)(const void *v, char *buf, size_t cap);
} monoid_t;

static void u32_combine(const void *a, const void *b, void *out) {
    uint32_t x, y;
    memcpy(&x, a, 4);
    memcpy(&y, b, 4);
    x += y;
    memcpy(out, &x, 4);
}
static void u32_identity(void *out) { memset(out, 0, 4); }
static void u32_random(rng_t *r, void *out) {
    uint32_t v = rng_u32(r);
    memcpy(out, &v, 4);
}
static void u32_format(const void *v, char *buf, size_t cap) {
    uint32_t x;
    memcpy(&x, v, 4);
    snprintf(buf, cap, "%" PRIu32, x);
}

static void mat2_combine(const void *a, const void *b, void *out) {
    mat2_t x, y, r;
    memcpy(&x, a, sizeof x);
    memcpy(&y, b, sizeof y);
    r = mat2_mul(x, y);
    memcpy(out, &r, sizeof r);
}
static void mat2_identity_v(void *out) {
    mat2_t i = mat2_identity();
    memcpy(out, &i, sizeof i);
}
static void mat2_random(rng_t *r, void *out) {
    mat2_t m = data_random_mat2(r);
    memcpy(out, &m, sizeof m);
}
static void mat2_format(const void *v, char *buf, size_t cap) {
    mat2_t m;
    memcpy(&m, v, sizeof m);
    snprintf(buf, cap, "[[%" PRIu32 ", %" PRIu32 "], [%" PRIu32 ", %" PRIu32 "]]", m.m[0], m.m[1], m.m[2], m.m[3]);
}

static const monoid_t monoids[2] = {
    {SHIM_U32_SUM, "Sum<uint32_t>", 4, u32_combine, u32_identity, u32_random, u32_format},
    {SHIM_MAT2, "2x2 matrix product", sizeof(mat2_t), mat2_combine, mat2_identity_v, mat2_random, mat2_format},
};

static void check_shim(int rc, const char *what) {
    if (rc == SHIM_UNSUPPORTED) TFAIL("%s: the shim does not support this case", what);
    if (rc == SHIM_GUARD_CORRUPTED) TFAIL("%s: output guard elements were overwritten", what);
    if (rc != 0)
        TFAIL("%s: CUDA error %d (%s: %s)", what, rc, cudaGetErrorName((cudaError_t)rc),
              cudaGetErrorString((cudaError_t)rc));
}

static void expect_elem(const monoid_t *m, const void *want, const void *got, const char *ctx, size_t index) {
    if (memcmp(want, got, m->size) != 0) {
        char a[160], b[160];
        m->format(want, a, sizeof a);
        m->format(got, b, sizeof b);
        TFAIL("%s, %s: element %zu is %s, expected %s", m->name, ctx, index, b, a);
    }
}

static void *xmalloc(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p) TFAIL("out of host memory (%zu bytes)", bytes);
    return p;
}

/* ---- WarpScan ------------------------------------------------------------- */

static const char *const warp_mode_names[] = {"InclusiveScan", "InclusiveScan+aggregate", "ExclusiveScan",
                                              "ExclusiveScan+aggregate", "Broadcast"};

static void run_warp(const monoid_t *m) {
    const int warps = 16;
    const size_t n = (size_t)warps * 32, es = m->size;
    unsigned char *in = xmalloc(n * es), *out = xmalloc(n * es), *agg = xmalloc(n * es);
    unsigned char acc[16], total[16];
    rng_t r;
    rng_init(&r, "warp", m->type);
    for (int mode = SHIM_WARP_INCL; mode <= SHIM_WARP_BROADCAST; ++mode) {
        char ctx[128];
        snprintf(ctx, sizeof ctx, "WarpScan::%s", warp_mode_names[mode]);
        for (size_t i = 0; i < n; ++i) m->random(&r, in + i * es);
        check_shim(shim_warp_run(m->type, (shim_warp_mode_t)mode, warps, in, out, agg), ctx);
        for (int w = 0; w < warps; ++w) {
            const unsigned char *win = in + (size_t)w * 32 * es;
            m->identity(total);
            for (int l = 0; l < 32; ++l) m->combine(total, win + l * es, total);
            m->identity(acc);
            for (int l = 0; l < 32; ++l) {
                const size_t i = (size_t)w * 32 + l;
                switch (mode) {
                case SHIM_WARP_INCL:
                case SHIM_WARP_INCL_AGG:
                    m->combine(acc, win + l * es, acc);
                    expect_elem(m, acc, out + i * es, ctx, i);
                    break;
                case SHIM_WARP_EXCL:
                case SHIM_WARP_EXCL_AGG:
                    expect_elem(m, acc, out + i * es, ctx, i);
                    m->combine(acc, win + l * es, acc);
                    break;
                default: /* Broadcast(x, w % 32) */
                    expect_elem(m, win + (w % 32) * es, out + i * es, ctx, i);
                    break;
                }
                if (mode == SHIM_WARP_INCL_AGG || mode == SHIM_WARP_EXCL_AGG) {
                    char actx[160];
                    snprintf(actx, sizeof actx, "%s: warp aggregate in lane %d", ctx, l);
                    expect_elem(m, total, agg + i * es, actx, i);
                }
            }
        }
    }
    free(in);
    free(out);
    free(agg);
}

static void test_warp_scan_u32_sum(void **state) {
    (void)state;
    test_require_gpu();
    run_warp(&monoids[0]);
}

static void test_warp_scan_mat2(void **state) {
    (void)state;
    test_require_gpu();
    run_warp(&monoids[1]);
}

/* ---- BlockScan ------------------------------------------------------------ */

static const char *const block_mode_names[] = {
    "InclusiveScan (blocked)", "InclusiveScan+aggregate (blocked)", "ExclusiveScan (blocked)",
    "ExclusiveScan+aggregate (blocked)", "Reduce (blocked)", "InclusiveScan with running prefix callback (blocked)",
    "ExclusiveScan with running prefix callback (blocked)", "ScanWarpStriped(exclusive=false)",
    "ScanWarpStriped(exclusive=true)", "ScanWarpStriped(exclusive=false) with running prefix callback",
    "ScanWarpStriped(exclusive=true) with running prefix callback"};

static int mode_is_exclusive(int mode) {
    return mode == SHIM_BLOCK_EXCL || mode == SHIM_BLOCK_EXCL_AGG || mode == SHIM_BLOCK_EXCL_PREFIX ||
           mode == SHIM_STRIPED_EXCL || mode == SHIM_STRIPED_EXCL_PREFIX;
}
static int mode_has_prefix(int mode) {
    return mode == SHIM_BLOCK_INCL_PREFIX || mode == SHIM_BLOCK_EXCL_PREFIX || mode == SHIM_STRIPED_INCL_PREFIX ||
           mode == SHIM_STRIPED_EXCL_PREFIX;
}
static int mode_has_agg(int mode) { return mode != SHIM_BLOCK_INCL && mode != SHIM_BLOCK_EXCL; }

/* Runs one mode on 3 blocks x 4 tiles and checks every output element and
 * every thread's aggregate against a CPU left fold. */
static void run_block(const monoid_t *m, int block_threads, int mode) {
    const int blocks = 3, tiles = 4;
    const int ipt = shim_block_items_per_thread(m->type, (shim_block_mode_t)mode);
    if (ipt <= 0) TFAIL("no items per thread for mode %d", mode);
    const size_t es = m->size, tile_items = (size_t)block_threads * (size_t)ipt;
    const size_t ntiles = (size_t)blocks * tiles, n = ntiles * tile_items;
    unsigned char *in = xmalloc(n * es), *out = xmalloc(n * es), *agg = xmalloc(ntiles * block_threads * es);
    unsigned char prefix_init[16], running[16], acc[16], fold[16];
    char ctx[256];
    rng_t r;
    rng_init(&r, "block", (uint64_t)m->type * 100000 + (uint64_t)block_threads * 100 + (uint64_t)mode);
    for (size_t i = 0; i < n; ++i) m->random(&r, in + i * es);
    m->random(&r, prefix_init);
    snprintf(ctx, sizeof ctx, "BlockScan<%d threads, %d items/thread>::%s", block_threads, ipt, block_mode_names[mode]);
    check_shim(shim_block_run(m->type, block_threads, (shim_block_mode_t)mode, blocks, tiles, prefix_init, in, out, agg),
               ctx);
    for (int b = 0; b < blocks; ++b) {
        memcpy(running, prefix_init, es);
        for (int t = 0; t < tiles; ++t) {
            const size_t tile = (size_t)b * tiles + t;
            const unsigned char *tin = in + tile * tile_items * es;
            const unsigned char *tout = out + tile * tile_items * es;
            m->identity(fold);
            for (size_t i = 0; i < tile_items; ++i) m->combine(fold, tin + i * es, fold);
            if (mode == SHIM_BLOCK_REDUCE) {
                for (size_t i = 0; i < tile_items; ++i) expect_elem(m, tin + i * es, tout + i * es, ctx, tile * tile_items + i);
            } else {
                if (mode_has_prefix(mode)) memcpy(acc, running, es);
                else m->identity(acc);
                for (size_t i = 0; i < tile_items; ++i) {
                    if (mode_is_exclusive(mode)) {
                        expect_elem(m, acc, tout + i * es, ctx, tile * tile_items + i);
                        m->combine(acc, tin + i * es, acc);
                    } else {
                        m->combine(acc, tin + i * es, acc);
                        expect_elem(m, acc, tout + i * es, ctx, tile * tile_items + i);
                    }
                }
            }
            if (mode_has_agg(mode))
                for (int th = 0; th < block_threads; ++th) {
                    char actx[320];
                    snprintf(actx, sizeof actx, "%s: aggregate (without the prefix) of tile %zu in thread %d", ctx,
                             tile, th);
                    expect_elem(m, fold, agg + (tile * block_threads + th) * es, actx, tile);
                }
            m->combine(running, fold, running);
        }
    }
    free(in);
    free(out);
    free(agg);
}

static void run_block_modes(const int *modes, size_t nmodes) {
    static const int sizes[] = {32, 256};
    for (int t = 0; t < 2; ++t)
        for (int s = 0; s < 2; ++s)
            for (size_t k = 0; k < nmodes; ++k) run_block(&monoids[t], sizes[s], modes[k]);
}

static void test_block_scan_blocked(void **state) {
    (void)state;
    test_require_gpu();
    const int modes[] = {SHIM_BLOCK_INCL, SHIM_BLOCK_INCL_AGG, SHIM_BLOCK_EXCL, SHIM_BLOCK_EXCL_AGG};
    run_block_modes(modes, 4);
}

static void test_block_reduce(void **state) {
    (void)state;
    test_require_gpu();
    const int modes[] = {SHIM_BLOCK_REDUCE};
    run_block_modes(modes, 1);
}

static void test_block_scan_prefix_callback(void **state) {
    (void)state;
    test_require_gpu();
    const int modes[] = {SHIM_BLOCK_INCL_PREFIX, SHIM_BLOCK_EXCL_PREFIX};
    run_block_modes(modes, 2);
}

static void test_block_scan_warp_striped(void **state) {
    (void)state;
    test_require_gpu();
    const int modes[] = {SHIM_STRIPED_INCL, SHIM_STRIPED_EXCL, SHIM_STRIPED_INCL_PREFIX, SHIM_STRIPED_EXCL_PREFIX};
    run_block_modes(modes, 4);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_warp_scan_u32_sum),
        cmocka_unit_test(test_warp_scan_mat2),
        cmocka_unit_test(test_block_scan_blocked),
        cmocka_unit_test(test_block_reduce),
        cmocka_unit_test(test_block_scan_prefix_callback),
        cmocka_unit_test(test_block_scan_warp_striped),
    };
    test_begin("test_warp_block");
    return test_exit_code(cmocka_run_group_tests(tests, NULL, NULL));
}
