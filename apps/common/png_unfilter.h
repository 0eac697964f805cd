/* png_unfilter.h -- PNG's row filters undone (PNG specification, clause 9),
 * for img_read_png's direct path (private to app_image).
 *
 * libpng undoes Paeth one byte at a time: on a 4K photograph saved by PIL
 * (adaptive filters, mostly Paeth) that was half of the whole decode, more
 * than inflating it (issue #22). Here a pixel's bytes go through together in
 * 16-bit SSE2 lanes: the filters chain pixel to pixel, not byte to byte.
 * The arithmetic is the specification's, so the bytes are libpng's. */
#ifndef LIBSCAN_APPS_PNG_UNFILTER_H
#define LIBSCAN_APPS_PNG_UNFILTER_H

#include <stddef.h>
#include <stdint.h>

/* src: h rows of the inflated image data, each a filter-type byte and then
 * rowbytes filtered bytes (non-interlaced); bpp: bytes per complete pixel
 * (1..8; the specification rounds sub-byte pixels up to 1). Writes the h x
 * rowbytes unfiltered bytes to dst (not overlapping src); swap16: also swap
 * each pair of bytes (16-bit samples to little-endian) once a row is
 * unfiltered. Returns 0, or -1 when a row's filter type is not 0-4 or no
 * memory was left (nothing is written then: the caller lets libpng read the
 * file, and report it). */
int png_unfilter(const uint8_t *src, size_t h, size_t rowbytes, unsigned bpp, int swap16, uint8_t *dst);

#endif
