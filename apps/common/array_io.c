/* array_io.c -- streaming reader and writer of array files, and the
 * whole-file read/write built on them (array_io.h). The .npy header lives in
 * npy.c, one text value in text_values.c. */
#define _POSIX_C_SOURCE 200809L
#include "array_io_internal.h"
#include "common/cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* See array_io_internal.h (npy.c reports through it too). */
arr_status_t arr__fail(char *err, size_t errlen, arr_status_t st, const char *path, const char *fmt, ...) {
    if (err && errlen > 0) {
        int n = snprintf(err, errlen, "%s: ", path ? path : "(null)");
        if (n >= 0 && (size_t)n < errlen) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
            va_end(ap);
        }
    }
    return st;
}

static char *dup_str(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

static bool dtype_valid(arr_dtype_t t) { return (int)t > ARR_NONE && (int)t < ARR_DTYPE_COUNT; }

/* ===========================================================================
 * Reader
 * ========================================================================= */

struct arr_reader {
    FILE *f;
    char *path;
    arr_format_t fmt;
    arr_dtype_t dtype;
    size_t count, pos;
    bool swap;
    unsigned long long data_offset; /* binary files: where the elements start */
    int ndim;
    size_t shape[ARR_MAX_DIMS];
    char notice[ARR_NOTICE_MAX];
    /* text */
    char *line;
    size_t line_cap;
    unsigned long long line_no;
};

/* The next line's number token, or NULL at the end of the file. Comments
 * ('#' to the end of the line) and surrounding white space are removed;
 * blank lines are skipped. *bad is set for a line with a NUL byte. */
static char *next_token(arr_reader_t *r, bool *bad) {
    *bad = false;
    for (;;) {
        ssize_t len = getline(&r->line, &r->line_cap, r->f);
        if (len < 0) return NULL;
        ++r->line_no;
        if ((size_t)len != strlen(r->line)) {
            *bad = true;
            return r->line;
        }
        char *hash = strchr(r->line, '#');
        if (hash) *hash = '\0';
        char *s = r->line;
        while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n' || *s == '\v' || *s == '\f') ++s;
        char *e = s + strlen(s);
        while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n' || e[-1] == '\v' ||
                         e[-1] == '\f'))
            --e;
        *e = '\0';
        if (*s) return s;
    }
}

/* A token for an error message: shortened, and escaped because it is file
 * content (see app_escape). */
static const char *clip(const char *tok, char *buf, size_t cap) { return app_escape(tok, SIZE_MAX, buf, cap); }

/* First pass over a text file: every line checked, values counted, the type
 * chosen when none was given. Leaves the file rewound.
 * The choice without a dtype: int64 when every value is an integer in its
 * range; else uint64 when every value is a non-negative integer in its range
 * (so 18446744073709551615 or 9007199254740993 stay exact); else float64. In
 * that last case an integer that float64 cannot hold (beyond 2^53) changes
 * value, and the notice says so, naming the first such line: silently
 * reading 9007199254740993 as 9007199254740992 is data loss. */
static arr_status_t text_scan(arr_reader_t *r, arr_dtype_t given, char *err, size_t errlen) {
    size_t count = 0, inexact = 0;
    bool any_float = false, any_neg = false, any_u64 = false, any_big = false, bad;
    unsigned long long inexact_line = 0;
    char inexact_tok[48] = "";
    double inexact_val = 0;
    char *tok;
    unsigned char tmp[8];
    char why[160], cl[64];
    while ((tok = next_token(r, &bad)) != NULL) {
        if (bad)
            return arr__fail(err, errlen, ARR_ERR_INPUT, r->path, "line %llu: contains a NUL byte (not a text file?)",
                        r->line_no);
        if (dtype_valid(given)) {
            if (text_parse_value(tok, given, tmp, why, sizeof why) != 0)
                return arr__fail(err, errlen, ARR_ERR_INPUT, r->path, "line %llu: %s", r->line_no, why);
        } else {
            int c = text_classify(tok);
            if (c == TEXT_CLASS_NONE)
                return arr__fail(err, errlen, ARR_ERR_INPUT, r->path, "line %llu: '%s' is not a number", r->line_no,
                            clip(tok, cl, sizeof cl));
            any_float |= c == TEXT_CLASS_FLOAT;
            any_u64 |= c == TEXT_CLASS_U64;
            any_big |= c == TEXT_CLASS_BIG_INT;
            if (c != TEXT_CLASS_FLOAT) {
                any_neg |= text_int_negative(tok) != 0;
                /* Only matters if float64 is chosen in the end. */
                if (!text_int_exact_in_f64(tok) && inexact++ == 0) {
                    inexact_line = r->line_no;
                    clip(tok, inexact_tok, sizeof inexact_tok);
                    inexact_val = strtod(tok, NULL);
                }
            }
        }
        ++count;
    }
    if (ferror(r->f)) return arr__fail(err, errlen, ARR_ERR_SYSTEM, r->path, "read error: %s", strerror(errno));
    if (dtype_valid(given)) r->dtype = given;
    else if (any_float || any_big || (any_u64 && any_neg)) r->dtype = ARR_F64;
    else r->dtype = any_u64 ? ARR_U64 : ARR_I64;
    if (!dtype_valid(given) && r->dtype == ARR_F64 && inexact > 0)
        snprintf(r->notice, sizeof r->notice,
                 "%s: read as float64 (not every value is an integer of one type), which changed %zu integer%s; "
                 "the first is line %llu: %s became %.0f",
                 r->path, inexact, inexact == 1 ? "" : "s", inexact_line, inexact_tok, inexact_val);
    r->count = count;
    r->ndim = 1;
    r->shape[0] = count;
    rewind(r->f);
    r->line_no = 0;
    return ARR_OK;
}

static void shape_text(const size_t *shape, int ndim, char *buf, size_t cap) {
    size_t n = (size_t)snprintf(buf, cap, "(");
    for (int i = 0; i < ndim && n < cap; ++i) n += (size_t)snprintf(buf + n, cap - n, i ? ", %zu" : "%zu", shape[i]);
    if (n < cap) snprintf(buf + n, cap - n, ndim == 1 ? ",)" : ")");
}

arr_status_t arr_reader_open(arr_reader_t **rp, const char *path, arr_format_t format, arr_dtype_t raw_dtype,
                             char *err, size_t errlen) {
    *rp = NULL;
    if (!path || !*path) return arr__fail(err, errlen, ARR_ERR_INPUT, "(input)", "empty file name");
    if ((int)raw_dtype < 0 || (int)raw_dtype >= ARR_DTYPE_COUNT)
        return arr__fail(err, errlen, ARR_ERR_SYSTEM, path, "invalid element type %d", (int)raw_dtype);
    struct stat st;
    if (stat(path, &st) != 0) return arr__fail(err, errlen, ARR_ERR_INPUT, path, "%s", strerror(errno));
    if (S_ISDIR(st.st_mode)) return arr__fail(err, errlen, ARR_ERR_INPUT, path, "is a directory, not a file");
    if (!S_ISREG(st.st_mode)) return arr__fail(err, errlen, ARR_ERR_INPUT, path, "not a regular file");

    arr_reader_t *r = calloc(1, sizeof *r);
    if (!r || !(r->path = dup_str(path))) {
        free(r);
        return arr__fail(err, errlen, ARR_ERR_SYSTEM, path, "out of memory");
    }
    arr_status_t s = ARR_OK;
    r->fmt = arr_format_resolve(path, format);
    r->f = fopen(path, "rb");
    if (!r->f) {
        s = arr__fail(err, errlen, ARR_ERR_INPUT, path, "cannot open: %s", strerror(errno));
        goto out;
    }
    unsigned long long size = (unsigned long long)st.st_size;

    if (r->fmt == ARR_FMT_NPY) {
        npy_header_t h;
        s = npy_read_header(r->f, path, size, &h, err, errlen);
        if (s != ARR_OK) goto out;
        r->dtype = h.dtype;
        r->count = h.count;
        r->swap = h.swap;
        r->data_offset = h.header_bytes;
        r->ndim = h.ndim;
        memcpy(r->shape, h.shape, sizeof r->shape);
        if (h.ndim != 1) {
            char sh[128];
            shape_text(h.shape, h.ndim, sh, sizeof sh);
            if (h.ndim == 0)
                snprintf(r->notice, sizeof r->notice, "%s: 0-D array (a scalar, shape ()) read as 1 element", path);
            else
                snprintf(r->notice, sizeof r->notice, "%s: %d-D array of shape %s read as %zu elements in C order",
                         path, h.ndim, sh, h.count);
        }
    } else if (r->fmt == ARR_FMT_RAW) {
        if (raw_dtype == ARR_NONE) {
            s = arr__fail(err, errlen, ARR_ERR_INPUT, path,
                     "a raw binary file needs its element type (--dtype, one of: %s)", arr_dtype_list());
            goto out;
        }
        size_t es = arr_dtype_size(raw_dtype);
        if (size % es != 0) {
            s = arr__fail(err, errlen, ARR_ERR_INPUT, path,
                     "file size %llu bytes is not a multiple of the element size (%zu bytes for %s)", size, es,
                     arr_dtype_name(raw_dtype));
            goto out;
        }
        r->dtype = raw_dtype;
        r->count = (size_t)(size / es);
        r->ndim = 1;
        r->shape[0] = r->count;
    } else if (r->fmt == ARR_FMT_TEXT) {
        s = text_scan(r, raw_dtype, err, errlen);
        if (s != ARR_OK) goto out;
    } else {
        s = arr__fail(err, errlen, ARR_ERR_SYSTEM, path, "invalid file format %d", (int)format);
        goto out;
    }
out:
    if (s != ARR_OK) {
        arr_reader_close(r);
        return s;
    }
    *rp = r;
    return ARR_OK;
}

arr_dtype_t arr_reader_dtype(const arr_reader_t *r) { return r->dtype; }
size_t arr_reader_count(const arr_reader_t *r) { return r->count; }
size_t arr_reader_remaining(const arr_reader_t *r) { return r->count - r->pos; }
arr_format_t arr_reader_format(const arr_reader_t *r) { return r->fmt; }
int arr_reader_ndim(const arr_reader_t *r) { return r->ndim; }
const size_t *arr_reader_shape(const arr_reader_t *r) { return r->shape; }
const char *arr_reader_notice(const arr_reader_t *r) { return r->notice; }

bool arr_reader_binary_layout(const arr_reader_t *r, int *fd, unsigned long long *data_offset, bool *swap) {
    if (r->fmt != ARR_FMT_NPY && r->fmt != ARR_FMT_RAW) return false;
    *fd = fileno(r->f);
    *data_offset = r->data_offset;
    *swap = r->swap;
    return true;
}

arr_status_t arr_reader_read(arr_reader_t *r, void *buf, size_t k, size_t *got, char *err, size_t errlen) {
    *got = 0;
    size_t n = k < r->count - r->pos ? k : r->count - r->pos;
    if (n == 0) return ARR_OK;
    size_t es = arr_dtype_size(r->dtype);
    if (r->fmt == ARR_FMT_TEXT) {
        unsigned char *out = buf;
        char why[160];
        bool bad;
        for (size_t i = 0; i < n; ++i) {
            char *tok = next_token(r, &bad);
            if (!tok || bad)
                return arr__fail(err, errlen, ARR_ERR_INPUT, r->path, "the file changed while it was being read");
            if (text_parse_value(tok, r->dtype, out + i * es, why, sizeof why) != 0)
                return arr__fail(err, errlen, ARR_ERR_INPUT, r->path, "line %llu: %s", r->line_no, why);
        }
    } else {
        size_t m = fread(buf, es, n, r->f);
        if (m != n) {
            if (ferror(r->f)) return arr__fail(err, errlen, ARR_ERR_SYSTEM, r->path, "read error: %s", strerror(errno));
            return arr__fail(err, errlen, ARR_ERR_INPUT, r->path,
                        "truncated data: the file ended after %zu of %zu elements (changed while being read?)",
                        r->pos + m, r->count);
        }
        if (r->swap) arr_swap_bytes(buf, n, es);
    }
    r->pos += n;
    *got = n;
    return ARR_OK;
}

void arr_reader_close(arr_reader_t *r) {
    if (!r) return;
    if (r->f) fclose(r->f);
    free(r->line);
    free(r->path);
    free(r);
}

/* ===========================================================================
 * Writer
 * ========================================================================= */

struct arr_writer {
    app_out_t *out;
    FILE *f;
    char *path;
    arr_format_t fmt;
    arr_dtype_t dtype;
    size_t count, written;
    size_t header_len; /* NPY: bytes of the header written at open */
    bool swap;         /* NPY on a big-endian host */
};

#define NPY_HEADER_CAP 256 /* our 1-D headers are 128 bytes at most */

static arr_status_t write_error(arr_writer_t *w, char *err, size_t errlen) {
    int e = errno;
    return arr__fail(err, errlen, ARR_ERR_SYSTEM, w->path, "write error: %s", e ? strerror(e) : "unknown error");
}

arr_status_t arr_writer_open(arr_writer_t **wp, const char *path, arr_format_t format, arr_dtype_t dtype,
                             size_t count, char *err, size_t errlen) {
    *wp = NULL;
    if (!path || !*path) return arr__fail(err, errlen, ARR_ERR_INPUT, "(output)", "empty file name");
    if (!dtype_valid(dtype))
        return arr__fail(err, errlen, ARR_ERR_SYSTEM, path, "cannot write elements of type '%s'", arr_dtype_name(dtype));
    arr_format_t fmt = arr_format_resolve(path, format);
    if (fmt != ARR_FMT_NPY && fmt != ARR_FMT_RAW && fmt != ARR_FMT_TEXT)
        return arr__fail(err, errlen, ARR_ERR_SYSTEM, path, "invalid file format %d", (int)format);
    if (fmt == ARR_FMT_NPY && count == ARR_COUNT_UNKNOWN && strcmp(path, "-") == 0)
        return arr__fail(err, errlen, ARR_ERR_SYSTEM, path,
                    "a .npy file of unknown length cannot go to standard output (its header is rewritten at the end)");
    arr_writer_t *w = calloc(1, sizeof *w);
    if (!w || !(w->path = dup_str(path))) {
        free(w);
        return arr__fail(err, errlen, ARR_ERR_SYSTEM, path, "out of memory");
    }
    w->fmt = fmt;
    w->dtype = dtype;
    w->count = count;
    w->swap = fmt == ARR_FMT_NPY && !arr_host_little_endian();
    w->out = app_out_open(path, err, errlen);
    if (!w->out) {
        free(w->path);
        free(w);
        return ARR_ERR_INPUT; /* app_out_open named the path and the reason */
    }
    w->f = app_out_file(w->out);
    if (fmt == ARR_FMT_NPY) {
        char hdr[NPY_HEADER_CAP];
        /* Unknown length: room for a 20-digit count, rewritten at commit. */
        size_t n = npy_build_header(hdr, sizeof hdr, dtype, count == ARR_COUNT_UNKNOWN ? SIZE_MAX : count, 0);
        if (n == 0 || fwrite(hdr, 1, n, w->f) != n) {
            arr_status_t s = n == 0 ? arr__fail(err, errlen, ARR_ERR_SYSTEM, path, "cannot build the .npy header")
                                    : write_error(w, err, errlen);
            arr_writer_abort(w);
            return s;
        }
        w->header_len = n;
    }
    *wp = w;
    return ARR_OK;
}

arr_status_t arr_writer_write(arr_writer_t *w, const void *data, size_t k, char *err, size_t errlen) {
    if (k == 0) return ARR_OK;
    if (w->count != ARR_COUNT_UNKNOWN && k > w->count - w->written)
        return arr__fail(err, errlen, ARR_ERR_SYSTEM, w->path, "more elements written (%zu) than announced (%zu)",
                    w->written + k, w->count);
    size_t es = arr_dtype_size(w->dtype);
    const unsigned char *p = data;
    errno = 0;
    if (w->fmt == ARR_FMT_TEXT) {
        char line[64];
        for (size_t i = 0; i < k; ++i) {
            size_t n = text_format_value(p + i * es, w->dtype, line, sizeof line - 1);
            line[n] = '\n';
            if (fwrite(line, 1, n + 1, w->f) != n + 1) return write_error(w, err, errlen);
        }
    } else if (w->swap) {
        unsigned char tmp[1 << 14];
        size_t per = sizeof tmp / es;
        for (size_t i = 0; i < k; i += per) {
            size_t m = k - i < per ? k - i : per;
            memcpy(tmp, p + i * es, m * es);
            arr_swap_bytes(tmp, m, es);
            if (fwrite(tmp, es, m, w->f) != m) return write_error(w, err, errlen);
        }
    } else {
        if (fwrite(p, es, k, w->f) != k) return write_error(w, err, errlen);
    }
    w->written += k;
    return ARR_OK;
}

size_t arr_writer_written(const arr_writer_t *w) { return w->written; }

arr_dtype_t arr_writer_dtype(const arr_writer_t *w) { return w->dtype; }

bool arr_writer_binary_layout(arr_writer_t *w, int *fd, unsigned long long *data_offset, bool *seekable) {
    if (w->fmt == ARR_FMT_TEXT || w->swap) return false;
    if (fflush(w->f) != 0) return false; /* the error shows again at commit */
    struct stat st;
    *fd = fileno(w->f);
    *data_offset = (unsigned long long)w->header_len + (unsigned long long)w->written * arr_dtype_size(w->dtype);
    /* "-" is sequential even when the shell redirected it to a file: it may
       have been opened for appending, and offsets there are not ours. */
    *seekable = strcmp(w->path, "-") != 0 && fstat(*fd, &st) == 0 && S_ISREG(st.st_mode);
    return true;
}

void arr_writer_add_written(arr_writer_t *w, size_t k) { w->written += k; }

arr_status_t arr_writer_commit(arr_writer_t *w, char *err, size_t errlen) {
    if (!w) return arr__fail(err, errlen, ARR_ERR_SYSTEM, "(output)", "no writer");
    if (w->count != ARR_COUNT_UNKNOWN && w->written != w->count) {
        arr_status_t s = arr__fail(err, errlen, ARR_ERR_SYSTEM, w->path, "only %zu of the announced %zu elements were written",
                              w->written, w->count);
        arr_writer_abort(w);
        return s;
    }
    if (w->fmt == ARR_FMT_NPY && w->count == ARR_COUNT_UNKNOWN) {
        char hdr[NPY_HEADER_CAP];
        size_t n = npy_build_header(hdr, sizeof hdr, w->dtype, w->written, w->header_len);
        errno = 0;
        if (n != w->header_len || fseeko(w->f, 0, SEEK_SET) != 0 || fwrite(hdr, 1, n, w->f) != n) {
            arr_status_t s = write_error(w, err, errlen);
            arr_writer_abort(w);
            return s;
        }
    }
    arr_status_t s = app_out_commit(w->out, err, errlen) == 0 ? ARR_OK : ARR_ERR_SYSTEM;
    free(w->path);
    free(w);
    return s;
}

void arr_writer_abort(arr_writer_t *w) {
    if (!w) return;
    app_out_abort(w->out);
    free(w->path);
    free(w);
}

/* ===========================================================================
 * Whole files
 * ========================================================================= */

arr_status_t arr_read(const char *path, arr_format_t format, arr_dtype_t raw_dtype, arr_array_t *out, char *err,
                      size_t errlen) {
    memset(out, 0, sizeof *out);
    arr_reader_t *r;
    arr_status_t s = arr_reader_open(&r, path, format, raw_dtype, err, errlen);
    if (s != ARR_OK) return s;
    size_t count = arr_reader_count(r), es = arr_dtype_size(arr_reader_dtype(r));
    void *data = NULL;
    if (count > 0) {
        /* count * es <= the file size (binary) or < it (text): no overflow. */
        data = malloc(count * es);
        if (!data) {
            arr_reader_close(r);
            return arr__fail(err, errlen, ARR_ERR_SYSTEM, path, "out of memory (%zu bytes for %zu elements)", count * es,
                        count);
        }
        size_t got;
        s = arr_reader_read(r, data, count, &got, err, errlen);
        if (s == ARR_OK && got != count)
            s = arr__fail(err, errlen, ARR_ERR_INPUT, path, "the file changed while it was being read");
        if (s != ARR_OK) {
            free(data);
            arr_reader_close(r);
            return s;
        }
    }
    out->dtype = arr_reader_dtype(r);
    out->count = count;
    out->data = data;
    out->ndim = arr_reader_ndim(r);
    memcpy(out->shape, arr_reader_shape(r), sizeof out->shape);
    snprintf(out->notice, sizeof out->notice, "%s", arr_reader_notice(r));
    arr_reader_close(r);
    return ARR_OK;
}

void arr_free(arr_array_t *a) {
    if (!a) return;
    free(a->data);
    memset(a, 0, sizeof *a);
}

arr_status_t arr_write(const char *path, arr_format_t format, arr_dtype_t dtype, const void *data, size_t count,
                       char *err, size_t errlen) {
    if (count > 0 && !data) return arr__fail(err, errlen, ARR_ERR_SYSTEM, path ? path : "(output)", "no data to write");
    if (count == ARR_COUNT_UNKNOWN) return arr__fail(err, errlen, ARR_ERR_SYSTEM, path ? path : "(output)", "invalid count");
    arr_writer_t *w;
    arr_status_t s = arr_writer_open(&w, path, format, dtype, count, err, errlen);
    if (s != ARR_OK) return s;
    s = arr_writer_write(w, data, count, err, errlen);
    if (s != ARR_OK) {
        arr_writer_abort(w);
        return s;
    }
    return arr_writer_commit(w, err, errlen);
}
