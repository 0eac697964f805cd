/* png_inflate.h -- a PNG's image data inflated by libdeflate, for
 * img_read_png (private to app_image).
 *
 * libpng inflates through zlib, which was two thirds of the decoding time
 * (issue #22). png_inflate_open() reads the whole file, checks every
 * chunk's CRC and inflates the whole IDAT stream in one libdeflate call
 * (3-8 times zlib's speed); png_inflate_read() then serves libpng the same
 * file with the image data stored uncompressed (deflate's stored blocks, one
 * IDAT chunk each), which zlib only copies. libpng still parses and checks
 * the chunks, unfilters, expands palettes, tRNS and low bit depths,
 * de-interlaces and byte-swaps, exactly as before; the reader turns off its
 * CRC checks (and its Adler-32 check, where libpng allows) for such a
 * stream (both were checked here; the Adler-32 is the original's).
 *
 * Anything unexpected makes png_inflate_open() decline (return NULL): not a
 * regular file, a chunk past the end of the file or with a bad CRC, a
 * chunk header libpng would refuse (a type not four letters, a length over
 * its limit), no IHDR first or an invalid one, IDAT chunks apart or
 * missing, no IEND, an image over the pixel limit or whose filtered data
 * would exceed PNG_INFLATE_MAX_BYTES or what its zlib stream could hold
 * (deflate packs at most 1032 bytes into one), a zlib stream that is
 * corrupt or not exactly the image's size. The caller then reads the file with libpng
 * alone, as before, whose messages name the problem. So every error message
 * stays what it was, and only well-formed files take the fast path. */
#ifndef LIBSCAN_APPS_PNG_INFLATE_H
#define LIBSCAN_APPS_PNG_INFLATE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The largest inflated image data (filter bytes included) taken this way:
 * it is held in memory whole, beside the decoded image; larger images
 * stream through libpng as before. */
#define PNG_INFLATE_MAX_BYTES ((uint64_t)1 << 31)

typedef struct png_inflate png_inflate_t;

/* f: the open PNG file (its position is not used). max_pixels: the
 * reader's limit on width * height. Returns a stream positioned just after
 * the 8-byte signature, or NULL (declined: see above). */
png_inflate_t *png_inflate_open(FILE *f, uint64_t max_pixels);

/* Copy the next len bytes of the stream into dst. Returns the bytes copied:
 * fewer than len only at the end of the stream (after IEND). */
size_t png_inflate_read(png_inflate_t *s, uint8_t *dst, size_t len);

/* The inflated image data (data_len bytes: filtered rows, each after its
 * filter-type byte), for a reader that undoes the filters itself instead of
 * reading the stream through libpng: only while the stream stands at the
 * start of the image data (libpng has read the chunks before it and at most
 * the first IDAT's length and type, as png_read_info does), and only when every chunk after it is ancillary and IEND is
 * empty, so that libpng's png_read_end would have nothing there to refuse
 * (every CRC was checked at open). Else NULL. */
const uint8_t *png_inflate_direct(const png_inflate_t *s, size_t *len);

/* Release everything (NULL is fine). */
void png_inflate_close(png_inflate_t *s);

#endif
