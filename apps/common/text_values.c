/* text_values.c -- one number of a text array file: strict parsing for a
 * given element type, type detection, and formatting that reads back to the
 * same value. */
#define _POSIX_C_SOURCE 200809L
#include "array_io_internal.h"
#include "common/cli.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* "[sign]digits" and nothing else. */
static int is_int_token(const char *s, int *neg) {
    const char *p = s;
    *neg = 0;
    if (*p == '+' || *p == '-') *neg = (*p++ == '-');
    if (!isdigit((unsigned char)*p)) return 0;
    while (isdigit((unsigned char)*p)) ++p;
    return *p == '\0';
}

/* A decimal float token as strtod reads it, whole string consumed; hex floats
 * and "nan(...)" refused (not what one number per line means here). NaN is
 * parsed by parse_nan() instead, with its sign and payload. */
static int float_token_ok(const char *s) {
    const char *p = s + (s[0] == '+' || s[0] == '-');
    if (!*s || (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) || strchr(p, '(')) return 0;
    return 1;
}

/* The text form of a NaN (README.md, "Text files"): "nan" or "-nan" for the
 * quiet NaN with no other payload bit (what numpy and C produce), else
 * "nan:0xHEX" / "-nan:0xHEX" with the whole fraction field in hex; "nan" in
 * any case. On a match returns 1 with the sign and the fraction field
 * (*has_frac = 0 for the plain form, which means the quiet bit alone).
 * 0 when tok is not of that form. */
static int parse_nan(const char *tok, int *neg, uint64_t *frac, int *has_frac) {
    const char *p = tok;
    *neg = 0;
    if (*p == '+' || *p == '-') *neg = (*p++ == '-');
    if (tolower((unsigned char)p[0]) != 'n' || tolower((unsigned char)p[1]) != 'a' ||
        tolower((unsigned char)p[2]) != 'n')
        return 0;
    p += 3;
    *frac = 0;
    *has_frac = 0;
    if (*p == '\0') return 1;
    if (p[0] != ':' || p[1] != '0' || (p[2] != 'x' && p[2] != 'X')) return 0;
    p += 3;
    int digits = 0;
    for (; *p; ++p, ++digits) {
        int c = tolower((unsigned char)*p), v;
        if (c >= '0' && c <= '9') v = c - '0';
        else if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
        else return 0;
        if (digits >= 16) return 0; /* wider than any fraction field */
        *frac = *frac << 4 | (uint64_t)v;
    }
    if (digits == 0) return 0;
    *has_frac = 1;
    return 1;
}

/* "[sign]digits" as a decimal integer, with its magnitude printed exactly by
 * "%.0f" of the double nearest to it: 1 when the double is that integer. */
static int int_token_exact_in_f64(const char *tok) {
    const char *d = tok + (tok[0] == '+' || tok[0] == '-');
    while (d[0] == '0' && d[1]) ++d; /* "007" is 7 */
    if (strlen(d) > 330) return 0;   /* beyond any finite double's integer digits */
    double v = strtod(tok, NULL);
    char buf[400];
    snprintf(buf, sizeof buf, "%.0f", fabs(v)); /* exact: glibc prints every digit of a double */
    return strcmp(buf, d) == 0;
}

int text_classify(const char *tok) {
    int neg, nneg, has;
    uint64_t frac;
    if (is_int_token(tok, &neg)) {
        errno = 0;
        (void)strtoll(tok, NULL, 10);
        if (errno != ERANGE) return TEXT_CLASS_I64;
        errno = 0;
        (void)strtoull(tok, NULL, 10);
        /* strtoull would wrap "-5" around; only non-negative ones are uint64. */
        if (!neg && errno != ERANGE) return TEXT_CLASS_U64;
        return TEXT_CLASS_BIG_INT;
    }
    if (parse_nan(tok, &nneg, &frac, &has)) return TEXT_CLASS_FLOAT;
    if (!float_token_ok(tok)) return TEXT_CLASS_NONE;
    char *end;
    (void)strtod(tok, &end);
    return (end != tok && *end == '\0') ? TEXT_CLASS_FLOAT : TEXT_CLASS_NONE;
}

int text_int_negative(const char *tok) {
    int neg;
    if (!is_int_token(tok, &neg) || !neg) return 0;
    for (const char *p = tok + 1; *p; ++p)
        if (*p != '0') return 1; /* "-0" is zero, which uint64 holds */
    return 0;
}

int text_int_exact_in_f64(const char *tok) {
    int neg;
    return is_int_token(tok, &neg) ? int_token_exact_in_f64(tok) : 1;
}

static int strcasecmp_ascii(const char *a, const char *b) {
    for (;; ++a, ++b) {
        int ca = tolower((unsigned char)*a), cb = tolower((unsigned char)*b);
        if (ca != cb || !ca) return ca - cb;
    }
}

/* A token quoted in a message: escaped (it is file content, see app_escape)
 * and clipped, so a long or hostile line cannot flood the terminal. */
#define QTOK_CAP 64
#define QTOK(tok) app_escape((tok), SIZE_MAX, (char[QTOK_CAP]){0}, QTOK_CAP)

static int why_set(char *why, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int why_set(char *why, size_t n, const char *fmt, ...) {
    if (why && n) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static int parse_signed(const char *tok, int64_t lo, int64_t hi, arr_dtype_t t, int64_t *v, char *why, size_t n) {
    int neg;
    if (!is_int_token(tok, &neg)) {
        if (text_classify(tok)) return why_set(why, n, "'%s' is not an integer (reading %s)", QTOK(tok), arr_dtype_name(t));
        return why_set(why, n, "'%s' is not a number", QTOK(tok));
    }
    errno = 0;
    long long x = strtoll(tok, NULL, 10);
    if (errno == ERANGE || x < lo || x > hi)
        return why_set(why, n, "'%s' is out of range for %s [%" PRId64 ", %" PRId64 "]", QTOK(tok), arr_dtype_name(t), lo, hi);
    *v = x;
    return 0;
}

static int parse_unsigned(const char *tok, uint64_t hi, arr_dtype_t t, uint64_t *v, char *why, size_t n) {
    int neg;
    if (!is_int_token(tok, &neg)) {
        if (text_classify(tok)) return why_set(why, n, "'%s' is not an integer (reading %s)", QTOK(tok), arr_dtype_name(t));
        return why_set(why, n, "'%s' is not a number", QTOK(tok));
    }
    errno = 0;
    unsigned long long x = strtoull(tok, NULL, 10);
    /* strtoull accepts "-1" (wrapping); "-0" is zero and fine. */
    if (errno == ERANGE || x > hi || (neg && x != 0))
        return why_set(why, n, "'%s' is out of range for %s [0, %" PRIu64 "]", QTOK(tok), arr_dtype_name(t), hi);
    *v = x;
    return 0;
}

int text_parse_value(const char *tok, arr_dtype_t t, void *dst, char *why, size_t n) {
    int64_t s;
    uint64_t u;
    switch (t) {
    case ARR_BOOL: {
        uint8_t b;
        if (strcmp(tok, "0") == 0 || strcasecmp_ascii(tok, "false") == 0) b = 0;
        else if (strcmp(tok, "1") == 0 || strcasecmp_ascii(tok, "true") == 0) b = 1;
        else return why_set(why, n, "'%s' is not a bool (0, 1, true or false)", QTOK(tok));
        memcpy(dst, &b, 1);
        return 0;
    }
    case ARR_I8:
        if (parse_signed(tok, INT8_MIN, INT8_MAX, t, &s, why, n)) return -1;
        *(int8_t *)dst = (int8_t)s;
        return 0;
    case ARR_I16:
        if (parse_signed(tok, INT16_MIN, INT16_MAX, t, &s, why, n)) return -1;
        { int16_t v = (int16_t)s; memcpy(dst, &v, sizeof v); }
        return 0;
    case ARR_I32:
        if (parse_signed(tok, INT32_MIN, INT32_MAX, t, &s, why, n)) return -1;
        { int32_t v = (int32_t)s; memcpy(dst, &v, sizeof v); }
        return 0;
    case ARR_I64:
        if (parse_signed(tok, INT64_MIN, INT64_MAX, t, &s, why, n)) return -1;
        memcpy(dst, &s, sizeof s);
        return 0;
    case ARR_U8:
        if (parse_unsigned(tok, UINT8_MAX, t, &u, why, n)) return -1;
        *(uint8_t *)dst = (uint8_t)u;
        return 0;
    case ARR_U16:
        if (parse_unsigned(tok, UINT16_MAX, t, &u, why, n)) return -1;
        { uint16_t v = (uint16_t)u; memcpy(dst, &v, sizeof v); }
        return 0;
    case ARR_U32:
        if (parse_unsigned(tok, UINT32_MAX, t, &u, why, n)) return -1;
        { uint32_t v = (uint32_t)u; memcpy(dst, &v, sizeof v); }
        return 0;
    case ARR_U64:
        if (parse_unsigned(tok, UINT64_MAX, t, &u, why, n)) return -1;
        memcpy(dst, &u, sizeof u);
        return 0;
    case ARR_F16:
    case ARR_F32:
    case ARR_F64: {
        char *end;
        int nneg, has;
        uint64_t frac;
        if (parse_nan(tok, &nneg, &frac, &has)) {
            /* Bits set directly: strtod's NaN would lose the sign on some
               libcs and any payload everywhere. */
            const int fbits = t == ARR_F16 ? 10 : t == ARR_F32 ? 23 : 52;
            const uint64_t quiet = (uint64_t)1 << (fbits - 1), mask = ((uint64_t)1 << fbits) - 1;
            if (!has) frac = quiet;
            if (frac == 0 || frac > mask)
                return why_set(why, n, "'%s' is not a NaN of %s (its payload must be 0x1..0x%" PRIx64 ")", QTOK(tok),
                               arr_dtype_name(t), mask);
            if (t == ARR_F16) {
                uint16_t h = (uint16_t)((nneg ? 0x8000u : 0u) | 0x7c00u | (unsigned)frac);
                memcpy(dst, &h, sizeof h);
            } else if (t == ARR_F32) {
                uint32_t b = (nneg ? 0x80000000u : 0u) | 0x7f800000u | (uint32_t)frac;
                memcpy(dst, &b, sizeof b);
            } else {
                uint64_t b = (nneg ? (uint64_t)1 << 63 : 0) | (uint64_t)0x7ff << 52 | frac;
                memcpy(dst, &b, sizeof b);
            }
            return 0;
        }
        if (!float_token_ok(tok)) return why_set(why, n, "'%s' is not a number", QTOK(tok));
        errno = 0;
        if (t == ARR_F32) {
            float v = strtof(tok, &end); /* correctly rounded, no double rounding */
            if (end == tok || *end) return why_set(why, n, "'%s' is not a number", QTOK(tok));
            if (errno == ERANGE && isinf(v)) return why_set(why, n, "'%s' is out of range for float32", QTOK(tok));
            memcpy(dst, &v, sizeof v);
            return 0;
        }
        double v = strtod(tok, &end);
        if (end == tok || *end) return why_set(why, n, "'%s' is not a number", QTOK(tok));
        if (errno == ERANGE && isinf(v)) return why_set(why, n, "'%s' is out of range for %s", QTOK(tok), arr_dtype_name(t));
        if (t == ARR_F64) {
            memcpy(dst, &v, sizeof v);
            return 0;
        }
        uint16_t h = arr_f64_to_f16(v);
        if (isfinite(v) && (h & 0x7c00) == 0x7c00) return why_set(why, n, "'%s' is out of range for float16", QTOK(tok));
        memcpy(dst, &h, sizeof h);
        return 0;
    }
    default:
        return why_set(why, n, "no element type given");
    }
}

/* A NaN of a type whose fraction field holds `frac` (quiet bit `quiet`):
 * the form parse_nan() reads back to the same bits. */
static size_t fmt_nan(int neg, uint64_t frac, uint64_t quiet, char *buf, size_t cap) {
    int len = frac == quiet ? snprintf(buf, cap, "%snan", neg ? "-" : "")
                            : snprintf(buf, cap, "%snan:0x%" PRIx64, neg ? "-" : "", frac);
    return len < 0 ? 0 : (size_t)len;
}

/* Shortest %.<p>g with p in [lo, hi] that reads back to v in the type of
 * `which` bits. NaNs are formatted by the caller (from their bits). */
static size_t fmt_float(double v, int lo, int hi, int which, char *buf, size_t cap) {
    if (isinf(v)) return (size_t)snprintf(buf, cap, v < 0 ? "-inf" : "inf");
    int len = 0;
    for (int p = lo; p <= hi; ++p) {
        len = snprintf(buf, cap, "%.*g", p, v);
        int same;
        if (which == 16) same = arr_f64_to_f16(strtod(buf, NULL)) == arr_f64_to_f16(v);
        else if (which == 32) same = strtof(buf, NULL) == (float)v;
        else same = strtod(buf, NULL) == v;
        /* -0.0 == 0.0 numerically; the sign is printed by %g anyway. */
        if (same) break;
    }
    return len < 0 ? 0 : (size_t)len;
}

size_t text_format_value(const void *src, arr_dtype_t t, char *buf, size_t cap) {
    switch (t) {
    case ARR_BOOL: return (size_t)snprintf(buf, cap, "%d", *(const uint8_t *)src ? 1 : 0);
    case ARR_I8: return (size_t)snprintf(buf, cap, "%d", (int)*(const int8_t *)src);
    case ARR_U8: return (size_t)snprintf(buf, cap, "%u", (unsigned)*(const uint8_t *)src);
    case ARR_I16: { int16_t v; memcpy(&v, src, sizeof v); return (size_t)snprintf(buf, cap, "%d", (int)v); }
    case ARR_U16: { uint16_t v; memcpy(&v, src, sizeof v); return (size_t)snprintf(buf, cap, "%u", (unsigned)v); }
    case ARR_I32: { int32_t v; memcpy(&v, src, sizeof v); return (size_t)snprintf(buf, cap, "%" PRId32, v); }
    case ARR_U32: { uint32_t v; memcpy(&v, src, sizeof v); return (size_t)snprintf(buf, cap, "%" PRIu32, v); }
    case ARR_I64: { int64_t v; memcpy(&v, src, sizeof v); return (size_t)snprintf(buf, cap, "%" PRId64, v); }
    case ARR_U64: { uint64_t v; memcpy(&v, src, sizeof v); return (size_t)snprintf(buf, cap, "%" PRIu64, v); }
    case ARR_F16: {
        uint16_t h;
        memcpy(&h, src, sizeof h);
        if ((h & 0x7c00u) == 0x7c00u && (h & 0x3ffu)) return fmt_nan(h >> 15, h & 0x3ffu, 0x200u, buf, cap);
        return fmt_float(arr_f16_to_f64(h), 1, 5, 16, buf, cap);
    }
    case ARR_F32: {
        float v;
        uint32_t b;
        memcpy(&v, src, sizeof v);
        memcpy(&b, src, sizeof b);
        if (isnan(v)) return fmt_nan((int)(b >> 31), b & 0x7fffffu, 0x400000u, buf, cap);
        return fmt_float((double)v, 6, 9, 32, buf, cap);
    }
    case ARR_F64: {
        double v;
        uint64_t b;
        memcpy(&v, src, sizeof v);
        memcpy(&b, src, sizeof b);
        if (isnan(v)) return fmt_nan((int)(b >> 63), b & 0xfffffffffffffu, (uint64_t)1 << 51, buf, cap);
        return fmt_float(v, 15, 17, 64, buf, cap);
    }
    default: return 0;
    }
}
