/* sat_common.c -- the dtype pairs, the wrap bound and the argument checks
 * that the GPU (sat_gpu.cu) and CPU (sat_cpu.c, blur_cpu.c) entry points
 * share, so both reject exactly the same calls with the same status. Every
 * check is host arithmetic on the arguments: no CUDA call, nothing read
 * through a data pointer. */
#include "sat_internal.h"
#include "core/entry.h"

#include <stdint.h>

int libscan_sat_pair_supported(libscan_dtype_t in, libscan_dtype_t table) {
    return (in == LIBSCAN_U8 && table == LIBSCAN_U32) || (in == LIBSCAN_U16 && table == LIBSCAN_U32) ||
           (in == LIBSCAN_U16 && table == LIBSCAN_U64) || (in == LIBSCAN_U32 && table == LIBSCAN_U64) ||
           (in == LIBSCAN_U64 && table == LIBSCAN_U64) || (in == LIBSCAN_F32 && table == LIBSCAN_F32) ||
           (in == LIBSCAN_F32 && table == LIBSCAN_F64);
}

uint64_t libscan_sat_u32_max_exact_area(uint32_t max_value) {
    if (max_value == 0) return UINT64_MAX;
    return (uint64_t)UINT32_MAX / max_value;
}

uint64_t libscan_sat_u64_max_exact_area(uint64_t max_value) {
    if (max_value == 0) return UINT64_MAX;
    return UINT64_MAX / max_value;
}

static size_t row_bytes(const libscan_sat_image_t *img) {
    return img->width * (size_t)img->channels * libscan_dtype_size(img->dtype);
}

size_t libscan__sat_image_span(const libscan_sat_image_t *img) {
    return img->pitch * (img->height - 1) + row_bytes(img);
}

libscan_status_t libscan__sat_check_image(const libscan_sat_image_t *img) {
    if (!img || !img->data) return LIBSCAN_ERROR_NULL_POINTER;
    const size_t es = libscan_dtype_size(img->dtype);
    if (es == 0) return LIBSCAN_ERROR_INVALID_DTYPE;
    if (img->channels < 1 || img->channels > 4) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (img->width < 1 || img->height < 1 || img->width > LIBSCAN_SAT_MAX_DIM || img->height > LIBSCAN_SAT_MAX_DIM)
        return LIBSCAN_ERROR_INVALID_ARGUMENT;
    const size_t row = row_bytes(img); /* < 2^30 * 4 * 8: no overflow */
    if (img->pitch < row || img->pitch % es != 0) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    /* the span, pitch * (height - 1) + row, must fit a size_t */
    if (img->height > 1 && img->pitch > (SIZE_MAX - row) / (img->height - 1)) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if ((uintptr_t)img->data % es != 0) return LIBSCAN_ERROR_INVALID_POINTER;
    return LIBSCAN_SUCCESS;
}

int libscan__sat_images_overlap(const libscan_sat_image_t *a, const libscan_sat_image_t *b) {
    return libscan__ranges_overlap(a->data, libscan__sat_image_span(a), b->data, libscan__sat_image_span(b));
}

static int same_shape(const libscan_sat_image_t *a, const libscan_sat_image_t *b) {
    return a->width == b->width && a->height == b->height && a->channels == b->channels;
}

libscan_status_t libscan__sat_check_build(const libscan_sat_image_t *in, const libscan_sat_image_t *out) {
    libscan_status_t st = libscan__sat_check_image(in);
    if (st != LIBSCAN_SUCCESS) return st;
    if ((st = libscan__sat_check_image(out)) != LIBSCAN_SUCCESS) return st;
    if (!libscan_sat_pair_supported(in->dtype, out->dtype)) return LIBSCAN_ERROR_INVALID_DTYPE;
    if (!same_shape(in, out)) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (libscan__sat_images_overlap(in, out)) return LIBSCAN_ERROR_OVERLAP;
    return LIBSCAN_SUCCESS;
}

libscan_status_t libscan__sat_check_filter(const libscan_sat_image_t *table, const libscan_sat_image_t *wtable,
                                           const uint16_t *radius_q8, size_t radius_pitch,
                                           const libscan_sat_image_t *out) {
    libscan_status_t st = libscan__sat_check_image(table);
    if (st != LIBSCAN_SUCCESS) return st;
    if ((st = libscan__sat_check_image(out)) != LIBSCAN_SUCCESS) return st;
    if (wtable && (st = libscan__sat_check_image(wtable)) != LIBSCAN_SUCCESS) return st;
    if (table->dtype != LIBSCAN_U32 && table->dtype != LIBSCAN_U64) return LIBSCAN_ERROR_INVALID_DTYPE;
    if (out->dtype != LIBSCAN_U8 && out->dtype != LIBSCAN_U16 && out->dtype != LIBSCAN_U32 && out->dtype != LIBSCAN_U64)
        return LIBSCAN_ERROR_INVALID_DTYPE;
    if (wtable && wtable->dtype != LIBSCAN_U32) return LIBSCAN_ERROR_INVALID_DTYPE;
    if (!same_shape(table, out)) return LIBSCAN_ERROR_INVALID_ARGUMENT;
    if (wtable && (wtable->channels != 1 || wtable->width != table->width || wtable->height != table->height))
        return LIBSCAN_ERROR_INVALID_ARGUMENT;
    /* The radii as a one-channel u16 image: the same pitch, span and
     * alignment rules (pitch even and >= width * 2, 2-byte aligned). */
    const libscan_sat_image_t r = {(void *)(uintptr_t)radius_q8, LIBSCAN_U16, 1, table->width, table->height,
                                   radius_pitch};
    if (radius_q8 && (st = libscan__sat_check_image(&r)) != LIBSCAN_SUCCESS) return st;
    if (libscan__sat_images_overlap(table, out)) return LIBSCAN_ERROR_OVERLAP;
    if (wtable && libscan__sat_images_overlap(wtable, out)) return LIBSCAN_ERROR_OVERLAP;
    if (radius_q8 && libscan__sat_images_overlap(&r, out)) return LIBSCAN_ERROR_OVERLAP;
    return LIBSCAN_SUCCESS;
}

size_t libscan__sat_sums_bytes(const libscan_sat_image_t *table, size_t n) {
    return n * (size_t)table->channels * libscan_dtype_size(table->dtype);
}

libscan_status_t libscan__sat_check_sums(const libscan_sat_image_t *table, const libscan_box_t *boxes, size_t n,
                                         const void *sums) {
    libscan_status_t st = libscan__sat_check_image(table);
    if (st != LIBSCAN_SUCCESS) return st;
    if (table->dtype != LIBSCAN_U32 && table->dtype != LIBSCAN_U64 && table->dtype != LIBSCAN_F32 &&
        table->dtype != LIBSCAN_F64)
        return LIBSCAN_ERROR_INVALID_DTYPE;
    if (n == 0) return LIBSCAN_SUCCESS; /* nothing read or written: boxes and sums may be anything */
    if (!boxes || !sums) return LIBSCAN_ERROR_NULL_POINTER;
    if (n > SIZE_MAX / 32) return LIBSCAN_ERROR_INVALID_ARGUMENT; /* 4 channels of 8 bytes per box */
    const size_t es = libscan_dtype_size(table->dtype);
    if ((uintptr_t)boxes % _Alignof(libscan_box_t) != 0 || (uintptr_t)sums % es != 0)
        return LIBSCAN_ERROR_INVALID_POINTER;
    const size_t sum_bytes = libscan__sat_sums_bytes(table, n);
    if (libscan__ranges_overlap(sums, sum_bytes, table->data, libscan__sat_image_span(table)) ||
        libscan__ranges_overlap(sums, sum_bytes, boxes, n * sizeof(libscan_box_t)))
        return LIBSCAN_ERROR_OVERLAP;
    return LIBSCAN_SUCCESS;
}
