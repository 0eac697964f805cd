/*
 * sat.h -- summed-area tables (integral images) of multi-channel images on
 * the GPU, box-sum queries and a variable-radius box filter; the same
 * operations on the CPU with identical results for integer tables.
 *
 * ---------------------------------------------------------------------------
 * Conventions shared by every function
 * ---------------------------------------------------------------------------
 * Images    Described by libscan_sat_image_t: interleaved channels (1..4), rows of
 *           `width` pixels, `pitch` bytes from one row to the next (at least
 *           width * channels * element size, a multiple of the element
 *           size), top row first. The data pointer must be aligned to the
 *           element size; 16-byte alignment is fastest.
 * The table S(x, y) = sum of in(i, j) over 0 <= i <= x, 0 <= j <= y, per
 *           channel (inclusive). A box [x0, x1] x [y0, y1] sums to
 *           S(x1,y1) - S(x0-1,y1) - S(x1,y0-1) + S(x0-1,y0-1), with S = 0
 *           outside the image.
 * Types     Supported (input -> table) pairs:
 *             LIBSCAN_U8  -> LIBSCAN_U32   exact box sums, see "Wrap bound"
 *             LIBSCAN_U16 -> LIBSCAN_U32   exact box sums, see "Wrap bound"
 *             LIBSCAN_U16 -> LIBSCAN_U64   exact for every box of any image < 2^48 px
 *             LIBSCAN_F32 -> LIBSCAN_F32   fast, loses precision on large images
 *             LIBSCAN_F32 -> LIBSCAN_F64   the one to use for float input
 * Wrap bound Integer tables use modular (wrapping) unsigned arithmetic: the
 *           corner values of a large image wrap around 2^32, yet a box sum
 *           D - B - C + A computed modulo 2^32 is exact whenever the true box
 *           sum is below 2^32, i.e. when area * max_value < 2^32. For 8-bit
 *           input that is any box of at most 16,843,009 pixels (a 4104 x 4104
 *           box, radius 2051), on any image size; libscan_sat_u32_max_exact_area()
 *           gives the bound for other maximum values. The filter below
 *           relies on it.
 * Floats    A float table accumulates corner sums as large as the whole
 *           image's sum, and a box sum is the difference of such values, so
 *           its absolute error grows with the image's total (about 2^-24 of
 *           it for LIBSCAN_F32: useless for small boxes of a 4K image). Use
 *           LIBSCAN_F64 (error about 2^-53 of the total). The GPU sums rows in a
 *           fixed tree order (bitwise reproducible), the CPU left to right,
 *           so float tables agree only up to rounding.
 * Status    Every function returns a libscan_status_t; LIBSCAN_SUCCESS is 0. All
 *           arguments are checked before anything is launched; a call that
 *           fails with anything but LIBSCAN_ERROR_CUDA launched nothing. The
 *           library never prints, aborts or exits.
 * Streams   GPU functions enqueue work on `stream` and return without
 *           synchronising; results are ready when the stream gets there.
 *           Pointers given to GPU functions must be device-accessible.
 * In place  Never: outputs must not overlap inputs or temp
 *           (LIBSCAN_ERROR_INVALID_ARGUMENT).
 * Sizes     1 <= width, height <= LIBSCAN_SAT_MAX_DIM.
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

#define LIBSCAN_SAT_MAX_DIM (1 << 30)

/* An image (input, table or output). `data` is device memory for the GPU
 * functions and host memory for the sat_cpu_* functions; an input image is
 * only read even though the pointer is not const. */
typedef struct libscan_sat_image {
    void *data;
    libscan_dtype_t type;
    int channels;  /* 1..4, interleaved */
    size_t width;  /* pixels per row */
    size_t height; /* rows */
    size_t pitch;  /* bytes from one row to the next */
} libscan_sat_image_t;

/* A box, inclusive corners; must satisfy 0 <= x0 <= x1 < width and
 * 0 <= y0 <= y1 < height (libscan_sat_box_sums checks this on the GPU and writes
 * zeros for boxes that do not, see there). */
typedef struct libscan_box {
    int32_t x0, y0, x1, y1;
} libscan_box_t;

/* 1 when (in -> table) is one of the supported pairs listed above, else 0. */
int libscan_sat_pair_supported(libscan_dtype_t in, libscan_dtype_t table);

/* The largest box area whose sum is exact in a modular 32-bit table when no
 * input value exceeds max_value: floor((2^32 - 1) / max_value)
 * (max_value 0 gives UINT64_MAX). E.g. 255 -> 16,843,009. */
uint64_t libscan_sat_u32_max_exact_area(uint32_t max_value);

/* ---- building the table ---------------------------------------------------- */

/* Options of libscan_sat_build; zero-initialise (or LIBSCAN_SAT_OPTS_INIT),
 * or pass opts = NULL for the defaults.
 * d_temp, temp_bytes  caller temp of at least libscan_sat_temp_bytes(), or
 *                     NULL/0: the temp cache (libscan.h, Temp). */
typedef struct libscan_sat_opts {
    void *d_temp;
    size_t temp_bytes;
} libscan_sat_opts_t;

#define LIBSCAN_SAT_OPTS_INIT {NULL, 0}

/* Device temp bytes libscan_sat_build needs for a table of width x height x channels
 * elements of `table`: one intermediate (transposed) table. Returns
 * LIBSCAN_ERROR_INVALID_ARGUMENT for bad sizes, LIBSCAN_ERROR_INVALID_DTYPE for a
 * type that is not a table type. */
libscan_status_t libscan_sat_temp_bytes(size_t width, size_t height, int channels, libscan_dtype_t table, size_t *bytes);

/* Computes the summed-area table of `in` into `out` on the GPU: every row is
 * scanned and written transposed into temp by one kernel (a block scans a
 * band of rows tile by tile, carrying each row's total, and writes each tile
 * transposed from shared memory), and a second launch of the same kernel
 * scans the rows of temp (the input's columns) and transposes them back
 * into `out`. All channels of a pixel are summed together in one pass.
 *
 * in:   the image; in->type and out->type must be a supported pair;
 *       channels, width and height must match out's.
 * out:  the table (elements of out->type). Must not overlap in or temp.
 * d_temp, temp_bytes: device scratch of at least libscan_sat_temp_bytes(); or NULL
 *       and 0, and the call takes it with cudaMallocAsync/cudaFreeAsync on
 *       the stream (then it is not safe under graph capture).
 * Statuses: LIBSCAN_ERROR_INVALID_ARGUMENT (NULL, sizes, pitches, alignment,
 *       overlap), LIBSCAN_ERROR_INVALID_DTYPE (type pair), LIBSCAN_ERROR_TEMP_TOO_SMALL,
 *       LIBSCAN_ERROR_OUT_OF_MEMORY, LIBSCAN_ERROR_CUDA.
 * Asynchronous on `stream`; integer tables are bitwise equal to
 * libscan_cpu_sat_build's, float tables bitwise reproducible run to run. */
libscan_status_t libscan_sat_build(const libscan_sat_image_t *in, const libscan_sat_image_t *out,
                                   const libscan_sat_opts_t *opts, cudaStream_t stream);

/* ---- queries -------------------------------------------------------------------- */

/* Sums of n boxes from a table, on the GPU.
 *
 * table: a table from libscan_sat_build (any table type). d_boxes: n boxes in device
 * memory. d_sums: n * table->channels elements of table->type, box i's
 * channel c at d_sums[i * channels + c]. A box outside the image or with
 * x0 > x1 or y0 > y1 gets sums of 0 (it is not an error: the boxes are
 * never read by the host). Integer sums are exact under the wrap bound.
 * n == 0 launches nothing (pointers may then be NULL).
 * Statuses: LIBSCAN_ERROR_INVALID_ARGUMENT, LIBSCAN_ERROR_INVALID_DTYPE, LIBSCAN_ERROR_CUDA.
 * Asynchronous on `stream`. */
libscan_status_t libscan_sat_box_sums(const libscan_sat_image_t *table, const libscan_box_t *d_boxes, size_t n, void *d_sums,
                          cudaStream_t stream);

/* ---- the variable-radius box filter ----------------------------------------------- */

/* Radii are unsigned 8.8 fixed point: r_q8 = round(radius * 256), so a
 * radius is at most LIBSCAN_SAT_MAX_RADIUS_Q8 / 256 = 255.996 pixels. */
#define LIBSCAN_SAT_MAX_RADIUS_Q8 0xffffu

/* Box filter with a radius per pixel, on the GPU.
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
 * table:   a LIBSCAN_U32 table (from 8- or 16-bit input, so every box sum must
 *          be exact: (2 * ceil(max radius) + 1)^2 * max value < 2^32).
 * wtable:  NULL, or a one-channel LIBSCAN_U32 table of weights of the same size
 *          (every weight >= 1, so no box has a zero weight sum).
 * d_radius_q8, radius_pitch: per-pixel radii (uint16_t, pitch in bytes), or
 *          NULL to use uniform_radius_q8 everywhere.
 * out:     LIBSCAN_U8 or LIBSCAN_U16, channels/width/height of table; values above
 *          the type's maximum are clamped. Must not overlap the inputs.
 * Statuses: LIBSCAN_ERROR_INVALID_ARGUMENT, LIBSCAN_ERROR_INVALID_DTYPE (table not
 *          LIBSCAN_U32, out not U8/U16), LIBSCAN_ERROR_CUDA.
 * Asynchronous on `stream`. The output is bitwise equal to
 * libscan_cpu_sat_box_filter's for the same tables. */
libscan_status_t libscan_sat_box_filter(const libscan_sat_image_t *table, const libscan_sat_image_t *wtable, const uint16_t *d_radius_q8,
                            size_t radius_pitch, uint16_t uniform_radius_q8, const libscan_sat_image_t *out,
                            cudaStream_t stream);

/* ---- the same on the CPU (host memory, synchronous) ----------------------------- */

/* libscan_sat_build on the host: row by row, left to right. Same checks and
 * statuses (no temp, never LIBSCAN_ERROR_CUDA). */
libscan_status_t libscan_cpu_sat_build(const libscan_sat_image_t *in, const libscan_sat_image_t *out);

/* libscan_sat_box_sums on the host (boxes and sums in host memory). */
libscan_status_t libscan_cpu_sat_box_sums(const libscan_sat_image_t *table, const libscan_box_t *boxes, size_t n, void *sums);

/* libscan_sat_box_filter on the host, the same integer arithmetic (radii in host
 * memory). */
libscan_status_t libscan_cpu_sat_box_filter(const libscan_sat_image_t *table, const libscan_sat_image_t *wtable, const uint16_t *radius_q8,
                                size_t radius_pitch, uint16_t uniform_radius_q8, const libscan_sat_image_t *out);

#ifdef __cplusplus
}
#endif
#endif
