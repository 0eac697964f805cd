/* test_jpeg.c -- JPEG through apps/common: img_write's TurboJPEG output
 * decoded by stb_image (an independent decoder) and compared with the
 * source pixels, its frame header and quantisation tables against the JPEG
 * standard's tables under IJG's quality scaling; img_read_jpeg/img_read on
 * JPEGs that ImageMagick and jpegtran wrote (jpeg_fixtures/), compared with
 * stb_image; truncated and corrupt files; the magic-byte dispatch; and
 * nvJPEG against TurboJPEG on the GPU (gpu_* tests, skipped visibly
 * without a GPU or without nvJPEG in the build).
 *
 * Tests named cpu_* need no GPU; ctest runs the executable twice, split by
 * LIBSCAN_TEST_FILTER (test_jpeg: cpu_*, test_jpeg_gpu: gpu_*). */
#define _POSIX_C_SOURCE 200809L
#include "support/harness.h"

#include "common/image_io.h"
#include "common/jpeg_io.h"
#include "image_test_util.h"
#include "jpeg_check.h"
#include "png_gen.h"

#include <cuda_runtime_api.h>
#include <stb/stb_image.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef TEST_JPEG_FIXTURES
#error "TEST_JPEG_FIXTURES must name tests/apps/common/jpeg_fixtures"
#endif

/* ---- images and expectations ---------------------------------------------------- */

/* A test picture: smooth gradients (what JPEG keeps well) with a hard-edged
 * rectangle (what it does not), channel c offset so colours differ; alpha,
 * when present, in vertical stripes of 0, 128 and 255, so that a writer
 * that composited instead of dropping it would show. */
static void picture(img_t *img, int w, int h, int ch, int bits)
{
    char err[256];
    if (img_alloc(img, w, h, ch, bits, err, sizeof err) != 0)
        TFAIL("%s", err);
    const int alpha = (ch == 2 || ch == 4);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int c = 0; c < ch; ++c) {
                double v;
                if (alpha && c == ch - 1)
                    v = (x / 7) % 3 == 0 ? 0.0 : (x / 7) % 3 == 1 ? 128.0 / 255.0 : 1.0;
                else {
                    v = 0.15 + 0.7 * (0.5 + 0.5 * sin((x * (1 + c) + y * 2) * 0.03 + c));
                    if (x > w / 4 && x < w / 2 && y > h / 5 && y < h / 2)
                        v = c == 0 ? 0.9 : 0.1;
                }
                const size_t i = ((size_t)y * (size_t)w + (size_t)x) * (size_t)ch + (size_t)c;
                if (bits == 8)
                    ((uint8_t *)img->pixels)[i] = (uint8_t)lround(v * 255.0);
                else
                    ((uint16_t *)img->pixels)[i] = (uint16_t)lround(v * 65535.0);
            }
}

/* What a JPEG of *img should decode to: the colour channels at 8 bits
 * (16-bit samples rounded, v * 255 / 65535), alpha left out, as the
 * documentation of img_write says. *channels: 1 or 3. */
static uint8_t *expected_colour(const img_t *img, int *channels)
{
    const int ch = img->channels, och = ch >= 3 ? 3 : 1;
    const size_t n = img_pixel_count(img);
    uint8_t *e = malloc(n * (size_t)och);
    assert_non_null(e);
    for (size_t i = 0; i < n; ++i)
        for (int c = 0; c < och; ++c) {
            const size_t s = i * (size_t)ch + (size_t)c;
            const double v = img->bits == 8 ? ((const uint8_t *)img->pixels)[s]
                                            : ((const uint16_t *)img->pixels)[s] * 255.0 / 65535.0;
            e[i * (size_t)och + (size_t)c] = (uint8_t)lround(v);
        }
    *channels = och;
    return e;
}

/* The sampling factors a JPEG of subsampling s gives its luma component
 * (chroma components are 1 x 1). */
static void luma_factors(img_jpeg_subsampling_t s, int *h, int *v)
{
    *h = s == IMG_JPEG_SUB_444 ? 1 : 2;
    *v = s == IMG_JPEG_SUB_420 || s == IMG_JPEG_SUB_DEFAULT ? 2 : 1;
}

/* Check the markers of a JPEG we wrote: baseline, size, components,
 * sampling factors, and quantisation tables equal to IJG's for quality. */
static void check_markers(const char *what, const uint8_t *f, size_t len, int w, int h, int comps, int quality,
                          img_jpeg_subsampling_t sub)
{
    jc_info in;
    if (jc_parse(f, len, &in) != 0)
        TFAIL("%s: the markers do not parse", what);
    if (in.sof != 0xc0)
        TFAIL("%s: frame marker 0x%02x, expected baseline (0xc0)", what, in.sof);
    if (in.width != w || in.height != h || in.components != comps)
        TFAIL("%s: frame %dx%d with %d components, expected %dx%d with %d", what, in.width, in.height,
              in.components, w, h, comps);
    int lh = 1, lv = 1;
    if (comps == 3)
        luma_factors(sub, &lh, &lv);
    if (in.h[0] != lh || in.v[0] != lv)
        TFAIL("%s: luma sampling %dx%d, expected %dx%d (%s)", what, in.h[0], in.v[0], lh, lv,
              img_jpeg_subsampling_name(sub));
    for (int c = 1; c < comps; ++c)
        if (in.h[c] != 1 || in.v[c] != 1)
            TFAIL("%s: chroma component %d sampled %dx%d, expected 1x1", what, c, in.h[c], in.v[c]);
    for (int c = 0; c < comps; ++c) {
        uint16_t want[64];
        jc_ijg_table(quality, c > 0, want);
        const int t = in.tq[c];
        if (t > 3 || !in.have_table[t])
            TFAIL("%s: component %d uses table %d, which the file lacks", what, c, t);
        for (int k = 0; k < 64; ++k)
            if (in.table[t][k] != want[k])
                TFAIL("%s: component %d, quality %d: table entry %d is %u, IJG's is %u", what, c, quality, k,
                      in.table[t][k], want[k]);
    }
}

static uint8_t *read_whole(const char *path, size_t *len)
{
    uint8_t *f = itu_read_file(path, len);
    if (!f)
        TFAIL("cannot read %s back", path);
    return f;
}

/* The smallest PSNR and largest mean error a JPEG of the test picture may
 * have against its source, by quality, subsampling and gray or colour.
 * Chroma subsampling dominates (the hard-edged red rectangle). Measured
 * with libjpeg-turbo 2.1.5 on this picture (PSNR dB / mean error):
 *                 q50          q90          q100
 *   4:2:0      32.9 / 3.44  35.7 / 1.75  36.5 / 1.10
 *   4:2:2      34.3 / 2.97  38.6 / 1.39  39.9 / 0.80
 *   4:4:4      36.0 / 2.54  44.3 / 1.02  50.6 / 0.46
 *   gray       43.3 / 1.18  51.4 / 0.37  60.6 / 0.06
 * The bounds leave 3 dB and half again the mean error for other encoders
 * and versions. */
static void bounds_for(int quality, img_jpeg_subsampling_t sub, int channels, double *min_psnr, double *max_mean)
{
    static const double psnr[4][3] = {{32.9, 35.7, 36.5}, {34.3, 38.6, 39.9}, {36.0, 44.3, 50.6}, {43.3, 51.4, 60.6}};
    static const double mean[4][3] = {{3.44, 1.75, 1.10}, {2.97, 1.39, 0.80}, {2.54, 1.02, 0.46}, {1.18, 0.37, 0.06}};
    const int row = channels == 1 ? 3 : sub == IMG_JPEG_SUB_444 ? 2 : sub == IMG_JPEG_SUB_422 ? 1 : 0;
    const int col = quality >= 100 ? 2 : quality >= 90 ? 1 : 0;
    assert_true(quality == 50 || quality == 90 || quality == 100);
    *min_psnr = psnr[row][col] - 3.0;
    *max_mean = mean[row][col] * 1.5 + 0.05;
}

/* ---- writing through TurboJPEG -------------------------------------------------------- */

/* Every layout and depth img_write takes, three subsamplings, three
 * qualities: the file decodes (stb_image) to the source within JPEG's
 * error, with the component count, sampling factors and tables expected. */
static void cpu_write_decodes_close(void **state)
{
    (void)state;
    static const img_jpeg_subsampling_t subs[] = {IMG_JPEG_SUB_DEFAULT, IMG_JPEG_SUB_422, IMG_JPEG_SUB_444};
    static const int qualities[] = {50, 90, 100};
    for (int ch = 1; ch <= 4; ++ch)
        for (int bits = 8; bits <= 16; bits += 8) {
            img_t img;
            picture(&img, 97, 61, ch, bits); /* odd sides: partial blocks and MCUs */
            int ech;
            uint8_t *expect = expected_colour(&img, &ech);
            for (size_t si = 0; si < sizeof subs / sizeof subs[0]; ++si)
                for (size_t qi = 0; qi < sizeof qualities / sizeof qualities[0]; ++qi) {
                    const char *path = itu_path("w.jpg");
                    char err[512], what[128];
                    snprintf(what, sizeof what, "%d channels, %d bits, %s, quality %d", ch, bits,
                             img_jpeg_subsampling_name(subs[si]), qualities[qi]);
                    img_write_report_t rep;
                    img_write_opts_t o = {.jpeg_quality = qualities[qi], .jpeg_subsampling = subs[si], .report = &rep};
                    if (img_write(path, &img, &o, err, sizeof err) != 0)
                        TFAIL("%s: img_write: %s", what, err);
                    assert_string_equal(rep.jpeg_encoder, "TurboJPEG");
                    assert_string_equal(rep.note, "");
                    size_t len;
                    uint8_t *f = read_whole(path, &len);
                    check_markers(what, f, len, 97, 61, ech, qualities[qi], subs[si]);
                    int w, h, comps;
                    uint8_t *px = jc_stb_decode(f, len, &w, &h, &comps);
                    if (!px)
                        TFAIL("%s: stb_image cannot decode the file", what);
                    assert_int_equal(w, 97);
                    assert_int_equal(h, 61);
                    assert_int_equal(comps, ech);
                    jc_diff d = jc_compare(px, expect, (size_t)w * (size_t)h * (size_t)comps);
                    double min_psnr, max_mean;
                    bounds_for(qualities[qi], subs[si], ech, &min_psnr, &max_mean);
                    if (d.psnr < min_psnr || d.mean_abs > max_mean)
                        TFAIL("%s: decoded %.2f dB, mean error %.2f (bounds %.1f dB, %.1f)", what, d.psnr, d.mean_abs,
                              min_psnr, max_mean);
                    free(px);
                    free(f);
                }
            free(expect);
            img_free(&img);
        }
}

/* JPEG has no alpha: dropped, colour kept as stored (ImageMagick's
 * convert), not composited over black or white. */
static void cpu_write_alpha_dropped(void **state)
{
    (void)state;
    img_t img;
    char err[512];
    assert_int_equal(img_alloc(&img, 48, 16, 4, 8, err, sizeof err), 0);
    const uint8_t alphas[3] = {0, 128, 255};
    for (int y = 0; y < 16; ++y)
        for (int x = 0; x < 48; ++x) {
            uint8_t *p = (uint8_t *)img.pixels + ((size_t)y * 48 + (size_t)x) * 4;
            p[0] = 200;
            p[1] = 40;
            p[2] = 90;
            p[3] = alphas[x / 16];
        }
    const char *path = itu_path("alpha.jpg");
    img_write_opts_t o = {.jpeg_quality = 95, .jpeg_subsampling = IMG_JPEG_SUB_444};
    if (img_write(path, &img, &o, err, sizeof err) != 0)
        TFAIL("img_write: %s", err);
    size_t len;
    uint8_t *f = read_whole(path, &len);
    int w, h, comps;
    uint8_t *px = jc_stb_decode(f, len, &w, &h, &comps);
    assert_non_null(px);
    assert_int_equal(comps, 3);
    for (int t = 0; t < 3; ++t) {
        const uint8_t *p = px + (8 * 48 + t * 16 + 8) * 3; /* the tile's centre */
        if (abs(p[0] - 200) > 3 || abs(p[1] - 40) > 3 || abs(p[2] - 90) > 3)
            TFAIL("alpha %u: decoded (%u, %u, %u), expected the stored colour (200, 40, 90)", alphas[t], p[0], p[1],
                  p[2]);
    }
    free(px);
    free(f);
    img_free(&img);
}

/* Quality changes the tables (checked above) and so the size; 1 and 100
 * are accepted, 0 means 90. */
static void cpu_write_quality_and_default(void **state)
{
    (void)state;
    img_t img;
    picture(&img, 64, 64, 3, 8);
    char err[512];
    size_t sizes[3];
    const int qs[3] = {1, 0, 100};
    for (int i = 0; i < 3; ++i) {
        const char *path = itu_path("q.jpg");
        img_write_opts_t o = {.jpeg_quality = qs[i], .jpeg_subsampling = 0};
        if (img_write(path, &img, &o, err, sizeof err) != 0)
            TFAIL("quality %d: %s", qs[i], err);
        uint8_t *f = read_whole(path, &sizes[i]);
        check_markers(qs[i] ? "explicit quality" : "default quality", f, sizes[i], 64, 64, 3, qs[i] ? qs[i] : 90,
                      IMG_JPEG_SUB_420);
        free(f);
    }
    assert_true(sizes[0] < sizes[1] && sizes[1] < sizes[2]);
    /* NULL options: the defaults, quality 90 at 4:2:0. */
    const char *path = itu_path("null.jpg");
    if (img_write(path, &img, NULL, err, sizeof err) != 0)
        TFAIL("%s", err);
    size_t len;
    uint8_t *f = read_whole(path, &len);
    check_markers("NULL options", f, len, 64, 64, 3, 90, IMG_JPEG_SUB_420);
    free(f);
    img_free(&img);
}

/* Options img_write refuses before it creates anything. */
static void cpu_write_bad_options(void **state)
{
    (void)state;
    img_t img;
    picture(&img, 8, 8, 3, 8);
    const char *dir = itu_subdir("jpeg_bad");
    char p[1024], err[512];
    snprintf(p, sizeof p, "%s/o.jpg", dir);
    img_write_opts_t o = {.jpeg_quality = 90, .jpeg_subsampling = IMG_JPEG_SUB_OTHER}; /* for reading only */
    assert_int_equal(img_write(p, &img, &o, err, sizeof err), -1);
    assert_non_null(strstr(err, "subsampling"));
    assert_int_equal(strncmp(err, p, strlen(p)), 0);
    o.jpeg_subsampling = IMG_JPEG_SUB_GRAY;
    assert_int_equal(img_write(p, &img, &o, err, sizeof err), -1);
    o.jpeg_subsampling = -1;
    assert_int_equal(img_write(p, &img, &o, err, sizeof err), -1);
    o.jpeg_subsampling = 0;
    o.jpeg_quality = 101;
    assert_int_equal(img_write(p, &img, &o, err, sizeof err), -1);
    assert_non_null(strstr(err, "quality 101"));
    assert_int_equal(itu_count_entries(dir), 0);
    img_t tall;
    assert_int_equal(img_alloc(&tall, 1, IMG_JPEG_MAX_SIDE + 1, 1, 8, err, sizeof err), 0);
    assert_int_equal(img_write(p, &tall, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "too large"));
    assert_int_equal(itu_count_entries(dir), 0);
    img_free(&tall);
    img_free(&img);
}

/* The in-memory encoder: RGB plus a skipped fourth byte gives the RGB
 * encoding's bytes; bad arguments fail with a message. */
static void cpu_encode_turbo_api(void **state)
{
    (void)state;
    img_t rgba;
    picture(&rgba, 33, 17, 4, 8);
    const size_t n = img_pixel_count(&rgba);
    uint8_t *rgb = malloc(n * 3);
    assert_non_null(rgb);
    for (size_t i = 0; i < n; ++i)
        memcpy(rgb + i * 3, (uint8_t *)rgba.pixels + i * 4, 3);
    uint8_t *a = NULL, *b = NULL;
    size_t la = 0, lb = 0;
    char err[256];
    assert_int_equal(img_jpeg_encode_turbo(rgb, 33, 17, 3, 80, IMG_JPEG_SUB_422, &a, &la, err, sizeof err), 0);
    assert_int_equal(img_jpeg_encode_turbo(rgba.pixels, 33, 17, 4, 80, IMG_JPEG_SUB_422, &b, &lb, err, sizeof err), 0);
    assert_int_equal(la, lb);
    assert_memory_equal(a, b, la);
    free(a);
    free(b);
    assert_int_equal(img_jpeg_encode_turbo(rgb, 33, 17, 2, 80, 0, &a, &la, err, sizeof err), -1);
    assert_int_equal(img_jpeg_encode_turbo(rgb, 0, 17, 3, 80, 0, &a, &la, err, sizeof err), -1);
    assert_int_equal(img_jpeg_encode_turbo(rgb, 33, 17, 3, 101, 0, &a, &la, err, sizeof err), -1);
    assert_int_equal(img_jpeg_encode_turbo(NULL, 33, 17, 3, 80, 0, &a, &la, err, sizeof err), -1);
    assert_non_null(strstr(err, "invalid"));
    /* img_jpeg_samples: alpha dropped, 16 bits rounded. */
    img_t ga;
    picture(&ga, 5, 3, 2, 16);
    int ch = 0, ech = 0;
    uint8_t *s = img_jpeg_samples(&ga, &ch), *e = expected_colour(&ga, &ech);
    assert_non_null(s);
    assert_int_equal(ch, 1);
    assert_memory_equal(s, e, 15);
    free(s);
    free(e);
    assert_null(img_jpeg_samples(NULL, &ch));
    img_free(&ga);
    free(rgb);
    img_free(&rgba);
}

static void cpu_subsampling_names(void **state)
{
    (void)state;
    img_jpeg_subsampling_t s = IMG_JPEG_SUB_DEFAULT;
    const char *ok[] = {"420", "4:2:0", "422", "4:2:2", "444", "4:4:4"};
    const img_jpeg_subsampling_t want[] = {IMG_JPEG_SUB_420, IMG_JPEG_SUB_420, IMG_JPEG_SUB_422,
                                           IMG_JPEG_SUB_422, IMG_JPEG_SUB_444, IMG_JPEG_SUB_444};
    for (int i = 0; i < 6; ++i) {
        assert_int_equal(img_jpeg_parse_subsampling(ok[i], &s), 0);
        assert_int_equal(s, want[i]);
    }
    const char *bad[] = {"", "411", "4:2:0 ", "gray", "42"};
    for (int i = 0; i < 5; ++i) {
        s = IMG_JPEG_SUB_444;
        assert_int_equal(img_jpeg_parse_subsampling(bad[i], &s), -1);
        assert_int_equal(s, IMG_JPEG_SUB_444);
    }
    assert_int_equal(img_jpeg_parse_subsampling(NULL, &s), -1);
    assert_string_equal(img_jpeg_subsampling_name(IMG_JPEG_SUB_420), "4:2:0");
    assert_string_equal(img_jpeg_subsampling_name(IMG_JPEG_SUB_GRAY), "gray");
    assert_string_equal(img_jpeg_subsampling_name((img_jpeg_subsampling_t)42), "other");
}

/* jpeg_gpu without a GPU, or without nvJPEG in the build: TurboJPEG writes
 * the file; the note says why only when nvJPEG was there to fail. */
static void cpu_write_gpu_fallback(void **state)
{
    (void)state;
    if (img_jpeg_gpu_built() && test_gpu_present())
        return; /* nvJPEG works here: test_jpeg_gpu checks it (a skip would mark this CPU suite skipped) */
    img_t img;
    picture(&img, 20, 10, 3, 8);
    char err[512];
    img_write_report_t rep;
    img_write_opts_t o = {.jpeg_quality = 90, .jpeg_subsampling = 0, .jpeg_gpu = 1, .report = &rep};
    const char *path = itu_path("fallback.jpg");
    if (img_write(path, &img, &o, err, sizeof err) != 0)
        TFAIL("%s", err);
    assert_string_equal(rep.jpeg_encoder, "TurboJPEG");
    if (img_jpeg_gpu_built()) {
        if (!strstr(rep.note, "nvJPEG failed") || !strstr(rep.note, "TurboJPEG"))
            TFAIL("note: \"%s\"", rep.note);
    } else {
        assert_string_equal(rep.note, "");
        uint8_t *j = NULL;
        size_t l = 0;
        assert_int_equal(img_jpeg_encode_nvjpeg(img.pixels, 20, 10, 3, 90, 0, &j, &l, err, sizeof err), -1);
        assert_non_null(strstr(err, "no nvJPEG"));
        assert_int_equal(img_jpeg_encode_nvjpeg_device(img.pixels, 60, 20, 10, 3, 90, 0, NULL, &j, &l, err, sizeof err), -1);
        assert_null(j);
    }
    /* The report is cleared by every call: a PNG names no JPEG encoder. */
    if (img_write(itu_path("fallback.png"), &img, &o, err, sizeof err) != 0)
        TFAIL("%s", err);
    assert_string_equal(rep.jpeg_encoder, "");
    assert_string_equal(rep.note, "");
    img_free(&img);
}

/* ---- reading ----------------------------------------------------------------------- */

static const char *fixture(const char *name)
{
    static char buf[4][1024];
    static int next;
    char *b = buf[next++ % 4];
    snprintf(b, sizeof buf[0], "%s/%s", TEST_JPEG_FIXTURES, name);
    return b;
}

/* Every fixture (written by ImageMagick or jpegtran) read by img_read_jpeg
 * and by stb_image: the same size and layout, pixels within the two
 * decoders' differences (upsampling, IDCT rounding). */
static void cpu_read_fixtures(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int channels;
        img_jpeg_subsampling_t sub;
        double max_mean; /* against stb_image */
        int max_abs;
    } cases[] = {
        {"baseline_420.jpg", 3, IMG_JPEG_SUB_420, 1.0, 24}, {"s422.jpg", 3, IMG_JPEG_SUB_422, 1.0, 24},
        {"s440.jpg", 3, IMG_JPEG_SUB_440, 1.0, 24},         {"s411.jpg", 3, IMG_JPEG_SUB_411, 1.5, 40},
        {"s444.jpg", 3, IMG_JPEG_SUB_444, 0.5, 4},          {"progressive.jpg", 3, IMG_JPEG_SUB_420, 1.0, 24},
        {"gray.jpg", 1, IMG_JPEG_SUB_GRAY, 0.5, 4},         {"cmyk.jpg", 3, IMG_JPEG_SUB_OTHER, 1.0, 24},
        {"restart.jpg", 3, IMG_JPEG_SUB_420, 1.0, 24},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        const char *path = fixture(cases[i].name);
        img_t img;
        char err[512];
        if (img_read_jpeg(path, 0, &img, err, sizeof err) != 0)
            TFAIL("%s: %s", cases[i].name, err);
        assert_int_equal(img.width, 61);
        assert_int_equal(img.height, 45);
        assert_int_equal(img.bits, 8);
        assert_int_equal(img.channels, cases[i].channels);
        assert_int_equal(img.has_alpha, 0);
        assert_int_equal(img.source_format, IMG_FORMAT_JPEG);
        if (img.source_subsampling != (int)cases[i].sub)
            TFAIL("%s: subsampling %s, expected %s", cases[i].name,
                  img_jpeg_subsampling_name((img_jpeg_subsampling_t)img.source_subsampling),
                  img_jpeg_subsampling_name(cases[i].sub));
        size_t len;
        uint8_t *f = read_whole(path, &len);
        int w, h, comps;
        /* stb gives CMYK files as RGB itself: ask for the channels we have. */
        uint8_t *px = stbi_load_from_memory(f, (int)len, &w, &h, &comps, cases[i].channels);
        if (!px)
            TFAIL("%s: stb_image cannot decode it", cases[i].name);
        jc_diff d = jc_compare(img.pixels, px, img_byte_count(&img));
        if (d.mean_abs > cases[i].max_mean || d.max_abs > cases[i].max_abs)
            TFAIL("%s: against stb_image mean %.3f, max %d (bounds %.1f, %d)", cases[i].name, d.mean_abs, d.max_abs,
                  cases[i].max_mean, cases[i].max_abs);
        stbi_image_free(px);
        free(f);
        img_free(&img);
    }
    /* arithmetic.jpg holds baseline_420.jpg's coefficients (jpegtran
       -arithmetic), which stb_image cannot read: the same pixels exactly. */
    img_t a, b;
    char err[512];
    if (img_read_jpeg(fixture("arithmetic.jpg"), 0, &a, err, sizeof err) != 0)
        TFAIL("%s", err);
    if (img_read_jpeg(fixture("baseline_420.jpg"), 0, &b, err, sizeof err) != 0)
        TFAIL("%s", err);
    assert_int_equal(img_byte_count(&a), img_byte_count(&b));
    assert_memory_equal(a.pixels, b.pixels, img_byte_count(&a));
    char desc[128];
    assert_string_equal(img_describe(&a, desc, sizeof desc), "JPEG 4:2:0, 61x45 -> 8-bit RGB");
    img_free(&a);
    img_free(&b);
}

/* Our own output read back: what stb_image decodes of the same file. */
static void cpu_read_own_output(void **state)
{
    (void)state;
    for (int ch = 1; ch <= 3; ch += 2) {
        img_t src, got;
        picture(&src, 50, 30, ch, 8);
        const char *path = itu_path("own.jpg");
        char err[512];
        img_write_opts_t o = {.jpeg_quality = 85, .jpeg_subsampling = IMG_JPEG_SUB_444};
        if (img_write(path, &src, &o, err, sizeof err) != 0)
            TFAIL("%s", err);
        if (img_read(path, 0, &got, err, sizeof err) != 0)
            TFAIL("%s", err);
        assert_int_equal(got.channels, ch);
        assert_int_equal(got.source_subsampling, ch == 1 ? IMG_JPEG_SUB_GRAY : IMG_JPEG_SUB_444);
        size_t len;
        uint8_t *f = read_whole(path, &len);
        int w, h, comps;
        uint8_t *px = jc_stb_decode(f, len, &w, &h, &comps);
        assert_non_null(px);
        jc_diff d = jc_compare(got.pixels, px, img_byte_count(&got));
        if (d.max_abs > 3)
            TFAIL("%d channels: TurboJPEG and stb_image differ by up to %d", ch, d.max_abs);
        char desc[128];
        assert_string_equal(img_describe(&got, desc, sizeof desc),
                            ch == 1 ? "JPEG gray, 50x30 -> 8-bit gray" : "JPEG 4:4:4, 50x30 -> 8-bit RGB");
        free(px);
        free(f);
        img_free(&src);
        img_free(&got);
    }
}

/* img_read_jpeg must fail with one line starting with the path and holding
 * needle, leaving *out empty. */
static void expect_jpeg_error(const char *path, uint64_t max_pixels, const char *needle, const char *read_needle)
{
    img_t img;
    char err[512] = "";
    if (img_read_jpeg(path, max_pixels, &img, err, sizeof err) == 0)
        TFAIL("%s: read; expected an error with \"%s\"", path, needle);
    if (strncmp(err, path, strlen(path)) != 0 || strchr(err, '\n') || !strstr(err, needle))
        TFAIL("%s: message \"%s\" (expected one line naming the file with \"%s\")", path, err, needle);
    assert_null(img.pixels);
    assert_int_equal(img.width, 0);
    /* The dispatcher's answer for the same bytes: the same, but for bytes
       that are no JPEG at all (read_needle). */
    char err2[512] = "";
    if (!read_needle)
        read_needle = needle;
    if (img_read(path, max_pixels, &img, err2, sizeof err2) == 0 || !strstr(err2, read_needle))
        TFAIL("%s: img_read said \"%s\", expected \"%s\"", path, err2, read_needle);
}

static void write_bytes(const char *path, const uint8_t *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

/* Truncated anywhere, bytes damaged, not a JPEG: one line each, no image. */
static void cpu_read_corrupt(void **state)
{
    (void)state;
    size_t len;
    uint8_t *f = read_whole(fixture("baseline_420.jpg"), &len);
    const char *path = itu_path("bad.jpg");
    /* Cut inside the headers and inside the scan: every one refused. */
    for (size_t cut = 2; cut < len; cut += cut < 40 ? 7 : 97) {
        write_bytes(path, f, cut);
        img_t img;
        char err[512];
        if (img_read_jpeg(path, 0, &img, err, sizeof err) == 0)
            TFAIL("truncated to %zu of %zu bytes: read without an error", cut, len);
        if (strncmp(err, path, strlen(path)) != 0 || strchr(err, '\n') ||
            !(strstr(err, "truncated") || strstr(err, "corrupt")))
            TFAIL("truncated to %zu bytes: message \"%s\"", cut, err);
    }
    /* Cut just before the EOI marker: the scan ends without it. */
    write_bytes(path, f, len - 2);
    expect_jpeg_error(path, 0, "truncated JPEG file", NULL);
    /* Damaged entropy-coded data: stray markers in the middle of the scan. */
    uint8_t *g = malloc(len);
    assert_non_null(g);
    memcpy(g, f, len);
    for (size_t i = len / 2; i < len / 2 + 16 && i + 2 < len; i += 2) {
        g[i] = 0xff;
        g[i + 1] = (uint8_t)(0xd0 + ((i / 2) & 7)); /* restart markers where none belong */
    }
    write_bytes(path, g, len);
    expect_jpeg_error(path, 0, "corrupt JPEG file", NULL);
    /* A frame header with zero height. */
    memcpy(g, f, len);
    jc_info in;
    assert_int_equal(jc_parse(g, len, &in), 0);
    for (size_t i = 2; i + 9 < len; ++i)
        if (g[i] == 0xff && g[i + 1] == 0xc0) {
            g[i + 5] = 0;
            g[i + 6] = 0;
            break;
        }
    write_bytes(path, g, len);
    expect_jpeg_error(path, 0, "corrupt JPEG file", NULL);
    /* Not a JPEG; empty; a lone 0xff; a directory; missing. */
    write_bytes(path, (const uint8_t *)"GIF89a....", 10);
    expect_jpeg_error(path, 0, "not a JPEG file", "not a PNG or JPEG file");
    write_bytes(path, f, 0);
    expect_jpeg_error(path, 0, "empty file", NULL);
    write_bytes(path, f, 1);
    expect_jpeg_error(path, 0, "truncated JPEG file", NULL);
    img_t img;
    char err[512];
    assert_int_equal(img_read_jpeg(itu_dir(), 0, &img, err, sizeof err), -1);
    assert_non_null(strstr(err, "is a directory"));
    assert_int_equal(img_read_jpeg(itu_path("missing.jpg"), 0, &img, err, sizeof err), -1);
    assert_non_null(strstr(err, "cannot open"));
    assert_int_equal(img_read_jpeg(NULL, 0, &img, err, sizeof err), -1);
    assert_int_equal(img_read_jpeg(path, 0, NULL, err, sizeof err), -1);
    assert_int_equal(img_read(NULL, 0, &img, err, sizeof err), -1);
    assert_int_equal(img_read(path, 0, NULL, err, sizeof err), -1);
    assert_int_equal(img_jpeg_decode(NULL, 0, 0, &img, err, sizeof err), -1);
    free(g);
    free(f);
}

/* max_pixels is checked from the frame header, before decoding. */
static void cpu_read_max_pixels(void **state)
{
    (void)state;
    const char *path = fixture("s444.jpg");
    expect_jpeg_error(path, 61 * 45 - 1, "image too large", NULL);
    img_t img;
    char err[512];
    assert_int_equal(img_read_jpeg(path, 61 * 45, &img, err, sizeof err), 0);
    img_free(&img);
}

/* img_read goes by the first bytes, not the name. */
static void cpu_read_dispatch(void **state)
{
    (void)state;
    /* A PNG called .jpg (the tests' own PNG encoder). */
    uint16_t samples[6 * 4 * 3];
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; ++i)
        samples[i] = (uint16_t)(i * 7 % 256);
    gen_png g = {6, 4, 2, 8, 0, samples, NULL, 0, NULL, 0, 0, {0, 0, 0}, 0};
    uint8_t *png = NULL;
    size_t plen = 0;
    char err[512];
    assert_int_equal(gen_png_encode(&g, &png, &plen, err, sizeof err), 0);
    const char *as_jpg = itu_path("really_png.jpg");
    write_bytes(as_jpg, png, plen);
    img_t img;
    if (img_read(as_jpg, 0, &img, err, sizeof err) != 0)
        TFAIL("%s", err);
    assert_int_equal(img.source_format, IMG_FORMAT_PNG);
    assert_int_equal(img.channels, 3);
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; ++i)
        assert_int_equal(((uint8_t *)img.pixels)[i], samples[i]);
    img_free(&img);
    /* A JPEG called .png. */
    size_t jlen;
    uint8_t *jpeg = read_whole(fixture("gray.jpg"), &jlen);
    const char *as_png = itu_path("really_jpeg.png");
    write_bytes(as_png, jpeg, jlen);
    if (img_read(as_png, 0, &img, err, sizeof err) != 0)
        TFAIL("%s", err);
    assert_int_equal(img.source_format, IMG_FORMAT_JPEG);
    assert_int_equal(img.channels, 1);
    img_free(&img);
    /* Neither; empty; the start of a PNG signature (the PNG reader's
       "truncated"); a directory. */
    const char *other = itu_path("other.png");
    write_bytes(other, (const uint8_t *)"BM\x10\x00\x00\x00", 6);
    assert_int_equal(img_read(other, 0, &img, err, sizeof err), -1);
    if (!strstr(err, "not a PNG or JPEG file") || strncmp(err, other, strlen(other)) != 0)
        TFAIL("message \"%s\"", err);
    write_bytes(other, png, 0);
    assert_int_equal(img_read(other, 0, &img, err, sizeof err), -1);
    assert_non_null(strstr(err, "empty file"));
    write_bytes(other, png, 5);
    assert_int_equal(img_read(other, 0, &img, err, sizeof err), -1);
    assert_non_null(strstr(err, "truncated"));
    assert_int_equal(img_read(itu_dir(), 0, &img, err, sizeof err), -1);
    assert_non_null(strstr(err, "is a directory"));
    assert_int_equal(img_read(itu_path("nope.png"), 0, &img, err, sizeof err), -1);
    assert_non_null(strstr(err, "cannot open"));
    /* A FIFO is read once: its name decides (.jpg -> JPEG). */
    const char *fifo = itu_path("pipe.jpg");
    unlink(fifo);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        FILE *w = fopen(fifo, "wb");
        size_t ok = w ? fwrite(jpeg, 1, jlen, w) : 0;
        _exit(w && ok == jlen && fclose(w) == 0 ? 0 : 1);
    }
    const int rc = img_read(fifo, 0, &img, err, sizeof err);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (rc != 0)
        TFAIL("FIFO: %s", err);
    assert_int_equal(img.source_format, IMG_FORMAT_JPEG);
    img_free(&img);
    unlink(fifo);
    free(jpeg);
    free(png);
}

/* ---- nvJPEG against TurboJPEG (GPU) ---------------------------------------------------- */

static void require_nvjpeg(void)
{
    if (!img_jpeg_gpu_built())
        test_skip("this build has no nvJPEG (no CUDA::nvjpeg or nvjpeg.h at configure time)");
    test_require_gpu();
}

/* The same samples through both encoders: the same frame and tables
 * (sampling factors, TurboJPEG's quantisation tables), and decoded pixels
 * (stb_image) close to each other and both close to the source. */
static void gpu_nvjpeg_close_to_turbo(void **state)
{
    (void)state;
    require_nvjpeg();
    static const img_jpeg_subsampling_t subs[] = {IMG_JPEG_SUB_420, IMG_JPEG_SUB_422, IMG_JPEG_SUB_444};
    static const int qualities[] = {50, 90, 100};
    static const int sizes[][2] = {{61, 45}, {1023, 769}};
    for (int ch = 1; ch <= 3; ch += 2)
        for (size_t zi = 0; zi < 2; ++zi) {
            const int W = sizes[zi][0], H = sizes[zi][1];
            img_t img;
            picture(&img, W, H, ch, 8);
            const size_t n = (size_t)W * (size_t)H * (size_t)ch;
            for (size_t si = 0; si < 3; ++si)
                for (size_t qi = 0; qi < 3; ++qi) {
                    if (ch == 1 && si > 0)
                        continue; /* gray has no chroma to subsample */
                    char what[128], err[512];
                    snprintf(what, sizeof what, "%dx%d, %d channels, %s, quality %d", W, H, ch,
                             img_jpeg_subsampling_name(subs[si]), qualities[qi]);
                    uint8_t *tj = NULL, *nv = NULL;
                    size_t ltj = 0, lnv = 0;
                    if (img_jpeg_encode_turbo(img.pixels, W, H, ch, qualities[qi], subs[si], &tj, &ltj, err, sizeof err))
                        TFAIL("%s: TurboJPEG: %s", what, err);
                    if (img_jpeg_encode_nvjpeg(img.pixels, W, H, ch, qualities[qi], subs[si], &nv, &lnv, err, sizeof err))
                        TFAIL("%s: nvJPEG: %s", what, err);
                    check_markers(what, tj, ltj, W, H, ch, qualities[qi], subs[si]);
                    char nvwhat[160];
                    snprintf(nvwhat, sizeof nvwhat, "nvJPEG %s", what);
                    check_markers(nvwhat, nv, lnv, W, H, ch, qualities[qi], subs[si]);
                    int w1, h1, c1, w2, h2, c2;
                    uint8_t *ptj = jc_stb_decode(tj, ltj, &w1, &h1, &c1), *pnv = jc_stb_decode(nv, lnv, &w2, &h2, &c2);
                    if (!ptj || !pnv)
                        TFAIL("%s: stb_image cannot decode the %s output", what, ptj ? "nvJPEG" : "TurboJPEG");
                    assert_int_equal(w2, W);
                    assert_int_equal(h2, H);
                    assert_int_equal(c2, ch);
                    double min_psnr, max_mean;
                    bounds_for(qualities[qi], subs[si], ch, &min_psnr, &max_mean);
                    jc_diff dtj = jc_compare(ptj, img.pixels, n), dnv = jc_compare(pnv, img.pixels, n),
                            dboth = jc_compare(ptj, pnv, n);
                    /* nvJPEG's own DCT and chroma downsampling: within 2 dB
                       of TurboJPEG's fidelity, and the two decodes within
                       2 levels on average of each other. */
                    if (dnv.psnr < min_psnr - 2.0 || dnv.psnr < dtj.psnr - 2.0 || dnv.mean_abs > max_mean + 1.0)
                        TFAIL("%s: nvJPEG decodes to %.2f dB, mean %.2f from the source (TurboJPEG: %.2f dB, %.2f)",
                              what, dnv.psnr, dnv.mean_abs, dtj.psnr, dtj.mean_abs);
                    if (dboth.mean_abs > 2.0 || dboth.psnr < min_psnr - 2.0)
                        TFAIL("%s: nvJPEG and TurboJPEG decode %.2f apart on average (%.2f dB, max %d)", what,
                              dboth.mean_abs, dboth.psnr, dboth.max_abs);
                    printf("%s: TurboJPEG %zu bytes %.2f dB, nvJPEG %zu bytes %.2f dB, apart %.3f (max %d)\n", what, ltj,
                           dtj.psnr, lnv, dnv.psnr, dboth.mean_abs, dboth.max_abs);
                    free(ptj);
                    free(pnv);
                    free(tj);
                    free(nv);
                }
            img_free(&img);
        }
}

/* The device entry point with a pitch wider than a row gives what the host
 * one gives; img_write with jpeg_gpu uses nvJPEG and says so. */
static void gpu_nvjpeg_device_and_write(void **state)
{
    (void)state;
    require_nvjpeg();
    img_t img;
    picture(&img, 301, 199, 3, 8);
    const size_t row = 301 * 3;
    void *d = NULL;
    size_t pitch = 0;
    CUDA_CHECK(cudaMallocPitch(&d, &pitch, row + 64, 199));
    CUDA_CHECK(cudaMemcpy2D(d, pitch, img.pixels, row, row, 199, cudaMemcpyHostToDevice));
    uint8_t *a = NULL, *b = NULL;
    size_t la = 0, lb = 0;
    char err[512];
    if (img_jpeg_encode_nvjpeg_device(d, pitch, 301, 199, 3, 90, IMG_JPEG_SUB_420, NULL, &a, &la, err, sizeof err))
        TFAIL("device entry: %s", err);
    if (img_jpeg_encode_nvjpeg(img.pixels, 301, 199, 3, 90, IMG_JPEG_SUB_420, &b, &lb, err, sizeof err))
        TFAIL("host entry: %s", err);
    int w, h, c;
    uint8_t *pa = jc_stb_decode(a, la, &w, &h, &c), *pb = jc_stb_decode(b, lb, &w, &h, &c);
    assert_non_null(pa);
    assert_non_null(pb);
    jc_diff d2 = jc_compare(pa, pb, row * 199);
    if (d2.max_abs > 1)
        TFAIL("device and host entries decode up to %d apart", d2.max_abs);
    CUDA_CHECK(cudaFree(d));
    free(pa);
    free(pb);
    free(a);
    free(b);
    img_write_report_t rep;
    img_write_opts_t o = {.jpeg_quality = 90, .jpeg_subsampling = 0, .jpeg_gpu = 1, .report = &rep};
    const char *path = itu_path("gpu.jpg");
    if (img_write(path, &img, &o, err, sizeof err) != 0)
        TFAIL("%s", err);
    if (strcmp(rep.jpeg_encoder, "nvJPEG") != 0)
        TFAIL("img_write with jpeg_gpu used %s (note: %s)", rep.jpeg_encoder, rep.note);
    assert_string_equal(rep.note, "");
    size_t len;
    uint8_t *f = read_whole(path, &len);
    check_markers("img_write through nvJPEG", f, len, 301, 199, 3, 90, IMG_JPEG_SUB_420);
    free(f);
    img_free(&img);
}

int main(void)
{
    test_begin("test_jpeg");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cpu_write_decodes_close),
        cmocka_unit_test(cpu_write_alpha_dropped),
        cmocka_unit_test(cpu_write_quality_and_default),
        cmocka_unit_test(cpu_write_bad_options),
        cmocka_unit_test(cpu_encode_turbo_api),
        cmocka_unit_test(cpu_subsampling_names),
        cmocka_unit_test(cpu_write_gpu_fallback),
        cmocka_unit_test(cpu_read_fixtures),
        cmocka_unit_test(cpu_read_own_output),
        cmocka_unit_test(cpu_read_corrupt),
        cmocka_unit_test(cpu_read_max_pixels),
        cmocka_unit_test(cpu_read_dispatch),
        cmocka_unit_test(gpu_nvjpeg_close_to_turbo),
        cmocka_unit_test(gpu_nvjpeg_device_and_write),
    };
    const int failed = cmocka_run_group_tests(tests, NULL, NULL);
    itu_cleanup();
    return test_exit_code(failed);
}
