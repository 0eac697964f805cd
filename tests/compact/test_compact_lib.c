/* test_compact_lib.c -- the compaction family (<libscan/compact.h>) against
 * an independent reference written here.
 *
 *   test_compact_lib cpu   label cpu: the CPU path over every type x mode x
 *                          selection rate x size, again with 1, 2, 3 and 7
 *                          threads forced (LIBSCAN_CPU_THREADS) at sizes
 *                          around its 8192-element blocks, in place too;
 *                          the host-only checks
 *                          (statuses decided before any CUDA call, with fake
 *                          never-dereferenced device pointers; U8/U16
 *                          refused everywhere), names
 *   test_compact_lib gpu   label gpu: the same sweep on the GPU, in place,
 *                          caller temp, opts = NULL (the temp cache) against
 *                          caller temp, graph capture, offsets, host
 *                          pointers, count 0, streams, U8/U16 refused,
 *                          2^28 elements, a user functor
 *
 * Every output buffer is poisoned first, and the poison must survive past the
 * count written. Fresh random inputs per run (seed printed). */
#include "support/harness.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libscan/compact.h>
#include "compact_shim.h"

#define FAKE(addr) ((void *)(uintptr_t)(addr))
static void *const fake_in = FAKE(0x7e0000000000ull);
static void *const fake_out = FAKE(0x7e0001000000ull);
static void *const fake_rej = FAKE(0x7e0002000000ull);
static void *const fake_flags = FAKE(0x7e0003000000ull);
static void *const fake_num = FAKE(0x7e0004000000ull);
static void *const fake_temp = FAKE(0x7e0005000000ull);

static const libscan_dtype_t all_dtypes[6] = {LIBSCAN_U32, LIBSCAN_I32, LIBSCAN_U64,
                                              LIBSCAN_I64, LIBSCAN_F32, LIBSCAN_F64};

typedef enum { M_SELECT_IF, M_SELECT_FLAGGED, M_PARTITION_IF, M_PARTITION_FLAGGED, M_UNIQUE, M_COUNT } mode_t_;
static const char *const mode_names[M_COUNT] = {"select_if", "select_flagged", "partition_if",
                                                "partition_flagged", "unique"};
static bool is_partition(int m) { return m == M_PARTITION_IF || m == M_PARTITION_FLAGGED; }

static const double rates[5] = {0.0, 0.01, 0.5, 0.99, 1.0};

/* ---- elements ----------------------------------------------------------------- */

static size_t esize(libscan_dtype_t t) { return (t == LIBSCAN_U32 || t == LIBSCAN_I32 || t == LIBSCAN_F32) ? 4 : 8; }
static bool dt_float(libscan_dtype_t t) { return t == LIBSCAN_F32 || t == LIBSCAN_F64; }
static bool dt_signed(libscan_dtype_t t) { return t == LIBSCAN_I32 || t == LIBSCAN_I64; }

/* Element i as the three views the reference needs. */
static uint64_t get_u(libscan_dtype_t t, const void *b, size_t i) {
    return t == LIBSCAN_U32 ? ((const uint32_t *)b)[i] : ((const uint64_t *)b)[i];
}
static int64_t get_i(libscan_dtype_t t, const void *b, size_t i) {
    return t == LIBSCAN_I32 ? ((const int32_t *)b)[i] : ((const int64_t *)b)[i];
}
static double get_f(libscan_dtype_t t, const void *b, size_t i) {
    return t == LIBSCAN_F32 ? (double)((const float *)b)[i] : ((const double *)b)[i];
}
static void set_f(libscan_dtype_t t, void *b, size_t i, double v) {
    if (t == LIBSCAN_F32) ((float *)b)[i] = (float)v;
    else ((double *)b)[i] = v;
}

/* Three-way comparisons, so every relation below derives from one function. */
static int cmp_u(uint64_t a, uint64_t b) { return (a > b) - (a < b); }
static int cmp_i(int64_t a, int64_t b) { return (a > b) - (a < b); }
static int cmp_f(double a, double b) { return (a > b) - (a < b); }

/* The reference predicate: the specification of compact.h, top. */
static bool ref_pred(const libscan_pred_t *p, libscan_dtype_t t, const void *b, size_t i) {
    int c = 0, c_hi = 0;
    bool zero, nan_x = false, finite = true;
    if (dt_float(t)) {
        double x = get_f(t, b, i);
        nan_x = x != x;
        finite = !nan_x && x - x == 0.0;
        zero = x == 0.0;
        if (!nan_x) {
            c = cmp_f(x, p->value.f);
            c_hi = cmp_f(x, p->hi.f);
        }
    } else if (dt_signed(t)) {
        int64_t x = get_i(t, b, i);
        zero = x == 0;
        c = cmp_i(x, p->value.i);
        c_hi = cmp_i(x, p->hi.i);
    } else {
        uint64_t x = get_u(t, b, i);
        zero = x == 0;
        c = cmp_u(x, p->value.u);
        c_hi = cmp_u(x, p->hi.u);
    }
    switch (p->kind) {
    case LIBSCAN_PRED_NONZERO: return !zero;
    case LIBSCAN_PRED_FINITE: return finite;
    case LIBSCAN_PRED_ISNAN: return nan_x;
    case LIBSCAN_PRED_NE: return nan_x || c != 0;
    default: break;
    }
    if (nan_x) return false;
    switch (p->kind) {
    case LIBSCAN_PRED_GT: return c > 0;
    case LIBSCAN_PRED_GE: return c >= 0;
    case LIBSCAN_PRED_LT: return c < 0;
    case LIBSCAN_PRED_LE: return c <= 0;
    case LIBSCAN_PRED_EQ: return c == 0;
    case LIBSCAN_PRED_RANGE: return c >= 0 && c_hi <= 0;
    default: return false;
    }
}

/* Unique: equal by value, NaN equal to NaN. */
static bool ref_same(libscan_dtype_t t, const void *b, size_t i, size_t j) {
    if (dt_float(t)) {
        double x = get_f(t, b, i), y = get_f(t, b, j);
        return x == y || (x != x && y != y);
    }
    return dt_signed(t) ? get_i(t, b, i) == get_i(t, b, j) : get_u(t, b, i) == get_u(t, b, j);
}

/* ---- cases --------------------------------------------------------------------- */

typedef struct {
    libscan_dtype_t dtype;
    int mode;
    size_t n;
    int indices;
    void *in;
    unsigned char *flags;
    libscan_pred_t pred;
    /* expected */
    void *want_out, *want_rej;
    size_t want_k;
} tcase_t;

static void random_element(rng_t *r, libscan_dtype_t t, void *b, size_t i) {
    if (!dt_float(t)) {
        uint64_t v = rng_u64(r);
        if (esize(t) == 4) ((uint32_t *)b)[i] = (uint32_t)v;
        else ((uint64_t *)b)[i] = v;
        return;
    }
    /* Uniform in [-1, 1), with some special values. */
    uint64_t pick = rng_below(r, 100);
    double v = rng_unit(r) * 2.0 - 1.0;
    if (pick == 0) v = NAN;
    else if (pick == 1) v = -0.0;
    else if (pick == 2) v = 0.0;
    else if (pick == 3) v = INFINITY;
    else if (pick == 4) v = -INFINITY;
    set_f(t, b, i, v);
    if (pick == 0 && rng_below(r, 2)) { /* a NaN with another payload and sign */
        if (t == LIBSCAN_F32) {
            uint32_t bits = 0xffc00001u;
            memcpy((float *)b + i, &bits, 4);
        } else {
            uint64_t bits = 0xfff8000000000123ull;
            memcpy((double *)b + i, &bits, 8);
        }
    }
}

/* A "less than" predicate keeping about `rate` of uniform data (all of it
 * for rate 1 except float NaNs and +inf). */
static libscan_pred_t rate_pred(libscan_dtype_t t, double rate) {
    libscan_pred_t p;
    memset(&p, 0, sizeof p);
    p.kind = LIBSCAN_PRED_LT;
    switch (t) {
    case LIBSCAN_U32: p.value.u = (uint64_t)(rate * 4294967296.0); break; /* 2^32 for rate 1: above every u32 */
    case LIBSCAN_I32: p.value.i = INT32_MIN + (int64_t)(rate * 4294967296.0); break;
    case LIBSCAN_U64:
        if (rate >= 1.0) p.kind = LIBSCAN_PRED_LE, p.value.u = UINT64_MAX;
        else p.value.u = (uint64_t)(rate * 18446744073709551616.0);
        break;
    case LIBSCAN_I64:
        if (rate >= 1.0) p.kind = LIBSCAN_PRED_LE, p.value.i = INT64_MAX;
        else p.value.i = (int64_t)((rate - 0.5) * 18446744073709551616.0);
        break;
    default: p.value.f = rate >= 1.0 ? 2.0 : -1.0 + 2.0 * rate; break;
    }
    return p;
}

static void compute_expected(tcase_t *c) {
    const size_t es = esize(c->dtype), os = c->indices ? 8 : es;
    c->want_out = malloc(c->n * os + 8);
    c->want_rej = malloc(c->n * os + 8);
    assert_non_null(c->want_out);
    assert_non_null(c->want_rej);
    size_t k = 0, r = 0;
    for (size_t i = 0; i < c->n; ++i) {
        bool keep;
        switch (c->mode) {
        case M_SELECT_FLAGGED:
        case M_PARTITION_FLAGGED: keep = c->flags[i] != 0; break;
        case M_UNIQUE: keep = i == 0 || !ref_same(c->dtype, c->in, i - 1, i); break;
        default: keep = ref_pred(&c->pred, c->dtype, c->in, i); break;
        }
        unsigned char *dst = keep ? c->want_out : c->want_rej;
        size_t at = keep ? k++ : r++;
        if (c->indices) {
            uint64_t idx = i;
            memcpy(dst + at * 8, &idx, 8);
        } else {
            memcpy(dst + at * es, (const unsigned char *)c->in + i * es, es);
        }
    }
    c->want_k = k;
}

/* Fills a case: data, flags and predicate for about `rate` kept. */
static void make_case(tcase_t *c, rng_t *r, libscan_dtype_t t, int mode, size_t n, double rate, int indices) {
    memset(c, 0, sizeof *c);
    c->dtype = t;
    c->mode = mode;
    c->n = n;
    c->indices = indices;
    const size_t es = esize(t);
    c->in = malloc(n * es + 16);
    c->flags = malloc(n + 16);
    assert_non_null(c->in);
    assert_non_null(c->flags);
    for (size_t i = 0; i < n; ++i) {
        if (mode == M_UNIQUE && i > 0 && rng_unit(r) >= rate) {
            /* Repeat the previous element; floats sometimes as the other zero
             * or another NaN, which unique must also collapse. */
            memcpy((unsigned char *)c->in + i * es, (unsigned char *)c->in + (i - 1) * es, es);
            if (dt_float(t) && rng_below(r, 4) == 0) {
                double prev = get_f(t, c->in, i - 1);
                if (prev == 0.0) set_f(t, c->in, i, signbit(prev) ? 0.0 : -0.0);
                else if (prev != prev) set_f(t, c->in, i, -NAN);
            }
        } else {
            random_element(r, t, c->in, i);
        }
        c->flags[i] = rng_unit(r) < rate ? (unsigned char)(1 + rng_below(r, 255)) : 0;
    }
    c->pred = rate_pred(t, rate);
    compute_expected(c);
}

static void free_case(tcase_t *c) {
    free(c->in);
    free(c->flags);
    free(c->want_out);
    free(c->want_rej);
}

#define POISON 0xa5

static void check_outputs(const tcase_t *c, const void *out, const void *rej, size_t got_k, const char *where) {
    const size_t os = c->indices ? 8 : esize(c->dtype);
    char what[160];
    snprintf(what, sizeof what, "%s %s %s n=%zu%s", where, mode_names[c->mode], libscan_dtype_name(c->dtype), c->n,
             c->indices ? " indices" : "");
    if (got_k != c->want_k) TFAIL("%s: count %zu, expected %zu", what, got_k, c->want_k);
    const unsigned char *o = out;
    for (size_t j = 0; j < c->want_k; ++j)
        if (memcmp(o + j * os, (const unsigned char *)c->want_out + j * os, os) != 0)
            TFAIL("%s: output [%zu] differs from the reference", what, j);
    for (size_t b = c->want_k * os; b < c->n * os; ++b)
        if (o[b] != POISON) TFAIL("%s: byte %zu past the selected outputs was written", what, b);
    if (is_partition(c->mode)) {
        const unsigned char *q = rej;
        const size_t nr = c->n - c->want_k;
        for (size_t j = 0; j < nr; ++j)
            if (memcmp(q + j * os, (const unsigned char *)c->want_rej + j * os, os) != 0)
                TFAIL("%s: rejected [%zu] differs from the reference", what, j);
        for (size_t b = nr * os; b < c->n * os; ++b)
            if (q[b] != POISON) TFAIL("%s: rejected byte %zu past the end was written", what, b);
    }
}

/* ---- running a case ----------------------------------------------------------------- */

static void run_cpu(const tcase_t *c) {
    const size_t os = c->indices ? 8 : esize(c->dtype);
    unsigned char *out = malloc(c->n * os + 8), *rej = malloc(c->n * os + 8);
    assert_non_null(out);
    assert_non_null(rej);
    memset(out, POISON, c->n * os + 8);
    memset(rej, POISON, c->n * os + 8);
    libscan_compact_opts_t o = LIBSCAN_COMPACT_OPTS_INIT;
    o.indices = c->indices;
    size_t k = (size_t)-1;
    switch (c->mode) {
    case M_SELECT_IF: LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_select_if(c->in, out, &k, c->n, c->dtype, &c->pred, &o)); break;
    case M_SELECT_FLAGGED:
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_select_flagged(c->in, c->flags, out, &k, c->n, c->dtype, &o));
        break;
    case M_PARTITION_IF:
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_partition_if(c->in, out, rej, &k, c->n, c->dtype, &c->pred, &o));
        break;
    case M_PARTITION_FLAGGED:
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_partition_flagged(c->in, c->flags, out, rej, &k, c->n, c->dtype, &o));
        break;
    default: LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_unique(c->in, out, &k, c->n, c->dtype, &o)); break;
    }
    check_outputs(c, out, rej, k, "cpu");
    free(out);
    free(rej);
}

/* Device copies of a case; `offset` elements of slack before in/out so that
 * unaligned (element-aligned) pointers can be tested. */
typedef struct {
    void *in, *out, *rej, *flags;
    size_t *num;
    void *in_base, *out_base, *rej_base, *flags_base;
} dbufs_t;

static void dev_alloc(dbufs_t *d, const tcase_t *c, size_t offset) {
    const size_t es = esize(c->dtype), os = c->indices ? 8 : es;
    const size_t nin = (c->n + offset) * es + 16, nout = (c->n + offset) * os + 16;
    CUDA_CHECK(cudaMalloc(&d->in_base, nin));
    CUDA_CHECK(cudaMalloc(&d->out_base, nout));
    CUDA_CHECK(cudaMalloc(&d->rej_base, nout));
    CUDA_CHECK(cudaMalloc(&d->flags_base, c->n + offset + 16));
    CUDA_CHECK(cudaMalloc((void **)&d->num, sizeof(size_t)));
    d->in = (unsigned char *)d->in_base + offset * es;
    d->out = (unsigned char *)d->out_base + offset * os;
    d->rej = (unsigned char *)d->rej_base + offset * os;
    d->flags = (unsigned char *)d->flags_base + offset;
    if (c->n) {
        CUDA_CHECK(cudaMemcpy(d->in, c->in, c->n * es, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(d->flags, c->flags, c->n, cudaMemcpyHostToDevice));
    }
    CUDA_CHECK(cudaMemset(d->out_base, POISON, nout));
    CUDA_CHECK(cudaDeviceSynchronize()); /* settle the legacy stream's memset before work on non-blocking streams */
    CUDA_CHECK(cudaMemset(d->rej_base, POISON, nout));
    CUDA_CHECK(cudaDeviceSynchronize()); /* settle the legacy stream's memset before work on non-blocking streams */
    CUDA_CHECK(cudaMemset(d->num, 0xff, sizeof(size_t)));
    CUDA_CHECK(cudaDeviceSynchronize()); /* settle the legacy stream's memset before work on non-blocking streams */
    /* The memsets run on the legacy stream, which a non-blocking stream does
     * not wait for: finish them before a case launches on such a stream. */
    CUDA_CHECK(cudaDeviceSynchronize());
}

static void dev_free(dbufs_t *d) {
    cudaFree(d->in_base);
    cudaFree(d->out_base);
    cudaFree(d->rej_base);
    cudaFree(d->flags_base);
    cudaFree(d->num);
}

static libscan_status_t gpu_call(const tcase_t *c, const dbufs_t *d, void *out, const libscan_compact_opts_t *o,
                                 cudaStream_t s) {
    switch (c->mode) {
    case M_SELECT_IF: return libscan_select_if(d->in, out, d->num, c->n, c->dtype, &c->pred, o, s);
    case M_SELECT_FLAGGED: return libscan_select_flagged(d->in, d->flags, out, d->num, c->n, c->dtype, o, s);
    case M_PARTITION_IF: return libscan_partition_if(d->in, out, d->rej, d->num, c->n, c->dtype, &c->pred, o, s);
    case M_PARTITION_FLAGGED:
        return libscan_partition_flagged(d->in, d->flags, out, d->rej, d->num, c->n, c->dtype, o, s);
    default: return libscan_unique(d->in, out, d->num, c->n, c->dtype, o, s);
    }
}

/* Runs a case on the GPU: offset = element slack (unaligned pointers),
 * in_place = output over the input, temp = caller temp of the exact size. */
static void run_gpu_opts(const tcase_t *c, size_t offset, bool in_place, bool caller_temp, cudaStream_t s) {
    const size_t os = c->indices ? 8 : esize(c->dtype);
    dbufs_t d;
    dev_alloc(&d, c, offset);
    libscan_compact_opts_t o = LIBSCAN_COMPACT_OPTS_INIT;
    o.indices = c->indices;
    if (caller_temp) {
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_compact_temp_bytes(c->n, c->dtype, &o.temp_bytes));
        if (o.temp_bytes) CUDA_CHECK(cudaMalloc(&o.d_temp, o.temp_bytes));
    }
    void *out = in_place ? d.in : d.out;
    LS_EXPECT(LIBSCAN_SUCCESS, gpu_call(c, &d, out, &o, s));
    size_t k = 0;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_count_to_host(d.num, &k, s));
    if (k > c->n) TFAIL("gpu %s: count %zu exceeds n = %zu", mode_names[c->mode], k, c->n);
    unsigned char *h_out = malloc(c->n * os + 8), *h_rej = malloc(c->n * os + 8);
    assert_non_null(h_out);
    assert_non_null(h_rej);
    memset(h_out, POISON, c->n * os + 8);
    if (c->n) {
        if (in_place) {
            CUDA_CHECK(cudaMemcpy(h_out, out, k * os, cudaMemcpyDeviceToHost)); /* the rest is the old input */
        } else {
            CUDA_CHECK(cudaMemcpy(h_out, out, c->n * os, cudaMemcpyDeviceToHost));
        }
        CUDA_CHECK(cudaMemcpy(h_rej, d.rej, c->n * os, cudaMemcpyDeviceToHost));
    }
    check_outputs(c, h_out, h_rej, k, in_place ? "gpu in place" : "gpu");
    free(h_out);
    free(h_rej);
    if (o.d_temp) cudaFree(o.d_temp);
    dev_free(&d);
}

static void run_gpu(const tcase_t *c) { run_gpu_opts(c, 0, false, false, 0); }

/* ---- sweeps ------------------------------------------------------------------------- */

static size_t sweep_sizes(libscan_dtype_t t, size_t *sizes) {
    const size_t tile = compact_test_tile_items(t);
    size_t k = 0;
    const size_t fixed[] = {0, 1, 31, 32, 33, tile - 1, tile, tile + 1, 7 * tile + 123, 1048573};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; ++i) sizes[k++] = fixed[i];
    return k;
}

static void sweep(libscan_dtype_t t, bool gpu) {
    size_t sizes[16];
    const size_t ns = test_filter_sizes(sizes, sweep_sizes(t, sizes));
    assert_true(compact_test_tile_items(t) > 0);
    rng_t r;
    rng_init(&r, gpu ? "sweep-gpu" : "sweep-cpu", (uint64_t)t);
    for (int m = 0; m < M_COUNT; ++m)
        for (int ri = 0; ri < 5; ++ri)
            for (size_t si = 0; si < ns; ++si) {
                /* Indices on the mid rate only, to bound the time. */
                for (int ind = 0; ind <= (ri == 2 ? 1 : 0); ++ind) {
                    tcase_t c;
                    make_case(&c, &r, t, m, sizes[si], rates[ri], ind);
                    if (gpu) run_gpu(&c);
                    else run_cpu(&c);
                    free_case(&c);
                }
            }
}

#define SWEEP_TESTS(name, T)                                                                          \
    static void test_cpu_sweep_##name(void **state) { (void)state; sweep(T, false); }                 \
    static void test_gpu_sweep_##name(void **state) { (void)state; if (test_require_gpu()) sweep(T, true); }
SWEEP_TESTS(u32, LIBSCAN_U32)
SWEEP_TESTS(i32, LIBSCAN_I32)
SWEEP_TESTS(u64, LIBSCAN_U64)
SWEEP_TESTS(i64, LIBSCAN_I64)
SWEEP_TESTS(f32, LIBSCAN_F32)
SWEEP_TESTS(f64, LIBSCAN_F64)

/* Every predicate kind on data with duplicates, zeros of both signs, NaN,
 * infinities and the type's extremes, on the CPU or the GPU. */
static void predicate_kinds(bool gpu) {
    rng_t r;
    rng_init(&r, "kinds", gpu);
    for (int ti = 0; ti < 6; ++ti) {
        const libscan_dtype_t t = all_dtypes[ti];
        for (int kind = LIBSCAN_PRED_GT; kind <= LIBSCAN_PRED_ISNAN; ++kind) {
            tcase_t c;
            make_case(&c, &r, t, M_PARTITION_IF, 5000, 0.5, 0);
            /* Small values so EQ/NE/RANGE meet equal elements; extremes. */
            for (size_t i = 0; i < c.n; ++i) {
                const int64_t small = (int64_t)rng_below(&r, 7) - 3;
                if (dt_float(t)) {
                    if (rng_below(&r, 3)) set_f(t, c.in, i, (double)small * 0.5);
                } else if (rng_below(&r, 3)) {
                    if (t == LIBSCAN_U32) ((uint32_t *)c.in)[i] = (uint32_t)(small + 3);
                    else if (t == LIBSCAN_I32) ((int32_t *)c.in)[i] = (int32_t)small;
                    else if (t == LIBSCAN_U64) ((uint64_t *)c.in)[i] = (uint64_t)(small + 3);
                    else ((int64_t *)c.in)[i] = small;
                }
            }
            if (t == LIBSCAN_U64) ((uint64_t *)c.in)[1] = UINT64_MAX, ((uint64_t *)c.in)[2] = (1ull << 53) + 1;
            if (t == LIBSCAN_I64) ((int64_t *)c.in)[1] = INT64_MIN, ((int64_t *)c.in)[2] = (1ll << 53) + 1;
            c.pred.kind = (libscan_pred_kind_t)kind;
            if (dt_float(t)) c.pred.value.f = -0.0, c.pred.hi.f = 1.0;
            else if (dt_signed(t)) c.pred.value.i = -1, c.pred.hi.i = 2;
            else c.pred.value.u = 1, c.pred.hi.u = 4;
            /* Integers beyond 2^53 compare exactly: 2^53 + 1 == value. */
            if ((t == LIBSCAN_U64 || t == LIBSCAN_I64) && kind == LIBSCAN_PRED_EQ) {
                if (t == LIBSCAN_U64) c.pred.value.u = (1ull << 53) + 1;
                else c.pred.value.i = (1ll << 53) + 1;
            }
            free(c.want_out);
            free(c.want_rej);
            compute_expected(&c);
            if ((t == LIBSCAN_U64 || t == LIBSCAN_I64) && kind == LIBSCAN_PRED_EQ && c.want_k < 1)
                TFAIL("reference: 2^53 + 1 not found");
            if (gpu) run_gpu(&c);
            else run_cpu(&c);
            c.mode = M_SELECT_IF;
            c.indices = 1;
            free(c.want_out);
            free(c.want_rej);
            compute_expected(&c);
            if (gpu) run_gpu(&c);
            else run_cpu(&c);
            free_case(&c);
        }
    }
}

static void test_cpu_predicate_kinds(void **state) {
    (void)state;
    predicate_kinds(false);
}
static void test_gpu_predicate_kinds(void **state) {
    (void)state;
    if (test_require_gpu()) predicate_kinds(true);
}

/* Hand-made float cases whose answers are written out here. */
static void test_cpu_float_rules_by_hand(void **state) {
    (void)state;
    const double in[9] = {NAN, -NAN, 1.0, -0.0, 0.0, 0.0, INFINITY, NAN, 1.0};
    size_t k = 0;
    double out[9];
    /* unique: NaN run collapses, -0.0 then 0.0 collapses to -0.0. */
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_unique(in, out, &k, 9, LIBSCAN_F64, NULL));
    assert_int_equal(k, 6);
    assert_true(isnan(out[0]) && out[1] == 1.0 && out[2] == 0.0 && signbit(out[2]) && isinf(out[3]) &&
                isnan(out[4]) && out[5] == 1.0);
    libscan_pred_t p = {LIBSCAN_PRED_EQ, {0}, {0}};
    p.value.f = 0.0; /* -0.0 == +0.0 */
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_select_if(in, out, &k, 9, LIBSCAN_F64, &p, NULL));
    assert_int_equal(k, 3);
    p.kind = LIBSCAN_PRED_NONZERO;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_select_if(in, out, &k, 9, LIBSCAN_F64, &p, NULL));
    assert_int_equal(k, 6); /* NaN x3, 1, inf, 1 */
    p.kind = LIBSCAN_PRED_FINITE;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_select_if(in, out, &k, 9, LIBSCAN_F64, &p, NULL));
    assert_int_equal(k, 5);
    p.kind = LIBSCAN_PRED_ISNAN;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_select_if(in, out, &k, 9, LIBSCAN_F64, &p, NULL));
    assert_int_equal(k, 3);
    p.kind = LIBSCAN_PRED_NE;
    p.value.f = 1.0;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_select_if(in, out, &k, 9, LIBSCAN_F64, &p, NULL));
    assert_int_equal(k, 7);
    /* Partition keeps both sides in input order. */
    const uint32_t u[6] = {5, 1, 7, 2, 9, 3};
    uint32_t kept[6], rej[6];
    libscan_pred_t gt4 = {LIBSCAN_PRED_GT, {0}, {0}};
    gt4.value.u = 4;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_partition_if(u, kept, rej, &k, 6, LIBSCAN_U32, &gt4, NULL));
    assert_int_equal(k, 3);
    assert_true(kept[0] == 5 && kept[1] == 7 && kept[2] == 9 && rej[0] == 1 && rej[1] == 2 && rej[2] == 3);
}

/* In place (out == in) on the CPU: every mode, f32, n elements, `rate` kept. */
static void cpu_in_place(rng_t *r, size_t n, double rate) {
    for (int m = 0; m < M_COUNT; ++m) {
        tcase_t c;
        make_case(&c, r, LIBSCAN_F32, m, n, rate, 0);
        float *buf = malloc(c.n * 4 + 4);
        float *rej = malloc(c.n * 4 + 4);
        assert_non_null(buf);
        assert_non_null(rej);
        memcpy(buf, c.in, c.n * 4);
        size_t k = 0;
        switch (m) {
        case M_SELECT_IF: LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_select_if(buf, buf, &k, c.n, c.dtype, &c.pred, NULL)); break;
        case M_SELECT_FLAGGED: LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_select_flagged(buf, c.flags, buf, &k, c.n, c.dtype, NULL)); break;
        case M_PARTITION_IF: LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_partition_if(buf, buf, rej, &k, c.n, c.dtype, &c.pred, NULL)); break;
        case M_PARTITION_FLAGGED: LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_partition_flagged(buf, c.flags, buf, rej, &k, c.n, c.dtype, NULL)); break;
        default: LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_unique(buf, buf, &k, c.n, c.dtype, NULL)); break;
        }
        assert_int_equal(k, c.want_k);
        if (memcmp(buf, c.want_out, k * 4) != 0) TFAIL("cpu in place %s differs", mode_names[m]);
        if (is_partition(m) && memcmp(rej, c.want_rej, (c.n - k) * 4) != 0) TFAIL("cpu in place %s rejected differ", mode_names[m]);
        free(buf);
        free(rej);
        free_case(&c);
    }
}

static void test_cpu_in_place(void **state) {
    (void)state;
    rng_t r;
    rng_init(&r, "cpu-in-place", 0);
    cpu_in_place(&r, 10007, 0.5);
}

/* Forces the CPU path's thread count (0: back to automatic). */
static void set_threads(unsigned t) {
    if (t == 0) {
        unsetenv("LIBSCAN_CPU_THREADS");
        return;
    }
    char v[16];
    snprintf(v, sizeof v, "%u", t);
    setenv("LIBSCAN_CPU_THREADS", v, 1);
}

/* The threaded CPU path (core/cpu_compact.c: blocks of 8192 elements, each
 * thread claiming the next): sizes around one and several blocks, more
 * threads than blocks, every type and mode, values and indices, nothing
 * and everything kept; in place with every block kept whole (its copy is
 * skipped), none kept, half kept. */
static void test_cpu_threads(void **state) {
    (void)state;
    const unsigned threads[] = {1, 2, 3, 7};
    const size_t block = 8192;
    const size_t sizes[] = {1, 5, block - 1, block, block + 1, 3 * block + 5, 9 * block - 1};
    const double rate3[] = {0.0, 0.5, 1.0};
    rng_t r;
    rng_init(&r, "cpu-threads", 0);
    for (size_t ti = 0; ti < sizeof threads / sizeof threads[0]; ++ti) {
        set_threads(threads[ti]);
        for (int t = 0; t < 6; ++t)
            for (int m = 0; m < M_COUNT; ++m)
                for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si)
                    for (int ri = 0; ri < 3; ++ri) {
                        tcase_t c;
                        make_case(&c, &r, all_dtypes[t], m, sizes[si], rate3[ri], (int)((si + (size_t)ri) & 1));
                        run_cpu(&c);
                        free_case(&c);
                    }
        for (int ri = 0; ri < 3; ++ri) cpu_in_place(&r, 9 * block - 1, rate3[ri]);
        cpu_in_place(&r, 4 * block + 17, 0.99);
    }
    set_threads(0);
}

/* ---- host-only checks: statuses before any CUDA call --------------------------------- */

static void test_cpu_names_and_pred_check(void **state) {
    (void)state;
    const char *names[] = {"gt", "ge", "lt", "le", "eq", "ne", "range", "nonzero", "finite", "isnan"};
    for (int k = 0; k <= LIBSCAN_PRED_ISNAN; ++k) assert_string_equal(libscan_pred_name((libscan_pred_kind_t)k), names[k]);
    assert_string_equal(libscan_pred_name((libscan_pred_kind_t)42), "unknown");
    libscan_pred_t p = {LIBSCAN_PRED_GT, {0}, {0}};
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_pred_check(&p, LIBSCAN_U32));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_pred_check(&p, (libscan_dtype_t)17));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_pred_check(NULL, LIBSCAN_U32));
    p.kind = (libscan_pred_kind_t)10;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_OP, libscan_pred_check(&p, LIBSCAN_U32));
    p.kind = (libscan_pred_kind_t)-1;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_OP, libscan_pred_check(&p, LIBSCAN_U32));
    p.kind = LIBSCAN_PRED_LT;
    p.value.f = NAN;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_pred_check(&p, LIBSCAN_F32));
    p.kind = LIBSCAN_PRED_ISNAN; /* the value is not used */
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_pred_check(&p, LIBSCAN_F32));
    p.kind = LIBSCAN_PRED_RANGE;
    p.value.f = 2.0;
    p.hi.f = 1.0;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_pred_check(&p, LIBSCAN_F64));
    p.hi.f = NAN;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_pred_check(&p, LIBSCAN_F64));
    p.hi.f = 2.0; /* lo == hi is a one-value range */
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_pred_check(&p, LIBSCAN_F64));
    p.value.i = 1;
    p.hi.i = -1;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_pred_check(&p, LIBSCAN_I64));
    p.value.u = 1;
    p.hi.u = UINT64_MAX; /* as unsigned: 1 <= 2^64-1 */
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_pred_check(&p, LIBSCAN_U64));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_pred_check(&p, LIBSCAN_I64)); /* 1 > -1 */
}

static void test_cpu_temp_bytes(void **state) {
    (void)state;
    size_t b = 1;
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_compact_temp_bytes(10, LIBSCAN_U32, NULL));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_compact_temp_bytes(10, LIBSCAN_U8, &b));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_compact_temp_bytes(10, LIBSCAN_U16, &b));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_compact_temp_bytes(10, (libscan_dtype_t)8, &b));
    assert_int_equal(b, 1); /* not written on error */
    LS_EXPECT(LIBSCAN_ERROR_TOO_LARGE, libscan_compact_temp_bytes(LIBSCAN_MAX_COUNT + 1, LIBSCAN_U32, &b));
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_compact_temp_bytes(0, LIBSCAN_U32, &b));
    assert_int_equal(b, 0);
    for (int ti = 0; ti < 6; ++ti) {
        size_t small = 0, big = 0, max = 0;
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_compact_temp_bytes(1, all_dtypes[ti], &small));
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_compact_temp_bytes((size_t)1 << 32, all_dtypes[ti], &big));
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_compact_temp_bytes(LIBSCAN_MAX_COUNT, all_dtypes[ti], &max));
        assert_true(small > 0 && small < big && big < max);
        assert_true(big < ((size_t)1 << 32) / 64); /* a few bytes per tile, not per element */
    }
}

typedef libscan_status_t (*select_fn)(const void *, void *, size_t *, size_t, libscan_dtype_t, const libscan_pred_t *,
                                      const libscan_compact_opts_t *, cudaStream_t);

static void test_cpu_gpu_argument_errors(void **state) {
    (void)state;
    libscan_pred_t p = {LIBSCAN_PRED_GT, {0}, {0}};
    libscan_compact_opts_t o = LIBSCAN_COMPACT_OPTS_INIT;
    const size_t n = 1000;
    size_t *num = fake_num;
    const unsigned char *flags = fake_flags;
    /* enums and predicate */
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_select_if(fake_in, fake_out, num, n, (libscan_dtype_t)9, &p, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_select_if(fake_in, fake_out, num, n, LIBSCAN_U32, NULL, NULL, 0));
    p.kind = (libscan_pred_kind_t)99;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_OP, libscan_partition_if(fake_in, fake_out, fake_rej, num, n, LIBSCAN_U32, &p, NULL, 0));
    p.kind = LIBSCAN_PRED_GT;
    p.value.f = NAN;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_select_if(fake_in, fake_out, num, n, LIBSCAN_F64, &p, NULL, 0));
    p.value.f = 0;
    /* NULL pointers */
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_select_if(fake_in, fake_out, NULL, n, LIBSCAN_U32, &p, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_select_if(NULL, fake_out, num, n, LIBSCAN_U32, &p, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_select_if(fake_in, NULL, num, n, LIBSCAN_U32, &p, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_partition_if(fake_in, fake_out, NULL, num, n, LIBSCAN_U32, &p, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_select_flagged(fake_in, NULL, fake_out, num, n, LIBSCAN_U32, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_partition_flagged(fake_in, flags, fake_out, NULL, num, n, LIBSCAN_U32, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_unique(fake_in, NULL, num, n, LIBSCAN_U32, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_unique(fake_in, fake_out, NULL, 0, LIBSCAN_U32, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_count_to_host(NULL, &o.temp_bytes, 0));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_count_to_host(num, NULL, 0));
    /* size, temp */
    LS_EXPECT(LIBSCAN_ERROR_TOO_LARGE, libscan_unique(fake_in, fake_out, num, LIBSCAN_MAX_COUNT + 1, LIBSCAN_U32, NULL, 0));
    o.temp_bytes = 64;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_unique(fake_in, fake_out, num, n, LIBSCAN_U32, &o, 0));
    o.d_temp = fake_temp;
    LS_EXPECT(LIBSCAN_ERROR_TEMP_TOO_SMALL, libscan_unique(fake_in, fake_out, num, n, LIBSCAN_U32, &o, 0));
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_compact_temp_bytes(n, LIBSCAN_U32, &o.temp_bytes));
    o.d_temp = (char *)fake_out + 8; /* temp inside the output */
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP, libscan_unique(fake_in, fake_out, num, n, LIBSCAN_U32, &o, 0));
    /* misaligned pointers */
    LS_EXPECT(LIBSCAN_ERROR_INVALID_POINTER, libscan_unique((char *)fake_in + 2, fake_out, num, n, LIBSCAN_U32, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_POINTER, libscan_unique(fake_in, (char *)fake_out + 4, num, n, LIBSCAN_U64, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_POINTER, libscan_unique(fake_in, fake_out, (size_t *)((char *)num + 4), n, LIBSCAN_U32, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_INVALID_POINTER, libscan_count_to_host((size_t *)((char *)num + 1), &o.temp_bytes, 0));
    o = (libscan_compact_opts_t)LIBSCAN_COMPACT_OPTS_INIT;
    o.indices = 1; /* u64 outputs need 8-byte alignment even for u32 input */
    LS_EXPECT(LIBSCAN_ERROR_INVALID_POINTER, libscan_unique(fake_in, (char *)fake_out + 4, num, n, LIBSCAN_U32, &o, 0));
    /* overlaps */
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP, libscan_unique(fake_in, (char *)fake_in + 4, num, n, LIBSCAN_U32, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP, libscan_unique(fake_in, fake_in, num, n, LIBSCAN_U32, &o, 0)); /* indices in place */
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP, libscan_partition_if(fake_in, fake_out, fake_in, num, n, LIBSCAN_U32, &p, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP, libscan_partition_if(fake_in, fake_out, (char *)fake_out + 400, num, n, LIBSCAN_U32, &p, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP, libscan_partition_if(fake_in, fake_in, fake_in, num, n, LIBSCAN_U32, &p, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP, libscan_select_flagged(fake_in, (unsigned char *)fake_out + 10, fake_out, num, n, LIBSCAN_U32, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP, libscan_partition_flagged(fake_in, (unsigned char *)fake_rej, fake_out, fake_rej, num, n, LIBSCAN_U32, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP, libscan_select_if(fake_in, fake_out, (size_t *)fake_out + 3, n, LIBSCAN_U32, &p, NULL, 0));
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP, libscan_select_if(fake_in, fake_out, (size_t *)fake_in, n, LIBSCAN_U32, &p, NULL, 0));
}

static void test_cpu_path_argument_errors(void **state) {
    (void)state;
    uint32_t in[4] = {1, 2, 3, 4}, out[4], rej[4];
    unsigned char flags[4] = {1, 0, 1, 0};
    size_t k = 0;
    libscan_pred_t p = {LIBSCAN_PRED_GT, {0}, {0}};
    libscan_compact_opts_t o = LIBSCAN_COMPACT_OPTS_INIT;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_cpu_unique(in, out, &k, 4, (libscan_dtype_t)8, NULL));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_cpu_select_if(in, out, &k, 4, LIBSCAN_U32, NULL, NULL));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_cpu_select_if(in, out, NULL, 4, LIBSCAN_U32, &p, NULL));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_cpu_select_flagged(in, NULL, out, &k, 4, LIBSCAN_U32, NULL));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_cpu_partition_flagged(in, flags, out, NULL, &k, 4, LIBSCAN_U32, NULL));
    LS_EXPECT(LIBSCAN_ERROR_NULL_POINTER, libscan_cpu_partition_if(NULL, out, rej, &k, 4, LIBSCAN_U32, &p, NULL));
    LS_EXPECT(LIBSCAN_ERROR_TOO_LARGE, libscan_cpu_unique(in, out, &k, LIBSCAN_MAX_COUNT + 1, LIBSCAN_U32, NULL));
    p.kind = (libscan_pred_kind_t)10;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_OP, libscan_cpu_select_if(in, out, &k, 4, LIBSCAN_U32, &p, NULL));
    p.kind = LIBSCAN_PRED_RANGE;
    p.value.u = 3;
    p.hi.u = 2;
    LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_cpu_select_if(in, out, &k, 4, LIBSCAN_U32, &p, NULL));
    o.indices = 1;
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP, libscan_cpu_unique(in, in, &k, 4, LIBSCAN_U32, &o));
    LS_EXPECT(LIBSCAN_ERROR_OVERLAP, libscan_cpu_partition_flagged(in, flags, out, out, &k, 4, LIBSCAN_U32, NULL));
    /* count 0: only the count is written, NULL data is fine */
    k = 99;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_cpu_partition_flagged(NULL, NULL, NULL, NULL, &k, 0, LIBSCAN_U32, NULL));
    assert_int_equal(k, 0);
}

/* U8 and U16 are libscan dtypes (sort keys, SAT images) but not compaction
 * dtypes: every function of compact.h refuses them before anything else,
 * the CPU ones and the predicate check included. The GPU calls get fake
 * device pointers: the dtype is refused before any CUDA call. */
static const libscan_dtype_t small_dtypes[2] = {LIBSCAN_U8, LIBSCAN_U16};

static void test_cpu_small_dtypes_refused(void **state) {
    (void)state;
    for (int di = 0; di < 2; ++di) {
        const libscan_dtype_t t = small_dtypes[di];
        libscan_pred_t p = {LIBSCAN_PRED_GT, {0}, {0}};
        libscan_compact_opts_t o = LIBSCAN_COMPACT_OPTS_INIT;
        size_t *num = fake_num;
        const unsigned char *flags = fake_flags;
        size_t b = 7;
        LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_compact_temp_bytes(100, t, &b));
        assert_int_equal(b, 7);
        LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_pred_check(&p, t));
        for (int with_opts = 0; with_opts < 2; ++with_opts) {
            const libscan_compact_opts_t *op = with_opts ? &o : NULL;
            LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_select_if(fake_in, fake_out, num, 100, t, &p, op, 0));
            LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_select_flagged(fake_in, flags, fake_out, num, 100, t, op, 0));
            LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE,
                      libscan_partition_if(fake_in, fake_out, fake_rej, num, 100, t, &p, op, 0));
            LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE,
                      libscan_partition_flagged(fake_in, flags, fake_out, fake_rej, num, 100, t, op, 0));
            LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_unique(fake_in, fake_out, num, 100, t, op, 0));
            /* count 0 too: the dtype is checked before the count */
            LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_unique(NULL, NULL, num, 0, t, op, 0));
        }
        /* The CPU functions on real host buffers: nothing is written. */
        unsigned char in[16], out[16], rej[16], fl[16];
        for (int i = 0; i < 16; ++i) in[i] = (unsigned char)i, fl[i] = (unsigned char)(i & 1);
        memset(out, POISON, sizeof out);
        memset(rej, POISON, sizeof rej);
        size_t k = 99;
        LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_cpu_select_if(in, out, &k, 4, t, &p, NULL));
        LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_cpu_select_flagged(in, fl, out, &k, 4, t, NULL));
        LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_cpu_partition_if(in, out, rej, &k, 4, t, &p, NULL));
        LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_cpu_partition_flagged(in, fl, out, rej, &k, 4, t, NULL));
        LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_cpu_unique(in, out, &k, 4, t, NULL));
        LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_cpu_unique(NULL, NULL, &k, 0, t, NULL));
        assert_int_equal(k, 99);
        for (int i = 0; i < 16; ++i)
            if (out[i] != POISON || rej[i] != POISON) TFAIL("cpu %s: byte %d written after INVALID_DTYPE",
                                                            libscan_dtype_name(t), i);
    }
}

/* ---- GPU-only ------------------------------------------------------------------------ */

static void test_gpu_in_place_offsets_temp_streams(void **state) {
    (void)state;
    if (!test_require_gpu()) return;
    rng_t r;
    rng_init(&r, "gpu-variants", 0);
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (int ti = 0; ti < 6; ++ti)
        for (int m = 0; m < M_COUNT; ++m) {
            tcase_t c;
            const size_t tile = compact_test_tile_items(all_dtypes[ti]);
            make_case(&c, &r, all_dtypes[ti], m, test_capped_n(3 * tile + 77, 1), 0.5, 0);
            run_gpu_opts(&c, 0, true, false, 0);  /* in place */
            run_gpu_opts(&c, 1, false, true, s);  /* element-aligned, not 16-byte aligned; caller temp; stream */
            run_gpu_opts(&c, 3, true, true, s);   /* both */
            free_case(&c);
        }
    CUDA_CHECK(cudaStreamDestroy(s));
}

static void test_gpu_count_zero_and_host_pointers(void **state) {
    (void)state;
    if (!test_require_gpu()) return;
    size_t *d_num;
    CUDA_CHECK(cudaMalloc((void **)&d_num, sizeof(size_t)));
    CUDA_CHECK(cudaMemset(d_num, 0xff, sizeof(size_t)));
    CUDA_CHECK(cudaDeviceSynchronize()); /* settle the legacy stream's memset before work on non-blocking streams */
    size_t k = 99;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_unique(NULL, NULL, d_num, 0, LIBSCAN_F32, NULL, 0));
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_count_to_host(d_num, &k, 0));
    assert_int_equal(k, 0);
    /* Host memory is refused, unless this device reads pageable memory. */
    int dev = 0, pageable = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, dev));
    if (!pageable) {
        uint32_t host[64] = {0}, hout[64];
        size_t hnum;
        LS_EXPECT(LIBSCAN_ERROR_INVALID_POINTER, libscan_unique(host, hout, d_num, 64, LIBSCAN_U32, NULL, 0));
        LS_EXPECT(LIBSCAN_ERROR_INVALID_POINTER, libscan_unique(host, hout, &hnum, 64, LIBSCAN_U32, NULL, 0));
        LS_EXPECT(LIBSCAN_ERROR_INVALID_POINTER, libscan_count_to_host(&hnum, &k, 0));
    }
    CUDA_CHECK(cudaFree(d_num));
}

/* U8/U16 on the GPU with real device buffers, with and without caller temp:
 * INVALID_DTYPE, and nothing was launched (count and outputs keep their
 * poison). */
static void test_gpu_small_dtypes_refused(void **state) {
    (void)state;
    if (!test_require_gpu()) return;
    const size_t n = 4096;
    unsigned char *d_in, *d_out, *d_rej, *d_flags;
    size_t *d_num;
    CUDA_CHECK(cudaMalloc((void **)&d_in, n));
    CUDA_CHECK(cudaMalloc((void **)&d_out, n));
    CUDA_CHECK(cudaMalloc((void **)&d_rej, n));
    CUDA_CHECK(cudaMalloc((void **)&d_flags, n));
    CUDA_CHECK(cudaMalloc((void **)&d_num, sizeof(size_t)));
    CUDA_CHECK(cudaMemset(d_in, 1, n));
    CUDA_CHECK(cudaDeviceSynchronize()); /* settle the legacy stream's memset before work on non-blocking streams */
    CUDA_CHECK(cudaMemset(d_flags, 1, n));
    CUDA_CHECK(cudaDeviceSynchronize()); /* settle the legacy stream's memset before work on non-blocking streams */
    CUDA_CHECK(cudaMemset(d_out, POISON, n));
    CUDA_CHECK(cudaDeviceSynchronize()); /* settle the legacy stream's memset before work on non-blocking streams */
    CUDA_CHECK(cudaMemset(d_rej, POISON, n));
    CUDA_CHECK(cudaDeviceSynchronize()); /* settle the legacy stream's memset before work on non-blocking streams */
    CUDA_CHECK(cudaMemset(d_num, 0xff, sizeof(size_t)));
    CUDA_CHECK(cudaDeviceSynchronize()); /* settle the legacy stream's memset before work on non-blocking streams */
    libscan_compact_opts_t o = LIBSCAN_COMPACT_OPTS_INIT;
    /* Caller temp as large as a u32 call of n elements would need. */
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_compact_temp_bytes(n, LIBSCAN_U32, &o.temp_bytes));
    CUDA_CHECK(cudaMalloc(&o.d_temp, o.temp_bytes));
    libscan_pred_t p = {LIBSCAN_PRED_GT, {0}, {0}};
    for (int di = 0; di < 2; ++di) {
        const libscan_dtype_t t = small_dtypes[di];
        const size_t cnt = n / (t == LIBSCAN_U16 ? 2 : 1);
        for (int with_opts = 0; with_opts < 2; ++with_opts) {
            const libscan_compact_opts_t *op = with_opts ? &o : NULL;
            LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_select_if(d_in, d_out, d_num, cnt, t, &p, op, 0));
            LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE,
                      libscan_select_flagged(d_in, d_flags, d_out, d_num, cnt, t, op, 0));
            LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE,
                      libscan_partition_if(d_in, d_out, d_rej, d_num, cnt, t, &p, op, 0));
            LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE,
                      libscan_partition_flagged(d_in, d_flags, d_out, d_rej, d_num, cnt, t, op, 0));
            LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_unique(d_in, d_out, d_num, cnt, t, op, 0));
            LS_EXPECT(LIBSCAN_ERROR_INVALID_DTYPE, libscan_unique(d_in, d_in, d_num, cnt, t, op, 0));
        }
    }
    CUDA_SYNC();
    size_t num = 0;
    unsigned char *h = malloc(2 * n);
    assert_non_null(h);
    CUDA_CHECK(cudaMemcpy(&num, d_num, sizeof num, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(h, d_out, n, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(h + n, d_rej, n, cudaMemcpyDeviceToHost));
    if (num != SIZE_MAX) TFAIL("the count was written (%zu) by a refused call", num);
    for (size_t i = 0; i < 2 * n; ++i)
        if (h[i] != POISON) TFAIL("output byte %zu written by a refused call", i);
    free(h);
    cudaFree(o.d_temp);
    cudaFree(d_in);
    cudaFree(d_out);
    cudaFree(d_rej);
    cudaFree(d_flags);
    cudaFree(d_num);
}

/* One GPU call of a case with the given options (NULL allowed) on stream s;
 * the whole output and rejected buffers (n outputs each, poisoned before)
 * and the count come back. */
static void gpu_outputs(const tcase_t *c, const libscan_compact_opts_t *o, cudaStream_t s, unsigned char *h_out,
                        unsigned char *h_rej, size_t *k) {
    const size_t os = c->indices ? 8 : esize(c->dtype);
    dbufs_t d;
    dev_alloc(&d, c, 0);
    LS_EXPECT(LIBSCAN_SUCCESS, gpu_call(c, &d, d.out, o, s));
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_count_to_host(d.num, k, s));
    if (c->n) {
        CUDA_CHECK(cudaMemcpy(h_out, d.out, c->n * os, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(h_rej, d.rej, c->n * os, cudaMemcpyDeviceToHost));
    }
    dev_free(&d);
}

/* opts = NULL (temp from libscan's temp cache) and caller temp give the same
 * bytes and the same count, both the reference's, for every dtype and mode,
 * on the legacy stream and on a stream of its own; the cache is released
 * first, so the first call creates it, and sizes grow so that its blocks
 * grow too. Indices need options: there d_temp = NULL takes the cache. */
static void test_gpu_null_opts_matches_caller_temp(void **state) {
    (void)state;
    if (!test_require_gpu()) return;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_temp_cache_release());
    rng_t r;
    rng_init(&r, "opts-null", 0);
    cudaStream_t own;
    CUDA_CHECK(cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking));
    size_t need_max = 0;
    for (int ti = 0; ti < 6; ++ti)
        for (int m = 0; m < M_COUNT; ++m) {
            const size_t tile = compact_test_tile_items(all_dtypes[ti]);
            const size_t sizes[3] = {1, tile + 1, test_capped_n(9 * tile + 5, 1)};
            const cudaStream_t s = (m & 1) ? own : 0;
            for (int si = 0; si < 3; ++si)
                for (int ind = 0; ind < 2; ++ind) {
                    tcase_t c;
                    make_case(&c, &r, all_dtypes[ti], m, sizes[si], 0.5, ind);
                    const size_t os = ind ? 8 : esize(c.dtype), bytes = c.n * os + 8;
                    unsigned char *a_out = malloc(bytes), *a_rej = malloc(bytes);
                    unsigned char *b_out = malloc(bytes), *b_rej = malloc(bytes);
                    assert_true(a_out && a_rej && b_out && b_rej);
                    memset(a_out, POISON, bytes);
                    memset(a_rej, POISON, bytes);
                    memset(b_out, POISON, bytes);
                    memset(b_rej, POISON, bytes);
                    libscan_compact_opts_t cache = LIBSCAN_COMPACT_OPTS_INIT, caller = LIBSCAN_COMPACT_OPTS_INIT;
                    cache.indices = caller.indices = ind;
                    LS_EXPECT(LIBSCAN_SUCCESS, libscan_compact_temp_bytes(c.n, c.dtype, &caller.temp_bytes));
                    CUDA_CHECK(cudaMalloc(&caller.d_temp, caller.temp_bytes));
                    if (caller.temp_bytes > need_max) need_max = caller.temp_bytes;
                    size_t ka = (size_t)-1, kb = (size_t)-2;
                    gpu_outputs(&c, ind ? &cache : NULL, s, a_out, a_rej, &ka);
                    gpu_outputs(&c, &caller, s, b_out, b_rej, &kb);
                    if (ka != kb)
                        TFAIL("%s %s n=%zu: count %zu with opts NULL, %zu with caller temp", mode_names[m],
                              libscan_dtype_name(c.dtype), c.n, ka, kb);
                    if (memcmp(a_out, b_out, c.n * os) != 0 || memcmp(a_rej, b_rej, c.n * os) != 0)
                        TFAIL("%s %s n=%zu%s: opts NULL and caller temp wrote different bytes", mode_names[m],
                              libscan_dtype_name(c.dtype), c.n, ind ? " indices" : "");
                    check_outputs(&c, a_out, a_rej, ka, "gpu opts NULL");
                    CUDA_CHECK(cudaFree(caller.d_temp));
                    free(a_out);
                    free(a_rej);
                    free(b_out);
                    free(b_rej);
                    free_case(&c);
                }
        }
    /* The calls without temp went through the cache: it holds a block at
     * least as large as the largest temp they needed. */
    size_t cached = 0;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_temp_cache_info(&cached, NULL, NULL));
    if (cached < need_max) TFAIL("temp cache holds %zu bytes, the calls needed up to %zu", cached, need_max);
    CUDA_CHECK(cudaStreamDestroy(own));
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_temp_cache_release());
}

/* Under stream capture: a select with opts = NULL (graph-owned temp) and one
 * with caller temp are captured and replayed twice, giving the reference's
 * result each time; libscan_count_to_host refuses the capturing stream and
 * leaves the capture intact. */
static void test_gpu_graph_capture(void **state) {
    (void)state;
    if (!test_require_gpu()) return;
    rng_t r;
    rng_init(&r, "capture", 0);
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    tcase_t c;
    make_case(&c, &r, LIBSCAN_U32, M_SELECT_IF, test_capped_n(5 * compact_test_tile_items(LIBSCAN_U32) + 9, 1), 0.5, 0);
    libscan_compact_opts_t caller = LIBSCAN_COMPACT_OPTS_INIT;
    LS_EXPECT(LIBSCAN_SUCCESS, libscan_compact_temp_bytes(c.n, c.dtype, &caller.temp_bytes));
    CUDA_CHECK(cudaMalloc(&caller.d_temp, caller.temp_bytes));
    unsigned char *h_out = malloc(c.n * 4 + 8), *h_rej = malloc(c.n * 4 + 8);
    assert_true(h_out && h_rej);
    for (int with_temp = 0; with_temp < 2; ++with_temp) {
        dbufs_t d;
        dev_alloc(&d, &c, 0);
        cudaGraph_t graph = NULL;
        cudaGraphExec_t exec = NULL;
        CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
        LS_EXPECT(LIBSCAN_SUCCESS, gpu_call(&c, &d, d.out, with_temp ? &caller : NULL, s));
        size_t k = 12345;
        LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT, libscan_count_to_host(d.num, &k, s));
        assert_int_equal(k, 12345);
        CUDA_CHECK(cudaStreamEndCapture(s, &graph)); /* fails if the capture had been broken */
        CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
        for (int replay = 0; replay < 2; ++replay) {
            CUDA_CHECK(cudaMemset(d.out_base, POISON, c.n * 4 + 16));
            CUDA_CHECK(cudaDeviceSynchronize()); /* settle the legacy stream's memset before work on non-blocking streams */
            CUDA_CHECK(cudaMemset(d.num, 0xff, sizeof(size_t)));
            CUDA_CHECK(cudaDeviceSynchronize());
            CUDA_CHECK(cudaGraphLaunch(exec, s));
            LS_EXPECT(LIBSCAN_SUCCESS, libscan_count_to_host(d.num, &k, s));
            memset(h_out, POISON, c.n * 4 + 8);
            CUDA_CHECK(cudaMemcpy(h_out, d.out, c.n * 4, cudaMemcpyDeviceToHost));
            check_outputs(&c, h_out, h_rej, k, with_temp ? "graph, caller temp" : "graph, opts NULL");
        }
        CUDA_CHECK(cudaGraphExecDestroy(exec));
        CUDA_CHECK(cudaGraphDestroy(graph));
        dev_free(&d);
    }
    free(h_out);
    free(h_rej);
    CUDA_CHECK(cudaFree(caller.d_temp));
    free_case(&c);
    CUDA_CHECK(cudaStreamDestroy(s));
}

static void test_gpu_two_pow_28(void **state) {
    (void)state;
    if (!test_require_gpu()) return;
    rng_t r;
    rng_init(&r, "gpu-2^28", 0);
    const size_t n = (size_t)1 << 28;
    test_skip_above_cap(n, "the 2^28-element compaction");
    for (int m = M_SELECT_IF; m <= M_PARTITION_IF; m += 2) {
        tcase_t c;
        make_case(&c, &r, LIBSCAN_U32, m, n, 0.5, 0);
        run_gpu(&c);
        free_case(&c);
    }
}

static void test_gpu_user_functor(void **state) {
    (void)state;
    if (!test_require_gpu()) return;
    rng_t r;
    rng_init(&r, "functor", 0);
    const size_t n = test_capped_n(100003, 1);
    uint32_t *h = malloc(n * 4), *got = malloc(n * 4), *got_rej = malloc(n * 4);
    assert_true(h && got && got_rej);
    for (size_t i = 0; i < n; ++i) h[i] = rng_u32(&r) % 1000;
    uint32_t *d_in, *d_out, *d_rej;
    size_t *d_num, k = 0;
    CUDA_CHECK(cudaMalloc((void **)&d_in, n * 4));
    CUDA_CHECK(cudaMalloc((void **)&d_out, n * 4));
    CUDA_CHECK(cudaMalloc((void **)&d_rej, n * 4));
    CUDA_CHECK(cudaMalloc((void **)&d_num, 8));
    CUDA_CHECK(cudaMemcpy(d_in, h, n * 4, cudaMemcpyHostToDevice));
    for (int part = 0; part < 2; ++part) {
        assert_int_equal(compact_test_functor_select(d_in, d_out, part ? d_rej : NULL, d_num, n, 3), 0);
        CUDA_CHECK(cudaMemcpy(&k, d_num, 8, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(got, d_out, n * 4, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(got_rej, d_rej, n * 4, cudaMemcpyDeviceToHost));
        size_t j = 0, q = 0;
        for (size_t i = 0; i < n; ++i) {
            if (h[i] % 3 == 0) {
                if (j >= k || got[j] != h[i]) TFAIL("functor select: output %zu wrong", j);
                ++j;
            } else if (part) {
                if (got_rej[q] != h[i]) TFAIL("functor partition: rejected %zu wrong", q);
                ++q;
            }
        }
        assert_int_equal(j, k);
    }
    cudaFree(d_in);
    cudaFree(d_out);
    cudaFree(d_rej);
    cudaFree(d_num);
    free(h);
    free(got);
    free(got_rej);
}

int main(int argc, char **argv) {
    const bool gpu = argc > 1 && strcmp(argv[1], "gpu") == 0;
    if (argc != 2 || (!gpu && strcmp(argv[1], "cpu") != 0)) {
        fprintf(stderr, "usage: %s cpu|gpu\n", argv[0]);
        return 2;
    }
    const struct CMUnitTest cpu_tests[] = {
        cmocka_unit_test(test_cpu_names_and_pred_check),
        cmocka_unit_test(test_cpu_temp_bytes),
        cmocka_unit_test(test_cpu_gpu_argument_errors),
        cmocka_unit_test(test_cpu_path_argument_errors),
        cmocka_unit_test(test_cpu_small_dtypes_refused),
        cmocka_unit_test(test_cpu_float_rules_by_hand),
        cmocka_unit_test(test_cpu_in_place),
        cmocka_unit_test(test_cpu_threads),
        cmocka_unit_test(test_cpu_predicate_kinds),
        cmocka_unit_test(test_cpu_sweep_u32),
        cmocka_unit_test(test_cpu_sweep_i32),
        cmocka_unit_test(test_cpu_sweep_u64),
        cmocka_unit_test(test_cpu_sweep_i64),
        cmocka_unit_test(test_cpu_sweep_f32),
        cmocka_unit_test(test_cpu_sweep_f64),
    };
    const struct CMUnitTest gpu_tests[] = {
        cmocka_unit_test(test_gpu_sweep_u32),
        cmocka_unit_test(test_gpu_sweep_i32),
        cmocka_unit_test(test_gpu_sweep_u64),
        cmocka_unit_test(test_gpu_sweep_i64),
        cmocka_unit_test(test_gpu_sweep_f32),
        cmocka_unit_test(test_gpu_sweep_f64),
        cmocka_unit_test(test_gpu_predicate_kinds),
        cmocka_unit_test(test_gpu_in_place_offsets_temp_streams),
        cmocka_unit_test(test_gpu_count_zero_and_host_pointers),
        cmocka_unit_test(test_gpu_small_dtypes_refused),
        cmocka_unit_test(test_gpu_null_opts_matches_caller_temp),
        cmocka_unit_test(test_gpu_graph_capture),
        cmocka_unit_test(test_gpu_two_pow_28),
        cmocka_unit_test(test_gpu_user_functor),
    };
    if (gpu) {
        test_begin("test_compact_lib (gpu)");
        return test_exit_code(cmocka_run_group_tests_name("compact_gpu", gpu_tests, NULL, NULL));
    }
    test_begin("test_compact_lib (cpu)");
    return test_exit_code(cmocka_run_group_tests_name("compact_cpu", cpu_tests, NULL, NULL));
}
