/* dtype.c -- element types, format names and binary16 conversion (array_io.h). */
#include "common/array_io.h"

#include <ctype.h>
#include <math.h>
#include <string.h>

static const struct {
    const char *name;
    size_t size;
} k_types[ARR_DTYPE_COUNT] = {
    [ARR_NONE] = {"none", 0},     [ARR_BOOL] = {"bool", 1},       [ARR_I8] = {"int8", 1},
    [ARR_U8] = {"uint8", 1},      [ARR_I16] = {"int16", 2},       [ARR_U16] = {"uint16", 2},
    [ARR_I32] = {"int32", 4},     [ARR_U32] = {"uint32", 4},      [ARR_I64] = {"int64", 8},
    [ARR_U64] = {"uint64", 8},    [ARR_F16] = {"float16", 2},     [ARR_F32] = {"float32", 4},
    [ARR_F64] = {"float64", 8},
};

static int valid(arr_dtype_t t) { return (int)t >= 0 && (int)t < ARR_DTYPE_COUNT; }

size_t arr_dtype_size(arr_dtype_t t) { return valid(t) ? k_types[t].size : 0; }

const char *arr_dtype_name(arr_dtype_t t) { return valid(t) ? k_types[t].name : "?"; }

const char *arr_dtype_list(void) {
    return "bool, int8, uint8, int16, uint16, int32, uint32, int64, uint64, float16, float32, float64";
}

static const struct {
    const char *alias;
    arr_dtype_t t;
} k_aliases[] = {
    {"b1", ARR_BOOL},   {"?", ARR_BOOL},
    {"i1", ARR_I8},     {"u1", ARR_U8},      {"i16", ARR_I16},    {"u16", ARR_U16},
    {"i2", ARR_I16},    {"u2", ARR_U16},     {"i32", ARR_I32},    {"u32", ARR_U32},
    {"i4", ARR_I32},    {"u4", ARR_U32},     {"i64", ARR_I64},    {"u64", ARR_U64},
    {"f16", ARR_F16},   {"f2", ARR_F16},     {"half", ARR_F16},   {"f32", ARR_F32},
    {"f4", ARR_F32},    {"float", ARR_F32},  {"f64", ARR_F64},    {"f8", ARR_F64},
    {"double", ARR_F64},
};

int arr_dtype_parse(const char *s, arr_dtype_t *out) {
    if (!s) return -1;
    char low[16];
    size_t n = strlen(s);
    if (n == 0 || n >= sizeof low) return -1;
    for (size_t i = 0; i <= n; ++i) low[i] = (char)tolower((unsigned char)s[i]);
    for (int t = ARR_BOOL; t < ARR_DTYPE_COUNT; ++t)
        if (strcmp(low, k_types[t].name) == 0) {
            *out = (arr_dtype_t)t;
            return 0;
        }
    for (size_t i = 0; i < sizeof k_aliases / sizeof k_aliases[0]; ++i)
        if (strcmp(low, k_aliases[i].alias) == 0) {
            *out = k_aliases[i].t;
            return 0;
        }
    return -1;
}

bool arr_dtype_is_float(arr_dtype_t t) { return t == ARR_F16 || t == ARR_F32 || t == ARR_F64; }

bool arr_dtype_is_signed(arr_dtype_t t) {
    return t == ARR_I8 || t == ARR_I16 || t == ARR_I32 || t == ARR_I64 || arr_dtype_is_float(t);
}

bool arr_dtype_is_integer(arr_dtype_t t) { return t >= ARR_BOOL && t <= ARR_U64; }

/* ---- formats -------------------------------------------------------------- */

int arr_format_parse(const char *s, arr_format_t *out) {
    if (!s) return -1;
    static const char *names[] = {"auto", "npy", "raw", "text"};
    for (int i = 0; i < 4; ++i) {
        size_t n = strlen(names[i]);
        if (strlen(s) != n) continue;
        size_t j = 0;
        while (j < n && tolower((unsigned char)s[j]) == names[i][j]) ++j;
        if (j == n) {
            *out = (arr_format_t)i;
            return 0;
        }
    }
    return -1;
}

const char *arr_format_name(arr_format_t f) {
    switch (f) {
    case ARR_FMT_AUTO: return "auto";
    case ARR_FMT_NPY: return "npy";
    case ARR_FMT_RAW: return "raw";
    case ARR_FMT_TEXT: return "text";
    }
    return "?";
}

static int ext_is(const char *ext, const char *want) {
    size_t n = strlen(want);
    if (strlen(ext) != n) return 0;
    for (size_t i = 0; i < n; ++i)
        if (tolower((unsigned char)ext[i]) != want[i]) return 0;
    return 1;
}

arr_format_t arr_format_from_path(const char *path) {
    if (!path) return ARR_FMT_RAW;
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    if (!dot || dot == base) return ARR_FMT_RAW; /* no extension, or a dot file */
    const char *ext = dot + 1;
    if (ext_is(ext, "npy")) return ARR_FMT_NPY;
    if (ext_is(ext, "txt") || ext_is(ext, "csv") || ext_is(ext, "text")) return ARR_FMT_TEXT;
    return ARR_FMT_RAW;
}

arr_format_t arr_format_resolve(const char *path, arr_format_t f) {
    return f == ARR_FMT_AUTO ? arr_format_from_path(path) : f;
}

/* ---- binary16 ------------------------------------------------------------- */

double arr_f16_to_f64(uint16_t h) {
    int sign = h >> 15, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    double v;
    if (exp == 0) v = ldexp((double)man, -24); /* zero or subnormal */
    else if (exp == 31) v = man ? NAN : INFINITY;
    else v = ldexp((double)(man | 0x400), exp - 25);
    return sign ? -v : v;
}

uint16_t arr_f64_to_f16(double d) {
    uint16_t sign = signbit(d) ? 0x8000 : 0;
    if (isnan(d)) return 0x7e00;
    double a = fabs(d);
    if (isinf(a)) return sign | 0x7c00;
    /* Scale so the kept bits are the integer part, then round half to even
       with rint (the default rounding mode is to nearest even). */
    if (a < ldexp(1.0, -14)) { /* subnormal range: units of 2^-24 */
        double m = rint(ldexp(a, 24));
        return sign | (uint16_t)m; /* m == 1024 is the smallest normal: bits fit */
    }
    int e;
    frexp(a, &e); /* a = f * 2^e, f in [0.5, 1) */
    int exp = e - 1; /* a in [2^exp, 2^(exp+1)) */
    double m = rint(ldexp(a, 10 - exp)); /* 1024 .. 2048 */
    if (m >= 2048.0) {
        m /= 2.0;
        ++exp;
    }
    if (exp > 15) return sign | 0x7c00;
    return sign | (uint16_t)((exp + 15) << 10) | (uint16_t)((int)m - 1024);
}
