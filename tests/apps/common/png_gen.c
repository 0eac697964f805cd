/* png_gen.c -- see png_gen.h. */
#include "png_gen.h"

#include <png.h>
#include <zlib.h>

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gen_file_channels(int color_type)
{
    switch (color_type) {
    case 0: return 1;
    case 2: return 3;
    case 3: return 1;
    case 4: return 2;
    case 6: return 4;
    }
    return 0;
}

void gen_buf_put(gen_buf *b, const void *p, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n)
            cap *= 2;
        uint8_t *d = (uint8_t *)realloc(b->data, cap);
        if (!d)
            abort(); /* tests: out of memory is fatal */
        b->data = d;
        b->cap = cap;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

void gen_buf_free(gen_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

typedef struct enc_ctx {
    gen_buf buf;
    char msg[200];
} enc_ctx;

static void enc_error(png_structp png, png_const_charp msg)
{
    enc_ctx *c = (enc_ctx *)png_get_error_ptr(png);
    snprintf(c->msg, sizeof c->msg, "%s", msg);
    png_longjmp(png, 1);
}

static void enc_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

static void enc_write(png_structp png, png_bytep data, size_t len)
{
    enc_ctx *c = (enc_ctx *)png_get_io_ptr(png);
    gen_buf_put(&c->buf, data, len);
}

static void enc_flush(png_structp png)
{
    (void)png;
}

/* Pack one row of samples into PNG's byte layout: MSB-first for depths
 * below 8, big-endian for 16. */
static void pack_row(const gen_png *g, int y, uint8_t *row)
{
    const int spp = gen_file_channels(g->color_type);
    const size_t n = (size_t)g->width * (size_t)spp;
    const uint16_t *s = g->samples + (size_t)y * n;
    if (g->bit_depth == 16) {
        for (size_t i = 0; i < n; ++i) {
            row[2 * i] = (uint8_t)(s[i] >> 8);
            row[2 * i + 1] = (uint8_t)(s[i] & 0xff);
        }
    } else if (g->bit_depth == 8) {
        for (size_t i = 0; i < n; ++i)
            row[i] = (uint8_t)s[i];
    } else {
        const int d = g->bit_depth, per = 8 / d;
        memset(row, 0, (n * (size_t)d + 7) / 8);
        for (size_t i = 0; i < n; ++i) {
            int shift = 8 - d * (int)(i % (size_t)per + 1);
            row[i / (size_t)per] |= (uint8_t)(s[i] << shift);
        }
    }
}

int gen_png_encode(const gen_png *g, uint8_t **out, size_t *len, char *err, size_t errlen)
{
    enc_ctx c;
    memset(&c, 0, sizeof c);
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &c, enc_error, enc_warning);
    png_infop info = png_create_info_struct(png);
    const size_t rowbytes = ((size_t)g->width * (size_t)gen_file_channels(g->color_type) * (size_t)g->bit_depth + 7) / 8;
    png_bytep *rows = (png_bytep *)calloc((size_t)g->height, sizeof(png_bytep));
    uint8_t *image = (uint8_t *)malloc(rowbytes * (size_t)g->height);
    if (setjmp(png_jmpbuf(png))) {
        snprintf(err, errlen, "gen_png_encode: %s", c.msg);
        png_destroy_write_struct(&png, &info);
        free(rows);
        free(image);
        gen_buf_free(&c.buf);
        return -1;
    }
    png_set_write_fn(png, &c, enc_write, enc_flush);
    png_set_IHDR(png, info, (png_uint_32)g->width, (png_uint_32)g->height, g->bit_depth, g->color_type,
                 g->interlace ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    if (g->filters)
        png_set_filter(png, PNG_FILTER_TYPE_BASE, g->filters);
    if (g->color_type == 3) {
        png_color pal[256];
        for (int i = 0; i < g->npalette; ++i) {
            pal[i].red = g->palette[3 * i];
            pal[i].green = g->palette[3 * i + 1];
            pal[i].blue = g->palette[3 * i + 2];
        }
        png_set_PLTE(png, info, pal, g->npalette);
        if (g->ntrns > 0)
            png_set_tRNS(png, info, g->trns_alpha, g->ntrns, NULL);
    } else if (g->has_trns_color) {
        png_color_16 t;
        memset(&t, 0, sizeof t);
        t.gray = g->trns_color[0];
        t.red = g->trns_color[0];
        t.green = g->trns_color[1];
        t.blue = g->trns_color[2];
        png_set_tRNS(png, info, NULL, 0, &t);
    }
    png_write_info(png, info);
    /* The whole image at once: libpng does the Adam7 pass split itself. */
    for (int y = 0; y < g->height; ++y) {
        pack_row(g, y, image + (size_t)y * rowbytes);
        rows[y] = image + (size_t)y * rowbytes;
    }
    png_write_image(png, rows);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    free(rows);
    free(image);
    *out = c.buf.data;
    *len = c.buf.len;
    return 0;
}

typedef struct dec_ctx {
    const uint8_t *data;
    size_t len, pos;
    char msg[200];
} dec_ctx;

static void dec_error(png_structp png, png_const_charp msg)
{
    dec_ctx *c = (dec_ctx *)png_get_error_ptr(png);
    snprintf(c->msg, sizeof c->msg, "%s", msg);
    png_longjmp(png, 1);
}

static void dec_read(png_structp png, png_bytep out, size_t n)
{
    dec_ctx *c = (dec_ctx *)png_get_io_ptr(png);
    if (c->len - c->pos < n)
        png_error(png, "truncated");
    memcpy(out, c->data + c->pos, n);
    c->pos += n;
}

int gen_png_decode(const uint8_t *data, size_t len, int *width, int *height, int *color_type, int *bit_depth,
                   uint16_t **samples, char *err, size_t errlen)
{
    dec_ctx c;
    memset(&c, 0, sizeof c);
    c.data = data;
    c.len = len;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &c, dec_error, enc_warning);
    png_infop info = png_create_info_struct(png);
    uint8_t *volatile row = NULL;
    uint16_t *volatile out = NULL;
    if (setjmp(png_jmpbuf(png))) {
        snprintf(err, errlen, "gen_png_decode: %s", c.msg);
        png_destroy_read_struct(&png, &info, NULL);
        free(row);
        free(out);
        return -1;
    }
    png_set_read_fn(png, &c, dec_read);
    png_set_user_limits(png, 0x7fffffff, 0x7fffffff);
    png_read_info(png, info);
    const int w = (int)png_get_image_width(png, info), h = (int)png_get_image_height(png, info);
    const int ct = png_get_color_type(png, info), depth = png_get_bit_depth(png, info);
    const int ch = gen_file_channels(ct);
    if (png_get_interlace_type(png, info) != PNG_INTERLACE_NONE || (depth != 8 && depth != 16) || ct == 3)
        png_error(png, "gen_png_decode takes 8/16-bit non-palette files without interlacing only");
    const size_t n = (size_t)w * (size_t)ch;
    row = (uint8_t *)malloc(n * 2);
    out = (uint16_t *)malloc(n * (size_t)h * sizeof(uint16_t));
    for (int y = 0; y < h; ++y) {
        png_read_row(png, row, NULL); /* the file's bytes: 16-bit big-endian, assembled here */
        for (size_t i = 0; i < n; ++i)
            out[(size_t)y * n + i] = depth == 16 ? (uint16_t)((row[2 * i] << 8) | row[2 * i + 1]) : row[i];
    }
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    free(row);
    *width = w;
    *height = h;
    *color_type = ct;
    *bit_depth = depth;
    *samples = out;
    return 0;
}

void gen_put_signature(gen_buf *b)
{
    static const uint8_t sig[8] = {137, 80, 78, 71, 13, 10, 26, 10};
    gen_buf_put(b, sig, sizeof sig);
}

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

void gen_put_chunk(gen_buf *b, const char type[4], const uint8_t *data, uint32_t n)
{
    uint8_t hdr[8];
    put_be32(hdr, n);
    memcpy(hdr + 4, type, 4);
    gen_buf_put(b, hdr, 8);
    if (n)
        gen_buf_put(b, data, n);
    uLong crc = crc32(0L, Z_NULL, 0);
    crc = crc32(crc, (const Bytef *)type, 4);
    if (n)
        crc = crc32(crc, data, n);
    uint8_t tail[4];
    put_be32(tail, (uint32_t)crc);
    gen_buf_put(b, tail, 4);
}

void gen_put_ihdr(gen_buf *b, uint32_t w, uint32_t h, int depth, int color_type, int interlace)
{
    uint8_t d[13];
    put_be32(d, w);
    put_be32(d + 4, h);
    d[8] = (uint8_t)depth;
    d[9] = (uint8_t)color_type;
    d[10] = 0;
    d[11] = 0;
    d[12] = (uint8_t)interlace;
    gen_put_chunk(b, "IHDR", d, 13);
}

long gen_find_chunk(const uint8_t *png, size_t len, const char type[4])
{
    size_t off = 8;
    while (off + 12 <= len) {
        uint32_t n = ((uint32_t)png[off] << 24) | ((uint32_t)png[off + 1] << 16) | ((uint32_t)png[off + 2] << 8) |
                     png[off + 3];
        if (memcmp(png + off + 4, type, 4) == 0)
            return (long)off;
        off += 12 + (size_t)n;
    }
    return -1;
}

int gen_write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t w = len ? fwrite(data, 1, len, f) : 0;
    int rc = (w == len) ? 0 : -1;
    if (fclose(f) != 0)
        rc = -1;
    return rc;
}
