/* test_array_io.c -- apps/common/array_io.h: dtypes and formats, .npy
 * (v1/v2/v3, both byte orders, header variants, every malformed case), raw,
 * text, streaming read/write, atomic output. Input files are assembled byte
 * by byte by the test (fixtures.c) and expected values come from the test's
 * own data and tables, never from the code under test. */
#define _GNU_SOURCE
#include "support/harness.h"

#include "common/array_io.h"
#include "common/cli.h"
#include "fixtures.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <fcntl.h>

/* ---- the test's own table of element types -------------------------------- */

typedef struct {
    arr_dtype_t t;
    char kind; /* numpy kind letter */
    size_t size;
    const char *name;
} tdt_t;

static const tdt_t k_dt[] = {
    {ARR_BOOL, 'b', 1, "bool"},    {ARR_I8, 'i', 1, "int8"},     {ARR_U8, 'u', 1, "uint8"},
    {ARR_I16, 'i', 2, "int16"},    {ARR_U16, 'u', 2, "uint16"},  {ARR_I32, 'i', 4, "int32"},
    {ARR_U32, 'u', 4, "uint32"},   {ARR_I64, 'i', 8, "int64"},   {ARR_U64, 'u', 8, "uint64"},
    {ARR_F16, 'f', 2, "float16"},  {ARR_F32, 'f', 4, "float32"}, {ARR_F64, 'f', 8, "float64"},
};
#define NDT (sizeof k_dt / sizeof k_dt[0])

static void path_in(const fx_dir_t *fx, const char *name, char *out, size_t cap) {
    snprintf(out, cap, "%s/%s", fx->dir, name);
}

/* Random elements of t: random bits (all float classes, NaN payloads included),
 * bool as 0/1, and the type's extremes at the front when n allows. */
static void fill_random(rng_t *r, const tdt_t *d, void *buf, size_t n) {
    unsigned char *p = buf;
    for (size_t i = 0; i < n * d->size; ++i) p[i] = (unsigned char)rng_u32(r);
    if (d->t == ARR_BOOL)
        for (size_t i = 0; i < n; ++i) p[i] &= 1;
    if (n < 4) return;
    switch (d->t) {
    case ARR_I64: { int64_t v[2] = {INT64_MIN, INT64_MAX}; memcpy(p, v, sizeof v); break; }
    case ARR_U64: { uint64_t v[2] = {0, UINT64_MAX}; memcpy(p, v, sizeof v); break; }
    case ARR_I32: { int32_t v[2] = {INT32_MIN, INT32_MAX}; memcpy(p, v, sizeof v); break; }
    case ARR_F64: { double v[4] = {-0.0, INFINITY, -INFINITY, 4.9406564584124654e-324}; memcpy(p, v, sizeof v); break; }
    case ARR_F32: { float v[4] = {-0.0f, INFINITY, -INFINITY, 1.4e-45f}; memcpy(p, v, sizeof v); break; }
    case ARR_F16: { uint16_t v[4] = {0x8000, 0x7c00, 0xfc00, 0x0001}; memcpy(p, v, sizeof v); break; }
    default: break;
    }
}

/* Bitwise equality, except that any NaN equals any NaN when nan_loose (text
 * does not keep NaN payloads or signs). */
static void expect_same(const tdt_t *d, const void *want, const void *got, size_t n, int nan_loose, const char *what) {
    const unsigned char *a = want, *b = got;
    for (size_t i = 0; i < n; ++i) {
        if (memcmp(a + i * d->size, b + i * d->size, d->size) == 0) continue;
        if (nan_loose) {
            int an = 0, bn = 0;
            if (d->t == ARR_F64) { double x, y; memcpy(&x, a + i * 8, 8); memcpy(&y, b + i * 8, 8); an = isnan(x); bn = isnan(y); }
            if (d->t == ARR_F32) { float x, y; memcpy(&x, a + i * 4, 4); memcpy(&y, b + i * 4, 4); an = isnan(x); bn = isnan(y); }
            if (d->t == ARR_F16) { uint16_t x, y; memcpy(&x, a + i * 2, 2); memcpy(&y, b + i * 2, 2);
                                   an = (x & 0x7c00) == 0x7c00 && (x & 0x3ff); bn = (y & 0x7c00) == 0x7c00 && (y & 0x3ff); }
            if (an && bn) continue;
        }
        TFAIL("%s: %s element %zu of %zu differs", what, d->name, i, n);
    }
}

/* Reads `path` whole and checks dtype, count and values. */
static void expect_read(const char *path, arr_format_t fmt, arr_dtype_t raw, const tdt_t *d, const void *want,
                        size_t n, int nan_loose) {
    arr_array_t a;
    char err[512];
    arr_status_t s = arr_read(path, fmt, raw, &a, err, sizeof err);
    if (s != ARR_OK) TFAIL("arr_read(%s) failed: %s", path, err);
    if (a.dtype != d->t) TFAIL("%s: dtype %s, expected %s", path, arr_dtype_name(a.dtype), d->name);
    if (a.count != n) TFAIL("%s: %zu elements, expected %zu", path, a.count, n);
    expect_same(d, want, a.data, n, nan_loose, path);
    arr_free(&a);
}

/* Expects arr_read to fail with ARR_ERR_INPUT and a message naming the path
 * and containing `needle`. Also checks the array was left empty. */
static void expect_read_error(const char *path, arr_format_t fmt, arr_dtype_t raw, const char *needle) {
    arr_array_t a;
    memset(&a, 0x5a, sizeof a);
    char err[512] = "";
    arr_status_t s = arr_read(path, fmt, raw, &a, err, sizeof err);
    if (s != ARR_ERR_INPUT) TFAIL("arr_read(%s) returned %d, expected ARR_ERR_INPUT (%s)", path, (int)s, err);
    if (!strstr(err, path)) TFAIL("error '%s' does not name the file %s", err, path);
    if (!strstr(err, needle)) TFAIL("error '%s' does not say '%s'", err, needle);
    if (a.data != NULL || a.count != 0) TFAIL("arr_read left data behind after an error");
    if (strchr(err, '\n')) TFAIL("error '%s' is more than one line", err);
}

static void dict_1d(char *buf, size_t cap, char order, const tdt_t *d, size_t n) {
    snprintf(buf, cap, "{'descr': '%c%c%zu', 'fortran_order': False, 'shape': (%zu,), }", order, d->kind, d->size, n);
}

/* ---- dtypes and formats ----------------------------------------------------- */

static void test_dtype_names(void **state) {
    (void)state;
    for (size_t i = 0; i < NDT; ++i) {
        assert_int_equal(arr_dtype_size(k_dt[i].t), k_dt[i].size);
        assert_string_equal(arr_dtype_name(k_dt[i].t), k_dt[i].name);
        arr_dtype_t t = ARR_NONE;
        assert_int_equal(arr_dtype_parse(k_dt[i].name, &t), 0);
        assert_int_equal(t, k_dt[i].t);
        assert_true(arr_dtype_is_float(k_dt[i].t) == (k_dt[i].kind == 'f'));
        assert_true(arr_dtype_is_integer(k_dt[i].t) == (k_dt[i].kind != 'f'));
        assert_true(arr_dtype_is_signed(k_dt[i].t) == (k_dt[i].kind == 'i' || k_dt[i].kind == 'f'));
        assert_non_null(strstr(arr_dtype_list(), k_dt[i].name));
    }
    assert_int_equal(arr_dtype_size(ARR_NONE), 0);
    assert_string_equal(arr_dtype_name((arr_dtype_t)99), "?");
    struct { const char *s; arr_dtype_t t; } ok[] = {
        {"u32", ARR_U32}, {"UINT32", ARR_U32}, {"f4", ARR_F32}, {"float32", ARR_F32}, {"f8", ARR_F64},
        {"double", ARR_F64}, {"float", ARR_F32}, {"half", ARR_F16}, {"f16", ARR_F16}, {"f2", ARR_F16},
        {"b1", ARR_BOOL}, {"i1", ARR_I8}, {"u1", ARR_U8}, {"i2", ARR_I16}, {"u2", ARR_U16}, {"i4", ARR_I32},
        {"u4", ARR_U32}, {"i16", ARR_I16}, {"u16", ARR_U16}, {"i32", ARR_I32}, {"i64", ARR_I64}, {"u64", ARR_U64},
        {"f32", ARR_F32}, {"f64", ARR_F64}, {"Int64", ARR_I64},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; ++i) {
        arr_dtype_t t = ARR_NONE;
        if (arr_dtype_parse(ok[i].s, &t) != 0 || t != ok[i].t) TFAIL("arr_dtype_parse('%s') wrong", ok[i].s);
    }
    const char *bad[] = {"", "i8", "u8", "uint33", "float128", "c8", "int", "u 32", "u32 ", "complex64", "O"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        arr_dtype_t t = ARR_U16;
        if (arr_dtype_parse(bad[i], &t) == 0) TFAIL("arr_dtype_parse('%s') accepted", bad[i]);
        assert_int_equal(t, ARR_U16);
    }
    arr_dtype_t t;
    assert_int_equal(arr_dtype_parse(NULL, &t), -1);
}

static void test_format_names(void **state) {
    (void)state;
    struct { const char *path; arr_format_t f; } cases[] = {
        {"a.npy", ARR_FMT_NPY},   {"dir/A.NPY", ARR_FMT_NPY},   {"x.txt", ARR_FMT_TEXT},  {"x.csv", ARR_FMT_TEXT},
        {"x.TEXT", ARR_FMT_TEXT}, {"x.bin", ARR_FMT_RAW},       {"x.raw", ARR_FMT_RAW},   {"x.dat", ARR_FMT_RAW},
        {"noext", ARR_FMT_RAW},   {"d.npy/file", ARR_FMT_RAW},  {".npy", ARR_FMT_RAW},    {"x.npy.gz", ARR_FMT_RAW},
        {"./x.npy", ARR_FMT_NPY},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        if (arr_format_from_path(cases[i].path) != cases[i].f)
            TFAIL("arr_format_from_path('%s') = %s", cases[i].path, arr_format_name(arr_format_from_path(cases[i].path)));
        assert_int_equal(arr_format_resolve(cases[i].path, ARR_FMT_AUTO), cases[i].f);
        assert_int_equal(arr_format_resolve(cases[i].path, ARR_FMT_TEXT), ARR_FMT_TEXT);
    }
    const char *names[] = {"auto", "npy", "raw", "text"};
    for (int i = 0; i < 4; ++i) {
        arr_format_t f = (arr_format_t)99;
        assert_int_equal(arr_format_parse(names[i], &f), 0);
        assert_int_equal((int)f, i);
        assert_string_equal(arr_format_name(f), names[i]);
    }
    arr_format_t f = ARR_FMT_RAW;
    assert_int_equal(arr_format_parse("NPY", &f), 0);
    assert_int_equal(f, ARR_FMT_NPY);
    assert_int_equal(arr_format_parse("csv", &f), -1);
    assert_int_equal(arr_format_parse("", &f), -1);
    assert_int_equal(arr_format_parse("np", &f), -1);
    assert_string_equal(arr_format_name((arr_format_t)42), "?");
}

/* binary16 against the compiler's _Float16 (an independent implementation). */
static void test_f16_conversion(void **state) {
    (void)state;
    for (uint32_t h = 0; h < 65536; ++h) {
        uint16_t bits = (uint16_t)h;
        _Float16 x;
        memcpy(&x, &bits, 2);
        double want = (double)x, got = arr_f16_to_f64(bits);
        if (isnan(want) ? !isnan(got) : (memcmp(&want, &got, 8) != 0))
            TFAIL("arr_f16_to_f64(0x%04x) = %.17g, expected %.17g", h, got, want);
        if (!isnan(want)) { /* exact values convert back to themselves */
            uint16_t back = arr_f64_to_f16(want);
            if (back != bits) TFAIL("arr_f64_to_f16(%.17g) = 0x%04x, expected 0x%04x", want, back, h);
        }
        /* Half-way to the next value up: a tie, rounded to even. */
        if ((h & 0x7c00) != 0x7c00 && h != 0x7bff && h != 0xfbff) {
            uint16_t nb = (uint16_t)(h + 1);
            _Float16 y;
            memcpy(&y, &nb, 2);
            if (isfinite((double)y)) {
                double mid = ((double)x + (double)y) / 2;
                _Float16 r = (_Float16)mid;
                uint16_t rb;
                memcpy(&rb, &r, 2);
                if (arr_f64_to_f16(mid) != rb) TFAIL("arr_f64_to_f16(%.17g) tie rounding wrong", mid);
            }
        }
    }
    rng_t r;
    rng_init(&r, "f16", 0);
    for (int i = 0; i < 200000; ++i) {
        double d = ldexp(rng_unit(&r) * 2 - 1, (int)rng_range(&r, -30, 18));
        _Float16 x = (_Float16)d;
        uint16_t want;
        memcpy(&want, &x, 2);
        if (arr_f64_to_f16(d) != want) TFAIL("arr_f64_to_f16(%.17g) = 0x%04x, expected 0x%04x", d, arr_f64_to_f16(d), want);
    }
    assert_true(isnan(arr_f16_to_f64(arr_f64_to_f16(NAN))));
    assert_int_equal(arr_f64_to_f16(65520.0), 0x7c00);   /* rounds up to infinity */
    assert_int_equal(arr_f64_to_f16(65519.99), 0x7bff);  /* rounds down to 65504 */
    assert_int_equal(arr_f64_to_f16(-1e300), 0xfc00);
}

/* ---- .npy ------------------------------------------------------------------------ */

/* Every dtype x version 1/2/3 x byte order, files assembled by the test. */
static void test_npy_roundtrip_all(void **state) {
    fx_dir_t *fx = *state;
    rng_t r;
    rng_init(&r, "npy_roundtrip", 0);
    const char orders[] = {'<', '>', '=', '|'};
    for (size_t di = 0; di < NDT; ++di) {
        const tdt_t *d = &k_dt[di];
        for (int ver = 1; ver <= 3; ++ver) {
            for (size_t oi = 0; oi < sizeof orders; ++oi) {
                char order = orders[oi];
                if (order == '|' && d->size != 1) continue;
                size_t n = oi == 0 && ver == 1 ? 0 : oi == 1 && ver == 1 ? 1 : (size_t)rng_below(&r, 3000) + 2;
                unsigned char *data = malloc(n * d->size + 1), *filebytes = malloc(n * d->size + 1);
                fill_random(&r, d, data, n);
                memcpy(filebytes, data, n * d->size);
                int little = fx_little_endian();
                if ((order == '>' && little) || (order == '<' && !little)) fx_swap(filebytes, n, d->size);
                char dict[256], path[1200];
                dict_1d(dict, sizeof dict, order, d, n);
                path_in(fx, "a.npy", path, sizeof path);
                fx_write_npy(path, ver, 0, dict, 1, 0, filebytes, n * d->size);
                expect_read(path, ARR_FMT_AUTO, ARR_NONE, d, data, n, 0);
                /* The format given explicitly, and a raw dtype that must be ignored. */
                expect_read(path, ARR_FMT_NPY, ARR_U8, d, data, n, 0);
                free(data);
                free(filebytes);
            }
        }
    }
}

static void test_npy_header_variants(void **state) {
    fx_dir_t *fx = *state;
    int32_t v[3] = {7, -8, 9};
    const tdt_t *d = &k_dt[5]; /* int32 */
    assert_int_equal(d->t, ARR_I32);
    const char *dicts[] = {
        "{'shape': (3,), 'fortran_order': False, 'descr': '<i4'}",
        "{\"descr\": \"<i4\", \"fortran_order\": False, \"shape\": (3,)}",
        "{ 'descr' : '<i4' ,  'fortran_order' : False , 'shape' : ( 3 , ) , }",
        "{'descr': '<i4', 'fortran_order': False, 'shape': (3L,), }",
        "{'descr':'<i4','fortran_order':False,'shape':(3,)}",
        "{'descr': '<i4', 'fortran_order': True, 'shape': (3,), }", /* 1-D: order does not matter */
    };
    unsigned char bytes[12];
    memcpy(bytes, v, sizeof v);
    if (!fx_little_endian()) fx_swap(bytes, 3, 4);
    char path[1200];
    path_in(fx, "v.npy", path, sizeof path);
    for (size_t i = 0; i < sizeof dicts / sizeof dicts[0]; ++i) {
        for (int ver = 1; ver <= 3; ++ver) {
            fx_write_npy(path, ver, 0, dicts[i], 1, 0, bytes, sizeof bytes);
            expect_read(path, ARR_FMT_AUTO, ARR_NONE, d, v, 3, 0);
        }
    }
    /* Header without padding or newline (shorter than numpy's, still valid). */
    fx_write_npy(path, 1, 0, dicts[0], 0, 0, bytes, sizeof bytes);
    expect_read(path, ARR_FMT_AUTO, ARR_NONE, d, v, 3, 0);
    /* A .npy file under another extension, with the format given. */
    char other[1200];
    path_in(fx, "v.data", other, sizeof other);
    fx_write_npy(other, 1, 0, dicts[0], 1, 0, bytes, sizeof bytes);
    expect_read(other, ARR_FMT_NPY, ARR_NONE, d, v, 3, 0);
}

/* A header padded with NUL bytes (older writers) instead of spaces: after
 * the dict, before and after the newline, and mixed with spaces. */
static void test_npy_nul_padding(void **state) {
    fx_dir_t *fx = *state;
    const char *dict = "{'descr': '<u2', 'fortran_order': False, 'shape': (2,), }";
    const unsigned char data[4] = {1, 0, 0xff, 0xff};
    uint16_t want[2] = {1, 0xffff};
    const char *pads[] = {"\0\0\0\0\0\n", " \0 \0\n", "\n\0\0\0", "\0\0\0\0\0\0"};
    const size_t padlen[] = {6, 5, 4, 6};
    char path[1200];
    path_in(fx, "nul.npy", path, sizeof path);
    for (size_t i = 0; i < sizeof pads / sizeof pads[0]; ++i) {
        unsigned char f[256];
        size_t dl = strlen(dict), hlen = dl + padlen[i], n = 0;
        memcpy(f, "\x93NUMPY\x01\x00", 8);
        f[8] = (unsigned char)(hlen & 0xff);
        f[9] = (unsigned char)(hlen >> 8);
        n = 10;
        memcpy(f + n, dict, dl);
        n += dl;
        memcpy(f + n, pads[i], padlen[i]);
        n += padlen[i];
        memcpy(f + n, data, sizeof data);
        n += sizeof data;
        fx_write_file(path, f, n);
        expect_read(path, ARR_FMT_AUTO, ARR_NONE, &k_dt[4], want, 2, 0);
    }
    /* Still refused: text after the padding. */
    unsigned char f[256];
    const char *bad = "{'descr': '<u2', 'fortran_order': False, 'shape': (2,), }\0\0x\n";
    size_t hlen = strlen(dict) + 4;
    memcpy(f, "\x93NUMPY\x01\x00", 8);
    f[8] = (unsigned char)hlen;
    f[9] = 0;
    memcpy(f + 10, bad, hlen);
    memcpy(f + 10 + hlen, data, sizeof data);
    fx_write_file(path, f, 10 + hlen + sizeof data);
    expect_read_error(path, ARR_FMT_AUTO, ARR_NONE, "text after the closing");
}

static void test_npy_nd_notice(void **state) {
    fx_dir_t *fx = *state;
    char path[1200], err[512];
    path_in(fx, "m.npy", path, sizeof path);
    uint16_t v[6] = {1, 2, 3, 4, 5, 6};
    unsigned char bytes[12];
    memcpy(bytes, v, sizeof v);
    if (fx_little_endian()) fx_swap(bytes, 6, 2); /* stored big endian */
    fx_write_npy(path, 1, 0, "{'descr': '>u2', 'fortran_order': False, 'shape': (2, 3), }", 1, 0, bytes, 12);
    arr_array_t a;
    assert_int_equal(arr_read(path, ARR_FMT_AUTO, ARR_NONE, &a, err, sizeof err), ARR_OK);
    assert_int_equal(a.count, 6);
    assert_int_equal(a.ndim, 2);
    assert_int_equal(a.shape[0], 2);
    assert_int_equal(a.shape[1], 3);
    assert_memory_equal(a.data, v, sizeof v);
    if (!strstr(a.notice, path) || !strstr(a.notice, "(2, 3)") || !strstr(a.notice, "6"))
        TFAIL("notice '%s' should name the file, the shape and the count", a.notice);
    arr_free(&a);
    assert_null(a.data);

    /* 3-D with a zero dimension: 0 elements, still a notice. */
    fx_write_npy(path, 2, 0, "{'descr': '<f8', 'fortran_order': False, 'shape': (4, 0, 2), }", 1, 0, NULL, 0);
    assert_int_equal(arr_read(path, ARR_FMT_AUTO, ARR_NONE, &a, err, sizeof err), ARR_OK);
    assert_int_equal(a.count, 0);
    assert_int_equal(a.ndim, 3);
    assert_true(a.notice[0] != '\0');
    arr_free(&a);

    /* A zero dimension after dimensions whose product overflows: still 0 elements. */
    fx_write_npy(path, 1, 0, "{'descr': '<f8', 'fortran_order': False, 'shape': (65536, 65536, 65536, 65536, 0), }", 1,
                 0, NULL, 0);
    if (arr_read(path, ARR_FMT_AUTO, ARR_NONE, &a, err, sizeof err) != ARR_OK) TFAIL("%s", err);
    assert_int_equal(a.count, 0);
    arr_free(&a);

    /* Scalar: shape () is one element. */
    double s = -2.5;
    unsigned char sb[8];
    memcpy(sb, &s, 8);
    if (!fx_little_endian()) fx_swap(sb, 1, 8);
    fx_write_npy(path, 1, 0, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }", 1, 0, sb, 8);
    assert_int_equal(arr_read(path, ARR_FMT_AUTO, ARR_NONE, &a, err, sizeof err), ARR_OK);
    assert_int_equal(a.count, 1);
    assert_int_equal(a.ndim, 0);
    assert_memory_equal(a.data, &s, 8);
    assert_non_null(strstr(a.notice, "scalar"));
    arr_free(&a);

    /* 1-D: no notice. */
    fx_write_npy(path, 1, 0, "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", 1, 0, sb, 8);
    assert_int_equal(arr_read(path, ARR_FMT_AUTO, ARR_NONE, &a, err, sizeof err), ARR_OK);
    assert_string_equal(a.notice, "");
    assert_int_equal(a.ndim, 1);
    arr_free(&a);
}

/* What arr_write puts in a .npy file, checked byte by byte. */
static void test_npy_write_format(void **state) {
    fx_dir_t *fx = *state;
    rng_t r;
    rng_init(&r, "npy_write", 0);
    char path[1200], err[512];
    path_in(fx, "w.npy", path, sizeof path);
    for (size_t di = 0; di < NDT; ++di) {
        const tdt_t *d = &k_dt[di];
        size_t n = di == 0 ? 0 : (size_t)rng_below(&r, 500) + 1;
        unsigned char *data = malloc(n * d->size + 1);
        fill_random(&r, d, data, n);
        if (arr_write(path, ARR_FMT_AUTO, d->t, data, n, err, sizeof err) != ARR_OK) TFAIL("arr_write: %s", err);
        size_t len;
        unsigned char *f = fx_read_file(path, &len);
        assert_true(len >= 10);
        assert_memory_equal(f, "\x93NUMPY\x01\x00", 8);
        size_t hlen = (size_t)f[8] | (size_t)f[9] << 8;
        assert_true(10 + hlen <= len);
        if ((10 + hlen) % 64 != 0) TFAIL("header of %zu bytes is not 64-byte aligned", 10 + hlen);
        assert_int_equal(f[10 + hlen - 1], '\n');
        char want_descr[32], want_shape[64], *hdr = strndup((char *)f + 10, hlen);
        snprintf(want_descr, sizeof want_descr, "'descr': '%c%c%zu'", d->size == 1 ? '|' : '<', d->kind, d->size);
        snprintf(want_shape, sizeof want_shape, "'shape': (%zu,)", n);
        if (!strstr(hdr, want_descr) || !strstr(hdr, want_shape) || !strstr(hdr, "'fortran_order': False"))
            TFAIL("header '%s' lacks %s or %s", hdr, want_descr, want_shape);
        /* Only spaces between the dict and the newline. */
        char *close = strrchr(hdr, '}');
        assert_non_null(close);
        for (char *p = close + 1; p < hdr + hlen - 1; ++p) assert_int_equal(*p, ' ');
        free(hdr);
        assert_int_equal(len, 10 + hlen + n * d->size);
        unsigned char *le = malloc(n * d->size + 1);
        memcpy(le, data, n * d->size);
        if (!fx_little_endian()) fx_swap(le, n, d->size);
        if (n) assert_memory_equal(f + 10 + hlen, le, n * d->size);
        free(le);
        free(f);
        expect_read(path, ARR_FMT_AUTO, ARR_NONE, d, data, n, 0);
        free(data);
    }
    assert_int_equal(fx_count_entries(fx->dir, NULL, 0), 1); /* no temporary files left */
}

typedef struct {
    const char *name;
    const char *dict; /* NULL: use `bytes` as the whole file */
    int major, minor;
    long delta;        /* added to the header length field */
    size_t data_bytes; /* bytes of data after the header */
    const char *bytes;
    size_t nbytes;
    const char *needle;
} bad_npy_t;

static void test_npy_malformed(void **state) {
    fx_dir_t *fx = *state;
    const bad_npy_t cases[] = {
        {"empty.npy", NULL, 0, 0, 0, 0, "", 0, "empty"},
        {"magic.npy", NULL, 0, 0, 0, 0, "\x93NUMPZ\x01\x00\x10\x00{}", 12, "magic"},
        {"text.npy", NULL, 0, 0, 0, 0, "1\n2\n3\n", 6, "magic"},
        {"short1.npy", NULL, 0, 0, 0, 0, "\x93NUM", 4, "truncated"},
        {"short2.npy", NULL, 0, 0, 0, 0, "\x93NUMPY\x01", 7, "truncated"},
        {"short3.npy", NULL, 0, 0, 0, 0, "\x93NUMPY\x02\x00\x10", 9, "truncated"},
        {"short4.npy", NULL, 0, 0, 0, 0, "\x93NUMPY\x02\x00\x10\x00", 10, "truncated"},
        {"v4.npy", "{'descr': '<i4', 'fortran_order': False, 'shape': (1,), }", 4, 0, 0, 4, NULL, 0, "version 4.0"},
        {"v11.npy", "{'descr': '<i4', 'fortran_order': False, 'shape': (1,), }", 1, 1, 0, 4, NULL, 0, "version 1.1"},
        {"v0.npy", "{'descr': '<i4', 'fortran_order': False, 'shape': (1,), }", 0, 0, 0, 4, NULL, 0, "version 0.0"},
        {"hlen.npy", "{'descr': '<i4', 'fortran_order': False, 'shape': (1,), }", 1, 0, 1000, 4, NULL, 0, "truncated .npy header"},
        {"hlen2.npy", "{'descr': '<i4', 'fortran_order': False, 'shape': (1,), }", 2, 0, 100000, 4, NULL, 0, "truncated .npy header"},
        {"c8.npy", "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", 1, 0, 0, 8, NULL, 0, "unsupported dtype '<c8'"},
        {"obj.npy", "{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", 1, 0, 0, 8, NULL, 0, "unsupported dtype '|O'"},
        {"u3.npy", "{'descr': '<U3', 'fortran_order': False, 'shape': (1,), }", 1, 0, 0, 12, NULL, 0, "unsupported dtype '<U3'"},
        {"f16.npy", "{'descr': '<f16', 'fortran_order': False, 'shape': (1,), }", 1, 0, 0, 16, NULL, 0, "unsupported dtype"},
        {"dt.npy", "{'descr': '<M8[ns]', 'fortran_order': False, 'shape': (1,), }", 1, 0, 0, 8, NULL, 0, "unsupported dtype"},
        {"i3.npy", "{'descr': '<i3', 'fortran_order': False, 'shape': (1,), }", 1, 0, 0, 3, NULL, 0, "unsupported dtype"},
        {"nodescr.npy", "{'descr': '', 'fortran_order': False, 'shape': (1,), }", 1, 0, 0, 3, NULL, 0, "unsupported dtype"},
        {"struct.npy", "{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (1,), }", 1, 0, 0, 4, NULL, 0, "structured"},
        {"fortran.npy", "{'descr': '<i4', 'fortran_order': True, 'shape': (2, 2), }", 1, 0, 0, 16, NULL, 0, "fortran_order"},
        {"nokey1.npy", "{'fortran_order': False, 'shape': (1,), }", 1, 0, 0, 4, NULL, 0, "missing key 'descr'"},
        {"nokey2.npy", "{'descr': '<i4', 'shape': (1,), }", 1, 0, 0, 4, NULL, 0, "missing key 'fortran_order'"},
        {"nokey3.npy", "{'descr': '<i4', 'fortran_order': False, }", 1, 0, 0, 4, NULL, 0, "missing key 'shape'"},
        {"extrakey.npy", "{'descr': '<i4', 'fortran_order': False, 'shape': (1,), 'x': 1}", 1, 0, 0, 4, NULL, 0, "unexpected key 'x'"},
        {"dupkey.npy", "{'descr': '<i4', 'descr': '<i4', 'fortran_order': False, 'shape': (1,), }", 1, 0, 0, 4, NULL, 0, "twice"},
        {"notdict.npy", "[1, 2, 3]", 1, 0, 0, 4, NULL, 0, "malformed"},
        {"nocomma.npy", "{'descr': '<i4' 'fortran_order': False, 'shape': (1,), }", 1, 0, 0, 4, NULL, 0, "malformed"},
        {"after.npy", "{'descr': '<i4', 'fortran_order': False, 'shape': (1,), } x", 1, 0, 0, 4, NULL, 0, "malformed"},
        {"fo.npy", "{'descr': '<i4', 'fortran_order': 0, 'shape': (1,), }", 1, 0, 0, 4, NULL, 0, "fortran_order"},
        {"shape1.npy", "{'descr': '<i4', 'fortran_order': False, 'shape': (1), }", 1, 0, 0, 4, NULL, 0, "shape"},
        {"shape2.npy", "{'descr': '<i4', 'fortran_order': False, 'shape': (-1,), }", 1, 0, 0, 4, NULL, 0, "shape"},
        {"shape3.npy", "{'descr': '<i4', 'fortran_order': False, 'shape': ('a',), }", 1, 0, 0, 4, NULL, 0, "shape"},
        {"shape4.npy", "{'descr': '<i4', 'fortran_order': False, 'shape': [1], }", 1, 0, 0, 4, NULL, 0, "shape"},
        {"shape5.npy", "{'descr': '<i4', 'fortran_order': False, 'shape': (1,,), }", 1, 0, 0, 4, NULL, 0, "shape"},
        {"short_data.npy", "{'descr': '<u4', 'fortran_order': False, 'shape': (10,), }", 1, 0, 0, 39, NULL, 0, "truncated data"},
        {"no_data.npy", "{'descr': '<u4', 'fortran_order': False, 'shape': (1,), }", 1, 0, 0, 0, NULL, 0, "truncated data"},
        {"long_data.npy", "{'descr': '<u4', 'fortran_order': False, 'shape': (10,), }", 1, 0, 0, 41, NULL, 0, "1 extra"},
        {"huge1.npy", "{'descr': '<u4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296), }", 1, 0, 0, 4, NULL, 0, "huge"},
        {"huge2.npy", "{'descr': '<u1', 'fortran_order': False, 'shape': (99999999999999999999999,), }", 1, 0, 0, 4, NULL, 0, "huge"},
        {"huge3.npy", "{'descr': '<u8', 'fortran_order': False, 'shape': (2305843009213693952,), }", 1, 0, 0, 8, NULL, 0, "huge"},
        {"huge4.npy", "{'descr': '<u1', 'fortran_order': False, 'shape': (1000000000000,), }", 1, 0, 0, 8, NULL, 0, "truncated data"},
    };
    unsigned char *zeros = calloc(1, 1 << 16);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        char path[1200];
        path_in(fx, cases[i].name, path, sizeof path);
        if (cases[i].dict)
            fx_write_npy(path, cases[i].major, cases[i].minor, cases[i].dict, 1, cases[i].delta, zeros,
                         cases[i].data_bytes);
        else
            fx_write_file(path, cases[i].bytes, cases[i].nbytes);
        expect_read_error(path, ARR_FMT_AUTO, ARR_NONE, cases[i].needle);
        arr_reader_t *r = (arr_reader_t *)1;
        char err[512];
        assert_int_equal(arr_reader_open(&r, path, ARR_FMT_NPY, ARR_NONE, err, sizeof err), ARR_ERR_INPUT);
        assert_null(r);
    }
    free(zeros);
}

/* An error message has no raw control character from the file: an ESC in a
 * .npy dtype or key, or in a text line, is shown escaped (\x1b). */
static void expect_escaped(const char *path, arr_format_t fmt, arr_dtype_t t, const char *needle) {
    arr_array_t a;
    char err[512] = "";
    if (arr_read(path, fmt, t, &a, err, sizeof err) != ARR_ERR_INPUT) TFAIL("%s: read did not fail", path);
    for (const char *p = err; *p; ++p)
        if ((unsigned char)*p < 0x20 || *p == 0x7f) TFAIL("%s: raw byte 0x%02x in the message", path, (unsigned char)*p);
    if (!strstr(err, needle)) TFAIL("%s: message '%s' lacks '%s'", path, err, needle);
}

static void test_messages_escape_file_content(void **state) {
    fx_dir_t *fx = *state;
    char path[1200];
    path_in(fx, "esc.npy", path, sizeof path);
    fx_write_npy(path, 1, 0, "{'descr': '<\x1b[2Ji4', 'fortran_order': False, 'shape': (1,), }", 1, 0, "\0\0\0\0", 4);
    expect_escaped(path, ARR_FMT_AUTO, ARR_NONE, "unsupported dtype '<\\x1b[2Ji4'");
    fx_write_npy(path, 1, 0, "{'descr': '<i4', 'fortran_order': False, 'shape': (1,), 'k\x07\x1b': 1}", 1, 0, "\0\0\0\0", 4);
    expect_escaped(path, ARR_FMT_AUTO, ARR_NONE, "unexpected key 'k\\x07\\x1b'");
    path_in(fx, "esc.txt", path, sizeof path);
    fx_write_file(path, "1\n\x1b]0;title\x07\n", 13);
    expect_escaped(path, ARR_FMT_AUTO, ARR_NONE, "'\\x1b]0;title\\x07' is not a number");
    expect_escaped(path, ARR_FMT_AUTO, ARR_I32, "'\\x1b]0;title\\x07' is not a number");
    expect_escaped(path, ARR_FMT_AUTO, ARR_F32, "'\\x1b]0;title\\x07' is not a number");
    expect_escaped(path, ARR_FMT_AUTO, ARR_BOOL, "'\\x1b]0;title\\x07' is not a bool");
}

/* Not a readable regular file: missing, directory, fifo, no permission. */
static void test_not_a_file(void **state) {
    fx_dir_t *fx = *state;
    char path[1200];
    arr_format_t fmts[] = {ARR_FMT_AUTO, ARR_FMT_NPY, ARR_FMT_RAW, ARR_FMT_TEXT};
    for (int i = 0; i < 4; ++i) {
        path_in(fx, "missing.npy", path, sizeof path);
        expect_read_error(path, fmts[i], ARR_U32, "No such file");
        expect_read_error(fx->dir, fmts[i], ARR_U32, "directory");
    }
    path_in(fx, "fifo.npy", path, sizeof path);
    assert_int_equal(mkfifo(path, 0600), 0);
    expect_read_error(path, ARR_FMT_AUTO, ARR_NONE, "not a regular file");
    unlink(path);
    path_in(fx, "secret.npy", path, sizeof path);
    fx_write_file(path, "x", 1);
    chmod(path, 0);
    if (geteuid() != 0) {
        expect_read_error(path, ARR_FMT_AUTO, ARR_NONE, "Permission denied");
    } else {
        print_message("note: running as root, so the unreadable-file case cannot be provoked here\n");
    }
    arr_array_t a;
    char err[256];
    assert_int_equal(arr_read("", ARR_FMT_AUTO, ARR_NONE, &a, err, sizeof err), ARR_ERR_INPUT);
}

/* ---- raw ------------------------------------------------------------------------- */

static void test_raw_roundtrip(void **state) {
    fx_dir_t *fx = *state;
    rng_t r;
    rng_init(&r, "raw", 0);
    char path[1200], err[512];
    path_in(fx, "a.bin", path, sizeof path);
    for (size_t di = 0; di < NDT; ++di) {
        const tdt_t *d = &k_dt[di];
        size_t n = di == 1 ? 0 : (size_t)rng_below(&r, 2000) + 1;
        unsigned char *data = malloc(n * d->size + 1);
        fill_random(&r, d, data, n);
        /* Written by the test, read by the library. */
        fx_write_file(path, data, n * d->size);
        expect_read(path, ARR_FMT_AUTO, d->t, d, data, n, 0);
        /* Written by the library: native bytes, nothing else. */
        path_in(fx, "b.dat", path, sizeof path);
        if (arr_write(path, ARR_FMT_AUTO, d->t, data, n, err, sizeof err) != ARR_OK) TFAIL("arr_write: %s", err);
        size_t len;
        unsigned char *f = fx_read_file(path, &len);
        assert_int_equal(len, n * d->size);
        if (n) assert_memory_equal(f, data, len);
        free(f);
        expect_read(path, ARR_FMT_RAW, d->t, d, data, n, 0);
        /* A .npy name with the raw format forced. */
        path_in(fx, "c.npy", path, sizeof path);
        if (arr_write(path, ARR_FMT_RAW, d->t, data, n, err, sizeof err) != ARR_OK) TFAIL("arr_write: %s", err);
        expect_read(path, ARR_FMT_RAW, d->t, d, data, n, 0);
        path_in(fx, "a.bin", path, sizeof path);
        free(data);
    }
}

static void test_raw_errors(void **state) {
    fx_dir_t *fx = *state;
    char path[1200];
    path_in(fx, "seven.bin", path, sizeof path);
    fx_write_file(path, "1234567", 7);
    expect_read_error(path, ARR_FMT_AUTO, ARR_U32, "7");
    expect_read_error(path, ARR_FMT_AUTO, ARR_U32, "multiple");
    expect_read_error(path, ARR_FMT_AUTO, ARR_F64, "multiple");
    expect_read_error(path, ARR_FMT_AUTO, ARR_NONE, "--dtype");
    arr_array_t a;
    char err[512];
    assert_int_equal(arr_read(path, ARR_FMT_RAW, ARR_U8, &a, err, sizeof err), ARR_OK);
    assert_int_equal(a.count, 7);
    arr_free(&a);
    /* An empty raw file is an empty array. */
    path_in(fx, "empty.raw", path, sizeof path);
    fx_write_file(path, "", 0);
    assert_int_equal(arr_read(path, ARR_FMT_AUTO, ARR_I16, &a, err, sizeof err), ARR_OK);
    assert_int_equal(a.count, 0);
    assert_null(a.data);
    arr_free(&a);
}

/* ---- text ------------------------------------------------------------------------ */

/* The test's own text for one element (not text_format_value). */
static void own_text(const tdt_t *d, const unsigned char *p, char *buf, size_t cap) {
    switch (d->t) {
    case ARR_BOOL: snprintf(buf, cap, "%s", *p ? "true" : "0"); break;
    case ARR_I8: snprintf(buf, cap, "%d", (int)*(const int8_t *)p); break;
    case ARR_U8: snprintf(buf, cap, "+%u", (unsigned)*p); break;
    case ARR_I16: { int16_t v; memcpy(&v, p, 2); snprintf(buf, cap, "%d", v); break; }
    case ARR_U16: { uint16_t v; memcpy(&v, p, 2); snprintf(buf, cap, "%u", v); break; }
    case ARR_I32: { int32_t v; memcpy(&v, p, 4); snprintf(buf, cap, "%" PRId32, v); break; }
    case ARR_U32: { uint32_t v; memcpy(&v, p, 4); snprintf(buf, cap, "%" PRIu32, v); break; }
    case ARR_I64: { int64_t v; memcpy(&v, p, 8); snprintf(buf, cap, "%" PRId64, v); break; }
    case ARR_U64: { uint64_t v; memcpy(&v, p, 8); snprintf(buf, cap, "%" PRIu64, v); break; }
    case ARR_F16: { _Float16 v; memcpy(&v, p, 2); snprintf(buf, cap, "%.17g", (double)v); break; }
    case ARR_F32: { float v; memcpy(&v, p, 4); snprintf(buf, cap, "%.9g", (double)v); break; }
    case ARR_F64: { double v; memcpy(&v, p, 8); snprintf(buf, cap, "%.17e", v); break; }
    default: buf[0] = '\0';
    }
}

static void test_text_roundtrip(void **state) {
    fx_dir_t *fx = *state;
    rng_t r;
    rng_init(&r, "text", 0);
    char path[1200], err[512];
    for (size_t di = 0; di < NDT; ++di) {
        const tdt_t *d = &k_dt[di];
        size_t n = di == 2 ? 0 : (size_t)rng_below(&r, 1500) + 4;
        unsigned char *data = malloc(n * d->size + 1);
        fill_random(&r, d, data, n);
        /* Written by the test, with comments, blank lines, spaces and CRLF. */
        path_in(fx, "t.txt", path, sizeof path);
        FILE *f = fopen(path, "w");
        fprintf(f, "# %s values\n\n", d->name);
        for (size_t i = 0; i < n; ++i) {
            char s[64];
            own_text(d, data + i * d->size, s, sizeof s);
            fprintf(f, i % 3 == 0 ? "  %s \t\r\n" : i % 3 == 1 ? "%s # note\n" : "%s\n\n", s);
        }
        fclose(f);
        expect_read(path, ARR_FMT_AUTO, d->t, d, data, n, 1);
        /* Written by the library, read back. */
        path_in(fx, "u.csv", path, sizeof path);
        /* Bit for bit, NaN signs and payloads included (issue 21: "-nan"
           came back as "nan", so radixsort --check refused its own output). */
        if (arr_write(path, ARR_FMT_AUTO, d->t, data, n, err, sizeof err) != ARR_OK) TFAIL("arr_write: %s", err);
        expect_read(path, ARR_FMT_AUTO, d->t, d, data, n, 0);
        /* Written as text under a .bin name, read with the format forced. */
        path_in(fx, "v.bin", path, sizeof path);
        if (arr_write(path, ARR_FMT_TEXT, d->t, data, n, err, sizeof err) != ARR_OK) TFAIL("arr_write: %s", err);
        expect_read(path, ARR_FMT_TEXT, d->t, d, data, n, 0);
        free(data);
    }
}

/* The exact text written for some values. */
static void test_text_output_form(void **state) {
    fx_dir_t *fx = *state;
    char path[1200], err[512];
    path_in(fx, "o.txt", path, sizeof path);
    double d[] = {0.1, 1e300, -0.0, NAN, INFINITY, -INFINITY, 1.0, 123456789012345678.0, -2.5e-8};
    const char *dw = "0.1\n1e+300\n-0\nnan\ninf\n-inf\n1\n1.2345678901234568e+17\n-2.5e-08\n";
    assert_int_equal(arr_write(path, ARR_FMT_AUTO, ARR_F64, d, 9, err, sizeof err), ARR_OK);
    size_t len;
    char *s = (char *)fx_read_file(path, &len);
    assert_string_equal(s, dw);
    free(s);
    float f[] = {0.1f, 3.4028235e38f, 1.0f / 3.0f, 16777216.0f};
    assert_int_equal(arr_write(path, ARR_FMT_AUTO, ARR_F32, f, 4, err, sizeof err), ARR_OK);
    s = (char *)fx_read_file(path, &len);
    assert_string_equal(s, "0.1\n3.4028235e+38\n0.33333334\n16777216\n");
    free(s);
    uint16_t h[] = {0x3c00, 0x3555, 0x7bff, 0x0001};
    assert_int_equal(arr_write(path, ARR_FMT_AUTO, ARR_F16, h, 4, err, sizeof err), ARR_OK);
    s = (char *)fx_read_file(path, &len);
    assert_string_equal(s, "1\n0.3333\n6.55e+04\n6e-08\n");
    free(s);
    int64_t i[] = {INT64_MIN, INT64_MAX, 0, -1};
    assert_int_equal(arr_write(path, ARR_FMT_AUTO, ARR_I64, i, 4, err, sizeof err), ARR_OK);
    s = (char *)fx_read_file(path, &len);
    assert_string_equal(s, "-9223372036854775808\n9223372036854775807\n0\n-1\n");
    free(s);
    uint64_t u[] = {UINT64_MAX};
    assert_int_equal(arr_write(path, ARR_FMT_AUTO, ARR_U64, u, 1, err, sizeof err), ARR_OK);
    s = (char *)fx_read_file(path, &len);
    assert_string_equal(s, "18446744073709551615\n");
    free(s);
    uint8_t b[] = {0, 1, 1};
    assert_int_equal(arr_write(path, ARR_FMT_AUTO, ARR_BOOL, b, 3, err, sizeof err), ARR_OK);
    s = (char *)fx_read_file(path, &len);
    assert_string_equal(s, "0\n1\n1\n");
    free(s);
    assert_int_equal(arr_write(path, ARR_FMT_AUTO, ARR_I32, NULL, 0, err, sizeof err), ARR_OK);
    s = (char *)fx_read_file(path, &len);
    assert_int_equal(len, 0);
    free(s);
}

static void write_text(const char *path, const char *text) { fx_write_file(path, text, strlen(text)); }

/* Every NaN, infinity, zero and denormal of float16/32/64 through text and
 * back, bit for bit, and the documented NaN forms (README.md): "nan" and
 * "-nan" for the quiet NaN, "nan:0xHEX" with the fraction field otherwise. */
static void test_text_special_values_exact(void **state) {
    fx_dir_t *fx = *state;
    char path[1200], err[512];
    path_in(fx, "s.txt", path, sizeof path);
    const uint64_t d64[] = {0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff0000000000001ull,
                            0xfff4000000000abcull, 0x7fffffffffffffffull, 0x8000000000000000ull,
                            0x0000000000000001ull, 0x800fffffffffffffull, 0x7ff0000000000000ull,
                            0xfff0000000000000ull};
    const char *w64 = "nan\n-nan\nnan:0x1\n-nan:0x4000000000abc\nnan:0xfffffffffffff\n-0\n"
                      "4.94065645841247e-324\n-2.225073858507201e-308\ninf\n-inf\n";
    const uint32_t d32[] = {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xffbfffffu, 0x80000000u, 0x00000001u, 0x807fffffu};
    const char *w32 = "nan\n-nan\nnan:0x1\n-nan:0x3fffff\n-0\n1.4013e-45\n-1.1754942e-38\n";
    const uint16_t d16[] = {0x7e00u, 0xfe00u, 0x7c01u, 0xfdffu, 0x8000u, 0x0001u, 0x83ffu, 0xfc00u};
    const char *w16 = "nan\n-nan\nnan:0x1\n-nan:0x1ff\n-0\n6e-08\n-6.1e-05\n-inf\n";
    struct { arr_dtype_t t; const void *v; size_t n, size; const char *want; } cases[] = {
        {ARR_F64, d64, 10, 8, w64}, {ARR_F32, d32, 7, 4, w32}, {ARR_F16, d16, 8, 2, w16}};
    for (size_t c = 0; c < 3; ++c) {
        assert_int_equal(arr_write(path, ARR_FMT_AUTO, cases[c].t, cases[c].v, cases[c].n, err, sizeof err), ARR_OK);
        size_t len;
        char *s = (char *)fx_read_file(path, &len);
        assert_string_equal(s, cases[c].want);
        free(s);
        arr_array_t a;
        assert_int_equal(arr_read(path, ARR_FMT_AUTO, cases[c].t, &a, err, sizeof err), ARR_OK);
        assert_int_equal(a.count, cases[c].n);
        assert_memory_equal(a.data, cases[c].v, cases[c].n * cases[c].size);
        arr_free(&a);
    }
    /* Read: any case, and without a dtype a NaN form makes float64. */
    write_text(path, "NaN\n-NAN\n+nan:0X8\n");
    arr_array_t a;
    assert_int_equal(arr_read(path, ARR_FMT_AUTO, ARR_NONE, &a, err, sizeof err), ARR_OK);
    assert_int_equal(a.dtype, ARR_F64);
    const uint64_t want[] = {0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff0000000000008ull};
    assert_memory_equal(a.data, want, sizeof want);
    arr_free(&a);
    /* A payload that does not fit the type (or is zero: that is infinity),
       and malformed forms, are errors. */
    struct { const char *text; arr_dtype_t t; const char *needle; } bad[] = {
        {"nan:0x400\n", ARR_F16, "payload"},        {"nan:0x800000\n", ARR_F32, "payload"},
        {"nan:0x10000000000000\n", ARR_F64, "payload"}, {"nan:0x0\n", ARR_F64, "payload"},
        {"nan:0x\n", ARR_F64, "not a number"},      {"nan:12\n", ARR_F64, "not a number"},
        {"nan(0x1)\n", ARR_F64, "not a number"},    {"nan:0x1\n", ARR_I32, "not an integer"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        write_text(path, bad[i].text);
        expect_read_error(path, ARR_FMT_AUTO, bad[i].t, bad[i].needle);
    }
}

/* No dtype given: int64 when every line is an int64, else float64. */
static void test_text_auto_type(void **state) {
    fx_dir_t *fx = *state;
    char path[1200], err[512];
    path_in(fx, "a.txt", path, sizeof path);
    arr_array_t a;
    write_text(path, "# ints\n1\n  -2\n\n+3 # c\n9223372036854775807\r\n-9223372036854775808\n");
    assert_int_equal(arr_read(path, ARR_FMT_AUTO, ARR_NONE, &a, err, sizeof err), ARR_OK);
    assert_int_equal(a.dtype, ARR_I64);
    int64_t wi[] = {1, -2, 3, INT64_MAX, INT64_MIN};
    assert_int_equal(a.count, 5);
    assert_memory_equal(a.data, wi, sizeof wi);
    assert_int_equal(a.ndim, 1);
    assert_int_equal(a.shape[0], 5);
    assert_string_equal(a.notice, "");
    arr_free(&a);
    write_text(path, "1\n2.5\n-inf\n");
    assert_int_equal(arr_read(path, ARR_FMT_AUTO, ARR_NONE, &a, err, sizeof err), ARR_OK);
    assert_int_equal(a.dtype, ARR_F64);
    double wd[] = {1.0, 2.5, -INFINITY};
    assert_memory_equal(a.data, wd, sizeof wd);
    arr_free(&a);
    /* Beyond int64 but all non-negative integers: uint64, every value exact
       (issue 21: this used to turn the whole file into float64, so 2^53 + 1
       came back as 2^53). */
    write_text(path, "9007199254740993\n9223372036854775808\n18446744073709551615\n-0\n+7\n");
    assert_int_equal(arr_read(path, ARR_FMT_AUTO, ARR_NONE, &a, err, sizeof err), ARR_OK);
    assert_int_equal(a.dtype, ARR_U64);
    uint64_t wu[] = {9007199254740993ull, 9223372036854775808ull, UINT64_MAX, 0, 7};
    assert_int_equal(a.count, 5);
    assert_memory_equal(a.data, wu, sizeof wu);
    assert_string_equal(a.notice, "");
    arr_free(&a);
    /* Mixed: float64. An integer float64 cannot hold is changed, and the
       notice says so in one line naming the file and the first such line. */
    const char *mixed[] = {"1.5\n9007199254740993\n-9007199254740995\n",
                           "-1\n9007199254740993\n18446744073709551615\n",
                           "-nan\n9007199254740993\n"};
    for (size_t m = 0; m < sizeof mixed / sizeof mixed[0]; ++m) {
        write_text(path, mixed[m]);
        if (arr_read(path, ARR_FMT_AUTO, ARR_NONE, &a, err, sizeof err) != ARR_OK) TFAIL("file %zu: %s", m, err);
        assert_int_equal(a.dtype, ARR_F64);
        if (!strstr(a.notice, path) || !strstr(a.notice, "float64") || !strstr(a.notice, "line 2") ||
            !strstr(a.notice, "9007199254740993 became 9007199254740992") || strchr(a.notice, '\n'))
            TFAIL("file %zu: notice '%s' should name %s, float64 and line 2's 9007199254740993", m, a.notice, path);
        arr_free(&a);
    }
    /* Mixed, but every integer exact in float64: no notice. */
    write_text(path, "-1\n18446744073709551616\n0.5\n9007199254740992\n");
    assert_int_equal(arr_read(path, ARR_FMT_AUTO, ARR_NONE, &a, err, sizeof err), ARR_OK);
    assert_int_equal(a.dtype, ARR_F64);
    assert_string_equal(a.notice, "");
    assert_true(((double *)a.data)[1] == 18446744073709551616.0);
    arr_free(&a);
    /* Streaming reader: the same notice. */
    write_text(path, "0.5\n9007199254740993\n");
    arr_reader_t *rd;
    assert_int_equal(arr_reader_open(&rd, path, ARR_FMT_AUTO, ARR_NONE, err, sizeof err), ARR_OK);
    assert_non_null(strstr(arr_reader_notice(rd), "9007199254740993"));
    arr_reader_close(rd);
    write_text(path, "nan\n");
    assert_int_equal(arr_read(path, ARR_FMT_AUTO, ARR_NONE, &a, err, sizeof err), ARR_OK);
    assert_int_equal(a.dtype, ARR_F64);
    assert_true(isnan(((double *)a.data)[0]));
    arr_free(&a);
    write_text(path, "\n# only comments\n   \n");
    assert_int_equal(arr_read(path, ARR_FMT_AUTO, ARR_NONE, &a, err, sizeof err), ARR_OK);
    assert_int_equal(a.dtype, ARR_I64);
    assert_int_equal(a.count, 0);
    arr_free(&a);
    write_text(path, "");
    assert_int_equal(arr_read(path, ARR_FMT_AUTO, ARR_NONE, &a, err, sizeof err), ARR_OK);
    assert_int_equal(a.count, 0);
    arr_free(&a);
    write_text(path, "5"); /* no final newline */
    assert_int_equal(arr_read(path, ARR_FMT_AUTO, ARR_NONE, &a, err, sizeof err), ARR_OK);
    assert_int_equal(a.count, 1);
    assert_int_equal(((int64_t *)a.data)[0], 5);
    arr_free(&a);
}

static void test_text_errors(void **state) {
    fx_dir_t *fx = *state;
    char path[1200];
    path_in(fx, "e.txt", path, sizeof path);
    struct { const char *text; arr_dtype_t t; const char *needle; } cases[] = {
        {"1\n2\nabc\n", ARR_NONE, "line 3: 'abc' is not a number"},
        {"1\n\n# c\n1,2\n", ARR_NONE, "line 4"},
        {"1.5\n", ARR_I32, "line 1: '1.5' is not an integer"},
        {"1\n1e3\n", ARR_I64, "line 2: '1e3' is not an integer"},
        {"300\n", ARR_U8, "'300' is out of range for uint8"},
        {"-129\n", ARR_I8, "out of range for int8"},
        {"-1\n", ARR_U32, "'-1' is out of range for uint32"},
        {"65536\n", ARR_U16, "out of range"},
        {"2147483648\n", ARR_I32, "out of range"},
        {"18446744073709551616\n", ARR_U64, "out of range"},
        {"9223372036854775808\n", ARR_I64, "out of range"},
        {"1e40\n", ARR_F32, "out of range for float32"},
        {"1e309\n", ARR_F64, "out of range"},
        {"70000\n", ARR_F16, "out of range for float16"},
        {"0x10\n", ARR_F64, "not a number"},
        {"0x10\n", ARR_I64, "not a number"},
        {"nan(12)\n", ARR_F64, "not a number"},
        {"1 2\n", ARR_F64, "line 1"},
        {"2\n", ARR_BOOL, "not a bool"},
        {"12abc\n", ARR_U32, "not a number"},
        {"--1\n", ARR_I64, "not a number"},
        {"1\n2\0\n", ARR_NONE, "NUL"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        size_t len = strlen(cases[i].text);
        if (strstr(cases[i].needle, "NUL")) len = 5;
        fx_write_file(path, cases[i].text, len);
        expect_read_error(path, ARR_FMT_AUTO, cases[i].t, cases[i].needle);
    }
    /* Accepted edge cases. */
    arr_array_t a;
    char err[512];
    write_text(path, "-0\n+7\n");
    assert_int_equal(arr_read(path, ARR_FMT_AUTO, ARR_U32, &a, err, sizeof err), ARR_OK);
    assert_int_equal(((uint32_t *)a.data)[0], 0);
    assert_int_equal(((uint32_t *)a.data)[1], 7);
    arr_free(&a);
    write_text(path, "1e-400\nInfinity\n-NaN\n");
    assert_int_equal(arr_read(path, ARR_FMT_AUTO, ARR_F64, &a, err, sizeof err), ARR_OK);
    assert_true(((double *)a.data)[0] == 0.0);
    assert_true(isinf(((double *)a.data)[1]));
    assert_true(isnan(((double *)a.data)[2]));
    arr_free(&a);
    write_text(path, "True\nfalse\n1\n0\n");
    assert_int_equal(arr_read(path, ARR_FMT_AUTO, ARR_BOOL, &a, err, sizeof err), ARR_OK);
    assert_memory_equal(a.data, "\1\0\1\0", 4);
    arr_free(&a);
}

/* ---- streaming --------------------------------------------------------------------- */

/* Reads `path` in chunks of odd sizes and compares with `want`. */
static void read_in_chunks(const char *path, arr_format_t fmt, arr_dtype_t raw, const tdt_t *d, const void *want,
                           size_t n, int nan_loose) {
    arr_reader_t *r;
    char err[512];
    if (arr_reader_open(&r, path, fmt, raw, err, sizeof err) != ARR_OK) TFAIL("arr_reader_open: %s", err);
    assert_int_equal(arr_reader_dtype(r), d->t);
    assert_int_equal(arr_reader_format(r), arr_format_resolve(path, fmt));
    assert_true(arr_reader_format(r) != ARR_FMT_AUTO);
    assert_int_equal(arr_reader_count(r), n);
    assert_int_equal(arr_reader_ndim(r), 1);
    assert_int_equal(arr_reader_shape(r)[0], n);
    assert_string_equal(arr_reader_notice(r), "");
    unsigned char *got = malloc(n * d->size + 64);
    static const size_t chunks[] = {1, 3, 7, 2, 1000, 13, 5, 4096, 999999};
    size_t pos = 0;
    for (int c = 0;; ++c) {
        size_t k = chunks[c % (sizeof chunks / sizeof chunks[0])], m;
        assert_int_equal(arr_reader_remaining(r), n - pos);
        if (arr_reader_read(r, got + pos * d->size, k, &m, err, sizeof err) != ARR_OK) TFAIL("arr_reader_read: %s", err);
        size_t expect = n - pos < k ? n - pos : k;
        assert_int_equal(m, expect);
        pos += m;
        if (m == 0) break;
    }
    assert_int_equal(pos, n);
    expect_same(d, want, got, n, nan_loose, path);
    free(got);
    arr_reader_close(r);
}

static void test_stream_read_chunks(void **state) {
    fx_dir_t *fx = *state;
    rng_t r;
    rng_init(&r, "stream_read", 0);
    char path[1200], err[512];
    for (size_t di = 0; di < NDT; ++di) {
        const tdt_t *d = &k_dt[di];
        size_t n = (size_t)rng_below(&r, 20000) + 5000;
        unsigned char *data = malloc(n * d->size), *be = malloc(n * d->size);
        fill_random(&r, d, data, n);
        /* Big-endian .npy v2 assembled by the test. */
        memcpy(be, data, n * d->size);
        if (fx_little_endian()) fx_swap(be, n, d->size);
        char dict[256];
        dict_1d(dict, sizeof dict, d->size == 1 ? '|' : '>', d, n);
        path_in(fx, "s.npy", path, sizeof path);
        fx_write_npy(path, 2, 0, dict, 1, 0, be, n * d->size);
        read_in_chunks(path, ARR_FMT_AUTO, ARR_NONE, d, data, n, 0);
        path_in(fx, "s.raw", path, sizeof path);
        fx_write_file(path, data, n * d->size);
        read_in_chunks(path, ARR_FMT_AUTO, d->t, d, data, n, 0);
        path_in(fx, "s.txt", path, sizeof path);
        if (arr_write(path, ARR_FMT_AUTO, d->t, data, n, err, sizeof err) != ARR_OK) TFAIL("arr_write: %s", err);
        read_in_chunks(path, ARR_FMT_AUTO, d->t, d, data, n, 1);
        free(data);
        free(be);
    }
    arr_reader_close(NULL);
}

/* Streaming write in odd chunks, known and unknown counts. */
static void test_stream_write(void **state) {
    fx_dir_t *fx = *state;
    rng_t r;
    rng_init(&r, "stream_write", 0);
    char path[1200], err[512];
    arr_format_t fmts[] = {ARR_FMT_NPY, ARR_FMT_RAW, ARR_FMT_TEXT};
    for (size_t di = 0; di < NDT; ++di) {
        const tdt_t *d = &k_dt[di];
        for (int fi = 0; fi < 3; ++fi) {
            for (int unknown = 0; unknown < 2; ++unknown) {
                size_t n = (size_t)rng_below(&r, 5000) + (unknown ? 0 : 1);
                unsigned char *data = malloc(n * d->size + 1);
                fill_random(&r, d, data, n);
                path_in(fx, "w.out", path, sizeof path);
                arr_writer_t *w;
                if (arr_writer_open(&w, path, fmts[fi], d->t, unknown ? ARR_COUNT_UNKNOWN : n, err, sizeof err) != ARR_OK)
                    TFAIL("arr_writer_open: %s", err);
                size_t pos = 0;
                while (pos < n) {
                    size_t k = (size_t)rng_below(&r, 777) + 1;
                    if (k > n - pos) k = n - pos;
                    if (arr_writer_write(w, data + pos * d->size, k, err, sizeof err) != ARR_OK)
                        TFAIL("arr_writer_write: %s", err);
                    pos += k;
                    assert_int_equal(arr_writer_written(w), pos);
                }
                /* Until commit, the final name does not exist. */
                assert_int_equal(access(path, F_OK), -1);
                if (arr_writer_commit(w, err, sizeof err) != ARR_OK) TFAIL("arr_writer_commit: %s", err);
                expect_read(path, fmts[fi], d->t, d, data, n, fmts[fi] == ARR_FMT_TEXT);
                if (fmts[fi] == ARR_FMT_NPY) { /* header still numpy-shaped */
                    size_t len;
                    unsigned char *f = fx_read_file(path, &len);
                    size_t hlen = (size_t)f[8] | (size_t)f[9] << 8;
                    assert_int_equal((10 + hlen) % 64, 0);
                    assert_int_equal(f[10 + hlen - 1], '\n');
                    assert_int_equal(len, 10 + hlen + n * d->size);
                    free(f);
                }
                assert_int_equal(fx_count_entries(fx->dir, NULL, 0), 1);
                unlink(path);
                free(data);
            }
        }
    }
}

/* Abort, errors and misuse leave no file and no temporary file behind; an
 * existing file is untouched until a commit succeeds. */
static void test_atomic_write(void **state) {
    fx_dir_t *fx = *state;
    char path[1200], err[512], names[512];
    uint32_t v[4] = {1, 2, 3, 4};
    path_in(fx, "x.npy", path, sizeof path);
    arr_writer_t *w;

    assert_int_equal(arr_writer_open(&w, path, ARR_FMT_AUTO, ARR_U32, 4, err, sizeof err), ARR_OK);
    assert_int_equal(arr_writer_write(w, v, 2, err, sizeof err), ARR_OK);
    assert_int_equal(fx_count_entries(fx->dir, names, sizeof names), 1); /* the temporary file */
    arr_writer_abort(w);
    if (fx_count_entries(fx->dir, names, sizeof names) != 0) TFAIL("abort left files: %s", names);

    /* Too many elements: an error, then abort. */
    assert_int_equal(arr_writer_open(&w, path, ARR_FMT_AUTO, ARR_U32, 3, err, sizeof err), ARR_OK);
    assert_int_equal(arr_writer_write(w, v, 4, err, sizeof err), ARR_ERR_SYSTEM);
    assert_non_null(strstr(err, path));
    arr_writer_abort(w);
    assert_int_equal(fx_count_entries(fx->dir, NULL, 0), 0);

    /* Too few elements: commit fails and removes the file. */
    assert_int_equal(arr_writer_open(&w, path, ARR_FMT_AUTO, ARR_U32, 4, err, sizeof err), ARR_OK);
    assert_int_equal(arr_writer_write(w, v, 3, err, sizeof err), ARR_OK);
    assert_int_equal(arr_writer_commit(w, err, sizeof err), ARR_ERR_SYSTEM);
    assert_non_null(strstr(err, "3 of the announced 4"));
    assert_int_equal(fx_count_entries(fx->dir, NULL, 0), 0);

    /* An existing file survives an aborted rewrite, and is replaced by a commit. */
    fx_write_file(path, "old", 3);
    assert_int_equal(arr_writer_open(&w, path, ARR_FMT_AUTO, ARR_U32, 4, err, sizeof err), ARR_OK);
    assert_int_equal(arr_writer_write(w, v, 4, err, sizeof err), ARR_OK);
    arr_writer_abort(w);
    size_t len;
    unsigned char *f = fx_read_file(path, &len);
    assert_int_equal(len, 3);
    assert_memory_equal(f, "old", 3);
    free(f);
    assert_int_equal(arr_write(path, ARR_FMT_AUTO, ARR_U32, v, 4, err, sizeof err), ARR_OK);
    expect_read(path, ARR_FMT_AUTO, ARR_NONE, &k_dt[6], v, 4, 0);
    assert_int_equal(fx_count_entries(fx->dir, NULL, 0), 1);
    arr_writer_abort(NULL);

    /* Directories that do not exist or are not directories: named in the error. */
    char bad[1400];
    snprintf(bad, sizeof bad, "%s/no/such/dir/y.npy", fx->dir);
    assert_int_equal(arr_write(bad, ARR_FMT_AUTO, ARR_U32, v, 4, err, sizeof err), ARR_ERR_INPUT);
    if (!strstr(err, bad) || !strstr(err, "No such file")) TFAIL("error '%s' should name %s", err, bad);
    snprintf(bad, sizeof bad, "%s/y.npy", path); /* x.npy is a regular file */
    assert_int_equal(arr_write(bad, ARR_FMT_AUTO, ARR_U32, v, 4, err, sizeof err), ARR_ERR_INPUT);
    assert_non_null(strstr(err, bad));
    assert_int_equal(arr_write(fx->dir, ARR_FMT_NPY, ARR_U32, v, 4, err, sizeof err), ARR_ERR_INPUT);
    assert_non_null(strstr(err, "directory"));
    if (geteuid() != 0) {
        char ro[1200];
        snprintf(ro, sizeof ro, "%s/ro", fx->dir);
        assert_int_equal(mkdir(ro, 0500), 0);
        snprintf(bad, sizeof bad, "%s/z.npy", ro);
        assert_int_equal(arr_write(bad, ARR_FMT_AUTO, ARR_U32, v, 4, err, sizeof err), ARR_ERR_INPUT);
        if (!strstr(err, bad) || !strstr(err, "Permission denied")) TFAIL("error '%s'", err);
        rmdir(ro);
    } else {
        print_message("note: running as root, so the read-only-directory case cannot be provoked here\n");
    }
    /* Misuse: no dtype, unknown-length .npy on stdout, no data. */
    assert_int_equal(arr_writer_open(&w, path, ARR_FMT_AUTO, ARR_NONE, 4, err, sizeof err), ARR_ERR_SYSTEM);
    assert_null(w);
    assert_int_equal(arr_writer_open(&w, "-", ARR_FMT_NPY, ARR_U8, ARR_COUNT_UNKNOWN, err, sizeof err), ARR_ERR_SYSTEM);
    assert_int_equal(arr_write(path, ARR_FMT_AUTO, ARR_U32, NULL, 4, err, sizeof err), ARR_ERR_SYSTEM);
    assert_int_equal(fx_count_entries(fx->dir, names, sizeof names), 1);
}

/* Programs refuse to overwrite their input: app_same_file on array files. */
/* Array output to a FIFO goes through it; to a full device (a private node
 * of /dev/full's kind) it fails as an I/O error (exit 2 in the programs), and
 * the device stays a device (issue 21). */
static void test_write_non_regular(void **state) {
    fx_dir_t *fx = *state;
    char path[1200], err[512];
    struct stat st, before;
    path_in(fx, "out.fifo", path, sizeof path);
    assert_int_equal(mkfifo(path, 0600), 0);
    int rfd = open(path, O_RDONLY | O_NONBLOCK);
    assert_true(rfd >= 0);
    const int32_t v[3] = {3, -1, 7};
    if (arr_write(path, ARR_FMT_TEXT, ARR_I32, v, 3, err, sizeof err) != ARR_OK) TFAIL("arr_write(fifo): %s", err);
    char got[32] = "";
    ssize_t n = read(rfd, got, sizeof got - 1);
    close(rfd);
    if (n != 7 || strcmp(got, "3\n-1\n7\n") != 0) TFAIL("the FIFO's reader got '%s'", got);
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    /* A private node of /dev/full's kind (1, 7), so a regression that
     * replaced it could not harm the machine's /dev/full; making one needs
     * root (CI runs as root). */
    char full[1200];
    path_in(fx, "full", full, sizeof full);
    if (mknod(full, S_IFCHR | 0666, makedev(1, 7)) != 0 || stat(full, &before) != 0) {
        print_message("note: cannot make a device node here (not root?); the full-device case is skipped\n");
        return;
    }
    const arr_format_t fmts[] = {ARR_FMT_NPY, ARR_FMT_RAW, ARR_FMT_TEXT};
    for (int i = 0; i < 3; ++i) {
        err[0] = '\0';
        arr_status_t s = arr_write(full, fmts[i], ARR_I32, v, 3, err, sizeof err);
        if (s != ARR_ERR_SYSTEM || !strstr(err, full) || !strstr(err, "No space left"))
            TFAIL("arr_write(full device, %s) gave %d '%s', expected ARR_ERR_SYSTEM and ENOSPC", arr_format_name(fmts[i]),
                  (int)s, err);
        assert_int_equal(lstat(full, &st), 0);
        if (!S_ISCHR(st.st_mode) || st.st_rdev != before.st_rdev) TFAIL("the full device was replaced");
    }
}

static void test_same_file(void **state) {
    fx_dir_t *fx = *state;
    char a[1200], b[1200], alias[1400], link_path[1200];
    path_in(fx, "a.npy", a, sizeof a);
    path_in(fx, "b.npy", b, sizeof b);
    fx_write_file(a, "a", 1);
    fx_write_file(b, "a", 1);
    snprintf(alias, sizeof alias, "%s/./a.npy", fx->dir);
    path_in(fx, "hard.npy", link_path, sizeof link_path);
    assert_int_equal(link(a, link_path), 0);
    assert_int_equal(app_same_file(a, a), 1);
    assert_int_equal(app_same_file(a, alias), 1);
    assert_int_equal(app_same_file(a, link_path), 1);
    assert_int_equal(app_same_file(a, b), 0);
    path_in(fx, "missing.npy", link_path, sizeof link_path);
    assert_int_equal(app_same_file(a, link_path), 0);
    assert_int_equal(app_same_file(link_path, link_path), 0);
    assert_int_equal(app_same_file("-", "-"), 0);
}

int main(void) {
    test_begin("test_array_io");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dtype_names),
        cmocka_unit_test(test_format_names),
        cmocka_unit_test(test_f16_conversion),
        cmocka_unit_test_setup_teardown(test_npy_roundtrip_all, fx_dir_setup, fx_dir_teardown),
        cmocka_unit_test_setup_teardown(test_npy_header_variants, fx_dir_setup, fx_dir_teardown),
        cmocka_unit_test_setup_teardown(test_npy_nul_padding, fx_dir_setup, fx_dir_teardown),
        cmocka_unit_test_setup_teardown(test_npy_nd_notice, fx_dir_setup, fx_dir_teardown),
        cmocka_unit_test_setup_teardown(test_npy_write_format, fx_dir_setup, fx_dir_teardown),
        cmocka_unit_test_setup_teardown(test_npy_malformed, fx_dir_setup, fx_dir_teardown),
        cmocka_unit_test_setup_teardown(test_messages_escape_file_content, fx_dir_setup, fx_dir_teardown),
        cmocka_unit_test_setup_teardown(test_not_a_file, fx_dir_setup, fx_dir_teardown),
        cmocka_unit_test_setup_teardown(test_raw_roundtrip, fx_dir_setup, fx_dir_teardown),
        cmocka_unit_test_setup_teardown(test_raw_errors, fx_dir_setup, fx_dir_teardown),
        cmocka_unit_test_setup_teardown(test_text_roundtrip, fx_dir_setup, fx_dir_teardown),
        cmocka_unit_test_setup_teardown(test_text_output_form, fx_dir_setup, fx_dir_teardown),
        cmocka_unit_test_setup_teardown(test_text_special_values_exact, fx_dir_setup, fx_dir_teardown),
        cmocka_unit_test_setup_teardown(test_text_auto_type, fx_dir_setup, fx_dir_teardown),
        cmocka_unit_test_setup_teardown(test_text_errors, fx_dir_setup, fx_dir_teardown),
        cmocka_unit_test_setup_teardown(test_stream_read_chunks, fx_dir_setup, fx_dir_teardown),
        cmocka_unit_test_setup_teardown(test_stream_write, fx_dir_setup, fx_dir_teardown),
        cmocka_unit_test_setup_teardown(test_atomic_write, fx_dir_setup, fx_dir_teardown),
        cmocka_unit_test_setup_teardown(test_write_non_regular, fx_dir_setup, fx_dir_teardown),
        cmocka_unit_test_setup_teardown(test_same_file, fx_dir_setup, fx_dir_teardown),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    return test_exit_code(failed);
}
