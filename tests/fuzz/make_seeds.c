/* make_seeds.c -- writes the seed corpora of the three harnesses:
 *
 *   fuzz_make_seeds DIR     writes DIR/npy/, DIR/text/, DIR/png/ (the folders must exist)
 *
 * The committed corpora (tests/fuzz/corpus/) were written by it; files whose
 * names start with "regress-" were added by hand, one per bug a fuzzer found
 * (README.md). Every file is small. The bytes are built here, independently
 * of the readers: .npy headers by hand, text as literal lines, PNGs through
 * the tests' own encoder (tests/apps/common/png_gen.c), so the seeds cover
 * what the formats allow, valid and invalid, whatever the readers do with it. */
#include "png_gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *g_dir;
static int g_count;

static void put_file(const char *sub, const char *name, const void *data, size_t n) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/%s", g_dir, sub, name);
    if (gen_write_file(path, data, n) != 0) {
        fprintf(stderr, "make_seeds: cannot write %s\n", path);
        exit(1);
    }
    ++g_count;
}

/* ---- .npy ----------------------------------------------------------------- */

/* A .npy file: magic, version, length field (2 bytes for major 1, else 4),
 * the dict padded with `pad` ('\0' or ' ') up to a multiple of 64 bytes and a
 * '\n', then the data bytes as given. */
static void npy(const char *name, int major, const char *dict, char pad, const void *data, size_t n) {
    gen_buf b = {0};
    const size_t prefix = major == 1 ? 10 : 12, len = strlen(dict);
    size_t total = (prefix + len + 1 + 63) / 64 * 64;
    size_t hlen = total - prefix;
    uint8_t pre[12] = {0x93, 'N', 'U', 'M', 'P', 'Y', (uint8_t)major, 0};
    for (size_t i = 0; i < prefix - 8; ++i) pre[8 + i] = (uint8_t)(hlen >> (8 * i));
    gen_buf_put(&b, pre, prefix);
    gen_buf_put(&b, dict, len);
    for (size_t i = prefix + len; i + 1 < total; ++i) gen_buf_put(&b, &pad, 1);
    gen_buf_put(&b, "\n", 1);
    if (n) gen_buf_put(&b, data, n);
    put_file("npy", name, b.data, b.len);
    gen_buf_free(&b);
}

/* n elements of `size` bytes from the little-endian bytes in le, written in
 * the byte order `order` ('<', '>' or '|'). */
static void npy_typed(const char *order, const char *kind, int size, const uint8_t *le, int n) {
    char dict[128], name[64];
    snprintf(dict, sizeof dict, "{'descr': '%s%s%d', 'fortran_order': False, 'shape': (%d,), }", order, kind,
             size, n);
    snprintf(name, sizeof name, "%s%d-%s.npy", kind, size, order[0] == '<' ? "le" : order[0] == '>' ? "be" : "na");
    uint8_t data[256];
    for (int i = 0; i < n; ++i)
        for (int b = 0; b < size; ++b) data[i * size + b] = le[i * size + (order[0] == '>' ? size - 1 - b : b)];
    npy(name, 1, dict, ' ', data, (size_t)(n * size));
}

static void npy_seeds(void) {
    /* Edge values of every type, little-endian bytes: 0, 1, the extremes,
       -1 / all ones, and for floats -0, inf, NaN and a subnormal. */
    static const uint8_t b1[] = {0, 1, 1, 0};
    static const uint8_t i1[] = {0x00, 0x01, 0x7f, 0x80, 0xff};
    static const uint8_t i2[] = {0x00, 0x00, 0x01, 0x00, 0xff, 0x7f, 0x00, 0x80, 0xff, 0xff};
    static const uint8_t i4[] = {0, 0, 0, 0, 1, 0, 0, 0, 0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0x80, 0xff, 0xff, 0xff, 0xff};
    static const uint8_t i8[] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0,
                                 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0, 0, 0, 0, 0x80,
                                 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    /* float16: 0, 1, 65504, -0, inf, NaN, the smallest subnormal */
    static const uint8_t f2[] = {0x00, 0x00, 0x00, 0x3c, 0xff, 0x7b, 0x00, 0x80, 0x00, 0x7c, 0x00, 0x7e, 0x01, 0x00};
    /* float32: 0, 1.5, FLT_MAX, -0, -inf, NaN with payload, smallest subnormal */
    static const uint8_t f4[] = {0, 0, 0, 0, 0, 0, 0xc0, 0x3f, 0xff, 0xff, 0x7f, 0x7f, 0, 0, 0, 0x80,
                                 0, 0, 0x80, 0xff, 1, 0, 0xc0, 0x7f, 1, 0, 0, 0};
    /* float64: 0, -2.25, DBL_MAX, inf, -NaN, smallest subnormal */
    static const uint8_t f8[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0xc0,
                                 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xef, 0x7f, 0, 0, 0, 0, 0, 0, 0xf0, 0x7f,
                                 0, 0, 0, 0, 0, 0, 0xf8, 0xff, 1, 0, 0, 0, 0, 0, 0, 0};
    npy_typed("|", "b", 1, b1, 4);
    npy_typed("|", "i", 1, i1, 5);
    npy_typed("|", "u", 1, i1, 5);
    static const char *orders[] = {"<", ">"};
    for (int o = 0; o < 2; ++o) {
        npy_typed(orders[o], "i", 2, i2, 5);
        npy_typed(orders[o], "u", 2, i2, 5);
        npy_typed(orders[o], "i", 4, i4, 5);
        npy_typed(orders[o], "u", 4, i4, 5);
        npy_typed(orders[o], "i", 8, i8, 5);
        npy_typed(orders[o], "u", 8, i8, 5);
        npy_typed(orders[o], "f", 2, f2, 7);
        npy_typed(orders[o], "f", 4, f4, 7);
        npy_typed(orders[o], "f", 8, f8, 6);
    }
    static const uint8_t one_to_six[] = {1, 2, 3, 4, 5, 6};
    npy("native-order.npy", 1, "{'descr': '=u1', 'fortran_order': False, 'shape': (6,), }", ' ', one_to_six, 6);
    npy("version2.npy", 2, "{'descr': '<u1', 'fortran_order': False, 'shape': (6,), }", ' ', one_to_six, 6);
    npy("version3.npy", 3, "{'descr': '<u1', 'fortran_order': False, 'shape': (6,), }", ' ', one_to_six, 6);
    npy("shape-2x3.npy", 1, "{'descr': '|u1', 'fortran_order': False, 'shape': (2, 3), }", ' ', one_to_six, 6);
    npy("shape-1x2x3.npy", 1, "{'descr': '|i1', 'fortran_order': False, 'shape': (1, 2, 3), }", ' ', one_to_six, 6);
    npy("shape-scalar.npy", 1, "{'descr': '<i2', 'fortran_order': False, 'shape': (), }", ' ', one_to_six, 2);
    npy("shape-empty.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (0,), }", ' ', NULL, 0);
    npy("shape-0x7.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 7), }", ' ', NULL, 0);
    npy("shape-python2-long.npy", 1, "{'descr': '|u1', 'fortran_order': False, 'shape': (6L,), }", ' ', one_to_six, 6);
    npy("key-order.npy", 1, "{'shape': (6,), 'fortran_order': False, 'descr': '|u1'}", ' ', one_to_six, 6);
    npy("double-quotes.npy", 1, "{\"descr\": \"|u1\", \"fortran_order\": False, \"shape\": (6,)}", ' ', one_to_six, 6);
    npy("fortran-1d.npy", 1, "{'descr': '|u1', 'fortran_order': True, 'shape': (6,), }", ' ', one_to_six, 6);
    npy("nul-padding.npy", 1, "{'descr': '|u1', 'fortran_order': False, 'shape': (6,), }", '\0', one_to_six, 6);
    /* Invalid ones: each a different rule of the reader. */
    npy("bad-fortran-2d.npy", 1, "{'descr': '|u1', 'fortran_order': True, 'shape': (2, 3), }", ' ', one_to_six, 6);
    npy("bad-structured.npy", 1, "{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (1,), }", ' ', one_to_six, 4);
    npy("bad-dtype.npy", 1, "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", ' ', one_to_six, 6);
    npy("bad-shape-int.npy", 1, "{'descr': '|u1', 'fortran_order': False, 'shape': (6), }", ' ', one_to_six, 6);
    npy("bad-shape-huge.npy", 1, "{'descr': '<u8', 'fortran_order': False, 'shape': (4294967296, 4294967296, 2), }", ' ', NULL, 0);
    npy("bad-shape-overflow.npy", 1, "{'descr': '|u1', 'fortran_order': False, 'shape': (99999999999999999999,), }", ' ', NULL, 0);
    npy("bad-truncated-data.npy", 1, "{'descr': '<u4', 'fortran_order': False, 'shape': (2,), }", ' ', one_to_six, 6);
    npy("bad-extra-data.npy", 1, "{'descr': '|u1', 'fortran_order': False, 'shape': (5,), }", ' ', one_to_six, 6);
    npy("bad-unknown-key.npy", 1, "{'descr': '|u1', 'fortran_order': False, 'shape': (6,), 'x': 1}", ' ', one_to_six, 6);
    npy("bad-duplicate-key.npy", 1, "{'descr': '|u1', 'descr': '|u1', 'fortran_order': False, 'shape': (6,)}", ' ', one_to_six, 6);
    npy("bad-escape-in-dtype.npy", 1, "{'descr': '\x1b[31m', 'fortran_order': False, 'shape': (6,), }", ' ', one_to_six, 6);
    static const uint8_t bad_version[] = {0x93, 'N', 'U', 'M', 'P', 'Y', 4, 0, 0, 0};
    put_file("npy", "bad-version.npy", bad_version, sizeof bad_version);
    static const uint8_t bad_length[] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0xff, 0xff, '{', '}'};
    put_file("npy", "bad-header-length.npy", bad_length, sizeof bad_length);
    put_file("npy", "bad-magic.npy", "NUMPY", 5);
    put_file("npy", "bad-empty.npy", "", 0);
}

/* ---- text ------------------------------------------------------------------- */

static void text(const char *name, const char *content) { put_file("text", name, content, strlen(content)); }

static void text_seeds(void) {
    text("int64.txt", "0\n1\n-1\n9223372036854775807\n-9223372036854775808\n+42\n007\n-0\n");
    text("uint64.txt", "18446744073709551615\n9223372036854775808\n0\n");
    text("beyond-2p53.txt", "9007199254740993\n-1\n");
    text("beyond-uint64.txt", "18446744073709551616\n-9223372036854775809\n");
    text("int-bounds-8-16-32.txt", "127\n-128\n255\n32767\n-32768\n65535\n2147483647\n-2147483648\n4294967295\n");
    text("floats.txt", "0.5\n-2.25e10\n1e-310\n4.9e-324\n1.7976931348623157e308\n-0.0\n.5\n5.\n1E+3\n");
    text("float-specials.txt", "inf\n-inf\nInfinity\nnan\n-nan\nNaN\n-NAN:0X1\nnan:0x7ffff\nnan:0xfffffffffffff\n");
    text("float16-edges.txt", "65504\n65519\n6e-8\n5.960464477539063e-08\n0.000061035156\n-0\n");
    text("float32-edges.txt", "3.4028235e38\n1.17549435e-38\n1.4e-45\n16777217\n");
    text("bool.txt", "0\n1\ntrue\nFALSE\nTrue\n");
    text("comments-blank.txt", "# a comment\n\n  12  # trailing\n\t-3\t\n\n# end\n");
    text("crlf.txt", "1\r\n2\r\n3.5\r\n");
    text("no-final-newline.txt", "5\n6");
    text("empty.txt", "");
    text("only-comments.txt", "# nothing\n#\n");
    text("whitespace-kinds.txt", "\v1\f\n \t 2 \r\n");
    text("bad-word.txt", "1\nabc\n");
    text("bad-hex.txt", "0x10\n");
    text("bad-nan-parens.txt", "nan(123)\n");
    text("bad-nan-payload-zero.txt", "nan:0x0\n");
    text("bad-two-numbers.txt", "1 2\n");
    text("bad-escape.txt", "1\n\x1b[31mred\n");
    text("bad-out-of-range.txt", "1e400\n");
    put_file("text", "bad-nul-byte.txt", "1\n2\0\n", 5);
    static const char utf8[] = "1\n\xc3\xa9\n";
    put_file("text", "bad-utf8.txt", utf8, sizeof utf8 - 1);
}

/* ---- PNG --------------------------------------------------------------------- */

static void png_file(const char *name, const gen_png *g) {
    uint8_t *data;
    size_t n;
    char err[256];
    if (gen_png_encode(g, &data, &n, err, sizeof err) != 0) {
        fprintf(stderr, "make_seeds: %s: %s\n", name, err);
        exit(1);
    }
    put_file("png", name, data, n);
    free(data);
}

static void png_seeds(void) {
    static const uint8_t palette[16 * 3] = {0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 0, 0, 255, 255,
                                            255, 0, 255, 255, 255, 255, 128, 128, 128, 64, 0, 0, 0, 64, 0, 0, 0,
                                            64, 1, 2, 3, 200, 100, 50, 50, 100, 200, 9, 9, 9};
    static const uint8_t alphas[4] = {0, 128, 255, 7};
    uint16_t samples[7 * 5 * 4];
    const struct {
        const char *name;
        int type, depth;
    } kinds[] = {
        {"gray1", 0, 1},  {"gray2", 0, 2},  {"gray4", 0, 4},   {"gray8", 0, 8},  {"gray16", 0, 16},
        {"ga8", 4, 8},    {"ga16", 4, 16},  {"rgb8", 2, 8},    {"rgb16", 2, 16}, {"rgba8", 6, 8},
        {"rgba16", 6, 16}, {"pal1", 3, 1},  {"pal2", 3, 2},    {"pal4", 3, 4},   {"pal8", 3, 8},
    };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k) {
        gen_png g = {7, 5, kinds[k].type, kinds[k].depth, 0, samples, palette, 16, NULL, 0, 0, {0, 0, 0}, 0};
        const int spp = gen_file_channels(g.color_type);
        if (g.color_type == 3 && g.bit_depth < 4) g.npalette = 1 << g.bit_depth; /* all a depth can index */
        const uint32_t max = g.color_type == 3 ? (uint32_t)g.npalette - 1 : (1u << g.bit_depth) - 1;
        for (int i = 0; i < 7 * 5 * spp; ++i) samples[i] = (uint16_t)((uint32_t)(i * 37 + 11) % (max + 1));
        char name[64];
        for (int interlace = 0; interlace < 2; ++interlace) {
            g.interlace = interlace;
            snprintf(name, sizeof name, "%s%s.png", kinds[k].name, interlace ? "-adam7" : "");
            png_file(name, &g);
        }
        /* tRNS where the format allows it: a palette alpha table, or one
           transparent colour for gray and RGB. */
        if (g.color_type == 3) {
            g.trns_alpha = alphas;
            g.ntrns = g.npalette < 4 ? g.npalette : 4;
        } else if (g.color_type == 0 || g.color_type == 2) {
            g.has_trns_color = 1;
            for (int c = 0; c < 3; ++c) g.trns_color[c] = samples[c % spp];
        } else {
            continue;
        }
        g.interlace = 0;
        snprintf(name, sizeof name, "%s-trns.png", kinds[k].name);
        png_file(name, &g);
    }
    gen_png one = {1, 1, 0, 8, 0, samples, NULL, 0, NULL, 0, 0, {0, 0, 0}, 0};
    samples[0] = 200;
    png_file("gray8-1x1.png", &one);

    /* Hand-made chunk streams: what an encoder never writes. */
    gen_buf b = {0};
    gen_put_signature(&b);
    gen_put_ihdr(&b, 0, 5, 8, 0, 0);
    gen_put_chunk(&b, "IEND", NULL, 0);
    put_file("png", "bad-zero-width.png", b.data, b.len);
    gen_buf_free(&b);

    gen_put_signature(&b);
    gen_put_ihdr(&b, 3, 3, 8, 2, 0);
    gen_put_chunk(&b, "IEND", NULL, 0);
    put_file("png", "bad-no-idat.png", b.data, b.len);
    gen_buf_free(&b);

    gen_put_signature(&b);
    gen_put_ihdr(&b, 100000, 100000, 8, 6, 0);
    gen_put_chunk(&b, "IEND", NULL, 0);
    put_file("png", "bad-too-large.png", b.data, b.len);
    gen_buf_free(&b);

    /* A valid file cut short, and one with a damaged IDAT CRC. */
    gen_png rgb = {7, 5, 2, 8, 0, samples, NULL, 0, NULL, 0, 0, {0, 0, 0}, 0};
    for (int i = 0; i < 7 * 5 * 3; ++i) samples[i] = (uint16_t)(i * 7 % 256);
    uint8_t *data;
    size_t n;
    char err[256];
    if (gen_png_encode(&rgb, &data, &n, err, sizeof err) != 0) {
        fprintf(stderr, "make_seeds: %s\n", err);
        exit(1);
    }
    put_file("png", "bad-truncated.png", data, n - 20);
    long idat = gen_find_chunk(data, n, "IDAT");
    if (idat > 0) {
        data[idat + 9] ^= 0x55;
        put_file("png", "bad-idat-crc.png", data, n);
    }
    free(data);
    put_file("png", "bad-signature.png", "\x89PNG\r\n\x1a", 7);
    put_file("png", "bad-empty.png", "", 0);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: fuzz_make_seeds DIR   (writes DIR/npy, DIR/text, DIR/png; the folders must exist)\n");
        return 1;
    }
    g_dir = argv[1];
    npy_seeds();
    text_seeds();
    png_seeds();
    printf("make_seeds: wrote %d files under %s\n", g_count, g_dir);
    return 0;
}
