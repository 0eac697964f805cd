/* png_write.c -- img_write's PNG encoder: rows filtered and deflated in
 * parallel bands (png_filter.c, png_deflate.c) into one zlib stream; the
 * file around it (signature, IHDR, the IDAT chunks, IEND, every CRC) is
 * written by libpng. */
#define _POSIX_C_SOURCE 200809L
#include "common/image_io.h"
#include "image_private.h"
#include "png_deflate.h"
#include "png_filter.h"

#include <png.h>

#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- rows in PNG order, filtered -------------------------------------------- */

typedef struct row_src {
    const img_t *img;
    size_t row_bytes; /* unfiltered */
    size_t bpp;       /* bytes per pixel */
    int swap16;       /* 16-bit samples to big-endian first */
    int adaptive;     /* filter rows (0: filter None, for level 0) */
} row_src_t;

/* Row y in PNG byte order: the image's own row, or a big-endian copy in buf. */
static const uint8_t *png_order_row(const row_src_t *s, size_t y, uint8_t *buf)
{
    const uint8_t *row = (const uint8_t *)s->img->pixels + y * s->row_bytes;
    if (!s->swap16)
        return row;
    for (size_t i = 0; i < s->row_bytes; i += 2) {
        buf[i] = row[i + 1];
        buf[i + 1] = row[i];
    }
    return buf;
}

/* png_rows_t.filter: rows [y0, y0 + n) filtered into dst. */
static int filter_rows(const void *ctx, size_t y0, size_t n, uint8_t *dst)
{
    const row_src_t *s = (const row_src_t *)ctx;
    const size_t rb = s->row_bytes;
    /* Two rows for byte-swapped copies (this one and the one above), a row
       of zeros above the first, and the filter's scratch. */
    uint8_t *mem = (uint8_t *)calloc(5, rb);
    if (!mem)
        return -1;
    uint8_t *cur_buf = mem, *prev_buf = mem + rb, *zeros = mem + 2 * rb, *scratch = mem + 3 * rb;
    const uint8_t *prev = y0 == 0 ? zeros : png_order_row(s, y0 - 1, prev_buf);
    for (size_t i = 0; i < n; ++i) {
        const uint8_t *cur = png_order_row(s, y0 + i, cur_buf);
        png_filter_row(prev, cur, rb, s->bpp, s->adaptive, dst + i * (rb + 1), scratch);
        prev = cur;
        if (s->swap16) { /* cur lives in cur_buf: keep it, fill the other next */
            uint8_t *t = cur_buf;
            cur_buf = prev_buf;
            prev_buf = t;
        }
    }
    free(mem);
    return 0;
}

/* ---- the file, through libpng ------------------------------------------------ */

typedef struct png_sink {
    FILE *fp;
    png_structp png;
    int io_failed; /* a write failed: msg says why; later writes are skipped */
    char msg[200];
} png_sink;

static void on_error(png_structp png, png_const_charp msg)
{
    png_sink *s = (png_sink *)png_get_error_ptr(png);
    if (!s->msg[0])
        snprintf(s->msg, sizeof s->msg, "%s", msg ? msg : "unknown libpng error");
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp msg)
{
    (void)png; /* libpng must not print; nothing the writer warns about matters here */
    (void)msg;
}

/* A failed write is recorded, not raised through png_error: the IDAT chunks
 * are written from inside png_deflate, which must return normally (its
 * threads are joined there), never be jumped out of. */
static void on_write(png_structp png, png_bytep data, size_t len)
{
    png_sink *s = (png_sink *)png_get_io_ptr(png);
    if (s->io_failed)
        return;
    if (fwrite(data, 1, len, s->fp) != len) {
        s->io_failed = 1;
        snprintf(s->msg, sizeof s->msg, "write error: %s", strerror(errno));
    }
}

static void on_flush(png_structp png)
{
    (void)png; /* app_out_commit flushes */
}

/* png_sink_fn: one piece of the zlib stream as one IDAT chunk (split where a
 * chunk would pass 2^31 - 1 bytes, the format's limit, so png_write_chunk
 * has nothing to raise). */
static int put_idat(void *user, const uint8_t *data, size_t len)
{
    png_sink *s = (png_sink *)user;
    static const png_byte idat[5] = {'I', 'D', 'A', 'T', 0};
    while (len > 0 && !s->io_failed) {
        const size_t n = len < ((size_t)1 << 30) ? len : ((size_t)1 << 30);
        png_write_chunk(s->png, idat, data, n);
        data += n;
        len -= n;
    }
    return s->io_failed ? -1 : 0;
}

int img__png_check_opts(const char *path, const img_write_opts_t *opts, int *level, char *err, size_t errlen)
{
    *level = IMG_PNG_DEFAULT_LEVEL;
    if (!opts)
        return 0;
    const int c = opts->png_compression;
    if (c != 0 && c != IMG_PNG_NO_COMPRESSION && (c < 1 || c > 9)) {
        img__err(err, errlen, "%s: PNG compression %d out of range (1..9, or IMG_PNG_NO_COMPRESSION)", path, c);
        return -1;
    }
    if (opts->threads < 0) {
        img__err(err, errlen, "%s: %d encoder threads (0 = one per CPU)", path, opts->threads);
        return -1;
    }
    if (c != 0)
        *level = c == IMG_PNG_NO_COMPRESSION ? 0 : c;
    return 0;
}

int img__write_png(FILE *fp, const img_t *img, int level, int threads, char *msg, size_t msglen, int *io)
{
    png_sink s;
    memset(&s, 0, sizeof s);
    s.fp = fp;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &s, on_error, on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        snprintf(msg, msglen, "out of memory (libpng)");
        png_destroy_write_struct(png ? &png : NULL, NULL);
        return -1;
    }
    s.png = png;
    if (setjmp(png_jmpbuf(png))) {
        snprintf(msg, msglen, "%s", s.msg);
        png_destroy_write_struct(&png, &info);
        return -1;
    }
    static const int types[5] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                                 PNG_COLOR_TYPE_RGB_ALPHA};
    png_set_write_fn(png, &s, on_write, on_flush);
    /* Any size the format allows (libpng refuses rows over a million pixels
       by default; the reader lifts the same limit). */
    png_set_user_limits(png, 0x7fffffff, 0x7fffffff);
    png_set_IHDR(png, info, (png_uint_32)img->width, (png_uint_32)img->height, img->bits, types[img->channels],
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info); /* signature, IHDR */
    int rc = 0;
    if (!s.io_failed) {
        const size_t bytes = (size_t)img->bits / 8;
        row_src_t src = {img, (size_t)img->width * (size_t)img->channels * bytes, (size_t)img->channels * bytes,
                         img->bits == 16 && img__little_endian(), level > 0};
        png_rows_t rows = {src.row_bytes + 1, (size_t)img->height, filter_rows, &src};
        png_deflate_opts_t o = {level, threads, 0};
        rc = png_deflate(&rows, &o, put_idat, &s, msg, msglen);
    }
    if (rc == PNG_DEFLATE_FAILED) {
        png_destroy_write_struct(&png, &info);
        return -1;
    }
    if (!s.io_failed) {
        static const png_byte iend[5] = {'I', 'E', 'N', 'D', 0};
        png_write_chunk(png, iend, NULL, 0);
    }
    png_destroy_write_struct(&png, &info);
    if (s.io_failed) {
        snprintf(msg, msglen, "%s", s.msg);
        *io = 1;
        return -1;
    }
    return 0;
}
