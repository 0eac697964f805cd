/* npy.c -- the .npy header: parse (v1.0/2.0/3.0, any byte order, the dict as
 * Python writes it) and build (what numpy.save writes for a 1-D array).
 * Format reference: numpy's "NPY format" specification (numpy.lib.format). */
#define _POSIX_C_SOURCE 200809L
#include "array_io_internal.h"
#include "common/cli.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const unsigned char k_magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

/* Headers longer than this are not numpy's; refusing them bounds the malloc. */
#define NPY_HEADER_MAX (16u << 20)

int arr_host_little_endian(void) {
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

void arr_swap_bytes(void *data, size_t count, size_t size) {
    unsigned char *p = data;
    if (size < 2) return;
    for (size_t i = 0; i < count; ++i, p += size)
        for (size_t a = 0, b = size - 1; a < b; ++a, --b) {
            unsigned char t = p[a];
            p[a] = p[b];
            p[b] = t;
        }
}


/* ---- the header dict: a tiny parser for the Python literal ----------------- */

typedef struct {
    const char *p, *end;
} cursor_t;

static void skip_ws(cursor_t *c) {
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')) ++c->p;
}

static int accept(cursor_t *c, char ch) {
    skip_ws(c);
    if (c->p < c->end && *c->p == ch) {
        ++c->p;
        return 1;
    }
    return 0;
}

/* A quoted string ('...' or "...", no escapes needed for numpy's keys and
 * dtype strings) copied into out. Returns 0, or -1. */
static int parse_string(cursor_t *c, char *out, size_t cap) {
    skip_ws(c);
    if (c->p >= c->end || (*c->p != '\'' && *c->p != '"')) return -1;
    char q = *c->p++;
    size_t n = 0;
    while (c->p < c->end && *c->p != q) {
        if (*c->p == '\\' || n + 1 >= cap) return -1;
        out[n++] = *c->p++;
    }
    if (c->p >= c->end) return -1;
    ++c->p;
    out[n] = '\0';
    return 0;
}

static int parse_word(cursor_t *c, const char *w) {
    skip_ws(c);
    size_t n = strlen(w);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, w, n) != 0) return 0;
    const char *after = c->p + n;
    if (after < c->end && (isalnum((unsigned char)*after) || *after == '_')) return 0;
    c->p = after;
    return 1;
}

/* The descr string: optional byte-order character, kind, size in bytes. */
static int parse_descr(const char *d, arr_dtype_t *t, bool *swap) {
    char order = '=';
    if (*d == '<' || *d == '>' || *d == '|' || *d == '=') order = *d++;
    if (*d == '\0') return -1;
    char kind = *d++;
    if (!isdigit((unsigned char)*d)) return -1;
    char *end;
    errno = 0;
    unsigned long size = strtoul(d, &end, 10);
    if (*end != '\0' || errno) return -1;
    arr_dtype_t r = ARR_NONE;
    switch (kind) {
    case 'b': r = size == 1 ? ARR_BOOL : ARR_NONE; break;
    case 'i': r = size == 1 ? ARR_I8 : size == 2 ? ARR_I16 : size == 4 ? ARR_I32 : size == 8 ? ARR_I64 : ARR_NONE; break;
    case 'u': r = size == 1 ? ARR_U8 : size == 2 ? ARR_U16 : size == 4 ? ARR_U32 : size == 8 ? ARR_U64 : ARR_NONE; break;
    case 'f': r = size == 2 ? ARR_F16 : size == 4 ? ARR_F32 : size == 8 ? ARR_F64 : ARR_NONE; break;
    default: break;
    }
    if (r == ARR_NONE) return -1;
    bool little = arr_host_little_endian();
    *swap = size > 1 && ((order == '<' && !little) || (order == '>' && little));
    *t = r;
    return 0;
}

/* "(a, b, c)", "(n,)", "()" -- non-negative integers, optional trailing
 * comma, Python 2's "L" suffix tolerated. Returns 0, -1 (syntax) or -2 (a
 * dimension beyond size_t, or too many dimensions). */
static int parse_shape(cursor_t *c, npy_header_t *h) {
    if (!accept(c, '(')) return -1;
    h->ndim = 0;
    bool last_comma = false;
    for (;;) {
        if (accept(c, ')')) break;
        skip_ws(c);
        if (c->p >= c->end || !isdigit((unsigned char)*c->p)) return -1;
        size_t v = 0;
        int overflow = 0;
        while (c->p < c->end && isdigit((unsigned char)*c->p)) {
            size_t digit = (size_t)(*c->p++ - '0');
            if (v > (SIZE_MAX - digit) / 10) overflow = 1;
            else v = v * 10 + digit;
        }
        if (c->p < c->end && (*c->p == 'L' || *c->p == 'l')) ++c->p;
        if (overflow || h->ndim == ARR_MAX_DIMS) return -2;
        h->shape[h->ndim++] = v;
        last_comma = accept(c, ',');
        if (last_comma) continue;
        if (accept(c, ')')) break;
        return -1;
    }
    /* "(3)" is just the int 3 in Python, not a tuple. */
    if (h->ndim == 1 && !last_comma) return -1;
    return 0;
}

static void shape_text(const npy_header_t *h, char *buf, size_t cap) {
    size_t n = (size_t)snprintf(buf, cap, "(");
    for (int i = 0; i < h->ndim && n < cap; ++i)
        n += (size_t)snprintf(buf + n, cap - n, i ? ", %zu" : "%zu", h->shape[i]);
    if (n < cap) snprintf(buf + n, cap - n, h->ndim == 1 ? ",)" : ")");
}

static arr_status_t parse_dict(const char *text, size_t len, const char *path, npy_header_t *h, char *err,
                               size_t errlen) {
    cursor_t c = {text, text + len};
    bool have_descr = false, have_fortran = false, have_shape = false;
    if (!accept(&c, '{')) return arr__fail(err, errlen, ARR_ERR_INPUT, path, "malformed .npy header: it does not start with '{'");
    for (;;) {
        if (accept(&c, '}')) break;
        char key[32], ek[4 * sizeof key]; /* ek: key escaped for messages (it is file content) */
        if (parse_string(&c, key, sizeof key) != 0)
            return arr__fail(err, errlen, ARR_ERR_INPUT, path, "malformed .npy header: expected a quoted key");
        if (!accept(&c, ':'))
            return arr__fail(err, errlen, ARR_ERR_INPUT, path, "malformed .npy header: expected ':' after '%s'",
                             app_escape(key, SIZE_MAX, ek, sizeof ek));
        if (strcmp(key, "descr") == 0) {
            char d[64], ed[4 * sizeof d];
            if (have_descr) return arr__fail(err, errlen, ARR_ERR_INPUT, path, "malformed .npy header: 'descr' given twice");
            skip_ws(&c);
            if (c.p < c.end && (*c.p == '[' || *c.p == '{'))
                return arr__fail(err, errlen, ARR_ERR_INPUT, path,
                            "unsupported dtype: structured arrays are not supported (one integer or float type only)");
            if (parse_string(&c, d, sizeof d) != 0)
                return arr__fail(err, errlen, ARR_ERR_INPUT, path, "malformed .npy header: 'descr' is not a string");
            if (parse_descr(d, &h->dtype, &h->swap) != 0)
                return arr__fail(err, errlen, ARR_ERR_INPUT, path,
                            "unsupported dtype '%s' (supported: bool, signed/unsigned integers of 1, 2, 4, 8 bytes, "
                            "floats of 2, 4, 8 bytes)", app_escape(d, SIZE_MAX, ed, sizeof ed));
            have_descr = true;
        } else if (strcmp(key, "fortran_order") == 0) {
            if (have_fortran) return arr__fail(err, errlen, ARR_ERR_INPUT, path, "malformed .npy header: 'fortran_order' given twice");
            if (parse_word(&c, "True")) h->fortran_order = true;
            else if (parse_word(&c, "False")) h->fortran_order = false;
            else return arr__fail(err, errlen, ARR_ERR_INPUT, path, "malformed .npy header: 'fortran_order' is not True or False");
            have_fortran = true;
        } else if (strcmp(key, "shape") == 0) {
            if (have_shape) return arr__fail(err, errlen, ARR_ERR_INPUT, path, "malformed .npy header: 'shape' given twice");
            int r = parse_shape(&c, h);
            if (r == -2)
                return arr__fail(err, errlen, ARR_ERR_INPUT, path,
                            "huge declared shape: a dimension or the number of dimensions is beyond what can be addressed");
            if (r != 0)
                return arr__fail(err, errlen, ARR_ERR_INPUT, path,
                            "malformed .npy header: 'shape' is not a tuple of non-negative integers");
            have_shape = true;
        } else {
            return arr__fail(err, errlen, ARR_ERR_INPUT, path, "malformed .npy header: unexpected key '%s'",
                             app_escape(key, SIZE_MAX, ek, sizeof ek));
        }
        if (accept(&c, ',')) continue;
        if (accept(&c, '}')) break;
        return arr__fail(err, errlen, ARR_ERR_INPUT, path, "malformed .npy header: expected ',' or '}' after '%s'",
                         app_escape(key, SIZE_MAX, ek, sizeof ek));
    }
    /* numpy pads with spaces up to the final newline; older writers pad with
       NULs, before or after the newline: accept any mix of the two. */
    for (;;) {
        skip_ws(&c);
        if (c.p >= c.end || *c.p != '\0') break;
        while (c.p < c.end && *c.p == '\0') ++c.p;
    }
    if (c.p != c.end) return arr__fail(err, errlen, ARR_ERR_INPUT, path, "malformed .npy header: text after the closing '}'");
    if (!have_descr) return arr__fail(err, errlen, ARR_ERR_INPUT, path, "malformed .npy header: missing key 'descr'");
    if (!have_fortran) return arr__fail(err, errlen, ARR_ERR_INPUT, path, "malformed .npy header: missing key 'fortran_order'");
    if (!have_shape) return arr__fail(err, errlen, ARR_ERR_INPUT, path, "malformed .npy header: missing key 'shape'");
    return ARR_OK;
}

static unsigned long le_u16(const unsigned char *b) { return (unsigned long)b[0] | (unsigned long)b[1] << 8; }
static unsigned long long le_u32(const unsigned char *b) {
    return (unsigned long long)b[0] | (unsigned long long)b[1] << 8 | (unsigned long long)b[2] << 16 |
           (unsigned long long)b[3] << 24;
}

arr_status_t npy_read_header(FILE *f, const char *path, unsigned long long file_size, npy_header_t *h,
                             char *err, size_t errlen) {
    memset(h, 0, sizeof *h);
    if (file_size == 0) return arr__fail(err, errlen, ARR_ERR_INPUT, path, "empty file (not a .npy file)");
    unsigned char pre[12];
    size_t want = file_size < sizeof pre ? (size_t)file_size : sizeof pre;
    size_t got = fread(pre, 1, want, f);
    if (got != want) return arr__fail(err, errlen, ARR_ERR_SYSTEM, path, "read error: %s", strerror(errno));
    size_t cmp = got < 6 ? got : 6;
    if (memcmp(pre, k_magic, cmp) != 0)
        return arr__fail(err, errlen, ARR_ERR_INPUT, path, "not a .npy file (bad magic: it does not start with \\x93NUMPY)");
    if (got < 10) return arr__fail(err, errlen, ARR_ERR_INPUT, path, "truncated .npy header (the file has only %zu bytes)", got);
    h->major = pre[6];
    h->minor = pre[7];
    if (h->major < 1 || h->major > 3 || h->minor != 0)
        return arr__fail(err, errlen, ARR_ERR_INPUT, path, "unsupported .npy version %d.%d (1.0, 2.0 and 3.0 are supported)",
                    h->major, h->minor);
    unsigned long long hlen, start;
    if (h->major == 1) {
        hlen = le_u16(pre + 8);
        start = 10;
    } else {
        if (got < 12)
            return arr__fail(err, errlen, ARR_ERR_INPUT, path, "truncated .npy header (the file has only %zu bytes)", got);
        hlen = le_u32(pre + 8);
        start = 12;
    }
    if (start + hlen > file_size)
        return arr__fail(err, errlen, ARR_ERR_INPUT, path,
                    "truncated .npy header: its length field says %llu bytes but the file has only %llu after it", hlen,
                    file_size - start);
    if (hlen > NPY_HEADER_MAX)
        return arr__fail(err, errlen, ARR_ERR_INPUT, path, "the .npy header is %llu bytes long (more than %u allowed)", hlen,
                    NPY_HEADER_MAX);
    char *text = malloc((size_t)hlen + 1);
    if (!text) return arr__fail(err, errlen, ARR_ERR_SYSTEM, path, "out of memory");
    if (fseek(f, (long)start, SEEK_SET) != 0 || fread(text, 1, (size_t)hlen, f) != (size_t)hlen) {
        free(text);
        return arr__fail(err, errlen, ARR_ERR_SYSTEM, path, "read error in the .npy header");
    }
    text[hlen] = '\0';
    arr_status_t st = parse_dict(text, (size_t)hlen, path, h, err, errlen);
    free(text);
    if (st != ARR_OK) return st;
    h->header_bytes = (size_t)(start + hlen);

    char shape[64 * 24];
    shape_text(h, shape, sizeof shape);
    if (h->fortran_order && h->ndim > 1)
        return arr__fail(err, errlen, ARR_ERR_INPUT, path,
                    "fortran_order True (column-major) arrays of shape %s are not supported; save a C-order array "
                    "(numpy.ascontiguousarray)", shape);
    /* Count and bytes with overflow checks, all before any data allocation. */
    size_t count = 1, esize = arr_dtype_size(h->dtype);
    bool empty = false; /* a zero dimension makes any product 0, however large the rest */
    for (int i = 0; i < h->ndim; ++i) empty = empty || h->shape[i] == 0;
    for (int i = 0; i < h->ndim && !empty; ++i) {
        if (h->shape[i] != 0 && count > SIZE_MAX / h->shape[i])
            return arr__fail(err, errlen, ARR_ERR_INPUT, path,
                        "huge declared shape %s: the number of elements overflows a 64-bit count", shape);
        count *= h->shape[i];
    }
    if (empty) count = 0;
    if (count > SIZE_MAX / esize)
        return arr__fail(err, errlen, ARR_ERR_INPUT, path, "huge declared shape %s: the size in bytes overflows", shape);
    unsigned long long need = (unsigned long long)count * esize, have = file_size - h->header_bytes;
    if (need > have)
        return arr__fail(err, errlen, ARR_ERR_INPUT, path,
                    "truncated data: shape %s of %s needs %llu bytes after the header, the file has %llu", shape,
                    arr_dtype_name(h->dtype), need, have);
    if (need < have)
        return arr__fail(err, errlen, ARR_ERR_INPUT, path,
                    "size mismatch: shape %s of %s needs %llu bytes after the header, the file has %llu (%llu extra)",
                    shape, arr_dtype_name(h->dtype), need, have, have - need);
    h->count = count;
    return ARR_OK;
}

/* ---- writing ---------------------------------------------------------------- */

static const char *descr_of(arr_dtype_t t) {
    switch (t) {
    case ARR_BOOL: return "|b1";
    case ARR_I8: return "|i1";
    case ARR_U8: return "|u1";
    case ARR_I16: return "<i2";
    case ARR_U16: return "<u2";
    case ARR_I32: return "<i4";
    case ARR_U32: return "<u4";
    case ARR_I64: return "<i8";
    case ARR_U64: return "<u8";
    case ARR_F16: return "<f2";
    case ARR_F32: return "<f4";
    case ARR_F64: return "<f8";
    default: return NULL;
    }
}

size_t npy_build_header(char *buf, size_t cap, arr_dtype_t dtype, size_t count, size_t pad_to) {
    const char *descr = descr_of(dtype);
    if (!descr) return 0;
    char dict[160];
    int dn = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%zu,), }", descr, count);
    if (dn < 0 || (size_t)dn >= sizeof dict) return 0;
    /* Version 1.0 (2-byte length) unless the header does not fit: with a
       dict this small it always fits, but the rule is numpy's. */
    size_t prefix = 10, min_total = prefix + (size_t)dn + 1;
    if (min_total - prefix > 65535) {
        prefix = 12;
        min_total = prefix + (size_t)dn + 1;
    }
    size_t total = pad_to ? pad_to : (min_total + 63) / 64 * 64;
    if (total < min_total || total > cap) return 0;
    size_t hlen = total - prefix;
    memcpy(buf, k_magic, 6);
    buf[6] = prefix == 10 ? 1 : 2;
    buf[7] = 0;
    if (prefix == 10) {
        buf[8] = (char)(hlen & 0xff);
        buf[9] = (char)(hlen >> 8);
    } else {
        for (int i = 0; i < 4; ++i) buf[8 + i] = (char)((hlen >> (8 * i)) & 0xff);
    }
    memcpy(buf + prefix, dict, (size_t)dn);
    memset(buf + prefix + dn, ' ', total - prefix - (size_t)dn - 1);
    buf[total - 1] = '\n';
    return total;
}
