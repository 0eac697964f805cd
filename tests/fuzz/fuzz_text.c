/* fuzz_text.c -- libFuzzer harness of the text array reader (apps/common/
 * text_values.c and array_io.c, through array_io.h): any bytes as a text
 * file, read once with every element type and once without (type chosen by
 * the reader).
 *
 * Beyond "no crash, no leak, no undefined behaviour", every read must give
 * either a clean error (ARR_ERR_INPUT with one printable line naming the file)
 * or an array, and the reads must agree with each other, which is an oracle
 * that needs no second parser:
 *   - every accepted read has the same count, at most one value per line;
 *   - without a type the reader picks int64, uint64 or float64, and a read
 *     with that type gives the same bits;
 *   - an integer type that accepts the file makes every wider type of the
 *     same signedness accept it with the same values, int64 and uint64 agree
 *     where both accept, and float64 accepts it too with each value equal to
 *     the integer converted to double (both are correctly rounded);
 *   - float16 accepting implies float32 accepting implies float64 accepting;
 *   - every value formats (text_format_value, what the writer prints) to text
 *     that parses back to the same bits (README.md, "Text files");
 *   - the streaming reader, in small chunks, gives the whole-file read's bytes. */
#include "fuzz_support.h"

#include "array_io_internal.h" /* text_format_value / text_parse_value: the writer's round trip */
#include "common/array_io.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    bool ok;
    arr_array_t a;
} read_t;

static bool is_signed_int(arr_dtype_t t) { return t == ARR_I8 || t == ARR_I16 || t == ARR_I32 || t == ARR_I64; }

/* The type a read was given, for reports. */
static const char *given_name(int t) { return t == ARR_NONE ? "no type" : arr_dtype_name((arr_dtype_t)t); }

static int64_t get_signed(const arr_array_t *a, size_t i) {
    const unsigned char *p = (const unsigned char *)a->data + i * arr_dtype_size(a->dtype);
    int8_t v8; int16_t v16; int32_t v32; int64_t v64;
    switch (a->dtype) {
    case ARR_I8: memcpy(&v8, p, 1); return v8;
    case ARR_I16: memcpy(&v16, p, 2); return v16;
    case ARR_I32: memcpy(&v32, p, 4); return v32;
    default: memcpy(&v64, p, 8); return v64;
    }
}

static uint64_t get_unsigned(const arr_array_t *a, size_t i) {
    const unsigned char *p = (const unsigned char *)a->data + i * arr_dtype_size(a->dtype);
    uint8_t v8; uint16_t v16; uint32_t v32; uint64_t v64;
    switch (a->dtype) {
    case ARR_U8: memcpy(&v8, p, 1); return v8;
    case ARR_U16: memcpy(&v16, p, 2); return v16;
    case ARR_U32: memcpy(&v32, p, 4); return v32;
    default: memcpy(&v64, p, 8); return v64;
    }
}

static double get_f64(const arr_array_t *a, size_t i) {
    double d;
    memcpy(&d, (const unsigned char *)a->data + i * 8, 8);
    return d;
}

/* One read with `given`, checked on its own. */
static void read_one(const char *path, arr_dtype_t given, size_t max_values, read_t *r) {
    char err[512], who[48];
    snprintf(who, sizeof who, "arr_read(text, %s)", arr_dtype_name(given));
    arr_status_t s = arr_read(path, ARR_FMT_TEXT, given, &r->a, err, sizeof err);
    r->ok = s == ARR_OK;
    if (!r->ok) {
        if (s != ARR_ERR_INPUT) fuzz_fail("%s: status %d for bad input (want ARR_ERR_INPUT): %s", who, (int)s, err);
        fuzz_check_message(who, err, path);
        if (r->a.data || r->a.count) fuzz_fail("%s: failed but left %zu elements", who, r->a.count);
        return;
    }
    const arr_array_t *a = &r->a;
    if (given != ARR_NONE ? a->dtype != given : a->dtype != ARR_I64 && a->dtype != ARR_U64 && a->dtype != ARR_F64)
        fuzz_fail("%s: read as %s", who, arr_dtype_name(a->dtype));
    if (a->ndim != 1 || a->shape[0] != a->count)
        fuzz_fail("%s: ndim %d, shape[0] %zu, count %zu", who, a->ndim, a->shape[0], a->count);
    if (a->count > max_values) fuzz_fail("%s: %zu values from at most %zu lines", who, a->count, max_values);
    if ((a->count == 0) != (a->data == NULL)) fuzz_fail("%s: %zu values, data %p", who, a->count, a->data);
    fuzz_check_notice(who, a->notice, path);
    /* Only a read without a type can change a value (float64 for integers). */
    if (a->notice[0] && !(given == ARR_NONE && a->dtype == ARR_F64)) fuzz_fail("%s: notice \"%s\"", who, a->notice);
}

/* Every value of an accepted read, printed as the writer prints it, parses
 * back to the same bits with the same type. */
static void check_round_trip(const arr_array_t *a) {
    const size_t es = arr_dtype_size(a->dtype);
    for (size_t i = 0; i < a->count; ++i) {
        const unsigned char *v = (const unsigned char *)a->data + i * es;
        char text[64], why[160];
        unsigned char back[8];
        size_t n = text_format_value(v, a->dtype, text, sizeof text);
        if (n == 0 || n >= sizeof text) fuzz_fail("text_format_value(%s) gave %zu characters", arr_dtype_name(a->dtype), n);
        if (text_parse_value(text, a->dtype, back, why, sizeof why) != 0)
            fuzz_fail("%s value %zu printed as '%s' does not read back: %s", arr_dtype_name(a->dtype), i, text, why);
        /* bool: any nonzero byte is true and prints as 1. */
        bool same = a->dtype == ARR_BOOL ? (back[0] != 0) == (v[0] != 0) : memcmp(back, v, es) == 0;
        if (!same) fuzz_fail("%s value %zu printed as '%s' reads back as other bits", arr_dtype_name(a->dtype), i, text);
    }
}

/* The read given type x accepted the file: the read given y must too, with as
 * many values. */
static void check_same(const read_t *r, int x, int y, const char *why) {
    if (!r[y].ok) fuzz_fail("%s accepted the file, %s did not (%s)", given_name(x), given_name(y), why);
    if (r[x].a.count != r[y].a.count)
        fuzz_fail("%s and %s: %zu and %zu values", given_name(x), given_name(y), r[x].a.count, r[y].a.count);
}

static void check_widening(const read_t *r) {
    static const arr_dtype_t chain[2][4] = {{ARR_I8, ARR_I16, ARR_I32, ARR_I64}, {ARR_U8, ARR_U16, ARR_U32, ARR_U64}};
    for (int s = 0; s < 2; ++s)
        for (int k = 0; k < 3; ++k) {
            const read_t *n = &r[chain[s][k]], *w = &r[chain[s][k + 1]];
            if (!n->ok) continue;
            check_same(r, chain[s][k], chain[s][k + 1], "a wider type of the same signedness");
            for (size_t i = 0; i < n->a.count; ++i)
                if (s == 0 ? get_signed(&n->a, i) != get_signed(&w->a, i) : get_unsigned(&n->a, i) != get_unsigned(&w->a, i))
                    fuzz_fail("value %zu differs between %s and %s", i, arr_dtype_name(n->a.dtype), arr_dtype_name(w->a.dtype));
        }
    /* int64 and uint64 where the values fit both. */
    const read_t *i64 = &r[ARR_I64], *u64 = &r[ARR_U64];
    if (i64->ok) {
        bool non_negative = true;
        for (size_t i = 0; i < i64->a.count; ++i) non_negative &= get_signed(&i64->a, i) >= 0;
        if (non_negative) {
            check_same(r, ARR_I64, ARR_U64, "every value is a non-negative int64");
            for (size_t i = 0; i < i64->a.count; ++i)
                if ((uint64_t)get_signed(&i64->a, i) != get_unsigned(&u64->a, i))
                    fuzz_fail("value %zu differs between int64 and uint64", i);
        }
    }
    if (u64->ok) {
        bool small = true;
        for (size_t i = 0; i < u64->a.count; ++i) small &= get_unsigned(&u64->a, i) <= (uint64_t)INT64_MAX;
        if (small) {
            check_same(r, ARR_U64, ARR_I64, "every value is a uint64 up to INT64_MAX");
            for (size_t i = 0; i < u64->a.count; ++i)
                if ((int64_t)get_unsigned(&u64->a, i) != get_signed(&i64->a, i))
                    fuzz_fail("value %zu differs between uint64 and int64", i);
        }
    }
    /* Integers as float64: both conversions round the same exact integer to nearest. */
    for (int t = ARR_I8; t <= ARR_U64; ++t) {
        if (!r[t].ok) continue;
        check_same(r, t, ARR_F64, "float64 holds any 64-bit integer, rounded");
        for (size_t i = 0; i < r[t].a.count; ++i) {
            double want = is_signed_int((arr_dtype_t)t) ? (double)get_signed(&r[t].a, i) : (double)get_unsigned(&r[t].a, i);
            if (get_f64(&r[ARR_F64].a, i) != want)
                fuzz_fail("value %zu: %s says %.17g, float64 says %.17g", i, arr_dtype_name((arr_dtype_t)t), want,
                          get_f64(&r[ARR_F64].a, i));
        }
    }
    if (r[ARR_F16].ok) check_same(r, ARR_F16, ARR_F32, "float32 holds every float16 value");
    if (r[ARR_F32].ok) check_same(r, ARR_F32, ARR_F64, "float64 holds every float32 value");
}

/* The streaming reader, chunk values at a time, against the whole-file read. */
static void check_streaming(const char *path, const arr_array_t *a, size_t chunk) {
    char err[512];
    arr_reader_t *rd;
    if (arr_reader_open(&rd, path, ARR_FMT_TEXT, a->dtype, err, sizeof err) != ARR_OK)
        fuzz_fail("arr_reader_open(text, %s) failed (%s) on a file arr_read accepted", arr_dtype_name(a->dtype), err);
    if (arr_reader_count(rd) != a->count) fuzz_fail("arr_reader_count differs from arr_read's");
    const size_t es = arr_dtype_size(a->dtype);
    unsigned char *buf = malloc(chunk * es);
    if (!buf) fuzz_fail("harness: out of memory");
    size_t pos = 0, got;
    for (;;) {
        if (arr_reader_read(rd, buf, chunk, &got, err, sizeof err) != ARR_OK)
            fuzz_fail("arr_reader_read(text) failed (%s) after %zu values", err, pos);
        if (got == 0) break;
        if (got > chunk || pos + got > a->count || memcmp(buf, (const unsigned char *)a->data + pos * es, got * es) != 0)
            fuzz_fail("arr_reader_read(text): values %zu.. differ from arr_read's", pos);
        pos += got;
    }
    if (pos != a->count) fuzz_fail("arr_reader_read(text) ended after %zu of %zu values", pos, a->count);
    free(buf);
    arr_reader_close(rd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = fuzz_input_file(data, size);
    size_t lines = 1;
    for (size_t i = 0; i < size; ++i) lines += data[i] == '\n';

    read_t r[ARR_DTYPE_COUNT]; /* indexed by the type given; ARR_NONE: chosen by the reader */
    for (int t = ARR_NONE; t < ARR_DTYPE_COUNT; ++t) read_one(path, (arr_dtype_t)t, lines, &r[t]);

    size_t count = SIZE_MAX;
    for (int t = ARR_NONE; t < ARR_DTYPE_COUNT; ++t) {
        if (!r[t].ok) continue;
        if (count != SIZE_MAX && r[t].a.count != count) fuzz_fail("reads with different types found different counts");
        count = r[t].a.count;
        if (t != ARR_NONE) check_round_trip(&r[t].a);
    }
    if (r[ARR_NONE].ok) {
        const read_t *chosen = &r[r[ARR_NONE].a.dtype];
        check_same(r, ARR_NONE, (int)r[ARR_NONE].a.dtype, "the type the reader chose");
        if (count && memcmp(chosen->a.data, r[ARR_NONE].a.data, count * arr_dtype_size(chosen->a.dtype)) != 0)
            fuzz_fail("the read without a type differs from the read as %s", arr_dtype_name(chosen->a.dtype));
        check_streaming(path, &r[ARR_NONE].a, size ? 1 + data[size - 1] % 5 : 1);
    }
    check_widening(r);
    for (int t = ARR_NONE; t < ARR_DTYPE_COUNT; ++t) arr_free(&r[t].a);
    return 0;
}
