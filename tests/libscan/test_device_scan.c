/* test_device_scan.c -- device-wide scans through the C API (label gpu), and
 * non-commutative monoids of 16, 8 and 12 bytes through the C++ device layer
 * (libscan::DeviceScan<T>::run, kernels in support/device_layer_shim.cu).
 *
 * Every case: fresh random input (seeded, never all zeros), output poisoned
 * with 0xFF bytes and surrounded by poisoned guard bytes, every element
 * compared with the CPU reference (support/reference.c), guards checked,
 * every libscan status and CUDA call checked. Sizes follow the tuning table
 * (libscan/cuda/tuning.cuh, read through support/tuning_shim.cu): tile =
 * block threads x items per thread for the element size. */
#include "support/harness.h"
#include "support/data.h"
#include "support/monoids.h"
#include "support/reference.h"
#include "support/shims.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GUARD 256 /* poisoned bytes on each side of every output buffer */

static char msg[4096];

static void *xmalloc(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p) TFAIL("out of host memory (%zu bytes)", bytes);
    return p;
}

static size_t tile_of(libscan_dtype_t dt) {
    size_t t = shim_scan_tile_items(ref_dtype_size(dt));
    if (t == 0) TFAIL("no tile size for %s", ref_dtype_name(dt));
    return t;
}

/* The largest tile of any dtype: rig capacities are multiples of it. */
static size_t max_tile(void) {
    size_t a = tile_of(LIBSCAN_U32), b = tile_of(LIBSCAN_U64);
    return a > b ? a : b;
}

static libscan_status_t scan(int excl, const void *in, void *out, size_t n, libscan_dtype_t dt, libscan_op_t op,
                             const libscan_scan_opts_t *o, cudaStream_t s) {
    return excl ? libscan_exclusive_scan(in, out, n, dt, op, o, s) : libscan_inclusive_scan(in, out, n, dt, op, o, s);
}

/* ---- device buffers with poisoned guards ---------------------------------- */

typedef struct dbuf {
    unsigned char *base; /* GUARD | bytes | GUARD */
    unsigned char *p;
    size_t bytes;
} dbuf_t;

static void dbuf_alloc(dbuf_t *b, size_t bytes) {
    b->bytes = bytes;
    CUDA_CHECK(cudaMalloc((void **)&b->base, bytes + 2 * GUARD));
    b->p = b->base + GUARD;
}
/* cudaMemset runs on the legacy stream, which non-blocking streams do not
 * wait for: the poison is settled before anything else is enqueued. */
static void dbuf_poison(dbuf_t *b) {
    CUDA_CHECK(cudaMemset(b->base, 0xFF, b->bytes + 2 * GUARD));
    CUDA_CHECK(cudaDeviceSynchronize());
}
static void dbuf_free(dbuf_t *b) {
    if (b->base) CUDA_CHECK(cudaFree(b->base));
    b->base = b->p = NULL;
}
/* Bytes that must still be 0xFF: everything from the buffer's start (its
 * guard included) up to p + from, and up to 4 KiB after p + to (the end of
 * what the scan may write), its guard included. */
static void check_ff(const unsigned char *dev, size_t len, long long rel, const char *ctx) {
    unsigned char h[GUARD + 4096 + 64];
    if (len > sizeof h) TFAIL("internal: guard window too large");
    if (len == 0) return;
    CUDA_CHECK(cudaMemcpy(h, dev, len, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < len; ++i)
        if (h[i] != 0xFF)
            TFAIL("%s: byte %lld relative to the output start was overwritten (now 0x%02x)", ctx, rel + (long long)i, h[i]);
}
static void dbuf_check_untouched(const dbuf_t *b, size_t from, size_t to, const char *ctx) {
    if (from > 64) TFAIL("internal: output offset too large");
    check_ff(b->base, GUARD + from, -(long long)GUARD, ctx);
    size_t after = b->bytes - to + GUARD;
    if (after > 4096) after = 4096;
    check_ff(b->p + to, after, (long long)to, ctx);
}
/* The whole buffer, guards included, is still 0xFF: nothing was written. */
static void dbuf_check_all_untouched(const dbuf_t *b, const char *ctx) {
    const size_t len = b->bytes + 2 * GUARD;
    unsigned char *h = malloc(len);
    if (!h) TFAIL("out of host memory");
    cudaError_t e = cudaMemcpy(h, b->base, len, cudaMemcpyDeviceToHost);
    for (size_t i = 0; e == cudaSuccess && i < len; ++i)
        if (h[i] != 0xFF) {
            const unsigned v = h[i];
            free(h);
            TFAIL("%s: output byte %lld was written (0x%02x) though the call must not launch anything", ctx,
                  (long long)i - GUARD, v);
        }
    free(h);
    CUDA_CHECK(e);
}
static void dbuf_check_guards(const dbuf_t *b, size_t used, const char *ctx) { dbuf_check_untouched(b, 0, used, ctx); }

/* ---- one scan through the C API, checked ----------------------------------- */

typedef enum variant {
    V_PLAIN = 0,   /* opts NULL (even sizes) or zeroed opts (odd sizes): identity carry-in, library temp */
    V_OPTIONS = 1, /* host init, d_total, caller temp of exactly libscan_scan_temp_bytes() */
} variant_t;

typedef struct rig {
    size_t cap;          /* elements */
    dbuf_t in, out;
    void *d_total, *d_temp;
    size_t temp_cap;
    unsigned char *h_in, *h_out;
} rig_t;

static void rig_init(rig_t *g, size_t cap_elems) {
    memset(g, 0, sizeof *g);
    g->cap = cap_elems;
    dbuf_alloc(&g->in, cap_elems * 8);
    dbuf_alloc(&g->out, cap_elems * 8);
    CUDA_CHECK(cudaMalloc(&g->d_total, 8));
    size_t t4 = 0, t8 = 0;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_scan_temp_bytes(cap_elems, LIBSCAN_U32, &t4));
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_scan_temp_bytes(cap_elems, LIBSCAN_U64, &t8));
    g->temp_cap = t4 > t8 ? t4 : t8;
    if (g->temp_cap) CUDA_CHECK(cudaMalloc(&g->d_temp, g->temp_cap));
    g->h_in = xmalloc(cap_elems * 8);
    g->h_out = xmalloc(cap_elems * 8);
}

static void rig_free(rig_t *g) {
    dbuf_free(&g->in);
    dbuf_free(&g->out);
    CUDA_CHECK(cudaFree(g->d_total));
    if (g->d_temp) CUDA_CHECK(cudaFree(g->d_temp));
    free(g->h_in);
    free(g->h_out);
}

/* Fills h_in, scans it as told, checks everything. */
static void run_case(rig_t *g, rng_t *r, libscan_dtype_t dt, libscan_op_t op, int excl, size_t n, data_flavor_t fl,
                     variant_t v) {
    const size_t es = ref_dtype_size(dt);
    unsigned char init[8], total[8];
    char ctx[256];
    snprintf(ctx, sizeof ctx, "%s %s %s scan, n=%zu, %s%s", excl ? "exclusive" : "inclusive", ref_dtype_name(dt),
             ref_op_name(op), n, v == V_PLAIN ? (n % 2 ? "zeroed opts" : "opts=NULL") : "host init+d_total+caller temp",
             fl == DATA_FLOAT_INTEGERS ? ", integer-valued floats" : "");
    if (n > g->cap) TFAIL("%s: rig too small", ctx);
    data_fill(r, dt, op, fl, g->h_in, n);
    if (n) CUDA_CHECK(cudaMemcpy(g->in.p, g->h_in, n * es, cudaMemcpyHostToDevice));
    dbuf_poison(&g->out);
    CUDA_CHECK(cudaMemset(g->d_total, 0xFF, 8));
    CUDA_CHECK(cudaDeviceSynchronize()); /* settle the legacy stream's memset before work on non-blocking streams */

    libscan_scan_opts_t o = LIBSCAN_SCAN_OPTS_INIT;
    const libscan_scan_opts_t *op_ptr = (n % 2) ? &o : NULL;
    if (v == V_OPTIONS) {
        data_pick_init(r, dt, op, fl, g->h_in, n, init);
        size_t need = 0;
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_scan_temp_bytes(n, dt, &need));
        if (need > g->temp_cap) TFAIL("%s: temp %zu > rig's %zu", ctx, need, g->temp_cap);
        o.init = init;
        o.d_total = g->d_total;
        o.d_temp = need ? g->d_temp : NULL;
        o.temp_bytes = need;
        op_ptr = &o;
    }
    libscan_status_t st = scan(excl, g->in.p, g->out.p, n, dt, op, op_ptr, 0);
    if (st != LIBSCAN_SUCCESS) TFAIL("%s: returned %d (%s)", ctx, (int)st, libscan_status_string(st));
    CUDA_SYNC();
    if (n) CUDA_CHECK(cudaMemcpy(g->h_out, g->out.p, n * es, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(total, g->d_total, es, cudaMemcpyDeviceToHost));
    dbuf_check_guards(&g->out, n * es, ctx);
    ref_case_t c = {dt, op, excl, g->h_in, n, v == V_OPTIONS ? init : NULL, fl == DATA_FLOAT_INTEGERS};
    if (ref_check(&c, g->h_out, v == V_OPTIONS ? total : NULL, msg, sizeof msg)) TFAIL("%s: %s", ctx, msg);
}

/* The grid scan's tile and capacity for this dtype (GridTuning). */
static size_t grid_tile_of(libscan_dtype_t dt) {
    size_t t = shim_grid_tile_items(ref_dtype_size(dt));
    if (t == 0) TFAIL("no grid tile size for %s", ref_dtype_name(dt));
    return t;
}
static size_t grid_capacity_of(libscan_dtype_t dt) {
    size_t c = shim_grid_capacity(ref_dtype_size(dt));
    if (c == 0) TFAIL("no grid capacity for %s", ref_dtype_name(dt));
    return c;
}

/* The most tiles that still take the mid-size look-back kernel. */
static size_t mid_tiles_of(libscan_dtype_t dt) {
    const size_t m = shim_scan_mid_max_tiles(ref_dtype_size(dt));
    if (m == 0) TFAIL("no mid-size kernel for %s", ref_dtype_name(dt));
    return m;
}

/* The sizes of the sweep, for this dtype: the small scan's tile and
 * capacity boundaries (one launch up to the capacity), then the look-back
 * path's: the mid-size kernel up to m tiles (its last one partial), the
 * large kernel from m + 1. */
static size_t sweep_sizes(libscan_dtype_t dt, size_t *out) {
    const size_t t = tile_of(dt), g = grid_tile_of(dt), c = grid_capacity_of(dt), m = mid_tiles_of(dt);
    const size_t s[] = {0,     1,     31,    32,    33,    255,   256,       257,        g - 1,  g + 1,
                        c - 1, c,     c + 1, t - 1, t,     t + 1, m * t - 5, m * t + 17, 1048573};
    memcpy(out, s, sizeof s);
    return sizeof s / sizeof s[0];
}

static void sweep_dtype(libscan_dtype_t dt) {
    test_require_gpu();
    size_t sizes[24];
    const size_t ns = test_filter_sizes(sizes, sweep_sizes(dt, sizes));
    size_t cap = 0;
    for (size_t i = 0; i < ns; ++i) cap = sizes[i] > cap ? sizes[i] : cap;
    rig_t g;
    rig_init(&g, cap);
    rng_t r;
    rng_init(&r, "sweep", (uint64_t)dt);
    for (int o = 0; o < REF_NUM_OPS; ++o)
        for (int excl = 0; excl < 2; ++excl)
            for (size_t i = 0; i < ns; ++i)
                for (int v = 0; v < 2; ++v) {
                    const libscan_op_t op = ref_ops[o];
                    run_case(&g, &r, dt, op, excl, sizes[i], DATA_DEFAULT, (variant_t)v);
                    if (ref_is_float(dt) && op == LIBSCAN_OP_SUM)
                        run_case(&g, &r, dt, op, excl, sizes[i], DATA_FLOAT_INTEGERS, (variant_t)v);
                }
    rig_free(&g);
}

static void test_sweep_u32(void **state) { (void)state; sweep_dtype(LIBSCAN_U32); }
static void test_sweep_i32(void **state) { (void)state; sweep_dtype(LIBSCAN_I32); }
static void test_sweep_u64(void **state) { (void)state; sweep_dtype(LIBSCAN_U64); }
static void test_sweep_i64(void **state) { (void)state; sweep_dtype(LIBSCAN_I64); }
static void test_sweep_f32(void **state) { (void)state; sweep_dtype(LIBSCAN_F32); }
static void test_sweep_f64(void **state) { (void)state; sweep_dtype(LIBSCAN_F64); }

/* 2^28 elements, for two combinations only (run time): exclusive u32 sum
 * with every option (4-byte packed look-back), inclusive i64 max plain
 * (8-byte split look-back). */
static void test_two_pow_28(void **state) {
    (void)state;
    test_require_gpu();
    const size_t n = (size_t)1 << 28;
    test_skip_above_cap(n, "the 2^28-element scan");
    rig_t g;
    rig_init(&g, n);
    rng_t r;
    rng_init(&r, "2^28", 0);
    run_case(&g, &r, LIBSCAN_U32, LIBSCAN_OP_SUM, 1, n, DATA_DEFAULT, V_OPTIONS);
    run_case(&g, &r, LIBSCAN_I64, LIBSCAN_OP_MAX, 0, n, DATA_DEFAULT, V_PLAIN);
    rig_free(&g);
}

/* ---- in place --------------------------------------------------------------- */

static void test_in_place(void **state) {
    (void)state;
    test_require_gpu();
    rng_t r;
    rng_init(&r, "in place", 0);
    rig_t g;
    rig_init(&g, 100 * max_tile() + 17);
    for (int d = 0; d < REF_NUM_DTYPES; ++d) {
        const libscan_dtype_t dt = ref_dtypes[d];
        const size_t t = tile_of(dt), es = ref_dtype_size(dt);
        const size_t sizes[] = {1, 257, t + 1, 100 * t + 17};
        for (int o = 0; o < REF_NUM_OPS; ++o)
            for (int excl = 0; excl < 2; ++excl)
                for (size_t k = 0; k < 4; ++k) {
                    const libscan_op_t op = ref_ops[o];
                    const size_t n = sizes[k];
                    if (!test_size_allowed(n)) continue;
                    const data_flavor_t fl = ref_is_float(dt) && op == LIBSCAN_OP_SUM ? DATA_FLOAT_INTEGERS : DATA_DEFAULT;
                    char ctx[160];
                    snprintf(ctx, sizeof ctx, "in-place %s %s %s scan, n=%zu", excl ? "exclusive" : "inclusive",
                             ref_dtype_name(dt), ref_op_name(op), n);
                    if (n > g.cap) TFAIL("internal: %zu elements exceed the rig (%zu)", n, g.cap);
                    data_fill(&r, dt, op, fl, g.h_in, n);
                    dbuf_poison(&g.out);
                    CUDA_CHECK(cudaMemcpy(g.out.p, g.h_in, n * es, cudaMemcpyHostToDevice));
                    libscan_scan_opts_t opts = LIBSCAN_SCAN_OPTS_INIT;
                    unsigned char total[8];
                    CUDA_CHECK(cudaMemset(g.d_total, 0xFF, 8));
                    CUDA_CHECK(cudaDeviceSynchronize()); /* settle the legacy stream's memset before work on non-blocking streams */
                    opts.d_total = g.d_total;
                    libscan_status_t st = scan(excl, g.out.p, g.out.p, n, dt, op, k % 2 ? &opts : NULL, 0);
                    if (st != LIBSCAN_SUCCESS) TFAIL("%s: returned %d (%s)", ctx, (int)st, libscan_status_string(st));
                    CUDA_SYNC();
                    CUDA_CHECK(cudaMemcpy(g.h_out, g.out.p, n * es, cudaMemcpyDeviceToHost));
                    CUDA_CHECK(cudaMemcpy(total, g.d_total, es, cudaMemcpyDeviceToHost));
                    dbuf_check_guards(&g.out, n * es, ctx);
                    ref_case_t c = {dt, op, excl, g.h_in, n, NULL, fl == DATA_FLOAT_INTEGERS};
                    if (ref_check(&c, g.h_out, k % 2 ? total : NULL, msg, sizeof msg)) TFAIL("%s: %s", ctx, msg);
                }
    }
    rig_free(&g);
}

/* ---- carry-in on the device, carry-out, chaining ----------------------------- */

/* d_init: the carry-in read on the device; it stays unchanged. Also
 * d_total == d_init: the carry is updated in place. */
static void test_device_carry_in_and_out(void **state) {
    (void)state;
    test_require_gpu();
    rng_t r;
    rng_init(&r, "d_init", 0);
    rig_t g;
    rig_init(&g, 40 * max_tile() + 3);
    void *d_init = NULL;
    CUDA_CHECK(cudaMalloc(&d_init, 8));
    for (int d = 0; d < REF_NUM_DTYPES; ++d) {
        const libscan_dtype_t dt = ref_dtypes[d];
        const size_t t = tile_of(dt), es = ref_dtype_size(dt);
        const size_t sizes[] = {1, t, t + 1, 40 * t + 3};
        for (int o = 0; o < REF_NUM_OPS; ++o)
            for (int excl = 0; excl < 2; ++excl)
                for (size_t k = 0; k < 4; ++k)
                    for (int same = 0; same < 2; ++same) {
                        const libscan_op_t op = ref_ops[o];
                        const size_t n = sizes[k];
                        if (!test_size_allowed(n)) continue;
                        const data_flavor_t fl =
                            ref_is_float(dt) && op == LIBSCAN_OP_SUM ? DATA_FLOAT_INTEGERS : DATA_DEFAULT;
                        unsigned char init[8], total[8], init_after[8];
                        char ctx[200];
                        snprintf(ctx, sizeof ctx, "%s %s %s scan, n=%zu, d_init%s", excl ? "exclusive" : "inclusive",
                                 ref_dtype_name(dt), ref_op_name(op), n,
                                 same ? " == d_total" : " and a separate d_total");
                        if (n > g.cap) TFAIL("internal: %zu elements exceed the rig (%zu)", n, g.cap);
                        data_fill(&r, dt, op, fl, g.h_in, n);
                        data_pick_init(&r, dt, op, fl, g.h_in, n, init);
                        CUDA_CHECK(cudaMemcpy(g.in.p, g.h_in, n * es, cudaMemcpyHostToDevice));
                        CUDA_CHECK(cudaMemcpy(d_init, init, es, cudaMemcpyHostToDevice));
                        dbuf_poison(&g.out);
                        CUDA_CHECK(cudaMemset(g.d_total, 0xFF, 8));
                        CUDA_CHECK(cudaDeviceSynchronize()); /* settle the legacy stream's memset before work on non-blocking streams */
                        libscan_scan_opts_t opts = LIBSCAN_SCAN_OPTS_INIT;
                        opts.d_init = d_init;
                        opts.d_total = same ? d_init : g.d_total;
                        libscan_status_t st = scan(excl, g.in.p, g.out.p, n, dt, op, &opts, 0);
                        if (st != LIBSCAN_SUCCESS) TFAIL("%s: returned %d (%s)", ctx, (int)st, libscan_status_string(st));
                        CUDA_SYNC();
                        CUDA_CHECK(cudaMemcpy(g.h_out, g.out.p, n * es, cudaMemcpyDeviceToHost));
                        CUDA_CHECK(cudaMemcpy(total, opts.d_total, es, cudaMemcpyDeviceToHost));
                        dbuf_check_guards(&g.out, n * es, ctx);
                        ref_case_t c = {dt, op, excl, g.h_in, n, init, fl == DATA_FLOAT_INTEGERS};
                        if (ref_check(&c, g.h_out, total, msg, sizeof msg)) TFAIL("%s: %s", ctx, msg);
                        if (!same) {
                            CUDA_CHECK(cudaMemcpy(init_after, d_init, es, cudaMemcpyDeviceToHost));
                            if (memcmp(init_after, init, es) != 0) TFAIL("%s: *d_init was modified", ctx);
                        }
                    }
    }
    CUDA_CHECK(cudaFree(d_init));
    rig_free(&g);
}

/* Scanning in 3-7 uneven chunks (sometimes one empty), with d_total feeding
 * the next chunk's d_init (the same pointer), equals one scan bitwise, and
 * the final carry equals the one scan's total. Floats sum integer values so
 * both are exact. */
static void test_chaining(void **state) {
    (void)state;
    test_require_gpu();
    rng_t r;
    rng_init(&r, "chaining", 0);
    const size_t cap = 21 * max_tile();
    rig_t g;
    rig_init(&g, cap);
    dbuf_t one;
    dbuf_alloc(&one, cap * 8);
    unsigned char *h_one = xmalloc(cap * 8);
    void *d_carry = NULL;
    CUDA_CHECK(cudaMalloc(&d_carry, 8));
    int run = 0;
    for (int d = 0; d < REF_NUM_DTYPES; ++d) {
        const libscan_dtype_t dt = ref_dtypes[d];
        const size_t t = tile_of(dt), es = ref_dtype_size(dt);
        for (int o = 0; o < REF_NUM_OPS; ++o)
            for (int excl = 0; excl < 2; ++excl, ++run) {
                const libscan_op_t op = ref_ops[o];
                const data_flavor_t fl = ref_is_float(dt) && op == LIBSCAN_OP_SUM ? DATA_FLOAT_INTEGERS : DATA_DEFAULT;
                const size_t n = test_capped_n(3 * t + (size_t)rng_below(&r, 17 * t), 1);
                const int chunks = 3 + (int)rng_below(&r, 5);
                size_t cut[8];
                cut[0] = 0;
                cut[chunks] = n;
                for (int c = 1; c < chunks; ++c) cut[c] = (size_t)rng_below(&r, n + 1);
                if (run % 3 == 0) cut[2] = cut[1]; /* an empty chunk */
                for (int a = 1; a < chunks; ++a) /* sort the inner cuts */
                    for (int b = a + 1; b < chunks; ++b)
                        if (cut[b] < cut[a]) {
                            size_t x = cut[a];
                            cut[a] = cut[b];
                            cut[b] = x;
                        }
                unsigned char init[8], carry[8], total[8];
                char ctx[256];
                int k = snprintf(ctx, sizeof ctx, "%s %s %s, n=%zu in %d chunks at", excl ? "exclusive" : "inclusive",
                                 ref_dtype_name(dt), ref_op_name(op), n, chunks);
                for (int c = 1; c < chunks && k > 0 && (size_t)k < sizeof ctx; ++c)
                    k += snprintf(ctx + k, sizeof ctx - (size_t)k, " %zu", cut[c]);
                if (n > g.cap) TFAIL("internal: %zu elements exceed the rig (%zu)", n, g.cap);
                data_fill(&r, dt, op, fl, g.h_in, n);
                data_pick_init(&r, dt, op, fl, g.h_in, n, init);
                CUDA_CHECK(cudaMemcpy(g.in.p, g.h_in, n * es, cudaMemcpyHostToDevice));
                CUDA_CHECK(cudaMemcpy(d_carry, init, es, cudaMemcpyHostToDevice));
                dbuf_poison(&g.out);
                dbuf_poison(&one);
                CUDA_CHECK(cudaMemset(g.d_total, 0xFF, 8));
                CUDA_CHECK(cudaDeviceSynchronize()); /* settle the legacy stream's memset before work on non-blocking streams */
                /* chunk by chunk, all enqueued before any synchronisation; caller
                 * temp reused by every call on alternate runs */
                for (int c = 0; c < chunks; ++c) {
                    const size_t len = cut[c + 1] - cut[c];
                    libscan_scan_opts_t opts = LIBSCAN_SCAN_OPTS_INIT;
                    opts.d_init = d_carry;
                    opts.d_total = d_carry;
                    if (run % 2) {
                        size_t need = 0;
                        LS_EXPECT(LIBSCAN_SUCCESS, libscan_scan_temp_bytes(len, dt, &need));
                        opts.d_temp = need ? g.d_temp : NULL;
                        opts.temp_bytes = need;
                    }
                    libscan_status_t st = scan(excl, g.in.p + cut[c] * es, g.out.p + cut[c] * es, len, dt, op, &opts, 0);
                    if (st != LIBSCAN_SUCCESS)
                        TFAIL("%s: chunk %d (%zu elements) returned %d (%s)", ctx, c, len, (int)st,
                              libscan_status_string(st));
                }
                /* and in one go */
                libscan_scan_opts_t opts = LIBSCAN_SCAN_OPTS_INIT;
                opts.init = init;
                opts.d_total = g.d_total;
                libscan_status_t st = scan(excl, g.in.p, one.p, n, dt, op, &opts, 0);
                if (st != LIBSCAN_SUCCESS) TFAIL("%s: the single scan returned %d (%s)", ctx, (int)st, libscan_status_string(st));
                CUDA_SYNC();
                CUDA_CHECK(cudaMemcpy(g.h_out, g.out.p, n * es, cudaMemcpyDeviceToHost));
                CUDA_CHECK(cudaMemcpy(h_one, one.p, n * es, cudaMemcpyDeviceToHost));
                CUDA_CHECK(cudaMemcpy(carry, d_carry, es, cudaMemcpyDeviceToHost));
                CUDA_CHECK(cudaMemcpy(total, g.d_total, es, cudaMemcpyDeviceToHost));
                dbuf_check_guards(&g.out, n * es, ctx);
                dbuf_check_guards(&one, n * es, ctx);
                ref_case_t rc = {dt, op, excl, g.h_in, n, init, fl == DATA_FLOAT_INTEGERS};
                if (ref_check(&rc, h_one, total, msg, sizeof msg)) TFAIL("%s: single scan: %s", ctx, msg);
                if (ref_check(&rc, g.h_out, carry, msg, sizeof msg)) TFAIL("%s: chained scan: %s", ctx, msg);
                const int differs = memcmp(g.h_out, h_one, n * es) != 0;
                for (size_t i = 0; differs && i < n; ++i)
                    if (memcmp(g.h_out + i * es, h_one + i * es, es) != 0)
                        TFAIL("%s: chained output differs from the single scan at %zu", ctx, i);
                if (memcmp(carry, total, es) != 0) TFAIL("%s: final carry differs from the single scan's total", ctx);
            }
    }
    CUDA_CHECK(cudaFree(d_carry));
    dbuf_free(&one);
    free(h_one);
    rig_free(&g);
}

/* count == 0 with d_total: the total is the initial value (identity, host
 * init, *d_init, or d_total == d_init left as it was); nothing else is
 * written. count == 0 without d_total: success, nothing written. */
static void test_count_zero(void **state) {
    (void)state;
    test_require_gpu();
    rng_t r;
    rng_init(&r, "count 0", 0);
    rig_t g;
    rig_init(&g, 64);
    void *d_init = NULL;
    CUDA_CHECK(cudaMalloc(&d_init, 8));
    for (int d = 0; d < REF_NUM_DTYPES; ++d) {
        const libscan_dtype_t dt = ref_dtypes[d];
        const size_t es = ref_dtype_size(dt);
        for (int o = 0; o < REF_NUM_OPS; ++o)
            for (int excl = 0; excl < 2; ++excl)
                for (int mode = 0; mode < 4; ++mode) { /* identity, host init, d_init, d_init == d_total */
                    const libscan_op_t op = ref_ops[o];
                    static const char *const names[] = {"no carry-in", "host init", "d_init", "d_init == d_total"};
                    unsigned char init[8], total[8];
                    char ctx[160];
                    snprintf(ctx, sizeof ctx, "%s %s %s scan of 0 elements, %s", excl ? "exclusive" : "inclusive",
                             ref_dtype_name(dt), ref_op_name(op), names[mode]);
                    data_fill(&r, dt, op, DATA_DEFAULT, init, 1);
                    CUDA_CHECK(cudaMemcpy(d_init, init, es, cudaMemcpyHostToDevice));
                    CUDA_CHECK(cudaMemset(g.d_total, 0xFF, 8));
                    CUDA_CHECK(cudaDeviceSynchronize()); /* settle the legacy stream's memset before work on non-blocking streams */
                    dbuf_poison(&g.out);
                    libscan_scan_opts_t opts = LIBSCAN_SCAN_OPTS_INIT;
                    opts.d_total = g.d_total;
                    if (mode == 1) opts.init = init;
                    if (mode >= 2) opts.d_init = d_init;
                    if (mode == 3) opts.d_total = d_init;
                    /* NULL data pointers are fine with count 0; so are real ones */
                    libscan_status_t st = scan(excl, (mode % 2) ? g.in.p : NULL, (mode % 2) ? g.out.p : NULL, 0, dt, op,
                                               &opts, 0);
                    if (st != LIBSCAN_SUCCESS) TFAIL("%s: returned %d (%s)", ctx, (int)st, libscan_status_string(st));
                    CUDA_SYNC();
                    CUDA_CHECK(cudaMemcpy(total, opts.d_total, es, cudaMemcpyDeviceToHost));
                    ref_case_t c = {dt, op, excl, g.h_in, 0, mode ? init : NULL, 1};
                    if (ref_check(&c, g.h_out, total, msg, sizeof msg)) TFAIL("%s: %s", ctx, msg);
                    dbuf_check_all_untouched(&g.out, ctx);
                }
        /* no d_total: nothing at all is written */
        libscan_status_t st = scan(0, g.in.p, g.out.p, 0, dt, LIBSCAN_OP_SUM, NULL, 0);
        if (st != LIBSCAN_SUCCESS) TFAIL("%s: count 0 without d_total returned %d", ref_dtype_name(dt), (int)st);
        st = scan(1, NULL, NULL, 0, dt, LIBSCAN_OP_MIN, NULL, 0);
        if (st != LIBSCAN_SUCCESS) TFAIL("%s: count 0, NULL pointers returned %d", ref_dtype_name(dt), (int)st);
        CUDA_SYNC();
        dbuf_check_all_untouched(&g.out, "count 0 without d_total");
    }
    CUDA_CHECK(cudaFree(d_init));
    rig_free(&g);
}

/* ---- floats ------------------------------------------------------------------ */

/* The same f32/f64 sum input, scanned 20 times (library and caller temp,
 * with and without d_total), gives bitwise the same output and total. */
static void test_float_sum_determinism(void **state) {
    (void)state;
    test_require_gpu();
    rng_t r;
    rng_init(&r, "determinism", 0);
    for (int d = 4; d < 6; ++d) {
        const libscan_dtype_t dt = ref_dtypes[d];
        const size_t t = tile_of(dt), es = ref_dtype_size(dt), n = test_capped_n(1000 * t + 17, 1);
        const int reps = test_reps(20);
        rig_t g;
        rig_init(&g, n);
        unsigned char *first = xmalloc(n * es), first_total[8], total[8];
        for (int excl = 0; excl < 2; ++excl) {
            if (n > g.cap) TFAIL("internal: %zu elements exceed the rig (%zu)", n, g.cap);
            data_fill(&r, dt, LIBSCAN_OP_SUM, DATA_DEFAULT, g.h_in, n);
            CUDA_CHECK(cudaMemcpy(g.in.p, g.h_in, n * es, cudaMemcpyHostToDevice));
            for (int rep = 0; rep < reps; ++rep) {
                char ctx[160];
                snprintf(ctx, sizeof ctx, "%s %s sum, n=%zu, run %d of %d", excl ? "exclusive" : "inclusive",
                         ref_dtype_name(dt), n, rep + 1, reps);
                libscan_scan_opts_t opts = LIBSCAN_SCAN_OPTS_INIT;
                opts.d_total = g.d_total;
                if (rep % 2) {
                    size_t need = 0;
                    LS_EXPECT(LIBSCAN_SUCCESS, libscan_scan_temp_bytes(n, dt, &need));
                    opts.d_temp = g.d_temp;
                    opts.temp_bytes = need;
                }
                dbuf_poison(&g.out);
                CUDA_CHECK(cudaMemset(g.d_total, 0xFF, 8));
                CUDA_CHECK(cudaDeviceSynchronize()); /* settle the legacy stream's memset before work on non-blocking streams */
                libscan_status_t st = scan(excl, g.in.p, g.out.p, n, dt, LIBSCAN_OP_SUM, &opts, 0);
                if (st != LIBSCAN_SUCCESS) TFAIL("%s: returned %d (%s)", ctx, (int)st, libscan_status_string(st));
                CUDA_SYNC();
                CUDA_CHECK(cudaMemcpy(rep ? g.h_out : first, g.out.p, n * es, cudaMemcpyDeviceToHost));
                CUDA_CHECK(cudaMemcpy(rep ? total : first_total, g.d_total, es, cudaMemcpyDeviceToHost));
                if (rep == 0) {
                    ref_case_t c = {dt, LIBSCAN_OP_SUM, excl, g.h_in, n, NULL, 0};
                    if (ref_check(&c, first, first_total, msg, sizeof msg)) TFAIL("%s: %s", ctx, msg);
                    continue;
                }
                const int differs = memcmp(g.h_out, first, n * es) != 0;
                for (size_t i = 0; differs && i < n; ++i)
                    if (memcmp(g.h_out + i * es, first + i * es, es) != 0) {
                        char a[96], b[96];
                        ref_format(dt, first + i * es, a, sizeof a);
                        ref_format(dt, g.h_out + i * es, b, sizeof b);
                        TFAIL("%s: element %zu is %s, was %s in run 1", ctx, i, b, a);
                    }
                if (memcmp(total, first_total, es) != 0) TFAIL("%s: the total differs from run 1", ctx);
            }
        }
        free(first);
        rig_free(&g);
    }
}

/* Sums of signed zeros: the identity is -0.0, so a scan of -0.0s stays -0.0
 * (bitwise), and the exclusive scan starts with -0.0. */
static void test_float_sum_signed_zero(void **state) {
    (void)state;
    test_require_gpu();
    rng_t r;
    rng_init(&r, "signed zero", 0);
    for (int d = 4; d < 6; ++d) {
        const libscan_dtype_t dt = ref_dtypes[d];
        const size_t t = tile_of(dt), es = ref_dtype_size(dt), n = 3 * t + 5;
        rig_t g;
        rig_init(&g, n);
        for (int pattern = 0; pattern < 2; ++pattern) /* all -0.0; random signs */
            for (int excl = 0; excl < 2; ++excl) {
                char ctx[160];
                snprintf(ctx, sizeof ctx, "%s %s sum of %s, n=%zu", excl ? "exclusive" : "inclusive", ref_dtype_name(dt),
                         pattern ? "zeros of random sign" : "-0.0s", n);
                for (size_t i = 0; i < n; ++i) data_set(dt, g.h_in, i, (pattern && (rng_u64(&r) & 1)) ? 0.0 : -0.0);
                CUDA_CHECK(cudaMemcpy(g.in.p, g.h_in, n * es, cudaMemcpyHostToDevice));
                dbuf_poison(&g.out);
                unsigned char total[8];
                libscan_scan_opts_t opts = LIBSCAN_SCAN_OPTS_INIT;
                opts.d_total = g.d_total;
                libscan_status_t st = scan(excl, g.in.p, g.out.p, n, dt, LIBSCAN_OP_SUM, &opts, 0);
                if (st != LIBSCAN_SUCCESS) TFAIL("%s: returned %d (%s)", ctx, (int)st, libscan_status_string(st));
                CUDA_SYNC();
                CUDA_CHECK(cudaMemcpy(g.h_out, g.out.p, n * es, cudaMemcpyDeviceToHost));
                CUDA_CHECK(cudaMemcpy(total, g.d_total, es, cudaMemcpyDeviceToHost));
                ref_case_t c = {dt, LIBSCAN_OP_SUM, excl, g.h_in, n, NULL, 1};
                if (ref_check(&c, g.h_out, total, msg, sizeof msg)) TFAIL("%s: %s", ctx, msg);
                /* spelled out, independent of the reference */
                const int neg0 = dt == LIBSCAN_F32 ? (((uint32_t *)g.h_out)[0] == 0x80000000u)
                                                   : (((uint64_t *)g.h_out)[0] == 0x8000000000000000ull);
                if ((excl || !pattern) && !neg0) TFAIL("%s: element 0 is not -0.0", ctx);
            }
        rig_free(&g);
    }
}

/* Min/max over NaN, infinities, signed zeros, denormals and extremes. */
static void test_float_minmax_special_values(void **state) {
    (void)state;
    test_require_gpu();
    rng_t r;
    rng_init(&r, "specials", 0);
    for (int d = 4; d < 6; ++d) {
        const libscan_dtype_t dt = ref_dtypes[d];
        const size_t t = tile_of(dt), es = ref_dtype_size(dt), n = 3 * t + 100;
        const size_t nan_at[] = {0, 7, t - 1, t, 2 * t + 33, n - 1};
        const uint64_t nan_bits64[] = {0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff0000000000001ull,
                                       0x7ff8000000012345ull};
        const uint32_t nan_bits32[] = {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0x7fc12345u};
        rig_t g;
        rig_init(&g, n);
        unsigned char total[8];
        for (int o = 1; o < 3; ++o)
            for (int excl = 0; excl < 2; ++excl)
                for (int pattern = 0; pattern < 14; ++pattern) {
                    const libscan_op_t op = ref_ops[o];
                    /* the zero that wins (min: -0.0, max: +0.0) and the one that loses */
                    const double win0 = op == LIBSCAN_OP_MIN ? -0.0 : 0.0, lose0 = op == LIBSCAN_OP_MIN ? 0.0 : -0.0;
                    const size_t flip_at[] = {1, t - 1, t, 2 * t + 33, t + 7};
                    unsigned char init[8];
                    int use_init = 0;
                    char ctx[200];
                    if (pattern < 6) { /* specials with one NaN of some kind at nan_at[pattern] (none for 0) */
                        if (n > g.cap) TFAIL("internal: %zu elements exceed the rig (%zu)", n, g.cap);
                        data_fill(&r, dt, op, DATA_SPECIALS, g.h_in, n);
                        if (pattern > 0) {
                            size_t at = nan_at[pattern];
                            int kind = (int)rng_below(&r, 4);
                            if (dt == LIBSCAN_F32) memcpy(g.h_in + at * es, &nan_bits32[kind], 4);
                            else memcpy(g.h_in + at * es, &nan_bits64[kind], 8);
                        }
                        snprintf(ctx, sizeof ctx, "%s %s %s, special values%s", excl ? "exclusive" : "inclusive",
                                 ref_dtype_name(dt), ref_op_name(op), pattern ? " with a NaN" : "");
                    } else if (pattern < 11) {
                        /* signed zeros: the losing zero up to flip_at, the winning one there, then
                         * random signs, so -0.0 vs +0.0 is decided at a tile boundary or inside a
                         * tile; the last of these with the losing zero as carry-in */
                        const size_t at = flip_at[pattern - 6];
                        for (size_t i = 0; i < n; ++i)
                            data_set(dt, g.h_in, i, i < at ? lose0 : i == at ? win0 : (rng_u64(&r) & 1) ? 0.0 : -0.0);
                        if (pattern == 10) {
                            data_set(dt, init, 0, lose0);
                            use_init = 1;
                        }
                        snprintf(ctx, sizeof ctx, "%s %s %s, signed zeros, first %+.1f at %zu%s",
                                 excl ? "exclusive" : "inclusive", ref_dtype_name(dt), ref_op_name(op), win0, at,
                                 use_init ? ", losing zero as carry-in" : "");
                    } else if (pattern == 11) { /* the winning zero as carry-in */
                        for (size_t i = 0; i < n; ++i) data_set(dt, g.h_in, i, (rng_u64(&r) & 1) ? 0.0 : -0.0);
                        data_set(dt, init, 0, win0);
                        use_init = 1;
                        snprintf(ctx, sizeof ctx, "%s %s %s, signed zeros, winning zero as carry-in",
                                 excl ? "exclusive" : "inclusive", ref_dtype_name(dt), ref_op_name(op));
                    } else if (pattern == 12) { /* NaN carry-in: everything NaN */
                        if (n > g.cap) TFAIL("internal: %zu elements exceed the rig (%zu)", n, g.cap);
                        data_fill(&r, dt, op, DATA_SPECIALS, g.h_in, n);
                        data_set(dt, init, 0, NAN);
                        use_init = 1;
                        snprintf(ctx, sizeof ctx, "%s %s %s, NaN carry-in", excl ? "exclusive" : "inclusive",
                                 ref_dtype_name(dt), ref_op_name(op));
                    } else { /* +-inf carry-in */
                        if (n > g.cap) TFAIL("internal: %zu elements exceed the rig (%zu)", n, g.cap);
                        data_fill(&r, dt, op, DATA_SPECIALS, g.h_in, n);
                        data_set(dt, init, 0, (rng_u64(&r) & 1) ? INFINITY : -INFINITY);
                        use_init = 1;
                        snprintf(ctx, sizeof ctx, "%s %s %s, infinite carry-in", excl ? "exclusive" : "inclusive",
                                 ref_dtype_name(dt), ref_op_name(op));
                    }
                    CUDA_CHECK(cudaMemcpy(g.in.p, g.h_in, n * es, cudaMemcpyHostToDevice));
                    dbuf_poison(&g.out);
                    libscan_scan_opts_t opts = LIBSCAN_SCAN_OPTS_INIT;
                    opts.d_total = g.d_total;
                    opts.init = use_init ? init : NULL;
                    libscan_status_t st = scan(excl, g.in.p, g.out.p, n, dt, op, &opts, 0);
                    if (st != LIBSCAN_SUCCESS) TFAIL("%s: returned %d (%s)", ctx, (int)st, libscan_status_string(st));
                    CUDA_SYNC();
                    CUDA_CHECK(cudaMemcpy(g.h_out, g.out.p, n * es, cudaMemcpyDeviceToHost));
                    CUDA_CHECK(cudaMemcpy(total, g.d_total, es, cudaMemcpyDeviceToHost));
                    ref_case_t c = {dt, op, excl, g.h_in, n, use_init ? init : NULL, 1};
                    if (ref_check(&c, g.h_out, total, msg, sizeof msg)) TFAIL("%s: %s", ctx, msg);
                }
        rig_free(&g);
    }
}

/* ---- pointers -------------------------------------------------------------- */

/* Element-aligned but not 16-byte aligned pointers (d_in + 1, d_out + 3
 * elements; in place at + 1) work, and nothing outside the output is
 * written. */
static void test_element_aligned_offsets(void **state) {
    (void)state;
    test_require_gpu();
    rng_t r;
    rng_init(&r, "offsets", 0);
    rig_t g;
    rig_init(&g, 17 * max_tile() + 9 + 8);
    for (int d = 0; d < REF_NUM_DTYPES; ++d) {
        const libscan_dtype_t dt = ref_dtypes[d];
        const size_t t = tile_of(dt), es = ref_dtype_size(dt);
        const size_t sizes[] = {1, 33, t + 1, 17 * t + 9};
        for (int o = 0; o < 2; ++o) /* sum, min */
            for (int excl = 0; excl < 2; ++excl)
                for (size_t k = 0; k < 4; ++k)
                    for (int inplace = 0; inplace < 2; ++inplace) {
                        const libscan_op_t op = ref_ops[o];
                        const size_t n = sizes[k], in_off = 1, out_off = inplace ? 1 : 3;
                        if (!test_size_allowed(n)) continue;
                        const data_flavor_t fl = ref_is_float(dt) && op == LIBSCAN_OP_SUM ? DATA_FLOAT_INTEGERS : DATA_DEFAULT;
                        char ctx[200];
                        snprintf(ctx, sizeof ctx, "%s %s %s scan, n=%zu, %s", excl ? "exclusive" : "inclusive",
                                 ref_dtype_name(dt), ref_op_name(op), n,
                                 inplace ? "in place at +1 element" : "d_in + 1 element, d_out + 3 elements");
                        if (n > g.cap) TFAIL("internal: %zu elements exceed the rig (%zu)", n, g.cap);
                        data_fill(&r, dt, op, fl, g.h_in, n);
                        dbuf_poison(&g.out);
                        unsigned char *in = inplace ? g.out.p + in_off * es : g.in.p + in_off * es;
                        unsigned char *out = g.out.p + out_off * es;
                        CUDA_CHECK(cudaMemcpy(in, g.h_in, n * es, cudaMemcpyHostToDevice));
                        libscan_status_t st = scan(excl, in, out, n, dt, op, NULL, 0);
                        if (st != LIBSCAN_SUCCESS) TFAIL("%s: returned %d (%s)", ctx, (int)st, libscan_status_string(st));
                        CUDA_SYNC();
                        CUDA_CHECK(cudaMemcpy(g.h_out, out, n * es, cudaMemcpyDeviceToHost));
                        dbuf_check_untouched(&g.out, out_off * es, (out_off + n) * es, ctx);
                        ref_case_t c = {dt, op, excl, g.h_in, n, NULL, fl == DATA_FLOAT_INTEGERS};
                        if (ref_check(&c, g.h_out, NULL, msg, sizeof msg)) TFAIL("%s: %s", ctx, msg);
                    }
    }
    rig_free(&g);
}

/* Pointers not aligned to the element size: INVALID_POINTER, nothing
 * written (real device memory this time). */
static void test_unaligned_pointers_rejected(void **state) {
    (void)state;
    test_require_gpu();
    rig_t g;
    rig_init(&g, 1024);
    unsigned char *h = xmalloc(1024 * 8);
    for (int d = 0; d < REF_NUM_DTYPES; ++d) {
        const libscan_dtype_t dt = ref_dtypes[d];
        const size_t es = ref_dtype_size(dt), n = 1000;
        for (size_t off = 1; off < es; off += (es == 8 ? 3 : 1)) { /* 1,2,3 / 1,4,7 */
            for (int which = 0; which < 5; ++which) {
                static const char *const names[] = {"d_in", "d_out", "d_in == d_out", "d_init", "d_total"};
                char ctx[128];
                snprintf(ctx, sizeof ctx, "%s scan with %s misaligned by %zu bytes", ref_dtype_name(dt), names[which], off);
                dbuf_poison(&g.out);
                CUDA_CHECK(cudaMemset(g.d_total, 0xFF, 8));
                CUDA_CHECK(cudaDeviceSynchronize()); /* settle the legacy stream's memset before work on non-blocking streams */
                const unsigned char *in = g.in.p;
                unsigned char *out = g.out.p;
                libscan_scan_opts_t opts = LIBSCAN_SCAN_OPTS_INIT;
                if (which == 0) in += off;
                if (which == 1) out += off;
                if (which == 2) in = out = g.out.p + off;
                if (which == 3) opts.d_init = (unsigned char *)g.d_temp + off; /* any device memory */
                if (which == 4) opts.d_total = (unsigned char *)g.d_total + off;
                for (int excl = 0; excl < 2; ++excl) {
                    libscan_status_t st = scan(excl, in, out, n, dt, LIBSCAN_OP_SUM, &opts, 0);
                    if (st != LIBSCAN_ERROR_INVALID_POINTER)
                        TFAIL("%s: returned %d (%s), expected LIBSCAN_ERROR_INVALID_POINTER", ctx, (int)st,
                              libscan_status_string(st));
                }
                CUDA_SYNC();
                dbuf_check_all_untouched(&g.out, ctx);
                CUDA_CHECK(cudaMemcpy(h, g.d_total, 8, cudaMemcpyDeviceToHost));
                for (int i = 0; i < 8; ++i)
                    if (h[i] != 0xFF) TFAIL("%s: d_total written", ctx);
            }
        }
    }
    free(h);
    rig_free(&g);
}

/* Plain host memory (malloc) is rejected with INVALID_POINTER and nothing is
 * launched -- unless the device can access pageable memory, where the manual
 * allows it (then the scan must simply be right). A host d_temp is rejected
 * only where the scan uses its temp: at a size past the one-launch small
 * path; the small path ignores it and must be right. */
static void test_host_pointers_rejected(void **state) {
    (void)state;
    test_require_gpu();
    int dev = 0, pageable = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, dev));
    size_t small_cap = 0;
    for (int d = 0; d < REF_NUM_DTYPES; ++d) {
        const size_t c = shim_grid_capacity(ref_dtype_size(ref_dtypes[d]));
        if (c > small_cap) small_cap = c;
    }
    const size_t sizes[2] = {5 * max_tile() + 3, small_cap + max_tile() + 3};
    rig_t g;
    rig_init(&g, sizes[1]);
    unsigned char *host = xmalloc(sizes[1] * 8), *host2 = xmalloc(sizes[1] * 8);
    rng_t r;
    rng_init(&r, "host pointers", 0);
    for (int kd = 0; kd < 2 * REF_NUM_DTYPES; ++kd) {
        const size_t n = sizes[kd / REF_NUM_DTYPES];
        const libscan_dtype_t dt = ref_dtypes[kd % REF_NUM_DTYPES];
        const size_t es = ref_dtype_size(dt);
        if (n > g.cap) TFAIL("internal: %zu elements exceed the rig (%zu)", n, g.cap);
        const int skips_temp = shim_scan_skips_temp(es, n);
        if (skips_temp < 0) TFAIL("internal: no plan for %zu-byte elements", es);
        if (n == sizes[1] && skips_temp)
            TFAIL("%s: %zu elements take a one-launch path; expected the look-back", ref_dtype_name(dt), n);
        data_fill(&r, dt, LIBSCAN_OP_MAX, DATA_DEFAULT, g.h_in, n);
        CUDA_CHECK(cudaMemcpy(g.in.p, g.h_in, n * es, cudaMemcpyHostToDevice));
        memcpy(host, g.h_in, n * es);
        size_t need = 0;
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_scan_temp_bytes(n, dt, &need));
        unsigned char *host_temp = xmalloc(need);
        for (int which = 0; which < 5; ++which) {
            static const char *const names[] = {"d_in", "d_out", "d_init", "d_total", "d_temp"};
            /* See above: only data pointers then (and the unused temp). */
            if (pageable && which >= 2 && !(which == 4 && skips_temp)) continue;
            /* Allowed: pageable data pointers, or a temp the call does not use. */
            const int accepted = which == 4 ? skips_temp : pageable;
            char ctx[200];
            snprintf(ctx, sizeof ctx, "%s max scan of %zu with a malloc'ed host %s%s", ref_dtype_name(dt), n,
                     names[which], which == 4 && skips_temp ? " (one-launch path: temp unused)"
                                   : pageable && which < 4 ? " (device can access pageable memory)" : "");
            dbuf_poison(&g.out);
            CUDA_CHECK(cudaMemset(g.d_total, 0xFF, 8));
            CUDA_CHECK(cudaDeviceSynchronize()); /* settle the legacy stream's memset before work on non-blocking streams */
            memset(host2, 0xFF, n * es);
            const void *in = which == 0 ? (const void *)host : (const void *)g.in.p;
            void *out = which == 1 ? (void *)host2 : (void *)g.out.p;
            unsigned char host_init[8];
            memcpy(host_init, g.h_in, es);
            libscan_scan_opts_t opts = LIBSCAN_SCAN_OPTS_INIT;
            if (which == 2) opts.d_init = host_init; /* a host pointer where a device one is due */
            if (which == 3) opts.d_total = host2;
            if (which == 4) {
                opts.d_temp = host_temp;
                opts.temp_bytes = need;
            }
            for (int excl = 0; excl < 2; ++excl) {
                libscan_status_t st = scan(excl, in, out, n, dt, LIBSCAN_OP_MAX, &opts, 0);
                CUDA_SYNC();
                if (accepted) {
                    if (st != LIBSCAN_SUCCESS)
                        TFAIL("%s: returned %d (%s), expected LIBSCAN_SUCCESS", ctx, (int)st, libscan_status_string(st));
                    if (which == 1) memcpy(g.h_out, host2, n * es);
                    else CUDA_CHECK(cudaMemcpy(g.h_out, g.out.p, n * es, cudaMemcpyDeviceToHost));
                    ref_case_t c = {dt, LIBSCAN_OP_MAX, excl, g.h_in, n, NULL, 1};
                    if (ref_check(&c, g.h_out, NULL, msg, sizeof msg)) TFAIL("%s: %s", ctx, msg);
                    continue;
                }
                if (st != LIBSCAN_ERROR_INVALID_POINTER)
                    TFAIL("%s: returned %d (%s), expected LIBSCAN_ERROR_INVALID_POINTER", ctx, (int)st,
                          libscan_status_string(st));
                dbuf_check_all_untouched(&g.out, ctx); /* nothing launched */
                for (size_t i = 0; i < n * es; ++i)
                    if (host2[i] != 0xFF) TFAIL("%s: host buffer written at byte %zu", ctx, i);
                unsigned char tot[8];
                CUDA_CHECK(cudaMemcpy(tot, g.d_total, 8, cudaMemcpyDeviceToHost));
                for (int i = 0; i < 8; ++i)
                    if (tot[i] != 0xFF) TFAIL("%s: d_total written", ctx);
            }
        }
        free(host_temp);
    }
    free(host);
    free(host2);
    rig_free(&g);
}

/* Managed and mapped pinned memory are device-accessible and work. */
static void test_managed_and_pinned_memory(void **state) {
    (void)state;
    test_require_gpu();
    const size_t n = 5 * max_tile() + 3;
    rng_t r;
    rng_init(&r, "managed", 0);
    uint32_t *managed_in = NULL, *managed_out = NULL, *pinned = NULL, *h = xmalloc(n * 4), *got = xmalloc(n * 4);
    CUDA_CHECK(cudaMallocManaged((void **)&managed_in, n * 4, cudaMemAttachGlobal));
    CUDA_CHECK(cudaMallocManaged((void **)&managed_out, n * 4, cudaMemAttachGlobal));
    CUDA_CHECK(cudaHostAlloc((void **)&pinned, n * 4, cudaHostAllocMapped | cudaHostAllocPortable));
    for (int which = 0; which < 2; ++which) {
        const char *ctx = which ? "u32 sum from mapped pinned host memory" : "u32 sum in managed memory";
        data_fill(&r, LIBSCAN_U32, LIBSCAN_OP_SUM, DATA_DEFAULT, h, n);
        uint32_t *in = which ? pinned : managed_in;
        memcpy(in, h, n * 4);
        memset(managed_out, 0xFF, n * 4);
        libscan_status_t st = libscan_inclusive_scan(in, managed_out, n, LIBSCAN_U32, LIBSCAN_OP_SUM, NULL, 0);
        if (st != LIBSCAN_SUCCESS) TFAIL("%s: returned %d (%s)", ctx, (int)st, libscan_status_string(st));
        CUDA_SYNC();
        memcpy(got, managed_out, n * 4);
        ref_case_t c = {LIBSCAN_U32, LIBSCAN_OP_SUM, 0, h, n, NULL, 1};
        if (ref_check(&c, got, NULL, msg, sizeof msg)) TFAIL("%s: %s", ctx, msg);
    }
    CUDA_CHECK(cudaFree(managed_in));
    CUDA_CHECK(cudaFree(managed_out));
    CUDA_CHECK(cudaFreeHost(pinned));
    free(h);
    free(got);
}

/* ---- temp storage, streams, graphs ----------------------------------------- */

/* Caller temp of exactly libscan_scan_temp_bytes() bytes, at any byte offset
 * (the library aligns inside it): the scan is right and no byte outside the
 * temp region changes. A too-small real buffer is refused. */
static void test_caller_temp_exact_size(void **state) {
    (void)state;
    test_require_gpu();
    rng_t r;
    rng_init(&r, "temp", 0);
    const libscan_dtype_t dts[] = {LIBSCAN_U32, LIBSCAN_F64};
    const size_t offs[] = {0, 1, 8, 100, 255};
    const size_t pad = 4096;
    rig_t g;
    rig_init(&g, 37 * max_tile() + 11);
    for (int d = 0; d < 2; ++d) {
        const libscan_dtype_t dt = dts[d];
        const size_t t = tile_of(dt), es = ref_dtype_size(dt), n = test_capped_n(37 * t + 11, 1);
        size_t need = 0;
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_scan_temp_bytes(n, dt, &need));
        if (need == 0) TFAIL("%s: no temp needed for %zu elements?", ref_dtype_name(dt), n);
        unsigned char *raw = NULL, *h = xmalloc(need + 2 * pad + 256);
        CUDA_CHECK(cudaMalloc((void **)&raw, need + 2 * pad + 256));
        for (size_t k = 0; k < sizeof offs / sizeof offs[0]; ++k)
            for (int excl = 0; excl < 2; ++excl) {
                const size_t off = offs[k];
                const data_flavor_t fl = dt == LIBSCAN_F64 ? DATA_FLOAT_INTEGERS : DATA_DEFAULT;
                char ctx[160];
                snprintf(ctx, sizeof ctx, "%s %s sum, n=%zu, caller temp of %zu bytes at byte offset %zu",
                         excl ? "exclusive" : "inclusive", ref_dtype_name(dt), n, need, off);
                if (n > g.cap) TFAIL("internal: %zu elements exceed the rig (%zu)", n, g.cap);
                data_fill(&r, dt, LIBSCAN_OP_SUM, fl, g.h_in, n);
                CUDA_CHECK(cudaMemcpy(g.in.p, g.h_in, n * es, cudaMemcpyHostToDevice));
                CUDA_CHECK(cudaMemset(raw, 0xA5, need + 2 * pad + 256));
                CUDA_CHECK(cudaDeviceSynchronize()); /* settle the legacy stream's memset before work on non-blocking streams */
                dbuf_poison(&g.out);
                libscan_scan_opts_t opts = LIBSCAN_SCAN_OPTS_INIT;
                opts.d_temp = raw + pad + off;
                opts.temp_bytes = need;
                libscan_status_t st = scan(excl, g.in.p, g.out.p, n, dt, LIBSCAN_OP_SUM, &opts, 0);
                if (st != LIBSCAN_SUCCESS) TFAIL("%s: returned %d (%s)", ctx, (int)st, libscan_status_string(st));
                /* the same temp again right away, on the same stream */
                st = scan(excl, g.in.p, g.out.p, n, dt, LIBSCAN_OP_SUM, &opts, 0);
                if (st != LIBSCAN_SUCCESS) TFAIL("%s: second call returned %d (%s)", ctx, (int)st, libscan_status_string(st));
                CUDA_SYNC();
                CUDA_CHECK(cudaMemcpy(g.h_out, g.out.p, n * es, cudaMemcpyDeviceToHost));
                ref_case_t c = {dt, LIBSCAN_OP_SUM, excl, g.h_in, n, NULL, fl == DATA_FLOAT_INTEGERS};
                if (ref_check(&c, g.h_out, NULL, msg, sizeof msg)) TFAIL("%s: %s", ctx, msg);
                CUDA_CHECK(cudaMemcpy(h, raw, need + 2 * pad + 256, cudaMemcpyDeviceToHost));
                for (size_t i = 0; i < need + 2 * pad + 256; ++i) {
                    if (i >= pad + off && i < pad + off + need) continue;
                    if (h[i] != 0xA5)
                        TFAIL("%s: byte %lld relative to d_temp changed: the scan wrote outside its temp", ctx,
                              (long long)i - (long long)(pad + off));
                }
                /* one byte short: refused, nothing launched */
                opts.temp_bytes = need - 1;
                dbuf_poison(&g.out);
                st = scan(excl, g.in.p, g.out.p, n, dt, LIBSCAN_OP_SUM, &opts, 0);
                if (st != LIBSCAN_ERROR_TEMP_TOO_SMALL)
                    TFAIL("%s: temp_bytes = need - 1 returned %d (%s)", ctx, (int)st, libscan_status_string(st));
                CUDA_SYNC();
                dbuf_check_all_untouched(&g.out, ctx);
            }
        CUDA_CHECK(cudaFree(raw));
        free(h);
    }
    rig_free(&g);
}

/* Work goes on the stream given: on a non-blocking stream, a copy enqueued
 * after the scan on the same stream sees the finished result (library temp
 * and caller temp). */
static void test_stream_ordering(void **state) {
    (void)state;
    test_require_gpu();
    rng_t r;
    rng_init(&r, "stream", 0);
    const size_t n = test_capped_n(1000 * tile_of(LIBSCAN_U32) + 17, 1);
    rig_t g;
    rig_init(&g, n);
    uint32_t *pinned = NULL;
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMallocHost((void **)&pinned, n * 4));
    for (int caller_temp = 0; caller_temp < 2; ++caller_temp)
        for (int excl = 0; excl < 2; ++excl) {
            char ctx[128];
            snprintf(ctx, sizeof ctx, "%s u32 sum on a non-blocking stream, %s temp", excl ? "exclusive" : "inclusive",
                     caller_temp ? "caller" : "library");
            if (n > g.cap) TFAIL("internal: %zu elements exceed the rig (%zu)", n, g.cap);
            data_fill(&r, LIBSCAN_U32, LIBSCAN_OP_SUM, DATA_DEFAULT, g.h_in, n);
            CUDA_CHECK(cudaMemcpy(g.in.p, g.h_in, n * 4, cudaMemcpyHostToDevice));
            dbuf_poison(&g.out);
            CUDA_SYNC();
            libscan_scan_opts_t opts = LIBSCAN_SCAN_OPTS_INIT;
            if (caller_temp) {
                LS_EXPECT(LIBSCAN_SUCCESS, libscan_scan_temp_bytes(n, LIBSCAN_U32, &opts.temp_bytes));
                opts.d_temp = g.d_temp;
            }
            libscan_status_t st = scan(excl, g.in.p, g.out.p, n, LIBSCAN_U32, LIBSCAN_OP_SUM, &opts, s);
            if (st != LIBSCAN_SUCCESS) TFAIL("%s: returned %d (%s)", ctx, (int)st, libscan_status_string(st));
            CUDA_CHECK(cudaMemcpyAsync(pinned, g.out.p, n * 4, cudaMemcpyDeviceToHost, s));
            CUDA_CHECK(cudaStreamSynchronize(s));
            ref_case_t c = {LIBSCAN_U32, LIBSCAN_OP_SUM, excl, g.h_in, n, NULL, 1};
            if (ref_check(&c, pinned, NULL, msg, sizeof msg)) TFAIL("%s: %s", ctx, msg);
        }
    CUDA_CHECK(cudaFreeHost(pinned));
    CUDA_CHECK(cudaStreamDestroy(s));
    rig_free(&g);
}

/* Captures one scan into a CUDA graph (global capture mode) and replays it
 * `reps` times, each on fresh data: output, guards and total (opts must set
 * d_total = g->d_total) checked against the reference after every replay. */
static void capture_and_replay(rig_t *g, rng_t *r, cudaStream_t s, libscan_dtype_t dt, libscan_op_t op, int excl,
                               size_t n, data_flavor_t fl, const libscan_scan_opts_t *opts, int reps, const char *ctx) {
    const size_t es = ref_dtype_size(dt);
    unsigned char total[8];
    if (n > g->cap) TFAIL("internal: %zu elements exceed the rig (%zu)", n, g->cap);
    cudaGraph_t graph = NULL;
    cudaGraphExec_t exec = NULL;
    CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    libscan_status_t st = scan(excl, g->in.p, g->out.p, n, dt, op, opts, s);
    cudaError_t end = cudaStreamEndCapture(s, &graph); /* always end the capture */
    if (st != LIBSCAN_SUCCESS) TFAIL("%s: returned %d (%s) during capture", ctx, (int)st, libscan_status_string(st));
    CUDA_CHECK(end);
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int rep = 0; rep < reps; ++rep) {
        data_fill(r, dt, op, fl, g->h_in, n);
        CUDA_CHECK(cudaMemcpy(g->in.p, g->h_in, n * es, cudaMemcpyHostToDevice));
        dbuf_poison(&g->out);
        CUDA_CHECK(cudaMemset(g->d_total, 0xFF, 8));
        CUDA_CHECK(cudaDeviceSynchronize()); /* settle the legacy stream's memset before work on non-blocking streams */
        CUDA_SYNC();
        CUDA_CHECK(cudaGraphLaunch(exec, s));
        CUDA_CHECK(cudaStreamSynchronize(s));
        CUDA_CHECK(cudaMemcpy(g->h_out, g->out.p, n * es, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(total, g->d_total, es, cudaMemcpyDeviceToHost));
        dbuf_check_guards(&g->out, n * es, ctx);
        ref_case_t c = {dt, op, excl, g->h_in, n, NULL, fl == DATA_FLOAT_INTEGERS};
        if (ref_check(&c, g->h_out, total, msg, sizeof msg)) TFAIL("%s, replay %d: %s", ctx, rep + 1, msg);
    }
    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
}

/* With caller temp, a scan can be captured into a CUDA graph (global capture
 * mode) and replayed on new data. */
static void test_graph_capture(void **state) {
    (void)state;
    test_require_gpu();
    rng_t r;
    rng_init(&r, "graph", 0);
    const libscan_dtype_t dts[] = {LIBSCAN_I32, LIBSCAN_F64};
    rig_t g;
    rig_init(&g, 50 * max_tile() + 7);
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (int d = 0; d < 2; ++d)
        for (int excl = 0; excl < 2; ++excl) {
            const libscan_dtype_t dt = dts[d];
            const size_t n = test_capped_n(50 * tile_of(dt) + 7, 1);
            const libscan_op_t op = excl ? LIBSCAN_OP_MIN : LIBSCAN_OP_SUM;
            const data_flavor_t fl = ref_is_float(dt) ? DATA_FLOAT_INTEGERS : DATA_DEFAULT;
            char ctx[128];
            snprintf(ctx, sizeof ctx, "%s %s %s scan captured in a graph", excl ? "exclusive" : "inclusive",
                     ref_dtype_name(dt), ref_op_name(op));
            libscan_scan_opts_t opts = LIBSCAN_SCAN_OPTS_INIT;
            LS_EXPECT(LIBSCAN_SUCCESS, libscan_scan_temp_bytes(n, dt, &opts.temp_bytes));
            opts.d_temp = g.d_temp;
            opts.d_total = g.d_total;
            capture_and_replay(&g, &r, s, dt, op, excl, n, fl, &opts, 3, ctx);
        }
    CUDA_CHECK(cudaStreamDestroy(s));
    rig_free(&g);
}

/* Small scans (one launch) captured into a graph, with caller temp and
 * without (the temp then becomes the graph's allocation): under capture the
 * library must not use the grid scan's flag table (its flags are tagged per
 * launch, and a graph replays one launch's tag) but pass the block values
 * through temp behind a grid barrier, so every replay on new data must come
 * out right. */
static void test_small_scan_graph_replay(void **state) {
    (void)state;
    test_require_gpu();
    rng_t r;
    rng_init(&r, "small-graph", 0);
    const libscan_dtype_t dts[] = {LIBSCAN_U64, LIBSCAN_F32};
    const size_t cap = grid_capacity_of(LIBSCAN_U32) > grid_capacity_of(LIBSCAN_U64) ? grid_capacity_of(LIBSCAN_U32)
                                                                                      : grid_capacity_of(LIBSCAN_U64);
    rig_t g;
    rig_init(&g, cap);
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (int d = 0; d < 2; ++d)
        for (int caller_temp = 0; caller_temp < 2; ++caller_temp)
            for (int excl = 0; excl < 2; ++excl) {
                const libscan_dtype_t dt = dts[d];
                const size_t n = excl ? grid_capacity_of(dt) : 40 * grid_tile_of(dt) + 3;
                const libscan_op_t op = caller_temp ? LIBSCAN_OP_MAX : LIBSCAN_OP_SUM;
                const data_flavor_t fl = ref_is_float(dt) ? DATA_FLOAT_INTEGERS : DATA_DEFAULT;
                if (!test_size_allowed(n)) continue;
                char ctx[160];
                snprintf(ctx, sizeof ctx, "%s %s %s scan of %zu captured in a graph, %s temp",
                         excl ? "exclusive" : "inclusive", ref_dtype_name(dt), ref_op_name(op), n,
                         caller_temp ? "caller" : "no");
                libscan_scan_opts_t opts = LIBSCAN_SCAN_OPTS_INIT;
                if (caller_temp) {
                    LS_EXPECT(LIBSCAN_SUCCESS, libscan_scan_temp_bytes(n, dt, &opts.temp_bytes));
                    opts.d_temp = g.d_temp;
                }
                opts.d_total = g.d_total;
                capture_and_replay(&g, &r, s, dt, op, excl, n, fl, &opts, 4, ctx);
            }
    CUDA_CHECK(cudaStreamDestroy(s));
    rig_free(&g);
}

/* Many small scans enqueued back to back on four streams before any is
 * checked: more launches than the grid scan has flag sets (256), so sets are
 * reused by later launches while earlier ones may still run, each on its own
 * data (size, input offset and carry-in differ per launch). A flag taken
 * from the wrong launch shows as a wrong prefix. u64 sums, exact. */
static void test_small_scans_back_to_back(void **state) {
    (void)state;
    test_require_gpu();
    enum { kLaunches = 320, kStreams = 4 };
    const size_t cap = grid_capacity_of(LIBSCAN_U64);
    test_skip_above_cap(cap, "320 small scans at up to the grid scan's capacity");
    rng_t r;
    rng_init(&r, "back-to-back", 0);
    const size_t in_len = cap + 4096;
    uint64_t *h_in = xmalloc(in_len * 8), *h_out = xmalloc(cap * 8), *h_total = xmalloc(kLaunches * 8);
    uint64_t init[kLaunches];
    size_t n[kLaunches], off[kLaunches];
    for (size_t i = 0; i < in_len; ++i) h_in[i] = rng_u64(&r) >> 20;
    uint64_t *d_in = NULL, *d_out = NULL, *d_total = NULL;
    CUDA_CHECK(cudaMalloc((void **)&d_in, in_len * 8));
    CUDA_CHECK(cudaMalloc((void **)&d_out, (size_t)kLaunches * cap * 8));
    CUDA_CHECK(cudaMalloc((void **)&d_total, kLaunches * 8));
    CUDA_CHECK(cudaMemcpy(d_in, h_in, in_len * 8, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_out, 0xFF, (size_t)kLaunches * cap * 8));
    CUDA_CHECK(cudaDeviceSynchronize()); /* settle the legacy stream's memset before work on non-blocking streams */
    cudaStream_t s[kStreams];
    for (int k = 0; k < kStreams; ++k) CUDA_CHECK(cudaStreamCreateWithFlags(&s[k], cudaStreamNonBlocking));
    CUDA_SYNC();
    for (int i = 0; i < kLaunches; ++i) {
        n[i] = i % 5 == 0 ? cap : 1 + (size_t)rng_below(&r, cap);
        off[i] = (size_t)rng_below(&r, 4096);
        init[i] = rng_u64(&r) >> 24;
        libscan_scan_opts_t o = LIBSCAN_SCAN_OPTS_INIT;
        o.init = &init[i];
        o.d_total = d_total + i;
        const libscan_status_t st =
            scan(i % 2, d_in + off[i], d_out + (size_t)i * cap, n[i], LIBSCAN_U64, LIBSCAN_OP_SUM, &o, s[i % kStreams]);
        if (st != LIBSCAN_SUCCESS) TFAIL("launch %d (n=%zu): returned %d (%s)", i, n[i], (int)st, libscan_status_string(st));
    }
    CUDA_SYNC();
    CUDA_CHECK(cudaMemcpy(h_total, d_total, kLaunches * 8, cudaMemcpyDeviceToHost));
    for (int i = 0; i < kLaunches; ++i) {
        CUDA_CHECK(cudaMemcpy(h_out, d_out + (size_t)i * cap, n[i] * 8, cudaMemcpyDeviceToHost));
        uint64_t acc = init[i];
        for (size_t j = 0; j < n[i]; ++j) {
            const uint64_t x = h_in[off[i] + j], want = i % 2 ? acc : acc + x;
            acc += x;
            if (h_out[j] != want)
                TFAIL("launch %d of %d (%s u64 sum, n=%zu, stream %d): element %zu is %" PRIu64 ", want %" PRIu64, i,
                      kLaunches, i % 2 ? "exclusive" : "inclusive", n[i], i % kStreams, j, h_out[j], want);
        }
        if (h_total[i] != acc) TFAIL("launch %d (n=%zu): total %" PRIu64 ", want %" PRIu64, i, n[i], h_total[i], acc);
    }
    for (int k = 0; k < kStreams; ++k) CUDA_CHECK(cudaStreamDestroy(s[k]));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_total));
    free(h_in);
    free(h_out);
    free(h_total);
}

/* ---- determinism: an eager scan and its graph replay ----------------------- */

/* Sizes where an eager and a captured scan could take different kernels: one
 * grid-scan block, several, the grid scan's capacity (65536 elements of 4 or
 * 8 bytes) and its neighbours, and look-back sizes past it. */
static const size_t eager_vs_captured_sizes[] = {1, 33, 1000, 1023, 1025, 4097, 30000, 65535, 65536, 65537, 200003};
#define EAGER_VS_CAPTURED_COUNT (sizeof eager_vs_captured_sizes / sizeof eager_vs_captured_sizes[0])

/* Fails at the first element (i == n: the total) where a and b differ in a
 * single bit. */
static void expect_same_bits(libscan_dtype_t dt, const char *ctx, const unsigned char *eager,
                             const unsigned char *captured, size_t n, const unsigned char *eager_total,
                             const unsigned char *captured_total) {
    const size_t es = ref_dtype_size(dt);
    for (size_t i = 0; i <= n; ++i) {
        const unsigned char *a = i < n ? eager + i * es : eager_total, *b = i < n ? captured + i * es : captured_total;
        if (!a || memcmp(a, b, es) == 0) continue;
        char x[96], y[96];
        ref_format(dt, a, x, sizeof x);
        ref_format(dt, b, y, sizeof y);
        if (i == n) TFAIL("%s: the total is %s eagerly and %s from the graph", ctx, x, y);
        TFAIL("%s: element %zu is %s eagerly and %s from the graph (not bitwise the same)", ctx, i, x, y);
    }
}

/* libscan.h: "a scan replayed from a CUDA graph gives the bits of the same
 * scan called directly". f32 and f64 sums of random values (so the
 * association shows in the last bits), inclusive and exclusive, through the
 * C API: eagerly on a non-blocking stream, then captured on it (global
 * capture mode) and replayed twice -- first on other data with the caller's
 * temp full of 0xFF bytes, then on the eager call's data -- with opts NULL,
 * with d_total only (library temp: the temp cache eagerly, a graph
 * allocation under capture), and with caller temp, a host carry-in and
 * d_total. Outputs and totals must be bitwise equal; the eager result is
 * also checked against the reference. */
static void test_eager_equals_captured(void **state) {
    (void)state;
    test_require_gpu();
    rng_t r;
    rng_init(&r, "eager vs captured", 0);
    size_t cap = 0;
    for (size_t k = 0; k < EAGER_VS_CAPTURED_COUNT; ++k)
        cap = eager_vs_captured_sizes[k] > cap ? eager_vs_captured_sizes[k] : cap;
    rig_t g;
    rig_init(&g, cap);
    unsigned char *eager = xmalloc(cap * 8), *other = xmalloc(cap * 8);
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    static const libscan_dtype_t dts[] = {LIBSCAN_F32, LIBSCAN_F64};
    static const char *const variants[] = {"opts=NULL", "d_total, library temp", "caller temp, host init, d_total"};
    for (int d = 0; d < 2; ++d)
        for (size_t k = 0; k < EAGER_VS_CAPTURED_COUNT; ++k)
            for (int excl = 0; excl < 2; ++excl)
                for (int v = 0; v < 3; ++v) {
                    const libscan_dtype_t dt = dts[d];
                    const size_t n = eager_vs_captured_sizes[k], es = ref_dtype_size(dt);
                    if (!test_size_allowed(n)) continue;
                    char ctx[200];
                    snprintf(ctx, sizeof ctx, "%s %s sum, n=%zu, %s", excl ? "exclusive" : "inclusive",
                             ref_dtype_name(dt), n, variants[v]);
                    unsigned char init[8], eager_total[8], total[8];
                    data_fill(&r, dt, LIBSCAN_OP_SUM, DATA_DEFAULT, g.h_in, n);
                    data_fill(&r, dt, LIBSCAN_OP_SUM, DATA_DEFAULT, other, n);
                    data_pick_init(&r, dt, LIBSCAN_OP_SUM, DATA_DEFAULT, g.h_in, n, init);
                    libscan_scan_opts_t o = LIBSCAN_SCAN_OPTS_INIT;
                    const libscan_scan_opts_t *opts = v ? &o : NULL;
                    if (v >= 1) o.d_total = g.d_total;
                    if (v == 2) {
                        LS_EXPECT(LIBSCAN_SUCCESS, libscan_scan_temp_bytes(n, dt, &o.temp_bytes));
                        if (o.temp_bytes > g.temp_cap) TFAIL("%s: temp %zu > rig's %zu", ctx, o.temp_bytes, g.temp_cap);
                        o.d_temp = g.d_temp;
                        o.init = init;
                    }

                    /* eager */
                    CUDA_CHECK(cudaMemcpy(g.in.p, g.h_in, n * es, cudaMemcpyHostToDevice));
                    dbuf_poison(&g.out);
                    CUDA_CHECK(cudaMemset(g.d_total, 0xFF, 8));
                    CUDA_CHECK(cudaDeviceSynchronize()); /* settle the legacy stream's memset before work on non-blocking streams */
                    /* cudaMemset runs on the legacy stream, which the non-blocking s
                     * does not wait for: settle it before enqueuing on s. */
                    CUDA_CHECK(cudaDeviceSynchronize());
                    libscan_status_t st = scan(excl, g.in.p, g.out.p, n, dt, LIBSCAN_OP_SUM, opts, s);
                    if (st != LIBSCAN_SUCCESS) TFAIL("%s: eager call returned %d (%s)", ctx, (int)st, libscan_status_string(st));
                    CUDA_CHECK(cudaStreamSynchronize(s));
                    CUDA_CHECK(cudaMemcpy(eager, g.out.p, n * es, cudaMemcpyDeviceToHost));
                    CUDA_CHECK(cudaMemcpy(eager_total, g.d_total, es, cudaMemcpyDeviceToHost));
                    dbuf_check_guards(&g.out, n * es, ctx);
                    ref_case_t c = {dt, LIBSCAN_OP_SUM, excl, g.h_in, n, v == 2 ? init : NULL, 0};
                    if (ref_check(&c, eager, v ? eager_total : NULL, msg, sizeof msg)) TFAIL("%s: eager: %s", ctx, msg);

                    /* captured, replayed on other data over spoiled temp, then on the same data */
                    cudaGraph_t graph = NULL;
                    cudaGraphExec_t exec = NULL;
                    CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
                    st = scan(excl, g.in.p, g.out.p, n, dt, LIBSCAN_OP_SUM, opts, s);
                    const cudaError_t end = cudaStreamEndCapture(s, &graph); /* always end the capture */
                    if (st != LIBSCAN_SUCCESS)
                        TFAIL("%s: returned %d (%s) during capture", ctx, (int)st, libscan_status_string(st));
                    CUDA_CHECK(end);
                    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
                    CUDA_CHECK(cudaMemcpy(g.in.p, other, n * es, cudaMemcpyHostToDevice));
                    if (v == 2) CUDA_CHECK(cudaMemset(g.d_temp, 0xFF, g.temp_cap));
                    CUDA_CHECK(cudaDeviceSynchronize());
                    CUDA_CHECK(cudaGraphLaunch(exec, s));
                    CUDA_CHECK(cudaStreamSynchronize(s));
                    CUDA_CHECK(cudaMemcpy(g.in.p, g.h_in, n * es, cudaMemcpyHostToDevice));
                    dbuf_poison(&g.out);
                    CUDA_CHECK(cudaMemset(g.d_total, 0xFF, 8));
                    CUDA_CHECK(cudaDeviceSynchronize());
                    CUDA_CHECK(cudaGraphLaunch(exec, s));
                    CUDA_CHECK(cudaStreamSynchronize(s));
                    CUDA_CHECK(cudaMemcpy(g.h_out, g.out.p, n * es, cudaMemcpyDeviceToHost));
                    CUDA_CHECK(cudaMemcpy(total, g.d_total, es, cudaMemcpyDeviceToHost));
                    CUDA_CHECK(cudaGraphExecDestroy(exec));
                    CUDA_CHECK(cudaGraphDestroy(graph));
                    dbuf_check_guards(&g.out, n * es, ctx);
                    expect_same_bits(dt, ctx, eager, g.h_out, n, v ? eager_total : NULL, total);
                }
    CUDA_CHECK(cudaStreamDestroy(s));
    free(eager);
    free(other);
    rig_free(&g);
}

/* The same through the device layer (DeviceScan<float>, DeviceScan<double>
 * with caller temp; support/device_layer_shim.cu), with and without a host
 * carry-in. Also what the graph holds: where the eager call takes the grid
 * scan, the captured one must take the same scan with its values in temp
 * (one kernel node, no memset); past it both take the look-back (a memset
 * node and a kernel node). */
static void test_dl_eager_equals_captured(void **state) {
    (void)state;
    test_require_gpu();
    rng_t r;
    rng_init(&r, "eager vs captured, device layer", 0);
    size_t cap = 0;
    for (size_t k = 0; k < EAGER_VS_CAPTURED_COUNT; ++k)
        cap = eager_vs_captured_sizes[k] > cap ? eager_vs_captured_sizes[k] : cap;
    unsigned char *in = xmalloc(cap * 8), *eager = xmalloc(cap * 8), *captured = xmalloc(cap * 8);
    static const libscan_dtype_t dts[] = {LIBSCAN_F32, LIBSCAN_F64};
    for (int d = 0; d < 2; ++d)
        for (size_t k = 0; k < EAGER_VS_CAPTURED_COUNT; ++k)
            for (int excl = 0; excl < 2; ++excl)
                for (int with_init = 0; with_init < 2; ++with_init) {
                    const libscan_dtype_t dt = dts[d];
                    const size_t n = eager_vs_captured_sizes[k], es = ref_dtype_size(dt);
                    if (!test_size_allowed(n)) continue;
                    char ctx[200];
                    snprintf(ctx, sizeof ctx, "DeviceScan<%s>::run, %s sum, n=%zu, %s", dt == LIBSCAN_F32 ? "float" : "double",
                             excl ? "exclusive" : "inclusive", n, with_init ? "host carry-in" : "no carry-in");
                    unsigned char init[8], totals[16];
                    data_fill(&r, dt, LIBSCAN_OP_SUM, DATA_DEFAULT, in, n);
                    data_pick_init(&r, dt, LIBSCAN_OP_SUM, DATA_DEFAULT, in, n, init);
                    size_t nodes = 0;
                    int paths[2] = {-1, -1};
                    const int rc = shim_dl_float_sum_eager_and_captured(es, in, n, excl, with_init ? init : NULL, eager,
                                                                        captured, totals, &nodes, paths);
                    if (rc == SHIM_UNSUPPORTED) TFAIL("%s: the shim does not know %zu-byte floats", ctx, es);
                    if (rc != 0)
                        TFAIL("%s: CUDA error %d (%s: %s)", ctx, rc, cudaGetErrorName((cudaError_t)rc),
                              cudaGetErrorString((cudaError_t)rc));
                    if (paths[0] == SHIM_PATH_GRID && (paths[1] != SHIM_PATH_GRID_CAPTURED || nodes != 1))
                        TFAIL("%s: eagerly the grid scan, under capture path %d in %zu graph nodes (expected the "
                              "grid scan with its values in temp, one kernel node)", ctx, paths[1], nodes);
                    if (paths[0] == SHIM_PATH_LOOKBACK && (paths[1] != SHIM_PATH_LOOKBACK || nodes != 2))
                        TFAIL("%s: eagerly the look-back, under capture path %d in %zu graph nodes (expected the "
                              "look-back: a memset and a kernel node)", ctx, paths[1], nodes);
                    if (paths[0] != SHIM_PATH_GRID && paths[0] != SHIM_PATH_LOOKBACK)
                        TFAIL("%s: the eager plan took path %d", ctx, paths[0]);
                    ref_case_t c = {dt, LIBSCAN_OP_SUM, excl, in, n, with_init ? init : NULL, 0};
                    if (ref_check(&c, eager, totals, msg, sizeof msg)) TFAIL("%s: eager: %s", ctx, msg);
                    expect_same_bits(dt, ctx, eager, captured, n, totals, totals + es);
                }
    free(in);
    free(eager);
    free(captured);
}

/* ---- non-commutative monoids through libscan::DeviceScan<T>::run ---------- */

/* One monoid of support/monoids.h as untyped bytes, so that dl_check has no
 * per-type branches. Elements are plain uint32_t structs without padding,
 * so memcmp compares values. */
typedef struct dl_monoid {
    shim_dl_type_t type;
    size_t size; /* bytes per element, at most DL_MAX_BYTES */
    const char *name;
    void (*identity)(void *out);
    void (*combine)(void *acc, const void *x); /* acc = acc * x (earlier on the left) */
    void (*random)(rng_t *r, void *out);
    void (*format)(const void *x, char *buf, size_t len); /* for failure messages */
} dl_monoid_t;

#define DL_MAX_BYTES 16

/* Typed wrappers: memcpy in and out, since byte buffers need not be aligned
 * for the struct. */
#define DL_WRAP(T, pre, mul, ident)                                                                     \
    static void pre##_ident(void *out) {                                                               \
        T v = ident();                                                                                 \
        memcpy(out, &v, sizeof v);                                                                     \
    }                                                                                                  \
    static void pre##_combine(void *acc, const void *x) {                                              \
        T a, b;                                                                                        \
        memcpy(&a, acc, sizeof a);                                                                     \
        memcpy(&b, x, sizeof b);                                                                       \
        a = mul(a, b);                                                                                 \
        memcpy(acc, &a, sizeof a);                                                                     \
    }                                                                                                  \
    static void pre##_random(rng_t *r, void *out) {                                                    \
        T v = data_random_##pre(r);                                                                    \
        memcpy(out, &v, sizeof v);                                                                     \
    }

DL_WRAP(mat2_t, mat2, mat2_mul, mat2_identity)
DL_WRAP(affine_t, affine, affine_then, affine_identity)
DL_WRAP(tri_t, tri, tri_mul, tri_identity)

static void mat2_format(const void *x, char *buf, size_t len) {
    mat2_t v;
    memcpy(&v, x, sizeof v);
    snprintf(buf, len, "[[%" PRIu32 ", %" PRIu32 "], [%" PRIu32 ", %" PRIu32 "]]", v.m[0], v.m[1], v.m[2], v.m[3]);
}

static void affine_format(const void *x, char *buf, size_t len) {
    affine_t v;
    memcpy(&v, x, sizeof v);
    snprintf(buf, len, "x -> %" PRIu32 "*x + %" PRIu32, v.a, v.b);
}

static void tri_format(const void *x, char *buf, size_t len) {
    tri_t v;
    memcpy(&v, x, sizeof v);
    snprintf(buf, len, "(a %" PRIu32 ", b %" PRIu32 ", c %" PRIu32 ")", v.a, v.b, v.c);
}

static const dl_monoid_t dl_monoids[] = {
    {SHIM_DL_MAT2, sizeof(mat2_t), "2x2 matrix product", mat2_ident, mat2_combine, mat2_random, mat2_format},
    {SHIM_DL_AFFINE, sizeof(affine_t), "affine composition", affine_ident, affine_combine, affine_random,
     affine_format},
    {SHIM_DL_TRI, sizeof(tri_t), "unitriangular 3x3 product", tri_ident, tri_combine, tri_random, tri_format},
    {SHIM_DL_AFFINE_WIDE, sizeof(affine_t), "affine composition, 256x32 tile", affine_ident, affine_combine,
     affine_random, affine_format},
};

static const dl_monoid_t *dl_monoid(shim_dl_type_t type) {
    for (size_t i = 0; i < sizeof dl_monoids / sizeof dl_monoids[0]; ++i)
        if (dl_monoids[i].type == type) {
            if (dl_monoids[i].size > DL_MAX_BYTES) TFAIL("%s: %zu-byte elements", dl_monoids[i].name, dl_monoids[i].size);
            return &dl_monoids[i];
        }
    TFAIL("no monoid table entry for device-layer type %d", (int)type);
    return NULL;
}

/* Failure at element i (SIZE_MAX: the total): names both values. */
static void dl_fail(const dl_monoid_t *m, const char *ctx, size_t i, const void *got, const void *want) {
    char g[160], w[160];
    m->format(got, g, sizeof g);
    m->format(want, w, sizeof w);
    if (i == SIZE_MAX) TFAIL("%s: the total %s differs from the CPU left fold %s", ctx, g, w);
    TFAIL("%s: element %zu = %s differs from the CPU left fold %s", ctx, i, g, w);
}

typedef int (*dl_scan_fn)(shim_dl_type_t type, const void *h_in, void *h_out, size_t n, int exclusive,
                          const void *init, int init_on_device, void *h_total, int in_place);

/* Scans random elements of `type` of each size through `scan` (inclusive and
 * exclusive; no carry-in, host carry-in, device carry-in; every fourth run in
 * place) and compares every output and the total with a CPU left fold. */
static void dl_check_with(shim_dl_type_t type, dl_scan_fn scan, const char *what, const size_t *sizes, size_t count) {
    test_require_gpu();
    const dl_monoid_t *m = dl_monoid(type);
    const size_t es = m->size;
    size_t cap = 1;
    for (size_t k = 0; k < count; ++k) cap = sizes[k] > cap ? sizes[k] : cap;
    unsigned char *in = xmalloc(cap * es), *out = xmalloc(cap * es);
    unsigned char init[DL_MAX_BYTES], total[DL_MAX_BYTES], acc[DL_MAX_BYTES];
    rng_t r;
    rng_init(&r, "device layer", (uint64_t)type);
    int run = 0;
    for (size_t k = 0; k < count; ++k)
        for (int excl = 0; excl < 2; ++excl)
            for (int init_mode = 0; init_mode < 3; ++init_mode, ++run) { /* identity, host init, d_init */
                const size_t n = sizes[k];
                if (!test_size_allowed(n)) continue;
                const int in_place = run % 4 == 3;
                char ctx[200];
                snprintf(ctx, sizeof ctx, "%s<%s>, %s, n=%zu, %s%s", what, m->name,
                         excl ? "exclusive" : "inclusive", n,
                         init_mode == 0 ? "no carry-in" : init_mode == 1 ? "host carry-in" : "device carry-in",
                         in_place ? ", in place" : "");
                for (size_t i = 0; i < n; ++i) m->random(&r, in + i * es);
                m->random(&r, init);
                memset(out, 0, n * es);
                int rc = scan(type, in, out, n, excl, init_mode ? init : NULL, init_mode == 2, total, in_place);
                if (rc == SHIM_GUARD_CORRUPTED) TFAIL("%s: wrote outside the output", ctx);
                if (rc == SHIM_UNSUPPORTED) TFAIL("%s: the shim does not know this type", ctx);
                if (rc != 0)
                    TFAIL("%s: CUDA error %d (%s: %s)", ctx, rc, cudaGetErrorName((cudaError_t)rc),
                          cudaGetErrorString((cudaError_t)rc));
                /* CPU left fold, earlier operand on the left */
                if (init_mode) memcpy(acc, init, es);
                else m->identity(acc);
                for (size_t i = 0; i < n; ++i) {
                    if (excl && memcmp(out + i * es, acc, es) != 0) dl_fail(m, ctx, i, out + i * es, acc);
                    m->combine(acc, in + i * es);
                    if (!excl && memcmp(out + i * es, acc, es) != 0) dl_fail(m, ctx, i, out + i * es, acc);
                }
                if (memcmp(total, acc, es) != 0) dl_fail(m, ctx, SIZE_MAX, total, acc);
            }
    free(in);
    free(out);
}

/* DeviceScan<T>::run over sizes around its tile: for 8-byte affine_t both
 * the eager grid scan (up to 65536 elements) and the look-back path; for the
 * 16- and 12-byte types the look-back at every size. The look-back's
 * mid-size kernel (if the type has one: up to m tiles) and large kernel both
 * run. */
static void dl_check(shim_dl_type_t type) {
    const size_t t = shim_dl_tile_items(type), m = shim_dl_mid_max_tiles(type);
    if (t == 0) TFAIL("no tile size for device-layer type %d", (int)type);
    const size_t sizes[] = {1, 31, t - 1, t + 1, 37 * t + 5, 300 * t + 3, (m ? m : 1) * t + 7};
    dl_check_with(type, shim_dl_scan, "DeviceScan::run", sizes, sizeof sizes / sizeof sizes[0]);
}

static void test_noncommutative_mat2_device_layer(void **state) {
    (void)state;
    dl_check(SHIM_DL_MAT2);
}

static void test_noncommutative_affine_device_layer(void **state) {
    (void)state;
    dl_check(SHIM_DL_AFFINE);
}

/* 12-byte elements: DeviceScan<T>'s path for sizes that do not divide 16. */
static void test_noncommutative_tri_device_layer(void **state) {
    (void)state;
    dl_check(SHIM_DL_TRI);
}

/* A caller-chosen tile whose staging area (64 KiB) only fits dynamic shared
 * memory: DeviceScan's opt-in path, which no tuning entry takes today. */
static void test_noncommutative_affine_wide_tile(void **state) {
    (void)state;
    dl_check(SHIM_DL_AFFINE_WIDE);
}

/* The grid scan launched through the runtime's cudaLaunchCooperativeKernel
 * (its fallback where the driver entry point is missing), with 8-byte
 * non-commutative elements, at its tile and capacity boundaries. */
static void test_grid_scan_runtime_launch(void **state) {
    (void)state;
    test_require_gpu();
    const size_t t = grid_tile_of(LIBSCAN_U64), c = grid_capacity_of(LIBSCAN_U64);
    const size_t sizes[] = {1, 31, t - 1, t + 1, c - 1, c};
    dl_check_with(SHIM_DL_AFFINE, shim_grid_scan_runtime_launch, "GridScan::run with cudaLaunchCooperativeKernel",
                  sizes, 6);
}

/* The grid scan's barrier exchange (GridScan::run_with_temp: what captured
 * small scans run), launched eagerly over temp full of 0xFF bytes, with
 * 8-byte non-commutative elements at its tile and capacity boundaries: the
 * fold must take the blocks' values in order, and never a slot this launch
 * did not write. */
static void test_grid_scan_barrier_exchange(void **state) {
    (void)state;
    test_require_gpu();
    const size_t t = grid_tile_of(LIBSCAN_U64), c = grid_capacity_of(LIBSCAN_U64);
    const size_t sizes[] = {1, 31, t - 1, t + 1, 2 * t + 5, c - 1, c};
    dl_check_with(SHIM_DL_AFFINE, shim_grid_scan_with_temp, "GridScan::run_with_temp", sizes, 7);
}

/* Under stream capture the grid scan says no, and adds nothing to the graph. */
static void test_grid_scan_refuses_capture(void **state) {
    (void)state;
    test_require_gpu();
    const int rc = shim_grid_scan_refuses_capture();
    if (rc == -1) TFAIL("GridScan::eager() misjudged a stream (capturing or not)");
    if (rc == -2) TFAIL("GridScan::run did not return cudaErrorStreamCaptureUnsupported under capture");
    if (rc == -3) TFAIL("GridScan::run added a node to the graph being captured");
    if (rc != 0) TFAIL("CUDA error %d (%s)", rc, cudaGetErrorString((cudaError_t)rc));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sweep_u32),
        cmocka_unit_test(test_sweep_i32),
        cmocka_unit_test(test_sweep_u64),
        cmocka_unit_test(test_sweep_i64),
        cmocka_unit_test(test_sweep_f32),
        cmocka_unit_test(test_sweep_f64),
        cmocka_unit_test(test_two_pow_28),
        cmocka_unit_test(test_in_place),
        cmocka_unit_test(test_device_carry_in_and_out),
        cmocka_unit_test(test_chaining),
        cmocka_unit_test(test_count_zero),
        cmocka_unit_test(test_float_sum_determinism),
        cmocka_unit_test(test_float_sum_signed_zero),
        cmocka_unit_test(test_float_minmax_special_values),
        cmocka_unit_test(test_element_aligned_offsets),
        cmocka_unit_test(test_unaligned_pointers_rejected),
        cmocka_unit_test(test_host_pointers_rejected),
        cmocka_unit_test(test_managed_and_pinned_memory),
        cmocka_unit_test(test_caller_temp_exact_size),
        cmocka_unit_test(test_stream_ordering),
        cmocka_unit_test(test_graph_capture),
        cmocka_unit_test(test_small_scan_graph_replay),
        cmocka_unit_test(test_small_scans_back_to_back),
        cmocka_unit_test(test_eager_equals_captured),
        cmocka_unit_test(test_dl_eager_equals_captured),
        cmocka_unit_test(test_noncommutative_mat2_device_layer),
        cmocka_unit_test(test_noncommutative_affine_device_layer),
        cmocka_unit_test(test_noncommutative_tri_device_layer),
        cmocka_unit_test(test_noncommutative_affine_wide_tile),
        cmocka_unit_test(test_grid_scan_runtime_launch),
        cmocka_unit_test(test_grid_scan_barrier_exchange),
        cmocka_unit_test(test_grid_scan_refuses_capture),
    };
    test_begin("test_device_scan");
    return test_exit_code(cmocka_run_group_tests(tests, NULL, NULL));
}
