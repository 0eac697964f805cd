/* test_png_codec.c -- the PNG encoder's parts and the reader's fast path:
 * png_deflate's bands joined into one zlib stream (checked with zlib's own
 * inflate), img_write's PNG at every level, bit depth, layout and thread
 * count (checked with libpng alone and with stb_image, two decoders that
 * share no code with the one under test), and png_inflate's choices (a
 * well-formed file is taken; anything unusual is left to libpng, whose
 * messages stay what they were). */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "support/harness.h"

#include "common/image_io.h"
#include "common/png_deflate.h"
#include "common/png_inflate.h"
#include "image_test_util.h"
#include "image_tests.h"
#include "png_gen.h"

#include <stb/stb_image.h>
#include <zlib.h>
#include <sched.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- png_deflate ------------------------------------------------------------ */

typedef struct rows_ctx {
    const uint8_t *data;
    size_t row_bytes;
    long fail_row; /* the filter fails for the band holding this row; -1: never */
} rows_ctx;

static int copy_rows(const void *ctx, size_t y0, size_t n, uint8_t *dst)
{
    const rows_ctx *c = (const rows_ctx *)ctx;
    if (c->fail_row >= 0 && (size_t)c->fail_row >= y0 && (size_t)c->fail_row < y0 + n)
        return -1;
    memcpy(dst, c->data + y0 * c->row_bytes, n * c->row_bytes);
    return 0;
}

typedef struct sink_ctx {
    gen_buf buf;
    int calls;
    int fail_on; /* the call that fails (1-based); 0: none */
} sink_ctx;

static int to_buf(void *user, const uint8_t *p, size_t n)
{
    sink_ctx *s = (sink_ctx *)user;
    if (++s->calls == s->fail_on)
        return -1;
    gen_buf_put(&s->buf, p, n);
    return 0;
}

/* Rows that compress somewhat: a small alphabet, and now and then a copy
 * of an earlier row (matches that reach back across band seams). */
static uint8_t *some_rows(rng_t *r, size_t row_bytes, size_t rows)
{
    uint8_t *d = (uint8_t *)malloc(row_bytes * rows);
    for (size_t y = 0; y < rows; ++y) {
        if (y >= 3 && rng_below(r, 3) == 0) {
            memcpy(d + y * row_bytes, d + (y - 3) * row_bytes, row_bytes);
            continue;
        }
        for (size_t i = 0; i < row_bytes; ++i)
            d[y * row_bytes + i] = (uint8_t)(rng_below(r, 6) * 40);
    }
    return d;
}

static void deflate_to(const png_rows_t *src, int level, int threads, size_t band_bytes, gen_buf *out)
{
    sink_ctx s;
    memset(&s, 0, sizeof s);
    png_deflate_opts_t o = {level, threads, band_bytes};
    char msg[200] = "";
    const int rc = png_deflate(src, &o, to_buf, &s, msg, sizeof msg);
    if (rc != PNG_DEFLATE_OK)
        TFAIL("png_deflate(level %d, %d threads, bands of %zu bytes) returned %d: %s", level, threads, band_bytes, rc,
              msg);
    *out = s.buf;
}

void test_png_deflate_bands(void **state)
{
    (void)state;
    rng_t r;
    rng_init(&r, "png_deflate_bands", 0);
    /* row bytes, rows, band bytes (0: the default) */
    static const size_t shapes[][3] = {{1, 1, 0},        {5, 300, 64},       {1000, 57, 3000},
                                       {20000, 6, 1000}, {333, 300, 32768}, {4096, 20, 20000}};
    int multi = 0;
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; ++k) {
        const size_t rb = shapes[k][0], rows = shapes[k][1], band = shapes[k][2];
        uint8_t *data = some_rows(&r, rb, rows);
        rows_ctx ctx = {data, rb, -1};
        png_rows_t src = {rb, rows, copy_rows, &ctx};
        const size_t brows = png_deflate_band_rows(rb, band);
        multi += (rows + brows - 1) / brows > 1;
        for (int level = 0; level <= 9; ++level) {
            gen_buf ref;
            deflate_to(&src, level, 1, band, &ref);
            /* zlib's inflate: the header, every band, the Adler-32. */
            uLongf got = (uLongf)(rb * rows);
            uint8_t *back = (uint8_t *)malloc(rb * rows);
            const int zrc = uncompress(back, &got, ref.data, (uLong)ref.len);
            if (zrc != Z_OK || got != rb * rows || memcmp(back, data, rb * rows) != 0)
                TFAIL("rows %zux%zu, bands of %zu rows, level %d: zlib's inflate gives %d, %lu bytes%s", rb, rows, brows,
                      level, zrc, (unsigned long)got, zrc == Z_OK ? " (different)" : "");
            free(back);
            /* Same bytes whatever the number of threads (more threads
               than cores too, at one level). */
            static const int threads[] = {2, 0, 5};
            const size_t nthreads = level == 5 ? 3 : 2;
            for (size_t t = 0; t < nthreads; ++t) {
                gen_buf other;
                deflate_to(&src, level, threads[t], band, &other);
                if (other.len != ref.len || memcmp(other.data, ref.data, ref.len) != 0)
                    TFAIL("rows %zux%zu, level %d: %d threads wrote other bytes than 1", rb, rows, level, threads[t]);
                gen_buf_free(&other);
            }
            gen_buf_free(&ref);
        }
        free(data);
    }
    assert_true(multi >= 4); /* most shapes are several bands */
}

/* Each band gets the 32 KiB before it as its dictionary: bands that repeat
 * the band before cost almost nothing, as in one stream. */
void test_png_deflate_dictionary(void **state)
{
    (void)state;
    rng_t r;
    rng_init(&r, "png_deflate_dictionary", 0);
    const size_t rb = 1000, rows = 64, per_band = 4;
    uint8_t *data = (uint8_t *)malloc(rb * rows);
    for (size_t i = 0; i < rb * per_band; ++i)
        data[i] = (uint8_t)rng_below(&r, 256); /* one band of noise ... */
    for (size_t y = per_band; y < rows; ++y)   /* ... repeated 16 times */
        memcpy(data + y * rb, data + (y - per_band) * rb, rb);
    rows_ctx ctx = {data, rb, -1};
    png_rows_t src = {rb, rows, copy_rows, &ctx};
    for (int level = 1; level <= 9; level += 4) {
        gen_buf out;
        deflate_to(&src, level, 3, rb * per_band, &out);
        /* 16 bands; without dictionaries each would cost its 4000 bytes. */
        if (out.len > 2 * rb * per_band)
            TFAIL("level %d: 16 bands repeating the one before took %zu bytes (one band of noise is %zu)", level,
                  out.len, rb * per_band);
        gen_buf_free(&out);
    }
    free(data);
}

/* A sink or a band that fails stops the encoder: every thread joined, the
 * right status, a message for the band's failure. */
void test_png_deflate_failures(void **state)
{
    (void)state;
    rng_t r;
    rng_init(&r, "png_deflate_failures", 0);
    const size_t rb = 500, rows = 400;
    uint8_t *data = some_rows(&r, rb, rows);
    for (int threads = 1; threads <= 4; threads += 3) {
        rows_ctx ctx = {data, rb, -1};
        png_rows_t src = {rb, rows, copy_rows, &ctx};
        png_deflate_opts_t o = {5, threads, 2000}; /* 100 bands */
        sink_ctx s;
        memset(&s, 0, sizeof s);
        s.fail_on = 3;
        char msg[200] = "";
        assert_int_equal(png_deflate(&src, &o, to_buf, &s, msg, sizeof msg), PNG_DEFLATE_SINK_FAILED);
        assert_int_equal(s.calls, 3);
        gen_buf_free(&s.buf);
        ctx.fail_row = 250;
        memset(&s, 0, sizeof s);
        assert_int_equal(png_deflate(&src, &o, to_buf, &s, msg, sizeof msg), PNG_DEFLATE_FAILED);
        if (!strstr(msg, "out of memory"))
            TFAIL("a failed filter gave the message \"%s\"", msg);
        assert_true(s.calls <= 62); /* bands 0..61 at most were written */
        gen_buf_free(&s.buf);
    }
    png_deflate_opts_t bad = {10, 1, 0};
    rows_ctx ctx = {data, rb, -1};
    png_rows_t src = {rb, rows, copy_rows, &ctx};
    sink_ctx s;
    memset(&s, 0, sizeof s);
    char msg[200];
    assert_int_equal(png_deflate(&src, &bad, to_buf, &s, msg, sizeof msg), PNG_DEFLATE_FAILED);
    /* Threads: one per CPU this process may run on by default (its affinity
       mask, at most the online CPUs), never more than the bands. */
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) >= 1 && CPU_COUNT(&set) < cpus)
        cpus = CPU_COUNT(&set);
    assert_int_equal(png_deflate_thread_count(0, 1000), cpus < 256 ? cpus : 256);
    assert_int_equal(png_deflate_thread_count(0, 1), 1);
    assert_int_equal(png_deflate_thread_count(8, 3), 3);
    assert_int_equal(png_deflate_thread_count(2, 3), 2);
    free(data);
}

/* ---- img_write's PNG, decoded independently --------------------------------- */

/* A smooth image with some noise, as photographs and their blurs are. */
static void smooth_image(img_t *img, rng_t *r, int w, int h, int ch, int bits)
{
    char err[256];
    if (img_alloc(img, w, h, ch, bits, err, sizeof err) != 0)
        TFAIL("%s", err);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int c = 0; c < ch; ++c) {
                const size_t i = ((size_t)y * (size_t)w + (size_t)x) * (size_t)ch + (size_t)c;
                const unsigned v = (unsigned)(x * 3 + y * 5 + c * 40) + (unsigned)rng_below(r, 4);
                if (bits == 8)
                    ((uint8_t *)img->pixels)[i] = (uint8_t)v;
                else
                    ((uint16_t *)img->pixels)[i] = (uint16_t)(v * 97u);
            }
}

static uint16_t sample_of(const img_t *img, size_t i)
{
    return img->bits == 16 ? ((const uint16_t *)img->pixels)[i] : ((const uint8_t *)img->pixels)[i];
}

/* The file decodes to img's samples with libpng alone and with stb_image,
 * and it holds at least min_idat IDAT chunks. */
static void check_png_file(const uint8_t *f, size_t len, const img_t *img, int min_idat, const char *what)
{
    static const int types[5] = {0, 0, 4, 2, 6};
    int w, h, ct, depth;
    uint16_t *s = NULL;
    char err[256];
    if (gen_png_decode(f, len, &w, &h, &ct, &depth, &s, err, sizeof err) != 0)
        TFAIL("%s: libpng cannot decode it: %s", what, err);
    if (w != img->width || h != img->height || ct != types[img->channels] || depth != img->bits)
        TFAIL("%s: libpng reads %dx%d, colour type %d, %d bits", what, w, h, ct, depth);
    const size_t n = img_pixel_count(img) * (size_t)img->channels;
    for (size_t i = 0; i < n; ++i)
        if (s[i] != sample_of(img, i))
            TFAIL("%s: libpng reads sample %zu as %u, written %u", what, i, s[i], sample_of(img, i));
    free(s);
    int sw, sh, sc;
    void *px = img->bits == 16 ? (void *)stbi_load_16_from_memory(f, (int)len, &sw, &sh, &sc, 0)
                               : (void *)stbi_load_from_memory(f, (int)len, &sw, &sh, &sc, 0);
    if (!px)
        TFAIL("%s: stb_image cannot decode it: %s", what, stbi_failure_reason());
    if (sw != img->width || sh != img->height || sc != img->channels)
        TFAIL("%s: stb_image reads %dx%d with %d channels", what, sw, sh, sc);
    for (size_t i = 0; i < n; ++i) {
        const unsigned v = img->bits == 16 ? ((const uint16_t *)px)[i] : ((const uint8_t *)px)[i];
        if (v != sample_of(img, i))
            TFAIL("%s: stb_image reads sample %zu as %u, written %u", what, i, v, sample_of(img, i));
    }
    stbi_image_free(px);
    int idat = 0;
    for (size_t off = 8; off + 12 <= len;) {
        const size_t n4 = ((size_t)f[off] << 24) | ((size_t)f[off + 1] << 16) | ((size_t)f[off + 2] << 8) | f[off + 3];
        idat += memcmp(f + off + 4, "IDAT", 4) == 0;
        off += 12 + n4;
    }
    if (idat < min_idat)
        TFAIL("%s: %d IDAT chunks, expected at least %d (one per band)", what, idat, min_idat);
}

static uint8_t *write_read_back(const img_t *img, int level, int threads, size_t *len)
{
    char err[512];
    img_write_opts_t o = {.png_compression = level, .threads = threads};
    const char *path = itu_path("codec.png");
    if (img_write(path, img, &o, err, sizeof err) != 0)
        TFAIL("img_write(level %d, %d threads): %s", level, threads, err);
    uint8_t *f = itu_read_file(path, len);
    assert_non_null(f);
    return f;
}

/* Every level (the default, none, 1..9), 8 and 16 bits, every layout, one
 * band and several; the same bytes on 1 and all threads (and 3 at the
 * default level). */
void test_write_png_levels(void **state)
{
    (void)state;
    rng_t r;
    rng_init(&r, "write_png_levels", 0);
    static const int levels[] = {0, IMG_PNG_NO_COMPRESSION, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    for (int bits = 8; bits <= 16; bits += 8)
        for (size_t li = 0; li < sizeof levels / sizeof levels[0]; ++li) {
            for (int ch = 1; ch <= 4; ++ch) { /* small: one band */
                img_t img;
                smooth_image(&img, &r, 17, 5, ch, bits);
                size_t len;
                uint8_t *f = write_read_back(&img, levels[li], 1, &len);
                char what[96];
                snprintf(what, sizeof what, "17x5, %d channels, %d bits, level %d", ch, bits, levels[li]);
                check_png_file(f, len, &img, 1, what);
                free(f);
                img_free(&img);
            }
            /* Several bands (about 600 KB; bands are 256 KiB), each level
               with another layout so that all four get there. */
            const int ch = 1 + (int)(li % 4);
            const int w = 512, h = (int)(600000 / (512 * (size_t)ch * (size_t)(bits / 8)));
            img_t img;
            smooth_image(&img, &r, w, h, ch, bits);
            const size_t bytes = img_byte_count(&img) + (size_t)h;
            const int bands = (int)((bytes + PNG_DEFLATE_BAND_BYTES - 1) / PNG_DEFLATE_BAND_BYTES);
            size_t len, len_n;
            uint8_t *f = write_read_back(&img, levels[li], 1, &len);
            /* All threads, and at the default level 3 as well. */
            uint8_t *fn = write_read_back(&img, levels[li], levels[li] == 0 ? 3 : 0, &len_n);
            char what[96];
            snprintf(what, sizeof what, "%dx%d, %d channels, %d bits, level %d", w, h, ch, bits, levels[li]);
            if (len_n != len || memcmp(f, fn, len) != 0)
                TFAIL("%s: the bytes depend on the number of threads", what);
            check_png_file(f, len, &img, bands, what);
            free(f);
            free(fn);
            img_free(&img);
        }
}

/* Rows wider than libpng's default limit (a million pixels) are written
 * too, as the reader reads them. */
void test_write_png_wide(void **state)
{
    (void)state;
    rng_t r;
    rng_init(&r, "write_png_wide", 0);
    img_t img;
    smooth_image(&img, &r, 1000003, 2, 1, 8);
    size_t len;
    uint8_t *f = write_read_back(&img, 0, 0, &len);
    check_png_file(f, len, &img, 1, "1000003x2 gray");
    free(f);
    img_free(&img);
}

void test_write_png_bad_options(void **state)
{
    (void)state;
    const char *dir = itu_subdir("png_opts");
    char p[1024], err[512];
    snprintf(p, sizeof p, "%s/out.png", dir);
    img_t img;
    rng_t r;
    rng_init(&r, "png_opts", 0);
    smooth_image(&img, &r, 8, 8, 3, 8);
    const struct {
        img_write_opts_t o;
        const char *needle;
    } bad[] = {{{.png_compression = 10}, "compression 10"},
               {{.png_compression = -2}, "compression -2"},
               {{.threads = -1}, "threads"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        err[0] = 0;
        assert_int_equal(img_write(p, &img, &bad[i].o, err, sizeof err), -1);
        if (strncmp(err, p, strlen(p)) != 0 || !strstr(err, bad[i].needle) || strchr(err, '\n'))
            TFAIL("bad PNG option %zu: message \"%s\" lacks \"%s\"", i, err, bad[i].needle);
    }
    assert_int_equal(itu_count_entries(dir), 0);
    img_free(&img);
}

/* ---- the reader's fast path (png_inflate) ------------------------------------ */

/* 1 when png_inflate takes the file (max_pixels 0: the reader's default). */
static int fast_path_takes(const char *path, uint64_t max_pixels)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    png_inflate_t *s = png_inflate_open(f, max_pixels ? max_pixels : IMG_DEFAULT_MAX_PIXELS);
    const int taken = s != NULL;
    png_inflate_close(s);
    fclose(f);
    return taken;
}

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static uint32_t get_be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

/* A file from a PNG's pieces: everything before its IDAT, the zlib stream
 * (plus `extra` bytes) cut into IDAT chunks of `piece` bytes, a tEXt chunk
 * after the first IDAT when `text_between`, then IEND unless `no_iend`. */
static void rebuild(const uint8_t *png, size_t len, size_t piece, int text_between, const uint8_t *extra,
                    size_t nextra, int no_iend, gen_buf *out)
{
    const long first = gen_find_chunk(png, len, "IDAT");
    assert_true(first > 0);
    gen_buf z;
    memset(&z, 0, sizeof z);
    for (size_t off = (size_t)first; off + 12 <= len;) {
        const uint32_t n = get_be32(png + off);
        if (memcmp(png + off + 4, "IDAT", 4) == 0)
            gen_buf_put(&z, png + off + 8, n);
        off += 12 + n;
    }
    if (nextra)
        gen_buf_put(&z, extra, nextra);
    memset(out, 0, sizeof *out);
    gen_buf_put(out, png, (size_t)first);
    for (size_t off = 0; off < z.len; off += piece) {
        const size_t n = z.len - off < piece ? z.len - off : piece;
        gen_put_chunk(out, "IDAT", z.data + off, (uint32_t)n);
        if (off == 0 && text_between)
            gen_put_chunk(out, "tEXt", (const uint8_t *)"Comment\0between", 15);
    }
    if (!no_iend)
        gen_put_chunk(out, "IEND", NULL, 0);
    gen_buf_free(&z);
}

/* Read with img_read_png and compare with the reference image's samples
 * (8-bit RGB). */
static void expect_pixels(const char *path, const img_t *ref)
{
    img_t got;
    char err[512];
    if (img_read_png(path, 0, &got, err, sizeof err) != 0)
        TFAIL("%s: %s", path, err);
    if (got.width != ref->width || got.height != ref->height || got.channels != ref->channels ||
        memcmp(got.pixels, ref->pixels, img_byte_count(ref)) != 0)
        TFAIL("%s: different pixels", path);
    img_free(&got);
}

static void expect_read_error(const char *path, const char *needle)
{
    img_t got;
    char err[512] = "";
    if (img_read_png(path, 0, &got, err, sizeof err) == 0)
        TFAIL("%s: read although it should fail with \"%s\"", path, needle);
    if (strncmp(err, path, strlen(path)) != 0 || strchr(err, '\n') || !strstr(err, needle))
        TFAIL("%s: message \"%s\" lacks \"%s\"", path, err, needle);
}

void test_read_fast_path(void **state)
{
    (void)state;
    rng_t r;
    rng_init(&r, "read_fast_path", 0);
    img_t img;
    smooth_image(&img, &r, 97, 61, 3, 8);
    char err[512];
    const char *orig = itu_path("fast_orig.png");
    img_write_opts_t o = {.png_compression = 9};
    if (img_write(orig, &img, &o, err, sizeof err) != 0)
        TFAIL("%s", err);
    size_t len;
    uint8_t *png = itu_read_file(orig, &len);
    assert_true(fast_path_takes(orig, 0));
    expect_pixels(orig, &img);

    /* Taken: the stream cut into many IDAT chunks (read back right). */
    gen_buf b;
    const char *p = itu_path("fast_pieces.png");
    rebuild(png, len, 100, 0, NULL, 0, 0, &b);
    assert_int_equal(gen_write_file(p, b.data, b.len), 0);
    gen_buf_free(&b);
    assert_true(fast_path_takes(p, 0));
    expect_pixels(p, &img);

    /* Left to libpng, which reads them as before: an ancillary chunk with a
       bad CRC (dropped with a warning), data after the zlib stream (a
       benign error). */
    rebuild(png, len, 1u << 20, 0, NULL, 0, 0, &b);
    gen_buf c;
    memset(&c, 0, sizeof c);
    const long idat = gen_find_chunk(b.data, b.len, "IDAT");
    gen_buf_put(&c, b.data, (size_t)idat);
    gen_put_chunk(&c, "tEXt", (const uint8_t *)"Comment\0bad crc", 15);
    c.data[c.len - 1] ^= 0x55;
    gen_buf_put(&c, b.data + idat, b.len - (size_t)idat);
    p = itu_path("fast_bad_text_crc.png");
    assert_int_equal(gen_write_file(p, c.data, c.len), 0);
    assert_false(fast_path_takes(p, 0));
    expect_pixels(p, &img);
    gen_buf_free(&b);
    gen_buf_free(&c);
    static const uint8_t junk[3] = {1, 2, 3};
    rebuild(png, len, 1u << 20, 0, junk, sizeof junk, 0, &b);
    p = itu_path("fast_extra.png");
    assert_int_equal(gen_write_file(p, b.data, b.len), 0);
    gen_buf_free(&b);
    assert_false(fast_path_takes(p, 0));
    expect_pixels(p, &img);

    /* Left to libpng, as the same bytes from a pipe are, because the direct
       path never reads the chunks after the image data: a chunk header
       libpng refuses there. A type that is not four letters (the fuzzer's
       file read, its pipe failed) it refuses in every version; a chunk over
       its 8 MB allocation limit some versions drop with a warning. */
    static const struct {
        const char *type, *file;
        uint32_t size;
    } trailing[] = {{"\xb7\xb7\xbb\xad", "fast_trailing_type.png", 1}, {"t1Xt", "fast_trailing_digit.png", 1},
                    {"zzZz", "fast_trailing_large.png", 8000001}};
    uint8_t *body = calloc(8000001, 1);
    assert_non_null(body);
    for (size_t t = 0; t < sizeof trailing / sizeof trailing[0]; ++t) {
        rebuild(png, len, 1u << 20, 0, NULL, 0, 0, &b);
        const long iend = gen_find_chunk(b.data, b.len, "IEND");
        memset(&c, 0, sizeof c);
        gen_buf_put(&c, b.data, (size_t)iend);
        gen_put_chunk(&c, trailing[t].type, body, trailing[t].size);
        gen_buf_put(&c, b.data + iend, b.len - (size_t)iend);
        p = itu_path(trailing[t].file);
        assert_int_equal(gen_write_file(p, c.data, c.len), 0);
        gen_buf_free(&b);
        gen_buf_free(&c);
        assert_false(fast_path_takes(p, 0));
        if (trailing[t].size == 1)
            expect_read_error(p, "invalid chunk type");
        else {
            img_t got;
            if (img_read_png(p, 0, &got, err, sizeof err) == 0) {
                assert_memory_equal(got.pixels, img.pixels, img_byte_count(&img));
                img_free(&got);
            } else if (!strstr(err, "too large")) {
                TFAIL("%s: \"%s\" is not libpng's \"chunk data is too large\"", p, err);
            }
        }
    }
    free(body);

    /* Left to libpng, which refuses them with its own words: IDAT chunks
       apart, no IEND, a corrupt zlib stream, too many pixels. */
    rebuild(png, len, 1000, 1, NULL, 0, 0, &b);
    p = itu_path("fast_apart.png");
    assert_int_equal(gen_write_file(p, b.data, b.len), 0);
    gen_buf_free(&b);
    assert_false(fast_path_takes(p, 0));
    expect_read_error(p, "invalid PNG file");
    rebuild(png, len, 1u << 20, 0, NULL, 0, 1, &b);
    p = itu_path("fast_no_iend.png");
    assert_int_equal(gen_write_file(p, b.data, b.len), 0);
    gen_buf_free(&b);
    assert_false(fast_path_takes(p, 0));
    expect_read_error(p, "truncated");
    rebuild(png, len, 1u << 20, 0, NULL, 0, 0, &b);
    const long d = gen_find_chunk(b.data, b.len, "IDAT");
    const uint32_t n = get_be32(b.data + d);
    b.data[d + 8 + n / 2] ^= 0xff; /* inside the deflate data; the chunk's CRC made right again */
    put_be32(b.data + d + 8 + n, (uint32_t)crc32(crc32(0L, Z_NULL, 0), b.data + d + 4, n + 4));
    p = itu_path("fast_corrupt.png");
    assert_int_equal(gen_write_file(p, b.data, b.len), 0);
    gen_buf_free(&b);
    assert_false(fast_path_takes(p, 0));
    expect_read_error(p, "invalid PNG file");
    assert_false(fast_path_takes(orig, 97 * 61 - 1));
    img_t big;
    if (img_read_png(orig, 97 * 61 - 1, &big, err, sizeof err) == 0 || !strstr(err, "too large"))
        TFAIL("%s: over the pixel limit: \"%s\"", orig, err);

    /* An IHDR that promises far more data than its stream could hold
       (16384 x 16384 RGBA from 100 bytes): declined before any buffer. */
    gen_buf h;
    memset(&h, 0, sizeof h);
    gen_put_signature(&h);
    gen_put_ihdr(&h, 16384, 16384, 8, 6, 0);
    uint8_t zsmall[100];
    uLongf zl = sizeof zsmall;
    static const uint8_t zeros[64] = {0};
    assert_int_equal(compress(zsmall, &zl, zeros, sizeof zeros), Z_OK);
    gen_put_chunk(&h, "IDAT", zsmall, (uint32_t)zl);
    gen_put_chunk(&h, "IEND", NULL, 0);
    p = itu_path("fast_promise.png");
    assert_int_equal(gen_write_file(p, h.data, h.len), 0);
    gen_buf_free(&h);
    assert_false(fast_path_takes(p, 0));
    expect_read_error(p, "invalid PNG file");

    /* Not a regular file: nothing to read whole. */
    FILE *dev = fopen("/dev/null", "rb");
    if (dev) {
        assert_null(png_inflate_open(dev, 0));
        fclose(dev);
    }
    free(png);
    img_free(&img);
}

/* Every kind of PNG (colour types, bit depths, tRNS, interlacing) takes
 * the fast path, so test_read_every_format checks it on all of them. */
void test_read_fast_path_every_kind(void **state)
{
    (void)state;
    static const struct {
        int ct, depth;
    } kinds[] = {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}, {2, 8}, {2, 16}, {3, 1},
                 {3, 2}, {3, 4}, {3, 8}, {4, 8}, {4, 16}, {6, 8}, {6, 16}};
    uint16_t samples[13 * 7 * 4];
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; ++i)
        samples[i] = (uint16_t)(i * 7919u);
    uint8_t palette[256 * 3];
    for (int i = 0; i < 256 * 3; ++i)
        palette[i] = (uint8_t)(i * 13);
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k)
        for (int il = 0; il <= 1; ++il) {
            uint16_t s[13 * 7 * 4];
            const uint32_t range = 1u << kinds[k].depth;
            for (size_t i = 0; i < sizeof s / sizeof s[0]; ++i)
                s[i] = (uint16_t)(samples[i] % (kinds[k].ct == 3 ? (range < 256 ? range : 256) : range));
            gen_png g;
            memset(&g, 0, sizeof g);
            g.width = 13;
            g.height = 7;
            g.color_type = kinds[k].ct;
            g.bit_depth = kinds[k].depth;
            g.interlace = il;
            g.samples = s;
            g.palette = palette;
            g.npalette = range < 256 ? (int)range : 256;
            uint8_t *png;
            size_t len;
            char err[256];
            if (gen_png_encode(&g, &png, &len, err, sizeof err) != 0)
                TFAIL("%s", err);
            const char *p = itu_path("kind.png");
            assert_int_equal(gen_write_file(p, png, len), 0);
            free(png);
            if (!fast_path_takes(p, 0))
                TFAIL("colour type %d, %d bits, interlace %d: png_inflate declined it", kinds[k].ct, kinds[k].depth,
                      il);
        }
}
