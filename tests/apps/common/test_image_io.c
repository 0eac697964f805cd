/* test_image_io.c -- apps/common/image_io: reading every kind of PNG
 * (checked against samples the test chose and encoded itself), malformed
 * files, img_t helpers, and the committed sample scene. main() of the
 * test_image_io suite (the writer and sRGB tests are in the sibling files). */
#define _POSIX_C_SOURCE 200809L
#include "support/harness.h"

#include "common/image_io.h"
#include "image_test_util.h"
#include "image_tests.h"
#include "png_gen.h"

#include <png.h> /* PNG_FILTER_* */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef TEST_MAKE_SCENE
#error "TEST_MAKE_SCENE (path of the make_scene program) must be defined by the build"
#endif
#ifndef TEST_SCENE_DIR
#error "TEST_SCENE_DIR (the data/scene folder) must be defined by the build"
#endif

/* ---- expected decoding, computed here from the file's samples ------------- */

typedef struct expect_img {
    int channels, bits;
    uint16_t *v; /* width * height * channels */
} expect_img;

static int has_trns(const gen_png *g)
{
    return g->color_type == 3 ? g->ntrns > 0 : g->has_trns_color;
}

static void expected_decode(const gen_png *g, expect_img *e)
{
    const int spp = gen_file_channels(g->color_type);
    const int trns = has_trns(g);
    const size_t n = (size_t)g->width * (size_t)g->height;
    e->bits = g->bit_depth == 16 ? 16 : 8;
    const unsigned full = e->bits == 16 ? 65535u : 255u;
    switch (g->color_type) {
    case 0: e->channels = trns ? 2 : 1; break;
    case 2: e->channels = trns ? 4 : 3; break;
    case 3: e->channels = trns ? 4 : 3; break;
    default: e->channels = spp; break;
    }
    e->v = (uint16_t *)malloc(n * (size_t)e->channels * sizeof(uint16_t));
    const unsigned maxv = (1u << g->bit_depth) - 1u;
    for (size_t i = 0; i < n; ++i) {
        const uint16_t *s = g->samples + i * (size_t)spp;
        uint16_t *o = e->v + i * (size_t)e->channels;
        if (g->color_type == 3) {
            for (int c = 0; c < 3; ++c)
                o[c] = g->palette[3 * s[0] + c];
            if (trns)
                o[3] = s[0] < g->ntrns ? g->trns_alpha[s[0]] : 255;
            continue;
        }
        for (int c = 0; c < spp; ++c)
            o[c] = (uint16_t)(g->bit_depth < 8 ? s[c] * 255u / maxv : s[c]);
        if (trns) {
            int match = 1;
            for (int c = 0; c < spp; ++c)
                match &= (s[c] == g->trns_color[c]);
            o[spp] = (uint16_t)(match ? 0 : full);
        }
    }
}

static uint16_t sample_at(const img_t *img, size_t i)
{
    return img->bits == 16 ? ((const uint16_t *)img->pixels)[i] : ((const uint8_t *)img->pixels)[i];
}

/* Random samples (and palette / tRNS) for one file. */
typedef struct gen_case {
    gen_png g;
    uint16_t *samples;
    uint8_t palette[256 * 3];
    uint8_t trns[256];
} gen_case;

static void make_case(gen_case *k, rng_t *r, int w, int h, int ct, int depth, int interlace, int trns)
{
    memset(k, 0, sizeof *k);
    const int spp = gen_file_channels(ct);
    const size_t n = (size_t)w * (size_t)h * (size_t)spp;
    k->samples = (uint16_t *)malloc(n * sizeof(uint16_t));
    const uint32_t range = 1u << depth;
    int npal = 0;
    if (ct == 3) {
        npal = (int)rng_range(r, 1, range > 256 ? 256 : range);
        for (int i = 0; i < npal * 3; ++i)
            k->palette[i] = (uint8_t)rng_below(r, 256);
        for (int i = 0; i < npal; ++i)
            k->trns[i] = (uint8_t)rng_below(r, 256);
    }
    for (size_t i = 0; i < n; ++i)
        k->samples[i] = (uint16_t)rng_below(r, ct == 3 ? (uint64_t)npal : range);
    k->g.width = w;
    k->g.height = h;
    k->g.color_type = ct;
    k->g.bit_depth = depth;
    k->g.interlace = interlace;
    k->g.samples = k->samples;
    if (ct == 3) {
        k->g.palette = k->palette;
        k->g.npalette = npal;
        if (trns) {
            k->g.trns_alpha = k->trns;
            k->g.ntrns = (int)rng_range(r, 1, npal); /* entries past ntrns stay opaque */
        }
    } else if (trns) {
        k->g.has_trns_color = 1;
        /* The transparent colour is the first pixel's, so it occurs. */
        for (int c = 0; c < spp; ++c)
            k->g.trns_color[c] = k->samples[c];
    }
}

static void check_decoded(const gen_case *k, const img_t *img, const char *what)
{
    expect_img e;
    expected_decode(&k->g, &e);
    if (img->width != k->g.width || img->height != k->g.height || img->channels != e.channels || img->bits != e.bits)
        TFAIL("%s: got %dx%d, %d channels, %d bits; expected %dx%d, %d channels, %d bits", what, img->width,
              img->height, img->channels, img->bits, k->g.width, k->g.height, e.channels, e.bits);
    const size_t n = (size_t)img->width * (size_t)img->height * (size_t)img->channels;
    for (size_t i = 0; i < n; ++i)
        if (sample_at(img, i) != e.v[i])
            TFAIL("%s: sample %zu (pixel %zu, channel %zu) is %u, expected %u", what, i, i / (size_t)e.channels,
                  i % (size_t)e.channels, sample_at(img, i), e.v[i]);
    const int trns = has_trns(&k->g);
    if (img->was_palette != (k->g.color_type == 3) || img->had_trns != trns ||
        img->interlaced != k->g.interlace || img->source_bits != k->g.bit_depth ||
        img->source_color_type != k->g.color_type || img->has_alpha != (e.channels == 2 || e.channels == 4))
        TFAIL("%s: wrong flags (was_palette %d, had_trns %d, interlaced %d, source_bits %d, source type %d, "
              "has_alpha %d)",
              what, img->was_palette, img->had_trns, img->interlaced, img->source_bits, img->source_color_type,
              img->has_alpha);
    free(e.v);
}

/* Encode, write to a file, read back with img_read_png and compare. */
static void roundtrip_case(gen_case *k, const char *name)
{
    uint8_t *png = NULL;
    size_t len = 0;
    char err[512];
    if (gen_png_encode(&k->g, &png, &len, err, sizeof err) != 0)
        TFAIL("%s: %s", name, err);
    const char *path = itu_path(name);
    assert_int_equal(gen_write_file(path, png, len), 0);
    free(png);
    img_t img;
    if (img_read_png(path, 0, &img, err, sizeof err) != 0)
        TFAIL("%s: img_read_png failed: %s", name, err);
    check_decoded(k, &img, name);
    img_free(&img);
}

static const int SIZES[][2] = {{1, 1}, {3, 7}, {17, 5}, {33, 9}, {8, 1}, {1, 9}};

/* Every colour type x every legal bit depth x tRNS or not x interlaced or
 * not x odd sizes. */
static void test_read_every_format(void **state)
{
    (void)state;
    static const struct {
        int ct, depth;
    } kinds[] = {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}, {2, 8}, {2, 16}, {3, 1}, {3, 2},
                 {3, 4}, {3, 8}, {4, 8}, {4, 16}, {6, 8}, {6, 16}};
    rng_t r;
    rng_init(&r, "read_every_format", 0);
    int cases = 0;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k)
        for (int trns = 0; trns <= 1; ++trns) {
            if (trns && (kinds[k].ct == 4 || kinds[k].ct == 6))
                continue; /* tRNS is not allowed with an alpha channel */
            for (int il = 0; il <= 1; ++il)
                for (size_t s = 0; s < sizeof SIZES / sizeof SIZES[0]; ++s) {
                    gen_case c;
                    make_case(&c, &r, SIZES[s][0], SIZES[s][1], kinds[k].ct, kinds[k].depth, il, trns);
                    char name[128];
                    snprintf(name, sizeof name, "ct%d_d%d_trns%d_il%d_%dx%d.png", kinds[k].ct, kinds[k].depth, trns,
                             il, SIZES[s][0], SIZES[s][1]);
                    roundtrip_case(&c, name);
                    free(c.samples);
                    ++cases;
                }
        }
    print_message("decoded %d generated PNG files exactly\n", cases);
}

/* Each of the five row filters alone, on every format that img_read_png
 * unfilters itself (8 and 16 bits, no palette, tRNS or interlacing:
 * png_unfilter.c, 1 to 8 bytes a pixel), at widths around its 8-byte loads
 * (rows shorter than 8 bytes, exactly 8, one pixel more), against the
 * samples libpng encoded. */
static void test_read_every_filter(void **state)
{
    (void)state;
    static const int kinds[][2] = {{0, 8}, {0, 16}, {2, 8}, {2, 16}, {4, 8}, {4, 16}, {6, 8}, {6, 16}};
    static const int filters[] = {PNG_FILTER_NONE, PNG_FILTER_SUB, PNG_FILTER_UP, PNG_FILTER_AVG, PNG_FILTER_PAETH};
    static const int widths[] = {1, 2, 3, 4, 5, 9, 64, 257};
    rng_t r;
    rng_init(&r, "read_every_filter", 0);
    int cases = 0;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k)
        for (size_t f = 0; f < sizeof filters / sizeof filters[0]; ++f)
            for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; ++wi) {
                gen_case c;
                make_case(&c, &r, widths[wi], (int)rng_range(&r, 1, 12), kinds[k][0], kinds[k][1], 0, 0);
                c.g.filters = filters[f];
                char name[96];
                snprintf(name, sizeof name, "filter%d_ct%d_d%d_w%d.png", filters[f], kinds[k][0], kinds[k][1],
                         widths[wi]);
                roundtrip_case(&c, name);
                free(c.samples);
                ++cases;
            }
    print_message("decoded %d single-filter PNG files exactly\n", cases);
}

/* Larger images, so that the Adam7 passes and filters get real work. */
static void test_read_larger_interlaced(void **state)
{
    (void)state;
    rng_t r;
    rng_init(&r, "read_larger", 0);
    static const int kinds[][2] = {{0, 1}, {0, 16}, {2, 16}, {3, 4}, {6, 8}, {6, 16}};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k) {
        gen_case c;
        int w = (int)rng_range(&r, 50, 300), h = (int)rng_range(&r, 50, 200);
        make_case(&c, &r, w, h, kinds[k][0], kinds[k][1], 1, kinds[k][0] == 3);
        char name[64];
        snprintf(name, sizeof name, "large_ct%d_d%d.png", kinds[k][0], kinds[k][1]);
        roundtrip_case(&c, name);
        free(c.samples);
    }
}

/* Low-bit gray is scaled to the full range: spot values by hand. */
static void test_read_gray_scaling(void **state)
{
    (void)state;
    static const uint16_t s1[2] = {0, 1}, s2[4] = {0, 1, 2, 3}, s4[4] = {0, 1, 7, 15};
    static const uint8_t want1[2] = {0, 255}, want2[4] = {0, 85, 170, 255}, want4[4] = {0, 17, 119, 255};
    const struct {
        int depth, n;
        const uint16_t *s;
        const uint8_t *want;
    } t[] = {{1, 2, s1, want1}, {2, 4, s2, want2}, {4, 4, s4, want4}};
    for (int i = 0; i < 3; ++i) {
        gen_png g;
        memset(&g, 0, sizeof g);
        g.width = t[i].n;
        g.height = 1;
        g.bit_depth = t[i].depth;
        g.samples = t[i].s;
        uint8_t *png;
        size_t len;
        char err[256];
        assert_int_equal(gen_png_encode(&g, &png, &len, err, sizeof err), 0);
        const char *path = itu_path("gray_scaling.png");
        assert_int_equal(gen_write_file(path, png, len), 0);
        free(png);
        img_t img;
        assert_int_equal(img_read_png(path, 0, &img, err, sizeof err), 0);
        assert_int_equal(img.bits, 8);
        assert_memory_equal(img.pixels, t[i].want, (size_t)t[i].n);
        img_free(&img);
    }
}

/* ---- malformed input ------------------------------------------------------ */

/* A small valid 8-bit RGB file in memory. */
static uint8_t *valid_png(size_t *len)
{
    static uint16_t s[5 * 4 * 3];
    for (size_t i = 0; i < sizeof s / sizeof s[0]; ++i)
        s[i] = (uint16_t)((i * 37u) & 0xff);
    gen_png g;
    memset(&g, 0, sizeof g);
    g.width = 5;
    g.height = 4;
    g.color_type = 2;
    g.bit_depth = 8;
    g.samples = s;
    uint8_t *png;
    char err[256];
    if (gen_png_encode(&g, &png, len, err, sizeof err) != 0)
        TFAIL("%s", err);
    return png;
}

/* Read path and expect a failure whose message names the file, is one line
 * and contains `needle`; the image must come back empty. */
static void expect_read_error(const char *path, uint64_t max_pixels, const char *needle)
{
    img_t img;
    memset(&img, 0x5a, sizeof img); /* poisoned: the reader must reset it */
    char err[512] = "";
    int rc = img_read_png(path, max_pixels, &img, err, sizeof err);
    if (rc != -1) {
        img_free(&img);
        TFAIL("%s: expected an error containing \"%s\", got success", path, needle);
    }
    if (img.pixels != NULL || img.width != 0 || img.height != 0)
        TFAIL("%s: the image is not left empty after an error", path);
    if (strncmp(err, path, strlen(path)) != 0)
        TFAIL("%s: the message does not start with the file name: \"%s\"", path, err);
    if (strchr(err, '\n'))
        TFAIL("%s: the message is not one line: \"%s\"", path, err);
    if (!strstr(err, needle))
        TFAIL("%s: the message \"%s\" does not contain \"%s\"", path, err, needle);
}

static void test_read_truncated(void **state)
{
    (void)state;
    size_t len;
    uint8_t *png = valid_png(&len);
    long idat = gen_find_chunk(png, len, "IDAT");
    long iend = gen_find_chunk(png, len, "IEND");
    assert_true(idat > 0 && iend > idat);
    /* Inside the signature, at its end, inside IHDR, after IHDR, inside IDAT,
     * before IEND, one byte short. */
    const size_t cuts[] = {1, 4, 7, 8, 12, 20, 33, (size_t)idat + 4, (size_t)idat + 10, (size_t)iend, len - 1};
    const char *path = itu_path("truncated.png");
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; ++i) {
        assert_int_equal(gen_write_file(path, png, cuts[i]), 0);
        expect_read_error(path, 0, "truncated");
    }
    /* The whole file reads. */
    assert_int_equal(gen_write_file(path, png, len), 0);
    img_t img;
    char err[256];
    assert_int_equal(img_read_png(path, 0, &img, err, sizeof err), 0);
    img_free(&img);
    free(png);
}

static void test_read_bad_signature(void **state)
{
    (void)state;
    size_t len;
    uint8_t *png = valid_png(&len);
    const char *path = itu_path("badsig.png");
    for (int at = 0; at < 8; ++at) {
        png[at] ^= 0x20;
        assert_int_equal(gen_write_file(path, png, len), 0);
        expect_read_error(path, 0, "not a PNG file (bad signature)");
        png[at] ^= 0x20;
    }
    static const char text[] = "this is a text file, not an image\n";
    assert_int_equal(gen_write_file(path, text, sizeof text - 1), 0);
    expect_read_error(path, 0, "not a PNG file (bad signature)");
    assert_int_equal(gen_write_file(path, "GIF", 3), 0); /* short and wrong */
    expect_read_error(path, 0, "not a PNG file (bad signature)");
    free(png);
}

static void test_read_bad_crc(void **state)
{
    (void)state;
    size_t len;
    uint8_t *png = valid_png(&len);
    const char *path = itu_path("badcrc.png");
    const char *chunks[] = {"IHDR", "IDAT"};
    for (int c = 0; c < 2; ++c) {
        long off = gen_find_chunk(png, len, chunks[c]);
        assert_true(off > 0);
        for (int k = 0; k < 2; ++k) {
            size_t at = (size_t)off + 8 + (k == 0 ? 0 : 3); /* a data byte */
            png[at] ^= 0x01;
            assert_int_equal(gen_write_file(path, png, len), 0);
            expect_read_error(path, 0, "CRC error");
            png[at] ^= 0x01;
        }
        /* The stored CRC itself. */
        size_t n = ((size_t)png[off] << 24) | ((size_t)png[off + 1] << 16) | ((size_t)png[off + 2] << 8) | png[off + 3];
        png[(size_t)off + 8 + n] ^= 0x80;
        assert_int_equal(gen_write_file(path, png, len), 0);
        expect_read_error(path, 0, "CRC error");
        png[(size_t)off + 8 + n] ^= 0x80;
    }
    free(png);
}

/* A hand-made file: IHDR with the given size, a tiny IDAT, IEND. */
static void write_handmade(const char *path, uint32_t w, uint32_t h)
{
    gen_buf b = {0};
    gen_put_signature(&b);
    gen_put_ihdr(&b, w, h, 8, 0, 0);
    static const uint8_t idat[] = {0x78, 0x9c, 0x63, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01}; /* zlib of one 0 byte */
    gen_put_chunk(&b, "IDAT", idat, sizeof idat);
    gen_put_chunk(&b, "IEND", NULL, 0);
    assert_int_equal(gen_write_file(path, b.data, b.len), 0);
    gen_buf_free(&b);
}

static void test_read_zero_size(void **state)
{
    (void)state;
    const char *path = itu_path("zero.png");
    write_handmade(path, 0, 7);
    expect_read_error(path, 0, "width is zero");
    write_handmade(path, 7, 0);
    expect_read_error(path, 0, "height is zero");
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void test_read_enormous(void **state)
{
    (void)state;
    const char *path = itu_path("enormous.png");
    write_handmade(path, 100000, 100000); /* 10^10 pixels: 10 GB as gray 8-bit */
    double t0 = now_s();
    expect_read_error(path, 0, "too large");
    double dt = now_s() - t0;
    if (dt > 0.5)
        TFAIL("refusing the enormous image took %.3f s: it must be refused from the IHDR", dt);
    /* Just over and at a custom limit (the tiny IDAT makes the at-limit read
     * fail later for a different reason, so use a real 17x5 file). */
    gen_case c;
    rng_t r;
    rng_init(&r, "enormous", 0);
    make_case(&c, &r, 17, 5, 2, 8, 0, 0);
    uint8_t *png;
    size_t len;
    char err[256];
    assert_int_equal(gen_png_encode(&c.g, &png, &len, err, sizeof err), 0);
    const char *p2 = itu_path("limit.png");
    assert_int_equal(gen_write_file(p2, png, len), 0);
    free(png);
    expect_read_error(p2, 84, "too large");
    img_t img;
    if (img_read_png(p2, 85, &img, err, sizeof err) != 0)
        TFAIL("17x5 with max_pixels 85: %s", err);
    check_decoded(&c, &img, "limit.png");
    img_free(&img);
    free(c.samples);
}

static void test_read_empty_missing_directory(void **state)
{
    (void)state;
    const char *path = itu_path("empty.png");
    assert_int_equal(gen_write_file(path, "", 0), 0);
    expect_read_error(path, 0, "empty file");
    expect_read_error(itu_path("does-not-exist.png"), 0, "cannot open");
    expect_read_error(itu_subdir("a-directory.png"), 0, "is a directory");
    if (geteuid() != 0) { /* root reads anything */
        const char *locked = itu_path("unreadable.png");
        assert_int_equal(gen_write_file(locked, "\x89PNG", 4), 0);
        assert_int_equal(chmod(locked, 0), 0);
        expect_read_error(locked, 0, "cannot open");
    }
    /* NULL arguments are errors, not crashes. */
    img_t img;
    char err[128];
    assert_int_equal(img_read_png(NULL, 0, &img, err, sizeof err), -1);
    assert_int_equal(img_read_png(path, 0, NULL, err, sizeof err), -1);
    assert_int_equal(img_read_png(path, 0, &img, NULL, 0), -1); /* no message buffer: still fails cleanly */
}

/* ---- img_t helpers -------------------------------------------------------- */

static void test_alloc_free_describe(void **state)
{
    (void)state;
    img_t img;
    char err[256];
    assert_int_equal(img_alloc(&img, 3, 2, 4, 16, err, sizeof err), 0);
    assert_int_equal(img_pixel_count(&img), 6);
    assert_int_equal(img_byte_count(&img), 6 * 4 * 2);
    assert_int_equal(img.has_alpha, 1);
    assert_int_equal(img.source_color_type, IMG_SOURCE_NONE);
    for (size_t i = 0; i < img_byte_count(&img); ++i)
        assert_int_equal(((uint8_t *)img.pixels)[i], 0);
    char buf[128];
    assert_string_equal(img_describe(&img, buf, sizeof buf), "16-bit RGBA 3x2");
    img_free(&img);
    assert_null(img.pixels);
    assert_int_equal(img_pixel_count(&img), 0);
    img_free(&img); /* twice is fine */
    img_free(NULL);
    assert_string_equal(img_describe(&img, buf, sizeof buf), "empty image");
    assert_string_equal(img_describe(NULL, buf, 4), "emp"); /* truncated, terminated */

    const int bad[][4] = {{0, 1, 1, 8}, {1, 0, 1, 8}, {-1, 1, 1, 8}, {1, 1, 0, 8}, {1, 1, 5, 8}, {1, 1, 3, 12}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        err[0] = 0;
        assert_int_equal(img_alloc(&img, bad[i][0], bad[i][1], bad[i][2], bad[i][3], err, sizeof err), -1);
        assert_null(img.pixels);
        assert_true(strstr(err, "img_alloc") != NULL);
    }
    assert_int_equal(img_alloc(NULL, 1, 1, 1, 8, err, sizeof err), -1);

    /* What a read image says about its file. */
    gen_case c;
    rng_t r;
    rng_init(&r, "describe", 0);
    make_case(&c, &r, 17, 5, 3, 4, 1, 1);
    uint8_t *png;
    size_t len;
    assert_int_equal(gen_png_encode(&c.g, &png, &len, err, sizeof err), 0);
    const char *path = itu_path("describe.png");
    assert_int_equal(gen_write_file(path, png, len), 0);
    free(png);
    assert_int_equal(img_read_png(path, 0, &img, err, sizeof err), 0);
    assert_string_equal(img_describe(&img, buf, sizeof buf), "PNG 4-bit palette with tRNS, interlaced, 17x5 -> 8-bit RGBA");
    img_free(&img);
    free(c.samples);
}

/* ---- the committed sample scene ------------------------------------------- */

static void read_ok(const char *path, img_t *img)
{
    char err[512];
    if (img_read_png(path, 0, img, err, sizeof err) != 0)
        TFAIL("%s", err);
}

static void test_scene_files_decode(void **state)
{
    (void)state;
    img_t scene, depth;
    read_ok(TEST_SCENE_DIR "/scene.png", &scene);
    read_ok(TEST_SCENE_DIR "/depth.png", &depth);
    assert_int_equal(scene.width, 960);
    assert_int_equal(scene.height, 540);
    assert_int_equal(scene.channels, 3);
    assert_int_equal(scene.bits, 8);
    assert_int_equal(depth.width, scene.width);
    assert_int_equal(depth.height, scene.height);
    assert_int_equal(depth.channels, 1);
    assert_int_equal(depth.bits, 8);
    /* White = far: the top row is sky (255), the bottom row is near floor. */
    const uint8_t *d = (const uint8_t *)depth.pixels;
    assert_int_equal(d[0], 255);
    assert_true(d[(size_t)(depth.height - 1) * (size_t)depth.width] < 16);
    img_free(&scene);
    img_free(&depth);
}

static void compare_files(const char *committed, const char *fresh)
{
    img_t a, b;
    read_ok(committed, &a);
    read_ok(fresh, &b);
    if (a.width != b.width || a.height != b.height || a.channels != b.channels || a.bits != b.bits ||
        memcmp(a.pixels, b.pixels, img_byte_count(&a)) != 0)
        TFAIL("make_scene's %s has different pixels from the committed %s: regenerate data/scene", fresh, committed);
    img_free(&a);
    img_free(&b);
    size_t la, lb;
    uint8_t *fa = itu_read_file(committed, &la), *fb = itu_read_file(fresh, &lb);
    assert_non_null(fa);
    assert_non_null(fb);
    if (la != lb || memcmp(fa, fb, la) != 0)
        TFAIL("%s (%zu bytes) and %s (%zu bytes) have the same pixels but different bytes (a different zlib?)",
              committed, la, fresh, lb);
    free(fa);
    free(fb);
}

static void test_scene_reproducible(void **state)
{
    (void)state;
    const char *dir = itu_subdir("scene");
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' '%s'", TEST_MAKE_SCENE, dir);
    int rc = system(cmd);
    if (rc != 0)
        TFAIL("%s exited with status %d", cmd, rc);
    char p1[1024], p2[1024];
    snprintf(p1, sizeof p1, "%s/scene.png", dir);
    snprintf(p2, sizeof p2, "%s/depth.png", dir);
    compare_files(TEST_SCENE_DIR "/scene.png", p1);
    compare_files(TEST_SCENE_DIR "/depth.png", p2);
    assert_int_equal(itu_count_entries(dir), 2); /* nothing else left behind */
}

/* make_scene --scale K: the same scene K times larger; bad K is refused. */
static void test_scene_scaled(void **state)
{
    (void)state;
    const char *dir = itu_subdir("scene2");
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' --scale 2 '%s'", TEST_MAKE_SCENE, dir);
    int rc = system(cmd);
    if (rc != 0)
        TFAIL("%s exited with status %d", cmd, rc);
    char p[1024];
    img_t scene, depth, small;
    snprintf(p, sizeof p, "%s/scene.png", dir);
    read_ok(p, &scene);
    snprintf(p, sizeof p, "%s/depth.png", dir);
    read_ok(p, &depth);
    read_ok(TEST_SCENE_DIR "/depth.png", &small);
    assert_int_equal(scene.width, 1920);
    assert_int_equal(scene.height, 1080);
    assert_int_equal(depth.width, 1920);
    assert_int_equal(depth.height, 1080);
    /* Same scene: most depth samples at (2x+1, 2y+1) land within one level of the committed map's (x, y). */
    const uint8_t *d2 = (const uint8_t *)depth.pixels, *d1 = (const uint8_t *)small.pixels;
    size_t close = 0, total = 0;
    const size_t w1 = (size_t)small.width, h1 = (size_t)small.height, w2 = (size_t)depth.width;
    for (size_t y = 0; y < h1; y += 7)
        for (size_t x = 0; x < w1; x += 7, ++total) {
            const int a = d1[y * w1 + x], b = d2[(2 * y + 1) * w2 + 2 * x + 1];
            close += a - b <= 1 && b - a <= 1;
        }
    if (close * 100 < total * 95)
        TFAIL("--scale 2 depth map matches the committed one at only %zu of %zu samples", close, total);
    img_free(&scene);
    img_free(&depth);
    img_free(&small);
    const char *bad[] = {"0", "9", "x", "2x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        snprintf(cmd, sizeof cmd, "'%s' --scale %s '%s' 2>/dev/null", TEST_MAKE_SCENE, bad[i], dir);
        rc = system(cmd);
        if (!WIFEXITED(rc) || WEXITSTATUS(rc) != 1)
            TFAIL("make_scene --scale %s: exit status %d, want 1", bad[i], rc);
    }
}

int main(void)
{
    test_begin("test_image_io");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_every_format),
        cmocka_unit_test(test_read_every_filter),
        cmocka_unit_test(test_read_larger_interlaced),
        cmocka_unit_test(test_read_gray_scaling),
        cmocka_unit_test(test_read_truncated),
        cmocka_unit_test(test_read_bad_signature),
        cmocka_unit_test(test_read_bad_crc),
        cmocka_unit_test(test_read_zero_size),
        cmocka_unit_test(test_read_enormous),
        cmocka_unit_test(test_read_empty_missing_directory),
        cmocka_unit_test(test_alloc_free_describe),
        cmocka_unit_test(test_write_png_roundtrip),
        cmocka_unit_test(test_write_png_16bit_from_file),
        cmocka_unit_test(test_write_bmp),
        cmocka_unit_test(test_write_tga),
        cmocka_unit_test(test_write_extension_rules),
        cmocka_unit_test(test_write_unknown_extension),
        cmocka_unit_test(test_write_bad_image_and_options),
        cmocka_unit_test(test_write_missing_directory),
        cmocka_unit_test(test_write_unwritable_directory),
        cmocka_unit_test(test_write_path_is_directory),
        cmocka_unit_test(test_write_atomic_replace),
        cmocka_unit_test(test_write_fails_midway),
        cmocka_unit_test(test_write_full_device),
        cmocka_unit_test(test_write_signal_cleanup),
        cmocka_unit_test(test_png_deflate_bands),
        cmocka_unit_test(test_png_deflate_dictionary),
        cmocka_unit_test(test_png_deflate_failures),
        cmocka_unit_test(test_write_png_levels),
        cmocka_unit_test(test_write_png_wide),
        cmocka_unit_test(test_write_png_bad_options),
        cmocka_unit_test(test_read_fast_path),
        cmocka_unit_test(test_read_fast_path_every_kind),
        cmocka_unit_test(test_png_unfilter_threads_match_spec),
        cmocka_unit_test(test_png_unfilter_tall_narrow),
        cmocka_unit_test(test_png_unfilter_large),
        cmocka_unit_test(test_png_unfilter_bad_type),
        cmocka_unit_test(test_png_unfilter_thread_rule),
        cmocka_unit_test(test_srgb_known_points),
        cmocka_unit_test(test_srgb8_table_and_roundtrip),
        cmocka_unit_test(test_srgb16_roundtrip),
        cmocka_unit_test(test_srgb_clamping),
        cmocka_unit_test(test_f32_plain_and_linear),
        cmocka_unit_test(test_f32_premultiply_roundtrip),
        cmocka_unit_test(test_f32_16bit_roundtrip),
        cmocka_unit_test(test_f32_bad_arguments),
        cmocka_unit_test(test_scene_files_decode),
        cmocka_unit_test(test_scene_reproducible),
        cmocka_unit_test(test_scene_scaled),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    itu_cleanup();
    return test_exit_code(failed);
}
