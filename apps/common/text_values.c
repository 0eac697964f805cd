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
 * and "nan(...)" refused (not what one number per line means here). */
static int float_token_ok(const char *s) {
    const char *p = s + (s[0] == '+' || s[0] == '-');
    if (!*s || (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) || strchr(p, '(')) return 0;
    return 1;
}

int text_classify(const char *tok) {
    int neg;
    if (is_int_token(tok, &neg)) {
        errno = 0;
        (void)strtoll(tok, NULL, 10);
        if (errno != ERANGE) return 1;
    }
    if (!float_token_ok(tok)) return 0;
    char *end;
    (void)strtod(tok, &end);
    return (end != tok && *end == '\0') ? 2 : 0;
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

/* Shortest %.<p>g with p in [lo, hi] that reads back to v in the type of
 * `which` bits. */
static size_t fmt_float(double v, int lo, int hi, int which, char *buf, size_t cap) {
    if (isnan(v)) return (size_t)snprintf(buf, cap, "nan");
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
    case ARR_F16: { uint16_t h; memcpy(&h, src, sizeof h); return fmt_float(arr_f16_to_f64(h), 1, 5, 16, buf, cap); }
    case ARR_F32: { float v; memcpy(&v, src, sizeof v); return fmt_float((double)v, 6, 9, 32, buf, cap); }
    case ARR_F64: { double v; memcpy(&v, src, sizeof v); return fmt_float(v, 15, 17, 64, buf, cap); }
    default: return 0;
    }
}
