/* png_filter.h -- PNG row filters for the writer (private to app_image).
 *
 * Each row gets the filter among Sub, Up and Average whose output has the
 * smallest sum of absolute values (bytes read as signed), libpng's adaptive
 * heuristic over the set the old libpng-based writer used: None and Paeth
 * never gave smaller files on photographs, renders or their blurs (measured
 * 2026-11-21 and again for issue #22), and Paeth is the costly one. */
#ifndef LIBSCAN_APPS_PNG_FILTER_H
#define LIBSCAN_APPS_PNG_FILTER_H

#include <stddef.h>
#include <stdint.h>

/* PNG filter types (the byte before each row). */
enum { PNG_FILTER_NONE_TYPE = 0, PNG_FILTER_SUB_TYPE = 1, PNG_FILTER_UP_TYPE = 2, PNG_FILTER_AVG_TYPE = 3 };

/* Filter one row of n bytes (samples in PNG order: 16-bit big-endian).
 * prev: the row above, or a row of n zeros for the first row of the image.
 * bpp: bytes per complete pixel (1..8). out: n + 1 bytes, the filter type
 * then the filtered bytes. scratch: 2 * n bytes the function may overwrite.
 * adaptive = 0 writes filter None (for uncompressed output, where filtering
 * buys nothing). */
void png_filter_row(const uint8_t *prev, const uint8_t *cur, size_t n, size_t bpp, int adaptive, uint8_t *out,
                    uint8_t *scratch);

#endif
