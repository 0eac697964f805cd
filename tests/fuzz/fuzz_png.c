/* fuzz_png.c -- libFuzzer harness of the PNG reader, through its public entry
 * point img_read_png (apps/common/image_io.h) only, so it keeps working
 * whatever decodes the PNG behind it: any bytes as a .png file.
 *
 * Beyond "no crash, no leak, no undefined behaviour", every input must give
 * either a clean error (-1, one printable line naming the file, the image
 * left empty) or an image that keeps image_io.h's promises:
 *   - 1..4 channels of 8 or 16 bits, width * height within the limit given,
 *     and a pixel buffer of img_byte_count() bytes (every byte is read here,
 *     so a short buffer is an ASan report);
 *   - the fields on what the file held agree with each other and with the
 *     layout: gray 1, gray + alpha 2, RGB and palette 3, RGBA 4 channels,
 *     one more for a tRNS chunk (which only gray, RGB and palette can have);
 *     16 bits in memory exactly when the file had 16;
 *   - gray below 8 bits is scaled to the full range (1-bit: 0 or 255, 2-bit:
 *     multiples of 85, 4-bit: multiples of 17), and alpha made from a tRNS
 *     colour is 0 or full;
 *   - img_describe() says it in one printable line. */
#include "fuzz_support.h"

#include "common/image_io.h"

#include <stdbool.h>
#include <string.h>

/* Small enough that a header claiming a large image costs little memory
 * and time (libFuzzer's default limit is 2 GB); large enough for the
 * "image too large" path to be reachable with real dimensions. */
#define FUZZ_MAX_PIXELS ((uint64_t)1 << 20)

static unsigned sample(const img_t *img, size_t i) {
    if (img->bits == 8) return ((const uint8_t *)img->pixels)[i];
    uint16_t v;
    memcpy(&v, (const uint8_t *)img->pixels + 2 * i, 2);
    return v;
}

static void check_image(const img_t *img) {
    if (img->width < 1 || img->height < 1 || (uint64_t)img->width * (uint64_t)img->height > FUZZ_MAX_PIXELS)
        fuzz_fail("img_read_png: a %dx%d image with a limit of %llu pixels", img->width, img->height,
                  (unsigned long long)FUZZ_MAX_PIXELS);
    if (img->channels < 1 || img->channels > 4 || (img->bits != 8 && img->bits != 16) || !img->pixels)
        fuzz_fail("img_read_png: %d channels, %d bits, pixels %p", img->channels, img->bits, img->pixels);
    if (img->has_alpha != (img->channels == 2 || img->channels == 4)) fuzz_fail("img_read_png: has_alpha is wrong");
    const int type = img->source_color_type, sb = img->source_bits;
    int base;
    switch (type) {
    case IMG_SOURCE_GRAY: base = 1; break;
    case IMG_SOURCE_GRAY_ALPHA: base = 2; break;
    case IMG_SOURCE_RGB:
    case IMG_SOURCE_PALETTE: base = 3; break;
    case IMG_SOURCE_RGBA: base = 4; break;
    default: fuzz_fail("img_read_png: source colour type %d", type);
    }
    if (sb != 1 && sb != 2 && sb != 4 && sb != 8 && sb != 16) fuzz_fail("img_read_png: source bit depth %d", sb);
    if (img->had_trns && type != IMG_SOURCE_GRAY && type != IMG_SOURCE_RGB && type != IMG_SOURCE_PALETTE)
        fuzz_fail("img_read_png: tRNS on colour type %d, which has alpha already", type);
    if (img->channels != base + img->had_trns)
        fuzz_fail("img_read_png: %d channels from colour type %d (tRNS %d)", img->channels, type, img->had_trns);
    if ((img->bits == 16) != (sb == 16)) fuzz_fail("img_read_png: %d bits in memory from %d in the file", img->bits, sb);
    if (img->was_palette != (type == IMG_SOURCE_PALETTE) || (img->interlaced != 0 && img->interlaced != 1))
        fuzz_fail("img_read_png: was_palette %d / interlaced %d", img->was_palette, img->interlaced);
    const size_t bytes = img_byte_count(img), samples = bytes / (size_t)(img->bits / 8);
    if (bytes != (size_t)img->width * (size_t)img->height * (size_t)img->channels * (size_t)(img->bits / 8))
        fuzz_fail("img_byte_count: %zu", bytes);
    const unsigned full = img->bits == 8 ? 255u : 65535u;
    const unsigned step = type == IMG_SOURCE_GRAY && sb < 8 ? 255u / ((1u << sb) - 1u) : 1u;
    const bool trns_alpha = img->had_trns && type != IMG_SOURCE_PALETTE;
    for (size_t i = 0; i < samples; ++i) { /* reads every byte of the buffer */
        unsigned v = sample(img, i);
        size_t c = i % (size_t)img->channels;
        if (v > full) fuzz_fail("img_read_png: sample %zu is %u", i, v);
        if (c == 0 && v % step != 0) fuzz_fail("img_read_png: %d-bit gray sample %u is not a multiple of %u", sb, v, step);
        if (trns_alpha && c == (size_t)img->channels - 1 && v != 0 && v != full)
            fuzz_fail("img_read_png: alpha %u from a tRNS colour (only 0 or %u)", v, full);
    }
    char desc[256];
    img_describe(img, desc, sizeof desc);
    for (const char *p = desc; *p; ++p)
        if (*p < 0x20 || *p > 0x7e) fuzz_fail("img_describe: byte 0x%02x in \"%s\"", (unsigned char)*p, desc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = fuzz_input_file(data, size);
    char err[512];
    img_t img;
    if (img_read_png(path, FUZZ_MAX_PIXELS, &img, err, sizeof err) != 0) {
        fuzz_check_message("img_read_png", err, path);
        if (img.pixels || img.width || img.height) fuzz_fail("img_read_png: failed but left an image");
        return 0;
    }
    check_image(&img);
    img_free(&img);
    return 0;
}
