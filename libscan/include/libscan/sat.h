/*
 * sat.h -- summed-area tables (integral images) of multi-channel images on
 * the GPU, box-sum queries and a variable-radius box filter; the same
 * operations on the CPU, with identical results for integer tables.
 *
 * This family follows the conventions of <libscan/libscan.h> (statuses,
 * streams, temp, pointers); what is particular to images is below.
 *
 * ---------------------------------------------------------------------------
 * Conventions shared by every function of this family
 * ---------------------------------------------------------------------------
 * Images    Described by libscan_sat_image_t: interleaved channels (1..4),
 *           rows of `width` pixels, `pitch` bytes from one row to the next
 *           (at least width * channels * element size, and a multiple of the
 *           element size), top row first, 1 <= width, height <=
 *           LIBSCAN_SAT_MAX_DIM. An image covers the bytes from `data` to
 *           data + pitch * (height - 1) + width * channels * element size;
 *           the padding at the end of each row is never read or written.
 * The table S(x, y) = sum of in(i, j) over 0 <= i <= x, 0 <= j <= y, per
 *           channel (inclusive). A box [x0, x1] x [y0, y1] sums to
 *           S(x1,y1) - S(x0-1,y1) - S(x1,y0-1) + S(x0-1,y0-1), with S = 0
 *           outside the image.
 * Types     Supported (input -> table) dtype pairs:
 *             LIBSCAN_U8  -> LIBSCAN_U32   exact box sums, see "Wrap bound"
 *             LIBSCAN_U16 -> LIBSCAN_U32   exact box sums, see "Wrap bound"
 *             LIBSCAN_U16 -> LIBSCAN_U64   exact for every box of any image < 2^48 px
 *             LIBSCAN_U32 -> LIBSCAN_U64   exact box sums, see "Wrap bound"
 *             LIBSCAN_U64 -> LIBSCAN_U64   exact box sums, see "Wrap bound"
 *             LIBSCAN_F32 -> LIBSCAN_F32   fast, loses precision on large images
 *             LIBSCAN_F32 -> LIBSCAN_F64   the one to use for float input
 * Wrap bound Integer tables use modular (wrapping) unsigned arithmetic: the
 *           corner values of a large image wrap around 2^32 (2^64 for a
 *           uint64 table), yet a box sum D - B - C + A computed modulo 2^32
 *           (2^64) is exact whenever the true box sum is below 2^32 (2^64),
 *           i.e. when area * max_value < 2^32 (2^64). For 8-bit input and a
 *           uint32 table that is any box of at most 16,843,009 pixels (a
 *           4104 x 4104 box, radius 2051), on any image size;
 *           libscan_sat_u32_max_exact_area() and
 *           libscan_sat_u64_max_exact_area() give the bound for other
 *           maximum values. The filter below relies on it.
 * Floats    A float table accumulates corner sums as large as the whole
 *           image's sum, and a box sum is the difference of such values, so
 *           its absolute error grows with the image's total (about 2^-24 of
 *           it for LIBSCAN_F32: useless for small boxes of a 4K image). Use
 *           LIBSCAN_F64 (error about 2^-53 of the total).
 * Determinism
 *           Integer tables, box sums and filter outputs are exact, so the GPU
 *           and the CPU give the same bits. A float table from the GPU is
 *           bitwise the same on every run: the order in which it adds
 *           elements depends only on the dtypes, the channel count, the width
 *           and the height (not on the stream, the temp, graph capture or the
 *           GPU's load). The CPU adds left to right, row by row, so GPU and CPU
 *           float tables agree only up to rounding.
 * Status    Every function that can fail returns a libscan_status_t with the
 *           meanings of libscan.h; for images:
 *             NULL_POINTER      an image descriptor, or the data pointer of
 *                               one, is NULL (an optional image -- the
 *                               filter's weight table -- may be NULL itself),
 *                               or another required pointer is NULL;
 *             INVALID_DTYPE     an image's dtype is not a libscan_dtype_t
 *                               value, or not one this function takes (the
 *                               pairs above for building; see each function);
 *             INVALID_ARGUMENT  width, height, channels or pitch break the
 *                               rules above, or images that must have the
 *                               same shape do not; opts->d_temp NULL with
 *                               opts->temp_bytes != 0;
 *             INVALID_POINTER   a data pointer is not aligned to its element
 *                               size, or (GPU functions) is not device-
 *                               accessible memory;
 *             OVERLAP           an image or array the call writes shares a
 *                               byte with another argument (there is no in
 *                               place), or the caller's temp shares one with
 *                               an image;
 *             TEMP_TOO_SMALL    opts->temp_bytes < libscan_sat_temp_bytes();
 *             OUT_OF_MEMORY, CUDA  as in libscan.h (GPU functions only).
 *           Everything is checked before anything is launched or written: a
 *           call that fails with anything but CUDA (or OUT_OF_MEMORY) has
 *           changed nothing. The library never prints, aborts or exits.
 * Streams   GPU functions enqueue their work on `stream` and return without
 *           synchronising; results are ready when the stream gets there.
 * Temp      Only libscan_sat_build needs temp: the caller's (opts->d_temp,
 *           opts->temp_bytes), or with none the temp cache (libscan.h, "Temp"
 *           and "The temp cache"), under stream capture a graph allocation.
 *
 * Plain C99, usable from C and C++.
 */
#ifndef LIBSCAN_SAT_H
#define LIBSCAN_SAT_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include "libscan/libscan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest width and height of an image. */
#define LIBSCAN_SAT_MAX_DIM (1 << 30)

/* An image (input, table or output). `data` is device memory for the GPU
 * functions and host memory for the libscan_cpu_sat_* functions; an input
 * image is only read even though the pointer is not const. */
typedef struct libscan_sat_image {
    void *data;
    libscan_dtype_t dtype; /* element type of every channel */
    int channels;          /* 1..4, interleaved */
    size_t width;          /* pixels per row */
    size_t height;         /* rows */
    size_t pitch;          /* bytes from one row to the next */
} libscan_sat_image_t;

/* A box, inclusive corners, valid when 0 <= x0 <= x1 < width and
 * 0 <= y0 <= y1 < height. The box-sum functions give 0 for any other box
 * (not an error: the boxes are data, read only where the sums are made). */
typedef struct libscan_box {
    int32_t x0, y0, x1, y1;
} libscan_box_t;

/* 1 when (in -> table) is one of the supported pairs listed above, else 0. */
LIBSCAN_API int libscan_sat_pair_supported(libscan_dtype_t in, libscan_dtype_t table);

/* The largest box area whose sum is exact in a modular 32-bit table when no
 * input value exceeds max_value: floor((2^32 - 1) / max_value)
 * (max_value 0 gives UINT64_MAX). E.g. 255 -> 16,843,009. */
LIBSCAN_API uint64_t libscan_sat_u32_max_exact_area(uint32_t max_value);

/* The same for a modular 64-bit table: floor((2^64 - 1) / max_value)
 * (max_value 0 gives UINT64_MAX). E.g. 2^39 -> 2^25 - 1, far above the
 * 513 x 513 = 263,169 pixels of the filter's largest box. */
LIBSCAN_API uint64_t libscan_sat_u64_max_exact_area(uint64_t max_value);

/* ---- building the table ---------------------------------------------------- */

/* Options of libscan_sat_build. Zero-initialise (or LIBSCAN_SAT_OPTS_INIT),
 * or pass opts = NULL for the defaults.
 * d_temp, temp_bytes  the caller's temp, at least libscan_sat_temp_bytes()
 *                     bytes, any alignment; must not overlap either image.
 *                     NULL/0: the temp cache (libscan.h, "Temp"). */
typedef struct libscan_sat_opts {
    void *d_temp;
    size_t temp_bytes;
} libscan_sat_opts_t;

#define LIBSCAN_SAT_OPTS_INIT {NULL, 0}

/*
 * libscan_sat_temp_bytes: *temp_bytes = the temp libscan_sat_build needs for
 * a table of width x height pixels of `channels` elements of `table`: the
 * carries between the build's passes over tiles, a few percent of the
 * table's bytes (one row of carries per tile row and one column per tile
 * column: about 1/32 + 1/64 of a 4-channel uint32 table), with
 * LIBSCAN_TEMP_ALIGNMENT bytes of slack included, so any d_temp pointer
 * works. Host-only, no CUDA call.
 * Returns SUCCESS, NULL_POINTER (temp_bytes NULL), INVALID_DTYPE (`table` is
 * not LIBSCAN_U32, U64, F32 or F64) or INVALID_ARGUMENT (a size out of
 * range, or a figure that does not fit a size_t).
 */
LIBSCAN_API libscan_status_t libscan_sat_temp_bytes(size_t width, size_t height, int channels, libscan_dtype_t table,
                                                    size_t *temp_bytes);

/*
 * libscan_sat_build: the summed-area table of `in` into `out`, on the GPU.
 *
 * in      the image (device memory); in->dtype -> out->dtype must be one of
 *         the supported pairs.
 * out     the table (device memory, elements of out->dtype), with in's
 *         width, height and channels. Must not overlap `in` or the temp.
 * opts    NULL, or the caller's temp (see libscan_sat_opts_t).
 * stream  the CUDA stream the work is enqueued on.
 *
 * Returns SUCCESS, or: NULL_POINTER (in, out or a data pointer NULL),
 * INVALID_DTYPE (unknown dtype or unsupported pair), INVALID_ARGUMENT (sizes,
 * channels, pitches, shapes differ, d_temp NULL with temp_bytes != 0),
 * INVALID_POINTER (misaligned or not device memory), OVERLAP,
 * TEMP_TOO_SMALL, OUT_OF_MEMORY, CUDA. Asynchronous on `stream`; integer
 * tables are bitwise equal to libscan_cpu_sat_build's, float tables bitwise
 * the same on every run, whichever way temp is given (see Determinism).
 */
LIBSCAN_API libscan_status_t libscan_sat_build(const libscan_sat_image_t *in, const libscan_sat_image_t *out,
                                               const libscan_sat_opts_t *opts, cudaStream_t stream);

/* ---- queries ------------------------------------------------------------------ */

/*
 * libscan_sat_box_sums: the sums of n boxes from a table, on the GPU.
 *
 * table    a table from libscan_sat_build (dtype LIBSCAN_U32, U64, F32 or
 *          F64; device memory).
 * d_boxes  n boxes in device memory (aligned to 4 bytes).
 * d_sums   n * table->channels elements of table->dtype in device memory,
 *          aligned to that element: box i's channel c goes to
 *          d_sums[i * channels + c]. Must not overlap the table or the boxes.
 *          A box that is not valid (see libscan_box_t) gets sums of 0.
 *          Integer sums are exact under the wrap bound.
 * n        0 launches nothing (d_boxes and d_sums may then be NULL; the
 *          table is still checked).
 * Returns SUCCESS, NULL_POINTER (table, its data, or d_boxes/d_sums with
 * n > 0), INVALID_DTYPE, INVALID_ARGUMENT (table geometry, n too large for
 * the sums to be addressed), INVALID_POINTER, OVERLAP, CUDA. Asynchronous on
 * `stream`.
 */
LIBSCAN_API libscan_status_t libscan_sat_box_sums(const libscan_sat_image_t *table, const libscan_box_t *d_boxes,
                                                  size_t n, void *d_sums, cudaStream_t stream);

/* ---- the variable-radius box filter ------------------------------------------- */

/* Radii are unsigned 8.8 fixed point: r_q8 = round(radius * 256), so a
 * radius is at most LIBSCAN_SAT_MAX_RADIUS_Q8 / 256 = 255.996 pixels. */
#define LIBSCAN_SAT_MAX_RADIUS_Q8 0xffffu

/*
 * libscan_sat_box_filter: box filter with a radius per pixel, on the GPU.
 *
 * For the pixel (x, y) with radius r = r_q8 / 256, R = floor(r), f = r_q8 mod
 * 256: box_k is the square of half-width R + k (k = 0, 1) around (x, y),
 * clamped to the image. With a weight table the mean of a box is
 * sum(table) / sum(wtable) over the box (a weighted mean: the caller stored
 * weight * value in the image behind `table`), else sum(table) / area, the
 * true (clamped) area. Each mean is taken in 16.16 fixed point,
 * m_k = floor(sum * 65536 / weight), the two are blended
 * ((256 - f) * m_0 + f * m_1) and rounded half up to an integer output:
 * out = floor((blend + 2^23) / 2^24). box_1 is not read when f == 0.
 * The result differs from the exactly rounded mean only when the exact blend
 * lies within 2^-16 above a half-integer (it may then be one lower).
 *
 * table        a LIBSCAN_U32 table (from 8- or 16-bit input) in which every
 *              box the filter reads sums exactly: (2 * ceil(max radius) + 1)^2
 *              * max value < 2^32; or a LIBSCAN_U64 table (from 16-, 32- or
 *              64-bit input) of an image whose values are all below 2^40:
 *              then every box (at most 513 x 513 pixels) sums exactly below
 *              2^59, every mean is below 2^40 and the blend below fits 64 bits.
 * wtable       NULL, or a one-channel LIBSCAN_U32 table of weights with the
 *              table's width and height (every weight >= 1, so no box has a
 *              zero weight sum).
 * d_radius_q8  per-pixel radii (uint16_t, device memory, aligned to 2 bytes)
 *              with rows radius_pitch bytes apart (even, >= width * 2); or
 *              NULL: uniform_radius_q8 everywhere (radius_pitch is then
 *              ignored).
 * out          LIBSCAN_U8, U16, U32 or U64, the table's channels, width and
 *              height; values above the type's maximum are clamped. Must not
 *              overlap the table, the weight table or the radii.
 * Returns SUCCESS, or: NULL_POINTER (table, out or a data pointer NULL),
 * INVALID_DTYPE (table not LIBSCAN_U32 or U64, wtable not LIBSCAN_U32, out
 * not U8/U16/U32/U64),
 * INVALID_ARGUMENT (geometry, shapes, wtable->channels != 1, radius_pitch),
 * INVALID_POINTER, OVERLAP, CUDA. Asynchronous on `stream`. The output is
 * bitwise equal to libscan_cpu_sat_box_filter's for the same tables.
 */
LIBSCAN_API libscan_status_t libscan_sat_box_filter(const libscan_sat_image_t *table,
                                                    const libscan_sat_image_t *wtable, const uint16_t *d_radius_q8,
                                                    size_t radius_pitch, uint16_t uniform_radius_q8,
                                                    const libscan_sat_image_t *out, cudaStream_t stream);

/* ---- the same on the CPU (host memory, synchronous) ---------------------------- */

/*
 * libscan_cpu_sat_build: libscan_sat_build on the host (images in host
 * memory), row by row, left to right. No temp, no CUDA call. Same rules and
 * statuses, except that INVALID_POINTER means misaligned only and there is
 * no TEMP_TOO_SMALL, OUT_OF_MEMORY or CUDA.
 */
LIBSCAN_API libscan_status_t libscan_cpu_sat_build(const libscan_sat_image_t *in, const libscan_sat_image_t *out);

/*
 * libscan_cpu_sat_box_sums: libscan_sat_box_sums on the host (table, boxes
 * and sums in host memory); same rules and statuses, never CUDA.
 */
LIBSCAN_API libscan_status_t libscan_cpu_sat_box_sums(const libscan_sat_image_t *table, const libscan_box_t *boxes,
                                                      size_t n, void *sums);

/*
 * libscan_cpu_sat_box_filter: libscan_sat_box_filter on the host (radii in
 * host memory), the same integer arithmetic, hence the same output bits;
 * same rules and statuses, never CUDA.
 */
LIBSCAN_API libscan_status_t libscan_cpu_sat_box_filter(const libscan_sat_image_t *table,
                                                        const libscan_sat_image_t *wtable, const uint16_t *radius_q8,
                                                        size_t radius_pitch, uint16_t uniform_radius_q8,
                                                        const libscan_sat_image_t *out);

#ifdef __cplusplus
}
#endif
#endif
