/* png_deflate.h -- one zlib stream (RFC 1950) from rows compressed in
 * parallel row bands: the PNG writer's IDAT data (private to app_image).
 *
 * The image is cut into bands of whole rows; every band is filtered and
 * deflated on its own thread and the pieces are joined into ONE valid zlib
 * stream, pigz's technique:
 *   - a band is raw deflate primed with the last 32 KiB of the (filtered)
 *     rows above it as its dictionary, so matches reach across the seam as
 *     in one stream; the band's thread filters those rows again itself
 *     (a filtered row needs only itself and the row above), so bands share
 *     nothing and never wait for each other;
 *   - every band but the last ends with a sync flush (an empty stored block:
 *     byte-aligned, not final), the last with the final block;
 *   - the 2-byte zlib header goes first and the Adler-32 of all the rows
 *     last, combined from the bands' own checksums (adler32_combine).
 * Band boundaries depend only on the row size and the band size, never on
 * the number of threads: the bytes written are the same on every machine
 * (for a given zlib).
 *
 * Threads: workers take bands in order; the calling thread hands finished
 * bands to the sink in order (so the file is written while later bands are
 * compressed), and at most a few bands per worker wait in memory. */
#ifndef LIBSCAN_APPS_PNG_DEFLATE_H
#define LIBSCAN_APPS_PNG_DEFLATE_H

#include <stddef.h>
#include <stdint.h>

/* The default band size: about this many filtered bytes per band (at least
 * one row). Large enough that the 32 KiB dictionary and the flush cost a few
 * percent of a band's time and almost nothing in size; small enough that a
 * 4K image gives some 100 bands to spread over the cores. */
#define PNG_DEFLATE_BAND_BYTES ((size_t)256 << 10)

/* The rows to compress. */
typedef struct png_rows {
    size_t row_bytes; /* bytes of one filtered row (filter type byte included), >= 1 */
    size_t rows;      /* number of rows, >= 1 */
    /* Write rows [y0, y0 + n) filtered into dst (n * row_bytes bytes).
     * Called on several threads at once for different rows. Returns 0, or
     * -1 when out of memory. */
    int (*filter)(const void *ctx, size_t y0, size_t n, uint8_t *dst);
    const void *ctx;
} png_rows_t;

/* Receives the stream in order, always on the calling thread. Returns 0, or
 * -1 to stop (the encoder then returns PNG_DEFLATE_SINK_FAILED). */
typedef int (*png_sink_fn)(void *user, const uint8_t *data, size_t len);

typedef struct png_deflate_opts {
    int level;         /* zlib level 0..9 (0: stored blocks) */
    int threads;       /* 0: one per CPU this process may use (threads.h); capped by the number of bands */
    size_t band_bytes; /* 0: PNG_DEFLATE_BAND_BYTES */
} png_deflate_opts_t;

enum { PNG_DEFLATE_OK = 0, PNG_DEFLATE_FAILED = -1, PNG_DEFLATE_SINK_FAILED = -2 };

/* Compress the rows into one zlib stream, handed to sink piece by piece.
 * Returns PNG_DEFLATE_OK; PNG_DEFLATE_FAILED (out of memory, no thread,
 * zlib error: one line in msg); PNG_DEFLATE_SINK_FAILED when the sink
 * returned -1 (msg untouched: the sink knows why). Every thread is joined
 * before it returns. */
int png_deflate(const png_rows_t *src, const png_deflate_opts_t *opts, png_sink_fn sink, void *user, char *msg,
                size_t msglen);

/* Rows per band for a row size (what png_deflate uses; for tests). */
size_t png_deflate_band_rows(size_t row_bytes, size_t band_bytes);

/* The worker threads png_deflate would start for this many bands. */
int png_deflate_thread_count(int requested, size_t bands);

#endif
