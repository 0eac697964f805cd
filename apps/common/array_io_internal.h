/* array_io_internal.h -- what the array_io source files share (not installed,
 * not for the programs): .npy header parsing/building, one text value,
 * byte swapping. */
#ifndef APP_COMMON_ARRAY_IO_INTERNAL_H
#define APP_COMMON_ARRAY_IO_INTERNAL_H

#include "common/array_io.h"

#include <stdio.h>

/* Writes "<path>: <formatted problem>" into err (errlen bytes; nothing when
 * err is NULL or errlen 0; path NULL reads "(null)") and returns st. */
arr_status_t arr__fail(char *err, size_t errlen, arr_status_t st, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* What a .npy header says. */
typedef struct npy_header {
    int major, minor;
    size_t header_bytes; /* magic + version + length field + header text */
    arr_dtype_t dtype;
    bool swap;           /* stored in the other byte order than the host's */
    bool fortran_order;
    int ndim;
    size_t shape[ARR_MAX_DIMS];
    size_t count;        /* product of shape (1 for ndim 0) */
} npy_header_t;

/* Parses the header at the start of f (positioned at 0) of a file of
 * file_size bytes, and checks the data size against the shape. On error
 * writes "<path>: <problem>" into err and returns ARR_ERR_INPUT (or
 * ARR_ERR_SYSTEM for out of memory / read errors). On success f is at the
 * first data byte. */
arr_status_t npy_read_header(FILE *f, const char *path, unsigned long long file_size, npy_header_t *h,
                             char *err, size_t errlen);

/* Builds a little-endian 1-D header for `count` elements of `dtype` into buf,
 * padded to a multiple of 64 bytes, or to exactly `pad_to` bytes when pad_to
 * is nonzero (used to rewrite a header in place). Returns its length, or 0 if
 * buf (cap bytes) is too small or pad_to cannot be met. */
size_t npy_build_header(char *buf, size_t cap, arr_dtype_t dtype, size_t count, size_t pad_to);

/* Parses one text token strictly as `t` into dst (one element, native order).
 * Returns 0, or -1 with a reason in why (e.g. "'1.5' is not an integer"). */
int text_parse_value(const char *tok, arr_dtype_t t, void *dst, char *why, size_t n);

/* What a token is, to choose the type when no dtype is given. */
enum {
    TEXT_CLASS_NONE = 0,    /* not a number */
    TEXT_CLASS_I64 = 1,     /* an integer in int64's range */
    TEXT_CLASS_FLOAT = 2,   /* another number (decimal point, exponent, inf, nan) */
    TEXT_CLASS_U64 = 3,     /* a non-negative integer beyond int64, in uint64's range */
    TEXT_CLASS_BIG_INT = 4  /* an integer beyond both (only float64 can take it) */
};
int text_classify(const char *tok);

/* 1 when tok is an integer token below zero ("-0" is not). */
int text_int_negative(const char *tok);

/* 0 when tok is an integer token that float64 cannot hold exactly (e.g.
 * 9007199254740993 = 2^53 + 1); 1 otherwise. */
int text_int_exact_in_f64(const char *tok);

/* Formats one element of `t` at src into buf (no newline). Returns length. */
size_t text_format_value(const void *src, arr_dtype_t t, char *buf, size_t cap);

/* Reverses the bytes of each of count elements of `size` bytes in place. */
void arr_swap_bytes(void *data, size_t count, size_t size);

/* 1 on a little-endian host. */
int arr_host_little_endian(void);

#endif
