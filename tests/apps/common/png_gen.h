/* png_gen.h -- the tests' own PNG files: encoded with libpng directly from
 * known samples (packing and byte order done here, not by libpng's
 * transforms, so the reader under test is checked against independent
 * bytes), and hand-built chunk streams for malformed files. */
#ifndef LIBSCAN_TEST_PNG_GEN_H
#define LIBSCAN_TEST_PNG_GEN_H

#include <stddef.h>
#include <stdint.h>

/* A PNG to encode. samples: width * height * file_channels(color_type)
 * values as stored in the file (< 2^bit_depth; palette indices for palette
 * images). */
typedef struct gen_png {
    int width, height;
    int color_type; /* 0 gray, 2 RGB, 3 palette, 4 gray+alpha, 6 RGBA */
    int bit_depth;  /* 1, 2, 4, 8, 16 as legal for the colour type */
    int interlace;  /* 0 none, 1 Adam7 */
    const uint16_t *samples;
    const uint8_t *palette; /* npalette * 3 bytes (RGB) */
    int npalette;
    const uint8_t *trns_alpha; /* palette: ntrns alpha values (entries beyond are opaque) */
    int ntrns;
    int has_trns_color; /* gray/RGB: tRNS with trns_color[0] (gray) or [0..2] (RGB) */
    uint16_t trns_color[3];
    int filters; /* 0: libpng's adaptive choice; else png_set_filter's mask
                    (PNG_FILTER_PAETH alone makes every row Paeth) */
} gen_png;

/* Samples per pixel in the file for a colour type (palette: 1). */
int gen_file_channels(int color_type);

/* Encode to a malloc'd buffer. Returns 0, or -1 (libpng error, message in
 * err). */
int gen_png_encode(const gen_png *g, uint8_t **out, size_t *len, char *err, size_t errlen);

/* Decode a PNG from memory with libpng alone (no code under test), as the
 * file stores it: samples (malloc'd, width * height * channels values, 16-bit
 * samples in native order) of an 8- or 16-bit gray, gray+alpha, RGB or RGBA
 * file without interlacing, what img_write produces. Returns 0, or -1 with
 * libpng's message in err. */
int gen_png_decode(const uint8_t *png, size_t len, int *width, int *height, int *color_type, int *bit_depth,
                   uint16_t **samples, char *err, size_t errlen);

/* A growable byte buffer for hand-made files. */
typedef struct gen_buf {
    uint8_t *data;
    size_t len, cap;
} gen_buf;

void gen_buf_put(gen_buf *b, const void *p, size_t n);
void gen_buf_free(gen_buf *b);
/* The 8-byte PNG signature. */
void gen_put_signature(gen_buf *b);
/* One chunk: length, type, data, CRC (correct). */
void gen_put_chunk(gen_buf *b, const char type[4], const uint8_t *data, uint32_t n);
/* An IHDR chunk with the given fields (no validation: zero sizes allowed). */
void gen_put_ihdr(gen_buf *b, uint32_t w, uint32_t h, int depth, int color_type, int interlace);

/* Offset of the first chunk of this type (of its length field), or -1. */
long gen_find_chunk(const uint8_t *png, size_t len, const char type[4]);

/* Write bytes to a file (whole). Returns 0 or -1. */
int gen_write_file(const char *path, const void *data, size_t len);

#endif
