/* png_unfilter.h -- PNG's row filters undone (PNG specification, clause 9),
 * for img_read_png's direct path (private to app_image).
 *
 * libpng undoes Paeth one byte at a time: on a 4K photograph saved by PIL
 * (adaptive filters, mostly Paeth) that was half of the whole decode, more
 * than inflating it (issue #22). Here a pixel's bytes go through together in
 * 16-bit SSE2 lanes: the filters chain pixel to pixel, not byte to byte.
 * The arithmetic is the specification's, so the bytes are libpng's.
 *
 * Threads (a row wavefront). Sub, Average and Paeth are latency-bound
 * chains along a row (about 5 ns a pixel on one thread), but row y needs
 * only row y-1 (the bytes above) and its own earlier bytes. So threads take
 * rows in order, each row in column blocks, and publish after each block
 * how many of its bytes are final; the thread of row y starts a block once
 * row y-1 is final up to that block's end. Thread k thus works a block or
 * so behind thread k-1, one row down. With swap16 a row is swapped block by
 * block by the thread of the row below, once that has read it. The bytes
 * are the same for every thread count and block size.
 *
 * The thread count (png_unfilter, or png_unfilter_ex with threads = 0):
 *   - 1 for images under PNG_UNFILTER_MIN_BYTES of pixel bytes, rows under
 *     PNG_UNFILTER_MIN_ROW bytes or a single row: starting threads costs
 *     more than it saves there;
 *   - otherwise LIBSCAN_CPU_THREADS=N (a decimal whole number >= 1, read at
 *     every call) if set, else the CPUs this process may run on, at most
 *     PNG_UNFILTER_AUTO_THREADS. sat_blur's batch mode sets
 *     LIBSCAN_CPU_THREADS=1 (its workers already decode one frame per
 *     core), so there each frame stays on its worker's thread.
 * A thread that cannot be started is not an error: the threads that did
 * start (down to the caller's alone) do every row. */
#ifndef LIBSCAN_APPS_PNG_UNFILTER_H
#define LIBSCAN_APPS_PNG_UNFILTER_H

#include <stddef.h>
#include <stdint.h>

/* The automatic rule's limits (see above) and the block sizes. */
#define PNG_UNFILTER_MIN_BYTES ((size_t)1 << 20)
#define PNG_UNFILTER_MIN_ROW ((size_t)1024)
#define PNG_UNFILTER_AUTO_THREADS 8u
#define PNG_UNFILTER_MAX_THREADS 64u /* the most png_unfilter_ex uses, whatever it is asked */
#define PNG_UNFILTER_MIN_BLOCK ((size_t)512)
#define PNG_UNFILTER_MAX_BLOCK ((size_t)4096)

/* src: h rows of the inflated image data, each a filter-type byte and then
 * rowbytes filtered bytes (non-interlaced); bpp: bytes per complete pixel
 * (1..8; the specification rounds sub-byte pixels up to 1). Writes the h x
 * rowbytes unfiltered bytes to dst (not overlapping src); swap16: also swap
 * each pair of bytes (16-bit samples to little-endian) once a row is
 * unfiltered. Threads as the automatic rule above says. Returns 0, or -1
 * when a row's filter type is not 0-4 (every row's type is checked before
 * anything is written) or no memory was left (nothing is written then: the
 * caller lets libpng read the file, and report it). */
int png_unfilter(const uint8_t *src, size_t h, size_t rowbytes, unsigned bpp, int swap16, uint8_t *dst);

/* png_unfilter with the count and block forced, for the tests and
 * bench_png. threads: 0 = the automatic rule, else that many (at most
 * PNG_UNFILTER_MAX_THREADS and h; also on a small image, so that tests reach
 * the threaded path on any machine). block: bytes of a row between two
 * progress updates, rounded up to a multiple of 2 * bpp; 0 = about two
 * blocks per thread in a row, within PNG_UNFILTER_MIN_BLOCK ..
 * PNG_UNFILTER_MAX_BLOCK. */
int png_unfilter_ex(const uint8_t *src, size_t h, size_t rowbytes, unsigned bpp, int swap16, unsigned threads,
                    size_t block, uint8_t *dst);

/* The automatic thread count for h rows of rowbytes bytes (>= 1). */
unsigned png_unfilter_threads(size_t h, size_t rowbytes);

#endif
