/* fuzz_png.c -- libFuzzer harness of the image reader, through its public
 * entry point img_read (apps/common/image_io.h) only, so it keeps working
 * whatever decodes the file behind it: any bytes as an image file. The seeds
 * are PNGs (img_read_png: libpng, with libdeflate inflating well-formed
 * files); bytes that start like a JPEG reach img_read_jpeg the same way.
 *
 * Beyond "no crash, no leak, no undefined behaviour", every input must give
 * either a clean error (-1, one printable line naming the file, the image
 * left empty) or an image that keeps image_io.h's promises:
 *   - 1..4 channels of 8 or 16 bits, width * height within the limit given,
 *     and a pixel buffer of img_byte_count() bytes (every byte is read here,
 *     so a short buffer is an ASan report);
 *   - PNG: the fields on what the file held agree with each other and with
 *     the layout: gray 1, gray + alpha 2, RGB and palette 3, RGBA 4 channels,
 *     one more for a tRNS chunk (which only gray, RGB and palette can have);
 *     16 bits in memory exactly when the file had 16; gray below 8 bits is
 *     scaled to the full range (1-bit: 0 or 255, 2-bit: multiples of 85,
 *     4-bit: multiples of 17), and alpha made from a tRNS colour is 0 or full;
 *   - JPEG: 8-bit gray (a one-component file) or RGB, no alpha;
 *   - img_describe() says it in one printable line.
 * Two more ways in for a PNG:
 *   - the same bytes from a pipe, which the reader cannot map or read twice
 *     and so decodes with libpng alone (png_inflate.h): it must accept and
 *     refuse the same files as the regular file's path (libdeflate for
 *     well-formed ones) and give the same image, bit for bit;
 *   - a copy with every chunk's CRC made right, so that a mutation inside a
 *     chunk reaches the decoders instead of stopping at its checksum. */
#include "fuzz_support.h"

#include "common/image_io.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* Small enough that a header claiming a large image costs little memory
 * and time (one allocation over 64 MiB is a finding, fuzz_support.c); large
 * enough for the "image too large" path to be reachable with real sizes. */
#define FUZZ_MAX_PIXELS ((uint64_t)1 << 20)

static const uint8_t k_png_signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

static unsigned sample(const img_t *img, size_t i) {
    if (img->bits == 8) return ((const uint8_t *)img->pixels)[i];
    uint16_t v;
    memcpy(&v, (const uint8_t *)img->pixels + 2 * i, 2);
    return v;
}

static void check_png_fields(const img_t *img) {
    const int type = img->source_color_type, sb = img->source_bits;
    int base;
    switch (type) {
    case IMG_SOURCE_GRAY: base = 1; break;
    case IMG_SOURCE_GRAY_ALPHA: base = 2; break;
    case IMG_SOURCE_RGB:
    case IMG_SOURCE_PALETTE: base = 3; break;
    case IMG_SOURCE_RGBA: base = 4; break;
    default: fuzz_fail("img_read: PNG source colour type %d", type);
    }
    if (sb != 1 && sb != 2 && sb != 4 && sb != 8 && sb != 16) fuzz_fail("img_read: PNG source bit depth %d", sb);
    if (img->had_trns && type != IMG_SOURCE_GRAY && type != IMG_SOURCE_RGB && type != IMG_SOURCE_PALETTE)
        fuzz_fail("img_read: tRNS on colour type %d, which has alpha already", type);
    if (img->channels != base + img->had_trns)
        fuzz_fail("img_read: %d channels from colour type %d (tRNS %d)", img->channels, type, img->had_trns);
    if ((img->bits == 16) != (sb == 16)) fuzz_fail("img_read: %d bits in memory from %d in the file", img->bits, sb);
    if (img->was_palette != (type == IMG_SOURCE_PALETTE) || (img->interlaced != 0 && img->interlaced != 1))
        fuzz_fail("img_read: was_palette %d / interlaced %d", img->was_palette, img->interlaced);
}

static void check_jpeg_fields(const img_t *img) {
    if (img->bits != 8 || (img->channels != 1 && img->channels != 3) || img->source_bits != 8 ||
        img->source_color_type != IMG_SOURCE_NONE || img->had_trns || img->was_palette || img->interlaced)
        fuzz_fail("img_read: JPEG read as %d channels of %d bits (source bits %d, colour type %d)", img->channels,
                  img->bits, img->source_bits, img->source_color_type);
    if ((img->channels == 1) != (img->source_subsampling == IMG_JPEG_SUB_GRAY) ||
        img->source_subsampling < IMG_JPEG_SUB_420 || img->source_subsampling > IMG_JPEG_SUB_OTHER)
        fuzz_fail("img_read: JPEG subsampling %d with %d channels", img->source_subsampling, img->channels);
}

static void check_image(const img_t *img) {
    if (img->width < 1 || img->height < 1 || (uint64_t)img->width * (uint64_t)img->height > FUZZ_MAX_PIXELS)
        fuzz_fail("img_read: a %dx%d image with a limit of %llu pixels", img->width, img->height,
                  (unsigned long long)FUZZ_MAX_PIXELS);
    if (img->channels < 1 || img->channels > 4 || (img->bits != 8 && img->bits != 16) || !img->pixels)
        fuzz_fail("img_read: %d channels, %d bits, pixels %p", img->channels, img->bits, img->pixels);
    if (img->has_alpha != (img->channels == 2 || img->channels == 4)) fuzz_fail("img_read: has_alpha is wrong");
    if (img->source_format == IMG_FORMAT_PNG) check_png_fields(img);
    else if (img->source_format == IMG_FORMAT_JPEG) check_jpeg_fields(img);
    else fuzz_fail("img_read: source format %d", img->source_format);

    const size_t bytes = img_byte_count(img), samples = bytes / (size_t)(img->bits / 8);
    if (bytes != (size_t)img->width * (size_t)img->height * (size_t)img->channels * (size_t)(img->bits / 8))
        fuzz_fail("img_byte_count: %zu", bytes);
    const bool png = img->source_format == IMG_FORMAT_PNG;
    const unsigned full = img->bits == 8 ? 255u : 65535u;
    const unsigned sb = (unsigned)img->source_bits;
    const unsigned step = png && img->source_color_type == IMG_SOURCE_GRAY && sb < 8 ? 255u / ((1u << sb) - 1u) : 1u;
    const bool trns_alpha = png && img->had_trns && img->source_color_type != IMG_SOURCE_PALETTE;
    for (size_t i = 0; i < samples; ++i) { /* reads every byte of the buffer */
        unsigned v = sample(img, i);
        size_t c = i % (size_t)img->channels;
        if (v > full) fuzz_fail("img_read: sample %zu is %u", i, v);
        if (c == 0 && v % step != 0) fuzz_fail("img_read: %u-bit gray sample %u is not a multiple of %u", sb, v, step);
        if (trns_alpha && c == (size_t)img->channels - 1 && v != 0 && v != full)
            fuzz_fail("img_read: alpha %u from a tRNS colour (only 0 or %u)", v, full);
    }
    char desc[256];
    img_describe(img, desc, sizeof desc);
    for (const char *p = desc; *p; ++p)
        if (*p < 0x20 || *p > 0x7e) fuzz_fail("img_describe: byte 0x%02x in \"%s\"", (unsigned char)*p, desc);
}

static void check_same_image(const img_t *a, const img_t *b) {
    if (a->width != b->width || a->height != b->height || a->channels != b->channels || a->bits != b->bits ||
        a->has_alpha != b->has_alpha || a->was_palette != b->was_palette || a->had_trns != b->had_trns ||
        a->interlaced != b->interlaced || a->source_bits != b->source_bits ||
        a->source_color_type != b->source_color_type || a->source_format != b->source_format)
        fuzz_fail("img_read: the file gave %dx%dx%d (%d bits), the same bytes from a pipe %dx%dx%d (%d bits) "
                  "or other fields", a->width, a->height, a->channels, a->bits, b->width, b->height, b->channels,
                  b->bits);
    if (memcmp(a->pixels, b->pixels, img_byte_count(a)) != 0)
        fuzz_fail("img_read: the file and the same bytes from a pipe decode to different pixels");
}

static void check_input(const uint8_t *data, size_t size) {
    const char *path = fuzz_input_file(data, size);
    char err[512];
    img_t img;
    const bool ok = img_read(path, FUZZ_MAX_PIXELS, &img, err, sizeof err) == 0;
    if (ok) {
        check_image(&img);
    } else {
        fuzz_check_message("img_read", err, path);
        if (img.pixels || img.width || img.height) fuzz_fail("img_read: failed but left an image");
    }
    const char *pipe_path;
    if (size >= sizeof k_png_signature && memcmp(data, k_png_signature, sizeof k_png_signature) == 0 &&
        (pipe_path = fuzz_input_pipe(data, size)) != NULL) {
        img_t slow;
        char slow_err[512];
        const bool slow_ok = img_read(pipe_path, FUZZ_MAX_PIXELS, &slow, slow_err, sizeof slow_err) == 0;
        fuzz_input_pipe_done();
        if (slow_ok != ok)
            fuzz_fail("img_read: the file %s (%s), the same bytes from a pipe %s (%s)", ok ? "reads" : "fails",
                      ok ? "" : err, slow_ok ? "read" : "fail", slow_ok ? "" : slow_err);
        if (slow_ok) check_same_image(&img, &slow);
        else fuzz_check_message("img_read (pipe)", slow_err, pipe_path);
        img_free(&slow);
    }
    if (ok) img_free(&img);
}

/* Recomputes every chunk's CRC in d (a PNG signature, then chunks) up to the
 * first chunk that does not fit. Returns 1 when anything changed. */
static int fix_crcs(uint8_t *d, size_t n) {
    int changed = 0;
    for (size_t off = 8; n - off >= 12;) {
        const uint32_t len = (uint32_t)d[off] << 24 | (uint32_t)d[off + 1] << 16 | (uint32_t)d[off + 2] << 8 | d[off + 3];
        if (len > n - off - 12) break;
        const uint32_t crc = (uint32_t)crc32(crc32(0L, Z_NULL, 0), d + off + 4, (uInt)len + 4);
        uint8_t *at = d + off + 8 + len;
        const uint8_t want[4] = {(uint8_t)(crc >> 24), (uint8_t)(crc >> 16), (uint8_t)(crc >> 8), (uint8_t)crc};
        if (memcmp(at, want, 4) != 0) {
            memcpy(at, want, 4);
            changed = 1;
        }
        off += 12 + (size_t)len;
    }
    return changed;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    check_input(data, size);
    if (size > sizeof k_png_signature && memcmp(data, k_png_signature, sizeof k_png_signature) == 0) {
        uint8_t *fixed = malloc(size);
        if (!fixed) fuzz_fail("harness: out of memory");
        memcpy(fixed, data, size);
        if (fix_crcs(fixed, size)) check_input(fixed, size);
        free(fixed);
    }
    return 0;
}
