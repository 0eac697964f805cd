/* test_segmented.c -- libscan's segmented scans through the C API (label
 * gpu): head flags, CSR offsets and matrix rows, every dtype x operator x
 * inclusive/exclusive, against the CPU reference in seg_reference.c.
 *
 * Every case: fresh seeded random input, the output poisoned with 0xFF and
 * surrounded by poisoned guard bytes, every element compared (elements
 * outside every segment must keep their poison, or their input when in
 * place), guards checked, every status and CUDA call checked.
 *
 * Head flags take their own kernel (flag_scan.cuh): tiles of 256 threads x
 * 32 consecutive elements for 4-byte types (8192) and 256 x 16 for 8-byte
 * ones (4096); the test_flags_* cases aim at its tile and thread edges,
 * misaligned pointers (scalar paths) and the segment lengths.
 * Offsets and the look-back fallback of rows use the generic segmented
 * kernel, tiles of 4096 elements for 4-byte and 2048 for 8-byte types.
 *
 * Rows take one of four kernels, chosen from the shape alone (row_scan.cuh,
 * tuning.cuh), with V = 16 / element size: row_len <= 32 V: G lanes per row
 * (G the power of two >= row_len / V), 32 / G rows per warp (sub-warp
 * kernel); up to the tile: one warp per row in chunks of 32 V (warp-per-row
 * kernel); longer rows and >= 512 of them: one block per row in chunks of
 * twice the tile (long-row kernel); fewer long rows: the look-back segmented
 * scan. The test_rows_* cases below aim at each kernel's edges.
 *
 * The C API offers only commutative operators (sum, min, max), so the
 * "earlier operand on the left" rule cannot be checked through it; the
 * float sums' bitwise match with the reference's order is not expected
 * either (different association), only run-to-run repeatability. */
#include "support/harness.h"
#include "seg_reference.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GUARD 512 /* poisoned bytes on each side of the output */

enum { M_FLAGS = 0, M_OFFSETS = 1, M_ROWS = 2 };
enum { L_ONE, L_32, L_R100, L_R100K, L_ALL, L_TILES, L_R32, L_R2000, L_IPT, L_FTILE, L_EDGES };
enum { MIS_IN = 1, MIS_OUT = 2, MIS_FLAGS = 4 };
static const char *const mode_names[3] = {"flags", "offsets", "rows"};

static const libscan_dtype_t dtypes[6] = {LIBSCAN_U32, LIBSCAN_I32, LIBSCAN_U64, LIBSCAN_I64, LIBSCAN_F32, LIBSCAN_F64};
static const libscan_op_t ops[3] = {LIBSCAN_OP_SUM, LIBSCAN_OP_MIN, LIBSCAN_OP_MAX};

typedef struct scase {
    libscan_dtype_t dt;
    libscan_op_t op;
    int excl, mode;
    size_t n;    /* flags/offsets: elements inside segments */
    int lens;    /* L_* */
    int seg_init, caller_temp, in_place, trust, first_unflagged, empties;
    int misalign;                   /* MIS_* bits: start one element (flags: one byte) past a 16-byte boundary */
    size_t lead, tail;              /* offsets: elements before offsets[0] / after offsets[S] */
    size_t rows, row_len, pitch;    /* rows */
} scase_t;

static char msg[1024];

static void *xmalloc(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p) TFAIL("out of host memory (%zu bytes)", bytes);
    return p;
}

static size_t tile_elems(libscan_dtype_t dt) { return seg_esize(dt) == 4 ? 4096 : 2048; }

/* The head-flag kernel (flag_scan.cuh, FlagScanTuning in tuning.cuh): tiles
 * of 256 threads x flag_ipt() consecutive elements each. */
static size_t flag_ipt(libscan_dtype_t dt) { return seg_esize(dt) == 4 ? 32 : 16; }
static size_t flag_tile(libscan_dtype_t dt) { return 256 * flag_ipt(dt); }

/* L_EDGES: heads on the flag kernel's tile and thread edges (first, second
 * and last element of every tile; the first element of every fifth thread,
 * the last of every seventh). */
static int edge_head(libscan_dtype_t dt, size_t i) {
    const size_t t = flag_tile(dt), ipt = flag_ipt(dt), in_tile = i % t;
    return in_tile == 0 || in_tile == 1 || in_tile == t - 1 || (i % ipt == 0 && (i / ipt) % 5 == 2) ||
           (i % ipt == ipt - 1 && (i / ipt) % 7 == 3);
}

/* The rows path (libscan/include/libscan/cuda/row_scan.cuh, tuning.cuh):
 * the short-row kernel takes row_len <= tile_elems(); the long-row kernel
 * walks a row in chunks of row_chunk() elements and is taken from
 * ROW_MIN_ROWS rows on; fewer long rows fall back to the look-back scan. */
#define ROW_MIN_ROWS 512
static size_t row_chunk(libscan_dtype_t dt) { return 2 * tile_elems(dt); }

/* Random elements: integers use every bit (sums wrap); float sums in
 * [-1, 1); float min/max in [-1e6, 1e6] with some signed zeros. */
static void fill_random(rng_t *r, libscan_dtype_t dt, libscan_op_t op, void *buf, size_t n) {
    unsigned char *p = buf;
    for (size_t i = 0; i < n; ++i) {
        if (!seg_is_float(dt)) {
            uint64_t v = rng_u64(r);
            memcpy(p + i * seg_esize(dt), &v, seg_esize(dt));
            continue;
        }
        double d;
        if (op == LIBSCAN_OP_SUM) d = 2.0 * rng_unit(r) - 1.0;
        else {
            uint64_t k = rng_below(r, 64);
            d = k == 0 ? 0.0 : k == 1 ? -0.0 : (2.0 * rng_unit(r) - 1.0) * 1e6;
        }
        if (dt == LIBSCAN_F32) {
            float f = (float)d;
            memcpy(p + i * 4, &f, 4);
        } else {
            memcpy(p + i * 8, &d, 8);
        }
    }
}

static size_t next_len(rng_t *r, const scase_t *c) {
    const size_t t = tile_elems(c->dt);
    switch (c->lens) {
    case L_ONE: return 1;
    case L_32: return 32;
    case L_R100: return 1 + rng_below(r, 100);
    case L_R100K: return 1 + rng_below(r, 100000);
    case L_TILES: return 2 * t + rng_below(r, 6 * t);
    case L_R32: return 1 + rng_below(r, 32);
    case L_R2000: return 1 + rng_below(r, 1999); /* mean 1000, as in issue 3 */
    case L_IPT: return flag_ipt(c->dt);
    case L_FTILE: return flag_tile(c->dt);
    default: return c->n ? c->n : 1;
    }
}

static libscan_status_t do_call(const scase_t *c, const void *in, void *out, size_t count, const unsigned char *flags,
                                const uint64_t *offs, size_t nseg, const libscan_segscan_opts_t *o) {
    switch (c->mode) {
    case M_FLAGS:
        return c->excl ? libscan_segmented_exclusive_scan(in, out, count, flags, c->dt, c->op, o, 0)
                       : libscan_segmented_inclusive_scan(in, out, count, flags, c->dt, c->op, o, 0);
    case M_OFFSETS:
        return c->excl ? libscan_segmented_exclusive_scan_offsets(in, out, count, offs, nseg, c->dt, c->op, o, 0)
                       : libscan_segmented_inclusive_scan_offsets(in, out, count, offs, nseg, c->dt, c->op, o, 0);
    default:
        return c->excl ? libscan_exclusive_scan_rows(in, out, c->rows, c->row_len, c->pitch, c->dt, c->op, o, 0)
                       : libscan_inclusive_scan_rows(in, out, c->rows, c->row_len, c->pitch, c->dt, c->op, o, 0);
    }
}

static void describe(const scase_t *c, char *buf, size_t cap) {
    snprintf(buf, cap,
             "%s %s %s %s n=%zu lens=%d seg_init=%d caller_temp=%d in_place=%d trust=%d first_unflagged=%d "
             "lead=%zu tail=%zu rows=%zu row_len=%zu pitch=%zu misalign=%d",
             mode_names[c->mode], c->excl ? "exclusive" : "inclusive", seg_dtype_name(c->dt), seg_op_name(c->op), c->n,
             c->lens, c->seg_init, c->caller_temp, c->in_place, c->trust, c->first_unflagged, c->lead, c->tail, c->rows,
             c->row_len, c->pitch, c->misalign);
}

/* A prepared case: host inputs, segments, device buffers. */
typedef struct prep {
    size_t count, nseg, es;
    unsigned char *h_in, *h_flags, *h_init;
    uint64_t *h_offs;
    unsigned char *d_in, *d_in_base, *d_out_base, *d_out, *d_flags, *d_init, *d_temp;
    size_t shift_in, shift_out, shift_flags; /* bytes each sits past its allocation's start (misalign) */
    unsigned char *d_flags_base;
    uint64_t *d_offs;
    size_t temp_bytes;
} prep_t;

/* Caller temp of exactly libscan_segmented_temp_bytes() for the case. */
static void prep_temp(prep_t *p, const scase_t *c) {
    const size_t logical = c->mode == M_ROWS ? c->rows * c->row_len : p->count;
    LS_EXPECT(LIBSCAN_SUCCESS,
              libscan_segmented_temp_bytes(logical, c->dt, (libscan_segments_t)c->mode, &p->temp_bytes));
    if (p->temp_bytes) CUDA_CHECK(cudaMalloc((void **)&p->d_temp, p->temp_bytes));
}

static void prep_make(prep_t *p, const scase_t *c, rng_t *r) {
    memset(p, 0, sizeof *p);
    p->es = seg_esize(c->dt);
    if (c->mode == M_ROWS) {
        p->count = c->rows && c->row_len ? (c->rows - 1) * c->pitch + c->row_len : 0;
        p->nseg = c->rows;
    } else if (c->mode == M_FLAGS) {
        p->count = c->n;
        p->h_flags = xmalloc(p->count);
        memset(p->h_flags, 0, p->count);
        if (c->lens == L_EDGES) {
            for (size_t i = 0; i < p->count; ++i)
                if (edge_head(c->dt, i)) p->h_flags[i] = (unsigned char)(1 + rng_below(r, 255));
        } else {
            for (size_t b = 0; b < p->count;) {
                p->h_flags[b] = (unsigned char)(1 + rng_below(r, 255)); /* any non-zero byte starts a segment */
                b += next_len(r, c);
            }
        }
        if (p->count && c->first_unflagged) p->h_flags[0] = 0;
        p->nseg = seg_count_flags(p->h_flags, p->count);
    } else {
        p->count = c->lead + c->n + c->tail;
        size_t cap = 16, s = 0;
        p->h_offs = xmalloc(cap * sizeof *p->h_offs);
        size_t pos = c->lead;
        p->h_offs[0] = pos;
        while (pos < c->lead + c->n || (c->n == 0 && s == 0)) {
            size_t len = c->empties && rng_below(r, 8) == 0 ? 0 : next_len(r, c);
            if (pos + len > c->lead + c->n) len = c->lead + c->n - pos;
            if (s + 2 >= cap) {
                cap *= 2;
                uint64_t *q = realloc(p->h_offs, cap * sizeof *q);
                if (!q) TFAIL("out of host memory");
                p->h_offs = q;
            }
            pos += len;
            p->h_offs[++s] = pos;
            if (c->n == 0) break;
        }
        if (c->empties) { /* a trailing empty segment too */
            p->h_offs[s + 1] = pos;
            ++s;
        }
        p->nseg = s;
    }
    const size_t bytes = p->count * p->es;
    p->shift_in = c->misalign & MIS_IN ? p->es : 0;
    p->shift_out = c->misalign & MIS_OUT ? p->es : 0;
    p->shift_flags = c->misalign & MIS_FLAGS ? 1 : 0;
    p->h_in = xmalloc(bytes);
    fill_random(r, c->dt, c->op, p->h_in, p->count);
    if (c->seg_init) {
        p->h_init = xmalloc(p->nseg * p->es);
        fill_random(r, c->dt, c->op, p->h_init, p->nseg);
    }
    CUDA_CHECK(cudaMalloc((void **)&p->d_out_base, bytes + 2 * GUARD + p->shift_out));
    p->d_out = p->d_out_base + p->shift_out + GUARD;
    if (c->in_place) {
        CUDA_CHECK(cudaMemset(p->d_out_base, 0xFF, bytes + 2 * GUARD + p->shift_out));
        if (bytes) CUDA_CHECK(cudaMemcpy(p->d_out, p->h_in, bytes, cudaMemcpyHostToDevice));
        p->d_in = p->d_out;
    } else {
        CUDA_CHECK(cudaMalloc((void **)&p->d_in_base, bytes + p->shift_in ? bytes + p->shift_in : 1));
        p->d_in = p->d_in_base + p->shift_in;
        if (bytes) CUDA_CHECK(cudaMemcpy(p->d_in, p->h_in, bytes, cudaMemcpyHostToDevice));
    }
    if (p->h_flags) {
        CUDA_CHECK(cudaMalloc((void **)&p->d_flags_base, p->count + p->shift_flags ? p->count + p->shift_flags : 1));
        p->d_flags = p->d_flags_base + p->shift_flags;
        if (p->count) CUDA_CHECK(cudaMemcpy(p->d_flags, p->h_flags, p->count, cudaMemcpyHostToDevice));
    }
    if (p->h_offs) {
        CUDA_CHECK(cudaMalloc((void **)&p->d_offs, (p->nseg + 1) * 8));
        CUDA_CHECK(cudaMemcpy(p->d_offs, p->h_offs, (p->nseg + 1) * 8, cudaMemcpyHostToDevice));
    }
    if (p->h_init && p->nseg) {
        CUDA_CHECK(cudaMalloc((void **)&p->d_init, p->nseg * p->es));
        CUDA_CHECK(cudaMemcpy(p->d_init, p->h_init, p->nseg * p->es, cudaMemcpyHostToDevice));
    }
    if (c->caller_temp) prep_temp(p, c);
}

static void prep_free(prep_t *p, const scase_t *c) {
    if (!c->in_place) CUDA_CHECK(cudaFree(p->d_in_base));
    CUDA_CHECK(cudaFree(p->d_out_base));
    if (p->d_flags_base) CUDA_CHECK(cudaFree(p->d_flags_base));
    if (p->d_offs) CUDA_CHECK(cudaFree(p->d_offs));
    if (p->d_init) CUDA_CHECK(cudaFree(p->d_init));
    if (p->d_temp) CUDA_CHECK(cudaFree(p->d_temp));
    free(p->h_in);
    free(p->h_flags);
    free(p->h_offs);
    free(p->h_init);
    memset(p, 0, sizeof *p);
}

static libscan_status_t prep_call(const prep_t *p, const scase_t *c) {
    libscan_segscan_opts_t o = LIBSCAN_SEGSCAN_OPTS_INIT;
    o.d_seg_init = c->seg_init ? p->d_init : NULL;
    o.d_temp = p->d_temp;
    o.temp_bytes = p->d_temp ? p->temp_bytes : 0;
    o.trust_offsets = c->trust;
    return do_call(c, p->count ? p->d_in : NULL, p->count ? p->d_out : NULL, p->count, p->d_flags, p->d_offs, p->nseg,
                   &o);
}

/* One call of the prepared case: poisons the output (in place: reloads the
 * input), calls, which must succeed, synchronises, copies the output back
 * with its guards and checks them. Returns the output (count elements;
 * the caller frees *base). */
static unsigned char *run_once(const prep_t *p, const scase_t *c, unsigned char **base, const char *ctx) {
    const size_t bytes = p->count * p->es;
    CUDA_CHECK(cudaMemset(p->d_out_base, 0xFF, bytes + 2 * GUARD + p->shift_out));
    if (c->in_place && bytes) CUDA_CHECK(cudaMemcpy(p->d_out, p->h_in, bytes, cudaMemcpyHostToDevice));
    libscan_status_t st = prep_call(p, c);
    if (st != LIBSCAN_SUCCESS) TFAIL("%s: returned %s", ctx, libscan_status_string(st));
    CUDA_CHECK(cudaDeviceSynchronize());
    unsigned char *h = xmalloc(bytes + 2 * GUARD);
    CUDA_CHECK(cudaMemcpy(h, p->d_out_base + p->shift_out, bytes + 2 * GUARD, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < GUARD; ++i)
        if (h[i] != 0xFF || h[GUARD + bytes + i] != 0xFF) {
            free(h);
            TFAIL("%s: a guard byte around the output was written", ctx);
        }
    *base = h;
    return h + GUARD;
}

/* Compares one output of the prepared case with the CPU reference; nonzero
 * (and the reason in msg) on the first difference. */
static int ref_mismatch(const prep_t *p, const scase_t *c, const unsigned char *got) {
    seg_ref_t ref;
    if (seg_ref_init(&ref, c->dt, c->op, c->excl, p->count)) TFAIL("out of host memory");
    if (c->mode == M_FLAGS) seg_ref_flags(&ref, p->h_in, p->h_flags, p->h_init);
    else if (c->mode == M_OFFSETS) seg_ref_offsets(&ref, p->h_in, p->h_offs, p->nseg, p->h_init);
    else seg_ref_rows(&ref, p->h_in, c->rows, c->row_len, c->pitch, p->h_init);
    int bad = seg_ref_check(&ref, got, c->in_place ? p->h_in : NULL, msg, sizeof msg);
    seg_ref_free(&ref);
    return bad;
}

static void check_case(const scase_t *c, uint64_t idx) {
    char ctx[512];
    describe(c, ctx, sizeof ctx);
    rng_t r;
    rng_init(&r, "case", idx);
    prep_t p;
    prep_make(&p, c, &r);
    unsigned char *base;
    unsigned char *got = run_once(&p, c, &base, ctx);
    int bad = ref_mismatch(&p, c, got);
    free(base);
    prep_free(&p, c);
    if (bad) TFAIL("%s: %s", ctx, msg);
}

/* Float sums: the case built from stream (label, seed) runs `runs` times
 * and fails unless every output is bitwise the first one; then check_case
 * (stream "case", idx) compares a fresh input with the reference. */
static void check_repeatable(const scase_t *c, const char *label, uint64_t seed, int runs, uint64_t idx) {
    char ctx[512];
    describe(c, ctx, sizeof ctx);
    rng_t r;
    rng_init(&r, label, seed);
    prep_t p;
    prep_make(&p, c, &r);
    unsigned char *first_base = NULL, *first = NULL;
    for (int run = 0; run < runs; ++run) {
        unsigned char *b;
        unsigned char *got = run_once(&p, c, &b, ctx);
        if (!first) {
            first = got, first_base = b;
            continue;
        }
        int same = memcmp(first, got, p.count * p.es) == 0;
        free(b);
        if (!same) {
            free(first_base);
            TFAIL("%s: run %d differs bitwise from run 0", ctx, run);
        }
    }
    free(first_base);
    prep_free(&p, c);
    check_case(c, idx);
}

static scase_t base_case(libscan_dtype_t dt, libscan_op_t op, int excl, int mode) {
    scase_t c;
    memset(&c, 0, sizeof c);
    c.dt = dt, c.op = op, c.excl = excl, c.mode = mode;
    return c;
}

static scase_t flags_case(libscan_dtype_t dt, libscan_op_t op, int excl, size_t n, int lens) {
    scase_t c = base_case(dt, op, excl, M_FLAGS);
    c.n = n, c.lens = lens;
    return c;
}

/* Every dtype x op x inclusive/exclusive in one segment description. */
static void matrix(int mode) {
    uint64_t idx = (uint64_t)mode << 32;
    static const int patterns[5] = {L_ONE, L_32, L_R100, L_ALL, L_TILES};
    static const size_t row_shapes[3][3] = {{300, 1, 3}, {200, 64, 64}, {40, 1000, 1037}};
    for (int d = 0; d < 6; ++d)
        for (int o = 0; o < 3; ++o)
            for (int e = 0; e < 2; ++e) {
                scase_t c = base_case(dtypes[d], ops[o], e, mode);
                if (mode == M_ROWS) {
                    for (int k = 0; k < 3; ++k) {
                        c.rows = row_shapes[k][0], c.row_len = row_shapes[k][1], c.pitch = row_shapes[k][2];
                        c.seg_init = k == 2, c.caller_temp = k == 1;
                        check_case(&c, idx++);
                    }
                    c.rows = 1, c.row_len = 1, c.pitch = 1; /* n = 1 */
                    check_case(&c, idx++);
                    c.rows = 0; /* n = 0 */
                    check_case(&c, idx++);
                    continue;
                }
                c.n = test_capped_n((size_t)1 << 17, 1);
                c.lead = mode == M_OFFSETS ? 37 : 0;
                c.tail = mode == M_OFFSETS ? 101 : 0;
                c.empties = mode == M_OFFSETS;
                c.first_unflagged = 1;
                for (int k = 0; k < 5; ++k) {
                    c.lens = patterns[k];
                    check_case(&c, idx++);
                }
                /* per-segment initial values, caller temp */
                c.lens = L_R100, c.seg_init = 1, c.caller_temp = 1, c.first_unflagged = 0;
                check_case(&c, idx++);
                /* n = 1 and n = 0 */
                c.n = 1, c.lead = c.tail = 0;
                check_case(&c, idx++);
                c.seg_init = 0;
                c.n = 0;
                check_case(&c, idx++);
            }
}

static void test_matrix_flags(void **state) {
    (void)state;
    test_require_gpu();
    matrix(M_FLAGS);
}
static void test_matrix_offsets(void **state) {
    (void)state;
    test_require_gpu();
    matrix(M_OFFSETS);
}
static void test_matrix_rows(void **state) {
    (void)state;
    test_require_gpu();
    matrix(M_ROWS);
}

/* Segments of up to 100000 elements and one segment of everything, 2^22
 * elements, every dtype, sum and max, with and without initial values. */
static void test_long_segments(void **state) {
    (void)state;
    test_require_gpu();
    uint64_t idx = 1000;
    for (int d = 0; d < 6; ++d)
        for (int mode = 0; mode < 2; ++mode)
            for (int e = 0; e < 2; ++e) {
                scase_t c = base_case(dtypes[d], e ? LIBSCAN_OP_MAX : LIBSCAN_OP_SUM, e, mode);
                c.n = test_capped_n(((size_t)1 << 22) - 3, 1);
                c.lens = L_R100K;
                c.seg_init = d & 1;
                c.lead = mode == M_OFFSETS ? 5000 : 0, c.tail = mode == M_OFFSETS ? 3 : 0;
                check_case(&c, idx++);
                c.lens = L_ALL;
                c.seg_init = !c.seg_init;
                check_case(&c, idx++);
            }
}

/* Rows of 2^20 elements, a few of them, with a gap between rows: too few
 * long rows for the row kernels, so this is the look-back fallback. */
static void test_rows_long(void **state) {
    (void)state;
    test_require_gpu();
    uint64_t idx = 2000;
    for (int d = 0; d < 6; ++d)
        for (int e = 0; e < 2; ++e) {
            scase_t c = base_case(dtypes[d], e ? LIBSCAN_OP_MIN : LIBSCAN_OP_SUM, e, M_ROWS);
            c.rows = 3, c.row_len = test_capped_n((size_t)1 << 20, 3), c.pitch = c.row_len + 77;
            c.seg_init = e;
            check_case(&c, idx++);
        }
}

static void test_in_place(void **state) {
    (void)state;
    test_require_gpu();
    uint64_t idx = 3000;
    for (int d = 0; d < 6; ++d)
        for (int mode = 0; mode < 3; ++mode)
            for (int e = 0; e < 2; ++e) {
                scase_t c = base_case(dtypes[d], ops[(d + mode + e) % 3], e, mode);
                c.in_place = 1;
                c.n = test_capped_n(100003, 1), c.lens = L_R100;
                c.lead = mode == M_OFFSETS ? 64 : 0, c.tail = mode == M_OFFSETS ? 64 : 0;
                c.empties = 1;
                c.seg_init = e;
                c.rows = 70, c.row_len = 1000, c.pitch = 1031;
                check_case(&c, idx++);
            }
}

/* Caller temp of exactly libscan_segmented_temp_bytes() and library temp
 * give the same bits (f32 sums, where association would show). */
static void test_caller_and_library_temp(void **state) {
    (void)state;
    test_require_gpu();
    for (int mode = 0; mode < 3; ++mode) {
        scase_t c = base_case(LIBSCAN_F32, LIBSCAN_OP_SUM, mode == 1, mode);
        c.n = test_capped_n(1000003, 1), c.lens = L_TILES;
        c.lead = mode == M_OFFSETS ? 9 : 0;
        c.rows = 5, c.row_len = test_capped_n(200000, 5), c.pitch = c.row_len + 1;
        rng_t r;
        rng_init(&r, "temp", (uint64_t)mode);
        prep_t p;
        prep_make(&p, &c, &r);
        unsigned char *outs[2], *bases[2];
        for (int k = 0; k < 2; ++k) {
            c.caller_temp = k;
            if (k) prep_temp(&p, &c);
            outs[k] = run_once(&p, &c, &bases[k], mode_names[mode]);
        }
        int same = memcmp(outs[0], outs[1], p.count * p.es) == 0;
        free(bases[0]);
        free(bases[1]);
        prep_free(&p, &c);
        if (!same) TFAIL("%s: caller temp and library temp give different bits", mode_names[mode]);
        c.caller_temp = 1;
        check_case(&c, 4000 + (uint64_t)mode);
    }
}

/* Caller temp is checked to be device memory only where the call uses it.
 * Rows that a row kernel takes (200 x 64 u32) never touch it: a malloc'ed
 * host d_temp is accepted and the result must be right. A flag-segmented
 * scan uses its temp: the same kind of buffer is rejected with
 * INVALID_POINTER and the output keeps its poison (unless the device can
 * access pageable memory, where it must simply be right). */
static void test_host_temp_only_where_used(void **state) {
    (void)state;
    test_require_gpu();
    int dev = 0, pageable = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, dev));
    scase_t cases[2];
    cases[0] = base_case(LIBSCAN_U32, LIBSCAN_OP_SUM, 0, M_ROWS);
    cases[0].rows = 200, cases[0].row_len = 64, cases[0].pitch = 64;
    cases[1] = flags_case(LIBSCAN_U32, LIBSCAN_OP_SUM, 0, 100000, L_R100);
    for (int k = 0; k < 2; ++k) {
        const scase_t *c = &cases[k];
        char ctx[600];
        describe(c, ctx, sizeof ctx);
        strncat(ctx, ", malloc'ed host d_temp", sizeof ctx - strlen(ctx) - 1);
        rng_t r;
        rng_init(&r, "host temp", (uint64_t)k);
        prep_t p;
        prep_make(&p, c, &r);
        const size_t logical = c->mode == M_ROWS ? c->rows * c->row_len : p.count;
        size_t need = 0;
        LS_EXPECT(LIBSCAN_SUCCESS, libscan_segmented_temp_bytes(logical, c->dt, (libscan_segments_t)c->mode, &need));
        if (need == 0) TFAIL("%s: no temp asked for, so the case proves nothing", ctx);
        unsigned char *host_temp = xmalloc(need);
        p.d_temp = host_temp, p.temp_bytes = need;
        const int accepted = k == 0 || pageable;
        int bad = 0;
        if (accepted) {
            unsigned char *base;
            unsigned char *got = run_once(&p, c, &base, ctx);
            bad = ref_mismatch(&p, c, got);
            free(base);
        } else {
            const size_t bytes = p.count * p.es;
            CUDA_CHECK(cudaMemset(p.d_out_base, 0xFF, bytes + 2 * GUARD + p.shift_out));
            const libscan_status_t st = prep_call(&p, c);
            CUDA_CHECK(cudaDeviceSynchronize());
            if (st != LIBSCAN_ERROR_INVALID_POINTER) {
                snprintf(msg, sizeof msg, "returned %s, expected LIBSCAN_ERROR_INVALID_POINTER",
                         libscan_status_string(st));
                bad = 1;
            }
            unsigned char *h = xmalloc(bytes + 2 * GUARD);
            CUDA_CHECK(cudaMemcpy(h, p.d_out_base + p.shift_out, bytes + 2 * GUARD, cudaMemcpyDeviceToHost));
            for (size_t i = 0; i < bytes + 2 * GUARD && !bad; ++i)
                if (h[i] != 0xFF) {
                    snprintf(msg, sizeof msg, "output byte %zu written after a rejected call", i);
                    bad = 1;
                }
            free(h);
        }
        p.d_temp = NULL; /* host memory: not for prep_free's cudaFree */
        free(host_temp);
        prep_free(&p, c);
        if (bad) TFAIL("%s: %s", ctx, msg);
    }
}

static void test_trust_offsets(void **state) {
    (void)state;
    test_require_gpu();
    uint64_t idx = 5000;
    for (int d = 0; d < 6; ++d)
        for (int e = 0; e < 2; ++e) {
            scase_t c = base_case(dtypes[d], ops[d % 3], e, M_OFFSETS);
            c.trust = 1, c.empties = 1;
            c.n = test_capped_n(300000, 1), c.lens = d & 1 ? L_TILES : L_R100;
            c.lead = 1000, c.tail = 2049;
            c.seg_init = e, c.caller_temp = d & 1;
            check_case(&c, idx++);
        }
}

/* First element without a head flag, and a flag array with no flag at all:
 * element 0 still starts a segment. */
static void test_first_unflagged(void **state) {
    (void)state;
    test_require_gpu();
    uint64_t idx = 6000;
    for (int d = 0; d < 6; ++d)
        for (int e = 0; e < 2; ++e) {
            scase_t c = flags_case(dtypes[d], LIBSCAN_OP_SUM, e, 50000, L_R100);
            c.first_unflagged = 1, c.seg_init = 1;
            check_case(&c, idx++);
            c.lens = L_ALL, c.n = 20000; /* only flags[0] would be set, and it is not */
            check_case(&c, idx++);
        }
}

/* Decreasing offsets, offsets > count: INVALID_ARGUMENT, nothing written. */
static void test_invalid_offsets(void **state) {
    (void)state;
    test_require_gpu();
    const size_t n = 10000, es = 4;
    uint64_t bad[4][5] = {
        {0, 100, 50, 200, 10000},   /* decreasing */
        {0, 100, 200, 300, 10001},  /* last > count */
        {20000, 20000, 20000, 20000, 20000}, /* all beyond count */
        {10, 9, 9, 9, 9},           /* decreasing at the start */
    };
    unsigned char *d_in, *d_base;
    uint64_t *d_offs;
    CUDA_CHECK(cudaMalloc((void **)&d_in, n * es));
    CUDA_CHECK(cudaMemset(d_in, 1, n * es));
    CUDA_CHECK(cudaMalloc((void **)&d_base, n * es + 2 * GUARD));
    CUDA_CHECK(cudaMalloc((void **)&d_offs, sizeof bad[0]));
    unsigned char *h = xmalloc(n * es + 2 * GUARD);
    for (int k = 0; k < 4; ++k)
        for (int e = 0; e < 2; ++e) {
            CUDA_CHECK(cudaMemcpy(d_offs, bad[k], sizeof bad[k], cudaMemcpyHostToDevice));
            CUDA_CHECK(cudaMemset(d_base, 0xFF, n * es + 2 * GUARD));
            libscan_segscan_opts_t o = LIBSCAN_SEGSCAN_OPTS_INIT;
            o.trust_offsets = 0;
            LS_EXPECT(LIBSCAN_ERROR_INVALID_ARGUMENT,
                      e ? libscan_segmented_exclusive_scan_offsets(d_in, d_base + GUARD, n, d_offs, 4, LIBSCAN_U32,
                                                                   LIBSCAN_OP_SUM, &o, 0)
                        : libscan_segmented_inclusive_scan_offsets(d_in, d_base + GUARD, n, d_offs, 4, LIBSCAN_U32,
                                                                   LIBSCAN_OP_SUM, NULL, 0));
            CUDA_CHECK(cudaDeviceSynchronize());
            CUDA_CHECK(cudaMemcpy(h, d_base, n * es + 2 * GUARD, cudaMemcpyDeviceToHost));
            for (size_t i = 0; i < n * es + 2 * GUARD; ++i)
                if (h[i] != 0xFF) {
                    free(h);
                    TFAIL("invalid offsets set %d: output byte %lld was written", k, (long long)i - GUARD);
                }
        }
    free(h);
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_base));
    CUDA_CHECK(cudaFree(d_offs));
}

/* Float sums: 20 runs give bitwise the same output, in every mode. */
static void test_float_determinism(void **state) {
    (void)state;
    test_require_gpu();
    for (int f = 0; f < 2; ++f)
        for (int mode = 0; mode < 3; ++mode) {
            scase_t c = base_case(f ? LIBSCAN_F64 : LIBSCAN_F32, LIBSCAN_OP_SUM, mode == 2, mode);
            c.n = test_capped_n((size_t)1 << 21, 1), c.lens = f ? L_R100K : L_TILES;
            c.lead = mode == M_OFFSETS ? 3 : 0;
            c.rows = 4, c.row_len = test_capped_n(300000, 4), c.pitch = c.row_len;
            c.seg_init = mode == 1;
            check_repeatable(&c, "determinism", (uint64_t)(f * 3 + mode), test_reps(20),
                             7000 + (uint64_t)(f * 3 + mode));
        }
}

/* One rows case with the options cycled by k: pitch (= row_len, + 1 which
 * breaks 16-byte vectors, + 4 which keeps them), per-row initial values,
 * in place, caller temp (which the row kernels ignore). */
static void rows_case(libscan_dtype_t dt, libscan_op_t op, int excl, size_t rows, size_t row_len, unsigned k,
                      uint64_t idx) {
    static const size_t gaps[3] = {0, 1, 4};
    scase_t c = base_case(dt, op, excl, M_ROWS);
    c.rows = rows, c.row_len = row_len, c.pitch = row_len + gaps[k % 3];
    c.seg_init = (k / 3) & 1, c.in_place = (k / 2) & 1, c.caller_temp = (k / 5) & 1;
    check_case(&c, idx);
}

/* Short-row kernel: row lengths 1, 3 (no vectors), 63, 64, 65, tile - 1 and
 * tile; every dtype x op x inclusive/exclusive; the row count leaves the last
 * block short (not a multiple of the rows per block, R = tile / row_len). */
static void test_rows_short_kernel(void **state) {
    (void)state;
    test_require_gpu();
    uint64_t idx = 9000;
    unsigned k = 0;
    for (int d = 0; d < 6; ++d) {
        const size_t t = tile_elems(dtypes[d]);
        const size_t lens[7] = {1, 3, 63, 64, 65, t - 1, t};
        for (int l = 0; l < 7; ++l) {
            const size_t per_block = t / lens[l];
            const size_t rows = 2 * per_block + per_block / 2 + 1;
            for (int o = 0; o < 3; ++o)
                for (int e = 0; e < 2; ++e) rows_case(dtypes[d], ops[o], e, rows, lens[l], k++, idx++);
        }
        /* one row, and exactly one full block of rows */
        rows_case(dtypes[d], LIBSCAN_OP_SUM, d & 1, 1, 100, k++, idx++);
        rows_case(dtypes[d], LIBSCAN_OP_MAX, !(d & 1), t / 64, 64, k++, idx++);
    }
}

/* Lanes per row of the sub-warp kernel for a row of row_len (V = 16 / element
 * size; G = the power of two >= row_len / V, rounded up), 0 for rows the
 * warp-per-row or long-row kernels take. Mirrors row_scan.cuh's choice
 * only to describe the cases; the expected values come from seg_ref_rows. */
static size_t row_lanes(libscan_dtype_t dt, size_t row_len) {
    const size_t v = 16 / seg_esize(dt), lanes = (row_len + v - 1) / v;
    if (lanes > 32) return 0;
    size_t g = 1;
    while (g < lanes) g *= 2;
    return g;
}

/* Every G of the sub-warp kernel (1, 2, 4, 8, 16, 32 lanes per row), the
 * warp-per-row kernel (1, 2 and many chunks of 32 V, ragged last chunk) and
 * its upper edge, for a 4-byte and an 8-byte integer and float type, every
 * op, inclusive and exclusive, gaps that keep or break 16-byte vectors,
 * per-row initial values, in place. The row count (2053, prime) leaves the
 * last row group and the last block ragged for every G. */
static void test_rows_short_shapes(void **state) {
    (void)state;
    test_require_gpu();
    static const size_t lens[] = {1, 2, 3, 4, 5, 8, 16, 17, 31, 32, 63, 64, 65, 100, 128, 129, 1000, 2048, 4096};
    static const libscan_dtype_t types[4] = {LIBSCAN_U32, LIBSCAN_U64, LIBSCAN_F32, LIBSCAN_F64};
    uint64_t idx = 13000;
    unsigned k = 0;
    for (int d = 0; d < 4; ++d) {
        unsigned hit = 0; /* bit log2(G) for each G reached, bit 6 for the warp-per-row kernel */
        for (size_t l = 0; l < sizeof lens / sizeof lens[0]; ++l) {
            const size_t len = lens[l], g = row_lanes(types[d], len);
            const size_t rows = len <= 1000 ? 2053 : 257;
            for (int o = 0; o < 3; ++o, ++k) rows_case(types[d], ops[o], (int)((k + l) & 1), rows, len, k, idx++);
            if (g) {
                unsigned b = 0;
                while (((size_t)1 << b) < g) ++b;
                hit |= 1u << b;
            } else if (len <= tile_elems(types[d])) {
                hit |= 1u << 6;
            }
        }
        if (hit != 0x7fu)
            TFAIL("%s: the row lengths miss a short-row kernel shape (mask 0x%x)", seg_dtype_name(types[d]), hit);
    }
}

/* Input and output starting one element past a 16-byte boundary: the
 * kernels must fall back to guarded scalar accesses (pitch a multiple of V,
 * so only the base breaks the vectors), for each kernel of the rows path. */
static void test_rows_misaligned(void **state) {
    (void)state;
    test_require_gpu();
    static const size_t lens[6] = {1, 4, 24, 64, 200, 1000};
    uint64_t idx = 14000;
    for (int d = 0; d < 6; ++d)
        for (int l = 0; l < 6; ++l)
            for (int ip = 0; ip < 2; ++ip) {
                scase_t c = base_case(dtypes[d], ops[(d + l) % 3], (l + ip) & 1, M_ROWS);
                c.rows = 777, c.row_len = lens[l], c.pitch = lens[l] + (l & 1 ? 4 : 0);
                c.misalign = MIS_IN | MIS_OUT, c.in_place = ip, c.seg_init = (l + d) & 1;
                check_case(&c, idx++);
            }
}

/* Long-row kernel: >= ROW_MIN_ROWS rows of tile + 1, 2 chunks - 1, 2 chunks,
 * 2 chunks + 1 and 16384 elements; every dtype, sum, min and max spread over
 * them. Under LIBSCAN_TEST_MAX_N the row length is capped (rows stay), so
 * below about ROW_MIN_ROWS * (tile + 1) elements these shapes take the
 * short-row kernel instead; the long-row kernel needs a cap of >= 8.4M. */
static void test_rows_long_kernel(void **state) {
    (void)state;
    test_require_gpu();
    uint64_t idx = 10000;
    unsigned k = 0;
    for (int d = 0; d < 6; ++d) {
        const size_t t = tile_elems(dtypes[d]), ch = row_chunk(dtypes[d]);
        const size_t lens[5] = {t + 1, 2 * ch - 1, 2 * ch, 2 * ch + 1, 16384};
        for (int l = 0; l < 5; ++l) {
            const size_t rows = l == 4 ? ROW_MIN_ROWS + 37 : ROW_MIN_ROWS;
            const size_t len = test_capped_n(lens[l], rows);
            rows_case(dtypes[d], ops[(d + l) % 3], (d + l) & 1, rows, len, k++, idx++);
        }
    }
}

/* The edges of the choice: ROW_MIN_ROWS - 1 rows of tile + 1 (look-back
 * fallback) against ROW_MIN_ROWS (long-row kernel); one long row (fallback).
 * Under a cap below ROW_MIN_ROWS * (tile + 1) the first two take the
 * short-row kernel (see test_rows_long_kernel). */
static void test_rows_kernel_choice(void **state) {
    (void)state;
    test_require_gpu();
    uint64_t idx = 11000;
    for (int d = 0; d < 6; d += 4) { /* u32 and f32 */
        const size_t t = tile_elems(dtypes[d]);
        for (int e = 0; e < 2; ++e) {
            const size_t len = test_capped_n(t + 1, ROW_MIN_ROWS);
            rows_case(dtypes[d], LIBSCAN_OP_SUM, e, ROW_MIN_ROWS - 1, len, 3u * (unsigned)e, idx++);
            rows_case(dtypes[d], LIBSCAN_OP_SUM, e, ROW_MIN_ROWS, len, 3u * (unsigned)e + 1, idx++);
            rows_case(dtypes[d], LIBSCAN_OP_MIN, e, 1, t + 1, 2, idx++);
        }
    }
}

/* Float sums through the row kernels (sub-warp, warp-per-row, long-row):
 * repeated runs bitwise equal. */
static void test_rows_determinism(void **state) {
    (void)state;
    test_require_gpu();
    for (int f = 0; f < 2; ++f)
        for (int kernel = 0; kernel < 3; ++kernel) { /* sub-warp (G = 8), warp-per-row, long-row */
            const libscan_dtype_t dt = f ? LIBSCAN_F64 : LIBSCAN_F32;
            scase_t c = base_case(dt, LIBSCAN_OP_SUM, kernel & 1, M_ROWS);
            c.rows = kernel == 2 ? ROW_MIN_ROWS : 5003;
            c.row_len = kernel == 2 ? test_capped_n(2 * row_chunk(dt) + 1, ROW_MIN_ROWS) : kernel ? 1000 : 13;
            c.pitch = c.row_len + (size_t)f;
            c.seg_init = f;
            check_repeatable(&c, "rows determinism", (uint64_t)(f * 3 + kernel), test_reps(5),
                             12000 + (uint64_t)(f * 3 + kernel));
        }
}

/* ---- head-flag kernel (flag_scan.cuh) ------------------------------------ */

/* Sizes around the flag tile: tile - 1 (one partial tile), tile, tile + 1
 * (a second tile of one element), 3 tiles + 5; all heads, segments of
 * 1..32 and segments of exactly one thread's items; every dtype, the three
 * ops spread over them, inclusive and exclusive, per-segment initial values
 * and in place on some. */
static void test_flags_tile_sizes(void **state) {
    (void)state;
    test_require_gpu();
    static const int lens[3] = {L_ONE, L_R32, L_IPT};
    uint64_t idx = 15000;
    for (int d = 0; d < 6; ++d) {
        const size_t t = flag_tile(dtypes[d]);
        const size_t sizes[4] = {t - 1, t, t + 1, 3 * t + 5};
        for (int s = 0; s < 4; ++s)
            for (int l = 0; l < 3; ++l)
                for (int e = 0; e < 2; ++e) {
                    scase_t c = flags_case(dtypes[d], ops[(d + s + l) % 3], e, sizes[s], lens[l]);
                    c.seg_init = (s + e) & 1, c.in_place = (l + s) & 1, c.first_unflagged = l == 1;
                    check_case(&c, idx++);
                }
    }
}

/* Heads exactly on the kernel's edges: every thread boundary (segments of
 * exactly IPT), every tile boundary only (segments of one tile), and the
 * L_EDGES mix (tile first/second/last element, some thread starts and ends),
 * with a partial last tile; every dtype, inclusive and exclusive, with and
 * without initial values. */
static void test_flags_edges(void **state) {
    (void)state;
    test_require_gpu();
    static const int lens[3] = {L_IPT, L_FTILE, L_EDGES};
    uint64_t idx = 16000;
    for (int d = 0; d < 6; ++d) {
        const size_t n = 5 * flag_tile(dtypes[d]) + 77;
        for (int l = 0; l < 3; ++l)
            for (int e = 0; e < 2; ++e)
                for (int si = 0; si < 2; ++si) {
                    scase_t c = flags_case(dtypes[d], ops[(d + l + e) % 3], e, n, lens[l]);
                    c.seg_init = si;
                    check_case(&c, idx++);
                }
    }
}

/* Every element a head, and no head after element 0 (flagged or not) across
 * many tiles: the pair tags carry all heads / none through the look-back. */
static void test_flags_all_or_no_heads(void **state) {
    (void)state;
    test_require_gpu();
    uint64_t idx = 17000;
    for (int d = 0; d < 6; ++d)
        for (int e = 0; e < 2; ++e) {
            scase_t c = flags_case(dtypes[d], ops[(d + e) % 3], e, 4 * flag_tile(dtypes[d]) + 3, L_ONE);
            c.seg_init = e;
            check_case(&c, idx++);
            c = flags_case(dtypes[d], e ? LIBSCAN_OP_MAX : LIBSCAN_OP_SUM, e,
                           test_capped_n(40 * flag_tile(dtypes[d]) + 11, 1), L_ALL);
            c.seg_init = !e;
            check_case(&c, idx++);
            c.first_unflagged = 1;
            c.seg_init = e;
            check_case(&c, idx++);
        }
}

/* d_in, d_out and d_flags each one element (flags: one byte) past a 16-byte
 * boundary, and all three: the kernel must take its scalar loads and stores
 * (values) or byte loads (flags) and still be right, full tiles included;
 * out of place and in place. */
static void test_flags_misaligned(void **state) {
    (void)state;
    test_require_gpu();
    static const int mis[4] = {MIS_IN, MIS_OUT, MIS_FLAGS, MIS_IN | MIS_OUT | MIS_FLAGS};
    uint64_t idx = 18000;
    for (int d = 0; d < 6; ++d)
        for (int m = 0; m < 4; ++m)
            for (int ip = 0; ip < 2; ++ip) {
                if (ip && mis[m] == MIS_IN) continue; /* in place, d_in is d_out */
                const size_t t = flag_tile(dtypes[d]);
                scase_t c = flags_case(dtypes[d], ops[(d + m) % 3], (m + ip) & 1, ip ? 3 * t + 5 : 4 * t,
                                       m & 1 ? L_R32 : L_EDGES);
                c.misalign = mis[m], c.in_place = ip, c.seg_init = (d + m) & 1;
                check_case(&c, idx++);
            }
}

/* In place, exclusive, per-segment initial values (the exclusive head case:
 * a segment's first element is exactly its initial value), the issue's
 * segment lengths (1..32 and mean 1000). */
static void test_flags_in_place_exclusive_init(void **state) {
    (void)state;
    test_require_gpu();
    uint64_t idx = 19000;
    for (int d = 0; d < 6; ++d)
        for (int l = 0; l < 2; ++l) {
            scase_t c = flags_case(dtypes[d], ops[(d + l) % 3], 1, 7 * flag_tile(dtypes[d]) + 13, l ? L_R2000 : L_R32);
            c.in_place = 1, c.seg_init = 1, c.first_unflagged = l;
            check_case(&c, idx++);
        }
}

/* Every dtype x op x inclusive/exclusive on one multi-tile size with a
 * partial last tile, segments of 1..32, initial values on half. */
static void test_flags_matrix_multitile(void **state) {
    (void)state;
    test_require_gpu();
    uint64_t idx = 20000;
    for (int d = 0; d < 6; ++d)
        for (int o = 0; o < 3; ++o)
            for (int e = 0; e < 2; ++e) {
                scase_t c = flags_case(dtypes[d], ops[o], e, 6 * flag_tile(dtypes[d]) + 1001, L_R32);
                c.seg_init = (o + e) & 1;
                check_case(&c, idx++);
            }
}

/* Float sums through the flag kernel with the segment lengths:
 * 20 runs bitwise equal (3 under LIBSCAN_TEST_MAX_N), then checked. */
static void test_flags_determinism(void **state) {
    (void)state;
    test_require_gpu();
    for (int f = 0; f < 2; ++f)
        for (int l = 0; l < 2; ++l) {
            const libscan_dtype_t dt = f ? LIBSCAN_F64 : LIBSCAN_F32;
            scase_t c = flags_case(dt, LIBSCAN_OP_SUM, l, test_capped_n(((size_t)3 << 20) + 7, 1), l ? L_R32 : L_R2000);
            c.seg_init = f;
            check_repeatable(&c, "flags determinism", (uint64_t)(f * 2 + l), test_reps(20),
                             21000 + (uint64_t)(f * 2 + l));
        }
}

/* One 2^28-element u32 sum with head flags (random lengths 1..100). */
static void test_u32_sum_flags_2p28(void **state) {
    (void)state;
    test_require_gpu();
    scase_t c = flags_case(LIBSCAN_U32, LIBSCAN_OP_SUM, 0, (size_t)1 << 28, L_R100);
    test_skip_above_cap(c.n, "the 2^28-element segmented scan");
    check_case(&c, 8000);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matrix_flags),
        cmocka_unit_test(test_matrix_offsets),
        cmocka_unit_test(test_matrix_rows),
        cmocka_unit_test(test_long_segments),
        cmocka_unit_test(test_rows_long),
        cmocka_unit_test(test_rows_short_kernel),
        cmocka_unit_test(test_rows_short_shapes),
        cmocka_unit_test(test_rows_misaligned),
        cmocka_unit_test(test_rows_long_kernel),
        cmocka_unit_test(test_rows_kernel_choice),
        cmocka_unit_test(test_rows_determinism),
        cmocka_unit_test(test_in_place),
        cmocka_unit_test(test_caller_and_library_temp),
        cmocka_unit_test(test_host_temp_only_where_used),
        cmocka_unit_test(test_trust_offsets),
        cmocka_unit_test(test_first_unflagged),
        cmocka_unit_test(test_invalid_offsets),
        cmocka_unit_test(test_float_determinism),
        cmocka_unit_test(test_flags_tile_sizes),
        cmocka_unit_test(test_flags_edges),
        cmocka_unit_test(test_flags_all_or_no_heads),
        cmocka_unit_test(test_flags_misaligned),
        cmocka_unit_test(test_flags_in_place_exclusive_init),
        cmocka_unit_test(test_flags_matrix_multitile),
        cmocka_unit_test(test_flags_determinism),
        cmocka_unit_test(test_u32_sum_flags_2p28),
    };
    test_begin("test_segmented");
    return test_exit_code(cmocka_run_group_tests(tests, NULL, NULL));
}
