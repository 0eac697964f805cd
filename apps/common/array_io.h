/* array_io.h -- array files for the libscan programs: NumPy .npy (v1/v2/v3,
 * little/big endian), raw binary (element type from --dtype) and text (one
 * number per line). Whole-file read/write, plus streaming reader and writer
 * for files larger than memory (the whole-file functions are built on them).
 *
 * Plain C (C99-clean), usable from C and C++. Link the `app_common` target and
 * write `#include "common/array_io.h"`.
 *
 * Errors: every function that can fail returns an arr_status_t whose values
 * equal the programs' exit codes (cli.h), and writes ONE message into err
 * (errlen bytes, NUL-terminated) that names the file and the problem, e.g.
 * "in.npy: truncated data: the shape (1000,) needs 4000 bytes of uint32, the
 * file has 3996". The program prints it with app_error(prog, "%s", err).
 * Nothing here prints, exits or aborts. Data in memory is always in the host's
 * native byte order. Not thread-safe per handle; distinct handles are
 * independent. */
#ifndef APP_COMMON_ARRAY_IO_H
#define APP_COMMON_ARRAY_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------
 * Status
 * ------------------------------------------------------------------------- */

typedef enum {
    ARR_OK = 0,          /* success */
    ARR_ERR_INPUT = 1,   /* the user's fault: missing/unreadable/malformed file,
                            bad dtype or format, output directory not writable
                            (= APP_EXIT_USAGE) */
    ARR_ERR_SYSTEM = 2   /* out of memory, I/O error while writing, disk full,
                            misuse of the API (= APP_EXIT_INTERNAL) */
} arr_status_t;

/* ---------------------------------------------------------------------------
 * Element types
 * ------------------------------------------------------------------------- */

typedef enum {
    ARR_NONE = 0, /* not given (e.g. no --dtype on the command line) */
    ARR_BOOL = 1, /* numpy '|b1': one byte, read and written as uint8 */
    ARR_I8 = 2,
    ARR_U8 = 3,
    ARR_I16 = 4,
    ARR_U16 = 5,
    ARR_I32 = 6,
    ARR_U32 = 7,
    ARR_I64 = 8,
    ARR_U64 = 9,
    ARR_F16 = 10, /* IEEE binary16, kept as its raw 16 bits (uint16_t) in memory */
    ARR_F32 = 11,
    ARR_F64 = 12
} arr_dtype_t;

#define ARR_DTYPE_COUNT 13 /* one past the last value */

/* Bytes per element (0 for ARR_NONE or an invalid value). */
size_t arr_dtype_size(arr_dtype_t t);

/* Canonical name: "bool", "int8", "uint8", "int16", "uint16", "int32",
 * "uint32", "int64", "uint64", "float16", "float32", "float64"; "none" for
 * ARR_NONE and "?" for an invalid value. Never NULL. */
const char *arr_dtype_name(arr_dtype_t t);

/* Parses a --dtype value: the canonical names above, the bit-size forms
 * "i16" "u16" "i32" "u32" "i64" "u64" "f16" "f32" "f64", numpy's byte-size
 * codes "b1" "i1" "u1" "i2" "u2" "i4" "u4" "f2" "f4" "f8", and the aliases
 * "half" "float" "double". Case-insensitive. "i8" and "u8" are refused as
 * ambiguous (8 bits, or numpy's 8 bytes?): write int8/uint8 or int64/uint64.
 * Returns 0 with *out set, or -1 (*out untouched). */
int arr_dtype_parse(const char *s, arr_dtype_t *out);

/* Comma-separated list of the canonical names, for --help and error text. */
const char *arr_dtype_list(void);

bool arr_dtype_is_float(arr_dtype_t t);   /* f16, f32, f64 */
bool arr_dtype_is_signed(arr_dtype_t t);  /* i8..i64 and the floats */
bool arr_dtype_is_integer(arr_dtype_t t); /* bool and i8..u64 */

/* IEEE binary16 <-> double. half -> double is exact; double -> half rounds to
 * nearest even (overflow gives infinity, NaN stays NaN). */
double arr_f16_to_f64(uint16_t h);
uint16_t arr_f64_to_f16(double d);

/* ---------------------------------------------------------------------------
 * File formats
 * ------------------------------------------------------------------------- */

typedef enum {
    ARR_FMT_AUTO = 0, /* from the file name, see arr_format_from_path() */
    ARR_FMT_NPY = 1,
    ARR_FMT_RAW = 2,  /* bare elements in native byte order; needs a dtype */
    ARR_FMT_TEXT = 3  /* one number per line */
} arr_format_t;

/* Parses "auto", "npy", "raw" or "text" (case-insensitive). 0 or -1. */
int arr_format_parse(const char *s, arr_format_t *out);

/* "auto", "npy", "raw", "text" ("?" otherwise). Never NULL. */
const char *arr_format_name(arr_format_t f);

/* The format for a file name by its extension (case-insensitive): ".npy" ->
 * NPY; ".txt", ".csv", ".text" -> TEXT; anything else (".bin", ".raw", ".dat",
 * none) -> RAW. Never returns ARR_FMT_AUTO. */
arr_format_t arr_format_from_path(const char *path);

/* `f` itself unless it is ARR_FMT_AUTO, then arr_format_from_path(path). */
arr_format_t arr_format_resolve(const char *path, arr_format_t f);

/* ---------------------------------------------------------------------------
 * Whole-file read and write
 * ------------------------------------------------------------------------- */

#define ARR_MAX_DIMS 64  /* numpy's limit */
#define ARR_NOTICE_MAX 256

typedef struct arr_array {
    arr_dtype_t dtype; /* element type of data */
    size_t count;      /* number of elements */
    void *data;        /* count elements, native byte order, malloc'd (NULL when
                          count is 0); freed by arr_free() */
    int ndim;          /* dimensions as found: the .npy shape (0 for a scalar);
                          1 for raw and text files */
    size_t shape[ARR_MAX_DIMS];
    /* Non-empty when the caller should tell the user something, e.g.
       "in.npy: 2-D array of shape (3, 4) read as 12 elements in C order".
       The program prints it once (as a note on stderr). */
    char notice[ARR_NOTICE_MAX];
} arr_array_t;

/* Reads the whole file `path` into *out (which need not be initialised; on
 * failure it is left empty: data NULL, count 0).
 *   format     ARR_FMT_AUTO to decide from the extension, or a format.
 *   raw_dtype  RAW: the element type (required; ARR_NONE is an error asking for
 *              --dtype). TEXT: the type each line is parsed as (strictly); with
 *              ARR_NONE, int64 if every line is an integer in int64's range,
 *              else uint64 if every line is a non-negative integer in
 *              uint64's range, else float64. When float64 changes an integer
 *              (beyond 2^53, e.g. 9007199254740993 -> ...992), the notice says
 *              so in one line naming the file and the first such line.
 *              NPY: ignored (the file says).
 * An N-D .npy file (ndim != 1) is read as flat, in C order, with a notice; a
 * scalar (shape ()) is one element. fortran_order True is an error unless
 * ndim <= 1.
 * Returns ARR_OK, or an error with the message in err. */
arr_status_t arr_read(const char *path, arr_format_t format, arr_dtype_t raw_dtype, arr_array_t *out,
                      char *err, size_t errlen);

/* Frees a->data and empties *a. NULL and empty arrays are fine. */
void arr_free(arr_array_t *a);

/* Writes `count` elements of `dtype` at `data` (native byte order) to `path`,
 * atomically (see arr_writer_open()). NPY files are 1-D, shape (count,).
 * data may be NULL when count is 0. Returns ARR_OK or an error (no file left). */
arr_status_t arr_write(const char *path, arr_format_t format, arr_dtype_t dtype, const void *data,
                       size_t count, char *err, size_t errlen);

/* ---------------------------------------------------------------------------
 * Streaming read
 *
 * Memory use is independent of the file size. For text files, open makes one
 * pass over the file to validate every line and count the values (and choose
 * the type when none is given); reads then parse the lines again.
 * ------------------------------------------------------------------------- */

typedef struct arr_reader arr_reader_t; /* opaque */

/* Opens `path` (arguments as for arr_read()) and parses its header; the file
 * is fully validated for size: a .npy or raw file whose size does not match its
 * header/element size is rejected here, before any data is read.
 * On success stores a new handle in *r; on failure *r = NULL. */
arr_status_t arr_reader_open(arr_reader_t **r, const char *path, arr_format_t format,
                             arr_dtype_t raw_dtype, char *err, size_t errlen);

arr_dtype_t arr_reader_dtype(const arr_reader_t *r);   /* element type */
size_t arr_reader_count(const arr_reader_t *r);        /* total elements */
size_t arr_reader_remaining(const arr_reader_t *r);    /* elements not read yet */
arr_format_t arr_reader_format(const arr_reader_t *r); /* the resolved format */
int arr_reader_ndim(const arr_reader_t *r);            /* as in arr_array_t */
const size_t *arr_reader_shape(const arr_reader_t *r); /* ndim entries */
const char *arr_reader_notice(const arr_reader_t *r);  /* "" when none; never NULL */

/* Reads the next min(k, remaining) elements into buf (room for k elements),
 * converted to native byte order, and stores how many in *got (0 at the end).
 * Returns ARR_OK, or an error (e.g. the file changed under us, a read error). */
arr_status_t arr_reader_read(arr_reader_t *r, void *buf, size_t k, size_t *got, char *err,
                             size_t errlen);

/* Closes the file and frees r. NULL is fine. */
void arr_reader_close(arr_reader_t *r);

/* For code that reads the elements itself (stream_io.h: parallel pread):
 * true for a binary file (.npy or raw), whose elements are contiguous from
 * byte *data_offset on in the file open on *fd (r's own descriptor: read it
 * with pread only, and not after arr_reader_close), stored in the other
 * byte order than the host's when *swap; false for text (use
 * arr_reader_read). The header was validated against the file size at open. */
bool arr_reader_binary_layout(const arr_reader_t *r, int *fd, unsigned long long *data_offset, bool *swap);

/* ---------------------------------------------------------------------------
 * Streaming write
 *
 * Atomic through cli.h's app_out_*: the data goes to a temporary file in the
 * destination's directory, renamed over `path` at commit; abort (or any error,
 * or SIGINT/SIGTERM) leaves no file. "-" writes to standard output (not
 * atomic). NPY: version 1.0 (2.0 if the header does not fit), little endian,
 * header padded with spaces to a multiple of 64 bytes and ending in '\n', as
 * numpy.save writes; shape (count,). RAW: native byte order. TEXT: one value
 * per line; integers exactly, floats in the shortest form that reads back to
 * the same bits (at most 5/9/17 significant digits for f16/f32/f64; "-0",
 * "inf", "-inf"; NaN as "nan" / "-nan" for the quiet NaN and "nan:0xHEX" /
 * "-nan:0xHEX" with the fraction field otherwise, see README.md); bool as 0/1.
 * Every value reads back bit for bit with the same dtype.
 * ------------------------------------------------------------------------- */

/* For arr_writer_open(): the count is not known in advance. NPY then reserves
 * room in the header for any count and rewrites it at commit (still a valid
 * .npy file; its header is longer than numpy.save's). Not allowed with "-" and
 * NPY. */
#define ARR_COUNT_UNKNOWN SIZE_MAX

typedef struct arr_writer arr_writer_t; /* opaque */

/* Opens `path` for writing `count` elements of `dtype` (not ARR_NONE) in
 * `format` (ARR_FMT_AUTO: from the extension). The directory must exist and
 * be writable (else ARR_ERR_INPUT naming the path). *w = handle or NULL. */
arr_status_t arr_writer_open(arr_writer_t **w, const char *path, arr_format_t format,
                             arr_dtype_t dtype, size_t count, char *err, size_t errlen);

/* Appends k elements from data (native byte order). Writing more than the
 * announced count is an error. On error the writer is still open and must be
 * aborted. */
arr_status_t arr_writer_write(arr_writer_t *w, const void *data, size_t k, char *err, size_t errlen);

/* Finishes the file: checks that exactly `count` elements were written (any
 * number for ARR_COUNT_UNKNOWN), completes the header, and renames the file
 * into place. Frees w, on success and on failure (failure removes the file). */
arr_status_t arr_writer_commit(arr_writer_t *w, char *err, size_t errlen);

/* Discards the file (no file left) and frees w. NULL is fine. */
void arr_writer_abort(arr_writer_t *w);

/* Elements written so far. */
size_t arr_writer_written(const arr_writer_t *w);

/* The element type w writes. */
arr_dtype_t arr_writer_dtype(const arr_writer_t *w);

/* For code that writes the elements itself (stream_io.h: parallel pwrite):
 * true when w writes its elements as raw bytes in the host's order (.npy on a
 * little-endian host, raw). It then flushes what w buffered (the header) and
 * gives the file descriptor, the offset of the next element
 * (*data_offset: header + elements written so far), and whether the file may
 * be written at offsets (*seekable: a regular file; false for standard
 * output, a device or a FIFO, which take sequential write() only). Elements
 * written that way are counted with arr_writer_add_written(); after the
 * first, only commit or abort may follow on w. False for text (and a
 * big-endian .npy): use arr_writer_write. */
bool arr_writer_binary_layout(arr_writer_t *w, int *fd, unsigned long long *data_offset, bool *seekable);

/* Counts k elements that the caller wrote through arr_writer_binary_layout's
 * descriptor (commit checks the total as for arr_writer_write). */
void arr_writer_add_written(arr_writer_t *w, size_t k);

#ifdef __cplusplus
}
#endif
#endif
